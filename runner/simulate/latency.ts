/**
 * Per-request latency of a simulation from the simulator's clock (native ServingSimulator
 * times()): queueing delay, TTFT, TPOT, end-to-end; throughput and goodput against an SLO.
 * Definitions follow vLLM's `vllm bench serve` (vllm/benchmarks/serve.py): TTFT = arrival to
 * first output token; TPOT = (e2e − TTFT) / (output tokens − 1) over requests with more than
 * one output token; percentiles interpolate linearly between order statistics (numpy's
 * default), so a simulated p99 compares with a benchmark's.
 */
import { SLO_ATTAINMENT_DEFAULT, type CdfPoint, type LatencySlo, type LatencyStats, type LatencySummary } from '../../core/protocol/latency';
import type { ServingSimRequests, ServingSimTimes } from '../../native';

/** The q-quantile (q in [0, 1]) of ascending `sorted`, linear between order statistics; 0 when empty. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return 0;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/** Mean, p50, p90, p99 and max of `values` (sorted in place). */
export function latencyStats(values: Float64Array): LatencyStats {
  values.sort();
  let sum = 0;
  for (const v of values) sum += v;
  return {
    mean: values.length > 0 ? sum / values.length : 0,
    p50: quantile(values, 0.5),
    p90: quantile(values, 0.9),
    p99: quantile(values, 0.99),
    max: values.length > 0 ? values[values.length - 1] : 0,
  };
}

/** At most `points` points of the empirical CDF of ascending `sorted`, the last at fraction 1. */
function cdf(sorted: Float64Array, points = 200): CdfPoint[] {
  const n = sorted.length;
  const out: CdfPoint[] = [];
  if (n === 0) return out;
  const step = Math.max(1, Math.ceil(n / points));
  for (let i = step - 1; i < n; i += step) out.push({ s: sorted[i], fraction: (i + 1) / n });
  if (out[out.length - 1].fraction < 1) out.push({ s: sorted[n - 1], fraction: 1 });
  return out;
}

/** True when a request with these times meets every bound the SLO gives. */
export function meetsSlo(slo: LatencySlo, ttftS: number, tpotS: number): boolean {
  return (slo.ttftMs === undefined || ttftS * 1000 <= slo.ttftMs) && (slo.tpotMs === undefined || tpotS * 1000 <= slo.tpotMs);
}

/**
 * `vllm bench serve`'s benchmark duration's end, s: 0 s to the last request's end, its completion
 * or, for a rejected one (finishS < 0), its arrival. 0 with no requests.
 */
export function benchmarkEndS(requests: ServingSimRequests, times: ServingSimTimes): number {
  let end = 0;
  for (let i = 0; i < requests.arrivalS.length; i++) end = Math.max(end, times.finishS[i] < 0 ? requests.arrivalS[i] : times.finishS[i]);
  return end;
}

/**
 * The latency summary of a finished simulation.
 * @param requests the simulated requests (arrivals in seconds), times their milestones, same order.
 * @param slo when given (with at least one bound), goodput, attainment and the TTFT / TPOT at the
 *   attainment target's percentile (sloPercentile) are set. A request with one output token has no
 *   TPOT and meets the TPOT bound.
 * Throughput and goodput divide by `vllm bench serve`'s benchmark duration: from 0 s, the clock's
 * origin, where its send schedule starts (a drawn workload's first request arrives after one gap,
 * a trace's first at 0 s), to the last request's end: its completion, or its arrival for a
 * rejected one (vllm/benchmarks/serve.py: benchmark_duration is taken after every request task
 * returned; output_throughput = sum(actual_output_lens) / dur_s, request_throughput = completed /
 * dur_s, request_goodput = good_completed / dur_s). The pool summary's throughputTokensPerSec is
 * this outputTokensPerSec (simulate.ts), one figure.
 * @param spanEndS the end of the span the rates divide by, s: absent, these requests' own (above);
 *   a data-parallel engine's rates take the whole run's, so that the engines' rates sum to the run's.
 */
export function latencySummary(requests: ServingSimRequests, times: ServingSimTimes, slo?: LatencySlo, spanEndS?: number): LatencySummary {
  const n = requests.arrivalS.length;
  let done = 0;
  let multi = 0;
  const end = spanEndS ?? benchmarkEndS(requests, times);
  for (let i = 0; i < n; i++) {
    if (times.finishS[i] < 0) continue;
    done++;
    if (times.outputLen[i] > 1) multi++;
  }
  const queue = new Float64Array(done);
  const ttft = new Float64Array(done);
  const e2e = new Float64Array(done);
  const tpot = new Float64Array(multi);
  let tokens = 0;
  let good = 0;
  const checkSlo = slo !== undefined && (slo.ttftMs !== undefined || slo.tpotMs !== undefined);
  for (let i = 0, k = 0, m = 0; i < n; i++) {
    const finish = times.finishS[i];
    if (finish < 0) continue;
    const arrival = requests.arrivalS[i];
    const out = times.outputLen[i];
    queue[k] = times.scheduledS[i] - arrival;
    ttft[k] = times.firstTokenS[i] - arrival;
    e2e[k] = finish - arrival;
    const perToken = out > 1 ? (finish - times.firstTokenS[i]) / (out - 1) : 0;
    if (out > 1) tpot[m++] = perToken;
    if (checkSlo && meetsSlo(slo, ttft[k], perToken)) good++;
    tokens += out;
    k++;
  }
  const rate = (x: number) => (end > 0 ? x / end : 0);
  // Nothing to measure is null with the reason, never 0 s (which reads as "instant").
  const unmeasured: NonNullable<LatencySummary['unmeasured']> = {};
  if (done === 0) {
    const why = n === 0 ? 'no requests' : `no request completed: all ${n.toLocaleString('en-US')} were rejected`;
    unmeasured.queue = unmeasured.ttft = unmeasured.e2e = unmeasured.tpot = why;
  } else if (multi === 0) {
    unmeasured.tpot = 'no completed request has more than one output token (TPOT is undefined with one)';
  }
  const summary: LatencySummary = {
    kind: 'modelled',
    requests: done,
    queue: done > 0 ? latencyStats(queue) : null,
    ttft: done > 0 ? latencyStats(ttft) : null,
    tpot: multi > 0 ? latencyStats(tpot) : null,
    e2e: done > 0 ? latencyStats(e2e) : null,
    ...(Object.keys(unmeasured).length > 0 ? { unmeasured } : {}),
    requestsPerSec: rate(done),
    outputTokensPerSec: rate(tokens),
    ttftCdf: cdf(ttft),
    tpotCdf: cdf(tpot),
  };
  if (checkSlo) {
    summary.slo = { ...slo };
    summary.goodputRequestsPerSec = rate(good);
    summary.sloAttainment = n > 0 ? good / n : 0;
    // ttft and tpot are sorted now (latencyStats sorts in place).
    const fraction = slo.attainment ?? SLO_ATTAINMENT_DEFAULT;
    summary.sloPercentile = { fraction, ttftS: done > 0 ? quantile(ttft, fraction) : null, tpotS: multi > 0 ? quantile(tpot, fraction) : null };
  }
  return summary;
}
