/**
 * The dashboard's charts as pure functions of a run and the theme palette: each returns the
 * chart.js configuration and the same numbers as a table (shown under the chart for reading
 * exact values and for screen readers). Units: times in ms, rates in GFLOP/s and GB/s (SI),
 * memory in GiB (IEC).
 */
import type { Chart, ChartConfiguration, ChartDataset, Plugin } from 'chart.js';
import type { KernelCase, PoolSample } from '../core/protocol/run';
import { caseLabel } from './compare';
import { contiguousNotSimulatedText, dataParallelDeployment, dataParallelEngines, dpScopeText, DP_SAMPLED_ENGINES, formatBytes, formatCount, formatCountOf, gpuCount, formatDuration, formatGib, formatMs, formatParams, formatPercent, formatRate, formatSignificant, fractionText, fromCacheText, INTERRUPTED, isInterrupted, isMemoryBound, nativeBuildLabel, poolCancelledText } from '../core/format';
import type { ViewRun } from './model';
import { withAlpha, type Mark, type Palette } from './theme';
import { NOISY_MARK_NOTE, noisyMark, spreadName, spreadsName } from '../core/noise';

/** Every chart of the run view; latency.ts draws latencyCdf, queue and capacity. */
export type ChartId = 'timings' | 'throughput' | 'roofline' | 'memory' | 'poolTimeline' | 'poolBaselines' | 'latencyCdf' | 'queue' | 'capacity';

export interface ChartTable {
  columns: string[];
  rows: string[][];
}

export interface ChartSpec {
  id: ChartId;
  title: string;
  /** Why the chart is empty, when it is. */
  empty: string | null;
  /** One line printed above the chart (the pool run's summary), if any. */
  summary?: string | null;
  /** The chart's height in px when it is not the default 300 (a row per case). */
  height?: number;
  config: ChartConfiguration;
  table: ChartTable;
  /**
   * The chart's accessible name (the canvas's aria-label, as chart.js's accessibility guide asks
   * for a canvas it draws on): what the chart shows and its key figures, for a screen reader;
   * the data table under the chart has every figure.
   */
  ariaLabel: string;
}

/** Most items an accessible name lists before "and N more (Data table)": a name is read whole. */
const ARIA_MAX_ITEMS = 6;

/** What a case chart without a case says: a running run waits for its first; an ended one (ok, cancelled, failed) has none ("yet" read wrong on a cancelled run: s36 newcomer, editor 8). */
function noCasesText(run: { status: string }): string {
  return run.status === 'running' ? 'Waiting for the first case…' : 'This run has no timed cases.';
}

/** `items` joined with "; ", at most ARIA_MAX_ITEMS of them, then how many more `table` (the Data table) has. */
export function ariaList(items: readonly string[], table = 'the Data table'): string {
  const shown = items.slice(0, ARIA_MAX_ITEMS).join('; ');
  return items.length > ARIA_MAX_ITEMS ? `${shown}; and ${items.length - ARIA_MAX_ITEMS} more in ${table}` : shown;
}

const GIB = 1024 ** 3;

/**
 * A bar part's fill: `fill` with `mark` over it (Palette.marked), so bars that differ by colour also
 * differ by pattern (in greyscale, in High Contrast); the plain colour where the palette has no
 * marks. The legend's swatches are drawn with the same fill.
 */
function partFill(p: Palette, fill: string, mark: Mark, ink?: string): string | CanvasPattern {
  return p.marked ? p.marked(fill, mark, ink) : fill;
}

/**
 * Chart.js options every chart of the Run view starts from (these, latency.ts's CDF, capacity and
 * queue charts): sized by its box, not animated, the theme's colours and font, `title` bold one
 * point larger, the legend in the theme's font, tooltips on.
 */
export function baseOptions(p: Palette, title: string): NonNullable<ChartConfiguration['options']> {
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: false,
    color: p.foreground,
    borderColor: p.grid,
    font: { family: p.fontFamily, size: p.fontSize },
    plugins: {
      title: { display: true, text: title, color: p.foreground, font: { family: p.fontFamily, size: p.fontSize + 1, weight: 'bold' } },
      legend: { labels: { color: p.foreground, font: { family: p.fontFamily, size: p.fontSize } } },
      tooltip: { enabled: true },
    },
  } as NonNullable<ChartConfiguration['options']>;
}

/** One chart axis in the theme's colours and font (every chart of the dashboard uses it). */
export function axis(p: Palette, title: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: { display: true, text: title, color: p.foreground, font: { family: p.fontFamily, size: p.fontSize } },
    ticks: { color: p.foreground, font: { family: p.fontFamily, size: p.fontSize - 1 } },
    grid: { color: p.grid },
    border: { color: p.grid },
    ...extra,
  };
}

/** Width of a legend swatch drawn as its series is (legendAsDrawn), px: three dashes of a [6, 4] line. */
export const LEGEND_SWATCH_PX = 28;

/**
 * `config`'s legend drawing each item as its series is drawn: a line for a line, dashed where it is
 * dashed and as thick, a box for an area (`boxed`: the filled datasets unless told), each
 * LEGEND_SWATCH_PX wide (chart.js's usePointStyle with pointStyleWidth, its items built here from the
 * datasets: chart.js's own take a line's point style, solid and 1 px). chart.js's default swatch is a
 * 40 × 12 px box filled with the dataset's colour under its border: a dashed line's ("peak running
 * 156") read as a blob (s47 newcomer-ed 7). Returns `config`, changed.
 */
export function legendAsDrawn(config: ChartConfiguration, boxed: (d: ChartDataset) => boolean = (d) => !!(d as { fill?: unknown }).fill): ChartConfiguration {
  const datasets = config.data.datasets as Array<ChartDataset & { borderDash?: number[]; borderWidth?: number }>;
  const styles = datasets.map((d) => (boxed(d) ? ('rect' as const) : ('line' as const)));
  const legend = (config.options!.plugins!.legend ??= {}) as { labels?: Record<string, unknown> };
  const color = legend.labels?.['color'] as string | undefined;
  legend.labels = {
    ...legend.labels,
    usePointStyle: true,
    pointStyleWidth: LEGEND_SWATCH_PX,
    generateLabels: (chart: Chart) =>
      datasets.map((d, i) => ({
        text: d.label ?? '', datasetIndex: i, hidden: !chart.isDatasetVisible(i), pointStyle: styles[i]!, fontColor: color,
        fillStyle: d.backgroundColor as string, strokeStyle: d.borderColor as string, lineWidth: d.borderWidth ?? 1, lineDash: d.borderDash ?? [],
      })),
  };
  return config;
}

/**
 * Tick labels of a log axis: the powers of ten, compact ("0.1", "1", "10", "1k", "10k"), so
 * neighbours never overlap at the default width (chart.js printed "700.00 1,000.00"); on an axis
 * whose ticks (chart.js's `ticks`, the callback's third argument) span less than two decades, the
 * 2 and 5 multiples too ("20", "50", "200", "500"): a bar of 60–900 ms had the one label "100".
 */
export function logTick(value: number | string, _index?: number, ticks?: ReadonlyArray<{ value: number }>): string {
  const v = Number(value);
  if (!isPowerOfTen(v) && !(isTwoOrFive(v) && spansUnderTwoDecades(ticks))) return '';
  if (v >= 1e3) return `${Number((v / 1e3 ** Math.floor(Math.log10(v) / 3)).toPrecision(3))}${['', 'k', 'M', 'G', 'T', 'P'][Math.floor(Math.log10(v) / 3)] ?? ''}`;
  return String(Number(v.toPrecision(1)));
}

/** True for 2·10^k and 5·10^k (k an integer). */
function isTwoOrFive(v: number): boolean {
  if (!(v > 0)) return false;
  const m = v / 10 ** Math.floor(Math.log10(v) + 1e-9);
  return Math.abs(m - 2) <= 1e-6 || Math.abs(m - 5) <= 1e-6;
}

/** True when the axis's ticks run over less than a factor of 100 (max / min < 100). */
function spansUnderTwoDecades(ticks: ReadonlyArray<{ value: number }> | undefined): boolean {
  const values = (ticks ?? []).map((t) => t.value).filter((v) => v > 0);
  return values.length > 0 && Math.max(...values) / Math.min(...values) < 100;
}

/** True for 10^k (k an integer): the ticks a log axis labels. */
function isPowerOfTen(v: number): boolean {
  if (!(v > 0)) return false;
  const k = Math.log10(v);
  return Math.abs(k - Math.round(k)) <= 1e-9;
}

/**
 * Tick labels of a log axis in milliseconds: the powers of ten, and on an axis of less than two
 * decades the 2 and 5 multiples too (as logTick: a 2-100 ms CDF had the one label "10 ms"), each
 * as core/format formatMs writes a duration ("10 ms", "1 s", "20 s"), so the axis reads in the
 * units the table does and neighbours never overlap (the latency CDF printed "7,000,000" beside
 * "10,000,000"); from a minute up in whole seconds ("100 s", "1,000 s"), which stay round where
 * minutes and hours do not (s34 newcomer-ed 7: "1.67 min, 16.7 min"). `ticks` are chart.js's
 * ticks of the axis.
 */
export function durationLogTick(value: number | string, _index?: number, ticks?: ReadonlyArray<{ value: number }>): string {
  const v = Number(value);
  if (!(isPowerOfTen(v) || (isTwoOrFive(v) && spansUnderTwoDecades(ticks)))) return '';
  return v >= 60_000 ? `${formatCount(v / 1000)} s` : formatMs(v);
}

/** Options of a logarithmic axis with logTick labels. */
function logAxis(p: Palette, title: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const base = axis(p, title, { type: 'logarithmic', ...extra });
  return { ...base, ticks: { ...(base['ticks'] as object), autoSkip: true, maxRotation: 0, callback: logTick } };
}

function timedCases(run: ViewRun): KernelCase[] {
  return run.cases.filter((c) => c.kernel !== 'reference');
}

/**
 * A case label as the kernel charts' y axis writes it: the kernel on one line, the shape on the
 * next ("decode" / "B1 ctx1024 p16"), so a narrow panel does not cut the label's start off (chart.js
 * caps the axis's width and draws the rest past the canvas's left edge).
 */
export function caseTickLines(label: string): string[] {
  const space = label.indexOf(' ');
  return space < 0 ? [label] : [label.slice(0, space), label.slice(space + 1)];
}

/** The y axis of a chart with one row per case: every label, on two lines (caseTickLines). */
function caseAxis(p: Palette, labels: readonly string[]): Record<string, unknown> {
  return axis(p, '', { ticks: { color: p.foreground, autoSkip: false, font: { family: p.fontFamily, size: p.fontSize - 1 }, callback: (v: number | string) => caseTickLines(labels[Number(v)] ?? String(v)) } });
}

/** Chart.js's line height, as a multiple of the font size (its default font.lineHeight). */
const CHART_LINE_HEIGHT = 1.2;
/** Clear space between one row's two-line label and the next row's, px. */
const CASE_ROW_GAP_PX = 6;

