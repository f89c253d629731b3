// Flash forward, head_dim 64 (tile shapes: FlashFwdConfig<64> in flash_fwd_launch.cuh); one file
// per head_dim so that they compile in parallel.
#include "flash_fwd_launch.cuh"
#include "launch.h"
#include "stream_launch.cuh"

namespace attnscope {
namespace cuda {

cudaError_t launch_flash_fwd_hdim64(const attnscope_cuda_flash_params& p, cudaStream_t stream) {
  return dispatch_flash_fwd<FlashFwdConfig<64>::Traits>(p, StreamLaunch{stream});
}

}  // namespace cuda
}  // namespace attnscope
