/**
 * Extension <-> dashboard webview messages. One union per direction with a `type`
 * discriminant. The webview imports only types from this folder of core/ (and core/format), so
 * the Profile and Estimate its messages carry are named here too.
 */
import type { Profile } from '../config/types';
import type { Estimate } from '../estimate/types';
import type { PoolCancelled, RunKind, RunOrigin, RunResult, TraceReplay } from './run';
import type { SweepReport } from './sweep';
import type { RunnerCaseEvent, RunnerEnvironmentEvent, RunnerPoolSampleEvent, RunnerProgressEvent } from './runner';

export type { Estimate, Profile };

/** Summary row of a saved run, for the history list. */
export interface RunListEntry {
  id: string;
  /** As History lists it: the run's name (extension/runName.ts listedRunName), with the settings that differ from other runs of that name after it (distinctRunNames). */
  name: string;
  /** The settings the run was made with, "key value" each ("gpu H200", "tp 8": extension/runName.ts runSetup): what tells runs of one name apart. */
  setup?: string[];
  createdAt: string;
  status: RunResult['status'];
  /** A bench cancelled during its pool simulation: how far it got (RunResult.poolCancelled). */
  poolCancelled?: PoolCancelled;
  /** Stopped by a window reload (or close), its cases so far saved (its error starts with core/format INTERRUPTED: isInterrupted): History says "interrupted", not "cancelled". */
  interrupted?: true;
  /** Kernel cases timed, a count (0 for a simulation: it times no kernel). */
  cases: number;
  /** A simulation's requests, a count (its pool summary's `requests`: the workload's, or the trace's); absent for a benchmark and in runs without a pool. */
  requests?: number;
  /** What made it (RunResult.kind; absent: bench). */
  kind?: RunKind;
  /** What ran its kernels (core/format kernelBuildText: "native addon · avx2 · 2 threads"); '' or absent when unknown. */
  build?: string;
  /** The workspace folder it is saved in, by name; only when the workspace has several (extension/history.ts HistoryPlace). */
  folder?: string;
  /** What tells it from runs of its profile: webview/compare.ts runFigure ("TTFT p99 312 ms", "prefill B1 N4096 1.23 ms"); absent when it has none. */
  figure?: string;
  /** Where it was made (RunResult.origin; "editor" for an older run with sourceSha256, which only the editor sets); absent when unknown. */
  origin?: RunOrigin;
}

/**
 * Summary row of a finished sweep (a merged report under the workspace's .attnscope/sweeps/), for
 * the History tab's list of sweeps.
 */
export interface SweepListEntry {
  /** The report's folder under .attnscope/sweeps (`<profile>-<hash>`): what `openSweep` names. */
  id: string;
  /** The report's name: its profile's file name. */
  name: string;
  /** The report's createdAt (ISO 8601). */
  createdAt: string;
  job: SweepReport['job'];
  /** Points with a result, and points of the sweep. */
  points: number;
  total: number;
  /** The report of a sweep cancelled or interrupted with points kept (SweepReport.interrupted): History says so. */
  interrupted?: true;
  /** The workspace folder it is in, by name; only when the workspace has several. */
  folder?: string;
}

/**
 * The runner's events the extension forwards to the page as they are (core/protocol/runner.ts):
 * progress, the measured machine and its peaks (`environment`, before the first case: the
 * roofline's roofs), each case; its `poolSample` events go batched, as `poolSamples`.
 */
export type ForwardedRunnerEvent = RunnerProgressEvent | RunnerEnvironmentEvent | RunnerCaseEvent;

/**
 * The file of the text editor active last, which the dashboard's Run button benchmarks when the
 * page shows no run it made (extension/pick.ts runButtonFile). `path`: absolute; `label`: the path
 * as VS Code names it in the workspace (vscode.workspace.asRelativePath: with the folder's name
 * first when the workspace has several, "beta/e2e.attn.yaml").
 */
