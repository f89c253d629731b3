// How a planned kernel is launched: what dispatch_flash_fwd() / dispatch_paged_decode() hand to
// their Launch callback together with the kernel instance and its arguments. Shared by the
// GPU launcher (stream_launch.cuh) and the CPU emulation (test/gpu/emulate), which runs the
// same instances over the same grids.
#pragma once

#include <stddef.h>

namespace attnscope {
namespace cuda {

struct LaunchShape {
  dim3 grid;
  int threads;                  // per block
  size_t smem_bytes;            // dynamic shared memory per block
  bool programmatic_dependent;  // may overlap the previous kernel on the stream (sm_90+), which it
                                // waits for with cudaGridDependencySynchronize()
};

}  // namespace cuda
}  // namespace attnscope
