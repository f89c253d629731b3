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
#include "ptx.cuh"

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

// Index (in elements) of (row, 16-byte chunk) of a [rows][kHeadDim] tile, with the chunk XORed
// by row % 8 so that the 8 rows one ldmatrix phase reads hit 8 different bank groups.
template <int kHeadDim>
__device__ __forceinline__ int swizzle(int row, int chunk) {
  return row * kHeadDim + ((chunk ^ (row & 7)) << 3);
}

// Copies rows [row0, row0 + kRows) of a [n_rows, ., row_stride] tensor (head already applied
// to src) into a swizzled tile; rows >= n_rows are zero-filled.
template <typename Traits, int kRows, typename T>
__device__ __forceinline__ void load_tile_async(T* tile, const T* src, int row0, int n_rows, int64_t row_stride) {
  constexpr int kTotal = kRows * Traits::kChunks;
  static_assert(kTotal % Traits::kThreads == 0, "every thread copies the same number of chunks");
#pragma unroll
  for (int i = 0; i < kTotal / Traits::kThreads; ++i) {
    const int idx = threadIdx.x + i * Traits::kThreads;
    const int r = idx / Traits::kChunks, c = idx % Traits::kChunks;
    const bool valid = row0 + r < n_rows;
    const T* g = valid ? src + (row0 + r) * row_stride + c * 8 : src;
    cp_async_16(smem_addr(tile + swizzle<Traits::kHeadDim>(r, c)), g, valid);
  }
}

