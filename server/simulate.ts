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
import type { CancellationToken, WorkDoneProgressServerReporter } from 'vscode-languageserver';
import type { Profile } from '../core/config/types';
import { formatPoolOutcome } from '../core/format';
import type { PoolResult } from '../core/protocol/run';
import { RunnerProcess, runnerLaunch } from '../core/runnerProcess';

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
export async function simulateProfile(runnerPath: string, profile: Profile, name: string, token: CancellationToken, progress: WorkDoneProgressServerReporter | null): Promise<ServerSimulation> {
  const runner = new RunnerProcess(runnerLaunch(runnerPath, process.execPath, { job: 'simulate', quick: false, backend: 'auto' }), profile, {
    onEvent: (e) => {
      if (e.type === 'progress') progress?.report(Math.round((100 * e.done) / Math.max(1, e.total)), e.message);
    },
    onLog: () => undefined,
  });
  token.onCancellationRequested(() => runner.cancel());
  progress?.token.onCancellationRequested(() => runner.cancel());
  progress?.begin(`AttnScope: simulating ${name}`, 0, 'starting', true);
  const o = await runner.done;
  progress?.done();
  const pool = o.run?.pool ?? null;
  if (pool !== null) return { pool, ok: true, message: `AttnScope: simulation of ${name} finished: ${formatPoolOutcome(pool)}.` };
  if (o.cancelled) return { pool: null, ok: false, message: `AttnScope: simulation of ${name} cancelled; nothing saved.` };
  const why = o.error ?? (o.exitCode === 0 ? null : `the runner ended with ${o.signal ?? `exit code ${o.exitCode}`}`) ?? o.logTail.at(-1) ?? 'the runner ended without a result';
  return { pool: null, ok: false, message: `AttnScope: simulation of ${name} did not run: ${why}` };
}
