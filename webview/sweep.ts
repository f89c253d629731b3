/**
 * The dashboard's sweep view as pure functions of a merged report (core/protocol/sweep.ts) and
 * the theme palette: one line chart per axis for the chosen figure (x: that axis's values; one
 * line per combination of the other axes' values and per environment), and the report as a
 * table with the best point marked. Figures come from the report as `attnscope merge` built it:
 * pool and latency figures modelled by the simulation, decode time measured on each point's
 * machine.
 */
import type { ChartConfiguration, ChartDataset } from 'chart.js';
import { durationUnit, formatCount, formatDurationIn, formatPercent, formatSignificant } from '../core/format';
import type { SweepReport, SweepReportRow } from '../core/protocol/sweep';
import { SWEEP_METRICS, type SweepMetric } from '../core/sweepFigures';
import type { ChartTable } from './charts';
import { withAlpha, type Palette } from './theme';

/** How a figure reads over the values shown together (a table column and its charts' y axis). */
export interface MetricScale {
  /** The unit for the axis title ("ms", "%", "tokens/s"); undefined for a plain count. */
  unit: string | undefined;
  /** One value as the table cell and the axis tick write it: "4.37 ms", "9.3%", "1,024". */
  show: (v: number) => string;
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
      const unit = durationUnit(Math.max(0, ...finite.map((v) => Math.abs(v * toNs))));
      return { unit, show: (v) => formatDurationIn(v * toNs, unit) };
    }
    case 'fraction':
      return { unit: '%', show: (v) => formatPercent(v) };
    case 'count':
      return { unit: metric.unit, show: (v) => formatCount(v) };
    case 'rate':
      return { unit: metric.unit, show: (v) => (Math.abs(v) >= 1000 ? formatCount(v) : formatSignificant(v)) };
  }
}

/** `metric`'s scale over every row of `report` that has it. */
export function reportScale(report: SweepReport, metric: SweepMetric): MetricScale {
  return metricScale(metric, report.rows.flatMap((r) => (r.metrics[metric.key] === undefined ? [] : [r.metrics[metric.key] as number])));
}

/** The figures some row of `report` has, in SWEEP_METRICS order. */
export function metricsOf(report: SweepReport): SweepMetric[] {
  return SWEEP_METRICS.filter((m) => report.rows.some((r) => r.metrics[m.key] !== undefined));
}

const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));
const envLetter = (report: SweepReport, key: string): string => String.fromCharCode(65 + Object.keys(report.environments).indexOf(key));

/** One chart per axis: x = the axis's values in order; a line per (other axes' values, environment). */
export interface SweepAxisChart {
  axis: string;
  config: ChartConfiguration<'line'>;
  /** Lines drawn (combinations of the other axes × environments). */
  lines: number;
}

/** At most this many lines per chart: past it the chart reads as noise; the table has every row. */
export const MAX_LINES = 12;

export function sweepAxisCharts(report: SweepReport, metric: SweepMetric, p: Palette): SweepAxisChart[] {
  const multiEnv = Object.keys(report.environments).length > 1;
  return report.axes.map((axis) => {
    const others = report.axes.filter((a) => a.key !== axis.key);
    const groups = new Map<string, SweepReportRow[]>();
    for (const r of report.rows) {
      const key = [...others.map((o) => `${o.key.slice(o.key.lastIndexOf('.') + 1)}=${text(r.values[o.key])}`), ...(multiEnv ? [`env ${envLetter(report, r.environmentKey)}`] : [])].join(' ');
      groups.set(key, [...(groups.get(key) ?? []), r]);
    }
    const entries = [...groups.entries()].slice(0, MAX_LINES);
    const datasets: Array<ChartDataset<'line'>> = entries.map(([label, rows], i) => {
      const colour = p.series[i % Math.max(1, p.series.length)] ?? p.foreground;
      return {
        label: label || metric.label,
        data: axis.values.map((v) => {
          const row = rows.find((r) => text(r.values[axis.key]) === text(v));
          return row?.metrics[metric.key] ?? null;
        }) as number[],
        borderColor: colour,
        backgroundColor: withAlpha(colour, 0.4),
        borderWidth: p.lineWidth,
        spanGaps: false,
      };
    });
    const font = { family: p.fontFamily, size: p.fontSize };
    const { unit, show } = reportScale(report, metric);
    const title = (text: string) => ({ display: true, text, color: p.foreground, font });
    return {
      axis: axis.key,
      lines: datasets.length,
      config: {
        type: 'line',
        data: { labels: axis.values.map(text), datasets },
        options: {
          responsive: true,
          maintainAspectRatio: false,
          animation: false,
          plugins: {
            title: { display: true, text: `${metric.label} vs ${axis.key} (${metric.source})`, color: p.foreground, font: { ...font, weight: 'bold' } },
            legend: { display: datasets.length > 1, labels: { color: p.foreground, font } },
          },
          scales: {
            x: { title: title(axis.key), ticks: { color: p.foreground, font }, grid: { color: p.grid } },
            y: { title: title(unit ? `${metric.label} (${unit})` : metric.label), ticks: { color: p.foreground, font, callback: (v) => show(Number(v)) }, grid: { color: p.grid } },
          },
        },
      },
    };
  });
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

/** The report as a table: axis values, environment (when several), every figure with its unit and source (metricHeader); the best row marked ★. */
export function sweepTable(report: SweepReport): ChartTable {
  const metrics = metricsOf(report);
  const multiEnv = Object.keys(report.environments).length > 1;
  const scales = metrics.map((m) => reportScale(report, m));
  const shows = scales.map((s) => s.show);
  return {
    columns: ['', ...report.axes.map((a) => a.key), ...(multiEnv ? ['env'] : []), ...metrics.map((m, i) => metricHeader(m, scales[i]!.unit)), 'status'],
    rows: report.rows.map((r) => [
      report.best && report.best.id === r.id && report.best.environmentKey === r.environmentKey ? '★' : '',
      ...report.axes.map((a) => text(r.values[a.key])),
      ...(multiEnv ? [envLetter(report, r.environmentKey)] : []),
      ...metrics.map((m, i) => (r.metrics[m.key] === undefined ? '' : shows[i]!(r.metrics[m.key] as number))),
      r.status,
    ]),
  };
}
