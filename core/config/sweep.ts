/**
 * A profile's `sweep:` block (issue 13), read the way the rest of core/config reads: nothing
 * throws, every problem comes back with a range. The CLI (runner/sweep) and the language server
 * share it, so a sweep the editor shows clean is one `attnscope sweep` runs.
 *
 *   sweep:
 *     job: simulate                    # simulate | max-rate | bench | both (default simulate)
 *     axes:
 *       kv_cache.page_size: [8, 16, 32]
 *       workload.max_num_seqs: [64, 256]
 *     slurm: { partition: gpu, gpus_per_task: 1, time: "00:30:00", tasks: 3 }
 *
 * The schema (schemas/attn-profile.schema.json) checks the block's shape; this file checks what
 * a schema cannot: that each axis key is a profile key, that axes do not overlap, and that
 * every point — the profile with the axis values put in place — reads cleanly.
 */
import { axisNames, axisValueText, formatCount } from '../format';
import { DEFAULT_GPU } from '../estimate/gpus';
import { readProfileTree, type ProfileHost } from './profile';
import { keysAt, schemaAt } from './schemaWalk';
import { closestKey } from './suggest';
import { unmodelledFlagMessage, unmodelledVllmFlag } from './vllmFlags';
import { getProperty, toPlain, type ValueNode } from './tree';
import type { Problem, Profile, SourceRange } from './types';

/**
 * What each point runs: the pool simulation at the profile's load, the capacity search
 * (runner/simulate/capacity.ts searchCapacity: the highest arrival rate meeting the profile's SLO
 * that the server keeps up with, several simulations), the kernel benchmark, or a benchmark that
 * also simulates.
 */
export type SweepJob = 'simulate' | 'max-rate' | 'bench' | 'both';
export const SWEEP_JOBS: readonly SweepJob[] = ['simulate', 'max-rate', 'bench', 'both'];

/**
 * Why an arrival-rate axis is no design axis of a max-rate sweep: each point searches the arrival
 * rate itself, workload.arrival_rate only sets where its search starts, so such points differ by
 * the search's path alone (s42 newcomer 11: 30.2, 30.2, 30.4 req/s at arrival_rate 5, 20, 80, and
 * the best line named arrival_rate=5). The sweep's warning at the axis ({@link maxRateArrivalAxisProblem}:
 * the CLI's and the editor's) and its best line say it.
 */
export const MAX_RATE_ARRIVAL_AXIS_TEXT = "workload.arrival_rate only sets where each max-rate point's capacity search starts (the search finds the rate itself), so the points differ by the search's path, not by a design choice: leave it out of a max-rate sweep (a job: simulate sweep takes it as an axis)";

/**
 * Why an arrival-rate axis ranks nothing in a sweep that simulates at the profile's load (job
 * simulate or both): workload.arrival_rate is the offered load, and a simulated point's throughput
 * follows it until the server saturates, so the highest throughput is the highest rate kept up
 * with, whatever the other axes (s48 newcomer M3: page_size 16, 32, 64, 128 tied at each of 10, 20,
 * 30 requests/s and "best: page_size=16 arrival_rate=30"). The sweep's warning at the axis and its
 * best line (runner/sweep/results.ts, which compares points at one rate) say it.
 */
export const OFFERED_RATE_AXIS_TEXT = "workload.arrival_rate is the offered load: a simulated point's throughput follows it until the server saturates, so points are compared at one rate, not by throughput across rates; for the highest rate each point sustains, run a max-rate sweep (--max-rate, with an SLO)";

/**
 * Why a trace axis ranks nothing across its values (a sweep that simulates): each trace is its own
 * load, and a point's throughput or goodput follows the load it was offered, so across traces the
 * "best" is the busiest trace (s49 newcomer M2: "best: trace=azure.csv", 40 output tokens/s against
 * moon.jsonl's 5, both kept up with). The sweep's warning at the axis and its report
 * (runner/sweep/results.ts noBestLines: a best point per trace, none across them) say it.
 */
export const TRACE_AXIS_TEXT = "workload.trace is the load itself: each trace offers its own rate and lengths, and a simulated point's throughput and goodput follow the load it is offered, so points replaying different traces compare the traces, not the deployments; the report names a best point for each trace, none across them";

/**
 * The profile keys that one part of a run reads and the other does not, by dotted prefix: the
 * kernel benchmark's cases and backend (prefill, decode, device.backend: runner/plan.ts) and the
 * serving simulation's load, SLO and step-time model (workload, slo, step_time: runner/simulate; a
 * bench point runs with workload: null, runner/sweep/worker.ts runPoint). The one table of which
 * job reads which key ({@link jobReadsKey}); every other key (model, dtype, device, kv_cache,
 * engine) both read.
 */
const READ_BY_ONE: ReadonlyArray<{ prefix: string; reader: 'benchmark' | 'simulation' }> = [
  { prefix: 'prefill', reader: 'benchmark' },
  { prefix: 'decode', reader: 'benchmark' },
  { prefix: 'device.backend', reader: 'benchmark' },
  { prefix: 'workload', reader: 'simulation' },
  { prefix: 'slo', reader: 'simulation' },
  { prefix: 'step_time', reader: 'simulation' },
];

