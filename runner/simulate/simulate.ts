/**
 * The paged KV-cache pool under a serving load (issue 5): requests from the profile's workload
 * or a trace, run through the native serving simulator (native/src/pool/simulator.h: vLLM V1
 * continuous batching over the same C++ PageAllocator the decode kernels use), plus two
 * contiguous-allocation baselines over the same memory.
 *
 * Definitions (all time averages weight each step by its simulated duration; idle time between
 * requests counts with nothing held):
 * - reserved slots R(t): paged = pages held · page_size; contiguous = sum of reservations.
 * - tokens T(t): KV slots holding a token (a page shared by prefix caching counts once).
 * - useful-token fraction = ∫T dt / ∫R dt; internal fragmentation = 1 − useful = ∫(R − T) dt / ∫R dt.
 * - occupancy(t) = pages held / pages in pool; mean = ∫occupancy dt / simulated seconds.
 * - external fragmentation (contiguous) = ∫F dt / (arena slots · simulated seconds), F(t) = free
 *   slots at a step where the head of the queue was refused although at least its reservation
 *   was free in total (so it was refused only because the free memory is split into holes).
 * - simulated seconds: the end of the step in which the last request completed.
 */
import { readFileSync } from 'node:fs';
import { offsetToLineColumn } from '../../core/config/positions';
import type { Profile, StepTimeSpec, WorkloadSpec } from '../../core/config/types';
import type { LatencySlo } from '../../core/protocol/latency';
import { estimate, MAX_SIMULATED_PAGES, maxNumBatchedTokensOf, maxNumSeqsOf, kvCacheGroups, poolBlocksText, poolSizeProblem, poolTokens, referenceSeqLen } from '../../core/estimate/index';
import type { LatencySummary } from '../../core/protocol/latency';
import type { PoolBaseline, PoolLoad, PoolResult, PoolSample, PoolSummary, StepTimeModel } from '../../core/protocol/run';
import { runSimulationsInWorker, ServingSimulator, SIM_SAMPLE_FIELDS, type ServingSimConfig, type ServingSimRequests, type ServingSimTimes, type ServingSimTotals } from '../../native';
import { formatCount, formatCountOf, gpuCount, OVERLOAD_MIN_SHARE, overloadGrowthBound } from '../../core/format';
import { cancelPoint, InputError } from '../errors';
import { benchmarkEndS, latencySummary } from './latency';
import { STEP_COEFFICIENT_KEYS, stepTimeModel, type StepCoefficientKey, type StepCoefficients } from './step-time';
import { MAX_TRACE_SPAN_S, readProfileTrace, traceReplay } from './traces';
import { DP_DISPATCH_TEXT, dispatchOnline, mergeTimes, sampledEngines, SLICE_MS, slicer, subsetRequests, type DispatchProgress } from './dataParallel';
import { packRequests, RequestGenerator, scaleArrivals, type TraceRequest } from './workload';

/**
 * A profile that cannot be simulated, an InputError positioned at the profile key to change
 * (`key`, e.g. "kv_cache"; 1:1 of the profile when the key is absent).
 */
export class PoolConfigError extends InputError {
  constructor(
    readonly key: string,
    message: string,
    file: string,
    line = 1,
    column = 1,
  ) {
    super(message, file, line, column);
    this.name = 'PoolConfigError';
  }
}

/** The error for `keys[0]`, positioned at the first of `keys` the profile text holds. */
function configError(profile: Profile, keys: string[], message: string): PoolConfigError {
  const file = profile.sourcePath ?? '<profile>';
  const key = keys.find((k) => profile.ranges[k] !== undefined);
  if (key === undefined || profile.sourcePath === null) return new PoolConfigError(keys[0], message, file);
  let text: string;
  try {
    text = readFileSync(profile.sourcePath, 'utf8');
  } catch {
    return new PoolConfigError(keys[0], message, file);
  }
  const { line, column } = offsetToLineColumn(text, profile.ranges[key].offset);
  return new PoolConfigError(keys[0], message, file, line, column);
}

/**
 * Arrivals that, once scaled by `rateScale`, span more than {@link MAX_TRACE_SPAN_S} seconds
 * (first to last): the simulator's float64 clock would no longer resolve its steps. The CLI
 * names --time-scale; `spanS` is the scaled span in seconds.
 */
export class ArrivalSpanError extends RangeError {
  constructor(
    readonly spanS: number,
    readonly rateScale: number,
  ) {
    super(
      `the arrivals would span ${formatCount(spanS)} s once scaled: the simulator replays at most ${formatCount(MAX_TRACE_SPAN_S)} s ` +
        '(about 32 years; its float64 clock resolves microsecond steps only that far)',
    );
    this.name = 'ArrivalSpanError';
  }
}

/**
 * Why `scale` (--time-scale) cannot scale the workload's Poisson arrivals, or null when it can.
 * The generator draws gaps −ln(1 − u)/(λ·scale) s (workload.ts RequestGenerator, λ =
 * arrival_rate in requests/s): λ·scale must be a finite float64 whose reciprocal is finite too,
 * i.e. at least 1/Number.MAX_VALUE (≈ 5.6e-309; below it, a subnormal rate such as
 * 5 × 5e-324 makes every gap Infinity, and a rate that rounds to 0 puts every request at t = 0)
 * and at most Number.MAX_VALUE. The range named is the usable one: from about
 * n/(λ·{@link MAX_TRACE_SPAN_S}), where n requests span about n/(λ·scale) s (the last arrives at
 * n/(λ·scale) exactly, the first after a gap of mean 1/(λ·scale), so a scale near it passes or not
 * by its first draw), up to Number.MAX_VALUE/λ (Number.MAX_VALUE itself
 * when λ < 1: every finite scale). null too when λ is no positive finite rate (no
 * Poisson arrivals to scale).
 */
export function workloadTimeScaleProblem(w: Pick<WorkloadSpec, 'arrivalRate' | 'requests'>, scale: number): string | null {
  const lambda = w.arrivalRate;
  if (!(Number.isFinite(lambda) && lambda > 0)) return null;
  const rate = lambda * scale;
  if (Number.isFinite(rate) && Number.isFinite(1 / rate)) return null;
  // Three digits, trailing zeros dropped (Number() of "1.80e+308" would round it to Infinity).
  const g = (x: number) => x.toPrecision(3).replace(/(\.\d*?)0+(?=e|$)/, '$1').replace(/\.(?=e|$)/, '');
  // A rate of 0 or Infinity draws no gaps (RequestGenerator: every request at 0 s); a subnormal one draws Infinity s gaps.
  const what = rate === 0
    ? 'the product underflows a float64 to 0, which draws no gaps: every request would arrive at 0 s, not spread out'
    : Number.isFinite(rate)
      ? `the arrivals would span Infinity s (gaps of 1/${g(rate)} s overflow a float64)`
      : 'the product overflows a float64: every gap would be 0 s, every request at 0 s';
  return (
    `the arrival rate would be ${g(rate)} requests/s once scaled (workload.arrival_rate ${lambda} × ${scale}): ${what}; ` +
    `use a --time-scale from about ${g(Math.max(1, w.requests) / (lambda * MAX_TRACE_SPAN_S))} (the ${formatCountOf(w.requests, 'request')} then span about ${formatCount(MAX_TRACE_SPAN_S)} s, the most the simulator replays) to ${g(Math.min(Number.MAX_VALUE, Number.MAX_VALUE / lambda))}`
  );
}

