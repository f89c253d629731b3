/**
 * Sweeps (issue 13): expansion into points with stable ids, --set, errors at the right place,
 * shards, merging (missing, duplicates, another sweep, environments kept apart), and the shapes
 * of the Slurm script and the Kubernetes Indexed Job.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import * as YAML from 'yaml';
import type { Environment } from '../../core/protocol/run';
import type { SweepPointRun } from '../../core/protocol/sweep';
import { InputError, InputErrors, UsageError } from '../../runner/errors';
import { indexedJobManifest } from '../../runner/sweep/k8s';
import { parseShard, shardFromEnvironment, shardPoints } from '../../runner/sweep/local';
import { workerBytes, workerCount } from '../../runner/sweep/cli';
import { bestRow, environmentKey, formatReport, mergeResults, metricsOf, PointFileCache, pointFileName, stepTimeAssumptionsOf } from '../../runner/sweep/results';
import { RING_STEP_LATENCY_S, stepTimeModel } from '../../runner/simulate/step-time';
import { gpuByName } from '../../core/estimate/gpus';
import { exampleProfile } from '../fixtures/profile';
import { run as recorded } from '../fixtures/run';
import type { SweepMetrics, SweepReport, SweepReportRow } from '../../core/protocol/sweep';
import type { Problem } from '../../core/config/types';
import { describeEnvironment, sweepProvenance } from '../../core/sweepFigures';
import { sbatchScript, sbatchReason } from '../../runner/sweep/slurm';
import { shellQuote } from '../../runner/args';
import { axisIndices } from '../../core/config';
import { slurmTimeProblem, sweepProblems } from '../../core/config/sweep';
import { parseProfileText } from '../../core/config';
import { canonicalJson, loadSweep, pointId, positionRuns, type SweepPlan } from '../../runner/sweep/spec';
import { tempDir } from '../fixtures/tmp';

const TINY_CONFIG = JSON.stringify({
  model_type: 'llama', hidden_size: 256, num_attention_heads: 4, num_key_value_heads: 2, num_hidden_layers: 2,
  intermediate_size: 512, vocab_size: 1000, max_position_embeddings: 4096, torch_dtype: 'bfloat16',
});

/** A folder with tiny/config.json and `name` holding `profile`. */
function workspace(profile: string, name = 'p.attn.yaml'): { dir: string; file: string } {
  const dir = tempDir('attnscope-sweep-');
  mkdirSync(join(dir, 'tiny'));
  writeFileSync(join(dir, 'tiny', 'config.json'), TINY_CONFIG);
  writeFileSync(join(dir, name), profile);
  return { dir, file: join(dir, name) };
}

const BASE = `model: ./tiny/config.json
kv_cache: { num_pages: 512 }
workload: { requests: 50, max_num_seqs: 8, max_model_len: 2048 }
`;

const sha12 = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

test('a sweep block expands to the Cartesian product, first axis slowest, each point a real profile', () => {
  const { file } = workspace(`${BASE}sweep:\n  axes:\n    kv_cache.page_size: [8, 16, 32]\n    workload.max_num_seqs: [4, 64]\n`);
  const plan = loadSweep(file);
  assert.equal(plan.points.length, 6);
  assert.deepEqual(plan.points.map((p) => [p.profile.kvCache.pageSize, p.profile.workload!.maxNumSeqs]), [[8, 4], [8, 64], [16, 4], [16, 64], [32, 4], [32, 64]]);
  // The rest of the profile is untouched in every point.
  assert.ok(plan.points.every((p) => p.profile.kvCache.numPages === 512 && p.profile.workload!.requests === 50));
  assert.equal(plan.points[3]!.label, 'page_size=16 max_num_seqs=64');
  assert.equal(plan.job, 'simulate');
});

test('the points of a sweep share one read of each model config: one parse per config text, not one per point', () => {
  // s35: the editor read its first 256 points per keystroke, each parsing the same config.json again (25% of
  // the language server's CPU per keystroke in a 2,992-line profile). Sharing the read object is the proof of one parse.
  const { dir, file } = workspace(`${BASE}sweep:\n  axes:\n    kv_cache.page_size: [8, 16, 32]\n    model: [./tiny/config.json, ./deep/config.json]\n`);
  mkdirSync(join(dir, 'deep'));
  writeFileSync(join(dir, 'deep', 'config.json'), TINY_CONFIG.replace('"num_hidden_layers":2', '"num_hidden_layers":4'));
  const plan = loadSweep(file);
  assert.equal(plan.points.length, 6);
  const models = (name: string) => plan.points.filter((p) => p.profile.modelPath === join(dir, name, 'config.json')).map((p) => p.profile.model);
  const [tiny, deep] = [models('tiny'), models('deep')];
  assert.equal(tiny.length, 3);
  assert.equal(deep.length, 3);
  assert.ok(tiny.every((m) => m === tiny[0]) && deep.every((m) => m === deep[0]));
  // Two texts, two reads: 2 and 4 layers as written.
  assert.deepEqual([tiny[0]!.numLayers, deep[0]!.numLayers], [2, 4]);
});

test('a merged report names the models of its points, in point order, each once: a model axis gives both (s36 sweep36 3)', () => {
  const { dir, file } = workspace(`${BASE}sweep:\n  axes:\n    model: [./deep/config.json, ./tiny/config.json]\n    kv_cache.page_size: [8, 16]\n`);
  mkdirSync(join(dir, 'deep'));
  // A config naming its hub id: the label is its last part (transformers' _name_or_path).
  writeFileSync(join(dir, 'deep', 'config.json'), TINY_CONFIG.replace('{', '{"_name_or_path":"acme/Deep-4L",'));
  const plan = loadSweep(file);
  const out = tempDir('attnscope-models-');
  for (const i of [3, 0, 1]) writePoint(out, plan, i, ENV_A);
  const r = mergeResults([out]);
  assert.deepEqual(r.models, ['Deep-4L', 'tiny']);
  // Each row's dtype, KV dtype and workload (s50 sweepchart, for the caption and CSV): the config's torch_dtype bfloat16 -> bf16,
  // kv_cache.dtype's default auto -> the dtype, BASE's 50 requests at the schema's default arrival_rate, 8 requests/s, and its default seed 0 (s53, the CSV's workload_seed).
  assert.deepEqual(r.rows.map((row) => [row.dtype, row.kvDtype, row.workload]), Array(3).fill(['bf16', 'bf16', { requests: 50, arrivalRate: 8, seed: 0 }]));
  assert.match(formatReport(r), /^Sweep p\.attn\.yaml of Deep-4L, tiny \(/m);
  // Every point here rejects nothing at 10 tokens/s: a best, so no noBest.
  assert.ok(r.best);
  assert.equal(r.noBest, undefined);
  // The server keeps up with none (pool.load as the worker's checkKeepsUp writes it): no best, and the report says why, for the Sweep tab.
  for (const f of readdirSync(out)) {
    const point = JSON.parse(readFileSync(join(out, f), 'utf8')) as SweepPointRun;
    point.pool!.load = { keepsUp: false, overloaded: true, waitingAtLastArrival: 5, servedRequestsPerSec: 2 } as unknown as NonNullable<SweepPointRun['pool']>['load'];
    // The GPU its step times were modelled for (gpuLabel of a described GPU), which each row carries for the CSV's gpu column (s41 newcomer-ed F5).
    point.pool!.stepTime = { gpu: 'MI325X (user-given)' } as NonNullable<SweepPointRun['pool']>['stepTime'];
    writeFileSync(join(out, f), JSON.stringify(point));
  }
  const none = mergeResults([out]);
  assert.deepEqual(r.rows.map((row) => row.gpu), [undefined, undefined, undefined]);
  assert.deepEqual(none.rows.map((row) => row.gpu), ['MI325X (user-given)', 'MI325X (user-given)', 'MI325X (user-given)']);
  assert.equal(none.best, null);
  assert.equal(none.noBest!.length, 1);
  assert.match(none.noBest![0]!, /^no best point: left out, the modelled server not keeping up .*: model=\.\/deep\/config\.json page_size=8 \(its queue grew through the arrivals: 5 requests still waiting at the last arrival, 2\.00 requests\/s served\)/); // a rate in three significant figures, as every rate is written (formatRequestRate)
  // The CLI prints the same sentence.
  assert.ok(formatReport(none).includes(none.noBest![0]!));
});

test('point ids: SHA-256 of the canonical {key: value}, the same whatever the axis order or the other values', () => {
  // Independent computation: keys sorted, compact JSON.
  assert.equal(pointId({ 'kv_cache.page_size': 16, 'workload.max_num_seqs': 64 }), sha12('{"kv_cache.page_size":16,"workload.max_num_seqs":64}'));
  const a = loadSweep(workspace(`${BASE}sweep:\n  axes:\n    kv_cache.page_size: [8, 16]\n    workload.max_num_seqs: [4, 64]\n`).file);
  const b = loadSweep(workspace(`${BASE}sweep:\n  axes:\n    workload.max_num_seqs: [64, 4, 128]\n    kv_cache.page_size: [16, 8]\n`).file);
  const idOf = (plan: SweepPlan, ps: number, seqs: number) => plan.points.find((p) => p.profile.kvCache.pageSize === ps && p.profile.workload!.maxNumSeqs === seqs)!.id;
  assert.equal(idOf(a, 16, 64), idOf(b, 16, 64));
  assert.equal(idOf(a, 8, 4), idOf(b, 8, 4));
  assert.notEqual(idOf(a, 8, 4), idOf(a, 16, 4));
  // Different axes make a different sweep.
  assert.notEqual(a.sweepId, b.sweepId);
  assert.equal(a.sweepId, loadSweep(workspace(`${BASE}sweep:\n  axes:\n    kv_cache.page_size: [8, 16]\n    workload.max_num_seqs: [4, 64]\n`).file).sweepId);
});

test('axisIndices is mixed radix over the axis lengths', () => {
  // 23 = 1·(3·4) + 2·4 + 3 over lengths [2, 3, 4].
  assert.deepEqual(axisIndices(23, [2, 3, 4]), [1, 2, 3]);
  assert.deepEqual(axisIndices(0, [2, 3, 4]), [0, 0, 0]);
});

test('--set adds axes after the file\'s, replaces an axis in place, and parses YAML scalars and flow lists', () => {
  const { file } = workspace(`${BASE}sweep:\n  axes:\n    kv_cache.page_size: [8, 16]\n    workload.max_num_seqs: [4]\n`);
  const plan = loadSweep(file, { set: ['kv_cache.dtype=fp16,bf16', 'kv_cache.page_size=32,64,128', 'workload.prompt_len=[{dist: fixed, value: 100}]'] });
  assert.deepEqual(plan.axes.map((a) => a.key), ['kv_cache.page_size', 'workload.max_num_seqs', 'kv_cache.dtype', 'workload.prompt_len']);
  assert.equal(plan.points.length, 3 * 1 * 2 * 1);
  assert.deepEqual(plan.points.map((p) => p.profile.kvCache.pageSize), [32, 32, 64, 64, 128, 128]);
  assert.deepEqual(plan.points.slice(0, 2).map((p) => p.profile.kvCache.dtype), ['fp16', 'bf16']);
  assert.deepEqual(plan.points[0]!.profile.workload!.promptLen, { dist: 'fixed', value: 100 });
  // A profile with no sweep block takes --set alone; a key the profile does not write is created.
  const bare = loadSweep(workspace(BASE).file, { set: ['device.memory_gib=16,32'] });
  assert.deepEqual(bare.points.map((p) => p.profile.device.memoryGib), [16, 32]);
});

test('a bad value in the sweep block is reported at that value (file:line:col), before any work', () => {
  // Line 6 is `    kv_cache.page_size: [8, 0]`: 4 spaces, 18-character key, ': [8, ' — the 0 is at column 29.
  const { file } = workspace(`${BASE}sweep:\n  axes:\n    kv_cache.page_size: [8, 0]\n`);
  assert.throws(() => loadSweep(file), (e: unknown) => {
    assert.ok(e instanceof InputError);
    assert.equal(`${e.line}:${e.column}`, '6:29');
    assert.match(e.message, /^sweep point page_size=0: kv_cache\.page_size must be >= 1/);
    return true;
  });
});

test('a --set value out of the schema\'s range names its place among the argument\'s values, before any point runs', () => {
  const { file } = workspace(BASE);
  // gpu_memory_utilization is at most 1 (schemas/attn-profile.schema.json): 1.2 is the 2nd of 3 values.
  assert.throws(() => loadSweep(file, { set: ['device.gpu_memory_utilization=0.8,1.2,0.9'] }), (e: unknown) => {
    assert.ok(e instanceof UsageError);
    assert.equal(e.message, '--set device.gpu_memory_utilization=0.8,1.2,0.9 (value 2 of 3): sweep point gpu_memory_utilization=1.2: device.gpu_memory_utilization must be <= 1, not 1.2');
    return true;
  });
  // A [..] list, two bad values among four: each named by its place, in one line.
  assert.throws(() => loadSweep(file, { set: ['kv_cache.page_size=16', 'device.gpu_memory_utilization=[1.5, 0.9, 0, 0.8]'] }), (e: unknown) => {
    assert.ok(e instanceof UsageError);
    assert.match(e.message, /^--set device\.gpu_memory_utilization=\[1\.5, 0\.9, 0, 0\.8\] \(value 1 of 4\): sweep point page_size=16 gpu_memory_utilization=1\.5: device\.gpu_memory_utilization must be <= 1, not 1\.5; --set device\.gpu_memory_utilization=\[1\.5, 0\.9, 0, 0\.8\] \(value 3 of 4\): sweep point page_size=16 gpu_memory_utilization=0: device\.gpu_memory_utilization must be > 0/);
    return true;
  });
  // An error of the argument as a whole (its key) names no value.
  assert.throws(() => loadSweep(file, { set: ['device.gpu_memory_utilisation=0.8,0.9'] }), (e: unknown) => e instanceof UsageError && /^--set device\.gpu_memory_utilisation=0\.8,0\.9: "device\.gpu_memory_utilisation" is not a profile key/.test(e.message));
});

test('a bad --set value names the argument; an unknown axis key suggests the right one', () => {
  const { file } = workspace(BASE);
  assert.throws(() => loadSweep(file, { set: ['kv_cache.page_size=8,abc'] }), (e: unknown) => e instanceof UsageError && /^--set kv_cache\.page_size=8,abc \(value 2 of 2\): sweep point page_size=abc: kv_cache\.page_size must be an integer/.test(e.message));
  assert.throws(() => loadSweep(file, { set: ['kv_cache.page_sise=8'] }), (e: unknown) => e instanceof UsageError && /unknown key "page_sise" in kv_cache, did you mean "page_size"\?/.test(e.message));
  assert.throws(() => loadSweep(file, { set: ['kv_cache.page_size'] }), (e: unknown) => e instanceof UsageError && /expected key=value/.test(e.message));
  // A price as an axis (s44 newcomer M5: two identical simulations, neither priced): refused, pointing to sweep.gpu_hour_usd.
  assert.throws(() => loadSweep(file, { set: ['device.gpu_hour_usd=1,2'] }), (e: unknown) => e instanceof UsageError && /^--set device\.gpu_hour_usd=1,2: "device\.gpu_hour_usd" is no axis to sweep: a price changes no simulation.*sweep\.gpu_hour_usd: \{ "<GPU>": usd \}/.test(e.message));
  // In the file: at the key (line 6, column 5).
  const typo = workspace(`${BASE}sweep:\n  axes:\n    workload.max_num_seq: [1]\n`).file;
  assert.throws(() => loadSweep(typo), (e: unknown) => e instanceof InputError && e.line === 6 && e.column === 5 && /did you mean "max_num_seqs"/.test(e.message));
  // Overlapping axes and no axes at all.
  assert.throws(() => loadSweep(file, { set: ['kv_cache={page_size: 8}', 'kv_cache.page_size=16'] }), (e: unknown) => e instanceof UsageError && /overlap/.test(e.message));
  assert.throws(() => loadSweep(file), (e: unknown) => e instanceof UsageError && /has no sweep/.test(e.message));
  const badJob = workspace(`${BASE}sweep:\n  job: benchmark\n  axes: { kv_cache.page_size: [8] }\n`).file;
  assert.throws(() => loadSweep(badJob), (e: unknown) => e instanceof InputError && e.line === 5 && /sweep\.job must be one of simulate, max-rate, bench, both/.test(e.message));
});

test('a Slurm time limit is one of sbatch --time\'s formats, in the flag and in sweep.slurm.time', () => {
  // sbatch(1) --time: "minutes", "minutes:seconds", "hours:minutes:seconds", "days-hours",
  // "days-hours:minutes", "days-hours:minutes:seconds"; parse_time.c also takes INFINITE / UNLIMITED.
  // Minutes and seconds of 60 or more carry over, as Slurm's own unit test has them
  // (testsuite/slurm_unit/common/parse_time-test.c: "1:60:15" is 1·3600 + 60·60 + 15 s), so
  // 25:61:99 and 99:99:99 are limits sbatch takes (s36 newcomer asked for a refusal: none is due).
  // time_str2secs reads "-1" as INFINITE too (xstrcasecmp(string, "-1"), beside INFINITE / UNLIMITED); no other negative.
  for (const ok of ['30', '0', '30:15', '01:30:00', '99:99:99', '25:61:99', '1:60:15', '2-12', '2-12:30', '2-12:30:15', 'UNLIMITED', 'infinite', '-1']) assert.equal(slurmTimeProblem(ok), null, ok);
  for (const bad of ['99:99:99x', '1:2:3:4', '1-2-3', '1h', '', ' 30', '2-', ':30', '1.5', '-2', '-1:00', '--1']) assert.match(slurmTimeProblem(bad) ?? '', /is no Slurm time limit/, bad);
  // In the file: at the value (line 6, column 11), before any point runs.
  const file = workspace(`${BASE}sweep:\n  slurm:\n    time: 1h\n  axes: { kv_cache.page_size: [8] }\n`).file;
  assert.throws(() => loadSweep(file), (e: unknown) => e instanceof InputError && e.line === 6 && e.column === 11 && /sweep\.slurm\.time "1h" is no Slurm time limit/.test(e.message));
});

test('shards: round robin over the point index; --shard and the schedulers\' variables', () => {
  const points = Array.from({ length: 7 }, (_, index) => ({ index }));
  assert.deepEqual(shardPoints(points, { index: 1, count: 3 }).map((p) => p.index), [1, 4]);
  // Every point in exactly one shard.
  const all = [0, 1, 2].flatMap((i) => shardPoints(points, { index: i, count: 3 }).map((p) => p.index)).sort();
  assert.deepEqual(all, [0, 1, 2, 3, 4, 5, 6]);
  assert.deepEqual(parseShard('2/3'), { index: 2, count: 3 });
  assert.throws(() => parseShard('3/2'), { message: '--shard 3/2: i must be in 0..1 (shards count from 0 to N − 1)' });
  // No shard at all: said as such, not as "i must be in 0..-1".
  assert.throws(() => parseShard('0/0'), { message: '--shard 0/0: N (the number of shards) must be at least 1' });
  assert.throws(() => shardFromEnvironment({ JOB_COMPLETION_INDEX: '0', ATTNSCOPE_SHARD_COUNT: '0' }), { message: "shard 0/0 from JOB_COMPLETION_INDEX=0 of ATTNSCOPE_SHARD_COUNT=0: the shard count must be at least 1; give --shard i/N, or set ATTNSCOPE_SHARD_COUNT to the Job's completions" });
  // An index out of range names the variables it came from, as set, and the fix (newcomer report
  // s31 item 9: "shard 5/3 from the environment is not in 0..2" named neither).
  assert.throws(() => shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '5', SLURM_ARRAY_TASK_COUNT: '3' }), { message: 'shard 5/3 from SLURM_ARRAY_TASK_ID=5 of SLURM_ARRAY_TASK_COUNT=3 is not in 0..2: give --shard i/N, or submit with an sbatch --array of consecutive task IDs, one per shard (e.g. --array=0-2 for 3)' });
  // ID 0 of an array numbered from 1 (MIN 1) is shard -1: the MIN is named too.
  assert.throws(() => shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '0', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_COUNT: '3' }), { message: 'shard -1/3 from SLURM_ARRAY_TASK_ID=0 - SLURM_ARRAY_TASK_MIN=1 of SLURM_ARRAY_TASK_COUNT=3 is not in 0..2: give --shard i/N, or submit with an sbatch --array of consecutive task IDs, one per shard (e.g. --array=0-2 for 3)' });
  assert.throws(() => shardFromEnvironment({ JOB_COMPLETION_INDEX: '4', ATTNSCOPE_SHARD_COUNT: '4' }), { message: "shard 4/4 from JOB_COMPLETION_INDEX=4 of ATTNSCOPE_SHARD_COUNT=4 is not in 0..3: give --shard i/N, or set ATTNSCOPE_SHARD_COUNT to the Job's completions" });
  // sbatch --array=1-3 numbers tasks from 1: the shard counts from SLURM_ARRAY_TASK_MIN.
  assert.deepEqual(shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '3', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_COUNT: '3' }), { index: 2, count: 3, from: 'SLURM_ARRAY_TASK_ID=3 - SLURM_ARRAY_TASK_MIN=1 of SLURM_ARRAY_TASK_COUNT=3' });
  assert.deepEqual(shardFromEnvironment({ JOB_COMPLETION_INDEX: '4', ATTNSCOPE_SHARD_COUNT: '5' }), { index: 4, count: 5, from: 'JOB_COMPLETION_INDEX=4 of ATTNSCOPE_SHARD_COUNT=5' });
  assert.throws(() => shardFromEnvironment({ JOB_COMPLETION_INDEX: '0' }), /ATTNSCOPE_SHARD_COUNT/);
  assert.equal(shardFromEnvironment({}), null);
});

