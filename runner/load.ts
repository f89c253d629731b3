/**
 * Reads the file the user names on the command line into a resolved Profile:
 * a profile (*.attn.yaml | *.attn.yml | *.attn.json) or a HuggingFace config.json (then the
 * default profile for that model), checked by the editor's own validation (core/validate.ts).
 * Every error of a run (runSeverity) becomes one line of an InputErrors, sorted by position;
 * warnings and infos, the deployment checks' among them, are handed back with a `format` that
 * places any problem of the profile (`file:line:col: warning: ...`) for the CLI to print.
 * A file AttnScope wrote (a saved run, estimate --json's output, a sweep report) is refused in one
 * line saying what it is, for every command that reads a profile (refuseToolOutput).
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { isGivenDescriptor, MAX_INPUT_TEXT_BYTES, readCommandLineText, readInputText, type NotRead } from '../core/fileText';
import { offsetToLineColumn } from '../core/config';
import { jsonCutShortAt, jsonCutShortText } from '../core/config/tree';
import { CONFIG_NAME, isProfilePath, readsAsProfile } from '../core/config/fileKinds';
import { fewAndCount, formatBytes, formatCount } from '../core/format';
import type { Problem, Profile } from '../core/config/types';
import { RUN_SCHEMA_VERSION, runKind, TOOL_NAME, type RunProblem, type RunResult } from '../core/protocol/run';
import { runSeverity, summarisedElsewhere, validateProfileText } from '../core/validate';
import { shellQuote, type RunInput } from './args';
import { InputError, InputErrors, numbersMasked, readFailure, RepeatCap } from './errors';

/** A resolved Profile and how to point into the text it came from; `attnscope bench -` builds one for stdin too. */
export interface LoadedProfile {
  profile: Profile;
  /**
   * The warnings and infos of the file and of its deployment checks, with the severity a run
   * gives them (core/validate.ts runSeverity), in the order found; no errors: those throw.
   */
  problems: Problem[];
  /** Where a problem of this profile (or of the config it names) is, for a run's JSON (RunResult.problems). */
  locate(problem: Problem): RunProblem;
  /** `file:line:col: severity: message` for a problem of this profile (or of the config it names): {@link formatProblem} of locate's. */
  format(problem: Problem): string;
  /** An InputError at a profile key (a path like "prefill.seq_lens"), else its nearest parent that is written, else 1:1. */
  errorAt(key: string, message: string): InputError;
}

/**
 * The text of the profile or config.json named on the command line (core/fileText.ts
 * readCommandLineText): a regular file, up to MAX_INPUT_TEXT_BYTES by its size before reading; a
 * pipe the shell hands over (process substitution `<(...)` is /dev/fd/63, `/dev/stdin`) read to its
 * end, up to the same. A FIFO named by its own path (it waits for a writer: for ever with none), a
 * device (/dev/zero, /dev/urandom: endless) and a socket are refused unread. The config.json a
 * profile's model: names is read by {@link loadProfile}'s host, which refuses a pipe too.
 * @param given the path as the user gave it (relative or not), for the "no such file" hint.
 * @throws Error whose message says why, after the path ("is a folder, not a file", "no such file", ...).
 */
function readTextFile(path: string, given = path): string {
  let text;
  try {
    text = readCommandLineText(path, MAX_INPUT_TEXT_BYTES);
  } catch (e) {
    throw new Error(readFailure(e, 'file', given), { cause: e });
  }
  if (typeof text === 'string') return text;
  if (text.kind === 'size') throw new Error(`is ${text.bytes !== undefined && !isGivenDescriptor(path) ? formatBytes(text.bytes) : `more than ${formatBytes(MAX_INPUT_TEXT_BYTES)}`}: too big for a profile or config.json (at most ${formatBytes(MAX_INPUT_TEXT_BYTES)}; a weights file?)`);
  if (text.why === 'a folder') throw new Error(`is a folder, not a file: ${inFolderHint(path, given)}`);
  if (text.why === 'not a regular file (a FIFO)') throw new Error('is a named pipe (FIFO), not a file: reading it waits until something writes to it; give the profile or config.json itself, or pipe it in as <(cat FILE) (a profile so piped reads a relative model: path beside /dev/fd: write it absolute)');
  if (text.kind === 'irregular') throw new Error(`is not a regular file (a device or socket), so not a profile or config.json: ${GIVE_INPUT}`);
  throw new Error(`is ${text.why}`);
}

