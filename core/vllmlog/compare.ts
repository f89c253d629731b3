/**
 * A vLLM start-up log against the estimate for the same model and settings, figure by figure,
 * with every difference explained by the term it comes from.
 *
 * The settings the log states (device memory as vLLM measured it, gpu_memory_utilization,
 * tensor_parallel_size, max_model_len, max_num_batched_tokens, max_num_seqs, kv_cache_dtype,
 * block size, the release) replace the profile's for the comparison, and the result says which
 * came from where. The pool is sized by estimate() as `attnscope estimate` sizes it: a profile's
 * kv_cache.memory_gib / num_pages is the KV budget (the device terms then size nothing and read
 * '—'); otherwise the device does, and the KV budget's difference is the sum of the term differences
 * (usable memory − weights − activation peak − non-torch − CUDA graphs when vLLM counted them),
 * and a second estimate that takes the log's own terms shows what is left: the rounding of the
 * log's two-decimal GiB figures, or a different KV size per token (another model or dtype). A log
 * that prints no KV cache memory (V0 before 0.6.4) has it derived as its blocks · the estimate's
 * page bytes, and what its printed terms leave is laid on the modelled terms it does not print.
 */
import { otherModelName } from '../modelLabel';
import { isFp8KvDtype, type KvDtype, type Profile, type WorkloadSpec } from '../config/types';
import { batchDefaults, blocksPerRequestFormula, deviceMemory, estimate, grouped, kvCacheGroups, maxNumBatchedTokensOf, maxNumSeqsOf, modelBufferBytes, parseVllmVersion, poolBlocksFormula, poolGroupsWhy, poolTokens, poolTokensFormula, v0MaxNumBatchedTokens, vllmAtLeast, vllmMaxModelLen, type Estimate } from '../estimate';
import { formatBytes, formatConcurrency, formatCount, formatCountOf, formatGib } from '../format';
import { isDataParallel, type LogFigure, type VllmLog } from './parse';
import { missingKvNote, stopNote } from './notes';

const GIB = 1024 ** 3;
/** The log prints GiB with two decimals: each figure is exact to ±0.005 GiB. */
const LOG_ROUNDING_BYTES = 0.005 * GIB;
/**
 * A term's difference the log's rounding can make: two figures rounded to 0.01 GiB (the log's,
 * and its total_gpu_memory the estimate's usable memory comes from) are ±0.005 GiB each.
 */
const WITHIN_ROUNDING_BYTES = 2 * LOG_ROUNDING_BYTES;

/**
 * The terms' differences as a list, the rounding note on those within {@link WITHIN_ROUNDING_BYTES}
 * only (a 0.91 GiB weights difference is no rounding): once after the list when it holds all.
 */
function partsText(parts: ReadonlyArray<{ text: string; rounding: boolean }>): string {
  if (parts.every((x) => x.rounding)) return `${parts.map((x) => x.text).join(', ')} (${parts.length > 1 ? 'each ' : ''}within the log's 0.01 GiB rounding)`;
  return parts.map((x) => (x.rounding ? `${x.text} (within the log's 0.01 GiB rounding)` : x.text)).join(', ');
}

export interface ComparisonRow {
  /** The term, in vLLM's words. */
  term: string;
  /** The log's figure, formatted, with the line it is on; null when the log does not print it. */
  log: string | null;
  logLine: number | null;
  /** The estimate's figure, formatted. */
  estimate: string;
  /** Estimate − log, formatted with its sign; '' when either is absent or they agree. */
  difference: string;
  /** Why they differ (or why they agree), in a sentence. */
  why: string;
}

export interface LogComparison {
  rows: ComparisonRow[];
  /** "gpu_memory_utilization 0.9 (line 4)", ... : the settings the log supplied. */
  fromLog: string[];
  /** Settings the log does not state, taken from the profile ("max_num_seqs 256 (profile default)"). */
  fromProfile: string[];
  /** The estimate compared (the profile with the log's settings). */
  estimate: Estimate;
  /** Pages the estimate gives when it takes the log's weights, activation, non-torch and graph figures. */
  pagesWithLogTerms: number | null;
  notes: string[];
  /**
   * Where the log gives no device memory and the estimate's usable memory is the profile's
   * device, and that leaves a KV difference the printed terms do not explain: one sentence said
   * above the table (a log of another GPU than the profile's differs by its whole memory); null otherwise.
   */
  deviceCaveat: string | null;
  /** The log's lines that could not be read (VllmLog.unread): their figures are not compared. */
  unread: VllmLog['unread'];
  /** The KV figures the ranks printed apart (VllmLog.ranks; the smallest is read) and the process whose terms are read. */
  ranks: VllmLog['ranks'];
  rankProcess?: string;
  rankTermsElsewhere?: VllmLog['rankTermsElsewhere'];
  /** Where the log prints memory lines but no KV line (report.ts missingKvNote): its last memory line and what to give. */
  missingKv: { line: number; message: string } | null;
  /** Where vLLM stopped for lack of memory after its KV lines (report.ts stopNote). */
  stop: { line: number; message: string } | null;
  /**
   * Where the log's model (model='...') is another than the profile's (core/config
   * otherModelName, the rule `simulate --calibrate` follows): its line and a sentence naming both.
   */
  modelMismatch: { line: number; message: string } | null;
  /**
   * Where the log ran another tensor_parallel_size or pipeline_parallel_size than the profile's:
   * the line and a sentence naming the ones that differ. The comparison is at the log's (every
   * figure is per GPU at it), so the profile's own estimate would differ from the figures shown.
   */
  tpMismatch: { line: number; message: string } | null;
}

/** The log's model='...' against the profile's model: a sentence naming both where they differ. */
function modelMismatchOf(log: VllmLog, profile: Profile): LogComparison['modelMismatch'] {
  const named = log.settings.model;
  const name = named ? otherModelName(named.value, profile) : null;
  if (!named || name === null) return null;
  return {
    line: named.line,
    message: `the log is of model '${named.value}', the profile's model is ${name} (${profile.modelPath}): the log's weights and KV figures are that model's, set beside this model's estimate; compare with a profile or config.json of the log's model`,
  };
}

/**
 * The log's tensor_parallel_size and pipeline_parallel_size against the profile's where the
 * comparison took the log's (`compared`, applyLogSettings): a sentence naming those that differ,
 * at the first one's line.
 */
function tpMismatchOf(log: VllmLog, profile: Profile, compared: Profile): LogComparison['tpMismatch'] {
  const differ = ([
    ['tensor_parallel_size', log.settings.tensorParallelSize, profile.device.tensorParallelSize, compared.device.tensorParallelSize],
    ['pipeline_parallel_size', log.settings.pipelineParallelSize, profile.device.pipelineParallelSize ?? 1, compared.device.pipelineParallelSize ?? 1],
  ] as const).filter(([, fig, mine, used]) => fig !== undefined && used !== mine && fig.value === used);
  if (differ.length === 0) return null;
  const line = Math.min(...differ.map(([, fig]) => fig!.line));
  return { line, message: `the log ran ${differ.map(([key, fig]) => `${key} ${fig!.value}`).join(' and ')}, the profile's ${differ.length > 1 ? 'are' : 'is'} ${differ.map(([, , mine]) => mine).join(' and ')}: compared at the log's ${differ.map(([, fig]) => fig!.value).join(' and ')}` };
}

