/**
 * The WebAssembly build beside the native addon, for `npm run bench:kernels`: the same kernels
 * on the same inputs in the same process, the native addon (the build this process loaded) on
 * one thread and on the run's threads, the WebAssembly module (loaded by its file, a second
 * instance) on its one thread, and the WebAssembly FMA peak (its portable mul + add loop, timed by
 * process CPU time as the cases are) that its rate is judged against. Small shapes only (flash N = 1k, decode context 4k): WebAssembly
 * runs them in about a second. Figures: medians of the C++ timing loops, wall time and process
 * CPU time. The ratio is judged by CPU time: on a loaded machine a 20-60 ms WebAssembly call is
 * preempted while a 1 ms native call mostly is not, which inflates the wall-time ratio (the 73x
 * decode figure of an earlier run was 18x in CPU time, and 4x once the code ran optimized). The
 * WebAssembly process CPU time also counts V8's background threads (the module is compiled by
 * TurboFan on each function's first call, in the warm-up run).
 */
import { existsSync } from 'node:fs';

import { flashSpec, loadedBuild, nativeFileCandidates, pagedSpec, timeFlashForward, timePagedDecode, toHalfBits, WASM_FILE } from '../native';
import type { FlashForwardArgs, PagedDecodeArgs, TimingOptions } from '../native';
import { randomUniform, shuffledPages } from '../runner/inputs';
import { attentionFlops, sampleStats } from '../runner/measure';
import { wrapLongLines } from '../core/format';
import { NOISY_MARK_NOTE, noisyMark } from '../core/noise';
import { proseWidth, renderTable } from '../core/textTable';

/** One case timed on both builds. */
export interface WasmCase {
  label: string;
  dtype: string;
  /** Median wall ns: native on 1 thread, native on the run's threads, WebAssembly (1 thread). */
  nativeOneNs: number;
  nativeNs: number;
  wasmNs: number;
  /** Median process CPU ns a run: native on 1 thread, WebAssembly. */
  nativeOneCpuNs: number;
  wasmCpuNs: number;
  /** wasmCpuNs / nativeOneCpuNs: how much slower WebAssembly is, thread for thread, in CPU time. */
  slowdown: number;
  /** wasmNs / nativeOneNs: the same in wall time (inflated on a loaded machine, see above). */
  wallSlowdown: number;
  /** FLOP/s of the WebAssembly case over the WebAssembly FMA peak of this run. */
  fractionOfWasmPeak: number;
  /**
   * p10 and p90 of the wall-time samples behind nativeOneNs, nativeNs and wasmNs (ns): the spread
   * each wall column's "noisy Nx" mark is judged by (core/noise.ts noisyMark), as the kernel tables'.
   */
  wallSpreads?: { nativeOne: WallSpread; native: WallSpread; wasm: WallSpread };
}

/** The p10 and p90 of a case's wall-time samples, ns. */
export interface WallSpread {
  p10: number;
  p90: number;
}

export interface WasmComparison {
  /** FLOP/s of the WebAssembly module's FMA loop (one thread), measured in this run. */
  wasmFmaPeak: number;
  cases: WasmCase[];
}

/* eslint-disable @typescript-eslint/no-explicit-any */
type RawModule = any;

const TIMING: Required<TimingOptions> = { warmup: 1, minReps: 3, maxReps: 1000, minTimeMs: 500, maxTimeMs: 5000 };

/**
 * Times the comparison cases on `threads` native threads (the run's), or returns why not (this
 * process already runs on WebAssembly; no module built).
 */
