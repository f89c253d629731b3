/**
 * The Sweep tab as a figure for a design doc (webview/sweep.ts, s50 sweepchart): what its PNG says of
 * itself, the key figures charted side by side, the points not run and the p10–p90 spread.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SWEEP_METRICS } from '../../core/sweepFigures';
import { sweepToCsv } from '../../core/sweepCsv';
import { pointInputsOf } from '../../runner/sweep/results';
import { chartedFigures, decisionMetric, metricsOf, sweepAxisCharts, sweepCaption, sweepPngCaption, type SweepAxisChart } from '../../webview/sweep';
import type { Palette } from '../../webview/theme';
import { pageSizeSweep } from '../fixtures/sweep';

test('the sweep PNG\'s caption names the model, profile, sweep id and job, dtype and workload, the GPU modelled for and the machine measured on', () => {
  // Written out from the fixture: models, name, sweepId, job, each row's gpu, the one environment (run.environment: AMD EPYC, 2 cores, x64, avx2).
  assert.deepEqual(sweepPngCaption(pageSizeSweep), [
    'Llama-3.1-8B · page-size.attn.yaml · sweep',
    'Llama-3.1-8B · page-size.attn.yaml · sweep d4cf7d4c (job both) · dtype bf16 · workload 600 requests at 20 requests/s · modelled for H100 SXM: internal fragmentation, prefix-cache hit rate · measured on AMD EPYC (2 cores, x64, avx2): decode time per token (median, p10–p90)',
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
    'decode time per token (ms, measured, median; bars: p10–p90) vs kv_cache.page_size',
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

// s49 newcomer-ed 6: the caption named no dtype or workload, so a screenshot lost them.
test('the caption and the CSV name each point\'s dtype, KV dtype and workload; an axis over them lists each value once', () => {
  const rows = pageSizeSweep.rows.map((r) => ({ ...r, dtype: 'bf16', kvDtype: r.index < 2 ? 'bf16' : 'fp8', workload: { requests: 600, arrivalRate: 20 } }));
  const caption = sweepCaption({ ...pageSizeSweep, rows });
  assert.match(caption, / · sweep d4cf7d4c \(job both\) · dtype bf16, bf16 \(KV fp8\) · workload 600 requests at 20 requests\/s · modelled for /);
  assert.match(sweepCaption({ ...pageSizeSweep, rows: rows.map((r) => ({ ...r, kvDtype: 'bf16', workload: { trace: './chat-trace.jsonl' } })) }), / · dtype bf16 · workload trace \.\/chat-trace\.jsonl · /);
  // A report merged before s50: neither.
  assert.doesNotMatch(sweepCaption({ ...pageSizeSweep, rows: pageSizeSweep.rows.map(({ dtype: _d, kvDtype: _k, workload: _w, ...r }) => r) }), /dtype|workload/);
  const [header, first, , third] = sweepToCsv({ ...pageSizeSweep, rows }).text.trimEnd().split('\n').map((l) => l.split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/)); // commas outside quotes (the machine's own are quoted)
  const cell = (r: string[], c: string) => r[header!.indexOf(c)];
  // page_size 1 and 4 (rows 0 and 2): KV bf16 and fp8; no trace column where no row replays one.
  assert.deepEqual(['dtype', 'kv_dtype', 'workload_requests', 'workload_arrival_rate_requests_per_s'].map((c) => [cell(first!, c), cell(third!, c)]), [['bf16', 'bf16'], ['bf16', 'fp8'], ['600', '600'], ['20', '20']]);
  assert.ok(!header!.includes('workload_trace'));
  assert.deepEqual(pointInputsOf({ dtype: 'fp16', kvCache: { dtype: 'auto' }, workload: { trace: { path: 'a.csv' } } } as never), { dtype: 'fp16', kvDtype: 'fp16', workload: { trace: 'a.csv' } });
  assert.deepEqual(pointInputsOf({ dtype: 'bf16', kvCache: { dtype: 'fp8' }, workload: null } as never), { dtype: 'bf16', kvDtype: 'fp8' });
});
