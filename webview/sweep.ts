/**
 * The dashboard's sweep view as pure functions of a merged report (core/protocol/sweep.ts) and
 * the theme palette: one line chart per axis for the chosen figure (x: that axis's values; one
 * line per combination of the other axes' values and per environment), and the report as a
 * table with the best point marked. Figures come from the report as `attnscope merge` built it:
 * pool and latency figures modelled by the simulation, decode time measured on each point's
 * machine.
 */
import type { Chart, ChartConfiguration, ChartDataset, Plugin, PointStyle, Scale } from 'chart.js';
import { toFont } from 'chart.js/helpers';
import { axisName, axisValueText, sameAxisValue, durationTicks, durationUnit, formatCount, formatDuration, formatDurationIn, formatPercent, formatRate, formatRequestRate, formatRunTime, formatSignificant, formatUsd, formatUsdCost, markdownTable, maxRateLimitText, maxRateText, NS_PER, sloBoundsText } from '../core/format';
import type { SweepMetrics, SweepReport, SweepReportRow, SweepWorkload } from '../core/protocol/sweep';
import type { SweepListEntry } from '../core/protocol/webview';
import { allReduceFrom, describeEnvironment, gpuPrices, missingCells, stepTimeFrom, reportBuilds, rowBuild, rowExclusion, splitByMachine, sweepProvenance, SWEEP_METRICS, TIED_LISTED, type SweepMetric } from '../core/sweepFigures';
import { ariaList, type ChartTable } from './charts';
import { withAlpha, type Palette } from './theme';

/** How a figure reads over the values shown together (a table column and its charts' y axis). */
export interface MetricScale {
  /** The unit for the axis title ("ms", "%", "tokens/s"); undefined for a plain count. */
  unit: string | undefined;
  /** One value as the table cell writes it: "4.37 ms", "9.3%", "1,024". */
  show: (v: number) => string;
  /**
   * One y tick as the axis writes it, in `show`'s unit with as many decimals as the ticks' `step`
   * (chart.js's tick spacing, in the figure's own unit) needs, so no two ticks read the same:
   * ticks 0.9926, 0.9928, 0.9930 read "99.26%", "99.28%", "99.30%" where `show` wrote "99.3%" three times.
   */
  tick: (v: number, step: number) => string;
  /**
   * Durations spanning LOG_DURATION_SPAN or more (p99 TTFT from 114 ms to 4.8 min): a logarithmic
   * axis with ticks at these round durations (core/format durationTicks, in the figure's unit), each
   * tick and cell in its own unit ("114 ms", "4.82 min"); absent otherwise. In the largest's unit the
   * points meeting a 500 ms SLO read "0.0019 min" and sat on "0.000000 min" (s37 newcomer-ed 2).
   */
  logTicks?: number[];
}

/** A duration figure whose largest value is this many times its smallest (> 0) or more goes on a log axis, each value in its own unit. */
export const LOG_DURATION_SPAN = 100;

/**
 * The decimals of a tick `step` apart, at most three significant digits of the step: chart.js's
 * step on a short axis may be 1.666667 (5 / 3), whose exact decimals wrote "3.333333 min".
 */
function tickDecimals(step: number): number {
  return Math.min(decimalsFor(step), Math.max(0, 2 - Math.floor(Math.log10(step))));
}

/** The fewest decimals (0 to 12) that write `step` exactly: 0.25 -> 2, 0.2 -> 1, 5 -> 0 (chart.js's steps are 1, 2, 2.5 or 5 times a power of ten). */
export function decimalsFor(step: number): number {
  if (!(Number.isFinite(step) && step > 0)) return 0;
  for (let d = 0; d < 12; d++) {
    const scaled = step * 10 ** d;
    if (Math.abs(scaled - Math.round(scaled)) < 1e-6 * Math.max(1, scaled)) return d;
  }
  return 12;
}

/** `v` with `decimals` decimals, thousands grouped: 30000 -> "30,000", 1234.5 (1) -> "1,234.5". */
function fixed(v: number, decimals: number): string {
  const [whole, frac] = Math.abs(v).toFixed(decimals).split('.');
  return `${v < 0 && Number(`${whole}.${frac ?? 0}`) !== 0 ? '-' : ''}${whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${frac ? `.${frac}` : ''}`;
}

/**
 * chart.js's step between `ticks`: the median gap between neighbours (an end tick at a data bound
 * may sit closer), to 6 significant digits (0.9926 − 0.9925 is 0.00009999999999998899); 0 with
 * fewer than two ticks.
 */
export function tickStep(ticks: ReadonlyArray<{ value: number }>): number {
  const gaps = ticks.slice(1).map((t, i) => Math.abs(t.value - ticks[i]!.value)).sort((a, b) => a - b);
  return gaps.length === 0 ? 0 : Number(gaps[Math.floor(gaps.length / 2)]!.toPrecision(6));
}

/**
 * The one way `metric` reads for `values` (a sweep's rows): durations all in the unit of the
 * largest (a column from 0.9 to 7.2 ms reads "0.9 ms" … "7.2 ms", not "900 µs"), fractions as
 * percentages, counts with thousands grouped. The table's cells and the chart's y ticks (a
 * chart.js tick callback) both call `show`, so the axis cannot disagree with the table.
 */
export function metricScale(metric: SweepMetric, values: readonly number[]): MetricScale {
  const finite = values.filter(Number.isFinite);
  switch (metric.kind) {
    case 'ns':
    case 's': {
      const toNs = metric.kind === 's' ? 1e9 : 1;
      const [lo, hi] = [Math.min(...finite), Math.max(...finite)];
      if (finite.length > 0 && lo > 0 && hi / lo >= LOG_DURATION_SPAN) {
        const own = (v: number): string => formatDuration(v * toNs);
        return { unit: undefined, show: own, tick: own, logTicks: durationTicks(lo * toNs, hi * toNs).map((ns) => ns / toNs) };
      }
      const unit = durationUnit(Math.max(0, ...finite.map((v) => Math.abs(v * toNs))));
      const perUnit = NS_PER[unit];
      const show = (v: number): string => formatDurationIn(v * toNs, unit);
      return { unit, show, tick: (v, step) => (v === 0 ? `0 ${unit}` : step > 0 ? `${fixed((v * toNs) / perUnit, tickDecimals((step * toNs) / perUnit))} ${unit}` : show(v)) };
    }
    case 'fraction':
      return { unit: '%', show: (v) => formatPercent(v), tick: (v, step) => (step > 0 ? formatPercent(v, tickDecimals(step * 100)) : formatPercent(v)) };
    case 'count':
      return { unit: metric.unit, show: (v) => formatCount(v), tick: (v) => formatCount(v) };
    case 'rate': {
      // A cost as the CLI's $/1M out column and the cost chart's bars write it: 3 significant digits, zeros kept ($0.180 beside
      // $0.332; formatSignificant wrote $0.18, dash44's left item); its ticks round values with the $ (as the cost chart's).
      if (metric.key === 'usdPerMillionOutputTokens') return { unit: metric.unit, show: formatUsdCost, tick: (v, step) => (step > 0 ? `$${fixed(v, tickDecimals(step))}` : formatUsdCost(v)) };
      // A request rate as the CLI writes one (core/format.ts formatRequestRate: "25.0" beside "26.8"); other rates 3 significant digits.
      const show = metric.unit === 'requests/s' ? formatRequestRate : formatSignificant;
      return { unit: metric.unit, show, tick: (v, step) => (step > 0 ? fixed(v, tickDecimals(step)) : show(v)) };
    }
  }
}

/** `metric`'s scale over every row of `report` that has it. */
export function reportScale(report: SweepReport, metric: SweepMetric): MetricScale {
  return metricScale(metric, report.rows.flatMap((r) => (r.metrics[metric.key] === undefined ? [] : [r.metrics[metric.key] as number])));
}

/** The figures some row of `report` has, in SWEEP_METRICS order; a max-rate sweep's max rate also where every row met the SLO at no rate (its cells say so). */
export function metricsOf(report: SweepReport): SweepMetric[] {
  return SWEEP_METRICS.filter((m) => report.rows.some((r) => r.metrics[m.key] !== undefined || (m.key === 'maxRateRequestsPerSec' && r.metrics.maxRateLimit !== undefined)));
}

/** A cell of the table: `metric`'s value of `m` as `show` writes it; a max rate no rate met, or a lower bound, as the CLI's table words it (core/format.ts maxRateText). */
function cellText(metric: SweepMetric, m: SweepMetrics, show: (v: number) => string): string {
  if (metric.key === 'maxRateRequestsPerSec' && m.maxRateLimit === 'unmet') return maxRateText(m);
  const v = m[metric.key];
  // A decode time read from cache, not DRAM: "(from cache)", as the CLI's table; the notes below the table say why (decodeFromCacheNotes).
  const cached = metric.key === 'decodeNsPerToken' && m.decodeFromCache !== undefined ? ' (from cache)' : '';
  return v === undefined ? '' : `${metric.key === 'maxRateRequestsPerSec' && m.maxRateLimit === 'unbounded' ? '>= ' : ''}${show(v as number)}${cached}`;
}

