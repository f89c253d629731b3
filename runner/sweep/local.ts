/**
 * Runs a sweep's points on this machine: up to `jobs` child processes at a time (one per point,
 * runner/sweep/worker.ts), each result written atomically as `<point id>-<environment key>.json`
 * in the results folder the moment it arrives. A point whose file is already there is skipped,
 * so a second invocation resumes; `shard` runs only its share, so N machines split a sweep
 * with no coordination beyond the shared (or later merged) folder.
 */
import type { Backend } from '../../core/config/types';
import { fork, type ChildProcess } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { TOOL_NAME, type RunResult } from '../../core/protocol/run';
import { modelledJob, SWEEP_SCHEMA_VERSION, type SweepPointInfo, type SweepPointRun } from '../../core/protocol/sweep';
import { writeFailureLine } from '../args';
import { writeFileAtomic } from '../atomic';
import { InputError, OutputError } from '../errors';
import { saturationKey, type KnownSaturation } from '../simulate/capacity';
import { buildIdentity } from '../version';
import { environmentKey, isNotAPoint, notRegularFile, pointFileName, readPointFile } from './results';
import type { SweepPlan, SweepPoint } from './spec';
import { sweepEnvironment, type PointJob, type WorkerMessage } from './worker';

/** Shard `index` of `count` (0 <= index < count). */
export interface Shard {
  index: number;
  count: number;
  /** The environment variables a shard not given by --shard came from, as set ("SLURM_ARRAY_TASK_ID=1 of SLURM_ARRAY_TASK_COUNT=2"). */
  from?: string;
}

/** The points of shard `shard`: every count-th point from index (round robin, so each shard gets a spread of the axes). */
export function shardPoints<T extends { index: number }>(points: readonly T[], shard: Shard | null): T[] {
  return shard ? points.filter((p) => p.index % shard.count === shard.index) : [...points];
}

/**
 * The shard from the environment a scheduler sets, or null: a Slurm array task
 * (SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN of SLURM_ARRAY_TASK_COUNT), else a Kubernetes
 * Indexed Job pod (JOB_COMPLETION_INDEX of ATTNSCOPE_SHARD_COUNT, which the manifest that
 * `attnscope submit --k8s` writes sets to `completions`).
 * @throws Error naming the variable when the values do not make a shard.
 */
export function shardFromEnvironment(env: NodeJS.ProcessEnv): Shard | null {
  const int = (name: string): number => {
    const v = env[name];
    if (v === undefined || !/^\d+$/.test(v.trim())) throw new Error(`${name}=${v ?? ''} is not a whole number`);
    return Number(v);
  };
  let shard: Shard | null = null;
  /** The variables the shard came from, as they were set, and how to fix them. */
  let from = '';
  let fix = '';
  if (env.SLURM_ARRAY_TASK_ID !== undefined) {
    const min = env.SLURM_ARRAY_TASK_MIN !== undefined ? int('SLURM_ARRAY_TASK_MIN') : 0;
    shard = { index: int('SLURM_ARRAY_TASK_ID') - min, count: int('SLURM_ARRAY_TASK_COUNT') };
    from = `SLURM_ARRAY_TASK_ID=${shard.index + min}${min ? ` - SLURM_ARRAY_TASK_MIN=${min}` : ''} of SLURM_ARRAY_TASK_COUNT=${shard.count}`;
    fix = `give --shard i/N, or submit with an sbatch --array of consecutive task IDs, one per shard (e.g. --array=0-${Math.max(shard.count - 1, 0)} for ${Math.max(shard.count, 1)})`;
  } else if (env.JOB_COMPLETION_INDEX !== undefined) {
    if (env.ATTNSCOPE_SHARD_COUNT === undefined) throw new Error('JOB_COMPLETION_INDEX is set but ATTNSCOPE_SHARD_COUNT (the Job\'s completions) is not: set it, or give --shard i/N');
    shard = { index: int('JOB_COMPLETION_INDEX'), count: int('ATTNSCOPE_SHARD_COUNT') };
    from = `JOB_COMPLETION_INDEX=${shard.index} of ATTNSCOPE_SHARD_COUNT=${shard.count}`;
    fix = 'give --shard i/N, or set ATTNSCOPE_SHARD_COUNT to the Job\'s completions';
  }
  if (shard && shard.count < 1) throw new Error(`shard ${shard.index}/${shard.count} from ${from}: the shard count must be at least 1; ${fix}`);
  if (shard && !(shard.index >= 0 && shard.index < shard.count)) throw new Error(`shard ${shard.index}/${shard.count} from ${from} is not in 0..${shard.count - 1}: ${fix}`);
  return shard && { ...shard, from };
}

