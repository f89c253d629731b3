// Reading a spec object's fields in the N-API bridges (napi/kernels.cc, napi/cuda.cc): the one
// reader of the attention spec fields that native/kernels.ts builds (flashSpec, decodeSpec) and
// native/cuda.ts passes on unchanged. The TypeScript side validated the values; these only refuse
// what would crash, with a TypeError naming the field. Field names are the spec's, in snake_case.
#pragma once

#include <napi.h>

#include <string>

namespace attnscope {
namespace napi_fields {

inline int int_field(const Napi::Object& spec, const char* name) {
  const Napi::Value v = spec.Get(name);
  if (!v.IsNumber()) throw Napi::TypeError::New(spec.Env(), std::string(name) + " must be a number");
  return v.As<Napi::Number>().Int32Value();
}

inline double number_field(const Napi::Object& spec, const char* name) {
  const Napi::Value v = spec.Get(name);
  if (!v.IsNumber()) throw Napi::TypeError::New(spec.Env(), std::string(name) + " must be a number");
  return v.As<Napi::Number>().DoubleValue();
}

inline bool bool_field(const Napi::Object& spec, const char* name) {
  const Napi::Value v = spec.Get(name);
  if (!v.IsBoolean()) throw Napi::TypeError::New(spec.Env(), std::string(name) + " must be a boolean");
  return v.As<Napi::Boolean>().Value();
}

// The data of typed array `name` of the given type, as T*.
template <typename T>
T* array_field(const Napi::Object& spec, const char* name, napi_typedarray_type type) {
  const Napi::Value v = spec.Get(name);
  if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != type)
    throw Napi::TypeError::New(spec.Env(), std::string(name) + " has the wrong typed array type");
  const Napi::TypedArray a = v.As<Napi::TypedArray>();
  return reinterpret_cast<T*>(static_cast<char*>(a.ArrayBuffer().Data()) + a.ByteOffset());
}

// The shapes below are read once per call into any params struct that spells them alike: the
// CPU kernels' FlashParams / ReferenceParams / PagedDecodeParams and the CUDA library's
// attnscope_cuda_flash_params / attnscope_cuda_decode_params. What each spells its own way
// (mask, softmax scale, dtype) the caller sets from the returned shape.

/** The shape of a flash forward spec (FlashParams / ReferenceParams; the CUDA flash params). */
struct FlashShape {
  int batch, seq_len_q, seq_len_k, num_heads, num_kv_heads, head_dim;
  bool causal;
  int window;            // > 0: the last `window` keys, own position included; 0: none
  double softmax_scale;  // <= 0: 1/sqrt(head_dim)
};

inline FlashShape flash_shape(const Napi::Object& s) {
  return {int_field(s, "batch"),      int_field(s, "seqLenQ"),  int_field(s, "seqLenK"),
          int_field(s, "numHeads"),   int_field(s, "numKvHeads"), int_field(s, "headDim"),
          bool_field(s, "causal"),    int_field(s, "window"),   number_field(s, "softmaxScale")};
}

// Reads spec's flash shape and sets p's batch, seq_len_q, seq_len_k, num_heads, num_kv_heads and
// head_dim from it; returns the shape for the rest.
template <typename P>
FlashShape read_flash_shape(const Napi::Object& spec, P* p) {
  const FlashShape shape = flash_shape(spec);
  p->batch = shape.batch;
  p->seq_len_q = shape.seq_len_q;
  p->seq_len_k = shape.seq_len_k;
  p->num_heads = shape.num_heads;
  p->num_kv_heads = shape.num_kv_heads;
  p->head_dim = shape.head_dim;
  return shape;
}

/** The shape of a paged decode spec (PagedDecodeParams; the CUDA decode params). */
struct DecodeShape {
  int batch, num_heads, num_kv_heads, head_dim, page_size, num_pages, max_pages_per_seq;
  int partition_tokens;  // 0: the kernel plans the split
  double softmax_scale;  // <= 0: 1/sqrt(head_dim)
};

inline DecodeShape decode_shape(const Napi::Object& s) {
  return {int_field(s, "batch"),    int_field(s, "numHeads"),       int_field(s, "numKvHeads"),
          int_field(s, "headDim"),  int_field(s, "pageSize"),       int_field(s, "numPages"),
          int_field(s, "maxPagesPerSeq"), int_field(s, "partitionTokens"), number_field(s, "softmaxScale")};
}

// Reads spec's decode shape and sets p's batch, num_heads, num_kv_heads, head_dim, page_size,
// num_pages, max_pages_per_seq and partition_tokens from it; returns the shape for the rest.
template <typename P>
DecodeShape read_decode_shape(const Napi::Object& spec, P* p) {
  const DecodeShape shape = decode_shape(spec);
  p->batch = shape.batch;
  p->num_heads = shape.num_heads;
  p->num_kv_heads = shape.num_kv_heads;
  p->head_dim = shape.head_dim;
  p->page_size = shape.page_size;
  p->num_pages = shape.num_pages;
  p->max_pages_per_seq = shape.max_pages_per_seq;
  p->partition_tokens = shape.partition_tokens;
  return shape;
}

}  // namespace napi_fields
}  // namespace attnscope
