/**
 * `mkdir -p` that ends: Node's `fs.mkdir(path, { recursive: true })` (v20, v22) never returns for
 * a folder under /proc or /sys. Those file systems answer ENOENT to a mkdir of a name they will
 * not make, which Node's recursive walk (src/node_file.cc MKDirpAsync / MKDirpSync) reads as "the
 * parent is missing": it makes the parent (EEXIST: there), tries the folder again, ENOENT, ... for
 * ever, one libuv thread at 100 % CPU, the promise never settled (the sync call never returns).
 * s52 newcomer-ed 1: attnscope.historyFolder `/proc/nope/runs` left the editor's run holding the
 * one-run slot for ever after the runner had ended. Here the walk makes each missing parent once;
 * an ENOENT after its parent exists is final.
 */
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';

/**
 * The folder AttnScope keeps its files in (runs, sweeps, the editor's state) in a workspace or
 * the CLI's working folder. When makeFolder / makeFolderSync make it, they write a `.gitignore`
 * in it holding `*` (as pytest's .pytest_cache has), so that git lists none of it as untracked
 * (s53 newcomer-ed F3); an existing `.gitignore` is never overwritten, and one the user deleted
 * is not written again while the folder stays.
 */
export const TOOL_FOLDER = '.attnscope';
const GITIGNORE_TEXT = '# Made by AttnScope: its runs and results are not for version control.\n*\n';

/** `{ flag: 'wx' }`: only where no .gitignore is; a failure (EEXIST, a read-only disk) leaves the folder as made. */
function gitignoreOf(folder: string): string | null {
  return basename(folder) === TOOL_FOLDER ? join(folder, '.gitignore') : null;
}
async function ignoreIfTool(folder: string): Promise<void> {
  const file = gitignoreOf(folder);
  if (file !== null) await writeFile(file, GITIGNORE_TEXT, { flag: 'wx' }).catch(() => undefined);
}
function ignoreIfToolSync(folder: string): void {
  const file = gitignoreOf(folder);
  if (file === null) return;
  try {
    writeFileSync(file, GITIGNORE_TEXT, { flag: 'wx' });
  } catch {
    // There already, or not writable: the folder stays as made.
  }
}

/**
 * `mkdirSync(path, { recursive: true })` (the CLI's sweep folders), writing the `.gitignore` of each
 * TOOL_FOLDER it made on the way to `path` (see TOOL_FOLDER). Returns the first folder it made,
 * undefined when `path` was there (as mkdirSync does). Throws mkdirSync's errors.
 */
export function makeFoldersSync(path: string): string | undefined {
  const firstMade = mkdirSync(path, { recursive: true });
  if (firstMade === undefined) return undefined;
  const rel = relative(firstMade, resolve(path));
  if (rel.startsWith('..')) return firstMade;
  let folder = resolve(firstMade);
  ignoreIfToolSync(folder);
  for (const part of rel === '' ? [] : rel.split(sep)) ignoreIfToolSync((folder = join(folder, part)));
  return firstMade;
}

const codeOf = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | null)?.code;

/**
 * The error for `folder` the file system would not make though its parent exists (the second
 * ENOENT: /proc, /sys): the OS's error (its code kept), with what it means, as the OS's words
 * ("no such file or directory") read as if the parent were missing.
 */
function notMade(folder: string, err: NodeJS.ErrnoException): NodeJS.ErrnoException {
  return Object.assign(new Error(`${err.message} (${dirname(folder)} exists, but its file system makes no folder there)`), { code: err.code, errno: err.errno, syscall: err.syscall, path: err.path });
}

/**
 * Makes folder `path` and the parents it lacks, as `mkdir -p` (relative to the process's
 * working folder). Resolves when it is a folder (made now or before); rejects with the file
 * system's error (its `code`: ENOTDIR under a file, EEXIST for a file of that name, EACCES,
 * EROFS, ENOENT for a folder the file system will not make), never hangs.
 */
export async function makeFolder(path: string): Promise<void> {
  const folder = resolve(path);
  const isFolder = (): Promise<boolean> => stat(folder).then((s) => s.isDirectory(), () => false);
  try {
    await mkdir(folder);
    await ignoreIfTool(folder);
    return;
  } catch (err) {
    if (codeOf(err) === 'EEXIST' && (await isFolder())) return;
    if (codeOf(err) !== 'ENOENT' || dirname(folder) === folder) throw err;
  }
  await makeFolder(dirname(folder));
  try {
    await mkdir(folder);
  } catch (err) {
    // Made by another process meanwhile: as good.
    if (codeOf(err) === 'EEXIST' && (await isFolder())) return;
    throw codeOf(err) === 'ENOENT' ? notMade(folder, err as NodeJS.ErrnoException) : err;
  }
  await ignoreIfTool(folder);
}

/** makeFolder, synchronously (for deactivate, where the host does not wait for promises). Throws its errors. */
export function makeFolderSync(path: string): void {
  const folder = resolve(path);
  const isFolder = (): boolean => {
    try {
      return statSync(folder).isDirectory();
    } catch {
      return false;
    }
  };
  try {
    mkdirSync(folder);
    ignoreIfToolSync(folder);
    return;
  } catch (err) {
    if (codeOf(err) === 'EEXIST' && isFolder()) return;
    if (codeOf(err) !== 'ENOENT' || dirname(folder) === folder) throw err;
  }
  makeFolderSync(dirname(folder));
  try {
    mkdirSync(folder);
  } catch (err) {
    if (codeOf(err) === 'EEXIST' && isFolder()) return;
    throw codeOf(err) === 'ENOENT' ? notMade(folder, err as NodeJS.ErrnoException) : err;
  }
  ignoreIfToolSync(folder);
}
