/**
 * Reading trace files line by line in constant memory, and the byte-level parsers the CSV
 * readers use on their common rows (traces.ts): a row that is anything but plain digits, commas
 * and a datetime of the usual shape goes to the string-level path, which gives the same values
 * and reports errors with their column.
 *
 * Why our own reader and not csv-parse: csv-parse's streaming API is asynchronous (a Node
 * Transform stream) and it builds a string per cell; the readers here run synchronously before
 * the simulation, parse numbers straight from the bytes and decode no string on a well-formed
 * row (DESIGN.md "Traces" has the measured figures).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { TraceError } from './trace';
import { readFailure } from '../errors';

const CHUNK = 1 << 20;

/** Why a trace must be a regular file (said for a pipe, a device or stdin). */
const START_READ_TWICE = 'it must be a regular file, whose start is read twice before its lines (its format, then its size)';

/** The TraceError for a file that cannot be opened or read (at 1:1). */
export function unreadable(path: string, e: unknown): TraceError {
  const folder = (e as NodeJS.ErrnoException).code === 'EISDIR';
  return new TraceError(path, 1, 1, `cannot read the trace: ${folder ? 'it is a folder, not a file' : readFailure(e, 'file', path)}`);
}

/**
 * The file opened for reading. A pipe, socket or terminal is refused: the readers read a trace's
 * start twice before its lines (its first line for the format, its first 64 KiB and size to size
 * the columns), at offset 0, which a pipe cannot give back (`<(zcat t.csv.gz)` failed with
 * "ESPIPE: invalid seek").
 * @throws TraceError naming the file when it cannot be opened or is not a regular file.
 */
function openTrace(path: string): number {
  // `-` is stdin for a profile (bench -, simulate -), not for a trace: it was looked up as a file named "-".
  if (path === '-') throw new TraceError(path, 1, 1, `the trace cannot be stdin ('-'): ${START_READ_TWICE}; save it to a file first (cat … > t.jsonl) and give that file's path`);
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw unreadable(path, e);
  }
  const st = fstatSync(fd);
  // A folder reads as EISDIR, said as such by the first read (unreadable).
  if (!st.isFIFO() && !st.isSocket() && !st.isCharacterDevice()) return fd;
  closeSync(fd);
  const what = st.isFIFO() ? 'a pipe' : st.isSocket() ? 'a socket' : 'a device or terminal';
  throw new TraceError(
    path, 1, 1,
    `the trace is ${what}: ${START_READ_TWICE}; decompress or copy it to a file first (zcat t.csv.gz > t.csv)`,
  );
}

/**
 * Calls `fn(buf, start, end, lineNo)` for each line of the file: the line is buf[start, end)
 * (bytes; a trailing "\r" and a leading UTF-8 byte-order mark excluded), lineNo 1-based. The file
 * is read 1 MiB at a time into one buffer (doubled only for a line longer than it), so memory
 * stays constant; `buf` is valid only during the call.
 * @throws TraceError naming the file when it cannot be read.
 */
export function scanLines(path: string, fn: (buf: Buffer, start: number, end: number, lineNo: number) => void): void {
  const fd = openTrace(path);
  try {
    let buf = Buffer.allocUnsafe(CHUNK);
    let have = 0;
    let lineNo = 0;
    let first = true;
    for (;;) {
      if (have === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, have);
        buf = bigger;
      }
      let n: number;
      try {
        n = readSync(fd, buf, have, buf.length - have, null);
      } catch (e) {
        throw unreadable(path, e);
      }
      const end = have + n;
      let s = 0;
      if (first) {
        if (end < 3 && n > 0) {
          have = end;
          continue;
        }
        first = false;
        if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) s = 3;
      }
      const view = buf.subarray(0, end);
      for (let nl = view.indexOf(10, s); nl >= 0; nl = view.indexOf(10, s)) {
        fn(buf, s, nl > s && buf[nl - 1] === 13 ? nl - 1 : nl, ++lineNo);
        s = nl + 1;
      }
      if (n === 0) {
        if (s < end) fn(buf, s, buf[end - 1] === 13 ? end - 1 : end, ++lineNo);
        return;
      }
      buf.copy(buf, 0, s, end);
      have = end - s;
    }
  } finally {
    closeSync(fd);
  }
}

