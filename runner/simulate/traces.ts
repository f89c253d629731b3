/**
 * The request traces users already have, for `attnscope simulate --trace FILE`, each detected
 * from its header or keys and read with its own time unit:
 *
 * - attnscope JSONL: {"arrival_s", "prompt_len", "output_len", "prefix_id"?, "prefix_len"?} (trace.ts); seconds.
 * - Azure LLM inference traces (Azure/AzurePublicDataset, AzureLLMInferenceTrace_{code,conv}):
 *   CSV `TIMESTAMP,ContextTokens,GeneratedTokens`, TIMESTAMP a datetime
 *   ("2023-11-16 18:15:46.6805900", read as UTC; a ±HH:MM offset, as the 2024 traces' +00:00, is applied).
 * - BurstGPT (HPMLL/BurstGPT): CSV `Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type`,
 *   Timestamp in seconds from the trace's start; rows with 0 response tokens (failed requests)
 *   are dropped and counted; optional Model and Log Type filters (ignoring case; one that keeps no
 *   row is refused naming the values the trace has).
 * - Mooncake (kvcache-ai/Mooncake traces): JSONL `timestamp` (milliseconds), `input_length`,
 *   `output_length`, `hash_ids` (one id per 512-token block, chained, so equal leading ids mean
 *   an equal prefix); the blocks become shared segments, so the simulator's prefix cache hits
 *   them at any page_size.
 * - `vllm bench serve --save-result --save-detailed` JSON: `input_lens`, `output_lens`, and
 *   `start_times` (seconds) when present; failed requests (`errors` non-empty) are dropped.
 *
 * Every reader but the vLLM one (a JSON document of a few MB) streams the file in 1 MiB chunks
 * (lines.ts): the memory it holds is the packed requests (RequestPacker, ~20 bytes each), not
 * the text. Requests out of arrival order are warned about (the first at its file:line:col,
 * then a count) and replayed sorted by arrival, stably. Arrivals are shifted so that the first
 * is at 0 s. `--trace-time-unit` reads numeric stamps in another unit than the format's; without
 * it, a trace read in seconds that looks written in milliseconds is refused (MS_SUSPECT_SPAN_S).
 * Requests whose prompt reaches max_model_len (rejected by the simulator) or whose
 * prompt + output exceeds it (output clipped) are warned about by file:line.
 */
import { readFileSync } from 'node:fs';
import * as jsonc from 'jsonc-parser';
import { jsonCutShortAt, jsonCutShortText, jsonSyntaxText, nodeAtPath, parseJsonTree, unsafeIntegerText } from '../../core/config/tree';
import { fileLocation, offsetToLineColumn } from '../../core/config/positions';
import { formatCount, formatCountOf, formatDuration, formatSignificant } from '../../core/format';
import type { ServingSimRequests } from '../../native';
import type { TraceReplay } from '../../core/protocol/run';
import { TRACE_SETTING_KEYS, type TraceTimeUnit, type WorkloadTrace } from '../../core/config/types';
import { DatetimeBytes, estimateLines, firstLine, forEachLine, parseDecimal, parseDigits, scanLines, splitCsv, splitCsvBytes, unreadable } from './lines';
import { JsonlTraceReader, jsonValueText, keysWrittenOnce, MAX_TRACE_TOKENS, refuseRepeatedKey, TraceError, TraceProblems } from './trace';
import { Column, endSendsAtRate, RequestPacker, type TraceRequest } from './workload';
import { Rng } from '../random';

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

/** The units a trace's numeric time stamps can be read in (`--trace-time-unit`), in seconds each. */
export const TRACE_TIME_UNIT_SECONDS: Record<TraceTimeUnit, number> = { s: 1, ms: 1e-3 };
export type { TraceTimeUnit };

/** The unit each format's numeric stamps are written in; null for Azure's datetimes, which carry their own. */
const FORMAT_TIME_UNIT: Record<TraceFormat, TraceTimeUnit | null> = { attnscope: 's', azure: null, burstgpt: 's', mooncake: 'ms', 'vllm-bench': 's' };

/**
 * A trace read in seconds whose arrivals span more than this, with most gaps between arrivals
 * over {@link MS_SUSPECT_GAP_S}, is refused unless --trace-time-unit says its unit: 6 hours.
 * Stamps in milliseconds read as seconds stretch a trace 1,000 times: a 2.5-minute trace of
 * requests 100 ms apart replays as 41.7 hours with arrivals 100 s apart (a newcomer's, session
 * 31). A serving trace recorded in seconds rarely spans hours at under one request a minute in
 * its median; one that does is replayed as written with --trace-time-unit s.
 */
export const MS_SUSPECT_SPAN_S = 6 * 3600;
/** See {@link MS_SUSPECT_SPAN_S}: a median gap between arrivals over 60 s. */
export const MS_SUSPECT_GAP_S = 60;
/** See {@link MS_SUSPECT_SPAN_S}: only a trace of at least 10 requests has a median gap worth judging by. */
export const MS_SUSPECT_MIN_REQUESTS = 10;

/** Tokens per Mooncake hash_ids block (the Mooncake trace's README: block size 512). */
export const MOONCAKE_BLOCK_TOKENS = 512;

export interface TraceReadOptions {
  /** Skip detection. */
  format?: TraceFormat;
  /** The served max_model_len, for the clip / reject warnings. */
  maxModelLen: number;
  /** Where maxModelLen comes from when the profile does not write it (core/estimate maxModelLenOf), said in those warnings. */
  maxModelLenSource?: string;
  /** BurstGPT: keep only rows of this Model ("ChatGPT", "GPT-4"), compared ignoring case. */
  model?: string;
  /** BurstGPT: keep only rows of this Log Type ("Conversation log", "API log"), compared ignoring case. */
  logType?: string;
  /**
   * The unit of the trace's numeric time stamps, when it is not the format's own (--trace-time-unit):
   * also says that a span {@link MS_SUSPECT_SPAN_S} would refuse is meant. Not for Azure's datetimes.
   */
  timeUnit?: TraceTimeUnit;
  /** Receives `file:line:col: warning: …` lines. */
  warnings?: string[];
  /**
   * Where the reader's messages say timeUnit, model and logType are set: 'flags' (default:
   * `--trace-time-unit ms`) or, for a profile's workload.trace, 'profile' (`workload.trace_time_unit: ms`).
   */
  settingsFrom?: TraceSettingsFrom;
}

/**
 * Where a trace's read options are set: simulate's --trace-* flags, or a profile's workload.trace_*
 * keys; or each option its own (a profile's trace read with a --trace-model flag: that flag for the
 * model, the keys for the rest; an option left out of the record is the profile's key).
 */
export type TraceSettingsFrom = 'flags' | 'profile' | { [K in keyof typeof TRACE_SETTING_KEYS]?: 'flags' | 'profile' };

/** Where one trace read option is set, from {@link TraceSettingsFrom}. */
function settingFrom(field: keyof typeof TRACE_SETTING_KEYS, from: TraceSettingsFrom): 'flags' | 'profile' {
  return typeof from === 'string' ? from : (from[field] ?? 'profile');
}

