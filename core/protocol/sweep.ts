/**
 * Sweep results (issue 13): what `attnscope sweep` writes for each point (a run JSON with a
 * `sweep` block), and the report `attnscope merge` builds from the points of any number of
 * machines, which the dashboard's sweep view draws. Schema version 1.
 */
import type { SweepJob } from '../config/sweep';
import type { Environment, RunResult } from './run';

export type { SweepJob };

export const SWEEP_SCHEMA_VERSION = 1 as const;

/**
 * Whether a sweep of `job` only models (simulate, max-rate): its figures are the same whatever
 * machine ran the simulator, so a point has one row from any machine, and earlier sweeps' points
 * are reused; jobs bench and both measure on the machine.
 */
export function modelledJob(job: SweepJob): boolean {
  return job === 'simulate' || job === 'max-rate';
}

/** One point of a sweep: the value of every axis, in axis order. */
export interface SweepPointRef {
  /**
   * Stable id: the first 12 hex digits of SHA-256 over the canonical JSON of the point's
   * `{axis key: value}` (keys sorted), so it does not change when axes are reordered or values
   * are added to another axis.
   */
  id: string;
  /** Position in the expansion order (first axis slowest, last fastest), from 0. */
  index: number;
  /** Axis key (dotted profile path, e.g. "kv_cache.page_size") -> value. */
  values: Record<string, unknown>;
  /** Short text for tables and charts: "page_size=16 max_num_seqs=64". */
  label: string;
}

/** The `sweep` block of a point's run JSON. */
export interface SweepPointInfo extends SweepPointRef {
  /** The sweep block's format version: 1. */
  schema: typeof SWEEP_SCHEMA_VERSION;
  /** Identity of the sweep (base profile, model config, axes, job, options): 16 hex digits of SHA-256. */
  sweepId: string;
  /**
   * The sweep's identity without its axes (base profile, model config, job, options): a point of
   * the same id and inputsId gives the same simulation in any sweep of them, so a grown sweep
   * reuses it (runner/sweep/local.ts). Absent in files written before it existed.
   */
  inputsId?: string;
  /** The sweep's display name: the profile file name. */
  name: string;
  /** What each point ran: 'simulate' (page-pool simulation), 'max-rate' (capacity search), 'bench' (kernels), 'both' (bench and simulate). */
  job: SweepJob;
  /** Points in the whole sweep. */
  total: number;
  /** The axes in order with all their values, so a merge can list missing points. */
  axes: Array<{
    /** The axis's profile key, dotted as the profile writes it ("kv_cache.page_size", "device.gpu"). */
    key: string;
    /** The axis's values in sweep order, as written (numbers, strings, booleans). */
    values: unknown[];
  }>;
  /** environmentKey(run.environment): results of one point on two kinds of machine are kept apart. */
  environmentKey: string;
}

/** A point's result file: a run (core/protocol/run.ts) with its place in the sweep. */
export interface SweepPointRun extends RunResult {
  /** The point's place in its sweep: the sweep's id, name, job, axes and the point's values (SweepPointInfo). */
  sweep: SweepPointInfo;
}

/**
 * Figures of one point, by metric name. Pool figures come from the point's simulation
 * (runner/simulate), decode figures from its paged_decode cases (measured on the machine of
 * `environmentKey`); a figure the point's job did not produce is absent.
 */
