/**
 * A profile against schemas/attn-profile.schema.json: ajv validation, and every ajv error
 * mapped to one Problem at the range of the offending key or value, with a "did you mean"
 * where a typo is likely. Used by core/config/profile.ts.
 */
import type { ErrorObject } from 'ajv';
import { anyOfBySchemaPath, profile as profileValidator } from './profileValidator.generated.js';
import { formatCount, formatGrouped } from '../format';
import { closestKey, closestMatch, partMatches } from './suggest';
import { unmodelledFlagMessage, unmodelledVllmFlag } from './vllmFlags';
import { getProperty, nodeAtPath, type ValueNode } from './tree';
import type { Problem, SourceRange } from './types';

/**
 * Every error of `value` (a profile's plain value) against schemas/attn-profile.schema.json;
 * [] when it conforms. The validator is ajv's standalone code, compiled from the schema at build
 * time (scripts/profile-validator.mjs): compiling it at start-up cost the language server
 * 0.3-0.5 s of CPU before its first answer.
 */
export function validate(value: unknown): ErrorObject[] {
  return profileValidator(value) ? [] : [...(profileValidator.errors ?? [])];
}

/**
 * The number a quoted value reads as (`"4"`, `" 0.9 "`) when the anyOf at `schemaPath` (an
 * ajv error's, e.g. memory_gib's `"auto"` or a number) takes that number, else undefined: the
 * value of an "Unquote" quick fix (server/actions.ts), whose error is not a type error.
 */
function unquotedNumber(schemaPath: string, node: ValueNode | undefined): number | undefined {
  if (node?.type !== 'string' || typeof node.value !== 'string' || !/^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(node.value)) return undefined;
  const n = Number(node.value);
  const takes = anyOfBySchemaPath[schemaPath];
  return Number.isFinite(n) && takes !== undefined && takes(n) ? n : undefined;
}

/**
 * The boolean a YAML 1.1 word means (`yes`, `on`, `False`): YAML 1.2, which the profile reader
 * follows, reads those as strings. Undefined for any other value.
 */
function yaml11Boolean(node: ValueNode | undefined): boolean | undefined {
  if (node?.type !== 'string' || typeof node.value !== 'string') return undefined;
  if (/^(y|Y|yes|Yes|YES|true|True|TRUE|on|On|ON)$/.test(node.value)) return true;
  if (/^(n|N|no|No|NO|false|False|FALSE|off|Off|OFF)$/.test(node.value)) return false;
  return undefined;
}

/** What users write for a dtype (torch and vLLM names) -> the profile's name. */
const DTYPE_SYNONYMS: Record<string, string> = {
  bfloat16: 'bf16', float16: 'fp16', half: 'fp16', float32: 'fp32', float: 'fp32',
  fp8: 'fp8_e4m3', float8_e4m3fn: 'fp8_e4m3', fp8_e4m3fn: 'fp8_e4m3', e4m3: 'fp8_e4m3',
};

function pointerToPath(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function dotted(path: readonly string[]): string {
  return path.length === 0 ? 'the profile' : path.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : (i > 0 ? '.' : '') + s)).join('');
}

/** The most characters of a string value a message quotes. */
const QUOTED_CHARS = 60;

/**
 * A value as an error message names it after "not": `the string "fast"` (cut at 60 characters),
 * `the number 99,999,999` (grouped as formatGrouped writes a limit), `a mapping`, `a list`, `null`,
 * `true`; `nothing` for a missing node.
 */
export function describeValue(node: ValueNode | undefined): string {
  if (!node) return 'nothing';
  if (node.type === 'string') {
    // A binary file read as YAML is one string of thousands of characters: quote its start (s40 newcomer F7: 7 KB in one line).
    const text = String(node.value);
    const chars = [...text];
    return chars.length <= QUOTED_CHARS ? `the string ${JSON.stringify(text)}` : `the string ${JSON.stringify(chars.slice(0, QUOTED_CHARS).join(''))}… (${formatCount(chars.length)} characters)`;
  }
  if (node.type === 'object') return 'a mapping';
  if (node.type === 'array') return 'a list';
  if (node.type === 'null') return 'null';
  // "the number 0" as "the string ..." reads (s52 newcomer: "not number 0"), grouped as the limits
  // beside it are ("from 1 to 2,147,483,647, not the number 100,000,000,000"); true and false as written.
  if (node.type === 'number') return `the number ${formatGrouped(Number(node.value))}`;
  return String(node.value);
}

