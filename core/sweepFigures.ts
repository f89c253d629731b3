/**
 * The figures of a sweep report's rows (core/protocol/sweep.ts SweepMetrics) as every surface
 * names them: the dashboard's label, how a value reads (kind, unit), where it comes from
 * (modelled by the pool simulation, measured on the point's machine) and its CSV column (name
 * and unit, as the run export writes them: core/sweepCsv.ts); and the sentences that say
 * where a report's figures come from (sweepProvenance), which the CLI prints under its table and
 * the dashboard's Sweep tab under its own. The webview reads it too: it imports nothing of Node's.
 */
import { axisName, axisNames, axisValueText, formatAttainedBelow, formatUsd, sameAxisValue } from './format';
import { SLO_ATTAINMENT_DEFAULT } from './protocol/latency';
import type { Environment } from './protocol/run';
import { modelledJob, type SweepMetrics, type SweepReport, type SweepReportRow } from './protocol/sweep';

/** A figure of a sweep row: its key, its CSV column (snake_case name with its unit) and where it comes from. */
export interface SweepFigure {
  key: keyof SweepMetrics;
  /** The CSV header: name and unit as the table shows it ('output_throughput_tokens_per_s', 'ttft_p99_ms', 'prefix_hit_rate_percent'); a count names what it counts. */
  column: string;
  /** 'modelled': the point's pool simulation (its clock the step-time model); 'measured': a kernel timed on the point's machine. */
  source: 'modelled' | 'measured';
  /**
   * The factor from the report's SI value to the CSV's unit, where the CSV writes the figure in the unit the table shows
   * (s53: p99 TTFT in ms, not s; a share in percent, not a fraction): 1000 for `_ms`, 100 for `_percent`; absent: 1.
   */
  csvScale?: number;
}

/**
 * A figure the dashboard can chart: its label, what its values are, and where it comes from.
 * `kind` decides how a value reads (webview/sweep.ts metricScale), the same in the table and on
 * the chart's axis: 'ns' / 's' durations (in the unit of the largest value shown), 'fraction' as
 * a percentage, 'count' whole numbers, 'rate' three significant digits in `unit`.
 */
export interface SweepMetric extends SweepFigure {
  key: Exclude<keyof SweepMetrics, 'decodeCase' | 'decodeFromCache' | 'decodeFromCacheText' | 'maxRateLimit' | 'gpuHourUsd'>;
  label: string;
  kind: 'ns' | 's' | 'fraction' | 'count' | 'rate';
  /** The unit of a 'count' or 'rate' figure, for the axis title ("tokens/s"); none for a plain count. */
  unit?: string;
  /**
   * Which way the figure is better, for the charts' accessible names ("highest 1,230 tokens/s at
   * page_size 16"); none where neither way is (pool pages, mean occupancy: a range is named).
   */
  better?: 'higher' | 'lower';
  /** The chart's value-axis title where "label (unit)" would say a thing twice ("$ / 1M output tokens ($ per 1M output tokens, ...)", s44 newcomer-ed F2); absent: that. */
  axisTitle?: string;
}