export interface SimulateOptions {
  /** Requests to replay instead of generating them from profile.workload. */
  trace?: TraceRequest[];
  /** The same, already packed (what the streaming trace readers give); wins over `trace`. */
  requests?: ServingSimRequests;
  /**
   * Load multiplier, default 1: a workload's arrival_rate times this, or a trace's arrival times
   * divided by it (2 = replayed at twice the rate).
   */
  rateScale?: number;
  /** The SLO goodput is judged by; default the profile's `slo`. */
  slo?: LatencySlo;
  /** Run the contiguous baselines (default true); the capacity search leaves them out. */
  baselines?: boolean;
  /** Pages in the pool; default kv_cache.num_pages, else the estimator's pool pages. */
  numPages?: number;
  /** Called once per kept sample, in time order, after the paged run. */
  onSample?: (s: PoolSample) => void;
  /**
   * Called once after the paged run with the requests as simulated (after `rateScale`, sorted by
   * arrival) and each one's milestones, same order (the capacity search's saturated throughput,
   * the calibration's replay).
   */
  onTimes?: (requests: ServingSimRequests, times: ServingSimTimes) => void;
  /**
   * Called between slices of the paged run (about every {@link SLICE_MS} ms) when more work is
   * done than at the last call (tokens prefilled or decoded); the last call has fraction 1.
   */
  onProgress?: (p: PoolProgress) => void;
  /**
   * Called once the paged run has finished (after the last `onProgress`), when the baselines
   * (run on the worker thread meanwhile) are still awaited: at millions of requests they can
   * take seconds more, and a cancel now stops them, nothing of the run returned.
   */
  onPagedDone?: () => void;
  /**
   * Called once, when the requests are drawn (or read) and before any is simulated: what the run
   * is about to simulate (the CLI's plan line for a run of hours: s46 newcomer46 M3).
   */
  onPlan?: (requests: ServingSimRequests) => void;
  /**
   * Called between slices of the preparation (drawing the workload's requests, then loading them
   * into the simulator: seconds at millions of requests) with how far it has come.
   */
  onPrepare?: (p: PrepareProgress) => void;
  /**
   * Checked between slices of the preparation and of the steps (the event loop runs between
   * them); an aborted run rejects with the signal's reason.
   */
  signal?: AbortSignal;
  /**
   * The step-time model: efficiency factors (default the profile's step_time, runner/simulate/step-time.ts),
   * coefficients given outright (tests: hand-computable clocks), or a whole model with its
   * `source` (a calibration from kernel timings, calibrate-kernels.ts), used as it is.
   */
  stepTime?: StepTimeSpec | Partial<Pick<StepTimeModel, StepCoefficientKey>> | StepTimeModel;
  /** Words for where stepTime's efficiencies come from (default "the profile" / "the caller"). */
  stepTimeSource?: string;
  /** vLLM V1 enables automatic prefix caching by default; so do we. */
  enablePrefixCaching?: boolean;
  /** Fraction of the pool kept free for running sequences when admitting new ones (default {@link WATERMARK}). */
  watermark?: number;
  /** Samples kept per run, default 2000. */
  maxSamples?: number;
}

/**
 * Pages of the pool: opts, then kv_cache.num_pages, then the estimate. With vLLM's hybrid
 * KV-cache manager (the estimate's pool.layout) the simulated pool is vLLM's blocks (`pages` =
 * `blocks`) and `groups` its KV-cache groups: every group's blocks are charged from the one pool
 * (native/src/pool/allocator.h "Hybrid pool"); `layout` says how, for PoolResult.poolLayout.
 * @throws PoolConfigError ({@link poolSizeProblem}).
 */
