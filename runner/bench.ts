/**
 * Runs a benchmark: measures the machine, plans the cases, times each kernel with the native
 * timing loop, checks each against the fp64 reference on a reduced shape, and returns the
 * run (core/protocol/run.ts). Events go to `emit` as they happen, so the CLI can print
 * progress and the extension can stream them to the dashboard.
 */
import type { Backend, Dtype, KernelBackendName, Profile } from '../core/config/types';
import { estimate, poolSizeProblem } from '../core/estimate';
import { formatBytes, formatCount, formatDuration, formatRate, fromCacheBy, perGpuCaseText } from '../core/format';
import { createRun, type CaseShape, type Environment, type KernelCase, type PoolCancelled, type RunProblem, type RunResult } from '../core/protocol/run';
import type { RunnerEvent } from '../core/protocol/runner';
import * as native from '../native';
import { cpuCasePath, measureEnvironment, measureGpu } from './environment';
import { CancelledError } from './errors';
import { randomInputs, randomKvPagesUntil } from './inputs';
import { attentionBytes, attentionFlops, ceilingFor, maxAbsDiff, summarizeCase, withRemeasuredPeaks } from './measure';
import { planCases, quickShortening, timingBudget, type PlannedCase } from './plan';
import { DramRead, dramReadBytes, measureReadAlone, type ReadAloneRates } from './readAlone';
import { PoolConfigError, simulatePool, type PoolProgress } from './simulate';
import { toolBuild } from './version';

export interface BenchOptions {
  quick: boolean;
  backend: Backend;
  /** Display name of the run (file name). */
  name: string;
  signal?: AbortSignal;
  emit: (event: RunnerEvent) => void;
  /** Pool samples the simulation keeps (simulatePool's maxSamples; default its 2,000). */
  maxPoolSamples?: number;
  /** The profile's problems the CLI printed before the run, kept in it (RunResult.problems). */
  problems?: RunProblem[];
}

function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw new CancelledError();
}

/** `length` input values of `dtype` from `seed`. */
type Values = (dtype: Dtype, length: number, seed: number) => Promise<Float32Array | Uint16Array>;

/** The check's inputs: randomInputs, every key distinct, so a tile read at the wrong offset shows. */
const checkValues: Values = async (dtype, length, seed) => randomInputs(dtype, length, seed);

/**
 * Timed runs' inputs, whose values do not change the time: randomKvPages' native memory, tiled,
 * filled in steps that a cancel (`signal`) stops (randomKvPagesUntil: Ctrl-C stays prompt).
 */
const tiledValues = (signal: AbortSignal | undefined): Values => async (dtype, length, seed) => (await randomKvPagesUntil(dtype, length, seed, signal)).data;

/** Flash inputs from `values`: checkValues for the check, tiledValues for the timed runs. */
async function flashArgs(shape: CaseShape, dtype: Dtype, seed: number, values: Values) {
  const { batchSize: b, seqLenQ: nq, seqLenK: nk, numHeads: h, numKvHeads: hkv, headDim: d } = shape;
  return {
    q: await values(dtype, b * nq * h * d, seed),
    k: await values(dtype, b * nk * hkv * d, seed + 1),
    v: await values(dtype, b * nk * hkv * d, seed + 2),
    batch: b,
    seqLenQ: nq,
    seqLenK: nk,
    numHeads: h,
    numKvHeads: hkv,
    headDim: d,
    dtype,
    causal: shape.causal,
    window: shape.slidingWindow ?? 0,
  };
}

/**
 * Decode inputs with the K/V pool laid out by the page allocator: sequences grow a page at a
 * time in turn, so each one's pages are scattered through the pool as in a serving engine.
 * The pools are native memory with huge pages where Linux allows (randomKvPages), as in
 * bench:kernels: from JS arrays (4 KiB pages) decode at B=16, 32k ran 2.9-3.5x slower on Zen 5.
 * A cancel (`signal`) stops the filling of the pools (randomKvPagesUntil).
 */