/**
 * The figure the Sweep tab opens on (until one is picked): the $ per million output tokens when
 * the best point was ranked by it (`byCost`: SweepReport.best.byCost, every point priced); for a max-rate sweep the max rate per
 * GPU, the figure its best point is ranked by (when some point met the SLO at a rate); for a sweep judged by an SLO the
 * requests meeting it, the figure its best point (runner/sweep/results.ts bestRow) and its "no
 * point meets the SLO" rest on; the p99 TTFT when the best was ranked on latency (`byLatency`: its points tied on the
 * rate, as every point kept up with at one offered load does); else the first of `metrics`. It opened on the first, internal
 * fragmentation, for a sweep judged by an SLO (s41 newcomer-ed F4: 0.418 %-0.432 % on a zoomed
 * axis, the decision's figure picked by hand).
 */
export function decisionMetric(metrics: readonly SweepMetric[], byCost = false, byLatency = false): SweepMetric | undefined {
  if (byCost) {
    const cost = metrics.find((m) => m.key === 'usdPerMillionOutputTokens');
    if (cost) return cost;
  }
  // Points the rate ties (one offered load), ranked on latency: the figure that chose the best (SweepReport.best.byLatency, s52).
  if (byLatency) {
    const ttft = metrics.find((m) => m.key === 'p99TtftS');
    if (ttft) return ttft;
  }
  return metrics.find((m) => m.key === 'maxRatePerGpuRequestsPerSec') ?? metrics.find((m) => m.key === 'sloAttainment') ?? metrics[0];
}

/** A swept value as the Sweep tab writes it, legend and table: a number as the x axis writes it (sweptValueText: "30,000"), anything else as axisValueText. */
const text = (v: unknown): string => (typeof v === 'number' && Number.isFinite(v) ? sweptValueText(v) : axisValueText(v));
const envLetter = (report: SweepReport, key: string): string => String.fromCharCode(65 + Object.keys(report.environments).indexOf(key));

/**
 * Units of the profile keys a sweep varies, for the x axis's title ("workload.max_num_batched_tokens
 * (tokens, log)"), as the profile schema's descriptions state them (schemas/attn-profile.schema.json);
 * a key ending in _gib or _ms is in GiB or ms. A key not here (a fraction, a seed) names none.
 */
const AXIS_UNITS: Readonly<Record<string, string>> = {
  'kv_cache.page_size': 'tokens per page',
  'kv_cache.num_pages': 'pages',
  'device.tensor_parallel_size': 'GPUs',
  'device.pipeline_parallel_size': 'stages',
  'prefill.batch_size': 'sequences',
  'workload.requests': 'requests',
  'workload.arrival_rate': 'requests/s',
  'workload.max_num_seqs': 'sequences',
  'workload.max_model_len': 'tokens',
  'workload.max_num_batched_tokens': 'tokens',
  'workload.prefix_sharing.groups': 'prefixes',
  'workload.prefix_sharing.prefix_len': 'tokens',
};

/** The unit of swept key `key`, or undefined when it has none (see AXIS_UNITS). */
export function axisUnit(key: string): string | undefined {
  return key.endsWith('_gib') ? 'GiB' : key.endsWith('_ms') ? 'ms' : AXIS_UNITS[key];
}

/** Values spanning more than this many decades go on a logarithmic axis (50 / 100 / 30,000 on a linear one put 50 and 100 on top of each other). */
export const LOG_AXIS_DECADES = 1.5;

/**
 * How a swept axis's values lie along the x axis: numbers on a numeric axis, logarithmic when
 * they are all positive and span more than LOG_AXIS_DECADES, linear otherwise; anything else
 * (a dtype, a model) as categories in the axis's order. `title`: the key, its unit and "log".
 */
export function sweepXAxis(axis: { key: string; values: readonly unknown[] }): { type: 'category' | 'linear' | 'logarithmic'; title: string; values: number[] } {
  const nums = axis.values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  const numeric = nums.length >= 2 && nums.length === axis.values.length;
  const [min, max] = [Math.min(...nums), Math.max(...nums)];
  const type = !numeric ? 'category' : min > 0 && Math.log10(max / min) > LOG_AXIS_DECADES ? 'logarithmic' : 'linear';
  const notes = [axisUnit(axis.key), type === 'logarithmic' ? 'log' : undefined].filter((n) => n !== undefined);
  return { type, title: notes.length > 0 ? `${axis.key} (${notes.join(', ')})` : axis.key, values: numeric ? [...nums].sort((a, b) => a - b) : [] };
}

/**
 * A swept value as the Sweep tab writes it (x axis, legend, table): as written, its whole part grouped as
 * formatCount groups a count: 30000 -> "30,000", 0.5 -> "0.5", 12345.25 -> "12,345.25". Not rounded to
 * three digits (formatSignificant): the values are the user's own, and 10.25 and 10.3 are two points.
 * The legend and the table wrote "30000" beside the axis's "30,000" (s46). Values the user writes back
 * into a profile are formatValueToWrite's, ungrouped.
 */
export function sweptValueText(v: number): string {
  // Its whole part grouped as formatCount groups a count; a number String writes in exponent form (1e+21) as it is.
  const written = /^(-?)(\d+)([^e]*)$/.exec(String(v));
  return written ? `${written[1]}${formatCount(Number(written[2]))}${written[3]}` : String(v);
}

/**
 * Which of the swept `values` (ascending) get a tick label: the first and the last, and each
 * other one whose label (`widthOf` px wide, centred at `at(v)` px) stays `gap` px clear of the
 * labels kept beside it; a last label too close to the one before takes its place.
 */
export function thinTicks(values: readonly number[], at: (v: number) => number, widthOf: (v: number) => number, gap = 8): number[] {
  if (values.length <= 2) return [...values];
  const clear = (a: number, b: number): boolean => Math.abs(at(b) - at(a)) >= (widthOf(a) + widthOf(b)) / 2 + gap;
  const last = values[values.length - 1]!;
  const kept = [values[0]!];
  for (const v of values.slice(1, -1)) if (clear(kept[kept.length - 1]!, v) && clear(v, last)) kept.push(v);
  if (kept.length > 1 && !clear(kept[kept.length - 1]!, last)) kept.pop();
  return [...kept, last];
}

/** The legend's title when the lines are one other axis's values: its axis name (core/format.ts axisName, as the point labels write it) and unit, "page_size (tokens per page)". */
function legendTitle(key: string, keys: readonly string[]): string {
  const unit = axisUnit(key);
  return unit ? `${axisName(key, keys)} (${unit})` : axisName(key, keys);
}

/** One chart per axis: x = the axis's values (numeric axes to scale: sweepXAxis); a line per (other axes' values, environment). */
export interface SweepAxisChart {
  axis: string;
  config: ChartConfiguration<'line'>;
  /** Lines drawn (combinations of the other axes × environments). */
  lines: number;
  /** Whether some point is drawn as left out of the best (the cost chart: rowExclusion); its legend then has a swatch for them, a row more. */
  leftOut: boolean;
  /** What its error bars are (errorBarsNote), drawn as its subtitle; absent with none. Its lines take room above the plot (main.ts adds it to the card's height). */
  errorBars?: string;
  /**
   * The chart's accessible name: the figure against the axis, then each line by name with its best
   * value and where ("max_num_seqs=4: highest 1,230 tokens/s at page_size 16"; a figure with no
   * better way, SweepMetric.better, its range), the lines past ARIA_MAX_ITEMS counted.
   */
  ariaLabel: string;
}

/**
 * One line's part of a sweep chart's accessible name: `name`, then its best value of `ys` (one per
 * x in `xs`, null where the point is missing) and every x it is reached at, or its range when
 * `metric` has no better way.
 */
function lineAria(name: string, ys: ReadonlyArray<number | null>, xs: readonly string[], axisName: string, metric: SweepMetric, show: (v: number) => string): string {
  const head = name ? `${name}: ` : '';
  const at = (v: number) => {
    const where = xs.filter((_, i) => ys[i] === v);
    return `${show(v)} at ${axisName} ${where.length > 1 ? `${where.slice(0, -1).join(', ')} and ${where.at(-1)}` : where[0]}`;
  };
  const values = ys.filter((y): y is number => y !== null);
  if (values.length === 0) return `${head}no point`;
  const [lo, hi] = [Math.min(...values), Math.max(...values)];
  if (metric.better) return `${head}${metric.better === 'higher' ? `highest ${at(hi)}` : `lowest ${at(lo)}`}`;
  return lo === hi ? `${head}${at(lo)}` : `${head}from ${at(lo)} to ${at(hi)}`;
}

/** A line's marker, by its index: lines that meet at a point still show which is which. */
const POINT_STYLES = ['circle', 'rect', 'triangle', 'rectRot', 'crossRot', 'star'] as const;

/** The dash of a line whose values an earlier line has, by how many such lines came before it with those values (1st, 2nd, ...). */
const TWIN_DASHES: number[][] = [[8, 5], [2, 4], [12, 4, 2, 4]];

/**
 * For each line's values (`ys`, one per x position; null where it has no point), the first earlier
 * line with the very same values (`of`, its index) and how many lines before it had them too
 * (`nth`: 1 for the first twin, 2 for the next); null for a line whose values no earlier line has,
 * or that has no point. Two lines with the same values are drawn on one path, where the one drawn
 * last hid the other (the legend named two lines, the chart showed one).
 */
