/**
 * The dashboard's sweep view as pure functions of a merged report (core/protocol/sweep.ts) and
 * the theme palette: one line chart per axis for the chosen figure (x: that axis's values; one
 * line per combination of the other axes' values and per environment), and the report as a
 * table with the best point marked. Figures come from the report as `attnscope merge` built it:
 * pool and latency figures modelled by the simulation, decode time measured on each point's
 * machine.
 */
import type { ChartConfiguration, ChartDataset } from 'chart.js';
import { formatDuration } from '../core/format';
import type { SweepMetrics, SweepReport, SweepReportRow } from '../core/protocol/sweep';
import type { ChartTable } from './charts';
import { formatPercent } from '../core/format';
import { withAlpha, type Palette } from './theme';

type MetricKey = Exclude<keyof SweepMetrics, 'decodeCase'>;

/** A figure the view can chart: its label, how a value reads, and where it comes from. */
export interface SweepMetric {
  key: MetricKey;
  label: string;
  show: (v: number) => string;
  source: 'modelled' | 'measured';
}

const count = (v: number) => Math.round(v).toLocaleString('en-US');
const seconds = (v: number) => formatDuration(v * 1e9);

export const SWEEP_METRICS: readonly SweepMetric[] = [
  { key: 'internalFragmentation', label: 'internal fragmentation', show: formatPercent, source: 'modelled' },
  { key: 'prefixHitRate', label: 'prefix-cache hit rate', show: formatPercent, source: 'modelled' },
  { key: 'preemptions', label: 'preemptions', show: count, source: 'modelled' },
  { key: 'poolPages', label: 'pool pages', show: count, source: 'modelled' },
  { key: 'meanOccupancy', label: 'occupancy (mean)', show: formatPercent, source: 'modelled' },
  { key: 'throughputTokensPerSec', label: 'output tokens/s (simulated)', show: count, source: 'modelled' },
  { key: 'p99TtftS', label: 'p99 TTFT', show: seconds, source: 'modelled' },
  { key: 'p99TpotS', label: 'p99 TPOT', show: seconds, source: 'modelled' },
  { key: 'sloAttainment', label: 'requests meeting the SLO', show: formatPercent, source: 'modelled' },
  { key: 'goodputRequestsPerSec', label: 'goodput (requests/s)', show: (v) => v.toPrecision(3), source: 'modelled' },
  { key: 'decodeNsPerToken', label: 'decode time per token', show: formatDuration, source: 'measured' },
];

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
    const scale = (title: string) => ({ title: { display: true, text: title, color: p.foreground, font }, ticks: { color: p.foreground, font }, grid: { color: p.grid } });
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
          scales: { x: scale(axis.key), y: scale(metric.label) },
        },
      },
    };
  });
}

/** The report as a table: axis values, environment (when several), every figure; the best row marked ★. */
export function sweepTable(report: SweepReport): ChartTable {
  const metrics = metricsOf(report);
  const multiEnv = Object.keys(report.environments).length > 1;
  return {
    columns: ['', ...report.axes.map((a) => a.key), ...(multiEnv ? ['env'] : []), ...metrics.map((m) => m.label), 'status'],
    rows: report.rows.map((r) => [
      report.best && report.best.id === r.id && report.best.environmentKey === r.environmentKey ? '★' : '',
      ...report.axes.map((a) => text(r.values[a.key])),
      ...(multiEnv ? [envLetter(report, r.environmentKey)] : []),
      ...metrics.map((m) => (r.metrics[m.key] === undefined ? '' : m.show(r.metrics[m.key] as number))),
      r.status,
    ]),
  };
}
