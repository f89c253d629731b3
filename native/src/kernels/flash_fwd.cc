// FlashAttention forward on the CPU: tiles of (query heads of one KV group) x (queries), the
// online softmax (running max m, sum l, rescale of the accumulator), masks and GQA; the inner
// loops are KernelOps entries chosen per SIMD path (ops.h).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <new>
#include <vector>

#include "kernels/internal.h"
#include "kernels/ops.h"

namespace attnscope {
namespace detail {

namespace {

// Flash tiles. Rows of a task are (query heads of one KV group) x (queries of one tile), so the
// K/V tile loaded once serves every head of the group (GQA without copying K/V).
// 144 (24 register blocks of 6 rows) rather than 72: each K / V tile brought from L2 or L3
// serves twice the rows; one thread at N = 4k, D = 128 ran 1.06x faster on a Zen 5 core (CPU
// time, best of 3 alternating runs; 288 gained less than the noise).
constexpr int kFlashRowsPerTask = 144;
// Keys per tile (S is rows x tile, K^T is D x tile): 64 on the bf16 dot paths, 128 on fp32,
// where a row's per-tile softmax work (two reductions, the max check, l) and the P V
// micro-kernels' loads and stores of the accumulator are spread over twice the keys: one
// thread at N = 4k and 16k, D = 64 ran 1.05x and 1.06x faster on a Zen 5 core (CPU time,
// median of interleaved runs; D = 128 unchanged).
constexpr int kFlashBlockN = 64;
constexpr int kFlashBlockNFp32 = 128;
static_assert(kFlashBlockN % 64 == 0 && kFlashBlockNFp32 % 64 == 0,
              "key tile must be a whole number of B panels (16 or 64 floats)");

// Rows per chunk of a key tile that the mask cuts (flash_task): a multiple of every path's
// register-block rows (6 on x86 and NEON, 4 on SIMD128).
constexpr int kMaskChunkRows = 24;

// Queries per tile: at most kFlashRowsPerTask rows (group x queries) per task, the tile count
// rounded up to a multiple of the threads and the queries spread evenly over the tiles. Tasks
// without a causal mask are equal work, so a count that the threads do not divide leaves
// threads idle at the end of each KV head's job: at N = 1k, 8 tiles (7 x 144 + 16 queries)
// on 2 threads ran as 4 + 3.1 tiles (11 % over the even split); now 8 x 128.
int query_tile_rows(int seq_len_q, int group, int threads) {
  const int most = std::max(1, kFlashRowsPerTask / group);
  int tiles = (seq_len_q + most - 1) / most;
  if (threads > 1) tiles = std::min(seq_len_q, (tiles + threads - 1) / threads * threads);
  return (seq_len_q + tiles - 1) / tiles;
}

// Row stride of the O accumulator: D rounded up to 16, the columns gemm_packed may write.
int acc_stride(int d) { return (d + 15) / 16 * 16; }

}  // namespace

Status check_flash(const FlashParams& p) {
  if (!p.q || !p.k || !p.v || !p.o || !p.lse) return fail(Status::kInvalidArgument, "null tensor pointer");
  if (!dtype_valid(p.dtype)) return fail(Status::kInvalidArgument, "unknown dtype");
  if (p.batch < 1 || p.seq_len_q < 1 || p.seq_len_k < 1 || p.num_heads < 1 || p.num_kv_heads < 1)
    return fail(Status::kInvalidArgument, "batch, seq_len_q, seq_len_k, num_heads, num_kv_heads must be >= 1");
  if (p.num_heads % p.num_kv_heads != 0)
    return fail(Status::kInvalidArgument, "num_heads must be a multiple of num_kv_heads");
  if (p.head_dim < 1 || p.head_dim > kMaxHeadDim)
    return fail(Status::kInvalidArgument, "head_dim must be in [1, " + std::to_string(kMaxHeadDim) + "]");
  if (p.window < 0) return fail(Status::kInvalidArgument, "window must be >= 0");
  return check_simd(p.simd);
}

namespace {

// One worker's scratch for a flash task: Q (scaled), O accumulator, S/P tile, m, l. Kept per
// calling thread between calls (flash_scratch) and grown only: allocated per call, the 130-260
// KiB were taken from and given back to the heap each time, and with transparent huge pages
// the kernel zeroed a fresh 2 MiB page per call: 2.2 % of a 2-thread N = 1k, D = 64 causal
// run's flash samples (perf cpu-clock, Zen 3). No part is read before the task writes it.
struct FlashScratch {
  std::vector<float> buffer;
  float *q, *acc, *s, *m, *l;
  std::vector<int32_t> begin, end;  // visible columns of each row in the current key tile
  std::vector<uint16_t> q_bf16, p_bf16;  // bf16 dot path: Q rows as given, P rounded to bf16
  void init(int rows_wanted, int d, bool bf16_dot) {
    const int rows = (rows_wanted + 15) / 16 * 16;  // room for gemm_bf16's row padding (AMX: 16)
    const int ld_acc = acc_stride(d);
    begin.resize(rows);
    end.resize(rows);
    q_bf16.resize(bf16_dot ? size_t(rows) * d : 0);
    p_bf16.resize(bf16_dot ? size_t(rows) * kFlashBlockN : 0);
    const size_t sizes[] = {size_t(rows) * d, size_t(rows) * ld_acc, size_t(rows) * kFlashBlockNFp32,
                            size_t(rows), size_t(rows)};
    size_t total = 0;
    for (size_t n : sizes) total += (n + 15) / 16 * 16;
    if (buffer.size() < total) buffer.assign(total, 0.f);
    float* cursor = buffer.data();
    float** slots[] = {&q, &acc, &s, &m, &l};
    for (int i = 0; i < 5; ++i) {
      *slots[i] = cursor;
      cursor += (sizes[i] + 15) / 16 * 16;
    }
  }
};

std::vector<FlashScratch>& flash_scratch() {
  thread_local std::vector<FlashScratch> scratch;
  return scratch;
}

// K and V of one (batch, KV head), made ready once for all its query tiles. fp32 path: K^T
// and V of each key tile in fp32 B panels of gemm_packed (ops.h), zero-padded to whole tiles
// and panels. bf16 dot path (ops.gemm_bf16): K^T and V as bf16 pairs along the reduced
// dimension, zero-padded to whole tiles.
struct HeadKV {
  int block_n;      // keys per tile: kFlashBlockNFp32 (fp32 panels) or kFlashBlockN (bf16 pairs)
  const float* kt;  // [num_key_tiles, block_n / P, head_dim, P] (P = ops.panel_width)
  const float* v;   // [num_key_tiles, ceil(head_dim / P), block_n, P]
  int64_t v_tile;   // floats per key tile of v
  const uint32_t* kt_pairs;  // [num_key_tiles, head_dim / 2, kFlashBlockN]: (K[j, 2p], K[j, 2p+1])
  const uint32_t* v_pairs;   // [num_key_tiles, kFlashBlockN / 2, head_dim]: (V[2p, x], V[2p+1, x])
};

// A grow-only buffer in allocate_page_pool's memory (2 MiB aligned, transparent huge pages
// asked for): a query tile sweeps every K/V tile of its head, 8 MiB of packed K^T and 8 MiB
// of V at N = 16k, D = 128, more 4 KiB pages than the L2 TLB holds.
template <typename T>
class HugeBuffer {
 public:
  HugeBuffer() = default;
  HugeBuffer(const HugeBuffer&) = delete;
  HugeBuffer& operator=(const HugeBuffer&) = delete;
  ~HugeBuffer() { free_page_pool(data_); }
  // At least `count` elements (contents unspecified); throws std::bad_alloc.
  T* grow(size_t count) {
    if (count > capacity_) {
      free_page_pool(data_);
      bool huge = false;
      data_ = static_cast<T*>(allocate_page_pool(count * sizeof(T), &huge));
      capacity_ = data_ != nullptr ? count : 0;
      if (data_ == nullptr) throw std::bad_alloc();
    }
    return data_;
  }

