// Peak microbenchmarks: thread orchestration, windowing and the choice of loop per ISA.
//
// Method (all peaks): the work runs on `threads` threads released together. A window's rate is
// the work of all threads divided by the longest CPU time any one of them got (the time from
// the release to the last finish where the OS has no per-thread clock). On an idle machine the
// threads overlap and this is the wall time; on a shared one, time slices given to other
// processes no longer count, while a thread that ran alone for part of the window still only
// adds its own work. The reported value is the best of several short windows.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "kernels/cpu_features.h"
#include "kernels/cpu_time.h"
#include "kernels/kernels.h"
#include "kernels/threads.h"
#include "peaks/peaks.h"
#include "peaks/loops.h"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace attnscope {
namespace peaks {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

int resolve_threads(int requested) {
  if (!kThreadsBuilt) return 1;
  return requested > 0 ? requested : cpu_features().logical_cores;
}

double thread_cpu_seconds() {
#if defined(__EMSCRIPTEN__)
  // One thread, so the process's CPU time: Emscripten's clocks count wall time, so a window
  // preempted by other processes would lower the peak while the kernels are judged by CPU time.
  return process_cpu_ns() * 1e-9;
#elif defined(CLOCK_THREAD_CPUTIME_ID)
  timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0) return ts.tv_sec + ts.tv_nsec * 1e-9;
#endif
  return -1;
}

// Runs body(t) for t in [0, threads) on threads released together (unpinned, as the kernels'
// thread pool, so both see the same scheduler). Returns the seconds a window's rate divides by
// (see the method above).
template <typename Body>
double run_together(int threads, const Body& body) {
  if (!kThreadsBuilt) {  // one thread (resolve_threads): the caller runs the body
    const Clock::time_point t0 = Clock::now();
    const double cpu0 = thread_cpu_seconds();
    body(0);
    const double cpu1 = thread_cpu_seconds();
    const double wall = seconds_since(t0);
    return cpu0 >= 0 && cpu1 > cpu0 ? std::min(cpu1 - cpu0, wall) : wall;
  }
  std::atomic<bool> go{false};
  std::vector<Clock::time_point> ends(threads);
  std::vector<double> cpu(threads, -1);
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      const double cpu0 = thread_cpu_seconds();
      body(t);
      const double cpu1 = thread_cpu_seconds();
      ends[t] = Clock::now();
      if (cpu0 >= 0 && cpu1 >= 0) cpu[t] = cpu1 - cpu0;
    });
  }
  const Clock::time_point t0 = Clock::now();
  go.store(true, std::memory_order_release);
  for (std::thread& th : pool) th.join();
  Clock::time_point last = t0;
  for (const Clock::time_point& e : ends) last = std::max(last, e);
  const double wall = std::chrono::duration<double>(last - t0).count();
  double longest_cpu = 0;
  for (double c : cpu) {
    if (c < 0) return wall;
    longest_cpu = std::max(longest_cpu, c);
  }
  return longest_cpu > 0 ? std::min(longest_cpu, wall) : wall;
}

std::string format_ms(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f ms", seconds * 1e3);
  return buf;
}

PeakResult unavailable(const char* isa, std::string reason) {
  PeakResult r;
  r.isa = isa;
  r.reason = std::move(reason);
  return r;
}

// Calibrates `loop` on the calling thread (which also warms up clocks and power licences),
// then runs windows of about an eighth of the remaining budget on all threads (short windows:
// the more there are, the likelier one runs without a neighbour's time slice in it).
PeakResult compute_peak(ComputeLoop loop, const char* isa, const std::string& what,
                        const PeakParams& params) {
  const Clock::time_point start = Clock::now();
  PeakResult r;
  r.isa = isa;
  r.threads = resolve_threads(params.threads);
  uint64_t iters = 64;
  double calib_sec = 0;
  for (;;) {
    const Clock::time_point t0 = Clock::now();
    loop(iters);
    calib_sec = seconds_since(t0);
    if (calib_sec >= 2e-3 || iters >= (uint64_t{1} << 34)) break;
    iters *= 2;
  }
  const double iters_per_sec = static_cast<double>(iters) / std::max(calib_sec, 1e-9);
  const double remaining = std::max(params.duration_sec - seconds_since(start), 0.01);
  const double window_sec = std::max(remaining / 8, 0.004);
  const uint64_t window_iters = std::max<uint64_t>(1, static_cast<uint64_t>(iters_per_sec * window_sec));
  const Clock::time_point deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(params.duration_sec));
  std::vector<double> work(r.threads);
  int windows = 0;
  do {
    const double sec = run_together(r.threads, [&](int t) { work[t] = loop(window_iters); });
    double total = 0;
    for (double w : work) total += w;
    if (sec > 0) r.value = std::max(r.value, total / sec);
    ++windows;
  } while (windows < 2 || Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(window_sec)) < deadline);
  r.available = r.value > 0;
  if (!r.available) r.reason = "the timed windows measured no time";
  r.seconds = seconds_since(start);
  r.method = what + " on " + std::to_string(r.threads) + " threads; best of " +
             std::to_string(windows) + " windows of ~" + format_ms(window_sec);
  return r;
}