export function sameValues(ys: ReadonlyArray<ReadonlyArray<number | null>>): Array<{ of: number; nth: number } | null> {
  const seen = new Map<string, number[]>();
  return ys.map((line, i) => {
    if (line.every((y) => y === null)) return null;
    const key = JSON.stringify(line);
    const before = seen.get(key) ?? [];
    seen.set(key, [...before, i]);
    return before.length > 0 ? { of: before[0]!, nth: before.length } : null;
  });
}

/**
 * A sweep chart's height (CSS px) for `lines` lines at font size `fontSize` px: 300, and with more
 * than three lines room for a legend row per line (chart.js gives its legend at most half the
 * chart and draws the rest over the plot: 12 lines in 300 px left a 45-60 px plot under the last
 * legend rows, s37 newcomer-ed 2). A wide chart packs several items a row, and its plot gets the rest.
 */
export function sweepChartHeight(lines: number, fontSize: number): number {
  return lines <= 3 ? 300 : 260 + lines * (fontSize + 14);
}

/** The metrics of a figure's p10 and p90 (measured decode time: its run's spread). */
const SPREAD_OF: Partial<Record<SweepMetric['key'], { p10: 'decodeP10NsPerToken'; p90: 'decodeP90NsPerToken' }>> = {
  decodeNsPerToken: { p10: 'decodeP10NsPerToken', p90: 'decodeP90NsPerToken' },
};

/** At most this many lines per chart: past it the chart reads as noise; the table has every row. */
export const MAX_LINES = 12;

export function sweepAxisCharts(report: SweepReport, metric: SweepMetric, p: Palette): SweepAxisChart[] {
  const multiEnv = splitByMachine(report);
  const axisKeys = report.axes.map((a) => a.key);
  // "kv_cache.page_size" -> "page_size", "workload.prefix_sharing.fraction" -> "prefix_sharing.fraction": as the point labels write it.
  const shortKey = (key: string): string => axisName(key, axisKeys);
  return report.axes.map((axis) => {
    const others = report.axes.filter((a) => a.key !== axis.key);
    // A narrow legend cut "max_num_batched_tokens=50", "=100" and "=30000" to the same "max_num_batched_tokens…".
    const named = others.length > 1;
    const groups = new Map<string, SweepReportRow[]>();
    for (const r of report.rows) {
      // One other axis: its values alone, the legend's title naming it; several: "page_size=16 max_num_seqs=64".
      const key = [...others.map((o) => (named ? `${shortKey(o.key)}=${text(r.values[o.key])}` : text(r.values[o.key]))), ...(multiEnv ? [`env ${envLetter(report, r.environmentKey)}`] : [])].join(' ');
      groups.set(key, [...(groups.get(key) ?? []), r]);
    }
    const x = sweepXAxis(axis);
    // Numeric axes: points at their values, in ascending order; categories: the axis's order.
    const order = x.type === 'category' ? axis.values : x.values;
    const entries = [...groups.entries()].slice(0, MAX_LINES);
    const at = (rows: SweepReportRow[], key: keyof SweepReportRow['metrics']) => order.map((v) => {
      const m = rows.find((r) => sameAxisValue(r.values[axis.key], v))?.metrics[key];
      return typeof m === 'number' ? m : null;
    });
    const lines = entries.map(([label, rows]) => ({ label: label || metric.label, ys: at(rows, metric.key), rows }));
    // The cost chart's points left out of the best (rowExclusion), by line and x position: drawn hatched grey as in the cost
    // bar chart, why in the tooltip and the accessible name; RTX 4090 at 8.5 % meeting the SLO read cheapest (s45 newcomer-ed N2).
    const cost = metric.key === 'usdPerMillionOutputTokens';
    const whyAt = lines.map(({ rows, ys }) => order.map((v, j) => (cost && ys[j] !== null ? rowExclusion(rows.find((r) => sameAxisValue(r.values[axis.key], v))!) : null)));
    const leftOut = whyAt.some((w) => w.some((y) => y !== null));
    const excludedFill = p.marked ? p.marked(withAlpha(p.muted, 0.3), 'diagonal') : withAlpha(p.muted, 0.3);
    const twins = sameValues(lines.map((l) => l.ys));
    const colours = Math.max(1, p.series.length);
    const datasets: Array<ChartDataset<'line'>> = lines.map(({ label, ys }, i) => {
      // Each line of the first six its own marker and colour; the next six the markers again, each with
      // the next colour: no two lines share both (12 lines drew lines 0 and 6 alike, colour and marker,
      // s37 newcomer-ed 2); the legend shows the marker.
      const colour = p.series[(i + Math.floor(i / POINT_STYLES.length)) % colours] ?? p.foreground;
      const twin = twins[i]!;
      return {
        label: twin ? `${label}, same values as ${lines[twin.of]!.label}` : label,
        data: (x.type === 'category' ? ys : ys.map((y, j) => ({ x: order[j] as number, y }))) as number[],
        borderColor: colour,
        backgroundColor: withAlpha(colour, 0.4),
        borderWidth: p.lineWidth,
        // Each line its own marker; a line with an earlier one's values dashed and drawn over it
        // (chart.js draws a lower `order` later), so both colours show along the one path.
        pointStyle: POINT_STYLES[i % POINT_STYLES.length],
        ...(leftOut ? { pointBackgroundColor: whyAt[i]!.map((w) => (w ? excludedFill : withAlpha(colour, 0.4))), pointBorderColor: whyAt[i]!.map((w) => (w ? p.muted : colour)) } : {}),
        // Categories (GPU models, on/off) have no order between them: markers alone, a line would draw a trend (s44 newcomer-ed F2).
        ...(x.type === 'category' ? { showLine: false, pointRadius: 6 } : { pointRadius: 4 }),
        // A point on the plot's edge (the y axis ends at the highest value, the x axis at the swept ends) drawn whole, past the
        // edge by its radius and border: clipped at it, the best point at 100.0 % was a 2 px tick on the top border (s44 newcomer-ed F6).
        clip: SWEEP_POINT_CLIP,
        ...(twin ? { borderDash: TWIN_DASHES[(twin.nth - 1) % TWIN_DASHES.length], order: -twin.nth } : {}),
        spanGaps: false,
      };
    });
    // A measured decode time: each point's p10–p90 spread as an error bar (chartjs-chart-error-bars' lineWithErrorBars: yMin and
    // yMax beside y), the spread the best point's ties are judged by (core/noise.ts withinNoise), which the chart of medians did
    // not show (s37 newcomer-ed 10); a band filled between the p10 and p90 lines drew one point's spread as a slope to the next (s50).
    const spread = metric.key === 'decodeNsPerToken' ? SPREAD_OF[metric.key] : undefined;
    const spreads = spread === undefined ? [] : lines.map(({ rows }) => ({ lo: at(rows, spread.p10), hi: at(rows, spread.p90) }));
    const errorBars = spreads.some((sp) => sp.lo.some((y, j) => y !== null && sp.hi[j] !== null));
    if (errorBars) {
      datasets.forEach((d, i) => {
        const { lo, hi } = spreads[i]!;
        const ys = lines[i]!.ys;
        d.data = ys.map((y, j) => ({ x: x.type === 'category' ? text(order[j]) : order[j], y, ...(y !== null && lo[j] !== null && hi[j] !== null ? { yMin: lo[j], yMax: hi[j] } : {}) })) as unknown as number[];
        const colour = d.borderColor as string;
        Object.assign(d, { errorBarColor: colour, errorBarWhiskerColor: colour, errorBarLineWidth: Math.max(1, p.lineWidth * 0.75), errorBarWhiskerLineWidth: Math.max(1, p.lineWidth * 0.75), errorBarWhiskerSize: 10 });
      });
    }
    const font = { family: p.fontFamily, size: p.fontSize };
    const { unit, tick, show, logTicks } = reportScale(report, metric);
    // A rate's or count's cells write no unit (the column header has it); the name says it.
    const spoken = (v: number) => (unit !== undefined && (metric.kind === 'rate' || metric.kind === 'count') ? `${show(v)} ${unit}` : show(v));
    const xTexts = order.map((v) => (typeof v === 'number' && x.type !== 'category' ? sweptValueText(v) : text(v)));
    // A line's lowest (or highest) among its points kept for the best; those left out named after it, with why.
    const lineItems = lines.map(({ label, ys }, i) => {
      const kept = ys.map((y, j) => (whyAt[i]![j] ? null : y));
      const name = others.length === 1 && label !== metric.label ? `${shortKey(others[0]!.key)}=${label}` : label === metric.label ? '' : label;
      const out = xTexts.flatMap((xt, j) => (whyAt[i]![j] ? [`${shortKey(axis.key)} ${xt} ${show(ys[j]!)} (${whyAt[i]![j]})`] : []));
      const head = kept.some((y) => y !== null) ? `${lineAria(name, kept, xTexts, shortKey(axis.key), metric, spoken)}${out.length > 0 ? ' among the points kept for the best' : ''}` : `${name ? `${name}: ` : ''}no point kept for the best`;
      return out.length > 0 ? `${head}; left out of the best: ${out.join(', ')}` : head;
    });
    // The points not run (the report's `missing`: a cancelled or partial sweep), a ✕ at the axis's foot at each one's value on
    // this axis, with a legend swatch: they read as x ticks with nothing over them (s49 newcomer-ed 6).
    const notRunValues = order.filter((v) => report.missing.some((m) => m.values[axis.key] !== undefined && sameAxisValue(m.values[axis.key], v)));
    const notRunCount = report.missing.filter((m) => m.values[axis.key] !== undefined).length;
    const notRun = notRunValues.map((v) => (x.type === 'category' ? order.indexOf(v) : (v as number)));
    const notRunText = notRunValues.length === 0 ? '' : `; not run: ${shortKey(axis.key)} ${notRunValues.length > 1 ? `${notRunValues.slice(0, -1).map(text).join(', ')} and ${text(notRunValues.at(-1))}` : text(notRunValues[0])}`;
    const ariaLabel = `${metric.label} (${metric.source}) vs ${axis.key}: ${lines.length === 1 ? lineItems[0] : `${formatCount(lines.length)} lines; ${ariaList(lineItems, 'the Every point table')}`}${notRunText}`;
    const title = (text: string) => ({ display: true, text, color: p.foreground, font });
    const [min, max] = [x.values[0], x.values[x.values.length - 1]];
    const xScale = x.type === 'category'
      ? { type: 'category' as const, title: title(x.title), ticks: { color: p.foreground, font }, grid: { color: p.grid } }
      : {
          type: x.type,
          min,
          max,
          bounds: 'data' as const,
          title: title(x.title),
          // Ticks at the swept values, those whose labels would collide left out (thinTicks).
          ticks: { color: p.foreground, font, autoSkip: false, maxRotation: 0, callback: (v: number | string) => sweptValueText(Number(v)) },
          afterBuildTicks: (scale: Scale) => {
            const ctx = scale.ctx;
            const log = x.type === 'logarithmic';
            const span = log ? Math.log(max! / min!) : max! - min!;
            const at = (v: number): number => (scale.maxWidth * (log ? Math.log(v / min!) : v - min!)) / span;
            ctx.save();
            ctx.font = toFont(font).string;
            const widthOf = (v: number): number => ctx.measureText(sweptValueText(v)).width;
            scale.ticks = thinTicks(x.values, at, widthOf).map((value) => ({ value }));
            ctx.restore();
          },
          grid: { color: p.grid },
        };
    const barsNote = errorBars ? errorBarsNote(report) : undefined;
    return {
      axis: axis.key,
      lines: datasets.length,
      leftOut,
      ...(barsNote ? { errorBars: barsNote } : {}),
      ariaLabel,
      config: {
        // chartjs-chart-error-bars' line controller (registered in main.ts) where there are p10–p90 bars: a line chart with whiskers.
        type: (errorBars ? SWEEP_ERROR_BARS_TYPE : 'line') as 'line',
        data: x.type === 'category' ? { labels: axis.values.map(text), datasets } : { datasets },
        ...(notRun.length > 0 ? { plugins: [notRunPlugin as Plugin<'line'>] } : {}),
        options: {
          responsive: true,
          maintainAspectRatio: false,
          animation: false,
          plugins: {
            // Wrapped whole in a narrow card: its unit and source are in the parentheses (webview/fit.ts keepAsides).
            title: { display: true, text: sweepChartTitle(metric, unit, axis.key, leftOut, errorBars), keepAsides: true, color: p.foreground, font: { ...font, weight: 'bold' } } as NonNullable<NonNullable<ChartConfiguration<'line'>['options']>['plugins']>['title'],
            // What the whiskers are, under the title (wrapped by fit.ts): the title's "bars: p10–p90" said not of what nor where (s50 newcomer-ed 3).
            ...(barsNote ? { subtitle: { display: true, text: barsNote, color: p.foreground, font, padding: { bottom: 6 } } } : {}),
            ...(notRun.length > 0 ? { attnscopeNotRun: { xs: notRun, color: p.muted, lineWidth: p.lineWidth } satisfies NotRunOptions } : {}),
            ...(leftOut ? { tooltip: { callbacks: { afterLabel: (item: { datasetIndex: number; dataIndex: number }) => { const w = whyAt[item.datasetIndex]?.[item.dataIndex]; return w ? `left out of the best: ${w}` : ''; } } } } : {}),
            // Legend in the lines' order (chart.js lists by `order`, which puts a dashed twin first).
            // Only the lines are legend items.
            // Each line's swatch in its colour: chart.js takes it from the line's first point, which may be a grey left-out one (s45 newcomer-ed N1).
            // With points left out, a swatch for them too (a narrow panel's fitted title drops its "hatched grey" part), and a click on it hides nothing.
            legend: {
              display: datasets.length > 1 || leftOut || notRun.length > 0,
              labels: {
                color: p.foreground, font, usePointStyle: true, pointStyleWidth: 22, filter: (item) => (item.datasetIndex ?? 0) < datasets.length, sort: (a, b) => (a.datasetIndex ?? datasets.length) - (b.datasetIndex ?? datasets.length),
                ...(leftOut || notRun.length > 0 ? {
                  generateLabels: (chart: Chart) => [
                    ...datasets.map((d, i) => ({ text: d.label!, fillStyle: d.backgroundColor as string, strokeStyle: d.borderColor as string, lineWidth: p.lineWidth, pointStyle: d.pointStyle as PointStyle, fontColor: p.foreground, hidden: !chart.isDatasetVisible(i), datasetIndex: i })),
                    ...(leftOut ? [{ text: `${LEFT_OUT} (why on hover)`, fillStyle: excludedFill, strokeStyle: p.muted, lineWidth: p.lineWidth, pointStyle: 'circle' as const, fontColor: p.foreground, hidden: false }] : []),
                    ...(notRun.length > 0 ? [{ text: notRunLegend(notRunCount), fillStyle: 'transparent', strokeStyle: p.muted, lineWidth: p.lineWidth, pointStyle: 'crossRot' as const, fontColor: p.foreground, hidden: false }] : []),
                  ],
                } : {}),
              },
              ...(leftOut || notRun.length > 0 ? { onClick: (_e: unknown, item: { datasetIndex?: number }, legend: { chart: Chart }) => { const i = item.datasetIndex; if (i === undefined) return; if (legend.chart.isDatasetVisible(i)) legend.chart.hide(i); else legend.chart.show(i); } } : {}),
              title: { display: others.length === 1, text: others.length === 1 ? legendTitle(others[0]!.key, axisKeys) : '', color: p.foreground, font } },
          },
          scales: {
            x: xScale,
            // Ticks in the table's unit, with the decimals their step needs (MetricScale.tick); a count's ticks whole numbers.
            y: logTicks && logTicks.length > 1
              // Durations over two decades and more: a log axis, ticks at round durations each in its own unit (MetricScale.logTicks).
              ? { type: 'logarithmic', min: logTicks[0], max: logTicks[logTicks.length - 1], title: title(`${metric.label} (log)`), ticks: { color: p.foreground, font, autoSkip: false, callback: (v) => tick(Number(v), 0) }, afterBuildTicks: (scale: Scale) => { scale.ticks = logTicks.map((value) => ({ value })); }, grid: { color: p.grid } }
              // A rate or a percentage from 0 (startsAtZero): a zoomed axis drew a 2 % gap as a large one.
              : { ...(startsAtZero(metric) ? { beginAtZero: true } : {}), title: title(metric.axisTitle ?? (unit ? `${metric.label} (${unit})` : metric.label)), ticks: { color: p.foreground, font, ...(metric.kind === 'count' ? { precision: 0 } : {}), callback: (v, _i, ticks) => tick(Number(v), tickStep(ticks ?? [])) }, grid: { color: p.grid } },
          },
        },
      },
    };
  });
}

