/**
 * Every command, one factory each: `(ctx) => handler`. Commands that need the language
 * server say why nothing happens while it does not run; benchmark runs are refused in
 * untrusted workspaces (they execute native code) with a way to manage trust.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import * as vscode from 'vscode';
import { CONFIG_NAME, isConfigPath, isProfilePath } from '../core/config/fileKinds';
import { DEFAULT_GPU, GPUS, gpuMemory } from '../core/estimate/gpus';
import { modelLabel } from '../core/modelLabel';
import type { Profile } from '../core/config/types';
import type { Estimate } from '../core/estimate/types';
import { fewAndCount, formatCountOf, formatGib, formatGpuPeaks, formatRunTime, shownFileName } from '../core/format';
import { Commands } from '../core/protocol/lsp';
import type { PoolResult, RunKind, RunResult } from '../core/protocol/run';
import type { SweepReport } from '../core/protocol/sweep';
import type { RunListEntry, TraceRerun } from '../core/protocol/webview';
import { RunnerProcess, type RunnerJob } from '../core/runnerProcess';
import { BenchmarkRun } from './benchmark';
import { busyMessage, jobNoun, noRunsMessage } from './refusal';
import { showSweep, SweepRun } from './sweep';
import type { Ctx } from './ctx';
import { exportRunTo } from './dashboard';
import { findRun, listRunsIn, newestFirst } from './history';
import { acceptedItem, configPickItem, filePickItem, findPickFiles, isTarget, MORE_HOW, morePickItem, PICK_OPTIONS, runPickItems, showThenFill, targetGlob, type TargetKind } from './pick';
import type { PickJob } from '../core/validate';
import { loadSweepReport, namedSkipped, sweepReportsIn, type SweepReportEntry } from './sweepReports';
import { newProfile, newProfileName, servingTensorParallel, type FittingProfile } from './newProfile';
import { currentText, textSha256 } from './profileEdited';
import { launchFor } from './runLaunch';
import { checkVllmLog } from './vllmLog';

type Factory = (ctx: Ctx) => (...args: unknown[]) => unknown;

/** A row of a workspace file pick: a file's (`uri`), or pick.ts morePickItem's (`more`), or a separator. */
type PickItem = vscode.QuickPickItem & { uri?: vscode.Uri; more?: string };

/**
 * The file a command acts on: its argument (code lens, explorer), the active editor's when it is
 * of `kind`, or one picked from the workspace's files of `kind` (a simulation or a sweep: profiles
 * only, as a config.json has no workload or sweep; s33 newcomer-ed: all 41 files were offered).
 * With `job`, the pick shows the files at once and then marks each the command cannot run, with
 * why (core/validate.ts cannotRun, the language server's attnscope/cannotRun), moving them under a
 * separator after the others: broken profiles and encoders were offered to simulate unmarked (s46).
 * Picked anyway, the command refuses it as it does any such file. The pick shows, busy, before the
 * workspace search (pick.ts showThenFill), and lists up to pick.ts PICK_FILE_LIMIT files, the
 * top-level ones first (findPickFiles), with a last row saying so past them.
 */
