/**
 * Which files AttnScope reads (DESIGN.md "Files the user writes"), decided in one place: the
 * language server's document kinds, the extension's document selector, activation events and
 * file pickers, and the profile reader's choice of syntax all come from here. Names only (no
 * parser, so the extension bundle stays small); model.ts isModelConfigFile also reads the text.
 */
/** Endings of profile file names: *.attn.yaml, *.attn.yml, *.attn.json. */
export const PROFILE_SUFFIXES = ['.attn.yaml', '.attn.yml', '.attn.json'] as const;
/** A HuggingFace config is named config.json, or <anything>.config.json. */
export const CONFIG_NAME = 'config.json';

/**
 * Workspace globs of every file a profile or config can be (VS Code's `workspaceContains:`,
 * document selectors, findFiles), the same names isProfilePath and isConfigPath accept.
 */
export const FILE_GLOBS: readonly string[] = [
  ...PROFILE_SUFFIXES.map((s) => `**/*${s}`),
  `**/${CONFIG_NAME}`,
  `**/*.${CONFIG_NAME}`,
];

function baseName(path: string): string {
  return (path.split(/[\\/]/).pop() ?? path).toLowerCase();
}

/** True for *.attn.yaml, *.attn.yml and *.attn.json (any case). */
export function isProfilePath(path: string): boolean {
  const base = baseName(path);
  return PROFILE_SUFFIXES.some((s) => base.endsWith(s) && base.length > s.length);
}

/**
 * Whether core/validate.ts validateProfileText reads `text` (the file `path`) as a profile rather than as a
 * config.json: a profile by name (isProfilePath) or any *.yaml / *.yml; any other *.json is a
 * config. A name with no such ending (bash's `<(cat p.yaml)` is /dev/fd/63) is decided by the
 * text: a JSON document (its first character after whitespace and a byte-order mark is `{`) is a
 * config.json, anything else a YAML profile (YAML errors then point into it as for a *.attn.yaml).
 */
export function readsAsProfile(path: string, text: string): boolean {
  if (isProfilePath(path) || /\.ya?ml$/i.test(path)) return true;
  if (/\.json$/i.test(path)) return false;
  return !/^\uFEFF?\s*\{/.test(text);
}

/** True for a file named config.json or *.config.json, whatever it holds (see isModelConfigFile). */
export function isConfigPath(path: string): boolean {
  const base = baseName(path);
  return base === CONFIG_NAME || (base.endsWith(`.${CONFIG_NAME}`) && base.length > CONFIG_NAME.length + 1);
}
