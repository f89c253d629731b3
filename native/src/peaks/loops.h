// The inner loops of the peak microbenchmarks, one per ISA (x86.cc, portable.cc).
// Each runs `iters` iterations on the calling thread and returns the work done: FLOPs for the
// compute loops, bytes read for the read loops. Callers choose a loop only after the matching
// feature check (kernels/cpu_features.h cpu_features(), request_amx_permission()).
#pragma once

#include <cstddef>
#include <cstdint>

namespace attnscope {
namespace peaks {

using ComputeLoop = double (*)(uint64_t iters);
using ReadLoop = double (*)(const void* data, size_t bytes);
/** Sums n runs of `bytes` (a multiple of 256) each, 256 B of each run in turn.
 *  Returns n * bytes. */
using ReadStreams = double (*)(const void* const* streams, int n, size_t bytes);

#if defined(__x86_64__)
/** 16 independent zmm FMA chains: 16 x 16 lanes x 2 FLOP per iteration. Needs avx512f. */
double fma_loop_avx512(uint64_t iters);
/** 12 independent ymm FMA chains: 12 x 8 lanes x 2 FLOP per iteration. Needs avx2 + fma. */
double fma_loop_avx2(uint64_t iters);
/** 16 independent zmm vdpbf16ps chains: 16 x 16 lanes x 2 pairs x 2 FLOP. Needs avx512_bf16. */
double bf16_dot_loop_avx512(uint64_t iters);
/**
 * AMX: configures 8 tiles (palette 1, 16 rows x 64 bytes), then per iteration 4 TDPBF16PS
 * into four fp32 accumulator tiles from two A and two B tiles (a 2x2 register block):
 * 4 x 16 x 16 x 32 x 2 FLOP. Releases the tiles. Needs request_amx_permission() == "".
 */
double amx_bf16_loop(uint64_t iters);
/** Sums `bytes` (a multiple of 256, 64-byte aligned) with zmm loads. Needs avx512f. */
double read_loop_avx512(const void* data, size_t bytes);
/** Sums `bytes` (a multiple of 256, 32-byte aligned) with ymm loads. Needs avx2. */
double read_loop_avx2(const void* data, size_t bytes);
/** read_streams with zmm loads (each stream 64-byte aligned). Needs avx512f. */
double read_streams_avx512(const void* const* streams, int n, size_t bytes);
/** read_streams with ymm loads (each stream 32-byte aligned). Needs avx2. */
double read_streams_avx2(const void* const* streams, int n, size_t bytes);
#endif

/** Portable FMA chains (NEON vfmaq_f32 on aarch64, else 16-byte vector mul+add). */
double fma_loop_portable(uint64_t iters);
/** Portable read loop: 64-bit integer sums over `bytes` (a multiple of 256). */
double read_loop_portable(const void* data, size_t bytes);
/** read_streams with 64-bit integer loads (each stream 8-byte aligned). */
double read_streams_portable(const void* const* streams, int n, size_t bytes);
/** ISA name of the portable loops: "neon" on aarch64, else "portable". */
const char* portable_isa_name();

/** Keeps loop results alive without letting the compiler fold the loops away. */
void consume(double value);

}  // namespace peaks
}  // namespace attnscope
