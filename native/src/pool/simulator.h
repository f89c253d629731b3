// Discrete-event serving simulator with continuous batching (vLLM V1 scheduler), driving the
// same PageAllocator the decode kernels use — or, for the baselines, a first-fit arena of
// contiguous per-sequence reservations over the same memory.
//
// One step (= one model forward pass):
//   1. requests that arrived by now join the back of the waiting queue; with nothing running
//      or waiting, time jumps to the next arrival;
//   2. running requests, oldest first, get their next tokens: the rest of their prompt (chunked
//      prefill, at most the step's remaining token budget max_num_batched_tokens) or 1 decode
//      token. When the pool cannot hold them, the most recently admitted running request
//      (vLLM V1 `running.pop()`; the most recently arrived unless a preempted request was
//      re-admitted) is preempted by recompute — its pages freed, its computed tokens forgotten,
//      back to the front of the waiting queue — until the allocation fits or the request
//      preempted itself;
//   3. if nobody was preempted, waiting requests are admitted in order while max_num_seqs,
//      the token budget and the memory (watermark included) allow; a prefix-cache hit skips
//      the cached tokens;
//   4. the step lasts t = per_step_s + max(memory, compute) (StepTimeModel: a roofline with the
//      step's tokens, the KV tokens its requests attend to and their query-key pairs, per layer
//      type: full-attention layers over the whole context, sliding-window layers inside their
//      window, chunked local-attention layers inside their chunk); the memory state after the
//      step's allocations holds for that time;
//   5. a request whose KV length reaches its known length (prompt + generated) emits one output
//      token at the end of the step; after output_len tokens it finishes and frees its memory.
//      Each request's times are kept (RequestTimes): queued (start of the step that took its
//      arrival in, the first that could admit it), first scheduled (start of the step that
//      admitted it first), first token and last token (end of their steps). A request of prompt P
//      and output O thus holds at most P + O − 1 tokens of KV (the last token is never fed back).
// Speed, without changing any result:
// - Pending decode tokens. A decode token that lands in the request's partly filled last page
//   changes no page's state, so the paged run keeps it pending in the request and hands the
//   allocator a page's worth at once: when the request needs its next page, and before it frees
//   or is preempted (so that a full page is registered for prefix caching before release, as it
//   would have been). Pages held, cached and free are the same at every step as with one append
//   per token; the tokens stored are the allocator's plus the pending ones.
// - Coasting. Between its events a decoding request only takes one token per step, so it
//   "coasts" on a clock: its lengths are stored as of the step it joined (`synced`) and it is
//   Σ-ed into aggregates (count, Σ synced, Σ computed) from which each step's tokens, attended
//   KV and stored tokens follow in O(1). With sliding-window layers (window W) a decode token
//   reads min(context, W) there: the requests still inside the window (context <= W) are
//   Σ-ed apart as well (count, Σ synced, Σ computed: Σ context), the others read W each, and a
//   request crossing W is an event (once per request, unless preempted). With chunked
//   local-attention layers (chunk C) a decode token at position t reads (t mod C) + 1 tokens
//   there: every coasting request is Σ-ed by its offset in its chunk (Σ (computed mod C) as of
//   `synced`, plus the lag), and a request reaching the next chunk's first position (where its
//   read falls back to 1 token) is an event, once every C steps. Its events — the step
//   of its next page, of its last token, of crossing the window or a chunk boundary, or at most
//   `ring_` steps on —
//   sit in a ring of buckets; a step runs explicitly, in
//   admission order, only the requests at an event, those still in prefill and the admitted
//   ones, so a step costs O(events), not O(running). When the token budget cannot cover every
//   running request the step runs request by request, as vLLM's scheduler loop does. Preemption
//   victims (always later in admission order than the request being served) are brought up to
//   date first. The run equals the request-by-request one step for step.
// - Private tails. A request's tokens beyond its last shared segment are its own (no other
//   request has them), so with prefix caching its pages from there on go to the allocator as a
//   private tail (PageAllocator "Private tails"): not hashed as they fill, published only when
//   the request is preempted (it may find them again); a request once preempted is admitted
//   without one (its own pages may still be cached).
// None applies to an all-sliding pool (its releases follow every token): those runs step
// request by request. A hybrid pool (PageAllocator "Hybrid pool") releases a request's window
// blocks only at known appends (PageAllocator::WindowReleaseDue), so all three apply; its blocks
// are charged as vLLM's HybridKVCacheCoordinator charges them. A coasting request's next window
// release is an event too, but a light one when it comes before its explicit event: the request
// stays on the clock and, at its place in admission order in the step, the allocator releases the
// blocks its append at computed + lag would release first (PageAllocator::ReleaseWindowAt; its
// pending tokens stay pending), which is the explicit step's allocator state. The release cannot
// simply move to the page event: it falls at length ≡ W − 1 (mod page_size), the page at ≡ 0, so
// the two coincide only when W ≡ 1 (mod page_size) (then the one explicit event makes both); for
// gpt-oss (W 128, page_size 16) the release comes one step before the page, and moving it would
// change the free blocks admission and the samples see for that step.
// Pipeline parallelism (SimConfig::stages, pp >= 2 stages), as vLLM V1 runs it: the engine keeps
// a queue of up to pp batches in flight (vllm/v1/engine/core.py step_with_batch_queue;
// max_concurrent_batches = pipeline_parallel_size for the mp and ray executors). It schedules a
// new batch while the queue has room and the scheduler finds tokens to schedule, and otherwise
// waits for the oldest batch, whose outputs (tokens, completions, frees) arrive when its last
// stage ends (update_from_output). A batch's KV pages are allocated when it is scheduled. The
// scheduler moves num_computed_tokens on at scheduling, so a request whose tokens are all in
// flight has none to schedule and is skipped until its output returns (vllm/v1/core/sched/
// scheduler.py: num_new_tokens == 0, "PP>1 and we have already scheduled all prompt tokens but
// they are not finished yet"): a decoding request is in at most one batch at a time, a prompt's
// chunks follow one another in consecutive batches. A request preempted while in flight keeps the
// token its batch samples (update_from_output appends it; it may finish there). A batch with no
// token scheduled is not queued (nothing runs). Stage s runs a batch in
//   t_s = per_step_s + max(memory, compute) over stage s's coefficients (its layers' weights, KV
//         and FLOPs; the first stage holds the embedding, the last lm_head: per_logits_s there)
//         + tokens · stage_send_per_token_s on every stage but the last (its hidden states sent on)
// starting when both the batch has left stage s − 1 and stage s has finished the batch before
// (a flow shop: stages take batches in order). One request alone thus waits Σ t_s per batch,
// and pp batches in flight keep every stage busy: the throughput of the slowest stage. Each
// scheduled batch is one step and one sample (its state after the batch's allocations, held until
// the next batch is scheduled). Coasting is off under pipeline parallelism (every step runs
// request by request).
// A request is rejected on arrival when prompt_len >= max_model_len, or when it could never
// fit the pool alone (its largest KV above pool minus watermark, or its reservation above the
// arena); output_len is capped at max_model_len − prompt_len.
#pragma once

