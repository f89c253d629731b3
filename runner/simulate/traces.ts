/**
 * The request traces users already have, for `attnscope simulate --trace FILE`, each detected
 * from its header or keys and read with its own time unit:
 *
 * - attnscope JSONL: {"arrival_s", "prompt_len", "output_len", "prefix_id"?, "prefix_len"?} (trace.ts); seconds.
 * - Azure LLM inference traces (Azure/AzurePublicDataset, AzureLLMInferenceTrace_{code,conv}):
 *   CSV `TIMESTAMP,ContextTokens,GeneratedTokens`, TIMESTAMP a datetime
 *   ("2023-11-16 18:15:46.6805900", read as UTC).
 * - BurstGPT (HPMLL/BurstGPT): CSV `Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type`,
 *   Timestamp in seconds from the trace's start; rows with 0 response tokens (failed requests)
 *   are dropped and counted; optional Model and Log Type filters.
 * - Mooncake (kvcache-ai/Mooncake traces): JSONL `timestamp` (milliseconds), `input_length`,
 *   `output_length`, `hash_ids` (one id per 512-token block, chained, so equal leading ids mean
 *   an equal prefix); the blocks become shared segments, so the simulator's prefix cache hits
 *   them at any page_size.
 * - `vllm bench serve --save-result --save-detailed` JSON: `input_lens`, `output_lens`, and
 *   `start_times` (seconds) when present; failed requests (`errors` non-empty) are dropped.
 *
 * Every reader but the vLLM one (a JSON document of a few MB) streams the file in 1 MiB chunks:
 * the memory it holds is the packed requests (RequestPacker), not the text. Arrivals are shifted
 * so that the first is at 0 s. Requests whose prompt reaches max_model_len (rejected by the
 * simulator) or whose prompt + output exceeds it (output clipped) are warned about by file:line.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import * as jsonc from 'jsonc-parser';
import { formatCount } from '../../core/format';
import type { ServingSimRequests } from '../../native';
import { MAX_TRACE_TOKENS, parseTraceLine, TraceError } from './trace';
import { RequestPacker, type TraceRequest } from './workload';

export type TraceFormat = 'attnscope' | 'azure' | 'burstgpt' | 'mooncake' | 'vllm-bench';
export const TRACE_FORMATS: readonly TraceFormat[] = ['attnscope', 'azure', 'burstgpt', 'mooncake', 'vllm-bench'];

/** The time unit each format's stamps are read in, for the CLI's report. */
export const TRACE_TIME_UNITS: Record<TraceFormat, string> = {
  attnscope: 'arrival_s, seconds',
  azure: 'TIMESTAMP, datetime (UTC)',
  burstgpt: 'Timestamp, seconds',
  mooncake: 'timestamp, milliseconds',
  'vllm-bench': 'start_times, seconds',
};

/** Tokens per Mooncake hash_ids block (the Mooncake trace's README: block size 512). */
export const MOONCAKE_BLOCK_TOKENS = 512;

export interface TraceReadOptions {
  /** Skip detection. */
  format?: TraceFormat;
  /** The served max_model_len, for the clip / reject warnings. */
  maxModelLen: number;
  /** BurstGPT: keep only rows of this Model ("ChatGPT", "GPT-4"). */
  model?: string;
  /** BurstGPT: keep only rows of this Log Type ("Conversation log", "API log"). */
  logType?: string;
  /** Receives `file:line:col: warning: …` lines. */
  warnings?: string[];
}

export interface TraceRead {
  requests: ServingSimRequests;
  format: TraceFormat;
  timeUnit: string;
  /** Rows read as requests. */
  count: number;
  /** Rows left out, by reason ("0 response tokens (failed)": 12). */
  dropped: Record<string, number>;
  /** What the reader assumed, in words (e.g. no start_times in a vLLM result). */
  notes: string[];
}

const CHUNK = 1 << 20;

/**
 * Calls `fn(line, lineNo)` for each line of the file (1-based, "\r" and a leading BOM stripped), reading 1 MiB at a
 * time. @throws TraceError naming the file when it cannot be read.
 */
