// N-API bridge of the CPU attention kernels. The JS arguments (already validated by
// native/kernels.ts) are read into a plain Params struct and each operation is queued as one
// napi_bridge::KernelWorker (napi/worker.h: pinned spec, off the JS thread, one error mapping).
#include <napi.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cpu_features.h"
#include "kernels/kernels.h"
#include "kernels/threads.h"
#include "napi/fields.h"
#include "napi/worker.h"

namespace {

using attnscope::Status;

using attnscope::napi_fields::array_field;
using attnscope::napi_fields::decode_shape;
using attnscope::napi_fields::flash_shape;
using attnscope::napi_fields::int_field;
using attnscope::napi_fields::number_field;
using attnscope::napi_bridge::JobResult;
using attnscope::napi_bridge::Outcome;

// Queues a CPU kernel job: a cancel_kernels() request left from an earlier call is withdrawn
// first (on the JS thread, where kernelsCancel also runs, so a cancel after this call is kept).
Napi::Value queue_kernel(Napi::Env env, const Napi::Object& pinned, attnscope::napi_bridge::Job job, bool timed) {
  attnscope::clear_kernel_cancel();
  return attnscope::napi_bridge::queue(env, pinned, std::move(job), timed);
}

const void* input_field(const Napi::Object& spec, const char* name, attnscope::DType dtype) {
  return dtype == attnscope::DType::kF32
             ? static_cast<const void*>(array_field<float>(spec, name, napi_float32_array))
             : static_cast<const void*>(array_field<uint16_t>(spec, name, napi_uint16_array));
}

attnscope::DType dtype_field(const Napi::Object& spec, const char* name) {
  const int d = int_field(spec, name);
  if (d < 0 || d > 2) throw Napi::RangeError::New(spec.Env(), std::string(name) + " is not a dtype code");
  return static_cast<attnscope::DType>(d);
}

attnscope::KvCacheLayout layout_field(const Napi::Object& spec, const char* name) {
  const int code = int_field(spec, name);
  if (code < 0 || code > 1) throw Napi::RangeError::New(spec.Env(), std::string(name) + " is not a KV layout code");
  return static_cast<attnscope::KvCacheLayout>(code);
}

attnscope::SimdPath simd_field(const Napi::Object& spec) {
  const Napi::Value v = spec.Get("simd");
  if (!v.IsString()) throw Napi::TypeError::New(spec.Env(), "simd must be a string");
  attnscope::SimdPath path;
  if (!attnscope::parse_simd_path(v.As<Napi::String>().Utf8Value().c_str(), &path))
    throw Napi::RangeError::New(spec.Env(), "simd names no SIMD path");
  return path;
}

// q, k, v of a flash spec (native/kernels.ts flashSpec), in its dtype.
attnscope::bridge::AttentionInputs attention_inputs(const Napi::Object& s) {
  const attnscope::DType dtype = dtype_field(s, "dtype");
  return {dtype, input_field(s, "q", dtype), input_field(s, "k", dtype), input_field(s, "v", dtype)};
}

attnscope::FlashParams flash_params(const Napi::Object& s) {
  return attnscope::bridge::flash_params(flash_shape(s), attention_inputs(s), array_field<float>(s, "o", napi_float32_array),
                                         array_field<float>(s, "lse", napi_float32_array), int_field(s, "threads"),
                                         simd_field(s));
}

// with_outputs = false for the reference, which writes fp64 arrays of its own.
attnscope::PagedDecodeParams paged_params(const Napi::Object& s, bool with_outputs = true) {
  const attnscope::DType dtype = dtype_field(s, "dtype"), kv_dtype = dtype_field(s, "kvDtype");
  const attnscope::bridge::DecodeInputs in{dtype,
                                           kv_dtype,
                                           input_field(s, "q", dtype),
                                           input_field(s, "kPages", kv_dtype),
                                           input_field(s, "vPages", kv_dtype),
                                           array_field<int32_t>(s, "blockTable", napi_int32_array),
                                           array_field<int32_t>(s, "contextLens", napi_int32_array)};
  float* o = with_outputs ? array_field<float>(s, "o", napi_float32_array) : nullptr;
  float* lse = with_outputs ? array_field<float>(s, "lse", napi_float32_array) : nullptr;
  attnscope::PagedDecodeParams p =
      attnscope::bridge::decode_params(decode_shape(s), in, o, lse, int_field(s, "threads"), simd_field(s));
  p.kv_cache_layout = layout_field(s, "kvCacheLayout");
  return p;
}

attnscope::TimingParams timing_params(const Napi::Object& t) {
  return attnscope::bridge::timing_params(int_field(t, "warmup"), int_field(t, "minReps"), int_field(t, "maxReps"),
                                          number_field(t, "minTimeMs"), number_field(t, "maxTimeMs"));
}

// A kernel Status as the bridges' one outcome; reads last_error() on this (the worker) thread.
JobResult job_result(Status status) {
  if (status == Status::kOk) return {};
  return {status == Status::kInvalidArgument ? Outcome::kInvalidArgument : Outcome::kFailed, attnscope::last_error()};
}

// The optional `cpuNs` Float64Array of a timing spec: where the CPU time of each run goes.
struct CpuSamples {
  double* data = nullptr;
  size_t length = 0;
};

CpuSamples cpu_samples_field(const Napi::Object& s) {
  if (!s.Has("cpuNs") || s.Get("cpuNs").IsUndefined()) return {};
  const Napi::Value v = s.Get("cpuNs");
  if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != napi_float64_array)
    throw Napi::TypeError::New(s.Env(), "cpuNs must be a Float64Array");
  Napi::Float64Array a = v.As<Napi::Float64Array>();
  return {a.Data(), a.ElementLength()};
}