async function decodeArgs(shape: CaseShape, dtype: Dtype, kvDtype: Dtype, seed: number, signal: AbortSignal | undefined) {
  const { batchSize: b, seqLenK: ctx, numHeads: h, numKvHeads: hkv, headDim: d } = shape;
  const pageSize = shape.pageSize ?? 16;
  const pagesPerSeq = Math.ceil(ctx / pageSize);
  const numPages = b * pagesPerSeq;
  const alloc = new native.PageAllocator({ numPages, pageSize });
  for (let s = 0; s < b; s++) alloc.allocate(s, 0);
  for (let p = 0; p < pagesPerSeq; p++) {
    const tokens = Math.min(pageSize, ctx - p * pageSize);
    for (let s = 0; s < b; s++) {
      const status = alloc.append(s, tokens);
      if (status !== 'ok') throw new Error(`page allocator: append for sequence ${s} returned ${status}`);
    }
  }
  const blockTable = new Int32Array(b * pagesPerSeq);
  for (let s = 0; s < b; s++) blockTable.set(alloc.blockTable(s)!, s * pagesPerSeq);
  const poolLen = numPages * pageSize * hkv * d;
  return {
    q: randomInputs(dtype, b * h * d, seed),
    kPages: (await randomKvPagesUntil(kvDtype, poolLen, seed + 1, signal)).data,
    vPages: (await randomKvPagesUntil(kvDtype, poolLen, seed + 2, signal)).data,
    blockTable,
    contextLens: new Int32Array(b).fill(ctx),
    batch: b,
    numHeads: h,
    numKvHeads: hkv,
    headDim: d,
    pageSize,
    numPages,
    maxPagesPerSeq: pagesPerSeq,
    dtype,
    kvDtype,
    // The kernel reads the window's pages only; the pool holds the whole context, as vLLM's
    // does until it releases the pages behind the window.
    window: shape.slidingWindow ?? 0,
  };
}

/** The kernels of one backend; both take the same arguments (native/kernels.ts shapes). */
interface KernelBackend {
  name: KernelBackendName;
  flashForward: typeof native.flashForward;
  pagedDecode: typeof native.pagedDecode;
  timeFlashForward: typeof native.timeFlashForward;
  timePagedDecode: typeof native.timePagedDecode;
}

const CPU_BACKEND: KernelBackend = {
  name: 'cpu',
  flashForward: native.flashForward,
  pagedDecode: native.pagedDecode,
  timeFlashForward: native.timeFlashForward,
  timePagedDecode: native.timePagedDecode,
};

const CUDA_BACKEND: KernelBackend = {
  name: 'cuda',
  flashForward: native.cudaFlashForward,
  pagedDecode: native.cudaPagedDecode,
  timeFlashForward: native.timeCudaFlashForward,
  timePagedDecode: native.timeCudaPagedDecode,
};

/** A decode case under a sliding window: the CPU kernel reads the window's pages; the CUDA decode kernel reads whole contexts only. */
const windowedDecode = (c: PlannedCase) => c.kernel === 'paged_decode' && (c.shape.slidingWindow ?? 0) > 0;

/**
 * The planned cases `backend` runs, and a line for those it leaves out: the CUDA decode kernel
 * takes no window, so on 'cuda' the windowed decode cases are not timed (the line names them).
 */
export function backendCases(backend: KernelBackendName, plan: PlannedCase[]): { cases: PlannedCase[]; skipped: string | null } {
  const left = backend === 'cuda' ? plan.filter(windowedDecode) : [];
  if (left.length === 0) return { cases: plan, skipped: null };
  return {
    cases: plan.filter((c) => !windowedDecode(c)),
    skipped: `not timed on cuda, whose decode kernel reads the whole context (no sliding window): ${left.map(describeCase).join('; ')}`,
  };
}

