// The CUDA kernels' scalar logic (native/cuda/include/attnscope_cuda_math.h), compiled into the
// CPU addon by g++ and exported for tests as `cudaHostChecks`, against hand calculations and an
// fp64 reference. Runs everywhere: no GPU, no CUDA library needed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadAddon } from '../../native/binding';
import { maxAbsDiff } from '../../runner/measure';
import { uniformStream } from '../../runner/random';

interface HostChecks {
  pagedKvOffset(table: Int32Array, maxPagesPerSeq: number, seq: number, token: number, pageSize: number,
    numKvHeads: number, headDim: number, kvHead: number): number;
  visibleKeys(row: number, nQ: number, nK: number, causal: boolean, windowLeft: number): [number, number];
  keyTiles(rowBegin: number, rowEnd: number, nQ: number, nK: number, causal: boolean, windowLeft: number,
    blockN: number): { tiles: number[]; fullyVisible: boolean[] };
  planDecodeSplits(blocksPerSplit: number, maxContextLen: number, blocksPerWave: number,
    requestedPartitionTokens: number): { numSplits: number; partitionTokens: number };
  decodePartition(split: number, partitionTokens: number, contextLen: number): [number, number];
  mergePartitions(lse: Float32Array, o: Float32Array, dv: number): { lse: number; o: Float32Array };
  lseAdd(a: number, b: number): number;
  emulateFlashForward(q: Float32Array, k: Float32Array, v: Float32Array, B: number, Nq: number, Nk: number,
    H: number, Hkv: number, D: number, causal: boolean, windowLeft: number, scale: number, blockM: number,
    blockN: number): { o: Float32Array; lse: Float32Array; tilesVisited: number };
  emulatePagedDecode(q: Float32Array, kPool: Float32Array, vPool: Float32Array, blockTable: Int32Array,
    contextLens: Int32Array, B: number, H: number, Hkv: number, D: number, pageSize: number, numPages: number,
    maxPagesPerSeq: number, scale: number, partitionTokens: number, lanes: number, chunk: number):
    { o: Float32Array; lse: Float32Array; numSplits: number; partitionTokens: number };
}

const checks = loadAddon<{ cudaHostChecks: HostChecks }>().cudaHostChecks;

function randomArray(n: number, next: () => number, amplitude = 1): Float32Array {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = (next() * 2 - 1) * amplitude;
  return a;
}

/** Brute-force mask, written from the definition in DESIGN.md (not from the header). */
function visible(row: number, key: number, nQ: number, nK: number, causal: boolean, windowLeft: number): boolean {
  if (key < 0 || key >= nK) return false;
  const diag = row + nK - nQ;
  if (causal && key > diag) return false;
  if (windowLeft >= 0 && key < diag - windowLeft) return false;
  return true;
}

/** fp64 softmax(scale q.k) v of one query row over the keys `keys` (visible ones only). */
function referenceRow(q: ArrayLike<number>, keyRows: ArrayLike<number>[], valueRows: ArrayLike<number>[],
  scale: number, dv: number): { o: Float64Array; lse: number } {
  const o = new Float64Array(dv);
  if (keyRows.length === 0) return { o, lse: -Infinity };
  const s = keyRows.map((k) => {
    let dot = 0;
    for (let d = 0; d < q.length; d++) dot += q[d] * k[d];
    return dot * scale;
  });
  const max = Math.max(...s);
  let sum = 0;
  const w = s.map((x) => {
    const e = Math.exp(x - max);
    sum += e;
    return e;
  });
  for (let j = 0; j < w.length; j++) for (let d = 0; d < dv; d++) o[d] += (w[j] / sum) * valueRows[j][d];
  return { o, lse: max + Math.log(sum) };
}

