/**
 * The run result: what `attnscope bench --json FILE` writes, what the extension saves under
 * .attnscope/runs/, and what the dashboard draws (DESIGN.md "Run JSON"). Schema version 1.
 */
import type { CapacityCurve, LatencySummary } from './latency';
import type { Dtype, KernelBackendName, Profile, Severity } from '../config/types';
import type { Estimate } from '../estimate/types';

export const RUN_SCHEMA_VERSION = 1 as const;

/** The tool's name as every run's `tool` field starts ("attnscope 0.1.0"). */
export const TOOL_NAME = 'attnscope';

export type KernelName = 'flash_fwd' | 'paged_decode' | 'reference';

/** Shape of one case. Prefill: B, N_q = N_k = seqLen. Decode: B sequences of contextLen, one query each. */
export interface CaseShape {
  /** Sequences in the kernel call, a count. */
  batchSize: number;
  /** Query heads, a count. */
  numHeads: number;
  /** KV heads, a count. */
  numKvHeads: number;
  /** Head dimension, elements. */
  headDim: number;
  /** Query tokens per sequence (prefill: N; decode: 1). */
  seqLenQ: number;
  /** Key tokens per sequence (prefill: N; decode: context length). */
  seqLenK: number;
  /** True when each query attends only to keys at or before its position. */
  causal: boolean;
  /** Sliding window, tokens each query attends back to; null for full attention. */
  slidingWindow: number | null;
  /** Decode only: tokens per page. */
  pageSize?: number;
  /**
   * MLA decode only: the latent each token stores, kv_lora_rank + qk_rope_head_dim elements
   * (DeepSeek-V3: 512 + 64 = 576), which K and V both are and which is read once; the kernels run
   * it as MQA at headDim (mlaDecodeHeadDim), the bytes count the latent (runner/measure.ts attentionBytes).
   */
  mlaLatentDim?: number;
  /**
   * Set (> 1) when the model runs under tensor parallelism: the shape is one GPU's share, as vLLM
   * shards heads (numHeads = H / tp, numKvHeads = the H_kv / tp one GPU holds, at least 1:
   * core/estimate headsPerGpu, kvHeadsPerGpu), not the whole model's. Absent: one GPU, all heads.
   */
  tensorParallelSize?: number;
}

export interface KernelCase {
  /** The kernel timed. */
  kernel: KernelName;
  /** Where it ran: CPU or CUDA. */
  backend: KernelBackendName;
  /** The case's shape: batch, sequence or context lengths, heads, head dim, page size (CaseShape). */
  shape: CaseShape;
  /** The operands' dtype (Q, and K and V but for decode's kvDtype). */
  dtype: Dtype;
  /** KV dtype for decode (may differ from dtype). */
  kvDtype?: Dtype;
  /** Every timed repetition, nanoseconds. */
  samplesNs: number[];
  /** Median of the timed repetitions, nanoseconds. */
  medianNs: number;
  /** 10th percentile of the timed repetitions, nanoseconds. */
  p10Ns: number;
  /** 90th percentile of the timed repetitions, nanoseconds. */
  p90Ns: number;
  /** 4 · B · H · N_q · N_k_eff · D (N_k_eff from causal / window geometry). */
  flops: number;
  /** Decode: K + V bytes read (MLA: the latent, once) + Q + O; prefill: Q + K + V + O. */
  bytes: number;
  /** flops / medianNs (= GFLOP/s, SI). */
  gflops: number;
  /** bytes / medianNs (= GB/s, SI). */
  gbps: number;
  /**
   * Achieved / the roof that bounds the case on this machine (roofline: its compute peak where
   * flops / bytes is at or above the ridge point, else the read bandwidth; `ceiling` names it,
   * `bound` says which); null when unknown.
   */
  fractionOfPeak: number | null;
  /** Max |O − O_ref| against the fp64 reference on a reduced shape of this case. */
  maxAbsErr: number;
  /** Max |lse − lse_ref| (prefill; decode when the kernel returns lse). */
  lseMaxAbsErr: number | null;
  /** The reduced shape the correctness check ran on. */
  checkShape?: CaseShape;
  /** CPU cases: the SIMD path that ran (scalar | avx2 | avx512 | avx512bf16). */
  simdPath?: string;
  /** CPU cases: the unit doing the products (avx512-bf16 | fp32-fma | scalar), whose peak fractionOfPeak divides by. */
  productUnit?: string;
  /** Name of the ceiling fractionOfPeak divides by ("fp32 FMA peak", "DRAM read bandwidth", ...). */
  ceiling?: string;
  /** Which roof `ceiling` is: 'compute' (fractionOfPeak from gflops) or 'memory' (from gbps). */
  bound?: 'compute' | 'memory';
  /**
   * Decode: where each sequence's pages lie in the pool. 'consecutive': one run of pages per
   * sequence, as PageAllocator (like vLLM's free-block queue) hands them to prompts prefilled on
   * a fresh pool; 'scattered': a random permutation of the whole pool (a long-running pool).
   */
  pageOrder?: PageOrder;
  /**
   * CPU decode: its pages read alone (native timePagedRead: the same K and V bytes in block-table
   * order, with the read-bandwidth peak's loads and no arithmetic) on one thread, right after the
   * kernel's timed calls, B/s: `bytes` over its fastest call's CPU time, in rounds alternated with
   * {@link dramReadBytesPerSec}'s read (runner/readAlone.ts measureReadAlone; `attnscope bench` and
   * bench:kernels alike). Absent where not timed (flash, MLA, CUDA, the WebAssembly build, a case
   * at least as large as the DRAM read).
   */
  readAloneBytesPerSec?: number;
  /**
   * The DRAM read readAloneBytesPerSec is held against, B/s: pages of the same layout past every
   * cache (256 MiB, or 8x the last-level cache where known, up to 1 GiB, read a quarter a call so
   * each call's quarter was last read three quarters ago) read the same way, one thread, fastest
   * call by CPU time, in the same rounds. Absent where readAloneBytesPerSec is.
   */
  dramReadBytesPerSec?: number;
  /**
   * Why its fraction of the DRAM read peak is not a DRAM figure (core/format.ts fromCacheBy), an
   * enum: 'cache-size' (its bytes are at most Environment.lastLevelCache), 'read-rate' (its pages
   * read alone came at more than 1.5x the DRAM read timed with it, readAloneBytesPerSec over
   * dramReadBytesPerSec), 'both'. Absent where neither holds or neither is known.
   */
  fromCache?: 'cache-size' | 'read-rate' | 'both';
}

/** Block-table orders a decode case is timed with (KernelCase.pageOrder). */
export type PageOrder = 'consecutive' | 'scattered';

