// PagedAttention decode on tensor cores for wide GQA groups: the group's query heads are the 16
// M rows of mma.sync m16n8k16 (heads past the group are zero rows, never stored), the keys of
// the K/V pages its N (S = Q K^T) and K (O += P V) dimensions. Same split-K shape, page-window
// staging, output and merge kernel as paged_decode_kernel (paged_decode.cuh), whose CUDA-core
// path keeps the small groups (dispatch rule: paged_decode_launch.cuh).
// One block per (partition, KV head x chunk of 16 query heads, sequence), 4 warps. A block step
// is 4 x 16 tokens; warp w takes tokens [16 w, 16 w + 16) of each step with its own
// online-softmax state (FlashDecoding's split-K, inside the block), so a warp reads only the
// K/V rows it copied itself: a __syncwarp(), not a block barrier, separates copy from use.
// K/V rows go through a 2-stage cp.async pipeline into XOR-swizzled tiles read by ldmatrix
// (mma_tile.cuh, as the flash kernel's); the warps merge through shared memory at the end.
#pragma once

#include "mma_tile.cuh"
#include "paged_decode.cuh"

namespace attnscope {
namespace cuda {

constexpr int kDecodeMmaRows = 16;      // query heads per block: the MMA's M
constexpr int kDecodeMmaWarpKeys = 16;  // keys per warp per step: one k16 of P V, two n8 tiles of S

// Dynamic shared memory of paged_decode_mma_kernel<D>: two pipeline stages of K and V
// [kStepTokens][D] (after the loop the same bytes hold the warps' partial outputs
// [warps][16][D] fp32), the page windows, the warps' (m, l) per row.
template <int D>
struct DecodeMmaSmem {
  static constexpr int kWarps = kDecodeThreads / 32;
  static constexpr int kStepTokens = kWarps * kDecodeMmaWarpKeys;
  static constexpr int kStageElems = kStepTokens * D;            // one of K or V, one stage
  static constexpr int kWarpTileBytes = kDecodeMmaWarpKeys * D * 2;
  static constexpr int kStagesBytes = 2 * 2 * kStageElems * 2;   // {K, V} x 2 stages x 2 bytes
  static constexpr int kAccBytes = kWarps * kDecodeMmaRows * D * 4;
  static constexpr int kPagesOffset = kStagesBytes > kAccBytes ? kStagesBytes : kAccBytes;
  static constexpr int kStatsOffset = kPagesOffset + DecodePageWindows<kStepTokens>::kBytes;
  static constexpr int kBytes = kStatsOffset + 2 * kWarps * kDecodeMmaRows * 4;
  static_assert(D % 64 == 0, "the XOR swizzle needs >= 8 chunks of 16 bytes per row");
  static_assert(kDecodeThreads % 32 == 0, "whole warps");
};

// The keys of one warp tile it may not fully see (the partition's end inside the tile) get
// score -inf; then the tile folds into the running softmax of the thread's two rows (g, g + 8),
// as the flash kernel's softmax_tile (FA2 Algorithm 1, base 2, the scale in exp2's FMA;
// scale2 > 0, which the API checks). valid_keys: keys of the tile inside the partition.
template <int D, bool kMasked>
__device__ __forceinline__ void decode_mma_softmax(float (&acc_s)[2][4], float (&acc_o)[D / 8][4],
                                                   SoftmaxState (&st)[2], int valid_keys, float scale2) {
  const int col0 = 2 * (threadIdx.x % 4);
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    float tile_max = -INFINITY;
#pragma unroll
    for (int nt = 0; nt < 2; ++nt) {
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        float& s = acc_s[nt][half * 2 + j];
        if (kMasked && nt * 8 + col0 + j >= valid_keys) s = -INFINITY;
        tile_max = fmaxf(tile_max, s);
      }
    }
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
    const float alpha = softmax_update_max(st[half], tile_max * scale2);
    const float m = st[half].m == -INFINITY ? 0.f : st[half].m;  // nothing seen: every weight 0
    float sum = 0.f;
#pragma unroll
    for (int nt = 0; nt < 2; ++nt) {
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        float& s = acc_s[nt][half * 2 + j];
        s = exp2_ftz(fmaf(s, scale2, -m));
        sum += s;
      }
    }
    st[half].l += sum;
#pragma unroll
    for (int nt = 0; nt < D / 8; ++nt) {
      acc_o[nt][half * 2] *= alpha;
      acc_o[nt][half * 2 + 1] *= alpha;
    }
  }
}