/**
 * A trace read option as the user sets it, in one wording: the flag (`--trace-time-unit`, with a
 * value `--trace-time-unit ms`) or the profile's key (`workload.trace_time_unit`, with a value
 * `workload.trace_time_unit: ms`); core/config/types.ts TRACE_SETTING_KEYS pairs them.
 */
export function traceSetting(field: keyof typeof TRACE_SETTING_KEYS, from: TraceSettingsFrom = 'flags', value?: string): string {
  const key = TRACE_SETTING_KEYS[field];
  if (settingFrom(field, from) === 'profile') return `workload.${key}${value !== undefined ? `: ${value}` : ''}`;
  return `--${key.replace(/_/g, '-')}${value !== undefined ? ` ${value}` : ''}`;
}

export interface TraceRead {
  requests: ServingSimRequests;
  /** The 1-based line each request of `requests` was read at (same order), for warnings about one request. */
  lines: Int32Array;
  format: TraceFormat;
  /** The time stamps in words: their column and unit, and the setting that gave the unit ("arrival_s, milliseconds (--trace-time-unit ms)"). */
  timeUnit: string;
  /** The column the arrivals were read from ("arrival_s", "TIMESTAMP"); null when none (a vllm bench serve result without start_times). */
  timeColumn: string | null;
  /** The unit that column was read in, as --trace-time-unit spells it ('datetime': Azure's TIMESTAMP); null with no column. */
  stampUnit: TraceTimeUnit | 'datetime' | null;
  /** Rows read as requests. */
  count: number;
  /** Rows left out, by reason ("0 response tokens (failed)": 12). */
  dropped: Record<string, number>;
  /** What the reader assumed, in words (e.g. no start_times in a vLLM result). */
  notes: string[];
}

/** Seconds from the first arrival to the last (0 for none or one). */
export function arrivalSpan(arrivalS: Float64Array): number {
  let lo = Infinity;
  let hi = -Infinity;
  for (const a of arrivalS) {
    if (a < lo) lo = a;
    if (a > hi) hi = a;
  }
  return arrivalS.length > 1 ? hi - lo : 0;
}

/**
 * What a run records of the trace it replayed (PoolLoad.trace): `path` as named (the --trace
 * argument, or workload.trace as written), where (`from`), absolute `resolvedPath`, and from the
 * read: format, time unit, rows, dropped, the span of the arrivals as recorded; `filters` the
 * BurstGPT ones given.
 */
export function traceReplay(read: TraceRead, path: string, from: NonNullable<TraceReplay['from']>, resolvedPath: string, filters: NonNullable<TraceReplay['filters']> = {}): TraceReplay {
  return {
    path, from, resolvedPath, format: read.format, timeUnit: read.timeUnit, rowsRead: read.count, spanS: arrivalSpan(read.requests.arrivalS), dropped: read.dropped,
    ...(Object.keys(filters).length > 0 ? { filters } : {}),
  };
}

/**
 * A profile's workload.trace read as the profile says: its trace_time_unit, trace_model and
 * trace_log_type (messages naming those keys, not the CLI's flags), the requests capped by the
 * workload's max_model_len. The reader of a profile's trace where no caller read it first (a
 * sweep's simulate point in simulatePool, a max-rate point in the sweep worker); `filters`: the
 * BurstGPT ones it applied, for {@link traceReplay}.
 * @throws TraceError as {@link readTraceFile}.
 */
export function readProfileTrace(trace: WorkloadTrace, maxModelLen: number): { read: TraceRead; filters: NonNullable<TraceReplay['filters']> } {
  const read = readTraceFile(trace.resolvedPath, { maxModelLen, timeUnit: trace.timeUnit, model: trace.model, logType: trace.logType, settingsFrom: 'profile' });
  const filters = { ...(trace.model !== undefined ? { model: trace.model } : {}), ...(trace.logType !== undefined ? { logType: trace.logType } : {}) };
  return { read, filters };
}

/**
 * The format of a trace file from its first line that is not blank: a CSV header names Azure or BurstGPT columns;
 * a JSON line's keys name Mooncake, attnscope or a one-line vLLM result; a line that opens a
 * JSON document but is not one is a (pretty-printed) vLLM result.
 * @throws TraceError at that line when nothing matches, listing the formats; at 1:1 for an empty file.
 */
export function detectTraceFormat(path: string): TraceFormat {
  const first = firstLine(path);
  if (first === null) throw new TraceError(path, 1, 1, 'the trace is empty (or only blank lines): no requests to replay');
  const line = first.text.trim();
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
    path, first.line, 1,
    `unknown trace format: expected ${TRACE_FORMATS.slice(0, -1).map((f) => TRACE_FORMAT_TEXT[f]).join(', ')} or ${TRACE_FORMAT_TEXT[TRACE_FORMATS.at(-1)!]}; ` +
      `name the format with --trace-format ${TRACE_FORMATS.join(', ')} if the first line is not its header`,
  );
}

/**
 * Seconds since the epoch of "YYYY-MM-DD HH:MM:SS[.fraction][Z|±HH:MM]" (UTC unless an offset says
 * otherwise; any number of fraction digits), or NaN,
 * also for an impossible calendar date or time (month 13, February 30, hour 24, minute 60, second 60):
 * each field is checked against its range instead of letting Date.UTC roll it over into the next day.
 */
