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

/**
 * Folders a search of the workspace's files never enters, as glob patterns of a folder's name:
 * any hidden folder (`.*`: .git, our own run history .attnscope, .venv, a tool's cache),
 * dependencies (node_modules) and Python's bytecode (__pycache__). The one rule of the
 * extension's file picks (extension/pick.ts findPickFiles, as {@link SKIPPED_FOLDERS_GLOB}) and
 * the language server's walks (server/modelPaths.ts: the background pass over the workspace's
 * profiles, model-path completion, trace names, as {@link isSkippedFolder}). s49: the pick skipped
 * node_modules, .git and .attnscope and the server every hidden folder, so a profile under another
 * hidden folder was listed by the pick but not answered before it.
 */
export const SKIPPED_FOLDERS: readonly string[] = ['.*', 'node_modules', '__pycache__'];

/** {@link SKIPPED_FOLDERS} as VS Code's findFiles exclude glob: every path under such a folder, at any depth. */
export const SKIPPED_FOLDERS_GLOB = `**/{${SKIPPED_FOLDERS.join(',')}}/**`;

/** {@link SKIPPED_FOLDERS} as one expression over a folder's name (`*`: any characters). */
const SKIPPED_FOLDER_NAME = new RegExp(`^(?:${SKIPPED_FOLDERS.map((f) => f.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')).join('|')})$`);

/** Whether a folder named `name` (its own name, not a path) is one {@link SKIPPED_FOLDERS} names. */
export function isSkippedFolder(name: string): boolean {
  return SKIPPED_FOLDER_NAME.test(name);
}
