/**
 * A run the runner refused before any work (exit 2, core/protocol/runner.ts EXIT_BAD_INPUT), told
 * in the editor's terms: the runner's advice is for the command line ("Use --backend cpu"); in
 * the editor the backend comes from the `attnscope.backend` setting or the profile's
 * `device.backend`, so the reason names the one that asked for it. No `vscode` import.
 */
import type { Backend, Profile } from '../core/config/types';
import { benchCancelledText, formatPoolOutcome, INTERRUPTED } from '../core/format';
import type { RunKind, RunResult, TraceReplay } from '../core/protocol/run';
import { encoderBenchRefusal } from '../core/refusals';
import type { RunnerJob, RunnerOutcome } from '../core/runnerProcess';

export interface Refusal {
  /** What is wrong and what to change, one sentence or two. */
  reason: string;
  /** The setting to change ("attnscope.backend"), when a setting asked for what was refused. */
  setting?: string;
  /** The profile key to change ("device.backend"), when the profile asked for it. */
  profileKey?: string;
}

/**
 * The runner's one-line reason: its `error` event, else its last `attnscope: ...` stderr line.
 * Without the `<stdin>:line:col: ` the runner puts before bad input: the editor sends the profile
 * on stdin, so that names no file the user has (it read "<stdin>:1:1: bert is an encoder ...").
 */
function runnerReason(outcome: Pick<RunnerOutcome, 'error' | 'logTail'>): string {
  const line = outcome.error ?? [...outcome.logTail].reverse().find((l) => l.startsWith('attnscope: ')) ?? outcome.logTail.at(-1) ?? 'the runner refused the run';
  return line.replace(/^attnscope: /, '').replace(/^<stdin>:\d+:\d+: /, '');
}

/**
 * The refusal of `outcome` for a run of `profile` started with the `attnscope.backend` setting
 * `settingBackend`. One the runner tagged with a code (core/refusals.ts) is worded for the editor
 * (an encoder: the hover, hints and memory breakdown, not `attnscope estimate`). A backend refusal
 * ("... Use --backend cpu") names the setting when it is not 'auto' (the setting wins over the
 * profile), else the profile's device.backend.
 */
export function refusalOf(outcome: Pick<RunnerOutcome, 'error' | 'logTail'> & { errorCode?: RunnerOutcome['errorCode'] }, profile: Pick<Profile, 'device' | 'model'>, settingBackend: Backend): Refusal {
  if (outcome.errorCode === 'encoder') return { reason: encoderBenchRefusal(profile.model.modelType, 'editor') };
  // A missing native part lists every file it looked for (up to 8 per build): the toast keeps what
  // is missing and how to build it; the runner's line, paths and all, is in the log.
  const raw = runnerReason(outcome).replace(/ \(tried [^)]*\)/g, '');
  const m = /^(.*?)\.? Use --backend (\w+)\.?$/s.exec(raw);
  if (!m) return { reason: raw };
  // The CLI names the flag the setting became ("--backend cuda: ..."): the setting is named below instead.
  const why = m[1]!.replace(/^--backend \w+: /, '');
  const other = m[2]!;
  if (settingBackend !== 'auto') {
    return { reason: `${why}. The setting "attnscope.backend" asks for ${settingBackend}: set it to "auto" (or "${other}").`, setting: 'attnscope.backend' };
  }
  return { reason: `${why}. The profile's device.backend is ${profile.device.backend}: set it to auto (or ${other}).`, profileKey: 'device.backend' };
}

/** A progress line the runner writes on stderr ("[ 12%] flash_fwd …"): no reason for a failure. */
const PROGRESS_LINE = /^\[\s*\d+%\]/;

/**
 * The error toast of a runner that crashed (killed, or exited non-zero without a result): how it
 * ended (signal or exit code) and the last line it wrote that is not progress, the likeliest
 * reason ("Segmentation fault", an `attnscope: internal error: ...` line); the whole tail is in
 * the log. `withoutResult`: it exited 0 but sent no run.
 */
