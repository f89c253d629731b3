/**
 * The sweep commands of `attnscope` (runner/cli.ts dispatches to them):
 *
 *   attnscope sweep <profile> [--set key=v1,v2]... [--slo-ttft-ms MS] [--slo-tpot-ms MS] [--max-rate] [--jobs N] [--shard i/N] [--out DIR] [--json FILE] [--csv FILE] [--quick] [--backend B] [--events]
 *   attnscope merge DIR... [--json FILE] [--csv FILE]
 *   attnscope submit --slurm <profile> [--set ...] [--slo-ttft-ms MS] [--slo-tpot-ms MS] [--max-rate] [--tasks N] [--partition P] [--gpus-per-task G] [--cpus-per-task C] [--time T] [--out DIR] [--wait] [--poll S]
 *   attnscope submit --k8s <profile> --image IMAGE --pvc CLAIM [--set ...] [--slo-ttft-ms MS] [--slo-tpot-ms MS] [--max-rate] [--tasks N] [--gpus-per-task G] [--cpus-per-task C] [--namespace NS] [--out DIR]
 *
 * Exit codes as every command: 0 done, 2 bad input before any work, 1 a point, task or
 * scheduler command failed (or, after --wait, points are missing), 130 cancelled.
 */
import { existsSync, readdirSync, realpathSync, rmdirSync, rmSync } from 'node:fs';
import { availableParallelism, freemem } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { BACKENDS, isBackend, type Backend } from '../../core/config/types';
import { poolSizeProblem } from '../../core/estimate';
import { MAX_SWEEP_POINTS, slurmTimeProblem } from '../../core/config/sweep';
import { formatBytes, formatCount, wrapLongLines } from '../../core/format';
import { EXIT_BUSY, EXIT_INTERNAL, EXIT_OK, type RunnerEvent } from '../../core/protocol/runner';
import { modelledJob, type SweepReport } from '../../core/protocol/sweep';
import { checkOutputDir, checkOutputPath, EXIT_CANCELLED, namesStdout, parse, shellQuote, writeOutput, type RunInput } from '../args';
import { cancelLine, CancelledError, cancelPoint, eachInputError, InputError, shortSetArg, UsageError } from '../errors';
import { profileCommand, type ProfileCommand } from '../load';
import { benchRefusals } from '../preflight';
import { Progress } from '../progress';
import { indexedJobManifest, k8sNameProblem, k8sResultsDir, ManifestError } from './k8s';
import { parseShard, runSweepLocally, shardFromEnvironment, shardPoints, type LocalSweepResult, type Shard } from './local';
import { fileLocation } from '../../core/config/positions';
import { makeFoldersSync, TOOL_FOLDER } from '../../core/makeFolder';
import { checkReportFile, checkResultsFolder, formatReport, listResultFiles, mergeResults, PointFileCache, REPORT_FILE } from './results';
import { cancelJob, JobCannotRunError, onPath, sbatchScript, SlurmError, submitBatch, taskEnds, waitForJob } from './slurm';
import { loadSweep, throwPointErrors, type SweepPlan } from './spec';
import { runWorker } from './worker';
import { SweepBusyError, takeSweepLock } from './lock';
import { readProfileTrace } from '../simulate/traces';
import { readSloBoundFlags } from '../simulate/options';
import { sweepToCsv } from '../../core/sweepCsv';

function backendOf(v: unknown): Backend {
  if (v === undefined) return 'auto';
  if (!isBackend(String(v))) throw new UsageError(`--backend must be ${BACKENDS.join(', ')}, got '${String(v)}'`);
  return v as Backend;
}

function wholeNumber(v: unknown, flag: string, min: number, max = Number.MAX_SAFE_INTEGER, why = ''): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(String(v)) || Number(v) < min) throw new UsageError(`${flag} must be a whole number >= ${min} in digits, got '${String(v)}'`, false);
  // Beyond it the digits are no longer the number read (99999999999999999999 reads as 1e20).
  if (Number(v) > max) throw new UsageError(`${flag} must be at most ${formatCount(max)}${why}, got ${String(v)}`, false);
  return Number(v);
}

function oneProfile(positionals: string[], command: string): string {
  if (positionals.length !== 1) throw new UsageError(`${command} takes exactly one profile, got ${positionals.length}`);
  return positionals[0]!;
}

/** The profile's file name without .attn.yaml / .attn.json: the stem of its sweeps' folder names. */
const profileStem = (plan: SweepPlan): string => plan.name.replace(/\.attn\.(ya?ml|json)$/i, '');

/** The sweep's default results folder: .attnscope/sweeps/<profile stem>-<sweep id>, so that running the same sweep again resumes it. */
function defaultOutDir(plan: SweepPlan): string {
  return join('.attnscope', 'sweeps', `${profileStem(plan)}-${plan.sweepId.slice(0, 8)}`);
}

/**
 * The results folders of earlier sweeps of the same profile beside `outDir` (<profile stem>-<id>,
 * as defaultOutDir names them), whose simulation points a grown sweep reuses (runSweepLocally).
 */
function earlierSweepDirs(plan: SweepPlan, outDir: string): string[] {
  const parent = dirname(resolve(outDir));
  const stem = `${profileStem(plan)}-`;
  let names: string[];
  try {
    names = readdirSync(parent, { withFileTypes: true }).filter((d) => d.isDirectory() && d.name.startsWith(stem) && d.name !== basename(resolve(outDir))).map((d) => d.name);
  } catch {
    return [];
  }
  return names.sort().map((n) => join(parent, n));
}