/** The part of a run that alone reads profile key `key` (or a key inside it), or null when both do. */
export function keyReader(key: string): 'benchmark' | 'simulation' | null {
  return READ_BY_ONE.find((r) => key === r.prefix || key.startsWith(`${r.prefix}.`))?.reader ?? null;
}

/** Whether a sweep point of `job` reads profile key `key`: job bench runs the benchmark alone, simulate and max-rate the simulation alone, both each. */
export function jobReadsKey(job: SweepJob, key: string): boolean {
  const reader = keyReader(key);
  if (reader === null || job === 'both') return true;
  return reader === 'benchmark' ? job === 'bench' : job !== 'bench';
}

/**
 * The warnings at a sweep's axes for its job, each at `where(axis)`: an axis over a key the job does
 * not read ({@link jobReadsKey}: its points are the same run, s48 newcomer M2: decode.context_lens
 * under job simulate gave two identical rows and a "best"), and an arrival-rate axis of a max-rate
 * sweep ({@link MAX_RATE_ARRIVAL_AXIS_TEXT}) or of one that simulates at the profile's load
 * ({@link OFFERED_RATE_AXIS_TEXT}), and a workload.trace axis of two or more traces under a job that
 * simulates ({@link TRACE_AXIS_TEXT}). One check for `attnscope sweep` (its job perhaps --max-rate's,
 * its axes perhaps --set's: runner/sweep/spec.ts) and the editor's diagnostics at the axis keys
 * ({@link readSweepBlock}). `jobName`: how the job is named ("job simulate", or "--max-rate").
 */
export function sweepAxisWarnings(job: SweepJob, axes: readonly SweepAxis[], where: (a: SweepAxis) => SourceRange, jobName = `job ${job}`): Problem[] {
  const out: Problem[] = [];
  for (const axis of axes) {
    if (!jobReadsKey(job, axis.key)) {
      const reader = keyReader(axis.key)!;
      const message = reader === 'benchmark'
        ? `${axis.key} only changes the kernel benchmark; ${jobName} runs the simulation alone and ignores it, so the points along this axis are the same run: make the sweep's job bench or both, or drop the axis`
        : `${axis.key} only changes the serving simulation; ${jobName} benchmarks the kernels alone and ignores it, so the points along this axis are the same run: make the sweep's job simulate or both, or drop the axis`;
      out.push({ severity: 'warning', code: 'sweep-axis-not-read', message, range: where(axis), data: { key: axis.key } });
    } else if (axis.key === 'workload.arrival_rate' && (job === 'max-rate' || axis.values.length > 1)) {
      const message = job === 'max-rate' ? MAX_RATE_ARRIVAL_AXIS_TEXT : job === 'bench' ? null : OFFERED_RATE_AXIS_TEXT;
      if (message) out.push({ severity: 'warning', code: job === 'max-rate' ? 'max-rate-arrival-axis' : 'offered-rate-axis', message, range: where(axis) });
    } else if (axis.key === 'workload.trace' && axis.values.length > 1) {
      out.push({ severity: 'warning', code: 'trace-axis', message: TRACE_AXIS_TEXT, range: where(axis) });
    }
  }
  return out;
}

/** One axis: a dotted profile path and its values as value nodes (positions in the profile, or wherever the caller made them). */
export interface SweepAxis {
  key: string;
  values: ValueNode[];
  /** The key in the sweep block; null for an axis from elsewhere (the CLI's --set). */
  keyRange: SourceRange | null;
}

/** `sweep.slurm`: scheduler settings (flags of `attnscope submit` override them). */
export interface SlurmSettings {
  partition?: string;
  gpusPerTask?: number;
  cpusPerTask?: number;
  /** Time limit per task, as sbatch's --time takes it ("30", "00:30:00"). */
  time?: string;
  /** Array tasks (shards). */
  tasks?: number;
}

export interface SweepBlock {
  job: SweepJob;
  /**
   * `sweep.gpu_hour_usd`: the user's price per GPU-hour, US dollars, by GPU model (device.gpu's
   * name as written: "H100 SXM", a described GPU's name); {} when not written. What each point's
   * cost per million tokens is figured at ({@link pointGpuHourUsd}).
   */
  gpuHourUsd: Record<string, number>;
  /** Where `sweep.job` is written (its value), else the `sweep` key; null when the block has neither (no block). */
  jobRange: SourceRange | null;
  axes: SweepAxis[];
  slurm: SlurmSettings;
}

/** One point of a sweep, read. */
export interface SweepPointProfile {
  index: number;
  /** Axis key -> plain value, in axis order. */
  values: Record<string, unknown>;
  profile: Profile;
}

/**
 * Which value of each axis point `index` takes: the mixed-radix digits of `index` over the axis
 * lengths `sizes`, first axis slowest, last fastest. The one expansion order of every sweep.
 */
export function axisIndices(index: number, sizes: readonly number[]): number[] {
  const out = new Array<number>(sizes.length);
  let rest = index;
  for (let k = sizes.length - 1; k >= 0; k--) {
    out[k] = rest % sizes[k]!;
    rest = Math.floor(rest / sizes[k]!);
  }
  return out;
}

