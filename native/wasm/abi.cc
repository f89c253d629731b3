// The WebAssembly build's bridge: a plain C ABI over the same portable C++ the N-API bridges
// (src/napi/) wrap, called by native/wasm/addon.ts, which copies typed arrays in and out of the
// module's heap and gives the same interface as the .node addon. Arguments arrive validated
// by native/*.ts; only what could corrupt memory is checked again here.
//
// Conventions: pointers are heap offsets the adapter allocated; counts that may exceed 2^31
// (sequence ids, steps, bytes) are doubles; small objects come back as JSON text (valid until
// the next call that returns text), arrays through the scratch vectors below.
#include <emscripten.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "kernels/cpu_features.h"
#include "kernels/kernels.h"
#include "kernels/threads.h"
#include "napi/params.h"
#include "peaks/peaks.h"
#include "pool/allocator.h"
#include "pool/simulator.h"

namespace {

namespace bridge = attnscope::bridge;
using attnscope::DType;
using attnscope::SimdPath;
using attnscope::Status;

// ---- results handed back to JS ----
std::string g_text;               // last JSON / message
std::vector<double> g_doubles;    // last array of numbers (timing samples, ids, sim samples)
std::vector<double> g_cpu;        // CPU time (ns) of each run of the last timing
std::vector<int32_t> g_ints;      // last int32 array (block table, page lists)
std::string g_error;              // last error of an allocator / simulator constructor

/** Minimal JSON object writer: names are ours (no escaping needed), string values escaped. */
class Json {
 public:
  Json& num(const char* name, double v) {
    char buf[40];
    if (std::isfinite(v)) std::snprintf(buf, sizeof buf, "%.17g", v);
    else std::snprintf(buf, sizeof buf, "null");
    return raw(name, buf);
  }
  Json& boolean(const char* name, bool v) { return raw(name, v ? "true" : "false"); }
  Json& str(const char* name, const std::string& v) { return raw(name, quote(v)); }
  Json& strings(const char* name, const std::vector<std::string>& v) {
    std::string a = "[";
    for (size_t i = 0; i < v.size(); ++i) a += (i ? "," : "") + quote(v[i]);
    return raw(name, a + "]");
  }
  Json& raw(const char* name, const std::string& json) {
    s_ += (s_.size() > 1 ? ",\"" : "\"") + std::string(name) + "\":" + json;
    return *this;
  }
  std::string done() const { return s_ + "}"; }

  static std::string quote(const std::string& v) {
    std::string q = "\"";
    for (char c : v) {
      if (c == '"' || c == '\\') q += '\\', q += c;
      else if (static_cast<unsigned char>(c) < 0x20) q += ' ';
      else q += c;
    }
    return q + "\"";
  }

 private:
  std::string s_ = "{";
};

const char* text(std::string s) {
  g_text = std::move(s);
  return g_text.c_str();
}

SimdPath simd_arg(int code) { return static_cast<SimdPath>(code); }

// The C arguments of a flash / decode call as the shared shapes and inputs (napi/params.h builds
// the params from them, for the addon's bridges too).
bridge::FlashShape flash_shape(int batch, int seq_len_q, int seq_len_k, int num_heads, int num_kv_heads, int head_dim,
                               double scale, int causal, int window) {
  return {batch, seq_len_q, seq_len_k, num_heads, num_kv_heads, head_dim, causal != 0, window, scale};
}

bridge::AttentionInputs attention_inputs(int dtype, const void* q, const void* k, const void* v) {
  return {static_cast<DType>(dtype), q, k, v};
}

bridge::DecodeShape decode_shape(int batch, int num_heads, int num_kv_heads, int head_dim, int num_pages, int page_size,
                                 int max_pages_per_seq, double scale, int window, int partition_tokens) {
  return {batch, num_heads, num_kv_heads, head_dim, page_size, num_pages, max_pages_per_seq, partition_tokens, scale, window};
}

bridge::DecodeInputs decode_inputs(int dtype, int kv_dtype, const void* q, const void* k_pages, const void* v_pages,
                                   const int32_t* block_table, const int32_t* context_lens) {
  return {static_cast<DType>(dtype), static_cast<DType>(kv_dtype), q, k_pages, v_pages, block_table, context_lens};
}

int timed(Status status, const std::vector<int64_t>& samples, const std::vector<int64_t>& cpu) {
  g_doubles.assign(samples.begin(), samples.end());
  g_cpu.assign(cpu.begin(), cpu.end());
  return static_cast<int>(status);
}

const char* dtype_name(DType d) { return d == DType::kF32 ? "fp32" : d == DType::kF16 ? "fp16" : "bf16"; }

}  // namespace

