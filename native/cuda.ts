/**
 * Typed entry to the optional GPU backend: FlashAttention-2 forward and split-K PagedAttention
 * decode on NVIDIA tensor cores, in libattnscope_cuda.so (native/cuda/, built by CMake + nvcc
 * when both are on PATH at install time).
 *
 * The arguments are the CPU kernels' (FlashForwardArgs, PagedDecodeArgs, TimingOptions from
 * native/kernels.ts) so the runner switches backends by switching functions. The GPU path
 * takes fp16 / bf16 only (Uint16Array bit patterns, see toHalfBits), the page pools in the
 * dtype of q, and core/kernelLimits.json's head dims (64, 128) and page sizes (8..256); `threads`
 * and `simd` are ignored. Outputs are fp32.
 *
 * Loading: the addon links no CUDA. cudaAvailable() first dlopen()s the NVIDIA driver
 * (libcuda.so.1) and asks for a device; only then does it load the library, from
 * $ATTNSCOPE_CUDA_LIB if set, else native/cuda/build/libattnscope_cuda.so found by walking up
 * from this file (sources under tsx and bundles in dist/ alike), and checks its C ABI version.
 * Without a GPU everything else keeps working: cudaAvailable() says why, and the kernel
 * functions reject with an Error carrying that reason.
 */
import { KERNEL_LIMITS } from '../core/kernelLimits';
import { loadAddon, nativeFileCandidates } from './binding';
import {
  checkTiming,
  flashSpec,
  pagedSpec,
  type AttentionOutput,
  type FlashForwardArgs,
  type FlashSpec,
  type PagedDecodeArgs,
  type PagedSpec,
  type TimingOptions,
  type TimingResult,
} from './kernels';

export const CUDA_LIBRARY_FILE = 'libattnscope_cuda.so';

/** One CUDA device, as the memory budget and the roofline need it. */
export interface CudaDeviceInfo {
  index: number;
  /** e.g. 'NVIDIA H200' */
  name: string;
  /** e.g. '9.0' */
  computeCapability: string;
  multiprocessorCount: number;
  /** Peak SM clock, kHz. */
  smClockKHz: number;
  /** Peak memory clock, kHz. */
  memoryClockKHz: number;
  memoryBusWidthBits: number;
  l2CacheBytes: number;
  /** Shared memory one block may opt in to, bytes. */
  maxSharedMemoryPerBlockOptin: number;
  /** Driver's CUDA version, e.g. 13000 for 13.0. */
  driverVersion: number;
  /** CUDA runtime the library was built with. */
  runtimeVersion: number;
  totalMemoryBytes: number;
  /** Free at the time cudaAvailable() first ran. */
  freeMemoryBytes: number;
  /**
   * Theoretical DRAM bandwidth, B/s: 2 (double data rate) · memory clock · bus width / 8, the
   * formula of NVIDIA's bandwidthTest and the CUDA programming guide. Measure it with
   * timeCudaCopy for the achievable ceiling.
   */
  peakMemoryBandwidthBytesPerS: number;
  /**
   * Dense bf16/fp16 tensor-core peak, FLOP/s: FLOP per clock per SM × SMs × peak SM clock, with
   * 2048 FLOP/clk/SM for sm_80 (NVIDIA A100 whitepaper: 312 TFLOP/s at 108 SMs, 1410 MHz) and
   * 4096 for sm_90 (H100 whitepaper: 989 TFLOP/s at 132 SMs, 1830 MHz). The mma.sync kernels
   * here cannot reach sm_90's figure, which needs wgmma. Undefined for other architectures.
   */
  peakDenseBf16FlopsPerS?: number;
}

/** Dense bf16 tensor-core FLOP per clock per SM, by compute capability (see CudaDeviceInfo). */
const TENSOR_FLOP_PER_CLOCK_PER_SM: Record<string, number> = { '8.0': 2048, '9.0': 4096 };

/** Whether the GPU backend can run here, and if not, why. */
export interface CudaAvailability {
  available: boolean;
  /** When unavailable: what is missing and how to fix it. */
  reason?: string;
  /** The library loaded, when available. */
  libraryPath?: string;
  /** The driver's CUDA version (e.g. 13000), when a driver was found. */
  driverVersion?: number;
  /** When available: every device, index order. */
  devices?: CudaDeviceInfo[];
}

type RawDevice = Omit<CudaDeviceInfo, 'peakMemoryBandwidthBytesPerS' | 'peakDenseBf16FlopsPerS'>;

