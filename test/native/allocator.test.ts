// Page allocator: invariants under random operation sequences (fast-check, model-based), and
// the behaviours each a wrong allocator would get wrong (copy-on-write, prefix-cache hits,
// LRU eviction, sliding window, watermark, stale K/V after reuse, argument errors).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { PageAllocator, PageState, type AllocStatus, type PageAllocatorOptions } from '../../native/allocator';

/** K value the test writes for a token: a rolling hash of the token ids up to it (exact in fp32). */
function prefixValue(prev: number, token: number): number {
  return (prev * 31 + token + 1) % 16777213;
}
const vOf = (k: number): number => (k + 7) % 16777213;

interface ModelSeq {
  tokens: number[];
  /** Length before the last append: the sliding window released pages wholly before base − W + 1. */
  base: number;
  /** Expected K per position (V = vOf(K)). */
  k: number[];
}

/** A pool with H_kv = 1, D = 1: one float per slot, so K/V reads are easy to check. */
class Harness {
  readonly a: PageAllocator;
  readonly k: Float32Array;
  readonly v: Float32Array;
  readonly seqs = new Map<number, ModelSeq>();
  readonly window: number;

  constructor(readonly opts: PageAllocatorOptions) {
    this.a = new PageAllocator(opts);
    this.k = new Float32Array(opts.numPages * opts.pageSize);
    this.v = new Float32Array(opts.numPages * opts.pageSize);
    this.a.attachKvPool(this.k, this.v, { numKvHeads: 1, headDim: 1 });
    this.window = opts.slidingWindow ?? 0;
  }

  /** Writes K/V of positions [from, seq length) the way an engine would after computing them. */
  private write(id: number, from: number): void {
    const s = this.seqs.get(id)!;
    for (let p = from; p < s.tokens.length; p++) {
      s.k[p] = prefixValue(p === 0 ? 0 : s.k[p - 1], s.tokens[p]);
      if (this.live(s, p)) {
        const slot = this.a.slotOf(id, p);
        this.k[slot] = s.k[p];
        this.v[slot] = vOf(s.k[p]);
      }
    }
  }

  /** False when position p's page was released by the sliding window. */
  live(s: ModelSeq, p: number): boolean {
    const ps = this.opts.pageSize;
    return this.window === 0 || (Math.floor(p / ps) + 1) * ps > s.base - this.window + 1;
  }

  allocate(id: number, tokens: number[], withIds: boolean, maxNew?: number): AllocStatus {
    const before = this.a.pages();
    const r = this.a.allocate(id, tokens.length, {
      tokens: withIds ? Int32Array.from(tokens) : undefined,
      maxNewTokens: maxNew,
    });
    if (r.status !== 'ok') {
      assert.deepEqual(this.a.pages(), before, `a failed allocate (${r.status}) must change nothing`);
      return r.status;
    }
    const stored = tokens.slice(0, r.storedTokens);
    assert.equal(r.cachedTokens % this.opts.pageSize, 0);
    // Allocate appends the uncached tokens after the hit, so the window counts from the hit.
    this.seqs.set(id, { tokens: stored, base: r.storedTokens > r.cachedTokens ? r.cachedTokens : 0, k: [] });
    // Cached positions already hold K/V; compute the model's values for them without writing.
    const s = this.seqs.get(id)!;
    for (let p = 0; p < r.cachedTokens; p++) s.k[p] = prefixValue(p === 0 ? 0 : s.k[p - 1], s.tokens[p]);
    this.write(id, r.cachedTokens);
    return r.status;
  }

  append(id: number, tokens: number[], withIds: boolean): AllocStatus {
    const before = this.a.pages();
    const status = this.a.append(id, tokens.length, withIds ? Int32Array.from(tokens) : undefined);
    if (status !== 'ok') {
      assert.deepEqual(this.a.pages(), before, `a failed append (${status}) must change nothing`);
      return status;
    }
    const s = this.seqs.get(id)!;
    const from = s.tokens.length;
    if (tokens.length > 0) s.base = from;
    s.tokens.push(...tokens);
    this.write(id, from);
    return status;
  }

