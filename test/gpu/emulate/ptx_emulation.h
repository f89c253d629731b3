// CPU emulation of native/cuda/src/ptx.cuh's PTX wrappers (see cuda_emulation.h), written from
// the PTX ISA: "Matrix Fragments for mma.m16n8k16 with floating point type" (g = lane / 4,
// t = lane % 4; A: a0 = (g, 2t..2t+1), a1 = (g+8, 2t..), a2 = (g, 2t+8..), a3 = (g+8, 2t+8..);
// B: b0 = (k 2t..2t+1, n g), b1 = (k 2t+8.., n g); C: c0,c1 = (g, 2t..), c2,c3 = (g+8, 2t..))
// and "ldmatrix" (lanes 8i..8i+7 address the rows of matrix i; lane l receives row l/4,
// elements 2(l%4) and 2(l%4)+1, or with .trans the transposed matrix's).
// Included by ptx.cuh inside namespace attnscope::cuda. cp.async copies land only at the
// cp.async.wait_group that covers their group (cuda_emulation.h, CpAsyncQueue), so a wait
// count one too high leaves a tile unwritten and the comparison with fp64 fails.

#define ATTNSCOPE_DYNAMIC_SMEM(name) unsigned char* name = emu::g_block.dynamic_smem

inline uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(static_cast<const unsigned char*>(p) - emu::g_block.dynamic_smem);
}

inline void cp_async_16(uint32_t dst, const void* src, bool valid) { emu::t_cp_async.issue(dst, src, valid); }
inline void cp_async_commit() { emu::t_cp_async.commit(); }
template <int N>
inline void cp_async_wait() {
  emu::t_cp_async.wait(N);
}

inline float exp2_ftz(float x) { return std::exp2(x); }
inline uint32_t opaque_u32(uint32_t x) { return x; }
// Grids run one after another here: a dependent grid always starts after the primary ended.
inline void grid_dependency_trigger() {}
inline void grid_dependency_wait() {}
inline void st_shared_b32(uint32_t addr, uint32_t v) {
  if (addr % 4 != 0) std::abort();
  std::memcpy(emu::g_block.dynamic_smem + addr, &v, 4);
}
inline uint4 ld_shared_b128(uint32_t addr) {
  if (addr % 16 != 0) std::abort();
  uint4 v;
  std::memcpy(&v, emu::g_block.dynamic_smem + addr, 16);
  return v;
}

inline void emu_ldmatrix_x4(uint32_t (&r)[4], uint32_t addr, bool trans) {
  auto& slots = emu::g_block.slots[emu::warp()];
  const int l = emu::lane();
  if (addr % 16 != 0) std::abort();  // ldmatrix rows are 16-byte aligned
  slots[l][0] = addr;
  emu::warp_sync();
  for (int i = 0; i < 4; ++i) {
    uint16_t e[2];
    for (int j = 0; j < 2; ++j) {
      const int row = trans ? 2 * (l % 4) + j : l / 4;
      const int col = trans ? l / 4 : 2 * (l % 4) + j;
      const uint32_t row_addr = static_cast<uint32_t>(slots[8 * i + row][0]);
      std::memcpy(&e[j], emu::g_block.dynamic_smem + row_addr + 2 * col, 2);
    }
    r[i] = static_cast<uint32_t>(e[0]) | (static_cast<uint32_t>(e[1]) << 16);
  }
  emu::warp_sync();
}
inline void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) { emu_ldmatrix_x4(r, addr, false); }
inline void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr) { emu_ldmatrix_x4(r, addr, true); }

inline double emu_half_bits(uint32_t bits, const __half*) { return __half2float(__half{static_cast<uint16_t>(bits)}); }
inline double emu_half_bits(uint32_t bits, const __nv_bfloat16*) {
  return __bfloat162float(__nv_bfloat16{static_cast<uint16_t>(bits)});
}

template <typename T>
inline void mma_m16n8k16(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  auto& slots = emu::g_block.slots[emu::warp()];
  const int l = emu::lane();
  for (int i = 0; i < 4; ++i) slots[l][i] = a[i];
  slots[l][4] = b0;
  slots[l][5] = b1;
  emu::warp_sync();
  double A[16][16], B[16][8];
  for (int L = 0; L < 32; ++L) {
    const int g = L / 4, t = L % 4;
    for (int h = 0; h < 2; ++h) {
      const auto lo = [&](int slot) { return emu_half_bits((slots[L][slot] >> (16 * h)) & 0xffff, static_cast<const T*>(nullptr)); };
      A[g][2 * t + h] = lo(0);
      A[g + 8][2 * t + h] = lo(1);
      A[g][2 * t + 8 + h] = lo(2);
      A[g + 8][2 * t + 8 + h] = lo(3);
      B[2 * t + h][g] = lo(4);
      B[2 * t + 8 + h][g] = lo(5);
    }
  }
  const int g = l / 4, t = l % 4;
  for (int i = 0; i < 4; ++i) {
    const int row = g + (i >= 2 ? 8 : 0), col = 2 * t + (i & 1);
    double acc = c[i];
    for (int k = 0; k < 16; ++k) acc += A[row][k] * B[k][col];
    c[i] = static_cast<float>(acc);
  }
  emu::warp_sync();
}
