// Emulated cuda_fp16.h (see cuda_emulation.h): IEEE binary16 through GCC's _Float16.
#pragma once
#include "cuda_emulation.h"

struct __half {
  uint16_t bits;
};
struct __half2 {
  __half x, y;
};
inline __half __float2half_rn(float f) {
  _Float16 h = static_cast<_Float16>(f);
  __half out;
  std::memcpy(&out.bits, &h, 2);
  return out;
}
inline float __half2float(__half h) {
  _Float16 v;
  std::memcpy(&v, &h.bits, 2);
  return static_cast<float>(v);
}
inline __half2 __floats2half2_rn(float lo, float hi) { return __half2{__float2half_rn(lo), __float2half_rn(hi)}; }
