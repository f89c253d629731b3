/**
 * Hosts the dashboard webview: one panel, revived after a window reload by a serializer;
 * messages queued until the page says `ready`; pool samples and progress batched (StreamBatcher)
 * so the page redraws at a bounded rate whatever the runner's event rate; requests from the
 * page (open, compare, export of a run or a sweep, PNG) answered here.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { Commands } from '../core/protocol/lsp';
import type { RunResult } from '../core/protocol/run';
import type { SweepReport } from '../core/protocol/sweep';
import type { FromWebview, RunTarget, SweepListEntry, ToWebview } from '../core/protocol/webview';
import { dashboardHtml, makeNonce } from './dashboardHtml';
import { pngSavedMessage, runToCsv, runToJson } from './exportRun';
import { sweepToCsv } from '../core/sweepCsv';
import { sweepExportStem } from '../core/sweepFigures';
import { compareToCsv, compareToMarkdown } from './exportCompare';
import { CHANGE_MEANING } from '../core/format';
import { FolderWatch, type WatchedFolder } from './folderWatch';
import { deleteRunFile } from './deleteRun';
import { findRun, findRunFolder, listRunsIn, newestFirst, rerunSource, runFile, runId, type HistoryPlace } from './history';
import { runButtonFile, sweepProfileText } from './pick';
import { traceGoneMessage } from './refusal';
import { ShownRunStore, type Rerun } from './shownRun';
import { StreamBatcher } from './streamBatcher';
import { recordLive, replayAfterInit } from './liveReplay';
import { LiveEditedNotes, profileEditedNote, runEditedNote, type EditedNotes } from './profileEdited';
import { interruptedProfileOf, interruptedReportOf, namedSkipped, readSweepReport, resumableProfile, resumeArgs, sweepReportsIn } from './sweepReports';

export const DASHBOARD_VIEW_TYPE = 'attnscope.dashboard';

/**
 * What the dashboard needs from the extension, and all it may use: where the extension's files
 * and the saved runs are, the log, and a way to show an error. Ctx provides it; the dashboard
 * never sees the language client, the status item or the benchmark in flight.
 */
export interface DashboardHost {
  readonly extensionUri: vscode.Uri;
  readonly log: vscode.LogOutputChannel;
  /** Every folder runs are saved in (each workspace folder's history folder setting), labelled when there are several. */
  historyPlaces(): HistoryPlace[];
  /** The extension's storage folder for this workspace (ExtensionContext.storageUri); undefined without a workspace. */
  readonly storageUri: vscode.Uri | undefined;
  /** The folders `attnscope sweep` writes its reports under (<workspace folder>/.attnscope/sweeps, each folder's), labelled when there are several. */
  sweepsFolders(): Array<{ uri: vscode.Uri; label?: string }>;
  /** Logs `message` and shows it with an "Open log" button. */
  showError(message: string): Promise<void>;
}

export class Dashboard implements vscode.Disposable {
  private panel: vscode.WebviewPanel | null = null;
  private ready = false;
  private queue: ToWebview[] = [];
  /**
   * The finished run shown last, sent again when the page (re)loads; null after a refusal or a
   * memory estimate (the page's own state shows those). Its history id is kept on disk
   * (ShownRunStore) for the extension host that starts with a reloaded window.
   */
  private current: { run: RunResult; id: string | null } | null = null;
  private readonly shownRun: ShownRunStore | null;
  /** False until the first `ready` of this extension host has read the id the previous one kept. */
  private shownRunLoaded = false;
  /**
   * The sweep report the Sweep tab shows last and its file, sent again in `init` when the page
   * (re)loads or the dashboard is opened again; the file is kept on disk (ShownRunStore) for the
   * extension host of a reloaded window, which reads the report again (a resumed sweep rewrote it).
   */
  private sweep: { report: SweepReport; file: string } | null = null;
  /** False until the first `ready` of this extension host has read the sweep the previous one kept. */
  private shownSweepLoaded = false;
  /** The report the Sweep tab showed when the editor's sweep started (it drops it then), shown again if that sweep ran nothing (restoreSweepBeforeStart); null: none. */
  private sweepBeforeStart: { report: SweepReport; file: string } | null = null;
  /** The profile of the sweep the last window's reload interrupted (its notice's resumeSweep), which the page's Resume sweep runs; null: none. */
  private interruptedSweep: string | null = null;
  /** Messages of the run streaming now, replayed to a page that opens or reloads mid-run. */
  private live: ToWebview[] = [];
  /** The latest sweep: its `sweepStarted` and latest `sweepProgress` or its `sweepEnded`; empty before any. */
  private sweepLive: ToWebview[] = [];
  private readonly disposables: vscode.Disposable[] = [];
  /** While a panel is open: watchers of the history and sweeps folders (watchHistory). */
  private watchers: vscode.Disposable[] = [];
  private historyChanged: ReturnType<typeof setTimeout> | undefined;
  private readonly batcher = new StreamBatcher((msg) => this.deliver(msg));
  /** The "profile edited" notes kept live while the page is open (profileEdited.ts). */
  private readonly edited = new LiveEditedNotes(() => this.editedPaths(), () => this.editedNotes(), (notes) => this.post({ type: 'profileEdited', ...notes }));
  /** The file (path) of the text editor active last: none is while the dashboard has the focus. */
  private lastEditorFile: string | undefined = editorFile(vscode.window.activeTextEditor);
  /** The Run button's file last sent to the page (runTarget), null for none. */
  private sentRunTarget: RunTarget | null = null;

