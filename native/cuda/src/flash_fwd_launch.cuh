// Launch templates of the flash forward kernel: runtime dtype -> template parameter, grid and
// shared-memory opt-in. One .cu file per head_dim instantiates them (compiled in parallel).
#pragma once

#include <cuda_runtime.h>

#include "flash_fwd.cuh"

namespace attnscope {
namespace cuda {

template <typename Traits, typename T>
cudaError_t launch_flash_fwd(const attnscope_cuda_flash_params& p, cudaStream_t stream) {
  auto kernel = flash_fwd_kernel<Traits, T>;
  if (Traits::kSmemBytes > 48 * 1024) {
    const cudaError_t e =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Traits::kSmemBytes);
    if (e != cudaSuccess) return e;
  }
  const dim3 grid(ceil_div(p.seqlen_q, Traits::kBlockM), p.num_heads, p.batch);
  kernel<<<grid, Traits::kThreads, Traits::kSmemBytes, stream>>>(p);
  return cudaGetLastError();
}

// Runtime dtype -> template parameter.
template <typename Traits>
cudaError_t launch_flash_fwd_dtype(const attnscope_cuda_flash_params& p, cudaStream_t stream) {
  return p.dtype == ATTNSCOPE_CUDA_BF16 ? launch_flash_fwd<Traits, __nv_bfloat16>(p, stream)
                                        : launch_flash_fwd<Traits, __half>(p, stream);
}

}  // namespace cuda
}  // namespace attnscope
