/**
 * The history id of the run the dashboard shows, kept in a file of the extension's workspace
 * storage (`dashboard.json` in ExtensionContext.storageUri, on the extension host's disk), so
 * that the extension host that restarts with a reloaded window can send that run to the
 * restored page.
 *
 * Why not the page's own state alone: in a browser workbench (code-server, VS Code for the
 * Web) the state a webview saves with setState reaches the workbench at once but is written to
 * the browser's IndexedDB only with the editor layout, on the workbench's idle flush every 5 s
 * (BrowserStorageService) or a best-effort flush on `pagehide` that the browser does not wait
 * for. Measured in the e2e setup: a reload 0.04 s after a run was shown finished restored the
 * page's previous "running" state, and a reload after the next flush restored the finished run.
 * No `vscode` import.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The file's content: `{"shownRunId": "<history id>" | null, "notice"?: "<sentence>"}`. `notice`:
 * what the next extension host tells the user once (a run the reload interrupted, saved).
 */
interface ShownRunFile {
  shownRunId: string | null;
  notice?: string;
}

export class ShownRunStore {
  private readonly file: string;
  /** The writes in flight, in order: the last save wins. */
  private writes: Promise<void> = Promise.resolve();

  /** `folder`: the extension's workspace storage folder (created on the first save). */
  constructor(private readonly folder: string) {
    this.file = join(folder, 'dashboard.json');
  }

  /**
   * Records `id` (null: the page shows no saved run, e.g. a refusal or a memory estimate). Written
   * atomically (temp file, then rename) after the saves before it; a failed write is passed to
   * `onError` and leaves the previous file.
   */
  save(id: string | null, onError: (err: unknown) => void = () => undefined): Promise<void> {
    const content = JSON.stringify({ shownRunId: id } satisfies ShownRunFile) + '\n';
    this.writes = this.writes.then(async () => {
      const tmp = `${this.file}.${process.pid}.tmp`;
      try {
        await mkdir(this.folder, { recursive: true });
        await writeFile(tmp, content, 'utf8');
        await rename(tmp, this.file);
      } catch (err) {
        await rm(tmp, { force: true }).catch(() => undefined);
        onError(err);
      }
    });
    return this.writes;
  }

  /**
   * Records `id` (null: no saved run shown) and a `notice` for the next extension host at once,
   * synchronously: for deactivate(), when the window reloads (its host does not wait for
   * promises). Throws what the file system throws.
   */
  saveSync(id: string | null, notice: string): void {
    const tmp = `${this.file}.${process.pid}.tmp`;
    try {
      mkdirSync(this.folder, { recursive: true });
      writeFileSync(tmp, JSON.stringify({ shownRunId: id, notice } satisfies ShownRunFile) + '\n', 'utf8');
      renameSync(tmp, this.file);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
  }

  private async read(): Promise<Partial<ShownRunFile> | null> {
    await this.writes;
    try {
      return JSON.parse(await readFile(this.file, 'utf8')) as Partial<ShownRunFile> | null;
    } catch {
      return null;
    }
  }

  /** The id saved last, or null when there is none or the file is not one this store wrote. */
  async load(): Promise<string | null> {
    const parsed = await this.read();
    return typeof parsed?.shownRunId === 'string' ? parsed.shownRunId : null;
  }

  /** The notice saveSync left, once: it is removed from the file (the id stays); null when none. */
  async takeNotice(): Promise<string | null> {
    const parsed = await this.read();
    if (typeof parsed?.notice !== 'string') return null;
    await this.save(typeof parsed.shownRunId === 'string' ? parsed.shownRunId : null);
    return parsed.notice;
  }
}
