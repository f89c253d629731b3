// Machine-peak microbenchmarks: features against the kernel's own view (/proc/cpuinfo), peaks
// against bounds that follow from the hardware's structure rather than from fixed figures, so
// the tests hold on any CPU and under load (every bound has a wide margin on the side that
// preemption can push a measurement towards, and a tight one on the side it cannot).
import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

import {
  cpuFeatures,
  lastLevelCacheOf,
  measureAmxBf16Peak,
  measureAvx512Bf16Peak,
  measureCoreClockHz,
  measureFp32FmaPeak,
  measurePeaks,
  measureReadBandwidth,
} from '../../native/peaks';
import { loadedBuild } from '../../native/binding';

// Under ATTNSCOPE_BACKEND=wasm (npm test runs this file that way too) the WebAssembly build runs
// one thread, sees no CPUID and has no core-clock loop: the bounds below that need those skip.
const wasm = loadedBuild().build === 'wasm';
const buildCores = wasm ? 1 : availableParallelism();

const X86_NAMES = ['avx2', 'fma', 'avx512f', 'avx512bw', 'avx512vl', 'avx512_bf16', 'avx512_fp16', 'amx_tile', 'amx_bf16', 'amx_int8'];

function procCpuinfoFlags(): Set<string> | null {
  if (!existsSync('/proc/cpuinfo')) return null;
  const line = readFileSync('/proc/cpuinfo', 'utf8').split('\n').find((l) => l.startsWith('flags'));
  return line ? new Set(line.slice(line.indexOf(':') + 1).trim().split(/\s+/)) : null;
}

/** fp32 lanes of the loop's vector: zmm 16, ymm 8, NEON / portable 4. */
function lanesOf(isa: string): number {
  return isa === 'avx512' ? 16 : isa === 'avx2' ? 8 : 4;
}

describe('cpuFeatures', () => {
  it('agrees with /proc/cpuinfo on every feature it reports', { skip: process.arch !== 'x64' || procCpuinfoFlags() === null || wasm }, () => {
    const flags = procCpuinfoFlags()!;
    const ours = new Set(cpuFeatures().names);
    for (const name of X86_NAMES) {
      assert.equal(ours.has(name), flags.has(name), `${name}: cpuFeatures says ${ours.has(name)}, /proc/cpuinfo says ${flags.has(name)}`);
    }
  });

  it('counts the CPUs this process may use as Node does, and names the CPU', () => {
    const f = cpuFeatures();
    assert.equal(f.logicalCores, buildCores);
    assert.ok(f.model.length > 0 && f.model !== 'unknown CPU', `model: ${f.model}`);
    if (process.arch === 'x64' && !wasm) assert.match(f.vendor, /^(GenuineIntel|AuthenticAMD|HygonGenuine|CentaurHauls| {2}Shanghai {2})$/);
  });
});

