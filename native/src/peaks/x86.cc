// x86-64 loops of the peak microbenchmarks. Each function carries its own target attribute, so
// this file builds with the baseline flags and the caller picks a loop after checking CPUID.
//
// Compute loops keep more independent chains than latency x throughput of the unit (FMA on
// Zen 4/5 and Sapphire Rapids: 4 cycles x 2 pipes = 8; vdpbf16ps: <= 6 x 2), so the chains never
// wait on each other. The chain a <- a*m + c with m = 1 - 2^-20, c = 2^-20 converges to 1.0:
// no overflow and no denormals, which would slow the units down.
#if defined(__x86_64__)

#include <immintrin.h>

#include <cstdint>

#include "kernels/amx_gemm.h"
#include "peaks/loops.h"

namespace attnscope {
namespace peaks {

#define ATTNSCOPE_TARGET(isa) __attribute__((target(isa)))

namespace {
// Horizontal sums through memory: GCC 12's _mm512_reduce_* warn about undefined upper halves.
ATTNSCOPE_TARGET("avx512f") double sum_lanes(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  double s = 0;
  for (float x : lanes) s += x;
  return s;
}

ATTNSCOPE_TARGET("avx512f") double sum_lanes(__m512i v) {
  alignas(64) int64_t lanes[8];
  _mm512_store_si512(lanes, v);
  int64_t s = 0;
  for (int64_t x : lanes) s += x;
  return static_cast<double>(s);
}
}  // namespace

// One step of a zmm chain: c <- c * m + k (vfmadd; converges to 1.0, see the top).
struct FmaStep {
  static constexpr double kFlops = 16 * 2;  // 16 lanes x (multiply + add)
  __m512 m, k;
  ATTNSCOPE_TARGET("avx512f") FmaStep() : m(_mm512_set1_ps(1.0f - 0x1p-20f)), k(_mm512_set1_ps(0x1p-20f)) {}
  ATTNSCOPE_TARGET("avx512f") __m512 operator()(__m512 c) const { return _mm512_fmadd_ps(c, m, k); }
};

// One step of a zmm chain: c += a.even * b.even + a.odd * b.odd per fp32 lane (vdpbf16ps);
// 1.0 x 2^-20 keeps c small.
struct Bf16DotStep {
  static constexpr double kFlops = 16 * 2 * 2;  // 16 lanes x 2 pairs x (multiply + add)
  __m512bh a, b;
  ATTNSCOPE_TARGET("avx512f,avx512bf16") Bf16DotStep()
      : a(_mm512_cvtne2ps_pbh(_mm512_set1_ps(1.0f), _mm512_set1_ps(1.0f))),
        b(_mm512_cvtne2ps_pbh(_mm512_set1_ps(0x1p-20f), _mm512_set1_ps(0x1p-20f))) {}
  ATTNSCOPE_TARGET("avx512f,avx512bf16") __m512 operator()(__m512 c) const { return _mm512_dpbf16_ps(c, a, b); }
};

// The zmm compute loops: 16 independent chains c <- step(c), summed at the end so that none is
// dead. Distinct starting values: identical chains could be merged into one by the compiler.
// Its target includes avx512bf16 for Bf16DotStep; the FmaStep instance holds only AVX-512F
// instructions (a compiler emits no vdpbf16ps it is not asked for), so it runs on any AVX-512 CPU.
template <typename Step>
ATTNSCOPE_TARGET("avx512f,avx512bf16") double zmm_chains(uint64_t iters) {
  const Step step;
  __m512 c[16];
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) c[i] = _mm512_set1_ps(0.5f + 0.01f * i);
  for (uint64_t n = 0; n < iters; ++n) {
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) c[i] = step(c[i]);
  }
#pragma GCC unroll 8
  for (int w = 8; w >= 1; w /= 2)
#pragma GCC unroll 8
    for (int i = 0; i < w; ++i) c[i] = _mm512_add_ps(c[i], c[i + w]);
  consume(sum_lanes(c[0]));
  return static_cast<double>(iters) * 16 * Step::kFlops;
}

ATTNSCOPE_TARGET("avx512f") double fma_loop_avx512(uint64_t iters) { return zmm_chains<FmaStep>(iters); }