#include <climits>
#include <cmath>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pool/allocator.h"
#include "pool/huge_pages.h"

namespace attnscope {

// A run of a request's leading prompt tokens whose token ids belong to a shared stream: two
// requests hold the same token at a position exactly when both have a segment of the same
// stream over it. A request's segments are consecutive, start at 0 and end in ascending order
// (the first covers [0, end), the next [that end, its end), ...); its tokens beyond the last
// are its own. One segment = a shared system prompt; a chain of them = Mooncake's hash_ids.
struct SimSegment {
  int64_t stream = 0;  // >= 0, < 2^30
  int32_t end = 0;     // tokens, exclusive
};

struct SimRequest {
  double arrival_s = 0;        // arrival time, seconds; requests sorted by it
  int32_t prompt_len = 0;      // tokens
  int32_t output_len = 0;      // tokens to generate
  int32_t segment_begin = 0;   // its segments: segments[segment_begin, segment_begin + segment_count)
  int32_t segment_count = 0;
};

enum class KvLayout : int32_t {
  kPaged = 0,                      // the PageAllocator
  kContiguousMaxModelLen = 1,      // reserve max_model_len slots per sequence
  kContiguousPromptPlusOutput = 2, // reserve prompt_len + output_len slots per sequence
};

// Simulated seconds of one step, a roofline: per_step_s + max(memory, compute) with
//   memory  = weights_s + expert_weights_s · (1 − (1 − k/E)^tokens)
//             + decode_weights_s [decode_tokens > 0] + prefill_weights_s [tokens > decode_tokens]
//             + per_kv_token_s · kv_tokens + per_sliding_kv_token_s · sliding_kv_tokens
//             + per_request_state_s · requests
//             + per_prefill_context_kv_s · prefill_context_tokens
//             (weights streamed once, each attended KV token read; MoE: the routed experts' weights
//             read are modelled as the expected share of the E experts the step's tokens touch,
//             k of E each, under uniform routing; dense models: expert_weights_s = 0; an MLA
//             W8A8 checkpoint's 16-bit W_UK_T / W_UV copies read only by a step with a decode
//             token, its quantized kv_b_proj only by one with a prefill chunk: 0 for others; the
//             recurrent state of Mamba / GDN / lightning / short-conv layers read and written
//             once per scheduled request, a decode token or a prefill chunk alike: 0 without them;
//             MLA's up-projected context K/V of each prefill chunk, written and read again beside
//             the latent's read: 0 for other models)
//   compute = per_token_s · (tokens − decode_tokens) + per_decode_token_s · decode_tokens
//             + per_prefill_context_token_s · prefill_context_tokens
//             + per_logits_s · requests + per_pair_s · pairs
//             + per_decode_pair_s · decode_pairs + per_sliding_pair_s · sliding_pairs
//             (linear layers per scheduled token, a decode token's (n = 1) apart: an MLA W8A8
//             checkpoint's decode runs kv_b_proj as bf16 bmm's, at the dtype's peak; MLA's
//             up-projection of each prefill chunk's (n > 1) context, the c tokens before it,
//             through kv_b_proj again; lm_head per scheduled request, vLLM computing one logits
//             row each, at its last scheduled token; attention per query-key pair).
// Per layer type: the full-attention layers (per_kv_token_s, per_pair_s, per_decode_pair_s)
// attend the whole context: a chunk of n tokens after c cached ones reads c + n KV tokens and has
// n·c + n(n+1)/2 pairs, a decode token its context length. A chunk of n > 1 tokens counts them as
// pairs, one of n = 1 (a decode token, or a prompt's one-token last chunk: vLLM's MLA backends
// take query_len <= 1 as decode) as decode_pairs, which MLA runs in its absorbed form at more
// FLOPs per pair (runner/simulate/step-time.ts pairFlopsPerHead); other models have
// per_decode_pair_s = per_pair_s. The sliding-window layers
// (per_sliding_*, window W = sliding_window) let a query at position i attend keys
// max(0, i − W + 1) .. i only: the chunk reads min(c + n, W − 1 + n) KV tokens (the keys any of
// its queries sees) and has SlidingPairs(c, c + n, W) pairs; a decode token min(context, W) of
// each. sliding_window 0: no sliding-window layers (their coefficients are then unused).
// Chunked local attention (Llama 4's attention_chunk_size C, attention_chunk_size > 0 instead of
// sliding_window): the per_sliding_* coefficients are then those layers', and a query at position
// i attends only its own chunk's keys floor(i/C)·C .. i, (i mod C) + 1 of them: the chunk reads
// c + n − floor(c/C)·C KV tokens (the keys of the chunks it touches, from the first one's start)
// and has ChunkedPairs(c, c + n, C) pairs; a decode token at position t reads (t mod C) + 1.
// Tensor parallelism: the step's all-reduces, added after the max (vLLM does not overlap them with
// compute): all_reduce_s + tokens · per_token_one_shot_all_reduce_s for a step of at most
// one_shot_all_reduce_tokens tokens (vLLM's one-shot kernel), per_token_multimem_all_reduce_s for
// multimem_all_reduce_min_tokens .. multimem_all_reduce_max_tokens (H100 / H200 bf16: the
// symmetric-memory multimem kernel), per_token_ring_all_reduce_s from ring_all_reduce_min_tokens
// on (0: none; NCCL's ring on messages past the 4 MiB the small-message fit covers, at its
// large-message bus bandwidth, its calls' latency ring_all_reduce_s in place of all_reduce_s: the
// ring's 2 · (tp − 1) steps), else per_token_all_reduce_s (two-shot / NCCL ring); nothing for a
// step of no tokens. All 0 at tp 1.
// The coefficients (seconds per unit) come from runner/simulate/step-time.ts.
struct StepTimeModel {
  double per_step_s = 0;
  double weights_s = 0;         // every weight but the routed experts' and the two below
  double decode_weights_s = 0;  // read by a step with a decode token (MLA W8A8: the bf16 copies)
  double prefill_weights_s = 0; // read by a step with a prefill chunk (MLA W8A8: kv_b_proj)
  double expert_weights_s = 0;  // all routed experts' weights
  int32_t num_experts = 0;      // E, routed experts per MoE layer (0: dense)
  int32_t num_experts_per_tok = 0;  // k
  double per_kv_token_s = 0;    // full-attention layers
  double per_token_s = 0;       // the linear layers but lm_head
  double per_decode_token_s = 0;  // the same for a decode token (n = 1); = per_token_s but for MLA W8A8
  double per_prefill_context_token_s = 0;  // MLA: kv_b_proj per context token of a prefill chunk (n > 1)
  double per_prefill_context_kv_s = 0;     // MLA: the same token's up-projected K/V traffic (memory)
  double per_logits_s = 0;      // lm_head, per request scheduled (0: lm_head in per_token_s)
  double per_pair_s = 0;        // full-attention layers, prefill chunks' queries (n > 1)
  double per_decode_pair_s = 0; // full-attention layers, decode queries (n = 1)
  int32_t sliding_window = 0;   // W, tokens; 0: no sliding-window layers
  // C, tokens: the per_sliding_* layers are chunked local attention of chunks of C tokens instead
  // of a window (sliding_window then 0); 0: none.
  int32_t attention_chunk_size = 0;
  double per_sliding_kv_token_s = 0;  // the sliding-window or chunked layers
  double per_sliding_pair_s = 0;
  double per_request_state_s = 0;  // recurrent-state layers: one request's state read + written
  double all_reduce_s = 0;                     // tensor parallel: the all-reduces' latency, per step
  double per_token_all_reduce_s = 0;           // their two-shot / ring bytes per scheduled token
  double per_token_one_shot_all_reduce_s = 0;  // their one-shot bytes per token, up to the next
  int32_t one_shot_all_reduce_tokens = 0;      // the most tokens a one-shot step has (0: none)
  double per_token_multimem_all_reduce_s = 0;  // multimem bytes per token, in the band below
  int32_t multimem_all_reduce_min_tokens = 0;  // the band of multimem steps (max 0: none)
  int32_t multimem_all_reduce_max_tokens = 0;
  double per_token_ring_all_reduce_s = 0;      // NCCL ring's bytes per token at its large-message rate
  int32_t ring_all_reduce_min_tokens = 0;      // from this many tokens on (0: none)
  double ring_all_reduce_s = 0;                // the ring band's latency per step, in place of all_reduce_s
};

// Query-key pairs of the queries at positions [from, to) (0-based) in a layer whose window is
// w tokens (w > 0): the query at position i attends keys max(0, i − w + 1) .. i, that is
// min(i + 1, w) of them. By hand, with x = i + 1 running over [from + 1, to]:
//   Σ min(x, w) = S(to) − S(from),  S(t) = Σ_{x=1..t} min(x, w)
//                                        = t(t + 1)/2               for t <= w
//                                        = w(w + 1)/2 + (t − w) · w  for t > w
// (the first w queries attend 1, 2, .., w keys, every later one w). Without a window
// (w >= to) it is the full layers' (to − from)·from + (to − from)(to − from + 1)/2.
// E.g. w = 4, positions [0, 10): S(10) − S(0) = 10 + 6 · 4 = 34 = 1 + 2 + 3 + 4 · 7.
double SlidingPairs(int64_t from, int64_t to, int64_t w);

// Query-key pairs of the queries at positions [from, to) in a chunked local-attention layer of
// chunk c tokens (c > 0): the query at position i attends keys floor(i/c)·c .. i, (i mod c) + 1 of
// them. By hand: Σ_{i<t} ((i mod c) + 1) = P(t), and the sum over [from, to) is P(to) − P(from),
//   P(t) = q · c(c + 1)/2 + r(r + 1)/2,  q = floor(t/c), r = t mod c
// (each whole chunk before t contributes 1 + 2 + .. + c, the partial one 1 + .. + r).
// E.g. c = 4, positions [0, 10): P(10) = 2 · 10 + 3 = 23 = (1 + 2 + 3 + 4) · 2 + 1 + 2;
// positions [6, 10): P(10) − P(6) = 23 − (10 + 3) = 10 = 3 + 4 + 1 + 2.
double ChunkedPairs(int64_t from, int64_t to, int64_t c);

// What one step (a batch) schedules, as StepTimeModel's formula counts it.
struct StepCounts {
  int64_t tokens = 0;       // tokens scheduled
  int64_t requests = 0;     // requests scheduled (one logits row and one recurrent state each)
  int64_t kv_tokens = 0;    // full-attention layers' KV tokens read
  int64_t sliding_kv_tokens = 0;
  double pairs = 0, decode_pairs = 0, sliding_pairs = 0;
  int64_t decode_tokens = 0;           // one-token chunks (coasting ones included)
  int64_t prefill_context_tokens = 0;  // tokens computed before each chunk of n > 1 (MLA's kv_b_proj again)
};

// Seconds of a step of `c` under `m`: per_step_s + max(memory, compute) + the all-reduces
// (StepTimeModel); the experts' share from m.num_experts / m.num_experts_per_tok.
double StepSeconds(const StepTimeModel& m, const StepCounts& c);

// When a request passed its milestones, simulated seconds; −1 until then (and for rejected ones).
struct RequestTimes {
  double queued_s = -1;       // start of the first step at or after its arrival: the first that could admit it
  double scheduled_s = -1;    // start of the step that first admitted it (queueing delay = this − arrival)
  double first_token_s = -1;  // end of the step that emitted its first output token
  double finish_s = -1;       // end of the step that emitted its last output token
  int32_t output_len = 0;     // tokens it generates (output_len after the max_model_len cap)
};

struct SimConfig {
  KvLayout layout = KvLayout::kPaged;
  // The pool: num_pages · page_size slots for every layout; the rest applies to kPaged only.
  PageAllocatorConfig allocator;
  int32_t max_num_seqs = 256;
  int32_t max_num_batched_tokens = 8192;
  int32_t max_model_len = 8192;
  StepTimeModel step;
  // Pipeline parallelism: empty (one stage, `step`), or pp >= 2 stages in pp-rank order, each
  // with its layers' coefficients (per_step_s .. per_request_state_s; the window, chunk and expert
  // counts are `step`'s, one_shot_all_reduce_tokens too, the batch counts the same on every stage). See "Pipeline parallelism" above.
  std::vector<StepTimeModel> stages;
  // Seconds a stage takes to send one scheduled token's hidden state to the next stage (modelled
  // by the caller: bytes / link bandwidth); charged on every stage but the last.
  double stage_send_per_token_s = 0;
  int32_t max_samples = 2000;  // samples kept (downsampled by doubling the stride)
  bool coast = true;           // false: every step request by request (the same results, slower)
  bool private_tails = true;   // false: every full page hashed as it fills (the same results, slower)
};

struct SimSample {
  double t = 0;              // step start, simulated seconds
  int32_t pages_used = 0;    // paged: held pages; contiguous: 0
  int32_t pages_cached = 0;
  int32_t pages_free = 0;
  int64_t tokens = 0;        // filled KV slots
  int64_t reserved_slots = 0;  // paged: pages_used · page_size; contiguous: sum of reservations
  int32_t running = 0;
  int32_t waiting = 0;
  int32_t preempted = 0;     // waiting requests that were preempted
  double prefix_hit_rate = 0;  // prefix-cache hits among all tokens looked up so far (allocator's)
  int64_t preemptions = 0;   // preemptions so far, this step's included (every step counted, not
                             // only the sampled ones: the last sample's equals SimTotals')
};

// Totals; the *_seconds fields are integrals over simulated time (value · seconds).
struct SimTotals {
  int64_t requests = 0;
  int64_t completed = 0;
  int64_t rejected = 0;
  int64_t delayed = 0;       // admitted requests that memory refused at least once first
  int64_t preemptions = 0;
  int64_t preempted_tokens = 0;  // KV tokens that preemptions dropped, to be recomputed
  int64_t steps = 0;
  int64_t generated_tokens = 0;
  // Prompt tokens of admitted requests that have been in KV once, computed or found in the prefix
  // cache (a preempted request's recompute is not counted again): with generated_tokens, the work
  // done so far for a progress estimate (Σ prompt_len + Σ output_len after the max_model_len cap
  // over the requests not rejected, when the run is done).
  int64_t prefilled_tokens = 0;
  // prompt_len + output_len (after the max_model_len cap) of the rejected requests: work that
  // will never be done.
  int64_t rejected_tokens = 0;
  double simulated_seconds = 0;  // end of the step in which the last request completed
  // The simulator's clock (now_) where its last step left it: that step's end (pipelined: the last
  // batch completion's, or a later step's start after idle time). Moves from the first step on,
  // where simulated_seconds stays 0 until a request completes (simulate's progress line).
  double clock_seconds = 0;
  double used_page_seconds = 0;
  double reserved_slot_seconds = 0;
  double token_slot_seconds = 0;
  // Free slots while the head of the queue was refused although free slots >= its need.
  double external_free_slot_seconds = 0;
  double running_seconds = 0;
  double waiting_seconds = 0;
  int32_t peak_pages_used = 0;
  int64_t peak_reserved_slots = 0;
  int32_t peak_running = 0;
  int32_t peak_waiting = 0;
  int64_t prefix_query_tokens = 0;
  int64_t prefix_hit_tokens = 0;
  // The hits split: inside the request's shared segments (pages another request wrote, or it
  // wrote itself before a preemption), and beyond them (only its own pages, found again after a
  // preemption). shared + own = prefix_hit_tokens.
  int64_t prefix_shared_hit_tokens = 0;
  int64_t prefix_own_hit_tokens = 0;
  int64_t first_admission_tokens = 0;  // prompt tokens looked up at each request's first admission
};

// First-fit arena of contiguous reservations (offsets in slots).
class FirstFitArena {
 public:
  explicit FirstFitArena(int64_t slots);
  // Offset of a new reservation of n slots, or -1 when no hole is large enough.
  int64_t Reserve(int64_t n);
  void Release(int64_t offset, int64_t n);
  int64_t free_slots() const { return free_; }

