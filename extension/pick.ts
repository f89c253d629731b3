/** What every AttnScope quick pick shares, and which files a command offers (which of them it cannot run: core/validate.ts cannotRun). */
import { basename, dirname } from 'node:path';
import { FILE_GLOBS, isConfigPath, isProfilePath, PROFILE_SUFFIXES, SKIPPED_FOLDERS_GLOB } from '../core/config/fileKinds';
import { getProperty, parseProfileText } from '../core/config';
import { profileModelName } from '../core/modelLabel';
import { formatShortRunTimes, INTERRUPTED } from '../core/format';
import type { RunListEntry } from '../core/protocol/webview';
import { runPickParts } from '../webview/model';

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
 * The rows of a pick of saved runs (the palette's Compare runs and Export run), one per run in order, as
 * History's Compare pickers write them (webview/model.ts runPickParts): the profile file and mode as the
 * label; in the description the figure, the time as History's rows write it (core/format
 * formatShortRunTimes over the runs listed: to the minute, the seconds where another run shares it; it read
 * "Dec 6, 2026, 11:26:05 PM" on every row), the kind, how it ended where not ok (as History's status
 * column), the origin, the model (after its workspace folder's name where the workspace has several) and
 * the build. The pick matches on the description too (the model, the time).
 */
export function runPickItems(runs: readonly RunListEntry[]): Array<{ label: string; description: string }> {
  const times = formatShortRunTimes(runs.map((r) => r.createdAt));
  return runs.map((r, i) => {
    const p = runPickParts(r, r.folder === undefined ? r.name : `${r.folder}: ${r.name}`, times[i]!);
    const ended = r.interrupted ? INTERRUPTED : r.status === 'ok' ? '' : r.status;
    return { label: p.file, description: [p.figure, p.time, p.kind, ended, p.origin, p.model, p.build].filter((part) => part).join(' · ') };
  });
}

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

/**
 * Whether `text`, the file at `path`, is a profile with a `sweep:` key (valid or not, as the "Run
 * sweep" lens, server/lenses.ts): the dashboard's Run button then sweeps it (RunTarget.sweep).
 */
export function sweepProfileText(path: string, text: string): boolean {
  return isProfilePath(path) && getProperty(parseProfileText(text, path).root, 'sweep') !== undefined;
}

/**
 * What a workspace pick's file search leaves out (VS Code's findFiles exclude glob): the folders
 * core/config/fileKinds.ts SKIPPED_FOLDERS names, which the language server's background pass
 * skips too (it answers the pick's check of the files the pick lists).
 */
export const PICK_EXCLUDE = SKIPPED_FOLDERS_GLOB;

/**
 * The most files a workspace pick lists. It was 200, with nothing said past it: of a workspace of
 * 255 profiles and 20 hf/ configs, the root profiles and every config went unlisted, so they could
 * not be picked at all (s49 newcomer-ed 1). A quick pick draws only the rows on screen and filters
 * 5,000 rows as it types; past them a last row says how to reach the rest.
 */
export const PICK_FILE_LIMIT = 5000;

/** VS Code's workspace.findFiles, as far as the picks use it (`max`: maxResults). */
export type FindFiles<U> = (include: string, exclude: string, max: number) => PromiseLike<readonly U[]>;

/** A file a pick lists, with its workspace-relative path (what the rows show: filePickItem, configPickItem). */
export interface PickFile<U> {
  file: U;
  /** asRelativePath(uri, false), computed once per file (it sorts the list and labels the row). */
  relative: string;
}

/**
 * The workspace's files matching `include`, in the order a pick lists them: a workspace folder's
 * top-level files first (the ones a newcomer looks for: s49, the root page-size.attn.yaml was
 * among those cut), then by relative path (`relative`: asRelativePath(uri, false)), each with
 * that path. At most PICK_FILE_LIMIT; `more` when the workspace holds more (one more is asked for to know).
 */
export async function findPickFiles<U>(find: FindFiles<U>, include: string, relative: (u: U) => string): Promise<{ files: Array<PickFile<U>>; more: boolean }> {
  const found = [...(await find(include, PICK_EXCLUDE, PICK_FILE_LIMIT + 1))];
  const more = found.length > PICK_FILE_LIMIT;
  const keyed = found.map((file) => ({ file, relative: relative(file) }));
  const depth = (rel: string): number => (/[\\/]/.test(rel) ? 1 : 0);
  keyed.sort((a, b) => depth(a.relative) - depth(b.relative) || a.relative.localeCompare(b.relative));
  return { files: keyed.slice(0, PICK_FILE_LIMIT), more };
}

/**
 * The last row of a pick that lists PICK_FILE_LIMIT files of more: what is listed (`what`, plural:
 * "profiles") and `how` to reach another, as its detail. `more` is what picking the row says
 * ({@link acceptedItem}): it is no pick; it returned nothing, silently, and in New profile's config
 * pick opened Browse…, as a row with no file (s49 review 3).
 */
export function morePickItem(what: string, how: string): { label: string; detail: string; more: string } {
  const listed = `the first ${PICK_FILE_LIMIT.toLocaleString('en-US')} ${what} are listed`;
  return { label: `$(info) Only ${listed}`, detail: how, more: `AttnScope: only ${listed}; ${how}.` };
}

/**
 * How each pick's user reaches a file past the listed ones ({@link morePickItem}'s `how`): the
 * commands act on the active editor's file, New profile on the active editor's config.json too;
 * Check vLLM log's model pick has no editor to read, and lists a folder's top-level files first.
 */
export const MORE_HOW = {
  command: 'open another from the Explorer and run the command from its editor (or its code lens)',
  newProfile: 'open another config.json from the Explorer and run New profile from its editor, or pick Browse… and choose it',
  vllmLog: "open the folder that holds the model's profile or config.json (File > Open Folder…): its top-level files are listed first",
} as const;

/** A quick pick as acceptedItem uses it (vscode.QuickPick). */
export interface AcceptingPick<T> {
  readonly selectedItems: readonly T[];
  onDidAccept(listener: () => void): { dispose(): void };
  onDidHide(listener: () => void): { dispose(): void };
}

/**
 * The row `pick` is accepted on, undefined when it is closed first. Accepting a {@link morePickItem}
 * row is no pick: `say` is called with its `more` and the pick stays open, so the user can pick a
 * listed file or close it.
 */
export function acceptedItem<T extends { more?: string }>(pick: AcceptingPick<T>, say: (message: string) => void): Promise<T | undefined> {
  return new Promise((done) => {
    const subs = [
      pick.onDidAccept(() => {
        const item = pick.selectedItems[0];
        if (item?.more !== undefined) say(item.more);
        else finish(item);
      }),
      pick.onDidHide(() => finish(undefined)),
    ];
    function finish(item: T | undefined): void {
      for (const sub of subs) sub.dispose();
      done(item);
    }
  });
}

/** A quick pick as showThenFill uses it (vscode.QuickPick). */
export interface FillablePick<T> {
  items: readonly T[];
  busy: boolean;
  placeholder: string | undefined;
  show(): void;
  onDidHide(listener: () => void): { dispose(): void };
}

/**
 * Shows `pick` at once, busy with `searching` as its placeholder, then awaits `find` and ends the
 * busy state: undefined when the pick was closed meanwhile. The file search came first and the
 * pick after it, so the first command of a window (VS Code's search warming up) showed nothing for
 * ~7 s at load 20, the second its pick in 1.4 s (s49 newcomer-ed 2). The caller fills the items.
 */
export async function showThenFill<T, R>(pick: FillablePick<T>, searching: string, find: () => PromiseLike<R>): Promise<R | undefined> {
  let open = true;
  const hidden = pick.onDidHide(() => {
    open = false;
  });
  pick.busy = true;
  pick.placeholder = searching;
  pick.show();
  try {
    const found = await find();
    return open ? found : undefined;
  } finally {
    hidden.dispose();
    if (open) {
      pick.busy = false;
      pick.placeholder = undefined;
    }
  }
}
