// PagedAttention decode with split-K partitions merged through lse (FlashDecoding; vLLM's
// paged_attention_v2 and FlashInfer's decode.cuh have the same two-kernel shape).
// Kernel 1 on CUDA cores, for GQA groups of 1 or 2 heads (wider groups run on tensor cores,
// paged_decode_mma.cuh, with the page windows, output and merge of this file), one block per
// (partition, KV head, sequence): the block's query heads are the kGroup heads of one GQA group,
// so every K/V byte loaded from the page pool serves all of them. Threads form token lanes of D / 8 threads, each thread owning
// 16 bytes (8 elements) of a K and a V row; a lane takes kDecodeUnroll consecutive tokens per
// step. K/V go through a 2-stage cp.async pipeline in shared memory (step s + 1 is in flight
// while step s is computed; each thread reads back only the chunks it copied, so no barrier is
// needed between copy and use), and the partition's physical page numbers are staged in shared
// memory a window of kDecodeWindowTokens ahead (the next window's block-table entries are loaded
// into registers one window early), so no K/V load waits on a block-table load. Each lane keeps
// its own online-softmax state per head; the lanes merge in shared memory at the end.
// Kernel 2 (only when a sequence has several partitions) merges the partitions through lse; it
// is launched as a programmatic dependent of kernel 1 (sm_90), so its launch overlaps kernel 1's tail.
#pragma once

#include "attnscope_cuda.h"
#include "attnscope_cuda_math.h"
#include "ptx.cuh"

namespace attnscope {
namespace cuda {

constexpr int kDecodeThreads = 128;
constexpr int kDecodeUnroll = 4;           // tokens per lane per step
constexpr int kDecodeWindowTokens = 256;   // tokens whose page numbers one shared-memory window holds

// One window of a partition's page numbers: logical pages [first, first + count) of the tokens
// [begin + w * kDecodeWindowTokens, ...) that lie in the range.
struct PageWindow {
  int first;
  int count;
};

ATTNSCOPE_HD PageWindow decode_page_window(KeyRange range, int w, int page_size) {
  const int begin = range.begin + w * kDecodeWindowTokens;
  const int end = min_int(begin + kDecodeWindowTokens, range.end);
  if (begin >= end) return PageWindow{0, 0};
  return PageWindow{begin / page_size, (end - 1) / page_size - begin / page_size + 1};
}

// A partition's physical page numbers, staged in shared memory one window of
// kDecodeWindowTokens tokens at a time, double-buffered: window w + 1 is published before the
// first step that reads it and window w + 2 is then loaded into registers, so no K/V load
// waits on a block-table load. A block step covers kStepTokens tokens; a window is whole steps.
// Used by every thread of the block, with block-uniform arguments (it holds barriers).
template <int kStepTokens>
struct DecodePageWindows {
  static constexpr int kWindowSteps = kDecodeWindowTokens / kStepTokens;
  // A window of kDecodeWindowTokens tokens touches at most floor(255 / page_size) + 2 pages.
  static constexpr int kWindowPages = kDecodeWindowTokens + 1;
  static constexpr int kPagesPerThread = (kWindowPages + kDecodeThreads - 1) / kDecodeThreads;
  static constexpr int kBytes = ((2 * kWindowPages * 4 + 15) / 16) * 16;  // shared memory, 16-byte multiple
  static_assert(kDecodeWindowTokens % kStepTokens == 0, "a step never straddles two page windows");

  int32_t* s_pages;  // [2][kWindowPages]
  const int32_t* table;
  KeyRange range;
  int page_size;
  int32_t next[kPagesPerThread];  // the window after the newest published one

  // Window 0 straight into shared memory, window 1 into registers; ends with a barrier.
  __device__ __forceinline__ DecodePageWindows(int32_t* s, const int32_t* t, KeyRange r, int ps)
      : s_pages(s), table(t), range(r), page_size(ps) {
    const PageWindow w0 = decode_page_window(range, 0, page_size), w1 = decode_page_window(range, 1, page_size);
#pragma unroll
    for (int i = 0; i < kPagesPerThread; ++i) {
      const int idx = threadIdx.x + i * kDecodeThreads;
      if (idx < w0.count) s_pages[idx] = table[w0.first + idx];
      next[i] = idx < w1.count ? table[w1.first + idx] : 0;
    }
    __syncthreads();
  }

  // Called by every thread before it issues the copies of step s + 1 (of n_steps): when that
  // step opens a window, publishes it (its buffer last served the window before the current
  // one, whose copies were all issued before the previous such barrier), fetches the window
  // after it into registers, and waits at a barrier.
  __device__ __forceinline__ void before_issue(int s, int n_steps) {
    if ((s + 1) % kWindowSteps != 0 || s + 1 >= n_steps) return;
    const int w = (s + 1) / kWindowSteps;
    int32_t* dst = s_pages + (w & 1) * kWindowPages;
    const PageWindow after = decode_page_window(range, w + 1, page_size);
#pragma unroll
    for (int i = 0; i < kPagesPerThread; ++i) {
      const int idx = threadIdx.x + i * kDecodeThreads;
      if (idx < kWindowPages) dst[idx] = next[i];
      next[i] = idx < after.count ? table[after.first + idx] : 0;
    }
    __syncthreads();
  }

