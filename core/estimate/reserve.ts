/**
 * What a serving engine subtracts from a device's memory before the rest becomes the KV pool,
 * term by term, as vLLM's start-up profiling measures it:
 *
 *   KV budget = total_gpu_memory · gpu_memory_utilization − weights − activation peak
 *               − non-torch memory − NCCL buffers (tensor parallel) − CUDA graphs (when counted)
 *
 * (vllm/v1/worker/gpu_worker.py determine_available_memory: requested_memory −
 * non_kv_cache_memory, where non_kv_cache_memory = weights + torch peak increase + non-torch
 * increase during the profiling run; the V0 worker.determine_num_available_blocks before it.)
 * Which of these vLLM counted changed across releases; `vllmVersion` picks the release's way.
 * Every term carries its source so a hover or the CLI can show where the figure comes from, and
 * every term but the weights (and the model's buffers, which vLLM counts with them) can be
 * overridden in the profile's `engine:` block.
 */
import type { EngineSpec } from '../config/types';

const GIB = 1024 ** 3;

export type ReserveKey = 'weights' | 'buffers' | 'activation' | 'nonTorch' | 'nccl' | 'cudaGraph';

/** One term of the device budget. */
export interface ReserveTerm {
  /** Which reserve: 'weights', 'buffers' (the model's non-parameter buffers, which vLLM counts with the weights), 'activation' (the profiling run's peak), 'nonTorch' (CUDA context and the like), 'nccl' (NCCL's buffers), 'cudaGraph' (captured graphs). */
  key: ReserveKey;
  /** The name vLLM's log uses for it ("model weights", "non_torch_memory", ...). */
  label: string;
  /** Bytes per GPU. */
  bytes: number;
  /** Whether the engine takes it out of the KV budget (CUDA graphs: not, by default). */
  subtracted: boolean;
  /** 'profile': engine.<key> in the profile; 'modelled': the formula or release figure below. */
  origin: 'profile' | 'modelled';
  /** A few words on what the figure rests on, for one line of CLI output ("vLLM >= 0.6.5 figure"). */
  basis: string;
  /** Where the figure or formula comes from, in full (hover, JSON). */
  source: string;
  /**
   * The figure rests on one measurement of one model at one tensor_parallel_size and is not
   * scaled to this one (vLLM 0.2.5-0.2.6's NCCL term): the estimate leaves it out rather than
   * let it alone leave no room for a KV cache (core/estimate/index.ts).
   */
  oneDataPoint?: boolean;
  /**
   * vLLM counted this term but no public figure gives its size for this model and
   * tensor_parallel_size (vLLM 0.2.7-0.6.4's NCCL term): bytes 0, not subtracted, so the KV pool is
   * an upper bound; engine.<key> in the profile, read from a real start-up log, sets it.
   */
  unknown?: boolean;
}

/** How a vLLM release counted memory outside torch's allocator during its profiling run. */
interface ProfilingEra {
  /** First release of the era (inclusive). */
  since: [number, number, number];
  name: string;
  /** The era in a few words, for one CLI line. */
  short: string;
  /** Non-torch bytes per GPU at tensor_parallel_size 1, and the extra a tensor-parallel rank adds. */
  nonTorchGib: number;
  ncclGib: number;
  /** ncclGib is one measured data point, not scaled by model or tensor_parallel_size. */
  ncclOneDataPoint?: boolean;
  /** The release counted NCCL's buffers, but no public figure sizes them: ncclGib is 0 and unknown. */
  ncclUnknown?: boolean;
  /** The NCCL figure's basis in a few words, where it differs from `short`. */
  ncclShort?: string;
  source: string;
}

