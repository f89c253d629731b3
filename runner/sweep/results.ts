/**
 * Sweep results on disk: one run JSON per point and environment (`<point id>-<environment
 * key>.json` in the results folder, written atomically), and the report `attnscope merge`
 * builds from the folders of any number of machines (core/protocol/sweep.ts).
 */
import { createHash } from 'node:crypto';
import * as jsonc from 'jsonc-parser';
import { lstatSync, readdirSync, statSync } from 'node:fs';
import { MAX_RESULT_TEXT_BYTES, notRegularWhy, readRegularText } from '../../core/fileText';
import { dirname, join, sep } from 'node:path';
import { runHeader, type Environment, type KernelCase, type RunResult } from '../../core/protocol/run';
import { runValueMismatch } from '../../core/protocol/runCheck';
import { CAPACITY_TOLERANCE_DEFAULT, SLO_ATTAINMENT_DEFAULT } from '../../core/protocol/latency';
import { modelledJob, SWEEP_SCHEMA_VERSION, type SweepMetrics, type SweepPointRef, type SweepPointRun, type SweepReport, type SweepReportRow, type SweepStepTimeAssumptions } from '../../core/protocol/sweep';
import { quantile } from '../simulate/latency';
import { nvlsAllReduce, profileAllReduceLink, profileGpu, RING_STEP_LATENCY_S, ringAllReduceEfficiency } from '../simulate/step-time';
import { InputError, readFailure, UsageError } from '../errors';
import { toolBuild } from '../version';
import { axisNames, axisValueText, deployedGpuCount, maxRateText, formatUsd, formatUsdCost, usdPerMillionTokens, formatCount, formatCountOf, formatDuration, formatAttainmentTarget, formatPercent, formatRequestRate, boundToWrite, fromCacheBy, fromCacheText, keepsUpOf, maxRateLimitText, perGpuRate, sloSampleNote, steadyOutput, tpotOverheadNote } from '../../core/format';
import { withinNoise, type TimingSpread } from '../../core/noise';
import { describeEnvironment, gpuPrices, reportBuilds, rowBuild, splitByMachine, sweepProvenance, TIED_LISTED } from '../../core/sweepFigures';
import { axisIndices, MAX_RATE_ARRIVAL_AXIS_TEXT, offsetToLineColumn, pointLabel } from '../../core/config';
import { jsonCutShortAt, jsonCutShortText, jsonErrorText } from '../../core/config/tree';
import { deviceGpu, flashMlaPageSizeNote, vllmPageSizeNote } from '../../core/estimate';
import { modelLabel } from '../../core/modelLabel';
import { canonicalJson, pointId } from './spec';
import { renderTable } from '../../core/textTable';

/** The report's file name inside a results folder (merge skips it when reading points). */
export const REPORT_FILE = 'sweep-report.json';

/**
 * What makes two machines give different measurements: architecture, CPU model, generation
 * (Environment.cpuSignature: family and model) and cores, the kernels' SIMD path and the CPU
 * features they dispatch on, GPU model and memory. 8 hex digits of SHA-256 over those; host names
 * and versions are left out, so identical nodes of a cluster share a key. s39 newcomer 4: the
 * name alone ("AMD EPYC") made an AVX2 Zen 3 and an AVX-512 Zen 4 VM one machine, and merge
 * dropped one's timings as duplicates. Point files written before s39 hashed arch, model, cores
 * and GPU only: merge leaves them out of a measured sweep (mergeResults), `sweep` runs their points again.
 */
export function environmentKey(env: Environment): string {
  const gpu = env.gpu ? { name: env.gpu.name, memoryBytes: env.gpu.memoryBytes } : null;
  const cpu = { arch: env.arch, cpuModel: env.cpuModel, cpuSignature: env.cpuSignature ?? null, cpuCores: env.cpuCores, simd: env.simd, cpuFeatures: [...env.cpuFeatures].sort() };
  return createHash('sha256').update(canonicalJson({ ...cpu, gpu })).digest('hex').slice(0, 8);
}

/** A point's result file name: one per point and environment, so two kinds of machine never overwrite each other. */
export function pointFileName(id: string, envKey: string): string {
  return `${id}-${envKey}.json`;
}

/**
 * Why `path` is no regular file after following links (a FIFO would block a read, /dev/zero never
 * ends, a link may lead nowhere or round in a loop), or null for a regular file.
 */
export function notRegularFile(path: string): NotAPoint | null {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { why: code === 'ELOOP' ? 'a symbolic link loop' : code === 'ENOENT' ? 'a symbolic link to nothing' : `cannot be read: ${(e as Error).message}` };
  }
  const why = notRegularWhy(st);
  return why === null ? null : { why };
}

/**
 * The text of a file in a results folder, or why it was not read: anything but a regular file
 * ({@link notRegularFile}), or a file over `maxBytes`, which is not read at all (core/fileText.ts readRegularText).
 */
export function readResultText(path: string, maxBytes: number): string | NotAPoint {
  const irregular = notRegularFile(path);
  if (irregular) return irregular;
  try {
    const r = readRegularText(path, maxBytes);
    return typeof r === 'string' ? r : { why: r.why };
  } catch (e) {
    return { why: `cannot be read: ${(e as Error).message}` };
  }
}

/**
 * Refuses, before any work, a sweep-report.json at `path` that the sweep `plan` would write over
 * and that is not its own: another sweep's report (a reused --out; a fixed folder holding another
 * sweep's results is refused, as its point files are) or a file that is no AttnScope sweep report.
 * A report of this sweep is replaced: the new one merges the same points and more.
 * @throws InputError at the file, saying what it holds.
 */
export function checkReportFile(path: string, plan: { name: string; sweepId: string }): void {
  let exists = true;
  try {
    lstatSync(path);
  } catch {
    exists = false;
  }
  if (!exists) return;
  const text = readResultText(path, MAX_RESULT_TEXT_BYTES);
  const refuse = (what: string) => new InputError(`${what}: ${plan.name} would write its report over it; give another --out or move that file`, path);
  if (typeof text !== 'string') throw refuse(`is ${text.why}, not a sweep report`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw refuse('is not JSON, so not a sweep report');
  }
  const r = value as Partial<SweepReport> | null;
  if (!r || typeof r !== 'object' || r.kind !== 'attnscope-sweep-report' || typeof r.sweepId !== 'string') throw refuse('is not an AttnScope sweep report');
  if (r.sweepId !== plan.sweepId) throw refuse(`holds the report of another sweep (${String(r.name)}, sweep ${r.sweepId}), not of ${plan.name} (sweep ${plan.sweepId})`);
}

/** Files a results folder holds beside its points and report that are no result: a Slurm sweep's script and task logs (slurm.ts), a Kubernetes sweep's Job manifest (submit --k8s). */
const SWEEP_OWN_FILE = /^(?:sweep\.sbatch|slurm-\d+_\d+\.out|sweep-job\.yaml)$/;

/**
 * Refuses, before any point runs, an existing `--out` folder that is neither empty nor a results
 * folder of the sweep `plan` (s40 newcomer 3: `--out /`, a git checkout or a folder holding another
 * sweep in a sub-folder got point files, and the merge at the end could then fail after all the
 * work). Empty: nothing but dot-files (atomic.ts's temp files) and a Slurm sweep's script and logs.
 * This sweep's: its sweep-report.json or a point file of it at the top (where it writes them);
 * then every *.json the merge reads ({@link listResultFiles}, sub-folders included) is checked
 * as the merge checks it, and a point of another sweep is refused at its file. Files that hold no
 * point stay: the merge skips them with a warning. `dir` must exist.
 * @throws UsageError (exit 2, one line) naming `flag`, the folder and an entry, when it is not this sweep's;
 *   InputError at a point file of another sweep.
 */
export function checkResultsFolder(dir: string, plan: { name: string; sweepId: string }, flag: string): void {
  const entries = readdirSync(dir).filter((n) => !n.startsWith('.') && !SWEEP_OWN_FILE.test(n)).sort();
  if (entries.length === 0) return;
  const isOwn = (n: string): boolean => {
    if (n === REPORT_FILE) return true; // checkReportFile has refused another sweep's report
    if (!/^[0-9a-f]{12}-[0-9a-f]{8}\.json$/.test(n)) return false;
    const point = readPointFile(join(dir, n));
    return !isNotAPoint(point) && point.sweep.sweepId === plan.sweepId;
  };
  if (!entries.some(isOwn)) {
    const more = entries.length > 1 ? ` and ${formatCountOf(entries.length - 1, 'more entry', 'more entries')}` : '';
    throw new UsageError(
      `${flag} ${dir}: holds ${JSON.stringify(entries[0])}${more} and no result of ${plan.name} (sweep ${plan.sweepId}): a sweep's results folder holds its own point files alone (merge reads every *.json under it); give a new or empty folder, or leave ${flag} out`,
      false,
    );
  }
  for (const file of listResultFiles(dir)) {
    const point = readPointFile(file);
    if (!isNotAPoint(point) && point.sweep.sweepId !== plan.sweepId) {
      throw new InputError(`holds a point of another sweep (${point.sweep.name}, sweep ${point.sweep.sweepId}), not of ${plan.name} (sweep ${plan.sweepId}), which the merge of ${flag} ${dir} would read: give another ${flag} or move that file`, file);
    }
  }
}

/**
 * The most of a point file that is read: 64 MiB. A point file is one run JSON: its profile, the
 * machine, at most 800 pool samples (worker.ts POINT_POOL_SAMPLES) and, for a benchmark, at most
 * 10,000 timing samples per case (the timing loop's maxReps), a few MB for a bench of tens of
 * cases; a bigger *.json in a results folder is something else, and is skipped unread.
 */
export const MAX_POINT_BYTES = 64 * 2 ** 20;

/**
 * Why a file in a results folder holds no point run, in words ('not JSON', 'a FIFO, not a regular
 * file', ...), and where in it (1-based line and column) when a place in the text is to blame.
 */
export interface NotAPoint {
  why: string;
  /** A measured point whose stored environment key is not what environmentKey gives for its environment (a file of a build before s39). */
  otherKey?: true;
  line?: number;
  column?: number;
}


/**
 * Why `text` (which JSON.parse refused) is not JSON, at the first error jsonc-parser finds. A
 * file whose text is a prefix of valid JSON (empty; the first error where the text runs out, or
 * a string, number or true/false/null the end cuts off) was cut short: sweep writes each point
 * atomically (a stopped run leaves no partial file), so an interrupted copy or a full disk did
 * it, and the point is to be copied or run again. Anything else (`garbage`, `{"a": 1,}`) is not JSON.
 */
function notJson(text: string): NotAPoint {
  const end = jsonCutShortAt(text);
  if (end !== null) {
    return {
      ...offsetToLineColumn(text, end),
      why:
        `${jsonCutShortText(Buffer.byteLength(text))} ` +
        '(sweep writes each point whole, atomically). Copy it again from the machine that ran it, or rerun `attnscope sweep` with this folder as --out on a machine of its kind: ' +
        'it runs again every point whose file it cannot read',
    };
  }
  const errors: jsonc.ParseError[] = [];
  jsonc.parse(text, errors, { disallowComments: true, allowTrailingComma: false });
  const first = errors[0]!;
  return { ...offsetToLineColumn(text, first.offset), why: `not JSON: ${jsonErrorText(first.error)}` };
}

/** Whether readPointFile found no point run. */
export function isNotAPoint(r: SweepPointRun | NotAPoint): r is NotAPoint {
  return 'why' in r;
}

/**
 * The point run in `path`, or why it is not one: not a regular file, over {@link MAX_POINT_BYTES}
 * (readResultText: neither is read), not JSON or cut short, JSON of something else (a report,
 * another run), or a point with a value of another kind than the run schema gives it
 * (core/protocol/runCheck.ts: at that value; keys missing or unknown, a file of another build, pass).
 */
export function readPointFile(path: string): SweepPointRun | NotAPoint {
  const text = readResultText(path, MAX_POINT_BYTES);
  if (typeof text !== 'string') return text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return notJson(text);
  }
  const v = value as Partial<SweepPointRun> | null;
  const s = v?.sweep;
  if (!v || typeof v !== 'object' || !s || s.schema !== SWEEP_SCHEMA_VERSION || typeof s.sweepId !== 'string' || typeof s.id !== 'string' || !Array.isArray(s.axes) || !v.environment) return { why: 'not a sweep point result' };
  // A point whose value is of another kind than a run file's ("meanOccupancy": "abc", "kind": "simulat"):
  // edited by hand or written by something else, so none of its figures is taken (s53 newcomer 1).
  const wrong = runValueMismatch(value, text);
  if (wrong) {
    return {
      ...offsetToLineColumn(text, wrong.offset),
      why: `${wrong.message}: not a point file as sweep writes it (edited by hand?). Copy it again from the machine that ran it, or rerun \`attnscope sweep\` with this folder as --out: it runs again every point whose file it cannot read`,
    };
  }
  return v as SweepPointRun;
}