 private:
  std::map<int64_t, int64_t> holes_;  // offset -> length, disjoint and never adjacent
  int64_t free_;
};

// A simulation's input as the bridges receive it (napi/simulator.cc, wasm/abi.cc): columns
// of n requests and m segments; request i's segments are [segment_start[i], segment_start[i + 1]).
struct SimColumns {
  size_t n = 0;                       // requests
  const double* arrival_s = nullptr;  // [n], ascending
  const int32_t* prompt_len = nullptr;   // [n]
  const int32_t* output_len = nullptr;   // [n]
  const int32_t* segment_start = nullptr;  // [n + 1], 0 .. m, ascending
  size_t m = 0;                       // segments
  const double* segment_stream = nullptr;  // [m], integers in [0, 2^30)
  const int32_t* segment_end = nullptr;    // [m], ascending within a request, <= its prompt_len
  // The indices messages give request 0 and segment 0 of these columns: a copy of request k alone
  // (the WebAssembly bridge's AddRequest) names it k, and its segments from the trace's first of it.
  size_t request_base = 0;
  size_t segment_base = 0;
};

// Whether `config` is one ServingSimulator accepts (a valid pool, a known layout, positive
// limits).
// The expected share of the routed experts' weights a step of `tokens` tokens reads, uniform
// routing assumed: each token picks k of E experts, so an expert is missed by all with
// probability (1 − k/E)^tokens and E · (1 − (1 − k/E)^tokens) experts are touched. 0 for dense.
double ExpertShareRead(const StepTimeModel& m, int64_t tokens);

bool SimConfigValid(const SimConfig& config);

// Appends requests [from, to) of `in` (to <= in.n) and their segments to `requests` and
// `segments`, which hold requests [0, from) already (so a caller can build 10,000,000 requests
// in slices, between which it stays responsive); returns "" or what is wrong with them (the
// field and index, counted from in.request_base / in.segment_base), leaving the outputs
// unspecified. Checks only what the simulator relies on.
std::string BuildSimInput(const SimColumns& in, size_t from, size_t to, std::vector<SimRequest>* requests,
                          std::vector<SimSegment>* segments);
// All of `in` at once.
std::string BuildSimInput(const SimColumns& in, std::vector<SimRequest>* requests, std::vector<SimSegment>* segments);

// The samples as rows of kSimSampleFields doubles, in SimSample's order (t, pages_used,
// pages_cached, pages_free, tokens, reserved_slots, running, waiting, preempted,
// prefix_hit_rate, preemptions); out: [samples.size() · kSimSampleFields].
constexpr size_t kSimSampleFields = 11;
void PackSimSamples(const std::vector<SimSample>& samples, double* out);

class ServingSimulator {
 public:
  // config must be valid (PageAllocator::Validate and positive limits); requests sorted by
  // arrival, their segments in `segments` as SimSegment says (ends <= prompt_len). Takes O(1)
  // time: a request's state is made when it arrives (the arrays of 10,000,000 requests, ~1 GB,
  // would otherwise be written here, in one uninterruptible call).
  ServingSimulator(const SimConfig& config, std::vector<SimRequest> requests, std::vector<SimSegment> segments = {});

