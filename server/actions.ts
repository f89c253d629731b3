/**
 * Quick fixes for the problems core and the server report. Each fix is a WorkspaceEdit that
 * removes the cause, so the diagnostic clears on the next check: a valid divisor for KV heads,
 * each tensor_parallel_size that fits the model, the smallest tensor_parallel_size (or
 * pipeline_parallel_size) at which the weights fit the device,
 * the nearest supported page_size, a missing head_dim, a misspelt or unknown key, an enum value
 * core suggests, a number past an inclusive bound set to the bound, a number written quoted unquoted (also where "auto" or a number is taken), a YAML 1.1 yes / no as true / false, a length cut to the model's limit, a memory_gib cut to the GPU's, a KV budget cut to what fits beside the weights, a max_model_len the KV pool holds, a defaulted prompt_len / output_len written to fit max_model_len, a `model:` path changed to a config on disk, a workload.trace path changed to the trace file beside the profile it is a typo of (core's closestMatch), the draw keys a workload.trace replaces removed. A problem in the config.json a profile points
 * at is fixed in that file. Diagnostics the client sends are matched to the current analysis by
 * the problem key in their `data`, else by code, message and overlapping range, so a stale
 * diagnostic gets no (possibly wrong) edit.
 */
import {
  CodeActionKind,
  type CodeAction,
  type CodeActionParams,
  type Range,
  type TextEdit,
} from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { closestMatch, lineFeeds, parseJsonTree, propertyWithKeyAt, propertyWithValueAt, type FoundProperty, type Problem, type SourceRange, type ValueNode } from '../core/config';
import { TRACE_REPLACES } from '../core/config/profileChecks';
import { PROFILE_DEFAULTS } from '../core/config/profileDefaults';
import { NODE_GPUS } from '../core/estimate/checks';
import type { Analysis } from './analysis';
import { DIAGNOSTIC_SOURCE, isLocal, problemKey, readDocument, toDiagnostic } from './diagnostics';
import { closestModelConfigs, modelConfigsNear, traceFilesNear } from './modelPaths';
import { uriToPath } from './paths';
import { flowMapping } from './schema';

/** The file a fix edits: the analysed document, or the config.json it read. */
interface Target {
  uri: string;
  doc: TextDocument;
  /** The document's text with lone \r made \n (lineFeeds), so that the line scans here find an old-Mac file's lines. */
  text: string;
  /** The line break an inserted line gets: the document's first (\r\n, a lone \r, \n), \n in a one-line file. */
  eol: string;
  tree: ValueNode | null;
  json: boolean;
}

/** The first line break of `text`; \n when it has none. */
function lineBreakOf(text: string): string {
  return /\r\n?|\n/.exec(text)?.[0] ?? '\n';
}

interface Fix {
  title: string;
  edits: TextEdit[];
}

function targetOf(a: Analysis, p: Problem): Target | null {
  if (isLocal(a, p)) return { uri: a.uri, doc: a.document, text: a.text, eol: lineBreakOf(a.document.getText()), tree: a.tree, json: a.syntax === 'json' };
  const doc = readDocument(a, p.file!);
  if (doc === null) return null;
  const raw = doc.getText();
  const text = lineFeeds(raw);
  return { uri: doc.uri, doc, text, eol: lineBreakOf(raw), tree: parseJsonTree(text).root, json: true };
}

function range(t: Target, r: SourceRange): Range {
  return { start: t.doc.positionAt(r.offset), end: t.doc.positionAt(r.offset + r.length) };
}

