/** Dashboard-only formatting; bytes, rates and durations come from core/format.ts (shared with CLI and hints). */

/** 0.4213 -> "42.1%"; null/undefined/non-finite -> "—". */
export function formatPercent(fraction: number | null | undefined): string {
  return fraction === null || fraction === undefined || !Number.isFinite(fraction) ? '—' : `${(fraction * 100).toFixed(1)}%`;
}
