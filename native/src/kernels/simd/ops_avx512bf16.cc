// KernelOps for AVX-512 with AVX512-BF16: the AVX-512 table plus vdpbf16ps GEMMs, used by the
// flash kernel for bf16 inputs (Q K^T and P V, P rounded to bf16 as flash-attn does on GPUs).
// Decode reads bf16 pages the same way, scores, softmax and P V fused per two pages (decode_pages_bf16).
// Compiled with the AVX-512 flags and -mavx512bf16; only called when CPUID reports AVX512_BF16.
#include "kernels/simd/ops_avx512.h"

namespace attnscope {
namespace {

// c[M rows, NV vectors] (+)= A B over kp pairs: broadcast one bf16 pair of A, dot with 16
// pairs of B per vector (vdpbf16ps: 32 multiply-adds into 16 fp32 lanes).
template <int M, int NV, bool kAccumulate>
void micro_bf16(int kp, const uint32_t* a, int64_t lda32, const uint32_t* b, int64_t ldb, float* c,
                int64_t ldc) {
  __m512 acc[M][NV];
  for (int i = 0; i < M; ++i)
    for (int v = 0; v < NV; ++v) acc[i][v] = kAccumulate ? _mm512_loadu_ps(c + i * ldc + v * 16) : _mm512_setzero_ps();
  int p = 0;
  do {  // kp >= 1 (gemm_bf16): with a for loop GCC kept acc[][] on the stack around it
    __m512bh bv[NV];
    for (int v = 0; v < NV; ++v) bv[v] = (__m512bh)_mm512_loadu_si512(b + p * ldb + v * 16);
    for (int i = 0; i < M; ++i) {
      const __m512bh ai = (__m512bh)_mm512_set1_epi32(static_cast<int>(a[i * lda32 + p]));
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_dpbf16_ps(acc[i][v], ai, bv[v]);
    }
  } while (++p < kp);
  for (int i = 0; i < M; ++i)
    for (int v = 0; v < NV; ++v) _mm512_storeu_ps(c + i * ldc + v * 16, acc[i][v]);
}

constexpr int kMR = 6, kNR = 4;

template <int M, int NV>
void micro_bf16_rows(int mr, bool accumulate, int kp, const uint32_t* a, int64_t lda32,
                     const uint32_t* b, int64_t ldb, float* c, int64_t ldc) {
  if constexpr (M > 0) {
    if (mr == M) {
      if (accumulate) {
        micro_bf16<M, NV, true>(kp, a, lda32, b, ldb, c, ldc);
      } else {
        micro_bf16<M, NV, false>(kp, a, lda32, b, ldb, c, ldc);
      }
      return;
    }
    micro_bf16_rows<M - 1, NV>(mr, accumulate, kp, a, lda32, b, ldb, c, ldc);
  }
}

template <int NV>
void micro_bf16_cols(int nv, int mr, bool accumulate, int kp, const uint32_t* a, int64_t lda32,
                     const uint32_t* b, int64_t ldb, float* c, int64_t ldc) {
  if constexpr (NV > 0) {
    if (nv == NV) {
      micro_bf16_rows<kMR, NV>(mr, accumulate, kp, a, lda32, b, ldb, c, ldc);
      return;
    }
    micro_bf16_cols<NV - 1>(nv, mr, accumulate, kp, a, lda32, b, ldb, c, ldc);
  }
}

inline float bf16_bits_to_float(uint32_t bits16) {
  const uint32_t wide = bits16 << 16;
  float f;
  __builtin_memcpy(&f, &wide, 4);
  return f;
}

void gemm_bf16(int m, int n, int kp, const uint16_t* a, int64_t lda, const uint32_t* b, int64_t ldb,
               float* c, int64_t ldc, bool accumulate) {
  const uint32_t* a32 = reinterpret_cast<const uint32_t*>(a);
  const int64_t lda32 = lda / 2;
  const int n_vec = n / 16 * 16;
  for (int j0 = 0; j0 < n_vec; j0 += kNR * 16) {
    const int nv = (n_vec - j0) / 16 < kNR ? (n_vec - j0) / 16 : kNR;
    for (int i0 = 0; i0 < m; i0 += kMR) {
      const int mr = m - i0 < kMR ? m - i0 : kMR;
      micro_bf16_cols<kNR>(nv, mr, accumulate, kp, a32 + i0 * lda32, lda32, b + j0, ldb, c + i0 * ldc + j0, ldc);
    }
  }
  for (int i = 0; i < m; ++i) {  // columns past the last whole vector
    for (int j = n_vec; j < n; ++j) {
      float sum = accumulate ? c[i * ldc + j] : 0.f;
      for (int p = 0; p < kp; ++p) {
        const uint32_t pa = a32[i * lda32 + p], pb = b[p * ldb + j];
        sum += bf16_bits_to_float(pa & 0xffffu) * bf16_bits_to_float(pb & 0xffffu) +
               bf16_bits_to_float(pa >> 16) * bf16_bits_to_float(pb >> 16);
      }
      c[i * ldc + j] = sum;
    }
  }
}

void to_bf16(const float* src, int n, uint16_t* dst) {
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512bh packed = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(src + i + 16), _mm512_loadu_ps(src + i));
    _mm512_storeu_si512(dst + i, (__m512i)packed);
  }
  for (; i < n; i += 16) {
    const __mmask16 k = n - i >= 16 ? __mmask16(0xffff) : __mmask16((1u << (n - i)) - 1);
    const __m256bh half = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(k, src + i));
    _mm256_mask_storeu_epi16(dst + i, k, (__m256i)half);
  }
}