/** Points of a sweep: the product of the axis lengths (1 for no axes). */
export function sweepSize(axes: ReadonlyArray<{ values: readonly unknown[] }>): number {
  return axes.reduce((n, a) => n * a.values.length, 1);
}

/** "page_size=16 max_num_seqs=64 prefix_sharing.fraction=0.3": each key by its axis name (core/format.ts axisNames). */
export function pointLabel(values: Record<string, unknown>): string {
  const keys = Object.keys(values);
  const names = axisNames(keys);
  return keys.map((k, i) => `${names[i]}=${axisValueText(values[k])}`).join(' ');
}

/**
 * The name of the GPU a profile tree's device.gpu gives (a table name as written, a described GPU's
 * `name`), else {@link DEFAULT_GPU}: what sweep.gpu_hour_usd's keys are matched against.
 */
export function treeGpuName(root: ValueNode | null): string {
  return gpuNodeName(getProperty(getProperty(root, 'device')?.value ?? null, 'gpu')?.value ?? null) ?? DEFAULT_GPU;
}

/** The GPU name a device.gpu node gives: a table name as written, or a described GPU's `name`; undefined for neither. */
function gpuNodeName(gpu: ValueNode | null): string | undefined {
  if (gpu?.type === 'string' && typeof gpu.value === 'string') return gpu.value;
  const named = getProperty(gpu, 'name')?.value;
  return named?.type === 'string' && typeof named.value === 'string' ? named.value : undefined;
}

/** The name of the GPU a resolved profile's device runs on (DeviceSpec.gpu: a table name or a described GPU's), else {@link DEFAULT_GPU}. */
export function deviceGpuName(device: { gpu?: string }): string {
  return device.gpu ?? DEFAULT_GPU;
}

/**
 * The user's price per GPU-hour of a sweep point's GPU, US dollars, or undefined for none: the
 * sweep's own (`prices`, sweep.gpu_hour_usd) for the point's GPU name, else the profile's
 * device.gpu_hour_usd (`baseUsd`) when the point runs on the profile's own GPU (`baseGpu`): a
 * point an axis over device.gpu moved to another model is not priced at the profile's model's price.
 */
export function pointGpuHourUsd(prices: Readonly<Record<string, number>>, baseGpu: string, baseUsd: number | undefined, pointGpu: string): number | undefined {
  return Object.hasOwn(prices, pointGpu) ? prices[pointGpu] : pointGpu === baseGpu ? baseUsd : undefined;
}

/**
 * The GPU names a sweep's points can run on: the profile's (treeGpuName) and those of any axis
 * over device.gpu or device (a table name, a described GPU's name). What sweep.gpu_hour_usd's keys
 * are checked against, and what the editor completes there (with `axes` the block's own).
 */
export function sweepGpuNames(root: ValueNode, axes: readonly SweepAxis[]): string[] {
  const names = new Set([treeGpuName(root)]);
  for (const a of axes) {
    for (const v of a.values) {
      const name = gpuNodeName(a.key === 'device.gpu' ? v : a.key === 'device' ? (getProperty(v, 'gpu')?.value ?? null) : null);
      if (name !== undefined) names.add(name);
    }
  }
  return [...names];
}

/** The entries of `root`'s sweep.gpu_hour_usd mapping, as written; none without one. */
function priceProperties(root: ValueNode | null): NonNullable<ValueNode['properties']> {
  const prices = getProperty(getProperty(root, 'sweep')?.value ?? null, 'gpu_hour_usd')?.value;
  return prices?.type === 'object' ? (prices.properties ?? []) : [];
}

/**
 * A warning at each sweep.gpu_hour_usd key that names a GPU no point of the sweep over `axes`
 * runs on (a misspelt "H100" for "H100 SXM" prices nothing, and its model would be ranked per GPU
 * unpriced), with the closest point GPU as the suggestion; the language server's and `attnscope
 * sweep`'s (whose axes include --set's) check.
 */
export function sweepPriceProblems(root: ValueNode, axes: readonly SweepAxis[]): Problem[] {
  const props = priceProperties(root);
  if (props.length === 0) return [];
  const gpus = sweepGpuNames(root, axes);
  return props.filter((p) => !gpus.includes(p.key)).map((p) => {
    const suggestion = closestKey(p.key, gpus);
    return {
      severity: 'warning' as const, code: 'sweep-price-unused',
      message: `sweep.gpu_hour_usd prices "${p.key}", which no point of the sweep runs on (its GPUs: ${gpus.join(', ')})${suggestion ? `: did you mean "${suggestion}"?` : ''}; a key is the GPU's name as device.gpu writes it`,
      range: p.keyRange, data: { key: 'sweep.gpu_hour_usd', ...(suggestion ? { suggestion } : {}) },
    };
  });
}

/** Keys the schema knows under `path` (for "did you mean" and completion). */
function knownKeys(path: readonly string[]): string[] {
  return keysAt(path).map((k) => k.key).filter((k) => k !== '$schema' && k !== 'sweep');
}