const ENV_A: Environment = { os: 'linux', arch: 'x64', cpuModel: 'CPU A', cpuCores: 8, simd: 'avx2', cpuFeatures: [], threads: 8, nodeVersion: 'v22', toolVersion: '0.1.0' };
const ENV_B: Environment = { ...ENV_A, gpu: { name: 'NVIDIA H200', smCount: 132, memoryBytes: 150e9, driver: '1', runtime: '1' } };

/**
 * Writes point files of `plan` as `sweep` would, with a fake pool summary whose pool pages = 1000 + index
 * and, given `decodeNs`, one paged_decode case (B=1, context 256) with that median and p10/p90 1 % either side.
 */
function writePoint(dir: string, plan: SweepPlan, index: number, env: Environment, sweepId = plan.sweepId, decodeNs?: number, storedKey?: string): string {
  const p = plan.points[index]!;
  const envKey = storedKey ?? environmentKey(env);
  const cases = decodeNs === undefined ? [] : [{ kernel: 'paged_decode', shape: { batchSize: 1, seqLenK: 256 }, medianNs: decodeNs, p10Ns: decodeNs * 0.99, p90Ns: decodeNs * 1.01 }];
  const run = {
    schema: 1, tool: 't', createdAt: '', name: 'x', profile: p.profile, environment: env, estimate: {}, cases, status: 'ok',
    pool: { numPages: 1000 + index, pageSize: p.profile.kvCache.pageSize, samples: [], baselines: [], summary: { meanInternalFragmentation: 0.25, prefixHitRate: 0.5, preemptions: index, meanOccupancy: 0.5, throughputTokensPerSec: 10, rejected: 0 } },
    sweep: { schema: 1, sweepId, name: plan.name, job: plan.job, total: plan.points.length, axes: plan.axes, id: p.id, index: p.index, values: p.values, label: p.label, environmentKey: envKey },
  } as unknown as SweepPointRun;
  mkdirSync(dir, { recursive: true });
  const file = join(dir, pointFileName(p.id, envKey));
  writeFileSync(file, JSON.stringify(run));
  return file;
}

// s49 sweepv's left item 7: each sweepPoints event (a running sweep's points so far) re-read every point file.
test('merge through a PointFileCache reads only the point files new or changed since its last merge, and merges the same report', () => {
  const plan = loadSweep(workspace(`${BASE}sweep:\n  axes:\n    kv_cache.page_size: [8, 16, 32, 64]\n`).file);
  const out = tempDir('attnscope-cache-');
  const cache = new PointFileCache();
  writePoint(out, plan, 0, ENV_A);
  writePoint(out, plan, 1, ENV_A);
  mergeResults([out], { cache });
  assert.equal(cache.reads, 2);
  // A third point saved: one read more, not three.
  writePoint(out, plan, 2, ENV_A);
  const r3 = mergeResults([out], { cache });
  assert.equal(cache.reads, 3);
  assert.deepEqual(r3.rows.map((r) => r.metrics.poolPages), [1000, 1001, 1002]);
  // Nothing new: no read. A point rewritten (another machine's file of point 0 replaced under the same name): read again.
  mergeResults([out], { cache });
  assert.equal(cache.reads, 3);
  const file = writePoint(out, plan, 0, ENV_A);
  const point = JSON.parse(readFileSync(file, 'utf8')) as SweepPointRun;
  point.pool!.numPages = 4242;
  writeFileSync(`${file}.tmp`, JSON.stringify(point));
  renameSync(`${file}.tmp`, file);
  const again = mergeResults([out], { cache });
  assert.equal(cache.reads, 4);
  assert.deepEqual(again.rows.map((r) => r.metrics.poolPages), [4242, 1001, 1002]);
  // The same report as a merge that reads every file, but for its creation time.
  assert.deepEqual({ ...again, createdAt: '' }, { ...mergeResults([out]), createdAt: '' });
});

test('merge: rows in point order, missing and duplicated points listed, environments of a measured sweep kept apart', () => {
  const plan = loadSweep(workspace(`${BASE}sweep:\n  job: both\n  axes:\n    kv_cache.page_size: [8, 16, 32, 64]\n`).file);
  const root = tempDir('attnscope-merge-');
  writePoint(join(root, 'm1'), plan, 2, ENV_A);
  writePoint(join(root, 'm1'), plan, 0, ENV_A);
  writePoint(join(root, 'm2'), plan, 0, ENV_A); // the same point and machine kind again: a duplicate
  writePoint(join(root, 'm2'), plan, 0, ENV_B); // the same point on a GPU machine: a second row
  writeFileSync(join(root, 'm2', 'notes.json'), '{"hello": 1}');
  const skipped: string[] = [];
  const r = mergeResults([join(root, 'm1'), join(root, 'm2')], { onSkip: (f) => skipped.push(f) });
  assert.deepEqual(r.rows.map((row) => [row.index, row.environmentKey]), [[0, environmentKey(ENV_A)], [0, environmentKey(ENV_B)], [2, environmentKey(ENV_A)]]);
  assert.deepEqual(r.missing.map((p) => p.label), ['page_size=16', 'page_size=64']);
  assert.equal(r.duplicates.length, 1);
  assert.equal(r.duplicates[0]!.environmentKey, environmentKey(ENV_A));
  assert.deepEqual(skipped, [join(root, 'm2', 'notes.json')]);
  assert.equal(r.rows[2]!.metrics.poolPages, 1002);
  assert.equal(Object.keys(r.environments).length, 2);
  const text = formatReport(r);
  assert.match(text, /env B \([0-9a-f]{8}\): NVIDIA H200 · CPU A \(8 cores, x64, avx2\)/);
  assert.match(text, /missing 2 points: page_size=16; page_size=64/);
});

