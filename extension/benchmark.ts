/**
 * One run from the editor, a benchmark (`attnscope bench`) or a serving simulation (`attnscope
 * simulate`, the pool simulation alone): resolved Profile (from the server) -> runner child
 * process -> progress notification with Cancel, status item and dashboard fed live -> the run
 * saved to history, also when a benchmark was cancelled, interrupted by a window reload (saved
 * synchronously in deactivate, interrupt()) or the runner crashed after its first case. A run the
 * runner refuses is not saved; nor is a simulation cancelled or interrupted before its end (its
 * figures are of the whole workload: refusal.ts SIMULATION_NOT_SAVED; as `attnscope simulate`
 * writes nothing when cancelled), which the toast says, nor a run that failed or was cancelled
 * with no case and no pool (core/protocol/run.ts keptInHistory: the dashboard and the toast say why).
 */
import * as vscode from 'vscode';
import type { Profile } from '../core/config/types';
import type { Estimate } from '../core/estimate/types';
import type { TraceRerun } from '../core/protocol/webview';
import { INTERRUPTED, wasmBuildNote } from '../core/format';
import { keptInHistory, traceReplayArgs, type Environment, type KernelCase, type RunKind, type RunResult } from '../core/protocol/run';
import { EXIT_BAD_INPUT, type RunnerEvent } from '../core/protocol/runner';
import type { Ctx } from './ctx';
import { partialRun, saveRun, saveRunSync } from './history';
import { benchCancelledMessage, crashMessage, finishedMessage, HISTORY_FOLDER_SETTING, interruptedError, interruptedMessage, notSavedMessage, refusalOf, SIMULATION_NOT_SAVED, simulationStoppedMessage, type Refusal } from './refusal';
import { runName } from './runName';
import { EDITOR_RUN_UI, launchFor, launchSettingsRefused } from './runLaunch';
import { RunInFlight } from './runInFlight';
import type { RunnerOutcome } from '../core/runnerProcess';


export class BenchmarkRun extends RunInFlight<RunResult | null> {
  private readonly cases: KernelCase[] = [];
  /** The runner's machine, from its `environment` or `done` event; null before (a run put together here then names this host's). */
  private environment: Environment | null = null;
  /** The run the dashboard was sent on the runner's `done` event. */
  private shown: RunResult | null = null;
  /** Set by interrupt(): the run so far is saved, and the runner's end saves and says nothing more. */
  private interrupted = false;
  /** Set by finish() once it saves the run itself: interrupt() then leaves it to that save. */
  private saving = false;

  /**
   * Cancel's SIGTERM makes the runner write a cancelled run; SIGKILL after 800 ms if it is still
   * busy (a native call that cannot be interrupted, e.g. peak measurement): it ends within a second.
   */
  private constructor(
    private readonly ctx: Ctx,
    readonly source: vscode.Uri,
    readonly job: RunKind,
    readonly name: string,
    private readonly profile: Profile,
    private readonly estimate: Estimate,
    /** A simulation's flags that replay a saved run's trace (core/protocol/run.ts traceReplayArgs). */
    private readonly replay?: readonly string[],
    /** The profile is the editor's unsaved text of `source` (RunResult.unsavedSource). */
    private readonly unsavedSource = false,
    /** SHA-256 of the texts the profile was resolved from: `source`'s (RunResult.sourceSha256) and its model's config.json (RunResult.modelSha256). */
    private readonly hashes: Pick<RunResult, 'sourceSha256' | 'modelSha256'> = {},
  ) {
    super(EDITOR_RUN_UI, 800);
  }

