/**
 * What the editor's lists (History's runs: history.ts listRuns; the finished sweeps:
 * sweepReports.ts sweepReportsIn) read of each file, kept per file with the file as it was then
 * (inode, size, modification time), so that a file unchanged since is not read again. A run of a
 * data_parallel_size 8 simulation is 4.2 MiB, a sweep report ~1.5 KB a row: reading 40 such runs
 * whole took 2.0 s of CPU and 3.5 s to list (load ~8), and three reports of 10,000 rows 0.6 s with
 * a 0.58 s freeze of the extension host on every listing (npm run bench:history, s46).
 * Kept in memory for the extension host, and in one small file of the extension's storage
 * ({@link persistListings}) for the next one: a window reload or a new window lists from it,
 * reading only the files added or changed since. No `vscode` import.
 */
import { rename, rm, stat, writeFile } from 'node:fs/promises';
import { makeFolder } from '../core/makeFolder';
import { dirname } from 'node:path';
import { MAX_EDITOR_RESULT_TEXT_BYTES, readRegularTextAsync } from '../core/fileText';

/**
 * One file's entry, or why it is none (`skip`), and the file as it was when it was read: a
 * rewrite or a rename over it changes one of ino, size, mtimeMs.
 */
interface Listed {
  ino: number;
  mtimeMs: number;
  size: number;
  entry?: unknown;
  skip?: string;
}

/** The lists kept: per list ('runs', 'sweeps') and folder listed (absolute path, joined as `<list>\n<folder>`), per file name in it. */
type Kept = Map<string, Map<string, Listed>>;

/** The file the lists are kept in for the next extension host, and the build whose entries it holds. */
let store: { file: string; build: string } | null = null;
let kept: Kept = new Map();
let loaded: Promise<void> | null = null;
let writing: Promise<void> = Promise.resolve();

/**
 * Keeps the lists in `file` (the extension's storage folder) for the next extension host, and
 * reads what the last one kept there on the first listing. `build` names the code that made the
 * entries (the extension's version and its bundle's size and time): a file kept by another build
 * is not used, its entries may lack a field or differ in one. Call once, at activation; without
 * it the lists are kept in memory only.
 */
export function persistListings(file: string, build: string): void {
  store = { file, build };
  kept = new Map();
  loaded = null;
}

/** The kept lists read from the store, once; a missing, unreadable or other build's file keeps none. */
async function load(): Promise<void> {
  if (!store) return;
  try {
    const text = await readRegularTextAsync(store.file, MAX_EDITOR_RESULT_TEXT_BYTES);
    if (typeof text !== 'string') return;
    // Written by save(): [key, [name, Listed][]][].
    const saved = JSON.parse(text) as { build?: unknown; lists?: unknown };
    if (saved.build === store.build && Array.isArray(saved.lists)) kept = new Map((saved.lists as Array<[string, Array<[string, Listed]>]>).map(([key, files]) => [key, new Map(files)]));
  } catch {
    // None kept yet (ENOENT), or not ours: every file is read.
  }
}

/**
 * The entries of `folder`'s files `names` in list `list`, in `names`' order, each read by `read`
 * unless the file is unchanged since the last listing (same inode, size and modification time);
 * a file whose stat or `read` throws is left out, named in `skipped` as `why(name, err)` unless
 * that is null (a subfolder with no report: nothing to say); a file `read` refused is remembered
 * like an entry (an unchanged file is not read again to say why). What is kept of the folder becomes what
 * this listing saw (a file gone is forgotten), written to the store when anything changed.
 * @param path the file of name `name` (`folder`/name, or a file in subfolder `name`).
 * @param read the entry of file `name`; throws when the file is none.
 */
export async function listFiles<E>(list: string, folder: string, names: readonly string[], path: (name: string) => string, read: (name: string) => Promise<E>, why: (name: string, err: unknown) => string | null): Promise<{ entries: E[]; skipped: string[] }> {
  loaded ??= load();
  await loaded;
  const key = `${list}\n${folder}`;
  const before = kept.get(key) ?? new Map<string, Listed>();
  const now = new Map<string, Listed>();
  const entries: E[] = [];
  const skipped: string[] = [];
  let changed = false;
  for (const name of names) {
    let st: { ino: number; mtimeMs: number; size: number };
    try {
      st = await stat(path(name));
    } catch (err) {
      const w = why(name, err);
      if (w !== null) skipped.push(w);
      continue;
    }
    const seen = before.get(name);
    let listed = seen && seen.ino === st.ino && seen.mtimeMs === st.mtimeMs && seen.size === st.size ? seen : undefined;
    if (!listed) {
      changed = true;
      try {
        listed = { ino: st.ino, mtimeMs: st.mtimeMs, size: st.size, entry: await read(name) };
      } catch (err) {
        listed = { ino: st.ino, mtimeMs: st.mtimeMs, size: st.size, skip: why(name, err) ?? '' };
      }
    }
    now.set(name, listed);
    if (listed.skip !== undefined) {
      if (listed.skip !== '') skipped.push(listed.skip);
    } else entries.push(listed.entry as E);
  }
  kept.set(key, now);
  // Every file kept from before is the same object: as many as before, and none read, is the same list.
  if (changed || now.size !== before.size) save();
  return { entries, skipped };
}

/** Forgets what was kept of `folder` in list `list` (the folder is gone). */
export function forgetFolder(list: string, folder: string): void {
  if (kept.delete(`${list}\n${folder}`)) save();
}

/** Writes the kept lists to the store, after the write before (atomically: a temp file renamed over it). A failed write keeps none for the next host, nothing else. */
function save(): void {
  if (!store) return;
  const { file, build } = store;
  const text = JSON.stringify({ build, lists: [...kept].map(([key, files]) => [key, [...files]]) });
  writing = writing.then(async () => {
    const tmp = `${file}.${process.pid}.tmp`;
    try {
      await makeFolder(dirname(file));
      await writeFile(tmp, text, 'utf8');
      await rename(tmp, file);
    } catch {
      await rm(tmp, { force: true }).catch(() => undefined);
    }
  });
}

/** Resolves when the kept lists are written (for tests, and a host that ends). */
export function listingsWritten(): Promise<void> {
  return writing;
}
