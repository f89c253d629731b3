import { allocateKvPages, toHalfBits, type KvPages } from '../native';
import { Rng } from './random';
import { cancelPoint } from './errors';

/**
 * The inputs of every kernel run and check (runner, scripts, tests): deterministic, from the one
 * seeded generator (runner/random.ts), so a failing correctness check reproduces from its seed.
 */

/** `length` uniform floats in [lo, hi) (default [-1, 1)) from `seed`. */
export function randomUniform(length: number, seed: number, lo = -1, hi = 1): Float32Array {
  const rng = new Rng(seed);
  const out = new Float32Array(length);
  for (let i = 0; i < length; i++) out[i] = lo + rng.next() * (hi - lo);
  return out;
}

/** randomUniform values in a kernel dtype: fp32 as they are, fp16 / bf16 as their bit patterns. */
export function randomInputs(dtype: 'fp32' | 'fp16' | 'bf16', length: number, seed: number): Float32Array | Uint16Array {
  const f = randomUniform(length, seed);
  return dtype === 'fp32' ? f : toHalfBits(dtype, f);
}

/** Values fillTiledSteps copies in one step at most: 2^23, 16 MiB of bf16 (about 50 ms of CPU time where first-touch page clearing ran at 330 MB/s). */
const FILL_STEP = 1 << 23;

/**
 * Fills `out` with randomInputs(dtype, min(out.length, 2^20), seed) repeated: memcpy speed for
 * GiB-sized K/V pools (the first 2^20 values equal randomInputs' own). Every value is written.
 * out: Float32Array for fp32, Uint16Array of fp16 / bf16 bits otherwise.
 */
export function fillTiled(out: Float32Array | Uint16Array, dtype: 'fp32' | 'fp16' | 'bf16', seed: number): void {
  const steps = fillTiledSteps(out, dtype, seed);
  while (!steps.next().done);
}

/** fillTiled's work in steps of at most FILL_STEP values copied, pausing (yield) between them. */
function* fillTiledSteps(out: Float32Array | Uint16Array, dtype: 'fp32' | 'fp16' | 'bf16', seed: number): Generator<void, void, void> {
  const n = out.length;
  const block = randomInputs(dtype, Math.min(n, 1 << 20), seed);
  out.set(block);
  for (let filled = block.length; filled < n;) {
    yield;
    const count = Math.min(filled, n - filled, FILL_STEP);
    out.copyWithin(filled, 0, count);
    filled += count;
  }
}

/**
 * A K or V page pool of `n` values for decode runs: native memory (allocateKvPages: 2 MiB
 * aligned, transparent huge pages where Linux takes the advice) filled by fillTiled, so
 * `bench` and `bench:kernels` time decode over the same kind of memory. `bench` also takes the
 * Q, K and V of its timed flash runs from it: random values for a 128k-token prefill (0.5 G
 * of Q at H = 32, D = 128) held the JS thread, and Ctrl-C, for half a minute, and a JS array
 * of 1 GiB faulted in 4 KiB pages took 7 s to fill here, native huge pages 3.7 s (Zen 5 VM).
 * The pool is not zeroed first: fillTiled writes every value.
 */
export function randomKvPages(dtype: 'fp16' | 'bf16', n: number, seed: number): KvPages<Uint16Array>;
export function randomKvPages(dtype: 'fp32' | 'fp16' | 'bf16', n: number, seed: number): KvPages;
export function randomKvPages(dtype: 'fp32' | 'fp16' | 'bf16', n: number, seed: number): KvPages {
  const pool = allocateKvPages(dtype, n, false);
  fillTiled(pool.data, dtype, seed);
  return pool;
}

/**
 * randomKvPages, filled in steps with a macrotask between them (so that a SIGINT's handler runs)
 * and `signal` looked at after each: a cancel stops it within one step. Filling is where a new
 * pool's pages are faulted in and cleared by the OS, seconds of CPU time for bench's 768 MiB of
 * Q, K and V at N = 64k (s41 newcomer F6: a Ctrl-C at "timing" waited for all of it, a minute
 * on a starved box).
 * @throws signal.reason once `signal` is aborted.
 */
export async function randomKvPagesUntil(dtype: 'fp32' | 'fp16' | 'bf16', n: number, seed: number, signal?: AbortSignal): Promise<KvPages> {
  signal?.throwIfAborted();
  const pool = allocateKvPages(dtype, n, false);
  for (const _ of fillTiledSteps(pool.data, dtype, seed)) {
    await cancelPoint(signal);
  }
  return pool;
}

/** Fisher–Yates permutation of [0, n) from a seed: pages scattered as in a long-running pool. */
export function shuffledPages(n: number, seed: number): Int32Array {
  const p = new Int32Array(n);
  for (let i = 0; i < n; i++) p[i] = i;
  const r = randomUniform(n, seed, 0, 1);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(r[i]! * (i + 1));
    const t = p[i]!;
    p[i] = p[j]!;
    p[j] = t;
  }
  return p;
}
