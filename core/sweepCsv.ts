/**
 * The Sweep table as CSV, one implementation for the dashboard's Export CSV (extension/dashboard.ts)
 * and `attnscope sweep|merge --csv FILE` (runner/sweep/cli.ts), as the run export writes a run
 * (core/csv.ts csvTable, the one CSV writer): a row per point and environment, its pool figures
 * (modelled by its simulation) and its decode figures (measured on its machine) in columns side by
 * side, each header naming the figure's unit and source. Figures in the units the table shows (ms, percent,
 * tokens/s, requests/s; SweepFigure.csvScale from the report's SI values) to six significant digits (csvFigure). What a
 * shared file must say of where it comes from (the build, the seed, the GPU and SLO modelled for, measured or modelled)
 * is in columns on every row, never a comment line above the header: a spreadsheet shows such a line as a data row and
 * pandas' read_csv takes it for the header unless told `comment=`, while a column survives filtering, sorting and two
 * sweeps' files concatenated (DESIGN.md, Sweeps). No `vscode` import.
 */
import { csvTable, type CsvCell } from './csv';
import { SLO_ATTAINMENT_DEFAULT } from './protocol/latency';
import type { SweepReport, SweepReportRow } from './protocol/sweep';
import { allReduceFrom, describeEnvironment, rowBuild, stepTimeFrom, SWEEP_FIGURES, type SweepFigure } from './sweepFigures';

/**
 * `report` as CSV, one row per point and environment with its modelled and its measured figures side
 * by side (a row per source needed a pivot to compare page sizes, s49 newcomer-ed 12): columns point
 * (its label), point_id, each axis by its key, environment (its key), machine (that environment in
 * words: GPU, CPU, cores, arch; only for a job that measures on it, bench or both: a simulate or
 * max-rate sweep's figures are modelled for the profile's GPU whatever CPU ran the simulator, and a
 * reader would take the machine for the one measured, s41 newcomer-ed F5), build (every row's: the package version and
 * the hash of the runner and native build that made it, core/sweepFigures.ts rowBuild; s53: on every row, not only
 * when the rows come from several), status, best ('best' on the report's best row, 'tied'
 * on a row its figure cannot tell from it, as the dashboard's ★ and tie list; empty otherwise), then
 * each figure some row has, its header naming its unit and where it comes from
 * (`internal_fragmentation_mean_percent_modelled`, `ttft_p99_ms_modelled`, `decode_median_ns_per_token_measured`:
 * figureColumn), in that unit (csvFigure),
 * then keeps_up_modelled (true / false, when some row's run judged it: SweepReportRow.keepsUp,
 * which decides the best point; the Sweep table's "keeps up" column, s37 newcomer-ed 9), then what
 * the modelled figures were modelled for, so that the file stands alone in a design doc: gpu (the
 * GPU its step times were modelled for, SweepReportRow.gpu: "H100 SXM", "MI325X (user-given)"), and
 * the SLO it was judged by, slo_ttft_ms / slo_tpot_ms (the profile's bounds) and
 * slo_attainment_target_percent (its slo.attainment, 90 when not written: SLO_ATTAINMENT_DEFAULT),
 * each when some row has it, gpus (how many the point deploys on, which goodput_per_gpu divides by),
 * gpu_hour_usd_user_given (the user's price of one of its GPUs an hour, SweepMetrics.gpuHourUsd), the
 * step-time settings each with a `_from` column (compute_efficiency, memory_efficiency, overhead_ms:
 * 'assumed' or 'profile'; the all-reduce's efficiencies and latency under tensor parallelism, from
 * the profile's step_time.all_reduce or assumed: core/sweepFigures.ts allReduceFrom) and unmodelled
 * (what its step times leave out), so that a spreadsheet of the file alone says what the latency
 * figures assumed (s41 newcomer-ed F5). A failed point is a row with its figures empty. `rows`
 * counts the data rows: 0 for a report with no row (nothing to export).
 */
export function sweepToCsv(report: SweepReport): { text: string; rows: number } {
  const figures = SWEEP_FIGURES.filter((f) => report.rows.some((r) => r.metrics[f.key] !== undefined));
  // The Sweep table's column beside the figures: keeps up (modelled) when some row's run judged it.
  const keeps = report.rows.some((r) => r.keepsUp !== undefined);
  // The machine in words only where something was measured on it.
  const machine = report.job === 'bench' || report.job === 'both';
  const modelledFor = MODELLED_FOR.filter((c) => report.rows.some((r) => c.value(r) !== undefined));
  const header = ['point', 'point_id', ...report.axes.map((a) => a.key), 'environment', ...(machine ? ['machine'] : []), 'build', 'status', 'best', ...figures.map(figureColumn), ...(keeps ? ['keeps_up_modelled'] : []), ...modelledFor.map((c) => c.column)];
  const best = report.best;
  const is = (r: { id: string; environmentKey: string }, p: { id: string; environmentKey: string }): boolean => r.id === p.id && r.environmentKey === p.environmentKey;
  const rows: CsvCell[][] = report.rows.map((r) => {
    const env = report.environments[r.environmentKey];
    const mark = !best ? '' : is(r, best) ? 'best' : best.tiedWith?.some((t) => is(r, t)) ? 'tied' : '';
    return [
      r.label, r.id, ...report.axes.map((a) => cellOf(r.values[a.key])), r.environmentKey, ...(machine ? [env ? describeEnvironment(env) : ''] : []), rowBuild(r), r.status, mark,
      ...figures.map((f) => csvFigure(r.metrics[f.key], f.csvScale)),
      ...(keeps ? [r.keepsUp ?? ''] : []),
      ...modelledFor.map((c) => c.value(r) ?? ''),
    ];
  });
  return csvTable(header, rows);
}

