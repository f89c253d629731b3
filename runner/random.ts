/**
 * The one seeded generator of the runner, the scripts and the tests: kernel inputs, serving
 * workloads, property and fuzz tests all draw from it, so a failure or a run reproduces from its
 * seed on every platform.
 */

/**
 * sfc32 (Chris Doty-Humphrey's Small Fast Counting generator, PractRand-clean), seeded through
 * splitmix32; 53-bit uniform doubles. Deterministic for a seed on every platform.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d = 1;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = (): number => {
      s = (s + 0x9e3779b9) | 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    for (let i = 0; i < 12; i++) this.u32();
  }

  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return ((this.u32() >>> 5) * 67108864 + (this.u32() >>> 6)) / 9007199254740992;
  }

  /** Standard normal (Box–Muller). */
  normal(): number {
    const u = 1 - this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }

  /**
   * Gamma(shape, scale 1): mean `shape`, variance `shape` (Marsaglia & Tsang, "A simple method for
   * generating gamma variables", ACM TOMS 26(3), 2000; shape < 1 by their boost, Gamma(shape + 1) ·
   * U^(1/shape)). Shape 1 is the exponential distribution.
   * @throws RangeError for a shape that is not a positive finite number.
   */
  gamma(shape: number): number {
    if (!(shape > 0) || !Number.isFinite(shape)) throw new RangeError(`gamma shape must be a positive finite number, got ${shape}`);
    if (shape < 1) return this.gamma(shape + 1) * Math.pow(1 - this.next(), 1 / shape);
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = this.normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = 1 - this.next();
      if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
    }
  }
}

/**
 * The seed of substream `stream` (a small positive integer naming one use, e.g. a workload's
 * prefix choice) of `seed`: murmur3's 32-bit finaliser of seed ^ (stream · 0x9e3779b9). Two uses
 * of one seed that draw from their own Rng(substreamSeed(seed, k)) do not share draws, so adding
 * or removing one (a prefix_sharing block) leaves the other's draws as they were. Not
 * Rng(seed + k): the constructor's splitmix32 steps by 0x9e3779b9, so nearby seeds would share
 * state words.
 */
export function substreamSeed(seed: number, stream: number): number {
  let h = (seed >>> 0) ^ Math.imul(stream, 0x9e3779b9);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Uniform numbers in [0, 1) from `seed`, as a function (Rng.next bound). */
export function uniformStream(seed: number): () => number {
  const rng = new Rng(seed);
  return () => rng.next();
}
