/**
 * Number (and run time) formatting shared by the CLI, the language server's hints, the dashboard and the
 * scripts, so a figure reads the same everywhere (the one formatter of each: nothing else
 * formats bytes, rates, percentages or durations). Bytes use IEC prefixes (KiB = 1024 B); rates use SI
 * prefixes (GFLOP/s = 10⁹ FLOP/s, GB/s = 10⁹ B/s), as DESIGN.md "Units" asks.
 */

import { SLO_ATTAINMENT_DEFAULT, type CapacityCurve } from './protocol/latency';
import { proseWidth, terminalText } from './textTable';
import type { TpReplication } from './estimate/types';
import { keptInHistory, type DataParallelResult, type Environment, type KernelCase, type PoolCancelled, type PoolCost, type PoolLoad, type PoolResult, type PoolSummary, type RunKind, type RunResult, type TraceSummary } from './protocol/run';

const IEC = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
const SI = ['', 'k', 'M', 'G', 'T', 'P', 'E'];

/** Three significant digits, trailing zeros dropped: 3.8125 -> "3.81", 128 -> "128", 2 -> "2". */
function sig3(x: number): string {
  return sigN(x, 3);
}

/** `n` significant digits (at least the whole part), trailing zeros dropped: sigN(36.0123, 4) -> "36.01". */
function sigN(x: number, n: number): string {
  if (x === 0) return '0';
  // At most 20 decimals (toFixed's limit is 100): a tiny value (1e-300 GiB) must not throw.
  const digits = Math.min(20, Math.max(0, n - 1 - Math.floor(Math.log10(Math.abs(x)))));
  return String(Number(x.toFixed(digits)));
}

/**
 * A number as JavaScript writes it (String(n): no rounding, decimals kept), its whole part grouped
 * in thousands: a limit in a message, 10000000 -> "10,000,000", 0.95 as it is, 1e+300 as it is.
 */
export function formatGrouped(n: number): string {
  return grouped(String(n));
}

/** Thousands separators in a number's whole part, as {@link formatCount} writes them: "2250" -> "2,250", "12345.6" -> "12,345.6", "989" as it is. */
function grouped(text: string): string {
  return text.replace(/^-?\d{4,}/, (whole) => whole.replace(/\B(?=(\d{3})+$)/g, ','));
}

/** Scales |x| by `base` until it is below `base`; returns the scaled value and the prefix index. */
function scale(x: number, base: number, maxIndex: number): [number, number] {
  let v = x;
  let i = 0;
  while (Math.abs(v) >= base && i < maxIndex) {
    v /= base;
    i++;
  }
  // Rounding to 3 digits can reach the base (1023.9 KiB -> "1020 KiB" is fine, 1023.99 -> 1024).
  if (Math.abs(Number(sig3(v))) >= base && i < maxIndex) {
    v /= base;
    i++;
  }
  return [v, i];
}

/** Bytes with IEC prefixes: 131072 -> "128 KiB", 4093640704 -> "3.81 GiB", 512 -> "512 B". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return String(bytes);
  const [v, i] = scale(bytes, 1024, IEC.length - 1);
  return `${grouped(i === 0 ? String(Math.round(v)) : sig3(v))} ${IEC[i]}`;
}

/**
 * Two byte figures compared, "79.5 > 71.3 GiB", so that the comparison reads true as printed: the
 * sign is the exact figures' (">", "<", or "=" when equal), and each figure has three significant
 * digits as {@link formatBytes} writes it, or more where three would print the two equal or the
 * wrong way round: 38,654,705,664 B against 38,646,317,056 B read "needs 36 > 36 GiB" (s50
 * review), here "36 > 35.99 GiB". The unit is written once where both share it, after the second
 * ("36.5 > 36 GiB"); else each has its own ("1,010 MiB > 1 GiB"). Bytes in, text out.
 */
export function formatBytesVs(a: number, b: number): string {
  const sign = a > b ? '>' : a < b ? '<' : '=';
  const [x, y] = formatBytesApart(a, b);
  const [ux, uy] = [/ \S+$/.exec(x)![0], / \S+$/.exec(y)![0]];
  return ux === uy ? `${x.slice(0, -ux.length)} ${sign} ${y}` : `${x} ${sign} ${y}`;
}

/**
 * `a` and `b` as {@link formatBytes} writes them, each with its unit, and with more significant
 * digits (the same for both) where three would print them equal or in the wrong order, so that a
 * message comparing them reads true ("weights 14.957 GiB exceed ... = 14.955 GiB", not "15 ... 15
 * GiB"). Equal figures stay at three digits. The one rule behind {@link formatBytesVs}.
 */
export function formatBytesApart(a: number, b: number): [string, string] {
  const text = (x: number, n: number): { text: string; value: number } => {
    const [v, i] = scale(x, 1024, IEC.length - 1);
    const shown = i === 0 ? String(Math.round(v)) : sigN(v, n);
    return { text: `${grouped(shown)} ${IEC[i]}`, value: Number(shown) * 1024 ** i };
  };
  const apart = (x: { value: number }, y: { value: number }): boolean => (a > b ? x.value > y.value : a < b ? x.value < y.value : true);
  let [x, y] = [text(a, 3), text(b, 3)];
  // Up to 17 digits: two different doubles print apart by then.
  for (let n = 4; n <= 17 && !apart(x, y); n++) [x, y] = [text(a, n), text(b, n)];
  return [x.text, y.text];
}

/**
 * Bytes as vLLM's start-up log prints them, GiB with two decimals: 23698419712 -> "22.07 GiB";
 * below 0.01 GiB in IEC units (formatBytes), so small terms do not read "0.00 GiB".
 */
