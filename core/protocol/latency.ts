/**
 * Latency of a serving simulation (runner/simulate/latency.ts) and the capacity search's curve
 * (runner/simulate/capacity.ts), as the run JSON and the dashboard carry them. Every time here
 * is modelled: the simulator's clock advances by the step-time model (run.ts StepTimeModel),
 * not by a measurement. Times in seconds.
 */

/** Mean and percentiles of one per-request quantity, seconds; percentiles interpolate linearly between order statistics (numpy's default, as `vllm bench serve`). */
export interface LatencyStats {
  /** Mean over the requests, seconds. */
  mean: number;
  /** Median (50th percentile), seconds. */
  p50: number;
  /** 90th percentile, seconds. */
  p90: number;
  /** 99th percentile, seconds. */
  p99: number;
  /** Largest value over the requests, seconds. */
  max: number;
}

/** The SLO a run was judged by; a bound left out is not checked. */
export interface LatencySlo {
  /** Bound on each request's time to first token, milliseconds (profile slo.ttft_ms or --slo-ttft-ms); `attainment` says what share must meet it. */
  ttftMs?: number;
  /** Bound on each request's time per output token, milliseconds (profile slo.tpot_ms or --slo-tpot-ms); `attainment` says what share must meet it. */
  tpotMs?: number;
  /** Fraction of requests that must meet the bounds for the run to meet the SLO (profile slo.attainment or --slo-attainment); absent = SLO_ATTAINMENT_DEFAULT. Absent in runs before s40. */
  attainment?: number;
}

/** The fraction of requests that must meet an SLO when the profile's slo.attainment and --slo-attainment leave it unset. */
export const SLO_ATTAINMENT_DEFAULT = 0.9;

/** The capacity search's relative tolerance when --rate-tolerance leaves it unset (runner/simulate/capacity.ts searchCapacity; a max-rate sweep always): 2 %. */
export const CAPACITY_TOLERANCE_DEFAULT = 0.02;

/** Points of an empirical CDF: value (seconds) and the fraction of requests at or below it. */
export interface CdfPoint {
  /** The value, seconds. */
  s: number;
  /** Fraction 0-1 of the requests at or below the value. */
  fraction: number;
}

export interface LatencySummary {
  /** Always 'modelled': the clock runs on the step-time model. */
  kind: 'modelled';
  /** Completed requests the statistics cover. */
  requests: number;
  /** Arrival to the start of the step that first admitted it; null when no request completed (see `unmeasured`). */
  queue: LatencyStats | null;
  /** Time to first token: arrival to the end of the step that emitted it; null when no request completed. */
  ttft: LatencyStats | null;
  /**
   * Time per output token: (last token − first token) / (output tokens − 1), requests with >= 2 output tokens;
   * null when no completed request has two (TPOT is undefined with one output token).
   */
  tpot: LatencyStats | null;
  /** Arrival to the last token; null when no request completed. */
  e2e: LatencyStats | null;
  /**
   * Why a statistic above is null, in words ("no request completed: all 20 were rejected").
   * @entry Why the {key} statistic is null, in words (e.g. "no request completed: all 20 were rejected"); absent where it was measured.
   */
  unmeasured?: Partial<Record<'queue' | 'ttft' | 'tpot' | 'e2e', string>>;
  /**
   * Completed requests / `vllm bench serve`'s benchmark duration: 0 s (where the arrivals' clock
   * starts) to the last request's end (runner/simulate/latency.ts latencySummary; runs saved
   * before session 41 divided by first arrival to last completion).
   */
  requestsPerSec: number;
  /** Completed requests' output tokens / the same duration: vLLM's output_throughput. */
  outputTokensPerSec: number;
  /** The SLO the requests were judged by (bounds and attainment target); absent without one (no goodput). */
  slo?: LatencySlo;
  /** Requests meeting the SLO / the same duration: vLLM's request_goodput (set with an SLO). */
  goodputRequestsPerSec?: number;
  /** Fraction of all requests (rejected ones count as missing it) meeting the SLO. */
  sloAttainment?: number;
  /**
   * The completed requests' TTFT and TPOT at the percentile the SLO's attainment target judges
   * (`fraction` = slo.attainment, or SLO_ATTAINMENT_DEFAULT where unset: p90 at 0.9, p99 at 0.99), seconds,
   * linear between order statistics as the other percentiles; null where that figure was not measured
   * (as `ttft` / `tpot`). Set with an SLO; absent in runs before s53.
   */
  sloPercentile?: {
    /** The percentile judged, as a fraction 0-1 of the completed requests (0.9: p90). */
    fraction: number;
    /** TTFT at that percentile, seconds; null where TTFT was not measured. */
    ttftS: number | null;
    /** TPOT at that percentile, seconds; null where no request decoded two tokens. */
    tpotS: number | null;
  };
  /** Downsampled CDFs (<= 200 points each) for the dashboard. */
  ttftCdf: CdfPoint[];
  /** Downsampled CDF of TPOT (<= 200 points), seconds against the fraction 0-1 of requests at or below, for the dashboard. */
  tpotCdf: CdfPoint[];
}

