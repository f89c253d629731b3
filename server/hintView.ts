/**
 * How the computed hints (hints.ts AnchoredHint) are shown: labels that fit VS Code's default
 * inlay-hint length with the figure first (what does not fit goes to the tooltip), the user's
 * choice of which hints show (the `attnscope.hints` setting), and one hint per line (hints of a
 * flow mapping `{ a: 1, b: 2 }` are gathered at the end of its line instead of each pushing the
 * rest of the line to the right).
 */
import { dirname, relative } from 'node:path';
import { InlayHintKind, MarkupKind, type InlayHint, type Range } from 'vscode-languageserver';
import type { Analysis } from './analysis';

/**
 * VS Code's default `editor.inlayHints.maximumLength`: longer labels are cut with "…". Every
 * label fits it, whatever the editor (a label is a summary; the tooltip has the rest).
 */
export const MAX_HINT_LENGTH = 43;

/** Which hints show: every one, the key figures only (KV per token, weights, the KV budget and the page pool), or none. */
export type HintMode = 'all' | 'key' | 'off';

export const HINT_MODES: readonly HintMode[] = ['all', 'key', 'off'];

const SEPARATOR = ' · ';

/**
 * The label of a hint from its parts, most important first: the first part always, then each
 * following one while the label stays within `max` characters. `dropped`: the parts left out.
 */
export function fitLabel(parts: readonly string[], max = MAX_HINT_LENGTH): { label: string; dropped: string[] } {
  let label = parts[0] ?? '';
  let i = 1;
  for (; i < parts.length && label.length + SEPARATOR.length + parts[i]!.length <= max; i++) label += SEPARATOR + parts[i];
  return { label, dropped: parts.slice(i) };
}

/** What presentHints needs of a computed hint. */
export interface ShownHint {
  /** Offset of the hint in the document's text. */
  offset: number;
  /** The label's parts, figure first (fitLabel). */
  parts: readonly string[];
  /** Markdown explanation (the tooltip below the full label). */
  tooltip: string;
  /** One of the key figures (shown in 'key' mode). */
  key: boolean;
  /** Carried from an earlier version of a file that now has an error. */
  stale: boolean;
}

/** Leads the label of a hint kept from an earlier version: seen before the figure, one character and a space of the 43. */
export const STALE_MARK = '⚠ ';

/**
 * The tooltip's note on a stale hint: which error of this version keeps the figure from being
 * recomputed, by its line (or its file, when it is in the config.json the profile reads).
 */
export function staleNote(a: Analysis): string {
  return `⚠ **Stale**: from an earlier version of this file. This version has ${firstErrorText(a)} The figure is recomputed once it is fixed.`;
}

/**
 * The file's first error as the end of a sentence, with its full stop: "an error at line 5:
 * message." (or "in config.json: ..."); "an error." when none is listed. A message that ends a
 * sentence itself ("did you mean "bf16"?") gets no second stop (s52 newcomer-ed: "?.").
 */
export function firstErrorText(a: Analysis): string {
  const error = a.problems.find((p) => p.severity === 'error');
  const where = error === undefined ? '' : error.file !== undefined && error.file !== a.file ? ` in ${relative(dirname(a.file), error.file)}` : ` at line ${a.document.positionAt(error.range.offset).line + 1}`;
  const text = error === undefined ? 'an error' : `an error${where}: ${error.message}`;
  return /[.?!]$/.test(text) ? text : `${text}.`;
}

/** One inlay hint from hints that share a line (usually one). */
function toInlayHint(a: Analysis, group: readonly ShownHint[]): InlayHint {
  const offset = Math.max(...group.map((h) => h.offset));
  const stale = group.some((h) => h.stale);
  const parts = group.length === 1 ? [...group[0]!.parts] : group.map((h) => h.parts[0]!);
  if (stale) parts[0] = STALE_MARK + parts[0];
  const { label, dropped } = fitLabel(parts);
  const full = (h: ShownHint): string => `**${h.parts.join(SEPARATOR)}**\n\n${h.tooltip}`;
  const body = group.length === 1 && dropped.length === 0 ? group[0]!.tooltip : group.map(full).join('\n\n---\n\n');
  const tooltip = stale ? `${staleNote(a)}\n\n${body}` : body;
  return { position: a.document.positionAt(offset), label, kind: InlayHintKind.Type, paddingLeft: true, tooltip: { kind: MarkupKind.Markdown, value: tooltip } };
}

/**
 * The inlay hints of `hints` (one document's, in text order) inside `range`, as `mode` asks:
 * hints on the same line become one, at the largest of their offsets, its label the first part
 * of each; a hint from an earlier version leads with "⚠" and its tooltip names the error that keeps it stale (staleNote).
 */
export function presentHints(a: Analysis, hints: readonly ShownHint[], range: Range, mode: HintMode): InlayHint[] {
  if (mode === 'off') return [];
  const from = a.document.offsetAt(range.start);
  const to = a.document.offsetAt(range.end);
  const byLine = new Map<number, ShownHint[]>();
  for (const h of hints) {
    if (mode === 'key' && !h.key) continue;
    const line = a.document.positionAt(h.offset).line;
    const group = byLine.get(line);
    if (group) group.push(h);
    else byLine.set(line, [h]);
  }
  const out: InlayHint[] = [];
  for (const group of byLine.values()) {
    const hint = toInlayHint(a, group);
    const offset = a.document.offsetAt(hint.position);
    if (offset >= from && offset <= to) out.push(hint);
  }
  return out;
}

/** The mode a client setting asks for; 'all' for anything else (absent, misspelt). */
export function hintMode(value: unknown): HintMode {
  return HINT_MODES.includes(value as HintMode) ? (value as HintMode) : 'all';
}