/**
 * Every *.json under `dir` (sub-folders included, each once however many links lead to it;
 * dot-files and the report left out), sorted. An entry whose links cannot be followed (a loop,
 * a link to nothing) is listed as it is, for readPointFile to say why it is skipped.
 * @throws the fs error when `dir` itself cannot be read.
 */
export function listResultFiles(dir: string): string[] {
  const out: string[] = [];
  const walked = new Set<string>();
  const walk = (d: string) => {
    const st = statSync(d);
    if (walked.has(`${st.dev}:${st.ino}`)) return;
    walked.add(`${st.dev}:${st.ino}`);
    for (const name of readdirSync(d).sort()) {
      if (name.startsWith('.')) continue;
      const p = join(d, name);
      let entry;
      try {
        entry = statSync(p);
      } catch {
        entry = undefined;
      }
      if (entry?.isDirectory()) walk(p);
      else if (name.endsWith('.json') && name !== REPORT_FILE) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** The decode case a point's decode figure comes from: the one with most sequences, then the longest context. */
function decodeCaseOf(cases: KernelCase[]): KernelCase | undefined {
  return cases
    .filter((c) => c.kernel === 'paged_decode')
    .sort((a, b) => b.shape.batchSize - a.shape.batchSize || b.shape.seqLenK - a.shape.seqLenK)[0];
}

/**
 * What `run`'s step times assumed (SweepReportRow.stepTime): its pool.stepTime's efficiencies,
 * overhead (perStepS in ms) and which were assumed; under tensor parallelism (allReduceS charged)
 * the all-reduce's efficiencies and latency, its profile's step_time.all_reduce where given
 * (`given`), else this build's defaults (runner/simulate/step-time.ts profileAllReduceLink). Undefined
 * without a simulation, or for a run whose step-time model names no efficiency (coefficients given by the caller).
 */
export function stepTimeAssumptionsOf(run: RunResult): SweepStepTimeAssumptions | undefined {
  const st = run.pool?.stepTime;
  if (!st || st.computeEfficiency === undefined || st.memoryEfficiency === undefined) return undefined;
  return {
    computeEfficiency: st.computeEfficiency,
    memoryEfficiency: st.memoryEfficiency,
    overheadMs: st.perStepS * 1e3,
    assumed: (st.assumed ?? []).filter((k) => !k.startsWith('all_reduce.')),
    ...(st.allReduceS !== undefined ? { allReduce: allReduceOf(run) } : {}),
  };
}

/**
 * A run's all-reduce figures (SweepStepTimeAssumptions.allReduce): its profile's step_time.all_reduce, the rest this build's defaults,
 * and NCCL's ring's large-message efficiency for its GPU and tensor_parallel_size (step-time.ts ringAllReduceEfficiency; left out for a
 * GPU name this build's table lacks), and NVLS's bus bandwidth and latency a call where NCCL runs it past 4 MiB instead (step-time.ts
 * nvlsAllReduce; left out for a GPU name this build's table lacks).
 */
function allReduceOf(run: RunResult): NonNullable<SweepStepTimeAssumptions['allReduce']> {
  const link = profileAllReduceLink(run.profile);
  let ring: number | undefined;
  let nvls: ReturnType<typeof nvlsAllReduce>;
  try {
    const gpu = profileGpu(run.profile);
    const tp = run.profile.device.tensorParallelSize;
    ring = ringAllReduceEfficiency(gpu, tp, link).efficiency;
    nvls = nvlsAllReduce(gpu, tp, link);
  } catch {
    ring = undefined;
  }
  // The ring's step latency where its calls pay it (step-time.ts ringCallLatencyS: not under the profile's latency_us), so the Sweep tab prints the runner's figure.
  const ringStep = ring !== undefined && !link.given.includes('latency_us') ? { ringStepLatencyS: RING_STEP_LATENCY_S } : {};
  // NVLS's own latency a call where its calls pay it (step-time.ts nvlsAllReduce: the card's fitted α; not under latency_us, nor
  // on a card with no NVLS α, whose calls pay the ring's steps: ringStepLatencyS).
  const nvlsLatency = nvls?.latencyFrom === 'nvls' ? { nvlsLatencyS: nvls.latencyS } : {};
  return { oneShotEfficiency: link.efficiency.oneShot, twoShotEfficiency: link.efficiency.twoShot, multimemEfficiency: link.efficiency.multimem, ...(ring !== undefined ? { ringEfficiency: ring } : {}), ...(nvls !== undefined ? { nvlsBusBytesPerSec: nvls.busBytesPerSec } : {}), ...nvlsLatency, ...ringStep, latencyS: link.latencyS, given: link.given };
}

/**
 * A point's figures: the pool simulation's summary (internal fragmentation, prefix-cache hit
 * rate, preemptions, pool pages, occupancy, throughput, rejected), for a max-rate point its
 * capacity search's answer (pool.capacity: the max rate, per GPU, what bounds it) and, for a benchmark, the
 * measured paged_decode time per generated token (median ns of one decode step / batch size).
 */
export function metricsOf(run: RunResult): SweepMetrics {
  const m: SweepMetrics = { gpus: deployedGpuCount(run.profile.device) };
  const s = run.pool?.summary;
  if (run.pool && s) {
    m.internalFragmentation = s.meanInternalFragmentation;
    m.prefixHitRate = s.prefixHitRate;
    m.preemptions = s.preemptions;
    m.poolPages = run.pool.numPages;
    m.meanOccupancy = s.meanOccupancy;
    m.throughputTokensPerSec = s.throughputTokensPerSec;
    const steady = steadyOutput(run.pool);
    if (steady) m.steadyOutputTokensPerSec = steady.outputTokensPerSec;
    if (steady?.requestsPerSec !== undefined) m.steadyRequestsPerSec = steady.requestsPerSec;
    m.rejected = s.rejected;
    if (run.estimate?.kvBytesPerToken !== undefined) m.kvBytesPerToken = run.estimate.kvBytesPerToken;
    if (run.estimate?.pageBytes !== undefined) m.pageBytes = run.estimate.pageBytes;
    const lat = run.pool.latency;
    if (lat) {
      if (lat.ttft) m.p99TtftS = lat.ttft.p99;
      if (lat.tpot) m.p99TpotS = lat.tpot.p99;
      if (lat.sloAttainment !== undefined) {
        m.sloAttainment = lat.sloAttainment;
        m.sloRequests = lat.requests;
      }
      if (lat.goodputRequestsPerSec !== undefined) {
        m.goodputRequestsPerSec = lat.goodputRequestsPerSec;
        m.goodputPerGpuRequestsPerSec = perGpuRate(lat.goodputRequestsPerSec, m.gpus);
      }
      if (lat.slo?.ttftMs !== undefined) m.sloTtftMs = lat.slo.ttftMs;
      if (lat.slo?.tpotMs !== undefined) m.sloTpotMs = lat.slo.tpotMs;
      if (lat.slo?.attainment !== undefined) m.sloAttainmentTarget = lat.slo.attainment;
      if (lat.ttft && lat.slo) m.p90TtftS = lat.ttft.p90;
      if (lat.tpot && lat.slo) m.p90TpotS = lat.tpot.p90;
      if (lat.queue && lat.slo) {
        m.p90QueueS = lat.queue.p90;
        m.p99QueueS = lat.queue.p99;
      }
    }
  }
  const c = run.pool?.capacity;
  if (c) {
    m.maxRateLimit = c.maxRate === null ? 'unmet' : c.unbounded ? 'unbounded' : (c.limit ?? 'slo');
    if (c.maxRate !== null) {
      m.maxRateRequestsPerSec = c.maxRate;
      m.maxRatePerGpuRequestsPerSec = perGpuRate(c.maxRate, m.gpus);
    }
  }
  priceMetrics(m, run.profile.device.gpuHourUsd);
  const dc = decodeCaseOf(run.cases ?? []);
  if (dc) {
    m.decodeNsPerToken = dc.medianNs / dc.shape.batchSize;
    m.decodeP10NsPerToken = dc.p10Ns / dc.shape.batchSize;
    m.decodeP90NsPerToken = dc.p90Ns / dc.shape.batchSize;
    m.decodeCase = `B=${dc.shape.batchSize} context=${dc.shape.seqLenK}`;
    // Read from cache, not DRAM: by the run's cache size or its pages' read-alone rate (core/format.ts fromCacheBy).
    const fromCache = fromCacheBy(dc, run.environment);
    if (fromCache) m.decodeFromCache = fromCache;
    // The words `attnscope bench` prints, for the sweep table's notes and the Sweep tab.
    const fromCacheWords = fromCacheText(dc, run.environment);
    if (fromCacheWords) m.decodeFromCacheText = fromCacheWords;
  }
  return m;
}

/**
 * Puts the user's price per GPU-hour `gpuHourUsd` on a row's figures `m` (in place; undefined takes
 * it off) and the modelled $ per million output tokens it gives (core/format.ts usdPerMillionTokens
 * over m.gpus and the steady output rate m.steadyOutputTokensPerSec, core/format.ts steadyOutput: a
 * max-rate row's max rate, else the offered rate or μ, × the mean output tokens a request), which a
 * max-rate row has only where some rate met the SLO.
 */
export function priceMetrics(m: SweepMetrics, gpuHourUsd: number | undefined): void {
  delete m.gpuHourUsd;
  delete m.usdPerMillionOutputTokens;
  if (gpuHourUsd === undefined) return;
  m.gpuHourUsd = gpuHourUsd;
  if (m.steadyOutputTokensPerSec === undefined || (m.maxRateLimit !== undefined && m.maxRateRequestsPerSec === undefined)) return;
  const usd = usdPerMillionTokens(gpuHourUsd, m.gpus ?? 1, m.steadyOutputTokensPerSec);
  if (usd !== null) m.usdPerMillionOutputTokens = usd;
}

/** Every point of a sweep from its axes, in index order (the expansion of spec.ts: first axis slowest). */
export function pointsOfAxes(axes: Array<{ key: string; values: unknown[] }>): SweepPointRef[] {
  const total = axes.reduce((n, a) => n * a.values.length, 1);
  const out: SweepPointRef[] = [];
  const sizes = axes.map((a) => a.values.length);
  for (let index = 0; index < total; index++) {
    const digits = axisIndices(index, sizes);
    const values = Object.fromEntries(axes.map((a, k) => [a.key, a.values[digits[k]!]]));
    out.push({ id: pointId(values), index, values, label: pointLabel(values) });
  }
  return out;
}

/** The fraction of a row's requests that must meet its profile's SLO for the row to meet it (slo.attainment, default 0.9). */
export const attainmentTarget = (m: SweepMetrics): number => m.sloAttainmentTarget ?? SLO_ATTAINMENT_DEFAULT;

/** ">= 99 %" when every row asks the same fraction, else "its profile's slo.attainment". */
function targetWords(rows: readonly SweepReportRow[]): string {
  const targets = new Set(rows.map((r) => attainmentTarget(r.metrics)));
  return targets.size === 1 ? `>= ${formatAttainmentTarget([...targets][0]!)}` : "the point's slo.attainment";
}

/** The best row, the rule that chose it, and the rows it is tied with (see {@link SweepReport.best}). */
export interface BestRow {
  row: SweepReportRow;
  rule: string;
  tiedWith: SweepReportRow[];
  /** Why they are tied, in a sentence; '' when the best is clear. */
  tie: string;
  /** Rows the rule would have weighed but left out, the server not keeping up with them (SweepReportRow.keepsUp false). */
  leftOut: SweepReportRow[];
  /** A rule on cost with an SLO: the rows cheaper than the best that it left out for missing the SLO, cheapest first; absent otherwise. */
  missesSlo?: SweepReportRow[];
  /**
   * A max-rate ranking only: the points outside the tie but within twice the search's tolerance of
   * the best, with their gap and the range the two searches leave it, in a sentence; '' when none.
   */
  close: string;
  /** Whether the rule ranked its top points (within its tolerance of the top rate) on latency: SweepReport.best.byLatency. */
  byLatency?: boolean;
  /** A best so chosen on p99 TTFT without an SLO: the point it outranked with a lower p99 TPOT, in a sentence (SweepReport.best.tpotLower); absent otherwise. */
  tpotLower?: string;
}

/**
 * The sentence naming the rows left out of the best for the server not keeping up with them
 * (up to {@link TIES_NAMED}, then a count), or '' when none.
 */
export function leftOutText(rows: readonly SweepReportRow[]): string {
  if (rows.length === 0) return '';
  const named = rows.slice(0, TIES_NAMED).map((r) => `${r.label} (${r.notKeptUp ?? 'does not keep up'})`).join('; ');
  const more = rows.length > TIES_NAMED ? `; and ${formatCountOf(rows.length - TIES_NAMED, 'other point')}` : '';
  return `left out, the modelled server not keeping up (a finite run ends before such a queue has grown, so its latency and goodput flatter it): ${named}${more}`;
}

/**
 * The sentence naming the rows cheaper than the best that a rule on cost left out for missing the
 * SLO (up to {@link TIES_NAMED}, then a count), each with its $ per 1M output tokens, the share of
 * its requests meeting the SLO and, where so, that the server does not keep up; '' when none.
 */
export function missesSloText(rows: readonly SweepReportRow[]): string {
  if (rows.length === 0) return '';
  const named = rows.slice(0, TIES_NAMED).map((r) => `${r.label} (${formatUsdCost(r.metrics.usdPerMillionOutputTokens!)}; ${formatPercent(r.metrics.sloAttainment ?? 0, 1)} of requests meet it, asks ${formatAttainmentTarget(attainmentTarget(r.metrics))}${r.keepsUp === false ? '; does not keep up' : ''})`).join('; ');
  const more = rows.length > TIES_NAMED ? `; and ${formatCountOf(rows.length - TIES_NAMED, 'other point')}` : '';
  return `cheaper but left out, missing the SLO: ${named}${more}`;
}

/** A row's measured decode time per token with its spread (a point file from before the spread was kept: p10 = p90 = median). */
function decodeSpread(m: SweepMetrics): TimingSpread {
  const median = m.decodeNsPerToken!;
  return { median, p10: m.decodeP10NsPerToken ?? median, p90: m.decodeP90NsPerToken ?? median };
}

/** Rows a tie sentence names one by one; more are counted (a page_size × max_num_seqs sweep tied 63 points, ~2,000 characters on one line). */
export const TIES_NAMED = 3;

/**
 * Simulated rates (goodput, output throughput) this close to the best, relative, count as equal:
 * 1 %. Without rejections the simulated throughput is the offered load, so every point of an
 * arrival-rate or page-size sweep that keeps up lands within a fraction of a percent of the others
 * (7,752 against 7,751 tokens/s), and the rate alone says nothing about which to pick.
 */
export const SIMULATED_RATE_TOLERANCE = 0.01;

/**
 * The start of the best-point rules on cost, which every GPU model's user-given price allows
 * (SweepMetrics.usdPerMillionOutputTokens): output tokens per dollar, ties within the rate's tolerance.
 */
const COST_RULE = 'lowest modelled $ per million output tokens, at the user-given prices per GPU-hour: price × GPUs (tensor_parallel_size × pipeline_parallel_size × data_parallel_size) / 3600 / (steady requests/s × mean output tokens a request) × 10^6,';

/** The best-point rule of a sweep that measured its points and set no SLO. */
const MEASURED_RULE = 'lowest measured decode time per token among points that reject no request';

/**
 * Mean KV bytes a row's pool held: occupancy · pages · the bytes of one page (Estimate.pageBytes:
 * page_size · KV bytes of a token across all layers, or for a hybrid pool, whose block holds
 * page_size tokens of one KV-cache group's layers only, page_size · group size · bytes per layer;
 * gemma-3-1b: 4 of 26 layers, so page_size · kvBytesPerToken would count 6.5 times the bytes
 * held). What a larger page wastes shows here, and a point of an fp8 KV cache holds a page in half
 * the bytes of an fp16 one. A row from a point file without the page's bytes (before s35) falls
 * back to page_size · KV bytes per token, and without those to slots alone.
 */
function kvBytesHeld(r: SweepReportRow): number {
  const held = (r.metrics.meanOccupancy ?? 0) * (r.metrics.poolPages ?? 0);
  if (r.metrics.pageBytes !== undefined) return held * r.metrics.pageBytes;
  const ps = Number(r.values['kv_cache.page_size'] ?? 1);
  return held * (Number.isFinite(ps) ? ps : 1) * (r.metrics.kvBytesPerToken ?? 1);
}

/**
 * The sentence naming the points a searched rate (a max-rate sweep's capacity search, relative
 * tolerance `tol`) puts within 2 · tol of the best `top` but outside the tie (rate >= top · (1 − tol)),
 * each with its gap below the best, and what the two searches leave of it: each answer A says the
 * limit lies in [A, A · (1 + tol)) (runner/simulate/capacity.ts searchCapacity), so a gap g = top / r − 1
 * lies between top / (r · (1 + tol)) − 1 and top · (1 + tol) / r − 1. F3 of s42 newcomer-ed:
 * 2.85 against 2.79 per GPU, 2.2 % apart, 0.2 % to 4.2 % by the searches: no clear winner on
 * max rate alone. '' when no point is that close.
 */
function closeText(rows: readonly SweepReportRow[], rate: (r: SweepReportRow) => number, top: number, tol: number, what: string): string {
  const close = rows.filter((r) => rate(r) >= top * (1 - 2 * tol)).sort((a, b) => rate(b) - rate(a));
  if (close.length === 0) return '';
  const pct = (x: number) => formatPercent(x, 1);
  const named = close.slice(0, TIES_NAMED).map((r) => {
    const x = rate(r);
    return `${r.label} ${pct(top / x - 1)} below (${pct(Math.max(0, top / (x * (1 + tol)) - 1))} to ${pct(top * (1 + tol) / x - 1)} by the searches)`;
  }).join('; ');
  const more = close.length > TIES_NAMED ? `; and ${formatCountOf(close.length - TIES_NAMED, 'other point')}` : '';
  return `close, not a clear winner on ${what} alone: ${named}${more}; each max rate is searched to ${formatPercent(tol, 0)} (the limit lies between it and ${formatPercent(tol, 0)} above), and the SLO's percentile on a finite seeded run moves it too: weigh price, headroom or latency`;
}

/**
 * The best row and the rule that chose it. With an SLO: among rows where >= 90 % of requests
 * meet it, the highest goodput. Without: among rows that rejected no request, the lowest
 * measured decode time per token when the points were benchmarked, else the highest simulated
 * output throughput, each at steady state where the row has it (SweepMetrics.steadyOutputTokensPerSec; goodput:
 * steadyRequestsPerSec · sloAttainment): a point the server keeps up with serves its offered load, whatever the
 * finite run's tail. A simulated rate (goodput, throughput) within {@link SIMULATED_RATE_TOLERANCE}
 * of the highest is a tie (every kept-up point at one offered load: the rule's words then lead with the latency
 * that ranked them, latencyRuleText), broken by a point vLLM runs (`runsOnVllm`, default every point: the
 * report passes core/estimate vllmPageSizeNote's verdict on each point's page_size and GPU), then
 * by the lower p99 TTFT, then by the fewer KV bytes held ({@link kvBytesHeld}), then by point order. The two rules on simulated rates weigh only rows the
 * server keeps up with (SweepReportRow.keepsUp not false; the others come back as `leftOut`):
 * above the saturated throughput a finite run flatters a point, and across an arrival-rate axis
 * the highest throughput would be the first saturated rate. Null when no row qualifies. The rows the figure
 * cannot tell from the best come with it: a measured decode time within the noise
 * (core/noise.ts withinNoise), a simulated rate within the tolerance. `name` spells a row in the
 * tie sentence (default its label; a report of several environments adds the env letter, else one
 * point on two machines reads as tied with itself). Null too across the traces of a workload.trace
 * axis: each is its own load; and, for a rule judged by the SLO (max rate, goodput), across the
 * values of an SLO axis: the loosest admits the highest rate by definition ({@link noBestLines}
 * names a best per trace and per SLO value); and across the values of a workload.seed axis: a seed is a draw of the
 * load, not a setting ({@link noBestLines} gives the spread, or the best of each seed).
 */
export function bestRow(rows: readonly SweepReportRow[], name: (r: SweepReportRow, best: SweepReportRow) => string = (r) => r.label, runsOnVllm: (r: SweepReportRow) => boolean = () => true): BestRow | null {
  const ok = rows.filter((r) => r.status === 'ok');
  // Points with the same figures are the same run (an axis the job does not read): none is the best, they tie (noBestLines says so).
  if (sameFigures(ok)) return null;
  // Points replaying different traces serve different loads: no best across them (noBestLines names one per trace; s49 newcomer M2).
  if (tracesOf(ok).length > 1) return null;
  // A rule judged by the SLO across SLO values: the loosest admits the highest rate by definition (noBestLines names one per SLO value; s49 newcomer L1).
  if (sloRanked(ok) && sloKeysOf(ok).length > 0) return null;
  // A seed is a sample of the load, not a setting: no best across seeds (noBestLines gives their spread, or the best of each seed; s52 nc-cli M2).
  if (seedsOf(ok).length > 1) return null;
  const pick = (cands: SweepReportRow[], score: (r: SweepReportRow) => number, rule: string, tied: (a: SweepReportRow, b: SweepReportRow) => boolean, tieWords: string) => {
    const best = cands.reduce<SweepReportRow | null>((b, r) => (b === null || score(r) > score(b) ? r : b), null);
    if (!best) return null;
    const tiedWith = cands.filter((r) => r !== best && tied(best, r));
    const tiedText = tiedWith.length <= TIES_NAMED ? tiedWith.map((r) => name(r, best)).join(', ') : `${formatCount(tiedWith.length)} other points ${TIED_LISTED}`;
    const tie = tiedWith.length === 0 ? '' : `tied with ${tiedText}: ${tieWords}`;
    return { row: best, rule, tiedWith, tie, leftOut: [] as SweepReportRow[], close: '' };
  };
  const tieBreakWords = (tol: number) => `; ties (within ${formatPercent(tol, 0)}) go to a point vLLM runs, then to the lower p99 TTFT (within ${formatPercent(TTFT_TIE_TOLERANCE, 0)} a tie), then to the fewer KV bytes held (mean occupancy · pages · bytes of a page: page_size · KV bytes per token, or for a hybrid pool page_size · the bytes of one KV-cache group's layers)`;
  /** The rows within the tolerance of the highest `rate`, ranked by the tie-break; the winner scores highest. */
  // A rule on simulated rates weighs only points the server keeps up with (s34 newcomer-cli 6, 7:
  // above the saturated throughput a finite run still meets the SLO, and across arrival rates the
  // highest throughput was the first saturated point).
  const judged = ok.some((r) => r.keepsUp !== undefined);
  // Points on different GPU counts (a tensor_parallel_size, pipeline_parallel_size or data_parallel_size axis: tp × pp × dp GPUs) are ranked per GPU: the raw rate
  // picked the point with the most GPUs (s38 newcomer 3: tp 8 at 9.32 goodput over tp 4 at 5.89,
  // 1.17 against 1.47 requests/s per GPU).
  const perGpu = new Set(ok.map((r) => r.metrics.gpus ?? 1)).size > 1;
  const byGpu = (rate: (r: SweepReportRow) => number) => (perGpu ? (r: SweepReportRow) => perGpuRate(rate(r), r.metrics.gpus) : rate);
  const gpuWords = perGpu ? ' per GPU (the points use different GPU counts, tensor_parallel_size × pipeline_parallel_size × data_parallel_size: each rate / its GPUs)' : '';
  const keptUp = judged ? ' the server keeps up with (rate <= the saturated throughput μ, queue not growing)' : '';
  const pickRate = (among: SweepReportRow[], rate: (r: SweepReportRow) => number, ruleText: string, what: string, tol = SIMULATED_RATE_TOLERANCE, searched = false, latency?: LatencyRule) => {
    const pct = formatPercent(tol, 0);
    // Across an offered-rate axis a simulated rate follows the load: the points are compared at the highest rate one of them keeps up with.
    const atRate = searched ? null : offeredRateCompared(among);
    const all = atRate ? among.filter((r) => r.keepsUp === false || offeredRate(r) === atRate.rate) : among;
    const cands = all.filter((r) => r.keepsUp !== false);
    const leftOut = all.filter((r) => r.keepsUp === false);
    const top = Math.max(...cands.map(rate));
    const near = (r: SweepReportRow) => rate(r) >= top * (1 - tol);
    // A tied point vLLM runs before one it does not (s33: the fewest bytes held always picked page_size 1, which vLLM refuses on a GPU).
    const ranked = rankOnLatency(cands.filter(near), runsOnVllm);
    const winner = ranked[0];
    if (!winner) return null;
    // Several points at the top rate (every point the server keeps up with at one offered load serves that load: s52
    // nc-cli, 5,733 against 5,626 tokens/s at one 24 requests/s was the finite run's tail): latency ranked them, and the rule says so first.
    const onLatency = latency !== undefined && ranked.length > 1;
    const ruleHead = onLatency ? latencyRuleText(winner, ranked, rate, tol, what, latency, runsOnVllm) : ruleText + tieBreakWords(tol);
    const rule = atRate ? `${atRate.words}: ${ruleHead}` : ruleHead;
    const chosen = pick(cands, (r) => (r === winner ? 1 : 0), rule, (a, b) => near(a) && near(b), `${what} within ${pct}, so the tie went to a point vLLM runs, then to the lower p99 TTFT (within ${formatPercent(TTFT_TIE_TOLERANCE, 0)} a tie), then to fewer KV bytes held`);
    const tpotLower = onLatency && latency.tpotNote ? tpotLowerText(winner, ranked, (r) => name(r, winner)) : '';
    return chosen && { ...chosen, leftOut, close: searched ? closeText(cands.filter((r) => !near(r)), rate, top, tol, what) : '', ...(onLatency ? { byLatency: true } : {}), ...(tpotLower ? { tpotLower } : {}) };
  };
  // With the user's price for every point's GPU, what a token costs ranks (output tokens per dollar, the higher the better), not a rate per GPU that counts every model's GPU alike.
  const priced = (rs: SweepReportRow[]) => rs.length > 0 && rs.every((r) => r.metrics.usdPerMillionOutputTokens !== undefined);
  const perDollar = (r: SweepReportRow) => 1 / r.metrics.usdPerMillionOutputTokens!;
  if (ok.some((r) => r.metrics.maxRateLimit !== undefined)) {
    const searched = ok.filter((r) => r.metrics.maxRateRequestsPerSec !== undefined);
    if (priced(searched)) {
      return pickRate(searched, perDollar, `${COST_RULE} at each point's max rate (its highest arrival rate at which ${targetWords(ok)} of requests meet the profile's SLO and the modelled server keeps up: capacity search)`, 'output tokens per dollar', CAPACITY_TOLERANCE_DEFAULT, true);
    }
    // A max-rate sweep: the rate each point sustains under the SLO decides, per GPU whatever the counts
    // (a point on twice the GPUs must sustain twice the rate); rates within the search's tolerance tie.
    return pickRate(ok.filter((r) => r.metrics.maxRateRequestsPerSec !== undefined), (r) => perGpuRate(r.metrics.maxRateRequestsPerSec!, r.metrics.gpus),
      `highest max rate per GPU: each point's highest arrival rate at which ${targetWords(ok)} of requests meet the profile's SLO and the modelled server keeps up (capacity search), / its GPUs (tensor_parallel_size × pipeline_parallel_size × data_parallel_size)`, 'max rate per GPU', CAPACITY_TOLERANCE_DEFAULT, true);
  }
  if (ok.some((r) => r.metrics.sloAttainment !== undefined)) {
    // At steady state (s52): a point the server keeps up with serves its offered rate, of which the SLO's share meets it.
    const goodput = (r: SweepReportRow) => (r.metrics.steadyRequestsPerSec !== undefined && r.metrics.sloAttainment !== undefined ? r.metrics.steadyRequestsPerSec * r.metrics.sloAttainment : r.metrics.goodputRequestsPerSec ?? 0);
    const meeting = ok.filter((r) => (r.metrics.sloAttainment ?? 0) >= attainmentTarget(r.metrics));
    if (priced(meeting)) {
      const chosen = pickRate(meeting, perDollar, `${COST_RULE} at the simulated load, among points where ${targetWords(ok)} of requests meet the profile's SLO${keptUp ? ` and${keptUp}` : ''}`, 'output tokens per dollar');
      // The cheaper points the SLO left out, named with why (s44 newcomer-ed F1: RTX 4090 at $0.093, 8.5 % meeting, unnamed beside the best A100 80GB at $0.180).
      const usd = (r: SweepReportRow) => r.metrics.usdPerMillionOutputTokens;
      const cheaper = chosen ? ok.filter((r) => !meeting.includes(r) && usd(r) !== undefined && usd(r)! < usd(chosen.row)!).sort((a, b) => usd(a)! - usd(b)!) : [];
      return chosen && { ...chosen, missesSlo: cheaper };
    }
    const amongMeeting = `where ${targetWords(ok)} of requests meet the profile's SLO${keptUp ? ` and${keptUp}` : ''}`;
    const steadyGoodput = meeting.some((r) => r.metrics.steadyRequestsPerSec !== undefined);
    return pickRate(meeting, byGpu(goodput),
      `highest simulated goodput${gpuWords}${steadyGoodput ? STEADY_GOODPUT_WORDS : ''} among points ${amongMeeting}`, 'simulated goodput', undefined, false, { among: amongMeeting, tpotNote: false });
  }
  const served = ok.filter((r) => (r.metrics.rejected ?? 0) === 0);
  if (served.some((r) => r.metrics.decodeNsPerToken !== undefined)) {
    return pick(served.filter((r) => r.metrics.decodeNsPerToken !== undefined), (r) => -r.metrics.decodeNsPerToken!, MEASURED_RULE,
      (a, b) => withinNoise(decodeSpread(a.metrics), decodeSpread(b.metrics)), 'tied within measurement noise (a median inside the other\'s p10–p90 range), so any of them may be the fastest');
  }
  const simulated = served.filter((r) => r.metrics.throughputTokensPerSec !== undefined);
  if (priced(simulated)) return pickRate(simulated, perDollar, `${COST_RULE} at the simulated load, among points that reject no request${keptUp ? ` and${keptUp}` : ''}`, 'output tokens per dollar');
  // At steady state (s52): a point the server keeps up with serves its offered rate × its mean output tokens, whatever the finite run's tail.
  const amongServed = `that reject no request${keptUp ? ` and${keptUp}` : ''}`;
  const steadyOut = simulated.some((r) => r.metrics.steadyOutputTokensPerSec !== undefined);
  return pickRate(simulated, byGpu((r) => r.metrics.steadyOutputTokensPerSec ?? r.metrics.throughputTokensPerSec!),
    `highest simulated output throughput${gpuWords}${steadyOut ? STEADY_OUTPUT_WORDS : ''} among points ${amongServed}`, 'simulated throughput', undefined, false, { among: amongServed, tpotNote: true });
}

/** What the latency rule says of a p99 TTFT: one seeded run's (the line over seeds says the median's instead). */
const ONE_SEED_WORDS = "one seeded run's: a workload.seed axis shows its spread";

/** A row's p99 TTFT, seconds; Infinity where it has none (ranks last). */
const ttftOf = (r: SweepReportRow): number => r.metrics.p99TtftS ?? Infinity;

/**
 * The band within which two p99 TTFTs tie, relative to the lower: 1 %, the tolerance of the simulated rates
 * ({@link SIMULATED_RATE_TOLERANCE}). A p99 of a finite seeded run moves by more than that with the draws alone
 * (s52: 10 % over seeds 1..3 at 500 requests), so a difference inside it is no ground to prefer a point that holds
 * more KV bytes (s52 nc-cli: 11.1 ms at three arrival rates told apart in the 4th digit).
 */
export const TTFT_TIE_TOLERANCE = SIMULATED_RATE_TOLERANCE;

/** Whether p99 TTFTs `a` and `b` (seconds) tie: within {@link TTFT_TIE_TOLERANCE} of the lower. */
export function ttftTies(a: number, b: number): boolean {
  return Math.abs(a - b) <= TTFT_TIE_TOLERANCE * Math.min(a, b);
}

/**
 * `rows` (tied on a rate) in the order the latency tie-break puts them, best first: a point vLLM runs before one it does
 * not; within each, the lowest p99 TTFT and every point whose p99 TTFT ties it ({@link ttftTies}, a band anchored at
 * the lowest, so the order does not depend on which pairs are compared) ranked among themselves on the fewer KV bytes
 * held ({@link kvBytesHeld}), then point order; then the same over the points left. The one ranking of the CLI's best
 * line and the Sweep tab, which shows the report's best.
 */
function rankOnLatency(rows: readonly SweepReportRow[], runsOnVllm: (r: SweepReportRow) => boolean): SweepReportRow[] {
  const left = [...rows].sort((a, b) => Number(runsOnVllm(b)) - Number(runsOnVllm(a)) || ttftOf(a) - ttftOf(b));
  const out: SweepReportRow[] = [];
  while (left.length > 0) {
    const first = left[0]!;
    const band = left.filter((r) => runsOnVllm(r) === runsOnVllm(first) && (ttftOf(r) === ttftOf(first) || ttftTies(ttftOf(first), ttftOf(r))));
    // Stable: points with the same bytes held keep their order (the rows' point order, as the sort above keeps it among equal TTFTs).
    band.sort((a, b) => kvBytesHeld(a) - kvBytesHeld(b));
    out.push(...band);
    for (const r of band) left.splice(left.indexOf(r), 1);
  }
  return out;
}

/** Why a simulated throughput ranks at steady state, said after its name in the rule (s52 nc-cli M1). */
const STEADY_OUTPUT_WORDS = " at steady state (a point the server keeps up with serves its offered load: offered requests/s × mean output tokens, not the finite run's tokens/s, which differs by when its last request ends)";
/** The same for goodput. */
const STEADY_GOODPUT_WORDS = " at steady state (a point the server keeps up with serves its offered load: offered requests/s × the share of requests meeting the SLO, not the finite run's rate, which differs by when its last request ends)";

/** What a rule on a simulated throughput or goodput says when latency ranks its top points: the points it weighs (`among`, after "among points"), and whether a lower p99 TPOT is named (no SLO weighs it). */
interface LatencyRule {
  among: string;
  tpotNote: boolean;
}

/**
 * The rule's words when the points within `tol` of the top `rate` (`ranked`, best first, more than one) were ranked on
 * latency: led by what chose `winner` (the one point vLLM runs; the lowest p99 TTFT, with its figure; or, at an equal
 * p99 TTFT, the fewest KV bytes held), then how many points tied on the rate and why, then the order of the ranking. A
 * simulated rate of a point the server keeps up with is its offered load, so at one offered load every such point has
 * the same rate and the rate ranks none (s52 nc-cli: "best: max_num_batched_tokens=256 max_num_seqs=64" on 5,733 against
 * 5,626 tokens/s, p99 TTFT 427 ms against 206: the finite run's tail, 1.9 %, while seeds 1..6 of one point spread 4 %).
 */
function latencyRuleText(winner: SweepReportRow, ranked: readonly SweepReportRow[], rate: (r: SweepReportRow) => number, tol: number, what: string, latency: LatencyRule, runsOnVllm: (r: SweepReportRow) => boolean): string {
  const peers = ranked.filter((r) => runsOnVllm(r) === runsOnVllm(winner));
  const ttft = winner.metrics.p99TtftS !== undefined ? ` (${formatDuration(winner.metrics.p99TtftS * 1e9)})` : '';
  // Points vLLM does not run rank after those it does: the lead says so where some did not.
  const ofVllm = peers.length > 1 && peers.length < ranked.length && runsOnVllm(winner) ? ' of the points vLLM runs,' : '';
  // The winner's p99 TTFT beats every peer's by more than the band, or it ties the lowest (exactly, or within the band: TTFT_TIE_TOLERANCE) and holds the fewest KV bytes.
  const w = ttftOf(winner);
  const lowest = Math.min(...peers.map(ttftOf));
  const band = lowest < w ? ` at a p99 TTFT${ttft} within ${formatPercent(TTFT_TIE_TOLERANCE, 0)} of the lowest (${formatDuration(lowest * 1e9)}), a tie,` : ttft ? ` at the lowest p99 TTFT${ttft}${peers.some((r) => r !== winner && ttftOf(r) !== w && ttftTies(w, ttftOf(r))) ? ` (others within ${formatPercent(TTFT_TIE_TOLERANCE, 0)} of it tie)` : ''}` : '';
  const lead = peers.length === 1 ? 'the one point vLLM runs' : peers.slice(1).every((r) => ttftOf(r) > w && !ttftTies(w, ttftOf(r))) ? `lowest p99 TTFT${ttft}${ofVllm}` : `fewest KV bytes held${band}${ofVllm}`;
  const top = rate(winner);
  const same = ranked.every((r) => Math.abs(rate(r) - top) <= 1e-9 * top);
  const offered = winner.metrics.steadyRequestsPerSec;
  const why = same
    ? `they serve one offered load${offered !== undefined ? ` (${formatRequestRate(offered)} requests/s)` : ''}, so ${what} does not rank them`
    : `${what} within ${formatPercent(tol, 0)} does not rank them`;
  return `${lead} among the ${formatCount(ranked.length)} points ${same ? 'at' : `within ${formatPercent(tol, 0)} of`} the highest ${what} ${latency.among}: ${why}; latency does: a point vLLM runs first, then the lower p99 TTFT (${ONE_SEED_WORDS}; within ${formatPercent(TTFT_TIE_TOLERANCE, 0)} a tie), then the fewer KV bytes held (mean occupancy · pages · bytes of a page: page_size · KV bytes per token, or for a hybrid pool page_size · the bytes of one KV-cache group's layers)`;
}

/**
 * The sentence under a best chosen on p99 TTFT without an SLO when a point it outranked (`ranked`) has a p99 TPOT lower
 * than the best's by more than {@link SIMULATED_RATE_TOLERANCE}: the lowest such, both figures of both points, and that an
 * SLO weighs the two (a smaller max_num_batched_tokens chunks prefills finer: TPOT down, TTFT up; s52 nc-cli, 8.44 ms
 * against 16.4 ms at 427 ms against 184 ms). '' when none.
 */
function tpotLowerText(winner: SweepReportRow, ranked: readonly SweepReportRow[], name: (r: SweepReportRow) => string): string {
  const tpot = (r: SweepReportRow) => r.metrics.p99TpotS ?? Infinity;
  const w = tpot(winner);
  if (!Number.isFinite(w)) return '';
  const lower = ranked.filter((r) => r !== winner && tpot(r) < w * (1 - SIMULATED_RATE_TOLERANCE)).sort((a, b) => tpot(a) - tpot(b))[0];
  if (!lower) return '';
  const d = (x: number | undefined) => (x === undefined ? '-' : formatDuration(x * 1e9));
  return `lower p99 TPOT at ${name(lower)}: ${d(lower.metrics.p99TpotS)} against ${d(winner.metrics.p99TpotS)}, at a p99 TTFT of ${d(lower.metrics.p99TtftS)} against ${d(winner.metrics.p99TtftS)}; to weigh TTFT against TPOT, give the profile an SLO (slo.ttft_ms, slo.tpot_ms): the best is then the highest goodput under it`;
}

/** The workload.arrival_rate of a row's point, or undefined when the sweep has no such axis. */
const offeredRate = (r: SweepReportRow): number | undefined => {
  const v = r.values['workload.arrival_rate'];
  return typeof v === 'number' ? v : undefined;
};

/**
 * Where a rule on a simulated rate (goodput, output throughput, cost per token) compares rows
 * across an arrival-rate axis, which it cannot: the simulated rate follows the offered load
 * (core/config/sweep.ts OFFERED_RATE_AXIS_TEXT; s48 newcomer M3: "best: page_size=16
 * arrival_rate=30", every page size tied at each rate), so `rows` are compared at the highest
 * offered rate of one of them the server keeps up with (SweepReportRow.keepsUp not false): that
 * rate and the words saying so. Null when the rows hold fewer than two rates, or none is kept up with.
 */
function offeredRateCompared(rows: readonly SweepReportRow[]): { rate: number; words: string } | null {
  const rates = new Set(rows.map(offeredRate).filter((v) => v !== undefined));
  if (rates.size < 2) return null;
  const kept = rows.filter((r) => r.keepsUp !== false).map(offeredRate).filter((v): v is number => v !== undefined);
  if (kept.length === 0) return null;
  const rate = Math.max(...kept);
  // Rows from point files before s35 were not judged: the highest rate is then all that can be said.
  const judged = rows.some((r) => r.keepsUp !== undefined);
  return { rate, words: `at arrival_rate=${axisValueText(rate)}, the highest offered rate ${judged ? 'a point keeps up with' : 'of the points'} (a simulated rate follows the offered load, so the points are compared at one rate, not across rates)` };
}

/** The workload.seed values of `rows`' points, each once in row order: [] without a seed axis (s52 nc-cli M2). */
function seedsOf(rows: readonly SweepReportRow[]): unknown[] {
  return [...new Set(rows.map((r) => r.values['workload.seed']).filter((v) => v !== undefined))];
}

/** The keys of `rows`' point values that differ among them, in the order first met. */
function variedKeys(rows: readonly SweepReportRow[]): string[] {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r.values)))];
  return keys.filter((k) => new Set(rows.map((r) => canonicalJson(r.values[k] ?? null))).size > 1);
}