extern "C" {

// ---- scratch results ----
EMSCRIPTEN_KEEPALIVE const double* attnscope_doubles() { return g_doubles.data(); }
EMSCRIPTEN_KEEPALIVE int attnscope_doubles_size() { return static_cast<int>(g_doubles.size()); }
EMSCRIPTEN_KEEPALIVE const int32_t* attnscope_ints() { return g_ints.data(); }
EMSCRIPTEN_KEEPALIVE int attnscope_ints_size() { return static_cast<int>(g_ints.size()); }
/** CPU time (ns) of each run of the last timing call, as many as its samples. */
EMSCRIPTEN_KEEPALIVE const double* attnscope_cpu_samples() { return g_cpu.data(); }

/** setenv / unsetenv (value null) inside the module: ATTNSCOPE_SIMD, which dispatch reads. */
EMSCRIPTEN_KEEPALIVE void attnscope_setenv(const char* name, const char* value) {
  if (value) setenv(name, value, 1);
  else unsetenv(name);
}

// ---- kernels (Status codes: 0 ok, 1 invalid argument, 2 unsupported, 3 out of memory) ----
EMSCRIPTEN_KEEPALIVE const char* attnscope_last_error() { return attnscope::last_error(); }

/** The SimdPath code of a simd_path_name, or -1. */
EMSCRIPTEN_KEEPALIVE int attnscope_simd_code(const char* name) {
  SimdPath p;
  return attnscope::parse_simd_path(name, &p) ? static_cast<int>(p) : -1;
}

EMSCRIPTEN_KEEPALIVE int attnscope_flash_forward(int dtype, const void* q, const void* k, const void* v, float* o,
                                                 float* lse, int batch, int sq, int sk, int h, int hkv, int d,
                                                 double scale, int causal, int window, int threads, int simd) {
  return static_cast<int>(attnscope::flash_forward(bridge::flash_params(
      flash_shape(batch, sq, sk, h, hkv, d, scale, causal, window), attention_inputs(dtype, q, k, v), o, lse, threads,
      simd_arg(simd))));
}

/** Samples (ns) in attnscope_doubles(), their CPU times in attnscope_cpu_samples(). */
EMSCRIPTEN_KEEPALIVE int attnscope_time_flash_forward(int dtype, const void* q, const void* k, const void* v, float* o,
                                                      float* lse, int batch, int sq, int sk, int h, int hkv, int d,
                                                      double scale, int causal, int window, int threads, int simd,
                                                      int warmup, int min_reps, int max_reps, double min_ms,
                                                      double max_ms) {
  std::vector<int64_t> samples, cpu;
  const Status s = attnscope::time_flash_forward(
      bridge::flash_params(flash_shape(batch, sq, sk, h, hkv, d, scale, causal, window), attention_inputs(dtype, q, k, v),
                           o, lse, threads, simd_arg(simd)),
      bridge::timing_params(warmup, min_reps, max_reps, min_ms, max_ms), &samples, &cpu);
  return timed(s, samples, cpu);
}

EMSCRIPTEN_KEEPALIVE int attnscope_reference(int dtype, const void* q, const void* k, const void* v, double* o,
                                             double* lse, int batch, int sq, int sk, int h, int hkv, int d,
                                             double scale, int causal, int window) {
  return static_cast<int>(attnscope::reference_attention(bridge::reference_params(
      flash_shape(batch, sq, sk, h, hkv, d, scale, causal, window), attention_inputs(dtype, q, k, v), o, lse)));
}

EMSCRIPTEN_KEEPALIVE int attnscope_paged_decode(int dtype, int kv_dtype, const void* q, const void* kp, const void* vp,
                                                const int32_t* bt, const int32_t* cl, float* o, float* lse, int batch,
                                                int h, int hkv, int d, int num_pages, int page_size, int max_pages,
                                                double scale, int window, int partition, int threads, int simd) {
  return static_cast<int>(attnscope::paged_decode(
      bridge::decode_params(decode_shape(batch, h, hkv, d, num_pages, page_size, max_pages, scale, window, partition),
                            decode_inputs(dtype, kv_dtype, q, kp, vp, bt, cl), o, lse, threads, simd_arg(simd))));
}

EMSCRIPTEN_KEEPALIVE int attnscope_time_paged_decode(int dtype, int kv_dtype, const void* q, const void* kp,
                                                     const void* vp, const int32_t* bt, const int32_t* cl, float* o,
                                                     float* lse, int batch, int h, int hkv, int d, int num_pages,
                                                     int page_size, int max_pages, double scale, int window,
                                                     int partition, int threads, int simd, int warmup, int min_reps,
                                                     int max_reps, double min_ms, double max_ms) {
  std::vector<int64_t> samples, cpu;
  const Status s = attnscope::time_paged_decode(
      bridge::decode_params(decode_shape(batch, h, hkv, d, num_pages, page_size, max_pages, scale, window, partition),
                            decode_inputs(dtype, kv_dtype, q, kp, vp, bt, cl), o, lse, threads, simd_arg(simd)),
      bridge::timing_params(warmup, min_reps, max_reps, min_ms, max_ms), &samples, &cpu);
  return timed(s, samples, cpu);
}

EMSCRIPTEN_KEEPALIVE int attnscope_reference_paged_decode(int dtype, int kv_dtype, const void* q, const void* kp,
                                                          const void* vp, const int32_t* bt, const int32_t* cl,
                                                          double* o, double* lse, int batch, int h, int hkv, int d,
                                                          int num_pages, int page_size, int max_pages, double scale,
                                                          int window) {
  const attnscope::PagedDecodeParams p =
      bridge::decode_params(decode_shape(batch, h, hkv, d, num_pages, page_size, max_pages, scale, window, 0),
                            decode_inputs(dtype, kv_dtype, q, kp, vp, bt, cl), nullptr, nullptr, 0, SimdPath::kAuto);
  return static_cast<int>(attnscope::reference_paged_decode(p, o, lse));
}

/** dtype 1: fp16, else bf16; round to nearest even. */
EMSCRIPTEN_KEEPALIVE void attnscope_to_half_bits(int dtype, const float* src, uint16_t* dst, int n) {
  for (int i = 0; i < n; ++i) dst[i] = dtype == 1 ? attnscope::float_to_half(src[i]) : attnscope::float_to_bf16(src[i]);
}

EMSCRIPTEN_KEEPALIVE void attnscope_from_half_bits(int dtype, const uint16_t* src, float* dst, int n) {
  for (int i = 0; i < n; ++i) dst[i] = dtype == 1 ? attnscope::half_to_float(src[i]) : attnscope::bf16_to_float(src[i]);
}

/** cpuInfo's simdOverride: null when ATTNSCOPE_SIMD is unset. */
static std::string simd_override_json() {
  const attnscope::SimdOverride o = attnscope::simd_override();
  if (o.value.empty()) return "null";
  Json j;
  j.str("value", o.value).boolean("applied", o.path != SimdPath::kAuto);
  if (!o.warning.empty()) j.str("warning", o.warning);
  return j.done();
}

/** CpuInfo of native/kernels.ts as JSON (as napi/kernels.cc CpuInfo). */
EMSCRIPTEN_KEEPALIVE const char* attnscope_cpu_info() {
  std::vector<std::string> paths;
  for (SimdPath p : attnscope::supported_simd_paths()) paths.emplace_back(attnscope::simd_path_name(p));
  std::string dispatch = "[";
  for (attnscope::KernelKind kernel : {attnscope::KernelKind::kFlashFwd, attnscope::KernelKind::kPagedDecode}) {
    for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
      const SimdPath path = attnscope::dispatch_path(SimdPath::kAuto, kernel, dtype);
      dispatch += (dispatch.size() > 1 ? "," : "") + Json()
                                                         .str("kernel", attnscope::kernel_kind_name(kernel))
                                                         .str("dtype", dtype_name(dtype))
                                                         .str("path", attnscope::simd_path_name(path))
                                                         .str("unit", attnscope::product_unit(path, kernel, dtype))
                                                         .done();
    }
  }
  return text(Json()
                  .str("model", attnscope::cpu_features().model)
                  .num("cores", attnscope::hardware_threads())
                  .str("simd", attnscope::simd_path_name(attnscope::resolve_simd_path(SimdPath::kAuto)))
                  .strings("simdPaths", paths)
                  .strings("features", attnscope::simd_feature_names())
                  .raw("dispatch", dispatch + "]")
                  .str("dispatchReason", attnscope::dispatch_reason())
                  .raw("simdOverride", simd_override_json())
                  .done());
}

