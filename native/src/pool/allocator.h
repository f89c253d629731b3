// Paged KV-cache allocator (vLLM's block manager, V1 semantics): a pool of `num_pages` pages of
// `page_size` token slots; each sequence owns a block table (logical page -> physical page).
//
// Page states (every page is in exactly one):
//   free    ref_count 0, no hash          -> on the free stack
//   cached  ref_count 0, registered hash  -> on the LRU evictable queue and in the hash map
//   held    ref_count > 0 (maybe hashed)  -> in the block tables of ref_count sequences
// A new page comes from the free stack first; only when it is empty is the least recently
// released cached page evicted (its hash forgotten). So cached K/V survives as long as memory
// allows, and every operation is O(1) per page touched.
//
// Prefix caching (vLLM "automatic prefix caching"): when a page becomes full, its hash is
// hash(parent page's hash, the page's token ids), chained from a fixed root, and the page is
// registered under it. A new sequence looks up its prompt's full pages in order and shares every
// page found (ref_count + 1) instead of storing the tokens again. Hashes are 64-bit; a collision
// (probability ~ pages² / 2^65) would share the wrong page.
//
// Private tails (a speed-up for callers that know it, the serving simulator): a sequence may be
// created with `private_from`, a promise that no other sequence will ever hold its token ids at
// positions >= private_from. Its pages from the one holding that position on (its private pages)
// can then be found only by the sequence itself after it is freed, so they are not hashed or
// put in the hash map as they fill: they are marked cached-on-release as registration would mark
// them, and their tokens are not read. A free given the sequence's tokens (when the same tokens
// may look its pages up again) registers them first as a sequence without private_from would
// have, so every later call sees the same state either way; a private page evicted unregistered
// just leaves the queue.
//
// Copy-on-write: fork shares every page of the parent. The first append to a shared partial last
// page copies its filled slots to a new page (moving K/V in the attached pool, when one is) and
// writes there, so neither holder ever sees the other's new tokens.
//
// KV-cache groups (vLLM V1 KVCacheCoordinator over one BlockPool): the pool is num_pages blocks
// shared by F full-attention groups and S sliding-window groups (window W = sliding_window), each
// holding one block per logical page of a sequence that it keeps:
//   F = 1, S = 0  (sliding_window 0): one group; a block is a page.
//   F = 0, S = 1  (sliding_window > 0, sliding_groups 0: every layer slides): one group, whose
//                 blocks are the pages and leave with the window (below).
//   F, S >= 1     (sliding_window > 0, sliding_groups S, full_groups F: a hybrid model, vLLM's
//                 HybridKVCacheCoordinator; see "Hybrid pool"). With attention_chunk_size C > 0 in
//                 place of sliding_window, the S groups are chunked local-attention groups (Llama 4;
//                 see "Chunked local attention").
// A page (a block-table entry) is one block of each group held for the sequence's life — the F
// full-attention groups', or the one group of an all-sliding pool — and is the unit of prefix
// caching, sharing and eviction: page_blocks = F, or 1 when F = 0. The other sliding-window
// groups (S of them when F >= 1, none otherwise) hold window blocks: one each per logical page the
// window still covers, pages [first_live_page, ceil(num_tokens / page_size)). Every count a caller
// sees is in blocks: AvailablePages (free blocks + page_blocks · cached pages), PagesNeededAt, the
// watermark and Stats' pages_* (used = page_blocks · pages held + window blocks held;
// tokens_stored counts a token once per group holding it). With F = 1, S = 0 or F = 0, S = 1 a
// page is one block and there are no window blocks, so every count is in pages.
//
// Sliding window (vLLM SlidingWindowManager.remove_skipped_blocks before allocate_new_blocks):
// with `sliding_window` = W > 0, each append first releases the sliding-window groups' blocks of
// the pages whose positions all lie before num_tokens − W + 1 (the oldest key the next query can
// see): first_live_page moves there (WindowLimit). In an all-sliding pool those are the pages
// themselves, whose block-table entries become kNoPage; in a hybrid pool the window blocks. Release
// happens at the next append, not at the end of this one, because the tokens just appended still
// have K/V to write.
//
// Chunked local attention (vLLM ChunkedLocalAttentionManager, vllm/v1/core/
// single_type_kv_cache_manager.py; a hybrid pool with attention_chunk_size C > 0, sliding_window
// 0): the S groups' window covers the current chunk only. Before an append at num_tokens tokens
// the window blocks of the pages wholly before floor(num_tokens / C) · C go (get_num_skipped_tokens
// = floor(num_computed_tokens / C) · C, freed by remove_skipped_blocks before allocate_new_blocks):
// first_live_page = floor(floor(num_tokens / C) · C / page_size) (WindowLimit). A prefix-cache hit
// (ChunkedLocalAttentionManager.find_longest_cache_hit after the full-attention groups' pass, one
// pass as HybridKVCacheCoordinator makes it for one full and one other spec): with hf the full
// groups' hit pages, the pages before s = floor(floor(hf · page_size / C) · C / page_size) count as
// hit without window pages (outside the chunk), and the hit ends at the first page from s whose
// window page is not cached: h = s + that run; the sequence holds window pages [s, h). Everything
// else (taking, registering, caching window pages, private pages, Fork refused) is as in "Hybrid
// pool".
//
// Hybrid pool: a page's window blocks (S, one per sliding-window group) are one record of their
// own, a window page, held, shared, hashed and cached as a page is: registered under its page's
// hash (tagged apart) when the page fills, shared by a prefix-cache hit, released by the window
// (vLLM SlidingWindowManager.remove_skipped_blocks: the highest logical page first) and at
// FreeAt (window pages first, tail first, then the pages), and cached on release while hashed,
// on the one LRU queue with the pages (vLLM's BlockPool keeps freed blocks' hashes until it
// evicts them). A new page or window page comes from the free blocks, then by evicting the least
// recently released cached record (F or S blocks). A prefix-cache hit is then as long as every
// group can serve (vLLM HybridKVCacheCoordinator.find_longest_cache_hit with one full-attention
// and one sliding-window spec, one pass): the full-attention groups' longest run of cached pages
// from the start (hf pages), cut to the end h <= hf of the last c = ceil((W − 1) / page_size)
// consecutive pages whose window pages are cached, searched from hf down (SlidingWindowManager.
// find_longest_cache_hit), or, with no such run, to the run of cached window pages from page 0.
// The sequence then holds pages [0, h) and window pages [h − c, h) (those the window covers at
// h · page_size). A private page's window page is marked cached-on-release as the page is; one
// the window releases before the sequence is published is kept by id and taking (gen), and
// registered by Publish if it is still cached, as it would have stayed registered. Fork is
// refused (kInvalidArgument).
//
// State blocks (a hybrid Mamba / attention model, vLLM's MambaManager over the same BlockPool):
// with `state_blocks` = K > 0 (sliding_window 0), every live sequence holds K blocks besides its
// pages, whatever its length: its Mamba groups' state blocks (one or two per Mamba group,
// MambaSpec.max_memory_usage_bytes / page), taken from the free blocks at Allocate (evicting
// cached pages as a page would), returned to them at FreeAt, never hashed or shared. A page is
// then full_groups blocks (the attention groups'). Every count is in blocks as for a hybrid pool:
// AvailablePages, the watermark, Stats' pages_used (state blocks included; internal_fragmentation
// over the pages alone). Fork is refused (kInvalidArgument).
//
// Watermark: a new sequence is admitted only if `watermark_pages` pages stay available
// (free + cached) afterwards; appends to existing sequences may use them. This keeps room for
// running sequences to grow before anyone must be preempted (vLLM V0 BlockSpaceManager).
//
// Errors are AllocStatus values; nothing throws. A failed call changes nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <climits>
#include <vector>

