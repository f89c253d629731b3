// The scalar logic of the CUDA kernels, kept apart from the tensor-core and memory plumbing so
// that g++ compiles it too and the CPU test suite checks it against an fp64 reference
// (native/src/napi/cuda_math_checks.cc, test/native/cuda_host_math.test.ts):
//   - block-table addressing of the paged KV pools,
//   - which keys a query row / a query tile sees (causal bottom-right, sliding window) and
//     which key tiles a query tile visits and must mask,
//   - the online-softmax update (FlashAttention-2, Dao 2023, Algorithm 1) in base-2 units,
//   - the lse merge of split-K partitions (FlashDecoding, Dao et al. 2023) and the split plan.
// Everything is header-only, inline and free of CUDA types.
#ifndef ATTNSCOPE_CUDA_MATH_H_
#define ATTNSCOPE_CUDA_MATH_H_

#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define ATTNSCOPE_HD __host__ __device__ __forceinline__
#else
#define ATTNSCOPE_HD inline
#endif

namespace attnscope {
namespace cuda {

// log2(e): scores are multiplied by softmax_scale * kLog2e so that exp() becomes exp2().
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

ATTNSCOPE_HD int min_int(int a, int b) { return a < b ? a : b; }
ATTNSCOPE_HD int max_int(int a, int b) { return a > b ? a : b; }
ATTNSCOPE_HD int ceil_div(int a, int b) { return (a + b - 1) / b; }

// ---------------------------------------------------------------------------------------------
// Block-table addressing.

// Element offset of (token `token`, KV head `kv_head`, element 0) of sequence `seq` in a page
// pool laid out [num_pages, page_size, num_kv_heads, head_dim]. block_table is
// [batch, max_pages_per_seq] int32: logical page token / page_size -> physical page.
ATTNSCOPE_HD int64_t paged_kv_offset(const int32_t* block_table, int max_pages_per_seq, int seq, int token,
                                     int page_size, int num_kv_heads, int head_dim, int kv_head) {
  const int64_t page = block_table[static_cast<int64_t>(seq) * max_pages_per_seq + token / page_size];
  const int64_t slot = token % page_size;
  return ((page * page_size + slot) * num_kv_heads + kv_head) * head_dim;
}

// ---------------------------------------------------------------------------------------------
// Masks and tile scheduling. Query row i of n_q sees key j of n_k when
//   j <= i + n_k - n_q                 (causal, aligned bottom-right)
//   j >= i + n_k - n_q - window_left   (window_left >= 0).

struct KeyRange {
  int begin;  // first visible key
  int end;    // one past the last; begin == end when none is visible
};

ATTNSCOPE_HD KeyRange visible_keys(int row, int n_q, int n_k, bool causal, int window_left) {
  const int diag = row + n_k - n_q;
  int end = causal ? min_int(n_k, diag + 1) : n_k;
  int begin = window_left >= 0 ? max_int(0, diag - window_left) : 0;
  if (end <= begin) begin = end = 0;
  return KeyRange{begin, end};
}

ATTNSCOPE_HD bool key_visible(int row, int key, int n_q, int n_k, bool causal, int window_left) {
  const KeyRange r = visible_keys(row, n_q, n_k, causal, window_left);
  return key >= r.begin && key < r.end;
}

// Union of the keys seen by rows [row_begin, row_end). Both bounds of visible_keys() grow with
// the row and every non-empty range overlaps the next, so the union is one range. Only causal
// rows above the diagonal's start (row < n_q - n_k) see nothing; every other row sees at least
// key min(diag, n_k - 1), as diag = row + n_k - n_q <= n_k - 1.
ATTNSCOPE_HD KeyRange tile_visible_keys(int row_begin, int row_end, int n_q, int n_k, bool causal,
                                        int window_left) {
  int first = row_begin;
  if (causal) first = max_int(first, n_q - n_k);  // rows above the diagonal's start see nothing
  if (first >= row_end) return KeyRange{0, 0};
  const KeyRange a = visible_keys(first, n_q, n_k, causal, window_left);
  const KeyRange b = visible_keys(row_end - 1, n_q, n_k, causal, window_left);
  return KeyRange{a.begin, b.end};
}

// Key tiles of block_n keys that query tile rows [row_begin, row_end) visits: [first, last).
struct TileSpan {
  int first;
  int last;
};

ATTNSCOPE_HD TileSpan key_tiles(int row_begin, int row_end, int n_q, int n_k, bool causal, int window_left,
                                int block_n) {
  const KeyRange r = tile_visible_keys(row_begin, row_end, n_q, n_k, causal, window_left);
  if (r.end <= r.begin) return TileSpan{0, 0};
  return TileSpan{r.begin / block_n, ceil_div(r.end, block_n)};
}

// True when every row of [row_begin, row_end) sees every key of the tile
// [key_begin, key_begin + block_n): the kernel then skips the per-element mask.
// Keys past n_k count as invisible (the tile's zero-filled padding).
ATTNSCOPE_HD bool key_tile_fully_visible(int row_begin, int row_end, int key_begin, int block_n, int n_q, int n_k,
                                         bool causal, int window_left) {
  const int key_last = key_begin + block_n - 1;
  if (key_last >= n_k) return false;
  const KeyRange top = visible_keys(row_begin, n_q, n_k, causal, window_left);
  const KeyRange bottom = visible_keys(row_end - 1, n_q, n_k, causal, window_left);
  // Empty rows sit only at the top (causal); when the top row sees the tile's last key, every
  // row does, and the bottom row has the latest window start.
  return top.end > key_last && bottom.end > key_last && bottom.begin <= key_begin;
}

// ---------------------------------------------------------------------------------------------
// Online softmax of one query row (FlashAttention-2, Algorithm 1), in base-2 units: a score s
// is softmax_scale * kLog2e * q.k, the running max m and the sum l = sum 2^(s - m).
// -inf marks "nothing seen yet" / masked scores and never produces a NaN.

struct SoftmaxState {
  float m;  // running max of the scores seen, base-2 units; -inf before the first visible one
  float l;  // sum over seen scores of 2^(s - m)
};

ATTNSCOPE_HD SoftmaxState softmax_init() { return SoftmaxState{-INFINITY, 0.f}; }

// Factor by which l and the output accumulator are multiplied when the max moves from m_old
// to m_new >= m_old: 2^(m_old - m_new), 0 when nothing was seen, 1 while nothing is seen.
ATTNSCOPE_HD float softmax_rescale(float m_old, float m_new) {
  return m_new == -INFINITY ? 1.f : exp2f(m_old - m_new);
}

// Unnormalised probability of score s under running max m: 2^(s - m), 0 for masked scores.
ATTNSCOPE_HD float softmax_weight(float s, float m) { return m == -INFINITY ? 0.f : exp2f(s - m); }

// Folds a tile into the state: tile_max is the tile's largest score (-inf if all masked),
// tile_sum(m_new) the sum of softmax_weight(s, m_new) over the tile, computed by the caller
// after this returns the new max. Returns the rescale factor for the accumulator; the caller
// then adds the tile's weights: acc = acc * alpha + sum_j p_j v_j, l += tile_sum.
ATTNSCOPE_HD float softmax_update_max(SoftmaxState& st, float tile_max) {
  const float m_new = fmaxf(st.m, tile_max);
  const float alpha = softmax_rescale(st.m, m_new);
  st.m = m_new;
  st.l *= alpha;
  return alpha;
}

// Merges state b into a (two partial rows of the same query, e.g. the warps of a decode
// block); returns the factors {for a's accumulator, for b's} through alpha_a / alpha_b.
ATTNSCOPE_HD void softmax_merge(SoftmaxState& a, const SoftmaxState& b, float& alpha_a, float& alpha_b) {
  const float m_new = fmaxf(a.m, b.m);
  alpha_a = softmax_rescale(a.m, m_new);
  alpha_b = softmax_rescale(b.m, m_new);
  a.m = m_new;
  a.l = a.l * alpha_a + b.l * alpha_b;
}

// 1 / l for the final normalisation; 0 for a fully masked row, whose output is then 0.
ATTNSCOPE_HD float softmax_inv_sum(const SoftmaxState& st) { return st.l > 0.f ? 1.f / st.l : 0.f; }

// The row's lse in natural log: ln(sum_j e^(scale q.k_j)) = (m + log2 l) * ln 2; -inf if masked.
ATTNSCOPE_HD float softmax_lse(const SoftmaxState& st) {
  return st.l > 0.f ? (st.m + log2f(st.l)) * kLn2 : -INFINITY;
}

// ---------------------------------------------------------------------------------------------
// Split-K decode (FlashDecoding): the context is cut into partitions of partition_tokens; each
// yields a normalised partial output O_i and its lse_i; the result is
//   lse = log sum_i e^(lse_i),  O = sum_i e^(lse_i - lse) O_i.

struct DecodeSplitPlan {
  int num_splits;        // partitions per sequence
  int partition_tokens;  // tokens per partition (the last one of a sequence may be shorter)
};

// Smallest partition worth a block of its own, and the granularity of partitions.
constexpr int kDecodeMinPartitionTokens = 128;
constexpr int kDecodePartitionAlign = 32;

// Partitions per sequence chosen for whole waves: blocks_per_wave is the number of split blocks
// the device runs at once (SMs x resident blocks per SM, from the occupancy API), and
// blocks_per_split the blocks one partition per sequence gives (batch x KV heads x head
// chunks). A block's time grows with its partition's tokens and the grid runs in whole waves,
// so a plan costs waves x partition_tokens (the merge is small beside it). Among 1 ..
// min(ceil(ctx / kDecodeMinPartitionTokens), ceil(2 * blocks_per_wave / blocks_per_split))
// wanted partitions (none shorter than the minimum, at most two waves' worth), partitions
// rounded up to kDecodePartitionAlign tokens, it takes the fewest whose cost is within
// kDecodeWaveCostMargin of the least. requested_partition_tokens > 0 fixes the length.
constexpr double kDecodeWaveCostMargin = 0.02;

// waves x partition_tokens of a plan (see plan_decode_splits).
ATTNSCOPE_HD int64_t decode_plan_cost(const DecodeSplitPlan& plan, int blocks_per_split, int blocks_per_wave) {
  const int64_t blocks = static_cast<int64_t>(plan.num_splits) * blocks_per_split;
  return (blocks + blocks_per_wave - 1) / blocks_per_wave * plan.partition_tokens;
}

ATTNSCOPE_HD DecodeSplitPlan plan_decode_splits(int blocks_per_split, int max_context_len, int blocks_per_wave,
                                                int requested_partition_tokens) {
  const int ctx = max_int(max_context_len, 1);
  if (requested_partition_tokens > 0) {
    return DecodeSplitPlan{ceil_div(ctx, requested_partition_tokens), requested_partition_tokens};
  }
  const int per_split = max_int(blocks_per_split, 1), per_wave = max_int(blocks_per_wave, 1);
  const int most = max_int(1, min_int(ceil_div(ctx, kDecodeMinPartitionTokens), ceil_div(2 * per_wave, per_split)));
  auto plan_for = [ctx](int wanted) {
    const int partition = ceil_div(ceil_div(ctx, wanted), kDecodePartitionAlign) * kDecodePartitionAlign;
    return DecodeSplitPlan{ceil_div(ctx, partition), partition};
  };
  int64_t least = decode_plan_cost(plan_for(1), per_split, per_wave);
  for (int wanted = 2; wanted <= most; ++wanted) {
    const int64_t cost = decode_plan_cost(plan_for(wanted), per_split, per_wave);
    least = cost < least ? cost : least;
  }
  for (int wanted = 1; wanted < most; ++wanted) {
    const DecodeSplitPlan plan = plan_for(wanted);
    if (decode_plan_cost(plan, per_split, per_wave) <= least * (1.0 + kDecodeWaveCostMargin)) return plan;
  }
  return plan_for(most);
}

// Tokens [begin, end) of partition `split` of a sequence of context_len tokens.
ATTNSCOPE_HD KeyRange decode_partition(int split, int partition_tokens, int context_len) {
  const int begin = min_int(split * partition_tokens, context_len);
  const int end = min_int(begin + partition_tokens, context_len);
  return KeyRange{begin, end};
}

// log(e^a + e^b) without overflow; -inf when both are -inf.
ATTNSCOPE_HD float lse_add(float a, float b) {
  const float hi = fmaxf(a, b);
  if (hi == -INFINITY) return -INFINITY;
  return hi + log1pf(expf(fminf(a, b) - hi));
}

// Weight of a partition with lse_i in the merged output of total lse; 0 for empty partitions.
ATTNSCOPE_HD float lse_weight(float lse_i, float lse_total) {
  return lse_total == -INFINITY ? 0.f : expf(lse_i - lse_total);
}

// Merged lse of n partitions read at lse[i * stride].
ATTNSCOPE_HD float lse_merge(const float* lse, int n, int stride) {
  float hi = -INFINITY;
  for (int i = 0; i < n; ++i) hi = fmaxf(hi, lse[i * stride]);
  if (hi == -INFINITY) return -INFINITY;
  float sum = 0.f;
  for (int i = 0; i < n; ++i) sum += expf(lse[i * stride] - hi);
  return hi + logf(sum);
}

}  // namespace cuda
}  // namespace attnscope

#endif  // ATTNSCOPE_CUDA_MATH_H_
