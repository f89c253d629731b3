/**
 * Command-line plumbing shared by every `attnscope` command: option parsing with one-sentence
 * errors, output paths refused before any work (never creating folders), atomic result files, the exit codes,
 * and the quoting of the command lines messages give.
 */
import { accessSync, closeSync, constants, openSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { closestMatch } from '../core/config/suggest';
import { outputTarget, writeFileAtomic } from './atomic';
import { OutputError, UsageError } from './errors';

/** One word for bash: single-quoted unless it is plainly safe. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A decimal number as a flag's value is written (a profile's spelling: no hex "0x10", no spaces " 5", which Number() would read). */
export const DECIMAL_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * "1e400 is beyond the 64-bit float range (±1.8e308)" for a decimal `text` that reads as ±Infinity,
 * else null: the one check and wording of a numeric flag (--slo-ttft-ms 1e400) and a --set value
 * (--set slo.ttft_ms=100,1e400), which said "Infinity" for what the user typed (s43 newcomer43 L1).
 */
export function beyondFloatRange(text: string): string | null {
  return DECIMAL_NUMBER.test(text) && !Number.isFinite(Number(text)) ? `${text} is beyond the 64-bit float range (±1.8e308)` : null;
}

/** Exit code of a command cancelled by SIGINT / SIGTERM (128 + SIGINT). */
export const EXIT_CANCELLED = 130;

/** `attnscope <command> --help`: the usage and the parser's `options` with their help lines (runner/help.ts), exit 0. */
export class HelpRequest extends Error {
  constructor(readonly options?: NonNullable<ParseArgsConfig['options']>) {
    super('help');
  }
}

export function parse<O extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: O) {
  if (argv.includes('--help') || argv.includes('-h')) throw new HelpRequest(options);
  // A negative number after an option that takes a value is that value (`--time-scale -2`), so
  // that the option's own check can say "must be > 0" instead of Node's "ambiguous" message.
  const args = argv.flatMap((a, i) => {
    const name = a.startsWith('--') && !a.includes('=') ? a.slice(2) : undefined;
    if (name !== undefined && options[name]?.type === 'string' && /^-(\d|\.\d)/.test(argv[i + 1] ?? '')) return [`${a}=${argv[i + 1]}`];
    if (i > 0 && /^-(\d|\.\d)/.test(a)) {
      const prev = argv[i - 1]!;
      const p = prev.startsWith('--') && !prev.includes('=') ? prev.slice(2) : undefined;
      if (p !== undefined && options[p]?.type === 'string') return [];
    }
    return [a];
  });
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true, tokens: true });
  } catch (e) {
    // Node's text ("Unknown option '--x'. To specify a positional argument starting with a '-',
    // place it at the end of the command after '--', as in '-- \"--x\"") shortened to its first
    // sentence, with the closest of this command's options (closestMatch, as for profile keys).
    // Reworded in the CLI's own voice (s47 newcomer LOW-7: "Unknown option '--quik'", "Option
    // '--time-scale <value>' argument missing" read unlike every other attnscope: line).
    const raw = (e as Error).message.replace(/\. To specify a positional argument.*$/s, '');
    const code = (e as { code?: string }).code;
    const unknown = code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /^Unknown option '(--?[^'=]+)'/.exec(raw)?.[1] : undefined;
    const missing = code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' ? /^Option '(?:-\w, )?(--[^ ']+) <value>' argument missing/.exec(raw)?.[1] : undefined;
    const message = unknown !== undefined ? `unknown flag ${unknown}` : missing !== undefined ? `${missing} needs a value` : raw;
    const near = unknown?.startsWith('--') ? closestMatch(unknown.slice(2), Object.keys(options).filter((k) => k !== 'help')) : undefined;
    throw new UsageError(near !== undefined ? `${message}: did you mean --${near}?` : message);
  }
  refuseRepeats(parsed.tokens, options);
  return { values: parsed.values, positionals: parsed.positionals };
}

/**
 * Refuses an option that takes one value given more than once (`--trace a.jsonl --trace
 * b.jsonl`), which parseArgs reads as the last one given, silently. A boolean flag given twice
 * says the same thing twice and is let be.
 * @throws UsageError naming the option and its values in the order given.
 */
function refuseRepeats(tokens: ReadonlyArray<{ kind: string; name?: string; value?: string }>, options: NonNullable<ParseArgsConfig['options']>): void {
  const given = new Map<string, string[]>();
  for (const t of tokens) {
    if (t.kind !== 'option' || t.name === undefined) continue;
    const o = options[t.name];
    if (o?.type !== 'string' || o.multiple === true) continue;
    const values = given.get(t.name) ?? [];
    values.push(t.value ?? '');
    given.set(t.name, values);
  }
  for (const [name, values] of given) {
    if (values.length > 1) throw new UsageError(`--${name} is given ${values.length} times (${values.map((v) => `'${v}'`).join(', then ')}): it takes one value; give it once`, false);
  }
}

