/**
 * "Run sweep": a profile's `sweep:` block through the runner, `attnscope sweep <file> --events`,
 * spawned as every run is (extension/runInFlight.ts RunInFlight, runLaunch.ts launchFor)
 * in the file's workspace folder, so its points and report go to the CLI's default results
 * folder, .attnscope/sweeps/<profile>-<sweep id>/, where "Open sweep results" looks. A progress
 * notification counts the points saved and names the running points' values; Cancel ends the runner with
 * SIGTERM (it stops its workers and exits 130; SIGKILL only after SWEEP_KILL_AFTER_MS): the points
 * written stay, and running the sweep again resumes from them. The finished report opens in the
 * dashboard's Sweep view. Bad input (a bad axis value, a point that cannot run here) is the CLI's
 * file:line:col: a diagnostic there and a toast that goes to it.
 */
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { EXIT_BAD_INPUT, type RunnerSweepBusyEvent } from '../core/protocol/runner';
import type { SweepReport } from '../core/protocol/sweep';
import type { SweepRunStatus } from '../core/protocol/webview';
import type { RunnerOutcome } from '../core/runnerProcess';
import type { Ctx } from './ctx';
import { EDITOR_RUN_UI, launchFor, launchSettingsRefused } from './runLaunch';
import { RunInFlight } from './runInFlight';
import { crashMessage } from './refusal';
import { EXAMPLE_SWEEP_BLOCK, hasNoSweepBlock, noSweepMessage, sweepBusyMessage, sweepEndMessage, sweepInputError, sweepInterruptedMessage, sweepProgressMessage, sweepRefusalMessage, type SweepInputError } from './sweepMessages';
import { readSweepReport } from './sweepReports';

/**
 * SIGTERM's grace before SIGKILL: the sweep passes SIGTERM to its workers, which stop within a
 * simulation slice (~50 ms) or a kernel task, and exits 130 once they have; a kill before that
 * would leave the workers running without it.
 */
const SWEEP_KILL_AFTER_MS = 10_000;

/**
 * Opens the dashboard's Sweep view on `report`, read from `file`; a reopened dashboard or reloaded
 * window shows it again (Dashboard.showSweep). `preserveFocus` for a sweep that ended on its own:
 * the keyboard stays where the user is typing.
 */
export function showSweep(ctx: Ctx, report: SweepReport, file: string, preserveFocus = false, ended = false): void {
  ctx.dashboard.showSweep(report, file, preserveFocus, ended);
}

/**
 * "Run sweep" on a profile with no `sweep:` block (sweepMessages.ts hasNoSweepBlock, on the text
 * the editor shows, else the file): nothing starts (no "running" state); an error says what to add,
 * and for a YAML profile its Add example block appends EXAMPLE_SWEEP_BLOCK, saves the file and shows
 * the block. Resolves true when it refused.
 */
async function noSweepBlockRefused(ctx: Ctx, source: vscode.Uri): Promise<boolean> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === source.toString());
  let text: string;
  try {
    text = open ? open.getText() : new TextDecoder().decode(await vscode.workspace.fs.readFile(source));
  } catch {
    return false; // a file the editor cannot read: the runner says why
  }
  if (!hasNoSweepBlock(text, source.fsPath)) return false;
  const name = basename(source.fsPath);
  const json = source.fsPath.toLowerCase().endsWith('.json');
  const message = noSweepMessage(name, json);
  ctx.log.warn(message);
  const add = 'Add example block';
  void vscode.window.showErrorMessage(message, ...(json ? [] : [add])).then(async (choice) => {
    if (choice !== add) return;
    const doc = await vscode.workspace.openTextDocument(source);
    const end = doc.lineAt(doc.lineCount - 1).range.end;
    const lead = doc.getText().length === 0 || doc.getText().endsWith('\n') ? '' : '\n';
    const edit = new vscode.WorkspaceEdit();
    edit.insert(source, end, lead + EXAMPLE_SWEEP_BLOCK);
    if (!(await vscode.workspace.applyEdit(edit))) return;
    await doc.save();
    const editor = await vscode.window.showTextDocument(doc);
    const first = doc.lineCount - 1 - EXAMPLE_SWEEP_BLOCK.split('\n').length + 1;
    const range = new vscode.Range(first, 0, doc.lineCount - 1, 0);
    editor.selection = new vscode.Selection(range.start, range.end);
    editor.revealRange(range);
  });
  return true;
}

export class SweepRun extends RunInFlight<SweepReport | null> {
  readonly job = 'sweep' as const;
  /** The runner's `sweepBusy` event: another runner of this sweep holds its results folder, so nothing ran. */
  private busy: RunnerSweepBusyEvent | null = null;
  /** The runner's `error` event, placed: bad input it refused before any point ran. */
  private inputError: SweepInputError | null = null;
  /** The last progress: points saved (their files in the results folder) of the total (for a reload's notice). */
  private saved = 0;
  private total = 0;
  /** The results folder (absolute), from the runner's first progress event (RunnerProgressEvent.outDir); null before. */
  private outDir: string | null = null;
  /** Set by interrupt(): the window is going, the runner's end says nothing more. */
  private interrupted = false;