/**
 * Loads the sweep and refuses before any work (exit 2) a point that
 * cannot run: a benchmark past this machine (benchRefusals, each of them), or a pool that cannot be sized for
 * a job that simulates it (poolSizeProblem, what `simulate` refuses). The pool's refusal is placed
 * at an axis value among the keys to change when there is one (the point differs from the others
 * by its axis values), else at the first such key the profile writes.
 */
function prepare(file: string, command: ProfileCommand, set: string[], quick: boolean, backend: Backend, maxRate: boolean): SweepPlan {
  const plan = loadSweep(file, { set, benchOptions: { quick, backend }, command, ...(maxRate ? { job: 'max-rate' as const } : {}) });
  const axisKeys = new Set(plan.axes.map((a) => a.key));
  // Every point's refusals at once, as loadSweep lists its points' errors.
  const errors: Error[] = [];
  const traceReads = new Map<string, string | null>();
  for (const p of plan.points) {
    if (!modelledJob(plan.job)) {
      for (const refusal of benchRefusals(p.profile, quick)) errors.push(plan.errorAt(p, refusal.key, refusal.message));
    }
    const pool = plan.job !== 'bench' ? poolSizeProblem(p.profile) : null;
    if (pool) {
      const key = pool.keys.find((k) => axisKeys.has(k)) ?? pool.keys.find((k) => p.profile.ranges[k] !== undefined) ?? pool.keys[0]!;
      errors.push(plan.errorAt(p, key, pool.message));
    }
    const trace = plan.job !== 'bench' ? traceFilterProblem(p.profile, traceReads) : null;
    if (trace) {
      const keys = ['workload.trace_model', 'workload.trace_log_type', 'workload.trace'];
      const key = keys.find((k) => axisKeys.has(k) && p.profile.ranges[k] !== undefined) ?? keys.find((k) => p.profile.ranges[k] !== undefined) ?? 'workload.trace';
      errors.push(plan.errorAt(p, key, trace));
    }
  }
  throwPointErrors(errors, file);
  return plan;
}

/**
 * The --set arguments of a sweep command with its --slo-ttft-ms / --slo-tpot-ms (simulate's flags, read by
 * runner/simulate/options.ts readSloBoundFlags: the same meaning, each wins over the profile's slo) as one-value axes
 * `slo.ttft_ms=MS` / `slo.tpot_ms=MS` after them: every point is simulated and judged under that bound (goodput, the
 * best line), the value shows in the table and the point labels, the sweep id follows it (another SLO, another
 * sweep), and a resumed or scheduled sweep passes it on as the --set it is. A --set of the same key, or of the whole
 * `slo`, beside the flag is refused: two values for one bound.
 * @throws UsageError for a bad value or that clash.
 */
export function setArgs(values: Record<string, unknown>): string[] {
  const set = (values.set as string[] | undefined) ?? [];
  const bounds = readSloBoundFlags(values);
  const added: string[] = [];
  for (const [flag, key] of [['slo-ttft-ms', 'slo.ttft_ms'], ['slo-tpot-ms', 'slo.tpot_ms']] as const) {
    const text = bounds.text[flag];
    if (text === undefined) continue;
    const clash = set.find((a) => ['slo', key].includes(a.slice(0, a.indexOf('=') < 0 ? a.length : a.indexOf('=')).trim()));
    if (clash !== undefined) throw new UsageError(`--${flag} ${text} and --set ${shortSetArg(clash)} both set ${key}: give one of them`, false);
    added.push(`${key}=${text}`);
  }
  return [...set, ...added];
}

/**
 * Says the sweep's notes (SweepPlan.notes), once: after every flag is checked, so that a bad flag
 * is its error alone (s48 newcomer L3: `--jobs 0` came after the profile's 300-column warning).
 */
function sayNotes(plan: SweepPlan, say: (line: string, level: 'info' | 'warn') => void = (l) => process.stderr.write(`${l}\n`)): void {
  for (const n of plan.notes) say(n, / warning: /.test(n) ? 'warn' : 'info');
}

/**
 * Why a point's BurstGPT trace filters (workload.trace_model, trace_log_type) keep no request, or
 * null: the trace read as the point will read it (readProfileTrace), once per distinct trace and
 * settings (`reads` caches it), only where a filter is set, so that a bad filter value on an axis
 * is exit 2 before any point runs (s42 newcomer 11: the third of three points failed at run time,
 * exit 1). The message is the reader's, `trace:line:col: …`, naming the profile's keys.
 */
function traceFilterProblem(profile: SweepPlan['points'][number]['profile'], reads: Map<string, string | null>): string | null {
  const t = profile.workload?.trace;
  if (!t || (t.model === undefined && t.logType === undefined)) return null;
  const id = JSON.stringify([t.resolvedPath, t.timeUnit, t.model, t.logType, profile.workload!.maxModelLen]);
  if (!reads.has(id)) {
    try {
      readProfileTrace(t, profile.workload!.maxModelLen);
      reads.set(id, null);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      reads.set(id, e.format());
    }
  }
  return reads.get(id)!;
}

