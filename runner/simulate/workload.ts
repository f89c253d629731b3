/**
 * Requests for the serving simulation, from a profile's `workload` (seeded, so a run is
 * reproducible) or from a trace (runner/simulate/trace.ts).
 */
import type { LengthDist, WorkloadSpec } from '../../core/config/types';
import type { ServingSimRequests } from '../../native/simulator';
import { Rng } from '../random';

/** One request, as a trace line gives it (JSONL keys arrival_s, prompt_len, output_len, prefix_id, prefix_len). */
export interface TraceRequest {
  /** Arrival time, seconds from the start. */
  arrivalS: number;
  /** Prompt tokens (>= 1). */
  promptLen: number;
  /** Tokens to generate (>= 1). */
  outputLen: number;
  /**
   * Requests with the same prefixId share the token ids of their first `prefixLen` prompt
   * tokens (a system prompt, a few-shot preamble, an earlier turn), which prefix caching can reuse.
   */
  prefixId?: string | number;
  /** Shared tokens; default: the whole prompt (so two prompts share min(promptLen) tokens). */
  prefixLen?: number;
}

/**
 * One length drawn from a distribution, an integer in [1, max]:
 * fixed: value; uniform: integer in [min, max]; lognormal: round(median · e^(σ·Z)), σ default 1;
 * exponential: ceil(−mean · ln(1 − U)).
 */
export function sampleLength(d: LengthDist, rng: Rng): number {
  let x: number;
  let max: number;
  switch (d.dist) {
    case 'fixed':
      return Math.max(1, Math.round(d.value));
    case 'uniform':
      return Math.max(1, d.min + Math.floor(rng.next() * (d.max - d.min + 1)));
    case 'lognormal':
      x = Math.round(d.median * Math.exp((d.sigma ?? 1) * rng.normal()));
      max = d.max;
      break;
    case 'exponential':
      x = Math.ceil(-d.mean * Math.log(1 - rng.next()));
      max = d.max;
      break;
  }
  return Math.min(max, Math.max(1, x));
}

/** n requests' arrays, zeroed, with no shared prefix (prefixStream −1). */
function emptyRequests(n: number): ServingSimRequests {
  return {
    arrivalS: new Float64Array(n),
    promptLen: new Int32Array(n),
    outputLen: new Int32Array(n),
    prefixStream: new Float64Array(n).fill(-1),
    prefixLen: new Int32Array(n),
  };
}

/**
 * `workload.requests` requests, packed for the simulator: Poisson arrivals at `arrival_rate` per
 * second (exponential gaps; all at t = 0 when the rate is not a positive finite number), prompt
 * and output lengths from their distributions, and — with `prefix_sharing` — each request joins
 * one of `groups` shared prefixes (prefixStream = the group, 0 … groups − 1; −1 for none) of
 * `prefix_len` tokens with probability `fraction`. Written straight into typed arrays: 100,000
 * request objects cost more garbage collection than the draws themselves.
 * Same spec and seed (default 0) -> the same requests, in arrival order.
 */
export function generateRequests(w: WorkloadSpec): ServingSimRequests {
  const rng = new Rng(w.seed ?? 0);
  const n = w.requests;
  const out = emptyRequests(n);
  let t = 0;
  const rate = w.arrivalRate;
  const poisson = Number.isFinite(rate) && rate > 0;
  const ps = w.prefixSharing;
  for (let i = 0; i < n; i++) {
    if (poisson) t += -Math.log(1 - rng.next()) / rate;
    out.arrivalS[i] = t;
    const promptLen = sampleLength(w.promptLen, rng);
    out.promptLen[i] = promptLen;
    out.outputLen[i] = sampleLength(w.outputLen, rng);
    if (ps && ps.groups > 0 && rng.next() < ps.fraction) {
      out.prefixStream[i] = Math.floor(rng.next() * ps.groups);
      out.prefixLen[i] = Math.min(ps.prefixLen, promptLen);
    }
  }
  return out;
}

/** Trace requests packed for the simulator: sorted by arrival (stable); equal prefix ids share one stream. */
export function packRequests(requests: TraceRequest[]): ServingSimRequests {
  const order = requests.map((_, i) => i).sort((a, b) => requests[a].arrivalS - requests[b].arrivalS || a - b);
  const packed = emptyRequests(requests.length);
  const streams = new Map<string, number>();
  order.forEach((src, i) => {
    const r = requests[src];
    packed.arrivalS[i] = r.arrivalS;
    packed.promptLen[i] = r.promptLen;
    packed.outputLen[i] = r.outputLen;
    if (r.prefixId !== undefined) {
      const key = `${typeof r.prefixId}:${r.prefixId}`;
      let stream = streams.get(key);
      if (stream === undefined) streams.set(key, (stream = streams.size));
      packed.prefixStream[i] = stream;
      packed.prefixLen[i] = Math.min(r.prefixLen ?? r.promptLen, r.promptLen);
    }
  });
  return packed;
}
