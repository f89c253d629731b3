// A sweep whose points were judged by an SLO and none met it: the report says so, which point came
// closest and what it would take (session 31: no "best" line, and nothing said).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunResult } from '../../core/protocol/run';
import type { SweepMetrics, SweepReport, SweepReportRow } from '../../core/protocol/sweep';
import { bestRow, formatReport, metricsOf, noBestText } from '../../runner/sweep/results';
import { boundToWrite } from '../../core/format';

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

test('the bound a no-best line names holds the percentile it quotes: rounded up to three digits, not to the nearest (s49 review)', () => {
  // p90 TTFT 104.2 ms: slo.ttft_ms 104 would still miss it (104.2 > 104); 105 holds it. The sentence said ">= 104".
  const close = [row(8, { ...slo, sloAttainment: 0.72, goodputRequestsPerSec: 5.1, p90TtftS: 0.1042, p90TpotS: 0.041 })];
  const fixed = { ...slo, sloTtftMs: 100 };
  close[0]!.metrics = { ...close[0]!.metrics, ...fixed };
  assert.match(noBestText(close)!, /its p90 TTFT 104 ms is over its bound by 4\.2 ms \(slo\.ttft_ms >= 105 would let 90% meet TTFT alone\)/);
  assert.deepEqual([boundToWrite(104.2), boundToWrite(340), boundToWrite(0.34 * 1000), boundToWrite(7.1), boundToWrite(1.4 * 1000)], ['105', '340', '340', '7.1', '1400']);
});

test('no point meets the SLO and the TTFT less its queueing still misses it: queueing is not the cause, the prefill is (s41 newcomer-ed F4)', () => {
  // Llama-3.1-70B on H200s at tp 4, slo.ttft_ms 500 for 99%: at 2 requests/s p99 TTFT 608 ms with
  // (here) 40 ms of p99 queueing: 608 − 40 = 568 ms > 500, so no lower rate meets it (0.2 requests/s
  // gave 510 ms): the p99 prompt's prefill, 2 × 70.6e9 × 8,192 / 4 GPUs / (989e12 × 0.6) ≈ 0.49 s.
  const target = { sloTtftMs: 500, sloAttainmentTarget: 0.99 };
  const prefill = [
    row(2, { ...target, sloAttainment: 0.974, goodputRequestsPerSec: 1.9, p99TtftS: 0.608, p99QueueS: 0.04, p90TtftS: 0.2, p90QueueS: 0.01 }),
    row(3, { ...target, sloAttainment: 0.95, goodputRequestsPerSec: 2.8, p99TtftS: 0.9, p99QueueS: 0.3, p90TtftS: 0.3, p90QueueS: 0.05 }),
  ];
  const text = noBestText(prefill)!;
  assert.match(text, /closest is arrival_rate=2 with 97\.4% of requests meeting it; its p99 TTFT 608 ms is over its bound by 108 ms/);
  assert.ok(text.endsWith('; queueing is not the cause: its p99 queueing delay is 40 ms, so even without it TTFT misses 500 ms and a lower workload.arrival_rate will not meet it; ' +
    'the prefill of the longest prompts sets it: a larger device.tensor_parallel_size (or a faster GPU), a lower workload.prompt_len max, or relax slo.ttft_ms'), text);
  // Queueing of 150 ms: 608 − 150 = 458 ms <= 500, a lower load may meet it: the load advice stays.
  const queued = [row(2, { ...prefill[0].metrics, p99QueueS: 0.15 })];
  assert.ok(noBestText(queued)!.endsWith('; relax the SLO or lower the load (workload.arrival_rate)'), noBestText(queued)!);
});

test('a point\'s metrics keep the SLO it was judged by and its p90 TTFT / TPOT', () => {
  const stats = (p90: number) => ({ mean: p90, p50: p90, p90, p99: p90, max: p90 });
  const run = { profile: { device: { tensorParallelSize: 1 } }, pool: { numPages: 10, summary: { meanInternalFragmentation: 0, prefixHitRate: 0, preemptions: 0, meanOccupancy: 0, throughputTokensPerSec: 1, rejected: 0 }, latency: { ttft: stats(0.34), tpot: stats(0.041), slo: { ttftMs: 200, tpotMs: 50 }, sloAttainment: 0.72, goodputRequestsPerSec: 5.1 } } } as unknown as RunResult;
  const m = metricsOf(run);
  assert.deepEqual([m.sloTtftMs, m.sloTpotMs, m.p90TtftS, m.p90TpotS], [200, 50, 0.34, 0.041]);
  const queued = metricsOf({ ...run, pool: { ...run.pool!, latency: { ...run.pool!.latency!, queue: { mean: 0.01, p50: 0.005, p90: 0.02, p99: 0.04, max: 0.05 } } } } as RunResult);
  assert.deepEqual([queued.p90QueueS, queued.p99QueueS], [0.02, 0.04]);
});
