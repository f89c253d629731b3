/**
 * What a run is called wherever the editor shows it (toasts, the dashboard's title, history,
 * the compare picker, export and history file names): the model first, then the profile, then
 * the mode, e.g. "Llama-2-7b-hf · serve.attn.yaml · quick". Every run of a config.json used to
 * be called "config.json". No `vscode` import (unit-tested).
 */
import { basename, dirname } from 'node:path';
import type { Profile } from '../core/config/types';
import { modelLabel } from '../core/modelLabel';

export { modelLabel };

/** A benchmark quick (`--quick`: few repetitions, the smallest shapes) or full; or a serving simulation (`attnscope simulate`, no kernels timed). */
export type RunMode = 'quick' | 'full' | 'simulation';

/**
 * "model · profile file · mode" ("Llama-2-7b-hf · serve.attn.yaml · simulation"); the profile file is left out when the run is of the config.json
 * itself (the model's name already says which). `source`: the file the run was started on. `trace`: the file name of the trace a
 * simulation replayed, named last ("… · simulation · trace mooncake.jsonl"): its figures are of that trace, not of the profile's workload.
 */
export function runName(profile: Pick<Profile, 'modelPath' | 'model'>, source: string, mode: RunMode, configText?: string, trace?: string): string {
  const model = modelLabel(profile, configText);
  const parts = [model];
  if (profile.modelPath === null || basename(profile.modelPath) !== basename(source) || dirname(profile.modelPath) !== dirname(source)) parts.push(basename(source));
  parts.push(mode);
  if (trace !== undefined) parts.push(`trace ${trace}`);
  return parts.join(' · ');
}
