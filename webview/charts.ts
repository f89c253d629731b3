/**
 * The dashboard's charts as pure functions of a run and the theme palette: each returns the
 * chart.js configuration and the same numbers as a table (shown under the chart for reading
 * exact values and for screen readers). Units: times in ms, rates in GFLOP/s and GB/s (SI),
 * memory in GiB (IEC).
 */
import type { ChartConfiguration, ChartDataset } from 'chart.js';
import type { KernelCase, PoolSample } from '../core/protocol/run';
import { caseLabel } from './compare';
import { formatBytes, formatCount, formatDuration, formatPercent, formatRate } from '../core/format';
import type { ViewRun } from './model';
import { withAlpha, type Palette } from './theme';

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
  config: ChartConfiguration;
  table: ChartTable;
}

const GIB = 1024 ** 3;

function baseOptions(p: Palette, title: string): NonNullable<ChartConfiguration['options']> {
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

function axis(p: Palette, title: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: { display: true, text: title, color: p.foreground, font: { family: p.fontFamily, size: p.fontSize } },
    ticks: { color: p.foreground, font: { family: p.fontFamily, size: p.fontSize - 1 } },
    grid: { color: p.grid },
    border: { color: p.grid },
    ...extra,
  };
}

/**
 * Tick labels of a log axis: only the powers of ten, compact ("0.1", "1", "10", "1k", "10k"), so
 * neighbours never overlap at the default width (chart.js printed "700.00 1,000.00").
 */
export function logTick(value: number | string): string {
  const v = Number(value);
  if (!(v > 0)) return '';
  const k = Math.log10(v);
  if (Math.abs(k - Math.round(k)) > 1e-9) return '';
  if (v >= 1e3) return `${Number((v / 1e3 ** Math.floor(Math.log10(v) / 3)).toPrecision(3))}${['', 'k', 'M', 'G', 'T', 'P'][Math.floor(Math.log10(v) / 3)] ?? ''}`;
  return String(Number(v.toPrecision(1)));
}

/** Options of a logarithmic axis with logTick labels. */
function logAxis(p: Palette, title: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const base = axis(p, title, { type: 'logarithmic', ...extra });
  return { ...base, ticks: { ...(base['ticks'] as object), autoSkip: true, maxRotation: 0, callback: logTick } };
}

function timedCases(run: ViewRun): KernelCase[] {
  return run.cases.filter((c) => c.kernel !== 'reference');
}

/** Median per shape with the p10–p90 range as a floating bar; log time axis. */
export function timingsChart(run: ViewRun, p: Palette): ChartSpec {
  const cases = timedCases(run);
  const labels = cases.map(caseLabel);
  const ms = (ns: number): number => ns / 1e6;
  const config: ChartConfiguration = {
    type: 'bar',
    data: {
      labels,
      datasets: [
        {
          type: 'bar',
          label: 'p10–p90',
          data: cases.map((c) => [ms(c.p10Ns), ms(Math.max(c.p90Ns, c.p10Ns * 1.0001))]),
          backgroundColor: withAlpha(p.series[0]!, 0.35),
          borderColor: p.series[0],
          borderWidth: p.lineWidth,
          barPercentage: 0.5,
          minBarLength: 3,
          order: 1, // drawn first: the median marker stays on top
        } as ChartDataset<'bar', [number, number][]>,
        {
          type: 'line',
          label: 'median',
          data: cases.map((c) => ms(c.medianNs)),
          showLine: false,
          pointStyle: 'line',
          pointRadius: 14,
          pointBorderWidth: p.lineWidth + 1.5,
          borderColor: p.series[1],
          backgroundColor: p.series[1],
          order: 0,
        } as ChartDataset<'line', number[]>,
      ],
    } as ChartConfiguration['data'],
    options: {
      ...baseOptions(p, 'Kernel time per shape (median, p10–p90)'),
      scales: { x: axis(p, 'case', { ticks: { color: p.foreground, autoSkip: true, maxRotation: 0 } }), y: logAxis(p, 'time per call (ms, log)') },
    } as ChartConfiguration['options'],
  };
  return {
    id: 'timings',
    title: 'Kernel timings',
    empty: cases.length === 0 ? (run.status === 'running' ? 'Waiting for the first case…' : 'This run has no timed cases.') : null,
    config,
    table: {
      columns: ['case', 'median', 'p10', 'p90', 'samples', 'max |err|'],
      rows: cases.map((c) => [caseLabel(c), formatDuration(c.medianNs), formatDuration(c.p10Ns), formatDuration(c.p90Ns), String(c.samplesNs.length), c.maxAbsErr.toExponential(2)]),
    },
  };
}

