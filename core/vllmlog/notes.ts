/**
 * The notes a vLLM log comparison and a log read alone both place at a line of the log: a
 * start-up cut before its KV lines, and vLLM's own stop for lack of memory. Apart from report.ts
 * so that compare.ts can use them without an import cycle.
 */
import type { LogFigure, VllmLog } from './parse';

/** What to give instead of a log that holds no (readable) start-up memory line: one wording for the CLI and the editor. */
export const GIVE_STARTUP = 'give the server\'s output from its start through "Maximum concurrency" (V1) or "# GPU blocks" (V0), uncut';

/**
 * A start-up that printed memory lines but no KV line (KV cache memory, GPU blocks, KV cache
 * size): the log was cut before vLLM sized its pool, or vLLM stopped there (its own error, e.g.
 * "No available memory for the cache blocks", follows in the full log). At the start-up's last
 * memory line; null when a KV line is there or no memory line is.
 */
export function missingKvNote(log: Pick<VllmLog, 'figures' | 'stopLine'>): { line: number; message: string } | null {
  const f = log.figures;
  if (f.kvCacheBytes || f.gpuBlocks || f.kvCacheTokens) return null;
  if (f.kvShortfallBytes) return shortfallNote(f.kvShortfallBytes, log.stopLine);
  const lines = Object.values(f).filter((x): x is LogFigure => typeof x === 'object' && x !== null).map((x) => x.line);
  if (lines.length === 0) return null;
  const last = Math.max(...lines);
  const stop = log.stopLine && log.stopLine.line > last ? log.stopLine : undefined;
  return {
    line: last,
    message: stop
      ? `no KV cache line after this, the start-up's last memory line ("Available KV cache memory", "# GPU blocks", "GPU KV cache size"): vLLM stopped at line ${stop.line} before sizing its KV pool: ${stripPrefix(stop.text).slice(0, 300)}; only the figures above are compared`
      : `no KV cache line after this, the start-up's last memory line ("Available KV cache memory", "# GPU blocks", "GPU KV cache size"): the log was cut before vLLM sized its KV pool, or vLLM stopped there (its error follows in the full log); only the figures above are compared: ${GIVE_STARTUP}`,
  };
}

/**
 * vLLM's KV budget printed negative (VllmLogFigures.kvShortfallBytes): requested memory
 * (gpu_memory_utilization × device memory) − the non-KV memory (weights, activation peak,
 * non-torch, CUDA graphs where counted) came out below zero, by this much, and vLLM stops
 * ("No available memory for the cache blocks", quoted when the log holds it).
 */
function shortfallNote(short: LogFigure, stop: VllmLog['stopLine']): { line: number; message: string } {
  const gib = (short.value / 2 ** 30).toFixed(2);
  const stopped = stop && stop.line > short.line ? `; vLLM stopped at line ${stop.line}: ${stripPrefix(stop.text).slice(0, 300)}` : '';
  return {
    line: short.line,
    message: `vLLM's KV budget is −${gib} GiB: the weights, activation peak and non-torch memory take ${gib} GiB more than gpu_memory_utilization × the device memory (vLLM prints requested memory − non-KV memory as it is), so no KV cache fits${stopped}; raise gpu_memory_utilization, or free ${gib} GiB or more per GPU (a larger tensor_parallel_size, quantized weights, a smaller max_num_batched_tokens)`,
  };
}

/**
 * A start-up that printed its KV lines and then stopped for lack of memory (VllmLog.stopLine: the
 * A10 log's "The model's max seq len (131072) is larger than the maximum number of tokens that can
 * be stored in KV cache (37696)"): at that line, quoting it. Null without one, or where
 * {@link missingKvNote} already quotes it (no KV line before it).
 */
export function stopNote(log: Pick<VllmLog, 'figures' | 'stopLine'>): { line: number; message: string } | null {
  if (!log.stopLine || missingKvNote(log)) return null;
  return {
    line: log.stopLine.line,
    message: `vLLM stopped here for lack of memory, after sizing its KV pool: ${stripPrefix(log.stopLine.text).slice(0, 300)}; the figures before it are what it measured (the KV cache rows show how far the pool fell short)`,
  };
}

/** A quoted log line without its logger prefix ("ERROR 03-25 21:32:48 engine.py:387] "). */
function stripPrefix(text: string): string {
  return text.replace(/^.*?\b(?:ERROR|WARNING|INFO)\b[^\]]*\]\s*/, '').replace(/\.$/, '');
}
