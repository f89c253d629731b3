/**
 * Typed entry to the CPU attention kernels of the addon: FlashAttention forward, PagedAttention
 * decode, their fp64 references, the C++ timing loops and the CPU description.
 *
 * Layouts (row-major, DESIGN.md "Kernels"): Q, K, V, O as [batch, seqLen, heads, headDim]
 * ("NHD"); K/V page pools as [numPages, pageSize, numKvHeads, headDim]; block table int32
 * [batch, maxPagesPerSeq]; context lengths int32 [batch]; lse fp32 [batch, numHeads, seqLenQ].
 * fp16 / bf16 tensors are Uint16Arrays holding the bit patterns (see toHalfBits). Outputs are
 * always fp32 (O and lse), computed with fp32 accumulation and an fp32 running max and sum.
 *
 * Every function validates its arguments before anything reaches C++: TypeError for a wrong
 * type, RangeError for a bad size or value, each naming the argument.
 */
import { KERNEL_LIMITS } from '../core/kernelLimits';
import { addonIfLoaded, loadAddon, loadedBuild, type NativeBuild } from './binding';

/** Element type of Q, K, V and the page pools. */
export type AttnDType = 'fp32' | 'fp16' | 'bf16';

/**
 * Element order of the K and V page pools (C++ KvCacheLayout). 'NHD' (default; FlashInfer's name):
 * [numPages, pageSize, numKvHeads, headDim]. 'vnni16' (bf16 pools, pageSize a multiple of 16,
 * headDim a multiple of 32): each page as 16-token pieces [numPages, pageSize / 16, numKvHeads,
 * piece], a K piece [headDim / 2][16 tokens][2] (vLLM's AMX key cache token group), a V piece
 * [8 token pairs][headDim][2]; the AVX512-BF16 decode step reads it with tokens in vector lanes.
 * kvPoolIndex gives an element's position; writeKvCache writes tokens in either.
 */
export type KvCacheLayout = 'NHD' | 'vnni16';

/**
 * SIMD path of the CPU kernels. 'auto' = the one named by the environment variable
 * ATTNSCOPE_SIMD (scalar|avx2|avx512|avx512bf16|amx|simd128|neon) when this CPU supports it, else the
 * fastest here for the kernel and operand dtype (CpuInfo.dispatch). 'avx512bf16' uses
 * vdpbf16ps for bf16 inputs and is the AVX-512 path otherwise; 'amx' runs bf16 flash GEMMs on
 * AMX tiles (head_dim a multiple of 32) and is 'avx512bf16' otherwise. 'amx-model' runs on any
 * CPU: the portable path with the AMX tiling on a scalar model of the tile instructions, for
 * tests (slow; never chosen by 'auto', not listed in CpuInfo.simdPaths). 'simd128' is
 * WebAssembly SIMD128, the WebAssembly build's path (4 fp32 lanes, multiply + add); 'neon'
 * is AArch64 NEON, the linux-arm64 build's path (4 fp32 lanes, fused multiply-add).
 */
export type SimdPath = 'auto' | 'scalar' | 'avx2' | 'avx512' | 'avx512bf16' | 'amx' | 'amx-model' | 'simd128' | 'neon';

/** An input tensor: Float32Array for fp32, Uint16Array of bit patterns for fp16 / bf16. */
export type AttnTensor = Float32Array | Uint16Array;

/** Options shared by the kernels. */
export interface KernelOptions {
  /** Multiplies q·k before the softmax; default 1/sqrt(headDim). */
  softmaxScale?: number;
  /** Worker threads of the kernel's fixed pool; default (0) = hardware concurrency. */
  threads?: number;
  /** SIMD path; default 'auto'. Throws RangeError when this CPU cannot run it. */
  simd?: SimdPath;
}

/**
 * FlashAttention forward arguments. Masks, with p(i) = i + seqLenK − seqLenQ the position of
 * query i among the keys (causal aligned bottom-right, as flash-attn ≥ 2.1 and vLLM):
 * causal: key j visible iff j ≤ p(i); window W > 0: key j visible iff j > p(i) − W (with
 * causal: the last W keys including the query's own position, as HF `sliding_window` and
 * vLLM). A query that sees no key gets O = 0 and lse = −inf.
 */
export interface FlashForwardArgs extends KernelOptions {
  /** [batch, seqLenQ, numHeads, headDim] */
  q: AttnTensor;
  /** [batch, seqLenK, numKvHeads, headDim] */
  k: AttnTensor;
  /** [batch, seqLenK, numKvHeads, headDim] */
  v: AttnTensor;
  /** Default 'fp32'; must match the arrays' type. */
  dtype?: AttnDType;
  batch: number;
  seqLenQ: number;
  seqLenK: number;
  /** H: query heads. */
  numHeads: number;
  /** H_kv: key/value heads; numHeads % numKvHeads === 0 (GQA/MQA, K/V never copied). */
  numKvHeads: number;
  /** D, at most KERNEL_LIMITS.cpu.maxHeadDim (core/kernelLimits.json: 512). */
  headDim: number;
  /** Default false. */
  causal?: boolean;
  /** Sliding window in keys; 0 (default) = none. */
  window?: number;
}

