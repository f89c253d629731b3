/**
 * What the attention kernels accept, typed. The numbers live in core/kernelLimits.json, which
 * the native builds read too (binding.gyp: -D ATTNSCOPE_CPU_MAX_HEAD_DIM; native/cuda/CMakeLists.txt:
 * a generated kernel_limits.h), so TypeScript, C++ and the language server agree by construction.
 * CPU: any head_dim up to cpu.maxHeadDim, any page_size, fp32 / fp16 / bf16. CUDA: the head dims
 * with a compiled kernel, page_size in [minPageSize, maxPageSize], fp16 / bf16. Neither has an
 * fp8 KV cache.
 */
import limits from './kernelLimits.json';
import type { Dtype } from './config/types';

export interface KernelLimits {
  cpu: { maxHeadDim: number; dtypes: readonly Dtype[] };
  cuda: { headDims: readonly number[]; minPageSize: number; maxPageSize: number; dtypes: readonly Dtype[] };
}

export const KERNEL_LIMITS: KernelLimits = {
  cpu: { maxHeadDim: limits.cpu.maxHeadDim, dtypes: limits.cpu.dtypes as Dtype[] },
  cuda: { ...limits.cuda, dtypes: limits.cuda.dtypes as Dtype[] },
};
