// Paged KV-cache allocator; semantics in allocator.h.
#include "pool/allocator.h"

#include <algorithm>
#include <cstring>

namespace attnscope {

const char* AllocStatusName(AllocStatus status) {
  switch (status) {
    case AllocStatus::kOk: return "ok";
    case AllocStatus::kOutOfPages: return "out_of_pages";
    case AllocStatus::kSequenceExists: return "sequence_exists";
    case AllocStatus::kUnknownSequence: return "unknown_sequence";
    case AllocStatus::kInvalidArgument: return "invalid_argument";
  }
  return "invalid_argument";
}

AllocStatus PageAllocator::Validate(const PageAllocatorConfig& c) {
  // Chunked local attention: a hybrid pool's groups, in place of a sliding window.
  const bool chunked = c.attention_chunk_size > 0;
  if (c.num_pages <= 0 || c.page_size <= 0 || c.watermark_pages < 0 || c.watermark_pages > c.num_pages ||
      c.sliding_window < 0 || c.full_groups < 1 || c.sliding_groups < 0 || c.attention_chunk_size < 0 ||
      (chunked && (c.sliding_window != 0 || c.sliding_groups == 0)) ||
      (c.sliding_groups > 0 && ((c.sliding_window == 0 && !chunked) || c.num_pages < c.full_groups)) || c.state_blocks < 0 ||
      (c.state_blocks > 0 && (c.sliding_window != 0 || chunked || c.num_pages < c.full_groups)))
    return AllocStatus::kInvalidArgument;
  return AllocStatus::kOk;
}

PageAllocator::PageAllocator(const PageAllocatorConfig& config)
    : config_(config),
      page_(config.page_size),
      window_frees_pages_(config.sliding_window > 0 && config.sliding_groups == 0),
      page_blocks_(config.sliding_groups > 0 || config.state_blocks > 0 ? config.full_groups : 1),
      window_blocks_(config.sliding_groups),
      free_blocks_(config.num_pages) {
  // A pool of B blocks has at most floor(B / m) pages and window pages held or cached at once,
  // m the fewer blocks of the two.
  num_ids_ = config.num_pages / (window_blocks_ > 0 ? std::min(page_blocks_, window_blocks_) : page_blocks_);
  // Nothing sized by the pool here: the page records, the free stack and the hash map grow as
  // pages are first taken (an engine of a data-parallel run may use a few of 176k pages).
}

int32_t PageAllocator::PopFree() {
  if (!free_stack_.empty()) {
    const int32_t page = free_stack_.back();
    free_stack_.pop_back();
    return page;
  }
  // The untouched ids [untouched_, num_ids_) lie at the bottom of the free stack, page
  // untouched_ on top (the caller checked that an id is free).
  const int32_t page = untouched_++;
  // Doubling, capped at the pool's ids (page < num_ids_, pages_.size() == page here).
  if (pages_.size() == pages_.capacity())
    pages_.reserve(std::min<size_t>(std::max<size_t>(64, 2 * pages_.capacity()), static_cast<size_t>(num_ids_)));
  pages_.emplace_back();
  return page;
}

uint64_t PageAllocator::ChainHash(uint64_t parent, const int32_t* tokens, int32_t n) {
  // Two independent multiply-xorshift lanes over 64-bit words (two token ids each), so the
  // multiplications of a page overlap; then a 64-bit finalizer (splitmix64's).
  uint64_t a = parent ^ (0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(n + 1));
  uint64_t b = parent * 0xc2b2ae3d27d4eb4fULL + static_cast<uint64_t>(n);
  const auto word = [tokens](int32_t i) {  // tokens i and i + 1 (one load; byte order is the host's)
    uint64_t w;
    std::memcpy(&w, tokens + i, sizeof w);
    return w;
  };
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    a = (a ^ word(i)) * 0x9fb21c651e98df25ULL;
    b = (b ^ word(i + 2)) * 0xff51afd7ed558ccdULL;
    a ^= a >> 29;
    b ^= b >> 32;
  }
  for (; i < n; ++i) {
    a = (a ^ static_cast<uint32_t>(tokens[i])) * 0x100000001b3ULL;
    a ^= a >> 31;
  }
  uint64_t h = a ^ (b * 0x94d049bb133111ebULL);
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return h;
}

// ---- cached queue (intrusive doubly linked list, head = least recently released) ----

