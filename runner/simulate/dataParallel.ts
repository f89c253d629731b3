/**
 * Data parallelism in the serving simulation (device.data_parallel_size > 1): dp engines, each
 * its own pool and scheduler (one simulator each), sharing the arrivals as vLLM's API server
 * spreads them (vllm/v1/engine/core_client.py DPLBAsyncMPClient.get_core_engine_for_request).
 *
 * The API server picks each request's engine at its arrival from the engines' state at that
 * moment (which of their requests are still in flight), and that state depends on the earlier
 * picks: the engines are coupled. They are simulated online, arrival by arrival: each engine's
 * simulator runs the steps that start before the arrival (ServingSimulator.runUntil; a step admits
 * the requests arrived by its start, so the request still joins the engine's next step, as if
 * the engine had been given it from the start), the rule ({@link pickEngine}) reads each engine's
 * in-flight count (ServingSimulator.inFlight), and the request is added to the engine it picks.
 * Every step is simulated once, and an arrival touches only the engines whose state may have
 * changed since they were last touched ({@link dispatchOnline}): the cost is one simulation of
 * each engine's requests plus, an arrival, two bridge calls for each engine touched and a scan
 * of the dp in-flight counts (in JavaScript).
 */
import type { ServingSimRequests, ServingSimTimes, ServingSimulator } from '../../native';
import { cancelPoint } from '../errors';
import { DP_SAMPLED_ENGINES } from '../../core/format';

/** What the dispatch needs of an engine: a dispatched ServingSimulator (or the raw addon's / WebAssembly build's). */
export type DispatchedEngine = Pick<ServingSimulator, 'runUntil' | 'inFlight' | 'add' | 'run' | 'totals'>;

/** Where the data-parallel run is, for its progress (dispatchOnline onProgress). */
export interface DispatchProgress {
  /** Requests dispatched so far (all of them once the engines run to the end). */
  dispatched: number;
  /**
   * Simulated seconds up to which every engine has been simulated: the arrival just dispatched,
   * then, while the engines run to the end, the clock of the one furthest behind (never less than
   * the last arrival: an engine not brought up to it has no step before it).
   */
  clockS: number;
}

/** How the requests were dispatched, for the result and the CLI's line (DataParallelResult.dispatch). */
export const DP_DISPATCH_TEXT = "each request to the engine with the lowest score, max(requests in flight, the coordinator's 100 ms snapshot of them + picks since), ties to the next in turn, as vLLM's DPLBAsyncMPClient.get_core_engine_for_request with one API server (vllm/v1/engine/core_client.py, current main; snapshots at multiples of 100 ms from the first arrival's clock 0, counting the requests in flight then); not modelled: its KV-pressure penalty on an engine with waiting requests, and older releases' waiting · 4 + running score";

/**
 * Snapshots of the engines' counts a second: vLLM's DP coordinator publishes them at most every
 * min_stats_update_interval_ms = 100 (vllm/v1/engine/coordinator.py; every 4 s when unchanged).
 */
export const STATS_PER_S = 10;

/** The index j of the last snapshot at or before t seconds: j / STATS_PER_S <= t < (j + 1) / STATS_PER_S. */
export function lastSnapshot(t: number): number {
  const j = Math.floor(t * STATS_PER_S);
  if (j / STATS_PER_S > t) return j - 1;
  return (j + 1) / STATS_PER_S <= t ? j + 1 : j;
}

/**
 * The engine vLLM's load balancer picks for a request, one API-server client (client_count 1), as
 * current vLLM main writes DPLBAsyncMPClient.get_core_engine_for_request: scan the engines from
 * eng_start_index (`start`), the lowest score wins (strict <: a tie keeps the first scanned); the
 * caller then moves the start on by one ("rotate the scan start so that ties ... don't
 * systematically favor the same engine"). The score is max(client_count · in-flight, waiting +
 * running), in-flight the client's exact count of its unfinished requests on the engine
 * (engine_inflight, decremented when the engine reports one finished), waiting + running the
 * coordinator's snapshot of the engines' scheduler counts (vllm/v1/engine/coordinator.py
 * publishes it at most every min_stats_update_interval_ms = 100, {@link STATS_PER_S}) plus the
 * client's own picks since it (current_counts[eng_index][0] += client_count): an engine's
 * requests finished since the snapshot still count until the next one. The caller gives the
 * score ({@link dispatchOnline}: the snapshot modelled as the requests in flight at each multiple
 * of 100 ms, not the engines' counts at their last step, nor late by the publishing). Not
 * modelled: the KV-pressure penalty waiting · 6 · max(0, kv_cache_usage − 0.5) where waiting > 0.
 * Older releases scored waiting · 4 + running from the snapshot, with a fixed scan start: not
 * modelled either. A request counts as finished from its finish time on (finish <= the
 * arrival); a rejected one is never in flight (ServingSimulator.inFlight).
 * @param score per engine, its score at the arrival.
 * @returns the engine, 0-based.
 */