ATTNSCOPE_TARGET("avx2,fma") double fma_loop_avx2(uint64_t iters) {
  const __m256 m = _mm256_set1_ps(1.0f - 0x1p-20f);
  const __m256 c = _mm256_set1_ps(0x1p-20f);
  __m256 a0 = _mm256_set1_ps(0.50f), a1 = _mm256_set1_ps(0.51f), a2 = _mm256_set1_ps(0.52f);
  __m256 a3 = _mm256_set1_ps(0.53f), a4 = _mm256_set1_ps(0.54f), a5 = _mm256_set1_ps(0.55f);
  __m256 a6 = _mm256_set1_ps(0.56f), a7 = _mm256_set1_ps(0.57f), a8 = _mm256_set1_ps(0.58f);
  __m256 a9 = _mm256_set1_ps(0.59f), a10 = _mm256_set1_ps(0.60f), a11 = _mm256_set1_ps(0.61f);
  for (uint64_t i = 0; i < iters; ++i) {
    a0 = _mm256_fmadd_ps(a0, m, c);
    a1 = _mm256_fmadd_ps(a1, m, c);
    a2 = _mm256_fmadd_ps(a2, m, c);
    a3 = _mm256_fmadd_ps(a3, m, c);
    a4 = _mm256_fmadd_ps(a4, m, c);
    a5 = _mm256_fmadd_ps(a5, m, c);
    a6 = _mm256_fmadd_ps(a6, m, c);
    a7 = _mm256_fmadd_ps(a7, m, c);
    a8 = _mm256_fmadd_ps(a8, m, c);
    a9 = _mm256_fmadd_ps(a9, m, c);
    a10 = _mm256_fmadd_ps(a10, m, c);
    a11 = _mm256_fmadd_ps(a11, m, c);
  }
  const __m256 s = _mm256_add_ps(
      _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                    _mm256_add_ps(a4, a5)),
      _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a6, a7), _mm256_add_ps(a8, a9)),
                    _mm256_add_ps(a10, a11)));
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, s);
  consume(lanes[0] + lanes[1] + lanes[2] + lanes[3] + lanes[4] + lanes[5] + lanes[6] + lanes[7]);
  return static_cast<double>(iters) * 12 * 8 * 2;
}

ATTNSCOPE_TARGET("avx512f,avx512bf16") double bf16_dot_loop_avx512(uint64_t iters) {
  return zmm_chains<Bf16DotStep>(iters);
}

