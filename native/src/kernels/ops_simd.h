// The vectorized KernelOps, written once over a vector traits type V and included by each
// per-ISA translation unit (kernels/simd/ops_<isa>.cc) with V = that ISA's traits.
// Everything here has internal linkage (anonymous namespace), so the copies compiled with
// different -m flags never meet in the linker.
//
// V provides: W (floats per vector), MR x NR (gemm register block: MR rows x NR vectors),
// T, zero(), set1(f), load(p), store(p, x), fmadd(a, b, c), mul(a, b), max(a, b),
// reduce_add(x), reduce_max(x), exp(x) (exp(-inf) = 0, NaN stays NaN), exp_nonpositive(x) (exp for
// x <= 0, -inf or NaN; may equal exp), load_f16(p) and
// load_bf16(p) (W half / bf16 values widened to fp32), and the flags kHasReduce16, kHasReduce8,
// kHasTranspose (VectorBase: false) saying which optional members it has: reduce16 (AVX-512)
// or reduce8 (AVX2) with broadcast_lane, lanes_differ and select_equal (softmax_rows: W rows
// at once), and transpose (W x W, K^T packing).
#pragma once

#include <cstdint>
#include <limits>

#include "kernels/ops.h"

namespace attnscope {
namespace {

template <typename V>
struct SimdOps {
  using T = typename V::T;
  static constexpr int W = V::W;
  static_assert(V::MR >= 1 && V::NR >= 1 && V::MR * V::NR <= 32, "register block too large");

  // ---- element loads ----
  template <DType kD>
  static T load_as_f32(const void* base, int64_t index) {
    if constexpr (kD == DType::kF32) {
      return V::load(static_cast<const float*>(base) + index);
    } else if constexpr (kD == DType::kF16) {
      return V::load_f16(static_cast<const uint16_t*>(base) + index);
    } else {
      return V::load_bf16(static_cast<const uint16_t*>(base) + index);
    }
  }

  template <DType kD>
  static float scalar_as_f32(const void* base, int64_t index) {
    if constexpr (kD == DType::kF32) {
      return static_cast<const float*>(base)[index];
    } else if constexpr (kD == DType::kF16) {
      return half_to_float(static_cast<const uint16_t*>(base)[index]);
    } else {
      return bf16_to_float(static_cast<const uint16_t*>(base)[index]);
    }
  }

  // ---- gemm over packed B panels: an MR x NR register block, k-loop of broadcast FMAs ----
  static constexpr int P = V::NR * W;  // panel width in floats

  template <int M, int NV, bool kAccumulate>
  static void micro(int k, const float* a, int64_t lda, const float* b, float* c, int64_t ldc) {
    T acc[M][NV];
    for (int i = 0; i < M; ++i)
      for (int v = 0; v < NV; ++v) acc[i][v] = kAccumulate ? V::load(c + i * ldc + v * W) : V::zero();
    int p = 0;
    do {  // k >= 1 (gemm_packed): with a for loop GCC kept acc[][] on the stack around it
      T bv[NV];
      for (int v = 0; v < NV; ++v) bv[v] = V::load(b + p * P + v * W);
      for (int i = 0; i < M; ++i) {
        const T ai = V::set1(a[i * lda + p]);
        for (int v = 0; v < NV; ++v) acc[i][v] = V::fmadd(ai, bv[v], acc[i][v]);
      }
    } while (++p < k);
    for (int i = 0; i < M; ++i)
      for (int v = 0; v < NV; ++v) V::store(c + i * ldc + v * W, acc[i][v]);
  }

  template <int M, int NV>
  static void micro_rows(int mr, bool accumulate, int k, const float* a, int64_t lda,
                         const float* b, float* c, int64_t ldc) {
    if constexpr (M > 0) {
      if (mr == M) {
        if (accumulate) {
          micro<M, NV, true>(k, a, lda, b, c, ldc);
        } else {
          micro<M, NV, false>(k, a, lda, b, c, ldc);
        }
        return;
      }
      micro_rows<M - 1, NV>(mr, accumulate, k, a, lda, b, c, ldc);
    }
  }

