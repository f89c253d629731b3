/**
 * Typed wrapper of the native paged KV-cache allocator (native/include/attnscope/allocator.h has
 * the full semantics: free stack + LRU queue of cached pages, reference counts, copy-on-write
 * fork, prefix caching by chained page hashes, sliding-window release, watermark).
 *
 * One allocator serves both the PagedAttention decode kernel (its block tables are the kernel's
 * int32 `block_table` rows, K/V pools [num_pages, page_size, H_kv, D]) and the serving
 * simulation (runner/simulate), which drives the same C++ class.
 *
 * Bad arguments throw TypeError (wrong type) or RangeError (bad value) naming the argument.
 * Expected outcomes — no pages left, an id already in use, an unknown id — come back as an
 * {@link AllocStatus}, and a call that fails changes nothing.
 */
import { Worker } from 'node:worker_threads';
import { addonPath, loadAddon } from './binding';

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

const INT32_MAX = 2 ** 31 - 1;

/** Checks an integer argument; TypeError when not an integer, RangeError outside [min, max]. */
function intArg(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new TypeError(`${name} must be an integer, got ${typeof value === 'number' ? value : typeof value}`);
  }
  if (value < min || value > max) throw new RangeError(`${name} must be in [${min}, ${max}], got ${value}`);
  return value;
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

/** Memory layout the serving simulator manages. */
export type SimLayout = 'paged' | 'contiguous_max_model_len' | 'contiguous_prompt_plus_output';
const SIM_LAYOUTS: SimLayout[] = ['paged', 'contiguous_max_model_len', 'contiguous_prompt_plus_output'];

export interface ServingSimConfig {
  layout: SimLayout;
  /** The pool (every layout gets numPages · pageSize token slots). */
  numPages: number;
  pageSize: number;
  /** Paged only. */
  watermarkPages: number;
  slidingWindow: number;
  enablePrefixCaching: boolean;
  maxNumSeqs: number;
  maxNumBatchedTokens: number;
  maxModelLen: number;
  /** Step time = perStepS + perTokenS · tokens scheduled + perKvTokenS · KV tokens attended (seconds). */
  perStepS: number;
  perTokenS: number;
  perKvTokenS: number;
  /** Samples kept (downsampled by doubling the stride), >= 2. */
  maxSamples: number;
  /**
   * false: every step serves the running requests one by one, as vLLM's scheduler loop does.
   * Default true: decoding requests between events coast on a clock (native/src/simulator.h),
   * with the same results, much faster. For verification.
   */
  coast?: boolean;
}

/** Requests as parallel arrays, sorted by arrival. prefixStream −1: no shared prefix. */
export interface ServingSimRequests {
  arrivalS: Float64Array;
  promptLen: Int32Array;
  outputLen: Int32Array;
  prefixStream: Float64Array;
  prefixLen: Int32Array;
}

/** Integrals (`*Seconds`) are value · simulated seconds, summed over steps. */
export interface ServingSimTotals {
  requests: number;
  completed: number;
  rejected: number;
  /** Admitted requests that memory refused at least once before. */
  delayed: number;
  preemptions: number;
  steps: number;
  generatedTokens: number;
  /** End of the step in which the last request completed. */
  simulatedSeconds: number;
  usedPageSeconds: number;
  reservedSlotSeconds: number;
  tokenSlotSeconds: number;
  /** Contiguous: free slots while the queue head was refused though enough slots were free (split into holes). */
  externalFreeSlotSeconds: number;
  runningSeconds: number;
  peakPagesUsed: number;
  peakReservedSlots: number;
  peakRunning: number;
  prefixQueryTokens: number;
  prefixHitTokens: number;
  done: boolean;
}

/** Fields of one packed sample in {@link ServingSimulator.samples}. */
export const SIM_SAMPLE_FIELDS = [
  't', 'pagesUsed', 'pagesCached', 'pagesFree', 'tokens', 'reservedSlots', 'running', 'waiting', 'preempted', 'prefixHitRate',
] as const;

interface RawSimulator {
  run(maxSteps: number): boolean;
  samples(): Float64Array;
  totals(): ServingSimTotals;
}

/**
 * Checks a simulator's config and requests as the addon needs them.
 * @returns the layout's index in the addon. @throws TypeError / RangeError naming the bad field.
 */
