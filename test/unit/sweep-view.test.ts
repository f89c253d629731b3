/**
 * The dashboard's sweep view (webview/sweep.ts), pure: one chart per axis with one line per
 * combination of the other axes, values in axis order, gaps where a point is missing, and the
 * best row starred in the table.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SweepReport, SweepReportRow } from '../../core/protocol/sweep';
import { SWEEP_METRICS } from '../../core/sweepFigures';
import { metricHeader, metricsOf, sweepAxisCharts, sweepTable } from '../../webview/sweep';
import type { Palette } from '../../webview/theme';
import { formatDuration, formatDurationIn } from '../../core/format';

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
  assert.deepEqual(byPage!.config.data.labels, ['8', '16', '32']);
  assert.deepEqual(byPage!.config.data.datasets.map((d) => [d.label, d.data]), [['max_num_seqs=4', [0.01, 0.02, 0.04]], ['max_num_seqs=64', [0.011, 0.021, null]]]);
  assert.deepEqual(bySeqs!.config.data.labels, ['4', '64']);
  assert.equal(bySeqs!.lines, 3);
  assert.match(String(byPage!.config.options!.plugins!.title!.text), /internal fragmentation vs kv_cache\.page_size \(modelled\)/);
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
