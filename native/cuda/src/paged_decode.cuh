// PagedAttention decode with split-K partitions merged through lse (FlashDecoding; vLLM's
// paged_attention_v2 and FlashInfer's decode.cuh have the same two-kernel shape).
// Kernel 1, one block per (partition, KV head x head chunk, sequence): the block's query heads
// are the kGroup heads of one GQA group (or a chunk of it), so every K/V byte loaded from the
// page pool serves all of them. Threads form token lanes of D / 8 threads, each thread holding
// 16 bytes (8 elements) of a K or V row; a lane takes kDecodeUnroll consecutive tokens per step and
// issues all their K and V loads before the first use. Each lane keeps its own online-softmax
// state per head; the lanes merge in shared memory at the end.
// Kernel 2 (only when a sequence has several partitions) merges the partitions through lse; it
// is launched as a programmatic dependent of kernel 1 (sm_90), so its launch overlaps kernel 1's tail.
#pragma once

#include "attnscope_cuda.h"
#include "attnscope_cuda_math.h"
#include "ptx.cuh"

namespace attnscope {
namespace cuda {

constexpr int kDecodeThreads = 128;
constexpr int kDecodeUnroll = 4;  // tokens per lane per step; page sizes that are multiples keep a step in one page

// Grid: (num_splits, H_kv * head_chunks, B). Block: kDecodeThreads.
// q: [B, H, D]; k_pool/v_pool: [num_pages, page_size, H_kv, D]; block_table: [B, max_pages_per_seq];
// o: [B, H, D] when num_splits == 1, else partial_lse [B, H, num_splits] and
// partial_o [B, H, num_splits, D] in the fp32 workspace.
template <int D, int kGroup, typename T>
__global__ void __launch_bounds__(kDecodeThreads)
    paged_decode_kernel(const attnscope_cuda_decode_params p, int num_splits, int partition_tokens, int head_chunks) {
  constexpr int kThreadsPerToken = D / 8;
  constexpr int kLanes = kDecodeThreads / kThreadsPerToken;
  static_assert(D % 8 == 0 && kDecodeThreads % kThreadsPerToken == 0, "a token lane is whole 16-byte chunks");
  static_assert(kThreadsPerToken <= 32, "a token lane stays inside one warp");
  __shared__ float s_m[kLanes][kGroup];
  __shared__ float s_l[kLanes][kGroup];
  __shared__ float s_acc[kLanes][kGroup][D];

  const int split = blockIdx.x, b = blockIdx.z;
  const int hk = blockIdx.y / head_chunks, chunk = blockIdx.y % head_chunks;
  const int H = p.num_heads, Hkv = p.num_kv_heads, G = H / Hkv;
  const int head0 = hk * G + chunk * kGroup;
  const int n_heads = min_int(kGroup, G - chunk * kGroup);
  const KeyRange range = decode_partition(split, partition_tokens, p.context_lens[b]);
  if (num_splits > 1 && range.begin >= range.end) return;  // the merge skips empty partitions

  const int lane_id = threadIdx.x / kThreadsPerToken, sub = threadIdx.x % kThreadsPerToken;
  const T* q = static_cast<const T*>(p.q);
  const T* k_pool = static_cast<const T*>(p.k_pool);
  const T* v_pool = static_cast<const T*>(p.v_pool);

  float qv[kGroup][8];
#pragma unroll
  for (int g = 0; g < kGroup; ++g) {
    uint4 raw = make_uint4(0, 0, 0, 0);
    if (g < n_heads) raw = *reinterpret_cast<const uint4*>(q + (static_cast<int64_t>(b) * H + head0 + g) * D + sub * 8);
    unpack8<T>(raw, qv[g]);
  }

  const float scale2 = p.softmax_scale * kLog2e;
  const int64_t token_stride = static_cast<int64_t>(Hkv) * D;
  // A lane's kDecodeUnroll tokens start at a multiple of kDecodeUnroll, so they share a page when both the
  // page and the partition are multiples of kDecodeUnroll tokens.
  const bool step_in_one_page = p.page_size % kDecodeUnroll == 0 && partition_tokens % kDecodeUnroll == 0;
  SoftmaxState st[kGroup];
  float acc[kGroup][8];
#pragma unroll
  for (int g = 0; g < kGroup; ++g) {
    st[g] = softmax_init();
#pragma unroll
    for (int e = 0; e < 8; ++e) acc[g][e] = 0.f;
  }

  // The loop bound is block-uniform (shuffles need whole warps); tokens past the end are masked.
  for (int step0 = range.begin; step0 < range.end; step0 += kLanes * kDecodeUnroll) {
    const int t0 = step0 + lane_id * kDecodeUnroll;
    uint4 kr[kDecodeUnroll], vr[kDecodeUnroll];
    const int64_t base =
        t0 < range.end ? paged_kv_offset(p.block_table, p.max_pages_per_seq, b, t0, p.page_size, Hkv, D, hk) + sub * 8
                       : 0;
#pragma unroll
    for (int u = 0; u < kDecodeUnroll; ++u) {
      kr[u] = vr[u] = make_uint4(0, 0, 0, 0);
      if (t0 + u < range.end) {
        const int64_t off =
            step_in_one_page
                ? base + u * token_stride
                : paged_kv_offset(p.block_table, p.max_pages_per_seq, b, t0 + u, p.page_size, Hkv, D, hk) + sub * 8;
        kr[u] = __ldg(reinterpret_cast<const uint4*>(k_pool + off));
        vr[u] = __ldg(reinterpret_cast<const uint4*>(v_pool + off));
      }
    }
    float s[kDecodeUnroll][kGroup];
#pragma unroll
    for (int u = 0; u < kDecodeUnroll; ++u) {
      float kf[8];
      unpack8<T>(kr[u], kf);
#pragma unroll
      for (int g = 0; g < kGroup; ++g) {
        float dot = 0.f;
#pragma unroll
        for (int e = 0; e < 8; ++e) dot = fmaf(qv[g][e], kf[e], dot);
#pragma unroll
        for (int off = kThreadsPerToken / 2; off > 0; off /= 2) dot += __shfl_xor_sync(0xffffffffu, dot, off);
        s[u][g] = t0 + u < range.end ? dot * scale2 : -INFINITY;
      }
    }
#pragma unroll
    for (int g = 0; g < kGroup; ++g) {
      float step_max = -INFINITY;
#pragma unroll
      for (int u = 0; u < kDecodeUnroll; ++u) step_max = fmaxf(step_max, s[u][g]);
      const float alpha = softmax_update_max(st[g], step_max);
#pragma unroll
      for (int e = 0; e < 8; ++e) acc[g][e] *= alpha;
#pragma unroll
      for (int u = 0; u < kDecodeUnroll; ++u) {
        const float pw = softmax_weight(s[u][g], st[g].m);
        st[g].l += pw;
        float vf[8];
        unpack8<T>(vr[u], vf);
#pragma unroll
        for (int e = 0; e < 8; ++e) acc[g][e] = fmaf(pw, vf[e], acc[g][e]);
      }
    }
  }

  // The merge (a programmatic dependent launch) may start launching now; it still waits for
  // this whole grid's writes (cudaGridDependencySynchronize).
  grid_dependency_trigger();

  // Merge the lanes: every thread of a lane holds the same (m, l) and 8 of the D outputs.
#pragma unroll
  for (int g = 0; g < kGroup; ++g) {
    if (sub == 0) {
      s_m[lane_id][g] = st[g].m;
      s_l[lane_id][g] = st[g].l;
    }
#pragma unroll
    for (int e = 0; e < 8; ++e) s_acc[lane_id][g][sub * 8 + e] = acc[g][e];
  }
  __syncthreads();
  for (int idx = threadIdx.x; idx < n_heads * D; idx += kDecodeThreads) {
    const int g = idx / D, d = idx % D;
    SoftmaxState merged{s_m[0][g], s_l[0][g]};
    float out = s_acc[0][g][d];
    for (int l = 1; l < kLanes; ++l) {
      float a0, a1;
      softmax_merge(merged, SoftmaxState{s_m[l][g], s_l[l][g]}, a0, a1);
      out = out * a0 + s_acc[l][g][d] * a1;
    }
    out *= softmax_inv_sum(merged);
    const int64_t bh = static_cast<int64_t>(b) * H + head0 + g;
    if (num_splits == 1) {
      static_cast<T*>(p.o)[bh * D + d] = from_float<T>(out);
      if (d == 0 && p.lse != nullptr) p.lse[bh] = softmax_lse(merged);
    } else {
      float* partial_lse = static_cast<float*>(p.workspace);
      float* partial_o = partial_lse + static_cast<int64_t>(p.batch) * H * num_splits;
      partial_o[(bh * num_splits + split) * D + d] = out;
      if (d == 0) partial_lse[bh * num_splits + split] = softmax_lse(merged);
    }
  }
}

// Grid: (H, B). Block: D threads, one output element each.
// O[b, h] = sum_i e^(lse_i - lse) O_i over the partitions that hold tokens.
template <int D, typename T>
__global__ void __launch_bounds__(D)
    paged_decode_merge_kernel(const attnscope_cuda_decode_params p, int num_splits, int partition_tokens) {
  grid_dependency_wait();  // launched as a programmatic dependent of the split kernel
  const int h = blockIdx.x, b = blockIdx.y, d = threadIdx.x;
  const int64_t bh = static_cast<int64_t>(b) * p.num_heads + h;
  const float* partial_lse = static_cast<const float*>(p.workspace) + bh * num_splits;
  const float* partial_o = static_cast<const float*>(p.workspace) +
                           static_cast<int64_t>(p.batch) * p.num_heads * num_splits + bh * num_splits * D;
  const int used = ceil_div(p.context_lens[b], partition_tokens);
  const float lse = lse_merge(partial_lse, used, 1);
  float out = 0.f;
  for (int i = 0; i < used; ++i) out += lse_weight(partial_lse[i], lse) * partial_o[i * D + d];
  static_cast<T*>(p.o)[bh * D + d] = from_float<T>(out);
  if (d == 0 && p.lse != nullptr) p.lse[bh] = lse;
}

}  // namespace cuda
}  // namespace attnscope
