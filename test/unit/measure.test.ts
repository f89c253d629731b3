// Case work and timing summaries of the benchmark method, against hand-counted values.
import { strict as assert } from 'node:assert';
import { describe, it, test } from 'node:test';

import { fractionText, fromCacheBy, fromCacheText, readAloneFromCache } from '../../core/format';
import type { CaseShape } from '../../core/protocol/run';
import { attentionBytes, attentionFlops, ceilingFor, computeCeiling, sampleStats, summarizeCase, visibleKeyPairs, withRemeasuredPeaks } from '../../runner/measure';

const shape = (over: Partial<CaseShape>): CaseShape => ({
  batchSize: 1, numHeads: 1, numKvHeads: 1, headDim: 1, seqLenQ: 4, seqLenK: 4, causal: false, slidingWindow: null, ...over,
});

describe('visibleKeyPairs', () => {
  it('counts the keys each query sees under the kernels\' masks', () => {
    assert.equal(visibleKeyPairs(shape({})), 16);
    // causal, N = 4: 1 + 2 + 3 + 4
    assert.equal(visibleKeyPairs(shape({ causal: true })), 10);
    // bottom-right alignment, N_q = 2, N_k = 4: queries sit at key positions 2 and 3 -> 3 + 4
    assert.equal(visibleKeyPairs(shape({ causal: true, seqLenQ: 2 })), 7);
    // N_q = 4 > N_k = 2: positions -2, -1, 0, 1 -> 0 + 0 + 1 + 2
    assert.equal(visibleKeyPairs(shape({ causal: true, seqLenK: 2 })), 3);
    // causal window 2: 1 + 2 + 2 + 2
    assert.equal(visibleKeyPairs(shape({ causal: true, slidingWindow: 2 })), 7);
    // window 2 without causal: keys j > i - 2, all to the right: 4 + 4 + 3 + 2
    assert.equal(visibleKeyPairs(shape({ slidingWindow: 2 })), 13);
  });
});

describe('attentionFlops and attentionBytes', () => {
  it('Llama-3-8B prefill, N = 4096 causal: 4 · 32 · (4096 · 4097 / 2) · 128', () => {
    // 4096 · 4097 / 2 = 8,390,656; · 4 · 32 · 128 = 137,472,507,904
    assert.equal(attentionFlops(shape({ numHeads: 32, numKvHeads: 8, headDim: 128, seqLenQ: 4096, seqLenK: 4096, causal: true })), 137_472_507_904);
  });

  it('decode B = 16, 32k context, bf16 KV: K + V once per KV head, + Q bf16 + O fp32', () => {
    const s = shape({ batchSize: 16, numHeads: 32, numKvHeads: 8, headDim: 128, seqLenQ: 1, seqLenK: 32768, pageSize: 16 });
    // KV 2 · 16 · 32768 · 8 · 128 · 2 = 2,147,483,648; Q 16 · 32 · 128 · 2 = 131,072; O · 4 = 262,144
    assert.equal(attentionBytes(s, 'bf16', 'bf16'), 2_147_876_864);
    // 4 · 16 · 32 · 32768 · 128
    assert.equal(attentionFlops(s), 8_589_934_592);
  });

  it('decode under a window reads the window\'s tokens only: gpt-oss B = 1, ctx 1024, W = 128, bf16', () => {
    const s = shape({ numHeads: 64, numKvHeads: 8, headDim: 64, seqLenQ: 1, seqLenK: 1024, causal: true, slidingWindow: 128, pageSize: 16 });
    // KV 2 · 128 · 8 · 64 · 2 = 262,144 (not 1024 tokens' 2,097,152); Q 64 · 64 · 2 = 8,192; O 64 · 64 · 4 = 16,384
    assert.equal(attentionBytes(s, 'bf16', 'bf16'), 286_720);
    // 4 · 64 · 128 · 64
    assert.equal(attentionFlops(s), 2_097_152);
    // A window of at least the context: the whole context, 100 tokens: 2 · 100 · 8 · 64 · 2 + 8,192 + 16,384
    assert.equal(attentionBytes({ ...s, seqLenK: 100 }, 'bf16', 'bf16'), 229_376);
    // Prefill under the window still reads every key (key j is seen by query j): K + V of all 1024
    const prefill = shape({ numHeads: 64, numKvHeads: 8, headDim: 64, seqLenQ: 1024, seqLenK: 1024, causal: true, slidingWindow: 128 });
    assert.equal(attentionBytes(prefill, 'bf16'), 1024 * 64 * 64 * 2 + 2 * 1024 * 8 * 64 * 2 + 1024 * 64 * 64 * 4);
  });
});