/** The largest data/unified cache of cpu0 from sysfs, read here independently (as lscpu does); null without sysfs. */
function sysfsLastLevelCache(): number | null {
  const base = '/sys/devices/system/cpu/cpu0/cache';
  if (!existsSync(base)) return null;
  let best: { level: number; bytes: number } | null = null;
  for (const dir of readdirSync(base).filter((d) => /^index\d+$/.test(d))) {
    const read = (f: string) => readFileSync(`${base}/${dir}/${f}`, 'utf8').trim();
    if (!/^(Data|Unified)$/.test(read('type'))) continue;
    const m = /^(\d+)([KMG]?)$/.exec(read('size'));
    if (!m) continue;
    const bytes = Number(m[1]) * ({ '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 } as Record<string, number>)[m[2]!]!;
    const level = Number(read('level'));
    if (!best || level > best.level) best = { level, bytes };
  }
  return best?.bytes ?? null;
}

describe('cpuFeatures lastLevelCacheBytes', () => {
  it('is the largest cache level sysfs lists for cpu0 (glibc sysconf read 320 MiB for a 32 MiB L3 on an EPYC guest)', { skip: wasm || sysfsLastLevelCache() === null ? 'no sysfs cache directory (or WebAssembly)' : false }, () => {
    assert.equal(cpuFeatures().lastLevelCacheBytes, sysfsLastLevelCache());
    assert.equal(cpuFeatures().lastLevelCacheSource, 'sysfs');
  });

  it('is never the 508 MiB that glibc\'s sysconf (CPUID 0x80000006, the host socket\'s L3) reports to a 2-vCPU Zen 5 guest', () => {
    // No CCX, Zen 1 to 5, has more than 32 MiB of L3 without 3D V-Cache (96 MiB with it): anything larger is a socket's sum.
    const f = cpuFeatures();
    assert.ok(f.lastLevelCacheBytes <= 96 * 2 ** 20 || f.vendor !== 'AuthenticAMD', `${f.lastLevelCacheBytes} B from ${f.lastLevelCacheSource}`);
    assert.equal(f.lastLevelCacheBytes === 0, f.lastLevelCacheSource === '');
  });
});

describe('lastLevelCacheOf: sysfs, then CPUID cache leaves (hand values)', { skip: wasm ? 'the WebAssembly build has no such entry' : false }, () => {
  const dir = (name: string) => fileURLToPath(new URL(`../fixtures/sysfs-cache/${name}`, import.meta.url));
  // Zen 5's L3 as Fn8000_001D subleaf 3 reports it (AMD APM Vol. 3): EAX type 3 (unified) | level 3 << 5 | self-init
  // 1 << 8 | (16 threads sharing - 1) << 14 = 0x3c163; EBX (16 ways - 1) << 22 | (1 partition - 1) << 12 | (64 B
  // line - 1) = 0x03c0003f; ECX 32768 sets - 1 = 0x7fff: 16 x 1 x 64 x 32768 = 33,554,432 B (32 MiB).
  const zen5L3 = [0x3c163, 0x03c0003f, 0x7fff];
  // Its L2: type 3, level 2 (0x43 | 0x100 | 1 << 14 for 2 threads = 0x4143), 8 ways, 64 B lines, 2048 sets: 1 MiB.
  const zen5L2 = [0x4143, 0x01c0003f, 0x7ff];

  it('takes the data or unified cache of the highest level sysfs lists: L3 32768K = 33,554,432 B on a Zen 5 cpu0', () => {
    // The fixture lists L1d 48K, L1i 32K, L2 1024K, L3 32768K (Zen 5's per CCX): 32768 x 1024 = 33,554,432. Sysfs wins over leaves.
    assert.deepEqual({ ...lastLevelCacheOf(dir('zen5-cpu0'), zen5L2) }, { level: 3, bytes: 33_554_432, source: 'sysfs' });
  });

  it('falls back to the CPUID leaves where sysfs lists none: the highest level, ways x partitions x line x sets', () => {
    assert.deepEqual({ ...lastLevelCacheOf(dir('absent'), [...zen5L2, ...zen5L3]) }, { level: 3, bytes: 33_554_432, source: 'cpuid' });
    assert.deepEqual({ ...lastLevelCacheOf(dir('instruction-only'), zen5L2) }, { level: 2, bytes: 1_048_576, source: 'cpuid' });
    // A type-0 subleaf ends the list; an instruction cache (type 2) is skipped.
    assert.deepEqual({ ...lastLevelCacheOf(dir('absent'), [0x4122, 0x01c0003f, 0x3f, 0, 0, 0, ...zen5L3]) }, { level: 0, bytes: 0, source: '' });
  });

  it('is unknown with neither (the 2-vCPU Zen 5 guest: no sysfs cache folder, leaf 0x8000001D all zeros)', () => {
    assert.deepEqual({ ...lastLevelCacheOf(dir('absent'), [0, 0, 0]) }, { level: 0, bytes: 0, source: '' });
    assert.throws(() => lastLevelCacheOf(dir('absent'), [1, 2]), RangeError);
  });
});

describe('fp32 FMA peak', () => {
  it('is within the FLOP per cycle one core can issue: one FMA pipe x 0.4 .. two pipes x 1.15', { skip: wasm ? 'no core-clock loop in WebAssembly' : false }, async () => {
    // An x86-64 core issues at most two FMA per cycle on the loop's vectors (Zen 4/5, Sapphire
    // Rapids) and at least one; arm64 cores at most four 128-bit FMA (Neoverse V2, Apple M).
    // The clock is measured right before and right after on one thread too, so turbo moves
    // both; the faster of the two clock readings counts (a loaded machine reads a clock low,
    // never high). 1.15 covers turbo drift between them, 0.4 preemption by other processes.
    const before = await measureCoreClockHz({ durationMs: 100 });
    const one = await measureFp32FmaPeak({ threads: 1, durationMs: 150 });
    const hz = Math.max(before, await measureCoreClockHz({ durationMs: 100 }));
    assert.ok(one.available, one.reason);
    const perCycle = one.value / hz;
    const lanes = lanesOf(one.isa);
    const pipes = one.isa === 'neon' ? 4 : 2;
    assert.ok(perCycle <= lanes * 2 * pipes * 1.15, `${perCycle.toFixed(1)} FLOP/cycle > ${lanes * 2 * pipes} (${one.isa}, ${(hz / 1e9).toFixed(2)} GHz)`);
    assert.ok(perCycle >= lanes * 2 * 0.4, `${perCycle.toFixed(1)} FLOP/cycle < 0.4 x ${lanes * 2} (${one.isa})`);
  });

  it('on all cores is at most cores x the one-core peak (threads that did not overlap are not summed)', async () => {
    // No lower bound: on a shared machine other processes may hold every core but one. The
    // one-core peak is measured before and after the all-core one and the higher counts, as for
    // the clock above: a loaded machine reads a peak low, never high (one low one-core reading
    // failed this bound at load 15).
    const cores = buildCores;
    const before = await measureFp32FmaPeak({ threads: 1, durationMs: 120 });
    const all = await measureFp32FmaPeak({ durationMs: 200 });
    const after = await measureFp32FmaPeak({ threads: 1, durationMs: 120 });
    const one = Math.max(before.value, after.value);
    assert.equal(all.threads, cores);
    assert.ok(all.value <= cores * one * 1.25, `${all.value} > ${cores} x ${one}`);
  });
});

describe('bf16 peaks', () => {
  it('AVX512-BF16: at most 2 vdpbf16ps per cycle, and 0.4x to 2.6x the fp32 FMA peak', async (t) => {
    // One thread each: a single thread finds a free core on a loaded machine far more often.
    let bf16 = await measureAvx512Bf16Peak({ threads: 1, durationMs: 150 });
    if (!cpuFeatures().names.includes('avx512_bf16')) {
      assert.equal(bf16.available, false);
      assert.match(bf16.reason, /avx512_bf16|x86-64/);
      t.skip('no AVX512-BF16 on this CPU: checked that it says so');
      return;
    }
    // Best of three alternating windows each: on a shared machine one window of either loop
    // can lose the core to another process, which moved the ratio to 2.5 in a single pair.
    let fp32 = await measureFp32FmaPeak({ threads: 1, durationMs: 150 });
    for (let i = 0; i < 2; i++) {
      const b = await measureAvx512Bf16Peak({ threads: 1, durationMs: 150 });
      const f = await measureFp32FmaPeak({ threads: 1, durationMs: 150 });
      if (b.value > bf16.value) bf16 = b;
      if (f.value > fp32.value) fp32 = f;
    }
    const hz = await measureCoreClockHz({ durationMs: 100 });
    assert.ok(bf16.available && fp32.available);
    // vdpbf16ps zmm: 16 lanes x 2 pairs x 2 FLOP = 64 FLOP; no core issues more than two per
    // cycle (a loop whose chains the compiler merged would count 16x and fail here).
    assert.ok(bf16.value / hz <= 128 * 1.15, `${(bf16.value / hz).toFixed(1)} FLOP/cycle > 128`);
    // vdpbf16ps does twice an FMA's FLOP at the same issue rate at best (2.0x on Zen 5), so 2.6
    // leaves 30% for a window the fp32 loop lost to another process (2.35 seen in CI on Zen 5);
    // a merged-chain loop would show 16x.
    const ratio = bf16.value / fp32.value;
    assert.ok(ratio >= 0.4 && ratio <= 2.6, `bf16 / fp32 = ${ratio.toFixed(2)}`);
  });

  it('AMX: unavailable with the reason when CPUID lacks it, else above the fp32 FMA peak', async () => {
    const amx = await measureAmxBf16Peak({ durationMs: 150 });
    const names = cpuFeatures().names;
    if (!names.includes('amx_bf16') || !names.includes('amx_tile')) {
      assert.equal(amx.available, false);
      assert.equal(amx.value, 0);
      assert.match(amx.reason, /amx|AMX/);
      return;
    }
    if (!amx.available) {
      // The CPU has AMX; only the OS may refuse, and then it must say so.
      assert.match(amx.reason, /OS|Linux|XCR0/);
      return;
    }
    const fp32 = await measureFp32FmaPeak({ durationMs: 150 });
    assert.ok(amx.value > fp32.value, `AMX ${amx.value} <= fp32 FMA ${fp32.value}`);
  });
});

describe('read bandwidth', () => {
  it('streams a DRAM-sized buffer slower than a cache-sized one, at a plausible rate', async () => {
    // 2 MiB per thread stays in L2/L3 on every current server and laptop CPU.
    const cached = await measureReadBandwidth({ durationMs: 100, bufferBytes: buildCores * 2 * 2 ** 20 });
    const dram = await measureReadBandwidth({ durationMs: 400 });
    assert.ok(cached.available && dram.available, `${cached.reason} ${dram.reason}`);
    assert.match(dram.method, /(256|[3-9]\d\d|\d{4,}) MiB buffer/);
    // The WebAssembly build reads on one thread through simd128 loads, whose own rate bounds it from
    // cache and DRAM alike (s51 CI on the Zen 5 VM: DRAM 26.8 GB/s, cache 26.5 GB/s; it passed in
    // earlier runs by noise): there DRAM must not be faster than the cache beyond noise (1.25x).
    const bound = wasm ? 1.25 * cached.value : cached.value;
    assert.ok(dram.value < bound, `DRAM ${dram.value} B/s >= ${wasm ? '1.25x ' : ''}cache ${cached.value} B/s`);
    // Unit check: 0.5 GB/s (slower than any DRAM since DDR2) .. 5 TB/s (above any CPU socket).
    assert.ok(dram.value > 5e8 && dram.value < 5e12, `${dram.value} B/s`);
  });
});

describe('measurePeaks', () => {
  it('fills Environment.peaks with every measured ceiling and a note for each of the four', async () => {
    const peaks = await measurePeaks({ durationMs: 600 });
    assert.ok(peaks.fp32FlopsPerSec! > 0);
    assert.ok(peaks.readBytesPerSec! > 0);
    const notes = peaks.notes!;
    for (const key of ['fp32FlopsPerSec', 'avx512Bf16FlopsPerSec', 'bf16AmxFlopsPerSec', 'readBytesPerSec'] as const) {
      assert.ok(notes[key], `note for ${key}`);
      assert.equal(peaks[key] === undefined, notes[key]!.startsWith('unavailable: '), `${key}: ${notes[key]}`);
    }
  });

  it('rejects bad options with the option named', async () => {
    await assert.rejects(measurePeaks({ threads: -1 }), (e: unknown) => e instanceof RangeError && /threads/.test(e.message));
    await assert.rejects(measurePeaks({ threads: 1.5 }), RangeError);
    await assert.rejects(measurePeaks({ durationMs: '1s' as unknown as number }), (e: unknown) => e instanceof TypeError && /durationMs/.test(e.message));
    assert.throws(() => measureReadBandwidth({ bufferBytes: -4096 }), (e: unknown) => e instanceof RangeError && /bufferBytes/.test(e.message));
    assert.throws(() => measureReadBandwidth({ threads: 2, bufferBytes: 2 ** 21 }), (e: unknown) => e instanceof RangeError && /2 MiB per thread/.test(e.message));
  });
});
