// Tile operations the attention kernels are built from, one table per SIMD path. The tiled
// drivers in kernels.cc (loop order, masks, online softmax, threads) are shared; only these
// inner loops differ per ISA. Each table lives in a translation unit compiled with its own -m
// flags (src/simd/kernels_ops_<isa>.cc) and is only called after cpu_features.h said the CPU
// has that ISA. Those units must not instantiate inline templates shared with other units
// (std::vector, std::function, ...): the linker could keep their AVX-512 copy for everyone.
#pragma once

#include <cstdint>

#include "attnscope/kernels.h"

namespace attnscope {

struct KernelOps {
  SimdPath path;

  // c[m, n] = (accumulate ? c[m, n] : 0) + sum_k a[m, k] * b[k, n].
  // a: [m, k] row stride lda; b: [k, n] row stride ldb; c: [m, n] row stride ldc (fp32).
  void (*gemm)(int m, int n, int k, const float* a, int64_t lda, const float* b, int64_t ldb,
               float* c, int64_t ldc, bool accumulate);

  // dst[r, c] = scale * float(src[r * src_stride + c]) for r < rows, c < cols.
  // src: [rows, cols] of `dtype`, row stride src_stride elements; dst: row stride ld.
  void (*load_rows)(DType dtype, const void* src, int64_t src_stride, int rows, int cols,
                    float scale, float* dst, int64_t ld);

  // dst[c, r] = float(src[r * src_stride + c]) for r < rows, and 0 for rows <= r < ld: a
  // [rows, cols] tile stored transposed and zero-padded to ld columns (K^T tiles for gemm).
  void (*pack_transposed)(DType dtype, const void* src, int64_t src_stride, int rows, int cols,
                          float* dst, int64_t ld);

  // x[i] = exp(x[i] - shift) for i < n (exp(-inf) = 0); returns the sum of the new x.
  float (*exp_shift_sum)(float* x, int n, float shift);

  // max of x[0..n), -inf when n == 0.
  float (*row_max)(const float* x, int n);

  // x[i] *= s for i < n.
  void (*scale_row)(float* x, int n, float s);

  // s[g, t] = sum_d q[g, d] * k[t, d]: decode scores read straight from a page.
  // q: [g, d] fp32 stride ldq; k: [t, d] of kv dtype, row stride ldk elements; s: stride lds.
  void (*scores)(int g, int t, int d, const float* q, int64_t ldq, DType kv_dtype,
                 const void* k, int64_t ldk, float* s, int64_t lds);

  // acc[g, d] += sum_t p[g, t] * v[t, d]: decode value accumulation straight from a page.
  // p: [g, t] stride ldp; v: [t, d] of kv dtype, row stride ldv; acc: [g, d] stride ldacc.
  void (*accumulate_values)(int g, int t, int d, const float* p, int64_t ldp, DType kv_dtype,
                            const void* v, int64_t ldv, float* acc, int64_t ldacc);
};

const KernelOps& scalar_ops();
#if defined(ATTNSCOPE_X86_PATHS)
const KernelOps& avx2_ops();
const KernelOps& avx512_ops();
#endif

/** The table of a supported path (resolve kAuto first). */
const KernelOps& kernel_ops(SimdPath path);

}  // namespace attnscope