  fork(parent: number, child: number): AllocStatus {
    const status = this.a.fork(parent, child);
    if (status === 'ok') {
      const s = this.seqs.get(parent)!;
      this.seqs.set(child, { tokens: [...s.tokens], base: s.base, k: [...s.k] });
    }
    return status;
  }

  free(id: number): AllocStatus {
    const status = this.a.free(id);
    if (status === 'ok') this.seqs.delete(id);
    return status;
  }

  /** Every invariant the allocator promises, checked from the outside. */
  check(): void {
    const { refCounts, states, filled, freeStack, cachedQueue } = this.a.pages();
    const n = this.opts.numPages;
    const ps = this.opts.pageSize;
    const holders = new Int32Array(n);
    for (const [id, s] of this.seqs) {
      const table = this.a.blockTable(id);
      assert.ok(table, `live sequence ${id} has a block table`);
      assert.equal(this.a.numTokens(id), s.tokens.length, `sequence ${id} length`);
      assert.equal(table.length, Math.ceil(s.tokens.length / ps), `sequence ${id} holds ceil(len / page_size) pages`);
      for (let lp = 0; lp < table.length; lp++) {
        const page: number = table[lp];
        const releasable = !this.live(s, lp * ps);
        if (releasable) assert.equal(page, -1, `page ${lp} of ${id} lies outside the window and is released`);
        else {
          assert.ok(page >= 0 && page < n, `sequence ${id} logical page ${lp} maps to a real page`);
          holders[page]++;
        }
      }
      // Every live token reads back its own K/V.
      for (let p = 0; p < s.tokens.length; p++) {
        if (!this.live(s, p)) continue;
        const slot = this.a.slotOf(id, p);
        assert.equal(this.k[slot], s.k[p], `K of sequence ${id} position ${p}`);
        assert.equal(this.v[slot], vOf(s.k[p]), `V of sequence ${id} position ${p}`);
      }
    }
    const inFree = new Uint8Array(n);
    for (const p of freeStack) inFree[p]++;
    for (const p of cachedQueue) inFree[p]++;
    let used = 0;
    let tokens = 0;
    for (let p = 0; p < n; p++) {
      assert.equal(refCounts[p], holders[p], `page ${p}: reference count equals holders`);
      const held = holders[p] > 0;
      assert.equal(inFree[p], held ? 0 : 1, `page ${p} is ${held ? 'held and must be in no free queue' : 'unheld and must be in exactly one free queue'}`);
      assert.equal(states[p], held ? PageState.held : cachedQueue.includes(p) ? PageState.cached : PageState.free);
      if (held) {
        used++;
        tokens += filled[p];
      }
    }
    const st = this.a.stats();
    assert.equal(st.pagesUsed, used);
    assert.equal(st.pagesCached, cachedQueue.length);
    assert.equal(st.pagesFree, freeStack.length);
    assert.equal(st.pagesUsed + st.pagesCached + st.pagesFree, n);
    assert.equal(st.tokensStored, tokens);
    assert.equal(st.numSequences, this.seqs.size);
    const slots = used * ps;
    assert.equal(st.internalFragmentation, slots === 0 ? 0 : (slots - tokens) / slots);
    assert.equal(st.occupancy, used / n);
  }
}

const tokenList = (max: number) => fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: max });
/** A prompt: the first `shared` tokens of one of 3 fixed streams (so prompts share prefixes), then a random tail. */
const prompt = fc
  .tuple(fc.nat(2), fc.nat(12), tokenList(6))
  .map(([stream, shared, tail]) => [...Array.from({ length: shared }, (_, i) => stream * 100 + i), ...tail]);
const seqId = fc.nat(3);

const command = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('allocate' as const), id: seqId, tokens: prompt, ids: fc.boolean(), chunk: fc.option(fc.nat(8), { nil: undefined }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('append' as const), id: seqId, tokens: tokenList(5), ids: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('fork' as const), id: seqId, child: seqId }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('free' as const), id: seqId }) },
);

const config = fc.record({
  numPages: fc.integer({ min: 1, max: 16 }),
  pageSize: fc.integer({ min: 1, max: 4 }),
  watermarkPages: fc.integer({ min: 0, max: 2 }),
  slidingWindow: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 9 })),
  enablePrefixCaching: fc.boolean(),
});

