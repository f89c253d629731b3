/**
 * Capacity search (`attnscope simulate --max-rate`): the highest arrival rate whose requests
 * meet the SLO and that the modelled server keeps up with, found by bisection over a load
 * multiplier — a workload's Poisson arrival_rate times it, or a trace's arrival times divided by
 * it (simulatePool's rateScale). A rate passes when (1) at least `attainment` of all requests
 * meet every SLO bound (rejected ones miss it) and (2) it is at most the server's saturated
 * throughput μ ({@link saturatedThroughput}) and its own run's queue did not grow (PoolLoad.overloaded;
 * not asked where the load gives each engine, one or more, fewer than OVERLOAD_MIN_SHARE requests,
 * too few to show a queue: CapacityCurve.requestsPerEngine; s49: a 5-request trace on one engine had
 * 9.66 requests/s, under μ = 11.5, fail for 3 requests arriving within the last steps).
 *
 * Why (2): a finite load ends before an overloaded server's queue has grown, so (1) alone passes
 * rates far above what the server serves (s29: 41.5 req/s offered to a server that completes
 * 24.5 req/s at max_num_seqs, passing because 300 requests arrived in 7 s), and the answer grew
 * as the trace got shorter. Above μ the queue grows without bound in a steady state, whatever
 * the SLO. (Vidur's capacity_search.py passes a QPS when a quantile of the scheduling delay of
 * one finite run is under a bound: a queue criterion with the same finite-run blind spot.)
 * μ is measured once per search and does not depend on the number of requests replayed.
 *
 * Walk: from the given scale (--time-scale, default 1), double while passing (the first step goes
 * to μ / 2 when that is more than a doubling), trying μ itself in place of a doubling above it (no rate above μ passes; μ passing is the answer); or, failing, try μ
 * if the start is above it, then halve while failing, until halving no longer changes the p99s:
 * then no rate passes) to bracket the
 * boundary, then bisect geometrically until hi / lo − 1 < tolerance. The answer is the highest
 * passing rate tried: the true boundary lies in [answer, answer · (1 + tolerance)). Every rate
 * tried is kept (the curve: rate vs p99 TTFT, p99 TPOT). It assumes attainment falls as the load
 * rises (true of a queue; a finite trace replayed faster can break it slightly, which the curve
 * shows). The curve says what bounds the answer (CapacityCurve.limit): μ, or the SLO. All figures
 * are modelled (the simulator's clock).
 *
 * Each rate's run replays the load as given (the profile's workload.requests, or the trace) over all
 * data-parallel engines, not one engine's share: the SLO is judged on every request, and how the
 * dispatch spreads them (two at once on one engine while another idles) is part of what they see.
 * Its cost is a plain simulation's, bounded by the request count, less the pool samples: each rate
 * keeps 2, and the answer's run is simulated once more with the caller's (unpacking 1,024 engines'
 * samples was half of each rate's 1.7-2.7 s of CPU at dp 1024); μ's runs are one engine's whatever dp.
 */
import type { Profile } from '../../core/config/types';
import { CAPACITY_TOLERANCE_DEFAULT, SLO_ATTAINMENT_DEFAULT, type CapacityCurve, type CapacityPoint, type LatencySlo } from '../../core/protocol/latency';
import type { PoolResult } from '../../core/protocol/run';
import { maxNumSeqsOf } from '../../core/estimate/index';
import { OVERLOAD_MIN_SHARE, requestRateDown } from '../../core/format';
import type { ServingSimRequests, ServingSimTimes } from '../../native';
import { simulatePool, type PoolProgress, type SimulateOptions } from './simulate';
import { weightReadSeconds } from './step-time';
import { generateRequests } from './workload';

export interface CapacityOptions {
  slo: LatencySlo;
  /** Fraction of requests that must meet the SLO, in (0, 1]; default slo.attainment, else SLO_ATTAINMENT_DEFAULT (0.9). */
  attainment?: number;
  /** Relative tolerance of the answer, default CAPACITY_TOLERANCE_DEFAULT (0.02). */
  tolerance?: number;
  /**
   * Packed trace, else the profile's workload's draws: a profile's workload.trace is read by the
   * caller and given here (the CLI, runner/sweep/worker.ts), not read again for μ's saturation run.
   */
  requests?: ServingSimRequests;
  /** Load multiplier the search starts from (--time-scale), default 1. */
  startScale?: number;
  /** Passed to each simulation (step time, signal, ...). */
  simulate?: Omit<SimulateOptions, 'requests' | 'trace' | 'rateScale' | 'slo' | 'baselines'>;
  /** Called after each simulation of a rate. */
  onPoint?: (p: CapacityPoint) => void;
  /** Called once the saturated throughput μ is measured (the search's first simulation), with μ in requests/s (Infinity: not measurable). */
  onSaturated?: (requestsPerSec: number) => void;
}

