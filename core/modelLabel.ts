/**
 * A model's name as people call it, from its profile: the editor's run names (extension/runName.ts),
 * a sweep report's `models` (runner/sweep/results.ts mergeResults), and the name a profile's model
 * is compared by with the name another source gives it (a vllm bench result's model_id, a vLLM
 * log's model='...'): one rule for all of them. No `vscode` import.
 */
import { readFileSync } from 'node:fs';
import type { Profile } from './config/types';

/** The path's segments, '/' or '\' separated, without empty ones. */
const segments = (path: string) => path.split(/[\\/]/).filter((x) => x !== '');

/**
 * The Hugging Face id of a file in the hub cache, "ORG/NAME" from its
 * `.../models--ORG--NAME/snapshots/<revision>/...` path (huggingface_hub's cache layout,
 * file_download.py repo_folder_name: "models--" + the id with "/" written "--"); null elsewhere.
 * The snapshot path is a symbolic link into blobs/: the path as written is read, not its target.
 */
export function hubModelId(path: string): string | null {
  const parts = segments(path);
  const at = parts.lastIndexOf('snapshots');
  const folder = at >= 1 && at <= parts.length - 3 ? /^models--(.+)$/.exec(parts[at - 1]!) : null;
  return folder ? folder[1]!.split('--').join('/') : null;
}

/**
 * The profile's model's name from its config file's path: the hub id of a config in the Hugging
 * Face cache ({@link hubModelId}: ".../models--meta-llama--Llama-3.1-8B/snapshots/<rev>/config.json"
 * -> "meta-llama/Llama-3.1-8B", where the folder would give the revision hash); else the file's
 * name without ".json" and a ".config" before it ("Llama-3.1-8B.json", "Llama-3.1-8B.config.json"
 * -> "Llama-3.1-8B"), or the folder of a "config.json" ("llama-3.1-8b/config.json" ->
 * "llama-3.1-8b"); null when the profile was not read from a file.
 */
export function profileModelName(profile: Pick<Profile, 'modelPath'>): string | null {
  if (!profile.modelPath) return null;
  const hub = hubModelId(profile.modelPath);
  if (hub) return hub;
  const parts = segments(profile.modelPath);
  const file = (parts[parts.length - 1] ?? '').replace(/\.json$/i, '');
  if (file.toLowerCase() === 'config') return parts[parts.length - 2] ?? file;
  return file.replace(/[._-]config$/i, '');
}

/**
 * The model's name: the last segment of the config's `_name_or_path` (transformers writes the
 * hub id there, "meta-llama/Llama-2-7b-hf" -> "Llama-2-7b-hf"); else the last segment of
 * {@link profileModelName} (a hub cache config "meta-llama/Llama-3.1-8B" -> "Llama-3.1-8B"; s39
 * newcomer 5: "Llama-3.1-8B.json" was labelled by its folder; s40 newcomer 6: a hub cache config by
 * its revision hash); a model written inline in the profile: its model_type. `configText` is the
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
    const last = segments(nameOrPath).at(-1);
    if (last) return last;
  }
  return segments(profileModelName(profile) ?? '').at(-1) ?? path;
}

/** "Meta-Llama-3.1-8B-Instruct" -> "metallama3.18binstruct": a model name without case and separators. */
const bareName = (s: string) => s.toLowerCase().replace(/[^a-z0-9.]/g, '');

/**
 * The profile's model's name (profileModelName) when `named` — a Hugging Face id
 * ("meta-llama/Llama-3.1-8B-Instruct") or a path, of which the last segment counts — names
 * another model; else null. Names match when one, without case and separators, holds the other
 * ("Llama-3.1-8B-Instruct" and a config in "llama-3.1-8b/"), since an instruct or renamed
 * checkpoint of one model has its shapes; another size of a family ("70B" for "8B") is another
 * model. No name on either side: null (nothing to compare). One rule for `simulate --calibrate`
 * and `vllm-log`.
 */
export function otherModelName(named: string, profile: Pick<Profile, 'modelPath'>): string | null {
  const name = profileModelName(profile);
  if (!name) return null;
  const a = bareName(segments(named).pop() ?? '');
  const b = bareName(segments(name).pop() ?? '');
  if (a === '' || b === '' || a.includes(b) || b.includes(a)) return null;
  return name;
}
