// Tile operations the attention kernels are built from, one table per SIMD path. The tiled
// drivers in flash_fwd.cc and paged_decode.cc (loop order, masks, online softmax, threads) are shared; only these
// inner loops differ per ISA. Each table lives in a translation unit compiled with its own -m
// flags (kernels/simd/ops_<isa>.cc) and is only called after cpu_features.h said the CPU
// has that ISA. Those units must not instantiate inline templates shared with other units
// (std::vector, std::function, ...): the linker could keep their AVX-512 copy for everyone.
#pragma once

#include <cstdint>

#include "kernels/kernels.h"

namespace attnscope {

// The pages of one KernelOps::decode_pages_bf16 step: page i's K and V rows from k[i] and v[i]
// ([t[i], hkv, d] bf16 bits, rows ldkv apart; rows past t[i] are never read), t[1] = 0 (k[1],
// v[1] unused) for one page. next_k[i], next_v[i] (or null): a later page whose lines are
// requested into L2 beside the loads of the same lines of page i (prefetches never fault).
struct DecodePagesBf16 {
  const uint16_t* k[2];
  const uint16_t* v[2];
  int t[2];
  const uint16_t* next_k[2];
  const uint16_t* next_v[2];
};

// The pieces of one KernelOps::decode_pieces_vnni16 step: up to 4 pieces of 16 slots of a
// KvCacheLayout::kVnni16 pool, piece i's KV head 0 from k[i] and v[i] (heads 16 d elements apart),
// slots [lo[i], hi[i]) of it visible (0 <= lo < hi <= 16; a step of fewer than 4 pieces has hi
// = lo = 0 past them and k, v pointing at piece 0). next_k[i], next_v[i] (or null): a later
// piece whose lines are requested beside the loads of piece i's lines: into L2 (prefetcht1), or
// into L1 (prefetcht0) when into_l1 (paged_decode.cc vnni16_requests_into_l1: AMD family 26,
// which requests the pieces only 4 ahead).
struct DecodePiecesVnni16 {
  const uint16_t* k[4];
  const uint16_t* v[4];
  int lo[4], hi[4];
  const uint16_t* next_k[4];
  const uint16_t* next_v[4];
  bool into_l1;
};

struct KernelOps {
  SimdPath path;

  // Width in floats of one B panel of gemm_packed (the register block's columns, NR vectors).
  int panel_width;

  // c[m, n] = (accumulate ? c[m, n] : 0) + sum_k a[m, k] * B[k, n] with B in panels (pack_panels):
  // every B row the register block reads is one contiguous run of panel_width floats, so the
  // panel streams through L1 with no set conflicts (rows of K^T or V 256 B .. 4 KiB apart
  // alias in L1 and ran the kernel at ~50% of the FMA peak). a: [m, k] row stride lda;
  // b: [ceil(n / P), k, P] (P = panel_width); c: [m, ldc] fp32, ldc >= n rounded up to 16:
  // columns [n, round_up(n, 16)) may be written with the product of B's zero padding.
  void (*gemm_packed)(int m, int n, int k, const float* a, int64_t lda, const float* b, float* c,
                      int64_t ldc, bool accumulate);

  // Writes B[kk, c] for kk < k_rows, c < cols into panels of k rows (dst: [ceil(cols / P), k, P],
  // element (kk, c) at dst[(c / P) k P + kk P + c % P]); other elements of dst keep their values
  // (callers zero the buffer once: that is the padding). transposed: B[kk, c] =
  // float(src[c * src_stride + kk]) (K^T from K rows: src [cols, k_rows]); else
  // float(src[kk * src_stride + c]) (V rows: src [k_rows, cols]).
  void (*pack_panels)(DType dtype, const void* src, int64_t src_stride, int k_rows, int cols,
                      bool transposed, int k, float* dst);

  // dst[r, c] = scale * float(src[r * src_stride + c]) for r < rows, c < cols.
  // src: [rows, cols] of `dtype`, row stride src_stride elements; dst: row stride ld.
  void (*load_rows)(DType dtype, const void* src, int64_t src_stride, int rows, int cols,
                    float scale, float* dst, int64_t ld);

