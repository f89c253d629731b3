// KernelOps for WebAssembly SIMD128 (the WebAssembly build, native/wasm/; compiled with
// -msimd128). SIMD128 has no fused multiply-add (relaxed SIMD is not in Node 20 by default),
// so fmadd is a multiply and an add: two roundings, as the scalar path's a * b + c.
// fp16 has no conversion instruction: load_f16 widens with integer operations (F. Giesen,
// "Half to float done quic", 2012: shift the exponent and mantissa into place, rebias by a
// multiply by 2^112, which also normalizes subnormals, and force the exponent of inf / NaN).
#include <wasm_simd128.h>

#include "kernels/ops_simd.h"

namespace attnscope {
namespace {

struct Simd128 {
  using T = v128_t;
  static constexpr int W = 4;
  // 4 rows x 2 vectors = 8 accumulators, 2 B vectors and a broadcast: V8 maps them onto the
  // 16 xmm registers of x86-64 (and the 32 of arm64) without spilling.
  static constexpr int MR = 4;
  static constexpr int NR = 2;
  static constexpr bool kHasReduce16 = false, kHasReduce8 = false, kHasTranspose = false;  // ops_simd.h
  static T zero() { return wasm_f32x4_splat(0.f); }
  static T set1(float f) { return wasm_f32x4_splat(f); }
  static T load(const float* p) { return wasm_v128_load(p); }
  static void store(float* p, T x) { wasm_v128_store(p, x); }
  static T fmadd(T a, T b, T c) { return wasm_f32x4_add(wasm_f32x4_mul(a, b), c); }
  static T fnmadd(T a, T b, T c) { return wasm_f32x4_sub(c, wasm_f32x4_mul(a, b)); }
  static T mul(T a, T b) { return wasm_f32x4_mul(a, b); }
  static T add(T a, T b) { return wasm_f32x4_add(a, b); }
  static T sub(T a, T b) { return wasm_f32x4_sub(a, b); }
  // pmax / pmin (a < b ? b : a) lower to one maxps / minps; the NaN-propagating f32x4.max
  // costs a sequence. Inputs here are finite or -inf except a NaN score, which exp keeps.
  static T max(T a, T b) { return wasm_f32x4_pmax(a, b); }
  static T min(T a, T b) { return wasm_f32x4_pmin(a, b); }
  static T round(T x) { return wasm_f32x4_nearest(x); }
  static T scale_pow2(T y, T n) {  // n in [-127, 128] after the clamp in cephes_exp
    const v128_t e = wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(n), wasm_i32x4_splat(127)), 23);
    return wasm_f32x4_mul(y, e);
  }
  static T zero_below(T value, T x, T limit) { return wasm_v128_andnot(value, wasm_f32x4_lt(x, limit)); }
  static float reduce_add(T x) {
    const v128_t s = wasm_f32x4_add(x, wasm_i32x4_shuffle(x, x, 2, 3, 0, 1));
    return wasm_f32x4_extract_lane(wasm_f32x4_add(s, wasm_i32x4_shuffle(s, s, 1, 0, 3, 2)), 0);
  }
  static float reduce_max(T x) {
    const v128_t s = wasm_f32x4_pmax(x, wasm_i32x4_shuffle(x, x, 2, 3, 0, 1));
    return wasm_f32x4_extract_lane(wasm_f32x4_pmax(s, wasm_i32x4_shuffle(s, s, 1, 0, 3, 2)), 0);
  }
  static T exp(T x) { return cephes_exp<Simd128>(x); }
  static T exp_nonpositive(T x) { return exp(x); }
  static T load_f16(const uint16_t* p) {
    const v128_t h = wasm_u32x4_load16x4(p);
    const v128_t bits = wasm_i32x4_shl(wasm_v128_and(h, wasm_i32x4_splat(0x7fff)), 13);
    const v128_t rebased = wasm_f32x4_mul(bits, wasm_i32x4_splat(0x77800000));  // * 2^112
    const v128_t inf_nan = wasm_v128_and(wasm_i32x4_ge(bits, wasm_i32x4_splat(0x0f800000)), wasm_i32x4_splat(0x7f800000));
    const v128_t sign = wasm_i32x4_shl(wasm_v128_and(h, wasm_i32x4_splat(0x8000)), 16);
    return wasm_v128_or(wasm_v128_or(rebased, inf_nan), sign);
  }
  static T load_bf16(const uint16_t* p) { return wasm_i32x4_shl(wasm_u32x4_load16x4(p), 16); }
};

}  // namespace

const KernelOps& simd128_ops() {
  static const KernelOps ops = SimdOps<Simd128>::table(SimdPath::kSimd128);
  return ops;
}

}  // namespace attnscope