export function crashMessage(job: RunnerJob, outcome: Pick<RunnerOutcome, 'exitCode' | 'signal' | 'logTail'>, withoutResult: boolean): string {
  const how = outcome.signal ? `killed by ${outcome.signal}` : `exit code ${outcome.exitCode}`;
  const last = [...outcome.logTail].reverse().find((l) => l.trim() !== '' && !PROGRESS_LINE.test(l));
  const what = withoutResult ? `ended without a result (${how})` : `failed (${how})`;
  return `AttnScope: the ${job === 'simulate' ? 'simulation' : jobNoun(job)} runner ${what}${last ? `; its last line: ${last.replace(/^attnscope: /, '')}` : ', with nothing on stderr'}.`;
}

/** What a job is called in messages: "benchmark", "serving simulation", "sweep". */
export function jobNoun(job: RunnerJob): string {
  return job === 'simulate' ? 'serving simulation' : job === 'sweep' ? 'sweep' : 'benchmark';
}

/**
 * The warning for a run asked for while another runs (one run at a time: the kernels' timings
 * would share the CPU): what was asked and not started, what is running, and what to do.
 * `asked`: the file asked for, null when none was named (a picker would have asked).
 */
export function busyMessage(running: { name: string; job: RunnerJob }, job: RunnerJob, asked: string | null): string {
  return `AttnScope: the ${jobNoun(job)}${asked ? ` of ${asked}` : ''} was not started: the ${jobNoun(running.job)} of ${running.name} is running (one run at a time). Wait for it to finish, or cancel it and start again.`;
}

/**
 * Why a serving simulation stopped before its end (cancelled, or its window reloaded) is not
 * saved, where a benchmark stopped so keeps its cases: each kernel case is a finished measurement,
 * but a simulation's figures (latency percentiles, goodput, peak occupancy, preemptions) are of
 * the whole workload, and those of the requests finished before the stop are of the short and
 * early ones, before the queue and the pool fill: they would understate them. DESIGN.md says so.
 */
export const SIMULATION_NOT_SAVED = 'a simulation is saved only when it ends: its latencies, goodput and pool figures are of the whole workload, and those of the requests finished before the stop (the short, early ones, before the queue builds up) would understate them';

/**
 * The toast of a serving simulation (`name`, which names it a simulation) that stopped before
 * its end: `how` it stopped and that nothing is saved, in one sentence (s51 newcomer-ed L1: with
 * the reason it was a 60-word paragraph). The reason, SIMULATION_NOT_SAVED, is in the dashboard's
 * line for the stopped run and in DESIGN.md.
 */
export function simulationStoppedMessage(name: string, how: 'cancelled' | 'interrupted'): string {
  return `AttnScope: ${name} was ${how === 'cancelled' ? 'cancelled' : 'interrupted when the window reloaded or closed'}; nothing is saved (a simulation is saved only when it ends).`;
}

/**
 * The `error` of a run a window reload (or close) stopped (BenchmarkRun.interrupt), which the next
 * window's dashboard shows on its header line (its badge says "interrupted": core/format
 * runStateWord): a benchmark "after 2 case(s)" (saved), or "before its first case: nothing was
 * measured, nothing is saved" (the toast's words; it read "after 0 case(s)"), a simulation not
 * saved and why (SIMULATION_NOT_SAVED).
 */
export function interruptedError(job: RunKind, cases: number): string {
  if (job === 'simulate') return `${INTERRUPTED}; not saved: ${SIMULATION_NOT_SAVED}`;
  return cases === 0 ? `${INTERRUPTED} before its first case: nothing was measured, nothing is saved` : `${INTERRUPTED} after ${cases} case(s)`;
}

/**
 * The next window's toast about a run the window's reload (or close) stopped (BenchmarkRun.interrupt),
 * shown with Run again: a benchmark with `cases` measured (saved, History lists it as interrupted)
 * or none (nothing measured, nothing saved); a simulation before its end (nothing saved, and why);
 * a run whose `done` came (`finished`: saved whole). `name` is the run's name (model · profile · mode).
 * "AttnScope: the benchmark of Mixtral-8x7B-v0.1 · m.attn.yaml · full was interrupted when the window
 * reloaded or closed, before its first case: nothing was measured, nothing is saved."
 */
