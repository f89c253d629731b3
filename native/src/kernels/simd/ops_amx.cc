// KernelOps for AMX (AMX-TILE + AMX-BF16): the AVX512-BF16 table with gemm_bf16 on tiles
// (TDPBF16PS, amx_gemm.h), used by the flash kernel for bf16 inputs: Q K^T and P V on tiles,
// the online softmax in AVX-512 fp32 between them. Compiled with -mamx-tile -mamx-bf16; only
// called when cpu_features() reports AMX and Linux granted tile data (request_amx_permission).
#include <immintrin.h>

#include "kernels/amx_gemm.h"
#include "kernels/ops.h"

namespace attnscope {
namespace {

// GCC's tile intrinsics paste their tile number into the instruction text (a literal, not a
// constant expression), hence one branch per tile.
struct AmxTiles {
  static void configure() {
    static const TileConfig cfg = full_tiles_config();
    _tile_loadconfig(&cfg);
  }
  static void release() { _tile_release(); }
  template <int I>
  static void zero() {
    static_assert(I >= 0 && I < 4, "C tiles are tmm0-3");
    if constexpr (I == 0) _tile_zero(0);
    else if constexpr (I == 1) _tile_zero(1);
    else if constexpr (I == 2) _tile_zero(2);
    else _tile_zero(3);
  }
  template <int I>
  static void load(const void* base, int64_t stride) {
    static_assert(I >= 0 && I < 8, "eight tiles");
    if constexpr (I == 0) _tile_loadd(0, base, stride);
    else if constexpr (I == 1) _tile_loadd(1, base, stride);
    else if constexpr (I == 2) _tile_loadd(2, base, stride);
    else if constexpr (I == 3) _tile_loadd(3, base, stride);
    else if constexpr (I == 4) _tile_loadd(4, base, stride);
    else if constexpr (I == 5) _tile_loadd(5, base, stride);
    else if constexpr (I == 6) _tile_loadd(6, base, stride);
    else _tile_loadd(7, base, stride);
  }
  template <int I>
  static void store(void* base, int64_t stride) {
    static_assert(I >= 0 && I < 4, "C tiles are tmm0-3");
    if constexpr (I == 0) _tile_stored(0, base, stride);
    else if constexpr (I == 1) _tile_stored(1, base, stride);
    else if constexpr (I == 2) _tile_stored(2, base, stride);
    else _tile_stored(3, base, stride);
  }
  // The four (C, A, B) triples amx_block uses.
  template <int C, int A, int B>
  static void dp() {
    static_assert(A == 4 && ((C == 0 && B == 5) || (C == 1 && B == 6) || (C == 2 && B == 7) || (C == 3 && B == 5)),
                  "amx_block's tile roles");
    if constexpr (C == 0) _tile_dpbf16ps(0, 4, 5);
    else if constexpr (C == 1) _tile_dpbf16ps(1, 4, 6);
    else if constexpr (C == 2) _tile_dpbf16ps(2, 4, 7);
    else _tile_dpbf16ps(3, 4, 5);
  }
};

void amx_tiles_gemm_bf16(int m, int n, int kp, const uint16_t* a, int64_t lda, const uint32_t* b,
                         int64_t ldb, float* c, int64_t ldc, bool accumulate) {
  amx_gemm_bf16<AmxTiles>(m, n, kp, a, lda, b, ldb, c, ldc, accumulate);
}

}  // namespace

const KernelOps& amx_ops() {
  static const KernelOps ops = [] {
    KernelOps table = avx512bf16_ops();
    table.path = SimdPath::kAmx;
    table.gemm_bf16 = amx_tiles_gemm_bf16;
    table.gemm_bf16_rows = 16;
    table.gemm_bf16_k = 32;
    return table;
  }();
  return ops;
}

}  // namespace attnscope
