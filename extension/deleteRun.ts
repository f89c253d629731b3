/**
 * History's Delete of a saved run: asked first (a modal dialog, which the keyboard reaches as
 * the page's button does), then the run's file moved to the OS trash through the editor's file
 * system (vscode.workspace.fs.delete with useTrash: the platform's way, so a run deleted by
 * mistake can be restored). Where there is no trash, the second question says so and deletes
 * for good only when asked: code-server and remote windows have none (VS Code 1.100.3's file
 * service refuses "Unable to delete file '…' via trash because provider does not support it.":
 * its server's disk provider lacks the Trash capability, which only the desktop app's has), nor
 * has a Linux desktop without a trash folder. No `vscode` import: the dashboard passes the UI.
 */
import { access } from 'node:fs/promises';
import { basename } from 'node:path';
import { formatRunTime } from '../core/format';

/** What deleting a run may ask of the editor. */
export interface DeleteRunUi {
  /** A modal question with one action button (and the dialog's own Cancel): true when `action` was chosen. */
  confirm(message: string, detail: string, action: string): Promise<boolean>;
  /** Removes the file at `path`: to the OS trash (`useTrash`), else for good. Rejects with the file system's error. */
  remove(path: string, useTrash: boolean): Promise<void>;
}

/** How a run's file went: to the trash, or deleted for good (no trash here, and the user said so); null: kept (cancelled). */
export type RunDeleted = 'trash' | 'deleted' | null;

/** The first question: "Delete the run llama-3.1-8b.attn.yaml of Dec 6, 2026, 11:26:40 PM?", and its detail naming the file. */
export function deleteRunQuestion(name: string, createdAt: string, file: string): { message: string; detail: string } {
  return {
    message: `Delete the run ${name} of ${formatRunTime(createdAt)}?`,
    detail: `Its file ${basename(file)} goes to the trash, from where it can be restored; History and the Compare pickers drop it.`,
  };
}

/** The second question, where the trash refused (`why`: the editor's error): that there is no trash here, and that deleting is for good. */
export function noTrashQuestion(name: string, file: string, why: string): { message: string; detail: string } {
  return {
    message: `The trash is not available here: delete the run ${name} permanently?`,
    detail: `Moving ${file} to the trash failed (${why}). code-server and remote windows have no trash. Deleted permanently, it cannot be restored.`,
  };
}

/**
 * Deletes the run saved as `file` (named `name`, made at `createdAt`, ISO 8601) after asking:
 * to the trash; where that fails and the file is still there, asks again and deletes it for good
 * when told to. Returns how it went, null when the user kept it. Rejects with the file system's
 * error when the permanent delete fails.
 */
export async function deleteRunFile(file: string, name: string, createdAt: string, ui: DeleteRunUi): Promise<RunDeleted> {
  const ask = deleteRunQuestion(name, createdAt, file);
  if (!(await ui.confirm(ask.message, ask.detail, 'Move to Trash'))) return null;
  try {
    await ui.remove(file, true);
    return 'trash';
  } catch (err) {
    // Moved after all (an error after the move): nothing left to ask about.
    if (!(await access(file).then(() => true, () => false))) return 'trash';
    const again = noTrashQuestion(name, file, err instanceof Error ? err.message : String(err));
    if (!(await ui.confirm(again.message, again.detail, 'Delete Permanently'))) return null;
    await ui.remove(file, false);
    return 'deleted';
  }
}
