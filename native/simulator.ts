/**
 * Typed wrapper of the native serving simulator (native/src/pool/simulator.h): vLLM V1
 * continuous batching over the page allocator of native/allocator.ts, or a first-fit arena for
 * the contiguous baselines; and a worker thread that runs the baselines off this thread.
 *
 * Bad arguments throw TypeError (wrong type) or RangeError (bad value) naming the argument.
 */
import { Worker } from 'node:worker_threads';
import type { AllReduceStepTime, StageStepTime, StepTimeCoefficients } from '../core/protocol/run';
import { INT32_MAX, intArg } from './args';
import { addonPath, loadAddon } from './binding';

/** Memory layout the serving simulator manages. */
export type SimLayout = 'paged' | 'contiguous_max_model_len' | 'contiguous_prompt_plus_output';
const SIM_LAYOUTS: SimLayout[] = ['paged', 'contiguous_max_model_len', 'contiguous_prompt_plus_output'];

/**
 * The pool and the scheduler's limits, and the step time: a roofline over the coefficients of a
 * run's step time (core/protocol/run.ts StepTimeCoefficients, whose formula StepTimeModel states;
 * native/src/pool/simulator.h StepTimeModel), the window and chunk as stepSlidingWindow and
 * stepAttentionChunkSize below, plus the tensor-parallel all-reduces (AllReduceStepTime, as a
 * run's step time carries them; default 0: tp 1).
 */
export interface ServingSimConfig extends AllReduceStepTime, StepTimeCoefficients {
  layout: SimLayout;
  /** The pool (every layout gets numPages · pageSize token slots). */
  numPages: number;
  pageSize: number;
  /** Paged only. */
  watermarkPages: number;
  /** The pool's sliding window (a model whose every layer slides: vLLM frees pages outside it); 0 = none. */
  slidingWindow: number;
  /**
   * A hybrid pool (vLLM's HybridKVCacheCoordinator; native/src/pool/allocator.h "Hybrid pool"), with
   * slidingWindow >= 1: numPages and watermarkPages are then blocks, a page is fullGroups blocks
   * (one per full-attention KV-cache group, default 1) and each of slidingGroups sliding-window groups
   * holds one more block per page the window covers. Default 0: no hybrid pool.
   */
  fullGroups?: number;
  slidingGroups?: number;
  /**
   * A hybrid pool of chunked local-attention groups (Llama 4's attention_chunk_size C, tokens), with
   * slidingWindow 0 and slidingGroups >= 1: the slidingGroups groups then keep only the current
   * chunk's blocks, those of the pages from floor(floor(tokens / C) · C / pageSize) on (vLLM's
   * ChunkedLocalAttentionManager; native/src/pool/allocator.h "Chunked local attention"). Default 0.
   */
  attentionChunkSize?: number;
  /**
   * A hybrid Mamba pool (native/src/pool/allocator.h "State blocks"), with slidingWindow 0: blocks
   * every running request holds whatever its length (its Mamba groups' state blocks), besides
   * its pages of fullGroups blocks each; numPages and watermarkPages are blocks. Default 0.
   */
  stateBlocks?: number;
  enablePrefixCaching: boolean;
  maxNumSeqs: number;
  maxNumBatchedTokens: number;
  maxModelLen: number;
  /**
   * The step time's sliding-window layers' window W in tokens (a query at position i attends keys
   * max(0, i − W + 1) .. i; their seconds per KV token and per query-key pair: perSlidingKvTokenS,
   * perSlidingPairS). Default 0: no sliding-window layers. Independent of slidingWindow, the pool's
   * (a hybrid model's pool holds the full-attention layers' tokens).
   */
  stepSlidingWindow?: number;
  /**
   * Chunked local attention (Llama 4's attention_chunk_size C) in place of stepSlidingWindow: the
   * perSliding* coefficients are then the chunked layers', whose query at position i attends only
   * its own chunk's keys floor(i/C)·C .. i. Default 0: none. At most one of the two is set.
   */
  stepAttentionChunkSize?: number;
  /**
   * Pipeline parallelism (native/src/pool/simulator.h "Pipeline parallelism"): absent or empty for
   * one stage (the coefficients above), else pp >= 2 stages in pp-rank order, each with its own
   * layers' coefficients; up to pp batches are then in flight, each stage running them in order.
   * The window, chunk and expert counts are the fields above.
   */
  stages?: ServingSimStage[];
  /** Seconds a stage takes to send one scheduled token's hidden state to the next (every stage but the last). Default 0. */
  stageSendPerTokenS?: number;
  /** Samples kept (downsampled by doubling the stride), >= 2. */
  maxSamples: number;
  /**
   * false: every step serves the running requests one by one, as vLLM's scheduler loop does.
   * Default true: decoding requests between events coast on a clock (native/src/pool/simulator.h),
   * with the same results, much faster. For verification.
   */
  coast?: boolean;
  /**
   * false: with prefix caching, every full page is hashed and registered as it fills. Default
   * true: a request's pages beyond its shared segments are registered only if it is preempted
   * (native/src/pool/simulator.h "Private tails"), with the same results, faster. For verification.
   */
  privateTails?: boolean;
}