/**
 * The spread over the seeds of a sweep whose points differ by workload.seed alone (s52 nc-cli M2: "best: seed=1" named
 * one draw of the same load), in a sentence: each figure of the table ({@link COLUMNS}) that differs, as min / median / max
 * (the median linear between the middle two, runner/simulate/latency.ts quantile) and (max − min) / median; those
 * that do not, once; and at how many seeds the server keeps up. How far a figure moves with the draws alone: a
 * difference between settings smaller than this is within the run-to-run noise.
 */
export function seedSpreadText(rows: readonly SweepReportRow[]): string {
  const varied: string[] = [];
  const same: string[] = [];
  for (const c of COLUMNS) {
    if (c.key === 'maxRateLimit') continue;
    const values = rows.map((r) => r.metrics[c.key]).filter((v): v is number => typeof v === 'number');
    if (values.length === 0) continue;
    const sorted = [...values].sort((a, b) => a - b);
    const show = (v: number) => c.show({ [c.key]: v } as SweepMetrics);
    const lo = sorted[0]!;
    const hi = sorted.at(-1)!;
    const mid = quantile(sorted, 0.5);
    if (lo === hi) same.push(`${c.header} ${show(lo)}`);
    else varied.push(`${c.header} ${show(lo)} / ${show(mid)} / ${show(hi)}${mid > 0 ? ` (${formatPercent((hi - lo) / mid, 1)})` : ''}`);
  }
  const judged = rows.filter((r) => r.keepsUp !== undefined);
  const keeps = judged.length > 0 ? `; the server keeps up at ${judged.filter((r) => r.keepsUp).length} of ${formatCountOf(judged.length, 'seed')}` : '';
  return `no best point across seeds: a seed draws another sample of the same workload (its arrivals and lengths), not a setting to choose; the spread over ${formatCountOf(rows.length, 'seed')}, min / median / max and (max − min) / median: ${varied.length > 0 ? varied.join('; ') : 'none'}${same.length > 0 ? `; the same at every seed: ${same.join(', ')}` : ''}${keeps}. A difference between settings smaller than this spread is within the run-to-run noise`;
}

