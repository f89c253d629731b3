/**
 * Data parallelism in the serving simulation (device.data_parallel_size > 1): dp engines, each
 * its own pool and scheduler (one simulator each), sharing the arrivals as vLLM's API server
 * spreads them (vllm/v1/engine/core_client.py DPLBAsyncMPClient.get_core_engine_for_request).
 *
 * The dispatch needs each engine's state at each arrival (which of its requests are still in
 * flight), and that state depends on the dispatch: the engines are coupled. They are run as a fixed
 * point: dispatch every request by the finish times of the last pass, simulate each engine on its
 * requests, repeat until no request changes engine. The simulator is causal (what happens before t
 * depends only on the arrivals before t), so the requests up to the first one a pass dispatches
 * differently are settled, each pass settles at least one more, and the fixed point is the one
 * dispatch vLLM's sequential rule gives (by induction over the arrivals). A busy trace settles some
 * ten requests a pass (the examples' Llama-3.1-8B workload, 2,000 requests at 48/s over 2 engines:
 * 210 passes), so the cost grows as n²: the price of an exact dispatch without stopping and
 * resuming the native simulator at an arrival.
 */
import type { ServingSimRequests, ServingSimTimes } from '../../native';

/** How the requests were dispatched, for the result and the CLI's line (DataParallelResult.dispatch). */
export const DP_DISPATCH_TEXT = "each request to the engine with the fewest requests in flight, ties to the next in turn, as vLLM's DPLBAsyncMPClient.get_core_engine_for_request with one API server (vllm/v1/engine/core_client.py, current main); its KV-pressure penalty on an engine with waiting requests, the 100 ms coordinator snapshot and older releases' waiting · 4 + running score are not modelled";

/**
 * How vLLM's load balancer picks an engine for each request, in arrival order (ties: the earlier
 * index), one API-server client (client_count 1), as current vLLM main writes
 * DPLBAsyncMPClient.get_core_engine_for_request: scan the engines from eng_start_index, the
 * lowest score wins (strict <: a tie keeps the first scanned), then eng_start_index moves on by
 * one ("rotate the scan start so that ties ... don't systematically favor the same engine"); the
 * score is max(client_count · in-flight, waiting + running), in-flight the client's exact count of
 * its unfinished requests on the engine (engine_inflight, decremented when the engine reports one
 * finished). Modelled as the in-flight count alone: with one client the coordinator's waiting +
 * running snapshot (published every 100 ms) is the same requests seen up to 100 ms late, and the
 * KV-pressure penalty (waiting · 6 · max(0, kv_cache_usage − 0.5), where an engine has a queue) is
 * not modelled. Older releases scored waiting · 4 + running from the snapshot, with a fixed scan
 * start: not modelled either. A request counts as finished from its finish time on (finishS <=
 * the arrival); a rejected one (finishS < 0) is never in flight.
 * @param finishS per request (arrival order), when it finished on the engine `engineOf` gives it.
 * @returns each request's engine, 0-based.
 */
export function dispatchByLoad(arrivalS: Float64Array, finishS: Float64Array, engineOf: Int32Array, dp: number): Int32Array {
  const n = arrivalS.length;
  const out = new Int32Array(n);
  // Per engine, the finish times of the requests it holds in flight (a min-heap).
  const heaps: number[][] = Array.from({ length: dp }, () => []);
  let start = 0;
  for (let k = 0; k < n; k++) {
    const t = arrivalS[k];
    for (const h of heaps) while (h.length > 0 && h[0] <= t) heapPop(h);
    let best = start;
    for (let i = 1; i < dp; i++) {
      const idx = (start + i) % dp;
      if (heaps[idx].length < heaps[best].length) best = idx;
    }
    out[k] = best;
    start = (start + 1) % dp;
    // Its finish time as the last pass simulated it on this engine; a request the last pass put on
    // another engine (or never ran) is taken as in flight until the next pass settles it.
    const f = engineOf[k] === best ? finishS[k] : Infinity;
    if (f >= 0) heapPush(heaps[best], f);
  }
  return out;
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

/**
 * Requests each pass simulates beyond the settled ones: their dispatch is checked in the pass, the
 * later ones' stay tentative (a pass settles some ten requests of a busy trace, so a longer look
 * ahead only costs).
 */
export const DISPATCH_LOOKAHEAD = 256;

/**
 * Runs the fixed point of the header: dispatch ({@link dispatchByLoad}), simulate each engine
 * (`simulate`, given its requests, returns its times), until a pass dispatches every request as
 * the one before. The first pass dispatches as if nothing finished (round robin). A pass simulates
 * only the settled requests and the next {@link DISPATCH_LOOKAHEAD} (what happens before an
 * arrival depends only on the requests before it), and settles them up to the first one it
 * dispatches differently, inclusive; the last pass simulates every request. Each pass settles at
 * least one request, so at most n + 1 passes.
 * @param onPass after each pass: requests settled so far.
 * @returns the settled dispatch, each engine's requests and times (the last pass's, every request),
 *   and the passes run.
 */
export async function settleDispatch<T extends { times: ServingSimTimes }>(requests: ServingSimRequests, dp: number, simulate: (engine: number, r: ServingSimRequests) => Promise<T>,
  onPass?: (settled: number) => void): Promise<{ engineOf: Int32Array; byEngine: Int32Array[]; runs: T[]; passes: number }> {
  const n = requests.arrivalS.length;
  const engineOf = dispatchByLoad(requests.arrivalS, new Float64Array(n).fill(Infinity), new Int32Array(n).fill(-1), dp);
  let settled = 0;
  for (let pass = 1; ; pass++) {
    const end = Math.min(n, settled + DISPATCH_LOOKAHEAD);
    const prefix = end === n ? requests : subsetRequests(requests, Int32Array.from({ length: end }, (_, i) => i));
    const head = engineOf.subarray(0, end);
    const byEngine = requestsByEngine(head, dp);
    const runs: T[] = [];
    for (let e = 0; e < dp; e++) runs.push(await simulate(e, subsetRequests(prefix, byEngine[e])));
    const merged = mergeTimes(end, byEngine, runs.map((r) => r.times));
    const next = dispatchByLoad(prefix.arrivalS, merged.finishS, head, dp);
    const moved = next.findIndex((e, i) => e !== head[i]);
    if (moved < 0 && end === n) return { engineOf, byEngine, runs, passes: pass };
    settled = moved < 0 ? end : moved + 1;
    engineOf.set(next);
    onPass?.(settled);
  }
}

function heapPush(h: number[], x: number): void {
  h.push(x);
  let i = h.length - 1;
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (h[p] <= h[i]) break;
    [h[p], h[i]] = [h[i], h[p]];
    i = p;
  }
}

function heapPop(h: number[]): void {
  const last = h.pop()!;
  if (h.length === 0) return;
  h[0] = last;
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < h.length && h[l] < h[m]) m = l;
    if (r < h.length && h[r] < h[m]) m = r;
    if (m === i) return;
    [h[m], h[i]] = [h[i], h[m]];
    i = m;
  }
}