#include "pool/flat_map.h"

namespace attnscope {

enum class AllocStatus : int32_t {
  kOk = 0,
  // Not enough free + evictable pages (or the watermark would be crossed); nothing changed.
  kOutOfPages = 1,
  // allocate/fork with the id of a live sequence.
  kSequenceExists = 2,
  // The id names no live sequence.
  kUnknownSequence = 3,
  // A count or size out of range.
  kInvalidArgument = 4,
};

// A stable lowercase name ("ok", "out_of_pages", ...) for the TypeScript side and messages.
const char* AllocStatusName(AllocStatus status);

struct PageAllocatorConfig {
  int32_t num_pages = 0;        // pages in the pool, > 0
  int32_t page_size = 16;       // token slots per page (vLLM block_size), > 0
  int32_t watermark_pages = 0;  // pages a new sequence must leave available, >= 0
  int32_t sliding_window = 0;   // tokens kept per sequence; 0 = all
  // KV-cache groups (see "KV-cache groups"): with sliding_window > 0 and sliding_groups > 0, a
  // hybrid pool: num_pages blocks, a page is full_groups blocks (>= 1) and a page in the window
  // holds sliding_groups more. sliding_groups 0: one group (full_groups is not read), to which
  // the sliding window (if any) applies.
  int32_t full_groups = 1;
  int32_t sliding_groups = 0;
  // C, tokens (with sliding_groups > 0 and sliding_window 0): the sliding_groups groups are
  // chunked local-attention groups of chunks of C tokens ("Chunked local attention"); 0: none.
  int32_t attention_chunk_size = 0;
  // Blocks every live sequence holds whatever its length ("State blocks"); with sliding_window 0
  // only. > 0 makes a page full_groups blocks.
  int32_t state_blocks = 0;
  bool enable_prefix_caching = false;
};

// x / page_size and x % page_size by multiplication, not division (Lemire, Kaser & Kurz, "Faster
// remainder by direct computation", 2019), for 0 <= x < 2^32; larger x fall back to division.
// The page arithmetic of every append and, in the simulator, of every running request per step.
class PageDivisor {
 public:
  explicit PageDivisor(int32_t d) : d_(static_cast<uint32_t>(d)), m_(d > 1 ? UINT64_MAX / static_cast<uint32_t>(d) + 1 : 0) {}
  int64_t Div(int64_t x) const {
    if (static_cast<uint64_t>(x) >> 32) return x / d_;
    return d_ > 1 ? static_cast<int64_t>((static_cast<__uint128_t>(m_) * static_cast<uint32_t>(x)) >> 64) : x;
  }
  int64_t Mod(int64_t x) const {
    if (static_cast<uint64_t>(x) >> 32) return x % d_;
    return d_ > 1 ? static_cast<int64_t>((static_cast<__uint128_t>(m_ * static_cast<uint32_t>(x)) * d_) >> 64) : 0;
  }

