/**
 * A sweep on the command line (issue 13): a profile's `sweep:` block (read by
 * core/config/sweep.ts, which the language server shares) plus the CLI's `--set key=v1,v2`,
 * expanded into points, each a full resolved Profile read exactly as if the user had written
 * that value into the file. Every problem becomes one positioned error before any work: at the
 * value in the file, or naming the `--set` argument.
 *
 * Points are the Cartesian product of the axes, first axis slowest, last fastest (the order
 * written, `--set` axes after the file's; a `--set` of an axis the file has replaces its values
 * in place).
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import * as YAML from 'yaml';
import {
  axisIndices, axisProblems, deviceGpuName, pointGpuHourUsd, sweepPriceProblems, treeGpuName, getProperty, sweepAxisWarnings, maxRateSloProblem, isProfilePath, offsetToLineColumn, parseProfileText, readProfileTree, readSweepBlock, readSweepPoint, placePointNotes, sweepSize, sweepTooBig, toPlain,
  type PointNotes, type Problem, type SlurmSettings, type SourceRange, type SweepAxis, type SweepJob, type ValueNode,
} from '../../core/config';
import { jsonCutShortAt, jsonCutShortText } from '../../core/config/tree';
import { modelledJob, type SweepPointRef } from '../../core/protocol/sweep';
import { axisValueText, formatCount, wrapLine } from '../../core/format';
import { fileLocation } from '../../core/config/positions';
import { readInputText, type NotRead } from '../../core/fileText';
import { beyondFloatRange } from '../args';
import { InputError, InputErrors, PointInputError, SetArgError, shortSetArg, UsageError } from '../errors';
import { profileCommand, readProfileInput, refuseOtherInput, refuseToolOutput, type ProfileCommand } from '../load';
import { sweepPointNoter } from '../../core/validate';
import type { Profile } from '../../core/config/types';

/** A point: its place in the sweep and the profile it runs. */
export interface SweepPoint extends SweepPointRef {
  profile: Profile;
}

/** An expanded sweep, ready to run or to submit. */
export interface SweepPlan {
  /** The profile as the user typed it, and its absolute path. */
  file: string;
  absFile: string;
  /** SHA-256 (hex) of the profile's text as read (UTF-8): SweepReport.profile's, which Resume sweep compares the file with. */
  profileSha256: string;
  /** Display name: the profile's file name. */
  name: string;
  sweepId: string;
  /** SweepPointInfo.inputsId: the sweep id without the axes. */
  inputsId: string;
  job: SweepJob;
  axes: Array<{ key: string; values: unknown[] }>;
  points: SweepPoint[];
  /** The `--set` arguments as given (the scheduler scripts pass them on unchanged). */
  set: string[];
  slurm: SlurmSettings;
  /** Warnings of the base profile and the points, deduplicated, as `file:line:col: warning: message`. */
  notes: string[];
  /**
   * The error for a problem of `point` at a profile key (e.g. "decode.context_lens"): at the
   * key's nearest written parent in the file or the sweep block, or naming the `--set` argument.
   */
  errorAt(point: SweepPoint, key: string, message: string): Error;
}

export interface SweepOptions {
  /** `--set key=v1,v2` arguments, in order. */
  set?: string[];
  /** Benchmark options (--quick, --backend): part of the sweep's identity when its job benchmarks, since they change the figures. */
  benchOptions?: Record<string, unknown>;
  /** The command reading the profile, named where it refuses a run or another AttnScope output (runner/load.ts refuseToolOutput); `attnscope sweep` by default. */
  command?: ProfileCommand;
  /** The job in place of the profile's `sweep.job` (`--max-rate`: 'max-rate'). */
  job?: SweepJob;
}

/**
 * SHA-256 (hex) of a file's bytes, read 1 MiB at a time (a trace of 100 MB is hashed in well under a
 * second, holding one chunk); of '' when it cannot be read (the point's run then says why).
 */