export function forEachLine(path: string, fn: (line: string, lineNo: number) => void): void {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw unreadable(path, e);
  }
  try {
    const buf = Buffer.alloc(CHUNK);
    let rest = '';
    let lineNo = 0;
    // "\r" of CRLF files and a UTF-8 byte-order mark before the first line go.
    const emit = (line: string) => {
      const text = line.endsWith('\r') ? line.slice(0, -1) : line;
      fn(lineNo === 0 ? text.replace(/^\uFEFF/, '') : text, ++lineNo);
    };
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buf, 0, CHUNK, null);
      } catch (e) {
        throw unreadable(path, e);
      }
      if (n === 0) break;
      // Cut at the last newline in bytes, so that no UTF-8 sequence is split.
      const cut = buf.lastIndexOf(10, n - 1);
      if (cut < 0) {
        rest += buf.toString('utf8', 0, n);
        continue;
      }
      const text = rest + buf.toString('utf8', 0, cut);
      rest = buf.toString('utf8', cut + 1, n);
      for (const line of text.split('\n')) emit(line);
    }
    if (rest !== '') emit(rest);
  } finally {
    closeSync(fd);
  }
}

function unreadable(path: string, e: unknown): TraceError {
  const code = (e as NodeJS.ErrnoException).code;
  const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder, not a file' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
  return new TraceError(path, 1, 1, `cannot read the trace: ${why}`);
}

/** The first line of the file (at most 64 KiB of it). */
function firstLine(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw unreadable(path, e);
  }
  try {
    const buf = Buffer.alloc(1 << 16);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const text = buf.toString('utf8', 0, n).replace(/^\uFEFF/, '');
    const nl = text.indexOf('\n');
    return (nl < 0 ? text : text.slice(0, nl)).replace(/\r$/, '');
  } catch (e) {
    throw unreadable(path, e);
  } finally {
    closeSync(fd);
  }
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
 * The format of a trace file from its first line: a CSV header names Azure or BurstGPT columns;
 * a JSON line's keys name Mooncake, attnscope or a one-line vLLM result; a line that opens a
 * JSON document but is not one is a (pretty-printed) vLLM result.
 * @throws TraceError at 1:1 when nothing matches, listing the formats.
 */
export function detectTraceFormat(path: string): TraceFormat {
  const line = firstLine(path).trim();
  if (line.startsWith('{') || line.startsWith('[')) {
    let keys: string[] | null = null;
    try {
      const v = JSON.parse(line) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) keys = Object.keys(v);
    } catch {
      return 'vllm-bench';
    }
    if (keys) {
      if (keys.includes('hash_ids') || (keys.includes('input_length') && keys.includes('timestamp'))) return 'mooncake';
      if (keys.includes('input_lens')) return 'vllm-bench';
      if (keys.includes('arrival_s') || keys.includes('prompt_len')) return 'attnscope';
    }
  } else {
    const header = splitCsv(line).map((h) => h.trim());
    if (header.includes('ContextTokens') && header.includes('GeneratedTokens')) return 'azure';
    if (header.includes('Request tokens') && header.includes('Response tokens')) return 'burstgpt';
  }
  throw new TraceError(
    path, 1, 1,
    'unknown trace format: expected attnscope JSONL (arrival_s, prompt_len, output_len), an Azure LLM inference CSV (TIMESTAMP,ContextTokens,GeneratedTokens), ' +
      'a BurstGPT CSV (Timestamp,Model,Request tokens,Response tokens,...), Mooncake JSONL (timestamp, input_length, output_length, hash_ids) or a vllm bench serve result JSON (input_lens, output_lens)',
  );
}

/**
 * Seconds since the epoch of "YYYY-MM-DD HH:MM:SS[.fraction]" (UTC; any number of fraction digits), or NaN,
 * also for an impossible calendar date or time (month 13, February 30, hour 24, minute 60, second 60):
 * each field is checked against its range instead of letting Date.UTC roll it over into the next day.
 */
