// What a token costs (s43): the user's price per GPU-hour (device.gpu_hour_usd, sweep.gpu_hour_usd by
// GPU model) gives $ per million output tokens = price × GPUs / 3600 / output tokens/s × 10^6 (since s44 at a
// steady rate: the max rate, or the offered rate or μ, × the mean output tokens a request), which
// `simulate` prints and a sweep ranks by when every model is priced; without a price for each
// model the per-GPU ranking and its caveat stay, naming the models without one. Expected figures
// are worked by hand in each test's comments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseProfileText } from '../../core/config/index';
import { pointGpuHourUsd, readSweepBlock, treeGpuName } from '../../core/config/sweep';
import { formatLoad, formatUsd, formatUsdCost, poolCost, usdPerMillionTokens } from '../../core/format';
import type { PoolResult, RunResult } from '../../core/protocol/run';
import type { SweepMetrics, SweepReport, SweepReportRow } from '../../core/protocol/sweep';
import { gpuPrices, sweepProvenance } from '../../core/sweepFigures';
import { bestRow, formatReport, gpuModelsText, metricsOf, priceMetrics } from '../../runner/sweep/results';
import { loadSweep } from '../../runner/sweep/spec';
import { costLine } from '../../runner/simulate/summary';
import { poolLoad } from '../../runner/simulate/simulate';
import type { ServingSimRequests } from '../../native/simulator';
import type { LatencySummary } from '../../core/protocol/latency';
import { tempDir } from '../fixtures/tmp';

const CONFIG = resolve(__dirname, '../../examples/llama-3.1-8b/config.json');

test('$ per million tokens: price × GPUs / 3600 / tokens/s × 10^6; nothing served, no figure; dollars to the cent at least', () => {
  // 2.49 × 2 / 3600 / 5,000 × 10^6 = 4.98 / 18,000,000 × 10^6 = 0.276667.
  assert.ok(Math.abs(usdPerMillionTokens(2.49, 2, 5000)! - 0.276667) < 1e-6);
  // 1.29 × 1 / 3600 / 2,842 × 10^6 = 0.1260848.
  assert.ok(Math.abs(usdPerMillionTokens(1.29, 1, 2842)! - 0.1260848) < 1e-6);
  assert.equal(usdPerMillionTokens(2.49, 1, 0), null);
  assert.deepEqual([0.0917, 0.5, 2.49, 1234.5, 0.004, 0.00042, 1e-300].map(formatUsd), ['$0.0917', '$0.50', '$2.49', '$1,235', '$0.004', '$4.20e-4', '$1.00e-300']);
  // A cost keeps three significant digits with its trailing zeros, so $0.18 reads $0.180 beside $0.332 (s44 newcomer-ed F2); 999.96 rounds to 1,000 (grouped, not "1.00e+3").
  assert.deepEqual([0.18, 0.093, 0.332, 12.5, 999.96, 1234.5].map(formatUsdCost), ['$0.180', '$0.0930', '$0.332', '$12.5', '$1,000', '$1,235']);
});

