/**
 * Exports of the dashboard's Compare (s39 newcomer-ed 1: the A/B table a design doc wants could
 * only be selected by hand): CSV, one row per setting or figure (figure, A, B, change, unit,
 * source; A and B as numbers in the unit, through the exports' one CSV writer), and a Markdown
 * table for the clipboard (the values as the dashboard shows them). The rows come from the page
 * (webview/compare.ts comparisonRows). No `vscode` import.
 */
import type { ComparedRun, ComparisonExportRow } from '../core/protocol/webview';
import { csvTable } from './exportRun';

/** The comparison as CSV (RFC 4180): figure, A, B, change, unit, source; `rows` counts the data rows. */
export function compareToCsv(rows: readonly ComparisonExportRow[]): { text: string; rows: number } {
  return csvTable(['figure', 'A', 'B', 'change', 'unit', 'source'], rows.map((r) => [r.figure, r.a, r.b, r.change, r.unit, r.source]));
}

/** A Markdown table cell: pipes escaped, line ends as spaces. */
function mdCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/**
 * The comparison as Markdown: a line naming A and B (name, saved when), then a GitHub table of
 * figure | A | B | change | unit | source with the values as shown, then what the change means.
 */
export function compareToMarkdown(a: ComparedRun, b: ComparedRun, rows: readonly ComparisonExportRow[], changeMeaning: string): string {
  const line = (cells: readonly string[]) => `| ${cells.map(mdCell).join(' | ')} |`;
  return [
    `A: ${a.name} (${a.createdAt}) · B: ${b.name} (${b.createdAt})`,
    '',
    line(['figure', 'A', 'B', 'change', 'unit', 'source']),
    line(['---', '---:', '---:', '---:', '---', '---']),
    ...rows.map((r) => line([r.figure, r.aText, r.bText, r.change, r.unit, r.source])),
    '',
    changeMeaning,
    '',
  ].join('\n');
}