 private:
  uint32_t d_;
  uint64_t m_;
};

enum class PageState : uint8_t { kFree = 0, kCached = 1, kHeld = 2 };

struct PageAllocatorStats {
  int32_t num_pages = 0;
  int32_t page_size = 0;
  int32_t pages_used = 0;    // held: ref_count > 0
  int32_t pages_cached = 0;  // ref_count 0 with a registered hash (evictable)
  int32_t pages_free = 0;    // ref_count 0, no hash
  int32_t num_sequences = 0;
  // Filled slots of held pages; a page shared by several sequences counts once.
  int64_t tokens_stored = 0;
  // Sum of the sequences' lengths (a shared token counts once per sequence).
  int64_t logical_tokens = 0;
  // (pages_used · page_size − tokens_stored) / (pages_used · page_size); 0 when nothing is held.
  double internal_fragmentation = 0;
  // pages_used / num_pages.
  double occupancy = 0;
  // Prompt tokens looked up in the prefix cache, and how many of them were found.
  int64_t prefix_query_tokens = 0;
  int64_t prefix_hit_tokens = 0;
  double prefix_hit_rate = 0;
  int64_t cow_copies = 0;    // pages copied by copy-on-write
  int64_t evictions = 0;     // cached pages whose hash was dropped to reuse the page
};

// Optional K/V storage that copy-on-write moves. Each pool is [num_pages, page_size, H_kv, D]
// elements of any dtype; slot_bytes = H_kv · D · sizeof(element). Not owned.
struct KvPoolView {
  uint8_t* k = nullptr;
  uint8_t* v = nullptr;
  size_t slot_bytes = 0;
};

struct AllocateResult {
  int64_t cached_tokens = 0;  // tokens found in the prefix cache (a multiple of page_size)
  int64_t stored_tokens = 0;  // tokens the sequence holds after the call (cached + appended)
};

class PageAllocator {
 public:
  static constexpr int32_t kNoPage = -1;
  static constexpr int32_t kNoSlot = -1;

