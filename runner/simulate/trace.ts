/**
 * attnscope's own JSONL request traces (one of the formats traces.ts reads): one JSON object per line,
 *   {"arrival_s": 0.25, "prompt_len": 812, "output_len": 128, "prefix_id": "sys-a", "prefix_len": 300}
 * prefix_id (string or integer) and prefix_len are optional (see TraceRequest); other keys are
 * ignored with a warning; blank lines are skipped. Lines need not be sorted by arrival_s (the
 * readers warn and sort them, traces.ts).
 */
import { closestMatch, fileLocation, getProperty, nodeAtPath, parseJsonTree, unsafeIntegerText, type ValueNode } from '../../core/config/index';
import { formatCount, formatCountOf } from '../../core/format';
import { InputError, InputErrors, numbersMasked, RepeatCap } from '../errors';
import type { TraceRequest } from './workload';

/**
 * The largest token count a trace may carry: the simulator keeps lengths as int32, as vLLM
 * does (and as the profile schema bounds max_model_len). Larger values are refused at their
 * line before any work, not wrapped.
 */
export const MAX_TRACE_TOKENS = 2 ** 31 - 1;

/** The keys of a trace line. */
export const TRACE_KEYS = ['arrival_s', 'prompt_len', 'output_len', 'prefix_id', 'prefix_len'] as const;

/**
 * A bad trace, an InputError (the CLI prints `format()` = `file:line:column: message`, 1-based,
 * and exits 2).
 */
export class TraceError extends InputError {
  constructor(file: string, line: number, column: number, message: string) {
    // No stack: a bad row is the user's input, printed as its place, never as frames; a trace
    // read goes on past each one (TraceProblems), and capturing the stack was a quarter of the
    // CPU of reading 400,000 bad rows (with: 5.9-8.5 s; without: 4.0-4.6 s; 3 runs each, load 13-20).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message, file, line, column);
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.name = 'TraceError';
  }
}

/** The bad rows a trace read names one by one, in file order; past them, the rest are counted by kind (TraceProblems). */
export const TRACE_ERRORS_SHOWN = 20;
/** Kinds of bad rows past {@link TRACE_ERRORS_SHOWN} counted on a line each; rows of further kinds share one last line. */
export const TRACE_ERROR_KINDS_SHOWN = 10;

/**
 * The problem of a bad row with what differs from row to row left out: the value quoted after
 * ", got", and every number ("hash_ids[3]", "line 12"): `"prompt_len" must be >= 1, got 0` and
 * `... got -5` are one kind.
 */
function errorKind(message: string): string {
  return numbersMasked(message.replace(/, got [\s\S]*$/, ''));
}

/**
 * Every bad row of one trace read, so that a user fixing a trace sees all its problems at once
 * rather than one per run: the first {@link TRACE_ERRORS_SHOWN} one line each, the rest one line
 * per kind ({@link errorKind}) at the first of them, "N more rows like this from here on", up to
 * {@link TRACE_ERROR_KINDS_SHOWN} kinds, then one line for all other kinds. Memory stays bounded
 * however many rows are bad (a multi-GB trace of a wrong format), and so does the CLI's output.
 */
export class TraceProblems {
  private readonly cap = new RepeatCap<TraceError>((e) => errorKind(e.message), { first: TRACE_ERRORS_SHOWN, perKind: 0, kinds: TRACE_ERROR_KINDS_SHOWN });

  /** Bad rows kept or counted. */
  get rows(): number {
    return this.cap.added;
  }

  /** Keeps `e`, a TraceError (a bad row); anything else is rethrown. */
  add(e: unknown): void {
    if (!(e instanceof TraceError)) throw e;
    this.cap.add(e);
  }

  /**
   * @throws the TraceError of the one bad row, or InputErrors of the rows kept (one line each, by
   *   line and column: every line a TraceError `file:line:col: message`), when any row was bad.
   */
  throwIfAny(): void {
    if (this.rows === 0) return;
    const lines = this.cap.lines().map(({ item: first, rows, otherKinds }) => {
      if (rows === 0) return first;
      const text = otherKinds
        ? `${formatCount(rows)} more bad ${rows === 1 ? 'row' : 'rows'} of other kinds from here on, not shown one by one; the first: ${first.message}`
        : `${formatCount(rows)} more ${rows === 1 ? 'row' : 'rows'} like this from here on, not shown one by one: ${first.message}`;
      return new TraceError(first.file, first.line, first.column, text);
    });
    // Stable: rows in file order; a check across rows (the span, at the latest arrival) in its place.
    lines.sort((a, b) => a.line - b.line || a.column - b.column);
    throw lines.length === 1 ? lines[0]! : new InputErrors(lines);
  }
}

