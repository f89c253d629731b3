#!/usr/bin/env tsx
/**
 * Paged decode against the DRAM read bandwidth, A/B in one process: the target shapes of
 * issue 6 (batch 1 and 16, context 32k, page 16, bf16 Q and KV, H = 32, H_kv = 8, D = 128).
 *
 *   npx tsx scripts/bench-decode.ts [--base OLD.node] [--rounds N] [--ctx TOKENS] [--threads N]
 *                                    [--page TOKENS] [--sequential] [--js-pools] [--l2]
 *                                    [--layouts BASE,CURRENT] [--layout NHD|vnni16]
 *
 * --base loads a second build of the addon (e.g. a copy of main's attnscope_native.node) and
 * times it interleaved with this tree's build, one run of each in turn, so both see the same
 * moment of a shared machine, and prints the median of each pair's CPU-time ratio: at load 10
 * on 2 vCPUs an A/A run (one build against a copy of itself) stayed within ±10 % this way,
 * where medians of whole timing loops taken one after the other differed by 20 %. GB/s counts the K and V bytes read once: 2 · batch · ctx · H_kv · D · 2 B.
 * Prints medians over rounds (and the fastest run: on a loaded machine the least disturbed) and
 * this build's rate from process CPU time / threads (what the threads reached while they ran);
 * the fraction is of the read bandwidth measured in the same run. A small --ctx with
 * --threads 1 shows the in-cache rate of one core (instruction-bound, not DRAM-bound).
 * --sequential stores each sequence's pages in order (block table = identity) instead of
 * scattered through the pool: the cost of the scatter (TLB misses, prefetcher). --js-pools
 * keeps the K/V pools in plain JS arrays (4 KiB pages) instead of native huge-page memory.
 * --l2 points every block-table entry t at page t mod (128 tokens' pages: 512 KiB of K + V, as
 * bench:kernels' "arithmetic alone"): the same kernel and grid without DRAM, what its arithmetic
 * allows. --page sets the tokens a page (default 16; vLLM's CPU backend defaults to 128), a
 * divisor of --ctx. --layouts NHD,vnni16 pairs this build over two pool layouts instead of two
 * builds (the vnni16 pools repacked from the NHD ones by writeKvCache: the same values): "base"
 * reads the first, "current" the second; NHD,NHD is its A/A. --layout vnni16 runs both builds
 * (with --base) or this one over that layout's pools (default NHD).
 */
import {
  allocateKvPages, cpuInfo, measureReadBandwidth, pagedSpec, timePagedDecode, toHalfBits, writeKvCache, type KvCacheLayout, type PagedDecodeArgs,
} from '../native';
import { fillTiled, randomKvPages, randomUniform, shuffledPages } from '../runner/inputs';
import { flag as flagOf, loadBaseAddon, median } from './ab';

const argv = process.argv.slice(2);
const flag = (name: string) => flagOf(argv, name);
const basePath = flag('--base');
const sequential = argv.includes('--sequential');
const jsPools = argv.includes('--js-pools');
const inL2 = argv.includes('--l2');
const rounds = Number(flag('--rounds') ?? 5);
const ctx = Number(flag('--ctx') ?? 32768);
const threads = flag('--threads') === undefined ? undefined : Number(flag('--threads'));
const PAGE = Number(flag('--page') ?? 16);
const layouts = flag('--layouts')?.split(',') as [KvCacheLayout, KvCacheLayout] | undefined;
if (layouts && (layouts.length !== 2 || !layouts.every((l) => l === 'NHD' || l === 'vnni16') || basePath)) {
  process.stderr.write(`bench-decode: --layouts takes BASE,CURRENT from NHD and vnni16, without --base, got ${flag('--layouts')}\n`);
  process.exit(2);
}
const layout = (flag('--layout') ?? 'NHD') as KvCacheLayout;
if ((layout !== 'NHD' && layout !== 'vnni16') || (layouts && flag('--layout') !== undefined)) {
  process.stderr.write(`bench-decode: --layout takes NHD or vnni16, without --layouts, got ${flag('--layout')}\n`);
  process.exit(2);
}
if (!Number.isInteger(PAGE) || PAGE < 1 || ctx % PAGE !== 0) {
  process.stderr.write(`bench-decode: --page must be a positive divisor of --ctx (${ctx}), got ${flag('--page')}\n`);
  process.exit(2);
}
/** Pages in the pool with --l2 (128 tokens' worth): every sequence reads these, over and over. */
const L2_PAGES = Math.max(1, Math.floor(128 / PAGE));
const H = 32, HKV = 8, D = 128;
const timing = { warmup: 1, minReps: 3, maxReps: 50, minTimeMs: 300, maxTimeMs: 3000 };
/** One timed run: the A/B pairs with --base. */
const single = { warmup: 0, minReps: 1, maxReps: 1, minTimeMs: 0, maxTimeMs: 60_000 };
/** Pairs per round with --base (after one untimed pair). */
const PAIRS = 8;

