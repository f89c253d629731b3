// The GPU backend's TypeScript API and loader. Without a GPU (CI, this machine) it checks that
// everything says why and rejects cleanly; with one (test/gpu/run.sh runs this file there when
// node is present) it checks both kernels against the CPU's fp64 reference on odd shapes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { loadAddon } from '../../native/binding';
import {
  cudaAvailable,
  cudaFlashForward,
  cudaLibraryCandidates,
  cudaPagedDecode,
  cudaUnsupportedReason,
  timeCudaCopy,
  timeCudaFlashForward,
  timeCudaPagedDecode,
  type PagedDecodeArgs,
} from '../../native/index';
import { referenceAttention, referencePagedDecode, toHalfBits, type FlashForwardArgs } from '../../native/kernels';
import { maxAbsDiff } from '../../runner/measure';
import { uniformStream } from '../../runner/random';

const root = join(__dirname, '..', '..');
const builtLibrary = join(root, 'native', 'cuda', 'build', 'libattnscope_cuda.so');
const availability = cudaAvailable();
const noGpu = availability.available ? 'a CUDA device is present' : false;
const gpu = availability.available ? false : `no GPU: ${availability.reason}`;

function halfTensor(dtype: 'fp16' | 'bf16', n: number, next: () => number): Uint16Array {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = next() * 2 - 1;
  return toHalfBits(dtype, a);
}

function flashArgs(dtype: 'fp16' | 'bf16', batch: number, seqLenQ: number, seqLenK: number, numHeads: number,
  numKvHeads: number, headDim: number, causal: boolean, window = 0, seed = 1): FlashForwardArgs {
  const next = uniformStream(seed);
  return {
    dtype, batch, seqLenQ, seqLenK, numHeads, numKvHeads, headDim, causal, window,
    q: halfTensor(dtype, batch * seqLenQ * numHeads * headDim, next),
    k: halfTensor(dtype, batch * seqLenK * numKvHeads * headDim, next),
    v: halfTensor(dtype, batch * seqLenK * numKvHeads * headDim, next),
  };
}

function decodeArgs(dtype: 'fp16' | 'bf16', contextLens: number[], pageSize: number, numHeads: number,
  numKvHeads: number, headDim: number, seed = 2): PagedDecodeArgs {
  const next = uniformStream(seed);
  const batch = contextLens.length;
  const maxPagesPerSeq = Math.max(1, ...contextLens.map((l) => Math.ceil(l / pageSize)));
  const numPages = batch * maxPagesPerSeq + 1;
  const order = Array.from({ length: numPages }, (_, i) => i).sort(() => next() - 0.5);
  const pool = numPages * pageSize * numKvHeads * headDim;
  return {
    dtype, batch, numHeads, numKvHeads, headDim, numPages, pageSize, maxPagesPerSeq,
    q: halfTensor(dtype, batch * numHeads * headDim, next),
    kPages: halfTensor(dtype, pool, next),
    vPages: halfTensor(dtype, pool, next),
    blockTable: Int32Array.from({ length: batch * maxPagesPerSeq }, (_, i) => order[i]!),
    contextLens: Int32Array.from(contextLens),
  };
}

test('cudaAvailable never throws and, without a GPU, names what is missing', { skip: noGpu }, () => {
  assert.equal(availability.available, false);
  assert.match(
    availability.reason ?? '',
    /^(no NVIDIA driver|no CUDA device|the NVIDIA driver|no CUDA library built|the CUDA runtime cannot)/,
  );
  assert.equal(availability.devices, undefined);
  assert.strictEqual(cudaAvailable(), availability, 'probed once per process');
});

test('without a GPU the kernel calls reject with the reason, after checking their arguments', { skip: noGpu }, async () => {
  const args = flashArgs('bf16', 1, 3, 5, 2, 1, 64, true);
  await assert.rejects(cudaFlashForward(args), (e: Error) => e.constructor === Error && /^CUDA backend unavailable: /.test(e.message));
  await assert.rejects(cudaPagedDecode(decodeArgs('fp16', [5], 8, 2, 1, 64)), /CUDA backend unavailable/);
  await assert.rejects(timeCudaFlashForward(args), /CUDA backend unavailable/);
  await assert.rejects(timeCudaPagedDecode(decodeArgs('fp16', [5], 8, 2, 1, 64)), /CUDA backend unavailable/);
  await assert.rejects(timeCudaCopy(1 << 20), /CUDA backend unavailable/);
});