/** Achieved GFLOP/s (prefill, left axis) and GB/s (decode, right axis); fraction of peak in the tooltip and table. */
export function throughputChart(run: ViewRun, p: Palette): ChartSpec {
  const cases = timedCases(run);
  const labels = cases.map(caseLabel);
  const isDecode = (c: KernelCase): boolean => c.kernel === 'paged_decode';
  const fractions = cases.map((c) => c.fractionOfPeak);
  const config: ChartConfiguration = {
    type: 'bar',
    data: {
      labels,
      datasets: [
        { label: 'GFLOP/s (prefill)', data: cases.map((c) => (isDecode(c) ? null : c.gflops)), yAxisID: 'yFlops', backgroundColor: withAlpha(p.series[0]!, 0.7), borderColor: p.series[0], borderWidth: p.lineWidth },
        { label: 'GB/s (decode)', data: cases.map((c) => (isDecode(c) ? c.gbps : null)), yAxisID: 'yBytes', backgroundColor: withAlpha(p.series[2]!, 0.7), borderColor: p.series[2], borderWidth: p.lineWidth },
      ],
    } as ChartConfiguration['data'],
    options: {
      ...baseOptions(p, 'Achieved throughput (fraction of this machine’s peak in the tooltip)'),
      plugins: {
        ...baseOptions(p, 'Achieved throughput (fraction of this machine’s peak in the tooltip)').plugins,
        tooltip: { callbacks: { footer: (items: Array<{ dataIndex: number }>) => `${formatPercent(fractions[items[0]?.dataIndex ?? 0])} of ${cases[items[0]?.dataIndex ?? 0]?.ceiling ?? 'peak'}` } },
      },
      scales: {
        x: axis(p, 'case'),
        yFlops: axis(p, 'GFLOP/s', { type: 'linear', position: 'left', beginAtZero: true }),
        yBytes: axis(p, 'GB/s', { type: 'linear', position: 'right', beginAtZero: true, grid: { drawOnChartArea: false, color: p.grid } }),
      },
    } as ChartConfiguration['options'],
  };
  return {
    id: 'throughput',
    title: 'Throughput',
    empty: cases.length === 0 ? 'No timed cases yet.' : null,
    config,
    table: {
      columns: ['case', 'achieved', 'fraction of peak', 'peak'],
      rows: cases.map((c) => [caseLabel(c), isDecode(c) ? formatRate(c.gbps * 1e9, 'B/s') : formatRate(c.gflops * 1e9, 'FLOP/s'), formatPercent(c.fractionOfPeak), c.ceiling ?? 'peak']),
    },
  };
}

interface Ceiling {
  label: string;
  flopsPerSec: number;
}

/** Compute and bandwidth ceilings for the run's backend, from environment.peaks. */
export function ceilings(run: ViewRun): { compute: Ceiling[]; bytesPerSec: number | null } {
  const peaks = run.environment?.peaks;
  const gpu = run.cases.some((c) => c.backend === 'cuda');
  const compute: Ceiling[] = [];
  if (gpu) {
    if (peaks?.gpuFlopsPerSec) compute.push({ label: 'GPU peak', flopsPerSec: peaks.gpuFlopsPerSec });
    return { compute, bytesPerSec: peaks?.gpuCopyBytesPerSec ?? null };
  }
  if (peaks?.fp32FlopsPerSec) compute.push({ label: 'fp32 FMA peak', flopsPerSec: peaks.fp32FlopsPerSec });
  if (peaks?.bf16AmxFlopsPerSec) compute.push({ label: 'bf16 AMX peak', flopsPerSec: peaks.bf16AmxFlopsPerSec });
  if (peaks?.avx512Bf16FlopsPerSec) compute.push({ label: 'bf16 AVX512-BF16 peak', flopsPerSec: peaks.avx512Bf16FlopsPerSec });
  return { compute, bytesPerSec: peaks?.readBytesPerSec ?? null };
}