/**
 * PagedAttention decode arguments: one query token per sequence. Token t of sequence b is slot
 * t % pageSize of page blockTable[b][t / pageSize]; only tokens < contextLens[b] are read.
 */
export interface PagedDecodeArgs extends KernelOptions {
  /** [batch, numHeads, headDim] */
  q: AttnTensor;
  /** [numPages, pageSize, numKvHeads, headDim] */
  kPages: AttnTensor;
  /** [numPages, pageSize, numKvHeads, headDim] */
  vPages: AttnTensor;
  /**
   * int32 [batch, maxPagesPerSeq]; entries past a sequence's last page, and with a window those
   * before the page of its first visible token, are never read (vLLM's -1 for a released page is fine there).
   */
  blockTable: Int32Array;
  /** int32 [batch], each in [0, maxPagesPerSeq · pageSize]. */
  contextLens: Int32Array;
  /** dtype of q; default 'fp32'. */
  dtype?: AttnDType;
  /** dtype of the page pools; default = dtype. */
  kvDtype?: AttnDType;
  /** Element order of kPages and vPages (see KvCacheLayout); default 'NHD'. */
  kvCacheLayout?: KvCacheLayout;
  batch: number;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  numPages: number;
  pageSize: number;
  maxPagesPerSeq: number;
  /** Tokens per split-K partition (a multiple of pageSize); default 0 = chosen from the shape. */
  partitionTokens?: number;
  /**
   * Sliding window W in tokens; 0 (default) = the whole context. The query sits at position
   * L − 1 of its context of L (contextLens) and sees keys j > L − 1 − W, flash's mask with one
   * query: tokens [max(0, L − W), L). Only the pages holding them are read (CPU kernels only).
   */
  window?: number;
}

/** Kernel outputs, fp32. */
export interface AttentionOutput {
  /** [batch, seqLenQ, numHeads, headDim] (decode: [batch, numHeads, headDim]) */
  o: Float32Array;
  /** natural-log sum of exp of the scaled scores, [batch, numHeads, seqLenQ] (decode: [batch, numHeads]) */
  lse: Float32Array;
}

/** Reference outputs, fp64, same shapes as AttentionOutput. */
export interface ReferenceOutput {
  o: Float64Array;
  lse: Float64Array;
}

/**
 * Timing loop run in C++: `warmup` untimed runs, then timed runs until at least minReps runs
 * AND minTimeMs elapsed, stopping early at maxReps runs or maxTimeMs (at least one timed run).
 */
export interface TimingOptions {
  /** Default 2. */
  warmup?: number;
  /** Default 30. */
  minReps?: number;
  /** Default 10000. */
  maxReps?: number;
  /** Default 1000 ms. */
  minTimeMs?: number;
  /** Default 10000 ms. */
  maxTimeMs?: number;
}

/** Per-run times in nanoseconds, in run order. */
export interface TimingResult {
  /** Wall time (steady clock). */
  samplesNs: number[];
  /**
   * Process CPU time of the same runs, all threads together (std::clock, 1 us steps on glibc);
   * the first CPU_SAMPLES_MAX runs. On a shared machine, work / (CPU time / threads) is the rate
   * the kernel's threads reached while they ran, which wall time hides. CPU kernels only.
   */
  cpuNs?: number[];
}

/** Runs whose CPU time a TimingResult keeps. */
export const CPU_SAMPLES_MAX = 65536;

async function timed(call: (cpuNs: Float64Array) => Promise<number[]>, maxReps: number): Promise<TimingResult> {
  const cpu = new Float64Array(Math.min(maxReps, CPU_SAMPLES_MAX));
  const samplesNs = await call(cpu);
  return { samplesNs, cpuNs: Array.from(cpu.subarray(0, Math.min(samplesNs.length, cpu.length))) };
}

/** What the CPU and this build can run. */
export interface CpuInfo {
  /** CPU brand string. */
  model: string;
  /** Logical cores (hardware threads): the default thread count. */
  cores: number;
  /** The path 'auto' resolves to now. */
  simd: Exclude<SimdPath, 'auto'>;
  /** Every path this CPU and build can run, best last. */
  simdPaths: Exclude<SimdPath, 'auto'>[];
  /** CPUID feature names present, e.g. avx512f, avx512_bf16, amx_bf16. */
  features: string[];
  /** The path 'auto' takes per (kernel, operand dtype), chosen once per process. */
  dispatch: DispatchChoice[];
  /** How those choices were made: ATTNSCOPE_SIMD, the table of known CPUs, or the calibration's figures. */
  dispatchReason: string;
  /**
   * ATTNSCOPE_SIMD when set (absent when unset or blank): `value` as set; `applied` whether the
   * kernels take the path it names (case-insensitive); `warning`, one sentence naming this CPU's
   * paths, when it is ignored (a name of no path, or a path this CPU lacks).
   */
  simdOverride?: { value: string; applied: boolean; warning?: string };
  /** Which build runs the kernels: the native addon, or the WebAssembly module (one thread). */
  build: NativeBuild;
  /** Why the WebAssembly module runs: ATTNSCOPE_BACKEND, or why the native addon did not load. */
  buildReason?: string;
}

/**
 * Unit that does a kernel's products, whose peak its FLOP rate is divided by: 'amx-bf16'
 * (TDPBF16PS), 'avx512-bf16' (vdpbf16ps), 'fp32-fma' (vector FMA on fp32; bf16 / fp16 widened first), 'scalar' (portable loops).
 */