/**
 * Height of a chart with one row per case (the timings and throughput bars), px: what Chart.js 4's
 * layout takes besides the rows (its Title, Legend and Scale fit(), at this palette's fonts and the
 * defaults these charts keep) plus a row per case tall enough for its two-line label
 * (caseTickLines) and a gap; at least 300, the other charts' height. With font size f (px), line
 * height 1.2 f:
 * - title: 1.2 (f + 1) + 2 · 10 padding;
 * - legend: 10 + `legendLines` · (f + 10) (a box f tall, 10 padding);
 * - each of `xAxes` x axes: 8 tick marks + title 1.2 f + 2 · 4 + tick labels 1.2 (f − 1) + 2 · 3;
 * - each case: 2 · 1.2 (f − 1) + CASE_ROW_GAP_PX.
 * At f = 13, 6 cases, one axis and one legend line: 36.8 + 33 + 52 + 6 · 34.8 = 330.6 → 331 px.
 * `legendLines`: how many lines the legend can wrap onto in a 340 px panel (the narrowest the
 * dashboard is laid out for): its items' widths do not depend on the data, so the charts say.
 */
export function caseChartHeight(cases: number, p: Palette, layout: { xAxes: number; legendLines: number }): number {
  const f = p.fontSize;
  const title = CHART_LINE_HEIGHT * (f + 1) + 2 * 10;
  const legend = 10 + layout.legendLines * (f + 10);
  const xAxis = 8 + CHART_LINE_HEIGHT * f + 2 * 4 + CHART_LINE_HEIGHT * (f - 1) + 2 * 3;
  const row = 2 * CHART_LINE_HEIGHT * (f - 1) + CASE_ROW_GAP_PX;
  return Math.max(300, Math.ceil(title + legend + layout.xAxes * xAxis + cases * row));
}

/**
 * Median per shape with its spread as a floating bar: p10–p90, or min–max for a case of fewer
 * than 10 samples (core/noise.ts spreadName, the name the terminal table gives it; the legend and
 * the title say "p10–p90, min–max where n < 10" when the cases have both kinds); one row per case, its label on the
 * left (readable at any count: side by side under the bars they crowded the dashboard's
 * default width), time on a log axis.
 */
export function timingsChart(run: ViewRun, p: Palette): ChartSpec {
  const cases = timedCases(run);
  const labels = cases.map(caseLabel);
  const ms = (ns: number): number => ns / 1e6;
  const counts = cases.map((c) => c.samplesNs.length);
  const names = new Set(counts.map(spreadName));
  const config: ChartConfiguration = {
    type: 'bar',
    data: {
      labels,
      datasets: [
        {
          type: 'bar',
          // The title's name for the spread, also where the cases have both kinds (it said "spread", unexplained, and a narrow panel's fitted title drops its parenthesis: s51 newcomer-ed L2).
          label: spreadsName(counts),
          data: cases.map((c) => [ms(c.p10Ns), ms(Math.max(c.p90Ns, c.p10Ns * 1.0001))]),
          backgroundColor: withAlpha(p.series[0]!, 0.35),
          borderColor: p.series[0],
          borderWidth: p.lineWidth,
          barPercentage: 0.6,
          minBarLength: 3,
          order: 1, // drawn first: the median marker stays on top
        } as ChartDataset<'bar', [number, number][]>,
        {
          type: 'line',
          label: 'median',
          data: cases.map((c) => ms(c.medianNs)),
          showLine: false,
          pointStyle: 'line',
          pointRotation: 90,
          pointRadius: 9,
          pointBorderWidth: p.lineWidth + 1.5,
          borderColor: p.series[1],
          backgroundColor: p.series[1],
          order: 0,
        } as ChartDataset<'line', number[]>,
      ],
    } as ChartConfiguration['data'],
    options: {
      ...baseOptions(p, `Kernel time per shape (median, ${spreadsName(counts)})`),
      indexAxis: 'y',
      scales: { y: caseAxis(p, labels), x: logAxis(p, 'time per call (ms, log)') },
    } as ChartConfiguration['options'],
  };
  return {
    id: 'timings',
    title: 'Kernel timings',
    ariaLabel: `Kernel time per shape: ${ariaList(cases.map((c) => `${caseLabel(c)} median ${formatDuration(c.medianNs)}, ${spreadName(c.samplesNs.length)} ${formatDuration(c.p10Ns)} to ${formatDuration(c.p90Ns)}`))}`,
    empty: cases.length === 0 ? noCasesText(run) : null,
    summary: noisyNote(cases),
    // 'p10–p90' (or 'min–max') and 'median' fit on one legend line at 340 px; with both kinds' longer name, two.
    height: caseChartHeight(cases.length, p, { xAxes: 1, legendLines: names.size > 1 ? 2 : 1 }),
    config,
    table: {
      columns: ['case', 'median', 'spread', 'from', 'to', 'n (samples)', 'max |err|'],
      rows: cases.map((c) => [caseLabel(c), formatDuration(c.medianNs), withNoisyMark(spreadName(c.samplesNs.length), c), formatDuration(c.p10Ns), formatDuration(c.p90Ns), formatCount(c.samplesNs.length), c.maxAbsErr.toExponential(2)]),
    },
  };
}

/** `text`, then the case's noisy mark (core/noise.ts noisyMark: "p10–p90, noisy 37.5x") where its spread is past NOISY_SPREAD_RATIO, as the CLI's table marks the row. */
function withNoisyMark(text: string, c: KernelCase): string {
  const mark = noisyMark({ p10: c.p10Ns, p90: c.p90Ns });
  return mark === null ? text : `${text}, ${mark}`;
}

/** What the noisy mark means (the CLI's caption's words, core/noise.ts NOISY_MARK_NOTE) where a case carries it, else null. */
function noisyNote(cases: readonly KernelCase[]): string | null {
  return cases.some((c) => noisyMark({ p10: c.p10Ns, p90: c.p90Ns }) !== null) ? `${NOISY_MARK_NOTE[0]!.toUpperCase()}${NOISY_MARK_NOTE.slice(1)}.` : null;
}

/** A case's fraction of its peak, with the CLI's caveat above 100 % (core/format fractionText); "—" for none. */
function peakFractionText(fraction: number | null | undefined): string {
  return fraction === null || fraction === undefined ? formatPercent(fraction) : fractionText(fraction, (f) => formatPercent(f));
}

/**
 * The roof a case's fraction of peak divides by, named with its value as the CLI's caption gives
 * it ("fp32 FMA peak 192 GFLOP/s", formatRate as the CLI): achieved / fractionOfPeak, the very figure the runner
 * divided by (runner/measure.ts summarizeCase), in the unit of the roof (KernelCase.bound).
 * The name alone when the case has no fraction.
 */
export function peakText(c: KernelCase): string {
  const name = c.ceiling ?? 'peak';
  if (c.fractionOfPeak === null || c.fractionOfPeak <= 0) return name;
  return `${name} ${isMemoryBound(c) ? formatRate((c.gbps * 1e9) / c.fractionOfPeak, 'B/s') : formatRate((c.gflops * 1e9) / c.fractionOfPeak, 'FLOP/s')}`;
}

/**
 * Achieved throughput as the fraction of the roof each case is held against (KernelCase.bound,
 * KernelCase.ceiling: GFLOP/s of a compute roof for prefill and MLA decode on a CPU, GB/s of the
 * memory bandwidth for GQA decode), one row per case on one % axis: the one comparison the two
 * kinds share. GB/s on a top axis over GFLOP/s at the bottom in one grid read decode bars against
 * the wrong axis (s48 newcomer-ed 6: 63 for ~40 GB/s). The rates and roofs are in the tooltip and
 * the table; a case with no measured roof has no bar, and the summary names it. A CPU decode case
 * read from cache, by the run's last-level cache's size or its pages' read-alone rate against a
 * DRAM read timed with them (core/format.ts fromCacheBy), keeps its bar and rate, but its tooltip, table row
 * and the summary say it was read from cache and by what: not a DRAM figure.
 */
export function throughputChart(run: ViewRun, p: Palette): ChartSpec {
  const cases = timedCases(run);
  const labels = cases.map(caseLabel);
  const against = [...new Set(cases.map((c) => (c.ceiling ? `${c.ceiling} (${isMemoryBound(c) ? 'memory' : 'compute'}-bound)` : null)).filter((c) => c !== null))];
  const base = baseOptions(p, 'Achieved throughput, % of the measured peak');
  const anyMemory = cases.some((c) => isMemoryBound(c));
  const anyCompute = cases.some((c) => !isMemoryBound(c));
  const percent = (c: KernelCase): number | null => (c.fractionOfPeak === null || c.fractionOfPeak === undefined ? null : c.fractionOfPeak * 100);
  const rateOf = (c: KernelCase): string => (isMemoryBound(c) ? formatRate(c.gbps * 1e9, 'B/s') : formatRate(c.gflops * 1e9, 'FLOP/s'));
  const unpeaked = cases.filter((c) => percent(c) === null);
  // A decode case read from cache: its share of the DRAM read peak is a cache figure (core/format.ts fromCacheText says by what).
  const cache = run.environment ?? undefined;
  const fractionOf = (c: KernelCase): string => {
    const fromCache = fromCacheText(c, cache);
    return `${peakFractionText(c.fractionOfPeak)}${fromCache ? ` (${fromCache})` : ''}`;
  };
  const cached = cases.filter((c) => c.fractionOfPeak != null && fromCacheText(c, cache) !== null);
  const config: ChartConfiguration = {
    type: 'bar',
    data: {
      labels,
      datasets: [
        ...(anyCompute ? [{ label: 'compute-bound (of GFLOP/s peak)', data: cases.map((c) => (isMemoryBound(c) ? null : percent(c))), backgroundColor: withAlpha(p.series[0]!, 0.7), borderColor: p.series[0], borderWidth: p.lineWidth, grouped: false, barPercentage: 0.6 }] : []),
        ...(anyMemory ? [{ label: 'memory-bound (of GB/s peak)', data: cases.map((c) => (isMemoryBound(c) ? percent(c) : null)), backgroundColor: partFill(p, withAlpha(p.series[2]!, 0.7), 'diagonal'), borderColor: p.series[2], borderWidth: p.lineWidth, grouped: false, barPercentage: 0.6 }] : []),
      ],
    } as ChartConfiguration['data'],
    options: {
      ...base,
      indexAxis: 'y',
      plugins: {
        ...base.plugins,
        tooltip: { callbacks: { label: (item: { dataIndex: number }) => { const c = cases[item.dataIndex]!; return `${rateOf(c)}: ${peakFractionText(c.fractionOfPeak)} of ${peakText(c)}${fromCacheText(c, cache) ? ` (${fromCacheText(c, cache)})` : ''}`; } } },
      },
      scales: {
        y: caseAxis(p, labels),
        // To 100 % at least: a bar's length is its share of its roof; past 100 % the roof was under-measured (the table says so).
        x: axis(p, '% of the measured peak', { type: 'linear', position: 'bottom', beginAtZero: true, suggestedMax: 100 }),
      },
    } as ChartConfiguration['options'],
  };
  const lines = [
    against.length > 0 ? `Each bar: the case's achieved rate as a share of this machine's measured ${against.join('; ')}; the rates are in the tooltip and table.` : null,
    unpeaked.length > 0 ? `No measured peak for ${ariaList(unpeaked.map(caseLabel))}: no bar (its rate is in the table).` : null,
    cached.length > 0 ? `Read from cache, not DRAM: ${ariaList(cached.map((c) => `${caseLabel(c)} (${fromCacheText(c, cache)!.replace(/^from cache: /, '').replace(/; not a DRAM figure$/, '')})`))}, timed on the same pages call after call; serving reads every layer's KV, which no cache holds.` : null,
    noisyNote(cases),
  ];
  return {
    id: 'throughput',
    title: 'Throughput',
    ariaLabel: `Achieved throughput: ${ariaList(cases.map((c) => `${caseLabel(c)} ${rateOf(c)}${c.fractionOfPeak == null ? '' : `, ${peakFractionText(c.fractionOfPeak)} of ${c.ceiling ?? 'peak'}${fromCacheText(c, cache) ? ` (${fromCacheText(c, cache)})` : ''}`}`))}`,
    empty: cases.length === 0 ? noCasesText(run) : null,
    summary: lines.filter((line) => line !== null).join(' ') || null,
    // One x axis; both kinds' legend items wrap onto two lines below ~450 px.
    height: caseChartHeight(cases.length, p, { xAxes: 1, legendLines: anyMemory && anyCompute ? 2 : 1 }),
    config,
    table: {
      columns: ['case', 'achieved', 'fraction of peak', 'peak'],
      rows: cases.map((c) => [caseLabel(c), rateOf(c), withNoisyMark(c.fractionOfPeak == null ? peakFractionText(c.fractionOfPeak) : fractionOf(c), c), peakText(c)]),
    },
  };
}

