/**
 * Run history: every run is one JSON file (core/protocol/run.ts RunResult) in the history
 * folder (default <workspace>/.attnscope/runs), saved as `<yyyymmdd-hhmmss>-<name>.json` (any
 * other name of letters, digits, `.`, `_` and `-` is listed too: a run the CLI wrote there), written
 * atomically (temp file in the same folder, then rename) so a crash never leaves half a run.
 * A run's id is its file name without `.json`. No `vscode` import.
 */
import { readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { access, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import type { Profile } from '../core/config/types';
import { MAX_EDITOR_RESULT_TEXT_BYTES, readRegularTextAsync } from '../core/fileText';
import { makeFolder, makeFolderSync } from '../core/makeFolder';
import { machineIdentity } from '../core/machine';
import { isInterrupted, kernelBuildText } from '../core/format';
import type { Estimate } from '../core/estimate/types';
import { createRun, RUN_SCHEMA_VERSION, runKind, type Environment, type KernelCase, type RunKind, type RunOrigin, type RunResult, type RunStatus } from '../core/protocol/run';
import type { RunListEntry } from '../core/protocol/webview';
import { forgetFolder, listFiles } from './listedFiles';
import { distinctRunNames, listedRunName, runSetup } from './runName';
import { runFigure } from '../webview/compare';

/**
 * A run id: a file name of the history folder without `.json`. saveRun names runs
 * `<yyyymmdd-hhmmss>-<name>`, but any run file is listed (the CLI's `--json .attnscope/runs/cli-001.json`
 * too: s37 newcomer-ed 3); an id is one path component (no separator, no leading dot), so an id
 * from the webview never leaves the folder.
 */
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** `2026-11-29T14:05:33.120Z` + `Llama-3.1-8B.attn.yaml` -> `20261129-140533-Llama-3.1-8B.attn`. */
export function runId(createdAt: string, name: string): string {
  const d = new Date(createdAt);
  const t = Number.isNaN(d.getTime()) ? new Date() : d;
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  const stamp = `${p(t.getUTCFullYear(), 4)}${p(t.getUTCMonth() + 1)}${p(t.getUTCDate())}-${p(t.getUTCHours())}${p(t.getUTCMinutes())}${p(t.getUTCSeconds())}`;
  const safe = name.replace(/\.(ya?ml|json)(?=$| )/gi, '').replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(0, 80) || 'run';
  return `${stamp}-${safe}`;
}

/** The id `run` gets in a folder holding `existing` files: runId, with `-2`, `-3`, ... after the time when taken. */
function freeId(run: RunResult, existing: ReadonlySet<string>): string {
  const base = runId(run.createdAt, run.name);
  let id = base;
  for (let n = 2; existing.has(`${id}.json`); n++) id = base.replace(/^([0-9]{8}-[0-9]{6})/, `$1-${n}`);
  return id;
}

/**
 * The folder the CLI ran in when it wrote a run into history folder `folder` (`--json
 * .attnscope/runs/x.json`: two up from it), which the run's relative paths are relative to;
 * undefined for another folder (the attnscope.historyFolder setting), where none is known.
 */
function cliFolder(folder: string): string | undefined {
  const parts = folder.split(/[\\/]/);
  return parts.at(-1) === 'runs' && parts.at(-2) === '.attnscope' ? dirname(dirname(folder)) : undefined;
}

/** The temp file a run is written to before it is renamed to `<id>.json`. */
function tempPath(folder: string, id: string): string {
  return join(folder, `.${id}.${process.pid}.${Date.now()}.tmp`);
}

const runText = (run: RunResult): string => JSON.stringify(run, null, 1) + '\n';

/**
 * Writes `run` into `folder` (made with its missing parents) atomically and returns its id. Two
 * runs in the same second get `-2`, `-3`, ... suffixes instead of overwriting each other. Rejects
 * with the file system's error when the folder cannot be made or written (core/makeFolder.ts: a
 * folder under /proc rejects, where Node's recursive mkdir never settled).
 */
export async function saveRun(folder: string, run: RunResult): Promise<string> {
  await makeFolder(folder);
  const id = freeId(run, new Set(await readdir(folder)));
  const tmp = tempPath(folder, id);
  try {
    await writeFile(tmp, runText(run), 'utf8');
    await rename(tmp, join(folder, `${id}.json`));
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  return id;
}

/**
 * saveRun, synchronously: for the extension's deactivate(), where the host of a reloading
 * window does not wait for promises (a run in flight is saved there, extension/benchmark.ts
 * BenchmarkRun.interrupt). Throws what the file system throws.
 */
export function saveRunSync(folder: string, run: RunResult): string {
  makeFolderSync(folder);
  const id = freeId(run, new Set(readdirSync(folder)));
  const tmp = tempPath(folder, id);
  try {
    writeFileSync(tmp, runText(run), 'utf8');
    renameSync(tmp, join(folder, `${id}.json`));
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  return id;
}

/**
 * Why a file of the history folder is no run, in a few words: `loadRun`'s error (a name that is
 * no run id, JSON that does not parse, JSON that is no schema-1 run, a read error).
 */
function skipReason(err: unknown): string {
  if (err instanceof RangeError) return 'a name no run id takes (letters, digits, ".", "_" and "-", not first a "." or "-")';
  if (err instanceof SyntaxError) return `not JSON (${err.message})`;
  if (err instanceof TypeError) return `not an AttnScope run (schema ${RUN_SCHEMA_VERSION} with a name and cases)`;
  return err instanceof Error ? err.message : String(err);
}

/**
 * Saved runs, newest first. Files that are not readable runs are skipped, each named in
 * `skipped` as `<file>: <why>` (shown as a note under the history list). A file unchanged since
 * the last listing of its folder, by this extension host or the last one (same inode, size and
 * modification time: saveRun writes a new file and renames it over; listedFiles.ts), is not read
 * again: History is listed after every run saved, by the save and again by the folder's watcher
 * (dashboard.ts watchHistory), and a simulation's file is MBs with its pool samples.
 */
export async function listRuns(folder: string): Promise<{ runs: RunListEntry[]; skipped: string[] }> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    forgetFolder('runs', folder);
    return { runs: [], skipped: [] };
  }
  const files = names.filter((name) => name.endsWith('.json') && !name.startsWith('.'));
  const { entries: runs, skipped } = await listFiles(
    'runs',
    folder,
    files,
    (name) => join(folder, name),
    async (name): Promise<RunListEntry> => {
      const id = name.slice(0, -'.json'.length);
      const run = await loadRun(folder, id);
      return { id, name: listedRunName(run, cliFolder(folder)), setup: runSetup(run), createdAt: run.createdAt, status: run.status, ...(run.poolCancelled ? { poolCancelled: run.poolCancelled } : {}), ...(isInterrupted(run) ? { interrupted: true as const } : {}), cases: run.cases.length, ...(runKind(run) === 'simulate' && run.pool ? { requests: run.pool.summary.requests } : {}), kind: runKind(run), build: run.environment ? kernelBuildText(run.environment, run.cases) : '', ...withFigure(runFigure({ ...run, kind: runKind(run) })), ...withOrigin(runOrigin(run)) };
    },
    (name, err) => `${name}: ${skipReason(err)}`,
  );
  runs.sort(newestRunFirst);
  return { runs, skipped };
}

const withFigure = (figure: string | undefined): { figure?: string } => (figure === undefined ? {} : { figure });
const withOrigin = (origin: RunOrigin | undefined): { origin?: RunOrigin } => (origin === undefined ? {} : { origin });

/**
 * Where `run` was made: RunResult.origin, else 'editor' for a run with sourceSha256 (only the
 * editor sets it, since s45), else undefined (a CLI run or an editor run saved before s45).
 */
export function runOrigin(run: Pick<RunResult, 'origin' | 'sourceSha256'>): RunOrigin | undefined {
  return run.origin ?? (run.sourceSha256 === undefined ? undefined : 'editor');
}

/**
 * The one newest-first order of whatever the editor lists by time (runs, sweep reports): a sort
 * comparator on `createdAt`, ISO 8601 in UTC as runs and reports write it (Date.toISOString), so
 * that text order is time order; equal times compare 0 (a stable sort keeps their order).
 */
export function newestFirst(a: { createdAt: string }, b: { createdAt: string }): number {
  return a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0;
}

/** Runs newest first; runs of one second by their `-2`, `-3`, ... suffix (freeId). */
function newestRunFirst(a: RunListEntry, b: RunListEntry): number {
  const suffix = (id: string): number => Number(/^[0-9]{8}-[0-9]{6}-([0-9]+)-/.exec(id)?.[1] ?? 1);
  return newestFirst(a, b) || suffix(b.id) - suffix(a.id);
}

/**
 * One history folder of the workspace: `path`, absolute, and `label`, the name of the workspace
 * folder it belongs to, set only when the workspace has several (History and the pickers name
 * each run's folder then).
 */
export interface HistoryPlace {
  path: string;
  label?: string;
}

/**
 * listRuns of every place, merged, newest first; each run carries its place's label (`folder`),
 * each skipped file is named `<label>/<file>: <why>` when the place has a label. A place listed
 * twice (several workspace folders with one absolute history folder) is read once.
 */
export async function listRunsIn(places: readonly HistoryPlace[]): Promise<{ runs: RunListEntry[]; skipped: string[] }> {
  const seen = new Set<string>();
  const runs: RunListEntry[] = [];
  const skipped: string[] = [];
  for (const place of places) {
    if (seen.has(place.path)) continue;
    seen.add(place.path);
    const one = await listRuns(place.path);
    runs.push(...one.runs.map((r) => (place.label === undefined ? r : { ...r, folder: place.label })));
    skipped.push(...one.skipped.map((s) => (place.label === undefined ? s : `${place.label}/${s}`)));
  }
  runs.sort(newestRunFirst);
  // Runs of one name are told apart by the settings that differ among them (runName distinctRunNames).
  const names = distinctRunNames(runs);
  return { runs: runs.map((r, i) => (names[i] === r.name ? r : { ...r, name: names[i]! })), skipped };
}

/**
 * Reads run `id` from the first of `folders` that holds `<id>.json`, and says which folder that
 * was (export proposes it). Throws loadRun's errors, or an Error naming the folders when none
 * holds it. Run ids are unique within a folder (saveRun); two folders holding one id (the same
 * profile name saved in the same second in two workspace folders) resolve to the first.
 */
export async function findRun(folders: readonly string[], id: string): Promise<{ run: RunResult; folder: string }> {
  const folder = await findRunFolder(folders, id);
  return { run: await loadRun(folder, id), folder };
}

/**
 * The first of `folders` that holds run `id`'s file (`<folder>/<id>.json`, as findRun reads it).
 * Throws a RangeError for an id that is no run id, an Error naming the folders when none holds it.
 */
export async function findRunFolder(folders: readonly string[], id: string): Promise<string> {
  if (!ID_PATTERN.test(id)) throw new RangeError(`not a run id: ${JSON.stringify(id)}`);
  for (const folder of folders) {
    if (await access(runFile(folder, id)).then(() => true, () => false)) return folder;
  }
  throw new Error(`run ${id} is no longer in the history folder${folders.length === 1 ? '' : 's'} (${folders.join(', ')})`);
}

/** The file run `id` is saved in, in history folder `folder`. */
export function runFile(folder: string, id: string): string {
  return join(folder, `${id}.json`);
}

/** Reads run `id`. Throws when the id is not a run id, the file is missing, no regular file (a FIFO is not waited on) or over MAX_EDITOR_RESULT_TEXT_BYTES, or is not a schema-1 run. */
export async function loadRun(folder: string, id: string): Promise<RunResult> {
  if (!ID_PATTERN.test(id)) throw new RangeError(`not a run id: ${JSON.stringify(id)}`);
  const text = await readRegularTextAsync(join(folder, `${id}.json`), MAX_EDITOR_RESULT_TEXT_BYTES);
  if (typeof text !== 'string') throw new Error(text.why);
  const run = JSON.parse(text) as Partial<RunResult>;
  if (run.schema !== RUN_SCHEMA_VERSION || !Array.isArray(run.cases) || typeof run.name !== 'string') {
    throw new TypeError(`${id}.json is not an AttnScope run (schema ${RUN_SCHEMA_VERSION})`);
  }
  return run as RunResult;
}

/** What the extension host knows about the machine, for runs the runner could not finish itself. */
export function hostEnvironment(toolVersion: string): Environment {
  const cpu = cpus();
  return {
    ...machineIdentity(),
    cpuCores: cpu.length,
    // Only the runner knows which SIMD path its kernels take; views leave '' out.
    simd: '',
    cpuFeatures: [],
    threads: cpu.length,
    nodeVersion: process.version,
    toolVersion,
  };
}

/**
 * A run assembled from the events received, for a runner that ended without a `done` event
 * (killed after cancel, or crashed) or with one that has nothing to show (a cancelled
 * simulation): status 'cancelled' or 'failed'. `environment`: the runner's machine when it said
 * it (an `environment` event, or that `done`), else this host's (its CPU named as the runner
 * names it: core/machine.ts cpuModelName).
 */
export function partialRun(args: {
  name: string;
  kind: RunKind;
  toolVersion: string;
  profile: Profile;
  estimate: Estimate;
  cases: KernelCase[];
  status: Exclude<RunStatus, 'ok'>;
  error?: string;
  environment?: Environment | null;
}): RunResult {
  return createRun({ ...args, environment: args.environment ?? hostEnvironment(args.toolVersion) });
}

/**
 * The file the dashboard's Run button runs again: a run's Profile.sourcePath, which the CLI records
 * as given (relative to where it ran; the editor records absolute paths). A relative one is looked
 * for in `roots`, the run's own workspace folder first (the one its history folder is in), then
 * the others: the first that holds it, else the first root. Not the first workspace folder alone:
 * in a multi-root workspace that ran another folder's profile, or none.
 */
export function rerunSource(source: string, roots: readonly string[], exists: (path: string) => boolean): string {
  if (isAbsolute(source) || roots.length === 0) return source;
  const candidates = roots.map((root) => join(root, source));
  return candidates.find(exists) ?? candidates[0]!;
}