/** What a command that reads a profile takes, for a refusal of something else. */
const GIVE_INPUT = 'give the path of a profile (*.attn.yaml) or of a model\'s config.json';

/**
 * What to give instead of the folder `path` (named `given`): the profiles and config.json it holds,
 * three and a count, as paths to type ("examples/llama-3.1-8b.attn.yaml"), else {@link GIVE_INPUT}.
 */
function inFolderHint(path: string, given: string): string {
  let names: string[];
  try {
    names = readdirSync(path).filter((n) => isProfilePath(n) || n === CONFIG_NAME).sort();
  } catch {
    return GIVE_INPUT;
  }
  if (names.length === 0) return `it holds no profile (*.attn.yaml) or config.json; ${GIVE_INPUT}`;
  const shown = names.map((n) => (given === '.' ? n : join(given, n)));
  return `give a file in it: ${fewAndCount(shown, 3)}`;
}

/**
 * The text of the profile, config.json or saved run `file` names on the command line, read once
 * (a pipe reads empty the second time): {@link readTextFile}.
 * @throws InputError at `file` saying why it was not read.
 */
function readInputFile(file: string): string {
  try {
    return readTextFile(resolve(file), file);
  } catch (e) {
    throw new InputError((e as Error).message, file);
  }
}

/** The top-level fields of a JSON file AttnScope wrote (a run, estimate --json's output, a sweep report): `tool` is "attnscope ...". */
export interface ToolOutput { tool: string; schema?: unknown; kind?: unknown; name?: unknown; createdAt?: unknown; sweepId?: unknown; profile?: unknown; environment?: unknown }

/**
 * The JSON AttnScope wrote that `text`, read from `file`, holds (`tool` "attnscope ..."), parsed
 * once for every check of what the file is, else null: a profile, a model config.json, a file
 * whose name does not end in .json or whose text is no JSON object.
 */
function toolOutputIn(file: string, text: string): ToolOutput | null {
  if (!file.endsWith('.json') || !text.trimStart().startsWith('{')) return null;
  try {
    const v = JSON.parse(text) as Partial<ToolOutput> | null;
    return v && typeof v === 'object' && typeof v.tool === 'string' && v.tool.startsWith(`${TOOL_NAME} `) ? (v as ToolOutput) : null;
  } catch {
    return null;
  }
}

/**
 * The run a {@link toolOutputIn} holds when it is a run JSON AttnScope wrote (`bench`/`simulate
 * --json`, a sweep point: `schema`, `profile`, `environment`), else null.
 */
function savedRunOf(out: ToolOutput | null): RunResult | null {
  return out && out.schema === RUN_SCHEMA_VERSION && out.profile && out.environment ? (out as unknown as RunResult) : null;
}

/**
 * A file named where a profile goes, read once (a pipe, `<(cat run.json)`, reads empty the second
 * time): its text, and the run it holds when it is a run AttnScope saved (`simulate RUN.json`
 * takes one; every other reader refuses it, {@link loadProfile}).
 */
export interface ProfileInput {
  text: string;
  /** What AttnScope output the text is (a run, estimate --json's output, a sweep report), else null; parsed once. */
  output: ToolOutput | null;
  /** The saved run the text is, else null. */
  run: RunResult | null;
}

/**
 * Reads `file` ({@link readInputFile}) and tells whether it is a saved run.
 * @throws InputError at `file` saying why it was not read.
 */
export function readProfileInput(file: string): ProfileInput {
  const text = readInputFile(file);
  const output = toolOutputIn(file, text);
  return { text, output, run: savedRunOf(output) };
}

/**
 * The command that reads a profile, for the hint of a refusal: who takes the profile
 * ("attnscope estimate", "attnscope vllm-log --profile") and the command line with one
 * (`attnscope vllm-log vllm.log --profile p.attn.yaml`). {@link profileCommand} makes one.
 */
export interface ProfileCommand {
  takes: string;
  lineWith(profile: string): string;
}

/**
 * `attnscope <command> [before...] [flag] <profile>`: e.g. profileCommand('estimate'), or
 * profileCommand('vllm-log', [log], '--profile'); words shell-quoted as a user pastes them.
 */
export function profileCommand(command: string, before: readonly string[] = [], flag?: string): ProfileCommand {
  const words = (profile: string) => [command, ...before, ...(flag ? [flag] : []), profile].map(shellQuote).join(' ');
  return { takes: `${TOOL_NAME} ${command}${flag ? ` ${flag}` : ''}`, lineWith: (profile) => `${TOOL_NAME} ${words(profile)}` };
}

