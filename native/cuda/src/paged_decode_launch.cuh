// Launch planning of the split-K paged decode (paged_decode.cuh): runtime head_dim, dtype and
// GQA group width -> kernel instances, the grid of each, the split plan. The GPU launcher
// (paged_decode.cu) and the CPU emulation (test/gpu/emulate) both go through
// dispatch_paged_decode(), so the emulation runs exactly the instances and grids the GPU gets.
#pragma once

#include "launch_shape.h"
#include "paged_decode.cuh"
#include "paged_decode_mma.cuh"

namespace attnscope {
namespace cuda {

// Dispatch rule. A GQA group of up to kDecodeMaxCudaCoreGroup query heads per KV head runs on
// CUDA cores (paged_decode_kernel, instances for 1 and 2 heads: each thread keeps a score and
// 8 accumulators per head, so registers grow with the group); a larger group runs on tensor
// cores (paged_decode_mma_kernel): its heads are the 16 M rows of mma.sync, in chunks of 16
// beyond that. Measured on an H200 (session 35, test/gpu/bench_cuda.py, cold L2): group 4 on
// CUDA cores read 2.02-2.30 TB/s, on tensor cores 2.79-3.24 TB/s (+38 %, the same shapes), so
// groups from 3 up take the tensor cores despite 12 of their 16 rows being zero. Returns the
// query heads one block takes.
constexpr int kDecodeMaxCudaCoreGroup = 2;
inline int decode_group_width(int group) {
  return group <= 1 ? 1 : group <= kDecodeMaxCudaCoreGroup ? 2 : kDecodeMmaRows;
}

// Blocks one partition per sequence gives: batch x KV heads x head chunks.
inline int decode_blocks_per_split(const attnscope_cuda_decode_params& p) {
  const int group = p.num_heads / p.num_kv_heads;
  return p.batch * p.num_kv_heads * ceil_div(group, decode_group_width(group));
}

// Calls fn(kernel, dynamic_smem_bytes) with the split kernel instance for p's head_dim, dtype
// and group width (decode_group_width) (kernel: void(attnscope_cuda_decode_params, int num_splits, int
// partition_tokens, int head_chunks)).
template <typename Fn>
auto with_decode_kernel(const attnscope_cuda_decode_params& p, Fn&& fn) {
  auto with_dim = [&](auto dim_tag, auto type_tag) {
    constexpr int D = decltype(dim_tag)::value;
    using T = decltype(type_tag);
    switch (decode_group_width(p.num_heads / p.num_kv_heads)) {
      case 1: return fn(paged_decode_kernel<D, 1, T>, DecodeSmem<D, 1>::kBytes);
      case 2: return fn(paged_decode_kernel<D, 2, T>, DecodeSmem<D, 2>::kBytes);
      default: return fn(paged_decode_mma_kernel<D, T>, DecodeMmaSmem<D>::kBytes);
    }
  };
  auto with_type = [&](auto type_tag) {
    return p.head_dim == 64 ? with_dim(std::integral_constant<int, 64>{}, type_tag)
                            : with_dim(std::integral_constant<int, 128>{}, type_tag);
  };
  return p.dtype == ATTNSCOPE_CUDA_BF16 ? with_type(__nv_bfloat16{}) : with_type(__half{});
}

// Enqueues the split kernel over (num_splits, H_kv x head chunks, B) and, with several
// partitions, the merge over (H, B). launch(kernel, shape, args...) returns a status where 0
// is success; the first failure is returned.
template <typename Launch>
auto dispatch_paged_decode(const attnscope_cuda_decode_params& p, const DecodeSplitPlan& plan, Launch&& launch) {
  const int group = p.num_heads / p.num_kv_heads;
  const int head_chunks = ceil_div(group, decode_group_width(group));
  const dim3 grid(plan.num_splits, p.num_kv_heads * head_chunks, p.batch);
  auto status = with_decode_kernel(p, [&](auto kernel, int smem_bytes) {
    return launch(kernel, LaunchShape{grid, kDecodeThreads, static_cast<size_t>(smem_bytes), false}, p,
                  plan.num_splits, plan.partition_tokens, head_chunks);
  });
  if (status != decltype(status){} || plan.num_splits == 1) return status;
  const LaunchShape merge_shape{dim3(p.num_heads, p.batch), p.head_dim, 0, true};
  auto merge = [&](auto dim_tag, auto type_tag) {
    return launch(paged_decode_merge_kernel<decltype(dim_tag)::value, decltype(type_tag)>, merge_shape, p,
                  plan.num_splits, plan.partition_tokens);
  };
  auto merge_type = [&](auto type_tag) {
    return p.head_dim == 64 ? merge(std::integral_constant<int, 64>{}, type_tag)
                            : merge(std::integral_constant<int, 128>{}, type_tag);
  };
  return p.dtype == ATTNSCOPE_CUDA_BF16 ? merge_type(__nv_bfloat16{}) : merge_type(__half{});
}

}  // namespace cuda
}  // namespace attnscope
