// N-API bridge for the serving simulator: class ServingSimulator. The whole step loop runs in
// C++ (no N-API crossing per token); JS hands over the requests once, loads them in slices of
// requests and runs it in slices of steps (so it can report progress and honour cancellation;
// the baselines run so on a worker thread, native/simulator.ts), and reads samples and totals back.
// Arguments are validated in native/allocator.ts; here only what could crash is checked.
#include <napi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>

#include "pool/simulator.h"

namespace {

using attnscope::ServingSimulator;
using attnscope::SimConfig;
using attnscope::SimRequest;
using attnscope::SimSegment;

double Num(const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  if (!v.IsNumber()) throw Napi::TypeError::New(o.Env(), std::string("config.") + key + " must be a number");
  return v.As<Napi::Number>().DoubleValue();
}

template <typename T>
T ArrayArg(const Napi::CallbackInfo& info, size_t i, napi_typedarray_type type, size_t n, const char* name, const char* other = "arrivalS") {
  const Napi::Value v = info[i];
  if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != type)
    throw Napi::TypeError::New(info.Env(), std::string(name) + " has the wrong typed-array type");
  T a = v.As<T>();
  if (a.ElementLength() != n) throw Napi::RangeError::New(info.Env(), std::string(name) + " length differs from " + other);
  return a;
}