export interface SweepMetrics {
  /** Mean internal fragmentation of the paged pool (allocated-but-unfilled slots / allocated slots), time-averaged. */
  internalFragmentation?: number;
  /** Prefix-cache hit tokens / prompt tokens looked up. */
  prefixHitRate?: number;
  preemptions?: number;
  /** Pages in the simulated pool. */
  poolPages?: number;
  /** Pages in use / pages in pool, time-averaged. */
  meanOccupancy?: number;
  /** Generated tokens per simulated second. */
  throughputTokensPerSec?: number;
  /** Requests that could never be served. */
  rejected?: number;
  /**
   * KV bytes of one token across all layers, K and V, per GPU (the point's Estimate.kvBytesPerToken:
   * its model and kv_cache.dtype), with the pool figures; absent in reports merged before it was kept.
   */
  kvBytesPerToken?: number;
  /**
   * Bytes of one pool page (the point's Estimate.pageBytes: page_size · kvBytesPerToken, or a hybrid
   * pool's block, page_size tokens of one KV-cache group's layers); absent in reports merged before s35.
   */
  pageBytes?: number;
  /** p99 time to first token and time per output token of the simulated requests, seconds (modelled: the simulation's step-time clock). */
  p99TtftS?: number;
  p99TpotS?: number;
  /** With an `slo` in the profile: fraction of requests meeting it, and those requests per simulated second. */
  sloAttainment?: number;
  /** With an `slo`: the completed requests its attainment was judged on (LatencySummary.requests); absent in reports before s42. */
  sloRequests?: number;
  goodputRequestsPerSec?: number;
  /** goodputRequestsPerSec / gpus (core/format.ts perGpuRate): what a best-point rule on goodput ranks by where the points' GPU counts differ; absent in reports merged before s42. */
  goodputPerGpuRequestsPerSec?: number;
  /** The SLO the point was judged by (the profile's `slo`, ms), and its p90 TTFT / TPOT (s, modelled): what a point short of it would have to relax. */
  sloTtftMs?: number;
  sloTpotMs?: number;
  /** The fraction of requests that must meet the SLO for the point to meet it (the profile's slo.attainment); absent = SLO_ATTAINMENT_DEFAULT (0.9). */
  sloAttainmentTarget?: number;
  p90TtftS?: number;
  p90TpotS?: number;
  /**
   * With an `slo`: the point's p90 and p99 queueing delay (arrival to first admission, s, modelled;
   * LatencySummary.queue), so that a point whose TTFT misses its bound by more than its queueing
   * is said to miss it for its prefill, not its load (runner/sweep/results.ts noBestText); absent
   * in reports merged before s41.
   */
  p90QueueS?: number;
  p99QueueS?: number;
  /**
   * Job max-rate: the point's highest arrival rate, requests/s, that meets its profile's SLO (for
   * slo.attainment of requests) and that the modelled server keeps up with (at most the saturated
   * throughput μ): the capacity search of `attnscope simulate --max-rate` (runner/simulate/capacity.ts
   * searchCapacity, to its relative tolerance of 2 %; modelled). Absent when no rate meets the SLO
   * (`maxRateLimit` 'unmet'). The point's other pool and latency figures are those of the simulation
   * at that rate (with none, of the last rate the search tried).
   */
  maxRateRequestsPerSec?: number;
  /** maxRateRequestsPerSec / gpus: what the best-point rule of a max-rate sweep ranks by. */
  maxRatePerGpuRequestsPerSec?: number;
  /**
   * Job max-rate: what bounds the point's max rate: 'slo' (a higher rate misses the SLO),
   * 'capacity' (above it the server does not keep up: the rate is μ, or the SLO still held where
   * the queue began to grow), 'unbounded' (every rate tried met the SLO and μ could not be
   * measured: the rate is a lower bound) or 'unmet' (no rate meets the SLO: even the lowest the
   * search tried misses it).
   */
  maxRateLimit?: 'slo' | 'capacity' | 'unbounded' | 'unmet';
  /**
   * GPUs the point's deployment uses: its profile's tensor_parallel_size × pipeline_parallel_size × data_parallel_size
   * (core/format.ts deployedGpuCount; absent in reports merged before s38). Where the points' counts differ, the best-point rules on simulated rates
   * rank per GPU (runner/sweep/results.ts bestRow).
   */
  gpus?: number;
  /**
   * The user's price of one GPU-hour of the point's GPU, US dollars (sweep.gpu_hour_usd for its
   * model, else the profile's device.gpu_hour_usd on the profile's own GPU: core/config/sweep.ts
   * pointGpuHourUsd): user-given, never a built-in figure. Absent: no price (and reports before s43).
   */
  gpuHourUsd?: number;
  /**
   * Output tokens/s at the point's steady rate (core/format.ts steadyOutput, modelled): a max-rate
   * point's max rate, else its offered rate where kept up or μ above it, × the mean output tokens a
   * request; the finite run's throughputTokensPerSec where no steady rate is known. What
   * usdPerMillionOutputTokens divides by; absent in reports merged before s44.
   */
  steadyOutputTokensPerSec?: number;
  /**
   * The requests/s that steady rate is of (core/format.ts steadyOutput's requestsPerSec: the offered rate of a point the
   * server keeps up with, μ above it, a max-rate point's max rate); absent where no steady rate is known (the finite run's
   * basis) and in reports merged before s52. Its product with sloAttainment is the steady goodput a best-point rule ranks by.
   */
  steadyRequestsPerSec?: number;
  /**
   * US dollars per million output tokens, modelled: gpuHourUsd × gpus / 3600 / steadyOutputTokensPerSec
   * × 10^6 (core/format.ts usdPerMillionTokens); a max-rate point's at its max rate meeting the SLO,
   * none where no rate met it (reports merged before s44: over the finite run's throughputTokensPerSec). What the best-point rules on simulated rates
   * rank by when every point has a price (runner/sweep/results.ts bestRow). Absent without a price.
   */
  usdPerMillionOutputTokens?: number;
  /** Median paged_decode time of the largest decode case / its batch size: measured ns per generated token. */
  decodeNsPerToken?: number;
  /** That case's p10 and p90 / its batch size: the spread the measurement itself showed (ns per token). */
  decodeP10NsPerToken?: number;
  decodeP90NsPerToken?: number;
  /** The decode case that figure comes from: "B=8 context=4096". */
  decodeCase?: string;
  /**
   * That case read from cache, not DRAM (its KernelCase.fromCache, core/format.ts fromCacheBy), an
   * enum: 'cache-size' (its bytes fit the machine's last-level cache), 'read-rate' (its pages read
   * alone came at more than 1.5x a DRAM read timed with them) or 'both'; absent where neither holds
   * or neither is known. Its time per token is then faster than serving's, which reads every
   * layer's KV from DRAM.
   */
  decodeFromCache?: 'cache-size' | 'read-rate' | 'both';
  /**
   * Why, in `attnscope bench`'s words (core/format.ts fromCacheText): "from cache: its pages read
   * alone came at 2.42x a DRAM read (76.3 GB/s against 31.5 GB/s, one thread each); not a DRAM
   * figure". What the sweep table's notes and the Sweep tab show; no CSV column (the CSV has the
   * enum). Absent with decodeFromCache, and in reports merged before session 52.
   */
  decodeFromCacheText?: string;
}

