// AttnScope CPU attention kernels: FlashAttention forward, PagedAttention decode, the fp64
// reference and the timing loop. Plain C++17: no N-API types, never throws; every entry point
// returns a Status. Shapes are given in comments on every pointer; all tensors are row-major.
//
// Layering (as flash-attention's flash.h / static_switch.h): a Params struct -> a dispatcher that
// turns runtime flags (dtype, SIMD path) into a table of per-ISA tile operations -> the tiled
// kernel. The per-ISA operations live in simd/ops_<isa>.cc, each compiled with its own -m
// flags and chosen at run time (cpu_features.h), so the shipped binary runs on any x86-64 and
// on arm64 through the portable path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attnscope {

enum class Status : int {
  kOk = 0,
  kInvalidArgument = 1,  // a size, stride or pointer that cannot be valid (see message)
  kUnsupported = 2,      // the requested SIMD path or dtype is not available on this CPU
  kOutOfMemory = 3,      // a scratch allocation failed
  kCancelled = 4,        // cancel_kernels() was called while the call ran: its outputs are incomplete
};

/**
 * Asks the CPU kernel calls in flight to stop early: flash skips the query tiles it has not
 * started, decode the partitions, the references the heads, and the timing loops take no
 * further sample; each such call returns kCancelled within one task (a query tile of one head:
 * a fraction of a second even at N = 128k). One atomic store: callable from any thread, a
 * signal handler's included. The request stays until clear_kernel_cancel().
 */
void cancel_kernels();

/** Withdraws a cancel_kernels() request, so that calls started after it run to the end. */
void clear_kernel_cancel();

/** Element type of Q, K, V (and of K/V page pools). fp16 and bf16 are passed as uint16 bits. */
enum class DType : int { kF32 = 0, kF16 = 1, kBF16 = 2 };

/** Bytes of one element of `dtype`. */
inline size_t dtype_bytes(DType dtype) { return dtype == DType::kF32 ? 4 : 2; }

/**
 * SIMD path of the tuned kernels. kAuto picks the fastest this CPU supports per kernel and
 * dtype (dispatch_path), or the one named by the environment variable ATTNSCOPE_SIMD =
 * scalar|avx2|avx512|avx512bf16|amx|simd128|neon. kAmx: bf16 flash GEMMs on AMX tiles, AVX512-BF16 otherwise.
 * kAmxModel: the portable path with the AMX tiling run on a scalar model of the tile
 * instructions (amx_model.cc), on any CPU: for tests, never chosen by kAuto.
 */
enum class SimdPath : int { kAuto = 0, kScalar = 1, kAvx2 = 2, kAvx512 = 3, kAvx512Bf16 = 4, kAmx = 5, kAmxModel = 6, kSimd128 = 7, kNeon = 8 };
// kSimd128: WebAssembly SIMD128 (4 fp32 lanes, multiply + add: no FMA), the WebAssembly build's
// (native/wasm/) only path besides kScalar.
// kNeon: AArch64 NEON (4 fp32 lanes, fused multiply-add), the arm64 build's path besides kScalar.

/** "scalar", "avx2", "avx512", "avx512bf16", "amx", "amx-model", "simd128", "neon" ("auto" for kAuto). */
const char* simd_path_name(SimdPath path);

/** Parses a name of simd_path_name(); returns false for an unknown name. */
bool parse_simd_path(const char* name, SimdPath* out);

/** Paths this CPU and build can run, best last (always starts with kScalar; kAmxModel, which
 * runs everywhere, is not listed). */
std::vector<SimdPath> supported_simd_paths();

/**
 * The CPU features behind the kernels' paths, by their /proc/cpuinfo names, in this order:
 * avx2 fma when the CPU has the AVX2 path's set; avx512f avx512bw avx512vl avx512dq when it has
 * the AVX-512 path's; avx512_bf16 with the AVX512-BF16 path; avx512_fp16 with the AVX-512 set;
 * amx_bf16 with amx_tile; neon on aarch64.
 */
std::vector<std::string> simd_feature_names();

/** Whether `path` can run here (kAuto and kAmxModel always can). */
bool simd_path_supported(SimdPath path);