// ---- decode straight from bf16 pages: one fused step per (page, KV head) with vdpbf16ps
// (32 multiply-adds per instruction, no widening of K or V) ----

// The scores of 4 query rows x 4 tokens k[0..n) (n <= 4), as one vector in "block layout":
// lane 4b + j = row b, token j (128-bit block b = row b), -inf for j >= n. Accumulator a[4j + b]
// sums q_b . k_j over d in 16 lanes (pairs of d), reduced together by Avx512::reduce16. kLo
// adds the low bf16 half of q (q = hi + lo, so an fp32 q keeps ~16 bits; a bf16 q has lo = 0
// and skips it). kPartial: n < 4, rows of k past n are not read (they may be another
// sequence's stale slots, or past the page). pf (or null): the same rows of the next page's
// slab, each line requested (prefetcht1) beside the load of this page's line, so that the
// next page's misses are spread through the work instead of queued in a burst.
template <bool kLo, bool kPartial>
inline __m512 scores_4x4(int n, int d, const uint16_t* qh, const uint16_t* ql, const uint16_t* k,
                         int64_t ldk, const uint16_t* pf) {
  // The first step of d starts the sums from zero in registers: a zeroing loop over a[] was
  // turned into a memset (rep stos), which kept a[] in memory.
  __m512 a[16];
  const __m512 zero = _mm512_setzero_ps();
  for (int x = 0; x < d; x += 32) {
    __m512bh kv[4];
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {
      kv[j] = !kPartial || j < n ? (__m512bh)_mm512_loadu_si512(k + j * ldk + x) : (__m512bh)_mm512_setzero_si512();
      if (pf) _mm_prefetch(reinterpret_cast<const char*>(pf + j * ldk + x), _MM_HINT_T1);
    }
#pragma GCC unroll 4
    for (int b = 0; b < 4; ++b) {
      const __m512bh hi = (__m512bh)_mm512_loadu_si512(qh + b * d + x);
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) a[4 * j + b] = _mm512_dpbf16_ps(x == 0 ? zero : a[4 * j + b], hi, kv[j]);
      if constexpr (kLo) {
        const __m512bh lo = (__m512bh)_mm512_loadu_si512(ql + b * d + x);
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) a[4 * j + b] = _mm512_dpbf16_ps(a[4 * j + b], lo, kv[j]);
      }
    }
  }
  const __m512 sums = Avx512::reduce16(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15]);
  if constexpr (!kPartial) return sums;
  const __mmask16 past = __mmask16(((0xfu << n) & 0xfu) * 0x1111u);  // lanes 4b + j, j >= n
  return _mm512_mask_mov_ps(sums, past, _mm512_set1_ps(-__builtin_inff()));
}

// One half of a step's 32-token block: n <= 16 tokens of one page, k and v pointing at this
// KV head's row of the half's first token (rows ldkv apart); pk, pv (or null): the same rows of a
// later page, requested line by line (prefetcht1) beside the loads of this page's lines, so
// that its misses are spread through the work instead of queued in a burst.
struct Half {
  const uint16_t* k;
  const uint16_t* v;
  const uint16_t* pk;
  const uint16_t* pv;
  int n;
};