/** Parses `--shard i/N` (0 <= i < N). @throws Error in words. */
export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!m) throw new Error(`--shard ${text}: expected i/N, e.g. 0/3 (shards count from 0)`);
  const shard = { index: Number(m[1]), count: Number(m[2]) };
  if (shard.count < 1) throw new Error(`--shard ${text}: N (the number of shards) must be at least 1`);
  if (shard.index >= shard.count) throw new Error(`--shard ${text}: i must be in 0..${shard.count - 1} (shards count from 0 to N − 1)`);
  return shard;
}

export interface LocalSweepOptions {
  outDir: string;
  /** Child processes at a time (>= 1). */
  jobs: number;
  shard: Shard | null;
  quick: boolean;
  backend: Backend;
  /** The CLI script the workers run (`<script> sweep --worker`): dist/runner.js. */
  runnerScript: string;
  signal: AbortSignal;
  /**
   * Progress of the whole share: points done (fractional while points run: the running points'
   * fractions are added) of `total`, the running points (each with its place in the share, from 1,
   * and its worker's last message: a max-rate point's "search step j: ..."), and `saved`: the
   * points whose result file is in the results folder now (resumed, reused or written; never a
   * running or failed one).
   */
  onProgress?: (done: number, total: number, running: Array<{ label: string; fraction: number; number: number; message: string }>, saved: number) => void;
  /**
   * Results folders of earlier sweeps of this profile: a modelled point (jobs simulate, max-rate) missing here whose file
   * is there, for this machine kind, with the same inputsId, build (RunHeader.tool) and status ok, is copied in (with this
   * sweep's `sweep` block) instead of run again. Benchmark points are always run: their timings
   * are compared with each other in the report, and timings of another run, under another load,
   * are not comparable (README: compare decode times within one run only).
   */
  earlier?: string[];
  /** A point finished: written to `file`, or failed with `error`. */
  onPoint?: (point: SweepPoint, outcome: { file: string } | { error: string }) => void;
}

export interface LocalSweepResult {
  /** Points of this share already in the folder, written by this build (skipped). */
  resumed: number;
  /**
   * Points of this share whose file in the folder another build of the runner wrote (RunHeader.tool
   * not `tool`): run again and overwritten, as their figures may differ; by that build's tool text.
   */
  otherBuild: Map<string, number>;
  /** What this sweep's points record as their maker: "attnscope <buildIdentity of the worker script>". */
  tool: string;
  /** Points of this share copied from an earlier sweep's folder (LocalSweepOptions.earlier), and from which folders. */
  reused: number;
  reusedFrom: string[];
  /** The points of this share not run now, by id: 'resumed', or the folder a reused one was copied from. */
  notRunNow: Map<string, { origin: 'resumed' } | { origin: 'reused'; from: string }>;
  /** Points run and written now. */
  written: number;
  failed: Array<{ point: SweepPoint; error: string }>;
  cancelled: boolean;
  environmentKey: string;
}

/**
 * Runs the share of `plan` that is not in `opts.outDir` yet, or is there from another build of the
 * runner (its run's `tool` is not this one's: runner/version.ts buildIdentity of `opts.runnerScript`).
 * @throws InputError when the folder holds a result of another sweep under a point's file name
 *   (a reused --out); nothing is run then.
 * @throws OutputError (exit 1, one line) when a point's file cannot be written (a full disk):
 *   the points in flight are stopped and none is started; the files written so far are kept.
 */