test('pagedKvOffset follows the block table (hand calculation)', () => {
  // block table [[3, 0, 7], [5, 1, 2]], page_size 16, H_kv 2, D 4.
  const table = new Int32Array([3, 0, 7, 5, 1, 2]);
  // seq 1, token 20 -> logical page 1 -> physical 1, slot 4; kv head 1: ((1*16 + 4)*2 + 1)*4 = 164
  assert.equal(checks.pagedKvOffset(table, 3, 1, 20, 16, 2, 4, 1), 164);
  // seq 0, token 47 -> logical page 2 -> physical 7, slot 15; kv head 0: ((7*16 + 15)*2 + 0)*4 = 1016
  assert.equal(checks.pagedKvOffset(table, 3, 0, 47, 16, 2, 4, 0), 1016);
  // seq 0, token 0 -> physical 3, slot 0: 3*16*2*4 = 384
  assert.equal(checks.pagedKvOffset(table, 3, 0, 0, 16, 2, 4, 0), 384);
  assert.throws(() => checks.pagedKvOffset(table, 3, 1, 48, 16, 2, 4, 0), RangeError);
});

test('visibleKeys: causal aligned bottom-right and sliding window (hand cases)', () => {
  // N_q 3, N_k 5: row i sees j <= i + 2.
  assert.deepEqual(checks.visibleKeys(0, 3, 5, true, -1), [0, 3]);
  assert.deepEqual(checks.visibleKeys(2, 3, 5, true, -1), [0, 5]);
  // N_q 5, N_k 3: rows 0 and 1 see nothing (diag < 0), row 2 sees key 0.
  assert.deepEqual(checks.visibleKeys(0, 5, 3, true, -1), [0, 0]);
  assert.deepEqual(checks.visibleKeys(1, 5, 3, true, -1), [0, 0]);
  assert.deepEqual(checks.visibleKeys(2, 5, 3, true, -1), [0, 1]);
  // window_left 1, N_q = N_k = 4, causal: row 3 sees keys 2 and 3.
  assert.deepEqual(checks.visibleKeys(3, 4, 4, true, 1), [2, 4]);
  // non-causal window: row 0 of N_q 4, N_k 4, window 1 sees keys 0..3 from key max(0, -1).
  assert.deepEqual(checks.visibleKeys(0, 4, 4, false, 1), [0, 4]);
  // non-causal window, N_q 10, N_k 4, window 2: row 9 has diag 3 and sees keys 1..3.
  assert.deepEqual(checks.visibleKeys(9, 10, 4, false, 2), [1, 4]);
});

test('keyTiles visits exactly the key tiles holding a visible key, and flags the masked ones', () => {
  const next = uniformStream(7);
  let cases = 0;
  for (let iter = 0; iter < 300; iter++) {
    const nQ = 1 + Math.floor(next() * 90);
    const nK = 1 + Math.floor(next() * 90);
    const causal = next() < 0.6;
    const windowLeft = next() < 0.4 ? Math.floor(next() * 40) : -1;
    const blockM = [16, 32, 64][Math.floor(next() * 3)];
    const blockN = [16, 32][Math.floor(next() * 2)];
    for (let m0 = 0; m0 < nQ; m0 += blockM) {
      const m1 = Math.min(m0 + blockM, nQ);
      const expected: number[] = [];
      const expectedFull: boolean[] = [];
      for (let t = 0; t * blockN < nK; t++) {
        let any = false;
        let all = true;
        for (let i = m0; i < m1; i++) {
          for (let j = t * blockN; j < (t + 1) * blockN; j++) {
            const vis = visible(i, j, nQ, nK, causal, windowLeft);
            any ||= vis;
            all &&= vis;
          }
        }
        if (any) {
          expected.push(t);
          expectedFull.push(all);
        }
      }
      const got = checks.keyTiles(m0, m1, nQ, nK, causal, windowLeft, blockN);
      const where = `nQ ${nQ} nK ${nK} causal ${causal} window ${windowLeft} rows [${m0}, ${m1}) blockN ${blockN}`;
      assert.deepEqual(got.tiles, expected, where);
      assert.deepEqual(got.fullyVisible, expectedFull, where);
      cases++;
    }
  }
  assert.ok(cases > 300);
});

function referenceFlash(q: Float32Array, k: Float32Array, v: Float32Array, B: number, Nq: number, Nk: number,
  H: number, Hkv: number, D: number, causal: boolean, windowLeft: number, scale: number) {
  const o = new Float64Array(B * Nq * H * D);
  const lse = new Float64Array(B * H * Nq);
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      const hk = Math.floor(h / (H / Hkv));
      for (let i = 0; i < Nq; i++) {
        const keys: Float32Array[] = [];
        const values: Float32Array[] = [];
        for (let j = 0; j < Nk; j++) {
          if (!visible(i, j, Nq, Nk, causal, windowLeft)) continue;
          const off = ((b * Nk + j) * Hkv + hk) * D;
          keys.push(k.subarray(off, off + D));
          values.push(v.subarray(off, off + D));
        }
        const qo = ((b * Nq + i) * H + h) * D;
        const r = referenceRow(q.subarray(qo, qo + D), keys, values, scale, D);
        o.set(r.o, qo);
        lse[(b * H + h) * Nq + i] = r.lse;
      }
    }
  }
  return { o, lse };
}