// acc[4 rows, NV vectors from x0] (+)= sum_t P[b, t] v[t, x0 ..] over the token pairs of a
// 32-token block (two halves of 16): V rows 2i and 2i + 1 of a half interleaved by vpunpcklwd /
// vpunpckhwd (in-lane, so the columns land in the value order of decode_pages_bf16), dotted
// with the bf16 pair (P[b, 2i], P[b, 2i + 1]) = pairs[8 (i / 2) + 2b + i % 2], i the block's
// pair (16 per half). Rows of acc scaled by alpha's block b first when `rescale`. Rows of v
// past a half's n are not read. One load and store of acc per 32 tokens.
template <int NV>
inline void values_32(const Half* half, const uint32_t* pairs, int64_t ldv, int x0, float* acc,
                      int64_t ldacc, bool rescale, __m512 alpha) {
  static_assert(NV % 2 == 0, "two output vectors per 32 bf16 of a row");
  __m512 a[4][NV];
  for (int b = 0; b < 4; ++b)
    for (int j = 0; j < NV; ++j) a[b][j] = _mm512_loadu_ps(acc + b * ldacc + x0 + 16 * j);
  if (rescale) {
    for (int b = 0; b < 4; ++b) {
      const __m512 ab = _mm512_permutexvar_ps(_mm512_set1_epi32(4 * b), alpha);
      for (int j = 0; j < NV; ++j) a[b][j] = _mm512_mul_ps(a[b][j], ab);
    }
  }
  for (int hh = 0; hh < 2; ++hh) {
    const int tn = half[hh].n;
    const uint16_t* v = half[hh].v + x0;
    const uint16_t* pf = half[hh].pv ? half[hh].pv + x0 : nullptr;
    for (int i = 0; 2 * i < tn; ++i) {
      const uint16_t* r0 = v + int64_t(2 * i) * ldv;
      __m512i w[NV];
      for (int c = 0; c < NV / 2; ++c) {
        if (pf) {
          const uint16_t* p0 = pf + int64_t(2 * i) * ldv + 32 * c;
          _mm_prefetch(reinterpret_cast<const char*>(p0), _MM_HINT_T1);
          _mm_prefetch(reinterpret_cast<const char*>(p0 + ldv), _MM_HINT_T1);
        }
        const __m512i x = _mm512_loadu_si512(r0 + 32 * c);
        const __m512i y = 2 * i + 1 < tn ? _mm512_loadu_si512(r0 + ldv + 32 * c) : _mm512_setzero_si512();
        w[2 * c] = _mm512_unpacklo_epi16(x, y);
        w[2 * c + 1] = _mm512_unpackhi_epi16(x, y);
      }
      const int pair = 8 * hh + i;
      const uint32_t* pi = pairs + 8 * (pair / 2) + pair % 2;
      for (int b = 0; b < 4; ++b) {
        const __m512bh pb = (__m512bh)_mm512_set1_epi32(static_cast<int>(pi[2 * b]));
        for (int j = 0; j < NV; ++j) a[b][j] = _mm512_dpbf16_ps(a[b][j], pb, (__m512bh)w[j]);
      }
    }
  }
  for (int b = 0; b < 4; ++b)
    for (int j = 0; j < NV; ++j) _mm512_storeu_ps(acc + b * ldacc + x0 + 16 * j, a[b][j]);
}

// The scores of 4 query rows x tn <= 16 tokens in block layout, 4 vectors: s[q] lane 4b + j =
// row b, token 4q + j (-inf past tn).
template <bool kLo>
inline void scores_4x16(int tn, int d, const uint16_t* qh, const uint16_t* ql, const uint16_t* k,
                        int64_t ldkv, __m512* s, const uint16_t* pf) {
  for (int q = 0; q < 4; ++q) {
    const int n = tn - 4 * q;
    const uint16_t* kq = k + int64_t(4 * q) * ldkv;
    const uint16_t* pq = pf ? pf + int64_t(4 * q) * ldkv : nullptr;
    s[q] = n >= 4 ? scores_4x4<kLo, false>(4, d, qh, ql, kq, ldkv, pq)
           : n > 0 ? scores_4x4<kLo, true>(n, d, qh, ql, kq, ldkv, pq)
                   : _mm512_set1_ps(-__builtin_inff());
  }
}