/** The workload.trace values of `rows`' points, each once in row order: [] without a trace axis (s49 newcomer M2). */
function tracesOf(rows: readonly SweepReportRow[]): string[] {
  return [...new Set(rows.map((r) => r.values['workload.trace']).filter((v): v is string => typeof v === 'string'))];
}

/**
 * The SLO keys (`slo`, `slo.ttft_ms`, `slo.tpot_ms`, `slo.attainment`) whose values differ among
 * `rows`' points, in the order first met: [] without an SLO axis of two values among them (s49 newcomer L1).
 */
function sloKeysOf(rows: readonly SweepReportRow[]): string[] {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r.values).filter((k) => k === 'slo' || k.startsWith('slo.'))))];
  return keys.filter((k) => new Set(rows.map((r) => canonicalJson(r.values[k] ?? null))).size > 1);
}

/** Whether {@link bestRow} ranks `rows` by an SLO: a max-rate search's rate, or goodput among points meeting the SLO. */
function sloRanked(rows: readonly SweepReportRow[]): boolean {
  return rows.some((r) => r.metrics.maxRateLimit !== undefined || r.metrics.sloAttainment !== undefined);
}

/** Whether `rows` (two or more) have the same figures, every one: the same run, so that none is better (s48 newcomer M2). */
export function sameFigures(rows: readonly SweepReportRow[]): boolean {
  if (rows.length < 2) return false;
  const figures = (r: SweepReportRow) => canonicalJson({ metrics: r.metrics, keepsUp: r.keepsUp ?? null, environment: r.environmentKey });
  const first = figures(rows[0]!);
  return rows.every((r) => figures(r) === first);
}

