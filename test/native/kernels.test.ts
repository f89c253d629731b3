// CPU attention kernels against the fp64 reference (and, where a value can be known without
// any kernel, against that value) on every SIMD path this machine runs.
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { describe, it } from 'node:test';

import {
  chooseBf16Path,
  type AttnDType,
  type FlashForwardArgs,
  type PagedDecodeArgs,
  type SimdPath,
  allocateKvPages,
  cancelKernels,
  cpuInfo,
  dispatchFor,
  flashForward,
  fromHalfBits,
  kvPoolIndex,
  pagedDecode,
  referenceAttention,
  referencePagedDecode,
  timeFlashForward,
  timePagedDecode,
  timePagedRead,
  toHalfBits,
  writeKvCache,
} from '../../native/kernels';
import { cpuFeatures } from '../../native/peaks';
import { maxAbsDiff } from '../../runner/measure';
import { randomInputs, randomKvPages, randomUniform } from '../../runner/inputs';

function encode(dtype: AttnDType, values: Float32Array): Float32Array | Uint16Array {
  return dtype === 'fp32' ? values : toHalfBits(dtype, values);
}

// fp32 kernels against an fp64 reference on data in [-1, 1]: the error is fp32 rounding of
// sums of up to a few hundred terms, far below 2e-5; a wrong mask or a lost rescale is > 1e-2.
const FP32_TOL = 2e-5;
// fp16 / bf16: the reference reads the same rounded inputs, so what remains is the kernel's own
// rounding; bf16 paths may round P to bf16 before P·V (as flash-attn does), an error below one
// bf16 ulp of |V| <= 1 (2^-8). fp16 inputs are computed in fp32 throughout.
const HALF_TOL: Record<AttnDType, number> = { fp32: FP32_TOL, fp16: 1e-4, bf16: 2 ** -8 };

interface FlashCase {
  name: string;
  batch: number;
  seqLenQ: number;
  seqLenK: number;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  causal: boolean;
  window?: number;
}

// Odd sizes (not multiples of any tile), D in {64, 80, 128}, H / H_kv in {1, 4, 8}.
const FLASH_CASES: FlashCase[] = [
  { name: 'MHA, not causal, N=77', batch: 2, seqLenQ: 77, seqLenK: 77, numHeads: 4, numKvHeads: 4, headDim: 64, causal: false },
  { name: 'MQA H/H_kv=8, causal, D=80, N=130', batch: 1, seqLenQ: 130, seqLenK: 130, numHeads: 8, numKvHeads: 1, headDim: 80, causal: true },
  { name: 'GQA H/H_kv=4, causal, N_q=33 < N_k=150, D=128', batch: 2, seqLenQ: 33, seqLenK: 150, numHeads: 8, numKvHeads: 2, headDim: 128, causal: true },
  { name: 'GQA, not causal, N_q=70 > N_k=45', batch: 1, seqLenQ: 70, seqLenK: 45, numHeads: 4, numKvHeads: 1, headDim: 64, causal: false },
  { name: 'sliding window 37, causal, D=80', batch: 1, seqLenQ: 200, seqLenK: 200, numHeads: 8, numKvHeads: 8, headDim: 80, causal: true, window: 37 },
  // D = 36 is no multiple of 8 or 16: K^T packing's register transposes (8 x 8 AVX2, 16 x 16
  // AVX-512) leave rows to the scalar remainder, and the accumulator's rescale a scalar tail.
  { name: 'head_dim 36, causal, N=71', batch: 1, seqLenQ: 71, seqLenK: 71, numHeads: 3, numKvHeads: 1, headDim: 36, causal: true },
  { name: 'sliding window 16, not causal, N_q < N_k', batch: 1, seqLenQ: 50, seqLenK: 90, numHeads: 2, numKvHeads: 1, headDim: 64, causal: false, window: 16 },
  { name: 'one query over 300 keys (decode shape), causal', batch: 1, seqLenQ: 1, seqLenK: 300, numHeads: 4, numKvHeads: 1, headDim: 128, causal: true },
  // A KV head's packed K^T and V, 9088 x 128 fp32 each = 9.3 MB, exceed one job's 8 MiB
  // (flash_fwd.cc kJobPackedBytes): each head is a job of its own, in the same buffers.
  { name: 'two KV heads of 9001 keys, one job each, causal N_q=3', batch: 1, seqLenQ: 3, seqLenK: 9001, numHeads: 4, numKvHeads: 2, headDim: 128, causal: true },
];

function flashArgs(c: FlashCase, dtype: AttnDType, simd: SimdPath, seed: number): FlashForwardArgs {
  const qn = c.batch * c.seqLenQ * c.numHeads * c.headDim;
  const kn = c.batch * c.seqLenK * c.numKvHeads * c.headDim;
  return {
    ...c,
    dtype,
    simd,
    q: encode(dtype, randomUniform(qn, seed)),
    k: encode(dtype, randomUniform(kn, seed + 1)),
    v: encode(dtype, randomUniform(kn, seed + 2)),
  };
}

async function assertMatchesReference(args: FlashForwardArgs, tol: number): Promise<void> {
  const [got, want] = await Promise.all([flashForward(args), referenceAttention(args)]);
  const errO = maxAbsDiff(got.o, want.o);
  const errLse = maxAbsDiff(got.lse, want.lse);
  assert.ok(errO <= tol, `max |O - O_ref| = ${errO} > ${tol}`);
  assert.ok(errLse <= tol * 4, `max |lse - lse_ref| = ${errLse} > ${tol * 4}`);
}

