// Serving simulator; the model and its step are described in simulator.h.
#include "simulator.h"

#include <algorithm>
#include <cstddef>

namespace attnscope {

namespace {

// Synthetic token ids: token pos of stream code c is (c · K + pos) mod 2^31 with K odd, so two
// different codes (< 2^31) never give the same id at the same position. A prefix lookup
// compares pages position by position from position 0, so only requests of the same stream
// can ever share a page. Codes: 2 · prefix_stream for a shared prefix, 2 · id + 1 for a
// request's own tokens.
constexpr uint32_t kStreamMultiplier = 0x9e3779b1u;

inline void FillStream(int32_t* out, uint64_t code, int64_t from, int64_t to) {
  const uint32_t base = static_cast<uint32_t>(code) * kStreamMultiplier + static_cast<uint32_t>(from);
  const uint32_t count = static_cast<uint32_t>(to - from);
  for (uint32_t i = 0; i < count; ++i) out[i] = static_cast<int32_t>((base + i) & 0x7fffffffu);
}

}  // namespace

// ---- first-fit arena ----

FirstFitArena::FirstFitArena(int64_t slots) : free_(slots) {
  if (slots > 0) holes_.emplace(0, slots);
}

int64_t FirstFitArena::Reserve(int64_t n) {
  for (auto it = holes_.begin(); it != holes_.end(); ++it) {
    if (it->second < n) continue;
    const int64_t offset = it->first;
    const int64_t rest = it->second - n;
    holes_.erase(it);
    if (rest > 0) holes_.emplace(offset + n, rest);
    free_ -= n;
    return offset;
  }
  return -1;
}

void FirstFitArena::Release(int64_t offset, int64_t n) {
  free_ += n;
  auto next = holes_.lower_bound(offset);
  if (next != holes_.end() && offset + n == next->first) {
    n += next->second;
    next = holes_.erase(next);
  }
  if (next != holes_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      prev->second += n;
      return;
    }
  }
  holes_.emplace(offset, n);
}

// ---- simulator ----

ServingSimulator::ServingSimulator(const SimConfig& config, std::vector<SimRequest> requests)
    : config_(config), requests_(std::move(requests)), state_(requests_.size()), page_(config.allocator.page_size) {
  if (config_.layout == KvLayout::kPaged) {
    allocator_ = std::make_unique<PageAllocator>(config_.allocator);
    lazy_decode_ = config_.allocator.sliding_window == 0;
  } else {
    arena_ = std::make_unique<FirstFitArena>(static_cast<int64_t>(config_.allocator.num_pages) *
                                             config_.allocator.page_size);
  }
  totals_.requests = static_cast<int64_t>(requests_.size());
  if (config_.max_samples < 2) config_.max_samples = 2;
}

bool ServingSimulator::CanEverFit(const SimRequest& r, int32_t output_len) const {
  const int64_t ps = config_.allocator.page_size;
  if (config_.layout == KvLayout::kPaged) {
    const int64_t max_kv = static_cast<int64_t>(r.prompt_len) + output_len - 1;
    return (max_kv + ps - 1) / ps <= config_.allocator.num_pages - config_.allocator.watermark_pages;
  }
  const int64_t need = config_.layout == KvLayout::kContiguousMaxModelLen
                           ? config_.max_model_len
                           : static_cast<int64_t>(r.prompt_len) + output_len;
  return need <= static_cast<int64_t>(config_.allocator.num_pages) * ps;
}

void ServingSimulator::FillTokens(int32_t id, int64_t from, int64_t to) {
  const SimRequest& r = requests_[id];
  if (token_buf_.size() < static_cast<size_t>(to - from)) token_buf_.resize(static_cast<size_t>(to - from));
  int32_t* out = token_buf_.data();
  const int64_t shared_end = r.prefix_stream >= 0 ? std::min<int64_t>(std::max<int64_t>(r.prefix_len, from), to) : from;
  FillStream(out, 2 * static_cast<uint64_t>(r.prefix_stream), from, shared_end);
  FillStream(out + (shared_end - from), 2 * static_cast<uint64_t>(id) + 1, shared_end, to);
}

