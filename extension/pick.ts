/** What every AttnScope quick pick shares, and which files a command offers (which of them it cannot run: core/validate.ts cannotRun). */
import { basename, dirname } from 'node:path';
import { FILE_GLOBS, isConfigPath, isProfilePath, PROFILE_SUFFIXES } from '../core/config/fileKinds';
import { profileModelName } from '../core/modelLabel';

/**
 * The options every quick pick takes (vscode.window.showQuickPick).
 *
 * `ignoreFocusOut`: the pick stays open when focus leaves it; Escape still closes it. VS Code
 * closes a quick pick on focus loss, and a pick shown by a command run from the palette while the
 * dashboard (a webview) is the active editor lost its focus to that webview: the palette's close
 * returns focus to the active editor, which a webview takes in steps (its iframe at once, then,
 * 50 ms later if nothing else took focus, a `focus` message its iframe acts on when it gets to it:
 * VS Code's webviewElement.ts, the workaround of microsoft/vscode#75209). A pick that opened
 * between the message and the iframe's handling of it closed before its rows drew, with nothing
 * picked and nothing said (the e2e "compares two saved runs" step, about 1 CI run in 15).
 */
export const PICK_OPTIONS = { ignoreFocusOut: true } as const;

/**
 * A quick pick row for a workspace file: its name as the label and its folder (workspace-relative,
 * `relative` being asRelativePath(uri, false)) as the description, none for a file at the top: a
 * top-level file read "gpt-oss-20b.attn.yaml gpt-oss-20b.attn.yaml" when the description was the
 * relative path (s44 newcomer-ed F17). A multi-root workspace's relative path leads with the folder's name.
 */
export function filePickItem(path: string, relative: string): { label: string; description?: string } {
  const folder = dirname(relative);
  return folder === '.' ? { label: basename(path) } : { label: basename(path), description: folder };
}

/**
 * A row of "New profile…"'s model pick for a config at `path` (`relative`: asRelativePath(uri,
 * false)): the model's name as core/modelLabel.ts profileModelName gives it as the label
 * ("hf/Mixtral-8x7B-v0.1.config.json" -> "Mixtral-8x7B-v0.1", "llama-3.1-8b/config.json" ->
 * "llama-3.1-8b", a hub cache snapshot -> its id), the path as the description. s47 newcomer-ed
 * F2: every `hf/*.config.json` row was titled "hf", its folder.
 */
export function configPickItem(path: string, relative: string): { label: string; description: string } {
  return { label: profileModelName({ modelPath: path }) || basename(path), description: relative };
}

/**
 * What a command may act on: 'profile' for a serving simulation or a sweep (they need a profile's
 * `workload:` or `sweep:` block; a config.json has neither), 'model' for a benchmark or a memory
 * estimate (a profile or a config.json).
 */
export type TargetKind = 'profile' | 'model';

/** The findFiles glob of the files a command of `kind` offers when no such file is the active editor's. */
export function targetGlob(kind: TargetKind): string {
  const globs = kind === 'profile' ? PROFILE_SUFFIXES.map((s) => `**/*${s}`) : FILE_GLOBS;
  return `{${globs.join(',')}}`;
}

/** Whether `path` is a file a command of `kind` acts on (core/config/fileKinds.ts names). */
export function isTarget(kind: TargetKind, path: string): boolean {
  return isProfilePath(path) || (kind === 'model' && isConfigPath(path));
}

/**
 * The file the dashboard's Run button runs when it shows no run of a file, or one the page did not
 * make (the newest saved run, on a page with none of its own): `last`, the path of the
 * text editor active last, when a command of `kind` acts on it and it is still open (`open`: the
 * open documents' paths); else undefined, and the command picks among the workspace's files. Not
 * the command's own active editor: the click gives the dashboard (a webview) the focus, and VS Code
 * then reports no active text editor.
 */
export function runButtonFile(kind: TargetKind, last: string | undefined, open: readonly string[]): string | undefined {
  return last !== undefined && isTarget(kind, last) && open.includes(last) ? last : undefined;
}
