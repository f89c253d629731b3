/**
 * Whether a CPU decode case's pages came from cache when its calls were timed back to back: its
 * pages read alone on one thread against a read of pages past every cache, timed the same way in
 * the same rounds (KernelCase.readAloneBytesPerSec, dramReadBytesPerSec; core/format.ts
 * fromCacheBy holds one against the other). `attnscope bench` (runner/bench.ts) and
 * bench:kernels (scripts/bench-kernels.ts) both measure through measureReadAlone.
 *
 * Why one thread and CPU time: on a shared machine a call's wall time counts the time its
 * threads wait for a CPU. With two threads, B=1 ctx=1024's 4 MiB read alone took 30 µs when both
 * ran and 100-150 µs when one waited (the caller waits for its helper before it returns), so at
 * load 19-26 on 2 vCPUs the fastest of hundreds of calls came under 1.25x the DRAM read peak in 4
 * of 7 runs (session 51). One thread's CPU time counts only its running; two threads' process
 * CPU time also counts the pool's polling and, where one thread did every task, halves as if
 * both had worked. And a DRAM read is timed the same way beside it, since what one thread gets
 * from DRAM moves with this guest's neighbours within a second (31-45 GB/s).
 */
import { freemem } from 'node:os';

import type { Environment } from '../core/protocol/run';
import * as native from '../native';
import type { PagedDecodeArgs, TimingResult } from '../native';

const MiB = 2 ** 20;

/** Rounds of (the case's block, the DRAM read's block) alternated: both see the same moments. */
export const READ_ALONE_ROUNDS = 3;

/**
 * Bytes of the DRAM read: 8x the last-level cache where known (32 MiB -> 256 MiB), at least
 * 256 MiB (unknown: this 2-vCPU Zen 5 guest reports none), at most 1 GiB and a quarter of the
 * free memory. Read a quarter a call, so each call's quarter, 2x the cache, was last read three
 * quarters (6x the cache) ago: a cache that keeps some lines of a stream past its size (one
 * thread read 128 MiB at up to 1.3x what it read of 256 MiB here) keeps almost none of it.
 */
export function dramReadBytes(lastLevelCache: Environment['lastLevelCache'], freeBytes = freemem()): number {
  const wanted = Math.min(Math.max(256 * MiB, 8 * (lastLevelCache?.bytes ?? 0)), 1024 * MiB);
  return Math.min(wanted, Math.max(64 * MiB, Math.floor(freeBytes / 4)));
}

/** The fastest call's rate, B/s, by its CPU time (one thread: its running time); by wall time where no call saw the CPU clock move. */
export function fastestRate(bytes: number, t: TimingResult): number {
  const cpu = (t.cpuNs ?? []).filter((x) => x > 0);
  const ns = cpu.length > 0 ? Math.min(...cpu) : Math.min(...t.samplesNs);
  return ns > 0 && Number.isFinite(ns) ? (bytes * 1e9) / ns : 0;
}

/**
 * Page pools past every cache for a run's DRAM reads, allocated (zero-filled, so every page is
 * faulted in: an untouched page reads the kernel's one zero page, from cache) on first use and
 * kept until the run drops this object.
 */
export class DramRead {
  private pool: Uint16Array | null = null;

  /** `bytes` of K and V together ({@link dramReadBytes}). */
  constructor(readonly bytes: number) {}

