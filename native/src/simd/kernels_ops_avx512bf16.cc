// KernelOps for AVX-512 with AVX512-BF16: the AVX-512 table plus vdpbf16ps GEMMs, used by the
// flash kernel for bf16 inputs (Q K^T and P V, P rounded to bf16 as flash-attn does on GPUs).
// Compiled with the AVX-512 flags and -mavx512bf16; only called when CPUID reports AVX512_BF16.
#include "attnscope/kernels_simd_avx512.h"

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

}  // namespace

const KernelOps& avx512bf16_ops() {
  static const KernelOps ops = [] {
    KernelOps table = SimdOps<Avx512>::table(SimdPath::kAvx512Bf16);
    table.gemm_bf16 = gemm_bf16;
    table.to_bf16 = to_bf16;
    return table;
  }();
  return ops;
}

}  // namespace attnscope