/** What was measured about the machine, so that two runs can be compared. */
export interface Environment {
  /** The OS (Node's os.platform() and release). */
  os: string;
  /** The CPU architecture (Node's process.arch: 'x64', 'arm64'). */
  arch: string;
  /** The CPU model name the OS reports. */
  cpuModel: string;
  /**
   * The CPU's generation where its name may not tell it (core/machine.ts cpuSignature): x86
   * "family 25 model 17" (Zen 4), Arm "implementer 0x41 part 0xd0c"; absent where the OS does not
   * say (macOS, Windows) and in runs written before s39.
   */
  cpuSignature?: string;
  /** Logical CPUs the OS reports, a count. */
  cpuCores: number;
  /**
   * Highest SIMD path the kernels used: 'avx512' | 'avx2' | 'neon' | 'scalar' | ...; '' when not
   * known: a run the editor put together itself after the runner ended without a result
   * (cancelled or failed), which never heard the runner's machine report.
   */
  simd: string;
  /** CPU features that matter (avx512f, avx512_bf16, avx512_fp16, amx_bf16, ...). */
  cpuFeatures: string[];
  /** Threads the CPU kernels ran on, a count. */
  threads: number;
  /** The SIMD path and product unit the CPU kernels take per (kernel, operand dtype), chosen once per process. */
  simdDispatch?: Array<{
    /** The CPU kernel: 'flash_fwd' (prefill's FlashAttention forward) or 'paged_decode' (PagedAttention decode). */
    kernel: 'flash_fwd' | 'paged_decode';
    /** The operand dtype the choice is for: 'fp32', 'fp16' or 'bf16'. */
    dtype: 'fp32' | 'fp16' | 'bf16';
    /** The SIMD path taken, as the native build names it: "scalar", "avx2", "avx512", "avx512bf16", "amx", "amx-model", "simd128", "neon". */
    path: string;
    /** The unit that does its products, whose peak its FLOP rate is divided by: "amx-bf16" (TDPBF16PS), "avx512-bf16" (vdpbf16ps), "fp32-fma" (vector FMA; bf16 / fp16 widened first), "scalar". */
    unit: string;
  }>;
  /** How simdDispatch was chosen (ATTNSCOPE_SIMD, the table of known CPUs, or the calibration's figures). */
  simdDispatchReason?: string;
  /**
   * ATTNSCOPE_SIMD when the run had it set: `value` as set, `applied` whether the kernels took the
   * path it names, `warning` why it was ignored (no such path, or a path this CPU lacks). Absent when unset.
   */
  simdOverride?: {
    /** ATTNSCOPE_SIMD as set, spaces trimmed (e.g. "avx2", "AVX2", "amx"). */
    value: string;
    /** Whether the kernels took the path it names (false: it was ignored, and `warning` says why). */
    applied: boolean;
    /** One sentence naming this CPU's paths, when the value was ignored. */
    warning?: string;
  };
  /** Build of the CPU kernels, allocator and simulator: the native addon, or the WebAssembly module (one thread). */
  nativeBuild?: 'native' | 'wasm';
  /** Why the WebAssembly module ran: ATTNSCOPE_BACKEND=wasm, or why the native addon did not load. */
  nativeBuildReason?: string;
  /** 1, 5 and 15 minute load averages when the environment was measured (os.loadavg()). */
  loadAverage?: [number, number, number];
  /**
   * The last-level cache a core of this run sits in (native/peaks.ts cpuFeatures, one reader):
   * Linux's sysfs for cpu0 (cache/index<N>: the data or unified cache of the highest level, "32768K"
   * = 33554432 bytes), else CPUID's deterministic cache leaves (AMD 0x8000001D, Intel 4), which
   * describe the cache the core sits in (a Zen CCX's 32 MiB L3), not a host socket's sum. Absent
   * where neither says (other OSes; guests whose sysfs lists no caches and whose CPUID hides those
   * leaves) and in runs saved before s50: unknown, and no case is marked by its size.
   */
  lastLevelCache?: {
    /** The cache's level, a count (3 for an L3). */
    level: number;
    /** Its size, bytes (sysfs "32768K" = 33554432). */
    bytes: number;
    /** Where the size came from: 'sysfs' (Linux's cache folder) or 'cpuid' (the CPU's cache leaves); absent in runs saved in s50 (sysfs). */
    source?: 'sysfs' | 'cpuid';
  };
  /** The Node.js version the runner ran on. */
  nodeVersion: string;
  /** AttnScope's build: its version + a hash of the runner bundle and native build ('+source' under tsx). */
  toolVersion: string;
  /** The GPU the CUDA kernels ran on, as the driver reports it; absent on a CPU-only run. */
  gpu?: {
    /** The GPU's name as the CUDA driver reports it ("NVIDIA H100 80GB HBM3"). */
    name: string;
    /** Streaming multiprocessors, a count. */
    smCount: number;
    /** Device memory, bytes. */
    memoryBytes: number;
    /** The CUDA version the driver supports, as cudaDriverGetVersion gives it: 1000 · major + 10 · minor, written as text ("13000" for 13.0). */
    driver: string;
    /** The CUDA runtime version the native library was built with, as cudaRuntimeGetVersion gives it ("12040" for 12.4). */
    runtime: string;
    /** SM clock the driver reports, MHz. */
    clockMhz?: number;
    /** Memory clock the driver reports, MHz. */
    memClockMhz?: number;
  };
  /** Peaks measured by the runner (FLOP/s and bytes/s, SI). */
  peaks?: {
    /** The CPU's measured fp32 peak, all threads, FLOP/s. */
    fp32FlopsPerSec?: number;
    /** The CPU's measured AMX bf16 peak, all threads, FLOP/s; absent without AMX. */
    bf16AmxFlopsPerSec?: number;
    /** The CPU's measured memory read bandwidth, all threads, bytes/s. */
    readBytesPerSec?: number;
    /** The GPU's dense bf16 tensor-core peak, computed from its SM count and clock (native/cuda.ts). */
    gpuFlopsPerSec?: number;
    /** The GPU's fp32 (non-tensor) peak, the datasheet's of its row in core/estimate/gpus.ts (computePeak 'fp32'); absent for a GPU not in the table. */
    gpuFp32FlopsPerSec?: number;
    /** The GPU's measured device-to-device copy bandwidth, bytes/s. */
    gpuCopyBytesPerSec?: number;
    /** AVX512-BF16 (vdpbf16ps) peak, FLOP/s: the bf16 ceiling of CPUs without AMX. */
    avx512Bf16FlopsPerSec?: number;
    /**
     * For each CPU peak: how it was measured, or "unavailable: <why>" when it is absent.
     * @entry How the {key} peak was measured (threads, instruction, buffer size), or "unavailable: <why>" when that peak is absent.
     */
    notes?: Partial<Record<'fp32FlopsPerSec' | 'bf16AmxFlopsPerSec' | 'avx512Bf16FlopsPerSec' | 'readBytesPerSec', string>>;
  };
}

export interface PoolSample {
  /** Simulated time, seconds. */
  t: number;
  /** Pages holding at least one token of a running sequence. */
  pagesUsed: number;
  /** Pages held only by the prefix cache (evictable). */
  pagesCached: number;
  /** Pages neither used nor cached, a count. */
  pagesFree: number;
  /** Token slots filled. */
  tokens: number;
  /** Allocated-but-unfilled slots / allocated slots. */
  internalFragmentation: number;
  /** Sequences holding KV (scheduled or between steps). */
  running: number;
  /** Requests queued for admission, preempted ones included. */
  waiting: number;
  /** Of the waiting, those preempted (their KV freed, to be recomputed). */
  preempted: number;
  /** Cumulative prefix-cache hit rate (hit tokens / prompt tokens looked up). */
  prefixHitRate: number;
  /**
   * Preemptions so far, this step's included: counted by the simulator over every step, not only
   * the sampled ones, so any thinning keeps it right and the last sample's equals the summary's
   * `preemptions` (vLLM's counter `vllm:num_preemptions`, scraped as `vllm:num_preemptions_total`).
   * Absent in runs saved before it was kept.
   */
  preemptions?: number;
}