/** The path kAuto resolves to (honours ATTNSCOPE_SIMD when it names a supported path). */
SimdPath resolve_simd_path(SimdPath requested);

/** The kernels whose SIMD path is chosen per operand dtype (dispatch_path). */
enum class KernelKind : int { kFlashFwd = 0, kPagedDecode = 1 };

/** "flash_fwd" or "paged_decode" (the Run JSON's kernel names). */
const char* kernel_kind_name(KernelKind kernel);

/**
 * The path `requested` runs `kernel` on for `dtype` operands (flash: Q, K, V; decode: the KV
 * pages): `requested` itself unless kAuto; else the path ATTNSCOPE_SIMD names where this CPU has
 * it; else the fastest here, not the newest: fp32 and fp16 take the widest FMA path (fp16 is
 * widened to fp32: rounding it to bf16 would drop three mantissa bits); bf16 takes avx512bf16
 * (vdpbf16ps) only where it beats the FMA loop, else the FMA path (bf16 widened to fp32 once per
 * KV head, exactly). The bf16 choice is choose_bf16_path's, made once per process: from a table for CPUs whose
 * answer is known, else from a calibration (about 100 ms, on the first call that needs it).
 */
SimdPath dispatch_path(SimdPath requested, KernelKind kernel, DType dtype);

/**
 * The unit that does the products of `kernel` on `dtype` under the resolved `path`, so a
 * benchmark can divide by that unit's peak: "avx512-bf16" (vdpbf16ps), "fp32-fma" (vector FMA
 * on fp32, bf16 / fp16 widened first) or "scalar" (the portable loops).
 */
const char* product_unit(SimdPath path, KernelKind kernel, DType dtype);

/** How dispatch_path chooses on this CPU, with the calibration figures when it ran; one sentence. */
std::string dispatch_reason();

/**
 * Whether bf16 products take vdpbf16ps (kAvx512Bf16) or the FMA path (kAvx512, bf16 widened to
 * fp32) on an AVX512-BF16 CPU, and how that was decided.
 *   how "table": a CPU whose answer is known from idle measurements (AMD family 25, Zen 4, and
 *     26, Zen 5: vdpbf16ps about 2x the fp32 FMA rate on one thread; DESIGN.md, "Decode on Zen 5,
 *     session 43"); no calibration runs, so the choice cannot flip on a busy machine.
 *   how "measured": other CPUs; `dot_rounds` and `fma_rounds` are FLOP/s of one-thread windows
 *     taken in alternation (A B A B ...), so a neighbour's burst lowers both; the best of each is
 *     compared, and vdpbf16ps is taken from kBf16DotMargin (1.2x) of the FMA rate (Sapphire Rapids
 *     runs it at about a third of its FMA rate, so a wrong flip there costs ~3x).
 *   how "none": no usable round (every one 0 or missing): the FMA path.
 */
struct Bf16Choice {
  SimdPath path = SimdPath::kAvx512;
  std::string how;              // "table" | "measured" | "none"
  double dot_flops = 0, fma_flops = 0;  // best round of each, FLOP/s on one thread ("measured" only)
};
constexpr double kBf16DotMargin = 1.2;
/** The decision rule of the bf16 dispatch, pure (no measurement): vendor / family as CpuFeatures. */
Bf16Choice choose_bf16_path(const std::string& vendor, int family, const std::vector<double>& dot_rounds,
                            const std::vector<double>& fma_rounds);

/**
 * ATTNSCOPE_SIMD as read now: `value` as set ("" when unset or blank), `path` the supported path it
 * names (case-insensitive, spaces trimmed; kAuto when unset, "auto", unknown, or a path this CPU
 * lacks), and `warning` one sentence when it is set but ignored, naming the paths this CPU has.
 */
struct SimdOverride {
  std::string value;
  SimdPath path = SimdPath::kAuto;
  std::string warning;
};
SimdOverride simd_override();

/**
 * FlashAttention forward (Dao et al. 2022, Algorithm 1; FlashAttention-2 loop order: the outer
 * loop over query tiles, the inner over key tiles).
 *
 * Masks, with p(i) = i + seq_len_k - seq_len_q the position of query i among the keys (causal
 * aligned bottom-right, as flash-attn >= 2.1 and vLLM):
 *   causal:      key j visible iff j <= p(i)
 *   window W>0:  key j visible iff j >  p(i) - W  (with causal: the last W keys up to and
 *                including p(i), as HF `sliding_window` and vLLM); no limit on the right
 *                unless causal.
 * A query that sees no key gets O = 0 and lse = -inf.
 */