uint64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return uint64_t{4} << 30;
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

}  // namespace

PeakResult measure_fp32_fma_peak_on(const std::string& isa, const PeakParams& params) {
  const CpuFeatures& f = cpu_features();
  (void)f;
#if defined(__x86_64__)
  if (f.avx512f && isa == "avx512") {
    return compute_peak(fma_loop_avx512, "avx512",
                        "16 independent zmm FMA chains (vfmadd, 16 fp32 lanes, 2 FLOP per lane) per thread",
                        params);
  }
  if (f.avx2 && f.fma && isa != "portable") {
    return compute_peak(fma_loop_avx2, "avx2",
                        "12 independent ymm FMA chains (vfmadd, 8 fp32 lanes, 2 FLOP per lane) per thread",
                        params);
  }
#endif
  return compute_peak(fma_loop_portable, portable_isa_name(),
                      "independent 4-lane fp32 multiply-add chains (2 FLOP per lane) per thread", params);
}

PeakResult measure_fp32_fma_peak(const PeakParams& params) {
  const SimdPath forced = simd_override().path;
  const char* isa = forced == SimdPath::kAvx2 ? "avx2" : forced == SimdPath::kScalar ? "portable" : "avx512";
  return measure_fp32_fma_peak_on(isa, params);
}

PeakResult measure_avx512_bf16_peak(const PeakParams& params) {
#if defined(__x86_64__)
  if (!cpu_features().avx512_bf16) return unavailable("avx512bf16", "CPUID lacks avx512_bf16 on this CPU");
  return compute_peak(bf16_dot_loop_avx512, "avx512bf16",
                      "16 independent zmm vdpbf16ps chains (32 bf16 pairs into 16 fp32 lanes, 4 FLOP per lane) "
                      "per thread",
                      params);
#else
  (void)params;
  return unavailable("avx512bf16", "AVX512-BF16 is an x86-64 feature; this is not an x86-64 build");
#endif
}

PeakResult measure_amx_bf16_peak(const PeakParams& params) {
  std::string refusal = request_amx_permission();
  if (!refusal.empty()) return unavailable("amx", std::move(refusal));
#if defined(__x86_64__)
  return compute_peak(amx_bf16_loop, "amx",
                      "TDPBF16PS into 4 accumulator tiles (2x2 block of 16x32 bf16 A and B tiles, 16384 FLOP "
                      "each) per thread",
                      params);
#else
  (void)params;
  return unavailable("amx", "AMX is an x86-64 feature; this is not an x86-64 build");
#endif
}

namespace {

// The read loop of this CPU: zmm loads with AVX-512, ymm with AVX2, else the portable loop.
struct ReadLoopChoice {
  ReadLoop loop;
  ReadStreams streams;
  size_t align;  // the loads' alignment (bytes) that streams needs
  const char* isa;
  const char* load;
};

const ReadLoopChoice& read_loop_choice() {
  static const ReadLoopChoice choice = [] {
    ReadLoopChoice c{read_loop_portable, read_streams_portable, 8, portable_isa_name(), "64-bit integer loads"};
#if defined(__x86_64__)
    const CpuFeatures& f = cpu_features();
    if (f.avx512f) {
      c = {read_loop_avx512, read_streams_avx512, 64, "avx512", "zmm loads (vpaddq)"};
    } else if (f.avx2) {
      c = {read_loop_avx2, read_streams_avx2, 32, "avx2", "ymm loads (vpaddq)"};
    }
#endif
    return c;
  }();
  return choice;
}

}  // namespace

double read_bytes(const void* data, size_t bytes) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t mid_begin = (begin + 63) / 64 * 64;
  const uintptr_t mid_end = mid_begin + (begin + bytes > mid_begin ? (begin + bytes - mid_begin) / 256 * 256 : 0);
  const uint8_t* p = static_cast<const uint8_t*>(data);
  uint64_t edge = 0;
  for (uintptr_t a = begin; a < std::min<uintptr_t>(mid_begin, begin + bytes); ++a) edge += p[a - begin];
  for (uintptr_t a = std::max(mid_end, mid_begin); a < begin + bytes; ++a) edge += p[a - begin];
  consume(static_cast<double>(edge));
  if (mid_end > mid_begin) read_loop_choice().loop(reinterpret_cast<const void*>(mid_begin), mid_end - mid_begin);
  return static_cast<double>(bytes);
}

