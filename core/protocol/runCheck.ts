/**
 * Whether a run file read back (a sweep's point file, for `attnscope merge`) holds values of the
 * kinds schemas/run.schema.json gives them, checked by that schema's validator (ajv standalone
 * code, scripts/run-validator.mjs). A hand-edited point file (`"meanOccupancy": "abc"`, `"kind":
 * "simulat"`) was merged silently, its figure shown as "—" (s53 newcomer 1). Only a value of the
 * wrong kind counts: a key the schema requires but the file lacks, or one it does not name, is a
 * file of an older or newer build, which its reader takes as it is.
 */
import type { ErrorObject } from 'ajv';
import { run as validateRun } from './runValidator.generated.js';
import { nodeAtPath, parseJsonTree } from '../config/tree';

/** A value of a run file that is not of the kind the run schema gives it. */
export interface RunValueMismatch {
  /** Where, as keys and indices in words ("pool.summary.meanOccupancy", "cases[2].kernel"). */
  key: string;
  /** What is wrong, in words: `pool.summary.meanOccupancy is the string "abc", where a run file has a number`. */
  message: string;
  /** The value's offset in the text (UTF-16 code units), for its line and column. */
  offset: number;
}

/** The errors that say a value is of the wrong kind (not a key missing or unknown, nor the schema's if/then). */
const KIND_KEYWORDS = new Set(['type', 'enum', 'const']);

/** A JSON Schema type in words. */
function typeWords(type: string): string {
  return ({ number: 'a number', integer: 'an integer', string: 'a string', boolean: 'true or false', null: 'null', object: 'an object', array: 'a list' } as Record<string, string>)[type] ?? type;
}

/** A JSON value in words: `the string "abc"`, `the number 3`, `true`, `null`, `an object`, `a list`. */
function valueWords(v: unknown): string {
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (typeof v === 'number') return `the number ${v}`;
  if (v === null || typeof v === 'boolean') return String(v);
  return Array.isArray(v) ? 'a list' : 'an object';
}

/** The value at a JSON pointer of `value`. */
function valueAt(value: unknown, segments: readonly string[]): unknown {
  let v = value;
  for (const s of segments) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[s] : undefined;
  return v;
}

/**
 * The first value of the run file `value` (parsed from `text`) that is not of the kind the run
 * schema gives it, with its place in `text`, or null when every value is (keys missing or unknown
 * are not looked at). A union (a number or null) is named with all its kinds.
 */
export function runValueMismatch(value: unknown, text: string): RunValueMismatch | null {
  if (validateRun(value)) return null;
  const errors = (validateRun.errors ?? []) as ErrorObject[];
  // In a union (an object or null), the object branch failing only on its keys is an object of another
  // build, though the null branch says "must be null" at the same place: not a mismatch.
  const keysOnly = new Set(errors.filter((e) => e.keyword === 'required' || e.keyword === 'additionalProperties').map((e) => e.instancePath));
  const first = errors.find((e) => KIND_KEYWORDS.has(e.keyword) && !keysOnly.has(e.instancePath));
  if (!first) return null;
  const at = errors.filter((e) => e.instancePath === first.instancePath && KIND_KEYWORDS.has(e.keyword));
  const expected = [...new Set(at.flatMap((e) => {
    const p = e.params as { type?: string | string[]; allowedValues?: unknown[]; allowedValue?: unknown };
    if (e.keyword === 'type') return (Array.isArray(p.type) ? p.type : [p.type ?? '']).map(typeWords);
    if (e.keyword === 'enum') return (p.allowedValues ?? []).map((x) => JSON.stringify(x));
    return [JSON.stringify(p.allowedValue)];
  }))];
  const segments = first.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const key = segments.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : `${i > 0 ? '.' : ''}${s}`)).join('') || 'the file';
  const words = expected.length <= 1 ? (expected[0] ?? '') : `${expected.slice(0, -1).join(', ')} or ${expected.at(-1)!}`;
  const node = nodeAtPath(parseJsonTree(text).root, segments);
  return { key, message: `${key} is ${valueWords(valueAt(value, segments))}, where a run file has ${words}`, offset: node?.range.offset ?? 0 };
}