  /**
   * Four calls' arguments, each reading one quarter of the pools (K and V alike) as one
   * sequence of consecutive pages, with `args`' layout: heads, head size, page size, dtypes;
   * with the bytes each reads (2 x tokens x numKvHeads x headDim x the KV dtype's bytes).
   */
  quartersFor(args: PagedDecodeArgs): { quarters: PagedDecodeArgs[]; bytesPerCall: number } {
    const kvDtype = args.kvDtype ?? args.dtype ?? 'fp32';
    const dtypeBytes = kvDtype === 'fp32' ? 4 : 2;
    const pageValues = args.pageSize * args.numKvHeads * args.headDim;
    const poolValues16 = Math.floor(this.bytes / 2 / 2); // each of K and V, in 2-byte units
    const numPages = Math.floor((poolValues16 * 2) / (pageValues * dtypeBytes));
    const perCall = Math.floor(numPages / 4);
    if (perCall < 1) throw new RangeError(`the DRAM read's ${this.bytes} bytes hold no page of ${pageValues * dtypeBytes * 2} bytes (K and V)`);
    this.pool ??= native.allocateKvPages('bf16', 2 * poolValues16).data;
    const view = (half: 0 | 1): PagedDecodeArgs['kPages'] => {
      const offset = this.pool!.byteOffset + half * poolValues16 * 2;
      return kvDtype === 'fp32' ? new Float32Array(this.pool!.buffer, offset, numPages * pageValues) : new Uint16Array(this.pool!.buffer, offset, numPages * pageValues);
    };
    const kPages = view(0), vPages = view(1);
    const q = args.dtype === 'fp32' || args.dtype === undefined ? new Float32Array(args.numHeads * args.headDim) : new Uint16Array(args.numHeads * args.headDim);
    const quarters = [0, 1, 2, 3].map((i): PagedDecodeArgs => ({
      q, kPages, vPages,
      blockTable: Int32Array.from({ length: perCall }, (_, p) => i * perCall + p),
      contextLens: new Int32Array([perCall * args.pageSize]),
      dtype: args.dtype, kvDtype, kvCacheLayout: args.kvCacheLayout,
      batch: 1, numHeads: args.numHeads, numKvHeads: args.numKvHeads, headDim: args.headDim,
      numPages, pageSize: args.pageSize, maxPagesPerSeq: perCall, threads: 1,
    }));
    return { quarters, bytesPerCall: 2 * perCall * pageValues * dtypeBytes };
  }
}

/** What measureReadAlone found, B/s (KernelCase.readAloneBytesPerSec, dramReadBytesPerSec). */
export interface ReadAloneRates {
  readAloneBytesPerSec: number;
  dramReadBytesPerSec: number;
}

/**
 * Times a decode case's pages read alone (native timePagedRead, one thread, a warm-up call each
 * round, since the DRAM read between evicts them; at least 3 calls and `minTimeMs` /
 * READ_ALONE_ROUNDS a round) and `dram`'s four quarters, READ_ALONE_ROUNDS rounds alternated; each
 * rate from its fastest call's CPU time ({@link fastestRate}). `bytes`: what the case reads a call
 * (runner/measure.ts attentionBytes). Null for a case of at least the DRAM read's bytes: no cache
 * holds more of it than of that read, so the test cannot tell them apart.
 * @throws the errors of timePagedRead (the WebAssembly build has no page-read loop).
 */
export async function measureReadAlone(args: PagedDecodeArgs, bytes: number, dram: DramRead, opts: { minTimeMs: number }): Promise<ReadAloneRates | null> {
  if (bytes >= dram.bytes) return null;
  const one: PagedDecodeArgs = { ...args, threads: 1 };
  const { quarters, bytesPerCall } = dram.quartersFor(args);
  let readAlone = 0, dramRead = 0;
  for (let round = 0; round < READ_ALONE_ROUNDS; round++) {
    const block = await native.timePagedRead(one, { warmup: 1, minReps: 3, minTimeMs: opts.minTimeMs / READ_ALONE_ROUNDS, maxTimeMs: Math.max(opts.minTimeMs, 50) });
    readAlone = Math.max(readAlone, fastestRate(bytes, block));
    for (const quarter of quarters) {
      const call = await native.timePagedRead(quarter, { warmup: 0, minReps: 1, maxReps: 1, minTimeMs: 0 });
      dramRead = Math.max(dramRead, fastestRate(bytesPerCall, call));
    }
  }
  return readAlone > 0 && dramRead > 0 ? { readAloneBytesPerSec: readAlone, dramReadBytesPerSec: dramRead } : null;
}
