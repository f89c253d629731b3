/**
 * `attnscope submit --slurm --wait` against a real Slurm (test/slurm/cluster.ts): a 6-point sweep
 * as a 3-task job array must come back merged with every point, equal to the same sweep run
 * locally (the simulations are deterministic); a sweep that benchmarks must get a whole node per
 * task, its tasks never running side by side. When the daemons cannot start, this fails with
 * the reason: a scheduler test that cannot run must not pass.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { SweepReport } from '../../core/protocol/sweep';
import { comparable, sweepWorkspace } from '../fixtures/sweep';
import { missingPrerequisite, startCluster, type Cluster } from './cluster';

const runner = join(__dirname, '..', '..', 'dist', 'runner.js');

const PROFILE = `model: ./tiny/config.json
kv_cache: { memory_gib: 0.0625 }
workload:
  requests: 300
  arrival_rate: 50
  prompt_len: { dist: lognormal, median: 400, sigma: 0.5, max: 2048 }
  output_len: { dist: uniform, min: 16, max: 128 }
  prefix_sharing: { groups: 4, prefix_len: 256, fraction: 0.5 }
  max_model_len: 4096
sweep:
  axes:
    kv_cache.page_size: [1, 8, 16, 32, 64, 256]
`;

/** Two points of a job both sweep: each simulates and times its kernels (--quick: a few seconds a point). */
const BENCH_PROFILE = `model: ./tiny/config.json
kv_cache: { memory_gib: 0.0625 }
prefill: { batch_size: 1, seq_lens: [128] }
decode: { batch_sizes: [2], context_lens: [256] }
workload:
  requests: 100
  arrival_rate: 50
  prompt_len: { dist: lognormal, median: 400, sigma: 0.5, max: 2048 }
  output_len: { dist: uniform, min: 16, max: 64 }
  max_model_len: 4096
sweep:
  job: both
  axes:
    kv_cache.page_size: [8, 16]
`;

let cluster: Cluster | undefined;
after(async () => {
  await cluster?.stop();
});