/**
 * The backend a run uses: 'cuda' needs the CUDA library, a device, and cases the GPU kernels
 * take (fp16/bf16, core/kernelLimits.json's head dims and page sizes; windowed decode cases
 * aside, which backendCases leaves out there) — else BackendError with the reason; 'auto' takes CUDA
 * when all of that holds, the CPU otherwise.
 */
export function selectBackend(requested: Backend, plan: PlannedCase[]): KernelBackend {
  if (requested === 'cpu') return CPU_BACKEND;
  const cuda = native.cudaAvailable();
  let why = cuda.available ? undefined : `the CUDA backend is not available: ${cuda.reason ?? 'unknown reason'}`;
  for (const c of plan.filter((x) => !windowedDecode(x))) {
    if (why) break;
    const decode = c.kernel === 'paged_decode';
    const unsupported = native.cudaUnsupportedReason({ dtype: c.dtype, kvDtype: decode ? c.kvDtype : undefined, headDim: c.shape.headDim, pageSize: decode ? c.shape.pageSize : undefined });
    if (unsupported) why = `the CUDA kernels cannot run ${describeCase(c)}: ${unsupported}`;
  }
  if (!why) return CUDA_BACKEND;
  if (requested === 'cuda') throw new BackendError(`${why}. Use --backend cpu`);
  return CPU_BACKEND;
}

/** The requested backend cannot run on this machine (the CLI exits 2 with the reason). */
export class BackendError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackendError';
  }
}

/** Runs the case's kernel and the fp64 reference (always on the CPU) on the reduced shape. */
async function checkCase(backend: KernelBackend, c: PlannedCase, seed: number, signal: AbortSignal | undefined): Promise<{ maxAbsErr: number; lseMaxAbsErr: number | null }> {
  if (c.kernel === 'flash_fwd') {
    const args = await flashArgs(c.checkShape, c.dtype, seed, checkValues);
    const [got, ref] = await Promise.all([backend.flashForward(args), native.referenceAttention(args)]);
    return { maxAbsErr: maxAbsDiff(got.o, ref.o), lseMaxAbsErr: maxAbsDiff(got.lse, ref.lse) };
  }
  const args = await decodeArgs(c.checkShape, c.dtype, c.kvDtype, seed, signal);
  const [got, ref] = await Promise.all([backend.pagedDecode(args), native.referencePagedDecode(args)]);
  return { maxAbsErr: maxAbsDiff(got.o, ref.o), lseMaxAbsErr: maxAbsDiff(got.lse, ref.lse) };
}

/**
 * Times the case's full shape. A case whose one call takes longer than the loop's time budget
 * even at its roof (roofSeconds, a lower bound) gets no warm-up call: the loop then stops after
 * its first sample, and at N = 128k a warm-up would double minutes of work. A GQA decode case on
 * the native CPU build also has its pages read alone right after, on the same pages, in rounds
 * with a read of pages past every cache (runner/readAlone.ts measureReadAlone: one thread, the
 * fastest call's CPU time; `dram`, allocated on first use): what core/format.ts fromCacheBy holds
 * one against the other to tell a case read from cache.
 */
