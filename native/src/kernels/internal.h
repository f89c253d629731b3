// Shared by the CPU kernel drivers (flash_fwd.cc, paged_decode.cc, reference.cc, timing.cc):
// the last-error slot, argument checks, element access, the mask geometry and the entry points
// that timing.cc loops over. Not part of the kernels' public interface (kernels.h).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <new>
#include <string>

#include "kernels/kernels.h"
#include "kernels/threads.h"

namespace attnscope {
namespace detail {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();
// From core/kernelLimits.json (cpu.maxHeadDim), through binding.gyp's defines.
#ifndef ATTNSCOPE_CPU_MAX_HEAD_DIM
#error "ATTNSCOPE_CPU_MAX_HEAD_DIM is defined by binding.gyp from core/kernelLimits.json"
#endif
constexpr int kMaxHeadDim = ATTNSCOPE_CPU_MAX_HEAD_DIM;

// Records `message` as last_error() and returns `status`.
Status fail(Status status, const std::string& message);
// Clears last_error() and returns kOk.
Status ok();

inline const void* element_at(const void* base, DType dtype, int64_t index) {
  return static_cast<const char*>(base) + index * static_cast<int64_t>(dtype_bytes(dtype));
}

inline double load_double(DType dtype, const void* base, int64_t index) {
  switch (dtype) {
    case DType::kF16: return half_to_float(static_cast<const uint16_t*>(base)[index]);
    case DType::kBF16: return bf16_to_float(static_cast<const uint16_t*>(base)[index]);
    default: return static_cast<const float*>(base)[index];
  }
}

inline float default_scale(float scale, int head_dim) {
  return scale > 0.f ? scale : 1.f / std::sqrt(static_cast<float>(head_dim));
}

inline int worker_count(int threads) { return threads > 0 ? threads : hardware_threads(); }

// Visible keys [lo, hi] (inclusive) of query i; empty when lo > hi. See FlashParams.
struct MaskGeometry {
  int64_t offset;  // seq_len_k - seq_len_q: p(i) = i + offset
  int seq_len_k;
  bool causal;
  int window;
  void range(int64_t i, int64_t* lo, int64_t* hi) const {
    const int64_t pos = i + offset;
    *hi = causal ? std::min<int64_t>(pos, seq_len_k - 1) : seq_len_k - 1;
    *lo = window > 0 ? std::max<int64_t>(0, pos - window + 1) : 0;
  }
};

inline bool dtype_valid(DType d) { return d == DType::kF32 || d == DType::kF16 || d == DType::kBF16; }

// kUnsupported (with last_error set) when this CPU or build lacks `path`.
Status check_simd(SimdPath path);

// Argument checks and the unchecked bodies of the public entry points (timing.cc runs the bodies
// in its loop after one check). check_paged: the reference writes its own fp64 outputs, so it
// passes needs_outputs = false.
Status check_flash(const FlashParams& p);
Status run_flash(const FlashParams& p);
Status check_paged(const PagedDecodeParams& p, bool needs_outputs = true);
// The first token of a context of `len` that paged decode reads: max(0, len - window) with a
// window (PagedDecodeParams), else 0.
int64_t first_visible_token(const PagedDecodeParams& p, int64_t len);
Status run_paged(const PagedDecodeParams& p);
// The memory traffic of run_paged alone (time_paged_read).
Status run_paged_read(const PagedDecodeParams& p);

// Whether cancel_kernels() was asked (kernels test it before each task; relaxed: a task more
// or less is fine).
bool kernels_cancelled();

// Runs body(), turning a failed scratch allocation into kOutOfMemory and a body that returned
// while cancel_kernels() was asked into kCancelled (its outputs may lack skipped tasks).
template <typename Body>
Status guarded(Body body) {
  try {
    const Status s = body();
    if (s == Status::kOk && kernels_cancelled()) return fail(Status::kCancelled, "cancelled");
    return s;
  } catch (const std::bad_alloc&) {
    return fail(Status::kOutOfMemory, "out of memory for kernel scratch");
  }
}

}  // namespace detail
}  // namespace attnscope
