/**
 * The dashboard's latency view: the CDFs of TTFT and TPOT with the SLO's bounds as vertical
 * lines (its table: the percentile table of queueing delay, TTFT, TPOT and end-to-end), the
 * requests running / waiting / waiting after a preemption over simulated time, and the
 * capacity search's curve (rate vs p99 TTFT and p99 TPOT, SLO bounds as horizontal lines). Every
 * figure is modelled: the simulator's clock runs on its step-time model. Times as core/format
 * formatMs writes them (ms, s, min, h as they grow); the log axes label powers of ten the same way.
 */
import type { ChartConfiguration, ChartDataset, Scale } from 'chart.js';
import { toFont } from 'chart.js/helpers';
import type { CdfPoint, LatencyStats, LatencySummary } from '../core/protocol/latency';
import type { PoolLoad, PoolResult } from '../core/protocol/run';
import { durationTicks, formatCount, formatMs, formatPercent, formatRequestRate, formatRequestRates, formatSignificant, formatTimeScale, poolCancelledText, sloMet, sloVerdict, tpotOverheadNote } from '../core/format';
import type { ViewRun } from './model';
import { axis, baseOptions, durationLogTick, engineOfSamples, legendAsDrawn, noPoolText, REFUSED_TEXT, simulatedTimeAxis, stoppedHow, type ChartSpec } from './charts';
import { thinTicks } from './sweep';
import { withAlpha, type Palette } from './theme';

/** A latency given in seconds, as core/format writes durations ("42.5 ms", "3.27 h"). */
const dur = (s: number): string => formatMs(s * 1000);

/** Chart.js options with charts.ts's look (its baseOptions: theme colours and fonts) and these `scales`. */
function options(p: Palette, title: string, scales: Record<string, unknown>): ChartConfiguration['options'] {
  return { ...baseOptions(p, title), scales } as ChartConfiguration['options'];
}

/** A log axis of milliseconds whose ticks read as durations (charts.ts durationLogTick), unrotated, skipped where they would collide. */
function durationLogAxis(p: Palette, title: string): Record<string, unknown> {
  const base = axis(p, title, { type: 'logarithmic' });
  return { ...base, ticks: { ...(base['ticks'] as object), autoSkip: true, maxRotation: 0, callback: durationLogTick } };
}

/**
 * The CDF's x axis (ms, log) from the data's least time `loMs` to `hiMs`, with ticks at round
 * durations (core/format durationTicks) and at the SLO's bounds (`marks`, ms), each labelled as
 * formatMs writes it; a label that would touch its neighbour left out (sweep.ts thinTicks). The
 * axis ends at the round duration past the largest of the data and a fifth over each bound: a
 * 500 ms SLO line was the plot's right edge, and chart.js's auto-skip kept ticks with no label,
 * so a 5-600 ms CDF read "10 20 100 200 ms" without its 50 and 500 ms bounds (s37 newcomer-ed 8).
 */
function cdfAxis(p: Palette, title: string, loMs: number, hiMs: number, marks: readonly number[]): Record<string, unknown> {
  const round = durationTicks(loMs * 1e6, Math.max(hiMs, ...marks.map((m) => m * 1.2)) * 1e6).map((ns) => ns / 1e6);
  if (round.length < 2) return durationLogAxis(p, title);
  const values = [...new Set([...round, ...marks.filter((m) => m > round[0]! && m < round[round.length - 1]!)])].sort((a, b) => a - b);
  const base = axis(p, title, { type: 'logarithmic', min: round[0], max: round[round.length - 1] });
  const font = { family: p.fontFamily, size: p.fontSize - 1 };
  return {
    ...base,
    ticks: { ...(base['ticks'] as object), autoSkip: false, maxRotation: 0, callback: (v: number | string) => formatMs(Number(v)) },
    afterBuildTicks: (scale: Scale) => {
      const [min, max] = [round[0]!, round[round.length - 1]!];
      const at = (v: number): number => (scale.maxWidth * Math.log(v / min)) / Math.log(max / min);
      scale.ctx.save();
      scale.ctx.font = toFont(font).string;
      const kept = thinTicks(values, at, (v) => scale.ctx.measureText(formatMs(v)).width);
      scale.ctx.restore();
      scale.ticks = kept.map((value) => ({ value }));
    },
  };
}

