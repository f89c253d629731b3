// TileModel: a scalar model of the AMX tile instructions the flash kernel uses, so that the AMX
// tiling logic (amx_gemm.h) runs, and is tested, on any CPU: the "amx-model" path is the
// portable table with gemm_bf16 = amx_gemm_bf16<TileModel>. Semantics from the Intel SDM
// Vol. 2 pseudo-code (TILELOADD, TILESTORED, TILEZERO, TDPBF16PS) for the palette-1 layout of
// full_tiles_config(): eight tiles of 16 rows x 64 bytes.
#include <cstring>

#include "kernels/amx_gemm.h"
#include "kernels/ops.h"

namespace attnscope {
namespace {

struct TileModel {
  // tmm0..tmm7, 16 rows x 64 bytes each; per thread, as the architectural tile state.
  static thread_local uint8_t tiles[8][16][64];

  static void configure() { std::memset(tiles, 0, sizeof(tiles)); }  // LDTILECFG zeroes every tile
  static void release() {}
  template <int I>
  static void zero() {
    std::memset(tiles[I], 0, sizeof(tiles[I]));
  }
  // TILELOADD: row r from base + r * stride (bytes).
  template <int I>
  static void load(const void* base, int64_t stride) {
    for (int r = 0; r < 16; ++r) std::memcpy(tiles[I][r], static_cast<const uint8_t*>(base) + r * stride, 64);
  }
  template <int I>
  static void store(void* base, int64_t stride) {
    for (int r = 0; r < 16; ++r) std::memcpy(static_cast<uint8_t*>(base) + r * stride, tiles[I][r], 64);
  }
  // TDPBF16PS: C.fp32[m][n] += A.bf16[m][2k] * B.bf16[k][2n] + A.bf16[m][2k+1] * B.bf16[k][2n+1],
  // k over 16 pair-rows, products and sums in fp32 in that order; bf16 inputs and fp32 outputs
  // flushed to zero when denormal (the instruction's DAZ / FTZ), round to nearest even.
  template <int C, int A, int B>
  static void dp() {
    for (int m = 0; m < 16; ++m) {
      float acc[16];
      std::memcpy(acc, tiles[C][m], 64);
      for (int k = 0; k < 16; ++k) {
        uint16_t a[32], b[32];
        std::memcpy(a, tiles[A][m], 64);
        std::memcpy(b, tiles[B][k], 64);
        for (int n = 0; n < 16; ++n) {
          acc[n] = ftz(acc[n] + bf16(a[2 * k]) * bf16(b[2 * n]));
          acc[n] = ftz(acc[n] + bf16(a[2 * k + 1]) * bf16(b[2 * n + 1]));
        }
      }
      std::memcpy(tiles[C][m], acc, 64);
    }
  }

 private:
  static float bf16(uint16_t bits) {
    if ((bits & 0x7f80u) == 0) bits &= 0x8000u;  // DAZ: denormal -> signed zero
    const uint32_t wide = uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &wide, 4);
    return f;
  }
  static float ftz(float x) {
    uint32_t u;
    std::memcpy(&u, &x, 4);
    if ((u & 0x7f800000u) == 0) u &= 0x80000000u;
    std::memcpy(&x, &u, 4);
    return x;
  }
};

thread_local uint8_t TileModel::tiles[8][16][64];

void model_gemm_bf16(int m, int n, int kp, const uint16_t* a, int64_t lda, const uint32_t* b,
                     int64_t ldb, float* c, int64_t ldc, bool accumulate) {
  amx_gemm_bf16<TileModel>(m, n, kp, a, lda, b, ldb, c, ldc, accumulate);
}

void to_bf16_rne(const float* src, int n, uint16_t* dst) {
  for (int i = 0; i < n; ++i) dst[i] = float_to_bf16(src[i]);
}

}  // namespace

const KernelOps& amx_model_ops() {
  static const KernelOps ops = [] {
    KernelOps table = scalar_ops();
    table.path = SimdPath::kAmxModel;
    table.gemm_bf16 = model_gemm_bf16;
    table.gemm_bf16_rows = 16;
    table.gemm_bf16_k = 32;
    table.to_bf16 = to_bf16_rne;
    return table;
  }();
  return ops;
}

}  // namespace attnscope