export type ProductUnit = 'amx-bf16' | 'avx512-bf16' | 'fp32-fma' | 'scalar';

/** What 'auto' runs for one kernel on one operand dtype (flash: Q/K/V; decode: the KV pages). */
export interface DispatchChoice {
  kernel: 'flash_fwd' | 'paged_decode';
  dtype: AttnDType;
  path: Exclude<SimdPath, 'auto'>;
  unit: ProductUnit;
}

interface RawKernels {
  kernelsFlashForward(spec: object): Promise<void>;
  kernelsPagedDecode(spec: object): Promise<void>;
  kernelsReference(spec: object): Promise<void>;
  kernelsReferencePagedDecode(spec: object): Promise<void>;
  kernelsTimeFlashForward(spec: object, timing: object): Promise<number[]>;
  kernelsTimePagedDecode(spec: object, timing: object): Promise<number[]>;
  /** Native addon only: the WebAssembly build has no counterpart. */
  kernelsTimePagedRead?(spec: object, timing: object): Promise<number[]>;
  kernelsCpuInfo(): Omit<CpuInfo, 'build' | 'buildReason'>;
  kernelsChooseBf16(input: Bf16ChoiceInput): Bf16Choice;
  /** Absent in the WebAssembly build (one thread: its calls block the JS thread anyway). */
  kernelsCancel?(): void;
  kernelsAllocatePagePool(bytes: number, zero?: boolean): { buffer: ArrayBuffer; hugePages: boolean; external: boolean };
  kernelsToHalfBits(dtype: number, values: Float32Array): Uint16Array;
  kernelsFromHalfBits(dtype: number, bits: Uint16Array): Float32Array;
  /** Native addon only. */
  kernelsWriteKvCache?(spec: object): void;
}

const raw = (): RawKernels => loadAddon<RawKernels>();

/**
 * Stops the CPU kernel calls in flight (flashForward, pagedDecode, the references and the
 * timing loops) within one task, a query tile of one head or one decode partition: their
 * promises reject with Error('cancelled'). A call started afterwards runs normally. For a
 * SIGINT/SIGTERM handler: a timing loop over a 128k-token prefill can hold the process for
 * hours, and Node does not exit while a thread-pool job runs. Does nothing when the native part
 * is not loaded or is the WebAssembly build.
 */
export function cancelKernels(): void {
  addonIfLoaded<RawKernels>()?.kernelsCancel?.();
}

const DTYPE_CODES: Record<AttnDType, number> = { fp32: 0, fp16: 1, bf16: 2 };
const LAYOUT_CODES: Record<KvCacheLayout, number> = { NHD: 0, vnni16: 1 };
const SIMD_PATHS: readonly SimdPath[] = ['auto', 'scalar', 'avx2', 'avx512', 'avx512bf16', 'amx', 'amx-model', 'simd128', 'neon'];
const MAX_HEAD_DIM = KERNEL_LIMITS.cpu.maxHeadDim;
const MAX_DIM = 2 ** 31 - 1;

function checkObject(name: string, value: unknown): asserts value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) throw new TypeError(`${name} must be an object`);
}

function checkInt(name: string, value: unknown, min: number, max = MAX_DIM): number {
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number, got ${typeof value}`);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer in [${min}, ${max}], got ${value}`);
  }
  return value;
}

function optionalInt(name: string, value: unknown, fallback: number, min: number, max = MAX_DIM): number {
  return value === undefined ? fallback : checkInt(name, value, min, max);
}

function optionalBool(name: string, value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new TypeError(`${name} must be a boolean, got ${typeof value}`);
  return value;
}

function checkDtype(name: string, value: unknown, fallback: AttnDType): AttnDType {
  if (value === undefined) return fallback;
  if (typeof value !== 'string') throw new TypeError(`${name} must be 'fp32', 'fp16' or 'bf16'`);
  if (!(value in DTYPE_CODES)) throw new RangeError(`${name} must be 'fp32', 'fp16' or 'bf16', got '${value}'`);
  return value as AttnDType;
}

/** kvCacheLayout of pools of kvDtype with pages of pageSize tokens and heads of headDim (default 'NHD'). */
function checkLayout(value: unknown, kvDtype: AttnDType, pageSize: number, headDim: number): KvCacheLayout {
  if (value === undefined) return 'NHD';
  if (typeof value !== 'string') throw new TypeError(`kvCacheLayout must be 'NHD' or 'vnni16'`);
  if (!(value in LAYOUT_CODES)) throw new RangeError(`kvCacheLayout must be 'NHD' or 'vnni16', got '${value}'`);
  if (value === 'vnni16' && (kvDtype !== 'bf16' || pageSize % 16 !== 0 || headDim % 32 !== 0)) {
    throw new RangeError(
      `kvCacheLayout 'vnni16' needs bf16 pools, pageSize a multiple of 16 and headDim a multiple of 32 (got ${kvDtype}, pageSize ${pageSize}, headDim ${headDim})`,
    );
  }
  return value as KvCacheLayout;
}

