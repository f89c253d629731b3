// A sweep's best point must be one the modelled server keeps up with (s34 newcomer-cli 6, 7): a
// finite run above the saturated throughput μ still meets the SLO (the queue has no time to grow),
// and across an arrival-rate axis the highest throughput was the first saturated rate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunResult } from '../../core/protocol/run';
import type { SweepMetrics, SweepReport, SweepReportRow } from '../../core/protocol/sweep';
import { checkKeepsUp } from '../../runner/simulate/capacity';
import { generateRequests, packRequests, simulatePool } from '../../runner/simulate/index';
import { bestRow, formatReport, missesSloText } from '../../runner/sweep/results';
import { formatLoad, keepsUpOf, steadyOutput } from '../../core/format';
import { exampleProfile } from '../fixtures/profile';

const row = (rate: number, metrics: SweepMetrics, keepsUp?: boolean, notKeptUp?: string): SweepReportRow => ({
  id: `r${rate}`, index: rate, values: { 'workload.arrival_rate': rate }, label: `arrival_rate=${rate}`, environmentKey: 'e', status: 'ok', metrics, file: `r${rate}.json`,
  ...(keepsUp !== undefined ? { keepsUp } : {}), ...(notKeptUp ? { notKeptUp } : {}),
});

test('a point above the saturated throughput is not the best, though its finite run met the SLO; the report says which it left out and why', () => {
  // The newcomer's sweep of gemma-3-1b on an H100 (SLO 200 ms / 20 ms, 2,000 requests), figures
  // as the sweep printed them; μ = 236.1 requests/s (simulate --max-rate). 240 met the SLO for
  // 100 % with the highest goodput, 225/s, and was "best"; 200 (190/s) is the highest that keeps up.
  const m = (goodput: number, attainment: number, ttft: number): SweepMetrics => ({ sloAttainment: attainment, goodputRequestsPerSec: goodput, p99TtftS: ttft, sloTtftMs: 200, sloTpotMs: 20 });
  const why = '240.0 requests/s offered, above the saturated throughput μ = 236.1 requests/s';
  const rows = [row(100, m(96.6, 1, 0.0196), true), row(200, m(190, 1, 0.0443), true), row(240, m(225, 1, 0.0789), false, why), row(400, m(19.4, 0.084, 3.18), false, 'queue')];
  const best = bestRow(rows)!;
  assert.equal(best.row.label, 'arrival_rate=200');
  // Compared at one offered rate, the highest kept up with (s48 newcomer M3): goodput follows the load.
  assert.match(best.rule, /^at arrival_rate=200, the highest offered rate a point keeps up with \(a simulated rate follows the offered load, so the points are compared at one rate, not across rates\): highest simulated goodput among points where >= 90% of requests meet the profile's SLO and the server keeps up with/);
  // 400 misses the SLO anyway: only 240 was left out for not keeping up.
  assert.deepEqual(best.leftOut.map((r) => r.label), ['arrival_rate=240']);
  // Rows whose runs did not judge it (points written before s35) weigh as before: 240 is best.
  assert.equal(bestRow(rows.map(({ keepsUp: _k, notKeptUp: _n, ...r }) => r))!.row.label, 'arrival_rate=240');
  assert.doesNotMatch(bestRow(rows.map(({ keepsUp: _k, notKeptUp: _n, ...r }) => r))!.rule, /keeps up/);

  // No SLO, an arrival-rate axis (the newcomer's 100, 400, 4,000, 40,000 requests/s): the
  // throughput rule picked 400, the first saturated rate (33,436 tokens/s, p99 TTFT 3.18 s).
  const t = (tokens: number, ttft: number): SweepMetrics => ({ throughputTokensPerSec: tokens, rejected: 0, p99TtftS: ttft });
  const load = [row(100, t(13_964, 0.0196), true), row(400, t(33_436, 3.18), false, 'q'), row(4000, t(33_413, 7.76), false, 'q'), row(40_000, t(33_449, 8.21), false, 'q')];
  const b = bestRow(load)!;
  assert.equal(b.row.label, 'arrival_rate=100');
  assert.equal(b.leftOut.length, 3);

  // Every point qualifying on its SLO is one the server does not keep up with: no best, and the table says why.
  const report = {
    schema: 1, kind: 'attnscope-sweep-report', tool: 'attnscope test', createdAt: '', sweepId: 's', name: 'p.attn.yaml', job: 'simulate',
    axes: [{ key: 'workload.arrival_rate', values: [240] }], total: 1, rows: [rows[2]!], missing: [], duplicates: [], environments: {}, best: null,
  } as unknown as SweepReport;
  assert.equal(bestRow(report.rows), null);
  const text = formatReport(report);
  assert.ok(text.includes(`no best point: left out, the modelled server not keeping up (a finite run ends before such a queue has grown, so its latency and goodput flatter it): arrival_rate=240 (${why})`), text);
  assert.match(text, /^arrival_rate .* keeps up$/m);
  assert.match(text, /^240 .* no$/m);
});

test('a run keeps up while its rate is at most μ and its queue does not grow: checkKeepsUp on a server whose μ is known by hand', async () => {
  // Constant 10 ms steps, prompt 1, output 100, max_num_seqs 8: a request holds its slot 100
  // steps = 1 s, so μ = 8 requests/s (capacity.test.ts). 40 requests at 8.2/s: they end before
  // a queue grows (the 8 slots take a request every 1/8 s; by the last arrival at 39/8.2 = 4.76 s
  // about 38 are admitted, so at most a few wait: not overloaded), yet 8.2 > μ: it does not keep
  // up. At 4/s it does.
  const profile = exampleProfile('model: ./llama-3.1-8b/config.json\nkv_cache: { page_size: 16, num_pages: 10000 }\nworkload: { max_num_seqs: 8 }\n');
  const judge = async (rate: number) => {
    const requests = packRequests(Array.from({ length: 40 }, (_, i) => ({ arrivalS: i / rate, promptLen: 1, outputLen: 100 })));
    const simulate = { stepTime: { perStepS: 0.01 } };
    const pool = await simulatePool(profile, { ...simulate, requests, baselines: false });
    await checkKeepsUp(profile, pool, { requests, simulate });
    return pool.load!;
  };
  const fast = await judge(8.2);
  assert.ok(Math.abs(fast.saturatedRequestsPerSec! - 8) < 1e-6, String(fast.saturatedRequestsPerSec));
  assert.equal(fast.overloaded, false);
  assert.equal(fast.keepsUp, false);
  const slow = await judge(4);
  assert.equal(slow.keepsUp, true);
  // The row's words: the offered rate against μ (a trace's offered rate, (40 − 1) / (39 / 8.2) = 8.2).
  assert.deepEqual(keepsUpOf({ profile, pool: { load: fast } } as unknown as RunResult), { keepsUp: false, notKeptUp: '8.20 requests/s offered, above the saturated throughput μ = 8.00 requests/s' }); // rates in three significant figures (formatRequestRate, 9bb67b12)
  assert.deepEqual(keepsUpOf({ profile, pool: { load: slow } } as unknown as RunResult), { keepsUp: true });
});

test('a drawn workload keeps up by the offered rate its run measured, not its nominal arrival_rate: the sweep row agrees with the run\'s Load line and cost (s47)', async () => {
  // μ = 8 requests/s by hand, as above (10 ms steps, output 100, 8 slots: a slot serves one request a second).
  // 40 Poisson draws (seed 21) at arrival_rate 7.9 arrive faster than drawn on average, and 40 (seed 1) at 8.1 slower:
  // the offered rate, (40 − 1) / span of the drawn arrivals, computed here from the draws themselves.
  const judge = async (arrivalRate: number, seed: number) => {
    const profile = exampleProfile(`model: ./llama-3.1-8b/config.json\nkv_cache: { page_size: 16, num_pages: 10000 }\nworkload: { requests: 40, arrival_rate: ${arrivalRate}, prompt_len: { dist: fixed, value: 1 }, output_len: { dist: fixed, value: 100 }, max_num_seqs: 8, seed: ${seed} }\n`);
    const a = generateRequests(profile.workload!).arrivalS;
    const offered = (a.length - 1) / (a[a.length - 1]! - a[0]!);
    const simulate = { stepTime: { perStepS: 0.01 } };
    const pool = await simulatePool(profile, { ...simulate, baselines: false });
    await checkKeepsUp(profile, pool, { simulate });
    return { profile, pool, offered };
  };
  const fast = await judge(7.9, 21);
  assert.ok(fast.offered > 8.1 && fast.offered < 8.2, String(fast.offered));
  assert.ok(Math.abs(fast.pool.load!.offeredRequestsPerSec! - fast.offered) < 1e-9);
  assert.ok(Math.abs(fast.pool.load!.saturatedRequestsPerSec! - 8) < 1e-6, String(fast.pool.load!.saturatedRequestsPerSec));
  // Its queue did not show it, but 8.15 > μ: the row says no (the nominal 7.9 said yes), as the Load line says Overloaded and the cost is priced at μ.
  assert.equal(fast.pool.load!.overloaded, false);
  assert.equal(fast.pool.load!.keepsUp, false);
  assert.deepEqual(keepsUpOf({ profile: fast.profile, pool: fast.pool } as unknown as RunResult), { keepsUp: false, notKeptUp: '8.15 requests/s offered, above the saturated throughput μ = 8.00 requests/s' });
  assert.ok(formatLoad(fast.pool.load!, fast.pool.summary).some((l) => l.startsWith('Overloaded: the offered 8.15 requests/s is above the saturated throughput μ = 8.00')));
  assert.equal(steadyOutput(fast.pool)!.basis, 'saturated');
  const slow = await judge(8.1, 1);
  assert.ok(slow.offered > 7.9 && slow.offered < 8, String(slow.offered));
  // 7.94 <= μ, the queue bounded: it keeps up (the nominal 8.1 said no), as its Load line and cost say.
  assert.equal(slow.pool.load!.overloaded, false);
  assert.equal(slow.pool.load!.keepsUp, true);
  assert.ok(formatLoad(slow.pool.load!, slow.pool.summary).some((l) => l.startsWith('Kept up')));
  assert.equal(steadyOutput(slow.pool)!.basis, 'offered');
});

test('a rule on cost names the cheaper points it left out for missing the SLO, with the share meeting it (s44 newcomer-ed F1)', () => {
  // The newcomer's cost sweep (Llama-3.1-8B at 8 req/s, SLO 1,000 / 100 ms): costs by hand,
  // price / 3600 / output tokens/s × 10^6: RTX 4090 0.35 / 3600 / 1,045 × 10^6 = $0.0930,
  // A100 80GB 1.29 / 3600 / 1,995 × 10^6 = $0.180, H100 SXM 2.49 / 3600 / 2,083 × 10^6 = $0.332,
  // L4 0.8 / 3600 / 365.5 × 10^6 = $0.608. RTX 4090 meets the SLO for 8.5 %, L4 for 0 %: A100 is best.
  const gpuRow = (gpu: string, usd: number, attainment: number, keepsUp: boolean): SweepReportRow => ({
    id: gpu, index: 0, values: { 'device.gpu': gpu }, label: `gpu=${gpu}`, environmentKey: 'e', status: 'ok', file: `${gpu}.json`, keepsUp,
    metrics: { usdPerMillionOutputTokens: usd, gpuHourUsd: 1, sloAttainment: attainment, goodputRequestsPerSec: 1, throughputTokensPerSec: 1, sloTtftMs: 1000, sloTpotMs: 100 },
  });
  const rows = [gpuRow('H100 SXM', 0.332, 1, true), gpuRow('A100 80GB', 0.180, 0.995, true), gpuRow('L4', 0.608, 0, false), gpuRow('RTX 4090', 0.0930, 0.085, false)];
  const best = bestRow(rows)!;
  assert.equal(best.row.label, 'gpu=A100 80GB');
  // L4 also misses it but costs more than the best: not named.
  assert.deepEqual(best.missesSlo?.map((r) => r.label), ['gpu=RTX 4090']);
  assert.equal(missesSloText(best.missesSlo!), 'cheaper but left out, missing the SLO: gpu=RTX 4090 ($0.0930; 8.5% of requests meet it, asks 90%; does not keep up)');
  // Every point meets it: none named.
  assert.deepEqual(bestRow(rows.map((r) => ({ ...r, metrics: { ...r.metrics, sloAttainment: 1 }, keepsUp: true })))!.missesSlo, []);
});
