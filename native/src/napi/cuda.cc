// N-API bridge of the optional GPU backend. The addon links no CUDA: cudaProbe() dlopen()s the
// driver and then libattnscope_cuda.so (cuda_host/loader.cc); the kernel calls go through the
// library's host-memory entry points, each queued as one napi_bridge::KernelWorker (napi/worker.h).
// Specs arrive validated by native/cuda.ts (the same spec objects native/kernels.ts builds).
#include <napi.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "attnscope_cuda.h"
#include "cuda_host/loader.h"
#include "napi/fields.h"
#include "napi/worker.h"

namespace {

namespace loader = attnscope::cuda_loader;

// The device cudaSetDevice() chose. CUDA's current device is per host thread and the kernels
// run on libuv's pool threads, so each worker selects it again.
int g_device = 0;

// dtype codes of native/kernels.ts: 0 fp32, 1 fp16, 2 bf16.
constexpr int kSpecFp16 = 1;
constexpr int kSpecBf16 = 2;

using attnscope::napi_fields::array_field;
using attnscope::napi_fields::DecodeShape;
using attnscope::napi_fields::FlashShape;
using attnscope::napi_fields::int_field;
using attnscope::napi_fields::number_field;
using attnscope::napi_fields::read_decode_shape;
using attnscope::napi_fields::read_flash_shape;
namespace napi_bridge = attnscope::napi_bridge;
using napi_bridge::JobResult;
using napi_bridge::Outcome;
using napi_bridge::queue;

int cuda_dtype(const Napi::Object& spec, const char* name) {
  const int d = int_field(spec, name);
  if (d == kSpecFp16) return ATTNSCOPE_CUDA_FP16;
  if (d == kSpecBf16) return ATTNSCOPE_CUDA_BF16;
  throw Napi::RangeError::New(spec.Env(), std::string(name) + ": the CUDA backend runs fp16 and bf16 only");
}

float softmax_scale(double s, int head_dim) {
  return static_cast<float>(s > 0 ? s : 1.0 / std::sqrt(static_cast<double>(head_dim)));
}

bool read_timing(const Napi::Value& v, attnscope_cuda_timing* t) {
  if (v.IsUndefined() || v.IsNull()) return false;
  if (!v.IsObject()) throw Napi::TypeError::New(v.Env(), "timing must be an object");
  const Napi::Object o = v.As<Napi::Object>();
  t->warmup = int_field(o, "warmup");
  t->min_reps = int_field(o, "minReps");
  t->max_reps = int_field(o, "maxReps");
  t->min_time_ms = number_field(o, "minTimeMs");
  t->max_time_ms = number_field(o, "maxTimeMs");
  return true;
}

const loader::CudaApi& require_api(Napi::Env env) {
  const loader::CudaApi* api = loader::api();
  if (api == nullptr) throw Napi::Error::New(env, "the CUDA backend is not loaded: call cudaProbe() first");
  return *api;
}

// Runs one call of the library on the worker thread, on the device cudaSetDevice() chose, and
// reports it as the bridges' one outcome (napi/worker.h); a timed call's samples (ms) become ns.
// `call(api, timing, samples_ms, num_samples)`.
template <typename Call>
napi_bridge::Job cuda_job(const attnscope_cuda_timing* timing, Call call) {
  const bool timed = timing != nullptr;
  const attnscope_cuda_timing t = timed ? *timing : attnscope_cuda_timing{};
  const int device = g_device;
  return [timed, t, device, call](std::vector<double>* out) -> JobResult {
    const loader::CudaApi* api = loader::api();
    std::vector<float> samples_ms(timed ? static_cast<size_t>(t.max_reps > 0 ? t.max_reps : 1) : 0);
    int num_samples = 0;
    int rc = api->set_device(device);
    if (rc == ATTNSCOPE_CUDA_OK) {
      rc = call(*api, timed ? &t : nullptr, timed ? samples_ms.data() : nullptr, &num_samples);
    }
    if (rc != ATTNSCOPE_CUDA_OK) {
      return {rc == ATTNSCOPE_CUDA_ERR_INVALID_ARGUMENT ? Outcome::kInvalidArgument : Outcome::kFailed,
              std::string("CUDA backend: ") + api->last_error()};
    }
    for (int i = 0; i < num_samples; ++i) out->push_back(double(samples_ms[i]) * 1e6);
    return {};
  };
}

attnscope_cuda_flash_params flash_params(const Napi::Object& spec) {
  attnscope_cuda_flash_params p{};
  const FlashShape shape = read_flash_shape(spec, &p);
  p.dtype = cuda_dtype(spec, "dtype");
  p.causal = shape.causal ? 1 : 0;
  p.window_left = shape.window > 0 ? shape.window - 1 : -1;  // the last W keys, own position included
  p.softmax_scale = softmax_scale(shape.softmax_scale, p.head_dim);
  return p;
}

attnscope_cuda_decode_params decode_params(const Napi::Object& spec, const int32_t* context_lens) {
  attnscope_cuda_decode_params p{};
  const DecodeShape shape = read_decode_shape(spec, &p);
  p.dtype = cuda_dtype(spec, "dtype");
  if (cuda_dtype(spec, "kvDtype") != p.dtype) {
    throw Napi::RangeError::New(spec.Env(), "kvDtype: the CUDA backend needs the page pools in the dtype of q");
  }
  p.softmax_scale = softmax_scale(shape.softmax_scale, p.head_dim);
  p.max_context_len = 0;
  for (int b = 0; b < p.batch; ++b) p.max_context_len = std::max(p.max_context_len, context_lens[b]);
  return p;
}

// cudaProbe(libraryPaths: string[]) -> { available, reason?, libraryPath?, driverVersion, deviceCount, devices? }
Napi::Value CudaProbe(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsArray()) throw Napi::TypeError::New(env, "libraryPaths must be an array of strings");
  Napi::Array list = info[0].As<Napi::Array>();
  std::vector<std::string> paths;
  for (uint32_t i = 0; i < list.Length(); ++i) {
    Napi::Value v = list.Get(i);
    if (!v.IsString()) throw Napi::TypeError::New(env, "libraryPaths must be an array of strings");
    paths.push_back(v.As<Napi::String>().Utf8Value());
  }
  const loader::Probe probe = loader::probe(paths);
  Napi::Object out = Napi::Object::New(env);
  out.Set("available", probe.available);
  out.Set("driverVersion", probe.driver_version);
  out.Set("deviceCount", probe.device_count);
  if (!probe.available) {
    out.Set("reason", probe.reason);
    return out;
  }
  out.Set("libraryPath", probe.library_path);
  const loader::CudaApi& api = *loader::api();
  Napi::Array devices = Napi::Array::New(env);
  for (int d = 0; d < probe.device_count; ++d) {
    attnscope_cuda_device_info di{};
    if (api.get_device_info(d, &di) != ATTNSCOPE_CUDA_OK) {
      throw Napi::Error::New(env, std::string("CUDA backend: ") + api.last_error());
    }
    Napi::Object o = Napi::Object::New(env);
    o.Set("index", d);
    o.Set("name", di.name);
    o.Set("computeCapability", std::to_string(di.compute_capability_major) + "." +
                                   std::to_string(di.compute_capability_minor));
    o.Set("multiprocessorCount", di.multiprocessor_count);
    o.Set("smClockKHz", di.sm_clock_khz);
    o.Set("memoryClockKHz", di.memory_clock_khz);
    o.Set("memoryBusWidthBits", di.memory_bus_width_bits);
    o.Set("l2CacheBytes", di.l2_cache_bytes);
    o.Set("maxSharedMemoryPerBlockOptin", di.max_shared_memory_per_block_optin);
    o.Set("driverVersion", di.driver_version);
    o.Set("runtimeVersion", di.runtime_version);
    o.Set("totalMemoryBytes", static_cast<double>(di.total_memory_bytes));
    o.Set("freeMemoryBytes", static_cast<double>(di.free_memory_bytes));
    devices.Set(devices.Length(), o);
  }
  out.Set("devices", devices);
  return out;
}

