// The kernels' fixed thread pool (see kernels_threads.h).
#include "attnscope/kernels_threads.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace attnscope {
namespace {

class ThreadPool {
 public:
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  void run(int threads, int64_t num_tasks, const std::function<void(int64_t, int)>& fn) {
    std::lock_guard<std::mutex> job_lock(job_mutex_);
    const int active = static_cast<int>(std::min<int64_t>(std::max(threads, 1), num_tasks));
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
      pending_helpers_ = active - 1;
      ++generation_;
    }
    wake_.notify_all();
    drain(0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return pending_helpers_ == 0; });
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
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
        if (index > active_helpers_) continue;
      }
      drain(index);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (--pending_helpers_ == 0) done_.notify_one();
      }
    }
  }

  std::mutex job_mutex_;  // one job at a time
  std::mutex mutex_;      // guards the fields below
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  const std::function<void(int64_t, int)>* fn_ = nullptr;
  int64_t num_tasks_ = 0;
  std::atomic<int64_t> next_task_{0};
  int active_helpers_ = 0;
  int pending_helpers_ = 0;
  uint64_t generation_ = 0;
  bool stopping_ = false;
};

ThreadPool& pool() {
  static ThreadPool instance;
  return instance;
}

}  // namespace

int hardware_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

void parallel_for(int threads, int64_t num_tasks, const std::function<void(int64_t, int)>& fn) {
  if (num_tasks <= 0) return;
  pool().run(threads, num_tasks, fn);
}

}  // namespace attnscope
