/**
 * "AttnScope: Check vLLM log": the editor's door to what `attnscope vllm-log` does. The log is
 * the active editor's text when it holds a vLLM start-up memory line (a pasted log, unsaved
 * counts), else a file picked; the model is a profile or config.json of the workspace, picked
 * (resolved by the language server, so unsaved edits count), or none (the figures alone). The
 * term-by-term comparison (core/vllmlog) opens as a Markdown preview, under a notice shown from
 * the pick on (extension/vllmLogCheck.ts).
 */
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { FILE_GLOBS } from '../core/config/fileKinds';
import { compareVllmLog, formatComparisonMarkdown, GIVE_STARTUP, logFigureLines, parseVllmLog, UNREAD_WHY, type VllmLog } from '../core/vllmlog';
import type { Ctx } from './ctx';
import { acceptedItem, filePickItem, findPickFiles, MORE_HOW, morePickItem, PICK_OPTIONS, showThenFill } from './pick';
import { runVllmLogCheck } from './vllmLogCheck';

/** The log to check and where it came from (for the title), or undefined when the user gave none. */
async function pickLog(): Promise<{ log: VllmLog; name: string } | undefined> {
  const editor = vscode.window.activeTextEditor;
  if (editor) {
    const log = parseVllmLog(editor.document.getText());
    if (Object.keys(log.figures).length > 0) return { log, name: basename(editor.document.uri.path) };
    // Memory lines, none readable (a log cut short, garbled when pasted): say which, not "pick a file".
    if (log.unread.length > 0) {
      void vscode.window.showWarningMessage(unreadMessage(basename(editor.document.uri.path), log));
      return undefined;
    }
  }
  const picked = await vscode.window.showOpenDialog({
    title: 'AttnScope: pick a vLLM start-up log (or paste one into an editor first)',
    canSelectMany: false,
    filters: { 'Logs': ['log', 'txt', 'out'], 'All files': ['*'] },
  });
  const uri = picked?.[0];
  if (!uri) return undefined;
  const log = parseVllmLog(new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)));
  if (Object.keys(log.figures).length === 0) {
    void vscode.window.showWarningMessage(log.unread.length > 0 ? unreadMessage(basename(uri.path), log) : `AttnScope: ${basename(uri.path)} holds no vLLM start-up memory line (weights loaded, KV cache memory, GPU blocks, KV cache size, maximum concurrency): ${GIVE_STARTUP}.`);
    return undefined;
  }
  return { log, name: basename(uri.path) };
}

/** For a log none of whose memory lines could be read: which line, and how many more. */
function unreadMessage(name: string, log: VllmLog): string {
  const first = log.unread[0]!;
  const more = log.unread.length > 1 ? ` (and ${log.unread.length - 1} more)` : '';
  return `AttnScope: no vLLM memory line of ${name} could be read. Line ${first.line}${more}: ${first.why ?? UNREAD_WHY}: ${first.text.slice(0, 200)} — ${GIVE_STARTUP}.`;
}

/**
 * A profile or config.json of the workspace to compare with, null for "the figures alone", undefined when dismissed.
 * Shown at once, busy, before the workspace search (pick.ts showThenFill, as the palette's picks), listing what
 * findPickFiles finds (it kept findFiles' own 200, nothing said past it, and showed nothing until the search ended).
 */
async function pickModel(): Promise<vscode.Uri | null | undefined> {
  type Item = vscode.QuickPickItem & { uri?: vscode.Uri | null; more?: string };
  const none: Item = { label: 'No profile: list the log\'s figures', uri: null };
  const pick = vscode.window.createQuickPick<Item>();
  pick.title = 'AttnScope: the profile or config.json of the model the log is from';
  pick.matchOnDescription = true;
  pick.ignoreFocusOut = PICK_OPTIONS.ignoreFocusOut;
  const picked = acceptedItem(pick, (message) => void vscode.window.showInformationMessage(message));
  const found = await showThenFill(pick, "finding the workspace's profiles and configs…", () =>
    findPickFiles(vscode.workspace.findFiles, `{${FILE_GLOBS.join(',')}}`, (uri) => vscode.workspace.asRelativePath(uri, false)),
  );
  if (!found) {
    pick.dispose();
    return undefined;
  }
  pick.items = [...found.files.map(({ file: uri, relative }) => ({ ...filePickItem(uri.fsPath, relative), uri })), ...(found.more ? [morePickItem('profiles and configs', MORE_HOW.vllmLog)] : []), none];
  const chosen = await picked;
  pick.dispose();
  return chosen === undefined ? undefined : chosen.uri;
}

/** Markdown of the figures alone, each with its line. */
function figuresMarkdown(log: VllmLog, name: string): string {
  return [`# vLLM log ${name}`, '', ...logFigureLines(log).map((l) => `- ${l}`), '', 'Pick a profile or the model\'s config.json to compare each figure with the estimate.', ''].join('\n');
}

/** The command's handler (registered in commands.ts). */
export const checkVllmLog = (ctx: Ctx) => async (): Promise<void> => {
  const source = await pickLog();
  if (!source) return;
  const model = await pickModel();
  if (model === undefined) return;
  await runVllmLogCheck({
    progress: (title, task) => Promise.resolve(vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title }, task)),
    markdown: () => checkMarkdown(ctx, source, model),
    showPreview: (markdown) => showPreview(ctx, markdown),
  }, source.name, model === null ? null : basename(model.fsPath));
};

/** The check's Markdown: the log's figures alone (`model` null), or each against the model's estimate; null where a warning said why not. */
async function checkMarkdown(ctx: Ctx, source: { log: VllmLog; name: string }, model: vscode.Uri | null): Promise<string | null> {
  if (model === null) return figuresMarkdown(source.log, source.name);
  const server = await ctx.server();
  if ('whyNot' in server) {
    void vscode.window.showWarningMessage(`AttnScope cannot check the log: ${server.whyNot}.`);
    return null;
  }
  await vscode.workspace.openTextDocument(model); // the server resolves open documents
  const resolved = await ctx.resolveProfile(server.client, model);
  if (!resolved.profile) {
    const first = resolved.problems.find((p) => p.severity === 'error') ?? resolved.problems[0];
    void vscode.window.showErrorMessage(`AttnScope cannot read ${basename(model.fsPath)}: ${first?.message ?? 'it does not describe a model'}`);
    return null;
  }
  return formatComparisonMarkdown(compareVllmLog(source.log, resolved.profile), `vLLM log ${source.name} against ${basename(model.fsPath)}`);
}

/** Writes `markdown` where the preview can show it, in the extension's own storage (nothing written to the workspace), and opens the preview. */
async function showPreview(ctx: Ctx, markdown: string): Promise<void> {
  const file = vscode.Uri.joinPath(ctx.extension.globalStorageUri, 'vllm-log-check.md');
  await vscode.workspace.fs.createDirectory(ctx.extension.globalStorageUri);
  await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(markdown));
  try {
    await vscode.commands.executeCommand('markdown.showPreview', file);
  } catch {
    await vscode.window.showTextDocument(file); // no Markdown preview here: the text itself
  }
}