/**
 * Why a report has no best row when its points were judged by an SLO and none met it: the SLO,
 * the point closest to meeting it (the most requests meeting it), and, for each bound, that
 * point's p90 (its slo.attainment 0.9, the default) or p99 (0.99) against it — a point meets the SLO when
 * that share of its requests meet both bounds, so that percentile over a bound is what keeps it short, and the
 * bound it would take (no percentile is said for another attainment); then what would meet it:
 * a lower load, or, where that percentile's TTFT less its queueing delay is still over the TTFT
 * bound, not the load but the prefill (tensor_parallel_size, the prompt lengths). Null when a row
 * meets it or no row was judged by one.
 */
export function noBestText(rows: readonly SweepReportRow[]): string | null {
  const judged = rows.filter((r) => r.status === 'ok' && r.metrics.sloAttainment !== undefined);
  // A max-rate sweep: its rows' figures are at their max rate, so a row meets the SLO when it has one.
  const searched = judged.some((r) => r.metrics.maxRateLimit !== undefined);
  if (judged.length === 0 || judged.some((r) => (searched ? r.metrics.maxRateLimit !== 'unmet' : r.metrics.sloAttainment! >= attainmentTarget(r.metrics)))) return null;
  const closest = judged.reduce((b, r) => (r.metrics.sloAttainment! > b.metrics.sloAttainment! ? r : b));
  const m = closest.metrics;
  const ms = (s: number) => formatDuration(s * 1e9);
  const bounds = [
    m.sloTtftMs !== undefined ? `TTFT <= ${formatDuration(m.sloTtftMs * 1e6)}` : '',
    m.sloTpotMs !== undefined ? `TPOT <= ${formatDuration(m.sloTpotMs * 1e6)}` : '',
  ].filter(Boolean);
  const slo = `${bounds.length > 0 ? bounds.join(' and ') : 'the profile\'s SLO'} for ${targetWords(judged)} of requests`;
  const over: string[] = [];
  const within: string[] = [];
  const target = attainmentTarget(m);
  const q = target === 0.9 ? { name: 'p90', ttft: m.p90TtftS, tpot: m.p90TpotS, queue: m.p90QueueS } : target === 0.99 ? { name: 'p99', ttft: m.p99TtftS, tpot: m.p99TpotS, queue: m.p99QueueS } : null;
  for (const [name, key, at, bound] of q ? ([['TTFT', 'slo.ttft_ms', q.ttft, m.sloTtftMs], ['TPOT', 'slo.tpot_ms', q.tpot, m.sloTpotMs]] as const) : []) {
    if (at === undefined || bound === undefined) continue;
    if (at * 1000 > bound) over.push(`${q!.name} ${name} ${ms(at)} is over its bound by ${ms(at - bound / 1000)} (${key} >= ${boundToWrite(at * 1000)} would let ${formatPercent(target, 0)} meet ${name} alone)`);
    else within.push(`${q!.name} ${name} ${ms(at)} is within its bound`);
  }
  const why = [...over, ...within].join('; ');
  // TTFT over its bound by more than the point's queueing delay at the same percentile: requests
  // that waited for nothing would still miss it (the difference of two percentiles, not the
  // percentile of the difference: an estimate), so a lower arrival_rate cannot meet it (s41
  // newcomer-ed F4: Llama-3.1-70B on H200s at tp 4, p99 TTFT 608 ms at 2 requests/s and still
  // 510 ms at 0.2, its p99 queueing 31.8 ms there: the p99 prompt's prefill, ≈ 0.49 s).
  const prefillBound = q && q.ttft !== undefined && q.queue !== undefined && m.sloTtftMs !== undefined && (q.ttft - q.queue) * 1000 > m.sloTtftMs;
  const advice = prefillBound
    ? `queueing is not the cause: its ${q.name} queueing delay is ${ms(q.queue!)}, so even without it TTFT misses ${formatDuration(m.sloTtftMs! * 1e6)} and a lower workload.arrival_rate will not meet it; ` +
      'the prefill of the longest prompts sets it: a larger device.tensor_parallel_size (or a faster GPU), a lower workload.prompt_len max, or relax slo.ttft_ms'
    : searched
      ? 'a lower rate does not help (the step time alone misses it): relax the SLO or change the deployment'
      : 'relax the SLO or lower the load (workload.arrival_rate)';
  if (searched) return `no point meets the SLO (${slo}) at any rate: even at the lowest rate its capacity search tried, closest is ${closest.label} with ${formatPercent(m.sloAttainment!)} of requests meeting it${why ? `; its ${why}` : ''}; ${advice}`;
  return `no point meets the SLO (${slo}): closest is ${closest.label} with ${formatPercent(m.sloAttainment!)} of requests meeting it${why ? `; its ${why}` : ''}; ${advice}`;
}