function signed(bytes: number): string {
  if (Math.abs(bytes) < 0.5) return '';
  return `${bytes > 0 ? '+' : '−'}${formatGib(Math.abs(bytes))}`;
}

function signedCount(n: number): string {
  return n === 0 ? '' : `${n > 0 ? '+' : '−'}${formatCount(Math.abs(n))}`;
}

const NCCL_KEY = 'engine.nccl_gib';

/** A GiB figure as engine.<key>_gib takes it: two decimals, never below 0. */
function engineGib(bytes: number): string {
  return (Math.max(0, bytes) / GIB).toFixed(2);
}

/**
 * vLLM 0.6.4's non_torch_memory (worker.py determine_num_available_blocks: total − free − torch's
 * current allocation after the profiling run) holds the NCCL and custom all-reduce buffers of a
 * tensor-parallel rank: what it holds beyond the modelled non-torch memory is the NCCL term.
 */
function ncclFromNonTorch(logNonTorch: number, modelledNonTorch: number): string {
  const nccl = logNonTorch - modelledNonTorch;
  return nccl < LOG_ROUNDING_BYTES
    ? `The NCCL buffers are unknown for this release (not subtracted); this log's non_torch_memory holds them, and it is no more than the modelled non-torch memory: ${NCCL_KEY} 0`
    : `The NCCL buffers are unknown for this release (not subtracted); this log's non_torch_memory holds them (total − free − torch's allocation after profiling): set ${NCCL_KEY} ${engineGib(nccl)} = non_torch_memory ${formatGib(logNonTorch)} − the modelled non-torch ${formatGib(modelledNonTorch)}`;
}

/**
 * The NCCL term a log without a non-torch figure implies: the KV budget equation solved for it,
 * usable − weights − activation peak − non-torch (− CUDA graphs) − KV cache memory, each term
 * named with where it comes from (the log, or modelled). A KV budget derived from the blocks is
 * exact to one page, so the figure is too (`pageBytes`; 0 when the log printed the budget).
 */
function ncclFromBudget(terms: ReadonlyArray<readonly [string, number, string]>, pageBytes: number): string {
  const [first, ...rest] = terms;
  const nccl = rest.reduce((acc, [, bytes]) => acc - bytes, first![1]);
  const formula = `${first![0]} ${formatGib(first![1])} (${first![2]})${rest.map(([name, bytes, from]) => ` − ${name} ${formatGib(bytes)} (${from})`).join('')}`;
  if (nccl < LOG_ROUNDING_BYTES) return `the log's figures leave nothing for the NCCL buffers (${formula} = ${signed(nccl) || '0 B'}): ${NCCL_KEY} 0`;
  return `set ${NCCL_KEY} ${engineGib(nccl)} to size the NCCL buffers from this log: ${formula} = ${formatGib(nccl)}${pageBytes > 0 ? ', to within one page' : ''}, as far as the modelled terms hold`;
}

/** vLLM V0's EngineArgs.max_num_seqs default (vllm/engine/arg_utils.py, 0.2 to 0.10), whatever the device. */
export const V0_MAX_NUM_SEQS = 256;

function kvDtypeOf(name: string, fallback: KvDtype | 'auto'): KvDtype | 'auto' {
  const n = name.toLowerCase();
  if (n === 'auto') return 'auto';
  if (n.includes('e5m2')) return 'fp8_e5m2';
  if (n.startsWith('fp8') || n.includes('e4m3')) return 'fp8_e4m3';
  if (n === 'bfloat16' || n === 'bf16') return 'bf16';
  if (n === 'float16' || n === 'fp16' || n === 'half') return 'fp16';
  if (n === 'float32' || n === 'fp32') return 'fp32';
  return fallback;
}

