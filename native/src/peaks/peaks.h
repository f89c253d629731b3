// Machine ceilings for the roofline: fp32 FMA peak, AVX512-BF16 and AMX bf16 peaks, DRAM read
// bandwidth. Plain C++17: no N-API types, never throws. Which loops run is chosen from
// cpu_features() (kernels/cpu_features.h).
//
// Each peak is a microbenchmark that keeps every execution unit of one kind busy on all
// requested threads (independent dependency chains, operands in registers or tiles) and reports
// the best rate of several short windows, so a noisy neighbour lowers one window, not the peak.
// The SIMD loops are compiled with function-level target attributes and chosen at run time, so
// the shipped binary needs no -march=native and arm64 builds the portable loops only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace attnscope {
namespace peaks {

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

/**
 * fp32 FMA peak: independent FMA chains on zmm (AVX-512), else ymm (AVX2+FMA), else portable;
 * where ATTNSCOPE_SIMD makes the kernels take a narrower path (kernels.h simd_override: avx2, or
 * scalar, whose loops the compiler vectorizes for the baseline ISA), the loop of that path, so
 * that a forced path's rate is held against the peak of the unit it ran on.
 */
PeakResult measure_fp32_fma_peak(const PeakParams& params);

/** The fp32 FMA peak on the loop `isa` names ("avx512", "avx2", "portable"), or the widest below it this CPU has. */
PeakResult measure_fp32_fma_peak_on(const std::string& isa, const PeakParams& params);

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
 * Sums `bytes` at `data` (any alignment and length) with the read loop measure_read_bandwidth
 * uses on this CPU (its 64-byte aligned middle; the edges byte by byte), so that a pattern of
 * reads can be timed against that peak with the same loads. Returns the bytes read.
 */
double read_bytes(const void* data, size_t bytes);

/**
 * Sums n runs of `bytes` each with the loads of read_bytes, 256 B of each run in turn (run 0's
 * first 256 B, run 1's, ..., then each run's next 256 B): n address streams in flight at once,
 * where read_bytes reads one. Runs that are not aligned to the loads, or a length that is not a
 * multiple of 256, are read one after the other by read_bytes. Returns n * bytes.
 */
double read_streams(const void* const* streams, int n, size_t bytes);

/**
 * Core clock estimate for sanity checks: a chain of dependent 1-cycle integer adds timed on the
 * calling thread (cycles per second). 0 where no such loop is built (non-x86-64/aarch64).
 */
double measure_core_clock_hz(double duration_sec);

}  // namespace peaks
}  // namespace attnscope
