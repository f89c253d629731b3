/**
 * Typed entry to the machine-peak microbenchmarks of the addon: the ceilings the roofline and
 * every case's fractionOfPeak are measured against (DESIGN.md "Benchmark method").
 *
 * Units: FLOP/s and bytes/s, SI (1 GFLOP/s = 1e9 FLOP/s). Each measurement runs in C++ on a
 * libuv worker (off the JS thread) and reports the best of several short windows on all
 * threads; see native/src/peaks/peaks.h for the loops.
 *
 * Arguments are validated here first: TypeError for a wrong type, RangeError for a bad value,
 * each naming the argument.
 */
import type { Environment } from '../core/protocol/run';
import { loadAddon } from './binding';

/** One measured ceiling, as the addon returns it. */
export interface PeakMeasurement {
  /** False when nothing could be measured; `reason` says why (e.g. "CPUID lacks amx_bf16"). */
  available: boolean;
  /** FLOP/s or bytes/s (SI), best window; 0 when unavailable. */
  value: number;
  /** Wall time the measurement took, seconds (allocation and warm-up included). */
  seconds: number;
  threads: number;
  /** The loop that ran: 'avx512' | 'avx2' | 'avx512bf16' | 'amx' | 'neon' | 'portable' | 'integer'. */
  isa: string;
  /** One sentence: what ran and how the figure is counted. */
  method: string;
  /** Why not, when !available; '' otherwise. */
  reason: string;
}

/** What CPUID and the OS say this CPU runs (x86-64; elsewhere only the ISA flag). */
export interface CpuFeatureSet {
  /**
   * Present features by their /proc/cpuinfo names, from: avx2, fma, avx512f, avx512bw,
   * avx512vl, avx512_bf16, avx512_fp16, amx_tile, amx_bf16, amx_int8, neon. AVX and AVX-512
   * flags also require the OS to save the registers (XCR0).
   */
  names: string[];
  /** CPUID vendor, e.g. 'GenuineIntel', 'AuthenticAMD'; '' when unknown. */
  vendor: string;
  /** Brand string, e.g. 'AMD EPYC 9B45'. */
  model: string;
  /** CPUs this process may run on (its affinity mask). */
  logicalCores: number;
  /**
   * Bytes of the last-level cache a core of this process sits in (the one reader of it,
   * {@link lastLevelCacheOf} over cpu0's sysfs folder, then this CPU's CPUID cache leaves: AMD
   * 0x8000001D, Intel 4); 0 when unknown (other OSes, a guest whose sysfs lists no caches and
   * whose CPUID hides those leaves, as the 2-vCPU Zen 5 VM of session 51).
   */
  lastLevelCacheBytes: number;
  /** Its level, 3 for an L3; 0 when unknown. */
  lastLevelCacheLevel: number;
  /** Where that came from: 'sysfs', 'cpuid', or '' when unknown. */
  lastLevelCacheSource: '' | 'sysfs' | 'cpuid';
  /** Whether the OS enables AMX tile state in XCR0 (Linux still needs a per-process request). */
  amxOsState: boolean;
}

/** The CPU ceilings of one run: Environment.peaks of the run JSON (CPU fields). */
export type Peaks = NonNullable<Environment['peaks']>;

/** Options of measurePeaks. */
export interface MeasurePeaksOptions {
  /** Worker threads; default (0) = one per CPU of the affinity mask, as the kernels use. */
  threads?: number;
  /**
   * Wall-clock budget of all four measurements, ms (default 1200): fp32 FMA 25 %, AVX512-BF16
   * 20 %, AMX 20 %, read bandwidth 35 % (its buffer's first touch included). A peak this CPU
   * lacks takes no time.
   */
  durationMs?: number;
}

type PeakKind = 'fp32_fma' | 'avx512_bf16' | 'amx_bf16' | 'read_bandwidth' | 'core_clock';

