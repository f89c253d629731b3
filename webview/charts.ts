/**
 * The dashboard's charts as pure functions of a run and the theme palette: each returns the
 * chart.js configuration and the same numbers as a table (shown under the chart for reading
 * exact values and for screen readers). Units: times in ms, rates in GFLOP/s and GB/s (SI),
 * memory in GiB (IEC).
 */
import type { ChartConfiguration, ChartDataset } from 'chart.js';
import type { KernelCase } from '../core/protocol/run';
import { caseLabel } from './compare';
import { formatBytes, formatDuration, formatPercent, formatRate } from '../core/format';
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
      scales: { x: axis(p, 'case'), y: axis(p, 'time per call (ms, log)', { type: 'logarithmic' }) },
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
        tooltip: { callbacks: { footer: (items: Array<{ dataIndex: number }>) => `${formatPercent(fractions[items[0]?.dataIndex ?? 0])} of peak` } },
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
      columns: ['case', 'achieved', 'fraction of peak'],
      rows: cases.map((c) => [caseLabel(c), isDecode(c) ? formatRate(c.gbps * 1e9, 'B/s') : formatRate(c.gflops * 1e9, 'FLOP/s'), formatPercent(c.fractionOfPeak)]),
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
        x: axis(p, 'arithmetic intensity (FLOP/byte, log)', { type: 'logarithmic', min: xMin, max: xMax }),
        y: axis(p, 'GFLOP/s (log)', { type: 'logarithmic' }),
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

/**
 * Page-pool timeline, stacked pages: holding tokens (ceil of filled slots / page size is not
 * known per sequence, so tokens / page_size) / internal waste (used − that) / cached / free;
 * internal fragmentation (%) and cumulative preemptions on the right axes.
 */
export function poolTimelineChart(run: ViewRun, p: Palette): ChartSpec {
  const samples = run.poolSamples;
  const pageSize = poolPageSize(run) ?? 1;
  const full = samples.map((s) => ({ x: s.t, y: s.tokens / pageSize }));
  const waste = samples.map((s) => ({ x: s.t, y: Math.max(0, s.pagesUsed - s.tokens / pageSize) }));
  const area = (label: string, data: Array<{ x: number; y: number }>, color: string): ChartDataset<'line', Array<{ x: number; y: number }>> => ({
    type: 'line', label, data, yAxisID: 'y', stack: 'pages', fill: true, backgroundColor: withAlpha(color, 0.55), borderColor: color, borderWidth: p.lineWidth, pointRadius: 0,
  });
  const config: ChartConfiguration = {
    type: 'line',
    data: {
      datasets: [
        area('pages holding tokens', full, p.series[0]!),
        area('internal waste', waste, p.series[4]!),
        area('cached (prefix)', samples.map((s) => ({ x: s.t, y: s.pagesCached })), p.series[3]!),
        area('free', samples.map((s) => ({ x: s.t, y: s.pagesFree })), p.muted),
        { type: 'line', label: 'internal fragmentation (%)', data: samples.map((s) => ({ x: s.t, y: s.internalFragmentation * 100 })), yAxisID: 'yPct', borderColor: p.series[5], borderWidth: p.lineWidth, borderDash: [4, 3], pointRadius: 0, fill: false },
        { type: 'line', label: 'preemptions (cumulative)', data: samples.map((s) => ({ x: s.t, y: s.preempted })), yAxisID: 'yCount', stepped: true, borderColor: p.series[1], borderWidth: p.lineWidth, pointRadius: 0, fill: false },
      ],
    } as ChartConfiguration['data'],
    options: {
      ...baseOptions(p, 'KV page pool over simulated time'),
      scales: {
        x: axis(p, 'simulated time (s)', { type: 'linear' }),
        y: axis(p, 'pages', { stacked: true, beginAtZero: true }),
        yPct: axis(p, 'fragmentation %', { position: 'right', min: 0, max: 100, grid: { drawOnChartArea: false, color: p.grid } }),
        yCount: axis(p, 'preemptions', { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false, color: p.grid } }),
      },
    } as ChartConfiguration['options'],
  };
  return {
    id: 'poolTimeline',
    title: 'Page pool',
    empty: samples.length === 0 ? (run.status === 'running' ? 'Waiting for the pool simulation…' : 'This run has no pool simulation (add a workload to the profile).') : null,
    config,
    table: {
      columns: ['t (s)', 'pages used', 'cached', 'free', 'tokens', 'internal frag.', 'running', 'waiting', 'preempted'],
      rows: samples.map((s) => [s.t.toFixed(2), String(s.pagesUsed), String(s.pagesCached), String(s.pagesFree), String(s.tokens), formatPercent(s.internalFragmentation), String(s.running), String(s.waiting), String(s.preempted)]),
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
export function runCharts(run: ViewRun, p: Palette): ChartSpec[] {
  return [timingsChart(run, p), throughputChart(run, p), rooflineChart(run, p), memoryChart(run, p), poolTimelineChart(run, p), poolBaselinesChart(run, p)];
}