  // config must be valid (see Validate); the N-API bridge checks it first.
  explicit PageAllocator(const PageAllocatorConfig& config);

  // kOk or kInvalidArgument for a config the constructor must not receive.
  static AllocStatus Validate(const PageAllocatorConfig& config);

  // Creates sequence `seq_id`. With prefix caching and token ids, shares the longest run of
  // cached full pages of tokens[0, num_tokens) — at most num_tokens − 1 tokens, so that at least
  // one token is computed (it yields the next token's logits); a hybrid pool's as long as its
  // window pages allow too ("Hybrid pool") — then appends up to
  // `max_new_tokens` of the remaining prompt tokens (all when < 0), taking pages on demand.
  // tokens: int32 [num_tokens] or nullptr (then nothing is looked up or cached for it).
  // Respects the watermark. kSequenceExists for a live id (nothing changes, nothing leaks).
  // private_from >= 0 (with prefix caching, tokens given, not an all-sliding pool; else ignored):
  // the sequence's tokens at positions >= private_from are private (see "Private tails"); then
  // tokens, here and in later appends, need hold ids only below the first private page.
  AllocStatus Allocate(int64_t seq_id, const int32_t* tokens, int64_t num_tokens, int64_t max_new_tokens,
                       AllocateResult* result, int64_t private_from = -1);

  // Appends n tokens (ids in tokens[0, n), or nullptr) to a live sequence: copy-on-write of a
  // shared partial last page, then new pages on demand; may use the watermark pages.
  AllocStatus Append(int64_t seq_id, const int32_t* tokens, int64_t n);

  // child shares all of parent's pages (ref_count + 1 each); no page is copied until one of
  // them appends to a shared partial page.
  AllocStatus Fork(int64_t parent_id, int64_t child_id);

  // Releases every page of the sequence (ref_count − 1; the last holder returns it to the free
  // stack, or to the cached queue when hashed), tail pages first so that they are evicted first.
  AllocStatus Free(int64_t seq_id);

  // Slot handles for hot loops (the simulator): valid from Allocate/Fork until Free.
  int32_t Lookup(int64_t seq_id) const { return ids_.Find(static_cast<uint64_t>(seq_id)); }
  AllocStatus AppendAt(int32_t slot, const int32_t* tokens, int64_t n);
  // tokens (all the sequence's ids, [NumTokensAt(slot)], or nullptr): with a private tail, its
  // full private pages are registered first, as they would have been without private_from, so
  // that the same tokens can find them again.
  AllocStatus FreeAt(int32_t slot, const int32_t* tokens = nullptr);
  int64_t NumTokensAt(int32_t slot) const { return seqs_[slot].num_tokens; }
  // Blocks a call AppendAt(slot, ·, n) would take (copy-on-write included).
  int64_t PagesNeededAt(int32_t slot, int64_t n) const;
  // With window blocks (a hybrid pool): whether an append to the sequence when it holds
  // num_tokens tokens (>= NumTokensAt) would first release window blocks; always false otherwise.
  bool WindowReleaseDue(int32_t slot, int64_t num_tokens) const;
  // With window blocks: the release an append at num_tokens tokens would make first, made now
  // (the simulator's coasting requests, whose pending tokens up to num_tokens fit their last
  // page: AppendAt(slot, ·, num_tokens − NumTokensAt(slot)) then changes nothing more).
  // Caller: num_tokens >= NumTokensAt(slot), and the tokens between lie in the last page.
  void ReleaseWindowAt(int32_t slot, int64_t num_tokens);
  // The first logical page whose sliding-window blocks the sequence still holds.
  int64_t FirstWindowPageAt(int32_t slot) const { return seqs_[slot].first_live_page; }
  // With window blocks: the smallest sequence length at which an append releases the window blocks
  // of the first page the sequence still holds them for (first window page p): (p + 1) ·
  // page_size + W − 1 for a sliding window W, ceil((p + 1) · page_size / C) · C for chunks of C.
  int64_t NextWindowReleaseAt(int32_t slot) const;
  // Groups a stored token occupies a slot in: page_blocks + window blocks a page (F + S for a
  // hybrid pool, else 1).
  int32_t SlotsPerToken() const { return page_blocks_ + window_blocks_; }
  // Blocks a page is (F for a hybrid or state-block pool, else 1).
  int32_t PageBlocks() const { return page_blocks_; }
  // Blocks every live sequence holds besides its pages ("State blocks"; 0 without).
  int32_t StateBlocks() const { return config_.state_blocks; }
  // Window blocks a page in the window holds (S for a hybrid pool, else 0).
  int32_t WindowBlocks() const { return window_blocks_; }
  // Whether the window releases the pages themselves (an all-sliding pool): every append may
  // change the pages held.
  bool WindowFreesPages() const { return window_frees_pages_; }

