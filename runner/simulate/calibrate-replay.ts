/**
 * How well a calibration reproduces its benchmark (`simulate --calibrate RESULT.json`): the
 * result's own requests replayed through the simulator with the fitted step_time, the replay's
 * TTFT and TPOT against the measured ones.
 *
 * Why not the fit's own error: the fit (calibrate.ts) takes each TTFT as one prefill step and
 * each TPOT as one decode step at an assumed batch. The simulator then batches the requests as
 * vLLM does: a request's decode steps also carry the other requests' prefill chunks, and its TTFT
 * waits for the steps before its own. The measured ITLs and TTFTs already hold that interference,
 * so a fit error of 0.0% can replay 10-20% off (s29: 50 requests of TTFT 50 ms, ITL 10 ms fitted
 * to 0.0%, replayed at TTFT 55.1 ms, TPOT 11.6 ms). The replay is the figure a user reads as
 * "does this step_time reproduce my benchmark".
 *
 * Measured, per request without an error and with a TTFT: TTFT as the result gives it; TPOT the
 * mean of its ITLs (vLLM's (e2e − TTFT) / (output − 1)), for requests with at least one ITL.
 * Replayed: the simulator's (latency.ts, same definitions), requests arriving at the result's
 * start_times (else its request_rate; traces.ts).
 */
import { formatDuration } from '../../core/format';
import type { LatencyStats } from '../../core/protocol/latency';
import type { Profile } from '../../core/config/types';
import { latencyStats } from './latency';
import { simulatePool, type SimulateOptions } from './simulate';
import type { ServingSimRequests } from '../../native';
import type { VllmBenchResult } from './traces';

/** Measured and replayed statistics of one latency, seconds. */
export interface ReplayComparison {
  measured: LatencyStats;
  replayed: LatencyStats;
}

export interface CalibrationReplay {
  ttft: ReplayComparison | null;
  /** Null when no request has two output tokens (measured or replayed). */
  tpot: ReplayComparison | null;
}

/** The measured TTFTs and TPOTs (seconds) of a vllm bench serve result, as {@link CalibrationReplay} defines them. */
export function measuredLatencies(bench: VllmBenchResult): { ttft: Float64Array; tpot: Float64Array } {
  const ttft: number[] = [];
  const tpot: number[] = [];
  for (let i = 0; i < bench.inputLens.length; i++) {
    if (bench.errors?.[i]) continue;
    const t = bench.ttfts?.[i];
    if (!(t !== undefined && t > 0)) continue;
    ttft.push(t);
    const itl = bench.itls?.[i] ?? [];
    if (itl.length > 0) tpot.push(itl.reduce((s, x) => s + x, 0) / itl.length);
  }
  return { ttft: Float64Array.from(ttft), tpot: Float64Array.from(tpot) };
}

/**
 * Replays `requests` (the result read as a trace) with `stepTime` (the fitted step_time; tests:
 * coefficients) and compares with the result's measurements.
 * @throws what simulatePool throws (PoolConfigError, the signal's reason).
 */
export async function replayCalibration(profile: Profile, bench: VllmBenchResult, requests: ServingSimRequests, stepTime: SimulateOptions['stepTime'], signal?: AbortSignal): Promise<CalibrationReplay> {
  const result = await simulatePool(profile, { requests, stepTime, stepTimeSource: 'the calibration', baselines: false, maxSamples: 2, signal });
  const m = measuredLatencies(bench);
  const l = result.latency!;
  return {
    ttft: m.ttft.length > 0 && l.ttft ? { measured: latencyStats(m.ttft), replayed: l.ttft } : null,
    tpot: m.tpot.length > 0 && l.tpot ? { measured: latencyStats(m.tpot), replayed: l.tpot } : null,
  };
}

/** Relative error of the replayed mean against the measured one: (replayed − measured) / measured. */
export function replayMeanError(c: ReplayComparison): number {
  return (c.replayed.mean - c.measured.mean) / c.measured.mean;
}

/** The replay as lines for the CLI, under formatCalibration's. */
export function formatCalibrationReplay(r: CalibrationReplay, file: string): string[] {
  const signed = (x: number) => `${x >= 0 ? '+' : '−'}${(100 * Math.abs(x)).toFixed(1)}%`;
  const row = (name: string, c: ReplayComparison | null): string => {
    if (!c) return `    ${name}: not measured`;
    const cell = (k: 'mean' | 'p50' | 'p90') => `${k} ${formatDuration(c.measured[k] * 1e9)} → ${formatDuration(c.replayed[k] * 1e9)} (${signed((c.replayed[k] - c.measured[k]) / c.measured[k])})`;
    return `    ${name} ${cell('mean')}, ${cell('p50')}, ${cell('p90')}`;
  };
  return [`  replay of ${file} through the simulator with this step_time (its batching, prefill chunks and queueing), measured → replayed:`, row('TTFT', r.ttft), row('TPOT', r.tpot)];
}