  template <int NV>
  static void micro_cols(int nv, int mr, bool accumulate, int k, const float* a, int64_t lda,
                         const float* b, float* c, int64_t ldc) {
    if constexpr (NV > 0) {
      if (nv == NV) {
        micro_rows<V::MR, NV>(mr, accumulate, k, a, lda, b, c, ldc);
        return;
      }
      micro_cols<NV - 1>(nv, mr, accumulate, k, a, lda, b, c, ldc);
    }
  }

  static void gemm_packed(int m, int n, int k, const float* a, int64_t lda, const float* b,
                          float* c, int64_t ldc, bool accumulate) {
    // Panels outer: the k x P panel stays in L1 while every row block uses it.
    for (int j0 = 0, panel = 0; j0 < n; j0 += P, ++panel) {
      const int vectors = (n - j0 + W - 1) / W;
      const int nv = vectors < V::NR ? vectors : V::NR;
      const float* bp = b + int64_t(panel) * k * P;
      for (int i0 = 0; i0 < m; i0 += V::MR) {
        const int mr = m - i0 < V::MR ? m - i0 : V::MR;
        micro_cols<V::NR>(nv, mr, accumulate, k, a + i0 * lda, lda, bp, c + i0 * ldc + j0, ldc);
      }
    }
  }

  // ---- loads and packing ----
  template <DType kD>
  static void load_rows_t(const void* src, int64_t src_stride, int rows, int cols, float scale,
                          float* dst, int64_t ld) {
    const T s = V::set1(scale);
    const int c_vec = cols / W * W;
    for (int r = 0; r < rows; ++r) {
      const int64_t row = r * src_stride;
      for (int c = 0; c < c_vec; c += W) V::store(dst + r * ld + c, V::mul(s, load_as_f32<kD>(src, row + c)));
      for (int c = c_vec; c < cols; ++c) dst[r * ld + c] = scale * scalar_as_f32<kD>(src, row + c);
    }
  }

  static void load_rows(DType dtype, const void* src, int64_t src_stride, int rows, int cols,
                        float scale, float* dst, int64_t ld) {
    switch (dtype) {
      case DType::kF16: return load_rows_t<DType::kF16>(src, src_stride, rows, cols, scale, dst, ld);
      case DType::kBF16: return load_rows_t<DType::kBF16>(src, src_stride, rows, cols, scale, dst, ld);
      default: return load_rows_t<DType::kF32>(src, src_stride, rows, cols, scale, dst, ld);
    }
  }

  template <DType kD>
  static void pack_panels_t(const void* src, int64_t src_stride, int k_rows, int cols,
                            bool transposed, int k, float* dst) {
    if (!transposed) {  // row kk of src -> row kk of every panel
      const int c_vec = cols / W * W;
      for (int kk = 0; kk < k_rows; ++kk) {
        const int64_t row = kk * src_stride;
        for (int c = 0; c < c_vec; c += W)
          V::store(dst + int64_t(c / P) * k * P + kk * P + c % P, load_as_f32<kD>(src, row + c));
        for (int c = c_vec; c < cols; ++c) dst[int64_t(c / P) * k * P + kk * P + c % P] = scalar_as_f32<kD>(src, row + c);
      }
      return;
    }
    // Column c of B is row c of src: widen it, then scatter it down the panel (stride P).
    constexpr int64_t kBytes = kD == DType::kF32 ? 4 : 2;
    int c_done = 0;
    if constexpr (V::kHasTranspose) {  // W columns x W rows at a time, in registers
      const int k_vec = k_rows / W * W;
      for (; c_done + W <= cols; c_done += W) {
        float* out = dst + int64_t(c_done / P) * k * P + c_done % P;  // P is a multiple of W
        for (int kk = 0; kk < k_vec; kk += W) {
          T r[W];
          for (int i = 0; i < W; ++i) r[i] = load_as_f32<kD>(src, (c_done + i) * src_stride + kk);
          V::transpose(r);
          for (int i = 0; i < W; ++i) V::store(out + int64_t(kk + i) * P, r[i]);
        }
        for (int i = 0; i < W; ++i)
          for (int kk = k_vec; kk < k_rows; ++kk) out[kk * P + i] = scalar_as_f32<kD>(src, (c_done + i) * src_stride + kk);
      }
    }
    alignas(64) float row[ATTNSCOPE_CPU_MAX_HEAD_DIM];  // k_rows <= head_dim (binding.gyp define)
    for (int c = c_done; c < cols; ++c) {
      load_rows_t<kD>(static_cast<const char*>(src) + c * src_stride * kBytes, 0, 1, k_rows, 1.f, row, 0);
      float* out = dst + int64_t(c / P) * k * P + c % P;
      for (int kk = 0; kk < k_rows; ++kk) out[kk * P] = row[kk];
    }
  }

