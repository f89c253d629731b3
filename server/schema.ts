/**
 * Walks the shipped profile JSON Schema (schemas/attn-profile.schema.json, the one core
 * validates with ajv and the extension contributes through jsonValidation) to find what may be
 * written at a path: the keys of an object with their documentation, and the enum values of a
 * scalar. Understands the subset the schema uses: properties, items, $ref into $defs /
 * definitions, oneOf / anyOf / allOf alternatives, enum and const.
 */
import profileSchema from '../schemas/attn-profile.schema.json';

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

function deref(node: SchemaNode, depth = 0): SchemaNode {
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

/** Keys an object at `path` may hold, in schema order, each once. */
export function keysAt(path: ReadonlyArray<string | number>): KeyInfo[] {
  const seen = new Set<string>();
  const out: KeyInfo[] = [];
  for (const n of schemaAt(path)) {
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

/** Markdown documentation of a schema node: description, type, range, default, allowed values. */
export function describeSchema(node: SchemaNode): string {
  const alts = alternatives(node);
  const description = alts.map((a) => a.markdownDescription ?? a.description).find((d) => d !== undefined);
  const types = [...new Set(alts.flatMap((a) => (a.type === undefined ? [] : Array.isArray(a.type) ? a.type : [a.type])))];
  const enums = [...new Set(alts.flatMap((a) => a.enum ?? []))];
  const lines: string[] = [];
  if (description) lines.push(description);
  const facts: string[] = [];
  if (types.length > 0) facts.push(`type: \`${types.join(' | ')}\``);
  if (enums.length > 0) facts.push(`values: ${enums.map((e) => `\`${String(e)}\``).join(', ')}`);
  const n = deref(node);
  if (n.minimum !== undefined) facts.push(`minimum: ${n.minimum}`);
  if (n.exclusiveMinimum !== undefined) facts.push(`greater than ${n.exclusiveMinimum}`);
  if (n.maximum !== undefined) facts.push(`maximum: ${n.maximum}`);
  if (n.default !== undefined) facts.push(`default: \`${JSON.stringify(n.default)}\``);
  if (facts.length > 0) lines.push(facts.join(' · '));
  return lines.join('\n\n');
}

/**
 * The schema path of a document path: a profile's paths are the schema's; a config.json is what
 * a profile's inline `model` holds (its text_config, the same keys one level down).
 */
export function schemaPathOf(kind: 'config' | 'profile', path: ReadonlyArray<string | number>): Array<string | number> {
  if (kind === 'profile') return [...path];
  return ['model', ...(path[0] === 'text_config' ? path.slice(1) : path)];
}