describe('sampleStats', () => {
  it('median, p10 and p90 by nearest rank', () => {
    assert.deepEqual(sampleStats([5, 1, 4, 2, 3]), { medianNs: 3, p10Ns: 1, p90Ns: 5 });
    assert.deepEqual(sampleStats([4, 1, 3, 2]), { medianNs: 2.5, p10Ns: 1, p90Ns: 4 });
    assert.throws(() => sampleStats([]), RangeError);
  });
});

describe('ceilingFor and summarizeCase', () => {
  const peaks = { fp32FlopsPerSec: 4e11, avx512Bf16FlopsPerSec: 8e11, readBytesPerSec: 5e10 };

  it('holds fp32 against the FMA peak, bf16 against AMX else AVX512-BF16, decode against read bandwidth', () => {
    assert.equal(computeCeiling('fp32', peaks)!.value, 4e11);
    assert.equal(computeCeiling('bf16', peaks)!.value, 8e11);
    assert.equal(computeCeiling('bf16', { ...peaks, bf16AmxFlopsPerSec: 4e12 })!.value, 4e12);
    // Llama-3-8B decode, bf16: 4 · 32 · 128 FLOP per token over 2 · 8 · 128 · 2 bytes = 8 FLOP/byte,
    // below the ridge 8e11 / 5e10 = 16: the bandwidth bounds it.
    assert.deepEqual(ceilingFor('paged_decode', 8, 'bf16', peaks), { value: 5e10, unit: 'B/s', name: 'DRAM read bandwidth', bound: 'memory', ridge: 16 });
    assert.equal(computeCeiling('fp32', {}), null);
    assert.equal(ceilingFor('flash_fwd', 100, 'fp32', {}), null);
    // Only one roof known: no ridge; prefill takes the compute peak, decode the bandwidth, or none.
    assert.deepEqual(ceilingFor('flash_fwd', 0.5, 'fp32', { fp32FlopsPerSec: 4e11 }), { value: 4e11, unit: 'FLOP/s', name: 'fp32 FMA peak', bound: 'compute', ridge: null });
    assert.equal(ceilingFor('paged_decode', 500, 'fp32', { fp32FlopsPerSec: 4e11 }), null);
  });

  it('holds a CPU case against the peak of the unit that ran, not the newest the CPU has', () => {
    const amx = { ...peaks, bf16AmxFlopsPerSec: 4e12 };
    // bf16 widened to fp32 on the FMA path (vdpbf16ps slower than FMA): the FMA peak, not AMX's.
    assert.deepEqual(computeCeiling('bf16', amx, 'fp32-fma'), { value: 4e11, unit: 'FLOP/s', name: 'fp32 FMA peak' });
    assert.equal(computeCeiling('bf16', amx, 'avx512-bf16')!.value, 8e11);
    assert.equal(computeCeiling('bf16', amx, 'amx-bf16')!.value, 4e12);
    assert.equal(computeCeiling('fp32', amx, 'scalar')!.value, 4e11);
    assert.equal(computeCeiling('bf16', peaks, 'amx-bf16'), null);
    assert.equal(ceilingFor('paged_decode', 8, 'bf16', amx, 'avx512-bf16')!.name, 'DRAM read bandwidth');
    const c = summarizeCase(
      { kernel: 'flash_fwd', backend: 'cpu', shape: shape({ seqLenQ: 1000, seqLenK: 1000, headDim: 50 }), dtype: 'bf16', maxAbsErr: 0, lseMaxAbsErr: 0, simdPath: 'avx2', productUnit: 'fp32-fma' },
      [1e6],
      amx,
    );
    // 2e8 FLOP in 1 ms = 2e11 FLOP/s of the 4e11 FMA peak (0.05 of the AMX peak would be wrong)
    assert.equal(c.fractionOfPeak, 0.5);
    assert.equal(c.ceiling, 'fp32 FMA peak');
    assert.equal(c.simdPath, 'avx2');
  });

  it('turns samples into GFLOP/s, GB/s and the fraction of the ceiling', () => {
    // N = 1000 non-causal, H = 1, D = 50: 4 · 1000 · 1000 · 50 = 2e8 FLOP in 1 ms -> 200 GFLOP/s = 0.5 of 4e11
    const c = summarizeCase(
      { kernel: 'flash_fwd', backend: 'cpu', shape: shape({ seqLenQ: 1000, seqLenK: 1000, headDim: 50 }), dtype: 'fp32', maxAbsErr: 0, lseMaxAbsErr: 0 },
      [2e6, 1e6, 1e6],
      peaks,
    );
    assert.equal(c.flops, 2e8);
    assert.equal(c.medianNs, 1e6);
    assert.equal(c.gflops, 200);
    assert.equal(c.fractionOfPeak, 0.5);
    // Q + K + V fp32 (3 · 1000 · 50 · 4) + O fp32 (1000 · 50 · 4) = 800,000 B in 1 ms = 0.8 GB/s
    assert.equal(c.bytes, 800_000);
    assert.equal(c.gbps, 0.8);
  });
});

