/** Number formatting for the dashboard: bytes with IEC prefixes, rates and times with SI. */

const IEC = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** 16060522496 -> "14.96 GiB". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '—';
  let v = Math.abs(bytes);
  let i = 0;
  while (v >= 1024 && i < IEC.length - 1) {
    v /= 1024;
    i++;
  }
  return `${bytes < 0 ? '−' : ''}${i === 0 ? v.toFixed(0) : v.toPrecision(4).replace(/\.?0+$/, '')} ${IEC[i]}`;
}

/** Nanoseconds -> "812 ns" | "3.42 µs" | "1.25 ms" | "2.5 s". */
export function formatNs(ns: number): string {
  if (!Number.isFinite(ns)) return '—';
  if (ns < 1e3) return `${ns.toFixed(0)} ns`;
  if (ns < 1e6) return `${(ns / 1e3).toPrecision(3)} µs`;
  if (ns < 1e9) return `${(ns / 1e6).toPrecision(3)} ms`;
  return `${(ns / 1e9).toPrecision(3)} s`;
}

/** A rate in units per second with an SI prefix: (123.4e9, 'FLOP/s') -> "123 GFLOP/s". */
export function formatRate(perSec: number, unit: string): string {
  if (!Number.isFinite(perSec)) return '—';
  const prefixes: Array<[number, string]> = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
  for (const [f, p] of prefixes) if (Math.abs(perSec) >= f) return `${(perSec / f).toPrecision(3)} ${p}${unit}`;
  return `${perSec.toPrecision(3)} ${unit}`;
}

/** 0.4213 -> "42.1%". */
export function formatPercent(fraction: number | null | undefined): string {
  return fraction === null || fraction === undefined || !Number.isFinite(fraction) ? '—' : `${(fraction * 100).toFixed(1)}%`;
}