// Runs a timing entry point and hands its samples over as nanoseconds; the process CPU time of
// run i goes to cpu.data[i] while i < cpu.length (the spec pins the array until the promise settles).
template <typename Time>
JobResult timed(std::vector<double>* out, CpuSamples cpu, Time time) {
  std::vector<int64_t> samples, cpu_ns;
  const Status status = time(&samples, &cpu_ns);
  out->assign(samples.begin(), samples.end());
  for (size_t i = 0; i < cpu_ns.size() && i < cpu.length; ++i) cpu.data[i] = static_cast<double>(cpu_ns[i]);
  return job_result(status);
}

Napi::Object spec_arg(const Napi::CallbackInfo& info, size_t index) {
  if (info.Length() <= index || !info[index].IsObject()) throw Napi::TypeError::New(info.Env(), "expected an argument object");
  return info[index].As<Napi::Object>();
}

// kernelsCancel(): cancel_kernels(); the CPU kernel promises in flight reject with "cancelled".
Napi::Value Cancel(const Napi::CallbackInfo& info) {
  attnscope::cancel_kernels();
  return info.Env().Undefined();
}

Napi::Value FlashForward(const Napi::CallbackInfo& info) {
  Napi::Object spec = spec_arg(info, 0);
  const attnscope::FlashParams p = flash_params(spec);
  return queue_kernel(info.Env(), spec, [p](std::vector<double>*) { return job_result(attnscope::flash_forward(p)); }, false);
}

Napi::Value PagedDecode(const Napi::CallbackInfo& info) {
  Napi::Object spec = spec_arg(info, 0);
  const attnscope::PagedDecodeParams p = paged_params(spec);
  return queue_kernel(info.Env(), spec, [p](std::vector<double>*) { return job_result(attnscope::paged_decode(p)); }, false);
}

Napi::Value Reference(const Napi::CallbackInfo& info) {
  Napi::Object s = spec_arg(info, 0);
  const attnscope::ReferenceParams p =
      attnscope::bridge::reference_params(flash_shape(s), attention_inputs(s), array_field<double>(s, "o", napi_float64_array),
                                          array_field<double>(s, "lse", napi_float64_array));
  return queue_kernel(info.Env(), s, [p](std::vector<double>*) { return job_result(attnscope::reference_attention(p)); }, false);
}

