import { clearLine, cursorTo } from 'node:readline';
import { durationUnit, formatCount, formatCountOf, formatDuration, formatDurationIn, formatParams, NS_PER } from '../core/format';
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
    private readonly env: { COLUMNS?: string | undefined; TERM?: string | undefined } & LocaleEnv = process.env,
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

  /**
   * Erases the progress line on a terminal (with whatever was echoed onto it, e.g. ^C), so that what
   * follows starts on a clean line. Under TERM=dumb (Emacs' shell, some CI log viewers with a pty),
   * which shows ANSI escapes as text (s53 nc-cli 13: `^[[2K^[[1G`), it is overwritten with spaces
   * between two `\r`: the line's length plus 2 for an echoed "^C", within the terminal's width.
   */
  clear(): void {
    if (this.tty && this.lastLen > 0) {
      if (this.env.TERM === 'dumb') {
        const width = tableWidth({ env: this.env, stdout: this.out });
        this.out.write(`\r${' '.repeat(Math.min(this.lastLen + 2, width - 1))}\r`);
      } else {
        clearLine(this.out, 0);
        cursorTo(this.out, 0);
      }
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
 * measuring the saturated throughput μ instead: up to 6 simulations of 2,048 requests of this load on
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
 * --skip-saturation left out the saturated throughput μ that would tell (up to 6 simulations of 2,048
 * requests of this load on one engine): the run has no keeps-up verdict; run without the flag for one".
 */
export function skippedSaturationNote(requests: number, maxRuns: number): string {
  return `note: the run is too short for its queue to tell whether the server keeps up, and --skip-saturation left out the saturated throughput μ that would tell (up to ${maxRuns} simulations of ${formatCountOf(requests, 'request')} of this load on one engine): the run has no keeps-up verdict; run without the flag for one`;
}

/**
 * The progress line while μ is measured ({@link muMeasureNote}), μ's own stage after the
 * simulation: its percent (Progress.update) is the saturation run's own (PoolProgress.fraction), and
 * the line names the run under way of at most `maxRuns` (the staggered runs stop early once the
 * server falls behind, so a share of all of them would be a guess), its work as {@link workText}
 * counts it with this run's pace and time left (`pace`: a {@link TimeLeft} of this run).
 * e.g. "measuring μ, run 2 of at most 6: 3,277/8,192 requests, 3.11B/7.78B tokens, about 20 s left at
 * 244M tokens/s".
 */
export function muProgressText(p: SaturationProgress, pace: StagePace): string {
  return `measuring μ, run ${p.run} of at most ${p.maxRuns}: ${workText(p.progress, pace)}`;
}

/**
 * The progress line of `simulate`'s paged run: its work with its pace and time left
 * ({@link workText}; `pace`: the simulation's {@link TimeLeft}), and last the simulated time served
 * so far (the simulator's clock, PoolProgress.clockSeconds, formatDuration), which a run of a few
 * huge requests moves long before any finishes. Last, as it is the least read: a terminal cuts
 * the line's end at its width (s52 newcomer: "5,570 s of se…", the clock in raw seconds, was cut).
 * e.g. "simulating 0/2 requests, 4.05k/202k tokens, about 49 min left at 67.5 tokens/s, 17.1 min of
 * serving".
 */
export function simulationProgressText(p: PoolProgress, pace: StagePace): string {
  return `simulating ${workText(p, pace)}, ${formatDuration(p.clockSeconds * 1e9)} of serving`;
}

/** A stage's pace and time left, as {@link TimeLeft} gives them. */
export interface StagePace {
  /** Share of the stage's work done a second of wall time (recent: TimeLeft's window); null: none yet. */
  pace: number | null;
  /** Seconds left; null: not told. */
  leftS: number | null;
}

/**
 * A run's work so far, as a progress bar's users read it: requests finished / all, grouped
 * ("133,955/400,000 requests": the unit the user asked for), the tokens prefilled and decoded / to
 * do, short (formatParams: "144M/430M tokens"; the work the percent and time left are reckoned
 * by, PoolProgress.fraction), the time left where told (`leftS`, {@link timeLeftText}: "about 49 min
 * left") before the rate, so a terminal's cut leaves it, and the tokens a second of wall time at
 * `pace` (the share a second the time left is reckoned from, so the two agree; the simulation's own
 * speed, not the modelled server's throughput); no rate while `pace` is null.
 */
export function workText(p: PoolProgress, { pace, leftS }: StagePace): string {
  const tokens = p.prefilledTokens + p.decodedTokens;
  const rate = pace !== null && pace > 0 ? ` at ${formatParams(Math.round(pace * p.tokensToDo))} tokens/s` : '';
  const left = leftS !== null && leftS > 0 ? `, about ${timeLeftText(leftS)} left` : '';
  return `${formatCount(p.finished)}/${formatCountOf(p.requests, 'request')}, ${formatParams(tokens)}/${formatParams(p.tokensToDo)} tokens${left}${rate}`;
}

/**
 * `seconds` as formatDuration writes them, to two significant digits in its unit: a projection from
 * the pace so far is no finer (2,934 s -> "49 min", 14.7 s -> "15 s", 4,000 s -> "1.1 h").
 */
export function timeLeftText(seconds: number): string {
  const ns = seconds * 1e9;
  const unit = durationUnit(ns);
  return formatDurationIn(Number((ns / NS_PER[unit]).toPrecision(2)) * NS_PER[unit], unit);
}

/**
 * The time a stage of work has left, told only once its pace is steady: (1 − f) / r of the share f
 * of its work done after `elapsedS` seconds, r the pace (share a second) over the last
 * {@link PACE_WINDOW_S} seconds, so a pace that changes (the machine's other load, a queue that
 * grows) moves the time left within a window. Not before {@link REMAINING_AFTER_S} seconds (the
 * first slices' pace overstates the start: the simulator's set-up), and not until the window's two
 * halves went at paces within {@link STEADY_SPREAD} of each other; from then on it is told at every
 * report, so the line does not flicker (s53: a band on the projected total hid it for 60 % of a
 * 1M-request run whose pace doubled under load). Null otherwise, and under a second left (noise).
 * One per stage (the simulation, each saturation run of μ).
 * e.g. reports every second of 5 % each: no time left to 4 s, 15 s left at 5 s (25 % done, 5 % a second).
 */
export class TimeLeft {
  private readonly reports: Array<{ at: number; fraction: number }> = [];
  private steady = false;

  /**
   * @returns `pace`: the share of the work done a second, over the last window once it is full,
   * before that since the start (null under a second in: no pace yet); `leftS`: seconds left, or
   * null while not told (or at fraction 0 or 1).
   */
  at(elapsedS: number, fraction: number): StagePace {
    const sinceStart = elapsedS >= 1 && fraction > 0 ? fraction / elapsedS : null;
    if (!(fraction > 0) || fraction >= 1 || !(elapsedS > 0)) return { pace: sinceStart, leftS: null };
    this.reports.push({ at: elapsedS, fraction });
    // The reports of the last window and the one before it, so that the kept span covers the window.
    while (this.reports.length > 2 && this.reports[1]!.at <= elapsedS - PACE_WINDOW_S) this.reports.shift();
    const first = this.reports[0]!;
    if (elapsedS - first.at < PACE_WINDOW_S) return { pace: sinceStart, leftS: null };
    const pace = (fraction - first.fraction) / (elapsedS - first.at);
    if (elapsedS < REMAINING_AFTER_S || !(pace > 0)) return { pace, leftS: null };
    if (!this.steady) {
      const half = first.at + (elapsedS - first.at) / 2;
      const mid = this.reports.find((r) => r.at >= half)!;
      const early = (mid.fraction - first.fraction) / (mid.at - first.at);
      const late = (fraction - mid.fraction) / (elapsedS - mid.at);
      if (!(early > 0 && late > 0) || Math.max(early, late) > Math.min(early, late) * (1 + STEADY_SPREAD)) return { pace, leftS: null };
      this.steady = true;
    }
    const left = (1 - fraction) / pace;
    return { pace, leftS: left >= 1 ? left : null };
  }
}

/** Seconds of wall time before the progress line says the time left ({@link TimeLeft}). */
export const REMAINING_AFTER_S = 5;

/** The seconds of reports whose pace gives the time left ({@link TimeLeft}). */
export const PACE_WINDOW_S = 4;

/** How far the paces of the window's two halves may differ, as a share of the lower, for the time left to be first told: 50 % (s53: under load at 25 % a saturation run of μ, whose pace moved 50-280M tokens/s, told none in 57 % of it). */
export const STEADY_SPREAD = 0.5;