/**
 * Refuses, in one line at file:1:1 that says what the file is and what to give instead, an
 * AttnScope output given where a profile or config.json goes: a saved run (`bench` / `simulate
 * --json`, the editor's `.attnscope/runs/*.json`: the profile it was made from, profile.sourcePath,
 * while that file is there, and `simulate RUN.json`, which reads a run's profile), `estimate
 * --json`'s file (kind "estimate"), a sweep report (kind "attnscope-sweep-report"), `trace
 * --json`'s (kind "trace") or `vllm-log --json`'s (kinds "vllm-log", "vllm-log-comparison"). Read as a
 * config.json, each gave lines of missing "hidden_size" and the like at 1:1 (s36 newcomer, s37
 * fix37). Nothing for any other file. Every reader of a profile meets it: {@link loadProfile}, and
 * the sweep's (runner/sweep/spec.ts loadSweep).
 * @throws InputError (exit 2) for such a file.
 */
export function refuseToolOutput(file: string, input: ProfileInput, command: ProfileCommand): void {
  const v = input.output;
  if (!v) return;
  const run = input.run;
  if (run) {
    const source = run.profile.sourcePath;
    const made = `made by ${TOOL_NAME} ${runKind(run)}${source ? ` from ${basename(source)}` : ''} at ${run.createdAt}`;
    const shown = source === null ? null : relative(process.cwd(), source).startsWith('..') ? source : relative(process.cwd(), source);
    const give = shown !== null && existsSync(source!) ? `give its profile: ${command.lineWith(shown)}` : 'give the profile it was made from';
    throw new InputError(`a saved run (${made}), not a profile or config.json: ${give}; ${profileCommand('simulate').lineWith(file)} simulates the run's profile again`, file);
  }
  const name = typeof v.name === 'string' ? v.name : null;
  const give = `give ${command.takes} the profile it was made from${name ? ` (${name})` : ''}`;
  if (v.kind === 'estimate') {
    throw new InputError(`the output of ${TOOL_NAME} estimate --json${name ? ` for ${name}` : ''}${typeof v.createdAt === 'string' ? ` at ${v.createdAt}` : ''}, not a profile or config.json: ${give}`, file);
  }
  if (v.kind === 'attnscope-sweep-report') {
    throw new InputError(`a sweep report${typeof v.sweepId === 'string' ? ` (sweep ${v.sweepId}` : ' ('}${name ? ` of ${name})` : ')'}, not a profile or config.json: ${give}; the report opens with AttnScope: Open sweep results`, file);
  }
  // The other files the header's kind names: `trace --json` and `vllm-log --json` (with --profile: 'vllm-log-comparison').
  const made = `${typeof v.createdAt === 'string' ? ` at ${v.createdAt}` : ''}`;
  if (v.kind === 'trace') {
    throw new InputError(`the output of ${TOOL_NAME} trace --json${name ? ` for ${name}` : ''}${made}, a trace's summary, not a profile or config.json: give ${command.takes} a profile (a trace replays with simulate --trace FILE or the profile's workload.trace)`, file);
  }
  if (v.kind === 'vllm-log' || v.kind === 'vllm-log-comparison') {
    throw new InputError(`the output of ${TOOL_NAME} vllm-log --json${name ? ` for ${name}` : ''}${made}, a vLLM log's figures, not a profile or config.json: give ${command.takes} the profile or config.json of the log's model`, file);
  }
}

/** The most of a file's start looked at to tell what it is ({@link refuseOtherInput}): 64 KiB. */
const SNIFF_CHARS = 64 * 1024;

/**
 * Refuses, in one line that says what the file looks like and what takes it, a file given where
 * a profile or config.json goes that is another input of this tool or no text at all: binary
 * data (a NUL byte: /bin/ls named p.attn.yaml printed 424 characters of escaped ELF bytes), a
 * vLLM server log (lines `INFO 02-06 03:33:26 [file.py:123] ...`, optionally behind vLLM V1's
 * `(EngineCore_DP0 pid=1)` prefix: `attnscope vllm-log`), JSON lines (one object a line, as a
 * request trace is: `--trace`, `attnscope trace`). Read as a profile each gave YAML or JSON
 * parser errors, "Implicit keys need to be on a single line" or "end of file expected" (s47
 * newcomer M2, M3). Looks at the first {@link SNIFF_CHARS} characters only; nothing for any
 * other text, which the profile reader then reads (and {@link loadProfile} still refuses other
 * files by their parse, {@link refuseUnparsed}).
 * @param file the path as the user typed it; `text` its text (read once).
 * @throws InputError (exit 2) for such a file, at the line that shows what it is.
 */