void PageAllocator::QueuePushBack(int32_t page) {
  pages_[page].prev = queue_tail_;
  pages_[page].next = kNoPage;
  if (queue_tail_ != kNoPage) pages_[queue_tail_].next = page;
  else queue_head_ = page;
  queue_tail_ = page;
  ++(pages_[page].window ? cached_windows_ : cached_count_);
}

void PageAllocator::QueueRemove(int32_t page) {
  const int32_t p = pages_[page].prev, n = pages_[page].next;
  if (p != kNoPage) pages_[p].next = n;
  else queue_head_ = n;
  if (n != kNoPage) pages_[n].prev = p;
  else queue_tail_ = p;
  pages_[page].prev = pages_[page].next = kNoPage;
  --(pages_[page].window ? cached_windows_ : cached_count_);
}

std::vector<int32_t> PageAllocator::FreePages() const {
  std::vector<int32_t> out;
  out.reserve(static_cast<size_t>(num_ids_ - untouched_) + free_stack_.size());
  for (int32_t p = num_ids_ - 1; p >= untouched_; --p) out.push_back(p);
  out.insert(out.end(), free_stack_.begin(), free_stack_.end());
  return out;
}

std::vector<int32_t> PageAllocator::CachedPages() const {
  std::vector<int32_t> out;
  out.reserve(static_cast<size_t>(cached_count_ + cached_windows_));
  for (int32_t p = queue_head_; p != kNoPage; p = pages_[p].next) out.push_back(p);
  return out;
}

// ---- page ownership ----

int32_t PageAllocator::Take(bool window) {
  const int32_t blocks = window ? window_blocks_ : page_blocks_;
  int32_t page;
  if (free_blocks_ < blocks && pages_[queue_head_].window != window) {
    while (free_blocks_ < blocks) EvictToFree();  // a hybrid pool's other kind of record first
  }
  if (free_blocks_ >= blocks) {
    // A record's blocks free leave an id free (m · (held + cached) + m <= B, m the fewer blocks).
    page = PopFree();
    free_blocks_ -= blocks;
  } else {  // the least recently released cached record, of this kind: its blocks are reused
    page = queue_head_;
    QueueRemove(page);
    if (pages_[page].in_map) page_by_hash_.Erase(pages_[page].hash);
    pages_[page].hashed = 0;
    pages_[page].in_map = 0;
    ++evictions_;
    // Evictions come in runs (a prefill takes many pages): fetch the next victim's hash-map
    // slot (its record was fetched one eviction ago) and the record of the one after it.
    const int32_t next = queue_head_;
    if (next != kNoPage) {
      if (pages_[next].in_map) page_by_hash_.Prefetch(pages_[next].hash);
      if (pages_[next].next != kNoPage) __builtin_prefetch(&pages_[pages_[next].next]);
    }
  }
  pages_[page].ref_count = 1;
  pages_[page].filled = 0;
  pages_[page].state = PageState::kHeld;
  pages_[page].window = window;
  ++pages_[page].gen;
  if (window) ++window_pages_;
  else ++pages_used_;
  return page;
}

void PageAllocator::EvictToFree() {
  const int32_t page = queue_head_;
  QueueRemove(page);
  if (pages_[page].in_map) page_by_hash_.Erase(pages_[page].hash);
  pages_[page].hashed = 0;
  pages_[page].in_map = 0;
  pages_[page].state = PageState::kFree;
  free_stack_.push_back(page);
  free_blocks_ += pages_[page].window ? window_blocks_ : page_blocks_;
  ++evictions_;
}

void PageAllocator::Hold(int32_t page) {
  if (pages_[page].ref_count++ == 0) {
    QueueRemove(page);
    pages_[page].state = PageState::kHeld;
    if (pages_[page].window) {
      ++window_pages_;
      window_tokens_ += pages_[page].filled;
    } else {
      ++pages_used_;
      tokens_stored_ += pages_[page].filled;
    }
  }
}

void PageAllocator::Release(int32_t page) {
  if (--pages_[page].ref_count > 0) return;
  const bool window = pages_[page].window;
  if (window) {
    --window_pages_;
    window_tokens_ -= pages_[page].filled;
  } else {
    --pages_used_;
    tokens_stored_ -= pages_[page].filled;
  }
  if (pages_[page].hashed) {
    pages_[page].state = PageState::kCached;
    QueuePushBack(page);
  } else {
    pages_[page].state = PageState::kFree;
    free_stack_.push_back(page);
    free_blocks_ += window ? window_blocks_ : page_blocks_;
  }
}