// FlashAttention-2 Algorithm 1, lines 8-10, for the 4 rows x 32 tokens of s (8 vectors, block
// layout): running max m, P, sum l, and alpha = exp(m_old - m_new) in block b of the returned
// vector (the rescale of acc, folded into values_32's load of acc). P rounded to bf16 as the
// operand of P V: word 8q + 2b + h of pairs = (P[b, 4q + 2h], P[b, 4q + 2h + 1]). *rescale:
// some alpha differs from 1. At least one of the 32 scores of each row is finite.
inline __m512 softmax_4x32(float scale, __m512* s, float* m, float* l, uint32_t* pairs, bool* rescale) {
  // The raw scores' max (scale > 0 keeps their order) times the scale; then P = 2^t with t =
  // s scale log2(e) - m_new log2(e), one FMA per vector, where scaling, subtracting and the
  // general exp (range clamps, Cody-Waite reduction) took 13 more instructions a vector
  // (DESIGN.md, "Decode arithmetic, session 35").
  __m512 big = _mm512_max_ps(_mm512_max_ps(_mm512_max_ps(s[0], s[1]), _mm512_max_ps(s[2], s[3])),
                             _mm512_max_ps(_mm512_max_ps(s[4], s[5]), _mm512_max_ps(s[6], s[7])));
  big = _mm512_max_ps(big, _mm512_permute_ps(big, 0xb1));
  big = _mm512_max_ps(big, _mm512_permute_ps(big, 0x4e));  // every lane of block b: row b's max
  big = _mm512_mul_ps(big, _mm512_set1_ps(scale));
  const __m512i row_of_lane = _mm512_set_epi32(3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0);
  const __m512i first_of_row = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 12, 8, 4, 0);
  const __m512 m_old = _mm512_permutexvar_ps(row_of_lane, _mm512_castps128_ps512(_mm_loadu_ps(m)));
  const __m512 m_new = _mm512_max_ps(m_old, big);  // finite: each row sees a finite score
  const __m512 alpha = Avx512::exp_nonpositive(_mm512_sub_ps(m_old, m_new));  // 0 on the first block
  const __m512 c = _mm512_set1_ps(scale * 1.44269504088896341f);
  const __m512 mc = _mm512_mul_ps(m_new, _mm512_set1_ps(1.44269504088896341f));
  __m512 p[8];  // 0 where masked
  for (int q = 0; q < 8; ++q) p[q] = Avx512::exp2_nonpositive(_mm512_fmsub_ps(s[q], c, mc));
  __m512 sum = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(p[0], p[1]), _mm512_add_ps(p[2], p[3])),
                             _mm512_add_ps(_mm512_add_ps(p[4], p[5]), _mm512_add_ps(p[6], p[7])));
  sum = _mm512_add_ps(sum, _mm512_permute_ps(sum, 0xb1));
  sum = _mm512_add_ps(sum, _mm512_permute_ps(sum, 0x4e));
  const __m128 alpha4 = _mm512_castps512_ps128(_mm512_permutexvar_ps(first_of_row, alpha));
  const __m128 sum4 = _mm512_castps512_ps128(_mm512_permutexvar_ps(first_of_row, sum));
  _mm_storeu_ps(l, _mm_fmadd_ps(_mm_loadu_ps(l), alpha4, sum4));
  _mm_storeu_ps(m, _mm512_castps512_ps128(_mm512_permutexvar_ps(first_of_row, m_new)));
  *rescale = _mm512_cmp_ps_mask(alpha, _mm512_set1_ps(1.f), _CMP_NEQ_UQ) != 0;
  for (int q = 0; q < 8; q += 2)
    _mm512_store_si512(pairs + 8 * q, (__m512i)_mm512_cvtne2ps_pbh(p[q + 1], p[q]));
  return alpha;
}

