// The timing loop: warm-up, then samples until both the minimum count and time are reached or
// either maximum is (TimingParams).
#include <chrono>
#include <vector>

#include "kernels/internal.h"

namespace attnscope {
namespace detail {
namespace {

template <typename Run>
Status time_loop(const TimingParams& t, std::vector<int64_t>* samples, Run run) {
  using Clock = std::chrono::steady_clock;
  samples->clear();
  for (int i = 0; i < t.warmup; ++i) {
    const Status s = run();
    if (s != Status::kOk) return s;
  }
  const auto start = Clock::now();
  for (;;) {
    const auto t0 = Clock::now();
    const Status s = run();
    const auto t1 = Clock::now();
    if (s != Status::kOk) return s;
    samples->push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
    const double elapsed_ms = std::chrono::duration<double, std::milli>(t1 - start).count();
    const int reps = static_cast<int>(samples->size());
    if (reps >= t.max_reps || elapsed_ms >= t.max_time_ms) break;
    if (reps >= t.min_reps && elapsed_ms >= t.min_time_ms) break;
  }
  return ok();
}

}  // namespace
}  // namespace detail

Status time_flash_forward(const FlashParams& params, const TimingParams& timing,
                          std::vector<int64_t>* samples_ns) {
  return detail::guarded([&] {
    const Status s = detail::check_flash(params);
    if (s != Status::kOk) return s;
    return detail::time_loop(timing, samples_ns, [&] { return detail::run_flash(params); });
  });
}

Status time_paged_decode(const PagedDecodeParams& params, const TimingParams& timing,
                         std::vector<int64_t>* samples_ns) {
  return detail::guarded([&] {
    const Status s = detail::check_paged(params);
    if (s != Status::kOk) return s;
    return detail::time_loop(timing, samples_ns, [&] { return detail::run_paged(params); });
  });
}

}  // namespace attnscope
