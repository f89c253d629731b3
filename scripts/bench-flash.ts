#!/usr/bin/env tsx
/**
 * fp32 / bf16 flash forward against the fp32 FMA peak, A/B in one process: the flash shapes of
 * bench:kernels (B = 1, H = H_kv = 8).
 *
 *   npx tsx scripts/bench-flash.ts [--base OLD.node | --against-dtype fp32|bf16] [--pairs N] [--reps N]
 *                                  [--threads N] [--dtype fp32|bf16] [--shapes 1k:64,1k:64:causal,...]
 *
 * --base loads a second build of the addon (e.g. a copy of main's attnscope_native.node) and
 * times it interleaved with this tree's build: per pair, one block of --reps runs (after one
 * untimed run) of each in turn, so both see the same moment of a shared machine; it prints the
 * median over pairs of each block's median CPU time and wall time, and the median of the
 * pairs' ratios base / current (> 1: current is faster). CPU time is process CPU time
 * (std::clock, all threads, spin-waits included); "% peak (CPU)" divides it by the threads:
 * what the threads reached while they ran, which a loaded machine's wall time hides. The FMA
 * peak is measured on the same threads before and after, and the higher counts.
 * --against-dtype times this build on the same values in the other dtype as the base (bf16
 * inputs are the fp32 ones rounded): --dtype bf16 --against-dtype fp32 gives fp32 time / bf16
 * time per pair, issue 18's "bf16 flash no slower than fp32".
 */
import { flashForward, flashSpec, measureFp32FmaPeak, timeFlashForward, toHalfBits, type FlashForwardArgs, type TimingOptions } from '../native';
import { randomUniform } from '../runner/inputs';
import { attentionFlops } from '../runner/measure';
import { flag as flagOf, formatSpread, interleave, loadBaseAddon, median, pairedRatio, type Timed } from './ab';

const argv = process.argv.slice(2);
const flag = (name: string) => flagOf(argv, name);
const basePath = flag('--base');
const againstDtype = flag('--against-dtype') as 'fp32' | 'bf16' | undefined;
if (againstDtype !== undefined && againstDtype !== 'fp32' && againstDtype !== 'bf16') throw new RangeError(`--against-dtype must be fp32 or bf16, got ${againstDtype}`);
if (basePath && againstDtype) throw new RangeError('--base and --against-dtype exclude each other');
const pairs = Number(flag('--pairs') ?? 7);
const reps = Number(flag('--reps') ?? 5);
const threads = Number(flag('--threads') ?? 2);
const dtype = (flag('--dtype') ?? 'fp32') as 'fp32' | 'bf16';
const shapes = (flag('--shapes') ?? '1k:64,1k:64:causal,1k:128,1k:128:causal').split(',').map((s) => {
  const [n, d, c] = s.split(':');
  return { n: Number(n!.replace(/k$/, '')) * (n!.endsWith('k') ? 1024 : 1), d: Number(d), causal: c === 'causal', label: s };
});
const H = 8;
const block: Required<TimingOptions> = { warmup: 1, minReps: reps, maxReps: reps, minTimeMs: 0, maxTimeMs: 600_000 };

type TimeFn = (args: FlashForwardArgs, against?: FlashForwardArgs) => Promise<Timed>;


const current: TimeFn = async (args) => {
  const t = await timeFlashForward(args, block);
  return { wall: median(t.samplesNs), cpu: median(t.cpuNs!) };
};
let base: TimeFn | undefined;
if (againstDtype) base = (_args, against) => current(against!);
if (basePath) {
  const addon = loadBaseAddon<{ kernelsTimeFlashForward(spec: object, t: object): Promise<number[]> }>(basePath);
  base = async (args) => {
    const spec = flashSpec(args);
    const o = new Float32Array(spec.batch * spec.seqLenQ * spec.numHeads * spec.headDim);
    const lse = new Float32Array(spec.batch * spec.numHeads * spec.seqLenQ);
    const cpuNs = new Float64Array(block.maxReps);
    const samples = await addon.kernelsTimeFlashForward({ ...spec, o, lse, cpuNs }, block);
    return { wall: median(samples), cpu: median(Array.from(cpuNs.subarray(0, samples.length))) };
  };
}

async function main(): Promise<void> {
  const peak0 = (await measureFp32FmaPeak({ threads, durationMs: 500 })).value;
  const maxN = Math.max(...shapes.map((s) => s.n));
  const qAll = randomUniform(maxN * H * 128, 1), kAll = randomUniform(maxN * H * 128, 2), vAll = randomUniform(maxN * H * 128, 3);
  const rows: Array<{ label: string; flops: number; cur: Timed[]; old: Timed[] }> = [];
  for (const s of shapes) {
    const len = s.n * H * s.d;
    const f32 = { q: qAll.subarray(0, len), k: kAll.subarray(0, len), v: vAll.subarray(0, len) };
    const inDtype = (t: 'fp32' | 'bf16') => (t === 'fp32' ? f32 : { q: toHalfBits('bf16', f32.q), k: toHalfBits('bf16', f32.k), v: toHalfBits('bf16', f32.v) });
    const geometry = { batch: 1, numHeads: H, numKvHeads: H, headDim: s.d, seqLenQ: s.n, seqLenK: s.n, causal: s.causal, threads };
    const args: FlashForwardArgs = { ...geometry, dtype, ...inDtype(dtype) };
    const against: FlashForwardArgs | undefined = againstDtype ? { ...geometry, dtype: againstDtype, ...inDtype(againstDtype) } : undefined;
    await flashForward(args);
    if (against) await flashForward(against);
    const flops = attentionFlops({ batchSize: 1, numHeads: H, numKvHeads: H, headDim: s.d, seqLenQ: s.n, seqLenK: s.n, causal: s.causal, slidingWindow: null });
    const timeBase = base;
    const [cur, old] = await interleave(timeBase ? [() => current(args), () => timeBase(args, against)] : [() => current(args)], pairs);
    rows.push({ label: s.label, flops, cur: cur!, old: old ?? [] });
  }
  const peak = Math.max(peak0, (await measureFp32FmaPeak({ threads, durationMs: 500 })).value);

  const baseName = againstDtype ?? 'base';
  console.log(`flash ${dtype}${againstDtype ? ` (base: ${againstDtype}, same build)` : ''} B=1 H=H_kv=${H}, ${threads} threads; fp32 FMA peak ${(peak / 1e9).toFixed(0)} GFLOP/s (same run); ${pairs} pairs x ${reps} runs`);
  const pct = (flops: number, ns: number) => `${((100 * flops) / (ns * 1e-9) / peak).toFixed(1)}%`;
  for (const r of rows) {
    const fmt = (name: string, xs: Timed[]) => {
      const wall = median(xs.map((x) => x.wall)), cpu = median(xs.map((x) => x.cpu));
      return `  ${name.padEnd(7)} wall ${(wall / 1e6).toFixed(3)} ms ${pct(r.flops, wall).padStart(6)} peak | CPU ${(cpu / 1e6).toFixed(3)} ms ${pct(r.flops, cpu / threads).padStart(6)} peak (CPU/threads)`;
    };
    console.log(`${r.label}`);
    console.log(fmt('current', r.cur));
    if (base) {
      console.log(fmt(baseName, r.old));
      const ratio = pairedRatio(r.old, r.cur);
      console.log(`  paired ${baseName}/current: CPU ${formatSpread(ratio.cpu)}, wall ${formatSpread(ratio.wall)}`);
    }
  }
}

void main();