void PageAllocator::RegisterFull(Sequence& seq, int32_t page, const int32_t* page_tokens, int32_t window) {
  const uint64_t h = ChainHash(seq.parent_hash, page_tokens, config_.page_size);
  seq.parent_hash = h;
  seq.partial_tokens.clear();
  // The first page stored under a hash stays the cached one; an identical later page is
  // simply not registered (it returns to the free stack when released).
  if (page_by_hash_.InsertIfAbsent(h, page)) {
    pages_[page].hash = h;
    pages_[page].hashed = 1;
    pages_[page].in_map = 1;
  }
  // A hybrid pool: the page's window page, likewise.
  if (window != kNoPage) {
    const int32_t w = window;
    if (!page_by_hash_.InsertIfAbsent(WindowKey(h), w)) return;
    pages_[w].hash = WindowKey(h);
    pages_[w].hashed = 1;
    pages_[w].in_map = 1;
  }
}

void PageAllocator::Publish(Sequence& seq, const int32_t* tokens) {
  const int32_t ps = config_.page_size;
  const int64_t full = page_.Div(seq.num_tokens);
  size_t r = 0;  // seq.released_private, in ascending page order
  for (int64_t lp = seq.private_page; lp < full; ++lp) {
    const int32_t page = seq.block_table[static_cast<size_t>(lp)];
    pages_[page].hashed = 0;  // as RegisterFull found it
    // A hybrid pool: the page's window page, held, or released by the window and still cached
    // (not evicted since: the same record of the same taking), as it would have stayed registered.
    int32_t window = kNoPage;
    if (window_blocks_ > 0) {
      window = seq.window_table[static_cast<size_t>(lp)];
      for (; r < seq.released_private.size() && seq.released_private[r].page < lp; ++r) {}
      if (window == kNoPage && r < seq.released_private.size() && seq.released_private[r].page == lp) {
        const ReleasedWindow& w = seq.released_private[r];
        if (pages_[w.id].gen == w.gen && pages_[w.id].state == PageState::kCached) window = w.id;
      }
    }
    RegisterFull(seq, page, tokens + lp * ps, window);
  }
}
int64_t PageAllocator::WindowLimit(const Sequence& seq, int64_t num_tokens) const {
  // vLLM SlidingWindowManager: the next query (position num_tokens) sees keys at positions
  // >= num_tokens − W + 1; whole pages before that are never read again. ChunkedLocalAttentionManager:
  // it sees its own chunk's keys, from floor(num_tokens / C) · C.
  const int64_t chunk = config_.attention_chunk_size;
  if (chunk > 0) return std::max<int64_t>(seq.first_live_page, page_.Div(num_tokens / chunk * chunk));
  const int64_t w = config_.sliding_window;
  if (w <= 0) return seq.first_live_page;
  const int64_t keep_from = num_tokens - w + 1;
  return std::max<int64_t>(seq.first_live_page, keep_from > 0 ? page_.Div(keep_from) : 0);
}

int64_t PageAllocator::NextWindowReleaseAt(int32_t slot) const {
  const int64_t ps = config_.page_size;
  const int64_t next = (seqs_[slot].first_live_page + 1) * ps;  // the first position past that page
  const int64_t chunk = config_.attention_chunk_size;
  if (chunk > 0) return (next + chunk - 1) / chunk * chunk;
  return next + config_.sliding_window - 1;
}

void PageAllocator::ReleaseOutsideWindow(Sequence& seq, int64_t limit) {
  // The window pages left behind go, the highest first (vLLM remove_skipped_blocks' order; a
  // hybrid pool's pages, the full-attention blocks, stay); an all-sliding pool's pages are the
  // window's and go themselves, the lowest first.
  if (window_blocks_ > 0) {
    // A private page's window page goes to the cached queue unregistered: kept for Publish.
    const size_t at = seq.released_private.size();
    for (int64_t lp = limit; lp-- > seq.first_live_page;) {
      int32_t& entry = seq.window_table[lp];
      if (lp >= seq.private_page && pages_[entry].hashed && !pages_[entry].in_map)
        seq.released_private.push_back({lp, entry, pages_[entry].gen});
      Release(entry);
      entry = kNoPage;
    }
    std::reverse(seq.released_private.begin() + static_cast<std::ptrdiff_t>(at), seq.released_private.end());
  }
  else if (window_frees_pages_)
    for (int64_t lp = seq.first_live_page; lp < limit; ++lp) {
      int32_t& entry = seq.block_table[lp];
      Release(entry);
      entry = kNoPage;
    }
  seq.first_live_page = limit;
}