export interface PoolSummary {
  /** Requests in the workload, a count. */
  requests: number;
  /** Requests that finished, a count. */
  completed: number;
  /** Requests that could never be served (prompt >= max_model_len, or larger than the pool); completed + rejected = requests. */
  rejected: number;
  /** Admitted requests that had to wait for memory at least once (pages short of the watermark). */
  delayed?: number;
  /** Modelled time from 0 to the last request's end, seconds. */
  simulatedSeconds: number;
  /** Fraction 0-1 of the pool's pages holding a running sequence's tokens (pagesUsed / pages), time-averaged. */
  meanOccupancy: number;
  /** Largest fraction 0-1 of the pool's pages holding a running sequence's tokens at once. */
  peakOccupancy: number;
  /** Mean internal fragmentation (waste inside allocated pages). */
  meanInternalFragmentation: number;
  /** Fraction of reserved slots (pages held · page_size) holding a token, time-averaged. */
  usefulTokenFraction: number;
  /** Times a running request was preempted for memory, a count. */
  preemptions: number;
  /** KV tokens preemptions dropped, to be recomputed. */
  preemptedTokens?: number;
  /** Of those, found again in the prefix cache (the request's own pages, not yet evicted). */
  preemptedTokensCached?: number;
  /** Prefix-cache hits shared between requests / prompt tokens at first admission. */
  prefixHitRate: number;
  /** Requests left waiting after each step's admissions, time-averaged and at most (a request that arrives during a step and is admitted at the next is not counted; its wait is in the queueing delay). */
  meanWaiting?: number;
  /** Most requests left waiting after a step's admissions, a count. */
  peakWaiting?: number;
  /** Completed requests' output tokens / 0 s to the last request's end, tokens/s: `vllm bench serve`'s output_throughput, the same figure as latency.outputTokensPerSec (runner/simulate/latency.ts; runs saved before session 41: tokens generated / the end of the last step). */
  throughputTokensPerSec: number;
  /**
   * Running sequences, time-averaged and at most. Under data parallelism (PoolResult.dataParallel)
   * per engine, as the waiting and occupancy figures: the mean over the engines (in runs before s41
   * the sum, beside a peak of one engine: "mean running 302.0, peak running 291"), the peak the
   * busiest engine's; the request counts, preemptions and throughput are over all engines.
   */
  meanConcurrency: number;
  /** Most requests running at once, a count. */
  peakConcurrency: number;
}

/**
 * The tensor-parallel all-reduce coefficients: one declaration for a run's step time
 * (StepTimeModel), a stage's (StageStepTime) and the simulator's config (native/simulator.ts
 * ServingSimConfig).
 */
export interface AllReduceStepTime {
  /**
   * Tensor parallelism (runner/simulate/step-time.ts allReduceWork): the step's all-reduces, added
   * after the max (not overlapped): allReduceS per step (the calls' latency) + T · perTokenAllReduceS
   * (their two-shot / ring bytes per scheduled token over the interconnect), or T ·
   * perTokenOneShotAllReduceS for a step of T <= oneShotAllReduceTokens tokens (vLLM's one-shot
   * kernel), or T · perTokenMultimemAllReduceS for one of multimemAllReduceMinTokens ..
   * multimemAllReduceMaxTokens tokens (H100 / H200 in bf16 at tp 4, 6, 8: vLLM's symmetric-memory
   * multimem all-reduce), or ringAllReduceS + T · perTokenRingAllReduceS for one of
   * ringAllReduceMinTokens tokens or more (NCCL's ring on messages past the 4 MiB the small-message
   * fit covers, at its large-message bus bandwidth: step-time.ts ALL_REDUCE_EFFICIENCY.ring, or
   * since s49 its NVLink SHARP all-reduce's on H100 SXM / H200 at 5-8 GPUs, step-time.ts
   * nvlsAllReduce; and its calls' latency, the ring's 2 · (tp − 1) steps: RING_STEP_LATENCY_S, or since s50
   * NVLS's own, GpuSpec.nvlsAllReduceLatencyS). Each absent at tp 1
   * and in runs saved before them, which charged no all-reduce (or, before the ring band, the ring
   * at perTokenAllReduceS whatever its size; before ringAllReduceS, the ring band at allReduceS)
   * and replay so: 0, ringAllReduceS allReduceS's. Under pipeline parallelism a stage's rates are
   * its own layers', its token bands the model's.
   */
  allReduceS?: number;
  /** Two-shot / ring all-reduce bytes per scheduled token / interconnect bandwidth, seconds per token (see allReduceS). */
  perTokenAllReduceS?: number;
  /** One-shot all-reduce, seconds per scheduled token, for steps of at most oneShotAllReduceTokens tokens. */
  perTokenOneShotAllReduceS?: number;
  /** Largest step, tokens, that uses the one-shot all-reduce. */
  oneShotAllReduceTokens?: number;
  /** Multimem (symmetric-memory) all-reduce, seconds per scheduled token, for steps in its token band. */
  perTokenMultimemAllReduceS?: number;
  /** Smallest step, tokens, in the multimem all-reduce's band. */
  multimemAllReduceMinTokens?: number;
  /** Largest step, tokens, in the multimem all-reduce's band. */
  multimemAllReduceMaxTokens?: number;
  /** NCCL ring (or NVLS) all-reduce at its large-message bandwidth, seconds per scheduled token, for steps of ringAllReduceMinTokens or more. */
  perTokenRingAllReduceS?: number;
  /** Smallest step, tokens, in the ring all-reduce's band. */
  ringAllReduceMinTokens?: number;
  /** The ring band's all-reduce calls' latency per step, seconds. */
  ringAllReduceS?: number;
}

/**
 * The step-time coefficients, seconds per unit, of the roofline {@link StepTimeModel} states: the
 * fields a run's step time and the native simulator's config (native/simulator.ts
 * ServingSimConfig) share, one list of fields (native imports core's types, never the reverse).
 * An optional one absent costs what its comment says (the addon's defaults: native/src/napi/simulator.cc).
 */
export interface StepTimeCoefficients {
  /** Fixed cost per step (profile step_time.overhead_ms), seconds. */
  perStepS: number;
  /** Weights read every step: all but the routed experts' and the two below (dense models: all), plus those device.cpu_offload_gb keeps in CPU memory read over the host link (StepWork hostReadS). */
  weightsS: number;
  /**
   * MLA W8A8 (a quantized kv_b_proj): the 16-bit copies of its halves W_UK_T / W_UV, which only a
   * step with a decode token reads (vLLM's forward_mqa), and the quantized kv_b_proj, which only a
   * step with a prefill chunk reads (forward_mha), bytes per GPU / effective bandwidth. Absent
   * otherwise and in runs saved before them (then in weightsS, read every step).
   */
  decodeWeightsS?: number;
  /** The quantized kv_b_proj (MLA W8A8), read only by a step with a prefill chunk, bytes per GPU / effective bandwidth, seconds; absent otherwise. */
  prefillWeightsS?: number;
  /**
   * MoE: all routed experts' weights; a step of T tokens reads the expected share
   * 1 − (1 − k/E)^T of them, uniform routing assumed (modelled). Absent for dense models.
   */
  expertWeightsS?: number;
  /** MoE: routed experts per layer E (num_experts) and experts per token k (num_experts_per_tok). */
  numExperts?: number;
  /** Experts per token k (num_experts_per_tok), a count. */
  numExpertsPerTok?: number;
  /** Full-attention layers' KV bytes per token / effective bandwidth (every attention layer without a window). */
  perKvTokenS: number;
  /** The linear layers but lm_head (in runs saved before perLogitsS: with it): FLOPs per scheduled token / effective FLOP/s. */
  perTokenS: number;
  /**
   * A decode token's (a one-token chunk's) linear layers / effective FLOP/s, where it differs from
   * perTokenS: an MLA W8A8 checkpoint, whose decode multiplies by bf16 copies of kv_b_proj's halves
   * (vLLM has no quantized bmm's for W_UK_T and W_UV), so kv_b_proj runs at the dtype's peak, not
   * the fp8 / int8 one (runner/simulate/step-time.ts). Absent otherwise and in runs saved before
   * it: decode tokens then cost perTokenS.
   */
  perDecodeTokenS?: number;
  /**
   * MLA: kv_b_proj's FLOPs per context token of a prefill chunk (2 · kv_lora_rank · H / tp ·
   * (qk_nope_head_dim + v_head_dim) per layer; the tokens computed before the chunk, cached or
   * earlier chunks, which vLLM's _compute_prefill_context up-projects from the latent again) /
   * effective FLOP/s. Absent for other models and in runs saved before it (then not charged).
   */
  perPrefillContextTokenS?: number;
  /**
   * MLA: the bytes per GPU a prefill chunk's context token moves beyond its latent's read (its
   * up-projected K and V written by kv_b_proj, concatenated and read by the attention kernel;
   * runner/simulate/step-time.ts mlaContextKvBytes) / effective bandwidth. Absent for other models
   * and in runs saved before it (then not charged).
   */
  perPrefillContextKvS?: number;
  /**
   * Recurrent-state layers (Mamba, Mamba-2, Gated DeltaNet, lightning attention, short conv): one
   * sequence's state bytes per GPU (core/estimate mambaStateBytesPerSequence), read and written
   * once per request scheduled in a step, a decode token or a prefill chunk alike: 2 · bytes /
   * effective bandwidth (runner/simulate/step-time.ts). Absent without such layers and in runs
   * saved before it (then not charged).
   */
  perRequestStateS?: number;
  /**
   * lm_head's FLOPs per logits row (2 · vocab_size · hidden_size / tp) / effective FLOP/s: vLLM
   * computes logits once per request scheduled in a step (its last scheduled token:
   * gpu_model_runner.py logits_indices), not per token. Absent in runs saved before it (lm_head
   * then in perTokenS).
   */
  perLogitsS?: number;
  /**
   * Full-attention layers' FLOPs per query-key pair of a prefill chunk's queries (a chunk of more
   * than one token) / effective FLOP/s; decode queries' too when perDecodePairS is absent.
   */
  perPairS: number;
  /**
   * MLA models (DeepSeek-V2/V3, Kimi K2): the full-attention layers' FLOPs per query-key pair of a
   * decode query (a one-token chunk, which vLLM runs in MLA's absorbed form over the latent:
   * runner/simulate/step-time.ts pairFlopsPerHead) / effective FLOP/s. Absent for other models
   * (the same cost as perPairS) and in runs saved before it: decode pairs then cost perPairS.
   */
  perDecodePairS?: number;
  /** The sliding-window (or chunked) layers' KV bytes per token and FLOPs per query-key pair, as perKvTokenS and perPairS; absent without them. */
  perSlidingKvTokenS?: number;
  /** Sliding-window layers' FLOPs per query-key pair / effective FLOP/s, seconds per pair. */
  perSlidingPairS?: number;
}

