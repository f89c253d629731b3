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
