// KernelOps for AVX2 + FMA + F16C. Compiled with -mavx2 -mfma -mf16c; only called when
// cpu_features() reports AVX2 and FMA.
#include <immintrin.h>

#include "kernels/ops_simd.h"

namespace attnscope {
namespace {

struct Avx2 : VectorBase<Avx2, 8> {
  // 6 rows x 2 vectors = 12 accumulators of 16 ymm registers; 16-float panels tile the flash
  // tiles (64 keys, D = 64 / 128) exactly, where 4 x 3 (24 floats) left a 2-vector remainder.
  static constexpr int MR = 6;
  static constexpr int NR = 2;
  static T fmadd(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
  static T fnmadd(T a, T b, T c) { return _mm256_fnmadd_ps(a, b, c); }
  static T max(T a, T b) { return _mm256_max_ps(a, b); }
  static T min(T a, T b) { return _mm256_min_ps(a, b); }
  static T round(T x) { return _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static T scale_pow2(T y, T n) {  // n in [-127, 128] after the clamp in cephes_exp
    const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(y, _mm256_castsi256_ps(e));
  }
  static T zero_below(T value, T x, T limit) {
    return _mm256_andnot_ps(_mm256_cmp_ps(x, limit, _CMP_LT_OQ), value);
  }
  static float reduce_add(T x) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
  static constexpr bool kHasReduce8 = true;
  // Lane i = the sum of a_i's 8 lanes: three rounds of vhaddps, then the two 128-bit halves
  // added (9 instructions for 8 sums, where reduce_add takes 6 for one).
  static T reduce8(T a0, T a1, T a2, T a3, T a4, T a5, T a6, T a7) {
    const __m256 h0 = _mm256_hadd_ps(_mm256_hadd_ps(a0, a1), _mm256_hadd_ps(a2, a3));  // a0..a3 per half
    const __m256 h1 = _mm256_hadd_ps(_mm256_hadd_ps(a4, a5), _mm256_hadd_ps(a6, a7));  // a4..a7 per half
    return _mm256_add_ps(_mm256_permute2f128_ps(h0, h1, 0x20), _mm256_permute2f128_ps(h0, h1, 0x31));
  }
  static float reduce_max(T x) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
  static T load_f16(const uint16_t* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static T load_bf16(const uint16_t* p) {
    const __m256i wide = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    return _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16));
  }
};

}  // namespace

const KernelOps& avx2_ops() {
  static const KernelOps ops = SimdOps<Avx2>::table(SimdPath::kAvx2);
  return ops;
}

}  // namespace attnscope