  // Block table of a live sequence (kNoPage for pages released by the sliding window); nullptr
  // when unknown. Valid until the next call that changes the sequence.
  const std::vector<int32_t>* BlockTable(int64_t seq_id) const;
  int64_t NumTokens(int64_t seq_id) const;  // -1 when unknown

  // Blocks a new page or window page can come from right now: free blocks + page_blocks · cached
  // pages + window blocks · cached window pages.
  int32_t AvailablePages() const {
    return free_blocks_ + page_blocks_ * cached_count_ + window_blocks_ * cached_windows_;
  }
  PageAllocatorStats Stats() const;
  const PageAllocatorConfig& config() const { return config_; }

  // Introspection for invariant tests.
  // Any page in [0, num_pages): one never taken is free, ref_count 0, nothing filled.
  int32_t RefCount(int32_t page) const { return Touched(page) ? pages_[page].ref_count : 0; }
  PageState State(int32_t page) const { return Touched(page) ? pages_[page].state : PageState::kFree; }
  int32_t Filled(int32_t page) const { return Touched(page) ? pages_[page].filled : 0; }
  // The free stack, bottom to top (the ids never taken, highest first, then those returned); the
  // cached queue, least recently released first.
  std::vector<int32_t> FreePages() const;
  std::vector<int32_t> CachedPages() const;
  std::vector<int64_t> SequenceIds() const;

  // Attaches K/V pools copy-on-write moves (nullptr pointers detach).
  void AttachKvPool(const KvPoolView& pool) { kv_ = pool; }

  // The root of the hash chain and one link: hash(parent, page token ids).
  static constexpr uint64_t kRootHash = 0x6a09e667f3bcc909ULL;
  static uint64_t ChainHash(uint64_t parent, const int32_t* tokens, int32_t n);

 private:
  static constexpr int64_t kNoPrivatePage = INT64_MAX;
  // A private page's window page the window released unregistered: the record and its taking.
  struct ReleasedWindow {
    int64_t page;
    int32_t id;
    uint32_t gen;
  };
  struct Sequence {
    int64_t id = 0;
    int64_t private_page = kNoPrivatePage;  // first logical page of its private tail
    bool live = false;
    bool hashable = false;       // every token id so far was given
    int64_t num_tokens = 0;
    int64_t first_live_page = 0; // pages before it have their sliding-window blocks released
    uint64_t parent_hash = kRootHash;  // hash of its last registered page (private pages excluded)
    std::vector<int32_t> block_table;
    std::vector<int32_t> window_table;    // hybrid: window page per logical page (kNoPage outside the window)
    std::vector<ReleasedWindow> released_private;  // hybrid with a private tail, ascending pages
    std::vector<int32_t> partial_tokens;  // ids of the unfilled last page (hashable only)
  };

