// The from-cache test's measurement (runner/readAlone.ts): the DRAM read's size, the rate of a
// block of calls, the DRAM read's arguments. Hand values; nothing here is timed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { DramRead, dramReadBytes, fastestRate, measureReadAlone } from '../../runner/readAlone';

const MiB = 2 ** 20;

describe('dramReadBytes: 8x the last-level cache, within [256 MiB, 1 GiB] and a quarter of the free memory', () => {
  const plenty = 16 * 1024 * MiB;
  it('256 MiB where the cache is unknown or 32 MiB (8 x 32 = 256)', () => {
    assert.equal(dramReadBytes(undefined, plenty), 256 * MiB);
    assert.equal(dramReadBytes({ level: 3, bytes: 32 * MiB }, plenty), 256 * MiB);
  });
  it('8x a 96 MiB L3 = 768 MiB; a 256 MiB L3 stops at 1 GiB; a 16 MiB one still gets 256 MiB', () => {
    assert.equal(dramReadBytes({ level: 3, bytes: 96 * MiB }, plenty), 768 * MiB);
    assert.equal(dramReadBytes({ level: 3, bytes: 256 * MiB }, plenty), 1024 * MiB);
    assert.equal(dramReadBytes({ level: 3, bytes: 16 * MiB }, plenty), 256 * MiB);
  });
  it('a quarter of the free memory where that is less (400 MiB free: 100 MiB), never under 64 MiB', () => {
    assert.equal(dramReadBytes(undefined, 400 * MiB), 100 * MiB);
    assert.equal(dramReadBytes(undefined, 100 * MiB), 64 * MiB);
  });
});

describe('fastestRate: the fastest call by CPU time (one thread: its running time)', () => {
  it('4 MiB in 54 µs of CPU time = 77.7 GB/s, however long the calls waited for a CPU (wall 120-150 µs)', () => {
    // 4,194,304 B / 54e-6 s = 77,672,296,296 B/s.
    const rate = fastestRate(4 * MiB, { samplesNs: [150_000, 120_000, 130_000], cpuNs: [56_000, 54_000, 55_000] });
    assert.equal(Math.round(rate), 77_672_296_296);
  });
  it('by wall time where no call saw the CPU clock move (1 µs steps), and 0 with no call', () => {
    // 1 MiB in 2 µs wall: 524,288,000,000 B/s.
    assert.equal(fastestRate(MiB, { samplesNs: [3_000, 2_000], cpuNs: [0, 0] }), 524_288_000_000);
    assert.equal(fastestRate(MiB, { samplesNs: [] }), 0);
  });
});

describe('DramRead: four quarters of pages past the cache, in the case\'s layout', () => {
  it('64 MiB of bf16 pages of 16 tokens x 8 KV heads x 128: 1,024 pages a pool, 256 a call, 16 MiB a call', () => {
    // A page: 16 x 8 x 128 = 16,384 values = 32 KiB; each of K and V gets 32 MiB = 1,024 pages; a quarter 256 pages
    // = 4,096 tokens; K and V read: 2 x 256 x 32 KiB = 16 MiB.
    const dram = new DramRead(64 * MiB);
    const args = { q: new Uint16Array(32 * 128), kPages: new Uint16Array(16 * 8 * 128), vPages: new Uint16Array(16 * 8 * 128), blockTable: new Int32Array([0]), contextLens: new Int32Array([16]), batch: 1, numHeads: 32, numKvHeads: 8, headDim: 128, numPages: 1, pageSize: 16, maxPagesPerSeq: 1, dtype: 'bf16' as const, kvDtype: 'bf16' as const, threads: 2 };
    const { quarters, bytesPerCall } = dram.quartersFor(args);
    assert.equal(bytesPerCall, 16 * MiB);
    assert.equal(quarters.length, 4);
    assert.deepEqual(quarters.map((q) => [q.blockTable[0], q.blockTable.at(-1), q.contextLens[0], q.threads, q.numPages]), [[0, 255, 4096, 1, 1024], [256, 511, 4096, 1, 1024], [512, 767, 4096, 1, 1024], [768, 1023, 4096, 1, 1024]]);
    assert.equal(quarters[0]!.kPages.length, 1024 * 16 * 8 * 128);
    // K and V are the pool's two halves: V starts where K ends.
    assert.equal(quarters[0]!.vPages.byteOffset - quarters[0]!.kPages.byteOffset, 32 * MiB);
  });
  it('measureReadAlone times nothing for a case of at least the DRAM read\'s bytes: no cache holds more of it', async () => {
    const dram = new DramRead(64 * MiB);
    // Arguments no call could take (no pools): a timed call would throw.
    assert.equal(await measureReadAlone({} as never, 64 * MiB, dram, { minTimeMs: 100 }), null);
  });
});