/**
 * A figure's cell: a number in the CSV's unit (× `scale`, SweepFigure.csvScale: 1000 for ms, 100 for percent) to six
 * significant digits, where the float noise of the SI value ends (0.008059737338986794 -> 0.805974 %, 0.169 s × 1000 =
 * 169.00000000000003 -> 169); whole numbers whole (2,097,152 page bytes, past six digits); anything else (a decode case,
 * a cache enum) as it is; '' for none.
 */
export function csvFigure(v: SweepReportRow['metrics'][keyof SweepReportRow['metrics']], scale = 1): CsvCell {
  if (v === undefined) return '';
  if (typeof v !== 'number') return v;
  const x = v * scale;
  return Number.isInteger(x) || !Number.isFinite(x) ? x : Number(x.toPrecision(6));
}

/**
 * A figure's CSV header: its column (name and unit, SweepFigure.column) and where it comes from,
 * "_modelled" (the point's simulation) or "_measured" (timed on its machine):
 * "decode_median_ns_per_token_measured".
 */
export function figureColumn(f: Pick<SweepFigure, 'column' | 'source'>): string {
  return `${f.column}_${f.source}`;
}

/** Where a step-time setting of a row comes from, in its `_from` column: 'assumed' (not in the profile: the model's default) or 'profile' (its step_time). */
const settingFrom = (r: SweepReportRow, name: string): CsvCell | undefined => (r.stepTime ? stepTimeFrom(r.stepTime, name) : undefined);


/**
 * The columns after keeps_up (sweepToCsv): the row's dtype, KV dtype and workload (a trace, or requests drawn at a
 * rate with a seed), the GPU its step times were modelled for, the SLO it was judged by, the GPUs it uses (tensor_parallel_size ×
 * pipeline_parallel_size × data_parallel_size), the user's price of one of them an hour (SweepMetrics.gpuHourUsd), the step-time settings it assumed, each with where it comes from
 * (SweepReportRow.stepTime), and what its step times leave out (SweepReportRow.unmodelled, "; "
 * between them).
 */
const MODELLED_FOR: ReadonlyArray<{ column: string; value: (r: SweepReportRow) => CsvCell | undefined }> = [
  // What the point ran on (SweepReportRow.dtype, kvDtype, workload: s50 sweepchart), so a spreadsheet of the file names its dtype and load.
  { column: 'dtype', value: (r) => r.dtype },
  { column: 'kv_dtype', value: (r) => r.kvDtype },
  { column: 'workload_trace', value: (r) => r.workload?.trace },
  { column: 'workload_requests', value: (r) => r.workload?.requests },
  { column: 'workload_arrival_rate_requests_per_s', value: (r) => r.workload?.arrivalRate },
  // The draw of the arrivals and lengths (s53): two runs of one setting differ by it alone.
  { column: 'workload_seed', value: (r) => r.workload?.seed },
  { column: 'gpu', value: (r) => r.gpu },
  { column: 'gpus', value: (r) => (r.gpu === undefined ? undefined : r.metrics.gpus) },
  { column: 'gpu_hour_usd_user_given', value: (r) => r.metrics.gpuHourUsd },
  { column: 'slo_ttft_ms', value: (r) => r.metrics.sloTtftMs },
  { column: 'slo_tpot_ms', value: (r) => r.metrics.sloTpotMs },
  // In percent, as slo_attainment_percent_modelled beside it (s53).
  {
    column: 'slo_attainment_target_percent',
    value: (r) => (r.metrics.sloTtftMs === undefined && r.metrics.sloTpotMs === undefined ? undefined : csvFigure(r.metrics.sloAttainmentTarget ?? SLO_ATTAINMENT_DEFAULT, 100)),
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
  // NCCL's NVLink SHARP all-reduce past 4 MiB in place of the ring, its bus bandwidth (GB/s; SweepStepTimeAssumptions.allReduce.nvlsBusBytesPerSec).
  { column: 'all_reduce_nvls_bus_gb_s', value: (r) => (r.stepTime?.allReduce?.nvlsBusBytesPerSec !== undefined ? r.stepTime.allReduce.nvlsBusBytesPerSec / 1e9 : undefined) },
  // Its latency a call, µs to the nanosecond (SweepStepTimeAssumptions.allReduce.nvlsLatencyS; absent before s50 and under latency_us).
  { column: 'all_reduce_nvls_latency_us', value: (r) => (r.stepTime?.allReduce?.nvlsLatencyS !== undefined ? Math.round(r.stepTime.allReduce.nvlsLatencyS * 1e9) / 1e3 : undefined) },
  // To the nanosecond: 20 µs is 20 * 1e-6 s, which reads back as 19.999999999999996.
  { column: 'all_reduce_latency_us', value: (r) => (r.stepTime?.allReduce ? Math.round(r.stepTime.allReduce.latencyS * 1e9) / 1e3 : undefined) },
  { column: 'all_reduce_from', value: (r) => (r.stepTime?.allReduce ? allReduceFrom(r.stepTime.allReduce) : undefined) },
  { column: 'unmodelled', value: (r) => (r.unmodelled && r.unmodelled.length > 0 ? r.unmodelled.join('; ') : undefined) },
];

/** An axis value as a cell: strings as they are, anything else as JSON (true, 16, [1,2]). */
function cellOf(v: unknown): CsvCell {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : JSON.stringify(v);
}
