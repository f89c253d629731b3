// FlashAttention-2 forward on tensor cores (Dao 2023, "FlashAttention-2: Faster Attention with
// Better Parallelism and Work Partitioning", Algorithm 1 and section 3.3 work split):
// one block per (query tile of kBlockM rows, head, batch); each warp owns kMTiles * 16 query
// rows for the whole key loop, so softmax statistics never leave registers; K/V tiles of
// kBlockN keys stream through double-buffered shared memory with cp.async; S = Q K^T and
// O += P V run on mma.sync m16n8k16 with fp32 accumulation; P stays in registers (the S
// accumulator layout is the A-operand layout of the P V product).
// Masks, the visited key tiles and the softmax update come from attnscope_cuda_math.h.
#pragma once

#include "attnscope_cuda.h"
#include "attnscope_cuda_math.h"
#include "mma_tile.cuh"

namespace attnscope {
namespace cuda {

template <int kHeadDim_, int kBlockM_, int kBlockN_, int kNWarps_>
struct FlashFwdTraits {
  static constexpr int kHeadDim = kHeadDim_;
  static constexpr int kBlockM = kBlockM_;
  static constexpr int kBlockN = kBlockN_;
  static constexpr int kNWarps = kNWarps_;
  static constexpr int kThreads = kNWarps * 32;
  static constexpr int kMTiles = kBlockM / (16 * kNWarps);  // 16-row MMA tiles per warp
  static constexpr int kNTilesS = kBlockN / 8;              // n8 tiles of a warp's S rows
  static constexpr int kNTilesO = kHeadDim / 8;             // n8 tiles of a warp's O rows
  static constexpr int kChunks = kHeadDim / 8;              // 16-byte chunks per row
  // Shared memory: Q tile, then 2 K buffers, then 2 V buffers (elements of 2 bytes).
  static constexpr int kQElems = kBlockM * kHeadDim;
  static constexpr int kKVElems = kBlockN * kHeadDim;
  static constexpr int kSmemBytes = (kQElems + 4 * kKVElems) * 2;
  static_assert(kBlockM % (16 * kNWarps) == 0, "each warp owns whole 16-row MMA tiles");
  static_assert(kBlockN % 16 == 0, "P V consumes keys 16 at a time");
  static_assert(kHeadDim % 64 == 0, "the XOR swizzle needs >= 8 chunks of 16 bytes per row");
  static_assert(kNTilesS % 2 == 0 && kNTilesO % 2 == 0, "ldmatrix.x4 loads two n8 tiles");
};

// Copies rows [row0, row0 + kRows) of a [n_rows, ., row_stride] tensor (head already applied
// to src) into a swizzled tile; rows >= n_rows are zero-filled. Thread i copies chunk
// i % kChunks of rows i / kChunks + j * kRowsPerPass: one 64-bit pointer walks them. row0 goes
// through opaque_u32() so that the compiler does not keep every chunk's pointer of every tile
// as its own induction variable across the key loop (32 registers at head_dim 128).
template <typename Traits, int kRows, typename T>
__device__ __forceinline__ void load_tile_async(T* tile, const T* src, int row0, int n_rows, int64_t row_stride) {
  constexpr int kRowsPerPass = Traits::kThreads / Traits::kChunks;
  static_assert(Traits::kThreads % Traits::kChunks == 0 && kRows % kRowsPerPass == 0,
                "every thread copies the same number of chunks");
  const int r = threadIdx.x / Traits::kChunks, c = threadIdx.x % Traits::kChunks;
  const int row = static_cast<int>(opaque_u32(static_cast<uint32_t>(row0))) + r;
  const T* g = src + row * row_stride + c * 8;
  const uint32_t s = smem_addr(tile + swizzle<Traits::kHeadDim>(r, c));  // r % 8 is the same for every pass
#pragma unroll
  for (int j = 0; j < kRows / kRowsPerPass; ++j) {
    const bool valid = row + j * kRowsPerPass < n_rows;
    cp_async_16(s + j * kRowsPerPass * Traits::kHeadDim * 2, valid ? g : src, valid);
    g += kRowsPerPass * row_stride;
  }
}

// Which masks a kernel instance applies, fixed at compile time so that tiles every row sees in
// full run without any mask arithmetic (only the tiles key_tile_fully_visible() rejects do).
enum class MaskKind {
  kNone,    // no causal mask, no window: only keys >= N_k (the last tile's padding) are masked
  kCausal,  // causal (bottom-right), no window
  kLocal,   // window_left >= 0, causal or not
};

// The mask kind of a params struct.
inline MaskKind flash_mask_kind(const attnscope_cuda_flash_params& p) {
  return p.window_left >= 0 ? MaskKind::kLocal : p.causal != 0 ? MaskKind::kCausal : MaskKind::kNone;
}

// Scores of one key tile (acc_s, raw q.k) -> unnormalised probabilities 2^(s * scale2 - m),
// with the running state and the O accumulator rescaled (FA2 Algorithm 1, base 2). The scale
// is folded into the exponent's FMA: the max is taken over raw scores, which needs scale2 > 0
// (the API checks softmax_scale > 0). kMasked: the tile needs per-element masking; row0 is the
// query row of this thread's first fragment row.
template <typename Traits, MaskKind kMask, bool kMasked>
__device__ __forceinline__ void softmax_tile(float (&acc_s)[Traits::kMTiles][Traits::kNTilesS][4],
                                             float (&acc_o)[Traits::kMTiles][Traits::kNTilesO][4],
                                             SoftmaxState (&row_state)[Traits::kMTiles][2], int row0, int key0,
                                             int n_q, int n_k, bool causal, int window_left, float scale2) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int mt = 0; mt < Traits::kMTiles; ++mt) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      float tile_max = -INFINITY;
      // The row's visible keys relative to this lane's first column, so each element compares
      // a constant (nt * 8 + j); computed per tile (opaque_u32) rather than kept for the loop.
      int lo = 0, hi = 0;
      if (kMasked) {
        KeyRange visible{0, n_k};
        if (kMask != MaskKind::kNone) {
          visible = visible_keys(row0 + mt * 16 + half * 8, n_q, n_k, kMask == MaskKind::kCausal || causal,
                                 kMask == MaskKind::kLocal ? window_left : -1);
        }
        const int col0 = static_cast<int>(opaque_u32(static_cast<uint32_t>(key0))) + (lane % 4) * 2;
        lo = visible.begin - col0;
        hi = visible.end - col0;
      }
#pragma unroll
      for (int nt = 0; nt < Traits::kNTilesS; ++nt) {
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          float& s = acc_s[mt][nt][half * 2 + j];
          if (kMasked && (nt * 8 + j < lo || nt * 8 + j >= hi)) s = -INFINITY;
          tile_max = fmaxf(tile_max, s);
        }
      }
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
      const float alpha = softmax_update_max(row_state[mt][half], tile_max * scale2);
      // A row that has seen nothing has m = -inf and only -inf scores: 2^(-inf - 0) = 0.
      const float m = row_state[mt][half].m == -INFINITY ? 0.f : row_state[mt][half].m;
      float sum = 0.f;
