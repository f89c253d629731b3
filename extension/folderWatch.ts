/**
 * Watches folders that may not exist yet (the history folder, the sweeps folder) with Node's
 * own non-recursive fs.watch (inotify, FSEvents, ReadDirectoryChangesW), so that a folder made
 * while the window is open, together with its parent (`mkdir -p .attnscope/runs`, as the CLI and
 * the extension's first save do), is watched from then on and what is already in it is read.
 * VS Code's FileSystemWatcher did not: code-server's @parcel/watcher 2.5.1 on inotify watches a
 * new folder once it sees it created and neither reads what is already in it nor, when the
 * folder was made before the watch on its parent, ever watches it (runs the CLI wrote there were
 * listed only on the next re-read; a standalone `mkdir -p` + file was reported 13 of 20 times).
 * No `vscode` import.
 */
import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** One folder to watch: `path`, and `depth` 1 to watch its subfolders too (a sweep's report is in `<sweeps>/<id>/`). */
export interface WatchedFolder {
  path: string;
  depth: 0 | 1;
}

/**
 * Calls `onChange` after anything changes in the watched folders (a file made, written, renamed
 * or deleted; the folder itself made or deleted), and once each time it starts watching a folder
 * it did not watch before, since that folder may already hold files no event told of.
 *
 * How: for each folder, the folder itself when it exists, else its nearest existing ancestor, is
 * watched (with depth 1, also each subfolder of an existing folder). Every event re-arms: a folder
 * gone or replaced (another inode) is let go and its nearest existing ancestor watched; a folder
 * now there is watched. Then `onChange` is called, after the re-arm, so a listing it starts reads
 * every file written before the watch began and the watch reports every file written after.
 * `onChange` is called once per event (a burst is many calls): the caller debounces.
 */
export class FolderWatch {
  /** The watched paths, each with its watcher and the inode it had when the watch began. */
  private readonly armed = new Map<string, { watcher: FSWatcher; ino: number }>();
  private disposed = false;

  /**
   * @param folders the folders to watch.
   * @param onChange called after each change seen (the caller debounces).
   * @param watchFolder fs.watch; a test passes its own to make a folder at a chosen moment.
   */
  constructor(
    private readonly folders: readonly WatchedFolder[],
    private readonly onChange: () => void,
    private readonly watchFolder: (path: string, listener: () => void) => FSWatcher = (path, listener) => watch(path, { persistent: false }, listener),
  ) {
    this.rearm();
  }

  /** Stops watching; no `onChange` after this. */
  dispose(): void {
    this.disposed = true;
    for (const { watcher } of this.armed.values()) watcher.close();
    this.armed.clear();
  }

  /** The paths watched now (for tests and the log). */
  get watched(): string[] {
    return [...this.armed.keys()];
  }

  /**
   * Watches what should be watched now, lets go of the rest, and looks again while that began a
   * watch: a folder made after it was looked for and before its parent's watch began (`mkdir -p`
   * racing the re-arm) raised no event, so only a look after the watch finds it.
   */
  private rearm(): void {
    // Each pass that began a watch went a level down a folder's chain; the bound only stops a folder made and deleted without end.
    for (let pass = 0; pass < 32; pass++) if (!this.rearmOnce()) return;
  }

  /** One pass of rearm; true when it began watching a path. */
  private rearmOnce(): boolean {
    const want = new Set<string>();
    const before = new Map([...this.armed].map(([path, { watcher }]) => [path, watcher]));
    for (const folder of this.folders) {
      const top = resolve(folder.path);
      for (let dir = top; ; dir = dirname(dir)) {
        if (this.arm(dir)) {
          want.add(dir);
          if (dir === top && folder.depth === 1) for (const sub of subfolders(dir)) if (this.arm(sub)) want.add(sub);
          break;
        }
        if (dirname(dir) === dir) break;
      }
    }
    for (const [path, { watcher }] of this.armed) {
      if (want.has(path)) continue;
      watcher.close();
      this.armed.delete(path);
    }
    return [...this.armed].some(([path, { watcher }]) => before.get(path) !== watcher);
  }

  /** Watches `path` unless it is watched already as the same inode; false when it does not exist (or cannot be watched). */
  private arm(path: string): boolean {
    const ino = statSync(path, { throwIfNoEntry: false })?.ino;
    const had = this.armed.get(path);
    if (had && had.ino === ino) return true;
    had?.watcher.close();
    this.armed.delete(path);
    if (ino === undefined) return false;
    let watcher: FSWatcher;
    try {
      watcher = this.watchFolder(path, () => this.changed());
    } catch {
      return false; // gone since the stat, or not watchable (ENOTDIR on a path through a file, EACCES)
    }
    // A watched folder deleted on some platforms, or too many watches: let it go and look again.
    watcher.on('error', () => {
      watcher.close();
      if (this.armed.get(path)?.watcher === watcher) this.armed.delete(path);
      this.changed();
    });
    this.armed.set(path, { watcher, ino });
    return true;
  }

  private changed(): void {
    if (this.disposed) return;
    this.rearm();
    this.onChange();
  }
}

/** The subfolders of `dir` whose names do not start with a dot (empty when it cannot be read). */
function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => join(dir, e.name));
  } catch {
    return [];
  }
}
