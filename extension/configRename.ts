/**
 * The offer to rename a HuggingFace config the editor does not read: the editor reads configs named
 * config.json or *.config.json only (core/config/fileKinds.ts: a wider selector would send every
 * *.json to the language server), so a download saved as gemma-2-9b.json got CLI estimates and a
 * silent editor. No `vscode` import (unit-tested); extension/configRenameOffer.ts shows it.
 */
import { isConfigPath, isProfilePath } from '../core/config/fileKinds';

/** How much of a *.json's text the offer reads: an HF config's "model_type" and "architectures" sit in its first lines. */
export const CONFIG_SNIFF_CHARS = 4096;

/** A config the editor does not read, the name it would, and the notice that asks. */
export interface RenameOffer {
  /** The path with `.json` replaced by `.config.json` (same folder). */
  newPath: string;
  message: string;
}

/**
 * The rename to offer for the file `path` whose text starts with `head` (its first
 * CONFIG_SNIFF_CHARS characters are read): a `*.json` that is neither a config by name
 * (isConfigPath) nor a profile (*.attn.json), holding the key "model_type" or "architectures";
 * else null.
 */
export function renameOffer(path: string, head: string): RenameOffer | null {
  if (!/\.json$/i.test(path) || isConfigPath(path) || isProfilePath(path)) return null;
  if (!/"(model_type|architectures)"\s*:/.test(head.slice(0, CONFIG_SNIFF_CHARS))) return null;
  const newPath = path.replace(/\.json$/i, '.config.json');
  const base = (p: string): string => p.split(/[\\/]/).pop() ?? p;
  return {
    newPath,
    message: `AttnScope reads HF configs named config.json or *.config.json — rename ${base(path)} to ${base(newPath)}?`,
  };
}