// Grid: (num_splits, H_kv * head_chunks, B), head_chunks = ceil(group / 16). Block:
// kDecodeThreads. Dynamic shared memory: DecodeMmaSmem<D>::kBytes (over 48 KiB at head_dim
// 128: launched with the opt-in). Arguments and outputs as paged_decode_kernel's.
template <int D, typename T>
__global__ void __launch_bounds__(kDecodeThreads)
    paged_decode_mma_kernel(const attnscope_cuda_decode_params p, int num_splits, int partition_tokens,
                            int head_chunks) {
  using Smem = DecodeMmaSmem<D>;
  constexpr int kWarps = Smem::kWarps, kStepTokens = Smem::kStepTokens, kRows = kDecodeMmaRows;
  constexpr int kNTilesO = D / 8;
  ATTNSCOPE_DYNAMIC_SMEM(smem_raw);
  // sK [2][kStepTokens][D] then sV [2][kStepTokens][D], each warp's 16 rows a swizzled tile.
  T* sK = reinterpret_cast<T*>(smem_raw);
  float* s_acc = reinterpret_cast<float*>(smem_raw);        // [kWarps][kRows][D], after the loop
  int32_t* s_pages = reinterpret_cast<int32_t*>(smem_raw + Smem::kPagesOffset);  // DecodePageWindows
  float* s_m = reinterpret_cast<float*>(smem_raw + Smem::kStatsOffset);         // [kWarps][kRows]
  float* s_l = s_m + kWarps * kRows;

  const int split = blockIdx.x, b = blockIdx.z;
  const int hk = blockIdx.y / head_chunks, chunk = blockIdx.y % head_chunks;
  const int H = p.num_heads, Hkv = p.num_kv_heads, G = H / Hkv;
  const int head0 = hk * G + chunk * kRows;
  const int n_heads = min_int(kRows, G - chunk * kRows);
  const KeyRange range = decode_partition(split, partition_tokens, p.context_lens[b]);
  if (num_splits > 1 && range.begin >= range.end) return;  // the merge skips empty partitions

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int32_t* table = p.block_table + static_cast<int64_t>(b) * p.max_pages_per_seq;
  const int page_size = p.page_size;
  DecodePageWindows<kStepTokens> pages(s_pages, table, range, page_size);

  // Copies: lanes l and l + 16 take key l % 16 of the warp tile, chunks 2i + l / 16 of it (each
  // 32-byte sector of a row is read by one instruction); the swizzled chunk is
  // (2i ^ (l / 16)) ^ (key & 7) = 2i ^ y, so the address is one XOR with a constant per chunk.
  const int copy_key = lane % 16;
  const uint32_t copy_row = smem_addr(sK) + warp * Smem::kWarpTileBytes + copy_key * D * 2;
  const uint32_t copy_y16 = static_cast<uint32_t>(((lane / 16) ^ (copy_key & 7)) << 4);
  const T* k_pool = static_cast<const T*>(p.k_pool) + hk * D + (lane / 16) * 8;
  const T* v_pool = static_cast<const T*>(p.v_pool) + hk * D + (lane / 16) * 8;
  const int n_steps = ceil_div(range.end - range.begin, kStepTokens);
  auto issue_step = [&](int s) {
    const int t = range.begin + s * kStepTokens + warp * kDecodeMmaWarpKeys + copy_key;
    const bool valid = t < range.end;
    int64_t off = 0;
    if (valid) off = (pages.page(s, t) * page_size + t % page_size) * Hkv * D;
    const uint32_t k_row = copy_row + (s & 1) * Smem::kStageElems * 2;
    const uint32_t v_row = k_row + 2 * Smem::kStageElems * 2;
#pragma unroll
    for (int i = 0; i < D / 16; ++i) {
      const uint32_t chunk_off = copy_y16 ^ static_cast<uint32_t>(i << 5);
      cp_async_16(k_row + chunk_off, k_pool + off + i * 16, valid);
      cp_async_16(v_row + chunk_off, v_pool + off + i * 16, valid);
    }
  };
  if (n_steps > 0) issue_step(0);
  cp_async_commit();

  // Q as A fragments (PTX ISA fragment layout, g = lane / 4, t = lane % 4): a0 = (g, 2t..2t+1),
  // a1 = (g + 8, 2t..), a2 = (g, 2t + 8..), a3 = (g + 8, 2t + 8..) of each 16-column k step;
  // rows past the group are zero.
  uint32_t qa[D / 16][4];
  {
    const int g = lane / 4, t = lane % 4;
    const T* q = static_cast<const T*>(p.q) + (static_cast<int64_t>(b) * H + head0) * D + 2 * t;
#pragma unroll
    for (int ks = 0; ks < D / 16; ++ks) {
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int row = g + (i & 1) * 8, col = ks * 16 + (i / 2) * 8;
        qa[ks][i] = row < n_heads ? *reinterpret_cast<const uint32_t*>(q + row * D + col) : 0u;
      }
    }
  }

  const float scale2 = p.softmax_scale * kLog2e;
  float acc_o[kNTilesO][4];
