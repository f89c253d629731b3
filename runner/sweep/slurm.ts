/**
 * `attnscope submit --slurm`: a sweep as one Slurm job array. Slurm schedules; each array task
 * runs `attnscope sweep` on its shard (SLURM_ARRAY_TASK_ID of SLURM_ARRAY_TASK_COUNT) into a
 * results folder every node sees (a shared file system, as on any cluster's home or scratch),
 * and `--wait` follows the job with squeue until no task is left, then merges.
 * Every Slurm command gets this process's environment (SLURM_CONF included).
 */
import type { Backend } from '../../core/config/types';
import { modelledJob } from '../../core/protocol/sweep';
import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { shellQuote } from '../args';
import type { SweepPlan } from './spec';

export interface SlurmScriptOptions {
  /** Array tasks, one shard each (>= 1). */
  tasks: number;
  partition?: string;
  gpusPerTask?: number;
  cpusPerTask?: number;
  /** Time limit per task, as sbatch's --time takes it. */
  time?: string;
  /** Absolute results folder (shared by the nodes); task logs go there too. */
  outDir: string;
  /** Folder the tasks start in (absolute). */
  workDir: string;
  /** The command that runs the CLI on a node: [node, dist/runner.js] (absolute paths). */
  cli: string[];
  quick: boolean;
  backend: Backend;
}

/**
 * The sweep CLI of one shard, as argv: `<cli> sweep <profile> --out DIR [--set ...] [--max-rate]
 * [--quick] [--backend B]` (--max-rate for a max-rate sweep, whether the profile's sweep.job or
 * submit's --max-rate made it one); the shard itself comes from the scheduler's environment.
 */
export function shardCommand(plan: SweepPlan, cli: string[], profilePath: string, outDir: string, opts: { quick: boolean; backend: string; jobs?: string }): string[] {
  return [
    ...cli,
    'sweep',
    profilePath,
    '--out',
    outDir,
    ...(opts.jobs ? ['--jobs', opts.jobs] : []),
    ...plan.set.flatMap((s) => ['--set', s]),
    ...(plan.job === 'max-rate' ? ['--max-rate'] : []),
    ...(opts.quick ? ['--quick'] : []),
    ...(opts.backend !== 'auto' ? ['--backend', opts.backend] : []),
  ];
}

/** The `--jobs` of a simulation task: one worker per CPU Slurm allocated to it (SLURM_CPUS_PER_TASK is set only when --cpus-per-task is). */
const SIMULATE_JOBS = '${SLURM_CPUS_PER_TASK:-1}';

/**
 * The sbatch script of the sweep: an array of `tasks` tasks (0..tasks-1), task logs
 * `slurm-<job>_<task>.out` in the results folder. A simulation task runs one point per CPU it
 * was given (--jobs SLURM_CPUS_PER_TASK); tasks share nodes, as a modelled result does not
 * depend on what else runs. A benchmark task (job bench or both) asks for a whole node
 * (`--exclusive`: sbatch(1) allocates the job all CPUs of its node, and no other job runs there)
 * and times its points one at a time (--jobs 1), whatever --cpus-per-task says: its timings share
 * no core, cache or memory bandwidth with another job or point, as a local benchmark sweep's
 * default --jobs 1 does.
 */
