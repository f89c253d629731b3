/**
 * A model's name as people call it, from its profile: the editor's run names (extension/runName.ts)
 * and a sweep report's `models` (runner/sweep/results.ts mergeResults). No `vscode` import.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Profile } from './config/types';

/**
 * The model's name: the last segment of the config's `_name_or_path` (transformers writes the
 * hub id there, "meta-llama/Llama-2-7b-hf" -> "Llama-2-7b-hf"); else `X` of a file named
 * `X.config.json` or `X.json` (s39 newcomer 5: "Llama-3.1-8B.json" was labelled by its folder);
 * else, for a file named config.json, its folder ("examples/llama-3.1-8b/config.json" ->
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
  const stem = /^(.+?)(?:\.config)?\.json$/i.exec(file)?.[1];
  if (stem && stem.toLowerCase() !== 'config') return stem;
  return basename(dirname(path)) || file;
}