/**
 * A sweep chart's title: the figure with its unit and source, against the axis ("internal fragmentation (%, modelled) vs
 * kv_cache.page_size", "decode time per token (ms, measured) vs kv_cache.page_size"): side by side, each small multiple
 * says what it is without its y axis's title; a fraction's unit is %, a rate's its unit, a duration's the table's
 * (`unit`, MetricScale.unit; none on a log duration axis, each tick in its own), a count's its own. `leftOut`: some
 * of the chart's points are left out of the best (sweepAxisCharts' hatched grey points), which the title then says;
 * `errorBars`: the points are medians with p10–p90 bars.
 */
/**
 * Whether `metric`'s sweep chart has a y axis from 0: a rate (s42 newcomer-ed F3: a max rate per
 * GPU from 2.50 to 2.90 drew a 2 % gap as a large one) and every percentage (s51 newcomer-ed M3: a
 * prefix-cache hit rate from 57.4 % to 58.1 % drew bottom to top). The rule of every percentage
 * chart of the dashboard: the pool chart's fragmentation and the KV-share bars are 0-100 %, the
 * throughput chart's % of peak from 0. Durations and counts keep the axis chart.js fits to them.
 */
export function startsAtZero(metric: Pick<SweepMetric, 'kind'>): boolean {
  return metric.kind === 'rate' || metric.kind === 'fraction';
}

export function sweepChartTitle(metric: SweepMetric, unit: string | undefined, axisKey: string, leftOut = false, errorBars = false): string {
  const shown = metric.kind === 'fraction' ? '%' : metric.key === 'usdPerMillionOutputTokens' ? '$ per 1M output tokens' : unit;
  return `${metric.label} (${shown ? `${shown}, ` : ''}${metric.source}${errorBars ? ', median; bars: p10–p90' : ''}${leftOut ? '; hatched grey: left out of the best' : ''}) vs ${axisKey}`;
}