/** Why a write failed, in words (errno code -> phrase). */
export function writeFailure(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (err.code === 'ENOSPC') return 'no space left on the device';
  if (err.code === 'EDQUOT') return 'disk quota exceeded';
  if (err.code === 'EFBIG') return "the file is larger than this process may write (the shell's ulimit -f)";
  if (err.code === 'EACCES' || err.code === 'EPERM') return 'permission denied';
  if (err.code === 'EROFS') return 'read-only file system';
  return err.message;
}

/** What to do about a failed write (errno code -> advice), for the line that reports it. */
export function writeRemedy(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'free space there or give a path on another disk';
  if (code === 'EFBIG') return 'raise it: ulimit -f unlimited';
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return 'give a path you may write';
  return 'give another path';
}

/**
 * The one line for a result file that could not be written: `what` (the flag), the path, why,
 * that an atomic write left the file as it was (a device written in place may hold part), what to do.
 */
export function writeFailureLine(what: string, path: string, e: unknown): string {
  const kept = outputTarget(path).inPlace ? '' : '; the file is left as it was';
  return `${what} ${path}: cannot write: ${writeFailure(e)}${kept} (${writeRemedy(e)})`;
}

/** A file a run reads, for {@link checkOutputPath}: its path and what it is to the run, e.g. 'the profile', 'the trace (--trace)'. */
export interface RunInput {
  path: string;
  what: string;
  /** The refusal's words after "is", where "{what} this run reads" does not fit: "the saved run this replays". */
  is?: string;
}

/**
 * The input among `inputs` that `path` would overwrite: the same regular file (device and inode,
 * so a symbolic or hard link to it counts too), or undefined. A path that does not exist yet, or
 * is not a regular file (a device, a pipe: written in place, replacing nothing), is none.
 */
function inputAt(path: string, inputs: readonly RunInput[]): RunInput | undefined {
  let out;
  try {
    out = statSync(path);
  } catch {
    return undefined;
  }
  if (!out.isFile()) return undefined;
  return inputs.find((input) => {
    try {
      const st = statSync(input.path);
      return st.dev === out.dev && st.ino === out.ino;
    } catch {
      return false;
    }
  });
}

/**
 * Refuses, before any work is done, an output path that would overwrite one of the run's own
 * `inputs` (its profile, the model's config.json, a trace: `--json profile.attn.yaml` typed by
 * mistake replaced the profile with the run); an output path that cannot be written: a folder; a path
 * under a file; a folder that does not exist (it is not created: a typo in a path would
 * otherwise leave a run in a folder nobody looks in; say `mkdir -p` first); a folder or file
 * this process may not write (found by creating and removing a probe file beside the target,
 * so that read-only mounts and root's limits count too). An existing file is replaced
 * atomically; a device or pipe (/dev/stdout) is written in place.
 * @throws UsageError (exit 2, one line) naming the flag, the path and the reason.
 */
export function checkOutputPath(path: string | undefined, flag: string, inputs: readonly RunInput[] = []): void {
  if (path === undefined) return;
  if (path === '') throw new UsageError(`${flag} needs a file path`, false);
  if (path === '-') throw new UsageError(`${flag} - : '-' is not a file here; give a file path, or /dev/stdout for the ${flag === '--csv' ? 'CSV' : 'JSON'} alone on stdout`, false);
  const input = inputAt(path, inputs);
  if (input) throw new UsageError(`${flag} ${path}: is ${input.is ?? `${input.what} this run reads`}${resolve(input.path) === resolve(path) ? '' : ` (${input.path})`}; give another file`, false);
  const stat = (p: string) => {
    try {
      return statSync(p);
    } catch {
      return undefined;
    }
  };
  const refuse = (why: string) => new UsageError(`${flag} ${path}: ${why}`, false);
  const target = stat(path);
  if (target?.isDirectory()) throw new UsageError(`${flag} ${path} is a folder: give a file path, e.g. ${join(path, 'run.json')}`, false);
  const out = outputTarget(path);
  if (out.inPlace) {
    // A device or pipe, written in place: checked with access(2), never opened (opening a
    // FIFO for writing blocks until a reader comes).
    try {
      accessSync(out.path, constants.W_OK);
    } catch (e) {
      throw refuse(`cannot write: ${writeFailure(e)}`);
    }
    return;
  }
  // s40 newcomer 8: the rename replaced a file this user may not write (0444), as `>` and cp do not;
  // for root, whom access(2) lets write anything, writeFileAtomic keeps the file's mode instead.
  if (target?.isFile()) {
    try {
      accessSync(out.path, constants.W_OK);
    } catch (e) {
      throw refuse(`cannot write: ${writeFailure(e)} (mode ${(target.mode & 0o7777).toString(8).padStart(4, '0')}); make it writable (chmod u+w) or give another file`);
    }
  }
  // A symbolic link is followed: its target's folder is the one that must exist.
  const dir = dirname(out.path);
  const shown = out.path === resolve(path) ? dirname(path) : dir;
  const st = stat(dir);
  if (!st) {
    for (let up = dirname(dir); dirname(up) !== up; up = dirname(up)) {
      const above = stat(up);
      if (above && !above.isDirectory()) throw refuse(`${up} is a file, not a folder`);
      if (above) break;
    }
    throw refuse(`the folder ${shown} does not exist (it is not created for you: mkdir -p ${shown} first)`);
  }
  if (!st.isDirectory()) throw refuse(`${dir} is a file, not a folder`);
  // The result is written to a temporary file in that folder and renamed over the target.
  probeWritable(dir, refuse);
}

