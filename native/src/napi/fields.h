// Reading a spec object's fields in the N-API bridges (napi/kernels.cc, napi/cuda.cc): the one
// reader of the attention spec fields that native/kernels.ts builds (flashSpec, decodeSpec) and
// native/cuda.ts passes on unchanged. The TypeScript side validated the values; these only refuse
// what would crash, with a TypeError naming the field. Field names are the spec's, in snake_case.
#pragma once

#include <napi.h>

#include <string>

#include "napi/params.h"

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

// The shapes (params.h, shared with wasm/abi.cc) are read once per call; read_*_shape also sets
// the sizes of any params struct that spells them alike (params.h set_*_sizes).
using bridge::DecodeShape;
using bridge::FlashShape;

inline FlashShape flash_shape(const Napi::Object& s) {
  return {int_field(s, "batch"),      int_field(s, "seqLenQ"),  int_field(s, "seqLenK"),
          int_field(s, "numHeads"),   int_field(s, "numKvHeads"), int_field(s, "headDim"),
          bool_field(s, "causal"),    int_field(s, "window"),   number_field(s, "softmaxScale")};
}

// Reads spec's flash shape and sets p's sizes from it; returns the shape for the rest.
template <typename P>
FlashShape read_flash_shape(const Napi::Object& spec, P* p) {
  const FlashShape shape = flash_shape(spec);
  bridge::set_flash_sizes(shape, p);
  return shape;
}

inline DecodeShape decode_shape(const Napi::Object& s) {
  return {int_field(s, "batch"),    int_field(s, "numHeads"),       int_field(s, "numKvHeads"),
          int_field(s, "headDim"),  int_field(s, "pageSize"),       int_field(s, "numPages"),
          int_field(s, "maxPagesPerSeq"), int_field(s, "partitionTokens"), number_field(s, "softmaxScale"),
          int_field(s, "window")};
}

// Reads spec's decode shape and sets p's sizes from it; returns the shape for the rest.
template <typename P>
DecodeShape read_decode_shape(const Napi::Object& spec, P* p) {
  const DecodeShape shape = decode_shape(spec);
  bridge::set_decode_sizes(shape, p);
  return shape;
}

}  // namespace napi_fields
}  // namespace attnscope
