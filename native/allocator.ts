/**
 * Typed wrapper of the native paged KV-cache allocator (native/src/pool/allocator.h has
 * the full semantics: free stack + LRU queue of cached pages, reference counts, copy-on-write
 * fork, prefix caching by chained page hashes, sliding-window release, watermark).
 *
 * One allocator serves both the PagedAttention decode kernel (its block tables are the kernel's
 * int32 `block_table` rows, K/V pools [num_pages, page_size, H_kv, D]) and the serving
 * simulation (native/simulator.ts), which drives the same C++ class.
 *
 * Bad arguments throw TypeError (wrong type) or RangeError (bad value) naming the argument.
 * Expected outcomes — no pages left, an id already in use, an unknown id — come back as an
 * {@link AllocStatus}, and a call that fails changes nothing.
 */
import { INT32_MAX, intArg } from './args';
import { loadAddon } from './binding';

/** Outcome of an allocator call. 'sequence_exists': allocate/fork with the id of a live sequence. */
export type AllocStatus = 'ok' | 'out_of_pages' | 'sequence_exists' | 'unknown_sequence' | 'invalid_argument';

/** Page states as {@link PageAllocator.pages} reports them. */
export const PageState = { free: 0, cached: 1, held: 2 } as const;

export interface PageAllocatorOptions {
  /** Pages in the pool (vLLM num_gpu_blocks), 1 … 2^31 − 1. */
  numPages: number;
  /** Token slots per page (vLLM block_size). */
  pageSize: number;
  /** Pages a new sequence must leave available (free + cached); appends may use them. Default 0. */
  watermarkPages?: number;
  /** Keep only pages holding one of a sequence's last `slidingWindow` tokens; 0 / absent = all. */
  slidingWindow?: number;
  /** Register full pages under chained hashes and share them between prompts. Default false. */
  enablePrefixCaching?: boolean;
}

export interface AllocatorStats {
  numPages: number;
  pageSize: number;
  /** Pages with reference count > 0. */
  pagesUsed: number;
  /** Pages with no holder kept for the prefix cache (evicted LRU when a page is needed). */
  pagesCached: number;
  /** Pages with no holder and no hash. */
  pagesFree: number;
  numSequences: number;
  /** Filled slots of held pages (a shared page counts once). */
  tokensStored: number;
  /** Sum of sequence lengths (a shared token counts once per sequence). */
  logicalTokens: number;
  /** Allocated-but-unfilled slots / allocated slots = (pagesUsed·pageSize − tokensStored) / (pagesUsed·pageSize); 0 when empty. */
  internalFragmentation: number;
  /** pagesUsed / numPages. */
  occupancy: number;
  prefixQueryTokens: number;
  prefixHitTokens: number;
  /** prefixHitTokens / prefixQueryTokens (0 before any lookup). */
  prefixHitRate: number;
  /** Pages copied by copy-on-write. */
  cowCopies: number;
  /** Cached pages whose hash was dropped to reuse the page. */
  evictions: number;
}

/** Every page's bookkeeping, for invariant checks and views. */
export interface PageSnapshot {
  refCounts: Int32Array;
  /** One of {@link PageState} per page. */
  states: Uint8Array;
  /** Slots written per page. */
  filled: Int32Array;
  /** The free stack, bottom to top (the next page taken is the last). */
  freeStack: Int32Array;
  /** Cached pages, least recently released (next evicted) first. */
  cachedQueue: Int32Array;
}

export interface AllocateResult {
  status: AllocStatus;
  /** Prompt tokens found in the prefix cache (a multiple of pageSize). */
  cachedTokens: number;
  /** Tokens the sequence holds after the call. */
  storedTokens: number;
}

/** K/V element arrays the allocator may hold: one element type for K and V. */
export type KvPoolArray = Float32Array | Float64Array | Uint16Array | Int8Array | Uint8Array;

interface RawAllocator {
  allocate(seqId: number, numTokens: number, maxNewTokens: number, tokens: Int32Array | null): [number, number, number];
  append(seqId: number, n: number, tokens: Int32Array | null): number;
  fork(parentId: number, childId: number): number;
  free(seqId: number): number;
  blockTable(seqId: number): Int32Array | null;
  numTokens(seqId: number): number;
  stats(): AllocatorStats;
  pages(): PageSnapshot;
  sequenceIds(): number[];
  attachKvPool(k: KvPoolArray, v: KvPoolArray, slotBytes: number): void;
}

interface AllocatorAddon {
  PageAllocator: new (
    numPages: number,
    pageSize: number,
    watermarkPages: number,
    slidingWindow: number,
    enablePrefixCaching: boolean,
  ) => RawAllocator;
  allocStatusNames: AllocStatus[];
}

