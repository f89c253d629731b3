// KernelOps for AArch64 Advanced SIMD (NEON), 4 fp32 lanes. NEON is part of the AArch64 base
// ISA, so this file needs no -m flags and is compiled only in the arm64 build (binding.gyp).
// fmadd is a real fused multiply-add (vfmaq_f32: one rounding, as the x86 FMA paths); fp16 is
// widened by vcvt_f32_f16 (FCVTL, base AArch64) and bf16 by moving its 16 bits to the top of
// an fp32 (bf16 is the top half of an fp32).
#include <arm_neon.h>

#include "kernels/ops_simd.h"

namespace attnscope {
namespace {

struct Neon {
  using T = float32x4_t;
  static constexpr int W = 4;
  // 6 rows x 4 vectors = 24 accumulators, 4 B vectors and a broadcast: 29 of the 32 v
  // registers, no spill. 16-float panels tile the flash tiles (64 keys, D = 64 / 128) exactly;
  // 8 x 3 (24 accumulators too) would leave 12-float panels and a remainder on every tile.
  static constexpr int MR = 6;
  static constexpr int NR = 4;
  static constexpr bool kHasReduce16 = false, kHasReduce8 = false, kHasTranspose = false;  // ops_simd.h
  static T zero() { return vdupq_n_f32(0.f); }
  static T set1(float f) { return vdupq_n_f32(f); }
  static T load(const float* p) { return vld1q_f32(p); }
  static void store(float* p, T x) { vst1q_f32(p, x); }
  static T fmadd(T a, T b, T c) { return vfmaq_f32(c, a, b); }   // a * b + c
  static T fnmadd(T a, T b, T c) { return vfmsq_f32(c, a, b); }  // c - a * b
  static T mul(T a, T b) { return vmulq_f32(a, b); }
  static T add(T a, T b) { return vaddq_f32(a, b); }
  static T sub(T a, T b) { return vsubq_f32(a, b); }
  // FMAX / FMIN return NaN when either input is NaN: a NaN score stays NaN through exp.
  static T max(T a, T b) { return vmaxq_f32(a, b); }
  static T min(T a, T b) { return vminq_f32(a, b); }
  static T round(T x) { return vrndnq_f32(x); }  // to nearest, ties to even (FRINTN)
  static T scale_pow2(T y, T n) {  // n integral in [-127, 128] after the clamp in cephes_exp
    const int32x4_t e = vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127)), 23);
    return vmulq_f32(y, vreinterpretq_f32_s32(e));
  }
  static T zero_below(T value, T x, T limit) {
    return vreinterpretq_f32_u32(vbicq_u32(vreinterpretq_u32_f32(value), vcltq_f32(x, limit)));
  }
  static float reduce_add(T x) { return vaddvq_f32(x); }
  static float reduce_max(T x) { return vmaxvq_f32(x); }
  static T exp(T x) { return cephes_exp<Neon>(x); }
  static T exp_nonpositive(T x) { return exp(x); }
  static T load_f16(const uint16_t* p) { return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p))); }
  static T load_bf16(const uint16_t* p) {
    return vreinterpretq_f32_u32(vshlq_n_u32(vmovl_u16(vld1_u16(p)), 16));
  }
};

}  // namespace

const KernelOps& neon_ops() {
  static const KernelOps ops = SimdOps<Neon>::table(SimdPath::kNeon);
  return ops;
}

}  // namespace attnscope