/**
 * One pipeline stage's step-time coefficients (seconds per unit, as ServingSimConfig's of the same
 * names), for its layers only: a run's StepTimeModel.stages entry, which the runner passes as is
 * (one list of fields: native imports core's types, never the reverse). perDecodeTokenS absent:
 * perTokenS; the other optional fields absent: 0.
 */
export type ServingSimStage = StageStepTime;

/**
 * The step-time coefficients, seconds per unit, each checked finite and >= 0: a stage's fields
 * (ServingSimStage's) and the config's fields of the same names. In native/wasm/abi.cc's
 * order of a stage's (native/wasm/addon.ts sends them so).
 */
export const SIM_COEFFICIENTS = ['perStepS', 'weightsS', 'expertWeightsS', 'perKvTokenS', 'perTokenS', 'perLogitsS', 'perPairS', 'perDecodePairS', 'perSlidingKvTokenS', 'perSlidingPairS',
  'perDecodeTokenS', 'perPrefillContextTokenS', 'perRequestStateS', 'perPrefillContextKvS', 'decodeWeightsS', 'prefillWeightsS', 'allReduceS', 'perTokenAllReduceS', 'perTokenOneShotAllReduceS', 'perTokenMultimemAllReduceS', 'perTokenRingAllReduceS', 'ringAllReduceS'] as const satisfies ReadonlyArray<keyof ServingSimStage & keyof ServingSimConfig>;
/**
 * The coefficients a config (and a stage) must give; any other may be absent or undefined, and the
 * addon then takes perTokenS for perDecodeTokenS, perPairS for perDecodePairS, 0 for the rest
 * (native/src/napi/simulator.cc).
 */
const SIM_REQUIRED_COEFFICIENTS: ReadonlySet<string> = new Set(['perStepS', 'weightsS', 'perKvTokenS', 'perTokenS', 'perPairS'] satisfies Array<(typeof SIM_COEFFICIENTS)[number]>);
/** A stage's required fields: the config's, and those StageStepTime does not make optional. */
const SIM_REQUIRED_STAGE_FIELDS: ReadonlySet<string> = new Set(['perStepS', 'weightsS', 'perKvTokenS', 'perTokenS', 'perPairS', 'expertWeightsS', 'perLogitsS', 'perDecodePairS', 'perSlidingKvTokenS', 'perSlidingPairS'] satisfies Array<(typeof SIM_COEFFICIENTS)[number]>);

/** `o` without its undefined fields: the addon reads a present field as given (an undefined one is a TypeError there), an absent one as its default. */
function definedFields<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/**
 * Requests as parallel arrays [n], sorted by arrival, and their shared segments (SimSegment in
 * native/src/pool/simulator.h): request i's are segmentStream/segmentEnd[segmentStart[i] ..
 * segmentStart[i + 1]), consecutive runs of its leading prompt tokens [previous end, end) whose
 * token ids are stream segmentStream's (an integer in [0, 2^30)); two requests share a token
 * exactly where both have a segment of the same stream. Its tokens beyond the last are its own.
 */
export interface ServingSimRequests {
  arrivalS: Float64Array;
  promptLen: Int32Array;
  outputLen: Int32Array;
  /** [n + 1], ascending, segmentStart[0] = 0, segmentStart[n] = number of segments. */
  segmentStart: Int32Array;
  segmentStream: Float64Array;
  /** Ascending within a request, each in [1, its promptLen]. */
  segmentEnd: Int32Array;
}