// cudaSetDevice(index)
Napi::Value CudaSetDevice(const Napi::CallbackInfo& info) {
  const loader::CudaApi& api = require_api(info.Env());
  if (!info[0].IsNumber()) throw Napi::TypeError::New(info.Env(), "device must be a number");
  const int device = info[0].As<Napi::Number>().Int32Value();
  if (api.set_device(device) != ATTNSCOPE_CUDA_OK) {
    throw Napi::RangeError::New(info.Env(), std::string("device: ") + api.last_error());
  }
  g_device = device;
  return info.Env().Undefined();
}

Napi::Object spec_arg(const Napi::CallbackInfo& info) {
  if (!info[0].IsObject()) throw Napi::TypeError::New(info.Env(), "spec must be an object");
  return info[0].As<Napi::Object>();
}

// The 2-byte elements (fp16 / bf16 bits) of input `name` of a spec.
const uint16_t* half_field(const Napi::Object& spec, const char* name) {
  return array_field<uint16_t>(spec, name, napi_uint16_array);
}

// A host-memory entry point of the library (CudaApi::flash_fwd_host, paged_decode_host).
template <typename Params, typename Io>
using HostEntry = int (*loader::CudaApi::*)(const Params*, const Io*, const attnscope_cuda_timing*, float*, int*);

