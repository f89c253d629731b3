// Launch planning of the flash forward kernel: runtime dtype and mask kind -> template
// parameters, the grid and the shared memory. The GPU launchers (flash_fwd_hdim{64,128}.cu)
// and the CPU emulation (test/gpu/emulate) both go through dispatch_flash_fwd(), so the
// emulation runs exactly the instances and grids the GPU gets.
#pragma once

#include "flash_fwd.cuh"
#include "launch_shape.h"

namespace attnscope {
namespace cuda {

// Tile shapes per head_dim (the kernel files instantiate these; so does the emulation).
template <int kHeadDim>
struct FlashFwdConfig;
// 128 query rows x 64 keys per tile, 4 warps of 32 rows each (48 KiB of shared memory: fits
// without opting in; 168-254 registers, no spill).
template <>
struct FlashFwdConfig<64> {
  using Traits = FlashFwdTraits<64, 128, 64, 4>;
};
// 128 query rows x 32 keys per tile, 4 warps of 32 rows each (FlashAttention-2's sm86 choice
// for this head_dim; 64 KiB of shared memory, 2 blocks per H100/H200 SM by registers).
// 64-key tiles (its sm80 choice) need more than 255 registers with this kernel: ptxas spilled
// 20-130 bytes per thread depending on the mask kind, where 32-key tiles fit in 234-250
// registers with none (test/gpu/ptxas_spills.sh checks every instance).
template <>
struct FlashFwdConfig<128> {
  using Traits = FlashFwdTraits<128, 128, 32, 4>;
};

// Grid of flash_fwd_kernel: (ceil(N_q / kBlockM), H, B).
template <typename Traits>
dim3 flash_fwd_grid(const attnscope_cuda_flash_params& p) {
  return dim3(ceil_div(p.seq_len_q, Traits::kBlockM), p.num_heads, p.batch);
}

// Picks the kernel instance for p (dtype, flash_mask_kind(p)) and returns
// launch(kernel, shape, p): run kernel over shape.grid with p as its argument.
template <typename Traits, typename Launch>
auto dispatch_flash_fwd(const attnscope_cuda_flash_params& p, Launch&& launch) {
  const LaunchShape shape{flash_fwd_grid<Traits>(p), Traits::kThreads, Traits::kSmemBytes, false};
  auto with_dtype = [&](auto type_tag) {
    using T = decltype(type_tag);
    switch (flash_mask_kind(p)) {
      case MaskKind::kNone: return launch(flash_fwd_kernel<Traits, T, MaskKind::kNone>, shape, p);
      case MaskKind::kCausal: return launch(flash_fwd_kernel<Traits, T, MaskKind::kCausal>, shape, p);
      default: return launch(flash_fwd_kernel<Traits, T, MaskKind::kLocal>, shape, p);
    }
  };
  return p.dtype == ATTNSCOPE_CUDA_BF16 ? with_dtype(__nv_bfloat16{}) : with_dtype(__half{});
}

}  // namespace cuda
}  // namespace attnscope