/** choose_bf16_path on given figures (napi/kernels.cc ChooseBf16), as JSON. */
EMSCRIPTEN_KEEPALIVE const char* attnscope_choose_bf16(const char* vendor, int family, const double* dot, int n_dot,
                                                       const double* fma, int n_fma) {
  const attnscope::Bf16Choice c = attnscope::choose_bf16_path(vendor, family, std::vector<double>(dot, dot + n_dot),
                                                              std::vector<double>(fma, fma + n_fma));
  return text(Json()
                  .str("path", attnscope::simd_path_name(c.path))
                  .str("how", c.how)
                  .num("dotFlopsPerSec", c.dot_flops)
                  .num("fmaFlopsPerSec", c.fma_flops)
                  .done());
}

// ---- peaks ----
/** CpuFeatureSet of native/peaks.ts as JSON (as napi/peaks.cc CpuFeatures). */
EMSCRIPTEN_KEEPALIVE const char* attnscope_cpu_features() {
  const attnscope::CpuFeatures& f = attnscope::cpu_features();
  return text(Json()
                  .strings("names", f.names)
                  .str("vendor", f.vendor)
                  .str("model", f.model)
                  .num("logicalCores", f.logical_cores)
                  .num("lastLevelCacheBytes", static_cast<double>(f.last_level_cache_bytes))
                  .num("lastLevelCacheLevel", f.last_level_cache_level)
                  .str("lastLevelCacheSource", f.last_level_cache_source)
                  .boolean("amxOsState", f.amx_os_state)
                  .done());
}