/**
 * Modelled seconds of one serving step (one forward pass), a roofline
 * (runner/simulate/step-time.ts): perStepS + max(weightsS + decodeWeightsS [a decode token scheduled]
 * + prefillWeightsS [a prefill token scheduled] + expertWeightsS · (1 − (1 − k/E)^T)
 * + perKvTokenS · KV tokens attended + perSlidingKvTokenS · KV tokens attended in the window
 * + perRequestStateS · requests scheduled + perPrefillContextKvS · context tokens of the prefill chunks, perTokenS · T tokens scheduled (perDecodeTokenS for the decode tokens among them) + perPrefillContextTokenS ·
 * context tokens of the prefill chunks + perLogitsS · requests scheduled + perPairS · query-key pairs attended by prefill chunks +
 * perDecodePairS · query-key pairs attended by decode tokens + perSlidingPairS · query-key pairs
 * attended in the window). perKvTokenS, perPairS and perDecodePairS are the full-attention
 * layers' (whole context); the sliding-window layers' are apart, each query reading at most
 * slidingWindow tokens, or, for Llama 4's chunked local attention (attentionChunkSize set instead),
 * only its own chunk's keys (native/src/pool/simulator.h StepTimeModel). A run saved before the
 * split has no sliding fields and counted every attention layer at the whole context; one saved
 * before attentionChunkSize counted chunked layers as a sliding window of the chunk (an upper bound);
 * one saved before perDecodePairS charged decode pairs at perPairS, and replays so (an MLA model's
 * perPairS was then 4 · head_dim FLOPs per pair and head for both: 768 for DeepSeek-V3, where vLLM
 * runs 640 in prefill and 2,176 in decode); one saved before perLogitsS charged lm_head in
 * perTokenS, for every scheduled token, and replays so; one saved before perPrefillContextTokenS and
 * perDecodeTokenS charged no MLA context up-projection and every token at perTokenS, and replays so;
 * one saved before perRequestStateS read no recurrent state, and one saved before
 * perPrefillContextKvS moved no MLA context K/V beyond the latent's read, one saved before
 * decodeWeightsS / prefillWeightsS read an MLA W8A8 checkpoint's kv_b_proj and its copies every step
 * (in weightsS); all replay so. Under tensor parallelism the all-reduces add allReduceS + T ·
 * perTokenAllReduceS (perTokenOneShotAllReduceS for T <= oneShotAllReduceTokens) after the max.
 */
export interface StepTimeModel extends AllReduceStepTime, StepTimeCoefficients {
  /** The sliding-window layers' window in tokens; absent when the model has none. */
  slidingWindow?: number;
  /** Llama 4: the chunked local-attention layers' chunk (attention_chunk_size) in tokens, whose the perSliding* fields then are; absent when the model has none. */
  attentionChunkSize?: number;
  /** The GPU row (core/estimate/gpus.ts) whose peaks the coefficients divide by. */
  gpu?: string;
  /**
   * That GPU's figures as the coefficients used them, each with where it comes from, so that a
   * comparison of two runs can say what each was modelled with (s41 newcomer-ed F5 c). Absent in
   * runs saved before it and for coefficients given outright (simulate's stepTime option).
   */
  gpuFigures?: GpuFigures;
  /** Achieved fraction (0, 1] of the compute peak the FLOP coefficients assume. */
  computeEfficiency?: number;
  /** Achieved fraction (0, 1] of the memory bandwidth the byte coefficients assume. */
  memoryEfficiency?: number;
  /** Which of the profile's step_time keys were assumed (not in the profile), by their profile names: compute_efficiency, memory_efficiency, overhead_ms, and under tensor or pipeline parallelism those of all_reduce the model uses (all_reduce.latency_us, all_reduce.efficiency.two_shot, .one_shot, .multimem). */
  assumed?: string[];
  /** What the formula leaves out for this profile, in words (under tensor parallelism: the all-reduce paths it does not model). */
  unmodelled?: string[];
  /**
   * Coefficients measured from this tool's CUDA kernel timings (simulate --calibrate RUN.json,
   * runner/simulate/calibrate-kernels.ts); the other coefficients stay modelled.
   */
  measured?: MeasuredCoefficient[];
  /**
   * Pipeline parallelism (device.pipeline_parallel_size > 1): each stage's coefficients, in pp-rank
   * order, for its own layers (the fields above are then their sums); a batch runs through the
   * stages in turn, up to pp batches in flight (native/src/pool/simulator.h "Pipeline parallelism").
   * Absent at pipeline_parallel_size 1.
   */
  stages?: StageStepTime[];
  /** Seconds a stage takes to send one scheduled token's hidden states to the next (modelled: runner/simulate/step-time.ts stageSendPerTokenS). With stages. */
  stageSendPerTokenS?: number;
  /** Where the coefficients come from, in words. */
  source: string;
}

/**
 * Where a GPU figure comes from: 'datasheet', the GPU table's row, copied from the vendor's
 * published figures its source names (a datasheet; the H20's resellers' specifications, the RTX
 * 4090's whitepaper: the source says which); 'user-given', a key of the GPU the profile describes
 * (device.gpu as an object); 'derived', a figure that GPU's keys left out, taken from another (fp32
 * or int8 at bf16_tflops, the link at PCIe's x16 rate: core/estimate/gpus.ts userGpu).
 */
export type GpuFigureOrigin = 'datasheet' | 'user-given' | 'derived';

