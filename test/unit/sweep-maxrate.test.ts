// A max-rate sweep (sweep.job: max-rate, `attnscope sweep --max-rate`): each point's highest
// arrival rate meeting the SLO, by the capacity search simulate --max-rate runs (worker.ts
// maxRatePoint -> capacity.ts searchCapacity), ranked per GPU; a point that meets the SLO at no
// rate is said so; a profile with no SLO bound is refused before any work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readSweepBlock } from '../../core/config/sweep';
import { parseProfileText } from '../../core/config/index';
import type { SweepPointRun } from '../../core/protocol/sweep';
import { bestRow, environmentKey, formatReport, mergeResults, noBestLines, pointFileName } from '../../runner/sweep/results';
import { shardCommand } from '../../runner/sweep/slurm';
import { loadSweep } from '../../runner/sweep/spec';
import { maxRatePoint, searchProgress } from '../../runner/sweep/worker';
import { exampleProfile } from '../fixtures/profile';
import { tempDir } from '../fixtures/tmp';

const CONFIG = resolve(__dirname, '../../examples/llama-3.1-8b/config.json');

/**
 * The load of capacity.test.ts's first test, as a trace: 200 requests (prompt 1, output 1) every
 * 20 ms (50/s), served one at a time (max_num_seqs 1), TTFT <= 15 ms for every request (slo.attainment 1).
 */
function traceFile(dir: string): string {
  const path = join(dir, 'trace.jsonl');
  writeFileSync(path, Array.from({ length: 200 }, (_, i) => JSON.stringify({ arrival_s: i * 0.02, prompt_len: 1, output_len: 1 })).join('\n') + '\n');
  return path;
}

