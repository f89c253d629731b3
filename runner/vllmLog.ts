/**
 * `attnscope vllm-log LOG [--profile P] [--startup K] [--json]`: reads a vLLM start-up log and,
 * with a profile (or config.json) for the model, compares every memory figure it printed with the
 * estimate for the same settings, explaining each difference by its term (core/vllmlog).
 * Without a profile it lists the figures and the line each is on. A log of several start-ups (a
 * server restarted into the same file) is read for one of them: the last that printed memory
 * lines, or the K-th.
 */
import { basename } from 'node:path';
import { isGivenDescriptor, readCommandLineText } from '../core/fileText';
import { compareVllmLog, formatComparisonText, GIVE_STARTUP, logFigureLines, missingKvNote, parseVllmLog, rankNotes, stopNote, unreadLine, UNREAD_WHY, type LogComparison, type VllmLog } from '../core/vllmlog';
import { isDeploymentProblem } from '../core/validate';
import { fileLocation } from '../core/config/positions';
import { runHeader, type RunHeader } from '../core/protocol/run';
import { toolBuild } from './version';
import { InputError, readFailure } from './errors';
import { loadProfile, profileCommand } from './load';

/** Logs beyond this are not start-up logs a person pastes; refused before reading them whole. */
const MAX_LOG_BYTES = 256 * 1024 * 1024;

/**
 * The log's text (core/fileText.ts readCommandLineText): a regular file, refused by its size past
 * MAX_LOG_BYTES before a byte is read; a pipe or terminal the shell hands over (`cmd | attnscope
 * vllm-log /dev/stdin`, `<(...)`) read to its end, refused one byte past it. A FIFO named by its own
 * path (it waits for a writer), a device (/dev/zero never ends) and a folder are refused unread; `-`
 * is refused with the /dev/stdin line (estimate's `-` refusal's rule).
 * @throws InputError at `file` saying why.
 */
function readLog(file: string): string {
  // `-` as a file name read "-:1:1: no such file" (s51 nc-cli 17); the pipe is /dev/stdin, as README shows.
  if (file === '-') throw new InputError('attnscope vllm-log does not read - as stdin: pipe the log in as /dev/stdin (cat LOG | attnscope vllm-log /dev/stdin), or give the log file\'s path', file);
  let text;
  try {
    text = readCommandLineText(file, MAX_LOG_BYTES);
  } catch (e) {
    throw new InputError(readFailure(e, 'file', file), file);
  }
  // An empty file (0 bytes, or only blank lines) holds no line to look for: say so, not that no memory line was found (s44 newcomer LOW-11).
  if (typeof text === 'string' && text.trim() === '') throw new InputError(`the file is empty${text.length === 0 ? '' : ` (${text.split('\n').length - 1} blank lines)`}: give the log vLLM's server printed (its start-up lines up to "Maximum concurrency")`, file);
  if (typeof text === 'string') return text;
  if (text.kind === 'size') {
    const size = text.bytes !== undefined && !isGivenDescriptor(file) ? `${Math.round(text.bytes / 2 ** 20)} MiB` : `over ${MAX_LOG_BYTES / 2 ** 20} MiB`;
    throw new InputError(`the log is ${size}: give the start-up part (the first lines up to "Maximum concurrency")`, file);
  }
  if (text.why === 'a folder') throw new InputError('is a folder, not a log file', file);
  if (text.why === 'not a regular file (a FIFO)') throw new InputError('is a named pipe (FIFO), not a file: reading it waits until something writes to it; give the log file itself, or pipe it in as /dev/stdin or <(cat LOG)', file);
  if (text.kind === 'irregular') throw new InputError(`is ${text.why}, not a log file`, file);
  throw new InputError(text.why, file);
}

/** "the first", "the 2nd", ... "the last": a start-up by its place among `count`. */
function startupName(k: number, count: number): string {
  if (k === count) return 'the last';
  if (k === 1) return 'the first';
  return `the ${k}${k % 10 === 2 && k % 100 !== 12 ? 'nd' : k % 10 === 3 && k % 100 !== 13 ? 'rd' : 'th'}`;
}

/**
 * The note on a log of several start-ups: how many, which was read (its line), and the flag that
 * reads another: `file:L:1: info: the log holds 2 start-ups (lines 1, 40); read the last (line 40);
 * --startup 1 reads the first`. None for a log of one start-up.
 */
function startupNote(file: string, log: VllmLog, asked: boolean): string[] {
  const n = log.startups.length;
  if (n < 2) return [];
  const read = log.startups[log.startup - 1]!;
  const why = !asked && log.startup < n ? ` (${n - log.startup > 1 ? 'the later ones' : 'the last'} printed no memory line)` : '';
  const other = log.startup === n ? n - 1 : n;
  return [`${fileLocation(file, read.line, 1)}: info: the log holds ${n} start-ups (lines ${log.startups.map((s) => s.line).join(', ')}); read ${startupName(log.startup, n)} (line ${read.line})${why}; --startup ${other} reads ${startupName(other, n)}`];
}

