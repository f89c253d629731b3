// The terminal kernel table names, per case, the path that ran and the peak its % divides by.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';

import type { KernelCase } from '../../core/protocol/run';
import { formatCases } from '../../runner/table';

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
