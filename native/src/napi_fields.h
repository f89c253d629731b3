// Reading a spec object's fields in the N-API bridges (kernels_addon.cc, cuda_addon.cc). The
// TypeScript side validated the values; these only refuse what would crash, with a TypeError
// naming the field.
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

// The data of typed array `name` of the given type, as T*.
template <typename T>
T* array_field(const Napi::Object& spec, const char* name, napi_typedarray_type type) {
  const Napi::Value v = spec.Get(name);
  if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != type)
    throw Napi::TypeError::New(spec.Env(), std::string(name) + " has the wrong typed array type");
  const Napi::TypedArray a = v.As<Napi::TypedArray>();
  return reinterpret_cast<T*>(static_cast<char*>(a.ArrayBuffer().Data()) + a.ByteOffset());
}

}  // namespace napi_fields
}  // namespace attnscope