/**
 * The goodput with the SLO's bounds written out, "goodput 3.20 req/s (80.0% meet TTFT ≤ 500 ms,
 * TPOT ≤ 50 ms)", and with an slo.attainment its verdict, "…; the SLO asks 99%: not met)" (the
 * CLI's Goodput line, runner/simulate/latency-format.ts; s41 newcomer-ed F3), or null with no SLO.
 */
function goodputText(l: LatencySummary): string | null {
  if (l.goodputRequestsPerSec === undefined) return null;
  const bounds = [l.slo?.ttftMs !== undefined ? `TTFT ≤ ${formatMs(l.slo.ttftMs)}` : '', l.slo?.tpotMs !== undefined ? `TPOT ≤ ${formatMs(l.slo.tpotMs)}` : ''].filter((x) => x).join(', ');
  const verdict = sloVerdict(l.slo, l.sloAttainment, l.requests);
  return `goodput ${formatRequestRate(l.goodputRequestsPerSec)} req/s (${formatPercent(l.sloAttainment ?? 0)} meet ${bounds || 'the SLO'}${verdict ? `; ${verdict}` : ''})`;
}

/**
 * The Run tab's verdict badge, in place of the run's status badge "ok" (which says only that the
 * run ended well: beside "SLO not met" its grey "ok" read as the verdict, s44 newcomer-ed F19):
 * "SLO met" / "SLO not met" against slo.attainment or the default 0.9, with "· overloaded" when
 * the server did not keep up with the offered load (`load`: PoolLoad.overloaded, its queue grew
 * through the arrivals), its tooltip the whole verdict (core/format sloVerdict, with a
 * too-few-requests caveat); null without an SLO (s42 newcomer-ed F7: an overloaded run at 2.8 %
 * meeting its SLO was badged "ok" and nothing more).
 */
export function sloBadge(l: LatencySummary | null | undefined, load?: Pick<PoolLoad, 'overloaded'> | null): { text: string; title: string; met: boolean } | null {
  if (!l || l.slo === undefined || l.sloAttainment === undefined) return null;
  const verdict = sloVerdict(l.slo, l.sloAttainment, l.requests)!;
  const met = sloMet(l.slo, l.sloAttainment);
  const overloaded = load?.overloaded === true;
  return {
    text: `${met ? 'SLO met' : 'SLO not met'}${overloaded ? ' · overloaded' : ''}`,
    title: `${formatPercent(l.sloAttainment)} of requests meet the SLO; ${verdict}${overloaded ? '; overloaded: the server did not keep up with the offered load, its queue grew through the arrivals' : ''} (modelled)`,
    met,
  };
}

/** The latency's figures in one line: TTFT and TPOT p50 / p99, throughput, then `good` (all modelled). */
function latencyFigures(l: LatencySummary, good: string): string {
  const pair = (name: string, x: LatencyStats | null) => (x ? `${name} p50 ${dur(x.p50)}, p99 ${dur(x.p99)}` : `${name} n/a`);
  return `${pair('TTFT', l.ttft)} · ${pair('TPOT', l.tpot)} · ${formatRequestRate(l.requestsPerSec)} req/s · ${good}`;
}

/** The latency in one line above its chart: TTFT and TPOT p50 / p99, throughput, goodput (all modelled); with no SLO, where to give one. */
export function latencySummaryLine(l: LatencySummary): string {
  return `modelled: ${latencyFigures(l, goodputText(l) ?? 'goodput: no SLO (profile slo: { ttft_ms, tpot_ms })')}`;
}