class ServingSimulatorWrap : public Napi::ObjectWrap<ServingSimulatorWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "ServingSimulator",
                       {
                           InstanceMethod("load", &ServingSimulatorWrap::Load),
                           InstanceMethod("run", &ServingSimulatorWrap::Run),
                           InstanceMethod("samples", &ServingSimulatorWrap::Samples),
                           InstanceMethod("totals", &ServingSimulatorWrap::Totals),
                           InstanceMethod("times", &ServingSimulatorWrap::Times),
                           InstanceMethod("free", &ServingSimulatorWrap::Free),
                           InstanceMethod("add", &ServingSimulatorWrap::Add),
                           InstanceMethod("runUntil", &ServingSimulatorWrap::RunUntil),
                           InstanceMethod("inFlight", &ServingSimulatorWrap::InFlight),
                       });
  }

  // new ServingSimulator(config, arrivalS: Float64Array [n], promptLen: Int32Array [n],
  //                      outputLen: Int32Array [n], segmentStart: Int32Array [n + 1],
  //                      segmentStream: Float64Array [m], segmentEnd: Int32Array [m])
  // Request i's segments are [segmentStart[i], segmentStart[i + 1]). Checks the config and the
  // arrays' types and lengths, and keeps the arrays: load() copies (and checks) the requests.
  explicit ServingSimulatorWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ServingSimulatorWrap>(info) {
    Napi::Env env = info.Env();
    if (!info[0].IsObject()) throw Napi::TypeError::New(env, "config must be an object");
    const Napi::Object c = info[0].As<Napi::Object>();
    SimConfig& config = config_;
    config.layout = static_cast<attnscope::KvLayout>(static_cast<int32_t>(Num(c, "layout")));
    config.allocator.num_pages = static_cast<int32_t>(Num(c, "numPages"));
    config.allocator.page_size = static_cast<int32_t>(Num(c, "pageSize"));
    config.allocator.watermark_pages = static_cast<int32_t>(Num(c, "watermarkPages"));
    config.allocator.sliding_window = static_cast<int32_t>(Num(c, "slidingWindow"));
    if (c.Has("fullGroups")) config.allocator.full_groups = static_cast<int32_t>(Num(c, "fullGroups"));
    if (c.Has("slidingGroups")) config.allocator.sliding_groups = static_cast<int32_t>(Num(c, "slidingGroups"));
    if (c.Has("stateBlocks")) config.allocator.state_blocks = static_cast<int32_t>(Num(c, "stateBlocks"));
    if (c.Has("attentionChunkSize")) config.allocator.attention_chunk_size = static_cast<int32_t>(Num(c, "attentionChunkSize"));
    config.allocator.enable_prefix_caching = c.Get("enablePrefixCaching").ToBoolean().Value();
    config.max_num_seqs = static_cast<int32_t>(Num(c, "maxNumSeqs"));
    config.max_num_batched_tokens = static_cast<int32_t>(Num(c, "maxNumBatchedTokens"));
    config.max_model_len = static_cast<int32_t>(Num(c, "maxModelLen"));
    config.step.per_step_s = Num(c, "perStepS");
    config.step.weights_s = Num(c, "weightsS");
    if (c.Has("expertWeightsS")) config.step.expert_weights_s = Num(c, "expertWeightsS");
    if (c.Has("numExperts")) config.step.num_experts = static_cast<int32_t>(Num(c, "numExperts"));
    if (c.Has("numExpertsPerTok")) config.step.num_experts_per_tok = static_cast<int32_t>(Num(c, "numExpertsPerTok"));
    config.step.per_kv_token_s = Num(c, "perKvTokenS");
    config.step.per_token_s = Num(c, "perTokenS");
    config.step.per_decode_token_s = c.Has("perDecodeTokenS") ? Num(c, "perDecodeTokenS") : config.step.per_token_s;
    if (c.Has("perPrefillContextTokenS")) config.step.per_prefill_context_token_s = Num(c, "perPrefillContextTokenS");
    if (c.Has("perPrefillContextKvS")) config.step.per_prefill_context_kv_s = Num(c, "perPrefillContextKvS");
    if (c.Has("perLogitsS")) config.step.per_logits_s = Num(c, "perLogitsS");
    config.step.per_pair_s = Num(c, "perPairS");
    config.step.per_decode_pair_s = c.Has("perDecodePairS") ? Num(c, "perDecodePairS") : config.step.per_pair_s;
    if (c.Has("stepSlidingWindow")) config.step.sliding_window = static_cast<int32_t>(Num(c, "stepSlidingWindow"));
    if (c.Has("stepAttentionChunkSize")) config.step.attention_chunk_size = static_cast<int32_t>(Num(c, "stepAttentionChunkSize"));
    if (c.Has("perSlidingKvTokenS")) config.step.per_sliding_kv_token_s = Num(c, "perSlidingKvTokenS");
    if (c.Has("perSlidingPairS")) config.step.per_sliding_pair_s = Num(c, "perSlidingPairS");
    if (c.Has("perRequestStateS")) config.step.per_request_state_s = Num(c, "perRequestStateS");
    if (c.Has("decodeWeightsS")) config.step.decode_weights_s = Num(c, "decodeWeightsS");
    if (c.Has("prefillWeightsS")) config.step.prefill_weights_s = Num(c, "prefillWeightsS");
    if (c.Has("allReduceS")) config.step.all_reduce_s = Num(c, "allReduceS");
    if (c.Has("perTokenAllReduceS")) config.step.per_token_all_reduce_s = Num(c, "perTokenAllReduceS");
    if (c.Has("perTokenOneShotAllReduceS")) config.step.per_token_one_shot_all_reduce_s = Num(c, "perTokenOneShotAllReduceS");
    if (c.Has("oneShotAllReduceTokens")) config.step.one_shot_all_reduce_tokens = static_cast<int32_t>(Num(c, "oneShotAllReduceTokens"));
    if (c.Has("perTokenMultimemAllReduceS")) config.step.per_token_multimem_all_reduce_s = Num(c, "perTokenMultimemAllReduceS");
    if (c.Has("multimemAllReduceMinTokens")) config.step.multimem_all_reduce_min_tokens = static_cast<int32_t>(Num(c, "multimemAllReduceMinTokens"));
    if (c.Has("multimemAllReduceMaxTokens")) config.step.multimem_all_reduce_max_tokens = static_cast<int32_t>(Num(c, "multimemAllReduceMaxTokens"));
    if (c.Has("perTokenRingAllReduceS")) config.step.per_token_ring_all_reduce_s = Num(c, "perTokenRingAllReduceS");
    if (c.Has("ringAllReduceMinTokens")) config.step.ring_all_reduce_min_tokens = static_cast<int32_t>(Num(c, "ringAllReduceMinTokens"));
    // Absent (a run saved before it): the other bands' latency, allReduceS.
    config.step.ring_all_reduce_s = c.Has("ringAllReduceS") ? Num(c, "ringAllReduceS") : config.step.all_reduce_s;
    // Pipeline parallelism: one object of the coefficients per stage (native/simulator.ts ServingSimStage).
    if (c.Has("stages")) {
      if (!c.Get("stages").IsArray()) throw Napi::TypeError::New(env, "config.stages must be an array");
      const Napi::Array stages = c.Get("stages").As<Napi::Array>();
      for (uint32_t k = 0; k < stages.Length(); ++k) {
        if (!stages.Get(k).IsObject()) throw Napi::TypeError::New(env, "config.stages[" + std::to_string(k) + "] must be an object");
        const Napi::Object o = stages.Get(k).As<Napi::Object>();
        attnscope::StepTimeModel m;
        m.per_step_s = Num(o, "perStepS");
        m.weights_s = Num(o, "weightsS");
        m.expert_weights_s = Num(o, "expertWeightsS");
        m.per_kv_token_s = Num(o, "perKvTokenS");
        m.per_token_s = Num(o, "perTokenS");
        m.per_logits_s = Num(o, "perLogitsS");
        m.per_pair_s = Num(o, "perPairS");
        m.per_decode_pair_s = Num(o, "perDecodePairS");
        m.per_sliding_kv_token_s = Num(o, "perSlidingKvTokenS");
        m.per_sliding_pair_s = Num(o, "perSlidingPairS");
        m.per_decode_token_s = o.Has("perDecodeTokenS") ? Num(o, "perDecodeTokenS") : m.per_token_s;
        if (o.Has("perPrefillContextTokenS")) m.per_prefill_context_token_s = Num(o, "perPrefillContextTokenS");
        if (o.Has("perPrefillContextKvS")) m.per_prefill_context_kv_s = Num(o, "perPrefillContextKvS");
        if (o.Has("perRequestStateS")) m.per_request_state_s = Num(o, "perRequestStateS");
        if (o.Has("decodeWeightsS")) m.decode_weights_s = Num(o, "decodeWeightsS");
        if (o.Has("prefillWeightsS")) m.prefill_weights_s = Num(o, "prefillWeightsS");
        if (o.Has("allReduceS")) m.all_reduce_s = Num(o, "allReduceS");
        if (o.Has("perTokenAllReduceS")) m.per_token_all_reduce_s = Num(o, "perTokenAllReduceS");
        if (o.Has("perTokenOneShotAllReduceS")) m.per_token_one_shot_all_reduce_s = Num(o, "perTokenOneShotAllReduceS");
        if (o.Has("perTokenMultimemAllReduceS")) m.per_token_multimem_all_reduce_s = Num(o, "perTokenMultimemAllReduceS");
        if (o.Has("perTokenRingAllReduceS")) m.per_token_ring_all_reduce_s = Num(o, "perTokenRingAllReduceS");
        m.ring_all_reduce_s = o.Has("ringAllReduceS") ? Num(o, "ringAllReduceS") : m.all_reduce_s;
        config.stages.push_back(m);
      }
    }
    if (c.Has("stageSendPerTokenS")) config.stage_send_per_token_s = Num(c, "stageSendPerTokenS");
    config.max_samples = static_cast<int32_t>(Num(c, "maxSamples"));
    if (c.Has("coast")) config.coast = c.Get("coast").ToBoolean().Value();
    if (c.Has("privateTails")) config.private_tails = c.Get("privateTails").ToBoolean().Value();
    if (!attnscope::SimConfigValid(config)) throw Napi::RangeError::New(env, "ServingSimulator: invalid configuration");

    if (!info[1].IsTypedArray()) throw Napi::TypeError::New(env, "arrivalS must be a Float64Array");
    n_ = info[1].As<Napi::TypedArray>().ElementLength();
    ArrayArg<Napi::Float64Array>(info, 1, napi_float64_array, n_, "arrivalS");
    ArrayArg<Napi::Int32Array>(info, 2, napi_int32_array, n_, "promptLen");
    ArrayArg<Napi::Int32Array>(info, 3, napi_int32_array, n_, "outputLen");
    ArrayArg<Napi::Int32Array>(info, 4, napi_int32_array, n_ + 1, "segmentStart", "arrivalS + 1");
    if (!info[5].IsTypedArray()) throw Napi::TypeError::New(env, "segmentStream must be a Float64Array");
    m_ = info[5].As<Napi::TypedArray>().ElementLength();
    ArrayArg<Napi::Float64Array>(info, 5, napi_float64_array, m_, "segmentStream", "segmentStream");
    ArrayArg<Napi::Int32Array>(info, 6, napi_int32_array, m_, "segmentEnd", "segmentStream");
    for (size_t k = 0; k < columns_.size(); ++k) columns_[k] = Napi::Persistent(info[k + 1].As<Napi::Object>());
    // Capacity only: the pages are touched slice by slice as load() fills them.
    // Dispatched (info[7] true): the columns are the trace the engine's requests come from, one
    // at a time (add); the simulator starts with none.
    if (info.Length() > 7 && info[7].ToBoolean().Value()) {
      dispatched_ = true;
      sim_ = std::make_unique<ServingSimulator>(config_, std::vector<SimRequest>{}, std::vector<SimSegment>{});
      return;
    }
    requests_.reserve(n_);
    segments_.reserve(m_);
  }

 private:
  // load(maxRequests) -> requests loaded so far (n once the simulator is built): copies and
  // checks up to maxRequests more, in slices a caller can interleave with its event loop
  // (10,000,000 requests take seconds). Throws RangeError naming what is wrong with them.
  Napi::Value Load(const Napi::CallbackInfo& info) {
    const int64_t count = info[0].As<Napi::Number>().Int64Value();
    LoadUpTo(count > 0 ? static_cast<size_t>(count) : 0, info.Env());
    return Napi::Number::New(info.Env(), static_cast<double>(sim_ ? n_ : requests_.size()));
  }

  // free(): releases the simulator (its pool's pages, requests, times and samples) now, not when
  // the garbage collector finalizes this object, which it does late: V8 does not see this memory
  // (a data-parallel run builds dp simulators a pass, tens of MB each for a large pool). Later
  // calls throw Error.
  Napi::Value Free(const Napi::CallbackInfo& info) {
    sim_.reset();
    std::vector<SimRequest>().swap(requests_);
    std::vector<SimSegment>().swap(segments_);
    for (auto& c : columns_) c.Reset();
    freed_ = true;
    return info.Env().Undefined();
  }

  // The simulator, its requests loaded first when load() has not finished.
  ServingSimulator& Sim(Napi::Env env) {
    if (freed_) throw Napi::Error::New(env, "ServingSimulator: used after free()");
    if (!sim_) LoadUpTo(n_, env);
    return *sim_;
  }

  void LoadUpTo(size_t count, Napi::Env env) {
    if (freed_) throw Napi::Error::New(env, "ServingSimulator: used after free()");
    if (sim_) return;
    const size_t from = requests_.size();
    const size_t to = from + std::min(count, n_ - from);
    // Pointers taken afresh each call: the arrays are kept alive by columns_, their memory is V8's.
    const std::string error = attnscope::BuildSimInput(Columns(), from, to, &requests_, &segments_);
    if (!error.empty()) throw Napi::RangeError::New(env, error);
    if (requests_.size() < n_) return;
    sim_ = std::make_unique<ServingSimulator>(config_, std::move(requests_), std::move(segments_));
    for (auto& c : columns_) c.Reset();
  }

  // run(maxSteps) -> true when finished
  attnscope::SimColumns Columns() const {
    return attnscope::SimColumns{n_,
                                 columns_[0].Value().As<Napi::Float64Array>().Data(),
                                 columns_[1].Value().As<Napi::Int32Array>().Data(),
                                 columns_[2].Value().As<Napi::Int32Array>().Data(),
                                 columns_[3].Value().As<Napi::Int32Array>().Data(),
                                 m_,
                                 columns_[4].Value().As<Napi::Float64Array>().Data(),
                                 columns_[5].Value().As<Napi::Int32Array>().Data()};
  }

  // A dispatched simulator's live engine. @throws Error otherwise.
  ServingSimulator& Engine(Napi::Env env) {
    if (!dispatched_) throw Napi::Error::New(env, "ServingSimulator: add, runUntil and inFlight need a dispatched simulator");
    return Sim(env);
  }

  Napi::Value Add(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    ServingSimulator& sim = Engine(env);
    if (!info[0].IsNumber()) throw Napi::TypeError::New(env, "index must be a number");
    const double index = info[0].As<Napi::Number>().DoubleValue();
    if (!(index >= 0 && index < static_cast<double>(n_)) || index != static_cast<double>(static_cast<int64_t>(index)))
      throw Napi::RangeError::New(env, "index must be an integer in [0, " + std::to_string(n_) + ")");
    const std::string error = sim.AddRequest(Columns(), static_cast<size_t>(index));
    if (!error.empty()) throw Napi::RangeError::New(env, error);
    return env.Undefined();
  }

  static double Time(const Napi::CallbackInfo& info) {
    if (!info[0].IsNumber()) throw Napi::TypeError::New(info.Env(), "t must be a number");
    const double t = info[0].As<Napi::Number>().DoubleValue();
    if (std::isnan(t)) throw Napi::RangeError::New(info.Env(), "t must not be NaN");
    return t;
  }

  // runUntil(t) -> ServingSimulator::NextChange(t) after the run.
  Napi::Value RunUntil(const Napi::CallbackInfo& info) {
    ServingSimulator& sim = Engine(info.Env());
    const double t = Time(info);
    sim.RunUntil(t);
    return Napi::Number::New(info.Env(), sim.NextChange(t));
  }

  Napi::Value InFlight(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(Engine(info.Env()).InFlight(Time(info))));
  }

  Napi::Value Run(const Napi::CallbackInfo& info) {
    const int64_t steps = info[0].As<Napi::Number>().Int64Value();
    return Napi::Boolean::New(info.Env(), Sim(info.Env()).Run(steps));
  }

  // samples() -> Float64Array [n · 11]: t, pagesUsed, pagesCached, pagesFree, tokens,
  // reservedSlots, running, waiting, preempted, prefixHitRate, preemptions
  Napi::Value Samples(const Napi::CallbackInfo& info) {
    const auto& s = Sim(info.Env()).samples();
    Napi::Float64Array out = Napi::Float64Array::New(info.Env(), s.size() * attnscope::kSimSampleFields);
    attnscope::PackSimSamples(s, out.Data());
    return out;
  }

  Napi::Value Totals(const Napi::CallbackInfo& info) {
    const attnscope::SimTotals t = Sim(info.Env()).totals();
    Napi::Object o = Napi::Object::New(info.Env());
    o.Set("requests", static_cast<double>(t.requests));
    o.Set("completed", static_cast<double>(t.completed));
    o.Set("rejected", static_cast<double>(t.rejected));
    o.Set("delayed", static_cast<double>(t.delayed));
    o.Set("preemptions", static_cast<double>(t.preemptions));
    o.Set("preemptedTokens", static_cast<double>(t.preempted_tokens));
    o.Set("steps", static_cast<double>(t.steps));
    o.Set("generatedTokens", static_cast<double>(t.generated_tokens));
    o.Set("prefilledTokens", static_cast<double>(t.prefilled_tokens));
    o.Set("rejectedTokens", static_cast<double>(t.rejected_tokens));
    o.Set("simulatedSeconds", t.simulated_seconds);
    o.Set("clockSeconds", t.clock_seconds);
    o.Set("usedPageSeconds", t.used_page_seconds);
    o.Set("reservedSlotSeconds", t.reserved_slot_seconds);
    o.Set("tokenSlotSeconds", t.token_slot_seconds);
    o.Set("externalFreeSlotSeconds", t.external_free_slot_seconds);
    o.Set("runningSeconds", t.running_seconds);
    o.Set("waitingSeconds", t.waiting_seconds);
    o.Set("peakWaiting", t.peak_waiting);
    o.Set("peakPagesUsed", t.peak_pages_used);
    o.Set("peakReservedSlots", static_cast<double>(t.peak_reserved_slots));
    o.Set("peakRunning", t.peak_running);
    o.Set("prefixQueryTokens", static_cast<double>(t.prefix_query_tokens));
    o.Set("prefixHitTokens", static_cast<double>(t.prefix_hit_tokens));
    o.Set("prefixSharedHitTokens", static_cast<double>(t.prefix_shared_hit_tokens));
    o.Set("prefixOwnHitTokens", static_cast<double>(t.prefix_own_hit_tokens));
    o.Set("firstAdmissionTokens", static_cast<double>(t.first_admission_tokens));
    o.Set("done", Sim(info.Env()).done());
    return o;
  }

  // times() -> { queuedS, scheduledS, firstTokenS, finishS: Float64Array [n], outputLen: Int32Array [n] },
  // per request in the order given; −1 for a milestone not reached.
  Napi::Value Times(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const auto& t = Sim(env).times();
    const size_t n = Sim(env).num_requests();  // the requests given (a dispatched engine's: those added)
    Napi::Float64Array queued = Napi::Float64Array::New(env, n);
    Napi::Float64Array scheduled = Napi::Float64Array::New(env, n);
    Napi::Float64Array first = Napi::Float64Array::New(env, n);
    Napi::Float64Array finish = Napi::Float64Array::New(env, n);
    Napi::Int32Array output = Napi::Int32Array::New(env, n);
    for (size_t i = 0; i < n; ++i) {
      const attnscope::RequestTimes r = i < t.size() ? t[i] : attnscope::RequestTimes{};  // not arrived: −1, 0
      queued[i] = r.queued_s;
      scheduled[i] = r.scheduled_s;
      first[i] = r.first_token_s;
      finish[i] = r.finish_s;
      output[i] = r.output_len;
    }
    Napi::Object o = Napi::Object::New(env);
    o.Set("queuedS", queued);
    o.Set("scheduledS", scheduled);
    o.Set("firstTokenS", first);
    o.Set("finishS", finish);
    o.Set("outputLen", output);
    return o;
  }

  SimConfig config_;
  size_t n_ = 0, m_ = 0;
  // arrivalS, promptLen, outputLen, segmentStart, segmentStream, segmentEnd until loaded.
  std::array<Napi::ObjectReference, 6> columns_;
  std::vector<SimRequest> requests_;
  std::vector<SimSegment> segments_;
  std::unique_ptr<ServingSimulator> sim_;  // once every request is loaded
  bool freed_ = false;                     // free() was called
  bool dispatched_ = false;                // requests added one by one from the columns (add)
};

}  // namespace

Napi::Object InitSimulator(Napi::Env env, Napi::Object exports) {
  exports.Set("ServingSimulator", ServingSimulatorWrap::Define(env));
  return exports;
}