  // Runs up to max_steps steps; true when every request completed or was rejected.
  bool Run(int64_t max_steps);
  // An engine whose requests arrive as it runs (a data-parallel engine, to which vLLM's API
  // server dispatches each request at its arrival from the engines' state then): built with no
  // request (or some), it alternates RunUntil(t), InFlight(t) and AddRequest of a request arriving
  // at t, then Run to the end. The steps are those of a simulator given the same requests at once
  // (a step admits the requests arrived by its start; RunUntil(t) runs only steps starting before
  // t, so a request arriving at t joins the same step either way).
  // Appends request i of `in` and its segments, as BuildSimInput checks them; its arrival must not
  // precede the last request's, and must come after the start of every step run (the steps a
  // RunUntil(arrival) runs). Returns "" or what is wrong (nothing is appended then).
  std::string AddRequest(const SimColumns& in, size_t i);
  // Runs the steps that start before t (pipelined: also the batch completions, up to the first
  // after t); never ends the run (requests may still be added), so Run must follow.
  void RunUntil(double t);
  // After RunUntil(t): the requests added, not rejected (they never run: simulator.h's rejection
  // on arrival, known when added) and not finished by t (finish_s > t, or not yet). vLLM's
  // in-flight count of the engine at t, its finish at t counted as done (one finishing exactly at a
  // pipelined batch's end equal to t, behind a batch scheduled at t, is counted in flight).
  // O(the last step's finishes) for an engine built with no request (its requests not arrived are
  // counted as they are added); one built with some adds O(those not arrived).
  int64_t InFlight(double t) const;
  // After RunUntil(t): the earliest time u (>= t, or +inf) from which RunUntil(u) may run a step
  // or a batch completion, or InFlight(u) may differ from InFlight(t): the next step's start
  // (pipelined with the batch queue full or a completion next: the oldest batch's end), or the
  // first finish after t of the requests the last step finished. Before it, RunUntil does nothing
  // and InFlight is unchanged, so a dispatching caller may skip the engine until an arrival at u
  // or later, or until it adds a request to it.
  double NextChange(double t) const;
  bool done() const { return done_; }
  const std::vector<SimSample>& samples() const { return samples_; }
  // A copy, with clock_seconds the clock now.
  SimTotals totals() const {
    SimTotals t = totals_;
    t.clock_seconds = now_;
    return t;
  }
  // Per request arrived so far, in the order given: requests [0, times().size()); the later
  // ones have no milestone yet (all −1).
  const HugeVector<RequestTimes>& times() const { return times_; }
  size_t num_requests() const { return requests_.size(); }

