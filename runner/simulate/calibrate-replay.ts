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
import { formatDuration, formatSignificant } from '../../core/format';
import type { LatencyStats } from '../../core/protocol/latency';
import type { Profile } from '../../core/config/types';
import { latencyStats } from './latency';
import { simulatePool, type SimulateOptions } from './simulate';
import type { ServingSimRequests, ServingSimTimes } from '../../native';
import { vllmBenchArrivals, type VllmBenchResult } from './traces';
import { calibrateStepTime, NO_ITL, snippetSpec, type CalibrationFit } from './calibrate';
import { packRequests } from './workload';

/** Measured and replayed statistics of one latency, seconds. */
export interface ReplayComparison {
  measured: LatencyStats;
  replayed: LatencyStats;
}

export interface CalibrationReplay {
  ttft: ReplayComparison | null;
  /** Null when no request has two output tokens (measured or replayed). */
  tpot: ReplayComparison | null;
  /** Whether the result has an inter-token latency (a request with itls): a null tpot says why. */
  measuredTpot: boolean;
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
export async function replayCalibration(profile: Profile, bench: VllmBenchResult, requests: ServingSimRequests, stepTime: SimulateOptions['stepTime'], signal?: AbortSignal, onTimes?: SimulateOptions['onTimes']): Promise<CalibrationReplay> {
  const result = await simulatePool(profile, { requests, stepTime, stepTimeSource: 'the calibration', baselines: false, maxSamples: 2, signal, onTimes });
  const m = measuredLatencies(bench);
  const l = result.latency!;
  return {
    ttft: m.ttft.length > 0 && l.ttft ? { measured: latencyStats(m.ttft), replayed: l.ttft } : null,
    tpot: m.tpot.length > 0 && l.tpot ? { measured: latencyStats(m.tpot), replayed: l.tpot } : null,
    measuredTpot: m.tpot.length > 0,
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
    if (!c) return `    ${name}: ${name === 'TPOT' && !r.measuredTpot ? NO_ITL : 'not replayed (no replayed request has two output tokens)'}`;
    const cell = (k: 'mean' | 'p50' | 'p90') => `${k} ${formatDuration(c.measured[k] * 1e9)} → ${formatDuration(c.replayed[k] * 1e9)} (${signed((c.replayed[k] - c.measured[k]) / c.measured[k])})`;
    return `    ${name} ${cell('mean')}, ${cell('p50')}, ${cell('p90')}`;
  };
  return [`  replay of ${file} through the simulator with this step_time (its batching, prefill chunks and queueing), measured → replayed:`, row('TTFT', r.ttft), row('TPOT', r.tpot)];
}

/** The replay refit stops when both replayed means are within this fraction of the measured ones. */
export const REPLAY_TOLERANCE = 0.03;
/** At most this many fit-and-replay rounds. */
export const MAX_REPLAY_ROUNDS = 8;

/** One round of {@link calibrateByReplay}: the fit and its replay's mean errors ((replayed − measured) / measured); tpotError null where the replay has no TPOT to compare (CalibrationReplay.tpot null). */
export interface ReplayRound {
  spec: CalibrationFit['spec'];
  ttftError: number;
  tpotError: number | null;
}

export interface ReplayCalibration {
  /** The kept round's fit; its ttftError / tpotError are the first (one-step) round's, against the measured timings. */
  fit: CalibrationFit;
  rounds: ReplayRound[];
  /** Index into rounds of the kept fit: the first within the tolerance, else the one of least max(|TTFT error|, |TPOT error|). */
  kept: number;
  converged: boolean;
  /** Why the rounds stopped where they did. */
  stop: ReplayStop;
  replay: CalibrationReplay;
}

/**
 * Why {@link calibrateByReplay} stopped: both replayed means within REPLAY_TOLERANCE; the
 * MAX_REPLAY_ROUNDS rounds run; or round `round`'s refit refused its rescaled targets
 * (calibrateStepTime's RangeError, `message`: the step-time model cannot follow them), so fewer
 * rounds than the most ran.
 */
export type ReplayStop = { reason: 'converged' } | { reason: 'max-rounds' } | { reason: 'refit-failed'; round: number; message: string };

/**
 * The result's usable requests (no error, a TTFT, output > 0) packed for the simulator, arriving
 * at start_times (else as vllm bench serve sent them at request_rate, traces.ts vllmBenchArrivals, else all at 0 s) as traces.ts reads them, and for
 * each packed request (arrival order, ties in file order: RequestPacker's order) its index in
 * the result.
 */
function benchRequests(bench: VllmBenchResult): { requests: ServingSimRequests; index: number[] } {
  const rate = bench.requestRate;
  const index: number[] = [];
  for (let i = 0; i < bench.inputLens.length; i++) if (!bench.errors?.[i] && (bench.ttfts?.[i] ?? 0) > 0 && bench.outputLens[i] > 0) index.push(i);
  const drawn = !bench.startTimes && rate !== null && Number.isFinite(rate) && rate > 0 ? vllmBenchArrivals(bench.inputLens.length, rate, bench.burstiness ?? 1, 0) : null;
  const arrival = (i: number) => (bench.startTimes ? bench.startTimes[i] : drawn ? drawn[i]! : 0);
  index.sort((x, y) => arrival(x) - arrival(y) || x - y);
  const t0 = index.length > 0 ? arrival(index[0]) : 0;
  return { requests: packRequests(index.map((i) => ({ arrivalS: arrival(i) - t0, promptLen: bench.inputLens[i], outputLen: bench.outputLens[i] }))), index };
}

/**
 * Calibration that accounts for what the simulator adds to the one-step view (calibrate.ts): the
 * other requests' prefill chunks in a decode step, the wait for the steps before a prefill.
 * Round 1 is the one-step fit of the measured TTFTs and TPOTs. Each round replays the result's
 * requests with that fit; if the replayed mean TTFT and mean TPOT are both within
 * ±REPLAY_TOLERANCE of the measured ones it stops; else each request's fit target is multiplied
 * by its measured / replayed (TTFT and TPOT apart) and refitted, at most MAX_REPLAY_ROUNDS
 * rounds. A fixed point has every replayed request at its measured timings; on timings the
 * simulator made itself, the true coefficients are one (their one-step predictions, as targets,
 * fit back exactly), which the one-step fit alone misses (test/unit/calibrate-replay.test.ts).
 * The factors round 1 could not determine, or held at a bound, stay held at round 1's value in
 * every later round (CalibrationFitOptions.pinned): a refit does not trade an undetermined factor
 * against the overhead from round to round.
 * @throws what calibrateStepTime throws (RangeError), simulatePool's errors, the signal's reason.
 */
export async function calibrateByReplay(profile: Profile, bench: VllmBenchResult, signal?: AbortSignal): Promise<ReplayCalibration> {
  const first = calibrateStepTime(profile, bench);
  const { requests, index } = benchRequests(bench);
  const pinned = first.parameters.filter((p) => !p.fitted && p.key !== 'overhead_ms');
  const scale: Array<{ ttft: number; tpot: number } | undefined> = [];
  const rounds: ReplayRound[] = [];
  const fits: CalibrationFit[] = [];
  const replays: CalibrationReplay[] = [];
  let fit = first;
  let refitFailed: ReplayStop | undefined;
  for (let round = 0; round < MAX_REPLAY_ROUNDS; round++) {
    if (round > 0) {
      try {
        fit = calibrateStepTime(profile, bench, { targetScale: scale, pinned });
      } catch (e) {
        // Rescaled targets the model cannot follow (MAX_MEAN_FIT_ERROR): stop, keep the best round, and say so.
        if (e instanceof RangeError) {
          refitFailed = { reason: 'refit-failed', round: round + 1, message: e.message };
          break;
        }
        throw e;
      }
    }
    // The factors as the snippet prints them (SNIPPET_DIGITS): the replay, the kept fit and the run that follows use what a paste gives.
    fit = { ...fit, spec: snippetSpec(fit.spec) };
    let times: ServingSimTimes | undefined;
    const replay = await replayCalibration(profile, bench, requests, fit.spec, signal, (_, t) => (times = t));
    fits.push(fit);
    replays.push(replay);
    rounds.push({ spec: fit.spec, ttftError: replay.ttft ? replayMeanError(replay.ttft) : 0, tpotError: replay.tpot ? replayMeanError(replay.tpot) : null });
    const last = rounds[rounds.length - 1];
    if (Math.abs(last.ttftError) <= REPLAY_TOLERANCE && Math.abs(last.tpotError ?? 0) <= REPLAY_TOLERANCE) break;
    // Each request's targets times its measured / replayed.
    index.forEach((i, k) => {
      const s = scale[i] ?? { ttft: 1, tpot: 1 };
      const ttft = times!.firstTokenS[k] - requests.arrivalS[k];
      if (ttft > 0) s.ttft *= bench.ttfts![i] / ttft;
      const itl = bench.itls?.[i] ?? [];
      const out = times!.outputLen[k];
      if (itl.length > 0 && out > 1) {
        const tpot = (times!.finishS[k] - times!.firstTokenS[k]) / (out - 1);
        if (tpot > 0) s.tpot *= itl.reduce((a, x) => a + x, 0) / itl.length / tpot;
      }
      scale[i] = s;
    });
  }
  const worst = (r: ReplayRound) => Math.max(Math.abs(r.ttftError), Math.abs(r.tpotError ?? 0));
  const converged = worst(rounds[rounds.length - 1]) <= REPLAY_TOLERANCE;
  const kept = converged ? rounds.length - 1 : rounds.reduce((best, r, k) => (worst(r) < worst(rounds[best]) ? k : best), 0);
  const stop: ReplayStop = converged ? { reason: 'converged' } : refitFailed ?? { reason: 'max-rounds' };
  return { fit: { ...fits[kept], ttftError: first.ttftError, tpotError: first.tpotError }, rounds, kept, converged, stop, replay: replays[kept] };
}

/** A refit refusal's first clause ("the step-time model ... misses their own timings (mean error ...)"), without the one-step fit's advice after it. */
function refusalHead(message: string): string {
  const at = message.indexOf('): ');
  return (at >= 0 ? message.slice(0, at + 1) : message).replace(/\.$/, '');
}

/**
 * The comment put above the snippet to paste (formatCalibration's `caution`) when the kept round's replay is off the
 * measured mean TTFT or TPOT by more than REPLAY_TOLERANCE (±3%, the refit's own aim; the verdict line's "not
 * within"), else null: "caution: this step_time replays the benchmark TTFT +82.0%, TPOT +49.8% off the measured
 * (more than ±3%: see the refit below)". s51 newcomer nc-cli 10: the verdict was two lines under the snippet, which
 * carried no mark of it.
 */
export function replayCaution(c: ReplayCalibration): string | null {
  if (c.converged) return null;
  const signed = (x: number) => `${x >= 0 ? '+' : '−'}${(100 * Math.abs(x)).toFixed(1)}%`;
  const kept = c.rounds[c.kept]!;
  const off = `TTFT ${signed(kept.ttftError)}${kept.tpotError === null ? '' : `, TPOT ${signed(kept.tpotError)}`}`;
  return `caution: this step_time replays the benchmark ${off} off the measured (more than ±${(100 * REPLAY_TOLERANCE).toFixed(0)}%: see the refit below)`;
}

/** The refit's rounds as lines for the CLI, between formatCalibration's and the replay's. */
export function formatReplayRounds(c: ReplayCalibration): string[] {
  const signed = (x: number) => `${x >= 0 ? '+' : '−'}${(100 * Math.abs(x)).toFixed(1)}%`;
  const tpot = (x: number | null) => (x === null ? NO_ITL : signed(x));
  const tol = `±${(100 * REPLAY_TOLERANCE).toFixed(0)}%`;
  const kept = c.rounds[c.kept]!;
  const n = `${c.rounds.length} round${c.rounds.length === 1 ? '' : 's'}`;
  const stopped = c.stop.reason === 'refit-failed'
    ? `stopped after ${n}, before the ${MAX_REPLAY_ROUNDS} allowed: round ${c.stop.round}'s refit refused its rescaled targets (${refusalHead(c.stop.message)})`
    : `stopped after the ${MAX_REPLAY_ROUNDS} rounds allowed`;
  const verdict = c.converged
    ? `replayed mean TTFT${kept.tpotError === null ? '' : ' and TPOT'} within ${tol} of the measured after ${n}${kept.tpotError === null ? ` (TPOT ${NO_ITL})` : ''}`
    : `not within ${tol}: ${stopped}; round ${c.kept + 1} kept (the least largest error), its replay still ${kept.tpotError === null ? `TTFT ${signed(kept.ttftError)} off the measured (TPOT ${NO_ITL})` : `TTFT ${signed(kept.ttftError)}, TPOT ${signed(kept.tpotError)} off the measured`}`;
  return [
    `  refit against the replay (each request's targets times measured / replayed, until the replayed means are within ${tol}, at most ${MAX_REPLAY_ROUNDS} rounds): ${verdict}`,
    ...c.rounds.map((r, k) => `    round ${k + 1}: compute_efficiency ${formatSignificant(r.spec.computeEfficiency)}, memory_efficiency ${formatSignificant(r.spec.memoryEfficiency)}, overhead_ms ${formatSignificant(r.spec.overheadMs)}: replay TTFT ${signed(r.ttftError)}, TPOT ${tpot(r.tpotError)}`),
  ];
}