/**
 * Every dotted profile path a sweep axis can take, with the schema's description: the
 * top-level keys and their members (model's inline HF keys, workload.prompt_len.median, ...).
 * What completion offers under `sweep.axes`.
 */
export function sweepAxisKeys(): Array<{ key: string; description?: string }> {
  const out: Array<{ key: string; description?: string }> = [];
  const walk = (path: string[], depth: number) => {
    for (const k of knownKeys(path)) {
      const p = [...path, k];
      out.push({ key: p.join('.'), description: schemaAt(p).find((n) => n.description)?.description });
      if (depth < 2) walk(p, depth + 1);
    }
  };
  walk([], 0);
  return out;
}

/** The problem with an axis key, or null: not a profile key (with a suggestion), `sweep` itself, or a price (device.gpu_hour_usd). */
function axisKeyProblem(key: string, range: SourceRange): Problem | null {
  // A price changes no simulation (it is left out of the sweep's id): an axis over it ran every point again and priced none (s44 newcomer M5).
  if (key === 'device.gpu_hour_usd') {
    return {
      severity: 'error', code: 'sweep-axis-unknown', range, data: { key },
      message: '"device.gpu_hour_usd" is no axis to sweep: a price changes no simulation, so each value would run the same points again; give the prices in sweep.gpu_hour_usd: { "<GPU>": usd } (one a GPU model), which prices every point and ranks them by cost',
    };
  }
  const segs = key.split('.');
  const bad = segs.findIndex((_, i) => schemaAt(segs.slice(0, i + 1)).length === 0);
  if (segs[0] !== 'sweep' && !segs.includes('') && bad < 0) return null;
  const parent = bad > 0 ? segs.slice(0, bad) : [];
  const flag = bad >= 0 ? unmodelledVllmFlag(segs[bad]!) : undefined;
  const suggestion = bad >= 0 && !flag ? closestKey(segs[bad]!, knownKeys(parent)) : undefined;
  // No close key: the keys there are, so the user picks one (s52 newcomer: "unknown key "nosuch"" alone).
  const known = knownKeys(parent);
  const keysThere = known.length === 0 ? '' : `; ${bad > 0 ? `${parent.join('.')}'s keys are` : 'an axis starts with one of'} ${known.join(', ')}${bad > 0 ? '' : ' (workload.arrival_rate, kv_cache.page_size, ...)'}`;
  const detail = flag ? `: ${unmodelledFlagMessage(flag)}` : bad >= 0 ? `: unknown key "${segs[bad]}"${bad > 0 ? ` in ${parent.join('.')}` : ''}${suggestion ? `, did you mean "${suggestion}"?` : keysThere}` : '';
  return {
    severity: 'error', code: 'sweep-axis-unknown', message: `"${key}" is not a profile key to sweep${detail}`, range,
    data: suggestion ? { key, suggestion: [...parent, suggestion].join('.') } : { key },
  };
}

/**
 * Why `text` is no time limit sbatch's --time takes, or null when it is one. sbatch(1), --time:
 * "Acceptable time formats include "minutes", "minutes:seconds", "hours:minutes:seconds",
 * "days-hours", "days-hours:minutes" and "days-hours:minutes:seconds"" (each a whole number; "0"
 * asks for no limit); Slurm's time_str2secs (src/common/parse_time.c), which sbatch's --time goes
 * through, also reads "-1", "INFINITE" and "UNLIMITED" (any case) as INFINITE, no limit. Checked
 * here so that a bad limit is refused before any file is written, not by sbatch after.
 */
export function slurmTimeProblem(text: string): string | null {
  if (/^(?:\d+(?::\d+){0,2}|\d+-\d+(?::\d+){0,2})$/.test(text) || /^(?:-1|infinite|unlimited)$/i.test(text)) return null;
  return `${JSON.stringify(text)} is no Slurm time limit: sbatch --time takes minutes, minutes:seconds, hours:minutes:seconds, days-hours, days-hours:minutes or days-hours:minutes:seconds (e.g. 30, 00:30:00, 1-12), or UNLIMITED`;
}

/**
 * The meaning of `root`'s `sweep:` block, whose shape the schema has checked: its job, axes and
 * Slurm settings, and the problems of its axes (unknown keys, overlapping axes; a max-rate
 * sweep's arrival_rate axis, a warning) at their keys.
 * Null block when the profile has none or it is not a mapping.
 */