test('a CUDA case is held against the GPU\'s peaks, never the CPU\'s', () => {
  const peaks = { fp32FlopsPerSec: 4e11, readBytesPerSec: 5e10, gpuFlopsPerSec: 9.89e14, gpuCopyBytesPerSec: 4e12 };
  // Ridge 9.89e14 / 4e12 = 247.25 FLOP/byte: prefill at 1000 above it, decode at 8 below.
  assert.deepEqual(ceilingFor('flash_fwd', 1000, 'bf16', peaks, undefined, 'cuda'), { value: 9.89e14, unit: 'FLOP/s', name: 'GPU bf16 peak (from clocks)', bound: 'compute', ridge: 247.25 });
  assert.deepEqual(ceilingFor('paged_decode', 8, 'bf16', peaks, undefined, 'cuda'), { value: 4e12, unit: 'B/s', name: 'GPU copy bandwidth', bound: 'memory', ridge: 247.25 });
  // A run without the GPU's figures has no ceiling for it (not the CPU's FMA peak).
  assert.equal(ceilingFor('flash_fwd', 1000, 'bf16', { fp32FlopsPerSec: 4e11 }, undefined, 'cuda'), null);
});

test('MLA decode: the latent counted once, and held against the roof its FLOP/byte reaches (compute on a CPU, bandwidth on an H200-like GPU)', () => {
  // DeepSeek-V3 decode, B = 1, 4096 tokens of context, bf16: 128 query heads on one latent of
  // kv_lora_rank 512 + qk_rope_head_dim 64 = 576, run as MQA at head_dim 512.
  const s = shape({ numHeads: 128, numKvHeads: 1, headDim: 512, seqLenQ: 1, seqLenK: 4096, causal: true, pageSize: 64, mlaLatentDim: 576 });
  // Latent 4096 · 576 · 2 = 4,718,592; Q 128 · 512 · 2 = 131,072; O 128 · 512 · 4 = 262,144.
  // (K and V apart at head_dim 512 would be 2 · 4096 · 512 · 2 = 8,388,608 for the KV term.)
  assert.equal(attentionBytes(s, 'bf16', 'bf16'), 5_111_808);
  // 4 · 128 · 4096 · 512 = 1,073,741,824 FLOP: 210 FLOP/byte.
  assert.equal(attentionFlops(s), 1_073_741_824);
  const cpu = { fp32FlopsPerSec: 4e11, avx512Bf16FlopsPerSec: 8e11, readBytesPerSec: 5e10 };
  // CPU ridge 8e11 / 5e10 = 16 FLOP/byte < 210: compute-bound. 4 ms -> 268.435456 GFLOP/s of 800.
  const c = summarizeCase({ kernel: 'paged_decode', backend: 'cpu', shape: s, dtype: 'bf16', kvDtype: 'bf16', maxAbsErr: 0, lseMaxAbsErr: null, productUnit: 'avx512-bf16' }, [4e6], cpu);
  assert.equal(c.bound, 'compute');
  assert.equal(c.ceiling, 'AVX512-BF16 peak');
  assert.ok(Math.abs(c.fractionOfPeak! - 0.33554432) < 1e-12, String(c.fractionOfPeak));
  // GPU ridge 9.89e14 / 4e12 = 247 > 210: the copy bandwidth bounds it. 5,111,808 B in 2 µs = 2.555904 TB/s of 4.
  const g = summarizeCase({ kernel: 'paged_decode', backend: 'cuda', shape: s, dtype: 'bf16', kvDtype: 'bf16', maxAbsErr: 0, lseMaxAbsErr: null }, [2000], { gpuFlopsPerSec: 9.89e14, gpuCopyBytesPerSec: 4e12 });
  assert.equal(g.bound, 'memory');
  assert.equal(g.ceiling, 'GPU copy bandwidth');
  assert.ok(Math.abs(g.fractionOfPeak! - 0.638976) < 1e-12, String(g.fractionOfPeak));
});