/** Wall time and process CPU time (ns) of each run. */
type TimeFn = (args: PagedDecodeArgs, t: typeof timing) => Promise<{ samplesNs: number[]; cpuNs: number[] }>;
let base: TimeFn | undefined;
if (layouts) base = async (args, t) => {
  const r = await timePagedDecode(args, t);
  return { samplesNs: r.samplesNs, cpuNs: r.cpuNs ?? [] };
};
if (basePath) {
  const addon = loadBaseAddon<{ kernelsTimePagedDecode(spec: object, t: object): Promise<number[]> }>(basePath);
  base = async (args, t) => {
    const spec = pagedSpec(args);
    const o = new Float32Array(spec.batch * spec.numHeads * spec.headDim);
    const lse = new Float32Array(spec.batch * spec.numHeads);
    const cpuNs = new Float64Array(t.maxReps);
    const samplesNs = await addon.kernelsTimePagedDecode({ ...spec, o, lse, cpuNs }, t);
    return { samplesNs, cpuNs: Array.from(cpuNs.subarray(0, samplesNs.length)) };
  };
}

/** A bf16 K or V pool of n values: native huge-page memory (allocateKvPages) unless --js-pools. */
function pool(n: number, seed: number): Uint16Array {
  if (!jsPools) return randomKvPages('bf16', n, seed).data;
  const plain = new Uint16Array(n);
  fillTiled(plain, 'bf16', seed);
  return plain;
}