  static void pack_panels(DType dtype, const void* src, int64_t src_stride, int k_rows, int cols,
                          bool transposed, int k, float* dst) {
    switch (dtype) {
      case DType::kF16: return pack_panels_t<DType::kF16>(src, src_stride, k_rows, cols, transposed, k, dst);
      case DType::kBF16: return pack_panels_t<DType::kBF16>(src, src_stride, k_rows, cols, transposed, k, dst);
      default: return pack_panels_t<DType::kF32>(src, src_stride, k_rows, cols, transposed, k, dst);
    }
  }

  // ---- online softmax ----
  // Lane i of the result: the sum (kMax: the largest lane) of part[i], for W rows at once.
  // AVX-512: argument 4j + b of reduce16 lands in lane 4b + j, so row 4b + j is passed there.
  template <bool kMax>
  [[gnu::always_inline]] static T reduce_rows(const T (&part)[W]) {
    if constexpr (V::kHasReduce16) {
      if constexpr (kMax) {
        return V::reduce16_max(part[0], part[4], part[8], part[12], part[1], part[5], part[9], part[13],
                               part[2], part[6], part[10], part[14], part[3], part[7], part[11], part[15]);
      } else {
        return V::reduce16(part[0], part[4], part[8], part[12], part[1], part[5], part[9], part[13],
                           part[2], part[6], part[10], part[14], part[3], part[7], part[11], part[15]);
      }
    } else if constexpr (kMax) {
      return V::reduce8_max(part[0], part[1], part[2], part[3], part[4], part[5], part[6], part[7]);
    } else {
      return V::reduce8(part[0], part[1], part[2], part[3], part[4], part[5], part[6], part[7]);
    }
  }

  // softmax_tile on W rows at once (AVX-512: 16 rows, V::reduce16; AVX2: 8 rows, V::reduce8),
  // for n and n_pad multiples of W and scale > 0. The per-row path spends most of a row's time
  // in the latency of its two horizontal reductions and of the scalar alpha and its branch,
  // between which the row's exponentials cannot start; here the W rows' maxima and sums are
  // reduced together (lane i = row i), m, l and alpha are vectors, and the W rows' exp passes
  // are independent of one another. P = exp(scale s - m_new) is one FMA from the raw score
  // (scale > 0, so max(scale s) = scale max(s) exactly; scale = 1 gives exp(s - m_new) as
  // before).
  static void softmax_rows(int n, int n_pad, float scale, float* s, int64_t lds,
                           const int32_t* begin, const int32_t* end, float* m, float* l,
                           float* acc, int64_t ldacc, int d) {
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    const T neg_inf = V::set1(kNegInf);
    T part[W];
    for (int i = 0; i < W; ++i) {
      float* row = s + i * lds;
      const int a = begin[i], z = end[i];
      part[i] = neg_inf;
      if (a >= z) continue;
      const int lo = a / W * W, hv = (z + W - 1) / W * W;  // hv <= n: n is a multiple of W
      for (int j = lo; j < a; ++j) row[j] = kNegInf;
      for (int j = z; j < hv; ++j) row[j] = kNegInf;
      for (int j = lo; j < hv; j += W) part[i] = V::max(part[i], V::load(row + j));
    }
    const T row_max = reduce_rows<true>(part);
    const T m_old = V::load(m);
    const T m_new = V::max(m_old, V::mul(V::set1(scale), row_max));
    const T neg_m = V::sub(V::zero(), m_new);
    const T sv = V::set1(scale);
    for (int i = 0; i < W; ++i) {
      float* row = s + i * lds;
      const int a = begin[i], z = end[i];
      part[i] = V::zero();
      const int lo = a >= z ? n_pad : a / W * W, hv = a >= z ? n_pad : (z + W - 1) / W * W;
      for (int j = 0; j < lo; j += W) V::store(row + j, V::zero());
      const T shift = V::broadcast_lane(neg_m, i);
      for (int j = lo; j < hv; j += W) {  // scale s - m_new <= 0 (or -inf where masked, NaN)
        const T e = V::exp_nonpositive(V::fmadd(V::load(row + j), sv, shift));
        V::store(row + j, e);
        part[i] = V::add(part[i], e);
      }
      for (int j = hv; j < n_pad; j += W) V::store(row + j, V::zero());
    }
    const T total = reduce_rows<false>(part);
    // alpha = exp(m_old - m_new), exactly 1 where the max did not move (also m = -inf on both
    // sides: a row that has seen no key yet).
    const T alpha = V::select_equal(m_old, m_new, V::set1(1.f), V::exp_nonpositive(V::sub(m_old, m_new)));
    V::store(m, m_new);
    V::store(l, V::fmadd(V::load(l), alpha, total));
    const int d_vec = d / W * W;
    float alpha_lanes[W];
    if (d_vec < d) V::store(alpha_lanes, alpha);
    for (unsigned moved = V::lanes_differ(m_old, m_new); moved != 0; moved &= moved - 1) {
      const int i = __builtin_ctz(moved);
      float* out = acc + i * ldacc;
      const T av = V::broadcast_lane(alpha, i);
      for (int x = 0; x < d_vec; x += W) V::store(out + x, V::mul(av, V::load(out + x)));
      for (int x = d_vec; x < d; ++x) out[x] *= alpha_lanes[i];
    }
  }

