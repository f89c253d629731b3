// The benchmark scripts' inputs: npm run bench:lsp edits every HuggingFace config of
// test/fixtures/configs, a folder that also holds a README.md (which has no layer count).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { configDocs } from '../../scripts/bench-lsp';
import { tempDir } from '../fixtures/tmp';

const CONFIGS = resolve(import.meta.dirname, '../fixtures/configs');

test('bench:lsp takes every *.config.json of the fixtures and nothing else', () => {
  const expected = readdirSync(CONFIGS).filter((n) => n.endsWith('.config.json')).sort();
  assert.ok(readdirSync(CONFIGS).includes('README.md'), 'the folder holds a README.md, which must be left out');
  const docs = configDocs(CONFIGS);
  assert.deepEqual(docs.map((d) => d.name), expected);
  // Llama-3.1-8B has 32 layers (model card); the edit rewrites 32 to 33.
  const llama = docs.find((d) => d.name === 'Meta-Llama-3-8B.config.json')!;
  assert.deepEqual(llama.values, ['32', '33']);
  // gpt2 spells it n_layer: 12.
  assert.deepEqual(docs.find((d) => d.name === 'gpt2.config.json')!.values, ['12', '13']);
});

test('bench:lsp names a config without a layer count instead of crashing on null', () => {
  const dir = tempDir('bench-lsp-');
  writeFileSync(join(dir, 'nolayers.config.json'), '{"hidden_size": 8}');
  assert.throws(() => configDocs(dir), /nolayers\.config\.json: no num_hidden_layers or n_layer/);
});

test('bench:kernels targets: a case that did not run says not measured, with no "on ?" placeholder', async () => {
  const { checkTargets } = await import('../../scripts/bench-kernels');
  const lines = checkTargets([], []);
  const bf16 = lines.filter((l) => l.startsWith('flash bf16 N=4k D=128'));
  assert.deepEqual(bf16, [
    'flash bf16 N=4k D=128 no slower than fp32 (fp32 time / bf16 time): not measured by wall time; not measured by CPU time',
    'flash bf16 N=4k D=128 causal no slower than fp32 (fp32 time / bf16 time): not measured by wall time; not measured by CPU time',
  ]);
  for (const l of lines) assert.doesNotMatch(l, /\?/, l);
});

test('bench:kernels targets under --quick (N=1k, ctx 4k only) and --decode say the case was not run, not that its measurement failed (s51 nc-cli #12)', async () => {
  const { checkTargets } = await import('../../scripts/bench-kernels');
  const quick = checkTargets([], [], { quick: true });
  // 4 flash fp32 lines (N 4k and 16k, causal or not), 2 bf16 lines, 1 decode 32k line; the onnxruntime line
  // is about shapes that ran, so it keeps its own words.
  assert.deepEqual(quick.slice(0, 7), [
    'flash fp32 N=4k D=128 vs fp32 FMA peak: not run (--quick runs N=1k and ctx 4k only)',
    'flash fp32 N=4k D=128 causal vs fp32 FMA peak: not run (--quick runs N=1k and ctx 4k only)',
    'flash fp32 N=16k D=128 vs fp32 FMA peak: not run (--quick runs N=1k and ctx 4k only)',
    'flash fp32 N=16k D=128 causal vs fp32 FMA peak: not run (--quick runs N=1k and ctx 4k only)',
    'flash bf16 N=4k D=128 no slower than fp32: not run (--quick runs N=1k and ctx 4k only)',
    'flash bf16 N=4k D=128 causal no slower than fp32: not run (--quick runs N=1k and ctx 4k only)',
    'decode ctx=32k vs DRAM read bandwidth: not run (--quick runs N=1k and ctx 4k only)',
  ]);
  for (const l of quick) assert.doesNotMatch(l, /not measured by/, l);
  const decodeOnly = checkTargets([], [], { decodeOnly: true });
  assert.equal(decodeOnly[0], 'flash fp32 N=4k D=128 vs fp32 FMA peak: not run (--decode runs decode only)');
  // Without --quick a missing 32k decode row is a case that should have run: still "not measured".
  assert.equal(decodeOnly[6], 'decode ctx=32k vs DRAM read bandwidth: not measured by wall time; not measured by CPU time');
});