/**
 * `line` (the latency line with its SLO verdict), then, for a TPOT SLO judged at small batch with
 * the per-step overhead assumed 0, the note the CLI prints under its goodput line (core/format
 * tpotOverheadNote): "… · goodput … Note: TPOT <= 20 ms is judged on …".
 */
export function withTpotNote(line: string, pool: Pick<PoolResult, 'stepTime' | 'latency' | 'summary'>): string {
  const note = tpotOverheadNote(pool);
  return note ? `${line}. Note: ${note}.` : line;
}

/**
 * What the run's times are, in one line under its header: a serving simulation timed no kernel
 * (its step times are modelled: which roofline on which GPU, from the run's StepTimeModel); a
 * benchmark's kernel timings are measured and its pool simulation's step times modelled. Null
 * for a benchmark without a pool simulation (nothing modelled) and for an estimate.
 */
export function stepTimeNote(run: ViewRun): string | null {
  const parts = stepTimeNoteParts(run);
  if (parts === null) return null;
  return parts.model === null ? `${parts.head} (the model is named when the simulation ends).` : `${parts.head}: ${parts.model}.`;
}

/**
 * {@link stepTimeNote} in two parts: `head`, what is measured and what modelled ("…step times are
 * modelled, not measured"), and `model`, which roofline on which GPU with its figures and sources
 * (StepTimeModel.source; null while a simulation runs). The Run tab shows the head and folds the
 * model under it (a five-line paragraph came before any number: s48 newcomer-ed 7); the PNG's
 * caption writes the whole line.
 */
export function stepTimeNoteParts(run: ViewRun): { head: string; model: string | null } | null {
  const model = run.pool?.stepTime?.source ?? null;
  if (run.kind === 'simulate') return { head: 'Serving simulation: no kernel was timed; step times, latency and throughput are modelled, not measured', model };
  if (run.status === 'estimate' || model === null) return null;
  return { head: "Kernel timings are measured on this machine; the pool simulation's step times are modelled, not measured", model };
}

/**
 * An empirical CDF's points (seconds, fraction at or below) as the chart's (ms, fraction), from 0 at
 * the smallest sample: F(x) = #{samples ≤ x} / n is 0 left of it, so the line starts with a point at
 * (smallest, 0) and, drawn stepped (horizontal, then up at each point), rises there. From the first
 * point alone, 1/n, two equal requests' line started at 0.5 (s40 newcomer-ed F5).
 */
export function ecdfSteps(cdf: readonly CdfPoint[]): Array<{ x: number; y: number }> {
  const points = cdf.map((c) => ({ x: c.s * 1000, y: c.fraction }));
  return points.length > 0 ? [{ x: points[0]!.x, y: 0 }, ...points] : points;
}

