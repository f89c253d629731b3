/**
 * Watches the files analyses read, for clients that do not watch files for the server
 * (workspace/didChangeWatchedFiles unsupported: Neovim 0.7, most terminal editors). One
 * fs.watch per folder (editors save by writing a temp file and renaming it over the old one,
 * which ends a watch on the file itself), reporting the read files of that folder that changed.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export class ReadWatcher {
  /** Folder -> its watcher and the names in it that analyses read. */
  private readonly folders = new Map<string, { watcher: FSWatcher | null; names: Set<string> }>();

  /** `changed(absPath)` is called (at most once per change event) for a watched file that changed. */
  constructor(private readonly changed: (absPath: string) => void) {}

  /** Watches `absPath` from now on (no-op when it is watched already; a folder that cannot be watched is skipped). */
  watch(absPath: string): void {
    const folder = dirname(absPath);
    let entry = this.folders.get(folder);
    if (entry === undefined) {
      let watcher: FSWatcher | null;
      try {
        watcher = watch(folder, { persistent: false }, (_event, name) => {
          const file = name === null ? null : String(name);
          if (file !== null && this.folders.get(folder)?.names.has(file)) this.changed(join(folder, file));
        });
        watcher.on('error', () => undefined);
      } catch {
        watcher = null;
      }
      entry = { watcher, names: new Set() };
      this.folders.set(folder, entry);
    }
    entry.names.add(basename(absPath));
  }

  dispose(): void {
    for (const { watcher } of this.folders.values()) watcher?.close();
    this.folders.clear();
  }
}