async function targetFile(arg: unknown, purpose: string, kind: TargetKind, checker?: { ctx: Ctx; job: PickJob }): Promise<vscode.Uri | undefined> {
  if (arg instanceof vscode.Uri) return arg;
  if (typeof arg === 'string' && arg !== '') return vscode.Uri.parse(arg);
  const active = vscode.window.activeTextEditor?.document.uri;
  if (active && isTarget(kind, active.fsPath)) return active;
  const what = kind === 'profile' ? 'profile (*.attn.yaml / *.attn.yml / *.attn.json)' : 'profile (*.attn.yaml / *.attn.json) or config.json';
  type Item = PickItem;
  const pick = vscode.window.createQuickPick<Item>();
  pick.title = `AttnScope: pick a ${kind === 'profile' ? 'profile' : 'profile or config'} to ${purpose}`;
  pick.matchOnDescription = true;
  pick.ignoreFocusOut = PICK_OPTIONS.ignoreFocusOut;
  const picked = acceptedItem(pick, (message) => void vscode.window.showInformationMessage(message));
  const found = await showThenFill(pick, `finding the workspace's ${kind === 'profile' ? 'profiles' : 'profiles and configs'}…`, () =>
    findPickFiles(vscode.workspace.findFiles, targetGlob(kind), (uri) => vscode.workspace.asRelativePath(uri, false)),
  );
  if (!found) {
    pick.dispose();
    return undefined;
  }
  const { files, more } = found;
  if (files.length === 0) {
    pick.dispose();
    const why = kind === 'profile' ? `; a config.json has no \`workload:\` or \`sweep:\` block, a profile that names it (model: ./config.json) does` : '';
    // s40 newcomer-ed: the message knew what was missing and offered no way to make it.
    void vscode.window.showWarningMessage(`AttnScope: no ${what} in this workspace to ${purpose}${why}.`, 'New profile…').then((c) => c && vscode.commands.executeCommand(Commands.newProfile));
    return undefined;
  }
  const items: Item[] = files.map(({ file: uri, relative }) => ({ ...filePickItem(uri.fsPath, relative), uri }));
  pick.items = more ? [...items, morePickItem(kind === 'profile' ? 'profiles' : 'profiles and configs', MORE_HOW.command)] : items;
  if (checker) void markUnrunnable(checker.ctx, checker.job, purpose, pick, items);
  const chosen = await picked;
  pick.dispose();
  return chosen?.uri;
}

/**
 * Marks the files of `pick` that a command of `job` cannot run (core/validate.ts cannotRun, the
 * language server's attnscope/cannotRun of all of them in one request, cancelled when the pick
 * closes), then lists them after a separator, each with why; the pick is busy meanwhile. Nothing
 * is marked when the server is not running (the command says why). 200 profiles at load 20
 * (scripts/bench-lsp.ts --pick-only): 0.63-0.92 s of the server's CPU, 7-44 ms of the extension
 * host's, where 200 resolves (each answering its Profile and Estimate, 1.6 MB in all) took
 * 0.88-1.55 s and 208-325 ms (s48); 10-20 ms of the server's CPU for files it answered before or
 * its background pass did (s49: server/workspace.ts closedFileReasons, server/pickPrefill.ts).
 */
async function markUnrunnable(ctx: Ctx, job: PickJob, purpose: string, pick: vscode.QuickPick<PickItem>, items: readonly PickItem[]): Promise<void> {
  const server = await ctx.server();
  if ('whyNot' in server) return;
  pick.busy = true;
  const why = new Map<vscode.QuickPickItem, string>();
  let open = true;
  const stop = new vscode.CancellationTokenSource();
  const closed = pick.onDidHide(() => {
    open = false;
    stop.cancel();
  });
  try {
    const reasons = await ctx.cannotRun(server.client, items.map((i) => i.uri!), job, stop.token).catch(() => null);
    if (!open || reasons === null) return;
    items.forEach((item, i) => {
      const reason = reasons[i];
      if (typeof reason === 'string') why.set(item, reason);
    });
    if (why.size === 0) return;
    pick.keepScrollPosition = true;
    pick.items = [
      ...items.filter((i) => !why.has(i)),
      { label: `cannot ${purpose}`, kind: vscode.QuickPickItemKind.Separator },
      ...items.filter((i) => why.has(i)).map((i) => ({ ...i, detail: `$(error) ${why.get(i)}` })),
      ...pick.items.filter((i) => i.uri === undefined), // targetFile's "only the first N" row, still last
    ];
  } finally {
    closed.dispose();
    stop.dispose();
    if (open) pick.busy = false;
  }
}

/**
 * Resolves `uri` through the server; shows why when it cannot. An error in the file (or a
 * config.json it reads) is shown where the diagnostics already show it, not in a toast: VS Code
 * keeps an error toast on screen after the file is fixed, where it read as still true (s43
 * newcomer-ed L7). The Problems panel opens on it, and a run's refusal (`job`) is the open
 * dashboard's status, as a runner's refusal is; both go when the error does (the next run).
 */
