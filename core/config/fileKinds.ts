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

/** True for a file named config.json or *.config.json, whatever it holds (see isModelConfigFile). */
export function isConfigPath(path: string): boolean {
  const base = baseName(path);
  return base === CONFIG_NAME || (base.endsWith(`.${CONFIG_NAME}`) && base.length > CONFIG_NAME.length + 1);
}