/** CDFs of TTFT and TPOT (ms, log axis) with the SLO bounds; the table is the percentile table. */
export function latencyCdfChart(run: ViewRun, p: Palette): ChartSpec {
  const l = run.pool?.latency;
  const line = (label: string, data: Array<{ x: number; y: number }>, color: string, dash?: number[]) => ({
    type: 'line' as const, label, data, borderColor: color, backgroundColor: withAlpha(color, 0.3), borderWidth: p.lineWidth, borderDash: dash, pointRadius: 0, stepped: dash === undefined, fill: false,
  });
  const datasets = l
    ? [
        line('TTFT', ecdfSteps(l.ttftCdf), p.series[0]!),
        line('TPOT', ecdfSteps(l.tpotCdf), p.series[1]!),
      ]
    : [];
  if (l?.slo?.ttftMs !== undefined) datasets.push(line(`SLO TTFT ${formatMs(l.slo.ttftMs)}`, [{ x: l.slo.ttftMs, y: 0 }, { x: l.slo.ttftMs, y: 1 }], p.series[0]!, [6, 4]));
  if (l?.slo?.tpotMs !== undefined) datasets.push(line(`SLO TPOT ${formatMs(l.slo.tpotMs)}`, [{ x: l.slo.tpotMs, y: 0 }, { x: l.slo.tpotMs, y: 1 }], p.series[1]!, [6, 4]));
  const times = l ? [...l.ttftCdf, ...l.tpotCdf].map((c) => c.s * 1000).filter((ms) => ms > 0) : [];
  const bounds = [l?.slo?.ttftMs, l?.slo?.tpotMs].filter((ms): ms is number => ms !== undefined && ms > 0);
  const config: ChartConfiguration = {
    type: 'line',
    data: { datasets } as ChartConfiguration['data'],
    options: options(p, 'Latency CDF (modelled)', {
      x: times.length > 0 ? cdfAxis(p, 'TTFT, TPOT (log)', Math.min(...times), Math.max(...times), bounds) : durationLogAxis(p, 'TTFT, TPOT (log)'),
      y: axis(p, 'fraction of requests', { min: 0, max: 1 }),
    }),
  };
  const row = (name: string, x: LatencyStats | null) => (x ? [name, dur(x.mean), dur(x.p50), dur(x.p90), dur(x.p99), dur(x.max)] : [name, 'n/a', 'n/a', 'n/a', 'n/a', 'n/a']);
  const rows = l ? [row('queueing delay', l.queue), row('TTFT', l.ttft), row('TPOT', l.tpot), row('end-to-end', l.e2e)] : [];
  if (l) {
    rows.push([`throughput ${formatRequestRate(l.requestsPerSec)} req/s, ${formatCount(l.outputTokensPerSec)} tok/s; ${goodputText(l) ?? 'no SLO'}`, '', '', '', '', '']);
  }
  return {
    id: 'latencyCdf',
    title: 'Latency',
    // The SLO's values, not the profile syntax the summary line shows for none (s34 ui34: a screen reader read "{ ttft_ms, tpot_ms }" aloud).
    ariaLabel: l ? `Latency CDF (modelled): ${latencyFigures(l, goodputText(l) ?? 'no SLO')}` : 'Latency CDF (modelled): no latency',
    // A TPOT SLO judged at small batch with overhead_ms assumed 0: the CLI's note, after the verdict it qualifies (core/format tpotOverheadNote).
    summary: l ? withTpotNote(latencySummaryLine(l), run.pool!) : null,
    empty: l
      ? null
      : run.status === 'running'
        ? 'Latency comes when the simulation ends.'
        : run.status === 'refused'
          ? REFUSED_TEXT
        : run.status === 'cancelled' && run.poolCancelled
          ? `This run was cancelled ${poolCancelledText(run.poolCancelled)}: no latency.`
          : run.status === 'failed' || run.status === 'cancelled'
            ? `This run ${stoppedHow(run)} before its simulation ended: no latency.`
          : 'This run has no latency (a pool simulation of this version records it).',
    config,
    table: { columns: ['modelled', 'mean', 'p50', 'p90', 'p99', 'max'], rows },
  };
}