// ---- sequences ----

int32_t PageAllocator::NewSlot() {
  if (!free_slots_.empty()) {
    const int32_t s = free_slots_.back();
    free_slots_.pop_back();
    return s;
  }
  seqs_.emplace_back();
  return static_cast<int32_t>(seqs_.size() - 1);
}

int64_t PageAllocator::PagesNeededAt(int32_t slot, int64_t n) const {
  const Sequence& seq = seqs_[slot];
  const int64_t ps = config_.page_size;
  const int64_t in_last = page_.Mod(seq.num_tokens);
  const int64_t room = in_last == 0 ? 0 : ps - in_last;
  const int64_t new_pages = n > room ? page_.Div(n - room + ps - 1) : 0;
  const bool cow = n > 0 && in_last != 0 && pages_[seq.block_table.back()].ref_count > 1;
  return new_pages * (page_blocks_ + window_blocks_) + (cow ? page_blocks_ : 0);
}

bool PageAllocator::WindowReleaseDue(int32_t slot, int64_t num_tokens) const {
  return window_blocks_ > 0 && WindowLimit(seqs_[slot], num_tokens) > seqs_[slot].first_live_page;
}

void PageAllocator::ReleaseWindowAt(int32_t slot, int64_t num_tokens) {
  Sequence& seq = seqs_[slot];
  ReleaseOutsideWindow(seq, WindowLimit(seq, num_tokens));
}

AllocStatus PageAllocator::AppendTo(Sequence& seq, const int32_t* tokens, int64_t n) {
  if (n == 0) return AllocStatus::kOk;
  const int32_t slot = static_cast<int32_t>(&seq - seqs_.data());
  // Pages the window releases first (those this sequence alone holds) count as available.
  const int64_t limit = WindowLimit(seq, seq.num_tokens);
  int64_t released = 0;
  if (limit > seq.first_live_page) {
    const std::vector<int32_t>& table = window_blocks_ > 0 ? seq.window_table : seq.block_table;
    const int64_t blocks = window_blocks_ > 0 ? window_blocks_ : 1;
    for (int64_t lp = seq.first_live_page; lp < limit; ++lp)
      released += pages_[table[lp]].ref_count == 1 ? blocks : 0;
  }
  if (PagesNeededAt(slot, n) > AvailablePages() + released) return AllocStatus::kOutOfPages;
  ReleaseOutsideWindow(seq, limit);
  const int64_t ps = config_.page_size;
  if (tokens == nullptr) {
    seq.hashable = false;
    seq.partial_tokens.clear();
  }
  const bool hashing = seq.hashable && config_.enable_prefix_caching;

  // Copy-on-write of a shared partial last page.
  int64_t pos = page_.Mod(seq.num_tokens);  // slots filled in the last page
  if (pos != 0 && pages_[seq.block_table.back()].ref_count > 1) {
    const int32_t old_page = seq.block_table.back();
    const int32_t page = TakePage();
    const size_t bytes = static_cast<size_t>(pos) * kv_.slot_bytes;
    const size_t offset_new = static_cast<size_t>(page) * ps * kv_.slot_bytes;
    const size_t offset_old = static_cast<size_t>(old_page) * ps * kv_.slot_bytes;
    if (kv_.k != nullptr) std::memcpy(kv_.k + offset_new, kv_.k + offset_old, bytes);
    if (kv_.v != nullptr) std::memcpy(kv_.v + offset_new, kv_.v + offset_old, bytes);
    pages_[page].filled = static_cast<int32_t>(pos);
    tokens_stored_ += pos;
    Release(old_page);
    seq.block_table.back() = page;
    ++cow_copies_;
  }

  int64_t done = 0;
  for (; done < n; pos = 0) {
    if (pos == 0) {
      seq.block_table.push_back(TakePage());
      if (window_blocks_ > 0) seq.window_table.push_back(Take(true));
    }
    const int32_t page = seq.block_table.back();
    const int64_t k = std::min<int64_t>(n - done, ps - pos);
    pages_[page].filled += static_cast<int32_t>(k);
    tokens_stored_ += k;
    if (window_blocks_ > 0) {
      pages_[seq.window_table.back()].filled += static_cast<int32_t>(k);
      window_tokens_ += k;
    }
    seq.num_tokens += k;
    const int32_t window = window_blocks_ > 0 ? seq.window_table.back() : kNoPage;
    if (hashing && static_cast<int64_t>(seq.block_table.size()) > seq.private_page) {
      if (pos + k == ps) {  // a private page: registered when published
        pages_[page].hashed = 1;
        if (window != kNoPage) pages_[window].hashed = 1;
      }
    } else if (hashing) {
      if (pos == 0 && k == ps) {
        RegisterFull(seq, page, tokens + done, window);  // a whole page at once: hash in place
      } else {
        seq.partial_tokens.insert(seq.partial_tokens.end(), tokens + done, tokens + done + k);
        if (pos + k == ps) RegisterFull(seq, page, seq.partial_tokens.data(), window);
      }
    }
    done += k;
  }
  logical_tokens_ += n;
  return AllocStatus::kOk;
}

