/**
 * Inlay hints: the memory each key costs, written right after its value and recomputed on every
 * edit (the client re-pulls hints after a change; the server asks it to when a file a profile
 * reads changes). Every number comes from core's Estimate or core/estimate functions, every
 * figure is formatted by core/format (IEC bytes, thousands separators). Each label is parts,
 * figure first, cut to VS Code's default hint length by hintView.ts (the rest in the tooltip):
 *   num_key_value_heads / head_dim  ->  128 KiB KV/token                          (key figure)
 *   kv_cache.page_size              ->  31,232 tokens · 1,952 × 2 MiB (key figure: tokens, pages × a page's bytes;
 *                                       a hybrid pool's page is a block in each group: 147,392 tokens · 9,212 × 768 KiB)
 *   model (profile) / model_type    ->  15 GiB weights · 8.03B params (MoE: 87 GiB weights · 12.7B of 46.7B active) (key)
 *   device.memory_gib               ->  57.6 GiB KV budget (usable − weights − activations in the tooltip) (key)
 *   device.cpu_offload_gb           ->  4.06 GiB weights in CPU memory · 10.9 GiB on the GPU, KV budget +4.06 GiB (key)
 *   prefill.seq_lens                ->  naive S+P vs flash workspace per layer at the longest length N
 *   decode.context_lens             ->  KV one sequence of the longest length holds (387 MiB KV held/seq at 16,384;
 *                                       sliding-window layers: their window)
 *   max_position_embeddings         ->  what one request of that length reserves in the pool (16 GiB reserved/seq)
 *   workload.max_model_len          ->  the same reservation · the sequences of that length that fit (1 GiB reserved/seq · 3 seqs fit;
 *                                       vLLM's "Maximum concurrency ... 3.81x" in the tooltip)
 * "held" and "reserved" differ for sliding-window models (vLLM reserves window − 1 +
 * max_num_batched_tokens tokens for each sliding layer, more than the window it holds): two
 * figures, two words. The reservation hints name no N: it is the value they stand after.
 * A value followed by more on its line (a flow mapping `{ a: 1, b: 2 }`, a one-line JSON file)
 * gets its hint at the end of the line; a JSON value followed by its comma, after the comma.
 *
 * While the file has an error (users are mid-edit most of the time), hints do not vanish:
 * - Some keys invalid, the rest still a profile (analysis.ts readWithoutInvalidKeys): every hint
 *   whose figure depends on none of the invalid keys is computed from the valid ones (each hint
 *   lists the keys it depends on; the model itself is always one).
 * - Otherwise (a syntax error; the model missing, or with an error; a config.json with an
 *   error), and for each key the first rule gives no hint: the hint of the previous version is
 *   kept (carryHints) when its key's lines — key through value — and the key lines of the keys
 *   enclosing it are untouched by the edit, moved up or down with them. A hint whose key, value
 *   or parent key was edited, removed or joined to another line goes; so does one whose key the
 *   first rule found invalid. Carried again on the next edit, so it lasts until the figure can be
 *   recomputed; its label leads with "⚠" and its tooltip names the error (hintView.ts staleNote). The workspace cache
 *   (workspace.ts) keeps each document's hints and carries them to its next version. A profile whose config.json
 *   is mid-edit (in another editor) keeps its hints that way too: its own text is untouched.
 */
import type { InlayHint, Range } from 'vscode-languageserver';
import { getProperty, keyPathsOverlap, mixerNames, propertyWithValueAt, type ModelSpec, type Profile, type PropertyNode, type SourceRange, type ValueNode } from '../core/config';
import { attentionWorkspace, gpuNamePicksSmallBatch, headsPerGpu, kvBytesForSequence, maxNumSeqsOf, perGpuModel, poolTokenPages, requestReservation, tokenPageBytes, type Estimate } from '../core/estimate';
import { formatBytes, formatBytesVs, formatCount, formatParams, gpuCount } from '../core/format';
import { changedRegion, modelKeyRange, profileKeyRange, type Analysis } from './analysis';
import { presentHints, type HintMode } from './hintView';
import * as terms from './terms';