test('invariants hold under random allocate / append / fork / free sequences, and all frees leave no leak', () => {
  // How many runs reached each mechanism: the property must exercise them to mean anything.
  const reached = { cow: 0, eviction: 0, hit: 0, window: 0 };
  fc.assert(
    fc.property(config, fc.array(command, { minLength: 10, maxLength: 60, size: 'max' }), (cfg, cmds) => {
      const watermarkPages = Math.min(cfg.watermarkPages, cfg.numPages);
      const h = new Harness({ ...cfg, watermarkPages });
      for (const c of cmds) {
        const live = h.seqs.has(c.id);
        if (c.op === 'allocate') {
          const status = h.allocate(c.id, c.tokens, c.ids, c.chunk);
          if (live) assert.equal(status, 'sequence_exists', 'allocating a live id is an error');
        } else if (c.op === 'append') {
          const status = h.append(c.id, c.tokens, c.ids);
          if (!live) assert.equal(status, 'unknown_sequence');
        } else if (c.op === 'fork') {
          const status = h.fork(c.id, c.child);
          const childLive = c.child === c.id || (status === 'ok' ? false : h.seqs.has(c.child));
          assert.equal(status, !live ? 'unknown_sequence' : childLive ? 'sequence_exists' : 'ok');
        } else {
          const status = h.free(c.id);
          assert.equal(status, live ? 'ok' : 'unknown_sequence');
        }
        h.check();
      }
      const seen = h.a.stats();
      reached.cow += seen.cowCopies > 0 ? 1 : 0;
      reached.eviction += seen.evictions > 0 ? 1 : 0;
      reached.hit += seen.prefixHitTokens > 0 ? 1 : 0;
      reached.window += [...h.seqs.keys()].some((id) => h.a.blockTable(id)!.includes(-1)) ? 1 : 0;
      for (const id of [...h.seqs.keys()]) h.free(id);
      h.check();
      const st = h.a.stats();
      assert.equal(st.pagesUsed, 0, 'no page leaked after every sequence is freed');
      assert.equal(st.pagesFree + st.pagesCached, cfg.numPages);
      assert.equal(st.tokensStored, 0);
    }),
    { numRuns: 150 },
  );
  for (const [mechanism, runs] of Object.entries(reached)) assert.ok(runs > 0, `no random run reached ${mechanism}`);
});

test('a double allocate of a live sequence id is an error status and leaks nothing', () => {
  const a = new PageAllocator({ numPages: 8, pageSize: 4 });
  assert.equal(a.allocate(7, 10).status, 'ok');
  const before = a.stats();
  assert.equal(a.allocate(7, 10).status, 'sequence_exists');
  assert.deepEqual(a.stats(), before);
  assert.deepEqual([...a.blockTable(7)!], [0, 1, 2]);
  assert.equal(a.free(7), 'ok');
  assert.equal(a.free(7), 'unknown_sequence');
  assert.equal(a.stats().pagesFree, 8);
});

test('stats: occupancy and internal fragmentation by hand', () => {
  // 10 pages of 4 slots; sequences of 5 and 2 tokens hold 2 + 1 = 3 pages = 12 slots, 7 filled.
  // occupancy = 3 / 10; internal fragmentation = (12 − 7) / 12.
  const a = new PageAllocator({ numPages: 10, pageSize: 4 });
  a.allocate(1, 5);
  a.allocate(2, 2);
  const s = a.stats();
  assert.equal(s.pagesUsed, 3);
  assert.equal(s.pagesFree, 7);
  assert.equal(s.tokensStored, 7);
  assert.equal(s.occupancy, 0.3);
  assert.equal(s.internalFragmentation, 5 / 12);
});