// Pages of a pool given out in a scattered order, as an allocator does after some churn.
function scatteredPages(numPages: number, seed: number): number[] {
  const order = Array.from({ length: numPages }, (_, i) => i);
  const r = randomUniform(numPages, seed, 0, 1);
  for (let i = numPages - 1; i > 0; i--) {
    const j = Math.floor(r[i]! * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

interface PagedSetup {
  args: PagedDecodeArgs;
  /** Each sequence's K and V as contiguous [len, H_kv, D] fp32 (what was written to pages). */
  contiguousK: Float32Array[];
  contiguousV: Float32Array[];
}

/**
 * Builds a pool whose every unfilled slot and unused page holds poison (NaN, then 1e30 in
 * alternating pages): a kernel reading one of them gives NaN or a huge error. With `window`,
 * the slots of tokens before each sequence's window stay poison too and the block-table entries
 * of pages wholly before it are -1, as vLLM releases them (args.window set).
 */
function pagedSetup(opts: {
  contextLens: number[];
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  pageSize: number;
  numPages: number;
  kvDtype: AttnDType;
  simd: SimdPath;
  seed: number;
  partitionTokens?: number;
  window?: number;
}): PagedSetup {
  const { contextLens, numHeads, numKvHeads, headDim, pageSize, numPages, seed } = opts;
  const batch = contextLens.length;
  const row = numKvHeads * headDim;
  const maxPagesPerSeq = Math.max(1, ...contextLens.map((l) => Math.ceil(l / pageSize))) + 1;
  const kPool = new Float32Array(numPages * pageSize * row);
  const vPool = new Float32Array(numPages * pageSize * row);
  for (let p = 0; p < numPages; p++) {
    kPool.fill(p % 2 === 0 ? Number.NaN : 1e30, p * pageSize * row, (p + 1) * pageSize * row);
    vPool.fill(p % 2 === 0 ? 1e30 : Number.NaN, p * pageSize * row, (p + 1) * pageSize * row);
  }
  const order = scatteredPages(numPages, seed);
  // Unused block-table entries point at a poisoned page that no sequence owns.
  const blockTable = new Int32Array(batch * maxPagesPerSeq).fill(order[numPages - 1]!);
  const contiguousK: Float32Array[] = [];
  const contiguousV: Float32Array[] = [];
  let next = 0;
  contextLens.forEach((len, b) => {
    const k = randomUniform(len * row, seed + 10 + b);
    const v = randomUniform(len * row, seed + 20 + b);
    contiguousK.push(k);
    contiguousV.push(v);
    const first = opts.window ? Math.max(0, len - opts.window) : 0; // first token in the window
    for (let t = 0; t < len; t++) {
      if (t % pageSize === 0) blockTable[b * maxPagesPerSeq + t / pageSize] = order[next++]!;
      if (t < first) continue;
      const page = blockTable[b * maxPagesPerSeq + Math.floor(t / pageSize)]!;
      const at = (page * pageSize + (t % pageSize)) * row;
      kPool.set(k.subarray(t * row, (t + 1) * row), at);
      vPool.set(v.subarray(t * row, (t + 1) * row), at);
    }
    blockTable.fill(-1, b * maxPagesPerSeq, b * maxPagesPerSeq + Math.floor(first / pageSize));
  });
  assert.ok(next < numPages, 'test pool too small');
  const qDtype: AttnDType = opts.kvDtype === 'fp32' ? 'fp32' : opts.kvDtype;
  return {
    args: {
      q: encode(qDtype, randomUniform(batch * numHeads * headDim, seed + 99)),
      kPages: encode(opts.kvDtype, kPool),
      vPages: encode(opts.kvDtype, vPool),
      blockTable,
      contextLens: Int32Array.from(contextLens),
      dtype: qDtype,
      kvDtype: opts.kvDtype,
      batch,
      numHeads,
      numKvHeads,
      headDim,
      numPages,
      pageSize,
      maxPagesPerSeq,
      simd: opts.simd,
      ...(opts.partitionTokens === undefined ? {} : { partitionTokens: opts.partitionTokens }),
      ...(opts.window === undefined ? {} : { window: opts.window }),
    },
    contiguousK,
    contiguousV,
  };
}

/**
 * The reference over each sequence's contiguous K/V (no pages involved): an independent check.
 * With a window, flash's mask with one query at position len − 1 (kernels.h), i.e. keys
 * [len − W, len) from the prefill reference, which knows nothing of pages.
 */
async function contiguousReference(s: PagedSetup, b: number): Promise<{ o: Float64Array; lse: Float64Array }> {
  const { numHeads, numKvHeads, headDim, kvDtype } = s.args;
  const dtype = kvDtype ?? 'fp32';
  const len = s.args.contextLens[b]!;
  const q = s.args.q.subarray(b * numHeads * headDim, (b + 1) * numHeads * headDim);
  return referenceAttention({
    q,
    k: encode(dtype, s.contiguousK[b]!),
    v: encode(dtype, s.contiguousV[b]!),
    dtype,
    batch: 1,
    seqLenQ: 1,
    seqLenK: len,
    numHeads,
    numKvHeads,
    headDim,
    window: s.args.window ?? 0,
  } as FlashForwardArgs);
}

/**
 * The same decode over the setup's pools repacked element by element into the vnni16 layout
 * through the TS model (kvPoolIndex), poison included: every slot of every page moves, and V's
 * 1e30 poison becomes NaN (the vnni16 step multiplies the V pair of a piece's last visible slot
 * and the stale one beside it by a P of 0, which hides 1e30 but not NaN).
 */
const [V_POISON_1E30, V_POISON_NAN] = toHalfBits('bf16', Float32Array.from([1e30, Number.NaN]));
function asVnni16(s: PagedSetup): PagedDecodeArgs {
  const { numPages, pageSize, numKvHeads, headDim } = s.args;
  const k = s.args.kPages as Uint16Array, v = s.args.vPages as Uint16Array;
  const kv = new Uint16Array(k.length), vv = new Uint16Array(v.length);
  for (let page = 0; page < numPages; page++) {
    for (let slot = 0; slot < pageSize; slot++) {
      for (let hk = 0; hk < numKvHeads; hk++) {
        for (let x = 0; x < headDim; x++) {
          const from = kvPoolIndex('NHD', false, pageSize, numKvHeads, headDim, page, slot, hk, x);
          kv[kvPoolIndex('vnni16', false, pageSize, numKvHeads, headDim, page, slot, hk, x)] = k[from]!;
          vv[kvPoolIndex('vnni16', true, pageSize, numKvHeads, headDim, page, slot, hk, x)] = v[from] === V_POISON_1E30 ? V_POISON_NAN : v[from]!;
        }
      }
    }
  }
  return { ...s.args, kPages: kv, vPages: vv, kvCacheLayout: 'vnni16' };
}

const paths = cpuInfo().simdPaths;

let longCase: { n: number; d: number; v: Float32Array; mean: Float64Array } | undefined;
/** 70000 keys of V (D = 16) and their column means, made once for every path. */
function longUniform(): { n: number; d: number; v: Float32Array; mean: Float64Array } {
  if (longCase === undefined) {
    const n = 70000, d = 16;
    const v = randomUniform(n * d, 79);
    const mean = new Float64Array(d);
    for (let j = 0; j < n; j++) for (let x = 0; x < d; x++) mean[x]! += v[j * d + x]! / n;
    longCase = { n, d, v, mean };
  }
  return longCase;
}

describe('cpuInfo', () => {
  it('names the CPU, its cores and at least the portable path', () => {
    const info = cpuInfo();
    assert.ok(info.model.length > 0);
    assert.ok(info.cores >= 1);
    assert.equal(info.simdPaths[0], 'scalar');
    assert.ok(info.simdPaths.includes(info.simd));
  });

  // The Linux kernel's own view of the CPU (it clears a flag when XCR0 lacks the state); the
  // paths need all the extensions their -m flags assume (binding.gyp).
  const cpuinfo = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
  const flagsLine = cpuinfo.split('\n').find((l) => l.startsWith('flags'));
  const wasm = cpuInfo().build === 'wasm';
  it('offers the x86 paths /proc/cpuinfo allows and the peaks\' CPU model', { skip: process.arch !== 'x64' || !flagsLine || wasm }, () => {
    const flags = new Set(flagsLine!.slice(flagsLine!.indexOf(':') + 1).trim().split(/\s+/));
    const avx2 = flags.has('avx2') && flags.has('fma');
    const avx512 = ['avx512f', 'avx512bw', 'avx512vl', 'avx512dq'].every((f) => flags.has(f));
    const bf16 = avx512 && flags.has('avx512_bf16');
    const expected = ['scalar', ...(avx2 ? ['avx2'] : []), ...(avx512 ? ['avx512'] : []), ...(bf16 ? ['avx512bf16'] : [])];
    const info = cpuInfo();
    assert.deepEqual(info.simdPaths, expected);
    assert.equal(info.features.includes('avx512dq'), avx512);
    assert.equal(info.features.includes('avx512_bf16'), bf16);
    assert.equal(info.model, cpuFeatures().model);
  });

  // ATTNSCOPE_BACKEND=wasm (npm test runs this file that way too): WebAssembly has no CPUID;
  // the build offers scalar and SIMD128, one thread, and names the host's CPU as Node does.
  it('in the WebAssembly build: scalar and simd128, one core, the host CPU\'s name, and why it runs', { skip: !wasm }, () => {
    const info = cpuInfo();
    assert.deepEqual(info.simdPaths, ['scalar', 'simd128']);
    assert.equal(info.simd, 'simd128');
    assert.equal(info.cores, 1);
    assert.deepEqual(info.features, ['simd128']);
    assert.equal(info.model, cpus()[0]!.model.trim());
    assert.ok(info.dispatch.every((c) => c.path === 'simd128' && c.unit === 'fp32-fma'));
    assert.match(info.buildReason ?? '', /ATTNSCOPE_BACKEND=wasm|native addon/);
  });

  // AArch64 has NEON in its base ISA (the arm64 build compiles simd/ops_neon.cc in): the build
  // offers scalar and neon and sends every kernel and dtype to neon, on its FMA unit.
  it('in the linux-arm64 build: scalar and neon, every kernel and dtype on neon', { skip: process.arch !== 'arm64' || wasm }, () => {
    const info = cpuInfo();
    assert.deepEqual(info.simdPaths, ['scalar', 'neon']);
    assert.equal(info.simd, 'neon');
    assert.ok(info.features.includes('neon'));
    assert.equal(info.dispatch.length, 6);
    assert.ok(info.dispatch.every((c) => c.path === 'neon' && c.unit === 'fp32-fma'));
  });

  it('dispatches every (kernel, dtype) to a path this CPU runs, fp32 to the widest', () => {
    const info = cpuInfo();
    assert.equal(info.dispatch.length, 6);
    // ATTNSCOPE_SIMD naming a path this CPU has puts every kernel and dtype on it (the reference
    // tests are run under each override); else fp32 goes to the widest FMA path.
    const forced = info.simdPaths.find((p) => p === process.env.ATTNSCOPE_SIMD);
    const widest = forced ?? (info.simdPaths.at(-1) === 'avx512bf16' ? 'avx512' : info.simdPaths.at(-1));
    for (const c of info.dispatch) {
      assert.ok(info.simdPaths.includes(c.path), `${c.kernel}/${c.dtype} -> ${c.path}`);
      // vdpbf16ps only does bf16 products: any other dtype is on the FMA path.
      assert.equal(c.unit, c.path === 'scalar' ? 'scalar' : c.path === 'avx512bf16' && c.dtype === 'bf16' ? 'avx512-bf16' : 'fp32-fma');
      if (c.dtype !== 'bf16') assert.equal(c.path, widest, `${c.kernel}/${c.dtype}`);
    }
    assert.equal(dispatchFor('flash_fwd', 'fp32').path, info.simd);
    assert.ok(info.dispatchReason.length > 0);
  });

  it('ATTNSCOPE_SIMD overrides the choice for every kernel and dtype', () => {
    const saved = process.env.ATTNSCOPE_SIMD;
    process.env.ATTNSCOPE_SIMD = 'scalar';
    try {
      const info = cpuInfo();
      assert.deepEqual(new Set(info.dispatch.map((c) => `${c.path}/${c.unit}`)), new Set(['scalar/scalar']));
      assert.match(info.dispatchReason, /ATTNSCOPE_SIMD=scalar/);
    } finally {
      if (saved === undefined) delete process.env.ATTNSCOPE_SIMD;
      else process.env.ATTNSCOPE_SIMD = saved;
    }
    // Read again once the variable is gone: the choice comes back.
    if (saved === undefined) assert.equal(cpuInfo().simd, paths.at(-1) === 'avx512bf16' ? 'avx512' : paths.at(-1));
  });

  // s51 newcomer (a) 1: ATTNSCOPE_SIMD=amx (no AMX here), =bogus and =AVX2 were silently ignored.
  it('ATTNSCOPE_SIMD: any case; a name of no path or a path this CPU lacks is ignored with a warning naming the paths it has', () => {
    const saved = process.env.ATTNSCOPE_SIMD;
    // The choice without the variable (the suite may run under an override: npm test's ATTNSCOPE_SIMD runs).
    delete process.env.ATTNSCOPE_SIMD;
    const unset = cpuInfo().dispatch;
    const withSimd = (value: string) => {
      process.env.ATTNSCOPE_SIMD = value;
      return cpuInfo();
    };
    try {
      const upper = withSimd(' SCALAR ');
      assert.deepEqual(new Set(upper.dispatch.map((c) => c.path)), new Set(['scalar']));
      assert.deepEqual(upper.simdOverride, { value: 'SCALAR', applied: true });
      // One text for a name of no path and a path this CPU lacks; with "warning: " before it, within 100 columns
      // for any path name on this CPU (s52: "...: this CPU has no amx path (it has ...); ignored" was 104 on a Zen 5).
      const bogus = withSimd('bogus');
      assert.deepEqual(bogus.dispatch, unset);
      assert.equal(bogus.simdOverride?.applied, false);
      assert.equal(bogus.simdOverride?.warning, `ATTNSCOPE_SIMD=bogus ignored: this CPU's paths: ${paths.join(', ')}`);
      const lacked = (['amx', 'neon', 'avx512bf16', 'avx2'] as const).find((p) => !paths.includes(p))!;
      const lacking = withSimd(lacked);
      assert.deepEqual(lacking.dispatch, unset);
      assert.equal(lacking.simdOverride?.warning, `ATTNSCOPE_SIMD=${lacked} ignored: this CPU's paths: ${paths.join(', ')}`);
      for (const name of ['scalar', 'avx2', 'avx512', 'avx512bf16', 'amx', 'simd128', 'neon']) {
        const w = withSimd(name).simdOverride?.warning;
        if (w !== undefined) assert.ok(`warning: ${w}`.length <= 100, w);
      }
      assert.doesNotMatch(lacking.dispatchReason, /ATTNSCOPE_SIMD/);
    } finally {
      if (saved === undefined) delete process.env.ATTNSCOPE_SIMD;
      else process.env.ATTNSCOPE_SIMD = saved;
    }
    if (saved === undefined) assert.equal(cpuInfo().simdOverride, undefined);
  });

  // s51 newcomer (a) 2: a one-thread calibration under load flipped bf16 between vdpbf16ps and FMA
  // (403.8 vs 204.4 GFLOP/s in one run, 113.1 vs ~200 in the next). Figures injected: nothing is timed.
  it('chooses the bf16 path from the table for known CPUs, else from the best of alternated rounds with a 1.2x margin', () => {
    // Zen 5 and Zen 4 (AMD family 26, 25): vdpbf16ps whatever a loaded calibration would say.
    for (const family of [25, 26]) {
      const c = chooseBf16Path({ vendor: 'AuthenticAMD', family, dotRounds: [1.131e11], fmaRounds: [2.044e11] });
      assert.deepEqual(c, { path: 'avx512bf16', how: 'table', dotFlopsPerSec: 0, fmaFlopsPerSec: 0 });
    }
    const intel = (dotRounds: number[], fmaRounds: number[]) => chooseBf16Path({ vendor: 'GenuineIntel', family: 6, dotRounds, fmaRounds });
    // A neighbour's burst in one vdpbf16ps round (1.131e11) does not decide: the best round does, 4.038e11 >= 1.2 · 2.044e11 = 2.453e11.
    assert.deepEqual(intel([1.131e11, 4.038e11, 3.9e11], [2.0e11, 2.044e11, 1.1e11]), { path: 'avx512bf16', how: 'measured', dotFlopsPerSec: 4.038e11, fmaFlopsPerSec: 2.044e11 });
    // 1.15x (2.3e11 / 2.0e11) is inside the margin: the FMA path. A third of the FMA rate (Sapphire Rapids-like): FMA.
    assert.equal(intel([2.3e11, 2.2e11], [2.0e11, 1.9e11]).path, 'avx512');
    assert.equal(intel([0.7e11], [2.1e11]).path, 'avx512');
    // No usable round: the FMA path, said as such.
    assert.deepEqual(intel([], []), { path: 'avx512', how: 'none', dotFlopsPerSec: 0, fmaFlopsPerSec: 0 });
    assert.equal(intel([3e11], [0]).how, 'none');
    assert.throws(() => chooseBf16Path({ vendor: 'GenuineIntel', family: 6, dotRounds: ['1'] as unknown as number[], fmaRounds: [] }), TypeError);
  });

  it('on a CPU in the table, takes vdpbf16ps for bf16 without measuring, and says so', { skip: wasm || !paths.includes('avx512bf16') }, () => {
    const cpuinfo = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
    const family = Number(/^cpu family\s*:\s*(\d+)/m.exec(cpuinfo)?.[1]);
    if (cpuFeatures().vendor !== 'AuthenticAMD' || (family !== 25 && family !== 26) || process.env.ATTNSCOPE_SIMD) return;
    const info = cpuInfo();
    assert.equal(dispatchFor('paged_decode', 'bf16').path, 'avx512bf16');
    assert.match(info.dispatchReason, new RegExp(`^bf16 on avx512bf16: from the table of known CPUs \\(AuthenticAMD family ${family}: .*not measured in this process`));
  });
});

describe('flashForward bf16 on the AMX tiling (scalar tile model, any CPU)', () => {
  // The tiles take head_dim in multiples of 32 and 16-row blocks: these cases have rows
  // (group x queries) that are not multiples of 16, key tails, GQA, masks and windows.
  const tiled = FLASH_CASES.filter((c) => c.headDim % 32 === 0);
  for (const c of tiled) {
    it(`bf16 ${c.name}: within P's bf16 rounding of the fp64 reference`, async () => {
      const args = flashArgs(c, 'bf16', 'amx-model', 11000);
      const [got, want, portable] = await Promise.all([
        flashForward(args), referenceAttention(args), flashForward({ ...args, simd: 'scalar' }),
      ]);
      // |V| <= 1 here, so rounding P (in [0, 1]) to bf16, relative error 2^-9, moves O by at
      // most 2^-9 (flash_fwd.cc); fp32 accumulation adds ~1e-6.
      assert.ok(maxAbsDiff(got.o, want.o) <= 2 ** -9 + 1e-5, `max |O - O_ref| = ${maxAbsDiff(got.o, want.o)}`);
      assert.ok(maxAbsDiff(got.lse, want.lse) <= 1e-4, `max |lse - lse_ref| = ${maxAbsDiff(got.lse, want.lse)}`);
      // The tiles ran: the portable path keeps P in fp32, so the two differ (by P's rounding).
      assert.ok(maxAbsDiff(got.o, portable.o) > 0, 'amx-model gave the portable fp32-P result: the tile path did not run');
    });
  }

  const amxSkip = paths.includes('amx')
    ? false
    : `no AMX on this machine (${cpuInfo().model}; CPU features: ${cpuInfo().features.join(' ') || 'none'}); the tiling runs on the model above`;
  it('real AMX tiles agree with the tile model within fp32 accumulation order', { skip: amxSkip }, async () => {
    for (const c of tiled) {
      const args = flashArgs(c, 'bf16', 'amx', 12000);
      const [real, model] = await Promise.all([flashForward(args), flashForward({ ...args, simd: 'amx-model' })]);
      assert.ok(maxAbsDiff(real.o, model.o) <= 1e-5, `${c.name}: max |O_amx - O_model| = ${maxAbsDiff(real.o, model.o)}`);
    }
  });
});

// Every path this CPU runs, and the AMX tiling on the scalar tile model (any CPU).
for (const simd of [...paths, 'amx-model' as const]) {
  describe(`flashForward [${simd}]`, () => {
    for (const c of FLASH_CASES) {
      it(`fp32 ${c.name}`, async () => {
        await assertMatchesReference(flashArgs(c, 'fp32', simd, 1000), FP32_TOL);
      });
    }

    for (const dtype of ['fp16', 'bf16'] as const) {
      it(`${dtype} GQA causal and sliding window, tolerance of ${dtype} rounding`, async () => {
        await assertMatchesReference(flashArgs(FLASH_CASES[2]!, dtype, simd, 2000), HALF_TOL[dtype]);
        await assertMatchesReference(flashArgs(FLASH_CASES[4]!, dtype, simd, 3000), HALF_TOL[dtype]);
      });
    }

    it('fully masked rows (N_q > N_k, causal) give O = 0 and lse = -inf', async () => {
      // Bottom-right alignment: query i sees keys j <= i + 40 - 150, so queries 0..109 see none.
      const c: FlashCase = { name: '', batch: 1, seqLenQ: 150, seqLenK: 40, numHeads: 4, numKvHeads: 1, headDim: 64, causal: true };
      const args = flashArgs(c, 'fp32', simd, 4000);
      const got = await flashForward(args);
      for (let h = 0; h < 4; h++) {
        for (let i = 0; i < 150; i++) {
          const lse = got.lse[h * 150 + i]!;
          const row = got.o.subarray((i * 4 + h) * 64, (i * 4 + h + 1) * 64);
          if (i < 110) {
            assert.equal(lse, -Infinity, `lse of masked query ${i}, head ${h}`);
            assert.ok(row.every((x) => x === 0), `O of masked query ${i}, head ${h}`);
          } else {
            assert.ok(Number.isFinite(lse), `lse of query ${i}, head ${h}`);
          }
        }
      }
      await assertMatchesReference(args, FP32_TOL);
    });

    it('a causal decode query (N_q = 1) sees every key, not only key 0 (bottom-right alignment)', async () => {
      // q = 0 makes every score 0, so O is the mean of V over all keys and lse = ln(N_k);
      // top-left alignment would give O = V[0] and lse = 0.
      const n = 300, d = 64;
      const v = randomUniform(n * d, 77);
      const got = await flashForward({
        q: new Float32Array(d), k: randomUniform(n * d, 78), v, batch: 1, seqLenQ: 1, seqLenK: n,
        numHeads: 1, numKvHeads: 1, headDim: d, causal: true, simd,
      });
      const mean = new Float64Array(d);
      for (let j = 0; j < n; j++) for (let x = 0; x < d; x++) mean[x]! += v[j * d + x]! / n;
      assert.ok(maxAbsDiff(got.o, mean) < 1e-6);
      assert.ok(Math.abs(got.lse[0]! - Math.log(n)) < 1e-5);
    });

    it('running sum past fp16 range: 70000 equal scores give lse = ln(70000), O = mean(V)', async () => {
      // A sum l kept in fp16 overflows at 65504 (O = 0 or NaN); fp32 keeps it exact enough.
      const { n, d, v, mean } = longUniform();
      const got = await flashForward({
        q: new Float32Array(d), k: new Float32Array(n * d), v, batch: 1, seqLenQ: 1, seqLenK: n,
        numHeads: 1, numKvHeads: 1, headDim: d, simd,
      });
      assert.ok(maxAbsDiff(got.o, mean) < 1e-5, `O vs mean(V): ${maxAbsDiff(got.o, mean)}`);
      assert.ok(Math.abs(got.lse[0]! - Math.log(n)) < 1e-4, `lse ${got.lse[0]} vs ${Math.log(n)}`);
    });

    it('scores beyond fp16 range (|s| ~ 1e5): running max in fp32', async () => {
      // softmaxScale 2000 makes scores up to ~1e5; a max kept in fp16 overflows to inf (NaN out).
      const c: FlashCase = { name: '', batch: 1, seqLenQ: 20, seqLenK: 90, numHeads: 2, numKvHeads: 1, headDim: 64, causal: true };
      const args = { ...flashArgs(c, 'fp32', simd, 5000), softmaxScale: 2000 };
      const [got, want] = await Promise.all([flashForward(args), referenceAttention(args)]);
      assert.ok(maxAbsDiff(got.o, want.o) < 1e-4);
      for (let i = 0; i < got.lse.length; i++) {
        assert.ok(Math.abs(got.lse[i]! - want.lse[i]!) <= 1e-6 * Math.abs(want.lse[i]!) + 1e-3);
      }
    });

    it('GQA: heads read the K/V head of their group, and V (not K) is what is averaged', async () => {
      // H = 8, H_kv = 2: heads 0..3 use KV head 0 (V = 1), heads 4..7 use KV head 1 (V = 2).
      // K differs from V, so a kernel that used K as V would not give exactly 1 and 2.
      const n = 45, d = 80;
      const v = new Float32Array(n * 2 * d);
      for (let j = 0; j < n; j++) {
        v.fill(1, (j * 2) * d, (j * 2 + 1) * d);
        v.fill(2, (j * 2 + 1) * d, (j * 2 + 2) * d);
      }
      const got = await flashForward({
        q: randomUniform(3 * 8 * d, 81), k: randomUniform(n * 2 * d, 82), v, batch: 1, seqLenQ: 3, seqLenK: n,
        numHeads: 8, numKvHeads: 2, headDim: d, causal: true, simd,
      });
      for (let i = 0; i < 3; i++) {
        for (let h = 0; h < 8; h++) {
          const row = got.o.subarray((i * 8 + h) * d, (i * 8 + h + 1) * d);
          const want = h < 4 ? 1 : 2;
          assert.ok(row.every((x) => Math.abs(x - want) < 1e-6), `query ${i} head ${h}: ${row[0]} != ${want}`);
        }
      }
    });
  });

  describe(`pagedDecode [${simd}]`, () => {
    it('scattered pages, partial last pages, poison in unfilled slots and unused pages', async () => {
      const s = pagedSetup({
        contextLens: [1, 37, 300, 16], numHeads: 8, numKvHeads: 2, headDim: 128, pageSize: 16,
        numPages: 64, kvDtype: 'fp32', simd, seed: 6000,
      });
      const [got, want] = await Promise.all([pagedDecode(s.args), referencePagedDecode(s.args)]);
      assert.ok(maxAbsDiff(got.o, want.o) <= FP32_TOL, `O error ${maxAbsDiff(got.o, want.o)}`);
      assert.ok(maxAbsDiff(got.lse, want.lse) <= FP32_TOL * 4);
      for (let b = 0; b < 4; b++) {
        const ref = await contiguousReference(s, b);
        const o = got.o.subarray(b * 8 * 128, (b + 1) * 8 * 128);
        assert.ok(maxAbsDiff(o, ref.o) <= FP32_TOL, `sequence ${b} vs contiguous reference`);
      }
    });

    it('split-K partitions merged through lse give the same result for any partition size', async () => {
      for (const partitionTokens of [16, 48, 256, 4096]) {
        const s = pagedSetup({
          contextLens: [700, 333], numHeads: 4, numKvHeads: 4, headDim: 64, pageSize: 16,
          numPages: 80, kvDtype: 'fp32', simd, seed: 7000, partitionTokens,
        });
        const [got, want] = await Promise.all([pagedDecode(s.args), referencePagedDecode(s.args)]);
        assert.ok(maxAbsDiff(got.o, want.o) <= FP32_TOL, `partitionTokens ${partitionTokens}`);
        assert.ok(maxAbsDiff(got.lse, want.lse) <= FP32_TOL * 4, `lse, partitionTokens ${partitionTokens}`);
      }
    });

    it('pages reused after a free: the stale K/V left in them is never read', async () => {
      // Sequence A fills pages 3, 9, 5 (48 tokens) and is freed; B reuses 9 and 5 for 20
      // tokens, so slots 4..15 of page 5 still hold A's keys. B must equal the reference over
      // B's own 20 tokens, computed without pages.
      const numHeads = 4, numKvHeads = 2, headDim = 64, pageSize = 16, numPages = 12;
      const row = numKvHeads * headDim;
      const kPool = new Float32Array(numPages * pageSize * row);
      const vPool = new Float32Array(numPages * pageSize * row);
      const aK = randomUniform(48 * row, 8001, 5, 9); // A's keys: large, so reading one changes O
      const aV = randomUniform(48 * row, 8002, 50, 90);
      [3, 9, 5].forEach((page, i) => {
        kPool.set(aK.subarray(i * 16 * row, (i + 1) * 16 * row), page * pageSize * row);
        vPool.set(aV.subarray(i * 16 * row, (i + 1) * 16 * row), page * pageSize * row);
      });
      const bK = randomUniform(20 * row, 8003);
      const bV = randomUniform(20 * row, 8004);
      [9, 5].forEach((page, i) => {
        const n = Math.min(16, 20 - i * 16);
        kPool.set(bK.subarray(i * 16 * row, (i * 16 + n) * row), page * pageSize * row);
        vPool.set(bV.subarray(i * 16 * row, (i * 16 + n) * row), page * pageSize * row);
      });
      const q = randomUniform(numHeads * headDim, 8005, 0, 1);
      const got = await pagedDecode({
        q, kPages: kPool, vPages: vPool, blockTable: Int32Array.from([9, 5, 3]), contextLens: Int32Array.from([20]),
        batch: 1, numHeads, numKvHeads, headDim, numPages, pageSize, maxPagesPerSeq: 3, simd,
      });
      const want = await referenceAttention({
        q, k: bK, v: bV, batch: 1, seqLenQ: 1, seqLenK: 20, numHeads, numKvHeads, headDim,
      });
      assert.ok(maxAbsDiff(got.o, want.o) <= FP32_TOL, `O error ${maxAbsDiff(got.o, want.o)}`);
      assert.ok(maxAbsDiff(got.lse, want.lse) <= FP32_TOL * 4);
    });

    it('a sequence with context 0 gives O = 0 and lse = -inf', async () => {
      const s = pagedSetup({
        contextLens: [0, 5], numHeads: 2, numKvHeads: 1, headDim: 64, pageSize: 8,
        numPages: 4, kvDtype: 'fp32', simd, seed: 9000,
      });
      const got = await pagedDecode(s.args);
      assert.equal(got.lse[0], -Infinity);
      assert.equal(got.lse[1], -Infinity);
      assert.ok(got.o.subarray(0, 128).every((x) => x === 0));
      assert.ok(Number.isFinite(got.lse[2]!));
    });

    // The fused page steps at their edges. AVX512-BF16 (bf16 pages): groups of 4 rows, blocks of
    // 16 tokens, token pairs, pages cut into pieces of 16 tokens (paged_decode.cc kPieceTokens:
    // 128-token pages, vLLM's CPU default, are 8 pieces; 24-token pages a piece of 16 and one
    // of 8, so read groups of 4 pieces straddle pages); AVX2 (bf16 and fp16 pages): blocks of
    // 4 rows (the last one group mod 4 rows) x 2 tokens for the scores, 4 rows x 16 columns for
    // P V. 1-3 tokens left in a block, an odd tail, pages of 5 / 8 / 24 / 32 / 128 tokens,
    // head_dim 32, 96 and 256, groups of 2, 3, 4, 7 (Qwen2.5-7B), 8 and 12, and group 1 (MHA:
    // the per-head path), q in fp32 or bf16 / fp16, split-K partitions; unfilled slots hold
    // NaN / 1e30, so reading one fails the comparison, and so does an output taken from a
    // padded row or from another head's row.
    const fusedCases = [
      { pageSize: 128, group: 4, headDim: 128, qFp32: false },
      { pageSize: 128, group: 8, headDim: 64, qFp32: true, partitionTokens: 128 },
      { pageSize: 24, group: 4, headDim: 64, qFp32: false },
      { pageSize: 128, group: 4, headDim: 128, qFp32: false, kvDtype: 'fp16' as const },
      { pageSize: 5, group: 4, headDim: 64, qFp32: false },
      { pageSize: 8, group: 4, headDim: 96, qFp32: true },
      { pageSize: 16, group: 12, headDim: 32, qFp32: false },
      { pageSize: 32, group: 8, headDim: 128, qFp32: true },
      { pageSize: 16, group: 2, headDim: 128, qFp32: false },
      { pageSize: 8, group: 3, headDim: 64, qFp32: true },
      { pageSize: 16, group: 7, headDim: 128, qFp32: true },
      { pageSize: 16, group: 1, headDim: 64, qFp32: false },
      { pageSize: 16, group: 8, headDim: 256, qFp32: false, partitionTokens: 48 },
      { pageSize: 16, group: 4, headDim: 128, qFp32: false, kvDtype: 'fp16' as const },
      { pageSize: 8, group: 7, headDim: 256, qFp32: true, kvDtype: 'fp16' as const, partitionTokens: 64 },
      { pageSize: 5, group: 3, headDim: 64, qFp32: false, kvDtype: 'fp16' as const },
      { pageSize: 16, group: 2, headDim: 32, qFp32: true, kvDtype: 'fp16' as const, partitionTokens: 16 },
    ];
    for (const c of fusedCases) {
      const kvDtype = c.kvDtype ?? 'bf16';
      const split = c.partitionTokens === undefined ? '' : `, partitions of ${c.partitionTokens} tokens`;
      it(`${kvDtype} pages of ${c.pageSize} tokens, group ${c.group}, head_dim ${c.headDim}, ${c.qFp32 ? 'fp32' : kvDtype} q${split}: within ${kvDtype} rounding`, async () => {
        const s = pagedSetup({
          contextLens: [1, 3, 18, 37, 300], numHeads: 2 * c.group, numKvHeads: 2, headDim: c.headDim, pageSize: c.pageSize,
          numPages: Math.ceil(400 / c.pageSize) + 10, kvDtype, simd, seed: 11000 + c.pageSize,
          ...(c.partitionTokens === undefined ? {} : { partitionTokens: c.partitionTokens }),
        });
        const args = c.qFp32 ? { ...s.args, dtype: 'fp32' as const, q: randomUniform(5 * 2 * c.group * c.headDim, 11099) } : s.args;
        const [got, want] = await Promise.all([pagedDecode(args), referencePagedDecode(args)]);
        assert.ok(maxAbsDiff(got.o, want.o) <= HALF_TOL[kvDtype], `O error ${maxAbsDiff(got.o, want.o)}`);
        assert.ok(maxAbsDiff(got.lse, want.lse) <= HALF_TOL[kvDtype] * 4, `lse error ${maxAbsDiff(got.lse, want.lse)}`);
      });
    }

    // Sliding window (kernels.h: the query at position L − 1 sees keys j > L − 1 − W, flash's
    // mask with one query, as vLLM / flash-attn window_size_left = W − 1): windows below, equal
    // to and above the contexts [1, 37, 130, 300], most starting inside a page (300 − 50 = 250 =
    // page 15 slot 10 at 16 tokens a page). The slots before each window hold NaN / 1e30 and the
    // table entries of pages wholly before it are -1, so a kernel that read one (or planned its
    // pages from token 0) fails. Expected: the prefill reference over the contiguous K/V with
    // the same window, and the paged reference. Per-head fp32 and bf16 (group 1), the fused
    // steps (bf16 / fp16, groups 3 and 4, pages of 5, 16 and 128: a window of 50 over 300 tokens
    // starts at slot 122 of a 128-token page, inside its last piece), split-K partitions of 32,
    // 48 and 256.
    const windowCases = [
      { kvDtype: 'bf16' as const, group: 4, pageSize: 128 },
      { kvDtype: 'bf16' as const, group: 4, pageSize: 128, partitionTokens: 256 },
      { kvDtype: 'fp32' as const, group: 4, pageSize: 16 },
      { kvDtype: 'fp32' as const, group: 4, pageSize: 16, partitionTokens: 32 },
      { kvDtype: 'bf16' as const, group: 1, pageSize: 16 },
      { kvDtype: 'bf16' as const, group: 4, pageSize: 16, partitionTokens: 48 },
      { kvDtype: 'fp16' as const, group: 3, pageSize: 5 },
    ];
    for (const c of windowCases) {
      const split = c.partitionTokens === undefined ? '' : `, partitions of ${c.partitionTokens} tokens`;
      it(`sliding window, ${c.kvDtype} pages of ${c.pageSize} tokens, group ${c.group}${split}: only the window is read`, async () => {
        const contextLens = [1, 37, 130, 300];
        for (const window of [1, 7, 37, 50, 128, 300, 1000]) {
          const s = pagedSetup({
            contextLens, numHeads: 2 * c.group, numKvHeads: 2, headDim: 64, pageSize: c.pageSize,
            numPages: Math.ceil(500 / c.pageSize) + 10, kvDtype: c.kvDtype, simd, seed: 12000 + window, window,
            ...(c.partitionTokens === undefined ? {} : { partitionTokens: c.partitionTokens }),
          });
          const [got, want] = await Promise.all([pagedDecode(s.args), referencePagedDecode(s.args)]);
          const tol = HALF_TOL[c.kvDtype];
          assert.ok(maxAbsDiff(got.o, want.o) <= tol, `window ${window}: O error ${maxAbsDiff(got.o, want.o)}`);
          assert.ok(maxAbsDiff(got.lse, want.lse) <= tol * 4, `window ${window}: lse error ${maxAbsDiff(got.lse, want.lse)}`);
          const hd = 2 * c.group * 64;
          for (let b = 0; b < contextLens.length; b++) {
            const ref = await contiguousReference(s, b);
            const o = got.o.subarray(b * hd, (b + 1) * hd);
            assert.ok(maxAbsDiff(o, ref.o) <= tol, `window ${window}, context ${contextLens[b]}: ${maxAbsDiff(o, ref.o)} from the prefill reference`);
          }
        }
      });
    }

    // vnni16 pools (tokens in lanes; the AVX512-BF16 step, elsewhere the scalar model): the
    // setup's pools (poison in every unfilled slot) repacked through kvPoolIndex, against the
    // paged reference over the NHD originals and the one over the repacked pools. Pieces of 1,
    // 3, 2 + 16 tokens, a 300-token tail, pages of 16, 32 and 128 tokens, head_dim 32 (P V in
    // 32 columns only), 96 (64 + 32), 128 and 256 (P V of all 4 rows in two passes of 128
    // columns, the second from column 128), groups 1 (the scalar model on every path), 2 and
    // 7 (padded to 4 and 8 rows), 4 and 8, q in fp32 or bf16, partitions, and windows that start
    // inside a piece (300 − 50 = slot 122 of a 128-token page); 3 KV heads of group 12, head_dim
    // 160 (P V in 128 + 32 columns): 9 blocks of (KV head, 4 rows), one more than the step's
    // batch of 8, whose last head's blocks fall on both sides of it.
    const vnniCases: { pageSize: number; group: number; headDim: number; qFp32: boolean; partitionTokens?: number; window?: number; numKvHeads?: number }[] = [
      { pageSize: 16, group: 4, headDim: 128, qFp32: false },
      { pageSize: 128, group: 8, headDim: 64, qFp32: true, partitionTokens: 128 },
      { pageSize: 32, group: 2, headDim: 32, qFp32: false },
      { pageSize: 16, group: 7, headDim: 96, qFp32: true },
      { pageSize: 16, group: 1, headDim: 64, qFp32: false },
      { pageSize: 128, group: 4, headDim: 128, qFp32: false, window: 50 },
      { pageSize: 16, group: 4, headDim: 64, qFp32: false, window: 7, partitionTokens: 48 },
      { pageSize: 16, group: 12, headDim: 160, qFp32: false, numKvHeads: 3 },
      { pageSize: 16, group: 4, headDim: 256, qFp32: true },
    ];
    for (const c of vnniCases) {
      const kvHeads = c.numKvHeads ?? 2;
      const extra = `${c.partitionTokens === undefined ? '' : `, partitions of ${c.partitionTokens} tokens`}${c.window === undefined ? '' : `, window ${c.window}`}${kvHeads === 2 ? '' : `, ${kvHeads} KV heads`}`;
      it(`vnni16 pools of ${c.pageSize} tokens, group ${c.group}, head_dim ${c.headDim}, ${c.qFp32 ? 'fp32' : 'bf16'} q${extra}: as NHD's reference`, { skip: cpuInfo().build === 'wasm' ? 'the WebAssembly build reads NHD pools only' : false }, async () => {
        const s = pagedSetup({
          contextLens: [1, 3, 18, 37, 300], numHeads: kvHeads * c.group, numKvHeads: kvHeads, headDim: c.headDim, pageSize: c.pageSize,
          numPages: Math.ceil(400 / c.pageSize) + 10, kvDtype: 'bf16', simd, seed: 13000 + c.pageSize,
          ...(c.partitionTokens === undefined ? {} : { partitionTokens: c.partitionTokens }),
          ...(c.window === undefined ? {} : { window: c.window }),
        });
        const nhd = c.qFp32 ? { ...s.args, dtype: 'fp32' as const, q: randomUniform(5 * kvHeads * c.group * c.headDim, 13099) } : s.args;
        const vnni = { ...asVnni16(s), dtype: nhd.dtype, q: nhd.q };
        const [got, want, wantVnni] = await Promise.all([pagedDecode(vnni), referencePagedDecode(nhd), referencePagedDecode(vnni)]);
        assert.deepEqual(wantVnni.o, want.o, 'the reference reads the repacked pools as the originals');
        assert.ok(maxAbsDiff(got.o, want.o) <= HALF_TOL.bf16, `O error ${maxAbsDiff(got.o, want.o)}`);
        assert.ok(maxAbsDiff(got.lse, want.lse) <= HALF_TOL.bf16 * 4, `lse error ${maxAbsDiff(got.lse, want.lse)}`);
      });
    }

    it('vnni16: NaN in the stale slots beside a piece\'s first and last visible slots does not leak', { skip: cpuInfo().build === 'wasm' ? 'the WebAssembly build reads NHD pools only' : false }, async () => {
      // One KV head, head_dim 32, 4 query heads; page 1 holds tokens 0-2 of a context of 3
      // (slots 0-2 = 0.5 in K, slot t's V = t + 1), every other slot NaN in K and V. With a window
      // of 2 the visible slots are 1 and 2, so the V pairs (0, 1) and (2, 3) each hold a NaN
      // slot. Expected, by hand: equal scores, so O = the mean of the visible V: (1 + 2 + 3) / 3
      // = 2 without a window, (2 + 3) / 2 = 2.5 with it.
      const ps = 16, d = 32, np = 2;
      const k = new Uint16Array(np * ps * d), v = new Uint16Array(np * ps * d);
      const [nan, half] = toHalfBits('bf16', Float32Array.from([Number.NaN, 0.5]));
      k.fill(nan!);
      v.fill(nan!);
      for (let slot = 0; slot < 3; slot++) {
        const value = toHalfBits('bf16', Float32Array.from([slot + 1]))[0]!;
        for (let x = 0; x < d; x++) {
          k[kvPoolIndex('vnni16', false, ps, 1, d, 1, slot, 0, x)] = half!;
          v[kvPoolIndex('vnni16', true, ps, 1, d, 1, slot, 0, x)] = value;
        }
      }
      for (const [window, mean] of [[0, 2], [2, 2.5]] as const) {
        const got = await pagedDecode({
          q: toHalfBits('bf16', new Float32Array(4 * d).fill(0.25)), kPages: k, vPages: v, blockTable: Int32Array.from([1]),
          contextLens: Int32Array.from([3]), dtype: 'bf16', kvDtype: 'bf16', kvCacheLayout: 'vnni16', batch: 1, numHeads: 4, numKvHeads: 1,
          headDim: d, numPages: np, pageSize: ps, maxPagesPerSeq: 1, window, simd,
        });
        assert.ok(got.o.every((o) => Math.abs(o - mean) < 1e-6), `window ${window}: ${got.o.slice(0, 4).join(', ')}`);
      }
    });

    for (const [kvDtype, pageSize] of [['bf16', 16], ['fp16', 16], ['bf16', 128]] as const) {
      it(`${kvDtype} page pools of ${pageSize} tokens, GQA H/H_kv = 8, long context split`, async () => {
        const s = pagedSetup({
          contextLens: [1500, 77], numHeads: 8, numKvHeads: 1, headDim: 128, pageSize,
          numPages: Math.ceil(1760 / pageSize), kvDtype, simd, seed: 10000,
        });
        const [got, want] = await Promise.all([pagedDecode(s.args), referencePagedDecode(s.args)]);
        assert.ok(maxAbsDiff(got.o, want.o) <= HALF_TOL[kvDtype], `O error ${maxAbsDiff(got.o, want.o)}`);
        assert.ok(maxAbsDiff(got.lse, want.lse) <= HALF_TOL[kvDtype] * 4);
      });
    }
  });
}

describe('KV pool layouts and writeKvCache (reshape_and_cache)', () => {
  it('kvPoolIndex: NHD row-major; vnni16 K as vLLM\'s AMX key token groups, V in token pairs', () => {
    // pageSize 32, 2 KV heads, head_dim 32; page 1, slot 17, head 1, dim 3. NHD: ((1·32 + 17)·2
    // + 1)·32 + 3 = 3171. vnni16: slot 17 is slot 1 of the piece of slots 16-31, whose K starts
    // where NHD's slot 16 does, (1·32 + 16)·2·32 = 3072, head 1's block 16·32 = 512 after it;
    // K: the 32-bit word of dim pair ⌊3/2⌋ = 1 of token 1 is word 1·16 + 1 (vLLM
    // cpu_attn_amx.hpp reshape_and_cache: quad-word j of a token at j · 16 + its offset in
    // the group), element 2·17 + 3 % 2 = 35: 3072 + 512 + 35 = 3619; V: token pair ⌊1/2⌋ = 0,
    // dim 3, odd token: (0·32 + 3)·2 + 1 = 7: 3591.
    assert.equal(kvPoolIndex('NHD', false, 32, 2, 32, 1, 17, 1, 3), 3171);
    assert.equal(kvPoolIndex('vnni16', false, 32, 2, 32, 1, 17, 1, 3), 3619);
    assert.equal(kvPoolIndex('vnni16', true, 32, 2, 32, 1, 17, 1, 3), 3591);
    // Every element of a 2-page pool lands once (a permutation within each 16-slot piece).
    const seen = new Set<number>();
    for (let page = 0; page < 2; page++) for (let slot = 0; slot < 32; slot++) for (let hk = 0; hk < 2; hk++) for (let x = 0; x < 32; x++) {
      const i = kvPoolIndex('vnni16', true, 32, 2, 32, page, slot, hk, x);
      assert.ok(Math.floor(i / 1024) === Math.floor(kvPoolIndex('NHD', true, 32, 2, 32, page, slot, hk, x) / 1024), 'within its piece');
      seen.add(i);
    }
    assert.equal(seen.size, 2 * 32 * 2 * 32);
  });

  it('writes each token to its slot in either layout, skips slot -1, and refuses a slot past the pool before writing', { skip: cpuInfo().build === 'wasm' ? 'the WebAssembly build has no writer' : false }, () => {
    const numKvHeads = 2, headDim = 32, pageSize = 16, numPages = 3, row = numKvHeads * headDim;
    const slotMapping = Int32Array.from([5, 40, -1, 17]);
    const k = toHalfBits('bf16', randomUniform(4 * row, 14001));
    const v = toHalfBits('bf16', randomUniform(4 * row, 14002));
    for (const kvCacheLayout of ['NHD', 'vnni16'] as const) {
      const kPages = new Uint16Array(numPages * pageSize * row), vPages = new Uint16Array(numPages * pageSize * row);
      writeKvCache({ k, v, slotMapping, kPages, vPages, dtype: 'bf16', kvCacheLayout, numKvHeads, headDim, numPages, pageSize });
      let written = 0;
      slotMapping.forEach((slot, i) => {
        if (slot < 0) return;
        for (let hk = 0; hk < numKvHeads; hk++) for (let x = 0; x < headDim; x++) {
          const page = Math.floor(slot / pageSize);
          assert.equal(kPages[kvPoolIndex(kvCacheLayout, false, pageSize, numKvHeads, headDim, page, slot % pageSize, hk, x)], k[i * row + hk * headDim + x]);
          assert.equal(vPages[kvPoolIndex(kvCacheLayout, true, pageSize, numKvHeads, headDim, page, slot % pageSize, hk, x)], v[i * row + hk * headDim + x]);
          written++;
        }
      });
      assert.equal(written, 3 * row);
      const nonzero = kPages.reduce((n, e) => n + (e !== 0 ? 1 : 0), 0);
      assert.equal(nonzero, 3 * row, 'the skipped token wrote nothing');
      const before = kPages.slice();
      assert.throws(() => writeKvCache({ k, v, slotMapping: Int32Array.from([1, 48, 2, 3]), kPages, vPages, dtype: 'bf16', kvCacheLayout, numKvHeads, headDim, numPages, pageSize }),
        /slotMapping\[1\] = 48 is outside the pool \[0, numPages · pageSize = 48\)/);
      assert.deepEqual(kPages, before);
    }
  });

  it('kvCacheLayout vnni16 needs bf16 pools, pages of 16k tokens and head_dim of 32k', async () => {
    const s = pagedSetup({ contextLens: [5], numHeads: 2, numKvHeads: 1, headDim: 64, pageSize: 8, numPages: 4, kvDtype: 'bf16', simd: 'auto', seed: 14010 });
    await assert.rejects(() => pagedDecode({ ...s.args, kvCacheLayout: 'vnni16' }), /kvCacheLayout 'vnni16' needs bf16 pools, pageSize a multiple of 16/);
    assert.throws(() => writeKvCache({ k: new Float32Array(64), v: new Float32Array(64), slotMapping: Int32Array.from([0]), kPages: new Float32Array(16 * 64), vPages: new Float32Array(16 * 64), kvCacheLayout: 'vnni16', numKvHeads: 1, headDim: 64, numPages: 1, pageSize: 16 }),
      /kvCacheLayout 'vnni16' needs bf16 pools/);
    await assert.rejects(() => pagedDecode({ ...s.args, kvCacheLayout: 'HND' as never }), /kvCacheLayout must be 'NHD' or 'vnni16', got 'HND'/);
  });
});

describe('argument checks', () => {
  const base: FlashForwardArgs = {
    q: new Float32Array(2 * 4 * 8), k: new Float32Array(2 * 2 * 8), v: new Float32Array(2 * 2 * 8),
    batch: 1, seqLenQ: 2, seqLenK: 2, numHeads: 4, numKvHeads: 2, headDim: 8,
  };
  const cases: [string, Partial<Record<keyof FlashForwardArgs, unknown>>, ErrorConstructor, RegExp][] = [
    ['q of the wrong type', { q: new Float64Array(64) }, TypeError, /^TypeError: q must be a Float32Array/],
    ['q of the wrong length', { q: new Float32Array(63) }, RangeError, /q has 63 elements/],
    ['bf16 dtype with fp32 arrays', { dtype: 'bf16' }, TypeError, /q must be a Uint16Array for dtype bf16/],
    ['numHeads not a multiple of numKvHeads', { numHeads: 3, q: new Float32Array(48) }, RangeError, /numHeads \(3\) must be a multiple of numKvHeads \(2\)/],
    ['headDim 0', { headDim: 0 }, RangeError, /headDim must be an integer/],
    ['headDim a string', { headDim: '8' }, TypeError, /headDim must be a number/],
    ['negative window', { window: -1 }, RangeError, /window must be an integer/],
    ['unknown simd path', { simd: 'sse9' }, RangeError, /simd must be one of/],
    ['causal not a boolean', { causal: 1 }, TypeError, /causal must be a boolean/],
    ['softmaxScale 0', { softmaxScale: 0 }, RangeError, /softmaxScale/],
  ];
  for (const [name, patch, type, message] of cases) {
    it(`flashForward: ${name}`, async () => {
      await assert.rejects(flashForward({ ...base, ...patch } as FlashForwardArgs), (e: Error) => {
        assert.ok(e instanceof type, `${e.name}: ${e.message}`);
        assert.match(`${e.name}: ${e.message}`, message);
        return true;
      });
    });
  }

  const paged = (): PagedDecodeArgs => ({
    q: new Float32Array(4 * 8), kPages: new Float32Array(3 * 4 * 2 * 8), vPages: new Float32Array(3 * 4 * 2 * 8),
    blockTable: Int32Array.from([0, 2]), contextLens: Int32Array.from([6]),
    batch: 1, numHeads: 4, numKvHeads: 2, headDim: 8, numPages: 3, pageSize: 4, maxPagesPerSeq: 2,
  });
  const pagedCases: [string, Partial<Record<keyof PagedDecodeArgs, unknown>>, ErrorConstructor, RegExp][] = [
    ['page index past the pool', { blockTable: Int32Array.from([0, 3]) }, RangeError, /blockTable\[0\]\[1\] = 3 is outside the pool/],
    ['negative page index', { blockTable: Int32Array.from([-1, 0]) }, RangeError, /blockTable\[0\]\[0\] = -1/],
    ['context longer than its pages', { contextLens: Int32Array.from([9]) }, RangeError, /contextLens\[0\] = 9 is outside/],
    ['block table of the wrong type', { blockTable: [0, 2] }, TypeError, /blockTable must be an Int32Array/],
    ['kPages of the wrong length', { kPages: new Float32Array(10) }, RangeError, /kPages has 10 elements/],
    ['partition not a multiple of the page', { partitionTokens: 6 }, RangeError, /partitionTokens \(6\) must be a multiple of pageSize \(4\)/],
    ['negative window', { window: -1 }, RangeError, /window must be an integer in \[0,/],
    ['window a string', { window: '2' }, TypeError, /window must be a number/],
    // Window 3 over 6 tokens: tokens 3..5, so page 0 (tokens 0..3) is read and must be valid.
    ['released page inside the window', { blockTable: Int32Array.from([-1, 2]), window: 3 }, RangeError, /blockTable\[0\]\[0\] = -1/],
  ];
  for (const [name, patch, type, message] of pagedCases) {
    it(`pagedDecode: ${name}`, async () => {
      await assert.rejects(pagedDecode({ ...paged(), ...patch } as PagedDecodeArgs), (e: Error) => {
        assert.ok(e instanceof type, `${e.name}: ${e.message}`);
        assert.match(e.message, message);
        return true;
      });
    });
  }
  it('a released page (-1) before the window is fine (never read)', async () => {
    // Window 2 over 6 tokens of 4-token pages: tokens 4, 5, all on page 1 (pool page 2).
    const got = await pagedDecode({ ...paged(), blockTable: Int32Array.from([-1, 2]), window: 2 });
    assert.ok(Number.isFinite(got.lse[0]!));
  });
  it('a page index past the pool is fine when it lies beyond the context (never read)', async () => {
    const got = await pagedDecode({ ...paged(), blockTable: Int32Array.from([0, 99]), contextLens: Int32Array.from([4]) });
    assert.ok(got.lse.every((x) => Number.isFinite(x)));
  });
  it('timing: maxReps below minReps', async () => {
    await assert.rejects(timeFlashForward(base, { minReps: 5, maxReps: 2 }), /RangeError: timing.maxReps \(2\) must be >= timing.minReps \(5\)/);
  });
  it('toHalfBits: unknown dtype and wrong array type', () => {
    assert.throws(() => toHalfBits('fp8' as 'fp16', new Float32Array(1)), /RangeError: dtype must be 'fp16' or 'bf16'/);
    assert.throws(() => toHalfBits('bf16', [1] as unknown as Float32Array), /TypeError: values must be a Float32Array/);
  });
});

describe('timing loop', () => {
  const args: FlashForwardArgs = {
    q: randomUniform(64 * 2 * 64, 1), k: randomUniform(64 * 2 * 64, 2), v: randomUniform(64 * 2 * 64, 3),
    batch: 1, seqLenQ: 64, seqLenK: 64, numHeads: 2, numKvHeads: 2, headDim: 64,
  };
  it('stops at minReps once minTimeMs has passed', async () => {
    const t = await timeFlashForward(args, { warmup: 1, minReps: 3, maxReps: 100, minTimeMs: 0 });
    assert.equal(t.samplesNs.length, 3);
    assert.ok(t.samplesNs.every((x) => Number.isInteger(x) && x > 0));
  });
  it('stops at maxReps before minTimeMs', async () => {
    const t = await timeFlashForward(args, { warmup: 0, minReps: 1, maxReps: 4, minTimeMs: 1e9, maxTimeMs: 1e9 });
    assert.equal(t.samplesNs.length, 4);
  });
  it('cancelKernels stops a timing loop that would run for ten minutes, and the next call runs', { skip: cpuInfo().build === 'wasm' ? 'the WebAssembly build runs on the JS thread: nothing can call cancelKernels while it runs' : false, timeout: 120_000 }, async () => {
    // Without the cancel this loop takes samples until minTimeMs = 10 min have passed: the
    // test would hit its 2 min timeout. The request is made while the call is queued or
    // running; the loop stops within one sample (64 x 64 here) and the promise rejects.
    const forever = timeFlashForward(args, { warmup: 0, minReps: 1, maxReps: 65536, minTimeMs: 600_000, maxTimeMs: 600_000 });
    cancelKernels();
    await assert.rejects(forever, /^Error: cancelled$/);
    // A call started afterwards is not cancelled, and its result is right.
    const [got, want] = await Promise.all([flashForward(args), referenceAttention(args)]);
    assert.ok(maxAbsDiff(got.o, want.o) <= FP32_TOL);
  });
  it('times paged decode too', async () => {
    const s = pagedSetup({
      contextLens: [100], numHeads: 2, numKvHeads: 1, headDim: 64, pageSize: 16, numPages: 8,
      kvDtype: 'fp32', simd: 'auto', seed: 1, partitionTokens: 32,
    });
    const t = await timePagedDecode(s.args, { warmup: 0, minReps: 2, maxReps: 2, minTimeMs: 0 });
    assert.equal(t.samplesNs.length, 2);
    assert.equal(t.cpuNs?.length, 2);
  });
  it("times decode's page reads alone, behind decode's argument checks", { skip: cpuInfo().build === 'wasm' ? 'the WebAssembly build has no page-read loop' : false }, async () => {
    // 100 tokens over pages of 16 (the last page partly used, 100 * 64 * 4 B = 25,600 B of K, a
    // multiple of neither 256 nor the page): the loop's unaligned edges are read byte by byte.
    const s = pagedSetup({
      contextLens: [100], numHeads: 2, numKvHeads: 1, headDim: 64, pageSize: 16, numPages: 8,
      kvDtype: 'fp32', simd: 'auto', seed: 1, partitionTokens: 32,
    });
    const t = await timePagedRead(s.args, { warmup: 0, minReps: 3, maxReps: 3, minTimeMs: 0 });
    assert.equal(t.samplesNs.length, 3);
    assert.ok(t.samplesNs.every((x) => Number.isInteger(x) && x > 0));
    const bad = { ...s.args, blockTable: Int32Array.from(s.args.blockTable).fill(8, 0, 1) };
    await assert.rejects(timePagedRead(bad), RangeError);
  });
  it('gives the process CPU time of each run beside its wall time', async () => {
    // Runs of a few ms on one thread (256 x 256, D=64: 2 * 2 * 256 * 256 * 64 * 2 = 33.6 MFLOP per
    // head pair). The CPU time is the whole process's (std::clock, 1 us steps; on WebAssembly Node's
    // process.cpuUsage()), so one run can also carry another thread's time: V8's compiler or GC
    // threads, and on Linux a running thread's time is folded into the process total only at a
    // scheduler tick (up to 4 ms at once; CI saw 1.87 ms CPU against 0.36 ms wall). A single run is
    // therefore not bounded by its wall time, but the median of nine is: most runs carry no jitter.
    // A CPU time of 0, a copy of the wall time from the wrong buffer, or one in us instead of ns
    // (1000x too small) would show. No time limit but the nine runs (under qemu a run takes seconds).
    const big: FlashForwardArgs = {
      ...args, seqLenQ: 256, seqLenK: 256,
      q: randomUniform(256 * 2 * 64, 4), k: randomUniform(256 * 2 * 64, 5), v: randomUniform(256 * 2 * 64, 6), threads: 1,
    };
    const t = await timeFlashForward(big, { warmup: 1, minReps: 9, maxReps: 9, minTimeMs: 0, maxTimeMs: 600000 });
    assert.equal(t.cpuNs?.length, 9);
    t.cpuNs!.forEach((c, i) => {
      assert.ok(c > 0, `run ${i}: CPU time ${c}`);
      assert.notEqual(c, t.samplesNs[i], `run ${i}: CPU time equals the wall time (copied from the wrong buffer?)`);
    });
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const cpu = median(t.cpuNs!);
    const wall = median(t.samplesNs);
    // On WebAssembly the kernel runs on the JS thread and the process total also counts V8's
    // compiler threads, busy for many runs after the first call (3.5 ms CPU against 1.2 ms wall
    // seen in CI): the upper bound holds for the native build's worker thread only.
    if (cpuInfo().build !== 'wasm') assert.ok(cpu <= wall * 1.1 + 2e5, `median CPU ${cpu} ns > median wall ${wall} ns on one thread`);
    // Even at a load of 20 on 2 cores a runnable thread gets more than 1/20 of a core.
    assert.ok(cpu >= wall / 20, `median CPU ${cpu} ns < 1/20 of median wall ${wall} ns (wrong unit?)`);
  });
  it('runs off the JS thread: the event loop turns while a kernel runs', { skip: cpuInfo().build === 'wasm' ? 'the WebAssembly build runs kernels on the calling thread' : false }, async () => {
    let turned = false;
    const running = timeFlashForward(args, { warmup: 0, minReps: 1, maxReps: 1000, minTimeMs: 150 });
    setImmediate(() => {
      turned = true;
    });
    await running;
    assert.ok(turned, 'setImmediate did not run while the kernel was timing for 150 ms');
  });
});

describe('allocateKvPages', () => {
  it('gives zero-filled native pools that decode reads as it reads JS arrays', async () => {
    const s = pagedSetup({
      contextLens: [37, 300], numHeads: 8, numKvHeads: 2, headDim: 64, pageSize: 16,
      numPages: 64, kvDtype: 'bf16', simd: 'auto', seed: 6100,
    });
    const k = allocateKvPages('bf16', s.args.kPages.length);
    const v = allocateKvPages('bf16', s.args.vPages.length);
    assert.equal(k.data.length, s.args.kPages.length);
    assert.ok(k.data.every((x) => x === 0), 'a fresh pool is zero-filled');
    assert.equal(typeof k.hugePages, 'boolean');
    k.data.set(s.args.kPages);
    v.data.set(s.args.vPages);
    const [fromJs, fromPool] = await Promise.all([pagedDecode(s.args), pagedDecode({ ...s.args, kPages: k.data, vPages: v.data })]);
    assert.deepEqual(fromPool.o, fromJs.o);
    assert.deepEqual(fromPool.lse, fromJs.lse);
    assert.ok(allocateKvPages('fp32', 3).data instanceof Float32Array);
  });
  it('randomKvPages: randomInputs for the first 2^20 values, then that block repeated', () => {
    const n = (1 << 20) * 2 + 5;
    const pool = randomKvPages('bf16', n, 77);
    assert.equal(pool.data.length, n);
    const block = randomInputs('bf16', 1 << 20, 77);
    assert.deepEqual(pool.data.subarray(0, 1 << 20), block);
    for (const i of [0, 1, 12345, (1 << 20) - 1]) {
      assert.equal(pool.data[(1 << 20) + i], block[i]);
      if (i < 5) assert.equal(pool.data[(2 << 20) + i], block[i]);
    }
    const small = randomKvPages('fp32', 100, 3).data;  // shorter than one block: randomInputs itself
    assert.deepEqual(small, randomInputs('fp32', 100, 3));
  });
  it('rejects a bad dtype or size, naming the argument', () => {
    assert.throws(() => allocateKvPages('int8' as 'bf16', 4), /TypeError: dtype must be/);
    assert.throws(() => allocateKvPages('bf16', 0), /RangeError: elements must be an integer >= 1, got 0/);
    assert.throws(() => allocateKvPages('bf16', 1.5), /RangeError: elements/);
    assert.throws(() => allocateKvPages('bf16', '4' as unknown as number), /TypeError: elements must be a number/);
  });
});

describe('fp16 / bf16 bit patterns', () => {
  it('rounds to nearest even with the standard encodings', () => {
    // IEEE 754 binary16: 1 = 0x3c00, 65504 = 0x7bff (max), 65520 rounds to inf 0x7c00,
    // 2^-24 = 0x0001 (smallest subnormal), 1/3 = 0x3555, -2 = 0xc000.
    assert.deepEqual(
      [...toHalfBits('fp16', Float32Array.from([1, 65504, 65520, 2 ** -24, 1 / 3, -2]))],
      [0x3c00, 0x7bff, 0x7c00, 0x0001, 0x3555, 0xc000],
    );
    // bfloat16 = the top 16 bits of fp32, rounded: 1 = 0x3f80, pi = 0x4049 (3.140625),
    // 1 + 2^-8 is halfway between 0x3f80 and 0x3f81 and goes to the even 0x3f80.
    assert.deepEqual([...toHalfBits('bf16', Float32Array.from([1, Math.PI, 1 + 2 ** -8]))], [0x3f80, 0x4049, 0x3f80]);
    assert.deepEqual([...fromHalfBits('fp16', Uint16Array.from([0x3c00, 0x0001, 0xfc00]))], [1, 2 ** -24, -Infinity]);
    assert.deepEqual([...fromHalfBits('bf16', Uint16Array.from([0x4049]))], [3.140625]);
    assert.ok(Number.isNaN(fromHalfBits('fp16', toHalfBits('fp16', Float32Array.from([Number.NaN])))[0]));
  });
});