/** Pool samples each rate's run keeps ({@link searchCapacity}); the answer's run keeps the caller's. */
const RATE_SAMPLES = 2;

/** Bracketing stops at 2^±20 times the starting rate. */
const MAX_DOUBLINGS = 20;

/**
 * `k` requests: r's, in order, repeated as often as needed, every arrival at 0 s; with `stride`
 * s, every s-th of those s · k (request i is the repeated trace's i · s: one engine's share of a
 * burst dealt to s engines in turn, {@link saturatedThroughput}). Copy c of the
 * trace (requests c·n .. c·n + n − 1) keeps each request's shared segments, but on streams of
 * its own: stream s of r becomes c · D + (index of s among r's D streams), so a copy shares a
 * prefix with the requests of its own copy as the trace does, never with another copy's. Copies
 * that shared streams would hit each other's cached prefixes, which a real load of that many
 * users would not: a 3-request trace whose last two hit the first's prefix (2 of 3 prompts)
 * tiled 10 times would hit in 29 of 30, inflating μ. Stream ids stay below 2^30 while
 * D · ceil(s · k / n) does (the simulator's bound; a RangeError past it).
 */
export function tileRequests(r: ServingSimRequests, k: number, stride = 1): ServingSimRequests {
  const n = r.arrivalS.length;
  const streams = new Map<number, number>();
  for (const s of r.segmentStream) if (!streams.has(s)) streams.set(s, streams.size);
  const d = streams.size;
  if (d * Math.ceil((stride * k) / n) > 2 ** 30) throw new RangeError(`tiling ${n} requests with ${d} prefix streams to ${stride * k} takes more than 2^30 stream ids`);
  let segments = 0;
  for (let i = 0; i < k; i++) segments += r.segmentStart[((i * stride) % n) + 1] - r.segmentStart[(i * stride) % n];
  const out: ServingSimRequests = {
    arrivalS: new Float64Array(k),
    promptLen: new Int32Array(k),
    outputLen: new Int32Array(k),
    segmentStart: new Int32Array(k + 1),
    segmentStream: new Float64Array(segments),
    segmentEnd: new Int32Array(segments),
  };
  let m = 0;
  for (let i = 0; i < k; i++) {
    const j = (i * stride) % n;
    const copy = Math.floor((i * stride) / n);
    out.promptLen[i] = r.promptLen[j];
    out.outputLen[i] = r.outputLen[j];
    out.segmentStart[i] = m;
    for (let s = r.segmentStart[j]; s < r.segmentStart[j + 1]; s++) {
      out.segmentStream[m] = copy * d + streams.get(r.segmentStream[s])!;
      out.segmentEnd[m++] = r.segmentEnd[s];
    }
  }
  out.segmentStart[k] = m;
  return out;
}

/** The saturation runs hold max(SATURATION_MIN_REQUESTS, SATURATION_SEQS · max_num_seqs) requests: one engine's. */
const SATURATION_MIN_REQUESTS = 1000;
const SATURATION_SEQS = 8;
/** The staggered saturation run offers SPREAD_OVER_BURST times the burst's μ, times it again (up to SPREAD_TRIES runs) while the server keeps pace. */
const SPREAD_OVER_BURST = 1.2;
const SPREAD_TRIES = 4;
/** K, the requests of each saturation run on one engine: max(1000, 8 · max_num_seqs) ({@link saturatedThroughput}). */
export function saturationRequests(profile: Profile): number {
  return Math.max(SATURATION_MIN_REQUESTS, SATURATION_SEQS * maxNumSeqsOf(profile));
}

/** The most saturation runs one measurement of μ takes: the burst, the burst again on more draws where over 10 % are rejected, and SPREAD_TRIES staggered ones. */
export const SATURATION_MAX_RUNS = 2 + SPREAD_TRIES;