test('fork shares pages; the first append to the shared partial page copies its K/V (copy-on-write)', () => {
  const h = new Harness({ numPages: 8, pageSize: 4 });
  h.allocate(1, [5, 6, 7, 8, 9, 10], true); // pages 0 (full) and 1 (2 of 4 slots)
  assert.equal(h.fork(1, 2), 'ok');
  assert.deepEqual([...h.a.pages().refCounts.slice(0, 2)], [2, 2]);
  h.append(2, [11], true); // the child writes: its partial page is copied to page 2
  assert.deepEqual([...h.a.blockTable(1)!], [0, 1]);
  assert.deepEqual([...h.a.blockTable(2)!], [0, 2]);
  assert.equal(h.a.stats().cowCopies, 1);
  // The copy really moved K/V: slots 8, 9 of page 2 hold positions 4, 5 of the parent.
  assert.equal(h.k[2 * 4 + 0], h.seqs.get(1)!.k[4]);
  assert.equal(h.k[2 * 4 + 1], h.seqs.get(1)!.k[5]);
  h.append(1, [12], true); // the parent is now the only holder of page 1: no copy
  assert.equal(h.a.stats().cowCopies, 1);
  h.check();
});

test('a prefix-cache hit shares the cached pages and returns identical K/V', () => {
  const h = new Harness({ numPages: 6, pageSize: 4, enablePrefixCaching: true });
  const prompt = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  h.allocate(1, prompt, true);
  const table1 = [...h.a.blockTable(1)!];
  const kv1 = prompt.slice(0, 8).map((_, p) => [h.k[h.a.slotOf(1, p)], h.v[h.a.slotOf(1, p)]]);
  h.free(1);
  assert.equal(h.a.stats().pagesCached, 2, 'the two full pages stay cached');
  // Same first 8 tokens, different tail: the 2 full pages hit.
  const r = h.a.allocate(2, 9, { tokens: Int32Array.from([1, 2, 3, 4, 5, 6, 7, 8, 42]) });
  assert.equal(r.cachedTokens, 8);
  assert.deepEqual([...h.a.blockTable(2)!].slice(0, 2), table1.slice(0, 2));
  for (let p = 0; p < 8; p++) assert.deepEqual([h.k[h.a.slotOf(2, p)], h.v[h.a.slotOf(2, p)]], kv1[p]);
  assert.equal(h.a.stats().prefixHitRate, 8 / (10 + 9));
  // A different first page breaks the chain: no hit even though the second page's tokens match.
  const r3 = h.a.allocate(3, 9, { tokens: Int32Array.from([0, 2, 3, 4, 5, 6, 7, 8, 1]) });
  assert.equal(r3.cachedTokens, 0);
});

test('a whole prompt of full pages hits all but its last page (one token is always computed)', () => {
  const a = new PageAllocator({ numPages: 6, pageSize: 4, enablePrefixCaching: true });
  const t = Int32Array.from([1, 2, 3, 4, 5, 6, 7, 8]);
  a.allocate(1, 8, { tokens: t });
  a.free(1);
  assert.equal(a.allocate(2, 8, { tokens: t }).cachedTokens, 4);
});

test('cached pages are evicted least recently released first, and only when no free page is left', () => {
  // 4 pages of 2 slots. Sequence 1 caches pages 0, 1; sequence 2 caches pages 2, 3 later.
  const a = new PageAllocator({ numPages: 4, pageSize: 2, enablePrefixCaching: true });
  a.allocate(1, 4, { tokens: Int32Array.from([1, 1, 1, 1]) });
  a.free(1);
  a.allocate(2, 4, { tokens: Int32Array.from([2, 2, 2, 2]) });
  assert.deepEqual([...a.blockTable(2)!], [2, 3], 'free pages are used before any cached page');
  a.free(2);
  // Freed tail first: queue = 1, 0 (seq 1), then 3, 2 (seq 2).
  assert.deepEqual([...a.pages().cachedQueue], [1, 0, 3, 2]);
  a.allocate(3, 2);
  assert.deepEqual([...a.blockTable(3)!], [1], 'the least recently released cached page is evicted');
  assert.equal(a.stats().evictions, 1);
  assert.deepEqual([...a.pages().cachedQueue], [0, 3, 2]);
  // Sequence 1's first page still hits; its second (evicted) no longer does: 2 tokens, not 4.
  assert.equal(a.allocate(4, 5, { tokens: Int32Array.from([1, 1, 1, 1, 1]) }).cachedTokens, 2);
});