AllocStatus PageAllocator::Allocate(int64_t seq_id, const int32_t* tokens, int64_t num_tokens,
                                    int64_t max_new_tokens, AllocateResult* result, int64_t private_from) {
  if (num_tokens < 0) return AllocStatus::kInvalidArgument;
  if (ids_.Find(static_cast<uint64_t>(seq_id)) != FlatMap64::kNotFound) return AllocStatus::kSequenceExists;
  const int32_t ps = config_.page_size;

  // Longest run of cached full pages, leaving at least one token to compute.
  std::vector<int32_t>& hits = hit_scratch_;
  hits.clear();
  uint64_t parent = kRootHash;
  const bool lookup = config_.enable_prefix_caching && tokens != nullptr;
  // No other sequence holds a private page's tokens, so none is in the map to be found.
  const int64_t private_page =
      lookup && private_from >= 0 && !window_frees_pages_ ? private_from / ps : kNoPrivatePage;
  std::vector<uint64_t>& hashes = hash_scratch_;  // hybrid: the hit pages' hashes
  hashes.clear();
  if (lookup && num_tokens > 0) {
    const int64_t max_pages = std::min<int64_t>((num_tokens - 1) / ps, private_page);
    for (int64_t lp = 0; lp < max_pages; ++lp) {
      const uint64_t h = ChainHash(parent, tokens + lp * ps, ps);
      const int32_t page = page_by_hash_.Find(h);
      if (page == FlatMap64::kNotFound) break;
      hits.push_back(page);
      if (window_blocks_ > 0) hashes.push_back(h);
      parent = h;
    }
  }
  // A hybrid pool: cut to the end of the last c cached window pages in a row below the full
  // groups' hit, or to the run of them from page 0 ("Hybrid pool").
  std::vector<int32_t>& window_hits = window_scratch_;
  int64_t first_window_page = 0;
  if (window_blocks_ > 0 && !hits.empty()) {
    const int64_t hf = static_cast<int64_t>(hits.size());
    const int64_t chunk = config_.attention_chunk_size;
    int64_t end = -1;
    if (chunk > 0) {
      // Chunked: the pages before the hit's chunk are hit without window pages; then the run of
      // cached window pages from there ("Chunked local attention").
      first_window_page = page_.Div(hf * ps / chunk * chunk);
      end = first_window_page;
      while (end < hf && page_by_hash_.Find(WindowKey(hashes[static_cast<size_t>(end)])) != FlatMap64::kNotFound) ++end;
    } else {
      const int64_t c = (config_.sliding_window - 1 + ps - 1) / ps;
      int64_t run = 0;
      for (int64_t lp = hf - 1; lp >= 0; --lp) {
        if (page_by_hash_.Find(WindowKey(hashes[static_cast<size_t>(lp)])) == FlatMap64::kNotFound) {
          run = 0;
          continue;
        }
        if (++run >= c) {
          end = lp + run;
          break;
        }
      }
      if (end < 0) end = run;  // no run of c: the run from page 0 (maybe none)
      first_window_page = std::max<int64_t>(end - c, 0);
    }
    hits.resize(static_cast<size_t>(end));
    parent = end > 0 ? hashes[static_cast<size_t>(end - 1)] : kRootHash;
    window_hits.clear();
    for (int64_t lp = first_window_page; lp < end; ++lp)
      window_hits.push_back(page_by_hash_.Find(WindowKey(hashes[static_cast<size_t>(lp)])));
  }
  int64_t hit_pages_free = 0, hit_windows_free = 0;  // hits that currently sit in the cached queue
  for (int32_t page : hits) hit_pages_free += pages_[page].ref_count == 0 ? 1 : 0;
  if (window_blocks_ > 0 && !hits.empty())
    for (int32_t w : window_hits) hit_windows_free += pages_[w].ref_count == 0 ? 1 : 0;
  const int64_t cached = static_cast<int64_t>(hits.size()) * ps;
  const int64_t rest = num_tokens - cached;
  const int64_t fresh = max_new_tokens < 0 ? rest : std::min(rest, max_new_tokens);
  const int64_t new_pages = (fresh + ps - 1) / ps;
  // Each new page takes its window page too (an all-sliding pool's hit pages before the window
  // go at the first append instead).
  const int32_t state = config_.state_blocks;
  if (static_cast<int64_t>(AvailablePages()) - page_blocks_ * (hit_pages_free + new_pages) -
          window_blocks_ * (hit_windows_free + new_pages) - state <
      config_.watermark_pages)
    return AllocStatus::kOutOfPages;

  const int32_t slot = NewSlot();
  Sequence& seq = seqs_[slot];
  seq.id = seq_id;
  seq.private_page = private_page;
  seq.live = true;
  seq.hashable = tokens != nullptr;
  seq.num_tokens = cached;
  seq.first_live_page = first_window_page;
  seq.parent_hash = parent;
  seq.block_table.clear();
  seq.window_table.clear();
  seq.released_private.clear();
  seq.partial_tokens.clear();
  for (int32_t page : hits) {
    Hold(page);
    seq.block_table.push_back(page);
  }
  if (window_blocks_ > 0) {
    seq.window_table.assign(static_cast<size_t>(first_window_page), kNoPage);
    if (!hits.empty())
      for (int32_t w : window_hits) {
        Hold(w);
        seq.window_table.push_back(w);
      }
  }
  // Its state blocks, after the hits are held (an eviction must not take a hit page).
  if (state > 0) {
    while (free_blocks_ < state) EvictToFree();
    free_blocks_ -= state;
    state_held_ += state;
  }
  logical_tokens_ += cached;
  ids_.InsertIfAbsent(static_cast<uint64_t>(seq_id), slot);  // checked absent above
  if (lookup) {
    prefix_query_tokens_ += num_tokens;
    prefix_hit_tokens_ += cached;
  }
  AppendTo(seq, tokens == nullptr ? nullptr : tokens + cached, fresh);  // pages were checked above
  if (result != nullptr) {
    result->cached_tokens = cached;
    result->stored_tokens = seq.num_tokens;
  }
  return AllocStatus::kOk;
}

