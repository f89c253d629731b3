/**
 * What `bench` checks before any work, whichever door the profile came through (a file named on
 * the command line, or `bench -` with a resolved Profile on stdin): the refusals that end a bench
 * with exit 2 before anything is measured. The problems of the profile itself, and the deployment
 * notes that inform but do not stop it, come with the loaded profile (runner/load.ts, core/validate.ts).
 */
import type { Problem, Profile } from '../core/config/types';
import { encoderBenchRefusal, type RefusalCode } from '../core/refusals';
import { POOL_NOT_SIMULABLE, poolCause } from '../core/validate';
import { InputError } from './errors';
import { capRepeats, type LoadedProfile } from './load';
import { planProblems } from './plan';

/**
 * Why the bench cannot run, at a profile key (runner/load.ts errorAt places it), in the command
 * line's words, and the code of a refusal other surfaces word for themselves.
 */
export interface BenchRefusal {
  key: string;
  message: string;
  code?: RefusalCode;
}

export interface BenchPreflight {
  /** Every reason the bench cannot run (benchRefusals), in plan order; empty when it can. */
  refusals: BenchRefusal[];
  /** The loaded profile's problems, the pool's worded for bench; none with a refusal. */
  notes: Problem[];
  /**
   * Why the workload's page-pool simulation is skipped (the kernels are still timed), or null:
   * the pool cannot be sized (core/validate.ts POOL_NOT_SIMULABLE; `simulate` refuses the
   * profile for it). Also among the notes, as a warning at the key to change.
   */
  poolSkipped: string | null;
}

/**
 * Every reason `bench` cannot run `profile` (in both doors, and for each point of a bench sweep),
 * empty when it can: an encoder has nothing to benchmark (said alone: it has no cases); else the
 * case lists past MAX_CASES, a head_dim past the CPU kernels', each case past this machine's
 * memory (runner/plan.ts planProblems).
 */
export function benchRefusals(profile: Profile, quick: boolean): BenchRefusal[] {
  if (profile.model.isEncoder) return [{ key: 'model', message: encoderBenchRefusal(profile.model.modelType, 'cli'), code: 'encoder' }];
  return planProblems(profile, quick);
}

/**
 * The one preflight of `attnscope bench`, for both doors: its refusals (benchRefusals), else the
 * loaded profile's notes, where a workload whose pool cannot be sized says that its simulation
 * is skipped.
 */
export function benchPreflight(loaded: LoadedProfile, quick: boolean): BenchPreflight {
  const refusals = benchRefusals(loaded.profile, quick);
  if (refusals.length > 0) return { refusals, notes: [], poolSkipped: null };
  const pool = loaded.problems.find((p) => p.code === POOL_NOT_SIMULABLE);
  // The device-fit warning the pool's note repeats word for word (core/validate.ts poolCause): said once, in the pool's note.
  const cause = pool ? poolCause(pool, loaded.problems) : undefined;
  // The pool's note last, as before the other notes were about the profile and this one about the run.
  const notes = [...loaded.problems.filter((p) => p !== pool && p !== cause), ...(pool ? [{ ...pool, message: `the page-pool simulation of the workload is skipped: ${pool.message}` }] : [])];
  return { refusals: [], notes, poolSkipped: pool?.message ?? null };
}

/**
 * The refusals as the CLI prints them, a line each: placed by `loaded.errorAt`, sorted by position
 * as the profile's own errors are (runner/load.ts loadProfile: the named file's first, `named` as
 * the command line gives it, then the config.json's; by line and column, as the editor lists its
 * diagnostics), at most three of a kind then a count (capRepeats: 1,000 lengths past this
 * machine's memory are not 1,000 lines).
 */
export function placeRefusals(loaded: LoadedProfile, refusals: readonly BenchRefusal[], named: string): { error: InputError; code?: RefusalCode }[] {
  const placed = refusals.map((r) => ({ error: loaded.errorAt(r.key, r.message), ...(r.code ? { code: r.code } : {}) }));
  placed.sort((a, b) => Number(b.error.file === named) - Number(a.error.file === named) || a.error.file.localeCompare(b.error.file) || a.error.line - b.error.line || a.error.column - b.error.column);
  const capped = capRepeats(placed.map((p) => ({ code: p.code ?? '', message: p.error.message, p })));
  // A count in place of the rest of a kind: at the first of them, in its words.
  return capped.map((c) => (c.message === c.p.error.message ? c.p : { ...c.p, error: new InputError(c.message, c.p.error.file, c.p.error.line, c.p.error.column) }));
}