export function parseDatetimeSeconds(text: string): number {
  const m = /^\s*(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(\.\d+)?\s*(Z|([+-])(\d{2}):?(\d{2}))?\s*$/.exec(text);
  if (!m) return NaN;
  const [year, month, day, hour, minute, second] = [+m[1], +m[2], +m[3], +m[4], +m[5], +m[6]];
  // Day 0 of the next month is the last day of this one (Gregorian leap years included).
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return NaN;
  // A UTC offset (ISO 8601 ±HH:MM, at most ±23:59) is taken off: 02:00+02:00 is 00:00 UTC.
  const offsetS = m[9] ? (m[9] === '-' ? -1 : 1) * (+m[10] * 3600 + +m[11] * 60) : 0;
  if (m[9] && (+m[10] > 23 || +m[11] > 59)) return NaN;
  const whole = Date.UTC(year, month - 1, day, hour, minute, second) / 1000 - offsetS;
  return whole + (m[7] ? Number(`0${m[7]}`) : 0);
}

/**
 * The longest trace replayed, first to last arrival, in seconds: 1e9 s (about 32 years). Simulated
 * time is a float64 count of seconds; at 1e9 s its spacing (ulp) is 1.2e-7 s, fine enough for
 * step times of microseconds, while at 1e18 s it is 128 s and a 6 ms step adds nothing (TTFTs
 * came out 0).
 */
export const MAX_TRACE_SPAN_S = 1e9;

/**
 * Where the readers put their requests: the packer, with the checks that look across lines
 * (max_model_len, arrival order) and their warnings.
 */
class TraceSink {
  readonly packer: RequestPacker;
  /** The line each request was read at, in the order added. */
  private readonly lines: Column<Int32Array>;
  private rejected = 0;
  private clipped = 0;
  /** The earliest and latest arrivals read, and the line of the latest, for {@link MAX_TRACE_SPAN_S}. */
  private first = Infinity;
  private last = -Infinity;
  private lastLine = 1;

  /**
   * @param scale what the readers' arrivals (seconds, in the format's own unit) are multiplied by:
   *   1, or the ratio of --trace-time-unit to the format's unit (0.001 for a BurstGPT written in ms).
   */
  constructor(
    private readonly path: string,
    private readonly maxModelLen: number,
    private readonly warnings: string[],
    expected: number,
    private readonly maxModelLenSource?: string,
    private readonly scale = 1,
  ) {
    this.packer = new RequestPacker(expected);
    this.lines = new Column((n) => new Int32Array(n), expected);
  }

  /** The requests packed for the simulator, and the line of each (both in arrival order). The sink is empty after. */
  pack(): { requests: ServingSimRequests; lines: Int32Array } {
    const requests = this.packer.pack();
    const added = this.lines.take();
    const order = this.packer.order;
    if (!order) return { requests, lines: added };
    const lines = new Int32Array(order.length);
    for (let i = 0; i < order.length; i++) lines[i] = added[order[i]];
    return { requests, lines };
  }

  /** The line of the latest arrival read. */
  get latestLine(): number {
    return this.lastLine;
  }

  /** "max_model_len 8,192", with its source when the profile does not write it. */
  private get limitText(): string {
    return `max_model_len ${formatCount(this.maxModelLen)}${this.maxModelLenSource ? ` (${this.maxModelLenSource})` : ''}`;
  }

  /** True when a request arriving at `arrivalS` comes before the last one added (the caller then adds it with its column, {@link add}). */
  late(arrivalS: number): boolean {
    return arrivalS * this.scale < this.packer.lastArrival();
  }

  /** A request without shared prefix, known to be in order ({@link late} false): the CSV readers' fast path. */
  addInOrder(arrivalS: number, promptLen: number, outputLen: number, line: number): void {
    arrivalS *= this.scale;
    this.span(arrivalS, line);
    if (promptLen + outputLen > this.maxModelLen) this.limits(promptLen, outputLen, line);
    this.packer.addPlain(arrivalS, promptLen, outputLen);
    this.lines.push(line);
  }

  /** A request read at `line`; `column` is that of its arrival time, for the order warning. */
  add(r: TraceRequest, line: number, column: number): void {
    if (this.scale !== 1) r = { ...r, arrivalS: r.arrivalS * this.scale };
    if (r.arrivalS < this.packer.lastArrival() && this.packer.outOfOrder === 0) {
      const gap = this.packer.lastArrival() - r.arrivalS;
      this.warnings.push(
        `${fileLocation(this.path, line, column)}: warning: this request arrives ${formatSignificant(gap)} s before the one read before it: ` +
          'the trace is replayed in arrival order (sorted, stably: equal times keep the file\'s order)',
      );
    }
    this.span(r.arrivalS, line);
    if (r.promptLen + r.outputLen > this.maxModelLen) this.limits(r.promptLen, r.outputLen, line);
    this.packer.add(r);
    this.lines.push(line);
  }

  private span(arrivalS: number, line: number): void {
    if (arrivalS < this.first) this.first = arrivalS;
    if (arrivalS > this.last) {
      this.last = arrivalS;
      this.lastLine = line;
    }
  }

  private limits(promptLen: number, outputLen: number, line: number): void {
    const { path, maxModelLen } = this;
    if (promptLen >= maxModelLen) {
      if (++this.rejected <= 3) this.warnings.push(`${fileLocation(path, line, 1)}: warning: prompt of ${formatCount(promptLen)} tokens reaches ${this.limitText}: the request is rejected`);
    } else if (++this.clipped <= 3) {
      this.warnings.push(`${fileLocation(path, line, 1)}: warning: prompt ${formatCount(promptLen)} + output ${formatCount(outputLen)} tokens exceed ${this.limitText}: the output is clipped to ${formatCount(maxModelLen - promptLen)}`);
    }
  }

  /**
   * The counts past the first warnings; into `problems`, a TraceError at the latest request's line
   * when the trace spans more than {@link MAX_TRACE_SPAN_S}.
   */
  finish(problems: TraceProblems): void {
    const { path, rejected, clipped } = this;
    if (this.last - this.first > MAX_TRACE_SPAN_S) {
      problems.add(new TraceError(
        path,
        this.lastLine,
        1,
        `this request arrives ${formatCount(this.last - this.first)} s after the first one: a trace may span at most ${formatCount(MAX_TRACE_SPAN_S)} s (about 32 years; ` +
          'the simulator keeps time in float64 seconds, which resolve its microsecond steps only that far). Check the time unit of the arrival column',
      ));
    }
    const late = this.packer.outOfOrder;
    if (late > 1) this.warnings.push(`${fileLocation(path, 1, 1)}: warning: ${formatCount(late)} requests in all arrive before the one read before them; all are replayed in arrival order`);
    if (rejected > 3) this.warnings.push(`${fileLocation(path, 1, 1)}: warning: ${formatCount(rejected)} requests in all reach ${this.limitText} and are rejected`);
    if (clipped > 3) this.warnings.push(`${fileLocation(path, 1, 1)}: warning: ${formatCount(clipped)} requests in all have their output clipped to ${this.limitText}`);
  }
}

/** Each format in words, with what its first line holds (detectTraceFormat's cues). */
const TRACE_FORMAT_TEXT: Record<TraceFormat, string> = {
  attnscope: 'attnscope JSONL (arrival_s, prompt_len, output_len)',
  azure: 'an Azure LLM inference CSV (TIMESTAMP,ContextTokens,GeneratedTokens)',
  burstgpt: 'a BurstGPT CSV (Timestamp,Model,Request tokens,Response tokens,...)',
  mooncake: 'Mooncake JSONL (timestamp, input_length, output_length, hash_ids)',
  'vllm-bench': 'a vllm bench serve result JSON (input_lens, output_lens)',
};
const CSV_FORMATS: ReadonlySet<TraceFormat> = new Set(['azure', 'burstgpt']);

/**
 * Refuses `--trace-format requested` on a file detectTraceFormat reads as a format of the other
 * kind (a CSV for a JSON format, or JSON for a CSV one), which that reader could only fail on at
 * its first line ("not JSON: Unexpected token 'T'"): says what the format expects and what the
 * file looks like (a CSV's format by its header; JSON as JSON). Files of the same kind, or of no known format, are left to the reader.
 * @throws TraceError at the first line that is not blank.
 */
function refuseOtherKind(path: string, requested: TraceFormat): void {
  let detected: TraceFormat;
  try {
    detected = detectTraceFormat(path);
  } catch {
    return;
  }
  if (CSV_FORMATS.has(detected) === CSV_FORMATS.has(requested)) return;
  // A CSV is named by its header; a JSON first line that does not parse is detected as a vLLM result only by elimination.
  const looks = CSV_FORMATS.has(detected)
    ? `this file looks like ${TRACE_FORMAT_TEXT[detected]}: pass --trace-format ${detected}, or leave --trace-format out to detect it`
    : 'this file\'s first line opens a JSON document: leave --trace-format out to detect its format';
  throw new TraceError(path, firstLine(path)?.line ?? 1, 1, `--trace-format ${requested} expects ${TRACE_FORMAT_TEXT[requested]}, but ${looks}`);
}

/**
 * Reads a trace file of any known format (detected unless opts.format says), packed for the
 * simulator in arrival order with arrivals from 0 s.
 * @throws TraceError (`file:line:col: reason`) for an unreadable file, an unknown format, a header
 *   without the format's columns, or a trace without requests; InputErrors of every bad row
 *   (missing column, a length that is not a positive integer, a stamp that does not parse,
 *   inconsistent prefixes, Mooncake hash_ids that are not block ids), read to the end of the file
 *   and capped as {@link TraceProblems} says, before any work.
 */
export function readTraceFile(path: string, opts: TraceReadOptions): TraceRead {
  if (opts.format !== undefined) refuseOtherKind(path, opts.format);
  const format = opts.format ?? detectTraceFormat(path);
  // The Model / Log Type filters exist only in BurstGPT: on another trace they would filter nothing, silently.
  if (format !== 'burstgpt' && (opts.model !== undefined || opts.logType !== undefined)) {
    throw new TraceError(path, 1, 1, `${traceSetting('model', opts.settingsFrom)} and ${traceSetting('logType', opts.settingsFrom)} filter BurstGPT traces only; this trace is ${format}`);
  }
  const ownUnit = FORMAT_TIME_UNIT[format];
  if (opts.timeUnit !== undefined && ownUnit === null) throw new TraceError(path, 1, 1, `${traceSetting('timeUnit', opts.settingsFrom, opts.timeUnit)}: this ${format} trace's TIMESTAMP is a datetime, which says its own time; leave ${traceSetting('timeUnit', opts.settingsFrom)} out`);
  const scale = opts.timeUnit !== undefined && ownUnit !== null ? TRACE_TIME_UNIT_SECONDS[opts.timeUnit] / TRACE_TIME_UNIT_SECONDS[ownUnit] : 1;
  const warnings = opts.warnings ?? [];
  // Columns sized from the file's line count (one request a line), so that they need not grow.
  const sink = new TraceSink(path, opts.maxModelLen, warnings, format === 'vllm-bench' ? 1024 : estimateLines(path), opts.maxModelLenSource, scale);
  const dropped: Record<string, number> = {};
  const notes: string[] = [];
  const drop = (why: string) => (dropped[why] = (dropped[why] ?? 0) + 1);
  /** BurstGPT: the Model and Log Type values of the rows a filter dropped, to name when it keeps none. */
  const filtered: FilteredValues = { model: new Map(), logType: new Map(), modelKept: false, logTypeKept: false };
  // Every bad row, each skipped: refused together once the file is read.
  const problems = new TraceProblems();
  let hasStartTimes = true;
  if (format === 'vllm-bench') hasStartTimes = readVllmBench(path, sink, drop, notes, problems, opts.format === undefined ? DETECTED_VLLM_HINT : '');
  else if (format === 'attnscope') {
    const reader = new JsonlTraceReader(path, warnings);
    forEachLine(path, (line, n) => {
      let r: TraceRequest | null;
      try {
        r = reader.line(line, n);
      } catch (e) {
        return problems.add(e);
      }
      if (r) sink.add(r, n, sink.late(r.arrivalS) ? jsonColumn(line, ['arrival_s']) : 1);
    });
    reader.finish(notes);
  } else if (format === 'mooncake') readMooncake(path, sink, drop, warnings, problems);
  else readCsv(path, format, opts, sink, drop, warnings, filtered, problems);
  sink.finish(problems);
  problems.throwIfAny();
  const count = sink.packer.length;
  if (count === 0) throw new TraceError(path, 1, 1, `the ${format} trace holds no requests${Object.keys(dropped).length > 0 ? ` (dropped: ${describeDropped(dropped)})` : ''}${filterValuesText(opts, filtered)}`);
  const { requests, lines } = sink.pack();
  const t0 = requests.arrivalS[0];
  if (t0 !== 0) for (let i = 0; i < requests.arrivalS.length; i++) requests.arrivalS[i] -= t0;
  const stamped = !(format === 'vllm-bench' && !hasStartTimes);
  if (opts.timeUnit === undefined && ownUnit === 's' && stamped) refuseMillisecondsAsSeconds(path, format, requests.arrivalS, sink.latestLine, opts.settingsFrom);
  // attnscope's arrival_s says seconds by its name: a millisecond setting on stamps that do not look like
  // milliseconds (the test above, on the values as written) is a warning, with the span either way.
  if (format === 'attnscope' && opts.timeUnit === 'ms' && !looksLikeMilliseconds(requests.arrivalS.map((t) => t * 1000))) {
    const span = requests.arrivalS[requests.arrivalS.length - 1]!;
    warnings.push(
      `${fileLocation(path, 1, 1)}: warning: arrival_s is in seconds by its name, but ${traceSetting('timeUnit', opts.settingsFrom, 'ms')} reads it as milliseconds: ` +
        `the arrivals span ${formatDuration(span * 1e9)}, not ${formatDuration(span * 1e12)}; leave ${traceSetting('timeUnit', opts.settingsFrom)} out unless the file holds milliseconds`,
    );
  }
  const unitText = opts.timeUnit !== undefined && ownUnit !== null && opts.timeUnit !== ownUnit
    ? `${TRACE_TIME_UNITS[format].replace(/,.*$/, '')}, ${opts.timeUnit === 'ms' ? 'milliseconds' : 'seconds'} (${traceSetting('timeUnit', opts.settingsFrom, opts.timeUnit)})`
    : TRACE_TIME_UNITS[format];
  const timeColumn = stamped ? TRACE_TIME_UNITS[format].replace(/,.*$/, '') : null;
  const stampUnit = !stamped ? null : ownUnit === null ? 'datetime' : (opts.timeUnit ?? ownUnit);
  return { requests, lines, format, timeUnit: stamped ? unitText : 'no start_times: arrivals from request_rate', timeColumn, stampUnit, count, dropped, notes };
}

/**
 * Whether arrivals read in seconds (`arrivalS` sorted, from 0) look written in milliseconds: at least
 * {@link MS_SUSPECT_MIN_REQUESTS}, spanning more than {@link MS_SUSPECT_SPAN_S}, with more than half the
 * gaps over {@link MS_SUSPECT_GAP_S}.
 */
function looksLikeMilliseconds(arrivalS: Float64Array): boolean {
  const n = arrivalS.length;
  if (n < MS_SUSPECT_MIN_REQUESTS || arrivalS[n - 1]! <= MS_SUSPECT_SPAN_S) return false;
  let wide = 0;
  for (let i = 1; i < n; i++) if (arrivalS[i]! - arrivalS[i - 1]! > MS_SUSPECT_GAP_S) wide++;
  return wide > (n - 1) / 2;
}

/**
 * Refuses a trace read in seconds that looks written in milliseconds: its arrivals span more than
 * {@link MS_SUSPECT_SPAN_S} and more than half the gaps between them (its median gap) exceed
 * {@link MS_SUSPECT_GAP_S}, in a trace of at least {@link MS_SUSPECT_MIN_REQUESTS}. `arrivalS` sorted, from 0.
 * @throws TraceError at the latest arrival's line, saying which flag replays it either way.
 */
function refuseMillisecondsAsSeconds(path: string, format: TraceFormat, arrivalS: Float64Array, latestLine: number, from: TraceSettingsFrom = 'flags'): void {
  if (!looksLikeMilliseconds(arrivalS)) return;
  const n = arrivalS.length;
  const span = arrivalS[n - 1]!;
  let wide = 0;
  for (let i = 1; i < n; i++) if (arrivalS[i]! - arrivalS[i - 1]! > MS_SUSPECT_GAP_S) wide++;
  throw new TraceError(
    path, latestLine, 1,
    `the ${format} trace read in seconds (${TRACE_TIME_UNITS[format]}) spans ${formatSignificant(span / 3600)} hours, and most gaps between its arrivals are over ${MS_SUSPECT_GAP_S} s ` +
      `(${formatCount(wide)} of ${formatCount(n - 1)}): its timestamps look like milliseconds: ${settingFrom('timeUnit', from) === 'profile' ? 'set' : 'pass'} ${traceSetting('timeUnit', from, 'ms')} (or ${traceSetting('timeUnit', from, 's')} to replay them as seconds)`,
  );
}

/**
 * The Model and Log Type values of the BurstGPT rows a filter dropped, with their row counts (at
 * most {@link FILTER_VALUES_KEPT} of each), and whether the filter kept any row (the Log Type
 * filter sees the rows the Model filter kept).
 */
interface FilteredValues {
  model: Map<string, number>;
  logType: Map<string, number>;
  modelKept: boolean;
  logTypeKept: boolean;
}
const FILTER_VALUES_KEPT = 20;

/** "; its Model values: "ChatGPT" (4 rows), "GPT-4" (1 row): give one of them to --trace-model", for each filter that kept no row; '' when each kept some. */
function filterValuesText(opts: TraceReadOptions, filtered: FilteredValues): string {
  const list = (values: Map<string, number>) => [...values].map(([v, k]) => `${JSON.stringify(v)} (${formatCountOf(k, 'row')})`).join(', ');
  const parts: string[] = [];
  if (opts.model !== undefined && !filtered.modelKept && filtered.model.size > 0) parts.push(`; its Model values: ${list(filtered.model)}${filtered.model.size >= FILTER_VALUES_KEPT ? ', ...' : ''}: give one of them to ${traceSetting('model', opts.settingsFrom)}`);
  if (opts.logType !== undefined && !filtered.logTypeKept && filtered.logType.size > 0) parts.push(`; its Log Type values: ${list(filtered.logType)}${filtered.logType.size >= FILTER_VALUES_KEPT ? ', ...' : ''}: give one of them to ${traceSetting('logType', opts.settingsFrom)}`);
  return parts.join('');
}

/** "12 with 0 response tokens (failed), 3 of another model". */
export function describeDropped(dropped: Record<string, number>): string {
  return Object.entries(dropped).map(([why, n]) => `${formatCount(n)} ${why}`).join(', ');
}

/** The 1-based column of the value at `at` (keys and indices) in a JSON line, 1 when it is not there. Parses the line again: for warnings and errors only. */
function jsonColumn(line: string, at: (string | number)[]): number {
  const node = jsonc.findNodeAtLocation(jsonc.parseTree(line) ?? { type: 'null', offset: 0, length: 0 }, at);
  return (node?.offset ?? 0) + 1;
}

/** A token count from a trace field (an integer in [min, MAX_TRACE_TOKENS]), else a TraceError at that line and column. */
function count(text: unknown, what: string, path: string, line: number, column: number, min = 1): number {
  const v = typeof text === 'number' ? text : typeof text === 'string' && text.trim() !== '' ? Number(text) : NaN;
  if (!Number.isInteger(v) || v < min || v > MAX_TRACE_TOKENS) {
    throw new TraceError(path, line, column, `${what} must be an integer from ${min} to ${formatCount(MAX_TRACE_TOKENS)}, got ${text === undefined ? 'nothing' : JSON.stringify(text)}`);
  }
  return v;
}

/**
 * Whether buf[s, e), spaces around it trimmed, is `lower`'s bytes ignoring the case of ASCII
 * letters (`lower` in lower case). A cell with other bytes than ASCII that differ is not: the slow
 * path (String.toLowerCase) decides it.
 */
function cellIs(buf: Buffer, s: number, e: number, lower: Buffer): boolean {
  while (s < e && buf[s] === 32) s++;
  while (e > s && buf[e - 1] === 32) e--;
  if (e - s !== lower.length) return false;
  for (let k = 0; k < lower.length; k++) {
    const c = buf[s + k]!;
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== lower[k]) return false;
  }
  return true;
}

