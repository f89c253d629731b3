// An allocator for the simulator's per-request arrays (a few MB each for 100,000 requests):
// blocks of 2 MiB or more are 2 MiB-aligned and marked MADV_HUGEPAGE, so that first touching
// them costs one page fault per 2 MiB instead of one per 4 KiB (transparent huge pages in
// "madvise" mode; on a VM each fault is an exit, and they were ~8% of a 100,000-request
// simulation's CPU time, perf -e cpu-clock). Smaller blocks, and builds without madvise
// (WebAssembly), use operator new.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace attnscope {

template <typename T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHuge = std::size_t{2} << 20;

  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= kHuge) {
      const std::size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
      void* p = std::aligned_alloc(kHuge, rounded);
      if (p == nullptr) throw std::bad_alloc();
      madvise(p, rounded, MADV_HUGEPAGE);  // best effort
      return static_cast<T*>(p);
    }
#endif
    return static_cast<T*>(::operator new(bytes));
  }

  void deallocate(T* p, std::size_t n) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (n * sizeof(T) >= kHuge) {
      std::free(p);
      return;
    }
#endif
    ::operator delete(p);
  }

  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const noexcept { return true; }
  template <typename U>
  bool operator!=(const HugePageAllocator<U>&) const noexcept { return false; }
};

/** A std::vector whose large buffers sit on transparent huge pages (HugePageAllocator). */
template <typename T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace attnscope