interface RawCuda {
  cudaProbe(libraryPaths: string[]): {
    available: boolean;
    reason?: string;
    libraryPath?: string;
    driverVersion: number;
    deviceCount: number;
    devices?: RawDevice[];
  };
  cudaSetDevice(index: number): void;
  cudaFlashForward(spec: object, timing?: object): Promise<number[] | undefined>;
  cudaPagedDecode(spec: object, timing?: object): Promise<number[] | undefined>;
  cudaTimeCopy(bytes: number, timing: object): Promise<number[]>;
  cudaCheckLibrary(path: string): string | null;
}

/** Where the library is looked for, in order. */
export function cudaLibraryCandidates(): string[] {
  return nativeFileCandidates(process.env.ATTNSCOPE_CUDA_LIB, 'cuda', 'build', CUDA_LIBRARY_FILE);
}

let availability: CudaAvailability | undefined;

/**
 * Probes once per process (a loaded library stays loaded): driver, device, library, ABI.
 * Never throws; `reason` names the first missing piece ("no NVIDIA driver…", "no CUDA
 * device…", "no CUDA library built…", an ABI mismatch, or the addon itself failing to load).
 */
export function cudaAvailable(): CudaAvailability {
  if (availability !== undefined) return availability;
  let raw: RawCuda;
  try {
    raw = loadAddon<RawCuda>();
  } catch (e) {
    availability = { available: false, reason: (e as Error).message };
    return availability;
  }
  const probe = raw.cudaProbe(cudaLibraryCandidates());
  const result: CudaAvailability = { available: probe.available };
  if (probe.driverVersion > 0) result.driverVersion = probe.driverVersion;
  if (probe.available) {
    result.libraryPath = probe.libraryPath;
    result.devices = (probe.devices ?? []).map((d) => {
      const perClock = TENSOR_FLOP_PER_CLOCK_PER_SM[d.computeCapability];
      return {
        ...d,
        peakMemoryBandwidthBytesPerS: (2 * d.memoryClockKHz * 1e3 * d.memoryBusWidthBits) / 8,
        ...(perClock ? { peakDenseBf16FlopsPerS: perClock * d.multiprocessorCount * d.smClockKHz * 1e3 } : {}),
      };
    });
  } else {
    result.reason = probe.reason;
  }
  availability = result;
  return availability;
}

function requireCuda(): RawCuda {
  const a = cudaAvailable();
  if (!a.available) throw new Error(`CUDA backend unavailable: ${a.reason}`);
  return loadAddon<RawCuda>();
}

const { headDims: CUDA_HEAD_DIMS, minPageSize, maxPageSize } = KERNEL_LIMITS.cuda;

/**
 * Why the CUDA kernels cannot run a case of this dtype / page-pool dtype / head_dim / page_size,
 * or undefined when they can: they take fp16 or bf16, page pools in the dtype of q, and the
 * head dims and page sizes of core/kernelLimits.json (64 or 128; 8..256). The runner asks
 * before choosing the GPU for a case; the kernel functions reject such arguments with this text
 * as a RangeError.
 */
export function cudaUnsupportedReason(c: { dtype?: string; kvDtype?: string; headDim: number; pageSize?: number }): string | undefined {
  const dtype = c.dtype ?? 'fp32';
  if (dtype !== 'fp16' && dtype !== 'bf16') return `dtype: the CUDA backend runs fp16 and bf16, not ${dtype}`;
  if (c.kvDtype !== undefined && c.kvDtype !== dtype) {
    return `kvDtype: the CUDA backend needs the page pools in the dtype of q (${dtype}), not ${c.kvDtype}`;
  }
  if (!CUDA_HEAD_DIMS.includes(c.headDim)) {
    return `headDim ${c.headDim} has no CUDA kernel (compiled: ${CUDA_HEAD_DIMS.join(', ')})`;
  }
  if (c.pageSize !== undefined && (c.pageSize < minPageSize || c.pageSize > maxPageSize)) {
    return `pageSize ${c.pageSize}: the CUDA decode kernel takes ${minPageSize} to ${maxPageSize} tokens per page`;
  }
  return undefined;
}

function checkSupported(c: { dtype?: string; kvDtype?: string; headDim: number; pageSize?: number }): void {
  const reason = cudaUnsupportedReason(c);
  if (reason !== undefined) throw new RangeError(reason);
}

function cudaFlashSpec(args: FlashForwardArgs): FlashSpec {
  const spec = flashSpec(args);
  checkSupported({ dtype: args.dtype, headDim: spec.headDim });
  if (spec.batch > 65535 || spec.numHeads > 65535) {
    throw new RangeError(`batch (${spec.batch}) and numHeads (${spec.numHeads}) must be <= 65535 (CUDA grid)`);
  }
  return spec;
}

