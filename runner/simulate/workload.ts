/**
 * Requests for the serving simulation, from a profile's `workload` (seeded, so a run is
 * reproducible) or from a trace (runner/simulate/trace.ts).
 */
import type { LengthDist, WorkloadSpec } from '../../core/config/types';
import type { ServingSimRequests } from '../../native';
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
  /**
   * Mooncake's hash_ids: one id per block of hashBlockTokens prompt tokens (default 512), each a
   * hash of the block and all before it, so equal ids at the same index mean an equal prefix.
   * Overrides prefixId.
   */
  hashIds?: ArrayLike<number>;
  hashBlockTokens?: number;
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

/**
 * `workload.requests` requests, packed for the simulator: Poisson arrivals at `arrival_rate` per
 * second (exponential gaps; all at t = 0 when the rate is not a positive finite number), prompt
 * and output lengths from their distributions, and — with `prefix_sharing` — each request joins
 * one of `groups` shared prefixes (one segment of stream = the group, 0 … groups − 1) of
 * `prefix_len` tokens with probability `fraction`. Written straight into typed arrays: 100,000
 * request objects cost more garbage collection than the draws themselves.
 * Same spec and seed (default 0) -> the same requests, in arrival order.
 * `rateScale` multiplies the arrival rate (the capacity search's knob), keeping every draw.
 */
export function generateRequests(w: WorkloadSpec, rateScale = 1): ServingSimRequests {
  const rng = new Rng(w.seed ?? 0);
  const n = w.requests;
  const arrivalS = new Float64Array(n);
  const promptLen = new Int32Array(n);
  const outputLen = new Int32Array(n);
  const segmentStart = new Int32Array(n + 1);
  const stream = new Float64Array(n);
  const end = new Int32Array(n);
  let m = 0;
  let t = 0;
  const rate = w.arrivalRate * rateScale;
  const poisson = Number.isFinite(rate) && rate > 0;
  const ps = w.prefixSharing;
  for (let i = 0; i < n; i++) {
    // Scaling a positive rate scales every gap: the same draws, so the same lengths.
    if (poisson) t += -Math.log(1 - rng.next()) / rate;
    arrivalS[i] = t;
    const p = sampleLength(w.promptLen, rng);
    promptLen[i] = p;
    outputLen[i] = sampleLength(w.outputLen, rng);
    segmentStart[i] = m;
    if (ps && ps.groups > 0 && rng.next() < ps.fraction) {
      const group = Math.floor(rng.next() * ps.groups);
      const len = Math.min(ps.prefixLen, p);
      if (len > 0) {
        stream[m] = group;
        end[m++] = len;
      }
    }
  }
  segmentStart[n] = m;
  return { arrivalS, promptLen, outputLen, segmentStart, segmentStream: stream.slice(0, m), segmentEnd: end.slice(0, m) };
}