function poolPages(profile: Profile, numPages: number | undefined): { pages: number; tokens: number; pageSize: number; blocks?: number; layout?: string; groups?: { full: number; sliding: number; window: number; chunk: number; state: number; count: number } } {
  const problem = numPages === undefined ? poolSizeProblem(profile) : null;
  if (problem) throw configError(profile, problem.keys, problem.message);
  // The model's pool layout even for given numPages: a hybrid Mamba model's block size is vLLM's raised one.
  const e = profile.model.isEncoder ? null : estimate(profile);
  const l = e?.pool.layout ?? null;
  const ps = l?.pageSize ?? profile.kvCache.pageSize;
  if (numPages !== undefined) {
    if (!Number.isInteger(numPages) || numPages < 1 || numPages > MAX_SIMULATED_PAGES) throw new RangeError(`numPages must be an integer in [1, ${MAX_SIMULATED_PAGES}], got ${numPages}`);
    if (l?.kind !== 'mamba') return { pages: numPages, tokens: numPages * ps, pageSize: ps };
  }
  if (!e || !l) throw configError(profile, ['model'], `${profile.model.modelType} is an encoder: it has no KV cache to simulate`);
  const blocks = numPages ?? (typeof profile.kvCache.numPages === 'number' ? profile.kvCache.numPages : e.pool.pages);
  const tokens = poolTokens(l, blocks);
  if (l.kind === 'sliding') {
    return { pages: blocks, tokens, pageSize: ps, layout: `${l.basis}: a page holds ${formatCount(ps)} tokens of every layer, and the pages wholly before a sequence's last ${formatCount(l.window)} tokens are freed as it grows (vLLM's SlidingWindowManager)` };
  }
  if (l.kind !== 'mamba' && l.kind !== 'hybrid') return { pages: blocks, tokens, pageSize: ps };
  const text = poolBlocksText(l, blocks);
  // Every grouped pool (Mamba, chunked, sliding-window hybrid): its groups for the native pool and its layout in words.
  const grouped = (g: { full: number; sliding: number; window: number; chunk: number; state: number }, layout: string) =>
    ({ pages: blocks, tokens, pageSize: ps, blocks, groups: { ...g, count: kvCacheGroups(l) }, layout });
  if (l.kind === 'mamba' && l.mambaCacheMode === 'all') {
    // vLLM's MambaManager under "all" frees a group's state blocks before block floor((computed − 1) / block)
    // (get_num_skipped_tokens = computed − 1, remove_skipped_blocks): a sliding window of 2 tokens, whose
    // freed blocks stay cached; its hit is the last cached state block (MambaManager.find_longest_cache_hit),
    // as the sliding rule with ceil((2 − 1) / block) = 1 block finds it.
    return grouped(
      { full: l.fullGroups, sliding: l.mambaGroups, window: 2, chunk: 0, state: 0 },
      `${l.basis}. A block holds ${text.block} (the attention block size vLLM raised to a multiple of the Mamba chunk size: HybridAttentionMambaModelConfig). ` +
      `A running request holds ceil(tokens / ${formatCount(ps)}) blocks in each of the ${formatCountOf(l.fullGroups, 'attention group')} and, in each of the ${formatCountOf(l.mambaGroups, 'Mamba group')}, the state blocks of blocks floor((computed − 1) / ${formatCount(ps)}) .. ceil((computed + scheduled) / ${formatCount(ps)}) − 1 ` +
      `(MambaManager, mamba_cache_mode "all": a state per block of tokens is written, and those before the last computed token's block freed before new ones are allocated, staying cached until evicted); it is admitted only when every group's blocks are free. ` +
      'With prefix caching a hit is as long as every group has it: the longest run of cached attention blocks, cut to the end of the last cached Mamba state block in it (MambaManager.find_longest_cache_hit)',
    );
  }
  if (l.kind === 'mamba') {
    const state = l.mambaGroups * l.stateBlocks;
    return grouped(
      { full: l.fullGroups, sliding: 0, window: 0, chunk: 0, state },
      `${l.basis}. A block holds ${text.block} (the attention block size vLLM raised so that one attention page holds one Mamba layer's state: HybridAttentionMambaModelConfig). ` +
      `A running request holds ceil(tokens / ${formatCount(ps)}) blocks in each of the ${formatCountOf(l.fullGroups, 'attention group')} and ${formatCountOf(l.stateBlocks, 'block')} in each of the ${formatCountOf(l.mambaGroups, 'Mamba group')} (${formatCount(state)} state blocks, whatever its length: vLLM's MambaManager), ` +
      `taken when it is admitted and freed when it finishes or is preempted; it is admitted only when its state blocks and its prompt's blocks are free. Prefix-cache hits reuse attention blocks only; vLLM's Mamba state caching (mamba_cache_mode "align") is not modelled`,
    );
  }
  const chunkedGroups = l.chunkedGroups ?? 0;
  if (chunkedGroups > 0) {
    const c = l.chunk ?? 0;
    return grouped(
      { full: l.fullGroups, sliding: chunkedGroups, window: 0, chunk: c, state: 0 },
      `vLLM's hybrid KV-cache manager (HybridKVCacheCoordinator): a block holds ${text.block}; ${formatCount(l.fullGroups)} full-attention and ${formatCount(chunkedGroups)} chunked-attention ${l.fullGroups + chunkedGroups === 1 ? 'group' : 'groups'} take their blocks from the one pool. ` +
      `A running request holds ceil(tokens / ${formatCount(ps)}) blocks in each full-attention group and, in each chunked group, only the current ${formatCount(c)}-token chunk's: the blocks of positions floor(computed / ${formatCount(c)}) · ${formatCount(c)} .. computed + scheduled − 1 ` +
      `(ChunkedLocalAttentionManager: the blocks before the chunk's start freed before new ones are allocated); it is admitted only when every group's blocks are free. ` +
      `With prefix caching, a chunked block the chunk or the request frees stays cached until it is evicted, and a hit is as long as every group has it (HybridKVCacheCoordinator.find_longest_cache_hit): the longest run of cached full-attention blocks; the blocks before its last chunk's start count as hit without chunked blocks, and from there the hit ends at the first chunked block not cached (ChunkedLocalAttentionManager.find_longest_cache_hit)`,
    );
  }
  return grouped(
    { full: l.fullGroups, sliding: l.slidingGroups, window: l.window, chunk: 0, state: 0 },
    `vLLM's hybrid KV-cache manager (HybridKVCacheCoordinator): a block holds ${text.block}; ${formatCount(l.fullGroups)} full-attention and ${formatCount(l.slidingGroups)} sliding-window ${l.fullGroups + l.slidingGroups === 1 ? 'group' : 'groups'} take their blocks from the one pool. ` +
    `A running request holds ceil(tokens / ${formatCount(ps)}) blocks in each full-attention group and, in each sliding-window group, the blocks of positions max(0, computed − ${formatCount(l.window)} + 1) .. computed + scheduled − 1 ` +
    `(SlidingWindowManager: the blocks wholly outside the window freed before new ones are allocated); it is admitted only when every group's blocks are free. ` +
    `With prefix caching, a sliding-window block the window or the request frees stays cached until it is evicted, and a hit is as long as every group has it (HybridKVCacheCoordinator.find_longest_cache_hit): the longest run of cached full-attention blocks, cut to the end of the last ${formatCount(Math.ceil((l.window - 1) / ps))} sliding-window blocks in a row that are cached (ceil((${formatCount(l.window)} − 1) / ${formatCount(ps)}), SlidingWindowManager), so a long shared prefix whose window blocks were evicted hits shorter than its full-attention blocks`,
  );
}

const ratio = (a: number, b: number): number => (b > 0 ? a / b : 0);

/** The contiguous-allocation baselines, in the order of PoolResult.baselines. */
const BASELINES = ['contiguous_max_model_len', 'contiguous_prompt_plus_output'] as const;

/** The fraction of the pool kept free for running sequences when admitting new ones: vLLM V0's default 0.01 (floor(0.01 · pages) pages). */
export const WATERMARK = 0.01;

/** The most of a data-parallel run's wall time its progress reports may take (each reads every engine's totals). */
const REPORT_COST_SHARE = 0.02;

/** Progress of the paged run, as {@link SimulateOptions.onProgress} reports it. */
export interface PoolProgress {
  /**
   * The work done, (prefilledTokens + decodedTokens) / tokensToDo, in [0, 1]; 1 at the last call.
   * Tokens, not requests: a run of a few huge requests moves on long before the first finishes
   * (s47: 10^10 tokens to decode sat at 0% with no time left while no request had finished).
   */
  fraction: number;
  /** Requests completed or rejected so far. */
  finished: number;
  requests: number;
  /**
   * Simulated seconds served so far: the simulator's clock (ServingSimTotals.clockSeconds), from
   * the first step on; under data parallelism the time up to which every engine has been
   * simulated (dataParallel.ts DispatchProgress.clockS). It was the end of the step in which the
   * last request completed, 0 until one had (s48).
   */
  clockSeconds: number;
  /** Prompt tokens in KV once so far, prefix-cache hits included (ServingSimTotals.prefilledTokens). */
  prefilledTokens: number;
  /** Output tokens decoded so far (ServingSimTotals.generatedTokens). */
  decodedTokens: number;
  /**
   * The run's tokens: Σ promptLen + Σ min(outputLen, max(maxModelLen − promptLen, 0)) over its
   * requests, less those of the requests rejected so far (ServingSimTotals.rejectedTokens).
   */
  tokensToDo: number;
}

/**
 * The tokens a run's requests prefill and decode if none is rejected: Σ promptLen + Σ outputLen,
 * each output cut to max_model_len − promptLen as the simulator cuts it (simulator.h Rejects).
 */
export function tokensToDo(requests: ServingSimRequests, maxModelLen: number): number {
  let sum = 0;
  for (let i = 0; i < requests.promptLen.length; i++) {
    const prompt = Math.max(requests.promptLen[i], 0);
    sum += prompt + Math.min(requests.outputLen[i], Math.max(maxModelLen - prompt, 0));
  }
  return sum;
}

