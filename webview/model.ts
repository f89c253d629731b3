/**
 * What the dashboard shows, and how each extension message changes it. Pure: no DOM.
 * A run being streamed is built up from `runStarted`, `environment`, `case`, `poolSamples` and `progress`
 * messages and replaced by the full RunResult on `runFinished`.
 */
import type { Environment, KernelCase, PoolCancelled, PoolResult, PoolSample, RunKind, RunOrigin, RunResult, RunStatus } from '../core/protocol/run';
import type { SweepReport } from '../core/protocol/sweep';
import type { ComparedRun, Estimate, Profile, RunListEntry, RunTarget, SweepListEntry, SweepRunStatus, ToWebview, TraceRerun } from '../core/protocol/webview';
import { fewAndCount, formatCountOf, formatRunTime, formatShortRunTime, INTERRUPTED, shownFileName } from '../core/format';

export interface ViewRun {
  /** History id once saved; null while streaming. */
  id: string | null;
  name: string;
  /** bench: kernels timed (and the pool simulated with a workload); simulate: the pool simulation alone. Absent in states saved before: bench. */
  kind?: RunKind;
  createdAt: string | null;
  /**
   * 'estimate': a profile's memory estimate shown without a run; 'refused': the runner refused it (error says why);
   * 'restoring': a run the page saved as running, on a page that started again (its window reloaded), until `init`
   * brings how it ended (restoredModel).
   */
  status: RunStatus | 'running' | 'estimate' | 'refused' | 'restoring';
  error: string | null;
  profile: Profile | null;
  estimate: Estimate | null;
  environment: Environment | null;
  cases: KernelCase[];
  poolSamples: PoolSample[];
  /** Summary and baselines; null until the run finishes with a pool simulation. */
  pool: PoolResult | null;
  /** A bench cancelled during its pool simulation: how far it got (RunResult.poolCancelled). Absent otherwise. */
  poolCancelled?: PoolCancelled;
  /** The run was of its editor's unsaved text of profile.sourcePath (RunResult.unsavedSource). Absent otherwise. */
  unsavedSource?: true;
  /** Its profile was edited after the run started: the note saying so (ToWebview runFinished's profileEdited). Absent otherwise. */
  profileEdited?: string;
  /**
   * Under data parallelism, the engine (0-based) whose pool samples poolSamples holds: set on the
   * run the pool and queue charts draw for an engine picked (webview/charts.ts engineView). Absent:
   * engine 1's, the run's own.
   */
  samplesEngine?: number;
  progress: { done: number; total: number; message: string } | null;
  /** Cancel was pressed while it runs (ToWebview runCancelling): its Cancel reads "Cancelling…", disabled, until it ends. Absent otherwise. */
  cancelling?: true;
  /**
   * True for the newest saved run shown on a page with no run of its own (`init`'s `latest`): a
   * run the page did not make nor open, so its Run button runs the active editor's file
   * (DashboardModel.runTarget), not this run's profile. Absent otherwise.
   */
  latest?: true;
  /**
   * Its saved file was deleted from History (ToWebview runDeleted): to the trash, or for good; the
   * Run tab says so. Its `id` is null from then on (its export writes the run shown). Absent otherwise.
   */
  deleted?: 'trash' | 'deleted';
}

export interface CompareView {
  a: RunResult;
  b: RunResult;
  /** Their history ids, when the extension sent them (ToWebview compare). */
  aId?: string;
  bId?: string;
}

export interface DashboardModel {
  runs: RunListEntry[];
  /** Files of the history folder that are no readable run, each `<file>: <why>`. */
  skippedRuns: string[];
  current: ViewRun | null;
  compare: CompareView | null;
  /** The sweep report of the Sweep tab; null until one is opened. */
  sweep: SweepReport | null;
  /** Its profile was edited after the sweep started: the note saying so (ToWebview showSweep's profileEdited). Absent or null otherwise. */
  sweepProfileEdited?: string | null;
  /** The finished sweeps under .attnscope/sweeps, newest first (History). Absent in states saved before: none. */
  sweeps?: SweepListEntry[];
  /** The sweep the editor runs (or ran last) from its start: its progress while it runs, then how it ended. Absent in states saved before: none. */
  sweepRun?: SweepRunView | null;
  /** The file the Run button runs when the page shows no run it made (the `runTarget` message). Absent in states saved before: none. */
  runTarget?: RunTarget | null;
  /**
   * What the page waits for before it can say what it shows: 'init', the extension's first word to a
   * page that started (startModel); 'run', the start of the run `init` said streams (ToWebview init's
   * `streaming`), replayed right after it. The Run tab says "Loading…" meanwhile, not "No run yet" nor
   * the run shown before (a dashboard opened mid-run flashed both). Absent: nothing awaited.
   */
  awaiting?: 'init' | 'run';
  /** Sweep reports under .attnscope/sweeps that History does not list, each `<file>: <why>` (ToWebview sweeps' `skipped`). Absent: none. */
  skippedSweeps?: string[];
}

