// N-API bridge of the optional GPU backend. The addon links no CUDA: cudaProbe() dlopen()s the
// driver and then libattnscope_cuda.so (cuda_loader.cc); the kernel calls go through the
// library's host-memory entry points, one Napi::AsyncWorker per operation, off the JS thread.
// Specs arrive validated by native/cuda.ts (the same spec objects native/kernels.ts builds).
#include <napi.h>

#include <cmath>
#include <string>
#include <vector>

#include "../cuda/include/attnscope_cuda.h"
#include "cuda_loader.h"
#include "napi_fields.h"

Napi::Object InitCudaHostChecks(Napi::Env env, Napi::Object exports);

namespace {

namespace loader = attnscope::cuda_loader;

// The device cudaSetDevice() chose. CUDA's current device is per host thread and the kernels
// run on libuv's pool threads, so each worker selects it again.
int g_device = 0;

// dtype codes of native/kernels.ts: 0 fp32, 1 fp16, 2 bf16.
constexpr int kSpecFp16 = 1;
constexpr int kSpecBf16 = 2;

using attnscope::napi_fields::array_field;
using attnscope::napi_fields::int_field;
using attnscope::napi_fields::number_field;

int cuda_dtype(const Napi::Object& spec, const char* name) {
  const int d = int_field(spec, name);
  if (d == kSpecFp16) return ATTNSCOPE_CUDA_FP16;
  if (d == kSpecBf16) return ATTNSCOPE_CUDA_BF16;
  throw Napi::RangeError::New(spec.Env(), std::string(name) + ": the CUDA backend runs fp16 and bf16 only");
}

float softmax_scale(const Napi::Object& spec, int head_dim) {
  const double s = number_field(spec, "softmaxScale");
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

// Shared by the kernel workers: runs `call` off the JS thread, resolves with the samples in
// nanoseconds when timed (else undefined), rejects with the library's message on failure.
class CudaWorker : public Napi::AsyncWorker {
 public:
  CudaWorker(Napi::Env env, Napi::Object spec, const attnscope_cuda_timing* timing)
      : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), timed_(timing != nullptr) {
    spec_ref_ = Napi::Persistent(spec);  // pins the typed arrays until OnOK / OnError
    if (timed_) {
      timing_ = *timing;
      samples_ms_.resize(static_cast<size_t>(timing->max_reps > 0 ? timing->max_reps : 1));
    }
  }
  Napi::Promise Promise() { return deferred_.Promise(); }

 protected:
  virtual int Run(const loader::CudaApi& api) = 0;
  const attnscope_cuda_timing* timing() const { return timed_ ? &timing_ : nullptr; }
  float* samples() { return timed_ ? samples_ms_.data() : nullptr; }

  void Execute() override {
    const loader::CudaApi* api = loader::api();
    if (api->set_device(device_) != ATTNSCOPE_CUDA_OK || Run(*api) != ATTNSCOPE_CUDA_OK) {
      SetError(std::string("CUDA backend: ") + api->last_error());
    }
  }
  void OnOK() override {
    if (!timed_) {
      deferred_.Resolve(Env().Undefined());
      return;
    }
    Napi::Array out = Napi::Array::New(Env(), num_samples_);
    for (int i = 0; i < num_samples_; ++i) out.Set(i, Napi::Number::New(Env(), samples_ms_[i] * 1e6));
    deferred_.Resolve(out);
  }
  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

  int num_samples_ = 0;

 private:
  Napi::Promise::Deferred deferred_;
  Napi::ObjectReference spec_ref_;
  int device_ = g_device;
  bool timed_;
  attnscope_cuda_timing timing_{};
  std::vector<float> samples_ms_;
};

class FlashWorker : public CudaWorker {
 public:
  FlashWorker(Napi::Env env, Napi::Object spec, const attnscope_cuda_timing* timing)
      : CudaWorker(env, spec, timing) {
    p_.dtype = cuda_dtype(spec, "dtype");
    p_.batch_size = int_field(spec, "batch");
    p_.seq_len_q = int_field(spec, "seqlenQ");
    p_.seq_len_k = int_field(spec, "seqlenK");
    p_.num_heads = int_field(spec, "numHeads");
    p_.num_kv_heads = int_field(spec, "numKvHeads");
    p_.head_dim = int_field(spec, "headDim");
    p_.causal = spec.Get("causal").ToBoolean().Value() ? 1 : 0;
    const int window = int_field(spec, "window");  // W > 0: the last W keys, own position included
    p_.window_left = window > 0 ? window - 1 : -1;
    p_.softmax_scale = softmax_scale(spec, p_.head_dim);
    io_.q = array_field<uint16_t>(spec, "q", napi_uint16_array);
    io_.k = array_field<uint16_t>(spec, "k", napi_uint16_array);
    io_.v = array_field<uint16_t>(spec, "v", napi_uint16_array);
    io_.o = array_field<float>(spec, "o", napi_float32_array);
    io_.lse = array_field<float>(spec, "lse", napi_float32_array);
  }

