/**
 * Code lenses at the top of every model config and profile. A client that implements the
 * extension's commands (the VS Code extension says so with `clientCommands` in its
 * initializationOptions; ids in core/protocol/lsp.ts) gets "Run attention benchmark", "Run
 * serving simulation" (profiles with a `workload:` key whose pool can be simulated) and "Show memory breakdown", each with
 * the document URI, and "Run sweep" on the line of a profile's `sweep:` key; no benchmark lens for an encoder (bert) or a profile whose case lists plan more than 1,000 cases, which `attnscope bench` refuses. Any other client (Neovim, Helix, ...) gets one
 * lens whose command the server runs itself through workspace/executeCommand (SERVER_COMMANDS):
 * the memory summary, shown with window/showMessage — never a command the client cannot run.
 */
import type { CodeLens } from 'vscode-languageserver';
import { getProperty, sweepTooBig } from '../core/config';
import { formatBytes, formatCount, gpuCount } from '../core/format';
import { Commands } from '../core/protocol/lsp';
import { POOL_NOT_SIMULABLE } from '../core/validate';
import { TOO_MANY_CASES, type Analysis } from './analysis';

/** Commands the server executes (workspace/executeCommand); arguments: [document URI]. */
export const SERVER_COMMANDS = { showEstimate: 'attnscope.server.showEstimate', simulate: 'attnscope.server.simulate' } as const;

/** One line of the memory estimate: weights, KV per token, pool pages and tokens, vLLM's max concurrency; null without an estimate. */
export function estimateSummary(a: Analysis): string | null {
  const e = a.estimate;
  if (e === null) return null;
  // The weights one GPU holds as vLLM loads it (Estimate.weightsBytesPerGpu: the hint's and the CLI's figure; an fp8 MLA checkpoint's bf16 kv_b_proj copies included), as the KV per token beside it.
  const gpu = a.profile !== null && gpuCount(a.profile.device) > 1 ? '/GPU' : '';
  const parts = [`${formatBytes(e.weightsBytesPerGpu)} weights${gpu}`, `${formatBytes(e.kvBytesPerToken)} KV/token${gpu}`];
  if (e.pool.pages > 0) parts.push(`${formatCount(e.pool.pages)} ${e.pool.layout.kind === 'hybrid' || e.pool.layout.kind === 'mamba' ? `blocks of ${e.pool.layout.groupSize} layers` : 'pages'} (${formatCount(e.pool.tokens)} tokens)`, `max concurrency ${e.pool.maxConcurrency.toFixed(2)}x`);
  return parts.join(' · ');
}

/**
 * A profile that writes a `workload:` key (valid or not: the lens stays put while it is edited; the
 * command says what is wrong), unless its pool is one `attnscope simulate` refuses (no pages, too
 * many, an encoder): that warning (POOL_NOT_SIMULABLE) is shown at the key to change instead, or,
 * where it repeats a device-fit warning (core/validate.ts poolCause), that warning.
 */
function hasWorkload(a: Analysis): boolean {
  return a.kind === 'profile' && getProperty(a.tree, 'workload') !== undefined && !a.problems.some((p) => p.code === POOL_NOT_SIMULABLE);
}

/**
 * Where a profile writes a `workload:` whose pool cannot be simulated (POOL_NOT_SIMULABLE): a lens
 * with no command (VS Code draws it as plain text) saying why, the warning's words up to their
 * first colon ("No serving simulation: the KV pool has no pages (see the warning)"), where the
 * lens vanished without a word (s49 newcomer-ed 4). Null otherwise.
 */
function noSimulationLens(a: Analysis, range: CodeLens['range']): CodeLens | null {
  if (a.kind !== 'profile' || getProperty(a.tree, 'workload') === undefined) return null;
  const pool = a.problems.find((p) => p.code === POOL_NOT_SIMULABLE);
  if (pool === undefined) return null;
  return { range, command: { title: `No serving simulation: ${pool.message.split(': ')[0]} (see the warning)`, command: '' } };
}

/**
 * "Run sweep" on the line of a profile's `sweep:` key (written, valid or not: the lens stays put
 * while an axis is edited; the runner says what is wrong), with the points it expands to when
 * the block reads (core/config/sweep.ts, as the points hint). Null without a `sweep:` key or
 * without an axis (Analysis.sweep null): `attnscope sweep` runs nothing then, and the schema's
 * error at the block says what to add (s36: the lens offered "Run sweep · 1 point"). Null too
 * while an axis is empty (0 points: the schema's error at the axis says so) or the sweep has more
 * points than the runner takes (the error sweep-too-big at the block says so; s37 newcomer-ed 4).
 */
function sweepLens(a: Analysis): CodeLens | null {
  const key = a.kind === 'profile' ? getProperty(a.tree, 'sweep') : undefined;
  if (key === undefined || a.sweep === null || a.sweep.points === 0 || sweepTooBig(a.sweep.points) !== null) return null;
  const at = a.document.positionAt(key.keyRange.offset);
  const points = ` · ${formatCount(a.sweep.points)} ${a.sweep.points === 1 ? 'point' : 'points'}`;
  return { range: { start: at, end: at }, command: { title: `Run sweep${points}`, command: Commands.runSweep, arguments: [a.uri] } };
}

/**
 * The lenses of a model config or profile. None for a profile without a `model:` key (empty, a bare
 * word, or keys but no model): every command needs the model, and the error "missing model" says
 * what to write first (s36 newcomer: a file holding only `mod` offered "Run attention benchmark").
 */
export function codeLenses(a: Analysis, clientCommands: boolean): CodeLens[] {
  if (a.kind === 'other' || (a.kind === 'profile' && getProperty(a.tree, 'model') === undefined)) return [];
  const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  if (!clientCommands) {
    const summary = estimateSummary(a);
    return [
      ...(summary === null ? [] : [{ range, command: { title: `AttnScope: ${summary}`, command: SERVER_COMMANDS.showEstimate, arguments: [a.uri] } }]),
      ...(hasWorkload(a) ? [{ range, command: { title: 'AttnScope: run serving simulation', command: SERVER_COMMANDS.simulate, arguments: [a.uri] } }] : []),
    ];
  }
  // An encoder has no causal decode and no KV cache, and case lists of more than 1,000 cases are
  // refused too (the warning TOO_MANY_CASES says so at the list): `attnscope bench` refuses both
  // (runner/preflight.ts, runner/plan.ts planProblems), so no lens offers it.
  const encoder = (a.profile?.model ?? a.model)?.isEncoder === true;
  const refused = encoder || a.problems.some((p) => p.code === TOO_MANY_CASES);
  const sweep = sweepLens(a);
  return [
    ...(refused ? [] : [{ range, command: { title: 'Run attention benchmark', command: Commands.runBenchmark, arguments: [a.uri] } }]),
    ...(hasWorkload(a) ? [{ range, command: { title: 'Run serving simulation', command: Commands.runSimulation, arguments: [a.uri] } }] : []),
    ...[noSimulationLens(a, range)].filter((l) => l !== null),
    { range, command: { title: 'Show memory breakdown', command: Commands.showMemoryBreakdown, arguments: [a.uri] } },
    ...(sweep ? [sweep] : []),
  ];
}
