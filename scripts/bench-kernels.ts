/**
 * npm run bench:kernels [-- --json FILE] [--threads N] [--quick] [--decode]
 *
 * Measures this machine's ceilings (fp32 FMA, AVX512-BF16 and AMX bf16 peaks, DRAM read
 * bandwidth), then the CPU kernels against them:
 *   flash forward: N ∈ {1k, 4k, 16k}, D ∈ {64, 128}, causal and not, fp32 and bf16 (B = 1,
 *     H = H_kv = 8, so onnxruntime's MultiHeadAttention runs the same problem);
 *   paged decode: batch ∈ {1, 16}, context ∈ {4k, 32k}, pages of 16 and 128 tokens (vLLM's GPU
 *     and CPU default block sizes), and one row at B = 1, context 1k, pages of 16 consecutive (4 MiB
 *     of K and V, which a cache holds: the row the from-cache mark is seen on), bf16 Q and KV (H = 32,
 *     H_kv = 8, D = 128: Llama-3-8B's attention), each with two block tables: pages
 *     consecutive (as PageAllocator hands them to prompts prefilled on a fresh pool) and
 *     scattered (a random permutation of the pool). On this kind of machine the order alone
 *     moves the rate by a quarter or more: the hardware prefetcher restarts at every jump.
 *     Each decode row's pages are also read alone (timePagedRead: the same bytes, order and
 *     threads with the read-bandwidth peak's loads, in the kernel's order: groups of 4 pieces —
 *     pages of up to 16 tokens, 16-token runs of longer ones — read as a K run then a V run
 *     where the group is one run of the pool, else their K and V interleaved 256 B by 256 B),
 *     the rate the layout allows the kernel, and
 *     its arithmetic timed alone over pages held in L2: both in turn with the kernel, one block
 *     of runs of each per round (DECODE_BOUND_ROUNDS), so the three share the moment. Whether a
 *     row's pages came from cache is judged as `attnscope bench` judges it (runner/readAlone.ts
 *     measureReadAlone: one thread, by CPU time, against a read of pages past every cache).
 * Each case prints median time, GFLOP/s with the fraction of the FLOP ceiling, GB/s with the
 * fraction of read bandwidth, the naive fp64 reference at the same shape (or why it was
 * skipped), onnxruntime-node's MultiHeadAttention (fp32) as an outside peer (or why not), and
 * max |O − O_ref| on a reduced shape. Comparisons that a verdict rests on are paired (PairedFigure:
 * rounds of a, b, a blocks interleaved in one process, scripts/ab.ts, as bench-flash.ts
 * --against-dtype and --base): fp32 against bf16 at N=4k D=128 (runs up to DTYPE_PAIRED_MAX_SECONDS), and onnxruntime against ours on
 * every shape whose runs take at most PAIRED_MAX_SECONDS; each prints the median paired ratio,
 * its range and the A/A ratio of the same rounds. Then the WebAssembly build beside the native addon on small
 * shapes, with the ratio (scripts/bench-wasm.ts). --quick runs only N = 1k and context 4k (a smoke test);
 * --decode only the peaks and the decode rows (no flash, onnxruntime or WebAssembly cases: a
 * decode figure in minutes on a shared machine; the flash targets then read "not run", as the targets --quick leaves out do).
 * --json FILE writes the run (environment with peaks, KernelCase per case, peer figures,
 * skipped figures with reasons) atomically. Exit 0 when every case ran, 1 on an error, 2 on
 * bad arguments.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';

import { formatBytes, formatDuration, formatPercent, formatRate, formatSignificant, fromCacheBy, fromCacheText, wrapLongLines } from '../core/format';
import { NOISY_MARK_NOTE, noisyMark } from '../core/noise';
import { localeOutput, renderTable } from '../core/textTable';
import type { CaseShape, Environment, KernelCase, PageOrder } from '../core/protocol/run';
import { runHeader, type RunHeader } from '../core/protocol/run';
import {
  cpuFeatures,
  PageAllocator,
  flashForward,
  pagedDecode,
  referenceAttention,
  referencePagedDecode,
  timeFlashForward,
  timePagedDecode,
  timePagedRead,
  toHalfBits,
  writeKvCache,
  allocateKvPages,
  type FlashForwardArgs,
  type KvCacheLayout,
  type PagedDecodeArgs,
  type TimingOptions,
} from '../native';
import { writeFileAtomic } from '../runner/atomic';
import { cpuCasePath, measureEnvironment } from '../runner/environment';
import { randomKvPages, randomUniform, shuffledPages } from '../runner/inputs';
import { DramRead, dramReadBytes, measureReadAlone } from '../runner/readAlone';
import { toolBuild } from '../runner/version';
import { attentionFlops, computeCeiling, maxAbsDiff, sampleStats, summarizeCase } from '../runner/measure';
import { CAUSAL_NOTE, DECODE_NOTE, loadOrtPeer, type OrtPeer } from '../runner/peers/onnxruntime';
import { formatSpread, interleave, median, pairedRatio, type Spread, type Timed } from './ab';
import { compareWasm, formatWasmComparison, type WasmComparison } from './bench-wasm';

// ---------------------------------------------------------------------------------------------
// Result shape

/** An outside implementation timed on the same shape (fp32). */
export interface PeerCase {
  peer: string;
  op: string;
  shape: CaseShape;
  dtype: 'fp32';
  samplesNs: number[];
  medianNs: number;
  p10Ns: number;
  p90Ns: number;
  flops: number;
  gflops: number;
  /** Against the fp32 FMA peak of this run. */
  fractionOfPeak: number | null;
  /** Max |O − O_ref| against the fp64 reference on the case's checkShape. */
  maxAbsErr: number | null;
  checkShape: CaseShape;
  note?: string;
}

/**
 * A row's figures from process CPU time (TimingResult.cpuNs, median over the runs): what the
 * threads reached while they ran, which a loaded machine's wall time hides. kernelFraction is
 * the row's fraction of the roof that bounds it (KernelCase.ceiling: the FLOP peak of its unit,
 * or DRAM read bandwidth for a row below the ridge point, as Llama decode is) with the median
 * wall time replaced by median CPU time / threads.
 */
export interface CpuTimeFigure {
  case: string;
  dtype: string;
  threads: number;
  kernelCpuMedianNs: number;
  kernelFraction: number | null;
  /** onnxruntime's median process CPU time per run (fp32 rows), and its time / ours. */
  peerCpuMedianNs?: number;
  peerOverKernel?: number;
}

/**
 * Two implementations compared in one process (scripts/ab.ts interleave): `rounds` rounds of
 * one block of runs of a, one of b, one of a again, each block's median taken. ratio: a's first
 * block / b's, per round (> 1: b is faster); aa: a's second block / its first in the same
 * rounds, the A/A noise of the method. Unpaired medians of two timing loops seconds apart
 * differ by up to ±12 % on a loaded 2-vCPU machine; the pairs' ratios cancel the moment's load.
 */
export interface PairedFigure {
  case: string;
  a: string;
  b: string;
  rounds: number;
  runsPerBlock: number;
  ratio: { cpu: Spread; wall: Spread };
  aa: { cpu: Spread; wall: Spread };
}

/** A figure not measured, and why. */
export interface SkippedFigure {
  what: 'kernel' | 'reference' | 'peer';
  kernel: KernelCase['kernel'];
  shape: CaseShape;
  dtype: string;
  reason: string;
}

/** What --json writes: a run header (core/protocol/run.ts runHeader) and the figures; no profile, no estimate. */
export interface KernelBenchResult extends RunHeader {
  name: 'bench:kernels';
  environment: Environment;
  /** flash_fwd, paged_decode and reference cases (reference: fp64, one thread). */
  cases: KernelCase[];
  peers: PeerCase[];
  /** The rows' figures from CPU time, beside the wall-time ones of `cases` and `peers`. */
  cpuTime: CpuTimeFigure[];
  /** fp32 against bf16 (flash N=4k D=128) and onnxruntime against ours (runs up to PAIRED_MAX_SECONDS), paired. */
  paired: PairedFigure[];
  skipped: SkippedFigure[];
  notes: string[];
  /** The WebAssembly build on small shapes beside the native addon (scripts/bench-wasm.ts), or why not measured. */
  wasm: WasmComparison | { notMeasured: string };
  /** Issues 6 and 18's targets on this run: "met (...)" or "MISSED by N points (...)", one per target. */
  targets: string[];
  status: 'ok' | 'failed';
  error?: string;
  wallSeconds: number;
}