  constructor(private readonly host: DashboardHost) {
    this.shownRun = host.storageUri ? new ShownRunStore(host.storageUri.fsPath) : null;
    this.disposables.push(
      { dispose: () => this.batcher.dispose() },
      vscode.window.registerWebviewPanelSerializer(DASHBOARD_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel) => this.attach(panel),
      }),
      // The text editor active last, for the Run button of a dashboard that shows no run it made:
      // its label names the file (runTarget), sent again when it changes or is closed.
      vscode.window.onDidChangeActiveTextEditor((e) => {
        if (e?.document.uri.scheme === 'file') this.lastEditorFile = e.document.uri.fsPath;
        this.postRunTarget();
      }),
      vscode.workspace.onDidCloseTextDocument((d) => d.uri.fsPath === this.lastEditorFile && this.postRunTarget()),
      // A `sweep:` block written or removed: the button sweeps the file, or no longer (RunTarget.sweep).
      vscode.workspace.onDidSaveTextDocument((d) => d.uri.fsPath === this.lastEditorFile && this.postRunTarget()),
      // A folder added or removed, or another history folder set: other folders to list and watch.
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.rewatchHistory()),
      vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('attnscope.historyFolder') && this.rewatchHistory()),
    );
  }

  /**
   * The file the Run button benchmarks when the page shows no run it made (a click posts no
   * source): the text editor's active last, if still open and a file a benchmark runs
   * (pick.ts runButtonFile); null: the command picks.
   */
  private runTarget(): RunTarget | null {
    const open = vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'file').map((d) => d.uri.fsPath);
    const path = runButtonFile('model', this.lastEditorFile, open);
    if (path === undefined) return null;
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === path);
    return { path, label: vscode.workspace.asRelativePath(path), ...(doc && sweepProfileText(path, doc.getText()) ? { sweep: true as const } : {}) };
  }

  /** Sends the Run button's file to an open page when it changed since last sent. */
  private postRunTarget(): void {
    if (!this.panel) return;
    const target = this.runTarget();
    if (target?.path === this.sentRunTarget?.path && target?.sweep === this.sentRunTarget?.sweep) return;
    this.sentRunTarget = target;
    this.post({ type: 'runTarget', target });
  }

  /** Watches the folders again and sends both lists again (the set of folders changed). */
  private rewatchHistory(): void {
    if (!this.panel) return;
    this.watchHistory();
    void this.refreshRuns();
    void this.refreshSweeps();
  }

  /**
   * While the panel is open, watches every history folder and every sweeps folder with its
   * subfolders (a sweep's report is in `<sweeps>/<id>/`) and sends History's lists again 300 ms
   * after the last change seen: runs the CLI writes, files renamed or deleted in a terminal, a
   * deleted .attnscope are listed as they are, not as they were when the dashboard opened (a burst
   * of files is one re-read). A folder not there yet is watched from its nearest existing ancestor
   * on and read once it appears (folderWatch.ts FolderWatch: Node's fs.watch, as VS Code's watcher
   * in code-server missed runs written into a history folder made with its parent). A watcher,
   * not a re-read when History is shown: the list is right while it is on screen too.
   */
  private watchHistory(): void {
    for (const w of this.watchers.splice(0)) w.dispose();
    if (!this.panel) return;
    const changed = (): void => {
      clearTimeout(this.historyChanged);
      this.historyChanged = setTimeout(() => {
        void this.refreshRuns();
        void this.refreshSweeps();
      }, 300);
    };
    const folders: WatchedFolder[] = [
      ...this.host.historyPlaces().map((p) => ({ path: p.path, depth: 0 as const })),
      ...this.host.sweepsFolders().map(({ uri }) => ({ path: uri.fsPath, depth: 1 as const })),
    ];
    this.watchers.push(new FolderWatch(folders, changed));
  }

  /** Opens the dashboard, or brings it to the front. */
  show(preserveFocus: boolean): void {
    if (this.panel) {
      this.panel.reveal(undefined, preserveFocus);
      return;
    }
    const panel = vscode.window.createWebviewPanel(DASHBOARD_VIEW_TYPE, 'AttnScope', { viewColumn: vscode.ViewColumn.Beside, preserveFocus }, {
      enableScripts: true,
      retainContextWhenHidden: true,
      localResourceRoots: [vscode.Uri.joinPath(this.host.extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(this.host.extensionUri, 'media')],
    });
    this.attach(panel);
  }

  /** True when a dashboard panel exists. */
  get isOpen(): boolean {
    return this.panel !== null;
  }

  /**
   * Sends `msg` now, or when the page is ready; `poolSamples` and `progress` go as one batch at
   * most every 250 ms and only once the page drew the batch before (StreamBatcher), always before
   * the next other message but `runFinished`, which carries the samples not sent; the first after a quiet interval and the last progress go at once.
   */
  post(msg: ToWebview): void {
    this.batcher.post(msg);
  }

  private deliver(msg: ToWebview): void {
    const shownBefore = this.current?.id ?? null;
    if (msg.type === 'runFinished' || msg.type === 'showRun') {
      this.current = { run: msg.run, id: msg.id ?? null };
      const edited = this.runEdited(msg.run);
      this.edited.sent({ current: { createdAt: msg.run.createdAt, note: edited } });
      if (edited !== null) msg = { ...msg, profileEdited: edited };
    }
    if (msg.type === 'showSweep') {
      const edited = this.sweepEdited(msg.report);
      this.edited.sent({ sweep: { sweepId: msg.report.sweepId, note: edited } });
      if (edited !== null) msg = { ...msg, profileEdited: edited };
    }
    if (msg.type === 'runRefused' || msg.type === 'showEstimate') this.current = null;
    if (msg.type === 'runFinished' && this.ready && msg.run.pool) {
      // The page has the first of this run's samples from the stream: the finish carries the rest
      // only, those StreamBatcher held (the page checks the count and keeps its own); `current`
      // keeps the whole run for a page that reloads.
      const streamed = this.live.reduce((n, m) => n + (m.type === 'poolSamples' ? m.samples.length : 0), 0);
      if (streamed > 0 && streamed <= msg.run.pool.samples.length) msg = { ...msg, run: { ...msg.run, pool: { ...msg.run.pool, samples: msg.run.pool.samples.slice(streamed) } }, streamedSamples: streamed };
    }
    if (msg.type === 'runSaved' && this.current) this.current = { ...this.current, id: msg.id };
    if ((this.current?.id ?? null) !== shownBefore) this.rememberShown();
    // A running run's stream and sweep's start and latest progress (Cancel pressed too), replayed to a page that opens or reloads while it runs.
    ({ live: this.live, sweepLive: this.sweepLive } = recordLive({ live: this.live, sweepLive: this.sweepLive }, msg));
    if (msg.type === 'sweepStarted') {
      this.sweepBeforeStart = this.sweep;
      // The report shown was another sweep's (another profile's, or an earlier sweep of this one): under
      // the running sweep's line it read as this sweep's result (s37 newcomer-ed 1). The page drops it
      // alike (webview/model.ts); a reload or reopened dashboard does not bring it back.
      if (this.sweep) {
        this.sweep = null;
        this.shownSweepLoaded = true;
        void this.shownRun?.saveSweep(null, (err) => this.host.log.warn(`could not record the sweep the dashboard shows: ${err instanceof Error ? err.message : String(err)}`));
      }
    }
    if (!this.panel) return;
    if (this.ready) void this.panel.webview.postMessage(msg);
    else this.queue.push(msg);
  }

  /** The "profile edited" notes of the run and the sweep this dashboard shows ({@link runEdited}, {@link sweepEdited}), for LiveEditedNotes. */
  private editedNotes(): EditedNotes {
    return {
      ...(this.current ? { current: { createdAt: this.current.run.createdAt, note: this.runEdited(this.current.run) } } : {}),
      ...(this.sweep ? { sweep: { sweepId: this.sweep.report.sweepId, note: this.sweepEdited(this.sweep.report) } } : {}),
    };
  }

  /** The files those notes are of (the profiles, the run's model config): an edit, save or close of one of them works the notes out again. */
  private editedPaths(): string[] {
    return [this.current?.run.profile.sourcePath, this.current?.run.profile.modelPath, this.sweep?.report.profile?.path].filter((p): p is string => typeof p === 'string');
  }

  /**
   * The note over `run` when its profile, or the model config it names, was edited after it started
   * (RunResult.sourceSha256, modelSha256 against the text now: the open editor's, else the file's;
   * profileEdited.ts runEditedNote); null otherwise.
   */
  private runEdited(run: RunResult): string | null {
    return runEditedNote(run, openText);
  }

  /** The note over a sweep `report` whose profile was edited after the sweep started (SweepReport.profile, as runEdited); null otherwise. */
  private sweepEdited(report: SweepReport): string | null {
    return profileEditedNote(report.profile, 'sweep', openText);
  }

  /** Writes the shown run's id for the next extension host (ShownRunStore). */
  private rememberShown(): void {
    this.shownRunLoaded = true; // what this host shows from now on supersedes what the last one kept
    void this.shownRun?.save(this.current?.id ?? null, (err) => this.host.log.warn(`could not record the run the dashboard shows: ${err instanceof Error ? err.message : String(err)}`));
  }

  /**
   * Once per extension host, before the first `init`: the run the previous host's dashboard
   * showed (a window reload restarts the host, and the page's saved state may predate the run's
   * finish: ShownRunStore says why). A run no longer in history is not shown.
   */
  private async loadShown(folders: string[]): Promise<void> {
    if (this.shownRunLoaded) return;
    this.shownRunLoaded = true;
    const id = await this.shownRun?.load();
    if (this.current) return;
    const stopped = id ? null : await this.shownRun?.loadInterrupted();
    if (stopped) {
      // A run the reload stopped, not saved: shown (its error says how it ended), not the newest saved run of another profile.
      this.current = { run: stopped, id: null };
      this.host.log.info(`dashboard: showing ${stopped.name}, which the window's reload interrupted (not saved)`);
      return;
    }
    if (!id) return;
    try {
      this.current = { run: (await findRun(folders, id)).run, id };
      this.host.log.info(`dashboard: showing ${id}, the run shown before the window reloaded`);
    } catch (err) {
      this.host.log.info(`dashboard: the run shown before the window reloaded (${id}) is no longer in history: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * For deactivate(), synchronously: run `id` (a run the reload interrupted, just saved) is the one
   * the next extension host's dashboard shows, and `notice` what it tells the user
   * (ShownRunStore.saveSync). A failed write is logged.
   */
  showAfterReload(id: string, notice: string, rerun?: Rerun): void {
    try {
      this.shownRun?.saveSync(id, notice, undefined, rerun ? { rerun } : {});
    } catch (err) {
      this.host.log.warn(`could not record the interrupted run for the next window: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * For deactivate(), synchronously: `run`, which the reload stopped and which is not saved (a
   * benchmark before its first case, a simulation before its end), is what the next extension
   * host's dashboard shows (ShownRunStore.saveSync's `stopped`), `notice` what it tells the user,
   * with a Run again that runs `rerun`. A failed write is logged.
   */
  interruptedAfterReload(run: RunResult, notice: string, rerun: Rerun): void {
    try {
      this.shownRun?.saveSync(null, notice, undefined, { run, rerun });
    } catch (err) {
      this.host.log.warn(`could not record the interrupted run for the next window: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * For deactivate(), synchronously: `notice` is what the next extension host tells the user (a
   * simulation the reload stopped, not saved; a sweep it stopped, with `resumeSweep`, its profile:
   * the notice's button runs that sweep again, which resumes), the run shown stays the one shown
   * now, or none while a run streams. A failed write is logged.
   */
  noticeAfterReload(notice: string, resumeSweep?: string): void {
    try {
      // While a run streams, the page shows it, not `current` (the run finished before it): that
      // one sent in the next host's `init` replaced the restored page's stopped run with a stale
      // one beside the notice. None then: the page's own state stands (webview/model.ts shows a run
      // restored as running, with no run in `init`, as interrupted by the reload).
      this.shownRun?.saveSync(this.live.length > 0 ? null : (this.current?.id ?? null), notice, resumeSweep);
    } catch (err) {
      this.host.log.warn(`could not record the notice for the next window: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * Once per extension host, at start: the notice the previous host left (a run its window's
   * reload interrupted, saved), shown with a button that opens the dashboard on that run; for a
   * sweep the reload interrupted, a Resume sweep button that runs it again (the CLI resumes it).
   */
  async showNoticeFromLastWindow(): Promise<void> {
    const left = await this.shownRun?.takeNotice();
    if (!left) return;
    this.host.log.info(`dashboard: ${left.notice}`);
    if (left.resumeSweep !== null) {
      this.interruptedSweep = left.resumeSweep;
      // The points it kept, merged by its runner into a report marked interrupted: the Sweep tab shows them under its interrupted line.
      const kept = await interruptedReportOf(this.host.sweepsFolders().map(({ uri }) => uri.fsPath), basename(left.resumeSweep));
      if (kept) {
        this.sweep = { report: kept.report, file: kept.file };
        this.shownSweepLoaded = true; // not the one the last host showed before the sweep
        void this.shownRun?.saveSweep(kept.file, (err) => this.host.log.warn(`could not record the sweep the dashboard shows: ${err instanceof Error ? err.message : String(err)}`));
        this.host.log.info(`dashboard: showing the ${kept.report.total - kept.report.missing.length} points the reload's sweep kept, ${kept.file}`);
        if (this.panel) this.post({ type: 'showSweep', report: kept.report });
      }
      const resume = 'Resume sweep';
      // The Sweep tab's Resume's path, with its check: a profile changed since is another sweep (it ran one silently, s43 newcomer-ed M4).
      if (await vscode.window.showInformationMessage(left.notice, resume)) await this.resumeSweep(basename(left.resumeSweep));
      return;
    }
    const again = 'Run again';
    const rerun = left.rerun;
    const picked = await vscode.window.showInformationMessage(left.notice, ...(rerun ? [again] : []), 'Open dashboard');
    if (picked === again && rerun) await vscode.commands.executeCommand(rerun.job === 'simulate' ? Commands.runSimulation : Commands.runBenchmark, rerun.source); // the code lens's argument: the URI as a string
    else if (picked) this.show(false);
  }

  /**
   * Opens the dashboard's Sweep tab on `report`, read from `file` (its sweep-report.json), and
   * remembers it: a reopened dashboard and a reloaded window show it again. The History list of
   * sweeps is sent again (a sweep that just ended is new there). `preserveFocus`: the panel comes
   * to the front without the keyboard (a sweep that ended while the user typed elsewhere; s40
   * newcomer-ed: its reveal took the focus, and the next keystrokes went to the dashboard). `ended`: the
   * report of the editor's own sweep that just ended (ToWebview showSweep's `ended`), not one the user opened.
   */
  showSweep(report: SweepReport, file: string, preserveFocus = false, ended = false): void {
    this.sweep = { report, file };
    this.sweepBeforeStart = null;
    // An ended sweep's line is replayed only over its own table (the page clears it alike: webview/model.ts showSweep).
    const started = this.sweepLive[0];
    if (this.sweepLive.at(-1)?.type === 'sweepEnded' && started?.type === 'sweepStarted' && started.name !== report.name) this.sweepLive = [];
    this.shownSweepLoaded = true; // supersedes what the last extension host kept
    void this.shownRun?.saveSweep(file, (err) => this.host.log.warn(`could not record the sweep the dashboard shows: ${err instanceof Error ? err.message : String(err)}`));
    this.show(preserveFocus);
    this.post({ type: 'showSweep', report, ...(ended ? { ended: true as const } : {}) });
    void this.refreshSweeps();
  }

  /**
   * The editor's sweep ended having run nothing (refused: bad input, another runner has it; or its
   * runner failed before any report): the report the Sweep tab showed at its start, which the start
   * dropped, is shown again, under the line saying how the sweep ended. An interrupted sweep's view
   * and its Resume sweep went when a Run sweep of its profile with an error was refused (s44
   * newcomer-ed F4). The panel is not brought forward for it.
   */
  restoreSweepBeforeStart(): void {
    const before = this.sweepBeforeStart;
    this.sweepBeforeStart = null;
    if (!before || this.sweep) return;
    this.sweep = before;
    void this.shownRun?.saveSweep(before.file, (err) => this.host.log.warn(`could not record the sweep the dashboard shows: ${err instanceof Error ? err.message : String(err)}`));
    this.post({ type: 'showSweep', report: before.report });
  }

  /**
   * Once per extension host, before the first `init`: the sweep the previous host's dashboard
   * showed, read again from its file; a report no longer there (or no longer readable) is not shown.
   */
  private async loadShownSweep(): Promise<void> {
    if (this.shownSweepLoaded) return;
    this.shownSweepLoaded = true;
    const file = await this.shownRun?.loadSweep();
    if (!file || this.sweep) return;
    const report = await readSweepReport(file);
    if (report) {
      this.sweep = { report, file };
      this.host.log.info(`dashboard: showing the sweep ${file}, the one shown before the window reloaded`);
    } else {
      this.host.log.info(`dashboard: the sweep shown before the window reloaded (${file}) is no longer readable`);
    }
  }

  /**
   * The finished sweeps under every workspace folder's .attnscope/sweeps, newest first (each sweep
   * folder's merged report), named by workspace folder when there are several; `skipped`: the
   * reports there that are none, each `<workspace-relative file>: <why>` (sweepReports.ts
   * namedSkipped), which History lists under them as Open sweep results names them.
   */
  private async listSweeps(): Promise<{ sweeps: SweepListEntry[]; skipped: string[] }> {
    const all: SweepListEntry[] = [];
    const skipped: string[] = [];
    for (const { uri, label } of this.host.sweepsFolders()) {
      const listed = await sweepReportsIn(uri.fsPath);
      skipped.push(...namedSkipped(listed.skipped, (file) => vscode.workspace.asRelativePath(file)));
      for (const e of listed.entries) {
        if (e.file === join(uri.fsPath, 'sweep-report.json')) continue;
        all.push({ id: basename(dirname(e.file)), name: e.name, createdAt: e.createdAt, job: e.job, points: e.total - e.missing, total: e.total, ...(e.interrupted ? { interrupted: true as const } : {}), ...(label === undefined ? {} : { folder: label }) });
      }
    }
    return { sweeps: all.sort(newestFirst), skipped };
  }

  /** Sends the list of finished sweeps again (after a sweep ended), with the reports left out. */
  async refreshSweeps(): Promise<void> {
    if (!this.panel) return;
    const { sweeps, skipped } = await this.listSweeps();
    this.post({ type: 'sweeps', sweeps, skipped });
  }

  /** Sends the history list again (after a run was saved). */
  async refreshRuns(): Promise<void> {
    if (!this.panel) return;
    const { runs, skipped } = await listRunsIn(this.host.historyPlaces());
    this.post({ type: 'runs', runs, skipped });
  }

  private attach(panel: vscode.WebviewPanel): void {
    this.panel = panel;
    this.ready = false;
    const dist = vscode.Uri.joinPath(this.host.extensionUri, 'dist', 'webview');
    panel.iconPath = vscode.Uri.joinPath(this.host.extensionUri, 'media', 'dashboard.svg');
    panel.webview.options = { enableScripts: true, localResourceRoots: [dist, vscode.Uri.joinPath(this.host.extensionUri, 'media')] };
    panel.webview.html = dashboardHtml(
      {
        cspSource: panel.webview.cspSource,
        script: panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'main.js')).toString(),
        style: panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'main.css')).toString(),
      },
      makeNonce(),
    );
    this.watchHistory();
    // The "profile edited" notes, live: an edit, a save, or a close that drops the edits of a profile shown (LiveEditedNotes).
    const edited = (doc: vscode.TextDocument): void => {
      if (doc.uri.scheme === 'file') this.edited.changed(doc.uri.fsPath);
    };
    const subs = [
      vscode.workspace.onDidChangeTextDocument((e) => edited(e.document)),
      vscode.workspace.onDidSaveTextDocument(edited),
      vscode.workspace.onDidCloseTextDocument(edited),
      panel.webview.onDidReceiveMessage((msg: FromWebview) => {
        this.onMessage(msg).catch((err: unknown) => void this.host.showError(`AttnScope dashboard: ${err instanceof Error ? err.message : String(err)}`));
      }),
      panel.onDidDispose(() => {
        this.panel = null;
        this.watchHistory();
        clearTimeout(this.historyChanged);
        this.edited.dispose();
        this.ready = false;
        this.queue = [];
        for (const s of subs) s.dispose();
      }),
    ];
  }

  private async onMessage(msg: FromWebview): Promise<void> {
    const places = this.host.historyPlaces();
    const folders = places.map((p) => p.path);
    switch (msg.type) {
      case 'ready': {
        await this.loadShown(folders);
        await this.loadShownSweep();
        const { runs, skipped } = await listRunsIn(places);
        const { sweeps, skipped: sweepsSkipped } = await this.listSweeps();
        const replay = replayAfterInit({ live: this.live, sweepLive: this.sweepLive }, this.queue);
        // A run streams: its start follows init, which carries no run to show before it (the page says Loading… until then).
        const streaming = this.live.length > 0;
        this.queue = [];
        this.ready = true;
        // Nothing shown here: the newest saved run, for a page with none of its own (model.ts reduce
        // 'init'), shown as a run the page did not make: its Run button runs `runTarget`.
        const latest = !this.current && !streaming && runs[0] ? await findRun(folders, runs[0].id).then((f) => ({ run: f.run, id: runs[0]!.id }), () => null) : null;
        this.sentRunTarget = this.runTarget();
        const notes = this.editedNotes();
        this.edited.sent(notes);
        const currentEdited = notes.current?.note ?? null;
        const sweepEdited = notes.sweep?.note ?? null;
        void this.panel?.webview.postMessage({
          type: 'init', runs, skipped, current: streaming ? null : (this.current?.run ?? null), currentId: streaming ? null : (this.current?.id ?? null), latest, runTarget: this.sentRunTarget, sweep: this.sweep?.report ?? null, sweeps, sweepsSkipped,
          ...(streaming ? { streaming: true as const } : {}),
          ...(currentEdited === null || streaming ? {} : { currentProfileEdited: currentEdited }),
          ...(sweepEdited === null ? {} : { sweepProfileEdited: sweepEdited }),
        } satisfies ToWebview);
        for (const m of replay) void this.panel?.webview.postMessage(m);
        // A new page has the stream so far: what the batcher holds for the page goes after it.
        this.batcher.drawn();
        return;
      }
      case 'streamDrawn':
        this.batcher.drawn();
        return;
      case 'openRun':
        this.post({ type: 'showRun', run: (await findRun(folders, msg.id)).run, id: msg.id });
        return;
      case 'openSweep': {
        // The id is a folder name History listed: one path segment, nothing that climbs out.
        if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(msg.id)) throw new RangeError(`not a sweep of .attnscope/sweeps: ${JSON.stringify(msg.id)}`);
        // The first workspace folder's .attnscope/sweeps that holds it (listSweeps lists them all).
        const files = this.host.sweepsFolders().map(({ uri }) => join(uri.fsPath, msg.id, 'sweep-report.json'));
        for (const file of files) {
          const report = await readSweepReport(file);
          if (report) return this.showSweep(report, file);
        }
        throw new Error(`${files.map((f) => vscode.workspace.asRelativePath(f)).join(' or ') || `.attnscope/sweeps/${msg.id}`} is no longer a readable sweep report`);
      }
      case 'deleteRun': {
        // Asked first, then to the OS trash (the platform's way), or for good where there is none and the user says so (deleteRun.ts).
        const file = runFile(await findRunFolder(folders, msg.id), msg.id);
        const how = await deleteRunFile(file, msg.name, msg.createdAt, {
          confirm: async (message, detail, action) => (await vscode.window.showWarningMessage(message, { modal: true, detail }, action)) === action,
          remove: (path, useTrash) => Promise.resolve(vscode.workspace.fs.delete(vscode.Uri.file(path), { useTrash })),
        });
        if (how === null) return;
        this.host.log.info(`history: deleted run ${msg.id} (${how === 'trash' ? 'to the trash' : 'permanently'}): ${file}`);
        // The run shown, if that one: no longer saved (its export writes it as shown; a reload does not look for it).
        if (this.current?.id === msg.id) {
          this.current = { ...this.current, id: null };
          this.rememberShown();
        }
        this.post({ type: 'runDeleted', id: msg.id, how });
        await this.refreshRuns();
        return;
      }
      case 'compareRuns':
        this.post({ type: 'compare', a: (await findRun(folders, msg.a)).run, b: (await findRun(folders, msg.b)).run, aId: msg.a, bId: msg.b });
        return;
      case 'export': {
        if (msg.id === null) {
          // The run shown is not saved (its history folder could not be written): the one this host sent.
          const shown = this.current;
          if (!shown || shown.id !== null) throw new Error('the run shown is no longer the unsaved one: export it from History');
          await exportRunTo(this.host, shown.run, runId(shown.run.createdAt, shown.run.name), msg.format);
          return;
        }
        const { run, folder } = await findRun(folders, msg.id);
        await exportRunTo(this.host, run, msg.id, msg.format, folder);
        return;
      }
      case 'exportSweep':
        if (msg.markdown !== undefined) {
          await vscode.env.clipboard.writeText(msg.markdown);
          void vscode.window.showInformationMessage(`AttnScope: copied the sweep of ${msg.report.name} (${msg.report.rows.length} points, ranked) as Markdown.`);
        } else await exportSweepTo(this.host, msg.report, this.sweep?.report.sweepId === msg.report.sweepId ? this.sweep.file : undefined);
        return;
      case 'exportCompare':
        await exportCompareTo(this.host, msg);
        return;
      case 'savePng':
        // Proposed in the workspace folder of the sweep's report (the Sweep tab's), else of the run shown, where it is saved.
        await savePng(this.host.log, msg.name, msg.dataUrl, msg.sweepId !== undefined ? (this.sweep?.report.sweepId === msg.sweepId ? this.sweep.file : undefined) : this.current?.id ? await findRun(folders, this.current.id).then((f) => f.folder, () => undefined) : undefined);
        return;
      case 'runBenchmark': {
        // The file of the run shown (a CLI run's relative path: in the run's own workspace folder,
        // history.ts rerunSource), else the file the button names (runTarget), else the command's
        // own choice (a pick). The command's active editor is none while the dashboard (a webview)
        // has the focus, as it has when its button is clicked: the file of the text editor active
        // before it, if still open.
        const last = msg.source === undefined ? this.runTarget()?.path : undefined;
        const source = msg.source !== undefined ? vscode.Uri.file(rerunSource(msg.source, await this.rerunRoots(folders, msg.source), existsSync)) : last === undefined ? undefined : vscode.Uri.file(last);
        if (msg.kind === 'simulate' && msg.replay && source) {
          // A run that replayed a trace runs with it again; a trace no longer there is said, and the drawn workload offered, never run unasked.
          if (existsSync(msg.replay.trace.resolvedPath)) {
            await vscode.commands.executeCommand(Commands.runSimulation, source, msg.replay);
            return;
          }
          const drawn = "Simulate the profile's workload";
          if ((await vscode.window.showWarningMessage(traceGoneMessage(basename(source.fsPath), msg.replay.trace), drawn)) === drawn) await vscode.commands.executeCommand(Commands.runSimulation, source);
          return;
        }
        await vscode.commands.executeCommand(msg.kind === 'simulate' ? Commands.runSimulation : Commands.runBenchmark, source);
        return;
      }
      case 'runSweep': {
        // The button over a sweep profile (RunTarget.sweep): that file, else the command's pick.
        const last = this.runTarget()?.path;
        await vscode.commands.executeCommand(Commands.runSweep, last === undefined ? undefined : vscode.Uri.file(last));
        return;
      }
      case 'cancelRun':
        await vscode.commands.executeCommand(Commands.cancelRun);
        return;
      case 'resumeSweep':
        // The Sweep tab shows the interrupted report: its folder is where the sweep resumes (a CLI sweep's --out).
        await this.resumeSweep(msg.name, msg.profile, this.sweep?.report.name === msg.name ? dirname(this.sweep.file) : undefined);
        return;
    }
  }

  /**
   * Runs again the interrupted sweep of the profile named `name` (the Sweep tab's Resume sweep and the
   * reloaded window's notice both come here): `profile`, the one its report recorded (SweepReport.profile),
   * or for the sweep the last window's reload interrupted, the one its kept report recorded. A profile that
   * cannot be read is refused with why; one whose text changed since asks first (running it is another
   * sweep, the points kept not reused). With neither, the profile the reload named, else the command's choice.
   * `outDir`: the folder of the report shown, where the unchanged sweep resumes (a changed profile is another
   * sweep, run into its default folder: the old folder holds the old sweep's points and is refused).
   */
  private async resumeSweep(name: string, profile?: NonNullable<SweepReport['profile']>, outDir?: string): Promise<void> {
    const reloaded = this.interruptedSweep !== null && basename(this.interruptedSweep) === name ? this.interruptedSweep : undefined;
    const recorded = profile ?? (reloaded === undefined ? null : await interruptedProfileOf(this.host.sweepsFolders().map(({ uri }) => uri.fsPath), reloaded));
    if (!recorded) {
      await vscode.commands.executeCommand(Commands.runSweep, reloaded === undefined ? undefined : vscode.Uri.file(reloaded));
      return;
    }
    const at = await resumableProfile(recorded);
    if (at.state === 'missing') {
      void vscode.window.showErrorMessage(`AttnScope: cannot resume the sweep of ${name}: its profile ${recorded.path} cannot be read (${at.why}). Run the sweep from the profile where it is now; the points kept resume only when its text is the same.`);
      return;
    }
    if (at.state === 'changed') {
      const anyway = 'Run the changed profile';
      const pick = await vscode.window.showWarningMessage(
        `AttnScope: ${recorded.path} has changed since its sweep was interrupted: running it is another sweep, and the points kept are not resumed (only points whose simulation inputs are the same are reused).`,
        { modal: true },
        anyway,
      );
      if (pick !== anyway) return;
    }
    // With the --set / --max-rate the sweep was run with (without them, another sweep), into the folder holding its points.
    await vscode.commands.executeCommand(Commands.runSweep, vscode.Uri.file(recorded.path), resumeArgs(recorded, at.state === 'same' ? outDir : undefined));
  }

  /**
   * The workspace folders the relative `source` of the run shown is looked for in: the one its
   * history folder is in first (where the CLI ran it, as the run is saved there), then the others
   * in order.
   */
  private async rerunRoots(folders: readonly string[], source: string): Promise<string[]> {
    const all = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    const shown = this.current?.id && this.current.run.profile.sourcePath === source ? this.current.id : undefined;
    const saved = shown ? await findRun(folders, shown).then((f) => f.folder, () => undefined) : undefined;
    const own = saved === undefined ? undefined : vscode.workspace.getWorkspaceFolder(vscode.Uri.file(saved))?.uri.fsPath;
    return own === undefined ? all : [own, ...all.filter((f) => f !== own)];
  }

  dispose(): void {
    this.panel?.dispose();
    for (const w of this.watchers.splice(0)) w.dispose();
    clearTimeout(this.historyChanged);
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

/**
 * The folder a save dialog proposes for a file exported from `saved` (the history folder a run
 * is saved in, a sweep's report): the workspace folder holding it, else the first workspace folder.
 */
function exportBase(saved?: string): vscode.Uri | undefined {
  const own = saved === undefined ? undefined : vscode.workspace.getWorkspaceFolder(vscode.Uri.file(saved));
  return (own ?? vscode.workspace.workspaceFolders?.[0])?.uri;
}

/**
 * Asks where to save and writes the run as JSON or CSV (exportRun.ts), proposing the workspace
 * folder of `folder` (the history folder it is saved in); a CSV with no row is not written, and
 * the warning says so.
 */
export async function exportRunTo(host: Pick<DashboardHost, 'log'>, run: RunResult, id: string, format: 'json' | 'csv', folder?: string): Promise<void> {
  const csv = format === 'csv' ? runToCsv(run) : null;
  if (csv && csv.rows === 0) {
    // Never "exported" for a header alone.
    void vscode.window.showWarningMessage(`AttnScope: nothing exported: ${run.name} has no kernel case and no pool simulation to write as CSV.`);
    return;
  }
  const base = exportBase(folder);
  const target = await vscode.window.showSaveDialog({
    title: `Export run ${run.name} as ${format.toUpperCase()}`,
    defaultUri: base ? vscode.Uri.joinPath(base, `${id}.${format}`) : undefined,
    filters: format === 'json' ? { JSON: ['json'] } : { CSV: ['csv'] },
  });
  if (!target) return;
  await writeFile(target.fsPath, csv ? csv.text : runToJson(run), 'utf8');
  host.log.info(`exported ${id} to ${target.fsPath}`);
  void vscode.window.showInformationMessage(`AttnScope: exported ${run.name} to ${vscode.workspace.asRelativePath(target)}.`);
}

/**
 * Compare's export (exportCompare.ts): `markdown` copies the Markdown table to the clipboard,
 * `csv` asks where to save the CSV (proposing the first workspace folder).
 */
async function exportCompareTo(host: Pick<DashboardHost, 'log'>, msg: Extract<FromWebview, { type: 'exportCompare' }>): Promise<void> {
  const what = `${msg.a.name} vs ${msg.b.name}`;
  if (msg.format === 'markdown') {
    await vscode.env.clipboard.writeText(compareToMarkdown(msg.a, msg.b, msg.rows, CHANGE_MEANING));
    void vscode.window.showInformationMessage(`AttnScope: copied the comparison ${what} (${msg.rows.length} rows) as a Markdown table.`);
    return;
  }
  const csv = compareToCsv(msg.a, msg.b, msg.rows);
  const base = exportBase();
  const stem = what.replace(/[^A-Za-z0-9._-]+/g, '_');
  const target = await vscode.window.showSaveDialog({
    title: `Export the comparison ${what} as CSV`,
    defaultUri: base ? vscode.Uri.joinPath(base, `compare-${stem}.csv`) : undefined,
    filters: { CSV: ['csv'] },
  });
  if (!target) return;
  await writeFile(target.fsPath, csv.text, 'utf8');
  host.log.info(`exported the comparison ${what} (${csv.rows} rows) to ${target.fsPath}`);
  void vscode.window.showInformationMessage(`AttnScope: exported the comparison ${what} to ${vscode.workspace.asRelativePath(target)}.`);
}

/** Asks where to save and writes the sweep's table as CSV (core/sweepCsv.ts); a sweep with no point result is not written, and the warning says so. */
async function exportSweepTo(host: Pick<DashboardHost, 'log'>, report: SweepReport, file?: string): Promise<void> {
  const csv = sweepToCsv(report);
  if (csv.rows === 0) {
    void vscode.window.showWarningMessage(`AttnScope: nothing exported: the sweep of ${report.name} has no point results to write as CSV.`);
    return;
  }
  const base = exportBase(file);
  const target = await vscode.window.showSaveDialog({
    title: `Export sweep ${report.name} as CSV`,
    defaultUri: base ? vscode.Uri.joinPath(base, `${sweepExportStem(report)}.csv`) : undefined,
    filters: { CSV: ['csv'] },
  });
  if (!target) return;
  await writeFile(target.fsPath, csv.text, 'utf8');
  host.log.info(`exported sweep ${report.name} (${report.sweepId}, ${csv.rows} rows) to ${target.fsPath}`);
  void vscode.window.showInformationMessage(`AttnScope: exported the sweep of ${report.name} to ${vscode.workspace.asRelativePath(target)}.`);
}

/**
 * Asks where to save the dashboard's PNG (`dataUrl`, the charts of the run, comparison or sweep `name`),
 * proposing the workspace folder of `saved` (the history folder of the run shown, or the Sweep tab's report file:
 * exportBase), writes it and says where, with Open and Reveal in Explorer.
 * TypeError for a data URL that is no base64 PNG.
 */
async function savePng(log: DashboardHost['log'], name: string, dataUrl: string, saved?: string): Promise<void> {
  const m = /^data:image\/png;base64,([A-Za-z0-9+/=]+)$/.exec(dataUrl);
  if (!m) throw new TypeError('the dashboard sent an image that is not a PNG data URL');
  const base = exportBase(saved);
  const target = await vscode.window.showSaveDialog({
    title: 'Export charts as PNG',
    defaultUri: base ? vscode.Uri.joinPath(base, `${name.replace(/[^A-Za-z0-9._-]+/g, '_')}.png`) : undefined,
    filters: { PNG: ['png'] },
  });
  if (!target) return;
  const png = Buffer.from(m[1]!, 'base64');
  await writeFile(target.fsPath, png);
  log.info(`saved the PNG of ${name} to ${target.fsPath}`);
  // Said, with where (s48 newcomer-ed 15: the file was written and nothing confirmed it); Reveal only where the Explorer shows the file.
  const open = 'Open';
  const reveal = 'Reveal in Explorer';
  const actions = vscode.workspace.getWorkspaceFolder(target) ? [open, reveal] : [open];
  void vscode.window.showInformationMessage(pngSavedMessage(name, vscode.workspace.asRelativePath(target), png), ...actions).then((picked) => {
    if (picked === open) void vscode.commands.executeCommand('vscode.open', target);
    else if (picked === reveal) void vscode.commands.executeCommand('revealInExplorer', target);
  });
}

/** The editor's text of the file `path` when a document of it is open (saved or not: what a run of it would run now); undefined otherwise. */
function openText(path: string): string | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === path)?.getText();
}

/** The path of `editor`'s file, or undefined for none or a document not on disk (untitled, a diff's side). */
function editorFile(editor: vscode.TextEditor | undefined): string | undefined {
  return editor?.document.uri.scheme === 'file' ? editor.document.uri.fsPath : undefined;
}