test('bench:kernels rows name batch, heads and head_dim as bench writes its shapes, so a rate is reproducible from its row (s51 nc-cli #11)', async () => {
  const { rowLabel } = await import('../../scripts/bench-kernels');
  // The flash rows: B=1, 8 heads (MHA), N=1k, D=128: 4 · 1 · 8 · 1,024² · 128 = 4.29 GFLOP, so 17.9 GFLOP/s
  // is 240 ms, as the nc-cli run printed; the old label ("flash N=1k D=128") named neither B nor H.
  assert.equal(rowLabel({ batchSize: 1, numHeads: 8, numKvHeads: 8, headDim: 128, seqLenQ: 1024, seqLenK: 1024, causal: false, slidingWindow: null }), 'flash B=1 N=1k H=8/8 D=128');
  assert.equal(rowLabel({ batchSize: 1, numHeads: 8, numKvHeads: 8, headDim: 64, seqLenQ: 16384, seqLenK: 16384, causal: true, slidingWindow: null }), 'flash B=1 N=16k H=8/8 D=64 causal');
  // Decode at Llama-3.1-8B's heads (32/8, D 128): K+V 2 · 4,096 · 8 · 128 · 2 B = 16 MiB a sequence.
  assert.equal(
    rowLabel({ batchSize: 1, numHeads: 32, numKvHeads: 8, headDim: 128, seqLenQ: 1, seqLenK: 4096, causal: false, slidingWindow: null, pageSize: 16 }, { pageOrder: 'scattered', layout: 'NHD' }),
    'decode B=1 ctx=4k H=32/8 D=128 p16 scattered NHD',
  );
});

test('bench:kernels targets: each decode 32k verdict names its page size (16 and 128 tokens run side by side) and its pool layout, and sets the pages read alone against the read bandwidth by wall and by CPU time', async () => {
  const { checkTargets } = await import('../../scripts/bench-kernels');
  type Rows = Parameters<typeof checkTargets>[0];
  const row = (pageSize: number, fraction: number, layout = 'NHD') => ({
    label: `decode B=1 ctx=32k p${pageSize} consecutive ${layout}`,
    dtype: 'bf16/bf16',
    layout,
    kernel: {
      kernel: 'paged_decode', pageOrder: 'consecutive', ceiling: 'DRAM read bandwidth', fractionOfPeak: fraction, medianNs: 1e6,
      shape: { batchSize: 1, numHeads: 32, numKvHeads: 8, headDim: 128, seqLenQ: 1, seqLenK: 32768, causal: false, slidingWindow: null, pageSize },
    },
  });
  // p16: the kernel 1 ms at 50 % of the read bandwidth; its pages read alone in 1.25 ms of wall
  // time (40 %) and 1.2 ms of process CPU time on 2 threads (0.6 ms a thread: 0.5 / 0.6 = 83 %);
  // in the same rounds the kernel 1.5 ms (1.25 / 1.5 = 83 % of read alone) and 1.6 ms of CPU
  // (1.2 / 1.6 = 75 %); arithmetic alone 0.5 ms: overlap (1.5 - 1.25) / (1.75 - 1.25) = 0.5.
  const bounds = { pageReadNs: 1.25e6, pageReadCpuNs: 1.2e6, pageKernelNs: 1.5e6, pageKernelCpuNs: 1.6e6, pageComputeNs: 0.5e6 };
  const rows = [{ ...row(16, 0.5), ...bounds }, row(128, 0.85, 'vnni16')] as unknown as Rows;
  const cpu = [
    { case: 'decode B=1 ctx=32k p16 consecutive NHD', dtype: 'bf16/bf16', threads: 2, kernelCpuMedianNs: 1e6, kernelFraction: 0.5 },
    { case: 'decode B=1 ctx=32k p128 consecutive vnni16', dtype: 'bf16/bf16', threads: 2, kernelCpuMedianNs: 1e6, kernelFraction: 0.85 },
  ];
  const decode = checkTargets(rows, cpu).filter((l) => l.startsWith('decode'));
  // 50 % is 30 points short of 80 % (1.6x); 85 % meets it.
  assert.deepEqual(decode, [
    'decode B=1 ctx=32k p16 consecutive NHD vs DRAM read bandwidth: MISSED by 30 points (50% < 80%; 1.6x short) by wall time; MISSED by 30 points (50% < 80%; 1.6x short) by CPU time; ' +
      'its pages read alone: 40% of it by wall time, 83% by CPU time, the kernel 83% of that in the same rounds (75% by CPU time) (overlap of reading and arithmetic 0.50: 0 full, 1 none)',
    'decode B=1 ctx=32k p128 consecutive vnni16 vs DRAM read bandwidth: met (85% >= 80%) by wall time; met (85% >= 80%) by CPU time',
  ]);
});

