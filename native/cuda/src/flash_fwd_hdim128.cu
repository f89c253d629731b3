// Flash forward, head_dim 128: 128 query rows x 64 keys per tile, 4 warps of 32 rows each
// (FlashAttention-2's sm80 choice for this head_dim; 96 KiB of shared memory, 2 blocks per
// H100/H200 SM).
#include "flash_fwd_launch.cuh"
#include "launch.h"

namespace attnscope {
namespace cuda {

cudaError_t launch_flash_fwd_hdim128(const attnscope_cuda_flash_params& p, cudaStream_t stream) {
  return launch_flash_fwd_dtype<FlashFwdTraits<128, 128, 64, 4>>(p, stream);
}

}  // namespace cuda
}  // namespace attnscope
