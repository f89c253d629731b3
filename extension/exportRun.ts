/**
 * Export formats of a run: JSON (the run file as saved) and CSV: one table, rows naming what the
 * run is of (model, profile, GPU, tensor_parallel_size, machine), a row per kernel case
 * (every timing in nanoseconds, rates in SI units as the run states them) and a row per figure of
 * the pool simulation (its summary, the contiguous baselines, the latency percentiles and
 * goodput), each row saying which (`table`) and whether it is measured or modelled (`source`).
 * No `vscode` import.
 */
import { basename } from 'node:path';
import { DEFAULT_GPU, gpuLabel } from '../core/estimate/gpus';
import { BENCHMARK_DURATION, deployedGpuCount, formatCount, formatCountOf, gpuCount } from '../core/format';
import type { LatencyStats } from '../core/protocol/latency';
import type { KernelCase, PoolResult, RunResult, StepTimeModel } from '../core/protocol/run';
import { describeEnvironment } from '../core/sweepFigures';
import { modelLabel } from './runName';
import { csvTable, type CsvCell } from '../core/csv';

const CSV_COLUMNS: Array<[string, (c: KernelCase) => CsvCell]> = [
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
  // The shape is one GPU's share of the heads at this tensor parallelism (CaseShape); 1: all of them.
  ['tensor_parallel_size', (c) => c.shape.tensorParallelSize ?? 1],
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

/** One figure of a pool simulation: what, which statistic ('' for a single value), value, unit. */
type SimFigure = [figure: string, statistic: string, value: number | undefined, unit: string];

/**
 * The pool simulation's figures as rows: the summary (occupancy, fragmentation, throughput, ...),
 * each contiguous baseline, and the latency (queue_delay, TTFT, TPOT, e2e: mean, p50, p90, p99, max in
 * seconds; throughput; goodput and SLO attainment when the run had an SLO). A rate's name says
 * what it counts per second and its unit over which span: output_throughput_tokens_per_s
 * (pool.summary.throughputTokensPerSec, as the sweep CSV names it; the same figure as
 * latency.output_tokens_per_s), latency.requests_per_s and goodput over core/format
 * BENCHMARK_DURATION, `vllm bench serve`'s. All modelled: the
 * simulator's clock runs on the step-time model (core/protocol/latency.ts). Absent values are left out.
 */
function simulationFigures(pool: PoolResult): SimFigure[] {
  const s = pool.summary;
  // Under data parallelism the running, waiting and occupancy figures are per engine (PoolSummary).
  const engine = pool.dataParallel ? ' per engine' : '';
  const rows: SimFigure[] = [
    ['page_size', '', pool.pageSize, 'tokens'],
    ['num_pages', '', pool.numPages, 'pages'],
    ['requests', '', s.requests, 'requests'],
    ['completed', '', s.completed, 'requests'],
    ['rejected', '', s.rejected, 'requests'],
    ['delayed', '', s.delayed, 'requests'],
    ['simulated_time', '', s.simulatedSeconds, 's'],
    ['occupancy', 'mean', s.meanOccupancy, `fraction of pages${engine}`],
    ['occupancy', 'peak', s.peakOccupancy, `fraction of pages${engine}`],
    // Both over reserved slots (paged: pages held · page_size), time-averaged: they sum to 1 (runner/simulate/simulate.ts).
    ['internal_fragmentation', 'mean', s.meanInternalFragmentation, 'fraction of reserved slots'],
    ['useful_token_fraction', 'mean', s.usefulTokenFraction, 'fraction of reserved slots'],
    ['preemptions', '', s.preemptions, 'preemptions'],
    ['preempted_tokens', '', s.preemptedTokens, 'tokens'],
    ['prefix_hit_rate', '', s.prefixHitRate, 'fraction of prompt tokens'],
    ['waiting', 'mean', s.meanWaiting, `requests${engine}`],
    ['waiting', 'peak', s.peakWaiting, `requests${engine}`],
    ['concurrency', 'mean', s.meanConcurrency, `sequences${engine}`],
    ['concurrency', 'peak', s.peakConcurrency, `sequences${engine}`],
    ['output_throughput_tokens_per_s', '', s.throughputTokensPerSec, `tokens/s (completed requests' output tokens / ${BENCHMARK_DURATION})`],
  ];
  for (const b of pool.baselines) {
    rows.push(
      [`${b.name}.useful_token_fraction`, 'mean', b.usefulTokenFraction, 'fraction of reserved slots'],
      // ∫(free slots split into holes while the next request waited) dt / (arena slots · simulated time): of all slots, as the CLI says.
      [`${b.name}.external_fragmentation`, 'mean', b.externalFragmentation, 'fraction of all slots'],
      [`${b.name}.internal_fragmentation`, 'mean', b.internalFragmentation, 'fraction of reserved slots'],
      [`${b.name}.concurrency`, 'mean', b.meanConcurrency, 'sequences'],
      [`${b.name}.concurrency`, 'peak', b.peakConcurrency, 'sequences'],
      [`${b.name}.rejected_or_delayed`, '', b.rejectedOrDelayed, 'requests'],
    );
  }
  const l = pool.latency;
  if (l) {
    const stats = (name: string, st: LatencyStats | null): void => {
      if (st) for (const k of ['mean', 'p50', 'p90', 'p99', 'max'] as const) rows.push([name, k, st[k], 's']);
    };
    // The time a request waited to be scheduled; `waiting` (above) is how many waited.
    stats('queue_delay', l.queue);
    stats('ttft', l.ttft);
    stats('tpot', l.tpot);
    stats('e2e', l.e2e);
    const span = BENCHMARK_DURATION;
    rows.push(
      ['latency.requests_per_s', '', l.requestsPerSec, `requests/s (completed requests / ${span})`],
      ['latency.output_tokens_per_s', '', l.outputTokensPerSec, `tokens/s (completed requests' output tokens / ${span})`],
    );
    if (l.slo?.ttftMs !== undefined) rows.push(['slo.ttft', '', l.slo.ttftMs / 1e3, 's']);
    if (l.slo?.tpotMs !== undefined) rows.push(['slo.tpot', '', l.slo.tpotMs / 1e3, 's']);
    rows.push(['goodput_requests_per_s', '', l.goodputRequestsPerSec, `requests/s (requests meeting the SLO / ${span})`], ['slo_attainment', '', l.sloAttainment, 'fraction of requests']);
  }
  return rows.filter(([, , v]) => v !== undefined && Number.isFinite(v));
}

const SIM_COLUMNS = ['figure', 'statistic', 'value', 'unit'] as const;

/**
 * The pipeline_parallel_size row, with the GPUs of one replica (tp · pp); under data parallelism
 * (data_parallel_size > 1) a data_parallel_size row after it, with every replica's (tp · pp · dp).
 */
function parallelRows(device: RunResult['profile']['device']): Array<[source: string, figure: string, value: string | number, unit: string]> {
  const dp = device.dataParallelSize ?? 1;
  const pp = device.pipelineParallelSize ?? 1;
  if (dp <= 1) return [['profile', 'pipeline_parallel_size', pp, `stages (${formatCountOf(gpuCount(device), 'GPU')} in all)`]];
  return [
    ['profile', 'pipeline_parallel_size', pp, `stages (${formatCountOf(gpuCount(device), 'GPU')} a replica)`],
    ['profile', 'data_parallel_size', dp, `replicas (${formatCountOf(deployedGpuCount(device), 'GPU')} in all)`],
  ];
}

/**
 * What the run is of, as rows above its figures (table 'run'), so a CSV opened or pasted beside
 * another says it without its file name: the run's name, the model (runName.ts modelLabel), the
 * profile file, the GPU whose peaks the step-time model uses (device.gpu, else DEFAULT_GPU) and
 * tensor_parallel_size, pipeline_parallel_size and data_parallel_size (parallelRows), the KV cache's dtype and page_size (source 'profile'),
 * the KV bytes a token and a page take and the KV budget (source 'estimate', per GPU), the
 * step-time model (stepTimeRows), and the machine that ran it (source 'machine'): two runs' CSVs
 * told an fp8 KV cache from a bf16 one only by their file names (s39 newcomer-ed 4).
 */
function contextRows(run: RunResult): Array<[source: string, figure: string, value: string | number, unit: string]> {
  const device = run.profile.device;
  const est = run.estimate;
  return [
    ['profile', 'run', run.name, ''],
    ['profile', 'model', modelLabel(run.profile), run.profile.modelPath ?? 'written in the profile'],
    ['profile', 'profile', run.profile.sourcePath ? basename(run.profile.sourcePath) : '', run.profile.sourcePath ?? ''],
    ['profile', 'gpu', device.gpuSpec ? gpuLabel(device.gpuSpec) : device.gpu ?? DEFAULT_GPU, device.gpuSpec ? 'device.gpu described in the profile: its user-given figures drive the step-time model' : device.gpu ? 'device.gpu: its peaks drive the step-time model' : 'device.gpu not set: the default GPU\'s peaks drive the step-time model'],
    ['profile', 'tensor_parallel_size', device.tensorParallelSize, 'GPUs'],
    ...parallelRows(device),
    ['profile', 'kv_cache.dtype', est.kvDtype, run.profile.kvCache.dtype === 'auto' ? 'kv_cache.dtype auto: the model dtype' : 'kv_cache.dtype'],
    ['profile', 'kv_cache.page_size', run.profile.kvCache.pageSize, 'tokens'],
    ['estimate', 'kv_bytes_per_token', est.kvBytesPerToken, 'bytes a token, all layers, one GPU'],
    ['estimate', 'page_bytes', est.pageBytes, 'bytes a page (block), one GPU'],
    ['estimate', 'kv_budget_bytes', est.pool.budgetBytes, `bytes a GPU (${run.profile.kvCache.numPages !== 'auto' ? 'kv_cache.num_pages · page_bytes' : run.profile.kvCache.memoryGib !== 'auto' ? 'kv_cache.memory_gib' : 'device memory · gpu_memory_utilization − reserves'})`],
    ...stepTimeRows(run.pool?.stepTime),
    ['machine', 'machine', describeEnvironment(run.environment), 'where it ran'],
  ];
}

/**
 * The step-time model the pool's clock ran on (source 'step-time model'): the GPU whose peaks it
 * divides by, its compute and memory efficiencies and overhead per step (each "assumed" where the
 * profile did not set it), and what it leaves out; none without a pool simulation.
 */
function stepTimeRows(st: StepTimeModel | undefined): Array<[source: string, figure: string, value: string | number, unit: string]> {
  if (!st) return [];
  const assumed = (k: string, unit: string) => (st.assumed?.includes(k) ? `${unit}, assumed (profile step_time not set)` : `${unit}, profile step_time`);
  const rows: Array<[string, string, string | number, string]> = [['step-time model', 'step_time.gpu', st.gpu ?? '', 'the GPU whose peak FLOP/s and bandwidth it divides by']];
  if (st.computeEfficiency !== undefined) rows.push(['step-time model', 'step_time.compute_efficiency', st.computeEfficiency, assumed('compute_efficiency', 'fraction of peak FLOP/s')]);
  if (st.memoryEfficiency !== undefined) rows.push(['step-time model', 'step_time.memory_efficiency', st.memoryEfficiency, assumed('memory_efficiency', 'fraction of peak bandwidth')]);
  rows.push(['step-time model', 'step_time.overhead', st.perStepS, assumed('overhead_ms', 's a step')]);
  if (st.unmodelled && st.unmodelled.length > 0) rows.push(['step-time model', 'step_time.not_modelled', st.unmodelled.join('; '), 'left out of the step times']);
  return rows;
}

/**
 * The run as CSV (RFC 4180, header row, `\n` line ends): `table` ('run' | 'kernel' | 'simulation')
 * and `source` ('profile' / 'machine': what the run is of, contextRows; 'measured': a kernel case
 * timed on this machine; 'modelled': a figure of the pool simulation, on the step-time model's
 * clock), the kernel-case columns when the run has cases, and figure, statistic, value, unit; a
 * row leaves the other tables' columns empty. `rows` counts the data rows: 0 for a run with
 * neither cases nor a pool simulation (nothing to export).
 */
export function runToCsv(run: RunResult): { text: string; rows: number } {
  const kernelCols = run.cases.length > 0 ? CSV_COLUMNS : [];
  const sim = run.pool ? simulationFigures(run.pool) : [];
  if (run.cases.length === 0 && sim.length === 0) return csvTable(['table', 'source'], []);
  return csvTable(['table', 'source', ...kernelCols.map(([h]) => h), ...SIM_COLUMNS], [
    ...contextRows(run).map(([source, figure, value, unit]) => ['run', source, ...kernelCols.map(() => ''), figure, '', value, unit]),
    ...run.cases.map((c) => ['kernel', 'measured', ...kernelCols.map(([, get]) => get(c)), ...SIM_COLUMNS.map(() => '')]),
    ...sim.map((f) => ['simulation', 'modelled', ...kernelCols.map(() => ''), ...f]),
  ]);
}

/** The run as saved in history (2-space JSON). */
export function runToJson(run: RunResult): string {
  return JSON.stringify(run, null, 2) + '\n';
}

/**
 * A PNG's width and height, pixels, from its IHDR chunk (PNG spec §11.2.2: the 8-byte signature,
 * the chunk's length and type, then width and height as 4-byte big-endian integers at bytes
 * 16-23); null for bytes that are no PNG.
 */
export function pngSize(png: Uint8Array): { width: number; height: number } | null {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (png.length < 24 || signature.some((b, i) => png[i] !== b) || String.fromCharCode(...png.subarray(12, 16)) !== 'IHDR') return null;
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/**
 * The notice after Export PNG wrote `png` (the charts of the run, or the comparison, `name`) to
 * `shownPath` (the path as the workspace names it): where it went and its size, so that the export
 * is confirmed (s48 newcomer-ed 15: the file was written and nothing said so). The editor adds
 * Open and, in a workspace folder, Reveal in Explorer.
 */
export function pngSavedMessage(name: string, shownPath: string, png: Uint8Array): string {
  const size = pngSize(png);
  return `AttnScope: saved the PNG of ${name}${size ? ` (${formatCount(size.width)} × ${formatCount(size.height)} px)` : ''} to ${shownPath}.`;
}
