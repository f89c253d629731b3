/**
 * The dashboard's Sweep table as CSV, as the run export writes a run (exportRun.ts csvTable, the
 * one CSV writer): a row per point, environment and source. A point's pool figures (modelled by
 * its simulation) and its decode figures (measured on its machine) are on rows of their own, each
 * saying which in `source`, and a row leaves the other source's columns empty, as the run
 * export's kernel and simulation rows do. Figures in SI units as the report holds them, the unit
 * in each column's name (core/sweepFigures.ts SWEEP_FIGURES). No `vscode` import.
 */
import type { SweepReport } from '../core/protocol/sweep';
import { describeEnvironment, reportBuilds, rowBuild, SWEEP_FIGURES } from '../core/sweepFigures';
import { csvTable, type CsvCell } from './exportRun';

/**
 * `report` as CSV: columns point (its label), point_id, each axis by its key, environment (its
 * key), machine (that environment in words: GPU, CPU, cores, arch), build (when the rows come
 * from several: core/sweepFigures.ts rowBuild), status, best ('best' on the
 * report's best row, 'tied' on a row its figure cannot tell from it, as the dashboard's ★ and tie
 * list; empty otherwise), source ('modelled' | 'measured'), then each figure some row has, then
 * keeps_up (true / false on a modelled row, when some row's run judged it: SweepReportRow.keepsUp,
 * which decides the best point; the Sweep table's "keeps up" column, s37 newcomer-ed 9). A point with
 * neither kind of figure (a failed one) is one row with an empty source. `rows` counts the data
 * rows: 0 for a report with no row (nothing to export).
 */
export function sweepToCsv(report: SweepReport): { text: string; rows: number } {
  const figures = SWEEP_FIGURES.filter((f) => report.rows.some((r) => r.metrics[f.key] !== undefined));
  // The Sweep table's columns beside the figures: build when the rows come from several, keeps up (modelled) when some row's run judged it.
  const builds = reportBuilds(report).length > 1;
  const keeps = report.rows.some((r) => r.keepsUp !== undefined);
  const header = ['point', 'point_id', ...report.axes.map((a) => a.key), 'environment', 'machine', ...(builds ? ['build'] : []), 'status', 'best', 'source', ...figures.map((f) => f.column), ...(keeps ? ['keeps_up'] : [])];
  const rows: CsvCell[][] = [];
  const best = report.best;
  const is = (r: { id: string; environmentKey: string }, p: { id: string; environmentKey: string }): boolean => r.id === p.id && r.environmentKey === p.environmentKey;
  for (const r of report.rows) {
    const env = report.environments[r.environmentKey];
    const mark = !best ? '' : is(r, best) ? 'best' : best.tiedWith?.some((t) => is(r, t)) ? 'tied' : '';
    const point = [r.label, r.id, ...report.axes.map((a) => cellOf(r.values[a.key])), r.environmentKey, env ? describeEnvironment(env) : '', ...(builds ? [rowBuild(r)] : []), r.status, mark];
    // Whether the modelled server keeps up: a modelled figure, on the point's modelled row (or its only row).
    const keepsUp = (s: string): CsvCell[] => (!keeps ? [] : s === 'measured' || r.keepsUp === undefined ? [''] : [r.keepsUp]);
    const sources = (['modelled', 'measured'] as const).filter((s) => figures.some((f) => f.source === s && r.metrics[f.key] !== undefined));
    if (sources.length === 0) rows.push([...point, '', ...figures.map(() => ''), ...keepsUp('')]);
    for (const s of sources) rows.push([...point, s, ...figures.map((f) => (f.source === s ? r.metrics[f.key] : '')), ...keepsUp(s)]);
  }
  return csvTable(header, rows);
}

/** An axis value as a cell: strings as they are, anything else as JSON (true, 16, [1,2]). */
function cellOf(v: unknown): CsvCell {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : JSON.stringify(v);
}
