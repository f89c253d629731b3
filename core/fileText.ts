/**
 * One reader for the text files a run or the editor reads beside the one named (a profile's
 * config.json, a sweep's point files): only a regular file, and only up to a size, both decided
 * by fstat before a byte is read. A FIFO would block the read until something writes to it
 * (a named one with no writer: for ever, and the single-threaded language server with it),
 * /dev/zero never ends, and a weights shard named by mistake (hundreds of MB to GB) took
 * minutes and GBs to parse as JSON (s36 newcomer findings 2 and 3).
 */
import { accessSync, closeSync, constants, fstatSync, openSync, readlinkSync, readSync, statSync, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { formatBytes, formatCountOf } from './format';

/**
 * The most of a profile or a model config.json read: 16 MiB. A HuggingFace config.json is a few
 * KB (a classifier's with tens of thousands of id2label entries, a few MB); the largest profile
 * of the benchmarks lists 160,000 prefill lengths in 1.1 MB (bench:config-size), bench:lsp's is
 * 3,000 lines. 100 MB of JSON took the CLI over 60 s and 2.6 GB (s36 newcomer).
 */
export const MAX_INPUT_TEXT_BYTES = 16 * 2 ** 20;

/**
 * The most of a result file the editor reads (a run of the history folder, a sweep-report.json):
 * 32 MiB. The extension host reads and JSON.parse-s such a file on its one thread, and History
 * lists every file: at the old 512 MiB, a 205 MB run of data_parallel_size 1024 (before runs kept
 * the samples of 9 engines, f55f643) froze the window for minutes and kept a new run from
 * starting (s45 newcomer-ed N4, N10). A run is at most a few MB now (dp 1024: 2.6 MB), a sweep
 * report about 1 KB a point (some 30,000 points); larger files are named as skipped with their
 * size, and the CLI reads them (`attnscope merge`, `attnscope simulate --json`).
 */
export const MAX_EDITOR_RESULT_TEXT_BYTES = 32 * 2 ** 20;

/**
 * The most of a result file the CLI reads (a sweep report it would write over, `merge`'s inputs):
 * 512 MiB, about V8's longest string (a sweep report's row is ~1 KB, so some 500,000 points).
 */
export const MAX_RESULT_TEXT_BYTES = 512 * 2 ** 20;

/** Why a file that is there was not read: `why` in words after its path; `bytes` its size when that was the reason. */
export interface NotRead {
  why: string;
  /** 'irregular': no regular file (not read at all); 'size': over the cap (not read at all); 'error': the read failed. */
  kind: 'irregular' | 'size' | 'error';
  bytes?: number;
}

/** Why a file of this stat is no regular file, in words ("a folder", "not a regular file (a FIFO)"), or null for a regular file. */
export function notRegularWhy(st: { isFile(): boolean; isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean }): string | null {
  if (st.isFile()) return null;
  if (st.isDirectory()) return 'a folder';
  return `not a regular file (${st.isFIFO() ? 'a FIFO' : st.isSocket() ? 'a socket' : 'a device'})`;
}

/**
 * The UTF-8 text of the regular file `path`, or why it was not read: not a regular file (after
 * following links) or over `maxBytes` (neither is read at all), or an error of the read
 * (`cannot be read: ...`). Throws the stat's error (ENOENT, EACCES, ELOOP, ...) when `path`
 * cannot be looked at, for the caller to say it its way. A folder is refused like a FIFO: a
 * caller that takes a folder (model: a folder holding config.json) stats it first.
 * @param maxBytes the most read, in bytes.
 */
export function readRegularText(path: string, maxBytes: number): string | NotRead {
  const why = notRegularWhy(statSync(path));
  if (why !== null) return { why, kind: 'irregular' };
  let fd: number | undefined;
  try {
    fd = openSync(path, OPEN_FLAGS);
    const opened = fstatSync(fd);
    const refused = openedRefusal(opened, maxBytes);
    if (refused) return refused;
    // One byte past the size the file has (or past the cap): a file grown past the cap since is caught too.
    const buf = Buffer.allocUnsafe(Math.min(opened.size, maxBytes) + 1);
    let n = 0;
    for (let got; n < buf.length && (got = readSync(fd, buf, n, buf.length - n, null)) > 0; ) n += got;
    return readText(buf, n, maxBytes);
  } catch (e) {
    return { why: `cannot be read: ${(e as Error).message}`, kind: 'error' };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** O_NONBLOCK: a FIFO put in a regular file's place since the stat is not waited on. */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/** Why the file opened with this fstat is not read (no regular file, over `maxBytes`), or null to read it. */
function openedRefusal(opened: { isFile(): boolean; size: number }, maxBytes: number): NotRead | null {
  if (!opened.isFile()) return { why: 'not a regular file', kind: 'irregular' };
  if (opened.size > maxBytes) return { why: `${formatCountOf(opened.size, 'byte')}, past the ${formatBytes(maxBytes)} such a file is at most`, kind: 'size', bytes: opened.size };
  return null;
}

/** The text of the `n` bytes read into `buf`, or the size refusal when they passed `maxBytes` (the file grew since its fstat). */
function readText(buf: Buffer, n: number, maxBytes: number): string | NotRead {
  if (n > maxBytes) return { why: `past the ${formatBytes(maxBytes)} such a file is at most`, kind: 'size', bytes: n };
  return buf.toString('utf8', 0, n);
}

/**
 * {@link readRegularText} without blocking the thread: for the extension host, which reads the
 * history folder's runs and the sweep reports it lists (a FIFO or a device named like one would
 * otherwise block a libuv worker for ever, and a few of them every file read of the host, s43
 * review). Same refusals; the stat's errors (ENOENT, EACCES, ...) reject the promise.
 * @param maxBytes the most read, in bytes.
 */
export async function readRegularTextAsync(path: string, maxBytes: number): Promise<string | NotRead> {
  const why = notRegularWhy(await stat(path));
  if (why !== null) return { why, kind: 'irregular' };
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, OPEN_FLAGS);
    const opened = await handle.stat();
    const refused = openedRefusal(opened, maxBytes);
    if (refused) return refused;
    const buf = Buffer.allocUnsafe(Math.min(opened.size, maxBytes) + 1);
    let n = 0;
    for (let got; n < buf.length && (got = (await handle.read(buf, n, buf.length - n, null)).bytesRead) > 0; ) n += got;
    return readText(buf, n, maxBytes);
  } catch (e) {
    return { why: `cannot be read: ${(e as Error).message}`, kind: 'error' };
  } finally {
    await handle?.close();
  }
}

/** A file descriptor the process was handed, by its path: /dev/stdin, /dev/fd/N (bash's `<(...)`), /proc/self/fd/N. */
const GIVEN_DESCRIPTOR = /^\/(?:dev\/(?:stdin|fd\/\d+)|proc\/(?:self|\d+)\/fd\/\d+)$/;

/**
 * Whether `path` names a file descriptor the process was handed (/dev/stdin, /dev/fd/N: the
 * shell's pipe of `cmd | attnscope x /dev/stdin` or `attnscope x <(cmd)`, a terminal), itself or
 * through symbolic links (p.attn.yaml -> /dev/stdin), not a file of its own. Such a pipe is what
 * the user gave to be read; a FIFO made with mkfifo and named by its own path is not (with no
 * writer a read waits for ever).
 */
export function isGivenDescriptor(path: string): boolean {
  let p = resolve(path);
  for (let links = 0; links <= 8; links++) {
    if (GIVEN_DESCRIPTOR.test(p)) return true;
    let target: string;
    try {
      target = readlinkSync(p);
    } catch {
      return false; // not a link (or not there): a file of its own
    }
    p = resolve(dirname(p), target);
  }
  return false;
}

/**
 * The text of a file named on the command line, at most `maxBytes`: a regular file as
 * {@link readRegularText} reads it (size checked before a byte is read); a descriptor the process
 * was handed ({@link isGivenDescriptor}: a pipe, a terminal) read to its end, refused as too big
 * one byte past `maxBytes`; anything else refused unread (a FIFO by its own path, a device, a
 * socket, a folder), as readRegularText says. Throws the stat's or the open's error (ENOENT,
 * EACCES, ...) for the caller to say it its way.
 * @param maxBytes the most read, in bytes.
 */
export function readCommandLineText(path: string, maxBytes: number): string | NotRead {
  if (!isGivenDescriptor(path)) return readRegularText(path, maxBytes);
  const fd = openSync(path, constants.O_RDONLY);
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) return { why: 'a folder', kind: 'irregular' };
    if (st.isFile()) return readRegularText(path, maxBytes);
    const chunks: Buffer[] = [];
    let n = 0;
    for (let got = 1; got > 0 && n <= maxBytes; n += got) {
      const chunk = Buffer.allocUnsafe(Math.min(1 << 20, maxBytes + 1 - n));
      got = readSync(fd, chunk, 0, chunk.length, null);
      if (got > 0) chunks.push(chunk.subarray(0, got));
    }
    if (n > maxBytes) return { why: `past the ${formatBytes(maxBytes)} such a file is at most`, kind: 'size', bytes: n };
    return Buffer.concat(chunks, n).toString('utf8');
  } catch (e) {
    return { why: `cannot be read: ${(e as Error).message}`, kind: 'error' };
  } finally {
    closeSync(fd);
  }
}