export function refuseOtherInput(file: string, text: string, command: ProfileCommand): void {
  const head = text.slice(0, SNIFF_CHARS);
  const nul = head.indexOf('\0');
  if (nul >= 0) {
    const byte = Buffer.byteLength(head.slice(0, nul), 'utf8');
    throw new InputError(`binary data (a NUL byte at byte ${formatCount(byte)}), not a profile or config.json: a profile is YAML or JSON text (*.attn.yaml, *.attn.json), a model's config.json is JSON`, file);
  }
  const log = /^(?:\([^)\n]*\) )?(?:INFO|WARNING|DEBUG|ERROR) \d\d-\d\d \d\d:\d\d:\d\d /m.exec(head);
  if (log) {
    const { line } = offsetToLineColumn(head, log.index);
    throw new InputError(`a vLLM server log, not a profile or config.json: ${TOOL_NAME} vllm-log ${shellQuote(file)} --profile P compares its memory lines with profile P's estimate; give ${command.takes} the profile or config.json`, file, line, 1);
  }
  const lines = head.split('\n', 3).map((l) => l.trim());
  if (lines.length >= 2 && lines[0]!.startsWith('{') && lines[1]!.startsWith('{')) {
    let v: unknown = null;
    try {
      v = JSON.parse(lines[0]!) as unknown;
    } catch {
      // Not a JSON line: the profile reader says what is wrong with it.
    }
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      throw new InputError(`JSON lines (one object a line, as a request trace is), not a profile or config.json: a trace is replayed with ${TOOL_NAME} simulate P --trace ${shellQuote(file)} (or a profile's workload.trace) and summarised with ${TOOL_NAME} trace ${shellQuote(file)}`, file, 2, 1);
    }
  }
}

/**
 * Refuses, in one line, a file that does not parse and is not named as YAML or JSON (README.md,
 * notes.txt, model.py): its parser errors (a README gave 5 lines of "YAML syntax error:
 * Implicit keys need to be on a single line") would read as a profile's typos. A name with no
 * extension (`<(cat p.yaml)` is /dev/fd/63) or a *.yaml / *.yml / *.json keeps its errors.
 * @param at the first parse error's place in the file.
 * @throws InputError at that place for such a file.
 */
function refuseUnparsed(file: string, at: { line: number; column: number }, first: string): void {
  const ext = /\.([^./\\]+)$/.exec(basename(file))?.[1]?.toLowerCase();
  if (ext === undefined || ext === 'yaml' || ext === 'yml' || ext === 'json') return;
  throw new InputError(`not a profile or config.json: a .${ext} file that does not read as YAML (${first.replace(/^YAML syntax error: /, '')}); ${TOOL_NAME} reads profiles (*.attn.yaml, *.attn.json) and a model's config.json`, file, at.line, at.column);
}

/** A located problem as the CLI prints it: `file:line:col: severity: message`, or `file: severity: message` where it has no line (stdin). */
export function formatProblem(p: RunProblem): string {
  return `${p.file}${p.line !== undefined ? `:${p.line}:${p.column ?? 1}` : ''}: ${p.severity}: ${p.message}`;
}

/**
 * How a message names a file the tool reached from the one the user named (the config.json of a
 * profile's model:): as that one was named, absolute when it was given absolute, else relative to
 * the working directory ("gemma-2-9b.json", "../models/config.json"), so that one run's messages do
 * not mix the two (s48 newcomer L7: "gemma.attn.yaml:1:8" beside "/tmp/nc48t/gemma-2-9b.json:12:15");
 * where the relative path climbs out of the working directory, the shorter of it and the absolute one.
 * The one rule for it: loadProfile's messages, notes and refusals all pass through here. `path`
 * absolute (the reader resolves it); `namedAs` the command line's file ("-": stdin, left absolute).
 */
export function shownPath(path: string, namedAs: string): string {
  if (!isAbsolute(path) || isAbsolute(namedAs) || namedAs === '-') return path;
  const near = relative(process.cwd(), path) || '.';
  // Climbing out of the working directory, the shorter of the two (s52 newcomer: a profile naming
  // /work/shared/data/x.json, run in /tmp/t, printed "../../work/shared/data/x.json"; "../models/
  // config.json" beside a "../p.attn.yaml" stays relative).
  return climbsOut(near) && path.length < near.length ? path : near;
}

