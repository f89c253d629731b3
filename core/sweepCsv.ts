/**
 * The Sweep table as CSV, one implementation for the dashboard's Export CSV (extension/dashboard.ts)
 * and `attnscope sweep|merge --csv FILE` (runner/sweep/cli.ts), as the run export writes a run
 * (core/csv.ts csvTable, the one CSV writer): a row per point, environment and source. A point's pool figures (modelled by
 * its simulation) and its decode figures (measured on its machine) are on rows of their own, each
 * saying which in `source`, and a row leaves the other source's columns empty, as the run
 * export's kernel and simulation rows do. Figures in SI units as the report holds them, the unit
 * in each column's name (core/sweepFigures.ts SWEEP_FIGURES). No `vscode` import.
 */
import { csvTable, type CsvCell } from './csv';
import { SLO_ATTAINMENT_DEFAULT } from './protocol/latency';
import type { SweepReport, SweepReportRow } from './protocol/sweep';
import { allReduceFrom, describeEnvironment, reportBuilds, rowBuild, stepTimeFrom, SWEEP_FIGURES } from './sweepFigures';

/**
 * `report` as CSV: columns point (its label), point_id, each axis by its key, environment (its
 * key), machine (that environment in words: GPU, CPU, cores, arch; only for a job that measures
 * on it, bench or both: a simulate or max-rate sweep's figures are modelled for the profile's GPU
 * whatever CPU ran the simulator, and a reader would take the machine for the one measured,
 * s41 newcomer-ed F5), build (when the rows come from several: core/sweepFigures.ts rowBuild), status, best ('best' on the
 * report's best row, 'tied' on a row its figure cannot tell from it, as the dashboard's ★ and tie
 * list; empty otherwise), source ('modelled' | 'measured'), then each figure some row has, then
 * keeps_up (true / false on a modelled row, when some row's run judged it: SweepReportRow.keepsUp,
 * which decides the best point; the Sweep table's "keeps up" column, s37 newcomer-ed 9), then, on
 * a modelled row, so that the file stands alone in a design doc: gpu (the GPU its step times were
 * modelled for, SweepReportRow.gpu: "H100 SXM", "MI325X (user-given)"), and the SLO it was judged
 * by, slo_ttft_ms / slo_tpot_ms (the profile's bounds) and slo_attainment_target_fraction (its
 * slo.attainment, 0.9 when not written: SLO_ATTAINMENT_DEFAULT), each when some row has it (the
 * fraction that met it is slo_attainment_fraction among the figures), gpus (how many the point
 * deploys on, which goodput_per_gpu_requests_per_s divides by), gpu_hour_usd_user_given (the user's price
 * of one of its GPUs an hour, SweepMetrics.gpuHourUsd, which usd_per_million_output_tokens is figured at), the step-time settings each with a
 * `_from` column (compute_efficiency, memory_efficiency, overhead_ms: 'assumed' or 'profile'; the
 * all-reduce's efficiencies and latency under tensor parallelism, from the profile's
 * step_time.all_reduce or assumed: core/sweepFigures.ts allReduceFrom) and unmodelled (what
 * its step times leave out), so that a spreadsheet of the file alone says what the latency
 * figures assumed (s41 newcomer-ed F5). A point with
 * neither kind of figure (a failed one) is one row with an empty source. `rows` counts the data
 * rows: 0 for a report with no row (nothing to export).
 */
export function sweepToCsv(report: SweepReport): { text: string; rows: number } {
  const figures = SWEEP_FIGURES.filter((f) => report.rows.some((r) => r.metrics[f.key] !== undefined));
  // The Sweep table's columns beside the figures: build when the rows come from several, keeps up (modelled) when some row's run judged it.
  const builds = reportBuilds(report).length > 1;
  const keeps = report.rows.some((r) => r.keepsUp !== undefined);
  // The machine in words only where something was measured on it.
  const machine = report.job === 'bench' || report.job === 'both';
  const modelledFor = MODELLED_FOR.filter((c) => report.rows.some((r) => c.value(r) !== undefined));
  const header = ['point', 'point_id', ...report.axes.map((a) => a.key), 'environment', ...(machine ? ['machine'] : []), ...(builds ? ['build'] : []), 'status', 'best', 'source', ...figures.map((f) => f.column), ...(keeps ? ['keeps_up'] : []), ...modelledFor.map((c) => c.column)];
  const rows: CsvCell[][] = [];
  const best = report.best;
  const is = (r: { id: string; environmentKey: string }, p: { id: string; environmentKey: string }): boolean => r.id === p.id && r.environmentKey === p.environmentKey;
  for (const r of report.rows) {
    const env = report.environments[r.environmentKey];
    const mark = !best ? '' : is(r, best) ? 'best' : best.tiedWith?.some((t) => is(r, t)) ? 'tied' : '';
    const point = [r.label, r.id, ...report.axes.map((a) => cellOf(r.values[a.key])), r.environmentKey, ...(machine ? [env ? describeEnvironment(env) : ''] : []), ...(builds ? [rowBuild(r)] : []), r.status, mark];
    // Whether the modelled server keeps up: a modelled figure, on the point's modelled row (or its only row).
    const keepsUp = (s: string): CsvCell[] => (!keeps ? [] : s === 'measured' || r.keepsUp === undefined ? [''] : [r.keepsUp]);
    const sources = (['modelled', 'measured'] as const).filter((s) => figures.some((f) => f.source === s && r.metrics[f.key] !== undefined));
    // What the point was modelled for and judged by, on its modelled row (or its only row).
    const modelled = (s: string): CsvCell[] => modelledFor.map((c) => (s === 'measured' ? '' : (c.value(r) ?? '')));
    if (sources.length === 0) rows.push([...point, '', ...figures.map(() => ''), ...keepsUp(''), ...modelled('')]);
    for (const s of sources) rows.push([...point, s, ...figures.map((f) => (f.source === s ? r.metrics[f.key] : '')), ...keepsUp(s), ...modelled(s)]);
  }
  return csvTable(header, rows);
}

