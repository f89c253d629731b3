/**
 * `attnscope sweep`, `merge` and `submit --k8s` as a user runs them: the built dist/runner.js in
 * child processes. Shards run as separate processes must merge into exactly the unsharded
 * sweep (the simulations are deterministic); a second invocation resumes; Ctrl-C leaves only
 * whole point files; bad input is one line and exit 2 before any work; `--events` streams the
 * same as NDJSON for the editor.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { closeSync, copyFileSync, existsSync, ftruncateSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import * as YAML from 'yaml';
import type { RunnerEvent, RunnerProgressEvent } from '../../core/protocol/runner';
import type { SweepPointRun, SweepReport } from '../../core/protocol/sweep';
import { parseEvent, runnerLaunch } from '../../core/runnerProcess';
import { resumeArgs } from '../../extension/sweepReports';
import { sweepToCsv } from '../../core/sweepCsv';
import { cancelWhileReadingFifo, HANDED_FIFO } from '../fixtures/fifo';
import { comparable, sweepWorkspace } from '../fixtures/sweep';
import { unwrapped } from '../fixtures/unwrap';
import { tempDir } from '../fixtures/tmp';


const root = join(__dirname, '..', '..');
const runner = join(root, 'dist', 'runner.js');

function cli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const r = spawnSync(process.execPath, [runner, ...args], { encoding: 'utf8', timeout: 300_000, cwd: opts.cwd, env: { ...process.env, ...opts.env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** 6 points; a 64 MiB KV budget; a trace whose requests share 256-token prefixes. */
const PROFILE = `model: ./tiny/config.json
kv_cache: { memory_gib: 0.0625 }
workload:
  requests: 400
  arrival_rate: 50
  prompt_len: { dist: lognormal, median: 400, sigma: 0.5, max: 2048 }
  output_len: { dist: uniform, min: 16, max: 128 }
  prefix_sharing: { groups: 4, prefix_len: 256, fraction: 0.5 }
  max_model_len: 4096
  seed: 7
sweep:
  axes:
    kv_cache.page_size: [1, 16, 64]
    workload.max_num_seqs: [4, 16]
`;

function workspace(profile = PROFILE): { dir: string; file: string } {
  return sweepWorkspace(profile, 'grid.attn.yaml', 'attnscope-sweep-cli-');
}

const readReport = (path: string): SweepReport => JSON.parse(readFileSync(path, 'utf8')) as SweepReport;

let local: { dir: string; out: string; report: SweepReport } | undefined;
/** The unsharded sweep, run once with 2 workers and shared by the tests below. */
function localSweep() {
  if (local) return local;
  const { dir, file } = workspace();
  const out = join(dir, 'local');
  const r = cli(['sweep', file, '--jobs', '2', '--out', out]);
  assert.equal(r.code, 0, r.stderr);
  local = { dir, out, report: readReport(join(out, 'sweep-report.json')) };
  return local;
}

test('sweep writes one whole run JSON per point, and the figures follow the hand calculation', () => {
  const { out, report } = localSweep();
  const files = readdirSync(out).filter((n) => n !== 'sweep-report.json');
  assert.equal(files.length, 6);
  assert.ok(files.every((n) => /^[0-9a-f]{12}-[0-9a-f]{8}\.json$/.test(n)), files.join(' '));
  assert.equal(report.rows.length, 6);
  assert.deepEqual(report.missing, []);
  const row = (ps: number, seqs: number) => report.rows.find((r) => r.values['kv_cache.page_size'] === ps && r.values['workload.max_num_seqs'] === seqs)!;
  // Pool pages = 64 MiB / (page_size × 1,024 B per token): 65,536 / 4,096 / 1,024 pages.
  assert.deepEqual([1, 16, 64].map((ps) => row(ps, 4).metrics.poolPages), [65536, 4096, 1024]);
  // One-token pages are never partly filled: no internal waste; bigger pages waste their tail.
  assert.equal(row(1, 16).metrics.internalFragmentation, 0);
  assert.ok(row(16, 16).metrics.internalFragmentation! > 0 && row(64, 16).metrics.internalFragmentation! > row(16, 16).metrics.internalFragmentation!);
  // Shared 256-token prefixes hit the prefix cache at every page size.
  assert.ok(report.rows.every((r) => r.metrics.prefixHitRate! > 0));
  const point = JSON.parse(readFileSync(row(16, 4).file, 'utf8')) as SweepPointRun;
  assert.equal(point.status, 'ok');
  assert.equal(point.profile.kvCache.pageSize, 16);
  assert.equal(point.profile.workload!.maxNumSeqs, 4);
  assert.equal(point.sweep.total, 6);
  assert.ok(point.environment.cpuModel.length > 0);
  // A simulation's run, and it says so as `simulate --json` does (s34 newcomer-cli 8: no kind).
  assert.equal(point.kind, 'simulate');
  // Whether the server keeps up, judged as --max-rate judges a rate (μ from a saturation run).
  assert.equal(typeof point.pool!.load!.keepsUp, 'boolean');
  assert.ok(point.pool!.load!.saturatedRequestsPerSec! > 0, JSON.stringify(point.pool!.load));
  assert.equal(row(16, 4).keepsUp, point.pool!.load!.keepsUp);
});

test('point files are compact JSON with at most 800 pool samples (s33 newcomer-cli 8: 0.4-0.65 MB each)', () => {
  const { out } = localSweep();
  for (const name of readdirSync(out).filter((n) => n !== 'sweep-report.json')) {
    const text = readFileSync(join(out, name), 'utf8');
    // One line (JSON.stringify without indent) and its newline: an indented file has a line per field.
    assert.equal(text.indexOf('\n'), text.length - 1, `${name} is indented`);
    // The simulator halves its samples each time they reach maxSamples (worker.ts POINT_POOL_SAMPLES = 800):
    // at most 800 (a single run keeps up to 2,000; these 400-request points kept over 1,000 before).
    const samples = (JSON.parse(text) as SweepPointRun).pool!.samples.length;
    assert.ok(samples > 0 && samples <= 800, `${name}: ${samples} samples`);
  }
});

test('a second invocation resumes: nothing is run again, the files stay as they were', () => {
  const { dir, out } = localSweep();
  const before = readdirSync(out).filter((n) => n !== 'sweep-report.json').map((n) => [n, statSync(join(out, n)).mtimeMs]);
  const r = cli(['sweep', join(dir, 'grid.attn.yaml'), '--out', out]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /resumed: 6 of 6 points were already in/);
  assert.deepEqual(before.map(([n]) => [n, statSync(join(out, n as string)).mtimeMs]), before);
  // The table and the report say so of every row: a column, and its legend.
  const lines = r.stdout.split('\n');
  const header = lines.findIndex((l) => /^page_size\s+max_num_seqs\s+result\s/.test(l));
  assert.ok(header >= 0, r.stdout);
  assert.deepEqual(lines.slice(header + 1, header + 7).map((l) => l.split(/\s+/)[2]), Array(6).fill('resumed'));
  assert.match(unwrapped(r.stdout), /^result: resumed = already in the results folder from an earlier run of this sweep by this build, not run again$/m);
  assert.deepEqual(readReport(join(out, 'sweep-report.json')).rows.map((row) => row.origin), Array(6).fill('resumed'));
  // The first invocation ran every point: its report says 'run', and its table has no such column.
  assert.deepEqual(local!.report.rows.map((row) => row.origin), Array(6).fill('run'));
});

test('a point another build wrote is run again, not resumed; a merge of points of two builds names each row\'s build (s36 sweep36 1)', () => {
  const { dir, file } = workspace();
  const out = join(dir, 'builds');
  assert.equal(cli(['sweep', file, '--out', out]).code, 0);
  // This build's identity as --version prints it: the package version + 12 hex digits (runner/version.ts).
  const version = cli(['--version']).stdout.trim();
  assert.match(version, /^attnscope 0\.1\.0\+[0-9a-f]{12}$/);
  const names = readdirSync(out).filter((n) => n !== 'sweep-report.json').sort();
  const points = names.map((n) => JSON.parse(readFileSync(join(out, n), 'utf8')) as SweepPointRun);
  assert.deepEqual([...new Set(points.map((p) => p.tool))], [version]);
  // One point as the runner before s36 wrote it: "attnscope 0.1.0", whatever its code.
  const old = { ...points[0]!, tool: 'attnscope 0.1.0' };
  writeFileSync(join(out, names[0]!), `${JSON.stringify(old)}\n`);
  const merged = cli(['merge', out]);
  assert.equal(merged.code, 0, merged.stderr);
  // The table has a build column: 0.1.0 on the old point's row, this build on the other 5.
  const lines = merged.stdout.split('\n');
  const header = lines.findIndex((l) => /^page_size\s+max_num_seqs\s+build\s/.test(l));
  assert.ok(header >= 0, merged.stdout);
  const builds = lines.slice(header + 1, header + 7).map((l) => l.split(/\s+/)[2]);
  assert.deepEqual(builds.filter((b) => b === '0.1.0').length, 1, merged.stdout);
  assert.deepEqual(builds.filter((b) => b === version.slice('attnscope '.length)).length, 5, merged.stdout);
  assert.match(unwrapped(merged.stdout), /^results of 2 builds of attnscope .*0\.1\.0\+[0-9a-f]{12} \(5 rows\), 0\.1\.0 \(1 row\)|results of 2 builds of attnscope .*0\.1\.0 \(1 row\), 0\.1\.0\+[0-9a-f]{12} \(5 rows\)/m);
  // Resumed: the 5 of this build are kept, the old build's point is run again and rewritten by this build.
  const r = cli(['sweep', file, '--out', out]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /resumed: 5 of 6 points were already in/);
  assert.match(r.stderr, /run again: 1 of 6 points in .* were written by another build \(attnscope 0\.1\.0\), not this one \(attnscope 0\.1\.0\+[0-9a-f]{12}\)/);
  const report = readReport(join(out, 'sweep-report.json'));
  assert.deepEqual(report.rows.map((row) => row.origin).sort(), ['resumed', 'resumed', 'resumed', 'resumed', 'resumed', 'run']);
  assert.deepEqual([...new Set(report.rows.map((row) => row.tool))], [version]);
  assert.equal((JSON.parse(readFileSync(join(out, names[0]!), 'utf8')) as SweepPointRun).tool, version);
  assert.doesNotMatch(r.stdout, /builds of attnscope/);
});