/** Where to point for a problem about an object's member: the key of the object in its parent, else its first character. */
export function anchorOf(root: ValueNode, path: readonly string[]): SourceRange {
  if (path.length > 0) {
    const parent = nodeAtPath(root, path.slice(0, -1));
    const prop = getProperty(parent, path[path.length - 1]!);
    if (prop) return prop.keyRange;
  }
  const node = nodeAtPath(root, path) ?? root;
  return { offset: node.range.offset, length: Math.min(1, node.range.length) };
}

/**
 * An anyOf of a name or a mapping (device.gpu: a table name, or an object describing a GPU)
 * speaks through the branch of the value's type: a string through the names' enum (with its "did
 * you mean"), a mapping through the object's own errors at their keys (a bad bf16_tflops at
 * bf16_tflops), not through the anyOf's one message on the whole value. So the anyOf's error and
 * the other branches' are dropped there; anyOfs without an object branch keep their errorMessage.
 */
function throughValueBranch(root: ValueNode, errors: ErrorObject[]): ErrorObject[] {
  const drop = new Set<ErrorObject>();
  for (const e of errors) {
    if (e.keyword !== 'anyOf') continue;
    const branches = (e.parentSchema as { anyOf?: Array<{ type?: unknown }> }).anyOf ?? [];
    if (!branches.some((b) => b.type === 'object')) continue;
    const type = nodeAtPath(root, pointerToPath(e.instancePath))?.type;
    const k = branches.findIndex((b) => b.type === type);
    if (k < 0) continue;
    drop.add(e);
    const branchPath = (i: number) => `${e.schemaPath}/${i}/`;
    for (const o of errors) if (o.schemaPath.startsWith(`${e.schemaPath}/`) && !o.schemaPath.startsWith(branchPath(k))) drop.add(o);
  }
  return drop.size === 0 ? errors : errors.filter((e) => !drop.has(e));
}