// ---------------------------------------------------------------------------------------------
// Arguments

interface Options {
  json: string | null;
  threads: number;
  quick: boolean;
  /** Only the peaks and the decode rows. */
  decode: boolean;
}

function usage(message: string): never {
  process.stderr.write(`bench:kernels: ${message}\nusage: npm run bench:kernels [-- --json FILE] [--threads N] [--quick] [--decode]\n`);
  process.exit(2);
}

function parseArgs(argv: string[]): Options {
  const opts: Options = { json: null, threads: 0, quick: false, decode: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--json') {
      const f = argv[++i];
      if (!f) usage('--json needs a file name');
      opts.json = resolve(f);
    } else if (a === '--threads') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1 || n > 1024) usage('--threads needs an integer in [1, 1024]');
      opts.threads = n;
    } else if (a === '--quick') {
      opts.quick = true;
    } else if (a === '--decode') {
      opts.decode = true;
    } else {
      usage(`unknown argument '${a}'`);
    }
  }
  return opts;
}

// ---------------------------------------------------------------------------------------------
// Inputs


// ---------------------------------------------------------------------------------------------
// Timing plan and formatting

/** Budget: no case is started when one run is expected to take longer than this. */
const MAX_SECONDS_PER_RUN = 30;
/** The naive reference is timed only where one run is expected within this. */
const MAX_REFERENCE_SECONDS = 12;

/**
 * Repetitions from the expected seconds per run: small cases ≥ 30 samples and ≥ 1 s (DESIGN.md
 * method); big ones fewer (3; 2 over 3 s; 1 over 8 s) so that the whole run stays within minutes.
 */
function timingFor(expectedSec: number): Required<TimingOptions> {
  if (expectedSec <= 0.03) return { warmup: 2, minReps: 30, maxReps: 10000, minTimeMs: 1000, maxTimeMs: 3000 };
  if (expectedSec <= 0.4) return { warmup: 1, minReps: 5, maxReps: 10000, minTimeMs: 1000, maxTimeMs: 4000 };
  const reps = expectedSec > 8 ? 1 : expectedSec > 3 ? 2 : 3;
  return { warmup: expectedSec > 2 ? 0 : 1, minReps: reps, maxReps: reps, minTimeMs: 0, maxTimeMs: expectedSec * (reps + 1) * 1000 };
}

/** Rounds of a paired comparison (PairedFigure). */
const PAIRED_ROUNDS = 5;
/** onnxruntime races with runs longer than this are not paired (a round's three blocks would take over 12 s). */
const PAIRED_MAX_SECONDS = 4;
/**
 * The bf16 / fp32 verdict is paired up to this run time, in PAIRED_LONG_ROUNDS rounds past
 * PAIRED_MAX_SECONDS: a loaded machine stretches N=4k D=128's 1-3 s runs (idle to load 10)
 * to over 6 s of wall time.
 */
const DTYPE_PAIRED_MAX_SECONDS = 12;
const PAIRED_LONG_ROUNDS = 3;

/**
 * One block of a paired comparison of runs of about `sec` seconds: a single run above 0.2 s;
 * below, about 0.2 s of runs after one untimed run. null above PAIRED_MAX_SECONDS.
 */
function pairedBlock(sec: number, maxSec = PAIRED_MAX_SECONDS): Required<TimingOptions> | null {
  if (!(sec <= maxSec)) return null;
  const reps = Math.max(1, Math.min(50, Math.round(0.2 / sec)));
  return { warmup: sec > 0.2 ? 0 : 1, minReps: reps, maxReps: reps, minTimeMs: 0, maxTimeMs: 60_000 };
}

/** Rounds of [a, b, a] blocks (PairedFigure). */
async function pairedFigure(label: string, a: string, b: string, rounds: number, runsPerBlock: number, timeA: () => Promise<Timed>, timeB: () => Promise<Timed>): Promise<PairedFigure> {
  const [a1, b1, a2] = await interleave([timeA, timeB, timeA], rounds);
  return { case: label, a, b, rounds, runsPerBlock, ratio: pairedRatio(a1!, b1!), aa: pairedRatio(a2!, a1!) };
}

/**
 * The verdict on "b no slower than a" from a paired figure's CPU-time ratio a / b: met at 1 or
 * above; below 1 but no further from 1 than the A/A ratios reach, the rounds cannot tell the
 * two apart; else MISSED.
 */
export function pairedVerdict(f: PairedFigure): string {
  const r = f.ratio.cpu.median;
  const noise = Math.max(Math.abs(1 - f.aa.cpu.min), Math.abs(f.aa.cpu.max - 1));
  const state = r >= 1 ? 'met' : 1 - r <= noise ? 'within A/A noise (not resolved)' : 'MISSED';
  return `${state} (${f.a}/${f.b} paired CPU time ${formatSpread(f.ratio.cpu)}, wall ${formatSpread(f.ratio.wall)}; A/A ${f.a}/${f.a} CPU ${formatSpread(f.aa.cpu)}; ${f.rounds} rounds of ${f.a}, ${f.b}, ${f.a}, ${f.runsPerBlock} run${f.runsPerBlock > 1 ? 's' : ''} a block)`;
}

/** A block of runs of one of our kernels, as Timed. */
async function timedBlock(run: Promise<{ samplesNs: number[]; cpuNs?: number[] }>): Promise<Timed> {
  const t = await run;
  return { wall: median(t.samplesNs), cpu: median(t.cpuNs ?? t.samplesNs.map(() => 0)) };
}

/** A number in a GFLOP/s or GB/s column (the header names the unit). */
const fmtPct = (f: number | null): string => (f === null ? '-' : formatPercent(f, f < 0.1 ? 1 : 0));
const fmtErr = (e: number | null): string => (e === null ? '-' : e.toExponential(1));
const kLabel = (n: number): string => (n % 1024 === 0 ? `${n / 1024}k` : String(n));

/**
 * A row's shape as `bench` writes it (runner/bench.ts describeCase: batch, length, heads as H=query/KV,
 * head_dim), lengths in k: "flash B=1 N=1k H=8/8 D=128 causal", "decode B=1 ctx=4k H=32/8 D=128 p16
 * scattered NHD" (page size, page order, pool layout), so a row's GFLOP/s or GB/s is reproducible
 * from the row alone (s51 nc-cli #11: flash rows named neither batch nor heads).
 */
export function rowLabel(shape: CaseShape, decode?: { pageOrder: string; layout: string }): string {
  const heads = `H=${shape.numHeads}/${shape.numKvHeads} D=${shape.headDim}`;
  if (decode) return `decode B=${shape.batchSize} ctx=${kLabel(shape.seqLenK)} ${heads} p${shape.pageSize ?? 16} ${decode.pageOrder} ${decode.layout}`;
  return `flash B=${shape.batchSize} N=${kLabel(shape.seqLenQ)} ${heads}${shape.causal ? ' causal' : ''}`;
}

/** The decode cases' block-table orders (KernelCase.pageOrder). */
const PAGE_ORDERS: readonly PageOrder[] = ['consecutive', 'scattered'];

/**
 * Block tables [batch, ctx / pageSize] of `batch` prompts of ctx tokens each prefilled on a fresh
 * pool of numPages pages, as PageAllocator hands them out (one run of pages per sequence).
 */
function freshPoolTables(batch: number, ctx: number, numPages: number, pageSize: number): Int32Array {
  const allocator = new PageAllocator({ numPages, pageSize });
  for (let s = 0; s < batch; s++) {
    const r = allocator.allocate(s, ctx);
    if (r.status !== 'ok') throw new Error(`PageAllocator refused sequence ${s}: ${r.status}`);
  }
  return allocator.batchTables([...Array(batch).keys()]).blockTable;
}