  /**
   * Runs `job` (a benchmark or a serving simulation) of `source` with its resolved `profile`,
   * showing progress until the runner ends. Resolves with the saved run (null if none was saved).
   * `replay`: a simulation replays that trace (a saved run's: TraceRerun), named in the run's name.
   * `unsaved`: `profile` is the editor's unsaved text of `source` (the server resolves the open
   * document's text), said in the run's name and kept on it (RunResult.unsavedSource).
   * `hashes`: of the texts `profile` was resolved from, the profile's and its model's config.json,
   * kept on the run (RunResult.sourceSha256, modelSha256).
   */
  static async start(ctx: Ctx, source: vscode.Uri, job: RunKind, profile: Profile, estimate: Estimate, replay?: TraceRerun, unsaved = false, hashes: Pick<RunResult, 'sourceSha256' | 'modelSha256'> = {}): Promise<RunResult | null> {
    if (launchSettingsRefused(ctx, source)) return null;
    const mode = job === 'simulate' ? 'simulation' : ctx.settings(source).quickMode ? 'quick' : 'full';
    const trace = job === 'simulate' ? replay : undefined;
    return new BenchmarkRun(ctx, source, job, runName(profile, source.fsPath, mode, undefined, trace?.trace.path, unsaved), profile, estimate, trace && traceReplayArgs(trace.trace, trace.timeScale), unsaved, hashes).hold(ctx);
  }

  /** `run` as this editor run names and marks it: its name, made in the editor (RunResult.origin), RunResult.unsavedSource when the profile was unsaved text, and the SHA-256 of the texts run. */
  private marked(run: RunResult): RunResult {
    const { sourceSha256, modelSha256 } = this.hashes;
    return { ...run, name: this.name, origin: 'editor', ...(this.unsavedSource ? { unsavedSource: true as const } : {}), ...(sourceSha256 === undefined ? {} : { sourceSha256 }), ...(modelSha256 === undefined ? {} : { modelSha256 }) };
  }

  /**
   * The window is reloading or closing (deactivate): its extension host ends, and with it this
   * run's runner and every promise, so the run so far is saved here, synchronously (the cases
   * received, status 'cancelled', error INTERRUPTED), and the next window's dashboard shows it
   * with a notice. A serving simulation is saved only when it ends (refusal.ts SIMULATION_NOT_SAVED
   * says why): one whose `done` came is saved as a benchmark is; one stopped before leaves only the
   * notice, that nothing is saved and why.
   */
  interrupt(): void {
    const { ctx, name } = this;
    if (this.interrupted || this.saving) return;
    this.interrupted = true;
    // What the next window's toast's Run again runs.
    const rerun = { source: this.source.toString(), job: this.job };
    // The workbench's side of the API may be gone already: only the file system, then the log.
    try {
      // The runner's `done` came (its run is shown) but finish() has not saved it yet: that run.
      const run = this.shown ?? this.unsaved('cancelled', interruptedError(this.job, this.cases.length));
      const notice = interruptedMessage(this.job, name, this.cases.length, this.shown !== null);
      if ((this.job === 'simulate' && !this.shown) || !keptInHistory(run)) {
        // Not saved (a simulation before its end, a benchmark before its first case): the next
        // window's dashboard shows this stopped run, not the older run it showed before (s50
        // newcomer-ed 1: another model's run from before, as if current), and the toast says so.
        ctx.dashboard.interruptedAfterReload(run, notice, rerun);
        ctx.log.info(`run ${name}: ${INTERRUPTED}; ${this.job === 'simulate' ? 'a simulation stopped before its end' : 'nothing measured before its first case'}, not saved`);
        return;
      }
      const folder = ctx.historyFolder(this.source).fsPath;
      let id: string;
      try {
        id = saveRunSync(folder, run);
      } catch (err) {
        // The next window shows the run (exportable) and says why it is not in History.
        const notSaved = notSavedMessage(name, folder, err);
        ctx.dashboard.interruptedAfterReload(run, notSaved, rerun);
        ctx.log.error(`run ${name}: ${INTERRUPTED}; ${notSaved}`);
        return;
      }
      ctx.dashboard.showAfterReload(id, notice, rerun);
      ctx.log.info(`run ${name}: ${INTERRUPTED}; saved ${id}.json in ${folder}`);
    } finally {
      this.cancel();
    }
  }

