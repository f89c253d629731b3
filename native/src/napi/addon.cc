// Module entry of the CPU addon: the one list of every part's Init, each in its own bridge of
// napi/ (as sharp's sharp.cc lists its parts). The pure C++ of the parts (kernels/, pool/,
// peaks/, cuda_host/) never sees N-API types.
#include <napi.h>

Napi::Object InitKernels(Napi::Env env, Napi::Object exports);        // napi/kernels.cc
Napi::Object InitAllocator(Napi::Env env, Napi::Object exports);      // napi/allocator.cc
Napi::Object InitSimulator(Napi::Env env, Napi::Object exports);      // napi/simulator.cc
Napi::Object InitPeaks(Napi::Env env, Napi::Object exports);          // napi/peaks.cc
Napi::Object InitCuda(Napi::Env env, Napi::Object exports);           // napi/cuda.cc
Napi::Object InitCudaHostChecks(Napi::Env env, Napi::Object exports); // napi/cuda_math_checks.cc
Napi::Object InitIo(Napi::Env env, Napi::Object exports);             // napi/io.cc

namespace {
Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("abiVersion", Napi::Number::New(env, 1));
  InitKernels(env, exports);
  InitAllocator(env, exports);
  InitSimulator(env, exports);
  InitPeaks(env, exports);
  InitCuda(env, exports);
  InitCudaHostChecks(env, exports);
  InitIo(env, exports);
  return exports;
}
}  // namespace

NODE_API_MODULE(attnscope_native, Init)