function checkSimulation(config: ServingSimConfig, requests: ServingSimRequests): number {
  const layout = SIM_LAYOUTS.indexOf(config.layout);
  if (layout < 0) throw new RangeError(`layout must be one of ${SIM_LAYOUTS.join(', ')}`);
  intArg('numPages', config.numPages, 1, INT32_MAX);
  intArg('pageSize', config.pageSize, 1, 1 << 20);
  intArg('watermarkPages', config.watermarkPages, 0, config.numPages);
  intArg('slidingWindow', config.slidingWindow, 0, INT32_MAX);
  intArg('maxNumSeqs', config.maxNumSeqs, 1, INT32_MAX);
  intArg('maxNumBatchedTokens', config.maxNumBatchedTokens, 1, INT32_MAX);
  intArg('maxModelLen', config.maxModelLen, 1, INT32_MAX);
  intArg('maxSamples', config.maxSamples, 2, INT32_MAX);
  if (config.coast !== undefined && typeof config.coast !== 'boolean') throw new TypeError('coast must be a boolean');
  for (const key of ['perStepS', 'perTokenS', 'perKvTokenS'] as const) {
    const v = config[key];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new TypeError(`${key} must be a finite number`);
    if (v < 0) throw new RangeError(`${key} must be >= 0, got ${v}`);
  }
  const n = requests.arrivalS.length;
  const arrays: Array<[keyof ServingSimRequests, new (n: number) => ArrayBufferView]> = [
    ['arrivalS', Float64Array], ['promptLen', Int32Array], ['outputLen', Int32Array], ['prefixStream', Float64Array], ['prefixLen', Int32Array],
  ];
  for (const [key, type] of arrays) {
    if (!(requests[key] instanceof type)) throw new TypeError(`requests.${key} must be a ${type.name}`);
    if (requests[key].length !== n) throw new RangeError(`requests.${key} has ${requests[key].length} entries, arrivalS ${n}`);
  }
  // Synthetic token ids give each stream a distinct code below 2^31 (native/src/simulator.cc).
  if (n >= 2 ** 30) throw new RangeError(`requests: at most 2^30 − 1 requests, got ${n}`);
  for (let i = 0; i < n; i++) {
    const s = requests.prefixStream[i];
    if (!Number.isInteger(s) || s < -1 || s >= 2 ** 30) throw new RangeError(`requests.prefixStream[${i}] must be −1 or an integer in [0, 2^30), got ${s}`);
  }
  return layout;
}

/**
 * The serving simulator of native/src/simulator.h: continuous batching over the same C++
 * PageAllocator (or a first-fit contiguous arena, for the baselines), the whole step loop in
 * C++. Run it in slices with {@link run} to report progress or stop early.
 */
export class ServingSimulator {
  private readonly raw: RawSimulator;

  /** @throws TypeError / RangeError naming the bad config field or array. */
  constructor(config: ServingSimConfig, requests: ServingSimRequests) {
    const layout = checkSimulation(config, requests);
    const addon = loadAddon<{ ServingSimulator: new (...args: unknown[]) => RawSimulator }>();
    this.raw = new addon.ServingSimulator(
      { ...config, layout },
      requests.arrivalS, requests.promptLen, requests.outputLen, requests.prefixStream, requests.prefixLen,
    );
  }

  /** Runs up to maxSteps steps; true once every request completed or was rejected. */
  run(maxSteps: number): boolean {
    return this.raw.run(intArg('maxSteps', maxSteps, 1, Number.MAX_SAFE_INTEGER));
  }

  /** Samples so far, packed: SIM_SAMPLE_FIELDS.length numbers per sample. */
  samples(): Float64Array {
    return this.raw.samples();
  }

  totals(): ServingSimTotals {
    return this.raw.totals();
  }
}

/** Steps per slice on the worker: a contiguous step costs ~0.3–30 µs, so a stop is seen within milliseconds. */
const WORKER_SLICE_STEPS = 1024;

/**
 * The simulation worker, plain JavaScript (it runs without the TypeScript loader). workerData:
 * { addonPath }. Each message is a job { id, configs (layout as the addon's index), requests,
 * stop: SharedArrayBuffer (Int32 0 = run, 1 = stop), sliceSteps }; it runs the configs one after
 * the other, checking `stop` between slices, and answers { id, totals } (null when stopped) or
 * { id, error }. Jobs run in the order they came.
 */
