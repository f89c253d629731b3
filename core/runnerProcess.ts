/**
 * The runner as a child process: `node dist/runner.js bench - --events` (or `simulate - --events`) with the resolved
 * Profile as JSON on stdin, or `sweep <profile> --events` reading the profile's file, NDJSON
 * RunnerEvents on stdout (core/protocol/runner.ts), human progress on stderr. The runner never runs inside the extension host, so a native crash
 * cannot take the editor down. No `vscode` import: tests drive this with a fake runner.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileLocation } from './config/positions';
import type { Backend, Profile } from './config/types';
import type { RunKind, RunResult } from './protocol/run';
import type { RunnerEvent, RunnerSweepEndEvent } from './protocol/runner';
import type { RefusalCode } from './refusals';

/** How to start the runner. */
export interface RunnerLaunch {
  /** Executable: a Node binary, or the runner itself when it is not a script. */
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** What a runner process runs. */
export type RunnerJob = RunKind | 'sweep';

export interface RunnerOptions {
  /**
   * bench: time the kernels (and simulate the pool when the profile has a workload); simulate:
   * the pool simulation alone; sweep: the `sweep:` block of the profile file `file` (each point
   * its job: simulate, bench or both).
   */
  job: RunnerJob;
  quick: boolean;
  backend: Backend;
  /** sweep: the profile's path (absolute: the runner's working folder is the workspace's). */
  file?: string;
  /**
   * simulate: the flags that replay a saved run's trace instead of drawing the profile's workload
   * (core/protocol/run.ts traceReplayArgs: `--trace /abs/t.jsonl --trace-format mooncake ...`).
   */
  replay?: readonly string[];
  /**
   * sweep: flags after the file that make the sweep the one to resume (extension/sweepReports.ts
   * resumeArgs of an interrupted report's SweepReport.profile: `--set=key=v1,v2`, `--max-rate`).
   */
  sweepArgs?: readonly string[];
}

/**
 * The command line for a runner: `bench - --events [--backend cpu|cuda] [--quick]`,
 * `simulate - --events [--trace FILE ...]` (no kernel runs: the backend and quick settings do not
 * apply; `replay`'s flags where given), or
 * `sweep <file> --events [--set=...]... [--max-rate] [--backend cpu|cuda] [--quick]` (its points may time kernels; `sweepArgs` where given).
 * `runnerPath` ending in .js/.mjs/.cjs runs under `node`; anything else is executed directly
 * with the same arguments.
 * @throws Error for a sweep without `file`.
 */
export function runnerLaunch(runnerPath: string, node: string, opts: RunnerOptions): RunnerLaunch {
  if (opts.job === 'sweep' && !opts.file) throw new Error('runnerLaunch: a sweep needs the profile file');
  const args = opts.job === 'sweep' ? ['sweep', opts.file!, '--events'] : [opts.job, '-', '--events'];
  if (opts.job === 'simulate' && opts.replay) args.push(...opts.replay);
  if (opts.job === 'sweep' && opts.sweepArgs) args.push(...opts.sweepArgs);
  if (opts.job !== 'simulate') {
    if (opts.backend !== 'auto') args.push('--backend', opts.backend); // 'auto': the profile's device.backend decides
    if (opts.quick) args.push('--quick');
  }
  return runnerCommand(runnerPath, node, args);
}

/**
 * The process that runs the runner at `runnerPath` with `args`: a path ending in .js/.mjs/.cjs
 * under `node`, anything else executed directly. Every runner start goes through it (runs,
 * sweeps, the server's trace check).
 */
export function runnerCommand(runnerPath: string, node: string, args: readonly string[]): RunnerLaunch {
  if (/\.[cm]?js$/.test(runnerPath)) return { command: node, args: [runnerPath, ...args] };
  return { command: runnerPath, args: [...args] };
}

/**
 * Where the user sets attnscope.runnerPath / nodePath: both are machine-scoped (package.json
 * "scope": "machine"), so the Settings editor shows them under User locally and under the Remote
 * tab in a remote window (code-server, SSH, WSL), never under Workspace (s38 newcomer-ed 8: the
 * message said "user settings" where the setting lives under Remote).
 */
const WHERE_SET = 'in Settings (User, or the Remote tab in a remote window: a machine setting)';

/** `path` may be executed by this user (X_OK). */
function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `path` is an existing file (not a folder). */
function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Why the runner cannot start with the user's attnscope.runnerPath / attnscope.nodePath (empty:
 * the bundled runner, the default Node; not checked), as one sentence that names the setting,
 * its value and what to do; null when both resolve. Relative paths resolve against `cwd` (the
 * runner's working folder, as spawn resolves them). runnerPath must be an existing file;
 * nodePath, used only for a .js/.mjs/.cjs runner, an existing file when it holds a path
 * separator, else a command found on `PATH` (with `PATHEXT` on Windows), as spawn looks it up.
 * Checked before spawning: a missing file otherwise surfaces as the tail of Node's
 * MODULE_NOT_FOUND dump or an ENOENT spawn error.
 */
export function launchSettingsProblem(settings: { runnerPath: string; nodePath: string }, cwd?: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const { runnerPath, nodePath } = settings;
  if (runnerPath && !isFile(resolve(cwd ?? process.cwd(), runnerPath))) {
    return `attnscope.runnerPath "${runnerPath}" is not a file: fix it ${WHERE_SET}, or clear it to use the bundled runner`;
  }
  const usesNode = !runnerPath || /\.[cm]?js$/.test(runnerPath);
  // A runner that is not a .js file is executed itself: without the execute bit the spawn failed
  // with the shell's "exit code 127 … not found" (s38 newcomer-ed 8).
  if (runnerPath && !usesNode && process.platform !== 'win32' && !isExecutable(resolve(cwd ?? process.cwd(), runnerPath))) {
    return `attnscope.runnerPath "${runnerPath}" is not executable: point it at the attnscope runner (dist/runner.js, or an executable file) ${WHERE_SET}, or clear it to use the bundled runner`;
  }
  if (!nodePath || !usesNode) return null;
  if (/[\\/]/.test(nodePath)) {
    if (isFile(resolve(cwd ?? process.cwd(), nodePath))) return null;
    return `attnscope.nodePath "${nodePath}" is not a file: fix it ${WHERE_SET}, or clear it to use the default Node`;
  }
  const exts = process.platform === 'win32' ? ['', ...(env['PATHEXT'] ?? '.EXE;.CMD;.BAT').split(';')] : [''];
  const dirs = (env['PATH'] ?? '').split(delimiter).filter(Boolean);
  if (dirs.some((d) => exts.some((e) => isFile(join(d, nodePath + e))))) return null;
  return `attnscope.nodePath "${nodePath}" is no command on PATH: give the Node executable's full path ${WHERE_SET}, or clear it to use the default Node`;
}

/** How a runner process ended. */
export interface RunnerOutcome {
  /** The run from the `done` event; null when the process ended without one. */
  run: RunResult | null;
  /** A sweep's `sweepEnd` event (finished or cancelled); null when the process ended without one. */
  sweepEnd: RunnerSweepEndEvent | null;
  /** Message of the last `error` event, or of a spawn failure. */
  error: string | null;
  /** That event's refusal code (core/refusals.ts), so the editor can word it for itself; null when it had none. */
  errorCode: RefusalCode | null;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** cancel() was called. */
  cancelled: boolean;
  /** Last lines the runner wrote on stderr (and error/log events), oldest first. */
  logTail: string[];
}

export interface RunnerListener {
  onEvent(event: RunnerEvent): void;
  /** One line of stderr, or a stdout line that is not a RunnerEvent. */
  onLog(line: string): void;
}

const LOG_TAIL_LINES = 20;

/**
 * A started runner. `done` resolves (never rejects) when the process has exited and its
 * output has been read. `cancel()` sends SIGTERM, then SIGKILL after `killAfterMs` if the
 * runner is still alive, so the process is gone within a second.
 */
export class RunnerProcess {
  readonly done: Promise<RunnerOutcome>;
  private readonly child: ChildProcess;
  private cancelled = false;
  private killTimer: NodeJS.Timeout | undefined;

  /** `profile`: the resolved Profile written on stdin (bench, simulate); null for a sweep, which reads its file (stdin is closed empty). */
  constructor(launch: RunnerLaunch, profile: Profile | null, listener: RunnerListener) {
    const logTail: string[] = [];
    const remember = (line: string): void => {
      logTail.push(line);
      if (logTail.length > LOG_TAIL_LINES) logTail.shift();
    };
    let run: RunResult | null = null;
    let sweepEnd: RunnerSweepEndEvent | null = null;
    let error: string | null = null;
    let errorCode: RefusalCode | null = null;

    this.child = spawn(launch.command, launch.args, {
      cwd: launch.cwd,
      env: launch.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const child = this.child;

    const stdoutClosed = new Promise<void>((resolve) => {
      if (!child.stdout) return resolve();
      const rl = createInterface({ input: child.stdout, crlfDelay: Infinity });
      rl.on('line', (line) => {
        if (line.trim() === '') return;
        const event = parseEvent(line);
        if (!event) {
          // An event line that does not parse was cut or garbled on its way: say so in a line a
          // notification can show, not the (up to megabytes of) JSON itself.
          const shown = line.startsWith('{"type":') ? unreadableEvent(line) : line;
          remember(shown);
          listener.onLog(shown);
          return;
        }
        if (event.type === 'done') run = event.run;
        if (event.type === 'sweepEnd') sweepEnd = event;
        if (event.type === 'error') {
          error = event.file ? `${fileLocation(event.file, event.line ?? 1, event.column ?? 1)}: ${event.message}` : event.message;
          errorCode = event.code ?? null;
          remember(error);
        }
        if (event.type === 'log') remember(`[${event.level}] ${event.message}`);
        listener.onEvent(event);
      });
      rl.on('close', () => resolve());
    });
    const stderrClosed = new Promise<void>((resolve) => {
      if (!child.stderr) return resolve();
      const rl = createInterface({ input: child.stderr, crlfDelay: Infinity });
      rl.on('line', (line) => {
        remember(line);
        listener.onLog(line);
      });
      rl.on('close', () => resolve());
    });

    this.done = new Promise<RunnerOutcome>((resolve) => {
      let settled = false;
      const finish = (exitCode: number | null, signal: NodeJS.Signals | null): void => {
        if (settled) return;
        settled = true;
        if (this.killTimer) clearTimeout(this.killTimer);
        resolve({ run, sweepEnd, error, errorCode, exitCode, signal, cancelled: this.cancelled, logTail });
      };
      child.on('error', (err) => {
        error = `could not start ${launch.command}: ${err.message}`;
        remember(error);
        finish(null, null);
      });
      child.on('exit', (code, signal) => {
        Promise.all([stdoutClosed, stderrClosed]).then(() => finish(code, signal));
      });
    });

    child.stdin?.on('error', () => undefined); // a runner that dies before reading stdin: reported through exit
    child.stdin?.end(profile === null ? '' : JSON.stringify(profile));
  }

  /** Process id, when the process started. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Asks the runner to stop (SIGTERM: it emits a cancelled `done`, a sweep its `sweepEnd`), and kills it if it lingers. */
  cancel(killAfterMs = 500): void {
    if (this.cancelled || this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.cancelled = true;
    this.child.kill('SIGTERM');
    this.killTimer = setTimeout(() => {
      if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    }, killAfterMs);
  }
}

/** What the log and notifications say about an event line that is not valid JSON. */
export function unreadableEvent(line: string): string {
  const type = /^\{"type":"([a-zA-Z]+)"/.exec(line)?.[1] ?? 'unknown';
  return `(a ${type} event the runner wrote could not be read: ${line.length} characters of JSON, cut or garbled)`;
}

/** A RunnerEvent from one NDJSON line, or null when the line is not one. */
export function parseEvent(line: string): RunnerEvent | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const type = (value as { type?: unknown }).type;
  switch (type) {
    case 'progress':
    case 'environment':
    case 'case':
    case 'poolSample':
    case 'log':
    case 'done':
    case 'error':
    case 'sweepEnd':
    case 'sweepBusy':
    case 'sweepPoints':
      return value as RunnerEvent;
    default:
      return null;
  }
}