interface Ceiling {
  label: string;
  /** The unit alone ('fp32', 'AMX'), for the roof's label where the whole one does not fit. */
  short: string;
  flopsPerSec: number;
}

/**
 * Compute and bandwidth ceilings for the run's backend, from environment.peaks. The backend is
 * its cases'; before the first case of a streamed run, the environment's: the runner measures
 * the GPU (environment.gpu) only for the 'cuda' backend (runner/bench.ts measureBackendEnvironment).
 */
export function ceilings(run: ViewRun): { compute: Ceiling[]; bytesPerSec: number | null } {
  const peaks = run.environment?.peaks;
  const gpu = run.cases.length > 0 ? run.cases.some((c) => c.backend === 'cuda') : run.environment?.gpu !== undefined;
  const compute: Ceiling[] = [];
  if (gpu) {
    if (peaks?.gpuFlopsPerSec) compute.push({ label: 'GPU peak', short: 'GPU', flopsPerSec: peaks.gpuFlopsPerSec });
    return { compute, bytesPerSec: peaks?.gpuCopyBytesPerSec ?? null };
  }
  if (peaks?.fp32FlopsPerSec) compute.push({ label: 'fp32 FMA peak', short: 'fp32', flopsPerSec: peaks.fp32FlopsPerSec });
  if (peaks?.bf16AmxFlopsPerSec) compute.push({ label: 'bf16 AMX peak', short: 'AMX', flopsPerSec: peaks.bf16AmxFlopsPerSec });
  if (peaks?.avx512Bf16FlopsPerSec) compute.push({ label: 'bf16 AVX512-BF16 peak', short: 'AVX512-BF16', flopsPerSec: peaks.avx512Bf16FlopsPerSec });
  return { compute, bytesPerSec: peaks?.readBytesPerSec ?? null };
}

/**
 * What a roof line of the roofline chart carries besides its points: the label drawn on the
 * plot at the flat part's right end (`compute`), and the label drawn along the sloped part
 * (`bandwidth`, the memory roof; on the first roof only, as every roof shares that slope): each
 * as its texts, longest first, a shorter one written where the longer finds no clear place.
 */
interface RoofLabels {
  compute: string[] | null;
  bandwidth: string[] | null;
}