/** A last-level cache as {@link lastLevelCacheOf} finds it: level 0 and bytes 0 when unknown. */
export interface CacheSize {
  /** The cache's level, 3 for an L3; 0 when unknown. */
  level: number;
  /** Its size, bytes. */
  bytes: number;
  /** 'sysfs' or 'cpuid'; '' when unknown. */
  source: '' | 'sysfs' | 'cpuid';
}

interface PeaksAddon {
  cpuFeatures(): CpuFeatureSet;
  lastLevelCacheOf?(sysfsDir: string, leaves: number[]): CacheSize;
  measurePeak(kind: PeakKind, threads: number, durationMs: number, bufferBytes: number): Promise<PeakMeasurement>;
}

const addon = (): PeaksAddon => loadAddon<PeaksAddon>();

function checkThreads(threads: unknown): number {
  if (threads === undefined) return 0;
  if (typeof threads !== 'number') throw new TypeError(`threads must be a number, got ${typeof threads}`);
  if (!Number.isInteger(threads) || threads < 0 || threads > 4096) {
    throw new RangeError(`threads must be an integer in [0, 4096] (0 = one per CPU), got ${threads}`);
  }
  return threads;
}

function checkDuration(name: string, ms: unknown, fallback: number): number {
  if (ms === undefined) return fallback;
  if (typeof ms !== 'number') throw new TypeError(`${name} must be a number, got ${typeof ms}`);
  if (!Number.isFinite(ms) || ms <= 0 || ms > 600_000) {
    throw new RangeError(`${name} must be in (0, 600000] ms, got ${ms}`);
  }
  return ms;
}

/** CPUID features, vendor, model and usable cores of this machine (synchronous, microseconds). */
export function cpuFeatures(): CpuFeatureSet {
  return addon().cpuFeatures();
}

/**
 * The cache reader cpuFeatures uses (C++ last_level_cache_of), on given inputs: the highest data
 * or unified level `sysfsDir` lists (index<N>/{level,type,size}, "32768K" = 33554432 bytes), else
 * the highest of `leaves`, CPUID deterministic cache subleaves as EAX, EBX, ECX triples (AMD
 * 0x8000001D and Intel leaf 4 share the layout: bytes = ways x partitions x line size x sets).
 * e.g. no folder and the Zen 5 L3 leaf [0x3c163, 0x03c0003f, 0x7fff] -> { level 3, 33554432, 'cpuid' }.
 * @throws TypeError / RangeError for bad arguments; Error in the WebAssembly build, which has no such entry.
 */
export function lastLevelCacheOf(sysfsDir: string, leaves: number[] = []): CacheSize {
  const a = addon();
  if (!a.lastLevelCacheOf) throw new Error('lastLevelCacheOf needs the native addon: the WebAssembly build has no such entry');
  return a.lastLevelCacheOf(sysfsDir, leaves);
}

/**
 * fp32 FMA peak: independent FMA chains on zmm (AVX-512), else ymm (AVX2+FMA), else portable
 * (NEON on arm64), on all threads. FLOPs counted as 2 per lane per FMA.
 */
export function measureFp32FmaPeak(opts: MeasurePeaksOptions = {}): Promise<PeakMeasurement> {
  return addon().measurePeak('fp32_fma', checkThreads(opts.threads), checkDuration('durationMs', opts.durationMs, 300), 0);
}

/** bf16 peak through vdpbf16ps (AVX512-BF16): 4 FLOP per fp32 lane per instruction. */
export function measureAvx512Bf16Peak(opts: MeasurePeaksOptions = {}): Promise<PeakMeasurement> {
  return addon().measurePeak('avx512_bf16', checkThreads(opts.threads), checkDuration('durationMs', opts.durationMs, 250), 0);
}

/**
 * bf16 peak through AMX TDPBF16PS (16x16 fp32 += 16x32 · 32x16 bf16 = 16384 FLOP each). Asks
 * Linux for tile-data permission first (arch_prctl ARCH_REQ_XCOMP_PERM); unavailable, with the
 * reason, when CPUID lacks AMX or the OS refuses.
 */