  // softmax_tile, per row: masks, scale (skipped when it is 1: the fp32 path folds it into
  // Q), max, then P = exp(s - m_new), l and the accumulator's rescale by alpha =
  // exp(m - m_new), computed only when the max moved (alpha = 1 otherwise; after the first key tiles most rows keep
  // their max). A libm expf per row and key tile was 3 % of a 2-thread N = 1k, D = 64 run
  // (perf cpu-clock); a vector exp of 16 rows' alphas cost more, in the store-to-load
  // forwarding stall of reading its lanes back. Only the vectors holding [begin, end) are
  // read and exponentiated; the rest of the row is written 0 (on the causal diagonal, half
  // the row; flash_fwd.cc leaves those columns uncomputed).
  // Rows run W at a time through softmax_rows where V has reduce16 or reduce8 and the shapes
  // allow.
  static void softmax_tile(int rows, int n, int n_pad, float scale, float* s, int64_t lds,
                           const int32_t* begin, const int32_t* end, float* m, float* l,
                           float* acc, int64_t ldacc, int d) {
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    const int n_vec = n / W * W;
    const T sv = V::set1(scale);
    int r = 0;
    if constexpr (V::kHasReduce16 || V::kHasReduce8) {
      if (n % W == 0 && n_pad % W == 0 && scale > 0.f) {
        for (; r + W <= rows; r += W)
          softmax_rows(n, n_pad, scale, s + r * lds, lds, begin + r, end + r, m + r, l + r, acc + r * ldacc, ldacc, d);
      }
    }
    for (; r < rows; ++r) {
      float* row = s + r * lds;
      const int a = begin[r], z = end[r];
      if (a >= z) {
        for (int j = 0; j < n_pad; ++j) row[j] = 0.f;
        continue;
      }
      // Vectors [lo, hv) and scalars [ts, z) (the tail past n_vec) cover [a, z); masked
      // columns among them are set to -inf, whose exp is 0.
      const int lo = a / W * W;
      const int hv = z >= n_vec ? n_vec : (z + W - 1) / W * W;
      const int ts = lo > n_vec ? lo : n_vec;
      for (int j = 0; j < lo; ++j) row[j] = 0.f;
      for (int j = lo; j < a; ++j) row[j] = kNegInf;
      for (int j = z; j < hv; ++j) row[j] = kNegInf;
      T big = V::set1(kNegInf);
      if (scale == 1.f) {
        for (int j = lo; j < hv; j += W) big = V::max(big, V::load(row + j));
      } else {
        for (int j = lo; j < hv; j += W) {
          const T x = V::mul(sv, V::load(row + j));
          V::store(row + j, x);
          big = V::max(big, x);
        }
      }
      float best = V::reduce_max(big);
      for (int j = ts; j < z; ++j) {
        row[j] *= scale;
        best = row[j] > best ? row[j] : best;
      }
      const float m_new = m[r] > best ? m[r] : best;
      const float alpha = m_new == m[r] ? 1.f : __builtin_expf(m[r] - m_new);  // libm: no inline shared across units
      const T shift = V::set1(m_new);
      T sum = V::zero();
      for (int j = lo; j < hv; j += W) {  // s <= m_new: the exponent is <= 0 (or -inf, NaN)
        const T e = V::exp_nonpositive(V::sub(V::load(row + j), shift));
        V::store(row + j, e);
        sum = V::add(sum, e);
      }
      float total = V::reduce_add(sum);
      for (int j = ts; j < z; ++j) {
        row[j] = __builtin_expf(row[j] - m_new);
        total += row[j];
      }
      for (int j = hv > z ? hv : z; j < n_pad; ++j) row[j] = 0.f;
      l[r] = l[r] * alpha + total;
      if (alpha != 1.f) {
        float* out = acc + r * ldacc;
        const T av = V::set1(alpha);
        const int d_vec = d / W * W;
        for (int x = 0; x < d_vec; x += W) V::store(out + x, V::mul(av, V::load(out + x)));
        for (int x = d_vec; x < d; ++x) out[x] *= alpha;
      }
      m[r] = m_new;
    }
  }

