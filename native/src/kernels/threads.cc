// The kernels' fixed thread pool (see threads.h).
#include "kernels/threads.h"

#include "kernels/cpu_features.h"
#include "kernels/internal.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace attnscope {
namespace {

// Polls before sleeping on the condition variable: back-to-back jobs (one per KV head in
// flash, repetitions of the timing loop) then start without a futex wake-up (tens of us).
constexpr int kSpinPolls = 2000;

class ThreadPool {
 public:
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_.store(true);
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  void run(int threads, int64_t num_tasks, const std::function<void(int64_t, int)>& fn) {
    std::lock_guard<std::mutex> job_lock(job_mutex_);
    const int active = kThreadsBuilt ? static_cast<int>(std::min<int64_t>(std::max(threads, 1), num_tasks)) : 1;
    if (active <= 1) {
      for (int64_t t = 0; t < num_tasks; ++t) fn(t, 0);
      return;
    }
    grow(active - 1);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      fn_ = &fn;
      num_tasks_ = num_tasks;
      next_task_.store(0);
      active_helpers_ = active - 1;
      pending_helpers_.store(active - 1);
      generation_.fetch_add(1);
    }
    wake_.notify_all();
    drain(0);
    for (int i = 0; i < kSpinPolls && pending_helpers_.load() != 0; ++i) cpu_relax();
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return pending_helpers_.load() == 0; });
    fn_ = nullptr;
  }

 private:
  void grow(int helpers) {
    while (static_cast<int>(workers_.size()) < helpers) {
      const int index = static_cast<int>(workers_.size()) + 1;
      workers_.emplace_back([this, index] { loop(index); });
    }
  }

  void drain(int worker) {
    for (;;) {
      const int64_t t = next_task_.fetch_add(1);
      if (t >= num_tasks_) return;
      (*fn_)(t, worker);
    }
  }

  void loop(int index) {
    uint64_t seen = 0;
    for (;;) {
      for (int i = 0; i < kSpinPolls && generation_.load() == seen && !stopping_.load(); ++i) cpu_relax();
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_.load() || generation_.load() != seen; });
        if (stopping_.load()) return;
        seen = generation_.load();
        if (index > active_helpers_) continue;
      }
      drain(index);
      if (pending_helpers_.fetch_sub(1) == 1) {
        std::lock_guard<std::mutex> lock(mutex_);  // pairs with the caller's wait
        done_.notify_one();
      }
    }
  }

  std::mutex job_mutex_;  // one job at a time
  std::mutex mutex_;      // guards the job fields below (the atomics are also polled)
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  const std::function<void(int64_t, int)>* fn_ = nullptr;
  int64_t num_tasks_ = 0;
  std::atomic<int64_t> next_task_{0};
  int active_helpers_ = 0;
  std::atomic<int> pending_helpers_{0};
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stopping_{false};
};

ThreadPool& pool() {
  static ThreadPool instance;
  return instance;
}

}  // namespace

void wait_at_least(const std::atomic<int>& counter, int target) {
  for (int polls = 0; counter.load(std::memory_order_acquire) < target; ++polls) {
    if (polls < kSpinPolls) {
      cpu_relax();
    } else {
      std::this_thread::yield();
    }
  }
}

int hardware_threads() { return cpu_features().logical_cores; }

namespace {
std::atomic<bool> g_cancel{false};
}  // namespace

void cancel_kernels() { g_cancel.store(true, std::memory_order_relaxed); }

void clear_kernel_cancel() { g_cancel.store(false, std::memory_order_relaxed); }

namespace detail {
bool kernels_cancelled() { return g_cancel.load(std::memory_order_relaxed); }
}  // namespace detail

void parallel_for(int threads, int64_t num_tasks, const std::function<void(int64_t, int)>& fn) {
  if (num_tasks <= 0) return;
  pool().run(threads, num_tasks, fn);
}

}  // namespace attnscope
