// PagedAttention decode on the CPU: one query token per sequence over its block table, long
// contexts split across partitions and merged through lse (FlashDecoding).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "kernels/cpu_features.h"
#include "kernels/internal.h"
#include "kernels/ops.h"
#include "peaks/peaks.h"

namespace attnscope {
namespace detail {

namespace {

// Decode: tokens scored per softmax step (whole pages), and the smallest split-K partition.
constexpr int kDecodeChunkTokens = 64;
constexpr int kDecodeMinPartitionTokens = 256;
constexpr int kDecodePrefetchPages = 2;  // pages ahead whose K rows are requested
// Pages ahead whose K and V the fused AVX2 step requests (KernelOps::decode_page): the next
// page. Two ahead took 1.04-1.10x its CPU time at 32k context, four ahead 1.13x that of two
// (paired, Zen 3, 2 threads, load 8-22; DESIGN.md, decode on AVX2). The AVX512-BF16 step keeps
// kDecodePrefetchPages for its first pages.
constexpr int kAvx2FusedPrefetchPages = 1;
// Pages ahead whose K and V the fused AVX512-BF16 step requests, in both reading modes (pages
// read 4 at a time or one by one before their steps): the reads then find most lines in L2 or
// L3 instead of DRAM. Against requesting the page two ahead (one by one) or none (4 at a time),
// paired CPU time, 32k context, 2 threads, 2-vCPU AMD EPYC (family 25 model 17), load 11-23:
// scattered pages 4 ahead 1.06-1.11x, 8 1.09-1.13x, 12 1.16-1.19x, 16 1.17-1.19x, 24 1.17x, 32
// 1.16x, 64 1.09-1.10x; consecutive 4 ahead 0.99-1.00x, 8 1.04x, 16 1.10-1.12x. The step's hint
// (prefetcht1) matters at that distance: prefetcht0 and prefetchnta 0.68-0.70x of it, t2 0.99x.
// A task of fewer than 8 x 16 pages requests an eighth of its pages ahead (at least
// kDecodePrefetchPages), so that most of its pages are requested before their reads: B = 1 at
// 4k context (tasks of 32 pages) 16 ahead 1.02x (scattered) and 0.97x (consecutive) of main,
// 4 ahead 1.08x and 1.01x (A/A 1.02; 150 rounds, p10-p90 0.85-1.6: L3-resident pages).
// DESIGN.md, "Decode overlap, session 36". On AMD family 26 (Zen 5) the kVnni16 step requests
// fewer (vnni16_step_ahead).
constexpr int kBf16StepPrefetchPages = 16;

// Pieces ahead whose K and V the kVnni16 step requests (the most; a short task requests an
// eighth of its pieces). On AMD family 26 (Zen 5), 4 instead of kBf16StepPrefetchPages: in one
// build with the distance switched per call, rotating per round, paired process CPU time, 32k
// context, 2 threads (2-vCPU VM, family 26 model 2, load 19-24), 4 ahead / 16 ahead: B = 1
// 16-token pages scattered 1.075x (p10 1.05, p90 1.17), consecutive 1.05x (0.99-1.39); B = 16
// scattered 1.10x and 1.13x (p10 0.93-0.99), consecutive 1.15x (0.97-1.25); B = 1 128-token
// pages scattered 1.07x (0.92-1.22); A/A 0.93-1.01x (p10 0.75-0.97, p90 1.03-1.24); 2, 3, 6 and 8
// ahead 1.03-1.15x. This build against main's (bench-decode.ts --base, load 20-34): scattered
// B = 1 1.08x (p10 0.93, p90 1.21), B = 16 1.05x (0.93-1.19); consecutive 1.09x (1.00-1.24) and
// 1.15x (1.01-1.37); A/A 0.99x and 0.99x (0.85-1.17). Session 43 saw 1.06-1.10x at B = 1 and
// 0.98-0.99x at B = 16 (load 21-26). Other CPUs keep 16 (on Zen 4 this step ran 0.95-1.02x at 4, 8
// or 32 ahead against 16: DESIGN.md, "Decode's P V in one pass, session 42").
// DESIGN.md, "Decode on Zen 5, session 44".
constexpr int kVnni16Zen5PrefetchPieces = 4;

bool amd_family_26() {
  static const bool zen5 = cpu_features().vendor == "AuthenticAMD" && cpu_features().family == 26;
  return zen5;
}

int vnni16_step_ahead() { return amd_family_26() ? kVnni16Zen5PrefetchPieces : kBf16StepPrefetchPages; }

// Whether the kVnni16 step requests the later pieces into L1 (prefetcht0) rather than L2
// (prefetcht1): on AMD family 26, where they are only 4 pieces (256 KiB of K and V at H_kv 8,
// D 128) ahead and one line is requested beside each line the step loads. Against prefetcht1,
// bench-decode.ts --layout vnni16 (32k, 16-token pages, scattered, 2 threads, paired process
// CPU time, 64 pairs), the prefetcht0 build as --base (ratio < 1: prefetcht0 faster), 2-vCPU
// family 26 model 2 VM idle (load 1-1.6): B = 1 0.94x and 0.94x (p10 0.62-0.84, p90 1.13-1.29),
// B = 16 0.97x and 0.97x (0.84-0.95, 1.14-1.16), A/A 0.99x and 1.00x twice; under load 3-20
// (session 48) faster in 6 of 6 runs (1.02-1.05x). Other CPUs request 16 pieces (1 MiB) ahead,
// more than L1 holds, and keep prefetcht1 (at 16 ahead the NHD step on Zen 4 ran 0.68-0.70x
// with prefetcht0: kBf16StepPrefetchPages).
// DESIGN.md, "Decode on Zen 5, session 49".
bool vnni16_requests_into_l1() { return amd_family_26(); }

// Whether the fused AVX512-BF16 step over NHD pages requests the piece kBf16StepPrefetchPages
// ahead. Not on AMD family 26 (Zen 5): there the NHD step without them, its read pass kept, ran
// 1.12x (B = 1, p10 1.01, p90 1.27) and 1.20x (B = 16, 1.08-1.33) at 32k over scattered pages,
// 1.03x consecutive (A/A 0.99-1.02, p10-p90 0.83-1.22; paired process CPU time, 2-vCPU VM, load
// 16-20), where that VM's memory latency (~410 ns) leaves a core about 12-17 lines in flight, so
// the requests only compete with the read pass's loads. On Zen 4 they gave 1.17-1.19x (above).
// DESIGN.md, "Decode on Zen 5, session 43".
bool bf16_step_requests() { return !amd_family_26(); }

}  // namespace

int64_t first_visible_token(const PagedDecodeParams& p, int64_t len) {
  return p.window > 0 ? std::max<int64_t>(0, len - p.window) : 0;
}

Status check_paged(const PagedDecodeParams& p, bool needs_outputs) {
  if (!p.q || !p.k_pages || !p.v_pages || !p.block_table || !p.context_lens ||
      (needs_outputs && (!p.o || !p.lse)))
    return fail(Status::kInvalidArgument, "null tensor pointer");
  if (!dtype_valid(p.dtype) || !dtype_valid(p.kv_dtype)) return fail(Status::kInvalidArgument, "unknown dtype");
  if (p.batch < 1 || p.num_heads < 1 || p.num_kv_heads < 1 || p.num_pages < 1 || p.page_size < 1 ||
      p.max_pages_per_seq < 1)
    return fail(Status::kInvalidArgument,
                "batch, num_heads, num_kv_heads, num_pages, page_size, max_pages_per_seq must be >= 1");
  if (p.num_heads % p.num_kv_heads != 0)
    return fail(Status::kInvalidArgument, "num_heads must be a multiple of num_kv_heads");
  if (p.head_dim < 1 || p.head_dim > kMaxHeadDim)
    return fail(Status::kInvalidArgument, "head_dim must be in [1, " + std::to_string(kMaxHeadDim) + "]");
  if (p.partition_tokens < 0 || p.partition_tokens % p.page_size != 0)
    return fail(Status::kInvalidArgument, "partition_tokens must be a multiple of page_size");
  if (p.window < 0) return fail(Status::kInvalidArgument, "window must be >= 0");
  if (p.kv_cache_layout != KvCacheLayout::kNHD && p.kv_cache_layout != KvCacheLayout::kVnni16)
    return fail(Status::kInvalidArgument, "unknown kv_cache_layout");
  if (p.kv_cache_layout == KvCacheLayout::kVnni16 && (p.kv_dtype != DType::kBF16 || p.page_size % 16 != 0 || p.head_dim % 32 != 0))
    return fail(Status::kInvalidArgument,
                "kv_cache_layout vnni16 needs bf16 pools, page_size a multiple of 16 and head_dim a multiple of 32");
  for (int b = 0; b < p.batch; ++b) {
    const int64_t len = p.context_lens[b];
    if (len < 0 || len > int64_t(p.max_pages_per_seq) * p.page_size)
      return fail(Status::kInvalidArgument, "context_lens[" + std::to_string(b) + "] = " +
                                                std::to_string(len) + " is outside [0, max_pages_per_seq * page_size]");
    // The pages the kernel reads: those before the window are never read (vLLM releases them).
    const int64_t used = (len + p.page_size - 1) / p.page_size;
    for (int64_t t = first_visible_token(p, len) / p.page_size; t < used; ++t) {
      const int32_t page = p.block_table[int64_t(b) * p.max_pages_per_seq + t];
      if (page < 0 || page >= p.num_pages)
        return fail(Status::kInvalidArgument, "block_table[" + std::to_string(b) + "][" +
                                                  std::to_string(t) + "] = " + std::to_string(page) +
                                                  " is outside the pool [0, num_pages)");
    }
  }
  return check_simd(p.simd);
}

namespace {

// The grid (batch x split-K partitions) and its threads: run_paged and run_paged_read share it,
// so that the page-read timing reads the kernel's bytes in the kernel's order and split.
struct DecodePlan {
  int partition_tokens;  // multiple of page_size
  int num_partitions;
  int chunk_tokens;      // multiple of page_size
  int64_t tasks;         // batch x num_partitions
  int threads;           // workers, at most tasks
};

// Tokens [t_begin, t_end) of sequence b, whose block-table row is `table`: one task's range.
// Partitions split the pages from the one holding the sequence's first visible token (token 0
// without a window), so each starts on a page; the first partition starts at that token's slot.
struct DecodeRange {
  int b, part;
  int64_t t_begin, t_end;
  const int32_t* table;
};

DecodeRange decode_range(const PagedDecodeParams& p, const DecodePlan& plan, int64_t task) {
  DecodeRange r;
  r.part = static_cast<int>(task % plan.num_partitions);
  r.b = static_cast<int>(task / plan.num_partitions);
  const int64_t len = p.context_lens[r.b], first = first_visible_token(p, len);
  const int64_t base = first / p.page_size * p.page_size + int64_t(r.part) * plan.partition_tokens;
  r.t_begin = std::max(first, base);
  r.t_end = std::min<int64_t>(len, base + plan.partition_tokens);
  r.table = p.block_table + int64_t(r.b) * p.max_pages_per_seq;
  return r;
}

DecodePlan plan_decode(const PagedDecodeParams& p) {
  const int threads = worker_count(p.threads);
  const int ps = p.page_size;
  // The longest run of tokens from a sequence's first read page to its end (decode_range).
  int max_len = 0;
  for (int b = 0; b < p.batch; ++b)
    max_len = std::max<int>(max_len, p.context_lens[b] - first_visible_token(p, p.context_lens[b]) / ps * ps);
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
  plan.tasks = int64_t(p.batch) * plan.num_partitions;
  plan.threads = static_cast<int>(std::min<int64_t>(threads, plan.tasks));
  return plan;
}

// The query rows per KV head that the fused bf16 step runs for a group of `group`: it works on
// blocks of 4 rows sharing one K/V head, so a group that is not a multiple of 4 is padded with
// zero q rows, whose outputs are dropped. 0: the fused step is not used (group 1, MHA, would
// run 4x its arithmetic; the per-head path reads 27 GB/s there against the fused step's 25 GB/s
// at group 4). Measured on one Zen 5 core, bf16 q and pages held in L2, D = 128, 4k context,
// CPU time at load 6-10, per-head path -> padded fused step: group 2 (gemma-2) 25 -> 38 GB/s
// (1.5x), group 3 18 -> 38 GB/s (2.1x), group 7 (Qwen2.5-7B) 11 -> 23.5 GB/s (2.1x); group 4
// unchanged (36-37 GB/s).
int fused_group(int group) { return group == 1 ? 0 : (group + 3) / 4 * 4; }

struct DecodeScratch {
  std::vector<float> q, acc, s, m, l;  // [H, D], [Hp, D], [H, chunk], [Hp], [Hp] (Hp >= H: padded rows)
  std::vector<uint16_t> q_hi, q_lo;    // [Hp, D] bf16 halves of q for ops.decode_pages_bf16
  std::vector<int32_t> begin, end;     // [H]: every score of a chunk is visible
};

// Asks for `rows` rows of `row_bytes` bytes, `stride` bytes apart, to be brought into L2: pages
// are scattered through the pool, so the hardware prefetcher cannot guess the next one.
// Measured on a Zen 5 core (32k context, one thread, CPU time): one (page, KV head) slab per
// step, spread over the steps, was 1.25x faster than asking for whole pages at once (1024
// prefetches per page in a burst, which also cost ~13% of the in-cache time); the distance
// (1, 2, 4 or 8 pages) made no difference beyond the noise.
// Every line counts: requesting every second line (or one per row) and leaving the rest to the
// hardware was 1.4-1.6x slower at 32k context (paired CPU time, Zen 5, two threads).
inline void prefetch_rows(const void* base, int rows, int64_t row_bytes, int64_t stride) {
  const char* p = static_cast<const char*>(base);
  for (int r = 0; r < rows; ++r)
    for (int64_t off = 0; off < row_bytes; off += 64) __builtin_prefetch(p + r * stride + off, 0, 2);
}

// Pages whose K and V read_kv_pages reads together, 256 B of each in turn.
constexpr int kPagedReadGroup = 4;

// The unit that the AVX512-BF16 path reads and steps over, a piece: a page's slots in runs of
// kPieceTokens from its first slot (a page of up to 16 tokens is one piece; one of 128 tokens,
// vLLM's CPU default block size, is eight). A piece's K (and V) rows are contiguous in the pool
// (32 KiB at H_kv 8, D 128, bf16), so the read groups, the two-piece step and the requests
// kBf16StepPrefetchPages pieces ahead keep the L2 footprint that was tuned on 16-token pages
// whatever the page size; whole 128-token pages (256 KiB of K and as much of V each) read 4 at a
// time would be 2 MiB, twice a Zen 4 core's L2.
constexpr int kPieceTokens = 16;

// The first token of the piece holding token t (pages of `ps` tokens).
inline int64_t piece_begin(int64_t t, int ps) {
  const int64_t page_begin = t / ps * ps;
  return page_begin + (t - page_begin) / kPieceTokens * kPieceTokens;
}

// The end of the piece holding token t: kPieceTokens on, or its page's end.
inline int64_t piece_end(int64_t t, int ps) { return std::min(t / ps * ps + ps, piece_begin(t, ps) + kPieceTokens); }

// Reads the K and V rows of tokens [t_begin, t_end) (row_bytes each, pages from `table`) with
// the read-bandwidth peak's loads, in groups of kPagedReadGroup pieces (pages of up to 16
// tokens) from t_begin. A group that is one run of the pool (each piece starting where the last
// ended: consecutive slots, or one page's pieces) is read as its K run, then its V run; any other
// group as the pieces' K and V runs interleaved 256 B by 256 B (peaks::read_streams: 8 address
// streams), a partial first or last piece alone. Over scattered 32 KiB pages the interleaved read
// was 1.37x (64 MiB of K + V a thread) and 1.64x (1 GiB) the page-by-page read, K then V (2 vCPU
// Zen 5, SCHED_FIFO scratch harness, 25-41 rounds; 8 pages 1.35x and 1.63x, K and V of one page
// interleaved 1.20x and 1.38x; DESIGN.md, "Decode reading, session 33"). Over consecutive pages
// the runs read 1.15-1.20x the interleaved order: each 32 KiB page's K then V 0.87x of the read
// peak's loop in the same rounds, the interleaved read 0.84x, runs of 2, 4 and 8 pages' K then
// their V 0.92x, 0.96x and 0.98x (B = 1 32k, 2 threads, CPU time; DESIGN.md, "Decode pages of
// 128 tokens and the read order, session 38").
void read_kv_pages(const PagedDecodeParams& p, const int32_t* table, int64_t t_begin, int64_t t_end,
                   int64_t row_bytes) {
  const int ps = p.page_size;
  const char* k_pool = static_cast<const char*>(p.k_pages);
  const char* v_pool = static_cast<const char*>(p.v_pages);
  auto offset = [&](int64_t t) { return (int64_t(table[t / ps]) * ps + t % ps) * row_bytes; };
  for (int64_t g0 = t_begin, g1; g0 < t_end; g0 = g1) {
    // The group's pieces, and whether they are one run of the pool.
    bool run = true;
    g1 = g0;
    for (int j = 0; j < kPagedReadGroup && g1 < t_end; ++j) {
      const int64_t e = std::min<int64_t>(t_end, piece_end(g1, ps));
      run = run && (j == 0 || offset(g1) == offset(g0) + (g1 - g0) * row_bytes);
      g1 = e;
    }
    if (run) {
      peaks::read_bytes(k_pool + offset(g0), static_cast<size_t>((g1 - g0) * row_bytes));
      peaks::read_bytes(v_pool + offset(g0), static_cast<size_t>((g1 - g0) * row_bytes));
      continue;
    }
    const void* streams[2 * kPagedReadGroup];
    int n = 0;  // pieces gathered, all of `bytes` bytes
    size_t bytes = 0;
    auto flush = [&] {
      if (n == 1) {
        peaks::read_bytes(streams[0], bytes);
        peaks::read_bytes(streams[1], bytes);
      } else if (n > 1) {
        peaks::read_streams(streams, 2 * n, bytes);
      }
      n = 0;
    };
    for (int64_t t0 = g0, next; t0 < g1; t0 = next) {
      next = std::min<int64_t>(g1, piece_end(t0, ps));  // t0's piece, from t0's slot
      const size_t piece = static_cast<size_t>((next - t0) * row_bytes);
      if (n > 0 && piece != bytes) flush();  // a partial first or last piece reads on its own
      bytes = piece;
      streams[2 * n] = k_pool + offset(t0);
      streams[2 * n + 1] = v_pool + offset(t0);
      ++n;
    }
    flush();
  }
}

// The scalar model of a KvCacheLayout::kVnni16 pool, for paths without its step (every CPU): per
// query head, tokens [t_begin, t_end) one at a time through kv_pool_index, fp32 dot products
// and online softmax (FlashAttention-2, Algorithm 1), P in fp32; rows of sc.q, sc.m, sc.l and
// sc.acc unpadded (query head r in row r).
void decode_vnni16_scalar(const PagedDecodeParams& p, const int32_t* table, int64_t t_begin, int64_t t_end,
                          float scale, DecodeScratch& sc) {
  const int d = p.head_dim, ps = p.page_size, group = p.num_heads / p.num_kv_heads;
  const uint16_t* k_pool = static_cast<const uint16_t*>(p.k_pages);
  const uint16_t* v_pool = static_cast<const uint16_t*>(p.v_pages);
  for (int r = 0; r < p.num_heads; ++r) {
    const int hk = r / group;
    const float* q = sc.q.data() + int64_t(r) * d;
    float* acc = sc.acc.data() + int64_t(r) * d;
    float m = kNegInf, l = 0.f;
    for (int64_t t = t_begin; t < t_end; ++t) {
      const int64_t page = table[t / ps];
      const int slot = static_cast<int>(t % ps);
      float s = 0.f;
      for (int x = 0; x < d; ++x)
        s += q[x] * bf16_to_float(k_pool[kv_pool_index(p.kv_cache_layout, false, ps, p.num_kv_heads, d, page, slot, hk, x)]);
      s *= scale;
      const float m_new = std::max(m, s), alpha = std::exp(m - m_new), w = std::exp(s - m_new);
      l = l * alpha + w;
      for (int x = 0; x < d; ++x)
        acc[x] = acc[x] * alpha +
                 w * bf16_to_float(v_pool[kv_pool_index(p.kv_cache_layout, true, ps, p.num_kv_heads, d, page, slot, hk, x)]);
      m = m_new;
    }
    sc.m[r] = m;
    sc.l[r] = l;
  }
}

// Grid: (batch, partition). One task reads each page of its token range once, for every KV
// head (a page slab is contiguous), and each K/V row serves the G query heads of its group.
// Writes O/lse directly when there is one partition, otherwise the unnormalized accumulator
// with its m and l for the lse merge.
void decode_task(const PagedDecodeParams& p, const KernelOps& ops, const DecodePlan& plan,
                 int64_t task, DecodeScratch& sc, float* part_acc, float* part_m, float* part_l) {
  const int group = p.num_heads / p.num_kv_heads;
  const int h = p.num_heads, d = p.head_dim, ps = p.page_size;
  const DecodeRange range = decode_range(p, plan, task);
  const int part = range.part, b = range.b;
  const int64_t t_begin = range.t_begin, t_end = range.t_end;
  const int64_t kv_row = int64_t(p.num_kv_heads) * d;  // elements between two slots of a page
  const int32_t* table = range.table;
  const int chunk = plan.chunk_tokens;

  // q stays unscaled (a bf16 q is then exactly bf16 for the vdpbf16ps scores); the softmax
  // step applies the scale to the scores.
  const float scale = default_scale(p.softmax_scale, d);
  ops.load_rows(p.dtype, element_at(p.q, p.dtype, int64_t(b) * h * d), d, h, d, 1.f, sc.q.data(), d);
  // bf16 pages on a path with vdpbf16ps: q as bf16 hi + lo (lo dropped when q is bf16 already),
  // each KV head's rows padded to gp (zero rows) for the fused step.
  const int gp = fused_group(group);
  const bool vnni = p.kv_cache_layout == KvCacheLayout::kVnni16;
  const bool fused_bf16 = !vnni && ops.decode_pages_bf16 && p.kv_dtype == DType::kBF16 && gp > 0 && d % 32 == 0;
  // A kVnni16 pool (bf16, d a multiple of 32) on a path with its step; on any other path, or at
  // group 1, the scalar loop below (decode_vnni16_scalar).
  const bool fused_vnni = vnni && ops.decode_pieces_vnni16 && gp > 0;
  const bool padded = fused_bf16 || fused_vnni;  // q, acc, m and l in padded rows
  // bf16 / fp16 pages on a path with a fused fp32 step (AVX2): rows unpadded, q in fp32. Group
  // 1 (MHA) stays on the per-head path: the step ran 0.77x of it from L2 on a Zen 3 core.
  const bool fused_f32 = !vnni && !fused_bf16 && ops.decode_page && (p.kv_dtype == DType::kBF16 || p.kv_dtype == DType::kF16) &&
                         group >= 2 && d % 8 == 0;
  const int rows = padded ? p.num_kv_heads * gp : h;  // rows of acc, m and l
  // The row of acc, m and l that holds query head r.
  auto slot_of = [&](int r) { return padded ? r / group * gp + r % group : r; };
  const uint16_t* q_lo = nullptr;
  if (padded) {
    std::fill(sc.q_hi.begin(), sc.q_hi.end(), uint16_t(0));
    std::fill(sc.q_lo.begin(), sc.q_lo.end(), uint16_t(0));
    for (int r = 0; r < h; ++r) {
      const float* qr = sc.q.data() + int64_t(r) * d;
      uint16_t* hi_r = sc.q_hi.data() + int64_t(slot_of(r)) * d;
      ops.to_bf16(qr, d, hi_r);
      float* residual = sc.s.data();
      for (int x = 0; x < d; ++x) {  // q - float(hi), exact in fp32
        const uint32_t bits = uint32_t(hi_r[x]) << 16;
        float hi;
        std::memcpy(&hi, &bits, 4);
        residual[x] = qr[x] - hi;
      }
      ops.to_bf16(residual, d, sc.q_lo.data() + int64_t(slot_of(r)) * d);
    }
    if (std::any_of(sc.q_lo.begin(), sc.q_lo.end(), [](uint16_t x) { return (x & 0x7fffu) != 0; })) q_lo = sc.q_lo.data();
  }
  std::fill(sc.acc.begin(), sc.acc.begin() + int64_t(rows) * d, 0.f);
  std::fill(sc.m.begin(), sc.m.begin() + rows, kNegInf);
  std::fill(sc.l.begin(), sc.l.begin() + rows, 0.f);

  const int64_t row_bytes = int64_t(d) * dtype_bytes(p.kv_dtype);
  const int64_t row_stride_bytes = kv_row * dtype_bytes(p.kv_dtype);
  // Token t's row of KV head hk in a pool: its page's (page, KV head) slab when t starts a page;
  // the page's later rows follow kv_row apart.
  auto slab = [&](const void* pool, int64_t t, int hk) {
    return element_at(pool, p.kv_dtype, ((int64_t(table[t / ps]) * ps + t % ps) * p.num_kv_heads + hk) * d);
  };
  // The token after t's page: steps go page by page from t_begin, which (the window's first
  // token) may lie inside its page.
  auto page_end = [&](int64_t t) { return (t / ps + 1) * ps; };
  // The token after t's step: the AVX512-BF16 path goes piece by piece (kPieceTokens; the same
  // as page by page for pages of up to 16 tokens), the others page by page.
  auto step_end = [&](int64_t t) { return fused_bf16 || vnni ? piece_end(t, ps) : page_end(t); };
  // Pieces ahead whose lines the kVnni16 step requests (an eighth of a short task's, at least
  // kDecodePrefetchPages, at most vnni16_step_ahead()).
  int vnni_ahead = 0;
  if (fused_vnni) {
    int64_t task_steps = 0;
    for (int64_t t = t_begin; t < t_end; t = piece_end(t, ps)) ++task_steps;
    vnni_ahead = static_cast<int>(std::clamp<int64_t>(task_steps / 8, kDecodePrefetchPages, vnni16_step_ahead()));
  }
  // The task's first pages (pieces), requested before its first step (the steps request the
  // later ones): the kVnni16 step's first `vnni_ahead` pieces, since nothing reads them before it.
  const int first = fused_f32 ? kAvx2FusedPrefetchPages : fused_vnni ? vnni_ahead : kDecodePrefetchPages;
  for (int64_t t = t_begin, i = 0; i < first && t < t_end; t = step_end(t), ++i) {
    const int rows_left = static_cast<int>(step_end(t) - t);
    if (vnni) {  // the piece's K and V, whole (its heads' blocks follow one another)
      prefetch_rows(slab(p.k_pages, piece_begin(t, ps), 0), 1, kPieceTokens * row_stride_bytes, 0);
      prefetch_rows(slab(p.v_pages, piece_begin(t, ps), 0), 1, kPieceTokens * row_stride_bytes, 0);
      continue;
    }
    for (int hk = 0; hk < p.num_kv_heads; ++hk) {
      prefetch_rows(slab(p.k_pages, t, hk), rows_left, row_bytes, row_stride_bytes);
      if (fused_bf16 || fused_f32) prefetch_rows(slab(p.v_pages, t, hk), rows_left, row_bytes, row_stride_bytes);
    }
  }
  if (fused_vnni) {
    // Steps of up to kPagedReadGroup (4) pieces; each step's own loads read its pieces from
    // DRAM (no read_kv_pages pass before it, unlike the NHD step), and it requests the piece
    // `vnni_ahead` on line by line beside them. Against reading each group first (read_kv_pages)
    // with the old step: DESIGN.md, "Decode's own walk, session 41".
    const int64_t ahead_tokens = int64_t(vnni_ahead) * kPieceTokens;
    using Bf16 = const uint16_t*;
    DecodePiecesVnni16 pieces{};
    pieces.into_l1 = vnni16_requests_into_l1();
    int gathered = 0;
    for (int64_t t0 = t_begin; t0 < t_end; t0 = piece_end(t0, ps)) {
      const int64_t start = piece_begin(t0, ps);  // the piece's slot 0
      const int64_t next = piece_begin(start + ahead_tokens, ps);
      pieces.k[gathered] = static_cast<Bf16>(slab(p.k_pages, start, 0));
      pieces.v[gathered] = static_cast<Bf16>(slab(p.v_pages, start, 0));
      pieces.lo[gathered] = static_cast<int>(t0 - start);
      pieces.hi[gathered] = static_cast<int>(std::min(piece_end(t0, ps), t_end) - start);
      pieces.next_k[gathered] = next < t_end ? static_cast<Bf16>(slab(p.k_pages, next, 0)) : nullptr;
      pieces.next_v[gathered] = next < t_end ? static_cast<Bf16>(slab(p.v_pages, next, 0)) : nullptr;
      if (++gathered == kPagedReadGroup || piece_end(t0, ps) >= t_end) {
        for (int j = gathered; j < kPagedReadGroup; ++j) {
          pieces.k[j] = pieces.k[0];
          pieces.v[j] = pieces.v[0];
          pieces.lo[j] = pieces.hi[j] = 0;
          pieces.next_k[j] = pieces.next_v[j] = nullptr;
        }
        ops.decode_pieces_vnni16(p.num_kv_heads, gp, d, scale, sc.q_hi.data(), q_lo, pieces, sc.m.data(), sc.l.data(),
                                 sc.acc.data(), d);
        gathered = 0;
      }
    }
  } else if (vnni) {
    decode_vnni16_scalar(p, table, t_begin, t_end, scale, sc);
  }
  if (fused_bf16 || fused_f32) {
    // One fused step per page (AVX2) or per two pieces (AVX512-BF16) for all KV heads; the step
    // requests K and V of the page (piece) `ahead` on line by line beside its own loads. The
    // bf16 step reads from L2: each kPagedReadGroup pieces' K and V are read before their steps
    // (read_kv_pages: K run then V run where the group is one run of the pool, else the runs
    // interleaved). Against reading each page K then V before its step, scattered B = 16
    // 1.09-1.14x, B = 1 0.98-1.00x (paired CPU time, 32k context, 2 vCPU Zen 5, A/A 0.99;
    // DESIGN.md, "Decode reading, session 34"); one-run groups read as runs where they were read
    // piece by piece, 1.01-1.05x (session 38). Either way the step requests the piece
    // kBf16StepPrefetchPages ahead (fewer in a short task), so that those reads mostly hit cache;
    // not on AMD family 26 (bf16_step_requests), where the requests slowed it.
    int64_t task_steps = 0;
    for (int64_t t = t_begin; t < t_end; t = step_end(t)) ++task_steps;
    const int ahead = fused_f32 ? kAvx2FusedPrefetchPages
                                : static_cast<int>(std::clamp<int64_t>(task_steps / 8, kDecodePrefetchPages, kBf16StepPrefetchPages));
    // Tokens from a piece's first to the first of the piece `ahead` on (whole pieces when the
    // page size is a multiple of kPieceTokens or at most it).
    const int64_t ahead_tokens = int64_t(ahead) * std::min(ps, kPieceTokens);
    // The bf16 step takes two pieces at a time (its blocks of 32 tokens load and store acc and
    // run the softmax's per-block work once per two pieces: 1.07-1.08x from L2, paired CPU time,
    // 2 vCPU Zen 5; DESIGN.md, "Decode arithmetic, session 35"): `pages` gathers them; a read
    // group (kPagedReadGroup, even) is whole steps.
    using Bf16 = const uint16_t*;
    DecodePagesBf16 pages{};
    int gathered = 0;
    for (int64_t t0 = t_begin, i = 0; t0 < t_end; t0 = step_end(t0), ++i) {
      const int count = static_cast<int>(std::min(step_end(t0), t_end) - t0);
      const void* k = slab(p.k_pages, t0, 0);
      const void* v = slab(p.v_pages, t0, 0);
      if (fused_bf16 && i % kPagedReadGroup == 0) {
        int64_t group_end = t0;
        for (int j = 0; j < kPagedReadGroup && group_end < t_end; ++j) group_end = std::min(step_end(group_end), t_end);
        read_kv_pages(p, table, t0, group_end, row_stride_bytes);
      }
      const int64_t next = fused_bf16 ? piece_begin(piece_begin(t0, ps) + ahead_tokens, ps) : (t0 / ps + ahead) * ps;
      const bool request = next < t_end && (!fused_bf16 || bf16_step_requests());
      const void* next_k = request ? slab(p.k_pages, next, 0) : nullptr;
      const void* next_v = request ? slab(p.v_pages, next, 0) : nullptr;
      if (fused_f32) {
        ops.decode_page(p.kv_dtype, p.num_kv_heads, group, count, d, scale, sc.q.data(), k, v,
                        kv_row, next_k, next_v, sc.m.data(), sc.l.data(), sc.acc.data(), d);
        continue;
      }
      pages.k[gathered] = static_cast<Bf16>(k);
      pages.v[gathered] = static_cast<Bf16>(v);
      pages.t[gathered] = count;
      pages.next_k[gathered] = static_cast<Bf16>(next_k);
      pages.next_v[gathered] = static_cast<Bf16>(next_v);
      if (++gathered == 2 || step_end(t0) >= t_end) {
        if (gathered == 1) pages.t[1] = 0;
        ops.decode_pages_bf16(p.num_kv_heads, gp, d, scale, sc.q_hi.data(), q_lo, pages, kv_row,
                              sc.m.data(), sc.l.data(), sc.acc.data(), d);
        gathered = 0;
      }
    }
    if (fused_bf16) ops.decode_bf16_columns(rows, d, sc.acc.data(), d);
  }
  // Chunks of whole pages (chunk tokens from the page start of t0; the first from t_begin's
  // slot), one page per step within a chunk.
  for (int64_t t0 = t_begin, c_end; !vnni && !fused_bf16 && !fused_f32 && t0 < t_end; t0 = c_end) {
    c_end = std::min<int64_t>(t_end, t0 / ps * ps + chunk);
    const int tn = static_cast<int>(c_end - t0);
    for (int64_t t = t0; t < c_end; t = page_end(t)) {
      const int64_t next = (t / ps + kDecodePrefetchPages) * ps;
      const int off = static_cast<int>(t - t0), count = static_cast<int>(std::min(page_end(t), c_end) - t);
      for (int hk = 0; hk < p.num_kv_heads; ++hk) {
        // This head's V rows of this page (read after the chunk's softmax) and its K rows of the
        // page kDecodePrefetchPages ahead, spread over the heads' steps.
        prefetch_rows(slab(p.v_pages, t, hk), count, row_bytes, row_stride_bytes);
        if (next < t_end) prefetch_rows(slab(p.k_pages, next, hk), ps, row_bytes, row_stride_bytes);
        ops.scores(group, count, d, sc.q.data() + int64_t(hk) * group * d, d, p.kv_dtype,
                   slab(p.k_pages, t, hk), kv_row, sc.s.data() + int64_t(hk) * group * chunk + off, chunk);
      }
    }
    std::fill(sc.end.begin(), sc.end.end(), tn);
    ops.softmax_tile(h, tn, tn, scale, sc.s.data(), chunk, sc.begin.data(), sc.end.data(),
                     sc.m.data(), sc.l.data(), sc.acc.data(), d, d);
    for (int64_t t = t0; t < c_end; t = page_end(t)) {
      const int off = static_cast<int>(t - t0), count = static_cast<int>(std::min(page_end(t), c_end) - t);
      for (int hk = 0; hk < p.num_kv_heads; ++hk) {
        ops.accumulate_values(group, count, d, sc.s.data() + int64_t(hk) * group * chunk + off, chunk,
                              p.kv_dtype, slab(p.v_pages, t, hk), kv_row,
                              sc.acc.data() + int64_t(hk) * group * d, d);
      }
    }
  }

  for (int row = 0; row < h; ++row) {
    const int64_t bh = int64_t(b) * h + row;
    const int at = slot_of(row);
    const float* acc = sc.acc.data() + int64_t(at) * d;
    if (plan.num_partitions > 1) {
      const int64_t slot = bh * plan.num_partitions + part;
      std::copy(acc, acc + d, part_acc + slot * d);
      part_m[slot] = sc.m[at];
      part_l[slot] = sc.l[at];
      continue;
    }
    float* out = p.o + bh * d;
    if (sc.l[at] > 0.f) {
      const float inv = 1.f / sc.l[at];
      for (int x = 0; x < d; ++x) out[x] = acc[x] * inv;
      p.lse[bh] = sc.m[at] + std::log(sc.l[at]);
    } else {
      std::fill(out, out + d, 0.f);
      p.lse[bh] = kNegInf;
    }
  }
}

}  // namespace

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
  const KernelOps& ops = kernel_ops(dispatch_path(p.simd, KernelKind::kPagedDecode, p.kv_dtype));
  const DecodePlan plan = plan_decode(p);
  const int64_t tasks = plan.tasks;
  const int threads = plan.threads;
  const size_t hd = size_t(p.num_heads) * p.head_dim;
  // Rows with each KV head's group padded for the fused bf16 step (at least H).
  const size_t padded = std::max<size_t>(p.num_heads, size_t(p.num_kv_heads) * fused_group(p.num_heads / p.num_kv_heads));
  std::vector<DecodeScratch> scratch(threads);
  for (DecodeScratch& s : scratch) {
    s.q.resize(hd);
    s.acc.resize(padded * p.head_dim);
    s.q_hi.resize(padded * p.head_dim);
    s.q_lo.resize(padded * p.head_dim);
    s.s.resize(std::max<size_t>(p.head_dim, size_t(p.num_heads) * plan.chunk_tokens));  // also a q row's residual
    s.m.resize(padded);
    s.l.resize(padded);
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
    if (!kernels_cancelled()) decode_task(p, ops, plan, task, scratch[worker], part_acc.data(), part_m.data(), part_l.data());
  });
  if (plan.num_partitions > 1 && !kernels_cancelled()) {
    parallel_for(threads, int64_t(p.batch) * p.num_heads, [&](int64_t bh, int) {
      merge_partitions(p, plan.num_partitions, bh, part_acc.data(), part_m.data(), part_l.data());
    });
  }
  return ok();
}