/**
 * kind: 0 fp32_fma, 1 avx512_bf16, 2 amx_bf16, 3 read_bandwidth, 4 core_clock (the order of
 * native/wasm/addon.ts). PeakMeasurement of native/peaks.ts as JSON.
 */
EMSCRIPTEN_KEEPALIVE const char* attnscope_measure_peak(int kind, int threads, double duration_ms, double buffer_bytes) {
  namespace p = attnscope::peaks;
  p::PeakParams params;
  params.threads = threads;
  params.duration_sec = duration_ms / 1e3;
  p::PeakResult r;
  switch (kind) {
    case 0: r = p::measure_fp32_fma_peak(params); break;
    case 1: r = p::measure_avx512_bf16_peak(params); break;
    case 2: r = p::measure_amx_bf16_peak(params); break;
    case 3: r = p::measure_read_bandwidth(params, static_cast<uint64_t>(buffer_bytes)); break;
    default:
      r.isa = "integer";
      r.threads = 1;
      r.reason = "WebAssembly has no cycle-exact integer add chain to time";
  }
  return text(Json()
                  .boolean("available", r.available)
                  .num("value", r.value)
                  .num("seconds", r.seconds)
                  .num("threads", r.threads)
                  .str("isa", r.isa)
                  .str("method", r.method)
                  .str("reason", r.reason)
                  .done());
}

// ---- page allocator (napi/allocator.cc) ----
EMSCRIPTEN_KEEPALIVE attnscope::PageAllocator* attnscope_alloc_new(int num_pages, int page_size, int watermark,
                                                                   int window, int caching) {
  attnscope::PageAllocatorConfig c;
  c.num_pages = num_pages;
  c.page_size = page_size;
  c.watermark_pages = watermark;
  c.sliding_window = window;
  c.enable_prefix_caching = caching != 0;
  if (attnscope::PageAllocator::Validate(c) != attnscope::AllocStatus::kOk) return nullptr;
  return new attnscope::PageAllocator(c);
}

EMSCRIPTEN_KEEPALIVE void attnscope_alloc_delete(attnscope::PageAllocator* a) { delete a; }

EMSCRIPTEN_KEEPALIVE const char* attnscope_alloc_status_name(int status) {
  return attnscope::AllocStatusName(static_cast<attnscope::AllocStatus>(status));
}

/** Writes [cachedTokens, storedTokens] to out; returns the AllocStatus. */
EMSCRIPTEN_KEEPALIVE int attnscope_alloc_allocate(attnscope::PageAllocator* a, double id, const int32_t* tokens,
                                                  double n, double max_new, double* out) {
  attnscope::AllocateResult r;
  const auto s = a->Allocate(static_cast<int64_t>(id), tokens, static_cast<int64_t>(n), static_cast<int64_t>(max_new), &r);
  out[0] = static_cast<double>(r.cached_tokens);
  out[1] = static_cast<double>(r.stored_tokens);
  return static_cast<int>(s);
}

