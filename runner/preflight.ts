/**
 * What every command checks before any work, whichever door the profile came through (a file
 * named on the command line, or `bench -` with a resolved Profile on stdin): the refusals that
 * end a bench with exit 2 before anything is measured, and the deployment notes that inform
 * but do not stop it.
 */
import type { Problem, Profile } from '../core/config/types';
import { estimate, poolSizeProblem } from '../core/estimate';
import { checkProfile } from '../core/estimate/checks';
import { encoderBenchRefusal, type RefusalCode } from '../core/refusals';
import { planProblem } from './plan';

/**
 * Deployment checks (weights and pool vs the device, kernel limits: core/estimate/checks.ts)
 * as notes: they inform but do not stop estimate, simulate or bench, since the numbers are
 * the answer to "does it fit", so errors among them are reported as warnings.
 */
export function deploymentNotes(profile: Profile): Problem[] {
  return checkProfile(profile, estimate(profile)).map((p) => (p.severity === 'error' ? { ...p, severity: 'warning' as const } : p));
}

export interface BenchPreflight {
  /**
   * Why the bench cannot run, at a profile key (runner/load.ts errorAt places it), in the command
   * line's words, and the code of a refusal other surfaces word for themselves; null when it can.
   */
  refusal: { key: string; message: string; code?: RefusalCode } | null;
  /** The deployment notes; none with a refusal, which is one line. */
  notes: Problem[];
  /**
   * Why the workload's page-pool simulation is skipped (the kernels are still timed), or null:
   * the pool cannot be sized (core/estimate poolSizeProblem; `simulate` refuses the profile for
   * it). Also among the notes, as a warning at the key to change.
   */
  poolSkipped: string | null;
}

/**
 * The one preflight of `attnscope bench`, for both doors: an encoder has nothing to benchmark;
 * a planned case past the CPU kernels' head_dim or this machine's memory is refused
 * (runner/plan.ts planProblem); otherwise the deployment notes, and for a workload whose pool
 * cannot be sized a warning that its simulation is skipped.
 */
export function benchPreflight(profile: Profile, quick: boolean): BenchPreflight {
  if (profile.model.isEncoder) {
    return { refusal: { key: 'model', message: encoderBenchRefusal(profile.model.modelType, 'cli'), code: 'encoder' }, notes: [], poolSkipped: null };
  }
  const tooBig = planProblem(profile, quick);
  if (tooBig) return { refusal: tooBig, notes: [], poolSkipped: null };
  const notes = deploymentNotes(profile);
  const pool = profile.workload ? poolSizeProblem(profile) : null;
  if (pool) {
    const key = pool.keys.find((k) => profile.ranges[k] !== undefined);
    notes.push({
      severity: 'warning',
      code: 'pool-skipped',
      message: `the page-pool simulation of the workload is skipped: ${pool.message}`,
      range: key !== undefined ? profile.ranges[key] : { offset: 0, length: 0 },
    });
  }
  return { refusal: null, notes, poolSkipped: pool?.message ?? null };
}
