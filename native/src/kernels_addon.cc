// N-API bridge for the attention kernels (placeholder until the kernels land).
#include <napi.h>

Napi::Object InitKernels(Napi::Env env, Napi::Object exports) { return exports; }