test('the flash kernel schedule (tiles, masks, online softmax) matches fp64 attention on odd shapes', () => {
  const next = uniformStream(11);
  const shapes = [
    // B, Nq, Nk, H, Hkv, D, causal, windowLeft, blockM, blockN
    [1, 37, 53, 2, 1, 8, true, -1, 16, 16],
    [2, 53, 37, 4, 2, 16, true, -1, 32, 16], // N_q > N_k: the first 16 rows are fully masked
    [1, 64, 64, 3, 3, 8, false, -1, 64, 32],
    [1, 45, 80, 4, 1, 8, true, 9, 16, 32], // sliding window + MQA
    [1, 50, 20, 2, 2, 8, false, 5, 16, 16], // window without causal, N_q > N_k
    [1, 1, 70, 2, 1, 8, true, -1, 64, 32], // one query row (decode-shaped)
  ] as const;
  for (const [B, Nq, Nk, H, Hkv, D, causal, windowLeft, blockM, blockN] of shapes) {
    const q = randomArray(B * Nq * H * D, next, 2);
    const k = randomArray(B * Nk * Hkv * D, next, 2);
    const v = randomArray(B * Nk * Hkv * D, next);
    const scale = 1 / Math.sqrt(D);
    const got = checks.emulateFlashForward(q, k, v, B, Nq, Nk, H, Hkv, D, causal, windowLeft, scale, blockM, blockN);
    const ref = referenceFlash(q, k, v, B, Nq, Nk, H, Hkv, D, causal, windowLeft, scale);
    const where = `shape ${[B, Nq, Nk, H, Hkv, D, causal, windowLeft]}`;
    // fp32 accumulation over <= 80 keys of |v| <= 1: a few ulp of 1.
    assert.ok(maxAbsDiff(got.o, ref.o) < 2e-6, `${where}: O error ${maxAbsDiff(got.o, ref.o)}`);
    assert.ok(maxAbsDiff(got.lse, ref.lse) < 2e-5, `${where}: lse error ${maxAbsDiff(got.lse, ref.lse)}`);
    for (let i = 0; i < got.lse.length; i++) {
      if (ref.lse[i] === -Infinity) assert.equal(got.lse[i], -Infinity, `${where}: masked row ${i} lse`);
    }
    assert.ok(!got.o.some(Number.isNaN), `${where}: NaN in O`);
  }
  // A fully masked row (N_q 5, N_k 3, causal: rows 0 and 1) gives O = 0 and lse = -inf.
  const q = randomArray(5 * 4, next);
  const kv = randomArray(3 * 4, next);
  const r = checks.emulateFlashForward(q, kv, kv, 1, 5, 3, 1, 1, 4, true, -1, 0.5, 16, 16);
  assert.deepEqual(Array.from(r.o.subarray(0, 8)), [0, 0, 0, 0, 0, 0, 0, 0]);
  assert.deepEqual(Array.from(r.lse.subarray(0, 2)), [-Infinity, -Infinity]);
  // Causal N = 128 with 16x16 tiles visits the lower triangle only: 8 * 9 / 2 = 36 tiles per head.
  const big = randomArray(128 * 4, next);
  assert.equal(checks.emulateFlashForward(big, big, big, 1, 128, 128, 1, 1, 4, true, -1, 0.5, 16, 16).tilesVisited, 36);
});

test('lseAdd is exact at the extremes and never NaN', () => {
  assert.equal(checks.lseAdd(-Infinity, -Infinity), -Infinity);
  assert.equal(checks.lseAdd(3.5, -Infinity), 3.5);
  // log(2 e^1000) = 1000 + ln 2, without overflowing e^1000
  assert.ok(Math.abs(checks.lseAdd(1000, 1000) - (1000 + Math.LN2)) < 1e-3);
  assert.ok(Math.abs(checks.lseAdd(Math.log(2), Math.log(3)) - Math.log(5)) < 1e-6);
});

