// A fixed pool of std::thread workers shared by all kernel calls of the process. One job runs
// at a time (calls from several AsyncWorkers queue up), so timings never overlap each other.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

namespace attnscope {

/**
 * Whether this build can start threads: false in the single-threaded WebAssembly build
 * (native/wasm/, no pthreads), where every parallel_for and peak loop runs on the caller.
 */
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
constexpr bool kThreadsBuilt = false;
#else
constexpr bool kThreadsBuilt = true;
#endif

/** A spin-wait hint to the CPU (x86 pause, AArch64 yield): one poll of a busy-wait loop. */
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

/**
 * Returns once counter >= target (acquire): polls with cpu_relax, then yields the CPU between
 * polls, so that on an oversubscribed machine a waiting worker gives its core to the
 * descheduled worker it waits for. Only for waits on tasks already handed out (parallel_for).
 */
void wait_at_least(const std::atomic<int>& counter, int target);

/** CPUs this process may run on (>= 1): its affinity mask, as Node's availableParallelism(). */
int hardware_threads();

/**
 * Runs fn(task, worker) for every task in [0, num_tasks) on min(threads, num_tasks) workers,
 * the calling thread being worker 0; returns when all tasks are done. Tasks are handed out
 * dynamically (an atomic counter), so uneven tasks (causal tiles) balance. `worker` is in
 * [0, threads) and indexes per-worker scratch. fn must not throw.
 */
void parallel_for(int threads, int64_t num_tasks, const std::function<void(int64_t, int)>& fn);

}  // namespace attnscope