/** Where a measurement of μ is ({@link saturatedThroughput}'s onRun): saturation run `run` of at most `maxRuns`, and that run's own progress. */
export interface SaturationProgress {
  /** The run under way, 1-based: 1 the burst, 2 … the staggered ones. */
  run: number;
  /** {@link SATURATION_MAX_RUNS}: the staggered runs stop early once the server falls behind. */
  maxRuns: number;
  /** The run's paged simulation so far (its `requests` the saturation run's K, one engine's). */
  progress: PoolProgress;
}

/**
 * The modelled server's saturated throughput μ, requests/s: what it completes per second while
 * its queue never empties. K = max(1000, 8 · max_num_seqs) requests of the load (a trace's first
 * K, repeated when it holds fewer, each copy on prefix streams of its own: {@link tileRequests};
 * a workload's first K draws), run on one engine twice:
 * - a burst: all K wait at t = 0;
 * - staggered: request i arrives at i / R, R = 1.2 × the burst's μ (times 1.2 again, up to 4 runs,
 *   while the server completes the middle half at 0.98 R or faster: then it was not behind).
 * μ is the staggered run's when over 1 % above the burst's (each is uncertain by about a step's
 * completions at the middle half's edges: 8.01 against 8 in the unit test), else the burst's. With equal lengths (vllm bench serve's random dataset: prompt 512,
 * output 128) the burst's max_num_seqs requests start and finish together, in waves of prefill-only
 * steps then decode-only steps, and stay so: 55.2 requests/s for Llama-3.1-8B on an H100 SXM, while
 * a Poisson load of 60/s kept up (3 of 40,000 waiting at the last arrival; s43 newcomer43 F1). The
 * staggered run admits them one by one, as a steady load does, so steps mix prefill chunks with
 * decodes, and the stagger lasts (a freed slot is refilled at once): 62.9/s. With lengths that
 * vary (the example's lognormal prompts) the waves break up by themselves and both runs agree
 * within 0.4 % (31.04 burst, 30.93 staggered). Each run's rate: its completion times f sorted
 * ascending, (completions in (f[K/4], f[3K/4]]) / (f[3K/4] − f[K/4]): the middle half, past the
 * first admissions and before the queue runs dry. Only served requests count: a rejected one
 * (a prompt that reaches max_model_len, or more pages than the pool holds) is refused by vLLM with
 * an error and counts in no throughput (`vllm bench serve` counts it failed). Until s53 μ was
 * divided by the completed fraction, so rejections raised it: max_model_len 100 on the example's
 * lengths served 107 of 2,048 and read 43,480 requests/s. Where over 10 % of the K are rejected the
 * runs draw more, K · K / served (at most {@link SATURATION_MAX_DRAWS} · K), so that about K are
 * served and the batch still fills. Infinity when fewer than 8 requests complete or the burst's
 * middle half takes no time. {@link measureSaturation} gives the admitted share beside it.
 *
 * Data parallelism (device.data_parallel_size dp > 1): μ is dp times one engine's, measured on
 * one engine given its share of dp · K requests. vLLM's engines are identical copies that share
 * nothing once a request is dispatched: the API server picks each request's engine at its arrival
 * (DPLBAsyncMPClient.get_core_engine_for_request, dataParallel.ts pickEngine) and no engine takes
 * work from another, so while every queue is non-empty (saturation) the pool completes the sum of
 * its engines' rates. A burst is dealt in turn (all in-flight counts tie after each round, and the
 * scan start rotates: request i to engine i mod dp), so engine 0's share is every dp-th request of
 * the load's first dp · K ({@link tileRequests} with stride dp: a trace's neighbours, which may
 * share a prefix, land on different engines as they do under vLLM), and the other engines' shares
 * are draws of the same load. A workload's draws are independent (workload.ts generateRequests),
 * so its first K stand for any engine's share. With equal requests the scaled μ equals the whole
 * pool's run's (capacity.test.ts, dp 2 and dp 4); with varied ones it differs by the sampling
 * between engines' shares (31.04 · 8 = 248.3 against 251.0 for the example at dp 8). The whole
 * pool ran dp · K requests, dispatched over dp engines at a cost per arrival that grows with dp:
 * 44.5 s of CPU at dp 64 and hours at dp 1024 (s43 newcomer43 F6). `allEngines` runs it so
 * (the unit test's reference).
 * Example (the unit test): constant 10 ms steps, output 100, max_num_seqs 8: waves of 8 every
 * 100 steps, μ = 8 / 1 s, which staggering cannot beat (a slot serves one request a second).
 */
