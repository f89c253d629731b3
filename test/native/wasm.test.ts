// The WebAssembly build against the native addon, both loaded in this one process by their
// files (the loader picks one per process): the serving simulator and the page allocator give
// the same results bit for bit (same C++, no floating-point reassociation across builds: the
// simulator's sums run in the same order), the kernels agree within fp32 rounding (SIMD128 has
// no FMA). Then the loader: ATTNSCOPE_BACKEND, and the CLI from a copy of the package whose
// native addon is hidden (WebAssembly, saying so) and whose both builds are (one message naming
// what it tried). Where em++ is on PATH, `npm install` must have built the module: a missing one
// is a failure, not a skip.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, it } from 'node:test';

import { ADDON_FILE, WASM_FILE } from '../../native/binding';
import { uniformStream } from '../../runner/random';
import { dispatchOnline } from '../../runner/simulate/dataParallel';
import { randomUniform } from '../../runner/inputs';
import { maxAbsDiff } from '../../runner/measure';
import { tempDir } from '../fixtures/tmp';
import { unwrapped } from '../fixtures/unwrap';

const root = join(__dirname, '..', '..');
const nativeFile = join(root, 'native', 'build', 'Release', ADDON_FILE);
const wasmDir = join(root, 'native', 'wasm', 'build');
const wasmFile = join(wasmDir, WASM_FILE);
const emxx = (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, 'em++')));

it('where em++ is on PATH, npm install built the WebAssembly module', { skip: emxx ? false : 'em++ not on PATH' }, () => {
  assert.ok(existsSync(wasmFile), `${wasmFile} missing although em++ is on PATH`);
});

const both = existsSync(nativeFile) && existsSync(wasmFile);
const skip = both ? false : 'needs both the native addon and the WebAssembly module built';

/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */
const builds = both ? { native: require(nativeFile) as any, wasm: require(wasmFile) as any } : null;
/* eslint-enable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */

/**
 * n requests over ~n/40 s with prompts of 50..2050 tokens, outputs of 1..400, a quarter sharing
 * one of three system prompts (a segment of 64..320 tokens): prefix hits, and with a small pool,
 * preemptions.
 */
function workload(n: number, seed: number) {
  const next = uniformStream(seed);
  const arrivalS = new Float64Array(n), promptLen = new Int32Array(n), outputLen = new Int32Array(n);
  const segmentStart = new Int32Array(n + 1);
  const stream: number[] = [], end: number[] = [];
  let t = 0;
  for (let i = 0; i < n; i++) {
    t += next() / 20;
    arrivalS[i] = t;
    promptLen[i] = 50 + Math.floor(next() * 2000);
    outputLen[i] = 1 + Math.floor(next() * 400);
    if (next() < 0.25) {
      const s = Math.floor(next() * 3);
      stream.push(s);
      end.push(Math.min(promptLen[i]!, 64 * (s + 1) + 64));
    }
    segmentStart[i + 1] = stream.length;
  }
  return [arrivalS, promptLen, outputLen, segmentStart, new Float64Array(stream), new Int32Array(end)] as const;
}

const baseConfig = {
  numPages: 3000, pageSize: 16, watermarkPages: 30, slidingWindow: 0, enablePrefixCaching: true, maxNumSeqs: 64,
  maxNumBatchedTokens: 2048, maxModelLen: 4096, perStepS: 1e-3, weightsS: 5e-3, perKvTokenS: 2e-8, perTokenS: 2e-5,
  perPairS: 1e-9, maxSamples: 500,
};

