// Tiled drivers of the CPU attention kernels (loop order, masks, online softmax, split-K,
// threads), the fp64 reference and the timing loop. The inner loops are KernelOps entries,
// chosen per SIMD path (kernels_ops.h).
#include "attnscope/kernels.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "attnscope/kernels_ops.h"
#include "attnscope/kernels_threads.h"

namespace attnscope {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();
constexpr int kMaxHeadDim = 512;

// Flash tiles. Rows of a task are (query heads of one KV group) x (queries of one tile), so the
// K/V tile loaded once serves every head of the group (GQA without copying K/V).
constexpr int kFlashRowsPerTask = 72;  // target rows (G * block_m) of S and O per task
constexpr int kFlashBlockN = 64;       // keys per tile: S is rows x 64, K^T is D x 64
static_assert(kFlashBlockN % 16 == 0, "key tile must be a whole number of 16-float vectors");

// Decode: tokens scored per softmax step (whole pages), and the smallest split-K partition.
constexpr int kDecodeChunkTokens = 64;
constexpr int kDecodeMinPartitionTokens = 256;
constexpr int kDecodePrefetchPages = 2;  // pages requested ahead of the one being read

thread_local std::string g_last_error;

Status fail(Status status, const std::string& message) {
  g_last_error = message;
  return status;
}

Status ok() {
  g_last_error.clear();
  return Status::kOk;
}

inline const void* element_at(const void* base, DType dtype, int64_t index) {
  return static_cast<const char*>(base) + index * static_cast<int64_t>(dtype_bytes(dtype));
}

inline double load_double(DType dtype, const void* base, int64_t index) {
  switch (dtype) {
    case DType::kF16: return half_to_float(static_cast<const uint16_t*>(base)[index]);
    case DType::kBF16: return bf16_to_float(static_cast<const uint16_t*>(base)[index]);
    default: return static_cast<const float*>(base)[index];
  }
}

inline float default_scale(float scale, int head_dim) {
  return scale > 0.f ? scale : 1.f / std::sqrt(static_cast<float>(head_dim));
}

inline int worker_count(int threads) { return threads > 0 ? threads : hardware_threads(); }

// Visible keys [lo, hi] (inclusive) of query i; empty when lo > hi. See FlashParams.
struct MaskGeometry {
  int64_t offset;  // seqlen_k - seqlen_q: p(i) = i + offset
  int seqlen_k;
  bool causal;
  int window;
  void range(int64_t i, int64_t* lo, int64_t* hi) const {
    const int64_t pos = i + offset;
    *hi = causal ? std::min<int64_t>(pos, seqlen_k - 1) : seqlen_k - 1;
    *lo = window > 0 ? std::max<int64_t>(0, pos - window + 1) : 0;
  }
};

bool dtype_valid(DType d) { return d == DType::kF32 || d == DType::kF16 || d == DType::kBF16; }

Status check_simd(SimdPath path) {
  if (!simd_path_supported(path)) {
    return fail(Status::kUnsupported, std::string("SIMD path ") + simd_path_name(path) +
                                          " is not supported by this CPU or build");
  }
  return Status::kOk;
}

Status check_flash(const FlashParams& p) {
  if (!p.q || !p.k || !p.v || !p.o || !p.lse) return fail(Status::kInvalidArgument, "null tensor pointer");
  if (!dtype_valid(p.dtype)) return fail(Status::kInvalidArgument, "unknown dtype");
  if (p.batch < 1 || p.seqlen_q < 1 || p.seqlen_k < 1 || p.num_heads < 1 || p.num_heads_k < 1)
    return fail(Status::kInvalidArgument, "batch, seqlen_q, seqlen_k, num_heads, num_heads_k must be >= 1");
  if (p.num_heads % p.num_heads_k != 0)
    return fail(Status::kInvalidArgument, "num_heads must be a multiple of num_heads_k");
  if (p.head_dim < 1 || p.head_dim > kMaxHeadDim)
    return fail(Status::kInvalidArgument, "head_dim must be in [1, 512]");
  if (p.window < 0) return fail(Status::kInvalidArgument, "window must be >= 0");
  return check_simd(p.simd);
}

// One worker's scratch for a flash task: Q (scaled), O accumulator, S/P tile, m, l.
struct FlashScratch {
  std::vector<float> buffer;
  float *q, *acc, *s, *m, *l;
  std::vector<int32_t> begin, end;  // visible columns of each row in the current key tile
  std::vector<uint16_t> q_bf16, p_bf16;  // bf16 dot path: Q rows as given, P rounded to bf16
  void init(int rows, int d, bool bf16_dot) {
    begin.resize(rows);
    end.resize(rows);
    q_bf16.resize(bf16_dot ? size_t(rows) * d : 0);
    p_bf16.resize(bf16_dot ? size_t(rows) * kFlashBlockN : 0);
    const size_t sizes[] = {size_t(rows) * d, size_t(rows) * d, size_t(rows) * kFlashBlockN,
                            size_t(rows), size_t(rows)};
    size_t total = 0;
    for (size_t n : sizes) total += (n + 15) / 16 * 16;
    buffer.assign(total, 0.f);
    float* cursor = buffer.data();
    float** slots[] = {&q, &acc, &s, &m, &l};
    for (int i = 0; i < 5; ++i) {
      *slots[i] = cursor;
      cursor += (sizes[i] + 15) / 16 * 16;
    }
  }
};

// K and V of one (batch, KV head), made ready once for all its query tiles. fp32 path: K^T
// packed per key tile (zero-padded), V copied to contiguous fp32 rows (read in place, rows
// H_kv * D apart often fall into the same L1 sets: 4 KiB apart for H_kv = 8, D = 128). bf16 dot path (ops.gemm_bf16): K^T and V
// as bf16 pairs along the reduced dimension, zero-padded to whole tiles.
struct HeadKV {
  const float* kt;  // [num_key_tiles, head_dim, kFlashBlockN]
  const float* v;   // [seqlen_k, head_dim] with row stride v_stride
  int64_t v_stride;
  const uint32_t* kt_pairs;  // [num_key_tiles, head_dim / 2, kFlashBlockN]: (K[j, 2p], K[j, 2p+1])
  const uint32_t* v_pairs;   // [num_key_tiles, kFlashBlockN / 2, head_dim]: (V[2p, x], V[2p+1, x])
};

// bf16 pairs of one key tile (n <= kFlashBlockN rows of src, row stride in elements).
void pack_bf16_pairs(const uint16_t* k, const uint16_t* v, int64_t k_stride, int64_t v_stride,
                     int n, int d, uint32_t* kt_pairs, uint32_t* v_pairs) {
  for (int pair = 0; pair < d / 2; ++pair) {
    for (int j = 0; j < kFlashBlockN; ++j) {
      const uint16_t* row = k + j * k_stride + 2 * pair;
      kt_pairs[pair * kFlashBlockN + j] = j < n ? uint32_t(row[0]) | (uint32_t(row[1]) << 16) : 0u;
    }
  }
  for (int pair = 0; pair < kFlashBlockN / 2; ++pair) {
    const int j = 2 * pair;
    for (int x = 0; x < d; ++x) {
      const uint32_t lo = j < n ? v[j * v_stride + x] : 0u;
      const uint32_t hi = j + 1 < n ? v[(j + 1) * v_stride + x] : 0u;
      v_pairs[int64_t(pair) * d + x] = lo | (hi << 16);
    }
  }
}

// Grid: (query tile) of one (batch b, KV head hk); rows = the group's query heads x the tile.
void flash_task(const FlashParams& p, const KernelOps& ops, int block_m, int b, int hk,
                const HeadKV& kv, int64_t task, FlashScratch& sc) {
  const int group = p.num_heads / p.num_heads_k;
  const int d = p.head_dim;
  const int num_q_tiles = (p.seqlen_q + block_m - 1) / block_m;
  // Heaviest (last, under a causal mask) query tiles first: better balance at the tail.
  const int q_tile = num_q_tiles - 1 - static_cast<int>(task);
  const int q0 = q_tile * block_m;
  const int nq = std::min(block_m, p.seqlen_q - q0);
  const int rows = group * nq;  // row r = gi * nq + qi: head hk * group + gi, query q0 + qi
  const float scale = default_scale(p.softmax_scale, d);
  const MaskGeometry mask{int64_t(p.seqlen_k) - p.seqlen_q, p.seqlen_k, p.is_causal, p.window};
  const bool bf16_dot = kv.kt_pairs != nullptr;

  for (int gi = 0; gi < group; ++gi) {
    const int h = hk * group + gi;
    const int64_t at = b * p.q_batch_stride + int64_t(q0) * p.q_row_stride + h * p.q_head_stride;
    if (bf16_dot) {  // Q stays bf16; the scale is applied to the fp32 scores
      const uint16_t* src = static_cast<const uint16_t*>(p.q) + at;
      for (int qi = 0; qi < nq; ++qi)
        std::copy(src + qi * p.q_row_stride, src + qi * p.q_row_stride + d,
                  sc.q_bf16.data() + (int64_t(gi) * nq + qi) * d);
    } else {
      ops.load_rows(p.dtype, element_at(p.q, p.dtype, at), p.q_row_stride, nq, d, scale,
                    sc.q + int64_t(gi) * nq * d, d);
    }
  }
  std::fill(sc.acc, sc.acc + int64_t(rows) * d, 0.f);
  std::fill(sc.m, sc.m + rows, kNegInf);
  std::fill(sc.l, sc.l + rows, 0.f);

  int64_t lo_first, hi_first, lo_last, hi_last;
  mask.range(q0, &lo_first, &hi_first);
  mask.range(q0 + nq - 1, &lo_last, &hi_last);
  // Key tiles touching the union of the rows' visible ranges (lo and hi grow with i).
  const int64_t tile_begin = lo_first / kFlashBlockN;
  const int64_t tile_end = hi_last < lo_first ? tile_begin : hi_last / kFlashBlockN + 1;
  for (int64_t tile = tile_begin; tile < tile_end; ++tile) {
    const int64_t j0 = tile * kFlashBlockN;
    const int n = static_cast<int>(std::min<int64_t>(kFlashBlockN, p.seqlen_k - j0));
    if (bf16_dot) {
      ops.gemm_bf16(rows, kFlashBlockN, d / 2, sc.q_bf16.data(), d,
                    kv.kt_pairs + tile * (d / 2) * kFlashBlockN, kFlashBlockN, sc.s, kFlashBlockN, false);
    } else {
      ops.gemm(rows, kFlashBlockN, d, sc.q, d, kv.kt + tile * d * kFlashBlockN, kFlashBlockN, sc.s,
               kFlashBlockN, false);
    }

    for (int r = 0; r < rows; ++r) {
      int64_t lo, hi;
      mask.range(q0 + r % nq, &lo, &hi);
      sc.begin[r] = static_cast<int32_t>(std::max<int64_t>(lo - j0, 0));
      sc.end[r] = static_cast<int32_t>(std::max<int64_t>(std::min<int64_t>(hi - j0 + 1, n), 0));
    }
    if (bf16_dot) {
      ops.softmax_tile(rows, n, kFlashBlockN, scale, sc.s, kFlashBlockN, sc.begin.data(),
                       sc.end.data(), sc.m, sc.l, sc.acc, d, d);
      ops.to_bf16(sc.s, rows * kFlashBlockN, sc.p_bf16.data());
      ops.gemm_bf16(rows, d, kFlashBlockN / 2, sc.p_bf16.data(), kFlashBlockN,
                    kv.v_pairs + tile * (kFlashBlockN / 2) * d, d, sc.acc, d, true);
    } else {
      ops.softmax_tile(rows, n, n, 1.f, sc.s, kFlashBlockN, sc.begin.data(), sc.end.data(), sc.m,
                       sc.l, sc.acc, d, d);
      ops.gemm(rows, d, n, sc.s, kFlashBlockN, kv.v + j0 * kv.v_stride, kv.v_stride, sc.acc, d, true);
    }
  }

  for (int r = 0; r < rows; ++r) {
    const int gi = r / nq, qi = r % nq;
    const int h = hk * group + gi;
    const int64_t i = q0 + qi;
    float* out = p.o + ((int64_t(b) * p.seqlen_q + i) * p.num_heads + h) * d;
    float* lse = p.lse + (int64_t(b) * p.num_heads + h) * p.seqlen_q + i;
    const float* acc = sc.acc + int64_t(r) * d;
    if (sc.l[r] > 0.f) {
      const float inv = 1.f / sc.l[r];
      for (int x = 0; x < d; ++x) out[x] = acc[x] * inv;
      *lse = sc.m[r] + std::log(sc.l[r]);
    } else {  // fully masked row
      std::fill(out, out + d, 0.f);
      *lse = kNegInf;
    }
  }
}

// For each (batch, KV head): pack its K^T tiles and V rows (or bf16 pairs on the bf16 dot
// path) in parallel, then run its query tiles in parallel. Packing costs
// O(N_k D) against O(N_q N_k D) of attention.
Status run_flash(const FlashParams& p) {
  const KernelOps& ops = kernel_ops(resolve_simd_path(p.simd));
  const int group = p.num_heads / p.num_heads_k;
  const int d = p.head_dim;
  const bool bf16_dot = ops.gemm_bf16 != nullptr && p.dtype == DType::kBF16 && d % 2 == 0;
  const int block_m = std::min(p.seqlen_q, std::max(1, kFlashRowsPerTask / group));
  const int num_q_tiles = (p.seqlen_q + block_m - 1) / block_m;
  const int num_k_tiles = (p.seqlen_k + kFlashBlockN - 1) / kFlashBlockN;
  const int threads = worker_count(p.threads);
  std::vector<FlashScratch> scratch(static_cast<size_t>(std::min(threads, num_q_tiles)));
  for (FlashScratch& s : scratch) s.init(group * block_m, d, bf16_dot);
  const size_t tile_elems = size_t(num_k_tiles) * d * kFlashBlockN;
  std::vector<float> kt(bf16_dot ? 0 : tile_elems);
  std::vector<float> v_f32(bf16_dot ? 0 : size_t(p.seqlen_k) * d);
  std::vector<uint32_t> kt_pairs(bf16_dot ? tile_elems / 2 : 0), v_pairs(bf16_dot ? tile_elems / 2 : 0);

  for (int b = 0; b < p.batch; ++b) {
    for (int hk = 0; hk < p.num_heads_k; ++hk) {
      const void* k_head = element_at(p.k, p.dtype, b * p.k_batch_stride + hk * p.k_head_stride);
      const void* v_head = element_at(p.v, p.dtype, b * p.v_batch_stride + hk * p.v_head_stride);
      parallel_for(threads, num_k_tiles, [&](int64_t tile, int) {
        const int64_t j0 = tile * kFlashBlockN;
        const int n = static_cast<int>(std::min<int64_t>(kFlashBlockN, p.seqlen_k - j0));
        if (bf16_dot) {
          pack_bf16_pairs(static_cast<const uint16_t*>(k_head) + j0 * p.k_row_stride,
                          static_cast<const uint16_t*>(v_head) + j0 * p.v_row_stride, p.k_row_stride,
                          p.v_row_stride, n, d, kt_pairs.data() + tile * (d / 2) * kFlashBlockN,
                          v_pairs.data() + tile * (kFlashBlockN / 2) * d);
          return;
        }
        ops.pack_transposed(p.dtype, element_at(k_head, p.dtype, j0 * p.k_row_stride),
                            p.k_row_stride, n, d, kt.data() + tile * d * kFlashBlockN, kFlashBlockN);
        ops.load_rows(p.dtype, element_at(v_head, p.dtype, j0 * p.v_row_stride), p.v_row_stride, n,
                      d, 1.f, v_f32.data() + j0 * d, d);
      });
      const HeadKV kv = bf16_dot ? HeadKV{nullptr, nullptr, 0, kt_pairs.data(), v_pairs.data()}
                                 : HeadKV{kt.data(), v_f32.data(), d, nullptr, nullptr};
      parallel_for(threads, num_q_tiles, [&](int64_t task, int worker) {
        flash_task(p, ops, block_m, b, hk, kv, task, scratch[worker]);
      });
    }
  }
  return ok();
}

// ---- paged decode ----

// The reference writes its own fp64 outputs: it passes needs_outputs = false.
Status check_paged(const PagedDecodeParams& p, bool needs_outputs = true) {
  if (!p.q || !p.k_pages || !p.v_pages || !p.block_table || !p.context_lens ||
      (needs_outputs && (!p.o || !p.lse)))
    return fail(Status::kInvalidArgument, "null tensor pointer");
  if (!dtype_valid(p.dtype) || !dtype_valid(p.kv_dtype)) return fail(Status::kInvalidArgument, "unknown dtype");
  if (p.batch < 1 || p.num_heads < 1 || p.num_heads_k < 1 || p.num_pages < 1 || p.page_size < 1 ||
      p.max_pages_per_seq < 1)
    return fail(Status::kInvalidArgument,
                "batch, num_heads, num_heads_k, num_pages, page_size, max_pages_per_seq must be >= 1");
  if (p.num_heads % p.num_heads_k != 0)
    return fail(Status::kInvalidArgument, "num_heads must be a multiple of num_heads_k");
  if (p.head_dim < 1 || p.head_dim > kMaxHeadDim)
    return fail(Status::kInvalidArgument, "head_dim must be in [1, 512]");
  if (p.partition_tokens < 0 || p.partition_tokens % p.page_size != 0)
    return fail(Status::kInvalidArgument, "partition_tokens must be a multiple of page_size");
  for (int b = 0; b < p.batch; ++b) {
    const int64_t len = p.context_lens[b];
    if (len < 0 || len > int64_t(p.max_pages_per_seq) * p.page_size)
      return fail(Status::kInvalidArgument, "context_lens[" + std::to_string(b) + "] = " +
                                                std::to_string(len) + " is outside [0, max_pages_per_seq * page_size]");
    const int64_t used = (len + p.page_size - 1) / p.page_size;
    for (int64_t t = 0; t < used; ++t) {
      const int32_t page = p.block_table[int64_t(b) * p.max_pages_per_seq + t];
      if (page < 0 || page >= p.num_pages)
        return fail(Status::kInvalidArgument, "block_table[" + std::to_string(b) + "][" +
                                                  std::to_string(t) + "] = " + std::to_string(page) +
                                                  " is outside the pool [0, num_pages)");
    }
  }
  return check_simd(p.simd);
}

struct DecodePlan {
  int partition_tokens;  // multiple of page_size
  int num_partitions;
  int chunk_tokens;      // multiple of page_size
};

DecodePlan plan_decode(const PagedDecodeParams& p, int threads) {
  int max_len = 0;
  for (int b = 0; b < p.batch; ++b) max_len = std::max(max_len, p.context_lens[b]);
  const int ps = p.page_size;
  DecodePlan plan;
  plan.chunk_tokens = std::max(1, kDecodeChunkTokens / ps) * ps;
  if (p.partition_tokens > 0) {
    plan.partition_tokens = p.partition_tokens;
  } else {
    // Split K until there are about 4 tasks per worker, never below kDecodeMinPartitionTokens.
    const int64_t wanted = (4 * int64_t(threads) + p.batch - 1) / p.batch;
    const int64_t tokens = std::max<int64_t>(kDecodeMinPartitionTokens, (max_len + wanted - 1) / wanted);
    plan.partition_tokens = static_cast<int>((tokens + ps - 1) / ps * ps);
  }
  plan.num_partitions = std::max(1, (max_len + plan.partition_tokens - 1) / plan.partition_tokens);
  return plan;
}

struct DecodeScratch {
  std::vector<float> q, acc, s, m, l;  // [H, D], [H, D], [H, chunk], [H], [H]
  std::vector<int32_t> begin, end;     // [H]: every score of a chunk is visible
};

// Asks for one page's slab [page_size, H_kv, D] of K and of V to be brought into L2: pages are
// scattered through the pool, so the hardware prefetcher cannot guess the next one.
inline void prefetch_page(const PagedDecodeParams& p, int32_t page) {
  const int64_t bytes = int64_t(p.page_size) * p.num_heads_k * p.head_dim * dtype_bytes(p.kv_dtype);
  const char* k = static_cast<const char*>(element_at(p.k_pages, p.kv_dtype, 0)) + page * bytes;
  const char* v = static_cast<const char*>(element_at(p.v_pages, p.kv_dtype, 0)) + page * bytes;
  for (int64_t off = 0; off < bytes; off += 64) {
    __builtin_prefetch(k + off, 0, 2);
    __builtin_prefetch(v + off, 0, 2);
  }
}

// Grid: (batch, partition). One task reads each page of its token range once, for every KV
// head (a page slab is contiguous), and each K/V row serves the G query heads of its group.
// Writes O/lse directly when there is one partition, otherwise the unnormalized accumulator
// with its m and l for the lse merge.
void decode_task(const PagedDecodeParams& p, const KernelOps& ops, const DecodePlan& plan,
                 int64_t task, DecodeScratch& sc, float* part_acc, float* part_m, float* part_l) {
  const int group = p.num_heads / p.num_heads_k;
  const int h = p.num_heads, d = p.head_dim, ps = p.page_size;
  const int part = static_cast<int>(task % plan.num_partitions);
  const int b = static_cast<int>(task / plan.num_partitions);
  const int64_t len = p.context_lens[b];
  const int64_t t_begin = int64_t(part) * plan.partition_tokens;
  const int64_t t_end = std::min<int64_t>(len, t_begin + plan.partition_tokens);
  const int64_t kv_row = int64_t(p.num_heads_k) * d;  // elements between two slots of a page
  const int32_t* table = p.block_table + int64_t(b) * p.max_pages_per_seq;
  const int chunk = plan.chunk_tokens;

  ops.load_rows(p.dtype, element_at(p.q, p.dtype, int64_t(b) * h * d), d, h, d,
                default_scale(p.softmax_scale, d), sc.q.data(), d);
  std::fill(sc.acc.begin(), sc.acc.end(), 0.f);
  std::fill(sc.m.begin(), sc.m.end(), kNegInf);
  std::fill(sc.l.begin(), sc.l.end(), 0.f);

  for (int i = 0; i < kDecodePrefetchPages; ++i) {
    if (t_begin + int64_t(i) * ps < t_end) prefetch_page(p, table[t_begin / ps + i]);
  }
  for (int64_t t0 = t_begin; t0 < t_end; t0 += chunk) {
    const int tn = static_cast<int>(std::min<int64_t>(chunk, t_end - t0));
    for (int off = 0; off < tn; off += ps) {  // t0 is page-aligned: one page per step
      const int64_t next = t0 + off + int64_t(kDecodePrefetchPages) * ps;
      if (next < t_end) prefetch_page(p, table[next / ps]);
      const int32_t page = table[(t0 + off) / ps];
      const int count = std::min(ps, tn - off);
      for (int hk = 0; hk < p.num_heads_k; ++hk) {
        const int64_t at = (int64_t(page) * ps * p.num_heads_k + hk) * d;
        ops.scores(group, count, d, sc.q.data() + int64_t(hk) * group * d, d, p.kv_dtype,
                   element_at(p.k_pages, p.kv_dtype, at), kv_row,
                   sc.s.data() + int64_t(hk) * group * chunk + off, chunk);
      }
    }
    std::fill(sc.end.begin(), sc.end.end(), tn);
    ops.softmax_tile(h, tn, tn, 1.f, sc.s.data(), chunk, sc.begin.data(), sc.end.data(),
                     sc.m.data(), sc.l.data(), sc.acc.data(), d, d);
    for (int off = 0; off < tn; off += ps) {
      const int32_t page = table[(t0 + off) / ps];
      const int count = std::min(ps, tn - off);
      for (int hk = 0; hk < p.num_heads_k; ++hk) {
        const int64_t at = (int64_t(page) * ps * p.num_heads_k + hk) * d;
        ops.accumulate_values(group, count, d, sc.s.data() + int64_t(hk) * group * chunk + off, chunk,
                              p.kv_dtype, element_at(p.v_pages, p.kv_dtype, at), kv_row,
                              sc.acc.data() + int64_t(hk) * group * d, d);
      }
    }
  }

  for (int row = 0; row < h; ++row) {
    const int64_t bh = int64_t(b) * h + row;
    const float* acc = sc.acc.data() + int64_t(row) * d;
    if (plan.num_partitions > 1) {
      const int64_t slot = bh * plan.num_partitions + part;
      std::copy(acc, acc + d, part_acc + slot * d);
      part_m[slot] = sc.m[row];
      part_l[slot] = sc.l[row];
      continue;
    }
    float* out = p.o + bh * d;
    if (sc.l[row] > 0.f) {
      const float inv = 1.f / sc.l[row];
      for (int x = 0; x < d; ++x) out[x] = acc[x] * inv;
      p.lse[bh] = sc.m[row] + std::log(sc.l[row]);
    } else {
      std::fill(out, out + d, 0.f);
      p.lse[bh] = kNegInf;
    }
  }
}

// FlashDecoding merge of one (batch, head): O = sum_p acc_p e^{m_p - M} / sum_p l_p e^{m_p - M}.
void merge_partitions(const PagedDecodeParams& p, int parts, int64_t bh, const float* part_acc,
                      const float* part_m, const float* part_l) {
  const int d = p.head_dim;
  float* out = p.o + bh * d;
  float big = kNegInf;
  for (int i = 0; i < parts; ++i) big = std::max(big, part_m[bh * parts + i]);
  std::fill(out, out + d, 0.f);
  if (big == kNegInf) {
    p.lse[bh] = kNegInf;
    return;
  }
  float total = 0.f;
  for (int i = 0; i < parts; ++i) {
    const int64_t slot = bh * parts + i;
    if (part_m[slot] == kNegInf) continue;
    const float w = std::exp(part_m[slot] - big);
    total += part_l[slot] * w;
    const float* acc = part_acc + slot * d;
    for (int x = 0; x < d; ++x) out[x] += w * acc[x];
  }
  const float inv = 1.f / total;
  for (int x = 0; x < d; ++x) out[x] *= inv;
  p.lse[bh] = big + std::log(total);
}

Status run_paged(const PagedDecodeParams& p) {
  const KernelOps& ops = kernel_ops(resolve_simd_path(p.simd));
  const int threads_wanted = worker_count(p.threads);
  const DecodePlan plan = plan_decode(p, threads_wanted);
  const int64_t tasks = int64_t(p.batch) * plan.num_partitions;
  const int threads = static_cast<int>(std::min<int64_t>(threads_wanted, tasks));
  const size_t hd = size_t(p.num_heads) * p.head_dim;
  std::vector<DecodeScratch> scratch(threads);
  for (DecodeScratch& s : scratch) {
    s.q.resize(hd);
    s.acc.resize(hd);
    s.s.resize(size_t(p.num_heads) * plan.chunk_tokens);
    s.m.resize(p.num_heads);
    s.l.resize(p.num_heads);
    s.begin.assign(p.num_heads, 0);
    s.end.resize(p.num_heads);
  }
  std::vector<float> part_acc, part_m, part_l;
  if (plan.num_partitions > 1) {
    const size_t slots = size_t(p.batch) * p.num_heads * plan.num_partitions;
    part_acc.resize(slots * p.head_dim);
    part_m.resize(slots);
    part_l.resize(slots);
  }
  parallel_for(threads, tasks, [&](int64_t task, int worker) {
    decode_task(p, ops, plan, task, scratch[worker], part_acc.data(), part_m.data(), part_l.data());
  });
  if (plan.num_partitions > 1) {
    parallel_for(threads, int64_t(p.batch) * p.num_heads, [&](int64_t bh, int) {
      merge_partitions(p, plan.num_partitions, bh, part_acc.data(), part_m.data(), part_l.data());
    });
  }
  return ok();
}

// ---- fp64 reference ----

// One (batch, head): materializes S = scale * q k^T [seqlen_q, seqlen_k], masks, softmax, S V.
// q: [seqlen_q, d], k and v: [seqlen_k, d] (fp64, contiguous). out: row stride out_stride.
void naive_head(const double* q, const double* k, const double* v, int seqlen_q, int seqlen_k,
                int d, double scale, const MaskGeometry& mask, double* out, int64_t out_stride,
                double* lse, int64_t lse_stride) {
  std::vector<double> s(size_t(seqlen_q) * seqlen_k);
  for (int i = 0; i < seqlen_q; ++i) {
    for (int j = 0; j < seqlen_k; ++j) {
      double dot = 0.0;
      for (int x = 0; x < d; ++x) dot += q[int64_t(i) * d + x] * k[int64_t(j) * d + x];
      s[size_t(i) * seqlen_k + j] = scale * dot;
    }
  }
  for (int i = 0; i < seqlen_q; ++i) {
    int64_t lo, hi;
    mask.range(i, &lo, &hi);
    double* o = out + i * out_stride;
    std::fill(o, o + d, 0.0);
    if (lo > hi) {
      lse[i * lse_stride] = -std::numeric_limits<double>::infinity();
      continue;
    }
    const double* row = s.data() + size_t(i) * seqlen_k;
    double big = -std::numeric_limits<double>::infinity();
    for (int64_t j = lo; j <= hi; ++j) big = std::max(big, row[j]);
    double total = 0.0;
    for (int64_t j = lo; j <= hi; ++j) {
      const double e = std::exp(row[j] - big);
      total += e;
      for (int x = 0; x < d; ++x) o[x] += e * v[j * d + x];
    }
    for (int x = 0; x < d; ++x) o[x] /= total;
    lse[i * lse_stride] = big + std::log(total);
  }
}

Status check_reference(const ReferenceParams& p) {
  if (!p.q || !p.k || !p.v || !p.o || !p.lse) return fail(Status::kInvalidArgument, "null tensor pointer");
  if (!dtype_valid(p.dtype)) return fail(Status::kInvalidArgument, "unknown dtype");
  if (p.batch < 1 || p.seqlen_q < 1 || p.seqlen_k < 1 || p.num_heads < 1 || p.num_heads_k < 1 ||
      p.head_dim < 1)
    return fail(Status::kInvalidArgument, "all sizes must be >= 1");
  if (p.num_heads % p.num_heads_k != 0)
    return fail(Status::kInvalidArgument, "num_heads must be a multiple of num_heads_k");
  if (p.window < 0) return fail(Status::kInvalidArgument, "window must be >= 0");
  return Status::kOk;
}

Status run_reference(const ReferenceParams& p) {
  const int group = p.num_heads / p.num_heads_k;
  const int d = p.head_dim;
  const double scale = p.softmax_scale > 0 ? p.softmax_scale : 1.0 / std::sqrt(double(d));
  const MaskGeometry mask{int64_t(p.seqlen_k) - p.seqlen_q, p.seqlen_k, p.is_causal, p.window};
  parallel_for(hardware_threads(), int64_t(p.batch) * p.num_heads, [&](int64_t bh, int) {
    const int b = static_cast<int>(bh / p.num_heads), h = static_cast<int>(bh % p.num_heads);
    const int hk = h / group;
    std::vector<double> q(size_t(p.seqlen_q) * d), k(size_t(p.seqlen_k) * d), v(size_t(p.seqlen_k) * d);
    for (int i = 0; i < p.seqlen_q; ++i)
      for (int x = 0; x < d; ++x)
        q[size_t(i) * d + x] = load_double(p.dtype, p.q, ((int64_t(b) * p.seqlen_q + i) * p.num_heads + h) * d + x);
    for (int j = 0; j < p.seqlen_k; ++j)
      for (int x = 0; x < d; ++x) {
        const int64_t at = ((int64_t(b) * p.seqlen_k + j) * p.num_heads_k + hk) * d + x;
        k[size_t(j) * d + x] = load_double(p.dtype, p.k, at);
        v[size_t(j) * d + x] = load_double(p.dtype, p.v, at);
      }
    naive_head(q.data(), k.data(), v.data(), p.seqlen_q, p.seqlen_k, d, scale, mask,
               p.o + (int64_t(b) * p.seqlen_q * p.num_heads + h) * d, int64_t(p.num_heads) * d,
               p.lse + (int64_t(b) * p.num_heads + h) * p.seqlen_q, 1);
  });
  return ok();
}

Status run_reference_paged(const PagedDecodeParams& p, double* o, double* lse) {
  const int group = p.num_heads / p.num_heads_k;
  const int d = p.head_dim, ps = p.page_size;
  const double scale = p.softmax_scale > 0 ? p.softmax_scale : 1.0 / std::sqrt(double(d));
  parallel_for(hardware_threads(), int64_t(p.batch) * p.num_heads, [&](int64_t bh, int) {
    const int b = static_cast<int>(bh / p.num_heads), h = static_cast<int>(bh % p.num_heads);
    const int hk = h / group;
    const int len = p.context_lens[b];
    if (len == 0) {
      std::fill(o + bh * d, o + bh * d + d, 0.0);
      lse[bh] = -std::numeric_limits<double>::infinity();
      return;
    }
    std::vector<double> q(d), k(size_t(len) * d), v(size_t(len) * d);
    for (int x = 0; x < d; ++x) q[x] = load_double(p.dtype, p.q, bh * d + x);
    for (int t = 0; t < len; ++t) {  // gather token t through the block table
      const int64_t page = p.block_table[int64_t(b) * p.max_pages_per_seq + t / ps];
      const int64_t at = ((page * ps + t % ps) * p.num_heads_k + hk) * d;
      for (int x = 0; x < d; ++x) {
        k[size_t(t) * d + x] = load_double(p.kv_dtype, p.k_pages, at + x);
        v[size_t(t) * d + x] = load_double(p.kv_dtype, p.v_pages, at + x);
      }
    }
    const MaskGeometry all_keys{len - 1, len, false, 0};
    naive_head(q.data(), k.data(), v.data(), 1, len, d, scale, all_keys, o + bh * d, d, lse + bh, 1);
  });
  return ok();
}

// ---- timing ----

template <typename Run>
Status time_loop(const TimingParams& t, std::vector<int64_t>* samples, Run run) {
  using Clock = std::chrono::steady_clock;
  samples->clear();
  for (int i = 0; i < t.warmup; ++i) {
    const Status s = run();
    if (s != Status::kOk) return s;
  }
  const auto start = Clock::now();
  for (;;) {
    const auto t0 = Clock::now();
    const Status s = run();
    const auto t1 = Clock::now();
    if (s != Status::kOk) return s;
    samples->push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
    const double elapsed_ms = std::chrono::duration<double, std::milli>(t1 - start).count();
    const int reps = static_cast<int>(samples->size());
    if (reps >= t.max_reps || elapsed_ms >= t.max_time_ms) break;
    if (reps >= t.min_reps && elapsed_ms >= t.min_time_ms) break;
  }
  return ok();
}

template <typename Body>
Status guarded(Body body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return fail(Status::kOutOfMemory, "out of memory for kernel scratch");
  }
}

}  // namespace