export function formatGib(bytes: number): string {
  return Number.isFinite(bytes) && Math.abs(bytes) >= 0.01 * 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(2)} GiB` : formatBytes(bytes);
}

/**
 * A plain figure to three significant digits, whole and grouped from 1,000 (as {@link formatCount}):
 * 123.4 -> "123", 12.34 -> "12.3", 1.234 -> "1.23", 0.5 -> "0.5", 2250 -> "2,250" (B200's bf16
 * TFLOP/s), 54921.3 -> "54,921". The one formatter of a figure whose unit is beside it (a table's
 * header, "TFLOP/s" after it): the CLI, the hints and hover, the dashboard and the GPU picker
 * (s45 newcomer-ed: "2250 TFLOP/s" beside "1,979" elsewhere).
 */
export function formatSignificant(x: number): string {
  return Number.isFinite(x) ? grouped(sig3(x)) : String(x);
}

/**
 * A value a user writes into a profile (a suggested `slo.ttft_ms >= 1400`): three significant
 * digits as {@link formatSignificant}, without thousands separators, which YAML and JSON would not
 * read as a number ("1,400" is a string to YAML, a syntax error to JSON).
 */
export function formatValueToWrite(x: number): string {
  return Number.isFinite(x) ? sig3(x) : String(x);
}

/**
 * A bound to write so that a figure `x` meets it (`key >= bound`), as formatValueToWrite writes
 * it but rounded up to three significant digits, never below `x`: a p99 TTFT of 104.2 ms needs
 * slo.ttft_ms 105, not the 104 round-to-nearest gives. The no-best lines of `simulate --max-rate`
 * and of a sweep report both name their bounds with it.
 */
export function boundToWrite(x: number): string {
  if (!Number.isFinite(x) || x <= 0) return formatValueToWrite(x);
  const step = 10 ** (Math.floor(Math.log10(x)) - 2);
  return formatValueToWrite(Math.ceil(x / step - 1e-9) * step);
}

/**
 * A factor the user wrote (gpu_memory_utilization) as a message quotes it: two decimals as vLLM's
 * flag is mostly written (0.9 -> "0.90"), more where two would not give the value back (0.0001 ->
 * "0.0001", not the "0.00" of s53 nc-cli 20; 0.925 -> "0.925"). Non-finite as String writes it.
 */
export function formatFactorAsWritten(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const two = x.toFixed(2);
  return Number(two) === x ? two : String(x);
}

/** A GPU's datasheet peaks in the units the datasheets use: H100 SXM "3.35 TB/s · 989 TFLOP/s bf16", B200 "8 TB/s · 2,250 TFLOP/s bf16". */
export function formatGpuPeaks(g: { memoryBytesPerSec: number; bf16FlopsPerSec: number }): string {
  return `${formatSignificant(g.memoryBytesPerSec / 1e12)} TB/s · ${formatSignificant(g.bf16FlopsPerSec / 1e12)} TFLOP/s bf16`;
}

/**
 * Whether a case's fractionOfPeak divides its bytes (memory-bound: its rate is GB/s) rather than
 * its FLOPs (GFLOP/s), so which rate the terminal table and the dashboard show for it:
 * KernelCase.bound, or by kernel (decode) for a run saved before it existed.
 */
export function isMemoryBound(c: Pick<KernelCase, 'bound' | 'kernel'>): boolean {
  return c.bound ? c.bound === 'memory' : c.kernel === 'paged_decode';
}

/**
 * Pages read alone faster than this multiple of a DRAM read timed the same way in the same rounds
 * (runner/readAlone.ts measureReadAlone: one thread, fastest call by CPU time) came from cache. On
 * the 2-vCPU Zen 5 guest of session 52 (`attnscope bench`, 15 runs at load 13.5-20): B=1
 * ctx=1024's 4 MiB at 2.08-3.10x, ctx=32768's 128 MiB at 0.78-1.19x, and up to 1.29x where the
 * DRAM read came a second earlier (not alternated: DRAM's share for this guest moves with its
 * neighbours); 16 MiB at 1.97-2.77x. 1.5 sits between, a fifth above the one and a third below the other.
 * bench:kernels and `attnscope bench` both judge by it.
 */
export const CACHED_READ_RATIO = 1.5;

/**
 * Whether pages read alone at `readAloneBytesPerSec` (B/s) came from cache: more than
 * {@link CACHED_READ_RATIO} x `dramReadBytesPerSec` (B/s), a read of pages past every cache timed
 * the same way in the same rounds. False where either is missing or not positive. e.g. 75e9
 * against 30e9: true (2.5x); 44e9: false (1.47x); 45e9: false (exactly 1.5x).
 */
export function readAloneFromCache(readAloneBytesPerSec: number | undefined, dramReadBytesPerSec: number | undefined): boolean {
  if (!(readAloneBytesPerSec !== undefined && readAloneBytesPerSec > 0) || !(dramReadBytesPerSec !== undefined && dramReadBytesPerSec > 0)) return false;
  return readAloneBytesPerSec > CACHED_READ_RATIO * dramReadBytesPerSec;
}

/**
 * Which evidence says a memory-bound CPU decode case (paged_decode, not 'cuda') was read from
 * cache, not DRAM (KernelCase.fromCache), or null: 'cache-size' where its bytes (runner/measure.ts
 * attentionBytes) are at most the run's last-level cache (Environment.lastLevelCache; unknown:
 * no claim), 'read-rate' where its pages read alone (KernelCase.readAloneBytesPerSec) came at more
 * than CACHED_READ_RATIO x a DRAM read timed the same way in the same rounds
 * (KernelCase.dramReadBytesPerSec; {@link readAloneFromCache}), 'both' where both hold. The timing
 * calls the kernel again and again on the same pages, so a case the cache holds is read from it
 * after the first call, faster than DRAM; serving reads 32+ layers' distinct KV a step, which no
 * cache holds. e.g. 4.02 MiB against a 32 MiB L3 -> 'cache-size'; 64.4 MiB, read alone at 2x the
 * DRAM read -> 'read-rate'.
 */
export function fromCacheBy(
  c: Pick<KernelCase, 'kernel' | 'backend' | 'bytes' | 'bound' | 'readAloneBytesPerSec' | 'dramReadBytesPerSec'>,
  environment: Pick<Environment, 'lastLevelCache'> | undefined,
): NonNullable<KernelCase['fromCache']> | null {
  if (c.kernel !== 'paged_decode' || c.backend === 'cuda' || !isMemoryBound(c)) return null;
  const cache = environment?.lastLevelCache;
  const bySize = !!cache && c.bytes <= cache.bytes;
  const byRate = readAloneFromCache(c.readAloneBytesPerSec, c.dramReadBytesPerSec);
  return bySize && byRate ? 'both' : bySize ? 'cache-size' : byRate ? 'read-rate' : null;
}

/**
 * Why a case's % of the DRAM read peak is not a DRAM figure ({@link fromCacheBy}), in words that
 * say which evidence, or null: by size "from cache: reads 4.02 MiB, within the 32 MiB L3; not a
 * DRAM figure"; by rate "from cache: its pages read alone came at 2.5x a DRAM read (75 GB/s
 * against 30 GB/s, one thread each); not a DRAM figure"; both joined by "and". The one wording of
 * the mark: `attnscope bench`'s notes, bench:kernels' footnotes, the dashboard's Throughput chart,
 * the sweep table's notes and the Sweep tab (SweepMetrics.decodeFromCacheText).
 */
export function fromCacheText(
  c: Pick<KernelCase, 'kernel' | 'backend' | 'bytes' | 'bound' | 'readAloneBytesPerSec' | 'dramReadBytesPerSec'>,
  environment: Pick<Environment, 'lastLevelCache'> | undefined,
): string | null {
  const by = fromCacheBy(c, environment);
  if (by === null) return null;
  const cache = environment?.lastLevelCache;
  const dram = c.dramReadBytesPerSec;
  const size = cache ? `reads ${formatBytes(c.bytes)}, within the ${formatBytes(cache.bytes)} L${cache.level}` : '';
  const rate = c.readAloneBytesPerSec && dram
    ? `its pages read alone came at ${formatSignificant(c.readAloneBytesPerSec / dram)}x a DRAM read (${formatRate(c.readAloneBytesPerSec, 'B/s')} against ${formatRate(dram, 'B/s')}, one thread each)`
    : '';
  return `from cache: ${by === 'both' ? `${size}, and ${rate}` : by === 'cache-size' ? size : rate}; not a DRAM figure`;
}

/**
 * An integer count with thousands separators: 1952 -> "1,952", 8030261248 -> "8,030,261,248".
 * Beyond 2^53 a float64 count is no longer exact (its last digits are rounding), so it is written
 * to three significant digits: 1759239785677848600 -> "1.76e18".
 */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) > 2 ** 53) return n.toExponential(2).replace('e+', 'e');
  const sign = n < 0 ? '-' : '';
  return sign + String(Math.round(Math.abs(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A count and its noun, pluralised in English: (1, 'request') -> "1 request", (1952, 'request') -> "1,952 requests"; `plural` for irregular nouns. */
export function formatCountOf(n: number, noun: string, plural = `${noun}s`): string {
  return `${formatCount(n)} ${n === 1 ? noun : plural}`;
}

/**
 * The first `shown` items joined by "; ", and how many more there are: (['a', 'b', 'c', 'd', 'e'], 3) ->
 * "a; b; c; and 2 more". A long list (40 skipped run files) stays one line a person reads.
 */
export function fewAndCount(items: readonly string[], shown: number): string {
  if (items.length <= shown) return items.join('; ');
  return `${items.slice(0, shown).join('; ')}; and ${formatCount(items.length - shown)} more`;
}

/**
 * The indefinite article for a number written by {@link formatCount}, as it is read aloud: "an"
 * before eight…, eleven and eighteen (8,192 "an 8,192-token", 11,000, 18), else "a" (1,024, 180).
 */
export function indefiniteArticle(count: string): 'a' | 'an' {
  const lead = count.split(',')[0]!;
  return lead.startsWith('8') || lead === '11' || lead === '18' ? 'an' : 'a';
}

/**
 * A parameter count in short form: 8030261248 -> "8.03B", 124439808 -> "124M", and a count that
 * rounds up to the next unit is written in it: 999885952 -> "1B", not "1000M".
 */
export function formatParams(n: number): string {
  const units: Array<[number, string]> = [[1e12, 'T'], [1e9, 'B'], [1e6, 'M'], [1e3, 'k']];
  for (let i = 0; i < units.length; i++) {
    const [div, unit] = units[i]!;
    if (Math.abs(n) >= div) return `${sig3(n / div)}${unit}`;
    // Below this unit, but three significant digits of the next one down would read 1000.
    const next = units[i + 1];
    if (next && Math.abs(Number(sig3(n / next[0]))) >= 1000) return `${sig3(n / div)}${unit}`;
  }
  return Number(sig3(n)) >= 1000 ? `${sig3(n / 1e3)}k` : String(n);
}

/**
 * vLLM's concurrency figure: two decimals and an "x", as its start-up log prints it
 * ("Maximum concurrency for 8,192 tokens per request: 1.56x"). 1.5625 -> "1.56x", 0.8199 -> "0.82x";
 * grouped from 1,000 as every other figure (s47 newcomer: "56248.96x" beside "56,248 whole sequences"):
 * 56248.9634 -> "56,248.96x".
 */
export function formatConcurrency(x: number): string {
  return Number.isFinite(x) ? `${grouped(x.toFixed(2))}x` : String(x);
}

/**
 * vLLM's start-up line for its max concurrency, word for word and in its own format, to quote
 * beside our figure: "Maximum concurrency for 8,192 tokens per request: 164.40x" (vllm/v1/core/
 * kv_cache_utils.py logs `"Maximum concurrency for %s tokens per request: %.2fx"` with the length
 * as f"{max_model_len:,}": the length grouped, the factor %.2f, not grouped, unlike
 * {@link formatConcurrency}). `seqLen` in tokens, `x` the factor.
 */
export function vllmConcurrencyLine(seqLen: number, x: number): string {
  return `Maximum concurrency for ${formatCount(seqLen)} tokens per request: ${Number.isFinite(x) ? x.toFixed(2) : String(x)}x`;
}

/**
 * A rate with SI prefixes: formatRate(1.234e11, 'FLOP/s') -> "123 GFLOP/s",
 * formatRate(2.5e10, 'B/s') -> "25 GB/s". `unit` is appended after the prefix.
 */
export function formatRate(perSecond: number, unit: 'FLOP/s' | 'OP/s' | 'B/s'): string {
  if (!Number.isFinite(perSecond)) return `${perSecond} ${unit}`;
  const [v, i] = scale(perSecond, 1000, SI.length - 1);
  return `${sig3(v)} ${SI[i]}${unit}`;
}

/**
 * A duration given in nanoseconds, in the largest unit that keeps it >= 1, 3 significant digits:
 * "812 µs", "3.41 ms", "1.2 s", "56.4 min" (3,384 s), "3.27 h" (11,766 s); whole hours from
 * 1,000 h ("1,200 h"); 0 -> "0 s". The one duration formatter: the CLI, the dashboard, the
 * notifications and the hover all write times with it, so a 3-hour TTFT reads "3.27 h" everywhere.
 */
export function formatDuration(ns: number): string {
  if (!Number.isFinite(ns)) return String(ns);
  return ns === 0 ? '0 s' : formatDurationIn(ns, durationUnit(ns));
}

/** A duration given in milliseconds (the SLO's and the latency views' unit), as {@link formatDuration} writes it: 11,766,444 -> "3.27 h". */
export function formatMs(ms: number): string {
  return formatDuration(ms * 1e6);
}

/** A unit formatDuration writes durations in. */
export type DurationUnit = 'h' | 'min' | 's' | 'ms' | 'µs' | 'ns';

/** Nanoseconds in one of each duration unit. */
export const NS_PER: Record<DurationUnit, number> = { h: 3600e9, min: 60e9, s: 1e9, ms: 1e6, µs: 1e3, ns: 1 };

/**
 * The unit formatDuration writes `ns` nanoseconds in: the largest one of h, min, s, ms, µs, ns
 * that `|ns|` reaches (4.37e6 -> "ms"; 90e9 -> "min"; 0 -> "ns"). A set of durations shown
 * together (a table column and its chart's axis) takes the unit of its largest one, so every
 * value reads in one unit.
 */
export function durationUnit(ns: number): DurationUnit {
  const abs = Math.abs(ns);
  return abs >= 3600e9 ? 'h' : abs >= 60e9 ? 'min' : abs >= 1e9 ? 's' : abs >= 1e6 ? 'ms' : abs >= 1e3 ? 'µs' : 'ns';
}

/** Round durations per unit, in that unit: 1, 2, 5 per decade; seconds and minutes up to 30 (60 s is "1 min"). */
const ROUND_DURATIONS: ReadonlyArray<readonly [DurationUnit, readonly number[]]> = [
  ['ns', [1, 2, 5, 10, 20, 50, 100, 200, 500]],
  ['µs', [1, 2, 5, 10, 20, 50, 100, 200, 500]],
  ['ms', [1, 2, 5, 10, 20, 50, 100, 200, 500]],
  ['s', [1, 2, 5, 10, 20, 30]],
  ['min', [1, 2, 5, 10, 20, 30]],
  ['h', [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]],
];
/** Every round duration, ns ascending, and whether it is a "major" one (1 or 10 or 100 of its unit). */
const ROUND_NS = ROUND_DURATIONS.flatMap(([unit, ms]) => ms.map((m) => ({ ns: m * NS_PER[unit], major: m === 1 || m === 10 || m === 100 })));

/**
 * Tick values for a logarithmic axis of durations from `minNs` to `maxNs` (> 0), in ns ascending,
 * each a whole number of its formatDuration unit ("500 ms", "2 s", "5 min", never "1.67 min"): the
 * round durations (1, 2, 5 per decade of ns, µs, ms; 1, 2, 5, 10, 20, 30 s and min; 1, 2, 5 ... h)
 * from the largest at or below `minNs` to the smallest at or above `maxNs`, so the first and last
 * bound the data. More than `most`: the 1, 10 and 100 of each unit only, with the two ends. A
 * chart.js log axis put ticks at 1-9 × 10^k of the axis's unit and its auto-skip kept ones with no
 * label: a 5-600 ms CDF read "10 20 100 200 ms" (s37 newcomer-ed 8); seconds at 1-2-5 read "1.67 min".
 */
export function durationTicks(minNs: number, maxNs: number, most = 9): number[] {
  if (!(minNs > 0 && maxNs >= minNs && Number.isFinite(maxNs))) return [];
  let lo = -1;
  for (let i = 0; i < ROUND_NS.length && ROUND_NS[i]!.ns <= minNs * (1 + 1e-9); i++) lo = i;
  const hi = ROUND_NS.findIndex((r) => r.ns >= maxNs * (1 - 1e-9));
  const span = ROUND_NS.slice(Math.max(0, lo), hi < 0 ? ROUND_NS.length : hi + 1);
  if (span.length <= most) return span.map((r) => r.ns);
  return span.filter((r, i) => r.major || i === 0 || i === span.length - 1).map((r) => r.ns);
}

/**
 * `ns` nanoseconds in `unit`, three significant digits (thousands grouped from 1,000 up):
 * formatDurationIn(4.5e6, 'ms') -> "4.5 ms", formatDurationIn(4.5e5, 'ms') -> "0.45 ms",
 * formatDurationIn(2e12, 's') -> "2,000 s". A non-finite value is written as String does.
 */
export function formatDurationIn(ns: number, unit: DurationUnit): string {
  if (!Number.isFinite(ns)) return String(ns);
  const v = ns / NS_PER[unit];
  return `${Math.abs(v) >= 1000 ? formatCount(Math.round(v)) : sig3(v)} ${unit}`;
}

/**
 * A fraction as a percentage with `digits` decimals (default 1): 0.4213 -> "42.1%",
 * formatPercent(0.4213, 0) -> "42%". A fraction below 1 never reads 100: more decimals until it
 * does not (0.9996 -> "99.96%", formatPercent(0.999999, 0) -> "99.9999%"; s43 newcomer43 L2: an
 * slo.attainment of 0.999999 read "the SLO asks 100%"). null, undefined or a non-finite value -> "—" (no figure).
 */
export function formatPercent(fraction: number | null | undefined, digits = 1): string {
  if (fraction === null || fraction === undefined || !Number.isFinite(fraction)) return '—';
  let d = digits;
  let text = (fraction * 100).toFixed(d);
  while (fraction < 1 && Number(text) >= 100 && d < 12) text = (fraction * 100).toFixed(++d);
  return `${text}%`;
}

/**
 * An SLO attainment target (slo.attainment, a fraction in (0, 1]) as a percentage with as many
 * decimals as it has, up to 6: 0.99 -> "99%", 0.995 -> "99.5%", 0.999999 -> "99.9999%", so the
 * target read is the target set.
 */
export function formatAttainmentTarget(target: number): string {
  let d = 0;
  while (d < 6 && Math.abs(Number((target * 100).toFixed(d)) - target * 100) > 1e-9) d++;
  return formatPercent(target, d);
}

/**
 * The percentile an SLO attainment target judges, as a column header names it: 0.9 -> "p90",
 * 0.99 -> "p99", 0.995 -> "p99.5" (the digits of {@link formatAttainmentTarget}), 1 -> "max" (every
 * request must meet the bounds: the slowest one judges).
 */
export function percentileName(target: number): string {
  return target >= 1 ? 'max' : `p${formatAttainmentTarget(target).slice(0, -1)}`;
}

/**
 * An attained fraction that misses its target (attained < target, both in (0, 1]) as a percentage
 * that reads below the target's {@link formatAttainmentTarget}: one decimal, more until the two
 * differ (0.085 of 0.9 -> "8.5%"; 0.9989 of 0.999 -> "99.89%", where one decimal read "99.9%", the
 * target itself), at most 6. For "fails SLO (...)" texts (core/sweepFigures.ts rowExclusion).
 */
export function formatAttainedBelow(attained: number, target: number): string {
  let d = 1;
  while (d < 6 && attained < target && formatPercent(attained, d) === formatPercent(target, d)) d++;
  return formatPercent(attained, d);
}

/** The share of requests an SLO asks, "99%", or with slo.attainment unset the default it is judged at, "90% (default)" (Compare's SLO attainment row). */
export function sloTargetText(slo: { attainment?: number }): string {
  return slo.attainment === undefined ? `${formatAttainmentTarget(SLO_ATTAINMENT_DEFAULT)} (default)` : formatAttainmentTarget(slo.attainment);
}

/** Whether `attained` (the fraction of requests meeting an SLO) reaches its slo.attainment, or the default 0.9 where unset. */
export function sloMet(slo: { attainment?: number }, attained: number | undefined): boolean {
  return (attained ?? 0) >= (slo.attainment ?? SLO_ATTAINMENT_DEFAULT);
}

/**
 * The verdict on a run's SLO attainment, as the CLI's goodput line (runner/simulate/latency-format.ts)
 * and the dashboard's (webview/latency.ts) both write it: "the SLO asks 99%: not met" for 79.0 %
 * of requests meeting an SLO whose attainment is 0.99; with slo.attainment unset, the default the
 * capacity search, the sweep and New profile… judge by, said so: "the SLO asks 90% (slo.attainment
 * unset: the default 0.9): not met" (s42 newcomer-ed F7, F8: the verdict was dropped exactly for
 * the profiles New profile… writes). Null only without an SLO.
 */
export function sloVerdict(slo: { attainment?: number } | undefined, attained: number | undefined, requests?: number): string | null {
  if (slo === undefined) return null;
  const target = slo.attainment ?? SLO_ATTAINMENT_DEFAULT;
  const few = requests === undefined ? null : sloSampleNote(requests, target);
  return `the SLO asks ${formatAttainmentTarget(target)}${slo.attainment === undefined ? ` (slo.attainment unset: the default ${SLO_ATTAINMENT_DEFAULT})` : ''}: ${sloMet(slo, attained) ? 'met' : 'not met'}${few ? `, ${few}` : ''}`;
}

/** Requests outside an attainment target's percentile that a verdict needs: 10 (a binomial count of 10 varies by about ±3, a third; fewer is noise). */
export const SLO_TAIL_REQUESTS = 10;

/**
 * The caveat on an SLO verdict judged on too few requests: fewer than SLO_TAIL_REQUESTS / (1 − target)
 * completed (1,000 for 99 %, 100 for 90 %), so fewer than 10 fall outside the percentile judged,
 * and a p99 of 6 requests is their maximum (s42 newcomer-ed F14: a 6-request trace "met" a p99 SLO).
 * "but on 6 requests only: a 99% target needs 1,000 to leave 10 outside it (the p99 of 6 is their
 * maximum)"; null when there are enough (or the target is 1: every request must meet it, any count judges it).
 */
export function sloSampleNote(requests: number, target: number): string | null {
  if (!(target < 1)) return null;
  const needed = Math.ceil(SLO_TAIL_REQUESTS / (1 - target) - 1e-9);
  if (requests >= needed) return null;
  const pct = formatAttainmentTarget(target).slice(0, -1);
  return `but on ${formatCount(requests)} request${requests === 1 ? '' : 's'} only: a ${formatAttainmentTarget(target)} target needs ${formatCount(needed)} to leave ${SLO_TAIL_REQUESTS} outside it${requests <= 1 / (1 - target) + 1e-9 ? ` (the p${pct} of ${formatCount(requests)} is about their maximum)` : ''}`;
}

/**
 * The mean running sequences up to which a decode step is taken as small-batch for
 * {@link tpotOverheadNote}: 8. A published vLLM sweep (Llama-3.1-8B-Instruct bf16 on one A100 40GB,
 * vllm bench serve 1,024 in / 128 out, https://johnmusgrave.com/p/vllm-throughput-latency-sweep-on)
 * gains 6.6x throughput from 1 to 8 concurrent requests "with almost no latency cost": up to there a
 * decode step is the weight read, and a fixed per-step cost weighs on every token whole.
 */
export const SMALL_BATCH_RUNNING = 8;

/**
 * The note on a TPOT SLO judged at small batch on a step time with no per-step overhead, one
 * sentence without a "Note:" (the CLI's simulate summary, runner/simulate/summary.ts, prints it after
 * "Note: "; the dashboard's Run tab shows it under the goodput verdict, webview/latency.ts; a sweep's
 * best line under its best point, SweepReport.best.tpotOverhead): the profile's step_time leaves
 * overhead_ms out (assumed 0, StepTimeModel.assumed) and the run's mean running sequences (per
 * engine) is at most {@link SMALL_BATCH_RUNNING}. Then each TPOT is the roofline's weight read (and
 * the all-reduces under tp) alone: vLLM's fixed costs per step (scheduling, input preparation,
 * sampling, detokenizing, kernel launches between CUDA graphs) are left out, and they add to every
 * token of a small batch. No default overhead is set instead: the one published single-request
 * figure found (the sweep above: about 75 tokens/s, 13.3 ms a token, against 12.2 ms modelled at
 * the assumed memory_efficiency 0.8 with overhead 0: the A100 40GB's 1,555 GB/s, 15.01 GB of
 * weights read per step) is within 10 % of the model, and one point at one batch size cannot tell a
 * fixed overhead from a lower bandwidth efficiency (collinear at a constant batch, as calibrate.ts
 * finds). Null otherwise (and for a pool with no step-time model or latency: a run saved before them).
 */
export function tpotOverheadNote(pool: Pick<PoolResult, 'stepTime' | 'latency' | 'summary'>): string | null {
  const m = pool.stepTime;
  const tpot = pool.latency?.slo?.tpotMs;
  const running = pool.summary.meanConcurrency;
  if (tpot === undefined || !m || m.perStepS > 0 || !(m.assumed ?? []).includes('overhead_ms') || running > SMALL_BATCH_RUNNING) return null;
  const mean = running > 0 && running < 10 ? running.toPrecision(3) : running.toFixed(1);
  return `TPOT <= ${tpot} ms is judged on steps of ${mean} running sequences on average with no per-step overhead (step_time.overhead_ms assumed 0): at small batch a decode step is the weight read, and vLLM's fixed costs per step (scheduling, sampling, launches) add to every token; fit overhead_ms to your server with \`attnscope simulate --calibrate <vllm bench serve --save-result JSON>\` from a low-concurrency run, or set it in step_time`;
}