export function measureAmxBf16Peak(opts: MeasurePeaksOptions = {}): Promise<PeakMeasurement> {
  return addon().measurePeak('amx_bf16', checkThreads(opts.threads), checkDuration('durationMs', opts.durationMs, 250), 0);
}

/**
 * DRAM read bandwidth, bytes/s: all threads sum their slice of a buffer larger than the
 * last-level cache with plain vector loads. `bufferBytes` 0 (default) = 2 x LLC within
 * [256 MiB, 512 MiB]; else at least 2 MiB per thread (each thread reads whole 2 MiB pages).
 * @throws TypeError / RangeError naming the option.
 */
export function measureReadBandwidth(opts: MeasurePeaksOptions & { bufferBytes?: number } = {}): Promise<PeakMeasurement> {
  const bufferBytes = opts.bufferBytes ?? 0;
  if (typeof bufferBytes !== 'number') throw new TypeError(`bufferBytes must be a number, got ${typeof bufferBytes}`);
  if (!Number.isSafeInteger(bufferBytes) || bufferBytes < 0) {
    throw new RangeError(`bufferBytes must be a non-negative integer, got ${bufferBytes}`);
  }
  const threads = checkThreads(opts.threads);
  if (bufferBytes !== 0 && bufferBytes < (threads || cpuFeatures().logicalCores) * 2 ** 21) {
    throw new RangeError(`bufferBytes must be 0 (automatic) or at least 2 MiB per thread, got ${bufferBytes}`);
  }
  return addon().measurePeak('read_bandwidth', threads, checkDuration('durationMs', opts.durationMs, 400), bufferBytes);
}

/**
 * Core clock estimate, cycles/s: a chain of dependent 1-cycle integer adds on one thread, for
 * sanity checks of the peaks against cores x FLOP/cycle x clock. 0 on CPUs without the loop.
 */
export async function measureCoreClockHz(opts: { durationMs?: number } = {}): Promise<number> {
  const r = await addon().measurePeak('core_clock', 1, checkDuration('durationMs', opts.durationMs, 100), 0);
  return r.value;
}

/**
 * Measures this machine's CPU ceilings one after another (never overlapping, so each has the
 * cores to itself): fp32 FMA, AVX512-BF16, AMX bf16, DRAM read bandwidth. Takes about
 * `durationMs` (default 1200 ms). Every `attnscope bench` run calls it.
 * @returns Environment.peaks: the figures that were measured, and in `notes` for each of the
 *   four how it was measured or why it is unavailable ("unavailable: CPUID lacks ...").
 * @throws TypeError / RangeError naming the option.
 */
export async function measurePeaks(opts: MeasurePeaksOptions = {}): Promise<Peaks> {
  const threads = checkThreads(opts.threads);
  const total = checkDuration('durationMs', opts.durationMs, 1200);
  const runs: Array<[PeakKey, () => Promise<PeakMeasurement>]> = [
    ['fp32FlopsPerSec', () => measureFp32FmaPeak({ threads, durationMs: total * 0.25 })],
    ['avx512Bf16FlopsPerSec', () => measureAvx512Bf16Peak({ threads, durationMs: total * 0.2 })],
    ['bf16AmxFlopsPerSec', () => measureAmxBf16Peak({ threads, durationMs: total * 0.2 })],
    ['readBytesPerSec', () => measureReadBandwidth({ threads, durationMs: total * 0.35 })],
  ];
  const peaks: Peaks = {};
  const notes: NonNullable<Peaks['notes']> = {};
  for (const [key, run] of runs) {
    const m = await run();
    if (m.available) peaks[key] = m.value;
    notes[key] = m.available ? m.method : `unavailable: ${m.reason}`;
  }
  peaks.notes = notes;
  return peaks;
}

type PeakKey = 'fp32FlopsPerSec' | 'avx512Bf16FlopsPerSec' | 'bf16AmxFlopsPerSec' | 'readBytesPerSec';