async function timeCase(backend: KernelBackend, c: PlannedCase, quick: boolean, seed: number, peaks: Environment['peaks'], dram: DramRead, signal: AbortSignal | undefined): Promise<{ samplesNs: number[]; readAlone?: ReadAloneRates }> {
  const budget = timingBudget(quick);
  const roof = roofSeconds(c, backend.name, peaks);
  const slow = !!roof && roof.seconds * 1e3 > budget.maxTimeMs;
  const timing = slow ? { ...budget, warmup: 0 } : budget;
  if (c.kernel === 'flash_fwd') return { samplesNs: (await backend.timeFlashForward(await flashArgs(c.shape, c.dtype, seed, tiledValues(signal)), timing)).samplesNs };
  const args = await decodeArgs(c.shape, c.dtype, c.kvDtype, seed, signal);
  const samplesNs = (await backend.timePagedDecode(args, timing)).samplesNs;
  // MLA reads one latent for K and V, the read loop two pools: not the same bytes.
  if (backend.name !== 'cpu' || native.loadedBuild().build !== 'native' || c.shape.mlaLatentDim) return { samplesNs };
  // The pages' bytes alone: with no query heads, no Q or O.
  const pageBytes = attentionBytes({ ...c.shape, numHeads: 0 }, c.dtype, c.kvDtype);
  const readAlone = await measureReadAlone(args, pageBytes, dram, { minTimeMs: budget.minTimeMs });
  return readAlone ? { samplesNs, readAlone } : { samplesNs };
}

/** One call of a case past this many seconds at the machine's roof is said before it runs. */
export const SLOW_CALL_S = 60;

/**
 * One call of the case at the roof that bounds it on this backend (runner/measure.ts ceilingFor
 * over the run's measured `peaks`): FLOPs over the compute peak, or bytes over the bandwidth. A
 * lower bound, since no kernel passes its roof; null when the run has no such peak.
 */
export function roofSeconds(c: Pick<PlannedCase, 'kernel' | 'shape' | 'dtype' | 'kvDtype'>, backend: KernelBackendName, peaks: Environment['peaks']) {
  const kvDtype = c.kernel === 'paged_decode' ? c.kvDtype : c.dtype;
  const flops = attentionFlops(c.shape);
  const bytes = attentionBytes(c.shape, c.dtype, kvDtype);
  const unit = backend === 'cpu' ? cpuCasePath(c.kernel, kvDtype).productUnit : undefined;
  const roof = ceilingFor(c.kernel, flops / bytes, c.dtype, peaks, unit, backend);
  if (!roof) return null;
  return { seconds: roof.unit === 'FLOP/s' ? flops / roof.value : bytes / roof.value, flops, bytes, roof };
}

/**
 * A line for each planned case one call of which takes at least {@link SLOW_CALL_S} on this
 * backend: the time at the roof that bounds it (runner/measure.ts ceilingFor over the run's
 * measured `peaks`: FLOPs over the compute peak, or bytes over the bandwidth), a lower bound,
 * since no kernel passes its roof. Timing runs each case at least once after its check, so such
 * a case holds the run for that long (Llama-3.1-8B's prefill at N = 131,072: 1.4e14 FLOP).
 */
export function slowCaseNotes(plan: readonly PlannedCase[], backend: KernelBackendName, peaks: Environment['peaks']): string[] {
  const notes: string[] = [];
  for (const c of plan) {
    const r = roofSeconds(c, backend, peaks);
    if (!r || r.seconds < SLOW_CALL_S) continue;
    const work = r.roof.unit === 'FLOP/s' ? `${r.flops.toExponential(1).replace('e+', 'e')} FLOP` : formatBytes(r.bytes);
    notes.push(`${describeCase(c)}: one call takes at least ${formatDuration(r.seconds * 1e9)} here, a lower bound at the ${r.roof.name} (${work} at ${formatRate(r.roof.value, r.roof.unit)}; the kernels measure a fraction of it, so expect several times longer), and timing runs it at least once; Ctrl-C stops the run`);
  }
  return notes;
}

/** This machine with its measured peaks (the GPU's too on 'cuda'): the roofs a bench run and its slow-case check use. */
export async function measureBackendEnvironment(backend: KernelBackendName): Promise<Environment> {
  const environment = await measureEnvironment();
  if (backend === 'cuda') {
    const gpu = await measureGpu();
    environment.gpu = gpu.gpu;
    environment.peaks = { ...environment.peaks, ...gpu.peaks };
  }
  return environment;
}