async function main(): Promise<void> {
  const bwSamples: number[] = [];
  for (const batch of [1, 16]) {
    const pagesPerSeq = ctx / PAGE;
    const numPages = inL2 ? L2_PAGES : batch * pagesPerSeq;
    const slot = PAGE * HKV * D;
    const args: PagedDecodeArgs = {
      q: toHalfBits('bf16', randomUniform(batch * H * D, 19)),
      kPages: pool(numPages * slot, 11 + batch), vPages: pool(numPages * slot, 13 + batch),
      blockTable: inL2
        ? Int32Array.from({ length: batch * pagesPerSeq }, (_, i) => i % L2_PAGES)
        : sequential ? Int32Array.from({ length: numPages }, (_, i) => i) : shuffledPages(numPages, 17 + ctx),
      contextLens: new Int32Array(batch).fill(ctx),
      dtype: 'bf16', kvDtype: 'bf16', batch, numHeads: H, numKvHeads: HKV, headDim: D, numPages,
      pageSize: PAGE, maxPagesPerSeq: pagesPerSeq, ...(threads === undefined ? {} : { threads }),
    };
    const bytes = 2 * batch * ctx * HKV * D * 2;
    // --layouts: each layout's pools, repacked from the NHD ones (the same values).
    const withLayout = (layout: KvCacheLayout): PagedDecodeArgs => {
      if (layout === 'NHD') return args;
      const n = numPages * slot;
      const kPages = jsPools ? new Uint16Array(n) : allocateKvPages('bf16', n).data;
      const vPages = jsPools ? new Uint16Array(n) : allocateKvPages('bf16', n).data;
      const slotMapping = Int32Array.from({ length: numPages * PAGE }, (_, i) => i);
      writeKvCache({ k: args.kPages, v: args.vPages, slotMapping, kPages, vPages, dtype: 'bf16', kvCacheLayout: layout, numKvHeads: HKV, headDim: D, numPages, pageSize: PAGE });
      return { ...args, kPages, vPages, kvCacheLayout: layout };
    };
    const baseArgs = withLayout(layouts ? layouts[0] : layout);
    const curArgs = layouts ? withLayout(layouts[1]) : baseArgs;
    const cur: number[] = [], old: number[] = [], curCpu: number[] = [], oldCpu: number[] = [];
    const ratios: number[] = []; // base CPU time / current CPU time, per pair
    let curMin = Infinity, oldMin = Infinity;
    for (let r = 0; r < rounds; r++) {
      bwSamples.push((await measureReadBandwidth({ durationMs: 300, ...(threads === undefined ? {} : { threads }) })).value);
      if (base) {
        for (let i = 0; i <= PAIRS; i++) {
          const t = await timePagedDecode(curArgs, single);
          const o = await base(baseArgs, single);
          if (i === 0) continue; // untimed pair: both builds' code and the pool's first pages warm
          cur.push(t.samplesNs[0]!);
          old.push(o.samplesNs[0]!);
          curCpu.push(t.cpuNs![0]!);
          oldCpu.push(o.cpuNs[0]!);
          ratios.push(o.cpuNs[0]! / t.cpuNs![0]!);
          curMin = Math.min(curMin, t.samplesNs[0]!);
          oldMin = Math.min(oldMin, o.samplesNs[0]!);
        }
        continue;
      }
      const t = await timePagedDecode(curArgs, timing);
      const c = t.samplesNs;
      cur.push(median(c));
      if (t.cpuNs && t.cpuNs.length > 0) curCpu.push(median(t.cpuNs));
      curMin = Math.min(curMin, ...c);
    }
    const bw = median(bwSamples);
    const gbs = (ns: number) => bytes / ns;
    const line = (name: string, xs: number[], best: number) =>
      `  ${name.padEnd(8)} ${(median(xs) / 1e6).toFixed(2).padStart(8)} ms  ${gbs(median(xs)).toFixed(1).padStart(6)} GB/s  ${((100 * gbs(median(xs)) * 1e9) / bw).toFixed(0).padStart(3)}% of read BW  (fastest run ${gbs(best).toFixed(1)} GB/s, ${((100 * gbs(best) * 1e9) / bw).toFixed(0)}%)`;
    console.log(`decode B=${batch} ctx=${ctx} p${PAGE} bf16${inL2 ? ` over ${L2_PAGES} pages in L2` : ''}${layouts ? `, base ${layouts[0]} pools, current ${layouts[1]}` : `, ${layout} pools`} (H=${H}, H_kv=${HKV}, D=${D}); read BW ${(bw / 1e9).toFixed(1)} GB/s (median so far)`);
    console.log(line('current', cur, curMin));
    // Process CPU time / threads in place of wall time: the rate while the threads ran.
    const used = threads ?? cpuInfo().cores;
    const cpuLine = (name: string, xs: number[]) => {
      const perThread = median(xs) / used;
      console.log(`  ${name.padEnd(8)} CPU time ${(median(xs) / 1e6).toFixed(2)} ms on ${used} threads: ${gbs(perThread).toFixed(1)} GB/s, ${((100 * gbs(perThread) * 1e9) / bw).toFixed(0)}% of read BW`);
    };
    if (curCpu.length > 0) cpuLine('current', curCpu);
    if (base) console.log(line('base', old, oldMin));
    if (oldCpu.length > 0) cpuLine('base', oldCpu);
    if (ratios.length > 0) {
      const sorted = [...ratios].sort((a, b) => a - b);
      const at = (f: number) => sorted[Math.min(sorted.length - 1, Math.floor(f * sorted.length))]!.toFixed(2);
      console.log(`  paired   base CPU time / current CPU time: median ${median(ratios).toFixed(2)} over ${ratios.length} pairs (p10 ${at(0.1)}, p90 ${at(0.9)}; > 1: current is faster)`);
    }
  }
}

void main();