 private:
  // The fields of the per-step loop first (lengths fit int32: at most max_model_len).
  struct ReqState {
    int32_t computed = 0;       // tokens in KV
    int32_t known = 0;          // prompt + generated tokens
    int32_t pending = 0;        // paged: decode tokens of `computed` not yet given to the allocator
    int32_t generated = 0;
    int32_t output_len = 0;     // after the max_model_len cap
    int32_t slot = -1;          // allocator slot (paged) while it holds memory
    int64_t offset = -1;        // arena offset (contiguous) while it holds memory
    int32_t reservation = 0;    // arena slots (contiguous)
    int32_t prompt_reached = 0; // prompt tokens in KV at their most (SimTotals::prefilled_tokens)
    bool preempted = false;     // waiting for recompute
    bool refused = false;       // memory refused it at least once
    bool coasting = false;      // decoding on the clock: add clock_ − synced to the lengths
    bool requeued = false;      // preempted at least once: admitted without a private tail
    bool in_window = false;     // coasting with context <= the step model's sliding_window
    bool light = false;         // coasting: its event is a window release alone (ReleaseWindow)
    int64_t synced = 0;         // coasting: clock_ when the fields above were exact
    int64_t event = 0;          // coasting: the clock_ of its next event (explicit, or light)
    int64_t explicit_event = 0; // coasting: the clock_ of the step it must run explicitly
    int64_t order = 0;          // admission number (running order)
  };