test("simulate's cost line: modelled, at the user-given price, at a steady rate with the sum written out; none without a price or when no rate passed", () => {
  // Llama-3.1-8B on one H100 SXM at 24 requests/s offered, kept up (in flight 79 -> 114 within 2 · √(2,000 / 2) = 63),
  // 272 output tokens a request: 2.49 / 3600 / (24 × 272 = 6,528) × 10^6 = 0.105954 -> $0.106 (the finite run's 6,249
  // tokens/s, ramp-up and drain included, gave $0.111).
  const load = { source: 'workload' as const, timeScale: 1, offeredRequestsPerSec: 24, servedRequestsPerSec: 23, waitingAtLastArrival: 2, waitingAtMiddleArrival: 1, inFlightAtLastArrival: 114, inFlightAtMiddleArrival: 79, meanOutputTokens: 272, overloaded: false };
  const pool = { summary: { requests: 2000, throughputTokensPerSec: 6249 }, load } as PoolResult;
  const device = { gpuHourUsd: 2.49, tensorParallelSize: 1 };
  assert.equal(costLine(pool, device), 'Cost (modelled, at user-given $2.49/GPU-hour): $0.106 per 1M output tokens at the offered 24.0 requests/s, which the server keeps up with = $2.49 × 1 GPU / 3600 s / (24.0 requests/s × 272 output tokens a request, the run\'s mean, = 6,528 output tokens/s) × 10^6');
  assert.deepEqual(poolCost(pool, 2.49, 1), { gpuHourUsd: 2.49, gpus: 1, usdPerMillionOutputTokens: (2.49 / 3600 / 6528) * 1e6, outputTokensPerSec: 6528, requestsPerSec: 24, meanOutputTokens: 272, basis: 'offered' });
  // A run saved before s44 (no mean output): the finite run's figure, labelled so. tp 2 × dp 2 = 4 GPUs at 12,791 tokens/s:
  // 2.49 × 4 / 3600 / 12,791 × 10^6 = 0.216290 -> $0.216.
  assert.match(costLine({ summary: { throughputTokensPerSec: 12791 } } as PoolResult, { gpuHourUsd: 2.49, tensorParallelSize: 2, dataParallelSize: 2 })!, /: \$0\.216 per 1M output tokens of this run: its output tokens \/ \(0 s to the last request's end\), ramp-up and drain included \(a run saved before s44: no steady rate recorded\) = \$2\.49 × 4 GPUs \/ 3600 s \/ 12,791 output tokens\/s/);
  // Too short to tell (dp 8 at 300 offered, μ 251 unmeasured: in flight 811 -> 1,613, grew 802 > 63): the run's figure, said why.
  const short = { ...pool, load: { ...load, offeredRequestsPerSec: 300, inFlightAtLastArrival: 1613, inFlightAtMiddleArrival: 811 } } as PoolResult;
  assert.match(costLine(short, device)!, / of this run: .* \(too short to tell whether the server keeps up, and μ not measured\) = \$2\.49 × 1 GPU \/ 3600 s \/ 6,249 output tokens\/s/);
  // Above a measured μ (a sweep point's 251): at μ. 2.49 × 8 / 3600 / (251 × 272 = 68,272) × 10^6 = 0.081048 -> $0.081.
  assert.match(costLine({ ...short, load: { ...short.load!, saturatedRequestsPerSec: 251 } }, { ...device, dataParallelSize: 8 })!, /: \$0\.0810 per 1M output tokens at the saturated throughput μ, 251 requests\/s \(the offered rate is above it\) = /);
  assert.equal(costLine(pool, { tensorParallelSize: 1 }), null);
  // --max-rate where no rate meets the SLO: no figure, and the line says why (s45 newcomer LOW: it was left out without a word).
  assert.equal(costLine({ ...pool, capacity: { maxRate: null } } as unknown as PoolResult, device), "Cost: none at user-given $2.49/GPU-hour: no rate tried meets the SLO, so there is no max rate to price (the figures above are a failing rate's)");
  // --max-rate 30: 2.49 / 3600 / (30 × 272 = 8,160) × 10^6 = 0.084763 -> $0.0848.
  assert.match(costLine({ ...pool, capacity: { maxRate: 30 } } as unknown as PoolResult, device)!, /: \$0\.0848 per 1M output tokens at the max rate, 30\.0 requests\/s = /);
  // s47 newcomer LOW-2: the factors shown rounded do not multiply to the product shown: 23.97 requests/s × 272.05 = 6,521 tokens/s,
  // shown "24.0 × 272", and 24.0 × 272 = 6,528 ≠ 6,521: "≈", not "=".
  const rounded = { ...pool, load: { ...load, offeredRequestsPerSec: 23.97, meanOutputTokens: 272.05 } } as PoolResult;
  assert.match(costLine(rounded, device)!, /\(24\.0 requests\/s × 272 output tokens a request, the run's mean, ≈ 6,521 output tokens\/s\)/);
  // LOW-2: a tiny price keeps its digits (was $0.00): 1e-300 / 3600 / 6,528 × 10^6 = 4.2552e-302.
  assert.match(costLine(pool, { ...device, gpuHourUsd: 1e-300 })!, /^Cost \(modelled, at user-given \$1\.00e-300\/GPU-hour\): \$4\.26e-302 per 1M/);
});

test('s44 newcomer44 HIGH-1: a max-rate sweep over data_parallel_size 1 and 8 prices each at its max rate, and ranks as the max rate per GPU does at equal price and lengths', () => {
  // examples/llama-3.1-8b.attn.yaml (H100 SXM, $2.49), max rates 30.05 (dp 1, SLO) and 251 (dp 8, capacity), 272 output tokens
  // a request (uniform 32..512), finite runs' tokens/s 7,547 and 43,024 (2,000 requests over 8 engines: mostly ramp-up and drain).
  //   dp 1: 2.49 × 1 / 3600 / (30.05 × 272 = 8,173.6) × 10^6 = 0.084622 $
  //   dp 8: 2.49 × 8 / 3600 / (251 × 272 = 68,272)   × 10^6 = 0.081048 $  -> dp 8, as its 31.4 requests/s per GPU > 30.05.
  // Over the finite runs' tokens/s they were 0.0917 and 0.129 $, and dp 1 was picked.
  const run = (dp: number, maxRate: number, tokens: number, limit: 'slo' | 'capacity') => ({
    profile: { device: { tensorParallelSize: 1, dataParallelSize: dp, gpuHourUsd: 2.49 } },
    pool: {
      numPages: 28363,
      summary: { requests: 2000, completed: 2000, rejected: 0, throughputTokensPerSec: tokens },
      load: { source: 'workload', timeScale: maxRate / 24, offeredRequestsPerSec: maxRate, servedRequestsPerSec: maxRate * 0.9, waitingAtLastArrival: 0, meanOutputTokens: 272, overloaded: false },
      capacity: { maxRate, limit },
    },
  }) as unknown as RunResult;
  const rows = [run(1, 30.05, 7547, 'slo'), run(8, 251, 43024, 'capacity')].map((r, i): SweepReportRow => {
    const label = `data_parallel_size=${i === 0 ? 1 : 8}`;
    return { id: label, index: i, values: { 'device.data_parallel_size': i === 0 ? 1 : 8 }, label, environmentKey: 'e', status: 'ok', metrics: metricsOf(r), file: 'f', gpu: 'H100 SXM' };
  });
  assert.ok(Math.abs(rows[0]!.metrics.usdPerMillionOutputTokens! - 0.084622) < 1e-6, String(rows[0]!.metrics.usdPerMillionOutputTokens));
  assert.ok(Math.abs(rows[1]!.metrics.usdPerMillionOutputTokens! - 0.081048) < 1e-6, String(rows[1]!.metrics.usdPerMillionOutputTokens));
  assert.equal(bestRow(rows)!.row.label, 'data_parallel_size=8');
  const perGpu = rows.map((r) => ({ ...r, metrics: { ...r.metrics } }));
  for (const r of perGpu) priceMetrics(r.metrics, undefined);
  assert.equal(bestRow(perGpu)!.row.label, 'data_parallel_size=8');
});

test('poolLoad: the mean output tokens over completed requests, and the requests in flight at the middle and the last arrival (a rejected one is neither)', () => {
  // Arrivals 0, 1, 2, 3 s (middle 1.5 s, last 3 s). Request 0 done at 0.5 s (10 tokens), 1 at 2 s (20), 2 at 4 s (30),
  // 3 rejected. Mean output (10 + 20 + 30) / 3 = 20; in flight at 1.5 s: request 1 only; at 3 s: request 2 only.
  const packed = { arrivalS: Float64Array.from([0, 1, 2, 3]) } as ServingSimRequests;
  const times = { queuedS: Float64Array.from([0, 1, 2, 3]), scheduledS: Float64Array.from([0, 1, 2, -1]), firstTokenS: Float64Array.from([0.1, 1.1, 2.1, -1]), finishS: Float64Array.from([0.5, 2, 4, -1]), outputLen: Int32Array.from([10, 20, 30, 0]) };
  const load = poolLoad(packed, times, { requestsPerSec: 0.75 } as LatencySummary, 1, 'workload');
  assert.equal(load.meanOutputTokens, 20);
  assert.equal(load.inFlightAtMiddleArrival, 1);
  assert.equal(load.inFlightAtLastArrival, 1);
  assert.equal(load.waitingAtLastArrival, 0);
});

test('poolLoad: a run whose queue grew says keepsUp false in its JSON where its Load text says Overloaded (s50 newcomer LOW-1: keepsUp was absent)', () => {
  // 40 requests arriving 0, 1, …, 39 s (middle 19.5 s); the first 10 scheduled on arrival, the other 30 at 100 s and
  // after: 30 waiting at the last arrival (75 %, over 5 %), 10 at the middle (requests 10–19), so the queue grew.
  // Each is taken in by a step starting at its arrival (queuedS), so each unadmitted one was passed over.
  const n = 40;
  const arrivalS = Float64Array.from({ length: n }, (_, i) => i);
  const scheduledS = Float64Array.from({ length: n }, (_, i) => (i < 10 ? i : 100 + i));
  const times = { queuedS: arrivalS, scheduledS, firstTokenS: scheduledS.map((x) => x + 0.1), finishS: scheduledS.map((x) => x + 1), outputLen: new Int32Array(n).fill(10) };
  const load = poolLoad({ arrivalS } as ServingSimRequests, times, { requestsPerSec: 0.28 } as LatencySummary, 1, 'workload');
  assert.equal(load.waitingAtLastArrival, 30);
  assert.equal(load.waitingAtMiddleArrival, 10);
  assert.equal(load.overloaded, true);
  assert.equal(load.keepsUp, false);
  assert.ok(formatLoad(load, { requests: n, completed: n, rejected: 0 }).some((l) => l.startsWith('Overloaded: at the last arrival 30 of the 40 requests')));
  // Kept up (every request scheduled on arrival): no verdict without μ, as before.
  const kept = poolLoad({ arrivalS } as ServingSimRequests, { ...times, scheduledS: arrivalS, finishS: arrivalS.map((x) => x + 0.5) }, { requestsPerSec: 1 } as LatencySummary, 1, 'workload');
  assert.equal(kept.overloaded, false);
  assert.equal(kept.keepsUp, undefined);
});

/** A max-rate row: `rate` requests/s on `tp` GPUs of `gpu` at `tokens` output tokens/s there, limited by the SLO. */
const row = (tp: number, gpu: string, rate: number, tokens: number, usd?: number): SweepReportRow => {
  const label = `tensor_parallel_size=${tp} gpu=${gpu}`;
  const metrics: SweepMetrics = { gpus: tp, maxRateRequestsPerSec: rate, maxRatePerGpuRequestsPerSec: rate / tp, maxRateLimit: 'slo', throughputTokensPerSec: tokens, steadyOutputTokensPerSec: tokens, sloAttainment: 0.95 };
  priceMetrics(metrics, usd);
  return { id: label, index: 0, values: { 'device.tensor_parallel_size': tp, 'device.gpu': gpu }, label, environmentKey: 'e', status: 'ok', metrics, file: `${label}.json`, gpu };
};

test('with a price for every GPU model a max-rate sweep ranks by $ per million output tokens at each max rate, and says the prices; per GPU it would pick the other model', () => {
  // Per GPU, H200 tp 4 leads: 11.4 / 4 = 2.85 against H100 SXM's 11.16 / 4 = 2.79 requests/s (s42 newcomer-ed F3).
  // By cost (user-given $3.50 and $2.49 a GPU-hour; 3,000 and 2,940 output tokens/s at those rates):
  //   H200:     3.50 × 4 / 3600 / 3,000 × 10^6 = 1.2963 $
  //   H100 SXM: 2.49 × 4 / 3600 / 2,940 × 10^6 = 0.9410 $  -> H100 SXM, 27 % cheaper.
  const rows = [row(4, 'H100 SXM', 11.16, 2940, 2.49), row(4, 'H200', 11.4, 3000, 3.5)];
  assert.ok(Math.abs(rows[0]!.metrics.usdPerMillionOutputTokens! - 0.941043) < 1e-6);
  assert.ok(Math.abs(rows[1]!.metrics.usdPerMillionOutputTokens! - 1.296296) < 1e-6);
  const b = bestRow(rows)!;
  assert.equal(b.row.label, 'tensor_parallel_size=4 gpu=H100 SXM');
  assert.match(b.rule, /^lowest modelled \$ per million output tokens, at the user-given prices per GPU-hour: price × GPUs .* at each point's max rate/);
  assert.equal(b.close, '');
  assert.equal(gpuModelsText(rows), 'ranked by cost at user-given prices per GPU-hour (not built-in figures): H100 SXM $2.49/GPU-hour, H200 $3.50/GPU-hour');
  // Unpriced, the same rows rank per GPU: H200.
  const unpriced = rows.map((r) => ({ ...r, metrics: { ...r.metrics } }));
  for (const r of unpriced) priceMetrics(r.metrics, undefined);
  assert.equal(bestRow(unpriced)!.row.label, 'tensor_parallel_size=4 gpu=H200');
  assert.match(bestRow(unpriced)!.rule, /^highest max rate per GPU/);
});

test('a model without a price keeps the per-GPU ranking and its caveat, naming that model; one model unpriced says nothing', () => {
  const rows = [row(4, 'H100 SXM', 11.16, 2940, 2.49), row(4, 'H200', 11.4, 3000)];
  assert.equal(bestRow(rows)!.row.label, 'tensor_parallel_size=4 gpu=H200');
  assert.equal(gpuModelsText(rows), 'the points run on different GPU models (H100 SXM, H200): the ranking counts a GPU of each alike, as if they cost the same; no price for H200 (sweep.gpu_hour_usd: { "H200": <$ per GPU-hour> }), so none is ranked by cost');
  assert.match(gpuModelsText([row(4, 'H100 SXM', 11.16, 2940), row(4, 'H200', 11.4, 3000)]), /as if they cost the same; give each model's price per GPU-hour in sweep\.gpu_hour_usd/);
  assert.equal(gpuModelsText([row(4, 'H200', 11.4, 3000)]), '');
  assert.deepEqual(gpuPrices(rows), [{ gpu: 'H100 SXM', usd: 2.49 }, { gpu: 'H200', usd: undefined }]);
});

test('a max-rate point no rate met has a price but no cost (its figures are a failing rate\'s); a simulate sweep with an SLO ranks its passing points by cost', () => {
  const unmet: SweepMetrics = { gpus: 1, maxRateLimit: 'unmet', throughputTokensPerSec: 1000, steadyOutputTokensPerSec: 1000 };
  priceMetrics(unmet, 2.49);
  assert.equal(unmet.gpuHourUsd, 2.49);
  assert.equal(unmet.usdPerMillionOutputTokens, undefined);
  // job simulate, SLO met by both: tp 1 at 7,000 tokens/s on $2.49 = 0.09881 $; tp 2 at 13,000 on 2 × $2.49 = 0.10641 $.
  // Goodput per GPU would tie-break the same way here; the rule must name the cost.
  const sim = (tp: number, tokens: number, goodput: number): SweepReportRow => {
    const metrics: SweepMetrics = { gpus: tp, throughputTokensPerSec: tokens, steadyOutputTokensPerSec: tokens, sloAttainment: 0.95, goodputRequestsPerSec: goodput, rejected: 0 };
    priceMetrics(metrics, 2.49);
    return { id: `tp${tp}`, index: tp, values: { 'device.tensor_parallel_size': tp }, label: `tensor_parallel_size=${tp}`, environmentKey: 'e', status: 'ok', metrics, file: 'f', gpu: 'H100 SXM' };
  };
  const b = bestRow([sim(1, 7000, 25), sim(2, 13000, 48)])!;
  assert.equal(b.row.label, 'tensor_parallel_size=1');
  assert.match(b.rule, /^lowest modelled \$ per million output tokens, .* at the simulated load, among points where >= 90% of requests meet the profile's SLO/);
});

test('the CLI table has a $/1M out column, and the provenance says the figure is modelled at user-given prices', () => {
  const rows = [row(4, 'H100 SXM', 11.16, 2940, 2.49), row(4, 'H200', 11.4, 3000, 3.5)];
  const report = { schema: 1, kind: 'attnscope-sweep-report', tool: 't', createdAt: '', sweepId: 's', name: 'p.attn.yaml', job: 'max-rate', total: 2, rows, missing: [], duplicates: [], environments: {},
    axes: [{ key: 'device.gpu', values: ['H100 SXM', 'H200'] }], best: null } as unknown as SweepReport;
  const text = formatReport(report);
  assert.match(text, /limit {2}\$\/1M out/);
  // 0.941043 and 1.296296 to three significant digits.
  assert.match(text, /H100 SXM .* SLO {4}\$0\.941 /);
  assert.match(text, /H200 .* SLO {5}\$1\.30 /);
  assert.ok(sweepProvenance(report).some((l) => l.startsWith('$ / 1M output tokens: modelled, at user-given prices per GPU-hour (H100 SXM $2.49/GPU-hour, H200 $3.50/GPU-hour; yours, not built-in figures)')));
});

test("a point's price: the sweep's for its GPU, else the profile's device.gpu_hour_usd on the profile's own GPU only", () => {
  const prices = { 'A100 80GB': 1.29 };
  assert.equal(pointGpuHourUsd(prices, 'H100 SXM', 2.49, 'A100 80GB'), 1.29);
  assert.equal(pointGpuHourUsd(prices, 'H100 SXM', 2.49, 'H100 SXM'), 2.49);
  // An axis moved the point to H200: the H100 SXM's price is not its.
  assert.equal(pointGpuHourUsd(prices, 'H100 SXM', 2.49, 'H200'), undefined);
  assert.equal(pointGpuHourUsd({ 'H100 SXM': 2.0 }, 'H100 SXM', 2.49, 'H100 SXM'), 2.0);
  assert.equal(treeGpuName(parseProfileText('device: { gpu: { name: MI325X, bf16_tflops: 1300, memory_bandwidth_gb_s: 6000, memory_gib: 256 } }\n', 'p.attn.yaml').root), 'MI325X');
  assert.equal(treeGpuName(parseProfileText('dtype: bf16\n', 'p.attn.yaml').root), 'H100 SXM');
});

test('a sweep price for a GPU no point runs on is a warning at its key with the closest GPU; the plan prices each point by its own GPU', () => {
  const text = 'model: m/config.json\ndevice: { gpu: H100 SXM, gpu_hour_usd: 2.49 }\nsweep:\n  axes: { device.gpu: [H100 SXM, A100 80GB] }\n  gpu_hour_usd: { H100: 2.0, A100 80GB: 1.29 }\n';
  const { block, problems } = readSweepBlock(parseProfileText(text, 'p.attn.yaml').root);
  assert.deepEqual(block!.gpuHourUsd, { H100: 2.0, 'A100 80GB': 1.29 });
  const p = problems.find((q) => q.code === 'sweep-price-unused')!;
  assert.equal(text.slice(p.range.offset, p.range.offset + p.range.length), 'H100');
  assert.equal(p.severity, 'warning');
  assert.equal(p.data?.['suggestion'], 'H100 SXM');
  assert.equal(problems.filter((q) => q.code === 'sweep-price-unused').length, 1);

  const dir = tempDir('sweep-cost-');
  const file = join(dir, 'p.attn.yaml');
  const base = `model: ${JSON.stringify(CONFIG)}\ndevice: { gpu: H100 SXM, gpu_hour_usd: 2.49 }\nworkload: { requests: 10, arrival_rate: 1 }\n`;
  writeFileSync(file, `${base}sweep:\n  axes: { device.gpu: [H100 SXM, A100 80GB, H200] }\n  gpu_hour_usd: { A100 80GB: 1.29 }\n`);
  const plan = loadSweep(file);
  // H100 SXM: the profile's price; A100 80GB: the sweep's; H200: none (not the profile's GPU).
  assert.deepEqual(plan.points.map((q) => q.profile.device.gpuHourUsd), [2.49, 1.29, undefined]);
  // Prices change no simulation: the sweep's id is the same at another price.
  writeFileSync(file, `${base.replace('2.49', '3.10')}sweep:\n  axes: { device.gpu: [H100 SXM, A100 80GB, H200] }\n  gpu_hour_usd: { A100 80GB: 0.99 }\n`);
  const repriced = loadSweep(file);
  assert.equal(repriced.sweepId, plan.sweepId);
  assert.equal(repriced.inputsId, plan.inputsId);
  assert.deepEqual(repriced.points.map((q) => q.profile.device.gpuHourUsd), [3.1, 0.99, undefined]);
});