/** A sweep the editor runs, as the Sweep tab shows it above its report. */
export interface SweepRunView {
  name: string;
  status: 'running' | SweepRunStatus;
  /** Whole points done of the total and the running points, from the runner's progress; null before the first. */
  progress: { done: number; total: number; message: string } | null;
  /** How it ended, as the editor's toast says it; null while it runs. */
  message: string | null;
  /** Cancel was pressed while it runs (ToWebview runCancelling): its Cancel reads "Cancelling…", disabled, until it ends. Absent otherwise. */
  cancelling?: true;
  /**
   * The sweepId of its report, the first of its name shown after it ended (its own: the extension sends
   * it after the end); absent until then. Another report shown after that, even of the same profile, clears the line.
   */
  sweepId?: string;
  /**
   * While it runs: its points saved so far, merged (ToWebview sweepPoints), which the Sweep tab shows under
   * its progress, each point added as it lands (s49 newcomer-ed 5); absent before the first and once it ended
   * (its report, or the points kept, come in showSweep).
   */
  points?: SweepReport;
}

/** The sweep line `run` to keep over `report` when that report is shown: a running sweep's stays; an ended one's only over its own report. */
function shownUnder(run: SweepRunView | null, report: SweepReport): SweepRunView | null {
  if (!run || run.status === 'running') return run;
  if (run.name !== report.name) return null;
  if (run.sweepId === undefined) return { ...run, sweepId: report.sweepId };
  return run.sweepId === report.sweepId ? run : null;
}

export const emptyModel: DashboardModel = { runs: [], skippedRuns: [], current: null, compare: null, sweep: null, sweeps: [] };

/**
 * The one-line note under the history list about files of the history folder that are no
 * readable run (three named `<file>: <why>`, the rest counted), or null when none was skipped.
 */
export function skippedNote(skipped: readonly string[] | undefined): string | null {
  if (!skipped || skipped.length === 0) return null;
  return `${formatCountOf(skipped.length, 'file')} in the history folder skipped: ${fewAndCount(skipped, 3)}`;
}

/**
 * A saved run as History's Compare pickers (A, B) list it: its profile file and mode first (`shown`, the
 * listed name "model · profile file · mode", with its leading model moved to the end), then its figure
 * (RunListEntry.figure), time, kind, origin, model (after its workspace folder's where the workspace has
 * several) and build. The picker shows ~40 characters of the one picked: with the time and kind first
 * every option read "Dec 6, 2026, 11:27:51 PM · simulation · llama-3.1-8b · l…" at 1280 px, the profile
 * file (what differs) cut off (s52 newcomer-ed 3); with the whole name first, "llama-3.1-8b ·
 * llama-3.1-8b.attn.ya…" (s48 newcomer-ed 5). `time`: as History's row writes it (formatShortRunTimes:
 * to the minute, the seconds where another run shares it); the whole time is the option's description
 * ({@link runTimeTooltip}).
 */
export function compareOptionLabel(r: Pick<RunListEntry, 'createdAt' | 'kind' | 'build' | 'figure' | 'origin'>, shown: string, time = formatShortRunTime(r.createdAt)): string {
  const p = runPickParts(r, shown, time);
  return [p.file, p.figure, p.time, p.kind, p.origin, p.model, p.build].filter((part) => part).join(' · ');
}