/** The profile with every setting the log states; which came from where. */
function applyLogSettings(profile: Profile, log: VllmLog): { profile: Profile; fromLog: string[]; fromProfile: string[] } {
  const f = log.figures;
  const s = log.settings;
  const p: Profile = structuredClone(profile);
  const engine = { ...(p.engine ?? { vllmVersion: null, nonTorchGib: 'auto', ncclGib: 'auto', cudaGraphGib: 'auto', activationGib: 'auto' }) };
  const fromLog: string[] = [];
  const fromProfile: string[] = [];
  const at = (x: LogFigure<unknown>) => `line ${x.line}`;
  if (f.totalGpuMemoryBytes) {
    p.device.memoryGib = f.totalGpuMemoryBytes.value / GIB;
    fromLog.push(`device memory ${formatGib(f.totalGpuMemoryBytes.value)} (total_gpu_memory, ${at(f.totalGpuMemoryBytes)})`);
  } else {
    fromProfile.push(p.device.memoryGib !== null ? `device.memory_gib ${p.device.memoryGib}` : p.device.gpu ? `device.gpu ${p.device.gpu}` : 'no device memory');
  }
  if (f.gpuMemoryUtilization && f.gpuMemoryUtilization.value > 0 && f.gpuMemoryUtilization.value <= 1) {
    p.device.gpuMemoryUtilization = f.gpuMemoryUtilization.value;
    fromLog.push(`gpu_memory_utilization ${f.gpuMemoryUtilization.value} (${at(f.gpuMemoryUtilization)})`);
  } else {
    fromProfile.push(`gpu_memory_utilization ${p.device.gpuMemoryUtilization}`);
  }
  const int = (x: LogFigure | undefined, ok: (v: number) => boolean = (v) => v >= 1 && v <= 2 ** 31 - 1) => (x && Number.isInteger(x.value) && ok(x.value) ? x : undefined);
  const tp = int(s.tensorParallelSize, (v) => v >= 1 && v <= 1024);
  if (tp) {
    p.device.tensorParallelSize = tp.value;
    fromLog.push(`tensor_parallel_size ${tp.value} (${at(tp)})`);
  } else {
    fromProfile.push(`tensor_parallel_size ${p.device.tensorParallelSize}`);
  }
  // Data parallelism: the estimate is one replica's, each replica is compared on its own (compareVllmLog).
  const dp = int(s.dataParallelSize, (v) => v >= 1 && v <= 1024);
  if (dp) {
    p.device.dataParallelSize = dp.value;
    fromLog.push(`data_parallel_size ${dp.value} (${at(dp)})`);
  }
  // --cpu-offload-gb: the weights the estimate puts on the GPU, and so the pool, as that engine had them (core/estimate cpuOffload).
  if (s.cpuOffloadGib) {
    p.device.cpuOffloadGib = s.cpuOffloadGib.value;
    fromLog.push(`cpu_offload_gb ${s.cpuOffloadGib.value} (${at(s.cpuOffloadGib)})`);
  } else if ((p.device.cpuOffloadGib ?? 0) > 0) {
    fromProfile.push(`cpu_offload_gb ${p.device.cpuOffloadGib}`);
  }
  const pp = int(s.pipelineParallelSize, (v) => v >= 1 && v <= p.model.numLayers);
  if (pp) {
    p.device.pipelineParallelSize = pp.value;
    fromLog.push(`pipeline_parallel_size ${pp.value} (${at(pp)})`);
  } else if ((p.device.pipelineParallelSize ?? 1) > 1) {
    fromProfile.push(`pipeline_parallel_size ${p.device.pipelineParallelSize}`);
  }
  const defaultWhy = `vLLM's default on ${batchDefaults(deviceMemory(p).bytes, p.device.gpu).device}`;
  const w: WorkloadSpec = p.workload ?? {
    requests: 1, arrivalRate: 1, promptLen: { dist: 'fixed', value: 1 }, outputLen: { dist: 'fixed', value: 1 },
    maxModelLen: vllmMaxModelLen(p.model).tokens,
  };
  const len = int(s.maxModelLen) ?? int(f.concurrencySeqLen);
  if (len) {
    w.maxModelLen = len.value;
    fromLog.push(`max_model_len ${formatCount(len.value)} (${at(len)})`);
  } else {
    fromProfile.push(`max_model_len ${formatCount(w.maxModelLen)}`);
  }
  const batched = int(s.maxNumBatchedTokens);
  if (batched) {
    w.maxNumBatchedTokens = batched.value;
    fromLog.push(`max_num_batched_tokens ${formatCount(batched.value)} (${at(batched)})`);
  } else if (w.maxNumBatchedTokens === undefined && s.engine?.value === 'V0') {
    // V0's SchedulerConfig default follows max_model_len and chunked prefill, not the device (V1's).
    const v0 = v0MaxNumBatchedTokens(w.maxModelLen, s.version?.value ?? engine.vllmVersion, s.chunkedPrefill?.value);
    w.maxNumBatchedTokens = v0.tokens;
    fromProfile.push(`max_num_batched_tokens ${formatCount(v0.tokens)} (${v0.why}; the log is from the V0 engine, ${at(s.engine)}${s.chunkedPrefill ? `, chunked prefill ${at(s.chunkedPrefill)}` : ''})`);
  } else {
    fromProfile.push(w.maxNumBatchedTokens !== undefined ? `max_num_batched_tokens ${formatCount(w.maxNumBatchedTokens)}` : `max_num_batched_tokens ${formatCount(maxNumBatchedTokensOf({ ...p, workload: w }))} (${defaultWhy})`);
  }
  const seqs = int(s.maxNumSeqs);
  if (seqs) {
    w.maxNumSeqs = seqs.value;
    fromLog.push(`max_num_seqs ${seqs.value} (${at(seqs)})`);
  } else if (w.maxNumSeqs === undefined && s.engine?.value === 'V0') {
    // V0's EngineArgs.max_num_seqs was 256 on every device; the device-sized defaults came with V1.
    w.maxNumSeqs = V0_MAX_NUM_SEQS;
    fromProfile.push(`max_num_seqs ${V0_MAX_NUM_SEQS} (vLLM V0's default; the log is from the V0 engine, ${at(s.engine)})`);
  } else {
    fromProfile.push(w.maxNumSeqs !== undefined ? `max_num_seqs ${w.maxNumSeqs}` : `max_num_seqs ${formatCount(maxNumSeqsOf({ ...p, workload: w }))} (${defaultWhy})`);
  }
  p.workload = w;
  if (s.kvCacheDtype) {
    p.kvCache.dtype = kvDtypeOf(s.kvCacheDtype.value, p.kvCache.dtype);
    fromLog.push(`kv_cache_dtype ${s.kvCacheDtype.value} (${at(s.kvCacheDtype)})`);
  }
  if (s.dtype) {
    const d = kvDtypeOf(s.dtype.value, 'auto');
    if (d !== 'auto' && !isFp8KvDtype(d)) {
      p.dtype = d;
      fromLog.push(`dtype ${s.dtype.value} (${at(s.dtype)})`);
    }
  }
  const block = int(s.blockSize, (v) => v >= 1 && v <= 4096);
  if (block) {
    p.kvCache.pageSize = block.value;
    fromLog.push(`block_size ${block.value} (${at(block)})`);
  } else {
    fromProfile.push(`page_size ${p.kvCache.pageSize}`);
  }
  if (s.version) {
    engine.vllmVersion = s.version.value;
    fromLog.push(`vLLM ${s.version.value} (${at(s.version)})`);
  } else {
    fromProfile.push(engine.vllmVersion ? `engine.vllm_version ${engine.vllmVersion}` : 'the current vLLM release (the log names none)');
  }
  // --disable-hybrid-kv-cache-manager, or vLLM's warning that it turned the manager off: the
  // estimate lays the pool out so (engine.disable_hybrid_kv_cache_manager, core/estimate kvPoolLayout).
  const hybrid = s.hybridKvManagerDisabled;
  if (hybrid) {
    engine.disableHybridKvCacheManager = hybrid.value;
    fromLog.push(`hybrid KV-cache manager ${hybrid.value ? 'off' : 'on'} (${at(hybrid)})`);
  }
  p.engine = engine;
  // --kv-cache-memory-bytes: vLLM took that budget as given (kv_cache.kv_cache_memory_bytes, the same as memory_gib).
  const kvBytes = s.kvCacheMemoryBytes;
  if (kvBytes) {
    p.kvCache.memoryGib = kvBytes.value / GIB;
    p.kvCache.numPages = 'auto';
    fromLog.push(`kv_cache_memory_bytes ${formatCount(kvBytes.value)} (${at(kvBytes)}: the KV budget as given, gpu_memory_utilization ignored)`);
  }
  // An explicit KV budget in the profile sizes the pool here as it does in `estimate` (one
  // implementation: core/estimate's estimate()); the device terms then size nothing.
  const budget = kvBytes ? null : explicitBudgetText(p);
  if (budget) fromProfile.push(`${budget} (the KV budget: it sizes the pool, as in estimate)`);
  return { profile: p, fromLog, fromProfile };
}

/** "kv_cache.memory_gib 3.8125" / "kv_cache.num_pages 1,952": the profile's explicit KV budget; null when the device sizes it. */
function explicitBudgetText(p: Profile): string | null {
  if (typeof p.kvCache.numPages === 'number') return `kv_cache.num_pages ${formatCount(p.kvCache.numPages)}`;
  if (typeof p.kvCache.memoryGib === 'number') return `kv_cache.memory_gib ${p.kvCache.memoryGib}`;
  return null;
}

function term(e: Estimate, key: string): number {
  const t = e.pool.reserve.find((x) => x.key === key);
  return t?.subtracted ? t.bytes : 0;
}

/**
 * Whether the log's "Maximum concurrency" line is V0's: vLLM V0's executor (gpu_executor.py to
 * 0.6.x, executor_base.py after) prints num_gpu_blocks · block_size / max_model_len, a fraction
 * of a block counted; V1 (kv_cache_utils.py) divides the blocks by the blocks one request takes.
 * From the log's engine (its V0/V1 line or its files' names), else its release (V1 is the
 * default from 0.8.0).
 */
function v0ConcurrencyLog(log: VllmLog): boolean {
  const s = log.settings;
  if (s.engine) return s.engine.value === 'V0';
  return s.version !== undefined && parseVllmVersion(s.version.value) !== undefined && !vllmAtLeast(s.version.value, [0, 8, 0]);
}