/** A GPU's peak figures as a step-time model divided by them (core/estimate/gpus.ts GpuSpec), SI units. */
export interface GpuFigures {
  /** Peak memory bandwidth, bytes/s. */
  memoryBytesPerSec: number;
  /** Where memoryBytesPerSec comes from. */
  memoryOrigin: GpuFigureOrigin;
  /** The dense peak the attention FLOPs and the unquantized linear layers divide by, FLOP/s, and its name ("bf16 peak", "fp32 peak": gpus.ts computePeak). */
  computeFlopsPerSec: number;
  /** Which peak computeFlopsPerSec (FLOP/s) is, in words ("bf16 peak", "fp32 peak"). */
  computePeak: string;
  /** Where computeFlopsPerSec comes from. */
  computeOrigin: GpuFigureOrigin;
  /** A W8A8 checkpoint's quantized GEMMs' dense peak, FLOP/s (OP/s for int8), and its name ("fp8 peak", "int8 peak": gpus.ts quantizedGemmPeak); absent otherwise. */
  gemmFlopsPerSec?: number;
  /** Which peak gemmFlopsPerSec (FLOP/s; OP/s for int8) is, in words ("fp8 peak", "int8 peak"). */
  gemmPeak?: string;
  /** Where gemmFlopsPerSec comes from. */
  gemmOrigin?: GpuFigureOrigin;
  /** The link the tensor-parallel all-reduces cross (GpuSpec.interconnect) and its bandwidth a direction, bytes/s. */
  interconnect: string;
  /** That link's bandwidth, one direction, bytes/s. */
  interconnectBytesPerSec: number;
  /** Where interconnectBytesPerSec comes from. */
  interconnectOrigin: GpuFigureOrigin;
  /** Where the peaks are copied from, in words (GpuSpec.source, or the fp32 / low-precision source of the peak used). */
  source: string;
  /** Where the link's figures are copied from, in words (GpuSpec.interconnectSource). */
  interconnectSource: string;
}

/** One pipeline stage's step-time coefficients (seconds per unit, as StepTimeModel's fields of the same names; its all-reduce rates its own layers', its token bands the model's). */
export interface StageStepTime extends AllReduceStepTime {
  /** Fixed cost per step, seconds. */
  perStepS: number;
  /** Weights read every step / effective bandwidth, seconds. */
  weightsS: number;
  /** All routed experts' weights / effective bandwidth, seconds (0 for dense models). */
  expertWeightsS: number;
  /** Full-attention layers' KV bytes per token / effective bandwidth, seconds per KV token attended. */
  perKvTokenS: number;
  /** Linear layers but lm_head, seconds per scheduled token. */
  perTokenS: number;
  /** lm_head's FLOPs per logits row / effective FLOP/s, seconds per request scheduled. */
  perLogitsS: number;
  /** Full-attention layers' FLOPs per query-key pair of a prefill chunk / effective FLOP/s, seconds per pair. */
  perPairS: number;
  /** Full-attention layers' FLOPs per query-key pair of a decode query / effective FLOP/s, seconds per pair. */
  perDecodePairS: number;
  /** Sliding-window layers' KV bytes per token / effective bandwidth, seconds per KV token attended in the window. */
  perSlidingKvTokenS: number;
  /** Sliding-window layers' FLOPs per query-key pair / effective FLOP/s, seconds per pair. */
  perSlidingPairS: number;
  /** As StepTimeModel's: absent but for an MLA W8A8 checkpoint (and in runs saved before it), then perTokenS. */
  perDecodeTokenS?: number;
  /** As StepTimeModel's: absent but for MLA (and in runs saved before it), then 0. */
  perPrefillContextTokenS?: number;
  /** As StepTimeModel's: absent but for a stage with recurrent-state layers (and in runs saved before it), then 0. */
  perRequestStateS?: number;
  /** As StepTimeModel's: absent but for MLA (and in runs saved before it), then 0. */
  perPrefillContextKvS?: number;
  /** As StepTimeModel's: absent but for an MLA W8A8 checkpoint (and in runs saved before them), then 0. */
  decodeWeightsS?: number;
  /** As StepTimeModel's: the quantized kv_b_proj read by a step with a prefill chunk, seconds; absent but for an MLA W8A8 checkpoint, then 0. */
  prefillWeightsS?: number;
}

/** A step-time coefficient derived from kernel timings: t = fixedS + x / rate over the kernel's cases. */
export interface MeasuredCoefficient {
  /** The step-time coefficient the fit gives. */
  coefficient: 'perPairS' | 'perKvTokenS';
  /** The kernel whose cases it is fitted on. */
  kernel: 'flash_fwd' | 'paged_decode';
  /** Marginal FLOP/s (flash_fwd) or bytes/s read (paged_decode). */
  rate: number;
  /** rate / ceiling: the GPU's published compute peak of the profile's dtype (flash_fwd) or memory bandwidth (paged_decode). */
  efficiency: number;
  /** The ceiling efficiency divides by, in words: 'bf16 peak', 'fp16 peak', 'fp32 peak' (gpus.ts computePeak) or 'bandwidth'. */
  ceiling: string;
  /** Seconds per kernel call the rate does not explain (not used by the model). */
  fixedS: number;
  /** Kernel cases the fit covers, a count. */
  cases: number;
  /** |fit − measured| / measured over the cases. */
  error: {
    /** Mean relative error over the cases, a fraction. */
    mean: number;
    /** Largest relative error over the cases, a fraction. */
    max: number;
  };
}

export interface PoolBaseline {
  /** The contiguous allocator compared: a slot of max_model_len per request, or of its prompt + output. */
  name: 'contiguous_max_model_len' | 'contiguous_prompt_plus_output';
  /** Fraction 0-1 of reserved slots holding a token, time-averaged. */
  usefulTokenFraction: number;
  /**
   * Free slots that the next request could not use because they were split into holes (first-fit
   * arena), while it waited, / all arena slots, time-averaged: ∫F dt / (arena slots · simulated
   * seconds) (runner/simulate/simulate.ts). A fraction of all slots, not of the free ones.
   */
  externalFragmentation: number;
  /** Reserved-but-unused slots / reserved slots. */
  internalFragmentation: number;
  /** Most requests running at once, a count. */
  peakConcurrency: number;
  /** Requests running, time-averaged (a mean count). */
  meanConcurrency: number;
  /** Requests rejected or made to wait for memory, a count. */
  rejectedOrDelayed: number;
}

/** The trace a simulation replayed (PoolLoad.trace): `attnscope simulate --trace FILE`, or the profile's workload.trace. */
export interface TraceReplay {
  /** The --trace argument as given, or workload.trace as the profile writes it. */
  path: string;
  /** Where the trace was named: the --trace flag, or the profile's workload.trace key (the editor's runs). Absent in runs saved before it: --trace. */
  from?: '--trace' | 'workload.trace';
  /** Seconds from the first arrival to the last, as recorded (before any --time-scale); absent in runs saved before it. */
  spanS?: number;
  /** Its absolute path. */
  resolvedPath: string;
  /** The format read (runner/simulate/traces.ts TraceFormat): detected from its first line, or --trace-format. */
  format: string;
  /** The unit its time stamps were read in: the format's own, or --trace-time-unit. */
  timeUnit: string;
  /** Rows read as requests. */
  rowsRead: number;
  /** Rows left out, by reason ("0 response tokens (failed)": 12); {} when none. */
  dropped: Record<string, number>;
  /** BurstGPT rows kept: --trace-model and --trace-log-type, when given. */
  filters?: {
    /** --trace-model: only the rows of this model (BurstGPT's Model column, e.g. "ChatGPT"). */
    model?: string;
    /** --trace-log-type: only the rows of this log type (BurstGPT's Log Type column, e.g. "Conversation log"). */
    logType?: string;
  };
}