/** A growable typed array (doubling). */
class Grow<T extends Float64Array | Int32Array> {
  data: T;
  length = 0;
  constructor(private readonly make: (n: number) => T) {
    this.data = make(1024);
  }
  push(x: number): void {
    if (this.length === this.data.length) {
      const next = this.make(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = x;
  }
  view(): T {
    return this.data.subarray(0, this.length) as T;
  }
}

/**
 * Collects trace requests one at a time into typed arrays (a reader of a multi-GB trace holds
 * no request objects) and packs them for the simulator. Shared prefixes become segments: equal
 * prefixIds share one stream over their first prefixLen tokens; each entry of hashIds (a block
 * of hashBlockTokens tokens, Mooncake's chained block hashes) is a stream of its own, so two
 * requests share exactly their common leading blocks.
 */
export class RequestPacker {
  private readonly arrival = new Grow((n) => new Float64Array(n));
  private readonly prompt = new Grow((n) => new Int32Array(n));
  private readonly output = new Grow((n) => new Int32Array(n));
  private readonly start = new Grow((n) => new Int32Array(n));
  private readonly stream = new Grow((n) => new Float64Array(n));
  private readonly end = new Grow((n) => new Int32Array(n));
  private readonly prefixStreams = new Map<string, number>();
  private readonly blockStreams = new Map<number | string, number>();
  private streams = 0;
  private sorted = true;

  get length(): number {
    return this.arrival.length;
  }

  add(r: TraceRequest): void {
    const n = this.arrival.length;
    if (n > 0 && r.arrivalS < this.arrival.data[n - 1]) this.sorted = false;
    this.arrival.push(r.arrivalS);
    this.prompt.push(r.promptLen);
    this.output.push(r.outputLen);
    this.start.push(this.stream.length);
    if (r.hashIds && r.hashIds.length > 0) {
      const bt = r.hashBlockTokens ?? 512;
      for (let k = 0; k < r.hashIds.length && k * bt < r.promptLen; k++) {
        const id = r.hashIds[k];
        let s = this.blockStreams.get(id);
        if (s === undefined) this.blockStreams.set(id, (s = this.streams++));
        this.stream.push(s);
        this.end.push(Math.min((k + 1) * bt, r.promptLen));
      }
    } else if (r.prefixId !== undefined) {
      const len = Math.min(r.prefixLen ?? r.promptLen, r.promptLen);
      if (len > 0) {
        const key = `${typeof r.prefixId}:${r.prefixId}`;
        let s = this.prefixStreams.get(key);
        if (s === undefined) this.prefixStreams.set(key, (s = this.streams++));
        this.stream.push(s);
        this.end.push(len);
      }
    }
    if (this.streams >= 2 ** 30) throw new RangeError('the trace has more than 2^30 distinct prefixes or blocks');
  }

  /** The requests sorted by arrival (stable), segments with them. */
  pack(): ServingSimRequests {
    const n = this.arrival.length;
    this.start.push(this.stream.length);
    const packed: ServingSimRequests = {
      arrivalS: this.arrival.view().slice(),
      promptLen: this.prompt.view().slice(),
      outputLen: this.output.view().slice(),
      segmentStart: this.start.view().slice(),
      segmentStream: this.stream.view().slice(),
      segmentEnd: this.end.view().slice(),
    };
    this.start.length--;
    if (this.sorted) return packed;
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => packed.arrivalS[a] - packed.arrivalS[b] || a - b);
    const out: ServingSimRequests = {
      arrivalS: new Float64Array(n),
      promptLen: new Int32Array(n),
      outputLen: new Int32Array(n),
      segmentStart: new Int32Array(n + 1),
      segmentStream: new Float64Array(packed.segmentStream.length),
      segmentEnd: new Int32Array(packed.segmentEnd.length),
    };
    let m = 0;
    order.forEach((src, i) => {
      out.arrivalS[i] = packed.arrivalS[src];
      out.promptLen[i] = packed.promptLen[src];
      out.outputLen[i] = packed.outputLen[src];
      out.segmentStart[i] = m;
      for (let k = packed.segmentStart[src]; k < packed.segmentStart[src + 1]; k++) {
        out.segmentStream[m] = packed.segmentStream[k];
        out.segmentEnd[m++] = packed.segmentEnd[k];
      }
    });
    out.segmentStart[n] = m;
    return out;
  }
}

/** Trace requests packed for the simulator (see {@link RequestPacker}). */
export function packRequests(requests: TraceRequest[]): ServingSimRequests {
  const packer = new RequestPacker();
  for (const r of requests) packer.add(r);
  return packer.pack();
}

/** The requests with arrival times divided by `speedup` (2 = replayed at twice the rate); shares the other arrays. */
export function scaleArrivals(r: ServingSimRequests, speedup: number): ServingSimRequests {
  if (!(speedup > 0 && Number.isFinite(speedup))) throw new RangeError(`the time scale must be a positive number, got ${speedup}`);
  return { ...r, arrivalS: r.arrivalS.map((t) => t / speedup) };
}
