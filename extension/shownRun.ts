/**
 * The history id of the run the dashboard shows, and the sweep report it shows, kept in a file of the extension's workspace
 * storage (`dashboard.json` in ExtensionContext.storageUri, on the extension host's disk), so
 * that the extension host that restarts with a reloaded window can send that run and that sweep
 * to the restored page (and a dashboard closed and opened again gets them from the host's memory).
 *
 * Why not the page's own state alone: in a browser workbench (code-server, VS Code for the
 * Web) the state a webview saves with setState reaches the workbench at once but is written to
 * the browser's IndexedDB only with the editor layout, on the workbench's idle flush every 5 s
 * (BrowserStorageService) or a best-effort flush on `pagehide` that the browser does not wait
 * for. Measured in the e2e setup: a reload 0.04 s after a run was shown finished restored the
 * page's previous "running" state, and a reload after the next flush restored the finished run.
 * No `vscode` import.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeFolder, makeFolderSync } from '../core/makeFolder';
import type { RunKind, RunResult } from '../core/protocol/run';

/**
 * The file's content: `{"shownRunId": "<history id>" | null, "shownSweepFile"?: "<path>" | null,
 * "notice"?: "<sentence>", "resumeSweep"?: "<profile path>"}`. `shownSweepFile`: the absolute
 * path of the sweep-report.json the Sweep tab shows. `notice`: what the next extension host
 * tells the user once (a run the reload interrupted, saved; a sweep it interrupted, with
 * `resumeSweep`, the profile whose sweep a rerun resumes). `interruptedRun`: the run a reload stopped
 * that is not in history (a benchmark before its first case, a simulation before its end), which the
 * next dashboard shows in place of an older run (s50 newcomer-ed 1: it showed another model's run
 * from before as if current); dropped by the next save. `rerun`: the file and job the notice's
 * Run again runs.
 */
interface ShownRunFile {
  shownRunId: string | null;
  shownSweepFile?: string | null;
  notice?: string;
  resumeSweep?: string;
  interruptedRun?: RunResult;
  rerun?: Rerun;
}

/** What a notice's Run again runs: the profile (or config.json) `source` (a URI string) and the job. */
export interface Rerun {
  source: string;
  job: RunKind;
}

/** What the previous extension host left for the user once (ShownRunStore.takeNotice). */
export interface LastWindowNotice {
  notice: string;
  /** The profile whose sweep the reload interrupted (running it again resumes); null for a run. */
  resumeSweep: string | null;
  /** The run the reload interrupted, to run again; null for a sweep or a notice without one. */
  rerun: Rerun | null;
}

/** The fields of `raw` (parsed JSON) this store wrote; nothing of anything else. */
function parsed(raw: unknown): Partial<ShownRunFile> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return {};
  const r = raw as Record<string, unknown>;
  const out: Partial<ShownRunFile> = {};
  if (typeof r.shownRunId === 'string') out.shownRunId = r.shownRunId;
  if (typeof r.shownSweepFile === 'string') out.shownSweepFile = r.shownSweepFile;
  if (typeof r.notice === 'string') out.notice = r.notice;
  if (typeof r.resumeSweep === 'string') out.resumeSweep = r.resumeSweep;
  const run = r.interruptedRun as Partial<RunResult> | undefined;
  if (run && typeof run === 'object' && typeof run.name === 'string' && typeof run.status === 'string' && Array.isArray(run.cases)) out.interruptedRun = run as RunResult;
  const rerun = r.rerun as Partial<Rerun> | undefined;
  if (rerun && typeof rerun === 'object' && typeof rerun.source === 'string' && (rerun.job === 'bench' || rerun.job === 'simulate')) out.rerun = { source: rerun.source, job: rerun.job };
  return out;
}

export class ShownRunStore {
  private readonly file: string;
  /** The writes in flight, in order: the last save wins. */
  private writes: Promise<void> = Promise.resolve();

  /** `folder`: the extension's workspace storage folder (created on the first save). */
  constructor(private readonly folder: string) {
    this.file = join(folder, 'dashboard.json');
  }

