/**
 * Export formats of a run: JSON (the run file as saved) and CSV (one row per kernel case,
 * every timing in nanoseconds, rates in SI units as the run states them). No `vscode` import.
 */
import type { KernelCase, RunResult } from '../core/protocol/run';

const CSV_COLUMNS: Array<[string, (c: KernelCase) => string | number | boolean | null | undefined]> = [
  ['kernel', (c) => c.kernel],
  ['backend', (c) => c.backend],
  ['dtype', (c) => c.dtype],
  ['kv_dtype', (c) => c.kvDtype],
  ['batch_size', (c) => c.shape.batchSize],
  ['num_heads', (c) => c.shape.numHeads],
  ['num_kv_heads', (c) => c.shape.numKvHeads],
  ['head_dim', (c) => c.shape.headDim],
  ['seq_len_q', (c) => c.shape.seqLenQ],
  ['seq_len_k', (c) => c.shape.seqLenK],
  ['causal', (c) => c.shape.causal],
  ['sliding_window', (c) => c.shape.slidingWindow],
  ['page_size', (c) => c.shape.pageSize],
  ['mla_latent_dim', (c) => c.shape.mlaLatentDim],
  ['samples', (c) => c.samplesNs.length],
  ['median_ns', (c) => c.medianNs],
  ['p10_ns', (c) => c.p10Ns],
  ['p90_ns', (c) => c.p90Ns],
  ['flops', (c) => c.flops],
  ['bytes', (c) => c.bytes],
  ['gflop_per_s', (c) => c.gflops],
  ['gb_per_s', (c) => c.gbps],
  ['fraction_of_peak', (c) => c.fractionOfPeak],
  ['peak', (c) => c.ceiling],
  ['bound', (c) => c.bound],
  ['max_abs_err', (c) => c.maxAbsErr],
  ['lse_max_abs_err', (c) => c.lseMaxAbsErr],
];

function csvCell(v: string | number | boolean | null | undefined): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** CSV (RFC 4180, header row, `\n` line ends) with one row per case of `run`. */
export function runToCsv(run: RunResult): string {
  const lines = [CSV_COLUMNS.map(([h]) => h).join(',')];
  for (const c of run.cases) lines.push(CSV_COLUMNS.map(([, get]) => csvCell(get(c))).join(','));
  return lines.join('\n') + '\n';
}

/** The run as saved in history (2-space JSON). */
export function runToJson(run: RunResult): string {
  return JSON.stringify(run, null, 2) + '\n';
}
