/**
 * Runner -> extension channel: the runner process writes one JSON event per line (NDJSON) on
 * stdout when started as `attnscope bench - --events` with a resolved Profile on stdin.
 * Human progress goes to stderr. Direction: runner -> extension only; the extension cancels by
 * killing the process (SIGTERM; the runner then emits a `done` with status 'cancelled', a sweep
 * its `sweepEnd` with cancelled true; a runner cancelled while stdin is still open, before any
 * profile came, has no run to end on and exits 130 with no event). `attnscope sweep <profile> --events` writes the same
 * stream for a sweep, read from its file (RunnerSweepEndEvent).
 */
import type { RefusalCode } from '../refusals';
import type { Environment, KernelCase, PoolSample, RunResult } from './run';
import type { SweepReport } from './sweep';

export interface RunnerProgressEvent {
  type: 'progress';
  /** Steps finished so far / steps planned (machine measurement, each case, the pool simulation); fractional while the pool simulation runs. */
  done: number;
  total: number;
  message: string;
  /**
   * A sweep's only (`attnscope sweep --events`): the points whose result file is in the results
   * folder now (resumed, reused or written), where `done` adds the running points' fractions:
   * with --jobs 2, `done` 1.3 may be two points running and none saved.
   */
  saved?: number;
  /**
   * A sweep's only: its results folder (absolute), on every progress event, so that a window
   * reloaded before sweepEnd can say where the finished points are.
   */
  outDir?: string;
}

/**
 * The machine the kernels run on, with the peaks the runner measured on it (Environment.peaks:
 * FMA, bandwidth; the GPU's on 'cuda'), sent once as soon as they are measured, before the
 * first case: the run's `environment` as its `done` will carry it, so the dashboard's roofline
 * draws its roofs while the cases stream. Bench runs only (a simulation measures no peak).
 */
export interface RunnerEnvironmentEvent {
  type: 'environment';
  environment: Environment;
}

export interface RunnerCaseEvent {
  type: 'case';
  case: KernelCase;
}

export interface RunnerPoolSampleEvent {
  type: 'poolSample';
  sample: PoolSample;
}

export interface RunnerLogEvent {
  type: 'log';
  level: 'info' | 'warn' | 'error';
  message: string;
}

export interface RunnerDoneEvent {
  type: 'done';
  run: RunResult;
}

export interface RunnerErrorEvent {
  type: 'error';
  message: string;
  /** For bad input: where it is. */
  file?: string;
  line?: number;
  column?: number;
  /** A refusal a client words in its own terms (core/refusals.ts): its code; absent for any other error. */
  code?: RefusalCode;
}

/**
 * The end of `attnscope sweep <profile> --events` (the editor's "Run sweep"), finished or
 * cancelled: where its points are and, when it finished, the merged report it wrote. Its
 * `progress` events count points (fractional while points run; `message` names the running
 * points' values), its `log` events carry notes and each failed point, and bad input is an
 * `error` event at the profile's file:line:col before any point runs.
 */
export interface RunnerSweepEndEvent {
  type: 'sweepEnd';
  /** The results folder (absolute): a rerun of the same sweep resumes from the point files there. */
  outDir: string;
  /** The merged report written (absolute path of sweep-report.json); when cancelled, the points kept merged (SweepReport.interrupted), null when none was kept (or a shard's, or --json given). */
  reportFile: string | null;
  /** Points of the sweep whose result is in outDir now (run now, resumed or reused). */
  inFolder: number;
  /** Points of the sweep. */
  total: number;
  /** Points that failed, each with why (the report lists them as missing). */
  failed: Array<{ label: string; error: string }>;
  cancelled: boolean;
}

/**
 * `attnscope sweep --events` refused at once because another runner of the same sweep holds its
 * results folder's lock (runner/sweep/lock.ts): the folder, the lock file, who holds it (null: being
 * written) and the runner's sentence naming it and how to follow it. Exit code EXIT_BUSY follows.
 */
export interface RunnerSweepBusyEvent {
  type: 'sweepBusy';
  outDir: string;
  lockFile: string;
  owner: { pid: number; host: string; startedAt: string; processStart?: number } | null;
  message: string;
}

/**
 * A sweep's points saved so far (resumed, reused or run now), merged as `attnscope merge` merges
 * the folder (its `missing`: the points still to come): emitted under --events each time the saved
 * count grows, the first with the points a resumed sweep found, so that the Sweep tab shows them
 * and adds each as it lands (s49 newcomer-ed 5: the chart and the saved points went behind a
 * progress bar until the sweep ended). Not a shard's (its points are one share of the sweep).
 */
export interface RunnerSweepPointsEvent {
  type: 'sweepPoints';
  report: SweepReport;
}

export type RunnerEvent =
  | RunnerSweepPointsEvent
  | RunnerSweepEndEvent
  | RunnerSweepBusyEvent
  | RunnerProgressEvent
  | RunnerEnvironmentEvent
  | RunnerCaseEvent
  | RunnerPoolSampleEvent
  | RunnerLogEvent
  | RunnerDoneEvent
  | RunnerErrorEvent;

/** Exit codes of the `attnscope` CLI. */
export const EXIT_OK = 0;
export const EXIT_INTERNAL = 1;
export const EXIT_BAD_INPUT = 2;
/**
 * `attnscope simulate` (text or --json, not --events) asked an SLO question whose answer is no: a plain run
 * with an SLO (the profile's slo or --slo-*) whose attainment is below its target, or --max-rate where no rate
 * tried meets the SLO. The run's output and --json file are written as on success, then one line on stderr.
 * An Overloaded run without an SLO is a finding, not a failure: exit 0. Distinct from 1 and 2 so that a
 * CI gate tells "the model misses the SLO" from "the tool failed", as k6 exits 99 when a threshold fails
 * (k6 errext/exitcodes ThresholdsHaveFailed).
 */
export const EXIT_SLO_MISSED = 3;
/** Another runner holds the sweep's results folder (a RunnerSweepBusyEvent under --events): nothing was run; sysexits' EX_TEMPFAIL. */
export const EXIT_BUSY = 75;
