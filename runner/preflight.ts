/**
 * What `bench` checks before any work, whichever door the profile came through (a file named on
 * the command line, or `bench -` with a resolved Profile on stdin): the refusals that end a bench
 * with exit 2 before anything is measured. The problems of the profile itself, and the deployment
 * notes that inform but do not stop it, come with the loaded profile (runner/load.ts, core/validate.ts).
 */
import type { Problem, Profile } from '../core/config/types';
import { encoderBenchRefusal, type RefusalCode } from '../core/refusals';
import { POOL_NOT_SIMULABLE, poolCause } from '../core/validate';
import type { LoadedProfile } from './load';
import { planProblem } from './plan';

export interface BenchPreflight {
  /**
   * Why the bench cannot run, at a profile key (runner/load.ts errorAt places it), in the command
   * line's words, and the code of a refusal other surfaces word for themselves; null when it can.
   */
  refusal: { key: string; message: string; code?: RefusalCode } | null;
  /** The loaded profile's problems, the pool's worded for bench; none with a refusal, which is one line. */
  notes: Problem[];
  /**
   * Why the workload's page-pool simulation is skipped (the kernels are still timed), or null:
   * the pool cannot be sized (core/validate.ts POOL_NOT_SIMULABLE; `simulate` refuses the
   * profile for it). Also among the notes, as a warning at the key to change.
   */
  poolSkipped: string | null;
}

/**
 * Why `bench` cannot run `profile` (in both doors, and for each point of a bench sweep), or null:
 * an encoder has nothing to benchmark; a planned case past the CPU kernels' head_dim or this
 * machine's memory is refused (runner/plan.ts planProblem).
 */
export function benchRefusal(profile: Profile, quick: boolean): BenchPreflight['refusal'] {
  if (profile.model.isEncoder) return { key: 'model', message: encoderBenchRefusal(profile.model.modelType, 'cli'), code: 'encoder' };
  return planProblem(profile, quick);
}

/**
 * The one preflight of `attnscope bench`, for both doors: its refusal (benchRefusal), else the
 * loaded profile's notes, where a workload whose pool cannot be sized says that its simulation
 * is skipped.
 */
export function benchPreflight(loaded: LoadedProfile, quick: boolean): BenchPreflight {
  const refusal = benchRefusal(loaded.profile, quick);
  if (refusal) return { refusal, notes: [], poolSkipped: null };
  const pool = loaded.problems.find((p) => p.code === POOL_NOT_SIMULABLE);
  // The device-fit warning the pool's note repeats word for word (core/validate.ts poolCause): said once, in the pool's note.
  const cause = pool ? poolCause(pool, loaded.problems) : undefined;
  // The pool's note last, as before the other notes were about the profile and this one about the run.
  const notes = [...loaded.problems.filter((p) => p !== pool && p !== cause), ...(pool ? [{ ...pool, message: `the page-pool simulation of the workload is skipped: ${pool.message}` }] : [])];
  return { refusal: null, notes, poolSkipped: pool?.message ?? null };
}