async function resolve(ctx: Ctx, uri: vscode.Uri, purpose: string, job?: RunKind): Promise<{ profile: Profile; estimate: Estimate } | undefined> {
  const server = await ctx.server();
  if ('whyNot' in server) {
    void vscode.window.showWarningMessage(`AttnScope cannot ${purpose}: ${server.whyNot}.`, 'Open log').then((c) => c && ctx.log.show(true));
    return undefined;
  }
  await vscode.workspace.openTextDocument(uri); // the server resolves open documents (unsaved edits count)
  const result = await ctx.resolveProfile(server.client, uri);
  if (!result.profile || !result.estimate) {
    const error = result.problems.find((p) => p.severity === 'error');
    const first = error ?? result.problems[0];
    const reason = `AttnScope cannot ${purpose} ${basename(uri.fsPath)}: ${first?.message ?? 'the file does not describe a model'}`;
    ctx.log.warn(reason);
    if (error) {
      if (job && ctx.dashboard.isOpen) {
        ctx.dashboard.post({ type: 'runStarted', name: basename(uri.fsPath), total: 0, kind: job });
        ctx.dashboard.post({ type: 'runRefused', reason: `${error.message} (the Problems panel shows where)` });
      }
      await vscode.commands.executeCommand('workbench.actions.view.problems');
      return undefined;
    }
    // Nothing located to show (the file describes no model): said here.
    const choice = await vscode.window.showErrorMessage(reason, 'Show problems');
    if (choice) await vscode.commands.executeCommand('workbench.actions.view.problems');
    return undefined;
  }
  return { profile: result.profile, estimate: result.estimate };
}

/**
 * The user's pick of saved runs (`many`: exactly two, older first). Files of the history folder
 * that are no readable run are listed after the runs, each with why (as under the dashboard's
 * History list), not only logged; picking one says it cannot be opened.
 */
async function pickRuns(ctx: Ctx, title: string, many: boolean): Promise<RunListEntry[] | undefined> {
  const places = ctx.historyPlaces();
  const { runs, skipped } = await listRunsIn(places);
  for (const s of skipped) ctx.log.warn(`history: skipped ${s}`);
  if (runs.length < (many ? 2 : 1)) {
    // Counted, the first few named: each is in the output log (40 of them made a message of ~3,800 characters).
    const named = fewAndCount(skipped, 3) + (skipped.length > 3 ? ', each in the AttnScope output log' : '');
    const unreadable = skipped.length > 0 ? ` (${skipped.length} unreadable: ${named})` : '';
    const folders = (vscode.workspace.workspaceFolders ?? []).length === 0 ? null : places.map((p) => vscode.workspace.asRelativePath(p.path));
    void vscode.window.showInformationMessage(noRunsMessage(many, folders, unreadable));
    return undefined;
  }
  type Item = vscode.QuickPickItem & { run?: RunListEntry };
  const rows = runPickItems(runs);
  const items: Item[] = runs.map((r, i) => ({ ...rows[i]!, run: r }));
  if (skipped.length > 0) {
    items.push({ label: 'unreadable files in the history folder', kind: vscode.QuickPickItemKind.Separator });
    // skipReason's `<file>: <why>`; the file name has no ': ' (run ids and .json names do not).
    for (const s of skipped) items.push({ label: `$(warning) ${s.slice(0, s.indexOf(': '))}`, description: `unreadable: ${s.slice(s.indexOf(': ') + 2)}` });
  }
  const refuse = (picked: Item[]): boolean => {
    const bad = picked.filter((p) => !p.run);
    if (bad.length > 0) void vscode.window.showWarningMessage(`AttnScope: ${bad.map((b) => `${b.label.replace('$(warning) ', '')} is ${b.description}`).join('; ')}.`);
    return bad.length > 0;
  };
  if (!many) {
    const one = await vscode.window.showQuickPick(items, { ...PICK_OPTIONS, title, matchOnDescription: true });
    return one && !refuse([one]) ? [one.run!] : undefined;
  }
  const picked = await vscode.window.showQuickPick(items, { ...PICK_OPTIONS, title, canPickMany: true, matchOnDescription: true });
  if (!picked || refuse(picked)) return undefined;
  if (picked.length !== 2) {
    void vscode.window.showWarningMessage(`AttnScope: pick exactly two runs to compare (picked ${picked.length}).`);
    return undefined;
  }
  // Older run first: it is the baseline.
  return picked.map((p) => p.run!).sort((a, b) => newestFirst(b, a));
}

