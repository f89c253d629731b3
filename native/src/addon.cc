// Module entry of the CPU addon: each part registers its own functions.
// The pure C++ (kernels, allocator) never sees N-API types; the *_addon.cc files bridge.
#include <napi.h>

Napi::Object InitKernels(Napi::Env env, Napi::Object exports);
Napi::Object InitAllocator(Napi::Env env, Napi::Object exports);
Napi::Object InitPeaks(Napi::Env env, Napi::Object exports);
Napi::Object InitCuda(Napi::Env env, Napi::Object exports);

namespace {
Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("abiVersion", Napi::Number::New(env, 1));
  InitKernels(env, exports);
  InitAllocator(env, exports);
  InitPeaks(env, exports);
  InitCuda(env, exports);
  return exports;
}
}  // namespace

NODE_API_MODULE(attnscope_native, Init)