  /** `change` applied to the file as it is (read, merged, written atomically: temp file, then rename) after the writes before it. */
  private patch(change: Partial<ShownRunFile>, drop: ReadonlyArray<keyof ShownRunFile>, onError: (err: unknown) => void): Promise<void> {
    this.writes = this.writes.then(async () => {
      const tmp = `${this.file}.${process.pid}.tmp`;
      try {
        let old: unknown = null;
        try {
          old = JSON.parse(await readFile(this.file, 'utf8'));
        } catch {
          // No file yet, or not one this store wrote: nothing to keep.
        }
        const next = { shownRunId: null, ...parsed(old), ...change };
        for (const k of drop) delete next[k];
        await makeFolder(this.folder);
        await writeFile(tmp, JSON.stringify(next) + '\n', 'utf8');
        await rename(tmp, this.file);
      } catch (err) {
        await rm(tmp, { force: true }).catch(() => undefined);
        onError(err);
      }
    });
    return this.writes;
  }

  /**
   * Records `id` (null: the page shows no saved run, e.g. a refusal or a memory estimate), keeping
   * the sweep recorded. A failed write is passed to `onError` and leaves the previous file.
   */
  save(id: string | null, onError: (err: unknown) => void = () => undefined): Promise<void> {
    return this.patch({ shownRunId: id }, ['interruptedRun'], onError);
  }

  /** Records `file` (a sweep-report.json; null: none, a sweep of the editor's runs) as the sweep the Sweep tab shows, keeping the run recorded; errors as save(). */
  saveSweep(file: string | null, onError: (err: unknown) => void = () => undefined): Promise<void> {
    return file === null ? this.patch({}, ['shownSweepFile'], onError) : this.patch({ shownSweepFile: file }, [], onError);
  }

  /**
   * Records `id` (null: no saved run shown) and a `notice` for the next extension host at once,
   * synchronously: for deactivate(), when the window reloads (its host does not wait for
   * promises). `resumeSweep`: the profile of a sweep the reload interrupted. The sweep shown
   * stays recorded. `stopped`: a run the reload interrupted that is not in history (shown next in
   * place of run `id`, which is then null) and what the notice's Run again runs. Throws what the file system throws.
   */
  saveSync(id: string | null, notice: string, resumeSweep?: string, stopped: { run?: RunResult; rerun?: Rerun } = {}): void {
    const tmp = `${this.file}.${process.pid}.tmp`;
    let old: unknown = null;
    try {
      old = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch {
      // No file yet, or not one this store wrote.
    }
    const next: ShownRunFile = { ...parsed(old), shownRunId: id, notice };
    if (resumeSweep === undefined) delete next.resumeSweep;
    else next.resumeSweep = resumeSweep;
    delete next.interruptedRun;
    delete next.rerun;
    if (stopped.run) next.interruptedRun = stopped.run;
    if (stopped.rerun) next.rerun = stopped.rerun;
    try {
      makeFolderSync(this.folder);
      writeFileSync(tmp, JSON.stringify(next) + '\n', 'utf8');
      renameSync(tmp, this.file);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
  }

  private async read(): Promise<Partial<ShownRunFile>> {
    await this.writes;
    try {
      return parsed(JSON.parse(await readFile(this.file, 'utf8')));
    } catch {
      return {};
    }
  }

  /** The id saved last, or null when there is none or the file is not one this store wrote. */
  async load(): Promise<string | null> {
    return (await this.read()).shownRunId ?? null;
  }

  /** The run a reload interrupted that is not in history (saveSync's `stopped.run`), until the next save; null when none. */
  async loadInterrupted(): Promise<RunResult | null> {
    return (await this.read()).interruptedRun ?? null;
  }

  /** The sweep report file saved last (saveSweep), or null when none. */
  async loadSweep(): Promise<string | null> {
    return (await this.read()).shownSweepFile ?? null;
  }

  /** The notice saveSync left, once: it is removed from the file (the run and sweep shown stay); null when none. */
  async takeNotice(): Promise<LastWindowNotice | null> {
    const { notice, resumeSweep, rerun } = await this.read();
    if (notice === undefined) return null;
    await this.patch({}, ['notice', 'resumeSweep', 'rerun'], () => undefined);
    return { notice, resumeSweep: resumeSweep ?? null, rerun: rerun ?? null };
  }
}