#pragma unroll
  for (int nt = 0; nt < kNTilesO; ++nt) {
#pragma unroll
    for (int i = 0; i < 4; ++i) acc_o[nt][i] = 0.f;
  }
  SoftmaxState st[2] = {softmax_init(), softmax_init()};  // rows g and g + 8 (l: this thread's columns)

  // ldmatrix lanes, as the flash kernel's: K (B operand of two n8 key tiles): (keys 0-7, k 0-7),
  // (keys 0-7, k 8-15), then keys 8-15; V transposed (B operand of two n8 d tiles): (keys 0-7 |
  // 8-15) x (d 0-7), then d 8-15.
  const LdmatrixLane<D> k_lane(((lane / 8) / 2) * 8 + lane % 8, (lane / 8) % 2);
  const LdmatrixLane<D> v_lane(((lane / 8) % 2) * 8 + lane % 8, (lane / 8) / 2);
  const uint32_t sK_warp = smem_addr(sK) + warp * Smem::kWarpTileBytes;

  // The loop bound is block-uniform (the page windows hold barriers).
  for (int s = 0; s < n_steps; ++s) {
    pages.before_issue(s, n_steps);
    if (s + 1 < n_steps) issue_step(s + 1);
    cp_async_commit();   // empty on the last step, so the wait below holds for every step
    cp_async_wait<1>();  // this thread's copies of step s landed; step s + 1 may be in flight
    __syncwarp();        // ... and every lane's: the warp tile is whole

    const uint32_t k_tile = sK_warp + (s & 1) * Smem::kStageElems * 2;
    const uint32_t v_tile = k_tile + 2 * Smem::kStageElems * 2;
    float acc_s[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
#pragma unroll
    for (int ks = 0; ks < D / 16; ++ks) {
      uint32_t kb[4];
      ldmatrix_x4(kb, k_lane.at(k_tile, 0, ks));
      mma_m16n8k16<T>(acc_s[0], qa[ks], kb[0], kb[1]);
      mma_m16n8k16<T>(acc_s[1], qa[ks], kb[2], kb[3]);
    }
    const int valid_keys = range.end - (range.begin + s * kStepTokens + warp * kDecodeMmaWarpKeys);
    if (valid_keys >= kDecodeMmaWarpKeys) {
      decode_mma_softmax<D, false>(acc_s, acc_o, st, valid_keys, scale2);
    } else {
      decode_mma_softmax<D, true>(acc_s, acc_o, st, valid_keys, scale2);
    }
    // P as the A fragment of one k16 step: the two n8 tiles of S side by side.
    uint32_t pa[4] = {pack2<T>(acc_s[0][0], acc_s[0][1]), pack2<T>(acc_s[0][2], acc_s[0][3]),
                      pack2<T>(acc_s[1][0], acc_s[1][1]), pack2<T>(acc_s[1][2], acc_s[1][3])};
#pragma unroll
    for (int nt2 = 0; nt2 < kNTilesO / 2; ++nt2) {
      uint32_t vb[4];
      ldmatrix_x4_trans(vb, v_lane.at(v_tile, 0, nt2));
      mma_m16n8k16<T>(acc_o[2 * nt2], pa, vb[0], vb[1]);
      mma_m16n8k16<T>(acc_o[2 * nt2 + 1], pa, vb[2], vb[3]);
    }
    __syncwarp();  // every lane's reads of this stage are done before step s + 2's copies into it
  }

  grid_dependency_trigger();  // see paged_decode_kernel

  // The warps' partial rows into shared memory (over the stages: every thread waited for every
  // group that held copies, and the barrier puts every warp past its reads), then merged.
  __syncthreads();
  {
    const int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      SoftmaxState row = st[half];
      row.l += __shfl_xor_sync(0xffffffffu, row.l, 1);
      row.l += __shfl_xor_sync(0xffffffffu, row.l, 2);
      const int r = warp * kRows + g + half * 8;
      if (t == 0) {
        s_m[r] = row.m;
        s_l[r] = row.l;
      }
#pragma unroll
      for (int nt = 0; nt < kNTilesO; ++nt) {
        s_acc[r * D + nt * 8 + 2 * t] = acc_o[nt][half * 2];
        s_acc[r * D + nt * 8 + 2 * t + 1] = acc_o[nt][half * 2 + 1];
      }
    }
  }
  __syncthreads();
  decode_store_rows<D, kRows, kWarps, T>(p, s_m, s_l, s_acc, n_heads, b, head0, split, num_splits);
}

}  // namespace cuda
}  // namespace attnscope