/** The capacity search's walk: rate vs p99 TTFT and p99 TPOT (ms), SLO bounds as dashed lines. */
export function capacityChart(run: ViewRun, p: Palette): ChartSpec {
  const c = run.pool?.capacity;
  const points = c ? [...c.points].sort((a, b) => a.rate - b.rate) : [];
  const series = (label: string, key: 'p99TtftS' | 'p99TpotS', color: string) => ({
    type: 'line' as const, label, data: points.flatMap((x) => { const y = x[key]; return y === null ? [] : [{ x: x.rate, y: y * 1000 }]; }), borderColor: color, backgroundColor: color, borderWidth: p.lineWidth, pointRadius: 3, fill: false,
  });
  type Dataset = ChartDataset<'line', Array<{ x: number; y: number }>>;
  const datasets: Dataset[] = c ? [series('p99 TTFT', 'p99TtftS', p.series[0]!), series('p99 TPOT', 'p99TpotS', p.series[1]!)] : [];
  const span = points.length > 0 ? [points[0]!.rate, points[points.length - 1]!.rate] : [0, 1];
  const bound = (label: string, y: number, color: string): Dataset => ({ type: 'line', label, data: span.map((x) => ({ x, y })), borderColor: color, borderDash: [6, 4], borderWidth: p.lineWidth, pointRadius: 0, fill: false });
  if (c?.slo.ttftMs !== undefined) datasets.push(bound(`SLO TTFT ${formatMs(c.slo.ttftMs)}`, c.slo.ttftMs, p.series[0]!));
  if (c?.slo.tpotMs !== undefined) datasets.push(bound(`SLO TPOT ${formatMs(c.slo.tpotMs)}`, c.slo.tpotMs, p.series[1]!));
  const title = c?.maxRate != null ? `Capacity (modelled): highest rate meeting the SLO ${formatRequestRate(c.maxRate)} req/s` : 'Capacity (modelled)';
  // Rates that print alike but differ (the search's point and the 3-digit rate rounded from it) with the digits that tell them apart, as the CLI's table.
  const sortedRates = formatRequestRates(points.map((x) => x.rate));
  const tableRates = formatRequestRates((c?.points ?? []).map((x) => x.rate));
  const config: ChartConfiguration = {
    type: 'line',
    data: { datasets } as ChartConfiguration['data'],
    options: options(p, title, {
      x: axis(p, 'arrival rate (requests/s)', { type: 'linear' }),
      y: durationLogAxis(p, 'p99 (log)'),
    }),
  };
  return {
    id: 'capacity',
    title: 'Capacity',
    ariaLabel: `${title}: p99 TTFT and TPOT at ${points.length} arrival rates: ${points.map((x, i) => `${sortedRates[i]} req/s ${x.meets ? 'meets' : 'misses'} the SLO`).join('; ')}`,
    empty: c ? null : 'No capacity search in this run (attnscope simulate --max-rate --json FILE records one).',
    config,
    table: {
      columns: ['rate (req/s)', 'time scale', 'p99 TTFT (modelled)', 'p99 TPOT (modelled)', 'meets SLO', 'verdict'],
      rows: (c?.points ?? []).map((x, i) => [tableRates[i]!, formatTimeScale(x.scale), x.p99TtftS === null ? 'n/a' : dur(x.p99TtftS), x.p99TpotS === null ? 'n/a' : dur(x.p99TpotS), formatPercent(x.sloAttainment), x.meets ? 'pass' : 'fail']),
    },
  };
}

/** Waiting requests past this many times the running ones put running on an axis of its own (its line lay flat at 0). */
export const RUNNING_AXIS_RATIO = 20;

/**
 * Requests running, waiting, and waiting after a preemption, over simulated time (the pool
 * samples). The samples are taken every so many steps, so a peak between two of them is not in
 * the lines: the run's peaks over every step (pool summary peakConcurrency / peakWaiting, as the
 * CLI's table prints them) are drawn as dashed lines of their own, labelled "every step".
 */
