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

/** What a run's name says after its file when it ran the editor's unsaved text of it (RunResult.unsavedSource). */
export const UNSAVED = '(unsaved changes)';

/**
 * "model · profile file · mode" ("Llama-2-7b-hf · serve.attn.yaml · simulation"); the profile file is left out when the run is of the config.json
 * itself (the model's name already says which). `source`: the file the run was started on. `trace`: the trace a simulation
 * replayed (a path; its file name is used), named last ("… · simulation · trace mooncake.jsonl"): its figures are of that trace,
 * not of the profile's drawn workload. Not given, a simulation names the profile's own workload.trace, so the dashboard's
 * heading of a lens run says what History and Compare list (s41 newcomer-ed F11). `unsaved`: the run is of the editor's
 * unsaved text of `source`, said after the file ("serve.attn.yaml (unsaved changes)"; s41 newcomer-ed F9: such a run was
 * named as the file on disk, whose load differed).
 */
export function runName(profile: Pick<Profile, 'modelPath' | 'model'> & { workload?: Profile['workload'] }, source: string, mode: RunMode, configText?: string, trace?: string, unsaved = false): string {
  const model = modelLabel(profile, configText);
  const parts = [model];
  if (profile.modelPath === null || basename(profile.modelPath) !== basename(source) || dirname(profile.modelPath) !== dirname(source)) parts.push(basename(source));
  if (unsaved) parts.push(`${parts.pop()!} ${UNSAVED}`);
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

/**
 * The settings a run was made with that its name does not say, each "key value" ("gpu H200",
 * "tp 8", "arrival_rate 4"), in the order a name that tells runs apart lists them
 * ({@link distinctRunNames}): the GPU the step times were modelled for (a simulation; else the
 * profile's device.gpu), tensor_parallel_size, pipeline_parallel_size, data_parallel_size, the
 * model's and the KV cache's dtype, page_size, and the workload's requests, arrival_rate and
 * max_model_len. A key the run does not have is left out.
 */
export function runSetup(run: Pick<RunResult, 'profile' | 'pool'>): string[] {
  const p = run.profile;
  const gpu = run.pool?.stepTime?.gpu ?? p.device.gpu;
  const w = p.workload;
  const items: Array<[string, string | number | undefined]> = [
    ['gpu', gpu],
    ['tp', p.device.tensorParallelSize],
    ['pp', p.device.pipelineParallelSize ?? 1],
    ['dp', p.device.dataParallelSize ?? 1],
    ['dtype', p.dtype],
    ['kv', p.kvCache.dtype],
    ['page_size', p.kvCache.pageSize],
    ['requests', w?.requests],
    ['arrival_rate', w?.arrivalRate],
    ['max_model_len', w?.maxModelLen],
  ];
  return items.filter(([, v]) => v !== undefined).map(([k, v]) => `${k} ${String(v)}`);
}

/**
 * Names that tell listed runs apart, in `runs`' order: a name no other run has is kept; runs
 * sharing one (two lens runs of one profile, edited between them: s41 newcomer-ed F5 d, "nothing
 * says which is H200") get the settings that differ among them ({@link runSetup}, a key where any
 * two of them differ, or one has it and another not) after it: "… · simulation · gpu H200 · tp 8".
 * Runs of one name and one setup keep it: History, the Compare pickers and the compare command's
 * Quick Pick show each run's time beside its name, which tells them apart. Pure: History's list
 * (extension/history.ts listRunsIn) is its one caller.
 */
export function distinctRunNames(runs: ReadonlyArray<{ name: string; setup?: readonly string[] }>): string[] {
  const byName = new Map<string, number[]>();
  runs.forEach((r, i) => byName.set(r.name, [...(byName.get(r.name) ?? []), i]));
  const names = runs.map((r) => r.name);
  const keyOf = (item: string): string => item.slice(0, item.indexOf(' '));
  for (const group of byName.values()) {
    if (group.length < 2) continue;
    const maps = group.map((i) => new Map((runs[i]!.setup ?? []).map((item) => [keyOf(item), item] as const)));
    const keys = [...new Set(maps.flatMap((m) => [...m.keys()]))];
    const differ = keys.filter((k) => new Set(maps.map((m) => m.get(k) ?? `${k} not set`)).size > 1);
    if (differ.length === 0) continue;
    group.forEach((i, j) => {
      names[i] = [runs[i]!.name, ...differ.map((k) => maps[j]!.get(k) ?? `${k} not set`)].join(' · ');
    });
  }
  return names;
}
