/**
 * Walks the shipped profile JSON Schema (schemas/attn-profile.schema.json, the one core
 * validates with ajv; not contributed to the editor's JSON service, DESIGN.md "profile") to find what may be
 * written at a path (the language server's completion and hover, the sweep's axis keys): the keys of an object with their documentation, and the enum values of a
 * scalar. Understands the subset the schema uses: properties, items, $ref into $defs /
 * definitions, oneOf / anyOf / allOf alternatives, enum and const.
 */
import profileSchema from '../../schemas/attn-profile.schema.json';

/** The parts of a JSON Schema node this walker reads. */
export interface SchemaNode {
  $ref?: string;
  type?: string | string[];
  description?: string;
  markdownDescription?: string;
  enum?: unknown[];
  /** Per-value documentation, parallel to enum (the VS Code JSON language service's extension). */
  enumDescriptions?: string[];
  const?: unknown;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  items?: SchemaNode;
  oneOf?: SchemaNode[];
  anyOf?: SchemaNode[];
  allOf?: SchemaNode[];
  examples?: unknown[];
}

const ROOT = profileSchema as unknown as SchemaNode & { $defs?: Record<string, SchemaNode>; definitions?: Record<string, SchemaNode> };

export function deref(node: SchemaNode, depth = 0): SchemaNode {
  if (node.$ref === undefined || depth > 16) return node;
  const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(node.$ref);
  const target = m ? (m[1] === '$defs' ? ROOT.$defs : ROOT.definitions)?.[decodeURIComponent(m[2]!)] : undefined;
  return target === undefined ? node : deref({ ...target, description: node.description ?? target.description }, depth + 1);
}

/** The node and its alternatives (oneOf / anyOf / allOf), flattened and dereferenced. */
export function alternatives(node: SchemaNode, depth = 0): SchemaNode[] {
  const n = deref(node);
  if (depth > 8) return [n];
  const subs = [...(n.oneOf ?? []), ...(n.anyOf ?? []), ...(n.allOf ?? [])];
  return [n, ...subs.flatMap((s) => alternatives(s, depth + 1))];
}

/** Schema nodes that describe the value at `path` (keys and array indices), possibly several. */
export function schemaAt(path: ReadonlyArray<string | number>, root: SchemaNode = ROOT): SchemaNode[] {
  let nodes = alternatives(root);
  for (const seg of path) {
    const next: SchemaNode[] = [];
    for (const n of nodes) {
      if (typeof seg === 'number') {
        if (n.items) next.push(...alternatives(n.items));
      } else if (n.properties?.[seg]) {
        next.push(...alternatives(n.properties[seg]!));
      }
    }
    nodes = next;
    if (nodes.length === 0) break;
  }
  return nodes;
}

export interface KeyInfo {
  key: string;
  schema: SchemaNode;
}

/**
 * Keys an object at `path` may hold, in schema order, each once; with `written` (the object's
 * scalar values as written), only those of the alternatives whose `const` properties it does not
 * contradict: a length distribution with `dist: uniform` holds min and max, not median or mean.
 */
export function keysAt(path: ReadonlyArray<string | number>, written: (key: string) => unknown = () => undefined): KeyInfo[] {
  const seen = new Set<string>();
  const out: KeyInfo[] = [];
  const fits = (n: SchemaNode): boolean => Object.entries(n.properties ?? {}).every(([key, s]) => s.const === undefined || written(key) === undefined || written(key) === s.const);
  for (const n of schemaAt(path).filter(fits)) {
    for (const [key, schema] of Object.entries(n.properties ?? {})) {
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ key, schema });
    }
  }
  return out;
}

export interface EnumValue {
  value: unknown;
  /** The schema's enumDescriptions entry for it, if any. */
  description?: string;
}

/** Enum and const values allowed at `path` (strings, numbers, booleans), each once. */
export function enumValuesAt(path: ReadonlyArray<string | number>): EnumValue[] {
  const out: EnumValue[] = [];
  for (const n of schemaAt(path)) {
    (n.enum ?? []).forEach((value, i) => {
      if (!out.some((o) => o.value === value)) out.push({ value, description: n.enumDescriptions?.[i] });
    });
    if (n.const !== undefined && !out.some((o) => o.value === n.const)) out.push({ value: n.const });
  }
  return out;
}

