// A sweep's best line a planner can trust (s52 nc-cli, MEDIUM 1 and 2): points that keep up with
// one offered load serve that load, so their simulated throughput or goodput ranks nothing and
// latency does; a seed is a draw of the load, not a setting, so a seed axis reports its spread.
// Every figure here is hand-built (no simulation).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SweepMetrics, SweepReport, SweepReportRow } from '../../core/protocol/sweep';
import { bestRow, formatReport, noBestLines, seedSpreadText } from '../../runner/sweep/results';
import { SWEEP_METRICS } from '../../core/sweepFigures';
import { decisionMetric, sweepBestText } from '../../webview/sweep';

const row = (values: Record<string, unknown>, metrics: SweepMetrics, keepsUp = true): SweepReportRow => {
  const label = Object.entries(values).map(([k, v]) => `${k.slice(k.lastIndexOf('.') + 1)}=${String(v)}`).join(' ');
  return { id: label, index: 0, values, label, environmentKey: 'e', status: 'ok', metrics, file: `${label}.json`, keepsUp };
};

/** The figures of a point the newcomer's grid printed (Llama-3.1-8B, H100 SXM, 500 requests at 24/s). */
const grid = (tokens: number, ttftMs: number, tpotMs: number): SweepMetrics => ({
  // Kept up with the offered 24.0 requests/s: steady output = 24.0 × 234.6 mean output tokens = 5,630 tokens/s, the same for each.
  throughputTokensPerSec: tokens, steadyOutputTokensPerSec: 5630, steadyRequestsPerSec: 24, rejected: 0, p99TtftS: ttftMs / 1000, p99TpotS: tpotMs / 1000, meanOccupancy: 0.1, poolPages: 28_000, pageBytes: 2 ** 21,
});
const key = (tokens: number, seqs: number) => ({ 'workload.max_num_batched_tokens': tokens, 'workload.max_num_seqs': seqs });