  bool Step();
  // Pipeline parallelism: one engine iteration of step_with_batch_queue that schedules a batch,
  // waiting first for the oldest batches in flight as the queue requires; true when it scheduled
  // one. False when it stopped first: before a step that would start at `until` or later, or a
  // batch completion after `until` (RunUntil); with until = +inf, when the run is done (no request
  // left to run, none in flight).
  bool PipelineStep(double until = INFINITY);
  // The oldest batch's outputs at its end: tokens emitted, completions freed.
  void CompleteBatch();
  // Adds a sample's state held for dt seconds to the totals' integrals.
  void Account(const SimSample& sample, double dt, int64_t blocked_free_slots);
  bool CanEverFit(const SimRequest& r, int32_t output_len) const;
  // Whether r is rejected on arrival (simulator.h); *output_len: its output_len after the
  // max_model_len cap.
  bool Rejects(const SimRequest& r, int32_t* output_len) const;
  // When the next step would start (its arrivals admitted): now, or the next arrival when idle;
  // +inf when idle with no request left.
  double NextStepStart() const;
  // Memory policy: paged allocator or arena. Return false when memory refuses.
  bool Admit(int32_t id, int64_t max_new, int64_t* cached);
  // n more tokens in KV; the paged run hands the allocator any pending decode tokens with them.
  bool Grow(int32_t id, int64_t n);
  // publish: with its private tail registered first (PageAllocator::FreeAt).
  void ReleaseMemory(int32_t id, bool publish = false);
  // Token ids of positions [from, min(to, limit)) into token_buf_[0, ...), sized for [from, to).
  void FillTokens(int32_t id, int64_t from, int64_t to, int64_t limit = INT64_MAX);
  // Where the request's private tail starts (its shared end), or −1 when it gets none.
  int64_t PrivateFrom(int32_t id) const;
  // End of the request's last shared segment (0 without one).
  int32_t SharedEnd(int32_t id) const;
  void Preempt(int32_t id);
  // Enrolls a running decode request on the clock / brings it up to date and takes it off.
  void Coast(int32_t id);
  void Uncoast(int32_t id);
  // Steps from the step whose append is at length `computed` (1 = that one) to its next window
  // release (window blocks only).
  int64_t WindowReleaseSteps(const ReqState& s, int64_t computed) const;
  // Files the coasting request's next event: its explicit_event, or release_at (the clock_ of its
  // next window release; INT64_MAX: none) when that comes first.
  void FileEvent(int32_t id, int64_t release_at);
  void ReleaseWindow(int32_t id);
  // Decode tokens the coasting requests hold beyond their fields: Σ (clock_ − synced).
  int64_t CoastLag() const { return coast_count_ * clock_ - coast_synced_sum_; }
  // True when step `step` is to be sampled (halves the kept samples when they are full).
  bool SampleDue(int64_t step);

