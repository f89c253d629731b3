// Flash forward, head_dim 64: 128 query rows x 64 keys per tile, 4 warps of 32 rows each
// (48 KiB of shared memory: fits without opting in, several blocks per SM).
#include "flash_fwd_launch.cuh"
#include "launch.h"

namespace attnscope {
namespace cuda {

cudaError_t launch_flash_fwd_hdim64(const attnscope_cuda_flash_params& p, cudaStream_t stream) {
  return launch_flash_fwd_dtype<FlashFwdTraits<64, 128, 64, 4>>(p, stream);
}

}  // namespace cuda
}  // namespace attnscope
