/**
 * Errors the CLI reports as bad input (exit 2, one line `file:line:col: message` on stderr,
 * no output file written) as opposed to internal failures (exit 1).
 */
import { isAbsolute } from 'node:path';
import { fileLocation } from '../core/config/positions';
import { formatCount } from '../core/format';

export class InputError extends Error {
  constructor(
    message: string,
    readonly file: string,
    readonly line = 1,
    readonly column = 1,
  ) {
    super(message);
    this.name = 'InputError';
  }

  /** The one line the CLI prints: `file:line:col: message`. */
  format(): string {
    return `${fileLocation(this.file, this.line, this.column)}: ${this.message}`;
  }
}

/** "sweep point <label>: <reason>": how an error of one point of a sweep reads, on the command line as in the editor. */
export function pointText(label: string, reason: string): string {
  return `sweep point ${label}: ${reason}`;
}

/**
 * An InputError of one point of a sweep, at a place in a file: it reads {@link pointText}, and
 * keeps the point's label and the reason apart, so that one reason of many points is told once
 * for all of them (runner/sweep/spec.ts throwPointErrors).
 */
export class PointInputError extends InputError {
  constructor(
    readonly point: string,
    readonly reason: string,
    file: string,
    line = 1,
    column = 1,
  ) {
    super(pointText(point, reason), file, line, column);
    this.name = 'PointInputError';
  }
}

/**
 * Every error of an input at once (a profile with three errors is three lines), sorted by the
 * thrower; the first stands for all where one is read (file, line, column, message). `warnings`:
 * lines printed after the errors, each "file:line:col: warning: message" (a profile's unknown keys,
 * which would otherwise surface only once its errors are fixed: s50 newcomer LOW-5).
 */
export class InputErrors extends InputError {
  constructor(
    readonly errors: readonly InputError[],
    readonly warnings: readonly InputError[] = [],
  ) {
    const first = errors[0];
    if (first === undefined) throw new RangeError('InputErrors: errors must hold at least one InputError');
    super(first.message, first.file, first.line, first.column);
    this.name = 'InputErrors';
  }

  /** One line `file:line:col: message` per error, in order. */
  override format(): string {
    return [...this.errors.map((e) => e.format()), ...this.warnings.map((w) => `${fileLocation(w.file, w.line, w.column)}: warning: ${w.message}`)].join('\n');
  }
}

/** Each error an InputError holds: its own errors for an InputErrors, else itself. */
export function eachInputError(e: InputError): readonly InputError[] {
  return e instanceof InputErrors ? e.errors : [e];
}

/**
 * Why a file or folder could not be opened, in words, from the Node error's code: the one wording
 * of every reader (profile, config.json, trace, vLLM log, calibration file, results folder), where
 * Node's text ("ELOOP: too many symbolic links encountered, stat '/abs/x'") names the system call.
 * `kind` words ENOENT ('file': "no such file", 'folder': "no such folder"); with the `path` as
 * given, ENOENT says what to do: "no such file: check the path (relative to the working folder
 * /home/u)", the folder for a relative path only (s50 newcomer LOW-8: the one bad-input message
 * that said nothing of what to do).
 */
export function readFailure(e: unknown, kind: 'file' | 'folder' = 'file', path?: string): string {
  const code = (e as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT': return path === undefined ? `no such ${kind}` : `no such ${kind}: check the path${isAbsolute(path) ? '' : ` (relative to the working folder ${process.cwd()})`}`;
    case 'EISDIR': return 'is a folder, not a file';
    case 'ENOTDIR': return kind === 'folder' ? 'is a file: give the folder' : 'a part of the path is a file, not a folder';
    case 'ELOOP': return 'symbolic link loop: a link on the path leads back to itself; point it at the file';
    case 'EACCES': case 'EPERM': return 'permission denied';
    case 'ENAMETOOLONG': return 'the path is too long';
    default: return (e as Error).message;
  }
}

/** A message with every number in it ("line 12", "hash_ids[3]", "1,024") as '#': what a kind of problem is, the values apart. */
export function numbersMasked(message: string): string {
  return message.replace(/\d[\d,.]*/g, '#');
}

/** What a {@link RepeatCap} shows one by one; past these, items are counted by kind. */
export interface RepeatLimits {
  /** The first this many items, whatever their kind (a trace's first 20 bad rows). */
  first: number;
  /** Past `first`, the first this many of each kind (a profile's first 3 problems of a kind). */
  perKind: number;
  /** Kinds counted a line each; the items of further kinds are counted on one line together (Infinity: no limit). */
  kinds: number;
}

/**
 * One line of what a {@link RepeatCap} keeps: `item` shown (rows 0), or the count of the `rows`
 * items of its kind not shown one by one, `item` their first (`otherKinds`: of every kind past
 * RepeatLimits.kinds).
 */
export interface RepeatLine<T> {
  item: T;
  rows: number;
  otherKinds: boolean;
}