test('μ is measured once per saturation key: points that differ only in arrival_rate reuse it, name whose it is, and get the μ their own saturation run gives (s36 sweep36 5)', () => {
  const profile = PROFILE.replace(/sweep:[\s\S]*$/, 'sweep:\n  axes:\n    workload.max_num_seqs: [4, 16]\n    workload.arrival_rate: [5, 80]\n');
  const { dir, file } = workspace(profile);
  const r = cli(['sweep', file, '--jobs', '2', '--out', join(dir, 'mu')]);
  assert.equal(r.code, 0, r.stderr);
  const points = readdirSync(join(dir, 'mu')).filter((n) => n !== 'sweep-report.json').map((n) => JSON.parse(readFileSync(join(dir, 'mu', n), 'utf8')) as SweepPointRun);
  const load = (seqs: number, rate: number) => points.find((p) => p.sweep.values['workload.max_num_seqs'] === seqs && p.sweep.values['workload.arrival_rate'] === rate)!.pool!.load!;
  for (const seqs of [4, 16]) {
    // One of the two points of each max_num_seqs measured μ (--jobs 2 runs the other max_num_seqs beside it, not the twin); the other names it.
    const [a, b] = [load(seqs, 5), load(seqs, 80)];
    assert.equal([a, b].filter((l) => l.saturatedFrom === undefined).length, 1, JSON.stringify([a, b]));
    const measuredBy = a.saturatedFrom === undefined ? 5 : 80;
    assert.equal((a.saturatedFrom ?? b.saturatedFrom), `sweep point max_num_seqs=${seqs} arrival_rate=${measuredBy}`);
    assert.equal(a.saturatedRequestsPerSec, b.saturatedRequestsPerSec);
    // Independent: the reusing point swept alone measures μ itself, and gets the same value.
    const other = measuredBy === 5 ? 80 : 5;
    const alone = cli(['sweep', file, '--set', `workload.max_num_seqs=${seqs}`, '--set', `workload.arrival_rate=${other}`, '--out', join(dir, `alone-${seqs}`)]);
    assert.equal(alone.code, 0, alone.stderr);
    const own = JSON.parse(readFileSync(join(dir, `alone-${seqs}`, readdirSync(join(dir, `alone-${seqs}`)).find((n) => n !== 'sweep-report.json')!), 'utf8')) as SweepPointRun;
    assert.equal(own.pool!.load!.saturatedFrom, undefined);
    assert.equal(own.pool!.load!.saturatedRequestsPerSec, a.saturatedRequestsPerSec);
  }
  // Another max_num_seqs is another μ (8 · max_num_seqs sequences a wave): not shared.
  assert.notEqual(load(4, 5).saturatedRequestsPerSec, load(16, 5).saturatedRequestsPerSec);
});

test('a grown sweep reuses the simulated points an earlier sweep of the profile computed, says how many, and reports exactly what a fresh run of the grown sweep does', () => {
  const { dir, file } = workspace();
  const first = cli(['sweep', file, '--jobs', '2'], { cwd: dir });
  assert.equal(first.code, 0, first.stderr);
  // page_size 128 added: 4 × 2 = 8 points, of which the first sweep's 3 × 2 = 6 are reused and 2 run.
  const grown = cli(['sweep', file, '--jobs', '2', '--set', 'kv_cache.page_size=1,16,64,128'], { cwd: dir });
  assert.equal(grown.code, 0, grown.stderr);
  assert.match(grown.stderr, /reused: 6 of 8 points from earlier sweeps of this profile \(same point values, base profile, model config, machine kind and build: a simulation gives the same result\), copied from .*\.attnscope\/sweeps\/grid-[0-9a-f]{8}; run now: 2\n/);
  const folders = readdirSync(join(dir, '.attnscope', 'sweeps'));
  assert.equal(folders.length, 2);
  const grownReport = folders.map((f) => readReport(join(dir, '.attnscope', 'sweeps', f, 'sweep-report.json'))).find((r) => r.total === 8)!;
  // The 6 reused rows are marked, with the folder they came from; the 2 of page_size 128 were run.
  const earlierFolder = folders.find((f) => !grownReport.rows[0]!.file.includes(f))!;
  for (const row of grownReport.rows) {
    if (row.values['kv_cache.page_size'] === 128) assert.deepEqual([row.origin, row.reusedFrom], ['run', undefined]);
    else assert.deepEqual([row.origin, row.reusedFrom?.endsWith(earlierFolder)], ['reused', true]);
  }
  assert.equal(grown.stdout.match(/^\S+\s+\S+\s+reused\s/gm)?.length, 6, grown.stdout);
  assert.equal(grown.stdout.match(/^128\s+\S+\s+run\s/gm)?.length, 2, grown.stdout);
  assert.match(unwrapped(grown.stdout), /^result: run = run by this command; reused = copied from an earlier sweep of this profile \(.*grid-[0-9a-f]{8}\): same point values, base profile, model config, machine kind and build give the same simulation$/m);
  // The same grown sweep run from nothing, in a workspace without earlier sweeps: every figure equal.
  const fresh = workspace();
  const alone = cli(['sweep', fresh.file, '--jobs', '2', '--set', 'kv_cache.page_size=1,16,64,128'], { cwd: fresh.dir });
  assert.equal(alone.code, 0, alone.stderr);
  assert.doesNotMatch(alone.stderr, /reused/);
  const [freshFolder] = readdirSync(join(fresh.dir, '.attnscope', 'sweeps'));
  assert.deepEqual(comparable(grownReport), comparable(readReport(join(fresh.dir, '.attnscope', 'sweeps', freshFolder!, 'sweep-report.json'))));
});

test('shards run as separate processes (--shard and SLURM_ARRAY_TASK_ID) merge into exactly the unsharded sweep', () => {
  const { dir, report } = localSweep();
  const file = join(dir, 'grid.attn.yaml');
  const shardDirs = [0, 1, 2].map((i) => join(dir, `shard-${i}`));
  const r0 = cli(['sweep', file, '--shard', '0/3', '--out', shardDirs[0]!]);
  assert.equal(r0.code, 0, r0.stderr);
  assert.match(r0.stdout, /shard 0\/3 \(2 of 6 points\) done/);
  // s40 newcomer 10: the header and the best line say the report is one shard's ("2 results for 6 of 6 points" was).
  assert.match(unwrapped(r0.stdout), /: 2 results for the 2 points of shard 0\/3 \(of 6 points; the rest are other shards\)\n/);
  assert.match(r0.stdout, /\nbest of this shard: /);
  assert.doesNotMatch(r0.stderr, /from the environment/, '--shard given: no word of the environment');
  for (const i of [1, 2]) {
    const r = cli(['sweep', file, '--out', shardDirs[i]!], { env: { SLURM_ARRAY_TASK_ID: String(i), SLURM_ARRAY_TASK_COUNT: '3' } });
    assert.equal(r.code, 0, r.stderr);
    // Said first, before any point: the shard came from the environment (a shell inside an salloc).
    assert.match(r.stderr, new RegExp(`^sweep: shard ${i}/3 \\(2 of 6 points\\) from the environment \\(SLURM_ARRAY_TASK_ID=${i} of SLURM_ARRAY_TASK_COUNT=3\\): the points of this shard alone are run and reported; merge all shards with attnscope merge, or unset those variables to run the whole sweep here\n`));
  }
  // A shard writes no report: only the merge of all of them is whole.
  assert.equal(existsSync(join(shardDirs[0]!, 'sweep-report.json')), false);
  const partial = cli(['merge', shardDirs[0]!, shardDirs[1]!, '--json', join(dir, 'partial.json')]);
  assert.equal(partial.code, 0, partial.stderr);
  assert.equal(readReport(join(dir, 'partial.json')).missing.length, 2);
  assert.match(partial.stdout, /missing 2 points: /);
  const m = cli(['merge', ...shardDirs, '--json', join(dir, 'merged.json')]);
  assert.equal(m.code, 0, m.stderr);
  assert.deepEqual(comparable(readReport(join(dir, 'merged.json'))), comparable(report));
  assert.match(m.stdout, /\): 6 of 6 points\n/);
});

test('merge --csv writes the Sweep tab\'s Export CSV (core/sweepCsv.ts, one implementation): its columns, a hand-checked row; /dev/stdout holds the CSV alone (s44 newcomer LOW-12)', () => {
  const { dir, out } = localSweep();
  const m = cli(['merge', out, '--json', join(dir, 'csv.json'), '--csv', '/dev/stdout']);
  assert.equal(m.code, 0, m.stderr);
  // The same text as the dashboard's export of the same report, and the table on stderr.
  assert.equal(m.stdout, sweepToCsv(readReport(join(dir, 'csv.json'))).text);
  assert.match(m.stderr, /\): 6 of 6 points\n/);
  const [header, ...rows] = m.stdout.trimEnd().split('\n').map((l) => l.split(','));
  // s53: the build that made each row on every row, beside its environment.
  assert.deepEqual(header!.slice(0, 8), ['point', 'point_id', 'kv_cache.page_size', 'workload.max_num_seqs', 'environment', 'build', 'status', 'best']);
  // One row per point, each figure's source in its header (s49 newcomer-ed 12): no `source` column.
  assert.ok(!header!.includes('source'));
  for (const c of ['pool_pages_modelled', 'kv_bytes_per_token_modelled', 'page_bytes_modelled', 'output_throughput_tokens_per_s_modelled', 'ttft_p99_ms_modelled', 'gpu', 'gpus', 'compute_efficiency', 'compute_efficiency_from']) assert.ok(header!.includes(c), `${c} in ${header!.join(',')}`);
  // A modelled simulation: a row per point.
  assert.equal(rows.length, 6);
  const cell = (r: string[], c: string) => r[header!.indexOf(c)];
  const row = rows.find((r) => cell(r, 'kv_cache.page_size') === '16' && cell(r, 'workload.max_num_seqs') === '4')!;
  // By hand (test/fixtures/sweep.ts TINY_CONFIG): 2 layers × 2 KV heads × 64 × 2 (K, V) × 2 B = 1,024 B a token; a 16-token page
  // 16,384 B; the 64 MiB budget 67,108,864 / 16,384 = 4,096 pages; one GPU (no tensor, pipeline or data parallelism).
  assert.deepEqual(['status', 'kv_bytes_per_token_modelled', 'page_bytes_modelled', 'pool_pages_modelled', 'gpus'].map((c) => cell(row, c)), ['ok', '1024', '16384', '4096', '1']);
  // The build as `attnscope --version` writes it, less "attnscope ": the package version and 12 hex (+source under tsx).
  assert.match(cell(row, 'build')!, /^\d+\.\d+\.\d+\+[0-9a-f]{12}(\+source)?$/);
  // A file, and --csv beside --json on one file refused before any work.
  const file = join(dir, 'sweep.csv');
  assert.equal(cli(['merge', out, '--json', join(dir, 'csv2.json'), '--csv', file]).code, 0);
  assert.equal(readFileSync(file, 'utf8'), m.stdout);
  const same = cli(['merge', out, '--json', join(dir, 'both'), '--csv', join(dir, 'both')]);
  assert.equal(same.code, 2);
  assert.equal(same.stderr, `attnscope: --csv ${join(dir, 'both')}: --json writes there too; give them two files\n`);
  assert.equal(existsSync(join(dir, 'both')), false);
});