/**
 * Creates and removes a probe file in `dir`, so that permissions, read-only mounts, immutable
 * folders and root's limits all count as the run's own write will meet them.
 * @throws what `refuse` makes of "cannot write in DIR: why".
 */
function probeWritable(dir: string, refuse: (why: string) => Error): void {
  const probe = join(dir, `.attnscope-probe-${process.pid}-${Date.now()}`);
  try {
    closeSync(openSync(probe, 'wx'));
  } catch (e) {
    throw refuse(`cannot write in ${dir}: ${writeFailure(e)}`);
  }
  rmSync(probe, { force: true });
}

/**
 * Refuses, before any work, an output folder (sweep/submit `--out`) that cannot be made or
 * written in: the folder itself is created if missing (it is the run's own folder), but its
 * parent must exist, as for `--json` (a typo in a path is not silently turned into a tree of
 * folders), and the folder (or, to be made, its parent) must take a probe file.
 * @throws UsageError (exit 2, one line) naming the flag, the path and the reason.
 */
export function checkOutputDir(path: string, flag: string): void {
  if (path === '') throw new UsageError(`${flag} needs a folder path`, false);
  const refuse = (why: string) => new UsageError(`${flag} ${path}: ${why}`, false);
  let st;
  try {
    st = statSync(path);
  } catch {
    st = undefined;
  }
  if (st) {
    if (!st.isDirectory()) throw refuse('is a file, not a folder');
    // s40 newcomer F2: a folder the points cannot be written in failed after a point's whole simulation.
    probeWritable(path, refuse);
    return;
  }
  const parent = dirname(resolve(path));
  let pst;
  try {
    pst = statSync(parent);
  } catch {
    pst = undefined;
  }
  if (!pst) throw refuse(`the folder ${dirname(path)} does not exist (only the last folder is created for you: mkdir -p ${dirname(path)} first)`);
  if (!pst.isDirectory()) throw refuse(`${parent} is a file, not a folder`);
  // s40 newcomer F1: a parent the folder cannot be made in was an internal error (mkdir EACCES) with a stack.
  probeWritable(parent, refuse);
}

/** The names of this process's standard output an output flag may give (README "CLI"). */
const STDOUT_NAMES = ['/dev/stdout', '/dev/fd/1', '/proc/self/fd/1'];

/**
 * True when `path` names standard output (/dev/stdout, /dev/fd/1, /proc/self/fd/1). Such output
 * is written through the process's stdout stream, never by opening the path: opened anew, a
 * redirected stdout is written from offset 0 and overwrites what went through fd 1 (`> file`).
 * The command then sends its human table to stderr, so that stdout holds the JSON alone.
 */
export function namesStdout(path: string | undefined): boolean {
  return path !== undefined && STDOUT_NAMES.includes(path);
}

/**
 * Writes a result file (through `stdout` when the path {@link namesStdout}); a failure (disk
 * full, no permission) is one line and exit 1.
 */
/**
 * Writes a data file's text (JSON, CSV) to a stream as UTF-8 bytes: JSON is UTF-8 by RFC 8259 and a
 * file, not terminal prose, so stdout carries the same bytes `--json FILE` writes whatever the locale
 * (a Buffer passes core/textTable.ts localeOutput's ASCII conversion untouched; prose goes as strings).
 */
export function writeData(stream: NodeJS.WritableStream, text: string): void {
  stream.write(Buffer.from(text, 'utf8'));
}

export function writeOutput(path: string, text: string, flag: string, stdout: NodeJS.WritableStream = process.stdout): void {
  if (namesStdout(path)) {
    writeData(stdout, text);
    return;
  }
  try {
    writeFileAtomic(path, text);
  } catch (e) {
    throw new OutputError(writeFailureLine(flag, path, e));
  }
}