test('GPU-only limits are RangeErrors naming the argument, GPU or not', async () => {
  const next = uniformStream(9);
  const fp32 = new Float32Array(1 * 3 * 2 * 64).map(() => next());
  await assert.rejects(
    cudaFlashForward({ q: fp32, k: fp32, v: fp32, batch: 1, seqLenQ: 3, seqLenK: 3, numHeads: 2, numKvHeads: 2, headDim: 64 }),
    (e: Error) => e instanceof RangeError && /^dtype: the CUDA backend runs fp16 and bf16/.test(e.message),
  );
  await assert.rejects(cudaFlashForward(flashArgs('fp16', 1, 3, 3, 2, 2, 96, false)), (e: Error) => e instanceof RangeError && /headDim 96/.test(e.message));
  await assert.rejects(cudaPagedDecode({ ...decodeArgs('bf16', [3], 8, 2, 2, 64), kvDtype: 'fp16' }), (e: Error) => e instanceof RangeError && /kvDtype/.test(e.message));
  // The CPU API's own checks run first: a wrong length names the tensor.
  await assert.rejects(cudaFlashForward({ ...flashArgs('bf16', 1, 3, 3, 2, 2, 64, false), q: new Uint16Array(5) }), (e: Error) => e instanceof RangeError && /^q has 5 elements/.test(e.message));
  await assert.rejects(timeCudaCopy(0), RangeError);
  assert.equal(cudaUnsupportedReason({ dtype: 'bf16', kvDtype: 'bf16', headDim: 128 }), undefined);
  assert.match(cudaUnsupportedReason({ dtype: 'fp32', headDim: 128 }) ?? '', /fp16 and bf16, not fp32/);
  assert.match(cudaUnsupportedReason({ dtype: 'fp16', kvDtype: 'bf16', headDim: 64 }) ?? '', /kvDtype/);
  assert.match(cudaUnsupportedReason({ dtype: 'fp16', headDim: 80 }) ?? '', /headDim 80/);
  // core/kernelLimits.json: the CUDA decode kernel takes 8..256 tokens per page.
  assert.equal(cudaUnsupportedReason({ dtype: 'fp16', headDim: 64, pageSize: 8 }), undefined);
  assert.match(cudaUnsupportedReason({ dtype: 'fp16', headDim: 64, pageSize: 4 }) ?? '', /pageSize 4: .* 8 to 256/);
  assert.match(cudaUnsupportedReason({ dtype: 'fp16', headDim: 64, pageSize: 512 }) ?? '', /pageSize 512/);
  await assert.rejects(timeCudaCopy('1' as unknown as number), TypeError);
});

test('the library is looked for at $ATTNSCOPE_CUDA_LIB first, then under native/cuda/build', () => {
  const saved = process.env.ATTNSCOPE_CUDA_LIB;
  try {
    process.env.ATTNSCOPE_CUDA_LIB = '/opt/custom/libattnscope_cuda.so';
    const list = cudaLibraryCandidates();
    assert.equal(list[0], '/opt/custom/libattnscope_cuda.so');
    assert.ok(list.includes(builtLibrary), `${builtLibrary} in ${list.join(', ')}`);
  } finally {
    if (saved === undefined) delete process.env.ATTNSCOPE_CUDA_LIB;
    else process.env.ATTNSCOPE_CUDA_LIB = saved;
  }
});

test('the loader refuses what is not an AttnScope CUDA library', () => {
  const check = loadAddon<{ cudaCheckLibrary(path: string): string | null }>().cudaCheckLibrary;
  assert.match(check('/nonexistent/libattnscope_cuda.so') ?? '', /does not exist/);
  const addonFile = join(root, 'native', 'build', 'Release', 'attnscope_native.node');
  assert.match(check(addonFile) ?? '', /is not an AttnScope CUDA library/);
});

// Where nvcc and cmake are on PATH (CI, this project's machines) `npm ci` must have built and
// linked the library: a missing one is a failure, not a skip.
const buildTools = ['nvcc', 'cmake'].every((tool) =>
  (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, tool))));

