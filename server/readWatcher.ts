/**
 * Watches the files analyses read that the client does not watch for the server: all of them for
 * a client that watches no files (workspace/didChangeWatchedFiles unsupported: Neovim 0.7, most
 * terminal editors); for one that does (VS Code), those its watcher does not report under the path
 * read: a file behind a symlinked folder (modelPaths.ts serverWatchedAt). One fs.watch per folder (editors save by writing a temp file and renaming it over
 * the old one, which ends a watch on the file itself), reporting the read files of that folder
 * that changed, by the path they were read at.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

export class ReadWatcher {
  /** Folder watched -> its watcher, and each name in it that analyses read -> the paths it was read at. */
  private readonly folders = new Map<string, { watcher: FSWatcher | null; names: Map<string, Set<string>> }>();

  /** `changed(absPath)` is called (at most once per change event) for a watched file that changed, with the path it was read at. */
  constructor(private readonly changed: (absPath: string) => void) {}

  /**
   * Watches `absPath` from now on, at `at` (its real path, when a symlinked folder lies on the way;
   * default `absPath`), reporting its changes as `absPath`'s. A no-op when watched already; a
   * folder that cannot be watched is skipped.
   */
  watch(absPath: string, at = absPath): void {
    const folder = dirname(at);
    let entry = this.folders.get(folder);
    if (entry === undefined) {
      let watcher: FSWatcher | null;
      try {
        watcher = watch(folder, { persistent: false }, (_event, name) => {
          const file = name === null ? null : String(name);
          const read = file === null ? undefined : this.folders.get(folder)?.names.get(file);
          if (read !== undefined) for (const path of read) this.changed(path);
        });
        watcher.on('error', () => undefined);
      } catch {
        watcher = null;
      }
      entry = { watcher, names: new Map() };
      this.folders.set(folder, entry);
    }
    const name = basename(at);
    let read = entry.names.get(name);
    if (read === undefined) entry.names.set(name, (read = new Set()));
    read.add(absPath);
  }

  dispose(): void {
    for (const { watcher } of this.folders.values()) watcher?.close();
    this.folders.clear();
  }
}