bool ServingSimulator::Admit(int32_t id, int64_t max_new, int64_t* cached) {
  ReqState& s = state_[id];
  *cached = 0;
  if (allocator_) {
    const bool ids = config_.allocator.enable_prefix_caching;
    if (ids) FillTokens(id, 0, s.known);
    AllocateResult r;
    if (allocator_->Allocate(id, ids ? token_buf_.data() : nullptr, s.known, max_new, &r) != AllocStatus::kOk)
      return false;
    s.slot = allocator_->Lookup(id);
    s.computed = static_cast<int32_t>(r.stored_tokens);
    *cached = r.cached_tokens;
    return true;
  }
  const int64_t offset = arena_->Reserve(s.reservation);
  if (offset < 0) return false;
  s.offset = offset;
  s.computed = static_cast<int32_t>(std::min<int64_t>(s.known, max_new));
  arena_reserved_ += s.reservation;
  arena_tokens_ += s.computed;
  return true;
}

bool ServingSimulator::Grow(int32_t id, int64_t n) {
  ReqState& s = state_[id];
  if (allocator_) {
    if (lazy_decode_ && n == 1 && page_.Mod(s.computed) != 0) {
      ++s.pending;  // room in the last page (never shared: the simulator does not fork)
      ++pending_tokens_;
      ++s.computed;
      return true;
    }
    const bool ids = config_.allocator.enable_prefix_caching;
    const int64_t from = s.computed - s.pending;
    if (ids) FillTokens(id, from, s.computed + n);
    if (allocator_->AppendAt(s.slot, ids ? token_buf_.data() : nullptr, s.pending + n) != AllocStatus::kOk) return false;
    pending_tokens_ -= s.pending;
    s.pending = 0;
  } else {
    arena_tokens_ += n;  // within the reservation by construction
  }
  s.computed += static_cast<int32_t>(n);
  return true;
}

void ServingSimulator::Flush(int32_t id) {
  ReqState& s = state_[id];
  if (s.pending == 0) return;
  const bool ids = config_.allocator.enable_prefix_caching;
  if (ids) FillTokens(id, s.computed - s.pending, s.computed);
  allocator_->AppendAt(s.slot, ids ? token_buf_.data() : nullptr, s.pending);  // fits the last page
  pending_tokens_ -= s.pending;
  s.pending = 0;
}

void ServingSimulator::ReleaseMemory(int32_t id) {
  ReqState& s = state_[id];
  if (allocator_) {
    Flush(id);
    allocator_->FreeAt(s.slot);
    s.slot = -1;
  } else {
    arena_->Release(s.offset, s.reservation);
    arena_reserved_ -= s.reservation;
    arena_tokens_ -= s.computed;
    s.offset = -1;
  }
}

void ServingSimulator::Preempt(int32_t id) {
  ReleaseMemory(id);
  ReqState& s = state_[id];
  s.computed = 0;
  s.preempted = true;
  ++totals_.preemptions;
  ++waiting_preempted_;
  running_.erase(std::find(running_.begin(), running_.end(), id));
  waiting_.push_front(id);
}

bool ServingSimulator::SampleDue(int64_t step) {
  if (step % sample_stride_ != 0) return false;
  if (static_cast<int32_t>(samples_.size()) >= config_.max_samples) {
    // Keep every other sample and halve the rate from now on.
    size_t w = 0;
    for (size_t r = 0; r < samples_.size(); r += 2) samples_[w++] = samples_[r];
    samples_.resize(w);
    sample_stride_ *= 2;
    return step % sample_stride_ == 0;
  }
  return true;
}