test('slowCaseNotes: a case one call of which takes a minute or more at the roof is named with that time, the others not', async () => {
  const { slowCaseNotes } = await import('../../runner/bench');
  const shape = (n: number): CaseShape => ({ batchSize: 1, seqLenQ: n, seqLenK: n, numHeads: 32, numKvHeads: 8, headDim: 128, causal: true, slidingWindow: null });
  const flash = (n: number) => ({ kernel: 'flash_fwd' as const, shape: shape(n), dtype: 'bf16' as const, kvDtype: 'bf16' as const, checkShape: shape(64) });
  // Llama-3.1-8B's prefill at N = 131,072, causal: 131,072 · 131,073 / 2 = 8,590,000,128 visible
  // pairs, 4 · 32 · 128 · that = 1.407e14 FLOP; on a GPU of 1 TFLOP/s (1 TB/s copy: far above the
  // ridge, compute-bound) 140.7 s = 2.35 min. N = 8,192: 256x fewer pairs, 0.55 s: not named.
  const peaks = { gpuFlopsPerSec: 1e12, gpuCopyBytesPerSec: 1e12 };
  assert.deepEqual(slowCaseNotes([flash(8192), flash(131072)], 'cuda', peaks), [
    'flash_fwd B=1 N=131072 H=32/8 D=128 causal bf16: one call takes at least 2.35 min here, a lower bound at the GPU bf16 peak (from clocks) (1.4e14 FLOP at 1 TFLOP/s; the kernels measure a fraction of it, so expect several times longer), and timing runs it at least once; Ctrl-C stops the run',
  ]);
  // No peak measured: nothing to hold the case to, nothing said.
  assert.deepEqual(slowCaseNotes([flash(131072)], 'cuda', {}), []);
});

test('a case above 100 % of a peak measured at the start: the peaks measured again, each the better of the two, every case rated again; a fraction still above 100 % says the peak is under-measured', () => {
  // The s30 newcomer's WebAssembly run at load ~21: fp32 FMA peak 5.34 GFLOP/s at the start, a
  // flash case at 12.0 GFLOP/s (225 %); the next runs measured the peak at 18-58 GFLOP/s.
  // N = 1000 non-causal, H = 1, D = 50: 2e8 FLOP in 16.667 ms = 12.0 GFLOP/s (hand).
  const first = { fp32FlopsPerSec: 5.34e9, readBytesPerSec: 3.06e10, notes: { fp32FlopsPerSec: 'best of 9 windows', readBytesPerSec: 'read' } };
  const c = summarizeCase({ kernel: 'flash_fwd', backend: 'cpu', shape: shape({ seqLenQ: 1000, seqLenK: 1000, headDim: 50 }), dtype: 'fp32', maxAbsErr: 0, lseMaxAbsErr: 0 }, [2e8 / 12], first);
  assert.ok(Math.abs(c.fractionOfPeak! - 12 / 5.34) < 1e-9);
  const again = { fp32FlopsPerSec: 5.0e10, readBytesPerSec: 2.9e10, notes: { fp32FlopsPerSec: 'best of 11 windows', readBytesPerSec: 'read again' } };
  const { peaks, cases } = withRemeasuredPeaks([c], first, again, 'after flash_fwd B=1');
  // fp32 the second (higher), read bandwidth the first (higher): 12 / 50 = 24 %.
  assert.equal(peaks.fp32FlopsPerSec, 5.0e10);
  assert.equal(peaks.readBytesPerSec, 3.06e10);
  assert.equal(peaks.notes!.readBytesPerSec, 'read');
  assert.equal(peaks.notes!.fp32FlopsPerSec, "best of 11 windows; measured again after flash_fwd B=1, above the run's first 5.34 GFLOP/s (load?)");
  assert.ok(Math.abs(cases[0]!.fractionOfPeak! - 0.24) < 1e-9);
  assert.equal(cases[0]!.ceiling, 'fp32 FMA peak');
  // What the table prints.
  const pct = (f: number) => `${Math.round(f * 100)}%`;
  assert.equal(fractionText(12 / 5.34, pct), '225% (peak under-measured: load?)');
  assert.equal(fractionText(0.24, pct), '24%');
  assert.equal(fractionText(1, pct), '100%');
  // s51 newcomer: scalar decode at 0.0350 GB/s of a 56.9 GB/s read peak (0.06 %) read "0%".
  assert.equal(fractionText(0.035 / 56.9, pct), '<1%');
  assert.equal(fractionText(0, pct), '0%');
  assert.equal(fractionText(0.0004, (f) => `${(f * 100).toFixed(1)}%`), '<0.1%');
  assert.equal(fractionText(0.006, pct), '1%');
});

