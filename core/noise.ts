/**
 * When two measured timings cannot be told apart, the one rule for the dashboard's run
 * comparison (webview/compare.ts) and the sweep's best point (runner/sweep/results.ts); when one
 * timing is noisy on its own, the one mark of the terminal's kernel table (runner/table.ts) and
 * the dashboard's (webview/charts.ts).
 */
import { formatSignificant } from './format';

/** A measured timing: its median and the p10 and p90 of its samples, in one unit (ns, ns per token). */
export interface TimingSpread {
  median: number;
  p10: number;
  p90: number;
}

/**
 * True when the two timings are within their own noise: either median lies inside the other's
 * p10–p90 range. Two runs of the same code give medians inside each other's range; a 6.7x
 * difference (3.89 ms per token, p10–p90 2.05–5.62, against 0.584, 0.29–1.01) does not, however
 * wide a loaded machine makes the ranges. A timing without a spread has p10 = p90 = median.
 */
export function withinNoise(a: TimingSpread, b: TimingSpread): boolean {
  const inside = (x: number, r: TimingSpread) => x >= r.p10 && x <= r.p90;
  return inside(b.median, a) || inside(a.median, b);
}

/**
 * Fewest samples whose nearest-rank p10 and p90 are not both the extremes: below 10 samples,
 * rank ceil(0.1 · n) is 1 (the minimum) and ceil(0.9 · n) is n (the maximum), so a "p10–p90"
 * of 2–9 samples is their min–max (runner/measure.ts sampleStats).
 */
export const PERCENTILE_MIN_SAMPLES = 10;

/**
 * What a case's spread (KernelCase.p10Ns–p90Ns) is, from its sample count `n`: "p10–p90", or
 * "min–max" below PERCENTILE_MIN_SAMPLES, where the two are the same samples. The one name the
 * terminal table, its caption and the dashboard give the spread.
 */
export function spreadName(n: number): 'p10–p90' | 'min–max' {
  return n >= PERCENTILE_MIN_SAMPLES ? 'p10–p90' : 'min–max';
}

/** The name of the spread of a set of cases with these sample counts: "p10–p90", "min–max", or both ("p10–p90, min–max where n < 10") when they differ. */
export function spreadsName(counts: readonly number[]): string {
  const names = new Set(counts.map(spreadName));
  if (names.size !== 1) return `p10–p90, min–max where n < ${PERCENTILE_MIN_SAMPLES}`;
  return [...names][0]!;
}

/**
 * p90 / p10 at and above which one timing is noisy on its own: its median, and a rate or "% of
 * peak" read from it, can be off by that factor (a loaded machine's 0.426-15.97 ms, 37x, beside "10%
 * of peak": s47 newcomer LOW). 2: past it the p10-p90 range holds both a figure and its double,
 * so no digit of the median is known.
 */
export const NOISY_SPREAD_RATIO = 2;

/** p90 / p10 of a timing when it is at least NOISY_SPREAD_RATIO, else null (a quiet timing, or one without a spread: p10 = p90). */
export function noisySpread(t: Pick<TimingSpread, 'p10' | 'p90'>): number | null {
  if (!(t.p10 > 0) || !(t.p90 / t.p10 >= NOISY_SPREAD_RATIO)) return null;
  return t.p90 / t.p10;
}

/**
 * The mark of a noisy timing's row, "noisy 37.5x" (p90 / p10 to 3 significant digits, core/format
 * formatSignificant), else null (noisySpread's rule): the one text the terminal's kernel table
 * and the dashboard's kernel tables give it, explained by {@link NOISY_MARK_NOTE}.
 */
export function noisyMark(t: Pick<TimingSpread, 'p10' | 'p90'>): string | null {
  const r = noisySpread(t);
  return r === null ? null : `noisy ${formatSignificant(r)}x`;
}

/** What {@link noisyMark} means, for a table's caption or summary where a row carries it. */
export const NOISY_MARK_NOTE = `"noisy Nx": p90 / p10 = N >= ${NOISY_SPREAD_RATIO}, so that row's median, rate and % of peak may be off by as much`;