  // Physical page of token t (inside the range) of step s, once step s's window is published.
  __device__ __forceinline__ int64_t page(int s, int t) const {
    const int w = s / kWindowSteps;
    return s_pages[(w & 1) * kWindowPages + t / page_size - decode_page_window(range, w, page_size).first];
  }
};

// The end of a split block: merges kLanes partial states of each of the block's kRows query
// rows (s_m, s_l: [kLanes][kRows]; s_acc: [kLanes][kRows][D] unnormalised outputs) and writes
// rows [0, n_heads) of query heads head0.. of sequence b: O and lse with one partition, else
// the partition's normalised partial output and lse into the workspace.
template <int D, int kRows, int kLanes, typename T>
__device__ __forceinline__ void decode_store_rows(const attnscope_cuda_decode_params& p, const float* s_m,
                                                  const float* s_l, const float* s_acc, int n_heads, int b,
                                                  int head0, int split, int num_splits) {
  const int H = p.num_heads;
  for (int idx = threadIdx.x; idx < n_heads * D; idx += kDecodeThreads) {
    const int g = idx / D, d = idx % D;
    SoftmaxState merged{s_m[g], s_l[g]};
    float out = s_acc[g * D + d];
    for (int l = 1; l < kLanes; ++l) {
      float a0, a1;
      softmax_merge(merged, SoftmaxState{s_m[l * kRows + g], s_l[l * kRows + g]}, a0, a1);
      out = out * a0 + s_acc[(l * kRows + g) * D + d] * a1;
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

// Dynamic shared memory of paged_decode_kernel<D, kGroup>: two pipeline stages of K and V
// [kStepTokens][D] (after the loop, the same bytes hold the lanes' partial outputs), the page
// windows, the lanes' (m, l).
template <int D, int kGroup>
struct DecodeSmem {
  static constexpr int kThreadsPerToken = D / 8;
  static constexpr int kLanes = kDecodeThreads / kThreadsPerToken;
  static constexpr int kStepTokens = kLanes * kDecodeUnroll;
  static constexpr int kStageElems = kStepTokens * D;                // one of K or V, one stage
  static constexpr int kStagesBytes = 2 * 2 * kStageElems * 2;       // {K, V} x 2 stages x 2 bytes
  static constexpr int kAccBytes = kLanes * kGroup * D * 4;
  static constexpr int kPagesOffset = kStagesBytes > kAccBytes ? kStagesBytes : kAccBytes;
  static constexpr int kStatsOffset = kPagesOffset + DecodePageWindows<kStepTokens>::kBytes;
  static constexpr int kBytes = kStatsOffset + 2 * kLanes * kGroup * 4;
  static_assert(D % 8 == 0 && kDecodeThreads % kThreadsPerToken == 0, "a token lane is whole 16-byte chunks");
  static_assert(kThreadsPerToken <= 32, "a token lane stays inside one warp");
  static_assert(kBytes <= 48 * 1024, "fits without opting in to more shared memory");
};

// Grid: (num_splits, H_kv * head_chunks, B). Block: kDecodeThreads. Dynamic shared memory:
// DecodeSmem<D, kGroup>::kBytes.
// q: [B, H, D]; k_pool/v_pool: [num_pages, page_size, H_kv, D]; block_table: [B, max_pages_per_seq];
// o: [B, H, D] when num_splits == 1, else partial_lse [B, H, num_splits] and
// partial_o [B, H, num_splits, D] in the fp32 workspace.
template <int D, int kGroup, typename T>
__global__ void __launch_bounds__(kDecodeThreads)
    paged_decode_kernel(const attnscope_cuda_decode_params p, int num_splits, int partition_tokens, int head_chunks) {
  using Smem = DecodeSmem<D, kGroup>;
  constexpr int kLanes = Smem::kLanes, kThreadsPerToken = Smem::kThreadsPerToken;
  constexpr int kStepTokens = Smem::kStepTokens;
  ATTNSCOPE_DYNAMIC_SMEM(smem_raw);
  T* sK = reinterpret_cast<T*>(smem_raw);                  // [2][kStepTokens][D]
  T* sV = sK + 2 * Smem::kStageElems;                      // [2][kStepTokens][D]
  float* s_acc = reinterpret_cast<float*>(smem_raw);       // [kLanes][kGroup][D], after the loop
  int32_t* s_pages = reinterpret_cast<int32_t*>(smem_raw + Smem::kPagesOffset);  // DecodePageWindows
  float* s_m = reinterpret_cast<float*>(smem_raw + Smem::kStatsOffset);         // [kLanes][kGroup]
  float* s_l = s_m + kLanes * kGroup;

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
  const int32_t* table = p.block_table + static_cast<int64_t>(b) * p.max_pages_per_seq;
  const int page_size = p.page_size;

  DecodePageWindows<kStepTokens> pages(s_pages, table, range, page_size);

  // cp.async of step s's K and V chunks of this thread into stage s & 1 (zero-filled past the range).
  const int n_steps = ceil_div(range.end - range.begin, kStepTokens);
  auto issue_step = [&](int s) {
    T* k_stage = sK + (s & 1) * Smem::kStageElems;
    T* v_stage = sV + (s & 1) * Smem::kStageElems;
#pragma unroll
    for (int u = 0; u < kDecodeUnroll; ++u) {
      const int slot = lane_id * kDecodeUnroll + u;
      const int t = range.begin + s * kStepTokens + slot;
      int64_t off = 0;
      if (t < range.end) {
        off = ((pages.page(s, t) * page_size + t % page_size) * Hkv + hk) * D + sub * 8;
      }
      cp_async_16(smem_addr(k_stage + slot * D + sub * 8), k_pool + off, t < range.end);
      cp_async_16(smem_addr(v_stage + slot * D + sub * 8), v_pool + off, t < range.end);
    }
  };
  if (n_steps > 0) issue_step(0);
  cp_async_commit();

  float qv[kGroup][8];
#pragma unroll
  for (int g = 0; g < kGroup; ++g) {
    uint4 raw = make_uint4(0, 0, 0, 0);
    if (g < n_heads) raw = *reinterpret_cast<const uint4*>(q + (static_cast<int64_t>(b) * H + head0 + g) * D + sub * 8);
    unpack8<T>(raw, qv[g]);
  }

  const float scale2 = p.softmax_scale * kLog2e;
  SoftmaxState st[kGroup];
  float acc[kGroup][8];
#pragma unroll
  for (int g = 0; g < kGroup; ++g) {
    st[g] = softmax_init();
#pragma unroll
    for (int e = 0; e < 8; ++e) acc[g][e] = 0.f;
  }

  // The loop bound is block-uniform (shuffles and barriers need every thread).
  for (int s = 0; s < n_steps; ++s) {
    pages.before_issue(s, n_steps);
    if (s + 1 < n_steps) issue_step(s + 1);
    cp_async_commit();  // empty on the last step, so the wait below holds for every step
    cp_async_wait<1>();  // step s landed; step s + 1 may be in flight

    const int t0 = range.begin + s * kStepTokens + lane_id * kDecodeUnroll;
    const T* k_stage = sK + (s & 1) * Smem::kStageElems + lane_id * kDecodeUnroll * D + sub * 8;
    const T* v_stage = sV + (s & 1) * Smem::kStageElems + lane_id * kDecodeUnroll * D + sub * 8;
    float sc[kDecodeUnroll][kGroup];
#pragma unroll
    for (int u = 0; u < kDecodeUnroll; ++u) {
      float kf[8];
      unpack8<T>(ld_shared_b128(smem_addr(k_stage + u * D)), kf);
#pragma unroll
      for (int g = 0; g < kGroup; ++g) {
        float dot = 0.f;
#pragma unroll
        for (int e = 0; e < 8; ++e) dot = fmaf(qv[g][e], kf[e], dot);
#pragma unroll
        for (int off = kThreadsPerToken / 2; off > 0; off /= 2) dot += __shfl_xor_sync(0xffffffffu, dot, off);
        sc[u][g] = t0 + u < range.end ? dot * scale2 : -INFINITY;
      }
    }
#pragma unroll
    for (int g = 0; g < kGroup; ++g) {
      float step_max = -INFINITY;
#pragma unroll
      for (int u = 0; u < kDecodeUnroll; ++u) step_max = fmaxf(step_max, sc[u][g]);
      const float alpha = softmax_update_max(st[g], step_max);
#pragma unroll
      for (int e = 0; e < 8; ++e) acc[g][e] *= alpha;
    }
#pragma unroll
    for (int u = 0; u < kDecodeUnroll; ++u) {
      float vf[8];
      unpack8<T>(ld_shared_b128(smem_addr(v_stage + u * D)), vf);
#pragma unroll
      for (int g = 0; g < kGroup; ++g) {
        const float pw = softmax_weight(sc[u][g], st[g].m);
        st[g].l += pw;
#pragma unroll
        for (int e = 0; e < 8; ++e) acc[g][e] = fmaf(pw, vf[e], acc[g][e]);
      }
    }
  }

  // The merge (a programmatic dependent launch) may start launching now; it still waits for
  // this whole grid's writes (cudaGridDependencySynchronize).
  grid_dependency_trigger();

  // Merge the lanes: every thread of a lane holds the same (m, l) and 8 of the D outputs. The
  // partial outputs reuse the stages' bytes: each thread waited for every group that held copies
  // (only the last, empty one is pending), and the barrier puts every thread past its reads.
  __syncthreads();
#pragma unroll
  for (int g = 0; g < kGroup; ++g) {
    if (sub == 0) {
      s_m[lane_id * kGroup + g] = st[g].m;
      s_l[lane_id * kGroup + g] = st[g].l;
    }
#pragma unroll
    for (int e = 0; e < 8; ++e) s_acc[(lane_id * kGroup + g) * D + sub * 8 + e] = acc[g][e];
  }
  __syncthreads();
  decode_store_rows<D, kGroup, kLanes, T>(p, s_m, s_l, s_acc, n_heads, b, head0, split, num_splits);
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