/** One simulation of the capacity search. */
export interface CapacityPoint {
  /**
   * The offered rate of the point's run, requests/s: (requests − 1) / span of its arrivals, as its
   * Load line counts it (PoolLoad.offeredRequestsPerSec): a trace's mean rate after scaling, or the
   * drawn arrivals' of a workload (since s51; before, a workload's arrival_rate × scale). Where no
   * two arrivals differ, the asked rate.
   */
  rate: number;
  /**
   * A drawn workload's asked rate, workload.arrival_rate × scale, requests/s, where it differs from
   * `rate` (the draws' offered rate); absent for a trace (the same figure) and before s51.
   */
  askedRate?: number;
  /** Trace time scale (1 = as recorded; 2 = twice the rate); for workloads rate / arrival_rate. */
  scale: number;
  /** Null when no request of the point completed (TTFT) or none had two output tokens (TPOT). */
  p99TtftS: number | null;
  /** 99th-percentile time per output token, seconds; null when no request had two output tokens. */
  p99TpotS: number | null;
  /**
   * TTFT and TPOT at the percentile the curve's attainmentTarget judges (p90 at 0.9, p99 at 0.99), seconds,
   * as LatencySummary.sloPercentile: the columns `simulate --max-rate` prints beside the verdict, so a row's
   * figures are the ones judged (s53 newcomer F3: "p99 TPOT 34.3 ms ... pass" under TPOT <= 30 ms at 90 %).
   * Null as the p99s; absent in runs before s53.
   */
  ttftAtTargetS?: number | null;
  /** TPOT at the percentile the curve's attainmentTarget judges, seconds, as ttftAtTargetS; null as p99TpotS; absent before s53. */
  tpotAtTargetS?: number | null;
  /** Requests that met every SLO bound / the simulated seconds, requests/s. */
  goodputRequestsPerSec: number;
  /** Fraction 0-1 of the completed requests that met every SLO bound. */
  sloAttainment: number;
  /**
   * The share 0-1 of the point's requests rejected (a prompt that reaches max_model_len, or more
   * pages than the pool holds: vLLM refuses them); absent when none was, and in runs before s53.
   */
  rejected?: number;
  /**
   * rate × (1 − rejected) <= the curve's saturatedRate, which counts served requests only (the server
   * keeps up in a steady state); absent in runs before s29 (before s53 judged on the whole rate).
   */
  keepsUp?: boolean;
  /**
   * The point's run had its waiting queue grow through the arrivals (its PoolLoad.overloaded):
   * what a plain simulation of that rate reports, so New profile… reads the asked rate's verdict
   * off the search's first point instead of simulating it again (extension/newProfile.ts);
   * absent in runs before s43.
   */
  overloaded?: boolean;
  /** Attainment reached and keepsUp. */
  meets: boolean;
}

/** The bisection's walk, in the order run, and its answer. */
export interface CapacityCurve {
  /** Always 'modelled': each rate's run is a page-pool simulation on the step-time model. */
  kind: 'modelled';
  /** The SLO each rate is judged by: TTFT and/or TPOT bounds in ms and the attainment target. */
  slo: LatencySlo;
  /** The fraction of requests that must meet the SLO for a rate to pass. */
  attainmentTarget: number;
  /** Relative tolerance on the rate: the search stops when hi / lo − 1 < this. */
  tolerance: number;
  /** Every rate the search ran, in the order run (doublings or halvings, bisection, then the answer rounded to 3 digits). */
  points: CapacityPoint[];
  /** Highest rate that passed, its run's offered rate as CapacityPoint.rate; since s51 the point whose asked rate (a trace's: this rate) is 3 significant digits, rounded down from the bisection's (null when even the lowest tried failed). */
  maxRate: number | null;
  /** Trace time scale of maxRate (null when even the lowest tried failed). */
  maxScale: number | null;
  /**
   * The modelled server's saturated throughput μ, requests/s (runner/simulate/capacity.ts
   * saturatedThroughput): no rate above it passes. Null when it could not be measured (fewer than
   * 8 requests completed); absent in runs before s29.
   */
  saturatedRate?: number | null;
  /**
   * What bounds maxRate: 'capacity' when it is the saturated throughput μ itself, or the lowest
   * rate above it that failed met the SLO and failed only for not keeping up (the SLO alone would
   * pass a higher rate); 'slo' when the next rate up misses the SLO. Absent when no rate passed,
   * the search was unbounded, or in runs before s35.
   */
  limit?: 'slo' | 'capacity';
  /** True when no rate failed: even with every request arriving at once the SLO holds (the load is too small to saturate). */
  unbounded?: boolean;
  /**
   * The load's requests per data-parallel engine (requests / data_parallel_size), set only when
   * below core/format.ts OVERLOAD_MIN_SHARE (40): then no rate's run could show its queue growing
   * (CapacityPoint.overloaded is recorded but not used), a rate keeps up when it is at most μ, and
   * its latencies are those of a nearly idle engine. At data_parallel_size 1 too since s49; absent when
   * 40 or more an engine, and before s45.
   */
  requestsPerEngine?: number;
}
