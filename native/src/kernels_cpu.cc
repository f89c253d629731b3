// CPU feature detection and the choice of SIMD path.
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "attnscope/cpu_features.h"
#include "attnscope/kernels.h"
#include "attnscope/kernels_ops.h"
#include "attnscope/kernels_threads.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>
#endif

namespace attnscope {
namespace {

std::string read_model() {
#if defined(__x86_64__)
  unsigned regs[12] = {0};
  unsigned max_ext = __get_cpuid_max(0x80000000u, nullptr);
  if (max_ext >= 0x80000004u) {
    for (unsigned i = 0; i < 3; ++i) {
      __get_cpuid(0x80000002u + i, &regs[4 * i], &regs[4 * i + 1], &regs[4 * i + 2], &regs[4 * i + 3]);
    }
    char brand[49];
    std::memcpy(brand, regs, 48);
    brand[48] = '\0';
    std::string s(brand);
    const size_t first = s.find_first_not_of(' ');
    const size_t last = s.find_last_not_of(' ');
    if (first != std::string::npos) return s.substr(first, last - first + 1);
  }
#endif
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0 || line.rfind("Model", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown CPU";
}

CpuFeatures detect() {
  CpuFeatures f;
#if defined(__x86_64__)
  __builtin_cpu_init();
  f.avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  f.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  // __builtin_cpu_supports("avx512bf16") needs GCC 13; read CPUID leaf 7 subleaf 1 directly.
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_count(7, 1, &a, &b, &c, &d)) f.avx512bf16 = f.avx512 && (a & (1u << 5));
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
    f.avx512fp16 = f.avx512 && (d & (1u << 23));
    f.amx_bf16 = (d & (1u << 22)) && (d & (1u << 24));
  }
  if (f.avx2) f.names.push_back("avx2");
  if (f.avx2) f.names.push_back("fma");
  if (f.avx512) f.names.push_back("avx512f");
  if (f.avx512) f.names.push_back("avx512bw");
  if (f.avx512) f.names.push_back("avx512vl");
  if (f.avx512) f.names.push_back("avx512dq");
  if (f.avx512bf16) f.names.push_back("avx512_bf16");
  if (f.avx512fp16) f.names.push_back("avx512_fp16");
  if (f.amx_bf16) f.names.push_back("amx_bf16");
#elif defined(__aarch64__)
  f.names.push_back("neon");
#endif
  f.model = read_model();
  f.logical_cores = hardware_threads();
  return f;
}

bool path_supported(SimdPath path) {
  const CpuFeatures& f = cpu_features();
  switch (path) {
    case SimdPath::kScalar: return true;
#if defined(ATTNSCOPE_X86_PATHS)
    case SimdPath::kAvx2: return f.avx2;
    case SimdPath::kAvx512: return f.avx512;
    case SimdPath::kAvx512Bf16: return f.avx512bf16;
#endif
    default: (void)f; return false;
  }
}

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect();
  return features;
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