test('merge refuses the results of a different sweep', () => {
  const { dir, out } = localSweep();
  const other = workspace(PROFILE.replace('seed: 7', 'seed: 8'));
  const r = cli(['sweep', other.file, '--set', 'kv_cache.page_size=16', '--out', join(other.dir, 'o')]);
  assert.equal(r.code, 0, r.stderr);
  const m = cli(['merge', out, join(other.dir, 'o'), '--json', join(dir, 'never.json')]);
  assert.equal(m.code, 2);
  assert.match(m.stderr.trim(), /^.*\.json:1:1: holds a point of another sweep/);
  assert.equal(existsSync(join(dir, 'never.json')), false);
});

test('--json naming a file the sweep or merge reads (the profile, the model config, a point result) is refused before any work: exit 2, one line, the file unchanged', () => {
  const { dir, out } = localSweep();
  const file = join(dir, 'grid.attn.yaml');
  const config = join(dir, 'tiny', 'config.json');
  const point = join(out, readdirSync(out).filter((n) => n !== 'sweep-report.json').sort()[0]!);
  const before = [file, config, point].map((f) => readFileSync(f, 'utf8'));
  for (const [args, json, what] of [
    [['sweep', file, '--out', join(dir, 'never')], file, 'the profile'],
    [['sweep', file, '--out', join(dir, 'never')], config, "a model's config.json"],
    [['sweep', file, '--out', out], point, 'a sweep point result'],
    [['merge', out], point, 'a sweep point result'],
  ] as const) {
    const r = cli([...args, '--json', json]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, `attnscope: --json ${json}: is ${what} this run reads; give another file\n`);
    assert.equal(r.stdout, '');
  }
  assert.equal(existsSync(join(dir, 'never')), false);
  assert.deepEqual([file, config, point].map((f) => readFileSync(f, 'utf8')), before);
});

test('sweep --out holding a sweep-report.json that is not this sweep\'s (another sweep\'s, not AttnScope\'s, a device) is refused before any point runs: exit 2, one line, the file unchanged', () => {
  const { dir, report } = localSweep();
  const file = join(dir, 'grid.attn.yaml');
  const mine = '{"mine":"important report"}\n';
  const foreign = join(dir, 'foreign');
  mkdirSync(foreign);
  writeFileSync(join(foreign, 'sweep-report.json'), mine);
  const other = join(dir, 'other');
  mkdirSync(other);
  const otherReport = readFileSync(join(localSweep().out, 'sweep-report.json'), 'utf8');
  writeFileSync(join(other, 'sweep-report.json'), otherReport);
  const device = join(dir, 'device');
  mkdirSync(device);
  symlinkSync('/dev/zero', join(device, 'sweep-report.json'));
  // --set page_size=8 makes another sweep than the local one (its axes differ, so does its id).
  const set = ['--set', 'kv_cache.page_size=8'];
  for (const [out, line] of [
    [foreign, /^.*foreign\/sweep-report\.json:1:1: is not an AttnScope sweep report: grid\.attn\.yaml would write its report over it; give another --out or move that file$/],
    [other, new RegExp(`^.*other/sweep-report\\.json:1:1: holds the report of another sweep \\(grid\\.attn\\.yaml, sweep ${report.sweepId}\\), not of grid\\.attn\\.yaml \\(sweep [0-9a-f]{16}\\): grid\\.attn\\.yaml would write its report over it; give another --out or move that file$`)],
    [device, /^.*device\/sweep-report\.json:1:1: is not a regular file \(a device\), not a sweep report: /],
  ] as const) {
    const r = cli(['sweep', file, ...set, '--out', out]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr.trim(), line);
    assert.deepEqual(readdirSync(out), ['sweep-report.json'], 'no point ran');
  }
  assert.equal(readFileSync(join(foreign, 'sweep-report.json'), 'utf8'), mine);
  assert.equal(readFileSync(join(other, 'sweep-report.json'), 'utf8'), otherReport);
  assert.ok(lstatSync(join(device, 'sweep-report.json')).isSymbolicLink());
});

test('sweep --out an existing folder that is neither empty nor this sweep\'s results folder is refused before any point runs, exit 2, one line; one holding another sweep\'s point in a sub-folder (which the merge reads) too (s40 newcomer 3)', () => {
  const { dir, out } = localSweep();
  const file = join(dir, 'grid.attn.yaml');
  // "Empty": dot-files and a Slurm sweep's script and task logs only. --set page_size=8 is another sweep (2 points).
  const slurmOnly = join(dir, 'slurm-only');
  mkdirSync(slurmOnly);
  for (const n of ['.keep', 'sweep.sbatch', 'slurm-12_0.out']) writeFileSync(join(slurmOnly, n), '');
  const ok = cli(['sweep', file, '--set', 'kv_cache.page_size=8', '--out', slurmOnly]);
  assert.equal(ok.code, 0, ok.stderr);
  const otherPoint = readdirSync(slurmOnly).find((n) => /^[0-9a-f]{12}-[0-9a-f]{8}\.json$/.test(n))!;
  // A folder of anything else (a checkout, /, the profile's own folder): no point file of this sweep in it.
  const notes = join(dir, 'notes');
  mkdirSync(notes);
  writeFileSync(join(notes, 'notes.txt'), 'mine\n');
  writeFileSync(join(notes, 'package.json'), '{}\n');
  const r = cli(['sweep', file, '--out', notes]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`^attnscope: --out ${notes.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: holds "notes\\.txt" and 1 more entry and no result of grid\\.attn\\.yaml \\(sweep [0-9a-f]{16}\\): .*give a new or empty folder, or leave --out out\n$`));
  assert.deepEqual(readdirSync(notes).sort(), ['notes.txt', 'package.json'], 'no point ran');
  // This sweep's folder (one point missing, so a point would run) with another sweep's point in a sub-folder.
  const mixed = join(dir, 'mixed');
  mkdirSync(join(mixed, 'sub'), { recursive: true });
  const mine = readdirSync(out).filter((n) => n !== 'sweep-report.json').sort();
  for (const n of mine.slice(1)) copyFileSync(join(out, n), join(mixed, n));
  copyFileSync(join(slurmOnly, otherPoint), join(mixed, 'sub', otherPoint));
  const m = cli(['sweep', file, '--out', mixed]);
  assert.equal(m.code, 2, m.stderr);
  assert.equal(m.stderr, `${join(mixed, 'sub', otherPoint)}:1:1: holds a point of another sweep (grid.attn.yaml, sweep ${JSON.parse(readFileSync(join(slurmOnly, otherPoint), 'utf8')).sweep.sweepId}), not of grid.attn.yaml (sweep ${JSON.parse(readFileSync(join(out, mine[0]!), 'utf8')).sweep.sweepId}), which the merge of --out ${mixed} would read: give another --out or move that file\n`);
  assert.deepEqual(readdirSync(mixed).sort(), [...mine.slice(1), 'sub'].sort(), 'no point ran');
});

test('merge and a resumed sweep skip, with a warning, a *.json that is no regular file (a FIFO, /dev/zero, a link loop) or is past the point-file cap, instead of hanging on it; a point file in a FIFO\'s place is refused', () => {
  const { dir, out, report } = localSweep();
  const file = join(dir, 'grid.attn.yaml');
  const copy = join(dir, 'odd');
  mkdirSync(copy);
  for (const n of readdirSync(out).filter((n) => n !== 'sweep-report.json')) copyFileSync(join(out, n), join(copy, n));
  assert.equal(spawnSync('mkfifo', [join(copy, 'aa.json')]).status, 0);
  symlinkSync('/dev/zero', join(copy, 'zz-zero.json'));
  symlinkSync('loop.json', join(copy, 'loop.json'));
  symlinkSync('.', join(copy, 'again')); // the folder itself once more: walked once
  // 64 MiB + 1 byte (sparse): past MAX_POINT_BYTES, skipped without being read.
  const big = openSync(join(copy, 'big.json'), 'w');
  ftruncateSync(big, 64 * 2 ** 20 + 1);
  closeSync(big);
  const m = cli(['merge', copy, '--json', join(dir, 'odd.json')]);
  assert.equal(m.code, 0, m.stderr);
  assert.deepEqual(m.stderr.trim().split('\n').sort(), [
    `${join(copy, 'aa.json')}:1:1: warning: skipped: not a regular file (a FIFO)`,
    `${join(copy, 'big.json')}:1:1: warning: skipped: 67,108,865 bytes, past the 64 MiB such a file is at most`,
    `${join(copy, 'loop.json')}:1:1: warning: skipped: a symbolic link loop`,
    `${join(copy, 'zz-zero.json')}:1:1: warning: skipped: not a regular file (a device)`,
  ]);
  assert.deepEqual(comparable(readReport(join(dir, 'odd.json'))), comparable(report));
  // The same sweep resumed in that folder: its merge reads past them too.
  const r = cli(['sweep', file, '--out', copy]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /resumed: 6 of 6 points were already in/);
  // A FIFO under a point's own file name: the point's result would be written into it (blocking with no reader).
  const [point, another] = readdirSync(out).filter((n) => n !== 'sweep-report.json').sort();
  const fifoDir = join(dir, 'fifo');
  mkdirSync(fifoDir);
  // Beside a point of this sweep: a folder holding the FIFO alone is no results folder of it (s40 newcomer 3).
  copyFileSync(join(out, another!), join(fifoDir, another!));
  assert.equal(spawnSync('mkfifo', [join(fifoDir, point!)]).status, 0);
  const f = cli(['sweep', file, '--out', fifoDir]);
  assert.equal(f.code, 2, f.stderr);
  assert.match(f.stderr, new RegExp(`^${join(fifoDir, point!).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1:1: is not a regular file \\(a FIFO\\), where the result of point .* is written: remove it or give another --out\n$`));
});

