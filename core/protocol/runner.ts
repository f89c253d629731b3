/**
 * Runner -> extension channel: the runner process writes one JSON event per line (NDJSON) on
 * stdout when started as `attnscope bench - --events` with a resolved Profile on stdin.
 * Human progress goes to stderr. Direction: runner -> extension only; the extension cancels by
 * killing the process (SIGTERM; the runner then emits a `done` with status 'cancelled').
 */
import type { KernelCase, PoolSample, RunResult } from './run';

export interface RunnerProgressEvent {
  type: 'progress';
  /** Steps finished so far / steps planned (machine measurement, each case, the pool simulation); fractional while the pool simulation runs. */
  done: number;
  total: number;
  message: string;
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
}

export type RunnerEvent =
  | RunnerProgressEvent
  | RunnerCaseEvent
  | RunnerPoolSampleEvent
  | RunnerLogEvent
  | RunnerDoneEvent
  | RunnerErrorEvent;

/** Exit codes of the `attnscope` CLI. */
export const EXIT_OK = 0;
export const EXIT_INTERNAL = 1;
export const EXIT_BAD_INPUT = 2;
