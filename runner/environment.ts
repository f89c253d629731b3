/**
 * The Environment block of a run (core/protocol/run.ts): what the machine is and what it can
 * do, measured in the same process as the cases, so two runs can be compared and every case's
 * fractionOfPeak has its ceiling beside it.
 */
import { arch, platform, release } from 'node:os';

import type { Environment } from '../core/protocol/run';
import { cudaAvailable, timeCudaCopy } from '../native/cuda';
import { cpuInfo } from '../native/kernels';
import { cpuFeatures, measurePeaks } from '../native/peaks';
import { TOOL_VERSION } from './version';

export interface EnvironmentOptions {
  /** Threads of the kernels and the peaks; default (0) = one per CPU this process may use. */
  threads?: number;
  /** Budget of measurePeaks, ms (default 1200, about what every `attnscope bench` can spend). */
  peaksDurationMs?: number;
}

/**
 * Describes this machine without measuring anything: OS, CPU model, cores, SIMD path and
 * features, versions, and the first CUDA device's identity when one is present (no peaks:
 * what a pool simulation records, where the CPU's ceilings do not matter). Cheap.
 */
export function describeMachine(opts: Pick<EnvironmentOptions, 'threads'> = {}): Environment {
  const features = cpuFeatures();
  const dev = cudaAvailable().devices?.[0];
  return {
    os: `${platform()} ${release()}`,
    arch: arch(),
    cpuModel: features.model,
    cpuCores: features.logicalCores,
    simd: cpuInfo().simd,
    cpuFeatures: features.names,
    threads: opts.threads || features.logicalCores,
    nodeVersion: process.version,
    toolVersion: TOOL_VERSION,
    ...(dev ? { gpu: gpuIdentity(dev) } : {}),
  };
}

type CudaDevice = NonNullable<ReturnType<typeof cudaAvailable>['devices']>[number];

function gpuIdentity(dev: CudaDevice): NonNullable<Environment['gpu']> {
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
 * describeMachine plus this machine's measured CPU ceilings (fp32 FMA, AVX512-BF16, AMX bf16,
 * DRAM read bandwidth; see native/peaks.ts). Takes about `peaksDurationMs`. The GPU's
 * identity is left to measureGpu, which measures its ceilings too.
 * @throws TypeError / RangeError from measurePeaks for a bad option.
 */
export async function measureEnvironment(opts: EnvironmentOptions = {}): Promise<Environment> {
  const { gpu: _gpu, ...machine } = describeMachine(opts);
  const peaks = await measurePeaks({ threads: machine.threads, durationMs: opts.peaksDurationMs ?? 1200 });
  return { ...machine, peaks };
}

/** GPU facts and ceilings: device info, tensor-core peak from clocks, measured copy bandwidth. */
export async function measureGpu(): Promise<Pick<Environment, 'gpu'> & { peaks: NonNullable<Environment['peaks']> }> {
  const dev = cudaAvailable().devices![0]!;
  const bytes = 1 << 30;
  const copy = await timeCudaCopy(bytes, { warmup: 2, minReps: 10, minTimeMs: 200, maxTimeMs: 2000 });
  const medianNs = [...copy.samplesNs].sort((a, b) => a - b)[copy.samplesNs.length >> 1]!;
  return {
    gpu: gpuIdentity(dev),
    peaks: {
      ...(dev.peakDenseBf16FlopsPerS ? { gpuFlopsPerSec: dev.peakDenseBf16FlopsPerS } : {}),
      // A copy reads and writes every byte: traffic is 2 x bytes.
      gpuCopyBytesPerSec: (2 * bytes) / (medianNs * 1e-9),
    },
  };
}