const char* last_error() { return g_last_error.c_str(); }

void set_contiguous_strides(FlashParams* p) {
  const int64_t d = p->head_dim;
  p->q_head_stride = d;
  p->q_row_stride = p->num_heads * d;
  p->q_batch_stride = int64_t(p->seqlen_q) * p->q_row_stride;
  p->k_head_stride = p->v_head_stride = d;
  p->k_row_stride = p->v_row_stride = p->num_heads_k * d;
  p->k_batch_stride = p->v_batch_stride = int64_t(p->seqlen_k) * p->k_row_stride;
}

Status flash_forward(const FlashParams& params) {
  return guarded([&] {
    const Status s = check_flash(params);
    return s != Status::kOk ? s : run_flash(params);
  });
}

Status paged_decode(const PagedDecodeParams& params) {
  return guarded([&] {
    const Status s = check_paged(params);
    return s != Status::kOk ? s : run_paged(params);
  });
}

Status reference_attention(const ReferenceParams& params) {
  return guarded([&] {
    const Status s = check_reference(params);
    return s != Status::kOk ? s : run_reference(params);
  });
}

Status reference_paged_decode(const PagedDecodeParams& params, double* o, double* lse) {
  return guarded([&] {
    if (!o || !lse) return fail(Status::kInvalidArgument, "null output pointer");
    const Status s = check_paged(params, false);
    return s != Status::kOk ? s : run_reference_paged(params, o, lse);
  });
}