export function parseDatetimeSeconds(text: string): number {
  const m = /^\s*(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(\.\d+)?\s*(Z|[+-]00:?00)?\s*$/.exec(text);
  if (!m) return NaN;
  const [year, month, day, hour, minute, second] = [+m[1], +m[2], +m[3], +m[4], +m[5], +m[6]];
  // Day 0 of the next month is the last day of this one (Gregorian leap years included).
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return NaN;
  const whole = Date.UTC(year, month - 1, day, hour, minute, second) / 1000;
  return whole + (m[7] ? Number(`0${m[7]}`) : 0);
}

/**
 * Reads a trace file of any known format (detected unless opts.format says), packed for the
 * simulator with arrivals from 0 s.
 * @throws TraceError (`file:line:col: reason`) for an unreadable file, an unknown format, a bad
 *   row (missing column, a length that is not a positive integer, a stamp that does not parse),
 *   or a trace without requests.
 */
export function readTraceFile(path: string, opts: TraceReadOptions): TraceRead {
  const format = opts.format ?? detectTraceFormat(path);
  // The Model / Log Type filters exist only in BurstGPT: on another trace they would filter nothing, silently.
  if (format !== 'burstgpt' && (opts.model !== undefined || opts.logType !== undefined)) {
    throw new TraceError(path, 1, 1, `--trace-model and --trace-log-type filter BurstGPT traces only; this trace is ${format}`);
  }
  const warnings = opts.warnings ?? [];
  const packer = new RequestPacker();
  const dropped: Record<string, number> = {};
  const notes: string[] = [];
  const drop = (why: string) => (dropped[why] = (dropped[why] ?? 0) + 1);
  const limits = lengthWarnings(path, opts.maxModelLen, warnings);
  const add = (r: TraceRequest, where: string) => {
    limits.check(r, where);
    packer.add(r);
  };
  let hasStartTimes = true;
  if (format === 'vllm-bench') hasStartTimes = readVllmBench(path, add, drop, notes);
  else if (format === 'attnscope') {
    const unknown = new Set<string>();
    forEachLine(path, (line, n) => {
      const r = parseTraceLine(line, path, n, unknown, warnings);
      if (r) add(r, `${n}`);
    });
  } else if (format === 'mooncake') readMooncake(path, add, drop);
  else readCsv(path, format, opts, add, drop);
  limits.finish();
  if (packer.length === 0) throw new TraceError(path, 1, 1, `the ${format} trace holds no requests${Object.keys(dropped).length > 0 ? ` (dropped: ${describeDropped(dropped)})` : ''}`);
  const requests = packer.pack();
  const t0 = requests.arrivalS[0];
  if (t0 !== 0) for (let i = 0; i < requests.arrivalS.length; i++) requests.arrivalS[i] -= t0;
  return { requests, format, timeUnit: format === 'vllm-bench' && !hasStartTimes ? 'no start_times: arrivals from request_rate' : TRACE_TIME_UNITS[format], count: packer.length, dropped, notes };
}

/** "12 with 0 response tokens (failed), 3 of another model". */
export function describeDropped(dropped: Record<string, number>): string {
  return Object.entries(dropped).map(([why, n]) => `${formatCount(n)} ${why}`).join(', ');
}

/** The max_model_len warnings: the first three of each kind by file:line, then one count. */
function lengthWarnings(path: string, maxModelLen: number, warnings: string[]) {
  let rejected = 0;
  let clipped = 0;
  return {
    check(r: TraceRequest, where: string) {
      if (r.promptLen >= maxModelLen) {
        if (++rejected <= 3) warnings.push(`${path}:${where}:1: warning: prompt of ${r.promptLen} tokens reaches max_model_len ${maxModelLen}: the request is rejected`);
      } else if (r.promptLen + r.outputLen > maxModelLen) {
        if (++clipped <= 3) warnings.push(`${path}:${where}:1: warning: prompt ${r.promptLen} + output ${r.outputLen} tokens exceed max_model_len ${maxModelLen}: the output is clipped to ${maxModelLen - r.promptLen}`);
      }
    },
    finish() {
      if (rejected > 3) warnings.push(`${path}:1:1: warning: ${formatCount(rejected)} requests in all reach max_model_len ${maxModelLen} and are rejected`);
      if (clipped > 3) warnings.push(`${path}:1:1: warning: ${formatCount(clipped)} requests in all have their output clipped to max_model_len ${maxModelLen}`);
    },
  };
}

/** A token count from a trace field (an integer in [min, MAX_TRACE_TOKENS]), else a TraceError at that line and column. */
function count(text: unknown, what: string, path: string, line: number, column: number, min = 1): number {
  const v = typeof text === 'number' ? text : typeof text === 'string' && text.trim() !== '' ? Number(text) : NaN;
  if (!Number.isInteger(v) || v < min || v > MAX_TRACE_TOKENS) {
    throw new TraceError(path, line, column, `${what} must be an integer from ${min} to ${MAX_TRACE_TOKENS}, got ${text === undefined ? 'nothing' : JSON.stringify(text)}`);
  }
  return v;
}

function readCsv(path: string, format: 'azure' | 'burstgpt', opts: TraceReadOptions, add: (r: TraceRequest, where: string) => void, drop: (why: string) => void): void {
  const columns = format === 'azure' ? ['TIMESTAMP', 'ContextTokens', 'GeneratedTokens'] : ['Timestamp', 'Request tokens', 'Response tokens', 'Model', 'Log Type'];
  let index: number[] = [];
  let offsets: number[] = [];
  forEachLine(path, (raw, n) => {
    const line = n === 1 ? raw.replace(/^\uFEFF/, '') : raw;
    if (n === 1) {
      const header = splitCsv(line).map((h) => h.trim());
      index = columns.map((c) => header.indexOf(c));
      const required = format === 'azure' ? 3 : 3;
      const missing = columns.slice(0, required).filter((_, k) => index[k] < 0);
      if (missing.length > 0) throw new TraceError(path, 1, 1, `the ${format} header lacks ${missing.join(', ')}`);
      return;
    }
    if (line.trim() === '') return;
    offsets = [];
    const cells = splitCsv(line, offsets);
    const cell = (k: number) => cells[index[k]];
    const col = (k: number) => offsets[index[k]] ?? 1;
    if (format === 'burstgpt') {
      if (opts.model !== undefined && cell(3)?.trim() !== opts.model) return drop(`of another Model than ${opts.model}`);
      if (opts.logType !== undefined && cell(4)?.trim() !== opts.logType) return drop(`of another Log Type than ${opts.logType}`);
      if (Number(cell(2)) === 0) return drop('with 0 response tokens (failed requests)');
      const t = Number(cell(0));
      if (!Number.isFinite(t)) throw new TraceError(path, n, col(0), `Timestamp must be a number of seconds, got ${JSON.stringify(cell(0))}`);
      if (Number(cell(1)) === 0) return drop('with 0 request tokens');
      add({ arrivalS: t, promptLen: count(cell(1), 'Request tokens', path, n, col(1)), outputLen: count(cell(2), 'Response tokens', path, n, col(2)) }, `${n}`);
    } else {
      const t = parseDatetimeSeconds(cell(0) ?? '');
      if (!Number.isFinite(t)) throw new TraceError(path, n, col(0), `TIMESTAMP must be a valid datetime like 2023-11-16 18:15:46.6805900 (month 1-12, a day the month has, hour 0-23, minute and second 0-59), got ${JSON.stringify(cell(0))}`);
      if (Number(cell(2)) === 0) return drop('with 0 GeneratedTokens');
      add({ arrivalS: t, promptLen: count(cell(1), 'ContextTokens', path, n, col(1)), outputLen: count(cell(2), 'GeneratedTokens', path, n, col(2)) }, `${n}`);
    }
  });
}

function readMooncake(path: string, add: (r: TraceRequest, where: string) => void, drop: (why: string) => void): void {
  forEachLine(path, (line, n) => {
    if (line.trim() === '') return;
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(line) as Record<string, unknown>;
    } catch (e) {
      throw new TraceError(path, n, 1, `not JSON: ${(e as Error).message}`);
    }
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new TraceError(path, n, 1, 'each line must be a JSON object {"timestamp", "input_length", "output_length", "hash_ids"}');
    const t = v.timestamp;
    if (typeof t !== 'number' || !Number.isFinite(t)) throw new TraceError(path, n, 1, `"timestamp" must be a number of milliseconds, got ${JSON.stringify(t)}`);
    if (v.output_length === 0) return drop('with output_length 0');
    const promptLen = count(v.input_length, '"input_length"', path, n, 1);
    const outputLen = count(v.output_length, '"output_length"', path, n, 1);
    const ids = v.hash_ids;
    if (ids !== undefined && !(Array.isArray(ids) && ids.every((x) => typeof x === 'number' || typeof x === 'string'))) {
      throw new TraceError(path, n, 1, '"hash_ids" must be an array of block ids');
    }
    add({ arrivalS: t / 1000, promptLen, outputLen, hashIds: ids as number[] | undefined, hashBlockTokens: MOONCAKE_BLOCK_TOKENS }, `${n}`);
  });
}