  private constructor(
    private readonly ctx: Ctx,
    readonly source: vscode.Uri,
    readonly name: string,
    private readonly args: readonly string[],
  ) {
    super(EDITOR_RUN_UI, SWEEP_KILL_AFTER_MS);
  }

  /**
   * Runs the sweep of the profile file `source` until the runner ends; resolves with the report shown (null when none).
   * `args`: flags after the file (Resume of a sweep run with --set / --max-rate: sweepReports.ts resumeArgs).
   */
  static async start(ctx: Ctx, source: vscode.Uri, args: readonly string[] = []): Promise<SweepReport | null> {
    if (args.length === 0 && (await noSweepBlockRefused(ctx, source))) return null;
    if (launchSettingsRefused(ctx, source)) return null;
    return new SweepRun(ctx, source, basename(source.fsPath), args).hold(ctx);
  }

  /**
   * A window reload or close: the points written are in the results folder already; the runner is
   * ended (SIGTERM: the points written stay, the running ones are dropped; a rerun resumes). The
   * next window says so once, with a button that runs the sweep again (Dashboard.noticeAfterReload).
   */
  interrupt(): void {
    if (this.interrupted) return;
    this.interrupted = true;
    const folder = this.outDir === null ? '.attnscope/sweeps' : vscode.workspace.asRelativePath(this.outDir);
    this.ctx.dashboard.noticeAfterReload(sweepInterruptedMessage(this.name, this.saved, this.total, folder), this.source.fsPath);
    this.cancel();
  }

  protected async execute(): Promise<SweepReport | null> {
    const { ctx, name } = this;
    const launch = launchFor(ctx, this.source, 'sweep', undefined, this.args);
    ctx.log.info(`sweep ${name}: ${launch.command} ${launch.args.join(' ')}${launch.cwd ? ` (in ${launch.cwd})` : ''}`);
    ctx.sweepProblems.delete(this.source);
    ctx.status.setRun({ name, done: 0, total: 0, verb: 'Sweeping', unit: 'points' });
    // The dashboard's Sweep tab shows the sweep's progress and a Cancel (the notification's own: Commands.cancelRun ends this run).
    if (ctx.settings(this.source).openDashboardOnRun) ctx.dashboard.show(true);
    ctx.dashboard.post({ type: 'sweepStarted', name });
    const outcome = await this.runRunner(`AttnScope: sweep of ${name}`, launch, null, {
      onEvent: (e) => {
        switch (e.type) {
          case 'progress':
            if (e.total > 0) ctx.status.setRun({ name, done: e.done, total: e.total, verb: 'Sweeping', unit: 'points' });
            this.saved = e.saved ?? 0;
            this.total = e.total;
            this.outDir ??= e.outDir ?? null;
            ctx.dashboard.post({ type: 'sweepProgress', done: e.done, total: e.total, message: sweepProgressMessage(e) });
            break;
          case 'sweepPoints':
            // The points saved so far: the Sweep tab shows them under the progress, each added as it lands.
            ctx.dashboard.post({ type: 'sweepPoints', report: e.report });
            break;
          case 'log': {
            ctx.log[e.level](`[runner] ${e.message}`);
            break;
          }
          case 'sweepBusy':
            this.busy = e;
            ctx.log.info(`[runner] ${e.message}`);
            break;
          case 'error':
            this.inputError = sweepInputError(e);
            ctx.log.error(`[runner] ${e.file ? `${e.file}:${e.line ?? 1}:${e.column ?? 1}: ` : ''}${e.message}`);
            break;
          default:
            break;
        }
      },
      onLog: (line) => ctx.log.info(`[runner] ${line}`),
      progressMessage: (e) => sweepProgressMessage(e),
    });
    return this.finish(outcome);
  }

