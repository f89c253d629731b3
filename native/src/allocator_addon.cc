// N-API bridge for the page allocator (placeholder until the allocator lands).
#include <napi.h>

Napi::Object InitAllocator(Napi::Env env, Napi::Object exports) { return exports; }