Napi::Value ReferencePagedDecode(const Napi::CallbackInfo& info) {
  Napi::Object s = spec_arg(info, 0);
  attnscope::PagedDecodeParams p = paged_params(s, false);
  double* o = array_field<double>(s, "refO", napi_float64_array);
  double* lse = array_field<double>(s, "refLse", napi_float64_array);
  return queue_kernel(info.Env(), s,
               [p, o, lse](std::vector<double>*) { return job_result(attnscope::reference_paged_decode(p, o, lse)); }, false);
}

Napi::Value TimeFlashForward(const Napi::CallbackInfo& info) {
  Napi::Object spec = spec_arg(info, 0);
  const attnscope::FlashParams p = flash_params(spec);
  const attnscope::TimingParams t = timing_params(spec_arg(info, 1));
  const CpuSamples cpu = cpu_samples_field(spec);
  return queue_kernel(info.Env(), spec,
               [p, t, cpu](std::vector<double>* out) {
                 return timed(out, cpu, [&](std::vector<int64_t>* s, std::vector<int64_t>* c) {
                   return attnscope::time_flash_forward(p, t, s, c);
                 });
               }, true);
}

using PagedTimer = attnscope::Status (*)(const attnscope::PagedDecodeParams&, const attnscope::TimingParams&,
                                         std::vector<int64_t>*, std::vector<int64_t>*);

// kernelsTimePagedDecode / kernelsTimePagedRead(spec, timing): one paged spec, one timer.
Napi::Value time_paged(const Napi::CallbackInfo& info, PagedTimer time) {
  Napi::Object spec = spec_arg(info, 0);
  const attnscope::PagedDecodeParams p = paged_params(spec);
  const attnscope::TimingParams t = timing_params(spec_arg(info, 1));
  const CpuSamples cpu = cpu_samples_field(spec);
  return queue_kernel(info.Env(), spec,
               [p, t, cpu, time](std::vector<double>* out) {
                 return timed(out, cpu, [&](std::vector<int64_t>* s, std::vector<int64_t>* c) { return time(p, t, s, c); });
               }, true);
}

Napi::Value TimePagedDecode(const Napi::CallbackInfo& info) { return time_paged(info, attnscope::time_paged_decode); }
Napi::Value TimePagedRead(const Napi::CallbackInfo& info) { return time_paged(info, attnscope::time_paged_read); }

// kernelsAllocatePagePool(bytes, zero = true) -> { buffer, hugePages, external }: an ArrayBuffer
// over allocate_page_pool's memory (zero-filled unless zero is false), freed when the buffer is collected. Where the runtime forbids
// external buffers (Electron's V8 sandbox) it falls back to a plain ArrayBuffer, with the huge
// page advice on its 2 MiB-aligned interior.
Napi::Value AllocatePagePool(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) throw Napi::TypeError::New(env, "bytes must be a number");
  const double bytes = info[0].As<Napi::Number>().DoubleValue();
  if (!(bytes >= 1 && bytes <= 9007199254740991.0 && bytes == static_cast<double>(static_cast<int64_t>(bytes))))
    throw Napi::RangeError::New(env, "bytes must be an integer >= 1");
  if (info.Length() >= 2 && !info[1].IsUndefined() && !info[1].IsBoolean())
    throw Napi::TypeError::New(env, "zero must be a boolean");
  const bool zero = info.Length() < 2 || info[1].IsUndefined() || info[1].As<Napi::Boolean>().Value();
  const size_t size = static_cast<size_t>(bytes);
  Napi::Object out = Napi::Object::New(env);
  bool huge = false;
  void* pool = attnscope::allocate_page_pool(size, &huge, zero);
  if (pool == nullptr) throw Napi::RangeError::New(env, "out of memory for a page pool of " + std::to_string(size) + " bytes");
  napi_value buffer = nullptr;
  const napi_status st = napi_create_external_arraybuffer(
      env, pool, size, [](napi_env, void* data, void*) { attnscope::free_page_pool(data); }, nullptr, &buffer);
  if (st == napi_ok) {
    out.Set("buffer", Napi::Value(env, buffer));
    out.Set("hugePages", huge);
    out.Set("external", true);
    return out;
  }
  attnscope::free_page_pool(pool);
  Napi::ArrayBuffer plain = Napi::ArrayBuffer::New(env, size);
  out.Set("buffer", plain);
  out.Set("hugePages", attnscope::advise_huge_pages(plain.Data(), size));
  out.Set("external", false);
  return out;
}