/**
 * A case's fraction of its peak for a table (the CLI's, runner/table.ts; the dashboard's throughput
 * table, webview/charts.ts): "225% (peak under-measured: load?)" above 100 %, which no kernel
 * reaches: the peak was measured low (under load), not the kernel fast; "<1%" for a nonzero
 * fraction that `format` rounds to zero.
 */
export function fractionText(fraction: number, format: (f: number) => string): string {
  if (fraction > 1) return `${format(fraction)} (peak under-measured: load?)`;
  const text = format(fraction);
  // A nonzero fraction that rounds to zero reads "<1%" (or "<0.1%" at one decimal), not "0%".
  const zero = /^0(?:\.(0+))?%$/.exec(text);
  if (fraction > 0 && zero) return `<${format(10 ** -(zero[1]?.length ?? 0) / 100)}`;
  return text;
}

/**
 * Where a bench cancelled during its pool simulation stopped (RunResult.poolCancelled), said after
 * "cancelled" (the dashboard's pool, queue and latency cards, History, the editor's toast) or
 * "cancelled by SIGTERM" (the CLI's line): "during its pool simulation (at 9,000 of 40,000
 * requests); the partial pool was not kept".
 */
export function poolCancelledText(at: PoolCancelled): string {
  return `during its pool simulation (at ${formatCount(at.finished)} of ${formatCountOf(at.requests, 'request')}); the partial pool was not kept`;
}

/**
 * The start of the `error` of a run that a window reload (or close) stopped in the editor
 * (extension/benchmark.ts BenchmarkRun.interrupt; a page that restored a run as running and got no
 * run back, webview/model.ts STOPPED_BY_RELOAD): its status stays 'cancelled' in the run file, and
 * every view says "interrupted" (runStateWord).
 */
export const INTERRUPTED = 'interrupted (window reloaded or closed)';

/** Whether `run` is one a window reload (or close) stopped: its error starts with INTERRUPTED. */
export function isInterrupted(run: { error?: string | null }): boolean {
  return run.error?.startsWith(INTERRUPTED) === true;
}

/**
 * How a run stands, in the one word every view of it says (the dashboard's status badge, its cards,
 * History): "interrupted" for a run a window reload stopped (isInterrupted; saved as 'cancelled'),
 * else its status as it is ("ok", "cancelled", "failed", "running", ...). The badge read
 * "cancelled" over a line saying "interrupted (window reloaded or closed)" (s50 newcomer-ed 1).
 */
export function runStateWord(run: { status: string; error?: string | null }): string {
  return run.status === 'cancelled' && isInterrupted(run) ? 'interrupted' : run.status;
}

/**
 * What a benchmark cancelled from the editor kept, after "cancelled": "after 2 case(s); the partial
 * run is saved", "during its pool simulation (...); its 2 case(s) are saved", or "before its first
 * case: nothing was measured, nothing is saved in History" (core/protocol/run.ts keptInHistory).
 * The one wording of the editor's toast (extension/refusal.ts benchCancelledMessage) and the
 * dashboard's line under a cancelled benchmark.
 */
export function benchCancelledText(run: Pick<RunResult, 'status' | 'cases' | 'pool' | 'poolCancelled'>): string {
  if (!keptInHistory(run)) return 'before its first case: nothing was measured, nothing is saved in History';
  if (run.poolCancelled) return `${poolCancelledText(run.poolCancelled)}; its ${run.cases.length} case(s) are saved`;
  return `after ${run.cases.length} case(s); the partial run is saved`;
}

/**
 * A serving simulation's outcome in one line (the editor's finish toast, the language server's
 * message to other clients): peak occupancy, preemptions, prefix-cache hit rate, and the p99 TTFT
 * on the modelled step time when the run has latency.
 */
export function formatPoolOutcome(pool: PoolResult): string {
  const s = pool.summary;
  const parts = [`peak occupancy ${formatPercent(s.peakOccupancy)}`, `${formatCount(s.preemptions)} preemption${s.preemptions === 1 ? '' : 's'}`, `prefix-cache hit rate ${formatPercent(s.prefixHitRate)}`];
  const ttft = pool.latency?.ttft;
  if (ttft) parts.push(`p99 TTFT ${formatDuration(ttft.p99 * 1e9)} (modelled${pool.load?.overloaded ? '; overloaded: it grows with the run\'s length' : ''})`);
  return parts.join(', ');
}

/**
 * The span every modelled rate (output throughput, requests/s, goodput) divides by, in words:
 * `vllm bench serve`'s benchmark duration (vllm/benchmarks/serve.py: output_throughput =
 * sum(actual_output_lens) / dur_s), from 0 s, where its send schedule starts, to the last
 * request's end (runner/simulate/latency.ts latencySummary). "the time from 0 s", not "0 s to": after
 * "divided by" the bare "0 s" read as a division by zero (s43 newcomer43 L3).
 */
export const BENCHMARK_DURATION = "the time from 0 s to the last request's end (vllm bench serve's benchmark duration)";

/**
 * What a load the modelled server does not keep up with means, in one wording: simulate's
 * overload line ({@link formatLoad}), the capacity search's μ line (runner/simulate/latency-format.ts)
 * and the dashboard.
 */
/**
 * How far a queue may grow from the middle of n arrivals to the last and still count as keeping up
 * (PoolLoad.overloaded, runner/simulate/simulate.ts poolLoad): 2 · √(n / 2), twice the spread of a
 * Poisson count of the second half's n / 2 arrivals, what a queue that keeps up may drift by.
 */
export function overloadGrowthBound(n: number): number {
  return 2 * Math.sqrt(n / 2);
}