/**
 * Azure and BurstGPT rows. A row of plain cells (no quotes, digits, the usual datetime shape, in
 * arrival order, no more cells than the header) is read from its bytes; any other goes through
 * {@link splitCsv} and Number, which gives the same values, drops what is dropped and reports
 * errors at their column, into `problems` (a bad row is skipped; a header without the format's
 * columns is thrown at once). What is read past is said in `warnings`: a header column the format
 * does not have (as an attnscope trace's unknown key is), a row with more cells than the header
 * (the first three at their first extra cell, then how many in all); a row that lacks a column
 * read is an error at its end.
 */
function readCsv(path: string, format: 'azure' | 'burstgpt', opts: TraceReadOptions, sink: TraceSink, drop: (why: string) => void, warnings: string[], filtered: FilteredValues, problems: TraceProblems): void {
  const columns = format === 'azure' ? ['TIMESTAMP', 'ContextTokens', 'GeneratedTokens'] : ['Timestamp', 'Request tokens', 'Response tokens', 'Model', 'Log Type'];
  // BurstGPT's release also has Total tokens (request + response), which nothing needs.
  const known = format === 'azure' ? columns : ['Timestamp', 'Model', 'Request tokens', 'Response tokens', 'Total tokens', 'Log Type'];
  /** Cells of the header: a row with more has cells under no column. */
  let width = 0;
  let wideRows = 0;
  let index: number[] = [];
  let starts = new Int32Array(0);
  let ends = new Int32Array(0);
  const datetime = new DatetimeBytes();
  // The filters compare ignoring case ("chatgpt" keeps BurstGPT's "ChatGPT" rows): the bytes of their lower case.
  const model = opts.model === undefined ? null : Buffer.from(opts.model.toLowerCase());
  const logType = opts.logType === undefined ? null : Buffer.from(opts.logType.toLowerCase());
  const other = (values: Map<string, number>, value: string) => {
    if (values.has(value) || values.size < FILTER_VALUES_KEPT) values.set(value, (values.get(value) ?? 0) + 1);
  };
  const slow = (line: string, n: number) => {
    if (line.trim() === '') return;
    const offsets: number[] = [];
    const cells = splitCsv(line, offsets);
    const cell = (k: number) => cells[index[k]];
    const col = (k: number) => offsets[index[k]] ?? 1;
    // An empty cell is a half-written row, not a failed request (the datasets write a failure as 0):
    // Number('') is 0, so it is refused here before any test for 0.
    const blank = (k: number) => (cell(k) ?? '').trim() === '';
    const got = (k: number) => (blank(k) ? 'an empty cell' : JSON.stringify(cell(k)));
    const zero = (k: number) => !blank(k) && Number(cell(k)) === 0;
    const tokens = (k: number, what: string) => {
      if (blank(k)) throw new TraceError(path, n, col(k), `${what} must be an integer from 1 to ${formatCount(MAX_TRACE_TOKENS)}, got an empty cell`);
      return count(cell(k), what, path, n, col(k));
    };
    const lacking = columns.slice(0, 3).filter((_, k) => index[k] >= cells.length);
    if (lacking.length > 0) throw new TraceError(path, n, line.length + 1, `the row has ${formatCountOf(cells.length, 'cell')}, the header ${width}: no ${lacking.join(', ')}`);
    if (cells.length > width && ++wideRows <= 3) {
      const extra = cells.length - width;
      warnings.push(`${fileLocation(path, n, offsets[width]!)}: warning: the row has ${formatCountOf(cells.length, 'cell')}, the header ${width}: the last ${extra === 1 ? 'is' : `${extra} are`} ignored`);
    }
    let t: number;
    if (format === 'burstgpt') {
      const rowModel = cell(3)?.trim() ?? '';
      const rowLogType = cell(4)?.trim() ?? '';
      if (opts.model !== undefined && rowModel.toLowerCase() !== opts.model.toLowerCase()) {
        other(filtered.model, rowModel);
        return drop(`of another Model than ${opts.model}`);
      }
      filtered.modelKept = true;
      if (opts.logType !== undefined && rowLogType.toLowerCase() !== opts.logType.toLowerCase()) {
        other(filtered.logType, rowLogType);
        return drop(`of another Log Type than ${opts.logType}`);
      }
      filtered.logTypeKept = true;
      if (zero(2)) return drop('with 0 response tokens (failed requests)');
      t = blank(0) ? NaN : Number(cell(0));
      if (!Number.isFinite(t)) throw new TraceError(path, n, col(0), `Timestamp must be a number of seconds, got ${got(0)}`);
      if (zero(1)) return drop('with 0 request tokens');
      sink.add({ arrivalS: t, promptLen: tokens(1, 'Request tokens'), outputLen: tokens(2, 'Response tokens') }, n, col(0));
    } else {
      t = parseDatetimeSeconds(cell(0) ?? '');
      if (!Number.isFinite(t)) throw new TraceError(path, n, col(0), `TIMESTAMP must be a valid datetime like 2023-11-16 18:15:46.6805900 (month 1-12, a day the month has, hour 0-23, minute and second 0-59; an offset Z or ±HH:MM), got ${got(0)}`);
      if (zero(2)) return drop('with 0 GeneratedTokens');
      sink.add({ arrivalS: t, promptLen: tokens(1, 'ContextTokens'), outputLen: tokens(2, 'GeneratedTokens') }, n, col(0));
    }
  };
  // The header is the first line that is not blank, as in detectTraceFormat (firstLine).
  let headerRead = false;
  scanLines(path, (buf, s, e, n) => {
    if (!headerRead) {
      const text = buf.toString('utf8', s, e);
      if (text.trim() === '') return;
      headerRead = true;
      const offsets: number[] = [];
      const header = splitCsv(text, offsets).map((h) => h.trim());
      index = columns.map((c) => header.indexOf(c));
      const missing = columns.slice(0, 3).filter((_, k) => index[k] < 0);
      if (missing.length > 0) throw new TraceError(path, n, 1, `the ${format} header lacks ${missing.join(', ')}`);
      width = header.length;
      header.forEach((h, k) => {
        if (!known.includes(h)) warnings.push(`${fileLocation(path, n, offsets[k]!)}: warning: unknown column ${JSON.stringify(h)} ignored (${format === 'azure' ? 'an Azure' : 'a BurstGPT'} trace has ${known.join(', ')})`);
      });
      starts = new Int32Array(Math.max(...index) + 1);
      ends = new Int32Array(starts.length);
      return;
    }
    const cells = splitCsvBytes(buf, s, e, starts, ends);
    if (cells >= starts.length && cells <= width) {
      const [it, ip, io, im, il] = index;
      const keep = format === 'azure' || ((model === null || (im >= 0 && cellIs(buf, starts[im], ends[im], model))) && (logType === null || (il >= 0 && cellIs(buf, starts[il], ends[il], logType))));
      const t = format === 'azure' ? datetime.read(buf, starts[it], ends[it]) : parseDecimal(buf, starts[it], ends[it]);
      const p = parseDigits(buf, starts[ip], ends[ip]);
      const o = parseDigits(buf, starts[io], ends[io]);
      if (keep && Number.isFinite(t) && p >= 1 && p <= MAX_TRACE_TOKENS && o >= 1 && o <= MAX_TRACE_TOKENS && !sink.late(t)) {
        filtered.modelKept = filtered.logTypeKept = true;
        sink.addInOrder(t, p, o, n);
        return;
      }
    }
    try {
      slow(buf.toString('utf8', s, e), n);
    } catch (err) {
      problems.add(err);
    }
  });
  if (wideRows > 3) warnings.push(`${fileLocation(path, 1, 1)}: warning: ${formatCount(wideRows)} rows in all have more cells than the header; the cells past it are ignored`);
}

