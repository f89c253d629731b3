/**
 * KeyReader: reads a HuggingFace config's keys through their aliases, from text_config first
 * and then the root, recording each value's source range and key and reporting every problem
 * (wrong type, out of range, missing) as a value. Used by core/config/model.ts.
 */
import type { ModelSpec, Problem, SourceRange } from './types';
import { closestMatch } from './suggest';
import { getProperty, unsafeIntegerText, type PropertyNode, type ValueNode } from './tree';
import { formatGrouped } from '../format';

interface Found {
  path: string;
  prop: PropertyNode;
}

export interface NumOptions {
  integer?: boolean;
  /** Smallest allowed value (inclusive); default 1. */
  min?: number;
  /** Largest allowed value (inclusive); default 2^53 - 1. Per-layer and per-head loops need a real bound. */
  max?: number;
}

/** Bounds far above any released model that keep per-layer and per-divisor loops small. */
export const MAX_LAYERS = 100_000;
export const MAX_HEADS = 1 << 20;
/**
 * hidden_size, intermediate_size, vocab_size and head_dim: 64x the largest released (vocab
 * 262,144, intermediate 53,248), and small enough that one layer's parameters (a few width²
 * matrices, 2^48 each) stay exact integers below 2^53.
 */
export const MAX_WIDTH = 1 << 24;
/** The largest sliding window or attention chunk (2^31 − 1 tokens): the simulator and the kernels hold it as an int32. */
export const MAX_WINDOW = 2 ** 31 - 1;

/**
 * Reads keys with aliases from one or two scopes (text_config first, then the root), records
 * ranges and source keys, and collects problems.
 */
export class KeyReader {
  readonly problems: Problem[] = [];
  readonly ranges: Record<string, SourceRange> = {};
  readonly sourceKeys: Partial<Record<keyof ModelSpec, string>> = {};
  /** The family's config-class defaults for keys its published configs leave out. */
  familyDefaults: Readonly<Record<string, number>> = {};
  /** "key value" of each default taken from familyDefaults. */
  readonly defaulted: string[] = [];

  constructor(
    private readonly scopes: ReadonlyArray<{ node: ValueNode; prefix: string }>,
    private readonly anchor: SourceRange,
  ) {}

  /** Every alias group find() or findRootFirst() looked for: the keys this reader knows. */
  private readonly asked: Array<readonly string[]> = [];

  /** First alias present (value not null) in the first scope that has one. */
  find(keys: readonly string[]): Found | undefined {
    return this.firstIn(this.scopes, keys);
  }

  /** find() with the root first: for keys where the top level speaks for the whole checkpoint (torch_dtype). */
  findRootFirst(keys: readonly string[]): Found | undefined {
    return this.firstIn([...this.scopes].reverse(), keys);
  }

  /** The first alias of `keys` set (not null) in the first of `scopes` that has one; its range recorded. */
  private firstIn(scopes: ReadonlyArray<{ node: ValueNode; prefix: string }>, keys: readonly string[]): Found | undefined {
    this.asked.push(keys);
    for (const scope of scopes) {
      for (const key of keys) {
        const prop = setProperty(scope.node, key);
        if (prop) {
          const path = scope.prefix + key;
          this.ranges[path] = prop.value.range;
          return { path, prop };
        }
      }
    }
    return undefined;
  }

  /**
   * A warning (code unknown-key, data.suggestion) at each key of the config's scopes that is not
   * one this reader looked for but is a typo's reach (closestMatch) from one it looked for and
   * did not find: `"num_key_value_head": 4` would otherwise leave num_key_value_heads at its
   * default (the attention heads: a KV cache 7x too big on a 28/4 model) without a word. Call
   * once, after every read.
   */
  reportTypos(): void {
    const present = (key: string) => this.scopes.some((s) => setProperty(s.node, key) !== undefined);
    const known = new Set(this.asked.flat());
    // Keys of groups none of whose aliases is in the config (hidden_dim is no typo's target
    // when hidden_size is there).
    const missing = [...new Set(this.asked.filter((g) => !g.some(present)).flat())];
    if (missing.length === 0) return;
    for (const scope of this.scopes) {
      for (const prop of scope.node.properties ?? []) {
        if (known.has(prop.key)) continue;
        const suggestion = closestMatch(prop.key, missing, 2);
        if (suggestion === undefined) continue;
        this.problem('warning', 'unknown-key',
          `unknown key "${prop.key}": did you mean "${suggestion}"? "${suggestion}" is not in the config, so it is read as absent`,
          prop.keyRange, { key: scope.prefix + prop.key, suggestion });
      }
    }
  }