function cudaPagedSpec(args: PagedDecodeArgs): PagedSpec {
  const spec = pagedSpec(args);
  checkSupported({ dtype: args.dtype, kvDtype: args.kvDtype, headDim: spec.headDim, pageSize: spec.pageSize });
  if (spec.kvCacheLayout !== 0) throw new RangeError(`kvCacheLayout: the CUDA backend reads NHD pools only, not '${args.kvCacheLayout}'`);
  if (spec.window > 0) throw new RangeError(`window (${spec.window}) must be 0: the CUDA decode kernel reads the whole context`);
  if (spec.batch > 65535) throw new RangeError(`batch (${spec.batch}) must be <= 65535 (CUDA grid)`);
  return spec;
}

function flashOutputs(spec: FlashSpec) {
  return {
    o: new Float32Array(spec.batch * spec.seqLenQ * spec.numHeads * spec.headDim),
    lse: new Float32Array(spec.batch * spec.numHeads * spec.seqLenQ),
  };
}

function decodeOutputs(spec: PagedSpec) {
  return {
    o: new Float32Array(spec.batch * spec.numHeads * spec.headDim),
    lse: new Float32Array(spec.batch * spec.numHeads),
  };
}

/**
 * FlashAttention-2 forward on the GPU (mma.sync tensor cores, cp.async double buffering; Dao
 * 2023). Same arguments, masks and outputs as flashForward; inputs are uploaded, O comes back
 * as fp32 [batch, seqLenQ, numHeads, headDim], lse fp32 [batch, numHeads, seqLenQ].
 * @throws (rejects) TypeError / RangeError naming the argument; Error when the backend is
 *   unavailable (with the reason) or a CUDA call fails (with its message).
 */
export async function cudaFlashForward(args: FlashForwardArgs): Promise<AttentionOutput> {
  const spec = cudaFlashSpec(args);
  const raw = requireCuda();
  const out = flashOutputs(spec);
  await raw.cudaFlashForward({ ...spec, ...out });
  return out;
}

/**
 * PagedAttention decode on the GPU: split-K partitions merged through lse (FlashDecoding), the
 * heads of a GQA group sharing every K/V load (groups of 1 or 2 heads on CUDA cores, larger ones
 * on tensor cores as the rows of mma.sync). Same arguments as pagedDecode (partitionTokens 0 =
 * chosen from the device's occupancy, in whole waves); O fp32 [batch, numHeads, headDim], lse
 * [batch, numHeads].
 * @throws (rejects) as cudaFlashForward.
 */
export async function cudaPagedDecode(args: PagedDecodeArgs): Promise<AttentionOutput> {
  const spec = cudaPagedSpec(args);
  const raw = requireCuda();
  const out = decodeOutputs(spec);
  await raw.cudaPagedDecode({ ...spec, ...out });
  return out;
}

/**
 * Times cudaFlashForward with CUDA events, device time per launch (inputs stay on the device
 * between launches). TimingOptions as the CPU loop, its times counted in device time.
 */
export async function timeCudaFlashForward(args: FlashForwardArgs, timing?: TimingOptions): Promise<TimingResult> {
  const spec = cudaFlashSpec(args);
  const t = checkTiming(timing);
  const raw = requireCuda();
  const samplesNs = await raw.cudaFlashForward({ ...spec, ...flashOutputs(spec) }, t);
  return { samplesNs: samplesNs ?? [] };
}

/** Times cudaPagedDecode with CUDA events, as timeCudaFlashForward. */
export async function timeCudaPagedDecode(args: PagedDecodeArgs, timing?: TimingOptions): Promise<TimingResult> {
  const spec = cudaPagedSpec(args);
  const t = checkTiming(timing);
  const raw = requireCuda();
  const samplesNs = await raw.cudaPagedDecode({ ...spec, ...decodeOutputs(spec) }, t);
  return { samplesNs: samplesNs ?? [] };
}

/**
 * Times a device-to-device copy of `bytes` (cudaMemcpyAsync): the achievable DRAM bandwidth
 * decode is judged against, 2 · bytes / time (each byte read once and written once).
 */
export async function timeCudaCopy(bytes: number, timing?: TimingOptions): Promise<TimingResult> {
  if (typeof bytes !== 'number') throw new TypeError(`bytes must be a number, got ${typeof bytes}`);
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw new RangeError(`bytes must be a positive integer, got ${bytes}`);
  const t = checkTiming(timing);
  return { samplesNs: await requireCuda().cudaTimeCopy(bytes, t) };
}

/** Selects the device later calls run on (index into cudaAvailable().devices). */
export function cudaSetDevice(index: number): void {
  const devices = cudaAvailable().devices ?? [];
  if (typeof index !== 'number') throw new TypeError(`index must be a number, got ${typeof index}`);
  const raw = requireCuda();
  if (!Number.isInteger(index) || index < 0 || index >= devices.length) {
    throw new RangeError(`index must be in [0, ${devices.length}), got ${index}`);
  }
  raw.cudaSetDevice(index);
}
