/** CSV text for the exports: one writer (RFC 4180), no `vscode` import, shared by the extension and the CLI. */

/** One CSV cell's value: null and undefined are an empty cell. */
export type CsvCell = string | number | boolean | null | undefined;

function csvCell(v: CsvCell): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * The one CSV writer of the exports (a run: extension/exportRun.ts; a sweep: core/sweepCsv.ts, the Sweep tab's Export CSV and `attnscope sweep|merge --csv`; a comparison: extension/exportCompare.ts): RFC 4180, the
 * header row then `rows`, each cell quoted only when it holds a quote, comma or line end, `\n`
 * line ends and one at the end. `rows` counts the data rows.
 */
export function csvTable(header: readonly string[], rows: ReadonlyArray<readonly CsvCell[]>): { text: string; rows: number } {
  const lines = [header, ...rows].map((r) => r.map(csvCell).join(','));
  return { text: lines.join('\n') + '\n', rows: rows.length };
}