bool ServingSimulator::FastForward() {
  // Only decode-only stretches: every running request takes exactly 1 token per step, nobody
  // can be admitted (no one waits, or max_num_seqs is reached), and no sliding window.
  if (allocator_ && config_.allocator.sliding_window > 0) return false;
  const int64_t r = static_cast<int64_t>(running_.size());
  if (r == 0 || r > config_.max_num_batched_tokens) return false;
  if (!waiting_.empty() && r < config_.max_num_seqs) return false;
  int64_t k_max = INT64_MAX;
  int64_t kv0 = 0;
  for (const int32_t id : running_) {
    const ReqState& s = state_[id];
    if (s.known - s.computed != 1) return false;
    k_max = std::min<int64_t>(k_max, s.output_len - s.generated);  // the first completion ends the run
    kv0 += s.computed;
  }
  // Step k (1-based) lasts a + g·k: its KV length after the append is kv0 + k·r.
  const StepTimeModel& m = config_.step;
  const double a = m.per_step_s + m.per_token_s * static_cast<double>(r) + m.per_kv_token_s * static_cast<double>(kv0);
  const double g = m.per_kv_token_s * static_cast<double>(r);
  const auto elapsed = [a, g](int64_t k) {  // S(k): time the first k steps take
    const double kd = static_cast<double>(k);
    return a * kd + g * kd * (kd + 1) / 2;
  };
  // Largest k in [0, hi] with pred(k) true, pred monotone (true then false), pred(0) true.
  const auto largest = [](int64_t hi, auto pred) {
    int64_t lo = 0;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo + 1) / 2;
      if (pred(mid)) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  int64_t k = k_max;
  // The step that starts at or after the next arrival must be a normal step.
  if (next_arrival_ < requests_.size()) {
    const double gap = requests_[next_arrival_].arrival_s - now_;
    k = largest(k, [&](int64_t kk) { return elapsed(kk - 1) < gap; });
  }
  if (k < 2) return false;
  const int64_t ps = config_.allocator.page_size;
  const auto pages_needed = [&](int64_t kk) {
    int64_t total = 0;
    for (const int32_t id : running_) {
      const int64_t c = state_[id].computed;
      total += page_.Div(c + kk + ps - 1) - page_.Div(c + ps - 1);
    }
    return total;
  };
  if (allocator_) {
    const int64_t avail = allocator_->AvailablePages();
    if (pages_needed(k) > avail) k = largest(k, [&](int64_t kk) { return pages_needed(kk) <= avail; });
  }
  if (k < 2) return false;

  // State before the run, and what changes per step.
  int64_t p0 = 0, free0 = 0, cached0 = 0, t0, reserved0 = 0;
  double hit_rate = 0;
  if (allocator_) {
    const PageAllocatorStats st = allocator_->Stats();
    p0 = st.pages_used;
    free0 = st.pages_free;
    cached0 = st.pages_cached;
    t0 = st.tokens_stored + pending_tokens_;
    hit_rate = st.prefix_hit_rate;
  } else {
    t0 = arena_tokens_;
    reserved0 = arena_reserved_;
  }
  // Pages taken by the end of step kk: one whenever a request's append starts a new page.
  const auto taken = [&](int64_t kk) { return allocator_ ? pages_needed(kk) : 0; };
  for (int64_t kk = 1; kk <= k; ++kk) {
    if (!SampleDue(totals_.steps + kk - 1)) continue;
    const int64_t tk = taken(kk);
    SimSample sample;
    sample.t = now_ + elapsed(kk - 1);
    sample.pages_used = static_cast<int32_t>(p0 + tk);
    sample.pages_free = static_cast<int32_t>(std::max<int64_t>(0, free0 - tk));
    sample.pages_cached = static_cast<int32_t>(cached0 - std::max<int64_t>(0, tk - free0));
    sample.tokens = t0 + kk * r;
    sample.reserved_slots = allocator_ ? sample.pages_used * ps : reserved0;
    sample.running = static_cast<int32_t>(r);
    sample.waiting = static_cast<int32_t>(waiting_.size());
    sample.preempted = waiting_preempted_;
    sample.prefix_hit_rate = hit_rate;
    samples_.push_back(sample);
  }

  // Integrals over the k steps, in closed form: Σ dt_k = S(k);
  // Σ (t0 + k·r)·(a + g·k) = t0·a·K + (t0·g + r·a)·ΣK + r·g·ΣK²;
  // Σ used_k·dt_k = p0·S(K) + Σ over each new page taken at step b of (S(K) − S(b − 1)).
  const double kd = static_cast<double>(k);
  const double sum_k = kd * (kd + 1) / 2, sum_k2 = kd * (kd + 1) * (2 * kd + 1) / 6;
  const double total_dt = elapsed(k);
  const double rd = static_cast<double>(r), t0d = static_cast<double>(t0);
  const double token_seconds = t0d * a * kd + (t0d * g + rd * a) * sum_k + rd * g * sum_k2;
  double used_seconds = 0;
  if (allocator_) {
    used_seconds = static_cast<double>(p0) * total_dt;
    for (const int32_t id : running_) {
      const int64_t c = state_[id].computed;
      for (int64_t b = page_.Mod(ps - page_.Mod(c)) + 1; b <= k; b += ps) used_seconds += total_dt - elapsed(b - 1);
    }
  }
  const int64_t used_end = p0 + taken(k);
  totals_.used_page_seconds += used_seconds;
  totals_.reserved_slot_seconds += allocator_ ? used_seconds * static_cast<double>(ps) : static_cast<double>(reserved0) * total_dt;
  totals_.token_slot_seconds += token_seconds;
  totals_.running_seconds += rd * total_dt;
  totals_.peak_pages_used = std::max<int32_t>(totals_.peak_pages_used, static_cast<int32_t>(used_end));
  totals_.peak_reserved_slots = std::max(totals_.peak_reserved_slots, allocator_ ? used_end * ps : reserved0);
  totals_.peak_running = std::max(totals_.peak_running, static_cast<int32_t>(r));

  // Apply: k tokens per request (pages were checked), k outputs each.
  for (const int32_t id : running_) {
    Grow(id, k);
    ReqState& s = state_[id];
    s.generated += static_cast<int32_t>(k);
    s.known += static_cast<int32_t>(k);
  }
  totals_.generated_tokens += k * r;
  totals_.steps += k;
  now_ += total_dt;
  for (size_t i = 0; i < running_.size();) {
    const int32_t id = running_[i];
    if (state_[id].generated < state_[id].output_len) {
      ++i;
      continue;
    }
    ReleaseMemory(id);
    running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(i));
    ++totals_.completed;
    totals_.simulated_seconds = now_;
  }
  return true;
}

