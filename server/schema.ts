/**
 * The language server's view of the profile JSON Schema: documentation of a node and the
 * schema path of a document path. The walk itself (schemaAt, keysAt, enumValuesAt) is
 * core/config/schemaWalk.ts, shared with the sweep's axis keys.
 */
import { alternatives, deref, type SchemaNode } from '../core/config/schemaWalk';

export { alternatives, enumValuesAt, keysAt, schemaAt, type EnumValue, type KeyInfo, type SchemaNode } from '../core/config/schemaWalk';

/**
 * A flat mapping on one line: `{ dist: lognormal, max: 3584 }` in YAML (strings unquoted), `{
 * "dist": "lognormal", "max": 3584 }` in JSON. What quick fixes and completion write as a value.
 */
export function flowMapping(json: boolean, o: Record<string, unknown>): string {
  const literal = (v: unknown): string => (json || typeof v !== 'string' ? JSON.stringify(v) : v);
  return `{ ${Object.entries(o).map(([k, v]) => `${json ? JSON.stringify(k) : k}: ${literal(v)}`).join(', ')} }`;
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
