/**
 * The Environment block of a run (core/protocol/run.ts): what the machine is and what it can
 * do, measured in the same process as the cases, so two runs can be compared and every case's
 * fractionOfPeak has its ceiling beside it.
 */
import { availableParallelism, loadavg } from 'node:os';

import { machineIdentity } from '../core/machine';
import type { Environment } from '../core/protocol/run';
import { computePeak, gpuByName } from '../core/estimate/gpus';
import { cpuFeatures, cpuInfo, cudaAvailable, dispatchFor, measurePeaks, timeCudaCopy, type CudaDeviceInfo } from '../native';
import { gpuRowForDevice } from './simulate/calibrate-kernels';
import { toolBuild } from './version';

export interface EnvironmentOptions {
  /** Threads of the kernels and the peaks; default (0) = one per CPU this process may use. */
  threads?: number;
  /** Budget of measurePeaks, ms (default 1200, about what every `attnscope bench` can spend). */
  peaksDurationMs?: number;
}

/**
 * Describes this machine without measuring it (no peaks): OS, CPU, SIMD path, threads,
 * versions. What a run that times no kernel (`attnscope simulate --json`) records.
 */
export function describeMachine(threads = 0): Environment {
  const features = cpuFeatures();
  const [load1, load5, load15] = loadavg() as [number, number, number];
  const cpu = cpuInfo();
  // The one reader of the cache's size (native cpu_features: sysfs, then CPUID's cache leaves).
  const cache: Environment['lastLevelCache'] = features.lastLevelCacheLevel > 0 && features.lastLevelCacheBytes > 0 && features.lastLevelCacheSource !== ''
    ? { level: features.lastLevelCacheLevel, bytes: features.lastLevelCacheBytes, source: features.lastLevelCacheSource }
    : undefined;
  return {
    ...machineIdentity(),
    // The WebAssembly build runs one thread; the machine still has its cores (load average).
    cpuCores: cpu.build === 'wasm' ? availableParallelism() : features.logicalCores,
    simd: cpu.simd,
    cpuFeatures: features.names,
    threads: threads || features.logicalCores,
    simdDispatch: cpu.dispatch.map(({ kernel, dtype, path, unit }) => ({ kernel, dtype, path, unit })),
    simdDispatchReason: cpu.dispatchReason,
    ...(cpu.simdOverride ? { simdOverride: { ...cpu.simdOverride } } : {}),
    nativeBuild: cpu.build,
    ...(cpu.buildReason ? { nativeBuildReason: cpu.buildReason } : {}),
    loadAverage: [load1, load5, load15],
    ...(cache ? { lastLevelCache: cache } : {}),
    nodeVersion: process.version,
    toolVersion: toolBuild(),
  };
}

/**
 * Describes this machine and measures its CPU ceilings (fp32 FMA, AVX512-BF16, AMX bf16, DRAM
 * read bandwidth; see native/peaks.ts). Takes about `peaksDurationMs`.
 * @throws TypeError / RangeError from measurePeaks for a bad option.
 */
export async function measureEnvironment(opts: EnvironmentOptions = {}): Promise<Environment> {
  const machine = describeMachine(opts.threads);
  const peaks = await measurePeaks({ threads: machine.threads, durationMs: opts.peaksDurationMs ?? 1200 });
  return { ...machine, peaks };
}

/**
 * The first CUDA device's identity (name, SMs, memory, driver, clocks), without measuring it;
 * undefined when no CUDA device and library are present. Cheap: what a sweep's environment key
 * needs to keep two GPUs' results apart.
 */
export function describeGpu(): Environment['gpu'] {
  const dev = cudaAvailable().devices?.[0];
  if (!dev) return undefined;
  return {
    name: dev.name,
    smCount: dev.multiprocessorCount,
    memoryBytes: dev.totalMemoryBytes,
    driver: String(dev.driverVersion),
    runtime: String(dev.runtimeVersion),
    clockMhz: dev.smClockKHz / 1000,
    memClockMhz: dev.memoryClockKHz / 1000,
  };
}

/**
 * The SIMD path and product unit the CPU kernels take for a case under 'auto' (flash: the
 * Q/K/V dtype; decode: the KV dtype), for KernelCase.simdPath / productUnit. Dtypes the CPU
 * kernels do not take count as fp32.
 */
export function cpuCasePath(kernel: 'flash_fwd' | 'paged_decode', dtype: string | undefined): { simdPath: string; productUnit: string } {
  const { path, unit } = dispatchFor(kernel, dtype === 'fp16' || dtype === 'bf16' ? dtype : 'fp32');
  return { simdPath: path, productUnit: unit };
}

/** GPU facts and ceilings: device info, tensor-core peak from clocks, fp32 peak from the GPU table, measured copy bandwidth. */
export async function measureGpu(): Promise<Pick<Environment, 'gpu'> & { peaks: NonNullable<Environment['peaks']> }> {
  const dev = cudaAvailable().devices![0]!;
  const bytes = 1 << 30;
  const copy = await timeCudaCopy(bytes, { warmup: 2, minReps: 10, minTimeMs: 200, maxTimeMs: 2000 });
  const medianNs = [...copy.samplesNs].sort((a, b) => a - b)[copy.samplesNs.length >> 1]!;
  // A copy reads and writes every byte: traffic is 2 x bytes.
  return { gpu: describeGpu(), peaks: gpuPeaks(dev, (2 * bytes) / (medianNs * 1e-9)) };
}

/**
 * The compute peaks of a CUDA device a run's cases are held against, beside its measured copy
 * bandwidth: dense bf16 tensor cores from its clocks (native/cuda.ts), and fp32 without tensor
 * cores from the datasheet of its row in core/estimate/gpus.ts (computePeak 'fp32', as the
 * step-time model; calibrate-kernels.ts gpuRowForDevice names the row), absent for a device the
 * table lacks.
 */
export function gpuPeaks(dev: Pick<CudaDeviceInfo, 'name' | 'peakDenseBf16FlopsPerS'>, copyBytesPerSec: number): NonNullable<Environment['peaks']> {
  const row = gpuRowForDevice(dev.name);
  const gpu = row === undefined ? undefined : gpuByName(row);
  return {
    ...(dev.peakDenseBf16FlopsPerS ? { gpuFlopsPerSec: dev.peakDenseBf16FlopsPerS } : {}),
    ...(gpu ? { gpuFp32FlopsPerSec: computePeak(gpu, 'fp32').flopsPerSec } : {}),
    gpuCopyBytesPerSec: copyBytesPerSec,
  };
}
