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
 * Every step is simulated once: the cost is one simulation of each engine's requests plus
 * dp in-flight reads an arrival.
 */
import type { ServingSimRequests, ServingSimTimes, ServingSimulator } from '../../native';
import { cancelPoint } from '../errors';

/** What the dispatch needs of an engine: a dispatched ServingSimulator (or the raw addon's / WebAssembly build's). */
export type DispatchedEngine = Pick<ServingSimulator, 'runUntil' | 'inFlight' | 'add' | 'run'>;

/** How the requests were dispatched, for the result and the CLI's line (DataParallelResult.dispatch). */
export const DP_DISPATCH_TEXT = "each request to the engine with the fewest requests in flight, ties to the next in turn, as vLLM's DPLBAsyncMPClient.get_core_engine_for_request with one API server (vllm/v1/engine/core_client.py, current main); its KV-pressure penalty on an engine with waiting requests, the 100 ms coordinator snapshot and older releases' waiting · 4 + running score are not modelled";

/**
 * The engine vLLM's load balancer picks for a request, one API-server client (client_count 1), as
 * current vLLM main writes DPLBAsyncMPClient.get_core_engine_for_request: scan the engines from
 * eng_start_index (`start`), the lowest score wins (strict <: a tie keeps the first scanned); the
 * caller then moves the start on by one ("rotate the scan start so that ties ... don't
 * systematically favor the same engine"). The score is max(client_count · in-flight, waiting +
 * running), in-flight the client's exact count of its unfinished requests on the engine
 * (engine_inflight, decremented when the engine reports one finished). Modelled as the in-flight
 * count alone: with one client the coordinator's waiting + running snapshot (published every
 * 100 ms) is the same requests seen up to 100 ms late, and the KV-pressure penalty
 * (waiting · 6 · max(0, kv_cache_usage − 0.5), where an engine has a queue) is not modelled.
 * Older releases scored waiting · 4 + running from the snapshot, with a fixed scan start: not
 * modelled either. A request counts as finished from its finish time on (finish <= the
 * arrival); a rejected one is never in flight (ServingSimulator.inFlight).
 * @param inFlight per engine, its requests in flight at the arrival.
 * @returns the engine, 0-based.
 */
export function pickEngine(inFlight: ArrayLike<number>, start: number): number {
  const dp = inFlight.length;
  let best = start;
  for (let i = 1; i < dp; i++) {
    const idx = (start + i) % dp;
    if (inFlight[idx] < inFlight[best]) best = idx;
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
  const out: ServingSimTimes = { scheduledS: new Float64Array(n), firstTokenS: new Float64Array(n), finishS: new Float64Array(n), outputLen: new Int32Array(n) };
  byEngine.forEach((idx, e) => {
    const t = times[e];
    idx.forEach((i, j) => {
      out.scheduledS[i] = t.scheduledS[j];
      out.firstTokenS[i] = t.firstTokenS[j];
      out.finishS[i] = t.finishS[j];
      out.outputLen[i] = t.outputLen[j];
    });
  });
  return out;
}

/** Arrivals dispatched between turns of the event loop (a cancel is seen between slices). */
export const DISPATCH_SLICE_REQUESTS = 4096;

/**
 * Dispatches the trace over dp engines arrival by arrival (the header) and runs each to the end.
 * An engine's simulator is made when the first request reaches it (an engine with none has none in
 * flight, and its pool is not allocated: dp 1024 over 300 requests makes at most 300).
 * @param engines per engine, its simulator once made (filled here, so that the caller can free
 *   them, also when this throws); dp entries, undefined where no request reached the engine.
 * @param make makes engine e's simulator, dispatched (ServingSimulator's `dispatched`) over `requests`.
 * @param onProgress after each slice: requests dispatched so far.
 * @returns each request's engine and each engine's requests (indices into the trace, arrival
 *   order: the order of its simulator's times).
 * @throws the signal's reason when it aborts (checked between slices).
 */
export async function dispatchOnline<E extends DispatchedEngine>(requests: ServingSimRequests, dp: number, engines: Array<E | undefined>, make: (engine: number) => E,
  opts: { signal?: AbortSignal; onProgress?: (done: number) => void } = {}): Promise<{ engineOf: Int32Array; byEngine: Int32Array[] }> {
  const n = requests.arrivalS.length;
  const engineOf = new Int32Array(n);
  const inFlight = new Float64Array(dp);
  let start = 0;
  for (let k = 0; k < n; k++) {
    const t = requests.arrivalS[k];
    for (let e = 0; e < dp; e++) {
      const sim = engines[e];
      if (!sim) continue; // none in flight
      sim.runUntil(t);
      inFlight[e] = sim.inFlight(t);
    }
    const e = pickEngine(inFlight, start);
    start = (start + 1) % dp;
    (engines[e] ??= make(e)).add(k);
    engineOf[k] = e;
    if ((k + 1) % DISPATCH_SLICE_REQUESTS === 0 && k + 1 < n) {
      opts.onProgress?.(k + 1);
      await cancelPoint(opts.signal);
    }
  }
  for (const sim of engines) {
    while (sim && !sim.run(1 << 20)) {
      await cancelPoint(opts.signal);
    }
  }
  return { engineOf, byEngine: requestsByEngine(engineOf, dp) };
}