/** What a trace holds (the server's hover on workload.trace; `attnscope trace FILE --json` prints it in a {@link TraceFile}). */
export interface TraceSummary {
  /** The format read (runner/simulate/traces.ts TraceFormat). */
  format: string;
  /** The column the arrivals were read from ("arrival_s", "TIMESTAMP"); null when the trace has none (a `vllm bench serve` result without start_times: arrivals from its request_rate). */
  timeColumn: string | null;
  /**
   * The unit that column's time stamps were read in, as --trace-time-unit spells it: 's' or 'ms'
   * (the format's own, or --trace-time-unit / workload.trace_time_unit), 'datetime' for Azure's
   * TIMESTAMP (a date and time, UTC); null without a column. Before s50 one text with the column,
   * "arrival_s, seconds" (s50 newcomer LOW-3).
   */
  timeUnit: 's' | 'ms' | 'datetime' | null;
  /** Rows read as requests. */
  requests: number;
  /** Seconds from the first arrival to the last, as recorded. */
  spanS: number;
  /** Mean prompt and output length of the requests, tokens. */
  meanPromptTokens: number;
  meanOutputTokens: number;
  /** Rows left out, by reason; {} when none. */
  dropped: Record<string, number>;
}

/**
 * The simulate flags that replay the trace a run replayed, as argv words (unquoted): `--trace`
 * with its absolute path, `--trace-format`, the BurstGPT filters, `--trace-time-unit` where the
 * run was given one (TraceReplay.timeUnit names it: runner/simulate/traces.ts readTraceFile) and
 * `--time-scale` where not 1. What the CLI's refusal of `simulate RUN.json` names (runner/cli.ts
 * checkSavedRunTrace) and what the dashboard's Run button passes the runner for such a run
 * (extension/dashboard.ts): `trace` the run's PoolLoad.trace, `timeScale` its PoolLoad.timeScale.
 */
export function traceReplayArgs(t: TraceReplay, timeScale: number): string[] {
  const args = ['--trace', t.resolvedPath, '--trace-format', t.format];
  if (t.filters?.model !== undefined) args.push('--trace-model', t.filters.model);
  if (t.filters?.logType !== undefined) args.push('--trace-log-type', t.filters.logType);
  // The unit as readTraceFile names it: the flag's (--trace-time-unit ms) or the profile key's (workload.trace_time_unit: ms).
  const unit = /\((?:--trace-time-unit |workload\.trace_time_unit: )(\w+)\)/.exec(t.timeUnit);
  if (unit) args.push('--trace-time-unit', unit[1]!);
  if (timeScale !== 1) args.push('--time-scale', String(timeScale));
  return args;
}

/**
 * The load a pool simulation ran: where its requests came from, at what rate, and whether the
 * modelled server kept up with it (runner/simulate/simulate.ts poolLoad). Absent in runs saved
 * before it.
 */
export interface PoolLoad {
  /**
   * 'trace': the requests of a trace (simulate --trace; `trace` says which): the profile's
   * workload requests, arrival_rate, prompt_len, output_len, prefix_sharing and seed were not
   * used, only its scheduler limits (max_num_seqs, max_model_len, max_num_batched_tokens);
   * 'workload': the profile's workload, drawn.
   */
  source: 'trace' | 'workload';
  /** Set when source is 'trace' and the run came from the CLI or the editor (not a sweep's or --max-rate's internal runs). */
  trace?: TraceReplay;
  /** The load multiplier applied: arrival times divided by it (--time-scale; under --max-rate the scale of the rate shown); 1: as recorded, or as arrival_rate. */
  timeScale: number;
  /** (requests − 1) / (last arrival − first arrival), requests/s, after timeScale; null when every request arrives at one instant. */
  offeredRequestsPerSec: number | null;
  /** Completed requests / (0 s to the last request's end), requests/s: `vllm bench serve`'s request_throughput (modelled; latency.requestsPerSec). */
  servedRequestsPerSec: number;
  /**
   * Requests waiting at the last arrival: taken in by a step that started at or before it and not
   * admitted by then (passed over by a step's admissions; ServingSimTimes.queuedS). One that arrived
   * during the step in flight, admitted at the next, is not counted (since s52), nor a rejected one.
   */
  waitingAtLastArrival: number;
  /** Those waiting at the middle of the arrivals (first arrival + span / 2), counted as at the last; absent when all arrive at one instant, and in runs saved before s43. */
  waitingAtMiddleArrival?: number;
  /**
   * Output tokens per completed request, mean over the run's requests (generated: output_len capped at
   * max_model_len − prompt_len; rejected ones left out): a drawn workload's sample of its output_len
   * distribution, a trace's own mean. What the steady output rate (core/format.ts steadyOutput)
   * multiplies a request rate by. Absent in runs saved before s44, and when nothing completed.
   */
  meanOutputTokens?: number;
  /**
   * Requests in flight (arrived, not finished: waiting or running) at the last arrival and at the
   * middle of the arrivals (absent when all arrive at one instant, and in runs saved before s44).
   * A run too short for its batch to fill holds an overload in its running batch, not its queue:
   * the in-flight count grows where the waiting one does not (core/format.ts formatLoad's "Cannot tell").
   */
  inFlightAtLastArrival?: number;
  /** Requests in flight at the middle of the arrivals, a count. */
  inFlightAtMiddleArrival?: number;
  /**
   * The waiting queue grew through the run: at the last arrival at least 2 were waiting, more than at
   * the middle of the arrivals, and either more than 5 % of the requests or more than at the middle by
   * over 2 · √(requests / 2) (runner/simulate/simulate.ts poolLoad). The server did not keep up, so the run has no steady
   * state: its TTFT and queueing delay grow with the number of requests replayed (core/format OVERLOAD).
   */
  overloaded: boolean;
  /**
   * The requests per data-parallel engine (requests / data_parallel_size), set only when below
   * core/format.ts OVERLOAD_MIN_SHARE (40): then no engine's share can show a queue, `overloaded`
   * is false (not judged), and the run cannot tell by itself whether the server keeps up
   * (core/format.ts tooShortToTell). At data_parallel_size 1 too since s49 (save a burst all at one
   * instant); absent when 40 or more an engine, and in runs saved before s45.
   */
  requestsPerEngine?: number;
  /**
   * The modelled server's saturated throughput μ, requests/s (runner/simulate/capacity.ts
   * saturatedThroughput; null when not measurable); set on sweep points (job simulate), by
   * simulate on a run too short to tell whether its server keeps up (core/format.ts tooShortToTell; s45),
   * and on a capacity search's answer (searchCapacity, with keepsUp judged on the rate it searched; s46).
   */
  saturatedRequestsPerSec?: number | null;
  /**
   * When μ was not measured by this run's own saturation run but reused from another run whose
   * profile differs only in what μ does not depend on (capacity.ts saturationKey: the workload's
   * requests and positive arrival_rate), which: "sweep point arrival_rate=10"; absent when measured here.
   */
  saturatedFrom?: string;
  /**
   * The server keeps up: the load's offered rate as measured (offeredRequestsPerSec; a capacity
   * search's answer: its searched rate) is at most saturatedRequestsPerSec, and the run is not
   * overloaded (capacity.ts checkKeepsUp, as --max-rate judges a rate); set with saturatedRequestsPerSec,
   * and false whenever `overloaded` (the text's Overloaded line; simulate.ts poolLoad), μ measured or not.
   */
  keepsUp?: boolean;
}