test('bench:kernels decode bounds: where the kernel lies between max(read, arithmetic) and read + arithmetic', async () => {
  const { decodeBounds } = await import('../../scripts/bench-kernels');
  // A 64 KiB page read alone in 2 µs (32.768 GB/s), its arithmetic in L2 1 µs (65.536 GB/s):
  // one after the other 3 µs (21.845 GB/s), fully overlapped 2 µs. A kernel taking 2.5 µs hides
  // half the arithmetic: overlap (2.5 - 2) / (3 - 2) = 0.5.
  const b = decodeBounds(65536, 2000, 1000, 2500);
  assert.equal(b.readGBps, 32.768);
  assert.equal(b.computeGBps, 65.536);
  assert.ok(Math.abs(b.serialGBps - 65536 / 3000) < 1e-12);
  assert.equal(b.kernelGBps, 26.2144);
  assert.equal(b.overlap, 0.5);
  assert.equal(decodeBounds(65536, 2000, 1000, 3000).overlap, 1); // none hidden
  assert.equal(decodeBounds(65536, 2000, 1000, 2000).overlap, 0); // all hidden
});

test('bench:kernels cache footnote: a row is marked read from cache by its pages read alone against a DRAM read timed with them (core/format.ts fromCacheBy)', async () => {
  const { fromCacheBy } = await import('../../core/format');
  // 16 MiB a call (16,777,216 B), one thread; the DRAM read beside it 30 GB/s. Read alone in 0.25 ms of CPU time:
  // 67.1 GB/s, 2.24x (cache). In 0.6 ms: 28.0 GB/s, 0.93x (DRAM). In 0.37 ms: 45.3 GB/s, 1.51x > 1.5x.
  // In 0.38 ms: 44.2 GB/s, 1.47x, under the threshold. measureReadAlone sets both rates on the row's case.
  const row = (readCpuNs: number | undefined, bound: 'memory' | 'compute' = 'memory', dramReadBytesPerSec = 30e9) =>
    ({ kernel: 'paged_decode' as const, backend: 'cpu' as const, bound, bytes: 16_777_216, ...(readCpuNs ? { readAloneBytesPerSec: 16_777_216 / (readCpuNs * 1e-9), dramReadBytesPerSec } : {}) });
  const env = {};
  assert.equal(fromCacheBy(row(0.25e6), env), 'read-rate');
  assert.equal(fromCacheBy(row(0.6e6), env), null);
  assert.equal(fromCacheBy(row(0.37e6), env), 'read-rate');
  assert.equal(fromCacheBy(row(0.38e6), env), null);
  assert.equal(fromCacheBy(row(0.25e6, 'compute'), env), null); // flash rows: never
  assert.equal(fromCacheBy(row(undefined), env), null); // no read-alone time
  assert.equal(fromCacheBy(row(0.25e6, 'memory', 0), env), null); // no DRAM read
});

