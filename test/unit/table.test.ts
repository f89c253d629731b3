// The terminal kernel table names, per case, the path that ran and the peak its % divides by.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';

import type { KernelCase } from '../../core/protocol/run';
import { casesCaption, formatCases } from '../../runner/table';
import type { Environment } from '../../core/protocol/run';

const base: KernelCase = {
  kernel: 'flash_fwd', backend: 'cpu', dtype: 'bf16',
  shape: { batchSize: 1, numHeads: 8, numKvHeads: 8, headDim: 128, seqLenQ: 4096, seqLenK: 4096, causal: false, slidingWindow: null },
  samplesNs: [1e6], medianNs: 1e6, p10Ns: 1e6, p90Ns: 1e6, flops: 2e8, bytes: 0, gflops: 200, gbps: 0,
  fractionOfPeak: 0.5, maxAbsErr: 0, lseMaxAbsErr: 0,
};

describe('formatCases', () => {
  it('prints the SIMD path, the product unit and the peak of that unit per case', () => {
    const text = formatCases([
      { ...base, simdPath: 'avx2', productUnit: 'fp32-fma', ceiling: 'fp32 FMA peak' },
      { ...base, backend: 'cuda', fractionOfPeak: null },
    ]);
    const [header, , cpu, cuda] = text.split('\n');
    assert.match(header!, /path .*% of peak +peak/);
    assert.match(cpu!, /avx2 fp32-fma .* 50% +fp32 FMA peak/);
    assert.match(cuda!, /cuda .* - +- /);
  });
});

describe('casesCaption', () => {
  const env: Environment = { os: 'linux', arch: 'x64', cpuModel: 'AMD EPYC', cpuCores: 2, simd: 'avx512', cpuFeatures: [], threads: 2, nodeVersion: 'v22', toolVersion: '0.1.0', peaks: { fp32FlopsPerSec: 1.5e11, readBytesPerSec: 4e10 } };
  const decode: KernelCase = { ...base, kernel: 'paged_decode', simdPath: 'avx512', productUnit: 'fp32-fma', gbps: 20, fractionOfPeak: 0.5, ceiling: 'DRAM read bandwidth' };

  it('says the figures are measured, where, and each peak its % divides by with its value', () => {
    const text = casesCaption({ cases: [{ ...base, productUnit: 'fp32-fma', ceiling: 'fp32 FMA peak' }, decode], environment: env });
    assert.match(text, /^Kernel timings, measured on this CPU \(AMD EPYC, 2 threads\)/);
    // The run's own peaks, as measured: 1.5e11 FLOP/s and 4e10 B/s.
    assert.match(text, /% of peak: rate \/ the peak named beside it \(fp32 FMA peak 150 GFLOP\/s, measured in this run; DRAM read bandwidth 40 GB\/s, measured in this run\)$/);
  });

  it('holds a CUDA case against the GPU, its FLOP peak said to be computed, not the CPU\'s', () => {
    const gpuEnv: Environment = { ...env, gpu: { name: 'NVIDIA H200', smCount: 132, memoryBytes: 150e9, driver: '1', runtime: '1' }, peaks: { ...env.peaks, gpuFlopsPerSec: 9.89e14, gpuCopyBytesPerSec: 4e12 } };
    const text = casesCaption({ cases: [{ ...base, backend: 'cuda' }, { ...decode, backend: 'cuda', simdPath: undefined, productUnit: undefined }], environment: gpuEnv });
    assert.match(text, /measured on NVIDIA H200/);
    assert.match(text, /GPU bf16 peak \(from clocks\) 989 TFLOP\/s, computed; GPU copy bandwidth 4 TB\/s, measured in this run/);
    assert.doesNotMatch(text, /fp32 FMA|DRAM/);
  });
});
