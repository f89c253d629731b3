/**
 * The WebAssembly build of the native part, with the same exports as the .node addon
 * (src/napi/: kernels*, PageAllocator, allocStatusNames, ServingSimulator, cpuFeatures,
 * measurePeak, cuda*), so native/kernels.ts, allocator.ts, simulator.ts and peaks.ts run on it
 * unchanged. scripts/build.mjs bundles this file to native/wasm/build/attnscope_wasm.js beside
 * the module em++ built from the same portable C++ (attnscope_core.js + .wasm; native/wasm/abi.cc
 * is its C ABI); native/binding.ts loads that bundle when the native addon cannot load or
 * ATTNSCOPE_BACKEND=wasm.
 *
 * Differences from the addon, all from WebAssembly itself:
 * - One thread (built without pthreads): `threads` is ignored, cores = 1, and the promises of the
 *   kernels and peaks settle after running on the calling thread.
 * - Typed arrays are copied into the module's heap and results copied out (the addon reads and
 *   writes them in place); an attached KV pool is mirrored around every allocator call.
 * - No CUDA: cudaProbe says so, the CUDA entry points reject.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { SIM_COEFFICIENTS } from '../simulator';

/** The em++ module's exports this adapter uses (abi.cc; heap views from Emscripten). */
interface Core {
  HEAPU8: Uint8Array;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  UTF8ToString(ptr: number): string;
  stringToUTF8(s: string, ptr: number, max: number): void;
  lengthBytesUTF8(s: string): number;
  [fn: `_attnscope_${string}`]: (...args: number[]) => number;
}

type CoreFactory = (options: { wasmBinary: Uint8Array }) => Core;

/**
 * The module, instantiated synchronously (built with WASM_ASYNC_COMPILATION=0), its functions
 * compiled by V8's optimizing tier (TurboFan) from their first call: V8 first runs WebAssembly
 * through Liftoff, its baseline compiler, and moves a function up only after it has run for a
 * while, in a background compile. Paged decode ran 3.5x slower on Liftoff (bf16, context 4k: 21
 * against 6 ms CPU a call), and a benchmark's 20-60 ms calls stayed on it for their first 10-15
 * calls, longer on a loaded machine, so the timing loop measured mostly baseline code. The flag
 * is process-wide; the processes that load this module are ours (the runner, its worker, tests):
 * the extension host runs the runner as a child process.
 */
function instantiate(): Core {
  setFlagsFromString('--no-liftoff');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const factory = require(join(__dirname, 'attnscope_core.js')) as CoreFactory;
  // Passing the binary keeps Emscripten 3.1.6 from fetch()ing it by path under Node >= 18.
  return factory({ wasmBinary: readFileSync(join(__dirname, 'attnscope_core.wasm')) });
}

const core = instantiate();
const fn = (name: string) => core[`_attnscope_${name}`]!;