/**
 * Runs every planned case of `profile`, then, for a workload, the page-pool simulation: not
 * when the pool cannot be sized (poolSizeProblem; the preflight's warning says so before any work).
 * @returns the run; status 'cancelled' when `signal` fired (cases finished so far are kept; during
 *   the pool simulation, `poolCancelled` says how far it got, and there is no pool).
 */
export async function runBench(profile: Profile, opts: BenchOptions): Promise<RunResult> {
  const planned = planCases(profile, { quick: opts.quick });
  const backend = selectBackend(opts.backend, planned);
  const { cases: plan, skipped } = backendCases(backend.name, planned);
  const workload = poolSizeProblem(profile) === null ? profile.workload : null;
  const total = plan.length + 1 + (workload ? 1 : 0);
  const createdAt = new Date();
  opts.emit({ type: 'progress', done: 0, total, message: 'measuring this machine (FMA peak, bandwidth)' });
  // A cancel while the peaks are measured is seen by the first throwIfAborted below.
  const environment = await measureBackendEnvironment(backend.name);
  opts.emit({ type: 'environment', environment });
  // Pages past every cache, which decode cases' pages read alone are held against (allocated on first use).
  const dram = new DramRead(dramReadBytes(environment.lastLevelCache));
  const run = createRun({ name: opts.name, kind: 'bench', toolVersion: toolBuild(), createdAt, profile, environment, estimate: estimate(profile), ...(opts.quick ? { quick: { shortened: quickShortening(profile) } } : {}), ...(opts.problems ? { problems: opts.problems } : {}) });
  // A cancel stops the kernel call in flight within one task (cancelKernels), not at its end:
  // one run of a 128k-token prefill takes minutes on a CPU, and Node does not exit while it runs.
  const stopKernels = () => native.cancelKernels();
  opts.signal?.addEventListener('abort', stopKernels, { once: true });
  // How far the pool simulation got, while it runs: a cancel then says where it stopped.
  let poolAt: PoolCancelled | undefined;
  try {
    throwIfAborted(opts.signal);
    if (skipped) opts.emit({ type: 'log', level: 'warn', message: skipped });
    for (const message of slowCaseNotes(plan, backend.name, environment.peaks)) opts.emit({ type: 'log', level: 'warn', message });
    let done = 1;
    let seed = 1234;
    let remeasured = false;
    for (const c of plan) {
      const label = describeCase(c);
      opts.emit({ type: 'progress', done, total, message: `${label}: correctness check` });
      const err = await checkCase(backend, c, seed, opts.signal);
      throwIfAborted(opts.signal);
      opts.emit({ type: 'progress', done, total, message: `${label}: timing` });
      const { samplesNs, readAlone } = await timeCase(backend, c, opts.quick, seed, environment.peaks, dram, opts.signal);
      throwIfAborted(opts.signal);
      seed += 7;
      const kc = summarizeCase(
        {
          kernel: c.kernel,
          backend: backend.name,
          shape: c.shape,
          dtype: c.dtype,
          ...(c.kernel === 'paged_decode' ? { kvDtype: c.kvDtype } : {}),
          maxAbsErr: err.maxAbsErr,
          lseMaxAbsErr: err.lseMaxAbsErr,
          checkShape: c.checkShape,
          ...(backend.name === 'cpu' ? cpuCasePath(c.kernel, c.kernel === 'paged_decode' ? c.kvDtype : c.dtype) : {}),
        },
        samplesNs,
        run.environment.peaks,
      );
      if (readAlone) Object.assign(kc, readAlone);
      markFromCache(kc, run.environment);
      run.cases.push(kc);
      // Above 100 % of a CPU peak of this run: the peak was measured under other conditions (load).
      // Measured again once, now, and every case so far rated against the better of the two.
      if (!remeasured && backend.name === 'cpu' && kc.fractionOfPeak !== null && kc.fractionOfPeak > 1) {
        remeasured = true;
        opts.emit({ type: 'progress', done, total, message: `${label}: above the peak measured at the start; measuring the peaks again` });
        const again = await native.measurePeaks({ threads: run.environment.threads });
        const better = withRemeasuredPeaks(run.cases, run.environment.peaks ?? {}, again, `after ${label}`);
        run.environment.peaks = better.peaks;
        run.cases = better.cases;
      }
      done++;
      opts.emit({ type: 'case', case: run.cases[run.cases.length - 1]! });
      opts.emit({ type: 'progress', done, total, message: `${label}: ${(kc.medianNs / 1e6).toFixed(3)} ms` });
    }
    if (workload) {
      const requests = formatCount(workload.requests);
      opts.emit({ type: 'progress', done, total, message: `page pool: simulating ${requests} requests` });
      // One event per percent: `done` moves through the step (fractional), the message says how far.
      let shownPct = 0;
      poolAt = { finished: 0, requests: workload.requests };
      const onProgress = ({ fraction, finished, requests: of }: PoolProgress) => {
        poolAt = { finished, requests: of };
        const pct = Math.floor(100 * fraction);
        if (pct <= shownPct) return;
        shownPct = pct;
        opts.emit({ type: 'progress', done: done + fraction, total, message: `page pool: ${pct}% of ${requests} requests` });
      };
      try {
        run.pool = await simulatePool(profile, { signal: opts.signal, onProgress, onSample: (sample) => opts.emit({ type: 'poolSample', sample }), ...(opts.maxPoolSamples !== undefined ? { maxSamples: opts.maxPoolSamples } : {}) });
      } catch (e) {
        if (!(e instanceof PoolConfigError)) throw e;
        // The kernel results stand on their own; say why the pool view is empty.
        opts.emit({ type: 'log', level: 'warn', message: `page pool simulation skipped: ${e.message}` });
      }
      poolAt = undefined;
      done++;
      opts.emit({ type: 'progress', done, total, message: 'page pool simulated' });
    }
  } catch (e) {
    if (!(e instanceof CancelledError || opts.signal?.aborted)) throw e;
    run.status = 'cancelled';
    if (poolAt) run.poolCancelled = poolAt;
  } finally {
    opts.signal?.removeEventListener('abort', stopKernels);
  }
  return run;
}

