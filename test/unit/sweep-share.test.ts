// A sweep's output a planner shares (s53, s52 stop notes "Left" 3 and 5): axis names that say their key, a CSV in the
// table's units with where it comes from on every row, sweep's SLO flags, one answer over the seeds of a grid × seed
// sweep, and p99 TTFTs within 1 % tied. Every figure here is hand-built (no simulation).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import profileSchema from '../../schemas/attn-profile.schema.json';
import { pointLabel } from '../../core/config';
import { axisName, axisNames, PROFILE_TOP_KEYS } from '../../core/format';
import type { SweepMetrics, SweepReport, SweepReportRow } from '../../core/protocol/sweep';
import { csvFigure, sweepToCsv } from '../../core/sweepCsv';
import { bestRow, formatReport, noBestLines, pointInputsOf, ttftTies } from '../../runner/sweep/results';
import { setArgs } from '../../runner/sweep/cli';
import { UsageError } from '../../runner/errors';
import { exampleProfile } from '../fixtures/profile';

const row = (values: Record<string, unknown>, metrics: SweepMetrics, keepsUp = true): SweepReportRow => {
  const label = pointLabel(values);
  return { id: label, index: 0, values, label, environmentKey: 'e', status: 'ok', metrics, file: `${label}.json`, keepsUp };
};

test('axis names: the key less its section, whole where that names a top-level key, longer where two axes share it', () => {
  // s52 nc-cli: a prefix_sharing.fraction axis read "fraction", which names no key.
  assert.deepEqual(axisNames(['workload.prefix_sharing.fraction']), ['prefix_sharing.fraction']);
  assert.deepEqual(axisNames(['kv_cache.page_size', 'workload.max_num_seqs', 'device.gpu']), ['page_size', 'max_num_seqs', 'gpu']);
  // kv_cache.dtype is not the model's dtype; a one-part key is itself.
  assert.deepEqual(axisNames(['dtype', 'kv_cache.dtype']), ['dtype', 'kv_cache.dtype']);
  // Two axes ending in the same two parts: each grows to the left until they differ (here: whole).
  assert.deepEqual(axisNames(['workload.a.fraction', 'kv_cache.a.fraction', 'workload.prompt_len.value']), ['workload.a.fraction', 'kv_cache.a.fraction', 'prompt_len.value']);
  assert.equal(axisName('workload.prompt_len.value', ['workload.prompt_len.value', 'workload.output_len.value']), 'prompt_len.value');
  assert.equal(pointLabel({ 'workload.prefix_sharing.fraction': 0.3, 'kv_cache.page_size': 16 }), 'prefix_sharing.fraction=0.3 page_size=16');
  // The list the rule reads is the schema's top-level keys.
  assert.deepEqual([...PROFILE_TOP_KEYS].sort(), Object.keys((profileSchema as { properties: object }).properties).filter((k) => k !== '$schema').sort());
});

test('the CLI table heads an axis column by its axis name, not its last word', () => {
  const rows = [0, 0.5].map((f) => row({ 'workload.prefix_sharing.fraction': f }, { p99TtftS: 0.2, rejected: 0 }));
  const report = { name: 's.attn.yaml', sweepId: 'x', job: 'simulate', axes: [{ key: 'workload.prefix_sharing.fraction', values: [0, 0.5] }], total: 2, rows, missing: [], duplicates: [], environments: {}, best: null, noBest: [] } as unknown as SweepReport;
  const table = formatReport(report).split('\n');
  assert.match(table[2]!, /^prefix_sharing\.fraction +rejected +p99 TTFT/);
  assert.match(table[3]!, /^0 +0 +200 ms/);
});

