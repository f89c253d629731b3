/**
 * One status bar item that shows the language server's health and the benchmark in flight:
 * idle (no profile or config.json opened yet) -> starting (spinner) -> ready; failed/stopped in the error colour (click: open the log);
 * while a run streams, its progress (click: cancel).
 */
import * as vscode from 'vscode';
import { Commands } from '../core/protocol/lsp';
import type { Environment } from '../core/protocol/run';
import { runStatusText, runStatusTooltip, type RunState } from './runStatus';
import { formatCountOf } from '../core/format';

export type { RunState } from './runStatus';

/** 'idle': not started yet, as no profile or config.json has opened (Ctx.startServerWhenServed). */
export type ServerState = { kind: 'idle' } | { kind: 'starting' } | { kind: 'ready' } | { kind: 'stopped'; reason: string } | { kind: 'failed'; reason: string };

export class StatusItem implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private server: ServerState = { kind: 'idle' };
  private run: RunState | null = null;
  private kernels: string | null = null;

  constructor() {
    this.item = vscode.window.createStatusBarItem('attnscope.status', vscode.StatusBarAlignment.Left, 0);
    this.item.name = 'AttnScope';
    this.refresh();
    this.item.show();
  }

  setServer(state: ServerState): void {
    this.server = state;
    this.refresh();
  }

  /** The run in flight, or null when none; a run being cancelled stays so while its progress still comes. */
  setRun(run: RunState | null): void {
    this.run = run !== null && this.run?.cancelling && this.run.name === run.name ? { ...run, cancelling: true } : run;
    this.refresh();
  }

  /** Cancel was pressed: "cancelling…" until the run ends (setRun(null)). */
  setCancelling(): void {
    if (this.run === null) return;
    this.run = { ...this.run, cancelling: true };
    this.refresh();
  }

  /**
   * Notes which build ran the last run's CPU kernels (Environment.nativeBuild): the native addon,
   * or the WebAssembly module and why; shown in the tooltip.
   */
  setLastRunEnvironment(env: Environment | undefined): void {
    if (!env?.nativeBuild) return;
    this.kernels = env.nativeBuild === 'wasm'
      ? `Last run's CPU kernels: WebAssembly module, one thread, ${env.simd} (${env.nativeBuildReason ?? 'ATTNSCOPE_BACKEND=wasm'})`
      : `Last run's CPU kernels: native addon, ${env.simd}, ${formatCountOf(env.threads, 'thread')}`;
    this.refresh();
  }

  private refresh(): void {
    const item = this.item;
    const tooltip = new vscode.MarkdownString('', true);
    tooltip.isTrusted = { enabledCommands: [Commands.showLog, Commands.openDashboard, Commands.cancelRun] };
    item.backgroundColor = undefined;
    if (this.run) {
      item.text = `$(loading~spin) AttnScope ${runStatusText(this.run)}`;
      item.command = this.run.cancelling ? Commands.openDashboard : Commands.cancelRun;
      tooltip.appendMarkdown(`${runStatusTooltip(this.run)}\n\n${this.run.cancelling ? '' : `[Cancel run](command:${Commands.cancelRun}) · `}[Open dashboard](command:${Commands.openDashboard})`);
    } else {
      switch (this.server.kind) {
        case 'idle':
          item.text = '$(pulse) AttnScope';
          item.command = Commands.openDashboard;
          tooltip.appendMarkdown(`The language server starts when a profile (*.attn.yaml) or config.json opens.\n\n[Open dashboard](command:${Commands.openDashboard}) · [Show log](command:${Commands.showLog})`);
          break;
        case 'starting':
          item.text = '$(sync~spin) AttnScope';
          item.command = Commands.showLog;
          tooltip.appendMarkdown('Language server starting…');
          break;
        case 'ready':
          item.text = '$(pulse) AttnScope';
          item.command = Commands.openDashboard;
          tooltip.appendMarkdown('Language server running.\n\n');
          if (this.kernels) tooltip.appendText(`${this.kernels}\n\n`);
          tooltip.appendMarkdown(`[Open dashboard](command:${Commands.openDashboard}) · [Show log](command:${Commands.showLog})`);
          break;
        case 'stopped':
        case 'failed':
          item.text = '$(error) AttnScope';
          item.command = Commands.showLog;
          item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
          tooltip.appendMarkdown(`Language server ${this.server.kind}: ${this.server.reason}\n\n[Show log](command:${Commands.showLog})`);
          break;
      }
    }
    item.tooltip = tooltip;
  }

  dispose(): void {
    this.item.dispose();
  }
}
