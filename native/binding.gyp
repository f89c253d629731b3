{
  # The CPU addon, one folder of src/ per part (DESIGN.md, "native/"): napi/ the N-API bridges,
  # kernels/ the attention kernels, pool/ the page allocator and serving simulator, peaks/ the
  # machine's measured limits, cuda_host/ the loader of the CUDA library. Sources are listed
  # one by one: a glob would silently drop a moved file, and a missing Init fails only at
  # require(). Headers sit beside their code and are included from src/ ("kernels/ops.h").
  # The shipped build uses no -march=native. SIMD paths live in src/kernels/simd/, one static
  # library per ISA compiled with that ISA's flags, chosen at run time (kernels/cpu_features.h,
  # kernels/ops.h). On arm64 the NEON path (always present there) is compiled into the addon.
  "target_defaults": {
    "include_dirs": [ "src", "cuda/include" ],
    # The kernels' limits come from core/kernelLimits.json, which TypeScript reads too; found
    # from this file's real path, so that a cross build's folder linking to it finds it too.
    "defines": [ "ATTNSCOPE_CPU_MAX_HEAD_DIM=<!(node -p \"require(require('fs').realpathSync('binding.gyp') + '/../../core/kernelLimits.json').cpu.maxHeadDim\")" ],
    # -fvisibility=hidden: the addon exports only its N-API entry point, so calls between our
    # own functions are direct and inlinable (with -fPIC and default visibility every call to a
    # global function goes through the PLT and is never inlined: the simulator ran 2x slower).
    "cflags_cc": [ "-std=c++17", "-O3", "-pthread", "-fvisibility=hidden" ],
    "xcode_settings": { "CLANG_CXX_LANGUAGE_STANDARD": "c++17" }
  },
  "targets": [
    {
      "target_name": "attnscope_native",
      "sources": [
        "src/napi/addon.cc",
        "src/napi/allocator.cc",
        "src/napi/cuda.cc",
        "src/napi/cuda_math_checks.cc",
        "src/napi/io.cc",
        "src/napi/kernels.cc",
        "src/napi/peaks.cc",
        "src/napi/simulator.cc",
        "src/kernels/amx_model.cc",
        "src/kernels/cpu_features.cc",
        "src/kernels/flash_fwd.cc",
        "src/kernels/half.cc",
        "src/kernels/ops_scalar.cc",
        "src/kernels/paged_decode.cc",
        "src/kernels/reference.cc",
        "src/kernels/simd_dispatch.cc",
        "src/kernels/status.cc",
        "src/kernels/threads.cc",
        "src/kernels/timing.cc",
        "src/pool/allocator.cc",
        "src/pool/simulator.cc",
        "src/peaks/clock.cc",
        "src/peaks/peaks.cc",
        "src/peaks/portable.cc",
        "src/peaks/x86.cc",
        "src/cuda_host/loader.cc"
      ],
      "include_dirs": [ "<!(node -p \"require('node-addon-api').include_dir\")" ],
      "defines": [ "NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS" ],
      "cflags!": [ "-fno-exceptions" ],
      "cflags_cc!": [ "-fno-exceptions" ],
      "cflags_cc": [ "-fexceptions" ],
      "ldflags": [ "-pthread" ],
      "xcode_settings": { "GCC_ENABLE_CPP_EXCEPTIONS": "YES" },
      "conditions": [
        [ "target_arch=='x64'", {
          "defines": [ "ATTNSCOPE_X86_PATHS" ],
          "dependencies": [ "attnscope_kernels_avx2", "attnscope_kernels_avx512", "attnscope_kernels_avx512bf16",
                            "attnscope_kernels_amx" ]
        } ],
        # NEON is in the AArch64 base ISA: no flags, no separate library.
        [ "target_arch=='arm64'", {
          "sources": [ "src/kernels/simd/ops_neon.cc" ]
        } ]
      ]
    }
  ],
  "conditions": [
    [ "target_arch=='x64'", {
      "targets": [
        {
          "target_name": "attnscope_kernels_avx2",
          "type": "static_library",
          "sources": [ "src/kernels/simd/ops_avx2.cc" ],
          "cflags_cc": [ "-fPIC", "-mavx2", "-mfma", "-mf16c" ],
          "xcode_settings": { "OTHER_CPLUSPLUSFLAGS": [ "-mavx2", "-mfma", "-mf16c" ] }
        },
        {
          "target_name": "attnscope_kernels_avx512",
          "type": "static_library",
          "sources": [ "src/kernels/simd/ops_avx512.cc" ],
          # -Wno-*uninitialized: GCC 12 flags the _mm512_undefined_* inside its own reduce intrinsics.
          "cflags_cc": [ "-fPIC", "-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq", "-mfma", "-mf16c",
                         "-Wno-uninitialized", "-Wno-maybe-uninitialized" ],
          "xcode_settings": { "OTHER_CPLUSPLUSFLAGS": [ "-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq", "-mfma", "-mf16c" ] }
        },
        {
          "target_name": "attnscope_kernels_avx512bf16",
          "type": "static_library",
          "sources": [ "src/kernels/simd/ops_avx512bf16.cc" ],
          "cflags_cc": [ "-fPIC", "-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq", "-mavx512bf16", "-mfma", "-mf16c",
                         "-Wno-uninitialized", "-Wno-maybe-uninitialized" ],
          "xcode_settings": { "OTHER_CPLUSPLUSFLAGS": [ "-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq", "-mavx512bf16", "-mfma", "-mf16c" ] }
        },
        {
          # Only gemm_bf16 on tiles; the rest of its table is the AVX512-BF16 one (ops_amx.cc).
          "target_name": "attnscope_kernels_amx",
          "type": "static_library",
          "sources": [ "src/kernels/simd/ops_amx.cc" ],
          "defines": [ "ATTNSCOPE_X86_PATHS" ],
          "cflags_cc": [ "-fPIC", "-mamx-tile", "-mamx-bf16" ],
          "xcode_settings": { "OTHER_CPLUSPLUSFLAGS": [ "-mamx-tile", "-mamx-bf16" ] }
        }
      ]
    } ]
  ]
}
