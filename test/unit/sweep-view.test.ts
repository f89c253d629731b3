/**
 * The dashboard's sweep view (webview/sweep.ts), pure: one chart per axis with one line per
 * combination of the other axes, values in axis order, gaps where a point is missing, and the
 * best row starred in the table.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SweepReport, SweepReportRow } from '../../core/protocol/sweep';
import { SWEEP_METRICS, sweepProvenance } from '../../core/sweepFigures';
import { decimalsFor, decisionMetric, interruptedText, metricHeader, metricScale, metricsOf, otherSweepNote, rankedSweepTable, reportScale, sameValues, sweepAssumptions, sweepCostChart, sweepCostChartHeight, sweepPointsText, sweepAxisCharts, sweepBestText, sweepCaption, sweepChartHeight, sweepChip, sweepMarkdown, sweepTable, startsAtZero, sweepTitle, sweepXAxis, thinTicks, tickStep } from '../../webview/sweep';
import type { Palette } from '../../webview/theme';
import { durationTicks, formatDuration, formatDurationIn } from '../../core/format';
import { ALL_REDUCE_LATENCY_S, RING_STEP_LATENCY_S } from '../../runner/simulate/step-time';

const palette: Palette = { kind: 'dark', foreground: '#fff', muted: '#aaa', background: '#000', grid: '#333', series: ['#00f', '#f80', '#0f0'], fontFamily: 'x', fontSize: 12, lineWidth: 2 };

const row = (ps: number, seqs: number, frag: number): SweepReportRow => ({
  id: `${ps}-${seqs}`, index: 0, values: { 'kv_cache.page_size': ps, 'workload.max_num_seqs': seqs }, label: `page_size=${ps} max_num_seqs=${seqs}`,
  environmentKey: 'e1', status: 'ok', metrics: { internalFragmentation: frag, poolPages: 4096 / ps }, file: 'f',
});

const report: SweepReport = {
  schema: 1, kind: 'attnscope-sweep-report', tool: 't', createdAt: '', sweepId: 's', name: 'p.attn.yaml', job: 'simulate',
  axes: [{ key: 'kv_cache.page_size', values: [8, 16, 32] }, { key: 'workload.max_num_seqs', values: [4, 64] }],
  total: 6,
  // (32, 64) is missing: its line must have a gap, not a zero.
  rows: [row(8, 4, 0.01), row(8, 64, 0.011), row(16, 4, 0.02), row(16, 64, 0.021), row(32, 4, 0.04)],
  missing: [{ id: '32-64', index: 5, values: {}, label: 'page_size=32 max_num_seqs=64' }],
  duplicates: [],
  environments: { e1: { os: 'linux', arch: 'x64', cpuModel: 'c', cpuCores: 2, simd: 'avx2', cpuFeatures: [], threads: 2, nodeVersion: 'v', toolVersion: '0' } },
  best: { id: '8-4', environmentKey: 'e1', label: 'page_size=8 max_num_seqs=4', rule: 'r' },
};

test('one chart per axis; a line per value of the other axis; values in axis order with gaps', () => {
  const frag = SWEEP_METRICS.find((m) => m.key === 'internalFragmentation')!;
  const [byPage, bySeqs] = sweepAxisCharts(report, frag, palette);
  assert.equal(byPage!.axis, 'kv_cache.page_size');
  // Numeric axes: points at their values (8, 16, 32 span 0.6 decades: a linear axis); one other axis: the legend's title names it, each line its value.
  assert.equal((byPage!.config.options!.scales!.x as { type: string }).type, 'linear');
  assert.deepEqual(byPage!.config.data.datasets.map((d) => [d.label, d.data]), [['4', [{ x: 8, y: 0.01 }, { x: 16, y: 0.02 }, { x: 32, y: 0.04 }]], ['64', [{ x: 8, y: 0.011 }, { x: 16, y: 0.021 }, { x: 32, y: null }]]]);
  assert.equal((byPage!.config.options!.plugins!.legend!.title as { text: string }).text, 'max_num_seqs (sequences)');
  // 4 and 64: 1.2 decades, linear.
  assert.equal((bySeqs!.config.options!.scales!.x as { type: string }).type, 'linear');
  assert.equal(bySeqs!.lines, 3);
  // Its unit and source in the title (small multiples side by side: s50 sweepchart).
  assert.equal(String(byPage!.config.options!.plugins!.title!.text), 'internal fragmentation (%, modelled) vs kv_cache.page_size');
});

test('each chart is named by its lines and their best values, not "N lines" (s34 ui34)', () => {
  // The fixture by hand: internal fragmentation (lower is better) at page_size 8 / 16 / 32 is
  // 1% / 2% / 4% with max_num_seqs 4 and 1.1% / 2.1% / missing with 64.
  const frag = SWEEP_METRICS.find((m) => m.key === 'internalFragmentation')!;
  const [byPage, bySeqs] = sweepAxisCharts(report, frag, palette);
  assert.equal(byPage!.ariaLabel, 'internal fragmentation (modelled) vs kv_cache.page_size: 2 lines; max_num_seqs=4: lowest 1.0% at page_size 8; max_num_seqs=64: lowest 1.1% at page_size 8');
  // page_size 32 has only max_num_seqs 4 (32-64 missing).
  assert.equal(bySeqs!.ariaLabel, 'internal fragmentation (modelled) vs workload.max_num_seqs: 3 lines; page_size=8: lowest 1.0% at max_num_seqs 4; page_size=16: lowest 2.0% at max_num_seqs 4; page_size=32: lowest 4.0% at max_num_seqs 4');
  // Pool pages (4,096 / page_size) is better neither way: its range, with the unit the cells leave to the header.
  const pages = SWEEP_METRICS.find((m) => m.key === 'poolPages')!;
  assert.equal(sweepAxisCharts(report, pages, palette)[0]!.ariaLabel, 'pool pages (modelled) vs kv_cache.page_size: 2 lines; max_num_seqs=4: from 128 pages at page_size 32 to 512 pages at page_size 8; max_num_seqs=64: from 256 pages at page_size 16 to 512 pages at page_size 8');
  // One axis, one line: no line name, no count; a rate (higher is better) with its unit, every x reaching the best named.
  const tput = SWEEP_METRICS.find((m) => m.key === 'throughputTokensPerSec')!;
  const oneAxis: SweepReport = { ...report, axes: [{ key: 'kv_cache.page_size', values: [8, 16, 32] }], total: 3, missing: [],
    rows: [[8, 1200], [16, 1500], [32, 1500]].map(([ps, t]) => ({ ...row(ps!, 4, 0), id: `${ps}`, values: { 'kv_cache.page_size': ps }, metrics: { throughputTokensPerSec: t } })) };
  assert.equal(sweepAxisCharts(oneAxis, tput, palette)[0]!.ariaLabel, 'output throughput (modelled) vs kv_cache.page_size: highest 1,500 tokens/s at page_size 16 and 32');
  // A rate's y-axis starts at 0, so 1,200 against 1,500 looks like 20 % (s42 newcomer-ed F3: 2.50-2.90 made a 2 % gap look large).
  assert.equal((sweepAxisCharts(oneAxis, tput, palette)[0]!.config.options!.scales!.y as { beginAtZero?: boolean }).beginAtZero, true);
  // A percentage's too (s51 newcomer-ed M3: a prefix-cache hit rate of 57.4 % and 58.1 % drew bottom to top): 0.7 points of 58 % is 1.2 % of the height.
  const hit = SWEEP_METRICS.find((m) => m.key === 'prefixHitRate')!;
  const hits: SweepReport = { ...oneAxis, rows: oneAxis.rows.map((r, i) => ({ ...r, metrics: { prefixHitRate: [0.574, 0.581, 0.578][i]! } })) };
  assert.equal((sweepAxisCharts(hits, hit, palette)[0]!.config.options!.scales!.y as { beginAtZero?: boolean }).beginAtZero, true);
  assert.equal((sweepAxisCharts(report, frag, palette)[0]!.config.options!.scales!.y as { beginAtZero?: boolean }).beginAtZero, true);
  // A duration keeps its fitted axis (its log axis over two decades has no 0).
  const decode = SWEEP_METRICS.find((m) => m.kind === 'ns' || m.kind === 's')!;
  assert.equal(startsAtZero(decode), false);
});

test('the table: every row, the best starred, only the figures the rows have', () => {
  assert.deepEqual(metricsOf(report).map((m) => m.key), ['internalFragmentation', 'poolPages']);
  const t = sweepTable(report);
  assert.deepEqual(t.columns, ['', 'kv_cache.page_size', 'workload.max_num_seqs', 'internal fragmentation (modelled)', 'pool pages (modelled)', 'status']);
  // A rate names its unit: "output throughput 1,739" had none.
  assert.equal(metricHeader(SWEEP_METRICS.find((m) => m.key === 'throughputTokensPerSec')!, 'tokens/s'), 'output throughput (tokens/s, modelled)');
  assert.equal(t.rows.length, 5);
  assert.deepEqual(t.rows[0]!.slice(0, 3), ['★', '8', '4']);
  assert.equal(t.rows.filter((r) => r[0] === '★').length, 1);
  assert.equal(t.rows[4]![4], '128');
});

test('the table has the CLI report\'s keeps-up column and, when the points come from two builds, a build column; the left-out points and why are under the best (s36 sweep36 3)', () => {
  // Two rows the server does not keep up with (keepsUp false), as runner/sweep/results.ts keepsUpOf sets them; the rest keep up.
  const judged: SweepReport = {
    ...report,
    rows: report.rows.map((r, i) => ({ ...r, keepsUp: i < 3, ...(i < 3 ? {} : { notKeptUp: 'queue grew' }), tool: i === 0 ? 'attnscope 0.1.0' : 'attnscope 0.1.0+0123456789ab' })),
    best: { ...report.best!, leftOut: 'left out, the modelled server not keeping up: page_size=16 max_num_seqs=64 (queue grew); page_size=32 max_num_seqs=4 (queue grew)' },
  };
  const t = sweepTable(judged);
  assert.deepEqual(t.columns, ['', 'kv_cache.page_size', 'workload.max_num_seqs', 'build', 'internal fragmentation (modelled)', 'pool pages (modelled)', 'keeps up (modelled)', 'status']);
  assert.deepEqual(t.rows.map((r) => r[3]), ['0.1.0', '0.1.0+0123456789ab', '0.1.0+0123456789ab', '0.1.0+0123456789ab', '0.1.0+0123456789ab']);
  assert.deepEqual(t.rows.map((r) => r[6]), ['yes', 'yes', 'yes', 'no', 'no']);
  // Rows of one build and no judgement (reports merged before s35/s36): neither column.
  assert.ok(!sweepTable(report).columns.some((c) => c === 'build' || c.startsWith('keeps up')));
  const text = sweepBestText(judged);
  assert.equal(text.best, 'Best point: page_size=8 max_num_seqs=4 — r.');
  assert.deepEqual(text.notes, [judged.best!.leftOut]);
  // A best point whose TPOT SLO was judged at small batch with overhead_ms assumed 0 (SweepReport.best.tpotOverhead, merge's): its note under the line.
  assert.deepEqual(sweepBestText({ ...judged, best: { ...judged.best!, tpotOverhead: 'TPOT <= 20 ms is judged on steps of 1.00 running sequences' } }).notes, [judged.best!.leftOut, 'Note: TPOT <= 20 ms is judged on steps of 1.00 running sequences.']);
  // No best: the report's reasons (mergeResults noBestLines), not a guess.
  const none = sweepBestText({ ...judged, best: null, noBest: ['no best point: left out, the modelled server not keeping up: page_size=8 (queue grew)'] });
  assert.deepEqual(none, { best: 'No point qualifies as best.', tied: [], notes: ['no best point: left out, the modelled server not keeping up: page_size=8 (queue grew)'] });
});

test('a report with no best point and no reasons (merged by an older AttnScope) says so without our session numbers', () => {
  // The fallback read "a report merged before s36": an internal session number on the Sweep tab.
  const old = sweepBestText({ ...report, best: null, noBest: undefined });
  assert.equal(old.best, 'No point qualifies as best.');
  assert.equal(old.notes.length, 1);
  assert.match(old.notes[0]!, /merged by an older AttnScope/);
  assert.doesNotMatch(old.notes[0]!, /\bs\d+\b/);
});

test('a sweep\'s title names its models first, as a run\'s does (s36 sweep36 3)', () => {
  assert.equal(sweepTitle({ ...report, models: ['Llama-3.1-8B'] }), 'Llama-3.1-8B · p.attn.yaml · sweep');
  assert.equal(sweepTitle({ ...report, models: ['tiny', 'deep'] }), 'tiny, deep · p.attn.yaml · sweep');
  // A report merged before s36 has none.
  assert.equal(sweepTitle(report), 'p.attn.yaml · sweep');
});

test('a simulate sweep merged from two machines: one line per other-axis value and no env column; a measured one splits by machine', () => {
  // s31 newcomer-cli item 3: a simulation's figures do not depend on the machine that ran it, so
  // rows from env e1 and e2 are one sweep: page_size=16 from e2 belongs on the same lines as the rest.
  const env2 = { ...report.environments.e1!, cpuModel: 'd' };
  const mixed: SweepReport = { ...report, rows: report.rows.map((r) => (r.values['kv_cache.page_size'] === 16 ? { ...r, environmentKey: 'e2' } : r)), environments: { ...report.environments, e2: env2 } };
  const frag = SWEEP_METRICS.find((m) => m.key === 'internalFragmentation')!;
  const [byPage] = sweepAxisCharts(mixed, frag, palette);
  assert.deepEqual(byPage!.config.data.datasets.map((d) => [d.label, d.data]), [['4', [{ x: 8, y: 0.01 }, { x: 16, y: 0.02 }, { x: 32, y: 0.04 }]], ['64', [{ x: 8, y: 0.011 }, { x: 16, y: 0.021 }, { x: 32, y: null }]]]);
  assert.ok(!sweepTable(mixed).columns.includes('env'));
  // The same rows of a job both sweep: measured on two machine kinds, kept apart.
  const measured: SweepReport = { ...mixed, job: 'both' };
  assert.equal(sweepAxisCharts(measured, frag, palette)[0]!.config.data.datasets.length, 4);
  assert.ok(sweepTable(measured).columns.includes('env'));
});

test('the y axis reads in the table\'s units: one show for both, the unit in the axis title', () => {
  // The page-size sweep newcomerB charted: decode 4.37-7.24 ms per token (stored in ns), p99 TTFT
  // 68.6 s (stored in s), fragmentation 0-9.3% (stored as a fraction). The axis drew 4,000,000,
  // 68 and 0.1 with no unit while the table said "4.37 ms", "68.6 s" and "9.3%".
  const timed = (ps: number, ns: number, ttft: number, frag: number): SweepReportRow => ({ ...row(ps, 4, frag), metrics: { decodeNsPerToken: ns, p99TtftS: ttft, internalFragmentation: frag } });
  const r: SweepReport = { ...report, axes: [{ key: 'kv_cache.page_size', values: [1, 16] }], rows: [timed(1, 7_240_000, 48.6, 0), timed(16, 874_000, 50.1, 0.093)], missing: [], best: null };
  const metric = (k: string) => SWEEP_METRICS.find((m) => m.key === k)!;
  const y = (k: string) => sweepAxisCharts(r, metric(k), palette)[0]!.config.options!.scales!.y as { title: { text: string }; ticks: { callback: (v: number) => string } };
  const decode = y('decodeNsPerToken');
  assert.equal(decode.title.text, 'decode time per token (ms)');
  // 4,000,000 ns is a tick chart.js would pick: 4 ms; 874,000 ns reads in the column's unit, ms.
  assert.equal(decode.ticks.callback(4_000_000), '4 ms');
  const t = sweepTable(r);
  const col = (label: string) => t.columns.indexOf(label);
  // Each header says its unit and whether it is measured or modelled (the "Every point" table said neither).
  assert.deepEqual(t.columns.slice(-4), ['internal fragmentation (modelled)', 'p99 TTFT (s, modelled)', 'decode time per token (ms, measured)', 'status']);
  assert.deepEqual(t.rows.map((row) => row[col('decode time per token (ms, measured)')]), ['7.24 ms', '0.874 ms']);
  const ttft = y('p99TtftS');
  assert.equal(ttft.title.text, 'p99 TTFT (s)');
  assert.equal(ttft.ticks.callback(48), '48 s');
  assert.deepEqual(t.rows.map((row) => row[col('p99 TTFT (s, modelled)')]), ['48.6 s', '50.1 s']);
  const frag = y('internalFragmentation');
  assert.equal(frag.title.text, 'internal fragmentation (%)');
  assert.equal(frag.ticks.callback(0.1), '10.0%');
  assert.deepEqual(t.rows.map((row) => row[col('internal fragmentation (modelled)')]), ['0.0%', '9.3%']);
  assert.deepEqual(metricsOf(r).map((m) => m.label), ['internal fragmentation', 'p99 TTFT', 'decode time per token']);
});

test('durations in a forced unit: thousands grouped, small ones below 1', () => {
  assert.equal(formatDurationIn(4.5e5, 'ms'), '0.45 ms');
  assert.equal(formatDurationIn(2e12, 's'), '2,000 s');
  assert.equal(formatDuration(3.41e6), '3.41 ms');
  assert.equal(formatDuration(3_384e9), '56.4 min');
});

// s30 newcomers: 50 / 100 / 30000 drawn evenly apart (a category axis), and the y ticks read 1.2, 1.2, 1.3.
test('a numeric axis is to scale: logarithmic past 1.5 decades, linear below; categories stay categories; the title names the key, unit and scale', () => {
  assert.deepEqual(sweepXAxis({ key: 'workload.max_num_batched_tokens', values: [100, 50, 30000] }), { type: 'logarithmic', title: 'workload.max_num_batched_tokens (tokens, log)', values: [50, 100, 30000] });
  // 10^1.5 = 31.6: 1 to 31 is linear, 1 to 32 logarithmic.
  assert.equal(sweepXAxis({ key: 'kv_cache.page_size', values: [1, 31] }).type, 'linear');
  assert.equal(sweepXAxis({ key: 'kv_cache.page_size', values: [1, 32] }).type, 'logarithmic');
  assert.equal(sweepXAxis({ key: 'kv_cache.page_size', values: [8, 16, 32] }).title, 'kv_cache.page_size (tokens per page)');
  assert.equal(sweepXAxis({ key: 'device.memory_gib', values: [40, 80] }).title, 'device.memory_gib (GiB)');
  // A value 0 cannot go on a log axis.
  assert.equal(sweepXAxis({ key: 'workload.prefix_sharing.prefix_len', values: [0, 10, 4096] }).type, 'linear');
  assert.deepEqual(sweepXAxis({ key: 'kv_cache.dtype', values: ['bf16', 'fp8'] }), { type: 'category', title: 'kv_cache.dtype', values: [] });
  const chart = sweepAxisCharts({ ...report, axes: [{ key: 'kv_cache.dtype', values: ['bf16', 'fp8'] }], rows: [] }, SWEEP_METRICS[0]!, palette)[0]!;
  assert.deepEqual(chart.config.data.labels, ['bf16', 'fp8']);
});

test('x tick labels at the swept values, leaving out those that would touch a neighbour', () => {
  // 50, 100, 30000 on a 200 px log axis: 100 lies 200 · log 2 / log 600 = 21.7 px from 50, closer than the labels'
  // half-widths (7 + 10.5 px at 7 px a character) and 8 px: 25.5 px.
  const at = (v: number) => (200 * Math.log(v / 50)) / Math.log(600);
  const width = (v: number) => 7 * String(v).length;
  assert.deepEqual(thinTicks([50, 100, 30000], at, width), [50, 30000]);
  // On 1,000 px, 100 is 108 px away: kept.
  assert.deepEqual(thinTicks([50, 100, 30000], (v) => (1000 * Math.log(v / 50)) / Math.log(600), width), [50, 100, 30000]);
  // A last value close to the one before takes its place.
  assert.deepEqual(thinTicks([1, 50, 52], (v) => v * 2, () => 10), [1, 52]);
});

test('y ticks carry the decimals their step needs, so no two read the same', () => {
  // chart.js's steps are 1, 2, 2.5 or 5 times a power of ten.
  assert.deepEqual([1, 0.5, 0.25, 0.2, 0.05, 0.0025, 20].map(decimalsFor), [0, 1, 2, 1, 2, 4, 0]);
  // 0.9926 - 0.9925 in binary floating point: 0.00009999999999998899.
  assert.equal(tickStep([0.9925, 0.9926, 0.9927].map((value) => ({ value }))), 0.0001);
  const metric = (k: string) => SWEEP_METRICS.find((m) => m.key === k)!;
  const frag = metricScale(metric('internalFragmentation'), [0.9925, 0.993]);
  const ticks = [0.9925, 0.9926, 0.9927, 0.9928, 0.9929, 0.993];
  const labels = ticks.map((v) => frag.tick(v, 0.0001));
  assert.deepEqual(labels, ['99.25%', '99.26%', '99.27%', '99.28%', '99.29%', '99.30%']);
  // The table's one decimal read all six the same.
  assert.deepEqual(new Set(ticks.map(frag.show)), new Set(['99.3%']));
  // p99 TTFT 1.20-1.30 s (stored in s), ticks 0.02 s apart: "1.20 s" ... where three significant digits wrote 1.2, 1.22.
  const ttft = metricScale(metric('p99TtftS'), [1.2, 1.3]);
  assert.deepEqual([1.2, 1.22, 1.24].map((v) => ttft.tick(v, 0.02)), ['1.20 s', '1.22 s', '1.24 s']);
  // A rate 1,000 tokens/s and up keeps its thousands grouped; 1.2 to 1.3 requests/s ticks 0.025 apart read 3 decimals.
  const rate = metricScale(metric('throughputTokensPerSec'), [1000, 3000]);
  assert.equal(rate.tick(2500, 500), '2,500');
  assert.deepEqual([1.2, 1.225, 1.25].map((v) => metricScale(metric('goodputRequestsPerSec'), [1.2, 1.3]).tick(v, 0.025)), ['1.200', '1.225', '1.250']);
});

// s37 newcomer-ed 2: p99 TTFT 114 ms to 4.82 min in minutes read "0.0019 min" and plotted every
// point meeting a 500 ms SLO at "0.000000 min"; chart.js's step 5/3 min read "1.666667 min".
test('durations over two decades: a log axis at round durations, each value in its own unit; a short axis\'s ticks keep three significant digits', () => {
  const metric = SWEEP_METRICS.find((m) => m.key === 'p99TtftS')!;
  // The newcomer's CSV: ttft_p99_s 0.114 and 0.75; the largest 4.82 min = 289.2 s.
  const ttft = metricScale(metric, [0.114, 0.75, 289.2]);
  assert.equal(ttft.unit, undefined);
  assert.deepEqual([0.114, 0.75, 289.2].map(ttft.show), ['114 ms', '750 ms', '4.82 min']);
  assert.equal(metricHeader(metric, ttft.unit), 'p99 TTFT (modelled)');
  // 100 ms (at or below 114 ms) to 5 min (at or above 4.82 min); 1-2-5 per decade is 12 ticks, so 1, 10 and 100 of each unit and the ends.
  assert.deepEqual(ttft.logTicks!.map((s) => ttft.tick(s, 0)), ['100 ms', '1 s', '10 s', '1 min', '5 min']);
  // A CDF of 5-600 ms: 50 and 500 ms (SLO bounds) among the ticks, the axis ending at 1 s, past 600 ms.
  assert.deepEqual(durationTicks(5e6, 600e6).map(formatDuration), ['5 ms', '10 ms', '20 ms', '50 ms', '100 ms', '200 ms', '500 ms', '1 s']);
  // Under two decades: one unit (the largest's), as before; chart.js's step of 5/3 min to three significant digits, 0 plain.
  const long = metricScale(metric, [60, 300]);
  assert.equal(long.unit, 'min');
  assert.equal(long.logTicks, undefined);
  assert.deepEqual([0, 100, 200, 300].map((v) => long.tick(v, 100)), ['0 min', '1.67 min', '3.33 min', '5.00 min']);
});

test('twelve lines: no two share colour and marker; the chart is tall enough for a legend row per line', () => {
  const twelve: SweepReport = {
    ...report,
    axes: [{ key: 'kv_cache.page_size', values: [8, 16] }, { key: 'workload.max_num_seqs', values: Array.from({ length: 12 }, (_, i) => i + 1) }],
    rows: [8, 16].flatMap((ps) => Array.from({ length: 12 }, (_, i) => row(ps, i + 1, 0.01 * (i + 1) + ps / 1000))),
    missing: [], total: 24,
  };
  const chart = sweepAxisCharts(twelve, SWEEP_METRICS.find((m) => m.key === 'internalFragmentation')!, palette)[0]!;
  assert.equal(chart.lines, 12);
  const styles = chart.config.data.datasets.map((d) => `${String(d.borderColor)} ${String(d.pointStyle)}`);
  // Six markers; lines 6-11 take them again, each with the next colour (this palette has three).
  assert.equal(new Set(styles).size, 12, styles.join(', '));
  assert.equal(chart.config.options?.plugins?.legend?.labels?.usePointStyle, true);
  // chart.js gives the legend at most half the chart: 12 rows of (12 px font + 10 px padding) = 264 px, under half of 572.
  assert.equal(sweepChartHeight(12, 12), 572);
  assert.ok(sweepChartHeight(12, 12) / 2 >= 12 * (12 + 10));
  assert.equal(sweepChartHeight(2, 12), 300);
});

// s37 newcomer-ed 10: a job: both sweep's decode chart and table showed medians only, while the best point's ties are
// judged by the p10-p90 spread (a median inside the other's range).
test('measured decode time: each point with its p10-p90 error bar, the table with a p10-p90 column', () => {
  const dec = (ps: number, seqs: number, med: number): SweepReportRow => ({ ...row(ps, seqs, 0), metrics: { decodeNsPerToken: med, decodeP10NsPerToken: med - 100, decodeP90NsPerToken: med + 100 } });
  const r: SweepReport = { ...report, rows: [dec(8, 4, 1200), dec(16, 4, 1500), dec(32, 4, 1800), dec(8, 64, 2200), dec(16, 64, 2500), dec(32, 64, 2800)], missing: [], best: null };
  const metric = SWEEP_METRICS.find((m) => m.key === 'decodeNsPerToken')!;
  const [byPage] = sweepAxisCharts(r, metric, palette);
  const ds = byPage!.config.data.datasets as Array<{ label?: string; data: Array<{ x: number; y: number | null; yMin?: number; yMax?: number }>; errorBarColor?: string; borderColor: string }>;
  // Two lines (max_num_seqs 4, 64), each point with its p10 and p90 as yMin and yMax (median ± 100 ns), on chartjs-chart-error-bars' line type.
  assert.equal(byPage!.lines, 2);
  assert.equal(byPage!.config.type, 'lineWithErrorBars');
  assert.deepEqual(ds.map((d) => d.label), ['4', '64']);
  assert.deepEqual(ds[1]!.data, [{ x: 8, y: 2200, yMin: 2100, yMax: 2300 }, { x: 16, y: 2500, yMin: 2400, yMax: 2600 }, { x: 32, y: 2800, yMin: 2700, yMax: 2900 }]);
  assert.equal(ds[1]!.errorBarColor, ds[1]!.borderColor);
  assert.equal(String(byPage!.config.options!.plugins!.title!.text), 'decode time per token (µs, measured, median; bars: p10–p90) vs kv_cache.page_size');
  // The whiskers said as what and where, under the title: the fixture's one machine (cpuModel c, 2 cores, x64, avx2), written out by hand.
  assert.equal(byPage!.errorBars, 'dots: medians; bars: p10–p90 of each point\'s decode-time samples in its benchmark, measured on c (2 cores, x64, avx2)');
  assert.equal((byPage!.config.options!.plugins as { subtitle?: { text?: string } }).subtitle?.text, byPage!.errorBars);
  // No spread (an older report): a plain line.
  const [plain] = sweepAxisCharts({ ...r, rows: r.rows.map((x) => ({ ...x, metrics: { decodeNsPerToken: x.metrics.decodeNsPerToken } })) }, metric, palette);
  assert.equal(plain!.config.type, 'line');
  const t = sweepTable(r);
  // Its unit in its name, as the median's (s50 sweeptable: a transposed table's row names are all a reader has).
  const col = t.columns.indexOf('decode time per token p10–p90 (µs, measured)');
  assert.equal(t.columns[col - 1], 'decode time per token (µs, measured)');
  // 1,100-1,300 ns in the column's unit (µs, the largest median's, 2.8 µs).
  assert.equal(t.rows[0]![col], '1.1 µs–1.3 µs');
});

test('the note over another sweep\'s report names its profile, id and time; none over the sweep\'s own', () => {
  const r = { name: 'sweep.attn.yaml', sweepId: '986adb4a6eb253ac', createdAt: '' };
  assert.equal(otherSweepNote(r, { name: 'bsweep.attn.yaml', status: 'running' }), 'The report below is another sweep: sweep.attn.yaml, sweep 986adb4a6eb253ac; not the sweep of bsweep.attn.yaml that is running (its report comes when it ends).');
  assert.equal(otherSweepNote({ ...r, name: 'bsweep.attn.yaml' }, { name: 'bsweep.attn.yaml', status: 'cancelled' }), 'The report below is another sweep: bsweep.attn.yaml, sweep 986adb4a6eb253ac; not the sweep of bsweep.attn.yaml that was cancelled.');
  assert.equal(otherSweepNote(r, { name: 'sweep.attn.yaml', status: 'finished' }), null);
  assert.equal(otherSweepNote(r, null), null);
});

// s41 (trace41 left 1): a cancelled or reload-interrupted sweep's kept points were in no report, so the Sweep tab showed none of them.
test('an interrupted sweep\'s report says how many points it kept, and is its own sweep\'s (no other-sweep note); a finished one says nothing', () => {
  const kept = { name: 'b.attn.yaml', sweepId: '986adb4a6eb253ac', createdAt: '', interrupted: true as const, total: 3, missing: [{ id: 'x', index: 2, values: {}, label: 'page_size=64' }] };
  assert.equal(interruptedText(kept), 'interrupted: 2 of 3 points: the figures and the best point below are of these only; Resume sweep runs the other point (the points kept are not run again).');
  assert.equal(interruptedText({ ...kept, interrupted: undefined }), null);
  // Under the editor's own cancelled sweep, the run's word: its line is the only one saying how it ended (s48 newcomer-ed 9).
  assert.match(interruptedText(kept, 'cancelled') ?? '', /^cancelled: 2 of 3 points: the figures and the best point below are of these only; Resume sweep runs/);
  for (const status of ['cancelled', 'interrupted']) assert.equal(otherSweepNote(kept, { name: 'b.attn.yaml', status }), null, status);
  // Another profile's interrupted report is still another sweep.
  assert.match(otherSweepNote(kept, { name: 'c.attn.yaml', status: 'cancelled' }) ?? '', /^The report below is another sweep: b\.attn\.yaml/);
});

// s51 newcomer-ed M1: after a reload stopped a sweep, the Sweep tab's header had no chip (a benchmark's and a simulation's had one).
test('the Sweep tab\'s header chip: running, then how the sweep shown stopped; none for a finished one', () => {
  const kept = { name: 'page-size.attn.yaml', interrupted: true as const };
  // The next window after the reload: no sweep of the editor's (a fresh page), the kept points' report shown.
  assert.deepEqual(sweepChip(null, kept), { text: 'interrupted', cls: 'status-cancelled' });
  // The page's own state restored: the editor's sweep marked interrupted, over its kept report.
  assert.deepEqual(sweepChip({ name: 'page-size.attn.yaml', status: 'interrupted' }, kept), { text: 'interrupted', cls: 'status-cancelled' });
  assert.deepEqual(sweepChip({ name: 'page-size.attn.yaml', status: 'cancelled' }, kept), { text: 'cancelled', cls: 'status-cancelled' });
  assert.deepEqual(sweepChip({ name: 'page-size.attn.yaml', status: 'running' }, null), { text: 'running', cls: 'status-running' });
  assert.deepEqual(sweepChip({ name: 'page-size.attn.yaml', status: 'running', cancelling: true }, kept), { text: 'cancelling…', cls: 'status-running' });
  assert.deepEqual(sweepChip({ name: 'l8b.attn.yaml', status: 'failed' }, null), { text: 'failed', cls: 'status-failed' });
  // A finished sweep's report, or another profile's ended sweep beside it: no chip.
  assert.equal(sweepChip({ name: 'page-size.attn.yaml', status: 'finished' }, { name: 'page-size.attn.yaml' }), null);
  assert.equal(sweepChip({ name: 'other.attn.yaml', status: 'cancelled' }, { name: 'page-size.attn.yaml' }), null);
  assert.equal(sweepChip(null, null), null);
});

// s31 newcomer: a page-size sweep whose pool never filled had the same preemptions (0) at every
// max_num_seqs: two lines on one path, the one drawn last hiding the other; the legend named two.
test('a line with the same values as an earlier one is dashed, drawn over it, and the legend says whose values it has', () => {
  const preempt = (ps: number, seqs: number, n: number): SweepReportRow => ({ ...row(ps, seqs, 0), metrics: { preemptions: n } });
  // max_num_seqs 4 and 64 both preempt 0, 2, 5 times at page_size 8, 16, 32; 128 differs at 32.
  const r: SweepReport = {
    ...report, axes: [{ key: 'kv_cache.page_size', values: [8, 16, 32] }, { key: 'workload.max_num_seqs', values: [4, 64, 128] }],
    rows: [4, 64, 128].flatMap((seqs) => [preempt(8, seqs, 0), preempt(16, seqs, 2), preempt(32, seqs, seqs === 128 ? 9 : 5)]), missing: [], best: null,
  };
  const [byPage] = sweepAxisCharts(r, SWEEP_METRICS.find((m) => m.key === 'preemptions')!, palette);
  const ds = byPage!.config.data.datasets as Array<{ label?: string; borderDash?: number[]; order?: number; pointStyle?: string }>;
  assert.deepEqual(ds.map((d) => d.label), ['4', '64, same values as 4', '128']);
  // Only the twin is dashed and drawn after (over) the line it matches: chart.js draws a lower order last.
  assert.deepEqual(ds.map((d) => d.borderDash ?? []), [[], [8, 5], []]);
  assert.ok((ds[1]!.order ?? 0) < (ds[0]!.order ?? 0));
  // Every line its own marker.
  assert.equal(new Set(ds.map((d) => d.pointStyle)).size, 3);
  // By page_size each line is one page_size's three max_num_seqs values: 0,0,0 / 2,2,2 / 5,5,9 differ.
  assert.deepEqual(sameValues([[0, 0, 0], [2, 2, 2], [5, 5, 9]]), [null, null, null]);
  // A third line with those values: the second twin, its own dash; a line with no point is nobody's twin.
  assert.deepEqual(sameValues([[1, null], [1, null], [1, null], [null, null], [null, null]]), [null, { of: 0, nth: 1 }, { of: 0, nth: 2 }, null, null]);
});

test('a max-rate sweep in the Sweep tab: the max rate and per-GPU columns first, the best row starred, a point no rate meets says so as the CLI does', () => {
  // The rows of test/unit/sweep-maxrate.test.ts's hand-checked sweep: tp 1 sustains 100/s on one GPU,
  // tp 2 166.7/s on two (83.3 per GPU), and a TTFT bound under one step meets no rate.
  const mr = (tp: number, ttft: number, rate?: number): SweepReportRow => ({
    id: `${tp}-${ttft}`, index: 0, values: { 'device.tensor_parallel_size': tp, 'slo.ttft_ms': ttft }, label: `tensor_parallel_size=${tp} ttft_ms=${ttft}`, environmentKey: 'e1', status: 'ok', file: 'f',
    metrics: { gpus: tp, sloAttainment: rate ? 1 : 0, maxRateLimit: rate ? 'capacity' : 'unmet', ...(rate ? { maxRateRequestsPerSec: rate, maxRatePerGpuRequestsPerSec: rate / tp } : {}) },
  });
  const r: SweepReport = {
    ...report, job: 'max-rate', axes: [{ key: 'device.tensor_parallel_size', values: [1, 2] }, { key: 'slo.ttft_ms', values: [15, 5] }], total: 4, missing: [],
    rows: [mr(1, 15, 100), mr(1, 5), mr(2, 15, 1000 / 6), mr(2, 5)],
    best: { id: '1-15', environmentKey: 'e1', label: 'tensor_parallel_size=1 ttft_ms=15', rule: 'highest max rate per GPU: ...' },
  };
  const t = sweepTable(r);
  assert.deepEqual(t.columns.slice(0, 5), ['', 'device.tensor_parallel_size', 'slo.ttft_ms', 'max rate meeting the SLO (requests/s, modelled)', 'max rate per GPU (requests/s, modelled)']);
  assert.deepEqual(t.rows.map((row) => row.slice(0, 5)), [
    ['★', '1', '15', '100', '100'],
    ['', '1', '5', 'SLO unmet at any rate', ''],
    ['', '2', '15', '167', '83.3'],
    ['', '2', '5', 'SLO unmet at any rate', ''],
  ]);
  // The tab opens on the figure the best is ranked by: the max rate per GPU, not the requests meeting the SLO (every row 100 % or 0 %).
  assert.equal(decisionMetric(metricsOf(r))?.key, 'maxRatePerGpuRequestsPerSec');
  // With no point meeting any rate the column stays, saying so in every row.
  const none = { ...r, rows: [mr(1, 5), mr(2, 5)], best: null };
  assert.deepEqual(sweepTable(none).rows.map((row) => row[3]), ['SLO unmet at any rate', 'SLO unmet at any rate']);
});

// s41 newcomer-ed F5: the Sweep tab had no pasteable table; the CSV said neither the SLO's target, the GPU nor what the step times assumed.
test('Copy as Markdown: the points ranked by the figure shown, best first, with the SLO and its attainment, the GPU, the step-time assumptions and "modelled"', () => {
  // ringEfficiency: NCCL's ring past 4 MiB on H100 SXM NVLink, 0.82 (370 GB/s of 450, NVIDIA/nccl-tests#212).
  // ringStepLatencyS: the runner's RING_STEP_LATENCY_S as the report carries it, (37 µs − 1.5 · 4 MiB / (450 GB/s · 0.82)) / 6 = 3.32499 µs.
  const allReduce = { oneShotEfficiency: 0.85, twoShotEfficiency: 0.5, multimemEfficiency: 0.55, ringEfficiency: 0.82, ringStepLatencyS: RING_STEP_LATENCY_S, latencyS: 10e-6 };
  const stepTime = { computeEfficiency: 0.6, memoryEfficiency: 0.8, overheadMs: 0, assumed: ['compute_efficiency', 'memory_efficiency', 'overhead_ms'], allReduce };
  const tp = (n: number, attained: number, goodput: number): SweepReportRow => ({
    id: `t${n}`, index: n === 4 ? 0 : 1, values: { 'device.tensor_parallel_size': n }, label: `tensor_parallel_size=${n}`, environmentKey: 'e1', status: 'ok', file: 'f', gpu: 'H100 SXM', stepTime,
    unmodelled: ['FlashInfer\'s all-reduce'],
    metrics: { gpus: n, sloAttainment: attained, goodputRequestsPerSec: goodput, goodputPerGpuRequestsPerSec: goodput / n, sloTtftMs: 500, sloAttainmentTarget: 0.99 },
  });
  const r: SweepReport = {
    ...report, name: 'decision.attn.yaml', sweepId: 'ab12', createdAt: '2026-12-05T12:00:00.000Z', models: ['Llama-3.1-70B'], axes: [{ key: 'device.tensor_parallel_size', values: [4, 8] }], total: 2, missing: [],
    // s38 newcomer 3's figures: tp 4 at 5.89 goodput, tp 8 at 9.32; per GPU 1.47 beats 1.17.
    rows: [tp(4, 0.995, 5.89), tp(8, 0.994, 9.32)],
    best: { id: 't4', environmentKey: 'e1', label: 'tensor_parallel_size=4', rule: 'highest simulated goodput per GPU' },
  };
  const goodput = SWEEP_METRICS.find((m) => m.key === 'goodputRequestsPerSec')!;
  // Ranked by goodput, tp 8 (9.32) is first though tp 4 is the best point (per GPU): the rank follows the figure chosen.
  assert.equal(
    sweepMarkdown(r, goodput),
    [
      '### Llama-3.1-70B · decision.attn.yaml · sweep (modelled)',
      '',
      'Sweep ab12, job simulate, 2026-12-05T12:00:00.000Z: 2 of 2 points.',
      '',
      '- GPU: H100 SXM (the step times modelled for its datasheet peaks, not measured on it)',
      '- SLO: TTFT ≤ 500 ms for 99.0% of requests (the profile\'s slo; "requests meeting the SLO" is the fraction that did)',
      "- step time: compute_efficiency 0.6 (assumed), memory_efficiency 0.8 (assumed), overhead_ms 0 (assumed), an all-reduce costs ~10 µs a call (NCCL's ring past 4 MiB: ~3.32 µs for each of its 2 · (tp − 1) steps) + its bytes / bus bandwidth, the interconnect's × 0.85 (one-shot), 0.5 (two-shot, NCCL ring), 0.55 (multimem), 0.82 (NCCL ring past 4 MiB) (assumed (fitted to vLLM PR #24111's H100 SXM timings))",
      '- ranked by goodput (requests/s, modelled), higher first',
      '',
      '| rank | best | device.tensor_parallel_size | requests meeting the SLO (modelled) | goodput (requests/s, modelled) | goodput per GPU (requests/s, modelled) | status |',
      '| ---: | --- | --- | ---: | ---: | ---: | --- |',
      '| 1 |  | 8 | 99.4% | 9.32 | 1.17 | ok |',
      '| 2 | ★ | 4 | 99.5% | 5.89 | 1.47 | ok |',
      '',
      'Best point: tensor_parallel_size=4 — highest simulated goodput per GPU.',
      '',
      ...sweepProvenance(r).map((line) => `- ${line}`),
      '',
    ].join('\n'),
  );
  // What the step times leave out is among the sources, as on the tab.
  assert.match(sweepMarkdown(r, goodput), /- not modelled in the step times: FlashInfer's all-reduce\n/);
  // The figures the all-reduce words name are the model's: 10 µs a call (ALL_REDUCE_LATENCY_S), the ring's ~3.32 µs a step (RING_STEP_LATENCY_S, 3.32499 µs).
  assert.deepEqual([ALL_REDUCE_LATENCY_S * 1e6, (RING_STEP_LATENCY_S * 1e6).toFixed(3)], [10, '3.325']);
  // The ring's figure is the report's, not a literal of the page's: a report carrying 5 µs a step reads 5 µs; one written before s49 (none) names no figure.
  const carried = (ar: typeof allReduce | Omit<typeof allReduce, 'ringStepLatencyS'>) => sweepMarkdown({ ...r, rows: r.rows.map((row) => ({ ...row, stepTime: { ...stepTime, allReduce: ar } })) }, goodput);
  assert.match(carried({ ...allReduce, ringStepLatencyS: 5e-6 }), /\(NCCL's ring past 4 MiB: ~5 µs for each of its 2 · \(tp − 1\) steps\)/);
  const { ringStepLatencyS: _, ...older } = allReduce;
  assert.doesNotMatch(carried(older), /for each of its 2 · \(tp − 1\) steps/);
  // Per GPU, tp 4 ranks first; a figure with no better way (pool pages) ranks nothing and keeps point order.
  assert.deepEqual(rankedSweepTable(r, SWEEP_METRICS.find((m) => m.key === 'goodputPerGpuRequestsPerSec')!).rows.map((row) => row.slice(0, 3)), [['1', '★', '4'], ['2', '', '8']]);
  const pages = rankedSweepTable({ ...report, best: null }, SWEEP_METRICS.find((m) => m.key === 'poolPages')!);
  assert.deepEqual(pages.rows.map((row) => row[0]), ['', '', '', '', '']);
});

test('History\'s points cell: every point, some of them, or an interrupted sweep\'s kept points said so (s41 csv41 left 3)', () => {
  assert.equal(sweepPointsText({ points: 24, total: 24 }), '24');
  assert.equal(sweepPointsText({ points: 3, total: 4 }), '3 of 4');
  assert.equal(sweepPointsText({ points: 9, total: 1200, interrupted: true }), 'interrupted, 9 of 1,200 points');
});

test('an interrupted report whose missing points are a whole tp x GPU cell says the best is chosen without it (s42 newcomer-ed F5)', () => {
  // The newcomer's 36-point sweep cut at 30 lost the whole tp 8 x H200 cell. By hand, smaller:
  // 3 axes tp x gpu x ttft_ms, 8 points; the two tp 8 x H200 points (ttft 500, 1000) missing: that pair is a whole cell; no single value is.
  const axes = [{ key: 'device.tensor_parallel_size', values: [4, 8] }, { key: 'device.gpu', values: ['H100 SXM', 'H200'] }, { key: 'slo.ttft_ms', values: [500, 1000] }];
  const all = axes[0]!.values.flatMap((tp) => axes[1]!.values.flatMap((gpu) => axes[2]!.values.map((t) => ({ 'device.tensor_parallel_size': tp, 'device.gpu': gpu, 'slo.ttft_ms': t }))));
  const gone = (v: Record<string, unknown>) => v['device.tensor_parallel_size'] === 8 && v['device.gpu'] === 'H200';
  const rows = all.filter((v) => !gone(v)).map((values, index) => ({ id: `p${index}`, index, values, label: `p${index}`, environmentKey: 'e1', status: 'ok' as const, metrics: {}, file: '' }));
  const missing = all.filter(gone).map((values, i) => ({ id: `m${i}`, index: 6 + i, values, label: `m${i}` }));
  const text = interruptedText({ interrupted: true, total: 8, axes, rows, missing } as unknown as SweepReport)!;
  assert.match(text, /\. None of them has tensor_parallel_size=8 with gpu=H200: the best is chosen without it\.$/);
  // One missing point of the cell: the cell has a point, nothing said.
  assert.doesNotMatch(interruptedText({ interrupted: true, total: 8, axes, rows: [...rows, { ...rows[0]!, values: all.filter(gone)[0]! }], missing: missing.slice(1) } as unknown as SweepReport)!, /None of them has/);
});

test('an interrupted sweep over a described GPU names its missing cell by the GPU\'s label (s43: === never matched a mapping read from another file, String wrote [object Object])', () => {
  // As above, with the H200 a described GPU (a device.gpu mapping): the report's axes, rows and missing
  // points each hold their own copy of it, as JSON read from different files does (key order differs too).
  const mi325x = { name: 'MI325X', bf16_tflops: 1307.4, memory_bandwidth_gb_s: 6000, memory_gib: 255.5 };
  const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
  const axes = [{ key: 'device.tensor_parallel_size', values: [4, 8] }, { key: 'device.gpu', values: ['H100 SXM', copy(mi325x)] }, { key: 'slo.ttft_ms', values: [500, 1000] }];
  const all = [4, 8].flatMap((tp) => ['H100 SXM', 'MI325X'].flatMap((gpu) => [500, 1000].map((t) => ({ tp, gpu, t }))));
  const values = (p: { tp: number; gpu: string; t: number }) => ({ 'device.tensor_parallel_size': p.tp, 'device.gpu': p.gpu === 'MI325X' ? Object.fromEntries(Object.entries(mi325x).reverse()) : p.gpu, 'slo.ttft_ms': p.t });
  const gone = (p: { tp: number; gpu: string }) => p.tp === 8 && p.gpu === 'MI325X';
  const rows = all.filter((p) => !gone(p)).map((p, index) => ({ id: `p${index}`, index, values: values(p), label: `p${index}`, environmentKey: 'e1', status: 'ok' as const, metrics: {}, file: '' }));
  const missing = all.filter(gone).map((p, i) => ({ id: `m${i}`, index: 6 + i, values: values(p), label: `m${i}` }));
  const text = interruptedText({ interrupted: true, total: 8, axes, rows, missing } as unknown as SweepReport)!;
  assert.match(text, /\. None of them has tensor_parallel_size=8 with gpu=MI325X \(user-given\): the best is chosen without it\.$/);
  assert.doesNotMatch(text, /object Object/);
  // The other GPU's cell with tp 8 has its points: not named, though its mapping is another object than the axis's.
  assert.doesNotMatch(text, /H100 SXM/);
});

test('the cost chart: a bar per priced point, cheapest first, from $0, a colour per GPU model with its user-given price, the value at each bar; the tab opens on it when the best was ranked by cost', () => {
  // Costs by hand: 2.49 × 1 / 3600 / 7,547 × 10^6 = 0.0916 $ (H100 SXM tp 1); 2.49 × 2 / 3600 / 12,791 × 10^6 = 0.108 $ (tp 2);
  // 1.29 × 1 / 3600 / 2,842 × 10^6 = 0.126 $ (A100 80GB tp 1). The tab does not compute them: they are the report's.
  const priced = (id: string, gpu: string, usd: number, price: number): SweepReportRow => ({
    id, index: 0, values: { 'device.gpu': gpu }, label: id, environmentKey: 'e1', status: 'ok', gpu,
    metrics: { gpuHourUsd: price, usdPerMillionOutputTokens: usd, throughputTokensPerSec: 1, maxRatePerGpuRequestsPerSec: 1 }, file: 'f',
  });
  const costReport: SweepReport = {
    ...report, job: 'max-rate', axes: [{ key: 'device.gpu', values: ['H100 SXM', 'A100 80GB'] }], total: 3, missing: [],
    rows: [priced('a100 tp1', 'A100 80GB', 0.126, 1.29), priced('h100 tp2', 'H100 SXM', 0.108, 2.49), priced('h100 tp1', 'H100 SXM', 0.0916, 2.49)],
    best: { id: 'h100 tp1', environmentKey: 'e1', label: 'h100 tp1', rule: 'lowest modelled $ per million output tokens', byCost: true },
  };
  const chart = sweepCostChart(costReport, palette)!;
  assert.equal(chart.bars, 3);
  assert.equal(chart.config.type, 'bar');
  assert.equal(chart.config.options!.indexAxis, 'y');
  assert.deepEqual(chart.config.data.labels, ['★ h100 tp1', 'h100 tp2', 'a100 tp1']);
  // One dataset per GPU model, its bars only (null elsewhere), named with its price and that the price is the user's.
  assert.deepEqual(chart.config.data.datasets.map((d) => [d.label, d.data]), [
    ['H100 SXM, $2.49/GPU-hour (user-given)', [0.0916, 0.108, null]],
    ['A100 80GB, $1.29/GPU-hour (user-given)', [null, null, 0.126]],
  ]);
  const x = chart.config.options!.scales!.x as { beginAtZero: boolean; title: { text: string }; ticks: { callback: (v: number) => string } };
  assert.equal(x.beginAtZero, true);
  assert.equal(x.title.text, '$ per 1M output tokens (modelled)');
  assert.equal(x.ticks.callback(0.05), '$0.05');
  assert.match((chart.config.options!.plugins!.title as { text: string }).text, /^\$ per 1M output tokens by point \(modelled, at user-given \$\/GPU-hour; lower is better\)$/);
  assert.deepEqual((chart.config.options!.plugins as unknown as { attnscopeBarValues: { texts: string[] } }).attnscopeBarValues.texts, ['$0.0916', '$0.108', '$0.126']);
  assert.match(chart.ariaLabel, /^\$ per 1M output tokens \(modelled, at user-given prices per GPU-hour\), by cost: h100 tp1 \$0\.0916; h100 tp2 \$0\.108; a100 tp1 \$0\.126$/);
  assert.ok(sweepCostChartHeight(3, 12) >= 220);
  assert.equal(chart.excluded, 0);
  // A cheaper point that fails the SLO and does not keep up (s44 newcomer-ed F1: RTX 4090 at $0.093,
  // 8.5 % meeting, drawn first as a plain bar): grey, why under its label, and said in the accessible name.
  const failing: SweepReportRow = { ...priced('rtx', 'H100 SXM', 0.05, 2.49), keepsUp: false, metrics: { ...priced('rtx', 'H100 SXM', 0.05, 2.49).metrics, sloAttainment: 0.085 } };
  const marked = sweepCostChart({ ...costReport, rows: [...costReport.rows, failing] }, palette)!;
  assert.equal(marked.excluded, 1);
  // Each reason its own line: on one, "fails SLO (8.5%), does not keep up" was cut at a 480 px panel's left edge (s45 newcomer-ed N1).
  assert.deepEqual(marked.config.data.labels, [['rtx', 'fails SLO (8.5%)', 'does not keep up'], '★ h100 tp1', 'h100 tp2', 'a100 tp1']);
  assert.equal(marked.labelLines, 3);
  // No y title drawn over those labels.
  assert.equal((marked.config.options!.scales!.y as { title?: { display?: boolean } }).title?.display, undefined);
  // The legend: each GPU in its colour (chart.js took H100's swatch from its first bar, rtx's, grey), and one hatched grey swatch for the left-out bars.
  const legend = marked.config.options!.plugins!.legend!.labels!.generateLabels!({ isDatasetVisible: () => true } as never);
  assert.deepEqual(legend.map((l) => [l.text, l.strokeStyle]), [
    ['H100 SXM, $2.49/GPU-hour (user-given)', palette.series[0]],
    ['A100 80GB, $1.29/GPU-hour (user-given)', palette.series[1]],
    ['left out of the best (why under its label)', palette.muted],
  ]);
  assert.equal(legend[2]!.datasetIndex, undefined);
  const h100 = marked.config.data.datasets[0]!;
  assert.deepEqual((h100.borderColor as string[]).slice(0, 2), [palette.muted, palette.series[0]]);
  assert.match((marked.config.options!.plugins!.title as { text: string }).text, /hatched grey: left out of the best\)$/);
  assert.match(marked.ariaLabel, /by cost: rtx \$0\.0500 \(left out of the best: fails SLO \(8\.5%\), does not keep up\); h100 tp1/);
  // Rows as tall as a 3-line label: 4 × (3 × 15 + 8) = 212 px of rows, against 4 × 28 = 112 for 1-line labels.
  assert.equal(sweepCostChartHeight(4, 12, 3), 352);
  assert.equal(sweepCostChartHeight(4, 12), 252);
  // Against the GPU models (categories, no order between them): markers, no line through them; the y title says its unit once (s44 newcomer-ed F2).
  const byGpu = sweepAxisCharts(costReport, SWEEP_METRICS.find((m) => m.key === 'usdPerMillionOutputTokens')!, palette)[0]!;
  assert.ok(byGpu.config.data.datasets.length > 0 && byGpu.config.data.datasets.every((d) => (d as { showLine?: boolean }).showLine === false));
  assert.equal((byGpu.config.options!.scales!.y as { title: { text: string } }).title.text, '$ per 1M output tokens (user-given $/GPU-hour)');
  // s45 newcomer-ed N2: the $ / 1M output tokens vs device.gpu chart drew RTX 4090 ($0.0863, 8.5 % meeting the SLO, not keeping
  // up) as a plain point, the lowest, and its accessible name said "lowest ... at gpu RTX 4090". The newcomer's figures:
  // H100 SXM $0.318, A100 80GB $0.165 (both keep up, 100 % meet), L4 $0.563 (0.0 %, does not keep up), RTX 4090 $0.0863.
  const gpus = ['H100 SXM', 'A100 80GB', 'L4', 'RTX 4090'];
  const four: SweepReport = {
    ...costReport, axes: [{ key: 'device.gpu', values: gpus }], total: 4,
    rows: [
      { ...priced('gpu=H100 SXM', 'H100 SXM', 0.318, 2.49), keepsUp: true },
      { ...priced('gpu=A100 80GB', 'A100 80GB', 0.165, 1.29), keepsUp: true },
      { ...priced('gpu=L4', 'L4', 0.563, 0.8), keepsUp: false, metrics: { ...priced('gpu=L4', 'L4', 0.563, 0.8).metrics, sloAttainment: 0 } },
      { ...priced('gpu=RTX 4090', 'RTX 4090', 0.0863, 0.35), keepsUp: false, metrics: { ...priced('gpu=RTX 4090', 'RTX 4090', 0.0863, 0.35).metrics, sloAttainment: 0.085 } },
    ],
    best: { id: 'gpu=A100 80GB', environmentKey: 'e1', label: 'gpu=A100 80GB', rule: 'lowest modelled $ per million output tokens', byCost: true },
  };
  const fourRows = four.rows.map((r, k) => ({ ...r, values: { 'device.gpu': gpus[k]! } }));
  const line = sweepAxisCharts({ ...four, rows: fourRows }, SWEEP_METRICS.find((m) => m.key === 'usdPerMillionOutputTokens')!, palette)[0]!;
  const points = line.config.data.datasets[0] as { pointBorderColor?: string[]; borderColor: string };
  // In the axis's order: H100, A100 in the line's colour; L4, RTX 4090 grey.
  assert.deepEqual(points.pointBorderColor, [points.borderColor, points.borderColor, palette.muted, palette.muted]);
  assert.match(line.ariaLabel, /lowest \$0\.165 [^;]* at gpu A100 80GB among the points kept for the best; left out of the best: gpu L4 \$0\.563 \(fails SLO \(0\.0%\), does not keep up\), gpu RTX 4090 \$0\.0863 \(fails SLO \(8\.5%\), does not keep up\)/);
  assert.equal((line.config.options!.plugins!.title as { text: string }).text, '$ / 1M output tokens ($ per 1M output tokens, modelled; hatched grey: left out of the best) vs device.gpu');
  const tip = (line.config.options!.plugins!.tooltip as { callbacks: { afterLabel: (i: { datasetIndex: number; dataIndex: number }) => string } }).callbacks.afterLabel;
  assert.equal(tip({ datasetIndex: 0, dataIndex: 3 }), 'left out of the best: fails SLO (8.5%), does not keep up');
  assert.equal(tip({ datasetIndex: 0, dataIndex: 1 }), '');
  // One line, yet a legend: its swatch in the line's colour (chart.js took it from the first point), then the left-out one's.
  assert.equal(line.leftOut, true);
  const lineLegend = line.config.options!.plugins!.legend!;
  assert.equal(lineLegend.display, true);
  assert.deepEqual(lineLegend.labels!.generateLabels!({ isDatasetVisible: () => true } as never).map((l) => [l.text, l.strokeStyle]), [['$ / 1M output tokens', points.borderColor], ['left out of the best (why on hover)', palette.muted]]);
  // Other figures' charts are not greyed.
  const tput = sweepAxisCharts({ ...four, rows: fourRows }, SWEEP_METRICS.find((m) => m.key === 'throughputTokensPerSec')!, palette)[0]!;
  assert.equal((tput.config.data.datasets[0] as { pointBorderColor?: string[] }).pointBorderColor, undefined);
  // A numeric axis keeps its line.
  assert.equal((sweepAxisCharts(report, SWEEP_METRICS[0]!, palette)[0]!.config.data.datasets[0] as { showLine?: boolean }).showLine, undefined);
  // No priced row: no chart.
  assert.equal(sweepCostChart(report, palette), null);
  // The tab opens on the cost where the best was ranked by it, else where it did before.
  const metrics = metricsOf(costReport);
  assert.equal(decisionMetric(metrics, true)!.key, 'usdPerMillionOutputTokens');
  assert.equal(decisionMetric(metrics, false)!.key, 'maxRatePerGpuRequestsPerSec');
  // The column header names its unit and source.
  const cost = SWEEP_METRICS.find((m) => m.key === 'usdPerMillionOutputTokens')!;
  assert.equal(metricHeader(cost, reportScale(costReport, cost).unit), '$ / 1M output tokens ($ per 1M output tokens, at user-given $/GPU-hour, modelled)');
  // Its cells as the CLI's $/1M out column and the bars write them (core/format formatUsdCost): 1.29 / 3600 / 1995 · 10^6 = $0.180, not $0.18.
  const scale = reportScale(costReport, cost);
  assert.equal(scale.show(1.29 / 3600 / 1995 * 1e6), '$0.180');
  assert.equal(scale.tick(0.15, 0.05), '$0.15');
  const t = sweepTable(costReport);
  const col = t.columns.findIndex((c) => c.startsWith('$ / 1M output tokens'));
  assert.deepEqual(t.rows.map((r) => r[col]).sort(), ['$0.0916', '$0.108', '$0.126']);
});

test('a best tied with more points than its sentence names lists them on the tab and in the Markdown, not in "the report\'s best.tiedWith" (s44 newcomer-ed F5)', () => {
  // The CLI's sentence for a tie of 4 (runner/sweep/results.ts bestRow, test/unit/sweep.test.ts: "tied with 4 other points (sweep-report.json lists them under best.tiedWith): ...").
  const tiedWith = [2, 4, 8, 12].map((ps) => ({ id: `p${ps}`, environmentKey: 'e1', label: `page_size=${ps}` }));
  const report = { schema: 1, kind: 'attnscope-sweep-report', name: 's.attn.yaml', sweepId: 'ab', job: 'simulate', createdAt: '', axes: [{ key: 'kv_cache.page_size', values: [1, 2, 4, 8, 12] }], total: 5, rows: [], missing: [], duplicates: [], environments: {},
    best: { id: 'p1', environmentKey: 'e1', label: 'page_size=1', rule: 'highest simulated output throughput', tiedWith, tie: 'tied with 4 other points (sweep-report.json lists them under best.tiedWith): simulated throughput within 1%' } } as unknown as SweepReport;
  const text = sweepBestText(report);
  assert.equal(text.best, 'Best point: page_size=1 — highest simulated output throughput; tied with 4 other points (listed below): simulated throughput within 1%.');
  assert.deepEqual(text.tied, ['page_size=2', 'page_size=4', 'page_size=8', 'page_size=12']);
  // Three or fewer are named in the sentence itself: no list.
  assert.deepEqual(sweepBestText({ ...report, best: { ...report.best!, tiedWith: tiedWith.slice(0, 1), tie: 'tied with page_size=2: simulated throughput within 1%' } }).tied, []);
});

test('an interrupted report missing three values names each on its own, "None of them has a, b or c" (s44 newcomer-ed F5: "No point of a; b; c" read as one combination)', () => {
  // By hand: page_size [16, 32, 64] x ttft_ms [500, 1000], one point kept (page 16, ttft 1000): page_size 32, page_size 64 and
  // ttft_ms 500 each have no point among those kept; a pair is named only where neither of its values is (none here).
  const axes = [{ key: 'kv_cache.page_size', values: [16, 32, 64] }, { key: 'slo.ttft_ms', values: [500, 1000] }];
  const all = [16, 32, 64].flatMap((ps) => [500, 1000].map((t) => ({ 'kv_cache.page_size': ps, 'slo.ttft_ms': t })));
  const kept = (v: Record<string, number>) => v['kv_cache.page_size'] === 16 && v['slo.ttft_ms'] === 1000;
  const rows = all.filter(kept).map((values, index) => ({ id: `p${index}`, index, values, label: `p${index}`, environmentKey: 'e1', status: 'ok' as const, metrics: {}, file: '' }));
  const missing = all.filter((v) => !kept(v)).map((values, i) => ({ id: `m${i}`, index: 1 + i, values, label: `m${i}` }));
  const text = interruptedText({ interrupted: true, total: 6, axes, rows, missing } as unknown as SweepReport)!;
  assert.match(text, /\. None of them has page_size=32, page_size=64 or ttft_ms=500: the best is chosen without them\.$/);
});

test('a sweep line\'s markers are drawn whole on the plot\'s edges: the axis ends at the highest value and the swept ends (s44 newcomer-ed F6)', () => {
  // The fixture's 4.0 % at page_size 32 is both the y axis's top and the x axis's end: a marker of radius 4 (6 on a category
  // axis) with its border reaches that far past the edge, which chart.js's default clip (0: at the plot's edge) cut in half.
  const frag = SWEEP_METRICS.find((m) => m.key === 'internalFragmentation')!;
  for (const chart of sweepAxisCharts(report, frag, palette)) {
    for (const d of chart.config.data.datasets as Array<{ clip?: number; pointRadius?: number; borderWidth?: number }>) {
      assert.ok((d.clip ?? 0) >= (d.pointRadius ?? 0) + (d.borderWidth ?? 0), `${chart.axis}: clip ${d.clip} for radius ${d.pointRadius}`);
    }
  }
  const gpus: SweepReport = { ...report, axes: [{ key: 'device.gpu', values: ['H100 SXM', 'L4'] }], total: 2, missing: [], rows: ['H100 SXM', 'L4'].map((gpu, index) => ({ ...row(8, 4, 0.01 * (index + 1)), id: gpu, index, values: { 'device.gpu': gpu } })) };
  const [byGpu] = sweepAxisCharts(gpus, frag, palette);
  assert.equal((byGpu!.config.data.datasets[0] as { pointRadius?: number }).pointRadius, 6);
  assert.ok(((byGpu!.config.data.datasets[0] as { clip?: number }).clip ?? 0) >= 6 + palette.lineWidth);
});

// s49: past 4 MiB at tp 8 on H100 SXM NCCL runs NVLink SHARP, not its ring: the settings say so, with its bus bandwidth.
test('the step-time settings name NCCL\'s NVLink SHARP all-reduce past 4 MiB where a row\'s band is NVLS, in place of the ring\'s efficiency', () => {
  // 480 GB/s: NVLS's busbw on 8 H100 SXM (NVIDIA/nccl#1455); the call's latency stays the ring's 2 · (tp − 1) steps of 3.32 µs (the report's ringStepLatencyS).
  const allReduce = { oneShotEfficiency: 0.85, twoShotEfficiency: 0.5, multimemEfficiency: 0.55, ringEfficiency: 0.82, nvlsBusBytesPerSec: 480e9, ringStepLatencyS: RING_STEP_LATENCY_S, latencyS: 10e-6 };
  const row: SweepReportRow = {
    id: 't8', index: 0, values: { 'device.tensor_parallel_size': 8 }, label: 'tensor_parallel_size=8', environmentKey: 'e1', status: 'ok', file: 'f', gpu: 'H100 SXM',
    stepTime: { computeEfficiency: 0.6, memoryEfficiency: 0.8, overheadMs: 0, assumed: ['compute_efficiency', 'memory_efficiency', 'overhead_ms'], allReduce }, metrics: { gpus: 8 },
  };
  const lines = sweepAssumptions({ ...report, rows: [row] });
  const step = lines.find((l) => l.startsWith('step time: '))!;
  assert.match(step, /an all-reduce costs ~10 µs a call \(NCCL past 4 MiB: ~3\.32 µs for each of its ring's 2 · \(tp − 1\) steps\) \+ its bytes \/ bus bandwidth, the interconnect's × 0\.85 \(one-shot\), 0\.5 \(two-shot, NCCL ring\), 0\.55 \(multimem\), and past 4 MiB NCCL's NVLink SHARP all-reduce \(NVLS\) at 480 GB\/s bus bandwidth \(nccl-tests' busbw on H100 SXM, NVIDIA\/nccl#1455\) in place of its ring \(assumed/);
  assert.doesNotMatch(step, /0\.82 \(NCCL ring past 4 MiB\)/);
  // s50: a report carrying NVLS's own latency a call (56.7 µs, fitted to Azure's 8-H200 table) names it in place of the
  // ring's steps, and its bandwidth as the peak; the report above (written before s50, no nvlsLatencyS) keeps its words.
  const s50 = sweepAssumptions({ ...report, rows: [{ ...row, stepTime: { ...row.stepTime!, allReduce: { ...allReduce, nvlsLatencyS: 56.7e-6 } } }] }).find((l) => l.startsWith('step time: '))!;
  assert.match(s50, /an all-reduce costs ~10 µs a call \(NCCL past 4 MiB: ~56\.7 µs, its NVLink SHARP all-reduce's\) \+ its bytes \/ bus bandwidth, .*, and past 4 MiB NCCL's NVLink SHARP all-reduce \(NVLS\) at 480 GB\/s peak bus bandwidth \(nccl-tests' busbw on H100 SXM, NVIDIA\/nccl#1455; its latency a call fitted to Azure's published NVLS table on 8 H200\) in place of its ring \(assumed/);
  assert.doesNotMatch(s50, /steps\)/);
});

// s49 newcomer-ed 6: a screenshot of the Sweep tab's chart lost where it came from (no model, GPU, sweep id, modelled or measured).
test('sweepCaption names the model, the profile, the sweep id and job, the GPU the modelled figures are for, and the machine the measured ones were timed on', () => {
  const env = { cpuModel: 'AMD EPYC', cpuCores: 2, arch: 'x64', simd: 'avx2' } as unknown as SweepReport['environments'][string];
  const both: SweepReport = {
    schema: 1, kind: 'attnscope-sweep-report', tool: 't', createdAt: '', sweepId: 'd4cf7d4c', name: 'page-size.attn.yaml', job: 'both', models: ['Llama-3.1-8B'],
    axes: [{ key: 'kv_cache.page_size', values: [1, 16] }], total: 2, missing: [], duplicates: [], environments: { e1: env }, best: null,
    rows: [1, 16].map((ps, index) => ({ id: `p${ps}`, index, values: { 'kv_cache.page_size': ps }, label: `page_size=${ps}`, environmentKey: 'e1', status: 'ok' as const, file: `p${ps}.json`, gpu: 'H100 SXM',
      metrics: { internalFragmentation: 0.001 * ps, prefixHitRate: 0.57, decodeNsPerToken: 5.99e6, decodeP10NsPerToken: 1.8e6, decodeP90NsPerToken: 16.7e6 } })),
  };
  assert.equal(
    sweepCaption(both),
    'Llama-3.1-8B · page-size.attn.yaml · sweep d4cf7d4c (job both) · modelled for H100 SXM: internal fragmentation, prefix-cache hit rate · measured on AMD EPYC (2 cores, x64, avx2): decode time per token (median, p10–p90)',
  );
});

// s52: the CSV and JSON carried a decode case's from-cache mark, the Sweep tab did not.
test('the Sweep tab: a decode time read from cache reads "(from cache)" in its cell, and the notes under the table say why in bench\'s words', () => {
  const words = 'from cache: reads 4.02 MiB, within the 32 MiB L3; not a DRAM figure';
  const measured: SweepReport = {
    ...report, job: 'bench',
    rows: [
      { ...row(8, 4, 0.01), metrics: { decodeNsPerToken: 300_000, decodeFromCache: 'cache-size', decodeFromCacheText: words } },
      { ...row(16, 4, 0.02), metrics: { decodeNsPerToken: 310_000 } },
    ],
  };
  const t = sweepTable(measured);
  const col = t.columns.indexOf('decode time per token (µs, measured)');
  assert.ok(col > 0, t.columns.join(' | '));
  // 300,000 ns = 300 µs.
  assert.deepEqual(t.rows.map((r) => r[col]), ['300 µs (from cache)', '310 µs']);
  assert.ok(sweepProvenance(measured).includes(`decode time per token (from cache) at page_size=8 max_num_seqs=4: ${words}`), sweepProvenance(measured).join('\n'));
});
