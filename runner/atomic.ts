/**
 * Atomic file output: write to a temporary file in the same folder, fsync, then rename over
 * the target, so a reader (or a crash) never sees a half-written run. A symbolic link is
 * followed first: its target is written (renaming over the link would replace the link and
 * leave its target unwritten). A target that exists and is not a regular file (a character
 * device, a FIFO, /dev/stdout, /dev/fd/N) is written in place instead: renaming over it would
 * replace it.
 */
import { closeSync, fchmodSync, fsyncSync, lstatSync, mkdirSync, openSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** Where an output path is written: `path` after following links; `inPlace` when it is not a regular file. */
export interface OutputTarget {
  path: string;
  inPlace: boolean;
}

/**
 * Follows `path`'s symbolic links. An existing target resolves with realpath; a dangling
 * link is followed link by link (at most 40, as Linux's ELOOP) to the file it would create.
 * A target that exists and is neither a regular file nor a folder (device, FIFO, socket, a
 * link into /proc/self/fd) is written in place through the given path.
 */
export function outputTarget(path: string): OutputTarget {
  let st;
  try {
    st = statSync(path);
  } catch {
    st = undefined;
  }
  if (st && !st.isFile() && !st.isDirectory()) return { path, inPlace: true };
  // A link through /proc or /dev (/dev/stdout redirected to a file) names a descriptor of this
  // process: write through it, as a shell's `>` would, never rename over the file behind it.
  if (st && isLinkUnder(path, ['/dev/', '/proc/'])) return { path, inPlace: true };
  if (st) return { path: realpathSync(path), inPlace: false };
  let p = resolve(path);
  for (let hops = 0; hops < 40; hops++) {
    let l;
    try {
      l = lstatSync(p);
    } catch {
      return { path: p, inPlace: false };
    }
    if (!l.isSymbolicLink()) return { path: p, inPlace: false };
    p = resolve(dirname(p), readlinkSync(p));
  }
  return { path: p, inPlace: false };
}

/** True when `path` is a symbolic link whose chain passes through one of `prefixes`. */
function isLinkUnder(path: string, prefixes: string[]): boolean {
  let p = resolve(path);
  for (let hops = 0; hops < 40; hops++) {
    if (prefixes.some((pre) => p.startsWith(pre))) return true;
    try {
      if (!lstatSync(p).isSymbolicLink()) return false;
    } catch {
      return false;
    }
    p = resolve(dirname(p), readlinkSync(p));
  }
  return false;
}

/**
 * Writes `text` to `path` (links followed) atomically, creating the folder: all of it to a temp
 * file (writeFileSync on the descriptor loops until every byte is written; a bare writeSync
 * returns a short count on a nearly full disk, and the short file was renamed over the target),
 * fsync, then rename. A file replaced keeps its permission bits. On any failure the temp file is
 * removed and the target is untouched.
 * @throws the fs error (ENOSPC, EFBIG past `ulimit -f`, EDQUOT, EACCES ...).
 */
export function writeFileAtomic(path: string, text: string): void {
  const target = outputTarget(path);
  if (target.inPlace) {
    writeFileSync(target.path, text);
    return;
  }
  const dir = dirname(target.path);
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `.${basename(target.path)}.${process.pid}.${Date.now()}.tmp`);
  let mode: number | undefined;
  try {
    mode = statSync(target.path).mode & 0o7777;
  } catch {
    mode = undefined;
  }
  let fd: number | null = null;
  try {
    fd = openSync(tmp, 'w');
    // A file replaced keeps its mode (a 0444 reference run root replaces stays 0444: s40 newcomer 8).
    if (mode !== undefined) fchmodSync(fd, mode);
    writeFileSync(fd, text);
    fsyncSync(fd);
    closeSync(fd);
    fd = null;
    renameSync(tmp, target.path);
  } catch (e) {
    if (fd !== null) closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  }
}
