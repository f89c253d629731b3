/**
 * What the A/B benchmark scripts (bench-decode.ts, bench-flash.ts, bench-kernels.ts) share:
 * their flags, the median of a run's samples, the second build of the addon they time against
 * this tree's, and paired timing (variants interleaved in one process, ratios per round).
 */
import { sampleStats } from '../runner/measure';

/** The value after `name` in argv (`--rounds 5` gives "5"), or undefined when absent. */
export function flag(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

/** The median of xs (the mean of the middle two for an even count). @throws RangeError when empty. */
export function median(xs: readonly number[]): number {
  return sampleStats(xs).medianNs;
}

/**
 * Another build of the native addon (e.g. a copy of main's attnscope_native.node), loaded
 * beside this tree's so that both are timed in one process, interleaved: A/B pairs see the same
 * moment of a shared machine. Its raw entry points take the specs native/kernels.ts builds.
 */
export function loadBaseAddon<T>(path: string): T {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path) as T;
}

/** One block of runs of a variant: the median wall time and median process CPU time per run (ns). */
export interface Timed {
  wall: number;
  cpu: number;
}

/**
 * Times the variants in turn, one block each, `rounds` times over (0, 1, ..., 0, 1, ...), so
 * that every variant sees the same moments of a shared machine: the figures of round i are a
 * pair (or triple) whose ratio cancels the load of that moment, where medians of whole timing
 * loops taken one after the other differ by 10-20 % on a loaded 2-vCPU machine. Returns
 * times[v][i], variant v's block of round i.
 */
export async function interleave(variants: ReadonlyArray<() => Promise<Timed>>, rounds: number): Promise<Timed[][]> {
  const times: Timed[][] = variants.map(() => []);
  for (let i = 0; i < rounds; i++) {
    for (let v = 0; v < variants.length; v++) times[v]!.push(await variants[v]!());
  }
  return times;
}

/** Per-round ratios and their median and range. */
export interface Spread {
  ratios: number[];
  median: number;
  min: number;
  max: number;
}

/** num[i] / den[i] per round, CPU time and wall time (> 1: den's variant is faster). */
export function pairedRatio(num: readonly Timed[], den: readonly Timed[]): { cpu: Spread; wall: Spread } {
  const spread = (ratios: number[]): Spread => ({ ratios, median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) });
  return { cpu: spread(den.map((d, i) => num[i]!.cpu / d.cpu)), wall: spread(den.map((d, i) => num[i]!.wall / d.wall)) };
}

/** "1.031 (0.97-1.09)": the median ratio and the range over rounds. */
export function formatSpread(s: Spread): string {
  return `${s.median.toFixed(3)} (${s.min.toFixed(2)}-${s.max.toFixed(2)})`;
}
