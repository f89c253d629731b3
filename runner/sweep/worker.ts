/**
 * The child side of `attnscope sweep`: one process per point (a native crash costs that point,
 * not the sweep). The parent forks `attnscope sweep --worker` with an IPC channel, sends one
 * {@link PointJob}, and gets {@link WorkerMessage}s back; SIGTERM cancels the point, and so does
 * the channel closing (the parent gone).
 * Direction of each message is in its name: ParentToWorker, WorkerToParent.
 */
import type { Backend, Profile } from '../../core/config/types';
import { estimate } from '../../core/estimate';
import { createRun, type Environment, type RunResult } from '../../core/protocol/run';
import type { SweepJob } from '../../core/protocol/sweep';
import { runBench } from '../bench';
import { describeGpu, describeMachine } from '../environment';
import { CancelledError, InputError } from '../errors';
import { simulatePool } from '../simulate';
import { checkKeepsUp, searchCapacity, type CapacityOptions, type KnownSaturation } from '../simulate/capacity';
import { readProfileTrace, traceReplay } from '../simulate/traces';
import { toolBuild } from '../version';
import { formatRequestRate } from '../../core/format';

/** Parent -> worker: the point to run. */
export interface PointJob {
  type: 'point';
  /** The point's resolved profile. */
  profile: Profile;
  job: SweepJob;
  /** Display name of the run: "<profile> [<label>]". */
  name: string;
  quick: boolean;
  backend: Backend;
  /** Job simulate: μ already measured for a point of the same capacity.ts saturationKey (runner/sweep/local.ts), not measured again. */
  saturated?: KnownSaturation;
}

/** Worker -> parent: how far the point is (fraction in [0, 1]), its run, or why it failed. */
export type WorkerMessage =
  | { type: 'progress'; fraction: number; message: string }
  | { type: 'done'; run: RunResult }
  | { type: 'failed'; message: string };

/**
 * This machine as a sweep point records it, measured by nothing: describeMachine plus the GPU's
 * identity (so that a sweep's environment key tells two GPUs apart even for simulations).
 */
export function sweepEnvironment(): Environment {
  const gpu = describeGpu();
  return { ...describeMachine(), ...(gpu ? { gpu } : {}) };
}

/**
 * Pool samples a point keeps (simulatePool's maxSamples): once a run has more steps than this,
 * the simulator halves them as they fill, leaving 400 to 800, still enough for the dashboard's
 * 400-point pool chart (webview/charts.ts POOL_CHART_MAX_POINTS); a single run keeps up to 2,000.
 * s33 newcomer-cli 8: points of a 300-request simulation with 2,000 samples, pretty-printed,
 * were 0.4-0.65 MB each (82 MB for 200 points).
 */
export const POINT_POOL_SAMPLES = 800;

/**
 * Runs one point: the pool simulation and whether the server keeps up with its load (job
 * 'simulate': capacity.ts checkKeepsUp, two to five more simulations of the saturated server unless `job.saturated`
 * gives μ), the kernel benchmark without the pool
 * ('bench'), or the benchmark with the pool ('both', as `attnscope bench` does for a profile
 * with a workload).
 * @returns the run; status 'cancelled' when `signal` fired.
 * @throws what the simulation or benchmark throws (PoolConfigError for a pool that cannot be simulated).
 */
export async function runPoint(job: PointJob, signal: AbortSignal, onProgress: (fraction: number, message: string) => void): Promise<RunResult> {
  const { profile } = job;
  if (job.job === 'max-rate') return maxRatePoint(profile, job.name, { signal }, onProgress);
  if (job.job === 'simulate') {
    const environment = sweepEnvironment();
    const run = (status: RunResult['status'], pool?: RunResult['pool']): RunResult =>
      createRun({ name: job.name, kind: 'simulate', toolVersion: toolBuild(), profile, environment, estimate: estimate(profile), status, ...(pool ? { pool } : {}) });
    try {
      // The profile's workload.trace read once, as maxRatePoint reads it, for the run and μ's saturation run.
      const trace = profile.workload?.trace;
      const profileTrace = trace ? readProfileTrace(trace, profile.workload!.maxModelLen) : undefined;
      const requests = profileTrace ? { requests: profileTrace.read.requests } : {};
      const pool = await simulatePool(profile, { signal, ...requests, maxSamples: POINT_POOL_SAMPLES, onProgress: (p) => onProgress(p.fraction, `${Math.floor(100 * p.fraction)}% of ${p.requests} requests`) });
      if (profileTrace && pool.load) pool.load.trace = traceReplay(profileTrace.read, trace!.path, 'workload.trace', trace!.resolvedPath, profileTrace.filters);
      // Whether the server keeps up (the report's best point must): μ's saturation run, as --max-rate.
      await checkKeepsUp(profile, pool, { ...requests, simulate: { signal }, ...(job.saturated ? { saturated: job.saturated } : {}) });
      return run('ok', pool);
    } catch (e) {
      if (e instanceof CancelledError || signal.aborted) return run('cancelled');
      throw e;
    }
  }
  const benched: Profile = job.job === 'bench' ? { ...profile, workload: null } : profile;
  return runBench(benched, {
    quick: job.quick,
    backend: job.backend,
    name: job.name,
    signal,
    maxPoolSamples: POINT_POOL_SAMPLES,
    emit: (e) => {
      if (e.type === 'progress') onProgress(e.total > 0 ? e.done / e.total : 0, e.message);
    },
  });
}

