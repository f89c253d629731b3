// The kernel params of one attention spec, built in one place for both bridges of the same C++:
// the addon's N-API bridges (napi/kernels.cc, napi/cuda.cc read a JS spec object through
// fields.h) and the WebAssembly module's C ABI (wasm/abi.cc takes the same fields as scalars and
// heap pointers). Each bridge reads a shape and its tensors its own way; what goes where in a
// params struct is written here once. No napi.h: wasm/abi.cc includes this file too.
//
// Field names are the spec's (native/kernels.ts flashSpec, decodeSpec), in snake_case.
#pragma once

#include <cstdint>

#include "kernels/kernels.h"

namespace attnscope {
namespace bridge {

/** The shape of a flash forward spec (FlashParams / ReferenceParams; the CUDA flash params). */
struct FlashShape {
  int batch, seq_len_q, seq_len_k, num_heads, num_kv_heads, head_dim;
  bool causal;
  int window;            // > 0: the last `window` keys, own position included; 0: none
  double softmax_scale;  // <= 0: 1/sqrt(head_dim)
};

/** The shape of a paged decode spec (PagedDecodeParams; the CUDA decode params). */
struct DecodeShape {
  int batch, num_heads, num_kv_heads, head_dim, page_size, num_pages, max_pages_per_seq;
  int partition_tokens;  // 0: the kernel plans the split
  double softmax_scale;  // <= 0: 1/sqrt(head_dim)
  int window;            // > 0: the last `window` tokens of each context; 0: all (CPU kernel only)
};

// The sizes any params struct spells alike: the CPU kernels' and the CUDA library's C ABI
// (attnscope_cuda_flash_params / attnscope_cuda_decode_params). What each spells its own way
// (mask, softmax scale, dtype) its caller sets from the shape.

/** Sets p's batch, seq_len_q, seq_len_k, num_heads, num_kv_heads and head_dim. */
template <typename P>
void set_flash_sizes(const FlashShape& s, P* p) {
  p->batch = s.batch;
  p->seq_len_q = s.seq_len_q;
  p->seq_len_k = s.seq_len_k;
  p->num_heads = s.num_heads;
  p->num_kv_heads = s.num_kv_heads;
  p->head_dim = s.head_dim;
}

/** Sets p's batch, num_heads, num_kv_heads, head_dim, page_size, num_pages, max_pages_per_seq, partition_tokens. */
template <typename P>
void set_decode_sizes(const DecodeShape& s, P* p) {
  p->batch = s.batch;
  p->num_heads = s.num_heads;
  p->num_kv_heads = s.num_kv_heads;
  p->head_dim = s.head_dim;
  p->page_size = s.page_size;
  p->num_pages = s.num_pages;
  p->max_pages_per_seq = s.max_pages_per_seq;
  p->partition_tokens = s.partition_tokens;
}

/** q, k, v of a flash spec: [batch, seq_len, heads, head_dim] contiguous, fp32 or fp16/bf16 bits. */
struct AttentionInputs {
  DType dtype;
  const void* q;
  const void* k;
  const void* v;
};

/** q and the page pools of a decode spec (shapes as PagedDecodeParams). */
struct DecodeInputs {
  DType dtype;     // of q
  DType kv_dtype;  // of the page pools
  const void* q;
  const void* k_pages;
  const void* v_pages;
  const int32_t* block_table;   // [batch, max_pages_per_seq]
  const int32_t* context_lens;  // [batch]
};

/** What FlashParams and ReferenceParams share: shape, inputs, scale and mask. */
template <typename P>
P attention_params(const FlashShape& s, const AttentionInputs& in) {
  P p;
  set_flash_sizes(s, &p);
  p.dtype = in.dtype;
  p.q = in.q;
  p.k = in.k;
  p.v = in.v;
  p.softmax_scale = static_cast<decltype(p.softmax_scale)>(s.softmax_scale);
  p.is_causal = s.causal;
  p.window = s.window;
  return p;
}

/** The CPU flash kernel's params: o [batch, seq_len_q, num_heads, head_dim], lse [batch, num_heads, seq_len_q] fp32. */
inline FlashParams flash_params(const FlashShape& s, const AttentionInputs& in, float* o, float* lse, int threads,
                                SimdPath simd) {
  FlashParams p = attention_params<FlashParams>(s, in);
  p.o = o;
  p.lse = lse;
  set_contiguous_strides(&p);
  p.threads = threads;
  p.simd = simd;
  return p;
}

/** The fp64 reference's params: o and lse as flash_params, in fp64. */
inline ReferenceParams reference_params(const FlashShape& s, const AttentionInputs& in, double* o, double* lse) {
  ReferenceParams p = attention_params<ReferenceParams>(s, in);
  p.o = o;
  p.lse = lse;
  return p;
}

/**
 * The CPU decode kernel's params: o [batch, num_heads, head_dim], lse [batch, num_heads] fp32;
 * both null for reference_paged_decode, which takes fp64 outputs of its own.
 */
inline PagedDecodeParams decode_params(const DecodeShape& s, const DecodeInputs& in, float* o, float* lse,
                                       int threads, SimdPath simd) {
  PagedDecodeParams p;
  set_decode_sizes(s, &p);
  p.dtype = in.dtype;
  p.kv_dtype = in.kv_dtype;
  p.q = in.q;
  p.k_pages = in.k_pages;
  p.v_pages = in.v_pages;
  p.block_table = in.block_table;
  p.context_lens = in.context_lens;
  p.o = o;
  p.lse = lse;
  p.softmax_scale = static_cast<float>(s.softmax_scale);
  p.window = s.window;
  p.threads = threads;
  p.simd = simd;
  return p;
}

/** The timing loop's params (TimingParams; spec names warmup, minReps, maxReps, minTimeMs, maxTimeMs). */
inline TimingParams timing_params(int warmup, int min_reps, int max_reps, double min_time_ms, double max_time_ms) {
  TimingParams t;
  t.warmup = warmup;
  t.min_reps = min_reps;
  t.max_reps = max_reps;
  t.min_time_ms = min_time_ms;
  t.max_time_ms = max_time_ms;
  return t;
}

}  // namespace bridge
}  // namespace attnscope
