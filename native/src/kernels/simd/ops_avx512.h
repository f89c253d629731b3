// AVX-512 vector traits for SimdOps (ops_simd.h), shared by the AVX-512 and the
// AVX512-BF16 units. Include only from units compiled with the AVX-512 flags.
#pragma once

#include <immintrin.h>

#include "kernels/ops_simd.h"

namespace attnscope {
namespace {

struct Avx512 : VectorBase<Avx512, 16> {
  static constexpr int MR = 6;  // 6 rows x 4 vectors = 24 accumulators of 32 zmm registers
  static constexpr int NR = 4;
  static T fmadd(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
  static T fnmadd(T a, T b, T c) { return _mm512_fnmadd_ps(a, b, c); }
  static T max(T a, T b) { return _mm512_max_ps(a, b); }
  static T min(T a, T b) { return _mm512_min_ps(a, b); }
  static T round(T x) { return _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static T scale_pow2(T y, T n) { return _mm512_scalef_ps(y, n); }
  static T zero_below(T value, T x, T limit) {
    return _mm512_maskz_mov_ps(~_mm512_cmp_ps_mask(x, limit, _CMP_LT_OQ), value);
  }
  // exp(x) for x <= 0, -inf or NaN: the shared degree-6 exp2 polynomial (VectorBase::
  // exp2_poly_nonpositive, which has the fit and its error), times 2^n through vscalef (any n).
  // 10 instructions where cephes_exp_reduced's Cody-Waite reduction and 1 + r + r^2 P(r) take
  // 13: the softmax's exp pass is bound by the FMA pipes. The clamp at t = -160 keeps -inf out
  // (2^-160 y rounds to 0).
  static T exp_nonpositive(T x) { return exp2_poly_nonpositive(x, -160.f); }
  // 2^t for t <= 0 or -inf (pow2_poly_nonpositive, the same clamp).
  static T exp2_nonpositive(T t) { return pow2_poly_nonpositive(t, -160.f); }
  static float reduce_add(T x) { return _mm512_reduce_add_ps(x); }
  // Sixteen horizontal sums at once (45 instructions instead of 16 x ~8): lane 4b + j of the
  // result holds the sum of a[4j + b]. Four folding stages, each halving the partials.
  static constexpr bool kHasReduce16 = true;
  // The sixteen are taken by value: a pointer to the caller's accumulators kept them in memory
  // (GCC spilled every vdpbf16ps / vfmadd result of the decode scores to the stack).
  static T reduce16(T a0, T a1, T a2, T a3, T a4, T a5, T a6, T a7, T a8, T a9, T a10, T a11,
                    T a12, T a13, T a14, T a15) {
    return fold16([](T x, T y) { return _mm512_add_ps(x, y); }, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9,
                  a10, a11, a12, a13, a14, a15);
  }
  // The same with max: lane 4b + j holds the largest lane of a[4j + b].
  static T reduce16_max(T a0, T a1, T a2, T a3, T a4, T a5, T a6, T a7, T a8, T a9, T a10, T a11,
                        T a12, T a13, T a14, T a15) {
    return fold16([](T x, T y) { return _mm512_max_ps(x, y); }, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9,
                  a10, a11, a12, a13, a14, a15);
  }
  template <typename Op>
  static T fold16(Op op, T a0, T a1, T a2, T a3, T a4, T a5, T a6, T a7, T a8, T a9, T a10, T a11,
                  T a12, T a13, T a14, T a15) {
    const T a[16] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};
    T v[8], u[4], r[2];
    for (int i = 0; i < 8; ++i)  // blocks 0-1: a[2i], blocks 2-3: a[2i+1] (8 partials each)
      v[i] = op(_mm512_shuffle_f32x4(a[2 * i], a[2 * i + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                _mm512_shuffle_f32x4(a[2 * i], a[2 * i + 1], _MM_SHUFFLE(3, 2, 3, 2)));
    for (int i = 0; i < 4; ++i)  // block b: a[4i + b] (4 partials each)
      u[i] = op(_mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                _mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], _MM_SHUFFLE(3, 1, 3, 1)));
    for (int i = 0; i < 2; ++i)  // block b: a[8i + b] in lanes 0, 2 and a[8i + 4 + b] in 1, 3
      r[i] = op(_mm512_unpacklo_ps(u[2 * i], u[2 * i + 1]), _mm512_unpackhi_ps(u[2 * i], u[2 * i + 1]));
    const __m512d lo = _mm512_unpacklo_pd(_mm512_castps_pd(r[0]), _mm512_castps_pd(r[1]));
    const __m512d hi = _mm512_unpackhi_pd(_mm512_castps_pd(r[0]), _mm512_castps_pd(r[1]));
    return op(_mm512_castpd_ps(lo), _mm512_castpd_ps(hi));
  }
  // Lane i of x in every lane (one vpermps).
  static T broadcast_lane(T x, int i) { return _mm512_permutexvar_ps(_mm512_set1_epi32(i), x); }
  // Bit i set where lane i of a and b differ (or either is NaN).
  static unsigned lanes_differ(T a, T b) { return _mm512_cmp_ps_mask(a, b, _CMP_NEQ_UQ); }
  // if_equal where the lanes of a and b are equal, else x.
  static T select_equal(T a, T b, T if_equal, T x) {
    return _mm512_mask_mov_ps(x, _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ), if_equal);
  }
  static void store4(float* p, T x, int block) {
    _mm_storeu_ps(p, block == 0 ? _mm512_castps512_ps128(x)
                     : block == 1 ? _mm512_extractf32x4_ps(x, 1)
                     : block == 2 ? _mm512_extractf32x4_ps(x, 2)
                                  : _mm512_extractf32x4_ps(x, 3));
  }
  static float reduce_max(T x) { return _mm512_reduce_max_ps(x); }
  // r[i][j] <- r[j][i] (16 x 16) in 64 shuffles: pairs of rows interleaved by unpack (ps, then
  // pd), which leaves in lane L of u[4g + c] column 4L + c of rows 4g .. 4g + 3; two rounds of
  // 128-bit lane shuffles gather those lanes. Used by pack_panels for K^T, which stored one
  // float at a time: packing went from 8.1 % to 5.4 % of a 2-thread N = 1k, D = 64 causal run
  // (perf cpu-clock, Zen 5); the rest waits on the K and V rows coming from memory.
  static constexpr bool kHasTranspose = true;
  static void transpose(T* r) {
    T t[16], u[16], v[8], w[8];
    for (int i = 0; i < 8; ++i) {
      t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
      t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int g = 0; g < 4; ++g) {  // t[4g + 0..3] -> u[4g + c]: column 4L + c of rows 4g..4g+3
      const __m512d a = _mm512_castps_pd(t[4 * g]), b = _mm512_castps_pd(t[4 * g + 1]);
      const __m512d c = _mm512_castps_pd(t[4 * g + 2]), d = _mm512_castps_pd(t[4 * g + 3]);
      u[4 * g] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
      u[4 * g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
      u[4 * g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
      u[4 * g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
    }
    for (int c = 0; c < 4; ++c) {  // v: lanes (0, 2 | 1, 3) of rows 0-7; w: of rows 8-15
      v[c] = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x88);
      v[4 + c] = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xdd);
      w[c] = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x88);
      w[4 + c] = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xdd);
    }
    for (int c = 0; c < 4; ++c) {
      r[c] = _mm512_shuffle_f32x4(v[c], w[c], 0x88);
      r[4 + c] = _mm512_shuffle_f32x4(v[4 + c], w[4 + c], 0x88);
      r[8 + c] = _mm512_shuffle_f32x4(v[c], w[c], 0xdd);
      r[12 + c] = _mm512_shuffle_f32x4(v[4 + c], w[4 + c], 0xdd);
    }
  }
  static T load_f16(const uint16_t* p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static T load_bf16(const uint16_t* p) {
    const __m512i wide = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    return _mm512_castsi512_ps(_mm512_slli_epi32(wide, 16));
  }
};

}  // namespace
}  // namespace attnscope
