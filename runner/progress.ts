import { clearLine, cursorTo } from 'node:readline';
import { formatCount, formatCountOf, formatDuration } from '../core/format';
import { tableWidth, terminalText, type LocaleEnv } from '../core/textTable';
import type { PoolProgress } from './simulate';
import type { SaturationProgress } from './simulate/capacity';

/**
 * `line` cut to fit one terminal row of `width` columns: at most width − 1 characters (a line of
 * exactly `width` leaves some terminals' cursor on the next row, where the `\r` redraw would
 * start), its end replaced by '…' when cut ('...' where the locale is not UTF-8). s51 newcomer nc-cli 7: progress lines of 69-92
 * characters wrapped on a 60-column terminal, and the `\r` redraw rewrote only the last row, so
 * the wrapped heads piled up.
 * e.g. fitRow('[ 17%] simulating 2,000 requests', 20) -> '[ 17%] simulating …' (19 characters).
 */
export function fitRow(line: string, width: number, env?: LocaleEnv): string {
  const room = Math.max(1, width - 1);
  // Cut as printed: under a non-UTF-8 locale (`env`, default the process's) the ASCII text (core/textTable.ts
  // terminalText), and '...' for '…'.
  const shown = terminalText(line, env);
  const ellipsis = terminalText('…', env);
  return shown.length <= room ? shown : `${shown.slice(0, Math.max(0, room - ellipsis.length))}${ellipsis}`;
}

/**
 * Progress on stderr: one rewritten line on a terminal, cut to its width (core/textTable.ts
 * tableWidth of the stream: COLUMNS, else the terminal's columns, as the tables use; fitRow);
 * elsewhere plain lines, whole (logs, CI, the extension's output channel), or nothing when
 * `plainLines` is false (output that is piped stays clean).
 */
export class Progress {
  private lastLen = 0;
  private readonly tty: boolean;

  constructor(
    private readonly out: NodeJS.WritableStream & { isTTY?: boolean; columns?: number },
    private readonly plainLines = true,
    private readonly env: { COLUMNS?: string | undefined } & LocaleEnv = process.env,
  ) {
    this.tty = out.isTTY === true;
  }

  /** Shows `[ pct%] message`, pct = floor(100 · done / total); `done` may be fractional. */
  update(done: number, total: number, message: string): void {
    const pct = total > 0 ? Math.floor((100 * done) / total) : 0;
    const whole = `[${String(pct).padStart(3)}%] ${message}`;
    if (this.tty) {
      // The width is read at each update: a terminal resized during a run gets lines that fit it.
      const width = tableWidth({ env: this.env, stdout: this.out });
      const line = fitRow(whole, width, this.env);
      this.out.write(`\r${line.padEnd(Math.min(this.lastLen, width - 1))}`);
      this.lastLen = line.length;
    } else if (this.plainLines) {
      this.out.write(`${whole}\n`);
    }
  }

  /** Ends the line on a terminal, leaving the last progress visible. */
  finish(): void {
    if (this.tty && this.lastLen > 0) this.out.write('\n');
    this.lastLen = 0;
  }

  /** Erases the progress line on a terminal (with whatever was echoed onto it, e.g. ^C), so that what follows starts on a clean line. */
  clear(): void {
    if (this.tty && this.lastLen > 0) {
      clearLine(this.out, 0);
      cursorTo(this.out, 0);
    }
    this.lastLen = 0;
  }
}

/**
 * Tokens to decode from which `simulate` says its plan before it starts: minutes of simulation
 * or more (measured, Llama-3.1-8B on H100 SXM, 400,000 requests of the default lengths: 1.09e8
 * tokens to decode in 4.5 s of CPU, 12 s wall at load 12; 10^10 is a hundred times that). s46
 * newcomer46 M3: 10,000,000 requests of 100,000 + 30,000 tokens (3e11 to decode) sat at
 * "0 done" for minutes with no word of its size.
 */
export const PLAN_NOTE_DECODE_TOKENS = 1e10;

/**
 * The line `simulate` prints before a run of PLAN_NOTE_DECODE_TOKENS tokens to decode or more:
 * the requests drawn (or read), the prompt tokens they prefill and the output tokens they decode
 * (the drawn lengths: max_model_len and rejections may cut them); null for a smaller run.
 */
export function simulationPlanNote(requests: number, promptTokens: number, decodeTokens: number): string | null {
  if (decodeTokens < PLAN_NOTE_DECODE_TOKENS) return null;
  return `note: simulating ${formatCountOf(requests, 'request')}: ${formatCount(promptTokens)} prompt tokens to prefill and up to ${formatCount(decodeTokens)} tokens to decode, a step at a time: a long run (its progress line says the time left; Ctrl-C cancels it, nothing written)`;
}