/**
 * The fewest requests an engine's share of a run needs for the overload test (PoolLoad.overloaded:
 * at least 2 waiting at the last arrival and more than 5 % of the requests) to read a queue: 40, of
 * which 2 are 5 %. Below it the requests that arrive during one step (they wait for the next
 * admission) already make the 5 %, and the verdict flips by chance: a capacity search at
 * data_parallel_size 1024 with 2,000 requests (2 an engine) failed 1.772e4 and 1.588e4 requests/s
 * and passed 1.531e4 under μ 3.178e4 (s44 dp44; runner/simulate/capacity.ts searchCapacity).
 */
export const OVERLOAD_MIN_SHARE = 40;

/**
 * A run too short to tell whether its server keeps up: one whose engines had fewer than
 * {@link OVERLOAD_MIN_SHARE} requests each (PoolLoad.requestsPerEngine, s45), or (s44 newcomer44 MEDIUM-3) not overloaded by its
 * queue, yet its requests in flight (waiting or running: PoolLoad.inFlightAtLastArrival) grew from the
 * middle of the arrivals to the last by more than {@link overloadGrowthBound}(requests), the drift the
 * queue test allows. A run whose every request fits a batch (2,000 requests over 8 engines of
 * max_num_seqs 256) holds an overload in its running batch, where the queue test cannot see it: at 300
 * requests/s offered, 20 % over μ 251, 10 were waiting at the end and 6 at the middle, while in flight
 * grew 811 → 1,613 (at 192 offered, below μ, 546 → 822: the batch still filling). False in runs saved
 * before s44 (no in-flight counts) and for an overloaded one.
 */
export function tooShortToTell(load: PoolLoad, requests: number): boolean {
  if (load.requestsPerEngine !== undefined) return true;
  const last = load.inFlightAtLastArrival;
  const middle = load.inFlightAtMiddleArrival;
  return !load.overloaded && last !== undefined && middle !== undefined && last - middle > overloadGrowthBound(requests);
}

/**
 * Why a run {@link tooShortToTell} could not tell from its queue, as formatLoad's lines end: each engine's
 * share under {@link OVERLOAD_MIN_SHARE} (PoolLoad.requestsPerEngine), else its in-flight growth.
 */
function untoldReason(load: PoolLoad, requests: number): string {
  if (load.requestsPerEngine !== undefined) {
    const share = load.requestsPerEngine;
    // One engine: its share is the run (s49: "each engine had 5.0 of the 5 requests on average" read as dp).
    if (Math.round(requests / share) <= 1) return `${formatCountOf(requests, 'request')} ${requests === 1 ? 'is' : 'are'} too few for a queue to show (the overload test asks ${OVERLOAD_MIN_SHARE} or more: below that two requests queued at once by a burst of arrivals already make its 5 %)`;
    return `each engine had ${share < 10 ? share.toPrecision(2) : formatCount(Math.round(share))} of the ${formatCountOf(requests, 'request')} on average, too few for a queue to show (the overload test asks an engine's share of ${OVERLOAD_MIN_SHARE} or more: ${formatCountOf(requestsToTell(load, requests), 'request')})`;
  }
  return `its requests in flight (waiting or running) grew from ${formatCount(load.inFlightAtMiddleArrival!)} at the middle arrival to ${formatCount(load.inFlightAtLastArrival!)}, by more than ${formatCount(Math.floor(overloadGrowthBound(requests)))} (2 · √(requests / 2)), as its batches filled`;
}

/**
 * The requests a run needs for its queue to tell whether the server keeps up, where each engine's
 * share was under {@link OVERLOAD_MIN_SHARE}: that share times the engines (requests /
 * PoolLoad.requestsPerEngine); 2,000 requests over 64 engines (31.25 each) need 40 · 64 = 2,560.
 */
function requestsToTell(load: PoolLoad, requests: number): number {
  const engines = load.requestsPerEngine ? Math.round(requests / load.requestsPerEngine) : 1;
  return OVERLOAD_MIN_SHARE * engines;
}

/**
 * The offered rate, less its rejected requests (`admitted`: the share 0-1 not rejected), is above the
 * saturated throughput μ measured for the server (PoolLoad.saturatedRequestsPerSec: sweep points),
 * which counts served requests only: it cannot keep up, however short the run.
 */
export function aboveSaturation(load: PoolLoad, admitted = 1): boolean {
  const mu = load.saturatedRequestsPerSec;
  return typeof mu === 'number' && load.offeredRequestsPerSec !== null && load.offeredRequestsPerSec * admitted > mu * (1 + 1e-12);
}

export const QUEUE_GROWS = 'its queue grows without bound in a steady state, so its TTFT and queueing delay grow with the length of the run (the number of requests), not toward a latency the server would settle at';

/**
 * The share of the saturated throughput μ under which a capacity search's answer reads as "the SLO
 * holds only near idle": 5 %. An M/M/1 queue at utilisation ρ = 0.05 waits ρ / (1 − ρ) ≈ 5 % of a
 * service time on average (Kleinrock, Queueing Systems I, ch. 3), so there the requests that miss
 * the SLO miss it alone, by their own prefill or decode, and no lower rate serves them better.
 */
export const NEAR_IDLE_SHARE = 0.05;

/**
 * When a capacity search's answer is bounded by the SLO at under {@link NEAR_IDLE_SHARE} of μ, the
 * sentence saying the SLO holds only near idle and what would meet it; null otherwise (a capacity
 * bound, no μ, no answer, or a rate that loads the server). s44 newcomer-ed F13: New profile wrote
 * 0.00678 requests/s for Llama-3.1-70B on 8 L4s as "the highest rate it serves", where an idle
 * server met a p90 TTFT of 1 s by 1 ms: any rate meets or misses it by noise.
 */
export function sloNearIdleNote(c: Pick<CapacityCurve, 'maxRate' | 'saturatedRate' | 'limit'>): string | null {
  if (c.limit !== 'slo' || !c.maxRate || !c.saturatedRate || c.maxRate >= NEAR_IDLE_SHARE * c.saturatedRate) return null;
  return `the SLO holds only near idle: ${formatRequestRate(c.maxRate)} requests/s is ${formatPercent(c.maxRate / c.saturatedRate)} of the saturated throughput μ = ${formatRequestRate(c.saturatedRate)}, so the requests that miss it miss it alone, by their own prefill or decode: raise the bound or lower slo.attainment (or use faster GPUs)`;
}

/**
 * Requests (or tokens) per second: 3 significant digits below 100, zeros kept, whole and grouped
 * above ("28.7", "8.00", "25.0", "0.500", "1,000"). The one format of a request rate wherever one
 * is printed: simulate's summary and capacity search, the sweep table's max rate, per-GPU rate and
 * goodput columns, the sweep's progress line, the Sweep tab (s49 newcomer L2: goodput "25" beside "26.8").
 */
export function formatRequestRate(perSecond: number): string {
  return perSecond >= 100 ? formatCount(perSecond) : perSecond.toPrecision(3);
}

/**
 * Several request rates (requests/s) as one list or table prints them: each as
 * {@link formatRequestRate} writes it, but where two different rates would print alike, every rate
 * of such a pair with the fewest more significant digits (4 to 6) that print them apart. The
 * capacity search runs both a rate the bisection chose and the 3-digit rate rounded down from it
 * (requestRateDown), whose runs offer rates that can differ in the 4th digit only (s51: two rows
 * "0.199", one passing, one failing; now "0.1994" and "0.1987"). Rates that are equal print alike.
 * Same length and order as `rates`.
 */
export function formatRequestRates(rates: readonly number[]): string[] {
  const out = rates.map(formatRequestRate);
  const apart = (a: number, b: number) => Math.abs(a - b) > 1e-9 * Math.max(Math.abs(a), Math.abs(b));
  for (let digits = 4; digits <= 6; digits++) {
    const clash = out.map((t, i) => Number.isFinite(rates[i]) && rates[i]! > 0 && out.some((u, j) => u === t && apart(rates[i]!, rates[j]!)));
    if (!clash.some((x) => x)) break;
    clash.forEach((c, i) => {
      if (!c) return;
      const r = rates[i]!;
      // toFixed, not toPrecision: 12,978.4 to 6 digits is "12,978.4", not "1.29784e+4".
      out[i] = grouped(r.toFixed(Math.max(0, digits - 1 - Math.floor(Math.log10(r)))));
    });
  }
  return out;
}

/**
 * The highest rate at most `perSecond` (requests/s, positive and finite) that has 3 significant
 * digits, so that {@link formatRequestRate} prints it exactly and a profile can carry it as
 * written: 0.20394 -> 0.203, 272.6 -> 272, 12,978 -> 12,900, 8 -> 8. What the capacity search
 * simulates last, so that the rate it answers is one it ran (s51: New profile wrote 0.203 rounded
 * down from the search's 0.20394, which met 90.0 % of the SLO where 0.203 met 89.9 %). A value a
 * few ulps under a 3-digit one (0.203 / 8 × 8) counts as it. NaN for a non-positive input.
 */
export function requestRateDown(perSecond: number): number {
  if (!(perSecond > 0 && Number.isFinite(perSecond))) return NaN;
  const exp = Math.floor(Math.log10(perSecond)) - 2;
  // Divide or multiply by an exact power of ten, so that 0.203 stays 0.203 (203 × 0.001 is 0.20300000000000001).
  const steps = exp < 0 ? Math.floor(perSecond * 10 ** -exp * (1 + 1e-12)) / 10 ** -exp : Math.floor((perSecond / 10 ** exp) * (1 + 1e-12)) * 10 ** exp;
  return steps;
}

/**
 * Where a pool simulation's requests came from, in one line (simulate's summary, the dashboard's
 * run header): the trace replayed (as given, format, rows read and dropped, filters), or the
 * profile's workload drawn; and the time scale when it is not 1.
 */
export function formatLoadSource(load: PoolLoad): string {
  const scale = load.timeScale !== 1 ? `; time scale ${formatTimeScale(load.timeScale)} (arrival times divided by it)` : '';
  if (load.source === 'workload') return `the profile's workload, drawn${scale}`;
  const t = load.trace;
  if (!t) return `a trace${scale}`;
  const dropped = Object.entries(t.dropped).map(([why, n]) => `${formatCount(n)} ${why}`).join(', ');
  const filters = [t.filters?.model !== undefined ? `Model ${t.filters.model}` : '', t.filters?.logType !== undefined ? `Log Type ${t.filters.logType}` : ''].filter((x) => x).join(', ');
  const from = t.from === 'workload.trace' ? ' (the profile\'s workload.trace)' : '';
  const span = t.spanS === undefined ? '' : t.spanS === 0 ? ' arriving at one instant' : ` over ${formatDuration(t.spanS * 1e9)}`;
  return `trace ${t.path}${from} (${t.format}; time stamps: ${t.timeUnit}): ${formatCountOf(t.rowsRead, 'row')} read as requests${span}${dropped ? `, dropped ${dropped}` : ', none dropped'}${filters ? `; kept only ${filters}` : ''}${scale}`;
}

/** A trace's summary in one phrase: "attnscope trace: 1,204 requests over 3.2 min, mean 1,830 prompt / 212 output tokens" (dropped rows named). */
export function formatTraceSummary(t: TraceSummary): string {
  const dropped = Object.entries(t.dropped).map(([why, n]) => `${formatCount(n)} ${why}`).join(', ');
  return `${t.format} trace: ${formatCountOf(t.requests, 'request')} over ${formatDuration(t.spanS * 1e9)}, mean ${formatCount(Math.round(t.meanPromptTokens))} prompt / ${formatCount(Math.round(t.meanOutputTokens))} output tokens${dropped ? `; dropped ${dropped}` : ''}`;
}

/**
 * A time scale (arrival times divided by it) to 4 significant digits, trailing zeros dropped:
 * --max-rate's 2.8395281960962793 -> "2.840" would read as more exact than it is, so "2.84"; 2 -> "2".
 */
export function formatTimeScale(scale: number): string {
  return grouped(String(Number(scale.toPrecision(4))));
}

/**
 * The load in the dashboard's run header: where the requests came from ({@link formatLoadSource})
 * and, when the server did not keep up, that the run is overloaded, offered against served.
 */
export function formatLoadNote(load: PoolLoad): string {
  const offered = load.offeredRequestsPerSec === null ? 'all requests at one instant' : `${formatRequestRate(load.offeredRequestsPerSec)} requests/s offered`;
  const over = load.overloaded ? `; overloaded: ${offered}, ${formatRequestRate(load.servedRequestsPerSec)} served (modelled): its TTFT and queueing delay grow with the run's length` : '';
  return `workload: ${formatLoadSource(load)}${over}`;
}