struct FlashParams {
  const void* q = nullptr;  // [batch, seq_len_q, num_heads, head_dim] (strides below), dtype
  const void* k = nullptr;  // [batch, seq_len_k, num_kv_heads, head_dim], dtype
  const void* v = nullptr;  // [batch, seq_len_k, num_kv_heads, head_dim], dtype
  float* o = nullptr;       // [batch, seq_len_q, num_heads, head_dim] fp32, contiguous
  float* lse = nullptr;     // [batch, num_heads, seq_len_q] fp32, natural log of sum(exp(scale*s))

  DType dtype = DType::kF32;
  int batch = 0;
  int seq_len_q = 0;     // N_q
  int seq_len_k = 0;     // N_k
  int num_heads = 0;    // H (query heads)
  int num_kv_heads = 0;  // H_kv; num_heads % num_kv_heads == 0 (GQA/MQA: heads h share h / (H/H_kv))
  int head_dim = 0;     // D

  // Strides in elements. Contiguous NHD: row = heads*D, batch = seqlen*heads*D, head = D.
  int64_t q_batch_stride = 0, q_row_stride = 0, q_head_stride = 0;
  int64_t k_batch_stride = 0, k_row_stride = 0, k_head_stride = 0;
  int64_t v_batch_stride = 0, v_row_stride = 0, v_head_stride = 0;

  float softmax_scale = 0.f;  // multiplies q.k; <= 0 means 1/sqrt(head_dim)
  bool is_causal = false;
  int window = 0;   // sliding window W in keys; 0 = none
  int threads = 0;  // worker threads; 0 = hardware concurrency
  SimdPath simd = SimdPath::kAuto;
};

/** Fills the NHD-contiguous strides of `p` from its shapes. */
void set_contiguous_strides(FlashParams* p);

/**
 * Element order of the K and V page pools (PagedDecodeParams::kv_cache_layout). A pool layout chosen
 * by the kernel's ISA path is what vLLM's CPU attention does (csrc/cpu/cpu_attn_amx.hpp
 * reshape_and_cache packs its cache for AMX tiles; cpu_attn_vec16.hpp keeps K per block as
 * [head_dim, block_size]).
 */
enum class KvCacheLayout : int {
  /** [num_pages, page_size, num_kv_heads, head_dim]: FlashInfer's "NHD"; vLLM's CUDA flash layout. */
  kNHD = 0,
  /**
   * bf16 pools, page_size a multiple of 16, head_dim a multiple of 32: each page as 16-token
   * pieces, [num_pages, page_size / 16, num_kv_heads, piece]; a K piece is [head_dim / 2][16
   * tokens][2] (a dim pair of 16 tokens in 64 B: vLLM's AMX key cache token group), a V piece
   * [8 token pairs][head_dim][2] (two tokens' values of a dim in 4 B). A piece starts where
   * NHD's row of its first slot starts, and spans the same bytes. The AVX512-BF16 step scores 16
   * tokens per vdpbf16ps with no horizontal sums and reads V pairs with no unpacking.
   */
  kVnni16 = 1,
};

/**
 * Element index, in a K (is_v false) or V pool of `layout`, of dim x of KV head hk of slot
 * `slot` (< page_size) of page `page`. NHD: ((page * page_size + slot) * num_kv_heads + hk) *
 * head_dim + x.
 */
inline int64_t kv_pool_index(KvCacheLayout layout, bool is_v, int page_size, int num_kv_heads, int head_dim, int64_t page,
                             int slot, int hk, int x) {
  const int64_t row = page * page_size + slot;
  if (layout == KvCacheLayout::kNHD) return (row * num_kv_heads + hk) * head_dim + x;
  const int64_t piece = (row - slot % 16) * num_kv_heads * head_dim + int64_t(hk) * 16 * head_dim;
  const int j = slot % 16;
  return piece + (is_v ? (j / 2) * 2 * head_dim + x * 2 + j % 2 : (x / 2) * 32 + j * 2 + x % 2);
}