/** Progress of the preparation, as {@link SimulateOptions.onPrepare} reports it. */
export interface PrepareProgress {
  /** 'generating requests' (the workload's draws; not for a trace), then 'loading the simulator' (not under data parallelism: its engines are loaded as the requests are dispatched, which is the run itself, reported by onProgress). */
  phase: 'generating requests' | 'loading the simulator';
  /** Requests done in this phase, of `requests`. */
  done: number;
  requests: number;
}

/** Steps of the first slice; later slices are sized from the last one's time (a step's cost depends on the batch). */
const FIRST_SLICE_STEPS = 1024;
/** Requests of the first slice drawn or loaded (tens of nanoseconds each: a few milliseconds). */
const FIRST_SLICE_REQUESTS = 1 << 16;

/**
 * Runs `work` to the end in slices of about {@link SLICE_MS} ms, letting the event loop run
 * between them (signal handlers, I/O, a cancel request). `work(units)` does at most `units`
 * units (steps, requests) and says whether it is finished, which it must be after finitely many
 * calls; `afterSlice` runs after each (progress). Slices start at `firstUnits` and are sized from
 * the last one's time, never below `firstUnits` and at most 4x the last.
 * @throws the signal's reason when it is aborted before a slice.
 */
async function sliced(work: (units: number) => boolean, firstUnits: number, signal: AbortSignal | undefined, afterSlice?: () => void): Promise<void> {
  let units = firstUnits;
  for (;;) {
    signal?.throwIfAborted();
    const t0 = performance.now();
    const done = work(units);
    const ms = performance.now() - t0;
    afterSlice?.();
    if (done) return;
    units = Math.max(firstUnits, Math.min(4 * units, Math.round((units * SLICE_MS) / Math.max(ms, 0.1))));
    await cancelPoint(signal);
  }
}

/** The totals a run's progress reads (poolProgress): one simulator's, or the data-parallel engines' summed. */
type ProgressCounts = Pick<ServingSimTotals, 'prefilledTokens' | 'generatedTokens' | 'rejectedTokens' | 'completed' | 'rejected'>;

/**
 * A run's progress from its simulator's totals (or the data-parallel engines', summed): the tokens
 * prefilled and decoded of `toDo` ({@link tokensToDo} of its `requests`) less those of the
 * requests rejected so far; fraction exactly 1 when `done`.
 */
function poolProgress(t: ProgressCounts, requests: number, toDo: number, clockSeconds: number, done: boolean): PoolProgress {
  const tokens = toDo - t.rejectedTokens;
  return {
    fraction: done ? 1 : Math.min(ratio(t.prefilledTokens + t.generatedTokens, tokens), 1),
    finished: t.completed + t.rejected,
    requests,
    clockSeconds,
    prefilledTokens: t.prefilledTokens,
    decodedTokens: t.generatedTokens,
    tokensToDo: tokens,
  };
}

/**
 * Runs `sim` to the end in slices ({@link sliced}), reporting progress when more work is done
 * (tokens prefilled or decoded, requests finished); `total`: {@link tokensToDo} of its requests.
 */
async function runSliced(sim: ServingSimulator, total: number, signal: AbortSignal | undefined, onProgress: ((p: PoolProgress) => void) | undefined): Promise<ServingSimTotals> {
  let reported = -1;
  let t: ServingSimTotals | undefined;
  await sliced((steps) => sim.run(steps), FIRST_SLICE_STEPS, signal, () => {
    t = sim.totals();
    const done = t.prefilledTokens + t.generatedTokens + t.rejectedTokens;
    if (onProgress && (done > reported || t.done)) {
      reported = done;
      onProgress(poolProgress(t, t.requests, total, t.clockSeconds, t.done));
    }
  });
  return t!; // sliced calls afterSlice at least once before it returns
}

function unpackSamples(packed: Float64Array): PoolSample[] {
  const f = SIM_SAMPLE_FIELDS.length;
  const out: PoolSample[] = [];
  for (let o = 0; o < packed.length; o += f) {
    const reserved = packed[o + 5];
    const tokens = packed[o + 4];
    out.push({
      t: packed[o],
      pagesUsed: packed[o + 1],
      pagesCached: packed[o + 2],
      pagesFree: packed[o + 3],
      tokens,
      internalFragmentation: reserved > 0 ? (reserved - tokens) / reserved : 0,
      running: packed[o + 6],
      waiting: packed[o + 7],
      preempted: packed[o + 8],
      prefixHitRate: packed[o + 9],
      preemptions: packed[o + 10],
    });
  }
  return out;
}

/**
 * Simulates the profile's KV pool under its workload (or `opts.trace`) with paging and with
 * two contiguous baselines over the same memory.
 *
 * Limits: max_num_seqs and max_num_batched_tokens (default: vLLM's for the device, core/estimate
 * batchDefaults), max_model_len (default vLLM's for the model, core/estimate referenceSeqLen);
 * a trace without a workload uses those defaults.
 * Sliding-window release applies when every layer slides; a model with full and sliding-window
 * layers is charged every group's blocks under vLLM's hybrid KV-cache manager (vLLM >= 0.9,
 * poolPages), and for every layer before it (one block id covers every layer).
 *
 * The paged run goes in slices with the event loop turning between them, so a caller can show
 * `onProgress` and cancel through `signal`; the baselines run on the simulation worker thread
 * meanwhile (native/allocator.ts runSimulationsInWorker).
 *
 * @returns samples (<= maxSamples, paged run), summary, both baselines, pool size, step-time model.
 * Under data parallelism (device.data_parallel_size > 1) it runs dp engines, each the profile's
 * pool and scheduler, on the requests vLLM's load balancer would send each (dataParallel.ts), with
 * no baselines: latency and load over all requests, the summary's counts and throughput over all
 * engines and its running, waiting and occupancy per engine (means over the engines, peaks the
 * busiest engine's), the samples engine 1's (every other engine's in its `dataParallel` replica), and each engine's figures in `dataParallel`.
 * @throws (rejects with) PoolConfigError when there is nothing to simulate (no workload and no
 *   trace, no pages); RangeError for bad options (a rateScale the workload's arrivals cannot
 *   take: {@link workloadTimeScaleProblem}); the signal's reason when aborted, once the
 *   worker has stopped the baselines (no simulation of this call is left running).
 */