function checkScale(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number') throw new TypeError(`softmaxScale must be a number, got ${typeof value}`);
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`softmaxScale must be a finite number > 0, got ${value}`);
  return value;
}

function checkSimd(value: unknown): SimdPath {
  if (value === undefined) return 'auto';
  if (typeof value !== 'string') throw new TypeError(`simd must be one of ${SIMD_PATHS.join(', ')}`);
  if (!SIMD_PATHS.includes(value as SimdPath)) {
    throw new RangeError(`simd must be one of ${SIMD_PATHS.join(', ')}, got '${value}'`);
  }
  if (value !== 'auto' && value !== 'amx-model') {
    const supported = cpuInfo().simdPaths;
    if (!supported.includes(value as Exclude<SimdPath, 'auto'>)) {
      throw new RangeError(`simd '${value}' is not supported on this CPU; supported: ${supported.join(', ')}`);
    }
  }
  return value as SimdPath;
}

/** Checks a tensor's array type against its dtype and its length against its shape. */
function checkTensor(name: string, value: unknown, dtype: AttnDType, shape: Record<string, number>): void {
  const wanted = dtype === 'fp32' ? Float32Array : Uint16Array;
  if (!(value instanceof wanted)) {
    throw new TypeError(`${name} must be a ${wanted.name} for dtype ${dtype}`);
  }
  checkLength(name, value, shape);
}

function checkLength(name: string, value: ArrayLike<number>, shape: Record<string, number>): void {
  const dims = Object.values(shape);
  const expected = dims.reduce((a, b) => a * b, 1);
  if (value.length !== expected) {
    throw new RangeError(
      `${name} has ${value.length} elements; [${Object.keys(shape).join(', ')}] = [${dims.join(', ')}] needs ${expected}`,
    );
  }
}

function checkHeads(numHeads: number, numKvHeads: number): void {
  if (numHeads % numKvHeads !== 0) {
    throw new RangeError(`numHeads (${numHeads}) must be a multiple of numKvHeads (${numKvHeads})`);
  }
}

/** Validated TimingOptions with defaults (shared with native/cuda.ts). */
export function checkTiming(timing: unknown): Required<TimingOptions> {
  if (timing === undefined) timing = {};
  checkObject('timing', timing);
  const t = {
    warmup: optionalInt('timing.warmup', timing.warmup, 2, 0, 1e6),
    minReps: optionalInt('timing.minReps', timing.minReps, 30, 1, 1e9),
    maxReps: optionalInt('timing.maxReps', timing.maxReps, 10000, 1, 1e9),
    minTimeMs: timing.minTimeMs === undefined ? 1000 : checkMs('timing.minTimeMs', timing.minTimeMs),
    maxTimeMs: timing.maxTimeMs === undefined ? 10000 : checkMs('timing.maxTimeMs', timing.maxTimeMs),
  };
  if (t.maxReps < t.minReps) throw new RangeError(`timing.maxReps (${t.maxReps}) must be >= timing.minReps (${t.minReps})`);
  return t;
}

function checkMs(name: string, value: unknown): number {
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number, got ${typeof value}`);
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a finite number >= 0, got ${value}`);
  return value;
}

export interface FlashSpec {
  q: AttnTensor;
  k: AttnTensor;
  v: AttnTensor;
  dtype: number;
  batch: number;
  seqLenQ: number;
  seqLenK: number;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  softmaxScale: number;
  causal: boolean;
  window: number;
  threads: number;
  simd: SimdPath;
}

/** Validated flash arguments as the addon reads them (shared with native/cuda.ts). */
export function flashSpec(args: unknown): FlashSpec {
  checkObject('args', args);
  const dtype = checkDtype('dtype', args.dtype, 'fp32');
  const batch = checkInt('batch', args.batch, 1);
  const seqLenQ = checkInt('seqLenQ', args.seqLenQ, 1);
  const seqLenK = checkInt('seqLenK', args.seqLenK, 1);
  const numHeads = checkInt('numHeads', args.numHeads, 1);
  const numKvHeads = checkInt('numKvHeads', args.numKvHeads, 1);
  const headDim = checkInt('headDim', args.headDim, 1, MAX_HEAD_DIM);
  checkHeads(numHeads, numKvHeads);
  checkTensor('q', args.q, dtype, { batch, seqLenQ, numHeads, headDim });
  checkTensor('k', args.k, dtype, { batch, seqLenK, numKvHeads, headDim });
  checkTensor('v', args.v, dtype, { batch, seqLenK, numKvHeads, headDim });
  return {
    q: args.q as AttnTensor,
    k: args.k as AttnTensor,
    v: args.v as AttnTensor,
    dtype: DTYPE_CODES[dtype],
    batch,
    seqLenQ,
    seqLenK,
    numHeads,
    numKvHeads,
    headDim,
    softmaxScale: checkScale(args.softmaxScale),
    causal: optionalBool('causal', args.causal),
    window: optionalInt('window', args.window, 0, 0),
    threads: optionalInt('threads', args.threads, 0, 0, 1024),
    simd: checkSimd(args.simd),
  };
}

export interface PagedSpec {
  q: AttnTensor;
  kPages: AttnTensor;
  vPages: AttnTensor;
  blockTable: Int32Array;
  contextLens: Int32Array;
  dtype: number;
  kvDtype: number;
  kvCacheLayout: number;
  batch: number;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  numPages: number;
  pageSize: number;
  maxPagesPerSeq: number;
  softmaxScale: number;
  partitionTokens: number;
  window: number;
  threads: number;
  simd: SimdPath;
}

