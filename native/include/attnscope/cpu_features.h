// What this CPU can run, detected once at run time (CPUID through __builtin_cpu_supports plus
// the OS's XSAVE state), so the shipped binary needs no -march=native.
#pragma once

#include <string>
#include <vector>

namespace attnscope {

struct CpuFeatures {
  bool avx2 = false;        // with FMA and F16C: the AVX2 path
  bool avx512 = false;      // AVX512 F+BW+VL+DQ: the AVX-512 path
  bool avx512bf16 = false;  // vdpbf16ps / vcvtne2ps2bf16
  bool avx512fp16 = false;  // native fp16 arithmetic (reported; conversions use F16C)
  bool amx_bf16 = false;    // AMX tiles with bf16 (reported; no AMX path is built yet)
  std::string model;        // CPU brand string, e.g. "AMD EPYC 9B45"
  int logical_cores = 1;
  std::vector<std::string> names;  // the features above that are present, by their CPUID names
};

const CpuFeatures& cpu_features();

}  // namespace attnscope