export function readSweepBlock(root: ValueNode | null): { block: SweepBlock | null; problems: Problem[] } {
  const node = getProperty(root, 'sweep')?.value;
  if (!node || node.type !== 'object') return { block: null, problems: [] };
  const axesNode = getProperty(node, 'axes')?.value;
  const axes: SweepAxis[] = (axesNode?.type === 'object' ? (axesNode.properties ?? []) : [])
    .filter((p) => p.value.type === 'array')
    .map((p) => ({ key: p.key, values: p.value.items ?? [], keyRange: p.keyRange }));
  const job = getProperty(node, 'job')?.value?.value;
  const plain = (getProperty(node, 'slurm') ? toPlain(getProperty(node, 'slurm')!.value) : {}) as Record<string, unknown>;
  const slurm: SlurmSettings = {};
  if (typeof plain.partition === 'string') slurm.partition = plain.partition;
  if (typeof plain.gpus_per_task === 'number') slurm.gpusPerTask = plain.gpus_per_task;
  if (typeof plain.cpus_per_task === 'number') slurm.cpusPerTask = plain.cpus_per_task;
  if (typeof plain.time === 'string' || typeof plain.time === 'number') slurm.time = String(plain.time);
  if (typeof plain.tasks === 'number') slurm.tasks = plain.tasks;
  const jobRange = getProperty(node, 'job')?.value.range ?? getProperty(root, 'sweep')!.keyRange;
  // Prices the schema has checked (a positive number each); another value is left out here, named there.
  const gpuHourUsd: Record<string, number> = {};
  for (const p of priceProperties(root)) if (p.value.type === 'number' && typeof p.value.value === 'number' && p.value.value > 0) gpuHourUsd[p.key] = p.value.value;
  const block: SweepBlock = { job: SWEEP_JOBS.includes(job as SweepJob) ? (job as SweepJob) : 'simulate', jobRange, axes, slurm, gpuHourUsd };
  const problems = [...axisProblems(axes, (a) => a.keyRange ?? node.range), ...sweepPriceProblems(root!, axes)];
  const slo = block.job === 'max-rate' ? maxRateSloProblem(root!, axes, jobRange) : null;
  if (slo) problems.push(slo);
  problems.push(...sweepAxisWarnings(block.job, axes, (a) => a.keyRange ?? node.range));
  const timeNode = getProperty(getProperty(node, 'slurm')?.value ?? null, 'time')?.value;
  const timeProblem = slurm.time !== undefined ? slurmTimeProblem(slurm.time) : null;
  if (timeProblem && timeNode) problems.push({ severity: 'error', code: 'invalid-value', message: `sweep.slurm.time ${timeProblem}`, range: timeNode.range, data: { key: 'sweep.slurm.time' } });
  return { block, problems };
}

/**
 * Why a `max-rate` sweep over `axes` of the profile `root` cannot run, or null: no SLO bound, so
 * no rate can be judged (runner/simulate/capacity.ts searchCapacity refuses it; `simulate
 * --max-rate` too). A bound is the profile's `slo.ttft_ms` or `slo.tpot_ms`, or an axis over
 * `slo`, `slo.ttft_ms` or `slo.tpot_ms`. At the `slo` key when the profile writes one without
 * a bound, else at `jobRange` (sweep.job's value, or the `sweep` key), else at the file's start
 * (a job set by `attnscope sweep --max-rate` on a profile without a sweep block). `byFlag`: the job
 * is --max-rate's, so the other remedy is to leave the flag out, else to set sweep.job to simulate.
 */
export function maxRateSloProblem(root: ValueNode, axes: ReadonlyArray<{ key: string }>, jobRange: SourceRange | null, byFlag = false): Problem | null {
  const slo = getProperty(root, 'slo');
  const bound = (k: string) => getProperty(slo?.value ?? null, k) !== undefined;
  if (bound('ttft_ms') || bound('tpot_ms') || axes.some((a) => a.key === 'slo' || a.key === 'slo.ttft_ms' || a.key === 'slo.tpot_ms')) return null;
  const what = slo ? 'the profile\'s slo sets no bound' : 'the profile has no slo';
  return {
    severity: 'error', code: 'sweep-max-rate-no-slo',
    message: `a max-rate sweep finds each point's highest arrival rate meeting the SLO, and ${what}: add slo: { ttft_ms: ..., tpot_ms: ... } (either or both), or ${byFlag ? 'leave out --max-rate' : 'set the sweep block\'s job to simulate'} to simulate each point at the profile's arrival rate`,
    range: slo?.keyRange ?? jobRange ?? { offset: 0, length: 0 },
  };
}

/**
 * Repeated values of one axis marked one by one; past them one error says how many in all (a
 * pasted axis of 20,000 equal values gave 19,999 diagnostics, 5.9 MB, to the editor: s30).
 */
export const REPEATS_MARKED = 10;

/**
 * Unknown axis keys and overlapping axes, each at `where(axis)`; a value an axis repeats (the
 * same point twice: one point id, run once and counted once) at the repeat's own range.
 */
export function axisProblems(axes: readonly SweepAxis[], where: (a: SweepAxis) => SourceRange): Problem[] {
  const problems: Problem[] = [];
  for (const a of axes) {
    const p = axisKeyProblem(a.key, where(a));
    if (p) problems.push(p);
    const overlap = axes.find((o) => o !== a && o.key.startsWith(`${a.key}.`));
    if (overlap) problems.push({ severity: 'error', code: 'sweep-axes-overlap', message: `sweep axes ${a.key} and ${overlap.key} overlap: sweep one of them`, range: where(overlap) });
    const seen = new Set<string>();
    const repeats = a.values.filter((v) => {
      const value = JSON.stringify(toPlain(v));
      const again = seen.has(value);
      seen.add(value);
      return again;
    });
    for (const v of repeats.slice(0, REPEATS_MARKED)) {
      problems.push({ severity: 'error', code: 'sweep-axis-repeat', message: `the sweep axis ${a.key} repeats the value ${JSON.stringify(toPlain(v))}: each value runs once, drop the repeat`, range: v.range, data: { key: a.key } });
    }
    if (repeats.length > REPEATS_MARKED) {
      problems.push({ severity: 'error', code: 'sweep-axis-repeat', message: `the sweep axis ${a.key} repeats ${formatCount(repeats.length)} values in all (the first ${REPEATS_MARKED} are marked): each value runs once, drop the repeats`, range: repeats[REPEATS_MARKED]!.range, data: { key: a.key } });
    }
  }
  return problems;
}