/** Validated decode arguments as the addon reads them (shared with native/cuda.ts). */
export function pagedSpec(args: unknown): PagedSpec {
  checkObject('args', args);
  const dtype = checkDtype('dtype', args.dtype, 'fp32');
  const kvDtype = checkDtype('kvDtype', args.kvDtype, dtype);
  const batch = checkInt('batch', args.batch, 1);
  const numHeads = checkInt('numHeads', args.numHeads, 1);
  const numKvHeads = checkInt('numKvHeads', args.numKvHeads, 1);
  const headDim = checkInt('headDim', args.headDim, 1, MAX_HEAD_DIM);
  const numPages = checkInt('numPages', args.numPages, 1);
  const pageSize = checkInt('pageSize', args.pageSize, 1);
  const maxPagesPerSeq = checkInt('maxPagesPerSeq', args.maxPagesPerSeq, 1);
  checkHeads(numHeads, numKvHeads);
  const kvCacheLayout = checkLayout(args.kvCacheLayout, kvDtype, pageSize, headDim);
  checkTensor('q', args.q, dtype, { batch, numHeads, headDim });
  checkTensor('kPages', args.kPages, kvDtype, { numPages, pageSize, numKvHeads, headDim });
  checkTensor('vPages', args.vPages, kvDtype, { numPages, pageSize, numKvHeads, headDim });
  const { blockTable, contextLens } = args;
  if (!(blockTable instanceof Int32Array)) throw new TypeError('blockTable must be an Int32Array');
  if (!(contextLens instanceof Int32Array)) throw new TypeError('contextLens must be an Int32Array');
  checkLength('blockTable', blockTable, { batch, maxPagesPerSeq });
  checkLength('contextLens', contextLens, { batch });
  const window = optionalInt('window', args.window, 0, 0);
  const capacity = maxPagesPerSeq * pageSize;
  for (let b = 0; b < batch; b++) {
    const len = contextLens[b]!;
    if (len < 0 || len > capacity) {
      throw new RangeError(
        `contextLens[${b}] = ${len} is outside [0, maxPagesPerSeq · pageSize = ${maxPagesPerSeq} · ${pageSize} = ${capacity}]`,
      );
    }
    const used = Math.ceil(len / pageSize);
    const firstRead = window > 0 ? Math.floor(Math.max(0, len - window) / pageSize) : 0;
    for (let t = firstRead; t < used; t++) {
      const page = blockTable[b * maxPagesPerSeq + t]!;
      if (page < 0 || page >= numPages) {
        throw new RangeError(`blockTable[${b}][${t}] = ${page} is outside the pool [0, numPages = ${numPages})`);
      }
    }
  }
  const partitionTokens = optionalInt('partitionTokens', args.partitionTokens, 0, 0);
  if (partitionTokens % pageSize !== 0) {
    throw new RangeError(`partitionTokens (${partitionTokens}) must be a multiple of pageSize (${pageSize})`);
  }
  return {
    q: args.q as AttnTensor,
    kPages: args.kPages as AttnTensor,
    vPages: args.vPages as AttnTensor,
    blockTable,
    contextLens,
    dtype: DTYPE_CODES[dtype],
    kvDtype: DTYPE_CODES[kvDtype],
    kvCacheLayout: LAYOUT_CODES[kvCacheLayout],
    batch,
    numHeads,
    numKvHeads,
    headDim,
    numPages,
    pageSize,
    maxPagesPerSeq,
    softmaxScale: checkScale(args.softmaxScale),
    partitionTokens,
    window,
    threads: optionalInt('threads', args.threads, 0, 0, 1024),
    simd: checkSimd(args.simd),
  };
}

/** Float32Array (the kernels' outputs) or Float64Array (the fp64 references'). */
type OutputArray = Float32ArrayConstructor | Float64ArrayConstructor;

/** Zeroed outputs of a flash call: O [batch, seqLenQ, numHeads, headDim] and lse [batch, numHeads, seqLenQ]. */
function flashOutputs<A extends OutputArray>(spec: FlashSpec, array: A): { o: InstanceType<A>; lse: InstanceType<A> } {
  return {
    o: new array(spec.batch * spec.seqLenQ * spec.numHeads * spec.headDim) as InstanceType<A>,
    lse: new array(spec.batch * spec.numHeads * spec.seqLenQ) as InstanceType<A>,
  };
}

/** Zeroed outputs of a paged-decode call (one query token a sequence): O [batch, numHeads, headDim] and lse [batch, numHeads]. */
function decodeOutputs<A extends OutputArray>(spec: PagedSpec, array: A): { o: InstanceType<A>; lse: InstanceType<A> } {
  return {
    o: new array(spec.batch * spec.numHeads * spec.headDim) as InstanceType<A>,
    lse: new array(spec.batch * spec.numHeads) as InstanceType<A>,
  };
}