bool ServingSimulator::Step() {
  // 1. Arrivals (and the jump over idle time).
  if (running_.empty() && waiting_.empty()) {
    if (next_arrival_ >= requests_.size()) return false;
    now_ = std::max(now_, requests_[next_arrival_].arrival_s);
  }
  while (next_arrival_ < requests_.size() && requests_[next_arrival_].arrival_s <= now_) {
    const int32_t id = static_cast<int32_t>(next_arrival_++);
    const SimRequest& r = requests_[id];
    ReqState& s = state_[id];
    const int64_t room = static_cast<int64_t>(config_.max_model_len) - r.prompt_len;
    s.output_len = static_cast<int32_t>(std::min<int64_t>(r.output_len, std::max<int64_t>(room, 0)));
    if (r.prompt_len <= 0 || room <= 0 || s.output_len <= 0 || !CanEverFit(r, s.output_len)) {
      ++totals_.rejected;
      continue;
    }
    s.known = r.prompt_len;
    s.reservation = config_.layout == KvLayout::kContiguousMaxModelLen ? config_.max_model_len : r.prompt_len + s.output_len;
    waiting_.push_back(id);
  }
  if (running_.empty() && waiting_.empty()) return next_arrival_ < requests_.size();
  if (FastForward()) return true;

  // 2. Running requests, oldest admission first. Each scheduled request adds its tokens to
  // the step's work and, once its prompt is in KV, emits its next token; those that emit their
  // last finish after the step (5).
  int64_t budget = config_.max_num_batched_tokens;
  int64_t tokens_scheduled = 0, kv_tokens = 0;
  finished_.clear();
  const auto scheduled = [&](int32_t id, int64_t n) {
    ReqState& s = state_[id];
    tokens_scheduled += n;
    budget -= n;
    kv_tokens += s.computed;
    if (s.computed < s.known) return;  // a prefill chunk that did not reach the end
    ++s.generated;
    ++s.known;
    ++totals_.generated_tokens;
    if (s.generated >= s.output_len) finished_.push_back(id);
  };
  bool preempted_now = false;
  for (size_t i = 0; i < running_.size() && budget > 0;) {
    const int32_t id = running_[i];
    ReqState& s = state_[id];
    const int64_t n = std::min<int64_t>(s.known - s.computed, budget);
    bool self_preempted = false;
    while (!Grow(id, n)) {
      // Victim: the most recently admitted running request (vLLM V1 `running.pop()`), always
      // at or after position i, so nothing already scheduled this step is preempted.
      const int32_t victim = running_.back();
      Preempt(victim);
      preempted_now = true;
      if (victim == id) {
        self_preempted = true;
        break;
      }
    }
    if (self_preempted) continue;  // running_[i] is now the next request
    scheduled(id, n);
    ++i;
  }

  // 3. Waiting requests, unless this step preempted someone.
  int64_t blocked_free_slots = 0;
  if (!preempted_now) {
    while (!waiting_.empty() && budget > 0 && static_cast<int32_t>(running_.size()) < config_.max_num_seqs) {
      const int32_t id = waiting_.front();
      ReqState& s = state_[id];
      int64_t cached = 0;
      if (!Admit(id, budget, &cached)) {
        s.refused = true;
        if (arena_ && arena_->free_slots() >= s.reservation) blocked_free_slots = arena_->free_slots();
        break;
      }
      if (s.refused) ++totals_.delayed;
      s.refused = false;  // counted once
      if (s.preempted) {
        s.preempted = false;
        --waiting_preempted_;
      }
      waiting_.pop_front();
      running_.push_back(id);
      scheduled(id, s.computed - cached);
    }
  }

  // 4. Step time and the memory state it holds for.
  const StepTimeModel& m = config_.step;
  const double dt = m.per_step_s + m.per_token_s * static_cast<double>(tokens_scheduled) +
                    m.per_kv_token_s * static_cast<double>(kv_tokens);
  SimSample sample;
  sample.t = now_;
  if (allocator_) {
    const PageAllocatorStats st = allocator_->Stats();
    sample.pages_used = st.pages_used;
    sample.pages_cached = st.pages_cached;
    sample.pages_free = st.pages_free;
    sample.tokens = st.tokens_stored + pending_tokens_;
    sample.reserved_slots = static_cast<int64_t>(st.pages_used) * config_.allocator.page_size;
    sample.prefix_hit_rate = st.prefix_hit_rate;
    totals_.prefix_query_tokens = st.prefix_query_tokens;
    totals_.prefix_hit_tokens = st.prefix_hit_tokens;
  } else {
    sample.tokens = arena_tokens_;
    sample.reserved_slots = arena_reserved_;
  }
  sample.running = static_cast<int32_t>(running_.size());
  sample.waiting = static_cast<int32_t>(waiting_.size());
  sample.preempted = waiting_preempted_;
  totals_.used_page_seconds += sample.pages_used * dt;
  totals_.reserved_slot_seconds += static_cast<double>(sample.reserved_slots) * dt;
  totals_.token_slot_seconds += static_cast<double>(sample.tokens) * dt;
  totals_.external_free_slot_seconds += static_cast<double>(blocked_free_slots) * dt;
  totals_.running_seconds += sample.running * dt;
  totals_.peak_pages_used = std::max(totals_.peak_pages_used, sample.pages_used);
  totals_.peak_reserved_slots = std::max(totals_.peak_reserved_slots, sample.reserved_slots);
  totals_.peak_running = std::max(totals_.peak_running, sample.running);
  if (SampleDue(totals_.steps)) samples_.push_back(sample);
  ++totals_.steps;
  now_ += dt;

  // 5. Completions free their memory.
  for (const int32_t id : finished_) {
    ReleaseMemory(id);
    running_.erase(std::find(running_.begin(), running_.end(), id));
    ++totals_.completed;
    totals_.simulated_seconds = now_;
  }
  return true;
}

bool ServingSimulator::Run(int64_t max_steps) {
  for (int64_t i = 0; i < max_steps && !done_; ++i) {
    if (!Step()) done_ = true;
  }
  return done_;
}

}  // namespace attnscope