  problem(severity: Problem['severity'], code: string, message: string, range: SourceRange, data?: Record<string, unknown>): void {
    this.problems.push(data ? { severity, code, message, range, data } : { severity, code, message, range });
  }

  missing(field: keyof ModelSpec | string, keys: readonly string[], why: string): void {
    const names = keys.map((k) => `"${k}"`).join(' or ');
    this.problem('error', 'missing-field', `missing ${names}: ${why}`, this.anchor, { key: keys[0], field });
  }

  /**
   * A number under one of `keys`. Returns undefined when absent (or null) or invalid; invalid
   * values are reported (wrong-type, invalid-value).
   */
  num(field: keyof ModelSpec | null, keys: readonly string[], opts: NumOptions = {}): number | undefined {
    const found = this.find(keys);
    if (!found) {
      const fallback = this.familyDefaults[keys[0]!];
      if (fallback !== undefined) this.defaulted.push(`${keys[0]} ${fallback}`);
      return fallback;
    }
    const v = found.prop.value;
    if (v.type !== 'number' || typeof v.value !== 'number') {
      this.problem('error', 'wrong-type', `"${found.prop.key}" must be a number, not ${describe(v)}`, v.range, { key: found.path, expected: 'number' });
      return undefined;
    }
    const unsafe = unsafeIntegerText(`"${found.prop.key}"`, v);
    if (unsafe) {
      this.problem('error', 'invalid-value', unsafe, v.range, { key: found.path });
      return undefined;
    }
    const integer = opts.integer ?? true;
    const min = opts.min ?? 1;
    if (integer && !Number.isInteger(v.value)) {
      this.problem('error', 'invalid-value', `"${found.prop.key}" must be an integer, not ${formatGrouped(v.value)}`, v.range, { key: found.path });
      return undefined;
    }
    if (v.value < min) {
      this.problem('error', 'invalid-value', `"${found.prop.key}" must be at least ${formatGrouped(min)}, not ${formatGrouped(v.value)}`, v.range, { key: found.path });
      return undefined;
    }
    const max = opts.max ?? Number.MAX_SAFE_INTEGER;
    if (v.value > max) {
      this.problem('error', 'invalid-value', `"${found.prop.key}" must be at most ${formatGrouped(max)}, not ${formatGrouped(v.value)}`, v.range, { key: found.path, limit: max });
      return undefined;
    }
    if (integer && v.floatLiteral) {
      // A config's integer field written 8.0: json.load gives a float, and e.g. vLLM's
      // num_attention_heads // num_key_value_heads or a torch shape then gets a float.
      this.problem('warning', 'integer-written-as-float', `"${found.prop.key}" is ${v.value} written with a fraction or exponent, which Python's json reads as a float, not the integer transformers and vLLM compute with: write ${v.value}`, v.range, { key: found.path, suggestion: v.value });
    }
    if (field) this.sourceKeys[field] = found.path;
    return v.value;
  }

  bool(keys: readonly string[]): boolean | undefined {
    const found = this.find(keys);
    if (!found) return undefined;
    const v = found.prop.value;
    if (v.type !== 'boolean') {
      this.problem('error', 'wrong-type', `"${found.prop.key}" must be true or false, not ${describe(v)}`, v.range, { key: found.path, expected: 'boolean' });
      return undefined;
    }
    return v.value as boolean;
  }

  str(keys: readonly string[]): string | undefined {
    const found = this.find(keys);
    if (!found) return undefined;
    const v = found.prop.value;
    if (v.type !== 'string') {
      this.problem('error', 'wrong-type', `"${found.prop.key}" must be a string, not ${describe(v)}`, v.range, { key: found.path, expected: 'string' });
      return undefined;
    }
    return v.value as string;
  }
}

/**
 * A config.json value as an error message names it after "not", in JSON's words: `the string
 * "x"`, `the number 2,147,483,648` (grouped as the limit beside it), `an object`, `an array`,
 * `null`, `true` (s52 newcomer: "not number 40").
 */
export function describe(v: ValueNode): string {
  if (v.type === 'string') return `the string ${JSON.stringify(v.value)}`;
  if (v.type === 'object') return 'an object';
  if (v.type === 'array') return 'an array';
  if (v.type === 'null') return 'null';
  if (v.type === 'number') return `the number ${formatGrouped(Number(v.value))}`;
  return String(v.value);
}

/** The property `key` of `node` when it holds a value (null counts as absent, as transformers reads it). */
function setProperty(node: ValueNode, key: string): PropertyNode | undefined {
  const prop = getProperty(node, key);
  return prop && prop.value.type !== 'null' ? prop : undefined;
}
