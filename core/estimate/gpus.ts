/**
 * Named GPUs: the device memory a serving engine sees on each, so that `device.gpu: A100-80GB`
 * sizes a KV pool the way vLLM does on that card. The figure is what CUDA reports as the
 * device's total (torch.cuda.mem_get_info()[1], which vLLM prints as `total_gpu_memory`), not
 * the marketing capacity: an "80 GB" A100 reports 79.15 GiB. Every row names the log it was
 * copied from.
 */

const GIB = 1024 ** 3;

export interface GpuSpec {
  /** The name profiles use (device.gpu). */
  name: string;
  /** Other spellings users write (nvidia-smi names, cloud instance names); matched case-insensitively. */
  aliases: readonly string[];
  /** Total device memory as CUDA reports it, in GiB (vLLM `total_gpu_memory`). */
  memoryGib: number;
  /** Where memoryGib comes from. */
  source: string;
}

/** The table: one row per card. */
export const GPUS: readonly GpuSpec[] = [
  {
    name: 'H100-80GB',
    aliases: ['H100', 'H100 SXM', 'H100-SXM', 'NVIDIA H100 80GB HBM3'],
    memoryGib: 79.22,
    source: 'vLLM PR #10511 and #12126 logs on an H100-80G: "total_gpu_memory 79.22GiB"',
  },
  {
    name: 'H200',
    aliases: ['H200-141GB', 'NVIDIA H200'],
    memoryGib: 139.81,
    source: 'vLLM log on an H200: "total_gpu_memory (139.81GiB) x gpu_memory_utilization (0.85) = 118.84GiB"',
  },
  {
    name: 'A100-80GB',
    aliases: ['A100', 'A100 80GB', 'A100-SXM4-80GB', 'NVIDIA A100-SXM4-80GB', 'A100-PCIE-80GB'],
    memoryGib: 79.15,
    source: 'vLLM start-up logs on A100 80GB: "total_gpu_memory (79.15GiB) x gpu_memory_utilization (0.90) = 71.23GiB"',
  },
  {
    name: 'A100-40GB',
    aliases: ['A100 40GB', 'A100-SXM4-40GB', 'NVIDIA A100-SXM4-40GB'],
    memoryGib: 39.49,
    source: 'vLLM logs on A100 40GB: "total_gpu_memory (39.49GiB) x gpu_memory_utilization (0.90) = 35.55GiB" (39.39 to 39.56 across drivers)',
  },
  {
    name: 'A10',
    aliases: ['A10 24GB', 'NVIDIA A10', 'A10G', 'VM.GPU.A10.1'],
    memoryGib: 22.07,
    source: 'vLLM log on an OCI VM.GPU.A10 shape (oracle-samples/oci-data-science-ai-samples, AI Quick Actions troubleshooting): "total_gpu_memory (22.07GiB)"',
  },
];

function normalise(s: string): string {
  return s.toLowerCase().replace(/[\s_-]+/g, '');
}

/** The row for a name or alias (case, spaces, '-' and '_' ignored), or undefined. */
export function findGpu(name: string): GpuSpec | undefined {
  const key = normalise(name);
  return GPUS.find((g) => normalise(g.name) === key || g.aliases.some((a) => normalise(a) === key));
}

/** Total device memory of a named GPU in bytes, rounded down. */
export function gpuMemoryBytes(gpu: GpuSpec): number {
  return Math.floor(gpu.memoryGib * GIB);
}