// Grid: (ceil(N_q / kBlockM), H, B). Block: kThreads. Dynamic shared memory: kSmemBytes.
// q: [B, N_q, H, D], k/v: [B, N_k, H_kv, D], o: [B, N_q, H, D], lse: [B, H, N_q] (may be null).
template <typename Traits, typename T>
__global__ void __launch_bounds__(Traits::kThreads) flash_fwd_kernel(const attnscope_cuda_flash_params p) {
  constexpr int D = Traits::kHeadDim, kBlockM = Traits::kBlockM, kBlockN = Traits::kBlockN;
  constexpr int kMTiles = Traits::kMTiles, kNTilesS = Traits::kNTilesS, kNTilesO = Traits::kNTilesO;
  ATTNSCOPE_DYNAMIC_SMEM(smem_raw);
  T* sQ = reinterpret_cast<T*>(smem_raw);
  T* sK = sQ + Traits::kQElems;          // 2 buffers
  T* sV = sK + 2 * Traits::kKVElems;     // 2 buffers

  const int Nq = p.seqlen_q, Nk = p.seqlen_k, H = p.num_heads, Hkv = p.num_kv_heads;
  const bool causal = p.causal != 0;
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
  const TileSpan span = key_tiles(m0, m1, Nq, Nk, causal, p.window_left, kBlockN);

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

  for (int t = span.first; t < span.last; ++t) {
    const int buf = (t - span.first) & 1;
    const T* sKt = sK + buf * Traits::kKVElems;
    const T* sVt = sV + buf * Traits::kKVElems;
    const bool prefetch = t + 1 < span.last;
    if (prefetch) {  // tile t + 1 into the other buffers, freed by the barrier ending t - 1
      load_tile_async<Traits, kBlockN>(sK + (buf ^ 1) * Traits::kKVElems, k, (t + 1) * kBlockN, Nk, kv_stride);
      cp_async_commit();
      load_tile_async<Traits, kBlockN>(sV + (buf ^ 1) * Traits::kKVElems, v, (t + 1) * kBlockN, Nk, kv_stride);
      cp_async_commit();
      cp_async_wait<3>();  // K_t (and Q) landed; V_t, K_t+1, V_t+1 may be in flight
    } else {
      cp_async_wait<1>();
    }
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
      for (int mt = 0; mt < kMTiles; ++mt) {
        const int r = warp_row0 + mt * 16 + (lane % 16);
        ldmatrix_x4(qa[mt], smem_addr(sQ + swizzle<D>(r, ks * 2 + lane / 16)));
      }
#pragma unroll
      for (int nt2 = 0; nt2 < kNTilesS / 2; ++nt2) {
        uint32_t kb[4];
        const int r = nt2 * 16 + ((lane / 8) / 2) * 8 + (lane % 8);
        ldmatrix_x4(kb, smem_addr(sKt + swizzle<D>(r, ks * 2 + (lane / 8) % 2)));
#pragma unroll
        for (int mt = 0; mt < kMTiles; ++mt) {
          mma_m16n8k16<T>(acc_s[mt][2 * nt2], qa[mt], kb[0], kb[1]);
          mma_m16n8k16<T>(acc_s[mt][2 * nt2 + 1], qa[mt], kb[2], kb[3]);
        }
      }
    }

    // Scale to base-2 units, mask, and fold into the running softmax (FA2 Algorithm 1).
    const int key0 = t * kBlockN;
    const bool full = key_tile_fully_visible(m0, m1, key0, kBlockN, Nq, Nk, causal, p.window_left);
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = m0 + warp_row0 + mt * 16 + lane / 4 + half * 8;
        float tile_max = -INFINITY;
#pragma unroll
        for (int nt = 0; nt < kNTilesS; ++nt) {
#pragma unroll
          for (int j = 0; j < 2; ++j) {
            const int key = key0 + nt * 8 + (lane % 4) * 2 + j;
            float s = acc_s[mt][nt][half * 2 + j] * scale2;
            if (!full && !key_visible(row, key, Nq, Nk, causal, p.window_left)) s = -INFINITY;
            acc_s[mt][nt][half * 2 + j] = s;
            tile_max = fmaxf(tile_max, s);
          }
        }
        tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
        tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
        const float alpha = softmax_update_max(row_state[mt][half], tile_max);
        const float m = row_state[mt][half].m;
        float sum = 0.f;
#pragma unroll
        for (int nt = 0; nt < kNTilesS; ++nt) {
#pragma unroll
          for (int j = 0; j < 2; ++j) {
            const float pw = softmax_weight(acc_s[mt][nt][half * 2 + j], m);
            acc_s[mt][nt][half * 2 + j] = pw;
            sum += pw;
          }
        }
        row_state[mt][half].l += sum;
#pragma unroll
        for (int nt = 0; nt < kNTilesO; ++nt) {
          acc_o[mt][nt][half * 2] *= alpha;
          acc_o[mt][nt][half * 2 + 1] *= alpha;
        }
      }
    }

    if (prefetch) {
      cp_async_wait<2>();  // V_t landed
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();

    // O += P V: two adjacent n8 tiles of S form one k16 A fragment of P.
#pragma unroll
    for (int ks = 0; ks < kBlockN / 16; ++ks) {
      uint32_t pa[kMTiles][4];
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) {
        pa[mt][0] = pack2<T>(acc_s[mt][2 * ks][0], acc_s[mt][2 * ks][1]);
        pa[mt][1] = pack2<T>(acc_s[mt][2 * ks][2], acc_s[mt][2 * ks][3]);
        pa[mt][2] = pack2<T>(acc_s[mt][2 * ks + 1][0], acc_s[mt][2 * ks + 1][1]);
        pa[mt][3] = pack2<T>(acc_s[mt][2 * ks + 1][2], acc_s[mt][2 * ks + 1][3]);
      }
#pragma unroll
      for (int nt2 = 0; nt2 < kNTilesO / 2; ++nt2) {
        uint32_t vb[4];
        const int r = ks * 16 + ((lane / 8) % 2) * 8 + (lane % 8);
        ldmatrix_x4_trans(vb, smem_addr(sVt + swizzle<D>(r, nt2 * 2 + (lane / 8) / 2)));
#pragma unroll
        for (int mt = 0; mt < kMTiles; ++mt) {
          mma_m16n8k16<T>(acc_o[mt][2 * nt2], pa[mt], vb[0], vb[1]);
          mma_m16n8k16<T>(acc_o[mt][2 * nt2 + 1], pa[mt], vb[2], vb[3]);
        }
      }
    }
    __syncthreads();  // this tile's buffers are refilled two iterations on
  }

  // Epilogue: the quad's partial sums make l; O = acc / l; lse = (m + log2 l) ln 2.
#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      SoftmaxState st = row_state[mt][half];
      st.l += __shfl_xor_sync(0xffffffffu, st.l, 1);
      st.l += __shfl_xor_sync(0xffffffffu, st.l, 2);
      const float inv = softmax_inv_sum(st);
      const int row = m0 + warp_row0 + mt * 16 + lane / 4 + half * 8;
      if (row < Nq) {
#pragma unroll
        for (int nt = 0; nt < kNTilesO; ++nt) {
          const int col = nt * 8 + (lane % 4) * 2;
          *reinterpret_cast<uint32_t*>(o + row * q_stride + col) =
              pack2<T>(acc_o[mt][nt][half * 2] * inv, acc_o[mt][nt][half * 2 + 1] * inv);
        }
        if (p.lse != nullptr && lane % 4 == 0) {
          p.lse[(static_cast<int64_t>(b) * H + h) * Nq + row] = softmax_lse(st);
        }
      }
    }
  }
}

}  // namespace cuda
}  // namespace attnscope
