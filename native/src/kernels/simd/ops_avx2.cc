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
  // exp(x) for x <= 0, -inf or NaN: the shared degree-6 exp2 polynomial (VectorBase::
  // exp2_poly_nonpositive), 2^n built in the exponent bits (scale_pow2). AVX2 has no vscalef:
  // t is clamped at -127, where n + 127 = 0 makes 2^n the bit pattern 0, so x <= -88.03 (and
  // -inf) give exactly 0 (past -87.3 the result would be subnormal; flushed instead). NaN stays
  // NaN (vmaxps returns its second operand when one is NaN; vcvtps2dq of NaN gives 2^n = 1.0).
  // 12 instructions where cephes_exp's clamps, Cody-Waite reduction and zeroing take 19.
  static T exp_nonpositive(T x) { return exp2_poly_nonpositive(x, -127.f); }
  // Lane i = the largest of a_i's 8 lanes (softmax_rows: 8 rows' maxima at once; reduce8, below,
  // gives the sums). No vhmaxps: three folding stages (unpack ps, unpack pd, 128-bit halves),
  // 14 shuffles and 7 vmaxps where eight reduce_max take 8 x 5 instructions in serial chains.
  static T reduce8_max(T a0, T a1, T a2, T a3, T a4, T a5, T a6, T a7) {
    const T a[8] = {a0, a1, a2, a3, a4, a5, a6, a7};
    T u[4], v[2];
    for (int i = 0; i < 4; ++i)  // per 128-bit half: a[2i] lanes (0|2, 1|3) in 0, 2; a[2i+1] in 1, 3
      u[i] = _mm256_max_ps(_mm256_unpacklo_ps(a[2 * i], a[2 * i + 1]), _mm256_unpackhi_ps(a[2 * i], a[2 * i + 1]));
    for (int i = 0; i < 2; ++i) {  // per half: lane j holds half of a[4i + j] reduced
      const __m256d x = _mm256_castps_pd(u[2 * i]), y = _mm256_castps_pd(u[2 * i + 1]);
      v[i] = _mm256_max_ps(_mm256_castpd_ps(_mm256_unpacklo_pd(x, y)), _mm256_castpd_ps(_mm256_unpackhi_pd(x, y)));
    }
    return _mm256_max_ps(_mm256_permute2f128_ps(v[0], v[1], 0x20), _mm256_permute2f128_ps(v[0], v[1], 0x31));
  }
  // Lane i of x in every lane (one vpermps).
  static T broadcast_lane(T x, int i) { return _mm256_permutevar8x32_ps(x, _mm256_set1_epi32(i)); }
  // Bit i set where lane i of a and b differ (or either is NaN).
  static unsigned lanes_differ(T a, T b) {
    return unsigned(_mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_NEQ_UQ)));
  }
  // if_equal where the lanes of a and b are equal, else x.
  static T select_equal(T a, T b, T if_equal, T x) {
    return _mm256_blendv_ps(x, if_equal, _mm256_cmp_ps(a, b, _CMP_EQ_OQ));
  }
  // r[i][j] <- r[j][i] (8 x 8) in 24 shuffles: rows interleaved in pairs (unpack ps), then in
  // fours (shuffle ps), then the 128-bit halves swapped across (vperm2f128). Used by
  // pack_panels for K^T, which otherwise stores one float at a time.
  static constexpr bool kHasTranspose = true;
  static void transpose(T* r) {
    T t[8], u[8];
    for (int i = 0; i < 4; ++i) {  // t[2i], t[2i+1]: rows 2i, 2i+1 interleaved (lanes 0-1 | 2-3 per half)
      t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
      t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int g = 0; g < 2; ++g) {  // u[4g + c]: column c (+4 in the high half) of rows 4g .. 4g + 3
      u[4 * g] = _mm256_shuffle_ps(t[4 * g], t[4 * g + 2], _MM_SHUFFLE(1, 0, 1, 0));
      u[4 * g + 1] = _mm256_shuffle_ps(t[4 * g], t[4 * g + 2], _MM_SHUFFLE(3, 2, 3, 2));
      u[4 * g + 2] = _mm256_shuffle_ps(t[4 * g + 1], t[4 * g + 3], _MM_SHUFFLE(1, 0, 1, 0));
      u[4 * g + 3] = _mm256_shuffle_ps(t[4 * g + 1], t[4 * g + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int c = 0; c < 4; ++c) {
      r[c] = _mm256_permute2f128_ps(u[c], u[4 + c], 0x20);
      r[4 + c] = _mm256_permute2f128_ps(u[c], u[4 + c], 0x31);
    }
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
  // 8 bf16 into the high halves of 8 fp32 lanes: a 16-byte load broadcast to both 128-bit
  // lanes (vbroadcasti128, a load-port op) and one in-lane byte shuffle, where vpmovzxwd +
  // vpslld took two shuffle / shift ops beside the FMAs on Zen 3's FP pipes.
  static T load_bf16(const uint16_t* p) {
    const __m256i spread = _mm256_setr_epi8(-1, -1, 0, 1, -1, -1, 2, 3, -1, -1, 4, 5, -1, -1, 6, 7, -1, -1, 8,
                                            9, -1, -1, 10, 11, -1, -1, 12, 13, -1, -1, 14, 15);
    const __m256i x = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    return _mm256_castsi256_ps(_mm256_shuffle_epi8(x, spread));
  }
};

// ---- decode straight from bf16 / fp16 pages: one fused step per page (KernelOps::decode_page) ----

using V = Avx2;

template <DType kD>
inline __m256 load_half(const uint16_t* p) {
  if constexpr (kD == DType::kF16) {
    return V::load_f16(p);
  } else {
    return V::load_bf16(p);
  }
}

inline void prefetch_line(const uint16_t* p) { _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T1); }

// Scores of R query rows x T tokens (R T <= 8 FMA chains; 4 x 3, 12 chains with a register
// spilled, was 1.3x slower from L2 on Zen 3), reduced together by Avx2::reduce8, written to
// s[j * 4 + b] (token j, row b; the 16 x 4 score tile of decode_page_t). Tokens j >= n
// (kPartial) are neither read nor written. q: [R, d] fp32 stride d; k: T rows of d halves,
// stride ldk. pf (or null): T d contiguous halves of the next page (decode_page_t hands each
// KV head a run of the page in memory order), whose lines are requested before this block's
// loads (requesting each beside its load, a branch per step, and q folded
// into every FMA were 1.1x slower from L2).
template <DType kD, int R, int T, bool kPartial>
inline void scores_block(int n, int d, const float* q, const uint16_t* k, int64_t ldk, const uint16_t* pf, float* s) {
  static_assert(R * T <= 8, "8 accumulators");
  if (pf) {
    for (int j = 0; j < (kPartial ? n : T); ++j)
      for (int x = 0; x < d; x += 32) prefetch_line(pf + j * d + x);
  }
  __m256 a[8];
  for (int i = 0; i < 8; ++i) a[i] = _mm256_setzero_ps();
  for (int x = 0; x < d; x += 8) {
    __m256 kv[T];
    for (int j = 0; j < T; ++j) kv[j] = !kPartial || j < n ? load_half<kD>(k + j * ldk + x) : _mm256_setzero_ps();
    for (int b = 0; b < R; ++b) {
      __m256 qv = _mm256_loadu_ps(q + b * d + x);
      // One load of q per row and step: GCC would fold it into each of the T FMAs (T loads).
      __asm__("" : "+x"(qv));
      for (int j = 0; j < T; ++j) a[j * R + b] = _mm256_fmadd_ps(qv, kv[j], a[j * R + b]);
    }
  }
  const __m256 sums = V::reduce8(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
  if constexpr (R == 4 && !kPartial) {
    _mm256_storeu_ps(s, sums);
  } else {
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, sums);
    for (int j = 0; j < T; ++j)
      for (int b = 0; b < R; ++b)
        if (!kPartial || j < n) s[j * 4 + b] = lanes[j * R + b];
  }
}

// The 16 x 4 score tile s (token j, row b at s[4 j + b]) of R rows and tn <= 16 tokens; the
// rest of the tile stays as it was (-inf).
template <DType kD, int R>
inline void scores_tile(int tn, int d, const float* q, const uint16_t* k, int64_t ldk, const uint16_t* pf, float* s) {
  constexpr int T = R == 3 ? 2 : 8 / R;
  int j = 0;
  for (; j + T <= tn; j += T) scores_block<kD, R, T, false>(T, d, q, k + j * ldk, ldk, pf ? pf + j * d : nullptr, s + 4 * j);
  if (j < tn) scores_block<kD, R, T, true>(tn - j, d, q, k + j * ldk, ldk, pf ? pf + j * d : nullptr, s + 4 * j);
}

// FlashAttention-2 Algorithm 1, lines 8-10, for the R rows of the score tile s (16 tokens x 4
// lanes, -inf where there is no score): m, l updated (rows b < R), s replaced by P = exp(scale
// s - m_new) (0 where -inf), and alpha = exp(m_old - m_new) returned in lane b (lanes 4 + b
// too). *rescale: some alpha differs from 1. P = exp(fma(s, scale, -m_new)), m in scaled units:
// scale > 0, so max(scale s) = scale max(s) exactly, as in softmax_tile.
inline __m256 softmax_tile16(int R, float scale, float* s, float* m, float* l, bool* rescale) {
  alignas(16) float m4[4] = {0.f, 0.f, 0.f, 0.f}, l4[4] = {0.f, 0.f, 0.f, 0.f};  // padded rows: finite m
  for (int b = 0; b < R; ++b) m4[b] = m[b], l4[b] = l[b];
  __m256 big = _mm256_loadu_ps(s);
  for (int i = 1; i < 8; ++i) big = _mm256_max_ps(big, _mm256_loadu_ps(s + 8 * i));
  const __m128 big4 = _mm_mul_ps(_mm_max_ps(_mm256_castps256_ps128(big), _mm256_extractf128_ps(big, 1)), _mm_set1_ps(scale));
  const __m128 m_old = _mm_load_ps(m4);
  const __m128 m_new = _mm_max_ps(m_old, big4);  // finite: each row has >= 1 finite score
  const __m256 m_new8 = _mm256_set_m128(m_new, m_new);
  const __m256 alpha = V::exp(_mm256_set_m128(_mm_sub_ps(m_old, m_new), _mm_sub_ps(m_old, m_new)));  // 0 on the first page
  const __m256 sv = _mm256_set1_ps(scale);
  __m256 sum = _mm256_setzero_ps();
  for (int i = 0; i < 8; ++i) {
    const __m256 p = V::exp(_mm256_fmsub_ps(_mm256_loadu_ps(s + 8 * i), sv, m_new8));
    _mm256_storeu_ps(s + 8 * i, p);
    sum = _mm256_add_ps(sum, p);
  }
  const __m128 sum4 = _mm_add_ps(_mm256_castps256_ps128(sum), _mm256_extractf128_ps(sum, 1));
  _mm_store_ps(l4, _mm_fmadd_ps(_mm_load_ps(l4), _mm256_castps256_ps128(alpha), sum4));
  _mm_store_ps(m4, m_new);
  for (int b = 0; b < R; ++b) m[b] = m4[b], l[b] = l4[b];
  *rescale = _mm_movemask_ps(_mm_cmp_ps(_mm256_castps256_ps128(alpha), _mm_set1_ps(1.f), _CMP_NEQ_UQ)) != 0;
  return alpha;
}

// acc[R rows, NV vectors from x0] (+)= sum_j P[j, b] v[j, x0 ..] over tn tokens, P the tile of
// softmax_tile16; rows of acc scaled by alpha's lane b first when `rescale`. Rows of v past tn
// are not read. pf (or null): lines of the next page to request, rows of ldpf halves from pf
// (columns x0 .. x0 + 8 NV of each), as in scores_block.
template <DType kD, int R, int NV>
inline void values_block(int tn, const float* p, const uint16_t* v, int64_t ldv, int x0, float* acc,
                         int64_t ldacc, bool rescale, __m256 alpha, const uint16_t* pf, int ldpf) {
  __m256 a[R][NV];
  for (int b = 0; b < R; ++b)
    for (int j = 0; j < NV; ++j) a[b][j] = _mm256_loadu_ps(acc + b * ldacc + x0 + 8 * j);
  if (rescale) {
    for (int b = 0; b < R; ++b) {
      const __m256 ab = _mm256_permutevar8x32_ps(alpha, _mm256_set1_epi32(b));
      for (int j = 0; j < NV; ++j) a[b][j] = _mm256_mul_ps(a[b][j], ab);
    }
  }
  if (pf) {
    for (int t = 0; t < tn; ++t)
      for (int x = (x0 + 31) / 32 * 32; x < x0 + 8 * NV; x += 32) prefetch_line(pf + t * ldpf + x);
  }
  for (int t = 0; t < tn; ++t) {
    __m256 vv[NV];
    for (int j = 0; j < NV; ++j) vv[j] = load_half<kD>(v + t * ldv + x0 + 8 * j);
    for (int b = 0; b < R; ++b) {
      const __m256 w = _mm256_broadcast_ss(p + 4 * t + b);
      for (int j = 0; j < NV; ++j) a[b][j] = _mm256_fmadd_ps(w, vv[j], a[b][j]);
    }
  }
  for (int b = 0; b < R; ++b)
    for (int j = 0; j < NV; ++j) _mm256_storeu_ps(acc + b * ldacc + x0 + 8 * j, a[b][j]);
}

template <DType kD, int R>
inline void values_rows(int tn, int d, const float* p, const uint16_t* v, int64_t ldv, float* acc, int64_t ldacc,
                        bool rescale, __m256 alpha, const uint16_t* pf) {
  constexpr int NV = R == 3 ? 2 : 8 / R;  // R NV <= 8 accumulators (4 x 3 was 1.1x slower)
  int x = 0;
  for (; x + 8 * NV <= d; x += 8 * NV) values_block<kD, R, NV>(tn, p, v, ldv, x, acc, ldacc, rescale, alpha, pf, d);
  for (; x < d; x += 8) values_block<kD, R, 1>(tn, p, v, ldv, x, acc, ldacc, rescale, alpha, pf, d);
}

// One (KV head, up to 4 query rows) block of a decode step, and its 16 x 4 tile of scores / P.
struct DecodeUnit {
  int hk, row, rows;  // KV head, first query row (of q, m, l, acc), rows (1..4)
};

template <DType kD>
void scores_unit(const DecodeUnit& u, int tn, int d, const float* q, const uint16_t* k, int64_t ldk,
                 const uint16_t* pf, float* s) {
  const float* qr = q + int64_t(u.row) * d;
  switch (u.rows) {
    case 4: return scores_tile<kD, 4>(tn, d, qr, k, ldk, pf, s);
    case 3: return scores_tile<kD, 3>(tn, d, qr, k, ldk, pf, s);
    case 2: return scores_tile<kD, 2>(tn, d, qr, k, ldk, pf, s);
    default: return scores_tile<kD, 1>(tn, d, qr, k, ldk, pf, s);
  }
}

template <DType kD>
void values_unit(const DecodeUnit& u, int tn, int d, const float* p, const uint16_t* v, int64_t ldv, float* acc,
                 int64_t ldacc, bool rescale, __m256 alpha, const uint16_t* pf) {
  float* a = acc + int64_t(u.row) * ldacc;
  switch (u.rows) {
    case 4: return values_rows<kD, 4>(tn, d, p, v, ldv, a, ldacc, rescale, alpha, pf);
    case 3: return values_rows<kD, 3>(tn, d, p, v, ldv, a, ldacc, rescale, alpha, pf);
    case 2: return values_rows<kD, 2>(tn, d, p, v, ldv, a, ldacc, rescale, alpha, pf);
    default: return values_rows<kD, 1>(tn, d, p, v, ldv, a, ldacc, rescale, alpha, pf);
  }
}

// KernelOps::decode_page: blocks of 16 tokens; each KV head's g rows in blocks of 4 (the last
// one g mod 4 rows), run phase by phase over up to kUnits blocks (all scores, then all softmax
// steps, then all P V), as decode_pages_bf16 does, so that the blocks' chains overlap.
template <DType kD>
void decode_page_t(int hkv, int g, int t, int d, float scale, const float* q, const uint16_t* k,
                   const uint16_t* v, int64_t ldkv, const uint16_t* next_k, const uint16_t* next_v, float* m,
                   float* l, float* acc, int64_t ldacc) {
  constexpr int kUnits = 8;
  const int per_head = (g + 3) / 4, units = hkv * per_head;
  for (int t0 = 0; t0 < t; t0 += 16) {
    const int tn = t - t0 < 16 ? t - t0 : 16;
    const int64_t at0 = int64_t(t0) * ldkv;
    for (int u0 = 0; u0 < units; u0 += kUnits) {
      const int un = units - u0 < kUnits ? units - u0 : kUnits;
      DecodeUnit unit[kUnits];
      alignas(32) float s[kUnits][64];
      __m256 alpha[kUnits];
      bool rescale[kUnits];
      for (int i = 0; i < un; ++i) {
        const int hk = (u0 + i) / per_head, r0 = (u0 + i) % per_head * 4;
        unit[i] = DecodeUnit{hk, hk * g + r0, g - r0 < 4 ? g - r0 : 4};
        for (int x = 0; x < 64; x += 8) _mm256_store_ps(s[i] + x, _mm256_set1_ps(-__builtin_inff()));
        // The next page's same tn tokens once per KV head (its first block), V likewise below,
        // in memory order: head hk requests the hk-th of hkv equal runs of those tn rows of
        // ldkv = hkv d halves (tn d halves from tn hk d), not its own columns.
        const int64_t at = at0 + int64_t(hk) * d;
        scores_unit<kD>(unit[i], tn, d, q, k + at, ldkv, next_k && r0 == 0 ? next_k + at0 + int64_t(hk) * tn * d : nullptr, s[i]);
      }
      for (int i = 0; i < un; ++i) alpha[i] = softmax_tile16(unit[i].rows, scale, s[i], m + unit[i].row, l + unit[i].row, &rescale[i]);
      for (int i = 0; i < un; ++i) {
        const int64_t at = at0 + int64_t(unit[i].hk) * d;
        const bool first = unit[i].row == unit[i].hk * g;
        values_unit<kD>(unit[i], tn, d, s[i], v + at, ldkv, acc, ldacc, rescale[i], alpha[i],
                        next_v && first ? next_v + at0 + int64_t(unit[i].hk) * tn * d : nullptr);
      }
    }
  }
}

void decode_page(DType kv_dtype, int hkv, int g, int t, int d, float scale, const float* q, const void* k,
                 const void* v, int64_t ldkv, const void* next_k, const void* next_v, float* m, float* l,
                 float* acc, int64_t ldacc) {
  const auto* k16 = static_cast<const uint16_t*>(k);
  const auto* v16 = static_cast<const uint16_t*>(v);
  const auto* nk = static_cast<const uint16_t*>(next_k);
  const auto* nv = static_cast<const uint16_t*>(next_v);
  if (kv_dtype == DType::kF16) {
    decode_page_t<DType::kF16>(hkv, g, t, d, scale, q, k16, v16, ldkv, nk, nv, m, l, acc, ldacc);
  } else {
    decode_page_t<DType::kBF16>(hkv, g, t, d, scale, q, k16, v16, ldkv, nk, nv, m, l, acc, ldacc);
  }
}

}  // namespace

const KernelOps& avx2_ops() {
  static const KernelOps ops = [] {
    KernelOps table = SimdOps<Avx2>::table(SimdPath::kAvx2);
    table.decode_page = decode_page;
    return table;
  }();
  return ops;
}

}  // namespace attnscope