export function pickEngine(score: ArrayLike<number>, start: number): number {
  const dp = score.length;
  let best = start;
  for (let i = 1; i < dp; i++) {
    const idx = (start + i) % dp;
    if (score[idx] < score[best]) best = idx;
  }
  return best;
}

/** The requests `idx` picks (arrival order kept), with their prefix segments. */
export function subsetRequests(r: ServingSimRequests, idx: ArrayLike<number>): ServingSimRequests {
  const m = idx.length;
  let segments = 0;
  for (let j = 0; j < m; j++) segments += r.segmentStart[idx[j] + 1] - r.segmentStart[idx[j]];
  const out: ServingSimRequests = {
    arrivalS: new Float64Array(m), promptLen: new Int32Array(m), outputLen: new Int32Array(m),
    segmentStart: new Int32Array(m + 1), segmentStream: new Float64Array(segments), segmentEnd: new Int32Array(segments),
  };
  let s = 0;
  for (let j = 0; j < m; j++) {
    const i = idx[j];
    out.arrivalS[j] = r.arrivalS[i];
    out.promptLen[j] = r.promptLen[i];
    out.outputLen[j] = r.outputLen[i];
    for (let q = r.segmentStart[i]; q < r.segmentStart[i + 1]; q++, s++) {
      out.segmentStream[s] = r.segmentStream[q];
      out.segmentEnd[s] = r.segmentEnd[q];
    }
    out.segmentStart[j + 1] = s;
  }
  return out;
}

/** The requests of each engine, in arrival order: indices into the whole trace. */
export function requestsByEngine(engineOf: Int32Array, dp: number): Int32Array[] {
  const counts = new Array<number>(dp).fill(0);
  for (const e of engineOf) counts[e]++;
  const out = counts.map((c) => new Int32Array(c));
  const at = new Array<number>(dp).fill(0);
  engineOf.forEach((e, i) => {
    out[e][at[e]++] = i;
  });
  return out;
}

/** Each engine's times laid back at their requests' places in the whole trace. */
export function mergeTimes(n: number, byEngine: Int32Array[], times: ServingSimTimes[]): ServingSimTimes {
  const out: ServingSimTimes = { queuedS: new Float64Array(n), scheduledS: new Float64Array(n), firstTokenS: new Float64Array(n), finishS: new Float64Array(n), outputLen: new Int32Array(n) };
  byEngine.forEach((idx, e) => {
    const t = times[e];
    idx.forEach((i, j) => {
      out.queuedS[i] = t.queuedS[j];
      out.scheduledS[i] = t.scheduledS[j];
      out.firstTokenS[i] = t.firstTokenS[j];
      out.finishS[i] = t.finishS[j];
      out.outputLen[i] = t.outputLen[j];
    });
  });
  return out;
}

/**
 * The dispatch's progress (dispatchOnline onProgress) comes after at least this share of the
 * requests and at least {@link PROGRESS_MS} since the last, whichever is later: every 1 % of a long
 * run (a dp 1024 run of 100,000 requests: every 1,000, ~0.7 s; it was every 4,096 requests, ~3 s),
 * no more than 4 a second of a quick one. While the engines then run to the end: every PROGRESS_MS.
 */
export const PROGRESS_SHARE = 0.01;
/** The least wall time, ms, between two progress reports of the dispatch ({@link PROGRESS_SHARE}). */
export const PROGRESS_MS = 250;

/** Wall time, ms, of one slice of work (simulator steps, request draws or loads; the engines run to the end and read, {@link slicer}) between two turns of the event loop: a cancel is seen within it. */
export const SLICE_MS = 50;
/** Steps an engine runs per call while the engines are run to the end: about a millisecond (a step costs 0.1-1 µs of CPU), so the clock is read often enough. */
const ENGINE_RUN_STEPS = 4096;

/**
 * A cancel point for loops over the engines: awaiting it lets the event loop run (signal handlers)
 * and throws the signal's reason when aborted, once at least {@link SLICE_MS} of wall time
 * has passed since it last did; otherwise it returns at once. Loops over dp engines that did
 * not look (run each to the end, read each's times) kept a SIGTERM waiting 24 s at dp 1024 (s43
 * newcomer43 F6: README says a cancel is seen within a slice).
 */
export function slicer(signal: AbortSignal | undefined): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < SLICE_MS) return;
    await cancelPoint(signal);
    since = performance.now();
  };
}

