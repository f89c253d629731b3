/**
 * A profile's workload.trace, checked for the editor without parsing it on the server's thread:
 * the bundled runner's `attnscope trace FILE --json` (runner/cli.ts traceCommand, the readers
 * `simulate` replays with) reads every row in a child process, once per version of the file (its
 * stat: Workspace.traceState), and answers the summary a hover shows, or every bad row as the
 * CLI prints them (`file:line:col: message` each, the first 20 then a line per kind counting the
 * rest: runner/simulate/trace.ts TraceProblems), which become one diagnostic at the key listing them. A trace of
 * millions of rows takes seconds of CPU there (146 MB: ~1.4 s, DESIGN.md "Traces"); a keystroke
 * costs one stat. The child is bounded: it is killed after {@link TRACE_CHECK_TIMEOUT_MS} (a
 * multi-GB trace, which `simulate` reads whole, is then not checked, and the diagnostic says how
 * to check it), and when the caller aborts (the file changed again, or no open document reads it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { formatBytes, formatSignificant } from '../core/format';
import type { WorkloadTrace } from '../core/config/types';
import type { TraceSummary } from '../core/protocol/run';
import { runnerCommand } from '../core/runnerProcess';

/** One line of the runner's refusal of a trace: a bad row (or a count of more like it) at its place in the file. */
export interface TraceRowError {
  message: string;
  file: string;
  line: number;
  column: number;
}

/** What the runner said of a trace file: its summary, or its bad rows in file order (at least one); `failed` when the runner itself could not say (not started, crashed). */
export type TraceCheck =
  | { summary: TraceSummary }
  | { errors: TraceRowError[] }
  | { failed: string }
  | { timedOut: { afterMs: number; bytes: number | null } };

/** Where a profile's trace stands for an analysis: not a readable file (`problem`), being read (`pending`), or read. */
export type TraceState = { problem: string } | { pending: true } | TraceCheck;

/** The most of the runner's stderr kept: the lines of its refusal (at most 20 rows and 11 counts, TraceProblems), or its last line. */
const STDERR_KEPT = 64 * 1024;

/**
 * How long the trace check may read, ms: 20 s, some 2 GB of JSONL at the ~100 MB/s the readers
 * take on one core (146 MB in ~1.4 s); a bigger trace kept a child busy for minutes per version
 * of the file (s40 trace40 left 4).
 */
export const TRACE_CHECK_TIMEOUT_MS = 20_000;

/** How a profile asks its trace read (workload.trace_time_unit, trace_model, trace_log_type): the runner's --trace-* flags. */
export type TraceSettings = Pick<WorkloadTrace, 'timeUnit' | 'model' | 'logType'>;

/** checkTrace's bounds: `signal` kills the child (the answer is then `failed: 'cancelled'`, for no one); `timeoutMs` (default {@link TRACE_CHECK_TIMEOUT_MS}) kills it and answers `timedOut`; `onSpawn` gets the child's pid. */
export interface TraceCheckOptions {
  /** The profile's settings, passed as `--trace-time-unit`, `--trace-model`, `--trace-log-type` with `--profile-keys` (the runner's messages then name the keys). */
  settings?: TraceSettings;
  signal?: AbortSignal;
  timeoutMs?: number;
  onSpawn?: (pid: number) => void;
}

/**
 * Reads the trace at `absPath` with the runner at `runnerPath` (a .js file run by this Node, else
 * an executable). Never rejects: a runner that cannot start or ends without an answer resolves
 * to `failed` with the reason; one still reading after `timeoutMs` is killed (SIGKILL: a
 * synchronous reader does not see SIGTERM's handler until it is done) and resolves to `timedOut`.
 */
export function checkTrace(runnerPath: string, absPath: string, opts: TraceCheckOptions = {}): Promise<TraceCheck> {
  const s = opts.settings ?? {};
  const flags = [
    ...(s.timeUnit !== undefined ? ['--trace-time-unit', s.timeUnit] : []),
    ...(s.model !== undefined ? ['--trace-model', s.model] : []),
    ...(s.logType !== undefined ? ['--trace-log-type', s.logType] : []),
  ];
  const { command, args } = runnerCommand(runnerPath, process.execPath, ['trace', absPath, ...flags, '--profile-keys', '--json']);
  const timeoutMs = opts.timeoutMs ?? TRACE_CHECK_TIMEOUT_MS;
  return new Promise((done) => {
    if (opts.signal?.aborted) {
      done({ failed: 'cancelled' });
      return;
    }
    let out = '';
    let err = '';
    let child: ChildProcess;
    try {
      child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      done({ failed: `the runner did not start: ${(e as Error).message}` });
      return;
    }
    let stopped: TraceCheck | null = null;
    const stop = (why: TraceCheck): void => {
      if (stopped !== null) return;
      stopped = why;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop({ timedOut: { afterMs: timeoutMs, bytes: fileBytes(absPath) } }), timeoutMs);
    const onAbort = (): void => stop({ failed: 'cancelled' });
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (answer: TraceCheck): void => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      done(stopped ?? answer);
    };
    if (child.pid !== undefined) opts.onSpawn?.(child.pid);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-STDERR_KEPT)));
    child.on('error', (e) => finish({ failed: `the runner did not start: ${e.message}` }));
    child.on('close', (code, signal) => finish(traceAnswer(code, signal, out, err)));
  });
}

/** The file's size, bytes; null when it cannot be stat'ed (gone since). */
function fileBytes(path: string): number | null {
  try {
    return statSync(path).size;
  } catch {
    return null;
  }
}

/**
 * What a trace check that ran out of time means and what to do, in one wording (the diagnostic at
 * workload.trace and its hover): `path` as the profile writes it.
 */
export function traceTimeoutText(path: string, t: { afterMs: number; bytes: number | null }): string {
  const size = t.bytes === null ? '' : ` (${formatBytes(t.bytes)})`;
  return `the trace ${path}${size} was not checked: reading it took longer than ${formatSignificant(t.afterMs / 1000)} s, so the editor stopped; \`attnscope trace ${path}\` in a terminal checks it (\`simulate\` reads it whole)`;
}

/** The runner's answer, from its exit, stdout (the summary's JSON) and stderr (`file:line:col: message`, the CLI's line per error of bad input). */
export function traceAnswer(code: number | null, signal: NodeJS.Signals | null, stdout: string, stderr: string): TraceCheck {
  if (code === 0) {
    try {
      return { summary: JSON.parse(stdout) as TraceSummary };
    } catch {
      return { failed: 'the runner printed no summary' };
    }
  }
  const lines = stderr.trimEnd().split('\n');
  const last = lines.at(-1) ?? '';
  const errors: TraceRowError[] = [];
  for (const line of lines) {
    const at = /^(.+?):(\d+):(\d+): (?:error: )?(.*)$/.exec(line);
    // A warning line is no refusal (the runner prints them only with a summary, but a line is a line).
    if (at && !at[4]!.startsWith('warning: ')) errors.push({ file: at[1]!, line: Number(at[2]), column: Number(at[3]), message: at[4]! });
  }
  if (code === 2 && errors.length > 0) return { errors };
  return { failed: last !== '' ? last : `the runner ended with ${signal ?? `exit code ${code}`}` };
}
