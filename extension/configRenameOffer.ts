/**
 * Shows extension/configRename.ts's offer, once per file and window, when a *.json holding an HF
 * config's keys is opened: a non-modal notice with Rename (a workspace edit, so Undo takes it
 * back) and "Don't ask again" (for this workspace, kept in its workspace state).
 */
import * as vscode from 'vscode';
import { CONFIG_SNIFF_CHARS, renameOffer } from './configRename';

/** Workspace-state key: true once the user chose "Don't ask again". */
const NEVER_KEY = 'attnscope.configRename.never';

/** Offers the rename for documents open now and opened later; dispose to stop. */
export function offerConfigRenames(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): vscode.Disposable {
  const offered = new Set<string>();
  const check = (doc: vscode.TextDocument): void => {
    if (doc.uri.scheme !== 'file' || offered.has(doc.uri.fsPath) || context.workspaceState.get<boolean>(NEVER_KEY)) return;
    const offer = renameOffer(doc.uri.fsPath, doc.getText(new vscode.Range(doc.positionAt(0), doc.positionAt(CONFIG_SNIFF_CHARS))));
    if (!offer) return;
    offered.add(doc.uri.fsPath);
    void vscode.window.showInformationMessage(offer.message, 'Rename', "Don't ask again").then(async (choice) => {
      if (choice === "Don't ask again") {
        await context.workspaceState.update(NEVER_KEY, true);
      } else if (choice === 'Rename') {
        const edit = new vscode.WorkspaceEdit();
        const to = vscode.Uri.file(offer.newPath);
        edit.renameFile(doc.uri, to, { overwrite: false });
        if (!(await vscode.workspace.applyEdit(edit))) void vscode.window.showWarningMessage(`AttnScope: could not rename to ${offer.newPath} (does it exist already?)`);
        else log.info(`renamed ${doc.uri.fsPath} to ${offer.newPath}`);
      }
    });
  };
  vscode.workspace.textDocuments.forEach(check);
  return vscode.workspace.onDidOpenTextDocument(check);
}