export interface PoolResult {
  /** The pool over time: pages used, cached and free, tokens, fragmentation, running and waiting sequences at sampled steps (at most the simulation's maxSamples, 2,000 unless given), for the dashboard's charts. */
  samples: PoolSample[];
  /** The pool's figures over the run: time-averaged occupancy, fragmentation, prefix hits, preemptions, rejections (PoolSummary). */
  summary: PoolSummary;
  /** The load simulated (absent in runs saved before it). */
  load?: PoolLoad;
  /** The same requests under contiguous allocation (max_model_len each, prompt + output each), for the allocation table; empty where they were not simulated (a capacity search's rates, a data-parallel pool's engines). */
  baselines: PoolBaseline[];
  /** Token slots per page (vLLM block_size), tokens. */
  pageSize: number;
  /** Pages in the simulated pool, a count. */
  numPages: number;
  /**
   * How the simulated pool relates to vLLM's where a block is not one block of every layer (a
   * hybrid KV-cache manager's groups), in words; absent when a page is one block of every layer.
   */
  poolLayout?: string;
  /**
   * Tokens the pool holds as vLLM's "GPU KV cache size: N tokens" counts them (core/estimate
   * poolTokens: blocks · page_size, a hybrid pool floor(blocks / groups) · page_size), the one
   * token figure of the pool (the estimate's pool.tokens); absent in runs saved before it (then
   * numPages · pageSize).
   */
  poolTokens?: number;
  /**
   * A hybrid pool's blocks (vLLM's num_gpu_blocks; every KV-cache group's blocks come from it); absent
   * otherwise. Runs saved since every group is charged have numPages = poolBlocks and poolGroups; older
   * runs simulated blocks / full-attention groups pages, the sliding-window groups uncharged.
   */
  poolBlocks?: number;
  /** A hybrid pool's KV-cache groups, full-attention and sliding-window together (absent otherwise). */
  poolGroups?: number;
  /** The step-time model the simulated clock used. */
  stepTime?: StepTimeModel;
  /** Per-request latency on that clock (modelled). */
  latency?: LatencySummary;
  /** The capacity search's walk (attnscope simulate --max-rate). */
  capacity?: CapacityCurve;
  /**
   * The modelled $ per million output tokens at the profile's device.gpu_hour_usd (core/format.ts
   * poolCost); absent without a price, with nothing served, and in runs saved before s44.
   */
  cost?: PoolCost;
  /**
   * device.data_parallel_size > 1: dp engines, each the profile's pool and scheduler, the requests
   * dispatched as vLLM's load balancer (runner/simulate/dataParallel.ts). Then latency and load are
   * over all requests, summary over all pools (integrals summed; peakOccupancy and the other peaks
   * the largest engine's, of its own pool), samples engine 1's (those of the others kept, DataParallelResult.sampledEngines, in their replicas), and baselines none. Absent at 1.
   */
  dataParallel?: DataParallelResult;
}

/**
 * PoolResult.cost: US dollars per million output tokens at a steady rate (core/format.ts poolCost):
 * gpuHourUsd × gpus / 3600 / outputTokensPerSec × 10^6, outputTokensPerSec = requestsPerSec ×
 * meanOutputTokens where `basis` is a steady rate (not 'run').
 */
export interface PoolCost {
  /** The user's price of one GPU-hour (device.gpu_hour_usd), US dollars. */
  gpuHourUsd: number;
  /** GPUs deployed: tensor_parallel_size × pipeline_parallel_size × data_parallel_size. */
  gpus: number;
  /** The modelled US dollars per million output tokens. */
  usdPerMillionOutputTokens: number;
  /** Output tokens per second the cost divides by (modelled). */
  outputTokensPerSec: number;
  /** The request rate it is made of, requests/s; absent for basis 'run'. */
  requestsPerSec?: number;
  /** Mean output tokens per request (PoolLoad.meanOutputTokens); absent for basis 'run'. */
  meanOutputTokens?: number;
  /**
   * Which rate: 'max-rate' the capacity search's max rate; 'offered' the load's rate, which the server
   * keeps up with; 'saturated' the saturated throughput μ, below the offered rate; 'run' the finite
   * run's own output tokens / (0 s to the last request's end), ramp-up and drain included (a load of one
   * instant, an overloaded or too-short run with no μ measured, a run saved before s44).
   */
  basis: 'max-rate' | 'offered' | 'saturated' | 'run';
}

/** PoolResult.dataParallel: each engine of a data-parallel simulation. */
export interface DataParallelResult {
  /** data_parallel_size: engines. */
  size: number;
  /**
   * Per engine, in rank order: requests dispatched to it, those it completed, its output tokens/s and
   * requests/s (latencySummary over its own requests, divided by the span {@link ratesSpan} says); its running
   * sequences time-averaged (over the same span) and at most, its peak waiting and peak occupancy of its own pool (absent
   * in runs before s41). `samples`: the pool samples of the engines {@link sampledEngines} names other
   * than engine 1, as PoolResult.samples, which are engine 1's (absent on engine 1, on the engines not
   * kept, and in runs before s42): the dashboard's pool and queue charts draw the engine picked
   * (s41 newcomer-ed F2: engine 1 only).
   */
  replicas: Array<{
    /** Requests routed to the engine, a count. */
    requests: number;
    /** Of those, completed, a count. */
    completed: number;
    /** Output tokens / the span, tokens/s. */
    outputTokensPerSec: number;
    /** Completed requests / the span, requests/s. */
    requestsPerSec: number;
    /** Running sequences, time-averaged over the span (a mean count). */
    meanConcurrency?: number;
    /** Most sequences running at once, a count. */
    peakConcurrency?: number;
    /** Most requests waiting after a step's admissions, a count. */
    peakWaiting?: number;
    /** Largest fraction 0-1 of its own pool's pages in use. */
    peakOccupancy?: number;
    /** The engine's pool over time, as PoolResult.samples; only for the engines kept (DataParallelResult.sampledEngines), absent for the others. */
    samples?: PoolSample[];
  }>;
  /**
   * The span each engine's rates and running mean divide by. 'run': the whole run's (0 s to the
   * last request's end of any engine, vllm bench serve's benchmark duration), so the engines' rates
   * sum to the run's, as vLLM's per-engine log lines share one logging interval. Absent (runs
   * before s42): each engine's own, 0 s to its own last request's end.
   */
  ratesSpan?: 'run';
  /**
   * The engines whose pool samples the run keeps, 0-based ranks in increasing order: engines 1 …
   * core/format DP_SAMPLED_ENGINES, 8 (all of them up to that size) and the busiest (the highest peak
   * occupancy of its own pool, the lowest rank among equals), so the run's size does not grow with dp
   * (s45 newcomer-ed N4: every engine's samples made a dp 1024 run 205 MB). Every engine's summary
   * row stays in `replicas`. Absent in runs before s45, which keep every engine's samples (from s42).
   */
  sampledEngines?: number[];
  /** GPUs of one engine: tensor_parallel_size × pipeline_parallel_size (core/format gpuCount; absent in runs before s41). */
  gpusPerEngine?: number;
  /** The dispatch rule, in words, with what it leaves out. */
  dispatch: string;
}

export type RunStatus = 'ok' | 'cancelled' | 'failed';

/**
 * How far the pool simulation of a bench cancelled during it got (RunResult.poolCancelled):
 * requests finished (completed or rejected) when the cancel was seen, of the workload's. The
 * partial pool is not kept: its figures would be of part of the workload.
 */
export interface PoolCancelled {
  /** Requests finished (completed or rejected) when the cancel was seen, a count. */
  finished: number;
  /** Requests in the workload, a count. */
  requests: number;
}

/**
 * What made a run: `attnscope bench` (kernel cases timed on this machine, and the pool simulation
 * when the profile has a workload) or `attnscope simulate` (the pool simulation alone: no kernel
 * cases, every time on its modelled step-time clock). Absent in runs saved before the field: bench.
 */
export type RunKind = 'bench' | 'simulate';

/** The kind of `run` (RunResult.kind; absent: bench). */
export function runKind(run: Pick<RunResult, 'kind'>): RunKind {
  return run.kind ?? 'bench';
}

/**
 * Whether a run goes into history: one that finished, and one that failed or was cancelled with
 * something to show (a kernel case, a pool simulation). A run that ended early with neither (its
 * runner crashed at start or found no kernels to load, or it was cancelled before its first case)
 * is no result: the dashboard shows it and the toast says nothing was measured, but History lists
 * only runs with data. (A refused run never gets this far: it is no run.)
 */