test('merging split-K partitions through lse gives the softmax of the whole row', () => {
  const next = uniformStream(3);
  const dv = 5;
  for (const bounds of [[0, 7, 19, 40], [0, 40], [0, 1, 2, 40], [0, 13, 13, 40]]) { // [0,13,13,..]: an empty partition
    const n = 40;
    const keys = Array.from({ length: n }, () => randomArray(6, next, 3));
    const values = Array.from({ length: n }, () => randomArray(dv, next));
    const q = randomArray(6, next, 3);
    const whole = referenceRow(q, keys, values, 0.7, dv);
    const parts = bounds.length - 1;
    const lse = new Float32Array(parts);
    const o = new Float32Array(parts * dv);
    for (let p = 0; p < parts; p++) {
      const r = referenceRow(q, keys.slice(bounds[p], bounds[p + 1]), values.slice(bounds[p], bounds[p + 1]), 0.7, dv);
      lse[p] = r.lse;
      o.set(r.o, p * dv);
    }
    const merged = checks.mergePartitions(lse, o, dv);
    assert.ok(Math.abs(merged.lse - whole.lse) < 1e-5, `bounds ${bounds}: lse ${merged.lse} vs ${whole.lse}`);
    assert.ok(maxAbsDiff(merged.o, whole.o) < 1e-6, `bounds ${bounds}: O error ${maxAbsDiff(merged.o, whole.o)}`);
  }
  // Every partition empty (a zero-length context): lse -inf and O = 0, no NaN.
  const empty = checks.mergePartitions(new Float32Array([-Infinity, -Infinity]), new Float32Array(4), 2);
  assert.equal(empty.lse, -Infinity);
  assert.deepEqual(Array.from(empty.o), [0, 0]);
});

test('planDecodeSplits runs whole waves of short partitions and never leaves a trailing partition empty', () => {
  // A plan costs waves x partition tokens. 1 sequence x 8 KV heads, 512 blocks per wave (128 SMs
  // x 4): 64 partitions of 512 tokens are one wave (cost 512); 128 of 256 are two (also 512),
  // so the fewer; every count below 64 has longer partitions in its one wave.
  assert.deepEqual(checks.planDecodeSplits(8, 32768, 512, 0), { numSplits: 64, partitionTokens: 512 });
  // 256 sequences x 8 KV heads = 2048 blocks: at most ceil(2 * 528 / 2048) = 1 partition.
  assert.deepEqual(checks.planDecodeSplits(2048, 32768, 528, 0), { numSplits: 1, partitionTokens: 32768 });
  // 100 blocks per partition, 264 per wave (132 SMs x 2), at most ceil(528 / 100) = 6:
  // 1: 1 wave x 65536, 2: 1 x 32768, 3: 2 x 21856, 4: 2 x 16384, 5: 2 x 13120 = 26240 (ceil(65536 / 5)
  // = 13108 rounded up to 32), 6: 3 x 10944 = 32832 -> 5 partitions of 13120, not the fullest wave.
  assert.deepEqual(checks.planDecodeSplits(100, 65536, 264, 0), { numSplits: 5, partitionTokens: 13120 });
  // Short context: at least 128 tokens per partition -> ceil(1000 / 128) = 8 partitions of 128.
  assert.deepEqual(checks.planDecodeSplits(8, 1000, 528, 0), { numSplits: 8, partitionTokens: 128 });
  // A requested partition length is kept: ceil(100 / 48) = 3 partitions.
  assert.deepEqual(checks.planDecodeSplits(8, 100, 528, 48), { numSplits: 3, partitionTokens: 48 });
  const next = uniformStream(5);
  for (let i = 0; i < 500; i++) {
    const ctx = 1 + Math.floor(next() * 40000);
    const requested = next() < 0.3 ? 16 * (1 + Math.floor(next() * 80)) : 0;
    const plan = checks.planDecodeSplits(1 + Math.floor(next() * 300), ctx, 132 * (1 + Math.floor(next() * 4)), requested);
    assert.ok(plan.numSplits * plan.partitionTokens >= ctx, `ctx ${ctx}: ${JSON.stringify(plan)} covers the context`);
    assert.ok((plan.numSplits - 1) * plan.partitionTokens < ctx, `ctx ${ctx}: ${JSON.stringify(plan)} has no empty tail`);
    if (requested > 0) assert.equal(plan.partitionTokens, requested);
    else assert.equal(plan.partitionTokens % 32, 0);
  }
  assert.deepEqual(checks.decodePartition(2, 512, 1100), [1024, 1100]);
  assert.deepEqual(checks.decodePartition(3, 512, 1100), [1100, 1100]);
});

