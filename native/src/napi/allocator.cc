// N-API bridge for the page allocator: class PageAllocator wrapping attnscope::PageAllocator.
// Arguments are validated in native/allocator.ts; here only what could crash the process is
// checked again (types of buffers, their sizes). Expected outcomes (out of pages, an id in use)
// come back as status codes, never as exceptions.
#include <napi.h>

#include <memory>

#include "pool/allocator.h"


namespace {

using attnscope::AllocStatus;

const int32_t* TokensArg(const Napi::Value& v, int64_t need, const char* name) {
  if (v.IsNull() || v.IsUndefined()) return nullptr;
  if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != napi_int32_array)
    throw Napi::TypeError::New(v.Env(), std::string(name) + " must be an Int32Array or null");
  Napi::Int32Array a = v.As<Napi::Int32Array>();
  if (static_cast<int64_t>(a.ElementLength()) < need)
    throw Napi::RangeError::New(v.Env(), std::string(name) + " holds fewer token ids than requested");
  return a.Data();
}

class PageAllocatorWrap : public Napi::ObjectWrap<PageAllocatorWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "PageAllocator",
                       {
                           InstanceMethod("allocate", &PageAllocatorWrap::Allocate),
                           InstanceMethod("append", &PageAllocatorWrap::Append),
                           InstanceMethod("fork", &PageAllocatorWrap::Fork),
                           InstanceMethod("free", &PageAllocatorWrap::Free),
                           InstanceMethod("blockTable", &PageAllocatorWrap::BlockTable),
                           InstanceMethod("numTokens", &PageAllocatorWrap::NumTokens),
                           InstanceMethod("stats", &PageAllocatorWrap::Stats),
                           InstanceMethod("pages", &PageAllocatorWrap::Pages),
                           InstanceMethod("sequenceIds", &PageAllocatorWrap::SequenceIds),
                           InstanceMethod("attachKvPool", &PageAllocatorWrap::AttachKvPool),
                       });
  }

  // new PageAllocator(numPages, pageSize, watermarkPages, slidingWindow, enablePrefixCaching)
  explicit PageAllocatorWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<PageAllocatorWrap>(info) {
    attnscope::PageAllocatorConfig c;
    c.num_pages = info[0].As<Napi::Number>().Int32Value();
    c.page_size = info[1].As<Napi::Number>().Int32Value();
    c.watermark_pages = info[2].As<Napi::Number>().Int32Value();
    c.sliding_window = info[3].As<Napi::Number>().Int32Value();
    c.enable_prefix_caching = info[4].ToBoolean().Value();
    if (attnscope::PageAllocator::Validate(c) != AllocStatus::kOk)
      throw Napi::RangeError::New(info.Env(), "PageAllocator: invalid configuration");
    alloc_ = std::make_unique<attnscope::PageAllocator>(c);
  }

 private:
  static int64_t Id(const Napi::Value& v) { return v.As<Napi::Number>().Int64Value(); }

  // allocate(seqId, numTokens, maxNewTokens, tokens | null) -> [status, cachedTokens, storedTokens]
  Napi::Value Allocate(const Napi::CallbackInfo& info) {
    const int64_t n = info[1].As<Napi::Number>().Int64Value();
    const int32_t* tokens = TokensArg(info[3], n, "tokens");
    attnscope::AllocateResult r;
    const AllocStatus s = alloc_->Allocate(Id(info[0]), tokens, n, info[2].As<Napi::Number>().Int64Value(), &r);
    Napi::Array out = Napi::Array::New(info.Env(), 3);
    out.Set(0u, static_cast<int32_t>(s));
    out.Set(1u, static_cast<double>(r.cached_tokens));
    out.Set(2u, static_cast<double>(r.stored_tokens));
    return out;
  }

  // append(seqId, n, tokens | null) -> status
  Napi::Value Append(const Napi::CallbackInfo& info) {
    const int64_t n = info[1].As<Napi::Number>().Int64Value();
    const int32_t* tokens = TokensArg(info[2], n, "tokens");
    return Napi::Number::New(info.Env(), static_cast<int32_t>(alloc_->Append(Id(info[0]), tokens, n)));
  }

  Napi::Value Fork(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<int32_t>(alloc_->Fork(Id(info[0]), Id(info[1]))));
  }

  Napi::Value Free(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<int32_t>(alloc_->Free(Id(info[0]))));
  }

  // blockTable(seqId) -> Int32Array (a copy; -1 for pages released by the window) | null
  Napi::Value BlockTable(const Napi::CallbackInfo& info) {
    const std::vector<int32_t>* t = alloc_->BlockTable(Id(info[0]));
    if (t == nullptr) return info.Env().Null();
    Napi::Int32Array out = Napi::Int32Array::New(info.Env(), t->size());
    std::copy(t->begin(), t->end(), out.Data());
    return out;
  }

  Napi::Value NumTokens(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(alloc_->NumTokens(Id(info[0]))));
  }

  Napi::Value Stats(const Napi::CallbackInfo& info) {
    const attnscope::PageAllocatorStats s = alloc_->Stats();
    Napi::Object o = Napi::Object::New(info.Env());
    o.Set("numPages", s.num_pages);
    o.Set("pageSize", s.page_size);
    o.Set("pagesUsed", s.pages_used);
    o.Set("pagesCached", s.pages_cached);
    o.Set("pagesFree", s.pages_free);
    o.Set("numSequences", s.num_sequences);
    o.Set("tokensStored", static_cast<double>(s.tokens_stored));
    o.Set("logicalTokens", static_cast<double>(s.logical_tokens));
    o.Set("internalFragmentation", s.internal_fragmentation);
    o.Set("occupancy", s.occupancy);
    o.Set("prefixQueryTokens", static_cast<double>(s.prefix_query_tokens));
    o.Set("prefixHitTokens", static_cast<double>(s.prefix_hit_tokens));
    o.Set("prefixHitRate", s.prefix_hit_rate);
    o.Set("cowCopies", static_cast<double>(s.cow_copies));
    o.Set("evictions", static_cast<double>(s.evictions));
    return o;
  }

  // pages() -> { refCounts, states, filled, freeStack, cachedQueue } for invariant checks.
  Napi::Value Pages(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const int32_t n = alloc_->config().num_pages;
    Napi::Int32Array refs = Napi::Int32Array::New(env, n);
    Napi::Uint8Array states = Napi::Uint8Array::New(env, n);
    Napi::Int32Array filled = Napi::Int32Array::New(env, n);
    for (int32_t p = 0; p < n; ++p) {
      refs[p] = alloc_->RefCount(p);
      states[p] = static_cast<uint8_t>(alloc_->State(p));
      filled[p] = alloc_->Filled(p);
    }
    const auto copy = [&](const std::vector<int32_t>& v) {
      Napi::Int32Array a = Napi::Int32Array::New(env, v.size());
      std::copy(v.begin(), v.end(), a.Data());
      return a;
    };
    Napi::Object o = Napi::Object::New(env);
    o.Set("refCounts", refs);
    o.Set("states", states);
    o.Set("filled", filled);
    o.Set("freeStack", copy(alloc_->FreePages()));
    o.Set("cachedQueue", copy(alloc_->CachedPages()));
    return o;
  }

  Napi::Value SequenceIds(const Napi::CallbackInfo& info) {
    const std::vector<int64_t> ids = alloc_->SequenceIds();
    Napi::Array out = Napi::Array::New(info.Env(), ids.size());
    for (size_t i = 0; i < ids.size(); ++i) out.Set(static_cast<uint32_t>(i), static_cast<double>(ids[i]));
    return out;
  }

  static uint8_t* BufferOf(const Napi::Value& v, size_t need, const char* name) {
    if (!v.IsTypedArray()) throw Napi::TypeError::New(v.Env(), std::string(name) + " must be a typed array");
    Napi::TypedArray a = v.As<Napi::TypedArray>();
    if (a.ByteLength() < need)
      throw Napi::RangeError::New(v.Env(), std::string(name) + " is smaller than num_pages · page_size · slotBytes");
    return static_cast<uint8_t*>(a.ArrayBuffer().Data()) + a.ByteOffset();
  }

  // attachKvPool(k, v, slotBytes): both typed arrays of num_pages · page_size · slotBytes bytes.
  Napi::Value AttachKvPool(const Napi::CallbackInfo& info) {
    const size_t slot_bytes = static_cast<size_t>(info[2].As<Napi::Number>().Int64Value());
    const size_t need = static_cast<size_t>(alloc_->config().num_pages) * alloc_->config().page_size * slot_bytes;
    attnscope::KvPoolView view;
    view.k = BufferOf(info[0], need, "k");
    view.v = BufferOf(info[1], need, "v");
    view.slot_bytes = slot_bytes;
    k_ref_ = Napi::Persistent(info[0].As<Napi::Object>());
    v_ref_ = Napi::Persistent(info[1].As<Napi::Object>());
    alloc_->AttachKvPool(view);
    return info.Env().Undefined();
  }

  std::unique_ptr<attnscope::PageAllocator> alloc_;
  Napi::ObjectReference k_ref_, v_ref_;  // keep the attached pools alive
};

}  // namespace

Napi::Object InitAllocator(Napi::Env env, Napi::Object exports) {
  exports.Set("PageAllocator", PageAllocatorWrap::Define(env));
  Napi::Array names = Napi::Array::New(env);
  for (int32_t s = 0; s <= static_cast<int32_t>(AllocStatus::kInvalidArgument); ++s)
    names.Set(static_cast<uint32_t>(s), attnscope::AllocStatusName(static_cast<AllocStatus>(s)));
  exports.Set("allocStatusNames", names);
  return exports;
}