export async function saturatedThroughput(profile: Profile, opts: Pick<CapacityOptions, 'requests' | 'simulate'> & { allEngines?: boolean; onRun?: (p: SaturationProgress) => void }): Promise<number> {
  return (await measureSaturation(profile, opts)).requestsPerSec;
}

/** The saturation runs draw at most this many times K requests where most are rejected ({@link saturatedThroughput}). */
export const SATURATION_MAX_DRAWS = 32;

/**
 * {@link saturatedThroughput}'s μ (served requests/s; Infinity: not measurable) and `admitted`, the
 * share 0-1 of the saturation run's requests the server admitted (not rejected): an offered rate R
 * of this load asks R · admitted of the server, so the offered rate at μ is μ / admitted.
 */
export async function measureSaturation(profile: Profile, opts: Pick<CapacityOptions, 'requests' | 'simulate'> & { allEngines?: boolean; onRun?: (p: SaturationProgress) => void }): Promise<{ requestsPerSec: number; admitted: number }> {
  const dp = profile.device.dataParallelSize ?? 1;
  const engines = opts.allEngines ? dp : 1;
  const scaled = dp / engines;
  const server: Profile = engines === dp ? profile : { ...profile, device: { ...profile.device, dataParallelSize: engines } };
  const k = engines * saturationRequests(profile);
  const w = profile.workload;
  const load = (n: number) => (opts.requests ? tileRequests(opts.requests, n, scaled) : w ? tileRequests(generateRequests({ ...w, requests: n }), n) : null);
  let n = k;
  let requests = load(n);
  if (!requests) return { requestsPerSec: Infinity, admitted: 1 }; // simulatePool says what is missing
  let run = 0;
  let served = n;
  const rate = async (arrivalS: Float64Array): Promise<number> => {
    let times: ServingSimTimes | undefined;
    const at = ++run;
    const onRun = opts.onRun;
    await simulatePool(server, {
      ...opts.simulate, requests: { ...requests!, arrivalS }, baselines: false, maxSamples: 2, onTimes: (_, t) => (times = t),
      ...(onRun ? { onProgress: (progress: PoolProgress) => onRun({ run: at, maxRuns: SATURATION_MAX_RUNS, progress }) } : {}),
    });
    // Served requests only (a rejected one's finish is −1): the rate at which the server completes them.
    const finish = Array.from(times!.finishS).filter((f) => f >= 0).sort((a, b) => a - b);
    const m = (served = finish.length);
    if (m < 8) return Infinity;
    const a = finish[Math.floor(m / 4)];
    const b = finish[Math.floor((3 * m) / 4)];
    if (!(b > a)) return Infinity;
    let count = 0;
    for (const f of finish) if (f > a && f <= b) count++;
    return count / (b - a);
  };
  let burst = await rate(new Float64Array(n));
  if (served > 0 && served < 0.9 * k) {
    // Most rejected: draw more, so that about K are served and fill the batch as K would.
    n = Math.min(Math.ceil((k * n) / served), SATURATION_MAX_DRAWS * k);
    requests = load(n);
    burst = await rate(new Float64Array(n));
  }
  const admitted = served / n;
  if (!Number.isFinite(burst)) return { requestsPerSec: burst, admitted };
  let mu = burst;
  for (let i = 1, offered = SPREAD_OVER_BURST * burst; i <= SPREAD_TRIES; i++, offered *= SPREAD_OVER_BURST) {
    // Arrivals at offered / admitted: the admitted ones arrive at `offered`, the rate compared below.
    const staggered = await rate(Float64Array.from({ length: n }, (_, j) => (j * admitted) / offered));
    // Over 1 % above the burst only: each figure is uncertain by about a step's completions at the middle half's edges.
    if (Number.isFinite(staggered) && staggered > 1.01 * burst) mu = Math.max(mu, staggered);
    if (!(staggered >= 0.98 * offered)) break; // behind the arrivals (by more than 2 %): saturated
  }
  return { requestsPerSec: scaled * mu, admitted };
}

/** The share 0-1 of a run's requests the server admitted (served, not rejected): 1 for a run of none. */
export function admittedShare(summary: Pick<PoolResult['summary'], 'requests' | 'rejected'>): number {
  return summary.requests > 0 ? 1 - summary.rejected / summary.requests : 1;
}

