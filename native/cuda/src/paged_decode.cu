// GPU launcher of the split-K paged decode: the plan (plan_decode_splits() over the device's SM
// count times the split kernel's resident blocks per SM) and the launches (paged_decode_launch.cuh).
#include <cuda_runtime.h>

#include "launch.h"
#include "paged_decode_launch.cuh"
#include "stream_launch.cuh"

namespace attnscope {
namespace cuda {

cudaError_t plan_paged_decode(const attnscope_cuda_decode_params& p, DecodeSplitPlan* plan) {
  int device = 0, sms = 0, per_sm = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (e == cudaSuccess) {
    e = with_decode_kernel(p, [&](auto kernel, int smem_bytes) {
      const cudaError_t opt_in = allow_dynamic_smem(kernel, static_cast<size_t>(smem_bytes));
      if (opt_in != cudaSuccess) return opt_in;
      return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kDecodeThreads, smem_bytes);
    });
  }
  if (e != cudaSuccess) return e;
  *plan = plan_decode_splits(decode_blocks_per_split(p), p.max_context_len, sms * max_int(per_sm, 1),
                             p.partition_tokens);
  return cudaSuccess;
}

size_t paged_decode_workspace_bytes(const attnscope_cuda_decode_params& p, int num_splits) {
  if (num_splits <= 1) return 0;
  return static_cast<size_t>(p.batch) * p.num_heads * num_splits * (p.head_dim + 1) * sizeof(float);
}

cudaError_t launch_paged_decode(const attnscope_cuda_decode_params& p, int num_splits, int partition_tokens,
                                cudaStream_t stream) {
  return dispatch_paged_decode(p, DecodeSplitPlan{num_splits, partition_tokens}, StreamLaunch{stream});
}

}  // namespace cuda
}  // namespace attnscope
