/**
 * Timestamps across the editor's processes, for measuring where the time from opening or editing
 * a document to its inlay hints goes (scripts/bench-editor.ts): with the environment variable
 * ATTNSCOPE_TIMING_LOG set to a file path, the extension host and the language server (its child,
 * which inherits the variable) each append one line per mark to that file:
 *   `<Date.now() ms> <role> <pid> cpu=<this process's user+system CPU ms> <event> <detail>`.
 * Both processes run on one machine, so their clocks are one clock (and the page's, which the
 * bench stamps in the same file). Unset, the default: a mark costs one boolean test. A line is
 * written with appendFileSync (O_APPEND: lines of the two processes do not tear); a write that
 * fails is dropped, never thrown into an editor feature.
 */
import { appendFileSync } from 'node:fs';

const file = process.env.ATTNSCOPE_TIMING_LOG ?? '';

/** True when ATTNSCOPE_TIMING_LOG names a file: callers skip working out a mark's detail otherwise. */
export const timingEnabled = file !== '';

/**
 * Appends a mark (see the module comment) when timing is on. `role` names the process ('ext',
 * 'server'), `event` is one word or a few joined by '-', `detail` free text on the same line.
 */
export function timingMark(role: string, event: string, detail = ''): void {
  if (!timingEnabled) return;
  const cpu = process.cpuUsage();
  try {
    appendFileSync(file, `${Date.now()} ${role} ${process.pid} cpu=${Math.round((cpu.user + cpu.system) / 1000)} ${event}${detail === '' ? '' : ` ${detail.replace(/\n/g, ' ')}`}\n`);
  } catch {
    // A bench's log file gone (its folder removed): the editor goes on.
  }
}