/** An AbortController aborted (reason: CancelledError) by the first SIGINT / SIGTERM; `dispose` removes the handlers. */
function cancellation(): { signal: AbortSignal; dispose: () => void } {
  const ac = new AbortController();
  const onSignal = (s: NodeJS.Signals) => ac.abort(new CancelledError(s));
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: ac.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** The CLI a worker, a Slurm task or a pod runs: this Node and this script, absolute. */
function thisCli(): string[] {
  return [process.execPath, ...process.execArgv, resolve(process.argv[1]!)];
}

/** Writes the merged report to `path`: the --json file, else (`json` undefined) the results folder's sweep-report.json. */
function writeReport(report: SweepReport, json: string | undefined, dir: string): void {
  writeOutput(json ?? join(dir, REPORT_FILE), `${JSON.stringify(report, null, 2)}\n`, json !== undefined ? '--json' : 'the sweep report');
}

/**
 * Checks --csv FILE before any work, as --json's (checkOutputPath against the files the command
 * reads), and refuses the one file for both, and stdout for both or for the CSV under --events
 * (whose stdout holds the events).
 */
function checkCsvPath(values: Record<string, unknown>, inputs: readonly RunInput[]): void {
  const csv = values.csv as string | undefined;
  if (csv === undefined) return;
  checkOutputPath(csv, '--csv', inputs);
  const json = values.json as string | undefined;
  if (json !== undefined && (resolve(json) === resolve(csv) || (namesStdout(json) && namesStdout(csv)))) throw new UsageError(`--csv ${csv}: --json writes there too; give them two files`, false);
  if (values.events === true && namesStdout(csv)) throw new UsageError(`--csv ${csv}: --events writes its events to stdout; give --csv a file`, false);
}

/** Writes the report's table as CSV to the --csv file: core/sweepCsv.ts sweepToCsv, the Sweep tab's Export CSV. */
function writeCsv(report: SweepReport, csv: string): void {
  writeOutput(csv, sweepToCsv(report).text, '--csv');
}

/** Whether the table goes to stderr: stdout holds the --json or --csv file alone. */
const stdoutTaken = (values: Record<string, unknown>): boolean => namesStdout(values.json as string | undefined) || namesStdout(values.csv as string | undefined);

/** The files a sweep reads, for checkOutputPath: its profile and the config.json of each model its points name. */
function sweepInputs(plan: SweepPlan): RunInput[] {
  const models = new Set(plan.points.map((p) => p.profile.modelPath).filter((m): m is string => m !== null && m !== plan.absFile));
  return [{ path: plan.file, what: plan.points[0]?.profile.modelPath === plan.absFile ? "the model's config.json" : 'the profile' }, ...[...models].map((m) => ({ path: m, what: "a model's config.json" }))];
}

/** The point files already in results folders (a sweep resumes from them, merge reads them), for checkOutputPath; none for a folder that cannot be listed. */
function resultInputs(dirs: string[]): RunInput[] {
  return dirs.flatMap((dir) => {
    try {
      return listResultFiles(dir).map((path) => ({ path, what: 'a sweep point result' }));
    } catch {
      return [];
    }
  });
}

/**
 * `attnscope sweep`. Under --events (the editor's "Run sweep") stdout carries NDJSON
 * RunnerEvents instead of the table (which goes to stderr): bad input an `error` event at its
 * file:line:col before any point runs (and exit 2), notes and failed points `log` events,
 * `progress` in points with the running points' values, then `sweepEnd` (also when cancelled).
 */
export async function sweepCommand(argv: string[]): Promise<number> {
  if (argv[0] === '--worker') return runWorker();
  const { values, positionals } = parse(argv, {
    set: { type: 'string', multiple: true },
    jobs: { type: 'string' },
    shard: { type: 'string' },
    out: { type: 'string' },
    json: { type: 'string' },
    csv: { type: 'string' },
    quick: { type: 'boolean', default: false },
    backend: { type: 'string' },
    events: { type: 'boolean', default: false },
    'max-rate': { type: 'boolean', default: false },
    'slo-ttft-ms': { type: 'string' },
    'slo-tpot-ms': { type: 'string' },
  });
  const events = values.events === true;
  if (events && namesStdout(values.json as string | undefined)) throw new UsageError(`--json ${String(values.json)}: --events writes its events to stdout; give --json a file`, false);
  const emit = (e: RunnerEvent): void => {
    process.stdout.write(`${JSON.stringify(e)}\n`);
  };
  // One SIGINT/SIGTERM handler from before the profile is read: a signal while the points are read
  // (synchronous) is seen once they run, and the sweep ends cancelled with its sweepEnd, where
  // Node's default handler ended the process with no event.
  const { signal, dispose } = cancellation();
  try {
    return await runSweepCommand(values, positionals, events ? emit : null, signal);
  } catch (e) {
    if (events && e instanceof InputError) for (const one of eachInputError(e)) emit({ type: 'error', message: one.message, file: one.file, line: one.line, column: one.column });
    throw e;
  } finally {
    dispose();
  }
}

/**
 * The memory one sweep worker holds at its peak, for the --jobs cap: 96 MiB. Measured in session
 * 40 (VmHWM of the `sweep --worker` processes of `sweep --jobs 2`, Node 20, the 2-vCPU Zen 4 box):
 * 85-88 MB for 300-request Llama-3.1-8B points, 86-94 MB for 3,000-request ones; a point of many
 * more requests holds more, so the cap is an upper bound on what fits.
 */
const WORKER_BYTES = 96 * 2 ** 20;

/**
 * What one data-parallel engine adds to a worker's peak: 3 MiB. s45 newcomer MEDIUM-5 (maxrss, `/usr/bin/time -f %M`
 * in KiB, the example's 2,000 requests): `simulate --max-rate` at data_parallel_size 64 / 256 peaked at 265,856 /
 * 717,576 KiB (259.6 / 700.8 MiB), plain `simulate` at dp 1 at 98,344 KiB (96.0 MiB); (259.6 − 96) / 63 = 2.6 MiB an
 * engine is the steepest measured, so WORKER_BYTES + (dp − 1) · 3 MiB is above every measured peak (dp 64: 285 MiB;
 * dp 256: 861 MiB; dp 512, 765 MB measured: 1,629 MiB).
 */
const ENGINE_BYTES = 3 * 2 ** 20;

/**
 * The memory a sweep worker is budgeted for its largest point: {@link WORKER_BYTES} plus {@link ENGINE_BYTES} an engine
 * past the first (device.data_parallel_size; a worker runs any of the points), bytes.
 */
export function workerBytes(points: ReadonlyArray<{ profile: { device: { dataParallelSize?: number } } }>): { bytes: number; dp: number } {
  const dp = points.reduce((m, p) => Math.max(m, p.profile.device.dataParallelSize ?? 1), 1);
  return { bytes: WORKER_BYTES + (dp - 1) * ENGINE_BYTES, dp };
}

/**
 * The workers a sweep starts: `wanted`, but no more than its points, and capped (said) at what
 * free memory holds at `budget.bytes` each ({@link workerBytes}: {@link WORKER_BYTES} a worker, more at data
 * parallel, said in a line when more than one worker runs; os.freemem: Linux's MemAvailable), at least one;
 * above the CPU count a warning (`given`: --jobs was written), since the workers then take turns on
 * the CPUs (s40 newcomer 7: --jobs 24 started 24 workers on 2 vCPUs, without a word). `cpus`
 * and `free` (bytes): this machine's unless given.
 */
export function workerCount(wanted: number, points: number, given: boolean, say: (line: string, level?: 'info' | 'warn') => void, cpus = availableParallelism(), free = freemem(), budget = { bytes: WORKER_BYTES, dp: 1 }): number {
  const running = Math.max(1, Math.min(wanted, points));
  const fit = Math.max(1, Math.floor(free / budget.bytes));
  const holds = budget.dp > 1
    ? `a worker is budgeted ${formatBytes(budget.bytes)} (${formatBytes(WORKER_BYTES)}, the measured peak of a simulation worker, + ${formatBytes(ENGINE_BYTES)} an engine at the largest point's data_parallel_size ${budget.dp})`
    : `a worker holds about ${formatBytes(WORKER_BYTES)} (measured peak of a simulation worker)`;
  if (running > fit) {
    say(`attnscope: warning: --jobs ${wanted}: ${fit} worker${fit > 1 ? 's' : ''} at once, not ${running}: ${formatBytes(free)} of memory is free here, and ${holds}`, 'warn');
    return fit;
  }
  if (budget.dp > 1 && running > 1) say(`sweep: ${running} workers at once; ${holds}, ${formatBytes(running * budget.bytes)} in all of ${formatBytes(free)} free`);
  if (given && running > cpus) say(`attnscope: warning: --jobs ${wanted}: ${running} workers on ${cpus} CPUs take turns on them, so the sweep is no faster than at --jobs ${cpus}, and each holds its own memory`, 'warn');
  return running;
}

/** `attnscope sweep` after its flags are parsed; `emit`: the --events writer, else null; `signal`: aborted by SIGINT/SIGTERM. */
async function runSweepCommand(values: Record<string, unknown>, positionals: string[], emit: ((e: RunnerEvent) => void) | null, signal: AbortSignal): Promise<number> {
  const file = oneProfile(positionals, 'sweep');
  const backend = backendOf(values.backend);
  const quick = values.quick === true;
  /** A line for the user: on stderr, or under --events a `log` event. */
  const say = (line: string, level: 'info' | 'warn' | 'error' = 'info'): void => {
    if (emit) emit({ type: 'log', level, message: line.replace(/^attnscope: /, '') });
    else process.stderr.write(`${line}\n`);
  };
  if (values.out !== undefined) checkOutputDir(values.out as string, '--out');
  let shard: Shard | null;
  try {
    shard = values.shard !== undefined ? parseShard(values.shard as string) : shardFromEnvironment(process.env);
  } catch (e) {
    throw new UsageError((e as Error).message, false);
  }
  const jobsFlag = wholeNumber(values.jobs, '--jobs', 1, MAX_SWEEP_POINTS, ' (a worker per point, and a sweep has at most that many points)');
  const plan = prepare(file, profileCommand('sweep'), setArgs(values), quick, backend, values['max-rate'] === true);
  const benchmarks = !modelledJob(plan.job);
  const jobsWanted = jobsFlag ?? (benchmarks ? 1 : availableParallelism());
  const outDir = (values.out as string | undefined) ?? defaultOutDir(plan);
  checkOutputPath(values.json as string | undefined, '--json', [...sweepInputs(plan), ...resultInputs([outDir])]);
  checkCsvPath(values, [...sweepInputs(plan), ...resultInputs([outDir])]);
  // A shard writes no report unless --json names one; the whole sweep writes it beside its points.
  if (!shard && values.json === undefined) checkReportFile(join(outDir, REPORT_FILE), plan);
  // The default folder is named by this sweep's id; a folder the user names may hold anything.
  if (values.out !== undefined && existsSync(outDir)) checkResultsFolder(outDir, plan, '--out');
  sayNotes(plan, say);
  if (benchmarks && jobsWanted > 1) say(`attnscope: warning: --jobs ${jobsWanted} runs benchmarks side by side; they share this machine's cores and memory bandwidth, so they run slower (longer times, lower rates) than alone`, 'warn');
  makeFoldersSync(outDir);
  // One runner per results folder (s41 newcomer-ed F8): a second runner of this sweep refuses at once, naming the first
  // (runner/sweep/lock.ts). Shards of one sweep share its folder by design: each runs its own points, and takes no lock.
  let release: (() => void) | null = null;
  if (!shard) {
    try {
      release = takeSweepLock(outDir, (line) => say(line, 'warn'));
    } catch (e) {
      if (!(e instanceof SweepBusyError)) throw e;
      say(`attnscope: ${e.message}`, 'error');
      emit?.({ type: 'sweepBusy', outDir: resolve(outDir), lockFile: resolve(e.lockFile), owner: e.owner, message: e.message });
      return EXIT_BUSY;
    }
  }
  try {

    const share = shardPoints(plan.points, shard);
    const jobs = workerCount(jobsWanted, share.length, values.jobs !== undefined, say, availableParallelism(), freemem(), workerBytes(share));
    const earlier = earlierSweepDirs(plan, outDir);
    if (benchmarks && earlier.length > 0) {
      say(`attnscope: points of earlier sweeps of this profile (${earlier.join(', ')}) are not reused: a benchmark's timings are compared with each other, so all are measured in this run`);
    }
    const progress = new Progress(process.stderr, false);
    const where = shard ? `shard ${shard.index}/${shard.count} (${share.length} of ${plan.points.length} points)` : `${plan.points.length} points`;
    // s40 newcomer 10: a shard taken from the environment (a shell inside an salloc or an array task) was said only at the end.
    if (shard?.from) say(`sweep: ${where} from the environment (${shard.from}): the points of this shard alone are run and reported; merge all shards with attnscope merge, or unset those variables to run the whole sweep here`);
    /** The last progress event's whole percent of points, points saved and message: one event per change. */
    let lastEvent = '';
    /** The points saved when the last sweepPoints event went: one event each time the count grows. */
    let pointsSent = 0;
    /** The point files the sweepPoints merges read: each later merge reads only the files new or changed since. */
    const pointFiles = new PointFileCache();
    // The profile's prices now (a price changes no simulation: points resumed or reused are priced anew).
    const prices = new Map(plan.points.map((p) => [p.id, p.profile.device.gpuHourUsd]));
    let result;
    try {
      // A signal that came while the profile and points were read (synchronous) reaches its handler
      // in the loop's poll phase, which one setImmediate passes: then no point starts.
      await cancelPoint();
      result = await runSweepLocally(plan, {
        outDir, jobs, shard, quick, backend, runnerScript: resolve(process.argv[1]!), signal, earlier,
        onProgress: (done, total, running, saved) => {
          // A point at 100 % has simulated or timed all it runs but is not saved yet (the keeps-up
          // check, its result being written): listed at 100 % until `saved` counts it. A short point
          // finishes within its first progress interval, and was then left out: it read 0 %, then
          // nothing (s37 newcomer-ed 6).
          // A max-rate point is several simulations: its place among the points and its search step (the worker's message).
          const points = running.map((r) => (plan.job === 'max-rate' ? `point ${r.number}/${total} ${r.label}: ${r.message || 'starting'}` : `${r.label} ${Math.floor(100 * r.fraction)}%`)).join(', ');
          if (!emit) return progress.update(done, total, `sweep ${plan.name}, ${where}: ${saved} saved${points ? `; running ${points}` : ''}`);
          // A point written changes `saved` but not `done` (its fraction 1 becomes 1 written): part of the key.
          const key = `${Math.floor((100 * done) / Math.max(1, total))} ${saved} ${points}`;
          if (key === lastEvent) return;
          lastEvent = key;
          emit({ type: 'progress', done, total, message: points, saved, outDir: resolve(outDir) });
          // The points saved so far, merged (RunnerSweepPointsEvent): the Sweep tab shows them while the others run.
          if (!shard && saved > pointsSent) {
            pointsSent = saved;
            try {
              emit({ type: 'sweepPoints', report: mergeResults([outDir], { gpuHourUsd: prices, cache: pointFiles }) });
            } catch (err) {
              say(`attnscope: could not merge the points saved so far: ${err instanceof Error ? err.message : String(err)}`, 'warn');
            }
          }
        },
        onPoint: (p, outcome) => {
          progress.clear();
          if ('error' in outcome) say(`attnscope: sweep point ${p.label} failed: ${outcome.error}`, 'error');
          else if (emit) emit({ type: 'log', level: 'info', message: `point ${p.label}: ${outcome.file}` });
          else if (process.stderr.isTTY !== true) process.stderr.write(`point ${p.label}: ${outcome.file}\n`);
        },
      });
    } finally {
      progress.clear();
    }
    const inFolder = result.resumed + result.reused + result.written;
    const failed = result.failed.map((f) => ({ label: f.point.label, error: f.error }));
    if (result.cancelled) {
      // The points kept, merged into the folder's report marked interrupted, so that History and the Sweep tab show them
      // (s41 newcomer-ed: they were in no report until the sweep ended); not a shard's (its report is merge's) nor over --json (a finished sweep's file).
      let reportFile: string | null = null;
      if (!shard && values.json === undefined && inFolder > 0) {
        try {
          const report = mergeResults([outDir], { gpuHourUsd: prices });
          markOrigins(report, result);
          report.interrupted = true;
          // The profile as it was run (SweepReport.profile): what Resume sweep runs from History, and how it tells a changed file;
          // with the flags that made this sweep another than the file's (s43: a --set sweep resumed from the editor ran the file's axes).
          report.profile = profileRun(plan, values['max-rate'] === true);
          writeReport(report, undefined, outDir);
          reportFile = resolve(join(outDir, REPORT_FILE));
        } catch (err) {
          say(`attnscope: could not write the interrupted sweep's report: ${err instanceof Error ? err.message : String(err)}`, 'warn');
        }
      }
      // The one line every cancelled command prints (cancelLine: bench's and simulate's form), with how to resume.
      const reason = signal.reason instanceof CancelledError ? signal.reason : new CancelledError();
      const kept = `${formatCount(inFolder)} of ${formatCount(share.length)} points are in ${outDir}${reportFile === null ? '' : ` (merged into its ${REPORT_FILE}, marked interrupted)`}: run the same command again to resume`;
      say(cancelLine('sweep', reason, '', kept).trimEnd(), 'warn');
      emit?.({ type: 'sweepEnd', outDir: resolve(outDir), reportFile, inFolder, total: share.length, failed, cancelled: true });
      return EXIT_CANCELLED;
    }
    if (result.resumed > 0) say(`resumed: ${formatCount(result.resumed)} of ${formatCount(share.length)} points were already in ${outDir}`);
    for (const [tool, n] of result.otherBuild) {
      say(`attnscope: run again: ${n} of ${share.length} points in ${outDir} were written by another build (${tool}), not this one (${result.tool}); their figures may differ, so they are run again`, 'warn');
    }
    if (result.reused > 0) {
      say(
        `reused: ${result.reused} of ${share.length} points from earlier sweeps of this profile (same point values, base profile, model config, machine kind and build: ` +
          `a simulation gives the same result), copied from ${result.reusedFrom.join(', ')}; run now: ${result.written}`,
      );
    }
    let otherKey = 0;
    const report = mergeResults([outDir], { gpuHourUsd: prices, ...(shard ? { only: new Set(share.map((p) => p.id)) } : {}), onSkip: (_file, skipped) => void (skipped.otherKey && otherKey++) });
    if (otherKey > 0) {
      say(`attnscope: left out: ${otherKey} point files in ${outDir} carry an environment key this build does not compute for their machine (keys before s39 left out the SIMD path and CPU family/model); their points were run again under ${result.environmentKey}, and the old files can be deleted`, 'warn');
    }
    markOrigins(report, result);
    // The profile as it was run (SweepReport.profile): the dashboard says when the file has been edited since (s44 newcomer-ed F3).
    report.profile = profileRun(plan, values['max-rate'] === true);
    // A shard's report would be partial: the whole one comes from `attnscope merge`.
    const reportFile = !shard || values.json ? ((values.json as string | undefined) ?? join(outDir, REPORT_FILE)) : null;
    if (reportFile !== null) writeReport(report, values.json as string | undefined, outDir);
    if (values.csv !== undefined) writeCsv(report, values.csv as string);
    // --json or --csv /dev/stdout, or --events: stdout holds the JSON, the CSV or the events alone, the table goes to stderr.
    const table = emit || stdoutTaken(values) ? process.stderr : process.stdout;
    table.write(`${wrapLongLines(formatReport(report, shard ? { index: shard.index, count: shard.count, points: share.length } : undefined))}\n`);
    if (shard) table.write(`\n${where} done in ${outDir}; merge all shards with: attnscope merge ${outDir}\n`);
    emit?.({ type: 'sweepEnd', outDir: resolve(outDir), reportFile: reportFile === null ? null : resolve(reportFile), inFolder, total: share.length, failed, cancelled: false });
    return result.failed.length > 0 ? EXIT_INTERNAL : EXIT_OK;
  } finally {
    release?.();
  }
}

/**
 * SweepReport.profile of a sweep of `plan`: the file run (absolute path), the SHA-256 of the text
 * read, and the flags that made this sweep another than the file's own (--set, --max-rate).
 */
function profileRun(plan: SweepPlan, maxRate: boolean): NonNullable<SweepReport['profile']> {
  return { path: plan.absFile, sha256: plan.profileSha256, ...(plan.set.length > 0 ? { set: plan.set } : {}), ...(maxRate ? { maxRate: true as const } : {}) };
}

/**
 * Marks the report's rows of this machine kind with where their result comes from
 * (SweepReportRow.origin): run by this invocation, resumed from the results folder, or reused
 * from an earlier sweep's folder; formatReport shows it as a column with a legend.
 */
function markOrigins(report: SweepReport, result: LocalSweepResult): void {
  for (const row of report.rows) {
    if (row.environmentKey !== result.environmentKey) continue;
    const earlier = result.notRunNow.get(row.id);
    if (!earlier) row.origin = 'run';
    else if (earlier.origin === 'resumed') row.origin = 'resumed';
    else Object.assign(row, { origin: 'reused', reusedFrom: earlier.from });
  }
}

/**
 * The folders `merge` reads, each once: a folder named again (the same path, or another path to
 * it: a link, `./a` and `a`) is left out and said in `repeated` ("b/ is a/, given twice: read
 * once"), else every point of it reads as a duplicate of itself (s49 newcomer L5: `merge A A`
 * listed each point "also in" its own file). A folder that does not resolve stays (mergeResults says why).
 */
export function uniqueFolders(dirs: readonly string[]): { dirs: string[]; repeated: string[] } {
  const seen = new Map<string, string>();
  const repeated: string[] = [];
  for (const d of dirs) {
    let real: string;
    try {
      real = realpathSync(d);
    } catch {
      real = resolve(d);
    }
    const first = seen.get(real);
    if (first === undefined) seen.set(real, d);
    else repeated.push(first === d ? `${d} given twice: read once` : `${d} is ${first}, given twice: read once`);
  }
  return { dirs: [...seen.values()], repeated };
}

/** `attnscope merge`. */
export async function mergeCommand(argv: string[]): Promise<number> {
  const { values, positionals: given } = parse(argv, { json: { type: 'string' }, csv: { type: 'string' } });
  if (given.length === 0) throw new UsageError('merge takes one or more results folders');
  const { dirs: positionals, repeated } = uniqueFolders(given);
  for (const r of repeated) process.stderr.write(`attnscope: ${r}\n`);
  checkOutputPath(values.json as string | undefined, '--json', resultInputs(positionals));
  checkCsvPath(values, resultInputs(positionals));
  const report = mergeResults(positionals, {
    onSkip: (f, { why, line = 1, column = 1 }) => process.stderr.write(`${fileLocation(f, line, column)}: warning: skipped: ${why}\n`),
    onWarning: (f, message) => process.stderr.write(`${fileLocation(f, 1, 1)}: warning: ${message}\n`),
  });
  writeReport(report, values.json as string | undefined, positionals[0]!);
  if (values.csv !== undefined) writeCsv(report, values.csv as string);
  (stdoutTaken(values) ? process.stderr : process.stdout).write(`${wrapLongLines(formatReport(report))}\n`);
  return EXIT_OK;
}

/** Point files in `dir` (names only: `<12 hex>-<8 hex>.json`). */
function countPointFiles(dir: string): number {
  try {
    return readdirSync(dir).filter((n) => /^[0-9a-f]{12}-[0-9a-f]{8}\.json$/.test(n)).length;
  } catch {
    return 0;
  }
}

/** Removes `dir` and its parents up to and including `top` while each is empty (rmdir refuses a folder that is not). */
function removeEmptyFolders(dir: string, top: string): void {
  for (let d = dir; ; d = dirname(d)) {
    try {
      // A .attnscope folder this run made holds the .gitignore it wrote (core/makeFolder.ts TOOL_FOLDER): taken back with it.
      if (basename(d) === TOOL_FOLDER && readdirSync(d).join('/') === '.gitignore') rmSync(join(d, '.gitignore'));
      rmdirSync(d);
    } catch {
      return;
    }
    if (d === top || dirname(d) === d) return;
  }
}

/** The range of `submit --wait --poll S`, seconds. */
const MIN_POLL_S = 0.1;
const MAX_POLL_S = 86_400;

/** `attnscope submit`. */
export async function submitCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    slurm: { type: 'boolean', default: false },
    k8s: { type: 'boolean', default: false },
    set: { type: 'string', multiple: true },
    'slo-ttft-ms': { type: 'string' },
    'slo-tpot-ms': { type: 'string' },
    tasks: { type: 'string' },
    partition: { type: 'string' },
    'gpus-per-task': { type: 'string' },
    'cpus-per-task': { type: 'string' },
    time: { type: 'string' },
    out: { type: 'string' },
    wait: { type: 'boolean', default: false },
    poll: { type: 'string' },
    image: { type: 'string' },
    pvc: { type: 'string' },
    namespace: { type: 'string' },
    quick: { type: 'boolean', default: false },
    backend: { type: 'string' },
    'max-rate': { type: 'boolean', default: false },
  });
  if (values.slurm === values.k8s) throw new UsageError('submit needs exactly one of --slurm or --k8s');
  const file = oneProfile(positionals, 'submit');
  const backend = backendOf(values.backend);
  const quick = values.quick === true;
  const gpusFlag = wholeNumber(values['gpus-per-task'], '--gpus-per-task', 0);
  const cpusFlag = wholeNumber(values['cpus-per-task'], '--cpus-per-task', 1);
  const tasksFlag = wholeNumber(values.tasks, '--tasks', 1);
  const pollS = values.poll !== undefined ? Number(values.poll) : 5;
  // Past a timer's 2^31 - 1 ms (24.8 days; 1e10, Infinity) Node fires it after 1 ms, and below 0.1 s
  // it is next to that: squeue asked a thousand times a second.
  if (!(pollS >= MIN_POLL_S && pollS <= MAX_POLL_S)) throw new UsageError(`--poll must be seconds between each look at the job, from ${MIN_POLL_S} to ${formatCount(MAX_POLL_S)} (a day), got '${String(values.poll)}'`, false);
  if (values.k8s && values.wait) throw new UsageError('--wait follows a Slurm job; for the Kubernetes Job use: kubectl wait --for=condition=complete job/<name>', false);
  if (values.k8s && (!values.image || !values.pvc)) throw new UsageError('submit --k8s needs --image (with attnscope on its PATH) and --pvc (the claim the results go to)', false);
  if (values.k8s) {
    const bad = k8sNameProblem({ image: values.image as string, pvc: values.pvc as string, namespace: values.namespace as string | undefined });
    if (bad) throw new UsageError(`${bad[0]} ${JSON.stringify(values[bad[0].slice(2) as 'image' | 'pvc' | 'namespace'])}: ${bad[1]}`, false);
  }
  const timeProblem = values.time !== undefined ? slurmTimeProblem(values.time as string) : null;
  if (timeProblem) throw new UsageError(`--time ${timeProblem}`, false);
  if (values.out !== undefined) checkOutputDir(values.out as string, '--out');
  const plan = prepare(file, profileCommand('submit', [], values.slurm ? '--slurm' : '--k8s'), setArgs(values), quick, backend, values['max-rate'] === true);
  // Every flag and the profile checked, then sbatch looked for, before a folder is made: a machine
  // without Slurm is no internal failure (exit 1) but a command that cannot run here (exit 2).
  if (values.slurm && !onPath('sbatch')) throw new UsageError('submit --slurm needs sbatch, which is not on the PATH: run this on a Slurm login node (or install slurm-client); nothing was written', false);
  const s = plan.slurm;
  const tasks = Math.min(tasksFlag ?? s.tasks ?? Math.min(plan.points.length, 32), plan.points.length);
  const outDir = resolve((values.out as string | undefined) ?? defaultOutDir(plan));
  // As for sweep --out: a folder the user names may hold anything; the job's points would land
  // among it and the merge read it (s40 cli40 left 1: `submit --slurm --out .`).
  if (values.out !== undefined && existsSync(outDir)) checkResultsFolder(outDir, plan, '--out');
  sayNotes(plan);
  // The first folder this made (undefined when outDir was there): taken back if sbatch refuses the job.
  const createdDir = makeFoldersSync(outDir);

  if (values.k8s) {
    let manifest: string;
    try {
      manifest = indexedJobManifest(plan, {
        image: values.image as string, tasks, pvc: values.pvc as string, quick, backend,
        gpusPerTask: gpusFlag ?? s.gpusPerTask, cpusPerTask: cpusFlag ?? s.cpusPerTask, namespace: values.namespace as string | undefined,
      });
    } catch (e) {
      if (e instanceof ManifestError) throw new InputError(e.message, file);
      throw e;
    }
    const path = join(outDir, 'sweep-job.yaml');
    writeOutput(path, manifest, '--out');
    process.stdout.write(
      `Wrote the Indexed Job for ${plan.points.length} points in ${tasks} pods: ${path}\n` +
        `  kubectl apply -f ${shellQuote(path)}\n` +
        `  then copy ${k8sResultsDir(plan)} off the volume and run: attnscope merge <that folder>\n`,
    );
    return EXIT_OK;
  }

  const script = sbatchScript(plan, {
    tasks, outDir, workDir: process.cwd(), cli: thisCli(), quick, backend,
    partition: (values.partition as string | undefined) ?? s.partition,
    gpusPerTask: gpusFlag ?? s.gpusPerTask,
    cpusPerTask: cpusFlag ?? s.cpusPerTask,
    time: (values.time as string | undefined) ?? s.time,
  });
  const scriptPath = join(outDir, 'sweep.sbatch');
  const hadScript = existsSync(scriptPath);
  writeOutput(scriptPath, script, '--out');
  let jobId: string;
  try {
    jobId = submitBatch(scriptPath);
  } catch (e) {
    if (!(e instanceof SlurmError)) throw e;
    // No job: take back what this command made (the script, the folders it created), nothing that was there before.
    if (!hadScript) rmSync(scriptPath, { force: true });
    if (createdDir !== undefined) removeEmptyFolders(outDir, createdDir);
    process.stderr.write(`attnscope: ${e.message}\n`);
    return EXIT_INTERNAL;
  }
  process.stdout.write(`Submitted Slurm job ${jobId}: ${tasks} array tasks for ${plan.points.length} points; results in ${outDir}\n`);
  if (!modelledJob(plan.job)) {
    // What sbatchScript asks of Slurm for timings, said where the user looks.
    const cpus = cpusFlag ?? s.cpusPerTask;
    process.stdout.write(
      `  job ${plan.job}: each task has a whole node (sbatch --exclusive) and times its points one at a time, so no other job or point runs beside a timing` +
        `${cpus ? `; --cpus-per-task ${cpus} only asks for nodes with at least ${cpus} CPU${cpus === 1 ? '' : 's'}, and the benchmark uses all of the node's` : ''}\n`,
    );
  }
  if (!values.wait) {
    process.stdout.write(`  follow it with: squeue -j ${jobId}; then: attnscope merge ${outDir}\n`);
    return EXIT_OK;
  }

  const progress = new Progress(process.stderr);
  const { signal, dispose } = cancellation();
  try {
    let lastLine = '';
    await waitForJob(jobId, {
      pollMs: pollS * 1000,
      signal,
      onPoll: (states) => {
        const queued = [...states.entries()].map(([state, n]) => `${n} ${state.replace(/^\w+/, (w) => w.toLowerCase())}`).join(', ') || 'none queued';
        const done = countPointFiles(outDir);
        const line = `Slurm job ${jobId}: ${done} of ${plan.points.length} points written; tasks: ${queued}`;
        // Plain (non-terminal) output gets a line only when something changed.
        if (process.stderr.isTTY === true || line !== lastLine) progress.update(done, plan.points.length, line);
        lastLine = line;
      },
    });
  } catch (e) {
    progress.finish();
    if (e instanceof JobCannotRunError) {
      cancelJob(jobId);
      process.stderr.write(`attnscope: ${e.message}; job ${jobId} cancelled\n`);
      return EXIT_INTERNAL;
    }
    if (e instanceof SlurmError) {
      process.stderr.write(`attnscope: ${e.message}\n`);
      return EXIT_INTERNAL;
    }
    if (!signal.aborted) throw e;
    cancelJob(jobId);
    process.stderr.write(`attnscope: cancelled Slurm job ${jobId}; finished points stay in ${outDir} (submit again to run the rest)\n`);
    return EXIT_CANCELLED;
  } finally {
    dispose();
  }
  progress.finish();
  const failedTasks = taskEnds(jobId).filter((t) => t.state !== 'COMPLETED');
  for (const t of failedTasks) process.stderr.write(`attnscope: Slurm task ${jobId}_${t.task} ended ${t.state} (exit ${t.exitCode}); its log: ${join(outDir, `slurm-${jobId}_${t.task}.out`)}\n`);
  let report: SweepReport;
  try {
    report = mergeResults([outDir], { gpuHourUsd: new Map(plan.points.map((p) => [p.id, p.profile.device.gpuHourUsd])) });
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    process.stderr.write(`attnscope: Slurm job ${jobId} wrote no results: ${e.message}; see ${join(outDir, `slurm-${jobId}_*.out`)}\n`);
    return EXIT_INTERNAL;
  }
  writeReport(report, undefined, outDir);
  process.stdout.write(`${wrapLongLines(formatReport(report))}\n`);
  return failedTasks.length > 0 || report.missing.length > 0 ? EXIT_INTERNAL : EXIT_OK;
}
