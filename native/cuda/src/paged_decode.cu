// Launchers of the split-K paged decode kernels (paged_decode.cuh): runtime head_dim, dtype
// and GQA group width -> template parameters.
#include <cuda_runtime.h>

#include "launch.h"
#include "paged_decode.cuh"

namespace attnscope {
namespace cuda {
namespace {

// Smallest compiled group width that holds a GQA group (chunks of 8 beyond that).
int group_width(int group) { return group <= 1 ? 1 : group <= 2 ? 2 : group <= 4 ? 4 : 8; }

template <int D, typename T>
cudaError_t launch_typed(const attnscope_cuda_decode_params& p, int num_splits, int partition_tokens,
                         cudaStream_t stream) {
  const int group = p.num_heads / p.num_kv_heads;
  const int width = group_width(group);
  const int head_chunks = ceil_div(group, width);
  const dim3 grid(num_splits, p.num_kv_heads * head_chunks, p.batch);
  switch (width) {
    case 1: paged_decode_kernel<D, 1, T><<<grid, kDecodeThreads, 0, stream>>>(p, num_splits, partition_tokens, head_chunks); break;
    case 2: paged_decode_kernel<D, 2, T><<<grid, kDecodeThreads, 0, stream>>>(p, num_splits, partition_tokens, head_chunks); break;
    case 4: paged_decode_kernel<D, 4, T><<<grid, kDecodeThreads, 0, stream>>>(p, num_splits, partition_tokens, head_chunks); break;
    default: paged_decode_kernel<D, 8, T><<<grid, kDecodeThreads, 0, stream>>>(p, num_splits, partition_tokens, head_chunks); break;
  }
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess || num_splits == 1) return e;
  paged_decode_merge_kernel<D, T><<<dim3(p.num_heads, p.batch), D, 0, stream>>>(p, num_splits, partition_tokens);
  return cudaGetLastError();
}

template <int D>
cudaError_t launch_dim(const attnscope_cuda_decode_params& p, int num_splits, int partition_tokens,
                       cudaStream_t stream) {
  return p.dtype == ATTNSCOPE_CUDA_BF16 ? launch_typed<D, __nv_bfloat16>(p, num_splits, partition_tokens, stream)
                                        : launch_typed<D, __half>(p, num_splits, partition_tokens, stream);
}

}  // namespace

size_t paged_decode_workspace_bytes(const attnscope_cuda_decode_params& p, int num_splits) {
  if (num_splits <= 1) return 0;
  return static_cast<size_t>(p.batch) * p.num_heads * num_splits * (p.head_dim + 1) * sizeof(float);
}

cudaError_t launch_paged_decode(const attnscope_cuda_decode_params& p, int num_splits, int partition_tokens,
                                cudaStream_t stream) {
  return p.head_dim == 64 ? launch_dim<64>(p, num_splits, partition_tokens, stream)
                          : launch_dim<128>(p, num_splits, partition_tokens, stream);
}

}  // namespace cuda
}  // namespace attnscope
