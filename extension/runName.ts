/**
 * What a run is called wherever the editor shows it (toasts, the dashboard's title, history,
 * the compare picker, export and history file names): the model first, then the profile, then
 * the mode, e.g. "Llama-2-7b-hf · serve.attn.yaml · quick". Every run of a config.json used to
 * be called "config.json". No `vscode` import (unit-tested).
 */
import { readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Profile } from '../core/config/types';

/**
 * The model's name: the last segment of the config's `_name_or_path` (transformers writes the
 * hub id there, "meta-llama/Llama-2-7b-hf" -> "Llama-2-7b-hf"); else `X` of a file named
 * `X.config.json`; else the config's folder ("examples/llama-3.1-8b/config.json" ->
 * "llama-3.1-8b"); a model written inline in the profile: its model_type. `configText` is the
 * config's text when the caller has it (else it is read from profile.modelPath; unreadable: ignored).
 */
export function modelLabel(profile: Pick<Profile, 'modelPath' | 'model'>, configText?: string): string {
  const path = profile.modelPath;
  if (path === null) return profile.model.modelType || 'inline model';
  let nameOrPath: unknown;
  try {
    nameOrPath = (JSON.parse(configText ?? readFileSync(path, 'utf8')) as { _name_or_path?: unknown })._name_or_path;
  } catch {
    nameOrPath = undefined;
  }
  if (typeof nameOrPath === 'string') {
    const last = nameOrPath.replace(/[\\/]+$/, '').split(/[\\/]/).at(-1);
    if (last) return last;
  }
  const file = basename(path);
  const prefix = /^(.+)\.config\.json$/i.exec(file)?.[1];
  if (prefix) return prefix;
  return basename(dirname(path)) || file;
}

/** A benchmark quick (`--quick`: few repetitions, the smallest shapes) or full; or a serving simulation (`attnscope simulate`, no kernels timed). */
export type RunMode = 'quick' | 'full' | 'simulation';

/**
 * "model · profile file · mode" ("Llama-2-7b-hf · serve.attn.yaml · simulation"); the profile file is left out when the run is of the config.json
 * itself (the model's name already says which). `source`: the file the run was started on.
 */
export function runName(profile: Pick<Profile, 'modelPath' | 'model'>, source: string, mode: RunMode, configText?: string): string {
  const model = modelLabel(profile, configText);
  const parts = [model];
  if (profile.modelPath === null || basename(profile.modelPath) !== basename(source) || dirname(profile.modelPath) !== dirname(source)) parts.push(basename(source));
  parts.push(mode);
  return parts.join(' · ');
}
