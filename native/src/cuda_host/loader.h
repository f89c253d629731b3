// Run-time loader of the optional GPU backend (libattnscope_cuda.so). Nothing here links
// CUDA: the driver (libcuda.so.1) is dlopen()ed first to ask whether a device exists, and only
// then the AttnScope CUDA library, whose C ABI version must equal ATTNSCOPE_CUDA_ABI_VERSION.
// Pure C++, no N-API types (napi/cuda.cc bridges).
#ifndef ATTNSCOPE_CUDA_LOADER_H_
#define ATTNSCOPE_CUDA_LOADER_H_

#include <string>
#include <vector>

#include "attnscope_cuda.h"

namespace attnscope {
namespace cuda_loader {

// The library's entry points, resolved by name.
struct CudaApi {
  int (*abi_version)(void);
  const char* (*last_error)(void);
  int (*get_device_count)(int*);
  int (*get_device_info)(int, attnscope_cuda_device_info*);
  int (*set_device)(int);
  int (*flash_fwd_host)(const attnscope_cuda_flash_params*, const attnscope_cuda_flash_host_io*,
                        const attnscope_cuda_timing*, float*, int*);
  int (*paged_decode_host)(const attnscope_cuda_decode_params*, const attnscope_cuda_decode_host_io*,
                           const attnscope_cuda_timing*, float*, int*);
  int (*time_copy)(size_t, const attnscope_cuda_timing*, float*, int*);
};

struct Probe {
  bool available = false;
  std::string reason;        // why not, when !available: what is missing and how to fix it
  std::string library_path;  // the library loaded, when available
  int driver_version = 0;    // from the driver, 0 when no driver was found
  int device_count = 0;
};

// Finds the driver and a device, then loads the first existing library in `library_paths`.
// Thread-compatible: call from the JS thread. The library stays loaded for the process.
Probe probe(const std::vector<std::string>& library_paths);

// The loaded library's entry points; nullptr until probe() has succeeded.
const CudaApi* api();

// Test hook: loads `path` the way probe() does (ABI version check included) and unloads it,
// without looking for a driver. False with `error` set when probe() would refuse it.
bool check_library(const std::string& path, std::string* error);

}  // namespace cuda_loader
}  // namespace attnscope

#endif  // ATTNSCOPE_CUDA_LOADER_H_