function fileSha256(path: string): string {
  const hash = createHash('sha256');
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return hash.digest('hex');
  }
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0; ) hash.update(buf.subarray(0, n));
  } catch {
    // A folder or a read error: hashed as read so far; the point's run names the problem.
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/** JSON with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The stable id of a point: 12 hex digits of SHA-256 over its canonical `{key: value}`. */
export function pointId(values: Record<string, unknown>): string {
  return sha256(canonicalJson(values)).slice(0, 12);
}

/** A YAML scalar's value node: `16` a number, `fp8_e4m3` a string, `true` a boolean. */
function nodeOf(value: unknown, range: SourceRange): ValueNode {
  if (Array.isArray(value)) return { type: 'array', range, items: value.map((v) => nodeOf(v, range)) };
  if (value !== null && typeof value === 'object') {
    return { type: 'object', range, properties: Object.entries(value).map(([key, v]) => ({ key, keyRange: range, value: nodeOf(v, range) })) };
  }
  if (value === null || value === undefined) return { type: 'null', range, value: null };
  const t = typeof value;
  return { type: t === 'number' || t === 'boolean' ? t : 'string', range, value: t === 'number' || t === 'boolean' ? (value as number | boolean) : String(value) } as ValueNode;
}

/**
 * Refuses a key given by two `--set` arguments (`--set k=64 --set k=128`), as a flag given twice is
 * refused (runner/args.ts): the last replaced the first, so a sweep meant to run both ran one point
 * (s53 newcomer 10). The message gives the one argument that runs every value, where each is a
 * plain comma list. `axes`: parseSetArg of each of `args`, in order.
 * @throws UsageError naming the key, its arguments and the one to give.
 */
export function refuseRepeatedSetKeys(args: readonly string[], axes: readonly SweepAxis[]): void {
  for (let i = 0; i < axes.length; i++) {
    const same = axes.flatMap((a, j) => (a.key === axes[i]!.key ? [j] : []));
    if (same.length < 2) continue;
    const given = same.map((j) => args[j]!.trim());
    const texts = given.map((g) => g.slice(g.indexOf('=') + 1).trim());
    const joined = texts.every((t) => !t.startsWith('[')) ? `, e.g. --set ${axes[i]!.key}=${texts.join(',')}` : ` ([..] lists: one list holding every value)`;
    throw new UsageError(`--set ${axes[i]!.key} is given ${same.length} times (${given.map((g) => `'${g}'`).join(', then ')}): the last would replace the others; give the key once with all its values${joined}`, false);
  }
}

/**
 * Parses `key=v1,v2` (or `key=[...]`, a YAML flow sequence, for values holding commas) into an
 * axis placed past the end of the profile's text, so that a problem found in it is told apart
 * from the file's own: the key at `virtualOffset`, each value at `virtualOffset` + its character
 * index in `arg` (so an error names which value: loadSweep's whereOf).
 * @throws UsageError naming the argument.
 */
export function parseSetArg(arg: string, virtualOffset: number): SweepAxis {
  const eq = arg.indexOf('=');
  if (eq <= 0) throw new UsageError(`--set ${arg}: expected key=value[,value...], e.g. --set kv_cache.page_size=8,16,32`, false);
  const key = arg.slice(0, eq).trim();
  const raw = arg.slice(eq + 1);
  const text = raw.trim();
  if (text === '') throw new UsageError(`--set ${arg}: no values after '='`, false);
  /** Where `text` starts in `arg`. */
  const start = eq + 1 + (raw.length - raw.trimStart().length);
  const at = (index: number): SourceRange => ({ offset: virtualOffset + start + index, length: 0 });
  let values: Array<{ value: unknown; range: SourceRange }>;
  try {
    if (text.startsWith('[')) {
      const doc = YAML.parseDocument(text);
      if (doc.errors.length > 0) throw doc.errors[0]!;
      const parsed: unknown = doc.toJS();
      if (!Array.isArray(parsed) || parsed.length === 0) throw new Error('a [..] list needs at least one value');
      const items = YAML.isSeq(doc.contents) ? doc.contents.items : [];
      values = parsed.map((value, k) => {
        const item = items[k];
        const far = YAML.isScalar(item) && item.range ? beyondFloatRange(text.slice(item.range[0], item.range[1]).trim()) : null;
        if (far) throw new Error(far);
        return { value, range: at(YAML.isNode(item) && item.range ? item.range[0] : 0) };
      });
    } else {
      let from = 0;
      values = text.split(',').map((v) => {
        const index = from + (v.length - v.trimStart().length);
        from += v.length + 1;
        if (v.trim() === '') throw new Error('an empty value between commas');
        // As --slo-ttft-ms 1e400 says it, not "Infinity" at the sweep point (s43 newcomer43 L1).
        const far = beyondFloatRange(v.trim());
        if (far) throw new Error(far);
        return { value: YAML.parse(v.trim()) as unknown, range: at(index) };
      });
    }
  } catch (e) {
    throw new UsageError(`--set ${arg}: ${e instanceof YAML.YAMLError ? unparsedSetText(key, text) : (e as Error).message}`, false);
  }
  return { key, values: values.map((v) => nodeOf(v.value, v.range)), keyRange: { offset: virtualOffset, length: 0 } };
}

/**
 * Why `--set key=TEXT` did not parse, in the argument's own terms (the YAML reader's message
 * names its tokens, "Unexpected scalar at node end", and ends on a colon before a source excerpt
 * the command line does not show): values written as lists side by side (`[512],[2048]`, the
 * natural spelling of a list key's axis) get the same text in one outer list, which does parse;
 * any other text gets the two accepted forms.
 */
function unparsedSetText(key: string, text: string): string {
  const forms = `write key=v1,v2, or one [..] list when a value holds commas or is itself a list: --set '${key}=[[512],[2048]]'`;
  if (!text.startsWith('[')) return `the values do not parse; ${forms}`;
  try {
    const wrapped: unknown = YAML.parse(`[${text}]`);
    if (Array.isArray(wrapped) && wrapped.every(Array.isArray)) return `the values of a list key are lists inside one list: --set '${key}=[${text}]'`;
  } catch {
    // Not lists side by side either: the accepted forms below.
  }
  return `the [..] list does not parse; ${forms}`;
}

/** "sweep point A", or "sweep points A and 8 more" for the points an error is in. */
function pointsText(labels: readonly string[]): string {
  return labels.length === 1 ? `sweep point ${labels[0]}` : `sweep points ${labels[0]} and ${formatCount(labels.length - 1)} more`;
}

/** Most point errors listed one by one; the rest are counted in one more line. */
export const MAX_POINT_ERRORS = 20;

/**
 * Throws every error of a sweep's points at once, as loadProfile does a profile's (481419a): the
 * errors at a place in a file (InputError) each once (points sharing a value share its error),
 * sorted by file and position, at most {@link MAX_POINT_ERRORS} and then a count; where none is
 * in a file, the `--set` arguments' (UsageError) in one line. Nothing when `errors` is empty.
 * @param file the profile as the user typed it, where the count is placed.
 */
export function throwPointErrors(errors: readonly Error[], file: string): void {
  const inFile = new Map<string, { error: InputError; reason: string; labels: string[] }>();
  for (const e of errors) {
    if (!(e instanceof InputError)) continue;
    const [label, reason] = e instanceof PointInputError ? [e.point, e.reason] : [null, e.message];
    const key = `${fileLocation(e.file, e.line, e.column)}: ${reason}`;
    const seen = inFile.get(key);
    if (seen) {
      if (label !== null && !seen.labels.includes(label)) seen.labels.push(label);
    } else inFile.set(key, { error: e, reason, labels: label === null ? [] : [label] });
  }
  if (inFile.size > 0) {
    const sorted = [...inFile.values()].map(({ error: e, reason, labels }) => (labels.length > 1 ? new InputError(`${pointsText(labels)}: ${reason}`, e.file, e.line, e.column) : e))
      .sort((a, b) => Number(b.file === file) - Number(a.file === file) || a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
    const shown = sorted.slice(0, MAX_POINT_ERRORS);
    if (sorted.length > shown.length) shown.push(new InputError(`${sorted.length - shown.length} more point errors like the ones above, not shown one by one`, file));
    throw new InputErrors(shown);
  }
  // A --set value's error, once for all the points it is in (s37 newcomer 7: once per point).
  const bySet = new Map<string, { prefix: string; rest: string; labels: string[] }>();
  for (const e of errors) {
    if (!(e instanceof UsageError)) continue;
    const [prefix, label, rest] = e instanceof SetArgError ? [`--set ${shortSetArg(e.arg)}${e.position ? ` (${e.position})` : ''}: `, e.point, e.reason] : ['', null, e.message];
    const seen = bySet.get(`${prefix}${rest}`) ?? { prefix, rest, labels: [] };
    if (label !== null && !seen.labels.includes(label)) seen.labels.push(label);
    bySet.set(`${prefix}${rest}`, seen);
  }
  const usage = [...bySet.values()].map(({ prefix, rest, labels }) => `${prefix}${labels.length > 0 ? `${pointsText(labels)}: ` : ''}${rest}`);
  if (usage.length > 0) throw new UsageError(usage.slice(0, MAX_POINT_ERRORS).join('; ') + (usage.length > MAX_POINT_ERRORS ? `; ${usage.length - MAX_POINT_ERRORS} more` : ''), false);
  if (errors[0]) throw errors[0];
}

/** Notes of one kind at the values of an axis in the file said one by one up to this many (the editor's diagnostics each), then grouped. */
const FILE_NOTES_EACH = 10;

/** Runs of consecutive value positions named in a grouped note before "and N more". */
const RUNS_NAMED = 3;

/**
 * 1-based positions as runs, "2–7, 9–15, 17–31 and 1,850 more": the first {@link RUNS_NAMED} runs
 * of consecutive positions, then how many positions the rest hold. `positions` ascending.
 */
export function positionRuns(positions: readonly number[]): string {
  const runs: Array<[number, number]> = [];
  for (const n of positions) {
    const last = runs.at(-1);
    if (last && n === last[1] + 1) last[1] = n;
    else runs.push([n, n]);
  }
  const shown = runs.slice(0, RUNS_NAMED);
  const text = shown.map(([a, b]) => (a === b ? formatCount(a) : `${formatCount(a)}–${formatCount(b)}`)).join(', ');
  const rest = runs.slice(RUNS_NAMED).reduce((n, [a, b]) => n + b - a + 1, 0);
  return rest > 0 ? `${text} and ${formatCount(rest)} more` : text;
}

/** Where an axis value's text stands in a note, as a word (not inside a longer number or name): every place. */
function valuePattern(text: string): RegExp {
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w.])${escaped}(?![\\w.])`, 'g');
}

/**
 * The sweep's point notes as lines, one per kind (s48 newcomer M4: `--set kv_cache.page_size=1,...,2000`
 * printed 1,995 warnings of ~9 KB, each quoting the whole argument, 18.3 MB before the first point):
 * notes placed at values of one axis (placePointNotes) that say the same but for the value are one
 * line, at the first value, naming the positions ("values 2–7, 9–15 and 1,850 more of 2,000") and
 * quoting the first note (at a file's axis only past {@link FILE_NOTES_EACH} of them: up to there each line is
 * the editor's diagnostic at its value); every other note as `noteOf` says it. `fromSet`: whether an axis is a --set argument's. `whereText`: the note's place
 * without a value position (a --set argument, shortened; a file's line and column).
 */
function groupedNotes(placed: readonly Problem[], axes: readonly SweepAxis[], noteOf: (p: Problem) => string, whereText: (p: Problem) => string, fromSet: (a: SweepAxis) => boolean): string[] {
  /** Each axis value by the offset of its range: [axis, value index]. */
  const valueAt = new Map<number, [number, number]>();
  axes.forEach((a, k) => a.values.forEach((v, j) => {
    if (!valueAt.has(v.range.offset)) valueAt.set(v.range.offset, [k, j]);
  }));
  const groups = new Map<string, { axis: number; notes: Problem[]; positions: number[] }>();
  const order: Array<string | Problem> = [];
  for (const p of placed) {
    const at = p.file === undefined ? valueAt.get(p.range.offset) : undefined;
    if (!at) {
      order.push(p);
      continue;
    }
    const [k, j] = at;
    // The note in words with this value's text taken out: notes of one kind at different values read alike.
    const kind = `${k}\u0000${p.severity}\u0000${p.code ?? ''}\u0000${p.message.replace(valuePattern(axisValueText(toPlain(axes[k]!.values[j]!))), '\u0001')}`;
    const group = groups.get(kind);
    if (group) {
      group.notes.push(p);
      group.positions.push(j + 1);
    } else {
      groups.set(kind, { axis: k, notes: [p], positions: [j + 1] });
      order.push(kind);
    }
  }
  return order.flatMap((o) => {
    if (typeof o !== 'string') return [noteOf(o)];
    const { axis, notes, positions } = groups.get(o)!;
    // A file's axis keeps a line per value (each the editor's diagnostic at it, word for word) up to FILE_NOTES_EACH.
    if (notes.length === 1 || (!fromSet(axes[axis]!) && notes.length <= FILE_NOTES_EACH)) return notes.map(noteOf);
    const first = notes[0]!;
    const sorted = [...positions].sort((a, b) => a - b);
    // The first note's words with its value as "…", which stands for each value named (s49 newcomer M2: "(values 1–2 of 2)"
    // above "sweep point trace=moon.jsonl: ... replays moon.jsonl", naming one point of the two); wrapped to 100 columns (300 before).
    const [k, j] = valueAt.get(first.range.offset)!;
    const message = first.message.replace(valuePattern(axisValueText(toPlain(axes[k]!.values[j]!))), '…');
    const line = `${whereText(first)} (values ${positionRuns(sorted)} of ${formatCount(axes[axis]!.values.length)}; … stands for each): ${first.severity}: ${message} (the same for each of these ${formatCount(notes.length)} values)`;
    return [wrapLine(line, { indent: 4 }).join('\n')];
  });
}

/** The workload keys whose absence the profile reader fills with a default (schemas/attn-profile.schema.json). */
const WORKLOAD_DEFAULTED = ['requests', 'arrival_rate', 'prompt_len', 'output_len', 'max_model_len', 'seed'];

/**
 * Why a sweep that simulates (job simulate or both) cannot: the profile has no `workload:`,
 * which `attnscope simulate` refuses too. Axes under `workload.` would otherwise build one out
 * of defaults (1,000 requests, prompts of median 512, ...) that nobody wrote; the message says
 * which keys they leave unset and the first such axis is where it is placed. Null when the
 * profile has a workload or the job only benchmarks.
 */
function noWorkloadProblem(root: ValueNode, axes: SweepAxis[], job: SweepJob): { message: string; axis?: SweepAxis } | null {
  if (job === 'bench' || getProperty(root, 'workload')) return null;
  const set = axes.filter((a) => a.key.startsWith('workload.'));
  const refusal = 'the profile has no workload, which `attnscope simulate` refuses too: add a `workload:` section';
  if (set.length === 0) return modelledJob(job) ? { message: `${refusal} (or make the sweep's job: bench)` } : null;
  const given = new Set(set.map((a) => a.key.split('.')[1]!));
  const missing = WORKLOAD_DEFAULTED.filter((k) => !given.has(k));
  if (missing.length === 0) return null;
  const list = missing.length > 1 ? `${missing.slice(0, -1).join(', ')} and ${missing.at(-1)!}` : missing[0]!;
  return { message: `${refusal} with ${list} (the sweep's ${set.length > 1 ? 'axes set' : 'axis sets'} only ${set.map((a) => a.key).join(', ')}; the rest would be invented defaults)`, axis: set[0] };
}

/**
 * Reads a profile with a sweep (`sweep:` block and/or `--set`) into its points.
 * @param file the profile as the user typed it (messages repeat it).
 * @throws InputError (file:line:col) for a bad profile, sweep block or point value; UsageError
 *   for a bad `--set` or a sweep with no axes; each before any work is done.
 */
export function loadSweep(file: string, opts: SweepOptions = {}): SweepPlan {
  const abs = resolve(file);
  // Read as every profile is (a FIFO, a device or a weights file refused unread), and a run, an
  // estimate --json or a sweep report named in its place refused in one line saying what it is.
  const input = readProfileInput(file);
  refuseToolOutput(file, input, opts.command ?? profileCommand('sweep'));
  refuseOtherInput(file, input.text, opts.command ?? profileCommand('sweep'));
  if (!isProfilePath(abs)) throw new InputError('a sweep needs a profile (*.attn.yaml, *.attn.yml or *.attn.json): its `sweep:` block or --set values apply to it', file);
  const text = input.text;
  // The config.json files the points' model: names, each read once (core/fileText.ts readInputText: never a FIFO, whose read waits for a writer).
  const texts = new Map<string, string | null>();
  const refused = new Map<string, NotRead>();
  const host = {
    readFile(p: string): string | null {
      if (!texts.has(p)) texts.set(p, readInputText(p, refused));
      return texts.get(p)!;
    },
    whyNotRead: (p: string) => refused.get(p),
  };
  const setArgs = opts.set ?? [];
  // Virtual offsets past the text: --set argument i starts at setStarts[i], its key there, each
  // value at its character index in the argument (parseSetArg).
  const setStarts: number[] = [];
  setArgs.reduce((offset, arg) => (setStarts.push(offset), offset + arg.length + 1), text.length + 1);
  let setAxes: SweepAxis[] = [];
  /**
   * Where a range is: in another file (a model config), past the text (a --set argument, with
   * "value 2 of 3" when the range is one of its values), or in the profile.
   */
  const whereOf = (range: SourceRange, inFile?: string): { file: string; line: number; column: number } | { setArg: string; position: string | null } => {
    if (inFile && inFile !== abs) return { file: inFile, ...offsetToLineColumn(host.readFile(inFile) ?? '', range.offset) };
    if (range.offset > text.length) {
      let i = setStarts.length - 1;
      while (i > 0 && setStarts[i]! > range.offset) i--;
      const values = setAxes[i]?.values ?? [];
      const k = range.offset > setStarts[i]! ? values.findIndex((v) => v.range.offset === range.offset) : -1;
      return { setArg: setArgs[i]!, position: k >= 0 ? `value ${formatCount(k + 1)} of ${formatCount(values.length)}` : null };
    }
    return { file, ...offsetToLineColumn(text, range.offset) };
  };
  /** The error at `range` (see whereOf), of the point labelled `point` when given. */
  const errorAtRange = (range: SourceRange, message: string, inFile?: string, point?: string): Error => {
    const w = whereOf(range, inFile);
    if ('setArg' in w) return new SetArgError(w.setArg, point ?? null, message, w.position);
    return point !== undefined ? new PointInputError(point, message, w.file, w.line, w.column) : new InputError(message, w.file, w.line, w.column);
  };
  const noteOf = (p: Problem): string => {
    const w = whereOf(p.range, p.file);
    return `${'setArg' in w ? `--set ${shortSetArg(w.setArg)}${w.position ? ` (${w.position})` : ''}` : fileLocation(w.file, w.line, w.column)}: ${p.severity}: ${p.message}`;
  };

  const parsed = parseProfileText(text, abs);
  const syntax = parsed.problems.find((p) => p.severity === 'error');
  // A JSON profile that stops unfinished: said so at its end, as every reader of a JSON file does.
  const cutAt = syntax?.code === 'json-syntax' ? jsonCutShortAt(text) : null;
  if (cutAt !== null) throw errorAtRange({ offset: cutAt, length: 0 }, `${jsonCutShortText(Buffer.byteLength(text))}: copy or save it again`);
  if (syntax) throw errorAtRange(syntax.range, syntax.message);
  const root = parsed.root;
  if (!root || root.type !== 'object') throw errorAtRange({ offset: 0, length: 0 }, 'a profile is a mapping of keys (model, dtype, device, kv_cache, ...)');

  // The sweep block's shape is the schema's: its errors come from reading the profile as written.
  const sweepProp = getProperty(root, 'sweep');
  if (sweepProp) {
    const start = sweepProp.keyRange.offset;
    const end = sweepProp.value.range.offset + sweepProp.value.range.length;
    const inBlock = readProfileTree(parsed, abs, host).problems.find((p) => p.severity === 'error' && !p.file && p.range.offset >= start && p.range.offset <= end);
    if (inBlock) throw errorAtRange(inBlock.range, inBlock.message);
  }
  const read = readSweepBlock(root);
  // The axes' problems are checked below with --set's axes; sweep.slurm.time's here, at its value.
  const timeError = read.problems.find((p) => p.data?.key === 'sweep.slurm.time');
  if (timeError) throw errorAtRange(timeError.range, timeError.message);
  const read0 = read.block ?? { axes: [], job: 'simulate' as SweepJob, jobRange: null, slurm: {}, gpuHourUsd: {} };
  const block = { ...read0, job: opts.job ?? read0.job };
  setAxes = setArgs.map((arg, i) => parseSetArg(arg, setStarts[i]!));
  refuseRepeatedSetKeys(setArgs, setAxes);
  const axes = [...block.axes];
  for (const s of setAxes) {
    const at = axes.findIndex((a) => a.key === s.key);
    if (at >= 0) axes[at] = s;
    else axes.push(s);
  }
  if (axes.length === 0) throw new UsageError(`${file} has no sweep: add a \`sweep:\` block with axes, or give --set key=v1,v2`, false);
  const axisAt = (a: SweepAxis): SourceRange => a.keyRange ?? a.values[0]!.range;
  const axisError = axisProblems(axes, axisAt)[0];
  if (axisError) throw errorAtRange(axisError.range, axisError.message);
  // A max-rate sweep judges each rate by the SLO: none, and no point could run (exit 2 before any work).
  const noSlo = block.job === 'max-rate' ? maxRateSloProblem(root, axes, read0.jobRange, opts.job === 'max-rate' && read0.job !== 'max-rate') : null;
  if (noSlo) throw errorAtRange(noSlo.range, noSlo.message);
  const noWorkload = noWorkloadProblem(root, axes, block.job);
  if (noWorkload) throw errorAtRange(noWorkload.axis ? axisAt(noWorkload.axis) : (getProperty(root, 'model')?.value.range ?? { offset: 0, length: 0 }), noWorkload.message);
  // Beyond MAX_SWEEP_POINTS a typo (an axis of 10,000 values) would start a day of work.
  const total = sweepSize(axes);
  const tooBig = sweepTooBig(total);
  if (tooBig) throw errorAtRange(axisAt(axes[0]!), tooBig);

  const notes = new Set<string>();
  // A flag in place of the profile's sweep.job says so, as the --trace-* flags do (s42 newcomer 11: --max-rate over job: bench, silent).
  const sweepNode = getProperty(root, 'sweep')?.value;
  const jobWritten = sweepNode?.type === 'object' && getProperty(sweepNode, 'job') !== undefined;
  if (opts.job !== undefined && jobWritten && read0.job !== opts.job) notes.add(`${opts.job === 'max-rate' ? '--max-rate' : `job ${opts.job}`} replaces the profile's sweep.job: ${read0.job}`);
  // Wrapped to 100 columns (s49 newcomer M2: 300-column lines).
  for (const p of sweepAxisWarnings(block.job, axes, axisAt, opts.job === 'max-rate' ? '--max-rate' : undefined)) notes.add(wrapLine(noteOf(p), { indent: 4 }).join('\n'));
  for (const p of sweepPriceProblems(root, axes)) notes.add(noteOf(p));
  // Each point's price per GPU-hour (user-given): sweep.gpu_hour_usd for its GPU, else the profile's device.gpu_hour_usd on the profile's own GPU.
  const baseGpu = treeGpuName(root);
  const baseUsd = getProperty(getProperty(root, 'device')?.value ?? null, 'gpu_hour_usd')?.value.value;
  /** Each point's problems that are not errors, with the axis value indices of the point. */
  const pointNotes: PointNotes[] = [];
  const notesOf = sweepPointNoter(axes, block.job);
  const sizes = axes.map((a) => a.values.length);
  const points: SweepPoint[] = [];
  // Every point's errors, listed together before any work (throwPointErrors).
  const errors: Error[] = [];
  for (let index = 0; index < total; index++) {
    const read = readSweepPoint(root, axes, index, abs, host);
    const pointErrors = read.problems.filter((p) => p.severity === 'error');
    if (pointErrors.length > 0 || !read.point) {
      errors.push(...(pointErrors.length > 0 ? pointErrors.map((e) => errorAtRange(e.range, e.message, e.file, read.label)) : [new PointInputError(read.label, 'not a valid profile', file)]));
      continue;
    }
    const { values, profile } = read.point;
    const gpuHourUsd = pointGpuHourUsd(block.gpuHourUsd, baseGpu, typeof baseUsd === 'number' && baseUsd > 0 ? baseUsd : undefined, deviceGpuName(profile.device));
    if (gpuHourUsd === undefined) delete profile.device.gpuHourUsd;
    else profile.device.gpuHourUsd = gpuHourUsd;
    // As the editor reads them (core/validate.ts sweepPointNoter): the pool a simulation cannot size is refused per point (runner/sweep/cli.ts prepare), and a simulation benchmarks nothing.
    const digits = axisIndices(index, sizes);
    pointNotes.push({ label: read.label, digits, problems: notesOf(read.problems, profile, digits) });
    points.push({ id: pointId(values), index, values, label: read.label, profile });
  }
  throwPointErrors(errors, file);
  // Placed as the editor places them (core/config/sweep.ts placePointNotes): once each, a point's at the axis value that tells it apart.
  for (const line of groupedNotes(placePointNotes(axes, pointNotes, abs), axes, noteOf, (p) => {
    const w = whereOf(p.range, p.file);
    return 'setArg' in w ? `--set ${shortSetArg(w.setArg)}` : fileLocation(w.file, w.line, w.column);
  }, (a) => axisAt(a).offset > text.length)) notes.add(line);

  const plainAxes = axes.map((a) => ({ key: a.key, values: a.values.map(toPlain) }));
  const modelTexts = [...new Set(points.map((p) => p.profile.modelPath).filter((m): m is string => m !== null))]
    .sort()
    .map((m) => sha256(host.readFile(m) ?? ''));
  // The traces the points replay (workload.trace), by content: an edited trace is another sweep, whose points are not resumed from the old one's.
  const traceTexts = [...new Set(points.map((p) => p.profile.workload?.trace?.resolvedPath).filter((t): t is string => t !== undefined))]
    .sort()
    .map(fileSha256);
  // Prices (device.gpu_hour_usd, like sweep's) change no simulation: a new price re-ranks the points already run (mergeResults' gpuHourUsd), it runs none again.
  const base = toPlain({ ...root, properties: (root.properties ?? []).filter((p) => p.key !== 'sweep') }) as Record<string, unknown>;
  const baseDevice = base.device;
  if (baseDevice && typeof baseDevice === 'object' && !Array.isArray(baseDevice) && 'gpu_hour_usd' in baseDevice) {
    base.device = Object.fromEntries(Object.entries(baseDevice).filter(([k]) => k !== 'gpu_hour_usd'));
  }
  // `traces` only where a point replays one: the ids of sweeps without are those they had before the key existed.
  const inputs = { base, models: modelTexts, ...(traceTexts.length > 0 ? { traces: traceTexts } : {}), job: block.job, options: modelledJob(block.job) ? {} : (opts.benchOptions ?? {}) };
  const sweepId = sha256(canonicalJson({ ...inputs, axes: plainAxes })).slice(0, 16);
  const inputsId = sha256(canonicalJson(inputs)).slice(0, 16);
  const errorAt = (point: SweepPoint, key: string, message: string): Error => {
    for (const parts = key.split('.'); parts.length > 0; parts.pop()) {
      const range = point.profile.ranges[parts.join('.')];
      if (range) return errorAtRange(range, message, undefined, point.label);
    }
    return new PointInputError(point.label, message, file);
  };
  return { file, absFile: abs, profileSha256: sha256(text), name: basename(file), sweepId, inputsId, job: block.job, axes: plainAxes, points, set: setArgs, slurm: block.slurm, notes: [...notes], errorAt };
}