// KernelOps::decode_pages_bf16: the tokens of the (up to) two pages in blocks of 32, two
// 16-token halves each (a page's tokens in halves of up to 16, then the next page's; a block
// of one half has an empty second one). The (4 rows, 32 tokens) blocks of every KV head run
// phase by phase (all scores, then all softmax steps, then all P V), so that the blocks'
// dependency chains (dot products, then their reduction, then exp, then P V) overlap in the
// out-of-order window instead of running one after the other.
template <bool kLo>
void decode_pages_bf16_t(int hkv, int g, int d, float scale, const uint16_t* q_hi, const uint16_t* q_lo,
                         const DecodePagesBf16& pages, int64_t ldkv, float* m, float* l, float* acc,
                         int64_t ldacc) {
  constexpr int kUnits = 8;  // (KV head, 4 query rows) blocks per phase
  const int quads = g / 4, units = hkv * quads;
  int page = 0, off = 0;  // the next half's first token
  // The next half (page `page` from token `off`, up to 16 tokens) at KV head 0; false past the pages.
  auto take = [&](Half& h) {
    while (page < 2 && off >= pages.t[page]) ++page, off = 0;
    if (page == 2) return false;
    const int64_t at = int64_t(off) * ldkv;
    h.n = pages.t[page] - off < 16 ? pages.t[page] - off : 16;
    h.k = pages.k[page] + at;
    h.v = pages.v[page] + at;
    h.pk = pages.next_k[page] ? pages.next_k[page] + at : nullptr;
    h.pv = pages.next_v[page] ? pages.next_v[page] + at : nullptr;
    off += h.n;
    return true;
  };
  Half block[2];
  while (take(block[0])) {
    if (!take(block[1])) block[1] = Half{nullptr, nullptr, nullptr, nullptr, 0};
    for (int u0 = 0; u0 < units; u0 += kUnits) {
      const int un = units - u0 < kUnits ? units - u0 : kUnits;
      __m512 s[kUnits][8];
      alignas(64) uint32_t pairs[kUnits][64];
      __m512 alpha[kUnits];
      bool rescale[kUnits];
      for (int i = 0; i < un; ++i) {
        const int hk = (u0 + i) / quads, row = hk * g + (u0 + i) % quads * 4;
        const int64_t at = int64_t(hk) * d;  // this head's columns of a token's row
        const uint16_t* qh = q_hi + int64_t(row) * d;
        const uint16_t* ql = kLo ? q_lo + int64_t(row) * d : nullptr;
        for (int hh = 0; hh < 2; ++hh) {
          const Half& h = block[hh];
          // The later page's K once per KV head (the head's first row quad), V likewise below.
          const uint16_t* pf = h.pk && row % g == 0 ? h.pk + at : nullptr;
          if (h.n > 0) {
            scores_4x16<kLo>(h.n, d, qh, ql, h.k + at, ldkv, s[i] + 4 * hh, pf);
          } else {
            for (int q = 0; q < 4; ++q) s[i][4 * hh + q] = _mm512_set1_ps(-__builtin_inff());
          }
        }
      }
      for (int i = 0; i < un; ++i) {
        const int hk = (u0 + i) / quads, row = hk * g + (u0 + i) % quads * 4;
        alpha[i] = softmax_4x32(scale, s[i], m + row, l + row, pairs[i], &rescale[i]);
      }
      for (int i = 0; i < un; ++i) {
        const int hk = (u0 + i) / quads, row = hk * g + (u0 + i) % quads * 4;
        const int64_t at = int64_t(hk) * d;
        Half head[2];
        for (int hh = 0; hh < 2; ++hh) {
          const Half& h = block[hh];
          const uint16_t* pf = h.pv && row % g == 0 ? h.pv + at : nullptr;
          head[hh] = Half{nullptr, h.n > 0 ? h.v + at : nullptr, nullptr, pf, h.n};
        }
        float* a = acc + int64_t(row) * ldacc;
        int x = 0;
        for (; x + 64 <= d; x += 64) values_32<4>(head, pairs[i], ldkv, x, a, ldacc, rescale[i], alpha[i]);
        if (x < d) values_32<2>(head, pairs[i], ldkv, x, a, ldacc, rescale[i], alpha[i]);
      }
    }
  }
}

// The caller reads the pages' K and V rows into L2 before the step (paged_decode.cc
// read_kv_pages, 4 scattered pages at a time with their runs interleaved, or each page's K then
// V rows), so that the phases, which read each KV head's 256 B runs 2 KiB apart, find them in L2
// rather than waiting on each miss; next_k / next_v, when not null, are requested line by line
// beside the loads. DESIGN.md, "Decode reading, session 34".
void decode_pages_bf16(int hkv, int g, int d, float scale, const uint16_t* q_hi, const uint16_t* q_lo,
                       const DecodePagesBf16& pages, int64_t ldkv, float* m, float* l, float* acc,
                       int64_t ldacc) {
  if (q_lo) {
    decode_pages_bf16_t<true>(hkv, g, d, scale, q_hi, q_lo, pages, ldkv, m, l, acc, ldacc);
  } else {
    decode_pages_bf16_t<false>(hkv, g, d, scale, q_hi, q_lo, pages, ldkv, m, l, acc, ldacc);
  }
}

// ---- decode over KvCacheLayout::kVnni16 pieces: tokens in vector lanes ----