export function queueChart(run: ViewRun, p: Palette): ChartSpec {
  const samples = run.poolSamples;
  // The peaks drawn beside the samples are of the samples' engine: under data parallelism the one
  // picked (ViewRun.samplesEngine; absent: engine 1), DataParallelResult.replicas[k], not the summary's busiest engine.
  const engine = run.pool?.dataParallel?.replicas[run.samplesEngine ?? 0];
  const summary = run.pool?.dataParallel
    ? engine?.peakConcurrency !== undefined ? { peakConcurrency: engine.peakConcurrency, peakWaiting: engine.peakWaiting } : undefined
    : run.pool?.summary;
  // An overloaded run's queue (241,593 waiting) flattened its running line (at most 56) on one axis
  // (s37 newcomer-ed 8): running then has its own axis on the right, whose values the narrow chart
  // leaves to the tooltips and the table (charts.ts narrowOptions).
  const topRunning = Math.max(summary?.peakConcurrency ?? 0, ...samples.map((s) => s.running));
  const topWaiting = Math.max(summary?.peakWaiting ?? 0, ...samples.map((s) => s.waiting));
  const ownAxis = topRunning > 0 && topWaiting > RUNNING_AXIS_RATIO * topRunning;
  const axisOf = (key: 'running' | 'waiting' | 'preempted') => (ownAxis && key === 'running' ? { yAxisID: 'yRunning' } : {});
  const series = (label: string, key: 'running' | 'waiting' | 'preempted', color: string) => ({
    type: 'line' as const, label: ownAxis && key === 'running' ? 'running (right axis)' : label, data: samples.map((s) => ({ x: s.t, y: s[key] })), borderColor: color, backgroundColor: color, borderWidth: p.lineWidth, pointRadius: 0, stepped: true, fill: false, ...axisOf(key),
  });
  const span = samples.length > 0 ? [samples[0]!.t, samples.at(-1)!.t] : [];
  const peak = (label: string, key: 'running' | 'waiting', value: number | undefined, color: string) =>
    value === undefined || span.length === 0 ? [] : [{ type: 'line' as const, label: `${label} ${formatCount(value)} (every step, not sampled)`, data: span.map((x) => ({ x, y: value })), borderColor: color, backgroundColor: color, borderWidth: p.lineWidth, borderDash: [6, 4], pointRadius: 0, fill: false, ...axisOf(key) }];
  const peaks = [...peak('peak running', 'running', summary?.peakConcurrency, p.series[2]!), ...peak('peak waiting', 'waiting', summary?.peakWaiting, p.series[4]!)];
  // The accessible name's figures: the peaks over every step where the run has them, else the samples' highest.
  const most = (key: 'running' | 'waiting' | 'preempted'): string => formatCount(samples.reduce((m, s) => Math.max(m, s[key]), 0));
  const figures = [
    summary ? `peak running ${formatCount(summary.peakConcurrency)}` : `at most ${most('running')} running in the samples`,
    summary?.peakWaiting !== undefined ? `peak waiting ${formatCount(summary.peakWaiting)}` : `at most ${most('waiting')} waiting in the samples`,
    `at most ${most('preempted')} waiting after a preemption`,
  ];
  const config: ChartConfiguration = {
    type: 'line',
    data: { datasets: [series('running', 'running', p.series[2]!), series('waiting', 'waiting', p.series[4]!), series('waiting, preempted', 'preempted', p.series[5]!), ...peaks] } as ChartConfiguration['data'],
    options: options(p, `Requests running and waiting${engineOfSamples(run)} (modelled time)`, {
      x: simulatedTimeAxis(p, samples),
      y: axis(p, ownAxis ? 'requests waiting' : 'requests', { beginAtZero: true }),
      ...(ownAxis ? { yRunning: axis(p, 'requests running', { beginAtZero: true, position: 'right', grid: { color: p.grid, drawOnChartArea: false } }) } : {}),
    }),
  };
  // Every series a line: each swatch a line, the peaks' dashed (their boxes were blobs, s47 newcomer-ed 7).
  legendAsDrawn(config);
  return {
    id: 'queue',
    title: `Queue${engineOfSamples(run)}`,
    ariaLabel: `Requests running and waiting${engineOfSamples(run)}${span.length > 0 ? ` over ${formatSignificant(span[1]!)} s` : ''} of simulated time: ${figures.join(', ')}`,
    empty: samples.length === 0 ? noPoolText(run) : null,
    config,
    table: { columns: ['t (s)', 'running', 'waiting', 'of them preempted'], rows: samples.map((s) => [s.t.toFixed(2), formatCount(s.running), formatCount(s.waiting), formatCount(s.preempted)]) },
  };
}