EMSCRIPTEN_KEEPALIVE int attnscope_alloc_append(attnscope::PageAllocator* a, double id, const int32_t* tokens, double n) {
  return static_cast<int>(a->Append(static_cast<int64_t>(id), tokens, static_cast<int64_t>(n)));
}

EMSCRIPTEN_KEEPALIVE int attnscope_alloc_fork(attnscope::PageAllocator* a, double parent, double child) {
  return static_cast<int>(a->Fork(static_cast<int64_t>(parent), static_cast<int64_t>(child)));
}

EMSCRIPTEN_KEEPALIVE int attnscope_alloc_free(attnscope::PageAllocator* a, double id) {
  return static_cast<int>(a->Free(static_cast<int64_t>(id)));
}

/** The block table in attnscope_ints(); false (0) for an unknown sequence. */
EMSCRIPTEN_KEEPALIVE int attnscope_alloc_block_table(attnscope::PageAllocator* a, double id) {
  const std::vector<int32_t>* t = a->BlockTable(static_cast<int64_t>(id));
  if (t == nullptr) return 0;
  g_ints = *t;
  return 1;
}

EMSCRIPTEN_KEEPALIVE double attnscope_alloc_num_tokens(attnscope::PageAllocator* a, double id) {
  return static_cast<double>(a->NumTokens(static_cast<int64_t>(id)));
}

/** AllocatorStats of native/allocator.ts as JSON. */
EMSCRIPTEN_KEEPALIVE const char* attnscope_alloc_stats(attnscope::PageAllocator* a) {
  const attnscope::PageAllocatorStats s = a->Stats();
  return text(Json()
                  .num("numPages", s.num_pages)
                  .num("pageSize", s.page_size)
                  .num("pagesUsed", s.pages_used)
                  .num("pagesCached", s.pages_cached)
                  .num("pagesFree", s.pages_free)
                  .num("numSequences", s.num_sequences)
                  .num("tokensStored", static_cast<double>(s.tokens_stored))
                  .num("logicalTokens", static_cast<double>(s.logical_tokens))
                  .num("internalFragmentation", s.internal_fragmentation)
                  .num("occupancy", s.occupancy)
                  .num("prefixQueryTokens", static_cast<double>(s.prefix_query_tokens))
                  .num("prefixHitTokens", static_cast<double>(s.prefix_hit_tokens))
                  .num("prefixHitRate", s.prefix_hit_rate)
                  .num("cowCopies", static_cast<double>(s.cow_copies))
                  .num("evictions", static_cast<double>(s.evictions))
                  .done());
}

/** Per page (num_pages each): ref counts, states, filled slots. */
EMSCRIPTEN_KEEPALIVE void attnscope_alloc_pages(attnscope::PageAllocator* a, int32_t* refs, uint8_t* states,
                                                int32_t* filled) {
  for (int32_t p = 0; p < a->config().num_pages; ++p) {
    refs[p] = a->RefCount(p);
    states[p] = static_cast<uint8_t>(a->State(p));
    filled[p] = a->Filled(p);
  }
}

/** which 0: the free stack, 1: the cached queue; in attnscope_ints(). */
EMSCRIPTEN_KEEPALIVE void attnscope_alloc_page_list(attnscope::PageAllocator* a, int which) {
  g_ints = which == 0 ? a->FreePages() : a->CachedPages();
}

/** Live sequence ids in attnscope_doubles(). */
EMSCRIPTEN_KEEPALIVE void attnscope_alloc_sequence_ids(attnscope::PageAllocator* a) {
  const std::vector<int64_t> ids = a->SequenceIds();
  g_doubles.assign(ids.begin(), ids.end());
}

/** k, v: num_pages · page_size · slot_bytes bytes each, on the heap (the adapter mirrors them). */
EMSCRIPTEN_KEEPALIVE void attnscope_alloc_attach_kv_pool(attnscope::PageAllocator* a, uint8_t* k, uint8_t* v,
                                                         double slot_bytes) {
  attnscope::KvPoolView view;
  view.k = k;
  view.v = v;
  view.slot_bytes = static_cast<size_t>(slot_bytes);
  a->AttachKvPool(view);
}