/**
 * FlashAttention forward on the CPU (tiled online softmax, Dao et al. 2022; FlashAttention-2
 * loop order), multi-threaded over (batch, KV head, query tile), off the JS thread.
 * @returns O fp32 [batch, seqLenQ, numHeads, headDim] and lse fp32 [batch, numHeads, seqLenQ].
 * @throws TypeError / RangeError naming the argument; the promise rejects on a kernel error.
 */
export async function flashForward(args: FlashForwardArgs): Promise<AttentionOutput> {
  const spec = flashSpec(args);
  const out = flashOutputs(spec, Float32Array);
  await raw().kernelsFlashForward({ ...spec, ...out });
  return out;
}

/**
 * The fp64 reference of flashForward: materializes S = scale · Q Kᵀ per (batch, head), same
 * masks; `threads` and `simd` are ignored. Used by tests and every benchmark's check.
 */
export async function referenceAttention(args: FlashForwardArgs): Promise<ReferenceOutput> {
  const spec = flashSpec(args);
  const out = flashOutputs(spec, Float64Array);
  await raw().kernelsReference({ ...spec, ...out });
  return out;
}

/**
 * PagedAttention decode on the CPU (vLLM paged KV; long contexts split into partitions merged
 * through their lse, FlashDecoding). Heads of one GQA group share each K/V load.
 * @returns O fp32 [batch, numHeads, headDim] and lse fp32 [batch, numHeads]; a sequence with
 *   contextLens[b] = 0 gets O = 0 and lse = −inf.
 */
export async function pagedDecode(args: PagedDecodeArgs): Promise<AttentionOutput> {
  const spec = pagedSpec(args);
  const out = decodeOutputs(spec, Float32Array);
  await raw().kernelsPagedDecode({ ...spec, ...out });
  return out;
}

/** The fp64 reference of pagedDecode: gathers each sequence's K/V through its block table. */
export async function referencePagedDecode(args: PagedDecodeArgs): Promise<ReferenceOutput> {
  const spec = pagedSpec(args);
  const out = decodeOutputs(spec, Float64Array);
  await raw().kernelsReferencePagedDecode({ ...spec, refO: out.o, refLse: out.lse });
  return out;
}

/** Times flashForward in the C++ loop (see TimingOptions); outputs are discarded. */
export async function timeFlashForward(args: FlashForwardArgs, timing?: TimingOptions): Promise<TimingResult> {
  const spec = flashSpec(args);
  const t = checkTiming(timing);
  const out = flashOutputs(spec, Float32Array);
  return timed((cpuNs) => raw().kernelsTimeFlashForward({ ...spec, ...out, cpuNs }, t), t.maxReps);
}

/** Times pagedDecode in the C++ loop (see TimingOptions); outputs are discarded. */
export async function timePagedDecode(args: PagedDecodeArgs, timing?: TimingOptions): Promise<TimingResult> {
  const spec = pagedSpec(args);
  const t = checkTiming(timing);
  const out = decodeOutputs(spec, Float32Array);
  return timed((cpuNs) => raw().kernelsTimePagedDecode({ ...spec, ...out, cpuNs }, t), t.maxReps);
}

/**
 * Times paged decode's memory traffic alone (C++ time_paged_read): every task of the kernel's
 * grid reads the K and V rows of its pages in block-table order with the read-bandwidth peak's
 * loop, over the same threads, and computes nothing. Its rate is what the page size and the
 * block-table order allow the kernel, beside the peak's one sequential pass; bytes read per run:
 * 2 (K and V) x sum(context_lens) x num_kv_heads x head_dim x the KV dtype's bytes.
 * @throws the errors of pagedDecode; Error in the WebAssembly build, which has no such loop.
 */
export async function timePagedRead(args: PagedDecodeArgs, timing?: TimingOptions): Promise<TimingResult> {
  const spec = pagedSpec(args);
  const t = checkTiming(timing);
  const addon = raw();
  if (!addon.kernelsTimePagedRead) throw new Error('timePagedRead needs the native addon: the WebAssembly build has no page-read loop');
  const out = decodeOutputs(spec, Float32Array); // checked like decode's, never written
  return timed((cpuNs) => addon.kernelsTimePagedRead!({ ...spec, ...out, cpuNs }, t), t.maxReps);
}

/** K or V page-pool memory from allocateKvPages. */
export interface KvPages<A extends AttnTensor = AttnTensor> {
  /** [num_pages, page_size, num_kv_heads, head_dim] of the dtype, zero-filled. */
  data: A;
  /** Whether Linux took the transparent-huge-page advice for it. */
  hugePages: boolean;
  /** Native memory exposed as an external ArrayBuffer (false: a plain one, where the runtime forbids those). */
  external: boolean;
}

/**
 * Memory for a K or V page pool of `elements` values of `dtype`, allocated natively: 2 MiB
 * aligned, with transparent huge pages asked for (madvise) where Linux allows. Decode reads
 * pages in block-table order from anywhere in the pool, and with 4 KiB pages every page step
 * missed the TLB: decode B=16 at 32k context ran 2-3x faster from huge pages (kernels.h
 * allocate_page_pool). Zero-filled; `zero` false leaves it unwritten (undefined values, no page
 * faulted in: the native build only) for a caller that writes every value itself. Freed when
 * `data` is garbage-collected.
 * @throws TypeError for a dtype outside AttnDType; RangeError unless elements is an integer >= 1.
 */
