// Machine ceilings for the roofline: fp32 FMA peak, AVX512-BF16 and AMX bf16 peaks, DRAM read
// bandwidth, and the CPU features they depend on. Plain C++17: no N-API types, never throws.
//
// Each peak is a microbenchmark that keeps every execution unit of one kind busy on all
// requested threads (independent dependency chains, operands in registers or tiles) and reports
// the best rate of several short windows, so a noisy neighbour lowers one window, not the peak.
// The SIMD loops are compiled with function-level target attributes and chosen at run time, so
// the shipped binary needs no -march=native and arm64 builds the portable loops only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attnscope {
namespace peaks {

/** What CPUID and the OS say this CPU can run (x86-64; on other CPUs only the ISA flag). */
struct IsaFeatures {
  bool avx2 = false;         // CPUID.7.0:EBX[5], with the OS saving YMM state (XCR0 bits 1-2)
  bool fma = false;          // CPUID.1:ECX[12], with YMM state
  bool avx512f = false;      // CPUID.7.0:EBX[16], with ZMM and opmask state (XCR0 bits 5-7)
  bool avx512bw = false;     // CPUID.7.0:EBX[30]
  bool avx512vl = false;     // CPUID.7.0:EBX[31]
  bool avx512_bf16 = false;  // CPUID.7.1:EAX[5]  (vdpbf16ps, vcvtne2ps2bf16)
  bool avx512_fp16 = false;  // CPUID.7.0:EDX[23]
  bool amx_tile = false;     // CPUID.7.0:EDX[24] (CPU support; OS permission is separate)
  bool amx_bf16 = false;     // CPUID.7.0:EDX[22]
  bool amx_int8 = false;     // CPUID.7.0:EDX[25]
  bool amx_os_state = false; // XCR0 bits 17-18 (XTILECFG, XTILEDATA) enabled by the OS
  bool neon = false;         // aarch64 Advanced SIMD (always present there)
  std::string vendor;        // "GenuineIntel", "AuthenticAMD", ... ("" when unknown)
  std::string model;         // brand string, e.g. "AMD EPYC 9B45"
  int logical_cores = 1;     // CPUs this process may run on (affinity mask)
  /** The flags above that are set, by their /proc/cpuinfo names ("avx512_bf16", "amx_tile"). */
  std::vector<std::string> names;
};

/** Detected once per process; cheap after the first call. */
const IsaFeatures& isa_features();

/**
 * Asks Linux for permission to use AMX tile data (arch_prctl(ARCH_REQ_XCOMP_PERM,
 * XFEATURE_XTILEDATA = 18); process-wide, idempotent). Returns "" when AMX tiles may be used,
 * else why not: no CPU support, no OS state in XCR0, the kernel's refusal with its errno text,
 * or a non-Linux / non-x86-64 build.
 */
std::string request_amx_permission();

/** How to run one microbenchmark. */
struct PeakParams {
  int threads = 0;           // worker threads, one per CPU of the affinity mask when 0
  double duration_sec = 0.25;  // wall-clock budget, warm-up included (read bandwidth: at least
                               // half of it for timed passes after the buffer's first touch)
};

/** One measured ceiling. */
struct PeakResult {
  bool available = false;  // false: `reason` says why nothing was measured
  double value = 0;        // FLOP/s or bytes/s (SI), best window
  double seconds = 0;      // wall time the measurement took, allocation and warm-up included
  int threads = 0;         // threads that ran
  std::string isa;         // loop that ran: "avx512", "avx2", "portable", "amx", ...
  std::string method;      // one sentence: what ran and how the figure is counted
  std::string reason;      // set when !available
};

/** fp32 FMA peak: independent FMA chains on zmm (AVX-512), else ymm (AVX2+FMA), else portable. */
PeakResult measure_fp32_fma_peak(const PeakParams& params);

/** bf16 dot-product peak through vdpbf16ps on zmm (AVX512-BF16); unavailable without it. */
PeakResult measure_avx512_bf16_peak(const PeakParams& params);

/** bf16 peak through AMX TDPBF16PS on four accumulator tiles; unavailable without AMX. */
PeakResult measure_amx_bf16_peak(const PeakParams& params);

/**
 * DRAM read bandwidth: every thread sums its slice of a buffer much larger than the last-level
 * cache with plain (temporal) vector loads; bytes read per second of the best full pass.
 * `buffer_bytes` 0 picks 2 x LLC within [256 MiB, 512 MiB] (256 MiB when the reported LLC
 * exceeds 16 MiB per CPU: a VM reporting its host socket's L3) and at most a quarter of free
 * memory; first-touching more costs seconds in VMs.
 */
PeakResult measure_read_bandwidth(const PeakParams& params, uint64_t buffer_bytes = 0);

/**
 * Core clock estimate for sanity checks: a chain of dependent 1-cycle integer adds timed on the
 * calling thread (cycles per second). 0 where no such loop is built (non-x86-64/aarch64).
 */
double measure_core_clock_hz(double duration_sec);

}  // namespace peaks
}  // namespace attnscope