/**
 * The eras, oldest first. Figures are vLLM's own, from the pull requests that changed the
 * profiling (page bytes: Llama-2-7B 16 · 524,288 B = 8 MiB, Llama-2-70B at TP 4: 16 · 81,920 B
 * = 1.25 MiB per block):
 * - before 0.2.5: only torch's peak allocation was counted; non-torch memory came out of the
 *   1 − gpu_memory_utilization headroom (PR #2031: peak use 77.5 GB at TP 4 against a 72 GiB cap).
 * - 0.2.5 (PR #2031, Dec 2023) to 0.2.6: peak = total − free after the profiling run,
 *   so the CUDA context, cuBLAS workspaces and NCCL buffers all counted. PR #2031's own figures:
 *   Llama-2-7B on one A100-80GB 7,449 -> 7,351 blocks (98 · 8 MiB = 0.77 GiB at TP 1); Llama-2-70B
 *   on 4 x A100-80GB 31,615 -> 20,865 blocks (10,750 · 1.25 MiB = 13.12 GiB, so 12.35 GiB more at
 *   TP 4). That 12.35 GiB is one data point (one model, TP 4, the torch of Dec 2023) and more than
 *   NCCL's buffers: issue #2150 (raised in PR #2031's review) shows the activation blocks
 *   torch.distributed.all_reduce's record_stream kept from reuse; PR #2151 "Fix all-reduce memory
 *   usage" (merged 17 Dec 2023, the day 0.2.6 was tagged; in 0.2.7 at the latest) set
 *   TORCH_NCCL_AVOID_RECORD_STREAMS=1 and cut Llama-70B TP 8's peak from 25.5 to 19.5 GiB. So the
 *   figure is applied for 0.2.5-0.2.6 as measured, said to be one data point, and left out where it
 *   alone would leave no KV cache.
 * - 0.2.7 to 0.6.4: still total − free after profiling (vllm/worker/worker.py
 *   determine_num_available_blocks: init_gpu_memory − free, later torch's peak plus
 *   "non_torch_allocations" = total − free − torch's current allocation, "NCCL operations, for
 *   example, can use a few GB during a forward pass"), so NCCL's and the custom all-reduce's
 *   buffers counted at TP > 1, but without the held activations that made PR #2031's 12.35 GiB.
 *   No public log of this range gives that figure against a TP 1 run of the same model, and it
 *   depends on NCCL's channels and protocols (NCCL_BUFFSIZE, the topology), not the model: it is
 *   unknown, not subtracted, and the pool is an upper bound until engine.nccl_gib is set from a
 *   real start-up log (attnscope vllm-log). The non-torch figure at TP 1 stays PR #2031's 0.77 GiB.
 * - 0.6.5 (PR #10511, #12126) and the V1 engine: only the non-torch *increase* during the
 *   profiling run counts (the CUDA context and NCCL set up before the baseline snapshot stay in
 *   the headroom). Logs print "non_torch_memory takes 0.01 to 0.35 GiB" at TP 1 (median of
 *   eleven public logs: 0.10 GiB) and 0.11 GiB (TP 2, A100) / 0.20 GiB (TP 4, 24 GB cards,
 *   PR #14447) with tensor parallelism: 0.1 GiB more per rank.
 */
const ERAS: readonly ProfilingEra[] = [
  { since: [0, 0, 0], name: 'vLLM < 0.2.5 (torch peak only)', short: 'vLLM < 0.2.5: not counted', nonTorchGib: 0, ncclGib: 0, source: 'vLLM before PR #2031: torch.cuda.max_memory_allocated() only' },
  { since: [0, 2, 5], name: 'vLLM 0.2.5 to 0.2.6 (total − free after profiling, all-reduce inputs held)', short: 'vLLM 0.2.5-0.2.6 figure, PR #2031', nonTorchGib: 0.77, ncclGib: 12.35, ncclOneDataPoint: true, ncclShort: 'one data point: vLLM PR #2031, Llama-2-70B at TP 4 on A100-80GB, not scaled to this model or TP', source: 'vLLM PR #2031: Llama-2-7B TP 1 7,449 -> 7,351 blocks (0.77 GiB); Llama-2-70B TP 4 31,615 -> 20,865 blocks (13.12 GiB), with the activations all-reduce held until PR #2151' },
  { since: [0, 2, 7], name: 'vLLM 0.2.7 to 0.6.4 (total − free after profiling)', short: 'vLLM 0.2.7-0.6.4 figure, PR #2031', nonTorchGib: 0.77, ncclGib: 0, ncclUnknown: true, ncclShort: 'unknown: vLLM 0.2.7-0.6.4 counted NCCL and custom all-reduce buffers (total − free after profiling), a size no public log gives for a model and TP; the KV pool is an upper bound', source: 'vLLM PR #2031 (total − free after profiling; 0.77 GiB non-torch at TP 1); PR #2151 (TORCH_NCCL_AVOID_RECORD_STREAMS=1) ended the held all-reduce activations behind PR #2031\'s 12.35 GiB at TP 4; the NCCL buffers that remain are not published per model and TP' },
  { since: [0, 6, 5], name: 'vLLM >= 0.6.5 / V1 (non-torch increase during profiling)', short: 'vLLM >= 0.6.5 figure', nonTorchGib: 0.1, ncclGib: 0.1, source: 'vLLM PR #10511 / #12126 profiling; "non_torch_memory takes ..." in public logs: 0.10 GiB median at TP 1, +0.1 GiB per tensor-parallel rank' },
];