/** One row of a report: a point measured on one kind of machine (job bench or both), or a point's simulation (job simulate: one row whatever machine ran it). */
export interface SweepReportRow extends SweepPointRef {
  environmentKey: string;
  status: RunResult['status'];
  metrics: SweepMetrics;
  /** The file the row was read from. */
  file: string;
  /**
   * What made the point: its run's RunHeader.tool, "attnscope <build identity>" (runner/version.ts
   * buildIdentity: package version + hash of the runner bundle and native build). Absent in reports
   * merged before s36. A report whose rows have several says so (core/sweepFigures.ts reportBuilds).
   */
  tool?: string;
  /**
   * Set by `attnscope sweep` on the rows of its own machine kind (absent in `merge`'s report, which
   * cannot tell): 'run' when this invocation ran the point; 'resumed' when its result was already
   * in the results folder from an earlier run of this sweep, and was not run again; 'reused' when
   * it was copied from an earlier sweep of the profile, the folder `reusedFrom` (simulations only:
   * the same inputs give the same result).
   */
  origin?: 'run' | 'resumed' | 'reused';
  reusedFrom?: string;
  /**
   * Whether the modelled server keeps up with the point's load (its run's pool.load.keepsUp: the
   * rate at most the saturated throughput μ, the queue not growing); absent when the point's run
   * did not judge it (jobs bench and both, points written before s35). A point with false is never
   * the best of a rule on simulated rates; `notKeptUp` says why in words.
   */
  keepsUp?: boolean;
  notKeptUp?: string;
  /** What the point's step-time model leaves out (its run's pool.stepTime.unmodelled: under tensor parallelism the all-reduce paths it does not model; a point merged before s41 said the whole all-reduce); absent when nothing, or merged before s38. */
  unmodelled?: string[];
  /**
   * The GPU the point's step times were modelled for: its run's pool.stepTime.gpu (core/estimate/gpus.ts
   * gpuLabel: the table's name, "H100 SXM", or a GPU the profile describes, "MI325X (user-given)"). Absent
   * for a point without a simulation (job bench) and in reports merged before s41.
   */
  gpu?: string;
  /** What the point's step times assumed (its run's pool.stepTime), so that an export of the row stands alone; absent for a point without a simulation and in reports merged before s42. */
  stepTime?: SweepStepTimeAssumptions;
  /** The point's profile's dtype (Q/K/V/O: kernels and the estimate), "bf16"; absent in reports merged before s50. */
  dtype?: string;
  /** Its KV cache's dtype (kv_cache.dtype, 'auto' resolved to `dtype`), "fp8"; absent in reports merged before s50. */
  kvDtype?: string;
  /**
   * The workload its simulation ran (the profile's workload): a trace replayed (workload.trace as written) or requests drawn
   * at an arrival rate (requests/s); absent for a point without a workload (job bench) and in reports merged before s50.
   */
  workload?: SweepWorkload;
}