// Each task of run_paged's grid reads its pages' K and V rows in block-table order with the
// read-bandwidth peak's loads (read_kv_pages): the same bytes split over the same threads, with
// no arithmetic and no software prefetch.
Status run_paged_read(const PagedDecodeParams& p) {
  const DecodePlan plan = plan_decode(p);
  const int64_t row_bytes = int64_t(p.num_kv_heads) * p.head_dim * dtype_bytes(p.kv_dtype);
  parallel_for(plan.threads, plan.tasks, [&](int64_t task, int) {
    const DecodeRange r = decode_range(p, plan, task);
    read_kv_pages(p, r.table, r.t_begin, r.t_end, row_bytes);
  });
  return ok();
}

}  // namespace detail

constexpr size_t kHugePage = size_t(2) << 20;

bool advise_huge_pages(void* data, size_t bytes) {
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kHugePage - 1) / kHugePage * kHugePage;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) / kHugePage * kHugePage;
  if (end <= begin) return false;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  return madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE) == 0;
#else
  return false;
#endif
}

void* allocate_page_pool(size_t bytes, bool* huge, bool zero) {
  const size_t size = (std::max<size_t>(bytes, 1) + kHugePage - 1) / kHugePage * kHugePage;
  void* pool = std::aligned_alloc(kHugePage, size);
  *huge = pool != nullptr && advise_huge_pages(pool, size);  // before the first touch below
  if (pool != nullptr && zero) std::memset(pool, 0, size);
  return pool;
}