/**
 * The line `simulate` prints before it measures the saturated throughput μ for a run whose queue
 * cannot tell whether the server keeps up (runner/simulate/capacity.ts checkKeepsUp): why, and what
 * it costs, up to `maxRuns` simulations of `requests` requests of the load on one engine, each about
 * as long as simulating that many (s52 newcomer: 6 requests of ~1M tokens simulated in 3.4 s, then
 * 94 s of μ over 8,192 such requests, unexplained). A cancel writes the simulation without the verdict.
 * e.g. (2048, 5) -> "note: the run is too short for its queue to tell whether the server keeps up;
 * measuring the saturated throughput μ instead: up to 5 simulations of 2,048 requests of this load on
 * one engine, each about as long as simulating that many (Ctrl-C skips it: the run is written without
 * the verdict)".
 */
export function muMeasureNote(requests: number, maxRuns: number): string {
  return `note: the run is too short for its queue to tell whether the server keeps up; measuring the saturated throughput μ instead: up to ${maxRuns} simulations of ${formatCountOf(requests, 'request')} of this load on one engine, each about as long as simulating that many (Ctrl-C skips it: the run is written without the verdict)`;
}

/**
 * The line `simulate --skip-saturation` prints where {@link muMeasureNote} would stand: the run
 * cannot tell whether the server keeps up, the flag left out what would tell, and what that costs
 * (`maxRuns` simulations of `requests` requests at most), so the user can weigh running without it.
 * e.g. (2048, 5) -> "note: the run is too short for its queue to tell whether the server keeps up, and
 * --skip-saturation left out the saturated throughput μ that would tell (up to 5 simulations of 2,048
 * requests of this load on one engine): the run has no keeps-up verdict; run without the flag for one".
 */
export function skippedSaturationNote(requests: number, maxRuns: number): string {
  return `note: the run is too short for its queue to tell whether the server keeps up, and --skip-saturation left out the saturated throughput μ that would tell (up to ${maxRuns} simulations of ${formatCountOf(requests, 'request')} of this load on one engine): the run has no keeps-up verdict; run without the flag for one`;
}

/**
 * The progress line while μ is measured ({@link muMeasureNote}), beside the percent of that run's
 * tokens done (PoolProgress.fraction): the saturation run under way of at most `maxRuns`, its
 * requests, and its time left at the rate so far (remainingText, `elapsedS` since that run started).
 * e.g. "measuring μ: run 2 of at most 5 (8,192 requests), about 40 s left in this run" (short: the
 * line is cut at the terminal's width).
 */
export function muProgressText(p: SaturationProgress, elapsedS: number): string {
  const q = p.progress;
  return `measuring μ: run ${p.run} of at most ${p.maxRuns} (${formatCountOf(q.requests, 'request')})${remainingText(elapsedS, q.fraction).replace(' at the rate so far', ' in this run')}`;
}

/**
 * The progress line of `simulate`'s paged run, after `elapsedS` seconds of wall time since it
 * started simulating: the requests finished, the tokens done of those to do (prefilled +
 * decoded, PoolProgress.fraction), the simulated time served so far (the simulator's clock,
 * PoolProgress.clockSeconds), and the time left at the rate of tokens so far (remainingText),
 * which a run of a few huge requests has long before any finishes.
 * e.g. "simulating 2 requests: 0 done, 4,048 of 202,000 tokens, 1,024 s of serving, about 48.9 min
 * left at the rate so far".
 */
export function simulationProgressText(p: PoolProgress, elapsedS: number): string {
  return `simulating ${formatCountOf(p.requests, 'request')}: ${formatCount(p.finished)} done, ${formatCount(p.prefilledTokens + p.decodedTokens)} of ${formatCountOf(p.tokensToDo, 'token')}, ${formatCount(p.clockSeconds)} s of serving${remainingText(elapsedS, p.fraction)}`;
}

/**
 * The time a run has left at the rate so far, for its progress line: elapsed · (1 − f) / f of
 * `fraction` f of its work done after `elapsedS` seconds of wall time; '' before
 * REMAINING_AFTER_S seconds (a rate from the first slices overstates the start's pace) or at 0 or 1.
 * e.g. (60, 0.25) -> ", about 3 min left at the rate so far".
 */
export function remainingText(elapsedS: number, fraction: number): string {
  if (elapsedS < REMAINING_AFTER_S || !(fraction > 0) || fraction >= 1) return '';
  return `, about ${formatDuration((1e9 * elapsedS * (1 - fraction)) / fraction)} left at the rate so far`;
}

/** Seconds of wall time before the progress line says the time left (remainingText). */
export const REMAINING_AFTER_S = 5;