/** A sweep point's workload in brief (SweepReportRow.workload): what the caption and the CSV name the load by. */
export interface SweepWorkload {
  /** workload.trace as the profile writes it, when it replays one (requests and arrival_rate are then not read). */
  trace?: string;
  /** workload.requests (drawn). */
  requests?: number;
  /** workload.arrival_rate, requests/s (drawn; the offered load). */
  arrivalRate?: number;
  /** workload.seed, the draw of the arrivals and lengths (drawn; absent in reports merged before s53). */
  seed?: number;
}

/**
 * The step-time model's settings behind a point's latency figures (its run's pool.stepTime:
 * runner/simulate/step-time.ts stepTimeModel), each said where it comes from: the efficiencies and
 * overhead from the profile's step_time (where values fitted by `attnscope simulate --calibrate`
 * are written) or assumed (ASSUMED_STEP_TIME: not in the profile); under tensor parallelism the
 * all-reduce's, from the profile's step_time.all_reduce or assumed (ALL_REDUCE_EFFICIENCY and
 * ALL_REDUCE_LATENCY_S, fitted to vLLM PR #24111's H100 SXM table).
 */
export interface SweepStepTimeAssumptions {
  /** Fraction of the GPU's dense compute peak the FLOPs run at (step_time.compute_efficiency). */
  computeEfficiency: number;
  /** Fraction of its memory bandwidth the reads run at (step_time.memory_efficiency). */
  memoryEfficiency: number;
  /** Fixed milliseconds per step (step_time.overhead_ms). */
  overheadMs: number;
  /** Which of the three were assumed (not in the profile), by their profile names: compute_efficiency, memory_efficiency, overhead_ms; the others are the profile's. */
  assumed: string[];
  /**
   * tensor_parallel_size > 1: the all-reduce's fractions of the interconnect's bandwidth (vLLM's
   * one-shot and two-shot custom kernels, its multimem one; two-shot's is NCCL's ring's too) and its
   * latency per call, seconds; `given`: those the profile's step_time.all_reduce set, by their keys
   * under it (efficiency.one_shot, efficiency.two_shot, efficiency.multimem, latency_us), the rest
   * assumed (absent: none set). `ringEfficiency`: NCCL's ring's on messages past 4 MiB, its
   * large-message bus bandwidth for this GPU and tp (runner/simulate/step-time.ts
   * ringAllReduceEfficiency: 0.82 assumed, the table's NVLink-bridged pairs' measured figures, a
   * described GPU's ring_all_reduce_efficiency, or two-shot's where the profile gives it); absent in
   * reports written before s45. `nvlsBusBytesPerSec`: where NCCL runs its NVLink SHARP all-reduce
   * (NVLS) past 4 MiB in place of the ring, its bus bandwidth, bytes/s (step-time.ts nvlsAllReduce:
   * H100 SXM and H200 at 5-8 GPUs, 420-480e9); absent: the ring (and in reports written before s49).
   * `nvlsLatencyS`: NVLS's own latency a call, seconds, where its calls pay it in place of the
   * ring's steps (GpuSpec.nvlsAllReduceLatencyS: 56.7e-6 on H100 SXM and H200, fitted to Azure's
   * per-size NVLS table on 8 H200); absent under the profile's latency_us, without NVLS, on a card
   * with an NVLS bus bandwidth but no NVLS α of its own (its calls pay the ring's steps,
   * `ringStepLatencyS`), and in reports written before s50 (whose NVLS calls paid the ring's steps).
   * `ringStepLatencyS`: the ring's latency a step, seconds, where a call past 4 MiB costs
   * 2 · (tp − 1) of them (step-time.ts RING_STEP_LATENCY_S, 3.325 µs, fitted to vLLM PR #24111's
   * 37 µs at 4 MiB, TP 4; NVLS keeps it); absent where the profile's latency_us is every call's,
   * with no ring, and in reports written before s49. Absent at tp 1.
   */
  allReduce?: { oneShotEfficiency: number; twoShotEfficiency: number; multimemEfficiency: number; ringEfficiency?: number; nvlsBusBytesPerSec?: number; nvlsLatencyS?: number; ringStepLatencyS?: number; latencyS: number; given?: string[] };
}

