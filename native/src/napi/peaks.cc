// N-API bridge for the peaks part: cpuFeatures() (sync, CPUID only) and measurePeak(), one
// AsyncWorker per measurement so the JS thread never blocks on a microbenchmark.
#include <napi.h>

#include <chrono>
#include <string>

#include "kernels/cpu_features.h"
#include "peaks/peaks.h"

namespace {

using attnscope::peaks::PeakParams;
using attnscope::peaks::PeakResult;

enum class PeakKind { kFp32Fma, kAvx512Bf16, kAmxBf16, kReadBandwidth, kCoreClock };

bool parse_kind(const std::string& name, PeakKind* out) {
  if (name == "fp32_fma") *out = PeakKind::kFp32Fma;
  else if (name == "avx512_bf16") *out = PeakKind::kAvx512Bf16;
  else if (name == "amx_bf16") *out = PeakKind::kAmxBf16;
  else if (name == "read_bandwidth") *out = PeakKind::kReadBandwidth;
  else if (name == "core_clock") *out = PeakKind::kCoreClock;
  else return false;
  return true;
}

class PeakWorker : public Napi::AsyncWorker {
 public:
  PeakWorker(Napi::Env env, PeakKind kind, PeakParams params, uint64_t buffer_bytes)
      : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), kind_(kind),
        params_(params), buffer_bytes_(buffer_bytes) {}

  Napi::Promise Promise() { return deferred_.Promise(); }

 protected:
  void Execute() override {
    namespace p = attnscope::peaks;
    switch (kind_) {
      case PeakKind::kFp32Fma: result_ = p::measure_fp32_fma_peak(params_); break;
      case PeakKind::kAvx512Bf16: result_ = p::measure_avx512_bf16_peak(params_); break;
      case PeakKind::kAmxBf16: result_ = p::measure_amx_bf16_peak(params_); break;
      case PeakKind::kReadBandwidth: result_ = p::measure_read_bandwidth(params_, buffer_bytes_); break;
      case PeakKind::kCoreClock: {
        const auto start = std::chrono::steady_clock::now();
        result_.value = p::measure_core_clock_hz(params_.duration_sec);
        result_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        result_.available = result_.value > 0;
        result_.threads = 1;
        result_.isa = "integer";
        result_.method = "dependent 1-cycle integer adds on one thread; best of short windows";
        if (!result_.available) result_.reason = "no clock loop is built for this CPU architecture";
        break;
      }
    }
  }

  void OnOK() override {
    Napi::Env env = Env();
    Napi::Object out = Napi::Object::New(env);
    out.Set("available", Napi::Boolean::New(env, result_.available));
    out.Set("value", Napi::Number::New(env, result_.value));
    out.Set("seconds", Napi::Number::New(env, result_.seconds));
    out.Set("threads", Napi::Number::New(env, result_.threads));
    out.Set("isa", Napi::String::New(env, result_.isa));
    out.Set("method", Napi::String::New(env, result_.method));
    out.Set("reason", Napi::String::New(env, result_.reason));
    deferred_.Resolve(out);
  }

  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  PeakKind kind_;
  PeakParams params_;
  uint64_t buffer_bytes_;
  PeakResult result_;
};

// cpuFeatures() -> { names: string[], vendor, model, logicalCores, lastLevelCacheBytes,
//   lastLevelCacheLevel, lastLevelCacheSource, amxOsState }
Napi::Value CpuFeatures(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const attnscope::CpuFeatures& f = attnscope::cpu_features();
  Napi::Object out = Napi::Object::New(env);
  Napi::Array names = Napi::Array::New(env, f.names.size());
  for (size_t i = 0; i < f.names.size(); ++i) names.Set(static_cast<uint32_t>(i), f.names[i]);
  out.Set("names", names);
  out.Set("vendor", f.vendor);
  out.Set("model", f.model);
  out.Set("logicalCores", f.logical_cores);
  out.Set("lastLevelCacheBytes", static_cast<double>(f.last_level_cache_bytes));
  out.Set("lastLevelCacheLevel", f.last_level_cache_level);
  out.Set("lastLevelCacheSource", f.last_level_cache_source);
  out.Set("amxOsState", f.amx_os_state);
  return out;
}

