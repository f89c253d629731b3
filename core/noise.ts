/**
 * When two measured timings cannot be told apart, the one rule for the dashboard's run
 * comparison (webview/compare.ts) and the sweep's best point (runner/sweep/results.ts).
 */

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
