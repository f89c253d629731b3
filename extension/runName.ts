/**
 * What a run is called wherever the editor shows it (toasts, the dashboard's title, history,
 * the compare picker, export and history file names): the model first, then the profile, then
 * the mode, e.g. "Llama-2-7b-hf · serve.attn.yaml · quick". Every run of a config.json used to
 * be called "config.json". No `vscode` import (unit-tested).
 */
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { Profile } from '../core/config/types';
import type { RunResult } from '../core/protocol/run';
import { modelLabel } from '../core/modelLabel';

export { modelLabel };

/** A benchmark quick (`--quick`: few repetitions, the smallest shapes) or full; or a serving simulation (`attnscope simulate`, no kernels timed). */
export type RunMode = 'quick' | 'full' | 'simulation';

/**
 * "model · profile file · mode" ("Llama-2-7b-hf · serve.attn.yaml · simulation"); the profile file is left out when the run is of the config.json
 * itself (the model's name already says which). `source`: the file the run was started on. `trace`: the trace a simulation
 * replayed (a path; its file name is used), named last ("… · simulation · trace mooncake.jsonl"): its figures are of that trace,
 * not of the profile's drawn workload. Not given, a simulation names the profile's own workload.trace, so the dashboard's
 * heading of a lens run says what History and Compare list (s41 newcomer-ed F11).
 */
export function runName(profile: Pick<Profile, 'modelPath' | 'model'> & { workload?: Profile['workload'] }, source: string, mode: RunMode, configText?: string, trace?: string): string {
  const model = modelLabel(profile, configText);
  const parts = [model];
  if (profile.modelPath === null || basename(profile.modelPath) !== basename(source) || dirname(profile.modelPath) !== dirname(source)) parts.push(basename(source));
  parts.push(mode);
  const replayed = trace ?? (mode === 'simulation' ? profile.workload?.trace?.path : undefined);
  if (replayed !== undefined) parts.push(`trace ${basename(replayed)}`);
  return parts.join(' · ');
}

/**
 * A saved run's name as History and Compare's pickers list it: the editor's runName for a run the
 * CLI wrote into the history folder (`simulate p.attn.yaml --json .attnscope/runs/x.json`), which
 * the runner names by its bare file ("qwen-tiny.attn.yaml"): five such trace replays were five
 * rows of one name (s40 newcomer-ed F9). A simulation that replayed a trace (PoolLoad.trace) says
 * which ("… · simulation · trace mooncake.jsonl"), also when its name does not. An editor run's
 * name (runName: " · " in it) is kept. `base`: the folder the CLI ran in, which a relative
 * Profile.modelPath is relative to (the history folder's workspace); the config is read there.
 */
export function listedRunName(run: Pick<RunResult, 'name' | 'kind' | 'quick' | 'profile' | 'pool'>, base?: string): string {
  const load = run.kind === 'simulate' ? run.pool?.load : undefined;
  const trace = load?.source === 'trace' && load.trace ? basename(load.trace.path) : undefined;
  if (run.name.includes(' · ')) return trace === undefined || run.name.includes(`trace ${trace}`) ? run.name : `${run.name} · trace ${trace}`;
  const source = run.profile.sourcePath;
  if (!source) return run.name;
  const modelPath = run.profile.modelPath;
  const profile = modelPath !== null && !isAbsolute(modelPath) && base !== undefined ? { ...run.profile, modelPath: join(base, modelPath) } : run.profile;
  return runName(profile, profile === run.profile ? source : resolve(base!, source), run.kind === 'simulate' ? 'simulation' : run.quick ? 'quick' : 'full', undefined, trace);
}