  SimConfig config_;
  std::vector<SimRequest> requests_;
  std::vector<SimSegment> segments_;
  size_t given_ = 0;           // requests given to the constructor; AddRequest appends after them
  int64_t added_ahead_ = 0;    // requests AddRequest appended, not arrived yet, that will not be rejected
  HugeVector<ReqState> state_;
  HugeVector<RequestTimes> times_;
  std::unique_ptr<PageAllocator> allocator_;
  std::unique_ptr<FirstFitArena> arena_;
  int64_t arena_tokens_ = 0;    // contiguous: filled slots
  int64_t arena_reserved_ = 0;  // contiguous: reserved slots
  int64_t pending_tokens_ = 0;  // paged: sum of ReqState::pending
  bool lazy_decode_ = false;    // paged, not all-sliding: decode tokens batched per page
  bool private_tails_ = false;  // paged with prefix caching, not an all-sliding pool
  // Coasting (contiguous layouts, and paged without a sliding window): see the header comment.
  bool coast_ = false;
  int64_t clock_ = 0;           // steps run
  int64_t coast_count_ = 0, coast_synced_sum_ = 0, coast_computed_sum_ = 0;
  // The coasting requests with in_window: their context is Σ computed + count · clock_ − Σ synced.
  int64_t window_count_ = 0, window_synced_sum_ = 0, window_computed_sum_ = 0;
  // Chunked layers: Σ (computed mod C) over the coasting requests, as of their `synced`; their
  // decode tokens' chunk reads are this + CoastLag() (no request passes a chunk boundary coasting).
  int64_t chunk_offset_sum_ = 0;
  int32_t ring_ = 1;
  std::vector<std::vector<int32_t>> events_;  // coasting requests by event % ring_
  std::vector<int32_t> prefill_;   // running requests with prompt tokens left (not coasting)
  std::vector<int32_t> specials_;  // requests that step explicitly this step
  int64_t admissions_ = 0;
  std::vector<int32_t> running_;   // admission order
  std::deque<int32_t> waiting_;
  int32_t waiting_preempted_ = 0;
  size_t next_arrival_ = 0;
  double now_ = 0;
  double admitted_s_ = -1;     // the start of the last step that admitted arrivals (−1: none yet)
  bool complete_next_ = false;  // pipelined: RunUntil stopped before the oldest batch's completion
  bool done_ = false;
  std::vector<int32_t> token_buf_;
  std::vector<int32_t> finished_;  // requests that emitted their last token this step
  std::vector<int32_t> firsts_;    // requests that emitted their first token this step
  PageDivisor page_;
  std::vector<SimSample> samples_;
  SimSample last_sample_;      // the last step's, kept as the final sample when its step was not due
  bool last_sampled_ = false;  // whether last_sample_'s step was sampled
  int64_t sample_stride_ = 1;
  SimTotals totals_;
  // Pipeline parallelism (config_.stages non-empty).
  struct Batch {
    double finish_s = 0;          // its last stage's end
    std::vector<int32_t> emits;   // requests whose known tokens it completes (one output token each)
  };
  bool pipelined_ = false;
  bool batch_scheduled_ = false;  // whether the last Step() queued a batch
  std::deque<Batch> batches_;     // in flight, oldest first
  std::vector<double> stage_free_;  // when each stage finishes its last batch
  std::vector<int32_t> emits_;    // the batch being scheduled's
  bool has_held_ = false;         // a sample whose hold time ends at the next batch (or the run's end)
  SimSample held_;
  double held_t_ = 0;
  int64_t held_blocked_ = 0;
};

}  // namespace attnscope