#pragma unroll
      for (int nt = 0; nt < Traits::kNTilesS; ++nt) {
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          float& s = acc_s[mt][nt][half * 2 + j];
          s = exp2_ftz(fmaf(s, scale2, -m));
          sum += s;
        }
      }
      row_state[mt][half].l += sum;
#pragma unroll
      for (int nt = 0; nt < Traits::kNTilesO; ++nt) {
        acc_o[mt][nt][half * 2] *= alpha;
        acc_o[mt][nt][half * 2 + 1] *= alpha;
      }
    }
  }
}

// Grid: flash_fwd_grid(). Block: kThreads. Dynamic shared memory: kSmemBytes.
// q: [B, N_q, H, D], k/v: [B, N_k, H_kv, D], o: [B, N_q, H, D], lse: [B, H, N_q] (may be null).
// kMask must be flash_mask_kind(p).
template <typename Traits, typename T, MaskKind kMask>
__global__ void __launch_bounds__(Traits::kThreads) flash_fwd_kernel(const attnscope_cuda_flash_params p) {
  constexpr int D = Traits::kHeadDim, kBlockM = Traits::kBlockM, kBlockN = Traits::kBlockN;
  constexpr int kMTiles = Traits::kMTiles, kNTilesS = Traits::kNTilesS, kNTilesO = Traits::kNTilesO;
  ATTNSCOPE_DYNAMIC_SMEM(smem_raw);
  T* sQ = reinterpret_cast<T*>(smem_raw);
  T* sK = sQ + Traits::kQElems;          // 2 buffers
  T* sV = sK + 2 * Traits::kKVElems;     // 2 buffers

  const int Nq = p.seq_len_q, Nk = p.seq_len_k, H = p.num_heads, Hkv = p.num_kv_heads;
  const bool causal = kMask == MaskKind::kCausal || (kMask == MaskKind::kLocal && p.causal != 0);
  const int window_left = kMask == MaskKind::kLocal ? p.window_left : -1;
  // Causal tiles near the bottom do the most work: launch them first.
  const int m_block = causal ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
  const int h = blockIdx.y, b = blockIdx.z;
  const int hk = h / (H / Hkv);
  const int m0 = m_block * kBlockM, m1 = min_int(m0 + kBlockM, Nq);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  const T* q = static_cast<const T*>(p.q) + (static_cast<int64_t>(b) * Nq * H + h) * D;
  const T* k = static_cast<const T*>(p.k) + (static_cast<int64_t>(b) * Nk * Hkv + hk) * D;
  const T* v = static_cast<const T*>(p.v) + (static_cast<int64_t>(b) * Nk * Hkv + hk) * D;
  T* o = static_cast<T*>(p.o) + (static_cast<int64_t>(b) * Nq * H + h) * D;
  const int64_t q_stride = static_cast<int64_t>(H) * D, kv_stride = static_cast<int64_t>(Hkv) * D;

  // Rows of this thread: warp_row0 + mt * 16 + lane / 4 + 8 * half, half in {0, 1}.
  const int warp_row0 = warp * kMTiles * 16;
  const TileSpan span = key_tiles(m0, m1, Nq, Nk, causal, window_left, kBlockN);

  if (span.first >= span.last) {  // every row fully masked: O = 0, lse = -inf
    for (int idx = threadIdx.x; idx < (m1 - m0) * D; idx += Traits::kThreads) {
      o[(m0 + idx / D) * q_stride + idx % D] = from_float<T>(0.f);
    }
    if (p.lse != nullptr) {
      for (int r = m0 + threadIdx.x; r < m1; r += Traits::kThreads) {
        p.lse[(static_cast<int64_t>(b) * H + h) * Nq + r] = -INFINITY;
      }
    }
    return;
  }

  load_tile_async<Traits, kBlockM>(sQ, q, m0, Nq, q_stride);
  load_tile_async<Traits, kBlockN>(sK, k, span.first * kBlockN, Nk, kv_stride);
  cp_async_commit();
  load_tile_async<Traits, kBlockN>(sV, v, span.first * kBlockN, Nk, kv_stride);
  cp_async_commit();

  const float scale2 = p.softmax_scale * kLog2e;
  float acc_o[kMTiles][kNTilesO][4];
  SoftmaxState row_state[kMTiles][2];  // l is this thread's partial sum over its columns
#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
    for (int nt = 0; nt < kNTilesO; ++nt) {
#pragma unroll
      for (int i = 0; i < 4; ++i) acc_o[mt][nt][i] = 0.f;
    }
    row_state[mt][0] = softmax_init();
    row_state[mt][1] = softmax_init();
  }

  // ldmatrix lanes (PTX ISA, ldmatrix: lanes 8i..8i+7 address the rows of matrix i).
  // Q (A operand, 16x16): matrices (rows 0-7 | 8-15) x (k 0-7 | 8-15), row-major order.
  const LdmatrixLane<D> q_lane(warp_row0 + lane % 16, lane / 16);
  // K (B operand of two n8 tiles): (keys 0-7, k 0-7), (keys 0-7, k 8-15), then keys 8-15.
  const LdmatrixLane<D> k_lane(((lane / 8) / 2) * 8 + lane % 8, (lane / 8) % 2);
  // V transposed (B operand of two n8 tiles): (keys 0-7 | 8-15) x (d 0-7), then d 8-15.
  const LdmatrixLane<D> v_lane(((lane / 8) % 2) * 8 + lane % 8, (lane / 8) / 2);
  const uint32_t sQ_addr = smem_addr(sQ);

  for (int t = span.first; t < span.last; ++t) {
    const int buf = (t - span.first) & 1;
    const uint32_t sK_addr = smem_addr(sK) + buf * Traits::kKVElems * 2;
    const uint32_t sV_addr = smem_addr(sV) + buf * Traits::kKVElems * 2;
    // Tile t + 1 into the other buffers, freed by the barrier ending t - 1. The last tile
    // commits two empty groups, so the wait counts below hold for every tile.
    if (t + 1 < span.last) {
      load_tile_async<Traits, kBlockN>(sK + (buf ^ 1) * Traits::kKVElems, k, (t + 1) * kBlockN, Nk, kv_stride);
    }
    cp_async_commit();
    if (t + 1 < span.last) {
      load_tile_async<Traits, kBlockN>(sV + (buf ^ 1) * Traits::kKVElems, v, (t + 1) * kBlockN, Nk, kv_stride);
    }
    cp_async_commit();
    cp_async_wait<3>();  // K_t (and Q) landed; V_t, K_t+1, V_t+1 may be in flight
    __syncthreads();

    // S = Q K^T for this warp's rows.
    float acc_s[kMTiles][kNTilesS][4];
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
      for (int nt = 0; nt < kNTilesS; ++nt) {
#pragma unroll
        for (int i = 0; i < 4; ++i) acc_s[mt][nt][i] = 0.f;
      }
    }