/**
 * The parts a saved run is picked by, in the order the pickers write them (compareOptionLabel; the palette's
 * Compare runs and Export run picks, extension/commands.ts runPickItem): `file`, the profile file and mode of
 * `shown` (the listed name "model · profile file · mode"; all of it when it has no " · "), `model`, its leading
 * part (after the workspace folder's name where the workspace has several), the figure, `time` as given, the kind
 * and origin words and the build; '' for a part the run lacks (an old run has no figure, origin nor build).
 */
export function runPickParts(r: Pick<RunListEntry, 'kind' | 'build' | 'figure' | 'origin'>, shown: string, time: string): { file: string; model: string; figure: string; time: string; kind: string; origin: string; build: string } {
  const parts = shown.split(' · ');
  const [model, file] = parts.length > 1 ? [parts[0]!, parts.slice(1).join(' · ')] : ['', shown];
  return { file, model, figure: r.figure ?? '', time, kind: runKindWord(r.kind), origin: r.origin === undefined ? '' : runOriginWord(r.origin), build: r.build ?? '' };
}

/** What History's saved runs sort by (a column each): time, kind, name (the listed name: model, profile file, mode) and figure. */
export type RunSortKey = 'time' | 'kind' | 'name' | 'figure';

/** An order of History's saved runs: the column and which way. */
export interface RunSort {
  key: RunSortKey;
  dir: 'ascending' | 'descending';
}

/** Until the user picks a column: newest first, as History always listed them. */
export const DEFAULT_RUN_SORT: RunSort = { key: 'time', dir: 'descending' };

/** The column headers of History's saved runs that sort, and by what. */
export const RUN_SORT_COLUMNS: Record<string, RunSortKey> = { time: 'time', name: 'name', kind: 'kind', figure: 'figure' };

/** The order after a click on column `key`'s header: that column the other way when it is the one sorted by, else it, the time newest first, the others A to Z. */
export function nextRunSort(by: RunSort, key: RunSortKey): RunSort {
  if (by.key === key) return { key, dir: by.dir === 'ascending' ? 'descending' : 'ascending' };
  return { key, dir: key === 'time' ? 'descending' : 'ascending' };
}

/** The order in words, for the table's caption: "newest first", "by kind, A to Z", "by figure, Z to A". */
export function runSortText(by: RunSort): string {
  if (by.key === 'time') return by.dir === 'descending' ? 'newest first' : 'oldest first';
  return `by ${by.key}, ${by.dir === 'ascending' ? 'A to Z' : 'Z to A'}`;
}

/** Seconds per unit of a figure's value (webview/compare.ts runFigure writes times with core/format formatMs / formatDuration, rates in req/s). */
const FIGURE_UNITS: Record<string, number> = { ns: 1e-9, 'µs': 1e-6, us: 1e-6, ms: 1e-3, s: 1, min: 60, 'req/s': 1 };

/**
 * A figure (RunListEntry.figure: "TTFT p99 312 ms", "kept up 4 req/s", "prefill B1 N512 34.9 ms") as what it is of and its
 * value in seconds or req/s, so that "TTFT p99 312 ms" sorts before "TTFT p99 1.20 s" (as text it sorted after); a
 * figure of no known unit is all `of`, its value NaN.
 */
export function figureSortValue(figure: string): { of: string; value: number } {
  const m = /^(.*?)\s*([0-9][0-9,]*(?:\.[0-9]+)?)\s*(ns|µs|us|ms|s|min|req\/s)$/.exec(figure);
  if (!m) return { of: figure, value: Number.NaN };
  return { of: m[1]!, value: Number(m[2]!.replace(/,/g, '')) * FIGURE_UNITS[m[3]!]! };
}

/**
 * `runs` in the order `by` (a new array): by time; by kind word (benchmark, simulation); by `name` (the listed name,
 * `named(run)`, in the reader's collation with numbers as numbers: tp 2 before tp 10); by figure (what it is of, then
 * its value: figureSortValue). Runs that tie, newest first; runs without the value (an old run has no figure) last
 * either way. Old runs lacking the newest fields sort as their words read: no kind is a benchmark (runKindWord).
 */