/** The chart type of chartjs-chart-error-bars' line with error bars (its LineWithErrorBarsController.id), which main.ts registers. */
export const SWEEP_ERROR_BARS_TYPE = 'lineWithErrorBars';

/**
 * The figures the Sweep tab charts against each axis, side by side as small multiples: `chosen` (the Figure picker's,
 * the one the table is ranked by) first, then the key figures of a page-size design (s49 newcomer-ed 6: fragmentation,
 * prefix-cache hit rate and decode time per token, one at a time behind the picker), and goodput where the sweep was
 * judged by an SLO, each that some row has (metricsOf), each once.
 */
export function chartedFigures(report: SweepReport, chosen: SweepMetric | undefined): SweepMetric[] {
  const slo = report.rows.some((r) => r.metrics.sloAttainment !== undefined);
  const keys: ReadonlyArray<SweepMetric['key']> = ['internalFragmentation', 'prefixHitRate', 'decodeNsPerToken', ...(slo ? ['goodputRequestsPerSec' as const] : [])];
  const metrics = metricsOf(report);
  const key = keys.flatMap((k) => metrics.filter((m) => m.key === k && m !== chosen));
  return chosen ? [chosen, ...key] : key;
}

/** The legend's swatch (a grey ✕) for the points not run: "not run (4 points)". */
export function notRunLegend(points: number): string {
  return `not run (${points === 1 ? '1 point' : `${formatCount(points)} points`})`;
}

/** The not-run plugin's options (options.plugins.attnscopeNotRun): the x values (a category axis's indices) not run, the ✕'s colour and line width. */
export interface NotRunOptions {
  xs: number[];
  color: string;
  lineWidth: number;
}

/** Half a not-run ✕'s width, px. */
const NOT_RUN_HALF = 5;

/**
 * Draws a ✕ at the foot of the plot at each x value not run (NotRunOptions), as barValuePlugin writes
 * the cost bars' values: no dataset, so no y value is made up for a point that has none.
 */
const notRunPlugin: Plugin<'line'> = {
  id: 'attnscopeNotRun',
  afterDatasetsDraw(chart, _args, o: NotRunOptions) {
    const scale = chart.scales.x;
    if (!scale || !o?.xs) return;
    const { ctx, chartArea } = chart;
    const y = chartArea.bottom - NOT_RUN_HALF - 3;
    ctx.save();
    ctx.strokeStyle = o.color;
    ctx.lineWidth = o.lineWidth;
    for (const v of o.xs) {
      const x = scale.getPixelForValue(v);
      if (!Number.isFinite(x)) continue;
      ctx.beginPath();
      ctx.moveTo(x - NOT_RUN_HALF, y - NOT_RUN_HALF);
      ctx.lineTo(x + NOT_RUN_HALF, y + NOT_RUN_HALF);
      ctx.moveTo(x + NOT_RUN_HALF, y - NOT_RUN_HALF);
      ctx.lineTo(x - NOT_RUN_HALF, y + NOT_RUN_HALF);
      ctx.stroke();
    }
    ctx.restore();
  },
};

/** How far (px) a sweep line's markers may reach past the plot's edge: the largest radius (6, a category axis's) and its border, and a little. */
export const SWEEP_POINT_CLIP = 8;

/** The Sweep tab's cost chart (sweepCostChart): a bar per priced point. */
export interface SweepCostChart {
  config: ChartConfiguration<'bar'>;
  /** Bars drawn: the rows with a cost. */
  bars: number;
  /** Bars marked as left out of the best (rowExclusion): each has a second label line saying why. */
  excluded: number;
  /** The most lines one bar's label has (a left-out bar's: its point, then each reason, whyLines): every bar's row is made that tall. */
  labelLines: number;
  /** Its accessible name: what it shows, then each point cheapest first with its cost ("tp=1 $0.0917") and why a point is left out. */
  ariaLabel: string;
}

/** The cost chart's value-label plugin's options (options.plugins.attnscopeBarValues): the text colour and font, and each bar's text by data index. */
interface BarValueOptions {
  color: string;
  font: string;
  texts: string[];
}

/** Writes each bar's value just past its end (a screenshot reads the figure without the tooltip). */
const barValuePlugin: Plugin<'bar'> = {
  id: 'attnscopeBarValues',
  afterDatasetsDraw(chart, _args, o: BarValueOptions) {
    const { ctx } = chart;
    ctx.save();
    ctx.font = o.font;
    ctx.fillStyle = o.color;
    ctx.textBaseline = 'middle';
    chart.data.datasets.forEach((_ds, i) => {
      if (!chart.isDatasetVisible(i)) return;
      chart.getDatasetMeta(i).data.forEach((bar, k) => {
        const text = o.texts[k];
        const { x, y } = bar.getProps(['x', 'y'], true) as { x: number; y: number };
        if (text && Number.isFinite(x) && (chart.data.datasets[i]!.data[k] ?? null) !== null) ctx.fillText(text, x + 4, y);
      });
    });
    ctx.restore();
  },
};

/**
 * The $ per million output tokens of each point that has one, as horizontal bars cheapest first
 * (the best point's rule when every point is priced: runner/sweep/results.ts bestRow), the axis
 * from $0 with its unit, each bar's value written at its end, one colour per GPU model with its
 * user-given price in the legend ("H100 SXM, $2.49/GPU-hour (user-given)"); modelled, which the
 * title says. A point the rule leaves out (core/sweepFigures.ts rowExclusion: it fails the SLO, or
 * the modelled server does not keep up) is drawn hatched grey with why under its label ("fails SLO
 * (8.5%), does not keep up"), so a cheaper bar that cannot be chosen does not read as the cheapest
 * (s44 newcomer-ed F1: RTX 4090 at $0.093 over the best, A100 80GB at $0.180, meeting the SLO for
 * 8.5 % of requests). Null when no row has the figure.
 */
export function sweepCostChart(report: SweepReport, p: Palette): SweepCostChart | null {
  const rows = report.rows.filter((r) => r.metrics.usdPerMillionOutputTokens !== undefined).sort((a, b) => a.metrics.usdPerMillionOutputTokens! - b.metrics.usdPerMillionOutputTokens!);
  if (rows.length === 0) return null;
  const models = gpuPrices(rows);
  const font = { family: p.fontFamily, size: p.fontSize };
  const colours = Math.max(1, p.series.length);
  const gpuOf = (r: SweepReportRow) => r.gpu ?? '';
  const groups = models.length > 0 ? models : [{ gpu: '', usd: undefined }];
  const best = report.best?.id;
  const why = rows.map(rowExclusion);
  const excludedFill = p.marked ? p.marked(withAlpha(p.muted, 0.3), 'diagonal') : withAlpha(p.muted, 0.3);
  const datasets: Array<ChartDataset<'bar'>> = groups.map(({ gpu, usd }, i) => {
    const colour = p.series[i % colours] ?? p.foreground;
    return {
      label: gpu ? `${gpu}, ${usd === undefined ? 'no price' : `${formatUsd(usd)}/GPU-hour (user-given)`}` : '$ / 1M output tokens',
      data: rows.map((r) => (gpuOf(r) === gpu ? r.metrics.usdPerMillionOutputTokens! : null)),
      backgroundColor: rows.map((r, k) => (why[k] ? excludedFill : withAlpha(colour, r.id === best ? 0.9 : 0.55))),
      borderColor: rows.map((_r, k) => (why[k] ? p.muted : colour)),
      borderWidth: rows.map((r) => (r.id === best ? p.lineWidth * 2 : p.lineWidth)),
      grouped: false,
      barPercentage: 0.7,
    };
  });
  // A left-out point's label is lines: the point, then each reason on its own (chart.js draws an array label as lines);
  // "fails SLO (8.5%), does not keep up" on one line was wider than the axis's half of a 480 px panel, cut at the canvas's
  // left edge ("ails SLO (8.5%), …", s45 newcomer-ed N1).
  const labels = rows.map((r, k) => (why[k] ? [r.label, ...whyLines(why[k]!)] : `${r.id === best ? '★ ' : ''}${r.label}`));
  const title = (text: string) => ({ display: true, text, color: p.foreground, font });
  const texts = rows.map((r) => formatUsdCost(r.metrics.usdPerMillionOutputTokens!));
  const max = Math.max(...rows.map((r) => r.metrics.usdPerMillionOutputTokens!));
  const excluded = why.filter((w) => w !== null).length;
  const heading = `$ per 1M output tokens by point (modelled, at user-given $/GPU-hour; lower is better${excluded > 0 ? '; hatched grey: left out of the best' : ''})`;
  return {
    bars: rows.length,
    excluded,
    labelLines: Math.max(...labels.map((l) => (Array.isArray(l) ? l.length : 1))),
    ariaLabel: `$ per 1M output tokens (modelled, at user-given prices per GPU-hour), by cost: ${ariaList(rows.map((r, k) => `${r.label} ${texts[k]}${why[k] ? ` (left out of the best: ${why[k]})` : ''}`), 'the Every point table')}`,
    config: {
      type: 'bar',
      data: { labels, datasets },
      plugins: [barValuePlugin],
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        indexAxis: 'y',
        // Room past the longest bar for its value label.
        layout: { padding: { right: 8 } },
        plugins: {
          title: { display: true, text: heading, color: p.foreground, font: { ...font, weight: 'bold' } },
          // One swatch a GPU model in its colour, and one hatched grey for the points left out: chart.js took each GPU's swatch
          // from its first bar, the cheapest point's, which was left out, so every GPU's read grey (s45 newcomer-ed N1).
          legend: {
            display: models.length > 0 || excluded > 0,
            labels: {
              color: p.foreground,
              font,
              generateLabels: (chart) => [
                ...(models.length > 0 ? datasets.map((d, i) => ({ text: d.label!, fillStyle: withAlpha(p.series[i % colours] ?? p.foreground, 0.55), strokeStyle: p.series[i % colours] ?? p.foreground, lineWidth: p.lineWidth, fontColor: p.foreground, hidden: !chart.isDatasetVisible(i), datasetIndex: i })) : []),
                ...(excluded > 0 ? [{ text: `${LEFT_OUT} (why under its label)`, fillStyle: excludedFill, strokeStyle: p.muted, lineWidth: p.lineWidth, fontColor: p.foreground, hidden: false }] : []),
              ],
            },
            // The left-out swatch stands for no dataset: a click on it hides nothing.
            onClick: (_e, item, legend) => {
              const i = item.datasetIndex;
              if (i === undefined) return;
              if (legend.chart.isDatasetVisible(i)) legend.chart.hide(i);
              else legend.chart.show(i);
            },
          },
          tooltip: { callbacks: { label: (item) => `${texts[item.dataIndex] ?? ''} per 1M output tokens${why[item.dataIndex] ? `; left out of the best: ${why[item.dataIndex]}` : ''}` } },
          attnscopeBarValues: { color: p.foreground, font: toFont(font).string, texts } satisfies BarValueOptions,
        } as NonNullable<ChartConfiguration<'bar'>['options']>['plugins'],
        scales: {
          // From $0, with headroom for the value labels: a 3 % gap must not read as a large one.
          x: { type: 'linear', beginAtZero: true, suggestedMax: max * 1.15, title: title('$ per 1M output tokens (modelled)'), ticks: { color: p.foreground, font, callback: (v) => formatUsd(Number(v)) }, grid: { color: p.grid } },
          // No axis title: the heading says "by point", and the title was drawn over the left-out labels (s45 newcomer-ed N1).
          y: { type: 'category', ticks: { color: p.foreground, font, autoSkip: false }, grid: { display: false } },
        },
      },
    },
  };
}

