/**
 * What the A/B benchmark scripts (bench-decode.ts, bench-flash.ts) share: their flags, the
 * median of a run's samples, and the second build of the addon they time against this tree's.
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
