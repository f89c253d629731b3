/**
 * Reads the start-up lines of a vLLM log (V0 and V1 engines, releases 0.2 to 0.19) into the
 * figures its memory profiling printed: device memory, gpu_memory_utilization, weights,
 * activation peak, non-torch memory, CUDA graph memory, the KV cache budget, GPU blocks, KV
 * cache tokens and the maximum concurrency; and the settings it ran with where the log says
 * them (release, model, dtype, max_model_len, tensor_parallel_size, max_num_batched_tokens,
 * max_num_seqs, kv_cache_dtype, block size, chunked prefill). Every figure keeps the 1-based line it came from.
 *
 * Line formats (vLLM's own, by the file that prints them):
 * - V0 model_runner.py: "Loading model weights took 14.9888 GB" (GB there is 2^30 bytes).
 * - V1 gpu_model_runner.py: "Model loading took 14.9889 GiB and 4.51 seconds" /
 *   "Model loading took 14.99 GiB memory and 6.72 seconds".
 * - V0 worker.py 0.6.4: "Memory profiling results: duration=.., total_gpu_memory=79.22GiB,
 *   initial_memory_usage=.., peak_torch_memory=.., memory_usage_post_profile=..,
 *   non_torch_memory=..GiB, kv_cache_size=3.81GiB, gpu_memory_utilization=0.90" (peak_torch_memory:
 *   torch's peak allocation in the profiling run, weights included: the activation peak is it
 *   less "Loading model weights took"); 0.6.5 the
 *   same keys one per line ("total_gpu_memory\t79.22GiB", "model weights take\t14.96GiB",
 *   "PyTorch activation peak memory\t1.26GiB", "available_kv_cache_memory\t53.29GiB").
 * - V0 worker.py 0.7 to 0.10: "the current vLLM instance can use total_gpu_memory (22.07GiB) x
 *   gpu_memory_utilization (0.90) = 19.86GiB" and "model weights take 14.99GiB;
 *   non_torch_memory takes 0.05GiB; PyTorch activation peak memory takes 0.22GiB; the rest of
 *   the memory reserved for KV Cache is 4.60GiB."
 * - V0 executor_base.py / gpu_executor.py: "# GPU blocks: 2356, # CPU blocks: 2048" (also
 *   "# CUDA blocks", "# cuda blocks", "# rocm blocks").
 * - V1 gpu_worker.py: "Memory profiling takes 6.42 seconds. Total non KV cache memory: 16.51GiB;
 *   torch peak memory increase: 1.21GiB; non-torch forward increase memory: 0.31GiB; weights
 *   memory: 14.99GiB." and "Available KV cache memory: 54.68 GiB"; 0.11+: "Free memory on device
 *   (78.5/79.19 GiB) on startup. Desired GPU memory utilization is (0.9, 71.27 GiB). Actual
 *   usage is 14.99 GiB for weight, 1.21 GiB for peak activation, 0.31 GiB for non-torch memory,
 *   and 0.52 GiB for CUDAGraph memory." (after capture, the pool sized without them);
 *   "Estimated CUDA graph memory: 0.84 GiB total" (the profiler's estimate, taken out of the
 *   budget: a v0.19 log's 58.11 GiB = 79.22 · 0.95 − 14.99 − 1.24 − 0.09 − 0.84).
 * - V1 kv_cache_utils.py (and V0 executor_base.py): "GPU KV cache size: 447,776 tokens",
 *   "Maximum concurrency for 8,192 tokens per request: 54.66x".
 * - gpu_model_runner.py / model_runner.py: "Graph capturing finished in 5 secs, took 0.53 GiB".
 * - llm_engine.py: "Initializing a V1 LLM engine (v0.10.1) with config: model='...',
 *   dtype=torch.bfloat16, max_seq_len=8192, ..., tensor_parallel_size=1, ...,
 *   kv_cache_dtype=auto, ..."; api_server: "vLLM API server version 0.6.3", "non-default args:
 *   {'max_model_len': 8192, 'gpu_memory_utilization': 0.85, ...}" (to 0.6: "args: Namespace(model='...',
 *   tensor_parallel_size=4, ...)"); scheduler / config:
 *   "Chunked prefill is enabled with max_num_batched_tokens=2048."
 */

const GIB = 1024 ** 3;

/** One figure read from the log. */
export interface LogFigure<T = number> {
  value: T;
  /** 1-based line number. */
  line: number;
  /** The line's text (trimmed), for quoting. */
  text: string;
}

