/**
 * Requests for the serving simulation, from a profile's `workload` (seeded, so a run is
 * reproducible) or from a trace (runner/simulate/trace.ts).
 */
import type { LengthDist, WorkloadSpec } from '../../core/config/types';
import type { ServingSimRequests } from '../../native';
import { Rng, substreamSeed } from '../random';

/** The substream (runner/random.ts substreamSeed) of workload.seed that draws the prefix_sharing choices. */
const PREFIX_STREAM = 1;

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
   * Mooncake's hash_ids (integers): one id per block of hashBlockTokens prompt tokens (default 512), each a
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
 * Scales `sendTimes` (running sums of `n` drawn gaps, seconds, ascending) in place so that the
 * last is `n / rate` s exactly, as `vllm bench serve` does with its drawn delays when no ramp-up is
 * set (vllm/benchmarks/serve.py get_request: target_total_delay_s = total_requests / request_rate,
 * normalize_factor = target_total_delay_s / delay_ts[-1], "to close the gap for stabilizing the
 * throughput data from different random seeds"; vLLM PR #21108, July 2025). The first send stays
 * after its (scaled) first gap, not at 0 s. Left as drawn when the last is 0 or not finite (a
 * rate that overflowed the gaps) or the target is not finite.
 */
export function endSendsAtRate(sendTimes: Float64Array, rate: number): void {
  const n = sendTimes.length;
  const last = n > 0 ? sendTimes[n - 1]! : 0;
  const scale = n / rate / last;
  if (!(last > 0 && Number.isFinite(last) && Number.isFinite(scale))) return;
  for (let i = 0; i < n; i++) sendTimes[i]! *= scale;
}

/**
 * `workload.requests` requests, packed for the simulator: Poisson arrivals at `arrival_rate` per
 * second (exponential gaps, the first request after the first gap, then scaled so that the last
 * arrives at requests / arrival_rate s exactly, as `vllm bench serve` sends them:
 * {@link endSendsAtRate}; all at t = 0 when the rate is not a positive finite number), prompt
 * and output lengths from their distributions, and — with `prefix_sharing` — each request joins
 * one of `groups` shared prefixes (one segment of stream = the group, 0 … groups − 1) of
 * `prefix_len` tokens with probability `fraction`. The prefix choices draw from a stream of their
 * own (seeded from workload.seed, {@link substreamSeed}), so arrivals and lengths are the same
 * draws with or without prefix_sharing: `fraction: 0` is the workload without it, and a sweep
 * over fraction moves only the sharing. Written straight into typed arrays: 100,000
 * request objects cost more garbage collection than the draws themselves.
 * Same spec and seed (default 0) -> the same requests, in arrival order, however they are
 * drawn in slices ({@link next}: 10,000,000 requests take seconds, which a caller spends in
 * slices so that the event loop, a Ctrl-C with it, runs between them).
 * `rateScale` multiplies the arrival rate (the capacity search's knob), keeping every draw.
 */
export class RequestGenerator {
  /** Requests to draw (workload.requests). */
  readonly requests: number;
  /** Requests drawn so far. */
  drawn = 0;
  private readonly rng: Rng;
  /** The prefix choices' own stream: arrivals and lengths draw from `rng` alone. */
  private readonly prefixRng: Rng;
  private readonly rate: number;
  private readonly arrivalS: Float64Array;
  private readonly promptLen: Int32Array;
  private readonly outputLen: Int32Array;
  private readonly segmentStart: Int32Array;
  private readonly stream: Float64Array;
  private readonly end: Int32Array;
  private segments = 0;
  private t = 0;

  constructor(
    private readonly w: WorkloadSpec,
    rateScale = 1,
  ) {
    this.rng = new Rng(w.seed ?? 0);
    this.prefixRng = new Rng(substreamSeed(w.seed ?? 0, PREFIX_STREAM));
    const n = (this.requests = w.requests);
    this.rate = w.arrivalRate * rateScale;
    this.arrivalS = new Float64Array(n);
    this.promptLen = new Int32Array(n);
    this.outputLen = new Int32Array(n);
    this.segmentStart = new Int32Array(n + 1);
    this.stream = new Float64Array(n);
    this.end = new Int32Array(n);
  }

  /** Draws up to `count` more requests; true once all are drawn (at once for a workload of none). */
  next(count: number): boolean {
    const { w, rng, prefixRng, rate, arrivalS, promptLen, outputLen, segmentStart, stream, end } = this;
    const poisson = Number.isFinite(rate) && rate > 0;
    const ps = w.prefixSharing;
    const stop = Math.min(this.requests, this.drawn + Math.max(0, Math.floor(count)));
    let m = this.segments;
    let t = this.t;
    for (let i = this.drawn; i < stop; i++) {
      // Scaling a positive rate scales every gap: the same draws, so the same lengths.
      if (poisson) t += -Math.log(1 - rng.next()) / rate;
      arrivalS[i] = t;
      const p = sampleLength(w.promptLen, rng);
      promptLen[i] = p;
      outputLen[i] = sampleLength(w.outputLen, rng);
      segmentStart[i] = m;
      if (ps && ps.groups > 0) {
        // Two draws a request, shared or not: at a larger fraction the same requests share, in the same groups, and more.
        const joins = prefixRng.next() < ps.fraction;
        const group = Math.floor(prefixRng.next() * ps.groups);
        const len = Math.min(ps.prefixLen, p);
        if (joins && len > 0) {
          stream[m] = group;
          end[m++] = len;
        }
      }
    }
    const finished = stop === this.requests && this.drawn < stop;
    this.drawn = stop;
    this.segments = m;
    this.t = t;
    // The scale needs the last arrival: applied once, when the last slice is drawn.
    if (finished && poisson) endSendsAtRate(arrivalS, rate);
    return this.drawn === this.requests;
  }

  /** The requests drawn, packed for the simulator. @throws Error when some are still to draw. */
  packed(): ServingSimRequests {
    if (this.drawn !== this.requests) throw new Error(`${this.requests - this.drawn} of ${this.requests} requests are still to draw`);
    const n = this.requests;
    const m = this.segments;
    this.segmentStart[n] = m;
    return {
      arrivalS: this.arrivalS,
      promptLen: this.promptLen,
      outputLen: this.outputLen,
      segmentStart: this.segmentStart,
      segmentStream: this.stream.slice(0, m),
      segmentEnd: this.end.slice(0, m),
    };
  }
}

/** All of `w`'s requests at once (see {@link RequestGenerator}). */
export function generateRequests(w: WorkloadSpec, rateScale = 1): ServingSimRequests {
  const g = new RequestGenerator(w, rateScale);
  g.next(g.requests);
  return g.packed();
}

/**
 * A growable column of numbers. Given a good estimate of its final length (a trace reader's,
 * from the file's size), it never grows and `take` hands out a view of it: the column's memory
 * is its length plus the estimate's slack, with no copy at the end.
 */
export class Column<T extends Float64Array | Int32Array> {
  private data: T;
  length = 0;
  constructor(
    private readonly make: (n: number) => T,
    capacity: number,
  ) {
    this.data = make(Math.max(16, capacity));
  }
  push(x: number): void {
    if (this.length === this.data.length) {
      const next = this.make(Math.ceil(this.data.length * 1.5));
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = x;
  }
  /** The last value pushed (the column must not be empty). */
  last(): number {
    return this.data[this.length - 1];
  }
  /** The values: a view when they fill at least 3/4 of the column, else an exact copy. The column is empty after. */
  take(): T {
    const out = (this.length * 4 >= this.data.length * 3 ? this.data.subarray(0, this.length) : this.data.slice(0, this.length)) as T;
    this.data = this.make(16);
    this.length = 0;
    return out;
  }
}

/**
 * Stream numbers of Mooncake block ids: an open-addressing table (linear probing, at most half
 * full) of float64 keys and int32 values, 24 bytes or less per distinct id where a Map of
 * numbers takes about twice that, and about 3x faster on a trace of a million distinct blocks.
 */
class BlockIds {
  private keys = new Float64Array(1024);
  private values = new Int32Array(1024).fill(-1);
  size = 0;

  /** The value of `id` (an integer, |id| < 2^53), given `next` the first time it is seen. */
  get(id: number, next: number): number {
    let mask = this.keys.length - 1;
    let i = hashId(id) & mask;
    for (;;) {
      const v = this.values[i];
      if (v < 0) break;
      if (this.keys[i] === id) return v;
      i = (i + 1) & mask;
    }
    if (2 * (this.size + 1) > this.keys.length) {
      this.grow();
      mask = this.keys.length - 1;
      i = hashId(id) & mask;
      while (this.values[i] >= 0) i = (i + 1) & mask;
    }
    this.keys[i] = id;
    this.values[i] = next;
    this.size++;
    return next;
  }

  private grow(): void {
    const { keys, values } = this;
    this.keys = new Float64Array(keys.length * 2);
    this.values = new Int32Array(keys.length * 2).fill(-1);
    const mask = this.keys.length - 1;
    for (let k = 0; k < keys.length; k++) {
      if (values[k] < 0) continue;
      let i = hashId(keys[k]) & mask;
      while (this.values[i] >= 0) i = (i + 1) & mask;
      this.keys[i] = keys[k];
      this.values[i] = values[k];
    }
  }
}

/** A 32-bit mix (murmur3's finaliser) of an integer below 2^53 in magnitude. */
function hashId(id: number): number {
  let h = (id | 0) ^ Math.imul((id / 4294967296) | 0, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Collects trace requests one at a time into typed arrays (a reader of a multi-GB trace holds
 * no request objects: 20 bytes per request without shared prefixes, 12 more per segment) and
 * packs them for the simulator. Shared prefixes become segments: equal prefixIds share one
 * stream over their first prefixLen tokens; each entry of hashIds (a block of hashBlockTokens
 * tokens, Mooncake's chained block hashes) is a stream of its own, so two requests share
 * exactly their common leading blocks.
 */
export class RequestPacker {
  private readonly arrival: Column<Float64Array>;
  private readonly prompt: Column<Int32Array>;
  private readonly output: Column<Int32Array>;
  private readonly start: Column<Int32Array>;
  private readonly stream: Column<Float64Array>;
  private readonly end: Column<Int32Array>;
  private readonly prefixStreams = new Map<string, number>();
  private readonly blockStreams = new BlockIds();
  private streams = 0;
  /** Requests that arrive before the request added just before them. */
  outOfOrder = 0;
  /** After {@link pack} of requests out of order: the order it sorted them into (packed request i is the order[i]-th added); null when they were in order. */
  order: Uint32Array | null = null;

  /** @param expected the number of requests expected (the columns' first size; more still fit), @param segments of segments. */
  constructor(expected = 1024, segments = 1024) {
    const f64 = (n: number) => new Float64Array(n);
    const i32 = (n: number) => new Int32Array(n);
    this.arrival = new Column(f64, expected);
    this.prompt = new Column(i32, expected);
    this.output = new Column(i32, expected);
    this.start = new Column(i32, expected + 1);
    this.stream = new Column(f64, segments);
    this.end = new Column(i32, segments);
  }

  get length(): number {
    return this.arrival.length;
  }

  /** The arrival time of the last request added (NaN when none). */
  lastArrival(): number {
    return this.arrival.length > 0 ? this.arrival.last() : NaN;
  }

  /** A request without a shared prefix (the fast path of the CSV readers). */
  addPlain(arrivalS: number, promptLen: number, outputLen: number): void {
    if (this.arrival.length > 0 && arrivalS < this.arrival.last()) this.outOfOrder++;
    this.arrival.push(arrivalS);
    this.prompt.push(promptLen);
    this.output.push(outputLen);
    this.start.push(this.stream.length);
  }

  add(r: TraceRequest): void {
    this.addPlain(r.arrivalS, r.promptLen, r.outputLen);
    if (r.hashIds && r.hashIds.length > 0) {
      const bt = r.hashBlockTokens ?? 512;
      for (let k = 0; k < r.hashIds.length && k * bt < r.promptLen; k++) {
        const s = this.blockStreams.get(r.hashIds[k], this.streams);
        if (s === this.streams) this.streams++;
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

  /**
   * The requests sorted by arrival (stable: equal times keep the order they were added in),
   * segments with them: the columns themselves when they were in order, else sorted copies (a
   * 4-byte order per request, then each column copied once). The packer is empty after.
   */
  pack(): ServingSimRequests {
    const n = this.arrival.length;
    this.start.push(this.stream.length);
    const packed: ServingSimRequests = {
      arrivalS: this.arrival.take(),
      promptLen: this.prompt.take(),
      outputLen: this.output.take(),
      segmentStart: this.start.take(),
      segmentStream: this.stream.take(),
      segmentEnd: this.end.take(),
    };
    if (this.outOfOrder === 0) return packed;
    const a = packed.arrivalS;
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((x, y) => a[x] - a[y] || x - y);
    this.order = order;
    const permute = <T extends Float64Array | Int32Array>(col: T, make: (n: number) => T): T => {
      const out = make(n);
      for (let i = 0; i < n; i++) out[i] = col[order[i]];
      return out;
    };
    const starts = packed.segmentStart;
    const stream = new Float64Array(packed.segmentStream.length);
    const end = new Int32Array(packed.segmentEnd.length);
    const segmentStart = new Int32Array(n + 1);
    let m = 0;
    for (let i = 0; i < n; i++) {
      segmentStart[i] = m;
      for (let k = starts[order[i]]; k < starts[order[i] + 1]; k++) {
        stream[m] = packed.segmentStream[k];
        end[m++] = packed.segmentEnd[k];
      }
    }
    segmentStart[n] = m;
    return {
      arrivalS: permute(a, (k) => new Float64Array(k)),
      promptLen: permute(packed.promptLen, (k) => new Int32Array(k)),
      outputLen: permute(packed.outputLen, (k) => new Int32Array(k)),
      segmentStart,
      segmentStream: stream,
      segmentEnd: end,
    };
  }
}

/** Trace requests packed for the simulator (see {@link RequestPacker}). */
export function packRequests(requests: TraceRequest[]): ServingSimRequests {
  const packer = new RequestPacker(requests.length);
  for (const r of requests) packer.add(r);
  return packer.pack();
}

/** The requests with arrival times divided by `speedup` (2 = replayed at twice the rate); shares the other arrays. */
export function scaleArrivals(r: ServingSimRequests, speedup: number): ServingSimRequests {
  if (!(speedup > 0 && Number.isFinite(speedup))) throw new RangeError(`the time scale must be a positive number, got ${speedup}`);
  return { ...r, arrivalS: r.arrivalS.map((t) => t / speedup) };
}