test('bad input: one line, exit 2, nothing written', () => {
  const { dir, file } = workspace();
  const out = join(dir, 'never');
  const r = cli(['sweep', file, '--set', 'kv_cache.page_size=0', '--out', out]);
  assert.equal(r.code, 2);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  // Both max_num_seqs points hold page_size 0: said once for the two.
  assert.equal(r.stderr, 'attnscope: --set kv_cache.page_size=0 (value 1 of 1): sweep points page_size=0 max_num_seqs=4 and 1 more: kv_cache.page_size must be >= 1, not 0\n');
  assert.equal(existsSync(out), false);
  // 1e9 is a whole number, but not written in digits, as the flag wants.
  const jobs = cli(['sweep', file, '--jobs', '1e9', '--out', out]);
  assert.equal(jobs.code, 2);
  assert.equal(jobs.stderr, "attnscope: --jobs must be a whole number >= 1 in digits, got '1e9'\n");
  // 99999999999999999999 reads as 1e20 (s37 newcomer 7: accepted); more workers than the most points a sweep has is no setting.
  const huge = cli(['sweep', file, '--jobs', '99999999999999999999', '--out', out]);
  assert.equal(huge.code, 2);
  assert.equal(huge.stderr, 'attnscope: --jobs must be at most 100,000 (a worker per point, and a sweep has at most that many points), got 99999999999999999999\n');
  const shard = cli(['sweep', file, '--shard', '3/3', '--out', out]);
  assert.equal(shard.code, 2);
  // The range for this N, not "0..N-1" (s48 newcomer L6).
  assert.equal(shard.stderr, 'attnscope: --shard 3/3: i must be in 0..2 (shards count from 0 to N − 1)\n');
  // A bad flag is its error alone, before the profile's notes (s48 newcomer L3: page_size=1's vLLM warning came first).
  for (const bad of ['0', '-1', '1.5']) {
    const j = cli(['sweep', file, `--jobs=${bad}`, '--out', out]);
    assert.equal(j.code, 2);
    assert.equal(j.stderr, `attnscope: --jobs must be a whole number >= 1 in digits, got '${bad}'\n`);
  }
  const here = cli(['sweep', file, '--out', '.'], { cwd: dir });
  assert.equal(here.code, 2);
  assert.equal(here.stderr.trim().split('\n').length, 1, here.stderr);
  assert.doesNotMatch(here.stderr, /warning/);
  // A shard from the environment out of range: one line naming the variables and the fix, exit 2
  // (newcomer report s31 item 9).
  const env = cli(['sweep', file, '--out', out], { env: { SLURM_ARRAY_TASK_ID: '5', SLURM_ARRAY_TASK_COUNT: '3' } });
  assert.equal(env.code, 2);
  assert.equal(env.stderr, 'attnscope: shard 5/3 from SLURM_ARRAY_TASK_ID=5 of SLURM_ARRAY_TASK_COUNT=3 is not in 0..2: give --shard i/N, or submit with an sbatch --array of consecutive task IDs, one per shard (e.g. --array=0-2 for 3)\n');
  assert.equal(existsSync(out), false);
});

test('--jobs N > 1 on a sweep that benchmarks warns that side-by-side runs are slower than alone', () => {
  const { dir, file } = workspace(PROFILE.replace(/sweep:[\s\S]*$/, 'sweep:\n  job: bench\n  axes:\n    kv_cache.page_size: [16, 64]\n'));
  // --json into a folder that does not exist is refused alone, before the warning and any benchmark (s48 newcomer L3: flag errors first).
  const bad = cli(['sweep', file, '--jobs', '2', '--out', join(dir, 'out'), '--json', join(dir, 'nowhere', 'r.json')]);
  assert.equal(bad.code, 2, bad.stderr);
  assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);
  assert.doesNotMatch(bad.stderr, /side by side/);
  const r = cli(['sweep', file, '--jobs', '2', '--quick', '--out', join(dir, 'out')]);
  assert.equal(r.code, 0, r.stderr);
  // Times go up and rates go down when two benchmarks share the cores (newcomer report s31 item 7:
  // "their timings are lower than alone" read as faster).
  assert.equal(r.stderr.split('\n')[0], "attnscope: warning: --jobs 2 runs benchmarks side by side; they share this machine's cores and memory bandwidth, so they run slower (longer times, lower rates) than alone");
});

test('a point whose KV pool has no pages is refused before any point runs (exit 2), at its axis value or naming the --set argument', () => {
  // 0.001 GiB × 0.9 cannot hold the tiny model's weights (~1.3 M parameters, 2.6 MB at bf16): no
  // KV budget, no pages, which `simulate` refuses; the 1-GiB point alone would run.
  const { dir, file } = workspace('model: ./tiny/config.json\nworkload: { requests: 10 }\nsweep:\n  axes:\n    device.memory_gib: [1, 0.001]\n');
  const out = join(dir, 'never');
  const r = cli(['sweep', file, '--out', out]);
  assert.equal(r.code, 2, r.stderr);
  // Line 5 is "    device.memory_gib: [1, 0.001]": 0.001 starts at column 28.
  // The weights overfill the point's device (0.001 GiB × 0.90 = 966,367 B = 944 KiB): its fix is the fit
  // check's (s43 newcomer-ed L1), not "set kv_cache.num_pages".
  assert.match(r.stderr, /^.*grid\.attn\.yaml:5:28: sweep point memory_gib=0\.001: the KV pool has no pages: weights [\d.]+ MiB exceed 0\.001 GiB × 0\.90 = 944 KiB: raise device\.tensor_parallel_size \(\d+ fits(?: the weights, not a KV cache)?\) or memory_gib$/m);
  assert.equal(existsSync(out), false);
  const set = cli(['sweep', file, '--set', 'device.memory_gib=0.001,1', '--out', out]);
  assert.equal(set.code, 2, set.stderr);
  assert.equal(set.stderr.split('\n').filter((l) => /no pages/.test(l)).length, 1, set.stderr);
  assert.match(set.stderr, /^attnscope: --set device\.memory_gib=0\.001,1 \(value 1 of 2\): sweep point memory_gib=0\.001: the KV pool has no pages/m);
  assert.equal(existsSync(out), false);
});

test('a profile without a workload is refused by a sweep that simulates, as simulate refuses it, before any work; --set workload keys are named with the ones left unset', () => {
  const { dir, file } = workspace('model: ./tiny/config.json\nkv_cache: { num_pages: 400 }\n');
  const out = join(dir, 'never');
  const sim = cli(['simulate', file]);
  assert.equal(sim.code, 2, sim.stderr);
  assert.match(sim.stderr, /the profile has no workload/);
  // Before: the sweep ran both points on an invented workload (1,000 requests, prompts of median 512, seed 0), exit 0.
  const r = cli(['sweep', file, '--set', 'workload.arrival_rate=1,2', '--out', out]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(
    r.stderr,
    'attnscope: --set workload.arrival_rate=1,2: the profile has no workload, which `attnscope simulate` refuses too: add a `workload:` section with requests, prompt_len, output_len, max_model_len and seed (the sweep\'s axis sets only workload.arrival_rate; the rest would be invented defaults)\n',
  );
  // No workload axis either: the simulate job has nothing to simulate; placed at the model, as simulate places it (line 1, column 8).
  const plain = cli(['sweep', file, '--set', 'kv_cache.page_size=16,32', '--out', out]);
  assert.equal(plain.code, 2, plain.stderr);
  assert.match(plain.stderr, /grid\.attn\.yaml:1:8: the profile has no workload, which `attnscope simulate` refuses too/);
  assert.equal(existsSync(out), false);
});

test('a value repeated in a --set axis is refused (exit 2, one line naming the argument), before any point runs', () => {
  const { dir, file } = workspace();
  const out = join(dir, 'never');
  const r = cli(['sweep', file, '--set', 'kv_cache.page_size=8,8', '--out', out]);
  assert.equal(r.code, 2);
  assert.equal(r.stderr, 'attnscope: --set kv_cache.page_size=8,8 (value 2 of 2): the sweep axis kv_cache.page_size repeats the value 8: each value runs once, drop the repeat\n');
  assert.equal(existsSync(out), false);
});

test('a point file that cannot be written (full disk; here a file-size limit) stops the sweep: one line naming the file and what to do, exit 1 (README), no part-written file', () => {
  const { dir, file } = workspace(PROFILE.replace(/sweep:[\s\S]*$/, 'sweep:\n  job: simulate\n  axes:\n    workload.requests: [20, 30]\n'));
  const out = join(dir, 'out');
  // `ulimit -f 8`: writes to regular files stop at 8 KiB or less (EFBIG); a point's run JSON is larger.
  const r = spawnSync('/bin/sh', ['-c', 'ulimit -f 8 && exec "$@"', 'sh', process.execPath, runner, 'sweep', file, '--jobs', '1', '--out', out], { encoding: 'utf8', timeout: 300_000 });
  // Before the fix: each point "failed" with Node's raw `EFBIG: file too large, write`, then the merge found no points: exit 2.
  assert.equal(r.status, 1, r.stderr);
  const last = r.stderr.trim().split('\n').at(-1)!;
  assert.match(
    last,
    /^attnscope: sweep point requests=20: \S+\/out\/[0-9a-f]{12}-[0-9a-f]{8}\.json: cannot write: the file is larger than this process may write \(the shell's ulimit -f\); the file is left as it was \(raise it: ulimit -f unlimited\); the sweep stopped: rerun the same command to resume$/,
  );
  assert.doesNotMatch(r.stderr, /EFBIG|requests=30/, 'stopped at the first failed write');
  assert.deepEqual(readdirSync(out), [], 'no point file, no temp file');
});

test('Ctrl-C stops the workers, exits 130 and leaves only whole point files', async () => {
  // The first point is quick; the other two simulate 400,000 requests each (many seconds).
  const { dir, file } = workspace(PROFILE.replace(/sweep:[\s\S]*$/, 'sweep:\n  axes:\n    workload.requests: [50, 400000, 400001]\n'));
  const out = join(dir, 'out');
  const child = spawn(process.execPath, [runner, 'sweep', file, '--jobs', '3', '--out', out], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  let stderr = '';
  const firstPoint = new Promise<void>((resolve) => {
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (/^point requests=50: /m.test(stderr)) resolve();
    });
  });
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  await firstPoint;
  child.kill('SIGINT');
  assert.equal(await exit, 130, stderr);
  // One message, in bench's and simulate's form (runner/errors.ts cancelLine), on stderr; nothing on stdout.
  assert.deepEqual(stderr.split('\n').filter((l) => /cancel/i.test(l)).length, 1, stderr);
  assert.match(stderr, /^attnscope: sweep cancelled by SIGINT; 1 of 3 points are in .*out \(merged into its sweep-report\.json, marked interrupted\): run the same command again to resume$/m);
  assert.equal(stdout, '');
  // s41: beside the point file, the report of the point kept.
  const files = readdirSync(out).filter((f) => f !== 'sweep-report.json');
  assert.equal(files.length, 1, files.join(' '));
  assert.equal(readReport(join(out, 'sweep-report.json')).interrupted, true);
  assert.equal((JSON.parse(readFileSync(join(out, files[0]!), 'utf8')) as SweepPointRun).sweep.values['workload.requests'], 50);
});

test('submit --out: a folder holding other files is refused before anything is written, as sweep --out is; submitting again into its own folder is not', () => {
  // s40 cli40 left 1: `submit --slurm --out .` would have put the points among the folder's files.
  const { dir } = localSweep();
  const out = join(dir, 'busy');
  mkdirSync(out);
  writeFileSync(join(out, 'notes.txt'), 'mine\n');
  const args = ['submit', '--k8s', join(dir, 'grid.attn.yaml'), '--image', 'attnscope:test', '--pvc', 'results', '--out', out];
  const refused = cli(args);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /^attnscope: --out .*busy: holds "notes\.txt"/);
  assert.equal(existsSync(join(out, 'sweep-job.yaml')), false, 'nothing written');
  const fresh = join(dir, 'k8s-again');
  assert.equal(cli([...args.slice(0, -1), fresh]).code, 0);
  const again = cli([...args.slice(0, -1), fresh]);
  assert.equal(again.code, 0, again.stderr);
});

