// Case work and timing summaries of the benchmark method, against hand-counted values.
import { strict as assert } from 'node:assert';
import { describe, it, test } from 'node:test';

import type { CaseShape } from '../../core/protocol/run';
import { attentionBytes, attentionFlops, ceilingFor, sampleStats, summarizeCase, visibleKeyPairs } from '../../runner/measure';

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
    assert.equal(ceilingFor('flash_fwd', 'fp32', peaks)!.value, 4e11);
    assert.equal(ceilingFor('flash_fwd', 'bf16', peaks)!.value, 8e11);
    assert.equal(ceilingFor('flash_fwd', 'bf16', { ...peaks, bf16AmxFlopsPerSec: 4e12 })!.value, 4e12);
    assert.equal(ceilingFor('paged_decode', 'bf16', peaks)!.value, 5e10);
    assert.equal(ceilingFor('flash_fwd', 'fp32', {}), null);
  });

  it('holds a CPU case against the peak of the unit that ran, not the newest the CPU has', () => {
    const amx = { ...peaks, bf16AmxFlopsPerSec: 4e12 };
    // bf16 widened to fp32 on the FMA path (vdpbf16ps slower than FMA): the FMA peak, not AMX's.
    assert.deepEqual(ceilingFor('flash_fwd', 'bf16', amx, 'fp32-fma'), { value: 4e11, unit: 'FLOP/s', name: 'fp32 FMA peak' });
    assert.equal(ceilingFor('flash_fwd', 'bf16', amx, 'avx512-bf16')!.value, 8e11);
    assert.equal(ceilingFor('flash_fwd', 'bf16', amx, 'amx-bf16')!.value, 4e12);
    assert.equal(ceilingFor('flash_fwd', 'fp32', amx, 'scalar')!.value, 4e11);
    assert.equal(ceilingFor('flash_fwd', 'bf16', peaks, 'amx-bf16'), null);
    assert.equal(ceilingFor('paged_decode', 'bf16', amx, 'avx512-bf16')!.name, 'DRAM read bandwidth');
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
  assert.deepEqual(ceilingFor('flash_fwd', 'bf16', peaks, undefined, 'cuda'), { value: 9.89e14, unit: 'FLOP/s', name: 'GPU bf16 peak (from clocks)' });
  assert.deepEqual(ceilingFor('paged_decode', 'bf16', peaks, undefined, 'cuda'), { value: 4e12, unit: 'B/s', name: 'GPU copy bandwidth' });
  // A run without the GPU's figures has no ceiling for it (not the CPU's FMA peak).
  assert.equal(ceilingFor('flash_fwd', 'bf16', { fp32FlopsPerSec: 4e11 }, undefined, 'cuda'), null);
});