/** Per request (in the order given), simulated seconds; −1 where not reached (rejected requests). */
export interface ServingSimTimes {
  /**
   * Start of the first step at or after its arrival, the first that could admit it (a request
   * arriving during a step waits for the next one's start). Admitted later than this, it was
   * queued: passed over by a step's admissions (PoolLoad.waitingAtLastArrival counts those).
   */
  queuedS: Float64Array;
  /** Start of the step that first admitted it. */
  scheduledS: Float64Array;
  /** End of the step that emitted its first output token. */
  firstTokenS: Float64Array;
  /** End of the step that emitted its last output token. */
  finishS: Float64Array;
  /** Output tokens generated (output_len capped at max_model_len − prompt_len); 0 if rejected. */
  outputLen: Int32Array;
}

/** Integrals (`*Seconds`) are value · simulated seconds, summed over steps. */
export interface ServingSimTotals {
  requests: number;
  completed: number;
  rejected: number;
  /** Admitted requests that memory refused at least once before. */
  delayed: number;
  preemptions: number;
  /** KV tokens the preemptions dropped (recomputed later, less the request's own cached pages). */
  preemptedTokens: number;
  steps: number;
  generatedTokens: number;
  /**
   * Prompt tokens of admitted requests that have been in KV once, computed or found in the prefix
   * cache (a preempted request's recompute not again); with generatedTokens, the work done so far
   * (simulate's progress estimate). At the end: Σ promptLen over the requests not rejected.
   */
  prefilledTokens: number;
  /** promptLen + outputLen (after the max_model_len cap) of the rejected requests: work never done. */
  rejectedTokens: number;
  /** End of the step in which the last request completed (0 until one has). */
  simulatedSeconds: number;
  /**
   * The simulator's clock, seconds: the end of the last step run (pipelined: of the last batch
   * completed), from the first step on (simulate's progress line: its time of serving).
   */
  clockSeconds: number;
  usedPageSeconds: number;
  reservedSlotSeconds: number;
  tokenSlotSeconds: number;
  /** Contiguous: free slots while the queue head was refused though enough slots were free (split into holes). */
  externalFreeSlotSeconds: number;
  runningSeconds: number;
  waitingSeconds: number;
  peakWaiting: number;
  peakPagesUsed: number;
  peakReservedSlots: number;
  peakRunning: number;
  prefixQueryTokens: number;
  prefixHitTokens: number;
  /** Hits inside the request's shared segments (sharing between requests). */
  prefixSharedHitTokens: number;
  /** Hits beyond them: a preempted request finding its own pages again. */
  prefixOwnHitTokens: number;
  /** Prompt tokens looked up at the requests' first admissions. */
  firstAdmissionTokens: number;
  done: boolean;
}

/** Fields of one packed sample in {@link ServingSimulator.samples}. */
export const SIM_SAMPLE_FIELDS = [
  't', 'pagesUsed', 'pagesCached', 'pagesFree', 'tokens', 'reservedSlots', 'running', 'waiting', 'preempted', 'prefixHitRate', 'preemptions',
] as const;

interface RawSimulator {
  /** Loads up to maxRequests more requests; the requests loaded so far (all: the simulator is built). */
  load(maxRequests: number): number;
  run(maxSteps: number): boolean;
  samples(): Float64Array;
  totals(): ServingSimTotals;
  times(): ServingSimTimes;
  free(): void;
  /** Dispatched simulators only: appends request `index` of the columns (RangeError when refused). */
  add(index: number): void;
  /** @returns simulator.h ServingSimulator::NextChange(t). */
  runUntil(t: number): number;
  inFlight(t: number): number;
}

/**
 * Checks a simulator's config and requests as the addon needs them; an undefined field counts as absent.
 * @returns the config as the addon takes it: the layout as its index, no undefined field (nor in a stage).
 * @throws TypeError / RangeError naming the bad field.
 */