/**
 * `vllm-log --json`: the header every AttnScope JSON file opens with (name: the log's file name),
 * then, without --profile, kind 'vllm-log' and the VllmLog's fields at the top level; with it,
 * kind 'vllm-log-comparison', the log and its comparison with the estimate.
 */
export type VllmLogFile =
  | (RunHeader & { kind: 'vllm-log' } & VllmLog)
  | (RunHeader & { kind: 'vllm-log-comparison'; log: VllmLog; comparison: LogComparison });

/**
 * The command's output (stdout text) for `file` and an optional profile path; notes for stderr:
 * first, for a log of several start-ups, which one was read; then each line of it that could not
 * be read (`file:line:1: warning: ...`), then the log's model='...' line where it names another
 * model than the profile's, then the profile's problems.
 * @param startup the 1-based start-up to read (--startup); undefined: the last that printed memory lines.
 * @throws InputError when the log is unreadable, holds no start-up `startup`, or its start-up holds
 *   no vLLM memory line that could be read (at the first line that could not be, if any), or the
 *   profile is bad.
 */
export function vllmLogReport(file: string, profilePath: string | undefined, json: boolean, startup?: number): { stdout: string; notes: string[] } {
  const log = parseVllmLog(readLog(file), { startup });
  const count = log.startups.length;
  if (startup !== undefined && log.startup !== startup) {
    throw new InputError(`--startup ${startup}: the log holds ${count === 1 ? 'one start-up' : `${count} start-ups (lines ${log.startups.map((s) => s.line).join(', ')}): give 1 to ${count}`}`, file);
  }
  const unread = [
    ...startupNote(file, log, startup !== undefined),
    ...log.unread.map((u) => `${fileLocation(file, u.line, 1)}: warning: ${unreadLine(u)}: ${u.text}`),
    ...rankNotes(log).map((n) => `${fileLocation(file, n.line, 1)}: info: ${n.message}`),
    ...[missingKvNote(log), stopNote(log)].filter((n) => n !== null).map((n) => `${fileLocation(file, n.line, 1)}: warning: ${n.message}`),
  ];
  if (Object.keys(log.figures).length === 0) {
    const first = log.unread[0];
    if (first) throw new InputError(`no vLLM start-up memory line could be read: ${first.why ?? UNREAD_WHY}${log.unread.length > 1 ? ` (and ${log.unread.length - 1} more)` : ''}: ${first.text}; ${GIVE_STARTUP}`, file, first.line);
    const which = count > 1 ? ` in start-up ${log.startup} of ${count} (lines ${log.startups.map((s) => s.line).join(', ')})` : '';
    throw new InputError(`no vLLM start-up memory line found${which} (weights loaded, KV cache memory, GPU blocks, KV cache size, maximum concurrency): ${GIVE_STARTUP}`, file, count > 1 ? log.startups[log.startup - 1]!.line : 1);
  }
  if (profilePath === undefined) {
    const figures = logFigureLines(log, { notes: false });
    const text = [...figures, '', 'give --profile <profile or config.json of this model> to compare each figure with the estimate'].join('\n');
    const doc: VllmLogFile = { ...runHeader(basename(file), toolBuild()), kind: 'vllm-log', ...log };
    return { stdout: json ? `${JSON.stringify(doc, null, 2)}\n` : `${text}\n`, notes: unread };
  }
  const loaded = loadProfile(profilePath, profileCommand('vllm-log', [file], '--profile'));
  const comparison = compareVllmLog(log, loaded.profile);
  // The log's total_gpu_memory sizes the pool (compareVllmLog applies the log's settings), so the
  // profile's "no device memory" info would be wrong here, and so would the deployment checks of
  // the profile's own device (the log's figures are what that deployment did).
  const reading = loaded.problems.filter((p) => !isDeploymentProblem(p));
  const problems = log.figures.totalGpuMemoryBytes ? reading.filter((p) => p.code !== 'no-memory-budget') : reading;
  // A log of another model is compared all the same (a name is only a hint), and one of another
  // tensor_parallel_size at the log's: each said at its line, as the editor's view says them.
  const mismatch = [comparison.modelMismatch, comparison.tpMismatch].filter((n) => n !== null).map((n) => `${fileLocation(file, n.line, 1)}: warning: ${n.message}`);
  const notes = [...unread, ...mismatch, ...problems.map((p) => loaded.format(p))];
  const out: VllmLogFile = { ...runHeader(basename(file), toolBuild()), kind: 'vllm-log-comparison', log, comparison };
  return { stdout: json ? `${JSON.stringify(out, null, 2)}\n` : `${formatComparisonText(comparison)}\n`, notes };
}