/**
 * A max-rate point's progress fraction after `steps` simulations (fractional within one): 1 −
 * e^(−steps / 4), rising with each and never 1 before the search ends, since how many simulations
 * a search takes is not known ahead (μ, the bracketing doublings or halvings, then bisection to
 * the 2 % tolerance: about 8 to 12; 10 reads 92 %). The sweep's progress event adds it as a
 * point's fraction (s42 newcomer 11: 0 through a whole point, whole points only).
 */
export function searchProgress(steps: number): number {
  return 1 - Math.exp(-Math.max(0, steps) / 4);
}

/**
 * A point of a `max-rate` sweep: the capacity search of `attnscope simulate --max-rate`
 * (capacity.ts searchCapacity, the one implementation) under the profile's `slo` and its
 * slo.attainment, over the profile's workload or its workload.trace (read here, as the CLI reads
 * --trace: the search scales the trace's arrivals). The run's pool is the search's result (the
 * highest passing rate's simulation, or the last one when none passed) with the curve in
 * pool.capacity; its `maxRate` is null when no rate meets the SLO. `simulate`: passed to each
 * simulation (the signal; a unit test's fixed step time). Progress: {@link searchProgress} of the
 * simulations done (the running one's fraction added), the message "search step j: ..." (step 1
 * measures the saturated throughput μ, each later one simulates one rate).
 * @returns the run; status 'cancelled' when the signal fired.
 * @throws RangeError from searchCapacity (no SLO bound: loadSweep refuses that first), and what a simulation throws.
 */
export async function maxRatePoint(profile: Profile, name: string, simulate: NonNullable<CapacityOptions['simulate']> & { signal: AbortSignal }, onProgress: (fraction: number, message: string) => void): Promise<RunResult> {
  const environment = sweepEnvironment();
  const run = (status: RunResult['status'], pool?: RunResult['pool']): RunResult =>
    createRun({ name, kind: 'simulate', toolVersion: toolBuild(), profile, environment, estimate: estimate(profile), status, ...(pool ? { pool } : {}) });
  const trace = profile.workload?.trace;
  let step = 1;
  let last = '';
  onProgress(0, 'search step 1 (saturated throughput μ): starting');
  try {
    // How the profile says to read it (workload.trace_time_unit, trace_model, trace_log_type), as simulate reads a profile's trace.
    const profileTrace = trace ? readProfileTrace(trace, profile.workload!.maxModelLen) : undefined;
    const read = profileTrace?.read;
    const { result } = await searchCapacity(profile, {
      slo: profile.slo ?? {},
      requests: read?.requests,
      simulate: {
        ...simulate,
        maxSamples: POINT_POOL_SAMPLES,
        onProgress: (p) => onProgress(searchProgress(step - 1 + p.fraction), `search step ${step}${step === 1 ? ' (saturated throughput μ)' : ''}: ${Math.floor(100 * p.fraction)}% of ${p.requests} requests${last}`),
      },
      onSaturated: () => {
        step++;
        onProgress(searchProgress(step - 1), `search step ${step}: starting`);
      },
      onPoint: (p) => {
        step++;
        last = `; last ${formatRequestRate(p.rate)} requests/s ${p.meets ? 'passed' : 'failed'}`;
      },
    });
    if (profileTrace && result.load) result.load.trace = traceReplay(profileTrace.read, trace!.path, 'workload.trace', trace!.resolvedPath, profileTrace.filters);
    return run('ok', result);
  } catch (e) {
    if (e instanceof CancelledError || simulate.signal.aborted) return run('cancelled');
    throw e;
  }
}

/** The worker process: waits for its job on the IPC channel, runs it, reports, exits. */
export function runWorker(): Promise<number> {
  const send = (m: WorkerMessage) => new Promise<void>((resolve) => (process.send ? process.send(m, undefined, {}, () => resolve()) : resolve()));
  if (!process.send) {
    process.stderr.write('attnscope: sweep --worker is started by `attnscope sweep` (it needs an IPC channel)\n');
    return Promise.resolve(2);
  }
  const ac = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => ac.abort(new CancelledError(signal));
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // The parent gone (killed: the editor's Cancel sends SIGKILL to a sweep that outlives its grace)
  // closes the channel: the point stops as on SIGTERM, where it ran on to its end with no one to
  // write its result. (Once the point is done, its own disconnect below aborts nothing running.)
  process.once('disconnect', () => ac.abort(new CancelledError()));
  return new Promise<number>((resolve) => {
    process.once('message', (job: PointJob) => {
      let last = '';
      runPoint(job, ac.signal, (fraction, message) => {
        // At most one message per change of its text (a percent, a search step): the parent redraws one line.
        if (message !== last) {
          last = message;
          void send({ type: 'progress', fraction, message });
        }
      })
        .then(async (run) => {
          await send({ type: 'done', run });
          resolve(run.status === 'cancelled' ? 130 : 0);
        })
        .catch(async (e: Error) => {
          await send({ type: 'failed', message: e instanceof InputError ? e.format() : e.message });
          resolve(1);
        })
        .finally(() => process.disconnect?.());
    });
  });
}