/**
 * The load's rates (offered against served, both requests/s) and whether the server kept up:
 * when it did not (PoolLoad.overloaded), that the run is overloaded and what that means
 * ({@link QUEUE_GROWS}); when it did, a Kept up line with the queue at the last arrival. Served
 * is the throughput over {@link BENCHMARK_DURATION}, a span that takes in the first gap and the
 * service of the requests still running at the last arrival, so it reads below the offered rate
 * even when the server keeps up (a run of 50 requests: 4.55 offered, 3.66 served); the line says so where it reads below, and
 * the Kept up line, not the gap between the two, says whether the server kept up. A run whose
 * every request was rejected (PoolSummary.completed 0) served none, which is not keeping up: a
 * None served line says so instead (s40 newcomer 9: 0.00 served of 4.11 offered read "Kept up").
 * An offered rate above the saturated throughput μ measured for the server ({@link aboveSaturation})
 * is Overloaded whatever the queue showed; a run whose requests in flight grew though its queue did
 * not ({@link tooShortToTell}) says it cannot tell instead of Kept up (s44 newcomer44 MEDIUM-3),
 * unless μ was measured: then an offered rate at most μ Kept up, by μ (s45: simulate measures μ for such a run).
 * `searchedRate`: the rate a capacity search ran this load at (requests/s: CapacityCurve.maxRate, or
 * its last rate tried where none passed), judged against μ in place of the offered rate, as the
 * search judged it; such a run suggests more requests, never `simulate --max-rate`, which it is.
 */
export function formatLoad(load: PoolLoad, summary: Pick<PoolSummary, 'requests' | 'completed' | 'rejected'>, searchedRate?: number): string[] {
  const requests = summary.requests;
  const offered = load.offeredRequestsPerSec === null ? (requests === 1 ? 'one request' : `all ${formatCountOf(requests, 'request')} arriving at one instant`) : `${formatRequestRate(load.offeredRequestsPerSec)} requests/s offered`;
  const offeredIs = load.offeredRequestsPerSec === null ? '' : 'offered = (requests − 1) / span of the arrivals; ';
  // Said only where served reads below offered: two requests 10 s apart are 0.1 offered ((2 − 1) / 10 s), 0.198 served (2 / 10.1 s): s42 newcomer 9.
  const below = load.offeredRequestsPerSec !== null && load.servedRequestsPerSec < load.offeredRequestsPerSec;
  const tail = below ? ', which takes in the service of the requests still running at the last arrival: below the offered rate even when the server keeps up' : '';
  // The two rates first, their definitions after (s47: the served rate came 100 characters in).
  // A capacity search's rate is the asked one (workload.arrival_rate × time scale); the arrivals drawn at it offer a
  // little more or less (s50 newcomer LOW-7: "Highest rate meeting the SLO: 30.1" beside "Load: 30.0 offered"), said here.
  const asked = searchedRate !== undefined && load.offeredRequestsPerSec !== null && formatRequestRate(searchedRate) !== formatRequestRate(load.offeredRequestsPerSec)
    ? ` (searched at ${formatRequestRate(searchedRate)}: the random arrivals drawn at a rate offer a little more or less)`
    : '';
  const lines = [`Load: ${offered}${asked}, ${formatRequestRate(load.servedRequestsPerSec)} requests/s served (modelled; ${offeredIs}served = completed / ${BENCHMARK_DURATION}${tail})`];
  const mu = load.saturatedRequestsPerSec;
  // The rate judged against μ: a capacity search's own (its rate, as the search judged it), else the offered one.
  // μ counts served requests: a rate with rejected requests is judged on its admitted part (s53 newcomer 0).
  const admitted = requests > 0 ? 1 - summary.rejected / requests : 1;
  const judged = searchedRate ?? load.offeredRequestsPerSec ?? 0;
  const admittedText = admitted < 1 ? `, ${formatRequestRate(judged * admitted)} of them admitted (${formatPercent(1 - admitted)} rejected),` : '';
  const rateText = `${searchedRate !== undefined ? `searched rate ${formatRequestRate(searchedRate)}` : `offered ${formatRequestRate(load.offeredRequestsPerSec ?? 0)}`} requests/s${admittedText}`;
  const above = searchedRate !== undefined ? typeof mu === 'number' && searchedRate * admitted > mu * (1 + 1e-12) : aboveSaturation(load, admitted);
  // `simulate --max-rate` is suggested only where μ was not measured: not in that run itself, nor where μ was measured and not measurable (null).
  const orMaxRate = searchedRate === undefined && mu === undefined ? ', or `simulate --max-rate` for the saturated throughput μ,' : '';
  if (summary.completed === 0 && requests > 0) {
    lines.push(`None served: all ${formatCountOf(summary.rejected, 'request')} ${summary.rejected === 1 ? 'was' : 'were'} rejected (a prompt that reaches max_model_len, or more pages than the pool holds), so no figure below tells how this server keeps up`);
  } else if (!load.overloaded && above) {
    lines.push(`Overloaded: the ${rateText} is above the saturated throughput μ = ${formatRequestRate(mu!)} requests/s measured for this server (modelled), though this run's queue did not show it: ${QUEUE_GROWS}.`);
  } else if (tooShortToTell(load, requests) && typeof mu === 'number' && (searchedRate !== undefined || load.offeredRequestsPerSec !== null)) {
    // μ measured (runner/cli.ts measures it for such a run, a capacity search for every rate; the branch above took a rate above it): it tells.
    lines.push(
      `Kept up: the ${rateText} is at most the saturated throughput μ = ${formatRequestRate(mu)} requests/s measured for this server (modelled), under which its queue stays bounded in a steady state; ` +
        `this run's own queue could not tell: ${untoldReason(load, requests)}`,
    );
  } else if (load.requestsPerEngine !== undefined) {
    const oneEngine = requestsToTell(load, requests) === OVERLOAD_MIN_SHARE;
    lines.push(`Cannot tell whether the server keeps up: ${untoldReason(load, requests)}; more workload.requests (${formatCount(requestsToTell(load, requests))} or more${oneEngine ? '' : `: ${formatCount(OVERLOAD_MIN_SHARE)} an engine`})${orMaxRate} tell (modelled)`);
  } else if (tooShortToTell(load, requests)) {
    lines.push(
      `Cannot tell whether the server keeps up: at the last arrival ${formatCount(load.waitingAtLastArrival)} of the ${formatCountOf(requests, 'request')} were still waiting, ${formatCount(load.waitingAtMiddleArrival ?? 0)} at the middle arrival, ` +
        `but the requests in flight (waiting or running) grew from ${formatCount(load.inFlightAtMiddleArrival!)} at the middle arrival to ${formatCount(load.inFlightAtLastArrival!)}, by more than ${formatCount(Math.floor(overloadGrowthBound(requests)))} (2 · √(requests / 2)): ` +
        `the running batches had not settled, so an overload would sit in them, not the queue; the run is too short for that (more workload.requests${orMaxRate} tell) (modelled)`,
    );
  } else if (!load.overloaded && load.offeredRequestsPerSec !== null) {
    const w = load.waitingAtLastArrival;
    const m = load.waitingAtMiddleArrival;
    // What was measured (s43 newcomer43 F2: "did not grow" was printed for 2.9 % waiting, twice the middle's).
    // One waiting request is no queue (poolLoad asks at least 2), whatever share of a short run it is (s44 newcomer M6: "1 of the 6 (16.7 %) ... with fewer than 5 % waiting").
    const judged = m !== undefined && w <= m
      ? `${formatCount(m)} at the middle arrival: the queue did not grow from the middle of the arrivals to the last (modelled)`
      : w === 1
        ? `${m === undefined ? '' : `${formatCount(m)} at the middle arrival; `}one waiting request is no growing queue (the overload test asks at least 2; modelled)`
        : m === undefined
          ? 'fewer than 5 % waiting (modelled)'
          : `${formatCount(m)} at the middle arrival: the queue grew by ${formatCount(w - m)}, within ${formatCount(Math.floor(overloadGrowthBound(requests)))} (2 · √(requests / 2), twice a Poisson count's spread over the second half's arrivals), with fewer than 5 % waiting (modelled)`;
    // Rejected requests were never queued: the verdict names them, so "Kept up" is not read as serving the load (s53 newcomer 16).
    const admittedOnly = summary.rejected > 0 ? ` with the ${formatCount(summary.completed)} requests it admitted (${formatCount(summary.rejected)} rejected: a prompt that reaches max_model_len, or more pages than the pool holds)` : '';
    lines.push(`Kept up${admittedOnly}: at the last arrival ${formatCount(w)} of the ${formatCountOf(requests, 'request')} (${formatPercent(w / Math.max(requests, 1))}) ${w === 1 ? 'was' : 'were'} still waiting, ${judged}`);
  }
  if (load.overloaded) {
    lines.push(
      `Overloaded: at the last arrival ${formatCount(load.waitingAtLastArrival)} of the ${formatCountOf(requests, 'request')} (${formatPercent(load.waitingAtLastArrival / Math.max(requests, 1))}) were still waiting: ` +
        `the modelled server does not keep up with this load, and ${QUEUE_GROWS}.`,
    );
  }
  return lines;
}

/** Whether the modelled server kept up with a run's load, as {@link formatLoad} judges it. */
export type LoadVerdictKind = 'kept-up' | 'cannot-tell' | 'overloaded' | 'none-served';

/** The badge's word for each verdict kind, and their order from worst: the badge names the worst first. */
const VERDICT_WORDS: ReadonlyArray<[LoadVerdictKind, string]> = [['none-served', 'none served'], ['overloaded', 'overloaded'], ['cannot-tell', 'cannot tell if it keeps up'], ['kept-up', 'kept up']];

/** A verdict line of {@link formatLoad} (or a capacity rate's) by its first word. */
function verdictKind(line: string): LoadVerdictKind {
  return line.startsWith('Kept up') ? 'kept-up' : line.startsWith('Cannot tell') ? 'cannot-tell' : line.startsWith('None served') ? 'none-served' : 'overloaded';
}

/**
 * A run's load verdict for the dashboard's Run tab: `badge` a short text for it, `kind` the worst
 * of its verdicts, and `lines` the CLI's text for each (the badge's tooltip, word for word), so the
 * CLI and the dashboard say one thing (s45 newcomer-ed N3: the tab showed "ok" and "SLO met" for a
 * run the CLI could not tell kept up). Every verdict the run has is counted (s45 newcomer-ed: the
 * badge named only the first):
 * - a run's own: {@link formatLoad}'s Kept up / Cannot tell / Overloaded / None served lines, each
 *   named ("none served, overloaded": every request rejected and the queue grew);
 * - a capacity search's (`capacity`, simulate --max-rate: the run shown is its answer's): one a
 *   rate tried, kept up or not as its CLI table's "keeps up" column says (CapacityPoint.keepsUp,
 *   at most μ and its queue not growing), the badge counting those that did not: "overloaded (2 of
 *   3 rates)", or "kept up (3 of 3 rates)"; the lines are the answer's run's, then each rate's row.
 * Null where there is none (all requests arriving at one instant, not overloaded: no rate to keep up with).
 */
export function loadVerdict(load: PoolLoad, summary: Pick<PoolSummary, 'requests' | 'completed' | 'rejected'>, capacity?: Pick<CapacityCurve, 'points' | 'maxRate'>): { kind: LoadVerdictKind; badge: string; lines: string[] } | null {
  const own = formatLoad(load, summary).slice(1);
  const rates = (capacity?.points ?? []).filter((p) => p.keepsUp !== undefined);
  if (rates.length > 1) {
    const over = rates.filter((p) => p.keepsUp === false).length;
    const kind: LoadVerdictKind = over > 0 ? 'overloaded' : 'kept-up';
    const printed = formatRequestRates(rates.map((p) => p.rate));
    const answerAt = rates.findIndex((p) => p.meets && p.rate === capacity?.maxRate);
    const answer = capacity?.maxRate != null ? `At the highest rate meeting the SLO, ${answerAt >= 0 ? printed[answerAt] : formatRequestRate(capacity.maxRate)} requests/s (the run shown): ` : 'The run shown: ';
    return {
      kind,
      badge: `${over > 0 ? 'overloaded' : 'kept up'} (${over > 0 ? over : rates.length} of ${formatCountOf(rates.length, 'rate')})`,
      lines: [
        ...own.map((l, i) => (i === 0 ? `${answer}${l}` : l)),
        ...rates.map((p, i) => `${printed[i]} requests/s: ${p.keepsUp ? 'kept up' : 'did not keep up'} (${p.keepsUp ? 'at most μ, its queue not growing' : 'above μ, or its queue grew'}), ${p.meets ? 'passes' : 'fails'}`),
      ],
    };
  }
  if (own.length === 0) return null;
  const kinds = new Set(own.map(verdictKind));
  const named = VERDICT_WORDS.filter(([k]) => kinds.has(k));
  return { kind: named[0]![0], badge: named.map(([, w]) => w).join(', '), lines: own };
}

