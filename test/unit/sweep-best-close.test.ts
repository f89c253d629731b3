// What a max-rate sweep's best line may claim (s42 newcomer-ed F3, F6): a point within twice the
// search's tolerance is named with its gap and the range the searches leave it; points on different
// GPU models are said to be counted alike; with an SLO axis no best across SLO values, the best of each instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SweepMetrics, SweepReport, SweepReportRow } from '../../core/protocol/sweep';
import { bestRow, formatReport, gpuModelsText, noBestLines } from '../../runner/sweep/results';

/** A max-rate row: `rate` requests/s on `tp` GPUs of `gpu`, limited by the SLO, at SLO TTFT `ttft` ms. */
const row = (tp: number, gpu: string, rate: number, ttft = 1000): SweepReportRow => {
  const label = `tensor_parallel_size=${tp} gpu=${gpu}${ttft === 1000 ? '' : ` ttft_ms=${ttft}`}`;
  const metrics: SweepMetrics = { gpus: tp, maxRateRequestsPerSec: rate, maxRatePerGpuRequestsPerSec: rate / tp, maxRateLimit: 'slo', sloAttainment: 0.99, sloAttainmentTarget: 0.99 } as SweepMetrics;
  return { id: label, index: 0, values: { 'device.tensor_parallel_size': tp, 'device.gpu': gpu, 'slo.ttft_ms': ttft }, label, environmentKey: 'e', status: 'ok', metrics, file: `${label}.json`, gpu };
};

test('a max-rate best 2.2 % ahead names the runner-up, its gap and the 0.2-4.2 % the two 2 % searches leave it; points on two GPU models are said to count alike (s42 newcomer-ed F3)', () => {
  // The newcomer's figures: H200 tp 4 at 11.4 requests/s (2.85 per GPU), H100 SXM tp 4 at 11.16
  // (2.79), tp 8 at 20.0 on both (2.50). 2.85 / 2.79 = 1.0215: outside the 2 % tie (2.79 < 2.85 · 0.98 = 2.793).
  // By hand: each answer A puts the limit in [A, 1.02 A), so the gap lies between
  // 2.85 / (2.79 · 1.02) − 1 = 0.15 % and 2.85 · 1.02 / 2.79 − 1 = 4.2 %. tp 8 is 12.3 % below: not close.
  const rows = [row(4, 'H100 SXM', 11.16), row(4, 'H200', 11.4), row(8, 'H100 SXM', 20.0), row(8, 'H200', 20.0)];
  const b = bestRow(rows)!;
  assert.equal(b.row.label, 'tensor_parallel_size=4 gpu=H200');
  assert.equal(b.tie, '');
  assert.match(b.close, /^close, not a clear winner on max rate per GPU alone: tensor_parallel_size=4 gpu=H100 SXM 2\.2% below \(0\.1% to 4\.2% by the searches\); each max rate is searched to 2%/);
  assert.doesNotMatch(b.close, /tensor_parallel_size=8/);
  assert.match(gpuModelsText(rows), /^the points run on different GPU models \(H100 SXM, H200\): the ranking counts a GPU of each alike/);
  assert.equal(gpuModelsText(rows.filter((r) => r.gpu === 'H200')), '');
  // 5 % apart (outside 2 · 2 %): a clear best, nothing said.
  assert.equal(bestRow([row(4, 'H200', 11.4), row(4, 'H100 SXM', 11.4 / 1.05)])!.close, '');
});

test('a max-rate sweep over slo.ttft_ms names no best across SLO values, the best of each instead (s42 newcomer-ed F6, s49 newcomer L1)', () => {
  // s49's figures: tp 1 at 29.6 requests/s under 500 ms and 30.1 under 1000 ms, 1.7 % apart (a tie within 2 %),
  // so "best: ... ttft_ms=500" came from the tie-break, and across SLO values the loosest admits the highest
  // rate anyway. Here under 500 ms H100 SXM is ahead (8.0 against 6.0), under 2000 ms H200 (14.0 against 12.0).
  const rows = [row(4, 'H100 SXM', 8.0, 500), row(4, 'H200', 6.0, 500), row(4, 'H100 SXM', 12.0, 2000), row(4, 'H200', 14.0, 2000)];
  assert.equal(bestRow(rows), null);
  const lines = noBestLines(rows);
  assert.deepEqual(lines, ['no best point across SLO values: a looser SLO admits a higher rate by definition, so across ttft_ms values the loosest would win: compare points under one SLO; the best for each SLO value: ttft_ms=500: tensor_parallel_size=4 gpu=H100 SXM; ttft_ms=2000: tensor_parallel_size=4 gpu=H200']);
  // One SLO value among the rows (the other axis value failed, or one shard): ranked as before.
  assert.equal(bestRow(rows.slice(0, 2))!.row.label, 'tensor_parallel_size=4 gpu=H100 SXM ttft_ms=500');
  // One point an SLO value: nothing to rank within one.
  assert.match(noBestLines([rows[0]!, rows[3]!])[0]!, /; each SLO value has one point, so none is ranked$/);
  const report = { schema: 1, kind: 'attnscope-sweep-report', tool: 't', createdAt: '', sweepId: 's', name: 'p.attn.yaml', job: 'max-rate', total: 4, rows, missing: [], duplicates: [], environments: {},
    axes: [{ key: 'device.gpu', values: ['H100 SXM', 'H200'] }, { key: 'slo.ttft_ms', values: [500, 2000] }], best: null } as unknown as SweepReport;
  const text = formatReport(report);
  assert.doesNotMatch(text, /^best/m);
  assert.match(text, /\n\nno best point across SLO values: /);
});

test('a request rate reads alike in every column of the table: 3 significant digits, zeros kept (s49 newcomer L2: goodput "25" beside "26.8")', () => {
  // tp 2 at 50 requests/s: 50 / 2 = 25 per GPU, goodput 25; tp 1 at 30.1 (30.1 per GPU), goodput 0.5.
  const a = row(2, 'H100 SXM', 50, 1000);
  a.metrics.goodputRequestsPerSec = 25;
  const b = row(1, 'H100 SXM', 30.1, 1000);
  b.metrics.goodputRequestsPerSec = 0.5;
  const report = { schema: 1, kind: 'attnscope-sweep-report', tool: 't', createdAt: '', sweepId: 's', name: 'p.attn.yaml', job: 'max-rate', total: 2, rows: [a, b], missing: [], duplicates: [], environments: {},
    axes: [{ key: 'device.tensor_parallel_size', values: [2, 1] }], best: null } as unknown as SweepReport;
  const text = formatReport(report);
  // max req/s, per GPU, ..., goodput req/s: 50.0, 25.0 and 25.0 (formatSignificant wrote "50", "25", "25"); 0.500 (was "0.5").
  assert.match(text, /^2 +50\.0 +25\.0 +SLO .* 25\.0\b/m, text);
  assert.match(text, /^1 +30\.1 +30\.1 +SLO .* 0\.500\b/m, text);
});