describe('the WebAssembly build against the native addon', { skip }, () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['paged, prefix caching, a pool small enough to preempt', { ...baseConfig, layout: 0, numPages: 600 }],
    ['paged, request by request (coast: false)', { ...baseConfig, layout: 0, numPages: 600, coast: false }],
    ['paged, every full page hashed (privateTails: false)', { ...baseConfig, layout: 0, numPages: 600, privateTails: false }],
    ['paged with a sliding window', { ...baseConfig, layout: 0, slidingWindow: 512, enablePrefixCaching: false }],
    ['paged, a hybrid pool to preempt (every KV-cache group charged, window blocks released)', { ...baseConfig, layout: 0, numPages: 1200, slidingWindow: 128, fullGroups: 1, slidingGroups: 2 }],
    ['contiguous, max_model_len each', { ...baseConfig, layout: 1 }],
    ['contiguous, prompt + output each', { ...baseConfig, layout: 2 }],
    ['paged, MoE: the routed experts read in the share a step touches', { ...baseConfig, layout: 0, expertWeightsS: 2e-2, numExperts: 64, numExpertsPerTok: 4 }],
    ['paged, sliding-window layers in the step time: min(context, W) KV tokens and pairs', { ...baseConfig, layout: 0, stepSlidingWindow: 128, perSlidingKvTokenS: 2e-8, perSlidingPairS: 1e-9 }],
    ['paged, chunked local-attention layers in the step time: the query\'s own chunk of C tokens', { ...baseConfig, layout: 0, stepAttentionChunkSize: 96, perSlidingKvTokenS: 2e-8, perSlidingPairS: 1e-9 }],
    ['paged, tensor-parallel all-reduces after the max: one-shot up to 12 tokens, multimem from 40 to 300, the ring\'s large-message rate from 600, two-shot otherwise', { ...baseConfig, layout: 0, allReduceS: 8e-4, perTokenAllReduceS: 3e-6, perTokenOneShotAllReduceS: 1.2e-5, oneShotAllReduceTokens: 12, perTokenMultimemAllReduceS: 2e-6, multimemAllReduceMinTokens: 40, multimemAllReduceMaxTokens: 300, perTokenRingAllReduceS: 1.5e-6, ringAllReduceMinTokens: 600, ringAllReduceS: 1.9e-3 }],
    // abi.cc reads each stage as a row of 22 (native/simulator.ts SIM_COEFFICIENTS' order, the ring's latency last): every non-zero
    // coefficient differs within and between the stages, so a row read one place off gives other step times.
    ['pipeline parallel, 2 stages of their own coefficients, each with one-shot, multimem and the ring\'s large-message band', { ...baseConfig, layout: 0, allReduceS: 8e-4, perTokenAllReduceS: 3e-6, perTokenOneShotAllReduceS: 1.2e-5, oneShotAllReduceTokens: 12, perTokenMultimemAllReduceS: 2e-6, multimemAllReduceMinTokens: 40, multimemAllReduceMaxTokens: 300, perTokenRingAllReduceS: 1.5e-6, ringAllReduceMinTokens: 600, ringAllReduceS: 1.9e-3, stageSendPerTokenS: 3e-7,
      stages: [1, 1.7].map((f) => ({ perStepS: 5e-4 * f, weightsS: 2.5e-3 * f, expertWeightsS: 0, perKvTokenS: 1.1e-8 * f, perTokenS: 1.2e-5 * f, perLogitsS: 1.3e-6 * f, perPairS: 5e-10 * f, perDecodePairS: 6e-10 * f,
        perSlidingKvTokenS: 0, perSlidingPairS: 0, perDecodeTokenS: 1.4e-5 * f, perPrefillContextTokenS: 1.5e-7 * f, perRequestStateS: 1.6e-6 * f, perPrefillContextKvS: 1.7e-9 * f, decodeWeightsS: 2.6e-3 * f, prefillWeightsS: 2.4e-3 * f,
        allReduceS: 4e-4 * f, perTokenAllReduceS: 1.8e-6 * f, perTokenOneShotAllReduceS: 6.5e-6 * f, perTokenMultimemAllReduceS: 1.1e-6 * f, perTokenRingAllReduceS: 0.9e-6 * f, ringAllReduceS: 9.5e-4 * f })) }],
  ];
  for (const [name, config] of cases) {
    it(`the simulator gives the same run sample for sample: ${name}`, () => {
      const requests = workload(1500, 7);
      const [a, b] = [builds!.native, builds!.wasm].map((m) => {
        const sim = new m.ServingSimulator(config, ...requests);
        while (!sim.run(997));
        return { samples: sim.samples() as Float64Array, totals: sim.totals(), times: sim.times() };
      });
      assert.ok(a!.samples.length > 100, `${a!.samples.length} packed sample fields`);
      assert.equal(a!.totals.completed + a!.totals.rejected, 1500);
      if (name.includes('preempt')) assert.ok(a!.totals.preemptions > 0, 'the small pool must preempt');
      if (name.includes('prefix')) assert.ok(a!.totals.prefixHitTokens > 0, 'the shared prompts must hit');
      assert.deepEqual(b!.totals, a!.totals);
      assert.ok(Buffer.from(b!.samples.buffer).equals(Buffer.from(a!.samples.buffer)), 'samples differ');
      assert.deepEqual(b!.times, a!.times);
    });
  }

  it('dispatched engines (data parallelism, runner/simulate/dataParallel.ts) give the same dispatch and runs in both builds', async () => {
    const [arrivalS, promptLen, outputLen, segmentStart, segmentStream, segmentEnd] = workload(600, 11);
    const requests = { arrivalS, promptLen, outputLen, segmentStart, segmentStream, segmentEnd };
    const [a, b] = await Promise.all([builds!.native, builds!.wasm].map(async (m) => {
      const engines: any[] = new Array(3); // eslint-disable-line @typescript-eslint/no-explicit-any
      const { engineOf } = await dispatchOnline(requests, 3, engines, () => new m.ServingSimulator({ ...baseConfig, layout: 0, numPages: 600 }, ...workload(600, 11), true));
      const out = { engineOf: [...engineOf], totals: engines.map((e) => e.totals()), times: engines.map((e) => e.times()) };
      for (const e of engines) e.free();
      return out;
    }));
    assert.ok(a!.totals.every((t: { completed: number }) => t.completed > 100));
    assert.deepEqual(b, a);
    for (const m of [builds!.native, builds!.wasm]) {
      const plain = new m.ServingSimulator({ ...baseConfig, layout: 0 }, ...workload(5, 3));
      assert.throws(() => plain.add(0), /need a dispatched simulator/);
      const sim = new m.ServingSimulator({ ...baseConfig, layout: 0 }, ...workload(5, 3), true);
      sim.add(1);
      assert.throws(() => sim.add(0), /precedes the engine's last request's arrival/);
      assert.throws(() => sim.add(5), /index must be an integer in \[0, 5\)/);
      plain.free();
      sim.free();
    }
  });

  it("a dispatched engine's refusal names the trace's request and segment, the same in both builds (the WebAssembly build named segment 0 of its one-request copy)", () => {
    // Request 0: one segment (fine); request 1: its segment, the trace's segment 1, on stream 2^30
    // (out of range); request 2: its segment ends past its 6-token prompt.
    const columns = [new Float64Array([0, 1, 2]), new Int32Array([8, 8, 6]), new Int32Array([4, 4, 4]), new Int32Array([0, 1, 2, 3]),
      new Float64Array([5, 2 ** 30, 5]), new Int32Array([4, 4, 7])] as const;
    const messages = [builds!.native, builds!.wasm].map((m) => {
      const sim = new m.ServingSimulator({ ...baseConfig, layout: 0 }, ...columns, true);
      sim.add(0);
      const refusals = [1, 2].map((i) => {
        try {
          sim.add(i);
        } catch (e) {
          assert.ok(e instanceof RangeError);
          return e.message;
        }
        return 'accepted';
      });
      sim.free();
      return refusals;
    });
    assert.deepEqual(messages[0], ['segmentStream[1] must be an integer in [0, 2^30)', 'segmentEnd of request 2 must ascend within its prompt']);
    assert.deepEqual(messages[1], messages[0]);
  });

  it('free() releases a simulator at once in both builds: every later call throws instead of reading freed memory', () => {
    for (const m of [builds!.native, builds!.wasm]) {
      const sim = new m.ServingSimulator({ ...baseConfig, layout: 0 }, ...workload(50, 3));
      while (!sim.run(997));
      assert.equal(sim.totals().completed + sim.totals().rejected, 50);
      sim.free();
      for (const call of [() => sim.run(1), () => sim.totals(), () => sim.times(), () => sim.samples(), () => sim.load(1)]) assert.throws(call, /ServingSimulator: used after free\(\)/);
      sim.free(); // a second free is no error
    }
  });

  it('the allocator takes the same pages, copies the same KV on write and counts the same', () => {
    const results = [builds!.native, builds!.wasm].map((m) => {
      const a = new m.PageAllocator(8, 4, 0, 0, true);
      const k = new Float32Array(32).map((_, i) => i), v = k.map((x) => -x);
      a.attachKvPool(k, v, 4);
      const prompt = Int32Array.from({ length: 10 }, (_, i) => 100 + i);
      const log: unknown[] = [a.allocate(1, 10, -1, prompt), a.fork(1, 2), a.append(2, 1, Int32Array.of(7)), a.allocate(3, 10, 4, prompt)];
      log.push(a.append(1, 30, null), a.free(2), a.blockTable(1), a.blockTable(3), a.numTokens(3), a.sequenceIds());
      return { log, stats: a.stats(), pages: a.pages(), k: Array.from(k), v: Array.from(v) };
    });
    // The fork's append copied the shared last page (copy on write): the pool arrays changed.
    assert.notDeepEqual(results[0]!.k, Array.from({ length: 32 }, (_, i) => i));
    assert.deepEqual(results[1], results[0]);
  });

  it('the kernels agree within fp32 rounding (flash forward and paged decode)', async () => {
    const [b, n, h, hkv, d] = [2, 77, 4, 2, 64];
    const q = randomUniform(b * n * h * d, 1), k = randomUniform(b * n * hkv * d, 2), v = randomUniform(b * n * hkv * d, 3);
    const spec = { q, k, v, dtype: 0, batch: b, seqLenQ: n, seqLenK: n, numHeads: h, numKvHeads: hkv, headDim: d,
      softmaxScale: 0, causal: true, window: 0, threads: 1, simd: 'auto' };
    const outs = [];
    for (const m of [builds!.native, builds!.wasm]) {
      const o = new Float32Array(b * n * h * d), lse = new Float32Array(b * h * n);
      await m.kernelsFlashForward({ ...spec, o, lse });
      outs.push({ o, lse });
    }
    // |O| <= 1 (a mean of values in [-1, 1]); fp32 accumulation over 77 keys: a few ulp of 1.
    assert.ok(maxAbsDiff(outs[0]!.o, outs[1]!.o) < 1e-5, `O differs by ${maxAbsDiff(outs[0]!.o, outs[1]!.o)}`);
    assert.ok(maxAbsDiff(outs[0]!.lse, outs[1]!.lse) < 1e-5);
    assert.ok(outs[1]!.o.some((x) => x !== 0));

    const pages = 12, ps = 16;
    const kp = randomUniform(pages * ps * hkv * d, 4), vp = randomUniform(pages * ps * hkv * d, 5);
    const decode = { q: randomUniform(b * h * d, 6), kPages: kp, vPages: vp, blockTable: Int32Array.from({ length: 12 }, (_, i) => 11 - i),
      contextLens: Int32Array.of(90, 5), dtype: 0, kvDtype: 0, batch: b, numHeads: h, numKvHeads: hkv, headDim: d, numPages: pages,
      pageSize: ps, maxPagesPerSeq: 6, softmaxScale: 0, partitionTokens: 32, threads: 1, simd: 'auto', kvCacheLayout: 0 };
    // The whole context, and a window of 40 (tokens 50..89 of the 90: from slot 2 of page 3).
    for (const window of [0, 40]) {
      const decoded = [];
      for (const m of [builds!.native, builds!.wasm]) {
        const o = new Float32Array(b * h * d), lse = new Float32Array(b * h);
        await m.kernelsPagedDecode({ ...decode, window, o, lse });
        decoded.push({ o, lse });
      }
      assert.ok(maxAbsDiff(decoded[0]!.o, decoded[1]!.o) < 1e-5, `window ${window}`);
      assert.ok(maxAbsDiff(decoded[0]!.lse, decoded[1]!.lse) < 1e-5, `window ${window}`);
    }
  });
});