export function sbatchScript(plan: SweepPlan, opts: SlurmScriptOptions): string {
  const stem = plan.name.replace(/\.attn\.(ya?ml|json)$/i, '');
  const benchmarks = !modelledJob(plan.job);
  const directives = [
    `--job-name=attnscope-${stem}`,
    `--array=0-${opts.tasks - 1}`,
    '--ntasks=1',
    ...(benchmarks ? ['--exclusive'] : []),
    `--output=${opts.outDir}/slurm-%A_%a.out`,
    `--chdir=${opts.workDir}`,
    ...(opts.partition ? [`--partition=${opts.partition}`] : []),
    ...(opts.cpusPerTask ? [`--cpus-per-task=${opts.cpusPerTask}`] : []),
    ...(opts.gpusPerTask ? [`--gpus-per-task=${opts.gpusPerTask}`] : []),
    ...(opts.time ? [`--time=${opts.time}`] : []),
  ];
  const cmd = shardCommand(plan, opts.cli, plan.absFile, opts.outDir, { quick: opts.quick, backend: opts.backend, jobs: benchmarks ? '1' : SIMULATE_JOBS });
  const words = cmd.map((w) => (w === SIMULATE_JOBS ? `"${w}"` : shellQuote(w)));
  return [
    '#!/bin/bash',
    `# attnscope sweep ${plan.name} (sweep ${plan.sweepId}): ${plan.points.length} points in ${opts.tasks} array tasks.`,
    '# Written by `attnscope submit --slurm`; each task runs its shard (SLURM_ARRAY_TASK_ID of SLURM_ARRAY_TASK_COUNT).',
    benchmarks
      ? `# Job ${plan.job}: each task has a whole node (--exclusive) and times its points one at a time (--jobs 1): no other job or point runs beside a timing.`
      : '# Job simulate: tasks share nodes; each runs one point per CPU it was given (--cpus-per-task).',
    ...directives.map((d) => `#SBATCH ${shellQuote(d)}`),
    'set -euo pipefail',
    `exec ${words.join(' ')}`,
    '',
  ].join('\n');
}

/** A Slurm command that could not run or failed: its words and output, for one line on stderr. */
export class SlurmError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SlurmError';
  }
}

/**
 * Whether `cmd` is an executable file in one of `path`'s folders (the lookup spawn makes, whose
 * ENOENT {@link slurm} reports), so that submit can say sbatch is missing before it writes a file.
 * An empty PATH entry is the current folder, as execvp(3) reads it.
 */
export function onPath(cmd: string, path = process.env.PATH ?? ''): boolean {
  return path.split(delimiter).some((dir) => {
    const file = join(dir || '.', cmd);
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  });
}

function slurm(cmd: string, args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 60_000 });
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code;
    throw new SlurmError(code === 'ENOENT' ? `${cmd} is not on the PATH: run this on a Slurm login node (or install slurm-client)` : `${cmd}: ${r.error.message}`);
  }
  return { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * sbatch's complaint on one line: its last error line (the fatal one, after the causes it
 * logs first), with a hint where it never reached a controller.
 */
export function sbatchReason(output: string): string {
  const lines = output.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  if (lines.length === 0) return 'no output';
  const last = lines[lines.length - 1]!.replace(/^sbatch: (?:fatal|error): /, '');
  const noController = lines.some((l) => /configuration source|Unable to contact slurm controller|fetch_config|Connection refused/i.test(l));
  return noController
    ? `${last}: no Slurm controller answered (is slurmctld running? \`scontrol ping\` tells; on one machine, as root, \`bash scripts/slurm-setup.sh --start\` starts a one-node cluster and prints the SLURM_CONF to export)`
    : last;
}

/** Submits `scriptPath` with `sbatch --parsable`; returns the job id. @throws SlurmError with sbatch's message. */
export function submitBatch(scriptPath: string): string {
  const r = slurm('sbatch', ['--parsable', scriptPath]);
  const id = r.stdout.trim().split(';')[0] ?? '';
  if (r.code !== 0 || !/^\d+$/.test(id)) throw new SlurmError(`sbatch failed (exit ${r.code}): ${sbatchReason(r.stderr || r.stdout)}`);
  return id;
}

/**
 * squeue's pending reasons (squeue(1) "JOB REASON CODES") under which the job will never start
 * as submitted: the partition's limits or configuration refuse it (PartitionConfig: more CPUs,
 * memory or nodes than the partition has; PartitionNodeLimit, PartitionTimeLimit), the requested
 * nodes are not there (ReqNodeNotAvail), or the constraints, account or QOS are not satisfiable.
 */
const NEVER_RUNS = /^(?:PartitionConfig|PartitionNodeLimit|PartitionTimeLimit|ReqNodeNotAvail|BadConstraints|InvalidAccount|InvalidQOS|DependencyNeverSatisfied)\b/;

