// The choice of the kernels' SIMD path from the CPU's features (cpu_features.h).
#include <cstdlib>
#include <cstring>
#include <utility>

#include "kernels/cpu_features.h"
#include "kernels/kernels.h"
#include "kernels/ops.h"

namespace attnscope {
namespace {

// A path runs when the CPU has every ISA extension its -m flags assume (binding.gyp).
bool avx2_path(const CpuFeatures& f) { return f.avx2 && f.fma; }
bool avx512_path(const CpuFeatures& f) { return f.avx512f && f.avx512bw && f.avx512vl && f.avx512dq; }
bool avx512bf16_path(const CpuFeatures& f) { return avx512_path(f) && f.avx512_bf16; }

bool path_supported(SimdPath path) {
  const CpuFeatures& f = cpu_features();
  switch (path) {
    case SimdPath::kScalar: return true;
#if defined(ATTNSCOPE_X86_PATHS)
    case SimdPath::kAvx2: return avx2_path(f);
    case SimdPath::kAvx512: return avx512_path(f);
    case SimdPath::kAvx512Bf16: return avx512bf16_path(f);
#endif
    default: (void)f; return false;
  }
}

}  // namespace

std::vector<std::string> simd_feature_names() {
  const CpuFeatures& f = cpu_features();
  const bool avx2 = avx2_path(f), avx512 = avx512_path(f);
  const std::pair<bool, const char*> named[] = {
      {avx2, "avx2"},         {avx2, "fma"},          {avx512, "avx512f"},
      {avx512, "avx512bw"},   {avx512, "avx512vl"},   {avx512, "avx512dq"},
      {avx512bf16_path(f), "avx512_bf16"},  {avx512 && f.avx512_fp16, "avx512_fp16"},
      {f.amx_tile && f.amx_bf16, "amx_bf16"}, {f.neon, "neon"},
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
  }
  return "unknown";
}

bool parse_simd_path(const char* name, SimdPath* out) {
  for (SimdPath p : {SimdPath::kAuto, SimdPath::kScalar, SimdPath::kAvx2, SimdPath::kAvx512,
                     SimdPath::kAvx512Bf16}) {
    if (std::strcmp(name, simd_path_name(p)) == 0) {
      *out = p;
      return true;
    }
  }
  return false;
}

std::vector<SimdPath> supported_simd_paths() {
  std::vector<SimdPath> out;
  for (SimdPath p : {SimdPath::kScalar, SimdPath::kAvx2, SimdPath::kAvx512, SimdPath::kAvx512Bf16}) {
    if (path_supported(p)) out.push_back(p);
  }
  return out;
}

SimdPath resolve_simd_path(SimdPath requested) {
  if (requested != SimdPath::kAuto) return requested;
  const char* env = std::getenv("ATTNSCOPE_SIMD");
  SimdPath from_env = SimdPath::kAuto;
  if (env != nullptr && parse_simd_path(env, &from_env) && from_env != SimdPath::kAuto &&
      path_supported(from_env)) {
    return from_env;
  }
  return supported_simd_paths().back();
}

const KernelOps& kernel_ops(SimdPath path) {
  switch (path) {
#if defined(ATTNSCOPE_X86_PATHS)
    case SimdPath::kAvx2: return avx2_ops();
    case SimdPath::kAvx512: return avx512_ops();
    case SimdPath::kAvx512Bf16: return avx512bf16_ops();
#endif
    default: return scalar_ops();
  }
}

bool simd_path_supported(SimdPath path) { return path == SimdPath::kAuto || path_supported(path); }

}  // namespace attnscope