double read_streams(const void* const* streams, int n, size_t bytes) {
  const ReadLoopChoice& c = read_loop_choice();
  bool aligned = bytes % 256 == 0;
  for (int j = 0; j < n && aligned; ++j) aligned = reinterpret_cast<uintptr_t>(streams[j]) % c.align == 0;
  if (aligned) return c.streams(streams, n, bytes);
  double read = 0;
  for (int j = 0; j < n; ++j) read += read_bytes(streams[j], bytes);
  return read;
}

PeakResult measure_read_bandwidth(const PeakParams& params, uint64_t buffer_bytes) {
  const Clock::time_point start = Clock::now();
  const CpuFeatures& f = cpu_features();
  const ReadLoop loop = read_loop_choice().loop;
  const char* isa = read_loop_choice().isa;
  const char* load = read_loop_choice().load;
  PeakResult r;
  r.isa = isa;
  r.threads = resolve_threads(params.threads);
  const uint64_t llc_read = f.last_level_cache_bytes;
  const uint64_t llc = llc_read > 0 ? llc_read : uint64_t{32} << 20;
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  // A guest of a big host often reports the whole socket's L3 (e.g. 508 MiB to a 2-CPU VM
  // whose cores reach 32 MiB of it); no real CPU has more than 16 MiB of L3 per core.
  const bool llc_is_host_total = llc_read / static_cast<uint64_t>(f.logical_cores) > 16 * kMiB;
  uint64_t bytes = buffer_bytes;
  if (bytes == 0) {
    bytes = llc_is_host_total ? 256 * kMiB : std::min(std::max(256 * kMiB, 2 * llc), 512 * kMiB);
    bytes = std::min(bytes, available_memory_bytes() / 4);
  }
  // Whole 2 MiB pages per thread, so each slice is aligned for any vector width and for THP.
  const uint64_t slice = (bytes / r.threads) / (2 * kMiB) * (2 * kMiB);
  if (slice == 0) {
    return unavailable(isa, buffer_bytes != 0
                                ? "buffer_bytes must be at least 2 MiB per thread"
                                : "not enough free memory for a buffer larger than the last-level cache");
  }
  bytes = slice * r.threads;
  std::unique_ptr<uint8_t, FreeDeleter> buffer(static_cast<uint8_t*>(std::aligned_alloc(2 * kMiB, bytes)));
  if (!buffer) return unavailable(isa, "could not allocate the " + std::to_string(bytes / kMiB) + " MiB buffer");
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  madvise(buffer.get(), bytes, MADV_HUGEPAGE);  // fewer TLB misses; best effort
#endif
  uint8_t* base = buffer.get();
  // First touch by the thread that later reads the slice (page placement on NUMA machines).
  run_together(r.threads, [&](int t) {
    uint8_t* p = base + slice * t;
    for (uint64_t i = 0; i < slice; i += 4096) p[i] = static_cast<uint8_t>(t + 1);
  });
  std::vector<double> work(r.threads);
  // At least half the budget goes to timed passes, however long the first touch took (seconds
  // in a VM whose host backs memory lazily): more passes, more chances of a quiet one.
  const auto budget = [](double sec) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(sec));
  };
  const Clock::time_point deadline =
      std::max(start + budget(params.duration_sec), Clock::now() + budget(params.duration_sec / 2));
  int passes = 0;
  double last_sec = 0;
  do {
    last_sec = run_together(r.threads, [&](int t) { work[t] = loop(base + slice * t, slice); });
    double total = 0;
    for (double w : work) total += w;
    if (last_sec > 0) r.value = std::max(r.value, total / last_sec);
    ++passes;
  } while (passes < 3 || Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                            std::chrono::duration<double>(last_sec)) < deadline);
  r.available = r.value > 0;
  if (!r.available) r.reason = "the timed passes measured no time";
  r.seconds = seconds_since(start);
  r.method = "sum of a " + std::to_string(bytes / kMiB) + " MiB buffer (last-level cache " +
             (llc_read > 0 ? std::to_string(llc / kMiB) + " MiB" : std::string("unknown here")) +
             (llc_is_host_total ? ", more than 16 MiB per CPU: the host's, not this machine's" : "") +
             ") with plain " + load + " on " + std::to_string(r.threads) + " threads, one slice each; best of " +
             std::to_string(passes) + " full passes";
  return r;
}

}  // namespace peaks
}  // namespace attnscope