export function allocateKvPages(dtype: 'bf16' | 'fp16', elements: number, zero?: boolean): KvPages<Uint16Array>;
export function allocateKvPages(dtype: 'fp32', elements: number, zero?: boolean): KvPages<Float32Array>;
export function allocateKvPages(dtype: AttnDType, elements: number, zero?: boolean): KvPages;
export function allocateKvPages(dtype: AttnDType, elements: number, zero = true): KvPages {
  if (dtype !== 'fp32' && dtype !== 'fp16' && dtype !== 'bf16') throw new TypeError(`dtype must be fp32, fp16 or bf16, got ${String(dtype)}`);
  if (typeof elements !== 'number') throw new TypeError(`elements must be a number, got ${typeof elements}`);
  if (!Number.isSafeInteger(elements) || elements < 1) throw new RangeError(`elements must be an integer >= 1, got ${elements}`);
  const bytesPer = dtype === 'fp32' ? 4 : 2;
  const { buffer, hugePages, external } = raw().kernelsAllocatePagePool(elements * bytesPer, zero);
  const data = dtype === 'fp32' ? new Float32Array(buffer, 0, elements) : new Uint16Array(buffer, 0, elements);
  return { data, hugePages, external };
}

let cpuInfoCache: CpuInfo | undefined;
let cpuInfoEnv: string | undefined;  // ATTNSCOPE_SIMD when cpuInfoCache was read

/**
 * This CPU: model, logical cores, SIMD path in use and all runnable paths, CPUID features, and
 * the build that runs the kernels (native addon or WebAssembly, native/binding.ts).
 */
export function cpuInfo(): CpuInfo {
  if (cpuInfoCache === undefined || process.env.ATTNSCOPE_SIMD !== cpuInfoEnv) {
    const { build, fallbackReason } = loadedBuild();
    const buildReason = build === 'native' ? undefined : fallbackReason ?? 'ATTNSCOPE_BACKEND=wasm';
    cpuInfoCache = { ...raw().kernelsCpuInfo(), build, ...(buildReason ? { buildReason } : {}) };
    cpuInfoEnv = process.env.ATTNSCOPE_SIMD;
  }
  return cpuInfoCache;
}

/**
 * What 'auto' runs for `kernel` on `dtype` operands (flash: Q/K/V; decode: the KV pages): the
 * SIMD path and the unit whose peak the case's rate divides by (cpuInfo().dispatch).
 */
export function dispatchFor(kernel: DispatchChoice['kernel'], dtype: AttnDType): DispatchChoice {
  const choice = cpuInfo().dispatch.find((c) => c.kernel === kernel && c.dtype === dtype);
  if (!choice) throw new RangeError(`no dispatch entry for ${kernel} on ${dtype}`);
  return choice;
}

/** What the bf16 dispatch decides from: the CPU's CPUID vendor and display family, and one-thread FLOP/s of alternated calibration rounds. */
export interface Bf16ChoiceInput {
  /** CPUID vendor string, e.g. 'AuthenticAMD', 'GenuineIntel'. */
  vendor: string;
  /** x86 display family (AMD Zen 4: 25, Zen 5: 26). */
  family: number;
  /** vdpbf16ps FLOP/s of each calibration round on one thread. */
  dotRounds: number[];
  /** fp32 FMA FLOP/s of each round, taken in alternation with dotRounds. */
  fmaRounds: number[];
}

/** The bf16 dispatch's decision: the path, how it was made, and the best round of each loop (FLOP/s; 0 unless measured). */
export interface Bf16Choice {
  path: 'avx512bf16' | 'avx512';
  how: 'table' | 'measured' | 'none';
  dotFlopsPerSec: number;
  fmaFlopsPerSec: number;
}

/**
 * The rule by which 'auto' picks the bf16 path on an AVX512-BF16 CPU, on given figures (nothing is
 * measured; kernels.h choose_bf16_path): 'table' for a CPU whose answer is known (AMD family 25
 * and 26: vdpbf16ps, whatever the rounds say); else 'measured': vdpbf16ps where the best of
 * `dotRounds` is at least 1.2x the best of `fmaRounds`; 'none' (the FMA path) when either has no
 * positive round. The process's own choice is cpuInfo().dispatchReason.
 * @throws TypeError when a field has the wrong type.
 */
export function chooseBf16Path(input: Bf16ChoiceInput): Bf16Choice {
  const rounds = (name: 'dotRounds' | 'fmaRounds'): number[] => {
    const v = input[name];
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'number')) throw new TypeError(`${name} must be an array of numbers`);
    return v;
  };
  if (typeof input.vendor !== 'string') throw new TypeError('vendor must be a string');
  if (!Number.isInteger(input.family)) throw new TypeError('family must be an integer');
  return raw().kernelsChooseBf16({ vendor: input.vendor, family: input.family, dotRounds: rounds('dotRounds'), fmaRounds: rounds('fmaRounds') });
}

function halfDtype(dtype: unknown): number {
  if (dtype !== 'fp16' && dtype !== 'bf16') {
    if (typeof dtype !== 'string') throw new TypeError(`dtype must be 'fp16' or 'bf16'`);
    throw new RangeError(`dtype must be 'fp16' or 'bf16', got '${dtype}'`);
  }
  return DTYPE_CODES[dtype];
}