export interface RunTarget {
  path: string;
  label: string;
  /**
   * The file is a profile with a `sweep:` block (extension/pick.ts sweepProfileText): the button
   * sweeps it, "Run sweep: <label>" (it read "Run benchmark: page-size.attn.yaml" after the user
   * swept that file, s49 newcomer-ed 9). Absent otherwise.
   */
  sweep?: true;
}

/** extension -> webview */
export type ToWebview =
  /**
   * `skipped`: files of the history folder that are no readable run, each `<file>: <why>`.
   * `sweep`: the sweep report shown last (this window's, or the one its previous extension host
   * showed: extension/shownRun.ts); absent or null: the page keeps its own. `sweeps`: the finished
   * sweeps for History, newest first. `latest`: the newest saved run, sent when `current` is null;
   * the page shows it only when it has no run of its own (a page opened after a window reload said
   * "No run yet" beside saved runs), as a run it did not make: its Run button runs `runTarget`, not
   * the run's profile (which may be another workspace folder's). `runTarget`: as the `runTarget`
   * message. `currentProfileEdited` / `sweepProfileEdited`: as `profileEdited` of `runFinished` /
   * `showSweep`, for `current` / `sweep`.
   */
  /**
   * The extension's first message to a page, answering its `ready`. `streaming`: a run streams now;
   * its runStarted and the messages so far follow (replayed), and `current` / `latest` are null (the
   * page says Loading… until that start: it showed "No run yet", or the run before, meanwhile).
   * `sweepsSkipped`: the sweep reports under .attnscope/sweeps History does not list, each `<file>: <why>`.
   */
  | { type: 'init'; runs: RunListEntry[]; skipped?: string[]; current: RunResult | null; currentId?: string | null; latest?: { run: RunResult; id: string } | null; runTarget?: RunTarget | null; sweep?: SweepReport | null; sweeps?: SweepListEntry[]; sweepsSkipped?: string[]; streaming?: true; currentProfileEdited?: string; sweepProfileEdited?: string }
  /**
   * The file the Run button runs when the page shows no run it made (none, or `init`'s `latest`):
   * the file of the text editor active last, sent again when that changes; null: none is open,
   * the command picks.
   */
  | { type: 'runTarget'; target: RunTarget | null }
  | { type: 'runStarted'; name: string; total: number; kind?: RunKind; profile?: Profile; estimate?: Estimate }
  | ForwardedRunnerEvent
  /** The runner's pool samples in simulated-time order, batched by the extension (at most ~10 messages a second whatever the runner's rate). */
  | { type: 'poolSamples'; samples: RunnerPoolSampleEvent['sample'][] }
  /**
   * `streamedSamples`: the run's first pool.samples, that many, were left out because the page
   * has them already from this run's `poolSamples` messages; pool.samples holds the rest, those
   * the extension had not sent yet: the finish of a run with a workload carries ~50 KB plus the
   * unsent tail instead of ~350 KB through the workbench's main thread, in one message.
   * `profileEdited`: the run's profile was edited after it started (RunResult.sourceSha256 against
   * the text now), the note saying so (extension/profileEdited.ts profileEditedText); absent when
   * it reads the same.
   */
  | { type: 'runFinished'; run: RunResult; id?: string | null; streamedSamples?: number; profileEdited?: string }
  /**
   * The runner refused the run before any work (exit 2: the backend cannot run here, a case past
   * the kernels' limits); `reason` says what to change in the editor's terms. Not saved in history.
   */
  | { type: 'runRefused'; reason: string }
  /**
   * Cancel was pressed on the run in flight, a run or the sweep (extension/runInFlight.ts cancel):
   * its Cancel reads "Cancelling…", disabled, until its end comes (runFinished, sweepEnded): the
   * runner's wind-down took ~5 s at load 20 with the page still offering Cancel.
   */
  | { type: 'runCancelling' }
  /** The run shown last (runFinished) was saved as history entry `id`. */
  | { type: 'runSaved'; id: string }
  | { type: 'runs'; runs: RunListEntry[]; skipped?: string[] }
  /**
   * History's Delete of run `id` was confirmed and done (extension/deleteRun.ts): its file went to the OS
   * trash (`how` 'trash') or, where there is none and the user said so, was deleted for good ('deleted').
   * The page drops it from History and the Compare pickers at once (the `runs` after it agree), and a run
   * shown of that id says it was deleted.
   */
  | { type: 'runDeleted'; id: string; how: 'trash' | 'deleted' }
  /** The finished sweeps again (after a sweep ended); `skipped`: the reports not listed, each `<file>: <why>` (as init's sweepsSkipped). */
  | { type: 'sweeps'; sweeps: SweepListEntry[]; skipped?: string[] }
  /** `profileEdited`: as runFinished's. */
  | { type: 'showRun'; run: RunResult; id?: string | null; profileEdited?: string }
  /**
   * The "profile edited" notes again, after an edit or save of a profile of a result shown
   * (extension/profileEdited.ts LiveEditedNotes): `current` for the run shown of that createdAt,
   * `sweep` for the report of that sweepId; `note` null: it reads as it did (the note goes).
   */
  | { type: 'profileEdited'; current?: { createdAt: string; note: string | null }; sweep?: { sweepId: string; note: string | null } }
  /** Runs A and B compared; `aId` / `bId`: their history ids (RunListEntry.id), which the comparison's exports name. */
  | { type: 'compare'; a: RunResult; b: RunResult; aId?: string; bId?: string }
  /** A profile's memory estimate without a run ("Show memory breakdown"). */
  | { type: 'showEstimate'; name: string; profile: Profile; estimate: Estimate }
  /**
   * A merged sweep report ("Open sweep results"; core/protocol/sweep.ts). `profileEdited`: its
   * profile was edited after the sweep started (SweepReport.profile against the text now), the note
   * saying so, as runFinished's.
   */
  /**
   * A sweep report for the Sweep tab: `ended` when it is the report of the editor's own sweep that just ended (finished, or
   * its points kept after a cancel), which leaves the page on a tab the user picked while it ran; without it the user asked
   * for it (Open sweep results, History's Open) and the page turns to it, at its top.
   */
  | { type: 'showSweep'; report: SweepReport; profileEdited?: string; ended?: true }
  /**
   * A sweep the editor runs (extension/sweep.ts SweepRun) started: the Sweep tab shows its progress and a Cancel, and drops the report it
   * showed (another sweep's). `name`: its profile's file name. `replayed`: sent again after `init` to a page that opened or reloaded
   * since (Dashboard's sweepLive), whose report in `init` is the one to keep (a report opened or finished after the start).
   * `ended`: replayed for a sweep that has ended (its sweepEnded follows): the page does not turn to the Sweep tab for it
   * (a dashboard reopened while a run streamed landed on the Sweep tab of a sweep that ended before, s46).
   */
  | { type: 'sweepStarted'; name: string; replayed?: boolean; ended?: true }
  /** The running sweep's progress: points done of `total`, fractional (the running points' fractions added: the bar), and `message` as the progress notification words it (extension/sweepMessages.ts sweepProgressMessage). */
  | { type: 'sweepProgress'; done: number; total: number; message: string }
  /**
   * The running sweep's points saved so far, merged (core/protocol/runner.ts RunnerSweepPointsEvent; `missing`:
   * the points still to come): the Sweep tab shows their chart and table under its progress (SweepRunView.points).
   */
  | { type: 'sweepPoints'; report: SweepReport }
  /**
   * The running sweep ended: `message` is what the editor's toast says (finished, cancelled with
   * the points kept, refused); a finished sweep's report follows in `showSweep`.
   */
  | { type: 'sweepEnded'; status: SweepRunStatus; message: string };