/** The tree without `sweep`, with each (path, value node) put in place; missing mappings are created at `anchor`. */
export function sweepPointTree(root: ValueNode, assignments: ReadonlyArray<{ key: string; value: ValueNode; anchor: SourceRange }>): ValueNode {
  const out: ValueNode = { ...root, properties: (root.properties ?? []).filter((p) => p.key !== 'sweep') };
  for (const { key, value, anchor } of assignments) {
    const segs = key.split('.');
    let node = out;
    segs.forEach((seg, i) => {
      const props = (node.properties ??= []);
      const at = props.map((p) => p.key).lastIndexOf(seg);
      if (i === segs.length - 1) {
        if (at >= 0) props[at] = { ...props[at]!, value };
        else props.push({ key: seg, keyRange: anchor, value });
        return;
      }
      let child = at >= 0 ? props[at]!.value : undefined;
      // Copy each mapping on the way down: the base tree is shared by every point.
      child = child?.type === 'object' ? { ...child, properties: [...(child.properties ?? [])] } : { type: 'object', range: anchor, properties: [] };
      if (at >= 0) props[at] = { ...props[at]!, value: child };
      else props.push({ key: seg, keyRange: anchor, value: child });
      node = child;
    });
  }
  return out;
}

/**
 * The fix for an axis over a list-valued key written as a list of scalars (`prefill.seq_lens:
 * [512, 1024]`), appended to the "must be an array" error the point's scalar value gets: each
 * value of such an axis is itself a list (`[[512], [1024]]`). "" for any other problem.
 */
function listKeyHint(p: Problem, axes: readonly SweepAxis[], assignments: ReadonlyArray<{ key: string; value: ValueNode }>): string {
  const at = assignments.find((a) => a.value.type !== 'array' && a.value.range.offset === p.range.offset && a.value.range.length === p.range.length);
  if (!at || p.code !== 'wrong-type' || !/must be an array/.test(p.message)) return '';
  const axis = axes.find((a) => a.key === at.key)!;
  const lists = axis.values.slice(0, 2).map((v) => `[${JSON.stringify(toPlain(v))}]`);
  return `; to sweep a list key, make each axis value a list: ${at.key}: [${lists.join(', ')}${axis.values.length > 2 ? ', ...' : ''}]`;
}

/**
 * Reads point `index` of `axes` over the profile tree `root`: the profile with each axis value
 * at its path, through the ordinary reader. Its problems keep their ranges (an axis value's
 * problem lands on that value) and their messages as the profile's; the caller names the point
 * by `label` (the CLI's "sweep point <label>: ", runner/errors.ts pointText; the editor's counts
 * of the points an error is in, sweepProblems).
 */
export function readSweepPoint(root: ValueNode, axes: readonly SweepAxis[], index: number, file: string, host: ProfileHost): { point: SweepPointProfile | null; label: string; problems: Problem[] } {
  const digits = axisIndices(index, axes.map((a) => a.values.length));
  const assignments = axes.map((a, k) => {
    const value = a.values[digits[k]!]!;
    return { key: a.key, value, anchor: a.keyRange ?? value.range };
  });
  const values: Record<string, unknown> = {};
  for (const { key, value } of assignments) values[key] = toPlain(value);
  const label = pointLabel(values);
  const read = readProfileTree({ root: sweepPointTree(root, assignments), problems: [] }, file, host);
  const problems = read.problems.map((p) => (p.severity === 'error' ? { ...p, message: `${p.message}${listKeyHint(p, axes, assignments)}` } : p));
  return { point: read.value ? { index, values, profile: read.value } : null, label, problems };
}

/** A sweep point's notes (its problems that are not errors, core/validate.ts sweepPointNotes) and the index of each of its axis values. */
export interface PointNotes {
  label: string;
  digits: number[];
  problems: Problem[];
}

/**
 * Where the notes of a sweep's points are said, each once: the one implementation of the CLI's
 * lines (runner/sweep/spec.ts loadSweep) and the editor's diagnostics ({@link sweepProblems}). A
 * note every point raises alike is the profile's: at its own range, as it is. One that only some
 * points raise is theirs (s34 newcomer-cli 13: two points' "vLLM would refuse to start" at the
 * profile's max_model_len, naming neither the point nor the --set memory_gib that made it): named
 * by its point ("sweep point page_size=2: ...") and placed at the value of the axis that tells
 * them apart — the first axis whose values of the points raising it are none of the others' — or
 * of the first axis; where several points hold that value, once for them all by it ("sweep points
 * with page_size=2 (32 of 256): ...", as the editor names the points an error is in, where a line a
 * point said each value 32 times over); a model config's note (`file` another file's) stays at its line there.
 * `points`: every point read, in order (a note's "every point" is of these).
 */