// ---- serving simulator (napi/simulator.cc) ----
/**
 * config: [layout, numPages, pageSize, watermarkPages, slidingWindow, enablePrefixCaching,
 * maxNumSeqs, maxNumBatchedTokens, maxModelLen, perStepS, weightsS, perKvTokenS, perTokenS,
 * perPairS, maxSamples, coast, privateTails, expertWeightsS, numExperts, numExpertsPerTok,
 * stepSlidingWindow, perSlidingKvTokenS, perSlidingPairS, stepAttentionChunkSize, fullGroups,
 * slidingGroups, stateBlocks, attentionChunkSize, perDecodePairS, perLogitsS, perDecodeTokenS,
 * perPrefillContextTokenS, perRequestStateS, perPrefillContextKvS, decodeWeightsS, prefillWeightsS, allReduceS,
 * perTokenAllReduceS, perTokenOneShotAllReduceS, oneShotAllReduceTokens, perTokenMultimemAllReduceS,
 * multimemAllReduceMinTokens, multimemAllReduceMaxTokens, perTokenRingAllReduceS, ringAllReduceMinTokens, ringAllReduceS] (coast and privateTails: 0, 1, or -1 for the default;
 * expertWeightsS, numExperts, numExpertsPerTok 0 for a dense model; stepSlidingWindow ..
 * stepAttentionChunkSize 0 without sliding-window or chunked local-attention layers; fullGroups 1
 * and slidingGroups 0 but for a hybrid pool; stateBlocks 0 but for a hybrid Mamba pool;
 * attentionChunkSize 0 but for a hybrid pool of chunked local-attention groups; perDecodePairS
 * perPairS's value but for MLA; perLogitsS 0 for a run saved before it; perDecodeTokenS perTokenS's
 * value but for an MLA W8A8 checkpoint; perPrefillContextTokenS 0 but for MLA; perRequestStateS 0
 * without recurrent-state layers; perPrefillContextKvS 0 but for MLA; decodeWeightsS and
 * prefillWeightsS 0 but for an MLA W8A8 checkpoint; the all-reduce fields 0 at tp 1), then pipeline
 * parallelism: [stageCount (0 or >= 2), stageSendPerTokenS] and stageCount rows of [perStepS,
 * weightsS, expertWeightsS, perKvTokenS, perTokenS, perLogitsS, perPairS, perDecodePairS,
 * perSlidingKvTokenS, perSlidingPairS, perDecodeTokenS, perPrefillContextTokenS, perRequestStateS,
 * perPrefillContextKvS, decodeWeightsS, prefillWeightsS, allReduceS, perTokenAllReduceS,
 * perTokenOneShotAllReduceS, perTokenMultimemAllReduceS, perTokenRingAllReduceS, ringAllReduceS] (SimConfig::stages).
 * Columns as SimColumns.
 * Null with the reason in attnscope_error() when the input is refused.
 */