 private:
  T* data_ = nullptr;
  size_t capacity_ = 0;
};

// The packed K^T / V of one (batch, KV head), kept per calling thread between calls: fresh
// buffers of a few MiB were mapped, faulted in page by page and zeroed on every call, which
// cost 15-25% of a one-thread N = 2k-4k run (perf, cpu-clock). Grows to the largest call.
struct PackedKV {
  HugeBuffer<float> kt, v_panels;
  HugeBuffer<uint32_t> kt_pairs, v_pairs;
};

PackedKV& packed_kv() {
  thread_local PackedKV packed;
  return packed;
}

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

// One query tile of one (batch b, KV head hk); rows = the group's query heads x the tile.
// `task` 0 is the last query tile (under a causal mask the heaviest), 1 the one before, ...
// bf16 dot path (vdpbf16ps or AMX TDPBF16PS): Q K^T from the bf16 inputs as given; P is
// rounded to bf16 only as the operand of P V (as flash-attn does on GPUs): P in [0, 1] rounds
// with relative error <= 2^-9, so |O - O_exact| <= 2^-9 max_j |V_j| beyond fp32 rounding (the
// weights sum to 1 after the division by l, which uses the unrounded fp32 P). Accumulation fp32.
void flash_task(const FlashParams& p, const KernelOps& ops, int block_m, int b, int hk,
                const HeadKV& kv, int64_t task, FlashScratch& sc) {
  const int group = p.num_heads / p.num_kv_heads;
  const int d = p.head_dim;
  const int num_q_tiles = (p.seq_len_q + block_m - 1) / block_m;
  const int q_tile = num_q_tiles - 1 - static_cast<int>(task);
  const int q0 = q_tile * block_m;
  const int nq = std::min(block_m, p.seq_len_q - q0);
  const int rows = group * nq;  // row r = gi * nq + qi: head hk * group + gi, query q0 + qi
  const float scale = default_scale(p.softmax_scale, d);
  const MaskGeometry mask{int64_t(p.seq_len_k) - p.seq_len_q, p.seq_len_k, p.is_causal, p.window};
  const bool bf16_dot = kv.kt_pairs != nullptr;
  // gemm_bf16 runs on whole row blocks (AMX tiles: 16); rows past `rows` are zero operands.
  const int rows_mm = bf16_dot ? (rows + ops.gemm_bf16_rows - 1) / ops.gemm_bf16_rows * ops.gemm_bf16_rows : rows;

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
  if (bf16_dot) std::fill(sc.q_bf16.begin() + int64_t(rows) * d, sc.q_bf16.begin() + int64_t(rows_mm) * d, uint16_t(0));
  const int ld_acc = acc_stride(d);
  std::fill(sc.acc, sc.acc + int64_t(rows_mm) * ld_acc, 0.f);
  std::fill(sc.m, sc.m + rows, kNegInf);
  std::fill(sc.l, sc.l + rows, 0.f);

  int64_t lo_first, hi_first, lo_last, hi_last;
  mask.range(q0, &lo_first, &hi_first);
  mask.range(q0 + nq - 1, &lo_last, &hi_last);
  // Key tiles touching the union of the rows' visible ranges (lo and hi grow with i).
  const int bn = kv.block_n;
  const int64_t tile_begin = lo_first / bn;
  const int64_t tile_end = hi_last < lo_first ? tile_begin : hi_last / bn + 1;
  // O's rows are written once, at the end, into lines no cache holds (2 KiB apart at H = 8, D =
  // 64): asked for with write intent a share per key tile, they arrive while the tiles compute.
  const auto out_row = [&](int r) {
    return p.o + ((int64_t(b) * p.seq_len_q + q0 + r % nq) * p.num_heads + hk * group + r / nq) * d;
  };
  const int64_t prefetch_step = (rows + (tile_end - tile_begin) - 1) / std::max<int64_t>(1, tile_end - tile_begin);
  for (int64_t tile = tile_begin; tile < tile_end; ++tile) {
    const int64_t j0 = tile * bn;
    const int64_t pr0 = (tile - tile_begin) * prefetch_step;
    for (int64_t r = pr0; r < std::min<int64_t>(rows, pr0 + prefetch_step); ++r) {
      const float* out = out_row(static_cast<int>(r));
      for (int x = 0; x < d; x += 16) __builtin_prefetch(out + x, 1, 3);
      __builtin_prefetch(out + d - 1, 1, 3);  // a row need not start on a line
    }
    const int n = static_cast<int>(std::min<int64_t>(bn, p.seq_len_k - j0));
    // Every row sees the whole tile when the last row's first key and the first row's last
    // key bound it (lo and hi grow with the query); else the mask cuts it (causal diagonal,
    // window edge) and the products run on row chunks over their visible columns only.
    const bool full = lo_last <= j0 && hi_first >= j0 + n - 1;
    if (full) {
      std::fill(sc.begin.begin(), sc.begin.begin() + rows, 0);
      std::fill(sc.end.begin(), sc.end.begin() + rows, n);
    } else {
      for (int r = 0; r < rows; ++r) {
        int64_t lo, hi;
        mask.range(q0 + r % nq, &lo, &hi);
        sc.begin[r] = static_cast<int32_t>(std::min<int64_t>(std::max<int64_t>(lo - j0, 0), n));
        sc.end[r] = static_cast<int32_t>(std::max<int64_t>(std::min<int64_t>(hi - j0 + 1, n), 0));
      }
    }
    if (bf16_dot) {
      ops.gemm_bf16(rows_mm, bn, d / 2, sc.q_bf16.data(), d,
                    kv.kt_pairs + tile * (d / 2) * bn, bn, sc.s, bn, false);
      ops.softmax_tile(rows, n, bn, scale, sc.s, bn, sc.begin.data(),
                       sc.end.data(), sc.m, sc.l, sc.acc, ld_acc, d);
      ops.to_bf16(sc.s, rows * bn, sc.p_bf16.data());
      std::fill(sc.p_bf16.begin() + int64_t(rows) * bn, sc.p_bf16.begin() + int64_t(rows_mm) * bn, uint16_t(0));
      ops.gemm_bf16(rows_mm, d, bn / 2, sc.p_bf16.data(), bn,
                    kv.v_pairs + tile * (bn / 2) * d, d, sc.acc, ld_acc, true);
      continue;
    }
    const float* kt = kv.kt + tile * d * bn;
    const float* v = kv.v + tile * kv.v_tile;
    if (full) {  // P is 0 past the tile's n keys, where V's panels are zero-padded
      ops.gemm_packed(rows, bn, d, sc.q, d, kt, sc.s, bn, false);
      ops.softmax_tile(rows, n, bn, 1.f, sc.s, bn, sc.begin.data(), sc.end.data(), sc.m, sc.l,
                       sc.acc, ld_acc, d);
      ops.gemm_packed(rows, d, bn, sc.s, bn, v, sc.acc, ld_acc, true);
      continue;
    }
    // Cut tile: S only over the panels holding a chunk's visible columns [a, z), P V only over
    // keys [a, z) (P is 0 elsewhere; softmax_tile writes the columns it does not read). On a
    // causal diagonal tile of 128 x 128 this computes 59 % of the products (counted).
    const int panel = ops.panel_width;
    // The columns [a, z) rows [r0, r1) of a chunk see between them (a >= z: none).
    const auto visible = [&](int r0, int r1, int* a, int* z) {
      *a = *std::min_element(sc.begin.begin() + r0, sc.begin.begin() + r1);
      *z = *std::max_element(sc.end.begin() + r0, sc.end.begin() + r1);
      return *a < *z;
    };
    for (int r0 = 0; r0 < rows; r0 += kMaskChunkRows) {
      const int r1 = std::min(rows, r0 + kMaskChunkRows);
      int a, z;
      if (!visible(r0, r1, &a, &z)) continue;
      const int a_panel = a / panel * panel;
      ops.gemm_packed(r1 - r0, z - a_panel, d, sc.q + int64_t(r0) * d, d, kt + int64_t(a_panel) * d,
                      sc.s + int64_t(r0) * bn + a_panel, bn, false);
    }
    ops.softmax_tile(rows, n, bn, 1.f, sc.s, bn, sc.begin.data(), sc.end.data(), sc.m, sc.l,
                     sc.acc, ld_acc, d);
    for (int r0 = 0; r0 < rows; r0 += kMaskChunkRows) {
      const int r1 = std::min(rows, r0 + kMaskChunkRows);
      int a, z;
      if (!visible(r0, r1, &a, &z)) continue;
      for (int x0 = 0; x0 < d; x0 += panel)  // one V panel (columns x0 .. x0 + panel) at a time
        ops.gemm_packed(r1 - r0, std::min(panel, d - x0), z - a, sc.s + int64_t(r0) * bn + a, bn,
                        v + int64_t(x0) * bn + int64_t(a) * panel, sc.acc + int64_t(r0) * ld_acc + x0,
                        ld_acc, true);
    }
  }

  for (int r = 0; r < rows; ++r) {
    const int gi = r / nq, qi = r % nq;
    const int h = hk * group + gi;
    const int64_t i = q0 + qi;
    float* out = out_row(r);
    float* lse = p.lse + (int64_t(b) * p.num_heads + h) * p.seq_len_q + i;
    const float* acc = sc.acc + int64_t(r) * ld_acc;
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

}  // namespace

// Packed K^T and V (or bf16 pairs) of the KV heads one job covers, at most: the heads packed
// together, then all their query tiles run, in one parallel_for. At N = 1k one job covers all
// 8 heads (8 MiB at D = 128); a job per head and per phase (16 fork-joins per call) left a
// thread spinning at each join, 4.4 % of a 2-thread N = 1k, D = 64 run's CPU time (perf
// cpu-clock, Zen 5). At 16k, D = 128 a head's 16 MiB is a job of its own.
constexpr size_t kJobPackedBytes = size_t(8) << 20;

// Jobs of (batch, KV head) pairs: each packs its heads' K^T tiles and V rows (or bf16 pairs on
// the bf16 dot path) in parallel, then runs their query tiles in parallel, in one
// parallel_for: a query task waits only until its own head is packed, and all packing
// tasks are handed out before any query task. Packing costs O(N_k D) against O(N_q N_k D)
// of attention.
Status run_flash(const FlashParams& p) {
  const KernelOps& ops = kernel_ops(dispatch_path(p.simd, KernelKind::kFlashFwd, p.dtype));
  const int group = p.num_heads / p.num_kv_heads;
  const int d = p.head_dim;
  const bool bf16_dot = ops.gemm_bf16 != nullptr && p.dtype == DType::kBF16 && d % ops.gemm_bf16_k == 0;
  const int threads = worker_count(p.threads);
  const int block_m = query_tile_rows(p.seq_len_q, group, threads);
  const int num_q_tiles = (p.seq_len_q + block_m - 1) / block_m;
  const int bn = bf16_dot ? kFlashBlockN : kFlashBlockNFp32;
  const int num_k_tiles = (p.seq_len_k + bn - 1) / bn;
  const size_t tile_elems = size_t(num_k_tiles) * d * bn;  // K^T floats (or bf16) of one head
  const int panel = ops.panel_width;
  const int64_t v_tile = int64_t(bn) * ((d + panel - 1) / panel) * panel;
  const size_t head_bytes = bf16_dot ? tile_elems * 2 * sizeof(uint16_t)
                                     : (tile_elems + size_t(num_k_tiles) * v_tile) * sizeof(float);
  const int64_t kv_heads = int64_t(p.batch) * p.num_kv_heads;
  const int per_job = static_cast<int>(std::min<int64_t>(kv_heads, std::max<size_t>(1, kJobPackedBytes / head_bytes)));

  std::vector<FlashScratch>& scratch = flash_scratch();
  const size_t workers =
      static_cast<size_t>(std::min<int64_t>(threads, int64_t(per_job) * (num_k_tiles + num_q_tiles)));
  if (scratch.size() < workers) scratch.resize(workers);
  for (size_t w = 0; w < workers; ++w) scratch[w].init(group * block_m, d, bf16_dot);
  PackedKV& packed = packed_kv();
  float* kt = nullptr;
  float* v_panels = nullptr;
  uint32_t* kt_pairs = nullptr;
  uint32_t* v_pairs = nullptr;
  if (bf16_dot) {  // pack_bf16_pairs writes every element, padding included
    kt_pairs = packed.kt_pairs.grow(per_job * tile_elems / 2);
    v_pairs = packed.v_pairs.grow(per_job * tile_elems / 2);
  } else {
    kt = packed.kt.grow(per_job * tile_elems);
    v_panels = packed.v_panels.grow(per_job * size_t(num_k_tiles) * v_tile);
  }
  const auto head_kv = [&](int slot) {
    return bf16_dot ? HeadKV{bn, nullptr, nullptr, 0, kt_pairs + slot * tile_elems / 2, v_pairs + slot * tile_elems / 2}
                    : HeadKV{bn, kt + slot * tile_elems, v_panels + slot * num_k_tiles * v_tile, v_tile, nullptr, nullptr};
  };
  // Keys past N_k in the last tile and V columns past D in the last panel are padding that
  // packing never writes: it must be zero, and the buffers hold the previous call's panels.
  const bool k_padded = p.seq_len_k % bn != 0;
  const bool v_padded = d % panel != 0;

  for (int64_t first = 0; first < kv_heads; first += per_job) {
    const int count = static_cast<int>(std::min<int64_t>(per_job, kv_heads - first));
    std::vector<std::atomic<int>> tiles_packed(static_cast<size_t>(count));
    const int64_t pack_tasks = int64_t(count) * num_k_tiles;
    const int64_t query_tasks = int64_t(count) * num_q_tiles;
    parallel_for(threads, pack_tasks + query_tasks, [&](int64_t task, int worker) {
      if (task < pack_tasks) {
        const int slot = static_cast<int>(task / num_k_tiles);
        const int64_t tile = task % num_k_tiles;
        const int64_t bh = first + slot;
        const int b = static_cast<int>(bh / p.num_kv_heads), hk = static_cast<int>(bh % p.num_kv_heads);
        const void* k_head = element_at(p.k, p.dtype, b * p.k_batch_stride + hk * p.k_head_stride);
        const void* v_head = element_at(p.v, p.dtype, b * p.v_batch_stride + hk * p.v_head_stride);
        const int64_t j0 = tile * bn;
        const int n = static_cast<int>(std::min<int64_t>(bn, p.seq_len_k - j0));
        if (bf16_dot) {
          pack_bf16_pairs(static_cast<const uint16_t*>(k_head) + j0 * p.k_row_stride,
                          static_cast<const uint16_t*>(v_head) + j0 * p.v_row_stride, p.k_row_stride,
                          p.v_row_stride, n, d, kt_pairs + (slot * int64_t(num_k_tiles) + tile) * (d / 2) * bn,
                          v_pairs + (slot * int64_t(num_k_tiles) + tile) * (bn / 2) * d);
        } else {
          float* kt_tile = kt + (slot * int64_t(num_k_tiles) + tile) * d * bn;
          float* v_tile_at = v_panels + (slot * int64_t(num_k_tiles) + tile) * v_tile;
          if (n < bn && k_padded) std::fill(kt_tile, kt_tile + int64_t(d) * bn, 0.f);
          if (v_padded || (n < bn && k_padded)) std::fill(v_tile_at, v_tile_at + v_tile, 0.f);
          ops.pack_panels(p.dtype, element_at(k_head, p.dtype, j0 * p.k_row_stride), p.k_row_stride,
                          d, n, true, d, kt_tile);
          ops.pack_panels(p.dtype, element_at(v_head, p.dtype, j0 * p.v_row_stride), p.v_row_stride,
                          n, d, false, bn, v_tile_at);
        }
        tiles_packed[slot].fetch_add(1, std::memory_order_release);
        return;
      }
      // Under a causal mask the heaviest (last) query tile of every head first, then the next:
      // tiles of unequal work balance at the tail. Else head by head (its K/V stays in cache).
      const int64_t u = task - pack_tasks;
      const int slot = static_cast<int>(p.is_causal ? u % count : u / num_q_tiles);
      const int64_t rank = p.is_causal ? u / count : u % num_q_tiles;
      // Packing tasks always run (query tasks wait on them); query tiles stop on a cancel.
      if (kernels_cancelled()) return;
      wait_at_least(tiles_packed[slot], num_k_tiles);
      const int64_t bh = first + slot;
      flash_task(p, ops, block_m, static_cast<int>(bh / p.num_kv_heads), static_cast<int>(bh % p.num_kv_heads),
                 head_kv(slot), rank, scratch[worker]);
    });
  }
  return ok();
}

}  // namespace detail

void set_contiguous_strides(FlashParams* p) {
  const int64_t d = p->head_dim;
  p->q_head_stride = d;
  p->q_row_stride = p->num_heads * d;
  p->q_batch_stride = int64_t(p->seq_len_q) * p->q_row_stride;
  p->k_head_stride = p->v_head_stride = d;
  p->k_row_stride = p->v_row_stride = p->num_kv_heads * d;
  p->k_batch_stride = p->v_batch_stride = int64_t(p->seq_len_k) * p->k_row_stride;
}

Status flash_forward(const FlashParams& params) {
  return detail::guarded([&] {
    const Status s = detail::check_flash(params);
    return s != Status::kOk ? s : detail::run_flash(params);
  });
}

}  // namespace attnscope