/** The memory figures of a start-up; bytes are per GPU (vLLM profiles one worker). */
export interface VllmLogFigures {
  totalGpuMemoryBytes?: LogFigure;
  gpuMemoryUtilization?: LogFigure;
  /** total · utilization as vLLM printed it ("the current vLLM instance can use ..."). */
  usableBytes?: LogFigure;
  weightsBytes?: LogFigure;
  /**
   * The activation peak: printed by 0.6.5 and later ("PyTorch activation peak memory", "torch peak
   * memory increase", "for peak activation"); for 0.6.4, derived from its peak_torch_memory
   * (activationFromPeakTorch).
   */
  activationPeakBytes?: LogFigure;
  /**
   * vLLM 0.6.4's peak_torch_memory: torch's peak allocation over the profiling run, the weights
   * included (worker.py determine_num_available_blocks: torch.cuda.reset_peak_memory_stats() with
   * the weights loaded, then memory_stats()["allocated_bytes.all.peak"]; 0.6.5, PR #10511, printed
   * the weights and "PyTorch activation peak memory" apart). Not the activation peak itself.
   */
  peakTorchBytes?: LogFigure;
  /** Whether activationPeakBytes is peakTorchBytes − weightsBytes (a 0.6.4 log, which prints no activation figure). */
  activationFromPeakTorch?: boolean;
  nonTorchBytes?: LogFigure;
  cudaGraphBytes?: LogFigure;
  /** Whether the KV budget had cudaGraphBytes taken out: true for the profiler's "Estimated CUDA graph memory" (counted before sizing the pool), false for "Graph capturing finished ..., took" and 0.11's "Actual usage ... CUDAGraph memory" (after it). */
  cudaGraphCounted?: boolean;
  kvCacheBytes?: LogFigure;
  /**
   * How far the KV budget fell short, in bytes (> 0), where vLLM printed it negative ("Available KV
   * cache memory: -2.34 GiB"): V1 gpu_worker.py prints requested_memory − non_kv_cache_memory as
   * it is, and kv_cache_utils check_enough_kv_cache_memory then stops with "No available memory for
   * the cache blocks" (V0 worker.py the same with its "reserved for KV Cache is" / "# GPU blocks: 0").
   */
  kvShortfallBytes?: LogFigure;
  gpuBlocks?: LogFigure;
  kvCacheTokens?: LogFigure;
  maxConcurrency?: LogFigure;
  /** The tokens per request the concurrency line is for (max_model_len). */
  concurrencySeqLen?: LogFigure;
}

/** Settings the log states. */
export interface VllmLogSettings {
  version?: LogFigure<string>;
  engine?: LogFigure<'V0' | 'V1'>;
  model?: LogFigure<string>;
  dtype?: LogFigure<string>;
  maxModelLen?: LogFigure;
  tensorParallelSize?: LogFigure;
  /** pipeline_parallel_size of the engine's config line or the server's arguments. */
  pipelineParallelSize?: LogFigure;
  /** data_parallel_size of the engine's config line or the server's arguments: engine replicas, each with its own pool. */
  dataParallelSize?: LogFigure;
  maxNumBatchedTokens?: LogFigure;
  maxNumSeqs?: LogFigure;
  kvCacheDtype?: LogFigure<string>;
  blockSize?: LogFigure;
  enforceEager?: LogFigure<boolean>;
  /**
   * Whether vLLM ran with its hybrid KV-cache manager off: the args' disable_hybrid_kv_cache_manager,
   * or kv_cache_utils unify_hybrid_kv_cache_specs's warning "Hybrid KV cache manager is disabled
   * for this hybrid model", or VllmConfig's for Llama 4's chunked local attention "There is a latency
   * regression when using chunked local attention with the hybrid KV cache manager. Disabling it,
   * by default" (one KV-cache group, every layer charged every token).
   */
  hybridKvManagerDisabled?: LogFigure<boolean>;
  /**
   * The args' kv_cache_memory_bytes (vLLM 0.11+ --kv-cache-memory-bytes): the KV budget per GPU
   * as given, gpu_memory_utilization ignored (gpu_worker.py determine_available_memory returns it
   * without profiling and logs "reserved X GiB memory for KV Cache as specified by
   * kv_cache_memory_bytes config").
   */
  kvCacheMemoryBytes?: LogFigure;
  /**
   * The args' cpu_offload_gb (vLLM --cpu-offload-gb): GiB of weights per GPU kept in CPU memory
   * (model_executor/models/utils.py maybe_offload_to_cpu), which "Model loading took" does not count.
   */
  cpuOffloadGib?: LogFigure;
  /** The engine line's speculative_config (None when off): a draft model loaded beside the target. */
  speculativeConfig?: LogFigure<string>;
  /** V0's chunked prefill: the config line's chunked_prefill_enabled (0.6), the args' enable_chunked_prefill, or "Chunked prefill is enabled ...". */
  chunkedPrefill?: LogFigure<boolean>;
}

/** One start-up of the vLLM server or engine in a log ({@link startupsOf}). */
export interface VllmStartup {
  /** 1-based line it starts at: the first line of the log for the first, else its first start-up line (banner, API server version, args, engine config). */
  line: number;
  /** Whether it printed any memory line (one that carries a {@link MEMORY_LINE_CUES} cue). */
  memoryLines: boolean;
}