// acc[4 rows, NV vectors from x0] = acc alpha_b + sum over the step's visible token pairs of
// (P[b, 2i], P[b, 2i + 1]) . (v[2i, x], v[2i + 1, x]): one vdpbf16ps per 16 dims of a token pair
// and row with P's bf16 pair broadcast (pairs[b]: P of the step's 64 slots, piece c's slot j at
// 16c + j). A pair with a slot outside [lo, hi) has that slot's V words zeroed. The 4 pieces'
// token pairs are walked in lockstep (pair i of pieces 0-3, then pair i + 1), each pair's NV
// vectors in address order and loaded once for all 4 rows, so that a pass over 128 columns
// reads each piece's V block of this head once, front to back; next_v (or null) of piece c: its
// lines of the same columns requested beside the loads (prefetch hint kHint: _MM_HINT_T0 or
// T1). At NV = 8 the accumulators of vectors 6 and 7 live on the stack (loaded, dotted and
// stored each token pair): 32 accumulators and the V vector do not fit the 32 zmm registers.
// Two rows at a time instead (the second pair of rows reading V again from L1, the memory idle
// meanwhile) was 1.07-1.09x slower at 32k context
// (DESIGN.md, "Decode's P V in one pass, session 42").
template <int NV, int kHint>
inline void values_vnni16(const DecodePiecesVnni16& pc, const uint16_t* const* next_v, int64_t at, int d, int x0,
                          const uint16_t (*pairs)[64], const float* alpha, float* acc, int64_t ldacc) {
  constexpr int kRegs = NV < 6 ? NV : 6;  // vectors whose 4 rows' accumulators stay in registers
  __m512 a[4][kRegs];
  alignas(64) float spill[4][NV - kRegs + 1][16];
  for (int b = 0; b < 4; ++b) {
    const __m512 ab = _mm512_set1_ps(alpha[b]);
    for (int j = 0; j < NV; ++j) {
      const __m512 r = _mm512_mul_ps(_mm512_loadu_ps(acc + b * ldacc + x0 + 16 * j), ab);
      if (j < kRegs) a[b][j] = r;
      else _mm512_store_ps(spill[b][j - kRegs], r);
    }
  }
  for (int i = 0; i < 8; ++i) {
    for (int c = 0; c < 4; ++c) {
      const int lo = pc.lo[c], hi = pc.hi[c];
      if (2 * i + 1 < lo || 2 * i >= hi) continue;
      const uint16_t* vc = pc.v[c] + at + int64_t(2 * i) * d + 2 * x0;
      const uint16_t* pf = next_v[c] ? next_v[c] + at + int64_t(2 * i) * d + 2 * x0 : nullptr;
      // Words 2x of a V vector are slot 2i's, words 2x + 1 slot 2i + 1's.
      const __mmask32 keep = (2 * i >= lo ? 0x55555555u : 0u) | (2 * i + 1 < hi ? 0xaaaaaaaau : 0u);
      __m512bh pb[4];
#pragma GCC unroll 4
      for (int b = 0; b < 4; ++b) {
        uint32_t pair;
        __builtin_memcpy(&pair, pairs[b] + 16 * c + 2 * i, 4);
        pb[b] = (__m512bh)_mm512_set1_epi32(static_cast<int>(pair));
      }
#pragma GCC unroll 8
      for (int j = 0; j < NV; ++j) {
        const __m512i x = _mm512_loadu_si512(vc + 32 * j);
        const __m512bh w = (__m512bh)(keep == 0xffffffffu ? x : _mm512_maskz_mov_epi16(keep, x));
        if (pf) _mm_prefetch(reinterpret_cast<const char*>(pf + 32 * j), static_cast<decltype(_MM_HINT_T0)>(kHint));
        if (j < kRegs) {
#pragma GCC unroll 4
          for (int b = 0; b < 4; ++b) a[b][j] = _mm512_dpbf16_ps(a[b][j], pb[b], w);
        } else {
#pragma GCC unroll 4
          for (int b = 0; b < 4; ++b) {
            float* r = spill[b][j - kRegs];
            _mm512_store_ps(r, _mm512_dpbf16_ps(_mm512_load_ps(r), pb[b], w));
          }
        }
      }
    }
  }
  for (int b = 0; b < 4; ++b)
    for (int j = 0; j < NV; ++j)
      _mm512_storeu_ps(acc + b * ldacc + x0 + 16 * j, j < kRegs ? a[b][j] : _mm512_load_ps(spill[b][j - kRegs]));
}

