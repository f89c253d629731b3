/**
 * A profile's workload.trace, checked for the editor without parsing it on the server's thread:
 * the bundled runner's `attnscope trace FILE --json` (runner/cli.ts traceCommand, the readers
 * `simulate` replays with) reads every row in a child process, once per version of the file (its
 * stat: Workspace.traceState), and answers the summary a hover shows, or the first bad row as the
 * CLI prints it (`file:line:col: message`), which becomes a diagnostic at the key. A trace of
 * millions of rows takes seconds of CPU there; a keystroke costs one stat.
 */
import { spawn } from 'node:child_process';
import type { TraceSummary } from '../core/protocol/run';
import { runnerCommand } from '../core/runnerProcess';

/** What the runner said of a trace file: its summary, or the first bad row; `failed` when the runner itself could not say (not started, crashed). */
export type TraceCheck =
  | { summary: TraceSummary }
  | { error: { message: string; file: string; line: number; column: number } }
  | { failed: string };

/** Where a profile's trace stands for an analysis: not a readable file (`problem`), being read (`pending`), or read. */
export type TraceState = { problem: string } | { pending: true } | TraceCheck;

/** The most of the runner's stderr kept (its last line is the error). */
const STDERR_KEPT = 64 * 1024;

/**
 * Reads the trace at `absPath` with the runner at `runnerPath` (a .js file run by this Node, else
 * an executable). Never rejects: a runner that cannot start or ends without an answer resolves
 * to `failed` with the reason.
 */
export function checkTrace(runnerPath: string, absPath: string): Promise<TraceCheck> {
  const { command, args } = runnerCommand(runnerPath, process.execPath, ['trace', absPath, '--json']);
  return new Promise((done) => {
    let out = '';
    let err = '';
    let child;
    try {
      child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      done({ failed: `the runner did not start: ${(e as Error).message}` });
      return;
    }
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-STDERR_KEPT)));
    child.on('error', (e) => done({ failed: `the runner did not start: ${e.message}` }));
    child.on('close', (code, signal) => done(traceAnswer(code, signal, out, err)));
  });
}

/** The runner's answer, from its exit, stdout (the summary's JSON) and stderr (`file:line:col: message`, the CLI's one line for bad input). */
export function traceAnswer(code: number | null, signal: NodeJS.Signals | null, stdout: string, stderr: string): TraceCheck {
  if (code === 0) {
    try {
      return { summary: JSON.parse(stdout) as TraceSummary };
    } catch {
      return { failed: 'the runner printed no summary' };
    }
  }
  const last = stderr.trimEnd().split('\n').at(-1) ?? '';
  const at = /^(.+?):(\d+):(\d+): (?:error: )?(.*)$/.exec(last);
  if (code === 2 && at) return { error: { file: at[1]!, line: Number(at[2]), column: Number(at[3]), message: at[4]! } };
  return { failed: last !== '' ? last : `the runner ended with ${signal ?? `exit code ${code}`}` };
}