/**
 * The cost chart's height: a bar row per point, each as tall as the longest label (`labelLines`,
 * SweepCostChart.labelLines: chart.js gives every category the same height, so a 3-line label in
 * rows sized for 1 ran into its neighbours' labels, s45 newcomer-ed N1), plus the title, legend and axis.
 */
export function sweepCostChartHeight(bars: number, fontSize: number, labelLines = 1): number {
  return Math.max(220, 140 + bars * Math.max(fontSize + 16, labelLines * (fontSize + 3) + 8));
}

/** The legend's swatch for the points left out of the best (sweepCostChart, the cost line chart), before where it says why. */
const LEFT_OUT = 'left out of the best';

/** Why a point is left out (rowExclusion: "fails SLO (8.5%), does not keep up") as label lines, a reason each. */
export function whyLines(why: string): string[] {
  return why.split(', ');
}

/**
 * A figure's column header: its label, unit and where it comes from, as the CLI's footer says
 * it (runner/sweep/results.ts): "output throughput (tokens/s, modelled)", "decode time per token
 * (ms, measured)"; a percentage or a count ("pool pages") names no unit.
 */
export function metricHeader(metric: SweepMetric, unit: string | undefined): string {
  const named = unit !== undefined && (metric.kind === 'rate' || metric.kind === 's' || metric.kind === 'ns');
  return `${metric.label} (${named ? `${unit}, ` : ''}${metric.source})`;
}

/**
 * The report as a table: axis values, environment (when several), build (when several:
 * core/sweepFigures.ts reportBuilds), every figure with its unit and source (metricHeader), whether
 * what bounds a max rate (`limit`) and the rejected requests, as the CLI's columns say them, whether
 * the modelled server keeps up (when some row's run judged it: SweepReportRow.keepsUp), as the CLI's
 * table has them (runner/sweep/results.ts formatReport); the best row marked ★.
 */
export function sweepTable(report: SweepReport): ChartTable {
  const metrics = metricsOf(report);
  const multiEnv = splitByMachine(report);
  const builds = reportBuilds(report).length > 1;
  const keeps = report.rows.some((r) => r.keepsUp !== undefined);
  const scales = metrics.map((m) => reportScale(report, m));
  const shows = scales.map((s) => s.show);
  // After a figure with a spread (measured decode time), its p10–p90, in the figure's unit: the best point's ties are judged by it (s37 newcomer-ed 10).
  const spreadOf = (m: SweepMetric) => {
    const sp = SPREAD_OF[m.key];
    return sp && report.rows.some((r) => r.metrics[sp.p10] !== undefined && r.metrics[sp.p90] !== undefined) ? sp : undefined;
  };
  // The CLI table's `limit` and `rejected` columns (runner/sweep/results.ts COLUMNS), each after the figure it follows
  // there, or last when that figure is absent (s42 newcomer-ed F4: the tab left out that tp 8 was capacity-bound).
  const extras = [
    { after: 'maxRatePerGpuRequestsPerSec', header: 'limit (modelled)', show: (m: SweepMetrics) => maxRateLimitText(m), shown: report.rows.some((r) => r.metrics.maxRateLimit !== undefined) },
    { after: 'throughputTokensPerSec', header: 'rejected requests (modelled)', show: (m: SweepMetrics) => (m.rejected === undefined ? '' : formatCount(m.rejected)), shown: report.rows.some((r) => r.metrics.rejected !== undefined) },
  ].filter((x) => x.shown);
  const extrasAfter = (key: string | null) => extras.filter((x) => (key === null ? !metrics.some((m) => m.key === x.after) : x.after === key));
  return {
    columns: ['', ...report.axes.map((a) => a.key), ...(multiEnv ? ['env'] : []), ...(builds ? ['build'] : []), ...metrics.flatMap((m, i) => [metricHeader(m, scales[i]!.unit), ...(spreadOf(m) ? [metricHeader({ ...m, label: `${m.label} p10–p90` }, scales[i]!.unit)] : []), ...extrasAfter(m.key).map((x) => x.header)]), ...extrasAfter(null).map((x) => x.header), ...(keeps ? ['keeps up (modelled)'] : []), 'status'],
    rows: report.rows.map((r) => [
      report.best && report.best.id === r.id && report.best.environmentKey === r.environmentKey ? '★' : '',
      ...report.axes.map((a) => text(r.values[a.key])),
      ...(multiEnv ? [envLetter(report, r.environmentKey)] : []),
      ...(builds ? [rowBuild(r)] : []),
      ...metrics.flatMap((m, i) => {
        const cell = cellText(m, r.metrics, shows[i]!);
        const sp = spreadOf(m);
        const after = extrasAfter(m.key).map((x) => x.show(r.metrics));
        if (!sp) return [cell, ...after];
        const [lo, hi] = [r.metrics[sp.p10], r.metrics[sp.p90]];
        return [cell, lo === undefined || hi === undefined ? '' : `${shows[i]!(lo)}–${shows[i]!(hi)}`, ...after];
      }),
      ...extrasAfter(null).map((x) => x.show(r.metrics)),
      ...(keeps ? [r.keepsUp === undefined ? '' : r.keepsUp ? 'yes' : 'no'] : []),
      r.status,
    ]),
  };
}

/**
 * The Sweep tab's title: the models, the sweep's name, "sweep" ("Llama-3.1-8B · grid.attn.yaml ·
 * sweep"), as a run's title names its model first (extension/runName.ts); a report merged before
 * s36 has no models: its name alone.
 */
export function sweepTitle(report: Pick<SweepReport, 'name' | 'models'>): string {
  return [...(report.models && report.models.length > 0 ? [report.models.join(', ')] : []), report.name, 'sweep'].join(' · ');
}

/**
 * What the Sweep tab says of the best point, as the CLI's report does under its table: `best`, the
 * line naming it, its rule and ties; `notes`, the sentences under it — a point with a lower p99 TPOT than a best ranked
 * on p99 TTFT (best.tpotLower), the points close to it on a
 * searched max rate, that the points run on different GPU models, the best of each SLO value, the points left out for
 * the server not keeping up with them, each with why, and that the best was chosen across
 * machines whose timings do not compare, a TPOT SLO judged at small batch with overhead_ms assumed 0
 * (best.tpotOverhead) — or, with no best, why not (SweepReport.noBest).
 */
export function sweepBestText(report: SweepReport): { best: string; notes: string[]; tied: string[] } {
  const b = report.best;
  // A tie with more points than the sentence names: they are listed under the best, not left to the report's JSON (s44 newcomer-ed F5).
  const listed = b?.tie?.includes(TIED_LISTED) === true && (b.tiedWith?.length ?? 0) > 0;
  if (b) return { best: `Best point: ${b.label} — ${b.rule}${b.tie ? `; ${listed ? b.tie.replace(TIED_LISTED, '(listed below)') : b.tie}` : ''}.`, tied: listed ? b.tiedWith!.map((t) => t.label) : [], notes: [b.tpotLower, b.fewRequests, b.close, b.gpuModels, ...(b.perSlo ?? []), b.leftOut, b.acrossMachines, b.tpotOverhead && `Note: ${b.tpotOverhead}.`].filter((n): n is string => !!n) };
  return { best: 'No point qualifies as best.', tied: [], notes: report.noBest ?? ['(Every point rejected requests or missed the SLO; this report, merged by an older AttnScope, does not say which.)'] };
}

