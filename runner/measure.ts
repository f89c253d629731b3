/**
 * What a benchmark case costs and how its timings are summarized (DESIGN.md "Benchmark
 * method"): FLOPs with causal / sliding-window geometry, bytes moved, median and percentiles,
 * and the fraction of this machine's peak. Pure functions over core/protocol/run.ts types.
 */
import type { CaseShape, Environment, KernelCase } from '../core/protocol/run';
import { dtypeBytes } from '../core/estimate';
import { formatRate } from '../core/format';

/** Bytes of one element of Q/K/V/O or of the KV pages: core/estimate's, the one table of dtype sizes. */
export { dtypeBytes };

/**
 * Keys each query sees, summed over the seqLenQ queries of one (batch, head), with the kernels'
 * masks (causal aligned bottom-right: query i sits at position p = i + N_k − N_q and sees keys
 * j ≤ p; window W: only j > p − W). Divided by N_q this is N_k_eff.
 * Example: N_q = N_k = 4, causal: 1 + 2 + 3 + 4 = 10 (N_k_eff = 2.5 = (N + 1) / 2).
 */
export function visibleKeyPairs(shape: Pick<CaseShape, 'seqLenQ' | 'seqLenK' | 'causal' | 'slidingWindow'>): number {
  const { seqLenQ: nq, seqLenK: nk, causal } = shape;
  const w = shape.slidingWindow && shape.slidingWindow > 0 ? shape.slidingWindow : Infinity;
  if (!causal && w === Infinity) return nq * nk;
  let total = 0;
  for (let i = 0; i < nq; i++) {
    const p = i + nk - nq;
    const hi = causal ? Math.min(p, nk - 1) : nk - 1; // last visible key
    const lo = Math.max(0, w === Infinity ? 0 : p - w + 1); // first visible key
    if (hi >= lo) total += hi - lo + 1;
  }
  return total;
}

/** 4 · B · H · N_q · N_k_eff · D: two matmuls (Q·Kᵀ and P·V), 2 FLOP per multiply-add. */
export function attentionFlops(shape: CaseShape): number {
  return 4 * shape.batchSize * shape.numHeads * visibleKeyPairs(shape) * shape.headDim;
}

/**
 * Bytes a case must move at least once. Prefill: Q + K + V in `dtype`, O in fp32 (the kernels'
 * output). Decode: the K and V of every context token a query sees (kvDtype) + Q (dtype) + O
 * (fp32); pages are read once however many query heads share them (GQA). Keys no query sees
 * are not read: under a window W the first query (position N_k − N_q) sees keys from
 * N_k − N_q − W + 1 on, so decode (N_q = 1) reads min(N_k, W) tokens, the window's slots of its
 * pages (kernels.h PagedDecodeParams), and prefill all N_k. MLA decode (`shape.mlaLatentDim`
 * set): K and V are one latent per token, read once, so the KV term is the latent's
 * mlaLatentDim (kv_lora_rank + qk_rope_head_dim) elements per token, not K + V at head_dim;
 * the bytes the model must read, as FlashMLA counts its bandwidth (the kernels here, taking K and
 * V apart, read more, so the rate is the model's effective bandwidth).
 */
export function attentionBytes(shape: CaseShape, dtype: 'fp32' | 'fp16' | 'bf16', kvDtype = dtype): number {
  const { batchSize: b, numHeads: h, numKvHeads: hkv, headDim: d, seqLenQ: nq, seqLenK: nk } = shape;
  const q = b * nq * h * d * dtypeBytes(dtype);
  const o = b * nq * h * d * 4;
  const w = shape.slidingWindow ?? 0;
  const keysRead = nk - (w > 0 ? Math.max(0, nk - nq - w + 1) : 0);
  const kv = (shape.mlaLatentDim ? b * keysRead * shape.mlaLatentDim : 2 * b * keysRead * hkv * d) * dtypeBytes(kvDtype);
  return q + kv + o;
}

/** Median, 10th and 90th percentile (nearest rank on the sorted samples). */
export function sampleStats(samplesNs: readonly number[]): { medianNs: number; p10Ns: number; p90Ns: number } {
  if (samplesNs.length === 0) throw new RangeError('samplesNs must not be empty');
  const s = [...samplesNs].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
  const mid = s.length >> 1;
  const medianNs = s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { medianNs, p10Ns: at(0.1), p90Ns: at(0.9) };
}

/** A roof of the roofline: a peak in FLOP/s or B/s and its name ("fp32 FMA peak", "DRAM read bandwidth"). */
export interface Ceiling {
  value: number;
  unit: 'FLOP/s' | 'B/s';
  name: string;
}

