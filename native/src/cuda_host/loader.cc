// See loader.h. The driver API is reached through three symbols of libcuda.so.1 (cuInit,
// cuDriverGetVersion, cuDeviceGetCount), declared here by hand so no CUDA header is needed.
#include "cuda_host/loader.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <string>
#include <vector>

namespace attnscope {
namespace cuda_loader {
namespace {

constexpr int kCudaSuccess = 0;
constexpr int kCudaErrorNoDevice = 100;  // CUDA_ERROR_NO_DEVICE

CudaApi g_api;
bool g_loaded = false;

bool file_exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string dl_error() {
  const char* e = dlerror();
  return e != nullptr ? e : "unknown dlopen error";
}

template <typename Fn>
bool resolve(void* handle, const char* name, Fn* out, std::string* missing) {
  *out = reinterpret_cast<Fn>(dlsym(handle, name));
  if (*out == nullptr) {
    if (!missing->empty()) *missing += ", ";
    *missing += name;
  }
  return *out != nullptr;
}

// Probes the driver; fills driver_version / device_count or the reason there is no device.
bool probe_driver(Probe* out) {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver == nullptr) {
    out->reason = "no NVIDIA driver: libcuda.so.1 could not be loaded (" + dl_error() +
                  "); install the NVIDIA driver to use the CUDA backend";
    return false;
  }
  using InitFn = int (*)(unsigned);
  using IntOutFn = int (*)(int*);
  InitFn cu_init = nullptr;
  IntOutFn cu_driver_version = nullptr, cu_device_count = nullptr;
  std::string missing;
  resolve(driver, "cuInit", &cu_init, &missing);
  resolve(driver, "cuDriverGetVersion", &cu_driver_version, &missing);
  resolve(driver, "cuDeviceGetCount", &cu_device_count, &missing);
  if (!missing.empty()) {
    out->reason = "the NVIDIA driver's libcuda.so.1 lacks " + missing;
    return false;
  }
  cu_driver_version(&out->driver_version);
  const int init = cu_init(0);
  if (init == kCudaErrorNoDevice) {
    out->reason = "no CUDA device: the NVIDIA driver found no GPU";
    return false;
  }
  if (init != kCudaSuccess) {
    out->reason = "the NVIDIA driver failed to initialise (cuInit error " + std::to_string(init) +
                  "); check nvidia-smi";
    return false;
  }
  if (cu_device_count(&out->device_count) != kCudaSuccess || out->device_count == 0) {
    out->reason = "no CUDA device: the NVIDIA driver reports 0 GPUs";
    return false;
  }
  return true;  // the driver handle stays open: the library's runtime uses it next
}

void* open_library(const std::string& path, std::string* error) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    *error = "the CUDA library " + path + " failed to load: " + dl_error();
    return nullptr;
  }
  using AbiFn = int (*)(void);
  AbiFn abi = reinterpret_cast<AbiFn>(dlsym(handle, "attnscope_cuda_abi_version"));
  if (abi == nullptr) {
    *error = path + " is not an AttnScope CUDA library (no attnscope_cuda_abi_version)";
    dlclose(handle);
    return nullptr;
  }
  if (abi() != ATTNSCOPE_CUDA_ABI_VERSION) {
    *error = path + " has C ABI version " + std::to_string(abi()) + ", this addon needs " +
             std::to_string(ATTNSCOPE_CUDA_ABI_VERSION) + "; rebuild both with `npm run build:native`";
    dlclose(handle);
    return nullptr;
  }
  return handle;
}

}  // namespace

Probe probe(const std::vector<std::string>& library_paths) {
  Probe out;
  if (!probe_driver(&out)) return out;
  std::string path;
  for (const std::string& candidate : library_paths) {
    if (file_exists(candidate)) {
      path = candidate;
      break;
    }
  }
  if (path.empty()) {
    std::string tried;
    for (const std::string& candidate : library_paths) tried += (tried.empty() ? "" : ", ") + candidate;
    out.reason = "no CUDA library built: libattnscope_cuda.so not found (tried " + tried +
                 "); run `npm run build:native` where nvcc and cmake are on PATH, or set ATTNSCOPE_CUDA_LIB";
    return out;
  }
  std::string error;
  void* handle = open_library(path, &error);
  if (handle == nullptr) {
    out.reason = error;
    return out;
  }
  CudaApi api;
  std::string missing;
  resolve(handle, "attnscope_cuda_abi_version", &api.abi_version, &missing);
  resolve(handle, "attnscope_cuda_last_error", &api.last_error, &missing);
  resolve(handle, "attnscope_cuda_get_device_count", &api.get_device_count, &missing);
  resolve(handle, "attnscope_cuda_get_device_info", &api.get_device_info, &missing);
  resolve(handle, "attnscope_cuda_set_device", &api.set_device, &missing);
  resolve(handle, "attnscope_cuda_flash_fwd_host", &api.flash_fwd_host, &missing);
  resolve(handle, "attnscope_cuda_paged_decode_host", &api.paged_decode_host, &missing);
  resolve(handle, "attnscope_cuda_time_copy", &api.time_copy, &missing);
  if (!missing.empty()) {
    out.reason = path + " lacks " + missing + "; rebuild it with `npm run build:native`";
    return out;
  }
  // The runtime inside the library may still refuse the driver (too old for CUDA 13).
  int count = 0;
  if (api.get_device_count(&count) != ATTNSCOPE_CUDA_OK || count == 0) {
    out.reason = std::string("the CUDA runtime cannot use this driver: ") + api.last_error();
    return out;
  }
  g_api = api;
  g_loaded = true;
  out.available = true;
  out.library_path = path;
  out.device_count = count;
  return out;
}

const CudaApi* api() { return g_loaded ? &g_api : nullptr; }

bool check_library(const std::string& path, std::string* error) {
  if (!file_exists(path)) {
    *error = path + " does not exist";
    return false;
  }
  void* handle = open_library(path, error);
  if (handle == nullptr) return false;
  dlclose(handle);
  return true;
}

}  // namespace cuda_loader
}  // namespace attnscope