/** Adds the result's requests; true when their arrivals came from start_times. */
function readVllmBench(path: string, add: (r: TraceRequest, where: string) => void, drop: (why: string) => void, notes: string[]): boolean {
  const doc = readVllmResult(path);
  const n = doc.inputLens.length;
  const start = doc.startTimes;
  if (!start) {
    notes.push(
      Number.isFinite(doc.requestRate) && doc.requestRate > 0
        ? `the result has no start_times: arrivals spaced evenly at its request_rate ${doc.requestRate}/s`
        : 'the result has no start_times and request_rate inf: every request arrives at 0 s',
    );
  }
  if (doc.maxConcurrency !== null) notes.push(`the benchmark capped concurrency at ${doc.maxConcurrency} (max_concurrency); the replay does not`);
  for (let i = 0; i < n; i++) {
    if (doc.errors?.[i]) {
      drop('failed (errors non-empty)');
      continue;
    }
    const arrivalS = start ? start[i] : Number.isFinite(doc.requestRate) && doc.requestRate > 0 ? i / doc.requestRate : 0;
    if (typeof arrivalS !== 'number' || !Number.isFinite(arrivalS)) throw new TraceError(path, 1, 1, `start_times[${i}] must be a number of seconds, got ${JSON.stringify(arrivalS) ?? 'nothing'}`);
    if (doc.outputLens[i] === 0) {
      drop('with output_lens 0');
      continue;
    }
    add({ arrivalS, promptLen: count(doc.inputLens[i], `input_lens[${i}]`, path, 1, 1), outputLen: count(doc.outputLens[i], `output_lens[${i}]`, path, 1, 1) }, `1`);
  }
  return start !== null;
}