test('a max-rate sweep ranks by the highest rate per GPU: tp 2 sustains more requests/s but fewer per GPU, so tp 1 is best; a point meeting no rate says so', async () => {
  const dir = tempDir('attnscope-maxrate-');
  const trace = traceFile(dir);
  // The step time is fixed per point (simulate's stepTime, as capacity.test.ts fixes it): 10 ms on
  // one GPU, 6 ms under tensor parallelism 2 (the weights split over two GPUs, a fixed part not).
  // By hand: one request at a time, each one step, so the saturated throughput μ = 1 / step:
  //   tp 1: μ = 100 requests/s. Below μ nobody waits (gap >= step): TTFT = 10 ms <= 15 ms, so every
  //         rate up to μ meets the SLO, and above μ the server does not keep up: max rate 100/s
  //         (capacity the limit), 100 per GPU.
  //   tp 2: μ = 1 / 6 ms = 166.7/s, TTFT 6 ms: max rate 166/s (μ rounded down to 3 significant digits, the
  //         rate the search runs last and answers, s51), 83.0 per GPU.
  //   TTFT <= 5 ms (either tp): one step alone is longer, at any rate: no max rate.
  // The raw rate would pick tp 2 (166 > 100); per GPU tp 1 (100 > 83.0, outside the 2 % tie).
  const axes = [{ key: 'device.tensor_parallel_size', values: [1, 2] }, { key: 'slo.ttft_ms', values: [15, 5] }];
  const out = join(dir, 'points');
  mkdirSync(out);
  const runs = new Map<string, SweepPointRun>();
  let index = 0;
  for (const tp of [1, 2]) {
    for (const ttft of [15, 5]) {
      const profile = exampleProfile(`model: ./llama-3.1-8b/config.json\ndevice: { tensor_parallel_size: ${tp} }\nkv_cache: { page_size: 16, num_pages: 100 }\nworkload: { trace: ${JSON.stringify(trace)}, max_num_seqs: 1 }\nslo: { ttft_ms: ${ttft}, attainment: 1 }\n`);
      const steps: string[] = [];
      const fractions: number[] = [];
      const run = await maxRatePoint(profile, `p [tp ${tp}]`, { signal: new AbortController().signal, stepTime: { perStepS: tp === 1 ? 0.01 : 0.006 } }, (f, message) => {
        steps.push(message);
        fractions.push(f);
      });
      assert.equal(run.status, 'ok');
      // The point's fraction rises with its simulations, never back, below 1 (s42 newcomer 11: 0
      // throughout): after step 3 starts, 1 − e^(−2/4) = 0.3935 (searchProgress, by hand).
      assert.ok(fractions.every((f, i) => f >= (fractions[i - 1] ?? 0) && f < 1), fractions.join(' '));
      assert.ok(fractions.includes(searchProgress(2)) && Math.abs(searchProgress(2) - 0.3935) < 1e-4, fractions.join(' '));
      // slo.attainment is the search's target; the progress says which search step runs (step 1: μ).
      assert.equal(run.pool!.capacity!.attainmentTarget, 1);
      assert.match(steps[0]!, /^search step 1 \(saturated throughput μ\): /);
      assert.ok(steps.some((s) => /^search step 3: .*; last 50\.0 requests\/s (passed|failed)$/.test(s)), steps.join('\n'));
      const values = { 'device.tensor_parallel_size': tp, 'slo.ttft_ms': ttft };
      const label = `tensor_parallel_size=${tp} ttft_ms=${ttft}`;
      const id = `${tp}${ttft}`.padEnd(12, '0');
      const point: SweepPointRun = { ...run, sweep: { schema: 1, sweepId: 's', inputsId: 'i', name: 'p.attn.yaml', job: 'max-rate', total: 4, axes, environmentKey: environmentKey(run.environment), id, index: index++, values, label } };
      runs.set(label, point);
      writeFileSync(join(out, pointFileName(id, point.sweep.environmentKey)), JSON.stringify(point));
    }
  }
  const report = mergeResults([out]);
  const m = (label: string) => report.rows.find((r) => r.label === label)!.metrics;
  assert.ok(Math.abs(m('tensor_parallel_size=1 ttft_ms=15').maxRateRequestsPerSec! - 100) < 1e-6, String(m('tensor_parallel_size=1 ttft_ms=15').maxRateRequestsPerSec));
  assert.equal(m('tensor_parallel_size=1 ttft_ms=15').maxRateLimit, 'capacity');
  assert.ok(Math.abs(m('tensor_parallel_size=2 ttft_ms=15').maxRateRequestsPerSec! - 166) < 1e-6);
  assert.ok(Math.abs(m('tensor_parallel_size=2 ttft_ms=15').maxRatePerGpuRequestsPerSec! - 83) < 1e-6);
  assert.equal(m('tensor_parallel_size=1 ttft_ms=5').maxRateLimit, 'unmet');
  assert.equal(m('tensor_parallel_size=1 ttft_ms=5').maxRateRequestsPerSec, undefined);
  // Two SLO values: no best across them (the looser admits the higher rate by definition; s49 newcomer L1), the best of each.
  assert.equal(report.best, null);
  assert.deepEqual(report.noBest, ['no best point across SLO values: a looser SLO admits a higher rate by definition, so across ttft_ms values the loosest would win: compare points under one SLO; the best for each SLO value: ttft_ms=15: tensor_parallel_size=1; ttft_ms=5: no point qualifies']);
  // Under ttft_ms=15 alone: the per-GPU rule.
  const at15 = bestRow(report.rows.filter((r) => r.values['slo.ttft_ms'] === 15))!;
  assert.equal(at15.row.label, 'tensor_parallel_size=1 ttft_ms=15');
  assert.match(at15.rule, /^highest max rate per GPU: each point's highest arrival rate at which >= 100% of requests meet the profile's SLO and the modelled server keeps up/);
  assert.equal(at15.tie, '');
  const text = formatReport(report);
  assert.match(text, /job max-rate/);
  assert.match(text, /^tensor_parallel_size +ttft_ms +max req\/s +per GPU +limit /m);
  assert.match(text, /^1 +15 +100 +100 +capacity /m);
  assert.match(text, /^2 +15 +166 +83\.0 +capacity /m);
  assert.match(text, /^1 +5 +SLO unmet at any rate +- +- /m);
  assert.match(text, /^max rate: modelled, each point's capacity search/m);

  // Only the points that meet no rate: no best, and why, with the bound each would need.
  const unmet = report.rows.filter((r) => r.metrics.maxRateLimit === 'unmet');
  const [why] = noBestLines(unmet);
  assert.match(why!, /^no point meets the SLO \(TTFT <= 5(\.0)? ms for >= 100% of requests\) at any rate: even at the lowest rate its capacity search tried/);
  assert.match(why!, /relax the SLO or change the deployment$/);

  // A point file without its capacity block (hand-trimmed, `jq 'del(.pool.capacity)'`): merged, its
  // max rate "-", and one warning naming that file and why (s53 nc-cli 11: "-" with no word).
  const trimmed = runs.get('tensor_parallel_size=2 ttft_ms=15')!;
  const trimmedFile = join(out, pointFileName(trimmed.sweep.id, trimmed.sweep.environmentKey));
  writeFileSync(trimmedFile, JSON.stringify({ ...trimmed, pool: { ...trimmed.pool!, capacity: undefined } }));
  const warnings: string[] = [];
  const again = mergeResults([out], { onWarning: (f, message) => warnings.push(`${f}: ${message}`) });
  assert.deepEqual(warnings, [`${trimmedFile}: no capacity search in this point (an older or edited file), so its max rate, per GPU and limit show -: delete it and run the sweep again to search its rate`]);
  assert.equal(again.rows.find((r) => r.label === 'tensor_parallel_size=2 ttft_ms=15')!.metrics.maxRateRequestsPerSec, undefined);
});

test('a max-rate sweep of a profile with no SLO bound is refused before any work, at sweep.job (or at the slo without a bound), and the editor marks it there', () => {
  const dir = tempDir('attnscope-maxrate-noslo-');
  const base = `model: ${JSON.stringify(CONFIG)}\nkv_cache: { page_size: 16 }\nworkload: { requests: 10, arrival_rate: 1 }\n`;
  const file = join(dir, 'p.attn.yaml');
  // Line 5, column 8: the value of sweep.job.
  writeFileSync(file, `${base}sweep:\n  job: max-rate\n  axes: { kv_cache.page_size: [16, 32] }\n`);
  assert.throws(() => loadSweep(file), (e: Error) => /^.*p\.attn\.yaml:5:8: a max-rate sweep finds each point's highest arrival rate meeting the SLO, and the profile has no slo: add slo:/.test((e as { format?: () => string }).format?.() ?? e.message));
  // --max-rate (the job given, no sweep block): an slo without a bound, at its key (line 4).
  writeFileSync(file, `${base}slo: { attainment: 0.99 }\n`);
  assert.throws(() => loadSweep(file, { job: 'max-rate', set: ['kv_cache.page_size=16,32'] }), (e: Error) => /p\.attn\.yaml:4:1: .*the profile's slo sets no bound/.test((e as { format?: () => string }).format?.() ?? e.message));
  // A bound from an axis is one: no refusal; job simulate needs none.
  const plan = loadSweep(file, { job: 'max-rate', set: ['slo.ttft_ms=100,200'] });
  assert.equal(plan.job, 'max-rate');
  // A Slurm task or Kubernetes pod runs the same sweep: --max-rate passed on (the job is not in this profile).
  assert.ok(shardCommand(plan, ['attnscope'], file, 'out', { quick: false, backend: 'auto' }).includes('--max-rate'));
  assert.equal(loadSweep(file, { set: ['kv_cache.page_size=16,32'] }).job, 'simulate');
  // The editor: the same problem at sweep.job's value.
  const text = `${base}sweep:\n  job: max-rate\n  axes: { kv_cache.page_size: [16, 32] }\n`;
  const { problems } = readSweepBlock(parseProfileText(text, file).root);
  const p = problems.find((q) => q.code === 'sweep-max-rate-no-slo');
  assert.ok(p, JSON.stringify(problems));
  assert.equal(text.slice(p.range.offset, p.range.offset + p.range.length), 'max-rate');
});