/**
 * vLLM's reshape_and_cache: token i's K and V rows (k, v: [num_tokens, num_kv_heads,
 * head_dim] of dtype, contiguous) into slot slot_mapping[i] (page slot / page_size, offset slot
 * % page_size) of the pools, in `layout`; a negative slot is skipped (vLLM's padding).
 */
struct KvCacheWrite {
  const void* k = nullptr;
  const void* v = nullptr;
  const int64_t* slot_mapping = nullptr;  // [num_tokens]
  void* k_pages = nullptr;                // [num_pages, page_size, num_kv_heads, head_dim] in layout
  void* v_pages = nullptr;
  DType dtype = DType::kF32;  // of k, v and the pools
  KvCacheLayout layout = KvCacheLayout::kNHD;
  int num_tokens = 0, num_kv_heads = 0, head_dim = 0, num_pages = 0, page_size = 0;
};

/**
 * PagedAttention decode (vLLM; FlashDecoding split-K): one query token per sequence attends
 * to its context stored in pages. Slot s of logical page t of sequence b holds token
 * t * page_size + s; only tokens < context_lens[b] are read. Long contexts are split into
 * partitions whose partial (O, m, l) are merged through their lse.
 *
 * The query of sequence b sits at position p = context_lens[b] - 1 (its own K/V is in the
 * context, as vLLM writes the new token's slot before attention). Window W > 0: keys j with
 * j > p - W, FlashParams' mask with seq_len_q = 1, i.e. tokens [max(0, L - W), L) of a context
 * of L: the last W keys, own position included (HF `sliding_window`, vLLM / flash-attn
 * window_size_left = W - 1). Only the pages covering them are read, the first from the window's
 * slot on; block-table entries before the window are never read nor checked (vLLM releases
 * them: -1 is fine there).
 */
struct PagedDecodeParams {
  const void* q = nullptr;        // [batch, num_heads, head_dim], dtype
  const void* k_pages = nullptr;  // [num_pages, page_size, num_kv_heads, head_dim], kv_dtype
  const void* v_pages = nullptr;  // [num_pages, page_size, num_kv_heads, head_dim], kv_dtype
  const int32_t* block_table = nullptr;   // [batch, max_pages_per_seq], page indices
  const int32_t* context_lens = nullptr;  // [batch], tokens of each sequence (>= 0)
  float* o = nullptr;    // [batch, num_heads, head_dim] fp32
  float* lse = nullptr;  // [batch, num_heads] fp32

  DType dtype = DType::kF32;     // of q
  DType kv_dtype = DType::kF32;  // of the page pools
  KvCacheLayout kv_cache_layout = KvCacheLayout::kNHD;  // of the page pools (kVnni16: bf16 only)
  int batch = 0;
  int num_heads = 0;
  int num_kv_heads = 0;
  int head_dim = 0;
  int num_pages = 0;
  int page_size = 0;
  int max_pages_per_seq = 0;

  float softmax_scale = 0.f;  // <= 0 means 1/sqrt(head_dim)
  int partition_tokens = 0;   // tokens per split-K partition (multiple of page_size); 0 = auto
  int window = 0;             // sliding window W in keys (>= 0); 0 = the whole context
  int threads = 0;
  SimdPath simd = SimdPath::kAuto;
};

/**
 * Memory for a K or V page pool: `bytes` rounded up to 2 MiB, 2 MiB-aligned and zero-filled,
 * with transparent huge pages asked for (Linux madvise MADV_HUGEPAGE; THP in "madvise" mode
 * backs only such ranges). Pages read in block-table order land anywhere in the pool, so with
 * 4 KiB pages every page step is a TLB miss whose page-table walk itself misses the cache once
 * the pool outgrows the TLB's reach: decode B=16 at 32k context (1 GiB per pool) ran 2-3x
 * faster from huge pages on a Zen 5 core. Returns nullptr when out of memory; *huge says
 * whether the kernel took the advice (false off Linux). Release with free_page_pool.
 * zero = false leaves the memory unwritten (its contents undefined, no page faulted in yet): for
 * a caller that writes every byte itself, in steps a cancel can stop between; zeroing 768 MiB
 * (bench's Q, K and V at N = 64k) took 2.3 s of CPU time in first-touch page clearing here.
 */
