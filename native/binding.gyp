{
  # The CPU addon. Every .cc under src/ is compiled; the shipped build uses no -march=native:
  # SIMD paths are chosen at run time (see src/cpu_features.h once kernels land).
  "targets": [
    {
      "target_name": "attnscope_native",
      "sources": [ "<!@(node -p \"require('fs').readdirSync('src').filter(f => f.endsWith('.cc')).sort().map(f => 'src/' + f).join(' ')\")" ],
      "include_dirs": [ "<!(node -p \"require('node-addon-api').include_dir\")", "include" ],
      "defines": [ "NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS" ],
      "cflags!": [ "-fno-exceptions" ],
      "cflags_cc!": [ "-fno-exceptions" ],
      "cflags_cc": [ "-std=c++17", "-O3", "-fexceptions", "-pthread" ],
      "ldflags": [ "-pthread" ],
      "xcode_settings": { "GCC_ENABLE_CPP_EXCEPTIONS": "YES", "CLANG_CXX_LANGUAGE_STANDARD": "c++17" }
    }
  ]
}