/** fp32 values -> fp16 or bf16 bit patterns (round to nearest even; overflow -> ±inf). */
export function toHalfBits(dtype: 'fp16' | 'bf16', values: Float32Array): Uint16Array {
  const code = halfDtype(dtype);
  if (!(values instanceof Float32Array)) throw new TypeError('values must be a Float32Array');
  return raw().kernelsToHalfBits(code, values);
}

/** fp16 or bf16 bit patterns -> fp32 values (exact). */
export function fromHalfBits(dtype: 'fp16' | 'bf16', bits: Uint16Array): Float32Array {
  const code = halfDtype(dtype);
  if (!(bits instanceof Uint16Array)) throw new TypeError('bits must be a Uint16Array');
  return raw().kernelsFromHalfBits(code, bits);
}

/**
 * Position of dim x of KV head hk of slot `slot` of page `page` in a K (isV false) or V pool of
 * `layout` (C++ kv_pool_index). NHD: ((page · pageSize + slot) · numKvHeads + hk) · headDim + x;
 * vnni16: the piece of slots [16 ⌊slot / 16⌋, +16) starts where NHD's row of its first slot
 * starts, KV head hk's block 16 · headDim after it, then K: (⌊x / 2⌋ · 16 + slot % 16) · 2 + x %
 * 2, V: (⌊(slot % 16) / 2⌋ · headDim + x) · 2 + slot % 2.
 */
export function kvPoolIndex(
  layout: KvCacheLayout, isV: boolean, pageSize: number, numKvHeads: number, headDim: number,
  page: number, slot: number, hk: number, x: number,
): number {
  const row = page * pageSize + slot;
  if (layout === 'NHD') return (row * numKvHeads + hk) * headDim + x;
  const j = slot % 16;
  const piece = (row - j) * numKvHeads * headDim + hk * 16 * headDim;
  return piece + (isV ? (Math.floor(j / 2) * headDim + x) * 2 + (j % 2) : (Math.floor(x / 2) * 16 + j) * 2 + (x % 2));
}

/** writeKvCache's arguments: vLLM's reshape_and_cache (csrc/cache_kernels.cu; its CPU AMX path packs the cache the same way). */
export interface WriteKvCacheArgs {
  /** [numTokens, numKvHeads, headDim] */
  k: AttnTensor;
  /** [numTokens, numKvHeads, headDim] */
  v: AttnTensor;
  /** int32 [numTokens]: token i goes to slot slotMapping[i] % pageSize of page ⌊slotMapping[i] / pageSize⌋; negative = skipped (vLLM's padding). */
  slotMapping: Int32Array;
  /** [numPages, pageSize, numKvHeads, headDim] elements in kvCacheLayout, written in place. */
  kPages: AttnTensor;
  vPages: AttnTensor;
  /** dtype of k, v and the pools; default 'fp32'. */
  dtype?: AttnDType;
  /** default 'NHD' */
  kvCacheLayout?: KvCacheLayout;
  numKvHeads: number;
  headDim: number;
  numPages: number;
  pageSize: number;
}

/**
 * Writes token K and V rows into their slots of the page pools in kvCacheLayout (reshape_and_cache).
 * @throws TypeError / RangeError naming the argument (a slot past numPages · pageSize included,
 *   before anything is written); Error in the WebAssembly build, which has no writer.
 */
export function writeKvCache(args: WriteKvCacheArgs): void {
  checkObject('args', args);
  const dtype = checkDtype('dtype', args.dtype, 'fp32');
  const numKvHeads = checkInt('numKvHeads', args.numKvHeads, 1);
  const headDim = checkInt('headDim', args.headDim, 1, MAX_HEAD_DIM);
  const numPages = checkInt('numPages', args.numPages, 1);
  const pageSize = checkInt('pageSize', args.pageSize, 1);
  const kvCacheLayout = checkLayout(args.kvCacheLayout, dtype, pageSize, headDim);
  const { slotMapping } = args;
  if (!(slotMapping instanceof Int32Array)) throw new TypeError('slotMapping must be an Int32Array');
  const numTokens = slotMapping.length;
  checkTensor('k', args.k, dtype, { numTokens, numKvHeads, headDim });
  checkTensor('v', args.v, dtype, { numTokens, numKvHeads, headDim });
  checkTensor('kPages', args.kPages, dtype, { numPages, pageSize, numKvHeads, headDim });
  checkTensor('vPages', args.vPages, dtype, { numPages, pageSize, numKvHeads, headDim });
  const slots = numPages * pageSize;
  for (let i = 0; i < numTokens; i++) {
    if (slotMapping[i]! >= slots) throw new RangeError(`slotMapping[${i}] = ${slotMapping[i]} is outside the pool [0, numPages · pageSize = ${slots})`);
  }
  const addon = raw();
  if (!addon.kernelsWriteKvCache) throw new Error('writeKvCache needs the native addon: the WebAssembly build has no writer');
  addon.kernelsWriteKvCache({ k: args.k, v: args.v, slotMapping, kPages: args.kPages, vPages: args.vPages,
    dtype: DTYPE_CODES[dtype], kvCacheLayout: LAYOUT_CODES[kvCacheLayout], numKvHeads, headDim, numPages, pageSize });
}