function addonConfig(config: ServingSimConfig, requests: ServingSimRequests): Omit<ServingSimConfig, 'layout'> & { layout: number } {
  const layout = SIM_LAYOUTS.indexOf(config.layout);
  if (layout < 0) throw new RangeError(`layout must be one of ${SIM_LAYOUTS.join(', ')}`);
  intArg('numPages', config.numPages, 1, INT32_MAX);
  intArg('pageSize', config.pageSize, 1, 1 << 20);
  intArg('watermarkPages', config.watermarkPages, 0, config.numPages);
  intArg('slidingWindow', config.slidingWindow, 0, INT32_MAX);
  intArg('fullGroups', config.fullGroups ?? 1, 1, config.numPages);
  intArg('slidingGroups', config.slidingGroups ?? 0, 0, INT32_MAX);
  intArg('attentionChunkSize', config.attentionChunkSize ?? 0, 0, INT32_MAX);
  const chunked = (config.attentionChunkSize ?? 0) > 0;
  if (chunked && (config.slidingWindow !== 0 || (config.slidingGroups ?? 0) < 1)) throw new RangeError('attentionChunkSize needs slidingWindow 0 and slidingGroups >= 1 (the chunked local-attention groups)');
  if ((config.slidingGroups ?? 0) > 0 && config.slidingWindow < 1 && !chunked) throw new RangeError('slidingGroups needs slidingWindow >= 1 (the sliding-window groups\' window) or attentionChunkSize >= 1');
  intArg('stateBlocks', config.stateBlocks ?? 0, 0, config.numPages);
  if ((config.stateBlocks ?? 0) > 0 && (config.slidingWindow !== 0 || chunked)) throw new RangeError('stateBlocks needs slidingWindow 0 and attentionChunkSize 0 (a hybrid Mamba pool has no sliding-window or chunked groups)');
  intArg('maxNumSeqs', config.maxNumSeqs, 1, INT32_MAX);
  intArg('maxNumBatchedTokens', config.maxNumBatchedTokens, 1, INT32_MAX);
  intArg('maxModelLen', config.maxModelLen, 1, INT32_MAX);
  intArg('maxSamples', config.maxSamples, 2, INT32_MAX);
  if (config.coast !== undefined && typeof config.coast !== 'boolean') throw new TypeError('coast must be a boolean');
  if (config.privateTails !== undefined && typeof config.privateTails !== 'boolean') throw new TypeError('privateTails must be a boolean');
  for (const key of SIM_COEFFICIENTS) {
    const v = config[key];
    if (v === undefined && !SIM_REQUIRED_COEFFICIENTS.has(key)) continue;
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new TypeError(`${key} must be a finite number`);
    if (v < 0) throw new RangeError(`${key} must be >= 0, got ${v}`);
  }
  intArg('oneShotAllReduceTokens', config.oneShotAllReduceTokens ?? 0, 0, INT32_MAX);
  intArg('multimemAllReduceMinTokens', config.multimemAllReduceMinTokens ?? 0, 0, INT32_MAX);
  intArg('multimemAllReduceMaxTokens', config.multimemAllReduceMaxTokens ?? 0, 0, INT32_MAX);
  intArg('ringAllReduceMinTokens', config.ringAllReduceMinTokens ?? 0, 0, INT32_MAX);
  intArg('stepSlidingWindow', config.stepSlidingWindow ?? 0, 0, INT32_MAX);
  intArg('stepAttentionChunkSize', config.stepAttentionChunkSize ?? 0, 0, INT32_MAX);
  if (config.stepSlidingWindow && config.stepAttentionChunkSize) {
    throw new RangeError('stepSlidingWindow and stepAttentionChunkSize cannot both be set (the perSliding* coefficients are one layer type\'s)');
  }
  if (!config.stepSlidingWindow && !config.stepAttentionChunkSize && ((config.perSlidingKvTokenS ?? 0) > 0 || (config.perSlidingPairS ?? 0) > 0)) {
    throw new RangeError('perSlidingKvTokenS and perSlidingPairS need stepSlidingWindow >= 1 (the sliding-window layers\' window) or stepAttentionChunkSize >= 1 (the chunked layers\' chunk)');
  }
  if (config.stages !== undefined) {
    if (!Array.isArray(config.stages)) throw new TypeError('stages must be an array');
    if (config.stages.length === 1) throw new RangeError('stages must be empty or hold at least 2 stages (one stage: the coefficients outside stages)');
    config.stages.forEach((stage, k) => {
      if (typeof stage !== 'object' || stage === null) throw new TypeError(`stages[${k}] must be an object`);
      for (const key of SIM_COEFFICIENTS) {
        const v = stage[key];
        if (v === undefined && !SIM_REQUIRED_STAGE_FIELDS.has(key)) continue;
        if (typeof v !== 'number' || !Number.isFinite(v)) throw new TypeError(`stages[${k}].${key} must be a finite number`);
        if (v < 0) throw new RangeError(`stages[${k}].${key} must be >= 0, got ${v}`);
      }
    });
  }
  const send = config.stageSendPerTokenS ?? 0;
  if (typeof send !== 'number' || !Number.isFinite(send)) throw new TypeError('stageSendPerTokenS must be a finite number');
  if (send < 0) throw new RangeError(`stageSendPerTokenS must be >= 0, got ${send}`);
  const experts = config.numExperts ?? 0;
  intArg('numExperts', experts, 0, INT32_MAX);
  intArg('numExpertsPerTok', config.numExpertsPerTok ?? 0, experts > 0 ? 1 : 0, experts);
  const n = requests.arrivalS.length;
  const m = requests.segmentStream?.length;
  const arrays: Array<[keyof ServingSimRequests, new (n: number) => ArrayBufferView, number, string]> = [
    ['arrivalS', Float64Array, n, 'arrivalS'], ['promptLen', Int32Array, n, 'arrivalS'], ['outputLen', Int32Array, n, 'arrivalS'],
    ['segmentStart', Int32Array, n + 1, 'arrivalS + 1'], ['segmentStream', Float64Array, m, 'segmentStream'], ['segmentEnd', Int32Array, m, 'segmentStream'],
  ];
  for (const [key, type, length, other] of arrays) {
    if (!(requests[key] instanceof type)) throw new TypeError(`requests.${key} must be a ${type.name}`);
    if (requests[key].length !== length) throw new RangeError(`requests.${key} has ${requests[key].length} entries, ${other} ${length}`);
  }
  // Synthetic token ids give each stream a distinct code below 2^31 (native/src/pool/simulator.cc).
  if (n >= 2 ** 30) throw new RangeError(`requests: at most 2^30 − 1 requests, got ${n}`);
  const start = requests.segmentStart;
  if (start[0] !== 0 || start[n] !== m) throw new RangeError(`requests.segmentStart must start at 0 and end at ${m}, got ${start[0]} … ${start[n]}`);
  // Each request's values (order, segments) are checked as they are loaded (BuildSimInput in
  // native/src/pool/simulator.cc): a loop over 10,000,000 requests here would hold the thread.
  return definedFields({ ...config, layout, ...(config.stages ? { stages: config.stages.map(definedFields) } : {}) });
}