  // A held record of `blocks` blocks (page_blocks_, or window_blocks_ for a window page);
  // caller checked AvailablePages() >= blocks.
  int32_t Take(bool window);
  int32_t TakePage() { return Take(false); }
  void EvictToFree();           // the least recently released cached record to the free stack
  void Release(int32_t page);   // ref_count − 1, to free stack or cached queue at 0
  void Hold(int32_t page);      // a cache hit: ref_count + 1, leaving the cached queue at 0
  // A window page's key in page_by_hash_: its page's hash, tagged apart from the pages'.
  static uint64_t WindowKey(uint64_t page_hash) { return page_hash ^ 0x5bd1e9955bd1e995ULL; }
  void QueueRemove(int32_t page);
  void QueuePushBack(int32_t page);
  // page_tokens: [page_size]; window: the page's window page to register with it, or kNoPage.
  void RegisterFull(Sequence& seq, int32_t page, const int32_t* page_tokens, int32_t window = kNoPage);
  void Publish(Sequence& seq, const int32_t* tokens);  // registers the private full pages (FreeAt)
  // First logical page the window keeps for the query at position num_tokens.
  int64_t WindowLimit(const Sequence& seq, int64_t num_tokens) const;
  void ReleaseOutsideWindow(Sequence& seq, int64_t limit);  // moves first_live_page to limit
  AllocStatus AppendTo(Sequence& seq, const int32_t* tokens, int64_t n);
  int32_t NewSlot();
  // The free stack's top, popped (caller: an id is free): a returned page, else the lowest id
  // never taken, whose record is made now.
  int32_t PopFree();
  bool Touched(int32_t page) const { return page >= 0 && static_cast<size_t>(page) < pages_.size(); }

  PageAllocatorConfig config_;
  PageDivisor page_;  // by config_.page_size
  KvPoolView kv_;
  // One 32-byte record per page: the fields an operation touches share a cache line.
  struct PageMeta {
    uint64_t hash = 0;        // registered hash (valid when in_map)
    int32_t ref_count = 0;
    int32_t filled = 0;       // slots written
    int32_t prev = kNoPage;   // cached queue links
    int32_t next = kNoPage;
    PageState state = PageState::kFree;
    uint8_t hashed = 0;       // registered: to the cached queue when released
    uint8_t in_map = 0;       // its hash is in page_by_hash_ (hashed, and not a private page)
    uint8_t window = 0;       // a window page (hybrid pool): window_blocks_ blocks, not page_blocks_
    uint32_t gen = 0;         // times taken (a released record is still the same while unchanged)
  };
  // Records of the ids taken at least once, [0, untouched_) (grown as ids are first taken, so a
  // pool's memory follows the pages it used, not its size). Ids [untouched_, num_ids_) were never
  // taken: they are the bottom of the free stack, untouched_ on top of them, so that the pool
  // hands out 0, 1, 2, ... as a stack holding every id, top 0, would.
  std::vector<PageMeta> pages_;
  int32_t num_ids_ = 0;
  int32_t untouched_ = 0;
  int32_t queue_head_ = kNoPage, queue_tail_ = kNoPage;
  int32_t cached_count_ = 0;    // pages on the cached queue
  int32_t cached_windows_ = 0;  // window pages on the cached queue
  std::vector<int32_t> free_stack_;
  FlatMap64 page_by_hash_;
  std::vector<Sequence> seqs_;
  std::vector<int32_t> free_slots_;
  std::vector<int32_t> hit_scratch_;
  std::vector<int32_t> window_scratch_;  // hybrid: the hit's window pages
  std::vector<uint64_t> hash_scratch_;   // hybrid: the full groups' hit pages' hashes
  FlatMap64 ids_;
  int32_t pages_used_ = 0;
  // KV-cache groups: whether the window releases pages (F = 0), blocks a page (F, or 1), blocks a
  // window page (S when F >= 1, else 0), free blocks, and the window pages held and their filled
  // slots (window blocks held = window_blocks_ · window_pages_).
  bool window_frees_pages_ = false;
  int32_t page_blocks_ = 1;
  int32_t window_blocks_ = 0;
  int32_t free_blocks_ = 0;
  int64_t state_held_ = 0;  // state blocks of the live sequences
  int64_t window_pages_ = 0;
  int64_t window_tokens_ = 0;
  int64_t tokens_stored_ = 0;
  int64_t logical_tokens_ = 0;
  int64_t prefix_query_tokens_ = 0;
  int64_t prefix_hit_tokens_ = 0;
  int64_t cow_copies_ = 0;
  int64_t evictions_ = 0;
};

}  // namespace attnscope
