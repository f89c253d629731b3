// A sweep axis its job does not read, and an offered-rate axis (s48 newcomer M2, M3): a warning at
// the axis before any work, no best among points with the same figures, and points compared at one
// arrival rate, not by a simulated rate that follows the offered load.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SweepMetrics, SweepReport, SweepReportRow } from '../../core/protocol/sweep';
import { jobReadsKey, sweepAxisWarnings, type SweepAxis } from '../../core/config/sweep';
import { bestRow, formatReport, noBestLines, sameFigures } from '../../runner/sweep/results';
import { tempDir } from '../fixtures/tmp';

const axis = (key: string, values: unknown[]): SweepAxis => ({
  key, keyRange: { offset: key.length, length: 0 }, values: values.map((v, i) => ({ type: 'number', range: { offset: 100 + i, length: 1 }, value: v as number })),
});
const at = (a: SweepAxis) => a.keyRange!;

test('which job reads which key: the kernel cases the benchmark alone, the load, SLO and step-time model the simulation alone', () => {
  for (const key of ['decode.context_lens', 'decode.batch_sizes', 'prefill.seq_lens', 'prefill', 'device.backend']) {
    assert.deepEqual([jobReadsKey('simulate', key), jobReadsKey('max-rate', key), jobReadsKey('bench', key), jobReadsKey('both', key)], [false, false, true, true], key);
  }
  for (const key of ['workload.arrival_rate', 'workload.prompt_len.median', 'slo.ttft_ms', 'step_time.overhead_ms']) {
    assert.deepEqual([jobReadsKey('simulate', key), jobReadsKey('max-rate', key), jobReadsKey('bench', key), jobReadsKey('both', key)], [true, true, false, true], key);
  }
  // Read by both: the pool and the kernels alike. A prefix is a whole key ("decoder" is no "decode").
  for (const key of ['kv_cache.page_size', 'device.tensor_parallel_size', 'dtype', 'device.backend_x', 'decoder.x']) {
    assert.ok(['simulate', 'max-rate', 'bench', 'both'].every((j) => jobReadsKey(j as 'simulate', key)), key);
  }
});