/** A typed array's bytes. */
function bytesOf(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

/** Heap blocks of one call, freed together. */
class Scratch {
  private readonly blocks: number[] = [];

  /** An uninitialised block of `bytes` bytes. @throws RangeError when the heap is full. */
  alloc(bytes: number): number {
    const p = core._malloc(Math.max(bytes, 1)) >>> 0;
    if (p === 0) throw new RangeError(`out of WebAssembly memory for ${bytes} bytes (the module holds at most 4 GiB)`);
    this.blocks.push(p);
    return p;
  }

  /** A copy of `a` on the heap. */
  put(a: ArrayBufferView): number {
    const p = this.alloc(a.byteLength);
    core.HEAPU8.set(bytesOf(a), p);
    return p;
  }

  /** A NUL-terminated UTF-8 copy of `s` on the heap. */
  str(s: string): number {
    const n = core.lengthBytesUTF8(s) + 1;
    const p = this.alloc(n);
    core.stringToUTF8(s, p, n);
    return p;
  }

  free(): void {
    for (const p of this.blocks) core._free(p);
    this.blocks.length = 0;
  }
}

/** Copies heap bytes at `ptr` into `target`. */
function copyOut(ptr: number, target: ArrayBufferView): void {
  bytesOf(target).set(core.HEAPU8.subarray(ptr, ptr + target.byteLength));
}

function withScratch<T>(body: (s: Scratch) => T): T {
  const s = new Scratch();
  try {
    return body(s);
  } finally {
    s.free();
  }
}

function json<T>(ptr: number): T {
  return JSON.parse(core.UTF8ToString(ptr)) as T;
}

/** The heap's last array of doubles (abi.cc attnscope_doubles), copied. */
function doubles(): Float64Array {
  const p = fn('doubles')() >>> 0;
  return new Float64Array(core.HEAPU8.slice(p, p + fn('doubles_size')() * 8).buffer);
}

/**
 * The last timing call's samples (ns), with each run's CPU time written into the spec's
 * optional `cpuNs` Float64Array (as many as fit), as the addon does.
 */
function timedSamples(spec: Spec): number[] {
  const samples = Array.from(doubles());
  const cpuNs = spec.cpuNs;
  if (cpuNs instanceof Float64Array) {
    const p = fn('cpu_samples')() >>> 0;
    const n = Math.min(samples.length, cpuNs.length);
    cpuNs.set(new Float64Array(core.HEAPU8.slice(p, p + n * 8).buffer));
  }
  return samples;
}

/** The heap's last int32 array (abi.cc attnscope_ints), copied. */
function ints(): Int32Array {
  const p = fn('ints')() >>> 0;
  return new Int32Array(core.HEAPU8.slice(p, p + fn('ints_size')() * 4).buffer);
}

let simdEnv: string | undefined;

/** Mirrors ATTNSCOPE_SIMD into the module's environment (the dispatch reads it with getenv). */
function syncEnv(): void {
  const value = process.env.ATTNSCOPE_SIMD;
  if (value === simdEnv) return;
  withScratch((s) => fn('setenv')(s.str('ATTNSCOPE_SIMD'), value === undefined ? 0 : s.str(value)));
  simdEnv = value;
}

// ---- kernels (napi/kernels.cc) ----

type Spec = Record<string, unknown> & { [k: string]: number | boolean | string | ArrayBufferView };

function simdCode(s: Scratch, name: unknown): number {
  const code = fn('simd_code')(s.str(String(name)));
  if (code < 0) throw new RangeError('simd names no SIMD path');
  return code;
}

/** Runs a kernel entry point; a Status other than kOk becomes the error the addon rejects with. */
function settle(status: number): void {
  if (status === 0) return;
  const message = core.UTF8ToString(fn('last_error')() >>> 0);
  throw status === 1 ? new RangeError(message) : new Error(message);
}

function timingArgs(t: Spec): number[] {
  return [t.warmup, t.minReps, t.maxReps, t.minTimeMs, t.maxTimeMs] as number[];
}

/** flash forward / time / reference: inputs on the heap, outputs copied back. */
function flashCall(spec: Spec, kind: 'run' | 'time' | 'reference', timing?: Spec): number[] | undefined {
  syncEnv();
  return withScratch((s) => {
    const o = spec.o as Float32Array | Float64Array;
    const lse = spec.lse as Float32Array | Float64Array;
    const po = s.alloc(o.byteLength), plse = s.alloc(lse.byteLength);
    const common = [spec.dtype, s.put(spec.q as ArrayBufferView), s.put(spec.k as ArrayBufferView), s.put(spec.v as ArrayBufferView),
      po, plse, spec.batch, spec.seqLenQ, spec.seqLenK, spec.numHeads, spec.numKvHeads, spec.headDim, spec.softmaxScale,
      spec.causal ? 1 : 0, spec.window] as number[];
    if (kind === 'reference') settle(fn('reference')(...common));
    else if (kind === 'run') settle(fn('flash_forward')(...common, spec.threads as number, simdCode(s, spec.simd)));
    else settle(fn('time_flash_forward')(...common, spec.threads as number, simdCode(s, spec.simd), ...timingArgs(timing!)));
    if (kind === 'time') return timedSamples(spec);
    copyOut(po, o);
    copyOut(plse, lse);
    return undefined;
  });
}

/** paged decode / time / reference (whose fp64 outputs are refO, refLse). */
function pagedCall(spec: Spec, kind: 'run' | 'time' | 'reference', timing?: Spec): number[] | undefined {
  // The wasm ABI passes no layout: its kernels read NHD pools only.
  if (spec.kvCacheLayout !== 0) throw new RangeError('kvCacheLayout: the WebAssembly build reads NHD pools only');
  syncEnv();
  return withScratch((s) => {
    const o = (kind === 'reference' ? spec.refO : spec.o) as Float32Array | Float64Array;
    const lse = (kind === 'reference' ? spec.refLse : spec.lse) as Float32Array | Float64Array;
    const po = s.alloc(o.byteLength), plse = s.alloc(lse.byteLength);
    const inputs = [spec.dtype, spec.kvDtype, s.put(spec.q as ArrayBufferView), s.put(spec.kPages as ArrayBufferView),
      s.put(spec.vPages as ArrayBufferView), s.put(spec.blockTable as ArrayBufferView), s.put(spec.contextLens as ArrayBufferView),
      po, plse] as number[];
    const shape = [spec.batch, spec.numHeads, spec.numKvHeads, spec.headDim, spec.numPages, spec.pageSize,
      spec.maxPagesPerSeq, spec.softmaxScale, spec.window] as number[];
    const run = [spec.partitionTokens as number, spec.threads as number, simdCode(s, spec.simd)];
    if (kind === 'reference') settle(fn('reference_paged_decode')(...inputs, ...shape));
    else if (kind === 'run') settle(fn('paged_decode')(...inputs, ...shape, ...run));
    else settle(fn('time_paged_decode')(...inputs, ...shape, ...run, ...timingArgs(timing!)));
    if (kind === 'time') return timedSamples(spec);
    copyOut(po, o);
    copyOut(plse, lse);
    return undefined;
  });
}

/** A promise of `body()`'s value, or its rejection (the addon's kernels never throw synchronously). */
function promised<T>(body: () => T): Promise<T> {
  try {
    return Promise.resolve(body());
  } catch (e) {
    return Promise.reject(e);
  }
}

export const abiVersion = 1;

/** Which build this is (CpuInfo.build in native/kernels.ts). */
export const build = 'wasm';

export function kernelsFlashForward(spec: Spec): Promise<void> {
  return promised(() => void flashCall(spec, 'run'));
}

export function kernelsReference(spec: Spec): Promise<void> {
  return promised(() => void flashCall(spec, 'reference'));
}

export function kernelsTimeFlashForward(spec: Spec, timing: Spec): Promise<number[]> {
  return promised(() => flashCall(spec, 'time', timing)!);
}

export function kernelsPagedDecode(spec: Spec): Promise<void> {
  return promised(() => void pagedCall(spec, 'run'));
}

export function kernelsReferencePagedDecode(spec: Spec): Promise<void> {
  return promised(() => void pagedCall(spec, 'reference'));
}

export function kernelsTimePagedDecode(spec: Spec, timing: Spec): Promise<number[]> {
  return promised(() => pagedCall(spec, 'time', timing)!);
}

export function kernelsCpuInfo(): object {
  syncEnv();
  const info = json<Record<string, unknown>>(fn('cpu_info')());
  if (info.simdOverride === null) delete info.simdOverride;  // as the addon: absent when unset
  return info;
}

/** The bf16 dispatch's rule on given figures (kernels.h choose_bf16_path, no measurement), as the addon's: { path, how, dotFlopsPerSec, fmaFlopsPerSec } (FLOP/s). Types are checked by native/kernels.ts chooseBf16Path. */
export function kernelsChooseBf16(input: { vendor: string; family: number; dotRounds: number[]; fmaRounds: number[] }): object {
  return withScratch((s) =>
    json<object>(fn('choose_bf16')(s.str(input.vendor), input.family, s.put(Float64Array.from(input.dotRounds)), input.dotRounds.length,
      s.put(Float64Array.from(input.fmaRounds)), input.fmaRounds.length)));
}

/** A page pool's memory: a plain ArrayBuffer (no huge pages: the module's heap is its own), zero-filled whatever `_zero` asks. */
export function kernelsAllocatePagePool(bytes: number, _zero?: boolean): { buffer: ArrayBuffer; hugePages: boolean; external: boolean } {
  return { buffer: new ArrayBuffer(bytes), hugePages: false, external: false };
}

export function kernelsToHalfBits(dtype: number, values: Float32Array): Uint16Array {
  const out = new Uint16Array(values.length);
  withScratch((s) => {
    const dst = s.alloc(out.byteLength);
    fn('to_half_bits')(dtype, s.put(values), dst, values.length);
    copyOut(dst, out);
  });
  return out;
}

export function kernelsFromHalfBits(dtype: number, bits: Uint16Array): Float32Array {
  const out = new Float32Array(bits.length);
  withScratch((s) => {
    const dst = s.alloc(out.byteLength);
    fn('from_half_bits')(dtype, s.put(bits), dst, bits.length);
    copyOut(dst, out);
  });
  return out;
}

// ---- peaks (napi/peaks.cc) ----

const PEAK_KINDS = ['fp32_fma', 'avx512_bf16', 'amx_bf16', 'read_bandwidth', 'core_clock'];

export function cpuFeatures(): object {
  return json(fn('cpu_features')());
}

export function measurePeak(kind: string, threads: number, durationMs: number, bufferBytes: number): Promise<object> {
  return promised(() => {
    const code = PEAK_KINDS.indexOf(kind);
    if (code < 0) throw new RangeError(`kind must be ${PEAK_KINDS.join(', ')}, got ${kind}`);
    return json<object>(fn('measure_peak')(code, threads, durationMs, bufferBytes));
  });
}

// ---- page allocator (napi/allocator.cc) ----

const freed = new FinalizationRegistry<() => void>((release) => release());

export const allocStatusNames: string[] = [];
for (let s = 0; ; s++) {
  allocStatusNames.push(core.UTF8ToString(fn('alloc_status_name')(s) >>> 0));
  if (allocStatusNames[s] === 'invalid_argument') break;
}

/** A KV pool attached to an allocator: its JS arrays and their heap mirrors. */
interface MirroredPool {
  k: ArrayBufferView;
  v: ArrayBufferView;
  pk: number;
  pv: number;
}

export class PageAllocator {
  private readonly h: number;
  private readonly numPages: number;
  private pool: MirroredPool | undefined;
  private readonly poolScratch = new Scratch();

  constructor(numPages: number, pageSize: number, watermarkPages: number, slidingWindow: number, enablePrefixCaching: boolean) {
    this.h = fn('alloc_new')(numPages, pageSize, watermarkPages, slidingWindow, enablePrefixCaching ? 1 : 0) >>> 0;
    if (this.h === 0) throw new RangeError('PageAllocator: invalid configuration');
    this.numPages = numPages;
    const { h, poolScratch } = this;
    freed.register(this, () => {
      fn('alloc_delete')(h);
      poolScratch.free();
    });
  }

  /** Runs a call that may copy pages (copy-on-write) with the attached pool mirrored around it. */
  private mutate<T>(body: () => T): T {
    const pool = this.pool;
    if (pool) {
      core.HEAPU8.set(bytesOf(pool.k), pool.pk);
      core.HEAPU8.set(bytesOf(pool.v), pool.pv);
    }
    const result = body();
    if (pool) {
      copyOut(pool.pk, pool.k);
      copyOut(pool.pv, pool.v);
    }
    return result;
  }

  private static tokens(s: Scratch, tokens: Int32Array | null, n: number): number {
    if (tokens === null) return 0;
    if (tokens.length < n) throw new RangeError('tokens holds fewer token ids than requested');
    return s.put(tokens);
  }

  allocate(seqId: number, numTokens: number, maxNewTokens: number, tokens: Int32Array | null): [number, number, number] {
    return withScratch((s) => {
      const out = s.alloc(16);
      const status = this.mutate(() => fn('alloc_allocate')(this.h, seqId, PageAllocator.tokens(s, tokens, numTokens), numTokens, maxNewTokens, out));
      const r = new Float64Array(core.HEAPU8.slice(out, out + 16).buffer);
      return [status, r[0]!, r[1]!];
    });
  }

  append(seqId: number, n: number, tokens: Int32Array | null): number {
    return withScratch((s) => this.mutate(() => fn('alloc_append')(this.h, seqId, PageAllocator.tokens(s, tokens, n), n)));
  }

  fork(parentId: number, childId: number): number {
    return this.mutate(() => fn('alloc_fork')(this.h, parentId, childId));
  }

  free(seqId: number): number {
    return this.mutate(() => fn('alloc_free')(this.h, seqId));
  }

  blockTable(seqId: number): Int32Array | null {
    return fn('alloc_block_table')(this.h, seqId) ? ints() : null;
  }

  numTokens(seqId: number): number {
    return fn('alloc_num_tokens')(this.h, seqId);
  }

  stats(): object {
    return json(fn('alloc_stats')(this.h));
  }

  pages(): object {
    const n = this.numPages;
    const refCounts = new Int32Array(n), states = new Uint8Array(n), filled = new Int32Array(n);
    withScratch((s) => {
      const pr = s.alloc(4 * n), ps = s.alloc(n), pf = s.alloc(4 * n);
      fn('alloc_pages')(this.h, pr, ps, pf);
      copyOut(pr, refCounts);
      copyOut(ps, states);
      copyOut(pf, filled);
    });
    fn('alloc_page_list')(this.h, 0);
    const freeStack = ints();
    fn('alloc_page_list')(this.h, 1);
    return { refCounts, states, filled, freeStack, cachedQueue: ints() };
  }

  sequenceIds(): number[] {
    fn('alloc_sequence_ids')(this.h);
    return Array.from(doubles());
  }

  attachKvPool(k: ArrayBufferView, v: ArrayBufferView, slotBytes: number): void {
    this.poolScratch.free();
    this.pool = { k, v, pk: this.poolScratch.put(k), pv: this.poolScratch.put(v) };
    fn('alloc_attach_kv_pool')(this.h, this.pool.pk, this.pool.pv, slotBytes);
  }
}

// ---- serving simulator (napi/simulator.cc) ----

/** SimConfig fields in abi.cc attnscope_sim_new's order. */
const SIM_CONFIG_FIELDS = ['layout', 'numPages', 'pageSize', 'watermarkPages', 'slidingWindow', 'enablePrefixCaching',
  'maxNumSeqs', 'maxNumBatchedTokens', 'maxModelLen', 'perStepS', 'weightsS', 'perKvTokenS', 'perTokenS', 'perPairS',
  'maxSamples', 'coast', 'privateTails', 'expertWeightsS', 'numExperts', 'numExpertsPerTok',
  'stepSlidingWindow', 'perSlidingKvTokenS', 'perSlidingPairS', 'stepAttentionChunkSize', 'fullGroups', 'slidingGroups', 'stateBlocks', 'attentionChunkSize', 'perDecodePairS', 'perLogitsS',
  'perDecodeTokenS', 'perPrefillContextTokenS', 'perRequestStateS', 'perPrefillContextKvS', 'decodeWeightsS', 'prefillWeightsS',
  'allReduceS', 'perTokenAllReduceS', 'perTokenOneShotAllReduceS', 'oneShotAllReduceTokens', 'perTokenMultimemAllReduceS', 'multimemAllReduceMinTokens', 'multimemAllReduceMaxTokens', 'perTokenRingAllReduceS', 'ringAllReduceMinTokens', 'ringAllReduceS'] as const;
/** Optional fields, 0 when absent (a dense model; no sliding-window or chunked local-attention layers; no hybrid, chunked or Mamba pool; no recurrent-state layers; tp 1). */
const SIM_CONFIG_ZERO_DEFAULT = new Set<string>(['expertWeightsS', 'numExperts', 'numExpertsPerTok', 'stepSlidingWindow', 'perSlidingKvTokenS', 'perSlidingPairS', 'stepAttentionChunkSize', 'slidingGroups', 'stateBlocks', 'attentionChunkSize', 'perLogitsS', 'perPrefillContextTokenS', 'perRequestStateS', 'perPrefillContextKvS', 'decodeWeightsS', 'prefillWeightsS',
  'allReduceS', 'perTokenAllReduceS', 'perTokenOneShotAllReduceS', 'oneShotAllReduceTokens', 'perTokenMultimemAllReduceS', 'multimemAllReduceMinTokens', 'multimemAllReduceMaxTokens', 'perTokenRingAllReduceS', 'ringAllReduceMinTokens']);

export class ServingSimulator {
  private h: number;
  /** Requests in the simulator (a dispatched one's: those added). */
  private n: number;
  /** A dispatched simulator's source columns (the addon's: native/simulator.ts constructor). */
  private readonly source: { arrivalS: Float64Array; promptLen: Int32Array; outputLen: Int32Array; segmentStart: Int32Array; segmentStream: Float64Array; segmentEnd: Int32Array } | undefined;

  constructor(config: Record<string, unknown>, arrivalS: Float64Array, promptLen: Int32Array, outputLen: Int32Array,
    segmentStart: Int32Array, segmentStream: Float64Array, segmentEnd: Int32Array, dispatched = false) {
    if (typeof config !== 'object' || config === null) throw new TypeError('config must be an object');
    const fixed = SIM_CONFIG_FIELDS.map((key) => {
      const v = config[key];
      if (key === 'enablePrefixCaching') return v ? 1 : 0;
      if (key === 'coast' || key === 'privateTails') return v === undefined ? -1 : v ? 1 : 0;
      if (SIM_CONFIG_ZERO_DEFAULT.has(key) && v === undefined) return 0;
      if (key === 'fullGroups' && v === undefined) return 1;
      // Absent: perPairS's (checked a number above, earlier in the list).
      if (key === 'perDecodePairS' && v === undefined) return config.perPairS as number;
      if (key === 'perDecodeTokenS' && v === undefined) return config.perTokenS as number;
      // Absent (a run saved before it): allReduceS's (0 where that is absent too).
      if (key === 'ringAllReduceS' && v === undefined) return (config.allReduceS as number | undefined) ?? 0;
      if (typeof v !== 'number') throw new TypeError(`config.${key} must be a number`);
      return v;
    });
    // Pipeline parallelism (abi.cc): [stageCount, stageSendPerTokenS], then each stage's coefficients.
    const stages = (config.stages ?? []) as Array<Record<string, number>>;
    const c = new Float64Array([...fixed, stages.length, (config.stageSendPerTokenS as number | undefined) ?? 0,
      // Optional (as the whole model's): perDecodeTokenS defaults to perTokenS, ringAllReduceS to allReduceS, the rest (perPrefillContextTokenS .. perTokenRingAllReduceS) to 0.
      ...stages.flatMap((stage) => SIM_COEFFICIENTS.map((key) => stage[key] ?? (key === 'perDecodeTokenS' ? stage.perTokenS : key === 'ringAllReduceS' ? stage.allReduceS ?? 0 : 0)))]);
    const n = arrivalS.length, m = segmentStream.length;
    const lengths: Array<[string, ArrayBufferView & { length: number }, number]> = [
      ['promptLen', promptLen, n], ['outputLen', outputLen, n], ['segmentStart', segmentStart, n + 1], ['segmentEnd', segmentEnd, m],
    ];
    for (const [name, a, want] of lengths) if (a.length !== want) throw new RangeError(`${name} length differs from its count (${want})`);
    // Dispatched: built with no request; add(i) copies request i of these columns in.
    this.source = dispatched ? { arrivalS, promptLen, outputLen, segmentStart, segmentStream, segmentEnd } : undefined;
    const given = dispatched ? { n: 0, arrivalS: new Float64Array(0), promptLen: new Int32Array(0), outputLen: new Int32Array(0), segmentStart: new Int32Array(1), m: 0, segmentStream: new Float64Array(0), segmentEnd: new Int32Array(0) }
      : { n, arrivalS, promptLen, outputLen, segmentStart, m, segmentStream, segmentEnd };
    this.h = withScratch((s) => fn('sim_new')(s.put(c), given.n, s.put(given.arrivalS), s.put(given.promptLen), s.put(given.outputLen),
      s.put(given.segmentStart), given.m, s.put(given.segmentStream), s.put(given.segmentEnd)) >>> 0);
    if (this.h === 0) throw new RangeError(core.UTF8ToString(fn('error')() >>> 0));
    this.n = given.n;
    const h = this.h;
    freed.register(this, () => fn('sim_delete')(h), this);
  }

  /** Deletes the simulator now (the addon's free()); later calls throw Error. */
  free(): void {
    if (this.h === 0) return;
    freed.unregister(this);
    fn('sim_delete')(this.h);
    this.h = 0;
  }

  /** The live simulator's handle. @throws Error after free(). */
  private live(): number {
    if (this.h === 0) throw new Error('ServingSimulator: used after free()');
    return this.h;
  }

  /**
   * Requests loaded: all of them, as the constructor copies them into the module's memory and
   * builds the simulator in one call (not in slices as the native addon's load: a known limit
   * of this build, which serves machines without the addon).
   */
  load(_maxRequests: number): number {
    this.live();
    return this.n;
  }

  run(maxSteps: number): boolean {
    return fn('sim_run')(this.live(), maxSteps) !== 0;
  }

  /** The addon's add (native/simulator.ts ServingSimulator.add). */
  add(index: number): void {
    const h = this.dispatchedLive();
    const r = this.source!;
    if (typeof index !== 'number') throw new TypeError('index must be a number');
    if (!Number.isInteger(index) || index < 0 || index >= r.arrivalS.length) throw new RangeError(`index must be an integer in [0, ${r.arrivalS.length})`);
    const from = r.segmentStart[index], to = r.segmentStart[index + 1];
    if (!(from >= 0 && to >= from && to <= r.segmentStream.length)) throw new RangeError(`segmentStart must ascend from 0 to segmentStream.length (at request ${index} or ${index + 1})`);
    const ok = withScratch((s) => fn('sim_add')(h, index, from, r.arrivalS[index], r.promptLen[index], r.outputLen[index], to - from,
      s.put(r.segmentStream.subarray(from, to)), s.put(r.segmentEnd.subarray(from, to))));
    if (ok === 0) throw new RangeError(core.UTF8ToString(fn('error')() >>> 0));
    this.n++;
  }

  runUntil(t: number): number {
    return fn('sim_run_until')(this.dispatchedLive(), timeArg(t));
  }

  inFlight(t: number): number {
    return fn('sim_in_flight')(this.dispatchedLive(), timeArg(t));
  }

  /** A dispatched simulator's live handle. @throws Error otherwise (as the addon). */
  private dispatchedLive(): number {
    const h = this.live();
    if (!this.source) throw new Error('ServingSimulator: add, runUntil and inFlight need a dispatched simulator');
    return h;
  }

  samples(): Float64Array {
    fn('sim_samples')(this.live());
    return doubles();
  }

  totals(): object {
    return json(fn('sim_totals')(this.live()));
  }

  times(): object {
    const n = this.n;
    const h = this.live();
    const queuedS = new Float64Array(n), scheduledS = new Float64Array(n), firstTokenS = new Float64Array(n), finishS = new Float64Array(n);
    const outputLen = new Int32Array(n);
    withScratch((s) => {
      const pq = s.alloc(8 * n), ps = s.alloc(8 * n), pf = s.alloc(8 * n), pe = s.alloc(8 * n), po = s.alloc(4 * n);
      fn('sim_times')(h, pq, ps, pf, pe, po);
      copyOut(pq, queuedS);
      copyOut(ps, scheduledS);
      copyOut(pf, firstTokenS);
      copyOut(pe, finishS);
      copyOut(po, outputLen);
    });
    return { queuedS, scheduledS, firstTokenS, finishS, outputLen };
  }
}

/** A time argument as the addon checks it (napi/simulator.cc Time). */
function timeArg(t: number): number {
  if (typeof t !== 'number') throw new TypeError('t must be a number');
  if (Number.isNaN(t)) throw new RangeError('t must not be NaN');
  return t;
}

// ---- CUDA (napi/cuda.cc): none in WebAssembly ----

const NO_CUDA = 'the WebAssembly build has no CUDA backend (CUDA needs the native addon of a linux-x64 install)';

export function cudaProbe(): object {
  return { available: false, reason: NO_CUDA, driverVersion: 0, deviceCount: 0 };
}

export function cudaCheckLibrary(): string {
  return NO_CUDA;
}

function noCuda(): never {
  throw new Error(NO_CUDA);
}

export const cudaSetDevice = noCuda;
export const cudaFlashForward = (): Promise<never> => promised(noCuda);
export const cudaPagedDecode = (): Promise<never> => promised(noCuda);
export const cudaTimeCopy = (): Promise<never> => promised(noCuda);
