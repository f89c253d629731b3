// The choice of the kernels' SIMD path from the CPU's features (cpu_features.h).
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cctype>
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

// The bf16 choice of this CPU, made once: choose_bf16_path from the table, or from a calibration
// of the peaks' loops on one thread where the table has no entry.
const Bf16Choice& bf16_choice() {
  static Bf16Choice c;
  static std::once_flag once;
  std::call_once(once, [] {
#if defined(ATTNSCOPE_X86_PATHS)
    const CpuFeatures& f = cpu_features();
    if (!avx512bf16_path(f)) return;
    std::vector<double> dot, fma;
    if (choose_bf16_path(f.vendor, f.family, {}, {}).how != "table") {
      // 5 rounds of 10 ms windows, vdpbf16ps then FMA in each (about 100 ms in all).
      const peaks::PeakParams params{1, 0.01};
      for (int round = 0; round < 5; ++round) {
        const peaks::PeakResult d = peaks::measure_avx512_bf16_peak(params);
        const peaks::PeakResult m = peaks::measure_fp32_fma_peak_on("avx512", params);
        dot.push_back(d.available ? d.value : 0);
        fma.push_back(m.available ? m.value : 0);
      }
    }
    c = choose_bf16_path(f.vendor, f.family, dot, fma);
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
  return has_path(SimdPath::kAvx512Bf16) ? bf16_choice().path : SimdPath::kAvx512;
}

SimdPath env_path() { return simd_override().path; }

std::string supported_names() {
  std::string out;
  for (SimdPath p : supported_simd_paths()) out += std::string(out.empty() ? "" : ", ") + simd_path_name(p);
  return out;
}

}  // namespace

Bf16Choice choose_bf16_path(const std::string& vendor, int family, const std::vector<double>& dot_rounds,
                            const std::vector<double>& fma_rounds) {
  Bf16Choice c;
  if (vendor == "AuthenticAMD" && (family == 25 || family == 26)) {
    c.path = SimdPath::kAvx512Bf16;
    c.how = "table";
    return c;
  }
  for (double v : dot_rounds) c.dot_flops = std::max(c.dot_flops, v);
  for (double v : fma_rounds) c.fma_flops = std::max(c.fma_flops, v);
  if (!(c.dot_flops > 0) || !(c.fma_flops > 0)) {
    c.how = "none";
    return c;
  }
  c.how = "measured";
  c.path = c.dot_flops >= kBf16DotMargin * c.fma_flops ? SimdPath::kAvx512Bf16 : SimdPath::kAvx512;
  return c;
}

SimdOverride simd_override() {
  SimdOverride o;
  const char* env = std::getenv("ATTNSCOPE_SIMD");
  if (env == nullptr) return o;
  std::string v = env;
  const size_t a = v.find_first_not_of(" \t"), z = v.find_last_not_of(" \t");
  v = a == std::string::npos ? "" : v.substr(a, z - a + 1);
  if (v.empty()) return o;
  o.value = v;
  std::string lower = v;
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  SimdPath p = SimdPath::kAuto;
  if (!parse_simd_path(lower.c_str(), &p) || (p != SimdPath::kAuto && !path_supported(p))) {
    // One text for a name of no path and a path this CPU lacks: the list says which names work here. Short,
    // so that "warning: " and it fit 100 columns for any path name on any x86 CPU (87 for amx on a Zen 5).
    o.warning = "ATTNSCOPE_SIMD=" + v + " ignored: this CPU's paths: " + supported_names();
  } else {
    o.path = p;
  }
  return o;
}

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
  const SimdOverride o = simd_override();
  if (o.path != SimdPath::kAuto)
    return "ATTNSCOPE_SIMD=" + o.value + " for every kernel and dtype";
  // An ignored ATTNSCOPE_SIMD is said by its own warning (SimdOverride), not here.
  if (supported_simd_paths().back() != SimdPath::kAvx512Bf16 && !has_path(SimdPath::kAmx))
    return std::string("the widest path this CPU has (") + simd_path_name(supported_simd_paths().back()) +
           ") for every dtype; bf16 and fp16 are widened to fp32 (no AVX512-BF16)";
  const Bf16Choice& c = bf16_choice();
  const std::string amx = has_path(SimdPath::kAmx) ? "bf16 flash on amx tiles; " : "";
  const bool dot = c.path == SimdPath::kAvx512Bf16;
  const std::string head = amx + (amx.empty() ? "bf16 on " : "bf16 decode on ") +
                           (dot ? "avx512bf16" : "avx512 (widened to fp32)");
  const std::string tail = "; fp32 and fp16 on avx512";
  const CpuFeatures& f = cpu_features();
  if (c.how == "table")
    return head + ": from the table of known CPUs (" + f.vendor + " family " + std::to_string(f.family) +
           ": vdpbf16ps about 2x the fp32 FMA rate, measured idle), not measured in this process" + tail;
  if (c.how == "none") return head + ": the vdpbf16ps calibration could not run" + tail;
  return head + ": measured, vdpbf16ps " + format_gflops(c.dot_flops) + " vs fp32 FMA " +
         format_gflops(c.fma_flops) + " on one thread, best of 5 alternated rounds (vdpbf16ps taken from 1.2x)" +
         tail;
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