test('a freed sequence\'s K/V is never read by the next owner of its pages', () => {
  const h = new Harness({ numPages: 2, pageSize: 4 });
  h.allocate(1, [9, 9, 9, 9, 9, 9, 9], true);
  h.free(1);
  h.allocate(2, [1, 2, 3], true);
  const table = h.a.blockTable(2)!;
  // The reused page reports only the new owner's slots as filled: a decode kernel bounded by
  // context_lens (= 3) and page fill never reaches the stale 4th slot.
  assert.equal(h.a.pages().filled[table[0]], 3);
  assert.equal(h.a.numTokens(2), 3);
  h.check();
});

test('the sliding window releases pages that fall wholly outside it', () => {
  // Window 4, pages of 2. After 9 tokens the next query (position 9) sees keys 6..9, so at the
  // next append pages 0 ([0,1]), 1 ([2,3]) and 2 ([4,5]) are released — not before, since the
  // 9 tokens just stored still have their K/V to be written.
  const a = new PageAllocator({ numPages: 5, pageSize: 2, slidingWindow: 4 });
  a.allocate(1, 9);
  assert.deepEqual([...a.blockTable(1)!], [0, 1, 2, 3, 4]);
  assert.equal(a.stats().pagesFree, 0);
  // The pool is full, yet the append succeeds: the pages it releases count as available.
  assert.equal(a.append(1, 2), 'ok'); // token 10 fills page 4, token 11 takes page 2
  assert.deepEqual([...a.blockTable(1)!], [-1, -1, -1, 3, 4, 2]);
  assert.equal(a.stats().pagesUsed, 3);
});

test('the watermark keeps pages for running sequences: new sequences stop at it, appends may use it', () => {
  const a = new PageAllocator({ numPages: 4, pageSize: 2, watermarkPages: 1 });
  assert.equal(a.allocate(1, 6).status, 'ok'); // 3 pages, 1 left = the watermark
  assert.equal(a.allocate(2, 1).status, 'out_of_pages');
  assert.equal(a.append(1, 2), 'ok'); // the running sequence takes the last page
  assert.equal(a.append(1, 1), 'out_of_pages');
});

test('chunked allocation stores at most maxNewTokens of the prompt', () => {
  const a = new PageAllocator({ numPages: 8, pageSize: 4 });
  const r = a.allocate(1, 10, { maxNewTokens: 3 });
  assert.deepEqual(r, { status: 'ok', cachedTokens: 0, storedTokens: 3 });
  assert.equal(a.append(1, 7), 'ok');
  assert.equal(a.numTokens(1), 10);
});

test('batchTables gives the decode kernel its block table [B, max_pages] and context lengths', () => {
  const a = new PageAllocator({ numPages: 8, pageSize: 4 });
  a.allocate(10, 9); // pages 0, 1, 2
  a.allocate(11, 2); // page 3
  a.free(10);
  a.allocate(12, 5); // reuses pages 0, 1: free releases tail first, so page 0 ends on top of the free stack
  const { blockTable, contextLens, maxPagesPerSeq } = a.batchTables([11, 12]);
  assert.equal(maxPagesPerSeq, 2);
  assert.deepEqual([...blockTable], [3, 0, 0, 1]);
  assert.deepEqual([...contextLens], [2, 5]);
  assert.throws(() => a.batchTables([10]), { name: 'RangeError', message: /seqIds\[0\] = 10/ });
  assert.throws(() => a.batchTables([12], 1), { name: 'RangeError', message: /maxPagesPerSeq = 1/ });
});

