/**
 * The dashboard's sweep view (webview/sweep.ts), pure: one chart per axis with one line per
 * combination of the other axes, values in axis order, gaps where a point is missing, and the
 * best row starred in the table.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SweepReport, SweepReportRow } from '../../core/protocol/sweep';
import { metricsOf, sweepAxisCharts, sweepTable, SWEEP_METRICS } from '../../webview/sweep';
import type { Palette } from '../../webview/theme';

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
  assert.deepEqual(t.columns, ['', 'kv_cache.page_size', 'workload.max_num_seqs', 'internal fragmentation', 'pool pages', 'status']);
  assert.equal(t.rows.length, 5);
  assert.deepEqual(t.rows[0]!.slice(0, 3), ['★', '8', '4']);
  assert.equal(t.rows.filter((r) => r[0] === '★').length, 1);
  assert.equal(t.rows[4]![4], '128');
});