/**
 * True, after saying why, when `job` may not start now: in an untrusted workspace (runs execute
 * native code; with a way to manage trust) or while another run is in flight (with a way to
 * cancel that one).
 */
async function runRefused(ctx: Ctx, arg: unknown, job: RunnerJob): Promise<boolean> {
  if (!vscode.workspace.isTrusted) {
    const what = job === 'simulate' ? 'serving simulations' : job === 'sweep' ? 'sweeps' : 'benchmarks';
    const choice = await vscode.window.showWarningMessage(
      `AttnScope runs ${what} (native code) only in trusted workspaces. Validation and hints keep working here.`,
      'Manage Workspace Trust',
    );
    if (choice) await vscode.commands.executeCommand('workbench.trust.manage');
    return true;
  }
  if (ctx.activeRun) {
    // Named without a picker: the file passed, else the active editor's.
    const asked = arg instanceof vscode.Uri ? arg : typeof arg === 'string' && arg !== '' ? vscode.Uri.parse(arg) : vscode.window.activeTextEditor?.document.uri;
    const running = ctx.activeRun;
    const choice = await vscode.window.showWarningMessage(busyMessage(running, job, asked ? basename(asked.fsPath) : null), `Cancel the ${running.job === 'simulate' ? 'simulation' : jobNoun(running.job)}`);
    if (choice) running.cancel();
    return true;
  }
  return false;
}

/**
 * Starts `job` on the file of `arg` (or the active / a picked one): refused in untrusted
 * workspaces (native code) and while another run is in flight; a simulation needs a `workload`.
 * `replay`: a simulation replays that trace (the dashboard's Run button on a run that did).
 */
async function startRun(ctx: Ctx, arg: unknown, job: RunKind, replay?: TraceRerun): Promise<void> {
  const verb = job === 'simulate' ? 'simulate' : 'benchmark';
  if (await runRefused(ctx, arg, job)) return;
  const uri = await targetFile(arg, verb, job === 'simulate' ? 'profile' : 'model', { ctx, job });
  if (!uri) return;
  const resolved = await resolve(ctx, uri, verb, job);
  if (!resolved) return;
  if (job === 'simulate' && resolved.profile.workload === null) {
    void vscode.window.showWarningMessage(
      `AttnScope: ${basename(uri.fsPath)} has no workload to simulate: add a \`workload:\` block to a profile (requests, arrival_rate, prompt_len, output_len, max_num_seqs, max_model_len).`,
    );
    return;
  }
  // The server resolves an open document's text: a dirty one's run is of text the file does not hold (s41 newcomer-ed F9).
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  const unsaved = doc?.isDirty === true;
  // The text run, by its hash: the dashboard says when the profile is edited after this (RunResult.sourceSha256).
  // And of the model's config.json the profile names (not the profile itself: a bare config.json run), as the dashboard's note reads it (profileEdited.ts currentText).
  const config = resolved.profile.modelPath;
  const configText = config !== null && config !== uri.fsPath ? currentText(config, (path) => vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === path)?.getText()) : null;
  await BenchmarkRun.start(ctx, uri, job, resolved.profile, resolved.estimate, replay, unsaved, {
    ...(doc ? { sourceSha256: textSha256(doc.getText()) } : {}),
    ...(typeof configText === 'string' ? { modelSha256: textSha256(configText) } : {}),
  });
}

/**
 * The profile's sweep (`attnscope sweep <profile> --events`): the file of `arg` (the code lens
 * on its `sweep:` key), else the active or a picked profile; refused as every run is (trust, one
 * at a time). The runner reads the file, so unsaved edits are saved first. A second argument, a
 * list of strings, are flags after the file (the dashboard's Resume of a sweep run with --set:
 * sweepReports.ts resumeArgs).
 */