/** Where a step-time setting of a row comes from, in its `_from` column: 'assumed' (not in the profile: the model's default) or 'profile' (its step_time). */
const settingFrom = (r: SweepReportRow, name: string): CsvCell | undefined => (r.stepTime ? stepTimeFrom(r.stepTime, name) : undefined);


/**
 * The columns after keeps_up (sweepToCsv): the GPU a row's step times were modelled for, the SLO it
 * was judged by, the GPUs it uses (tensor_parallel_size × pipeline_parallel_size ×
 * data_parallel_size), the user's price of one of them an hour (SweepMetrics.gpuHourUsd), the step-time settings it assumed, each with where it comes from
 * (SweepReportRow.stepTime), and what its step times leave out (SweepReportRow.unmodelled, "; "
 * between them).
 */
const MODELLED_FOR: ReadonlyArray<{ column: string; value: (r: SweepReportRow) => CsvCell | undefined }> = [
  { column: 'gpu', value: (r) => r.gpu },
  { column: 'gpus', value: (r) => (r.gpu === undefined ? undefined : r.metrics.gpus) },
  { column: 'gpu_hour_usd_user_given', value: (r) => r.metrics.gpuHourUsd },
  { column: 'slo_ttft_ms', value: (r) => r.metrics.sloTtftMs },
  { column: 'slo_tpot_ms', value: (r) => r.metrics.sloTpotMs },
  {
    column: 'slo_attainment_target_fraction',
    value: (r) => (r.metrics.sloTtftMs === undefined && r.metrics.sloTpotMs === undefined ? undefined : (r.metrics.sloAttainmentTarget ?? SLO_ATTAINMENT_DEFAULT)),
  },
  { column: 'compute_efficiency', value: (r) => r.stepTime?.computeEfficiency },
  { column: 'compute_efficiency_from', value: (r) => settingFrom(r, 'compute_efficiency') },
  { column: 'memory_efficiency', value: (r) => r.stepTime?.memoryEfficiency },
  { column: 'memory_efficiency_from', value: (r) => settingFrom(r, 'memory_efficiency') },
  { column: 'overhead_ms', value: (r) => r.stepTime?.overheadMs },
  { column: 'overhead_ms_from', value: (r) => settingFrom(r, 'overhead_ms') },
  { column: 'all_reduce_one_shot_efficiency', value: (r) => r.stepTime?.allReduce?.oneShotEfficiency },
  { column: 'all_reduce_two_shot_efficiency', value: (r) => r.stepTime?.allReduce?.twoShotEfficiency },
  { column: 'all_reduce_multimem_efficiency', value: (r) => r.stepTime?.allReduce?.multimemEfficiency },
  // NCCL's ring past 4 MiB, its large-message bus bandwidth (SweepStepTimeAssumptions.allReduce.ringEfficiency).
  { column: 'all_reduce_ring_efficiency', value: (r) => r.stepTime?.allReduce?.ringEfficiency },
  // To the nanosecond: 20 µs is 20 * 1e-6 s, which reads back as 19.999999999999996.
  { column: 'all_reduce_latency_us', value: (r) => (r.stepTime?.allReduce ? Math.round(r.stepTime.allReduce.latencyS * 1e9) / 1e3 : undefined) },
  { column: 'all_reduce_from', value: (r) => (r.stepTime?.allReduce ? allReduceFrom(r.stepTime.allReduce) : undefined) },
  { column: 'unmodelled', value: (r) => (r.unmodelled && r.unmodelled.length > 0 ? r.unmodelled.join('; ') : undefined) },
];

/** An axis value as a cell: strings as they are, anything else as JSON (true, 16, [1,2]). */
function cellOf(v: unknown): CsvCell {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : JSON.stringify(v);
}