/**
 * Sets `c.fromCache` (in place) to what core/format.ts fromCacheBy says of it against `environment`
 * (its last-level cache, its DRAM read peak), or removes it where neither evidence holds: the
 * field the run's --json and a sweep's CSV carry.
 */
export function markFromCache(c: KernelCase, environment: Pick<Environment, 'lastLevelCache' | 'peaks'>): void {
  const by = fromCacheBy(c, environment);
  if (by === null) delete c.fromCache;
  else c.fromCache = by;
}

/** "flash_fwd B=1 N=1024 H=32/8 D=128 causal bf16", "paged_decode B=1 ctx=512 window=128 H=64/8 D=64 page=16 bf16"; under TP 2: "flash_fwd B=1 N=256 H=32/4 (per GPU at TP 2) D=64 causal bf16" */
export function describeCase(c: { kernel: string; shape: CaseShape; dtype: Dtype }): string {
  const s = c.shape;
  const perGpu = perGpuCaseText(s);
  const heads = `H=${s.numHeads}/${s.numKvHeads}${perGpu ? ` (${perGpu})` : ''} D=${s.headDim}`;
  if (c.kernel === 'paged_decode') return `paged_decode B=${s.batchSize} ctx=${s.seqLenK}${s.slidingWindow ? ` window=${s.slidingWindow}` : ''} ${heads} page=${s.pageSize} ${c.dtype}`;
  return `flash_fwd B=${s.batchSize} N=${s.seqLenQ} ${heads}${s.causal ? ' causal' : ''}${s.slidingWindow ? ` window=${s.slidingWindow}` : ''} ${c.dtype}`;
}