export interface MergeOptions {
  /** Called for a file that is skipped (not a regular file, too big, not JSON or cut short, not a sweep point), with the reason and, for JSON errors, where. */
  onSkip?: (file: string, skipped: NotAPoint) => void;
  /**
   * Called for a point that is merged but lacks a figure its table shows, with why in words: a
   * max-rate sweep's point without its capacity search (an older or hand-trimmed file), whose
   * max rate, per GPU and limit read "-" (s53 nc-cli 11).
   */
  onWarning?: (file: string, message: string) => void;
  /** Only these point ids (a shard's), when given. */
  only?: ReadonlySet<string>;
  /**
   * The user's price per GPU-hour of each point, by point id (`attnscope sweep`'s plan: the profile's
   * prices now, core/config/sweep.ts pointGpuHourUsd; undefined: none), in place of the price its
   * point file was run with: a price changes no simulation, so a point resumed or reused is priced
   * anew. Without it (`attnscope merge`) each row takes its file's (its run's device.gpu_hour_usd).
   */
  gpuHourUsd?: ReadonlyMap<string, number | undefined>;
  /**
   * The point files an earlier merge of these folders read (a running sweep's `sweepPoints` merges after each point saved):
   * a file whose stamp (device, inode, size, mtime) is unchanged is not read again. A point file is written whole under a
   * temporary name and renamed, so a rewritten one has a new inode. Without it every file is read.
   */
  cache?: PointFileCache;
}

/**
 * The point files a merge read, by path, each with the stamp it was read at (MergeOptions.cache), and how many files
 * were read through it (`reads`). Each sweepPoints event re-read and parsed every point file: fine for tens of points,
 * a sweep of thousands read them all after each one saved (s49 sweepv's left item 7).
 */
export class PointFileCache {
  readonly files = new Map<string, { stamp: string; point: SweepPointRun | NotAPoint }>();
  /** Files read (and parsed) through this cache so far. */
  reads = 0;