  // ---- decode: scores and value accumulation straight from pages ----
  // s[0..G, t0..t0+TT) for TT tokens at once: G x TT independent FMA chains hide the latency.
  template <DType kD, int G, int TT>
  static void scores_block(int t0, int d, const float* q, int64_t ldq, const void* k, int64_t ldk,
                           float* s, int64_t lds) {
    const int d_vec = d / W * W;
    T acc[G][TT];
    for (int g = 0; g < G; ++g)
      for (int u = 0; u < TT; ++u) acc[g][u] = V::zero();
    for (int x = 0; x < d_vec; x += W) {
      T kv[TT];
      for (int u = 0; u < TT; ++u) kv[u] = load_as_f32<kD>(k, (t0 + u) * ldk + x);
      for (int g = 0; g < G; ++g) {
        const T qv = V::load(q + g * ldq + x);
        for (int u = 0; u < TT; ++u) acc[g][u] = V::fmadd(qv, kv[u], acc[g][u]);
      }
    }
    for (int g = 0; g < G; ++g) {
      for (int u = 0; u < TT; ++u) {
        float dot = V::reduce_add(acc[g][u]);
        for (int x = d_vec; x < d; ++x) dot += q[g * ldq + x] * scalar_as_f32<kD>(k, (t0 + u) * ldk + x);
        s[g * lds + t0 + u] = dot;
      }
    }
  }

  // 4 query rows x 4 tokens with the sixteen dot products reduced together (V::reduce16):
  // accumulator a[4j + b] = (row b, token j) lands in lane 4b + j, i.e. row b's four scores
  // are block b of the result.
  template <DType kD>
  static void scores_4x4(int t0, int d, const float* q, int64_t ldq, const void* k, int64_t ldk,
                         float* s, int64_t lds) {
    T a[16];
    for (int i = 0; i < 16; ++i) a[i] = V::zero();
    for (int x = 0; x < d; x += W) {
      T kv[4];
      for (int j = 0; j < 4; ++j) kv[j] = load_as_f32<kD>(k, (t0 + j) * ldk + x);
      for (int b = 0; b < 4; ++b) {
        const T qv = V::load(q + b * ldq + x);
        for (int j = 0; j < 4; ++j) a[4 * j + b] = V::fmadd(qv, kv[j], a[4 * j + b]);
      }
    }
    const T sums = V::reduce16(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15]);
    for (int b = 0; b < 4; ++b) V::store4(s + b * lds + t0, sums, b);
  }