test('points kept up with at one offered load are ranked on p99 TTFT, not on the finite run\'s tokens/s, and the best line says so', () => {
  const rows = [
    // The old best: 5,733 tokens/s is 1.9 % above 5,626, the finite run's tail only (its last request ended sooner).
    row(key(256, 64), grid(5733, 427, 8.44)),
    row(key(1024, 256), grid(5656, 184, 16.4)),
    row(key(16384, 256), grid(5626, 206, 21.5)),
    row(key(256, 16), { ...grid(2403, 33_000, 6.71), steadyOutputTokensPerSec: 2100, steadyRequestsPerSec: 8.9 }, false),
  ];
  const best = bestRow(rows)!;
  // Lowest p99 TTFT among the three kept up with: 184 ms.
  assert.equal(best.row.label, 'max_num_batched_tokens=1024 max_num_seqs=256');
  assert.equal(best.byLatency, true);
  assert.match(best.rule, /^lowest p99 TTFT \(184 ms\) among the 3 points at the highest simulated throughput that reject no request and the server keeps up with \(rate <= the saturated throughput μ, queue not growing\): they serve one offered load \(24\.0 requests\/s\), so simulated throughput does not rank them; latency does: a point vLLM runs first, then the lower p99 TTFT \(one seeded run's: a workload\.seed axis shows its spread; within 1% a tie\)/);
  assert.deepEqual(best.leftOut.map((r) => r.label), ['max_num_batched_tokens=256 max_num_seqs=16']);
  // 256/64's p99 TPOT, 8.44 ms, is below the best's 16.4 ms: named, with what weighs the two.
  assert.equal(best.tpotLower, 'lower p99 TPOT at max_num_batched_tokens=256 max_num_seqs=64: 8.44 ms against 16.4 ms, at a p99 TTFT of 427 ms against 184 ms; to weigh TTFT against TPOT, give the profile an SLO (slo.ttft_ms, slo.tpot_ms): the best is then the highest goodput under it');

  // Rows without a steady rate (reports merged before s44) rank on the finite run's rate, as before, and say no "steady state".
  const old = rows.map((r) => ({ ...r, metrics: { ...r.metrics, steadyOutputTokensPerSec: undefined, steadyRequestsPerSec: undefined } }));
  const oldBest = bestRow(old)!;
  assert.equal(oldBest.row.label, 'max_num_batched_tokens=256 max_num_seqs=64');
  assert.equal(oldBest.byLatency, undefined);
  assert.match(oldBest.rule, /^highest simulated output throughput among points that reject no request and the server keeps up with/);
});

test('kept-up points on different GPU counts still rank on the steady rate per GPU, which says "at steady state"', () => {
  // One load, 24 requests/s × 234.6 = 5,630 tokens/s: tp 1 serves it on one GPU (5,630 per GPU), tp 2 on two (2,815): tp 1, whatever its p99 TTFT.
  const tp = (n: number, tokens: number, ttftMs: number) => row({ 'device.tensor_parallel_size': n }, { ...grid(tokens, ttftMs, 10), gpus: n });
  const best = bestRow([tp(1, 5600, 300), tp(2, 5700, 90)])!;
  assert.equal(best.row.label, 'tensor_parallel_size=1');
  assert.equal(best.byLatency, undefined);
  assert.match(best.rule, /^highest simulated output throughput per GPU \(.*\) at steady state \(a point the server keeps up with serves its offered load: offered requests\/s × mean output tokens, not the finite run's tokens\/s, which differs by when its last request ends\) among points that reject no request/);
});

test('with an SLO, kept-up points at one load rank on steady goodput (offered rate × share meeting it), not the finite run\'s goodput', () => {
  const slo = (label: number, attainment: number, goodput: number, ttftMs: number) =>
    row({ 'kv_cache.page_size': label }, { ...grid(5600, ttftMs, 20), sloAttainment: attainment, goodputRequestsPerSec: goodput, sloTtftMs: 500, sloTpotMs: 50 });
  // page_size=16: 99 % meet it, steady 24 × 0.99 = 23.76 requests/s; page_size=32: 97 %, 24 × 0.97 = 23.28, 2.0 % below: not tied.
  // The finite runs' goodput says the reverse (23.5 against 22.9: page_size=32's run ended sooner).
  const best = bestRow([slo(16, 0.99, 22.9, 300), slo(32, 0.97, 23.5, 200)])!;
  assert.equal(best.row.label, 'page_size=16');
  assert.match(best.rule, /^highest simulated goodput at steady state \(a point the server keeps up with serves its offered load: offered requests\/s × the share of requests meeting the SLO, not the finite run's rate, which differs by when its last request ends\) among points where >= 90% of requests meet the profile's SLO/);
  // 99.5 % against 99 %: 0.5 % apart, tied, so p99 TTFT ranks them, the rule leading with it; no TPOT note under an SLO.
  const tied = bestRow([slo(16, 0.99, 22.9, 300), slo(32, 0.995, 23.5, 200)])!;
  assert.equal(tied.row.label, 'page_size=32');
  assert.match(tied.rule, /^lowest p99 TTFT \(200 ms\) among the 2 points within 1% of the highest simulated goodput where >= 90% of requests meet the profile's SLO/);
  assert.equal(tied.tpotLower, undefined);
});

const seedRow = (seed: number, tokens: number, ttftMs: number, extra: Record<string, unknown> = {}): SweepReportRow =>
  row({ ...extra, 'workload.seed': seed }, { ...grid(tokens, ttftMs, 20), steadyOutputTokensPerSec: 5600 + seed, steadyRequestsPerSec: 24 + seed / 100, poolPages: 28_363, internalFragmentation: 0.008 });

test('a seed axis names no best: the report gives each figure\'s spread over the seeds', () => {
  // The newcomer's seeds, tokens/s 5,425 5,457 5,626 5,661: median (5,457 + 5,626) / 2 = 5,541.5, "5,542";
  // (5,661 − 5,425) / 5,541.5 = 4.26 %. p99 TTFT 200 206 222 230 ms: median 214 ms, 30 / 214 = 14.0 %.
  const rows = [seedRow(1, 5626, 206), seedRow(2, 5425, 200), seedRow(3, 5457, 222), seedRow(4, 5661, 230)];
  assert.equal(bestRow(rows), null);
  const lines = noBestLines(rows);
  assert.equal(lines.length, 1);
  assert.equal(lines[0], seedSpreadText(rows));
  assert.match(lines[0]!, /^no best point across seeds: a seed draws another sample of the same workload \(its arrivals and lengths\), not a setting to choose; the spread over 4 seeds, min \/ median \/ max and \(max − min\) \/ median: /);
  assert.match(lines[0]!, /tokens\/s \(sim\) 5,425 \/ 5,542 \/ 5,661 \(4\.3%\)/);
  assert.match(lines[0]!, /p99 TTFT 200 ms \/ 214 ms \/ 230 ms \(14\.0%\)/);
  // Figures equal at every seed are said once; the keeps-up count; what the spread is for.
  assert.match(lines[0]!, /the same at every seed: internal frag 0\.8%, pool pages 28,363, occupancy 10\.0%, rejected 0, p99 TPOT 20 ms; the server keeps up at 4 of 4 seeds\. A difference between settings smaller than this spread is within the run-to-run noise$/);
  // The CLI prints it where the best would be, and no "best:" line.
  const report = { name: 's.attn.yaml', sweepId: 'x', job: 'simulate', axes: [{ key: 'workload.seed', values: [1, 2, 3, 4] }], total: 4, rows, missing: [], duplicates: [], environments: {}, best: null, noBest: lines } as unknown as SweepReport;
  const text = formatReport(report);
  assert.doesNotMatch(text, /\nbest: /);
  assert.match(text.replace(/\n +/g, ' '), /no best point across seeds/);
});

test('a seed axis beside another: each seed ranked on its own, and whether one setting wins at every seed', () => {
  const k = (t: number) => ({ 'workload.max_num_batched_tokens': t });
  // At each seed the two settings serve one load (steady rates equal): p99 TTFT ranks them.
  const every = [seedRow(1, 5733, 427, k(256)), seedRow(1, 5656, 184, k(1024)), seedRow(2, 5520, 333, k(256)), seedRow(2, 5454, 189, k(1024))];
  assert.equal(bestRow(every), null);
  const [line] = noBestLines(every);
  assert.match(line!, /^no best point across seeds: a seed draws another sample of the same workload, not a setting to choose, so each seed's points are ranked on their own: a setting that is the best at every seed holds whatever the draw; the best for each seed: seed=1: max_num_batched_tokens=1024 \(on latency; its rate ties max_num_batched_tokens=256\); seed=2: max_num_batched_tokens=1024 \(on latency; its rate ties max_num_batched_tokens=256\); max_num_batched_tokens=1024 is the best at every seed$/);
  // Seed 3 draws a load where 256 has the lower p99 TTFT: 2 of 3.
  const split = [...every, seedRow(3, 5549, 150, k(256)), seedRow(3, 5483, 199, k(1024))];
  assert.match(noBestLines(split)[0]!, /; max_num_batched_tokens=1024 is the best at 2 of 3 seeds, so the draws decide between 2 settings$/);
});

test('the Sweep tab shows the lower-TPOT note under a best ranked on latency and opens on p99 TTFT', () => {
  const rows = [row(key(256, 64), grid(5733, 427, 8.44)), row(key(1024, 256), grid(5656, 184, 16.4))];
  const b = bestRow(rows)!;
  const report = { name: 'g', sweepId: 'x', job: 'simulate', axes: [], total: 2, rows, missing: [], duplicates: [], environments: {}, best: { id: b.row.id, environmentKey: 'e', label: b.row.label, rule: b.rule, byLatency: true, tpotLower: b.tpotLower } } as unknown as SweepReport;
  const text = sweepBestText(report);
  assert.match(text.best, /^Best point: max_num_batched_tokens=1024 max_num_seqs=256 — lowest p99 TTFT \(184 ms\)/);
  assert.equal(text.notes[0], b.tpotLower);
  const metrics = SWEEP_METRICS.filter((m) => ['throughputTokensPerSec', 'p99TtftS', 'p99TpotS'].includes(m.key));
  assert.equal(decisionMetric(metrics, false, true)?.key, 'p99TtftS');
  assert.equal(decisionMetric(metrics, false, false)?.key, 'throughputTokensPerSec');
  // The CLI prints the same note under its best line.
  assert.match(formatReport(report).replace(/\n +/g, ' '), /\nbest: max_num_batched_tokens=1024 max_num_seqs=256 — lowest p99 TTFT .* lower p99 TPOT at max_num_batched_tokens=256 max_num_seqs=64: 8\.44 ms against 16\.4 ms/);
});