/**
 * Whether the modelled server keeps up with the load `pool` ran, judged as --max-rate judges a
 * rate: the load's offered rate as this run measured it (PoolLoad.offeredRequestsPerSec, (n − 1) /
 * span of the arrivals, a drawn workload's as a trace's) at most the saturated throughput μ
 * ({@link saturatedThroughput}), and its queue not growing through the arrivals (PoolLoad.overloaded).
 * The measured rate, not a workload's nominal arrival_rate × time scale: the rate the run's Load
 * line prints and judges against μ (core/format.ts formatLoad, aboveSaturation) and its cost is
 * priced at (steadyOutput), so the sweep's keeps-up column and the point's own summary agree (s47: 40
 * draws at arrival_rate 8.1, seed 1, offered 7.94/s, under μ = 8: "Kept up" in the summary, "no" in
 * the sweep). A capacity search judges its own searched rate instead, as its curve prints it. A finite run alone misses the first: s34 newcomer-cli 6, gemma-3-1b
 * at arrival_rate 240 against μ = 236.1/s: 2,000 requests end before the queue grows (6 waiting at
 * the last arrival), 100 % meet the SLO, and the sweep called it best. Sets pool.load's
 * saturatedRequestsPerSec and keepsUp (nothing without pool.load); costs two to six simulations of
 * one engine's max(1000, 8 · max_num_seqs) requests, whatever data_parallel_size ({@link saturatedThroughput}), or none when `opts.saturated` gives μ (a profile of the
 * same saturationKey's), which sets saturatedFrom too. `opts.onRun` hears each saturation run's progress
 * (simulate's progress line). A cancel (opts.simulate.signal) throws CancelledError with pool.load untouched.
 */
export async function checkKeepsUp(profile: Profile, pool: PoolResult, opts: Pick<CapacityOptions, 'requests' | 'simulate'> & { saturated?: KnownSaturation; onRun?: (p: SaturationProgress) => void }): Promise<void> {
  const load = pool.load;
  if (!load) return;
  const mu = opts.saturated ? (opts.saturated.requestsPerSec ?? Infinity) : await saturatedThroughput(profile, opts);
  if (opts.saturated) load.saturatedFrom = opts.saturated.from;
  // The rate asked of the server: the offered one less the rejected requests (μ counts served ones only).
  const rate = (load.offeredRequestsPerSec ?? Infinity) * admittedShare(pool.summary);
  load.saturatedRequestsPerSec = Number.isFinite(mu) ? mu : null;
  load.keepsUp = !load.overloaded && (!Number.isFinite(mu) || rate <= mu * (1 + 1e-12));
}

/** μ already known for a profile of the same {@link saturationKey}: its value (PoolLoad.saturatedRequestsPerSec, null: not measurable) and whose run measured it. */
export interface KnownSaturation {
  requestsPerSec: number | null;
  /** The run that measured it, in words: "sweep point arrival_rate=10" (PoolLoad.saturatedFrom). */
  from: string;
}

/**
 * What μ ({@link saturatedThroughput} of a profile's workload, no trace) depends on, as text: two
 * profiles with equal keys have the same μ, so a sweep measures it once per key
 * (runner/sweep/local.ts). That is all the profile but: the workload's `requests` (the saturation
 * run draws its own K); its `arrival_rate` when finite and positive (the K requests all arrive at
 * 0 s, and a positive rate takes one uniform draw per request whatever its value, so the same
 * lengths and prefixes are drawn: workload.ts RequestGenerator.next); and where the profile was
 * read from (sourcePath, ranges). A rate of 0 or none draws no arrival gaps, so other lengths: kept.
 */
export function saturationKey(profile: Profile): string {
  const w = profile.workload;
  const positive = w !== null && Number.isFinite(w.arrivalRate) && w.arrivalRate > 0;
  return JSON.stringify({ ...profile, sourcePath: null, ranges: {}, workload: w && { ...w, requests: 0, arrivalRate: positive ? 'finite, positive' : w.arrivalRate } });
}