test('merge names a point file cut short: where it stops, that it looks cut short, and what to do; other JSON errors at their place', () => {
  const plan = loadSweep(workspace(`${BASE}sweep:\n  axes:\n    kv_cache.page_size: [8, 16]\n`).file);
  const root = tempDir('attnscope-merge-cut-');
  writePoint(root, plan, 0, ENV_A);
  const cut = writePoint(root, plan, 1, ENV_A);
  // Cut after `{\n  "schema": 1,\n  "na`: the file ends on line 3 after 5 characters, so at 3:6.
  writeFileSync(cut, '{\n  "schema": 1,\n  "na');
  const garbled = join(root, 'garbled.json');
  writeFileSync(garbled, '{\n  "schema": 1,\n  "name": x\n}\n');
  // Not JSON at all, though its one error runs to the end (s36 newcomer: 'garbage' read as cut short).
  const garbage = join(root, 'garbage.json');
  writeFileSync(garbage, 'garbage');
  // A trailing comma before the last brace: its error ends at the end too, and it is no prefix of JSON.
  const trailing = join(root, 'trailing.json');
  writeFileSync(trailing, '{"a": 1,}');
  // Cut inside `true`: a prefix of valid JSON, so cut short, at its end (1:10).
  const literal = join(root, 'literal.json');
  writeFileSync(literal, '{"a": tru');
  const skipped: Array<[string, number, number, string]> = [];
  const r = mergeResults([root], { onSkip: (f, { line = 1, column = 1, why }) => skipped.push([f, line, column, why]) });
  assert.deepEqual(r.missing.map((p) => p.label), ['page_size=16']);
  assert.deepEqual(skipped.map(([f, line, column]) => [f, line, column]).sort(), [[cut, 3, 6], [garbled, 3, 11], [garbage, 1, 1], [trailing, 1, 9], [literal, 1, 10]].sort());
  assert.equal(skipped.find(([f]) => f === garbage)![3], 'not JSON: unquoted text or a character JSON does not allow');
  assert.match(skipped.find(([f]) => f === trailing)![3], /^not JSON: /);
  assert.match(skipped.find(([f]) => f === literal)![3], /^the JSON stops unfinished at the end of the file \(9 bytes\): it looks cut short/);
  const cutWhy = skipped.find(([f]) => f === cut)![3];
  assert.match(cutWhy, /^the JSON stops unfinished at the end of the file \(22 bytes\): it looks cut short/);
  assert.match(cutWhy, /rerun `attnscope sweep` with this folder as --out/);
  assert.equal(skipped.find(([f]) => f === garbled)![3], 'not JSON: unquoted text or a character JSON does not allow');
});

// s53 newcomer 1: a point file edited by hand ("meanOccupancy": "abc", "kind": "simulat") was merged silently, its figure "—".
test('merge skips a point file with a value of another kind than the run schema gives it, at that value; a file lacking a key of a later build is merged', () => {
  const plan = loadSweep(workspace(`${BASE}sweep:\n  axes:\n    kv_cache.page_size: [8, 16, 32]\n`).file);
  const root = tempDir('attnscope-merge-kind-');
  /** Point `index` written with `edit` made to it, pretty-printed; the line and column (from 1) of `needle`'s value in it, counted from its lines. */
  const edited = (index: number, edit: (run: Record<string, unknown>) => void, needle: string) => {
    const file = writePoint(root, plan, index, ENV_A);
    const run = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    edit(run);
    const text = JSON.stringify(run, null, 2);
    writeFileSync(file, text);
    const lines = text.split('\n');
    const line = lines.findIndex((l) => l.includes(needle));
    return { file, line: line + 1, column: lines[line]!.indexOf(needle) + needle.indexOf(':') + 3 };
  };
  const occupancy = edited(0, (run) => ((run.pool as { summary: Record<string, unknown> }).summary.meanOccupancy = 'abc'), '"meanOccupancy": "abc"');
  const kind = edited(1, (run) => (run.kind = 'simulat'), '"kind": "simulat"');
  // No `status` (a key every run has now): a file of another build, merged as it is.
  edited(2, (run) => delete run.status, '"schema"');
  const skipped: Array<[string, number, number, string]> = [];
  const r = mergeResults([root], { onSkip: (f, { line = 1, column = 1, why }) => skipped.push([f, line, column, why]) });
  assert.deepEqual(r.rows.map((row) => row.label), ['page_size=32']);
  assert.deepEqual(r.missing.map((p) => p.label), ['page_size=8', 'page_size=16']);
  assert.deepEqual(skipped.map(([f, line, column]) => [f, line, column]).sort(), [[occupancy.file, occupancy.line, occupancy.column], [kind.file, kind.line, kind.column]].sort());
  assert.match(skipped.find(([f]) => f === occupancy.file)![3], /^pool\.summary\.meanOccupancy is the string "abc", where a run file has a number: not a point file as sweep writes it/);
  assert.match(skipped.find(([f]) => f === kind.file)![3], /^kind is the string "simulat", where a run file has "bench" or "simulate": /);
});

/** A report row of page size `ps` with these figures. */
const row = (ps: number, metrics: SweepMetrics): SweepReportRow => ({ id: `p${ps}`, index: ps, values: { 'kv_cache.page_size': ps }, label: `page_size=${ps}`, environmentKey: 'e', status: 'ok', metrics, file: `p${ps}.json` });

test('best point: a decode time whose median lies inside the other\'s p10–p90 range is a tie, and the report says so', () => {
  // page_size=16: median 1.00 ms, p10–p90 0.90–1.20 ms; page_size=32: 1.10 ms, p10–p90 1.05–1.15 ms.
  // 1.10 lies inside 0.90–1.20: tied. page_size=8: 1.50 ms (1.48–1.53): outside both, not tied.
  const ms = (x: number) => x * 1e6;
  const rows = [
    row(8, { decodeNsPerToken: ms(1.5), decodeP10NsPerToken: ms(1.48), decodeP90NsPerToken: ms(1.53), rejected: 0 }),
    row(16, { decodeNsPerToken: ms(1.0), decodeP10NsPerToken: ms(0.9), decodeP90NsPerToken: ms(1.2), rejected: 0 }),
    row(32, { decodeNsPerToken: ms(1.1), decodeP10NsPerToken: ms(1.05), decodeP90NsPerToken: ms(1.15), rejected: 0 }),
  ];
  const best = bestRow(rows)!;
  assert.equal(best.row.label, 'page_size=16');
  assert.deepEqual(best.tiedWith.map((r) => r.label), ['page_size=32']);
  assert.match(best.tie, /^tied with page_size=32: tied within measurement noise/);
  // Tight ranges: 1.10 is outside 0.98–1.03 and 1.00 outside 1.08–1.13, so page_size=16 is the clear best.
  const tight = bestRow([row(16, { decodeNsPerToken: ms(1.0), decodeP10NsPerToken: ms(0.98), decodeP90NsPerToken: ms(1.03), rejected: 0 }), row(32, { decodeNsPerToken: ms(1.1), decodeP10NsPerToken: ms(1.08), decodeP90NsPerToken: ms(1.13), rejected: 0 })])!;
  assert.deepEqual(tight.tiedWith, []);
  assert.equal(tight.tie, '');
  // A newcomer's loaded run of examples/page-size.attn.yaml: page_size=1 at 3.89 ms per token
  // (p10–p90 2.05–5.62), page_size=8 at 0.584 (0.29–1.01). The medians differ by 3.3 ms, within
  // page_size=1's 3.57 ms spread (the old rule called them tied), but neither median is in the other's range.
  const loaded = bestRow([row(1, { decodeNsPerToken: ms(3.89), decodeP10NsPerToken: ms(2.05), decodeP90NsPerToken: ms(5.62), rejected: 0 }), row(8, { decodeNsPerToken: ms(0.584), decodeP10NsPerToken: ms(0.29), decodeP90NsPerToken: ms(1.01), rejected: 0 })])!;
  assert.equal(loaded.row.label, 'page_size=8');
  assert.deepEqual(loaded.tiedWith, []);
  // Simulated throughputs within 1 % tie (7,752 and 7,751 tokens/s: 0.013 % apart); with no
  // latency or occupancy to rank them, the first listed is named.
  const sim = bestRow([row(8, { throughputTokensPerSec: 7752, rejected: 0 }), row(16, { throughputTokensPerSec: 7752, rejected: 0 }), row(32, { throughputTokensPerSec: 7751, rejected: 0 })])!;
  assert.equal(sim.row.label, 'page_size=8');
  assert.match(sim.tie, /^tied with page_size=16, page_size=32: simulated throughput within 1%/);
});