test('a 6-point sweep as a 3-task Slurm array: every point, merged, equal to the local run', { timeout: 180_000 }, async () => {
  const missing = missingPrerequisite();
  assert.equal(missing, null, `the Slurm test cannot run: ${missing}`);
  cluster = await startCluster();

  const { dir: work, file: profile } = sweepWorkspace(PROFILE, 'pages.attn.yaml', 'attnscope-slurm-sweep-');
  const local = spawnSync(process.execPath, [runner, 'sweep', profile, '--out', join(work, 'local')], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(local.status, 0, local.stderr);

  const out = join(work, 'slurm');
  const submit = spawn(process.execPath, [runner, 'submit', '--slurm', profile, '--tasks', '3', '--wait', '--poll', '0.5', '--out', out], { cwd: work, env: cluster.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  submit.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  submit.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => submit.on('close', resolve));
  assert.equal(code, 0, `submit exited ${code}\n${stdout}\n${stderr}`);
  const jobId = /Submitted Slurm job (\d+): 3 array tasks for 6 points/.exec(stdout)?.[1];
  assert.ok(jobId, stdout);
  // Each of the three array tasks ran (its log is there) and the script is what was submitted.
  for (const task of [0, 1, 2]) assert.ok(existsSync(join(out, `slurm-${jobId}_${task}.out`)), `no log of task ${task}`);
  assert.match(readFileSync(join(out, 'sweep.sbatch'), 'utf8'), /^#SBATCH --array=0-2$/m);

  const merged = JSON.parse(readFileSync(join(out, 'sweep-report.json'), 'utf8')) as SweepReport;
  const localReport = JSON.parse(readFileSync(join(work, 'local', 'sweep-report.json'), 'utf8')) as SweepReport;
  assert.equal(merged.rows.length, 6);
  assert.deepEqual(merged.missing, []);
  assert.deepEqual(merged.rows.map((r) => r.values['kv_cache.page_size']), [1, 8, 16, 32, 64, 256]);
  assert.deepEqual(comparable(merged), comparable(localReport));
  assert.match(stdout, /\): 6 of 6 points\n/);

  // A partition the cluster lacks: slurmctld refuses the job, and the --out folder submit made goes with its script.
  const refused = spawnSync(process.execPath, [runner, 'submit', '--slurm', profile, '--partition', 'nope', '--out', join(work, 'refused')], { cwd: work, env: cluster.env, encoding: 'utf8', timeout: 60_000 });
  assert.equal(refused.status, 1, refused.stderr);
  assert.match(refused.stderr, /^attnscope: sbatch failed \(exit 1\): Batch job submission failed: Invalid partition name specified$/m);
  assert.ok(!existsSync(join(work, 'refused')), 'the refused job left its --out folder');
});

test('submit --wait stops, saying what to change, on a job Slurm will never start, and cancels it', { timeout: 120_000 }, () => {
  assert.ok(cluster, 'the cluster of the first test');
  // The s38 newcomer's case: --cpus-per-task 4 on the one node of CPUs=2 (scripts/slurm-setup.sh):
  // sbatch takes the job, and squeue leaves it PENDING with reason PartitionConfig for ever.
  const { dir: work, file: profile } = sweepWorkspace(PROFILE, 'pages.attn.yaml', 'attnscope-slurm-never-');
  const r = spawnSync(process.execPath, [runner, 'submit', '--slurm', profile, '--tasks', '2', '--cpus-per-task', '4', '--wait', '--poll', '0.5', '--out', join(work, 'out')], { cwd: work, env: cluster!.env, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 1, `${r.stdout}\n${r.stderr}`);
  const jobId = /Submitted Slurm job (\d+)/.exec(r.stdout)?.[1];
  assert.ok(jobId, r.stdout);
  assert.match(r.stderr, new RegExp(`^attnscope: Slurm job ${jobId} cannot start: squeue's pending reason is PartitionConfig \\(.*\\): lower --tasks or --cpus-per-task, .*; job ${jobId} cancelled$`, 'm'));
  const q = spawnSync('squeue', ['-h', '-j', jobId!], { env: cluster!.env, encoding: 'utf8' });
  assert.equal(q.stdout.trim(), '', 'the job is still queued');
});

test('a sweep that benchmarks on Slurm: each array task has the whole node and the tasks run one after another', { timeout: 180_000 }, async () => {
  // s31 newcomer-cli item 1: a job both sweep's two tasks were allocated one CPU each at the same
  // second on the 2-CPU node and timed side by side, then ranked.
  const missing = missingPrerequisite();
  assert.equal(missing, null, `the Slurm test cannot run: ${missing}`);
  cluster ??= await startCluster();
  const { dir: work, file: profile } = sweepWorkspace(BENCH_PROFILE, 'bench.attn.yaml', 'attnscope-slurm-bench-');
  const out = join(work, 'slurm');
  // --cpus-per-task 1, as the newcomer gave it: it must neither give a task one CPU nor time points side by side.
  const submit = spawn(process.execPath, [runner, 'submit', '--slurm', profile, '--tasks', '2', '--cpus-per-task', '1', '--quick', '--wait', '--poll', '0.5', '--out', out], { cwd: work, env: cluster.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  submit.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  submit.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => submit.on('close', resolve));
  assert.equal(code, 0, `submit exited ${code}\n${stdout}\n${stderr}`);
  const jobId = /Submitted Slurm job (\d+): 2 array tasks for 2 points/.exec(stdout)?.[1];
  assert.ok(jobId, stdout);
  assert.match(stdout, /^ {2}job both: each task has a whole node \(sbatch --exclusive\) and times its points one at a time/m);
  const script = readFileSync(join(out, 'sweep.sbatch'), 'utf8');
  assert.match(script, /^#SBATCH --exclusive$/m);
  assert.match(script, / --jobs 1 --quick$/m);

  // What slurmctld allocated (it keeps a finished job for MinJobAge, 300 s): every CPU of the
  // node (slurm.conf's NodeName ... CPUs=N, written by scripts/slurm-setup.sh) to each task, not
  // shared, and task 1 started no earlier than task 0 ended (or the other way round).
  const nodeCpus = Number(/^NodeName=\S+ CPUs=(\d+)/m.exec(readFileSync(join(cluster.dir, 'slurm.conf'), 'utf8'))![1]);
  const show = spawnSync('scontrol', ['-o', 'show', 'job', jobId], { env: cluster.env, encoding: 'utf8' });
  assert.equal(show.status, 0, show.stderr);
  const tasks = show.stdout.trim().split('\n').map((line) => {
    const field = (k: string) => new RegExp(`\\b${k}=(\\S+)`).exec(line)![1]!;
    return { cpus: Number(field('NumCPUs')), share: field('OverSubscribe'), start: Date.parse(field('StartTime')), end: Date.parse(field('EndTime')) };
  });
  assert.equal(tasks.length, 2, show.stdout);
  for (const t of tasks) {
    assert.equal(t.cpus, nodeCpus, show.stdout);
    assert.equal(t.share, 'NO', show.stdout);
  }
  const [a, b] = tasks.sort((x, y) => x.start - y.start) as [(typeof tasks)[0], (typeof tasks)[0]];
  assert.ok(b.start >= a.end, `the tasks overlapped:\n${show.stdout}`);
  // Each point file is a run of both jobs with its benchmark timed.
  const points = readdirSync(out).filter((n) => /^[0-9a-f]{12}-[0-9a-f]{8}\.json$/.test(n));
  assert.equal(points.length, 2);
});