ATTNSCOPE_TARGET("amx-tile,amx-bf16") double amx_bf16_loop(uint64_t iters) {
  // tmm0-3: C 16 x 16 fp32 (TDPBF16PS is an asm statement: never merged or removed); tmm4-5: A 16 rows x 32 bf16; tmm6-7: B 16 rows x 32 bf16
  // (VNNI-packed pairs). Every tile is 16 rows x 64 bytes.
  const TileConfig cfg = full_tiles_config();
  alignas(64) uint16_t a_bits[16 * 32];
  alignas(64) uint16_t b_bits[16 * 32];
  for (int i = 0; i < 16 * 32; ++i) {
    a_bits[i] = 0x3f80;  // bf16 1.0
    b_bits[i] = 0x3580;  // bf16 2^-20
  }
  alignas(64) float c_out[16 * 16];
  _tile_loadconfig(&cfg);
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  _tile_loadd(4, a_bits, 64);
  _tile_loadd(5, a_bits, 64);
  _tile_loadd(6, b_bits, 64);
  _tile_loadd(7, b_bits, 64);
  for (uint64_t i = 0; i < iters; ++i) {
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  _tile_stored(0, c_out, 64);
  _tile_release();
  consume(c_out[0]);
  return static_cast<double>(iters) * 4 * 16 * 16 * 32 * 2;
}

ATTNSCOPE_TARGET("avx512f") double read_loop_avx512(const void* data, size_t bytes) {
  const __m512i* p = static_cast<const __m512i*>(data);
  const size_t n = bytes / 64;
  __m512i s0 = _mm512_setzero_si512(), s1 = _mm512_setzero_si512();
  __m512i s2 = _mm512_setzero_si512(), s3 = _mm512_setzero_si512();
  for (size_t i = 0; i < n; i += 4) {
    s0 = _mm512_add_epi64(s0, _mm512_load_si512(p + i));
    s1 = _mm512_add_epi64(s1, _mm512_load_si512(p + i + 1));
    s2 = _mm512_add_epi64(s2, _mm512_load_si512(p + i + 2));
    s3 = _mm512_add_epi64(s3, _mm512_load_si512(p + i + 3));
  }
  const __m512i s = _mm512_add_epi64(_mm512_add_epi64(s0, s1), _mm512_add_epi64(s2, s3));
  consume(sum_lanes(s));
  return static_cast<double>(n * 64);
}

ATTNSCOPE_TARGET("avx512f") double read_streams_avx512(const void* const* streams, int n, size_t bytes) {
  __m512i s0 = _mm512_setzero_si512(), s1 = _mm512_setzero_si512();
  __m512i s2 = _mm512_setzero_si512(), s3 = _mm512_setzero_si512();
  for (size_t off = 0; off < bytes; off += 256) {
    for (int j = 0; j < n; ++j) {
      const __m512i* p = reinterpret_cast<const __m512i*>(static_cast<const char*>(streams[j]) + off);
      s0 = _mm512_add_epi64(s0, _mm512_load_si512(p));
      s1 = _mm512_add_epi64(s1, _mm512_load_si512(p + 1));
      s2 = _mm512_add_epi64(s2, _mm512_load_si512(p + 2));
      s3 = _mm512_add_epi64(s3, _mm512_load_si512(p + 3));
    }
  }
  const __m512i s = _mm512_add_epi64(_mm512_add_epi64(s0, s1), _mm512_add_epi64(s2, s3));
  consume(sum_lanes(s));
  return static_cast<double>(bytes) * n;
}

ATTNSCOPE_TARGET("avx2") double read_loop_avx2(const void* data, size_t bytes) {
  const __m256i* p = static_cast<const __m256i*>(data);
  const size_t n = bytes / 32;
  __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
  __m256i s2 = _mm256_setzero_si256(), s3 = _mm256_setzero_si256();
  for (size_t i = 0; i < n; i += 4) {
    s0 = _mm256_add_epi64(s0, _mm256_load_si256(p + i));
    s1 = _mm256_add_epi64(s1, _mm256_load_si256(p + i + 1));
    s2 = _mm256_add_epi64(s2, _mm256_load_si256(p + i + 2));
    s3 = _mm256_add_epi64(s3, _mm256_load_si256(p + i + 3));
  }
  alignas(32) int64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes),
                     _mm256_add_epi64(_mm256_add_epi64(s0, s1), _mm256_add_epi64(s2, s3)));
  consume(static_cast<double>(lanes[0] + lanes[1] + lanes[2] + lanes[3]));
  return static_cast<double>(n * 32);
}

ATTNSCOPE_TARGET("avx2") double read_streams_avx2(const void* const* streams, int n, size_t bytes) {
  __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
  __m256i s2 = _mm256_setzero_si256(), s3 = _mm256_setzero_si256();
  for (size_t off = 0; off < bytes; off += 256) {
    for (int j = 0; j < n; ++j) {
      const __m256i* p = reinterpret_cast<const __m256i*>(static_cast<const char*>(streams[j]) + off);
      s0 = _mm256_add_epi64(s0, _mm256_add_epi64(_mm256_load_si256(p), _mm256_load_si256(p + 4)));
      s1 = _mm256_add_epi64(s1, _mm256_add_epi64(_mm256_load_si256(p + 1), _mm256_load_si256(p + 5)));
      s2 = _mm256_add_epi64(s2, _mm256_add_epi64(_mm256_load_si256(p + 2), _mm256_load_si256(p + 6)));
      s3 = _mm256_add_epi64(s3, _mm256_add_epi64(_mm256_load_si256(p + 3), _mm256_load_si256(p + 7)));
    }
  }
  alignas(32) int64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes),
                     _mm256_add_epi64(_mm256_add_epi64(s0, s1), _mm256_add_epi64(s2, s3)));
  consume(static_cast<double>(lanes[0] + lanes[1] + lanes[2] + lanes[3]));
  return static_cast<double>(bytes) * n;
}

#undef ATTNSCOPE_TARGET

}  // namespace peaks
}  // namespace attnscope

#endif  // __x86_64__