/** An axis-aligned box in canvas pixels (y down). */
export interface PixelBox {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** A straight piece of a drawn roof, in canvas pixels. */
export interface PixelSegment {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/**
 * One place a label may be written: `text` drawn at anchor (x, y) (its alignment point on the
 * alphabetic baseline), rotated by `angle` (radians, clockwise as canvas rotate() turns), aligned
 * `align`; `ink` is the text's ink box in the label's own frame, relative to the anchor (so for a
 * right-aligned label left = -width, right = 0, top = -ascent, bottom = descent).
 */
export interface LabelPlace {
  text: string;
  x: number;
  y: number;
  angle: number;
  align: 'left' | 'right';
  ink: PixelBox;
}

type Point = { x: number; y: number };

/** The four corners of `place`'s ink box widened by `pad` px on every side, in canvas pixels. */
export function labelCorners(place: LabelPlace, pad = 0): Point[] {
  const { ink } = place;
  const cos = Math.cos(place.angle);
  const sin = Math.sin(place.angle);
  return ([[ink.left - pad, ink.top - pad], [ink.right + pad, ink.top - pad], [ink.right + pad, ink.bottom + pad], [ink.left - pad, ink.bottom + pad]] as const)
    .map(([u, v]) => ({ x: place.x + u * cos - v * sin, y: place.y + u * sin + v * cos }));
}

/**
 * Whether two convex polygons (a segment is one with two corners) share interior points, by the
 * separating axis theorem: they do not when, on the normal of some edge of either, their
 * projections do not overlap. Touching counts as apart.
 */
export function convexOverlap(a: readonly Point[], b: readonly Point[]): boolean {
  for (const poly of [a, b]) {
    for (let i = 0; i < poly.length; i++) {
      const p = poly[i]!;
      const q = poly[(i + 1) % poly.length]!;
      const nx = p.y - q.y;
      const ny = q.x - p.x;
      if (nx === 0 && ny === 0) continue;
      const span = (pts: readonly Point[]) => pts.reduce(([lo, hi], r) => [Math.min(lo, r.x * nx + r.y * ny), Math.max(hi, r.x * nx + r.y * ny)], [Infinity, -Infinity]);
      const [aLo, aHi] = span(a);
      const [bLo, bHi] = span(b);
      // A hair of slack for rounding: a line exactly at the widened box's edge is apart.
      const eps = 1e-9 * Math.hypot(nx, ny);
      if (aHi <= bLo + eps || bHi <= aLo + eps) return false;
    }
  }
  return true;
}

/**
 * Where each label goes: of its candidate places (in order of preference) the first whose ink,
 * widened by `gap` - 1 px (a line exactly `gap` px away is clear), crosses no roof segment and no
 * label placed before it, and lies inside `area`. Labels are placed in the order given; a label
 * with no clear place is not written (null): the chart's data table still lists its figure.
 * Text metrics are the ink's (measureText's actualBoundingBox), so a descender ("p" of "peak")
 * keeps its distance too: a fixed offset from the em box let the labels touch their lines; a bf16
 * roof close above the fp32 one ran through its label; in a 340 px panel the peak label lay over
 * the rotated bandwidth label, which no check compared it with.
 */
export function placeLabels(
  candidates: ReadonlyArray<readonly LabelPlace[]>,
  segments: readonly PixelSegment[],
  area: PixelBox,
  gap: number,
): Array<LabelPlace | null> {
  const placed: Point[][] = [];
  const lines = segments.map((s) => [{ x: s.x1, y: s.y1 }, { x: s.x2, y: s.y2 }]);
  return candidates.map((options) => {
    const choice = options.find((place) => {
      const ink = labelCorners(place);
      if (ink.some((c) => c.x < area.left || c.x > area.right || c.y < area.top || c.y > area.bottom)) return false;
      const room = labelCorners(place, gap - 1);
      return !lines.some((l) => convexOverlap(l, room)) && !placed.some((p) => convexOverlap(p, room));
    }) ?? null;
    if (choice) placed.push(labelCorners(choice));
    return choice;
  });
}

/** Text metrics of the ink: advance width, ascent and descent from the baseline (px). */
interface InkMetrics {
  width: number;
  ascent: number;
  descent: number;
}

/**
 * A compute roof's label places: right-aligned at `right`, its ink `gap` px above the roof's flat
 * part (pixel row y), else `gap` px below it.
 */
export function computeLabelPlaces(text: string, m: InkMetrics, y: number, right: number, gap: number): LabelPlace[] {
  const ink = { left: -m.width, right: 0, top: -m.ascent, bottom: m.descent };
  return [y - gap - m.descent, y + gap + m.ascent].map((baseline) => ({ text, x: right, y: baseline, angle: 0, align: 'right' as const, ink }));
}

/**
 * The bandwidth label's places along the roofs' shared slope from `a` to `b` (pixels), rotated to
 * it: starting a quarter, a tenth, then 8 px of the way up, its ink `gap` px above the line (the
 * baseline lifted off it in the rotated frame, so descenders keep the gap too), else as far below
 * it; then the same for each shorter text in `texts` (e.g. the rate alone, for a narrow panel).
 */
export function bandwidthLabelPlaces(texts: ReadonlyArray<{ text: string; m: InkMetrics }>, a: Point, b: Point, gap: number): LabelPlace[] {
  const angle = Math.atan2(b.y - a.y, b.x - a.x);
  const length = Math.hypot(b.x - a.x, b.y - a.y);
  const [cos, sin] = [Math.cos(angle), Math.sin(angle)];
  const out: LabelPlace[] = [];
  for (const { text, m } of texts) {
    const ink = { left: 0, right: m.width, top: -m.ascent, bottom: m.descent };
    for (const side of ['above', 'below'] as const) {
      // The line's normal on the label's upper side is (sin, -cos) in canvas pixels.
      const off = side === 'above' ? gap + m.descent : -(gap + m.ascent);
      for (const along of [0.25 * length, 0.1 * length, 8]) {
        out.push({ text, x: a.x + along * cos + off * sin, y: a.y + along * sin - off * cos, angle, align: 'left', ink });
      }
    }
  }
  return out;
}

/**
 * Chart.js plugin that writes each roof's labels on the plot, in the roof's colour on the
 * background with a halo of it: the compute peaks at the right end, highest roof first, then the bandwidth
 * along the slope, each clear of every roof line and of the other labels (placeLabels). Roofs are
 * labelled here and not in the legend, which at the dashboard's default width took five rows and
 * left ~70 px of plot.
 */
/** The roof-label plugin's options (options.plugins.attnscopeRoofLabels), so a theme change reaches a chart already drawn. */
interface RoofLabelOptions {
  background: string;
  font: string;
}

/**
 * Pixels from a roof label's ink to the centre of any roof line: the halo (1.5 px of a 3 px
 * stroke), half the line (0.75 px, 1.5 in high contrast) and 2 px clear.
 */
const ROOF_LABEL_GAP = 5;

/** Pixels from a compute roof's label's ink to the plot's right edge where it has a clear place there: its halo (2 px) and 6 px clear of the border line. */
export const ROOF_LABEL_EDGE = 8;

const roofLabelPlugin: Plugin = {
  id: 'attnscopeRoofLabels',
  afterDatasetsDraw(chart, _args, options: RoofLabelOptions) {
    const { ctx, chartArea: area } = chart;
    const x = chart.scales['x']!;
    const y = chart.scales['y']!;
    ctx.save();
    ctx.font = options.font;
    ctx.lineJoin = 'round';
    ctx.textBaseline = 'alphabetic';
    const measure = (text: string): InkMetrics => {
      const m = ctx.measureText(text);
      return { width: m.width, ascent: m.actualBoundingBoxAscent, descent: m.actualBoundingBoxDescent };
    };
    const roofs = chart.data.datasets
      .map((ds, i) => ({ ds, roof: (ds as { roof?: RoofLabels }).roof, visible: chart.isDatasetVisible(i) }))
      .filter((r): r is { ds: typeof r.ds; roof: RoofLabels; visible: true } => r.roof !== undefined && r.visible)
      .map(({ ds, roof }) => ({ roof, colour: String(ds.borderColor), pts: (ds.data as Array<{ x: number; y: number }>).map((q) => ({ x: x.getPixelForValue(q.x), y: y.getPixelForValue(q.y) })) }));
    const segments = roofs.flatMap(({ pts }) => pts.slice(1).map((b, k) => ({ x1: pts[k]!.x, y1: pts[k]!.y, x2: b.x, y2: b.y })));
    const compute = roofs.filter((r) => r.roof.compute).sort((r, s) => r.pts[r.pts.length - 1]!.y - s.pts[s.pts.length - 1]!.y);
    // ROOF_LABEL_EDGE in from the plot's right edge: at 4 px the label's halo touched the border line there (s50 newcomer-ed 8,
    // at 602 px). 4 px where that side of the roof has no clear place at 8 (a bf16 roof's label above it in a 340 px panel
    // crossed its slope at 8, and below it took the fp32 label's room): each text above its roof, at 8 then 4, then below.
    const right = Math.min(area.right, ...compute.map((r) => r.pts[r.pts.length - 1]!.x));
    const labelled = [
      ...compute.map((r) => ({ colour: r.colour, places: r.roof.compute!.flatMap((text) => {
        const [far, near] = [ROOF_LABEL_EDGE, 4].map((edge) => computeLabelPlaces(text, measure(text), r.pts[r.pts.length - 1]!.y, right - edge, ROOF_LABEL_GAP));
        return [far![0]!, near![0]!, far![1]!, near![1]!];
      }) })),
      ...roofs.filter((r) => r.roof.bandwidth && r.pts.length >= 2).map((r) => ({
        colour: r.colour,
        places: bandwidthLabelPlaces(r.roof.bandwidth!.map((text) => ({ text, m: measure(text) })), r.pts[0]!, r.pts[1]!, ROOF_LABEL_GAP),
      })),
    ];
    // Labels may use the room between the title and the plot: the highest roof's label needs ~17 px
    // above it, more than the axis's headroom gives a short plot.
    const title = (chart as unknown as { titleBlock?: { bottom: number } }).titleBlock;
    const bounds = { left: area.left, right: area.right, top: Math.min(area.top, title ? title.bottom + 2 : 0), bottom: area.bottom };
    const chosen = placeLabels(labelled.map((l) => l.places), segments, bounds, ROOF_LABEL_GAP);
    labelled.forEach(({ colour }, k) => {
      const place = chosen[k];
      if (!place) return;
      ctx.save();
      ctx.translate(place.x, place.y);
      ctx.rotate(place.angle);
      ctx.textAlign = place.align;
      // The background under the ink and 2 px round it, so a grid line behind a label does not
      // strike it through; roof lines are kept further off (ROOF_LABEL_GAP), so none is hidden.
      ctx.fillStyle = options.background;
      ctx.fillRect(place.ink.left - 2, place.ink.top - 2, place.ink.right - place.ink.left + 4, place.ink.bottom - place.ink.top + 4);
      ctx.strokeStyle = options.background;
      ctx.lineWidth = 3;
      ctx.strokeText(place.text, 0, 0);
      ctx.fillStyle = colour;
      ctx.fillText(place.text, 0, 0);
      ctx.restore();
    });
    ctx.restore();
  },
};

/**
 * Roofline: arithmetic intensity (FLOP/byte) vs achieved GFLOP/s, log–log, with the machine's
 * measured roofs (Williams, Waterman, Patterson, CACM 2009: attainable = min(peak, intensity ×
 * bandwidth)), each labelled on the plot; the legend lists only the two kinds of point.
 */
export function rooflineChart(run: ViewRun, p: Palette): ChartSpec {
  const cases = timedCases(run).filter((c) => c.bytes > 0 && c.flops > 0);
  const points = cases.map((c) => ({ x: c.flops / c.bytes, y: c.gflops, label: caseLabel(c), decode: c.kernel === 'paged_decode' }));
  const { compute, bytesPerSec } = ceilings(run);
  const xs = points.map((q) => q.x);
  const xMin = Math.min(0.1, ...xs) / 2;
  const xMax = Math.max(1000, ...xs) * 2;
  const bandwidthLabel = bytesPerSec ? `read bandwidth ${formatRate(bytesPerSec, 'B/s')}` : null;
  const bandwidthTexts = bytesPerSec ? [bandwidthLabel!, formatRate(bytesPerSec, 'B/s')] : null;
  const roofs: Array<ChartDataset<'line', Array<{ x: number; y: number }>> & { roof: RoofLabels }> = [];
  compute.forEach((ceil, i) => {
    const peakG = ceil.flopsPerSec / 1e9;
    const line = bytesPerSec
      ? [{ x: xMin, y: (xMin * bytesPerSec) / 1e9 }, { x: ceil.flopsPerSec / bytesPerSec, y: peakG }, { x: xMax, y: peakG }]
      : [{ x: xMin, y: peakG }, { x: xMax, y: peakG }];
    const label = `${ceil.label} ${formatRate(ceil.flopsPerSec, 'FLOP/s')}`;
    roofs.push({ type: 'line', label, roof: { compute: [label, `${ceil.short} ${formatRate(ceil.flopsPerSec, 'FLOP/s')}`], bandwidth: i === 0 ? bandwidthTexts : null }, data: line, borderColor: p.series[4 + (i % 2)], borderWidth: p.lineWidth, borderDash: i === 0 ? [] : [6, 4], pointRadius: 0, fill: false });
  });
  if (compute.length === 0 && bytesPerSec) {
    roofs.push({ type: 'line', label: bandwidthLabel!, roof: { compute: null, bandwidth: bandwidthTexts }, data: [{ x: xMin, y: (xMin * bytesPerSec) / 1e9 }, { x: xMax, y: (xMax * bytesPerSec) / 1e9 }], borderColor: p.series[4], borderWidth: p.lineWidth, pointRadius: 0, fill: false });
  }
  // A streamed run's environment, with the peaks the runner measures before any case, comes in its
  // `environment` message (core/protocol/runner.ts RunnerEnvironmentEvent).
  const noRoofs = run.status === 'running' && !run.environment ? 'Roofline (roofs: this machine’s measured peaks, drawn once measured)' : 'Roofline (no measured peaks in this run)';
  const base = baseOptions(p, bytesPerSec || compute.length ? 'Roofline (roofs: this machine’s measured peaks)' : noRoofs);
  const config: ChartConfiguration = {
    type: 'scatter',
    data: {
      datasets: [
        { type: 'scatter', label: 'prefill (flash_fwd)', data: points.filter((q) => !q.decode).map(({ x, y }) => ({ x, y })), backgroundColor: p.series[0], borderColor: p.series[0], pointRadius: 5 },
        { type: 'scatter', label: 'decode (paged_decode)', data: points.filter((q) => q.decode).map(({ x, y }) => ({ x, y })), backgroundColor: p.series[2], borderColor: p.series[2], pointRadius: 5, pointStyle: 'rectRot' },
        ...roofs,
      ],
    } as ChartConfiguration['data'],
    options: {
      ...base,
      plugins: {
        ...base.plugins,
        attnscopeRoofLabels: { background: p.background, font: `${p.fontSize - 1}px ${p.fontFamily}` } satisfies RoofLabelOptions,
        legend: {
          position: 'bottom',
          labels: { ...base.plugins!.legend!.labels, usePointStyle: true, boxHeight: 8, filter: (item: { datasetIndex?: number }, data: { datasets: Array<{ roof?: RoofLabels }> }) => !data.datasets[item.datasetIndex ?? 0]?.roof },
        },
      },
      scales: {
        x: logAxis(p, 'arithmetic intensity (FLOP/byte, log)', { min: xMin, max: xMax }),
        // Room above the highest roof for its label.
        y: logAxis(p, 'GFLOP/s (log)', { max: 3 * Math.max(1, ...points.map((q) => q.y), ...roofs.flatMap((r) => r.data.map((d) => d.y))) }),
      },
    } as ChartConfiguration['options'],
    plugins: [roofLabelPlugin],
  };
  return {
    id: 'roofline',
    title: 'Roofline',
    ariaLabel: `Roofline, achieved GFLOP/s against arithmetic intensity: roofs ${[...compute.map((c) => `${c.label} ${formatRate(c.flopsPerSec, 'FLOP/s')}`), ...(bandwidthLabel ? [bandwidthLabel] : [])].join(', ') || 'not measured'}; ${ariaList(points.map((q) => `${q.label} ${formatSignificant(q.x)} FLOP/byte, ${formatRate(q.y * 1e9, 'FLOP/s')}`))}`,
    // A streamed run's roofs are drawn from its environment message on, before its first case.
    empty: points.length === 0 && !(run.status === 'running' && roofs.length > 0) ? noCasesText(run) : null,
    config,
    table: {
      columns: ['case', 'FLOP/byte', 'GFLOP/s'],
      rows: [
        ...points.map((q) => [q.label, formatSignificant(q.x), formatSignificant(q.y)]),
        ...compute.map((c) => [`roof: ${c.label}`, '', formatSignificant(c.flopsPerSec / 1e9)]),
        ...(bytesPerSec ? [[`roof: read bandwidth (${formatRate(bytesPerSec, 'B/s')})`, '', '']] : []),
      ],
    },
  };
}

/**
 * The device the memory bar is of: its label (device.gpu's name, else "device", with its memory:
 * device.memory_gib as written, else device.gpu's CUDA total from the estimate), its bytes (null
 * when unknown) and where they come from (Estimate pool.deviceSource, '' when unknown).
 */
function deviceOf(run: ViewRun): { label: string; bytes: number | null; source: string } {
  const d = run.profile?.device;
  const name = d?.gpu ?? 'device';
  if (d && d.memoryGib !== null) return { label: `${name} ${d.memoryGib} GiB`, bytes: d.memoryGib * GIB, source: run.estimate?.pool.deviceSource || `device.memory_gib ${d.memoryGib}` };
  const bytes = run.estimate?.pool.deviceMemoryBytes ?? 0;
  if (bytes > 0) return { label: `${name} ${formatGib(bytes)}`, bytes, source: run.estimate!.pool.deviceSource };
  const gpus = d ? gpuCount(d) : 1;
  return { label: d?.gpu ?? (gpus > 1 ? `one of ${gpus} GPUs` : 'memory'), bytes: null, source: '' };
}

/** The device line's options (options.plugins.attnscopeDeviceLine): where (GiB on x), its label, and how it is drawn. */
export interface DeviceLineOptions {
  gib: number;
  text: string;
  colour: string;
  background: string;
  width: number;
  font: string;
}

/**
 * Chart.js plugin that draws the device's capacity across the memory bar: a vertical line at
 * `gib`, over the bars, labelled at its top inside the plot (right of the line, or left of it
 * where the label would pass the plot's right edge), on a halo of the background. The label was
 * an extra x tick, printed over the axis's own tick beside it ("79.2" by "80" read "79.280", s36).
 */
export const deviceLinePlugin: Plugin = {
  id: 'attnscopeDeviceLine',
  afterDatasetsDraw(chart, _args, o: DeviceLineOptions) {
    if (typeof o?.gib !== 'number') return; // a chart whose parts fit the device: no line
    const { ctx, chartArea: area } = chart;
    const x = chart.scales['x']!.getPixelForValue(o.gib);
    if (!(x >= area.left && x <= area.right)) return;
    ctx.save();
    ctx.strokeStyle = o.colour;
    ctx.lineWidth = o.width;
    ctx.beginPath();
    ctx.moveTo(x, area.top);
    ctx.lineTo(x, area.bottom);
    ctx.stroke();
    ctx.font = o.font;
    ctx.textBaseline = 'alphabetic';
    const m = ctx.measureText(o.text);
    const gap = o.width / 2 + 3;
    const left = x + gap + m.width <= area.right ? x + gap : x - gap - m.width;
    const baseline = area.top + m.actualBoundingBoxAscent + 2;
    ctx.lineJoin = 'round';
    ctx.lineWidth = 3;
    ctx.strokeStyle = o.background;
    ctx.strokeText(o.text, left, baseline);
    ctx.fillStyle = o.colour;
    ctx.fillText(o.text, left, baseline);
    ctx.restore();
  },
};

/** A memory part no part of vLLM's holds (free, left alone): drawn as an outline, not a fill (memoryChart). */
const OUTLINED = 'outlined';

/**
 * One device's memory split: weights (its 1/tp share under tensor parallelism) / KV pool /
 * activation peak / engine reserves / free, in GiB (one stacked bar). When the pool is not sized (a bare config.json: no device memory, GPU or KV
 * budget), two bars instead, weights and the KV cache of one sequence of attention.seqLen tokens,
 * with the estimate's own note on what to set above them.
 */
export function memoryChart(run: ViewRun, p: Palette): ChartSpec {
  const e = run.estimate;
  const unsized = e !== null && e.pool.budgetSource === 'none';
  // Each part: its label, bytes, colour and mark (the mark tells the parts apart without colour).
  const parts: Array<[string, number, string, Mark]> = [];
  const gpus = run.profile ? gpuCount(run.profile.device) : 1;
  const device = deviceOf(run);
  let labels: string[] = [`${device.label}${gpus > 1 && device.bytes !== null ? ` (each of ${gpus})` : ''}`];
  let datasets: ChartDataset<'bar', Array<number | null>>[];
  let summary: string | null = device.source ? `Device memory: ${device.source}.` : null;
  let needed = 0; // bytes of the parts on the device (sized pool): what `free` is left of
  if (e && unsized) {
    const seq = e.attention.seqLen;
    labels = ['weights', `KV, ${formatCount(seq)} tokens`];
    parts.push(['weights', e.weightsBytes, p.series[0]!, 'none'], [`KV cache of one ${formatCount(seq)}-token sequence`, e.kvBytesForSeqLen, p.series[2]!, 'diagonal']);
    datasets = parts.map(([label, bytes, color, mark], i) => ({ label, data: i === 0 ? [bytes / GIB, null] : [null, bytes / GIB], backgroundColor: partFill(p, color, mark), borderColor: p.foreground, borderWidth: p.kind.startsWith('high') ? 2 : 0, grouped: false }));
    summary = [`${formatBytes(e.weightsBytes)} weights (${formatParams(e.paramsTotal)} parameters)`, `${formatBytes(e.kvBytesPerToken)} KV per token${gpus > 1 ? ' per GPU' : ''}`, ...e.notes].join(' · ');
  } else {
    if (e) {
      // One GPU's memory: under tensor parallelism each holds 1/tp of the weights (the pool and
      // activations are per GPU already). Runs recorded before the per-GPU figure: the total.
      // Under pipeline parallelism one stage's GPU (Estimate.pipeline.stage: the stage with the fewest blocks).
      const tp = run.profile?.device.tensorParallelSize ?? 1;
      const stage = e.pipeline ? `stage ${e.pipeline.stage + 1} of ${e.pipeline.size}` : '';
      parts.push([tp > 1 || stage ? `weights (${[stage, tp > 1 ? `1/${tp} per GPU` : 'per GPU'].filter(Boolean).join(', ')})` : 'weights', e.weightsBytesPerGpu ?? e.weightsBytes, p.series[0]!, 'none']);
      parts.push(['KV pool', e.pool.budgetBytes, p.series[2]!, 'diagonal']);
      // A pool the profile gives (kv_cache.memory_gib or num_pages) is not sized from the device:
      // the estimate models no activation peak or engine reserve then (core/estimate: 0), so the
      // bar shows none ("activations (peak) 0 B" read as measured), and what is left of the device
      // is not free but those unmodelled parts and the free memory together (s33 newcomer-ed 7).
      const given = e.pool.budgetSource === 'explicit' ? (typeof run.profile?.kvCache.numPages === 'number' ? 'kv_cache.num_pages' : 'kv_cache.memory_gib') : null;
      if (given === null) {
        parts.push(['activations (peak)', e.pool.activationPeakBytes, p.series[1]!, 'dots']);
        // Runs recorded before engine reserves were modelled have no such field.
        const reserve = e.pool.engineReserveBytes ?? 0;
        if (reserve > 0) parts.push(['engine reserves', reserve, p.series[3] ?? p.muted, 'cross']);
      }
      needed = parts.reduce((sum, [, bytes]) => sum + bytes, 0);
      if (device.bytes !== null) {
        // vLLM uses gpu_memory_utilization of the device and leaves the rest alone: that rest is
        // not free memory to a user (s33 newcomer read 7.92 GiB of "free" as spare).
        const util = run.profile?.device.gpuMemoryUtilization ?? 1;
        // The legend drops the parenthesised part where it does not fit (fit.ts): "rest under gpu_memory_utilization 0.9: activations, reserves, free".
        const under = util < 1 ? ` under gpu_memory_utilization ${util}` : '';
        const rest = given === null ? `free${under ? ` (${under.trim()})` : ''}` : `rest${under}: activations, reserves, free (not modelled: ${given} is given)`;
        const usable = device.bytes * util;
        // A sized pool takes what the device leaves (core/estimate: usable − weights − activations − reserves), so what is
        // left over is float rounding: "free 1 B" on gpt-oss-20b on an A10 (s53 newcomer-ed F5). Below one page is 0.
        const left = Math.max(0, usable - needed);
        parts.push([rest, given === null && left < e.pageBytes ? 0 : left, OUTLINED, 'none']);
        if (util < 1) parts.push([`left alone (1 − gpu_memory_utilization)`, Math.max(0, device.bytes - Math.max(usable, needed)), OUTLINED, 'horizontal']);
      }
    }
    // Parts parted by a line: the foreground's in high contrast, else the background's. Memory no part of vLLM's holds (free, left
    // alone) is drawn as the pool chart draws its free pages: an outline in the theme's muted text colour, unfilled, the part left
    // alone ruled in that colour too. Filled with that colour at 35 % and 12 % they were 1.8:1 and 1.2:1 against Dark Modern's
    // #1f1f1f, nearly invisible (s50 newcomer-ed 7); the muted text colour is 6.1:1 there, 4.9:1 in Light Modern (charts.test).
    datasets = parts.map(([label, bytes, color, mark]) => color === OUTLINED
      ? { label, data: [bytes / GIB], backgroundColor: mark === 'none' ? withAlpha(p.background, 0) : partFill(p, p.background, mark, p.muted), borderColor: p.muted, borderWidth: p.lineWidth, borderSkipped: false }
      : { label, data: [bytes / GIB], backgroundColor: partFill(p, color, mark), borderColor: p.kind.startsWith('high') ? p.foreground : p.background, borderWidth: p.kind.startsWith('high') ? 2 : 1 });
  }
  // Parts that need more than the device (DeepSeek-V3's 627 GiB of weights on 80 GiB): the bar
  // runs past it, so the device's capacity is drawn as a line across it and the summary says so.
  const overGib = device.bytes !== null && needed > device.bytes ? device.bytes / GIB : null;
  if (overGib !== null) {
    const over = `These parts need ${formatGib(needed)}, ${(needed / device.bytes!).toFixed(1)}x the device's ${formatGib(device.bytes!)} (the line): they do not fit.`;
    summary = summary ? `${summary} ${over}` : over;
  }
  const deviceLine: DeviceLineOptions | null = overGib === null ? null : {
    gib: overGib, text: formatGib(device.bytes!), colour: p.foreground, background: p.background, width: 2 * p.lineWidth + 1, font: `${p.fontSize - 1}px ${p.fontFamily}`,
  };
  const base = baseOptions(p, unsized ? 'Memory (estimate; the KV pool is not sized)' : 'Memory breakdown (estimate)');
  const config: ChartConfiguration = {
    type: 'bar',
    data: { labels, datasets } as ChartConfiguration['data'],
    options: {
      ...base,
      plugins: { ...base.plugins, legend: { ...base.plugins!.legend, display: !unsized }, ...(deviceLine ? { attnscopeDeviceLine: deviceLine } : {}) },
      indexAxis: 'y',
      scales: { x: axis(p, 'GiB', { stacked: true, beginAtZero: true }), y: axis(p, '', { stacked: true }) },
    } as ChartConfiguration['options'],
    // Always: the dashboard updates a drawn chart's data and options, not its plugins.
    plugins: [deviceLinePlugin],
  };
  const paramRows = e ? Object.entries(e.params ?? {}).filter(([, n]) => n > 0).map(([part, n]) => [`parameters: ${part}`, formatCount(n), formatParams(n)]) : [];
  return {
    id: 'memory',
    title: 'Memory',
    // Each part with its size, in the bar's order; the device and whether the parts fit it.
    ariaLabel: `${unsized ? 'Memory (estimate; the KV pool is not sized)' : `Memory breakdown (estimate) of ${labels[0]}`}: ${parts.map(([label, bytes]) => `${label} ${formatBytes(bytes)}`).join('; ')}${overGib !== null ? `. They need ${formatGib(needed)}, more than the device's ${formatGib(device.bytes!)}: they do not fit` : ''}`,
    empty: e ? null : 'No estimate for this run.',
    summary,
    height: unsized ? 180 : undefined,
    config,
    table: {
      // 'exact': bytes, pages or parameters as the row says, with thousands separators (core/format formatCount, as the hints write them).
      columns: ['part', 'exact', 'size'],
      rows: [
        ...parts.map(([label, bytes]) => [label, formatCount(bytes), formatBytes(bytes)]),
        // kvBytesPerToken is one GPU's under tensor parallelism (its share of the KV heads), as the CLI says.
        ...(e ? [[gpus > 1 ? 'KV per token per GPU (all layers)' : 'KV per token (all layers)', formatCount(e.kvBytesPerToken), formatBytes(e.kvBytesPerToken)], ['pool pages', formatCount(e.pool.pages), `${formatCount(e.pool.tokens)} tokens`]] : []),
        ...paramRows,
      ],
    },
  };
}

/**
 * The time axis of the charts drawn from pool samples: 0 to the last sample's time (chart.js
 * rounded a run ending at 100.4 s up to an axis ending at 120 s of nothing), no tick at the end.
 */
export function simulatedTimeAxis(p: Palette, samples: readonly PoolSample[]): Record<string, unknown> {
  const span = samples.length > 0 ? { min: Math.min(0, samples[0]!.t), max: samples[samples.length - 1]!.t } : {};
  const base = axis(p, 'simulated time (s)', { type: 'linear', ...span });
  return { ...base, ticks: { ...(base['ticks'] as object), includeBounds: false } };
}

/** Page size for converting token counts to pages: the pool's, else the profile's. */
function poolPageSize(run: ViewRun): number | null {
  return run.pool?.pageSize ?? run.profile?.kvCache.pageSize ?? null;
}

/** A stacked area of the pool timeline. */
function poolArea(p: Palette, label: string, data: Array<{ x: number; y: number }>, color: string, alpha: number, dash: number[] = []): ChartDataset<'line', Array<{ x: number; y: number }>> {
  return { type: 'line', label, data, yAxisID: 'y', stack: 'pages', fill: true, backgroundColor: withAlpha(color, alpha), borderColor: color, borderWidth: p.lineWidth, borderDash: dash, pointRadius: 0, order: 1, normalized: true };
}

/**
 * The pool's summary in one line: peak and mean occupancy (held pages / pool, said "held": the
 * pool chart's axis names its own peak, held + cached pages, apart; one word for both read as two
 * figures for one thing, "the peak is 20.8%" under "peak occupancy 1.2%", s49), preemptions, the
 * prefix-cache hit rate; from the run's PoolSummary, or from the samples while the run streams.
 */
export function poolSummaryLine(run: ViewRun): string | null {
  const s = run.pool?.summary;
  if (s) {
    // Data parallelism (s41 newcomer-ed F2: the dashboard never said there were several engines):
    // the engines first, each figure's scope as the CLI says it, then each engine's line.
    const dp = run.pool?.dataParallel;
    const parts = [
      ...(dp ? [`${dataParallelDeployment(dp)} (data_parallel_size ${dp.size}): ${dpScopeText(dp)}`] : []),
      `peak occupancy ${formatPercent(s.peakOccupancy)} held (mean ${formatPercent(s.meanOccupancy)})${dp ? ' per engine' : ''}`,
      `${formatCount(s.preemptions)} preemption${s.preemptions === 1 ? '' : 's'}`,
      `prefix-cache hit rate ${formatPercent(s.prefixHitRate)}`,
    ];
    parts.push(`${formatCount(s.completed)} of ${formatCount(s.requests)} requests completed${s.rejected ? `, ${formatCount(s.rejected)} rejected` : ''}`);
    if (dp) parts.push(dataParallelEngines(dp));
    return parts.join(' · ');
  }
  const samples = run.poolSamples;
  if (samples.length === 0) return null;
  const last = samples[samples.length - 1]!;
  const pool = last.pagesUsed + last.pagesCached + last.pagesFree;
  const peak = samples.reduce((m, x) => Math.max(m, x.pagesUsed), 0); // not Math.max(...): a long run's samples overflow the stack
  return `so far: peak occupancy ${formatPercent(pool > 0 ? peak / pool : 0)} held · ${formatCount(last.preempted)} preempted now · prefix-cache hit rate ${formatPercent(last.prefixHitRate)}`;
}

/**
 * Which engine the pool samples are of, for the pool and queue charts' titles: " (engine 2 of 4)"
 * under data parallelism (ViewRun.samplesEngine; absent: engine 1, whose the run's own samples
 * are), else "".
 */
export function engineOfSamples(run: Pick<ViewRun, 'pool' | 'samplesEngine'>): string {
  const dp = run.pool?.dataParallel;
  return dp ? ` (engine ${(run.samplesEngine ?? 0) + 1} of ${dp.size})` : '';
}

/**
 * `run` as the pool and queue charts draw engine `engine` (0-based) of a data-parallel run: that
 * engine's samples (DataParallelResult.replicas[engine].samples; engine 1's are the run's own
 * poolSamples) and ViewRun.samplesEngine, which their titles and the queue's peak lines read
 * (s41 newcomer-ed F2: engine 1 only, with no way to see another). `run` itself for engine 1, an
 * engine the run has not, or a run of one engine. An engine whose samples the run lacks (saved
 * before they were kept) has none, and the charts say why (noPoolText).
 */
export function engineView(run: ViewRun, engine: number): ViewRun {
  const dp = run.pool?.dataParallel;
  if (!dp || !Number.isInteger(engine) || engine <= 0 || engine >= dp.size) return run;
  return { ...run, poolSamples: dp.replicas[engine]?.samples ?? [], samplesEngine: engine };
}

/**
 * The Engine select's options under data parallelism: the engines whose pool samples the run keeps
 * (DataParallelResult.sampledEngines: 1 … 8 and the busiest; every engine in runs before s45), each
 * `engine` (0-based rank) with its label, "engine 2 of 4: 494 requests, peak running 291", the busiest
 * past engine 8 with ", the busiest", in rank order; [] for a run of one engine.
 */
export function engineOptions(run: Pick<ViewRun, 'pool'>): Array<{ engine: number; label: string }> {
  const dp = run.pool?.dataParallel;
  if (!dp) return [];
  const kept = dp.sampledEngines ?? dp.replicas.map((_, i) => i);
  return kept.filter((i) => i < dp.replicas.length).map((i) => {
    const r = dp.replicas[i]!;
    const busiest = i >= DP_SAMPLED_ENGINES ? ', the busiest' : '';
    return { engine: i, label: `engine ${formatCount(i + 1)} of ${formatCount(dp.size)}: ${formatCountOf(r.requests, 'request')}${r.peakConcurrency !== undefined ? `, peak running ${formatCount(r.peakConcurrency)}` : ''}${busiest}` };
  });
}

/** Most samples the pool chart draws (its table lists them all): enough for a chart's width in pixels, and one draw of the page stays short. */
export const POOL_CHART_MAX_POINTS = 400;

/**
 * At most `max` of `samples`, the same for every series (the areas stack sample by sample): the
 * first and the last, and of each run of consecutive samples the one holding the most pages, so
 * the peak occupancy is drawn.
 */
export function thinSamples(samples: readonly PoolSample[], max = POOL_CHART_MAX_POINTS): readonly PoolSample[] {
  if (samples.length <= max) return samples;
  const out: PoolSample[] = [samples[0]!];
  const inner = max - 2;
  const step = (samples.length - 2) / inner;
  for (let b = 0; b < inner; b++) {
    let best = samples[1 + Math.floor(b * step)]!;
    for (let i = 1 + Math.floor(b * step); i < 1 + Math.floor((b + 1) * step); i++) if (samples[i]!.pagesUsed > best.pagesUsed) best = samples[i]!;
    out.push(best);
  }
  out.push(samples[samples.length - 1]!);
  return out;
}

/**
 * Page-pool timeline, stacked pages that add up to the pool: held pages split into the pages'
 * worth of tokens they hold (tokens / page_size) and internal waste (held − that); then the pages
 * free for allocation, split as vLLM counts them into cached (no holder, kept for the prefix
 * cache, evicted LRU when a page is needed) and free (no holder, no hash). Held pages are filled,
 * the pages free for allocation are not (a dashed line marks where the cached ones end), so the
 * pool looks as full as it is held. The y axis runs a step above the run's peak, up to the pool's
 * top (poolAxisTop; the axis title gives the pool and the share of the held + cached peak below it). The time axis spans the samples.
 * Internal fragmentation (%) on the right axis, drawn over the areas; preemptions so far
 * (PoolSample.preemptions, counted over every step) on a second right axis. A series that is zero
 * throughout is left out (with its axis). Over POOL_CHART_MAX_POINTS samples, thinSamples picks
 * those drawn.
 */
/**
 * What each chart of a refused run says (ViewRun status 'refused': its profile had errors, the
 * header names the first): not run, where a card's own advice (add a workload) would mislead.
 */
export const REFUSED_TEXT = 'Not run: the profile has errors (the first is named above; the Problems panel shows where).';

/**
 * What the pool charts (page pool, queue) say when a run has no pool samples: waiting while it
 * runs; where it stopped when it was cancelled during its simulation (core/format
 * poolCancelledText); that it stopped before its simulation ended when it failed or was cancelled
 * otherwise (its profile may well have a workload); that it was not run when it was refused
 * (REFUSED_TEXT: its profile's workload is not read then, s48 newcomer-ed 4); else that the
 * profile has none to simulate, or that none was simulated.
 */
export function noPoolText(run: Pick<ViewRun, 'status' | 'error' | 'profile' | 'poolCancelled' | 'samplesEngine'>): string {
  if (run.status === 'refused') return REFUSED_TEXT;
  if (run.samplesEngine !== undefined) return `This run keeps engine 1's pool samples only (saved before each engine's were kept): pick engine 1, or run it again.`;
  if (run.status === 'running') return 'Waiting for the pool simulation…';
  if (run.status === 'cancelled' && run.poolCancelled) return `This run was cancelled ${poolCancelledText(run.poolCancelled)}.`;
  if (run.status === 'failed' || run.status === 'cancelled') return `This run ${stoppedHow(run)} before its pool simulation ended.`;
  return run.profile?.workload ? 'This run has no pool simulation.' : 'This run has no pool simulation (add a workload to the profile).';
}

/**
 * How a run that ended early ended, after "This run": "failed", "was cancelled", or "was interrupted
 * (window reloaded or closed)" for one a reload stopped (core/format isInterrupted: saved as
 * cancelled, said "interrupted" everywhere it shows).
 */
export function stoppedHow(run: { status: string; error?: string | null }): string {
  return run.status === 'failed' ? 'failed' : isInterrupted(run) ? `was ${INTERRUPTED}` : 'was cancelled';
}

/**
 * The page-pool chart's y axis top, pages: the run's peak (held + cached pages, the stack's top)
 * with a quarter above it, rounded up to 1, 2, 2.5 or 5 × 10^k, and the pool's size where that
 * reaches it (`numPages`, when known). A run that holds little of its pool gets an axis to its data
 * (6 chat requests: 1.3% of 28,363 pages lay on 0 under the pool's axis, s48 newcomer-ed 1).
 * Within one run the peak only grows as samples stream in, so the top only ever grows, in these
 * steps, up to the pool: no switch between a zoomed and a pool axis when the peak passed half the
 * pool (s48 ed2: the streamed chart jumped to the pool's axis, its free pages and title with it).
 */
export function poolAxisTop(peak: number, numPages: number | undefined): number {
  const want = Math.max(1, peak * 1.25);
  const decade = 10 ** Math.floor(Math.log10(want));
  const top = [1, 2, 2.5, 5, 10].map((m) => m * decade).find((v) => v >= want)!;
  return numPages !== undefined && numPages > 0 ? Math.min(numPages, top) : top;
}

/** The pool chart's cached pages, drawn as a dashed line where they end over the held ones. */
const CACHED_LABEL = 'cached (evictable): to the dashed line';

export function poolTimelineChart(run: ViewRun, p: Palette): ChartSpec {
  const samples = run.poolSamples;
  const drawn = thinSamples(samples);
  const pageSize = poolPageSize(run) ?? 1;
  const xy = (f: (s: PoolSample) => number): Array<{ x: number; y: number }> => drawn.map((s) => ({ x: s.t, y: f(s) }));
  const any = (f: (s: PoolSample) => number): boolean => samples.some((s) => f(s) !== 0);
  const waste = (s: PoolSample): number => Math.max(0, s.pagesUsed - s.tokens / pageSize);
  const datasets: ChartDataset[] = [poolArea(p, 'held: tokens', xy((s) => s.tokens / pageSize), p.series[0]!, 0.7)];
  if (any(waste)) datasets.push(poolArea(p, 'held: internal waste', xy(waste), p.series[4]!, 0.7));
  // Cached and free pages are both free for allocation: left unfilled, so the pool looks as full
  // as it is held; the dashed line stacked on the held pages is where the cached pages end.
  if (any((s) => s.pagesCached)) datasets.push({ ...poolArea(p, CACHED_LABEL, xy((s) => s.pagesCached), p.series[3]!, 0, [5, 4]), fill: false, borderWidth: p.lineWidth + 0.5 });
  // Free pages are the blank between the stack and the pool's top: no line, no fill. Its legend
  // swatch is an outlined, unfilled box (chart.js draws the box from the dataset's border), the
  // way the pages are drawn; a border of 0 left the legend item with no swatch at all.
  const numPages = run.pool?.numPages ?? (samples.length > 0 ? samples[0]!.pagesUsed + samples[0]!.pagesCached + samples[0]!.pagesFree : undefined);
  // The axis ends a step above the peak, or at the pool (poolAxisTop: it only grows as a run streams);
  // below the pool's top its title names the pool and the held + cached peak's share (not the summary's held peak). The free pages, drawn as
  // nothing, stay in the stack either way (the tooltip gives them; the legend does not change mid-run).
  const peak = samples.reduce((m, s) => Math.max(m, s.pagesUsed + s.pagesCached), 0);
  const top = numPages !== undefined ? poolAxisTop(peak, numPages) : undefined;
  const zoomed = numPages !== undefined && numPages > 0 && top !== undefined && top < numPages;
  datasets.push({ ...poolArea(p, 'free', xy((s) => s.pagesFree), p.muted, 0), fill: false, showLine: false, borderWidth: p.lineWidth });
  const frag = any((s) => s.internalFragmentation);
  if (frag) datasets.push({ type: 'line', label: 'fragmentation %', data: xy((s) => s.internalFragmentation * 100), yAxisID: 'yPct', borderColor: p.series[5], borderWidth: p.lineWidth + 0.5, borderDash: [4, 3], pointRadius: 0, fill: false, order: 0, normalized: true });
  // Cumulative, so the thinned samples draw it right: each carries the count over every step.
  // Green, drawn over the blue held area: VS Code's charts.orange is the blue-navy #0F4A85 in High
  // Contrast Light (minimap.findMatchHighlight's hcLight), lost over charts.blue (s33 newcomer-ed 6);
  // charts.green differs from charts.blue in hue in all four theme kinds (test/webview/charts.test.ts).
  const preemptions = any((s) => s.preemptions ?? 0);
  if (preemptions) datasets.push({ type: 'line', label: 'preemptions so far (vLLM num_preemptions)', data: xy((s) => s.preemptions ?? 0), yAxisID: 'yCount', stepped: true, borderColor: p.series[2], borderWidth: p.lineWidth + 0.5, pointRadius: 0, fill: false, order: 0, normalized: true });
  // Zoomed, "axis to N" outside the parentheses: where the title has room for one short line (fit.ts), it keeps that the axis is not the pool's.
  const yTitle = numPages === undefined ? 'pages' : zoomed ? `pages, axis to ${formatCount(top!)} (held + cached peak at ${formatPercent(peak / numPages)} of the pool's ${formatCount(numPages)}; the rest free)` : `pages (pool: ${formatCount(numPages)})`;
  const scales: Record<string, unknown> = {
    x: simulatedTimeAxis(p, samples),
    y: axis(p, yTitle, { stacked: true, beginAtZero: true, ...(numPages !== undefined && numPages > 0 ? { max: top } : {}) }),
  };
  if (frag) scales['yPct'] = axis(p, 'fragmentation %', { position: 'right', min: 0, max: 100, grid: { drawOnChartArea: false, color: p.grid } });
  if (preemptions) scales['yCount'] = axis(p, 'preemptions so far', { position: 'right', beginAtZero: true, ticks: { precision: 0, color: p.foreground }, grid: { drawOnChartArea: false, color: p.grid } });
  const config: ChartConfiguration = {
    type: 'line',
    data: { datasets } as ChartConfiguration['data'],
    options: {
      ...baseOptions(p, `KV page pool${engineOfSamples(run)} (held pages filled; cached and free pages are free for allocation)`),
      // One tooltip for all series at the time under the pointer: held, cached and free add up to the pool.
      interaction: { mode: 'index', intersect: false },
      scales,
    } as ChartConfiguration['options'],
  };
  // The held pages as boxes, free as an outlined box; lines as lines (the cached pages' dashed edge, fragmentation %, preemptions).
  legendAsDrawn(config, (d) => (d as { stack?: string }).stack === 'pages' && d.label !== CACHED_LABEL);
  return {
    id: 'poolTimeline',
    title: `Page pool${engineOfSamples(run)}`,
    ariaLabel: `KV page pool${engineOfSamples(run)}${numPages !== undefined ? ` of ${formatCountOf(numPages, 'page')}` : ''}${samples.length > 0 ? ` over ${formatSignificant(samples[samples.length - 1]!.t)} s simulated` : ''}: ${poolSummaryLine(run) ?? 'no samples yet'}`,
    empty: samples.length === 0 ? noPoolText(run) : null,
    summary: poolSummaryLine(run),
    // Room for the plot under a legend that wraps at the dashboard's default width.
    height: 360,
    config,
    table: {
      columns: ['t (s)', 'held', 'cached', 'free', 'free for allocation', 'tokens', 'internal frag.', 'running', 'waiting', 'of them preempted', 'preemptions so far'],
      rows: samples.map((s) => [s.t.toFixed(2), formatCount(s.pagesUsed), formatCount(s.pagesCached), formatCount(s.pagesFree), formatCount(s.pagesCached + s.pagesFree), formatCount(s.tokens), formatPercent(s.internalFragmentation), formatCount(s.running), formatCount(s.waiting), formatCount(s.preempted), s.preemptions === undefined ? '' : formatCount(s.preemptions)]),
    },
  };
}

/**
 * Paged pool vs contiguous allocation baselines: useful-token fraction and fragmentation, a group
 * of bars per allocation across the chart, each labelled on two lines at the left: in a 320 px
 * panel the upright bars' rotated labels and three legend rows left a plot ~40 px tall.
 */
export function poolBaselinesChart(run: ViewRun, p: Palette): ChartSpec {
  const pool = run.pool;
  // external null: a paged pool has no external fragmentation (any free page serves any request), so
  // its cell is '-' as in the CLI, not a measured 0.0%.
  const rows: Array<{ name: string; lines: [string, string]; useful: number; internal: number; external: number | null; peak: number | null }> = [];
  if (pool) {
    rows.push({ name: `paged (page_size ${pool.pageSize})`, lines: ['paged', `page_size ${pool.pageSize}`], useful: pool.summary.usefulTokenFraction, internal: pool.summary.meanInternalFragmentation, external: null, peak: pool.summary.peakConcurrency });
    for (const b of pool.baselines) {
      const sized = b.name === 'contiguous_max_model_len' ? 'max_model_len' : 'prompt+output';
      rows.push({ name: `contiguous, ${sized}`, lines: ['contiguous', sized], useful: b.usefulTokenFraction, internal: b.internalFragmentation, external: b.externalFragmentation, peak: b.peakConcurrency });
    }
  }
  // Data parallel: the paged row alone, and why, in the CLI's words (s44 newcomer-ed F14).
  const noContiguous = pool?.dataParallel ? contiguousNotSimulatedText(pool.dataParallel.size) : null;
  const config: ChartConfiguration = {
    type: 'bar',
    data: {
      labels: rows.map((r) => r.lines),
      datasets: [
        { label: 'useful KV memory', data: rows.map((r) => r.useful * 100), backgroundColor: partFill(p, withAlpha(p.series[2]!, 0.75), 'none'), borderColor: p.series[2], borderWidth: p.lineWidth },
        { label: 'internal fragmentation', data: rows.map((r) => r.internal * 100), backgroundColor: partFill(p, withAlpha(p.series[4]!, 0.75), 'diagonal'), borderColor: p.series[4], borderWidth: p.lineWidth },
        { label: 'external fragmentation', data: rows.map((r) => (r.external ?? 0) * 100), backgroundColor: partFill(p, withAlpha(p.series[5]!, 0.75), 'dots'), borderColor: p.series[5], borderWidth: p.lineWidth },
      ],
    },
    options: {
      ...baseOptions(p, 'Paged pool vs contiguous allocation'),
      indexAxis: 'y',
      scales: { x: axis(p, '% of reserved KV memory', { min: 0, max: 100 }), y: axis(p, '', { ticks: { color: p.foreground, font: { family: p.fontFamily, size: p.fontSize - 1 }, autoSkip: false } }) },
    } as ChartConfiguration['options'],
  };
  return {
    id: 'poolBaselines',
    title: 'Baselines',
    ariaLabel: `Paged pool vs contiguous allocation, % of reserved KV memory: ${rows.map((r) => `${r.name}: useful ${formatPercent(r.useful)}, internal fragmentation ${formatPercent(r.internal)}, external fragmentation ${r.external === null ? 'none (paged)' : formatPercent(r.external)}${r.peak === null ? '' : `, peak concurrency ${formatCount(r.peak)}`}`).join('; ')}${noContiguous === null ? '' : `; ${noContiguous}`}`,
    summary: noContiguous,
    // Title, three legend rows where they wrap (320 px), the axis: the nine bars keep ~190 px.
    height: 340,
    empty: pool ? null : run.status === 'running' ? 'Baselines come when the simulation ends.' : run.status === 'refused' ? REFUSED_TEXT : 'This run has no pool simulation.',
    config,
    table: {
      columns: ['allocation', 'useful', 'internal frag.', 'external frag.', 'peak concurrency'],
      rows: rows.map((r) => [r.name, formatPercent(r.useful), formatPercent(r.internal), r.external === null ? '-' : formatPercent(r.external), r.peak === null ? '' : formatCount(r.peak)]),
    },
  };
}

/**
 * The machine of a run in words, `sep` between the parts: CPU model, cores, SIMD path, the build
 * that ran the CPU kernels ("native addon", or "WebAssembly, 1 thread" when the addon did not
 * load: wasmBuildNote says what that means for the figures), GPU. A run the editor assembled
 * after its runner ended without a result has no SIMD path ('') and no build, and neither is
 * shown, rather than "unknown"; nor is the build of a run saved before runs named it.
 */
export function machineText(env: NonNullable<ViewRun['environment']>, sep: string, timedKernels = true): string {
  // A run that timed no kernel claims no SIMD path or kernel build.
  return [env.cpuModel, `${env.cpuCores} cores`, timedKernels ? env.simd : '', timedKernels ? nativeBuildLabel(env) : '', env.gpu?.name].filter((part) => part).join(sep);
}

/**
 * The machine part of a run's header: a serving simulation's figures are all modelled for the
 * profile's GPU (its step-time model's, StepTimeModel.gpu), so that GPU first and the machine the
 * simulator ran on second ("modelled for H100 SXM · simulated on AMD EPYC · 2 cores"): the header
 * named only the CPU, and a screenshot of it the wrong machine (s40 newcomer-ed F6). A benchmark's
 * kernels ran on its machine: machineText alone.
 */
export function headerMachineText(run: Pick<ViewRun, 'kind' | 'pool' | 'cases'>, env: NonNullable<ViewRun['environment']>, sep: string): string {
  const gpu = run.kind === 'simulate' ? run.pool?.stepTime?.gpu : undefined;
  const machine = machineText(env, sep, run.cases.length > 0);
  const dp = run.pool?.dataParallel;
  return gpu ? `modelled for ${gpu}${dp ? `, ${dataParallelDeployment(dp)}` : ''}${sep}simulated on ${machine}` : machine;
}

/** Canvas width (px) below which a chart is drawn narrow (narrowOptions): a ~190 px panel leaves its charts ~125 px. */
export const NARROW_CHART_PX = 260;

/** `label` on two lines at the space nearest its middle ("device 80 GiB" -> "device" / "80 GiB"); a label of one word, or already lines, as it is. */
export function twoLines(label: string | string[]): string | string[] {
  if (Array.isArray(label)) return label;
  const spaces = [...label.matchAll(/ /g)].map((m) => m.index);
  if (spaces.length === 0) return label;
  const at = spaces.reduce((best, i) => (Math.abs(i - label.length / 2) < Math.abs(best - label.length / 2) ? i : best));
  return [label.slice(0, at), label.slice(at + 1)];
}

/**
 * The share of its category's band a narrow bar chart's bars take (chart.js categoryPercentage,
 * default 0.8): the rest, a quarter above and below, holds the category's label (bandLabelPlugin).
 */
export const NARROW_CATEGORY_PERCENTAGE = 0.5;

/** Where bandLabelPlugin drew a category's label and where that category's bars are, canvas px (the canvas's data-band-labels). */
export interface BandLabelBox {
  label: string;
  /** The label's lines: top of the first, bottom of the last. */
  top: number;
  bottom: number;
  /** The category's bars (every dataset's): their top and bottom. */
  barsTop: number;
  barsBottom: number;
}

/** The band-label plugin's options (options.plugins.attnscopeBandLabels): on only in a narrow chart (narrowOptions). */
interface BandLabelOptions {
  enabled?: boolean;
}

/**
 * Chart.js plugin for a narrow horizontal bar chart (narrowOptions): each category's label drawn
 * on the plot in the room above its bars, which NARROW_CATEGORY_PERCENTAGE leaves: in the lines the
 * chart split it into (caseTickLines), else on one line when it fits the plot's width, else two
 * (twoLines); in the axis's tick font and colour. The
 * labels were mirrored onto the plot at the bars' centre, over the bars (s36 newcomer-ed: at 200 %
 * zoom, where the dashboard's charts are drawn narrow, they were unreadable on the fills). What it
 * drew is in the canvas's data-band-labels (BandLabelBox[]), for the tests.
 */
export const bandLabelPlugin: Plugin = {
  id: 'attnscopeBandLabels',
  defaults: { enabled: false },
  afterDatasetsDraw(chart, _args, options: BandLabelOptions) {
    if (!options.enabled || chart.options.indexAxis !== 'y') return;
    const scale = chart.scales['y'];
    if (!scale || scale.ticks.length === 0) return;
    const { ctx, chartArea: area } = chart;
    const tickOptions = (scale.options as unknown as { ticks: unknown }).ticks as { font?: { size?: number; family?: string; style?: string; weight?: string | number; lineHeight?: number | string }; color?: unknown };
    const font = tickOptions.font ?? {};
    const size = font.size ?? 12;
    const lineHeight = Math.round(size * 1.2);
    const metas = chart.getSortedVisibleDatasetMetas().filter((m) => m.type === 'bar');
    const boxes: BandLabelBox[] = [];
    ctx.save();
    ctx.font = `${font.style ?? 'normal'} ${font.weight ?? 'normal'} ${size}px ${font.family ?? 'sans-serif'}`;
    ctx.fillStyle = typeof tickOptions.color === 'string' ? tickOptions.color : '#888';
    ctx.textAlign = 'left';
    ctx.textBaseline = 'bottom';
    const x = area.left + 4;
    const width = area.right - area.left - 8;
    const band = (scale.bottom - scale.top) / scale.ticks.length;
    scale.ticks.forEach((tick, i) => {
      // A label the chart split itself (caseTickLines: kernel, then shape) keeps its lines; a plain one is one line where it fits.
      const raw = tick.label ?? scale.getLabelForValue(Number(tick.value));
      const flat = Array.isArray(raw) ? raw.join(' ') : String(raw);
      const split = twoLines(flat);
      const lines = Array.isArray(raw) ? raw.map(String) : ctx.measureText(flat).width <= width ? [flat] : Array.isArray(split) ? split : [split];
      const centre = scale.getPixelForTick(i);
      // The bars of this category, as drawn (every bar dataset's element i); the band's share when none is.
      const bars = metas.map((m) => m.data[i] as unknown as { y: number; height: number } | undefined).filter((b): b is { y: number; height: number } => b !== undefined && Number.isFinite(b.y) && Number.isFinite(b.height));
      const barsTop = bars.length > 0 ? Math.min(...bars.map((b) => b.y - b.height / 2)) : centre - (band * NARROW_CATEGORY_PERCENTAGE) / 2;
      const barsBottom = bars.length > 0 ? Math.max(...bars.map((b) => b.y + b.height / 2)) : centre + (band * NARROW_CATEGORY_PERCENTAGE) / 2;
      const bottom = barsTop - 2;
      lines.forEach((line, k) => ctx.fillText(line, x, bottom - (lines.length - 1 - k) * lineHeight));
      boxes.push({ label: flat, top: bottom - lines.length * lineHeight, bottom, barsTop, barsBottom });
    });
    ctx.restore();
    const canvas = chart.canvas as HTMLCanvasElement | undefined;
    if (canvas?.dataset) canvas.dataset.bandLabels = JSON.stringify(boxes);
  },
};

/**
 * A chart's options for a canvas `narrow` (under NARROW_CHART_PX wide), degraded rather than cut
 * (s33 newcomer-ed: a ~190 px panel cut the axis labels and legends): the legend below the plot
 * with small boxes; linear axes with at most 4 ticks; the axes on the right (the pool chart's
 * fragmentation % and preemptions so far) not drawn, their series kept (their values are in the tooltips
 * and the Data table): three axes left the left one too narrow for "2,048"; a horizontal bar
 * chart's category labels not beside the plot (chart.js gives an axis at most half the canvas,
 * where "B1 ctx1024 p16" ran past the left edge) but on it, above their bars, which take
 * NARROW_CATEGORY_PERCENTAGE of their band (bandLabelPlugin). `options` is not changed; unchanged
 * when not narrow.
 */
export function narrowOptions(options: ChartConfiguration['options'], narrow: boolean): ChartConfiguration['options'] {
  if (!narrow || !options) return options;
  type ScaleOptions = { type?: string; position?: string; ticks?: Record<string, unknown>; title?: { font?: { size?: number } } };
  let bandLabels = false;
  const scales = Object.fromEntries(Object.entries((options.scales ?? {}) as Record<string, ScaleOptions>).map(([id, scale]) => {
    if (scale.position === 'right') return [id, { ...scale, display: false }];
    const ticks: Record<string, unknown> = { ...scale.ticks };
    // An axis title a size smaller: a unit such as "(compute-bound)" is one word the axis's length must hold.
    const title = scale.title ? { ...scale.title, font: { ...scale.title.font, size: (scale.title.font?.size ?? 12) - 2 } } : scale.title;
    if (id === (options as { indexAxis?: string }).indexAxis && scale.type === undefined) {
      // The case and allocation labels on the plot above their bars (bandLabelPlugin), the axis drawing none.
      // Two sizes smaller: "B1 ctx1024 p16" and "max_model_len" fit the ~110 px plot of a 190 px panel.
      const font = ticks['font'] as { size?: number } | undefined;
      Object.assign(ticks, { display: false, font: { ...font, size: Math.max(9, (font?.size ?? 12) - 2) } });
      bandLabels = true;
    } else if (scale.type !== 'logarithmic' && scale.type !== 'category') ticks['maxTicksLimit'] = 4;
    return [id, { ...scale, ticks, title }];
  }));
  const legend = options.plugins?.legend;
  return {
    ...options,
    scales,
    ...(bandLabels ? { datasets: { ...options.datasets, bar: { ...options.datasets?.bar, categoryPercentage: NARROW_CATEGORY_PERCENTAGE } } } : {}),
    // Small boxes, less padding, the font a pixel smaller: room for the names (fit.ts shortens the rest).
    plugins: {
      ...options.plugins,
      legend: legend ? { ...legend, position: 'bottom', labels: { ...legend.labels, boxWidth: 12, padding: 6, font: { ...(legend.labels?.font as object), size: Math.max(10, ((legend.labels?.font as { size?: number } | undefined)?.size ?? 12) - 1) } } } : legend,
      ...(bandLabels ? { attnscopeBandLabels: { enabled: true } } : {}),
    },
  } as ChartConfiguration['options'];
}

/** Every chart of the run view, in page order. */
export const CHART_IDS = ['timings', 'throughput', 'roofline', 'memory', 'poolTimeline', 'poolBaselines'] as const;

const BUILDERS: Record<'timings' | 'throughput' | 'roofline' | 'memory' | 'poolTimeline' | 'poolBaselines', (run: ViewRun, p: Palette) => ChartSpec> = {
  timings: timingsChart,
  throughput: throughputChart,
  roofline: rooflineChart,
  memory: memoryChart,
  poolTimeline: poolTimelineChart,
  poolBaselines: poolBaselinesChart,
};

/** Chart `id` of `run`. */
export function runChart(id: (typeof CHART_IDS)[number], run: ViewRun, p: Palette): ChartSpec {
  return BUILDERS[id](run, p);
}

/**
 * What chart `id` is drawn from: the parts of the run it reads (the model replaces a part, never
 * mutates it, so an unchanged reference means an unchanged chart). The page redraws a chart only
 * when one of these changed.
 */
export function chartInputs(id: ChartId, run: ViewRun): readonly unknown[] {
  switch (id) {
    case 'timings':
    case 'throughput':
    case 'roofline':
      return [run.cases, run.environment, run.status];
    case 'memory':
      return [run.estimate, run.profile];
    case 'poolTimeline':
      return [run.poolSamples, run.pool, run.profile, run.status, run.samplesEngine];
    case 'poolBaselines':
      return [run.pool, run.status];
    default:
      return [run];
  }
}