  protected async execute(): Promise<RunResult | null> {
    const { ctx, name, job } = this;
    const launch = launchFor(ctx, this.source, job, this.replay);
    ctx.log.info(`run ${name}: ${launch.command} ${launch.args.join(' ')}`);
    if (ctx.settings(this.source).openDashboardOnRun) ctx.dashboard.show(true);
    ctx.dashboard.post({ type: 'runStarted', name, total: 0, kind: job, profile: this.profile, estimate: this.estimate });
    ctx.status.setRun({ name, done: 0, total: 0 });

    const outcome = await this.runRunner(`AttnScope: ${job === 'simulate' ? 'simulating' : 'benchmarking'} ${name}`, launch, this.profile, {
      onEvent: (e) => this.forward(e),
      onLog: (line) => ctx.log.info(`[runner] ${line}`),
      progressMessage: (e, percent) => `${Math.round(percent)}% · ${e.message}`,
    });
    return this.finish(outcome);
  }

  private forward(e: RunnerEvent): void {
    const { ctx } = this;
    // What the runner sends after interrupt() would replace the saved run as the one shown.
    if (this.interrupted) return;
    switch (e.type) {
      case 'progress':
        ctx.status.setRun({ name: this.name, done: e.done, total: e.total });
        ctx.dashboard.post(e);
        break;
      case 'environment':
        this.environment = e.environment;
        ctx.dashboard.post(e);
        break;
      case 'case':
        this.cases.push(e.case);
        ctx.dashboard.post(e);
        break;
      case 'poolSample':
        ctx.dashboard.post({ type: 'poolSamples', samples: [e.sample] });
        break;
      case 'log':
        ctx.log[e.level](`[runner] ${e.message}`);
        break;
      case 'error':
        ctx.log.error(`[runner] ${e.message}`);
        break;
      case 'done':
        this.environment = e.run.environment;
        // A cancelled simulation's `done` has no pool: nothing to show or save (the end says it was cancelled).
        if (this.job === 'simulate' && e.run.pool === undefined) break;
        // Shown at once: the runner exits right after, and saving follows (runSaved gives the id).
        this.shown = this.marked(e.run);
        ctx.status.setLastRunEnvironment(e.run.environment);
        ctx.dashboard.post({ type: 'runFinished', run: this.shown, id: null });
        // Its time in the log is the extension host's leg of the finish, which the e2e suite times.
        ctx.log.info(`run ${this.name}: result sent to the dashboard`);
        break;
    }
  }

  /**
   * A run the runner refused before any work: nothing is saved (it is no failed run), the
   * dashboard shows the reason, and the error says what to change, with a button that goes there.
   */
  private refused(r: Refusal): void {
    const { ctx, name } = this;
    ctx.log.warn(`run ${name}: refused: ${r.reason}`);
    ctx.dashboard.post({ type: 'runRefused', reason: r.reason });
    const go = r.setting ? 'Open setting' : r.profileKey ? `Open ${r.profileKey}` : undefined;
    void vscode.window.showErrorMessage(`AttnScope: ${name} was not run: ${r.reason}`, ...(go ? [go] : [])).then(async (choice) => {
      if (!choice) return;
      if (r.setting) {
        await vscode.commands.executeCommand('workbench.action.openSettings', r.setting);
        return;
      }
      const at = r.profileKey ? this.profile.ranges[r.profileKey] : undefined;
      const doc = await vscode.workspace.openTextDocument(this.source);
      const editor = await vscode.window.showTextDocument(doc);
      if (at) editor.selection = new vscode.Selection(doc.positionAt(at.offset), doc.positionAt(at.offset + at.length));
    });
  }

  /** The run of a runner that ended without one: what was received, cancelled or failed. */
  private unsaved(status: 'cancelled' | 'failed', error: string): RunResult {
    return this.marked(partialRun({ name: this.name, kind: this.job, toolVersion: this.ctx.version, profile: this.profile, estimate: this.estimate, cases: this.cases, status, error, environment: this.environment }));
  }