#pragma unroll
    for (int ks = 0; ks < D / 16; ++ks) {
      uint32_t qa[kMTiles][4];
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) ldmatrix_x4(qa[mt], q_lane.at(sQ_addr, mt * 16, ks));
#pragma unroll
      for (int nt2 = 0; nt2 < kNTilesS / 2; ++nt2) {
        uint32_t kb[4];
        ldmatrix_x4(kb, k_lane.at(sK_addr, nt2 * 16, ks));
#pragma unroll
        for (int mt = 0; mt < kMTiles; ++mt) {
          mma_m16n8k16<T>(acc_s[mt][2 * nt2], qa[mt], kb[0], kb[1]);
          mma_m16n8k16<T>(acc_s[mt][2 * nt2 + 1], qa[mt], kb[2], kb[3]);
        }
      }
    }

    // Mask (only where a row misses a key of the tile) and fold into the running softmax.
    const int key0 = t * kBlockN;
    const int row0 = m0 + warp_row0 + lane / 4;
    if (key_tile_fully_visible(m0, m1, key0, kBlockN, Nq, Nk, causal, window_left)) {
      softmax_tile<Traits, kMask, false>(acc_s, acc_o, row_state, row0, key0, Nq, Nk, causal, window_left, scale2);
    } else {
      softmax_tile<Traits, kMask, true>(acc_s, acc_o, row_state, row0, key0, Nq, Nk, causal, window_left, scale2);
    }

    // P in T before the wait (half the registers of fp32 S): two adjacent n8 tiles of S form
    // one k16 A fragment of P.
    uint32_t pa[kBlockN / 16][kMTiles][4];