test('submit --k8s: the Indexed Job\'s pods, run here as processes with its files and environment, merge into the local sweep', () => {
  const { dir, report } = localSweep();
  const r = cli(['submit', '--k8s', join(dir, 'grid.attn.yaml'), '--image', 'attnscope:test', '--pvc', 'results', '--tasks', '3', '--out', join(dir, 'k8s out')]);
  assert.equal(r.code, 0, r.stderr);
  // A folder with a space: the printed command is pasted into a shell, so the path is one quoted word (s33 newcomer).
  assert.ok(r.stdout.includes(`  kubectl apply -f '${join(dir, 'k8s out', 'sweep-job.yaml')}'\n`), r.stdout);
  const [configMap, job] = YAML.parseAllDocuments(readFileSync(join(dir, 'k8s out', 'sweep-job.yaml'), 'utf8')).map((d) => d.toJS());
  assert.equal(job.spec.completionMode, 'Indexed');
  // Lay the mounts out as a pod sees them: the ConfigMap's items under /sweep, the claim at /results.
  const pod = join(dir, 'pod');
  const mount = (p: string) => p.replace(/^\/sweep/, join(pod, 'sweep')).replace(/^\/results/, join(pod, 'results'));
  mkdirSync(join(pod, 'results'), { recursive: true }); // the claim's mount point exists in a pod
  const spec = job.spec.template.spec;
  for (const item of spec.volumes[0].configMap.items as Array<{ key: string; path: string }>) {
    mkdirSync(dirname(join(pod, 'sweep', item.path)), { recursive: true });
    writeFileSync(join(pod, 'sweep', item.path), configMap.data[item.key]);
  }
  const c = spec.containers[0];
  assert.equal(c.command[0], 'attnscope');
  for (let index = 0; index < job.spec.completions; index++) {
    const env = Object.fromEntries((c.env as Array<{ name: string; value: string }>).map((e) => [e.name, e.value]));
    const p = cli(c.command.slice(1).map(mount), { cwd: mount(c.workingDir), env: { ...env, JOB_COMPLETION_INDEX: String(index) } });
    assert.equal(p.code, 0, p.stderr);
  }
  const resultsDir = mount(c.command[c.command.indexOf('--out') + 1]);
  const m = cli(['merge', resultsDir]);
  assert.equal(m.code, 0, m.stderr);
  assert.deepEqual(comparable(readReport(join(resultsDir, 'sweep-report.json'))), comparable(report));
  // --json /dev/stdout: stdout is the report alone (the table goes to stderr).
  const toStdout = cli(['merge', resultsDir, '--json', '/dev/stdout']);
  assert.equal(toStdout.code, 0, toStdout.stderr);
  assert.deepEqual(comparable(JSON.parse(toStdout.stdout) as SweepReport), comparable(report));
  assert.match(toStdout.stderr, /page_size/);
});

test('submit --slurm refused by sbatch: exit 1 with its reason, and what the command made (the --out folders, sweep.sbatch) is taken back, what was there is not', () => {
  const { dir, file } = workspace();
  // An sbatch that refuses every job as Slurm 22.05 does a partition it lacks (exit 1, one line on stderr).
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'sbatch'), '#!/bin/sh\necho "sbatch: error: Batch job submission failed: Invalid partition name specified" >&2\nexit 1\n', { mode: 0o755 });
  const env = { PATH: `${bin}:${process.env.PATH}` };
  // A new --out folder: made, then removed.
  const r = cli(['submit', '--slurm', file, '--partition', 'nope', '--out', join(dir, 'slurm')], { env });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr, 'attnscope: sbatch failed (exit 1): Batch job submission failed: Invalid partition name specified\n');
  assert.ok(!existsSync(join(dir, 'slurm')), 'the --out folder submit made is left');
  // No --out: the default .attnscope/sweeps/<profile>-<id> goes, with the parents submit made.
  const byDefault = cli(['submit', '--slurm', file], { env, cwd: dir });
  assert.equal(byDefault.code, 1, byDefault.stderr);
  assert.ok(!existsSync(join(dir, '.attnscope')), 'the default folders submit made are left');
  // An --out that was there, holding a file it may (a dot-file; a folder holding other files is
  // refused before sbatch runs, as sweep --out is): the folder and the file stay, the script goes.
  const kept = join(dir, 'kept');
  mkdirSync(kept);
  writeFileSync(join(kept, '.notes'), 'mine\n');
  const again = cli(['submit', '--slurm', file, '--out', kept], { env });
  assert.equal(again.code, 1, again.stderr);
  assert.deepEqual(readdirSync(kept), ['.notes']);
});

test('submit --slurm --time that sbatch would refuse: exit 2 naming the flag before any file is written or sbatch runs', () => {
  const { dir, file } = workspace();
  // An sbatch that leaves a mark: it must never run.
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'sbatch'), `#!/bin/sh\ntouch ${join(dir, 'sbatch-ran')}\necho "Submitted batch job 1"\n`, { mode: 0o755 });
  const r = cli(['submit', '--slurm', file, '--time', '99:99:99x', '--out', join(dir, 'slurm')], { env: { PATH: `${bin}:${process.env.PATH}` } });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^attnscope: --time "99:99:99x" is no Slurm time limit: sbatch --time takes minutes, minutes:seconds, hours:minutes:seconds, days-hours, days-hours:minutes or days-hours:minutes:seconds/);
  assert.ok(!existsSync(join(dir, 'slurm')), 'no --out folder');
  assert.ok(!existsSync(join(dir, 'sbatch-ran')), 'sbatch did not run');
});

test('submit --slurm --wait --poll past a timer\'s range (1e10, Infinity) or under 0.1 s: exit 2 naming the flag before sbatch runs (Node fired such a timer every 1 ms: squeue a thousand times a second)', () => {
  const { dir, file } = workspace();
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'sbatch'), `#!/bin/sh\ntouch ${join(dir, 'sbatch-ran')}\necho "Submitted batch job 1"\n`, { mode: 0o755 });
  for (const poll of ['1e10', 'Infinity', '0.001']) {
    const r = cli(['submit', '--slurm', file, '--wait', '--poll', poll, '--out', join(dir, 'slurm')], { env: { PATH: `${bin}:${process.env.PATH}` } });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, `attnscope: --poll must be seconds between each look at the job, from 0.1 to 86,400 (a day), got '${poll}'\n`);
  }
  assert.ok(!existsSync(join(dir, 'sbatch-ran')), 'sbatch did not run');
});

test('sweep reads its profile and each point\'s model: as every command does: a FIFO named as either is refused unread, one line and exit 2 (it blocked for ever: nothing writes to it)', { skip: process.platform === 'win32' && 'mkfifo' }, () => {
  const { dir } = workspace();
  const fifo = join(dir, 'fifo.attn.yaml');
  assert.equal(spawnSync('mkfifo', [fifo, join(dir, 'fifo.json')]).status, 0);
  // A minute is ample for a refusal; the old reader waited until spawnSync killed it.
  const quick = (args: string[]) => spawnSync(process.execPath, [runner, ...args], { encoding: 'utf8', timeout: 60_000 });
  const p = quick(['sweep', fifo]);
  assert.equal(p.status, 2, p.stderr);
  assert.equal(p.stderr, `${fifo}:1:1: is a named pipe (FIFO), not a file: reading it waits until something writes to it; give the profile or config.json itself, or pipe it in as <(cat FILE) (a profile so piped reads a relative model: path beside /dev/fd: write it absolute)\n`);
  const file = join(dir, 'model-fifo.attn.yaml');
  writeFileSync(file, 'model: ./fifo.json\nworkload: { requests: 10 }\nsweep:\n  axes:\n    kv_cache.page_size: [16, 32]\n');
  const m = quick(['sweep', file]);
  assert.equal(m.status, 2, m.stderr);
  assert.equal(m.stderr, `${file}:1:8: sweep points page_size=16 and 1 more: the model config "./fifo.json" is not a regular file (a FIFO), so not read: point model: at a HuggingFace config.json (or a folder holding one)\n`);
});

test('submit --slurm on a machine without sbatch: its flags checked first, then exit 2 in one line and nothing written (it was exit 1, the internal-failure code)', () => {
  const { dir, file } = workspace();
  // A PATH of one empty folder: no sbatch (node runs by its own path).
  const empty = join(dir, 'nobin');
  mkdirSync(empty);
  const env = { PATH: empty };
  const bad = cli(['submit', '--slurm', file, '--tasks', '0', '--out', join(dir, 'slurm')], { env });
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /^attnscope: --tasks /, 'the flag is refused first');
  const r = cli(['submit', '--slurm', file, '--out', join(dir, 'slurm')], { env });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr, 'attnscope: submit --slurm needs sbatch, which is not on the PATH: run this on a Slurm login node (or install slurm-client); nothing was written\n');
  assert.ok(!existsSync(join(dir, 'slurm')), 'no --out folder');
  const byDefault = cli(['submit', '--slurm', file], { env, cwd: dir });
  assert.equal(byDefault.code, 2, byDefault.stderr);
  assert.ok(!existsSync(join(dir, '.attnscope')), 'no default results folder');
});

test('submit --k8s refuses an --image that is no image reference, a --pvc or --namespace Kubernetes would not take: exit 2 naming the flag, no manifest', () => {
  const { dir, file } = workspace();
  for (const [flags, line] of [
    [['--image', 'foo bar;rm -rf /', '--pvc', 'results'], /^attnscope: --image "foo bar;rm -rf \/": not an image reference: /],
    [['--image', 'ghcr.io/acme/attnscope:0.1.0', '--pvc', 'My Claim'], /^attnscope: --pvc "My Claim": not a PersistentVolumeClaim name: .*\(DNS-1123 subdomain\)$/],
    [['--image', 'attnscope', '--pvc', 'results', '--namespace', 'ml.team'], /^attnscope: --namespace "ml.team": not a namespace name: .*\(DNS-1123 label\)$/],
  ] as const) {
    const out = join(dir, 'k8s-bad');
    const r = cli(['submit', '--k8s', file, ...flags, '--out', out]);
    assert.equal(r.code, 2, flags.join(' '));
    assert.match(r.stderr.trim(), line);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.ok(!existsSync(join(out, 'sweep-job.yaml')));
  }
  // Valid references with a registry port, a path and a digest pass.
  const ok = cli(['submit', '--k8s', file, '--image', `localhost:5000/acme/attnscope@sha256:${'0'.repeat(64)}`, '--pvc', 'sweep-results.v1', '--namespace', 'ml-team', '--out', join(dir, 'k8s-ok')]);
  assert.equal(ok.code, 0, ok.stderr);
});