/** 1-based line and column (in UTF-16 code units) of `offset` in `text`. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

/** The per-request arrays of a `vllm bench serve --save-result --save-detailed` JSON. */
export interface VllmBenchResult {
  inputLens: number[];
  outputLens: number[];
  /** Seconds. */
  ttfts: number[] | null;
  /** Seconds, per request: the gaps between its output tokens. */
  itls: number[][] | null;
  startTimes: number[] | null;
  errors: string[] | null;
  /** requests/s; Infinity when the benchmark sent everything at once. */
  requestRate: number;
  maxConcurrency: number | null;
}

/**
 * Reads a vllm bench serve result. @throws TraceError when it is not JSON, or lacks the
 * per-request arrays (saved only with --save-detailed), or they differ in length.
 */
export function readVllmResult(path: string): VllmBenchResult {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw unreadable(path, e);
  }
  // jsonc-parser reports errors by offset; the CLI line wants line:col of the first one.
  const errors: jsonc.ParseError[] = [];
  const v = jsonc.parse(text, errors, { allowTrailingComma: false, disallowComments: true }) as Record<string, unknown>;
  if (errors.length > 0) {
    const { line, column } = lineColumn(text, errors[0].offset);
    throw new TraceError(path, line, column, `not JSON: ${jsonc.printParseErrorCode(errors[0].error)}`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new TraceError(path, 1, 1, 'a vllm bench serve result is a JSON object');
  const nums = (key: string): number[] | null => (Array.isArray(v[key]) ? (v[key] as number[]) : null);
  const inputLens = nums('input_lens');
  const outputLens = nums('output_lens');
  if (!inputLens || !outputLens) throw new TraceError(path, 1, 1, 'a vllm bench serve result needs per-request input_lens and output_lens: save it with --save-result --save-detailed');
  const n = inputLens.length;
  const sameLength = (key: string, a: unknown[] | null) => {
    if (a && a.length !== n) throw new TraceError(path, 1, 1, `${key} has ${a.length} entries, input_lens ${n}`);
    return a;
  };
  sameLength('output_lens', outputLens);
  const rr = v.request_rate;
  return {
    inputLens,
    outputLens,
    ttfts: sameLength('ttfts', nums('ttfts')) as number[] | null,
    itls: sameLength('itls', Array.isArray(v.itls) ? (v.itls as number[][]) : null) as number[][] | null,
    startTimes: sameLength('start_times', nums('start_times')) as number[] | null,
    errors: sameLength('errors', Array.isArray(v.errors) ? (v.errors as string[]) : null) as string[] | null,
    requestRate: typeof rr === 'number' ? rr : rr === 'inf' || rr === 'Infinity' || rr === undefined || rr === null ? Infinity : Number(rr),
    maxConcurrency: typeof v.max_concurrency === 'number' ? v.max_concurrency : null,
  };
}