void free_page_pool(void* pool) { std::free(pool); }

Status write_kv_cache(const KvCacheWrite& w) {
  return detail::guarded([&] {
    using detail::fail;
    if (!w.k || !w.v || !w.slot_mapping || !w.k_pages || !w.v_pages)
      return fail(Status::kInvalidArgument, "null tensor pointer");
    if (!detail::dtype_valid(w.dtype)) return fail(Status::kInvalidArgument, "unknown dtype");
    if (w.layout != KvCacheLayout::kNHD && w.layout != KvCacheLayout::kVnni16) return fail(Status::kInvalidArgument, "unknown layout");
    if (w.num_tokens < 0 || w.num_kv_heads < 1 || w.head_dim < 1 || w.num_pages < 1 || w.page_size < 1)
      return fail(Status::kInvalidArgument, "num_tokens must be >= 0; num_kv_heads, head_dim, num_pages, page_size >= 1");
    if (w.layout == KvCacheLayout::kVnni16 && (w.dtype != DType::kBF16 || w.page_size % 16 != 0 || w.head_dim % 32 != 0))
      return fail(Status::kInvalidArgument,
                  "layout vnni16 needs bf16 pools, page_size a multiple of 16 and head_dim a multiple of 32");
    const int64_t slots = int64_t(w.num_pages) * w.page_size;
    for (int i = 0; i < w.num_tokens; ++i)
      if (w.slot_mapping[i] >= slots)
        return fail(Status::kInvalidArgument, "slot_mapping[" + std::to_string(i) + "] = " +
                                                  std::to_string(w.slot_mapping[i]) + " is outside the pool [0, num_pages * page_size)");
    const int64_t bytes = static_cast<int64_t>(dtype_bytes(w.dtype));
    for (int i = 0; i < w.num_tokens; ++i) {
      const int64_t slot = w.slot_mapping[i];
      if (slot < 0) continue;  // vLLM's padding slot
      for (int hk = 0; hk < w.num_kv_heads; ++hk) {
        for (int x = 0; x < w.head_dim; ++x) {
          const int64_t from = (int64_t(i) * w.num_kv_heads + hk) * w.head_dim + x;
          const int64_t page = slot / w.page_size;
          const int off = static_cast<int>(slot % w.page_size);
          const int64_t to_k = kv_pool_index(w.layout, false, w.page_size, w.num_kv_heads, w.head_dim, page, off, hk, x);
          const int64_t to_v = kv_pool_index(w.layout, true, w.page_size, w.num_kv_heads, w.head_dim, page, off, hk, x);
          std::memcpy(static_cast<char*>(w.k_pages) + to_k * bytes, static_cast<const char*>(w.k) + from * bytes, bytes);
          std::memcpy(static_cast<char*>(w.v_pages) + to_v * bytes, static_cast<const char*>(w.v) + from * bytes, bytes);
        }
      }
    }
    return detail::ok();
  });
}

Status paged_decode(const PagedDecodeParams& params) {
  return detail::guarded([&] {
    const Status s = detail::check_paged(params);
    return s != Status::kOk ? s : detail::run_paged(params);
  });
}

}  // namespace attnscope
