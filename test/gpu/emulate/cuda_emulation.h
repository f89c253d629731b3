// CPU emulation of the few CUDA features the AttnScope kernels use, so that g++ can run the
// kernels' real source (native/cuda/src/*.cuh) one std::thread per CUDA thread, one block at
// a time: thread/block indices, __syncthreads, warp shuffles, fp16/bf16 types. The PTX
// wrappers (ldmatrix, mma, cp.async) are emulated in ptx_emulation.h. Test-only; slow.
#pragma once

#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
// Static locals are shared by every thread of the process: one block runs at a time.
#define __shared__ static

struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct uint4 {
  unsigned x, y, z, w;
};
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }

namespace emu {

// A reusable barrier for `count` threads.
class Barrier {
 public:
  void reset(int count) {
    count_ = count;
    waiting_ = 0;
  }
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const unsigned long gen = generation_;
    if (++waiting_ == count_) {
      waiting_ = 0;
      ++generation_;
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return gen != generation_; });
    }
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int count_ = 0, waiting_ = 0;
  unsigned long generation_ = 0;
};

struct Block {
  uint3 block_idx{0, 0, 0};
  uint3 grid_dim{1, 1, 1};
  int threads = 0;
  Barrier block_barrier;
  Barrier warp_barrier[32];
  // Per-warp exchange slots for collectives: 32 lanes x up to 12 words.
  uint64_t slots[32][32][12];
  unsigned char* dynamic_smem = nullptr;
};

extern Block g_block;
extern thread_local uint3 t_thread_idx;

// One thread's cp.async state (PTX ISA, cp.async.commit_group / wait_group): copies issued
// since the last commit, and the committed groups not yet waited for. A copy writes shared
// memory only when a wait_group N leaves at most N newer groups pending, as the hardware
// guarantees no sooner; copies nobody waits for never land.
class CpAsyncQueue {
 public:
  struct Copy {
    uint32_t dst;
    const void* src;  // nullptr: zero-fill
  };
  void issue(uint32_t dst, const void* src, bool valid) { open_.push_back(Copy{dst, valid ? src : nullptr}); }
  void commit() {
    groups_.push_back(std::move(open_));
    open_.clear();
  }
  void wait(int n) {
    while (static_cast<int>(groups_.size()) > n) {
      for (const Copy& c : groups_.front()) apply(c);
      groups_.pop_front();
    }
  }
  void reset() {
    open_.clear();
    groups_.clear();
  }

 private:
  static void apply(const Copy& c);
  std::vector<Copy> open_;
  std::deque<std::vector<Copy>> groups_;
};

extern thread_local CpAsyncQueue t_cp_async;

inline int lane() { return static_cast<int>(t_thread_idx.x % 32); }
inline int warp() { return static_cast<int>(t_thread_idx.x / 32); }
inline void warp_sync() { g_block.warp_barrier[warp()].wait(); }

}  // namespace emu

#define threadIdx (emu::t_thread_idx)
#define blockIdx (emu::g_block.block_idx)
#define gridDim (emu::g_block.grid_dim)

inline void __syncthreads() { emu::g_block.block_barrier.wait(); }
inline void __syncwarp() { emu::warp_sync(); }

inline void emu::CpAsyncQueue::apply(const Copy& c) {
  if (c.src != nullptr) {
    std::memcpy(g_block.dynamic_smem + c.dst, c.src, 16);
  } else {
    std::memset(g_block.dynamic_smem + c.dst, 0, 16);
  }
}

template <typename T>
inline T __shfl_xor_sync(unsigned, T value, int mask) {
  static_assert(sizeof(T) <= 8, "one slot");
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  emu::g_block.slots[emu::warp()][emu::lane()][0] = bits;
  emu::warp_sync();
  bits = emu::g_block.slots[emu::warp()][emu::lane() ^ mask][0];
  emu::warp_sync();
  T out;
  std::memcpy(&out, &bits, sizeof(T));
  return out;
}

template <typename T>
inline T __ldg(const T* p) {
  return *p;
}

