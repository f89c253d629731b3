/**
 * Named GPUs for the serving simulation's step-time model (runner/simulate/step-time.ts),
 * chosen by the profile's `device.gpu`. Peaks are the vendor's published figures, copied from
 * the source each entry names: dense bf16 tensor-core FLOP/s (without 2:4 sparsity, which
 * datasheets print beside it at twice the figure) and memory bandwidth. They are ceilings, not
 * measurements; the model scales them by efficiency factors it reports.
 */

export interface GpuSpec {
  /** The name `device.gpu` takes (the schema's enum lists these). */
  name: string;
  /** Dense bf16 tensor-core peak, FLOP/s. */
  bf16FlopsPerSec: number;
  /** Peak memory bandwidth, bytes/s (SI: 3.35e12 = 3.35 TB/s). */
  memoryBytesPerSec: number;
  /** Memory on the board, bytes as the vendor prints them (80 GB = 80e9). */
  memoryBytes: number;
  /** Where the figures are copied from. */
  source: string;
}

/** Every named GPU, one row each. */
export const GPUS: readonly GpuSpec[] = [
  {
    name: 'H100 SXM',
    bf16FlopsPerSec: 989e12,
    memoryBytesPerSec: 3.35e12,
    memoryBytes: 80e9,
    source: 'NVIDIA H100 Tensor Core GPU datasheet (H100 SXM: BF16 Tensor Core 1,979 TFLOPS with sparsity, HBM3 3.35 TB/s)',
  },
  {
    name: 'H200',
    bf16FlopsPerSec: 989e12,
    memoryBytesPerSec: 4.8e12,
    memoryBytes: 141e9,
    source: 'NVIDIA H200 Tensor Core GPU datasheet (H200 SXM: BF16 Tensor Core 1,979 TFLOPS with sparsity, HBM3e 4.8 TB/s, 141 GB)',
  },
  {
    name: 'A100 80GB',
    bf16FlopsPerSec: 312e12,
    memoryBytesPerSec: 2.039e12,
    memoryBytes: 80e9,
    source: 'NVIDIA A100 Tensor Core GPU datasheet (A100 80GB SXM: BF16 Tensor Core 312 TFLOPS dense, HBM2e 2,039 GB/s)',
  },
  {
    name: 'L40S',
    bf16FlopsPerSec: 362.05e12,
    memoryBytesPerSec: 864e9,
    memoryBytes: 48e9,
    source: 'NVIDIA L40S datasheet (BF16 Tensor Core 733 TFLOPS with sparsity, GDDR6 864 GB/s, 48 GB)',
  },
  {
    name: 'RTX 4090',
    bf16FlopsPerSec: 165.2e12,
    memoryBytesPerSec: 1008e9,
    memoryBytes: 24e9,
    source: 'NVIDIA Ada GPU Architecture whitepaper, Appendix A (GeForce RTX 4090: BF16 Tensor TFLOPS with FP32 accumulate 165.2 dense, GDDR6X 1,008 GB/s)',
  },
];

/** The GPU the step-time model assumes when the profile names none. */
export const DEFAULT_GPU = 'H100 SXM';

/** The table row named `name` (exact, as the schema's enum), or undefined. */
export function gpuByName(name: string): GpuSpec | undefined {
  return GPUS.find((g) => g.name === name);
}