/** A job squeue says will never start as submitted ({@link NEVER_RUNS}): the caller cancels it. */
export class JobCannotRunError extends SlurmError {
  constructor(jobId: string, reason: string) {
    super(`Slurm job ${jobId} cannot start: squeue's pending reason is ${reason} (${reason.startsWith('ReqNodeNotAvail') ? 'the nodes it asks for are down, drained or not in the partition' : 'the partition, its limits or the account refuse what the job asks for'}): lower --tasks or --cpus-per-task, give a --time within the partition's limit, or pick another --partition (sinfo lists the nodes, CPUs and limits)`);
    this.name = 'JobCannotRunError';
  }
}

/**
 * Array tasks of `jobId` still in the queue, by state (PENDING, RUNNING, COMPLETING, ...), a
 * pending task with its reason ("PENDING (PartitionConfig)"; none for Slurm's "None").
 */
export function queuedTasks(jobId: string): Map<string, number> {
  const r = slurm('squeue', ['-h', '-r', '-j', jobId, '-o', '%T|%r']);
  const states = new Map<string, number>();
  // A job that has left the controller's memory: squeue says so and exits 1; nothing is queued.
  if (r.code !== 0) {
    if (/Invalid job id/i.test(r.stderr)) return states;
    throw new SlurmError(`squeue failed (exit ${r.code}): ${r.stderr.trim()}`);
  }
  for (const line of r.stdout.split('\n')) {
    const [state, reason] = line.trim().split('|');
    if (!state) continue;
    const s = state === 'PENDING' && reason && reason !== 'None' ? `${state} (${reason})` : state;
    states.set(s, (states.get(s) ?? 0) + 1);
  }
  return states;
}

/** How each array task of a finished job ended, from `scontrol show job` (kept by slurmctld for MinJobAge, 300 s by default). */
export interface TaskEnd {
  task: number;
  state: string;
  exitCode: string;
}

/** The ends of `jobId`'s array tasks, by task id; empty when slurmctld no longer has the job. */
export function taskEnds(jobId: string): TaskEnd[] {
  const r = slurm('scontrol', ['-o', 'show', 'job', jobId]);
  if (r.code !== 0) return [];
  const out: TaskEnd[] = [];
  for (const line of r.stdout.split('\n')) {
    const task = /\bArrayTaskId=(\d+)\b/.exec(line);
    const state = /\bJobState=(\S+)/.exec(line);
    const exit = /\bExitCode=(\S+)/.exec(line);
    if (task && state) out.push({ task: Number(task[1]), state: state[1]!, exitCode: exit?.[1] ?? '?' });
  }
  return out.sort((a, b) => a.task - b.task);
}

/** Cancels the job (every array task). */
export function cancelJob(jobId: string): void {
  slurm('scancel', [jobId]);
}

/**
 * Polls squeue every `pollMs` until none of `jobId`'s tasks is queued (pending, running or
 * completing), calling `onPoll` with the counts by state after each look.
 * @throws the signal's reason when aborted (the caller cancels the job); JobCannotRunError when a
 *   task's pending reason means it will never start (the caller cancels the job); SlurmError when squeue fails.
 */
export async function waitForJob(jobId: string, opts: { pollMs: number; signal: AbortSignal; onPoll?: (states: Map<string, number>) => void }): Promise<void> {
  for (;;) {
    opts.signal.throwIfAborted();
    const states = queuedTasks(jobId);
    opts.onPoll?.(states);
    if (states.size === 0) return;
    const never = [...states.keys()].map((k) => /^PENDING \((.*)\)$/.exec(k)?.[1]).find((reason) => reason !== undefined && NEVER_RUNS.test(reason));
    if (never) throw new JobCannotRunError(jobId, never);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, opts.pollMs);
      function done() {
        clearTimeout(timer);
        opts.signal.removeEventListener('abort', done);
        resolve();
      }
      opts.signal.addEventListener('abort', done, { once: true });
    });
  }
}