  // 4 query rows x 2 tokens with the eight dot products reduced together (V::reduce8):
  // accumulator a[2b + j] = (row b, token j) lands in lane 2b + j.
  template <DType kD>
  static void scores_4x2(int t0, int d, const float* q, int64_t ldq, const void* k, int64_t ldk,
                         float* s, int64_t lds) {
    T a[8];
    for (int i = 0; i < 8; ++i) a[i] = V::zero();
    for (int x = 0; x < d; x += W) {
      const T k0 = load_as_f32<kD>(k, t0 * ldk + x), k1 = load_as_f32<kD>(k, (t0 + 1) * ldk + x);
      for (int b = 0; b < 4; ++b) {
        const T qv = V::load(q + b * ldq + x);
        a[2 * b] = V::fmadd(qv, k0, a[2 * b]);
        a[2 * b + 1] = V::fmadd(qv, k1, a[2 * b + 1]);
      }
    }
    alignas(64) float sums[8];
    V::store(sums, V::reduce8(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]));
    for (int b = 0; b < 4; ++b) {
      s[b * lds + t0] = sums[2 * b];
      s[b * lds + t0 + 1] = sums[2 * b + 1];
    }
  }

  template <DType kD, int G>
  static void scores_rows(int t, int d, const float* q, int64_t ldq, const void* k, int64_t ldk,
                          float* s, int64_t lds) {
    constexpr int kTT = G >= 4 ? 2 : 4;
    int t0 = 0;
    if constexpr (G == 4 && V::kHasReduce16) {
      if (d % W == 0) {
        for (; t0 + 4 <= t; t0 += 4) scores_4x4<kD>(t0, d, q, ldq, k, ldk, s, lds);
      }
    }
    if constexpr (G == 4 && V::kHasReduce8) {
      if (d % W == 0) {
        for (; t0 + 2 <= t; t0 += 2) scores_4x2<kD>(t0, d, q, ldq, k, ldk, s, lds);
      }
    }
    for (; t0 + kTT <= t; t0 += kTT) scores_block<kD, G, kTT>(t0, d, q, ldq, k, ldk, s, lds);
    for (; t0 < t; ++t0) scores_block<kD, G, 1>(t0, d, q, ldq, k, ldk, s, lds);
  }

  template <DType kD>
  static void scores_t(int g, int t, int d, const float* q, int64_t ldq, const void* k, int64_t ldk,
                       float* s, int64_t lds) {
    int g0 = 0;
    for (; g0 + 4 <= g; g0 += 4) scores_rows<kD, 4>(t, d, q + g0 * ldq, ldq, k, ldk, s + g0 * lds, lds);
    for (; g0 < g; ++g0) scores_rows<kD, 1>(t, d, q + g0 * ldq, ldq, k, ldk, s + g0 * lds, lds);
  }

  static void scores(int g, int t, int d, const float* q, int64_t ldq, DType kv_dtype, const void* k,
                     int64_t ldk, float* s, int64_t lds) {
    switch (kv_dtype) {
      case DType::kF16: return scores_t<DType::kF16>(g, t, d, q, ldq, k, ldk, s, lds);
      case DType::kBF16: return scores_t<DType::kBF16>(g, t, d, q, ldq, k, ldk, s, lds);
      default: return scores_t<DType::kF32>(g, t, d, q, ldq, k, ldk, s, lds);
    }
  }

  // acc[G rows, NV vectors from column x0] += sum_t p[g, t] v[t, x0 ..].
  template <DType kD, int G, int NV>
  static void values_block(int t, const float* p, int64_t ldp, const void* v, int64_t ldv, int x0,
                           float* acc, int64_t ldacc) {
    T a[G][NV];
    for (int g = 0; g < G; ++g)
      for (int j = 0; j < NV; ++j) a[g][j] = V::load(acc + g * ldacc + x0 + j * W);
    for (int ti = 0; ti < t; ++ti) {
      T vv[NV];
      for (int j = 0; j < NV; ++j) vv[j] = load_as_f32<kD>(v, ti * ldv + x0 + j * W);
      for (int g = 0; g < G; ++g) {
        const T w = V::set1(p[g * ldp + ti]);
        for (int j = 0; j < NV; ++j) a[g][j] = V::fmadd(w, vv[j], a[g][j]);
      }
    }
    for (int g = 0; g < G; ++g)
      for (int j = 0; j < NV; ++j) V::store(acc + g * ldacc + x0 + j * W, a[g][j]);
  }

