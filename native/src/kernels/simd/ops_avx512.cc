// KernelOps for AVX-512 (F, BW, VL, DQ; F16C conversions). Compiled with -mavx512f -mavx512bw
// -mavx512vl -mavx512dq -mfma -mf16c; only called when cpu_features() reports AVX-512.
#include "kernels/simd/ops_avx512.h"

namespace attnscope {

const KernelOps& avx512_ops() {
  static const KernelOps ops = SimdOps<Avx512>::table(SimdPath::kAvx512);
  return ops;
}

}  // namespace attnscope