/**
 * The base rate (scale 1), requests/s: the offered rate (n − 1) / span of the arrivals the run
 * replays, a trace's or the profile's workload drawn at scale 1 (its arrivals scale as 1 / scale:
 * workload.ts endSendsAtRate), so that rate × scale is what each run's Load line says it offered
 * (s49 newcomer L3: 30.1 = arrival_rate 24 × 1.2523 beside the run's 30.0 offered). Infinity
 * without two distinct arrival times (every request at 0 s, no arrival_rate).
 */
export function baseRate(profile: Profile, requests?: ServingSimRequests): number {
  const w = profile.workload;
  const arrivals = requests?.arrivalS ?? (w && Number.isFinite(w.arrivalRate) && w.arrivalRate > 0 ? generateRequests(w, 1).arrivalS : null);
  if (!arrivals) return Infinity;
  const n = arrivals.length;
  const span = n > 1 ? arrivals[n - 1] - arrivals[0] : 0;
  return n > 1 && span > 0 ? (n - 1) / span : Infinity;
}

/**
 * Runs the search. @returns the curve and the result of the highest passing rate (or of the
 * last simulation when none passed).
 * @throws RangeError for an SLO without bounds, attainment or tolerance out of range, or a load
 *   without a finite rate (a trace with every arrival at 0 s, a workload without arrival_rate).
 */