Napi::Value CpuInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  out.Set("model", attnscope::cpu_features().model);
  out.Set("cores", attnscope::hardware_threads());
  out.Set("simd", attnscope::simd_path_name(attnscope::resolve_simd_path(attnscope::SimdPath::kAuto)));
  Napi::Array paths = Napi::Array::New(env);
  for (attnscope::SimdPath p : attnscope::supported_simd_paths())
    paths.Set(paths.Length(), attnscope::simd_path_name(p));
  out.Set("simdPaths", paths);
  Napi::Array features = Napi::Array::New(env);
  for (const std::string& n : attnscope::simd_feature_names()) features.Set(features.Length(), n);
  out.Set("features", features);
  // dispatch: the path and product unit of each (kernel, operand dtype) under 'auto'.
  Napi::Array dispatch = Napi::Array::New(env);
  for (attnscope::KernelKind kernel : {attnscope::KernelKind::kFlashFwd, attnscope::KernelKind::kPagedDecode}) {
    for (attnscope::DType dtype : {attnscope::DType::kF32, attnscope::DType::kF16, attnscope::DType::kBF16}) {
      const attnscope::SimdPath path = attnscope::dispatch_path(attnscope::SimdPath::kAuto, kernel, dtype);
      Napi::Object choice = Napi::Object::New(env);
      choice.Set("kernel", attnscope::kernel_kind_name(kernel));
      choice.Set("dtype", dtype == attnscope::DType::kF32 ? "fp32" : dtype == attnscope::DType::kF16 ? "fp16" : "bf16");
      choice.Set("path", attnscope::simd_path_name(path));
      choice.Set("unit", attnscope::product_unit(path, kernel, dtype));
      dispatch.Set(dispatch.Length(), choice);
    }
  }
  out.Set("dispatch", dispatch);
  out.Set("dispatchReason", attnscope::dispatch_reason());
  const attnscope::SimdOverride o = attnscope::simd_override();
  if (!o.value.empty()) {
    Napi::Object ov = Napi::Object::New(env);
    ov.Set("value", o.value);
    ov.Set("applied", o.path != attnscope::SimdPath::kAuto);
    if (!o.warning.empty()) ov.Set("warning", o.warning);
    out.Set("simdOverride", ov);
  }
  return out;
}

// ({ vendor, family, dotRounds: number[], fmaRounds: number[] }) -> { path, how, dotFlopsPerSec, fmaFlopsPerSec }:
// choose_bf16_path on given figures (no measurement). Argument types are checked in native/kernels.ts.
Napi::Value ChooseBf16(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object in = info[0].As<Napi::Object>();
  auto rounds = [&](const char* name) {
    std::vector<double> v;
    Napi::Array a = in.Get(name).As<Napi::Array>();
    for (uint32_t i = 0; i < a.Length(); ++i) v.push_back(a.Get(i).As<Napi::Number>().DoubleValue());
    return v;
  };
  const attnscope::Bf16Choice c = attnscope::choose_bf16_path(
      in.Get("vendor").As<Napi::String>().Utf8Value(), in.Get("family").As<Napi::Number>().Int32Value(),
      rounds("dotRounds"), rounds("fmaRounds"));
  Napi::Object out = Napi::Object::New(env);
  out.Set("path", attnscope::simd_path_name(c.path));
  out.Set("how", c.how);
  out.Set("dotFlopsPerSec", c.dot_flops);
  out.Set("fmaFlopsPerSec", c.fma_flops);
  return out;
}

Napi::Value HalfBits(const Napi::CallbackInfo& info) {
  // (dtypeCode, Float32Array) -> Uint16Array, round to nearest even.
  const int dtype = info[0].As<Napi::Number>().Int32Value();
  Napi::Float32Array src = info[1].As<Napi::Float32Array>();
  Napi::Uint16Array out = Napi::Uint16Array::New(info.Env(), src.ElementLength());
  for (size_t i = 0; i < src.ElementLength(); ++i)
    out[i] = dtype == 1 ? attnscope::float_to_half(src[i]) : attnscope::float_to_bf16(src[i]);
  return out;
}

