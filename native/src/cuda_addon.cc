// N-API bridge for the cuda part (placeholder until it lands).
#include <napi.h>

Napi::Object InitCuda(Napi::Env env, Napi::Object exports) { return exports; }