/** Whether a relative path leaves the folder it is relative to ("..", "../x"; not "..x"). */
function climbsOut(rel: string): boolean {
  return rel === '..' || rel.startsWith(`..${sep}`);
}

/** Files other than the one named (the config.json of model:): core/fileText.ts readInputText, so never a FIFO. */
function readText(path: string, refused = new Map<string, NotRead>()): string | null {
  return readInputText(path, refused);
}

function locate(problem: Problem, file: string, text: string, texts: Map<string, string>): { file: string; line: number; column: number } {
  const where = problem.file ?? file;
  const src = problem.file ? (texts.get(problem.file) ?? readText(problem.file) ?? '') : text;
  const { line, column } = offsetToLineColumn(src, problem.range.offset);
  return { file: where, line, column };
}

/**
 * The one reader of a profile or config.json named on the command line, for every command that
 * takes one (estimate, bench, simulate, vllm-log --profile; the sweep's base profile has its own
 * tree reader but meets the same refusal).
 * @param file path as the user typed it (messages repeat it as given).
 * @param command the command reading it, named in the refusal of an AttnScope output ({@link refuseToolOutput}).
 * @param input the file read already ({@link readProfileInput}: simulate looks for a saved run first).
 * @throws InputError when the file is missing or unreadable, is an AttnScope output (a saved run,
 *   estimate --json's output, a sweep report: one line saying so), or has an error-severity problem.
 */
export function loadProfile(file: string, command: ProfileCommand, given?: ProfileInput): LoadedProfile {
  // `-` is stdin only to simulate and bench (a resolved Profile as JSON): read as a file name it gave "-:1:1: no such file".
  if (file === '-' && given === undefined) throw new InputError(`${command.takes} does not read stdin: give the profile or config.json file's path (${command.lineWith('p.attn.yaml')})`, file);
  const input = given ?? readProfileInput(file);
  refuseToolOutput(file, input, command);
  refuseOtherInput(file, input.text, command);
  const text = input.text;
  const abs = resolve(file);
  // The file's own text is never read again: a pipe (<(cat p.yaml)) reads empty the second time.
  const texts = new Map<string, string>([[abs, text]]);
  const refused = new Map<string, NotRead>();
  const host = {
    readFile(p: string): string | null {
      const t = readText(p, refused);
      if (t !== null) texts.set(p, t);
      return t;
    },
    whyNotRead: (p: string) => refused.get(p),
  };

  const checked = validateProfileText(text, abs, host);
  const profile = checked.profile;
  const problems = checked.problems.map((p) => ({ ...p, severity: runSeverity(p) }));

  const display = (p: string) => (p === abs ? file : shownPath(p, file));
  // A file that does not parse: its parse errors only, one per place (JSON's "property name
  // expected" and "value expected" at one comma), as the rest is the parser's guess past them.
  const errors = checked.parseErrors.length > 0
    ? checked.parseErrors.filter((p, i, all) => all.findIndex((q) => q.range.offset === p.range.offset) === i)
    : problems.filter((p, _, all) => p.severity === 'error' && !summarisedElsewhere(p, all));
  if (errors.length > 0 || !profile) {
    const first = problems[0];
    if (errors.length === 0 && !first) throw new InputError('not a model config or profile', file);
    // By position: the named file's lines first, then those of the config.json it names (in one
    // file offsets order as line:col do, and locating each costs a scan of the text up to it).
    const fileOf = (p: Problem): string => p.file ?? abs;
    if (checked.parseErrors.length > 0) {
      const p = checked.parseErrors[0]!;
      refuseUnparsed(file, locate(p, abs, text, texts), p.message);
      // A JSON file that stops unfinished (a saved run or config.json copied in part, `head -c`):
      // said so at its end, before "not a model's config.json" (the keys past the cut are missing)
      // or a syntax error the end makes (s53 newcomer 5).
      const end = p.code === 'json-syntax' ? jsonCutShortAt(text) : null;
      if (end !== null) {
        const at = offsetToLineColumn(text, end);
        throw new InputError(`${jsonCutShortText(Buffer.byteLength(text))}: copy or save it again`, file, at.line, at.column);
      }
    }
    // Only for a file that parses: past a syntax error the keys are the parser's guess, and the error is what to fix.
    if (checked.parseErrors.length === 0 && !readsAsProfile(abs, text) && problems.some((p) => p.code === 'not-a-model-config') && problems.filter((p) => p.code === 'missing-field' && (p.file ?? abs) === abs).length >= 4) {
      // package.json, tsconfig.json: four lines of missing "hidden_size" and the like at 1:1.
      throw new InputError(`not a model's config.json: none of a HuggingFace config's keys (model_type, architectures, hidden_size, num_hidden_layers, num_attention_heads, vocab_size) is here; give ${command.takes} a model's config.json (or its folder) or a profile (*.attn.yaml)`, file);
    }
    const sorted = (errors.length > 0 ? errors : [first!]).sort((x, y) => Number(fileOf(y) === abs) - Number(fileOf(x) === abs) || fileOf(x).localeCompare(fileOf(y)) || x.range.offset - y.range.offset);
    const located = (p: Problem) => {
      const at = locate(p, abs, text, texts);
      return new InputError(p.message, display(at.file), at.line, at.column);
    };
    // The unknown keys too (a typo beside the errors, "pagesize"): said now, not after the errors are
    // fixed; not past a syntax error, where the keys are the parser's guess.
    const unknownKeys = errors.length > 0 && checked.parseErrors.length === 0 ? problems.filter((p) => p.code === 'unknown-key' && p.severity !== 'error') : [];
    throw new InputErrors(capRepeats(sorted).map(located), capRepeats(unknownKeys).map(located));
  }
  const locateProblem = (p: Problem): RunProblem => {
    const at = locate(p, abs, text, texts);
    return { severity: p.severity, code: p.code, message: p.message, file: display(at.file), line: at.line, column: at.column };
  };
  const errorAt = (key: string, message: string): InputError => {
    // "model.<config key>": at that key in the model's config.json (this file, for a bare config),
    // else at the profile's model key.
    if (key.startsWith('model.')) {
      const range = profile.model.ranges[key.slice('model.'.length)];
      const path = profile.modelPath ?? abs;
      const src = path === abs ? text : (texts.get(path) ?? readText(path));
      if (range && src !== null) {
        const { line, column } = offsetToLineColumn(src, range.offset);
        return new InputError(message, display(path), line, column);
      }
      key = 'model';
    }
    for (const parts = key.split('.'); parts.length > 0; parts.pop()) {
      const range = profile.ranges[parts.join('.')];
      if (range) {
        const { line, column } = offsetToLineColumn(text, range.offset);
        return new InputError(message, file, line, column);
      }
    }
    return new InputError(message, file);
  };
  return { profile, problems, locate: locateProblem, format: (p) => formatProblem(locateProblem(p)), errorAt };
}