export function sortRuns<R extends Pick<RunListEntry, 'createdAt' | 'kind' | 'figure'>>(runs: readonly R[], by: RunSort, named: (r: R) => string): R[] {
  const sign = by.dir === 'ascending' ? 1 : -1;
  const newest = (a: R, b: R): number => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0);
  const text = (a: string, b: string): number => a.localeCompare(b, undefined, { numeric: true, sensitivity: 'base' });
  const compare = (a: R, b: R): number => {
    switch (by.key) {
      case 'time':
        return -sign * newest(a, b);
      case 'kind':
        return sign * text(runKindWord(a.kind), runKindWord(b.kind)) || newest(a, b);
      case 'name':
        return sign * text(named(a), named(b)) || newest(a, b);
      case 'figure': {
        if (!a.figure || !b.figure) return (a.figure ? -1 : b.figure ? 1 : 0) || newest(a, b);
        const [x, y] = [figureSortValue(a.figure), figureSortValue(b.figure)];
        const byValue = Number.isNaN(x.value) || Number.isNaN(y.value) ? text(a.figure, b.figure) : x.value - y.value;
        return sign * (text(x.of, y.of) || byValue) || newest(a, b);
      }
    }
  };
  return [...runs].sort(compare);
}

/** The Run tab's line over a run whose saved file was deleted from History (ViewRun.deleted): where the file went, and that the figures shown stay until another run is shown. */
export function runDeletedText(how: 'trash' | 'deleted'): string {
  return how === 'trash'
    ? 'This run was deleted from History: its file is in the trash, from where it can be restored. It stays shown here until you open another.'
    : 'This run was deleted from History permanently (no trash here). It stays shown here until you open another; Export JSON keeps it.';
}

/** Where a run was made, as History's "from" column and the Compare pickers say it: "CLI" or "editor" (RunResult.origin). */
export function runOriginWord(origin: RunOrigin): 'CLI' | 'editor' {
  return origin === 'cli' ? 'CLI' : 'editor';
}

/**
 * The whole time of a run or sweep (ISO 8601) where a list shows it to the minute (formatShortRunTime):
 * the date with its year and the time to the second (formatRunTime), then the ISO value, "Dec 2, 2026,
 * 7:02:29 AM (2026-12-01T22:02:29.363Z)". History's time cells carry it as their tooltip, the Compare
 * pickers' options as their description (shown under the list for the option pointed at).
 */
export function runTimeTooltip(iso: string): string {
  return `${formatRunTime(iso)} (${iso})`;
}

/**
 * What a saved run counts, as History's "count" column writes it: a benchmark's kernel cases ("6 cases"), a
 * simulation's requests ("200 requests"; it times no kernel, and its "0" cases read as a run that did nothing,
 * s51), '' for a simulation whose request count the list entry lacks.
 */
export function runCountText(r: Pick<RunListEntry, 'cases' | 'kind' | 'requests'>): string {
  if (r.kind !== 'simulate') return formatCountOf(r.cases, 'case');
  return r.requests === undefined ? '' : formatCountOf(r.requests, 'request');
}

/** A run's kind as History and the Compare pickers name it: "simulation" (RunResult.kind 'simulate'), else "benchmark" (absent: a bench). */
export function runKindWord(kind: RunKind | undefined): 'simulation' | 'benchmark' {
  return kind === 'simulate' ? 'simulation' : 'benchmark';
}

/**
 * The note under History's list of sweeps about the sweep reports it leaves out (three named
 * `<file>: <why>`, the rest counted, as "Open sweep results" names them), or null when none is.
 */
export function skippedSweepsNote(skipped: readonly string[] | undefined): string | null {
  if (!skipped || skipped.length === 0) return null;
  return `${formatCountOf(skipped.length, 'sweep report')} not listed: ${fewAndCount(skipped, 3)}`;
}

/**
 * What the dashboard's Run button runs: the file of the run shown (its Profile.sourcePath) as the
 * same kind of run (a memory estimate: a benchmark), and the button's label naming that file. With
 * no such file, or with a run the page did not make (ViewRun.latest: the newest saved run, maybe of
 * another workspace folder, whose rerun a click on a page that "showed no run" did not expect), a
 * benchmark of `target`, the active editor's file, named on the label (a simulation where the run
 * shown is a simulation refused before its profile resolved); with no target either, the editor's
 * choice (a pick) under the plain label. A simulation that replayed a trace (PoolLoad.trace)
 * runs with that trace again (`replay`), named on the label ("Run simulation: p.attn.yaml with trace
 * mooncake.jsonl"): run alone, its profile would draw its workload instead, silently another load.
 */
