// The SLO's attainment (profile slo.attainment, --slo-attainment): the fraction of requests that
// must meet the bounds, read from the profile by the capacity search and the sweep's best rule
// alike (s40 newcomer G2: both fixed it at 90 %, so a p99 SLO needed a flag per point by hand).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SweepMetrics, SweepReportRow } from '../../core/protocol/sweep';
import { bestRow, metricsOf, noBestText } from '../../runner/sweep/results';
import type { RunResult } from '../../core/protocol/run';
import { packRequests, searchCapacity } from '../../runner/simulate/index';
import { exampleProfile } from '../fixtures/profile';
import { sloSampleNote, sloVerdict } from '../../core/format';

test("the profile's slo.attainment is parsed and sets the capacity search's pass rule", async () => {
  // The load of capacity.test.ts: 200 requests (prompt 1, output 1), one at a time, each a 10 ms
  // step; the search reads the profile's attainment (1: every request) when no override is given.
  const profile = exampleProfile('model: ./llama-3.1-8b/config.json\nkv_cache: { page_size: 16, num_pages: 100 }\nworkload: { max_num_seqs: 1 }\nslo: { ttft_ms: 15, attainment: 1 }\n');
  assert.deepEqual(profile.slo, { ttftMs: 15, attainment: 1 });
  const requests = packRequests(Array.from({ length: 200 }, (_, i) => ({ arrivalS: i * 0.02, promptLen: 1, outputLen: 1 })));
  const opts = { requests, simulate: { stepTime: { perStepS: 0.01 } } };
  const { curve } = await searchCapacity(profile, { slo: profile.slo!, ...opts });
  assert.equal(curve.attainmentTarget, 1);
  assert.equal(curve.slo.attainment, 1);
  // A point passes only when every request meets the bound (attainment 1, not 0.9).
  for (const p of curve.points) if (p.meets) assert.equal(p.sloAttainment, 1, `rate ${p.rate}`);
  // An explicit attainment (--slo-attainment) wins; without either, 90 %.
  assert.equal((await searchCapacity(profile, { slo: profile.slo!, attainment: 0.5, ...opts })).curve.attainmentTarget, 0.5);
  assert.equal((await searchCapacity(profile, { slo: { ttftMs: 15 }, ...opts })).curve.attainmentTarget, 0.9);
});

const row = (tp: number, metrics: SweepMetrics): SweepReportRow => ({ id: `t${tp}`, index: tp, values: { 'device.tensor_parallel_size': tp }, label: `tensor_parallel_size=${tp}`, environmentKey: 'e', status: 'ok', metrics, file: `t${tp}.json` });

test("a sweep's best rule asks each point's slo.attainment: 95 % of requests fail a 99 % SLO", () => {
  // Two points on one GPU each: A has the higher goodput but only 95 % of its requests meet the
  // bounds; B 99.5 %. At the default 90 % both meet it and A wins; at 99 % only B does.
  const slo = { sloTtftMs: 1000, gpus: 1 };
  const a = (target?: number) => row(1, { ...slo, sloAttainment: 0.95, goodputRequestsPerSec: 5, p99TtftS: 1.4, p90TtftS: 0.8, ...(target ? { sloAttainmentTarget: target } : {}) });
  const b = (target?: number) => row(2, { ...slo, sloAttainment: 0.995, goodputRequestsPerSec: 4, p99TtftS: 0.9, p90TtftS: 0.5, ...(target ? { sloAttainmentTarget: target } : {}) });
  assert.equal(bestRow([a(), b()])!.row.id, 't1');
  const strict = bestRow([a(0.99), b(0.99)])!;
  assert.equal(strict.row.id, 't2');
  assert.match(strict.rule, /among points where >= 99% of requests meet/);
  // None meeting a 99 % SLO: the closest point's p99 (not p90) is what keeps it short; 1.4 s − 1 s = 400 ms.
  assert.match(noBestText([a(0.99)])!, /for >= 99% of requests\): closest is tensor_parallel_size=1 with 95\.0% .* its p99 TTFT 1\.4 s is over its bound by 400 ms \(slo\.ttft_ms >= 1400 would let 99% meet TTFT alone\)/);
});

test("a point's metrics keep its SLO's attainment", () => {
  const stats = (x: number) => ({ mean: x, p50: x, p90: x, p99: x, max: x });
  const run = { profile: { device: { tensorParallelSize: 1 } }, pool: { numPages: 10, summary: { meanInternalFragmentation: 0, prefixHitRate: 0, preemptions: 0, meanOccupancy: 0, throughputTokensPerSec: 1, rejected: 0 }, latency: { ttft: stats(0.3), tpot: stats(0.04), slo: { ttftMs: 200, attainment: 0.99 }, sloAttainment: 0.72, goodputRequestsPerSec: 5.1 } } } as unknown as RunResult;
  assert.equal(metricsOf(run).sloAttainmentTarget, 0.99);
});

test('an SLO verdict on too few requests says so: fewer than 10 / (1 - target) leave under 10 requests outside the percentile (s42 newcomer-ed F14: a 6-request trace "met" a p99 TTFT SLO)', () => {
  // By hand: 99 % -> 10 / 0.01 = 1,000 requests; 6 <= 1 / 0.01 = 100, so the p99 of 6 is (about) their maximum.
  assert.equal(sloVerdict({ attainment: 0.99 }, 1, 6), 'the SLO asks 99%: met, but on 6 requests only: a 99% target needs 1,000 to leave 10 outside it (the p99 of 6 is about their maximum)');
  assert.equal(sloVerdict({ attainment: 0.99 }, 1, 1000), 'the SLO asks 99%: met');
  // The default 90 %: 100 requests judge it; 500 (the newcomer's workload) say nothing more.
  assert.equal(sloVerdict({}, 0.95, 500), 'the SLO asks 90% (slo.attainment unset: the default 0.9): met');
  assert.equal(sloSampleNote(99, 0.9), 'but on 99 requests only: a 90% target needs 100 to leave 10 outside it');
  // Every request must meet it: any count judges it.
  assert.equal(sloSampleNote(3, 1), null);
});
