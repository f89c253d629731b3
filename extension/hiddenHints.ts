/**
 * VS Code shows no inlay hints in a file it opens as large: with `editor.largeFileOptimizations`
 * on (the default), a text of more than 20 MiB (20 · 1024 · 1024 characters) or more than 300,000
 * lines gets a view model that draws no injected text (VS Code's TextModel LARGE_FILE_SIZE_THRESHOLD
 * and LARGE_FILE_LINE_COUNT_THRESHOLD; ViewModelLinesFromModelAsIs, code-server 4.100.3 = VS Code
 * 1.100.3). A classifier's config.json with 200,000 id2label / label2id labels has 400,037 lines: the
 * language server answered its hints and the editor showed none (s38 newcomer-ed 2). For such a file
 * the extension says each hint as an Information diagnostic at the hint's line, which VS Code draws
 * and lists in Problems, and says why. No `vscode` import (unit-tested); extension/ctx.ts applies it.
 */

/** VS Code's TextModel.LARGE_FILE_SIZE_THRESHOLD: characters (line breaks included) past which a file is large. */
export const LARGE_FILE_CHARS = 20 * 1024 * 1024;
/** VS Code's TextModel.LARGE_FILE_LINE_COUNT_THRESHOLD: lines past which a file is large. */
export const LARGE_FILE_LINES = 300 * 1000;

/**
 * Why VS Code shows no inlay hints in a document of `lines` lines and `chars` characters, or null
 * when it shows them. `optimizations`: the setting editor.largeFileOptimizations for the document
 * (VS Code reads it when it opens the file).
 */
export function hintsHiddenWhy(lines: number, chars: number, optimizations: boolean): string | null {
  if (!optimizations) return null;
  const count = (n: number): string => n.toLocaleString('en-US');
  if (lines > LARGE_FILE_LINES) return `VS Code shows no inlay hints in a file of more than ${count(LARGE_FILE_LINES)} lines (this one has ${count(lines)}; setting editor.largeFileOptimizations, then reopen the file)`;
  if (chars > LARGE_FILE_CHARS) return `VS Code shows no inlay hints in a file of more than 20 MiB (this one has ${count(chars)} characters; setting editor.largeFileOptimizations, then reopen the file)`;
  return null;
}

/** An inlay hint as the extension sees it: where it sits (0-based line and character) and its label. */
export interface HintAt {
  line: number;
  character: number;
  label: string;
}

/** A diagnostic to show in place of a hidden hint: its line's text from `from` to `to` (0-based characters), and its message. */
export interface HiddenHintNote {
  line: number;
  from: number;
  to: number;
  message: string;
}

/**
 * One note per hint: the range from the first non-space character of the hint's line to the hint
 * (the key and value it is about; the line's end when the hint sits before any), the message the
 * label, then `why`. `lineText(n)` is line n's text.
 */
export function hiddenHintNotes(hints: readonly HintAt[], why: string, lineText: (line: number) => string): HiddenHintNote[] {
  return hints.map((h) => {
    const text = lineText(h.line);
    const from = text.length - text.trimStart().length;
    const to = h.character > from ? h.character : text.length;
    return { line: h.line, from: Math.min(from, to), to, message: `${h.label} — the inlay hint here, not shown: ${why}` };
  });
}