AllocStatus PageAllocator::AppendAt(int32_t slot, const int32_t* tokens, int64_t n) {
  if (n < 0) return AllocStatus::kInvalidArgument;
  return AppendTo(seqs_[slot], tokens, n);
}

AllocStatus PageAllocator::Append(int64_t seq_id, const int32_t* tokens, int64_t n) {
  const int32_t slot = Lookup(seq_id);
  if (slot == FlatMap64::kNotFound) return AllocStatus::kUnknownSequence;
  return AppendAt(slot, tokens, n);
}

AllocStatus PageAllocator::Fork(int64_t parent_id, int64_t child_id) {
  const int32_t parent_slot = Lookup(parent_id);
  if (parent_slot == FlatMap64::kNotFound) return AllocStatus::kUnknownSequence;
  if (Lookup(child_id) != FlatMap64::kNotFound) return AllocStatus::kSequenceExists;
  // Not modelled (see "Hybrid pool" and "State blocks").
  if (window_blocks_ > 0 || config_.state_blocks > 0) return AllocStatus::kInvalidArgument;
  const int32_t slot = NewSlot();  // may move seqs_: index parent after this
  const Sequence& parent = seqs_[parent_slot];
  Sequence& child = seqs_[slot];
  child.id = child_id;
  child.live = true;
  child.hashable = parent.hashable;
  child.num_tokens = parent.num_tokens;
  child.first_live_page = parent.first_live_page;
  child.parent_hash = parent.parent_hash;
  child.private_page = parent.private_page;  // the parent's promise covers its copy
  child.block_table = parent.block_table;
  child.partial_tokens = parent.partial_tokens;
  for (int32_t page : child.block_table)
    if (page != kNoPage) ++pages_[page].ref_count;
  logical_tokens_ += child.num_tokens;
  ids_.InsertIfAbsent(static_cast<uint64_t>(child_id), slot);  // checked absent above
  return AllocStatus::kOk;
}