/**
 * The compute peak of the unit that does a case's products: on the CPU, the one `productUnit`
 * says ('amx-bf16' -> AMX bf16 peak, 'avx512-bf16' -> AVX512-BF16 peak, 'fp32-fma' and 'scalar'
 * -> fp32 FMA peak), else by dtype (fp32 -> the FMA peak; bf16 / fp16 -> the AMX peak where
 * measured, else the AVX512-BF16 peak, else the FMA peak). The CUDA `backend`: for bf16 / fp16 the
 * GPU's dense bf16 tensor-core peak (from its SM count and clock: computed, not measured), for
 * fp32 its fp32 peak without tensor cores (the GPU table's datasheet figure, as the step-time
 * model's gpus.ts computePeak: TF32 matmuls are off by default), never the bf16 one. Null when the
 * run has no such peak.
 */
export function computeCeiling(dtype: 'fp32' | 'fp16' | 'bf16', peaks: Environment['peaks'], productUnit?: string, backend?: string): Ceiling | null {
  if (!peaks) return null;
  if (backend === 'cuda' && dtype === 'fp32') return peaks.gpuFp32FlopsPerSec ? { value: peaks.gpuFp32FlopsPerSec, unit: 'FLOP/s', name: 'GPU fp32 peak (datasheet, no tensor cores)' } : null;
  if (backend === 'cuda') return peaks.gpuFlopsPerSec ? { value: peaks.gpuFlopsPerSec, unit: 'FLOP/s', name: 'GPU bf16 peak (from clocks)' } : null;
  const amx = peaks.bf16AmxFlopsPerSec ? { value: peaks.bf16AmxFlopsPerSec, unit: 'FLOP/s' as const, name: 'AMX bf16 peak' } : null;
  const dot = peaks.avx512Bf16FlopsPerSec ? { value: peaks.avx512Bf16FlopsPerSec, unit: 'FLOP/s' as const, name: 'AVX512-BF16 peak' } : null;
  const fma = peaks.fp32FlopsPerSec ? { value: peaks.fp32FlopsPerSec, unit: 'FLOP/s' as const, name: 'fp32 FMA peak' } : null;
  // The unit that ran, where the case says (CPU kernels): its own peak.
  if (productUnit === 'amx-bf16') return amx;
  if (productUnit === 'avx512-bf16') return dot;
  if (productUnit === 'fp32-fma' || productUnit === 'scalar') return fma;
  if (dtype !== 'fp32') return amx ?? dot ?? fma;
  return fma;
}

/** The memory roof: the CPU's DRAM read bandwidth, or the GPU's copy bandwidth for the CUDA `backend` (both measured in the run); null when absent. */
export function bandwidthCeiling(peaks: Environment['peaks'], backend?: string): Ceiling | null {
  if (backend === 'cuda') return peaks?.gpuCopyBytesPerSec ? { value: peaks.gpuCopyBytesPerSec, unit: 'B/s', name: 'GPU copy bandwidth' } : null;
  return peaks?.readBytesPerSec ? { value: peaks.readBytesPerSec, unit: 'B/s', name: 'DRAM read bandwidth' } : null;
}

/**
 * The roof that bounds a case, by the roofline (Williams, Waterman, Patterson, CACM 2009:
 * attainable = min(compute peak, intensity × bandwidth)): the compute peak
 * ({@link computeCeiling}) when the case's arithmetic intensity (FLOP per byte moved) is at or
 * above the ridge point (compute peak / bandwidth), else the bandwidth ({@link bandwidthCeiling}).
 * So GQA decode (a few FLOP per byte) is held against bandwidth and prefill against compute,
 * while MLA decode, 128 query heads on one latent (~100 FLOP per byte), is held against compute
 * on a CPU whose ridge lies below that. With only one roof known the ridge is unknown: decode
 * then takes the bandwidth, prefill the compute peak, if known. `bound` says which roof it is;
 * `ridge` is the ridge point in FLOP/byte, null when unknown. Null when the run has neither roof.
 */
export function ceilingFor(
  kernel: KernelCase['kernel'],
  intensity: number,
  dtype: 'fp32' | 'fp16' | 'bf16',
  peaks: Environment['peaks'],
  productUnit?: string,
  backend?: string,
): (Ceiling & { bound: 'compute' | 'memory'; ridge: number | null }) | null {
  const compute = computeCeiling(dtype, peaks, productUnit, backend);
  const memory = bandwidthCeiling(peaks, backend);
  if (compute && memory) {
    const ridge = compute.value / memory.value;
    return intensity >= ridge ? { ...compute, bound: 'compute', ridge } : { ...memory, bound: 'memory', ridge };
  }
  if (kernel === 'paged_decode') return memory ? { ...memory, bound: 'memory', ridge: null } : null;
  return compute ? { ...compute, bound: 'compute', ridge: null } : null;
}