export function interruptedMessage(job: RunKind, name: string, cases: number, finished: boolean): string {
  const what = job === 'simulate' ? name : `the benchmark of ${name}`;
  if (finished) return `AttnScope: ${what} finished as the window reloaded or closed; it is saved.`;
  if (job === 'simulate') return simulationStoppedMessage(name, 'interrupted');
  return cases === 0
    ? `AttnScope: ${what} was interrupted when the window reloaded or closed, before its first case: nothing was measured, nothing is saved.`
    : `AttnScope: ${what} was interrupted when the window reloaded or closed; the ${cases} case(s) measured before are saved, listed in History as interrupted.`;
}

/** The setting that says where runs are saved (package.json; ctx.ts historyFolder reads it). */
export const HISTORY_FOLDER_SETTING = 'attnscope.historyFolder';

/**
 * The error of a run that ended but could not be saved to History: its folder could not be made
 * or written (s52 newcomer-ed 1: the setting at /proc/nope/runs, and nothing said so). Names the
 * folder, the file system's error, that the result stays on the dashboard to export, and the
 * setting to change.
 */
export function notSavedMessage(name: string, folder: string, err: unknown): string {
  const why = err instanceof Error ? err.message : String(err);
  return `AttnScope: ${name} is not saved in History: its file could not be written in the history folder ${folder} (${why}). The result stays on the dashboard: Export JSON or CSV keeps it. Set "${HISTORY_FOLDER_SETTING}" to a folder you can write in.`;
}

/**
 * The toast of a run that finished: "AttnScope: <name> finished: <outcome>." (a simulation's name
 * already ends in "simulation": "simulation of X · simulation finished" said it twice), the
 * pool's outcome with its p99 TTFT in the unit its size needs (core/format formatPoolOutcome).
 * `wasm`: the WebAssembly note (core/format wasmBuildNote) or null.
 */
export function finishedMessage(job: RunKind, name: string, run: Pick<RunResult, 'cases' | 'pool'>, wasm: string | null): string {
  const outcome = job === 'simulate'
    ? `AttnScope: ${name} finished: ${run.pool ? formatPoolOutcome(run.pool) : 'no pool result'}.`
    : `AttnScope: benchmark of ${name} finished: ${run.cases.length} case(s).`;
  return wasm ? `${outcome} ${wasm}` : outcome;
}

/**
 * The toast of a cancelled benchmark: how far it got and what is saved (core/format
 * benchCancelledText, the dashboard's line under the run too).
 */
export function benchCancelledMessage(name: string, run: Pick<RunResult, 'status' | 'cases' | 'pool' | 'poolCancelled'>): string {
  return `AttnScope: benchmark of ${name} cancelled ${benchCancelledText(run)}.`;
}

/**
 * Why the dashboard's Run button does not replay the trace of a simulation that replayed one
 * (PoolLoad.trace): the file is no longer at its recorded absolute path. The button offered next
 * to it simulates `profile`'s drawn workload instead, which is a different load: the message says
 * so, so that its figures are not compared against the trace's unawares.
 */
export function traceGoneMessage(profile: string, trace: Pick<TraceReplay, 'path' | 'resolvedPath'>): string {
  return `AttnScope: the trace ${trace.path} this run replayed is no longer at ${trace.resolvedPath}, so it cannot be replayed. Simulating ${profile} instead draws the profile's workload: another load, whose figures are not comparable with the trace's.`;
}

/**
 * Compare runs' / Export run's message when History has too few runs (`many`: Compare, which needs
 * two). `folders`: the workspace's history folders, relative ("llama/.attnscope/runs"); null with no
 * folder open, where runs go to the editor's own storage, whose path is no place a user looks (s50
 * newcomer-ed 14 read "…/User/globalStorage/attnscope.attnscope/runs"): then how to make one instead.
 * `unreadable`: " (2 unreadable: …)" or "".
 */
export function noRunsMessage(many: boolean, folders: string[] | null, unreadable: string): string {
  const what = many ? 'comparing needs two saved runs' : 'no saved runs yet';
  if (folders === null) return `AttnScope: ${what}${unreadable}; open a profile (.attn.yaml) or a model's config.json and run a benchmark or a simulation from its code lens first.`;
  return `AttnScope: ${what} in ${folders.join(', ')}${unreadable}; run a benchmark or a simulation first.`;
}