test('paired timing (scripts/ab.ts): variants run in turn round by round, ratios per round', async () => {
  const { interleave, pairedRatio } = await import('../../scripts/ab');
  const order: number[] = [];
  // Round i (1, 2, 3) is a moment of load i: variant 0's block takes i ns of CPU, variant 1's
  // 2 i, so the per-round ratio of variant 1 to variant 0 is exactly 2 whatever the load.
  let calls = 0;
  const block = (v: number) => async () => {
    order.push(v);
    const load = Math.floor(calls++ / 2) + 1;
    const cpu = (v + 1) * load;
    return { cpu, wall: 10 * cpu };
  };
  const [a, b] = await interleave([block(0), block(1)], 3);
  assert.deepEqual(order, [0, 1, 0, 1, 0, 1]);
  assert.deepEqual(a!.map((t) => t.cpu), [1, 2, 3]);
  assert.deepEqual(b!.map((t) => t.cpu), [2, 4, 6]);
  const r = pairedRatio(b!, a!);
  assert.deepEqual(r.cpu.ratios, [2, 2, 2]);
  assert.deepEqual([r.cpu.median, r.cpu.min, r.cpu.max], [2, 2, 2]);
  assert.deepEqual(r.wall.ratios, [2, 2, 2]);
});

test('bench:kernels paired verdict: met at >= 1, not resolved inside the A/A spread, MISSED beyond it', async () => {
  const { pairedVerdict } = await import('../../scripts/bench-kernels');
  const spread = (median: number, min: number, max: number) => ({ ratios: [min, median, max], median, min, max });
  const figure = (ratio: number) => ({
    case: 'flash N=4k D=128', a: 'fp32', b: 'bf16', rounds: 3, runsPerBlock: 1,
    ratio: { cpu: spread(ratio, ratio - 0.01, ratio + 0.01), wall: spread(ratio, ratio, ratio) },
    // A/A from 0.95 to 1.04: the method cannot resolve a difference under 5 %.
    aa: { cpu: spread(1, 0.95, 1.04), wall: spread(1, 1, 1) },
  });
  assert.match(pairedVerdict(figure(1.02)), /^met \(fp32\/bf16 paired CPU time 1\.020 \(1\.01-1\.03\)/);
  assert.match(pairedVerdict(figure(0.97)), /^within A\/A noise/); // 3 % slower < the A/A's 5 %
  assert.match(pairedVerdict(figure(0.9)), /^MISSED .*A\/A fp32\/fp32 CPU 1\.000 \(0\.95-1\.04\); 3 rounds of fp32, bf16, fp32, 1 run a block\)$/);
});

test('bench:kernels WebAssembly table: within the width, its wall columns marked "noisy Nx" by the kernel tables\' rule and words (s52)', async () => {
  const { formatWasmComparison } = await import('../../scripts/bench-wasm');
  const { NOISY_MARK_NOTE } = await import('../../core/noise');
  const quiet = { p10: 1e6, p90: 1.5e6 };
  const c = {
    wasmFmaPeak: 31.8e9,
    cases: [{
      label: 'flash N=1k D=128 causal', dtype: 'fp32', nativeOneNs: 90.89e6, nativeNs: 70.52e6, wasmNs: 365.72e6, nativeOneCpuNs: 15.57e6, wasmCpuNs: 70.15e6,
      slowdown: 4.5, wallSlowdown: 4.0, fractionOfWasmPeak: 0.96,
      // WebAssembly's wall samples 200-454 ms: p90 / p10 = 2.27 >= 2, noisy; the native ones 1.5x, quiet.
      wallSpreads: { nativeOne: quiet, native: quiet, wasm: { p10: 200e6, p90: 454e6 } },
    }],
  };
  const text = formatWasmComparison(c, 2, 100);
  for (const line of text.split('\n')) assert.ok(line.length <= 100, line);
  assert.match(text, / 365\.72 noisy 2\.27x/);
  assert.doesNotMatch(text, /90\.89 noisy|70\.52 noisy/);
  assert.ok(text.replace(/\n +/g, ' ').includes(NOISY_MARK_NOTE), text);
  // Every figure of the row is printed, in whichever part it lands.
  for (const figure of ['90.89', '70.52', '15.57', '70.15', '4.5x', '4.0x', '96%']) assert.ok(text.includes(figure), figure);
  // No spread (a run written before wallSpreads): no mark, and no note.
  const bare = formatWasmComparison({ ...c, cases: [{ ...c.cases[0]!, wallSpreads: undefined }] }, 2, 100);
  assert.doesNotMatch(bare, /noisy/);
});