/** ajv errors -> Problems at exact ranges, one per cause. */
export function schemaProblems(root: ValueNode, allErrors: ErrorObject[]): Problem[] {
  const errors = throughValueBranch(root, allErrors);
  const problems: Problem[] = [];
  const seen = new Set<string>();
  const add = (p: Problem) => {
    // Per key too: two required keys missing from one mapping are two problems at its key.
    const k = `${p.range.offset}:${p.range.length}:${p.code}:${String(p.data?.['key'] ?? '')}`;
    if (!seen.has(k)) {
      seen.add(k);
      problems.push(p);
    }
  };
  // An anyOf with its own errorMessage speaks for all its branches.
  const anyOfPaths = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  // A value of the wrong type needs no second message about its allowed values or bounds.
  const typePaths = new Set(errors.filter((e) => e.keyword === 'type').map((e) => e.instancePath));
  for (const e of errors) {
    // Inside an inline model the model reader reports, with HF-specific messages.
    if (e.instancePath.startsWith('/model/')) continue;
    const path = pointerToPath(e.instancePath);
    const where = dotted(path);
    const node = nodeAtPath(root, path);
    const range = node?.range ?? anchorOf(root, path);
    if (anyOfPaths.has(e.instancePath) && e.keyword !== 'anyOf') continue;
    if (typePaths.has(e.instancePath) && e.keyword !== 'type' && e.keyword !== 'anyOf') continue;
    switch (e.keyword) {
      case 'additionalProperties': {
        const key = String((e.params as { additionalProperty: string }).additionalProperty);
        const prop = getProperty(node, key);
        // A vLLM setting the estimate leaves out is no typo: say so, and what it would change.
        const flag = unmodelledVllmFlag(key);
        if (flag) {
          add({ severity: 'warning', code: 'vllm-flag-not-modelled', message: unmodelledFlagMessage(flag), range: prop?.keyRange ?? range, data: { key } });
          break;
        }
        const known = Object.keys((e.parentSchema as { properties?: Record<string, unknown> }).properties ?? {}).filter((k) => k !== '$schema');
        const suggestion = closestKey(key, known);
        const inWhere = path.length === 0 ? '' : ` in ${where}`;
        add({
          severity: 'warning',
          code: 'unknown-key',
          message: suggestion
            ? `unknown key "${key}"${inWhere}: did you mean "${suggestion}"?`
            : `unknown key "${key}"${inWhere}: known keys are ${known.join(', ')}`,
          range: prop?.keyRange ?? range,
          data: suggestion ? { key, suggestion } : { key },
        });
        break;
      }
      case 'required': {
        const missing = String((e.params as { missingProperty: string }).missingProperty);
        add({
          severity: 'error',
          code: 'missing-field',
          message: path.length === 0 && missing === 'model'
            ? 'missing "model": give a path to a HuggingFace config.json, e.g. `model: ./llama-3.1-8b/config.json`'
            : where === 'sweep' && missing === 'axes'
              ? 'sweep needs "axes": profile keys, each with its values, e.g. `axes: { kv_cache.page_size: [8, 16, 32] }`; no sweep is run without one'
              : where === 'device.gpu' && missing === 'interconnect'
                // The if/then that asked for it says which key needs NVLink (nvlink_multicast, nvlink_bridged_pairs).
                ? `device.gpu needs "interconnect: NVLink" ${(e.parentSchema as { errorMessage?: string }).errorMessage ?? 'here'}`
                : `${where} needs "${missing}"${describesGpu(e.parentSchema) && missing in DESCRIBED_GPU_NEEDS ? `: ${DESCRIBED_GPU_NEEDS[missing]}` : ''}`,
          range: anchorOf(root, path),
          data: { key: [...path, missing].join('.') },
        });
        break;
      }
      case 'type': {
        const expected = (e.params as { type: string | string[] }).type;
        const list = Array.isArray(expected) ? expected.join(' or ') : expected;
        const custom = keyMessage(where, e);
        // A key with a fixed set of values names them whatever was written (`dtype: null` too).
        const allowed = (e.parentSchema as { enum?: unknown[] }).enum?.map(String);
        // A length distribution given as a plain number: say how a fixed length is written.
        const fixed = node?.type === 'number' && path[0] === 'workload' && /^(prompt|output)_len$/.test(path[1] ?? '') && path.length === 2
          ? `: write { dist: fixed, value: ${String(node.value)} } for a fixed length (or uniform, lognormal, exponential)`
          : '';
        // YAML's .inf / .nan (or JSON's 1e999) parse to numbers that ajv's "number" refuses: say finite,
        // quoting what was written (1e400 as the flag form says it, not "Infinity").
        const notFinite = node?.type === 'number' && typeof node.value === 'number' && !Number.isFinite(node.value)
          ? `${where} must be a finite number, not ${node.nonFiniteText === undefined ? String(node.value) : /\d/.test(node.nonFiniteText) ? `${node.nonFiniteText}, beyond the 64-bit float range (±1.8e308)` : node.nonFiniteText}`
          : null;
        // `causal: yes`: a boolean in YAML 1.1 (PyYAML), a string in YAML 1.2, which this reader follows.
        const bool = expected === 'boolean' ? yaml11Boolean(node) : undefined;
        const boolHint = bool === undefined ? '' : `: write ${String(bool)} (YAML 1.2 reads ${String(node?.value)} as a string)`;
        add({
          severity: 'error',
          code: 'wrong-type',
          message: notFinite ?? (custom
            ? `${custom}, not ${describeValue(node)}${quoteHint(expected, node)}${boolHint}`
            : allowed
              ? `${where} must be one of ${enumList(allowed)}, not ${describeValue(node)}`
              : `${where} must be ${article(list)}, not ${describeValue(node)}${fixed}${quoteHint(expected, node)}${boolHint}${vllmLengthHint(where, node)}`),
          range,
          // fixedLength: the number a fixed length distribution would hold (server/actions.ts rewrites it so).
          data: { key: path.join('.'), expected, ...(allowed ? { allowed } : {}), ...(bool === undefined ? {} : { suggestion: bool }), ...(fixed ? { fixedLength: node!.value } : {}) },
        });
        break;
      }
      case 'enum': {
        const allowed = ((e.params as { allowedValues: unknown[] }).allowedValues).map(String);
        const got = node?.value;
        const synonym = typeof got === 'string' ? DTYPE_SYNONYMS[got.toLowerCase().replace(/^torch\./, '')] : undefined;
        // Several values the word begins or is part of are all named, before the nearest by edit distance.
        const parts = synonym === undefined && typeof got === 'string' ? partMatches(got, allowed) : [];
        const suggestion = synonym && allowed.includes(synonym) ? synonym : typeof got === 'string' && parts.length === 0 ? closestMatch(got, allowed) : undefined;
        const quoted = parts.map((a) => `"${a}"`);
        const several = quoted.length > 0 ? `: did you mean ${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}?` : '';
        // `dtype: fp8` (s47 newcomer-ed F1: refused on DeepSeek-V3, whose fp8 weights the estimate
        // counts with dtype bf16): dtype is vLLM's --dtype, the activations' (compute) dtype and that
        // of unquantized weights ("data type for model weights and activations", vLLM engine args);
        // a checkpoint's fp8 weights come from its config's quantization_config (vLLM FP8 W8A8 docs:
        // fp8 weights and activations, or --quantization fp8 of a bf16/fp16 model); an fp8 KV cache
        // is kv_cache.dtype. data.suggestion bf16 and data.kvCacheDtype fp8: server/actions.ts's two fixes.
        const kvOnly = !suggestion && where === 'dtype' && synonym === 'fp8_e4m3'
          ? ': dtype is vLLM\'s --dtype, the activations\' (compute) dtype; fp8 weights come from the checkpoint\'s quantization_config, which the estimate reads, and an fp8 KV cache from kv_cache.dtype: fp8'
          : '';
        const vllmKv = !suggestion && where === 'kv_cache.dtype' && typeof got === 'string' ? VLLM_KV_DTYPE_HINTS[got] ?? '' : '';
        // An enum with its own wording (device.gpu.interconnect under nvlink_multicast: only NVLink) says why.
        const custom = keyMessage(where, e);
        add({
          severity: 'error',
          code: 'invalid-value',
          message: custom ? `${custom}, not ${describeValue(node)}` : `${where} must be one of ${enumList(allowed)}, not ${describeValue(node)}${suggestion ? `: did you mean "${suggestion}"?` : several || kvOnly || vllmKv}`,
          range,
          data: suggestion ? { key: path.join('.'), allowed, suggestion } : kvOnly ? { key: path.join('.'), allowed, suggestion: 'bf16', kvCacheDtype: 'fp8' } : { key: path.join('.'), allowed },
        });
        break;
      }
      case 'minimum':
      case 'maximum':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum': {
        const { comparison, limit } = e.params as { comparison: string; limit: number };
        // An inclusive bound is the allowed value nearest the one written (gpu_memory_utilization
        // 1.5 -> 1, batch_sizes 0 -> 1): data.clamped, which a quick fix writes. An exclusive one
        // (arrival_rate > 0) has no nearest allowed value, so none is given.
        const inclusive = e.keyword === 'minimum' || e.keyword === 'maximum';
        add({
          severity: 'error',
          code: 'invalid-value',
          message: `${where} must be ${comparison} ${formatGrouped(limit)}, not ${node?.type === 'number' ? formatGrouped(Number(node.value)) : String(node?.value)}${vllmLengthHint(where, node)}`,
          range,
          data: inclusive && node?.type === 'number' ? { key: path.join('.'), limit, clamped: limit } : { key: path.join('.'), limit },
        });
        break;
      }
      case 'minItems':
        add({ severity: 'error', code: 'invalid-value', message: `${where} needs at least one value`, range, data: { key: path.join('.') } });
        break;
      case 'minProperties':
        // The one object key with a floor is sweep.axes (a sweep of no axes has no points).
        add({
          severity: 'error',
          code: 'invalid-value',
          message: where === 'sweep.axes' ? 'sweep.axes needs at least one axis: a profile key with its values, e.g. `kv_cache.page_size: [8, 16, 32]`' : `${where} needs at least one key`,
          range,
          data: { key: path.join('.') },
        });
        break;
      case 'minLength':
        add({ severity: 'error', code: 'invalid-value', message: `${where} must not be empty`, range, data: { key: path.join('.') } });
        break;
      case 'pattern':
        add({ severity: 'error', code: 'invalid-value', message: `${keyMessage(where, e) ?? `${where} is not written in the form this key takes`}, not ${describeValue(node)}`, range, data: { key: path.join('.') } });
        break;
      case 'anyOf': {
        // The schema's errorMessage says what the value must be; the key's full path leads it.
        const custom = (e.parentSchema as { errorMessage?: string }).errorMessage;
        const unquoted = unquotedNumber(e.schemaPath, node);
        add({
          severity: 'error',
          code: 'invalid-value',
          message: `${where} ${custom ?? 'has an invalid value'}, not ${describeValue(node)}${unquoted === undefined ? '' : `: write ${String(unquoted)} unquoted`}`,
          range,
          data: unquoted === undefined ? { key: path.join('.') } : { key: path.join('.'), unquoted },
        });
        break;
      }
      case 'discriminator': {
        const branches = ['fixed', 'uniform', 'lognormal', 'exponential'];
        const distNode = getProperty(node, 'dist')?.value;
        const got = distNode?.value;
        const suggestion = typeof got === 'string' ? closestMatch(got, branches) : undefined;
        add({
          severity: 'error',
          code: distNode ? 'invalid-value' : 'missing-field',
          message: distNode
            ? `${where}.dist must be one of ${branches.join(', ')}, not ${describeValue(distNode)}${suggestion ? `: did you mean "${suggestion}"?` : ''}`
            : `${where} needs "dist": one of ${branches.join(', ')}`,
          range: distNode?.range ?? anchorOf(root, path),
          data: suggestion ? { key: `${path.join('.')}.dist`, suggestion } : { key: `${path.join('.')}.dist` },
        });
        break;
      }
      case 'oneOf':
      case 'const':
      case 'if':
        // Covered by the discriminator error or by the branch's own errors (an if's: its then's, at their keys).
        break;
      default:
        add({ severity: 'error', code: 'invalid-value', message: `${where} ${e.message ?? 'is invalid'}`, range, data: { key: path.join('.') } });
    }
  }
  return problems;
}