/**
 * The serving simulator of native/src/pool/simulator.h: continuous batching over the same C++
 * PageAllocator (or a first-fit contiguous arena, for the baselines), the whole step loop in
 * C++. Load its requests in slices with {@link load} and run it in slices with {@link run} to
 * report progress or stop early; a first call of run (or samples, totals, times) loads whatever
 * is left in one go.
 */
export class ServingSimulator {
  private readonly raw: RawSimulator;
  /** Requests loaded so far, of `requests`. */
  loadedRequests = 0;
  readonly requests: number;

  /**
   * Keeps `requests` (do not change them until loaded) and checks only their types and lengths: their values are checked as they are loaded.
   * @param dispatched true: an engine of a data-parallel run (runner/simulate/dataParallel.ts):
   *   `requests` is the trace its requests are dispatched from, it starts with none and
   *   {@link add} appends them as they arrive (load is not used).
   * @throws TypeError / RangeError naming the bad config field or array.
   */
  constructor(config: ServingSimConfig, requests: ServingSimRequests, dispatched = false) {
    const raw = addonConfig(config, requests);
    const addon = loadAddon<{ ServingSimulator: new (...args: unknown[]) => RawSimulator }>();
    this.raw = new addon.ServingSimulator(
      raw,
      requests.arrivalS, requests.promptLen, requests.outputLen, requests.segmentStart, requests.segmentStream, requests.segmentEnd, dispatched,
    );
    this.requests = requests.arrivalS.length;
  }