  private async finish(outcome: RunnerOutcome): Promise<RunResult | null> {
    const { ctx, name } = this;
    const how = outcome.signal ? `killed by ${outcome.signal}` : `exit code ${outcome.exitCode}`;
    ctx.log.info(`run ${name}: runner ended (${how})${outcome.cancelled ? ' after cancel' : ''}`);
    if (this.interrupted) return null; // saved by interrupt()
    if (!outcome.cancelled && outcome.run === null && outcome.exitCode === EXIT_BAD_INPUT) {
      this.refused(refusalOf(outcome, this.profile, ctx.settings(this.source).backend));
      return null;
    }
    if (outcome.cancelled && (outcome.run === null || outcome.run.pool === undefined) && this.job === 'simulate') {
      // A simulation has nothing to show before its end (a cancelled one's `done` carries no pool): nothing saved, as on the command line.
      ctx.log.info(`run ${name}: simulation cancelled; nothing saved`);
      ctx.dashboard.post({ type: 'runFinished', run: this.unsaved('cancelled', `cancelled; not saved: ${SIMULATION_NOT_SAVED}`), id: null });
      void vscode.window.showInformationMessage(simulationStoppedMessage(name, 'cancelled'));
      return null;
    }
    // The runner names a run after its file; the editor's name says the model, profile and mode.
    let run: RunResult | null = outcome.run === null ? null : this.shown && outcome.run.createdAt === this.shown.createdAt ? this.shown : this.marked(outcome.run);
    const crashed = !outcome.cancelled && (run === null || run.status === 'failed' || outcome.exitCode !== 0);
    if (!run) run = this.unsaved(outcome.cancelled ? 'cancelled' : 'failed', outcome.cancelled ? 'cancelled' : outcome.error ?? `runner ended without a result (${how})`);

    let id: string | null = null;
    const folder = ctx.historyFolder(this.source);
    this.saving = true;
    const kept = keptInHistory(run);
    /** Why the run is not saved, when saving it failed: the error says so, in place of the finished toast. */
    let saveError: string | null = null;
    if (!kept) {
      ctx.log.info(`run ${name}: ${run.status} with no case and no pool; not saved`);
    } else {
      try {
        id = await saveRun(folder.fsPath, run);
        ctx.log.info(`run ${name}: saved ${vscode.Uri.joinPath(folder, `${id}.json`).fsPath} (${run.status})`);
      } catch (err) {
        saveError = notSavedMessage(name, folder.fsPath, err);
      }
    }
    if (run !== this.shown) ctx.dashboard.post({ type: 'runFinished', run, id });
    else if (id !== null) ctx.dashboard.post({ type: 'runSaved', id });
    await ctx.dashboard.refreshRuns();

    if (saveError !== null) {
      ctx.log.error(saveError);
      void vscode.window.showErrorMessage(saveError, 'Open setting').then((c) => c && vscode.commands.executeCommand('workbench.action.openSettings', HISTORY_FOLDER_SETTING));
    }
    if (crashed) {
      void ctx.showError(`${crashMessage(this.job, outcome, run.status === 'failed' && outcome.run === null && outcome.exitCode === 0)}${kept ? '' : ' Nothing is saved in History: it had no kernel case and no pool yet.'}`);
    } else if (run.status === 'cancelled') {
      void vscode.window.showInformationMessage(benchCancelledMessage(name, run));
    } else if (saveError === null) {
      const wasm = wasmBuildNote(run.environment, this.job);
      const message = finishedMessage(this.job, name, run, wasm);
      // No "Open dashboard" when it is open already.
      if (ctx.dashboard.isOpen) void vscode.window.showInformationMessage(message);
      else void vscode.window.showInformationMessage(message, 'Open dashboard').then((c) => c && ctx.dashboard.show(false));
    }
    return id === null ? null : run;
  }
}