/** The reader's date-time format, made once (Intl.DateTimeFormat is slow to construct; History lists every run). */
let localTimeFormat: Intl.DateTimeFormat | undefined;

/**
 * A run's time (ISO 8601, as RunResult.createdAt stores it) as a person reads it: the date and
 * time to the second in the reader's locale and time zone ("Dec 3, 2026, 9:00:08 AM" in en-US).
 * Views that show it keep the ISO value at hand (the dashboard: a tooltip) for the exact instant.
 * A value that is no date comes back as written. `locale` and `timeZone`: the reader's unless given.
 */
export function formatRunTime(iso: string, locale?: string, timeZone?: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const options: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'medium', timeZone };
  const format = locale === undefined && timeZone === undefined ? (localTimeFormat ??= new Intl.DateTimeFormat(undefined, options)) : new Intl.DateTimeFormat(locale, options);
  return format.format(date);
}

/** The reader's short date-time format, made once (formatShortRunTime). */
let shortTimeFormat: Intl.DateTimeFormat | undefined;

/**
 * A time (ISO 8601) in few characters for a narrow list, to the minute in the reader's locale and
 * time zone: "Dec 6, 13:54" in en-GB, "Dec 6, 01:54 PM" in en-US (formatRunTime's "Dec 6, 2026,
 * 1:54:30 PM" wrapped to four lines in a 400 px History, s49 newcomer-ed 7); the list keeps the ISO
 * value at hand (a tooltip). A value that is no date comes back as written.
 */
export function formatShortRunTime(iso: string, locale?: string, timeZone?: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const options: Intl.DateTimeFormatOptions = { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZone };
  const format = locale === undefined && timeZone === undefined ? (shortTimeFormat ??= new Intl.DateTimeFormat(undefined, options)) : new Intl.DateTimeFormat(locale, options);
  return format.format(date);
}

/** The reader's short date-time format with seconds, made once (formatShortRunTimes). */
let shortSecondsFormat: Intl.DateTimeFormat | undefined;

/**
 * formatShortRunTime of each of `isos`, with the seconds ("Dec 6, 11:26:05 PM") for the times whose
 * minute another of them shares, so that a list's rows of one minute read apart (ten History rows read
 * "Dec 6, 11:26 PM", s52 newcomer-ed 3); one string per time, in order.
 */
export function formatShortRunTimes(isos: readonly string[], locale?: string, timeZone?: string): string[] {
  const short = isos.map((iso) => formatShortRunTime(iso, locale, timeZone));
  const counts = new Map<string, number>();
  for (const text of short) counts.set(text, (counts.get(text) ?? 0) + 1);
  const options: Intl.DateTimeFormatOptions = { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZone };
  return isos.map((iso, i) => {
    const date = new Date(iso);
    if (counts.get(short[i]!)! < 2 || Number.isNaN(date.getTime())) return short[i]!;
    const format = locale === undefined && timeZone === undefined ? (shortSecondsFormat ??= new Intl.DateTimeFormat(undefined, options)) : new Intl.DateTimeFormat(locale, options);
    return format.format(date);
  });
}

/**
 * For a run whose CPU kernels (or simulator) ran in the WebAssembly module instead of the native
 * addon: a sentence saying so, that a benchmark's timings are then not the native kernels'
 * speed, and why (Environment.nativeBuildReason, without the files tried); null for a native
 * run, or one that does not say (saved before runs did). The editor's finish notification and
 * the dashboard's run header show it; the README promises such runs say so.
 */
export function wasmBuildNote(env: Pick<Environment, 'nativeBuild' | 'nativeBuildReason'> | null | undefined, kind: RunKind = 'bench'): string | null {
  if (env?.nativeBuild !== 'wasm') return null;
  const why = (env.nativeBuildReason ?? 'ATTNSCOPE_BACKEND=wasm').replace(/ \(tried [^)]*\)/g, '');
  return kind === 'simulate'
    ? `Simulated by the WebAssembly module, not the native addon (the same results bit for bit): ${why}.`
    : `Its kernels ran single-threaded in WebAssembly, not in the native addon: these timings are not the native kernels' speed. Why: ${why}.`;
}

/**
 * The load line of a run's machine (Environment.loadAverage, os.loadavg() when the runner measured
 * it): "load average 11.46 (1 min), 10.80 (5 min) at the start", and when the 1-minute load is
 * above the CPU count the caveat "(above 2 CPUs: other processes competed, times are longer than on
 * an idle machine)". `busy` says whether it is. The CLI's table prints the line; the dashboard's
 * run header shows it when busy, and Compare when the two runs' loads differ that way. Null when
 * the run did not record its load (saved before it, or put together by the editor).
 */
export function loadAverageText(env: Pick<Environment, 'loadAverage' | 'cpuCores'>): { text: string; busy: boolean } | null {
  if (!env.loadAverage) return null;
  const [one, five] = env.loadAverage;
  const busy = one > env.cpuCores;
  const caveat = busy ? ` (above ${env.cpuCores} CPUs: other processes competed, times are longer than on an idle machine)` : '';
  return { text: `load average ${one.toFixed(2)} (1 min), ${five.toFixed(2)} (5 min) at the start${caveat}`, busy };
}

/** The build of a run's CPU kernels (Environment.nativeBuild) in words: 'native addon', 'WebAssembly, 1 thread', or '' when the run does not say. */
export function nativeBuildLabel(env: Pick<Environment, 'nativeBuild'>): string {
  return env.nativeBuild === 'wasm' ? 'WebAssembly, 1 thread' : env.nativeBuild === 'native' ? 'native addon' : '';
}

/**
 * What ran a run's kernels, in a few words, for the run pickers (History's compare selects, the
 * editor's Compare / Export picks): a GPU backend with its GPU, then the CPU kernels' build, SIMD
 * path and threads ("native addon · avx2 · 2 threads", "WebAssembly, 1 thread · simd128",
 * "cuda · NVIDIA H100 80GB HBM3"). The CPU part is left out where the run does not know it (a run
 * the editor put together after its runner ended without one: Environment.simd ''). A run that
 * timed no kernel (a serving simulation, a benchmark stopped before its first case): 'no kernel
 * timed', not the build it would have used.
 */
export function kernelBuildText(env: Environment, cases: ReadonlyArray<Pick<KernelCase, 'backend'>>): string {
  if (cases.length === 0) return 'no kernel timed';
  const gpu = [...new Set(cases.map((c) => c.backend).filter((b) => b !== 'cpu'))].map((b) => (env.gpu ? `${b} · ${env.gpu.name}` : b));
  const cpu = env.simd === '' ? [] : [nativeBuildLabel(env), env.simd, env.nativeBuild === 'wasm' ? '' : `${env.threads} ${env.threads === 1 ? 'thread' : 'threads'}`];
  return [...gpu, ...cpu].filter((part) => part !== '').join(' · ');
}

/**
 * "per GPU at TP 2" for a case shape timed as one GPU's share of the heads under tensor
 * parallelism (CaseShape.tensorParallelSize > 1), else ''.
 */
export function perGpuCaseText(shape: { tensorParallelSize?: number }): string {
  const tp = shape.tensorParallelSize ?? 1;
  return tp > 1 ? `per GPU at TP ${tp}` : '';
}

/**
 * The bench header's words for cases timed as one GPU's share under tensor parallelism:
 * "cases per GPU at TP 2 (H / tp query heads, the KV heads one GPU holds, as vLLM shards them)",
 * or null when no case is (one GPU: all the model's heads).
 */
export function perGpuCasesHeader(shapes: Array<{ tensorParallelSize?: number }>): string | null {
  const tp = shapes.reduce((m, s) => Math.max(m, s.tensorParallelSize ?? 1), 1); // not Math.max(...): a long list overflows the stack
  return tp > 1 ? `cases ${perGpuCaseText({ tensorParallelSize: tp })} (H / tp query heads, the KV heads one GPU holds, as vLLM shards them)` : null;
}

/** GPUs one engine (one data-parallel replica) of a profile's device block runs on: tensor_parallel_size · pipeline_parallel_size (absent: 1). */
export function gpuCount(device: { tensorParallelSize: number; pipelineParallelSize?: number }): number {
  return device.tensorParallelSize * (device.pipelineParallelSize ?? 1);
}

/**
 * A data-parallel simulation's deployment (PoolResult.dataParallel): "2 engines × 1 GPU", or
 * "2 engines" for a run saved before gpusPerEngine.
 */
export function dataParallelDeployment(dp: Pick<DataParallelResult, 'size' | 'gpusPerEngine'>): string {
  return `${dp.size} engines${dp.gpusPerEngine !== undefined ? ` × ${formatCountOf(dp.gpusPerEngine, 'GPU')}` : ''}`;
}

/**
 * A file as the dashboard names it in a title or on a button: its name, and for a Hugging Face
 * model's `config.json` (every model's has that name) its folder too, "Llama-3.1-70B/config.json"
 * (s44 newcomer-ed F7: the tab read "config.json · estimate", "Run benchmark: config.json"). `path`:
 * absolute or relative, `/` or `\` separated.
 */
export function shownFileName(path: string): string {
  const parts = path.split(/[\\/]/).filter((p) => p !== '');
  const name = parts.at(-1) ?? path;
  return name === 'config.json' && parts.length > 1 ? `${parts.at(-2)}/${name}` : name;
}

/**
 * Why a data-parallel simulation has no contiguous-allocation baselines (PoolResult.baselines
 * empty): simulateDataParallel runs the paged pool only. One text for the CLI's allocation table
 * and the dashboard's "Paged pool vs contiguous allocation" chart (s41 newcomer F11, s44
 * newcomer-ed F14: the chart drew the paged row alone and did not say why). `dpSize`: data_parallel_size.
 */
export function contiguousNotSimulatedText(dpSize: number): string {
  return `contiguous-allocation baselines: not simulated at data parallel ${dpSize}, whose engines run the paged pool only; data_parallel_size 1 simulates them`;
}

/**
 * Which scope each figure of a data-parallel simulation has (simulatePool, PoolSummary), as the
 * CLI and the dashboard both say it (s41 newcomer-ed F2: neither said it, and the summary mixed
 * a summed mean with one engine's peak), and whose pool samples the run keeps.
 */
export function dpScopeText(dp: Pick<DataParallelResult, 'size' | 'sampledEngines'>): string {
  const kept = dp.sampledEngines;
  // Past DP_SAMPLED_ENGINES engines, engines 1 … 8 and the busiest keep their samples (DataParallelResult.sampledEngines, s45 newcomer-ed N4).
  const samples = !kept || kept.length >= dp.size
    ? 'pool samples per engine'
    : `pool samples of engines 1 … ${DP_SAMPLED_ENGINES} and the busiest (${kept.length > DP_SAMPLED_ENGINES ? `engine ${formatCount(kept[kept.length - 1]! + 1)}` : 'one of them'}) of ${formatCount(dp.size)}, not the others'`;
  return `latency, throughput, request counts and preemptions over all engines; running, waiting and occupancy per engine (means over the engines, peaks the busiest engine's); ${samples} (the dashboard's Engine select picks the one charted)`;
}

/**
 * Each engine of a data-parallel simulation in one line: "engine 1: 506 requests, 1,398 output
 * tokens/s, mean running 151, peak 291; engine 2: …" (running figures absent in runs before s41),
 * then the span the rates and means divide by (DataParallelResult.ratesSpan): the run's, so they
 * sum to its total (s42 newcomer 10), or, in runs before s42, each engine's own. Past
 * {@link DP_ENGINES_LISTED} engines the first three, then the requests' and output tokens/s' min,
 * median and max over all of them (s43 newcomer43 F3: 1,024 engines made one 73,377-character
 * line); the result's replicas keep every engine.
 */