  /**
   * A dispatched simulator: runs the steps that start before `t` seconds (a step admits the
   * requests arrived by its start, so a request arriving at t still joins the next one;
   * pipelined, also the batches that complete by t). Never ends the run: {@link run} does, once
   * every request is added. simulator.h ServingSimulator::RunUntil.
   * @returns the earliest time, seconds (>= t, or Infinity), from which runUntil may run anything
   *   more or {@link inFlight} differ from inFlight(t): the next step's start (pipelined, with
   *   the batch queue full or a completion next: the oldest batch's end), or the first finish
   *   after t of the last step's requests. Until an arrival then, or an {@link add}, the engine
   *   may be left alone (simulator.h ServingSimulator::NextChange).
   * @throws Error when not dispatched; TypeError / RangeError when t is not a number / NaN.
   */
  runUntil(t: number): number {
    return this.raw.runUntil(t);
  }

  /**
   * A dispatched simulator, after runUntil(t): its requests in flight at `t` (added, not rejected,
   * not finished by t), vLLM's per-engine in-flight count. simulator.h ServingSimulator::InFlight.
   */
  inFlight(t: number): number {
    return this.raw.inFlight(t);
  }

  /**
   * A dispatched simulator: appends request `index` of the constructor's requests (they arrive in
   * order: its arrival must not precede the last one added, and must follow every step run: call
   * runUntil(its arrival) first). Its times are then at its place among the requests added.
   * @throws RangeError naming what is wrong (index, order, segments); Error when not dispatched.
   */
  add(index: number): void {
    this.raw.add(index);
  }

  /**
   * Copies up to maxRequests more requests into the simulator, checking them (10,000,000
   * requests take seconds: a caller loads them in slices between turns of its event loop).
   * @returns true once all are loaded (the simulator is built).
   * @throws RangeError naming what is wrong with a request (unsorted arrivals, bad segments).
   */
  load(maxRequests: number): boolean {
    this.loadedRequests = this.raw.load(intArg('maxRequests', maxRequests, 1, Number.MAX_SAFE_INTEGER));
    return this.loadedRequests === this.requests;
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

  /** Each request's milestones so far (see {@link ServingSimTimes}). */
  times(): ServingSimTimes {
    return this.raw.times();
  }

  /**
   * Releases the simulator's memory (its pool's pages, requests, times, samples) now rather than
   * when the garbage collector finalizes it: V8 does not count that memory, so simulators made in
   * a loop (a data-parallel run: dp a pass, tens of MB each for a large pool) pile up before it
   * does (s41 newcomer F1: dp 8 over 300 requests held 2.9 GB). Any later call throws Error.
   */
  free(): void {
    this.raw.free();
  }
}

/** Steps per slice on the worker: a contiguous step costs ~0.3–30 µs, so a stop is seen within milliseconds. */
const WORKER_SLICE_STEPS = 1024;
/** Requests loaded per slice on the worker: tens of nanoseconds each, a few milliseconds. */
const WORKER_SLICE_REQUESTS = 1 << 16;

/**
 * The simulation worker, plain JavaScript (it runs without the TypeScript loader). workerData:
 * { addonPath }. Each message is a job { id, configs (layout as the addon's index), requests,
 * stop: SharedArrayBuffer (Int32 0 = run, 1 = stop), sliceSteps, sliceRequests }; it loads and
 * runs the configs one after the other, checking `stop` between slices (of loads and of steps), and answers { id, totals } (null when stopped) or
 * { id, error }. Jobs run in the order they came.
 */
const SIM_WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { ServingSimulator } = require(workerData.addonPath);
function runJob({ configs, requests: r, stop: stopBuffer, sliceSteps, sliceRequests }) {
  const stop = new Int32Array(stopBuffer);
  const totals = [];
  const n = r.arrivalS.length;
  for (const config of configs) {
    if (Atomics.load(stop, 0) !== 0) return null;
    const sim = new ServingSimulator(config, r.arrivalS, r.promptLen, r.outputLen, r.segmentStart, r.segmentStream, r.segmentEnd);
    while (sim.load(sliceRequests) < n) if (Atomics.load(stop, 0) !== 0) return null;
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
  const raw = configs.map((config) => addonConfig(config, requests));
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
      w.worker.postMessage({ id, configs: raw, requests, stop: stop.buffer, sliceSteps: WORKER_SLICE_STEPS, sliceRequests: WORKER_SLICE_REQUESTS });
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