/**
 * What an encoder-only model (`modelType`, e.g. "bert") does to a vLLM log's figures, in words:
 * it keeps no KV cache, so vLLM sizes no pool for it. vLLM V1's GPUModelRunner.get_kv_cache_spec
 * skips attention layers of type ENCODER_ONLY ("encoder-only attention does not need KV cache"),
 * and EngineCore._initialize_kv_caches then profiles no KV budget ("Attention free models don't
 * need memory for kv cache"): the log prints no KV cache memory, blocks or KV cache size.
 * `logPool` words a log that printed a pool all the same (another model's).
 */
function encoderWhy(modelType: string): { short: string; long: string; logPool: (bytes: number) => string } {
  const short = `${modelType} is an encoder-only model, which keeps no KV cache`;
  return {
    short,
    long: `${short}: vLLM sizes no KV pool for it (V1 skips encoder-only attention layers in get_kv_cache_spec, profiles no KV budget and prints no KV cache memory, blocks or KV cache size), whatever the device memory`,
    logPool: (bytes) => `this log's vLLM sized a ${formatGib(bytes)} pool, so it served a model with a decoder, not ${modelType}: compare with a profile or config.json of the log's model`,
  };
}

/**
 * The log's KV bytes per token, its "KV cache memory" (printed to 0.01 GiB: ± LOG_ROUNDING_BYTES) over its `tokens`,
 * at the precision that rounding allows: the half-width u = LOG_ROUNDING_BYTES / tokens, the figure rounded to the
 * power of ten at or above u (whole bytes below 1). s51 nc-cli 18: Llama-3.1-8B's 19.28 GiB / 157,936 tokens
 * printed 131,077 B, its last two digits noise (u = 0.005 · 2^30 / 157,936 = 34 B; true 131,072).
 * `text` is the table's cell, `why` the clause its why line starts with.
 * e.g. (131,076.8, 157,936) -> { bytes: 131,100, text: '≈ 131,100 B (KV cache memory / tokens)', why: '±34 B a token: the log's KV cache memory is rounded to 0.01 GiB' }.
 */
export function logBytesPerToken(implied: number, tokens: number): { bytes: number; text: string; why: string } {
  const u = LOG_ROUNDING_BYTES / tokens;
  const step = u >= 1 ? 10 ** Math.ceil(Math.log10(u)) : 1;
  const bytes = Math.round(implied / step) * step;
  return { bytes, text: `≈ ${formatCount(bytes)} B (KV cache memory / tokens)`, why: `±${formatCount(Math.max(1, Math.round(u)))} B a token: the log's KV cache memory is rounded to 0.01 GiB` };
}

/**
 * Bytes of the KV pool per token of vLLM's "GPU KV cache size" line, per GPU, and how they add up
 * ('' for one group). vLLM counts floor(blocks / groups) · block_size tokens
 * (kv_cache_utils._report_kv_cache_config), and a block holds block_size tokens of one group's
 * groupSize layers (get_kv_cache_config_from_groups: groupSize tensors, each shared by one layer
 * of every group), so a counted token stands for groups · groupSize layer slots: the padding
 * layers _get_kv_cache_groups_uniform_page_size adds to round each layer type up to whole groups
 * ("Add N padding layers, may waste at most X% KV cache memory") included. One group:
 * kvBytesPerToken. gemma-3-27b (10 full + 52 sliding layers, 8,192 B a layer): 7 groups · 10 layers
 * · 8,192 B = 573,440 B (62 layers + 8 padding), not 62 · 8,192 = 507,904 B.
 */
function poolBytesPerReportedToken(e: Estimate): { bytes: number; text: string } {
  const { layout } = e.pool;
  const groups = kvCacheGroups(layout);
  if (groups <= 1 || layout.pageSize <= 0) return { bytes: e.kvBytesPerToken, text: '' };
  const slots = groups * layout.groupSize;
  const layers = e.kvBytesPerTokenPerLayer > 0 ? Math.round(e.kvBytesPerToken / e.kvBytesPerTokenPerLayer) : slots;
  const padding = slots - layers;
  // A Mamba layout's groups include its Mamba groups, whose blocks hold states, not tokens.
  const why = layout.kind === 'mamba' ? ` (${layout.mambaGroups} of them Mamba groups)` : padding > 0 ? `: ${layers} layers + ${padding} padding` : '';
  return {
    bytes: (layout.blockBytes * groups) / layout.pageSize,
    text: `${groups} groups · ${layout.groupSize} layers · ${formatCount(e.kvBytesPerTokenPerLayer)} B${why}`,
  };
}

/**
 * What the log's own settings say of a weights difference, first: its speculative_config (a draft
 * model loaded beside the target; not modelled, core/config/vllmFlags.ts). Its cpu_offload_gb is no
 * cause: the comparison applies it (device.cpu_offload_gb, core/estimate cpuOffload). '' without one.
 */
function weightsCause(log: VllmLog): string {
  const s = log.settings;
  const causes = [
    s.speculativeConfig && `the log's speculative_config (line ${s.speculativeConfig.line}) loads a draft model beside the target (not modelled)`,
  ].filter(Boolean);
  return causes.length > 0 ? `${causes.join('; ')}; else ` : '';
}

/**
 * Each data-parallel replica's KV figures against the estimate (one replica's), where the log's KV
 * lines came one per engine-core process (parse.ts isDataParallel); null otherwise. Each replica
 * is a vLLM engine of its own that profiles its own GPU and sizes its own pool (vllm/v1/engine/core.py
 * EngineCore._initialize_kv_caches runs in each DP engine; kv_cache_utils get_kv_cache_configs takes
 * the smallest over that engine's workers only), so none is bounded by the smallest.
 */
function replicaNote(log: VllmLog, e: Estimate): string | null {
  const dpRanks = log.ranks.filter(isDataParallel);
  if (dpRanks.length === 0) return null;
  const estimateOf: Record<string, [string, number, (v: number) => string, (d: number) => string]> = {
    kvCacheBytes: ['KV cache memory', e.pool.budgetBytes, formatGib, signed],
    gpuBlocks: ['GPU blocks', e.pool.pages, formatCount, signedCount],
    kvCacheTokens: ['GPU KV cache size', e.pool.tokens, (v) => `${formatCount(v)} tokens`, signedCount],
  };
  const byProcess = new Map<string, string[]>();
  for (const r of dpRanks) {
    const est = estimateOf[r.key];
    if (!est) continue;
    const [label, value, fmt, diff] = est;
    r.copies.forEach((c, k) => {
      const name = r.processes[k]!.replace(/\s+pid=\d+$/, '');
      const d = diff(value - c.value);
      byProcess.set(name, [...(byProcess.get(name) ?? []), `${label} ${fmt(c.value)} (line ${c.line}; estimate ${fmt(value)}${d ? `, ${d}` : ', the same'})`]);
    });
  }
  if (byProcess.size === 0) return null;
  const dp = log.settings.dataParallelSize;
  return `${dp ? `data_parallel_size ${dp.value} (line ${dp.line}): ` : ''}${byProcess.size} data-parallel replicas, each an engine with its own pool, compared one by one with the estimate (one replica's): ${[...byProcess].map(([name, parts]) => `${name}: ${parts.join(', ')}`).join('; ')}. vLLM syncs no block count across replicas: each profiles its own GPU, so their pools differ by what each measured`;
}

