/**
 * "Run serving simulation" for clients without the extension's commands (lenses.ts
 * SERVER_COMMANDS.simulate, through workspace/executeCommand): the server runs `attnscope
 * simulate - --events` on the document's resolved Profile — the bundled runner beside server.js,
 * as a child process, so the server itself never loads native code — reports progress through
 * LSP work-done progress when the client supports it, and ends the runner (SIGTERM) when the
 * client cancels the progress or the request. The caller shows the outcome (window/showMessage):
 * the pool's summary and the modelled latency, or why it did not run. Nothing is saved to the
 * run history (the VS Code extension's command does that).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { CancellationToken, WorkDoneProgressServerReporter } from 'vscode-languageserver';
import type { Profile } from '../core/config/types';
import { formatPoolOutcome } from '../core/format';
import type { PoolResult } from '../core/protocol/run';
import type { RunnerEvent } from '../core/protocol/runner';

/** How a server-run simulation ended. */
export interface ServerSimulation {
  /** The run's pool (summary, latency, samples); null when it did not finish. */
  pool: PoolResult | null;
  /** One line for window/showMessage. */
  message: string;
  /** True when it finished. */
  ok: boolean;
}

/**
 * Simulates `profile` (named `name` in messages) with the runner at `runnerPath` (a .js file run
 * by this Node). `progress`: the client's work-done progress, begun here (cancellable). Never
 * rejects: a runner that cannot start, refuses (exit 2) or fails resolves with the reason.
 */
export function simulateProfile(runnerPath: string, profile: Profile, name: string, token: CancellationToken, progress: WorkDoneProgressServerReporter | null): Promise<ServerSimulation> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [runnerPath, 'simulate', '-', '--events'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let pool: PoolResult | null = null;
    let error: string | null = null;
    let cancelled = false;
    const stderr: string[] = [];
    const cancel = (): void => {
      if (cancelled || child.exitCode !== null) return;
      cancelled = true;
      child.kill('SIGTERM');
    };
    token.onCancellationRequested(cancel);
    progress?.token.onCancellationRequested(cancel);
    progress?.begin(`AttnScope: simulating ${name}`, 0, 'starting', true);
    const lines = createInterface({ input: child.stdout!, crlfDelay: Infinity });
    lines.on('line', (line) => {
      let e: RunnerEvent;
      try {
        e = JSON.parse(line) as RunnerEvent;
      } catch {
        return;
      }
      if (e.type === 'progress') progress?.report(Math.round((100 * e.done) / Math.max(1, e.total)), e.message);
      else if (e.type === 'done') pool = e.run.pool ?? null;
      else if (e.type === 'error') error = e.file ? `${e.file}:${e.line ?? 1}:${e.column ?? 1}: ${e.message}` : e.message;
    });
    createInterface({ input: child.stderr!, crlfDelay: Infinity }).on('line', (l) => stderr.push(l));
    const closed = new Promise<void>((r) => lines.on('close', () => r()));
    const finish = (why: string | null): void => {
      progress?.done();
      if (pool !== null) resolve({ pool, ok: true, message: `AttnScope: simulation of ${name} finished: ${formatPoolOutcome(pool)}.` });
      else if (cancelled) resolve({ pool: null, ok: false, message: `AttnScope: simulation of ${name} cancelled; nothing saved.` });
      else resolve({ pool: null, ok: false, message: `AttnScope: simulation of ${name} did not run: ${error ?? why ?? stderr.at(-1) ?? 'the runner ended without a result'}` });
    };
    child.on('error', (err) => finish(`could not start the runner ${runnerPath}: ${err.message}`));
    child.on('exit', (code, signal) => void closed.then(() => finish(code === 0 ? null : `the runner ended with ${signal ?? `exit code ${code}`}`)));
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(JSON.stringify(profile));
  });
}