  template <DType kD, int G>
  static void values_rows(int t, int d, const float* p, int64_t ldp, const void* v, int64_t ldv,
                          float* acc, int64_t ldacc) {
    constexpr int kNV = V::NR;
    const int d_vec = d / W * W;
    int x = 0;
    for (; x + kNV * W <= d_vec; x += kNV * W) values_block<kD, G, kNV>(t, p, ldp, v, ldv, x, acc, ldacc);
    for (; x < d_vec; x += W) values_block<kD, G, 1>(t, p, ldp, v, ldv, x, acc, ldacc);
    for (int g = 0; g < G; ++g)
      for (int xs = d_vec; xs < d; ++xs) {
        float sum = acc[g * ldacc + xs];
        for (int ti = 0; ti < t; ++ti) sum += p[g * ldp + ti] * scalar_as_f32<kD>(v, ti * ldv + xs);
        acc[g * ldacc + xs] = sum;
      }
  }

  template <DType kD>
  static void values_t(int g, int t, int d, const float* p, int64_t ldp, const void* v, int64_t ldv,
                       float* acc, int64_t ldacc) {
    constexpr int kG = V::MR >= 4 ? 4 : 2;
    int g0 = 0;
    for (; g0 + kG <= g; g0 += kG) values_rows<kD, kG>(t, d, p + g0 * ldp, ldp, v, ldv, acc + g0 * ldacc, ldacc);
    for (; g0 < g; ++g0) values_rows<kD, 1>(t, d, p + g0 * ldp, ldp, v, ldv, acc + g0 * ldacc, ldacc);
  }

  static void accumulate_values(int g, int t, int d, const float* p, int64_t ldp, DType kv_dtype,
                                const void* v, int64_t ldv, float* acc, int64_t ldacc) {
    switch (kv_dtype) {
      case DType::kF16: return values_t<DType::kF16>(g, t, d, p, ldp, v, ldv, acc, ldacc);
      case DType::kBF16: return values_t<DType::kBF16>(g, t, d, p, ldp, v, ldv, acc, ldacc);
      default: return values_t<DType::kF32>(g, t, d, p, ldp, v, ldv, acc, ldacc);
    }
  }

  static KernelOps table(SimdPath path) {
    return KernelOps{path,         P,      gemm_packed,       pack_panels, load_rows,
                     softmax_tile, scores, accumulate_values, nullptr,     nullptr, nullptr, nullptr};
  }
};

// Cephes expf's core: x = n ln2 + r, |r| <= ln2/2, exp(r) by a degree-6 polynomial (about
// 1 ulp), times 2^n through V::scale_pow2. x must be clamped by the caller to where its
// scale_pow2 is exact (cephes_exp: [-87.34, 88.38]); -inf would give NaN.
template <typename V>
inline typename V::T cephes_exp_reduced(typename V::T xc) {
  using T = typename V::T;
  const T fx = V::round(V::mul(xc, V::set1(1.44269504088896341f)));
  T r = V::fnmadd(fx, V::set1(0.693359375f), xc);
  r = V::fnmadd(fx, V::set1(-2.12194440e-4f), r);
  T y = V::set1(1.9875691500E-4f);
  y = V::fmadd(y, r, V::set1(1.3981999507E-3f));
  y = V::fmadd(y, r, V::set1(8.3334519073E-3f));
  y = V::fmadd(y, r, V::set1(4.1665795894E-2f));
  y = V::fmadd(y, r, V::set1(1.6666665459E-1f));
  y = V::fmadd(y, r, V::set1(5.0000001201E-1f));
  y = V::fmadd(y, V::mul(r, r), V::add(r, V::set1(1.f)));
  return V::scale_pow2(y, fx);
}

// exp(x) for a vector (Cephes expf, cephes_exp_reduced). Inputs below -87.33 (also -inf) give
// exactly 0; NaN stays NaN. V supplies the ISA primitives named below.
template <typename V>
inline typename V::T cephes_exp(typename V::T x) {
  using T = typename V::T;
  const T hi = V::set1(88.3762626647949f), lo = V::set1(-87.3365447505531f);
  const T xc = V::max(V::min(x, hi), lo);
  return V::zero_below(cephes_exp_reduced<V>(xc), x, lo);
}