export interface VllmLog {
  /** Every start-up the log holds, in order (a server restarted into the same file writes two or more). */
  startups: VllmStartup[];
  /** The 1-based index into `startups` of the one read: figures, settings and unread lines are of it alone. */
  startup: number;
  figures: VllmLogFigures;
  settings: VllmLogSettings;
  /**
   * Lines that look like vLLM memory lines (they carry one of {@link MEMORY_LINE_CUES}) but that
   * no line format reads, or whose last clause none reads — cut short or garbled — or whose number
   * is not finite, or an integer beyond 2^53 − 1 (`why` says so; without it: cut short or garbled);
   * in line order. Those figures are left out (the line's clauses that were read
   * keep theirs), and the readers say which lines they could not read.
   */
  unread: Array<{ line: number; text: string; why?: string }>;
  /**
   * The KV figures the start-up printed more than once with different values, one per rank or
   * engine (tensor parallelism: every worker prints "Available KV cache memory"; V1 before 0.11
   * printed "GPU KV cache size" once per worker too), each with every copy; in line order of
   * their first copy. The figure read is the smallest copy, as vLLM sizes every rank's pool by the
   * smallest: V0 takes the minimum of the workers' blocks (llm_engine.py _init_cache to 0.3,
   * distributed_gpu_executor.py determine_num_available_blocks after: "we take the minimum number
   * of blocks across all workers"), V1 sets every rank's num_blocks to the smallest
   * (kv_cache_utils.py unify_kv_cache_configs, get_kv_cache_configs from 0.11: min_num_blocks).
   */
  ranks: RankedFigure[];
  /**
   * Where the KV cache memory copies came from several processes: the process whose copy was the
   * smallest ("VllmWorker TP1 pid=8"; '' for the unprefixed driver), whose weights, activation,
   * non-torch, CUDA graph and device figures are read (the terms of the budget that was used).
   */
  rankProcess?: string;
  /**
   * With rankProcess: the weights, activation peak, non-torch and CUDA graph figures read from
   * another process's line because rankProcess printed none (vLLM 0.10 prints "Graph capturing
   * finished ..., took" on TP0 only), each with that process and line.
   */
  rankTermsElsewhere?: Array<{ key: (typeof NAMED_RANK_TERMS)[number]; process: string; line: number }>;
  /**
   * The first line of the start-up where vLLM says it cannot go on for lack of memory ({@link
   * STOP_CUES}: no memory for the cache blocks, a max_model_len the KV cache cannot hold, CUDA out
   * of memory), if any: why a start-up may end before its KV lines.
   */
  stopLine?: { line: number; text: string };
}

/**
 * vLLM's own words when it stops for lack of memory: V0 and V1's "No available memory for the
 * cache blocks" (worker / kv_cache_utils check_enough_kv_cache_memory), V1's "To serve at least
 * one request with the models's max seq len (N), (X GiB KV cache is needed, which is larger than
 * the available KV cache memory", V0's "The model's max seq len (N) is larger than the maximum
 * number of tokens that can be stored in KV cache", and torch's "CUDA out of memory".
 */
const STOP_CUES: readonly RegExp[] = [
  /No available memory for the cache blocks/, /To serve at least one request with the models?'s max seq len/,
  /max seq len \(\d+\) is larger than the maximum number of tokens that can be stored in KV cache/, /CUDA out of memory|OutOfMemoryError/,
];

/** A KV figure printed more than once with different values ({@link VllmLog.ranks}). */
export interface RankedFigure {
  key: RankedKey;
  /** Every copy, in line order. */
  copies: LogFigure[];
  /** The copy read: the smallest (the last of equal ones). */
  read: LogFigure;
  /** The process of each copy, as in its logger prefix ("VllmWorker TP0 pid=7"; '' for none). */
  processes: string[];
}

/** The figures vLLM takes the smallest of across ranks (see {@link VllmLog.ranks}). */
export type RankedKey = 'kvCacheBytes' | 'gpuBlocks' | 'kvCacheTokens' | 'maxConcurrency';
const RANKED_KEYS: readonly RankedKey[] = ['kvCacheBytes', 'gpuBlocks', 'kvCacheTokens', 'maxConcurrency'];
/** The terms of a rank's KV budget: read from the process whose KV cache memory was the smallest. */
/** The budget's terms the rank note names (report.ts rankNotes), in its order. */
export const NAMED_RANK_TERMS = ['weightsBytes', 'activationPeakBytes', 'nonTorchBytes', 'cudaGraphBytes'] as const;
const RANK_TERM_KEYS = ['totalGpuMemoryBytes', 'gpuMemoryUtilization', 'usableBytes', 'weightsBytes', 'activationPeakBytes', 'peakTorchBytes', 'nonTorchBytes', 'cudaGraphBytes'] as const;

/**
 * Whether a KV figure's copies are one per data-parallel engine: each from its own engine-core
 * process ("EngineCore_DP0 pid=1" from vLLM 0.10.2, "EngineCore_0 pid=1" before). Each such engine
 * is a vLLM engine of its own that sizes its own pool (get_kv_cache_configs takes the smallest
 * over one engine's workers; nothing syncs the blocks across replicas), so its copies are not
 * one pool's ranks.
 */
export function isDataParallel(r: Pick<RankedFigure, 'processes'>): boolean {
  return new Set(r.processes).size > 1 && r.processes.every((x) => /^EngineCore_(?:DP)?\d+\b/.test(x));
}

/** The logger prefix's process, "(VllmWorker TP1 pid=8) INFO ..." → "VllmWorker TP1 pid=8"; '' for none. */
function processOf(raw: string): string {
  return /^\s*\(([^()]*\bpid=\d+)\)/.exec(raw)?.[1] ?? '';
}

const NUM = String.raw`(\d[\d,]*(?:\.\d+)?)`;

function num(s: string): number {
  return Number(s.replace(/,/g, ''));
}

function gib(s: string): number {
  return Math.round(num(s) * GIB);
}