// KernelOps::decode_pieces_vnni16 in two phases over up to 8 blocks of (KV head, 4 query rows)
// at a time: every block's scores and online-softmax step, then every block's P V. Scores: 16
// accumulators (row b, piece c; each dim pair one K vector per piece and one broadcast q pair per
// row), the 4 pieces' K lines in lockstep; FlashAttention-2's step per row. P V (values_vnni16):
// all 4 rows at once over 128 columns (then 64, then 32), the 4 pieces' V lines in lockstep and
// front to back. So the step's own loads walk 4 streams forward, K then V, once each, which the
// L2 streamer carries; the old step's P V over 64-column halves (256 B of each 512 B token-pair
// row, then the other 256 B) and its K and V interleaved head by head left it at 13 GB/s a core
// from DRAM with no read pass and no requests (2-vCPU Zen 4, DESIGN.md, "Decode's own walk,
// session 41"). next_k / next_v (or null) are requested line by line: K in the first block of
// each head, V in that block's P V, with hint kHint (pc.into_l1: _MM_HINT_T0, else T1).
template <bool kLo, int kHint>
void decode_pieces_vnni16_t(int hkv, int g, int d, float scale, const uint16_t* q_hi, const uint16_t* q_lo,
                            const DecodePiecesVnni16& pc, float* m, float* l, float* acc, int64_t ldacc) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr int kBlocks = 8;
  const __m512 c2 = _mm512_set1_ps(scale * kLog2e);
  const __m512 neg_inf = _mm512_set1_ps(-__builtin_inff());
  __mmask16 visible[4];
  for (int c = 0; c < 4; ++c) visible[c] = __mmask16(((1u << pc.hi[c]) - 1u) & ~((1u << pc.lo[c]) - 1u));
  const uint16_t* const no_next[4] = {nullptr, nullptr, nullptr, nullptr};
  const int per_head = g / 4, blocks = hkv * per_head;
  alignas(64) uint16_t pairs[kBlocks][4][64];
  float alpha[kBlocks][4];
  for (int b0 = 0; b0 < blocks; b0 += kBlocks) {
    const int nb = blocks - b0 < kBlocks ? blocks - b0 : kBlocks;
    for (int k = 0; k < nb; ++k) {
      const int r0 = (b0 + k) * 4;                  // the block's first query row
      const int64_t at = int64_t(r0 / g) * 16 * d;  // its head's block of a piece
      const bool first = (b0 + k) % per_head == 0;  // requests the later pieces once per KV head
      const uint32_t* qh = reinterpret_cast<const uint32_t*>(q_hi + int64_t(r0) * d);
      const uint32_t* ql = kLo ? reinterpret_cast<const uint32_t*>(q_lo + int64_t(r0) * d) : nullptr;
      __m512 s[4][4];
      for (int b = 0; b < 4; ++b)
        for (int c = 0; c < 4; ++c) s[b][c] = _mm512_setzero_ps();
      for (int x = 0; x < d / 2; ++x) {
        __m512bh kv[4];
        for (int c = 0; c < 4; ++c) {
          kv[c] = (__m512bh)_mm512_loadu_si512(pc.k[c] + at + 32 * x);
          if (first && pc.next_k[c]) _mm_prefetch(reinterpret_cast<const char*>(pc.next_k[c] + at + 32 * x),
                                                  static_cast<decltype(_MM_HINT_T0)>(kHint));
        }
        for (int b = 0; b < 4; ++b) {
          const __m512bh qb = (__m512bh)_mm512_set1_epi32(static_cast<int>(qh[b * (d / 2) + x]));
          for (int c = 0; c < 4; ++c) s[b][c] = _mm512_dpbf16_ps(s[b][c], qb, kv[c]);
          if constexpr (kLo) {
            const __m512bh lb = (__m512bh)_mm512_set1_epi32(static_cast<int>(ql[b * (d / 2) + x]));
            for (int c = 0; c < 4; ++c) s[b][c] = _mm512_dpbf16_ps(s[b][c], lb, kv[c]);
          }
        }
      }
      for (int b = 0; b < 4; ++b) {
        for (int c = 0; c < 4; ++c) s[b][c] = _mm512_mask_mov_ps(neg_inf, visible[c], s[b][c]);
        const __m512 big = _mm512_max_ps(_mm512_max_ps(s[b][0], s[b][1]), _mm512_max_ps(s[b][2], s[b][3]));
        // Finite: piece 0 has a visible slot. scale > 0 keeps the raw scores' order.
        const float top = _mm512_reduce_max_ps(big) * scale, m_old = m[r0 + b];
        const float m_new = m_old > top ? m_old : top;
        alpha[k][b] = _mm_cvtss_f32(_mm512_castps512_ps128(Avx512::exp_nonpositive(_mm512_set1_ps(m_old - m_new))));
        const __m512 mc = _mm512_set1_ps(m_new * kLog2e);
        __m512 sum = _mm512_setzero_ps();
        for (int c = 0; c < 4; c += 2) {
          const __m512 p0 = Avx512::exp2_nonpositive(_mm512_fmsub_ps(s[b][c], c2, mc));
          const __m512 p1 = Avx512::exp2_nonpositive(_mm512_fmsub_ps(s[b][c + 1], c2, mc));
          sum = _mm512_add_ps(sum, _mm512_add_ps(p0, p1));
          _mm512_store_si512(pairs[k][b] + 16 * c, (__m512i)_mm512_cvtne2ps_pbh(p1, p0));
        }
        l[r0 + b] = l[r0 + b] * alpha[k][b] + _mm512_reduce_add_ps(sum);
        m[r0 + b] = m_new;
      }
    }
    for (int k = 0; k < nb; ++k) {
      const int r0 = (b0 + k) * 4;
      const int64_t at = int64_t(r0 / g) * 16 * d;
      const bool first = (b0 + k) % per_head == 0;
      float* a = acc + int64_t(r0) * ldacc;
      const uint16_t* const* next_v = first ? pc.next_v : no_next;
      int x0 = 0;
      for (; x0 + 128 <= d; x0 += 128) values_vnni16<8, kHint>(pc, next_v, at, d, x0, pairs[k], alpha[k], a, ldacc);
      if (x0 + 64 <= d) {
        values_vnni16<4, kHint>(pc, next_v, at, d, x0, pairs[k], alpha[k], a, ldacc);
        x0 += 64;
      }
      if (x0 < d) values_vnni16<2, kHint>(pc, next_v, at, d, x0, pairs[k], alpha[k], a, ldacc);
    }
  }
}