export function keptInHistory(run: Pick<RunResult, 'status' | 'cases' | 'pool'>): boolean {
  return run.status === 'ok' || run.cases.length > 0 || run.pool != null;
}

/**
 * `attnscope estimate --json`: the Estimate (core/estimate/types.ts), its fields at the top level
 * as before s35, after the header a run file opens with and `kind: 'estimate'`, so that a reader
 * dispatching on `kind` (a run's 'bench' | 'simulate', a sweep report's 'attnscope-sweep-report')
 * tells it apart (s34 newcomer-cli 8).
 */
export type EstimateFile = RunHeader & { kind: 'estimate' } & Estimate & { problems: RunProblem[] };

/**
 * `attnscope trace FILE --json`: the header every JSON file AttnScope writes opens with
 * ({@link runHeader}: `name` the trace's file name), `kind: 'trace'`, then the TraceSummary's
 * fields at the top level (s47 newcomer: it printed the summary alone, with no header).
 */
export type TraceFile = RunHeader & { kind: 'trace' } & TraceSummary;

/**
 * A warning or info about the profile (or the config.json it names, or a deployment vLLM would
 * refuse) that the CLI printed on stderr before the run, as `file:line:col: severity: message`
 * (runner/load.ts LoadedProfile.locate): the same list, so a reader of the JSON (a CI job, `| jq`)
 * sees what the terminal saw (s39 newcomer 13). `file` as the user typed it, or `stdin` for a
 * resolved Profile read there (no line or column then); line and column count from 1.
 */
export interface RunProblem {
  /** How bad the problem is. */
  severity: Severity;
  /** The problem's code (core/validate.ts, core/config): 'unknown-key', 'exceeds-max-model-len', ... */
  code: string;
  /** The problem, in words. */
  message: string;
  /** The file it is in, as given. */
  file: string;
  /** Line of the problem in its file, 1-based. */
  line?: number;
  /** Column of the problem in its line, 1-based. */
  column?: number;
}

/** The fields every run file opens with: a RunResult's and `npm run bench:kernels`' alike. */
export interface RunHeader {
  /** The run file's format version: 1. */
  schema: typeof RUN_SCHEMA_VERSION;
  /** "attnscope <version>". */
  tool: string;
  /** ISO 8601. */
  createdAt: string;
  /** Display name: the profile or config file name. */
  name: string;
}

export interface RunResult extends RunHeader {
  /** What made it (RunKind; absent: bench). */
  kind?: RunKind;
  /** The resolved profile the run used: model read, defaults filled (Profile). */
  profile: Profile;
  /** The machine that ran it: CPU, threads, SIMD paths, GPU, measured peaks, tool version (Environment). */
  environment: Environment;
  /** The memory estimate of the profile: weights, KV bytes per token, the page pool vLLM would allocate (Estimate). */
  estimate: Estimate;
  /** The attention kernel cases timed (bench), one per shape and backend; empty for simulate. */
  cases: KernelCase[];
  /** The page-pool simulation of the profile's workload (simulate, and bench with a workload); absent without one. */
  pool?: PoolResult;
  /**
   * `bench --quick`: what it shortened: the profile's case lists ("prefill.seq_lens [1024, 4096] -> [512]",
   * none when already quick), and last, always, the timing budget per case
   * ("timing per case until 30 samples and 0.2 s, at most 2 s -> until 10 samples and 0.1 s, at most 0.5 s").
   */
  quick?: {
    /** What --quick shortened, one line each (a case list "before -> after"), the timing budget per case last. */
    shortened: string[];
  };
  /**
   * The profile's warnings and infos the CLI printed before the run (RunProblem), in its order;
   * absent in runs before s39 and in runs the editor puts together (its Problems panel shows them).
   */
  problems?: RunProblem[];
  /** How the run ended: 'ok' (finished), 'cancelled' (stopped by the user; the figures so far kept), 'failed' (an error ended it). */
  status: RunStatus;
  /** A bench cancelled during its pool simulation (status 'cancelled', no `pool`): how far it got. */
  poolCancelled?: PoolCancelled;
  /** Set when status is 'failed' (or 'cancelled', by the extension: why it ended). */
  error?: string;
  /**
   * Set by the editor when the run's profile was its editor's unsaved text, not the file on disk
   * (profile.sourcePath) holds: the run is named "… (unsaved changes)" (extension/runName.ts
   * runName) and its Run button says it runs the file as it is then, since the text run is not
   * kept (s41 newcomer-ed F9). Absent: the file as saved (and in runs saved before it).
   */
  unsavedSource?: true;
  /**
   * Set by the editor: the SHA-256 (UTF-8, hex) of the text of profile.sourcePath the run started
   * from (the editor's text the server resolved; unsavedSource says when the file did not hold it),
   * so that the dashboard says when the profile was edited after the run started: its figures are
   * then of the earlier text (extension/profileEdited.ts; s44 newcomer-ed F3). Absent in the CLI's
   * runs and in runs saved before s45.
   */
  sourceSha256?: string;
  /**
   * Set by the editor: the SHA-256 (UTF-8, hex) of the text of the model's config.json
   * (profile.modelPath) the run started from, the editor's open text else the file's, so that the
   * dashboard says when that config was edited after the run started (extension/profileEdited.ts).
   * Absent when the profile is the config itself (sourceSha256 covers it), in the CLI's runs and in
   * runs saved before s46.
   */
  modelSha256?: string;
  /**
   * Where the run was made: 'cli' (attnscope bench/simulate --json) or 'editor' (the extension's
   * Run and Simulate), which History shows beside each run. Absent in runs saved before s52 (History
   * then says "editor" for a run with sourceSha256, which only the editor sets, and nothing otherwise).
   */
  origin?: RunOrigin;
}

/** Where a run was made (RunResult.origin). */
export type RunOrigin = 'cli' | 'editor';

/**
 * The header of a run file. `toolVersion` is the version of the program that made the run
 * (the runner's TOOL_VERSION; the extension's package.json version for the runs it assembles).
 */
export function runHeader(name: string, toolVersion: string, createdAt: Date = new Date()): RunHeader {
  return { schema: RUN_SCHEMA_VERSION, tool: `${TOOL_NAME} ${toolVersion}`, createdAt: createdAt.toISOString(), name };
}

/** What a run is made of; everything but the header fields. */
export interface RunParts {
  name: string;
  /** Default: none written (read as bench). */
  kind?: RunKind;
  toolVersion: string;
  /** When the run started (default: now). */
  createdAt?: Date;
  profile: Profile;
  environment: Environment;
  estimate: Estimate;
  /** Default: none yet (a bench pushes them as they finish; simulate has none). */
  cases?: KernelCase[];
  pool?: PoolResult;
  /** `bench --quick`: what it shortened (RunResult.quick). */
  quick?: { shortened: string[] };
  /** The profile's problems the CLI printed (RunResult.problems); default none written. */
  problems?: RunProblem[];
  /** Default 'ok'. */
  status?: RunStatus;
  error?: string;
}

/**
 * The one constructor of a RunResult: `attnscope bench` (file and stdin), `attnscope simulate
 * --json`, and the extension's run for a runner that ended without one all build it here, so a
 * run file has the same fields, in the same order, whoever wrote it.
 */
export function createRun(parts: RunParts): RunResult {
  const run: RunResult = {
    ...runHeader(parts.name, parts.toolVersion, parts.createdAt),
    ...(parts.kind ? { kind: parts.kind } : {}),
    profile: parts.profile,
    environment: parts.environment,
    estimate: parts.estimate,
    cases: parts.cases ?? [],
    ...(parts.pool ? { pool: parts.pool } : {}),
    ...(parts.quick ? { quick: parts.quick } : {}),
    ...(parts.problems ? { problems: parts.problems } : {}),
    status: parts.status ?? 'ok',
  };
  if (parts.error !== undefined) run.error = parts.error;
  return run;
}