function referenceDecode(q: Float32Array, kPool: Float32Array, vPool: Float32Array, table: Int32Array,
  lens: Int32Array, B: number, H: number, Hkv: number, D: number, pageSize: number, maxPages: number, scale: number) {
  const o = new Float64Array(B * H * D);
  const lse = new Float64Array(B * H);
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      const hk = Math.floor(h / (H / Hkv));
      const keys: Float32Array[] = [];
      const values: Float32Array[] = [];
      for (let t = 0; t < lens[b]; t++) {
        const page = table[b * maxPages + Math.floor(t / pageSize)];
        const off = ((page * pageSize + (t % pageSize)) * Hkv + hk) * D;
        keys.push(kPool.subarray(off, off + D));
        values.push(vPool.subarray(off, off + D));
      }
      const r = referenceRow(q.subarray((b * H + h) * D, (b * H + h + 1) * D), keys, values, scale, D);
      o.set(r.o, (b * H + h) * D);
      lse[b * H + h] = r.lse;
    }
  }
  return { o, lse };
}

test('the split-K paged decode order (pages, lanes, partitions, lse merge) matches fp64 attention', () => {
  const next = uniformStream(17);
  // pageSize, contextLens, partitionTokens, lanes, chunk (8 lanes x 4 tokens is the kernel at D = 128)
  const cases = [
    [16, [1, 0, 37, 300], 304, 8, 4], // one partition
    [16, [1, 0, 37, 300], 32, 8, 4], // sequence 1 is empty, sequence 0 fills part of one
    [8, [513, 64, 9], 72, 16, 4],
    [256, [700, 255, 256, 257], 256, 8, 4],
    [5, [1000, 3], 15, 8, 4], // odd page size: a lane's 4 tokens straddle pages
  ] as const;
  for (const [pageSize, lensList, partitionTokens, lanes, chunk] of cases) {
    const B = lensList.length, H = 6, Hkv = 2, D = 8;
    const lens = Int32Array.from(lensList);
    const maxPages = Math.max(...lensList.map((l) => Math.ceil(l / pageSize)), 1);
    const numPages = B * maxPages + 3;
    // Shuffled physical pages, so a wrong lookup reads another sequence's keys.
    const perm = Array.from({ length: numPages }, (_, i) => i).sort(() => next() - 0.5);
    const table = Int32Array.from({ length: B * maxPages }, (_, i) => perm[i]);
    const pool = numPages * pageSize * Hkv * D;
    const kPool = randomArray(pool, next, 2);
    const vPool = randomArray(pool, next);
    const q = randomArray(B * H * D, next, 2);
    const scale = 1 / Math.sqrt(D);
    const got = checks.emulatePagedDecode(q, kPool, vPool, table, lens, B, H, Hkv, D, pageSize, numPages, maxPages,
      scale, partitionTokens, lanes, chunk);
    const ref = referenceDecode(q, kPool, vPool, table, lens, B, H, Hkv, D, pageSize, maxPages, scale);
    const where = `pageSize ${pageSize} lens ${lensList} partition ${partitionTokens}`;
    assert.ok(maxAbsDiff(got.o, ref.o) < 3e-6, `${where}: O error ${maxAbsDiff(got.o, ref.o)}`);
    assert.ok(maxAbsDiff(got.lse, ref.lse) < 3e-5, `${where}: lse error ${maxAbsDiff(got.lse, ref.lse)}`);
    // Sequence 1 of the first cases has no tokens: O = 0, lse = -inf.
    if (lensList[1] === 0) {
      assert.equal(got.lse[H], -Infinity);
      assert.ok(got.o.subarray(H * D, 2 * H * D).every((x) => x === 0));
    }
  }
});
