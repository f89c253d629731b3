import { toHalfBits } from '../native';

/**
 * Deterministic random inputs for kernels: a seeded xorshift128+ stream, so a failing
 * correctness check can be reproduced from the run's seed.
 */

/** Uniform floats in [-1, 1) from a 32-bit seed. */
export function randomUniform(length: number, seed: number): Float32Array {
  const out = new Float32Array(length);
  let s0 = (seed ^ 0x9e3779b9) >>> 0 || 1;
  let s1 = (Math.imul(seed, 0x85ebca6b) ^ 0xc2b2ae35) >>> 0 || 2;
  for (let i = 0; i < length; i++) {
    // xorshift64-style on two 32-bit words
    let x = s0;
    const y = s1;
    s0 = y;
    x ^= x << 23;
    x ^= x >>> 17;
    x ^= y ^ (y >>> 26);
    s1 = x >>> 0;
    out[i] = ((s0 + s1) >>> 0) / 2147483648 - 1;
  }
  return out;
}

/** `n` bf16 values: a random 1 Mi-value block repeated (memcpy speed for GiB-sized pools). */
export function tiledBf16(n: number, seed: number): Uint16Array {
  const block = toHalfBits('bf16', randomUniform(Math.min(n, 1 << 20), seed));
  const out = new Uint16Array(n);
  out.set(block.subarray(0, Math.min(n, block.length)));
  for (let filled = block.length; filled < n; filled *= 2) out.copyWithin(filled, 0, Math.min(filled, n - filled));
  return out;
}

/** Fisher–Yates permutation of [0, n) from a seed: pages scattered as in a long-running pool. */
export function shuffledPages(n: number, seed: number): Int32Array {
  const p = new Int32Array(n);
  for (let i = 0; i < n; i++) p[i] = i;
  const r = randomUniform(n, seed);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(((r[i]! + 1) / 2) * (i + 1));
    const t = p[i]!;
    p[i] = p[j]!;
    p[j] = t;
  }
  return p;
}