export async function simulatePool(profile: Profile, opts: SimulateOptions = {}): Promise<PoolResult> {
  const dp = profile.device.dataParallelSize ?? 1;
  const { pages: numPages, tokens: poolTokenCount, pageSize, blocks: poolBlocks, layout: poolLayout, groups } = poolPages(profile, opts.numPages);
  const w = profile.workload;
  const scale = opts.rateScale ?? 1;
  let packed: ServingSimRequests;
  // The profile's workload.trace where the caller read none (a sweep's point): its requests, not the draws. The CLI reads it itself, for its warnings by line.
  // Read as the profile says (trace_time_unit, trace_model, trace_log_type: s41 maxrate41 left 1, they were ignored here).
  const profileTrace = !opts.requests && !opts.trace && w?.trace ? readProfileTrace(w.trace, w.maxModelLen) : undefined;
  const traceRead = profileTrace?.read;
  const traced = traceRead?.requests;
  if (traced) packed = scale === 1 ? traced : scaleArrivals(traced, scale);
  else if (opts.requests) packed = scale === 1 ? opts.requests : scaleArrivals(opts.requests, scale);
  else if (opts.trace) packed = scale === 1 ? packRequests(opts.trace) : scaleArrivals(packRequests(opts.trace), scale);
  else if (w) {
    const problem = workloadTimeScaleProblem(w, scale);
    if (problem) throw new RangeError(problem);
    const g = new RequestGenerator(w, scale);
    await sliced((k) => g.next(k), FIRST_SLICE_REQUESTS, opts.signal, () => opts.onPrepare?.({ phase: 'generating requests', done: g.drawn, requests: g.requests }));
    packed = g.packed();
  } else throw configError(profile, ['workload', 'model'], 'the profile has no workload: add a `workload:` section or give a trace (--trace FILE)');
  if (packed.arrivalS.length === 0) throw configError(profile, ['workload.requests', 'workload'], 'there are no requests to simulate');
  const spanS = packed.arrivalS[packed.arrivalS.length - 1] - packed.arrivalS[0];
  // NaN too: arrivals that all overflowed to Infinity (Infinity − Infinity) span no finite time.
  if (!(spanS <= MAX_TRACE_SPAN_S)) {
    // A trace read unscaled was checked by its reader; an unscaled workload is the profile's arrival_rate.
    if (scale === 1 && !opts.requests && !opts.trace && !traced) {
      throw configError(profile, ['workload.arrival_rate', 'workload'], `the ${formatCount(packed.arrivalS.length)} requests arrive over ${formatCount(spanS)} s: the simulator replays at most ${formatCount(MAX_TRACE_SPAN_S)} s (about 32 years); raise arrival_rate`);
    }
    throw new ArrivalSpanError(Number.isNaN(spanS) ? Infinity : spanS, scale);
  }

  const stepTime = resolveStepTime(profile, opts);
  const { slidingWindow: stepSlidingWindow, attentionChunkSize: stepAttentionChunkSize, ...coefficients } = Object.fromEntries(STEP_COEFFICIENT_KEYS.map((k) => [k, stepTime[k]])) as StepCoefficients;
  const watermark = opts.watermark ?? WATERMARK;
  if (!(watermark >= 0 && watermark < 1)) throw new RangeError(`watermark must be in [0, 1), got ${watermark}`);
  const model = profile.model;
  const allSliding = model.slidingWindow !== null && model.layerTypes.length > 0 && model.layerTypes.every((t) => t === 'sliding');
  const config: ServingSimConfig = {
    layout: 'paged',
    numPages,
    pageSize,
    watermarkPages: Math.floor(watermark * numPages),
    slidingWindow: groups ? groups.window : allSliding ? model.slidingWindow! : 0,
    ...(groups ? { fullGroups: groups.full, slidingGroups: groups.sliding, stateBlocks: groups.state, attentionChunkSize: groups.chunk } : {}),
    enablePrefixCaching: opts.enablePrefixCaching ?? true,
    maxNumSeqs: maxNumSeqsOf(profile),
    maxNumBatchedTokens: maxNumBatchedTokensOf(profile),
    maxModelLen: referenceSeqLen(profile),
    // The step-time model's coefficients by their own names but the window and chunk of its
    // sliding (or chunked) layers, which the pool's slidingWindow and attentionChunkSize above
    // already name; an absent one (undefined) takes the simulator's default (native/simulator.ts).
    ...coefficients,
    stepSlidingWindow,
    stepAttentionChunkSize,
    // Pipeline parallelism: each stage's coefficients, up to pp batches in flight (simulator.h).
    stages: stepTime.stages,
    stageSendPerTokenS: stepTime.stageSendPerTokenS,
    maxSamples: opts.maxSamples ?? 2000,
  };

  // Reading a trace of millions of requests takes seconds: a cancel that came meanwhile is seen here.
  await cancelPoint(opts.signal);
  opts.onPlan?.(packed);
  // A trace read here (a sweep's point, a bench of a profile with a workload) is named in the run as the CLI names its own.
  const named = (load: PoolLoad | undefined): void => {
    if (profileTrace && load) load.trace = traceReplay(profileTrace.read, w!.trace!.path, 'workload.trace', w!.trace!.resolvedPath, profileTrace.filters);
  };
  if (dp > 1) {
    const result = await simulateDataParallel(profile, packed, config, dp, scale, opts.requests || opts.trace || traced ? 'trace' : 'workload', stepTime, opts, { numPages, poolTokenCount, pageSize, poolBlocks, poolLayout, groups });
    named(result.load);
    return result;
  }
  // The baselines run on the worker thread while this one runs the paged simulation (the job
  // goes first, so that the worker builds its simulators while this thread builds the paged
  // one). An abort, or a failure here, stops them, and the worker has left them before this
  // function settles.
  const stopBaselines = new AbortController();
  const forwardAbort = () => stopBaselines.abort(opts.signal!.reason);
  opts.signal?.addEventListener('abort', forwardAbort, { once: true });
  // The baselines reserve token slots of every layer: the pool's tokens (a hybrid pool's blocks hold a token once per group).
  const baselinePages = Math.max(1, Math.floor(poolTokenCount / pageSize));
  const baselineConfig: ServingSimConfig = { ...config, numPages: baselinePages, watermarkPages: 0, slidingWindow: 0, fullGroups: 1, slidingGroups: 0, stateBlocks: 0, attentionChunkSize: 0, enablePrefixCaching: false, maxSamples: 2 };
  const baselineRun = opts.baselines === false
    ? Promise.resolve([])
    : runSimulationsInWorker(BASELINES.map((layout) => ({ ...baselineConfig, layout })), packed, stopBaselines.signal);
  baselineRun.catch(() => undefined); // awaited below; an early failure must not count as unhandled meanwhile
  let paged: ServingSimulator;
  let t: ServingSimTotals;
  let baselineTotals: ServingSimTotals[];
  try {
    const sim = (paged = new ServingSimulator(config, packed));
    const requests = packed.arrivalS.length;
    await sliced((k) => sim.load(k), FIRST_SLICE_REQUESTS, opts.signal, () => opts.onPrepare?.({ phase: 'loading the simulator', done: sim.loadedRequests, requests }));
    t = await runSliced(paged, tokensToDo(packed, config.maxModelLen), opts.signal, opts.onProgress);
    if (opts.baselines !== false) opts.onPagedDone?.();
    baselineTotals = await baselineRun;
  } catch (e) {
    stopBaselines.abort(e);
    await baselineRun.catch(() => undefined);
    throw e;
  } finally {
    opts.signal?.removeEventListener('abort', forwardAbort);
  }
  const samples = unpackSamples(paged.samples());
  for (const s of samples) opts.onSample?.(s);

  opts.signal?.throwIfAborted();
  const baselines: PoolBaseline[] = baselineTotals.map((b, i) => {
    const name = BASELINES[i];
    const useful = ratio(b.tokenSlotSeconds, b.reservedSlotSeconds);
    return {
      name,
      usefulTokenFraction: useful,
      externalFragmentation: ratio(b.externalFreeSlotSeconds, baselinePages * pageSize * b.simulatedSeconds),
      internalFragmentation: b.reservedSlotSeconds > 0 ? 1 - useful : 0,
      peakConcurrency: b.peakRunning,
      meanConcurrency: ratio(b.runningSeconds, b.simulatedSeconds),
      rejectedOrDelayed: b.rejected + b.delayed,
    };
  });

  const times = paged.times();
  opts.onTimes?.(packed, times);
  const latency = latencySummary(packed, times, opts.slo ?? profile.slo);
  const summary = poolSummary(t, numPages, latency);
  const load = poolLoad(packed, times, latency, scale, opts.requests || opts.trace || traced ? 'trace' : 'workload');
  named(load);
  // The summary above is seconds of work on this thread at millions of requests, during which a
  // SIGINT waits in the event loop: let it run (the poll phase, where signals land, comes before
  // setImmediate's) and honour it, so that the caller writes nothing (s40 newcomer 1: simulate,
  // simulate --events and bench ran to the end after a Ctrl-C there, replacing --json, exit 0).
  await cancelPoint(opts.signal);
  return { samples, summary, load, baselines, pageSize, numPages, poolTokens: poolTokenCount, ...(poolBlocks !== undefined ? { poolBlocks } : {}), ...(groups ? { poolGroups: groups.count } : {}), ...(poolLayout ? { poolLayout } : {}), stepTime, latency };
}

