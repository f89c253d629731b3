// The timing loop: warm-up, then samples until both the minimum count and time are reached or
// either maximum is (TimingParams).
#include <chrono>
#include <ctime>
#include <vector>

#include "kernels/cpu_time.h"
#include "kernels/internal.h"

#if defined(__EMSCRIPTEN__)
#include <emscripten.h>
#endif

namespace attnscope {

#if defined(__EMSCRIPTEN__)
EM_JS(double, host_cpu_us, (), {
  const u = process.cpuUsage();
  return u.user + u.system;
});
int64_t process_cpu_ns() { return static_cast<int64_t>(host_cpu_us()) * 1000; }
#else
int64_t process_cpu_ns() {
  return static_cast<int64_t>(std::clock()) * (1000000000 / CLOCKS_PER_SEC);
}
#endif

namespace detail {
namespace {

template <typename Run>
Status time_loop(const TimingParams& t, std::vector<int64_t>* samples, std::vector<int64_t>* cpu,
                 Run run) {
  using Clock = std::chrono::steady_clock;
  samples->clear();
  if (cpu) cpu->clear();
  for (int i = 0; i < t.warmup; ++i) {
    const Status s = run();
    if (s != Status::kOk) return s;
    if (kernels_cancelled()) return ok();  // guarded() reports kCancelled
  }
  const auto start = Clock::now();
  for (;;) {
    const int64_t c0 = process_cpu_ns();
    const auto t0 = Clock::now();
    const Status s = run();
    const auto t1 = Clock::now();
    const int64_t c1 = process_cpu_ns();
    if (s != Status::kOk) return s;
    samples->push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
    if (cpu) cpu->push_back(c1 - c0);
    if (kernels_cancelled()) break;  // guarded() reports kCancelled
    const double elapsed_ms = std::chrono::duration<double, std::milli>(t1 - start).count();
    const int reps = static_cast<int>(samples->size());
    if (reps >= t.max_reps || elapsed_ms >= t.max_time_ms) break;
    if (reps >= t.min_reps && elapsed_ms >= t.min_time_ms) break;
  }
  return ok();
}

// Checks once, then times `run` (time_flash_forward, time_paged_decode, time_paged_read).
template <typename Params, typename Check, typename Run>
Status time_checked(const Params& params, Check check, Run run, const TimingParams& t,
                    std::vector<int64_t>* samples, std::vector<int64_t>* cpu) {
  return guarded([&] {
    const Status s = check(params);
    if (s != Status::kOk) return s;
    return time_loop(t, samples, cpu, [&] { return run(params); });
  });
}

}  // namespace
}  // namespace detail

Status time_flash_forward(const FlashParams& params, const TimingParams& timing,
                          std::vector<int64_t>* samples_ns, std::vector<int64_t>* cpu_ns) {
  return detail::time_checked(params, detail::check_flash, detail::run_flash, timing, samples_ns,
                              cpu_ns);
}

Status time_paged_decode(const PagedDecodeParams& params, const TimingParams& timing,
                         std::vector<int64_t>* samples_ns, std::vector<int64_t>* cpu_ns) {
  const auto check = [](const PagedDecodeParams& p) { return detail::check_paged(p); };
  return detail::time_checked(params, check, detail::run_paged, timing, samples_ns, cpu_ns);
}

Status time_paged_read(const PagedDecodeParams& params, const TimingParams& timing,
                       std::vector<int64_t>* samples_ns, std::vector<int64_t>* cpu_ns) {
  const auto check = [](const PagedDecodeParams& p) { return detail::check_paged(p); };
  return detail::time_checked(params, check, detail::run_paged_read, timing, samples_ns, cpu_ns);
}

}  // namespace attnscope