/** How a sweep the editor ran ended; 'interrupted': the window reloaded or closed while it ran. */
export type SweepRunStatus = 'finished' | 'cancelled' | 'failed' | 'refused' | 'interrupted';

/** A run of a comparison, as its exports name it. */
export interface ComparedRun {
  name: string;
  /** ISO 8601. */
  createdAt: string;
  /** Its file in the history folder (`<RunListEntry.id>.json`); absent when the page was not told. */
  file?: string;
  /** The profile (or config) it ran (Profile.sourcePath); absent for a profile with no file. */
  profile?: string;
}

/**
 * One row of a comparison's export: the setting or figure, A's and B's value (a number in `unit`,
 * or a setting's text; null: the run has none), as shown (`aText`, `bText`), the change as shown
 * ('+4.7%', '−8.6 pp', ''), the unit, and where it comes from (profile, step-time model,
 * simulated, modelled, measured).
 */
export interface ComparisonExportRow {
  figure: string;
  a: number | string | null;
  b: number | string | null;
  aText: string;
  bText: string;
  change: string;
  unit: string;
  source: string;
}

/**
 * What the Run button of a run that replayed a trace re-runs it with: that trace (its PoolLoad.trace)
 * at its time scale (PoolLoad.timeScale), not the profile's drawn workload (core/protocol/run.ts
 * traceReplayArgs makes the runner's flags of it).
 */
