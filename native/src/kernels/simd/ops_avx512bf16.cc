// KernelOps for AVX-512 with AVX512-BF16: the AVX-512 table plus vdpbf16ps GEMMs, used by the
// flash kernel for bf16 inputs (Q K^T and P V, P rounded to bf16 as flash-attn does on GPUs).
// Decode reads bf16 pages the same way (scores_bf16, values_bf16).
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
  for (int p = 0; p < kp; ++p) {
    __m512bh bv[NV];
    for (int v = 0; v < NV; ++v) bv[v] = (__m512bh)_mm512_loadu_si512(b + p * ldb + v * 16);
    for (int i = 0; i < M; ++i) {
      const __m512bh ai = (__m512bh)_mm512_set1_epi32(static_cast<int>(a[i * lda32 + p]));
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_dpbf16_ps(acc[i][v], ai, bv[v]);
    }
  }
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

// ---- decode straight from bf16 pages with vdpbf16ps (32 multiply-adds per instruction, no
// widening of K or V) ----

using Ops = SimdOps<Avx512>;

// s[b, t0 + j] for 4 query rows b x 4 tokens j: accumulator a[4j + b] sums q_b . k_j over d in
// 16 lanes (pairs of d), reduced together by Avx512::reduce16. kLo adds the low bf16 half of q
// (q = hi + lo, so an fp32 q keeps ~16 bits; a bf16 q has lo = 0 and skips it).
template <bool kLo>
void scores_bf16_4x4(int t0, int d, const uint16_t* qh, const uint16_t* ql, const uint16_t* k,
                     int64_t ldk, float* s, int64_t lds) {
  // The first step of d starts the sums from zero in registers: a zeroing loop over a[] was
  // turned into a memset (rep stos), which kept a[] in memory.
  __m512 a[16];
  const __m512 zero = _mm512_setzero_ps();
  for (int x = 0; x < d; x += 32) {
    __m512bh kv[4];
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) kv[j] = (__m512bh)_mm512_loadu_si512(k + (t0 + j) * ldk + x);
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
  for (int b = 0; b < 4; ++b) Avx512::store4(s + b * lds + t0, sums, b);
}

// KernelOps::scores_bf16: 4 query rows x 4 tokens per step, the last t % 4 tokens one by one.
void scores_bf16(int g, int t, int d, const uint16_t* qh, const uint16_t* ql, const uint16_t* k,
                 int64_t ldk, float* s, int64_t lds) {
  for (int g0 = 0; g0 < g; g0 += 4) {
    const uint16_t* h = qh + g0 * d;
    const uint16_t* l = ql ? ql + g0 * d : nullptr;
    float* sg = s + g0 * lds;
    int t0 = 0;
    for (; t0 + 4 <= t; t0 += 4) {
      if (l) {
        scores_bf16_4x4<true>(t0, d, h, l, k, ldk, sg, lds);
      } else {
        scores_bf16_4x4<false>(t0, d, h, l, k, ldk, sg, lds);
      }
    }
    for (; t0 < t; ++t0) {
      for (int b = 0; b < 4; ++b) {
        __m512 a = _mm512_setzero_ps();
        for (int x = 0; x < d; x += 32) {
          const __m512bh kv = (__m512bh)_mm512_loadu_si512(k + t0 * ldk + x);
          a = _mm512_dpbf16_ps(a, (__m512bh)_mm512_loadu_si512(h + b * d + x), kv);
          if (l) a = _mm512_dpbf16_ps(a, (__m512bh)_mm512_loadu_si512(l + b * d + x), kv);
        }
        sg[b * lds + t0] = _mm512_reduce_add_ps(a);
      }
    }
  }
}