// The one way the kernel bridges call the library: io gets spec's fp32 outputs o and lse, and
// entry(p, io) is queued on a worker, timed when info[1] is a timing object. Returns the
// worker's promise (samples in ns when timed).
template <typename Params, typename Io>
Napi::Value queue_host_call(const Napi::CallbackInfo& info, const Napi::Object& spec, const Params& p, Io io,
                            HostEntry<Params, Io> entry) {
  io.o = array_field<float>(spec, "o", napi_float32_array);
  io.lse = array_field<float>(spec, "lse", napi_float32_array);
  attnscope_cuda_timing storage;
  const attnscope_cuda_timing* timing = info.Length() > 1 && read_timing(info[1], &storage) ? &storage : nullptr;
  auto call = [p, io, entry](const loader::CudaApi& api, const attnscope_cuda_timing* tm, float* s, int* n) {
    return (api.*entry)(&p, &io, tm, s, n);
  };
  return queue(info.Env(), spec, cuda_job(timing, call), timing != nullptr);
}

// cudaFlashForward(spec, timing?) -> Promise<number[] | undefined>: writes spec.o, spec.lse.
Napi::Value CudaFlashForward(const Napi::CallbackInfo& info) {
  require_api(info.Env());
  const Napi::Object spec = spec_arg(info);
  attnscope_cuda_flash_host_io io{};
  io.q = half_field(spec, "q");
  io.k = half_field(spec, "k");
  io.v = half_field(spec, "v");
  return queue_host_call(info, spec, flash_params(spec), io, &loader::CudaApi::flash_fwd_host);
}

// cudaPagedDecode(spec, timing?) -> Promise<number[] | undefined>: writes spec.o, spec.lse.
Napi::Value CudaPagedDecode(const Napi::CallbackInfo& info) {
  require_api(info.Env());
  const Napi::Object spec = spec_arg(info);
  attnscope_cuda_decode_host_io io{};
  io.q = half_field(spec, "q");
  io.k_pool = half_field(spec, "kPages");
  io.v_pool = half_field(spec, "vPages");
  io.block_table = array_field<int32_t>(spec, "blockTable", napi_int32_array);
  io.context_lens = array_field<int32_t>(spec, "contextLens", napi_int32_array);
  return queue_host_call(info, spec, decode_params(spec, io.context_lens), io, &loader::CudaApi::paged_decode_host);
}

// cudaTimeCopy(bytes, timing) -> Promise<number[]>: device-to-device copy times in ns.
Napi::Value CudaTimeCopy(const Napi::CallbackInfo& info) {
  require_api(info.Env());
  if (!info[0].IsNumber()) throw Napi::TypeError::New(info.Env(), "bytes must be a number");
  attnscope_cuda_timing t;
  if (!read_timing(info[1], &t)) throw Napi::TypeError::New(info.Env(), "timing must be an object");
  const size_t bytes = static_cast<size_t>(info[0].As<Napi::Number>().DoubleValue());
  return queue(info.Env(), Napi::Object::New(info.Env()), cuda_job(&t, [bytes](const loader::CudaApi& api, const attnscope_cuda_timing* tm, float* s, int* n) {
                 return api.time_copy(bytes, tm, s, n);
               }), true);
}

// cudaCheckLibrary(path) -> string | null: why probe() would refuse this library (test hook).
Napi::Value CudaCheckLibrary(const Napi::CallbackInfo& info) {
  if (!info[0].IsString()) throw Napi::TypeError::New(info.Env(), "path must be a string");
  std::string error;
  if (loader::check_library(info[0].As<Napi::String>().Utf8Value(), &error)) return info.Env().Null();
  return Napi::String::New(info.Env(), error);
}

}  // namespace

Napi::Object InitCuda(Napi::Env env, Napi::Object exports) {
  exports.Set("cudaProbe", Napi::Function::New(env, CudaProbe));
  exports.Set("cudaSetDevice", Napi::Function::New(env, CudaSetDevice));
  exports.Set("cudaFlashForward", Napi::Function::New(env, CudaFlashForward));
  exports.Set("cudaPagedDecode", Napi::Function::New(env, CudaPagedDecode));
  exports.Set("cudaTimeCopy", Napi::Function::New(env, CudaTimeCopy));
  exports.Set("cudaCheckLibrary", Napi::Function::New(env, CudaCheckLibrary));
  return exports;
}