/**
 * The pool summary of a simulator's totals over `numPages` pages (several engines' totals summed:
 * over all their pages). Its output throughput is the latency's (latencySummary: `vllm bench
 * serve`'s output_throughput, completed requests' output tokens / 0 s to the last request's end),
 * one figure, where it was tokens generated / the end of the last step.
 */
function poolSummary(t: ServingSimTotals, numPages: number, latency: LatencySummary): PoolSummary {
  return {
    requests: t.requests,
    completed: t.completed,
    rejected: t.rejected,
    delayed: t.delayed,
    simulatedSeconds: t.simulatedSeconds,
    meanOccupancy: ratio(t.usedPageSeconds, numPages * t.simulatedSeconds),
    peakOccupancy: t.peakPagesUsed / numPages,
    meanInternalFragmentation: t.reservedSlotSeconds > 0 ? 1 - t.tokenSlotSeconds / t.reservedSlotSeconds : 0,
    usefulTokenFraction: ratio(t.tokenSlotSeconds, t.reservedSlotSeconds),
    preemptions: t.preemptions,
    preemptedTokens: t.preemptedTokens,
    preemptedTokensCached: t.prefixOwnHitTokens,
    prefixHitRate: ratio(t.prefixSharedHitTokens, t.firstAdmissionTokens),
    meanWaiting: ratio(t.waitingSeconds, t.simulatedSeconds),
    peakWaiting: t.peakWaiting,
    throughputTokensPerSec: latency.outputTokensPerSec,
    meanConcurrency: ratio(t.runningSeconds, t.simulatedSeconds),
    peakConcurrency: t.peakRunning,
  };
}

/**
 * Sums engines' totals: counts and integrals added, peaks the largest engine's, the simulated
 * seconds and the clock the longest engine's (each integral over its own span: a mean over all
 * pools divides by the longest).
 */
function sumTotals(ts: ServingSimTotals[]): ServingSimTotals {
  const out = { ...ts[0] } as unknown as Record<string, number | boolean>;
  for (const t of ts.slice(1)) {
    for (const [k, v] of Object.entries(t) as Array<[string, number | boolean]>) {
      const a = out[k];
      if (typeof v === 'boolean' || typeof a === 'boolean') out[k] = Boolean(a) && Boolean(v);
      else out[k] = k.startsWith('peak') || k === 'simulatedSeconds' || k === 'clockSeconds' ? Math.max(a ?? 0, v) : (a ?? 0) + v;
    }
  }
  return out as unknown as ServingSimTotals;
}

/**
 * simulatePool's data-parallel run (device.data_parallel_size = dp > 1): dp engines of the
 * profile's pool, the requests dispatched as vLLM's DPLBAsyncMPClient does, arrival by arrival
 * (dataParallel.ts dispatchOnline, pickEngine), no baselines.
 */