test('pages are handed out as from a stack holding every id, top 0: returned pages first, then the lowest never taken', () => {
  // 8 pages of 4 slots; the free stack starts [7, 6, ..., 0] (bottom to top). By hand:
  // seq 1, 9 tokens: pages 0, 1, 2; seq 2, 6 tokens: pages 3, 4. Stack [7, 6, 5].
  // free(1) releases its tail first: pushes 2, 1, 0 → [7, 6, 5, 2, 1, 0].
  // seq 3, 13 tokens (4 pages): pops 0, 1, 2, then 5 → stack [7, 6]. (A pool that took an id
  // never used before a returned one would give 5, 6, 7, 0.)
  const a = new PageAllocator({ numPages: 8, pageSize: 4 });
  assert.deepEqual([...a.pages().freeStack], [7, 6, 5, 4, 3, 2, 1, 0]);
  a.allocate(1, 9);
  a.allocate(2, 6);
  assert.deepEqual([...a.blockTable(1)!, ...a.blockTable(2)!], [0, 1, 2, 3, 4]);
  assert.deepEqual([...a.pages().freeStack], [7, 6, 5]);
  a.free(1);
  assert.deepEqual([...a.pages().freeStack], [7, 6, 5, 2, 1, 0]);
  a.allocate(3, 13);
  assert.deepEqual([...a.blockTable(3)!], [0, 1, 2, 5]);
  const { freeStack, states, refCounts } = a.pages();
  assert.deepEqual([...freeStack], [7, 6]);
  // Pages 6 and 7, never taken, read as free with no holder.
  assert.deepEqual([...states.slice(5)], [PageState.held, PageState.free, PageState.free]);
  assert.deepEqual([...refCounts.slice(5)], [1, 0, 0]);
});

test('a pool\'s memory follows the pages it used, not its size (an engine of a data-parallel run)', () => {
  // 4,194,304 pages with prefix caching: a table sized by the pool would be 32 B a page record
  // (128 MiB), 4 B a free-stack entry (16 MiB) and the hash map's 16 B slots at load <= 3/4
  // (8,388,608 slots, 128 MiB): 272 MiB written at construction. One 100-token sequence uses 7
  // pages. The RSS may move by a few MiB for other reasons; 32 MiB separates the two.
  const rss = process.memoryUsage.rss();
  const a = new PageAllocator({ numPages: 4 * 1024 * 1024, pageSize: 16, enablePrefixCaching: true });
  assert.equal(a.allocate(1, 100, { tokens: new Int32Array(100).fill(3) }).status, 'ok');
  assert.deepEqual([...a.blockTable(1)!], [0, 1, 2, 3, 4, 5, 6]);
  const grownMiB = (process.memoryUsage.rss() - rss) / 2 ** 20;
  assert.ok(grownMiB < 32, `RSS grew ${grownMiB.toFixed(1)} MiB`);
  assert.equal(a.stats().pagesFree, 4 * 1024 * 1024 - 7);
});

test('bad arguments throw TypeError or RangeError naming the argument', () => {
  assert.throws(() => new PageAllocator({ numPages: 0, pageSize: 16 }), { name: 'RangeError', message: /numPages/ });
  assert.throws(() => new PageAllocator({ numPages: 4, pageSize: 1.5 }), { name: 'TypeError', message: /pageSize/ });
  assert.throws(() => new PageAllocator({ numPages: 4, pageSize: 4, watermarkPages: 5 }), { name: 'RangeError', message: /watermarkPages/ });
  const a = new PageAllocator({ numPages: 4, pageSize: 4 });
  assert.throws(() => a.allocate(-1, 3), { name: 'RangeError', message: /seqId/ });
  assert.throws(() => a.allocate(1, 3, { tokens: [1, 2, 3] as unknown as Int32Array }), { name: 'TypeError', message: /tokens/ });
  assert.throws(() => a.allocate(1, 3, { tokens: new Int32Array(2) }), { name: 'RangeError', message: /tokens/ });
  assert.throws(() => a.append(1, Number.NaN), { name: 'TypeError', message: /numTokens/ });
  assert.throws(() => a.fork(1, 'x' as unknown as number), { name: 'TypeError', message: /childId/ });
  assert.throws(() => a.attachKvPool(new Float32Array(3), new Float32Array(3), { numKvHeads: 1, headDim: 1 }), {
    name: 'RangeError',
    message: /k has 3 elements/,
  });
  assert.throws(() => a.attachKvPool(new Float32Array(16), new Uint16Array(16), { numKvHeads: 1, headDim: 1 }), {
    name: 'TypeError',
    message: /same element type/,
  });
});
