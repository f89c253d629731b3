// N-API bridge for the cuda part.
#include <napi.h>

Napi::Object InitCudaHostChecks(Napi::Env env, Napi::Object exports);

Napi::Object InitCuda(Napi::Env env, Napi::Object exports) {
  InitCudaHostChecks(env, exports);
  return exports;
}
