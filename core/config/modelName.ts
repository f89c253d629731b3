/**
 * Whether a name another source gives a model (a vllm bench result's model_id, a vLLM log's
 * model='...') names another model than the profile's: one rule for `simulate --calibrate` and
 * `vllm-log`.
 */
import type { Profile } from './types';

/** "Meta-Llama-3.1-8B-Instruct" -> "metallama3.18binstruct": a model name without case and separators. */
const bareName = (s: string) => s.toLowerCase().replace(/[^a-z0-9.]/g, '');

/** The path's segments, '/' or '\' separated, without empty ones. */
const segments = (path: string) => path.split(/[\\/]/).filter((x) => x !== '');

/**
 * The profile's model's name: its config file's name without ".json" and a ".config" before it
 * ("Llama-3.1-8B.json", "Llama-3.1-8B.config.json" -> "Llama-3.1-8B"), or the folder of a
 * "config.json" ("llama-3.1-8b/config.json" -> "llama-3.1-8b"); null when the profile was not
 * read from a file.
 */
export function profileModelName(profile: Pick<Profile, 'modelPath'>): string | null {
  if (!profile.modelPath) return null;
  const parts = segments(profile.modelPath);
  const file = (parts[parts.length - 1] ?? '').replace(/\.json$/i, '');
  if (file.toLowerCase() === 'config') return parts[parts.length - 2] ?? null;
  return file.replace(/[._-]config$/i, '');
}

/**
 * The profile's model's name (profileModelName) when `named` — a Hugging Face id
 * ("meta-llama/Llama-3.1-8B-Instruct") or a path, of which the last segment counts — names
 * another model; else null. Names match when one, without case and separators, holds the other
 * ("Llama-3.1-8B-Instruct" and a config in "llama-3.1-8b/"), since an instruct or renamed
 * checkpoint of one model has its shapes; another size of a family ("70B" for "8B") is another
 * model. No name on either side: null (nothing to compare).
 */
export function otherModelName(named: string, profile: Pick<Profile, 'modelPath'>): string | null {
  const name = profileModelName(profile);
  if (!name) return null;
  const a = bareName(segments(named).pop() ?? '');
  const b = bareName(name);
  if (a === '' || b === '' || a.includes(b) || b.includes(a)) return null;
  return name;
}