  /** `file` as readPointFile reads it, read again only when its stamp changed since the last read. */
  read(file: string): SweepPointRun | NotAPoint {
    let stamp: string;
    try {
      const st = statSync(file);
      stamp = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch {
      this.reads++;
      return readPointFile(file);
    }
    const hit = this.files.get(file);
    if (hit && hit.stamp === stamp) return hit.point;
    this.reads++;
    const point = readPointFile(file);
    this.files.set(file, { stamp, point });
    return point;
  }
}

/**
 * The sweeps whose point files lie under `dirs`, each as the folder holding its points (the deepest
 * folder above all of them) and its profile and id, for the error of a merge that found several:
 * e.g. "3 sweeps found: sw1 (a.attn.yaml, sweep 986adb4a6eb253ac), sw2 (...), sw6 (...)". `read`
 * reads one file as readPointFile does; unreadable folders are passed over (the merge said so first).
 */
function sweepFoldersText(dirs: readonly string[], read: (file: string) => SweepPointRun | NotAPoint): string {
  const sweeps = new Map<string, { name: string; folder: string }>();
  for (const dir of dirs) {
    let files: string[];
    try {
      files = listResultFiles(dir);
    } catch {
      continue;
    }
    for (const file of files) {
      const point = read(file);
      if (isNotAPoint(point)) continue;
      const folder = dirname(file);
      const seen = sweeps.get(point.sweep.sweepId);
      if (!seen) {
        sweeps.set(point.sweep.sweepId, { name: point.sweep.name, folder });
        continue;
      }
      // The deepest folder holding both: shards of one sweep may sit in sibling folders.
      let common = seen.folder;
      while (common !== dirname(common) && folder !== common && !folder.startsWith(common.endsWith(sep) ? common : `${common}${sep}`)) common = dirname(common);
      seen.folder = common;
    }
  }
  return `${formatCountOf(sweeps.size, 'sweep')} found: ${[...sweeps].map(([id, { name, folder }]) => `${folder} (${name}, sweep ${id})`).join(', ')}`;
}

/**
 * Merges the point files of `dirs` into one report. The first point file found fixes the sweep.
 * A point has one row per environment (machine kind) when the sweep measures (job bench or both);
 * a simulate sweep's point has one row whatever environments ran it (its figures are modelled, not
 * measured on the machine), a second file of it being a duplicate.
 * @throws InputError for a folder that cannot be read, a point of a different sweep (naming
 *   both), or no point files at all.
 */
export function mergeResults(dirs: string[], opts: MergeOptions = {}): SweepReport {
  let report: SweepReport | null = null;
  const seen = new Map<string, SweepReportRow>();
  /** Why vLLM would not run a point, by point id (core/estimate vllmPageSizeNote of its profile). */
  const notOnVllm = new Map<string, string>();
  /** The TPOT overhead note of a point's run (core/format tpotOverheadNote), by point id. */
  const tpotNotes = new Map<string, string>();
  /** Each point's model label (one read of its config per model path), by point index. */
  const labels = new Map<string, string>();
  const modelAt = new Map<number, string>();
  // Skipped files are said once the merge is known to go ahead: a folder of several sweeps gets its
  // one error line, not a warning per config and profile first (s53 nc-cli 22: 21 lines, then the error).
  const skipped: Array<[string, NotAPoint]> = [];
  const read = (file: string): SweepPointRun | NotAPoint => (opts.cache ? opts.cache.read(file) : readPointFile(file));
  for (const dir of dirs) {
    let files: string[];
    try {
      files = listResultFiles(dir);
    } catch (e) {
      const { code, path } = e as NodeJS.ErrnoException;
      // The folder that could not be read, which is a sub-folder of `dir` as often as `dir` (s40 newcomer 15: merge / named /).
      throw new InputError(code === 'ENOTDIR' ? 'is a file: give the results folder' : readFailure(e, 'folder', path ?? dir), path ?? dir);
    }
    for (const file of files) {
      const point = read(file);
      if (isNotAPoint(point)) {
        skipped.push([file, point]);
        continue;
      }
      const s = point.sweep;
      if (!report) {
        report = {
          // The header every JSON file AttnScope writes opens with, in its order (schema, tool,
          // createdAt, name, then kind), under the sweep report's own schema version.
          ...runHeader(s.name, toolBuild()),
          schema: SWEEP_SCHEMA_VERSION,
          kind: 'attnscope-sweep-report',
          sweepId: s.sweepId,
          job: s.job,
          axes: s.axes,
          total: s.total,
          rows: [],
          missing: [],
          duplicates: [],
          environments: {},
          best: null,
        };
      } else if (s.sweepId !== report.sweepId) {
        throw new InputError(`holds a point of another sweep (${s.name}, sweep ${s.sweepId}) than the first one read (${report.name}, sweep ${report.sweepId}): ${sweepFoldersText(dirs, read)}: merge each sweep on its own`, file);
      }
      if (opts.only && !opts.only.has(s.id)) continue;
      const envKey = s.environmentKey;
      const modelled = modelledJob(report.job);
      // Measured on a machine whose key said less than environmentKey does now (a point file of a
      // build before s39, or one edited): which machine kind it belongs to is not known, so it is
      // not merged under the key it carries. A simulate point's figures are modelled, whatever machine.
      if (!modelled && environmentKey(point.environment) !== envKey) {
        skipped.push([file, { why: `measured under environment key ${envKey}, which this build computes as ${environmentKey(point.environment)} (keys before s39 left out the SIMD path and CPU family/model, so two CPU generations could share one): rerun the sweep on that machine`, otherKey: true }]);
        continue;
      }
      const key = modelled ? s.id : `${s.id}/${envKey}`;
      const first = seen.get(key);
      if (first) {
        // A simulate point's duplicate is listed under the environment of the row kept.
        const dupEnv = first.environmentKey;
        const dup = report.duplicates.find((d) => d.id === s.id && d.environmentKey === dupEnv);
        if (dup) dup.files.push(file);
        else report.duplicates.push({ id: s.id, label: s.label, environmentKey: dupEnv, files: [file] });
        continue;
      }
      report.environments[envKey] ??= point.environment;
      if (report.job === 'max-rate' && point.status === 'ok' && !point.pool?.capacity) {
        opts.onWarning?.(file, 'no capacity search in this point (an older or edited file), so its max rate, per GPU and limit show -: delete it and run the sweep again to search its rate');
      }
      const row: SweepReportRow = { id: s.id, index: s.index, values: s.values, label: s.label, environmentKey: envKey, status: point.status, metrics: metricsOf(point), file, tool: point.tool, ...keepsUpOf(point) };
      if (opts.gpuHourUsd?.has(s.id)) priceMetrics(row.metrics, opts.gpuHourUsd.get(s.id));
      const unmodelled = point.pool?.stepTime?.unmodelled;
      if (unmodelled && unmodelled.length > 0) row.unmodelled = unmodelled;
      const gpu = point.pool?.stepTime?.gpu;
      if (gpu !== undefined) row.gpu = gpu;
      const stepTime = stepTimeAssumptionsOf(point);
      if (stepTime) row.stepTime = stepTime;
      Object.assign(row, pointInputsOf(point.profile));
      seen.set(key, row);
      report.rows.push(row);
      const labelKey = point.profile.modelPath ?? `inline ${point.profile.model.modelType}`;
      if (!labels.has(labelKey)) labels.set(labelKey, modelLabel(point.profile));
      modelAt.set(s.index, labels.get(labelKey)!);
      // The rule of the editor's page-size-not-vllm and page-size-flashmla warnings, one each (s42 newcomer 5a: 16 counted as runnable for DeepSeek-V3 on H200).
      const note = vllmPageSizeNote(point.profile.kvCache.pageSize, point.profile.device)
        ?? flashMlaPageSizeNote(point.profile.kvCache.pageSize, Boolean(point.profile.model.mla), deviceGpu(point.profile.device));
      if (note) notOnVllm.set(s.id, note.text);
      // A TPOT SLO judged at small batch with overhead_ms assumed 0: said under the best line when this point is the best.
      const tpot = point.pool ? tpotOverheadNote(point.pool) : null;
      if (tpot) tpotNotes.set(s.id, tpot);
    }
  }
  for (const [file, why] of skipped) opts.onSkip?.(file, why);
  if (!report) throw new InputError(`no sweep point results in ${dirs.join(', ')}: give the folder \`sweep --out\` wrote, or the sweep's default one, .attnscope/sweeps/<profile>-<sweep id>`, dirs[0] ?? '.');
  const envOrder = Object.keys(report.environments);
  report.rows.sort((a, b) => a.index - b.index || envOrder.indexOf(a.environmentKey) - envOrder.indexOf(b.environmentKey));
  const have = new Set(report.rows.map((r) => r.id));
  report.missing = pointsOfAxes(report.axes).filter((p) => !have.has(p.id) && (!opts.only || opts.only.has(p.id)));
  const split = splitByMachine(report);
  // Rows of several machine kinds: each tied row names its env; the best point's own row on another machine says it is the same point.
  const best = bestRow(report.rows, split ? (r, b) => `${r.label} (${r.id === b.id ? 'same point on ' : ''}env ${envLetter(envOrder, r.environmentKey)})` : undefined, (r) => !notOnVllm.has(r.id));
  const ref = (r: SweepReportRow) => ({ id: r.id, environmentKey: r.environmentKey, label: r.label });
  const across = split && best?.rule === MEASURED_RULE ? acrossMachines(report.rows, envOrder) : '';
  const vllm = best ? notOnVllm.get(best.row.id) : undefined;
  const leftOut = best ? [missesSloText(best.missesSlo ?? []), leftOutText(best.leftOut)].filter((t) => t).join('. ') : '';
  const modelled = best !== null && best.rule !== MEASURED_RULE;
  const gpuModels = modelled ? gpuModelsText(report.rows) : '';
  // The best's SLO verdict on too few requests (s42 newcomer-ed F14: a 6-request trace ranked a p99 SLO's max rate).
  const bm = best?.row.metrics;
  const few = bm?.sloRequests !== undefined && bm.sloAttainment !== undefined ? sloSampleNote(bm.sloRequests, attainmentTarget(bm)) : null;
  const fewRequests = few ? `its SLO verdict: ${few}` : '';
  const tpotOverhead = best ? tpotNotes.get(best.row.id) : undefined;
  report.best = best
    ? { ...ref(best.row), rule: best.rule, ...(best.rule.startsWith(COST_RULE) ? { byCost: true as const } : {}), ...(best.byLatency ? { byLatency: true as const } : {}), ...(best.tpotLower ? { tpotLower: best.tpotLower } : {}), ...(best.tie ? { tiedWith: best.tiedWith.map(ref), tie: best.tie } : {}), ...(fewRequests ? { fewRequests } : {}), ...(best.close ? { close: best.close } : {}), ...(gpuModels ? { gpuModels } : {}), ...(across ? { acrossMachines: across } : {}), ...(vllm ? { notOnVllm: vllm } : {}), ...(leftOut ? { leftOut } : {}), ...(tpotOverhead ? { tpotOverhead } : {}) }
    : null;
  report.models = [...new Set([...modelAt].sort(([a], [b]) => a - b).map(([, m]) => m))];
  const noBest = report.best ? [] : noBestLines(report.rows, (r) => !notOnVllm.has(r.id));
  if (noBest.length > 0) report.noBest = noBest;
  return report;
}

/**
 * The sentence under a best point ranked on a modelled rate: with a user-given price for every
 * point (ranked by cost), the prices, each model once; else, when its points run on different GPU
 * models (SweepReportRow.gpu, the step-time model's device.gpu), that a rate, or a rate per GPU,
 * ranks as if a GPU of each cost the same (s42 newcomer-ed F3: H200 over H100 SXM per GPU), naming
 * the models without a price (sweep.gpu_hour_usd). '' for one unpriced model.
 */
export function gpuModelsText(rows: readonly SweepReportRow[]): string {
  const ok = rows.filter((r) => r.status === 'ok');
  const prices = gpuPrices(ok);
  const unpriced = prices.filter((p) => p.usd === undefined).map((p) => p.gpu);
  if (prices.length > 0 && unpriced.length === 0 && ok.every((r) => r.metrics.gpuHourUsd !== undefined)) {
    return `ranked by cost at user-given prices per GPU-hour (not built-in figures): ${prices.map((p) => `${p.gpu} ${formatUsd(p.usd!)}/GPU-hour`).join(', ')}`;
  }
  if (prices.length < 2) return '';
  const missing = unpriced.length < prices.length ? `; no price for ${unpriced.join(', ')} (sweep.gpu_hour_usd: { "${unpriced[0]!.replace(/ \(user-given\)$/, '')}": <$ per GPU-hour> }), so none is ranked by cost` : '; give each model\'s price per GPU-hour in sweep.gpu_hour_usd to rank them by $ per million output tokens';
  return `the points run on different GPU models (${prices.map((p) => p.gpu).join(', ')}): the ranking counts a GPU of each alike, as if they cost the same${missing}`;
}

/**
 * Why no row is the best, a sentence each: the points tie (the same figures); the points replay
 * different traces (a workload.trace axis, core/config/sweep.ts TRACE_AXIS_TEXT) or, ranked by an
 * SLO, are judged by different SLO values (an slo.* axis: a looser SLO admits a higher rate by
 * definition; s49 newcomer L1) or are drawn from different seeds (a workload.seed axis beside others: a seed is a draw
 * of the load, not a setting; s52 nc-cli M2): then the best of each trace's (SLO value's, seed's) points, by
 * {@link bestRow}, `runsOnVllm` as there, in one sentence, over seeds alone with whether one setting is the best at
 * every seed or at how many; points that differ by their seed alone: each figure's spread ({@link seedSpreadText}); no point meets
 * the SLO (noBestText), and the points the server does not keep up with, each with why
 * (leftOutText); empty when none is so.
 */
export function noBestLines(rows: readonly SweepReportRow[], runsOnVllm: (r: SweepReportRow) => boolean = () => true): string[] {
  const ok = rows.filter((r) => r.status === 'ok');
  if (sameFigures(ok)) return [`no best point: the ${formatCount(ok.length)} points have the same figures, so they tie (an axis the sweep's job does not read changes nothing: the warning at it says which)`];
  const traces = tracesOf(ok);
  const sloKeys = sloRanked(ok) ? sloKeysOf(ok) : [];
  const seeds = seedsOf(ok);
  // Points that differ by their seed alone: the spread of each figure, how a planner reads the noise.
  if (seeds.length > 1 && variedKeys(ok).every((k) => k === 'workload.seed')) return [seedSpreadText(ok)];
  if (traces.length > 1 || sloKeys.length > 0 || seeds.length > 1) {
    // Points replaying different traces, judged by different SLOs or drawn from different seeds do not compare: the best of each group instead.
    const keys = [...(traces.length > 1 ? ['workload.trace'] : []), ...sloKeys, ...(seeds.length > 1 ? ['workload.seed'] : [])];
    const groupNames = [...(traces.length > 1 ? ['trace'] : []), ...(sloKeys.length > 0 ? ['SLO value'] : []), ...(seeds.length > 1 ? ['seed'] : [])];
    const across = groupNames.map((g) => `${g}s`).join(' or ');
    const reasons = [
      ...(traces.length > 1 ? ['each trace is its own load (its rate and lengths), which a point\'s throughput and goodput follow, so across traces they compare the traces, not the deployments'] : []),
      ...(sloKeys.length > 0 ? [`a looser SLO admits a higher rate by definition, so across ${sloKeys.map((k) => k.replace(/^slo\./, '')).join(', ')} values the loosest would win: compare points under one SLO`] : []),
      ...(seeds.length > 1 ? ['a seed draws another sample of the same workload, not a setting to choose, so each seed\'s points are ranked on their own: a setting that is the best at every seed holds whatever the draw'] : []),
    ];
    const why = `no best point across ${across}: ${reasons.join('; ')}`;
    const each = groupNames.join(' and ');
    const groupOf = (r: SweepReportRow) => pointLabel(Object.fromEntries(keys.map((k) => [k, r.values[k]])));
    const groups = new Map<string, SweepReportRow[]>();
    for (const r of ok) groups.set(groupOf(r), [...(groups.get(groupOf(r)) ?? []), r]);
    if ([...groups.values()].every((of) => of.length === 1)) return [`${why}; each ${each} has one point, so none is ranked`];
    // A point's label without the grouping values: the group heads its entry.
    const own = (r: SweepReportRow) => pointLabel(Object.fromEntries(Object.entries(r.values).filter(([k]) => !keys.includes(k)))) || r.label;
    const winners: string[] = [];
    const bests = [...groups].map(([group, of]) => {
      const b = bestRow(of, undefined, runsOnVllm);
      if (b) winners.push(own(b.row));
      // Ranked on latency, the rate's tie is no tie of the best: say what ranked them.
      const tied = b && b.tiedWith.length > 0 ? (b.byLatency ? ` (on latency; its rate ties ${b.tiedWith.map(own).join(', ')})` : ` (tied with ${b.tiedWith.map(own).join(', ')})`) : '';
      const best = b ? `${own(b.row)}${tied}` : sameFigures(of) ? 'the points tie (the same figures)' : 'no point qualifies';
      return `${group}: ${best}`;
    });
    // Over seeds alone: how often each setting wins, the agreement a planner trusts (the best at every seed, or which seeds disagree).
    let agreement = '';
    const overSeeds: string[] = [];
    if (seeds.length > 1 && keys.length === 1) {
      const counts = new Map<string, number>();
      for (const w of winners) counts.set(w, (counts.get(w) ?? 0) + 1);
      const [top, n] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
      if (n > 0) agreement = n === groups.size ? `; ${top} is the best at every seed` : `; ${top} is the best at ${n} of ${formatCountOf(groups.size, 'seed')}, so the draws decide between ${formatCountOf(counts.size, 'setting')}`;
      // One answer over the seeds (s53): each setting ranked by the same rule on its median over the seeds.
      const line = medianOverSeedsText(ok, [...groups.keys()], winners.length === groups.size ? [...groups.keys()].map((g, i) => [g, winners[i]!] as [string, string]) : [], own, runsOnVllm);
      if (line) overSeeds.push(line);
    }
    return [`${why}; the best for each ${each}: ${bests.join('; ')}${agreement}`, ...overSeeds];
  }
  const none = noBestText(rows);
  const notKept = rows.filter((r) => r.status === 'ok' && r.keepsUp === false);
  return [...(none ? [none] : []), ...(notKept.length > 0 ? [`no best point: ${leftOutText(notKept)}`] : [])];
}

/**
 * The one answer of a grid × seed sweep (s53; s52 nc-cli M2 gave a best per seed only): each setting (a point's values
 * less workload.seed, `own` its label) as one row whose every figure is its median over its seeds (linear between the
 * middle two, runner/simulate/latency.ts quantile; the figures a rule reads: steady rates, p99 TTFT, KV bytes held,
 * SLO attainment, ...), kept up with only where the server keeps up at every seed, ranked by {@link bestRow}'s rule on
 * those rows; the line names the setting, the rule (saying that its figures are medians over the seeds) and whether
 * that setting is the best at every seed (`winners`: [seed label, its best setting], one per seed that has one) or at
 * how many and which seeds name another. Null when no setting qualifies or the seeds name no best.
 */
function medianOverSeedsText(rows: readonly SweepReportRow[], seedLabels: readonly string[], winners: ReadonlyArray<[string, string]>, own: (r: SweepReportRow) => string, runsOnVllm: (r: SweepReportRow) => boolean): string | null {
  const settings = new Map<string, SweepReportRow[]>();
  for (const r of rows) settings.set(own(r), [...(settings.get(own(r)) ?? []), r]);
  if (settings.size < 2) return null;
  const medians = [...settings].map(([label, of]) => {
    const metrics: Record<string, unknown> = { ...of[0]!.metrics };
    for (const k of Object.keys(metrics) as Array<keyof SweepMetrics>) {
      const xs = of.map((r) => r.metrics[k]).filter((v): v is number => typeof v === 'number').sort((a, b) => a - b);
      if (xs.length > 0) metrics[k] = quantile(xs, 0.5);
    }
    const judged = of.some((r) => r.keepsUp !== undefined);
    const values = Object.fromEntries(Object.entries(of[0]!.values).filter(([k]) => k !== 'workload.seed'));
    // The label stays the setting's own: runsOnVllm and the tie words read the first seed's row's id and label.
    return { row: { ...of[0]!, values, label, metrics: metrics as SweepMetrics, ...(judged ? { keepsUp: of.every((r) => r.keepsUp !== false) } : {}) }, seeds: of.length };
  });
  const b = bestRow(medians.map((m) => m.row), undefined, runsOnVllm);
  if (!b) return null;
  const fewer = medians.filter((m) => m.seeds < seedLabels.length).map((m) => `${m.row.label} (${m.seeds} of ${seedLabels.length})`);
  const others = winners.filter(([, w]) => w !== b.row.label);
  const wins = winners.length - others.length;
  const agreement = winners.length === 0
    ? ''
    : others.length === 0
      ? `; it is the best at every seed too`
      : `; it is the best at ${formatCount(wins)} of ${formatCountOf(winners.length, 'seed')} on its own (${others.slice(0, TIES_NAMED).map(([seed, w]) => `${seed}: ${w}`).join('; ')}${others.length > TIES_NAMED ? `; and ${formatCountOf(others.length - TIES_NAMED, 'other seed')}` : ''}), so the draws move it: weigh the margin against the spread over seeds`;
  const tie = b.tiedWith.length > 0 ? (b.byLatency ? `; its rate ties ${b.tiedWith.map((r) => r.label).join(', ')}` : `; tied with ${b.tiedWith.map((r) => r.label).join(', ')}`) : '';
  return `best over the ${formatCountOf(seedLabels.length, 'seed')}, each setting ranked on its median over them (every figure the median of its seeds' runs; kept up with only if at every seed${fewer.length > 0 ? `; from fewer seeds: ${fewer.join(', ')}` : ''}): ${b.row.label} — ${b.rule.replace(ONE_SEED_WORDS, 'the median over the seeds')}${tie}${agreement}`;
}

/**
 * The sentence under a best point chosen by measured decode time among rows of several machine
 * kinds (`envOrder`): that the times compared were measured on different machines, which do not
 * compare (README: compare timings within one run only), and the fastest on each machine kind by
 * the same rule, with its ties.
 */
function acrossMachines(rows: readonly SweepReportRow[], envOrder: readonly string[]): string {
  const each = envOrder.flatMap((k) => {
    const b = bestRow(rows.filter((r) => r.environmentKey === k));
    if (!b || b.rule !== MEASURED_RULE) return [];
    return [`env ${envLetter(envOrder, k)} ${b.row.label}${b.tiedWith.length > 0 ? ` (tied with ${b.tiedWith.map((r) => r.label).join(', ')})` : ''}`];
  });
  return `chosen across ${envOrder.length} kinds of machine, whose timings do not compare (compare timings within one run only); the fastest on each: ${each.join('; ')}`;
}

/** A report's name for an environment: A, B, ... in the order of `envKeys` (the keys of SweepReport.environments). */
function envLetter(envKeys: readonly string[], key: string): string {
  return String.fromCharCode(65 + envKeys.indexOf(key));
}

const pct = (x: number | undefined): string => (x === undefined ? '-' : formatPercent(x));
const int = (x: number | undefined): string => (x === undefined ? '-' : formatCount(x));
const ns = (x: number | undefined): string => (x === undefined ? '-' : formatDuration(x));

/** The metric columns of the table, in order: header, how a row shows it. */
const COLUMNS: Array<{ header: string; key: keyof SweepMetrics; show: (m: SweepMetrics) => string }> = [
  { header: 'max req/s', key: 'maxRateLimit', show: maxRateText },
  { header: 'per GPU', key: 'maxRatePerGpuRequestsPerSec', show: (m) => (m.maxRatePerGpuRequestsPerSec === undefined ? '-' : formatRequestRate(m.maxRatePerGpuRequestsPerSec)) },
  { header: 'limit', key: 'maxRateLimit', show: maxRateLimitText },
  { header: '$/1M out', key: 'usdPerMillionOutputTokens', show: (m) => (m.usdPerMillionOutputTokens === undefined ? '-' : formatUsdCost(m.usdPerMillionOutputTokens)) },
  { header: 'internal frag', key: 'internalFragmentation', show: (m) => pct(m.internalFragmentation) },
  { header: 'prefix hits', key: 'prefixHitRate', show: (m) => pct(m.prefixHitRate) },
  { header: 'preemptions', key: 'preemptions', show: (m) => int(m.preemptions) },
  { header: 'pool pages', key: 'poolPages', show: (m) => int(m.poolPages) },
  { header: 'occupancy', key: 'meanOccupancy', show: (m) => pct(m.meanOccupancy) },
  { header: 'tokens/s (sim)', key: 'throughputTokensPerSec', show: (m) => int(m.throughputTokensPerSec) },
  { header: 'rejected', key: 'rejected', show: (m) => int(m.rejected) },
  { header: 'p99 TTFT', key: 'p99TtftS', show: (m) => (m.p99TtftS === undefined ? '-' : formatDuration(m.p99TtftS * 1e9)) },
  { header: 'p99 TPOT', key: 'p99TpotS', show: (m) => (m.p99TpotS === undefined ? '-' : formatDuration(m.p99TpotS * 1e9)) },
  { header: 'SLO met', key: 'sloAttainment', show: (m) => pct(m.sloAttainment) },
  { header: 'goodput req/s', key: 'goodputRequestsPerSec', show: (m) => (m.goodputRequestsPerSec === undefined ? '-' : formatRequestRate(m.goodputRequestsPerSec)) },
  // Read from cache, not DRAM: marked as `attnscope bench` marks it; the notes under the table say why (core/sweepFigures.ts decodeFromCacheNotes).
  { header: 'decode/token', key: 'decodeNsPerToken', show: (m) => `${ns(m.decodeNsPerToken)}${m.decodeNsPerToken !== undefined && m.decodeFromCache ? ' (from cache)' : ''}` },
];

/**
 * The report as text: one row per point and environment (axis values, then each figure some
 * row has), a legend of the environments when there are several, where each row's result comes
 * from when some were not run now (a `result` column and its legend: SweepReportRow.origin), the missing and duplicated
 * points, and where the figures come from. `shard`: the report of one shard's points (`points` of
 * them), which the header and the best line say (s40 newcomer 10: "2 results for 4 of 4 points").
 */
export function formatReport(report: SweepReport, shard?: { index: number; count: number; points: number }): string {
  const axisHeaders = axisNames(report.axes.map((a) => a.key));
  const columns = COLUMNS.filter((c) => report.rows.some((r) => r.metrics[c.key] !== undefined));
  const envKeys = Object.keys(report.environments);
  const multiEnv = splitByMachine(report);
  // Where a row's result comes from, when some row was not run now (SweepReportRow.origin): a column, and a legend below.
  const origins = report.rows.some((r) => r.origin === 'resumed' || r.origin === 'reused');
  // Whether the server keeps up, when some row's run judged it (SweepReportRow.keepsUp).
  const keeps = report.rows.some((r) => r.keepsUp !== undefined);
  // Which build of the runner wrote each row, when they are several (legend: sweepProvenance).
  const builds = reportBuilds(report).length > 1;
  const header = [
    ...axisHeaders, ...(multiEnv ? ['env'] : []), ...(builds ? ['build'] : []), ...(origins ? ['result'] : []), ...columns.map((c) => c.header), ...(keeps ? ['keeps up'] : []), ...(report.rows.some((r) => r.status !== 'ok') ? ['status'] : []),
  ];
  const rows = report.rows.map((r) => [
    ...report.axes.map((a) => axisValueText(r.values[a.key])),
    ...(multiEnv ? [envLetter(envKeys, r.environmentKey)] : []),
    ...(builds ? [rowBuild(r)] : []),
    ...(origins ? [r.origin ?? '-'] : []),
    ...columns.map((c) => c.show(r.metrics)),
    ...(keeps ? [r.keepsUp === undefined ? '-' : r.keepsUp ? 'yes' : 'no'] : []),
    ...(header.at(-1) === 'status' ? [r.status] : []),
  ]);
  // Words left-aligned (axis values, the result column), figures right-aligned.
  const resultColumn = origins ? header.indexOf('result') : -1;
  const buildColumn = builds ? header.indexOf('build') : -1;
  const right = header.map((_, c) => !(c < report.axes.length || c === resultColumn || c === buildColumn));
  // Past the table width (core/textTable.ts tableWidth: 100 piped): stacked parts, each repeating the axis values and env.
  const table = renderTable(header, rows, right, { keys: report.axes.length + (multiEnv ? 1 : 0), rule: false });
  const lines = [
    `Sweep ${report.name}${report.models && report.models.length > 0 ? ` of ${report.models.join(', ')}` : ''} (${report.sweepId}, job ${report.job}): ${shard ? `${formatCountOf(report.rows.length, 'result')} for the ${formatCountOf(shard.points, 'point')} of shard ${shard.index}/${shard.count} (of ${formatCountOf(report.total, 'point')}; the rest are other shards)` : `${report.rows.length === report.total - report.missing.length ? '' : `${formatCountOf(report.rows.length, 'result')} for `}${report.total - report.missing.length} of ${formatCountOf(report.total, 'point')}`}`,
    '',
    ...table.split('\n'),
  ];
  if (multiEnv) {
    lines.push('');
    envKeys.forEach((k) => lines.push(`env ${envLetter(envKeys, k)} (${k}): ${describeEnvironment(report.environments[k]!)}`));
  } else if (envKeys.length > 1) {
    lines.push('', `ran on ${envKeys.length} kinds of machine (${envKeys.map((k) => describeEnvironment(report.environments[k]!)).join('; ')}): one row per point, as a simulation's figures do not depend on the CPU that ran it`);
  }
  if (origins) {
    const from = [...new Set(report.rows.flatMap((r) => (r.reusedFrom ? [r.reusedFrom] : [])))];
    const meaning: Record<NonNullable<SweepReportRow['origin']> | '-', string> = {
      run: 'run = run by this command',
      resumed: 'resumed = already in the results folder from an earlier run of this sweep by this build, not run again',
      reused: `reused = copied from an earlier sweep of this profile (${from.join(', ')}): same point values, base profile, model config, machine kind and build give the same simulation`,
      '-': "- = another machine kind's result, read from the folder",
    };
    const shown = (['run', 'resumed', 'reused', '-'] as const).filter((k) => report.rows.some((r) => (r.origin ?? '-') === k));
    lines.push('', `result: ${shown.map((k) => meaning[k]).join('; ')}`);
  }
  if (report.missing.length > 0) lines.push('', `missing ${report.missing.length} point${report.missing.length > 1 ? 's' : ''}: ${report.missing.map((p) => p.label).join('; ')}`);
  for (const d of report.duplicates) lines.push(`duplicate: ${d.label}${modelledJob(report.job) ? '' : ` (env ${d.environmentKey})`} also in ${d.files.join(', ')}; the first file is used`);
  if (report.best) {
    lines.push('', `best${shard ? ' of this shard' : ''}: ${report.best.label}${multiEnv ? ` (env ${envLetter(envKeys, report.best.environmentKey)})` : ''} — ${report.best.rule}`);
    if (report.best.notOnVllm) lines.push(`      not runnable on vLLM: ${report.best.notOnVllm}`);
    if (report.best.tie) lines.push(`      ${report.best.tie}`);
    if (report.best.tpotLower) lines.push(`      ${report.best.tpotLower}`);
    if (report.best.fewRequests) lines.push(`      ${report.best.fewRequests}`);
    if (report.best.close) lines.push(`      ${report.best.close}`);
    if (report.best.gpuModels) lines.push(`      ${report.best.gpuModels}`);
    // Reports merged before s50 may carry a best of each SLO value under an overall best.
    for (const [i, line] of (report.best.perSlo ?? []).entries()) lines.push(`${i === 0 ? '      ' : '        '}${line}`);
    if (report.best.acrossMachines) lines.push(`      ${report.best.acrossMachines}`);
    if (report.best.leftOut) lines.push(`      ${report.best.leftOut}`);
    if (report.job === 'max-rate' && report.axes.some((a) => a.key === 'workload.arrival_rate')) lines.push(`      its arrival_rate is no choice: ${MAX_RATE_ARRIVAL_AXIS_TEXT}`);
    if (report.best.tpotOverhead) lines.push(`      Note: ${report.best.tpotOverhead}`);
  } else {
    for (const line of report.noBest ?? noBestLines(report.rows)) lines.push('', line);
    // Points of a max-rate sweep that differ by arrival_rate alone search to the same rate: they tie, and why is the axis.
    if (report.job === 'max-rate' && report.axes.some((a) => a.key === 'workload.arrival_rate') && sameFigures(report.rows.filter((r) => r.status === 'ok'))) lines.push(`      its arrival_rate is no choice: ${MAX_RATE_ARRIVAL_AXIS_TEXT}`);
  }
  const notes = sweepProvenance(report);
  if (notes.length > 0) lines.push('', ...notes);
  return lines.join('\n');
}

/**
 * What a point ran on, for the report's caption and CSV (s50 sweepchart: a design doc's figure names its dtype and
 * workload): the profile's dtype, its KV cache's ('auto' is the dtype), and its workload in brief, a trace as the profile
 * writes it or the requests drawn and their arrival rate; no workload for a point without one (job bench).
 */
export function pointInputsOf(profile: Pick<SweepPointRun['profile'], 'dtype' | 'kvCache' | 'workload'>): Pick<SweepReportRow, 'dtype' | 'kvDtype' | 'workload'> {
  const w = profile.workload;
  const workload = !w ? undefined : w.trace ? { trace: w.trace.path } : { requests: w.requests, arrivalRate: w.arrivalRate, seed: w.seed };
  return { dtype: profile.dtype, kvDtype: profile.kvCache.dtype === 'auto' ? profile.dtype : profile.kvCache.dtype, ...(workload ? { workload } : {}) };
}