export async function runSweepLocally(plan: SweepPlan, opts: LocalSweepOptions): Promise<LocalSweepResult> {
  const envKey = environmentKey(sweepEnvironment());
  const tool = `${TOOL_NAME} ${buildIdentity(opts.runnerScript)}`;
  // A simulate sweep measures μ once per capacity.ts saturationKey (an arrival_rate axis shares it):
  // known from a point run, resumed or reused; `measuring` the keys a running point is measuring.
  const known = new Map<string, KnownSaturation>();
  const measuring = new Set<string>();
  const keys = new Map<SweepPoint, string>();
  const keyOf = (p: SweepPoint): string => {
    if (!keys.has(p)) keys.set(p, saturationKey(p.profile));
    return keys.get(p)!;
  };
  /** Learns μ from a point's run of this build: its own measurement, or the one it reused. */
  const learn = (p: SweepPoint, run: RunResult): void => {
    const load = run.pool?.load;
    if (plan.job !== 'simulate' || load?.saturatedRequestsPerSec === undefined || known.has(keyOf(p))) return;
    known.set(keyOf(p), { requestsPerSec: load.saturatedRequestsPerSec, from: load.saturatedFrom ?? `sweep point ${p.label}` });
  };
  const share = shardPoints(plan.points, opts.shard);
  const todo: SweepPoint[] = [];
  const otherBuild = new Map<string, number>();
  for (const p of share) {
    const file = join(opts.outDir, pointFileName(p.id, envKey));
    let there = true;
    try {
      lstatSync(file);
    } catch {
      there = false;
    }
    // A link to nothing is followed when the result is written, as --json follows one.
    const irregular = there ? notRegularFile(file) : null;
    if (!there || irregular?.why === 'a symbolic link to nothing') {
      todo.push(p);
      continue;
    }
    // The point's result would be written through it: into a FIFO (blocking with no reader), a device, a loop.
    if (irregular) throw new InputError(`is ${irregular.why}, where the result of point ${p.label} is written: remove it or give another --out`, file);
    const prior = readPointFile(file);
    if (!isNotAPoint(prior) && prior.sweep.sweepId !== plan.sweepId) {
      throw new InputError(`holds a result of another sweep (${prior.sweep.name}, sweep ${prior.sweep.sweepId}), not of ${plan.name} (sweep ${plan.sweepId}): give another --out or remove that folder`, file);
    }
    if (isNotAPoint(prior) || prior.status !== 'ok') todo.push(p);
    else if (prior.tool !== tool) {
      todo.push(p);
      otherBuild.set(prior.tool, (otherBuild.get(prior.tool) ?? 0) + 1);
    } else learn(p, prior);
  }
  const result: LocalSweepResult = {
    resumed: share.length - todo.length, otherBuild, tool, reused: 0, reusedFrom: [], notRunNow: new Map(), written: 0, failed: [], cancelled: false, environmentKey: envKey,
  };
  const toRun = new Set(todo);
  for (const p of share) if (!toRun.has(p)) result.notRunNow.set(p.id, { origin: 'resumed' });
  const running = new Map<SweepPoint, { child: ChildProcess; fraction: number; message: string }>();
  const numberOf = new Map(share.map((p, i) => [p, i + 1]));
  const report = () =>
    opts.onProgress?.(
      result.resumed + result.reused + result.written + result.failed.length + [...running.values()].reduce((s, r) => s + r.fraction, 0),
      share.length,
      [...running.entries()].map(([p, r]) => ({ label: p.label, fraction: r.fraction, number: numberOf.get(p)!, message: r.message })),
      result.resumed + result.reused + result.written,
    );
  const onAbort = () => {
    result.cancelled = true;
    for (const { child } of running.values()) child.kill('SIGTERM');
  };
  opts.signal.addEventListener('abort', onAbort, { once: true });

  const info = (p: SweepPoint): SweepPointInfo => ({
    schema: SWEEP_SCHEMA_VERSION, sweepId: plan.sweepId, inputsId: plan.inputsId, name: plan.name, job: plan.job, total: plan.points.length, axes: plan.axes,
    id: p.id, index: p.index, values: p.values, label: p.label, environmentKey: envKey,
  });

  // A point file that cannot be written (a full disk) stops the sweep: the next would fail alike.
  let writeFailed: OutputError | undefined;
  const writePoint = (p: SweepPoint, file: string, run: SweepPointRun): void => {
    try {
      // Compact: a point file is read by merge and the dashboard, not by eye (a single run's --json stays indented).
      writeFileAtomic(file, `${JSON.stringify(run)}\n`);
    } catch (e) {
      writeFailed = new OutputError(`${writeFailureLine(`sweep point ${p.label}:`, file, e)}; the sweep stopped: rerun the same command to resume`);
      for (const { child } of running.values()) child.kill('SIGTERM');
      throw writeFailed;
    }
  };

  if (modelledJob(plan.job)) {
    const left: SweepPoint[] = [];
    for (const p of todo) {
      const from = (opts.earlier ?? []).find((dir) => {
        const prior = readPointFile(join(dir, pointFileName(p.id, envKey)));
        if (isNotAPoint(prior) || prior.status !== 'ok' || prior.tool !== tool || prior.sweep.id !== p.id || prior.sweep.inputsId !== plan.inputsId || prior.sweep.job !== plan.job) return false;
        writePoint(p, join(opts.outDir, pointFileName(p.id, envKey)), { ...prior, sweep: info(p) });
        learn(p, prior);
        return true;
      });
      if (from === undefined) left.push(p);
      else {
        result.reused++;
        result.notRunNow.set(p.id, { origin: 'reused', from });
        if (!result.reusedFrom.includes(from)) result.reusedFrom.push(from);
      }
    }
    todo.splice(0, todo.length, ...left);
  }

  /** Runs one point in a child; resolves with its run, or rejects with why it failed. */
  const runChild = (p: SweepPoint): Promise<RunResult> =>
    new Promise((resolve, reject) => {
      const child = fork(opts.runnerScript, ['sweep', '--worker'], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
      running.set(p, { child, fraction: 0, message: '' });
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => {
        stderr = (stderr + d.toString('utf8')).slice(-2000);
      });
      let outcome: RunResult | string | undefined;
      child.on('message', (m: WorkerMessage) => {
        if (m.type === 'progress') {
          Object.assign(running.get(p)!, { fraction: m.fraction, message: m.message });
          report();
        } else if (m.type === 'done') outcome = m.run;
        else outcome = m.message;
      });
      child.on('error', (e) => {
        outcome ??= `could not start a worker: ${e.message}`;
      });
      child.on('close', (code, signal) => {
        running.delete(p);
        if (outcome !== undefined && typeof outcome !== 'string') resolve(outcome);
        else {
          const why = typeof outcome === 'string' ? outcome : `the worker exited with ${signal ?? `code ${code}`}${stderr.trim() ? `: ${stderr.trim().split('\n').slice(-3).join(' | ')}` : ''}`;
          reject(new Error(why));
        }
      });
      const saturated = plan.job === 'simulate' ? known.get(keyOf(p)) : undefined;
      const job: PointJob = { type: 'point', profile: p.profile, job: plan.job, name: `${plan.name} [${p.label}]`, quick: opts.quick, backend: opts.backend, ...(saturated ? { saturated } : {}) };
      child.send(job);
    });

  /**
   * The next point to run: in order, passing over a simulation whose μ a running point is
   * measuring (it reuses that μ once known) while another is there to run; the first left else.
   */
  const pending = [...todo];
  const take = (): SweepPoint => {
    const free = plan.job === 'simulate' ? pending.findIndex((p) => known.has(keyOf(p)) || !measuring.has(keyOf(p))) : 0;
    return pending.splice(Math.max(0, free), 1)[0]!;
  };
  const slot = async (): Promise<void> => {
    while (pending.length > 0 && !opts.signal.aborted && !writeFailed) {
      const p = take();
      const measures = plan.job === 'simulate' && !known.has(keyOf(p));
      if (measures) measuring.add(keyOf(p));
      try {
        const run = await runChild(p);
        if (measures) measuring.delete(keyOf(p));
        if (run.status === 'cancelled') continue;
        learn(p, run);
        const file = join(opts.outDir, pointFileName(p.id, envKey));
        writePoint(p, file, { ...run, sweep: info(p) });
        result.written++;
        opts.onPoint?.(p, { file });
      } catch (e) {
        if (measures) measuring.delete(keyOf(p));
        if (opts.signal.aborted || writeFailed) continue;
        const error = (e as Error).message;
        result.failed.push({ point: p, error });
        opts.onPoint?.(p, { error });
      }
      report();
    }
  };
  report();
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.jobs, todo.length)) }, slot));
  } finally {
    opts.signal.removeEventListener('abort', onAbort);
  }
  if (writeFailed) throw writeFailed;
  result.cancelled = opts.signal.aborted;
  return result;
}