/**
 * The line over an interrupted sweep's report (SweepReport.interrupted: cancelled, or its window reloaded, with
 * points kept), "interrupted: 1 of 2 points" ("cancelled: …" with `how` 'cancelled', where the editor's own
 * sweep was and this is its report), saying that the best is of those and that resuming runs the
 * others (the tab's Resume sweep beside it); null for a finished sweep's report. Points: those with a
 * result (total − missing), as the summary counts them.
 */
export function interruptedText(report: Pick<SweepReport, 'interrupted' | 'total' | 'missing'> & Partial<Pick<SweepReport, 'axes' | 'rows'>>, how: 'interrupted' | 'cancelled' = 'interrupted'): string | null {
  if (!report.interrupted) return null;
  const kept = report.total - report.missing.length;
  const cells = report.axes && report.rows ? missingCells({ axes: report.axes, rows: report.rows, missing: report.missing }) : [];
  // Each value (or pair) on its own: "No point of page_size=32; page_size=64" read as one combination (s44 newcomer-ed F5).
  const list = cells.length > 1 ? `${cells.slice(0, -1).join(', ')} or ${cells.at(-1)}` : cells[0];
  const gone = cells.length > 0 ? ` None of them has ${list}: the best is chosen without ${cells.length === 1 ? 'it' : 'them'}.` : '';
  return `${how}: ${kept} of ${report.total} points: the figures and the best point below are of these only; Resume sweep runs the other ${report.missing.length === 1 ? 'point' : `${report.missing.length} points`} (the points kept are not run again).${gone}`;
}

/**
 * The Sweep tab's header chip, as the Run tab's says how a run stands (s51 newcomer-ed M1: a sweep
 * a reload stopped had none, so a user not reading the tab's body never learnt it stopped): the
 * editor's sweep running ('running', 'cancelling…'), else how the sweep shown stopped: the
 * editor's own sweep that ended so ('cancelled', 'interrupted', 'failed', 'refused'), else a shown
 * report marked interrupted ('interrupted': its points kept, Resume sweep beside them); `cls` the
 * chip's status class (the Run tab's: status-running, status-cancelled, status-failed,
 * status-refused). Null for a finished sweep or none.
 */
export function sweepChip(run: { name: string; status: string; cancelling?: boolean } | null, report: Pick<SweepReport, 'name' | 'interrupted'> | null): { text: string; cls: string } | null {
  if (run?.status === 'running') return { text: run.cancelling ? 'cancelling…' : 'running', cls: 'status-running' };
  const own = run !== null && (report === null || run.name === report.name);
  if (own && (run.status === 'cancelled' || run.status === 'interrupted')) return { text: run.status, cls: 'status-cancelled' };
  if (own && (run.status === 'failed' || run.status === 'refused')) return { text: run.status, cls: `status-${run.status}` };
  if (report?.interrupted) return { text: 'interrupted', cls: 'status-cancelled' };
  return null;
}

/**
 * Whether `report` is the points kept of the editor's sweep `run`, which was cancelled or stopped by a
 * reload (SweepReport.interrupted, the same profile): the report's interrupted line then says how it
 * ended, once, and the sweep's own line is not shown beside it (s48 newcomer-ed 9: two paragraphs said
 * "cancelled; 7 of 9 points are saved … Run sweep again" and "interrupted: 7 of 9 points … Resume sweep").
 */
export function isOwnStoppedReport(report: Pick<SweepReport, 'name' | 'interrupted'>, run: { name: string; status: string } | null): boolean {
  return report.interrupted === true && run !== null && run.name === report.name && (run.status === 'cancelled' || run.status === 'interrupted');
}

/**
 * The note over `report` when the editor's sweep whose line the Sweep tab shows (`run`) is not the
 * report's: one running, or cancelled, failed, refused or interrupted (no report of its own), over a
 * report opened from History; null with no such sweep, or when it finished with this profile's
 * report (its own). Names the report's profile, sweep id and time: a report under a sweep's line read
 * as that sweep's result, its Best point too (s37 newcomer-ed 1).
 */
export function otherSweepNote(report: Pick<SweepReport, 'name' | 'sweepId' | 'createdAt' | 'interrupted'>, run: { name: string; status: string } | null): string | null {
  if (!run || (run.status === 'finished' && run.name === report.name) || isOwnStoppedReport(report, run)) return null;
  const when = report.createdAt ? ` of ${formatRunTime(report.createdAt)}` : '';
  const how = run.status === 'running' ? 'that is running (its report comes when it ends)' : `that was ${run.status}`;
  return `The report below is another sweep: ${report.name}, sweep ${report.sweepId}${when}; not the sweep of ${run.name} ${how}.`;
}

/**
 * The table's rows ranked by `metric` (sweepTable's cells and columns, a `rank` column first and
 * the ★ column headed "best"): best first in the figure's `better` direction, rows without a value
 * last (a max-rate point no rate meets, a failed point), unranked; a figure with no better way (pool
 * pages, mean occupancy) keeps point order and ranks nothing. Ties keep point order.
 */
export function rankedSweepTable(report: SweepReport, metric: SweepMetric): ChartTable {
  const t = sweepTable(report);
  const value = (i: number): number | undefined => report.rows[i]!.metrics[metric.key] as number | undefined;
  const sign = metric.better === 'higher' ? -1 : metric.better === 'lower' ? 1 : 0;
  const order = report.rows.map((_, i) => i);
  if (sign !== 0) order.sort((a, b) => (value(a) === undefined ? 1 : 0) - (value(b) === undefined ? 1 : 0) || (value(a) !== undefined && value(b) !== undefined ? sign * (value(a)! - value(b)!) : 0) || a - b);
  let rank = 0;
  return {
    columns: ['rank', 'best', ...t.columns.slice(1)],
    rows: order.map((i) => [sign !== 0 && value(i) !== undefined ? String(++rank) : '', ...t.rows[i]!]),
  };
}

/**
 * What `report`'s modelled figures assumed, a sentence each, only what some row has: the GPU(s)
 * the step times were modelled for (SweepReportRow.gpu), the SLO(s) the points were judged by with
 * the fraction of requests that must meet it (core/format.ts sloBoundsText), the user-given price per GPU-hour of each model priced (core/sweepFigures.ts gpuPrices), and the step-time settings (SweepReportRow.stepTime), each said assumed or the
 * profile's. Several distinct values (an axis over them) are listed each once.
 */