/** `attnscope merge`'s output (also written by `sweep` and `submit --wait`). */
export interface SweepReport {
  schema: typeof SWEEP_SCHEMA_VERSION;
  kind: 'attnscope-sweep-report';
  tool: string;
  createdAt: string;
  sweepId: string;
  name: string;
  job: SweepJob;
  axes: Array<{ key: string; values: unknown[] }>;
  total: number;
  /** In point order, then environment order; a simulate sweep has one row per point (core/sweepFigures.ts splitByMachine). */
  rows: SweepReportRow[];
  /** Points no environment has a result for, in point order. */
  missing: SweepPointRef[];
  /** A point found more than once for the same environment (for a simulate sweep: in any environment; the key is the row's): the files beyond the first (which the row uses). */
  duplicates: Array<{ id: string; label: string; environmentKey: string; files: string[] }>;
  /** Each environment once, by key. */
  environments: Record<string, Environment>;
  /**
   * The models of the points, each once in point order (core/modelLabel.ts modelLabel of a point's
   * profile: "Llama-3.1-8B"; several when `model` is an axis), for titles; absent in reports merged before s36.
   */
  models?: string[];
  /**
   * Why no row is the best, when `best` is null and some row says why (results.ts noBestLines: the
   * SLO no point meets, the points the server does not keep up with, each with why; over traces, SLO
   * values or seeds the best of each; over seeds alone each figure's spread, seedSpreadText), a sentence
   * each; absent otherwise and in reports merged before s36.
   */
  noBest?: string[];
  /**
   * Set on the report `attnscope sweep` writes when it is cancelled (SIGINT / SIGTERM: the editor's
   * Cancel, a window reload) with some points in its results folder: the rows are those points,
   * `missing` the others, and running the sweep again resumes (runs only those). Absent on a
   * finished sweep's report, on merge's and in reports written before s41.
   */
  interrupted?: true;
  /**
   * Set by `attnscope sweep` on the report it writes: the profile file it ran (absolute path on the
   * machine that ran it) and the SHA-256 of its text then (UTF-8, hex), so that Resume sweep on an
   * interrupted report, opened from History in any window, runs that file, and warns when it has
   * changed since (a changed profile is another sweep: its points are not those kept), and the
   * dashboard says when the file was edited after the sweep started (extension/profileEdited.ts).
   * Absent in merge's reports, in interrupted reports written before s42 and finished ones before s45. `set`: the command line's `--set key=v1,v2` arguments, as given,
   * and `maxRate`: its --max-rate, which made the sweep another than the file's own (its axes, its
   * job, so its id and results folder); Resume passes them again (extension/sweepReports.ts
   * resumeArgs). Each absent when not given, and in reports written before s43.
   */
  profile?: { path: string; sha256: string; set?: string[]; maxRate?: true };
  /**
   * The best row under the report's rule (bestRow in runner/sweep/results.ts), or null when no
   * row qualifies. `tiedWith`: the other qualifying rows the figure cannot tell from it (a
   * measured decode time within either point's p10–p90 spread; a modelled figure equal), and
   * `tie` says so in a sentence; absent when the best is clear. `acrossMachines`: when the best
   * was chosen by measured decode time among rows of several machine kinds, a sentence saying
   * those timings do not compare and naming the fastest on each machine kind; absent otherwise.
   * `tie` names up to three tied rows and counts more (`tiedWith` lists them all). `notOnVllm`:
   * when vLLM would not run the best point on its GPU (a page_size not a multiple of 16: core/estimate
   * vllmPageSizeNote), the sentence saying so; absent otherwise. `leftOut`: the points a rule on
   * simulated rates left out because the server does not keep up with them (SweepReportRow.keepsUp), in a sentence,
   * after (a rule on cost with an SLO) the points cheaper than the best it left out for missing the SLO (runner/sweep/results.ts missesSloText).
   * `close` (a max-rate sweep): the points outside the tie but within twice the search's tolerance,
   * each with its gap and the range the searches leave it (runner/sweep/results.ts closeText).
   * `fewRequests`: when the best's SLO verdict rests on too few requests (core/format sloSampleNote), that sentence.
   * `gpuModels`: when a modelled rate ranks points on different GPU models without a price for each,
   * the sentence saying the ranking counts their GPUs alike and naming the models without one; when
   * every point is priced (ranked by $ per million output tokens), the user-given prices it used (gpuModelsText). `perSlo`: a heading line and the best of each
   * SLO value, only in reports merged before s50 (since, over an SLO axis, `best` is null and `noBest` names them). Each absent otherwise.
   * `byCost`: true when the rule ranked by $ per million output tokens (every point priced: SweepMetrics.usdPerMillionOutputTokens), which the Sweep tab then charts first; absent otherwise.
   * `tpotOverhead`: when the best point's TPOT SLO was judged at small batch with step_time.overhead_ms
   * assumed 0, the note saying what that leaves out (core/format tpotOverheadNote of its run's pool); absent otherwise and in reports merged before s42.
   * `byLatency`: true when a rule on simulated throughput or goodput ranked its top points on latency (several points within
   * its tolerance of the top rate, as every point the server keeps up with at one offered load is: runner/sweep/results.ts
   * bestRow), which the rule's words then lead with and the Sweep tab charts first (p99 TTFT); absent otherwise.
   * `tpotLower`: a best so chosen by p99 TTFT without an SLO, when a point it outranked has a lower p99 TPOT, the sentence
   * naming it and how an SLO weighs the two; absent otherwise.
   */
  best: { id: string; environmentKey: string; label: string; rule: string; byCost?: true; byLatency?: true; tpotLower?: string; tiedWith?: Array<{ id: string; environmentKey: string; label: string }>; tie?: string; fewRequests?: string; close?: string; gpuModels?: string; perSlo?: string[]; acrossMachines?: string; notOnVllm?: string; leftOut?: string; tpotOverhead?: string } | null;
}