test('a CUDA fp32 case is held against the GPU\'s fp32 peak without tensor cores (gpus.ts computePeak), not the bf16 tensor-core one', async () => {
  const { gpuPeaks } = await import('../../runner/environment');
  // A fake H100 as native/cuda.ts describes one: bf16 from clocks 4096 FLOP/clk/SM · 132 SMs · 1.83 GHz.
  const h100 = gpuPeaks({ name: 'NVIDIA H100 80GB HBM3', peakDenseBf16FlopsPerS: 4096 * 132 * 1.83e9 }, 3e12);
  // NVIDIA H100 datasheet (gpus.ts): FP32 67 TFLOPS; bf16 989.4 TFLOP/s from the clocks.
  assert.equal(h100.gpuFp32FlopsPerSec, 67e12);
  assert.deepEqual(computeCeiling('fp32', h100, undefined, 'cuda'), { value: 67e12, unit: 'FLOP/s', name: 'GPU fp32 peak (datasheet, no tensor cores)' });
  assert.equal(computeCeiling('bf16', h100, undefined, 'cuda')!.value, 4096 * 132 * 1.83e9);
  assert.equal(computeCeiling('fp16', h100, undefined, 'cuda')!.name, 'GPU bf16 peak (from clocks)');
  // A device the table lacks has no fp32 roof (not the bf16 one).
  const other = gpuPeaks({ name: 'NVIDIA A100-PCIE-40GB', peakDenseBf16FlopsPerS: undefined }, 7e12);
  assert.equal(other.gpuFp32FlopsPerSec, undefined);
  assert.equal(computeCeiling('fp32', other, undefined, 'cuda'), null);
  assert.equal(ceilingFor('flash_fwd', 1000, 'fp32', other, undefined, 'cuda'), null, 'a prefill without its compute roof has none');
});