export function placePointNotes(axes: readonly SweepAxis[], points: readonly PointNotes[], file: string): Problem[] {
  const noteKey = (p: Problem) => `${p.severity}\u0000${p.message}`;
  // Linear in the notes (s47: a copy per point made 256 points' notes quadratic): each note's raising points once,
  // then per note its separating axis from counts of axis values.
  const raisedBy = new Map<string, number[]>();
  points.forEach((n, i) => {
    for (const p of n.problems) {
      const by = raisedBy.get(noteKey(p));
      if (by === undefined) raisedBy.set(noteKey(p), [i]);
      else if (by.at(-1) !== i) by.push(i);
    }
  });
  // holding[k][d]: how many points hold value d of axis k.
  const holding = axes.map((a) => new Array<number>(a.values.length).fill(0));
  for (const o of points) o.digits.forEach((d, k) => holding[k]![d]!++);
  /** The first axis whose values of the points raising a note are held by none of the others (-1: none). */
  const separating = new Map<string, number>();
  const separatingAxis = (key: string): number => {
    let k = separating.get(key);
    if (k !== undefined) return k;
    const by = raisedBy.get(key)!;
    k = axes.findIndex((_, a) => {
      const raising = new Map<number, number>();
      for (const i of by) raising.set(points[i]!.digits[a]!, (raising.get(points[i]!.digits[a]!) ?? 0) + 1);
      return [...raising].every(([d, n]) => holding[a]![d] === n);
    });
    separating.set(key, k);
    return k;
  };
  const out: Problem[] = [];
  const said = new Set<string>();
  const add = (p: Problem) => {
    const k = `${p.file ?? ''}\u0000${p.range.offset}\u0000${noteKey(p)}`;
    if (!said.has(k)) out.push(p);
    said.add(k);
  };
  for (const n of points) {
    for (const p of n.problems) {
      if (raisedBy.get(noteKey(p))!.length === points.length) {
        add(p);
        continue;
      }
      const k = separatingAxis(noteKey(p));
      // The points holding this point's value of the separating axis all raise it: named by that value when they are several.
      const count = k >= 0 ? holding[k]![n.digits[k]!]! : 1;
      const which = count > 1 ? `sweep points with ${pointLabel({ [axes[k]!.key]: toPlain(axes[k]!.values[n.digits[k]!]!) })} (${formatCount(count)} of ${formatCount(points.length)})` : `sweep point ${n.label}`;
      const message = `${which}: ${p.message}`;
      if (p.file && p.file !== file) {
        add({ ...p, message });
        continue;
      }
      const at = Math.max(0, k);
      add({ ...p, file: undefined, range: axes[at]!.values[n.digits[at]!]!.range, message });
    }
  }
  return out;
}

/** At most this many points are read for the editor's diagnostics (the CLI reads them all). */
export const SWEEP_POINTS_CHECKED = 256;

/** The most points one sweep may have (`attnscope sweep` refuses more, and the editor marks the block): split a bigger one. */
export const MAX_SWEEP_POINTS = 100_000;

/** Why a sweep of `total` points is refused, or null: more than {@link MAX_SWEEP_POINTS}. */
export function sweepTooBig(total: number): string | null {
  return total > MAX_SWEEP_POINTS ? `the sweep has ${formatCount(total)} points, more than ${formatCount(MAX_SWEEP_POINTS)}: split it` : null;
}

/** Labels listed by name in a sweep error before "and N more". */
const POINTS_NAMED = 3;

/**
 * The editor's problems of a profile's sweep: the block's own, then the errors of its points,
 * reading at most {@link SWEEP_POINTS_CHECKED} points (an info says so when there are more).
 * Each distinct error (its file, range and message) once, saying which points it is in: the
 * axis values they share when exactly the points holding them fail ("the sweep points with
 * page_size=0 (2 of 4)"), else their labels (the first three and how many more, "(5 of 8)"),
 * or "every sweep point" when all checked ones do. An error of every point that `base` (the
 * profile's own problems) already has is left out: the base value is wrong, and one diagnostic
 * says so. With `pointNoter` (core/validate.ts sweepPointNoter: a point's warnings and infos, as a
 * run says them, for the sweep's axes and job), the notes of the points that read without an error, placed as `attnscope sweep`
 * places its lines ({@link placePointNotes}: "sweep point page_size=2: ..." at that axis value),
 * less those the profile's own reading (`base`) already shows at the same place in the same words.
 */
