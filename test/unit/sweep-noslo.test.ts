// A sweep whose points were judged by an SLO and none met it: the report says so, which point came
// closest and what it would take (session 31: no "best" line, and nothing said).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunResult } from '../../core/protocol/run';
import type { SweepMetrics, SweepReport, SweepReportRow } from '../../core/protocol/sweep';
import { bestRow, formatReport, metricsOf, noBestText } from '../../runner/sweep/results';

const row = (rate: number, metrics: SweepMetrics): SweepReportRow => ({ id: `r${rate}`, index: rate, values: { 'workload.arrival_rate': rate }, label: `arrival_rate=${rate}`, environmentKey: 'e', status: 'ok', metrics, file: `r${rate}.json` });
// SLO TTFT <= 200 ms and TPOT <= 50 ms. rate 8: 72 % meet it, p90 TTFT 340 ms, p90 TPOT 41 ms; rate 16: 30 %.
const slo = { sloTtftMs: 200, sloTpotMs: 50 };
const rows = [
  row(8, { ...slo, sloAttainment: 0.72, goodputRequestsPerSec: 5.1, p99TtftS: 0.61, p99TpotS: 0.048, p90TtftS: 0.34, p90TpotS: 0.041 }),
  row(16, { ...slo, sloAttainment: 0.3, goodputRequestsPerSec: 4.2, p99TtftS: 1.9, p99TpotS: 0.07, p90TtftS: 1.2, p90TpotS: 0.062 }),
];

test('no point meets the SLO: the closest point (most requests meeting it), each bound its p90 misses by how much, and what to relax', () => {
  assert.equal(bestRow(rows), null);
  assert.equal(
    noBestText(rows),
    // 340 ms − 200 ms = 140 ms over; 41 ms <= 50 ms.
    'no point meets the SLO (TTFT <= 200 ms and TPOT <= 50 ms for >= 90% of requests): closest is arrival_rate=8 with 72.0% of requests meeting it; ' +
      'its p90 TTFT 340 ms is over its bound by 140 ms (slo.ttft_ms >= 340 would let 90% meet TTFT alone); p90 TPOT 41 ms is within its bound; relax the SLO or lower the load (workload.arrival_rate)',
  );
  const report: SweepReport = {
    schema: 1, kind: 'attnscope-sweep-report', tool: 'attnscope test', createdAt: '', sweepId: 's', name: 'p.attn.yaml', job: 'simulate',
    axes: [{ key: 'workload.arrival_rate', values: [8, 16] }], total: 2, rows, missing: [], duplicates: [], environments: {}, best: null,
  } as unknown as SweepReport;
  assert.ok(formatReport(report).split('\n').some((l) => l.startsWith('no point meets the SLO (TTFT <= 200 ms and TPOT <= 50 ms')), formatReport(report));
  // A point that meets it: a best line, no such sentence.
  assert.equal(noBestText([...rows, row(4, { ...slo, sloAttainment: 0.95, goodputRequestsPerSec: 3.9 })]), null);
  // Points judged by no SLO: nothing to say.
  assert.equal(noBestText([row(4, { throughputTokensPerSec: 100 })]), null);
});

test('a point\'s metrics keep the SLO it was judged by and its p90 TTFT / TPOT', () => {
  const stats = (p90: number) => ({ mean: p90, p50: p90, p90, p99: p90, max: p90 });
  const run = { profile: { device: { tensorParallelSize: 1 } }, pool: { numPages: 10, summary: { meanInternalFragmentation: 0, prefixHitRate: 0, preemptions: 0, meanOccupancy: 0, throughputTokensPerSec: 1, rejected: 0 }, latency: { ttft: stats(0.34), tpot: stats(0.041), slo: { ttftMs: 200, tpotMs: 50 }, sloAttainment: 0.72, goodputRequestsPerSec: 5.1 } } } as unknown as RunResult;
  const m = metricsOf(run);
  assert.deepEqual([m.sloTtftMs, m.sloTpotMs, m.p90TtftS, m.p90TpotS], [200, 50, 0.34, 0.041]);
});