async function simulateDataParallel(profile: Profile, packed: ServingSimRequests, config: ServingSimConfig, dp: number, scale: number, source: PoolLoad['source'], stepTime: StepTimeModel, opts: SimulateOptions,
  pool: { numPages: number; poolTokenCount: number; pageSize: number; poolBlocks: number | undefined; poolLayout: string | undefined; groups: { count: number } | undefined }): Promise<PoolResult> {
  const n = packed.arrivalS.length;
  // The engines run together, arrival by arrival (dataParallel.ts); what the result reads is kept
  // (the samples of the engines sampledEngines keeps: the pool and queue charts pick one) and each simulator freed once read (their native memory is
  // not V8's). An engine no request reached has an empty run.
  const engines: Array<ServingSimulator | undefined> = new Array(dp);
  const runs = [];
  let byEngine: Int32Array[];
  // A cancel is seen every slice while the engines are read (seconds at dp 1024), as while they run.
  const pause = slicer(opts.signal);
  // Progress by tokens, as one engine's run reports it (poolProgress): the engines' counts summed.
  const toDo = tokensToDo(packed, config.maxModelLen);
  const onProgress = opts.onProgress;
  // A report reads every engine's totals (~15 µs an engine: 15 ms at dp 1024, paired CPU +0.3-0.45 s
  // in a 2.0-2.4 s run of 20,000 requests): one is skipped until 1 / REPORT_COST_SHARE times the
  // last one's wall time has passed since it, so that reports cost at most that share of the run.
  let nextReportAt = -Infinity;
  const report = onProgress && (({ clockS }: DispatchProgress) => {
    const t0 = performance.now();
    if (t0 < nextReportAt) return;
    const sum: ProgressCounts = { prefilledTokens: 0, generatedTokens: 0, rejectedTokens: 0, completed: 0, rejected: 0 };
    for (const sim of engines) {
      if (!sim) continue;
      const t = sim.totals();
      sum.prefilledTokens += t.prefilledTokens;
      sum.generatedTokens += t.generatedTokens;
      sum.rejectedTokens += t.rejectedTokens;
      sum.completed += t.completed;
      sum.rejected += t.rejected;
    }
    onProgress(poolProgress(sum, n, toDo, clockS, false));
    const t1 = performance.now();
    nextReportAt = t1 + (t1 - t0) / REPORT_COST_SHARE;
  });
  try {
    const make = () => new ServingSimulator(config, packed, true);
    ({ byEngine } = await dispatchOnline(packed, dp, engines, make, { signal: opts.signal, onProgress: report }));
    for (let e = 0; e < dp; e++) {
      let sim = engines[e];
      if (!sim) {
        // No request reached this engine: its run, empty, ends at once (dispatchOnline ran the others to the end).
        sim = engines[e] = make();
        while (!sim.run(1 << 30));
      }
      runs.push({ samples: sim.samples(), totals: sim.totals(), times: sim.times(), requests: subsetRequests(packed, byEngine[e]) });
      sim.free();
      await pause();
    }
  } finally {
    for (const sim of engines) sim?.free();
  }
  const t = sumTotals(runs.map((r) => r.totals));
  onProgress?.(poolProgress(t, n, toDo, t.clockSeconds, true));
  const samples = unpackSamples(runs[0].samples);
  for (const s of samples) opts.onSample?.(s);
  const times = mergeTimes(n, byEngine, runs.map((r) => r.times));
  opts.onTimes?.(packed, times);
  const slo = opts.slo ?? profile.slo;
  const latency = latencySummary(packed, times, slo);
  const summary = poolSummary(t, dp * pool.numPages, latency);
  // One scope for the counts, per engine (s41 newcomer-ed F2: a summed mean of 302 running beside
  // one engine's peak of 291): means over the engines, peaks the busiest engine's, of its own pool.
  summary.meanConcurrency /= dp;
  if (summary.meanWaiting !== undefined) summary.meanWaiting /= dp;
  summary.peakOccupancy = t.peakPagesUsed / pool.numPages;
  const load = poolLoad(packed, times, latency, scale, source, dp);
  // Each engine's rates and running mean over the run's span, the same for every engine, so they
  // sum to the run's (s42 newcomer 10: each over its own span, 26,926 output tokens/s summed vs
  // 26,842), as vLLM's per-engine log lines ("Engine 000: … Avg generation throughput") share one
  // logging interval (vllm/v1/metrics/loggers.py LoggingStatLogger, one per engine_index).
  const spanEndS = benchmarkEndS(packed, times);
  // Engines 1 … 8 and the busiest keep their samples (s45 newcomer-ed N4: all 1,024 engines' made a 205 MB run the editor froze on).
  const kept = sampledEngines(runs.map((r) => r.totals.peakPagesUsed));
  const replicas = [];
  for (const [e, r] of runs.entries()) {
    const l = latencySummary(r.requests, r.times, slo, spanEndS);
    replicas.push({
      requests: r.requests.arrivalS.length, completed: r.totals.completed, outputTokensPerSec: l.outputTokensPerSec, requestsPerSec: l.requestsPerSec,
      meanConcurrency: ratio(r.totals.runningSeconds, t.simulatedSeconds), peakConcurrency: r.totals.peakRunning, peakWaiting: r.totals.peakWaiting, peakOccupancy: r.totals.peakPagesUsed / pool.numPages,
      // Engine 1's samples are the pool's own (PoolResult.samples), not repeated here.
      ...(e > 0 && kept.includes(e) ? { samples: unpackSamples(r.samples) } : {}),
    });
    await pause();
  }
  return {
    samples, summary, load, baselines: [], pageSize: pool.pageSize, numPages: pool.numPages, poolTokens: pool.poolTokenCount,
    ...(pool.poolBlocks !== undefined ? { poolBlocks: pool.poolBlocks } : {}), ...(pool.groups ? { poolGroups: pool.groups.count } : {}), ...(pool.poolLayout ? { poolLayout: pool.poolLayout } : {}),
    stepTime, latency,
    dataParallel: { size: dp, gpusPerEngine: gpuCount(profile.device), replicas, ratesSpan: 'run', sampledEngines: kept, dispatch: DP_DISPATCH_TEXT },
  };
}

/**
 * The requests the simulator rejected because the KV pool can never hold them (its CanEverFit:
 * prompt + output beyond the pages less the watermark), not for max_model_len: never scheduled,
 * with a prompt below `maxModelLen` (one reaching it is a max_model_len rejection, which the
 * trace reader warns about). @returns how many, and the first `keep` as indices in arrival order.
 */
export function poolRejections(packed: ServingSimRequests, times: ServingSimTimes, maxModelLen: number, keep = 3): { count: number; first: number[] } {
  const first: number[] = [];
  let count = 0;
  for (let i = 0; i < packed.arrivalS.length; i++) {
    if (times.scheduledS[i] >= 0 || packed.promptLen[i] >= maxModelLen) continue;
    if (++count <= keep) first.push(i);
  }
  return { count, first };
}

/** PoolLoad.overloaded: more than this fraction of the requests still waiting at the last arrival (passed over by a step's admissions; and at least 2, and more than at the middle of the arrivals). */
const OVERLOAD_WAITING = 0.05;

/**
 * The load a simulation ran (PoolResult.load; the CLI adds the trace's description). Offered:
 * (n − 1) / (last arrival − first arrival), the rate capacity.ts baseRate scales, after the time
 * scale. Served: latency.requestsPerSec. Overloaded: the queue grew through the arrivals: at the
 * last arrival more than {@link OVERLOAD_WAITING} of the n requests (and at least 2) were waiting:
 * taken in by a step that started at or before it, and admitted after it (ServingSimTimes.queuedS;
 * one arriving during the step in flight is not waiting; a rejected one neither), and more than at
 * the middle of the arrivals (unless all arrive at once; and only where each of the `engines` data-parallel engines,
 * one or more, has OVERLOAD_MIN_SHARE requests or more: PoolLoad.requestsPerEngine); or, whatever the fraction, more than at the middle
 * by over {@link overloadGrowthBound}(n) = 2 · √(n / 2) (twice the spread of a Poisson count of the second half's
 * arrivals: what a queue that keeps up may drift by): at 3 % over μ the queue of 40,000 requests held
 * 1,144 (2.9 %) at the end, about twice its middle, and its TTFT grew with the run (s43 newcomer43 F2: p99
 * 36.6 s at 40,000 requests, 5.6 s at 10,000); growth 572 against 2 · √20,000 = 283. A server that keeps up holds a queue of
 * the order of a batch whatever n, at the end as in the middle; one that does not holds about
 * (1 − served / offered) · n at the end, twice its middle (s33 newcomer-cli 6: 100 requests/s
 * offered, 28.7 served, p99 TTFT 3.46 h from a 10,000 s trace; examples/llama-3.1-8b.attn.yaml at
 * its former arrival_rate 32: 32.2 offered, about 30 served, 158 of 2,000 waiting at the end, its
 * p99 TTFT 4.9 s against a p50 of 0.48 s).
 */
