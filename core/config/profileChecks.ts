/**
 * The checks of a profile a JSON Schema cannot make: they need the model (tensor parallelism vs
 * heads, lengths vs max_position_embeddings) or compare two keys (min ≤ max, num_pages vs
 * memory_gib). Used by core/config/profile.ts after the schema and the model read cleanly, and
 * by core/validate.ts on the profile of a file's valid keys when others have errors.
 */
import { KERNEL_LIMITS, nearestPageSize, tensorParallelSizes, tpSplitWidths, VLLM_BLOCK_SIZES, VLLM_CUDA_BLOCK_MULTIPLE, vllmBlockSizesText } from '../estimate/checks';
import { batchDefaults, deviceMemory, maxNumBatchedTokensOf, maxNumSeqsOf, vllmMaxModelLen } from '../estimate/index';
import { formatCount } from '../format';
import { quantizationAlignment } from './quantization';
import { anchorOf } from './profileSchema';
import { keyPathsOverlap, TRACE_SETTING_KEYS, type LengthDist, type Problem, type Profile, type SourceRange } from './types';
import { nodeAtPath, type ValueNode } from './tree';

/**
 * Checks a schema cannot make: they need the model, or compare two keys. `root` is the tree
 * `profile` was read from. `invalid` (dotted paths: "dtype", "workload.max_num_seqs") are keys
 * left out of that tree for their errors, so that defaults stand in for them: every check that
 * reads one of them (or a key inside or around one) is skipped, the rest run (core/validate.ts).
 */