const SIM_WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { ServingSimulator } = require(workerData.addonPath);
function runJob({ configs, requests: r, stop: stopBuffer, sliceSteps }) {
  const stop = new Int32Array(stopBuffer);
  const totals = [];
  for (const config of configs) {
    if (Atomics.load(stop, 0) !== 0) return null;
    const sim = new ServingSimulator(config, r.arrivalS, r.promptLen, r.outputLen, r.prefixStream, r.prefixLen);
    while (!sim.run(sliceSteps)) if (Atomics.load(stop, 0) !== 0) return null;
    totals.push(sim.totals());
  }
  return totals;
}
parentPort.on('message', (job) => {
  try {
    parentPort.postMessage({ id: job.id, totals: runJob(job) });
  } catch (error) {
    parentPort.postMessage({ id: job.id, error });
  }
});
`;

interface WorkerJob {
  resolve: (totals: ServingSimTotals[] | null) => void;
  reject: (e: unknown) => void;
  /** Int32 0 = run, 1 = stop, shared with the worker. */
  stop: Int32Array;
}

interface SimulationWorker {
  worker: Worker;
  jobs: Map<number, WorkerJob>;
  nextId: number;
  /** Called when the last job has answered (or the worker failed). */
  onIdle?: () => void;
}

let simulationWorker: SimulationWorker | null = null;

/**
 * The process's one simulation worker, started on first use and kept for the next jobs (a
 * worker takes tens of milliseconds to start). It holds the process open only while it has jobs.
 */
function getSimulationWorker(): SimulationWorker {
  if (simulationWorker) return simulationWorker;
  const worker = new Worker(SIM_WORKER_SOURCE, { eval: true, execArgv: [], workerData: { addonPath: addonPath() } });
  worker.unref();
  const state: SimulationWorker = { worker, jobs: new Map(), nextId: 0 };
  worker.on('message', (m: { id: number; totals?: ServingSimTotals[] | null; error?: unknown }) => {
    const job = state.jobs.get(m.id);
    state.jobs.delete(m.id);
    if ('error' in m) job?.reject(m.error);
    else job?.resolve(m.totals ?? null);
    if (state.jobs.size === 0) {
      worker.unref();
      state.onIdle?.();
    }
  });
  const fail = (e: unknown) => {
    if (simulationWorker === state) simulationWorker = null;
    for (const job of state.jobs.values()) job.reject(e);
    state.jobs.clear();
    state.onIdle?.();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the simulation worker exited (code ${code})`)));
  simulationWorker = state;
  return state;
}

/**
 * Runs simulations to the end, one after the other, on the simulation worker thread, so that
 * they proceed beside work on this thread (the baselines beside the paged run), and stops them
 * when `signal` aborts: the worker checks between slices of {@link WORKER_SLICE_STEPS} steps.
 * (A native thread could not be stopped: joining it would block this thread until it ended.)
 *
 * @returns each config's totals, in order. The promise settles only once the worker has left
 *   the job: after an abort no simulation of it is still running.
 * @throws TypeError / RangeError naming the bad config field or array (before the job starts);
 *   rejects with the signal's reason when aborted, or with the worker's error.
 */
export async function runSimulationsInWorker(configs: ServingSimConfig[], requests: ServingSimRequests, signal?: AbortSignal): Promise<ServingSimTotals[]> {
  const raw = configs.map((config) => ({ ...config, layout: checkSimulation(config, requests) }));
  signal?.throwIfAborted();
  const w = getSimulationWorker();
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const onAbort = () => Atomics.store(stop, 0, 1);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const totals = await new Promise<ServingSimTotals[] | null>((resolve, reject) => {
      const id = w.nextId++;
      w.jobs.set(id, { resolve, reject, stop });
      w.worker.ref();
      w.worker.postMessage({ id, configs: raw, requests, stop: stop.buffer, sliceSteps: WORKER_SLICE_STEPS });
    });
    signal?.throwIfAborted();
    if (totals === null) throw new Error('the simulations were stopped (stopSimulations)');
    return totals;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Stops every job of the simulation worker (each rejects) and ends the worker; resolves once it
 * has exited. Call it before process.exit() while simulations may run: a worker terminated in
 * the middle of a simulator call aborts the whole process.
 */
export async function stopSimulations(): Promise<void> {
  const w = simulationWorker;
  if (!w) return;
  simulationWorker = null;
  for (const job of w.jobs.values()) Atomics.store(job.stop, 0, 1);
  // Each job answers once it has left the simulator (within a slice).
  if (w.jobs.size > 0) await new Promise<void>((resolve) => (w.onIdle = resolve));
  await w.worker.terminate();
}