export async function compareWasm(threads: number): Promise<WasmComparison | string> {
  if (loadedBuild().build === 'wasm') return 'this run loaded the WebAssembly module itself (nothing native to compare with)';
  const file = nativeFileCandidates(process.env.ATTNSCOPE_WASM, 'wasm', 'build', WASM_FILE).find((p) => existsSync(p));
  if (!file) return 'no WebAssembly module built (npm run build:wasm, needs em++)';
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const wasm: RawModule = require(file);
  const peak: number = (await wasm.measurePeak('fp32_fma', 1, 500, 0)).value;
  const cases: WasmCase[] = [];
  const median = (xs: ArrayLike<number>) => sampleStats(Array.from(xs)).medianNs;
  const spread = (xs: readonly number[]): WallSpread => {
    const st = sampleStats(xs);
    return { p10: st.p10Ns, p90: st.p90Ns };
  };
  /** Times the WebAssembly case (`spec` given its cpuNs array here), then native on 1 and `threads` threads. */
  const measure = async (label: string, dtype: string, flops: number, wasmTime: (spec: object) => Promise<number[]>,
    native: (threads: number) => Promise<{ samplesNs: number[]; cpuNs?: number[] }>): Promise<void> => {
    const cpuNs = new Float64Array(TIMING.maxReps);
    const wasmSamples = await wasmTime({ cpuNs });
    const wasmNs = median(wasmSamples), wasmCpuNs = median(cpuNs.subarray(0, wasmSamples.length));
    const one = await native(1);
    const nativeOneNs = median(one.samplesNs), nativeOneCpuNs = median(one.cpuNs ?? one.samplesNs);
    const many = (await native(threads)).samplesNs;
    const nativeNs = median(many);
    cases.push({ label, dtype, nativeOneNs, nativeNs, wasmNs, nativeOneCpuNs, wasmCpuNs, slowdown: wasmCpuNs / nativeOneCpuNs,
      wallSlowdown: wasmNs / nativeOneNs, fractionOfWasmPeak: flops / (wasmCpuNs * 1e-9) / peak,
      wallSpreads: { nativeOne: spread(one.samplesNs), native: spread(many), wasm: spread(wasmSamples) } });
  };
  const H = 8, n = 1024, d = 128;
  const q = randomUniform(n * H * d, 11), k = randomUniform(n * H * d, 12), v = randomUniform(n * H * d, 13);
  for (const dtype of ['fp32', 'bf16'] as const) {
    for (const causal of [false, true]) {
      const data = dtype === 'fp32' ? { q, k, v } : { q: toHalfBits('bf16', q), k: toHalfBits('bf16', k), v: toHalfBits('bf16', v) };
      const args: FlashForwardArgs = { ...data, dtype, batch: 1, seqLenQ: n, seqLenK: n, numHeads: H, numKvHeads: H, headDim: d, causal };
      const flops = attentionFlops({ batchSize: 1, numHeads: H, numKvHeads: H, headDim: d, seqLenQ: n, seqLenK: n, causal, slidingWindow: null });
      const spec = { ...flashSpec(args), o: new Float32Array(n * H * d), lse: new Float32Array(H * n), threads: 1 };
      await measure(`flash N=1k D=${d}${causal ? ' causal' : ''}`, dtype, flops, (extra) => wasm.kernelsTimeFlashForward({ ...spec, ...extra }, TIMING),
        (t) => timeFlashForward({ ...args, threads: t }, TIMING));
    }
  }
  // Decode: Llama-3-8B's heads (H = 32, H_kv = 8, D = 128), context 4k, bf16 pages in shuffled
  // order; 4 FLOP per (head, token, d): q·k and p·v.
  const [DH, DHKV, ctx, ps] = [32, 8, 4096, 16];
  const pages = ctx / ps;
  const kv = (seed: number) => toHalfBits('bf16', randomUniform(pages * ps * DHKV * d, seed));
  const decode: PagedDecodeArgs = {
    q: toHalfBits('bf16', randomUniform(DH * d, 14)), kPages: kv(15), vPages: kv(16), blockTable: shuffledPages(pages, 17),
    contextLens: Int32Array.of(ctx), dtype: 'bf16', batch: 1, numHeads: DH, numKvHeads: DHKV, headDim: d, numPages: pages,
    pageSize: ps, maxPagesPerSeq: pages,
  };
  const decodeSpec = { ...pagedSpec(decode), o: new Float32Array(DH * d), lse: new Float32Array(DH), threads: 1 };
  await measure('decode B=1 ctx=4k H=32/8 page=16', 'bf16', 4 * DH * ctx * d, (extra) => wasm.kernelsTimePagedDecode({ ...decodeSpec, ...extra }, TIMING),
    (t) => timePagedDecode({ ...decode, threads: t }, TIMING));
  return { wasmFmaPeak: peak, cases };
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/**
 * The comparison as a table (core/textTable.ts renderTable: stacked parts past the width, each
 * repeating case and dtype), under its caption (wrapped at the prose width, core/format.ts
 * wrapLongLines), or the one line saying why there is none. A wall-time cell whose samples' p90 /
 * p10 reaches core/noise.ts NOISY_SPREAD_RATIO says "noisy Nx" after it (noisyMark: the rule and
 * words of the kernel tables), and the caption then says what it means.
 * e.g. a case whose WebAssembly runs spread 18-45 ms: its "wasm ms" cell "30.12 noisy 2.5x".
 */
export function formatWasmComparison(c: WasmComparison | string, threads: number, width?: number): string {
  if (typeof c === 'string') return wrapLongLines(`WebAssembly beside native: not measured, ${c}`, proseWidth(width));
  const head = ['case', 'dtype', 'native 1 thr ms', `native ${threads} thr ms`, 'wasm ms', 'native 1 thr CPU ms', 'wasm CPU ms',
    'wasm / native 1 thr, CPU', '(wall)', 'wasm % of its FMA peak (CPU)'];
  const ms = (ns: number) => (ns / 1e6).toFixed(2);
  const wall = (ns: number, spread: WallSpread | undefined) => {
    const mark = spread ? noisyMark(spread) : null;
    return mark === null ? ms(ns) : `${ms(ns)} ${mark}`;
  };
  const rows = c.cases.map((x) => [x.label, x.dtype, wall(x.nativeOneNs, x.wallSpreads?.nativeOne), wall(x.nativeNs, x.wallSpreads?.native), wall(x.wasmNs, x.wallSpreads?.wasm),
    ms(x.nativeOneCpuNs), ms(x.wasmCpuNs), `${x.slowdown.toFixed(1)}x`, `${x.wallSlowdown.toFixed(1)}x`, `${(100 * x.fractionOfWasmPeak).toFixed(0)}%`]);
  const noisy = rows.some((r) => r.slice(2, 5).some((cell) => cell.includes('noisy'))) ? `; ${NOISY_MARK_NOTE}` : '';
  const caption = `WebAssembly beside native (same run, same inputs; medians of the C++ timing loops, wall and process CPU time; WebAssembly on 1 thread, simd128, TurboFan; its FMA peak ${(c.wasmFmaPeak / 1e9).toFixed(1)} GFLOP/s, 12 chains of 4-lane mul + add, best window by process CPU time as the cases, measured now)${noisy}:`;
  return [
    wrapLongLines(caption, proseWidth(width)),
    renderTable(head, rows, head.map((_, i) => i >= 2), { keys: 2, width }),
  ].join('\n');
}