export function semanticProblems(root: ValueNode, profile: Profile, invalid: readonly string[] = []): Problem[] {
  const problems: Problem[] = [];
  /** True when the check reading `keys` reads none of the keys left out. */
  const reads = (...keys: string[]): boolean => !keys.some((k) => invalid.some((i) => keyPathsOverlap(i, k)));
  const m = profile.model;
  const at = (path: string): SourceRange => profile.ranges[path] ?? anchorOf(root, path.split('.'));
  /** Item `i` of the list at `path` (Profile.ranges lists no items). */
  const itemAt = (path: string, i: number): SourceRange => nodeAtPath(root, [...path.split('.'), i])?.range ?? anchorOf(root, [...path.split('.'), String(i)]);
  const tp = profile.device.tensorParallelSize;
  // The sizes vLLM accepts for this model, and the MLP widths they must divide (core/estimate/checks.ts).
  const widths = tpSplitWidths(m);
  const fitting = (): number[] => tensorParallelSizes(m);
  // "Split it evenly", not "fit": whether the weights fit in memory at a size is the memory check's (s44 newcomer-ed F15: tp 1 "fit" a 70B model).
  const sizes = () => `tensor_parallel_size values that split this model evenly: ${fitting().join(', ') || 'none'}`;
  const tpValid = reads('device.tensor_parallel_size');
  if (tpValid && tp > 1 && m.numHeads % tp !== 0) {
    problems.push({
      severity: 'error', code: 'tp-not-divisible',
      message: `tensor_parallel_size ${tp} does not divide the ${m.numHeads} attention heads: vLLM requires num_attention_heads % tensor_parallel_size == 0 (${sizes()})`,
      range: at('device.tensor_parallel_size'), data: { numHeads: m.numHeads, fits: fitting() },
    });
  } else if (tpValid && tp > 1 && !m.mla && m.numKvHeads % tp !== 0 && tp % m.numKvHeads !== 0) {
    problems.push({
      severity: 'error', code: 'tp-not-divisible',
      message: `tensor_parallel_size ${tp} and the ${m.numKvHeads} KV heads must divide one another (vLLM shards or replicates KV heads; ${sizes()})`,
      range: at('device.tensor_parallel_size'), data: { numKvHeads: m.numKvHeads, fits: fitting() },
    });
  }
  const split = tpValid && tp > 1 ? widths.find(([, n]) => n % tp !== 0) : undefined;
  if (split && !problems.some((p) => p.code === 'tp-not-divisible')) {
    problems.push({
      severity: 'error', code: 'tp-not-divisible',
      message: `tensor_parallel_size ${tp} does not divide ${split[0]} ${formatCount(split[1])}: vLLM splits the MLP across GPUs and requires it to divide evenly (${sizes()})`,
      range: at('device.tensor_parallel_size'), data: { intermediateSize: split[1], fits: fitting() },
    });
  }
  const misaligned = tpValid && tp > 1 && !problems.some((p) => p.code === 'tp-not-divisible') ? quantizationAlignment(m, tp) : null;
  if (misaligned) {
    problems.push({
      severity: 'error', code: 'tp-not-divisible',
      message: `tensor_parallel_size ${tp} does not fit the quantized weights: ${misaligned} (${sizes()})`,
      range: at('device.tensor_parallel_size'), data: { fits: fitting() },
    });
  }
  const pp = profile.device.pipelineParallelSize ?? 1;
  if (reads('device.pipeline_parallel_size') && pp > m.numLayers) {
    problems.push({
      severity: 'error', code: 'pp-exceeds-layers',
      message: `pipeline_parallel_size ${pp} exceeds the model's ${m.numLayers} layers (num_hidden_layers): vLLM splits the layers over the stages (get_pp_indices) and a stage would hold none (pipeline_parallel_size values that fit: 1 to ${m.numLayers})`,
      range: at('device.pipeline_parallel_size'), data: { numLayers: m.numLayers },
    });
  }
  const ps = profile.kvCache.pageSize;
  const { gpu, backend } = profile.device;
  const { minPageSize, maxPageSize } = KERNEL_LIMITS.cuda;
  // Outside the CUDA kernel's range with backend cuda is page-size-unsupported's error (core/estimate/checks.ts).
  const kernelRefuses = backend === 'cuda' && (ps < minPageSize || ps > maxPageSize);
  if (reads('kv_cache.page_size', 'device.gpu', 'device.backend') && !VLLM_BLOCK_SIZES.includes(ps) && !kernelRefuses) {
    const suggestion = nearestPageSize(ps, gpu, backend);
    const onGpu = gpu !== undefined || backend === 'cuda';
    problems.push({
      severity: 'warning', code: 'page-size-unusual',
      message: `page_size ${ps} is not a block size vLLM takes: ${vllmBlockSizesText()}${onGpu ? `, and on ${gpu ?? 'a CUDA GPU'} a multiple of ${VLLM_CUDA_BLOCK_MULTIPLE}` : ''}: try ${suggestion}`,
      range: at('kv_cache.page_size'), data: { suggestion },
    });
  }
  // kv_cache.kv_cache_memory_bytes (vLLM's --kv-cache-memory-bytes) is memory_gib in bytes: the reader took it as memoryGib.
  const budgetKey = profile.ranges['kv_cache.kv_cache_memory_bytes'] && !profile.ranges['kv_cache.memory_gib'] ? 'kv_cache.kv_cache_memory_bytes' : 'kv_cache.memory_gib';
  if (reads('kv_cache.memory_gib', 'kv_cache.kv_cache_memory_bytes') && profile.ranges['kv_cache.memory_gib'] && profile.ranges['kv_cache.kv_cache_memory_bytes']) {
    problems.push({
      severity: 'error', code: 'kv-budget-conflict',
      message: 'both kv_cache.memory_gib and kv_cache.kv_cache_memory_bytes are set: they are one KV budget (vLLM\'s --kv-cache-memory-bytes, in GiB or in bytes); remove one',
      range: at('kv_cache.kv_cache_memory_bytes'),
    });
  }
  if (reads('kv_cache.num_pages', budgetKey) && typeof profile.kvCache.numPages === 'number' && typeof profile.kvCache.memoryGib === 'number') {
    problems.push({
      severity: 'warning', code: 'kv-budget-conflict',
      message: `both kv_cache.num_pages and ${budgetKey} are set: num_pages wins; remove one`,
      range: at(budgetKey),
    });
  }
  if (reads('device.memory_gib', 'device.gpu', 'kv_cache.memory_gib', 'kv_cache.num_pages') && profile.device.memoryGib === null && !profile.device.gpu && profile.kvCache.memoryGib === 'auto' && profile.kvCache.numPages === 'auto' && !m.isEncoder && profile.workload === null) {
    // With a workload the pool warning (core/estimate poolSizeProblem, no GPU set) says it, once (s49).
    problems.push({
      severity: 'info', code: 'no-memory-budget',
      message: 'neither device.memory_gib nor device.gpu is set, so the KV pool is not sized: set device.gpu ("A100 80GB", "H100 SXM", ...), device.memory_gib or kv_cache.memory_gib',
      range: profile.ranges['device'] ?? anchorOf(root, []),
    });
  }
  const maxPos = m.maxPositionEmbeddings;
  if (maxPos !== null && reads('prefill.seq_lens')) {
    profile.prefill.seqLens.forEach((n, i) => {
      if (n > maxPos) problems.push({ severity: 'warning', code: 'exceeds-max-position', message: `seq_len ${n} is longer than the model's max_position_embeddings ${maxPos}`, range: itemAt('prefill.seq_lens', i), data: { limit: maxPos } });
    });
  }
  if (maxPos !== null && reads('decode.context_lens')) {
    profile.decode.contextLens.forEach((n, i) => {
      if (n > maxPos) problems.push({ severity: 'warning', code: 'exceeds-max-position', message: `context_len ${n} is longer than the model's max_position_embeddings ${maxPos}`, range: itemAt('decode.context_lens', i), data: { limit: maxPos } });
    });
  }
  // vLLM refuses a max_model_len past the length it derives from the config
  // (vllm/config/model.py _get_and_verify_max_len; core/estimate vllmMaxModelLen).
  const derived = vllmMaxModelLen(m);
  const limit = derived.limit !== null ? { tokens: derived.limit, basis: derived.limitBasis } : null;
  if (limit !== null && reads('workload.max_model_len') && profile.workload && profile.ranges['workload.max_model_len'] && profile.workload.maxModelLen > limit.tokens) {
    const n = profile.workload.maxModelLen;
    problems.push({
      severity: 'error', code: 'exceeds-max-position',
      message: `max_model_len ${n.toLocaleString('en-US')} is longer than the ${limit.tokens.toLocaleString('en-US')} tokens vLLM derives from the model's config (${limit.basis}): vLLM refuses to start ("User-specified max_model_len (${n}) is greater than the derived max_model_len") unless the environment sets VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (its warning: RoPE positions past the limit give NaN, learned ones an out-of-bounds error); lower workload.max_model_len to at most ${limit.tokens.toLocaleString('en-US')}, or use a checkpoint whose rope_scaling covers ${n.toLocaleString('en-US')} tokens`,
      range: at('workload.max_model_len'), data: { limit: limit.tokens },
    });
  }
  if (m.isEncoder && reads('decode') && profile.ranges['decode']) {
    problems.push({ severity: 'warning', code: 'encoder-decode', message: `${m.modelType} is an encoder: it has no decode step and no KV cache, so decode cases are skipped`, range: anchorOf(root, ['decode']) });
  }
  const w = profile.workload;
  // A trace replaces the drawn requests: a draw key written beside it is not used (said at the key, not silently).
  if (w?.trace) {
    for (const key of TRACE_REPLACES) {
      const r = profile.ranges[`workload.${key}`];
      if (r) problems.push({ severity: 'warning', code: 'unused-with-trace', message: unusedWithTraceMessage(key, `workload.trace replays ${w.trace.path}`), range: anchorOf(root, ['workload', key]), data: { key: `workload.${key}` } });
    }
  }
  // How to read a trace, with no trace to read: not used (said at the key, not silently).
  if (w && !w.trace) {
    for (const key of Object.values(TRACE_SETTING_KEYS)) {
      if (profile.ranges[`workload.${key}`]) problems.push({ severity: 'warning', code: 'unused-without-trace', message: `workload.${key} is not used: it says how to read workload.trace, and there is none (the requests are drawn); add trace: ./your-trace, or remove ${key}`, range: anchorOf(root, ['workload', key]), data: { key: `workload.${key}` } });
    }
  }
  if (w) {
    for (const key of ['prompt_len', 'output_len'] as const) {
      const d = key === 'prompt_len' ? w.promptLen : w.outputLen;
      if (!reads(`workload.${key}`)) continue;
      if (d.dist === 'uniform' && d.min > d.max) {
        problems.push({ severity: 'error', code: 'invalid-value', message: `workload.${key}: min ${d.min} is greater than max ${d.max}`, range: at(`workload.${key}.min`) });
      }
      if (d.dist === 'lognormal' && d.median > d.max) {
        problems.push({ severity: 'error', code: 'invalid-value', message: `workload.${key}: median ${d.median} is greater than max ${d.max}`, range: at(`workload.${key}.median`) });
      }
      if (d.dist === 'exponential' && d.mean > d.max) {
        problems.push({ severity: 'warning', code: 'invalid-value', message: `workload.${key}: mean ${d.mean} is greater than max ${d.max}: most lengths get clipped`, range: at(`workload.${key}.mean`) });
      }
    }
    // Only about what the user wrote: defaults they never saw (a model whose max_model_len
    // defaults below the default prompt lengths, e.g. GPT-2's 1024) are not theirs to fix. Where a
    // length it adds up is a default, the message says so (the file has no "prompt_len max 4096"
    // to find), and data holds the fixes server/actions.ts writes: that key written with a max
    // that fits (writes), and max_model_len raised to the sum where vLLM takes it (maxModelLenNeeded).
    // A trace's own lengths are checked against max_model_len by its reader, request by request.
    const written = w.trace ? undefined : ['workload.max_model_len', 'workload.prompt_len', 'workload.output_len'].find((k) => profile.ranges[k]);
    const longest = maxOf(w.promptLen) + maxOf(w.outputLen);
    if (written && reads('workload.max_model_len', 'workload.prompt_len', 'workload.output_len') && longest > w.maxModelLen) {
      const isDefault = (key: 'prompt_len' | 'output_len' | 'max_model_len'): boolean => !profile.ranges[`workload.${key}`];
      const defaultNote = (key: 'prompt_len' | 'output_len'): string => isDefault(key) ? ` (not written: ${key} defaults to ${distText(key === 'prompt_len' ? w.promptLen : w.outputLen)})` : '';
      const mml = `max_model_len ${w.maxModelLen}${isDefault('max_model_len') ? ` (not written: vLLM's default, ${derived.basis})` : ''}`;
      const writes: Array<{ key: string; value: LengthDist }> = [];
      for (const key of ['prompt_len', 'output_len'] as const) {
        const [d, other] = key === 'prompt_len' ? [w.promptLen, w.outputLen] : [w.outputLen, w.promptLen];
        const fits = isDefault(key) ? withMax(d, w.maxModelLen - maxOf(other)) : null;
        if (fits) writes.push({ key: `workload.${key}`, value: fits });
      }
      const raise = limit === null || longest <= limit.tokens ? { maxModelLenNeeded: longest } : {};
      problems.push({
        severity: 'warning', code: 'exceeds-max-model-len',
        // What the simulator does: a prompt reaching max_model_len is rejected; a shorter one has its output clipped.
        message:
          minOf(w.promptLen) >= w.maxModelLen
            ? `every prompt (prompt_len min ${minOf(w.promptLen)}${defaultNote('prompt_len')}) reaches ${mml}: all requests are rejected`
            : maxOf(w.promptLen) >= w.maxModelLen
              ? `prompt_len max ${maxOf(w.promptLen)}${defaultNote('prompt_len')} reaches ${mml}: such prompts are rejected, and shorter ones whose prompt + output (max ${longest}${isDefault('output_len') ? `; output_len defaults to ${distText(w.outputLen)}` : ''}) exceeds it have their output clipped`
              : `prompt_len max ${maxOf(w.promptLen)}${defaultNote('prompt_len')} + output_len max ${maxOf(w.outputLen)}${defaultNote('output_len')} = ${longest} exceeds ${mml}: such requests have their output clipped at max_model_len`,
        range: profile.ranges[written]!, data: { limit: w.maxModelLen, ...(writes.length > 0 ? { writes } : {}), ...raise },
      });
    }
    // vLLM's SchedulerConfig refuses max_num_batched_tokens < max_num_seqs, with chunked prefill
    // on or off (every step may have to schedule one token for each running sequence): V0's
    // _verify_args and V1's verify_max_model_len (vllm/config/scheduler.py) both raise
    // "max_num_batched_tokens (N) must be greater than or equal to max_num_seqs (S)". Only where
    // the user wrote one of them: a defaulted max_num_seqs is capped at max_num_batched_tokens
    // (maxNumSeqsOf, as EngineArgs does), but a written max_num_seqs is compared with the
    // defaulted max_num_batched_tokens as it is.
    const tokens = maxNumBatchedTokensOf(profile);
    const seqs = maxNumSeqsOf(profile);
    // A defaulted limit is vLLM's default for the device: the check reads the device's keys too.
    const defaulted = w.maxNumBatchedTokens === undefined || w.maxNumSeqs === undefined;
    const batchKeys = ['workload.max_num_batched_tokens', 'workload.max_num_seqs', ...(defaulted ? ['device.memory_gib', 'device.gpu'] : [])];
    if ((w.maxNumBatchedTokens !== undefined || w.maxNumSeqs !== undefined) && reads(...batchKeys) && tokens < seqs) {
      const dflt = ` (vLLM's default on ${batchDefaults(deviceMemory(profile).bytes, profile.device.gpu).device})`;
      const key = w.maxNumBatchedTokens !== undefined ? 'workload.max_num_batched_tokens' : 'workload.max_num_seqs';
      problems.push({
        severity: 'error', code: 'batch-limits-conflict',
        message: `max_num_batched_tokens ${tokens}${w.maxNumBatchedTokens === undefined ? dflt : ''} is less than max_num_seqs ${seqs}${w.maxNumSeqs === undefined ? dflt : ''}: vLLM refuses to start, with chunked prefill on or off ("max_num_batched_tokens (${tokens}) must be greater than or equal to max_num_seqs (${seqs})", SchedulerConfig); raise max_num_batched_tokens to at least ${seqs} or lower max_num_seqs to at most ${tokens}`,
        range: at(key), data: { maxNumBatchedTokens: tokens, maxNumSeqs: seqs },
      });
    }
    if (w.prefixSharing && !w.trace && reads('workload.prefix_sharing.prefix_len', 'workload.prompt_len') && w.prefixSharing.prefixLen > maxOf(w.promptLen)) {
      problems.push({ severity: 'warning', code: 'invalid-value', message: `prefix_len ${w.prefixSharing.prefixLen} is longer than the longest prompt ${maxOf(w.promptLen)}`, range: at('workload.prefix_sharing.prefix_len') });
    }
  }
  return problems;
}

/**
 * The warning at a workload draw key written beside a trace (code 'unused-with-trace'): `replays`
 * names the trace replayed ("workload.trace replays ./a.jsonl", or the CLI's "--trace replays
 * b.jsonl (in place of workload.trace ./a.jsonl)"); `key` is one of {@link TRACE_REPLACES}.
 */
export function unusedWithTraceMessage(key: string, replays: string): string {
  return `workload.${key} is not used: ${replays}, whose requests bring their own arrivals and lengths (the scheduler limits max_num_seqs, max_model_len and max_num_batched_tokens still apply); remove ${key}, or remove trace to draw requests`;
}

/** The workload keys whose draws a workload.trace replaces (what a trace's requests bring: arrivals, prompt and output lengths, shared prefixes). */
export const TRACE_REPLACES = ['requests', 'arrival_rate', 'prompt_len', 'output_len', 'prefix_sharing', 'seed'] as const;

/** The shortest length a distribution can draw (lognormal and exponential draws are at least 1 token). */
function minOf(d: LengthDist): number {
  return d.dist === 'fixed' ? d.value : d.dist === 'uniform' ? d.min : 1;
}

function maxOf(d: LengthDist): number {
  return d.dist === 'fixed' ? d.value : d.max;
}

/** A length distribution in words, as the profile writes it: "lognormal (median 512, sigma 1, max 4096)". */
function distText(d: LengthDist): string {
  switch (d.dist) {
    case 'fixed': return `fixed ${d.value}`;
    case 'uniform': return `uniform ${d.min} to ${d.max}`;
    case 'lognormal': return `lognormal (median ${d.median}${d.sigma === undefined ? '' : `, sigma ${d.sigma}`}, max ${d.max})`;
    case 'exponential': return `exponential (mean ${d.mean}, max ${d.max})`;
  }
}

/**
 * `d` with its longest length cut to `max` tokens, or null when that leaves no valid
 * distribution (a uniform min, lognormal median or exponential mean above it; max below 1).
 */
function withMax(d: LengthDist, max: number): LengthDist | null {
  if (!Number.isInteger(max) || max < 1) return null;
  switch (d.dist) {
    case 'fixed': return { dist: 'fixed', value: max };
    case 'uniform': return d.min <= max ? { ...d, max } : null;
    case 'lognormal': return d.median <= max ? { ...d, max } : null;
    case 'exponential': return d.mean <= max ? { ...d, max } : null;
  }
}