/** Strips the logger prefix ("(EngineCore_DP0 pid=1) INFO 02-06 03:33:32 [gpu_worker.py:356] "). */
function body(line: string): string {
  return line.replace(/^.*?\b(?:INFO|DEBUG|WARNING|ERROR)\b[^\]]*\]\s*/, '').trim();
}

interface Ctx {
  figures: VllmLogFigures;
  settings: VllmLogSettings;
  /** A figure at the current line. */
  fig<T>(value: T): LogFigure<T>;
  /** Leaves the current line's figure out, saying why (VllmLog.unread). */
  refuse(why: string): void;
}

/**
 * The integer figure `s` ("447,776") at the current line, or undefined — the line noted in
 * VllmLog.unread — beyond Number.MAX_SAFE_INTEGER: a float64 would round it silently (traces
 * refuse such integers too: core/config/tree.ts unsafeIntegerText).
 */
function count(s: string, what: string, c: Ctx): LogFigure | undefined {
  const v = num(s);
  if (Number.isSafeInteger(v)) return c.fig(v);
  c.refuse(`${what} ${s} is beyond 2^53 − 1 (9,007,199,254,740,991): a JavaScript number cannot hold it exactly`);
  return undefined;
}

/** Each rule: a pattern over the line without its logger prefix, and what it sets. */
const RULES: ReadonlyArray<[RegExp, (m: RegExpMatchArray, c: Ctx) => void]> = [
  [new RegExp(String.raw`Loading model weights took ${NUM} GB`), (m, c) => { c.figures.weightsBytes = c.fig(gib(m[1]!)); }],
  [new RegExp(String.raw`Model loading took ${NUM} GiB`), (m, c) => { c.figures.weightsBytes = c.fig(gib(m[1]!)); }],
  [new RegExp(String.raw`total_gpu_memory \(${NUM}\s*GiB\) x gpu_memory_utilization \(${NUM}\) = ${NUM}\s*GiB`), (m, c) => {
    c.figures.totalGpuMemoryBytes = c.fig(gib(m[1]!));
    c.figures.gpuMemoryUtilization = c.fig(num(m[2]!));
    c.figures.usableBytes = c.fig(gib(m[3]!));
  }],
  [new RegExp(String.raw`model weights take\s*${NUM}\s*GiB`), (m, c) => { c.figures.weightsBytes = c.fig(gib(m[1]!)); }],
  [new RegExp(String.raw`non_torch_memory(?: takes|[=\s:]+)\s*${NUM}\s*GiB`), (m, c) => { c.figures.nonTorchBytes = c.fig(gib(m[1]!)); }],
  [new RegExp(String.raw`PyTorch activation peak memory(?: takes)?\s*${NUM}\s*GiB`), (m, c) => { c.figures.activationPeakBytes = c.fig(gib(m[1]!)); }],
  [new RegExp(String.raw`(?:reserved for KV Cache is|available_kv_cache_memory[=\s:]+|kv_cache_size=|Available KV cache memory:)\s*${NUM}\s*GiB`), (m, c) => { c.figures.kvCacheBytes = c.fig(gib(m[1]!)); }],
  // The same printed negative: the budget's shortfall, before vLLM stops (VllmLogFigures.kvShortfallBytes).
  [new RegExp(String.raw`(?:reserved for KV Cache is|available_kv_cache_memory[=\s:]+|kv_cache_size=|Available KV cache memory:)\s*-${NUM}\s*GiB`), (m, c) => { c.figures.kvShortfallBytes = c.fig(gib(m[1]!)); }],
  [new RegExp(String.raw`(?:^|[\s,])total_gpu_memory[=\s:]+${NUM}\s*GiB`), (m, c) => { c.figures.totalGpuMemoryBytes = c.fig(gib(m[1]!)); }],
  [new RegExp(String.raw`(?:^|[\s,])gpu_memory_utilization[=\s:]+${NUM}(?![\d.]*\s*GiB)`), (m, c) => { c.figures.gpuMemoryUtilization ??= c.fig(num(m[1]!)); }],
  [new RegExp(String.raw`the current vLLM instance can use\s+${NUM}\s*GiB`), (m, c) => { c.figures.usableBytes = c.fig(gib(m[1]!)); }],
  [new RegExp(String.raw`torch peak memory increase: ${NUM}\s*GiB`), (m, c) => { c.figures.activationPeakBytes = c.fig(gib(m[1]!)); }],
  [new RegExp(String.raw`(?:^|[\s,])peak_torch_memory=${NUM}\s*GiB`), (m, c) => { c.figures.peakTorchBytes = c.fig(gib(m[1]!)); }],
  [new RegExp(String.raw`non-torch forward increase memory: ${NUM}\s*GiB`), (m, c) => { c.figures.nonTorchBytes = c.fig(gib(m[1]!)); }],
  [new RegExp(String.raw`weights memory: ${NUM}\s*GiB`), (m, c) => { c.figures.weightsBytes = c.fig(gib(m[1]!)); }],
  [new RegExp(String.raw`Free memory on device \(${NUM}/${NUM}\s*GiB\)`), (m, c) => { c.figures.totalGpuMemoryBytes = c.fig(gib(m[2]!)); }],
  [new RegExp(String.raw`Desired GPU memory utilization is \(${NUM}, ${NUM}\s*GiB\)`), (m, c) => {
    c.figures.gpuMemoryUtilization = c.fig(num(m[1]!));
    c.figures.usableBytes = c.fig(gib(m[2]!));
  }],
  [new RegExp(String.raw`Actual usage is ${NUM}\s*GiB for weight, ${NUM}\s*GiB for peak activation, ${NUM}\s*GiB for non-torch memory(?:, and ${NUM}\s*GiB for CUDAGraph memory)?`), (m, c) => {
    c.figures.weightsBytes = c.fig(gib(m[1]!));
    c.figures.activationPeakBytes = c.fig(gib(m[2]!));
    c.figures.nonTorchBytes = c.fig(gib(m[3]!));
    // Printed after graph capture, with a --kv-cache-memory that would make room for them:
    // the pool was sized without them.
    if (m[4] !== undefined && c.figures.cudaGraphCounted !== true) {
      c.figures.cudaGraphBytes = c.fig(gib(m[4]));
      c.figures.cudaGraphCounted = false;
    }
  }],
  // gpu_worker.py determine_available_memory with kv_cache_memory_bytes set: that budget, no profiling.
  [new RegExp(String.raw`reserved ${NUM}\s*GiB memory for KV Cache as specified by kv_cache_memory_bytes`), (m, c) => { c.figures.kvCacheBytes = c.fig(gib(m[1]!)); }],
  [new RegExp(String.raw`Estimated CUDA graph memory: ${NUM}\s*GiB`), (m, c) => {
    c.figures.cudaGraphBytes = c.fig(gib(m[1]!));
    c.figures.cudaGraphCounted = true;
  }],
  [new RegExp(String.raw`Graph capturing finished in ${NUM} secs?, took ${NUM}\s*GiB`), (m, c) => {
    if (c.figures.cudaGraphCounted === true) return;
    c.figures.cudaGraphBytes = c.fig(gib(m[2]!));
    c.figures.cudaGraphCounted = false;
  }],
  [new RegExp(String.raw`# (?:GPU|CUDA|cuda|gpu|rocm|ROCm|xpu|XPU|tpu|TPU|hpu|HPU|neuron|cpu) blocks: ${NUM}`), (m, c) => { const v = count(m[1]!, 'the GPU blocks', c); if (v) c.figures.gpuBlocks = v; }],
  [new RegExp(String.raw`GPU KV cache size: ${NUM} tokens`), (m, c) => { const v = count(m[1]!, 'the GPU KV cache size', c); if (v) c.figures.kvCacheTokens = v; }],
  [new RegExp(String.raw`Maximum concurrency for ${NUM} tokens per request: ${NUM}x`), (m, c) => {
    const seqLen = count(m[1]!, 'the tokens per request', c);
    if (!seqLen) return;
    c.figures.concurrencySeqLen = seqLen;
    c.figures.maxConcurrency = c.fig(num(m[2]!));
  }],
  [/Initializing an? (?:(V[01]) )?LLM engine \(v?([\w.+-]+)\) with config: (.*)$/, (m, c) => {
    if (m[1] === 'V0' || m[1] === 'V1') c.settings.engine = c.fig(m[1]);
    c.settings.version = c.fig(m[2]!);
    readConfigLine(m[3]!, c);
  }],
  [/vLLM API server version v?([\w.+-]+)/, (m, c) => { c.settings.version ??= c.fig(m[1]!); }],
  // The start-up banner's ASCII art: "▄▄ ▄█ █ █ █ ▀▄▀ █ version 0.19.0".
  [/[█▄▀].*\bversion v?(\d+\.\d+(?:\.\d+)?[\w.+-]*)\s*$/, (m, c) => { c.settings.version ??= c.fig(m[1]!); }],
  [/non-default args: (\{.*\})/, (m, c) => { readArgsDict(m[1]!, c); }],
  [/\bargs: Namespace\((.*)\)\s*$/, (m, c) => { readArgsNamespace(m[1]!, c); }],
  [/Hybrid KV cache manager is disabled for this hybrid model/, (_, c) => { c.settings.hybridKvManagerDisabled = c.fig(true); }],
  // VllmConfig.__post_init__ (vLLM PR #21761) for chunked local attention with VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=0.
  [/latency regression when using chunked local attention with the hybrid KV cache manager\. Disabling it/, (_, c) => { c.settings.hybridKvManagerDisabled = c.fig(true); }],
  [new RegExp(String.raw`Chunked prefill is enabled with max_num_batched_tokens=${NUM}`), (m, c) => {
    c.settings.maxNumBatchedTokens = c.fig(num(m[1]!));
    c.settings.chunkedPrefill = c.fig(true);
  }],
];