/** The figures the dashboard charts and tables, in its order. */
export const SWEEP_METRICS: readonly SweepMetric[] = [
  { key: 'maxRateRequestsPerSec', label: 'max rate meeting the SLO', kind: 'rate', unit: 'requests/s', better: 'higher', source: 'modelled', column: 'max_rate_requests_per_s' },
  { key: 'usdPerMillionOutputTokens', label: '$ / 1M output tokens', kind: 'rate', unit: '$ per 1M output tokens, at user-given $/GPU-hour', axisTitle: '$ per 1M output tokens (user-given $/GPU-hour)', better: 'lower', source: 'modelled', column: 'usd_per_million_output_tokens' },
  { key: 'maxRatePerGpuRequestsPerSec', label: 'max rate per GPU', kind: 'rate', unit: 'requests/s', better: 'higher', source: 'modelled', column: 'max_rate_per_gpu_requests_per_s' },
  { key: 'internalFragmentation', label: 'internal fragmentation', kind: 'fraction', better: 'lower', source: 'modelled', column: 'internal_fragmentation_mean_percent', csvScale: 100 },
  { key: 'prefixHitRate', label: 'prefix-cache hit rate', kind: 'fraction', better: 'higher', source: 'modelled', column: 'prefix_hit_rate_percent', csvScale: 100 },
  { key: 'preemptions', label: 'preemptions', kind: 'count', better: 'lower', source: 'modelled', column: 'preemptions' },
  { key: 'poolPages', label: 'pool pages', kind: 'count', unit: 'pages', source: 'modelled', column: 'pool_pages' },
  { key: 'meanOccupancy', label: 'occupancy (mean)', kind: 'fraction', source: 'modelled', column: 'occupancy_mean_percent', csvScale: 100 },
  { key: 'throughputTokensPerSec', label: 'output throughput', kind: 'rate', unit: 'tokens/s', better: 'higher', source: 'modelled', column: 'output_throughput_tokens_per_s' },
  { key: 'p99TtftS', label: 'p99 TTFT', kind: 's', better: 'lower', source: 'modelled', column: 'ttft_p99_ms', csvScale: 1000 },
  { key: 'p99TpotS', label: 'p99 TPOT', kind: 's', better: 'lower', source: 'modelled', column: 'tpot_p99_ms', csvScale: 1000 },
  { key: 'sloAttainment', label: 'requests meeting the SLO', kind: 'fraction', better: 'higher', source: 'modelled', column: 'slo_attainment_percent', csvScale: 100 },
  { key: 'goodputRequestsPerSec', label: 'goodput', kind: 'rate', unit: 'requests/s', better: 'higher', source: 'modelled', column: 'goodput_requests_per_s' },
  { key: 'goodputPerGpuRequestsPerSec', label: 'goodput per GPU', kind: 'rate', unit: 'requests/s', better: 'higher', source: 'modelled', column: 'goodput_per_gpu_requests_per_s' },
  { key: 'decodeNsPerToken', label: 'decode time per token', kind: 'ns', better: 'lower', source: 'measured', column: 'decode_median_ns_per_token' },
];

/** Every figure a row may have, in the CSV's order: the dashboard's, then what bounds a max rate (SweepMetrics.maxRateLimit), the rejected requests, the KV bytes per token and of a page (the memory estimate's) and the decode figure's spread, case and whether that case was read from cache (decode_from_cache_measured: 'cache-size', 'read-rate' or 'both'). */
export const SWEEP_FIGURES: readonly SweepFigure[] = [
  ...SWEEP_METRICS,
  { key: 'maxRateLimit', source: 'modelled', column: 'max_rate_limit' },
  { key: 'rejected', source: 'modelled', column: 'rejected_requests' },
  { key: 'kvBytesPerToken', source: 'modelled', column: 'kv_bytes_per_token' },
  { key: 'pageBytes', source: 'modelled', column: 'page_bytes' },
  { key: 'decodeP10NsPerToken', source: 'measured', column: 'decode_p10_ns_per_token' },
  { key: 'decodeP90NsPerToken', source: 'measured', column: 'decode_p90_ns_per_token' },
  { key: 'decodeCase', source: 'measured', column: 'decode_case' },
  // 'cache-size' | 'read-rate' | 'both': that case read from cache, not DRAM (SweepMetrics.decodeFromCache).
  { key: 'decodeFromCache', source: 'measured', column: 'decode_from_cache' },
];

/**
 * The GPU models of `rows` (SweepReportRow.gpu, each once in row order) with the user's price per
 * GPU-hour of each (SweepMetrics.gpuHourUsd), undefined where some row on it has none: what the best
 * line and the provenance say the cost figures were priced at, and which models lack a price.
 */
export function gpuPrices(rows: ReadonlyArray<Pick<SweepReportRow, 'gpu' | 'metrics'>>): Array<{ gpu: string; usd: number | undefined }> {
  const out = new Map<string, number | undefined>();
  for (const r of rows) {
    if (r.gpu === undefined) continue;
    const usd = r.metrics.gpuHourUsd;
    out.set(r.gpu, out.has(r.gpu) && out.get(r.gpu) === undefined ? undefined : usd);
  }
  return [...out].map(([gpu, usd]) => ({ gpu, usd }));
}

/**
 * Whether `report` keeps its rows apart by machine kind (environment key): an `env` column and
 * letters (A, B, ...) in the table, the best line and the tie list, one chart line per machine.
 * Only a sweep that measures (job bench or both) and whose results come from several environments
 * does: a simulate sweep's figures are modelled on the profile's GPU, the same whatever CPU ran
 * the simulator, so merge keeps one row per point from any environment (runner/sweep/results.ts
 * mergeResults) and names no machine.
 */
export function splitByMachine(report: Pick<SweepReport, 'job' | 'environments'>): boolean {
  return !modelledJob(report.job) && Object.keys(report.environments).length > 1;
}

/**
 * The CPU in words: its name with its generation where the run recorded one
 * (Environment.cpuSignature), "AMD EPYC (family 25 model 17)", else the name alone.
 */