describe('the loader', () => {
  const runNode = (code: string, env: Record<string, string>) =>
    spawnSync(process.execPath, ['--import', 'tsx', '-e', code], { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8' });
  const info = "const n = require('./native'); const i = n.cpuInfo(); console.log(JSON.stringify({ build: i.build, reason: i.buildReason, simd: i.simd }))";

  it('ATTNSCOPE_BACKEND=wasm loads the WebAssembly module and says why', { skip: existsSync(wasmFile) ? false : 'no WebAssembly module built' }, () => {
    const r = runNode(info, { ATTNSCOPE_BACKEND: 'wasm' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { build: 'wasm', reason: 'ATTNSCOPE_BACKEND=wasm', simd: 'simd128' });
  });

  it('ATTNSCOPE_BACKEND=native loads the addon; another value is refused with the values allowed', { skip: existsSync(nativeFile) ? false : 'no native addon built' }, () => {
    const r = runNode(info, { ATTNSCOPE_BACKEND: 'native' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).build, 'native');
    const bad = runNode(info, { ATTNSCOPE_BACKEND: 'gpu' });
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /ATTNSCOPE_BACKEND must be auto, native or wasm, got 'gpu'/);
  });

  // A copy of the CLI bundle in a folder of its own: the loader's walk up from dist/ finds only
  // what is copied beside it (as an installed extension: <ext>/dist, <ext>/native/...).
  const dir = tempDir('attnscope-loader-');
  const cli = (args: string[]) => spawnSync(process.execPath, [join(dir, 'dist', 'runner.js'), ...args], {
    cwd: root, env: { ...process.env, ATTNSCOPE_BACKEND: '', ATTNSCOPE_NATIVE: '', ATTNSCOPE_WASM: '' }, encoding: 'utf8',
  });
  const profile = join(root, 'examples', 'llama-3.1-8b.attn.yaml');
  const bundle = join(root, 'dist', 'runner.js');

  it('with neither build present the CLI fails with one message naming both and every file tried', { skip: existsSync(bundle) ? false : 'no dist/runner.js (npm run build:bundles)' }, () => {
    cpSync(bundle, join(dir, 'dist', 'runner.js'));
    const r = cli(['simulate', profile]);
    // A case that cannot run here (README "Exit codes"): one line, exit 2, no stack (it printed 'internal error' and frames, exit 1).
    assert.equal(r.status, 2);
    assert.equal(r.stderr.split('\n').length, 2, r.stderr);
    assert.match(r.stderr, /^attnscope: AttnScope has no kernels for this machine: no native addon found: `npm run build:native` builds it \(needs g\+\+, make and python3\) \(tried [^)]*attnscope_native\.node\)/);
    assert.match(r.stderr, /; no WebAssembly module found: `npm run build:wasm` builds it .* \(tried [^)]*attnscope_wasm\.js\)\.$/m);
  });

  it('an addon that fails to load is passed over for the platform\'s prebuilt one (native/prebuilds/<platform>-<arch>)', { skip: existsSync(nativeFile) && existsSync(bundle) ? false : 'needs the native addon and dist/runner.js' }, () => {
    // Its own folder: no WebAssembly module beside it, so a run can only be the prebuilt addon's.
    const own = tempDir('attnscope-prebuilt-');
    cpSync(bundle, join(own, 'dist', 'runner.js'));
    // An addon of another architecture fails to load as this does (not an ELF of this machine).
    mkdirSync(join(own, 'native', 'build', 'Release'), { recursive: true });
    writeFileSync(join(own, 'native', 'build', 'Release', ADDON_FILE), 'not a shared object');
    cpSync(nativeFile, join(own, 'native', 'prebuilds', `${process.platform}-${process.arch}`, ADDON_FILE));
    const json = join(own, 'run.json');
    const r = spawnSync(process.execPath, [join(own, 'dist', 'runner.js'), 'simulate', profile, '--json', json], {
      cwd: root, env: { ...process.env, ATTNSCOPE_BACKEND: '', ATTNSCOPE_NATIVE: '', ATTNSCOPE_WASM: '' }, encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /WebAssembly/);
    assert.equal(JSON.parse(readFileSync(json, 'utf8')).environment.nativeBuild, 'native');
  });

  it('with the native addon hidden the CLI simulates through WebAssembly and says why', { skip: existsSync(wasmFile) && existsSync(bundle) ? false : 'needs the WebAssembly module and dist/runner.js' }, () => {
    cpSync(bundle, join(dir, 'dist', 'runner.js'));
    for (const f of ['attnscope_wasm.js', 'attnscope_core.js', 'attnscope_core.wasm']) cpSync(join(wasmDir, f), join(dir, 'native', 'wasm', 'build', f));
    const json = join(dir, 'run.json');
    const r = cli(['simulate', profile, '--json', json]);
    assert.equal(r.status, 0, r.stderr);
    // The line is prose over 160 characters (the paths tried), wrapped at 100 columns since 5e59da8d: read joined.
    assert.match(unwrapped(r.stdout), /Simulated by the WebAssembly module \(no native addon found: `npm run build:native` builds it .*\(tried /);
    assert.match(r.stdout, /Requests: 2,000 \(completed 2,000/);
    const run = JSON.parse(readFileSync(json, 'utf8'));
    assert.equal(run.environment.nativeBuild, 'wasm');
    assert.equal(run.environment.simd, 'simd128');
  });
});