void* allocate_page_pool(size_t bytes, bool* huge, bool zero = true);
void free_page_pool(void* pool);
/** Asks for transparent huge pages over the whole 2 MiB pages inside [data, data + bytes); true
 * when Linux took the advice (false off Linux or when no whole 2 MiB page fits). */
bool advise_huge_pages(void* data, size_t bytes);

/** fp64 reference that materializes S = scale * Q K^T per (batch, head); same masks as flash. */
struct ReferenceParams {
  const void* q = nullptr;  // [batch, seq_len_q, num_heads, head_dim] contiguous, dtype
  const void* k = nullptr;  // [batch, seq_len_k, num_kv_heads, head_dim] contiguous, dtype
  const void* v = nullptr;  // [batch, seq_len_k, num_kv_heads, head_dim] contiguous, dtype
  double* o = nullptr;      // [batch, seq_len_q, num_heads, head_dim]
  double* lse = nullptr;    // [batch, num_heads, seq_len_q]
  DType dtype = DType::kF32;
  int batch = 0, seq_len_q = 0, seq_len_k = 0, num_heads = 0, num_kv_heads = 0, head_dim = 0;
  double softmax_scale = 0.0;  // <= 0 means 1/sqrt(head_dim)
  bool is_causal = false;
  int window = 0;
};

/** Error text of the last failed call on this thread (empty after success). */
const char* last_error();

Status flash_forward(const FlashParams& params);
Status paged_decode(const PagedDecodeParams& params);
Status reference_attention(const ReferenceParams& params);
/** Checks w (InvalidArgument naming the field), then writes its tokens; pools untouched on error. */
Status write_kv_cache(const KvCacheWrite& w);
/** fp64 decode reference: gathers the visible K/V (the window as paged_decode) through the block
 * table, then the naive softmax. */
Status reference_paged_decode(const PagedDecodeParams& params, double* o /* [batch, H, D] */,
                              double* lse /* [batch, H] */);

/**
 * Timing loop: `warmup` untimed runs, then timed runs until at least min_reps runs and
 * min_time_ms elapsed, stopping at max_reps runs or max_time_ms (whichever first, but never
 * fewer than one timed run). Samples are steady_clock nanoseconds per run; cpu_ns (optional)
 * gets the process CPU time of each run in nanoseconds, all threads together (std::clock, 1 us
 * steps on glibc): on a shared machine, work / (CPU time / threads) is the rate the threads
 * reached while they ran, which wall time hides.
 */
struct TimingParams {
  int warmup = 2;
  int min_reps = 30;
  int max_reps = 10000;
  double min_time_ms = 1000.0;
  double max_time_ms = 10000.0;
};

Status time_flash_forward(const FlashParams& params, const TimingParams& timing,
                          std::vector<int64_t>* samples_ns, std::vector<int64_t>* cpu_ns = nullptr);
Status time_paged_decode(const PagedDecodeParams& params, const TimingParams& timing,
                         std::vector<int64_t>* samples_ns, std::vector<int64_t>* cpu_ns = nullptr);
/**
 * The same timing of paged decode's memory traffic alone: every task of the kernel's grid
 * (batch x split-K partitions, over the same threads) reads the K and V rows of its pages in
 * block-table order with the read-bandwidth peak's loads, 4 pages at a time, their K and V runs
 * interleaved 256 B by 256 B (peaks::read_streams: the fastest order measured for scattered
 * pages), and nothing else. Its rate is what the page size and block-table order allow the
 * kernel, beside the peak's sequential pass. Same errors as paged_decode; o and lse are not
 * written.
 */
Status time_paged_read(const PagedDecodeParams& params, const TimingParams& timing,
                       std::vector<int64_t>* samples_ns, std::vector<int64_t>* cpu_ns = nullptr);

/** fp16 / bf16 bit patterns <-> fp32 (round to nearest even; NaN stays NaN). */
float half_to_float(uint16_t bits);
float bf16_to_float(uint16_t bits);
uint16_t float_to_half(float value);
uint16_t float_to_bf16(float value);

}  // namespace attnscope