/**
 * Compares a parsed log with the estimate of `profile` under the log's settings.
 * The profile supplies the model (the log names it but holds no config) and every setting the
 * log leaves out.
 */
export function compareVllmLog(log: VllmLog, profile: Profile): LogComparison {
  const { profile: p, fromLog, fromProfile } = applyLogSettings(profile, log);
  const e = estimate(p, { seqLen: p.workload!.maxModelLen });
  const f = log.figures;
  const rows: ComparisonRow[] = [];
  const notes: string[] = [];
  let deviceCaveat: string | null = null;
  const fmt = (x: LogFigure | undefined) => (x ? formatGib(x.value) : null);
  // Neither the log nor the profile gives the device's memory nor a KV budget: the estimate sizes
  // no pool, and its pool figures are unknown ('—'), not 0 (a note says what to set).
  // Where the log's hybrid-manager setting is not the release's default for this model, say what the default would give.
  const hybrid = log.settings.hybridKvManagerDisabled;
  if (hybrid) {
    const q: Profile = structuredClone(p);
    delete q.engine!.disableHybridKvCacheManager;
    const byDefault = estimate(q, { seqLen: p.workload!.maxModelLen }).pool.layout;
    if (byDefault.kind !== e.pool.layout.kind) notes.push(`the log's vLLM ran with its hybrid KV-cache manager ${hybrid.value ? 'off' : 'on'} (line ${hybrid.line}): ${e.pool.layout.basis}; the pool is compared as that, not as this release's default lays it out: ${byDefault.basis}`);
  }
  const noPool = e.pool.budgetSource === 'none';
  // The profile's kv_cache.memory_gib / num_pages is the budget: the device terms size nothing.
  const logBudget = log.settings.kvCacheMemoryBytes;
  const explicit = e.pool.budgetSource !== 'explicit' ? null : logBudget ? `log's kv_cache_memory_bytes ${formatCount(logBudget.value)} (line ${logBudget.line})` : explicitBudgetText(p);
  const deviceKnown = e.pool.deviceMemoryBytes > 0;
  /** known: whether the estimate has this figure ('—' otherwise, never 0). */
  const row = (t: string, logFig: LogFigure | undefined, est: number, why: string, logText = fmt(logFig), known = true) => {
    rows.push({ term: t, log: logText, logLine: logFig?.line ?? null, estimate: known ? formatGib(est) : '—', difference: logFig && known ? signed(est - logFig.value) : '', why });
  };
  const notModelled = `not modelled: ${logBudget ? 'the' : 'the profile\'s'} ${explicit} is the KV budget`;
  // An encoder-only model (BERT...) keeps no KV cache: its figures are said from the model's
  // kind, not from a device budget it does not need ({@link encoderWhy}).
  const encoder = !e.hasKvCache ? encoderWhy(profile.model.modelType) : null;
  const notSized = encoder ? `not modelled: ${encoder.short}` : 'no device budget';

  row('device memory (total_gpu_memory)', f.totalGpuMemoryBytes, e.pool.deviceMemoryBytes,
    f.totalGpuMemoryBytes ? 'taken from the log' : `${e.pool.deviceSource || 'no device memory in the profile'}: the log prints none`, undefined, deviceKnown);
  // A log that prints both factors but not their product (V0 0.6.4's "Memory profiling results")
  // gives the usable memory all the same: derived, and marked so (whole bytes, as estimate's).
  const logUtilization = f.gpuMemoryUtilization && f.gpuMemoryUtilization.value > 0 && f.gpuMemoryUtilization.value <= 1 ? f.gpuMemoryUtilization : undefined;
  const usable: LogFigure | undefined = f.usableBytes ?? (f.totalGpuMemoryBytes && logUtilization
    ? { value: Math.floor(f.totalGpuMemoryBytes.value * logUtilization.value), line: f.totalGpuMemoryBytes.line, text: '' }
    : undefined);
  row('usable (× gpu_memory_utilization)', usable, e.pool.usableBytes,
    f.usableBytes ? 'device memory × gpu_memory_utilization, both from the log (the log rounds to 0.01 GiB)'
      : usable ? `device memory × gpu_memory_utilization: the log prints no usable figure; derived as its total_gpu_memory ${formatGib(f.totalGpuMemoryBytes!.value)} (line ${f.totalGpuMemoryBytes!.line}) × gpu_memory_utilization ${logUtilization!.value} (line ${logUtilization!.line})`
        : 'device memory × gpu_memory_utilization',
    usable && !f.usableBytes ? `${formatGib(usable.value)} (derived)` : undefined, deviceKnown);

  // vLLM's "Model loading took" holds the buffers it allocates with the model (modelBufferBytes).
  const buffers = modelBufferBytes(p.model, p.dtype, maxNumBatchedTokensOf(p));
  const weights = e.weightsBytesPerGpu + buffers.bytes;
  const withBuffers = buffers.bytes > 0 ? ` + ${buffers.basis} = ${formatBytes(buffers.bytes)}` : '';
  const wDiff = f.weightsBytes ? weights - f.weightsBytes.value : 0;
  // Under pipeline parallelism the estimate's weights are one stage's; the log prints each rank's.
  const stage = e.pipeline ? ` of stage ${e.pipeline.stage + 1} of ${e.pipeline.size} (the stage with the fewest blocks; the log's line is the rank that printed it)` : '';
  const offloaded = e.cpuOffloadBytesPerGpu ? `, less ${formatBytes(e.cpuOffloadBytesPerGpu)} kept in CPU memory (cpu_offload_gb ${p.device.cpuOffloadGib}: decoder layers' parameters from the first until the budget is reached, vLLM maybe_offload_to_cpu)` : '';
  const counted = `${formatCount(e.paramsTotal)} params${e.pipeline ? ' in the whole model' : ''}, ${p.dtype}${offloaded}`;
  row('model weights', f.weightsBytes, weights, f.weightsBytes
    ? Math.abs(wDiff) <= Math.max(LOG_ROUNDING_BYTES, 0.01 * f.weightsBytes.value)
      ? `parameters · bytes per GPU${stage} (${counted})${withBuffers}; within 1% of what vLLM allocated`
      : `parameters · bytes per GPU${stage} (${counted})${withBuffers} differ from the tensors vLLM allocated: ${weightsCause(log)}another checkpoint, dtype or quantization than the profile's model, or a vocabulary padded for tensor parallelism${e.pipeline ? ', or another stage\'s rank' : ''}`
    : `parameters · bytes per GPU${stage}${withBuffers}`);

  const act = e.pool.activationPeakBytes;
  const actTerm = e.pool.reserve.find((t) => t.key === 'activation');
  // 0.6.4 prints no activation figure: its peak_torch_memory less the weights (parse.ts activationFromPeakTorch).
  const fromPeak = f.activationFromPeakTorch && f.peakTorchBytes && f.weightsBytes
    ? `; the log's figure derived: vLLM 0.6.4 prints peak_torch_memory ${formatGib(f.peakTorchBytes.value)} (line ${f.peakTorchBytes.line}), torch's peak allocation in its profiling run with the weights in it, less the weights ${formatGib(f.weightsBytes.value)} (line ${f.weightsBytes.line})`
    : '';
  row('activation peak (PyTorch)', f.activationPeakBytes, act, (actTerm
    ? `${actTerm.origin === 'profile' ? 'engine.activation_gib in the profile' : `modelled at ${actTerm.basis}`}${f.activationPeakBytes ? '; vLLM measured its profiling forward pass (and, in V1, the sampler over max_num_seqs rows): set engine.activation_gib to the measured figure to size with it' : ''}`
    : explicit ? notModelled : notSized) + fromPeak, f.activationPeakBytes && fromPeak ? `${formatGib(f.activationPeakBytes.value)} (derived)` : undefined, actTerm !== undefined);

  const nonTorch = term(e, 'nonTorch') + term(e, 'nccl');
  const ntTerms = e.pool.reserve.filter((t) => t.key === 'nonTorch' || t.key === 'nccl');
  // vLLM 0.2.7-0.6.4 at tensor_parallel_size > 1: the estimate leaves the NCCL buffers unknown
  // (not subtracted) and tells the user to size them from a real log: this one.
  const ncclUnknown = e.pool.budgetSource === 'device' && e.pool.reserve.some((t) => t.key === 'nccl' && t.unknown === true);
  row('non-torch memory (incl. NCCL)', f.nonTorchBytes, nonTorch, ntTerms.length === 0 ? explicit ? notModelled : notSized : `${ntTerms.map((t) => `${t.label} ${formatGib(t.bytes)}: ${t.basis}`).join('; ')}${f.nonTorchBytes ? `; vLLM measured what grew outside torch during profiling${ncclUnknown ? `. ${ncclFromNonTorch(f.nonTorchBytes.value, term(e, 'nonTorch'))}` : ''}` : ncclUnknown ? '; the KV cache memory row sizes the NCCL buffers from this log' : ''}`, undefined, e.pool.budgetSource === 'device');

  const graphs = e.pool.reserve.find((t) => t.key === 'cudaGraph');
  const graphBytes = graphs?.subtracted ? graphs.bytes : 0;
  if (f.cudaGraphBytes) {
    const counted = f.cudaGraphCounted === true;
    rows.push({
      term: 'CUDA graph memory',
      log: `${formatGib(f.cudaGraphBytes.value)}${counted ? ' (subtracted)' : ' (after the pool)'}`,
      logLine: f.cudaGraphBytes.line,
      estimate: graphs?.subtracted ? `${formatGib(graphs.bytes)} (subtracted)` : 'not subtracted',
      difference: counted ? signed(graphBytes - f.cudaGraphBytes.value) : '',
      why: counted
        ? 'this release estimates CUDA graph memory before sizing the pool and takes it out of the KV budget; set engine.cuda_graph_gib to the logged figure to do the same'
        : 'captured after the KV cache is allocated, out of the 1 − gpu_memory_utilization headroom: it does not change the pool',
    });
  }

  // "GPU KV cache size" counts blocks // groups · block_size (vLLM _report_kv_cache_config): one group unless hybrid.
  const groups = kvCacheGroups(e.pool.layout);
  const logBlocks = f.gpuBlocks?.value ?? (f.kvCacheTokens ? Math.floor(f.kvCacheTokens.value / e.pool.layout.pageSize) * groups : undefined);
  const blocksLine = f.gpuBlocks?.line ?? f.kvCacheTokens?.line ?? null;
  // The tokens of a hybrid pool are floor(blocks / groups) · block size: the blocks behind them
  // are logBlocks to logBlocks + groups − 1 (gemma-3-27b's 28,112 tokens: 12,299 to 12,305).
  const blocksSlack = !f.gpuBlocks && f.kvCacheTokens ? groups - 1 : 0;
  const logBlocksText = logBlocks === undefined ? '' : `${formatCount(logBlocks)}${blocksSlack > 0 ? ` to ${formatCount(logBlocks + blocksSlack)}` : ''}`;
  /** Blocks `n` lies off the log's (0 inside the range its token count leaves open). */
  const off = (n: number) => (logBlocks === undefined ? 0 : n < logBlocks ? n - logBlocks : n > logBlocks + blocksSlack ? n - logBlocks - blocksSlack : 0);
  // The blocks a V1 log implies (it prints tokens), labelled with the layout's formula (core/estimate layout.ts).
  const blocksTerm = f.gpuBlocks ? 'GPU blocks' : `GPU blocks (${poolBlocksFormula(e.pool.layout, 'tokens', 'block size')})`;
  // A log that prints no KV cache memory (V0 before 0.6.4) still implies one: its blocks · the
  // page (vLLM: num_blocks = budget // page bytes, so the budget is that to within one page).
  // Derived through the estimate's page, so it holds only for the same model and KV dtype.
  const derivedKv: LogFigure | undefined = !f.kvCacheBytes && logBlocks !== undefined && blocksLine !== null && e.pageBytes > 0
    ? { value: logBlocks * e.pageBytes, line: blocksLine, text: '' }
    : undefined;
  const logKv = f.kvCacheBytes ?? derivedKv;
  const kvDiff = logKv ? e.pool.budgetBytes - logKv.value : 0;
  // The modelled terms the log prints no figure for, with their modelled sizes: where a budget
  // difference the printed terms leave unexplained lies ("activation peak 0.35 GiB (modelled), ...").
  const unprinted = [
    !f.activationPeakBytes && actTerm ? `activation peak (${formatGib(act)})` : '',
    !f.nonTorchBytes && ntTerms.some((t) => t.subtracted && t.bytes > 0) ? `non-torch memory (${formatGib(nonTorch)})` : '',
    !(f.cudaGraphBytes && f.cudaGraphCounted) && graphBytes > 0 ? `CUDA graphs (${formatGib(graphBytes)})` : '',
  ].filter(Boolean);
  const modelledText = unprinted.length > 0 ? `the modelled ${unprinted.length > 1 ? `${unprinted.slice(0, -1).join(', ')} and ${unprinted[unprinted.length - 1]}` : unprinted[0]}` : '';
  // The unknown NCCL term is first where the log prints no non-torch figure that would hold it.
  const ncclUnprinted = ncclUnknown && !f.nonTorchBytes;
  const unprintedText = ncclUnprinted
    ? `the NCCL buffers (unknown for this release, not subtracted)${modelledText ? ` and ${modelledText}` : ''}, which the log does not print`
    : modelledText ? `${modelledText}, which the log does not print` : 'terms the log does not print';
  /** Whether the printed terms' differences explain part of the budget's (set with kvWhy). */
  let printedDiffer = false;
  let kvWhy = 'usable − weights − activation peak − non-torch memory (− CUDA graphs when counted)';
  if (encoder) {
    kvWhy = logKv ? `${encoder.short}; ${encoder.logPool(logKv.value)}` : encoder.long;
  } else if (explicit) {
    kvWhy = `${logBudget ? `the ${explicit}: vLLM's --kv-cache-memory-bytes, the budget as given, gpu_memory_utilization ignored (gpu_worker.py determine_available_memory)` : `${explicit} in the profile (its KV budget, as estimate sizes it)`}${logKv ? Math.abs(kvDiff) <= LOG_ROUNDING_BYTES ? '; agrees to the log\'s 0.01 GiB' : '; the log\'s pool had another budget: compare without kv_cache.memory_gib / num_pages to size it from the device as vLLM did' : ''}`;
  } else if (logKv && noPool) {
    kvWhy = 'no pool is sized without the device memory (see the note)';
  } else if (logKv) {
    const parts: Array<{ text: string; rounding: boolean }> = [];
    let explained = 0;
    const add = (name: string, d: number) => {
      explained += d;
      if (Math.abs(d) >= 0.5 * 0.01 * GIB) parts.push({ text: `${name} ${signed(d)}`, rounding: Math.abs(d) <= WITHIN_ROUNDING_BYTES });
    };
    if (f.usableBytes) add('usable', e.pool.usableBytes - f.usableBytes.value);
    if (f.weightsBytes) add('weights', -(weights - f.weightsBytes.value));
    if (f.activationPeakBytes) add('activation peak', -(act - f.activationPeakBytes.value));
    if (f.nonTorchBytes) add('non-torch', -(nonTorch - f.nonTorchBytes.value));
    if (f.cudaGraphBytes && f.cudaGraphCounted) add('CUDA graphs', -(graphBytes - f.cudaGraphBytes.value));
    // What the printed terms do not explain lies in the ones the log leaves out: without the
    // device memory in the log, the estimate's usable memory is the profile's assumption.
    const rest = kvDiff - explained;
    printedDiffer = parts.length > 0;
    // A derived budget is exact to one page, the log's printed one to its 0.01 GiB.
    const tolerance = derivedKv ? Math.max(0.01 * GIB, e.pageBytes) : 0.01 * GIB;
    const deviceAssumed = !f.usableBytes && !f.totalGpuMemoryBytes;
    const unexplained = Math.abs(rest) >= tolerance
      ? `${parts.length > 0 ? '; ' : ''}${signed(rest)} ${parts.length > 0 ? 'more ' : ''}lies in ${unprintedText}${deviceAssumed ? ', and in the usable memory, the profile\'s device (see the note above the table)' : ''}`
      : '';
    if (deviceAssumed && unexplained) deviceCaveat = `the log gives no device memory: the estimate's is the profile's (${e.pool.deviceSource || 'none'}); compare with a profile of the log's GPU`;
    // The unknown NCCL term sized from this log: the budget equation solved for it.
    const ncclText = ncclUnprinted && Math.abs(rest) >= tolerance ? `; ${ncclFromBudget([
      ['usable', f.usableBytes?.value ?? usable?.value ?? e.pool.usableBytes, f.usableBytes ? 'log' : usable ? 'log, derived' : `${e.pool.deviceSource || 'the profile'} × gpu_memory_utilization`],
      ['weights', f.weightsBytes?.value ?? weights, f.weightsBytes ? 'log' : 'modelled'],
      ['activation peak', f.activationPeakBytes?.value ?? act, f.activationPeakBytes ? (f.activationFromPeakTorch ? 'log, derived' : 'log') : 'modelled'],
      ['non-torch', term(e, 'nonTorch'), 'modelled'],
      ...(f.cudaGraphBytes && f.cudaGraphCounted ? [['CUDA graphs', f.cudaGraphBytes.value, 'log'] as const] : graphBytes > 0 ? [['CUDA graphs', graphBytes, 'modelled'] as const] : []),
      ['KV cache memory', logKv.value, derivedKv ? 'log, derived' : 'log'],
    ], derivedKv ? e.pageBytes : 0)}` : '';
    const derivedText = derivedKv ? `the log prints no KV cache memory: derived as its ${formatCount(logBlocks!)} blocks · ${formatBytes(e.pageBytes)} page (the estimate's page: the same model and KV dtype assumed), to within one page; ` : '';
    kvWhy = derivedText + (Math.abs(kvDiff) < tolerance
      ? `agrees (to ${derivedKv ? 'one page' : 'the log\'s 0.01 GiB'})`
      : parts.length > 0
        ? `the terms' differences account for ${signed(explained)}, each as it moves the budget: ${partsText(parts)}${unexplained}${ncclText}`
        : `${unexplained.replace(/^; /, '') || 'the log gives no term to attribute the difference to'}${ncclText}`);
  }
  row('KV cache memory', logKv, e.pool.budgetBytes, kvWhy, logKv ? `${formatGib(logKv.value)}${derivedKv ? ' (derived)' : ''}` : null, !noPool || encoder !== null);
  // Within the log's two-decimal rounding the budgets agree: no difference shown.
  const kvRow = rows[rows.length - 1]!;
  if (explicit && logKv && Math.abs(kvDiff) <= LOG_ROUNDING_BYTES) kvRow.difference = '';

  // KV bytes per token: the log's budget / tokens (or the tokens its blocks hold) against the
  // pool's bytes per token as vLLM counts its tokens (poolBytesPerReportedToken: a hybrid
  // layout's groups and padding layers included).
  const logTokens = f.kvCacheTokens?.value ?? (f.gpuBlocks ? poolTokens(e.pool.layout, f.gpuBlocks.value) : undefined);
  if (f.kvCacheBytes && logTokens && logTokens > 0) {
    const implied = f.kvCacheBytes.value / logTokens;
    const perToken = poolBytesPerReportedToken(e);
    const same = Math.abs(implied - perToken.bytes) <= (LOG_ROUNDING_BYTES / logTokens) + 1 + 0.02 * perToken.bytes;
    const shown = logBytesPerToken(implied, logTokens);
    rows.push({
      term: 'KV bytes per token',
      log: shown.text,
      logLine: f.kvCacheBytes.line,
      estimate: `${formatCount(perToken.bytes)} B${perToken.text ? ` (${perToken.text})` : ''}`,
      difference: same ? '' : signedCount(perToken.bytes - shown.bytes),
      why: `${shown.why}; ` + (same
        ? `the same model, dtype and tensor parallelism (vLLM's pool is whole blocks${groups > 1 ? `; vLLM counts floor(blocks / ${groups} groups) · block size tokens, so a token it counts stands for a block slot in each group` : ''})`
        : encoder ? `${encoder.short}: the log's pool holds another model's`
          : `the log's pool holds another KV size per token: check the model (the profile's is ${profile.model.modelType}), kv_cache_dtype (${e.kvDtype}), tensor_parallel_size (${p.device.tensorParallelSize}) and pipeline_parallel_size (${p.device.pipelineParallelSize ?? 1})`),
    });
    if (!same && !encoder) notes.push('KV bytes per token differ: the log is not of this profile\'s model and settings, so the block counts cannot agree');
  }

  // What the pool would be with the log's own terms: the residual is rounding or KV size.
  let pagesWithLogTerms: number | null = null;
  // The log's activation and non-torch figures move the pool only where the device sizes it:
  // with the profile's explicit budget, or no device memory, only its KV cache memory does. Its
  // weights figure is no term the estimate takes (the parameters size the weights).
  if (f.kvCacheBytes || (e.pool.budgetSource === 'device' && (f.activationPeakBytes || f.nonTorchBytes))) {
    const q: Profile = structuredClone(p);
    if (f.kvCacheBytes) {
      q.kvCache.numPages = 'auto';
      q.kvCache.memoryGib = f.kvCacheBytes.value / GIB;
    } else {
      q.engine = { ...q.engine!, activationGib: f.activationPeakBytes ? f.activationPeakBytes.value / GIB : q.engine!.activationGib, nonTorchGib: f.nonTorchBytes ? f.nonTorchBytes.value / GIB : q.engine!.nonTorchGib, ncclGib: f.nonTorchBytes ? 0 : q.engine!.ncclGib };
    }
    const withLog = estimate(q);
    pagesWithLogTerms = withLog.pool.pages;
  }
  if (logBlocks !== undefined && encoder) {
    rows.push({ term: blocksTerm, log: logBlocksText, logLine: blocksLine, estimate: '0', difference: signedCount(-logBlocks), why: `no pool: ${encoder.short}` });
  } else if (logBlocks !== undefined && noPool) {
    rows.push({ term: blocksTerm, log: logBlocksText, logLine: blocksLine, estimate: '—', difference: '', why: `no pool is sized without the device memory${pagesWithLogTerms !== null ? `; with the log's ${f.kvCacheBytes ? 'KV cache memory' : 'terms'} the estimate gives ${formatCount(pagesWithLogTerms)}` : ''}` });
  } else if (logBlocks !== undefined) {
    const d = off(e.pool.pages);
    const rel = logBlocks > 0 ? ` (${d < 0 ? '−' : '+'}${Math.abs(100 * d / logBlocks).toFixed(1)}%)` : '';
    const pageWhy = grouped(e.pool.layout)
      ? `block = ${e.pool.layout.pageSize} tokens · ${e.pool.layout.groupSize} layers · ${formatCount(e.kvBytesPerTokenPerLayer)} B = ${formatBytes(e.pageBytes)} (${e.pool.layout.basis})`
      : `page = ${e.pool.layout.pageSize} tokens · ${formatCount(e.kvBytesPerToken)} B = ${formatBytes(e.pageBytes)}`;
    // With the log's KV cache memory, pages that still differ hold another KV size per page; with
    // only its activation / non-torch figures, what is left lies in the terms it does not print.
    const residualWhy = (n: number) => off(n) === 0 && blocksSlack > 0
      ? `within the ${groups} block counts the log's tokens stand for, as vLLM counts floor(blocks / ${groups} groups) · block size`
      : Math.abs(off(n)) <= Math.ceil(LOG_ROUNDING_BYTES / Math.max(1, e.pageBytes)) + 1
      ? 'the log\'s 0.01 GiB rounding'
      : f.kvCacheBytes ? 'a different KV size per page' : `the rest lies in ${unprintedText}, or in the usable memory and weights`;
    const residual = pagesWithLogTerms !== null ? `; with the log's ${f.kvCacheBytes ? 'KV cache memory' : 'terms'} the estimate gives ${formatCount(pagesWithLogTerms)} (${signedCount(off(pagesWithLogTerms)) || 'the same'}: ${residualWhy(pagesWithLogTerms)})` : '';
    // Without the log's KV cache memory the difference is the derived one: name where it lies.
    const cause = derivedKv && Math.abs(kvDiff) >= e.pageBytes ? ` (${printedDiffer ? 'the KV cache memory row splits it by term' : `it lies in ${unprintedText}: see the KV cache memory row`})` : '';
    rows.push({
      term: blocksTerm,
      log: logBlocksText,
      logLine: blocksLine,
      estimate: formatCount(e.pool.pages),
      difference: d === 0 ? '' : `${signedCount(d)}${rel}`,
      why: `floor(KV cache memory / page), ${pageWhy}${d !== 0 ? `: the KV cache memory difference ${signed(kvDiff) || '(none)'} in pages${cause}` : ''}${residual}`,
    });
  }
  if (f.kvCacheTokens && !noPool) {
    rows.push({ term: 'KV cache size (tokens)', log: formatCount(f.kvCacheTokens.value), logLine: f.kvCacheTokens.line, estimate: formatCount(e.pool.tokens), difference: signedCount(e.pool.tokens - f.kvCacheTokens.value), why: `${poolTokensFormula(e.pool.layout, 'blocks', 'block size')}${poolGroupsWhy(e.pool.layout)}` });
  }
  if (f.maxConcurrency && !noPool) {
    const v0 = v0ConcurrencyLog(log) && e.pool.layout.kind === 'uniform';
    const concurrency = v0 ? e.pool.pages * e.pool.layout.pageSize / e.pool.concurrencySeqLen : e.pool.maxConcurrency;
    const est = formatConcurrency(concurrency);
    rows.push({
      term: `maximum concurrency for ${formatCount(e.pool.concurrencySeqLen)} tokens`,
      log: `${formatConcurrency(f.maxConcurrency.value)}`,
      logLine: f.maxConcurrency.line,
      estimate: `${est} (${formatCountOf(e.pool.sequencesAtOnce, 'whole sequence')})`,
      difference: est === formatConcurrency(f.maxConcurrency.value) ? '' : `${concurrency < f.maxConcurrency.value ? '−' : '+'}${formatConcurrency(Math.abs(concurrency - f.maxConcurrency.value))}`,
      why: v0 ? `blocks · block size / max_model_len (vLLM V0's formula, executor_base.py / gpu_executor.py: no rounding up to whole blocks): follows the block difference` : `blocks / ${e.pool.layout.kind === 'uniform' ? 'ceil(max_model_len / block size)' : `the ${formatCount(e.pool.blocksPerSeq)} blocks a request reserves (${blocksPerRequestFormula(e.pool.layout)}, N = max_model_len)`}: follows the block difference`,
    });
  }
  if (rows.every((r) => r.log === null)) notes.push('no vLLM memory line was found in the log (weights, KV cache memory, GPU blocks, KV cache size, maximum concurrency)');
  if (encoder) notes.push(logKv || logBlocks !== undefined || f.kvCacheTokens ? `${encoder.long}; this log's vLLM sized a KV pool, so it served a model with a decoder: the log is not of this profile's model; compare with a profile or config.json of the log's model` : `${encoder.long}: only the weights compare`);
  if (noPool && e.hasKvCache) notes.push('neither the log nor the profile gives the device memory or a KV budget, so the estimate sizes no pool: set device.gpu, device.memory_gib or kv_cache.memory_gib');
  const replicas = noPool ? null : replicaNote(log, e);
  if (replicas) notes.push(replicas);
  return { rows, fromLog, fromProfile, estimate: e, pagesWithLogTerms, notes, deviceCaveat, unread: log.unread, ranks: log.ranks, ...(log.rankProcess !== undefined ? { rankProcess: log.rankProcess } : {}), ...(log.rankTermsElsewhere ? { rankTermsElsewhere: log.rankTermsElsewhere } : {}), missingKv: missingKvNote(log), stop: stopNote(log), modelMismatch: modelMismatchOf(log, profile), tpMismatch: tpMismatchOf(log, profile, p) };
}