test('where nvcc exists, npm run build made a library that passes the loader\'s ABI check', { skip: buildTools ? false : 'nvcc or cmake not on PATH' }, () => {
  assert.ok(existsSync(builtLibrary), `${builtLibrary} missing although nvcc and cmake are on PATH`);
  const check = loadAddon<{ cudaCheckLibrary(path: string): string | null }>().cudaCheckLibrary;
  assert.equal(check(builtLibrary), null);
});

// ---- With a GPU: the kernels against the fp64 reference (odd shapes, masks, GQA, pages).

// Tolerance: the inputs are exact in the dtype; the kernel rounds P to the dtype before P V
// (as FlashAttention-2 does), so |error| is about one rounding of a probability times |v| <= 1
// summed over the keys, a few units of the dtype's epsilon.
const TOL: Record<'fp16' | 'bf16', number> = { fp16: 3e-3, bf16: 1.5e-2 };

test('GPU flash forward matches the fp64 reference on odd shapes', { skip: gpu }, async () => {
  const cases: [('fp16' | 'bf16'), number, number, number, number, number, number, boolean, number][] = [
    ['bf16', 1, 1, 1, 1, 1, 64, false, 0],
    ['fp16', 2, 77, 131, 4, 2, 64, true, 0],
    ['bf16', 1, 200, 130, 6, 1, 128, true, 0], // N_q > N_k: the first 70 rows see nothing
    ['fp16', 1, 257, 257, 2, 2, 128, false, 0],
    ['bf16', 2, 190, 300, 4, 4, 128, true, 33], // sliding window
  ];
  for (const [dtype, B, Nq, Nk, H, Hkv, D, causal, window] of cases) {
    const args = flashArgs(dtype, B, Nq, Nk, H, Hkv, D, causal, window, Nq * 7 + Nk);
    const got = await cudaFlashForward(args);
    const ref = await referenceAttention(args);
    const where = `${dtype} B${B} Nq${Nq} Nk${Nk} H${H}/${Hkv} D${D} causal ${causal} window ${window}`;
    assert.ok(maxAbsDiff(got.o, ref.o) < TOL[dtype], `${where}: O error ${maxAbsDiff(got.o, ref.o)}`);
    assert.ok(maxAbsDiff(got.lse, ref.lse) < 1e-3, `${where}: lse error ${maxAbsDiff(got.lse, ref.lse)}`);
  }
});

test('GPU paged decode matches the fp64 reference (page sizes 8..256, empty and long sequences)', { skip: gpu }, async () => {
  const cases: [('fp16' | 'bf16'), number[], number, number, number, number][] = [
    ['bf16', [1, 0, 37, 1000], 16, 8, 2, 128],
    ['fp16', [513, 64, 9], 8, 4, 4, 64],
    ['bf16', [5000, 255, 256, 257], 256, 32, 8, 128],
    ['fp16', [3000], 32, 12, 1, 64], // MQA, group of 12 = a chunk of 8 and one of 4
  ];
  for (const [dtype, lens, pageSize, H, Hkv, D] of cases) {
    const args = decodeArgs(dtype, lens, pageSize, H, Hkv, D, lens.length + pageSize);
    const ref = await referencePagedDecode(args);
    for (const partitionTokens of [0, pageSize * 4]) {
      const got = await cudaPagedDecode({ ...args, partitionTokens });
      const where = `${dtype} lens ${lens} page ${pageSize} H${H}/${Hkv} D${D} partition ${partitionTokens}`;
      assert.ok(maxAbsDiff(got.o, ref.o) < TOL[dtype], `${where}: O error ${maxAbsDiff(got.o, ref.o)}`);
      assert.ok(maxAbsDiff(got.lse, ref.lse) < 1e-3, `${where}: lse error ${maxAbsDiff(got.lse, ref.lse)}`);
    }
  }
});

test('GPU timing returns the requested number of device-time samples', { skip: gpu }, async () => {
  const r = await timeCudaFlashForward(flashArgs('bf16', 1, 512, 512, 8, 8, 128, true), {
    warmup: 1, minReps: 5, maxReps: 5, minTimeMs: 0,
  });
  assert.equal(r.samplesNs.length, 5);
  assert.ok(r.samplesNs.every((ns) => ns > 0));
  const c = await timeCudaCopy(64 << 20, { warmup: 1, minReps: 3, maxReps: 3, minTimeMs: 0 });
  assert.equal(c.samplesNs.length, 3);
  assert.ok(availability.devices!.length > 0 && availability.devices![0]!.multiprocessorCount > 0);
});
