// Launchers shared between the C ABI (api.cu) and the kernel files. Arguments are validated by
// api.cu before they get here; launchers only enqueue work and return the launch status.
#pragma once

#include <cuda_runtime.h>

#include "attnscope_cuda.h"
#include "attnscope_cuda_math.h"

namespace attnscope {
namespace cuda {

// Flash forward for one head_dim (flash_fwd_hdim64.cu, flash_fwd_hdim128.cu).
cudaError_t launch_flash_fwd_hdim64(const attnscope_cuda_flash_params& p, cudaStream_t stream);
cudaError_t launch_flash_fwd_hdim128(const attnscope_cuda_flash_params& p, cudaStream_t stream);

// Split-K decode with num_splits partitions of partition_tokens (paged_decode.cu); the
// workspace holds [B, H, num_splits] lse then [B, H, num_splits, D] partial outputs (fp32).
cudaError_t launch_paged_decode(const attnscope_cuda_decode_params& p, int num_splits, int partition_tokens,
                                cudaStream_t stream);
size_t paged_decode_workspace_bytes(const attnscope_cuda_decode_params& p, int num_splits);
// The split plan for p on the current device: whole waves of the split kernel instance p runs
// (SMs x cudaOccupancyMaxActiveBlocksPerMultiprocessor), or p.partition_tokens when > 0.
cudaError_t plan_paged_decode(const attnscope_cuda_decode_params& p, DecodeSplitPlan* plan);

}  // namespace cuda
}  // namespace attnscope
