// Swizzled [rows][kHeadDim] tiles of 2-byte elements in shared memory and the per-lane
// ldmatrix addressing into them: shared by the flash forward kernel (Q, K, V tiles) and the
// tensor-core paged decode (K and V pages).
#pragma once

#include <stdint.h>

#include "ptx.cuh"

namespace attnscope {
namespace cuda {

// Index (in elements) of (row, 16-byte chunk) of a [rows][kHeadDim] tile, with the chunk XORed
// by row % 8 so that the 8 rows one ldmatrix phase reads hit 8 different bank groups.
template <int kHeadDim>
__device__ __forceinline__ int swizzle(int row, int chunk) {
  return row * kHeadDim + ((chunk ^ (row & 7)) << 3);
}

// One lane's ldmatrix addresses into a swizzled tile, for rows row_lane + (compile-time multiple
// of 8) and chunks 2 * c + chunk_lane (chunk_lane in {0, 1}): as the row's low 3 bits are the
// lane's, swizzle() becomes row_bytes + ((y ^ 2c) << 4) with y = chunk_lane ^ (row_lane & 7),
// one XOR with a constant per address instead of a register per (row, chunk) pair.
template <int kHeadDim>
struct LdmatrixLane {
  uint32_t row_bytes;  // byte offset of the lane's row 0 in the tile
  uint32_t y16;        // (chunk_lane ^ (row_lane & 7)) << 4

  __device__ __forceinline__ LdmatrixLane(int row_lane, int chunk_lane)
      : row_bytes(static_cast<uint32_t>(row_lane * kHeadDim * 2)),
        y16(static_cast<uint32_t>((chunk_lane ^ (row_lane & 7)) << 4)) {}
  // Shared address of (row_lane + row8, 2 * c + chunk_lane) in the tile at `tile` (row8 % 8 == 0).
  __device__ __forceinline__ uint32_t at(uint32_t tile, int row8, int c) const {
    return tile + row_bytes + static_cast<uint32_t>(row8 * kHeadDim * 2) + (y16 ^ static_cast<uint32_t>(c << 5));
  }
};

}  // namespace cuda
}  // namespace attnscope
