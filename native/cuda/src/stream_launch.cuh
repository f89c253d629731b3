// Enqueues a kernel instance chosen by a dispatch_*() planner on a CUDA stream: opts in to
// more than 48 KiB of dynamic shared memory where needed, and sets programmatic dependent
// launch (sm_90+: the kernel may start while the previous one on the stream finishes; it
// must call cudaGridDependencySynchronize() before reading that kernel's output).
#pragma once

#include <cuda_runtime.h>

#include "launch_shape.h"

namespace attnscope {
namespace cuda {

// Opts kernel in to smem_bytes of dynamic shared memory when that is over the 48 KiB default
// (needed before launching it and before asking the occupancy API about it).
template <typename... Params>
cudaError_t allow_dynamic_smem(void (*kernel)(Params...), size_t smem_bytes) {
  if (smem_bytes <= 48 * 1024) return cudaSuccess;
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem_bytes));
}

struct StreamLaunch {
  cudaStream_t stream;

  // Returns the launch status.
  template <typename... Params, typename... Args>
  cudaError_t operator()(void (*kernel)(Params...), const LaunchShape& shape, Args... args) const {
    const cudaError_t e = allow_dynamic_smem(kernel, shape.smem_bytes);
    if (e != cudaSuccess) return e;
    cudaLaunchConfig_t config = {};
    config.gridDim = shape.grid;
    config.blockDim = dim3(shape.threads);
    config.dynamicSmemBytes = shape.smem_bytes;
    config.stream = stream;
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute[0].val.programmaticStreamSerializationAllowed = 1;
    config.attrs = attribute;
    config.numAttrs = shape.programmatic_dependent ? 1 : 0;
    return cudaLaunchKernelEx(&config, kernel, args...);
  }
};

}  // namespace cuda
}  // namespace attnscope