/** Roofline: arithmetic intensity (FLOP/byte) vs achieved GFLOP/s, log–log, with the machine's roofs. */
export function rooflineChart(run: ViewRun, p: Palette): ChartSpec {
  const cases = timedCases(run).filter((c) => c.bytes > 0 && c.flops > 0);
  const points = cases.map((c) => ({ x: c.flops / c.bytes, y: c.gflops, label: caseLabel(c), decode: c.kernel === 'paged_decode' }));
  const { compute, bytesPerSec } = ceilings(run);
  const xs = points.map((q) => q.x);
  const xMin = Math.min(0.1, ...xs) / 2;
  const xMax = Math.max(1000, ...xs) * 2;
  const roofs: ChartDataset<'line', Array<{ x: number; y: number }>>[] = [];
  compute.forEach((ceil, i) => {
    const peakG = ceil.flopsPerSec / 1e9;
    const line = bytesPerSec
      ? [{ x: xMin, y: (xMin * bytesPerSec) / 1e9 }, { x: ceil.flopsPerSec / bytesPerSec, y: peakG }, { x: xMax, y: peakG }]
      : [{ x: xMin, y: peakG }, { x: xMax, y: peakG }];
    roofs.push({ type: 'line', label: `${ceil.label} ${formatRate(ceil.flopsPerSec, 'FLOP/s')}`, data: line, borderColor: p.series[4 + (i % 2)], borderWidth: p.lineWidth, borderDash: i === 0 ? [] : [6, 4], pointRadius: 0, fill: false });
  });
  if (compute.length === 0 && bytesPerSec) {
    roofs.push({ type: 'line', label: `read bandwidth ${formatRate(bytesPerSec, 'B/s')}`, data: [{ x: xMin, y: (xMin * bytesPerSec) / 1e9 }, { x: xMax, y: (xMax * bytesPerSec) / 1e9 }], borderColor: p.series[4], borderWidth: p.lineWidth, pointRadius: 0, fill: false });
  }
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
      ...baseOptions(p, bytesPerSec || compute.length ? 'Roofline (this machine’s measured ceilings)' : 'Roofline (no measured peaks in this run)'),
      scales: {
        x: logAxis(p, 'arithmetic intensity (FLOP/byte, log)', { min: xMin, max: xMax }),
        y: logAxis(p, 'GFLOP/s (log)'),
      },
    } as ChartConfiguration['options'],
  };
  return {
    id: 'roofline',
    title: 'Roofline',
    empty: points.length === 0 ? 'No timed cases yet.' : null,
    config,
    table: {
      columns: ['case', 'FLOP/byte', 'GFLOP/s'],
      rows: points.map((q) => [q.label, q.x.toPrecision(3), q.y.toPrecision(4)]),
    },
  };
}