/**
 * The engines in order of their next change (the time runUntil returned: from it on, an arrival
 * may find the engine stepped or its in-flight count moved), a binary min-heap indexed by engine
 * so that an engine's time can be replaced in place. Keys are seconds; an engine not in it is
 * left alone (none made, or taken out while it is being brought up to date).
 */
class ChangeQueue {
  private readonly heap: Int32Array;
  private readonly at: Int32Array; // engine -> its heap slot, −1 when absent
  private readonly key: Float64Array;
  private size = 0;

  constructor(dp: number) {
    this.heap = new Int32Array(dp);
    this.at = new Int32Array(dp).fill(-1);
    this.key = new Float64Array(dp);
  }

  /** The first engine's key, or undefined when none is in. */
  firstKey(): number | undefined {
    return this.size === 0 ? undefined : this.key[this.heap[0]];
  }

  /** The engine whose change comes first when it is at or before `t`, taken out; else −1. */
  popDue(t: number): number {
    if (this.size === 0 || this.key[this.heap[0]] > t) return -1;
    const e = this.heap[0];
    this.at[e] = -1;
    const last = this.heap[--this.size];
    if (this.size > 0) {
      this.heap[0] = last;
      this.at[last] = 0;
      this.down(0);
    }
    return e;
  }

  /** Puts engine `e` in, or moves it, at `key`. */
  set(e: number, key: number): void {
    const old = this.at[e] >= 0 ? this.key[e] : undefined;
    this.key[e] = key;
    if (old === undefined) {
      this.heap[this.size] = e;
      this.at[e] = this.size++;
      this.up(this.at[e]);
    } else if (key < old) this.up(this.at[e]);
    else this.down(this.at[e]);
  }

  private up(i: number): void {
    const e = this.heap[i];
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.key[this.heap[p]] <= this.key[e]) break;
      this.heap[i] = this.heap[p];
      this.at[this.heap[i]] = i;
      i = p;
    }
    this.heap[i] = e;
    this.at[e] = i;
  }

  private down(i: number): void {
    const e = this.heap[i];
    for (;;) {
      let c = 2 * i + 1;
      if (c >= this.size) break;
      if (c + 1 < this.size && this.key[this.heap[c + 1]] < this.key[this.heap[c]]) c++;
      if (this.key[this.heap[c]] >= this.key[e]) break;
      this.heap[i] = this.heap[c];
      this.at[this.heap[i]] = i;
      i = c;
    }
    this.heap[i] = e;
    this.at[e] = i;
  }
}

/**
 * Dispatches the trace over dp engines arrival by arrival (the header) and runs each to the end.
 * An engine's simulator is made when the first request reaches it (an engine with none has none in
 * flight, and its pool is not allocated: dp 1024 over 300 requests makes at most 300). An arrival
 * brings up to date (runUntil, inFlight) only the engines whose next change (what runUntil
 * returned) is at or before it, and the one given the last request: the others would run no step
 * and keep their in-flight count, so the dispatch is the same as touching every engine, with the
 * bridge calls of the steps run plus two an arrival instead of 2 · dp an arrival.
 * @param engines per engine, its simulator once made (filled here, so that the caller can free
 *   them, also when this throws); dp entries, undefined where no request reached the engine.
 * @param make makes engine e's simulator, dispatched (ServingSimulator's `dispatched`) over `requests`.
 * Once every request is dispatched, the engines run to the end, the one furthest behind in
 * simulated time first, {@link ENGINE_RUN_STEPS} steps at a time (they share nothing by then: the
 * order changes no result, and the progress's clock moves on as the run's does).
 * @param onProgress where the run is ({@link DispatchProgress}; the caller reads the engines' token
 *   counts), after every {@link PROGRESS_SHARE} of the requests dispatched and {@link PROGRESS_MS}
 *   of wall time, whichever comes later, then every PROGRESS_MS while the engines run to the end
 *   (never at the end: the caller knows it).
 * @param now the wall clock, ms (performance.now; a test's own clock makes the reports' timing exact).
 * @returns each request's engine and each engine's requests (indices into the trace, arrival
 *   order: the order of its simulator's times).
 * @throws the signal's reason when it aborts (checked between slices).
 */