/**
 * For a ProfileHost's readFile: the text of `path` ({@link readRegularText}, at most
 * {@link MAX_INPUT_TEXT_BYTES}), else null; when the file is there but was refused unread (no
 * regular file but a folder, or too big), why, recorded in `refused` under `path` for the host's
 * whyNotRead. A folder, a missing or unreadable path give null with nothing recorded (model: may
 * name a folder holding config.json; "cannot read" says the rest).
 */
export function readInputText(path: string, refused: Map<string, NotRead>): string | null {
  refused.delete(path);
  let r: string | NotRead;
  try {
    r = readRegularText(path, MAX_INPUT_TEXT_BYTES);
  } catch {
    return null;
  }
  if (typeof r === 'string') return r;
  if (r.kind !== 'error' && r.why !== 'a folder') refused.set(path, r);
  return null;
}

/**
 * A profile's workload.trace file looked at without reading it (one stat and an access check):
 * `stamp` (device, inode, size, modification and change times; equal stamps, same file) and
 * `bytes` when it is a readable regular file, else `problem`, in words after the path as written
 * ("no such file", "a folder", "not a regular file (a FIFO)", "not readable: permission denied").
 * The trace's rows are read by the runner's trace readers (runner/simulate/traces.ts), never here.
 */
export function traceFileStat(path: string): { stamp: string; bytes: number } | { problem: string } {
  let st: Stats;
  try {
    st = statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { problem: code === 'ENOENT' ? 'no such file' : code === 'ENOTDIR' ? 'not found (a part of the path is a file, not a folder)' : code === 'EACCES' || code === 'EPERM' ? 'not readable: permission denied' : `not readable: ${(e as Error).message}` };
  }
  const irregular = notRegularWhy(st);
  if (irregular !== null) return { problem: irregular };
  try {
    accessSync(path, constants.R_OK);
  } catch {
    return { problem: 'not readable: permission denied' };
  }
  return { stamp: fileStamp(st), bytes: st.size };
}

/**
 * A file's version as its stat tells it (device, inode, size, modification and change times):
 * equal stamps, the same contents, as far as an editor's saves and a rename over it go. The
 * language server keys what it kept of a file on it (the config texts it read, the traces the
 * runner checked).
 */
export function fileStamp(st: Stats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}