/** Device memory split: weights / KV pool / activation peak / free, in GiB (one stacked bar). */
export function memoryChart(run: ViewRun, p: Palette): ChartSpec {
  const e = run.estimate;
  const deviceGib = run.profile?.device.memoryGib ?? null;
  const parts: Array<[string, number, string]> = [];
  if (e) {
    parts.push(['weights', e.weightsBytes, p.series[0]!]);
    parts.push(['KV pool', e.pool.budgetBytes, p.series[2]!]);
    parts.push(['activations (peak)', e.pool.activationPeakBytes, p.series[1]!]);
    // Runs recorded before engine reserves were modelled have no such field.
    const reserve = e.pool.engineReserveBytes ?? 0;
    if (reserve > 0) parts.push(['engine reserves', reserve, p.series[3] ?? p.muted]);
    if (deviceGib !== null) {
      const free = deviceGib * GIB - e.weightsBytes - e.pool.budgetBytes - e.pool.activationPeakBytes - reserve;
      parts.push(['free', Math.max(0, free), withAlpha(p.muted, 0.35)]);
    }
  }
  const config: ChartConfiguration = {
    type: 'bar',
    data: {
      labels: [deviceGib !== null ? `device ${deviceGib} GiB` : 'memory'],
      datasets: parts.map(([label, bytes, color]) => ({ label, data: [bytes / GIB], backgroundColor: color, borderColor: p.foreground, borderWidth: p.kind.startsWith('high') ? 2 : 0 })),
    },
    options: {
      ...baseOptions(p, 'Memory breakdown (estimate)'),
      indexAxis: 'y',
      scales: { x: axis(p, 'GiB', { stacked: true, beginAtZero: true }), y: axis(p, '', { stacked: true }) },
    } as ChartConfiguration['options'],
  };
  return {
    id: 'memory',
    title: 'Memory',
    empty: e ? null : 'No estimate for this run.',
    config,
    table: {
      columns: ['part', 'bytes', 'size'],
      rows: [
        ...parts.map(([label, bytes]) => [label, String(Math.round(bytes)), formatBytes(bytes)]),
        ...(e ? [['KV per token (all layers)', String(e.kvBytesPerToken), formatBytes(e.kvBytesPerToken)], ['pool pages', String(e.pool.pages), `${e.pool.tokens} tokens`]] : []),
      ],
    },
  };
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
 * The pool's summary in one line: peak and mean occupancy (held pages / pool), preemptions, the
 * prefix-cache hit rate; from the run's PoolSummary, or from the samples while the run streams.
 */
export function poolSummaryLine(run: ViewRun): string | null {
  const s = run.pool?.summary;
  if (s) {
    const parts = [`peak occupancy ${formatPercent(s.peakOccupancy)} (mean ${formatPercent(s.meanOccupancy)})`, `${formatCount(s.preemptions)} preemption${s.preemptions === 1 ? '' : 's'}`, `prefix-cache hit rate ${formatPercent(s.prefixHitRate)}`];
    parts.push(`${formatCount(s.completed)} of ${formatCount(s.requests)} requests completed${s.rejected ? `, ${formatCount(s.rejected)} rejected` : ''}`);
    return parts.join(' · ');
  }
  const samples = run.poolSamples;
  if (samples.length === 0) return null;
  const last = samples[samples.length - 1]!;
  const pool = last.pagesUsed + last.pagesCached + last.pagesFree;
  const peak = Math.max(...samples.map((x) => x.pagesUsed));
  return `so far: peak occupancy ${formatPercent(pool > 0 ? peak / pool : 0)} · ${formatCount(last.preempted)} preempted now · prefix-cache hit rate ${formatPercent(last.prefixHitRate)}`;
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
 * cache, evicted LRU when a page is needed) and free (no holder, no hash). Held pages are drawn
 * solid, free ones faint, so a pool at 2% occupancy looks empty whatever the cache keeps.
 * Internal fragmentation (%) on the right axis, drawn over the areas; preemptions (cumulative)
 * on a second right axis. A series that is zero throughout is left out (with its axis). Over
 * POOL_CHART_MAX_POINTS samples, thinSamples picks those drawn.
 */
export function poolTimelineChart(run: ViewRun, p: Palette): ChartSpec {
  const samples = run.poolSamples;
  const drawn = thinSamples(samples);
  const pageSize = poolPageSize(run) ?? 1;
  const xy = (f: (s: PoolSample) => number): Array<{ x: number; y: number }> => drawn.map((s) => ({ x: s.t, y: f(s) }));
  const any = (f: (s: PoolSample) => number): boolean => samples.some((s) => f(s) !== 0);
  const waste = (s: PoolSample): number => Math.max(0, s.pagesUsed - s.tokens / pageSize);
  const datasets: ChartDataset[] = [poolArea(p, 'held: pages of tokens', xy((s) => s.tokens / pageSize), p.series[0]!, 0.7)];
  if (any(waste)) datasets.push(poolArea(p, 'held: internal waste', xy(waste), p.series[4]!, 0.7));
  if (any((s) => s.pagesCached)) datasets.push(poolArea(p, 'cached (evictable: free for allocation)', xy((s) => s.pagesCached), p.series[3]!, 0.18, [4, 3]));
  datasets.push(poolArea(p, 'free', xy((s) => s.pagesFree), p.muted, 0.1));
  const frag = any((s) => s.internalFragmentation);
  if (frag) datasets.push({ type: 'line', label: 'internal fragmentation (%)', data: xy((s) => s.internalFragmentation * 100), yAxisID: 'yPct', borderColor: p.series[5], borderWidth: p.lineWidth + 0.5, borderDash: [4, 3], pointRadius: 0, fill: false, order: 0, normalized: true });
  const preempted = any((s) => s.preempted);
  if (preempted) datasets.push({ type: 'line', label: 'preempted (waiting to recompute)', data: xy((s) => s.preempted), yAxisID: 'yCount', stepped: true, borderColor: p.series[1], borderWidth: p.lineWidth + 0.5, pointRadius: 0, fill: false, order: 0, normalized: true });
  const numPages = run.pool?.numPages ?? (samples.length > 0 ? samples[0]!.pagesUsed + samples[0]!.pagesCached + samples[0]!.pagesFree : undefined);
  const scales: Record<string, unknown> = {
    x: axis(p, 'simulated time (s)', { type: 'linear' }),
    y: axis(p, numPages !== undefined ? `pages (pool: ${formatCount(numPages)})` : 'pages', { stacked: true, beginAtZero: true, ...(numPages !== undefined ? { max: numPages } : {}) }),
  };
  if (frag) scales['yPct'] = axis(p, 'fragmentation %', { position: 'right', min: 0, max: 100, grid: { drawOnChartArea: false, color: p.grid } });
  if (preempted) scales['yCount'] = axis(p, 'preempted', { position: 'right', beginAtZero: true, ticks: { precision: 0, color: p.foreground }, grid: { drawOnChartArea: false, color: p.grid } });
  const config: ChartConfiguration = {
    type: 'line',
    data: { datasets } as ChartConfiguration['data'],
    options: { ...baseOptions(p, 'KV page pool over simulated time (held pages solid; cached and free pages are free for allocation)'), scales } as ChartConfiguration['options'],
  };
  return {
    id: 'poolTimeline',
    title: 'Page pool',
    empty: samples.length === 0 ? (run.status === 'running' ? 'Waiting for the pool simulation…' : 'This run has no pool simulation (add a workload to the profile).') : null,
    summary: poolSummaryLine(run),
    config,
    table: {
      columns: ['t (s)', 'held', 'cached', 'free', 'free for allocation', 'tokens', 'internal frag.', 'running', 'waiting', 'preempted'],
      rows: samples.map((s) => [s.t.toFixed(2), String(s.pagesUsed), String(s.pagesCached), String(s.pagesFree), String(s.pagesCached + s.pagesFree), String(s.tokens), formatPercent(s.internalFragmentation), String(s.running), String(s.waiting), String(s.preempted)]),
    },
  };
}

/** Paged pool vs contiguous allocation baselines: useful-token fraction and fragmentation. */
export function poolBaselinesChart(run: ViewRun, p: Palette): ChartSpec {
  const pool = run.pool;
  const rows: Array<{ name: string; useful: number; internal: number; external: number; peak: number | null }> = [];
  if (pool) {
    rows.push({ name: `paged (page_size ${pool.pageSize})`, useful: pool.summary.usefulTokenFraction, internal: pool.summary.meanInternalFragmentation, external: 0, peak: null });
    for (const b of pool.baselines) {
      rows.push({ name: b.name === 'contiguous_max_model_len' ? 'contiguous, max_model_len' : 'contiguous, prompt+output', useful: b.usefulTokenFraction, internal: b.internalFragmentation, external: b.externalFragmentation, peak: b.peakConcurrency });
    }
  }
  const config: ChartConfiguration = {
    type: 'bar',
    data: {
      labels: rows.map((r) => r.name),
      datasets: [
        { label: 'useful KV memory', data: rows.map((r) => r.useful * 100), backgroundColor: withAlpha(p.series[2]!, 0.75), borderColor: p.series[2], borderWidth: p.lineWidth },
        { label: 'internal fragmentation', data: rows.map((r) => r.internal * 100), backgroundColor: withAlpha(p.series[4]!, 0.75), borderColor: p.series[4], borderWidth: p.lineWidth },
        { label: 'external fragmentation', data: rows.map((r) => r.external * 100), backgroundColor: withAlpha(p.series[5]!, 0.75), borderColor: p.series[5], borderWidth: p.lineWidth },
      ],
    },
    options: {
      ...baseOptions(p, 'Paged pool vs contiguous allocation'),
      scales: { x: axis(p, ''), y: axis(p, '% of reserved KV memory', { min: 0, max: 100 }) },
    } as ChartConfiguration['options'],
  };
  return {
    id: 'poolBaselines',
    title: 'Baselines',
    empty: pool ? null : run.status === 'running' ? 'Baselines come when the simulation ends.' : 'This run has no pool simulation.',
    config,
    table: {
      columns: ['allocation', 'useful', 'internal frag.', 'external frag.', 'peak concurrency'],
      rows: rows.map((r) => [r.name, formatPercent(r.useful), formatPercent(r.internal), formatPercent(r.external), r.peak === null ? '' : String(r.peak)]),
    },
  };
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
      return [run.poolSamples, run.pool, run.profile, run.status];
    case 'poolBaselines':
      return [run.pool, run.status];
    default:
      return [run];
  }
}
