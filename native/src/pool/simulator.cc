// Serving simulator; the model and its step are described in simulator.h.
#include "pool/simulator.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace attnscope {

namespace {

// Synthetic token ids: token pos of stream code c is (c · K + pos) mod 2^31 with K odd, so two
// different codes (< 2^31) never give the same id at the same position. A prefix lookup
// compares pages position by position from position 0, so only requests whose segments agree
// up to a page's end can ever share it. Codes: 2 · stream for a shared segment, 2 · id + 1 for
// a request's own tokens.
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

ServingSimulator::ServingSimulator(const SimConfig& config, std::vector<SimRequest> requests, std::vector<SimSegment> segments)
    : config_(config),
      requests_(std::move(requests)),
      segments_(std::move(segments)),
      given_(requests_.size()),
      page_(config.allocator.page_size) {
  // Capacity only (huge blocks are not touched until used): each request's entries are made as it arrives.
  state_.reserve(requests_.size());
  times_.reserve(requests_.size());
  if (config_.layout == KvLayout::kPaged) {
    allocator_ = std::make_unique<PageAllocator>(config_.allocator);
    // Window blocks go at known steps (events, WindowReleaseDue); an all-sliding pool's pages
    // follow every token.
    lazy_decode_ = !allocator_->WindowFreesPages();
    private_tails_ = config_.private_tails && config_.allocator.enable_prefix_caching && lazy_decode_;
    coast_ = config_.coast && lazy_decode_;
    ring_ = std::min(config_.allocator.page_size, 4096);
  } else {
    arena_ = std::make_unique<FirstFitArena>(static_cast<int64_t>(config_.allocator.num_pages) *
                                             config_.allocator.page_size);
  }
  if (!allocator_) {
    coast_ = config_.coast;
    ring_ = 64;
  }
  pipelined_ = config_.stages.size() >= 2;
  if (pipelined_) {
    coast_ = false;  // every step request by request (simulator.h "Pipeline parallelism")
    stage_free_.assign(config_.stages.size(), 0.0);
    for (StepTimeModel& m : config_.stages) {
      m.num_experts = config_.step.num_experts;
      m.num_experts_per_tok = config_.step.num_experts_per_tok;
      m.sliding_window = config_.step.sliding_window;
      m.attention_chunk_size = config_.step.attention_chunk_size;
      m.one_shot_all_reduce_tokens = config_.step.one_shot_all_reduce_tokens;
      m.multimem_all_reduce_min_tokens = config_.step.multimem_all_reduce_min_tokens;
      m.multimem_all_reduce_max_tokens = config_.step.multimem_all_reduce_max_tokens;
      m.ring_all_reduce_min_tokens = config_.step.ring_all_reduce_min_tokens;
    }
  }
  events_.resize(static_cast<size_t>(ring_));
  totals_.requests = static_cast<int64_t>(requests_.size());
  if (config_.max_samples < 2) config_.max_samples = 2;
}

bool ServingSimulator::Rejects(const SimRequest& r, int32_t* output_len) const {
  const int64_t room = static_cast<int64_t>(config_.max_model_len) - r.prompt_len;
  *output_len = static_cast<int32_t>(std::min<int64_t>(r.output_len, std::max<int64_t>(room, 0)));
  return r.prompt_len <= 0 || room <= 0 || *output_len <= 0 || !CanEverFit(r, *output_len);
}

bool ServingSimulator::CanEverFit(const SimRequest& r, int32_t output_len) const {
  const int64_t ps = config_.allocator.page_size;
  if (config_.layout == KvLayout::kPaged) {
    const int64_t max_kv = static_cast<int64_t>(r.prompt_len) + output_len - 1;
    const int64_t pages = (max_kv + ps - 1) / ps;
    // Each page's blocks, and the window blocks of at most
    // ceil(min(W − 1 + max_num_batched_tokens, N) / page_size) + 1 pages (an append of n <=
    // max_num_batched_tokens tokens after c holds pages floor((c − W + 1) / ps) .. ceil((c + n) / ps) − 1);
    // with chunks of C, pages floor(floor(c / C) · C / ps) .. ceil((c + n) / ps) − 1: at most
    // ceil(min(C − 1 + max_num_batched_tokens, N) / page_size), + 1 when C is not a multiple of it.
    const int64_t chunk = config_.allocator.attention_chunk_size;
    const int64_t reach = chunk > 0 ? chunk : config_.allocator.sliding_window;
    const int64_t span = std::min<int64_t>(reach - 1 + config_.max_num_batched_tokens, max_kv);
    const int64_t misaligned = chunk > 0 ? (chunk % ps != 0 ? 1 : 0) : 1;
    const int64_t window_pages = std::min<int64_t>((span + ps - 1) / ps + misaligned, pages);
    const int64_t need = pages * allocator_->PageBlocks() + window_pages * allocator_->WindowBlocks() + allocator_->StateBlocks();
    return need <= config_.allocator.num_pages - config_.allocator.watermark_pages;
  }
  const int64_t need = config_.layout == KvLayout::kContiguousMaxModelLen
                           ? config_.max_model_len
                           : static_cast<int64_t>(r.prompt_len) + output_len;
  return need <= static_cast<int64_t>(config_.allocator.num_pages) * ps;
}

int32_t ServingSimulator::SharedEnd(int32_t id) const {
  const SimRequest& r = requests_[id];
  return r.segment_count > 0 ? segments_[static_cast<size_t>(r.segment_begin + r.segment_count - 1)].end : 0;
}

void ServingSimulator::FillTokens(int32_t id, int64_t from, int64_t to, int64_t limit) {
  const SimRequest& r = requests_[id];
  if (token_buf_.size() < static_cast<size_t>(to - from)) token_buf_.resize(static_cast<size_t>(to - from));
  to = std::min(to, limit);
  if (to <= from) return;
  int32_t* out = token_buf_.data();
  int64_t pos = from;
  for (int32_t k = 0; k < r.segment_count && pos < to; ++k) {
    const SimSegment& seg = segments_[static_cast<size_t>(r.segment_begin + k)];
    if (seg.end <= pos) continue;
    const int64_t end = std::min<int64_t>(seg.end, to);
    FillStream(out + (pos - from), 2 * static_cast<uint64_t>(seg.stream), pos, end);
    pos = end;
  }
  FillStream(out + (pos - from), 2 * static_cast<uint64_t>(id) + 1, pos, to);
}

int64_t ServingSimulator::PrivateFrom(int32_t id) const {
  return private_tails_ && !state_[id].requeued ? SharedEnd(id) : -1;
}

bool ServingSimulator::Admit(int32_t id, int64_t max_new, int64_t* cached) {
  ReqState& s = state_[id];
  *cached = 0;
  if (allocator_) {
    const bool ids = config_.allocator.enable_prefix_caching;
    const int64_t private_from = PrivateFrom(id);
    if (ids) FillTokens(id, 0, s.known, private_from < 0 ? INT64_MAX : private_from);
    AllocateResult r;
    if (allocator_->Allocate(id, ids ? token_buf_.data() : nullptr, s.known, max_new, &r, private_from) != AllocStatus::kOk)
      return false;
    s.slot = allocator_->Lookup(id);
    s.computed = static_cast<int32_t>(r.stored_tokens);
    *cached = r.cached_tokens;
    const int64_t shared = std::min<int64_t>(r.cached_tokens, SharedEnd(id));
    totals_.prefix_shared_hit_tokens += shared;
    totals_.prefix_own_hit_tokens += r.cached_tokens - shared;
    if (!s.preempted) totals_.first_admission_tokens += s.known;
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
    if (lazy_decode_ && n == 1 && page_.Mod(s.computed) != 0 && !allocator_->WindowReleaseDue(s.slot, s.computed)) {
      ++s.pending;  // room in the last page (never shared: the simulator does not fork)
      ++pending_tokens_;
      ++s.computed;
      return true;
    }
    const bool ids = config_.allocator.enable_prefix_caching;
    const int64_t from = s.computed - s.pending;
    const int64_t private_from = PrivateFrom(id);
    if (ids) FillTokens(id, from, s.computed + n, private_from < 0 ? INT64_MAX : private_from);
    const int32_t* buf = ids ? token_buf_.data() : nullptr;
    if (s.pending > 0 && allocator_->WindowBlocks() > 0) {
      // The pending tokens first (they fit the last page, and no window release was due for
      // them), so that the window release of the append below is the one due at s.computed.
      allocator_->AppendAt(s.slot, buf, s.pending);
      pending_tokens_ -= s.pending;
      if (buf != nullptr) buf += s.pending;
      s.pending = 0;
    }
    if (allocator_->AppendAt(s.slot, buf, s.pending + n) != AllocStatus::kOk) return false;
    pending_tokens_ -= s.pending;
    s.pending = 0;
  } else {
    arena_tokens_ += n;  // within the reservation by construction
  }
  s.computed += static_cast<int32_t>(n);
  return true;
}

void ServingSimulator::ReleaseMemory(int32_t id, bool publish) {
  ReqState& s = state_[id];
  if (allocator_) {
    Grow(id, 0);  // hands over the pending decode tokens (they fit the last page) first
    if (publish) FillTokens(id, 0, s.computed);
    allocator_->FreeAt(s.slot, publish ? token_buf_.data() : nullptr);
    s.slot = -1;
  } else {
    arena_->Release(s.offset, s.reservation);
    arena_reserved_ -= s.reservation;
    arena_tokens_ -= s.computed;
    s.offset = -1;
  }
}

void ServingSimulator::Preempt(int32_t id) {
  // Its pages may be found again on re-admission: release them registered (its private tail
  // too), and admit it without a private tail from now on.
  ReleaseMemory(id, /*publish=*/PrivateFrom(id) >= 0);
  ReqState& s = state_[id];
  s.requeued = true;
  totals_.preempted_tokens += s.computed;
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

bool ServingSimulator::Step() {
  // 1. Arrivals (and the jump over idle time: none while batches are in flight).
  if (running_.empty() && waiting_.empty() && batches_.empty()) {
    if (next_arrival_ >= requests_.size()) return false;
    now_ = std::max(now_, requests_[next_arrival_].arrival_s);
  }
  admitted_s_ = now_;
  while (next_arrival_ < requests_.size() && requests_[next_arrival_].arrival_s <= now_) {
    const int32_t id = static_cast<int32_t>(next_arrival_++);
    const SimRequest& r = requests_[id];
    // Within the capacity reserved for every request: references to earlier ones stay valid.
    state_.emplace_back();
    times_.emplace_back();
    times_[id].queued_s = now_;
    ReqState& s = state_[id];
    if (Rejects(r, &s.output_len)) {
      ++totals_.rejected;
      totals_.rejected_tokens += std::max<int64_t>(r.prompt_len, 0) + s.output_len;
      continue;
    }
    if (static_cast<size_t>(id) >= given_) --added_ahead_;
    s.known = r.prompt_len;
    s.reservation = config_.layout == KvLayout::kContiguousMaxModelLen ? config_.max_model_len : r.prompt_len + s.output_len;
    waiting_.push_back(id);
  }
  if (running_.empty() && waiting_.empty()) return next_arrival_ < requests_.size();

  // 2. Running requests, oldest admission first. Each scheduled request adds its tokens to
  // the step's work and, once its prompt is in KV, emits its next token; those that emit their
  // last finish after the step (5).
  int64_t budget = config_.max_num_batched_tokens;
  // requests_scheduled: one logits row each (lm_head).
  int64_t tokens_scheduled = 0, requests_scheduled = 0, kv_tokens = 0, sliding_kv_tokens = 0;
  // decode_tokens: one-token chunks (coasting ones included); prefill_context_tokens: the tokens
  // computed before each chunk of n > 1 (MLA up-projects them again, per_prefill_context_token_s).
  int64_t decode_tokens = 0, prefill_context_tokens = 0;
  // Query-key pairs attended (doubles: they grow as n² for long chunks; integers below 2^53,
  // so exact in any order of summation).
  double pairs = 0, decode_pairs = 0, sliding_pairs = 0;
  const int64_t window = config_.step.sliding_window;
  const int64_t chunk = config_.step.attention_chunk_size;
  finished_.clear();
  firsts_.clear();
  // n tokens went into KV, which now holds s.computed.
  const auto scheduled = [&](int32_t id, int64_t n) {
    ReqState& s = state_[id];
    tokens_scheduled += n;
    ++requests_scheduled;
    budget -= n;
    kv_tokens += s.computed;
    const double nd = static_cast<double>(n);
    // A one-token chunk is a decode query (vLLM's MLA split: query_len <= 1), whatever its phase.
    (n == 1 ? decode_pairs : pairs) += nd * static_cast<double>(s.computed - n) + nd * (nd + 1) / 2;
    if (n == 1) ++decode_tokens;
    else prefill_context_tokens += s.computed - n;
    if (window > 0) {
      // Its queries [computed − n, computed) see keys from max(0, computed − n − W + 1) on.
      sliding_kv_tokens += std::min<int64_t>(s.computed, n + window - 1);
      sliding_pairs += SlidingPairs(s.computed - n, s.computed, window);
    } else if (chunk > 0) {
      // Its queries [computed − n, computed) see keys from the start of the first one's chunk on.
      sliding_kv_tokens += s.computed - (s.computed - n) / chunk * chunk;
      sliding_pairs += ChunkedPairs(s.computed - n, s.computed, chunk);
    }
    // The prompt's tokens in KV for the first time (a cached prefix's too), for the progress estimate.
    const int32_t reached = std::min(s.computed, requests_[id].prompt_len);
    if (reached > s.prompt_reached) {
      totals_.prefilled_tokens += reached - s.prompt_reached;
      s.prompt_reached = reached;
    }
    if (s.computed < s.known) return;  // a prefill chunk that did not reach the end
    if (pipelined_) {
      emits_.push_back(id);  // its token comes with the batch's output (CompleteBatch)
      return;
    }
    ++s.generated;
    ++s.known;
    ++totals_.generated_tokens;
    if (s.generated == 1) firsts_.push_back(id);
    if (s.generated >= s.output_len) finished_.push_back(id);
  };
  bool preempted_now = false;
  // Gives request `id` its tokens, preempting from the back while memory refuses; false when it
  // preempted itself.
  const auto run = [&](int32_t id) {
    const int64_t n = std::min<int64_t>(state_[id].known - state_[id].computed, budget);
    // Pipeline parallelism: every token of it is in a batch in flight (vLLM: num_new_tokens == 0,
    // skipped until its output returns). Never without: a running request has a token to compute.
    if (n == 0) return true;
    while (!Grow(id, n)) {
      // Victim: the most recently admitted running request (vLLM V1 `running.pop()`), never one
      // already scheduled this step.
      const int32_t victim = running_.back();
      if (state_[victim].coasting) Uncoast(victim);
      Preempt(victim);
      preempted_now = true;
      if (victim == id) return false;
    }
    scheduled(id, n);
    return true;
  };
  // Coasting: only the requests with something to do step explicitly (prefill chunks, and
  // decode requests at an event), the rest take their token through the clock — unless the
  // token budget cannot cover everyone, when the step runs request by request.
  bool explicit_step = !coast_;
  specials_.clear();
  if (coast_) {
    std::vector<int32_t>& due = events_[static_cast<size_t>(clock_ % ring_)];
    for (const int32_t id : due) {
      // Entries left by a request that stopped coasting, or one re-enrolled for the same step
      // (listed twice), fail the check once the first is taken.
      ReqState& s = state_[id];
      if (!s.coasting || s.event != clock_) continue;
      s.event = -1;
      specials_.push_back(id);
    }
    due.clear();
    int64_t demand = coast_count_;
    for (const int32_t id : prefill_) demand += state_[id].known - state_[id].computed;
    if (demand > budget) {
      explicit_step = true;
      for (const int32_t id : running_)
        if (state_[id].coasting) Uncoast(id);
    } else {
      specials_.insert(specials_.end(), prefill_.begin(), prefill_.end());
      std::sort(specials_.begin(), specials_.end(), [this](int32_t x, int32_t y) { return state_[x].order < state_[y].order; });
      for (const int32_t id : specials_)
        if (state_[id].coasting && !state_[id].light) Uncoast(id);
    }
  }
  if (explicit_step) {
    for (size_t i = 0; i < running_.size() && budget > 0;)
      if (run(running_[i])) ++i;  // else running_[i] is now the next request
  } else {
    for (const int32_t id : specials_) {
      if (state_[id].coasting) ReleaseWindow(id);  // a light event (not preempted: still coasting)
      else if (!state_[id].preempted) run(id);
    }
    // The coasting requests left: one decode token each.
    tokens_scheduled += coast_count_;
    requests_scheduled += coast_count_;
    decode_tokens += coast_count_;
    budget -= coast_count_;
    totals_.generated_tokens += coast_count_;
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
      if (times_[id].scheduled_s < 0) times_[id].scheduled_s = now_;
      running_.push_back(id);
      s.order = admissions_++;
      if (coast_) specials_.push_back(id);  // enrolled after the step
      scheduled(id, s.computed - cached);
    }
  }

  // 4. Step time and the memory state it holds for.
  if (coast_) {
    ++clock_;  // the coasting requests' tokens of this step are in their lag from here on
    const int64_t coasting_kv = coast_computed_sum_ + CoastLag();
    kv_tokens += coasting_kv;
    decode_pairs += static_cast<double>(coasting_kv);  // one query token each over its whole context
    if (window > 0) {
      // One query token each over min(context, W): its context inside the window, else W.
      const int64_t windowed = window_computed_sum_ + window_count_ * clock_ - window_synced_sum_ +
                               (coast_count_ - window_count_) * window;
      sliding_kv_tokens += windowed;
      sliding_pairs += static_cast<double>(windowed);
    } else if (chunk > 0) {
      // One query token each over its chunk so far: (computed mod C) at sync + its lag.
      const int64_t chunked = chunk_offset_sum_ + CoastLag();
      sliding_kv_tokens += chunked;
      sliding_pairs += static_cast<double>(chunked);
    }
  }
  StepCounts counts;
  counts.tokens = tokens_scheduled;
  counts.requests = requests_scheduled;
  counts.kv_tokens = kv_tokens;
  counts.sliding_kv_tokens = sliding_kv_tokens;
  counts.pairs = pairs;
  counts.decode_pairs = decode_pairs;
  counts.sliding_pairs = sliding_pairs;
  counts.decode_tokens = decode_tokens;
  counts.prefill_context_tokens = prefill_context_tokens;
  double dt = 0;
  if (pipelined_) {
    // Nothing to run (every running request's tokens in flight): not queued, nothing sampled.
    if (tokens_scheduled == 0) return true;
    // The batch through the stages in order: stage k starts once the batch has left stage k − 1
    // and stage k has finished the batch before it.
    const size_t pp = config_.stages.size();
    double ready = now_;
    for (size_t k = 0; k < pp; ++k) {
      const double send = k + 1 < pp ? static_cast<double>(tokens_scheduled) * config_.stage_send_per_token_s : 0;
      stage_free_[k] = std::max(ready, stage_free_[k]) + StepSeconds(config_.stages[k], counts) + send;
      ready = stage_free_[k];
    }
    batches_.push_back(Batch{ready, emits_});
    emits_.clear();
    batch_scheduled_ = true;
  } else {
    dt = StepSeconds(config_.step, counts);
  }
  SimSample sample;
  sample.t = now_;
  if (allocator_) {
    const PageAllocatorStats st = allocator_->Stats();
    sample.pages_used = st.pages_used;
    sample.pages_cached = st.pages_cached;
    sample.pages_free = st.pages_free;
    sample.tokens = st.tokens_stored + (pending_tokens_ + CoastLag()) * allocator_->SlotsPerToken();
    // Token slots: a hybrid Mamba pool's state blocks (every live sequence's) hold a state, not tokens.
    const int64_t kv_blocks = st.pages_used - static_cast<int64_t>(allocator_->StateBlocks()) * st.num_sequences;
    sample.reserved_slots = kv_blocks * config_.allocator.page_size;
    sample.prefix_hit_rate = st.prefix_hit_rate;
    totals_.prefix_query_tokens = st.prefix_query_tokens;
    totals_.prefix_hit_tokens = st.prefix_hit_tokens;
  } else {
    sample.tokens = arena_tokens_ + CoastLag();
    sample.reserved_slots = arena_reserved_;
  }
  sample.running = static_cast<int32_t>(running_.size());
  sample.waiting = static_cast<int32_t>(waiting_.size());
  sample.preempted = waiting_preempted_;
  sample.preemptions = totals_.preemptions;
  if (pipelined_) {
    // Held until the next batch is scheduled (or the run ends): accounted then.
    if (has_held_) Account(held_, now_ - held_t_, held_blocked_);
    held_ = sample;
    held_t_ = now_;
    held_blocked_ = blocked_free_slots;
    has_held_ = true;
  } else {
    Account(sample, dt, blocked_free_slots);
  }
  last_sampled_ = SampleDue(totals_.steps);
  if (last_sampled_) samples_.push_back(sample);
  last_sample_ = sample;
  ++totals_.steps;
  if (pipelined_) return true;  // its outputs come at its end (CompleteBatch)
  now_ += dt;

  // 5. Tokens reach the user at the end of the step; completions free their memory.
  for (const int32_t id : firsts_) times_[id].first_token_s = now_;
  for (const int32_t id : finished_) {
    times_[id].finish_s = now_;
    times_[id].output_len = state_[id].output_len;
    ReleaseMemory(id);
    running_.erase(std::find(running_.begin(), running_.end(), id));
    ++totals_.completed;
    totals_.simulated_seconds = now_;
  }

  // 6. Requests that stepped explicitly coast again once they decode.
  if (coast_) {
    prefill_.clear();
    for (const int32_t id : explicit_step ? running_ : specials_) {
      const ReqState& s = state_[id];
      if (s.preempted || s.coasting || s.generated >= s.output_len) continue;  // requeued, coasting, finished
      // A request one prompt token short of its first output token steps explicitly once more,
      // so that its first token is seen (and timed) where it is emitted.
      if (s.known - s.computed == 1 && s.generated > 0) Coast(id);
      else prefill_.push_back(id);
    }
  }
  return true;
}

void ServingSimulator::Account(const SimSample& sample, double dt, int64_t blocked_free_slots) {
  totals_.used_page_seconds += sample.pages_used * dt;
  totals_.reserved_slot_seconds += static_cast<double>(sample.reserved_slots) * dt;
  totals_.token_slot_seconds += static_cast<double>(sample.tokens) * dt;
  totals_.external_free_slot_seconds += static_cast<double>(blocked_free_slots) * dt;
  totals_.running_seconds += sample.running * dt;
  totals_.waiting_seconds += sample.waiting * dt;
  totals_.peak_pages_used = std::max(totals_.peak_pages_used, sample.pages_used);
  totals_.peak_reserved_slots = std::max(totals_.peak_reserved_slots, sample.reserved_slots);
  totals_.peak_running = std::max(totals_.peak_running, sample.running);
  totals_.peak_waiting = std::max(totals_.peak_waiting, sample.waiting);
}

bool ServingSimulator::PipelineStep(double until) {
  for (;;) {
    if (!complete_next_ && batches_.size() < config_.stages.size()) {
      // With nothing running, waiting or in flight and no request left, NextStepStart() is +inf:
      // the run is over (until = +inf) or may go on once requests are added.
      if (!(NextStepStart() < until)) return false;
      batch_scheduled_ = false;
      Step();
      if (batch_scheduled_) return true;
      // Nothing scheduled and nothing in flight: a step that only preempted, or arrivals all
      // rejected; schedule again (each such call changes the state).
      if (batches_.empty()) continue;
      complete_next_ = true;  // nothing scheduled with batches in flight: the oldest completes next
    }
    // The queue is full, or nothing could be scheduled: wait for the oldest batch (complete_next_
    // keeps its place when it completes after `until`).
    if (std::max(now_, batches_.front().finish_s) > until) return false;
    complete_next_ = false;
    CompleteBatch();
  }
}

double ServingSimulator::NextStepStart() const {
  if (!running_.empty() || !waiting_.empty() || !batches_.empty()) return now_;
  return next_arrival_ < requests_.size() ? std::max(now_, requests_[next_arrival_].arrival_s) : INFINITY;
}

std::string ServingSimulator::AddRequest(const SimColumns& in, size_t i) {
  if (i >= in.n) return "request " + std::to_string(i) + " is not among the " + std::to_string(in.n) + " given";
  const double arrival = in.arrival_s[i];
  const std::string index = std::to_string(in.request_base + i);
  if (!requests_.empty() && !(arrival >= requests_.back().arrival_s))
    return "arrivalS[" + index + "] precedes the engine's last request's arrival";
  if (!(arrival > admitted_s_)) return "arrivalS[" + index + "] is not after the engine's last step start";
  const size_t base = segments_.size();
  std::vector<SimRequest> one;
  std::string error = BuildSimInput(in, i, i + 1, &one, &segments_);
  if (error.empty() && one.size() != 1) error = "request " + index + " was not read";
  if (!error.empty()) {
    segments_.resize(base);
    return error;
  }
  one[0].segment_begin = static_cast<int32_t>(base);
  // Capacity for the states and times a step makes (references into them stay valid within a step).
  if (requests_.size() >= state_.capacity()) {
    const size_t capacity = std::max<size_t>(64, 2 * state_.capacity());
    state_.reserve(capacity);
    times_.reserve(capacity);
  }
  int32_t output_len = 0;
  if (!Rejects(one[0], &output_len)) ++added_ahead_;
  requests_.push_back(one[0]);
  ++totals_.requests;
  return "";
}

void ServingSimulator::RunUntil(double t) {
  if (!pipelined_) {
    while (!done_ && NextStepStart() < t) Step();
    return;
  }
  // PipelineStep's loop, stopped before a step that starts at t or later, or a completion after t.
  while (!done_ && PipelineStep(t)) continue;
}

double ServingSimulator::NextChange(double t) const {
  if (done_) return INFINITY;
  // RunUntil's loop: with room in the batch queue and no completion due first, it stops at a step
  // starting at u or later; otherwise at a completion after u.
  double next = pipelined_ && (complete_next_ || batches_.size() >= config_.stages.size()) ? std::max(now_, batches_.front().finish_s)
                                                                                         : NextStepStart();
  for (const int32_t id : finished_)
    if (times_[id].finish_s > t) next = std::min(next, times_[id].finish_s);
  return next;
}

int64_t ServingSimulator::InFlight(double t) const {
  // Arrived and not rejected, less those completed by t (completions are recorded at their step's
  // end: only the last step's can be after t), plus those not arrived yet that will not be
  // rejected (added_ahead_, counted as they are added).
  int64_t count = static_cast<int64_t>(next_arrival_) - totals_.rejected - totals_.completed + added_ahead_;
  for (const int32_t id : finished_) count += times_[id].finish_s > t ? 1 : 0;
  // Those given to the constructor and not arrived yet (none for an engine built empty, as the
  // bridges build a dispatched one): their rejection was not worked out when given.
  for (size_t i = next_arrival_; i < given_; ++i) {
    int32_t output_len = 0;
    count += Rejects(requests_[i], &output_len) ? 0 : 1;
  }
  return count;
}

void ServingSimulator::CompleteBatch() {
  const Batch b = std::move(batches_.front());
  batches_.pop_front();
  now_ = std::max(now_, b.finish_s);
  for (const int32_t id : b.emits) {
    ReqState& s = state_[id];
    if (times_[id].finish_s >= 0) continue;  // finished by an earlier batch (vLLM: is_finished, skipped)
    ++s.generated;
    ++s.known;
    ++totals_.generated_tokens;
    if (s.generated == 1) times_[id].first_token_s = now_;
    if (s.generated < s.output_len) continue;
    times_[id].finish_s = now_;
    times_[id].output_len = s.output_len;
    if (s.preempted) {
      // Preempted while its batch was in flight: it holds no memory, it leaves the waiting queue.
      waiting_.erase(std::find(waiting_.begin(), waiting_.end(), id));
      s.preempted = false;
      --waiting_preempted_;
    } else {
      ReleaseMemory(id);
      running_.erase(std::find(running_.begin(), running_.end(), id));
    }
    ++totals_.completed;
    totals_.simulated_seconds = now_;
  }
}

void ServingSimulator::Coast(int32_t id) {
  ReqState& s = state_[id];
  s.coasting = true;
  s.synced = clock_;
  ++coast_count_;
  coast_synced_sum_ += clock_;
  coast_computed_sum_ += s.computed;
  // Its next explicit event, in steps from now (1 = the next step): its last token, its next
  // page (the token after a full page), the token past the sliding window, a chunk boundary, or
  // the ring's horizon.
  int64_t steps = std::min<int64_t>(s.output_len - s.generated, ring_);
  int64_t release = INT64_MAX;  // its next window release, in steps from now
  if (allocator_) {
    const int64_t in_page = page_.Mod(s.computed);
    steps = std::min<int64_t>(steps, in_page == 0 ? 1 : config_.allocator.page_size - in_page + 1);
    if (allocator_->WindowBlocks() > 0) release = WindowReleaseSteps(s, s.computed);
  }
  const int64_t window = config_.step.sliding_window;
  if (s.computed < window) {
    // Its j-th step from now reads context computed + j: within the window for
    // j <= W − computed, so it steps explicitly at j = W − computed + 1 and coasts on outside it.
    s.in_window = true;
    ++window_count_;
    window_synced_sum_ += clock_;
    window_computed_sum_ += s.computed;
    steps = std::min<int64_t>(steps, window - s.computed + 1);
  }
  const int64_t chunk = config_.step.attention_chunk_size;
  if (chunk > 0) {
    // Its j-th step from now is the token at position computed + j − 1, which reads
    // a + j keys (a = computed mod C) while j <= C − a; at j = C − a + 1 it starts a new chunk
    // (1 key), so it steps explicitly there.
    const int64_t a = s.computed % chunk;
    chunk_offset_sum_ += a;
    steps = std::min<int64_t>(steps, chunk - a + 1);
  }
  s.explicit_event = clock_ + steps - 1;
  FileEvent(id, release == INT64_MAX ? INT64_MAX : clock_ + release - 1);
}

int64_t ServingSimulator::WindowReleaseSteps(const ReqState& s, int64_t computed) const {
  // The append at length PageAllocator::NextWindowReleaseAt releases the next window page's
  // blocks; the j-th step from now appends at length computed + j − 1.
  const int64_t at = allocator_->NextWindowReleaseAt(s.slot);
  return std::max<int64_t>(1, at - computed + 1);
}

void ServingSimulator::FileEvent(int32_t id, int64_t release_at) {
  // A window release before its explicit event is a light event: the request stays on the clock
  // and its blocks go at its place in the step (ReleaseWindow). One at the explicit event goes
  // with it (Grow's append makes it).
  ReqState& s = state_[id];
  s.light = release_at < s.explicit_event;
  s.event = s.light ? release_at : s.explicit_event;
  events_[static_cast<size_t>(s.event % ring_)].push_back(id);
}

void ServingSimulator::ReleaseWindow(int32_t id) {
  ReqState& s = state_[id];
  // This step appends its token at length computed + lag (the clock moves after the step's
  // requests ran); the release due there is made now, as Grow's append would make it, and the
  // next one counted from the next step, whose append is at length computed + lag + 1.
  const int64_t at = s.computed + (clock_ - s.synced);
  allocator_->ReleaseWindowAt(s.slot, at);
  FileEvent(id, clock_ + WindowReleaseSteps(s, at + 1));
}

void ServingSimulator::Uncoast(int32_t id) {
  ReqState& s = state_[id];
  const int64_t lag = clock_ - s.synced;
  --coast_count_;
  coast_synced_sum_ -= s.synced;
  coast_computed_sum_ -= s.computed;
  if (config_.step.attention_chunk_size > 0) chunk_offset_sum_ -= s.computed % config_.step.attention_chunk_size;
  if (s.in_window) {
    --window_count_;
    window_synced_sum_ -= s.synced;
    window_computed_sum_ -= s.computed;
    s.in_window = false;
  }
  s.coasting = false;
  s.computed += static_cast<int32_t>(lag);
  s.known += static_cast<int32_t>(lag);
  s.generated += static_cast<int32_t>(lag);
  if (allocator_) {
    s.pending += static_cast<int32_t>(lag);  // within the last page: the event comes first
    pending_tokens_ += lag;
  } else {
    arena_tokens_ += lag;
  }
}

bool ServingSimulator::Run(int64_t max_steps) {
  for (int64_t i = 0; i < max_steps && !done_; ++i) {
    if (pipelined_ ? PipelineStep() : Step()) continue;
    done_ = true;
    if (has_held_) {
      Account(held_, now_ - held_t_, held_blocked_);
      has_held_ = false;
    }
    // The last step is always a sample (in the last one's place when they are full), so that
    // the samples end where the run does and their cumulative preemptions reach the total.
    if (totals_.steps > 0 && !last_sampled_) {
      if (static_cast<int32_t>(samples_.size()) >= config_.max_samples) samples_.back() = last_sample_;
      else samples_.push_back(last_sample_);
    }
  }
  return done_;
}

double SlidingPairs(int64_t from, int64_t to, int64_t w) {
  // S(t) = Σ_{x=1..t} min(x, w), derived in simulator.h.
  const auto prefix = [w](int64_t t) {
    const double td = static_cast<double>(t), wd = static_cast<double>(w);
    return t <= w ? td * (td + 1) / 2 : wd * (wd + 1) / 2 + (td - wd) * wd;
  };
  return prefix(to) - prefix(from);
}

double ChunkedPairs(int64_t from, int64_t to, int64_t c) {
  // P(t) = Σ_{i<t} ((i mod c) + 1), derived in simulator.h.
  const auto prefix = [c](int64_t t) {
    const double q = static_cast<double>(t / c), r = static_cast<double>(t % c), cd = static_cast<double>(c);
    return q * cd * (cd + 1) / 2 + r * (r + 1) / 2;
  };
  return prefix(to) - prefix(from);
}

double StepSeconds(const StepTimeModel& m, const StepCounts& c) {
  const double memory_s = m.weights_s + m.expert_weights_s * ExpertShareRead(m, c.tokens) +
                          (c.decode_tokens > 0 ? m.decode_weights_s : 0.0) +
                          (c.tokens > c.decode_tokens ? m.prefill_weights_s : 0.0) +
                          m.per_kv_token_s * static_cast<double>(c.kv_tokens) +
                          m.per_sliding_kv_token_s * static_cast<double>(c.sliding_kv_tokens) +
                          m.per_request_state_s * static_cast<double>(c.requests) +
                          m.per_prefill_context_kv_s * static_cast<double>(c.prefill_context_tokens);
  const double compute_s = m.per_token_s * static_cast<double>(c.tokens - c.decode_tokens) +
                           m.per_decode_token_s * static_cast<double>(c.decode_tokens) +
                           m.per_prefill_context_token_s * static_cast<double>(c.prefill_context_tokens) +
                           m.per_logits_s * static_cast<double>(c.requests) + m.per_pair_s * c.pairs +
                           m.per_decode_pair_s * c.decode_pairs + m.per_sliding_pair_s * c.sliding_pairs;
  const bool one_shot = c.tokens <= m.one_shot_all_reduce_tokens;
  const bool multimem = c.tokens >= m.multimem_all_reduce_min_tokens && c.tokens <= m.multimem_all_reduce_max_tokens;
  const bool ring = m.ring_all_reduce_min_tokens > 0 && c.tokens >= m.ring_all_reduce_min_tokens;
  const double per_token_all_reduce_s = one_shot   ? m.per_token_one_shot_all_reduce_s
                                        : multimem ? m.per_token_multimem_all_reduce_s
                                        : ring     ? m.per_token_ring_all_reduce_s
                                                   : m.per_token_all_reduce_s;
  // The ring band's own latency (its 2 · (tp − 1) steps), where its per-token rate is the one taken.
  const double latency_s = !one_shot && !multimem && ring ? m.ring_all_reduce_s : m.all_reduce_s;
  const double all_reduce_s = c.tokens > 0 ? latency_s + static_cast<double>(c.tokens) * per_token_all_reduce_s : 0.0;
  return m.per_step_s + std::max(memory_s, compute_s) + all_reduce_s;
}

double ExpertShareRead(const StepTimeModel& m, int64_t tokens) {
  if (m.num_experts <= 0 || tokens <= 0) return 0;
  const double miss = 1.0 - static_cast<double>(m.num_experts_per_tok) / static_cast<double>(m.num_experts);
  return 1.0 - std::pow(miss, static_cast<double>(tokens));
}

bool SimConfigValid(const SimConfig& config) {
  const StepTimeModel& m = config.step;
  const bool moe_ok = m.num_experts == 0 ? m.num_experts_per_tok == 0
                                         : m.num_experts > 0 && m.num_experts_per_tok >= 1 && m.num_experts_per_tok <= m.num_experts;
  return PageAllocator::Validate(config.allocator) == AllocStatus::kOk && config.layout >= KvLayout::kPaged &&
         config.layout <= KvLayout::kContiguousPromptPlusOutput && config.max_num_seqs > 0 &&
         config.max_num_batched_tokens > 0 && config.max_model_len > 0 && moe_ok && m.sliding_window >= 0 &&
         m.attention_chunk_size >= 0 && !(m.sliding_window > 0 && m.attention_chunk_size > 0) &&
         m.one_shot_all_reduce_tokens >= 0 && m.multimem_all_reduce_min_tokens >= 0 && m.multimem_all_reduce_max_tokens >= 0 &&
         m.ring_all_reduce_min_tokens >= 0 && m.ring_all_reduce_s >= 0 &&
         config.stages.size() != 1 && config.stage_send_per_token_s >= 0;
}

std::string BuildSimInput(const SimColumns& in, size_t from, size_t to, std::vector<SimRequest>* requests,
                          std::vector<SimSegment>* segments) {
  if (from == 0 && (in.segment_start[0] != 0 || static_cast<size_t>(in.segment_start[in.n]) != in.m))
    return "segmentStart must start at 0 and end at segmentStream.length";
  if (to <= from) return "";
  // Indices as messages give them (SimColumns::request_base, segment_base).
  const auto request = [&in](size_t i) { return std::to_string(in.request_base + i); };
  const auto segment = [&in](int64_t k) { return std::to_string(in.segment_base + static_cast<size_t>(k)); };
  // Segments of requests [from, to): bounded by m before any is read (segmentStart may not ascend past `to`).
  const int64_t seg_from = in.segment_start[from], seg_to = in.segment_start[to];
  if (seg_from < 0 || seg_to < seg_from || static_cast<size_t>(seg_to) > in.m)
    return "segmentStart must ascend from 0 to segmentStream.length (at request " + request(from) + " or " + request(to) + ")";
  for (int64_t k = seg_from; k < seg_to; ++k) {
    const double stream = in.segment_stream[k];
    if (!(stream >= 0 && stream < double(int64_t{1} << 30)))
      return "segmentStream[" + segment(k) + "] must be an integer in [0, 2^30)";
    segments->push_back(SimSegment{static_cast<int64_t>(stream), in.segment_end[k]});
  }
  for (size_t i = from; i < to; ++i) {
    SimRequest r;
    r.arrival_s = in.arrival_s[i];
    r.prompt_len = in.prompt_len[i];
    r.output_len = in.output_len[i];
    r.segment_begin = in.segment_start[i];
    r.segment_count = in.segment_start[i + 1] - in.segment_start[i];
    if (i > 0 && r.arrival_s < in.arrival_s[i - 1]) return "arrivalS must be sorted ascending (at " + request(i) + ")";
    if (r.segment_count < 0 || in.segment_start[i + 1] > seg_to) return "segmentStart must ascend (at " + request(i) + ")";
    int32_t prev = 0;
    for (int32_t k = 0; k < r.segment_count; ++k) {
      const int32_t e = in.segment_end[static_cast<size_t>(r.segment_begin + k)];
      if (e <= prev || e > r.prompt_len)
        return "segmentEnd of request " + request(i) + " must ascend within its prompt";
      prev = e;
    }
    requests->push_back(r);
  }
  return "";
}

std::string BuildSimInput(const SimColumns& in, std::vector<SimRequest>* requests, std::vector<SimSegment>* segments) {
  requests->clear();
  segments->clear();
  requests->reserve(in.n);
  segments->reserve(in.m);
  return BuildSimInput(in, 0, in.n, requests, segments);
}

void PackSimSamples(const std::vector<SimSample>& samples, double* d) {
  for (const SimSample& x : samples) {
    *d++ = x.t;
    *d++ = x.pages_used;
    *d++ = x.pages_cached;
    *d++ = x.pages_free;
    *d++ = static_cast<double>(x.tokens);
    *d++ = static_cast<double>(x.reserved_slots);
    *d++ = x.running;
    *d++ = x.waiting;
    *d++ = x.preempted;
    *d++ = x.prefix_hit_rate;
    *d++ = static_cast<double>(x.preemptions);
  }
}

}  // namespace attnscope