/** {@link scanLines} with each line decoded as UTF-8. */
export function forEachLine(path: string, fn: (line: string, lineNo: number) => void): void {
  scanLines(path, (buf, s, e, n) => fn(buf.toString('utf8', s, e), n));
}

/**
 * The file's first 64 KiB (fewer bytes for a smaller file) and its size in bytes.
 * @throws TraceError naming the file when it cannot be read.
 */
function readHead(path: string): { head: Buffer; size: number } {
  const fd = openTrace(path);
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.alloc(1 << 16);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return { head: buf.subarray(0, n), size };
  } catch (e) {
    throw unreadable(path, e);
  } finally {
    closeSync(fd);
  }
}

/**
 * The first line of the file that is not blank, without a byte-order mark or "\r", and its
 * 1-based line number; null when the file is empty or only blank lines. Blank lines are looked
 * for within the first 64 KiB only; the line found there is read whole when it opens a JSON value
 * ("{" or "[") and goes on past 64 KiB (a JSONL request that keeps its prompt text): its keys
 * name the format (an attnscope line of 70,000 characters was cut, failed to parse and read as a
 * vllm bench serve result). A longer line of anything else is given as its first 64 KiB.
 */
export function firstLine(path: string): { text: string; line: number } | null {
  const { head, size } = readHead(path);
  const lines = head.toString('utf8').replace(/^\uFEFF/, '').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!.replace(/\r$/, '');
    if (text.trim() === '') continue;
    const cut = i === lines.length - 1 && head.length < size;
    if (!cut || !/^\s*[[{]/.test(text)) return { text, line: i + 1 };
    return { text: wholeLine(path, i + 1), line: i + 1 };
  }
  // More than 64 KiB of blank lines: not a trace this reads; say so at the first line.
  return head.length < size ? { text: '', line: 1 } : null;
}

/** Line `lineNo` (1-based) of the file, whole, decoded as UTF-8 ({@link scanLines} stops after it). */
function wholeLine(path: string, lineNo: number): string {
  let text = '';
  const done = new Error('line read');
  try {
    scanLines(path, (buf, s, e, n) => {
      if (n < lineNo) return;
      text = buf.toString('utf8', s, e);
      throw done;
    });
  } catch (e) {
    if (e !== done) throw e;
  }
  return text;
}

/**
 * About how many lines the file holds, for sizing the columns a reader fills: its size over the
 * mean line length of its first 64 KiB, plus 5 % (exact for a smaller file; 1024 for a pipe or
 * an empty sample).
 */
export function estimateLines(path: string): number {
  const { head, size } = readHead(path);
  const n = head.length;
  let lines = 0;
  for (let i = head.indexOf(10); i >= 0; i = head.indexOf(10, i + 1)) lines++;
  if (n === size) return lines + 1;
  return lines > 0 ? Math.ceil((size / n) * lines * 1.05) + 16 : 1024;
}

/**
 * Splits a CSV line (RFC 4180 quotes; these traces rarely need them). `columns`, when given,
 * receives each cell's 1-based column in the line (its opening quote, if quoted), for errors.
 */
export function splitCsv(line: string, columns?: number[]): string[] {
  if (!line.includes('"')) {
    const cells = line.split(',');
    if (columns) for (let k = 0, at = 1; k < cells.length; at += cells[k++].length + 1) columns.push(at);
    return cells;
  }
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  columns?.push(1);
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(cur);
      cur = '';
      columns?.push(i + 2);
    } else cur += c;
  }
  out.push(cur);
  return out;
}

/**
 * Cell boundaries of an unquoted CSV line buf[s, e) into `starts` / `ends` (the first
 * `starts.length` cells); the number of cells, or -1 when the line holds a quote (then the
 * string path splits it).
 */
