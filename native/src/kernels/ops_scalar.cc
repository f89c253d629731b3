// Portable tile operations: plain loops the compiler vectorizes for the baseline ISA (SSE2 on
// x86-64, NEON on arm64). The reference semantics of every KernelOps entry.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "kernels/ops.h"

namespace attnscope {
namespace {

inline float load_element(DType dtype, const void* base, int64_t index) {
  switch (dtype) {
    case DType::kF16: return half_to_float(static_cast<const uint16_t*>(base)[index]);
    case DType::kBF16: return bf16_to_float(static_cast<const uint16_t*>(base)[index]);
    default: return static_cast<const float*>(base)[index];
  }
}

constexpr int kPanel = 16;  // panel width of gemm_packed / pack_panels

void gemm_packed(int m, int n, int k, const float* a, int64_t lda, const float* b, float* c,
                 int64_t ldc, bool accumulate) {
  for (int i = 0; i < m; ++i) {
    float* ci = c + i * ldc;
    if (!accumulate) {
      for (int j = 0; j < n; ++j) ci[j] = 0.f;
    }
    const float* ai = a + i * lda;
    for (int j0 = 0; j0 < n; j0 += kPanel) {
      const float* panel = b + int64_t(j0 / kPanel) * k * kPanel;
      const int width = std::min(kPanel, n - j0);
      for (int p = 0; p < k; ++p) {
        const float aip = ai[p];
        for (int j = 0; j < width; ++j) ci[j0 + j] += aip * panel[p * kPanel + j];
      }
    }
  }
}

void pack_panels(DType dtype, const void* src, int64_t src_stride, int k_rows, int cols,
                 bool transposed, int k, float* dst) {
  for (int kk = 0; kk < k_rows; ++kk) {
    for (int c = 0; c < cols; ++c) {
      const int64_t at = transposed ? c * src_stride + kk : kk * src_stride + c;
      dst[int64_t(c / kPanel) * k * kPanel + kk * kPanel + c % kPanel] = load_element(dtype, src, at);
    }
  }
}

void load_rows(DType dtype, const void* src, int64_t src_stride, int rows, int cols, float scale,
               float* dst, int64_t ld) {
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) dst[r * ld + c] = scale * load_element(dtype, src, r * src_stride + c);
  }
}

void softmax_tile(int rows, int n, int n_pad, float scale, float* s, int64_t lds,
                  const int32_t* begin, const int32_t* end, float* m, float* l, float* acc,
                  int64_t ldacc, int d) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  for (int r = 0; r < rows; ++r) {
    float* row = s + r * lds;
    const int a = begin[r], z = end[r];
    if (a >= z) {
      for (int j = 0; j < n_pad; ++j) row[j] = 0.f;
      continue;
    }
    float best = kNegInf;
    for (int j = a; j < z; ++j) best = std::max(best, scale * row[j]);
    const float m_new = std::max(m[r], best);
    const float alpha = std::exp(m[r] - m_new);  // 0 on the first visible tile (m = -inf)
    float sum = 0.f;
    for (int j = 0; j < n_pad; ++j) {
      row[j] = (j >= a && j < z) ? std::exp(scale * row[j] - m_new) : 0.f;
      sum += row[j];
    }
    l[r] = l[r] * alpha + sum;
    if (alpha != 1.f) {
      for (int x = 0; x < d; ++x) acc[r * ldacc + x] *= alpha;
    }
    m[r] = m_new;
  }
}

// One K or V row as fp32, converted once for all g query heads of its group (the per-element
// load_element of the loops below was a call and a dtype switch per product, g times per row:
// scalar decode ran ~10x slower per FLOP than scalar flash, which packs its operands once).
// Rows are converted in blocks of kRowBlock elements, so any head dimension fits the stack.
constexpr int kRowBlock = 256;

void load_block(DType dtype, const void* base, int64_t index, int n, float* dst) {
  switch (dtype) {
    case DType::kF16: {
      const uint16_t* h = static_cast<const uint16_t*>(base) + index;
      for (int i = 0; i < n; ++i) dst[i] = half_to_float(h[i]);
      break;
    }
    case DType::kBF16: {
      const uint16_t* h = static_cast<const uint16_t*>(base) + index;
      for (int i = 0; i < n; ++i) {
        const uint32_t bits = uint32_t(h[i]) << 16;
        std::memcpy(dst + i, &bits, 4);
      }
      break;
    }
    default: std::memcpy(dst, static_cast<const float*>(base) + index, size_t(n) * 4);
  }
}

void scores(int g, int t, int d, const float* q, int64_t ldq, DType kv_dtype, const void* k,
            int64_t ldk, float* s, int64_t lds) {
  float row[kRowBlock];
  for (int ti = 0; ti < t; ++ti) {
    for (int gi = 0; gi < g; ++gi) s[gi * lds + ti] = 0.f;
    for (int d0 = 0; d0 < d; d0 += kRowBlock) {
      const int n = std::min(kRowBlock, d - d0);
      load_block(kv_dtype, k, ti * ldk + d0, n, row);
      for (int gi = 0; gi < g; ++gi) {
        float acc = s[gi * lds + ti];  // the products summed in order, as before the blocks
        const float* qi = q + gi * ldq + d0;
        for (int di = 0; di < n; ++di) acc += qi[di] * row[di];
        s[gi * lds + ti] = acc;
      }
    }
  }
}

void accumulate_values(int g, int t, int d, const float* p, int64_t ldp, DType kv_dtype,
                       const void* v, int64_t ldv, float* acc, int64_t ldacc) {
  float row[kRowBlock];
  for (int ti = 0; ti < t; ++ti) {
    for (int d0 = 0; d0 < d; d0 += kRowBlock) {
      const int n = std::min(kRowBlock, d - d0);
      load_block(kv_dtype, v, ti * ldv + d0, n, row);
      for (int gi = 0; gi < g; ++gi) {
        const float w = p[gi * ldp + ti];
        float* a = acc + gi * ldacc + d0;
        for (int di = 0; di < n; ++di) a[di] += w * row[di];
      }
    }
  }
}

}  // namespace

const KernelOps& scalar_ops() {
  static const KernelOps ops{SimdPath::kScalar, kPanel,  gemm_packed,       pack_panels,
                             load_rows,         softmax_tile, scores, accumulate_values,
                             nullptr,           nullptr,      nullptr,  nullptr};
  return ops;
}

}  // namespace attnscope