export function cpuName(env: Pick<Environment, 'cpuModel' | 'cpuSignature'>): string {
  return env.cpuSignature ? `${env.cpuModel} (${env.cpuSignature})` : env.cpuModel;
}

/**
 * "AMD EPYC (family 25 model 17, 2 cores, x64, avx512)" or "NVIDIA H200 · Intel Xeon ... (16 cores, x64, avx512)":
 * one environment in words, with what its key tells apart (runner/sweep/results.ts environmentKey).
 */
export function describeEnvironment(env: Environment): string {
  const cpu = `${env.cpuModel} (${[env.cpuSignature, `${env.cpuCores} cores`, env.arch, env.simd].filter((part) => part).join(', ')})`;
  return env.gpu ? `${env.gpu.name} · ${cpu}` : cpu;
}

/** A row's build in a report's table and legend: its run's tool text less "attnscope " ("0.1.0+3f2a9c1b7e0d"), or "unknown" for a row of a report merged before s36. */
export function rowBuild(row: { tool?: string }): string {
  return row.tool === undefined ? 'unknown' : row.tool.replace(/^attnscope /, '');
}

/**
 * The builds of the runner whose points `report`'s rows are (rowBuild: runner/version.ts
 * buildIdentity, package version + a hash of the runner bundle and native build), each with how
 * many rows, in first-row order. More than one: the report mixes builds whose figures may differ.
 */
export function reportBuilds(report: Pick<SweepReport, 'rows'>): Array<{ build: string; rows: number }> {
  const counts = new Map<string, number>();
  for (const r of report.rows) counts.set(rowBuild(r), (counts.get(rowBuild(r)) ?? 0) + 1);
  return [...counts].map(([build, rows]) => ({ build, rows }));
}

/**
 * Where `report`'s figures come from, one sentence each, only for the figures some row has: the
 * pool figures (modelled: each point's page-pool simulation), the decode time per token
 * (measured: on which machine, from which case) and the latency figures (modelled: the
 * step-time model's formula, and what it leaves out: SweepReportRow.unmodelled), each decode time read from cache
 * (decodeFromCacheNotes); first, when the rows come from several builds of the runner, which (reportBuilds). The one wording of both surfaces: the CLI's footer
 * (runner/sweep/results.ts formatReport) and the dashboard's Sweep tab (webview/main.ts).
 */