export function splitCsvBytes(buf: Buffer, s: number, e: number, starts: Int32Array, ends: Int32Array): number {
  let cells = 0;
  let at = s;
  for (let i = s; i < e; i++) {
    const c = buf[i];
    if (c === 44) {
      if (cells < starts.length) {
        starts[cells] = at;
        ends[cells] = i;
      }
      cells++;
      at = i + 1;
    } else if (c === 34) return -1;
  }
  if (cells < starts.length) {
    starts[cells] = at;
    ends[cells] = e;
  }
  return cells + 1;
}

/** The integer of plain decimal digits buf[s, e) (1 to 10 digits), else -1. */
export function parseDigits(buf: Buffer, s: number, e: number): number {
  if (e <= s || e - s > 10) return -1;
  let v = 0;
  for (let i = s; i < e; i++) {
    const d = buf[i] - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * The number written buf[s, e) as `digits[.digits]` (at most 15 digits in all), else NaN.
 * Bit-identical to Number() of the text: the digits form an exact integer below 2^53 and the
 * power of ten is exact, so the one division rounds the decimal value correctly, as Number does.
 */
export function parseDecimal(buf: Buffer, s: number, e: number): number {
  let v = 0;
  let digits = 0;
  let point = -1;
  for (let i = s; i < e; i++) {
    const c = buf[i];
    if (c === 46 && point < 0) point = i;
    else {
      const d = c - 48;
      if (d < 0 || d > 9) return NaN;
      v = v * 10 + d;
      digits++;
    }
  }
  if (digits === 0 || digits > 15 || point === e - 1) return NaN;
  return point < 0 ? v : v / POW10[e - 1 - point];
}

/** The number of the two decimal digits at buf[at], else -1. */
function twoDigits(buf: Buffer, at: number): number {
  const a = buf[at] - 48;
  const b = buf[at + 1] - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/**
 * Reads "YYYY-MM-DD HH:MM:SS[.fraction]" datetimes (UTC) from bytes, remembering the last day so
 * that a trace's many stamps of one day cost no date arithmetic. `read` gives the same value as
 * parseDatetimeSeconds (traces.ts) on the text: whole seconds from Date.UTC plus the fraction
 * (at most 15 digits, divided by its power of ten: correctly rounded, as Number("0.…")), or NaN
 * for any other shape or an impossible field, which the caller then hands to the string path.
 */
export class DatetimeBytes {
  private day = -1;
  private dayS = 0;

  read(buf: Buffer, s: number, e: number): number {
    const len = e - s;
    if (len < 19 || buf[s + 4] !== 45 || buf[s + 7] !== 45 || (buf[s + 10] !== 32 && buf[s + 10] !== 84) || buf[s + 13] !== 58 || buf[s + 16] !== 58) return NaN;
    const century = twoDigits(buf, s);
    const yy = twoDigits(buf, s + 2);
    const year = century * 100 + yy;
    const month = twoDigits(buf, s + 5);
    const date = twoDigits(buf, s + 8);
    const hour = twoDigits(buf, s + 11);
    const minute = twoDigits(buf, s + 14);
    const second = twoDigits(buf, s + 17);
    if (century < 0 || yy < 0 || month < 0 || date < 0 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return NaN;
    const key = year * 10000 + month * 100 + date;
    if (key !== this.day) {
      const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
      if (month < 1 || month > 12 || date < 1 || date > daysInMonth) return NaN;
      this.day = key;
      this.dayS = Date.UTC(year, month - 1, date) / 1000;
    }
    const whole = this.dayS + hour * 3600 + minute * 60 + second;
    if (len === 19) return whole;
    if (buf[s + 19] !== 46 || len === 20 || len > 35) return NaN;
    let frac = 0;
    for (let i = s + 20; i < e; i++) {
      const d = buf[i] - 48;
      if (d < 0 || d > 9) return NaN;
      frac = frac * 10 + d;
    }
    return whole + frac / POW10[len - 20];
  }
}
