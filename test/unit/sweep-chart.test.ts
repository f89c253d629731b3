/**
 * The Sweep tab as a figure for a design doc (webview/sweep.ts, s50 sweepchart): what its PNG says of
 * itself, the key figures charted side by side, the points not run and the p10–p90 spread.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SWEEP_METRICS } from '../../core/sweepFigures';
import { chartedFigures, decisionMetric, metricsOf, sweepAxisCharts, sweepPngCaption, type SweepAxisChart } from '../../webview/sweep';
import type { Palette } from '../../webview/theme';
import { pageSizeSweep } from '../fixtures/sweep';

test('the sweep PNG\'s caption names the model, profile, sweep id and job, the GPU modelled for and the machine measured on', () => {
  // Written out from the fixture: models, name, sweepId, job, each row's gpu, the one environment (run.environment: AMD EPYC, 2 cores, x64, avx2).
  assert.deepEqual(sweepPngCaption(pageSizeSweep), [
    'Llama-3.1-8B · page-size.attn.yaml · sweep',
    'Llama-3.1-8B · page-size.attn.yaml · sweep d4cf7d4c (job both) · modelled for H100 SXM: internal fragmentation, prefix-cache hit rate · measured on AMD EPYC (2 cores, x64, avx2): decode time per token (median, p10–p90)',
    '5 of 9 points; not run: the other 4 (the sweep was interrupted) · merged 2026-12-06 13:54 UTC',
    'Best point: page_size=16 — the lowest measured decode time per token.',
  ]);
});

const palette: Palette = { kind: 'dark', foreground: '#fff', muted: '#aaa', background: '#000', grid: '#333', series: ['#00f', '#f80', '#0f0'], fontFamily: 'x', fontSize: 12, lineWidth: 2 };
const figure = (key: string) => SWEEP_METRICS.find((m) => m.key === key)!;
const titleOf = (c: SweepAxisChart) => String(c.config.options!.plugins!.title!.text);

// s49 newcomer-ed 6: fragmentation, prefix-hit rate and decode ms/token one at a time behind the Figure picker.
test('the key figures are charted side by side after the one picked, each titled with its unit and source', () => {
  const chosen = decisionMetric(metricsOf(pageSizeSweep));
  assert.deepEqual(chartedFigures(pageSizeSweep, chosen).map((m) => m.key), ['internalFragmentation', 'prefixHitRate', 'decodeNsPerToken']);
  // A figure picked outside them comes first, the key figures after it.
  assert.deepEqual(chartedFigures({ ...pageSizeSweep, rows: pageSizeSweep.rows.map((r) => ({ ...r, metrics: { ...r.metrics, poolPages: 4096 } })) }, figure('poolPages')).map((m) => m.key), ['poolPages', 'internalFragmentation', 'prefixHitRate', 'decodeNsPerToken']);
  // Judged by an SLO: goodput too.
  const slo = { ...pageSizeSweep, rows: pageSizeSweep.rows.map((r) => ({ ...r, metrics: { ...r.metrics, sloAttainment: 0.95, goodputRequestsPerSec: 18 } })) };
  assert.deepEqual(chartedFigures(slo, figure('sloAttainment')).map((m) => m.key), ['sloAttainment', 'internalFragmentation', 'prefixHitRate', 'decodeNsPerToken', 'goodputRequestsPerSec']);
  // Decode's medians 4.2–5.99 ms: the table's unit, ms (its largest, 5.99e6 ns, is under a second).
  assert.deepEqual(chartedFigures(slo, figure('sloAttainment')).map((m) => titleOf(sweepAxisCharts(slo, m, palette)[0]!)), [
    'requests meeting the SLO (%, modelled) vs kv_cache.page_size',
    'internal fragmentation (%, modelled) vs kv_cache.page_size',
    'prefix-cache hit rate (%, modelled) vs kv_cache.page_size',
    'decode time per token (ms, measured) vs kv_cache.page_size',
    'goodput (requests/s, modelled) vs kv_cache.page_size',
  ]);
});

// s49 newcomer-ed 6: page_size 32..256, not run after a cancel, showed as empty x ticks.
test('the points not run are a ✕ at the axis foot at each value, with a legend swatch and in the accessible name', () => {
  const [chart] = sweepAxisCharts(pageSizeSweep, figure('internalFragmentation'), palette);
  const plugins = chart!.config.options!.plugins as Record<string, unknown> & { legend: { display: boolean; labels: { generateLabels: (c: unknown) => Array<{ text: string; pointStyle?: string }> } } };
  // The 4 missing points' page sizes, on the log axis at their values.
  assert.deepEqual((plugins.attnscopeNotRun as { xs: number[] }).xs, [32, 64, 128, 256]);
  assert.deepEqual(chart!.config.plugins!.map((p) => p.id), ['attnscopeNotRun']);
  // One line (no legend before), now a legend: the line, then the ✕ swatch.
  assert.equal(plugins.legend.display, true);
  const items = plugins.legend.labels.generateLabels({ isDatasetVisible: () => true });
  assert.deepEqual(items.map((i) => [i.text, i.pointStyle]), [['internal fragmentation', 'circle'], ['not run (4 points)', 'crossRot']]);
  assert.match(chart!.ariaLabel, /; not run: page_size 32, 64, 128 and 256$/);
  // A finished sweep: no plugin, no swatch.
  const [whole] = sweepAxisCharts({ ...pageSizeSweep, missing: [] }, figure('internalFragmentation'), palette);
  assert.equal(whole!.config.plugins, undefined);
  assert.equal((whole!.config.options!.plugins!.legend as { display: boolean }).display, false);
});