// acc[4 rows, 16 NV columns from x0] += sum_t p[b, t] v[t, x0 ..] over token pairs: V rows t and
// t + 1 interleaved by vpermt2w into (v[t, x], v[t + 1, x]) pairs, dotted with the bf16 pair
// (p[b, t], p[b, t + 1]). pp[b][i]: that pair for tokens 2i, 2i + 1 (0 past the last token).
template <int NV>
void values_bf16_4rows(int tn, const uint32_t (*pp)[16], const uint16_t* v, int64_t ldv, int x0,
                       float* acc, int64_t ldacc) {
  static_assert(NV % 2 == 0, "two output vectors per 32 bf16 of a row");
  alignas(64) static constexpr uint16_t kLo[32] = {0, 32, 1, 33, 2, 34, 3, 35, 4, 36, 5, 37, 6, 38, 7, 39,
                                                   8, 40, 9, 41, 10, 42, 11, 43, 12, 44, 13, 45, 14, 46, 15, 47};
  const __m512i lo_idx = _mm512_load_si512(kLo);
  const __m512i hi_idx = _mm512_add_epi16(lo_idx, _mm512_set1_epi16(16));
  __m512 a[4][NV];
  for (int b = 0; b < 4; ++b)
    for (int j = 0; j < NV; ++j) a[b][j] = _mm512_loadu_ps(acc + b * ldacc + x0 + 16 * j);
  for (int i = 0; 2 * i < tn; ++i) {
    const uint16_t* r0 = v + int64_t(2 * i) * ldv + x0;
    __m512i w[NV];
    for (int c = 0; c < NV / 2; ++c) {
      const __m512i x = _mm512_loadu_si512(r0 + 32 * c);
      const __m512i y = 2 * i + 1 < tn ? _mm512_loadu_si512(r0 + ldv + 32 * c) : _mm512_setzero_si512();
      w[2 * c] = _mm512_permutex2var_epi16(x, lo_idx, y);
      w[2 * c + 1] = _mm512_permutex2var_epi16(x, hi_idx, y);
    }
    for (int b = 0; b < 4; ++b) {
      const __m512bh pb = (__m512bh)_mm512_set1_epi32(static_cast<int>(pp[b][i]));
      for (int j = 0; j < NV; ++j) a[b][j] = _mm512_dpbf16_ps(a[b][j], pb, (__m512bh)w[j]);
    }
  }
  for (int b = 0; b < 4; ++b)
    for (int j = 0; j < NV; ++j) _mm512_storeu_ps(acc + b * ldacc + x0 + 16 * j, a[b][j]);
}

// KernelOps::accumulate_values for bf16 pages: P rounded to bf16 (as the flash bf16 path and
// flash-attn on GPUs do; error below one bf16 ulp of |V|), fp32 accumulation.
void values_bf16(int g, int t, int d, const float* p, int64_t ldp, DType kv_dtype, const void* v,
                 int64_t ldv, float* acc, int64_t ldacc) {
  if (kv_dtype != DType::kBF16 || g % 4 != 0 || d % 32 != 0)
    return Ops::accumulate_values(g, t, d, p, ldp, kv_dtype, v, ldv, acc, ldacc);
  const uint16_t* vb = static_cast<const uint16_t*>(v);
  alignas(64) uint32_t pp[4][16];
  for (int g0 = 0; g0 < g; g0 += 4) {
    for (int tb = 0; tb < t; tb += 32) {
      const int tn = t - tb < 32 ? t - tb : 32;
      for (int b = 0; b < 4; ++b) {  // bf16 of tokens 2i, 2i + 1 side by side = pair i
        const float* row = p + (g0 + b) * ldp + tb;
        const __mmask16 k0 = tn >= 16 ? __mmask16(0xffff) : __mmask16((1u << tn) - 1);
        const __mmask16 k1 = tn >= 32 ? __mmask16(0xffff) : tn <= 16 ? __mmask16(0) : __mmask16((1u << (tn - 16)) - 1);
        const __m512bh both = _mm512_cvtne2ps_pbh(_mm512_maskz_loadu_ps(k1, row + 16), _mm512_maskz_loadu_ps(k0, row));
        _mm512_store_si512(pp[b], (__m512i)both);
      }
      const uint16_t* vt = vb + int64_t(tb) * ldv;
      float* at = acc + g0 * ldacc;
      int x = 0;
      for (; x + 64 <= d; x += 64) values_bf16_4rows<4>(tn, pp, vt, ldv, x, at, ldacc);
      if (x < d) values_bf16_4rows<2>(tn, pp, vt, ldv, x, at, ldacc);
    }
  }
}

}  // namespace

const KernelOps& avx512bf16_ops() {
  static const KernelOps ops = [] {
    KernelOps table = SimdOps<Avx512>::table(SimdPath::kAvx512Bf16);
    table.gemm_bf16 = gemm_bf16;
    table.to_bf16 = to_bf16;
    table.scores_bf16 = scores_bf16;
    table.accumulate_values = values_bf16;
    return table;
  }();
  return ops;
}

}  // namespace attnscope