export function sweepProvenance(report: SweepReport): string[] {
  const has = (keys: ReadonlyArray<keyof SweepMetrics>) => report.rows.some((r) => keys.some((k) => r.metrics[k] !== undefined));
  const notes: string[] = [];
  const builds = reportBuilds(report);
  if (builds.length > 1) {
    notes.push(
      `results of ${builds.length} builds of attnscope (the build column: package version + SHA-256 of the runner bundle and native build, as attnscope --version prints it): ` +
        `${builds.map((b) => `${b.build} (${b.rows} ${b.rows === 1 ? 'row' : 'rows'})`).join(', ')}; figures of different builds may differ: ` +
        'rerun `attnscope sweep` with the results folder as --out to run again the points another build wrote',
    );
  }
  if (has(SWEEP_FIGURES.filter((f) => f.source === 'modelled').map((f) => f.key))) {
    notes.push('pool figures: modelled, the page-pool simulation of each point (as `attnscope simulate`; vLLM V1 scheduling), time-averaged');
  }
  if (has(['decodeNsPerToken'])) {
    const envs = Object.values(report.environments);
    const machine = envs.length === 1 ? describeEnvironment(envs[0]!) : "each point's machine (its env letter)";
    const decodeCase = report.rows.find((r) => r.metrics.decodeCase)?.metrics.decodeCase;
    notes.push(`decode time per token: measured, the paged_decode median on ${machine} / batch size, at the largest decode case${decodeCase ? ` (${decodeCase})` : ''}`);
    notes.push(...decodeFromCacheNotes(report));
  }
  if (has(['maxRateLimit'])) {
    notes.push(
      "max rate: modelled, each point's capacity search (as `attnscope simulate --max-rate`): the highest arrival rate for which the profile's slo.attainment of requests meet its SLO and the server keeps up (at most the saturated throughput μ), to 2 %; " +
        'per GPU: that rate / the GPUs (tensor_parallel_size × pipeline_parallel_size × data_parallel_size); the other figures are the simulation at that rate (with none, at the lowest rate tried)',
    );
  }
  if (has(['usdPerMillionOutputTokens'])) {
    const priced = gpuPrices(report.rows).filter((p) => p.usd !== undefined);
    notes.push(
      `$ / 1M output tokens: modelled, at user-given prices per GPU-hour (${priced.map((p) => `${p.gpu} ${formatUsd(p.usd!)}/GPU-hour`).join(', ')}; yours, not built-in figures): price × GPUs / 3600 / (steady requests/s × the run's mean output tokens a request) × 10^6` +
        (has(['maxRateLimit'])
          ? ", the steady rate: each point's max rate"
          : ", the steady rate: each point's offered load (workload.arrival_rate), or its saturated throughput μ where the load is above it (GPUs idle part of the time are paid all the same; a max-rate sweep prices each point at its highest rate under the SLO)") +
        " (not the tokens/s (sim) column, the finite run's, which takes in its ramp-up and drain)" +
        '; input (prompt) tokens are not counted: the simulation reports no input throughput',
    );
  }
  if (has(['p99TtftS', 'p99TpotS', 'sloAttainment', 'goodputRequestsPerSec'])) {
    // The GPU each point's step times were modelled for (SweepReportRow.gpu): one named, several "each point's" (s46: a sweep over device.gpu said "the profile's GPU").
    const gpus = new Set(report.rows.map((r) => r.gpu).filter((g) => g !== undefined));
    const on = gpus.size > 1 ? "each point's GPU" : gpus.size === 1 ? [...gpus][0]! : "the profile's GPU";
    notes.push(`p99 TTFT / TPOT, SLO met, goodput: modelled, on the simulation's step-time clock, each step overhead + max(memory, compute) + the tensor-parallel all-reduces: a roofline on ${on}`);
  }
  const unmodelled = [...new Set(report.rows.flatMap((r) => r.unmodelled ?? []))];
  if (unmodelled.length > 0) {
    // A point simulated before s41 charged no all-reduce at all ("the communication between the N tensor-parallel GPUs"): say what that flatters.
    const before = unmodelled.some((u) => u.startsWith('the communication between'));
    notes.push(`not modelled in the step times: ${unmodelled.join(', ')}${before ? ' (the all-reduce after every attention and MLP block: its cost grows with tensor_parallel_size, so the points with more GPUs are flattered)' : ''}`);
  }
  return notes;
}

/**
 * Where a row's step-time setting `name` (compute_efficiency, memory_efficiency, overhead_ms) comes
 * from: 'assumed' (not in the profile: the model's default) or 'profile' (its step_time). The one
 * rule of the sweep CSV's `_from` columns and the Sweep tab's Markdown, beside {@link allReduceFrom}.
 */
export function stepTimeFrom(stepTime: { assumed: readonly string[] }, name: string): 'assumed' | 'profile' {
  return stepTime.assumed.includes(name) ? 'assumed' : 'profile';
}

/**
 * Where a row's all-reduce figures come from (SweepStepTimeAssumptions.allReduce `given`), the one
 * wording of the sweep CSV's all_reduce_from and the Sweep tab's Markdown: "assumed (fitted to vLLM
 * PR #24111's H100 SXM timings)" with none set, "profile (step_time.all_reduce)" with all four, else
 * which keys the profile set and that the rest are assumed.
 */
export function allReduceFrom(allReduce: { given?: readonly string[] }): string {
  const given = allReduce.given ?? [];
  const fit = "fitted to vLLM PR #24111's H100 SXM timings";
  if (given.length === 0) return `assumed (${fit})`;
  if (given.length === 4) return 'profile (step_time.all_reduce)';
  return `profile: ${given.map((k) => `step_time.all_reduce.${k}`).join(', ')}; the rest assumed (${fit})`;
}

/**
 * What the tie sentence of a best tied with more points than it names says in their place
 * (SweepReport best.tie, runner/sweep/results.ts bestRow): the CLI's reader has the report file; the
 * dashboard lists them under the best instead (webview/sweep.ts sweepBestText, s44 newcomer-ed F5).
 */
export const TIED_LISTED = '(sweep-report.json lists them under best.tiedWith)';

/**
 * One line per row whose decode case was read from cache, not DRAM (SweepMetrics.decodeFromCache),
 * naming the point by its axis values and saying why in `attnscope bench`'s words
 * (decodeFromCacheText, core/format.ts fromCacheText): "decode time per token (from cache) at
 * page_size=16: from cache: reads 4.02 MiB, within the 32 MiB L3; not a DRAM figure". A report
 * merged before those words were kept says "from cache; not a DRAM figure". Empty where none is.
 */