  private async finish(outcome: RunnerOutcome): Promise<SweepReport | null> {
    const { ctx, name } = this;
    if (this.interrupted) return null; // told in the next window (interrupt)
    const how = outcome.signal ? `killed by ${outcome.signal}` : `exit code ${outcome.exitCode}`;
    ctx.log.info(`sweep ${name}: runner ended (${how})${outcome.cancelled ? ' after cancel' : ''}`);
    const end = outcome.sweepEnd;
    if (this.busy) {
      // Another runner (another window, a terminal) runs this sweep: not an error; say where it is and how to follow it.
      const message = sweepBusyMessage(name, this.busy, vscode.workspace.asRelativePath(this.busy.outDir));
      ctx.log.info(message);
      this.ended('refused', message);
      ctx.dashboard.restoreSweepBeforeStart();
      void vscode.window.showInformationMessage(message);
      return null;
    }
    if (!outcome.cancelled && !end && outcome.exitCode === EXIT_BAD_INPUT) {
      this.ended('refused', await this.refused(outcome));
      ctx.dashboard.restoreSweepBeforeStart();
      return null;
    }
    if (end?.cancelled || (outcome.cancelled && !end)) {
      const folder = end ? vscode.workspace.asRelativePath(end.outDir) : '.attnscope/sweeps';
      const message = end
        ? sweepEndMessage(name, end, folder)
        : `AttnScope: sweep of ${name} cancelled (${how}); the points finished before are saved in ${folder}. Run sweep again to resume: it runs only the points not there yet.`;
      ctx.log.info(message);
      this.ended('cancelled', message);
      void vscode.window.showInformationMessage(message);
      // The points kept, merged by the runner into a report marked interrupted: the Sweep tab shows them, with Resume sweep.
      const kept = end?.reportFile ? await readSweepReport(end.reportFile) : null;
      if (kept) showSweep(ctx, kept, end!.reportFile!, true, true);
      return null;
    }
    const report = end?.reportFile ? await readSweepReport(end.reportFile) : null;
    if (!end || !report) {
      const error = end ? `AttnScope: the sweep of ${name} ended, but its report ${end.reportFile ?? '(none)'} could not be read; see the log.` : crashMessage('sweep', outcome, outcome.exitCode === 0);
      this.ended('failed', error);
      // No report of this sweep: the one shown before it, again (a report that could not be read leaves the folder as it was).
      if (!end) ctx.dashboard.restoreSweepBeforeStart();
      await ctx.showError(error);
      return null;
    }
    const message = sweepEndMessage(name, end, vscode.workspace.asRelativePath(end.outDir));
    this.ended('finished', message);
    showSweep(ctx, report, end.reportFile!, true, true);
    ctx.log.info(message);
    if (end.failed.length > 0) {
      for (const f of end.failed) ctx.log.error(`sweep ${name}: point ${f.label} failed: ${f.error}`);
      void vscode.window.showWarningMessage(message, 'Open log').then((c) => c && ctx.log.show(true));
    } else {
      void vscode.window.showInformationMessage(message);
    }
    return report;
  }

  /** Tells the dashboard the sweep ended, and how (its Sweep tab's progress line becomes `message`, its Cancel goes). */
  private ended(status: SweepRunStatus, message: string): void {
    this.ctx.dashboard.post({ type: 'sweepEnded', status, message: message.replace(/^AttnScope: /, '') });
  }

  /**
   * Bad input the runner refused before any point ran: at its file:line:col (an `error` event) a
   * diagnostic, and a toast that says what to do and goes there; else (a refusal with no place,
   * e.g. no kernels for this machine) the runner's line. Resolves with the toast's text.
   */
  private async refused(outcome: RunnerOutcome): Promise<string> {
    const { ctx, name } = this;
    const error = this.inputError;
    if (!error) {
      const line = [...outcome.logTail].reverse().find((l) => l.startsWith('attnscope: ')) ?? outcome.error ?? outcome.logTail.at(-1) ?? 'the runner refused it';
      ctx.log.warn(`sweep ${name}: refused: ${line}`);
      const message = `AttnScope: the sweep of ${name} was not run: ${line.replace(/^attnscope: /, '')}`;
      void vscode.window.showErrorMessage(message);
      return message;
    }
    const uri = vscode.Uri.file(error.file);
    const at = new vscode.Position(Math.max(0, error.line - 1), Math.max(0, error.column - 1));
    let range = new vscode.Range(at, at);
    try {
      const doc = await vscode.workspace.openTextDocument(uri);
      range = doc.getWordRangeAtPosition(at, /[^\s,[\]{}]+/) ?? range;
    } catch {
      // A file the runner named but the editor cannot open: the diagnostic sits at the position alone.
    }
    const diagnostic = new vscode.Diagnostic(range, `sweep not run: ${error.message}`, vscode.DiagnosticSeverity.Error);
    diagnostic.source = 'attnscope sweep';
    ctx.sweepProblems.set(uri, [diagnostic]);
    const where = `${vscode.workspace.asRelativePath(uri)}:${error.line}:${error.column}`;
    ctx.log.warn(`sweep ${name}: refused: ${where}: ${error.message}`);
    const go = `Go to ${basename(error.file)}:${error.line}`;
    // Not awaited: the run ends now, the toast stays until it is dismissed.
    const message = sweepRefusalMessage(name, error, where);
    void vscode.window.showErrorMessage(message, go).then(async (choice) => {
      if (choice !== go) return;
      const editor = await vscode.window.showTextDocument(uri);
      editor.selection = new vscode.Selection(range.start, range.end);
      editor.revealRange(range);
    });
    return message;
  }
}