/** An enum's values as a message lists them: one holding a comma quoted ("PCIe, no P2P"), so the list does not read it as two. */
function enumList(allowed: readonly string[]): string {
  return allowed.map((v) => (v.includes(',') ? `"${v}"` : v)).join(', ');
}

/** The schema's own wording for a key (its errorMessage), led by the key's path: undefined when it has none. */
function keyMessage(where: string, e: ErrorObject): string | undefined {
  const custom = (e.parentSchema as { errorMessage?: string }).errorMessage;
  return custom === undefined || custom.startsWith(`${where} `) ? custom : `${where} ${custom}`;
}

/**
 * A number or boolean where a string is wanted: YAML read the unquoted text as one (0.10 as
 * the number 0.1, yes as true); say to quote it, as written. A number's text is restored from
 * its source range's length (trailing zeros after the point are what YAML dropped).
 */
function quoteHint(expected: string | string[], node: ValueNode | undefined): string {
  if (expected !== 'string' || (node?.type !== 'number' && node?.type !== 'boolean')) return '';
  let text = String(node.value);
  if (node.type === 'number' && /^\d+\.\d+$/.test(text)) while (text.length < node.range.length) text += '0';
  const read = node.type === 'boolean' ? 'a boolean' : text !== String(node.value) ? `the number ${String(node.value)}` : 'a number';
  return `: write it quoted, "${text}" (YAML reads an unquoted ${text} as ${read})`;
}