#pragma unroll
    for (int ks = 0; ks < kBlockN / 16; ++ks) {
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) {
        pa[ks][mt][0] = pack2<T>(acc_s[mt][2 * ks][0], acc_s[mt][2 * ks][1]);
        pa[ks][mt][1] = pack2<T>(acc_s[mt][2 * ks][2], acc_s[mt][2 * ks][3]);
        pa[ks][mt][2] = pack2<T>(acc_s[mt][2 * ks + 1][0], acc_s[mt][2 * ks + 1][1]);
        pa[ks][mt][3] = pack2<T>(acc_s[mt][2 * ks + 1][2], acc_s[mt][2 * ks + 1][3]);
      }
    }

    cp_async_wait<2>();  // V_t landed; K_t+1, V_t+1 may be in flight
    __syncthreads();

    // O += P V.
#pragma unroll
    for (int ks = 0; ks < kBlockN / 16; ++ks) {
#pragma unroll
      for (int nt2 = 0; nt2 < kNTilesO / 2; ++nt2) {
        uint32_t vb[4];
        ldmatrix_x4_trans(vb, v_lane.at(sV_addr, ks * 16, nt2));
#pragma unroll
        for (int mt = 0; mt < kMTiles; ++mt) {
          mma_m16n8k16<T>(acc_o[mt][2 * nt2], pa[ks][mt], vb[0], vb[1]);
          mma_m16n8k16<T>(acc_o[mt][2 * nt2 + 1], pa[ks][mt], vb[2], vb[3]);
        }
      }
    }
    __syncthreads();  // this tile's buffers are refilled two iterations on
  }

  // Epilogue: the quad's partial sums make l; O = acc / l goes through this warp's own rows of
  // the Q tile (no other warp reads them) so that global stores are whole 16-byte chunks;
  // lse = (m + log2 l) ln 2.
#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      SoftmaxState st = row_state[mt][half];
      st.l += __shfl_xor_sync(0xffffffffu, st.l, 1);
      st.l += __shfl_xor_sync(0xffffffffu, st.l, 2);
      const float inv = softmax_inv_sum(st);
      const int r = warp_row0 + mt * 16 + lane / 4 + half * 8;
#pragma unroll
      for (int nt = 0; nt < kNTilesO; ++nt) {
        st_shared_b32(smem_addr(sQ + swizzle<D>(r, nt) + (lane % 4) * 2),
                      pack2<T>(acc_o[mt][nt][half * 2] * inv, acc_o[mt][nt][half * 2 + 1] * inv));
      }
      if (p.lse != nullptr && lane % 4 == 0 && m0 + r < Nq) {
        p.lse[(static_cast<int64_t>(b) * H + h) * Nq + m0 + r] = softmax_lse(st);
      }
    }
  }
  __syncwarp();
  constexpr int kWarpChunks = kMTiles * 16 * Traits::kChunks;
#pragma unroll
  for (int i = 0; i < kWarpChunks / 32; ++i) {
    const int idx = lane + 32 * i;
    const int r = warp_row0 + idx / Traits::kChunks, c = idx % Traits::kChunks;
    if (m0 + r < Nq) {
      *reinterpret_cast<uint4*>(o + (m0 + r) * q_stride + c * 8) = ld_shared_b128(smem_addr(sQ + swizzle<D>(r, c)));
    }
  }
}

}  // namespace cuda
}  // namespace attnscope
