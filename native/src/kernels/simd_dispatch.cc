// The choice of the kernels' SIMD path from the CPU's features (cpu_features.h).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>

#include "kernels/cpu_features.h"
#include "kernels/kernels.h"
#include "kernels/ops.h"
#include "peaks/peaks.h"

namespace attnscope {
namespace {

// A path runs when the CPU has every ISA extension its -m flags assume (binding.gyp).
bool avx2_path(const CpuFeatures& f) { return f.avx2 && f.fma; }
bool avx512_path(const CpuFeatures& f) { return f.avx512f && f.avx512bw && f.avx512vl && f.avx512dq; }
bool avx512bf16_path(const CpuFeatures& f) { return avx512_path(f) && f.avx512_bf16; }
// AMX also needs Linux's per-process grant of tile data (asked once, here).
bool amx_path(const CpuFeatures& f) {
  return avx512bf16_path(f) && f.amx_tile && f.amx_bf16 && request_amx_permission().empty();
}

bool path_supported(SimdPath path) {
  const CpuFeatures& f = cpu_features();
  switch (path) {
    case SimdPath::kScalar: return true;
    case SimdPath::kAmxModel: return true;
#if defined(ATTNSCOPE_X86_PATHS)
    case SimdPath::kAvx2: return avx2_path(f);
    case SimdPath::kAvx512: return avx512_path(f);
    case SimdPath::kAvx512Bf16: return avx512bf16_path(f);
    case SimdPath::kAmx: return amx_path(f);
#endif
#if defined(__wasm_simd128__)
    case SimdPath::kSimd128: return true;
#endif
#if defined(__aarch64__)
    case SimdPath::kNeon: return f.neon;
#endif
    default: (void)f; return false;
  }
}

// Whether vdpbf16ps beats the FMA path for bf16 on this CPU, measured once: the peaks' loops on
// one thread, 30 ms each (Sapphire Rapids runs vdpbf16ps at a third of its fp32 FMA rate;
// Zen 4 / Zen 5 above it). A 1.2x margin keeps a noisy window from flipping the choice.
struct Bf16Calibration {
  bool ran = false;
  bool dot_wins = false;
  double dot_flops = 0, fma_flops = 0;  // FLOP/s on one thread
};

constexpr double kDotMargin = 1.2;

const Bf16Calibration& bf16_calibration() {
  static Bf16Calibration c;
  static std::once_flag once;
  std::call_once(once, [] {
#if defined(ATTNSCOPE_X86_PATHS)
    if (!avx512bf16_path(cpu_features())) return;
    const peaks::PeakParams params{1, 0.03};
    const peaks::PeakResult dot = peaks::measure_avx512_bf16_peak(params);
    const peaks::PeakResult fma = peaks::measure_fp32_fma_peak(params);
    c.ran = dot.available && fma.available;
    c.dot_flops = dot.value;
    c.fma_flops = fma.value;
    c.dot_wins = c.ran && dot.value >= kDotMargin * fma.value;
#endif
  });
  return c;
}

std::string format_gflops(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GFLOP/s", v / 1e9);
  return buf;
}

bool has_path(SimdPath path) {
  for (SimdPath p : supported_simd_paths())
    if (p == path) return true;
  return false;
}

// The fastest path for the kernel and operand dtype, ATTNSCOPE_SIMD aside: bf16 flash on AMX
// tiles where granted; other bf16 on vdpbf16ps where it beat FMA; everything else on the
// widest FMA path.
SimdPath fastest_path(KernelKind kernel, DType dtype) {
  if (!has_path(SimdPath::kAvx512)) return supported_simd_paths().back();
  if (dtype != DType::kBF16) return SimdPath::kAvx512;
  if (kernel == KernelKind::kFlashFwd && has_path(SimdPath::kAmx)) return SimdPath::kAmx;
  return has_path(SimdPath::kAvx512Bf16) && bf16_calibration().dot_wins ? SimdPath::kAvx512Bf16 : SimdPath::kAvx512;
}

SimdPath env_path() {
  const char* env = std::getenv("ATTNSCOPE_SIMD");
  SimdPath from_env = SimdPath::kAuto;
  if (env != nullptr && parse_simd_path(env, &from_env) && from_env != SimdPath::kAuto &&
      path_supported(from_env)) {
    return from_env;
  }
  return SimdPath::kAuto;
}

}  // namespace

const char* kernel_kind_name(KernelKind kernel) {
  return kernel == KernelKind::kFlashFwd ? "flash_fwd" : "paged_decode";
}

SimdPath dispatch_path(SimdPath requested, KernelKind kernel, DType dtype) {
  if (requested != SimdPath::kAuto) return requested;
  const SimdPath from_env = env_path();
  return from_env != SimdPath::kAuto ? from_env : fastest_path(kernel, dtype);
}

const char* product_unit(SimdPath path, KernelKind kernel, DType dtype) {
  if (path == SimdPath::kScalar || path == SimdPath::kAmxModel) return "scalar";
  if (dtype != DType::kBF16) return "fp32-fma";
  if (path == SimdPath::kAmx) return kernel == KernelKind::kFlashFwd ? "amx-bf16" : "avx512-bf16";
  return path == SimdPath::kAvx512Bf16 ? "avx512-bf16" : "fp32-fma";
}

std::string dispatch_reason() {
  if (env_path() != SimdPath::kAuto)
    return std::string("ATTNSCOPE_SIMD=") + simd_path_name(env_path()) + " for every kernel and dtype";
  if (supported_simd_paths().back() != SimdPath::kAvx512Bf16)
    return std::string("the widest path this CPU has (") + simd_path_name(supported_simd_paths().back()) +
           ") for every dtype; bf16 and fp16 are widened to fp32 (no AVX512-BF16)";
  const Bf16Calibration& c = bf16_calibration();
  const std::string amx = has_path(SimdPath::kAmx) ? "bf16 flash on amx tiles; " : "";
  if (!c.ran) return amx + "avx512 for the rest: the vdpbf16ps calibration could not run";
  return amx + (amx.empty() ? "bf16 on " : "bf16 decode on ") +
         (c.dot_wins ? "avx512bf16" : "avx512 (widened to fp32)") + ": vdpbf16ps " +
         format_gflops(c.dot_flops) + " vs fp32 FMA " + format_gflops(c.fma_flops) +
         " on one thread (vdpbf16ps taken from 1.2x); fp32 and fp16 on avx512";
}

std::vector<std::string> simd_feature_names() {
  const CpuFeatures& f = cpu_features();
  const bool avx2 = avx2_path(f), avx512 = avx512_path(f);
  const std::pair<bool, const char*> named[] = {
      {avx2, "avx2"},         {avx2, "fma"},          {avx512, "avx512f"},
      {avx512, "avx512bw"},   {avx512, "avx512vl"},   {avx512, "avx512dq"},
      {avx512bf16_path(f), "avx512_bf16"},  {avx512 && f.avx512_fp16, "avx512_fp16"},
      {f.amx_tile && f.amx_bf16, "amx_bf16"}, {f.neon, "neon"}, {f.simd128, "simd128"},
  };
  std::vector<std::string> names;
  for (const auto& [present, name] : named) {
    if (present) names.emplace_back(name);
  }
  return names;
}

const char* simd_path_name(SimdPath path) {
  switch (path) {
    case SimdPath::kAuto: return "auto";
    case SimdPath::kScalar: return "scalar";
    case SimdPath::kAvx2: return "avx2";
    case SimdPath::kAvx512: return "avx512";
    case SimdPath::kAvx512Bf16: return "avx512bf16";
    case SimdPath::kAmx: return "amx";
    case SimdPath::kAmxModel: return "amx-model";
    case SimdPath::kSimd128: return "simd128";
    case SimdPath::kNeon: return "neon";
  }
  return "unknown";
}

bool parse_simd_path(const char* name, SimdPath* out) {
  for (SimdPath p : {SimdPath::kAuto, SimdPath::kScalar, SimdPath::kAvx2, SimdPath::kAvx512,
                     SimdPath::kAvx512Bf16, SimdPath::kAmx, SimdPath::kAmxModel, SimdPath::kSimd128, SimdPath::kNeon}) {
    if (std::strcmp(name, simd_path_name(p)) == 0) {
      *out = p;
      return true;
    }
  }
  return false;
}

std::vector<SimdPath> supported_simd_paths() {
  std::vector<SimdPath> out;
  for (SimdPath p : {SimdPath::kScalar, SimdPath::kSimd128, SimdPath::kNeon, SimdPath::kAvx2, SimdPath::kAvx512, SimdPath::kAvx512Bf16,
                     SimdPath::kAmx}) {
    if (path_supported(p)) out.push_back(p);
  }
  return out;
}

SimdPath resolve_simd_path(SimdPath requested) {
  return dispatch_path(requested, KernelKind::kFlashFwd, DType::kF32);
}

const KernelOps& kernel_ops(SimdPath path) {
  switch (path) {
#if defined(ATTNSCOPE_X86_PATHS)
    case SimdPath::kAvx2: return avx2_ops();
    case SimdPath::kAvx512: return avx512_ops();
    case SimdPath::kAvx512Bf16: return avx512bf16_ops();
    case SimdPath::kAmx: return amx_ops();
#endif
#if defined(__wasm_simd128__)
    case SimdPath::kSimd128: return simd128_ops();
#endif
#if defined(__aarch64__)
    case SimdPath::kNeon: return neon_ops();
#endif
    case SimdPath::kAmxModel: return amx_model_ops();
    default: return scalar_ops();
  }
}

bool simd_path_supported(SimdPath path) { return path == SimdPath::kAuto || path_supported(path); }

}  // namespace attnscope