export function rerunOf(run: ViewRun | null, target: RunTarget | null = null): { label: string; title: string; source?: string; kind?: RunKind; replay?: TraceRerun; sweep?: true } {
  const source = run?.latest ? undefined : run?.profile?.sourcePath;
  if (!run || !source) {
    // A run refused before its profile resolved has no file of its own but the kind asked for: a
    // refused simulation offers a simulation again, not a benchmark (s48 newcomer-ed 4).
    const asked: RunKind | undefined = run && !run.latest && run.kind === 'simulate' ? 'simulate' : undefined;
    const verb = asked ? 'Run simulation' : 'Run benchmark';
    const of = asked ? { kind: asked } : {};
    // A sweep profile is swept, as the user did (s49 newcomer-ed 9: "Run benchmark: page-size.attn.yaml" after its sweep).
    if (target?.sweep && !asked) return { label: `Run sweep: ${target.label}`, title: `Run the sweep of ${target.path} (its sweep block), the file of the editor active last`, sweep: true };
    return target
      ? { label: `${verb}: ${target.label}`, title: `${verb} of ${target.path}, the file of the editor active last`, ...of }
      : { label: verb, title: `${asked ? 'Simulate' : 'Benchmark'} the profile in the active editor`, ...of };
  }
  const kind: RunKind = run.kind === 'simulate' ? 'simulate' : 'bench';
  const verb = kind === 'simulate' ? 'Run simulation' : 'Run benchmark';
  const file = shownFileName(source);
  // A simulation that replayed a `--trace` runs with that trace again (its profile holds the workload, not the trace), and says so;
  // one whose profile names its trace (workload.trace) replays it by the profile alone, as `attnscope simulate RUN.json` does.
  const load = kind === 'simulate' && !run.profile?.workload?.trace && run.pool?.load?.trace?.from !== 'workload.trace' ? run.pool?.load : undefined;
  if (load?.source === 'trace' && load.trace) {
    const t = load.trace;
    return {
      label: `${verb}: ${file} with trace ${t.path.split(/[\\/]/).pop()}`,
      title: `${verb} of ${source} replaying the trace ${t.resolvedPath} (${t.format}${load.timeScale !== 1 ? `, time scale ${load.timeScale}` : ''}) again, as this run did`,
      source,
      kind,
      replay: { trace: t, timeScale: load.timeScale },
    };
  }
  // A trace the run does not record cannot be replayed: the label says the profile's workload is drawn instead.
  if (load?.source === 'trace') return { label: `${verb}: ${file} (drawn workload, not the trace)`, title: `${verb} of ${source}: this run replayed a trace it does not record, so its profile's workload is drawn`, source, kind };
  // The text this run simulated was unsaved and is not kept with it: the button runs the file as it is now, and says so (s41 newcomer-ed F9).
  if (run.unsavedSource) return { label: `${verb}: ${file} as it is now`, title: `${verb} of ${source} as it is now (its editor's text if open, else as saved): this run was of unsaved changes, which are not kept with it`, source, kind };
  return { label: `${verb}: ${file}`, title: `${verb} of ${source}`, source, kind };
}

/**
 * A compared run as the comparison's exports name it (ComparedRun): name, time, history file,
 * profile file (said to be unsaved changes where it was: RunResult.unsavedSource). The name as History lists run `id` (`listed`: RunListEntry.name, which tells runs
 * of one name apart by their differing settings), else the run's own.
 */
export function comparedRun(run: RunResult, id: string | undefined, listed: readonly RunListEntry[] = []): ComparedRun {
  return { name: listedName(run, id, listed), createdAt: run.createdAt, ...(id !== undefined ? { file: `${id}.json` } : {}), ...(run.profile.sourcePath ? { profile: `${run.profile.sourcePath}${run.unsavedSource ? ' (unsaved changes: not the file as saved)' : ''}` } : {}) };
}

/** Run `id`'s name as History lists it (RunListEntry.name), else `run`'s own. */
export function listedName(run: Pick<RunResult, 'name'>, id: string | undefined, listed: readonly RunListEntry[]): string {
  return (id !== undefined ? listed.find((r) => r.id === id)?.name : undefined) ?? run.name;
}