/**
 * Builds a KernelCase from timed samples: FLOPs and bytes from the shape, median / p10 / p90,
 * GFLOP/s and GB/s (SI, = per ns), and the fraction of the roof that bounds the case
 * ({@link ceilingFor}: GFLOP/s of the compute peak, or GB/s of the bandwidth), named with its bound.
 */
export function summarizeCase(
  base: Pick<KernelCase, 'kernel' | 'backend' | 'shape' | 'dtype' | 'kvDtype' | 'maxAbsErr' | 'lseMaxAbsErr' | 'checkShape' | 'simdPath' | 'productUnit' | 'pageOrder'>,
  samplesNs: number[],
  peaks: Environment['peaks'],
): KernelCase {
  const { medianNs, p10Ns, p90Ns } = sampleStats(samplesNs);
  const dtype = base.dtype === 'fp16' || base.dtype === 'bf16' ? base.dtype : 'fp32';
  const kvDtype = base.kvDtype === 'fp16' || base.kvDtype === 'bf16' || base.kvDtype === 'fp32' ? base.kvDtype : dtype;
  const flops = attentionFlops(base.shape);
  const bytes = attentionBytes(base.shape, dtype, kvDtype);
  const gflops = flops / medianNs;
  const gbps = bytes / medianNs;
  const ceiling = ceilingFor(base.kernel, flops / bytes, dtype, peaks, base.productUnit, base.backend);
  const achieved = ceiling?.bound === 'memory' ? gbps * 1e9 : gflops * 1e9;
  return {
    ...base,
    samplesNs,
    medianNs,
    p10Ns,
    p90Ns,
    flops,
    bytes,
    gflops,
    gbps,
    fractionOfPeak: ceiling ? achieved / ceiling.value : null,
    ...(ceiling ? { ceiling: ceiling.name, bound: ceiling.bound } : {}),
  };
}

/**
 * The largest |a[i] − b[i]| (the correctness checks' max |error|): equal values count 0, so two
 * −inf lse of fully masked rows agree; a NaN on either side makes the result NaN. The arrays
 * must have one length.
 */
export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError(`maxAbsDiff: lengths ${a.length} and ${b.length} differ`);
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    const d = Math.abs(x - y);
    if (!(d <= m)) m = d; // NaN propagates through !(d <= m)
  }
  return m;
}

/** The CPU peaks {@link withRemeasuredPeaks} merges, the keys measurePeaks fills. */
const CPU_PEAK_KEYS = ['fp32FlopsPerSec', 'avx512Bf16FlopsPerSec', 'bf16AmxFlopsPerSec', 'readBytesPerSec'] as const;

/**
 * A case rated above 100 % of a peak measured in the same run means the peak was measured under
 * other conditions than the case (the load of a shared machine moved between them: the
 * WebAssembly build's fp32 peak read 5.3, 18, 51 and 58 GFLOP/s in four runs at load ~21, and a
 * case 225 % of the first). `again` is the CPU peaks measured once more, now: each peak becomes
 * the better of the two, its note says so, and every case is rated again against them.
 * @param why where the second measurement was taken, for the notes ("after flash_fwd B=1 ...").
 */
export function withRemeasuredPeaks(
  cases: readonly KernelCase[],
  peaks: NonNullable<Environment['peaks']>,
  again: NonNullable<Environment['peaks']>,
  why: string,
): { peaks: NonNullable<Environment['peaks']>; cases: KernelCase[] } {
  const merged: NonNullable<Environment['peaks']> = { ...peaks, notes: { ...peaks.notes } };
  for (const key of CPU_PEAK_KEYS) {
    const a = peaks[key];
    const b = again[key];
    if (b === undefined || (a !== undefined && a >= b)) continue;
    merged[key] = b;
    merged.notes![key] = `${again.notes?.[key] ?? 'measured'}; measured again ${why}, above the run's first ${a === undefined ? 'measurement (unavailable)' : formatRate(a, key === 'readBytesPerSec' ? 'B/s' : 'FLOP/s')} (load?)`;
  }
  return { peaks: merged, cases: cases.map((c) => summarizeCase(c, c.samplesNs, merged)) };
}

