// N-API bridge for the serving simulator (filled in with the simulator).
#include <napi.h>

Napi::Object InitSimulator(Napi::Env env, Napi::Object exports) { return exports; }