/**
 * The one counter of repeated problems (a trace's bad rows: runner/simulate/trace.ts TraceProblems;
 * a profile's problems and a bench's refusals: runner/load.ts capRepeats): items added one at a time
 * are shown one by one up to {@link RepeatLimits}, and past them counted by kind (`kindOf`, e.g. the
 * message with its numbers masked), the count placed at the first item it counts, so that a user
 * sees every kind of problem at once without a line per repeat. Memory: the items shown, one line
 * per counted kind (at most `kinds` + 1), and, where `perKind` > 0, a number per kind; so a stream
 * of millions of bad rows is held in bounded memory when `perKind` is 0 and `kinds` finite.
 */
export class RepeatCap<T> {
  private readonly kept: RepeatLine<T>[] = [];
  private readonly counted = new Map<string, RepeatLine<T>>();
  private readonly seen = new Map<string, number>();
  private others: RepeatLine<T> | null = null;
  /** Items added, shown or counted. */
  added = 0;

  constructor(
    private readonly kindOf: (item: T) => string,
    private readonly limits: RepeatLimits,
  ) {}

  /** Shows `item` or counts it ({@link RepeatLimits}). */
  add(item: T): void {
    this.added++;
    const { first, perKind, kinds } = this.limits;
    if (this.added <= first) {
      this.kept.push({ item, rows: 0, otherKinds: false });
      return;
    }
    const kind = this.kindOf(item);
    if (perKind > 0) {
      const ofKind = (this.seen.get(kind) ?? 0) + 1;
      this.seen.set(kind, ofKind);
      if (ofKind <= perKind) {
        this.kept.push({ item, rows: 0, otherKinds: false });
        return;
      }
    }
    const counted = this.counted.get(kind) ?? (this.counted.size >= kinds ? this.others : null);
    if (counted) {
      counted.rows++;
      return;
    }
    const line: RepeatLine<T> = { item, rows: 1, otherKinds: this.counted.size >= kinds };
    if (line.otherKinds) this.others = line;
    else this.counted.set(kind, line);
    this.kept.push(line);
  }

  /** What is kept, in the order added: each item shown, and each count at the first item it counts. */
  lines(): readonly RepeatLine<T>[] {
    return this.kept;
  }
}

/** A usage mistake on the command line (exit 2); `showUsage` false when the usage text would not help. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly showUsage = true,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * A UsageError of a sweep's `--set <arg>` value (exit 2): `--set <arg>: <reason>`, or, of one
 * point (`point`, its label), `--set <arg> (value 2 of 3): sweep point <label>: <reason>`, the
 * position naming the argument's value the error is at; the parts kept apart as
 * {@link PointInputError}'s.
 */
export class SetArgError extends UsageError {
  constructor(
    readonly arg: string,
    readonly point: string | null,
    readonly reason: string,
    /** Which of the argument's values the error is at, "value 2 of 3"; null when at the argument as a whole. */
    readonly position: string | null = null,
  ) {
    super(`--set ${shortSetArg(arg)}${position ? ` (${position})` : ''}: ${point !== null ? pointText(point, reason) : reason}`, false);
    this.name = 'SetArgError';
  }
}

/**
 * A `--set key=v1,v2,...` argument as an error line echoes it: more than 8 values give the first
 * three and the last ("workload.seed=1, 2, 3, ..., 399 (399 values)"; 399 values were one line of
 * about 3,000 characters, s46 newcomer L6).
 */
export function shortSetArg(arg: string): string {
  const eq = arg.indexOf('=');
  const values = eq < 0 ? [] : arg.slice(eq + 1).split(',');
  if (values.length <= 8) return arg;
  return `${arg.slice(0, eq + 1)}${values.slice(0, 3).join(', ')}, ..., ${values.at(-1)} (${formatCount(values.length)} values)`;
}

/** A result file that could not be written (exit 1, one line). */
export class OutputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutputError';
  }
}

/** Raised inside a run when the user cancelled it (SIGINT / SIGTERM: `signal`). */
export class CancelledError extends Error {
  constructor(readonly signal?: NodeJS.Signals) {
    super(signal ? `cancelled by ${signal}` : 'cancelled');
    this.name = 'CancelledError';
  }
}

/**
 * Lets the event loop run one turn, then throws `signal.reason` if the signal has aborted: a
 * SIGINT or SIGTERM that came during synchronous work (reading a profile or a trace, a slice of
 * simulation) reaches its handler in the loop's poll phase, which one setImmediate passes through,
 * and the handler aborts the signal with its CancelledError.
 * @throws signal.reason once `signal` is aborted.
 */
export async function cancelPoint(signal?: AbortSignal): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  signal?.throwIfAborted();
}

/**
 * The one line a cancelled command prints on stderr, the same for every command:
 * `attnscope: <command> cancelled by <signal><where>; <outcome>`, e.g. simulate's
 * "... at 3% of 300,000 requests; nothing written" and bench's
 * "... after 2 of 6 cases; the run so far written to run.json".
 * @param where how far the run got, with its leading space ('' when unknown).
 */
export function cancelLine(command: string, e: CancelledError, where: string, outcome: string): string {
  return `attnscope: ${command} ${e.message}${where}; ${outcome}\n`;
}