  // One online-softmax step over a tile of scores (FlashAttention-2, Algorithm 1, lines 8-10),
  // row by row: logits = scale * s[r, 0..n); columns outside [begin[r], end[r]) are masked.
  // Updates the running max m[r] and sum l[r] (fp32), rescales acc[r, 0..d) by
  // exp(m_old - m_new) and leaves P = exp(logit - m_new) in s[r, 0..n) (0 where masked) and 0
  // in s[r, n..n_pad). A row with begin >= end keeps its state and gets P = 0.
  // s: [rows, n_pad] stride lds; acc: [rows, d] stride ldacc; begin, end, m, l: [rows].
  void (*softmax_tile)(int rows, int n, int n_pad, float scale, float* s, int64_t lds,
                       const int32_t* begin, const int32_t* end, float* m, float* l, float* acc,
                       int64_t ldacc, int d);

  // s[g, t] = sum_d q[g, d] * k[t, d]: decode scores read straight from a page.
  // q: [g, d] fp32 stride ldq; k: [t, d] of kv dtype, row stride ldk elements; s: stride lds.
  void (*scores)(int g, int t, int d, const float* q, int64_t ldq, DType kv_dtype,
                 const void* k, int64_t ldk, float* s, int64_t lds);

  // acc[g, d] += sum_t p[g, t] * v[t, d]: decode value accumulation straight from a page.
  // p: [g, t] stride ldp; v: [t, d] of kv dtype, row stride ldv; acc: [g, d] stride ldacc.
  void (*accumulate_values)(int g, int t, int d, const float* p, int64_t ldp, DType kv_dtype,
                            const void* v, int64_t ldv, float* acc, int64_t ldacc);

  // bf16 dot-product GEMM with fp32 accumulation (AVX512-BF16 vdpbf16ps, AMX TDPBF16PS, or
  // the AMX tiling on the tile model); null on paths without it. c[m, n] = (accumulate ? c : 0) + sum_{k < 2 kp} A[m, k] B[k, n], where
  // a: [m, 2 kp] bf16 bits, row stride lda (bf16 elements, even);
  // b: pairs [kp, n] of uint32 = (B[2p, j] low half, B[2p + 1, j] high half), row stride ldb.
  void (*gemm_bf16)(int m, int n, int kp, const uint16_t* a, int64_t lda, const uint32_t* b,
                    int64_t ldb, float* c, int64_t ldc, bool accumulate);

  // dst[i] = bf16(src[i]) rounded to nearest even, i < n; null where gemm_bf16 is.
  void (*to_bf16)(const float* src, int n, uint16_t* dst);

  // One decode step over up to two pages of bf16 K and V with vdpbf16ps, fused (null without
  // AVX512-BF16): for each of the hkv KV heads, its g query rows (g a multiple of 4; row r of
  // head hk is row hk g + r of q, m, l and acc) and the pages' tokens (pages.t[0] of page 0,
  // then pages.t[1] of page 1), s[r, j] = scale (q_hi[r] + q_lo[r]) . k[j], then the
  // online-softmax step on m[r], l[r] and acc[r] (FlashAttention-2, Algorithm 1, lines 8-10;
  // m = -inf, l = 0, acc = 0 before the first page) with acc[r] += sum_j bf16(P[r, j]) v[j]: P
  // rounded to bf16 only as the operand of P V, as flash-attn does (relative error <= 2^-9 per
  // weight, so |O - O_exact| <= 2^-9 max_j |v_j| beyond fp32 rounding; l sums the fp32 P), fp32
  // accumulation. d a multiple of 32; q_hi, q_lo: [hkv g, d] bf16 bits, row stride d, q_lo null
  // when q is exactly bf16; pages: see DecodePagesBf16, rows ldkv >= hkv d apart; m, l: [hkv
  // g]; acc: [hkv g, d] stride ldacc in the value order: within each 32 columns, position
  // 16h + 4L + j holds column 8L + 4h + j (V rows are paired by in-lane unpacks, which are
  // cheaper than a cross-lane permute into column order; decode_bf16_columns restores it).
  void (*decode_pages_bf16)(int hkv, int g, int d, float scale, const uint16_t* q_hi,
                            const uint16_t* q_lo, const DecodePagesBf16& pages, int64_t ldkv,
                            float* m, float* l, float* acc, int64_t ldacc);

