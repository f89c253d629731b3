/**
 * `attnscope vllm-log LOG [--profile P] [--json]`: reads a vLLM start-up log and, with a
 * profile (or config.json) for the model, compares every memory figure it printed with the
 * estimate for the same settings, explaining each difference by its term (core/vllmlog).
 * Without a profile it lists the figures and the line each is on.
 */
import { readFileSync } from 'node:fs';
import { compareVllmLog, formatComparisonText, logFigureLines, parseVllmLog, UNREAD_LINE, UNREAD_WHY } from '../core/vllmlog';
import { isDeploymentProblem } from '../core/validate';
import { InputError, readFailure } from './errors';
import { loadProfile } from './load';

/** Logs beyond this are not start-up logs a person pastes; refused before reading them whole. */
const MAX_LOG_BYTES = 256 * 1024 * 1024;

function readLog(file: string): string {
  try {
    const text = readFileSync(file);
    if (text.length > MAX_LOG_BYTES) throw new InputError(`the log is ${Math.round(text.length / 2 ** 20)} MiB: give the start-up part (the first lines up to "Maximum concurrency")`, file);
    return text.toString('utf8');
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(readFailure(e), file);
  }
}

/**
 * The command's output (stdout text) for `file` and an optional profile path; notes for stderr:
 * first each line of the log that could not be read (`file:line:1: warning: ...`), then the
 * log's model='...' line where it names another model than the profile's, then the profile's
 * problems.
 * @throws InputError when the log is unreadable or holds no vLLM memory line that could be read
 *   (at the first line that could not be, if any), or the profile is bad.
 */
export function vllmLogReport(file: string, profilePath: string | undefined, json: boolean): { stdout: string; notes: string[] } {
  const log = parseVllmLog(readLog(file));
  const unread = log.unread.map((u) => `${file}:${u.line}:1: warning: ${UNREAD_LINE}: ${u.text}`);
  if (Object.keys(log.figures).length === 0) {
    const first = log.unread[0];
    if (first) throw new InputError(`no vLLM start-up memory line could be read: ${UNREAD_WHY}${log.unread.length > 1 ? ` (and ${log.unread.length - 1} more)` : ''}: ${first.text}`, file, first.line);
    throw new InputError('no vLLM start-up memory line found (weights loaded, KV cache memory, GPU blocks, KV cache size, maximum concurrency)', file);
  }
  if (profilePath === undefined) {
    const figures = logFigureLines({ ...log, unread: [] });
    const text = [...figures, '', 'give --profile <profile or config.json of this model> to compare each figure with the estimate'].join('\n');
    return { stdout: json ? `${JSON.stringify(log, null, 2)}\n` : `${text}\n`, notes: unread };
  }
  const loaded = loadProfile(profilePath);
  const comparison = compareVllmLog(log, loaded.profile);
  // The log's total_gpu_memory sizes the pool (compareVllmLog applies the log's settings), so the
  // profile's "no device memory" info would be wrong here, and so would the deployment checks of
  // the profile's own device (the log's figures are what that deployment did).
  const reading = loaded.problems.filter((p) => !isDeploymentProblem(p));
  const problems = log.figures.totalGpuMemoryBytes ? reading.filter((p) => p.code !== 'no-memory-budget') : reading;
  // A log of another model is compared all the same (a name is only a hint), and said at its line.
  const mismatch = comparison.modelMismatch ? [`${file}:${comparison.modelMismatch.line}:1: warning: ${comparison.modelMismatch.message}`] : [];
  const notes = [...unread, ...mismatch, ...problems.map((p) => loaded.format(p))];
  return { stdout: json ? `${JSON.stringify({ log, comparison }, null, 2)}\n` : `${formatComparisonText(comparison)}\n`, notes };
}