/** `run` with the "profile edited" note `note`, or without one for null. */
function withNote(run: ViewRun, note: string | null): ViewRun {
  if (note === null) {
    const { profileEdited: _, ...rest } = run;
    return rest;
  }
  return { ...run, profileEdited: note };
}

/** The view of a finished (or saved) run; `profileEdited`: the note of a run whose profile was edited after it started. */
export function viewOfRun(run: RunResult, id: string | null, profileEdited?: string): ViewRun {
  return {
    id,
    name: run.name,
    kind: run.kind ?? 'bench',
    createdAt: run.createdAt,
    status: run.status,
    error: run.error ?? null,
    profile: run.profile,
    estimate: run.estimate,
    environment: run.environment,
    cases: run.cases,
    poolSamples: run.pool?.samples ?? [],
    pool: run.pool ?? null,
    ...(run.poolCancelled ? { poolCancelled: run.poolCancelled } : {}),
    ...(run.unsavedSource ? { unsavedSource: true as const } : {}),
    ...(profileEdited === undefined ? {} : { profileEdited }),
    progress: null,
  };
}

/** `model` awaiting nothing more: a run was started or shown (DashboardModel.awaiting). */
function notAwaiting(model: DashboardModel): DashboardModel {
  if (model.awaiting === undefined) return model;
  const { awaiting: _, ...rest } = model;
  return rest;
}

function streaming(model: DashboardModel): ViewRun | null {
  return model.current && model.current.status === 'running' ? model.current : null;
}

/** The error of a run the page restored as running after its window reloaded: the run ended with that window's extension host. */
export const STOPPED_BY_RELOAD = `${INTERRUPTED} while it ran`;

/**
 * The model a page starts from, restored from its saved state (`saved`), or the one `init` finds:
 * a run or sweep saved as running is streaming to no page that starts, since the dashboard's page
 * is kept while hidden (retainContextWhenHidden) and starts again only when its window reloads,
 * which ends the runs of that window's extension host. Never "running" with Cancel on until `init`
 * came (3-15 s after a reload on a busy machine: s37 newcomer-ed 5). A sweep is shown interrupted by
 * the reload at once. A run is shown 'restoring' until `init`: the state saved while it ran lags it
 * (saved when the page is idle), and shown as cancelled it read "cancelled before any kernel finished"
 * beside a run the extension then brought with its cases (s46); `init` brings the run the reload
 * stopped, saved, or none (a simulation is not saved), and only then is it shown stopped by the reload
 * (settled). A run still streaming replays its runStarted / sweepStarted after `init`.
 */
export function restoredModel(saved: DashboardModel): DashboardModel {
  const current = saved.current?.status === 'running' ? { ...saved.current, status: 'restoring' as const, error: null, progress: null } : saved.current;
  const sweepRun = saved.sweepRun?.status === 'running' ? { ...saved.sweepRun, status: 'interrupted' as const, progress: null, message: STOPPED_BY_RELOAD } : (saved.sweepRun ?? null);
  return current === saved.current && sweepRun === (saved.sweepRun ?? null) ? saved : { ...saved, current, sweepRun };
}

/** The model a page starts from: its saved state restored (restoredModel), or none, either awaiting `init` (DashboardModel.awaiting). */
export function startModel(saved: DashboardModel | undefined): DashboardModel {
  return { ...(saved ? restoredModel(saved) : emptyModel), awaiting: 'init' };
}

/**
 * `run` as `init` leaves it when `init` brings no run of its own: one restored as running (or 'restoring') was stopped by the reload;
 * one that had ended unsaved before it (cancelled, failed or refused, no id: a simulation is saved only when it ends) gives way to the
 * newest saved run, `latest`, when there is one (README: with no run of its own the dashboard shows the newest saved run; a cancelled
 * simulation kept as the page's run after a reload read as the one the window had, s47 newcomer-ed 11); with none it stays, its line
 * saying it was not saved.
 */
function settled(run: ViewRun | null, latest: ViewRun | null): ViewRun | null {
  if (run?.status === 'running' || run?.status === 'restoring') return { ...run, status: 'cancelled', error: STOPPED_BY_RELOAD, progress: null };
  const unsaved = run !== null && run.id === null && (run.status === 'cancelled' || run.status === 'failed' || run.status === 'refused');
  return unsaved && latest ? latest : run;
}

