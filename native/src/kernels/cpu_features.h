// What this CPU and its OS can run, detected once per process: CPUID for what the CPU has, XCR0
// (XGETBV) for the register state the OS saves, and on Linux the per-process AMX permission.
// One detector for the whole addon: the kernels choose their SIMD path from it (kernels.h)
// and the peaks their microbenchmark loops (peaks.h), so the shipped binary needs no
// -march=native. Plain C++17: no N-API types, never throws.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attnscope {

/**
 * CPU features and brand. Source of the bit positions: Intel SDM Vol. 2A, CPUID leaves 01H and
 * 07H, and Vol. 1 section 13.3 (XCR0 state components). The AVX and AVX-512 flags are set only
 * when the OS also saves their registers; on CPUs other than x86-64 only the ISA flag is set.
 */
struct CpuFeatures {
  bool avx2 = false;         // CPUID.7.0:EBX[5], with the OS saving YMM state (XCR0 bits 1-2)
  bool fma = false;          // CPUID.1:ECX[12], with YMM state
  bool avx512f = false;      // CPUID.7.0:EBX[16], with ZMM and opmask state (XCR0 bits 5-7)
  bool avx512bw = false;     // CPUID.7.0:EBX[30]
  bool avx512vl = false;     // CPUID.7.0:EBX[31]
  bool avx512dq = false;     // CPUID.7.0:EBX[17]
  bool avx512_bf16 = false;  // CPUID.7.1:EAX[5]  (vdpbf16ps, vcvtne2ps2bf16)
  bool avx512_fp16 = false;  // CPUID.7.0:EDX[23]
  bool amx_tile = false;     // CPUID.7.0:EDX[24] (CPU support; OS permission is separate)
  bool amx_bf16 = false;     // CPUID.7.0:EDX[22]
  bool amx_int8 = false;     // CPUID.7.0:EDX[25]
  bool amx_os_state = false; // XCR0 bits 17-18 (XTILECFG, XTILEDATA) enabled by the OS
  bool neon = false;         // aarch64 Advanced SIMD (always present there)
  bool simd128 = false;      // WebAssembly SIMD128 (the WebAssembly build, native/wasm/, is compiled with it)
  std::string vendor;        // "GenuineIntel", "AuthenticAMD", ... ("" when unknown)
  std::string model;         // brand string, e.g. "AMD EPYC 9B45"; "unknown CPU" when unreadable
  int family = 0;            // x86 display family, CPUID.1:EAX base + extended (AMD Zen 4: 25, Zen 5: 26); 0 elsewhere
  int logical_cores = 1;     // CPUs this process may run on (affinity mask)
  /**
   * Size in bytes of the largest data (or unified) cache level cpu0 sees, from Linux's
   * /sys/devices/system/cpu/cpu0/cache/index<N>/{level,type,size}; sysconf(_SC_LEVEL3_CACHE_SIZE),
   * then L2, where sysfs has no cache directory; 0 when unknown (WebAssembly, other OSes).
   * sysfs comes first because glibc's sysconf misreports some AMD guests: 320 MiB for the
   * 32 MiB L3 of a 2-vCPU EPYC (family 25 model 17) VM, where sysfs and lscpu say 32 MiB.
   */
  uint64_t last_level_cache_bytes = 0;
  /**
   * Present features by their /proc/cpuinfo names, from: avx2, fma, avx512f, avx512bw,
   * avx512vl, avx512_bf16, avx512_fp16, amx_tile, amx_bf16, amx_int8, neon, simd128 (the peaks' list).
   */
  std::vector<std::string> names;
};

/** Detected once per process; cheap after the first call. */
const CpuFeatures& cpu_features();

/**
 * Asks Linux for permission to use AMX tile data (arch_prctl(ARCH_REQ_XCOMP_PERM,
 * XFEATURE_XTILEDATA = 18); process-wide, idempotent; Linux Documentation/arch/x86/xstate.rst).
 * Returns "" when AMX tiles may be used, else why not: no CPU support, no OS state in XCR0, the
 * kernel's refusal with its errno text, or a non-x86-64 build.
 */
std::string request_amx_permission();

}  // namespace attnscope