function seqIdArg(name: string, value: unknown): number {
  return intArg(name, value, 0, Number.MAX_SAFE_INTEGER);
}

function tokensArg(name: string, tokens: unknown, n: number): Int32Array | null {
  if (tokens === undefined || tokens === null) return null;
  if (!(tokens instanceof Int32Array)) throw new TypeError(`${name} must be an Int32Array of token ids`);
  if (tokens.length < n) throw new RangeError(`${name} has ${tokens.length} token ids, fewer than the ${n} requested`);
  return tokens;
}

/**
 * A paged KV-cache pool. Sequences are named by integer ids (0 … 2^53 − 1) chosen by the caller.
 *
 * @example
 *   const a = new PageAllocator({ numPages: 1024, pageSize: 16 });
 *   a.allocate(0, 100);            // 7 pages
 *   a.append(0, 1);                // decode step: same page until slot 112
 *   a.blockTable(0);               // Int32Array [0, 1, …, 6] — a row of the kernel's block_table
 *   a.free(0);
 */
export class PageAllocator {
  readonly numPages: number;
  readonly pageSize: number;
  private readonly raw: RawAllocator;
  private readonly names: AllocStatus[];

  /** @throws TypeError / RangeError naming the bad option. */
  constructor(options: PageAllocatorOptions) {
    if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
    this.numPages = intArg('numPages', options.numPages, 1, INT32_MAX);
    this.pageSize = intArg('pageSize', options.pageSize, 1, 1 << 20);
    const watermark = intArg('watermarkPages', options.watermarkPages ?? 0, 0, this.numPages);
    const window = intArg('slidingWindow', options.slidingWindow ?? 0, 0, INT32_MAX);
    const caching = options.enablePrefixCaching ?? false;
    if (typeof caching !== 'boolean') throw new TypeError('enablePrefixCaching must be a boolean');
    const addon = loadAddon<AllocatorAddon>();
    this.raw = new addon.PageAllocator(this.numPages, this.pageSize, watermark, window, caching);
    this.names = addon.allocStatusNames;
  }

  /**
   * Creates sequence `seqId` holding `numTokens` tokens. With prefix caching and `tokens`, the
   * longest run of cached full pages of the prompt is shared (at most numTokens − 1 tokens, so
   * one token is always computed) and only the rest is stored — at most `maxNewTokens` of it
   * (a chunked prefill's first chunk; default all). Keeps `watermarkPages` available.
   * @param tokens token ids [numTokens]; without them nothing is looked up or cached for this sequence.
   * @returns status 'sequence_exists' for a live id (nothing changes), 'out_of_pages' when the pool
   *   cannot hold it above the watermark (nothing changes).
   */
  allocate(seqId: number, numTokens: number, options: { tokens?: Int32Array; maxNewTokens?: number } = {}): AllocateResult {
    seqIdArg('seqId', seqId);
    intArg('numTokens', numTokens, 0, INT32_MAX);
    const tokens = tokensArg('tokens', options.tokens, numTokens);
    const maxNew = options.maxNewTokens === undefined ? -1 : intArg('maxNewTokens', options.maxNewTokens, 0, INT32_MAX);
    const [status, cachedTokens, storedTokens] = this.raw.allocate(seqId, numTokens, maxNew, tokens);
    return { status: this.names[status], cachedTokens, storedTokens };
  }

  /**
   * Appends `numTokens` tokens to a live sequence: copies a shared partial last page first
   * (copy-on-write, moving K/V in an attached pool), then takes pages as slots run out.
   * May use the watermark pages. Returns 'out_of_pages' (nothing changes) or 'unknown_sequence'.
   */
  append(seqId: number, numTokens: number, tokens?: Int32Array): AllocStatus {
    seqIdArg('seqId', seqId);
    intArg('numTokens', numTokens, 0, INT32_MAX);
    return this.names[this.raw.append(seqId, numTokens, tokensArg('tokens', tokens, numTokens))];
  }

  /** `childId` shares every page of `parentId` (no copy until one of them appends to a shared partial page). */
  fork(parentId: number, childId: number): AllocStatus {
    return this.names[this.raw.fork(seqIdArg('parentId', parentId), seqIdArg('childId', childId))];
  }

  /** Releases the sequence's pages (hashed ones stay cached until evicted). */
  free(seqId: number): AllocStatus {
    return this.names[this.raw.free(seqIdArg('seqId', seqId))];
  }

  /**
   * The sequence's block table (logical page -> physical page; −1 for pages the sliding window
   * released) as a fresh Int32Array, ready to be a row of the decode kernel's block_table;
   * null for an unknown id.
   */
  blockTable(seqId: number): Int32Array | null {
    return this.raw.blockTable(seqIdArg('seqId', seqId));
  }

