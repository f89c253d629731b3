// The AMX bf16 GEMM of the flash kernel (KernelOps::gemm_bf16 on the amx path), written once
// over a tile backend so that the same tiling logic runs on real tiles (simd/ops_amx.cc, built
// with -mamx-tile -mamx-bf16) and on TileModel, a scalar model of the tile instructions
// (amx_model.cc), which the tests run on any CPU. Plain C++17, no intrinsics here.
//
// A backend T provides, with tile numbers as template arguments (AMX encodes them in the
// instruction): configure() (LDTILECFG of full_tiles_config()), release() (TILERELEASE),
// zero<C>() (TILEZERO), load<I>(ptr, stride_bytes) (TILELOADD: 16 rows of 64 bytes),
// store<I>(ptr, stride_bytes) (TILESTORED), dp<C, A, B>() (TDPBF16PS).
#pragma once

#include <cstdint>
#include <cstring>

namespace attnscope {

/** LDTILECFG operand (Intel SDM Vol. 1, 18.2.2): palette 1, per-tile bytes per row and rows. */
struct alignas(64) TileConfig {
  uint8_t palette_id;
  uint8_t start_row;
  uint8_t reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
};
static_assert(sizeof(TileConfig) == 64, "LDTILECFG reads exactly 64 bytes");

/** Palette 1 with all eight tiles 16 rows x 64 bytes (the GEMM below and the AMX peak loop). */
inline TileConfig full_tiles_config() {
  TileConfig cfg;
  std::memset(&cfg, 0, sizeof(cfg));
  cfg.palette_id = 1;
  for (int t = 0; t < 8; ++t) {
    cfg.colsb[t] = 64;
    cfg.rows[t] = 16;
  }
  return cfg;
}

namespace {

// Tile roles: tmm0-3 C (16 rows x 16 fp32), tmm4 A (16 rows x 32 bf16), tmm5-7 B (16 rows of
// 16 bf16 pairs: the VNNI layout TDPBF16PS reads). One A tile feeds up to four B / C pairs.
template <class T, int NB>
void amx_block(int kp, const uint16_t* a, int64_t lda, const uint32_t* b, int64_t ldb, float* c,
               int64_t ldc, bool accumulate) {
  static_assert(NB >= 1 && NB <= 4, "four C tiles");
  const int64_t sc = ldc * 4, sa = lda * 2, sb = ldb * 4;  // strides in bytes
  if (accumulate) {
    T::template load<0>(c, sc);
    if constexpr (NB > 1) T::template load<1>(c + 16, sc);
    if constexpr (NB > 2) T::template load<2>(c + 32, sc);
    if constexpr (NB > 3) T::template load<3>(c + 48, sc);
  } else {
    T::template zero<0>();
    if constexpr (NB > 1) T::template zero<1>();
    if constexpr (NB > 2) T::template zero<2>();
    if constexpr (NB > 3) T::template zero<3>();
  }
  for (int p0 = 0; p0 < kp; p0 += 16) {  // 16 pairs = 32 bf16 of the reduced dimension
    T::template load<4>(a + 2 * p0, sa);
    const uint32_t* bp = b + int64_t(p0) * ldb;
    T::template load<5>(bp, sb);
    T::template dp<0, 4, 5>();
    if constexpr (NB > 1) {
      T::template load<6>(bp + 16, sb);
      T::template dp<1, 4, 6>();
    }
    if constexpr (NB > 2) {
      T::template load<7>(bp + 32, sb);
      T::template dp<2, 4, 7>();
    }
    if constexpr (NB > 3) {
      T::template load<5>(bp + 48, sb);
      T::template dp<3, 4, 5>();
    }
  }
  T::template store<0>(c, sc);
  if constexpr (NB > 1) T::template store<1>(c + 16, sc);
  if constexpr (NB > 2) T::template store<2>(c + 32, sc);
  if constexpr (NB > 3) T::template store<3>(c + 48, sc);
}

/**
 * KernelOps::gemm_bf16 on tiles: c[m, n] = (accumulate ? c : 0) + sum_{k < 2 kp} A[m, k] B[k, n]
 * with fp32 accumulation. a: [m, 2 kp] bf16 bits, row stride lda elements; b: pairs [kp, n] of
 * uint32 (B[2p, j] low half, B[2p + 1, j] high half), row stride ldb; c: [m, n] fp32, stride ldc.
 * Needs m, n and kp multiples of 16 (the caller pads; KernelOps::gemm_bf16_rows / _k say so).
 */
template <class T>
void amx_gemm_bf16(int m, int n, int kp, const uint16_t* a, int64_t lda, const uint32_t* b,
                   int64_t ldb, float* c, int64_t ldc, bool accumulate) {
  T::configure();
  for (int i0 = 0; i0 < m; i0 += 16) {
    for (int j0 = 0; j0 < n; j0 += 64) {
      const uint16_t* ai = a + int64_t(i0) * lda;
      float* ci = c + int64_t(i0) * ldc + j0;
      switch ((n - j0) / 16) {
        case 1: amx_block<T, 1>(kp, ai, lda, b + j0, ldb, ci, ldc, accumulate); break;
        case 2: amx_block<T, 2>(kp, ai, lda, b + j0, ldb, ci, ldc, accumulate); break;
        case 3: amx_block<T, 3>(kp, ai, lda, b + j0, ldb, ci, ldc, accumulate); break;
        default: amx_block<T, 4>(kp, ai, lda, b + j0, ldb, ci, ldc, accumulate); break;
      }
    }
  }
  T::release();
}

}  // namespace
}  // namespace attnscope