export async function searchCapacity(profile: Profile, opts: CapacityOptions): Promise<{ curve: CapacityCurve; result: PoolResult }> {
  const attainment = opts.attainment ?? opts.slo.attainment ?? SLO_ATTAINMENT_DEFAULT;
  const slo = { ...opts.slo, attainment };
  const tolerance = opts.tolerance ?? CAPACITY_TOLERANCE_DEFAULT;
  if (opts.slo.ttftMs === undefined && opts.slo.tpotMs === undefined) throw new RangeError('the capacity search needs an SLO: --slo-ttft-ms and/or --slo-tpot-ms, or the profile\'s slo');
  if (!(attainment > 0 && attainment <= 1)) throw new RangeError(`attainment must be in (0, 1], got ${attainment}`);
  if (!(tolerance > 0 && tolerance < 1)) throw new RangeError(`tolerance must be in (0, 1), got ${tolerance}`);
  const rate0 = baseRate(profile, opts.requests);
  // A drawn workload's arrival_rate where its draws offer another rate (CapacityPoint.askedRate); a trace's is rate0.
  const arrivalRate = opts.requests ? undefined : profile.workload?.arrivalRate;
  const asked0 = arrivalRate !== undefined && Math.abs(arrivalRate / rate0 - 1) > 1e-9 ? arrivalRate : undefined;
  if (!Number.isFinite(rate0)) throw new RangeError('the load has no finite arrival rate to scale (every arrival at the same time)');
  const start = opts.startScale ?? 1;
  if (!(start > 0 && Number.isFinite(start))) throw new RangeError(`the starting time scale must be a positive number, got ${start}`);
  const saturation = await measureSaturation(profile, opts);
  const mu = saturation.requestsPerSec;
  opts.onSaturated?.(mu);
  // μ counts served requests; the offered rate (rejected requests too) at which the server is asked μ:
  // what the walk's steps compare offered rates with. Each rate's own run judges its keeps-up.
  const muOffered = saturation.admitted > 0 ? mu / saturation.admitted : mu;

  // A share of the load under OVERLOAD_MIN_SHARE an engine cannot show a queue (its runs' PoolLoad.overloaded is
  // false, not judged: simulate.ts poolLoad): each rate is then judged on μ alone, and the curve says so.
  const dp = profile.device.dataParallelSize ?? 1;
  const share = (opts.requests ? opts.requests.arrivalS.length : (profile.workload?.requests ?? 0)) / dp;
  const queueTells = share >= OVERLOAD_MIN_SHARE;
  const points: CapacityPoint[] = [];
  let best: { scale: number } | null = null;
  let last: PoolResult | null = null;
  // Each rate runs with RATE_SAMPLES pool samples; the answer's run is simulated again with the
  // caller's (below). Samples are the pool's record over time, read by no figure of a point.
  const simulateAt = (scale: number, maxSamples?: number) => simulatePool(profile, { ...opts.simulate, requests: opts.requests, rateScale: scale, slo, baselines: false, ...(maxSamples !== undefined ? { maxSamples } : {}) });
  const run = async (scale: number): Promise<boolean> => {
    const result = await simulateAt(scale, RATE_SAMPLES);
    const l = result.latency!;
    // The rate the run saw, rate0 × scale: its arrivals' (n − 1) / span, as its Load line says; a drawn
    // workload's asked rate, arrival_rate × scale, beside it where the draws make them differ.
    const offered = rate0 * scale;
    const point: CapacityPoint = {
      rate: offered,
      ...(asked0 !== undefined ? { askedRate: asked0 * scale } : {}),
      scale,
      p99TtftS: l.ttft?.p99 ?? null,
      p99TpotS: l.tpot?.p99 ?? null,
      ttftAtTargetS: l.sloPercentile?.ttftS ?? null,
      tpotAtTargetS: l.sloPercentile?.tpotS ?? null,
      goodputRequestsPerSec: l.goodputRequestsPerSec ?? 0,
      sloAttainment: l.sloAttainment ?? 0,
      ...(result.summary.rejected > 0 ? { rejected: result.summary.rejected / result.summary.requests } : {}),
      keepsUp: offered * admittedShare(result.summary) <= mu * (1 + 1e-12) && !result.load?.overloaded,
      ...(result.load ? { overloaded: result.load.overloaded } : {}),
      meets: false,
    };
    point.meets = (l.sloAttainment ?? 0) >= attainment && point.keepsUp === true;
    points.push(point);
    opts.onPoint?.(point);
    last = result;
    if (point.meets && (!best || scale > best.scale)) best = { scale };
    return point.meets;
  };

  let lo: number | null = null;
  let hi: number | null = null;
  const same = (a: number | null, b: number | null) => (a === null || b === null ? a === b : Math.abs(a - b) <= 1e-3 * Math.max(a, b));
  // Once the scaled trace's arrivals all fall inside one step, a higher rate changes nothing.
  const saturated = (scale: number) => {
    const floor = last!.stepTime ? last!.stepTime.perStepS + weightReadSeconds(last!.stepTime, 1, 1) : 0;
    // A trace's span as recorded, divided by the scale; a workload's at the scaled rate already.
    const a = opts.requests?.arrivalS;
    return (a ? (a[a.length - 1] - a[0]) / scale : (profile.workload?.requests ?? 0) / (rate0 * scale)) <= floor;
  };
  let unbounded = false;
  if (await run(start)) {
    lo = start;
    // From a passing start far below μ, the next rate tried is μ / 2, not start · 2: the doublings
    // in between pass or fail as μ / 2 would bracket them (dp 1024: 24 requests/s doubled 8 times
    // toward μ 3.178e4, each run of the 2,000 requests over 1,024 engines).
    let jump = Number.isFinite(mu) && muOffered / 2 / rate0 > 2 * start;
    for (let k = 1; k <= MAX_DOUBLINGS && hi === null; k++) {
      const next: number = jump ? muOffered / 2 / rate0 : 2 * lo!;
      jump = false;
      // The next doubling above μ fails whatever its SLO (criterion 2): try μ itself instead,
      // the highest rate that can pass, and stop (s34 newcomer-cli 5: three bisection runs above μ).
      if (Number.isFinite(mu) && rate0 * next > muOffered * (1 + 1e-12)) {
        if (muOffered / rate0 > lo) {
          if (await run(muOffered / rate0)) lo = muOffered / rate0;
          else hi = muOffered / rate0;
        }
        break;
      }
      if (saturated(lo!)) {
        // A higher rate no longer changes the run, so the SLO's verdict stays: the limit is μ.
        if (Number.isFinite(mu) && muOffered / rate0 > lo) {
          if (await run(muOffered / rate0)) lo = muOffered / rate0;
          else hi = muOffered / rate0;
        } else unbounded = !Number.isFinite(mu);
        break;
      }
      if (await run(next)) lo = next;
      else hi = next;
    }
    if (hi === null && !Number.isFinite(mu)) unbounded = true;
  } else {
    hi = start;
    // Above μ every rate fails (criterion 2), and there a plateau of the p99s says nothing about
    // lower rates: a trace offered at 10^6 and at 5·10^5 requests/s arrives within the first steps
    // alike (s33 newcomer: μ ≈ 30/s, "no rate meets the SLO" while 27.7/s did). So the walk tries
    // μ itself first: if it passes it is the answer (no rate above it can), else it halves from μ.
    let from = start;
    if (Number.isFinite(mu) && muOffered / rate0 < start) {
      from = muOffered / rate0;
      if (await run(from)) {
        lo = from;
        hi = null;
      } else hi = from;
    }
    for (let k = 1; k <= MAX_DOUBLINGS && lo === null; k++) {
      if (await run(from * 2 ** -k)) lo = from * 2 ** -k;
      else hi = from * 2 ** -k;
      // Halving the load changed neither p99 (to 0.1%): what misses the SLO is the step time of
      // one request alone, which no lower rate shortens; stop rather than halve on to 2^-20.
      const [prev, cur] = points.slice(-2);
      if (lo === null && prev && cur && same(prev.p99TtftS, cur.p99TtftS) && same(prev.p99TpotS, cur.p99TpotS)) break;
    }
  }
  if (lo !== null && hi !== null) {
    while (hi / lo - 1 >= tolerance) {
      const mid = Math.sqrt(lo * hi);
      if (await run(mid)) lo = mid;
      else hi = mid;
    }
  }
  const found = best as { scale: number } | null;
  // What bounds the answer: μ when the answer is μ itself, or when the lowest rate above it that
  // failed met the SLO and failed only for not keeping up; else the SLO.
  let limit: CapacityCurve['limit'];
  if (found && !unbounded) {
    const answer = rate0 * found.scale;
    const above = points.filter((p) => !p.meets && p.rate > answer).sort((x, y) => x.rate - y.rate)[0];
    limit = (Number.isFinite(mu) && answer >= muOffered * (1 - 1e-9)) || (above !== undefined && above.keepsUp === false && above.sloAttainment >= attainment) ? 'capacity' : 'slo';
  }
  // The answer as a user writes it: the rate they set (a workload's arrival_rate × scale, a trace's
  // offered rate) rounded down to 3 significant digits, and run at that figure, so that the rate
  // answered is one the search simulated. Attainment near the target is not monotone in the rate
  // (s51, Llama-3.1-70B tp 8 on L4s: 0.1996 and 0.2039 asked met 90.0 %, 0.203 between them 89.9 %),
  // so a figure rounded after the search could miss the SLO the answer claims. Where the rounded
  // rate fails, the next passing rate tried below it is rounded in turn (each step strictly lower).
  let b = found;
  if (b && !unbounded) {
    const user0 = asked0 ?? rate0;
    for (let from = b.scale; ; ) {
      const scale = requestRateDown(user0 * from) / user0;
      const tried = points.find((p) => Math.abs(p.scale / scale - 1) <= 1e-12);
      if (tried ? tried.meets : await run(scale)) {
        b = { scale: tried ? tried.scale : scale };
        break;
      }
      const below = points.filter((p) => p.meets && p.scale < scale * (1 - 1e-12)).sort((x, y) => y.scale - x.scale)[0];
      // None (rare: the lowest rate that passed was not a 3-digit figure, and its rounding failed):
      // the answer stays the passing rate the search found, a rate it ran, though of more digits.
      if (!below) break;
      from = below.scale;
    }
  }
  const curve: CapacityCurve = {
    kind: 'modelled',
    slo,
    attainmentTarget: attainment,
    tolerance,
    points,
    maxRate: b ? rate0 * b.scale : null,
    saturatedRate: Number.isFinite(mu) ? mu : null,
    maxScale: b ? b.scale : null,
    unbounded,
    ...(limit ? { limit } : {}),
    ...(queueTells ? {} : { requestsPerEngine: share }),
  };
  // The answer's run again with the caller's samples (the dashboard's pool and queue charts): the
  // same simulation, so the same figures; at dp 1024 unpacking every engine's samples was half of
  // each rate's run (s44 dp44).
  const answer = await simulateAt(b ? b.scale : points.at(-1)!.scale, opts.simulate?.maxSamples);
  // The answer's load judged as the search judged its rate (checkKeepsUp's fields): μ, and whether
  // its rate is at most μ with no queue grown (s46: its summary said it could not tell, μ known).
  if (answer.load) {
    const shown = b ? rate0 * b.scale : points.at(-1)!.rate;
    answer.load.saturatedRequestsPerSec = Number.isFinite(mu) ? mu : null;
    answer.load.keepsUp = !answer.load.overloaded && (!Number.isFinite(mu) || shown * admittedShare(answer.summary) <= mu * (1 + 1e-12));
  }
  return { curve, result: { ...answer, capacity: curve } };
}