/**
 * A JSON value as a message quotes it: JSON.stringify, except a number beyond float64 (1e400,
 * which JSON.parse reads as Infinity and JSON.stringify writes as null): then as written, when
 * `written` gives the source text, with why it is refused.
 */
export function jsonValueText(v: unknown, written?: string): string {
  if (typeof v === 'number' && !Number.isFinite(v)) return `${written ? `${written}, a number` : 'a number'} beyond the 64-bit float range (±1.8e308)`;
  return JSON.stringify(v) ?? 'nothing';
}

/**
 * One line of an attnscope JSONL trace (1-based `lineNo` in `file`), or null for a blank line.
 * @param unknown keys already warned about (each unknown key is warned about once, at its first line).
 * @throws TraceError at a bad line: JSON syntax, a non-object line, a key given twice, a missing or mistyped field
 *   (arrival_s finite >= 0; prompt_len, output_len integers >= 1; prefix_id a string or integer;
 *   no number written as an integer beyond ±Number.MAX_SAFE_INTEGER, which would be read rounded;
 *   prefix_len an integer from 0 to prompt_len, above 0 only with a prefix_id).
 */
export function parseTraceLine(text: string, file: string, lineNo: number, unknown: Set<string>, warnings: string[]): TraceRequest | null {
  const line = text.replace(/\r$/, '');
  if (line.trim() === '') return null;
  const fail = (offset: number, reason: string): never => {
    throw new TraceError(file, lineNo, offset + 1, reason);
  };
  const { root, problems } = parseJsonTree(line);
  const error = problems.find((p) => p.severity === 'error');
  if (error) fail(error.range.offset, error.message);
  if (!root || root.type !== 'object') fail(root?.range.offset ?? 0, 'each line must be a JSON object {"arrival_s", "prompt_len", "output_len"}');
  const obj = root as ValueNode;
  refuseRepeatedKey(obj, file, lineNo);
  for (const prop of obj.properties ?? []) {
    if ((TRACE_KEYS as readonly string[]).includes(prop.key) || unknown.has(prop.key)) continue;
    unknown.add(prop.key);
    const suggestion = closestMatch(prop.key, TRACE_KEYS);
    warnings.push(
      `${fileLocation(file, lineNo, prop.keyRange.offset + 1)}: warning: unknown key "${prop.key}" ignored${suggestion ? `: did you mean "${suggestion}"?` : ` (a trace line has ${TRACE_KEYS.join(', ')})`}`,
    );
  }
  const field = (key: string): ValueNode | undefined => getProperty(obj, key)?.value;
  const number = (key: string, integer: boolean, min: number, required: boolean): number | undefined => {
    const node = field(key);
    if (!node) {
      if (required) fail(obj.range.offset, `missing "${key}"`);
      return undefined;
    }
    const unsafe = unsafeIntegerText(`"${key}"`, node);
    if (unsafe) return fail(node.range.offset, unsafe);
    const v = node.value as unknown;
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      const written = line.slice(node.range.offset, node.range.offset + node.range.length);
      return fail(node.range.offset, `"${key}" must be a number, got ${node.type === 'object' || node.type === 'array' ? `an ${node.type}` : jsonValueText(v, written)}`);
    }
    if (integer && !Number.isInteger(v)) return fail(node.range.offset, `"${key}" must be an integer, got ${v}`);
    if (v < min) return fail(node.range.offset, `"${key}" must be >= ${min}, got ${v}`);
    if (integer && v > MAX_TRACE_TOKENS) return fail(node.range.offset, `"${key}" must be <= ${formatCount(MAX_TRACE_TOKENS)}, got ${v}`);
    return v;
  };
  const r: TraceRequest = {
    arrivalS: number('arrival_s', false, 0, true)!,
    promptLen: number('prompt_len', true, 1, true)!,
    outputLen: number('output_len', true, 1, true)!,
  };
  const pid = field('prefix_id');
  if (pid && pid.type !== 'null') {
    const v = pid.value as unknown;
    const unsafe = unsafeIntegerText('"prefix_id"', pid);
    // Two ids beyond 2^53 - 1 that differ can round to one float64: their requests would share a prefix they do not.
    if (unsafe) fail(pid.range.offset, `${unsafe}: two such ids can read as one; write it as a string`);
    if (typeof v !== 'string' && !(typeof v === 'number' && Number.isSafeInteger(v))) fail(pid.range.offset, `"prefix_id" must be a string or an integer, got ${pid.type === 'object' || pid.type === 'array' ? `an ${pid.type}` : JSON.stringify(v)}`);
    // An empty cell carried over by a converter, not an id: every such line would share its prompt with the others.
    if (typeof v === 'string' && v.trim() === '') fail(pid.range.offset, `"prefix_id" is empty (${JSON.stringify(v)}): for a request that shares no prefix write null or leave the key out; else give the id its requests share`);
    r.prefixId = v as string | number;
  }
  const plen = number('prefix_len', true, 0, false);
  if (plen !== undefined) {
    const at = field('prefix_len')!.range.offset;
    if (plen > r.promptLen) fail(at, `"prefix_len" ${plen} exceeds "prompt_len" ${r.promptLen}: a request shares at most its whole prompt`);
    if (plen > 0 && r.prefixId === undefined) fail(at, '"prefix_len" needs a "prefix_id": the requests that share those tokens have the same prefix_id');
    r.prefixLen = plen;
  }
  return r;
}