// s50 newcomer-ed 15: decode B=1 ctx=1024 read ~71 % of the DRAM read peak, B=8 ~6 %: the timing calls the kernel
// again and again on the same pages, so a case whose bytes fit the last-level cache is read from it after the first call.
describe('a decode case read from cache: by the last-level cache\'s size or by its pages\' read-alone rate', () => {
  const shape = (batchSize: number): CaseShape => ({ batchSize, numHeads: 32, numKvHeads: 8, headDim: 128, seqLenQ: 1, seqLenK: 1024, causal: true, slidingWindow: null, pageSize: 16 });
  // Its pages read alone at `readAloneBytesPerSec`, and a DRAM read timed with them at 30 GB/s (one thread each).
  const decode = (batchSize: number, readAloneBytesPerSec?: number, dramReadBytesPerSec = 30e9) => {
    const bytes = attentionBytes(shape(batchSize), 'bf16');
    return { kernel: 'paged_decode' as const, backend: 'cpu' as const, bytes, bound: 'memory' as const, ...(readAloneBytesPerSec === undefined ? {} : { readAloneBytesPerSec, dramReadBytesPerSec }) };
  };
  const l3 = { level: 3, bytes: 32 * 2 ** 20 }; // 32 MiB = 33,554,432 B
  const env = { lastLevelCache: l3 };

  it('a case of 4 MiB with a 32 MiB L3 is marked by size; its bytes by hand', () => {
    // B=1 ctx=1024 H=32/8 D=128 bf16: K + V = 2 x 1024 x 8 x 128 x 2 B = 4,194,304 (4 MiB), Q = 32 x 128 x 2 = 8,192,
    // O (fp32) = 32 x 128 x 4 = 16,384: 4,218,880 B = 4.02 MiB <= 33,554,432.
    const c = decode(1);
    assert.equal(c.bytes, 4_218_880);
    assert.equal(fromCacheBy(c, env), 'cache-size');
    assert.equal(fromCacheText(c, env), 'from cache: reads 4.02 MiB, within the 32 MiB L3; not a DRAM figure');
  });

  it('a case of 64 MiB is marked by rate where its pages read alone came at more than 1.5x a DRAM read timed with them, not at 1.47x', () => {
    // B=16: 16 x 4,218,880 = 67,502,080 B (64.4 MiB) > 33,554,432: not by size.
    const big = decode(16);
    assert.equal(big.bytes, 67_502_080);
    assert.equal(fromCacheBy(big, env), null);
    // Read alone at 75 GB/s against a DRAM read at 30 GB/s: 2.5x > 1.5x.
    assert.equal(fromCacheBy(decode(16, 75e9), env), 'read-rate');
    assert.equal(fromCacheText(decode(16, 75e9), env), 'from cache: its pages read alone came at 2.5x a DRAM read (75 GB/s against 30 GB/s, one thread each); not a DRAM figure');
    // 44 GB/s = 1.47x and 45 GB/s = 1.5x: a 128 MiB case read alone came at up to 1.29x (s52), so neither is claimed.
    assert.equal(fromCacheBy(decode(16, 44e9), env), null);
    assert.equal(fromCacheBy(decode(16, 45e9), env), null);
    assert.equal(readAloneFromCache(45.01e9, 30e9), true);
    // No DRAM read timed with it, or no read timed at all: no claim by rate.
    assert.equal(fromCacheBy({ ...big, readAloneBytesPerSec: 75e9 }, env), null);
    assert.equal(readAloneFromCache(undefined, 30e9), false);
    assert.equal(readAloneFromCache(75e9, 0), false);
  });

  it('the run\'s DRAM read peak no longer judges: a run of session 51 (read alone on two threads, no DRAM read beside it) is not marked by rate', () => {
    // s51 held a two-thread wall-time read against the peak; such a run's case carries readAloneBytesPerSec alone.
    const s51 = { ...decode(16), readAloneBytesPerSec: 50e9 };
    assert.equal(fromCacheBy(s51, { lastLevelCache: undefined }), null);
  });

  it('both where both hold; the cache unknown leaves the rate; a CUDA or compute-bound case never', () => {
    assert.equal(fromCacheBy(decode(1, 75e9), env), 'both');
    assert.equal(fromCacheText(decode(1, 75e9), env), 'from cache: reads 4.02 MiB, within the 32 MiB L3, and its pages read alone came at 2.5x a DRAM read (75 GB/s against 30 GB/s, one thread each); not a DRAM figure');
    // Neither sysfs nor CPUID gave a cache (this 2-vCPU Zen 5 guest): no claim by size, even for 4 MiB; the rate still judges.
    assert.equal(fromCacheBy(decode(1), {}), null);
    assert.equal(fromCacheBy(decode(1, 75e9), {}), 'read-rate');
    assert.equal(fromCacheText(decode(1), undefined), null);
    // Not a fraction of the CPU's DRAM: a GPU case, and one held against its compute peak.
    assert.equal(fromCacheBy({ ...decode(1, 75e9), backend: 'cuda' }, env), null);
    assert.equal(fromCacheBy({ ...decode(1, 75e9), bound: 'compute' }, env), null);
    // At the cache's size exactly: within it (bytes <= size).
    assert.match(fromCacheText({ ...decode(1), bytes: l3.bytes }, env) ?? '', /reads 32 MiB, within the 32 MiB L3/);
  });
});