const runSweep: Factory = (ctx) => async (arg, flags) => {
  if (await runRefused(ctx, arg, 'sweep')) return;
  const uri = await targetFile(arg, 'sweep', 'profile', { ctx, job: 'sweep' });
  if (!uri) return;
  if (!isProfilePath(uri.fsPath)) {
    void vscode.window.showWarningMessage(`AttnScope: ${basename(uri.fsPath)} is no profile: a sweep is a profile's \`sweep:\` block (*.attn.yaml / *.attn.json, e.g. sweep: { axes: { kv_cache.page_size: [16, 32] } }).`);
    return;
  }
  const doc = await vscode.workspace.openTextDocument(uri);
  if (doc.isDirty && !(await doc.save())) {
    void vscode.window.showWarningMessage(`AttnScope: ${basename(uri.fsPath)} could not be saved; the sweep reads the file, so it was not started.`);
    return;
  }
  await SweepRun.start(ctx, uri, Array.isArray(flags) && flags.every((f) => typeof f === 'string') ? flags : []);
};

const runBenchmark: Factory = (ctx) => (arg) => startRun(ctx, arg, 'bench');

/**
 * The serving simulation alone (`attnscope simulate`): the pool, latency and goodput on the modelled step time, no kernel timed.
 * A second argument (the dashboard's, TraceRerun) replays that trace instead of drawing the profile's workload.
 */
const runSimulation: Factory = (ctx) => (arg, replay) => startRun(ctx, arg, 'simulate', isTraceRerun(replay) ? replay : undefined);

/** `x` is a TraceRerun (a command's argument may be anything a caller passes). */
function isTraceRerun(x: unknown): x is TraceRerun {
  const r = x as TraceRerun | null | undefined;
  return typeof r === 'object' && r !== null && typeof r.timeScale === 'number' && typeof r.trace?.resolvedPath === 'string' && typeof r.trace.format === 'string';
}

const cancelRun: Factory = (ctx) => () => {
  if (!ctx.activeRun) {
    void vscode.window.showInformationMessage('AttnScope: nothing is running.');
    return;
  }
  ctx.activeRun.cancel();
};

const openDashboard: Factory = (ctx) => () => {
  ctx.dashboard.show(false);
};

const showMemoryBreakdown: Factory = (ctx) => async (arg) => {
  const uri = await targetFile(arg, 'show the memory of', 'model', { ctx, job: 'estimate' });
  if (!uri) return;
  const resolved = await resolve(ctx, uri, 'estimate the memory of');
  if (!resolved) return;
  ctx.dashboard.show(false);
  ctx.dashboard.post({ type: 'showEstimate', name: shownFileName(uri.fsPath), profile: resolved.profile, estimate: resolved.estimate });
};

const compareRuns: Factory = (ctx) => async () => {
  const pair = await pickRuns(ctx, 'AttnScope: pick two runs to compare (the older is the baseline)', true);
  if (!pair) return;
  const folders = ctx.historyPlaces().map((p) => p.path);
  const [a, b]: RunResult[] = await Promise.all(pair.map(async (r) => (await findRun(folders, r.id)).run));
  ctx.dashboard.show(false);
  ctx.dashboard.post({ type: 'compare', a: a!, b: b!, aId: pair[0]!.id, bId: pair[1]!.id });
};

const exportRun: Factory = (ctx) => async () => {
  const picked = await pickRuns(ctx, 'AttnScope: pick a run to export', false);
  if (!picked) return;
  const format = await vscode.window.showQuickPick(
    [{ label: 'JSON', description: 'the full run (schema 1)', format: 'json' as const }, { label: 'CSV', description: 'one row per kernel case', format: 'csv' as const }],
    { ...PICK_OPTIONS, title: 'AttnScope: export as' },
  );
  if (!format) return;
  const { run, folder } = await findRun(ctx.historyPlaces().map((p) => p.path), picked[0]!.id);
  await exportRunTo(ctx, run, picked[0]!.id, format.format, folder);
};