export function sweepProblems(
  root: ValueNode | null,
  file: string,
  host: ProfileHost,
  base: readonly Problem[] = [],
  pointNoter?: (axes: readonly SweepAxis[], job: SweepJob) => (read: readonly Problem[], profile: Profile, digits: readonly number[]) => Problem[],
): { block: SweepBlock | null; points: number; problems: Problem[] } {
  const { block, problems } = readSweepBlock(root);
  if (!block || !root || block.axes.length === 0) return { block, points: block ? sweepSize(block.axes) : 0, problems };
  const total = sweepSize(block.axes);
  const sweepNode = getProperty(root, 'sweep')!;
  const tooBig = sweepTooBig(total);
  if (tooBig) {
    // The runner refuses it before any point runs: an error at the block (and no Run sweep lens).
    problems.push({ severity: 'error', code: 'sweep-too-big', message: tooBig, range: sweepNode.keyRange, data: { points: total, limit: MAX_SWEEP_POINTS } });
  }
  // The values of every axis whose key reads are checked now, beside an unknown or overlapping
  // axis key or an empty axis elsewhere (s37: they came only once those were fixed). The axes
  // whose key has an error, and the empty ones, are left out of the points read.
  const badKeys = new Set(problems.filter((p) => p.severity === 'error' && p.code !== 'sweep-axis-repeat').map((p) => p.range.offset));
  const axes = block.axes.filter((a) => a.values.length > 0 && !(a.keyRange && badKeys.has(a.keyRange.offset)));
  if (axes.length === 0) return { block, points: total, problems };
  const readable = sweepSize(axes);
  const checked = Math.min(readable, SWEEP_POINTS_CHECKED);
  const sizes = axes.map((a) => a.values.length);
  const keyOf = (p: Problem, message: string): string => `${p.file ?? ''}:${p.range.offset}:${message}`;
  // Each distinct error: the first point's problem (its message as the profile's) and the indices of the points it is in.
  const errors = new Map<string, { problem: Problem; points: number[] }>();
  // The notes of the points that read without an error (an error's point runs nothing, so its notes are moot).
  const notes: PointNotes[] = [];
  const pointNotes = pointNoter?.(axes, block.job);
  for (let i = 0; i < checked; i++) {
    const read = readSweepPoint(root, axes, i, file, host);
    if (pointNotes && read.point && !read.problems.some((p) => p.severity === 'error')) {
      const digits = axisIndices(i, sizes);
      notes.push({ label: read.label, digits, problems: pointNotes(read.problems, read.point.profile, digits) });
    }
    for (const p of read.problems) {
      if (p.severity !== 'error') continue;
      const k = keyOf(p, p.message);
      const seen = errors.get(k);
      if (seen === undefined) errors.set(k, { problem: p, points: [i] });
      else if (seen.points.at(-1) !== i) seen.points.push(i);
    }
  }
  const inBase = new Set(base.filter((p) => p.severity === 'error').map((p) => keyOf(p, p.message)));
  // Each point's axis values: as text to compare (Infinity kept apart from null), as plain values to label.
  const plain = (i: number): unknown[] => axisIndices(i, sizes).map((d, k) => toPlain(axes[k]!.values[d]!));
  const values = (i: number): string[] => plain(i).map((v) => (typeof v === 'number' ? String(v) : JSON.stringify(v)));
  const labelOf = (i: number): string => pointLabel(Object.fromEntries(axes.map((a, k) => [a.key, plain(i)[k]])));
  for (const [k, { problem, points }] of errors) {
    const every = points.length === checked;
    if (every && inBase.has(k)) continue;
    let which: string;
    if (every) which = readable > checked ? `each of the first ${checked} sweep points` : `every sweep point (${formatCount(readable)})`;
    else {
      // The axis values every failing point shares; when exactly the points holding them fail, they name the points.
      const first = values(points[0]!);
      const shared = axes.map((_, a) => a).filter((a) => points.every((i) => values(i)[a] === first[a]));
      let holding = 0;
      for (let i = 0; i < checked; i++) if (shared.every((a) => values(i)[a] === first[a])) holding++;
      const count = `(${points.length} of ${checked})`;
      if (shared.length > 0 && holding === points.length) {
        const firstPlain = plain(points[0]!);
        const label = pointLabel(Object.fromEntries(shared.map((a) => [axes[a]!.key, firstPlain[a]])));
        which = points.length === 1 ? `sweep point ${labelOf(points[0]!)} ${count}` : `the sweep points with ${label} ${count}`;
      } else {
        const named = points.slice(0, POINTS_NAMED).map(labelOf).join(', ');
        const more = points.length > POINTS_NAMED ? ` and ${points.length - POINTS_NAMED} more` : '';
        which = `sweep point${points.length > 1 ? 's' : ''} ${named}${more} ${count}`;
      }
    }
    problems.push({ ...problem, message: `${which}: ${problem.message}` });
  }
  // The points' notes, placed as the CLI places them (placePointNotes); one the profile's own reading already shows (a base value's) once, as that.
  const inBaseNotes = new Set(base.map((p) => `${p.file ?? ''}:${p.range.offset}:${p.message}`));
  for (const p of placePointNotes(axes, notes, file)) if (!inBaseNotes.has(`${p.file ?? ''}:${p.range.offset}:${p.message}`)) problems.push(p);
  if (readable > SWEEP_POINTS_CHECKED && !tooBig) {
    problems.push({ severity: 'info', code: 'sweep-partly-checked', message: `the sweep has ${formatCount(readable)} points; the editor checks the first ${SWEEP_POINTS_CHECKED} (attnscope sweep checks all before it runs)`, range: sweepNode.keyRange });
  }
  return { block, points: total, problems };
}