export function dataParallelEngines(dp: Pick<DataParallelResult, 'replicas' | 'ratesSpan'>): string {
  const mean = (x: number) => (x > 0 && x < 10 ? x.toPrecision(3) : x.toFixed(1));
  const span = dp.ratesSpan === 'run'
    ? " (each engine's output tokens/s and running mean over the run's span, 0 s to the last request's end of any engine, so the tokens/s sum to the run's, as vLLM's per-engine log lines share one logging interval)"
    : " (each engine's output tokens/s and running mean over its own span, 0 s to its own last request's end: they need not sum to the run's; a run saved before s42)";
  const listed = dp.replicas.length > DP_ENGINES_LISTED ? dp.replicas.slice(0, 3) : dp.replicas;
  // A rate's 3 significant digits below 100 (formatRequestRate's rule): an engine's 0.1 tokens/s read "0 output tokens/s" (s44 newcomer L6, dp 1024).
  const tokensPerSec = formatRequestRate;
  let rest = '';
  if (listed.length < dp.replicas.length) {
    // Median: the middle value, the lower of the two middle ones for an even count.
    const spread = (xs: number[], f: (x: number) => string) => {
      const s = [...xs].sort((a, b) => a - b);
      return `${f(s[0])} / ${f(s[Math.floor((s.length - 1) / 2)])} / ${f(s[s.length - 1])}`;
    };
    rest = `; … ${formatCount(dp.replicas.length - 3)} more; over all ${formatCount(dp.replicas.length)} engines, min / median / max: requests ${spread(dp.replicas.map((x) => x.requests), formatCount)}, output tokens/s ${spread(dp.replicas.map((x) => x.outputTokensPerSec), tokensPerSec)}`;
  }
  return listed
    .map((x, k) => `engine ${k + 1}: ${formatCountOf(x.requests, 'request')}, ${tokensPerSec(x.outputTokensPerSec)} output tokens/s${x.meanConcurrency !== undefined && x.peakConcurrency !== undefined ? `, running mean ${mean(x.meanConcurrency)} peak ${formatCount(x.peakConcurrency)}` : ''}`)
    .join('; ') + rest + span;
}

/** Engines 1 … this of a data-parallel run keep their pool samples, and the busiest beside them (DataParallelResult.sampledEngines): the dashboard's Engine select draws these. */
export const DP_SAMPLED_ENGINES = 8;

/** Engines {@link dataParallelEngines} lists one by one; more are summarised. */
export const DP_ENGINES_LISTED = 8;

/**
 * The profile's top-level keys (schemas/attn-profile.schema.json's properties less $schema; a unit test checks
 * the list against the schema): an axis name that would equal one names its key in full ({@link axisNames}:
 * kv_cache.dtype is not the model's dtype).
 */
export const PROFILE_TOP_KEYS: readonly string[] = ['model', 'dtype', 'device', 'engine', 'kv_cache', 'prefill', 'decode', 'workload', 'slo', 'step_time', 'sweep'];

/**
 * The names of sweep axes (dotted profile keys, each once) as the sweep's labels, CLI table, notes and Sweep tab write
 * them, in `keys`' order: each key less its section (its first part: device, kv_cache, workload, slo, ...), so that the
 * reader knows the key ("prefix_sharing.fraction", "prompt_len.value", "page_size"; s52 nc-cli: a lone "fraction"), the
 * whole key where that would name a top-level key ("kv_cache.dtype", not "dtype") or for a one-part key ("dtype"); and
 * where two axes would still share a name, each of them one more part to the left until none does (at most the whole
 * key, which is unique): workload.a.fraction and kv_cache.a.fraction are written in full, never both "a.fraction".
 */
export function axisNames(keys: readonly string[]): string[] {
  const parts = keys.map((k) => k.split('.'));
  // How many trailing parts each name takes: all but the section, or the whole key.
  const take = parts.map((p) => (p.length === 1 || PROFILE_TOP_KEYS.includes(p.slice(1).join('.')) ? p.length : p.length - 1));
  const nameOf = (i: number) => parts[i]!.slice(parts[i]!.length - take[i]!).join('.');
  for (let clash = true; clash;) {
    clash = false;
    const names = keys.map((_, i) => nameOf(i));
    names.forEach((n, i) => {
      if (take[i]! < parts[i]!.length && names.some((o, j) => j !== i && o === n)) {
        take[i]!++;
        clash = true;
      }
    });
  }
  return keys.map((_, i) => nameOf(i));
}

/** One axis's name among the sweep's axes `keys` ({@link axisNames}); `key` itself where it is not among them. */
export function axisName(key: string, keys: readonly string[]): string {
  const at = keys.indexOf(key);
  return at < 0 ? (axisNames([key])[0] ?? key) : axisNames(keys)[at]!;
}

/**
 * A sweep axis value as the sweep's labels, table and Sweep tab write it: a string as is, a number
 * as String writes it (1e400: Infinity, which JSON.stringify writes "null"), a described GPU (a
 * device.gpu mapping with a name) by its name as gpus.ts gpuLabel writes it, "MI325X (user-given)", not its whole mapping (s42
 * newcomer 11: 150 characters of JSON in the gpu column and the best line), anything else as JSON.
 */
export function axisValueText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && typeof (v as { name?: unknown }).name === 'string') return `${(v as { name: string }).name} (user-given)`;
  return JSON.stringify(v);
}

/**
 * Whether two sweep axis values (plain JSON values of a report: SweepReportRow.values, its axes'
 * values) are the same value: equal scalars, or mappings and lists whose entries are, whatever a
 * mapping's key order. A described GPU (a device.gpu mapping) read from two files is two objects,
 * which === never finds equal.
 */
export function sameAxisValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object' || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && sameAxisValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * A rate (requests/s, tokens/s) per GPU: rate / gpus (absent: 1, a report merged before s38). The
 * one normalisation of the Sweep tab's best-point rule, where points on different GPU counts are
 * ranked per GPU (runner/sweep/results.ts bestRow), and of Compare, where two runs' GPU counts
 * differ (webview/compare.ts comparePools).
 */
export function perGpuRate(rate: number, gpus: number | undefined): number {
  return rate / (gpus ?? 1);
}

/**
 * US dollars per million tokens served: `gpuHourUsd` (the user's price of one GPU-hour) × `gpus`
 * (the deployment's, tp × pp × dp: {@link deployedGpuCount}) / 3600 s / `tokensPerSec` × 10^6.
 * 2.49 $/GPU-hour × 2 GPUs / 3600 / 5,000 tokens/s × 10^6 = 0.2767 $. Modelled when `tokensPerSec`
 * is (a simulation's); null when `tokensPerSec` is not above 0 (nothing served, no cost per token).
 */
export function usdPerMillionTokens(gpuHourUsd: number, gpus: number, tokensPerSec: number): number | null {
  return tokensPerSec > 0 ? ((gpuHourUsd * gpus) / 3600 / tokensPerSec) * 1e6 : null;
}

/**
 * The output rate a serving deployment sustains, the one a cost per token divides by: a steady rate,
 * not the finite run's. A run of n requests spends its start filling the batch and its end draining
 * it; its output tokens / (0 s to the last request's end) falls as data parallelism spreads the same n
 * over more engines (s44 newcomer44 HIGH-1: 2,000 requests over 64 engines served 440 requests/s of a
 * μ of 1,989, and priced the tokens 4.5 times too high). So, as Vidur's configuration search ranks
 * deployments (Agrawal et al., MLSys 2024, vidur/config_optimizer: QPS per dollar at the capacity,
 * the highest rate its binary search finds meeting the scheduling-delay SLO, not a finite run's mean):
 * requestsPerSec × meanOutputTokens (PoolLoad.meanOutputTokens), requestsPerSec by `basis`:
 * 'max-rate' the capacity search's max rate (CapacityCurve.maxRate); 'offered' the load's offered rate
 * where the server keeps up with it (at most μ where μ was measured, PoolLoad.saturatedRequestsPerSec; else
 * neither PoolLoad.overloaded nor {@link tooShortToTell}); 'saturated' μ where the offered rate is above it.
 * 'run': the finite run's PoolSummary.throughputTokensPerSec, where no steady rate is known: all
 * requests at one instant, an overloaded or too-short run without μ, a run saved before s44. Null when
 * nothing was served.
 */
export function steadyOutput(pool: Pick<PoolResult, 'load' | 'capacity' | 'summary'>): { outputTokensPerSec: number; requestsPerSec?: number; meanOutputTokens?: number; basis: PoolCost['basis'] } | null {
  // A capacity search no rate passed: its figures are those of a failing rate.
  if (pool.capacity?.maxRate === null) return null;
  const load = pool.load;
  const mean = load?.meanOutputTokens;
  const steady = (requestsPerSec: number, basis: PoolCost['basis']) => (requestsPerSec > 0 && mean! > 0 ? { outputTokensPerSec: requestsPerSec * mean!, requestsPerSec, meanOutputTokens: mean!, basis } : null);
  if (load && mean !== undefined) {
    if (pool.capacity) return steady(pool.capacity.maxRate!, 'max-rate');
    const offered = load.offeredRequestsPerSec;
    const mu = load.saturatedRequestsPerSec;
    if (offered !== null) {
      if (typeof mu === 'number') return offered > mu ? steady(mu, 'saturated') : steady(offered, 'offered');
      if (!load.overloaded && !tooShortToTell(load, pool.summary.requests)) return steady(offered, 'offered');
    }
  }
  const run = pool.summary.throughputTokensPerSec;
  return run > 0 ? { outputTokensPerSec: run, basis: 'run' } : null;
}

/**
 * The modelled cost of a simulated deployment's output tokens (PoolResult.cost) at the user's price
 * `gpuHourUsd` per GPU-hour over `gpus` GPUs: {@link usdPerMillionTokens} at the {@link steadyOutput}
 * rate. Null without a price or with nothing served.
 * Llama-3.1-8B on one H100 SXM at 24 requests/s offered (kept up), 272 output tokens each, $2.49:
 * 2.49 / 3600 / (24 × 272) × 10^6 = $0.106.
 */
export function poolCost(pool: Pick<PoolResult, 'load' | 'capacity' | 'summary'>, gpuHourUsd: number | undefined, gpus: number): PoolCost | null {
  if (gpuHourUsd === undefined) return null;
  const out = steadyOutput(pool);
  const usd = out ? usdPerMillionTokens(gpuHourUsd, gpus, out.outputTokensPerSec) : null;
  return out && usd !== null ? { gpuHourUsd, gpus, usdPerMillionOutputTokens: usd, ...out } : null;
}

/**
 * Dollars to three significant digits and at least the cents, grouped from $1,000: 0.0917 -> "$0.0917", 0.5 -> "$0.50", 2.49 -> "$2.49", 1234.5 -> "$1,235";
 * below a tenth of a cent in exponent form, 1e-300 -> "$1.00e-300" (s44 newcomer44 LOW-2: "$0.00").
 */
export function formatUsd(x: number): string {
  if (x !== 0 && Math.abs(x) < 1e-3) return `$${x.toExponential(2)}`;
  const text = formatSignificant(x);
  return `$${Math.abs(x) < 1000 && !/\.\d\d/.test(text) ? x.toFixed(2) : text}`;
}

/**
 * A modelled cost (a $ per 1M output tokens figure) to three significant digits, trailing zeros
 * kept, so costs side by side read alike: 0.18 -> "$0.180" beside "$0.332" and "$0.0930" (s44
 * newcomer-ed F2: "$0.18" beside "$0.332"); grouped from $1,000 as {@link formatUsd}. A price the
 * user wrote keeps formatUsd ("$0.80/GPU-hour").
 */
export function formatUsdCost(x: number): string {
  if (!Number.isFinite(x) || x === 0) return formatUsd(x);
  if (Math.abs(x) >= 999.5) return `$${formatCount(x)}`;
  const text = x.toPrecision(3);
  return /^-?\d+(\.\d+)?$/.test(text) ? `$${text}` : formatUsd(x);
}

/** A user-given price per GPU-hour in words, which every figure made from it carries: "user-given $2.49/GPU-hour". */
export function gpuHourUsdText(gpuHourUsd: number): string {
  return `user-given ${formatUsd(gpuHourUsd)}/GPU-hour`;
}

/**
 * A max-rate row's max rate (SweepMetrics.maxRateRequestsPerSec, maxRateLimit) as the table shows it ({@link formatRequestRate}), ">= " before a lower
 * bound (maxRateLimit 'unbounded'), "SLO unmet at any rate" when no rate met it; "-" for another row.
 * The one wording of the CLI's table and the dashboard's Sweep tab (webview/sweep.ts), and the reason a row is not ranked.
 */
export function maxRateText(m: { maxRateLimit?: string; maxRateRequestsPerSec?: number }): string {
  if (m.maxRateLimit === 'unmet') return 'SLO unmet at any rate';
  if (m.maxRateRequestsPerSec === undefined) return '-';
  return `${m.maxRateLimit === 'unbounded' ? '>= ' : ''}${formatRequestRate(m.maxRateRequestsPerSec)}`;
}

/**
 * What bounds a max-rate row's max rate (SweepMetrics.maxRateLimit) as the tables write it: 'SLO',
 * 'capacity' (the saturated throughput μ), 'none found' (unbounded), '-' otherwise. The one wording
 * of the CLI's `limit` column and the dashboard's Sweep tab.
 */