export function sweepAssumptions(report: SweepReport): string[] {
  const distinct = (texts: Array<string | undefined>): string[] => [...new Set(texts.filter((t): t is string => t !== undefined))];
  const lines: string[] = [];
  const gpus = distinct(report.rows.map((r) => r.gpu));
  if (gpus.length > 0) lines.push(`GPU: ${gpus.join(', ')} (the step times modelled for its datasheet peaks, not measured on it)`);
  const prices = gpuPrices(report.rows).filter((p) => p.usd !== undefined);
  if (prices.length > 0) lines.push(`price per GPU-hour: ${prices.map((p) => `${p.gpu} ${formatUsd(p.usd!)}`).join(', ')} (user-given, not built-in figures: what the $ / 1M output tokens are figured at)`);
  const slos = distinct(report.rows.map((r) => sloBoundsText(r.metrics) ?? undefined));
  if (slos.length > 0) lines.push(`SLO: ${slos.join('; ')} (the profile's slo; "requests meeting the SLO" is the fraction that did)`);
  const settings = distinct(
    report.rows.map((r) => {
      const st = r.stepTime;
      if (!st) return undefined;
      const from = (name: string) => stepTimeFrom(st, name);
      const ar = st.allReduce;
      return [
        `compute_efficiency ${formatSignificant(st.computeEfficiency)} (${from('compute_efficiency')})`,
        `memory_efficiency ${formatSignificant(st.memoryEfficiency)} (${from('memory_efficiency')})`,
        `overhead_ms ${formatSignificant(st.overheadMs)} (${from('overhead_ms')})`,
        // In the user's terms (s48): a fixed cost a call plus the bytes over the bus bandwidth, then where both come from.
        // The ring's step latency is the report's, the runner's RING_STEP_LATENCY_S (SweepStepTimeAssumptions ringStepLatencyS); none in older reports.
        // Where NCCL runs NVLS, its own latency a call (nvlsLatencyS, s50) in place of the ring's steps; a report before s50 has none and keeps the ring's words.
        ...(ar
          ? [`an all-reduce costs ${ar.given?.includes('latency_us') ? '' : '~'}${formatDuration(ar.latencyS * 1e9)} a call${ar.ringStepLatencyS !== undefined && !ar.given?.includes('latency_us') ? (ar.nvlsBusBytesPerSec !== undefined ? (ar.nvlsLatencyS !== undefined ? ` (NCCL past 4 MiB: ~${formatDuration(ar.nvlsLatencyS * 1e9)}, its NVLink SHARP all-reduce's)` : ` (NCCL past 4 MiB: ~${formatDuration(ar.ringStepLatencyS * 1e9)} for each of its ring's 2 · (tp − 1) steps)`) : ` (NCCL's ring past 4 MiB: ~${formatDuration(ar.ringStepLatencyS * 1e9)} for each of its 2 · (tp − 1) steps)`) : ''} + its bytes / bus bandwidth, the interconnect's × ${formatSignificant(ar.oneShotEfficiency)} (one-shot), ${formatSignificant(ar.twoShotEfficiency)} (two-shot, NCCL ring), ${formatSignificant(ar.multimemEfficiency)} (multimem)${ar.nvlsBusBytesPerSec !== undefined ? `, and past 4 MiB NCCL's NVLink SHARP all-reduce (NVLS) at ${formatRate(ar.nvlsBusBytesPerSec, 'B/s')} ${ar.nvlsLatencyS !== undefined ? 'peak ' : ''}bus bandwidth (nccl-tests' busbw on H100 SXM, NVIDIA/nccl#1455${ar.nvlsLatencyS !== undefined ? "; its latency a call fitted to Azure's published NVLS table on 8 H200" : ''}) in place of its ring` : ar.ringEfficiency !== undefined ? `, ${formatSignificant(ar.ringEfficiency)} (NCCL ring past 4 MiB)` : ''} (${allReduceFrom(ar)})`]
          : []),
      ].join(', ');
    }),
  );
  if (settings.length > 0) lines.push(`step time: ${settings.join('; ')}`);
  return lines;
}

/**
 * The Sweep tab as Markdown for a design doc (its Copy as Markdown; the extension puts it on the
 * clipboard): a heading (sweepTitle, "modelled" where the figures are), the interrupted line, what
 * it was ranked by, the assumptions (sweepAssumptions), the ranked table (rankedSweepTable: the
 * cells as the tab shows them, each figure's header with its unit and source), the best point and
 * its notes (sweepBestText), and where the figures come from (core/sweepFigures.ts sweepProvenance,
 * with what the step times leave out). The one table writer: core/format.ts markdownTable.
 */
export function sweepMarkdown(report: SweepReport, metric: SweepMetric): string {
  const t = rankedSweepTable(report, metric);
  const figureColumns = new Set(metricsOf(report).map((m) => metricHeader(m, reportScale(report, m).unit)));
  const { best, notes, tied } = sweepBestText(report);
  const modelled = report.rows.some((r) => SWEEP_METRICS.some((m) => m.source === 'modelled' && r.metrics[m.key] !== undefined));
  const interrupted = interruptedText(report);
  return [
    `### ${sweepTitle(report)}${modelled ? ' (modelled)' : ''}`,
    '',
    `Sweep ${report.sweepId}, job ${report.job}, ${report.createdAt}: ${formatCount(report.total - report.missing.length)} of ${formatCount(report.total)} points.${interrupted ? ` ${interrupted}` : ''}`,
    '',
    ...sweepAssumptions(report).map((line) => `- ${line}`),
    `- ranked by ${metricHeader(metric, reportScale(report, metric).unit)}${metric.better ? `, ${metric.better} first` : ' (no better way: point order)'}`,
    '',
    ...markdownTable(t.columns, t.rows, t.columns.map((c) => c === 'rank' || figureColumns.has(c))),
    '',
    best,
    ...(tied.length > 0 ? [`- tied with it: ${tied.join('; ')}`] : []),
    ...notes.map((n) => `- ${n}`),
    '',
    ...sweepProvenance(report).map((line) => `- ${line}`),
    '',
  ].join('\n');
}

/**
 * What a decode chart's error bars are, its subtitle: "dots: medians; bars: p10–p90 of each point's
 * decode-time samples in its benchmark, measured on AMD EPYC 9B45 (…)" (describeEnvironment; "on N
 * machines" when the report's rows ran on several).
 */
export function errorBarsNote(report: Pick<SweepReport, 'environments'>): string {
  const envs = Object.values(report.environments);
  return `dots: medians; bars: p10–p90 of each point's decode-time samples in its benchmark, measured on ${envs.length === 1 ? describeEnvironment(envs[0]!) : `${envs.length} machines`}`;
}

/**
 * The Sweep tab's caption under its charts, so that a screenshot in a design doc keeps where its
 * figures came from (s49 newcomer-ed 6): the model(s), the GPU(s) the modelled figures were modelled
 * for (SweepReportRow.gpu), the profile, sweep id and job, the dtype and workload (s50), then which figures are modelled (each
 * point's simulation) and which measured, and on what machine (describeEnvironment; "N machines"
 * when several): "Llama-3.1-8B · page-size.attn.yaml · sweep d4cf7d4c (job both) · modelled for H100
 * SXM: internal fragmentation, … · measured on AMD EPYC (…): decode time per token (median, p10–p90)".
 */
export function sweepCaption(report: SweepReport): string {
  const has = (m: SweepMetric) => report.rows.some((r) => r.metrics[m.key] !== undefined);
  const of = (source: SweepMetric['source']) => SWEEP_METRICS.filter((m) => m.source === source && has(m)).map((m) => (m.key === 'decodeNsPerToken' && report.rows.some((r) => r.metrics.decodeP10NsPerToken !== undefined) ? `${m.label} (median, p10–p90)` : m.label));
  const gpus = [...new Set(report.rows.map((r) => r.gpu).filter((g): g is string => g !== undefined))];
  const envs = Object.values(report.environments);
  const modelled = of('modelled');
  const measured = of('measured');
  const distinct = (texts: Array<string | undefined>): string[] => [...new Set(texts.filter((t): t is string => t !== undefined))];
  // Its dtype and workload (SweepReportRow.dtype, kvDtype, workload; each value once where an axis varies it): s50 sweepchart.
  const dtypes = distinct(report.rows.map((r) => (r.dtype === undefined ? undefined : r.kvDtype !== undefined && r.kvDtype !== r.dtype ? `${r.dtype} (KV ${r.kvDtype})` : r.dtype)));
  const workloads = distinct(report.rows.map((r) => (r.workload ? workloadText(r.workload) : undefined)));
  return [
    ...(report.models && report.models.length > 0 ? [report.models.join(', ')] : []),
    report.name,
    `sweep ${report.sweepId} (job ${report.job})`,
    ...(dtypes.length > 0 ? [`dtype ${dtypes.join(', ')}`] : []),
    ...(workloads.length > 0 ? [`workload ${workloads.join('; ')}`] : []),
    ...(modelled.length > 0 ? [`modelled${gpus.length > 0 ? ` for ${gpus.join(', ')}` : ''}: ${modelled.join(', ')}`] : []),
    ...(measured.length > 0 ? [`measured on ${envs.length === 1 ? describeEnvironment(envs[0]!) : `${envs.length} machines`}: ${measured.join(', ')}`] : []),
  ].join(' · ');
}

/** A point's workload in brief (SweepReportRow.workload): "trace chat-trace.jsonl", "600 requests at 20 requests/s". */
export function workloadText(w: SweepWorkload): string {
  if (w.trace !== undefined) return `trace ${w.trace}`;
  return [w.requests !== undefined ? `${formatCount(w.requests)} requests` : undefined, w.arrivalRate !== undefined ? `at ${formatSignificant(w.arrivalRate)} requests/s` : undefined].filter((t) => t !== undefined).join(' ');
}

/**
 * What the Sweep tab's Export PNG says about itself, a line each, drawn over its charts
 * (webview/png.ts composeChartsPng): the title (sweepTitle), the caption (sweepCaption: the model,
 * profile, sweep id and job, the GPU the modelled figures are for, the machine the measured ones
 * were timed on), the points it holds and how many were not run, the merge's date in UTC, and the best point's line
 * (sweepBestText). An image pasted into a design doc carries no other context.
 */
export function sweepPngCaption(report: SweepReport): string[] {
  const kept = report.total - report.missing.length;
  // The date in UTC, as an image is read anywhere: "2026-12-06 13:54 UTC".
  const merged = report.createdAt && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(report.createdAt) ? ` · merged ${report.createdAt.slice(0, 10)} ${report.createdAt.slice(11, 16)} UTC` : '';
  return [
    sweepTitle(report),
    sweepCaption(report),
    `${formatCount(kept)} of ${formatCount(report.total)} points${report.missing.length > 0 ? `; not run: ${report.missing.length === 1 ? 'the other' : `the other ${formatCount(report.missing.length)}`}${report.interrupted ? ' (the sweep was interrupted)' : ''}` : ''}${merged}`,
    sweepBestText(report).best,
  ];
}

/**
 * History's points cell of a sweep: "24" when every point has a result, "9 of 24" when some are
 * missing (a shard's merge), "interrupted, 9 of 24 points" for the report of a sweep cancelled or
 * interrupted with points kept (SweepListEntry.interrupted), which a plain count did not tell from
 * a finished sweep (s41 csv41 left 3).
 */
export function sweepPointsText(s: Pick<SweepListEntry, 'points' | 'total' | 'interrupted'>): string {
  if (s.interrupted) return `interrupted, ${formatCount(s.points)} of ${formatCount(s.total)} points`;
  return s.points === s.total ? formatCount(s.total) : `${formatCount(s.points)} of ${formatCount(s.total)}`;
}
