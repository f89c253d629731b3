/**
 * Exports of the dashboard's Compare (s39 newcomer-ed 1: the A/B table a design doc wants could
 * only be selected by hand): CSV, one row per setting or figure (figure, A, B, change, unit,
 * source; A and B as numbers in the unit, through the exports' one CSV writer), and a Markdown
 * table for the clipboard (the values as the dashboard shows them). The rows come from the page
 * (webview/compare.ts comparisonRows). No `vscode` import.
 */
import type { ComparedRun, ComparisonExportRow } from '../core/protocol/webview';
import { markdownTable } from '../core/format';
import { csvTable } from '../core/csv';

/**
 * The rows naming runs A and B, first in both exports (as the run CSV's `run,...` rows name the
 * run): name, when saved (ISO 8601), history file, profile file; a row only where either run has
 * the value. Two exports of different comparisons were otherwise the same table (s40 newcomer-ed F3).
 */
export function comparedRunRows(a: ComparedRun, b: ComparedRun): ComparisonExportRow[] {
  const row = (figure: string, x: string | undefined, y: string | undefined, unit: string, source: string): ComparisonExportRow[] =>
    x === undefined && y === undefined ? [] : [{ figure, a: x ?? null, b: y ?? null, aText: x ?? '', bText: y ?? '', change: '', unit, source }];
  return [
    ...row('run', a.name, b.name, '', 'history'),
    ...row('run saved', a.createdAt, b.createdAt, 'ISO 8601', 'history'),
    ...row('run file', a.file, b.file, 'in the history folder', 'history'),
    ...row('profile', a.profile, b.profile, 'file it ran', 'run'),
  ];
}

/**
 * The comparison as CSV (RFC 4180): figure, A, B, change, unit, source, the runs named first
 * (comparedRunRows); `rows` counts the data rows.
 */
export function compareToCsv(a: ComparedRun, b: ComparedRun, rows: readonly ComparisonExportRow[]): { text: string; rows: number } {
  return csvTable(['figure', 'A', 'B', 'change', 'unit', 'source'], [...comparedRunRows(a, b), ...rows].map((r) => [r.figure, r.a, r.b, r.change, r.unit, r.source]));
}

/**
 * The comparison as Markdown: a line naming A and B (name, saved when), then a GitHub table of
 * figure | A | B | change | unit | source with the values as shown (the runs' rows first:
 * comparedRunRows), then what the change means.
 */
export function compareToMarkdown(a: ComparedRun, b: ComparedRun, rows: readonly ComparisonExportRow[], changeMeaning: string): string {
  return [
    `A: ${a.name} (${a.createdAt}) · B: ${b.name} (${b.createdAt})`,
    '',
    ...markdownTable(['figure', 'A', 'B', 'change', 'unit', 'source'], [...comparedRunRows(a, b), ...rows].map((r) => [r.figure, r.aText, r.bText, r.change, r.unit, r.source]), [false, true, true, true]),
    '',
    changeMeaning,
    '',
  ].join('\n');
}