export interface TraceRerun {
  trace: TraceReplay;
  timeScale: number;
}

/** webview -> extension */
export type FromWebview =
  | { type: 'ready' }
  /**
   * The page drew the streamed `poolSamples` / `progress` / `sweepProgress` it was sent: the
   * extension sends the next batch only then (extension/streamBatcher.ts), so no backlog builds up
   * in front of a page the editor draws slowly.
   */
  | { type: 'streamDrawn' }
  | { type: 'openRun'; id: string }
  | { type: 'compareRuns'; a: string; b: string }
  /** History's Delete of run `id` (RunListEntry.id), `name` and `createdAt` as History lists it for the question the extension asks first. */
  | { type: 'deleteRun'; id: string; name: string; createdAt: string }
  /** History's Open of a sweep: SweepListEntry.id. */
  | { type: 'openSweep'; id: string }
  /** Export JSON / CSV of the run shown: its history id, or null for the run shown that is not saved (its history folder could not be written). */
  | { type: 'export'; id: string | null; format: 'json' | 'csv' }
  /**
   * The Sweep tab's exports of the report it shows: Export CSV (no `markdown`), written by the
   * extension (core/sweepCsv.ts); Copy as Markdown (`markdown`: the page's ranked table with
   * its assumptions, webview/sweep.ts sweepMarkdown), which the extension puts on the clipboard.
   */
  | { type: 'exportSweep'; report: SweepReport; markdown?: string }
  /** Export PNG's image (`sweepId`: of the Sweep tab's sweep, saved where its report's workspace folder is; else the run shown's). */
  | { type: 'savePng'; name: string; dataUrl: string; sweepId?: string }
  /**
   * Compare's own export (webview/compare.ts comparisonRows): `csv` asks where to save the rows as
   * CSV, `markdown` copies them to the clipboard as a Markdown table (extension/exportCompare.ts).
   */
  | { type: 'exportCompare'; format: 'csv' | 'markdown'; a: ComparedRun; b: ComparedRun; rows: ComparisonExportRow[] }
  /**
   * The Run button: `source` is the profile (or config) of the run shown (Profile.sourcePath), run
   * again as `kind`; absent when the page shows no run of a file or a run it did not make (`init`'s
   * `latest`): then the active editor's file (`runTarget`). `replay`: a simulation that replayed a
   * trace runs with that trace again (the extension asks first when the file is gone).
   */
  | { type: 'runBenchmark'; source?: string; kind?: RunKind; replay?: TraceRerun }
  /** The Run button of a page that shows no run of its own, over a sweep profile (`runTarget`'s `sweep`): sweeps that file. */
  | { type: 'runSweep' }
  | { type: 'cancelRun' }
  /**
   * The Sweep tab's Resume sweep, on a sweep a window reload interrupted: runs the sweep of the
   * profile `name` (SweepRunView.name, its file name) again, which resumes from its results folder.
   * `profile`: an interrupted report's own (SweepReport.profile: path and SHA-256), which is run, from
   * any window (a report opened from History); without it, the profile the last window's reload
   * named, else the Run sweep command's own choice.
   */
  | { type: 'resumeSweep'; name: string; profile?: NonNullable<SweepReport['profile']> };