// lastLevelCacheOf(sysfsDir: string, leaves: number[] (EAX, EBX, ECX of each CPUID cache subleaf))
//   -> { level, bytes, source }: attnscope::last_level_cache_of on given inputs (the tests' fixtures).
Napi::Value LastLevelCacheOf(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsString() || !info[1].IsArray()) {
    Napi::TypeError::New(env, "lastLevelCacheOf(sysfsDir: string, leaves: number[])").ThrowAsJavaScriptException();
    return env.Null();
  }
  const Napi::Array regs = info[1].As<Napi::Array>();
  if (regs.Length() % 3 != 0) {
    Napi::RangeError::New(env, "leaves must hold EAX, EBX, ECX per subleaf (a multiple of 3 numbers)").ThrowAsJavaScriptException();
    return env.Null();
  }
  std::vector<attnscope::CacheLeaf> leaves(regs.Length() / 3);
  for (uint32_t i = 0; i < regs.Length(); ++i) {
    const Napi::Value v = regs.Get(i);
    if (!v.IsNumber()) {
      Napi::TypeError::New(env, "leaves must be numbers").ThrowAsJavaScriptException();
      return env.Null();
    }
    const uint32_t r = v.As<Napi::Number>().Uint32Value();
    attnscope::CacheLeaf& leaf = leaves[i / 3];
    (i % 3 == 0 ? leaf.eax : i % 3 == 1 ? leaf.ebx : leaf.ecx) = r;
  }
  const attnscope::CacheSize c = attnscope::last_level_cache_of(info[0].As<Napi::String>().Utf8Value(), leaves);
  Napi::Object out = Napi::Object::New(env);
  out.Set("level", c.level);
  out.Set("bytes", static_cast<double>(c.bytes));
  out.Set("source", c.source);
  return out;
}

// measurePeak(kind: string, threads: int >= 0, durationMs: number > 0, bufferBytes: number >= 0)
//   -> Promise<{ available, value, seconds, threads, isa, method, reason }>
Napi::Value MeasurePeak(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 4 || !info[0].IsString()) throw Napi::TypeError::New(env, "kind must be a string");
  PeakKind kind;
  const std::string name = info[0].As<Napi::String>().Utf8Value();
  if (!parse_kind(name, &kind)) {
    throw Napi::RangeError::New(env, "kind must be fp32_fma, avx512_bf16, amx_bf16, read_bandwidth or core_clock, got " + name);
  }
  for (size_t i = 1; i < 4; ++i) {
    if (!info[i].IsNumber()) {
      static const char* names[] = {"", "threads", "durationMs", "bufferBytes"};
      throw Napi::TypeError::New(env, std::string(names[i]) + " must be a number");
    }
  }
  const double threads = info[1].As<Napi::Number>().DoubleValue();
  const double duration_ms = info[2].As<Napi::Number>().DoubleValue();
  const double buffer_bytes = info[3].As<Napi::Number>().DoubleValue();
  if (!(threads >= 0 && threads <= 4096) || threads != static_cast<int>(threads)) {
    throw Napi::RangeError::New(env, "threads must be an integer in [0, 4096] (0: one per CPU)");
  }
  if (!(duration_ms > 0 && duration_ms <= 600000)) {
    throw Napi::RangeError::New(env, "durationMs must be in (0, 600000]");
  }
  if (!(buffer_bytes >= 0 && buffer_bytes <= 9.0e15)) throw Napi::RangeError::New(env, "bufferBytes must be >= 0");
  PeakParams params;
  params.threads = static_cast<int>(threads);
  params.duration_sec = duration_ms / 1e3;
  auto* worker = new PeakWorker(env, kind, params, static_cast<uint64_t>(buffer_bytes));
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

}  // namespace

Napi::Object InitPeaks(Napi::Env env, Napi::Object exports) {
  exports.Set("cpuFeatures", Napi::Function::New(env, CpuFeatures, "cpuFeatures"));
  exports.Set("lastLevelCacheOf", Napi::Function::New(env, LastLevelCacheOf, "lastLevelCacheOf"));
  exports.Set("measurePeak", Napi::Function::New(env, MeasurePeak, "measurePeak"));
  return exports;
}