export async function dispatchOnline<E extends DispatchedEngine>(requests: ServingSimRequests, dp: number, engines: Array<E | undefined>, make: (engine: number) => E,
  opts: { signal?: AbortSignal; onProgress?: (p: DispatchProgress) => void; now?: () => number } = {}): Promise<{ engineOf: Int32Array; byEngine: Int32Array[] }> {
  const n = requests.arrivalS.length;
  const now = opts.now ?? (() => performance.now());
  // The next report is due at `reportAt` requests once PROGRESS_MS have passed; until they have, the clock is read every `recheck` arrivals.
  const share = Math.max(1, Math.ceil(n * PROGRESS_SHARE));
  const recheck = Math.min(share, 64);
  let reportAt = share;
  let reportedAt = now();
  const engineOf = new Int32Array(n);
  const inFlight = new Float64Array(dp);
  // The coordinator's snapshot (its waiting + running: the requests in flight at its time) and the
  // picks since it, per engine; the score pickEngine reads.
  const snapshot = new Float64Array(dp), picks = new Float64Array(dp), score = new Float64Array(dp);
  let snapshotAt = -1; // its index: at snapshotAt / STATS_PER_S seconds
  const queue = new ChangeQueue(dp);
  const due: number[] = [];
  /** Brings the engines whose next change has come up to date at t (their inFlight at t). */
  const touch = (t: number) => {
    for (let e = queue.popDue(t); e >= 0; e = queue.popDue(t)) due.push(e);
    for (const e of due) {
      const sim = engines[e]!;
      const next = sim.runUntil(t);
      inFlight[e] = sim.inFlight(t);
      queue.set(e, next); // after the loop above: a change at t itself would be popped again
    }
    due.length = 0;
  };
  let start = 0;
  // A slice of arrivals can take a second at dp 1024 (each brings engines' steps up to date): the clock is read every 64.
  const pause = slicer(opts.signal);
  for (let k = 0; k < n; k++) {
    const t = requests.arrivalS[k];
    const at = lastSnapshot(t);
    if (at > snapshotAt) {
      // A snapshot since the last arrival (the latest counts: the earlier ones were replaced).
      snapshotAt = at;
      touch(at / STATS_PER_S);
      snapshot.set(inFlight);
      picks.fill(0);
    }
    touch(t);
    for (let e = 0; e < dp; e++) score[e] = Math.max(inFlight[e], snapshot[e] + picks[e]);
    const e = pickEngine(score, start);
    picks[e]++;
    start = (start + 1) % dp;
    (engines[e] ??= make(e)).add(k);
    queue.set(e, -Infinity); // its count and next step changed: brought up to date at the next arrival
    engineOf[k] = e;
    if (k + 1 >= reportAt && k + 1 < n && opts.onProgress) {
      const t = now();
      if (t - reportedAt >= PROGRESS_MS) {
        opts.onProgress({ dispatched: k + 1, clockS: requests.arrivalS[k] });
        reportedAt = t;
        reportAt = k + 1 + share;
        // The report's reader may have asked to stop (the CLI's SIGINT handler runs between turns): look at once.
        await cancelPoint(opts.signal);
        continue;
      }
      reportAt = k + 1 + recheck;
    }
    if ((k & 63) === 63) await pause();
  }
  // To the end, the engine furthest behind first (the queue keyed by each engine's clock).
  const lastArrivalS = n > 0 ? requests.arrivalS[n - 1] : 0;
  const behind = new ChangeQueue(dp);
  engines.forEach((sim, e) => {
    if (sim) behind.set(e, sim.totals().clockSeconds);
  });
  for (let e = behind.popDue(Infinity); e >= 0; e = behind.popDue(Infinity)) {
    const sim = engines[e]!;
    if (!sim.run(ENGINE_RUN_STEPS)) behind.set(e, sim.totals().clockSeconds);
    const furthestBehind = behind.firstKey();
    if (furthestBehind !== undefined && opts.onProgress) {
      const t = now();
      if (t - reportedAt >= PROGRESS_MS) {
        opts.onProgress({ dispatched: n, clockS: Math.max(lastArrivalS, furthestBehind) });
        reportedAt = t;
        await cancelPoint(opts.signal);
        continue;
      }
    }
    await pause();
  }
  return { engineOf, byEngine: requestsByEngine(engineOf, dp) };
}

/**
 * DataParallelResult.sampledEngines of a run of `peakPagesUsed.length` engines: ranks 0 …
 * DP_SAMPLED_ENGINES − 1 and the busiest by `peakPagesUsed` (its own pool's peak pages in use;
 * the lowest rank among equals) where it is not among them. @returns 0-based ranks, increasing.
 */
export function sampledEngines(peakPagesUsed: readonly number[]): number[] {
  const kept = [];
  for (let e = 0; e < Math.min(DP_SAMPLED_ENGINES, peakPagesUsed.length); e++) kept.push(e);
  let busiest = 0;
  for (let e = 1; e < peakPagesUsed.length; e++) if (peakPagesUsed[e] > peakPagesUsed[busiest]) busiest = e;
  if (busiest >= kept.length) kept.push(busiest);
  return kept;
}