/**
 * Opens a sweep's merged report (sweep-report.json, which `attnscope sweep`, `merge` and
 * `submit --wait` write) in the dashboard's Sweep tab: the argument, else the sweeps under the
 * .attnscope/sweeps of every workspace folder (one: opened; several: picked by name and points), else a file
 * or results folder picked. A folder without a report of its own opens the reports of its
 * subfolders the same way (`attnscope sweep` writes each one level down).
 */
const openSweepResults: Factory = (ctx) => async (arg) => {
  const show = (report: SweepReport, file: string): void => showSweep(ctx, report, file);
  /** The report of a listed entry, read now (the list reads no rows); one that became unreadable since is said. */
  const open = async (entry: SweepReportEntry): Promise<void> => {
    try {
      show(await loadSweepReport(entry.file), entry.file);
    } catch (err) {
      void vscode.window.showWarningMessage(`AttnScope: ${vscode.workspace.asRelativePath(entry.file)}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  /** The reports a listing left out, each `<file>: <why>` (a report over the editor's size was left out silently: s45 N9). */
  const saySkipped = (skipped: readonly string[]): void => {
    if (skipped.length === 0) return;
    const named = namedSkipped(skipped, (file) => vscode.workspace.asRelativePath(file));
    void vscode.window.showWarningMessage(`AttnScope: ${formatCountOf(skipped.length, 'sweep report')} not listed: ${fewAndCount(named, 3)}`);
  };
  /** One report: it; several: the user's pick (or Browse); none: undefined. */
  const choose = async (entries: SweepReportEntry[], browse: boolean): Promise<SweepReportEntry | 'browse' | undefined> => {
    if (entries.length === 1) return entries[0];
    const items: Array<vscode.QuickPickItem & { entry?: SweepReportEntry }> = entries.map((e) => ({
      label: e.label,
      description: `${e.points} ${e.points === 1 ? 'point' : 'points'} · ${formatRunTime(e.createdAt)}`,
      entry: e,
    }));
    if (browse) items.push({ label: 'Browse…', description: 'another report or results folder' });
    const picked = await vscode.window.showQuickPick(items, { ...PICK_OPTIONS, title: 'AttnScope: open sweep results' });
    return picked === undefined ? undefined : (picked.entry ?? 'browse');
  };
  let uri = arg instanceof vscode.Uri ? arg : undefined;
  const defaultFolders = ctx.sweepsFolders();
  if (!uri && defaultFolders.length > 0) {
    // Every workspace folder's sweeps, newest first, labelled with their folder's name when there are several.
    const lists = await Promise.all(defaultFolders.map(async ({ uri: f, label }) => {
      const { entries, skipped } = await sweepReportsIn(f.fsPath);
      return { entries: entries.map((e) => (label === undefined ? e : { ...e, label: `${label}: ${e.label}` })), skipped };
    }));
    const entries = lists.flatMap((l) => l.entries).sort(newestFirst);
    saySkipped(lists.flatMap((l) => l.skipped));
    if (entries.length > 0) {
      const chosen = await choose(entries, true);
      if (chosen === undefined) return;
      if (chosen !== 'browse') return open(chosen);
    }
  }
  if (!uri) {
    const picked = await vscode.window.showOpenDialog({
      title: 'AttnScope: open a sweep report (sweep-report.json) or a results folder',
      canSelectFiles: true,
      canSelectFolders: true,
      canSelectMany: false,
      filters: { 'Sweep report': ['json'] },
      ...(defaultFolders[0] ? { defaultUri: defaultFolders[0].uri } : {}),
    });
    uri = picked?.[0];
  }
  if (!uri) return;
  const stat = await vscode.workspace.fs.stat(uri);
  if (stat.type & vscode.FileType.Directory) {
    const { entries, skipped } = await sweepReportsIn(uri.fsPath);
    saySkipped(skipped);
    if (entries.length === 0) {
      if (skipped.length === 0) void vscode.window.showWarningMessage(`AttnScope: no readable sweep report in ${vscode.workspace.asRelativePath(uri)} or its subfolders: run \`attnscope merge ${vscode.workspace.asRelativePath(uri)}\` first.`);
      return;
    }
    const chosen = await choose(entries, false);
    if (chosen !== undefined && chosen !== 'browse') await open(chosen);
    return;
  }
  let report: SweepReport;
  try {
    report = await loadSweepReport(uri.fsPath);
  } catch (err) {
    void vscode.window.showWarningMessage(`AttnScope: ${vscode.workspace.asRelativePath(uri)} is not a readable sweep report (attnscope merge writes one): ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  show(report, uri.fsPath);
};

const showLog: Factory = (ctx) => () => ctx.log.show(true);

/**
 * A first profile for a model: its config.json (the argument, the active editor's, or one picked
 * from the workspace or browsed to), a GPU picked from the table the estimate uses, written as
 * `<model>.attn.yaml` beside the model's folder (as examples/ lays them out; inside the config's
 * folder when that is a workspace folder's root) with the smallest tensor_parallel_size that
 * holds it and whose simulation of the file's own workload keeps up and meets its SLO
 * (extension/newProfile.ts servingTensorParallel: the runner's `simulate -` per size, under a
 * cancellable notification; Cancel writes nothing), and opened, so that its hints show at once.
 */
const newProfileCommand: Factory = (ctx) => async (arg) => {
  const configUri = await pickConfig(arg);
  if (!configUri) return;
  // The model's name (its _name_or_path, else its file's or folder's): the GPU prompt and the file written.
  const label = modelLabel({ modelPath: configUri.fsPath } as Pick<Profile, 'modelPath' | 'model'>);
  const gpu = await vscode.window.showQuickPick(
    [...GPUS].sort((a, b) => Number(b.name === DEFAULT_GPU) - Number(a.name === DEFAULT_GPU)).map((g) => ({
      label: g.name,
      description: `${formatGib(gpuMemory(g).bytes)} · ${formatGpuPeaks(g)}`,
    })),
    { ...PICK_OPTIONS, title: `AttnScope: which GPU serves ${label}?`, placeHolder: 'device.gpu: memory as CUDA reports it, datasheet bandwidth and dense bf16 peak' },
  );
  if (!gpu) return;
  const configPath = configUri.fsPath;
  const root = vscode.workspace.getWorkspaceFolder(configUri)?.uri.fsPath;
  // A model folder's config.json: the profile beside the folder, unless the folder is the
  // workspace's root (or outside it); an `X.config.json`: beside it.
  const modelFolder = dirname(configPath);
  const inside = root !== undefined && relative(root, modelFolder) !== '' && !relative(root, modelFolder).startsWith('..');
  const folder = basename(configPath).toLowerCase() === CONFIG_NAME && inside ? dirname(modelFolder) : modelFolder;
  const taken = new Set((await vscode.workspace.fs.readDirectory(vscode.Uri.file(folder))).map(([name]) => name));
  const profilePath = join(folder, newProfileName(label, (n) => taken.has(n)));
  const readFile = (p: string): string | null => {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === p);
    if (open) return open.getText();
    try {
      return readFileSync(p, 'utf8');
    } catch {
      return null;
    }
  };
  const made = newProfile({ profilePath, configPath, gpu: gpu.label }, { readFile });
  if ('error' in made) {
    void vscode.window.showErrorMessage(`AttnScope cannot write a profile for ${vscode.workspace.asRelativePath(configUri)}: ${made.error}`);
    return;
  }
  const target = vscode.Uri.file(profilePath);
  // The serving check: each tensor_parallel_size that holds the weights, smallest first, simulated
  // by the runner (as the file's own lens runs it) until one keeps up and meets the SLO.
  const chosen = made.fitting.length === 0
    ? made
    : await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'AttnScope: New profile', cancellable: true }, (progress, token) => {
          // One runner `simulate -` of a size's profile (`--max-rate`: its capacity search); null when cancelled.
          const run = (f: FittingProfile, what: string, args?: string[]) => new Promise<PoolResult | string | null>((resolve) => {
            if (token.isCancellationRequested) return resolve(null);
            progress.report({ message: `${what} at tensor_parallel_size ${f.tensorParallelSize}…` });
            const proc = new RunnerProcess(launchFor(ctx, target, 'simulate', args), f.profile, { onEvent: () => undefined, onLog: () => undefined });
            const cancel = token.onCancellationRequested(() => proc.cancel());
            void proc.done.then((o) => {
              cancel.dispose();
              const pool = o.run?.pool;
              resolve(o.cancelled ? null : pool && o.run?.status === 'ok' ? pool : `the simulation failed (${o.error ?? o.logTail.at(-1) ?? `exit code ${o.exitCode}`})`);
            });
          });
          return servingTensorParallel(made, (f) => run(f, 'simulating its workload'), (f) => run(f, 'searching the highest rate served', ['--max-rate']));
      });
  if (chosen === null) {
    // Cancel means "don't": no file (s42 newcomer-ed F1).
    void vscode.window.showInformationMessage(`AttnScope: New profile cancelled; nothing written.`);
    return;
  }
  ctx.log.info(`new profile ${profilePath}: ${chosen.note}`);
  await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(chosen.text));
  await vscode.window.showTextDocument(target);
  void vscode.window.showInformationMessage(`AttnScope: wrote ${vscode.workspace.asRelativePath(target)}; ${chosen.note} Hover a key for its meaning; the lenses above run a benchmark or a simulation.`);
};

/** The config.json "New profile…" writes for: the argument, the active editor's, or a pick (with Browse…). */
async function pickConfig(arg: unknown): Promise<vscode.Uri | undefined> {
  if (arg instanceof vscode.Uri && isConfigPath(arg.fsPath)) return arg;
  const active = vscode.window.activeTextEditor?.document.uri;
  if (active && active.scheme === 'file' && isConfigPath(active.fsPath)) return active;
  const { files: found, more } = await findPickFiles(vscode.workspace.findFiles, `{**/${CONFIG_NAME},**/*.${CONFIG_NAME}}`, (uri) => vscode.workspace.asRelativePath(uri, false));
  const browse: PickItem = { label: '$(folder-opened) Browse…', description: 'a config.json outside this workspace' };
  const pick = vscode.window.createQuickPick<PickItem>();
  pick.title = 'AttnScope: new profile for which model? (its HuggingFace config.json)';
  pick.matchOnDescription = true;
  pick.ignoreFocusOut = PICK_OPTIONS.ignoreFocusOut;
  pick.items = [...found.map(({ file: uri, relative }) => ({ ...configPickItem(uri.fsPath, relative), uri })), ...(more ? [morePickItem('configs', MORE_HOW.newProfile)] : []), browse];
  const accepted = acceptedItem(pick, (message) => void vscode.window.showInformationMessage(message));
  pick.show();
  const picked = await accepted;
  pick.dispose();
  if (!picked) return undefined;
  if (picked.uri) return picked.uri;
  const chosen = await vscode.window.showOpenDialog({ canSelectMany: false, openLabel: 'Use this config', filters: { 'HuggingFace config': ['json'] } });
  return chosen?.[0];
}

const FACTORIES: Record<keyof typeof Commands, Factory> = {
  runBenchmark,
  runSimulation,
  runSweep,
  openDashboard,
  showMemoryBreakdown,
  compareRuns,
  exportRun,
  cancelRun,
  showLog,
  openSweepResults,
  checkVllmLog,
  newProfile: newProfileCommand,
};

/** Registers every command of `Commands`; errors thrown by a handler are shown with the log button. */
export function registerCommands(ctx: Ctx): vscode.Disposable[] {
  return (Object.keys(FACTORIES) as Array<keyof typeof Commands>).map((key) => {
    const handler = FACTORIES[key](ctx);
    return vscode.commands.registerCommand(Commands[key], async (...args: unknown[]) => {
      try {
        return await handler(...args);
      } catch (err) {
        await ctx.showError(`AttnScope: ${Commands[key]} failed: ${err instanceof Error ? err.message : String(err)}`);
        return undefined;
      }
    });
  });
}