/** Parses "0.2.5" / "v0.10.1rc1" -> [0, 2, 5]; undefined when it is no version. */
export function parseVllmVersion(text: string): [number, number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(text.trim());
  if (!m) return undefined;
  return [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
}

/**
 * Whether a profile's engine.vllm_version is `since` or later; a profile that names none (null)
 * or names no parsable version follows the current release, so it is.
 */
export function vllmAtLeast(version: string | null, since: readonly [number, number, number]): boolean {
  const v = version === null ? undefined : parseVllmVersion(version);
  if (v === undefined) return true;
  for (let i = 0; i < 3; i++) if (v[i] !== since[i]) return v[i]! > since[i]!;
  return true;
}

function eraOf(version: string | null): ProfilingEra {
  const v = version === null ? undefined : parseVllmVersion(version);
  if (v === undefined) return ERAS[ERAS.length - 1]!;
  let era = ERAS[0]!;
  for (const e of ERAS) {
    const [a, b, c] = e.since;
    if (v[0] > a || (v[0] === a && (v[1] > b || (v[1] === b && v[2] >= c)))) era = e;
  }
  return era;
}

/** The profile's engine block with every key 'auto' (a profile that has none). */
export const DEFAULT_ENGINE: EngineSpec = { vllmVersion: null, nonTorchGib: 'auto', ncclGib: 'auto', cudaGraphGib: 'auto', activationGib: 'auto' };

/** The name of the profiling era a profile's engine follows ("vLLM >= 0.6.5 / V1 ..."). */
export function engineEraName(engine: EngineSpec = DEFAULT_ENGINE): string {
  return eraOf(engine.vllmVersion).name;
}

/**
 * The terms a device-derived budget subtracts, per GPU. `weightsBytesPerGpu` and the modelled
 * `activationBytes` (activationPeakBytes) come from the estimate; the engine block may override
 * every term but the weights. `weightsBasis`, when given, is the weights' basis ("(parameters · bytes
 * − 950 MiB) ÷ 8 + 950 MiB replicated on every GPU + 244 MiB bf16 kv_b_proj copies": tpWeightsFormula
 * and mlaDecodeCopies, written by the caller); otherwise "parameters · bytes ÷ tensor_parallel_size".
 * `buffers`: tensors vLLM allocates while it builds the model (modelBufferBytes), a term of their
 * own after the weights when there are any; vLLM's "Model loading took" figure holds them.
 */
export function reserveTerms(
  engine: EngineSpec = DEFAULT_ENGINE,
  tensorParallelSize: number,
  weightsBytesPerGpu: number,
  activation: { bytes: number; basis: string; source: string },
  weightsBasis = '',
  buffers: { bytes: number; basis: string; source: string } = { bytes: 0, basis: '', source: '' },
): ReserveTerm[] {
  const era = eraOf(engine.vllmVersion);
  const gib = (x: number): number => Math.round(x * GIB);
  const term = (key: ReserveKey, label: string, set: number | 'auto', modelled: number, basis: string, source: string, subtracted = true): ReserveTerm =>
    set === 'auto'
      ? { key, label, bytes: modelled, subtracted, origin: 'modelled', basis, source }
      : { key, label, bytes: gib(set), subtracted: true, origin: 'profile', basis: `engine.${snake(key)}_gib`, source: `engine.${snake(key)}_gib in the profile` };
  const tp = tensorParallelSize > 1;
  return [
    { key: 'weights', label: 'model weights', bytes: weightsBytesPerGpu, subtracted: true, origin: 'modelled', basis: weightsBasis || (tp ? `parameters · bytes ÷ ${tensorParallelSize}` : 'parameters · bytes'), source: `parameters · bytes of their dtype (quantized layers at their stored width), ÷ tensor_parallel_size${tp ? ", plus what vLLM keeps whole on every GPU (norms, MoE routers, MLA's q_a_proj / kv_a_proj_with_mqa, KV heads' projections where tensor_parallel_size exceeds the KV heads, the vision tower's unsplit parts)" : ''}, plus MLA's 16-bit copies of a quantized kv_b_proj (vLLM's W_UK_T and W_UV)` },
    ...(buffers.bytes > 0 ? [{ key: 'buffers' as const, label: 'model buffers', bytes: buffers.bytes, subtracted: true, origin: 'modelled' as const, basis: buffers.basis, source: buffers.source }] : []),
    term('activation', 'activation peak', engine.activationGib, activation.bytes, activation.basis, activation.source),
    term('nonTorch', 'non-torch memory', engine.nonTorchGib, gib(era.nonTorchGib), era.short, `${era.name}: ${era.source}`),
    {
      ...term('nccl', 'NCCL buffers', engine.ncclGib, tp ? gib(era.ncclGib) : 0, tp ? era.ncclShort ?? era.short : 'tensor_parallel_size 1', tp ? `${era.name}: ${era.source}` : 'tensor_parallel_size 1: no collective buffers'),
      ...(tp && engine.ncclGib === 'auto' && era.ncclOneDataPoint ? { oneDataPoint: true } : {}),
      ...(tp && engine.ncclGib === 'auto' && era.ncclUnknown ? { unknown: true, subtracted: false } : {}),
    },
    term('cudaGraph', 'CUDA graphs', engine.cudaGraphGib, 0, 'captured after the pool is sized',
      'vLLM captures CUDA graphs after the KV cache is allocated, out of the 1 − gpu_memory_utilization headroom ("Graph capturing finished in N secs, took X GiB"); set engine.cuda_graph_gib to subtract it (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS)', false),
  ];
}

/** The profile key that sets term `key` (engine.<it>), e.g. engine.cuda_graph_gib for 'cudaGraph'. */
export function engineKeyOf(key: ReserveKey): string {
  return `engine.${snake(key)}_gib`;
}

function snake(key: ReserveKey): string {
  return key === 'nonTorch' ? 'non_torch' : key === 'cudaGraph' ? 'cuda_graph' : key === 'buffers' ? 'model_buffers' : key;
}

/** Bytes of the subtracted terms. */
export function subtractedBytes(terms: readonly ReserveTerm[]): number {
  let n = 0;
  for (const t of terms) if (t.subtracted) n += t.bytes;
  return n;
}
