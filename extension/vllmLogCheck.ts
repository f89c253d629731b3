/**
 * The part of "AttnScope: Check vLLM log" after the log and the model are picked, apart from
 * `vscode` (extension/vllmLog.ts supplies the host), so its order is tested alone
 * (test/extension/vllmLogCheck.test.ts): the notice first, then the reading and the preview.
 */

/** What the check needs of the editor. */
export interface VllmLogCheckHost {
  /** Shows a progress notice titled `title` at once and keeps it until `task` settles. */
  progress(title: string, task: () => Promise<void>): Promise<void>;
  /** The check's Markdown (the language server resolving the model, then core/vllmlog), or null where the host has said why not. */
  markdown(): Promise<string | null>;
  /** Writes `markdown` and opens it in the Markdown preview (whose extension may first activate: seconds). */
  showPreview(markdown: string): Promise<void>;
}

/** The notice's title: the log and the model it is read against ("the figures alone" with none). */
export function vllmLogCheckTitle(logName: string, modelName: string | null): string {
  return `AttnScope: reading ${logName}${modelName === null ? '' : ` against ${modelName}`}…`;
}

/**
 * Runs the check under one notice shown before anything is read: the preview tab opened blank for
 * about 6 s ("Activating Extensions…": the Markdown preview's extension starting) with nothing
 * saying the check was under way (s48 newcomer-ed 13); the notice now stays until the preview is open.
 */
export async function runVllmLogCheck(host: VllmLogCheckHost, logName: string, modelName: string | null): Promise<void> {
  await host.progress(vllmLogCheckTitle(logName, modelName), async () => {
    const markdown = await host.markdown();
    if (markdown !== null) await host.showPreview(markdown);
  });
}
