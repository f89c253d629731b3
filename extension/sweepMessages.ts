/**
 * What the editor's "Run sweep" (extension/sweep.ts) says, from the runner's events
 * (`attnscope sweep <profile> --events`, core/protocol/runner.ts): the progress line, the toast
 * at the end (finished, with failed points, or cancelled: a rerun resumes) and the refusal of bad
 * input placed at the CLI's file:line:col. No `vscode` import.
 */
import type { RunnerErrorEvent, RunnerProgressEvent, RunnerSweepBusyEvent, RunnerSweepEndEvent } from '../core/protocol/runner';
import { getProperty, parseProfileText } from '../core/config';

/** Points, in words: "1 point", "2 points". */
const points = (n: number): string => `${n} ${n === 1 ? 'point' : 'points'}`;

/**
 * The progress notification's and the Sweep tab's line: the points saved (their result file in the
 * results folder: the runner's `saved`) of the total, then the points running and how far each is,
 * as the runner's message gives them ("1 of 2 points saved · running: page_size=64 40%"). Not
 * `done`: that adds the running points' fractions, so with two points at 90 % and 38 % it is 1.28
 * with none saved (s31 newcomer-ed 2).
 */
export function sweepProgressMessage(e: Pick<RunnerProgressEvent, 'saved' | 'total' | 'message'>): string {
  return `${e.saved ?? 0} of ${points(e.total)} saved${e.message ? ` · running: ${e.message}` : ''}`;
}

/**
 * The toast at a sweep's end. `folder`: the results folder as the user reads it (workspace
 * relative). Cancelled: how many points are kept there and that running the sweep again resumes
 * from them (the CLI's resume: a point whose file is there is not run again). Failed points: how
 * many, the first with its reason, and that a rerun retries only those.
 */
export function sweepEndMessage(name: string, end: Pick<RunnerSweepEndEvent, 'cancelled' | 'inFolder' | 'total' | 'failed'>, folder: string): string {
  if (end.cancelled) {
    return `AttnScope: sweep of ${name} cancelled; ${end.inFolder} of ${points(end.total)} are saved in ${folder}. Run sweep again to resume: it runs only the points not there yet.`;
  }
  if (end.failed.length > 0) {
    const first = end.failed[0]!;
    return `AttnScope: sweep of ${name}: ${end.failed.length} of ${points(end.total)} failed (${first.label}: ${first.error}${end.failed.length > 1 ? '; the others in the log' : ''}). The report shows the ${end.inFolder} that ran; run sweep again to retry only the failed ones.`;
  }
  return `AttnScope: sweep of ${name} finished: ${points(end.total)}, report in ${folder}.`;
}

/**
 * What the window after a reload tells the user of a sweep that reload ended (its runner stopped
 * with the extension host): how many points were saved by the last progress (`saved` of `total`,
 * the runner's count of point files in the folder; total 0: none reported yet) and where they are kept, and that running the sweep again resumes
 * (the CLI's resume: a point whose file is in the results folder is not run again).
 */
export function sweepInterruptedMessage(name: string, saved: number, total: number, folder: string): string {
  const kept = total > 0 ? `${saved} of ${points(total)} finished before are saved in ${folder}` : `the points finished before, if any, are saved in ${folder}`;
  return `AttnScope: the sweep of ${name} was interrupted when the window reloaded or closed; ${kept}. Resume sweep runs it again: only the points not there yet.`;
}

/** Where bad input is: the CLI's `file:line:col` (1-based), and its message. */
export interface SweepInputError {
  file: string;
  line: number;
  column: number;
  message: string;
}

/** The runner's `error` event as a place in a file; null when it names none. */
export function sweepInputError(e: RunnerErrorEvent): SweepInputError | null {
  if (!e.file) return null;
  return { file: e.file, line: e.line ?? 1, column: e.column ?? 1, message: e.message };
}

/**
 * The toast of a sweep the runner refused before any point ran (a bad axis value, a point
 * that cannot run here): the CLI's message at `where` (`file:line:col` as the user reads it),
 * then what to do.
 */
export function sweepRefusalMessage(name: string, error: SweepInputError, where: string): string {
  return `AttnScope: the sweep of ${name} was not run: ${where}: ${error.message}. Change the value there (it is marked in the Problems view) and run the sweep again.`;
}

/**
 * The toast of a sweep another runner of the same sweep is running (the runner's `sweepBusy` event:
 * another window or a terminal holds its results folder's lock, runner/sweep/lock.ts): an
 * information, not an error — nothing is wrong, and nothing ran twice (s41 newcomer-ed F8). Names
 * the other runner and where its points land; `folder`: outDir as the workspace names it.
 */
export function sweepBusyMessage(name: string, busy: Pick<RunnerSweepBusyEvent, 'owner'>, folder: string): string {
  const who = busy.owner ? `process ${busy.owner.pid} on ${busy.owner.host}, since ${busy.owner.startedAt}` : 'a runner starting now';
  return `AttnScope: the sweep of ${name} is already running (${who}: another window or a terminal), so it was not started again. Its points land in ${folder} as they finish, and History lists its report when it ends; run the sweep again then to resume any points it left.`;
}

/**
 * Whether the profile `text` (its path `file`, YAML or JSON by its name) has no `sweep:` key, so
 * "Run sweep" has nothing to run: checked before the sweep starts (s51 newcomer-ed M2: the runner's
 * refusal came after the dashboard said "running", and named a CLI flag). False for text that does
 * not parse or is not a mapping, and for a `sweep:` of any shape: the runner places those errors.
 */
export function hasNoSweepBlock(text: string, file: string): boolean {
  const parsed = parseProfileText(text, file);
  if (parsed.problems.some((p) => p.severity === 'error')) return false;
  const root = parsed.root;
  return root !== null && root.type === 'object' && getProperty(root, 'sweep') === undefined;
}

/** The example block the no-sweep toast offers to add to a YAML profile (its own lines, no trailing comment: pasted as is). */
export const EXAMPLE_SWEEP_BLOCK = 'sweep:\n  axes:\n    kv_cache.page_size: [8, 16, 32]\n';

/**
 * The toast of "Run sweep" on a profile with no `sweep:` block (hasNoSweepBlock), before anything
 * runs: what to add, in the file's own syntax (`json`: a .json profile), and that the button adds it.
 */
export function noSweepMessage(name: string, json: boolean): string {
  const example = json ? '"sweep": {"axes": {"kv_cache.page_size": [8, 16, 32]}}' : 'sweep: {axes: {kv_cache.page_size: [8, 16, 32]}}';
  return `AttnScope: ${name} has no sweep: block, so there is nothing to sweep. Add one that lists the values to try for a key, e.g. ${example}, then run the sweep again${json ? '' : ' (Add example block puts that one at the end of the file)'}.`;
}