/** This process's transparent huge pages in bytes (AnonHugePages of /proc/self/smaps_rollup); null off Linux. */
function anonHugePagesBytes(): number | null {
  try {
    const m = /^AnonHugePages:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/smaps_rollup', 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** A progress line on stderr, wrapped at the prose width as the report is (a decode row's label is 55 characters). */
function log(msg: string): void {
  process.stderr.write(`${wrapLongLines(`[bench:kernels] ${msg}`)}\n`);
}

// ---------------------------------------------------------------------------------------------
// The run

export interface Row {
  label: string;
  dtype: string;
  /** Decode: the page pools' element order (named in the label and the target line). */
  layout?: KvCacheLayout;
  kernel?: KernelCase;
  kernelSkip?: string;
  reference?: KernelCase;
  referenceSkip?: string;
  peer?: PeerCase;
  peerSkip?: string;
  /** bf16 flash rows at N=4k D=128: fp32 / bf16 paired in one process. */
  vsFp32?: PairedFigure;
  /** fp32 flash rows whose runs take at most PAIRED_MAX_SECONDS: onnxruntime / ours, paired. */
  vsPeer?: PairedFigure;
  /** Median process CPU time per run of the kernel and of the peer (ns). */
  kernelCpuNs?: number;
  peerCpuNs?: number;
  /**
   * Decode: median wall time of the kernel in the rounds that also timed pageReadNs and
   * pageComputeNs (each a block's median), ns; the overlap and "of read alone" use it.
   */
  pageKernelNs?: number;
  /** Decode: median wall time of the same pages read with the peak's loop (timePagedRead), ns. */
  pageReadNs?: number;
  /**
   * Decode: median process CPU time per run of the pages read alone and of the kernel, in the
   * same rounds as pageReadNs, ns. The read peak counts each thread's CPU time: at load 2 or more
   * on 2 vCPUs the read's wall time is the machine's (session 38: by wall 45 % of the peak, by
   * CPU time 82-94 % at load 9-19; DESIGN.md).
   */
  pageReadCpuNs?: number;
  pageKernelCpuNs?: number;
  /**
   * Decode: median wall time of the same kernel, grid and threads over the pages of L2_TOKENS
   * tokens, which stay in L2 (block-table entry t → t mod their count): its arithmetic without
   * the DRAM reads, ns.
   */
  pageComputeNs?: number;
}

/**
 * Decode rows are also timed over the pages of this many tokens (L2_TOKENS × H_kv × D × 2 B of K
 * and as much of V: 512 KiB at H_kv 8, D 128, bf16; 8 pages of 16 tokens or one of 128), which
 * each core's L2 holds (1 MiB on Zen 4 and 5, 2 MiB on Sapphire Rapids).
 */
const L2_TOKENS = 128;

/**
 * The decode rows' page sizes (tokens a page): vLLM's GPU default block size, 16, and its CPU
 * backend's, 128 (vllm/platforms/cpu.py check_and_update_config: 128 when block_size is unset;
 * before CPU_ATTN, `128 if ipex_available else 16`).
 */
const DECODE_PAGE_SIZES = [16, 128] as const;
/**
 * Decode's pool layouts, each over the same values: NHD (the default) and vnni16 (tokens in
 * vector lanes for the AVX512-BF16 step; on other paths the scalar model, far slower).
 */
const DECODE_LAYOUTS: readonly KvCacheLayout[] = ['NHD', 'vnni16'];

/**
 * Rounds of a decode row's bounds: one block of kernel runs, one of its pages read alone, one of
 * its arithmetic over L2_TOKENS' pages, in turn. The read rate of a shared host's guest drifts between
 * about 50 and 96 GB/s over minutes (session 30, Zen 5 VM, SCHED_FIFO; DESIGN.md), so three
 * timing loops one after the other could set a kernel timed at one rate against pages read at
 * another.
 */
const DECODE_BOUND_ROUNDS = 5;

/** The context of the one decode row a cache holds (B = 1: 4 MiB of bf16 K and V at H_kv = 8, D = 128). */
const CACHED_CONTEXT = 1024;

/**
 * The decode row's limit, from its three times (ns, the same bytes): the pages read alone (R),
 * the arithmetic over pages held in L2 (C) and the kernel (K). If reading and arithmetic did not
 * overlap at all, K would be R + C; if they overlapped fully, max(R, C). Returns the rates
 * (bytes / ns = GB/s) and where K lies between the two bounds: 0 = fully overlapped, 1 = one
 * after the other (above 1: slower than both in turn).
 */
export function decodeBounds(bytes: number, readNs: number, computeNs: number, kernelNs: number) {
  const serialNs = readNs + computeNs;
  const overlappedNs = Math.max(readNs, computeNs);
  return {
    readGBps: bytes / readNs,
    computeGBps: bytes / computeNs,
    serialGBps: bytes / serialNs,
    kernelGBps: bytes / kernelNs,
    overlap: serialNs === overlappedNs ? 0 : (kernelNs - overlappedNs) / (serialNs - overlappedNs),
  };
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const started = Date.now();
  log(`measuring peaks on ${opts.threads || cpuFeatures().logicalCores} threads ...`);
  const environment = await measureEnvironment({ threads: opts.threads, peaksDurationMs: 2000 });
  const { threads } = environment;
  const peaks = environment.peaks!;
  const cases: KernelCase[] = [];
  const peers: PeerCase[] = [];
  const skipped: SkippedFigure[] = [];
  const notes: string[] = [];
  const rows: Row[] = [];
  const paired: PairedFigure[] = [];

  const loadAtStart = loadavg()[0]!;
  const ortLoad = opts.decode ? { ok: false as const, reason: 'not loaded: --decode (decode has no peer)' } : await loadOrtPeer(threads);
  const ort: OrtPeer | null = ortLoad.ok ? ortLoad.peer : null;
  if (!ortLoad.ok) notes.push(`onnxruntime peer unavailable: ${ortLoad.reason}`);
  notes.push(CAUSAL_NOTE);
  notes.push(DECODE_NOTE);

  // Rates per (kernel, dtype) in FLOP/s, to predict the next case's time: the latest full-size
  // case (closest in size and cache behaviour), else the latest reduced-shape check.
  const fullRate = new Map<string, number>();
  const checkRate = new Map<string, number>();
  const rateFor = (key: string): number | undefined => fullRate.get(key) ?? checkRate.get(key);
  const expectSec = (key: string, flops: number): number | null => {
    const r = rateFor(key);
    return r ? flops / r : null;
  };
  const sawRate = (key: string, flops: number, ns: number, full = true): void => {
    (full ? fullRate : checkRate).set(key, flops / (ns * 1e-9));
  };

  // ---- flash forward -------------------------------------------------------------------------
  const H = 8;
  const seqLens = opts.decode ? [] : opts.quick ? [1024] : [1024, 4096, 16384];
  const maxN = Math.max(0, ...seqLens);
  log('generating inputs ...');
  const qAll = randomUniform(maxN * H * 128, 1);
  const kAll = randomUniform(maxN * H * 128, 2);
  const vAll = randomUniform(maxN * H * 128, 3);
  for (const n of seqLens) {
    for (const d of [64, 128]) {
      for (const causal of [false, true]) {
        const shape: CaseShape = { batchSize: 1, numHeads: H, numKvHeads: H, headDim: d, seqLenQ: n, seqLenK: n, causal, slidingWindow: null };
        const checkN = Math.min(n, 256);
        const checkShape: CaseShape = { ...shape, seqLenQ: checkN, seqLenK: checkN };
        const flops = attentionFlops(shape);
        const label = rowLabel(shape);
        const f32 = { q: qAll.subarray(0, n * H * d), k: kAll.subarray(0, n * H * d), v: vAll.subarray(0, n * H * d) };
        const c32 = { q: qAll.subarray(0, checkN * H * d), k: kAll.subarray(0, checkN * H * d), v: vAll.subarray(0, checkN * H * d) };
        const geometry = { batch: 1, numHeads: H, numKvHeads: H, headDim: d, causal, threads };

        // Reference: once per shape (fp64 math, dtype-independent speed), shown on both rows.
        const checkArgs: FlashForwardArgs = { ...geometry, ...c32, dtype: 'fp32', seqLenQ: checkN, seqLenK: checkN };
        const tRef0 = process.hrtime.bigint();
        const ref32 = await referenceAttention(checkArgs);
        sawRate('reference', attentionFlops(checkShape), Number(process.hrtime.bigint() - tRef0), false);
        let reference: KernelCase | undefined;
        let referenceSkip: string | undefined;
        const refBytes = n * n * 8;
        const refSec = expectSec('reference', flops)!;
        if (refBytes > 1 << 30) {
          referenceSkip = `S would be ${formatBytes(refBytes)} fp64 per head and one run ~${refSec.toFixed(0)} s`;
        } else if (refSec > MAX_REFERENCE_SECONDS) {
          referenceSkip = `~${refSec.toFixed(0)} s per run (naive fp64, one thread, ${formatSignificant(rateFor('reference')! / 1e9)} GFLOP/s)`;
        } else {
          log(`${label}: naive reference (~${refSec.toFixed(1)} s) ...`);
          const samples: number[] = [];
          const reps = refSec > 2 ? 1 : 3;
          for (let i = 0; i < reps; i++) {
            const t0 = process.hrtime.bigint();
            await referenceAttention({ ...geometry, ...f32, dtype: 'fp32', seqLenQ: n, seqLenK: n });
            samples.push(Number(process.hrtime.bigint() - t0));
          }
          reference = summarizeCase({ kernel: 'reference', backend: 'cpu', shape, dtype: 'fp32', maxAbsErr: 0, lseMaxAbsErr: 0 }, samples, peaks);
          sawRate('reference', flops, reference.medianNs);
          cases.push(reference);
        }
        if (referenceSkip) skipped.push({ what: 'reference', kernel: 'reference', shape, dtype: 'fp32', reason: referenceSkip });

        for (const dtype of ['fp32', 'bf16'] as const) {
          const row: Row = { label, dtype, reference, referenceSkip };
          rows.push(row);
          const key = `flash_fwd/${dtype}`;
          const data = dtype === 'fp32' ? f32 : { q: toHalfBits('bf16', f32.q), k: toHalfBits('bf16', f32.k), v: toHalfBits('bf16', f32.v) };
          const check = dtype === 'fp32' ? c32 : { q: toHalfBits('bf16', c32.q), k: toHalfBits('bf16', c32.k), v: toHalfBits('bf16', c32.v) };
          // Reference of the bf16 check: the same rounded inputs, so only the kernel's error shows.
          const refOut = dtype === 'fp32' ? ref32 : await referenceAttention({ ...checkArgs, ...check, dtype });
          const tCheck0 = process.hrtime.bigint();
          const out = await flashForward({ ...geometry, ...check, dtype, seqLenQ: checkN, seqLenK: checkN });
          sawRate(key, attentionFlops(checkShape), Number(process.hrtime.bigint() - tCheck0), false);
          const maxAbsErr = maxAbsDiff(out.o, refOut.o);
          const lseMaxAbsErr = maxAbsDiff(out.lse, refOut.lse);
          const est = expectSec(key, flops)!;
          if (est > MAX_SECONDS_PER_RUN) {
            row.kernelSkip = `~${est.toFixed(0)} s per run at ${formatSignificant(rateFor(key)! / 1e9)} GFLOP/s (limit ${MAX_SECONDS_PER_RUN} s)`;
            skipped.push({ what: 'kernel', kernel: 'flash_fwd', shape, dtype, reason: row.kernelSkip });
          } else {
            log(`${label} ${dtype} (~${est.toFixed(2)} s per run) ...`);
            const timing = await timeFlashForward({ ...geometry, ...data, dtype, seqLenQ: n, seqLenK: n }, timingFor(est));
            row.kernelCpuNs = cpuMedian(timing.cpuNs);
            row.kernel = summarizeCase({ kernel: 'flash_fwd', backend: 'cpu', shape, dtype, maxAbsErr, lseMaxAbsErr, checkShape, ...cpuCasePath('flash_fwd', dtype) }, timing.samplesNs, peaks);
            sawRate(key, flops, row.kernel.medianNs);
            cases.push(row.kernel);
          }

          if (dtype !== 'fp32') {
            row.peerSkip = 'fp32 only (onnxruntime CPU MultiHeadAttention has no bf16 kernel)';
            continue;
          }
          if (!ort) {
            row.peerSkip = ortLoad.ok ? 'unavailable' : ortLoad.reason;
            continue;
          }
          const mha = { batch: 1, seqLenQ: n, seqLenK: n, numHeads: H, headDim: d, causal };
          const peerKey = `onnxruntime/${causal ? 'causal' : 'full'}`;
          const peerOut = await ort.run({ ...mha, seqLenQ: checkN, seqLenK: checkN }, c32);
          const predicted = expectSec(peerKey, flops);
          if (predicted !== null && predicted > MAX_SECONDS_PER_RUN) {
            row.peerSkip = `~${predicted.toFixed(0)} s per run at the ${formatSignificant(rateFor(peerKey)! / 1e9)} GFLOP/s it reached on the previous causal=${causal} shape (limit ${MAX_SECONDS_PER_RUN} s)`;
            skipped.push({ what: 'peer', kernel: 'flash_fwd', shape, dtype, reason: row.peerSkip });
            continue;
          }
          // The first full-size run is the warm-up, and the only sample when it is slow.
          const cPeer0 = process.cpuUsage();
          const tPeer0 = process.hrtime.bigint();
          await ort.run(mha, f32);
          const firstNs = Number(process.hrtime.bigint() - tPeer0);
          const cPeer = process.cpuUsage(cPeer0);
          const firstCpuNs = (cPeer.user + cPeer.system) * 1000;
          sawRate(peerKey, flops, firstNs);
          log(`${label} onnxruntime (~${(firstNs / 1e9).toFixed(2)} s per run) ...`);
          let samples: number[];
          if (firstNs > 8e9) {
            samples = [firstNs];
            row.peerCpuNs = firstCpuNs;
          } else {
            const t = await ort.time(mha, f32, { ...timingFor(firstNs / 1e9), warmup: 0 });
            samples = t.samplesNs;
            row.peerCpuNs = cpuMedian(t.cpuNs);
          }
          sawRate(peerKey, flops, sampleStats(samples).medianNs);
          const st = sampleStats(samples);
          const ceiling = computeCeiling('fp32', peaks);
          row.peer = {
            peer: ort.name,
            op: 'com.microsoft.MultiHeadAttention',
            shape,
            dtype: 'fp32',
            samplesNs: samples,
            ...st,
            flops,
            gflops: flops / st.medianNs,
            fractionOfPeak: ceiling ? (flops / st.medianNs) * 1e9 / ceiling.value : null,
            maxAbsErr: maxAbsDiff(peerOut, ref32.o),
            checkShape,
            ...(causal ? { note: 'masked blocks are not skipped' } : {}),
          };
          peers.push(row.peer);
          const block = row.kernel ? pairedBlock(Math.max(row.kernel.medianNs, st.medianNs) / 1e9) : null;
          if (block) {
            log(`${label}: onnxruntime and ours, ${PAIRED_ROUNDS} paired rounds ...`);
            const fp32Args: FlashForwardArgs = { ...geometry, ...f32, dtype: 'fp32', seqLenQ: n, seqLenK: n };
            row.vsPeer = await pairedFigure(label, 'ORT', 'ours', PAIRED_ROUNDS, block.minReps,
              () => timedBlock(ort.time(mha, f32, block)),
              () => timedBlock(timeFlashForward(fp32Args, block)));
            paired.push(row.vsPeer);
          }
        }
        // Issue 18's "bf16 no slower than fp32", paired: the same values, this shape only.
        const [r32, r16] = rows.slice(-2);
        const runSec = r32?.kernel && r16?.kernel ? Math.max(r32.kernel.medianNs, r16.kernel.medianNs) / 1e9 : Infinity;
        const block = n === 4096 && d === 128 ? pairedBlock(runSec, DTYPE_PAIRED_MAX_SECONDS) : null;
        if (block) {
          const rounds = runSec > PAIRED_MAX_SECONDS ? PAIRED_LONG_ROUNDS : PAIRED_ROUNDS;
          log(`${label}: fp32 and bf16, ${rounds} paired rounds ...`);
          const bf16 = { q: toHalfBits('bf16', f32.q), k: toHalfBits('bf16', f32.k), v: toHalfBits('bf16', f32.v) };
          r16!.vsFp32 = await pairedFigure(label, 'fp32', 'bf16', rounds, block.minReps,
            () => timedBlock(timeFlashForward({ ...geometry, ...f32, dtype: 'fp32', seqLenQ: n, seqLenK: n }, block)),
            () => timedBlock(timeFlashForward({ ...geometry, ...bf16, dtype: 'bf16', seqLenQ: n, seqLenK: n }, block)));
          paired.push(r16!.vsFp32);
        }
      }
    }
  }

  // ---- paged decode --------------------------------------------------------------------------
  const hugePools: boolean[] = [];
  const pageReads: string[] = []; // one figure per timed decode row
  let hugeTaken: { poolBytes: number; taken: number } | null = null;
  const DH = 32;
  const DHKV = 8;
  const DD = 128;
  const contexts = opts.quick ? [4096] : [1024, 4096, 32768];
  // Pages past every cache, which each row's pages read alone are held against (allocated on first use).
  const dram = new DramRead(dramReadBytes(environment.lastLevelCache));
  for (const batch of [1, 16]) {
    for (const ctx of contexts) {
      // Context 1k: B = 1 only, one page size, order and layout (a cached row, not a grid of them).
      if (ctx === CACHED_CONTEXT && batch !== 1) continue;
      // Both page sizes share one pair of pools: the same bytes, cut into pages of 16 or 128 tokens.
      const poolValues = batch * ctx * DHKV * DD;
      const poolBytes = 2 * poolValues * 2;
      log(`decode B=${batch} ctx=${kLabel(ctx)}: filling ${formatBytes(poolBytes)} of bf16 pages ...`);
      // Native pools with huge pages asked for (randomKvPages), filled from the seeded tiles.
      const kPool = randomKvPages('bf16', poolValues, 11 + batch);
      const vPool = randomKvPages('bf16', poolValues, 13 + batch);
      // The vnni16 pools: the same values repacked (writeKvCache, every slot in turn); one pair
      // serves both page sizes, as NHD's does (a 16-token piece's place does not depend on them).
      const pools = new Map<KvCacheLayout, { kPages: Uint16Array; vPages: Uint16Array }>([['NHD', { kPages: kPool.data, vPages: vPool.data }]]);
      for (const layout of DECODE_LAYOUTS.filter((l) => l !== 'NHD')) {
        const k = allocateKvPages('bf16', poolValues), v = allocateKvPages('bf16', poolValues);
        const slotMapping = Int32Array.from({ length: batch * ctx }, (_, i) => i);
        writeKvCache({ k: kPool.data, v: vPool.data, slotMapping, kPages: k.data, vPages: v.data, dtype: 'bf16', kvCacheLayout: layout, numKvHeads: DHKV, headDim: DD, numPages: batch * ctx / 16, pageSize: 16 });
        pools.set(layout, { kPages: k.data, vPages: v.data });
      }
      hugePools.push(kPool.hugePages && vPool.hugePages);
      const taken = anonHugePagesBytes();
      if (taken !== null && (hugeTaken === null || poolBytes > hugeTaken.poolBytes)) hugeTaken = { poolBytes, taken };
      const contextLens = new Int32Array(batch).fill(ctx);
      const q = toHalfBits('bf16', randomUniform(batch * DH * DD, 19));
      for (const [pageSize, pageOrder, layout] of DECODE_PAGE_SIZES.flatMap((ps) => PAGE_ORDERS.flatMap((o) => DECODE_LAYOUTS.map((l) => [ps, o, l] as const)))) {
        if (ctx === CACHED_CONTEXT && (pageSize !== 16 || pageOrder !== 'consecutive' || layout !== 'NHD')) continue;
        const { kPages, vPages } = pools.get(layout)!;
        const shape: CaseShape = { batchSize: batch, numHeads: DH, numKvHeads: DHKV, headDim: DD, seqLenQ: 1, seqLenK: ctx, causal: false, slidingWindow: null, pageSize };
        const pagesPerSeq = ctx / pageSize;
        const numPages = batch * pagesPerSeq;
        const label = rowLabel(shape, { pageOrder, layout });
        const row: Row = { label, dtype: 'bf16/bf16', layout, peerSkip: 'see note: no decode peer' };
        rows.push(row);
        const blockTable = pageOrder === 'scattered' ? shuffledPages(numPages, 17 + ctx) : freshPoolTables(batch, ctx, numPages, pageSize);
        const args: PagedDecodeArgs = {
          q, kPages, vPages, blockTable, contextLens, dtype: 'bf16', kvDtype: 'bf16', kvCacheLayout: layout,
          batch, numHeads: DH, numKvHeads: DHKV, headDim: DD, numPages, pageSize, maxPagesPerSeq: pagesPerSeq, threads,
        };
        // Check on a reduced shape: 2 sequences of an odd length over the first pages.
        const checkCtx = 1003;
        const checkBatch = Math.min(batch, 2);
        const checkArgs: PagedDecodeArgs = {
          ...args,
          q: q.subarray(0, checkBatch * DH * DD),
          batch: checkBatch,
          blockTable: blockTable.subarray(0, checkBatch * pagesPerSeq),
          contextLens: new Int32Array(checkBatch).fill(checkCtx),
        };
        const checkShape: CaseShape = { ...shape, batchSize: checkBatch, seqLenK: checkCtx };
        const ref = await referencePagedDecode(checkArgs);
        const tCheck0 = process.hrtime.bigint();
        const out = await pagedDecode(checkArgs);
        sawRate('paged_decode', attentionFlops(checkShape), Number(process.hrtime.bigint() - tCheck0), false);
        const maxAbsErr = maxAbsDiff(out.o, ref.o);
        const lseMaxAbsErr = maxAbsDiff(out.lse, ref.lse);
        const flops = attentionFlops(shape);
        const est = expectSec('paged_decode', flops)!;
        if (est > MAX_SECONDS_PER_RUN) {
          row.kernelSkip = `~${est.toFixed(0)} s per run at ${formatSignificant(rateFor('paged_decode')! / 1e9)} GFLOP/s (limit ${MAX_SECONDS_PER_RUN} s)`;
          skipped.push({ what: 'kernel', kernel: 'paged_decode', shape, dtype: 'bf16', reason: row.kernelSkip });
        } else {
          log(`${label} (~${est < 0.01 ? est.toExponential(1) : est.toFixed(2)} s per run) ...`);
          const timing = await timePagedDecode(args, timingFor(est));
          row.kernelCpuNs = cpuMedian(timing.cpuNs);
          row.kernel = summarizeCase({ kernel: 'paged_decode', backend: 'cpu', shape, dtype: 'bf16', kvDtype: 'bf16', maxAbsErr, lseMaxAbsErr, checkShape, pageOrder, ...cpuCasePath('paged_decode', 'bf16') }, timing.samplesNs, peaks);
          sawRate('paged_decode', flops, row.kernel.medianNs);
          cases.push(row.kernel);
          // What the pages' layout and order allow (the same K/V bytes read by the peak's loop)
          // and the arithmetic alone (the same grid over L2_TOKENS tokens' pages, in L2), each
          // in turn with the kernel, so that all three see the same moments of the machine.
          const l2Pages = Math.max(1, L2_TOKENS / pageSize);
          const l2Table = blockTable.map((_, i) => i % l2Pages);
          const block = pairedBlock(row.kernel.medianNs / 1e9, Infinity)!;
          log(`${label}: kernel, pages read alone and arithmetic alone, ${DECODE_BOUND_ROUNDS} rounds ...`);
          const [kernelBlocks, readBlocks, computeBlocks] = await interleave([
            () => timedBlock(timePagedDecode(args, block)),
            () => timedBlock(timePagedRead(args, block)),
            () => timedBlock(timePagedDecode({ ...args, blockTable: l2Table }, block)),
          ], DECODE_BOUND_ROUNDS);
          row.pageKernelNs = median(kernelBlocks!.map((t) => t.wall));
          row.pageReadNs = median(readBlocks!.map((t) => t.wall));
          row.pageComputeNs = median(computeBlocks!.map((t) => t.wall));
          row.pageReadCpuNs = median(readBlocks!.map((t) => t.cpu));
          row.pageKernelCpuNs = median(kernelBlocks!.map((t) => t.cpu));
          const kvBytes = 2 * batch * ctx * DHKV * DD * 2;
          // From cache or not, judged as `attnscope bench` judges it: the pages read alone on one thread in rounds
          // with a read past every cache (the --json's case carries both rates and, where cached, the mark).
          const readAlone = await measureReadAlone(args, kvBytes, dram, { minTimeMs: 300 });
          if (readAlone) Object.assign(row.kernel, readAlone);
          const fromCache = fromCacheBy(row.kernel, environment);
          if (fromCache) row.kernel.fromCache = fromCache;
          const readBw = peaks.readBytesPerSec;
          const b = decodeBounds(kvBytes, row.pageReadNs, row.pageComputeNs, row.pageKernelNs);
          const readCpuGBps = row.pageReadCpuNs > 0 ? kvBytes / (row.pageReadCpuNs / threads) : null;
          pageReads.push(
            `${label}: read alone ${formatSignificant(b.readGBps)} GB/s` +
              (readBw ? ` (${fmtPct(kvBytes / (row.pageReadNs * 1e-9) / readBw)} of the read bandwidth)` : '') +
              (readCpuGBps ? `, by CPU time / ${threads} threads ${formatSignificant(readCpuGBps)} GB/s` + (readBw ? ` (${fmtPct((readCpuGBps * 1e9) / readBw)})` : '') : '') +
              `, arithmetic alone ${formatSignificant(b.computeGBps)} GB/s, the two one after the other ${formatSignificant(b.serialGBps)} GB/s; ` +
              `the kernel in the same rounds ${formatSignificant(b.kernelGBps)} GB/s (${fmtPct(row.pageReadNs / row.pageKernelNs)} of read alone; overlap ${b.overlap.toFixed(2)})`,
          );
        }

        skipped.push({ what: 'peer', kernel: 'paged_decode', shape, dtype: 'bf16', reason: DECODE_NOTE });
        // Naive reference (gathers every sequence's K/V in fp64, one thread): once per shape.
        if (pageOrder !== 'scattered' || layout !== 'NHD') continue;
        const t0 = process.hrtime.bigint();
        await referencePagedDecode(checkArgs);
        const refRate = attentionFlops(checkShape) / (Number(process.hrtime.bigint() - t0) * 1e-9);
        const refSec = attentionFlops(shape) / refRate;
        const gatherBytes = 2 * ctx * DHKV * DD * 8;
        if (refSec > MAX_REFERENCE_SECONDS) {
          row.referenceSkip = `~${refSec.toFixed(0)} s per run (naive fp64, one thread)`;
        } else if (gatherBytes > 1 << 30) {
          row.referenceSkip = `would gather ${formatBytes(gatherBytes)} of fp64 K/V per sequence`;
        } else {
          log(`${label}: naive reference (~${refSec.toFixed(1)} s) ...`);
          const samples: number[] = [];
          for (let i = 0; i < (refSec > 2 ? 1 : 3); i++) {
            const t1 = process.hrtime.bigint();
            await referencePagedDecode(args);
            samples.push(Number(process.hrtime.bigint() - t1));
          }
          row.reference = summarizeCase({ kernel: 'reference', backend: 'cpu', shape, dtype: 'bf16', kvDtype: 'bf16', maxAbsErr: 0, lseMaxAbsErr: 0 }, samples, peaks);
          cases.push(row.reference);
        }
        if (row.referenceSkip) skipped.push({ what: 'reference', kernel: 'reference', shape, dtype: 'bf16', reason: row.referenceSkip });
      }
    }
  }
  if (pageReads.length > 0) {
    notes.push(
      'decode, what bounds each row: its pages read alone (the same K and V bytes, in block-table order, over the same threads, with the read-bandwidth peak\'s loads in the kernel\'s order: groups of 4 pieces (a page of up to 16 tokens, a 16-token run of a longer one), each read as its K run then its V run where the group is one run of the pool, else with their K and V runs interleaved 256 B by 256 B, the fastest of the read orders measured for scattered pages: no arithmetic, no prefetch; what the page layout and order allow) ' +
        `and its arithmetic alone (the same kernel and grid over the pages of ${L2_TOKENS} tokens, which stay in L2), each timed in turn with the kernel, one block of runs of each per round, ${DECODE_BOUND_ROUNDS} rounds, medians; overlap 0 = the kernel takes max(read, arithmetic), 1 = read + arithmetic (none of the reading hidden behind arithmetic): ` +
        pageReads.join('; '),
    );
  }
  if (hugePools.length > 0) {
    const held = hugeTaken
      ? `; with the largest pools (${formatBytes(hugeTaken.poolBytes)}) filled, the process held ${formatBytes(hugeTaken.taken)} of AnonHugePages (/proc/self/smaps_rollup)`
      : '';
    notes.push(
      (hugePools.every(Boolean)
        ? 'decode K/V page pools: native memory with transparent huge pages (madvise taken)'
        : 'decode K/V page pools: native memory, but the OS did not take the huge-page advice (4 KiB pages: a TLB miss per page step)') + held,
    );
    notes.push(
      'decode page orders: consecutive = the block tables PageAllocator gives prompts prefilled on a fresh pool (one run of pages per sequence, as vLLM\'s free-block queue hands them out); ' +
        'scattered = a random permutation of the whole pool (a long-running pool), every page step a jump to an unrelated 32 KiB page',
    );
    notes.push(
      'decode pool layouts (the last word of each decode row): NHD = [num_pages, page_size, num_kv_heads, head_dim]; vnni16 = the same values repacked by writeKvCache into 16-token pieces, ' +
        'K [head_dim/2][16 tokens][2] and V [8 token pairs][head_dim][2] per KV head, which the AVX512-BF16 step reads with tokens in vector lanes (no horizontal sums, no V unpacking)',
    );
  }
  await ort?.close();
  const loadAtEnd = loadavg()[0]!;
  notes.push(
    `load average (1 min) ${loadAtStart.toFixed(1)} at start, ${loadAtEnd.toFixed(1)} at end, on ${environment.cpuCores} CPUs` +
      (Math.max(loadAtStart, loadAtEnd) > 0.5 * environment.cpuCores + 1
        ? ': other processes competed for the CPUs, so times are longer than on an idle machine (the peaks count only CPU time each thread got; the cases count wall time)'
        : ''),
  );

  const cpuTime = cpuFigures(rows, threads);
  const targets = checkTargets(rows, cpuTime, { quick: opts.quick, decodeOnly: opts.decode });
  printReport(environment, rows, notes, targets, cpuTime);
  log('the WebAssembly build beside native ...');
  const wasm = opts.decode ? 'not measured: --decode' : await compareWasm(threads);
  console.log(`\n${formatWasmComparison(wasm, threads)}`);
  const result: KernelBenchResult = {
    ...runHeader('bench:kernels', toolBuild(), new Date(started)),
    name: 'bench:kernels',
    environment,
    cases,
    peers,
    cpuTime,
    paired,
    skipped,
    notes,
    wasm: typeof wasm === 'string' ? { notMeasured: wasm } : wasm,
    targets,
    status: 'ok',
    wallSeconds: (Date.now() - started) / 1000,
  };
  console.log(`\nwall time ${result.wallSeconds.toFixed(0)} s`);
  if (opts.json) {
    writeFileAtomic(opts.json, JSON.stringify(result, null, 1) + '\n');
    log(`wrote ${opts.json}`);
  }
}

/** Median of a run's CPU-time samples; undefined when there are none (or all are 0: too short to see). */
function cpuMedian(cpuNs: number[] | undefined): number | undefined {
  if (!cpuNs || cpuNs.length === 0) return undefined;
  const m = sampleStats(cpuNs).medianNs;
  return m > 0 ? m : undefined;
}

/**
 * Each timed row's figures from CPU time: %peak scaled by wall / (CPU / threads) — the
 * fraction the threads reached while they ran — and onnxruntime's CPU time over ours.
 */
function cpuFigures(rows: Row[], threads: number): CpuTimeFigure[] {
  const out: CpuTimeFigure[] = [];
  for (const r of rows) {
    const k = r.kernel;
    if (!k || r.kernelCpuNs === undefined) continue;
    const perThread = r.kernelCpuNs / threads;
    out.push({
      case: r.label,
      dtype: r.dtype,
      threads,
      kernelCpuMedianNs: r.kernelCpuNs,
      kernelFraction: k.fractionOfPeak === null ? null : (k.fractionOfPeak * k.medianNs) / perThread,
      ...(r.peerCpuNs !== undefined ? { peerCpuMedianNs: r.peerCpuNs, peerOverKernel: r.peerCpuNs / r.kernelCpuNs } : {}),
    });
  }
  return out;
}

/**
 * Achieved FLOP/s over the FLOP peak of the unit that did the case's products (its
 * productUnit; decode too: how far from compute-bound).
 */
function flopFraction(k: KernelCase, peaks: NonNullable<Environment['peaks']>): number | null {
  const c = computeCeiling(k.dtype === 'bf16' || k.dtype === 'fp16' ? k.dtype : 'fp32', peaks, k.productUnit);
  return c ? (k.gflops * 1e9) / c.value : null;
}

/**
 * The report on stdout: the run's header and peaks, the legend, the table of rows
 * (core/textTable.ts renderTable at the tables' width: past it stacked parts, each repeating case
 * and dtype), its footnotes, notes and targets. Every prose line is wrapped at the prose width
 * (core/format.ts wrapLongLines: 100 piped, min(terminal, 100) on one), as the CLI's reports are.
 * A median whose samples' p90 / p10 reaches core/noise.ts NOISY_SPREAD_RATIO says "noisy Nx"
 * after it (noisyMark, the CLI's kernel table's rule and words), and the legend says what it means.
 */
function printReport(env: Environment, rows: Row[], notes: string[], targets: string[], cpuTime: CpuTimeFigure[]): void {
  const p = env.peaks ?? {};
  const n = p.notes ?? {};
  // "  fp32 FMA: 447 GFLOP/s (how it was measured)", a prose line wrapped with the rest.
  const peakLine = (name: string, v: number | undefined, unit: 'FLOP/s' | 'B/s', note: string | undefined) => {
    const why = v ? note : note?.replace(/^unavailable: /, '');
    return `  ${name}: ${v ? formatRate(v, unit) : 'unavailable'}${why ? ` (${why})` : ''}`;
  };
  const say = (text: string) => console.log(wrapLongLines(text));
  say(`\nAttnScope kernel benchmark — ${env.cpuModel}, ${env.cpuCores} CPUs, ${env.threads} threads, kernels' SIMD path: ${env.simd}`);
  if (env.loadAverage) say(`load average at the start: ${env.loadAverage.map((x) => x.toFixed(2)).join(', ')} (1, 5, 15 min) on ${env.cpuCores} CPUs`);
  if (env.simdDispatchReason) say(`paths: ${env.simdDispatchReason}`);
  say(`CPU features: ${env.cpuFeatures.join(' ')}`);
  say('Peaks measured in this run (SI units):');
  say(peakLine('fp32 FMA', p.fp32FlopsPerSec, 'FLOP/s', n.fp32FlopsPerSec));
  say(peakLine('bf16 AVX512-BF16', p.avx512Bf16FlopsPerSec, 'FLOP/s', n.avx512Bf16FlopsPerSec));
  say(peakLine('bf16 AMX', p.bf16AmxFlopsPerSec, 'FLOP/s', n.bf16AmxFlopsPerSec));
  say(peakLine('DRAM read', p.readBytesPerSec, 'B/s', n.readBytesPerSec));
  say('path = SIMD path and the unit doing the products; %peak = of that unit\'s peak above (fp32-fma and scalar: fp32 FMA; avx512-bf16: AVX512-BF16; amx-bf16: AMX); %BW = of DRAM read.');
  say('ref = naive fp64 reference (one thread) at the same shape; ORT = onnxruntime MultiHeadAttention fp32, same threads; x = ORT time / ours.');
  say(`cpu% = the fraction of the roof that bounds the row (%peak where its FLOP/byte is at or above the ridge point peak / bandwidth, as flash; else %BW, as decode) from the median process CPU time / ${env.threads} threads instead of wall time; x cpu = ORT CPU time / ours.`);
  if (rows.some((r) => r.kernel && noisyMark({ p10: r.kernel.p10Ns, p90: r.kernel.p90Ns }) !== null)) say(`median: ${NOISY_MARK_NOTE}.`);
  console.log('');
  const head = ['case', 'dtype', 'path', 'median', 'GFLOP/s', '%peak', 'GB/s', '%BW', 'cpu%', 'ref', 'ref GF/s', 'ORT', 'ORT GF/s', 'x ORT', 'x cpu', 'max|err|'];
  const bw = p.readBytesPerSec ?? null;
  const footnotes: string[] = [];
  const mark = (text: string) => {
    if (!footnotes.includes(text)) footnotes.push(text);
    return `[${footnotes.indexOf(text) + 1}]`;
  };
  // A row read from cache (core/format.ts fromCacheText: by the last-level cache's size, or its pages read alone at
  // more than CACHED_READ_RATIO x a DRAM read timed with them): calls timed back to back read its pages from cache, not DRAM.
  const cacheMark = (r: Row) => {
    const why = r.kernel ? fromCacheText(r.kernel, env) : null;
    return why ? mark(`${r.label}: ${why} (calls timed back to back read its pages from cache)`) : '';
  };
  const median = (k: KernelCase) => {
    const noisy = noisyMark({ p10: k.p10Ns, p90: k.p90Ns });
    return `${formatDuration(k.medianNs)}${noisy === null ? '' : ` ${noisy}`}`;
  };
  const cells = rows.map((r) => {
    const k = r.kernel;
    const cpu = cpuTime.find((c) => c.case === r.label && c.dtype === r.dtype);
    return [
      r.label,
      r.dtype,
      k?.simdPath ? `${k.simdPath} ${k.productUnit ?? ''}`.trim() : '-',
      k ? median(k) : r.kernelSkip ? `skip${mark(`${r.label} ${r.dtype}: ${r.kernelSkip}`)}` : '-',
      k ? formatSignificant(k.gflops) : '-',
      k ? fmtPct(flopFraction(k, p)) : '-',
      k ? formatSignificant(k.gbps) : '-',
      k && bw ? fmtPct((k.gbps * 1e9) / bw) + cacheMark(r) : '-',
      cpu ? fmtPct(cpu.kernelFraction) : '-',
      r.reference ? formatDuration(r.reference.medianNs) : r.referenceSkip ? `skip${mark(`${r.label} reference: ${r.referenceSkip}`)}` : '-',
      r.reference ? formatSignificant(r.reference.gflops) : '-',
      r.peer ? formatDuration(r.peer.medianNs) : r.peerSkip && r.dtype === 'fp32' ? `n/a${mark(`${r.label} onnxruntime: ${r.peerSkip}`)}` : '-',
      r.peer ? formatSignificant(r.peer.gflops) : '-',
      r.peer && k ? `${(r.peer.medianNs / k.medianNs).toFixed(2)}` : '-',
      cpu?.peerOverKernel !== undefined ? cpu.peerOverKernel.toFixed(2) : '-',
      k ? fmtErr(k.maxAbsErr) : '-',
    ];
  });
  console.log(renderTable(head, cells, head.map((_, i) => i >= 3), { keys: 2 }));
  if (footnotes.length) console.log('');
  footnotes.forEach((f, i) => say(`[${i + 1}] ${f}`));
  console.log('');
  for (const note of notes) say(`note: ${note}`);
  console.log('');
  for (const t of targets) say(`target: ${t}`);
}

/**
 * The targets of issues 6 and 18 on this run's figures: flash fp32 >= 60 % of the FMA peak at
 * N = 4k and 16k, D = 128; bf16 >= 25 % of the peak of the unit that ran it (AMX, AVX512-BF16) and, on
 * every path, no slower than fp32; paged decode >= 80 % of read bandwidth at 32k context;
 * faster than onnxruntime on every shape. One line per target: met, or missed and by how much,
 * from wall time and from CPU time (cpuTime; on a loaded machine the wall figure is the
 * machine's, the CPU one the kernel's). The two comparisons of two implementations (bf16 / fp32,
 * onnxruntime / ours) are judged on their paired figures (Row.vsFp32, Row.vsPeer;
 * pairedVerdict) where the runs were paired, and say "unpaired" where not.
 */
export function checkTargets(rows: Row[], cpuTime: CpuTimeFigure[], run: { quick?: boolean; decodeOnly?: boolean } = {}): string[] {
  const out: string[] = [];
  // A target whose case this run's flags leave out was not run, which is not a measurement that failed.
  const QUICK = 'not run (--quick runs N=1k and ctx 4k only)';
  const flashNotRun = run.decodeOnly ? 'not run (--decode runs decode only)' : run.quick ? QUICK : null;
  const decodeNotRun = run.quick ? QUICK : null;
  const judge = (achieved: number | null | undefined, goal: number): string =>
    achieved === null || achieved === undefined
      ? 'not measured'
      : achieved >= goal
        ? `met (${fmtPct(achieved)} >= ${fmtPct(goal)})`
        : `MISSED by ${((goal - achieved) * 100).toFixed(0)} points (${fmtPct(achieved)} < ${fmtPct(goal)}; ${(goal / achieved).toFixed(1)}x short)`;
  const ratio = (achieved: number | null | undefined): string =>
    achieved === null || achieved === undefined ? 'not measured' : `${achieved >= 1 ? 'met' : 'MISSED'} (${achieved.toFixed(2)}x)`;
  const cpuOf = (r: Row | undefined) => (r ? cpuTime.find((c) => c.case === r.label && c.dtype === r.dtype) : undefined);
  const verdict = (what: string, r: Row | undefined, goal: number, notRun: string | null = null): string =>
    !r && notRun
      ? `${what}: ${notRun}`
      : `${what}: ${judge(r?.kernel?.fractionOfPeak, goal)} by wall time; ${judge(cpuOf(r)?.kernelFraction, goal)} by CPU time`;
  const flash = (dtype: string, causal: boolean, n = 4096) =>
    rows.find((r) => r.kernel?.kernel === 'flash_fwd' && r.dtype === dtype && r.kernel.shape.seqLenQ === n && r.kernel.shape.headDim === 128 && r.kernel.shape.causal === causal);
  for (const n of [4096, 16384]) {
    for (const causal of [false, true]) {
      out.push(verdict(`flash fp32 N=${kLabel(n)} D=128${causal ? ' causal' : ''} vs fp32 FMA peak`, flash('fp32', causal, n), 0.6, flashNotRun));
    }
  }
  for (const causal of [false, true]) {
    const bf16 = flash('bf16', causal);
    const fp32 = flash('fp32', causal);
    const what = `flash bf16 N=4k D=128${causal ? ' causal' : ''}`;
    if (!bf16 && !fp32 && flashNotRun) {
      out.push(`${what} no slower than fp32: ${flashNotRun}`);
      continue;
    }
    // Against the peak of the unit that ran (AMX, AVX512-BF16); on every path no slower than fp32.
    const unit = bf16?.kernel?.productUnit;
    if (unit === 'amx-bf16' || unit === 'avx512-bf16') out.push(verdict(`${what} vs ${bf16!.kernel!.ceiling ?? 'its peak'}`, bf16, 0.25));
    const path = bf16?.kernel ? ` on ${[bf16.kernel.simdPath, unit].filter(Boolean).join(' ')}` : '';
    if (bf16?.vsFp32) {
      out.push(`${what}${path} no slower than fp32: ${pairedVerdict(bf16.vsFp32)}`);
      continue;
    }
    // Not paired (runs over DTYPE_PAIRED_MAX_SECONDS): the two rows' medians, seconds apart.
    const wall = bf16?.kernel && fp32?.kernel ? fp32.kernel.medianNs / bf16.kernel.medianNs : null;
    const cpu = bf16?.kernelCpuNs && fp32?.kernelCpuNs ? fp32.kernelCpuNs / bf16.kernelCpuNs : null;
    const unpaired = wall === null ? '' : `, unpaired: runs over ${DTYPE_PAIRED_MAX_SECONDS} s`;
    out.push(`${what}${path} no slower than fp32 (fp32 time / bf16 time${unpaired}): ${ratio(wall)} by wall time; ${ratio(cpu)} by CPU time`);
  }
  const decode32k = rows.filter((r) => r.kernel?.kernel === 'paged_decode' && r.kernel.shape.seqLenK === 32768);
  for (const r of decode32k) {
    const overlap = r.pageReadNs && r.pageComputeNs && r.pageKernelNs ? decodeBounds(1, r.pageReadNs, r.pageComputeNs, r.pageKernelNs).overlap : null;
    // The pages read alone as a fraction of the read bandwidth: the kernel's fraction scaled by
    // the kernel's time over the read's (wall), or by their process CPU times / threads.
    const threads = cpuOf(r)?.threads;
    const readCpu = r.pageReadCpuNs && r.pageKernelCpuNs && threads
      ? `, ${fmtPct((r.kernel!.fractionOfPeak ?? 0) * (r.kernel!.medianNs / (r.pageReadCpuNs / threads)))} by CPU time`
      : '';
    const kernelCpu = r.pageReadCpuNs && r.pageKernelCpuNs ? ` (${fmtPct(r.pageReadCpuNs / r.pageKernelCpuNs)} by CPU time)` : '';
    const alone = r.pageReadNs && r.pageKernelNs
      ? `; its pages read alone: ${fmtPct((r.kernel!.fractionOfPeak ?? 0) * (r.kernel!.medianNs / r.pageReadNs))} of it by wall time${readCpu}, the kernel ${fmtPct(r.pageReadNs / r.pageKernelNs)} of that in the same rounds${kernelCpu}` +
        (overlap !== null ? ` (overlap of reading and arithmetic ${overlap.toFixed(2)}: 0 full, 1 none)` : '')
      : '';
    const shape = r.kernel!.shape;
    out.push(verdict(`decode B=${shape.batchSize} ctx=32k ${shape.pageSize ? `p${shape.pageSize} ` : ''}${r.kernel!.pageOrder ?? ''}${r.layout ? ` ${r.layout}` : ''} vs ${r.kernel!.ceiling ?? 'DRAM read bandwidth'}`, r, 0.8) + alone);
  }
  if (decode32k.length === 0) out.push(verdict('decode ctx=32k vs DRAM read bandwidth', undefined, 0.8, decodeNotRun));
  const pairedRaces = rows.filter((r) => r.vsPeer);
  if (pairedRaces.length > 0) {
    const verdicts = pairedRaces.map((r) => ({ r, v: pairedVerdict(r.vsPeer!) }));
    const by = (state: string) => verdicts.filter((x) => x.v.startsWith(state));
    const missed = by('MISSED'), noise = by('within');
    const list = (xs: typeof verdicts) => xs.map((x) => `${x.r.label} ${x.v.replace(/^[^(]*/, '')}`).join('; ');
    out.push(
      `faster than onnxruntime, paired (ORT time / ours per round; ${pairedRaces.length} shapes with runs up to ${PAIRED_MAX_SECONDS} s): ` +
        (missed.length === 0 && noise.length === 0 ? `met on all ${pairedRaces.length}: ` + list(verdicts) : `${by('met').length} met; within A/A noise: ${list(noise) || 'none'}; MISSED: ${list(missed) || 'none'}`),
    );
  }
  const raced = rows.filter((r) => r.kernel && r.peer && !r.vsPeer);
  const against = (by: string, slower: Row[], times: (r: Row) => number) =>
    slower.length === 0
      ? `met on all ${raced.length} shapes it ran by ${by}`
      : `MISSED on ${slower.length} of ${raced.length} shapes by ${by}: ` + slower.map((r) => `${r.label} (${times(r).toFixed(2)}x its time)`).join(', ');
  const slowerWall = raced.filter((r) => r.peer!.medianNs < r.kernel!.medianNs);
  const cpuRaced = raced.filter((r) => r.kernelCpuNs !== undefined && r.peerCpuNs !== undefined);
  const slowerCpu = cpuRaced.filter((r) => r.peerCpuNs! < r.kernelCpuNs!);
  if (raced.length === 0 && pairedRaces.length === 0) {
    out.push('faster than onnxruntime: not measured (no shape ran against onnxruntime in this run)');
  } else if (raced.length > 0) {
    out.push(
      `faster than onnxruntime${pairedRaces.length > 0 ? `, unpaired (runs over ${PAIRED_MAX_SECONDS} s)` : ''}: ${against('wall time', slowerWall, (r) => r.kernel!.medianNs / r.peer!.medianNs)}; ` +
        against('CPU time', slowerCpu, (r) => r.kernelCpuNs! / r.peerCpuNs!),
    );
  }
  return out;
}

if (require.main === module) {
  // Under LANG=C (no UTF-8 in the locale) the report in ASCII, as the CLI's (core/textTable.ts terminalText).
  localeOutput([process.stdout, process.stderr]);
  main().catch((e: unknown) => {
    process.stderr.write(`bench:kernels: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  });
}