EMSCRIPTEN_KEEPALIVE attnscope::ServingSimulator* attnscope_sim_new(const double* c, int n, const double* arrival,
                                                                    const int32_t* prompt, const int32_t* output,
                                                                    const int32_t* start, int m, const double* stream,
                                                                    const int32_t* end) {
  attnscope::SimConfig config;
  config.layout = static_cast<attnscope::KvLayout>(static_cast<int32_t>(c[0]));
  config.allocator.num_pages = static_cast<int32_t>(c[1]);
  config.allocator.page_size = static_cast<int32_t>(c[2]);
  config.allocator.watermark_pages = static_cast<int32_t>(c[3]);
  config.allocator.sliding_window = static_cast<int32_t>(c[4]);
  config.allocator.enable_prefix_caching = c[5] != 0;
  config.max_num_seqs = static_cast<int32_t>(c[6]);
  config.max_num_batched_tokens = static_cast<int32_t>(c[7]);
  config.max_model_len = static_cast<int32_t>(c[8]);
  config.step.per_step_s = c[9];
  config.step.weights_s = c[10];
  config.step.per_kv_token_s = c[11];
  config.step.per_token_s = c[12];
  config.step.per_pair_s = c[13];
  config.max_samples = static_cast<int32_t>(c[14]);
  if (c[15] >= 0) config.coast = c[15] != 0;
  if (c[16] >= 0) config.private_tails = c[16] != 0;
  config.step.expert_weights_s = c[17];
  config.step.num_experts = static_cast<int32_t>(c[18]);
  config.step.num_experts_per_tok = static_cast<int32_t>(c[19]);
  config.step.sliding_window = static_cast<int32_t>(c[20]);
  config.step.per_sliding_kv_token_s = c[21];
  config.step.per_sliding_pair_s = c[22];
  config.step.attention_chunk_size = static_cast<int32_t>(c[23]);
  config.allocator.full_groups = static_cast<int32_t>(c[24]);
  config.allocator.sliding_groups = static_cast<int32_t>(c[25]);
  config.allocator.state_blocks = static_cast<int32_t>(c[26]);
  config.allocator.attention_chunk_size = static_cast<int32_t>(c[27]);
  config.step.per_decode_pair_s = c[28];
  config.step.per_logits_s = c[29];
  config.step.per_decode_token_s = c[30];
  config.step.per_prefill_context_token_s = c[31];
  config.step.per_request_state_s = c[32];
  config.step.per_prefill_context_kv_s = c[33];
  config.step.decode_weights_s = c[34];
  config.step.prefill_weights_s = c[35];
  config.step.all_reduce_s = c[36];
  config.step.per_token_all_reduce_s = c[37];
  config.step.per_token_one_shot_all_reduce_s = c[38];
  config.step.one_shot_all_reduce_tokens = static_cast<int32_t>(c[39]);
  config.step.per_token_multimem_all_reduce_s = c[40];
  config.step.multimem_all_reduce_min_tokens = static_cast<int32_t>(c[41]);
  config.step.multimem_all_reduce_max_tokens = static_cast<int32_t>(c[42]);
  config.step.per_token_ring_all_reduce_s = c[43];
  config.step.ring_all_reduce_min_tokens = static_cast<int32_t>(c[44]);
  config.step.ring_all_reduce_s = c[45];
  const int stage_count = static_cast<int>(c[46]);
  config.stage_send_per_token_s = c[47];
  for (int k = 0; k < stage_count; ++k) {
    const double* r = c + 48 + 22 * k;
    attnscope::StepTimeModel m;
    m.per_step_s = r[0];
    m.weights_s = r[1];
    m.expert_weights_s = r[2];
    m.per_kv_token_s = r[3];
    m.per_token_s = r[4];
    m.per_logits_s = r[5];
    m.per_pair_s = r[6];
    m.per_decode_pair_s = r[7];
    m.per_sliding_kv_token_s = r[8];
    m.per_sliding_pair_s = r[9];
    m.per_decode_token_s = r[10];
    m.per_prefill_context_token_s = r[11];
    m.per_request_state_s = r[12];
    m.per_prefill_context_kv_s = r[13];
    m.decode_weights_s = r[14];
    m.prefill_weights_s = r[15];
    m.all_reduce_s = r[16];
    m.per_token_all_reduce_s = r[17];
    m.per_token_one_shot_all_reduce_s = r[18];
    m.per_token_multimem_all_reduce_s = r[19];
    m.per_token_ring_all_reduce_s = r[20];
    m.ring_all_reduce_s = r[21];
    config.stages.push_back(m);
  }
  if (!attnscope::SimConfigValid(config)) {
    g_error = "ServingSimulator: invalid configuration";
    return nullptr;
  }
  const attnscope::SimColumns columns{static_cast<size_t>(n), arrival, prompt, output, start,
                                      static_cast<size_t>(m), stream, end};
  std::vector<attnscope::SimRequest> requests;
  std::vector<attnscope::SimSegment> segments;
  g_error = attnscope::BuildSimInput(columns, &requests, &segments);
  if (!g_error.empty()) return nullptr;
  return new attnscope::ServingSimulator(config, std::move(requests), std::move(segments));
}

EMSCRIPTEN_KEEPALIVE const char* attnscope_error() { return g_error.c_str(); }

EMSCRIPTEN_KEEPALIVE void attnscope_sim_delete(attnscope::ServingSimulator* s) { delete s; }

EMSCRIPTEN_KEEPALIVE int attnscope_sim_run(attnscope::ServingSimulator* s, double max_steps) {
  return s->Run(static_cast<int64_t>(max_steps)) ? 1 : 0;
}

/**
 * A dispatched engine (native/simulator.ts ServingSimulator add): appends request `index` of the
 * trace, its `count` segments (the trace's from `first_segment` on) in stream / end; 0 with the
 * reason in attnscope_error() when refused, naming the request and segments by their trace indices
 * as the addon does.
 */