export function maxRateLimitText(m: { maxRateLimit?: string }): string {
  return m.maxRateLimit === 'slo' ? 'SLO' : m.maxRateLimit === 'capacity' ? 'capacity' : m.maxRateLimit === 'unbounded' ? 'none found' : '-';
}

/** The rate a capacity search ran the result's load at (its answer, else its last rate tried), requests/s; undefined for a plain run. */
export function searchedRate(pool: Pick<PoolResult, 'capacity'>): number | undefined {
  const c = pool.capacity;
  return c ? (c.maxRate ?? c.points.at(-1)?.rate) : undefined;
}

/**
 * Whether the modelled server keeps up with a point's load, from its run (pool.load.keepsUp,
 * set by the sweep worker: runner/simulate/capacity.ts checkKeepsUp), and why not in words;
 * {} when the run did not judge it. The one check of the Sweep tab's rows (runner/sweep/results.ts)
 * and the dashboard's Compare (webview/compare.ts).
 */
export function keepsUpOf(run: Pick<RunResult, 'pool' | 'profile'>): { keepsUp?: boolean; notKeptUp?: string } {
  const load = run.pool?.load;
  if (load?.keepsUp === undefined) return {};
  if (load.keepsUp) return { keepsUp: true };
  const rate = (x: number | null | undefined) => (x === null || x === undefined ? 'n/a' : formatRequestRate(x));
  // The rate judged, as the run's Load line prints it (formatLoad): a capacity search's searched rate, else the offered rate the run measured (checkKeepsUp).
  const searched = run.pool ? searchedRate(run.pool) : undefined;
  const judged = searched !== undefined ? `searched rate ${rate(searched)} requests/s` : `${rate(load.offeredRequestsPerSec)} requests/s offered`;
  const why = load.overloaded
    ? `its queue grew through the arrivals: ${formatCount(load.waitingAtLastArrival)} requests still waiting at the last arrival, ${rate(load.servedRequestsPerSec)} requests/s served`
    : `${judged}, above the saturated throughput μ = ${rate(load.saturatedRequestsPerSec)} requests/s`;
  return { keepsUp: false, notKeptUp: why };
}

/** What Compare's change column means, in one sentence under its tables and its Markdown export (s39 newcomer-ed 3: 11.0 % → 2.4 % read "−78.4 %" with no word that it was relative). */
export const CHANGE_MEANING = 'change: B against A, (B − A) / A for counts, rates and times; B − A in percentage points (pp) for a percentage (occupancy, hit rate).';

/** GPUs a profile's device block deploys on, every replica's: tensor_parallel_size · pipeline_parallel_size · data_parallel_size (absent: 1). */
export function deployedGpuCount(device: { tensorParallelSize: number; pipelineParallelSize?: number; dataParallelSize?: number }): number {
  return gpuCount(device) * (device.dataParallelSize ?? 1);
}

/**
 * A sweep point's SLO in words, "TTFT ≤ 500 ms and TPOT ≤ 100 ms for 99.0% of requests": its
 * bounds (the profile's slo, ms) and the fraction of requests that must meet them (slo.attainment;
 * SLO_ATTAINMENT_DEFAULT, 0.9, when not written, as the sweep's best-point rule reads it); null with
 * no bound. The Sweep tab's Markdown (webview/sweep.ts sweepAssumptions).
 */
export function sloBoundsText(m: { sloTtftMs?: number; sloTpotMs?: number; sloAttainmentTarget?: number }): string | null {
  const bounds = [...(m.sloTtftMs !== undefined ? [`TTFT ≤ ${formatCount(m.sloTtftMs)} ms`] : []), ...(m.sloTpotMs !== undefined ? [`TPOT ≤ ${formatCount(m.sloTpotMs)} ms`] : [])];
  return bounds.length === 0 ? null : `${bounds.join(' and ')} for ${formatPercent(m.sloAttainmentTarget ?? SLO_ATTAINMENT_DEFAULT)} of requests`;
}

/** A Markdown table cell: pipes escaped, line ends as spaces. */
export function markdownCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/**
 * The one Markdown table writer of the dashboard's Copy as Markdown (Compare:
 * extension/exportCompare.ts; Sweep: webview/sweep.ts sweepMarkdown): `header` and `rows` as GitHub
 * table lines, the alignment row right-aligning column c where `right[c]` (a figure: "---:").
 */
export function markdownTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>, right: readonly boolean[] = []): string[] {
  const line = (cells: readonly string[]) => `| ${cells.map(markdownCell).join(' | ')} |`;
  return [line(header), line(header.map((_, c) => (right[c] ? '---:' : '---'))), ...rows.map(line)];
}

/**
 * A report's text for a terminal: each line longer than `width` characters (default
 * core/textTable.ts proseWidth: min(the terminal's or COLUMNS' width, 100), so a prose line past 100
 * is wrapped on any terminal and past 60 under COLUMNS=60; s49: bench's legend, estimate and CPU
 * lines ran to 110-160) broken by {@link wrapLine} into lines of at most `width` characters where a
 * word allows (a longer word stays whole), a number kept with the word after it (its unit), the
 * continuation lines indented 4 more than the line's own indent, so that the first line keeps
 * the line's result ("Step time (modelled): ...", "Load: 24.0 requests/s offered, ...") and the
 * derivation after it reads as its continuation; a label and its value two or more spaces apart
 * (estimate's "  KV pool           18,424 blocks ...") are continued at the value's column. Shorter
 * lines are left as they are, and so is a table row of any length (two gaps of two spaces or more:
 * the tables are laid out to the tables' width by core/textTable.ts renderTable, which may be wider
 * than the prose's); `file:line:col:` diagnostics are never given here (one line each).
 * e.g. a 300-character "Load: ..." line -> 3 lines, the 2nd and 3rd starting with 4 spaces.
 */
export function wrapLongLines(text: string, width = proseWidth()): string {
  return text
    .split('\n')
    .map((line) => (terminalText(line).length <= width || / {2,}\S.* {2}/.test(line.trimStart()) ? line : wrapComment(line, width) ?? wrapLine(line, { width, keepUnits: true }).join('\n')))
    .join('\n');
}

/**
 * A YAML comment line (`  # text`, e.g. the comments above `simulate --calibrate`'s step_time snippet) wrapped as
 * comment lines, each continuation `  # ` at the same indent, so that pasting them with the snippet stays valid
 * YAML (a plain continuation would be read as a key); null for a line that is not a comment.
 * e.g. wrapComment('  # aa bb cc', 9) -> '  # aa bb\n  # cc'.
 */
function wrapComment(line: string, width: number): string | null {
  const m = /^( *)# /.exec(line);
  if (!m) return null;
  const own = m[1]!;
  return wrapLine(line, { width, indent: own.length + 2, keepUnits: true }).map((l, i) => (i === 0 ? l : `${own}# ${l.slice(own.length + 2)}`)).join('\n');
}

/** How {@link wrapLine} breaks a line. */
export interface WrapOptions {
  /** Columns a line may take (default core/textTable.ts proseWidth: min(the tables' width, 100)); a word longer than the room stays whole on its line. */
  width?: number;
  /**
   * Spaces before each continuation line. Default: where the line is a label and its value two or
   * more spaces apart ("  KV pool           18,424 blocks ..."), the value's column (the label is
   * never broken); else the line's own indent + 4.
   */
  indent?: number;
  /**
   * Break before the last word in the room that starts with one of these, where one does (a usage
   * line's '[' and '(' keep each bracketed flag and the comment whole; an example's '--' keeps a
   * flag with its value); else before the last word that fits.
   */
  breakBefore?: readonly string[];
  /** Keep a number with the word after it (its unit: "51.2 ns/KV token", never "51.2" at a line's end). */
  keepUnits?: boolean;
}

/**
 * `line` broken at spaces into lines of at most `options.width` characters ({@link WrapOptions}):
 * the one word-wrapper of the CLI's text (reports: {@link wrapLongLines}; --help's usage, flag and
 * example lines: runner/help.ts), in the locale's characters (core/textTable.ts terminalText). The line's own indent is kept on its first line; the spaces at a
 * break are dropped. A line that fits is returned as it is, as the one element.
 * e.g. wrapLine('aa bb [cc dd]', { width: 10, indent: 2, breakBefore: ['['] }) -> ['aa bb', '  [cc dd]'].
 */
export function wrapLine(line: string, options: WrapOptions = {}): string[] {
  const { width = proseWidth(), breakBefore = [], keepUnits = false } = options;
  // Measured as printed: a non-UTF-8 locale's ASCII ('≥' -> '>=') before the line is broken.
  line = terminalText(line);
  if (line.length <= width) return [line];
  const own = /^ */.exec(line)![0].length;
  // The head is never broken: the indent, and, without an explicit indent, a label and its gap.
  const label = options.indent === undefined ? / {2,}/.exec(line.slice(own)) : null;
  const head = label ? line.slice(0, own + label.index + label[0].length) : line.slice(0, own);
  const more = ' '.repeat(options.indent ?? (label ? head.length : own + 4));
  const words: string[] = [];
  for (const w of line.slice(head.length).split(' ')) {
    if (keepUnits && words.length > 0 && /\d$/.test(words[words.length - 1]!)) words[words.length - 1] += ` ${w}`;
    else words.push(w);
  }
  const out: string[] = [];
  let lead = head;
  let from = 0;
  while (from < words.length) {
    // The words [from, end) that fit after `lead`: always at least the first (a longer word stays whole).
    let end = from + 1;
    let length = lead.length + words[from]!.length;
    while (end < words.length && length + 1 + words[end]!.length <= width) length += 1 + words[end++]!.length;
    if (end < words.length) {
      const preferred = (p: number): boolean => breakBefore.some((b) => words[p]!.startsWith(b));
      let p = end;
      while (p > from + 1 && !preferred(p)) p--;
      if (preferred(p)) end = p;
    }
    out.push(`${lead}${words.slice(from, end).join(' ')}`.trimEnd());
    from = end;
    while (from < words.length && words[from] === '') from++;
    lead = more;
  }
  return out;
}

/**
 * One GPU's share of `totalBytes` of weights over `tp` tensor-parallel GPUs, as the formula with its
 * figures: "(T − R) ÷ tp + R replicated on every GPU", R the bytes vLLM keeps whole on every GPU
 * ({@link replicatedWeights} wholeBytes: norms, routers, MLA a-projections, a tower's unsplit parts),
 * and, where tp exceeds H_kv > 1 KV heads, the k/v projections K as "+ K ÷ H_kv" (each GPU one
 * head's). Llama-3.1-405B bf16 at tp 8: "(756 GiB − 7.91 MiB) ÷ 8 + 7.91 MiB replicated on every
 * GPU" (norms (126 · 2 + 1) · 16,384 · 2 B). Empty when `tp` is 1 or nothing is replicated (the
 * caller writes "T ÷ tp"). The one text of this split: the estimate's note, the fit checks, the
 * table's weights line, the reserve's weights basis and the editor's hover all call it. `totalBytes`
 * as a string is written as given ("parameters · bytes"); `format` renders bytes (formatBytes, formatGib).
 * `parts`, where given, are what the replicated bytes are in vLLM ({@link replicatedWeights} parts:
 * "norms on every GPU", "k_proj / v_proj of each of the 8 KV heads on 2 GPUs (…)"): the formula then
 * ends in one parenthesis naming them, "(vLLM: a; b)", in place of the KV heads' own, so a reader
 * gets one aside, naming this model's parts (the editor's Weights row and the estimate's note).
 */
export function tpWeightsFormula(totalBytes: number | string, tp: number, r: TpReplication | undefined, format: (bytes: number) => string = formatBytes, parts: readonly string[] = []): string {
  if (tp <= 1 || !r || (r.wholeBytes <= 0 && !r.kvHeads)) return '';
  const less = [r.wholeBytes, r.kvHeads?.bytes ?? 0].filter((x) => x > 0).map((x) => ` − ${format(x)}`).join('');
  const whole = r.wholeBytes > 0 ? ` + ${format(r.wholeBytes)} replicated on every GPU` : '';
  const kv = r.kvHeads ? ` + ${format(r.kvHeads.bytes)} ÷ ${r.kvHeads.heads}${parts.length ? '' : ` (k_proj / v_proj: one of the ${r.kvHeads.heads} KV heads on each GPU)`}` : '';
  const why = parts.length ? ` (vLLM: ${parts.join('; ')})` : '';
  return `(${typeof totalBytes === 'string' ? totalBytes : format(totalBytes)}${less}) ÷ ${tp}${whole}${kv}${why}`;
}