export function decodeFromCacheNotes(report: Pick<SweepReport, 'axes' | 'rows'>): string[] {
  const names = axisNames(report.axes.map((a) => a.key));
  return report.rows
    .filter((r) => r.metrics.decodeFromCache !== undefined)
    .map((r) => {
      const at = report.axes.map((a, i) => `${names[i]}=${axisValueText(r.values[a.key])}`).join(' ');
      return `decode time per token (from cache)${at ? ` at ${at}` : ''}: ${r.metrics.decodeFromCacheText ?? 'from cache; not a DRAM figure'}`;
    });
}

/**
 * The value combinations of one or two axes none of whose points the report has (every point with
 * them is in `missing`), as labels ("page_size=32", "tensor_parallel_size=8 with gpu=H200"); a pair only where neither value
 * alone is already so. An interrupted sweep's best is chosen without them (s42 newcomer-ed F5: the 6
 * points left were the whole tp 8 × H200 cell). Empty when every such cell has a point.
 */
export function missingCells(report: Pick<SweepReport, 'axes' | 'rows' | 'missing'>): string[] {
  const keys = report.axes.map((a) => a.key);
  const short = (key: string) => axisName(key, keys);
  // Values compared as values (a described GPU is a mapping, another object in each row) and written as the table writes them.
  const have = (pairs: Array<[string, unknown]>) => report.rows.some((r) => pairs.every(([k, v]) => sameAxisValue(r.values[k], v)));
  const lost = (pairs: Array<[string, unknown]>) => !have(pairs) && report.missing.some((m) => pairs.every(([k, v]) => sameAxisValue(m.values?.[k], v)));
  const label = (pairs: Array<[string, unknown]>) => pairs.map(([k, v]) => `${short(k)}=${axisValueText(v)}`).join(' with ');
  const singles: Array<[string, unknown]> = [];
  for (const a of report.axes) for (const v of a.values) if (report.axes.length > 1 && lost([[a.key, v]])) singles.push([a.key, v]);
  const out = singles.map((p) => label([p]));
  report.axes.forEach((a, i) => report.axes.slice(i + 1).forEach((b) => {
    for (const va of a.values) for (const vb of b.values) {
      if (singles.some(([k, v]) => (k === a.key && sameAxisValue(v, va)) || (k === b.key && sameAxisValue(v, vb)))) continue;
      // With two axes a pair is one point, which `missing` already names.
      if (report.axes.length > 2 && lost([[a.key, va], [b.key, vb]])) out.push(label([[a.key, va], [b.key, vb]]));
    }
  }));
  return out;
}

/**
 * Why a row cannot be the best of a rule on simulated rates, in a few words for a chart's label:
 * "fails SLO (8.5%)" when fewer of its requests meet the profile's SLO than slo.attainment asks
 * (SweepMetrics.sloAttainment < sloAttainmentTarget, default SLO_ATTAINMENT_DEFAULT 0.9, as
 * runner/sweep/results.ts bestRow reads it), "does not keep up" when the modelled server does not
 * (SweepReportRow.keepsUp false), both joined by ", "; null when neither holds.
 */
export function rowExclusion(r: Pick<SweepReportRow, 'metrics' | 'keepsUp'>): string | null {
  const a = r.metrics.sloAttainment;
  const target = r.metrics.sloAttainmentTarget ?? SLO_ATTAINMENT_DEFAULT;
  const why = [
    // Below the target as written: 99.89% of a 99.9% target, where one decimal read the target itself.
    ...(a !== undefined && a < target ? [`fails SLO (${formatAttainedBelow(a, target)})`] : []),
    ...(r.keepsUp === false ? ['does not keep up'] : []),
  ];
  return why.length > 0 ? why.join(', ') : null;
}

/**
 * The file name stem of a sweep's exports, "<profile stem>-sweep-<sweepId>" ("page-size-sweep-d4cf7d4c" for
 * page-size.attn.yaml): the CSV adds ".csv", the chart image ".png", so the two sit side by side in a folder
 * (the image was "page-size.attn.yaml_sweep_d4cf7d4c.png"). Characters other than letters, digits, ".", "_", "-" become "_".
 */
export function sweepExportStem(report: Pick<SweepReport, 'name' | 'sweepId'>): string {
  const stem = report.name.replace(/\.attn\.(ya?ml|json)$/, '').replace(/[^A-Za-z0-9._-]+/g, '_');
  return `${stem}-sweep-${report.sweepId.replace(/[^A-Za-z0-9._-]+/g, '_')}`;
}