/**
 * Whether the JSON line `text`, which JSON.parse read as the object `v`, is known to write each
 * key once. JSON.parse keeps the last of a repeated key silently; ruling that out costs one count
 * of the line's colons: outside strings each colon ends a key, so a line that writes a key twice
 * has more colons than `v` has keys. A line with more for another reason (a colon inside a
 * string, a nested object) is not known to be clean, and the caller reads it through the source
 * tree ({@link refuseRepeatedKey}), which tells the two apart. (Counting colons, one per key,
 * costs half of counting quotes, two per key and two per string value.)
 */
export function keysWrittenOnce(text: string, v: Record<string, unknown>): boolean {
  const keys = Object.keys(v).length;
  let colons = 0;
  for (let i = text.indexOf(':'); i >= 0; i = text.indexOf(':', i + 1)) if (++colons > keys) return false;
  return colons === keys;
}

/**
 * @throws TraceError at the second writing of a key that the object `obj` of line `lineNo` gives
 *   twice: JSON.parse (and Python's json) would keep the last one silently, but a trace row that
 *   says two things is broken where it was written, and either value could be the one meant.
 */
export function refuseRepeatedKey(obj: ValueNode, file: string, lineNo: number): void {
  const seen = new Map<string, number>();
  for (const prop of obj.properties ?? []) {
    const first = seen.get(prop.key);
    if (first !== undefined) {
      throw new TraceError(file, lineNo, prop.keyRange.offset + 1, `"${prop.key}" is given twice on this line (first at column ${first + 1}): give each key once (JSON.parse would keep the last one silently)`);
    }
    seen.set(prop.key, prop.keyRange.offset);
  }
}

/** The request of a parsed line when every field is present, of its type and in range, else null (then parseTraceLine says what is wrong). */
function plainRequest(v: Record<string, unknown>, unknown: Set<string>): TraceRequest | null {
  for (const k in v) if (!(TRACE_KEYS as readonly string[]).includes(k) && !unknown.has(k)) return null;
  const { arrival_s: t, prompt_len: p, output_len: o, prefix_id: id, prefix_len: len } = v;
  const tokens = (x: unknown, min: number): x is number => typeof x === 'number' && Number.isInteger(x) && x >= min && x <= MAX_TRACE_TOKENS;
  if (typeof t !== 'number' || !(t >= 0) || !Number.isFinite(t) || !tokens(p, 1) || !tokens(o, 1)) return null;
  const r: TraceRequest = { arrivalS: t, promptLen: p, outputLen: o };
  if (id !== undefined && id !== null) {
    if (typeof id !== 'string' && !(typeof id === 'number' && Number.isSafeInteger(id))) return null;
    if (typeof id === 'string' && id.trim() === '') return null;
    r.prefixId = id;
  }
  if (len !== undefined) {
    if (!tokens(len, 0) || len > p || (len > 0 && r.prefixId === undefined)) return null;
    r.prefixLen = len;
  }
  return r;
}

/**
 * How far apart the prompt lengths of one prefix_id without prefix_len may be before
 * JsonlTraceReader.finish warns: the longest more than this many times the shortest.
 */
export const WIDE_PROMPT_RATIO = 2;

/**
 * Reads the lines of one attnscope JSONL trace in order, with the checks that span lines: every
 * line of one prefix_id gives the same prefix_len, or none of them gives one (each then shares its
 * whole prompt). A well-formed line is read with JSON.parse ({@link keysWrittenOnce} rules out a
 * repeated key); any other goes through the source tree (parseTraceLine), which reports the column.
 */
export class JsonlTraceReader {
  private readonly unknown = new Set<string>();
  private readonly prefixes = new Map<string, { len: number | undefined; line: number; min: number; max: number }>();
  /** Requests that give a prefix_id and no prefix_len: each shares its whole prompt with the others of its id. */
  private wholePrompt = 0;
  /** The first prefix_id without prefix_len whose prompt lengths passed WIDE_PROMPT_RATIO apart: where, and how many ids did. */
  private wide: { at: string; id: string | number; min: number; max: number } | null = null;
  private wideIds = 0;

  constructor(
    private readonly file: string,
    private readonly warnings: string[],
  ) {}