// What every vector traits type of SimdOps has in common, written once over GCC / Clang vector
// extensions (x86's __m256 and __m512 are such vectors, and convert to and from T implicitly):
// element-wise arithmetic, broadcast, unaligned load / store and exp. Derived (CRTP) adds the
// ISA's intrinsics: fmadd, fnmadd, max, min, round, scale_pow2, zero_below, the reductions and
// the fp16 / bf16 loads.
template <typename Derived, int kLanes>
struct VectorBase {
  typedef float T __attribute__((vector_size(kLanes * sizeof(float))));
  static constexpr int W = kLanes;
  // No optional members (SimdOps's header); Derived redeclares the ones it has as true.
  static constexpr bool kHasReduce16 = false, kHasReduce8 = false, kHasTranspose = false;
  static T zero() { return T{}; }
  // f - (+0) is f for every f, so this folds to one broadcast (from memory: a load-port
  // vbroadcastss, or an FMA's {1to16} operand). `T{} + f` cannot fold (0 + -0 is +0): it cost
  // a vaddss and a register broadcast on an FP pipe per call, 12 extra FP uops per 24 FMAs in
  // the gemm micro-kernel.
  static T set1(float f) { return f - T{}; }
  static T load(const float* p) {
    T x;
    __builtin_memcpy(&x, p, sizeof x);  // one unaligned vector load
    return x;
  }
  static void store(float* p, T x) { __builtin_memcpy(p, &x, sizeof x); }
  static T mul(T a, T b) { return a * b; }
  static T add(T a, T b) { return a + b; }
  static T sub(T a, T b) { return a - b; }
  static T exp(T x) { return cephes_exp<Derived>(x); }
  // exp(x) for x <= 0, -inf or NaN (softmax_tile's s - m_new); an ISA may supply a cheaper one.
  static T exp_nonpositive(T x) { return Derived::exp(x); }
  // exp(x) for x <= 0, -inf or NaN as 2^t, t = max(t_min, x log2(e)): n = round(t), 2^(t - n)
  // by a degree-6 polynomial on [-1/2, 1/2] (fitted for relative error, Lawson's iteration; in
  // fp32 Horner at most 7.9e-8 relative, about 0.7 ulp, checked on 200,001 points against exp2
  // in fp64), times 2^n (Derived::scale_pow2). Rounding t costs |x| 2^-24 relative (6e-7 at
  // x = -10, where P < 5e-5); x = 0, the row's max, gives exactly 1. t_min is where the ISA's
  // scale_pow2 gives exactly 0 (AVX-512's exp_nonpositive, AVX2's say why theirs); NaN stays NaN
  // where Derived::max returns its second operand when one is NaN (x86's vmaxps).
  static T exp2_poly_nonpositive(T x, float t_min) {
    return pow2_poly_nonpositive(mul(x, set1(1.44269504088896341f)), t_min);
  }
  // 2^t for t <= 0, -inf or NaN, with exp2_poly_nonpositive's clamp and polynomial: for callers
  // that fold log2(e) into an FMA of their own (decode's softmax: t = s scale log2(e) - m log2(e)).
  static T pow2_poly_nonpositive(T t, float t_min) {
    t = Derived::max(set1(t_min), t);
    const T n = Derived::round(t);
    const T f = sub(t, n);
    T y = set1(1.5353361959569156e-04f);
    y = Derived::fmadd(y, f, set1(1.3398875016719103e-03f));
    y = Derived::fmadd(y, f, set1(9.6184369176626205e-03f));
    y = Derived::fmadd(y, f, set1(5.5503323674201965e-02f));
    y = Derived::fmadd(y, f, set1(2.4022647738456726e-01f));
    y = Derived::fmadd(y, f, set1(6.9314718246459961e-01f));
    y = Derived::fmadd(y, f, set1(1.f));
    return Derived::scale_pow2(y, n);
  }
};

}  // namespace
}  // namespace attnscope