/** The NDJSON events `sweep --events` wrote on stdout: every line must be one. */
function eventsOf(stdout: string): RunnerEvent[] {
  return stdout.trim().split('\n').map((line) => {
    const e = parseEvent(line);
    assert.ok(e, `not an event: ${line}`);
    return e;
  });
}

test('sweep --events (the editor\'s door): progress in points naming the running points, each point written, then sweepEnd with the report; the table on stderr, stdout all events', () => {
  const { dir, file } = workspace(PROFILE.replace(/sweep:[\s\S]*$/, 'sweep:\n  axes:\n    kv_cache.page_size: [16, 64]\n'));
  const r = cli(['sweep', file, '--events', '--jobs', '1'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const events = eventsOf(r.stdout);
  const progress = events.filter((e): e is RunnerProgressEvent => e.type === 'progress');
  assert.ok(progress.every((e) => e.total === 2), 'total: 2 points');
  assert.ok(progress.every((e, i) => i === 0 || e.done >= progress[i - 1]!.done), 'done never goes back');
  assert.equal(progress.at(-1)!.done, 2);
  // With one job, the first point runs alone: its values in the message while it runs.
  assert.ok(progress.some((e) => e.done > 0 && e.done < 1 && /^page_size=16 \d+%$/.test(e.message)), JSON.stringify(progress.map((e) => e.message)));
  assert.ok(progress.some((e) => e.done > 1 && e.done < 2 && /^page_size=64 \d+%$/.test(e.message)));
  const end = events.at(-1)!;
  assert.equal(end.type, 'sweepEnd');
  if (end.type !== 'sweepEnd') return;
  // The default results folder under the working folder, where the editor's "Open sweep results" looks.
  assert.match(end.outDir, new RegExp(`^${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\.attnscope/sweeps/grid-[0-9a-f]{8}$`));
  assert.equal(end.reportFile, join(end.outDir, 'sweep-report.json'));
  assert.deepEqual([end.inFolder, end.total, end.failed, end.cancelled], [2, 2, [], false]);
  assert.deepEqual(readReport(end.reportFile).rows.map((row) => row.values['kv_cache.page_size']).sort((a, b) => Number(a) - Number(b)), [16, 64]);
  assert.match(r.stderr, /^Sweep grid\.attn\.yaml /m);
  // The points saved so far, merged, each time one more is saved (s49 newcomer-ed 5: the Sweep tab showed none until the end):
  // the first with page_size 16 alone and 64 missing, the second with both.
  const points = events.filter((e): e is Extract<RunnerEvent, { type: 'sweepPoints' }> => e.type === 'sweepPoints');
  assert.deepEqual(points.map((e) => [e.report.rows.map((row) => row.values['kv_cache.page_size']), e.report.missing.map((m) => m.label)]), [[[16], ['page_size=64']], [[16, 64], []]]);
  // Each after the progress event that counted it saved.
  const saved = (e: RunnerEvent) => (e.type === 'progress' ? (e.saved ?? 0) : -1);
  assert.ok(events.findIndex((e) => saved(e) === 1) < events.indexOf(points[0]!));
});

test('sweep --events --jobs 2: progress counts the points saved (each one\'s file written, its `point` log line) apart from `done`, which adds the running points\' fractions', () => {
  // s31 newcomer-ed 2: with two points running at 90 % and 38 %, done was 1.28 and the editor said
  // "1 of 4 points done" with no file in the folder. Two points side by side pass done 1 before either is written.
  const { dir, file } = workspace(PROFILE.replace('requests: 400', 'requests: 3000').replace(/sweep:[\s\S]*$/, 'sweep:\n  axes:\n    kv_cache.page_size: [16, 64]\n'));
  const r = cli(['sweep', file, '--events', '--jobs', '2'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  let written = 0;
  let ahead = 0;
  for (const e of eventsOf(r.stdout)) {
    if (e.type === 'log' && e.message.startsWith('point ')) written++;
    if (e.type !== 'progress') continue;
    // Every progress event's saved is the files written before it (none resumed or reused in a fresh folder).
    assert.equal(e.saved, written, JSON.stringify(e));
    if (Math.floor(e.done) > written) ahead++;
  }
  assert.equal(written, 2);
  assert.ok(ahead > 0, 'the fractions of the two running points summed past a whole point before one was written');
});

test('sweep --events: bad input is an error event at the CLI\'s file:line:col, exit 2, before any point runs', () => {
  const text = PROFILE.replace(/sweep:[\s\S]*$/, 'sweep:\n  axes:\n    kv_cache.page_size: [16, 3000000000]\n');
  const { dir, file } = workspace(text);
  const r = cli(['sweep', file, '--events'], { cwd: dir });
  assert.equal(r.code, 2, r.stderr);
  const events = eventsOf(r.stdout);
  assert.equal(events.length, 1, r.stdout);
  const e = events[0]!;
  assert.equal(e.type, 'error');
  if (e.type !== 'error') return;
  // The value's place, counted by hand from the text: its line (1-based) and column.
  const lines = text.split('\n');
  const line = lines.findIndex((l) => l.includes('3000000000'));
  assert.deepEqual([e.file, e.line, e.column], [file, line + 1, lines[line]!.indexOf('3000000000') + 1]);
  assert.match(e.message, /^sweep point page_size=3000000000: kv_cache\.page_size must be <= 4,096/);
  assert.equal(r.stderr.trim(), `${file}:${e.line}:${e.column}: ${e.message}`);
  assert.ok(!existsSync(join(dir, '.attnscope')), 'nothing written');
});

test('sweep --events: SIGTERM ends with sweepEnd cancelled, counting the points kept for a rerun, exit 130', async () => {
  const { dir, file } = workspace(PROFILE.replace(/sweep:[\s\S]*$/, 'sweep:\n  axes:\n    workload.requests: [50, 400000]\n'));
  const child = spawn(process.execPath, [runner, 'sweep', file, '--events', '--jobs', '2'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  const firstPoint = new Promise<void>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (/"message":"point requests=50: /.test(stdout)) resolve();
    });
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  await firstPoint;
  child.kill('SIGTERM');
  assert.equal(await exit, 130, stderr);
  const end = eventsOf(stdout).at(-1)!;
  assert.equal(end.type, 'sweepEnd');
  if (end.type !== 'sweepEnd') return;
  // s41: the point kept is merged into a report marked interrupted (the Sweep tab and History show it), the other point missing.
  assert.deepEqual([end.cancelled, end.inFolder, end.total, end.reportFile], [true, 1, 2, join(end.outDir, 'sweep-report.json')]);
  assert.equal(readdirSync(end.outDir).length, 2, 'one point file and the report');
  const report = readReport(end.reportFile!);
  assert.equal(report.interrupted, true);
  assert.deepEqual([report.rows.map((r) => r.label), report.missing.map((m) => m.label), report.total], [['requests=50'], ['requests=400000'], 2]);
  // s42: the profile it ran, for Resume sweep from History in another window: its absolute path and the SHA-256 of its text (computed here by node:crypto).
  assert.deepEqual(report.profile, { path: resolve(file), sha256: createHash('sha256').update(readFileSync(file, 'utf8')).digest('hex') });
});

/** Runs `args` (after the runner) with --events until its first progress event or its end, then SIGTERMs it; its events, stderr and exit. */
async function untilProgress(args: string[], cwd: string, until: (stdout: string) => boolean): Promise<{ events: RunnerEvent[]; stderr: string; code: number | null }> {
  const child = spawn(process.execPath, [runner, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const seen = new Promise<void>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (until(stdout)) resolve();
    });
    child.on('close', () => resolve());
  });
  await seen;
  child.kill('SIGTERM');
  const code = await exit;
  return { events: eventsOf(stdout), stderr, code };
}

// s43: a sweep run with --set was resumed from the editor as the file's own sweep (other axes, another id and folder: nothing kept).
test('an interrupted sweep run with --set records it in its report, and Resume\'s command line (resumeArgs) runs that sweep again, resuming its kept point', async () => {
  // The profile's own axis is page_size; --set adds workload.requests, which makes another sweep.
  const { dir, file } = workspace(PROFILE.replace(/sweep:[\s\S]*$/, 'sweep:\n  axes:\n    kv_cache.page_size: [16]\n'));
  const set = 'workload.requests=50,400000';
  const first = await untilProgress(['sweep', file, '--events', '--jobs', '2', '--set', set], dir, (out) => /"message":"point page_size=16 requests=50: /.test(out));
  assert.equal(first.code, 130, first.stderr);
  const end = first.events.at(-1)!;
  assert.ok(end.type === 'sweepEnd' && end.reportFile !== null, JSON.stringify(end));
  const report = readReport(end.reportFile);
  assert.deepEqual(report.profile, { path: resolve(file), sha256: createHash('sha256').update(readFileSync(file, 'utf8')).digest('hex'), set: [set] });
  assert.deepEqual(report.missing.map((m) => m.label), ['page_size=16 requests=400000']);
  // What the dashboard's Resume sweep runs: the profile with resumeArgs(report.profile) after it (core/runnerProcess runnerLaunch).
  const launch = runnerLaunch(runner, process.execPath, { job: 'sweep', file: resolve(file), quick: false, backend: 'auto', sweepArgs: resumeArgs(report.profile!) });
  assert.deepEqual(launch.args.slice(1), ['sweep', resolve(file), '--events', `--set=${set}`]);
  // Its first progress event: the same results folder (the same sweep id), the kept point already saved, 1 of the 2 to run.
  const again = await untilProgress(launch.args.slice(1), dir, (out) => /"type":"progress"/.test(out));
  const progress = again.events.find((e): e is RunnerProgressEvent => e.type === 'progress');
  assert.ok(progress, again.stderr);
  assert.deepEqual([progress.outDir, progress.saved], [end.outDir, 1]);
  // Without the flags (what Resume ran before s43): the file's own sweep, one point, another folder.
  const without = await untilProgress(['sweep', file, '--events'], dir, (out) => /"type":"progress"/.test(out));
  assert.notEqual(without.events.find((e): e is RunnerProgressEvent => e.type === 'progress')?.outDir, end.outDir);
});

// s43 review: a CLI sweep run with --out was resumed from the dashboard into the default folder, running every point again.
test('Resume of an interrupted sweep run with --out (resumeArgs with the report\'s folder) resumes in that folder, its kept point not run again', async () => {
  const { dir, file } = workspace(PROFILE.replace(/sweep:[\s\S]*$/, 'sweep:\n  axes:\n    workload.requests: [50, 400000]\n'));
  const out = join(dir, 'my results');
  const first = await untilProgress(['sweep', file, '--events', '--jobs', '2', '--out', out], dir, (o) => /"message":"point requests=50: /.test(o));
  assert.equal(first.code, 130, first.stderr);
  const end = first.events.at(-1)!;
  assert.ok(end.type === 'sweepEnd' && end.reportFile === join(out, 'sweep-report.json'), JSON.stringify(end));
  const report = readReport(end.reportFile);
  const launch = runnerLaunch(runner, process.execPath, { job: 'sweep', file: resolve(file), quick: false, backend: 'auto', sweepArgs: resumeArgs(report.profile!, dirname(end.reportFile)) });
  const again = await untilProgress(launch.args.slice(1), dir, (o) => /"type":"progress"/.test(o));
  const progress = again.events.find((e): e is RunnerProgressEvent => e.type === 'progress');
  assert.ok(progress, again.stderr);
  assert.deepEqual([progress.outDir, progress.saved], [out, 1]);
});

// s41 newcomer-ed F8: two windows ran the same sweep, each simulating every point.
test('a second runner of a running sweep refuses at once (exit 75), naming the first runner and how to follow it; the lock goes with the first', async () => {
  const { dir, file } = workspace(PROFILE.replace(/sweep:[\s\S]*$/, 'sweep:\n  axes:\n    workload.requests: [50, 400000]\n'));
  const first = spawn(process.execPath, [runner, 'sweep', file, '--events', '--jobs', '2'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  // The first runner has run a point: it holds the lock.
  const running = new Promise<void>((resolve) => {
    first.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (/"message":"point requests=50: /.test(stdout)) resolve();
    });
  });
  const exit = new Promise<number | null>((resolve) => first.on('close', (code) => resolve(code)));
  await running;
  const outDir = readdirSync(join(dir, '.attnscope', 'sweeps')).map((d) => join(dir, '.attnscope', 'sweeps', d))[0]!;
  const lock = JSON.parse(readFileSync(join(outDir, '.sweep.lock'), 'utf8')) as { pid: number; host: string; startedAt: string };
  assert.deepEqual([lock.pid, lock.host], [first.pid, hostname()]);
  const filesBefore = readdirSync(outDir).filter((f) => f.endsWith('.json')).length;
  // The second runner, in the editor's form (--events): a sweepBusy event naming the first, exit 75, no point run.
  const second = spawnSync(process.execPath, [runner, 'sweep', file, '--events'], { cwd: dir, encoding: 'utf8' });
  assert.equal(second.status, 75, second.stderr);
  const busy = eventsOf(second.stdout).find((e) => e.type === 'sweepBusy');
  assert.ok(busy && busy.type === 'sweepBusy');
  assert.deepEqual([busy.outDir, busy.lockFile, busy.owner], [outDir, join(outDir, '.sweep.lock'), lock]);
  assert.match(busy.message, new RegExp(`^this sweep is already running in .*\\(pid ${first.pid} on .*; lock .*\\.sweep\\.lock\\): follow it there.*attnscope merge `));
  assert.ok(!eventsOf(second.stdout).some((e) => e.type === 'progress' || e.type === 'sweepEnd'), 'the second runner ran nothing');
  // In a terminal: one line on stderr, the same sentence.
  const plain = spawnSync(process.execPath, [runner, 'sweep', file], { cwd: dir, encoding: 'utf8' });
  assert.equal(plain.status, 75);
  assert.equal(plain.stderr.trim(), `attnscope: ${busy.message}`);
  assert.ok(readdirSync(outDir).filter((f) => f.endsWith('.json')).length >= filesBefore);
  first.kill('SIGTERM');
  assert.equal(await exit, 130);
  // The first runner took its lock away as it ended (cancelled too): the folder holds its point and report only.
  assert.equal(existsSync(join(outDir, '.sweep.lock')), false);
});

test('a lock whose runner is gone (killed outright) is replaced, and said; a shard takes none', () => {
  const { dir, file } = workspace(PROFILE.replace(/sweep:[\s\S]*$/, 'sweep:\n  axes:\n    workload.requests: [50]\n'));
  const out = join(dir, 'out');
  mkdirSync(out);
  // A pid that is gone: a process that has ended (its pid not reused this soon).
  const gone = spawnSync(process.execPath, ['-e', '']).pid!;
  writeFileSync(join(out, '.sweep.lock'), JSON.stringify({ pid: gone, host: hostname(), startedAt: '2026-12-05T10:00:00.000Z' }));
  const r = cli(['sweep', file, '--out', out], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, new RegExp(`\\.sweep\\.lock: the runner that held this sweep \\(pid ${gone}, started 2026-12-05T10:00:00\\.000Z\\) is gone: its lock is replaced`));
  assert.equal(existsSync(join(out, '.sweep.lock')), false);
  // A live runner's lock on another host cannot be checked: respected. A shard of the sweep runs beside it (shards share the folder).
  writeFileSync(join(out, '.sweep.lock'), JSON.stringify({ pid: process.pid, host: 'other-host', startedAt: '2026-12-05T10:00:00.000Z' }));
  const other = cli(['sweep', file, '--out', out], { cwd: dir });
  assert.equal(other.code, 75, other.stderr);
  const shard = cli(['sweep', file, '--out', out, '--shard', '0/1'], { cwd: dir });
  assert.equal(shard.code, 0, shard.stderr);
});

test('a sweep killed outright (SIGKILL, as the editor\'s Cancel after its grace) leaves no worker running its point to the end', { timeout: 90_000 }, async () => {
  // One point of 4,000,000 requests: minutes of simulation if the worker ran on.
  const { dir, file } = workspace(PROFILE.replace(/sweep:[\s\S]*$/, 'sweep:\n  axes:\n    workload.requests: [4000000]\n'));
  const child = spawn(process.execPath, [runner, 'sweep', file, '--events', '--jobs', '1'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const exit = new Promise<void>((resolve) => child.on('close', () => resolve()));
  // The worker has reported progress: it runs.
  await new Promise<void>((resolve) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (/"type":"progress","done":0\.0*[1-9]/.test(out)) resolve();
    });
  });
  const workers = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  assert.equal(workers.length, 1, 'one worker for one point');
  child.kill('SIGKILL');
  await exit;
  // No exit event for a process that is not our child: watch /proc until it is gone (well before
  // its minutes of simulation), or fail at the test's deadline.
  const alive = (pid: number): boolean => {
    try {
      return !/^\d+ \(\S+\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };
  while (alive(workers[0]!)) await new Promise((r) => setTimeout(r, 50));
});

test('sweep --events cancelled while it still reads the profile (a pipe): exit 130 and a sweepEnd cancelled with no point run (was: killed by the signal, no event)', { skip: process.platform !== 'linux' && '/proc' }, async () => {
  // The profile comes through a pipe (a FIFO handed over as /dev/fd/3): the child blocks reading
  // it until this test writes it, so the signal lands in the reading (fixtures/fifo.ts).
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    const { dir, file } = workspace();
    rmSync(file);
    // A sweep takes a profile by its name (*.attn.yaml): the name is a link to the pipe.
    symlinkSync(HANDED_FIFO, file);
    const { code, by, stdout, stderr } = await cancelWhileReadingFifo(runner, join(dir, 'profile.fifo'), ['sweep', file, '--events', '--out', join(dir, 'out')], PROFILE, signal, dir);
    assert.deepEqual([code, by], [130, null], `${signal}: ${stderr}`);
    const end = eventsOf(stdout).at(-1);
    assert.equal(end?.type, 'sweepEnd', `${signal}: ${stdout}`);
    if (end?.type !== 'sweepEnd') return;
    // PROFILE's 3 page sizes × 2 max_num_seqs = 6 points, none run.
    assert.deepEqual([end.cancelled, end.inFolder, end.total, end.reportFile], [true, 0, 6, null]);
    assert.deepEqual(readdirSync(end.outDir), [], `${signal}: no point file, no report`);
  }
});

test('sweep --max-rate: each point several simulations (its progress names point i/N and the search step), an interrupted sweep resumes with the points it kept; a profile with no SLO bound is refused (exit 2, one line at sweep)', async () => {
  // No slo in PROFILE: refused before any work, at the `sweep` key (line 11; the job is --max-rate's).
  const bare = workspace();
  const refused = cli(['sweep', bare.file, '--max-rate', '--out', join(bare.dir, 'out')]);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /^\S*grid\.attn\.yaml:11:1: a max-rate sweep finds each point's highest arrival rate meeting the SLO, and the profile has no slo: add slo: \{ ttft_ms: \.\.\., tpot_ms: \.\.\. \} \(either or both\), or leave out --max-rate to simulate each point at the profile's arrival rate\n$/);
  assert.equal(existsSync(join(bare.dir, 'out')), false);

  // The first point is quick; the second (40,000 requests a simulation) runs some seconds.
  const { dir, file } = workspace(PROFILE.replace('  seed: 7\n', '  seed: 7\nslo: { ttft_ms: 200 }\n').replace(/sweep:[\s\S]*$/, 'sweep:\n  axes:\n    workload.requests: [50, 40000]\n'));
  const out = join(dir, 'out');
  const child = spawn(process.execPath, [runner, 'sweep', file, '--max-rate', '--events', '--jobs', '2', '--out', out], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  const searching = new Promise<void>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      // The first point written, and the second at its second search step at least (μ measured, a rate simulating).
      if (/"message":"point requests=50: /.test(stdout) && /"message":"[^"]*point 2\/2 requests=40000: search step [2-9]/.test(stdout)) resolve();
    });
  });
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  await searching;
  child.kill('SIGTERM');
  assert.equal(await exit, 130);
  assert.ok(eventsOf(stdout).some((e) => e.type === 'progress' && /^point 1\/2 requests=50: search step 1 \(saturated throughput μ\): /.test(e.message)), stdout);
  // Progress moves within a point, by its search's simulations (s42 newcomer 11: done moved in whole
  // points only, 0 through a long max-rate point): some `done` is fractional.
  assert.ok(eventsOf(stdout).some((e) => e.type === 'progress' && !Number.isInteger(e.done)), stdout);
  assert.equal(readdirSync(out).length, 2, 'one point file and the interrupted report');

  const r = cli(['sweep', file, '--max-rate', '--out', out]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /resumed: 1 of 2 points were already in/);
  const report = readReport(join(out, 'sweep-report.json'));
  assert.equal(report.job, 'max-rate');
  // The rerun replaced the interrupted report with the finished one.
  assert.equal(report.interrupted, undefined);
  assert.deepEqual(report.rows.map((row) => row.origin), ['resumed', 'run']);
  for (const row of report.rows) {
    assert.ok(row.metrics.maxRateRequestsPerSec! > 0 && row.metrics.maxRatePerGpuRequestsPerSec === row.metrics.maxRateRequestsPerSec, JSON.stringify(row.metrics));
    assert.ok(row.metrics.maxRateLimit === 'slo' || row.metrics.maxRateLimit === 'capacity', row.metrics.maxRateLimit);
  }
  assert.match(report.best!.rule, /^highest max rate per GPU/);
  assert.match(r.stdout, /^requests +result +max req\/s +per GPU +limit /m);
});

test('sweep --max-rate over a profile\'s sweep.job says the flag replaced it; an arrival_rate axis is warned at the axis (it only moves the search\'s start) and the best line says so (s42 newcomer 11)', () => {
  const profile = PROFILE.replace('  requests: 400\n', '  requests: 50\n').replace('  seed: 7\n', '  seed: 7\nslo: { ttft_ms: 200 }\n')
    .replace(/sweep:[\s\S]*$/, 'sweep:\n  job: simulate\n  axes:\n    workload.arrival_rate: [20, 80]\n');
  const { dir, file } = workspace(profile);
  const r = cli(['sweep', file, '--max-rate', '--out', join(dir, 'out')]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^--max-rate replaces the profile's sweep\.job: simulate$/m);
  // The axis key is on line 15 (slo inserted at 11), column 5.
  assert.match(unwrapped(r.stderr), /^\S*grid\.attn\.yaml:15:5: warning: workload\.arrival_rate only sets where each max-rate point's capacity search starts \(the search finds the rate itself\)/m);
  // The two searches find the same rate: no best, they tie (s48), and the line says why.
  assert.match(unwrapped(r.stdout), /^no best point: the 2 points have the same figures, so they tie .*\n {6}its arrival_rate is no choice: workload\.arrival_rate only sets/m);
  // The same sweep as a profile's own job: max-rate: no flag, no "replaces" line; the warning stays.
  const own = workspace(profile.replace('  job: simulate\n', '  job: max-rate\n'));
  const o = cli(['sweep', own.file, '--out', join(own.dir, 'out')]);
  assert.equal(o.code, 0, o.stderr);
  assert.doesNotMatch(o.stderr, /replaces the profile's sweep\.job/);
  assert.match(unwrapped(o.stderr), /grid\.attn\.yaml:15:5: warning: workload\.arrival_rate only sets/);
});

test('prices per GPU-hour: a sweep over GPU models with a price for each ranks by $ per million output tokens; a new price re-ranks the points already run (none run again); a model without one keeps the per-GPU ranking and is named; simulate prints the cost line', () => {
  const profile = (prices: string) => `model: ./tiny/config.json
device: { gpu: H100 SXM, gpu_hour_usd: 2.49 }
kv_cache: { memory_gib: 0.0625 }
workload: { requests: 200, arrival_rate: 20, prompt_len: { dist: fixed, value: 256 }, output_len: { dist: fixed, value: 64 }, max_model_len: 1024, seed: 3 }
sweep:
  axes: { device.gpu: [H100 SXM, A100 80GB] }
${prices}`;
  const { dir, file } = sweepWorkspace(profile('  gpu_hour_usd: { A100 80GB: 1.29 }\n'), 'cost.attn.yaml', 'attnscope-sweep-cost-');
  const out = join(dir, 'out');
  const first = cli(['sweep', file, '--out', out]);
  assert.equal(first.code, 0, first.stderr);
  assert.match(unwrapped(first.stdout), /^gpu +\$\/1M out +internal frag/m);
  assert.match(unwrapped(first.stdout), /\nbest: gpu=\S+( \S+)? — lowest modelled \$ per million output tokens, at the user-given prices per GPU-hour: price × GPUs .* among points that reject no request/);
  assert.match(unwrapped(first.stdout), /\n {6}ranked by cost at user-given prices per GPU-hour \(not built-in figures\): H100 SXM \$2\.49\/GPU-hour, A100 80GB \$1\.29\/GPU-hour\n/);
  assert.match(unwrapped(first.stdout), /\n\$ \/ 1M output tokens: modelled, at user-given prices per GPU-hour .* the steady rate: each point's offered load \(workload\.arrival_rate\), or its saturated throughput μ where the load is above it \(GPUs idle part of the time are paid all the same/);
  const report = readReport(join(out, 'sweep-report.json'));
  const [h100, a100] = report.rows;
  // Each row's figure is its price × 1 GPU / 3600 / its steady output tokens/s × 10^6, the steady rate its offered
  // (n − 1) / span of 200 Poisson arrivals at 20 requests/s (kept up: a tiny model) × 64 output tokens each (fixed):
  // about 20 × 64 = 1,280 tokens/s, so about 2.49 / 3600 / 1,280 × 10^6 = $0.540 on the H100 SXM; not the finite run's
  // tokens/s, which takes in the last requests' drain (s44 newcomer44 HIGH-1).
  for (const r of [h100!, a100!]) assert.ok(r.metrics.steadyOutputTokensPerSec! / 64 > 18 && r.metrics.steadyOutputTokensPerSec! / 64 < 22, String(r.metrics.steadyOutputTokensPerSec));
  assert.ok(Math.abs(h100!.metrics.usdPerMillionOutputTokens! - (2.49 / 3600 / h100!.metrics.steadyOutputTokensPerSec!) * 1e6) < 1e-9);
  assert.ok(Math.abs(a100!.metrics.usdPerMillionOutputTokens! - (1.29 / 3600 / a100!.metrics.steadyOutputTokensPerSec!) * 1e6) < 1e-9);
  assert.equal(report.best?.byCost, true);

  // A100 80GB at $9.99: the same simulations (resumed, none run), its cost 9.99 / 1.29 times the old.
  writeFileSync(file, profile('  gpu_hour_usd: { A100 80GB: 9.99 }\n'));
  const repriced = cli(['sweep', file, '--out', out]);
  assert.equal(repriced.code, 0, repriced.stderr);
  assert.match(repriced.stderr + repriced.stdout, /resumed: 2 of 2 points/);
  const again = readReport(join(out, 'sweep-report.json'));
  assert.ok(Math.abs(again.rows[1]!.metrics.usdPerMillionOutputTokens! / a100!.metrics.usdPerMillionOutputTokens! - 9.99 / 1.29) < 1e-9);
  assert.equal(again.best?.label, 'gpu=H100 SXM');

  // No price for A100 80GB: the per-GPU ranking and its caveat, naming the model without a price; its cell '-'.
  writeFileSync(file, profile(''));
  const unpriced = cli(['sweep', file, '--out', out]);
  assert.equal(unpriced.code, 0, unpriced.stderr);
  // Both on one GPU at one offered load (kept up with): the steady rate ties them, so latency ranks them (s52), and the line says so.
  assert.match(unwrapped(unpriced.stdout), /\nbest: gpu=H100 SXM — lowest p99 TTFT \([^)]+\) among the 2 points at the highest simulated throughput .*: they serve one offered load \(20\.0 requests\/s\), so simulated throughput does not rank them/);
  assert.match(unwrapped(unpriced.stdout), /as if they cost the same; no price for A100 80GB \(sweep\.gpu_hour_usd: \{ "A100 80GB": <\$ per GPU-hour> \}\), so none is ranked by cost/);
  assert.match(unwrapped(unpriced.stdout), /\nA100 80GB +resumed +- +/);

  // simulate of the profile (its own H100 SXM at $2.49): the cost line.
  const sim = cli(['simulate', file]);
  assert.equal(sim.code, 0, sim.stderr);
  // At its offered rate, kept up, × 64 output tokens each (fixed): the steady rate, not the finite run's.
  assert.match(unwrapped(sim.stdout), /\nCost \(modelled, at user-given \$2\.49\/GPU-hour\): \$0\.5\d+ per 1M output tokens at the offered (19|20|21)\.\d requests\/s, which the server keeps up with = \$2\.49 × 1 GPU \/ 3600 s \/ \((19|20|21)\.\d requests\/s × 64 output tokens a request, the run's mean, [=≈] 1,[\d,]+ output tokens\/s\) × 10\^6\n/);
});

test('merge of a folder holding no point: says which folder to give (s46 newcomer L3: it said only "no sweep point results in DIR")', () => {
  const dir = join(sweepWorkspace(PROFILE, 'p.attn.yaml', 'attnscope-merge-empty-').dir, 'emptydir');
  mkdirSync(dir);
  const r = cli(['merge', dir]);
  assert.equal(r.code, 2);
  assert.equal(r.stderr, `${dir}:1:1: no sweep point results in ${dir}: give the folder \`sweep --out\` wrote, or the sweep's default one, .attnscope/sweeps/<profile>-<sweep id>\n`);
});

/** The pids of `pid`'s child processes, from /proc (Linux): field 4 of /proc/PID/stat, after the command's ')'. */
function childPids(pid: number): number[] {
  const kids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) kids.push(Number(name));
    } catch {
      // gone between the listing and the read
    }
  }
  return kids;
}

/** Resolves once `check` holds, polling every 50 ms; rejects naming `what` after `timeoutMs`. */
function until(check: () => boolean, what: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      if (check()) {
        clearInterval(timer);
        resolve();
      } else if (Date.now() - started > timeoutMs) {
        clearInterval(timer);
        reject(new Error(`${what}: not after ${timeoutMs} ms`));
      }
    }, 50);
  });
}

test('a sweep whose stdout reader goes away (| head -1) stops its points at once: exit 141 as by SIGPIPE, silent, its workers gone, no point file written (DESIGN "Commands": one rule for a closed stdout)', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
  const dir = tempDir('attnscope-sweep-epipe-');
  const profile = join(dir, 'p.attn.yaml');
  // Points of 2,000,000 requests each: ~40 s of CPU apiece here (1,000,000 of these lengths simulate at ~50M tokens/s,
  // 1.07B tokens), so a worker that ran on would outlive the 15 s the test gives them by far.
  writeFileSync(profile, `model: ${JSON.stringify(join(root, 'examples', 'llama-3.1-8b', 'config.json'))}\ndevice: { gpu: H100 SXM }\nworkload: { requests: 2000000, arrival_rate: 10, max_model_len: 8192 }\n`);
  const out = join(dir, 'out');
  const child = spawn(process.execPath, [runner, 'sweep', profile, '--set', 'workload.arrival_rate=5,10,15,20', '--jobs', '2', '--events', '--out', out], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const closed = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  // Both workers simulating, then the read end closed, as head -1 does after its line.
  let workers: number[] = [];
  await until(() => (workers = childPids(child.pid!)).length === 2, 'two sweep workers running', 60_000);
  child.stdout.destroy();
  assert.equal(await closed, 141, stderr);
  // No error line, no stack: the profile's own notes at most.
  assert.doesNotMatch(stderr, /attnscope:|node:events|EPIPE|^\s+at /m);
  // The workers stop (their IPC channel closed: runner/sweep/worker.ts) rather than simulate on into the closed pipe.
  await until(() => workers.every((w) => !existsSync(`/proc/${w}`)), `workers ${workers.join(', ')} gone`, 15_000);
  const points = existsSync(out) ? readdirSync(out).filter((f) => f.endsWith('.json')) : [];
  assert.deepEqual(points, [], 'no point ran to its end');
});