export function poolLoad(packed: ServingSimRequests, times: ServingSimTimes, latency: LatencySummary, timeScale: number, source: PoolLoad['source'], engines = 1): PoolLoad {
  const a = packed.arrivalS;
  const n = a.length;
  // Engines' shares under OVERLOAD_MIN_SHARE cannot show a queue: two requests queued at once by a burst of arrivals already make 5 %.
  // One engine too (s49 newcomer H1: 5 requests at 9.66/s, under μ = 11.5, were "Overloaded" for 3 arriving within
  // the last steps, while no request waited past a step's admissions; README's rule has no dp exception).
  const last = a[n - 1];
  const span = last - a[0];
  // All at one instant on one engine (a burst, or one request): no rate for μ to judge, and its queue is the burst's own.
  const judged = n / engines >= OVERLOAD_MIN_SHARE || (engines === 1 && span === 0);
  const middle = a[0] + span / 2;
  let waiting = 0;
  let waitingMiddle = 0;
  let inFlight = 0;
  let inFlightMiddle = 0;
  let completed = 0;
  let outputTokens = 0;
  for (let i = 0; i < n; i++) {
    const s = times.scheduledS[i];
    // Waiting: passed over by a step's admissions (queued at a step start at or before the instant,
    // admitted after it). One that arrived during the step in flight is admitted at the next step's
    // start, no queue (s52 newcomer HIGH 1: 1,000 requests/s on ~6 ms steps had 8 of 100 arrive
    // within the last step, counted "still waiting": "Overloaded" at 60 and 100 requests, "Kept up"
    // at 40 and 200, while none was queued after any step's admissions; rate × step time, whatever n).
    const q = times.queuedS[i];
    if (q >= 0 && q <= last && s > last) waiting++;
    if (q >= 0 && q <= middle && s > middle) waitingMiddle++;
    // A rejected request (finish −1) is not in flight.
    const f = times.finishS[i];
    if (f > last) inFlight++;
    if (a[i] <= middle && f > middle) inFlightMiddle++;
    if (f >= 0) {
      completed++;
      outputTokens += times.outputLen[i];
    }
  }
  const overloaded = judged && waiting >= 2 && (span === 0 ? waiting > OVERLOAD_WAITING * n : waiting > waitingMiddle && (waiting > OVERLOAD_WAITING * n || waiting - waitingMiddle > overloadGrowthBound(n)));
  return {
    source,
    timeScale,
    offeredRequestsPerSec: span > 0 ? (n - 1) / span : null,
    servedRequestsPerSec: latency.requestsPerSec,
    waitingAtLastArrival: waiting,
    ...(span > 0 ? { waitingAtMiddleArrival: waitingMiddle } : {}),
    ...(completed > 0 ? { meanOutputTokens: outputTokens / completed } : {}),
    ...(span > 0 ? { inFlightAtLastArrival: inFlight, inFlightAtMiddleArrival: inFlightMiddle } : {}),
    ...(judged ? {} : { requestsPerEngine: n / engines }),
    overloaded,
    // The text's Overloaded verdict in the key a script reads (s50 newcomer LOW-1: absent, read as undefined).
    ...(overloaded ? { keepsUp: false } : {}),
  };
}

/**
 * The groups of step-time coefficients a caller may give outright (SimulateOptions.stepTime without a
 * source) and when each is kept, as resolveStepTime copies them: a group that applies is copied whole,
 * its keys the caller left out as 0; one that does not is dropped (the addon would refuse a sliding
 * window's costs without the window, or weigh an expert read with no experts). Every
 * STEP_COEFFICIENT_KEYS entry is in one (a unit test checks), so a coefficient added later is not
 * silently dropped from a caller-given or `--calibrate` model.
 */
const GIVEN_COEFFICIENT_GROUPS: ReadonlyArray<{ applies: (m: Partial<StepCoefficients>) => boolean; keys: readonly StepCoefficientKey[] }> = [
  // The dense roofline: always, 0 for one left out.
  { applies: () => true, keys: ['perStepS', 'weightsS', 'perKvTokenS', 'perTokenS', 'perPairS'] },
  // Terms of one coefficient each (MLA, W8A8, lm_head, recurrent state, tensor parallelism's all-reduces): when given.
  ...(['perDecodePairS', 'perDecodeTokenS', 'perPrefillContextTokenS', 'perLogitsS', 'perRequestStateS', 'perPrefillContextKvS', 'decodeWeightsS', 'prefillWeightsS',
    'allReduceS', 'perTokenAllReduceS', 'perTokenOneShotAllReduceS', 'oneShotAllReduceTokens'] as const)
    .map((k) => ({ applies: (m: Partial<StepCoefficients>) => m[k] !== undefined, keys: [k] })),
  // The multimem band: its rate given, with its token bounds (0 when left out).
  { applies: (m) => m.perTokenMultimemAllReduceS !== undefined, keys: ['perTokenMultimemAllReduceS', 'multimemAllReduceMinTokens', 'multimemAllReduceMaxTokens'] },
  // The ring's large-message band: its rate given, with its first step size.
  { applies: (m) => m.perTokenRingAllReduceS !== undefined, keys: ['perTokenRingAllReduceS', 'ringAllReduceMinTokens'] },
  // Its own latency: when given (absent, the simulator takes allReduceS's, as a run saved before it).
  { applies: (m) => m.ringAllReduceS !== undefined, keys: ['ringAllReduceS'] },
  // Experts (MoE): a non-zero count, with the expert weights' read and the experts a token takes.
  { applies: (m) => Boolean(m.numExperts), keys: ['numExperts', 'expertWeightsS', 'numExpertsPerTok'] },
  // Sliding-window layers: a non-zero window, with their KV and pair costs; chunked attention takes the same two costs over its chunk.
  { applies: (m) => Boolean(m.slidingWindow), keys: ['slidingWindow', 'perSlidingKvTokenS', 'perSlidingPairS'] },
  { applies: (m) => Boolean(m.attentionChunkSize), keys: ['attentionChunkSize', 'perSlidingKvTokenS', 'perSlidingPairS'] },
];

/** STEP_COEFFICIENT_KEYS that no {@link GIVEN_COEFFICIENT_GROUPS} group copies (none: the unit test's check). */
export function ungroupedCoefficientKeys(): StepCoefficientKey[] {
  const grouped = new Set(GIVEN_COEFFICIENT_GROUPS.flatMap((g) => g.keys));
  return STEP_COEFFICIENT_KEYS.filter((k) => !grouped.has(k));
}

/** The step-time model of a run: opts.stepTime's coefficients outright, else the roofline with its efficiencies. */
function resolveStepTime(profile: Profile, opts: SimulateOptions): StepTimeModel {
  const given = opts.stepTime;
  const coefficients = ['perStepS', 'weightsS', 'perKvTokenS', 'perTokenS', 'perPairS'] as const;
  const pp = profile.device.pipelineParallelSize ?? 1;
  // Coefficients given outright under pipeline parallelism need each stage's: one set would run the
  // stages as one step, with no batch in flight beside another.
  if (pp > 1 && given && ('source' in given || coefficients.some((k) => k in given)) && (given as Partial<StepTimeModel>).stages?.length !== pp) {
    throw new RangeError(`stepTime: pipeline_parallel_size ${pp} needs the coefficients of each of its ${pp} stages (StepTimeModel.stages), got ${(given as Partial<StepTimeModel>).stages?.length ?? 'none'}`);
  }
  if (given && 'source' in given) return given;
  if (given && coefficients.some((k) => k in given)) {
    const m = given as Partial<StepCoefficients>;
    const out: Partial<Record<StepCoefficientKey, number>> = {};
    for (const g of GIVEN_COEFFICIENT_GROUPS) if (g.applies(m)) for (const k of g.keys) out[k] = m[k] ?? 0;
    return { ...(out as StepCoefficients), source: opts.stepTimeSource ?? 'coefficients given by the caller' };
  }
  try {
    return stepTimeModel(profile, (given as StepTimeSpec | undefined) ?? profile.stepTime, opts.stepTimeSource ?? (given ? 'the caller' : 'the profile'));
  } catch (e) {
    if (e instanceof RangeError) throw configError(profile, ['device.gpu', 'device'], e.message);
    throw e;
  }
}