/**
 * Mooncake rows: a JSON object per line, each key once. hash_ids must be integer block ids >= 0; ids beyond the
 * ceil(input_length / 512) blocks the prompt covers are warned about and ignored. A bad row goes to `problems`, skipped.
 */
function readMooncake(path: string, sink: TraceSink, drop: (why: string) => void, warnings: string[], problems: TraceProblems): void {
  let extraBlocks = 0;
  forEachLine(path, (line, n) => {
    try {
      readRow(line, n);
    } catch (e) {
      problems.add(e);
    }
  });
  if (extraBlocks > 3) warnings.push(`${fileLocation(path, 1, 1)}: warning: ${formatCount(extraBlocks)} requests in all have more hash_ids than their input_length fills; the extra ids are ignored`);

  /** The request of line `n`, added to `sink`. @throws TraceError at a bad row. */
  function readRow(line: string, n: number): void {
    if (line.trim() === '') return;
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(line) as Record<string, unknown>;
    } catch (e) {
      // The first error jsonc-parser finds, at its column, in the words of every JSON reader.
      const errors: jsonc.ParseError[] = [];
      jsonc.parse(line, errors, { allowTrailingComma: false, disallowComments: true });
      const first = errors[0];
      throw new TraceError(path, n, (first?.offset ?? 0) + 1, `not JSON: ${first ? jsonSyntaxText(line, first.error, first.offset) : (e as Error).message}`);
    }
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new TraceError(path, n, 1, 'each line must be a JSON object {"timestamp", "input_length", "output_length", "hash_ids"}');
    if (!keysWrittenOnce(line, v)) refuseRepeatedKey(parseJsonTree(line).root!, path, n);
    const at = (...key: (string | number)[]) => jsonColumn(line, key);
    /** Refuses the value at `key` when it was written as an integer beyond ±Number.MAX_SAFE_INTEGER (JSON.parse rounded it). Error paths only: parses the line again. */
    const refuseUnsafe = (what: string, ...key: (string | number)[]) => {
      const node = nodeAtPath(parseJsonTree(line).root, key);
      const why = node ? unsafeIntegerText(what, node) : null;
      if (why) throw new TraceError(path, n, node!.range.offset + 1, why);
    };
    const t = v.timestamp;
    if (typeof t !== 'number' || !Number.isFinite(t)) throw new TraceError(path, n, at('timestamp'), `"timestamp" must be a number of milliseconds, got ${jsonValueText(t)}`);
    // As attnscope's arrival_s: milliseconds from the trace's start, so never before it.
    if (t < 0) throw new TraceError(path, n, at('timestamp'), `"timestamp" must be >= 0 (milliseconds from the trace's start), got ${t}`);
    if (v.output_length === 0) return drop('with output_length 0');
    const length = (key: 'input_length' | 'output_length'): number => {
      const x = v[key];
      if (typeof x === 'number' && Number.isInteger(x) && x >= 1 && x <= MAX_TRACE_TOKENS) return x;
      refuseUnsafe(`"${key}"`, key);
      return count(x, `"${key}"`, path, n, at(key));
    };
    const promptLen = length('input_length');
    const outputLen = length('output_length');
    const ids = v.hash_ids;
    if (ids !== undefined) {
      if (!Array.isArray(ids)) throw new TraceError(path, n, at('hash_ids'), `"hash_ids" must be an array of block ids, got ${JSON.stringify(ids)}`);
      for (let k = 0; k < ids.length; k++) {
        const id = ids[k] as unknown;
        if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) {
          refuseUnsafe(`hash_ids[${k}]`, 'hash_ids', k);
          throw new TraceError(path, n, at('hash_ids', k), `hash_ids[${k}] must be a block id (an integer >= 0), got ${JSON.stringify(id)}`);
        }
      }
      const blocks = Math.ceil(promptLen / MOONCAKE_BLOCK_TOKENS);
      if (ids.length > blocks && ++extraBlocks <= 3) {
        warnings.push(
          `${fileLocation(path, n, at('hash_ids', blocks))}: warning: ${ids.length} hash_ids for input_length ${promptLen}, which fills ${blocks} block${blocks === 1 ? '' : 's'} of ${MOONCAKE_BLOCK_TOKENS} tokens: the ${ids.length - blocks} beyond are ignored`,
        );
      }
    }
    const r: TraceRequest = { arrivalS: t / 1000, promptLen, outputLen, hashIds: ids as number[] | undefined, hashBlockTokens: MOONCAKE_BLOCK_TOKENS };
    sink.add(r, n, sink.late(r.arrivalS) ? at('timestamp') : 1);
  }
}

