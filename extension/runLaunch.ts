/**
 * The editor's side of every run (benchmark.ts BenchmarkRun, sweep.ts SweepRun): which runner
 * to spawn and where (the runnerPath / nodePath settings, the file's workspace folder), the
 * check of those settings before a run starts, and the context key and progress notification
 * that runInFlight.ts RunInFlight drives.
 */
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import { launchSettingsProblem, runnerLaunch, type RunnerJob, type RunnerLaunch } from '../core/runnerProcess';
import type { Ctx } from './ctx';
import type { RunUi } from './runInFlight';

/**
 * The runner to spawn for `job` on `source`: the runnerPath setting, else the bundled
 * dist/runner.js under Node; in `source`'s workspace folder (a sweep: else the file's folder,
 * where its default results folder .attnscope/sweeps then goes). `replay`: a simulation's flags
 * that replay a saved run's trace (core/runnerProcess RunnerOptions.replay).
 */
export function launchFor(ctx: Ctx, source: vscode.Uri, job: RunnerJob, replay?: readonly string[], sweepArgs?: readonly string[]): RunnerLaunch {
  const s = ctx.settings(source);
  const runner = s.runnerPath || vscode.Uri.joinPath(ctx.extension.extensionUri, 'dist', 'runner.js').fsPath;
  // In desktop VS Code the host is Electron, whose ABI the native addon is not built for: use `node` on PATH there.
  const node = s.nodePath || (process.versions['electron'] ? 'node' : process.execPath);
  const folder = vscode.workspace.getWorkspaceFolder(source);
  const launch = runnerLaunch(runner, node, { job, quick: s.quickMode, backend: s.backend, ...(job === 'sweep' ? { file: source.fsPath } : {}), ...(replay ? { replay } : {}), ...(sweepArgs ? { sweepArgs } : {}) });
  return { ...launch, cwd: folder?.uri.fsPath ?? (job === 'sweep' ? dirname(source.fsPath) : undefined) };
}

/**
 * True, with an error that opens the settings, when the runnerPath / nodePath settings name
 * no runner or Node (core/runnerProcess launchSettingsProblem): checked before any run starts.
 */
export function launchSettingsRefused(ctx: Ctx, source: vscode.Uri): boolean {
  // A runnerPath or nodePath written where VS Code ignores it: said (once) as the run starts with the one in force.
  void ctx.sayIgnoredMachineSettings();
  const problem = launchSettingsProblem(ctx.settings(source), vscode.workspace.getWorkspaceFolder(source)?.uri.fsPath);
  if (!problem) return false;
  ctx.log.error(`run not started: ${problem}`);
  const open = 'Open settings';
  void vscode.window.showErrorMessage(`AttnScope: ${problem}.`, open).then((pick) => {
    if (pick === open) void vscode.commands.executeCommand('workbench.action.openSettings', 'attnscope.runnerPath attnscope.nodePath');
  });
  return true;
}

/** The context key `attnscope.running` and a cancellable notification: what a run shows in the editor. */
export const EDITOR_RUN_UI: RunUi = {
  setRunning: (running) => vscode.commands.executeCommand('setContext', 'attnscope.running', running),
  withProgress: (title, task) =>
    vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (progress, token) =>
      task(
        (increment, message) => progress.report({ increment, message }),
        (cancel) => token.onCancellationRequested(cancel),
      ),
    ),
};