AllocStatus PageAllocator::FreeAt(int32_t slot, const int32_t* tokens) {
  Sequence& seq = seqs_[slot];
  if (tokens != nullptr && seq.private_page != kNoPrivatePage) Publish(seq, tokens);
  // The page records are scattered over the pool: fetch a few ahead of the releases.
  constexpr size_t kAhead = 8;
  const int32_t* table = seq.block_table.data();
  const size_t count = seq.block_table.size();
  for (size_t i = 0; i < std::min(count, kAhead); ++i)
    if (table[count - 1 - i] != kNoPage) __builtin_prefetch(&pages_[table[count - 1 - i]]);
  // A hybrid pool's window pages first (tail first; see "Hybrid pool").
  for (size_t i = seq.window_table.size(); i-- > static_cast<size_t>(seq.first_live_page);) Release(seq.window_table[i]);
  for (size_t i = count; i-- > 0;) {
    if (i >= kAhead && table[i - kAhead] != kNoPage) __builtin_prefetch(&pages_[table[i - kAhead]]);
    if (table[i] != kNoPage) Release(table[i]);
  }
  free_blocks_ += config_.state_blocks;
  state_held_ -= config_.state_blocks;
  logical_tokens_ -= seq.num_tokens;
  ids_.Erase(static_cast<uint64_t>(seq.id));
  seq.live = false;
  seq.private_page = kNoPrivatePage;
  seq.num_tokens = 0;
  seq.block_table.clear();
  seq.window_table.clear();
  seq.released_private.clear();
  seq.partial_tokens.clear();
  free_slots_.push_back(slot);
  return AllocStatus::kOk;
}

AllocStatus PageAllocator::Free(int64_t seq_id) {
  const int32_t slot = Lookup(seq_id);
  if (slot == FlatMap64::kNotFound) return AllocStatus::kUnknownSequence;
  return FreeAt(slot);
}

const std::vector<int32_t>* PageAllocator::BlockTable(int64_t seq_id) const {
  const int32_t slot = Lookup(seq_id);
  return slot == FlatMap64::kNotFound ? nullptr : &seqs_[slot].block_table;
}

int64_t PageAllocator::NumTokens(int64_t seq_id) const {
  const int32_t slot = Lookup(seq_id);
  return slot == FlatMap64::kNotFound ? -1 : seqs_[slot].num_tokens;
}

std::vector<int64_t> PageAllocator::SequenceIds() const {
  std::vector<int64_t> out;
  for (const Sequence& s : seqs_)
    if (s.live) out.push_back(s.id);
  return out;
}

PageAllocatorStats PageAllocator::Stats() const {
  PageAllocatorStats s;
  s.num_pages = config_.num_pages;
  s.page_size = config_.page_size;
  // In blocks: each group's blocks, each group's copy of a token.
  const int64_t kv_blocks = page_blocks_ * pages_used_ + window_blocks_ * window_pages_;
  s.pages_used = static_cast<int32_t>(kv_blocks + state_held_);
  s.pages_cached = page_blocks_ * cached_count_ + window_blocks_ * cached_windows_;
  s.pages_free = free_blocks_;
  const int64_t tokens_stored = page_blocks_ * tokens_stored_ + window_blocks_ * window_tokens_;
  s.num_sequences = static_cast<int32_t>(ids_.size());
  s.tokens_stored = tokens_stored;
  s.logical_tokens = logical_tokens_;
  const int64_t slots = kv_blocks * config_.page_size;  // token slots: state blocks hold none
  s.internal_fragmentation = slots > 0 ? static_cast<double>(slots - tokens_stored) / slots : 0.0;
  s.occupancy = static_cast<double>(s.pages_used) / config_.num_pages;
  s.prefix_query_tokens = prefix_query_tokens_;
  s.prefix_hit_tokens = prefix_hit_tokens_;
  s.prefix_hit_rate =
      prefix_query_tokens_ > 0 ? static_cast<double>(prefix_hit_tokens_) / prefix_query_tokens_ : 0.0;
  s.cow_copies = cow_copies_;
  s.evictions = evictions_;
  return s;
}

}  // namespace attnscope