test('p99 TTFTs within 1 % tie: the fewer KV bytes held ranks them, and the rule says so', () => {
  // One offered load (steady rates equal): latency ranks. 184.0 ms holds 2 × the bytes of 185.5 ms; 185.5 / 184 − 1 = 0.82 % < 1 %: a tie.
  const m = (ttftMs: number, occupancy: number): SweepMetrics => ({ throughputTokensPerSec: 5600, steadyOutputTokensPerSec: 5630, steadyRequestsPerSec: 24, rejected: 0, p99TtftS: ttftMs / 1000, meanOccupancy: occupancy, poolPages: 1000, pageBytes: 2 ** 21 });
  const rows = [row({ 'kv_cache.page_size': 16 }, m(184, 0.2)), row({ 'kv_cache.page_size': 32 }, m(185.5, 0.1)), row({ 'kv_cache.page_size': 64 }, m(250, 0.05))];
  const best = bestRow(rows)!;
  // The old rule took 184 ms, the strictly lower p99 TTFT.
  assert.equal(best.row.label, 'page_size=32');
  assert.match(best.rule, /^fewest KV bytes held at a p99 TTFT \(186 ms\) within 1% of the lowest \(184 ms\), a tie, among the 3 points at the highest simulated throughput/);
  assert.match(best.rule, /then the lower p99 TTFT \(one seeded run's: a workload\.seed axis shows its spread; within 1% a tie\), then the fewer KV bytes held/);
  // 2 % apart is no tie: the lower p99 TTFT wins whatever it holds.
  const apart = bestRow([row({ 'kv_cache.page_size': 16 }, m(184, 0.2)), row({ 'kv_cache.page_size': 32 }, m(187.7, 0.1))])!;
  assert.equal(apart.row.label, 'page_size=16');
  assert.match(apart.rule, /^lowest p99 TTFT \(184 ms\) among the 2 points/);
  // The band is relative to the lower: 100.9 ms ties 100 ms, 101.5 does not.
  assert.equal(ttftTies(0.1, 0.1009), true);
  assert.equal(ttftTies(0.1015, 0.1), false);
});

test('a grid × seed sweep: one answer, each setting ranked on its median over the seeds, and whether it wins at every seed', () => {
  const m = (ttftMs: number): SweepMetrics => ({ throughputTokensPerSec: 5600, steadyOutputTokensPerSec: 5630, steadyRequestsPerSec: 24, rejected: 0, p99TtftS: ttftMs / 1000, meanOccupancy: 0.1, poolPages: 1000, pageBytes: 2 ** 21 });
  const r = (tokens: number, seed: number, ttftMs: number) => row({ 'workload.max_num_batched_tokens': tokens, 'workload.seed': seed }, m(ttftMs));
  // p99 TTFT, ms, by seed 1/2/3: 256 -> 150, 333, 420 (median 333); 1024 -> 184, 189, 199 (median 189).
  // Seed 1 alone would name 256 (150 < 184); on the medians 1024 (189 < 333) wins, at 2 of 3 seeds.
  const rows = [r(256, 1, 150), r(1024, 1, 184), r(256, 2, 333), r(1024, 2, 189), r(256, 3, 420), r(1024, 3, 199)];
  assert.equal(bestRow(rows), null);
  const lines = noBestLines(rows);
  assert.equal(lines.length, 2);
  assert.match(lines[0]!, /; max_num_batched_tokens=1024 is the best at 2 of 3 seeds, so the draws decide between 2 settings$/);
  assert.match(lines[1]!, /^best over the 3 seeds, each setting ranked on its median over them \(every figure the median of its seeds' runs; kept up with only if at every seed\): max_num_batched_tokens=1024 — lowest p99 TTFT \(189 ms\) among the 2 points at the highest simulated throughput/);
  // Its words say the p99 TTFT is the median's, not one seeded run's.
  assert.match(lines[1]!, /then the lower p99 TTFT \(the median over the seeds; within 1% a tie\)/);
  assert.match(lines[1]!, /; it is the best at 2 of 3 seeds on its own \(seed=1: max_num_batched_tokens=256\), so the draws move it: weigh the margin against the spread over seeds$/);
  // A setting the server does not keep up with at one seed is left out of the median ranking: 256 kept at seeds 1 and 3 only.
  const dropped = rows.map((x) => (x.values['workload.max_num_batched_tokens'] === 1024 && x.values['workload.seed'] === 2 ? { ...x, keepsUp: false } : x));
  assert.match(noBestLines(dropped)[1]!, /: max_num_batched_tokens=256 — /);
  // The same setting at every seed: said so.
  const every = [r(256, 1, 300), r(1024, 1, 184), r(256, 2, 333), r(1024, 2, 189)];
  assert.match(noBestLines(every)[1]!, /: max_num_batched_tokens=1024 — .*; it is the best at every seed too$/);
});

test('the CSV writes figures in the table\'s units to six digits, and every row its build and seed', () => {
  // 0.169 s × 1000 = 169.00000000000003 in floats: 169 ms; 0.008059737338986794 × 100 = 0.805974 %; whole numbers whole.
  assert.equal(csvFigure(0.169, 1000), 169);
  assert.equal(csvFigure(0.008059737338986794, 100), 0.805974);
  assert.equal(csvFigure(2_097_152), 2_097_152);
  assert.equal(csvFigure(3155.4095203648176), 3155.41);
  assert.equal(csvFigure('B=8 context=4096'), 'B=8 context=4096');
  assert.equal(csvFigure(undefined), '');
  const profile = exampleProfile('model: ./llama-3.1-8b/config.json\ndtype: bf16\ndevice: { gpu: H100 SXM }\nworkload: { requests: 100, arrival_rate: 24, seed: 7 }\n');
  const rows: SweepReportRow[] = [{
    ...row({ 'kv_cache.page_size': 16 }, { p99TtftS: 0.169, p99TpotS: 0.0164, prefixHitRate: 0.155, throughputTokensPerSec: 3155.4095203648176, sloAttainment: 0.994, sloTtftMs: 300 }),
    tool: 'attnscope 0.1.0+aaaa', gpu: 'H100 SXM', ...pointInputsOf(profile),
  }];
  const report = { name: 's.attn.yaml', sweepId: 'x', job: 'simulate', axes: [{ key: 'kv_cache.page_size', values: [16] }], total: 1, rows, missing: [], duplicates: [], environments: {}, best: null } as unknown as SweepReport;
  const [header, line] = sweepToCsv(report).text.trimEnd().split('\n').map((l) => l.split(','));
  const cell = (c: string) => line![header!.indexOf(c)];
  assert.deepEqual(
    ['build', 'ttft_p99_ms_modelled', 'tpot_p99_ms_modelled', 'prefix_hit_rate_percent_modelled', 'output_throughput_tokens_per_s_modelled', 'slo_attainment_percent_modelled', 'slo_attainment_target_percent', 'workload_seed'].map(cell),
    ['0.1.0+aaaa', '169', '16.4', '15.5', '3155.41', '99.4', '90', '7'],
  );
  // The old SI columns are gone; nothing precedes the header (a comment line is a data row to a spreadsheet).
  for (const old of ['ttft_p99_s_modelled', 'prefix_hit_rate_fraction_modelled', 'slo_attainment_target_fraction']) assert.ok(!header!.includes(old), old);
  assert.equal(header![0], 'point');
});

test('sweep --slo-ttft-ms / --slo-tpot-ms: simulate\'s flags, added as one-value slo axes; a --set of the same bound refused', () => {
  assert.deepEqual(setArgs({ set: ['kv_cache.page_size=16,32'], 'slo-ttft-ms': '300', 'slo-tpot-ms': '50' }), ['kv_cache.page_size=16,32', 'slo.ttft_ms=300', 'slo.tpot_ms=50']);
  assert.deepEqual(setArgs({}), []);
  // simulate's words for a bad value.
  assert.throws(() => setArgs({ 'slo-ttft-ms': '0' }), (e: Error) => e instanceof UsageError && e.message === "--slo-ttft-ms must be a positive number of milliseconds, got '0'");
  assert.throws(() => setArgs({ 'slo-tpot-ms': '0x10' }), (e: Error) => e instanceof UsageError && /^--slo-tpot-ms must be a positive number of milliseconds, got '0x10'$/.test(e.message));
  assert.throws(() => setArgs({ set: ['slo.ttft_ms=200,400'], 'slo-ttft-ms': '300' }), (e: Error) => e instanceof UsageError && /^--slo-ttft-ms 300 and --set slo\.ttft_ms=200,400 both set slo\.ttft_ms: give one of them$/.test(e.message));
  assert.throws(() => setArgs({ set: ['slo={ttft_ms: 1}'], 'slo-tpot-ms': '30' }), /both set slo\.tpot_ms/);
});
