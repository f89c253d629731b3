// Open-addressing hash map from a 64-bit key to a non-negative int32 value, for the page
// allocator's hot paths (sequence id -> slot, page hash -> cached page). Linear probing with
// backward-shift deletion (no tombstones), so lookups stay short after many erase/insert cycles.
// Keys are mixed with a 64-bit finalizer, so sequential ids and raw hashes both spread well.
#pragma once

#include <cstdint>
#include <vector>

namespace attnscope {

class FlatMap64 {
 public:
  static constexpr int32_t kNotFound = -1;

  explicit FlatMap64(size_t expected = 16) { Rehash(CapacityFor(expected)); }

  int32_t Find(uint64_t key) const {
    for (size_t i = Home(key);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.value < 0) return kNotFound;
      if (s.key == key) return s.value;
    }
  }

  // Inserts when the key is absent (one probe run); returns false, changing nothing, when present.
  // value must be >= 0.
  bool InsertIfAbsent(uint64_t key, int32_t value) {
    if ((size_ + 1) * 4 > slots_.size() * 3) Rehash(slots_.size() * 2);
    const size_t home = Home(key);
    for (size_t i = home;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.value < 0) {
        s.key = key;
        s.value = value;
        s.home = static_cast<uint32_t>(home);
        ++size_;
        return true;
      }
      if (s.key == key) return false;
    }
  }

  // Returns true when the key was present.
  bool Erase(uint64_t key) {
    size_t i = Home(key);
    for (;; i = (i + 1) & mask_) {
      if (slots_[i].value < 0) return false;
      if (slots_[i].key == key) break;
    }
    // Backward-shift: move later entries of the probe run into the hole when their home allows.
    size_t hole = i;
    for (size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
      if (slots_[j].value < 0) break;
      const size_t home = slots_[j].home;
      // Entry j may move to hole when its home is not in the cyclic range (hole, j].
      const bool home_in_range = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
      if (!home_in_range) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole].value = -1;
    --size_;
    return true;
  }

  // Starts loading the cache line a lookup of key begins at.
  void Prefetch(uint64_t key) const { __builtin_prefetch(&slots_[Home(key)]); }

  size_t size() const { return size_; }

 private:
  struct Slot {
    uint64_t key = 0;
    int32_t value = -1;  // < 0: empty
    uint32_t home = 0;   // Home(key), kept for the backward shift
  };

  static size_t CapacityFor(size_t n) {
    size_t cap = 16;
    while (cap * 3 < n * 4 + 4) cap *= 2;
    return cap;
  }

  size_t Home(uint64_t key) const {
    uint64_t x = key;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return static_cast<size_t>(x) & mask_;
  }

  void Rehash(size_t capacity) {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    size_ = 0;
    for (const Slot& s : old)
      if (s.value >= 0) InsertIfAbsent(s.key, s.value);
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace attnscope
