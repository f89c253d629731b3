// Portable loops of the peak microbenchmarks: NEON on aarch64 (always present there), GCC/Clang
// 16-byte vectors elsewhere. Same chain shape as x86.cc (see there for the constants).
#include <atomic>
#include <cstdint>

#include "peaks/loops.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace attnscope {
namespace peaks {

void consume(double value) {
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  // Without threads an atomic is a plain store to a variable nobody reads, which the optimizer
  // drops, and with it the loop that computed the value; a volatile store stays.
  static volatile double sink = 0;
  sink = value;
#else
  static std::atomic<double> sink{0};
  sink.store(value, std::memory_order_relaxed);
#endif
}

const char* portable_isa_name() {
#if defined(__aarch64__)
  return "neon";
#else
  return "portable";
#endif
}

double fma_loop_portable(uint64_t iters) {
#if defined(__aarch64__)
  const float32x4_t m = vdupq_n_f32(1.0f - 0x1p-20f);
  const float32x4_t c = vdupq_n_f32(0x1p-20f);
  float32x4_t a[12];
  for (int k = 0; k < 12; ++k) a[k] = vdupq_n_f32(0.5f + 0.01f * k);
  for (uint64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 12
    for (int k = 0; k < 12; ++k) a[k] = vfmaq_f32(c, a[k], m);
  }
  float32x4_t s = a[0];
  for (int k = 1; k < 12; ++k) s = vaddq_f32(s, a[k]);
  consume(vaddvq_f32(s));
  return static_cast<double>(iters) * 12 * 4 * 2;
#else
  // Without a known FMA the multiply and the add issue separately (WebAssembly simd128: mulps,
  // then addps), both count as FLOPs. Twelve chains: a chain's step is a multiply then an add
  // (3 + 2 to 3 + 4 cycles of latency on x86 cores), so 8 chains left the two multiply and two
  // add pipes idle part of the time and a kernel with more independent work beat the "peak";
  // 12 chains and the two constants still fit the 16 xmm registers V8 allocates from.
  typedef float v4f __attribute__((vector_size(16)));
  const v4f m = {1.0f - 0x1p-20f, 1.0f - 0x1p-20f, 1.0f - 0x1p-20f, 1.0f - 0x1p-20f};
  const v4f c = {0x1p-20f, 0x1p-20f, 0x1p-20f, 0x1p-20f};
  v4f a[12];
  for (int k = 0; k < 12; ++k) a[k] = v4f{0.5f, 0.6f, 0.7f, 0.8f} + 0.01f * k;
  for (uint64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 12
    for (int k = 0; k < 12; ++k) a[k] = a[k] * m + c;
  }
  v4f s = a[0];
  for (int k = 1; k < 12; ++k) s += a[k];
  consume(s[0] + s[1] + s[2] + s[3]);
  return static_cast<double>(iters) * 12 * 4 * 2;
#endif
}

double read_loop_portable(const void* data, size_t bytes) {
  const uint64_t* p = static_cast<const uint64_t*>(data);
  const size_t n = bytes / 8;
  uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (size_t i = 0; i < n; i += 4) {
    s0 += p[i];
    s1 += p[i + 1];
    s2 += p[i + 2];
    s3 += p[i + 3];
  }
  consume(static_cast<double>(s0 + s1 + s2 + s3));
  return static_cast<double>(n * 8);
}

double read_streams_portable(const void* const* streams, int n, size_t bytes) {
  uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (size_t off = 0; off < bytes; off += 256) {
    for (int j = 0; j < n; ++j) {
      const uint64_t* p =
          reinterpret_cast<const uint64_t*>(static_cast<const char*>(streams[j]) + off);
      for (int i = 0; i < 32; i += 4) {
        s0 += p[i];
        s1 += p[i + 1];
        s2 += p[i + 2];
        s3 += p[i + 3];
      }
    }
  }
  consume(static_cast<double>(s0 + s1 + s2 + s3));
  return static_cast<double>(bytes) * n;
}

}  // namespace peaks
}  // namespace attnscope