  /**
   * The request on line `lineNo`, or null for a blank line.
   * @throws TraceError as parseTraceLine, or when its prefix_len differs from an earlier line's of the same prefix_id.
   */
  line(text: string, lineNo: number): TraceRequest | null {
    let r: TraceRequest | null = null;
    if (text.trim() === '') return null;
    try {
      const v = JSON.parse(text) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v) && keysWrittenOnce(text, v as Record<string, unknown>)) r = plainRequest(v as Record<string, unknown>, this.unknown);
    } catch {
      r = null;
    }
    r ??= parseTraceLine(text, this.file, lineNo, this.unknown, this.warnings);
    if (r?.prefixId !== undefined) {
      const key = `${typeof r.prefixId}:${r.prefixId}`;
      const first = this.prefixes.get(key);
      if (!first) this.prefixes.set(key, { len: r.prefixLen, line: lineNo, min: r.promptLen, max: r.promptLen });
      else if (first.len !== r.prefixLen) {
        const { root } = parseJsonTree(text);
        const at = nodeAtPath(root, [r.prefixLen !== undefined ? 'prefix_len' : 'prefix_id'])?.range.offset ?? 0;
        const said = (len: number | undefined) => (len === undefined ? 'no prefix_len' : `prefix_len ${len}`);
        throw new TraceError(
          this.file, lineNo, at + 1,
          `prefix_id ${JSON.stringify(r.prefixId)} has ${said(first.len)} on line ${first.line}, ${said(r.prefixLen)} here: give every line of one prefix_id the same prefix_len (or none, to share each whole prompt)`,
        );
      } else if (r.prefixLen === undefined) {
        const wasWide = first.max > WIDE_PROMPT_RATIO * first.min;
        first.min = Math.min(first.min, r.promptLen);
        first.max = Math.max(first.max, r.promptLen);
        if (!wasWide && first.max > WIDE_PROMPT_RATIO * first.min) {
          this.wideIds++;
          if (this.wide === null) {
            const at = nodeAtPath(parseJsonTree(text).root, ['prompt_len'])?.range.offset ?? 0;
            this.wide = { at: fileLocation(this.file, lineNo, at + 1), id: r.prefixId, min: first.min, max: first.max };
          }
        }
      }
      if (r.prefixLen === undefined) this.wholePrompt++;
    }
    return r;
  }

  /**
   * After the last line: a note in `notes` of how many requests shared their whole prompt (a
   * prefix_id without prefix_len), and a warning in the reader's warnings, at the line where it
   * first happened, when the prompt lengths of one such prefix_id are more than
   * WIDE_PROMPT_RATIO apart (the longest more than twice the shortest): one system prompt shared
   * whole gives prompts of one length, so a spread like that is the mark of a session or
   * conversation id used as prefix_id, whose requests share far less than their whole prompts.
   */
  finish(notes: string[]): void {
    if (this.wholePrompt === 0) return;
    const n = (x: number): string => x.toLocaleString('en-US');
    const one = this.wholePrompt === 1;
    notes.push(`${formatCountOf(this.wholePrompt, 'request')} give${one ? 's' : ''} a prefix_id and no prefix_len: ${one ? 'it shares its whole prompt' : 'each shares its whole prompt'} with every other request of its prefix_id (the prefix cache hits up to the shorter prompt's length, in whole pages)`);
    if (this.wide !== null) {
      const w = this.wide;
      const more = this.wideIds > 1 ? ` (and ${n(this.wideIds - 1)} more prefix_id${this.wideIds > 2 ? 's' : ''})` : '';
      this.warnings.push(`${w.at}: warning: prefix_id ${JSON.stringify(w.id)} has no prefix_len and prompts of ${n(w.min)} to ${n(w.max)} tokens by this line, more than ${WIDE_PROMPT_RATIO}x apart${more}: its requests share their whole prompts with each other, so a session or conversation id used as prefix_id overstates the prefix cache hits; give prefix_len, the tokens they really share`);
    }
  }
}

/**
 * Parses JSONL trace text. `file` names it in errors and warnings.
 * @param warnings receives `file:line:column: warning: …` for the first line with each unknown
 *   key (it is ignored).
 * @throws InputErrors of every bad line ({@link JsonlTraceReader}; {@link TraceProblems} caps them), or
 *   TraceError for a trace without requests.
 */
export function parseTrace(text: string, file: string, warnings: string[] = []): TraceRequest[] {
  const out: TraceRequest[] = [];
  const reader = new JsonlTraceReader(file, warnings);
  const problems = new TraceProblems();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    try {
      const r = reader.line(lines[i].replace(/\r$/, ''), i + 1);
      if (r) out.push(r);
    } catch (e) {
      problems.add(e);
    }
  }
  problems.throwIfAny();
  reader.finish([]);
  if (out.length === 0) throw new TraceError(file, 1, 1, 'the trace holds no requests (one JSON object per line expected)');
  return out;
}