// kernelsWriteKvCache(spec): reshape_and_cache into native or JS pools, on the JS thread (a
// copy; spec validated by native/kernels.ts writeKvCache).
Napi::Value WriteKvCache(const Napi::CallbackInfo& info) {
  Napi::Object s = spec_arg(info, 0);
  attnscope::KvCacheWrite w;
  w.dtype = dtype_field(s, "dtype");
  w.layout = layout_field(s, "kvCacheLayout");
  w.k = input_field(s, "k", w.dtype);
  w.v = input_field(s, "v", w.dtype);
  w.k_pages = const_cast<void*>(input_field(s, "kPages", w.dtype));
  w.v_pages = const_cast<void*>(input_field(s, "vPages", w.dtype));
  const Napi::Int32Array slots = s.Get("slotMapping").As<Napi::Int32Array>();
  const std::vector<int64_t> slot_mapping(slots.Data(), slots.Data() + slots.ElementLength());
  w.slot_mapping = slot_mapping.data();
  w.num_tokens = static_cast<int>(slot_mapping.size());
  w.num_kv_heads = int_field(s, "numKvHeads");
  w.head_dim = int_field(s, "headDim");
  w.num_pages = int_field(s, "numPages");
  w.page_size = int_field(s, "pageSize");
  if (attnscope::write_kv_cache(w) != Status::kOk) throw Napi::RangeError::New(info.Env(), attnscope::last_error());
  return info.Env().Undefined();
}

Napi::Value FromHalfBits(const Napi::CallbackInfo& info) {
  const int dtype = info[0].As<Napi::Number>().Int32Value();
  Napi::Uint16Array src = info[1].As<Napi::Uint16Array>();
  Napi::Float32Array out = Napi::Float32Array::New(info.Env(), src.ElementLength());
  for (size_t i = 0; i < src.ElementLength(); ++i)
    out[i] = dtype == 1 ? attnscope::half_to_float(src[i]) : attnscope::bf16_to_float(src[i]);
  return out;
}

}  // namespace

Napi::Object InitKernels(Napi::Env env, Napi::Object exports) {
  exports.Set("kernelsFlashForward", Napi::Function::New(env, FlashForward, "kernelsFlashForward"));
  exports.Set("kernelsPagedDecode", Napi::Function::New(env, PagedDecode, "kernelsPagedDecode"));
  exports.Set("kernelsReference", Napi::Function::New(env, Reference, "kernelsReference"));
  exports.Set("kernelsReferencePagedDecode",
              Napi::Function::New(env, ReferencePagedDecode, "kernelsReferencePagedDecode"));
  exports.Set("kernelsTimeFlashForward", Napi::Function::New(env, TimeFlashForward, "kernelsTimeFlashForward"));
  exports.Set("kernelsTimePagedDecode", Napi::Function::New(env, TimePagedDecode, "kernelsTimePagedDecode"));
  exports.Set("kernelsTimePagedRead", Napi::Function::New(env, TimePagedRead, "kernelsTimePagedRead"));
  exports.Set("kernelsCancel", Napi::Function::New(env, Cancel, "kernelsCancel"));
  exports.Set("kernelsCpuInfo", Napi::Function::New(env, CpuInfo, "kernelsCpuInfo"));
  exports.Set("kernelsChooseBf16", Napi::Function::New(env, ChooseBf16, "kernelsChooseBf16"));
  exports.Set("kernelsAllocatePagePool", Napi::Function::New(env, AllocatePagePool, "kernelsAllocatePagePool"));
  exports.Set("kernelsToHalfBits", Napi::Function::New(env, HalfBits, "kernelsToHalfBits"));
  exports.Set("kernelsFromHalfBits", Napi::Function::New(env, FromHalfBits, "kernelsFromHalfBits"));
  exports.Set("kernelsWriteKvCache", Napi::Function::New(env, WriteKvCache, "kernelsWriteKvCache"));
  return exports;
}