/** The model after `msg`. Messages about a stream that is not running are ignored. */
export function reduce(model: DashboardModel, msg: ToWebview): DashboardModel {
  switch (msg.type) {
    case 'init': {
      // `init` answers the page's `ready`: a run the page shows as running is not streaming to it
      // (restoredModel; a run that is replays its runStarted right after: `streaming`, shown as
      // Loading… until then, not the run shown before nor "No run yet").
      const restored = restoredModel(model);
      // The extension's sweep (shown last in this window, or before it reloaded) over the page's own.
      // With no run of its own nor from the extension: the newest saved run, as one the page did
      // not make (a page opened after a reload showed "No run yet" beside saved runs, s39 newcomer-ed 9).
      const latest = msg.latest ? { ...viewOfRun(msg.latest.run, msg.latest.id), latest: true as const } : null;
      const current = msg.streaming ? null : msg.current ? viewOfRun(msg.current, msg.currentId ?? null, msg.currentProfileEdited) : (settled(restored.current, latest) ?? latest);
      const { awaiting: _, ...rest } = restored;
      return {
        ...rest,
        runs: msg.runs, skippedRuns: msg.skipped ?? [], current, compare: model.compare, sweep: msg.sweep ?? model.sweep ?? null,
        sweepProfileEdited: msg.sweep ? (msg.sweepProfileEdited ?? null) : (model.sweepProfileEdited ?? null), sweeps: msg.sweeps ?? model.sweeps ?? [],
        skippedSweeps: msg.sweepsSkipped ?? model.skippedSweeps ?? [], sweepRun: restored.sweepRun ?? null,
        runTarget: msg.runTarget !== undefined ? msg.runTarget : (restored.runTarget ?? null),
        ...(msg.streaming ? { awaiting: 'run' as const } : {}),
      };
    }
    case 'runTarget':
      return { ...model, runTarget: msg.target };
    case 'runs':
      return { ...model, runs: msg.runs, skippedRuns: msg.skipped ?? [] };
    case 'runDeleted':
      return {
        ...model,
        runs: model.runs.filter((r) => r.id !== msg.id),
        current: model.current?.id === msg.id ? { ...model.current, id: null, deleted: msg.how } : model.current,
      };
    case 'sweeps':
      return { ...model, sweeps: msg.sweeps, skippedSweeps: msg.skipped ?? [] };
    case 'runStarted':
      return {
        ...notAwaiting(model),
        current: {
          id: null,
          name: msg.name,
          kind: msg.kind ?? 'bench',
          createdAt: null,
          status: 'running',
          error: null,
          profile: msg.profile ?? null,
          estimate: msg.estimate ?? null,
          environment: null,
          cases: [],
          poolSamples: [],
          pool: null,
          progress: { done: 0, total: msg.total, message: 'starting' },
        },
      };
    case 'progress': {
      const run = streaming(model);
      return run ? { ...model, current: { ...run, progress: { done: msg.done, total: msg.total, message: msg.message } } } : model;
    }
    case 'environment': {
      const run = streaming(model);
      return run ? { ...model, current: { ...run, environment: msg.environment } } : model;
    }
    case 'case': {
      const run = streaming(model);
      return run ? { ...model, current: { ...run, cases: [...run.cases, msg.case] } } : model;
    }
    case 'poolSamples': {
      const run = streaming(model);
      return run ? { ...model, current: { ...run, poolSamples: run.poolSamples.concat(msg.samples) } } : model;
    }
    case 'runFinished': {
      const streamed = streaming(model);
      if (msg.streamedSamples !== undefined && msg.run.pool && streamed && streamed.poolSamples.length === msg.streamedSamples) {
        return { ...notAwaiting(model), current: viewOfRun({ ...msg.run, pool: { ...msg.run.pool, samples: streamed.poolSamples.concat(msg.run.pool.samples) } }, msg.id ?? null, msg.profileEdited) };
      }
      return { ...notAwaiting(model), current: viewOfRun(msg.run, msg.id ?? null, msg.profileEdited) };
    }
    case 'runCancelling': {
      // The one run in flight: the run streaming, else the sweep running.
      const run = streaming(model);
      if (run) return { ...model, current: { ...run, cancelling: true } };
      return model.sweepRun?.status === 'running' ? { ...model, sweepRun: { ...model.sweepRun, cancelling: true } } : model;
    }
    case 'runRefused': {
      const run = streaming(model);
      return run ? { ...model, current: { ...run, status: 'refused', error: msg.reason, progress: null } } : model;
    }
    case 'runSaved':
      return model.current && model.current.status !== 'running' && model.current.status !== 'estimate' && model.current.id === null ? { ...model, current: { ...model.current, id: msg.id } } : model;
    case 'showRun':
      return { ...notAwaiting(model), current: viewOfRun(msg.run, msg.id ?? null, msg.profileEdited) };
    case 'profileEdited': {
      // Each note only over the result it was worked out for: the page may show another since (a run started, a sweep opened).
      const run = model.current;
      const current = msg.current && run && run.status !== 'running' && run.createdAt === msg.current.createdAt ? withNote(run, msg.current.note) : run;
      const sweep = msg.sweep && model.sweep?.sweepId === msg.sweep.sweepId ? { sweepProfileEdited: msg.sweep.note } : {};
      return { ...model, current, ...sweep };
    }
    case 'compare':
      return { ...model, compare: { a: msg.a, b: msg.b, ...(msg.aId !== undefined ? { aId: msg.aId } : {}), ...(msg.bId !== undefined ? { bId: msg.bId } : {}) } };
    case 'showSweep':
      // The line of an ended sweep stays only over that sweep's table: Open of another clears it (s31 newcomer-ed 3).
      // An ended sweep's line goes with its own report, bound to the first of its name shown after the end (SweepRunView.sweepId):
      // another sweep of the same profile opened from History kept "finished … report in <the other folder>" over it (s43 newcomer-ed M5).
      return { ...model, sweep: msg.report, sweepProfileEdited: msg.profileEdited ?? null, sweepRun: shownUnder(model.sweepRun ?? null, msg.report) };
    case 'sweepStarted':
      // The report shown is another sweep's (another profile's, or an earlier sweep of this one): under this
      // sweep's progress it read as its result, its Best point too (s37 newcomer-ed 1). This sweep's comes when it ends.
      return { ...model, sweep: msg.replayed ? model.sweep : null, sweepProfileEdited: msg.replayed ? (model.sweepProfileEdited ?? null) : null, sweepRun: { name: msg.name, status: 'running', progress: null, message: null } };
    case 'sweepProgress':
      return model.sweepRun?.status === 'running' ? { ...model, sweepRun: { ...model.sweepRun, progress: { done: msg.done, total: msg.total, message: msg.message } } } : model;
    case 'sweepPoints':
      return model.sweepRun?.status === 'running' ? { ...model, sweepRun: { ...model.sweepRun, points: msg.report } } : model;
    case 'sweepEnded':
      return model.sweepRun?.status === 'running' ? { ...model, sweepRun: { name: model.sweepRun.name, status: msg.status, progress: null, message: msg.message } } : model;
    case 'showEstimate':
      return {
        ...notAwaiting(model),
        current: { id: null, name: msg.name, createdAt: null, status: 'estimate', error: null, profile: msg.profile, estimate: msg.estimate, environment: null, cases: [], poolSamples: [], pool: null, progress: null },
      };
  }
}

/**
 * What Export JSON / CSV send for `run`, the run shown: its history id; null for a finished run
 * with figures that is not saved (its history folder could not be written: the extension exports
 * the run it showed, s52 newcomer-ed 1; also a run finished and not yet saved, or one deleted from
 * History while shown); undefined when there is nothing to export (running, refused, an estimate, a
 * run with no case and no pool, the newest saved run a page showed, `latest`, once deleted).
 */
export function exportId(run: ViewRun | null): string | null | undefined {
  if (!run) return undefined;
  if (run.id !== null) return run.id;
  // The newest saved run a page showed as its own (`latest`) is no run the extension holds: deleted, nothing exports it.
  if (run.latest && run.deleted) return undefined;
  const ended = run.status === 'ok' || run.status === 'failed' || run.status === 'cancelled';
  return ended && (run.cases.length > 0 || run.pool !== null) ? null : undefined;
}
