/**
 * `attnscope vllm-log LOG [--profile P] [--json]`: reads a vLLM start-up log and, with a
 * profile (or config.json) for the model, compares every memory figure it printed with the
 * estimate for the same settings, explaining each difference by its term (core/vllmlog).
 * Without a profile it lists the figures and the line each is on.
 */
import { readFileSync } from 'node:fs';
import { compareVllmLog, formatComparisonText, logFigureLines, parseVllmLog } from '../core/vllmlog';
import { InputError } from './errors';
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
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError(code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder, not a file' : (e as Error).message, file);
  }
}

/**
 * The command's output (stdout text) for `file` and an optional profile path; notes for stderr.
 * @throws InputError when the log is unreadable or holds no vLLM memory line, or the profile is bad.
 */
export function vllmLogReport(file: string, profilePath: string | undefined, json: boolean): { stdout: string; notes: string[] } {
  const log = parseVllmLog(readLog(file));
  const found = logFigureLines(log);
  if (Object.keys(log.figures).length === 0) {
    throw new InputError('no vLLM start-up memory line found (weights loaded, KV cache memory, GPU blocks, KV cache size, maximum concurrency)', file);
  }
  if (profilePath === undefined) {
    const text = [...found, '', 'give --profile <profile or config.json of this model> to compare each figure with the estimate'].join('\n');
    return { stdout: json ? `${JSON.stringify(log, null, 2)}\n` : `${text}\n`, notes: [] };
  }
  const loaded = loadProfile(profilePath);
  const comparison = compareVllmLog(log, loaded.profile);
  const notes = loaded.problems.map((p) => loaded.format(p));
  return { stdout: json ? `${JSON.stringify({ log, comparison }, null, 2)}\n` : `${formatComparisonText(comparison)}\n`, notes };
}
