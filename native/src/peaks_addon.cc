// N-API bridge for the peaks part (placeholder until it lands).
#include <napi.h>

Napi::Object InitPeaks(Napi::Env env, Napi::Object exports) { return exports; }