/**
 * The files a run of `profile` reads, for checkOutputPath: the profile named on the command line
 * (`file`; for `-`, the resolved Profile's own file, which the editor has open) and the model's config.json.
 */
export function profileInputs(file: string, profile: Profile): RunInput[] {
  const source = file !== '-' ? file : profile.sourcePath;
  const isConfig = source !== null && profile.modelPath !== null && resolve(source) === profile.modelPath;
  return [
    ...(source !== null ? [{ path: source, what: isConfig ? "the model's config.json" : 'the profile' }] : []),
    ...(profile.modelPath !== null && !isConfig ? [{ path: profile.modelPath, what: "the model's config.json (the profile's model:)" }] : []),
  ];
}

/** Problems of one kind (code) shown one by one before the rest are counted in one line. */
const SHOWN_PER_KIND = 3;

/**
 * `problems` with at most {@link SHOWN_PER_KIND} of each kind (its code and its message but for
 * the numbers in it), in order; the next of a kind becomes one problem at its place saying how
 * many more there are (as traces count their warnings past the first three): a profile listing
 * 3,000 seq_lens past the model's context printed 964 lines. The list form of the one counter
 * of repeated problems (runner/errors.ts RepeatCap; a trace's bad rows: TraceProblems).
 */
export function capRepeats<T extends Pick<Problem, 'code' | 'message'>>(problems: readonly T[]): T[] {
  const cap = new RepeatCap<T>((n) => `${n.code} ${numbersMasked(n.message)}`, { first: 0, perKind: SHOWN_PER_KIND, kinds: Infinity });
  for (const n of problems) cap.add(n);
  return cap.lines().map(({ item, rows }) => (rows === 0 ? item : { ...item, message: `${formatCount(rows)} more like the last from here on, not shown one by one` }));
}