 protected:
  int Run(const loader::CudaApi& api) override {
    return api.flash_fwd_host(&p_, &io_, timing(), samples(), &num_samples_);
  }

 private:
  attnscope_cuda_flash_params p_{};
  attnscope_cuda_flash_host_io io_{};
};

class DecodeWorker : public CudaWorker {
 public:
  DecodeWorker(Napi::Env env, Napi::Object spec, const attnscope_cuda_timing* timing)
      : CudaWorker(env, spec, timing) {
    p_.dtype = cuda_dtype(spec, "dtype");
    if (cuda_dtype(spec, "kvDtype") != p_.dtype) {
      throw Napi::RangeError::New(spec.Env(), "kvDtype: the CUDA backend needs the page pools in the dtype of q");
    }
    p_.batch_size = int_field(spec, "batch");
    p_.num_heads = int_field(spec, "numHeads");
    p_.num_kv_heads = int_field(spec, "numKvHeads");
    p_.head_dim = int_field(spec, "headDim");
    p_.page_size = int_field(spec, "pageSize");
    p_.num_pages = int_field(spec, "numPages");
    p_.max_pages_per_seq = int_field(spec, "maxPagesPerSeq");
    p_.partition_tokens = int_field(spec, "partitionTokens");
    p_.softmax_scale = softmax_scale(spec, p_.head_dim);
    io_.q = array_field<uint16_t>(spec, "q", napi_uint16_array);
    io_.k_pool = array_field<uint16_t>(spec, "kPages", napi_uint16_array);
    io_.v_pool = array_field<uint16_t>(spec, "vPages", napi_uint16_array);
    io_.block_table = array_field<int32_t>(spec, "blockTable", napi_int32_array);
    io_.context_lens = array_field<int32_t>(spec, "contextLens", napi_int32_array);
    io_.o = array_field<float>(spec, "o", napi_float32_array);
    io_.lse = array_field<float>(spec, "lse", napi_float32_array);
    p_.max_context_len = 0;
    for (int b = 0; b < p_.batch_size; ++b) {
      if (io_.context_lens[b] > p_.max_context_len) p_.max_context_len = io_.context_lens[b];
    }
  }

 protected:
  int Run(const loader::CudaApi& api) override {
    return api.paged_decode_host(&p_, &io_, timing(), samples(), &num_samples_);
  }

 private:
  attnscope_cuda_decode_params p_{};
  attnscope_cuda_decode_host_io io_{};
};

class CopyWorker : public CudaWorker {
 public:
  CopyWorker(Napi::Env env, Napi::Object holder, size_t bytes, const attnscope_cuda_timing& timing)
      : CudaWorker(env, holder, &timing), bytes_(bytes) {}

 protected:
  int Run(const loader::CudaApi& api) override { return api.time_copy(bytes_, timing(), samples(), &num_samples_); }

 private:
  size_t bytes_;
};

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

attnscope_cuda_timing* optional_timing(const Napi::CallbackInfo& info, size_t i, attnscope_cuda_timing* storage) {
  return info.Length() > i && read_timing(info[i], storage) ? storage : nullptr;
}

Napi::Object spec_arg(const Napi::CallbackInfo& info) {
  if (!info[0].IsObject()) throw Napi::TypeError::New(info.Env(), "spec must be an object");
  return info[0].As<Napi::Object>();
}

// cudaFlashForward(spec, timing?) -> Promise<number[] | undefined>: writes spec.o, spec.lse.
Napi::Value CudaFlashForward(const Napi::CallbackInfo& info) {
  require_api(info.Env());
  attnscope_cuda_timing t;
  auto* worker = new FlashWorker(info.Env(), spec_arg(info), optional_timing(info, 1, &t));
  worker->Queue();
  return worker->Promise();
}

// cudaPagedDecode(spec, timing?) -> Promise<number[] | undefined>: writes spec.o, spec.lse.
Napi::Value CudaPagedDecode(const Napi::CallbackInfo& info) {
  require_api(info.Env());
  attnscope_cuda_timing t;
  auto* worker = new DecodeWorker(info.Env(), spec_arg(info), optional_timing(info, 1, &t));
  worker->Queue();
  return worker->Promise();
}

// cudaTimeCopy(bytes, timing) -> Promise<number[]>: device-to-device copy times in ns.
Napi::Value CudaTimeCopy(const Napi::CallbackInfo& info) {
  require_api(info.Env());
  if (!info[0].IsNumber()) throw Napi::TypeError::New(info.Env(), "bytes must be a number");
  attnscope_cuda_timing t;
  if (!read_timing(info[1], &t)) throw Napi::TypeError::New(info.Env(), "timing must be an object");
  auto* worker = new CopyWorker(info.Env(), Napi::Object::New(info.Env()),
                                static_cast<size_t>(info[0].As<Napi::Number>().DoubleValue()), t);
  worker->Queue();
  return worker->Promise();
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
  InitCudaHostChecks(env, exports);
  return exports;
}