/** After a value, up to the end of its line: blanks and commas, then a comment or nothing — the hint stays after the value. */
const REST_KEEPS_HINT = /^[ \t,]*(?:#|\/\/|\r?$)/;

/**
 * Where a hint for the value at `at` goes: after a value on its key's line; at the end of the
 * line when more follows the value there (inside a flow mapping), so the hint does not push the
 * rest of the line aside; after `key:` when the value is a block that starts on the next line (an
 * inline model, a YAML list), so the hint reads on the key's line rather than at the start of the
 * next key.
 */
function anchorOffset(a: Analysis, at: SourceRange): number {
  const text = a.text;
  let end = at.offset + at.length;
  while (end > at.offset && /\s/.test(text[end - 1]!)) end--;
  const nl = text.indexOf('\n', end);
  const rest = text.slice(end, nl < 0 ? text.length : nl);
  if (!REST_KEEPS_HINT.test(rest)) {
    let lineEnd = nl < 0 ? text.length : nl;
    while (lineEnd > end && /\s/.test(text[lineEnd - 1]!)) lineEnd--;
    return lineEnd;
  }
  const found = propertyWithValueAt(a.tree, at.offset);
  if (found !== null) {
    const keyEnd = found.property.keyRange.offset + found.property.keyRange.length;
    if (text.slice(keyEnd, at.offset).includes('\n')) {
      const colon = text.indexOf(':', keyEnd);
      return colon >= 0 && colon < at.offset ? colon + 1 : keyEnd;
    }
  }
  // A JSON member's comma stays with its value: the hint goes after it (`"model": "x.json", 15 GiB
  // weights`), as at the end of a flow mapping's line, not between the two (s36 newcomer: the comma
  // read as part of the hint).
  const comma = /^[ \t]*,/.exec(rest);
  return comma === null ? end : end + comma[0].length;
}

/** One hint of one document version, with what it stands on. */
export interface AnchoredHint {
  /** Offset of the hint in the version's text. */
  offset: number;
  /** The label's parts, figure first (hintView.ts fitLabel joins those that fit). */
  parts: string[];
  /** Markdown: where the figure comes from. */
  tooltip: string;
  /** One of the key figures (shown when `attnscope.hints` is 'key'). */
  key: boolean;
  /** Dotted path of the key the hint belongs to ("kv_cache.page_size", "model.num_key_value_heads"). */
  path: string;
  /**
   * Whole lines (offset, length, their newline included) of the key through its value and of
   * the key of each enclosing mapping: the hint is carried to a later version only while these
   * are untouched.
   */
  lines: SourceRange[];
  /** Carried from an earlier version (its tooltip says so). */
  stale: boolean;
}

/** The lines `from`..`to` (end exclusive) lie on, the last one's newline included. */
function lineSpan(text: string, from: number, to: number): SourceRange {
  const start = from === 0 ? 0 : text.lastIndexOf('\n', from - 1) + 1;
  const nl = text.indexOf('\n', Math.max(from, to - 1));
  return { offset: start, length: (nl < 0 ? text.length : nl + 1) - start };
}

/** The properties from the root down to the one at `path` (keys and list indices), outermost first. */
function propertiesOnPath(root: ValueNode | null, path: ReadonlyArray<string | number>): PropertyNode[] {
  const out: PropertyNode[] = [];
  let node = root;
  for (const step of path) {
    if (node === null) break;
    if (typeof step === 'number') {
      node = node.items?.[step] ?? null;
      continue;
    }
    const prop = node.properties?.find((p) => p.key === step);
    if (prop === undefined) break;
    out.push(prop);
    node = prop.value;
  }
  return out;
}

function anchoredHint(a: Analysis, at: SourceRange, parts: string[], tooltip: string, key: boolean): AnchoredHint {
  const offset = anchorOffset(a, at);
  const found = propertyWithValueAt(a.tree, at.offset);
  const chain = found === null ? [] : propertiesOnPath(a.tree, found.path);
  const own = chain.pop();
  const lines = [own === undefined ? lineSpan(a.text, at.offset, at.offset + at.length) : lineSpan(a.text, own.keyRange.offset, own.value.range.offset + own.value.range.length)];
  for (const p of chain) lines.push(lineSpan(a.text, p.keyRange.offset, p.keyRange.offset + p.keyRange.length));
  return {
    offset,
    parts,
    tooltip,
    key,
    path: found === null ? `@${at.offset}` : found.path.join('.'),
    lines,
    stale: false,
  };
}

/** Keys the weights figure depends on, besides the model. */
const WEIGHTS_KEYS = ['dtype', 'device.tensor_parallel_size', 'device.pipeline_parallel_size', 'device.cpu_offload_gb'];
/** Keys the KV-per-token figure depends on, besides the model. */
const KV_KEYS = ['dtype', 'kv_cache.dtype', 'device.tensor_parallel_size', 'device.pipeline_parallel_size'];
/** Keys what one request reserves in the pool depends on (its layout and page), besides the model. */
const RESERVATION_KEYS = [...KV_KEYS, 'kv_cache.page_size', 'workload.max_num_batched_tokens', 'engine.vllm_version', 'engine.disable_hybrid_kv_cache_manager', 'engine.mamba_cache_mode'];
/**
 * Keys the KV budget (device memory minus weights, the activation peak and the engine's
 * reserves) depends on, besides the model. device.gpu is one only where it changes the figure:
 * it sizes the device when device.memory_gib is not set, and a name with "A100" in it picks
 * vLLM's smaller batch defaults, which size the activation peak (core/estimate gpuNamePicksSmallBatch),
 * unless the workload sets both limits. So an invalid device.gpu beside memory_gib keeps the
 * budget and pool hints; the figures that need the GPU (its step time) are not hints.
 */
function budgetKeys(a: Analysis, profile: Profile): string[] {
  const written = getProperty(getProperty(a.tree, 'device')?.value, 'gpu')?.value.value ?? profile.device.gpu;
  const batchDefaults = profile.workload?.maxNumBatchedTokens === undefined || profile.workload.maxNumSeqs === undefined;
  const gpuCounts = profile.device.memoryGib === null || (batchDefaults && gpuNamePicksSmallBatch(String(written ?? '')));
  return [
    'dtype',
    'device.memory_gib',
    'device.gpu_memory_utilization',
    'device.tensor_parallel_size',
    'device.pipeline_parallel_size',
    'device.cpu_offload_gb',
    ...(gpuCounts ? ['device.gpu'] : []),
    'engine',
    'kv_cache.num_pages',
    'kv_cache.memory_gib',
    'kv_cache.kv_cache_memory_bytes',
    'workload.max_num_batched_tokens',
    'workload.max_num_seqs',
  ];
}

/**
 * Where the KV-per-token hint goes, once: after num_key_value_heads, else an explicit head_dim
 * (MLA: kv_lora_rank), else the head count. One figure on one key (gpt-oss writes both
 * num_key_value_heads and head_dim: the same "KV/token" twice read as two figures).
 */
function kvAnchors(a: Analysis, model: ModelSpec): SourceRange[] {
  const fields = model.mla ? ['kv_lora_rank'] : [model.sourceKeys.numKvHeads, model.headDimExplicit ? model.sourceKeys.headDim : undefined];
  const anchors = fields.flatMap((path) => {
    const r = path === undefined ? undefined : modelKeyRange(a, path);
    return r === undefined ? [] : [r];
  });
  if (anchors.length > 0) return anchors.slice(0, 1);
  const heads = model.sourceKeys.numHeads === undefined ? undefined : modelKeyRange(a, model.sourceKeys.numHeads);
  return heads === undefined ? [] : [heads];
}

/** Where the weights hint goes: the profile's `model` value, or a config's model_type / architectures. */
function weightsAnchor(a: Analysis): SourceRange | undefined {
  if (a.kind === 'profile') return profileKeyRange(a, 'model');
  return modelKeyRange(a, 'model_type') ?? modelKeyRange(a, 'architectures');
}

/** The inlay hints of `hints` (a document's, see documentHints) that fall inside `range`, as `mode` asks (hintView.ts). */
export function inlayHints(a: Analysis, hints: readonly AnchoredHint[], range: Range, mode: HintMode = 'all'): InlayHint[] {
  return presentHints(a, hints, range, mode);
}

/**
 * Every hint of the analysed document, in text order: computed from its profile, or from the
 * valid keys' profile when some have errors, plus those of `carried` (carryHints: kept from the
 * previous version; the workspace cache holds them) for keys that got none (see the top of this
 * file).
 */
export function documentHints(a: Analysis, carried: readonly AnchoredHint[] = []): AnchoredHint[] {
  const hints = a.profile !== null && a.estimate !== null
    ? computedHints(a, [])
    : a.partial !== null
      ? computedHints({ ...a, profile: a.partial.profile, model: a.partial.profile.model, estimate: a.partial.estimate }, a.partial.invalid)
      : [];
  const sweep = sweepHint(a);
  if (sweep !== null) {
    hints.push(sweep);
    hints.sort((x, y) => x.offset - y.offset);
  }
  if (carried.length > 0) {
    const invalid = a.partial?.invalid ?? [];
    const computed = new Set(hints.map((h) => h.path));
    hints.push(...carried.filter((h) => !computed.has(h.path) && !invalid.some((p) => keyPathsOverlap(p, h.path))));
    hints.sort((x, y) => x.offset - y.offset);
  }
  return hints;
}

/** After `sweep.axes`: how many points the grid expands to and what each runs (core/config/sweep.ts). */
function sweepHint(a: Analysis): AnchoredHint | null {
  const axes = getProperty(getProperty(a.tree, 'sweep')?.value, 'axes');
  if (a.sweep === null || axes === undefined || a.sweep.points === 0) return null;
  const sizes = (axes.value.properties ?? []).map((p) => p.value.items?.length ?? 0);
  const product = sizes.length > 1 ? ` (${sizes.join(' × ')})` : '';
  const what = { simulate: 'pool simulation', 'max-rate': "capacity search (several pool simulations: the highest arrival rate meeting the profile's slo; the best point has the highest rate per GPU)", bench: 'kernel benchmark', both: 'benchmark + pool simulation' }[a.sweep.job];
  return anchoredHint(a, axes.value.range, [`${formatCount(a.sweep.points)} points${product}`, a.sweep.job],
    `**${formatCount(a.sweep.points)} sweep points**, the product of the axes' lengths${product}; each runs the ${what}.\n\n` +
      '`attnscope sweep <profile> --jobs N` runs them here (resuming where a previous run stopped); `attnscope submit --slurm` as a Slurm job array; `attnscope merge` combines the results.', false);
}

/**
 * The hints of `previous` (`previousHints`, its documentHints) that still hold in `a`, the next
 * analysed version of the same document: those whose lines (AnchoredHint.lines) lie wholly before or after the one region
 * where the texts differ (analysis.ts changedRegion), and still start a line there, moved by
 * the length the edit added. The rule keeps a hint only next to the very text it was computed
 * for; a coarser region (several edits between two analysed versions) only drops more. Same
 * text (a profile re-read because the config.json it points at changed): every hint stays.
 */
export function carryHints(previous: Analysis, previousHints: readonly AnchoredHint[], a: Analysis): AnchoredHint[] {
  const old = previous.text;
  const text = a.text;
  const { start, oldEnd, delta } = changedRegion(old, text);
  const unchanged = start === oldEnd && delta === 0;
  const move = (r: SourceRange): SourceRange | null => {
    if (unchanged) return r;
    const end = r.offset + r.length;
    if (end <= start && old.charCodeAt(end - 1) === 10) return r;
    const offset = r.offset + delta;
    if (r.offset >= oldEnd && (offset === 0 || text.charCodeAt(offset - 1) === 10)) return { offset, length: r.length };
    return null;
  };
  const carried: AnchoredHint[] = [];
  for (const h of previousHints) {
    const lines = h.lines.map(move);
    if (lines.some((r) => r === null)) continue;
    const offset = h.offset < start ? h.offset : h.offset + delta;
    carried.push({ ...h, offset, lines: lines as SourceRange[], stale: true });
  }
  return carried;
}

/**
 * The hints of `a`'s profile and estimate; `invalid` (dotted paths of keys with errors) drops
 * each hint whose figure depends on one of them.
 */
function computedHints(a: Analysis, invalid: readonly string[]): AnchoredHint[] {
  const e = a.estimate;
  const profile = a.profile;
  const model = a.model;
  if (e === null || profile === null || model === null) return [];
  const hints: AnchoredHint[] = [];
  const valid = (keys: readonly string[]): boolean => !invalid.some((p) => keys.some((k) => keyPathsOverlap(p, k)));
  const budget = budgetKeys(a, profile);
  // The page pool (pages, tokens, sequences that fit): KV per token, the budget, the page.
  const pool = [...KV_KEYS, ...budget, 'kv_cache'];
  // Under tensor parallelism every figure that is one GPU's says so: the weights, KV per token,
  // per page, per sequence, the budget, the prefill workspace (heads ÷ tp).
  const gpu = perGpuSuffix(profile);
  const kvLabel = e.hasKvCache
    ? `${formatBytes(e.kvBytesPerToken)} KV/token${gpu}${(e.mambaStateBytesPerSeq ?? 0) > 0 ? ` · ${formatBytes(e.mambaStateBytesPerSeq!)} ${profile.model.mamba ? mixerNames(profile.model.mamba).short : 'Mamba'}/seq` : ''}`
    : 'no KV cache (encoder)';
  const modelIsHere = a.kind === 'config' || profile.modelPath === null;

  const weights = weightsAnchor(a);
  if (weights !== undefined && valid(modelIsHere ? WEIGHTS_KEYS : [...WEIGHTS_KEYS, ...KV_KEYS])) {
    // One basis: the weights one GPU holds, as the KV per token beside them and the budget hint on
    // device.* (under tensor parallelism the checkpoint's total follows where it fits, and in the
    // tooltip). On one GPU too: an fp8 MLA checkpoint's GPU holds bf16 kv_b_proj copies beside it
    // (Estimate.kvBProjCopiesBytesPerGpu), which the checkpoint's size leaves out.
    const gpus = gpuCount(profile.device);
    // MoE: "12.7B of 46.7B active", which fits 43 characters beside the weights where "30.5B params,
    // 3.04B active" did not (Qwen3-30B-A3B's and gpt-oss's showed no parameter count at all); the
    // tooltip's Active parameters row says the count leaves out the input embedding and gives it with.
    const params = model.moe !== null ? `${formatParams(e.paramsActive)} of ${formatParams(e.paramsTotal)} active` : `${formatParams(e.paramsTotal)} params`;
    const total = gpus > 1 ? [`${formatBytes(e.weightsBytes)} on ${gpus} GPUs`] : [];
    // A profile whose model is a file elsewhere: its model line is where the KV per token shows, one
    // rule for every size, the pair "W weights, K KV/token" as one part (each "/GPU" on more than one
    // GPU), so it always shows. It was a part of its own, kept while it fitted 43 characters: DeepSeek-V3
    // showed it at tp 4 ("158 GiB weights/GPU · 68.6 KiB KV/token/GPU", 43) and not at tp 8
    // ("79.5 GiB weights/GPU", as " · 68.6 KiB KV/token/GPU" made 44; s50 newcomer-ed 10). The
    // comma saves the character: the pair is at most 43 for every hf-config at tp 1 to 8. Under
    // pipeline parallelism the stage ("stage 2 of 2": whose GPU the figures are) is the next part,
    // in the label where it fits and always in the tooltip's Weights row, and a hybrid Mamba model's
    // state per sequence after it.
    const g = gpus > 1 ? '/GPU' : '';
    const pair = e.hasKvCache ? `${formatBytes(e.weightsBytesPerGpu)} weights${g}, ${formatBytes(e.kvBytesPerToken)} KV/token${g}` : `${formatBytes(e.weightsBytesPerGpu)} weights${g}, no KV cache (encoder)`;
    const state = (e.mambaStateBytesPerSeq ?? 0) > 0 ? [`${formatBytes(e.mambaStateBytesPerSeq!)} ${profile.model.mamba ? mixerNames(profile.model.mamba).short : 'Mamba'}/seq${g}`] : [];
    const parts = modelIsHere
      ? [`${formatBytes(e.weightsBytesPerGpu)} weights${gpus > 1 ? gpu : ''}`, params, ...total]
      : [pair, ...stagePart(e), ...state, params, ...total];
    hints.push(anchoredHint(a, weights, parts, terms.weightsMarkdown(a, !modelIsHere && e.hasKvCache), true));
  }
  // device.cpu_offload_gb: what it takes off each GPU and gives the pool (core/estimate cpuOffload).
  const offload = profileKeyRange(a, 'device.cpu_offload_gb');
  if (offload !== undefined && (e.cpuOffloadBytesPerGpu ?? 0) > 0 && valid([...WEIGHTS_KEYS, ...budget])) {
    const moved = formatBytes(e.cpuOffloadBytesPerGpu!);
    hints.push(anchoredHint(a, offload, [`${moved} weights in CPU memory${gpu}`, `${formatBytes(e.weightsBytesPerGpu)} on the GPU${e.pool.budgetSource === 'device' ? `, KV budget +${moved}` : ''}`, 'read over PCIe every step'], terms.weightsMarkdown(a, false), true));
  }
  if (modelIsHere && valid(KV_KEYS)) for (const at of kvAnchors(a, model)) hints.push(anchoredHint(a, at, [kvLabel], terms.kvMarkdown(a), true));

  if (e.hasKvCache) {
    // The device leaves no KV budget (weights, or weights with activations and engine reserves, exceed
    // it): the budget, page and concurrency hints say so in words, not "0 B KV budget", "0 pages ·
    // 0 tokens", "0.00x" that read as figures (s47 newcomer-ed LOW 4; the weights error stands at device.gpu).
    // First in each label, so it shows within the 43 characters; the figure beside it goes to the tooltip where it does not fit.
    // With its figures, what exceeds what (s50 newcomer-ed 9: "weights exceed" stopped there): "no KV
    // budget/GPU: weights 158 > 126 GiB", the usable memory after the ">"; where the weights fit but
    // not with activations and engine reserves, their sum: "no KV budget: needs 36.5 > 36 GiB".
    // One unit where both share it ("79.5 > 71.3 GiB": DeepSeek-V3 at tp 8 on H100s in 41 characters, 45 with two).
    // The comparison reads true as printed (core/format formatBytesVs: more digits where three would
    // print "needs 36 > 36 GiB", s50 review; "=" where the two are equal, a budget of exactly 0).
    const weightsOver = e.weightsBytesPerGpu > e.pool.usableBytes;
    const over = weightsOver ? e.weightsBytesPerGpu : e.weightsBytesPerGpu + e.pool.activationPeakBytes + e.pool.engineReserveBytes;
    const noBudget = e.pool.budgetSource === 'device' && e.pool.budgetBytes <= 0
      ? `no KV budget${gpu}: ${weightsOver ? 'weights' : 'needs'} ${formatBytesVs(over, e.pool.usableBytes)}`
      : null;
    const maxPos = model.sourceKeys.maxPositionEmbeddings;
    const maxPosRange = modelIsHere && maxPos !== undefined ? modelKeyRange(a, maxPos) : undefined;
    if (maxPosRange !== undefined && model.maxPositionEmbeddings !== null && valid(RESERVATION_KEYS)) {
      hints.push(anchoredHint(a, maxPosRange, [reservationLabel(a, model.maxPositionEmbeddings)], terms.reservationMarkdown(a, model.maxPositionEmbeddings), false));
    }
    const memory = profileKeyRange(a, 'device.memory_gib') ?? profileKeyRange(a, 'device.gpu');
    if (memory !== undefined && e.pool.budgetSource === 'device' && valid(budget)) {
      const reserve = e.pool.engineReserveBytes > 0 ? ` − engine ${formatBytes(e.pool.engineReserveBytes)}` : '';
      // The second part is a label part of its own (joined with " · " where it fits, and in the
      // tooltip's heading), so it reads alone: no leading "=" (it read "budget · = 72 GiB usable").
      const parts = [noBudget ?? `${formatBytes(e.pool.budgetBytes)} KV budget${gpu}`, ...stagePart(e), `usable ${formatBytes(e.pool.usableBytes)} − weights ${formatBytes(e.weightsBytesPerGpu)} − activations ${formatBytes(e.pool.activationPeakBytes)}${reserve}`];
      hints.push(anchoredHint(a, memory, parts, terms.poolMarkdown(a), true));
    }
    const page = profileKeyRange(a, 'kv_cache.page_size');
    if (page !== undefined && valid(pool)) {
      // One format for every pool: "31,232 tokens · 1,952 × 2 MiB", the token capacity (vLLM's "GPU KV
      // cache size"), then its pages times one page's bytes, so that both products read true as
      // written: pages · page_size = tokens and pages · bytes = the pool. A grouped pool (hybrid:
      // full-attention and sliding-window groups; Mamba) counts a page as a block in each group
      // (poolTokenPages, tokenPageBytes): gemma-2-9b's "48,123 blocks = 384,976 tokens" read as wrong
      // arithmetic (s50 newcomer-ed 5; 48,123 · 16 = 769,968), now "384,976 tokens · 24,061 × 2.63
      // MiB/GPU"; the tooltip's Page pool row gives vLLM's blocks beside them. Within 43 characters
      // for every hf-config at tensor_parallel_size 1 to 8 (the word "pages" after the count would pass
      // it under tensor parallelism; the tooltip's Page and Page pool rows name them). Four formats
      // before, some without the page count, some without the page's bytes. A hybrid Mamba pool's block size is vLLM's raised one
      // ("80-token pages (Mamba)"): said first, as the page_size written is not what vLLM runs.
      const l = e.pool.layout;
      const perPage = formatBytes(tokenPageBytes(l, e.pageBytes));
      const raised = l.pageSize > profile.kvCache.pageSize ? [`${formatCount(l.pageSize)}-token pages (Mamba)`] : [];
      const parts = noBudget
        ? [noBudget, `${perPage}/page${gpu}`]
        : e.pool.budgetSource === 'none'
          ? [...raised, `${perPage}/page${gpu}`, 'pool not sized', 'set device.gpu, device.memory_gib or kv_cache.memory_gib']
          : [...raised, `${formatCount(e.pool.tokens)} tokens`, `${formatCount(poolTokenPages(l, e.pool.pages))} × ${perPage}${gpu}`];
      hints.push(anchoredHint(a, page, parts, terms.poolMarkdown(a), true));
    }
    const contexts = profileKeyRange(a, 'decode.context_lens');
    if (contexts !== undefined && profile.decode.contextLens.length > 0 && valid(KV_KEYS)) {
      const n = profile.decode.contextLens.reduce((m, x) => Math.max(m, x)); // not Math.max(...): 160,000 arguments overflow the stack
      hints.push(anchoredHint(a, contexts, [seqKvLabel(a, n)], terms.kvForSeqMarkdown(a, n), false));
    }
    const maxModelLen = profileKeyRange(a, 'workload.max_model_len');
    if (maxModelLen !== undefined && profile.workload !== null && e.pool.budgetSource !== 'none' && valid(pool)) {
      const n = profile.workload.maxModelLen;
      // How many requests of max_model_len tokens fit in the pool at once, in the first part, which always
      // shows: the figure a user of a long-context model looks for. A count, "164 seqs fit", the whole
      // sequences (floor of vLLM's max concurrency): the bare "164.40x" copied vLLM's "Maximum concurrency
      // for 8,192 tokens per request: 164.40x" without its words, and two decimals on a count of
      // sequences read odd (s50 newcomer-ed 11); the tooltip and hover quote vLLM's line and give its
      // formula. "fit", not "at once": "55 at once" read as the engine's cap (s46 newcomer), while shorter
      // requests run more at once. Where max_num_seqs is below it, it binds first: the second part says
      // so (where it fits the 43 characters; the tooltip's Max concurrency row always says it).
      const cap = maxNumSeqsOf(profile);
      const fit = `${formatCount(e.pool.sequencesAtOnce)} ${e.pool.sequencesAtOnce === 1 ? 'seq fits' : 'seqs fit'}`;
      const binds = cap < e.pool.sequencesAtOnce ? [`max_num_seqs ${formatCount(cap)} binds`] : [];
      hints.push(anchoredHint(a, maxModelLen, noBudget ? [noBudget, reservationLabel(a, n)] : [`${reservationLabel(a, n)} · ${fit}`, ...binds], terms.concurrencyMarkdown(a), false));
    }
  }

  const seqLens = profileKeyRange(a, 'prefill.seq_lens');
  if (seqLens !== undefined && profile.prefill.seqLens.length > 0 && valid(['dtype', 'prefill.batch_size', 'device.tensor_parallel_size'])) {
    const n = profile.prefill.seqLens.reduce((m, x) => Math.max(m, x)); // not Math.max(...), as above
    const w = attentionWorkspace(profile.prefill.batchSize, headsPerGpu(model, profile.device.tensorParallelSize), n, n, profile.dtype);
    // Per layer (the tooltip's rows say so); the N always in the label, as context_lens writes it.
    hints.push(anchoredHint(a, seqLens, [`${formatBytes(w.naiveBytes)} S+P${gpu} vs ${formatBytes(w.flashBytes)} flash at ${formatCount(n)}`], terms.workspaceMarkdown(a, w), false));
  }
  return hints.sort((x, y) => x.offset - y.offset);
}

/**
 * "/GPU" on more than one GPU (tensor or pipeline parallelism), else "". Under pipeline parallelism
 * the per-GPU figures are one stage's (Estimate.pipeline: the stage with the fewest KV blocks); which
 * stage is a part of its own on the model and KV budget hints ({@link stagePart}) and in every
 * tooltip's rows ("per GPU (stage 2 of 2)"), not in each label: "/GPU (stage 2 of 2)" in every
 * label put the seq_lens, context_lens and max_model_len hints and a no-budget label past 43
 * characters (Llama-3.1-70B at tp 4 × pp 2: "320 MiB reserved/seq/GPU (stage 2 of 2) · 171 seqs fit", 56).
 */
function perGpuSuffix(profile: Profile): string {
  return gpuCount(profile.device) > 1 ? '/GPU' : '';
}

/** ["stage 2 of 2"] under pipeline parallelism (whose GPU the "/GPU" figures are), else []. */
function stagePart(e: Estimate): string[] {
  return e.pipeline ? [`stage ${e.pipeline.stage + 1} of ${e.pipeline.size}`] : [];
}

/**
 * "435 MiB reserved/seq": what one `n`-token request reserves in the pool (core/estimate
 * requestReservation, the figure max concurrency divides by), on one GPU under tensor
 * parallelism. `n` is the value the hint stands after (max_model_len, max_position_embeddings),
 * so the label does not repeat it: "at 131,072" cut the concurrency after it at 43 characters.
 */
function reservationLabel(a: Analysis, n: number): string {
  const p = a.profile!;
  return `${formatBytes(requestReservation(a.estimate!.pool.layout, n).bytes)} reserved/seq${perGpuSuffix(p)}`;
}

/**
 * "80 MiB KV held/seq/GPU at 1,024": the KV one `n`-token sequence holds (sliding-window layers
 * their window), on one GPU under tensor parallelism; not the pool's reservation (reservationLabel).
 */
function seqKvLabel(a: Analysis, n: number): string {
  const p = a.profile!;
  const bytes = kvBytesForSequence(perGpuModel(p.model, a.estimate!), n, a.estimate!.kvDtype, p.device.tensorParallelSize);
  return `${formatBytes(bytes)} KV held/seq${perGpuSuffix(p)} at ${formatCount(n)}`;
}