test('best point: throughputs within 1 % are ranked by p99 TTFT, then KV bytes held, not by which is listed first', () => {
  // The newcomer's sweep (s27 finding 10): no rejections, so throughput is the offered load. The
  // old rule took the highest throughput, first listed on a tie: page_size=8 with p99 TTFT 4.87 s.
  const rows = [
    row(8, { throughputTokensPerSec: 3000, p99TtftS: 4.87, meanOccupancy: 0.5, poolPages: 4000, rejected: 0 }),
    // 2,990 is 0.33 % below 3,000: tied. p99 TTFT 0.169 s, the lowest; 0.4 · 2000 · 16 = 12,800 slots.
    row(16, { throughputTokensPerSec: 2990, p99TtftS: 0.169, meanOccupancy: 0.4, poolPages: 2000, rejected: 0 }),
    // Same TTFT as page_size=16 but 0.5 · 1000 · 32 = 16,000 slots held: loses on KV memory.
    row(32, { throughputTokensPerSec: 2995, p99TtftS: 0.169, meanOccupancy: 0.5, poolPages: 1000, rejected: 0 }),
    // 2,900 is 3.3 % below: not tied, whatever its TTFT (0.1 s).
    row(64, { throughputTokensPerSec: 2900, p99TtftS: 0.1, meanOccupancy: 0.1, poolPages: 500, rejected: 0 }),
  ];
  const best = bestRow(rows)!;
  assert.equal(best.row.label, 'page_size=16');
  assert.deepEqual(best.tiedWith.map((r) => r.label), ['page_size=8', 'page_size=32']);
  // Three points within 1 %: latency ranked them, and the rule leads with what chose page_size=16 (its p99 TTFT equals page_size=32's: the KV bytes held).
  assert.match(best.rule, /^fewest KV bytes held at the lowest p99 TTFT \(169 ms\) among the 3 points within 1% of the highest simulated throughput that reject no request: simulated throughput within 1% does not rank them; latency does: a point vLLM runs first, then the lower p99 TTFT \(one seeded run's: a workload\.seed axis shows its spread; within 1% a tie\), then the fewer KV bytes held \(mean occupancy · pages · bytes of a page: page_size · KV bytes per token, or for a hybrid pool page_size · the bytes of one KV-cache group's layers\)/);
  // With an SLO the same rule ranks goodput.
  const slo = bestRow(rows.map((r) => ({ ...r, metrics: { ...r.metrics, sloAttainment: 0.95, goodputRequestsPerSec: r.metrics.throughputTokensPerSec! / 100 } })))!;
  assert.equal(slo.row.label, 'page_size=16');
  assert.match(slo.rule, /^fewest KV bytes held at the lowest p99 TTFT \(169 ms\) among the 3 points within 1% of the highest simulated goodput where >= 90% of requests meet the profile's SLO: simulated goodput within 1% does not rank them; latency does/);
});

test('best point: across a tensor_parallel_size axis, goodput is ranked per GPU, and the report says what the step times leave out', () => {
  // The s38 newcomer's Llama-3.1-70B sweep (H100 SXM, SLO TTFT 1 s / TPOT 100 ms): goodput 9.32
  // requests/s at tp 8 and 5.89 at tp 4. Raw goodput picks tp 8; per GPU 9.32 / 8 = 1.165 against
  // 5.89 / 4 = 1.4725 requests/s, so tp 4 gives more for each GPU.
  const tpRow = (tp: number, goodput: number): SweepReportRow => ({
    id: `t${tp}`, index: tp, values: { 'device.tensor_parallel_size': tp }, label: `tensor_parallel_size=${tp}`, environmentKey: 'e', status: 'ok', file: `t${tp}.json`,
    metrics: { gpus: tp, sloAttainment: 0.95, goodputRequestsPerSec: goodput, rejected: 0 }, unmodelled: [`the communication between the ${tp} tensor-parallel GPUs`],
  });
  const rows = [tpRow(2, 2.1), tpRow(4, 5.89), tpRow(8, 9.32)];
  const best = bestRow(rows)!;
  assert.equal(best.row.label, 'tensor_parallel_size=4');
  assert.match(best.rule, /^highest simulated goodput per GPU \(the points use different GPU counts, tensor_parallel_size × pipeline_parallel_size × data_parallel_size: each rate \/ its GPUs\) among points where/);
  // One GPU count for all: the raw rate, no per-GPU words.
  const same = bestRow(rows.map((r) => ({ ...r, metrics: { ...r.metrics, gpus: 8 } })))!;
  assert.equal(same.row.label, 'tensor_parallel_size=8');
  assert.doesNotMatch(same.rule, /per GPU/);
  const report = { rows, environments: { e: ENV_A } } as unknown as SweepReport;
  const note = sweepProvenance(report).find((n) => n.startsWith('not modelled'));
  assert.equal(note, 'not modelled in the step times: the communication between the 2 tensor-parallel GPUs, the communication between the 4 tensor-parallel GPUs, the communication between the 8 tensor-parallel GPUs (the all-reduce after every attention and MLP block: its cost grows with tensor_parallel_size, so the points with more GPUs are flattered)');
  // Points simulated since the all-reduce is charged (s41) list only what it leaves out, no word of flattery.
  const unmodelled = ["FlashInfer's all-reduce (+ RMSNorm fusion) where enabled and the logits' all-gather over the tensor-parallel GPUs"];
  const now = { rows: rows.map((r) => ({ ...r, unmodelled })), environments: { e: ENV_A } } as unknown as SweepReport;
  assert.equal(sweepProvenance(now).find((n) => n.startsWith('not modelled')), `not modelled in the step times: ${unmodelled[0]}`);
});

test('best point: a tie across KV dtypes goes to the fewer KV bytes held, not the fewer slots (an fp8 slot is half an fp16 one)', () => {
  // Llama-3.1-8B: 32 layers · 2 (K, V) · 8 KV heads · 128 head_dim = 65,536 values a token:
  // 131,072 bytes in fp16, 65,536 in fp8. Same throughput and p99 TTFT, page_size 16 on both.
  const dtypeRow = (dtype: string, metrics: SweepMetrics): SweepReportRow => ({
    id: dtype, index: dtype === 'auto' ? 0 : 1, values: { 'kv_cache.dtype': dtype }, label: `dtype=${dtype}`, environmentKey: 'e', status: 'ok', metrics, file: `${dtype}.json`,
  });
  const tie = { throughputTokensPerSec: 3000, p99TtftS: 0.169, rejected: 0 };
  const rows = [
    // 0.5 · 1000 pages = 500 pages held (8,000 slots of 16): 500 · 16 · 131,072 B = 1.05 GB.
    dtypeRow('auto', { ...tie, meanOccupancy: 0.5, poolPages: 1000, kvBytesPerToken: 131_072 }),
    // fp8 fits twice the pages in the same memory and holds more of them, 0.3 · 2000 = 600 pages
    // (9,600 slots, more than fp16's 8,000): 600 · 16 · 65,536 B = 0.63 GB, the fewer bytes.
    dtypeRow('fp8', { ...tie, meanOccupancy: 0.3, poolPages: 2000, kvBytesPerToken: 65_536 }),
  ];
  const best = bestRow(rows)!;
  assert.equal(best.row.label, 'dtype=fp8');
  assert.deepEqual(best.tiedWith.map((r) => r.label), ['dtype=auto']);
  assert.match(best.tie, /so the tie went to a point vLLM runs, then to the lower p99 TTFT \(within 1% a tie\), then to fewer KV bytes held$/);
});

test('best point: a hybrid pool\'s page holds one KV-cache group\'s layers, and the tie-break counts its bytes, not page_size · KV bytes per token (s34 newcomer-cli 12)', () => {
  // gemma-3-1b: 26 layers · 2 (K, V) · 1 KV head · 256 head_dim · 2 B = 26,624 B a token; its
  // hybrid pool's block holds 16 tokens of one group of 4 layers: 16 · 4 · 1,024 B = 65,536 B,
  // where 16 · 26,624 B = 425,984 B is 6.5 times that. A uniform model of 4,096 B a token has a
  // 16-token page of 65,536 B too. Same throughput and p99 TTFT.
  const modelRow = (model: string, metrics: SweepMetrics): SweepReportRow => ({
    id: model, index: model === 'uniform' ? 0 : 1, values: { model }, label: `model=${model}`, environmentKey: 'e', status: 'ok', metrics, file: `${model}.json`,
  });
  const tie = { throughputTokensPerSec: 3000, p99TtftS: 0.169, rejected: 0 };
  const rows = [
    // 0.5 · 1000 = 500 pages held · 65,536 B = 32.8 MB.
    modelRow('uniform', { ...tie, meanOccupancy: 0.5, poolPages: 1000, kvBytesPerToken: 4096, pageBytes: 65_536 }),
    // 0.2 · 2000 = 400 blocks held · 65,536 B = 26.2 MB, the fewer; page_size · KV bytes per
    // token would count 400 · 425,984 B = 170 MB and pick the uniform model.
    modelRow('gemma', { ...tie, meanOccupancy: 0.2, poolPages: 2000, kvBytesPerToken: 26_624, pageBytes: 65_536 }),
  ];
  const best = bestRow(rows)!;
  assert.equal(best.row.label, 'model=gemma');
  assert.match(best.rule, /fewer KV bytes held \(mean occupancy · pages · bytes of a page: page_size · KV bytes per token, or for a hybrid pool page_size · the bytes of one KV-cache group's layers\)$/);
});

test('a point\'s figures keep its KV bytes per token and of a page (the memory estimate\'s), which the tie-break weighs pages by', () => {
  // The recorded run: Llama-3.1-8B in bf16, 32 layers · 2 (K, V) · 8 KV heads · 128 head_dim · 2 bytes = 131,072.
  assert.equal(metricsOf(recorded).kvBytesPerToken, 131_072);
  assert.equal(metricsOf(recorded).gpus, recorded.profile.device.tensorParallelSize);
  // tp 4 × pp 2 is 8 GPUs (vLLM's world size: tensor_parallel_size · pipeline_parallel_size), not 4.
  assert.equal(metricsOf({ ...recorded, profile: { ...recorded.profile, device: { ...recorded.profile.device, tensorParallelSize: 4, pipelineParallelSize: 2 } } }).gpus, 8);
  // A uniform pool's page: page_size · 131,072 B.
  assert.equal(metricsOf(recorded).pageBytes, recorded.profile.kvCache.pageSize * 131_072);
  // No pool, no pool figures: not this one either.
  assert.equal(metricsOf({ ...recorded, pool: undefined }).kvBytesPerToken, undefined);
});

// s41 newcomer-ed F5: the sweep's exports said neither what the step times assumed nor the goodput per GPU the best rule ranks by.
test('a point keeps its step-time settings, each said assumed or the profile\'s, the all-reduce\'s under tp, and its goodput per GPU', () => {
  // The recorded run (tp 1, no step_time in its profile): the model's defaults 0.6 / 0.8 / 0 ms, all three assumed; no all-reduce.
  assert.deepEqual(stepTimeAssumptionsOf(recorded), { computeEfficiency: 0.6, memoryEfficiency: 0.8, overheadMs: 0, assumed: ['compute_efficiency', 'memory_efficiency', 'overhead_ms'] });
  // tp 2 with compute_efficiency, overhead_ms and all_reduce.latency_us written: those the profile's, memory_efficiency assumed; the
  // all-reduce's efficiencies at vLLM PR #24111's H100 fit (one-shot 0.85, two-shot 0.5, multimem 0.55 of the link: step-time.ts ALL_REDUCE_EFFICIENCY's comment).
  const tp2 = exampleProfile('model: ./llama-3.1-8b/config.json\ndevice: { gpu: H100 SXM, tensor_parallel_size: 2 }\nstep_time: { compute_efficiency: 0.5, overhead_ms: 1.5, all_reduce: { latency_us: 20 } }\n');
  const run = { ...recorded, profile: tp2, pool: { ...recorded.pool!, stepTime: stepTimeModel(tp2) } };
  assert.deepEqual(stepTimeAssumptionsOf(run), {
    computeEfficiency: 0.5, memoryEfficiency: 0.8, overheadMs: 1.5, assumed: ['memory_efficiency'],
    // NCCL's ring past 4 MiB at 0.82 on H100 SXM NVLink (370 GB/s of 450, NVIDIA/nccl-tests#212).
    allReduce: { oneShotEfficiency: 0.85, twoShotEfficiency: 0.5, multimemEfficiency: 0.55, ringEfficiency: 0.82, latencyS: 20 * 1e-6, given: ['latency_us'] },
  });
  // On a bridged A100 PCIe 80GB pair the ring's own measured 0.69 (208 GB/s of 300, NVIDIA/nccl-tests#178), in the CSV's column.
  const bridged = exampleProfile('model: ./llama-3.1-8b/config.json\ndevice: { gpu: A100 PCIe 80GB, tensor_parallel_size: 2 }\n');
  const bridgedRun = { ...recorded, profile: bridged, pool: { ...recorded.pool!, stepTime: stepTimeModel(bridged) } };
  assert.equal(stepTimeAssumptionsOf(bridgedRun)!.allReduce!.ringEfficiency, 0.69);
  // Its ring calls pay the runner's step latency, which the report carries for the Sweep tab to print (s48 review: it printed a literal "~3.3 µs");
  // under the profile's latency_us (tp2 above) every call pays that instead, and no step figure is written.
  assert.equal(stepTimeAssumptionsOf(bridgedRun)!.allReduce!.ringStepLatencyS, RING_STEP_LATENCY_S);
  // tp 8 on H100 SXM: NCCL runs its NVLink SHARP all-reduce past 4 MiB, at 480 GB/s bus bandwidth (NVIDIA/nccl#1455; s49);
  // the ring's 0.82 stays beside it. tp 2 above has none (NVLS's busbw at 2-4 GPUs is the ring's).
  const tp8 = exampleProfile('model: ./llama-3.1-8b/config.json\ndevice: { gpu: H100 SXM, tensor_parallel_size: 8 }\n');
  const tp8Run = { ...recorded, profile: tp8, pool: { ...recorded.pool!, stepTime: stepTimeModel(tp8) } };
  assert.equal(stepTimeAssumptionsOf(tp8Run)!.allReduce!.nvlsBusBytesPerSec, 480e9);
  // s50: its calls pay NVLS's own 56.7 µs (fitted to Azure's 8-H200 table), which the report carries; under latency_us none.
  assert.equal(stepTimeAssumptionsOf(tp8Run)!.allReduce!.nvlsLatencyS, 56.7e-6);
  const tp8Lat = exampleProfile('model: ./llama-3.1-8b/config.json\ndevice: { gpu: H100 SXM, tensor_parallel_size: 8 }\nstep_time: { all_reduce: { latency_us: 8 } }\n');
  const tp8LatRun = { ...recorded, profile: tp8Lat, pool: { ...recorded.pool!, stepTime: stepTimeModel(tp8Lat) } };
  assert.equal(stepTimeAssumptionsOf(tp8LatRun)!.allReduce!.nvlsBusBytesPerSec, 480e9);
  assert.equal(stepTimeAssumptionsOf(tp8LatRun)!.allReduce!.nvlsLatencyS, undefined);
  assert.equal(stepTimeAssumptionsOf(tp8Run)!.allReduce!.ringEfficiency, 0.82);
  // s51: a card with NVLS's bus bandwidth but no fitted NVLS α (H100 SXM's row less it, hypothetical) pays the ring's steps:
  // the report carries the ring's step latency and no NVLS α, so the Sweep tab names the ring's steps, not NVLS's latency.
  const { nvlsAllReduceLatencyS: _alpha, nvlsAllReduceLatencySource: _alphaSource, ...h100 } = gpuByName('H100 SXM')!;
  const noAlpha = { ...tp8, device: { ...tp8.device, gpu: 'H100 SXM without an NVLS α', gpuSpec: { ...h100, name: 'H100 SXM without an NVLS α' } } };
  const noAlphaReport = stepTimeAssumptionsOf({ ...recorded, profile: noAlpha, pool: { ...recorded.pool!, stepTime: stepTimeModel(noAlpha) } })!.allReduce!;
  assert.equal(noAlphaReport.nvlsBusBytesPerSec, 480e9);
  assert.equal(noAlphaReport.nvlsLatencyS, undefined);
  assert.equal(noAlphaReport.ringStepLatencyS, RING_STEP_LATENCY_S);
  // Goodput per GPU: goodput / (tp · pp · dp); 6 requests/s on tp 2 × dp 2 is 1.5 per GPU.
  const lat = { ...recorded.pool!.latency!, goodputRequestsPerSec: 6 };
  const four = { ...run, profile: { ...tp2, device: { ...tp2.device, dataParallelSize: 2 } }, pool: { ...run.pool, latency: lat } };
  assert.equal(metricsOf(four).goodputPerGpuRequestsPerSec, 1.5);
  // Coefficients given by a caller name no efficiency: nothing to say.
  assert.equal(stepTimeAssumptionsOf({ ...recorded, pool: { ...recorded.pool!, stepTime: { ...recorded.pool!.stepTime!, computeEfficiency: undefined } } }), undefined);
});

test('where the figures come from: one set of sentences (core/sweepFigures sweepProvenance), which the CLI prints under its table', () => {
  const report = {
    schema: 1, kind: 'attnscope-sweep-report', tool: 't', createdAt: '', sweepId: 's', name: 'p.attn.yaml', job: 'both', total: 1,
    axes: [{ key: 'kv_cache.page_size', values: [16] }],
    rows: [{ ...row(16, { throughputTokensPerSec: 10, rejected: 0, p99TtftS: 0.2, decodeNsPerToken: 1000, decodeCase: 'B=8 context=4096' }), environmentKey: 'a' }],
    missing: [], duplicates: [], environments: { a: ENV_A }, best: null,
  } satisfies SweepReport;
  const sources = [
    'pool figures: modelled, the page-pool simulation of each point (as `attnscope simulate`; vLLM V1 scheduling), time-averaged',
    'decode time per token: measured, the paged_decode median on CPU A (8 cores, x64, avx2) / batch size, at the largest decode case (B=8 context=4096)',
    "p99 TTFT / TPOT, SLO met, goodput: modelled, on the simulation's step-time clock, each step overhead + max(memory, compute) + the tensor-parallel all-reduces: a roofline on the profile's GPU",
  ];
  assert.deepEqual(sweepProvenance(report), sources);
  assert.deepEqual(formatReport(report).split('\n').slice(-3), sources);
  // A simulation without latency: the pool sentence alone; two machine kinds: the row's env.
  assert.deepEqual(sweepProvenance({ ...report, rows: [row(16, { throughputTokensPerSec: 10 })] }), sources.slice(0, 1));
  assert.match(sweepProvenance({ ...report, environments: { a: ENV_A, b: ENV_B } })[1]!, /median on each point's machine \(its env letter\) \/ batch size/);
  // A report whose rows name no decode case (older reports): the sentence ends at "case", with no "(-)" for the unknown.
  const noCase = { ...report, rows: [{ ...report.rows[0]!, metrics: { ...report.rows[0]!.metrics, decodeCase: undefined } }] };
  assert.equal(sweepProvenance(noCase)[1], sources[1]!.replace(' (B=8 context=4096)', ''));
  // s46: the GPU the step times were modelled for is the rows' own (SweepReportRow.gpu): a sweep over device.gpu
  // (H100 SXM, A100 80GB, as `sweep --set 'device.gpu=H100 SXM,A100 80GB'` ran) has each point's, where it said "the profile's GPU".
  const [first] = report.rows;
  assert.equal(sweepProvenance({ ...report, rows: [{ ...first, gpu: 'H100 SXM' }, { ...first, gpu: 'A100 80GB' }] }).at(-1), `${sources[2]!.replace(/the profile's GPU$/, '')}each point's GPU`);
  // One GPU: named.
  assert.equal(sweepProvenance({ ...report, rows: [{ ...first, gpu: 'H100 SXM' }] }).at(-1), `${sources[2]!.replace(/the profile's GPU$/, '')}H100 SXM`);
});

// s52: the CSV and JSON carried the mark (decode_from_cache_measured), the table and its notes did not.
test('a decode time read from cache: "(from cache)" in its cell and bench\'s words in a note naming the point, CLI and Sweep tab alike', () => {
  const words = 'from cache: its pages read alone came at 2.42x a DRAM read (76.3 GB/s against 31.5 GB/s, one thread each); not a DRAM figure';
  const cached = { decodeNsPerToken: 1000, decodeCase: 'B=1 context=1024', decodeFromCache: 'read-rate' as const, decodeFromCacheText: words };
  const report = {
    schema: 1, kind: 'attnscope-sweep-report', tool: 't', createdAt: '', sweepId: 's', name: 'p.attn.yaml', job: 'bench', total: 2,
    axes: [{ key: 'kv_cache.page_size', values: [16, 32] }],
    rows: [{ ...row(16, cached), environmentKey: 'a' }, { ...row(32, { decodeNsPerToken: 2000, decodeCase: 'B=1 context=1024' }), environmentKey: 'a' }],
    missing: [], duplicates: [], environments: { a: ENV_A }, best: null,
  } satisfies SweepReport;
  const note = `decode time per token (from cache) at page_size=16: ${words}`;
  assert.deepEqual(sweepProvenance(report).slice(0, 2), [
    'decode time per token: measured, the paged_decode median on CPU A (8 cores, x64, avx2) / batch size, at the largest decode case (B=1 context=1024)',
    note,
  ]);
  const text = formatReport(report);
  // 1000 ns = "1 µs"; page_size 32 is not marked.
  assert.match(text, /^16 +1 µs \(from cache\)$/m);
  assert.match(text, /^32 +2 µs$/m);
  assert.ok(text.split('\n').includes(note), text);
  // A report merged before the words were kept: the enum alone, the note without them.
  const older = { ...report, rows: [{ ...report.rows[0]!, metrics: { ...cached, decodeFromCacheText: undefined } }, report.rows[1]!] };
  assert.equal(sweepProvenance(older)[1], 'decode time per token (from cache) at page_size=16: from cache; not a DRAM figure');
});

test('the report table formats its figures as core/format does: percentages, counts with separators, the tie under the best', () => {
  const plan = loadSweep(workspace(`${BASE}sweep:\n  axes:\n    kv_cache.page_size: [8, 16]\n`).file);
  const dir = tempDir('attnscope-merge-');
  writePoint(dir, plan, 0, ENV_A);
  writePoint(dir, plan, 1, ENV_A);
  const text = formatReport(mergeResults([dir]));
  // writePoint's figures: fragmentation 0.25 -> "25.0%", pool pages 1000 + index -> "1,001".
  assert.match(text, /^16 +25\.0% +50\.0% +1 +1,001 +50\.0% +10 +0$/m);
  // Both points simulate 10 tokens/s: page_size=8 is named, and the tie beside it.
  // Neither has a p99 TTFT: the fewer KV bytes held (0.5 · 1,000 · 8 against 0.5 · 1,001 · 16 slots) ranked them.
  assert.match(text, /best: page_size=8 — fewest KV bytes held among the 2 points at the highest simulated throughput .*\n +tied with page_size=16: simulated throughput within 1%/);
});

test('merge of one sweep from two machines: each tied point carries its env letter, so a point is not tied with itself', () => {
  // s31 newcomer: `merge slurmb mB` printed "best: page_size=16 (env A) ... tied with page_size=8,
  // page_size=8, page_size=16". Here both points ran on both machine kinds, all four at writePoint's
  // 10 tokens/s (tied within 1 %) and no p99 TTFT, so fewer KV bytes held picks: page_size=8 holds
  // 0.5 · 1000 pages · 8 = 4,000 slots, page_size=16 0.5 · 1001 · 16 = 8,008; env A is read first.
  const plan = loadSweep(workspace(`${BASE}sweep:\n  job: both\n  axes:\n    kv_cache.page_size: [8, 16]\n`).file);
  const root = tempDir('attnscope-merge-tie-');
  for (const index of [0, 1]) {
    writePoint(join(root, 'm1'), plan, index, ENV_A);
    writePoint(join(root, 'm2'), plan, index, ENV_B);
  }
  const r = mergeResults([join(root, 'm1'), join(root, 'm2')]);
  const [a, b] = [environmentKey(ENV_A), environmentKey(ENV_B)];
  assert.deepEqual(Object.keys(r.environments), [a, b]);
  assert.equal(r.best!.label, 'page_size=8');
  assert.equal(r.best!.environmentKey, a);
  // The JSON keeps each tied row's environment hash (the report's JSON names environments by hash only).
  assert.deepEqual(r.best!.tiedWith!.map((t) => [t.label, t.environmentKey]), [['page_size=8', b], ['page_size=16', a], ['page_size=16', b]]);
  // The best point's own row on env B is named as the same point (s31 newcomer-cli item 2).
  assert.match(r.best!.tie!, /^tied with page_size=8 \(same point on env B\), page_size=16 \(env A\), page_size=16 \(env B\): simulated throughput within 1%/);
  assert.match(formatReport(r), /best: page_size=8 \(env A\) — .*\n +tied with page_size=8 \(same point on env B\), page_size=16 \(env A\), page_size=16 \(env B\): /);
  // Chosen by a modelled figure: no word about timings across machines.
  assert.equal(r.best!.acrossMachines, undefined);
});

test('a best chosen by measured decode time among two machine kinds says their timings do not compare and names the fastest on each', () => {
  // s31 newcomer-cli item 2: "lowest measured decode time" was chosen across CPUs, where the README
  // says to compare timings within one run only. Decode medians (ns per token, p10/p90 ±1 %, so no
  // ties): env A (CPU A) 8 -> 300, 16 -> 200; env B (the H200 host) 8 -> 50, 16 -> 100. Across both,
  // page_size=8 on B is lowest; on A alone page_size=16 is: the machine, not the page size, decided.
  const plan = loadSweep(workspace(`${BASE}sweep:\n  job: both\n  axes:\n    kv_cache.page_size: [8, 16]\n`).file);
  const root = tempDir('attnscope-merge-across-');
  writePoint(join(root, 'm1'), plan, 0, ENV_A, plan.sweepId, 300);
  writePoint(join(root, 'm1'), plan, 1, ENV_A, plan.sweepId, 200);
  writePoint(join(root, 'm2'), plan, 0, ENV_B, plan.sweepId, 50);
  writePoint(join(root, 'm2'), plan, 1, ENV_B, plan.sweepId, 100);
  const r = mergeResults([join(root, 'm1'), join(root, 'm2')]);
  assert.equal(r.best!.label, 'page_size=8');
  assert.equal(r.best!.environmentKey, environmentKey(ENV_B));
  assert.equal(r.best!.tie, undefined);
  const across = 'chosen across 2 kinds of machine, whose timings do not compare (compare timings within one run only); the fastest on each: env A page_size=16; env B page_size=8';
  assert.equal(r.best!.acrossMachines, across);
  assert.match(formatReport(r), new RegExp(`\\nbest: page_size=8 \\(env B\\) — lowest measured decode time per token .*\\n {6}${across.replace(/[().]/g, '\\$&')}\\n`));
  // One machine kind: nothing to say.
  assert.equal(mergeResults([join(root, 'm1')]).best!.acrossMachines, undefined);
});

test('merge of a simulate sweep from two machines: one row per point whatever machine ran it, a second file of a point a duplicate', () => {
  // s31 newcomer-cli item 3: `merge slurm1 mBs` of a job simulate sweep showed "16 H100 SXM A" and
  // "16 H100 SXM B" with the same figures ("7 results for 6 of 6 points"), and the best point tied
  // with its own copy. A simulation's figures come from the profile's modelled GPU, not from the CPU
  // that ran it. Here point 0 ran on both machines, point 1 on B alone, point 2 on A alone.
  const plan = loadSweep(workspace(`${BASE}sweep:\n  axes:\n    kv_cache.page_size: [8, 16, 32, 64]\n`).file);
  const root = tempDir('attnscope-merge-sim-');
  writePoint(join(root, 'm1'), plan, 0, ENV_A);
  writePoint(join(root, 'm1'), plan, 2, ENV_A);
  const twin = writePoint(join(root, 'm2'), plan, 0, ENV_B);
  writePoint(join(root, 'm2'), plan, 1, ENV_B);
  const r = mergeResults([join(root, 'm1'), join(root, 'm2')]);
  const [a, b] = [environmentKey(ENV_A), environmentKey(ENV_B)];
  assert.deepEqual(r.rows.map((row) => [row.label, row.environmentKey]), [['page_size=8', a], ['page_size=16', b], ['page_size=32', a]]);
  assert.deepEqual(r.duplicates, [{ id: plan.points[0]!.id, label: 'page_size=8', environmentKey: a, files: [twin] }]);
  assert.deepEqual(Object.keys(r.environments), [a, b]);
  // writePoint's figures: all at 10 tokens/s, so fewer KV bytes held picks page_size=8 (0.5 · 1000 · 8 =
  // 4,000 slots; 16: 0.5 · 1001 · 16 = 8,008; 32: 0.5 · 1002 · 32 = 16,032), tied with the other two, never with itself.
  assert.equal(r.best!.label, 'page_size=8');
  assert.deepEqual(r.best!.tiedWith!.map((t) => t.label), ['page_size=16', 'page_size=32']);
  const text = formatReport(r);
  // The model: the folder of ./tiny/config.json, whose config has no _name_or_path (core/modelLabel.ts).
  assert.deepEqual(r.models, ['tiny']);
  assert.match(text, /^Sweep p\.attn\.yaml of tiny \([0-9a-f]{16}, job simulate\): 3 of 4 points$/m);
  // No env column, no letters; the machines named once.
  assert.match(text, /^page_size +internal frag/m);
  assert.doesNotMatch(text, /\benv [AB]\b/);
  assert.match(text, /^ran on 2 kinds of machine \(CPU A \(8 cores, x64, avx2\); NVIDIA H200 · CPU A \(8 cores, x64, avx2\)\): one row per point, as a simulation's figures do not depend on the CPU that ran it$/m);
  assert.match(text, new RegExp(`^duplicate: page_size=8 also in ${twin.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; the first file is used$`, 'm'));
  assert.match(text, /\nbest: page_size=8 — .*\n +tied with page_size=16, page_size=32: /);
});

test('merge refuses a point of another sweep, naming the file', () => {
  const plan = loadSweep(workspace(`${BASE}sweep:\n  axes:\n    kv_cache.page_size: [8, 16]\n`).file);
  const dir = tempDir('attnscope-merge-');
  writePoint(join(dir, 'a'), plan, 0, ENV_A);
  const other = writePoint(join(dir, 'b'), plan, 1, ENV_A, '0123456789abcdef');
  assert.throws(() => mergeResults([join(dir, 'a'), join(dir, 'b')]), (e: unknown) => e instanceof InputError && e.file === other && /another sweep .*0123456789abcdef/.test(e.message));
  assert.throws(() => mergeResults([join(dir, 'nothing-here')]), (e: unknown) => e instanceof InputError && /no such folder/.test(e.message));
  // `merge .` over a working folder of two sweeps and a profile: one error naming both sweeps'
  // folders, and no "skipped" warning before it (s53 nc-cli 22: 21 warnings, then the error).
  writeFileSync(join(dir, 'profile.json'), '{"model": "./tiny/config.json"}');
  const skips: string[] = [];
  assert.throws(() => mergeResults([dir], { onSkip: (f) => skips.push(f) }), (e: unknown) => e instanceof InputError
    && e.message.includes(`: 2 sweeps found: ${join(dir, 'a')} (p.attn.yaml, sweep ${plan.sweepId}), ${join(dir, 'b')} (p.attn.yaml, sweep 0123456789abcdef): merge each sweep on its own`));
  assert.equal(skips.length, 0, skips.join(", "));
  // One sweep and the profile: the merge goes ahead and says the profile was skipped, once.
  assert.equal(mergeResults([join(dir, 'a')]).rows.length, 1);
  rmSync(join(dir, 'b'), { recursive: true });
  assert.equal(mergeResults([dir], { onSkip: (f) => skips.push(f) }).rows.length, 1);
  assert.deepEqual(skips, [join(dir, 'profile.json')]);
});

test('the sbatch script: an array of one task per shard, the directives asked for, the sweep command quoted', () => {
  const { file } = workspace(`${BASE}sweep:\n  axes:\n    kv_cache.page_size: [8, 16, 32, 64, 128, 256]\n`, "it's.attn.yaml");
  const plan = loadSweep(file, { set: ['kv_cache.dtype=fp16,bf16'] });
  const s = sbatchScript(plan, { tasks: 3, outDir: '/scratch/out', workDir: '/home/u', cli: ['/usr/bin/node', '/opt/attnscope/dist/runner.js'], quick: false, backend: 'cuda', partition: 'gpu', gpusPerTask: 1, time: '00:30:00' });
  const directives = s.split('\n').filter((l) => l.startsWith('#SBATCH ')).map((l) => l.slice(8));
  assert.deepEqual(directives, ["'--job-name=attnscope-it'\\''s'", '--array=0-2', '--ntasks=1', '--output=/scratch/out/slurm-%A_%a.out', '--chdir=/home/u', '--partition=gpu', '--gpus-per-task=1', '--time=00:30:00']);
  const exec = s.split('\n').find((l) => l.startsWith('exec '))!;
  assert.equal(exec, `exec /usr/bin/node /opt/attnscope/dist/runner.js sweep ${shellQuote(file)} --out /scratch/out --jobs "\${SLURM_CPUS_PER_TASK:-1}" --set kv_cache.dtype=fp16,bf16 --backend cuda`);
  assert.equal(shellQuote("it's"), `'it'\\''s'`);
  assert.ok(s.startsWith('#!/bin/bash\n'));
});

test('the sbatch script of a sweep that benchmarks: a whole node per task (--exclusive), its points timed one at a time whatever the CPUs', () => {
  // s31 newcomer-cli item 1: a job both sweep's tasks got one CPU each on a shared 2-CPU node and
  // timed side by side, and --cpus-per-task 4 became --jobs 4 inside a task. sbatch(1): --exclusive
  // "can not share nodes with other running jobs ... the job is allocated all CPUs"; the local
  // benchmark sweep's default is --jobs 1 for the same reason.
  const cli = ['/usr/bin/node', '/opt/attnscope/dist/runner.js'];
  for (const job of ['bench', 'both']) {
    const { file } = workspace(`${BASE}sweep:\n  job: ${job}\n  axes:\n    kv_cache.page_size: [8, 16]\n`);
    const plan = loadSweep(file);
    const s = sbatchScript(plan, { tasks: 2, outDir: '/scratch/out', workDir: '/home/u', cli, quick: true, backend: 'auto', cpusPerTask: 4 });
    const directives = s.split('\n').filter((l) => l.startsWith('#SBATCH ')).map((l) => l.slice(8));
    assert.deepEqual(directives, ['--job-name=attnscope-p', '--array=0-1', '--ntasks=1', '--exclusive', '--output=/scratch/out/slurm-%A_%a.out', '--chdir=/home/u', '--cpus-per-task=4'], job);
    const exec = s.split('\n').find((l) => l.startsWith('exec '))!;
    assert.equal(exec, `exec /usr/bin/node /opt/attnscope/dist/runner.js sweep ${shellQuote(file)} --out /scratch/out --jobs 1 --quick`, job);
    assert.match(s, new RegExp(`^# Job ${job}: each task has a whole node \\(--exclusive\\) and times its points one at a time \\(--jobs 1\\)`, 'm'));
  }
  // A simulation sweep keeps packing: no --exclusive, one point per CPU Slurm gave the task.
  const plan = loadSweep(workspace(`${BASE}sweep:\n  axes:\n    kv_cache.page_size: [8, 16]\n`).file);
  const s = sbatchScript(plan, { tasks: 2, outDir: '/scratch/out', workDir: '/home/u', cli, quick: false, backend: 'auto', cpusPerTask: 4 });
  assert.ok(!s.includes('--exclusive'), s);
  assert.match(s, /^#SBATCH --cpus-per-task=4$/m);
  assert.match(s, / --jobs "\$\{SLURM_CPUS_PER_TASK:-1\}"$/m);
});

test('the Indexed Job: completionMode Indexed, one pod per shard, the shard count in the environment, profile and model in a ConfigMap, results on the claim', () => {
  const profile = `${BASE}sweep:\n  axes:\n    kv_cache.page_size: [8, 16, 32, 64, 128, 256]\n`;
  const { file } = workspace(profile);
  const plan = loadSweep(file, { set: ['workload.max_num_seqs=4,8'] });
  const docs = YAML.parseAllDocuments(indexedJobManifest(plan, { image: 'ghcr.io/me/attnscope:1', tasks: 4, pvc: 'sweeps', gpusPerTask: 1, cpusPerTask: 2, quick: false, backend: 'auto' })).map((d) => d.toJS());
  assert.equal(docs.length, 2);
  const [cm, job] = docs;
  assert.equal(cm.kind, 'ConfigMap');
  assert.equal(cm.data.profile, profile);
  assert.equal(cm.data['model-0'], TINY_CONFIG);
  assert.equal(job.apiVersion, 'batch/v1');
  assert.equal(job.kind, 'Job');
  assert.equal(job.spec.completionMode, 'Indexed');
  assert.equal(job.spec.completions, 4);
  assert.equal(job.spec.parallelism, 4);
  const pod = job.spec.template.spec;
  assert.equal(pod.restartPolicy, 'Never');
  const c = pod.containers[0];
  assert.equal(c.image, 'ghcr.io/me/attnscope:1');
  assert.deepEqual(c.command, ['attnscope', 'sweep', '/sweep/p.attn.yaml', '--out', `/results/attnscope-p-${plan.sweepId.slice(0, 8)}`, '--jobs', '2', '--set', 'workload.max_num_seqs=4,8']);
  assert.deepEqual(c.env, [{ name: 'ATTNSCOPE_SHARD_COUNT', value: '4' }]);
  assert.deepEqual(c.resources, { requests: { cpu: '2' }, limits: { 'nvidia.com/gpu': 1 } });
  assert.deepEqual(c.volumeMounts.map((m: { mountPath: string }) => m.mountPath), ['/sweep', '/results']);
  // The ConfigMap's files land where the profile's relative `model:` path expects them.
  assert.deepEqual(pod.volumes[0].configMap.items, [{ key: 'profile', path: 'p.attn.yaml' }, { key: 'model-0', path: 'tiny/config.json' }]);
  assert.deepEqual(pod.volumes[1].persistentVolumeClaim, { claimName: 'sweeps' });
  assert.match(job.metadata.name, /^[a-z0-9-]{1,63}$/);
});

test('the Indexed Job of a sweep that benchmarks: each pod times its points one at a time, whatever CPUs it requests', () => {
  // As a Slurm task does (s31 newcomer-cli item 1): --cpus-per-task 2 requests 2 CPUs, not 2 benchmarks side by side.
  const { file } = workspace(`${BASE}sweep:\n  job: bench\n  axes:\n    kv_cache.page_size: [8, 16]\n`);
  const plan = loadSweep(file);
  const job = YAML.parseAllDocuments(indexedJobManifest(plan, { image: 'ghcr.io/me/attnscope:1', tasks: 2, pvc: 'sweeps', cpusPerTask: 2, quick: true, backend: 'auto' }))[1]!.toJS();
  const c = job.spec.template.spec.containers[0];
  assert.deepEqual(c.command, ['attnscope', 'sweep', '/sweep/p.attn.yaml', '--out', `/results/attnscope-p-${plan.sweepId.slice(0, 8)}`, '--jobs', '1', '--quick']);
  assert.deepEqual(c.resources, { requests: { cpu: '2' } });
});

test('errorAt places a problem of one point at its value in the sweep block, or names its --set argument', () => {
  // Line 6 is `    kv_cache.page_size: [8, 16]`: 16 starts at column 29.
  const plan = loadSweep(workspace(`${BASE}sweep:\n  axes:\n    kv_cache.page_size: [8, 16]\n`).file, { set: ['decode.context_lens=[[1024], [65536]]'] });
  const e = plan.errorAt(plan.points[2]!, 'kv_cache.page_size', 'too big');
  assert.ok(e instanceof InputError);
  assert.equal(`${e.line}:${e.column}`, '6:29');
  assert.equal(e.message, 'sweep point page_size=16 context_lens=[1024]: too big');
  const set = plan.errorAt(plan.points[1]!, 'decode.context_lens', 'needs 9 GiB');
  assert.ok(set instanceof UsageError);
  assert.equal(set.message, '--set decode.context_lens=[[1024], [65536]] (value 2 of 2): sweep point page_size=8 context_lens=[65536]: needs 9 GiB');
});

test('the errors of points whose label holds ": " are one line for all of them, as any other label\'s (the label was read back out of the message at its first ": ")', () => {
  // Two copies of the tiny model in folders named "m: 1" and "m: 2": the points' labels are
  // "model=./m: 1/config.json page_size=0" and "model=./m: 2/config.json page_size=0"; the 0 (line 7,
  // column 26) is wrong in both. splitPointLabel's /^sweep point (.+?): / took "model=./m" as the
  // label and "1/config.json page_size=0: ..." as the reason: two reasons, two lines.
  const { dir, file } = workspace(`${BASE}sweep:\n  axes:\n    model: ["./m: 1/config.json", "./m: 2/config.json"]\n    kv_cache.page_size: [0]\n`);
  for (const m of ['m: 1', 'm: 2']) {
    mkdirSync(join(dir, m));
    writeFileSync(join(dir, m, 'config.json'), TINY_CONFIG);
  }
  assert.throws(() => loadSweep(file), (e: unknown) => {
    assert.ok(e instanceof InputErrors, String(e));
    assert.deepEqual(e.errors.map((x) => `${x.line}:${x.column}: ${x.message}`), ['7:26: sweep points model=./m: 1/config.json page_size=0 and 1 more: kv_cache.page_size must be >= 1, not 0']);
    return true;
  });
});

test('an axis over a list key written as a list of scalars says to make each value a list, in the CLI and the editor', () => {
  // The newcomer's first guess (session 30): `prefill.seq_lens: [512, 1024]` makes each point's
  // seq_lens a number; prefill.seq_lens is an array of lengths, so each axis value is one: [[512], [1024]].
  const { file } = workspace(`${BASE}prefill: { seq_lens: [128] }\nsweep:\n  axes:\n    prefill.seq_lens: [512, 1024, 2048]\n`);
  const hint = '; to sweep a list key, make each axis value a list: prefill.seq_lens: [[512], [1024], ...]';
  // CLI: line 7 is `    prefill.seq_lens: [512, 1024, 2048]`; 512 starts at column 24.
  assert.throws(() => loadSweep(file), (e: unknown) => e instanceof InputError && `${e.line}:${e.column}` === '7:24' && e.message.startsWith('sweep point seq_lens=512: prefill.seq_lens must be an array') && e.message.endsWith(hint));
  // Editor: the same sentence on each value's diagnostic.
  const host = { readFile: (p: string): string | null => (existsSync(p) ? readFileSync(p, 'utf8') : null) };
  const { problems } = sweepProblems(parseProfileText(readFileSync(file, 'utf8'), file).root, file, host);
  const errors = problems.filter((p) => p.severity === 'error');
  assert.equal(errors.length, 3);
  for (const p of errors) assert.ok(p.message.endsWith(hint), p.message);
  // The right form runs: each value a list.
  assert.equal(loadSweep(workspace(`${BASE}prefill: { seq_lens: [128] }\nsweep:\n  axes:\n    prefill.seq_lens: [[512], [1024]]\n`).file).points.length, 2);
  // A scalar key's wrong value gets no such hint.
  assert.throws(() => loadSweep(workspace(`${BASE}sweep:\n  axes:\n    kv_cache.page_size: [[8], [16]]\n`).file), (e: unknown) => e instanceof InputError && !/list key/.test(e.message));
});

test('sbatch that reaches no controller: its fatal line, once, with what to check', () => {
  // sbatch 22.05 on a node with no slurm.conf and no DNS SRV record (four lines, exit 1).
  const out = [
    'sbatch: error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown host',
    'sbatch: error: fetch_config: DNS SRV lookup failed',
    'sbatch: error: _establish_config_source: failed to fetch config',
    'sbatch: fatal: Could not establish a configuration source',
  ].join('\n');
  const reason = sbatchReason(out);
  assert.equal(reason.split('\n').length, 1);
  // The hint names what starts a controller here (scripts/slurm-setup.sh --start; the Slurm test starts its cluster through it), not the bare install.
  assert.equal(reason, 'Could not establish a configuration source: no Slurm controller answered (is slurmctld running? `scontrol ping` tells; on one machine, as root, `bash scripts/slurm-setup.sh --start` starts a one-node cluster and prints the SLURM_CONF to export)');
  // Any other refusal: its last line as sbatch wrote it, without the prefix.
  assert.equal(sbatchReason('sbatch: error: Batch job submission failed: Invalid partition name specified\n'), 'Batch job submission failed: Invalid partition name specified');
  assert.equal(sbatchReason('  \n'), 'no output');
});

test('a simulate sweep\'s tie goes to a page_size vLLM runs on the profile\'s GPU; a best vLLM does not run says so; more than three tied points are counted, not listed (s33 newcomer CLI finding 4, s36 newcomers)', () => {
  // writePoint gives every point the same throughput (10 tokens/s) and occupancy 0.5 of 1000 + index
  // pages: all tied. The fewest KV bytes held (0.5 · 1000 · 1 slots) would pick page_size=1, which
  // vLLM refuses on an H100 (multiples of 16): the tie goes to page_size=16, the one it runs.
  const runnable = loadSweep(workspace(`${BASE}device: { gpu: H100 SXM }\nsweep:\n  axes:\n    kv_cache.page_size: [1, 2, 4, 8, 16]\n`).file);
  const runnableRoot = tempDir('attnscope-merge-');
  for (let i = 0; i < runnable.points.length; i++) writePoint(runnableRoot, runnable, i, ENV_A);
  const chosen = mergeResults([runnableRoot]);
  assert.equal(chosen.best?.label, 'page_size=16');
  assert.equal(chosen.best?.notOnVllm, undefined);
  assert.match(chosen.best!.tie!, /so the tie went to a point vLLM runs, then to the lower p99 TTFT \(within 1% a tie\), then to fewer KV bytes held$/);
  // No tied point vLLM runs: the fewest bytes held picks page_size=1, and the report says vLLM would not run it.
  const plan = loadSweep(workspace(`${BASE}device: { gpu: H100 SXM }\nsweep:\n  axes:\n    kv_cache.page_size: [1, 2, 4, 8, 12]\n`).file);
  const root = tempDir('attnscope-merge-');
  for (let i = 0; i < plan.points.length; i++) writePoint(root, plan, i, ENV_A);
  const r = mergeResults([root]);
  assert.equal(r.best?.label, 'page_size=1');
  // vLLM's FlashAttention backend takes block sizes that are multiples of 16 (vllm/v1/attention/backends/flash_attn.py).
  assert.match(r.best!.notOnVllm!, /^page_size 1 is not a block size vLLM runs on H100 SXM: its CUDA attention backends take multiples of 16 .*: try 16$/);
  assert.equal(r.best!.tiedWith!.length, 4);
  assert.match(r.best!.tie!, /^tied with 4 other points \(sweep-report\.json lists them under best\.tiedWith\): simulated throughput within 1%/);
  const text = formatReport(r);
  assert.match(text, /\n {6}not runnable on vLLM: page_size 1 is not a block size vLLM runs on H100 SXM/);
  assert.doesNotMatch(text, /page_size=2, page_size=4/);
  // A best at a multiple of 16, or with no GPU named: nothing said.
  const ok = loadSweep(workspace(`${BASE}device: { gpu: H100 SXM }\nsweep:\n  axes:\n    kv_cache.page_size: [16, 32]\n`).file);
  const okRoot = tempDir('attnscope-merge-');
  for (let i = 0; i < ok.points.length; i++) writePoint(okRoot, ok, i, ENV_A);
  assert.equal(mergeResults([okRoot]).best?.notOnVllm, undefined);
  const cpu = loadSweep(workspace(`${BASE}sweep:\n  axes:\n    kv_cache.page_size: [1, 2]\n`).file);
  const cpuRoot = tempDir('attnscope-merge-');
  for (let i = 0; i < cpu.points.length; i++) writePoint(cpuRoot, cpu, i, ENV_A);
  assert.equal(mergeResults([cpuRoot]).best?.notOnVllm, undefined);
});

test('an MLA model on a Hopper card: the tie goes to page_size 64, the block size vLLM runs it at, by the rule of the page-size-flashmla warning (s42 newcomer 5a)', () => {
  // writePoint's figures tie every point (10 tokens/s); fewer KV bytes held (0.5 · (1000 + index) ·
  // page_size slots) would pick page_size=16, which vLLM raises to 64 for FlashMLA on an H200
  // (vllm/platforms/cuda.py "Forcing kv cache block size to 64 for FlashMLA backend."); 64 holds fewer than 128.
  const plan = loadSweep(workspace(`${BASE}device: { gpu: H200 }\nsweep:\n  axes:\n    kv_cache.page_size: [16, 64, 128]\n`).file);
  // The tiny model made MLA: only the flag matters to the rule (core/estimate flashMlaPageSizeNote).
  for (const p of plan.points) p.profile.model.mla = { kvLoraRank: 512 } as unknown as NonNullable<typeof p.profile.model.mla>;
  const root = tempDir('attnscope-merge-');
  for (let i = 0; i < plan.points.length; i++) writePoint(root, plan, i, ENV_A);
  const r = mergeResults([root]);
  assert.equal(r.best?.label, 'page_size=64');
  assert.equal(r.best?.notOnVllm, undefined);
  // The same model on an L40S (no FlashMLA): 16 is what vLLM runs, and the fewest bytes held pick it.
  const l40 = loadSweep(workspace(`${BASE}device: { gpu: L40S }\nsweep:\n  axes:\n    kv_cache.page_size: [16, 64, 128]\n`).file);
  for (const p of l40.points) p.profile.model.mla = { kvLoraRank: 512 } as unknown as NonNullable<typeof p.profile.model.mla>;
  const l40Root = tempDir('attnscope-merge-');
  for (let i = 0; i < l40.points.length; i++) writePoint(l40Root, l40, i, ENV_A);
  assert.equal(mergeResults([l40Root]).best?.label, 'page_size=16');
});

test('a best whose SLO verdict rests on too few requests says so under it (s42 newcomer-ed F14: a 6-request trace judged a p99 SLO)', () => {
  const plan = loadSweep(workspace(`${BASE}device: { gpu: H100 SXM }\nsweep:\n  axes:\n    kv_cache.page_size: [16, 32]\n`).file);
  const root = tempDir('attnscope-merge-');
  const judged = (requests: number) => {
    for (let i = 0; i < plan.points.length; i++) {
      const file = writePoint(root, plan, i, ENV_A);
      const point = JSON.parse(readFileSync(file, 'utf8')) as SweepPointRun;
      // Every request meets TTFT <= 500 ms, slo.attainment 0.99; goodput 1 req/s at page 16, 0.5 at 32.
      point.pool!.latency = { requests, slo: { ttftMs: 500, attainment: 0.99 }, sloAttainment: 1, goodputRequestsPerSec: i === 0 ? 1 : 0.5 } as unknown as NonNullable<SweepPointRun['pool']>['latency'];
      writeFileSync(file, JSON.stringify(point));
    }
    return mergeResults([root]);
  };
  // By hand: 99 % needs 10 / 0.01 = 1,000 requests; 6 <= 100, so the p99 of 6 is their maximum.
  const r = judged(6);
  assert.equal(r.best?.label, 'page_size=16');
  assert.equal(r.best?.fewRequests, 'its SLO verdict: but on 6 requests only: a 99% target needs 1,000 to leave 10 outside it (the p99 of 6 is about their maximum)');
  assert.match(formatReport(r), /\n {6}its SLO verdict: but on 6 requests only/);
  assert.equal(judged(1000).best?.fewRequests, undefined);
});

test('a warning only some points raise names the point and sits at the axis value that made it; one every point raises stays at the profile (s34 newcomer-cli 13)', () => {
  // The tiny model: 2 layers · 2 (K, V) · 2 KV heads · 64 head_dim · 2 B = 1,024 B a token. 64
  // pages of 16 hold 1,024 tokens, fewer than one max_model_len sequence of 2,048: vLLM would
  // refuse to start; 512 pages hold 8,192. The warning used to sit at the profile's
  // max_model_len (line 3), naming neither the point nor the --set argument.
  const { file } = workspace(BASE);
  const set = loadSweep(file, { set: ['kv_cache.num_pages=64,512'] });
  const refusing = set.notes.filter((n) => /vLLM would refuse to start/.test(n));
  assert.equal(refusing.length, 1, set.notes.join('\n'));
  assert.ok(refusing[0]!.startsWith('--set kv_cache.num_pages=64,512 (value 1 of 2): warning: sweep point num_pages=64: the KV pool holds 1,024 tokens (64 pages of 16), fewer than one max_model_len sequence (2,048 tokens'), refusing[0]);
  // In the sweep block: at the value 64 (line 7, column 26), with two axes: the first axis that tells the points apart.
  // Both points holding num_pages=64 (of 2 × 2 = 4) raise it: one line naming them by that value (s46), not a line each at one place.
  const { file: inBlock } = workspace(`${BASE}sweep:\n  axes:\n    workload.max_num_seqs: [4, 8]\n    kv_cache.num_pages: [64, 512]\n`);
  const block = loadSweep(inBlock).notes.filter((n) => /vLLM would refuse to start/.test(n));
  assert.deepEqual(block.map((n) => n.slice(0, n.indexOf(': the KV pool'))), [`${inBlock}:7:26: warning: sweep points with num_pages=64 (2 of 4)`]);
  // Every point alike (64 pages in the profile, an axis over max_num_seqs): once, at the profile's line, no point named.
  const { file: all } = workspace(BASE.replace('num_pages: 512', 'num_pages: 64'));
  const alike = loadSweep(all, { set: ['workload.max_num_seqs=4,8'] }).notes.filter((n) => /vLLM would refuse to start/.test(n));
  assert.equal(alike.length, 1, alike.join('\n'));
  assert.match(alike[0]!, /^\/.*p\.attn\.yaml:\d+:\d+: warning: the KV pool holds 1,024 tokens/);
});

test('a job: simulate sweep says nothing about kernels it does not run; a job that benchmarks does (s34 newcomer-cli 14)', () => {
  // head_dim 256 = hidden_size 256 / 1 head: no CUDA kernel takes it (64 and 128 only), so a
  // benchmark runs it on the CPU; a simulation benchmarks nothing.
  const headDim256 = JSON.stringify({ ...JSON.parse(TINY_CONFIG), num_attention_heads: 1, num_key_value_heads: 1 });
  const notes = (job: string) => {
    const { dir, file } = workspace(`${BASE}sweep:\n  job: ${job}\n  axes:\n    kv_cache.page_size: [16, 32]\n`);
    writeFileSync(join(dir, 'tiny', 'config.json'), headDim256);
    return loadSweep(file).notes.filter((n) => /head_dim 256 has no CUDA kernel/.test(n));
  };
  assert.deepEqual(notes('simulate'), []);
  assert.equal(notes('bench').length, 1);
});

// s39 newcomer 4: README's two machines, 2-vCPU VMs whose /proc/cpuinfo both name "AMD EPYC": a Zen 3
// (family 25 model 1, AVX2) and a Zen 4 (family 25 model 17, AVX-512 + BF16). Their decode timings differ
// (README: 6.19 ms vs 879 µs at page 1), so merge must keep both.
const ZEN3: Environment = { os: 'linux', arch: 'x64', cpuModel: 'AMD EPYC', cpuSignature: 'family 25 model 1', cpuCores: 2, simd: 'avx2', cpuFeatures: ['fma', 'avx2'], threads: 2, nodeVersion: 'v22', toolVersion: '0.1.0' };
const ZEN4: Environment = { ...ZEN3, cpuSignature: 'family 25 model 17', simd: 'avx512', cpuFeatures: ['avx512f', 'avx512_bf16', 'avx2', 'fma'] };

test('environment key: two CPU generations of one name are two machines (SIMD path, family/model, features); the order of features does not matter', () => {
  assert.notEqual(environmentKey(ZEN3), environmentKey(ZEN4));
  assert.notEqual(environmentKey(ZEN3), environmentKey({ ...ZEN3, simd: 'avx512' }));
  assert.notEqual(environmentKey(ZEN3), environmentKey({ ...ZEN3, cpuSignature: 'family 25 model 17' }));
  assert.notEqual(environmentKey(ZEN3), environmentKey({ ...ZEN3, cpuFeatures: ['fma', 'avx2', 'avx512f'] }));
  assert.equal(environmentKey(ZEN4), environmentKey({ ...ZEN4, cpuFeatures: ['fma', 'avx2', 'avx512_bf16', 'avx512f'], threads: 1, loadAverage: [9, 9, 9] }));
  assert.equal(describeEnvironment(ZEN4), 'AMD EPYC (family 25 model 17, 2 cores, x64, avx512)');
});

test('merge: a Zen 3 and a Zen 4 "AMD EPYC" are env A and env B, not duplicates; a point file keyed before s39 is left out, saying why', () => {
  const plan = loadSweep(workspace(`${BASE}sweep:\n  job: bench\n  axes:\n    kv_cache.page_size: [16, 32]\n`).file);
  const root = tempDir('attnscope-merge-zen-');
  writePoint(join(root, 'zen4'), plan, 0, ZEN4, plan.sweepId, 879_000);
  writePoint(join(root, 'zen3'), plan, 0, ZEN3, plan.sweepId, 6_190_000);
  // The newcomer's file: key cedac3a7, hashed by an older build over arch, model, cores and GPU only.
  const old = writePoint(join(root, 'old'), plan, 1, { ...ZEN4, cpuSignature: undefined }, plan.sweepId, 900_000, 'cedac3a7');
  const skipped: Array<[string, string]> = [];
  const r = mergeResults([join(root, 'zen4'), join(root, 'zen3'), join(root, 'old')], { onSkip: (f, { why }) => skipped.push([f, why]) });
  assert.deepEqual(r.duplicates, []);
  assert.deepEqual(r.rows.map((row) => [row.label, row.environmentKey, row.metrics.decodeNsPerToken]), [
    ['page_size=16', environmentKey(ZEN4), 879_000],
    ['page_size=16', environmentKey(ZEN3), 6_190_000],
  ]);
  assert.equal(skipped.length, 1);
  assert.equal(skipped[0]![0], old);
  assert.match(skipped[0]![1], /^measured under environment key cedac3a7, which this build computes as [0-9a-f]{8} \(keys before s39 left out the SIMD path and CPU family\/model/);
  const text = formatReport(r);
  assert.match(text, /env A \([0-9a-f]{8}\): AMD EPYC \(family 25 model 17, 2 cores, x64, avx512\)/);
  assert.match(text, /env B \([0-9a-f]{8}\): AMD EPYC \(family 25 model 1, 2 cores, x64, avx2\)/);
});

test("a sweep whose points replay a workload.trace is another sweep once the trace's bytes change (no resume from points of the old trace); one without a trace keeps its id", () => {
  const { dir, file } = workspace(`model: ./tiny/config.json\nkv_cache: { num_pages: 512 }\nworkload: { trace: ./t.jsonl, max_num_seqs: 8, max_model_len: 2048 }\nsweep:\n  axes:\n    kv_cache.page_size: [8, 16]\n`);
  writeFileSync(join(dir, 't.jsonl'), '{"arrival_s": 0, "prompt_len": 100, "output_len": 10}\n');
  const a = loadSweep(file);
  assert.equal(a.sweepId, loadSweep(file).sweepId);
  writeFileSync(join(dir, 't.jsonl'), '{"arrival_s": 0, "prompt_len": 900, "output_len": 10}\n');
  const b = loadSweep(file);
  assert.notEqual(b.sweepId, a.sweepId);
  assert.notEqual(b.inputsId, a.inputsId);
  // Without a trace the inputs are hashed as before the key existed: sha256 of canonical {base, models, job, options}, independently here.
  const plain = workspace(`${BASE}sweep:\n  axes:\n    kv_cache.page_size: [8, 16]\n`);
  const p = loadSweep(plain.file);
  const base = { model: './tiny/config.json', kv_cache: { num_pages: 512 }, workload: { requests: 50, max_num_seqs: 8, max_model_len: 2048 } };
  const sha = (t: string) => createHash('sha256').update(t).digest('hex');
  const inputs = { base, job: 'simulate', models: [sha(TINY_CONFIG)], options: {} };
  assert.equal(p.inputsId, sha(canonicalJson(inputs)).slice(0, 16));
});

test('sweep --jobs: capped at what free memory holds at 96 MiB a worker, saying so; above the CPU count a warning; never more workers than points (s40 newcomer 7)', () => {
  const said: string[] = [];
  const say = (line: string) => void said.push(line);
  // 1,000 points at --jobs 1000 on 23 GiB free: 23 · 1024 / 96 = 245.3 -> 245 workers (the newcomer's box; ~68 GB asked).
  assert.equal(workerCount(1000, 1000, true, say, 2, 23 * 2 ** 30), 245);
  assert.deepEqual(said, ['attnscope: warning: --jobs 1000: 245 workers at once, not 1000: 23 GiB of memory is free here, and a worker holds about 96 MiB (measured peak of a simulation worker)']);
  said.length = 0;
  // 24 points at --jobs 24 on 2 CPUs with memory to spare: 24 workers, and a warning.
  assert.equal(workerCount(24, 24, true, say, 2, 23 * 2 ** 30), 24);
  assert.deepEqual(said, ['attnscope: warning: --jobs 24: 24 workers on 2 CPUs take turns on them, so the sweep is no faster than at --jobs 2, and each holds its own memory']);
  said.length = 0;
  // --jobs 24 over 2 points starts 2: no warning; the default (every CPU) says nothing; 50 MiB free still runs one.
  assert.equal(workerCount(24, 2, true, say, 2, 23 * 2 ** 30), 2);
  assert.equal(workerCount(64, 100, false, say, 64, 23 * 2 ** 30), 64);
  assert.deepEqual(said, []);
  assert.equal(workerCount(4, 4, true, say, 8, 50 * 2 ** 20), 1);
  assert.equal(said.length, 1);
});

test('sweep --jobs at data parallel: a worker is budgeted 96 MiB + 3 MiB an engine of the largest point, said in the start line (s45 newcomer MEDIUM-5)', () => {
  // The newcomer's peaks: --max-rate at dp 64 / 256 took 259.6 / 700.8 MiB, up to 7x the 96 MiB the cap assumed.
  // dp 256: 96 + 255 · 3 = 861 MiB (above the 700.8 measured); 23 GiB free: floor(23,552 / 861) = 27 workers, not 245.
  const point = (dp?: number) => ({ profile: { device: dp === undefined ? {} : { dataParallelSize: dp } } });
  const budget = workerBytes([point(), point(64), point(256)]);
  assert.deepEqual(budget, { bytes: 861 * 2 ** 20, dp: 256 });
  assert.deepEqual(workerBytes([point(), point(1)]), { bytes: 96 * 2 ** 20, dp: 1 });
  const said: string[] = [];
  const say = (line: string) => void said.push(line);
  assert.equal(workerCount(1000, 1000, true, say, 2, 23 * 2 ** 30, budget), 27);
  assert.match(said[0], /^attnscope: warning: --jobs 1000: 27 workers at once, not 1000: 23 GiB of memory is free here, and a worker is budgeted 861 MiB \(96 MiB, the measured peak of a simulation worker, \+ 3 MiB an engine at the largest point's data_parallel_size 256\)$/);
  said.length = 0;
  // Room for all: 2 workers of 861 MiB (1,722 MiB = 1.68 GiB), said with the budget.
  assert.equal(workerCount(2, 6, false, say, 2, 23 * 2 ** 30, budget), 2);
  assert.match(said[0], /^sweep: 2 workers at once; a worker is budgeted 861 MiB .*, 1\.68 GiB in all of 23 GiB free$/);
});

test('merge: a best point whose TPOT SLO was judged at small batch with overhead_ms assumed 0 carries the CLI\'s note under the best line (core/format tpotOverheadNote)', () => {
  const plan = loadSweep(workspace(`${BASE}sweep:\n  axes:\n    kv_cache.page_size: [8, 16]\n`).file);
  const out = tempDir('attnscope-tpot-note-');
  for (const i of [0, 1]) writePoint(out, plan, i, ENV_A);
  // Each point: 2 running sequences on average, a TPOT bound of 20 ms met by every request, no per-step overhead, overhead_ms
  // assumed (not in the profile), or (second pass) written in it.
  const rewrite = (assumed: string[]) => {
    for (const f of readdirSync(out)) {
      const point = JSON.parse(readFileSync(join(out, f), 'utf8')) as SweepPointRun;
      point.pool!.summary.meanConcurrency = 2;
      point.pool!.latency = { slo: { tpotMs: 20 }, sloAttainment: 1, goodputRequestsPerSec: 1 } as unknown as NonNullable<SweepPointRun['pool']>['latency'];
      point.pool!.stepTime = { perStepS: 0, assumed } as unknown as NonNullable<SweepPointRun['pool']>['stepTime'];
      writeFileSync(join(out, f), JSON.stringify(point));
    }
  };
  rewrite(['overhead_ms']);
  const r = mergeResults([out]);
  assert.ok(r.best);
  assert.match(r.best.tpotOverhead ?? '', /^TPOT <= 20 ms is judged on steps of 2\.00 running sequences on average with no per-step overhead \(step_time\.overhead_ms assumed 0\)/);
  assert.ok(formatReport(r).includes(`\n      Note: ${r.best.tpotOverhead}`), formatReport(r));
  // overhead_ms written in the profile: no note.
  rewrite([]);
  const given = mergeResults([out]);
  assert.ok(given.best);
  assert.equal(given.best.tpotOverhead, undefined);
  assert.ok(!formatReport(given).includes('Note: TPOT'));
});

test('placePointNotes: a note every point raises once as it is, one some raise at the axis value that tells them apart, named by it or by the point', async () => {
  const { placePointNotes, readSweepBlock } = await import('../../core/config');
  const file = '/w/p.attn.yaml';
  const text = 'sweep:\n  axes:\n    kv_cache.page_size: [16, 32]\n    workload.max_num_seqs: [4, 8, 16]\n';
  const axes = readSweepBlock(parseProfileText(text, file).root).block!.axes;
  const note = (message: string, extra: Partial<Problem> = {}): Problem => ({ severity: 'warning', code: 'x', message, range: { offset: 0, length: 1 }, ...extra });
  const config = { file: '/w/config.json', range: { offset: 7, length: 2 } };
  // Points, first axis slowest: 0 (16, 4), 1 (16, 8), 2 (16, 16), 3 (32, 4), 4 (32, 8), 5 (32, 16).
  const raised: Record<string, number[]> = { A: [0, 1, 2, 3, 4, 5], B: [3, 4, 5], C: [4], D: [1, 4], E: [2] };
  const points = Array.from({ length: 6 }, (_, i) => ({
    label: `p${i}`,
    digits: axisIndices(i, [2, 3]),
    problems: Object.entries(raised).filter(([, by]) => by.includes(i)).map(([m]) => note(m, m === 'E' ? config : {})),
  }));
  // By hand: A every point (own range); D = the points with max_num_seqs 8 (axis 2: its value's 2 holders both raise it;
  // axis 1 not: 16 and 32 are held by non-raisers too); E one point, no axis value its alone (2 of 2 hold 16 on axis 2):
  // by its label, at its own line of the config; B = page_size 32's 3 points; C point 4 alone, no value its own: by its
  // label, at the first axis's value.
  assert.deepEqual(placePointNotes(axes, points, file).map((p) => [p.message, p.file ?? file, p.range.offset]), [
    ['A', file, 0],
    ['sweep points with max_num_seqs=8 (2 of 6): D', file, text.indexOf(' 8,') + 1],
    ['sweep point p2: E', '/w/config.json', 7],
    ['sweep points with page_size=32 (3 of 6): B', file, text.indexOf('32]')],
    ['sweep point p4: C', file, text.indexOf('32]')],
  ]);
});

test('a sweep point\'s deployment checks read no workload draw key: the points that differ only there share one estimate (s47: 256 -> 32 for page_size x tp x arrival_rate)', async () => {
  const { checkProfile, estimate } = await import('../../core/estimate');
  const { isDrawAxis, sweepPointNoter, sweepPointNotes } = await import('../../core/validate');
  const { readSweepBlock, readSweepPoint } = await import('../../core/config');
  const examples = join(__dirname, '..', '..', 'examples');
  const host = { readFile: (p: string): string | null => (existsSync(p) ? readFileSync(p, 'utf8') : null) };
  assert.deepEqual(['workload.arrival_rate', 'workload.prompt_len.median', 'workload.seed', 'workload.max_num_seqs', 'workload.prompt_lens', 'kv_cache.page_size'].map(isDrawAxis), [true, true, true, false, false, false]);
  // Each example with a workload, and the tiny model whose 64 pages refuse to start (deployment warnings to compare),
  // under a sweep of every draw key: one deployment, so every point's checkProfile is the same, word for word and place.
  const drawAxes = `sweep:\n  axes:\n    workload.requests: [10, 100000]\n    workload.arrival_rate: [0.5, 1000]\n    workload.prompt_len: [{ dist: fixed, value: 8 }, { dist: uniform, min: 100, max: 1900 }]\n    workload.output_len: [{ dist: fixed, value: 1 }, { dist: fixed, value: 100 }]\n    workload.prefix_sharing: [{ groups: 1, prefix_len: 4, fraction: 0.1 }, { groups: 8, prefix_len: 8, fraction: 1 }]\n    workload.seed: [1, 2]\n`;
  const profiles: Array<[string, string]> = [
    ...['llama-3.1-8b.attn.yaml', 'gpt-oss-20b.attn.yaml', 'page-size.attn.yaml'].map((n): [string, string] => [join(examples, n), readFileSync(join(examples, n), 'utf8').split('\nsweep:')[0]!]),
    [join(examples, 'qwen3.attn.yaml'), YAML.stringify(JSON.parse(readFileSync(join(examples, 'qwen3-30b-a3b.attn.json'), 'utf8')))],
  ];
  const tiny = workspace(BASE.replace('num_pages: 512', 'num_pages: 64'));
  profiles.push([tiny.file, readFileSync(tiny.file, 'utf8')]);
  for (const [file, text] of profiles) {
    const root = parseProfileText(`${text.trimEnd()}\n${drawAxes}`, file).root!;
    const axes = readSweepBlock(root).block!.axes;
    assert.equal(axes.length, 6);
    const checks = Array.from({ length: 64 }, (_, i) => {
      const read = readSweepPoint(root, axes, i, file, host);
      assert.ok(read.point, `${file} point ${i}: ${read.problems.map((p) => p.message).join('; ')}`);
      return checkProfile(read.point.profile, estimate(read.point.profile));
    });
    for (const c of checks) assert.deepEqual(c, checks[0], file);
    if (file === tiny.file) assert.ok(checks[0]!.some((p) => /vLLM would refuse to start/.test(p.message)));
  }
  // The 256-point sweep of bench:lsp: 8 page sizes x 4 tensor-parallel sizes x 8 arrival rates, at 20% of the H100's
  // memory (15.8 GiB: the 14.96 GiB of weights do not leave a pool at tp 1). Each point's notes through the noter
  // (32 estimates) are those of its own estimate; a noter keyed by fewer axes (page_size alone, or tp alone) gives
  // some points another deployment's notes.
  const powers = (n: number) => Array.from({ length: n }, (_, i) => 2 ** i).join(', ');
  const file = join(examples, 'sweep-256.attn.yaml');
  const text = `${readFileSync(join(examples, 'llama-3.1-8b.attn.yaml'), 'utf8').replace('gpu_memory_utilization: 0.9', 'gpu_memory_utilization: 0.2')}sweep:\n  axes:\n    kv_cache.page_size: [${powers(8)}]\n    device.tensor_parallel_size: [${powers(4)}]\n    workload.arrival_rate: [${powers(8)}]\n`;
  const root = parseProfileText(text, file).root!;
  const axes = readSweepBlock(root).block!.axes;
  const notesOf = sweepPointNoter(axes, 'both');
  const distinct = new Set<string>();
  for (let i = 0; i < 256; i++) {
    const read = readSweepPoint(root, axes, i, file, host);
    const own = sweepPointNotes(read.problems, read.point!.profile, 'both');
    assert.deepEqual(notesOf(read.problems, read.point!.profile, axisIndices(i, [8, 4, 8])), own, read.label);
    distinct.add(JSON.stringify(own));
  }
  // The notes do differ by deployment (page_size 1, 2, 4, 8 each their own warning; tp 1 its fit's): the sharing is not vacuous.
  assert.ok(distinct.size >= 10, String(distinct.size));
});

test('a sweep point\'s notes are the editor\'s diagnostics too: at the axis value, in the words `attnscope sweep` prints (s46: page_size 2 and 4 only on the CLI)', async () => {
  const { sweepPointNoter } = await import('../../core/validate');
  const { offsetToLineColumn } = await import('../../core/config');
  // The shipped page-size example: page_size 2 and 4 are the CPU kernel's what-if, not a block size vLLM takes
  // (vllm/config/cache.py BlockSize: 1, 8, 16, 32, 64, 128, 256). Line 34 is `    kv_cache.page_size: [1, 2, 4, ...]`:
  // "2" at column 29, "4" at column 32, by counting.
  const file = join(__dirname, '..', '..', 'examples', 'page-size.attn.yaml');
  const text = readFileSync(file, 'utf8');
  const host = { readFile: (p: string): string | null => (existsSync(p) ? readFileSync(p, 'utf8') : null) };
  const cli = loadSweep(file).notes.filter((n) => /sweep point page_size=[24]:/.test(n));
  assert.equal(cli.length, 2, cli.join('\n'));
  const root = parseProfileText(text, file).root;
  const { problems } = sweepProblems(root, file, host, [], sweepPointNoter);
  const shown = problems.filter((p) => p.severity !== 'error').map((p) => {
    const { line, column } = offsetToLineColumn(text, p.range.offset);
    return `${file}:${line}:${column}: ${p.severity}: ${p.message}`;
  });
  // Each CLI line is a diagnostic, word for word and at its place (the CLI names the file as typed: here the same absolute path).
  for (const line of cli) assert.ok(shown.includes(line), `${line}\nnot among\n${shown.join('\n')}`);
  assert.deepEqual(cli.map((l) => /:(\d+:\d+): warning: sweep point page_size=(\d)/.exec(l)!.slice(1)), [['34:29', '2'], ['34:32', '4']]);
  // Before: the editor left a point's warnings out (sweepProblems kept errors only).
  assert.equal(sweepProblems(root, file, host).problems.filter((p) => /sweep point page_size=2:/.test(p.message)).length, 0);
});

test('a --set of many values: its point notes one line per kind, naming the values, the argument shortened (s48 newcomer M4)', () => {
  // `--set kv_cache.page_size=1,...,2000` printed 1,995 lines of ~9 KB, each quoting the whole argument (18.3 MB).
  const { file } = workspace(BASE);
  const arg = `kv_cache.page_size=${Array.from({ length: 40 }, (_, i) => i + 1).join(',')}`;
  const plan = loadSweep(file, { set: [arg] });
  // (page_size 1 to 3 also hold less than one max_model_len sequence in the 512 pages: a note each, their figures differ.)
  // Each grouped note wrapped to 100 columns (s49): read unwrapped.
  const pageNotes = plan.notes.filter((n) => n.startsWith('--set ') && n.includes('is not a block size')).map((n) => n.replace(/\n {4}/g, ' '));
  assert.ok(plan.notes.filter((n) => n.includes(' (values ')).every((n) => n.split('\n').every((l) => l.length <= 100)), plan.notes.join('\n'));
  assert.ok(plan.notes.every((n) => n.length < 1000), plan.notes.join('\n'));
  // vLLM's block sizes 1, 8, 16, 32 run; the other 36 values are warned in 4 lines, one per suggested size
  // (2–4 try 1 or 8: the nearest; by the 4 "try" values: 3 + 7 + 11 + 15 = 36 values).
  assert.equal(pageNotes.length, 4, pageNotes.join('\n'));
  assert.ok(pageNotes.every((n) => !n.includes(arg) && n.startsWith('--set kv_cache.page_size=1, 2, 3, ..., 40 (40 values) (values ')), pageNotes.join('\n'));
  assert.ok(pageNotes.includes('--set kv_cache.page_size=1, 2, 3, ..., 40 (40 values) (values 13–15, 17–24 of 40; … stands for each): warning: sweep point page_size=…: page_size … is not a block size vLLM takes: its --block-size is one of 1, 8, 16, 32, 64, 128, 256 (vllm/config/cache.py BlockSize): try 16 (the same for each of these 11 values)'), pageNotes.join('\n'));
  const counted = pageNotes.map((n) => Number(/these (\d+) values\)$/.exec(n)![1]));
  assert.equal(counted.reduce((a, b) => a + b, 0), 36);
  // A note of one value alone keeps its "(value k of n)".
  const few = loadSweep(file, { set: ['kv_cache.page_size=3,16'] }).notes.filter((n) => n.startsWith('--set ') && n.includes('is not a block size'));
  assert.deepEqual(few.map((n) => n.slice(0, n.indexOf(': warning'))), ['--set kv_cache.page_size=3,16 (value 1 of 2)']);
});

test('positionRuns: consecutive positions as runs, the first three, then how many more', () => {
  assert.equal(positionRuns([2, 3, 4, 6, 9, 10, 11, 13, 14]), '2–4, 6, 9–11 and 2 more');
  assert.equal(positionRuns([1, 8]), '1, 8');
  assert.equal(positionRuns([193, 194, 195, 1000, 1001, 1002]), '193–195, 1,000–1,002');
});