/**
 * The send times, seconds, `vllm bench serve` gives `n` requests at `rate` requests/s without a
 * ramp-up (vllm/benchmarks/serve.py get_request): each gap drawn from a gamma distribution of
 * shape `burstiness` and scale 1 / (rate · burstiness) (burstiness 1: exponential gaps, a Poisson
 * process; below 1 burstier, above 1 smoother), the first request sent after the first gap, the
 * running sums then scaled so that the last is sent at n / rate exactly ({@link endSendsAtRate}). Drawn
 * from `seed` (runner/random.ts Rng), not numpy's stream: the same process, not vLLM's own draws.
 * s39 newcomer 9: a result without start_times was replayed evenly spaced.
 */
export function vllmBenchArrivals(n: number, rate: number, burstiness: number, seed: number): Float64Array {
  const rng = new Rng(seed);
  const out = new Float64Array(n);
  let t = 0;
  for (let i = 0; i < n; i++) {
    t += rng.gamma(burstiness) / (rate * burstiness);
    out[i] = t;
  }
  endSendsAtRate(out, rate);
  return out;
}

/** Adds the result's requests (a bad length to `problems`, its request skipped); true when their arrivals came from start_times. */
function readVllmBench(path: string, sink: TraceSink, drop: (why: string) => void, notes: string[], problems: TraceProblems, hint: string): boolean {
  const doc = readVllmResult(path, hint);
  const n = doc.inputLens.length;
  const start = doc.startTimes;
  const rate = doc.requestRate;
  const drawn = !start && rate !== null && Number.isFinite(rate) ? vllmBenchArrivals(n, rate, doc.burstiness ?? 1, 0) : null;
  if (!start) {
    notes.push(
      drawn
        ? `the result has no start_times: arrivals drawn as vllm bench serve sends them at its request_rate ${rate}/s, gaps gamma-distributed with shape burstiness ${doc.burstiness ?? '1 (vLLM\'s default)'}${(doc.burstiness ?? 1) === 1 ? ' (a Poisson process)' : ''}, then scaled so that the last is sent at ${formatCount(n)} / ${rate} s (vllm/benchmarks/serve.py get_request); from seed 0, not vLLM's own draws`
        : `the result has no start_times and ${rate === null ? 'no request_rate' : 'request_rate inf'}: every request arrives at 0 s`,
    );
  }
  if (doc.maxConcurrency !== null) notes.push(`the benchmark capped concurrency at ${doc.maxConcurrency} (max_concurrency); the replay does not`);
  for (let i = 0; i < n; i++) {
    if (doc.errors?.[i]) {
      drop('failed (errors non-empty)');
      continue;
    }
    const arrivalS = start ? start[i]! : drawn ? drawn[i]! : 0;
    if (doc.outputLens[i] === 0) {
      drop('with output_lens 0');
      continue;
    }
    try {
      const length = (key: 'input_lens' | 'output_lens', v: unknown) => {
        if (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= MAX_TRACE_TOKENS) return v;
        const { line, column } = doc.locate?.([key, i]) ?? { line: 1, column: 1 };
        return count(v, `${key}[${i}]`, path, line, column);
      };
      sink.add({ arrivalS, promptLen: length('input_lens', doc.inputLens[i]), outputLen: length('output_lens', doc.outputLens[i]) }, 1, 1);
    } catch (e) {
      problems.add(e);
    }
  }
  return start !== null;
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
  /** The benchmark's wall time, seconds (`duration`, first request sent to last response); null when absent. */
  duration: number | null;
  /** requests/s; Infinity when the benchmark sent everything at once ("inf"); null when the result has none. */
  requestRate: number | null;
  /** The gamma shape of the gaps between sends (vllm bench serve --burstiness; 1 = Poisson); null when the result has none. */
  burstiness: number | null;
  maxConcurrency: number | null;
  /** The result's `model_id` (the model vLLM served, "meta-llama/Llama-3.1-8B") and where it is in the file; null when absent. */
  modelId: { value: string; line: number; column: number } | null;
  /** The 1-based line and column of the value at `location` (["input_lens", 3]) in the file (1:1 when it has none); absent: 1:1. */
  locate?(location: jsonc.JSONPath): { line: number; column: number };
}