  /** Tokens the sequence holds (its context length), or null for an unknown id. */
  numTokens(seqId: number): number | null {
    const n = this.raw.numTokens(seqIdArg('seqId', seqId));
    return n < 0 ? null : n;
  }

  /**
   * Physical slot of token `position` of a sequence: page · pageSize + position mod pageSize,
   * i.e. the row of a [num_pages · page_size, H_kv, D] view of the K/V pool to write it to.
   * @throws RangeError when the sequence is unknown or the position is not stored.
   */
  slotOf(seqId: number, position: number): number {
    const table = this.blockTable(seqId);
    if (table === null) throw new RangeError(`seqId ${seqId} names no live sequence`);
    const n = this.numTokens(seqId) ?? 0;
    if (n === 0) throw new RangeError(`position: sequence ${seqId} holds no tokens`);
    intArg('position', position, 0, n - 1);
    const page = table[Math.floor(position / this.pageSize)];
    if (page < 0) throw new RangeError(`position ${position} of sequence ${seqId} was released by the sliding window`);
    return page * this.pageSize + (position % this.pageSize);
  }

  /**
   * The decode kernel's inputs for a batch of sequences: blockTable int32 [B, maxPagesPerSeq]
   * (row b = the block table of seqIds[b], padded with 0 past its last page — never read) and
   * contextLens int32 [B] (their lengths). maxPagesPerSeq defaults to the longest table.
   * Pages the sliding window released stay −1: such sequences need a windowed decode.
   * @throws RangeError for an unknown id or a table longer than maxPagesPerSeq.
   */
  batchTables(seqIds: number[], maxPagesPerSeq?: number): { blockTable: Int32Array; contextLens: Int32Array; maxPagesPerSeq: number } {
    if (!Array.isArray(seqIds)) throw new TypeError('seqIds must be an array of sequence ids');
    const tables = seqIds.map((id, b) => {
      const t = this.blockTable(id);
      if (t === null) throw new RangeError(`seqIds[${b}] = ${id} names no live sequence`);
      return t;
    });
    const width = maxPagesPerSeq === undefined ? Math.max(1, ...tables.map((t) => t.length)) : intArg('maxPagesPerSeq', maxPagesPerSeq, 1, INT32_MAX);
    const blockTable = new Int32Array(seqIds.length * width);
    const contextLens = new Int32Array(seqIds.length);
    tables.forEach((t, b) => {
      if (t.length > width) throw new RangeError(`sequence ${seqIds[b]} holds ${t.length} pages, more than maxPagesPerSeq = ${width}`);
      blockTable.set(t, b * width);
      contextLens[b] = this.raw.numTokens(seqIds[b]);
    });
    return { blockTable, contextLens, maxPagesPerSeq: width };
  }

  stats(): AllocatorStats {
    return this.raw.stats();
  }

  /** Every page's reference count, state and fill, and the free stack and cached queue. */
  pages(): PageSnapshot {
    return this.raw.pages();
  }

  /** Ids of the live sequences. */
  sequenceIds(): number[] {
    return this.raw.sequenceIds();
  }

  /**
   * Attaches K and V pools [numPages, pageSize, numKvHeads, headDim] that copy-on-write moves
   * (the decode kernel reads the same arrays). The allocator keeps them alive.
   * @throws TypeError when k and v are not the same typed-array type; RangeError when their
   *   length is not numPages · pageSize · numKvHeads · headDim.
   */
  attachKvPool(k: KvPoolArray, v: KvPoolArray, shape: { numKvHeads: number; headDim: number }): void {
    if (!ArrayBuffer.isView(k) || k instanceof DataView) throw new TypeError('k must be a typed array');
    if (!ArrayBuffer.isView(v) || v instanceof DataView) throw new TypeError('v must be a typed array');
    if (k.constructor !== v.constructor) throw new TypeError('k and v must have the same element type');
    const hkv = intArg('numKvHeads', shape.numKvHeads, 1, 1 << 16);
    const d = intArg('headDim', shape.headDim, 1, 1 << 16);
    const elems = this.numPages * this.pageSize * hkv * d;
    if (k.length !== elems) throw new RangeError(`k has ${k.length} elements, expected numPages·pageSize·numKvHeads·headDim = ${elems}`);
    if (v.length !== elems) throw new RangeError(`v has ${v.length} elements, expected numPages·pageSize·numKvHeads·headDim = ${elems}`);
    this.raw.attachKvPool(k, v, hkv * d * k.BYTES_PER_ELEMENT);
  }
}