/**
 * vLLM --kv-cache-dtype values (vllm/config/cache.py CacheDType) attnscope does not take, with
 * what vLLM means and what to write (s39 newcomer 12).
 */
const VLLM_KV_DTYPE_HINTS: Record<string, string> = {
  fp8_inc: ": vLLM's fp8_inc is the fp8 (e4m3) KV cache of Intel Gaudi through Intel Neural Compressor, 1 byte a value: write fp8_e4m3 for its memory",
  fp8_ds_mla: ": vLLM's fp8_ds_mla is DeepSeek's sparse-MLA (FlashMLA) fp8 layout, fp8 latent values with their scales beside them and the RoPE part in bf16, not modelled here: fp8_e4m3 gives 1 byte a value, a little less than it holds",
};

/**
 * A length as vLLM's `--max-model-len` reads it (vllm/utils/argparse_utils.py human_readable_int,
 * before in vllm/engine/arg_utils.py): a number with a one-letter suffix, lowercase k / m / g / t
 * decimal (int(float(number) · 10^3 … 10^12): 32k = 32,000, 25.6k = 25,600, 1m = 1,000,000),
 * uppercase K / M / G / T binary with whole numbers only (32K = 32,768; 32.5K vLLM refuses,
 * "Decimals are not allowed with binary suffixes"), surrounding spaces stripped. `{ tokens }` for
 * such a text, `{ refused }` (the reason, quoting vLLM) for a decimal with a binary suffix, null
 * for any other text (a plain number vLLM reads with int(), or garbage: the caller's own rules).
 */