Status time_flash_forward(const FlashParams& params, const TimingParams& timing,
                          std::vector<int64_t>* samples_ns) {
  return guarded([&] {
    const Status s = check_flash(params);
    if (s != Status::kOk) return s;
    return time_loop(timing, samples_ns, [&] { return run_flash(params); });
  });
}

Status time_paged_decode(const PagedDecodeParams& params, const TimingParams& timing,
                         std::vector<int64_t>* samples_ns) {
  return guarded([&] {
    const Status s = check_paged(params);
    if (s != Status::kOk) return s;
    return time_loop(timing, samples_ns, [&] { return run_paged(params); });
  });
}

// ---- fp16 / bf16 bit patterns ----

float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {  // subnormal: normalize
    int e = -1;
    do {
      ++e;
      mant <<= 1;
    } while ((mant & 0x400u) == 0);
    bits = sign | (uint32_t(112 - e) << 23) | ((mant & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float bf16_to_float(uint16_t h) {
  const uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t float_to_half(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) return sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u);
  if (abs >= 0x477ff000u) return sign | 0x7c00u;  // rounds to >= 65520: inf
  if (abs < 0x38800000u) {                        // below 2^-14: subnormal or zero
    if (abs < 0x33000000u) return sign;           // below half the smallest subnormal
    const uint32_t e = abs >> 23;
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - e;  // 14..24
    uint32_t half = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1u))) ++half;
    return sign | static_cast<uint16_t>(half);
  }
  uint32_t half = ((abs >> 13) - (112u << 10));
  const uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;
  return sign | static_cast<uint16_t>(half);
}

uint16_t float_to_bf16(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

}  // namespace attnscope
