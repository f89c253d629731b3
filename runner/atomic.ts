/**
 * Atomic file output: write to a temporary file in the same folder, fsync, then rename over
 * the target, so a reader (or a crash) never sees a half-written run. A target that exists and
 * is not a regular file (a device or pipe such as /dev/stdout) is written in place instead:
 * renaming over it would replace it.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Writes `text` to `path` atomically, creating the folder. @throws the fs error (the temp file is removed). */
export function writeFileAtomic(path: string, text: string): void {
  let special = false;
  try {
    const st = statSync(path);
    special = !st.isFile() && !st.isDirectory();
  } catch {
    // does not exist yet
  }
  if (special) {
    writeFileSync(path, text);
    return;
  }
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  let fd: number | null = null;
  try {
    fd = openSync(tmp, 'w');
    writeSync(fd, text);
    fsyncSync(fd);
    closeSync(fd);
    fd = null;
    renameSync(tmp, path);
  } catch (e) {
    if (fd !== null) closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  }
}