export function parseVllmLength(text: string): { tokens: number; suffix: string } | { refused: string } | null {
  const m = /^(\d+(?:\.\d+)?)([kmgtKMGT])$/.exec(text.trim());
  if (!m) return null;
  const [, digits, suffix] = m as unknown as [string, string, string];
  const decimal = { k: 1e3, m: 1e6, g: 1e9, t: 1e12 }[suffix as 'k'];
  if (decimal !== undefined) return { tokens: Math.trunc(Number(digits) * decimal), suffix };
  if (digits.includes('.')) return { refused: `vLLM refuses decimals with a binary suffix ("Decimals are not allowed with binary suffixes like ${suffix}. Did you mean to use ${digits}${suffix.toLowerCase()} instead?")` };
  return { tokens: Number(digits) * { K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40 }[suffix as 'K']!, suffix };
}

/** What a suffix of {@link parseVllmLength} multiplies by, in words: "lowercase k = 1,000". */
export function vllmSuffixWords(suffix: string): string {
  const lower = suffix === suffix.toLowerCase();
  const power = 'kmgt'.indexOf(suffix.toLowerCase()) + 1;
  return lower ? `lowercase ${suffix} = ${formatCount(1000 ** power)}` : `uppercase ${suffix} = ${formatCount(1024 ** power)}`;
}

/**
 * For workload.max_model_len written as vLLM's `--max-model-len` takes it but still refused here,
 * what vLLM means (s39 newcomer 12); '' otherwise. A suffixed length ({@link parseVllmLength}) is
 * read as vLLM reads it (profile.ts), so it reaches the schema's errors only when out of range,
 * and this says what it was read as; a decimal with a binary suffix vLLM refuses too; `-1` or
 * `auto` (human_readable_int_or_auto) is vLLM's longest length the KV cache holds, which attnscope
 * needs as a number: estimate prints it as vLLM's "estimated maximum model length" when a length does not fit.
 */
export function vllmLengthHint(where: string, node: ValueNode | undefined): string {
  if (where !== 'workload.max_model_len' || node === undefined) return '';
  const v = node.value;
  if (v === -1 || (typeof v === 'string' && /^\s*(-1|auto)\s*$/i.test(v))) {
    return ": vLLM's -1 / auto sizes max_model_len to the longest the KV cache holds; write that number (attnscope estimate names it, vLLM's \"estimated maximum model length\", when a length does not fit), or leave max_model_len out for the model's own";
  }
  if (typeof v !== 'string') return '';
  const read = parseVllmLength(v);
  if (read === null) return '';
  if ('refused' in read) return `: ${read.refused}`;
  return `: vLLM reads ${v.trim()} as ${formatCount(read.tokens)} (vllm/utils/argparse_utils.py human_readable_int: ${vllmSuffixWords(read.suffix)})`;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/**
 * What to write for each required key of a described GPU (device.gpu as a mapping), after
 * `device.gpu needs "<key>": `: where the figure comes from, with the H100 SXM's as the example
 * (NVIDIA's H100 datasheet: 989 dense bf16 TFLOP/s, 1,979 with sparsity; 3.35 TB/s; CUDA
 * reports its 80 GB as 79.22 GiB, vLLM's total_gpu_memory). The CLI and the editor print the same text.
 */
const DESCRIBED_GPU_NEEDS: Record<string, string> = {
  name: 'what the figures call the card, e.g. `name: MI325X`',
  bf16_tflops: 'its dense bf16 tensor-core TFLOP/s from the datasheet, without 2:4 sparsity: half the with-sparsity figure (H100 SXM: 989)',
  memory_bandwidth_gb_s: 'its peak memory bandwidth in GB/s from the datasheet (H100 SXM: 3.35 TB/s, 3350)',
  memory_gib: "its memory in GiB as CUDA or ROCm reports it, vLLM's total_gpu_memory, not the datasheet's GB (H100 80GB: 79.22)",
};

/** Whether a schema node is the described GPU's mapping (it has bf16_tflops among its properties). */
function describesGpu(schema: unknown): boolean {
  return (schema as { properties?: Record<string, unknown> } | undefined)?.properties?.['bf16_tflops'] !== undefined;
}