/**
 * The words that open each memory line (or clause) RULES reads, without its numbers: a line that
 * has one that no rule reads, or one after the last clause a rule read, was cut short or garbled
 * ("GPU KV cache size: 157,9", "Maximum concurrency for 131,072 tokens per request: 1.", "model
 * weights take 14.99GiB; ... the rest of the memory reserved for KV Cache is 54."). V0's
 * "# CPU blocks" (swap space) is no figure read here.
 */
export const MEMORY_LINE_CUES: readonly RegExp[] = [
  /Loading model weights took \S/, /Model loading took \S/, /model weights take\b/, /total_gpu_memory\b/,
  /non_torch_memory\b/, /PyTorch activation peak memory\b/, /reserved for KV Cache is\b/, /available_kv_cache_memory\b/,
  /kv_cache_size=/, /Available KV cache memory:/, /the current vLLM instance can use\b/, /torch peak memory increase:/,
  /non-torch forward increase memory:/, /weights memory:/, /Free memory on device \(/, /Desired GPU memory utilization is \(/,
  /Actual usage is \S/, /Estimated CUDA graph memory:/, /Graph capturing finished in .*\btook\b/, /# (?!CPU )\w+ blocks:/,
  /GPU KV cache size:/, /Maximum concurrency for\b/, /GiB memory for KV Cache as specified by\b/,
];

const CUES_ALL = MEMORY_LINE_CUES.map((cue) => new RegExp(cue.source, 'g'));

/** Where the last memory cue of `line` starts, -1 when it has none. */
function lastCueAt(line: string): number {
  let at = -1;
  for (const cue of CUES_ALL) for (const m of line.matchAll(cue)) at = Math.max(at, m.index);
  return at;
}

/** V1's process and file names, in the logger prefix that `body` strips. */
const V1_PREFIX = /\bEngineCore\b|\[(?:gpu_model_runner|gpu_worker|kv_cache_utils|core)\.py:\d+\]/;
/**
 * V0's file names in the same prefix ("worker.py:243]" in 0.6, "[worker.py:243]" from 0.7; V1's
 * are gpu_worker.py and gpu_model_runner.py, which the leading space or bracket tells apart).
 */
const V0_PREFIX = /(?:^|[\s[])(?:worker|model_runner|executor_base|gpu_executor)\.py:\d+\]/;

/**
 * The lines a vLLM start-up opens with (the text without its logger prefix), each printed once per
 * start-up: api_server.py's "vLLM API server version 0.6.3", the 0.11+ ASCII banner's "version
 * 0.19.0", the arguments (api_server's "args: Namespace(" to 0.6, utils.py's "non-default args: {"
 * after), and llm_engine.py / core.py's "Initializing a V1 LLM engine (v0.10.1) with config" —
 * once per engine process, so that one is told apart by its process prefix (EngineCore_DP0,
 * EngineCore_DP1 under data parallelism).
 */
const STARTUP_LINES: ReadonlyArray<{ kind: string; pattern: RegExp }> = [
  { kind: 'api-server', pattern: /vLLM API server version v?[\w.+-]+/ },
  { kind: 'banner', pattern: /[█▄▀].*\bversion v?\d+\.\d+/ },
  { kind: 'args', pattern: /^(?:non-default args: \{|args: Namespace\()/ },
  { kind: 'engine', pattern: /Initializing an? (?:V[01] )?LLM engine \(/ },
];

/**
 * Splits a log's lines into start-ups. A start-up line opens a new start-up where the current one
 * already has a line of its kind (a restart writes them again), or, for the server's own lines
 * (banner, API server version, args), where the current one has printed memory lines already.
 * An engine line after memory lines is one of a second engine (data parallelism) unless its
 * process printed one before. Lines before the first start-up line belong to the first.
 */
function startupsOf(lines: readonly string[]): VllmStartup[] {
  const startups: VllmStartup[] = [{ line: 1, memoryLines: false }];
  let seen = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (raw.length > MAX_LINE_CHARS) continue;
    const line = body(raw);
    const mark = STARTUP_LINES.find((s) => s.pattern.test(line));
    const current = startups[startups.length - 1]!;
    if (mark) {
      const kind = mark.kind === 'engine' ? `engine ${/\(([^)\s]+) pid=/.exec(raw)?.[1] ?? ''}` : mark.kind;
      if (seen.has(kind) || (mark.kind !== 'engine' && current.memoryLines)) {
        startups.push({ line: i + 1, memoryLines: false });
        seen = new Set();
      }
      seen.add(kind);
    }
    if (lastCueAt(line) >= 0) startups[startups.length - 1]!.memoryLines = true;
  }
  return startups;
}

/** Generated tokens or base64 dumps: no start-up line is this long. */
const MAX_LINE_CHARS = 20_000;

/**
 * Parses a vLLM log: one start-up of it ({@link startupsOf}), by default the last that printed a
 * memory line (else the last), or `opts.startup` (1-based; outside 1 to the count: the default).
 * Never throws: text that is no vLLM log gives empty figures. When a figure appears more than once
 * in the start-up (one line per tensor-parallel worker), the KV figures (KV cache memory, GPU
 * blocks, KV cache size, maximum concurrency) are the smallest copy ({@link VllmLog.ranks}), the
 * budget's terms those of the process whose KV cache memory was the smallest, and every other
 * figure the last copy.
 */
export function parseVllmLog(text: string, opts: { startup?: number } = {}): VllmLog {
  const figures: VllmLogFigures = {};
  const settings: VllmLogSettings = {};
  const unread: VllmLog['unread'] = [];
  const lines = text.split(/\r?\n/);
  const startups = startupsOf(lines);
  let lastWithMemory = startups.length - 1;
  while (lastWithMemory >= 0 && !startups[lastWithMemory]!.memoryLines) lastWithMemory--;
  const chosen = opts.startup !== undefined && Number.isInteger(opts.startup) && opts.startup >= 1 && opts.startup <= startups.length
    ? opts.startup - 1
    : lastWithMemory >= 0 ? lastWithMemory : startups.length - 1;
  const from = startups[chosen]!.line - 1;
  const to = chosen + 1 < startups.length ? startups[chosen + 1]!.line - 1 : lines.length;
  let stopLine: VllmLog['stopLine'];
  const copies = new Map<RankedKey, Array<{ figure: LogFigure; seqLen?: LogFigure; process: string }>>();
  const byProcess = new Map<string, VllmLogFigures>();
  for (let i = from; i < to; i++) {
    const raw = lines[i]!;
    if (raw.length > MAX_LINE_CHARS) continue;
    const line = body(raw);
    if (line === '') continue;
    const quoted = raw.trim().slice(0, 400);
    const ctx: Ctx = {
      figures, settings, fig: (value) => ({ value, line: i + 1, text: quoted }),
      refuse: (why) => { if (!unread.some((u) => u.line === i + 1)) unread.push({ line: i + 1, text: quoted, why }); },
    };
    // Where the last rule that read this line ends: a memory cue after it opens a clause no rule
    // read (a line of several clauses cut inside its last: "...; reserved for KV Cache is 54.").
    let readTo = -1;
    for (const [re, set] of RULES) {
      const m = line.match(re);
      if (m) {
        set(m, ctx);
        readTo = Math.max(readTo, (m.index ?? 0) + m[0].length);
      }
    }
    const cueAt = lastCueAt(line);
    if (cueAt >= 0 && cueAt >= readTo) unread.push({ line: i + 1, text: quoted });
    if (!stopLine && STOP_CUES.some((cue) => cue.test(line))) stopLine = { line: i + 1, text: quoted };
    if (readTo >= 0) {
      // Every figure this line set, kept per process and, for the KV figures, every copy.
      const process = processOf(raw);
      const own = byProcess.get(process) ?? {};
      for (const key of RANK_TERM_KEYS) if (figures[key]?.line === i + 1) Object.assign(own, { [key]: figures[key] });
      if (figures.cudaGraphBytes?.line === i + 1) own.cudaGraphCounted = figures.cudaGraphCounted;
      byProcess.set(process, own);
      for (const key of RANKED_KEYS) {
        const figure = figures[key];
        if (figure?.line === i + 1) copies.set(key, [...(copies.get(key) ?? []), { figure, seqLen: key === 'maxConcurrency' ? figures.concurrencySeqLen : undefined, process }]);
      }
    }
    if (settings.engine === undefined && V1_PREFIX.test(raw)) settings.engine = ctx.fig('V1');
    else if (settings.engine === undefined && V0_PREFIX.test(raw)) settings.engine = ctx.fig('V0');
  }
  for (const key of Object.keys(figures) as Array<keyof VllmLogFigures>) {
    const f = figures[key];
    if (typeof f === 'object' && !Number.isFinite(f.value)) {
      if (!unread.some((u) => u.line === f.line)) unread.push({ line: f.line, text: f.text });
      delete figures[key];
    }
  }
  // vLLM sizes every rank's pool by the smallest: the smallest copy of each KV figure, and the
  // terms of the process whose KV cache memory that was.
  const ranks: RankedFigure[] = [];
  for (const key of RANKED_KEYS) {
    const all = (copies.get(key) ?? []).filter((c) => Number.isFinite(c.figure.value));
    if (all.length < 2) continue;
    const least = all.reduce((a, b) => (b.figure.value <= a.figure.value ? b : a));
    figures[key] = least.figure;
    if (key === 'maxConcurrency' && least.seqLen) figures.concurrencySeqLen = least.seqLen;
    if (new Set(all.map((c) => c.figure.value)).size > 1) ranks.push({ key, copies: all.map((c) => c.figure), read: least.figure, processes: all.map((c) => c.process) });
  }
  ranks.sort((a, b) => a.copies[0]!.line - b.copies[0]!.line);
  const kvCopies = copies.get('kvCacheBytes') ?? [];
  let rankProcess: string | undefined;
  const rankTermsElsewhere: NonNullable<VllmLog['rankTermsElsewhere']> = [];
  if (new Set(kvCopies.map((c) => c.process)).size > 1 && figures.kvCacheBytes) {
    rankProcess = kvCopies.find((c) => c.figure === figures.kvCacheBytes)!.process;
    const own = byProcess.get(rankProcess) ?? {};
    for (const key of RANK_TERM_KEYS) if (own[key] && Number.isFinite(own[key].value)) Object.assign(figures, { [key]: own[key] });
    if (own.cudaGraphBytes) figures.cudaGraphCounted = own.cudaGraphCounted;
    for (const key of NAMED_RANK_TERMS) {
      const f = figures[key];
      if (!f || own[key]) continue;
      const from = [...byProcess].find(([, terms]) => terms[key]?.line === f.line);
      if (from) rankTermsElsewhere.push({ key, process: from[0], line: f.line });
    }
  }
  // 0.6.4 prints torch's peak with the weights in it: the activation peak is what lies above them.
  if (!figures.activationPeakBytes && figures.peakTorchBytes && figures.weightsBytes) {
    figures.activationPeakBytes = { ...figures.peakTorchBytes, value: Math.max(0, figures.peakTorchBytes.value - figures.weightsBytes.value) };
    figures.activationFromPeakTorch = true;
  }
  unread.sort((a, b) => a.line - b.line);
  return { startups, startup: chosen + 1, figures, settings, unread, ranks, ...(rankProcess !== undefined ? { rankProcess } : {}), ...(rankTermsElsewhere.length > 0 ? { rankTermsElsewhere } : {}), ...(stopLine ? { stopLine } : {}) };
}

/** "model='x', dtype=torch.bfloat16, max_seq_len=8192, tensor_parallel_size=1, ..." */
function readConfigLine(config: string, c: Ctx): void {
  const s = c.settings;
  const fig = c.fig;
  const str = (key: string): string | undefined => config.match(new RegExp(String.raw`\b${key}=(?:'([^']*)'|([^,\s]+))`))?.slice(1).find((x) => x !== undefined);
  const model = str('model');
  if (model !== undefined) s.model = fig(model);
  const dtype = str('dtype');
  if (dtype !== undefined) s.dtype = fig(dtype.replace(/^torch\./, ''));
  const int = (key: string): number | undefined => {
    const v = str(key);
    return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
  };
  const len = int('max_seq_len') ?? int('max_model_len');
  if (len !== undefined) s.maxModelLen = fig(len);
  const tp = int('tensor_parallel_size');
  if (tp !== undefined) s.tensorParallelSize = fig(tp);
  const pp = int('pipeline_parallel_size');
  if (pp !== undefined) s.pipelineParallelSize = fig(pp);
  const dp = int('data_parallel_size');
  if (dp !== undefined) s.dataParallelSize = fig(dp);
  const spec = /\bspeculative_config=(SpeculativeConfig\([^)]*\)|\{[^}]*\})/.exec(config)?.[1];
  if (spec !== undefined) s.speculativeConfig = fig(spec);
  const kv = str('kv_cache_dtype');
  if (kv !== undefined) s.kvCacheDtype = fig(kv);
  const eager = str('enforce_eager');
  if (eager === 'True' || eager === 'False') s.enforceEager = fig(eager === 'True');
  const chunked = str('chunked_prefill_enabled');
  if (chunked === 'True' || chunked === 'False') s.chunkedPrefill ??= fig(chunked === 'True');
}

/** "{'model_tag': 'x', 'max_model_len': 8192, 'gpu_memory_utilization': 0.65}" */
function readArgsDict(dict: string, c: Ctx): void {
  readArgs((key) => dict.match(new RegExp(String.raw`'${key}':\s*('([^']*)'|[^,}]+)`))?.[1]?.replace(/^'|'$/g, '').trim(), c);
}

/**
 * V0 api_server's (to 0.6) "args: Namespace(host=None, model='x', tensor_parallel_size=4,
 * gpu_memory_utilization=0.9, max_model_len=8192, block_size=16, ...)": every argument, the
 * defaults included (None where unset, which no reader takes), read as the 'non-default args' dict.
 */
function readArgsNamespace(args: string, c: Ctx): void {
  readArgs((key) => args.match(new RegExp(String.raw`(?:^|,\s*)${key}=('([^']*)'|[^,)]+)`))?.[1]?.replace(/^'|'$/g, '').trim(), c);
}

/** The server's arguments by their names: `val(key)` the value as written, quotes taken off. */
function readArgs(val: (key: string) => string | undefined, c: Ctx): void {
  const s = c.settings;
  const fig = c.fig;
  const int = (key: string): number | undefined => {
    const v = val(key);
    return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
  };
  const set = <K extends 'maxModelLen' | 'tensorParallelSize' | 'pipelineParallelSize' | 'dataParallelSize' | 'maxNumBatchedTokens' | 'maxNumSeqs' | 'blockSize'>(field: K, key: string) => {
    const v = int(key);
    if (v !== undefined) s[field] = fig(v);
  };
  set('maxModelLen', 'max_model_len');
  set('tensorParallelSize', 'tensor_parallel_size');
  set('pipelineParallelSize', 'pipeline_parallel_size');
  set('dataParallelSize', 'data_parallel_size');
  set('maxNumBatchedTokens', 'max_num_batched_tokens');
  set('maxNumSeqs', 'max_num_seqs');
  set('blockSize', 'block_size');
  const offload = val('cpu_offload_gb');
  if (offload !== undefined && Number.isFinite(Number(offload)) && Number(offload) > 0) s.cpuOffloadGib = fig(Number(offload));
  const kvBytes = int('kv_cache_memory_bytes');
  if (kvBytes !== undefined && kvBytes >= 1 && Number.isSafeInteger(kvBytes)) s.kvCacheMemoryBytes = fig(kvBytes);
  const kv = val('kv_cache_dtype');
  if (kv !== undefined) s.kvCacheDtype = fig(kv);
  const model = val('model');
  if (model !== undefined) s.model ??= fig(model);
  const hybridOff = val('disable_hybrid_kv_cache_manager');
  if (hybridOff === 'True' || hybridOff === 'False') s.hybridKvManagerDisabled = fig(hybridOff === 'True');
  const eager = val('enforce_eager');
  if (eager === 'True' || eager === 'False') s.enforceEager = fig(eager === 'True');
  const chunked = val('enable_chunked_prefill');
  if (chunked === 'True' || chunked === 'False') s.chunkedPrefill = fig(chunked === 'True');
  const util = val('gpu_memory_utilization');
  if (util !== undefined && Number.isFinite(Number(util))) c.figures.gpuMemoryUtilization ??= fig(Number(util));
}