void decode_pieces_vnni16(int hkv, int g, int d, float scale, const uint16_t* q_hi, const uint16_t* q_lo,
                          const DecodePiecesVnni16& pieces, float* m, float* l, float* acc, int64_t ldacc) {
  if (pieces.into_l1) {
    if (q_lo) {
      decode_pieces_vnni16_t<true, _MM_HINT_T0>(hkv, g, d, scale, q_hi, q_lo, pieces, m, l, acc, ldacc);
    } else {
      decode_pieces_vnni16_t<false, _MM_HINT_T0>(hkv, g, d, scale, q_hi, q_lo, pieces, m, l, acc, ldacc);
    }
  } else if (q_lo) {
    decode_pieces_vnni16_t<true, _MM_HINT_T1>(hkv, g, d, scale, q_hi, q_lo, pieces, m, l, acc, ldacc);
  } else {
    decode_pieces_vnni16_t<false, _MM_HINT_T1>(hkv, g, d, scale, q_hi, q_lo, pieces, m, l, acc, ldacc);
  }
}

// KernelOps::decode_bf16_columns: position 16h + 4L + j of each 32 columns back to column
// 8L + 4h + j.
void decode_bf16_columns(int rows, int d, float* acc, int64_t ldacc) {
  const __m512i first = _mm512_set_epi32(23, 22, 21, 20, 7, 6, 5, 4, 19, 18, 17, 16, 3, 2, 1, 0);
  const __m512i second = _mm512_set_epi32(31, 30, 29, 28, 15, 14, 13, 12, 27, 26, 25, 24, 11, 10, 9, 8);
  for (int r = 0; r < rows; ++r) {
    float* row = acc + r * ldacc;
    for (int x = 0; x < d; x += 32) {
      const __m512 lo = _mm512_loadu_ps(row + x), hi = _mm512_loadu_ps(row + x + 16);
      _mm512_storeu_ps(row + x, _mm512_permutex2var_ps(lo, first, hi));
      _mm512_storeu_ps(row + x + 16, _mm512_permutex2var_ps(lo, second, hi));
    }
  }
}

}  // namespace

const KernelOps& avx512bf16_ops() {
  static const KernelOps ops = [] {
    KernelOps table = SimdOps<Avx512>::table(SimdPath::kAvx512Bf16);
    table.gemm_bf16 = gemm_bf16;
    table.to_bf16 = to_bf16;
    table.decode_pages_bf16 = decode_pages_bf16;
    table.decode_bf16_columns = decode_bf16_columns;
    table.decode_pieces_vnni16 = decode_pieces_vnni16;
    return table;
  }();
  return ops;
}

}  // namespace attnscope