test('the warnings at a sweep\'s axes for its job: an axis the job does not read, an offered-rate axis', () => {
  const ctx = axis('decode.context_lens', [512, 2048]);
  const page = axis('kv_cache.page_size', [16, 32]);
  const [w, ...none] = sweepAxisWarnings('simulate', [page, ctx], at);
  assert.deepEqual(none, []);
  assert.equal(w!.code, 'sweep-axis-not-read');
  assert.deepEqual(w!.range, ctx.keyRange);
  assert.equal(w!.message, "decode.context_lens only changes the kernel benchmark; job simulate runs the simulation alone and ignores it, so the points along this axis are the same run: make the sweep's job bench or both, or drop the axis");
  assert.match(sweepAxisWarnings('max-rate', [ctx], at, '--max-rate')[0]!.message, /; --max-rate runs the simulation alone and ignores it/);
  assert.deepEqual(sweepAxisWarnings('both', [page, ctx], at), []);
  const rate = axis('workload.arrival_rate', [10, 20, 30]);
  assert.equal(sweepAxisWarnings('bench', [rate], at)[0]!.message, "workload.arrival_rate only changes the serving simulation; job bench benchmarks the kernels alone and ignores it, so the points along this axis are the same run: make the sweep's job simulate or both, or drop the axis");
  // Simulate and both: the offered load; max-rate: where the search starts. One value is no axis to rank along.
  assert.deepEqual(sweepAxisWarnings('simulate', [page, rate], at).map((p) => [p.code, p.range.offset]), [['offered-rate-axis', rate.keyRange!.offset]]);
  assert.match(sweepAxisWarnings('both', [rate], at)[0]!.message, /^workload\.arrival_rate is the offered load: a simulated point's throughput follows it/);
  assert.equal(sweepAxisWarnings('max-rate', [rate], at)[0]!.code, 'max-rate-arrival-axis');
  assert.deepEqual(sweepAxisWarnings('simulate', [axis('workload.arrival_rate', [10])], at), []);
});

const row = (values: Record<string, number>, metrics: SweepMetrics, keepsUp?: boolean): SweepReportRow => {
  const label = Object.entries(values).map(([k, v]) => `${k.slice(k.lastIndexOf('.') + 1)}=${v}`).join(' ');
  return { id: label, index: 0, values, label, environmentKey: 'e', status: 'ok', metrics, file: `${label}.json`, ...(keepsUp !== undefined ? { keepsUp } : {}) };
};

test('points with the same figures have no best: they tie, and the report says so', () => {
  // The newcomer's decode.context_lens sweep under job simulate: both rows 6,249 tokens/s, p99 TTFT 211 ms, TPOT 23.3 ms.
  const m: SweepMetrics = { throughputTokensPerSec: 6249, rejected: 0, p99TtftS: 0.211, p99TpotS: 0.0233, poolPages: 28363, meanOccupancy: 0.221 };
  const rows = [row({ 'decode.context_lens': 512 }, { ...m }, true), row({ 'decode.context_lens': 2048 }, { ...m }, true)];
  assert.ok(sameFigures(rows));
  assert.equal(bestRow(rows), null);
  assert.deepEqual(noBestLines(rows), ["no best point: the 2 points have the same figures, so they tie (an axis the sweep's job does not read changes nothing: the warning at it says which)"]);
  const report = {
    schema: 1, kind: 'attnscope-sweep-report', tool: 'attnscope test', createdAt: '', sweepId: 's', name: 'p.attn.yaml', job: 'simulate',
    axes: [{ key: 'decode.context_lens', values: [512, 2048] }], total: 2, rows, missing: [], duplicates: [], environments: {}, best: null,
  } as unknown as SweepReport;
  const text = formatReport(report);
  assert.doesNotMatch(text, /^best/m);
  assert.match(text, /^no best point: the 2 points have the same figures, so they tie/m);
  // One figure apart (p99 TTFT 1 ms): a best, by the ordinary rule and its tie-break.
  const apart = [rows[0]!, row({ 'decode.context_lens': 2048 }, { ...m, p99TtftS: 0.21 }, true)];
  assert.equal(sameFigures(apart), false);
  assert.equal(bestRow(apart)!.row.label, 'context_lens=2048');
});

test('across an arrival-rate axis the points are compared at the highest rate one keeps up with, not by throughput across rates', () => {
  // Throughput follows the offered load: the highest figure is the highest rate, whatever page_size. Here the
  // server keeps up with 20 but not 30, and at 20 page_size 32 serves more than 16 (5,300 against 5,000 tokens/s);
  // page_size 16 at 10 has a higher figure than either (5,400: a figure a wrong rule across rates would pick).
  const t = (tokens: number): SweepMetrics => ({ throughputTokensPerSec: tokens, rejected: 0, p99TtftS: 0.1 });
  const rows = [
    row({ 'kv_cache.page_size': 16, 'workload.arrival_rate': 10 }, t(5400), true),
    row({ 'kv_cache.page_size': 16, 'workload.arrival_rate': 20 }, t(5000), true),
    row({ 'kv_cache.page_size': 16, 'workload.arrival_rate': 30 }, t(7500), false),
    row({ 'kv_cache.page_size': 32, 'workload.arrival_rate': 10 }, t(2700), true),
    row({ 'kv_cache.page_size': 32, 'workload.arrival_rate': 20 }, t(5300), true),
    row({ 'kv_cache.page_size': 32, 'workload.arrival_rate': 30 }, t(7500), false),
  ];
  const best = bestRow(rows)!;
  assert.equal(best.row.label, 'page_size=32 arrival_rate=20');
  assert.match(best.rule, /^at arrival_rate=20, the highest offered rate a point keeps up with \(a simulated rate follows the offered load, so the points are compared at one rate, not across rates\): highest simulated output throughput/);
  assert.deepEqual(best.leftOut.map((r) => r.label), ['page_size=16 arrival_rate=30', 'page_size=32 arrival_rate=30']);
  // Without an arrival-rate axis the rule is as before.
  const one = rows.filter((r) => r.values['workload.arrival_rate'] === 20);
  assert.match(bestRow(one)!.rule, /^highest simulated output throughput/);
});

test('a trace axis: a warning at it, and no best across traces but the best of each trace\'s points (s49 newcomer M2)', () => {
  // The newcomer's sweep: moon.jsonl offers 5 output tokens/s, azure.csv 40, both kept up with: "best: trace=azure.csv"
  // named the busier trace, not a better deployment. Here page_size 16 and 32 under each trace: under moon.jsonl
  // page_size 32 serves more (5.3 against 5.0 tokens/s, past the 1 % tie), under azure.csv page_size 16 (40 against 38);
  // azure.csv's 40 is the highest figure of all (what the old rule picked).
  const trace = axis('workload.trace', ['moon.jsonl', 'azure.csv']);
  assert.deepEqual(sweepAxisWarnings('simulate', [trace], at).map((p) => p.code), ['trace-axis']);
  assert.deepEqual(sweepAxisWarnings('max-rate', [trace], at).map((p) => p.code), ['trace-axis']);
  assert.match(sweepAxisWarnings('simulate', [trace], at)[0]!.message, /^workload\.trace is the load itself: .* compare the traces, not the deployments; the report names a best point for each trace, none across them$/);
  assert.deepEqual(sweepAxisWarnings('bench', [trace], at).map((p) => p.code), ['sweep-axis-not-read']);
  assert.deepEqual(sweepAxisWarnings('simulate', [axis('workload.trace', ['moon.jsonl'])], at), []);
  const t = (tokens: number): SweepMetrics => ({ throughputTokensPerSec: tokens, rejected: 0, p99TtftS: 0.1 });
  const r = (trace: string, page: number, tokens: number) => {
    const x = row({ 'kv_cache.page_size': page }, t(tokens), true);
    return { ...x, values: { ...x.values, 'workload.trace': trace }, label: `${x.label} trace=${trace}` };
  };
  const rows = [r('moon.jsonl', 16, 5), r('moon.jsonl', 32, 5.3), r('azure.csv', 16, 40), r('azure.csv', 32, 38)];
  assert.equal(bestRow(rows), null);
  assert.deepEqual(noBestLines(rows), ['no best point across traces: each trace is its own load (its rate and lengths), which a point\'s throughput and goodput follow, so across traces they compare the traces, not the deployments; the best for each trace: trace=moon.jsonl: page_size=32; trace=azure.csv: page_size=16']);
  // One point a trace: nothing to rank within a trace.
  assert.match(noBestLines([rows[0]!, rows[2]!])[0]!, /; each trace has one point, so none is ranked$/);
  // The report says it in place of a best line.
  const report = { name: 'p', sweepId: 'x', job: 'simulate', axes: [{ key: 'kv_cache.page_size', values: [16, 32] }, { key: 'workload.trace', values: ['moon.jsonl', 'azure.csv'] }], total: 4, rows, missing: [], duplicates: [], environments: {}, best: null } as unknown as SweepReport;
  const text = formatReport(report);
  assert.doesNotMatch(text, /^best/m);
  assert.match(text, /^no best point across traces: /m);
});

test('merge DIR DIR: a folder given twice is read once and said once, not every point a duplicate of itself (s49 newcomer L5)', async () => {
  const { mkdirSync, symlinkSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { uniqueFolders } = await import('../../runner/sweep/cli');
  // tempDir, not mkdtempSync: this folder was never removed, one attnscope-merge-* left in TMPDIR by every passing run (s51).
  const root = tempDir('attnscope-merge-');
  const a = join(root, 'a');
  const b = join(root, 'b');
  mkdirSync(a);
  mkdirSync(b);
  symlinkSync(a, join(root, 'link'));
  // a, b, a again, a link to a: two folders read; the repeat and the link each said once.
  assert.deepEqual(uniqueFolders([a, b, a, join(root, 'link')]), { dirs: [a, b], repeated: [`${a} given twice: read once`, `${join(root, 'link')} is ${a}, given twice: read once`] });
  assert.deepEqual(uniqueFolders([a, b]), { dirs: [a, b], repeated: [] });
});
