// The one shape of every kernel call the N-API bridges queue, CPU (napi/kernels.cc) and CUDA
// (napi/cuda.cc) alike: the job runs on libuv's thread pool off the JS thread, the spec object
// (and so its typed arrays) stays pinned until the promise settles, and the job's outcome maps
// to the promise in one way: kOk resolves (with the samples in ns when timed, else undefined),
// kInvalidArgument rejects with a RangeError, kFailed with an Error, each with the message.
#pragma once

#include <napi.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace attnscope {
namespace napi_bridge {

/** How a job ended; the only outcomes a bridge reports. */
enum class Outcome { kOk, kInvalidArgument, kFailed };

struct JobResult {
  Outcome outcome = Outcome::kOk;
  std::string message;  // empty on kOk
};

/** Runs off the JS thread; a timed job appends its samples (nanoseconds) to `samples_ns`. */
using Job = std::function<JobResult(std::vector<double>* samples_ns)>;

class KernelWorker : public Napi::AsyncWorker {
 public:
  KernelWorker(Napi::Env env, const Napi::Object& pinned, Job job, bool timed)
      : Napi::AsyncWorker(env, "attnscope:kernel"),
        deferred_(Napi::Promise::Deferred::New(env)),
        job_(std::move(job)),
        timed_(timed) {
    pinned_ = Napi::Persistent(pinned);
  }

  Napi::Promise Promise() const { return deferred_.Promise(); }

  void Execute() override { result_ = job_(&samples_ns_); }

  void OnOK() override {
    Napi::Env env = Env();
    switch (result_.outcome) {
      case Outcome::kInvalidArgument:
        deferred_.Reject(Napi::RangeError::New(env, result_.message).Value());
        return;
      case Outcome::kFailed:
        deferred_.Reject(Napi::Error::New(env, result_.message).Value());
        return;
      case Outcome::kOk:
        break;
    }
    if (!timed_) {
      deferred_.Resolve(env.Undefined());
      return;
    }
    Napi::Array out = Napi::Array::New(env, samples_ns_.size());
    for (size_t i = 0; i < samples_ns_.size(); ++i) out.Set(uint32_t(i), Napi::Number::New(env, samples_ns_[i]));
    deferred_.Resolve(out);
  }

  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  Napi::ObjectReference pinned_;
  Job job_;
  bool timed_;
  JobResult result_;
  std::vector<double> samples_ns_;
};

/** Queues `job` with `pinned` held alive; returns the promise of its outcome. */
inline Napi::Value queue(Napi::Env env, const Napi::Object& pinned, Job job, bool timed) {
  auto* worker = new KernelWorker(env, pinned, std::move(job), timed);
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

}  // namespace napi_bridge
}  // namespace attnscope
