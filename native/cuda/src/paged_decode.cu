// GPU launcher of the split-K paged decode: the plan (partitions sized from the device's SM
// count and the split kernel's occupancy) and the launches, both from paged_decode_launch.cuh.
#include <cuda_runtime.h>

#include "launch.h"
#include "paged_decode_launch.cuh"
#include "stream_launch.cuh"

namespace attnscope {
namespace cuda {

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