  // acc[r, 0..d) of decode_pages_bf16 from the value order to column order, r < rows.
  void (*decode_bf16_columns)(int rows, int d, float* acc, int64_t ldacc);

  // One decode step over a page of bf16 or fp16 K and V (kv_dtype) in fp32 arithmetic, fused
  // (null where the path has none; AVX2: halves widened 8 at a time, FMA): for each of the hkv
  // KV heads of the page, its g >= 1 query rows (row r of head hk is row hk g + r of q, m, l
  // and acc) and t tokens, s[r, j] = scale q[r] . k[j], then the online-softmax step on m[r],
  // l[r] and acc[r] (FlashAttention-2, Algorithm 1, lines 8-10; m = -inf, l = 0, acc = 0
  // before the first page) with acc[r] += sum_j P[r, j] v[j], P in fp32. d a multiple of 8;
  // q: [hkv g, d] fp32, row stride d; k, v: the page's [t, hkv, d] halves, row stride ldkv >=
  // hkv d (rows past t are never read); next_k, next_v (or null): the page whose lines are
  // prefetched into L2 beside the loads of the same lines of this one; m, l: [hkv g]; acc:
  // [hkv g, d] stride ldacc, in column order.
  void (*decode_page)(DType kv_dtype, int hkv, int g, int t, int d, float scale, const float* q,
                      const void* k, const void* v, int64_t ldkv, const void* next_k,
                      const void* next_v, float* m, float* l, float* acc, int64_t ldacc) = nullptr;

  // What gemm_bf16 needs of its shapes: m a multiple of gemm_bf16_rows, n a multiple of 16 when
  // gemm_bf16_rows > 1, and the reduced dimension (2 kp bf16) a multiple of gemm_bf16_k. AMX
  // tiles: 16 rows and 32 bf16; vdpbf16ps: any m and pairs.
  int gemm_bf16_rows = 1;
  int gemm_bf16_k = 2;

  // decode_pages_bf16's step over the pieces of a KvCacheLayout::kVnni16 pool (null where the path
  // has none): the same arithmetic, P rounding and arguments, acc in column order, with up to 64
  // tokens per step and tokens in vector lanes: 16 tokens' scores per vdpbf16ps (a K dim pair of
  // 16 tokens times a broadcast q pair), no horizontal sums; P V as a broadcast P pair times two
  // tokens' V values of 16 dims, no unpacking. Slots outside a piece's [lo, hi) are not summed
  // (their V words are zeroed, so stale NaNs there do not leak).
  void (*decode_pieces_vnni16)(int hkv, int g, int d, float scale, const uint16_t* q_hi, const uint16_t* q_lo,
                               const DecodePiecesVnni16& pieces, float* m, float* l, float* acc,
                               int64_t ldacc) = nullptr;
};

const KernelOps& scalar_ops();
#if defined(ATTNSCOPE_X86_PATHS)
const KernelOps& avx2_ops();
const KernelOps& avx512_ops();
const KernelOps& avx512bf16_ops();
const KernelOps& amx_ops();  // avx512bf16 with gemm_bf16 on AMX tiles (simd/ops_amx.cc)
#endif
#if defined(__wasm_simd128__)
const KernelOps& simd128_ops();  // WebAssembly SIMD128 (simd/ops_simd128.cc)
#endif
#if defined(__aarch64__)
const KernelOps& neon_ops();  // AArch64 NEON (simd/ops_neon.cc)
#endif
const KernelOps& amx_model_ops();  // scalar with gemm_bf16 = the AMX tiling on TileModel

/** The table of a supported path (resolve kAuto first). */
const KernelOps& kernel_ops(SimdPath path);

}  // namespace attnscope