EMSCRIPTEN_KEEPALIVE int attnscope_sim_add(attnscope::ServingSimulator* s, int index, int first_segment, double arrival, int prompt,
                                           int output, int count, const double* stream, const int32_t* end) {
  const int32_t start[2] = {0, count};
  const attnscope::SimColumns one{1, &arrival, &prompt, &output, start, static_cast<size_t>(count), stream, end,
                                  static_cast<size_t>(index), static_cast<size_t>(first_segment)};
  g_error = s->AddRequest(one, 0);
  return g_error.empty() ? 1 : 0;
}

/** RunUntil(t), then NextChange(t). */
EMSCRIPTEN_KEEPALIVE double attnscope_sim_run_until(attnscope::ServingSimulator* s, double t) {
  s->RunUntil(t);
  return s->NextChange(t);
}

EMSCRIPTEN_KEEPALIVE double attnscope_sim_in_flight(attnscope::ServingSimulator* s, double t) {
  return static_cast<double>(s->InFlight(t));
}

/** Samples as rows of kSimSampleFields in attnscope_doubles(). */
EMSCRIPTEN_KEEPALIVE void attnscope_sim_samples(attnscope::ServingSimulator* s) {
  g_doubles.resize(s->samples().size() * attnscope::kSimSampleFields);
  attnscope::PackSimSamples(s->samples(), g_doubles.data());
}

/** ServingSimTotals of native/simulator.ts as JSON. */
EMSCRIPTEN_KEEPALIVE const char* attnscope_sim_totals(attnscope::ServingSimulator* s) {
  const attnscope::SimTotals t = s->totals();
  return text(Json()
                  .num("requests", static_cast<double>(t.requests))
                  .num("completed", static_cast<double>(t.completed))
                  .num("rejected", static_cast<double>(t.rejected))
                  .num("delayed", static_cast<double>(t.delayed))
                  .num("preemptions", static_cast<double>(t.preemptions))
                  .num("preemptedTokens", static_cast<double>(t.preempted_tokens))
                  .num("steps", static_cast<double>(t.steps))
                  .num("generatedTokens", static_cast<double>(t.generated_tokens))
                  .num("prefilledTokens", static_cast<double>(t.prefilled_tokens))
                  .num("rejectedTokens", static_cast<double>(t.rejected_tokens))
                  .num("simulatedSeconds", t.simulated_seconds)
                  .num("clockSeconds", t.clock_seconds)
                  .num("usedPageSeconds", t.used_page_seconds)
                  .num("reservedSlotSeconds", t.reserved_slot_seconds)
                  .num("tokenSlotSeconds", t.token_slot_seconds)
                  .num("externalFreeSlotSeconds", t.external_free_slot_seconds)
                  .num("runningSeconds", t.running_seconds)
                  .num("waitingSeconds", t.waiting_seconds)
                  .num("peakWaiting", t.peak_waiting)
                  .num("peakPagesUsed", t.peak_pages_used)
                  .num("peakReservedSlots", static_cast<double>(t.peak_reserved_slots))
                  .num("peakRunning", t.peak_running)
                  .num("prefixQueryTokens", static_cast<double>(t.prefix_query_tokens))
                  .num("prefixHitTokens", static_cast<double>(t.prefix_hit_tokens))
                  .num("prefixSharedHitTokens", static_cast<double>(t.prefix_shared_hit_tokens))
                  .num("prefixOwnHitTokens", static_cast<double>(t.prefix_own_hit_tokens))
                  .num("firstAdmissionTokens", static_cast<double>(t.first_admission_tokens))
                  .boolean("done", s->done())
                  .done());
}

/** Per request (n each): queued, scheduled, first token and finish times (−1: not reached), output_len. */
EMSCRIPTEN_KEEPALIVE void attnscope_sim_times(attnscope::ServingSimulator* s, double* queued, double* scheduled, double* first,
                                              double* finish, int32_t* output_len) {
  const auto& t = s->times();
  for (size_t i = 0; i < s->num_requests(); ++i) {
    const attnscope::RequestTimes r = i < t.size() ? t[i] : attnscope::RequestTimes{};  // not arrived: −1, 0
    queued[i] = r.queued_s;
    scheduled[i] = r.scheduled_s;
    first[i] = r.first_token_s;
    finish[i] = r.finish_s;
    output_len[i] = r.output_len;
  }
}

}  // extern "C"