/** What --calibrate takes, appended to readVllmResult's refusals of a file that is not a result. */
const VLLM_RESULT_HINT = ' (--calibrate takes a vllm bench serve --save-result --save-detailed JSON, or an attnscope bench --backend cuda --json run; a trace goes to --trace)';

/**
 * What a trace detected as a vllm bench serve result (detectTraceFormat: a first line that opens
 * JSON but is not one JSONL request) is refused with: the detection, and --trace-format with the
 * other formats.
 */
const DETECTED_VLLM_HINT = ` (the trace was taken for a vllm bench serve result from its first line; name another format with --trace-format ${TRACE_FORMATS.filter((f) => f !== 'vllm-bench').join(', ')})`;

/**
 * Reads a vllm bench serve result; `hint` is appended to the refusals of a file that is not one
 * (not JSON, not an object, no per-request lengths): what the caller takes instead.
 * @throws TraceError when it is not JSON or lacks the per-request arrays (saved only with
 *   --save-detailed); InputErrors of every other problem (arrays that differ in length, a bad
 *   request_rate, burstiness, start_times entry), capped as {@link TraceProblems} says.
 */
export function readVllmResult(path: string, hint = VLLM_RESULT_HINT): VllmBenchResult {
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
    // An empty file is said to be no JSON ("value expected"); one that stops unfinished, cut short.
    const end = text.trim() === '' ? null : jsonCutShortAt(text);
    if (end !== null) {
      const at = offsetToLineColumn(text, end);
      throw new TraceError(path, at.line, at.column, `${jsonCutShortText(Buffer.byteLength(text))}: copy or save it again`);
    }
    const { line, column } = offsetToLineColumn(text, errors[0].offset);
    // A second value after the first is most likely a JSON-lines file (a trace, not a result).
    const more = jsonc.printParseErrorCode(errors[0].error) === 'EndOfFileExpected' ? ': a vllm bench serve result is one JSON object, and another value follows it here' : '';
    throw new TraceError(path, line, column, `not JSON: ${jsonSyntaxText(text, errors[0].error, errors[0].offset)}${more}${hint}`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new TraceError(path, 1, 1, `a vllm bench serve result is a JSON object${hint}`);
  const nums = (key: string): number[] | null => (Array.isArray(v[key]) ? (v[key] as number[]) : null);
  const inputLens = nums('input_lens');
  const outputLens = nums('output_lens');
  if (!inputLens || !outputLens) throw new TraceError(path, 1, 1, `a vllm bench serve result needs per-request input_lens and output_lens: save it with --save-result --save-detailed${hint}`);
  const n = inputLens.length;
  let tree: jsonc.Node | undefined;
  /** Line and column of the value at `location` (1:1 when the tree has none). */
  const where = (location: jsonc.JSONPath) => {
    tree ??= jsonc.parseTree(text) ?? { type: 'null', offset: 0, length: 0 };
    return offsetToLineColumn(text, jsonc.findNodeAtLocation(tree, location)?.offset ?? 0);
  };
  const problems = new TraceProblems();
  const sameLength = (key: string, a: unknown[] | null) => {
    if (a && a.length !== n) {
      const { line, column } = where([key]);
      problems.add(new TraceError(path, line, column, `${key} has ${a.length} entries, input_lens ${n}: the per-request arrays of a result have one entry per request`));
      return null;
    }
    return a;
  };
  sameLength('output_lens', outputLens);
  const rr = v.request_rate;
  // vLLM's benchmark writes a rate > 0 or "inf" (benchmark_serving: request_rate if < inf else "inf");
  // anything else would replay as one burst at 0 s under a note that says inf.
  let requestRate: number | null;
  if (rr === undefined || rr === null) requestRate = null;
  else if (rr === 'inf' || rr === 'Infinity') requestRate = Infinity;
  else if (typeof rr === 'number' && Number.isFinite(rr) && rr > 0) requestRate = rr;
  else {
    const { line, column } = where(['request_rate']);
    problems.add(new TraceError(path, line, column, `request_rate must be a positive number of requests/s or "inf", got ${JSON.stringify(rr)}`));
    requestRate = null;
  }
  const b = v.burstiness;
  // vLLM writes args.burstiness, a float > 0 (its get_request asserts it); absent in results before it had one: its default 1.
  if (b !== undefined && b !== null && !(typeof b === 'number' && Number.isFinite(b) && b > 0)) {
    const { line, column } = where(['burstiness']);
    problems.add(new TraceError(path, line, column, `burstiness must be a positive number (vllm bench serve --burstiness; 1 is a Poisson process), got ${JSON.stringify(b)}`));
  }
  const burstiness = typeof b === 'number' ? b : null;
  const startTimes = sameLength('start_times', nums('start_times')) as number[] | null;
  startTimes?.forEach((t, i) => {
    if (typeof t === 'number' && Number.isFinite(t)) return;
    const { line, column } = where(['start_times', i]);
    problems.add(new TraceError(path, line, column, `start_times[${i}] must be a number of seconds, got ${JSON.stringify(t) ?? 'nothing'}`));
  });
  const ttfts = sameLength('ttfts', nums('ttfts')) as number[] | null;
  const itls = sameLength('itls', Array.isArray(v.itls) ? (v.itls as number[][]) : null) as number[][] | null;
  const errorList = sameLength('errors', Array.isArray(v.errors) ? (v.errors as string[]) : null) as string[] | null;
  problems.throwIfAny();
  let modelId: VllmBenchResult['modelId'] = null;
  if (typeof v.model_id === 'string' && v.model_id !== '') modelId = { value: v.model_id, ...where(['model_id']) };
  return {
    inputLens,
    outputLens,
    ttfts,
    itls,
    startTimes,
    errors: errorList,
    duration: typeof v.duration === 'number' && v.duration > 0 ? v.duration : null,
    requestRate,
    burstiness,
    maxConcurrency: typeof v.max_concurrency === 'number' ? v.max_concurrency : null,
    modelId,
    locate: where,
  };
}
