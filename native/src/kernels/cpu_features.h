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
   * The last-level cache a core of this process sits in (last_level_cache_of over cpu0's sysfs
   * folder and this CPU's deterministic cache leaves): its size in bytes, its level (3 for an L3)
   * and where that came from, "sysfs" or "cpuid"; 0, 0 and "" when unknown (other OSes, and the
   * 2-vCPU Zen 5 guest whose sysfs lists no caches and whose CPUID hides leaf 0x8000001D).
   * Never glibc's sysconf: it reads leaf 0x80000006 on AMD, which a guest fills with its host
   * socket's whole L3 (320 MiB for the 32 MiB of an EPYC family 25 VM, 508 MiB on a Zen 5 one).
   */
  uint64_t last_level_cache_bytes = 0;
  int last_level_cache_level = 0;
  std::string last_level_cache_source;
  /**
   * Present features by their /proc/cpuinfo names, from: avx2, fma, avx512f, avx512bw,
   * avx512vl, avx512_bf16, avx512_fp16, amx_tile, amx_bf16, amx_int8, neon, simd128 (the peaks' list).
   */
  std::vector<std::string> names;
};

/** One subleaf of CPUID's deterministic cache parameters (AMD 0x8000001D, Intel 4): EAX, EBX, ECX. */
struct CacheLeaf {
  uint32_t eax = 0, ebx = 0, ecx = 0;
};

/** A cache level and its size (last_level_cache_of); level 0 and bytes 0 when unknown. */
struct CacheSize {
  int level = 0;
  uint64_t bytes = 0;
  std::string source;  // "sysfs", "cpuid", or "" when unknown
};

/**
 * The last-level data or unified cache: first Linux's sysfs folder of one CPU, `sysfs_dir`
 * (index<N>/{level,type,size}, size "32768K" = 33554432 bytes; the highest level wins), else the
 * CPUID leaves given, whose layout AMD's 0x8000001D and Intel's leaf 4 share (AMD APM Vol. 3,
 * CPUID Fn8000_001D; Intel SDM Vol. 2A, CPUID leaf 04H): EAX[4:0] type (1 data, 2 instruction,
 * 3 unified, 0 = no more), EAX[7:5] level, EBX[11:0] line size - 1, EBX[21:12] partitions - 1,
 * EBX[31:22] ways - 1, ECX sets - 1; bytes = ways x partitions x line x sets. Both describe the
 * cache the calling core sits in (a Zen CCX's 32 MiB L3, EAX[25:14] + 1 threads sharing it), not
 * the socket's sum. Unknown (level 0) when neither lists one. Pure but for reading the folder.
 */
CacheSize last_level_cache_of(const std::string& sysfs_dir, const std::vector<CacheLeaf>& leaves);

/**
 * This CPU's deterministic cache leaves: AMD / Hygon 0x8000001D where CPUID 0x80000001 ECX[22]
 * (TopologyExtensions) says they exist, Intel leaf 4; subleaves up to the first of type 0. Empty
 * off x86-64 and where the CPU (or a hypervisor hiding topoext, as the 2-vCPU Zen 5 guest's) has none.
 */
std::vector<CacheLeaf> cpuid_cache_leaves();

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