function replace(t: Target, r: SourceRange, newText: string): TextEdit {
  return { range: range(t, r), newText };
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** True when the property's key is the first thing on its line (block style). */
function keyStartsLine(t: Target, f: FoundProperty): boolean {
  const start = f.property.keyRange.offset;
  return /^\s*(-\s+)?$/.test(t.text.slice(lineStart(t.text, start), start));
}

/** True when the property is a YAML block key of its own lines (not after a list's dash): removing it removes its lines. */
function ownsLines(t: Target, f: FoundProperty): boolean {
  const keyStart = f.property.keyRange.offset;
  return !t.json && keyStartsLine(t, f) && !/^\s*(-\s+)/.test(t.text.slice(lineStart(t.text, keyStart), keyStart));
}

/**
 * The end of the comment-only lines from `from` (a line start) that are indented past `keyColumn`:
 * a removed YAML block key's own comment, wrapped onto the lines below it (examples' arrival_rate
 * line carries one). A comment line at the key's column or left of it heads the next key and stays.
 */
function commentContinuationEnd(text: string, from: number, keyColumn: number): number {
  let end = from;
  while (end < text.length) {
    const nl = text.indexOf('\n', end);
    const lineEnd = nl < 0 ? text.length : nl + 1;
    const m = /^( *)#/.exec(text.slice(end, lineEnd));
    if (m === null || m[1]!.length <= keyColumn) break;
    end = lineEnd;
  }
  return end;
}

/** Deletes a property with its separator (JSON, YAML flow) or its whole lines (YAML block, with its own comment's wrapped lines). */
function removeProperty(t: Target, f: FoundProperty): TextEdit {
  const props = f.parent.properties ?? [];
  const i = props.indexOf(f.property);
  const keyStart = f.property.keyRange.offset;
  const valueEnd = f.property.value.range.offset + f.property.value.range.length;
  if (ownsLines(t, f)) {
    const start = lineStart(t.text, keyStart);
    // A block value's range already ends after its last line's break (the next key's line is not its own).
    const nl = t.text[valueEnd - 1] === '\n' ? valueEnd - 1 : t.text.indexOf('\n', valueEnd);
    const end = commentContinuationEnd(t.text, nl < 0 ? t.text.length : nl + 1, keyStart - start);
    return replace(t, { offset: start, length: end - start }, '');
  }
  const next = props[i + 1];
  if (next !== undefined) return replace(t, { offset: keyStart, length: next.keyRange.offset - keyStart }, '');
  const prev = props[i - 1];
  if (prev !== undefined) {
    const prevEnd = prev.value.range.offset + prev.value.range.length;
    return replace(t, { offset: prevEnd, length: valueEnd - prevEnd }, '');
  }
  return replace(t, { offset: keyStart, length: valueEnd - keyStart }, '');
}

/**
 * Deletes several properties of one mapping (`fs`, all of `fs[0].parent`) in edits that never
 * overlap: a YAML block key with its own lines (comment lines between the keys stay), each run of
 * neighbouring flow / JSON properties as one span with its separators (one removeProperty per
 * property would overlap there: each takes the comma it shares with the next).
 */
function removeProperties(t: Target, fs: readonly FoundProperty[]): TextEdit[] {
  if (fs.length === 0) return [];
  const parent = fs[0]!.parent;
  const props = parent.properties ?? [];
  const gone = new Set(fs.map((f) => f.property));
  const edits: TextEdit[] = [];
  const found = (k: number): FoundProperty => ({ path: [...fs[0]!.path.slice(0, -1), props[k]!.key], property: props[k]!, parent });
  for (let i = 0; i < props.length; i++) {
    if (!gone.has(props[i]!)) continue;
    if (ownsLines(t, found(i))) {
      edits.push(removeProperty(t, found(i)));
      continue;
    }
    let j = i;
    while (j + 1 < props.length && gone.has(props[j + 1]!)) j++;
    const start = props[i]!.keyRange.offset;
    const end = props[j]!.value.range.offset + props[j]!.value.range.length;
    const next = props[j + 1];
    const prev = props[i - 1];
    if (next !== undefined) edits.push(replace(t, { offset: start, length: next.keyRange.offset - start }, ''));
    else if (prev !== undefined) {
      const prevEnd = prev.value.range.offset + prev.value.range.length;
      edits.push(replace(t, { offset: prevEnd, length: end - prevEnd }, ''));
    } else edits.push(replace(t, { offset: start, length: end - start }, ''));
    i = j;
  }
  return edits;
}

/** Inserts `key: value` right after an existing property, in the file's style; `value` is a number or text written as is. */
function insertAfter(t: Target, f: FoundProperty, key: string, value: number | string): TextEdit {
  const valueEnd = f.property.value.range.offset + f.property.value.range.length;
  const keyStart = f.property.keyRange.offset;
  const indent = t.text.slice(lineStart(t.text, keyStart), keyStart).replace(/-/g, ' ');
  const block = keyStartsLine(t, f);
  if (t.json) {
    const text = block ? `,${t.eol}${indent}${JSON.stringify(key)}: ${value}` : `, ${JSON.stringify(key)}: ${value}`;
    return replace(t, { offset: valueEnd, length: 0 }, text);
  }
  if (!block) return replace(t, { offset: valueEnd, length: 0 }, `, ${key}: ${value}`);
  // A block value's range ends after its last line's break: the new line goes before that break.
  const nl = t.text[valueEnd - 1] === '\n' ? valueEnd - 1 : t.text.indexOf('\n', valueEnd);
  const at = nl < 0 ? t.text.length : nl;
  return replace(t, { offset: at, length: 0 }, `${t.eol}${indent}${key}: ${value}`);
}

/**
 * <block>.<key> set to `value` (a number, or text written as is): written over the key's value,
 * or added after the block's last key. Null without the block (a mapping): adding a workload
 * block would also make the profile simulate.
 */
function setBlockKey(t: Target, block: 'workload' | 'device' | 'kv_cache', key: string, value: number | string): TextEdit | null {
  const written = propertyAtPath(t, `${block}.${key}`);
  if (written !== null) return replace(t, written.property.value.range, String(value));
  const node = propertyAtPath(t, block)?.property.value;
  const last = node?.type === 'object' ? node.properties?.at(-1) : undefined;
  return node && last ? insertAfter(t, { path: [block, last.key], property: last, parent: node }, key, value) : null;
}


/** The property whose value sits at the problem's range. */
function propertyOfValue(t: Target, r: SourceRange): FoundProperty | null {
  return propertyWithValueAt(t.tree, r.offset);
}

/** The property at a dotted path ("text_config.num_kv_heads"). */
function propertyAtPath(t: Target, dotted: string): FoundProperty | null {
  let node = t.tree;
  let found: FoundProperty | null = null;
  const path: string[] = [];
  for (const seg of dotted.split('.')) {
    const props = node?.properties ?? [];
    const prop = [...props].reverse().find((p) => p.key === seg);
    if (node === null || prop === undefined) return null;
    path.push(seg);
    found = { path: [...path], property: prop, parent: node };
    node = prop.value;
  }
  return found;
}

/**
 * The `count` values of `candidates` nearest to `target` (ties: the smaller first), excluding
 * `target`; with `ties`, also those as near as the last one kept (5 among divisors of 32, count 2:
 * 4, 2 and 8, not 8 dropped for 2).
 */
function nearest(candidates: number[], target: number, count: number, ties = false): number[] {
  const sorted = [...new Set(candidates)]
    .filter((c) => c !== target)
    .sort((x, y) => Math.abs(x - target) - Math.abs(y - target) || x - y);
  const last = sorted[count - 1];
  return ties && last !== undefined ? sorted.filter((c, i) => i < count || Math.abs(c - target) === Math.abs(last - target)) : sorted.slice(0, count);
}

function numberAt(t: Target, r: SourceRange): number | null {
  const n = Number(t.text.slice(r.offset, r.offset + r.length));
  return r.length > 0 && Number.isFinite(n) ? n : null;
}

function divisors(n: number): number[] {
  const out: number[] = [];
  for (let d = 1; d <= n && n <= 1 << 20; d++) if (n % d === 0) out.push(d);
  return out;
}

/** head_dim values of released models, for the "add head_dim" fix (the user checks the model card). */
const COMMON_HEAD_DIMS = [64, 80, 96, 112, 128, 160, 192, 256];

type FixMaker = (t: Target, p: Problem) => Fix[];

/**
 * What a tensor_parallel_size fix's title adds for a size past one node: " (spans 2 nodes of 8
 * GPUs)" for 16 (NODE_GPUS; vLLM's docs run tensor parallelism within a node, pipeline across).
 */
function spansNodes(tp: number): string {
  return tp > NODE_GPUS ? ` (spans ${Math.ceil(tp / NODE_GPUS)} nodes of ${NODE_GPUS} GPUs)` : '';
}

/** The device keys a fit check names a value for (core/estimate/checks.ts), with their data field, in its message's order. */
const DEVICE_SIZE_KEYS = [
  ['gpu_memory_utilization', 'gpuMemoryUtilization'],
  ['memory_gib', 'memoryGib'],
  ['tensor_parallel_size', 'tensorParallelSize'],
  ['pipeline_parallel_size', 'pipelineParallelSize'],
] as const;

/**
 * The device values a fit check names (core/estimate/checks.ts: weights-exceed-device's
 * Estimate.weightsFit, kv-pool-empty's and pool-below-max-model-len's deviceSizesThatFit), each
 * written over its device key or added to the device block; a tp × pp pair (data.pair) as one fix
 * of both keys.
 */
function deviceSizeFixes(t: Target, p: Problem): Fix[] {
  const valid = (key: string, v: unknown): v is number => typeof v === 'number' && (key.endsWith('parallel_size') ? Number.isInteger(v) && v > 1 : key === 'gpu_memory_utilization' ? v > 0 && v <= 1 : v > 0);
  const fixes: Fix[] = [];
  for (const [key, field] of DEVICE_SIZE_KEYS) {
    const v = p.data?.[field];
    const edit = valid(key, v) ? setBlockKey(t, 'device', key, v) : null;
    if (edit) fixes.push({ title: `Set ${key} to ${String(v)}${key === 'tensor_parallel_size' ? spansNodes(Number(v)) : ''}`, edits: [edit] });
  }
  const pair = p.data?.['pair'] as { tensorParallelSize?: unknown; pipelineParallelSize?: unknown } | undefined;
  if (pair && valid('tensor_parallel_size', pair.tensorParallelSize) && valid('pipeline_parallel_size', pair.pipelineParallelSize)) {
    const edits = [setBlockKey(t, 'device', 'tensor_parallel_size', pair.tensorParallelSize), setBlockKey(t, 'device', 'pipeline_parallel_size', pair.pipelineParallelSize)];
    if (edits.every((e) => e !== null)) fixes.push({ title: `Set tensor_parallel_size to ${pair.tensorParallelSize} and pipeline_parallel_size to ${pair.pipelineParallelSize}`, edits: edits as TextEdit[] });
  }
  return fixes;
}

function literal(t: Target, v: unknown): string {
  return t.json || typeof v !== 'string' ? JSON.stringify(v) : v;
}

const FIXES: Record<string, FixMaker> = {
  'heads-not-divisible': (t, p) => {
    const current = numberAt(t, p.range);
    const heads = Number(p.data?.['numHeads']);
    if (current === null || !Number.isInteger(heads) || heads < 1) return [];
    const f = propertyOfValue(t, p.range);
    const name = f?.property.key ?? 'num_key_value_heads';
    return nearest(divisors(heads), current, 2, true).map((d) => ({ title: `Set ${name} to ${d} (divides ${heads} heads)`, edits: [replace(t, p.range, String(d))] }));
  },
  // Every size the message lists as fitting (core/config/profileChecks.ts: data.fits), nearest the
  // written size first (ties: the smaller), so the preferred fix changes the parallelism least. A
  // size past one node (NODE_GPUS, 8) says that it spans nodes (s47 newcomer-ed F10: 16 and 32 were
  // offered as equals of 2, 4 and 8 for Llama-2-7B; vLLM's docs run tensor parallelism within a node).
  'tp-not-divisible': (t, p) => {
    const fits = p.data?.['fits'];
    if (!Array.isArray(fits)) return [];
    const sizes = fits.filter((d): d is number => Number.isInteger(d) && d >= 1);
    const current = numberAt(t, p.range);
    return (current === null ? sizes : nearest(sizes, current, sizes.length)).map((d) => ({ title: `Set tensor_parallel_size to ${d}${spansNodes(d)}`, edits: [replace(t, p.range, String(d))] }));
  },
  'hidden-not-divisible': (t, p) => {
    const hidden = Number(p.data?.['hiddenSize']);
    const heads = Number(p.data?.['numHeads']);
    const f = propertyOfValue(t, p.range);
    if (f === null || !(hidden > 0) || !(heads > 0)) return [];
    const fixes = nearest(COMMON_HEAD_DIMS, hidden / heads, 1).map((d) => ({
      title: `Add "head_dim": ${d} (check the model card)`,
      edits: [insertAfter(t, f, 'head_dim', d)],
    }));
    for (const h of nearest(divisors(hidden), heads, 1)) fixes.push({ title: `Set ${f.property.key} to ${h} (divides hidden_size ${hidden})`, edits: [replace(t, p.range, String(h))] });
    return fixes;
  },
  // Only the key transformers ignores goes: removing multi_query would not make the model MHA
  // in transformers (Falcon's default is true), so that is never offered.
  'multi-query-conflict': (t, p) => {
    const kvKey = p.data?.['key'];
    const kv = typeof kvKey === 'string' ? propertyAtPath(t, kvKey) : null;
    return kv !== null ? [{ title: `Remove "${kv.property.key}" (ignored: transformers uses 1 KV head)`, edits: [removeProperty(t, kv)] }] : [];
  },
  'vllm-flag-not-modelled': (t, p) => {
    const f = propertyWithKeyAt(t.tree, p.range.offset);
    return f === null ? [] : [{ title: `Remove "${f.property.key}" (not modelled)`, edits: [removeProperty(t, f)] }];
  },
  'unknown-key': (t, p) => {
    const f = propertyWithKeyAt(t.tree, p.range.offset);
    if (f === null) return [];
    const fixes: Fix[] = [];
    const suggestion = p.data?.['suggestion'];
    const siblings = new Set((f.parent.properties ?? []).map((q) => q.key));
    if (typeof suggestion === 'string' && !siblings.has(suggestion)) {
      fixes.push({ title: `Rename to "${suggestion}"`, edits: [replace(t, f.property.keyRange, t.json ? JSON.stringify(suggestion) : suggestion)] });
    }
    fixes.push({ title: `Remove "${f.property.key}"`, edits: [removeProperty(t, f)] });
    return fixes;
  },
  // A sweep price for a GPU no point runs on (core/config/sweep.ts readSweepBlock): the point GPU its name is closest to.
  'sweep-price-unused': (t, p) => {
    const f = propertyWithKeyAt(t.tree, p.range.offset);
    const suggestion = p.data?.['suggestion'];
    if (f === null || typeof suggestion !== 'string' || (f.parent.properties ?? []).some((q) => q.key === suggestion)) return [];
    return [{ title: `Rename to "${suggestion}"`, edits: [replace(t, f.property.keyRange, t.json || /[^\w.-]/.test(suggestion) ? JSON.stringify(suggestion) : suggestion)] }];
  },
  // A misspelt enum value: core's suggestion. A quoted number that an anyOf's number branch takes
  // (`memory_gib: "4"` against "auto" or a number; core/config/profileSchema.ts data.unquoted): the number.
  'invalid-value': (t, p) => {
    const suggestion = p.data?.['suggestion'];
    const unquoted = p.data?.['unquoted'];
    if (typeof unquoted === 'number') return [{ title: `Unquote ${propertyOfValue(t, p.range)?.property.key ?? 'value'}: ${String(unquoted)}`, edits: [replace(t, p.range, String(unquoted))] }];
    // A number past an inclusive bound (core/config/profileSchema.ts data.clamped): the bound,
    // named by its key (an array item by the array's: decode.batch_sizes.0 -> batch_sizes).
    const clamped = p.data?.['clamped'];
    if (typeof clamped === 'number' && numberAt(t, p.range) !== null) {
      const key = String(p.data?.['key'] ?? '').split('.').filter((s) => !/^\d+$/.test(s)).at(-1) || 'value';
      const bound = clamped < (numberAt(t, p.range) as number) ? 'maximum' : 'minimum';
      const atBound = { title: `Set ${key} to ${String(clamped)} (the schema's ${bound})`, edits: [replace(t, p.range, String(clamped))] };
      // gpu_memory_utilization past 1: vLLM's default first; 1 leaves the GPU no headroom (s48 newcomer-ed 14).
      const usual = PROFILE_DEFAULTS.device.gpuMemoryUtilization;
      if (key === 'gpu_memory_utilization' && bound === 'maximum') return [{ title: `Set ${key} to ${String(usual)} (vLLM's default)`, edits: [replace(t, p.range, String(usual))] }, atBound];
      return [atBound];
    }
    const fixes: Fix[] = suggestion === undefined ? [] : [{ title: `Change to ${JSON.stringify(suggestion)}`, edits: [replace(t, p.range, literal(t, suggestion))] }];
    // `dtype: fp8` (core data.kvCacheDtype): beside dtype bf16, the fp8 asked of the KV cache, written there.
    const kvDtype = p.data?.['kvCacheDtype'];
    const kvEdit = typeof kvDtype === 'string' ? setBlockKey(t, 'kv_cache', 'dtype', literal(t, kvDtype)) : null;
    if (kvEdit) fixes.push({ title: `Set dtype to ${JSON.stringify(suggestion)} and kv_cache.dtype to ${kvDtype} (an fp8 KV cache)`, edits: [replace(t, p.range, literal(t, suggestion)), kvEdit] });
    return fixes;
  },
  // A workload.trace that cannot be read: the trace file beside the profile its path is a typo of
  // (core's closestMatch, the keys' "did you mean"), e.g. ./chat-trace.json -> ./chat-trace.jsonl;
  // the error had no fix (s49 newcomer-ed 3).
  'trace-unreadable': (t, p) => {
    const profile = uriToPath(t.uri);
    if (profile === null) return [];
    const written = t.text.slice(p.range.offset, p.range.offset + p.range.length).replace(/^["']|["']$/g, '');
    const near = traceFilesNear(profile).filter((c) => c !== written);
    const bare = (path: string): string => path.replace(/^\.\//, '');
    const match = closestMatch(bare(written), near.map(bare));
    const path = match === undefined ? undefined : near[near.map(bare).indexOf(match)];
    return path === undefined ? [] : [{ title: `Change to ${path}`, edits: [replace(t, p.range, literal(t, path))] }];
  },
  // A `model:` path that does not resolve: the model configs near the profile most like it.
  'model-not-found': (t, p) => {
    const profile = uriToPath(t.uri);
    if (profile === null) return [];
    const written = t.text.slice(p.range.offset, p.range.offset + p.range.length).replace(/^["']|["']$/g, '');
    return closestModelConfigs(written, modelConfigsNear(profile)).map((path) => ({ title: `Change to ${path}`, edits: [replace(t, p.range, literal(t, path))] }));
  },
  // The pool holds no max_model_len sequence (core/estimate/checks.ts concurrencyProblems):
  // workload.max_model_len set to the longest that fits, vLLM's "estimated maximum model
  // length", written over the value or added to the workload block (without a workload block,
  // adding one would also make the profile simulate, so no edit is offered); then, for a pool the
  // device sizes, the gpu_memory_utilization, memory_gib and tensor_parallel_size at which it fits.
  'pool-below-max-model-len': (t, p) => {
    const fits = Number(p.data?.['maxModelLenThatFits']);
    const edit = Number.isInteger(fits) && fits > 0 ? setBlockKey(t, 'workload', 'max_model_len', fits) : null;
    return [...(edit ? [{ title: `Set workload.max_model_len to ${fits} (the longest the KV pool holds)`, edits: [edit] }] : []), ...deviceSizeFixes(t, p)];
  },
  // No room for a KV page (core/estimate/checks.ts fitProblems): the gpu_memory_utilization,
  // memory_gib and tensor_parallel_size at which one fits.
  'kv-pool-empty': deviceSizeFixes,
  // prompt + output past max_model_len (core/config/profileChecks.ts): each length the user left
  // to its default written with a max that fits (data.writes), then max_model_len raised to the
  // sum where vLLM takes that length (data.maxModelLenNeeded).
  'exceeds-max-model-len': (t, p) => {
    const fixes: Fix[] = [];
    const limit = Number(p.data?.['limit']);
    const writes = Array.isArray(p.data?.['writes']) ? (p.data['writes'] as Array<{ key?: unknown; value?: unknown }>) : [];
    for (const { key, value } of writes) {
      const name = typeof key === 'string' ? /^workload\.(prompt_len|output_len)$/.exec(key)?.[1] : undefined;
      if (name === undefined || typeof value !== 'object' || value === null) continue;
      const edit = setBlockKey(t, 'workload', name, flowMapping(t.json, value as Record<string, unknown>));
      const max = (value as { max?: unknown; value?: unknown }).max ?? (value as { value?: unknown }).value;
      if (edit) fixes.push({ title: `Add workload.${name} with max ${String(max)} (prompt + output within max_model_len ${limit})`, edits: [edit] });
    }
    const needed = Number(p.data?.['maxModelLenNeeded']);
    const edit = Number.isInteger(needed) && needed > 0 ? setBlockKey(t, 'workload', 'max_model_len', needed) : null;
    if (edit) fixes.push({ title: `Set workload.max_model_len to ${needed} (the longest prompt + output)`, edits: [edit] });
    return fixes;
  },
  // Weights above the device (core/estimate/checks.ts fitProblems, from Estimate.weightsFit): the
  // smallest tensor_parallel_size vLLM takes for the model at which the heaviest GPU's weights fit,
  // then the smallest pipeline_parallel_size, then a tp × pp pair where neither alone fits a node.
  'weights-exceed-device': deviceSizeFixes,
  // A number written quoted where a number is required (`page_size: "16"`): the same number
  // unquoted, when the string reads as one of the expected kind (an integer for an integer key).
  // Else core's suggestion: a YAML 1.1 boolean word (`causal: yes`) -> true / false. A length
  // written as a number (`prompt_len: 512`, core data.fixedLength): the fixed distribution's one
  // spelling, `{ dist: fixed, value: 512 }` (a bare number is not a second one: DESIGN.md "Workload").
  'wrong-type': (t, p) => {
    const fixedLength = p.data?.['fixedLength'];
    if (typeof fixedLength === 'number') {
      const text = flowMapping(t.json, { dist: 'fixed', value: fixedLength });
      // Named by its key (data.key, workload.prompt_len), also where the number is a sweep axis's item.
      return [{ title: `Write ${String(p.data?.['key'] ?? '').split('.').at(-1) || 'the length'} as ${text}`, edits: [replace(t, p.range, text)] }];
    }
    const expected = p.data?.['expected'];
    const kinds = (Array.isArray(expected) ? expected : [expected]).filter((k): k is string => typeof k === 'string');
    const written = t.text.slice(p.range.offset, p.range.offset + p.range.length);
    const inner = /^(["'])\s*([-+]?[0-9][0-9_.eE+-]*)\s*\1$/.exec(written)?.[2];
    const n = inner === undefined ? NaN : Number(inner);
    const fits = Number.isFinite(n) && (kinds.includes('number') || (kinds.includes('integer') && Number.isInteger(n)));
    if (!fits) return suggestionFix(t, p);
    const name = propertyOfValue(t, p.range)?.property.key ?? 'value';
    return [{ title: `Unquote ${name}: ${String(n)}`, edits: [replace(t, p.range, String(n))] }];
  },
  // device.memory_gib above the named GPU's CUDA total (core/estimate/checks.ts deviceProblems):
  // the total, as the message says ("set memory_gib to at most X"), or the key dropped so that
  // device.gpu sizes the pool.
  'memory-exceeds-gpu': (t, p) => {
    const limit = Number(p.data?.['limitGib']);
    const f = propertyOfValue(t, p.range);
    if (!(limit > 0) || f === null || numberAt(t, p.range) === null) return [];
    const gpu = typeof p.data?.['gpu'] === 'string' ? `the ${p.data['gpu']}'s` : 'the GPU\'s';
    return [
      { title: `Set memory_gib to ${limit} (${gpu} CUDA total)`, edits: [replace(t, p.range, String(limit))] },
      { title: `Remove "${f.property.key}" (device.gpu sizes the pool)`, edits: [removeProperty(t, f)] },
    ];
  },
  // An explicit KV budget (kv_cache.memory_gib or num_pages) that with the weights exceeds the
  // usable memory (core/estimate/checks.ts fitProblems): the largest that fits (data.fits), or the
  // key dropped so that the device sizes the pool (data.removable: not when num_pages is dropped
  // beside a memory_gib that would then size it).
  'kv-budget-exceeds-device': (t, p) => {
    const f = propertyOfValue(t, p.range);
    if (f === null || numberAt(t, p.range) === null) return [];
    const fits = Number(p.data?.['fits']);
    const fixes: Fix[] = [];
    if (fits > 0) fixes.push({ title: `Set ${f.property.key} to ${fits} (the most that fits beside the weights)`, edits: [replace(t, p.range, String(fits))] });
    if (p.data?.['removable'] === true) fixes.push({ title: `Remove "${f.property.key}" (the device sizes the pool)`, edits: [removeProperty(t, f)] });
    return fixes;
  },
  // A draw key beside workload.trace (core/config/profileChecks.ts): every key the trace replaces
  // that the profile writes, removed in one edit (comments kept); then this one alone, when there are more.
  'unused-with-trace': (t, p) => {
    const written = TRACE_REPLACES.map((k) => propertyAtPath(t, `workload.${k}`)).filter((f): f is FoundProperty => f !== null);
    const own = propertyWithKeyAt(t.tree, p.range.offset);
    if (written.length === 0) return [];
    const all = { title: `Remove the keys the trace replaces (${written.map((f) => f.property.key).join(', ')})`, edits: removeProperties(t, written) };
    return written.length > 1 && own !== null ? [all, { title: `Remove "${own.property.key}"`, edits: [removeProperty(t, own)] }] : [all];
  },
  'exceeds-max-position': (t, p) => {
    const limit = Number(p.data?.['limit']);
    return Number.isInteger(limit) && numberAt(t, p.range) !== null ? [{ title: `Set to ${limit} (the model's limit)`, edits: [replace(t, p.range, String(limit))] }] : [];
  },
};

/** Quick fixes that share the page_size, kv dtype and tensor-parallel logic of suggestions in `data`. */
function suggestionFix(t: Target, p: Problem): Fix[] {
  const list = Array.isArray(p.data?.['suggestions']) ? (p.data['suggestions'] as unknown[]) : p.data?.['suggestion'] !== undefined ? [p.data['suggestion']] : [];
  const f = propertyOfValue(t, p.range);
  const name = f?.property.key ?? 'value';
  return list.slice(0, 2).map((v) => ({ title: `Set ${name} to ${literal(t, v)}`, edits: [replace(t, p.range, literal(t, v))] }));
}

function before(a: Range['start'], b: Range['start']): boolean {
  return a.line < b.line || (a.line === b.line && a.character <= b.character);
}

/** True when ranges `a` and `b` share a position (touching counts: an empty range at a problem's edge). */
function overlaps(a: Range, b: Range): boolean {
  return before(a.start, b.end) && before(b.start, a.end);
}

/**
 * Quick fixes for the diagnostics in `params.context` that still match the analysis: by the
 * problem key in the diagnostic's `data` (diagnostics.ts problemKey), else by code, message and
 * an overlapping range — never by exact range, which clients that count columns otherwise
 * (Neovim: UTF-8 bytes) do not hand back as sent.
 */
export function codeActions(a: Analysis, problems: readonly Problem[], params: CodeActionParams): CodeAction[] {
  const only = params.context.only;
  if (only !== undefined && !only.some((k) => CodeActionKind.QuickFix.startsWith(k))) return [];
  const actions: CodeAction[] = [];
  const current = problems.map((p) => ({ problem: p, key: problemKey(p), diagnostic: toDiagnostic(a, p, {}) }));
  for (const d of params.context.diagnostics) {
    if (d.source !== DIAGNOSTIC_SOURCE) continue;
    const key = (d.data as { key?: unknown } | undefined)?.key;
    const problem = (typeof key === 'string'
      ? current.find((c) => c.key === key)
      : current.find((c) => c.problem.code === d.code && c.diagnostic.message === d.message && overlaps(c.diagnostic.range, d.range)))?.problem;
    if (problem === undefined) continue;
    const t = targetOf(a, problem);
    if (t === null) continue;
    const fixes = (FIXES[problem.code] ?? suggestionFix)(t, problem);
    fixes.forEach((fix, i) =>
      actions.push({
        title: fix.title,
        kind: CodeActionKind.QuickFix,
        diagnostics: [d],
        isPreferred: i === 0,
        edit: { changes: { [t.uri]: fix.edits } },
      }),
    );
  }
  return actions;
}
