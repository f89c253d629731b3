/**
 * device.data_parallel_size (vLLM --data-parallel-size): replicas, each a whole engine with its own
 * pool. Accepted in profiles and sweeps, one replica's estimate with a note, never steered to
 * tensor_parallel_size by "did you mean", simulated as dp engines behind vLLM's load balancer, and read from vLLM logs where each
 * engine core's pool is compared on its own (s39 newcomer F1, F10).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closestKey, closestMatch } from '../../core/config/suggest';
import { axisProblems } from '../../core/config/sweep';
import { readProfile } from '../../core/config/index';
import { estimate } from '../../core/estimate/index';
import { deployedGpuCount, gpuCount } from '../../core/format';
import { compareVllmLog, formatComparisonText, logFigureLines, parseVllmLog, rankNotes } from '../../core/vllmlog/index';
import { formatPoolSummary, simulatePool } from '../../runner/simulate/index';
import { dispatchOnline, lastSnapshot, mergeTimes, pickEngine, type DispatchProgress } from '../../runner/simulate/dataParallel';
import type { PoolProgress } from '../../runner/simulate/simulate';
import { ServingSimulator, type ServingSimConfig, type ServingSimRequests, type ServingSimTotals } from '../../native/simulator';
import { uniformStream } from '../../runner/random';
import { dispatchByLoad, settleDispatch } from '../fixtures/dpFixedPoint';
import { exampleProfile } from '../fixtures/profile';

const profile = (device: string) => exampleProfile(`model: ./llama-3.1-8b/config.json\ndevice: ${device}\nworkload: { requests: 3 }\n`);

test('data_parallel_size is read; the estimate is one replica\'s, unchanged, with a note saying so', () => {
  const one = estimate(profile('{ gpu: H100 SXM }'));
  const two = estimate(profile('{ gpu: H100 SXM, data_parallel_size: 2 }'));
  // Data parallelism replicates the engine (vllm/v1/engine/core.py: one EngineCore per DP rank,
  // each loading the whole model and sizing its own pool): no per-GPU figure changes.
  assert.equal(two.weightsBytesPerGpu, one.weightsBytesPerGpu);
  assert.equal(two.pool.pages, one.pool.pages);
  assert.equal(two.pool.budgetBytes, one.pool.budgetBytes);
  const note = two.notes.find((n) => n.startsWith('data_parallel_size 2'));
  assert.ok(note, two.notes.join('\n'));
  assert.match(note, /one replica's/);
  assert.match(note, /2 GPUs in all/);
  assert.ok(!one.notes.some((n) => n.includes('data_parallel_size')));
});

test('"did you mean" never steers a data-parallel key to tensor_parallel_size', () => {
  const device = ['backend', 'memory_gib', 'gpu_memory_utilization', 'tensor_parallel_size', 'pipeline_parallel_size', 'gpu'];
  // The bug: 4 edits apart, within closestMatch's reach for an 18-letter word.
  assert.equal(closestMatch('data_parallel_size', device), 'tensor_parallel_size');
  assert.equal(closestKey('data_parallel_size', device), undefined);
  assert.equal(closestKey('dp_size', device), undefined);
  assert.equal(closestKey('data_paralel_size', [...device, 'data_parallel_size']), 'data_parallel_size');
  // The other kinds still find their own key.
  assert.equal(closestKey('tensor_paralel_size', device), 'tensor_parallel_size');
  // In a profile: device takes it; a section that does not (engine) says unknown, without a TP hint.
  const r = readProfile('model: ./m.json\nengine: { data_parallel_size: 2 }\n', '/p/x.attn.yaml', { readFile: () => '{"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"vocab_size":100,"intermediate_size":128}' });
  const unknown = r.problems.find((p) => p.code === 'unknown-key');
  assert.ok(unknown, JSON.stringify(r.problems));
  assert.doesNotMatch(unknown.message, /tensor_parallel_size/);
});

test('sweeps take a data_parallel_size axis and count tp × pp × dp GPUs', () => {
  const axis = (key: string) => ({ key, values: [], keyRange: null });
  assert.deepEqual(axisProblems([axis('device.data_parallel_size')], () => ({ offset: 0, length: 0 })), []);
  const wrong = axisProblems([axis('engine.data_parallel_size')], () => ({ offset: 0, length: 0 }));
  assert.equal(wrong.length, 1);
  assert.doesNotMatch(wrong[0]!.message, /tensor_parallel_size/);
  const d = { tensorParallelSize: 2, pipelineParallelSize: 2, dataParallelSize: 3 };
  assert.equal(gpuCount(d), 4);
  assert.equal(deployedGpuCount(d), 12);
  assert.equal(deployedGpuCount({ tensorParallelSize: 4 }), 4);
});

test('simulate runs data_parallel_size engines, each request to the engine with the fewest in flight (ties to the next in turn), as vLLM\'s DPLBAsyncMPClient', async () => {
  // 2 engines, each its own pool; a step costs 1/64 s a token (no other term). vllm/v1/engine/
  // core_client.py DPLBAsyncMPClient.get_core_engine_for_request (one client): scan from
  // eng_start_index, the lowest in-flight count wins (strict <), then the start moves on by one.
  // r0 (t 0, prompt 8, output 33): start 0, both empty → engine 0; start 1. Prefill 8 tokens =
  //   0.125 s, then 32 one-token decode steps of 1/64 s: first token 0.125, finished 0.625.
  // r1 (t 0, prompt 8, output 1): scan from 1: engine 1 empty → engine 1; start 0. Finished 0.125.
  // r2 (t 0.25, prompt 8, output 1): scan from 0: engine 0 holds r0 (until 0.625), engine 1 none
  //   (r1 finished at 0.125) → engine 1; start 1.
  // r3 (t 0.25, prompt 8, output 1): scan from 1: engine 1 holds r2, engine 0 r0: a tie keeps the
  //   first scanned → engine 1; start 0. (Round robin would have sent r2 to engine 0.)
  // Engine 1 prefills r2 and r3 in one step of 16 tokens, 0.25 s: both first tokens at 0.5.
  // TTFT: 0.125, 0.125, 0.25, 0.25. Output 33 + 3 = 36 tokens over 0 .. 0.625 s: 57.6 tokens/s;
  // Each engine over the run's span 0 .. 0.625 (s42 newcomer 10: each over its own span, engine 1's
  // 3 over 0 .. 0.5 = 6, and the engines' 58.8 did not sum to the run's 57.6): engine 0 33 / 0.625
  // = 52.8, engine 1 3 / 0.625 = 4.8; 52.8 + 4.8 = 57.6.
  const p = profile('{ gpu: H100 SXM, data_parallel_size: 2 }\nkv_cache: { page_size: 16, num_pages: 64 }');
  const r = await simulatePool(p, {
    stepTime: { perTokenS: 1 / 64 }, watermark: 0,
    trace: [{ arrivalS: 0, promptLen: 8, outputLen: 33 }, { arrivalS: 0, promptLen: 8, outputLen: 1 }, { arrivalS: 0.25, promptLen: 8, outputLen: 1 }, { arrivalS: 0.25, promptLen: 8, outputLen: 1 }],
  });
  const d = r.dataParallel!;
  assert.equal(d.size, 2);
  assert.deepEqual(d.replicas.map((x) => [x.requests, x.completed, x.outputTokensPerSec]), [[1, 1, 52.8], [3, 3, 4.8]]);
  assert.equal(d.ratesSpan, 'run');
  // What the run says it models, and what of vLLM's score it does not (vllm/v1/engine/core_client.py).
  assert.match(d.dispatch, /lowest score, max\(requests in flight, the coordinator's 100 ms snapshot of them \+ picks since\)/);
  assert.match(d.dispatch, /not modelled: its KV-pressure penalty/);
  const ttft = r.latency!.ttft!;
  assert.deepEqual([ttft.max, ttft.mean], [0.25, 0.1875]);
  assert.equal(r.latency!.outputTokensPerSec, 57.6);
  assert.equal(r.summary.completed, 4);
  assert.deepEqual(r.baselines, []);
  // One scope for the running figures, per engine (s41 newcomer-ed F2: a summed mean beside one
  // engine's peak read "mean running 302.0, peak running 291"). Engine 0 runs r0 alone over its
  // 0 .. 0.625 s: mean 1, peak 1. Engine 1 runs r1 over 0 .. 0.125, then r2 and r3 together over
  // 0.25 .. 0.5: 0.125 + 2 × 0.25 = 0.625 sequence-seconds over the run's 0.625 s: mean 1.0 (over
  // its own 0.5 s it was 1.25, and the engines' means did not average to the run's), peak 2.
  // Per engine over the run (its longest span, 0.625 s): (0.625 + 0.625) / 0.625 / 2 = 1.0 (the
  // sum was 2.0), the peak the busiest engine's, 2.
  assert.deepEqual(d.replicas.map((x) => [x.meanConcurrency, x.peakConcurrency]), [[1, 1], [1, 2]]);
  assert.deepEqual([r.summary.meanConcurrency, r.summary.peakConcurrency], [1, 2]);
  // Each engine's pool samples (s41 newcomer-ed F2: engine 1's only): engine 1's are the pool's own,
  // running at most 1 (r0 alone); engine 2's in its replica, running 2 at most (r2 and r3 together).
  const most = (xs: readonly { running: number }[]) => xs.reduce((m, x) => Math.max(m, x.running), 0);
  assert.deepEqual([d.replicas[0]!.samples, most(r.samples), most(d.replicas[1]!.samples!)], [undefined, 1, 2]);
  assert.equal(d.gpusPerEngine, 1);
  // Output tokens/s over the run's 0.625 s, 3 significant digits: engine 1 33 tokens / 0.625 = 52.8, engine 2 3 / 0.625 = 4.80 (were "53", "5").
  const text = formatPoolSummary(r);
  assert.match(text, /Data parallel 2: 2 engines × 1 GPU, .*; latency, throughput, request counts and preemptions over all engines; running, waiting and occupancy per engine \(means over the engines, peaks the busiest engine's\); pool samples per engine \(the dashboard's Engine select picks the one charted\)\n {2}engine 1: 1 request, 52\.8 output tokens\/s, running mean 1\.00 peak 1; engine 2: 3 requests, 4\.80 output tokens\/s, running mean 1\.00 peak 2 \(each engine's output tokens\/s and running mean over the run's span, 0 s to the last request's end of any engine, so the tokens\/s sum to the run's, as vLLM's per-engine log lines share one logging interval\)\n/);
  // The pool line is one engine's (s42 newcomer 10: unlabelled): 64 pages × 16 tokens.
  assert.match(text, /^KV pool \(each engine's, the same on all 2\): 64 pages × 16 tokens = 1,024 tokens$/m);
  // Both per-engine headers (a table past 100 columns stacks its columns in parts: core/textTable.ts).
  assert.match(text, /mean running\/engine/);
  assert.match(text, /peak running\/engine/);
  // The baselines the dp run leaves out (r.baselines []), said under the table's one row.
  assert.match(text, /^paged \(16-token pages\) .*\n\(contiguous-allocation baselines: not simulated at data parallel 2, whose engines run the paged pool only; data_parallel_size 1 simulates them\)\n/m);
  assert.match(text, /^Paging \(modelled\): occupancy per engine mean [\d.]+%, peak [\d.]+% \(the busiest engine\); preemptions \(all engines\) 0/m);
  // One engine, for contrast: all four in one pool.
  const one = await simulatePool(profile('{ gpu: H100 SXM }\nkv_cache: { page_size: 16, num_pages: 64 }'), { stepTime: { perTokenS: 1 / 64 }, watermark: 0, trace: [{ arrivalS: 0, promptLen: 8, outputLen: 33 }, { arrivalS: 0, promptLen: 8, outputLen: 1 }] });
  assert.equal(one.dataParallel, undefined);
  assert.doesNotMatch(formatPoolSummary(one), /not simulated at data parallel/);
});

test('the score counts an engine\'s requests finished since the last 100 ms snapshot (vLLM\'s coordinator counts, DPLBAsyncMPClient\'s max with in-flight)', async () => {
  // 2 engines, a step 1/64 s a token. vllm/v1/engine/core_client.py: score = max(in-flight,
  // snapshot waiting + running + picks since the snapshot); the snapshot every 100 ms
  // (coordinator.py), modelled at multiples of 0.1 s as the requests in flight then.
  // r0 (t 0, prompt 8, output 1): start 0, all 0 → engine 0; start 1.
  // r1 (t 0, prompt 8, output 33): from 1: engine 1 scores 0 → engine 1; start 0. Its prefill
  //   ends at 0.125, then 32 one-token steps: it finishes at 0.625.
  // r2 (t 0, prompt 8, output 1): from 0: engine 0 max(1, 0 + 1 pick) = 1, engine 1 1: a tie →
  //   engine 0; start 1. Engine 0 prefills r0 and r2 in one 16-token step: both finish at 0.25.
  // r3 (t 0.28, prompt 8, output 1): the snapshot at 0.2 counted engine 0's 2 (finishing at 0.25)
  //   and engine 1's 1. From 1: engine 1 max(1, 1) = 1, engine 0 max(0, 2) = 2 → engine 1.
  //   (By in-flight alone, engine 0 (0 < 1) would take it.) On engine 1 it joins the step after
  //   0.28: r1's decode steps start at 0.125 + m/64, the 10th at 0.28125; 8 + 1 tokens, 9/64 s:
  //   first token at 0.421875, TTFT 0.141875.
  // TTFT: 0.25, 0.125, 0.25, 0.141875; mean 0.19171875 (r3 on engine 0 would give 0.1875).
  const p = profile('{ gpu: H100 SXM, data_parallel_size: 2 }\nkv_cache: { page_size: 16, num_pages: 64 }');
  const r = await simulatePool(p, {
    stepTime: { perTokenS: 1 / 64 }, watermark: 0,
    trace: [{ arrivalS: 0, promptLen: 8, outputLen: 1 }, { arrivalS: 0, promptLen: 8, outputLen: 33 }, { arrivalS: 0, promptLen: 8, outputLen: 1 }, { arrivalS: 0.28, promptLen: 8, outputLen: 1 }],
  });
  assert.deepEqual(r.dataParallel!.replicas.map((x) => x.requests), [2, 2]);
  assert.ok(Math.abs(r.latency!.ttft!.mean - 0.19171875) < 1e-12, String(r.latency!.ttft!.mean));
  // lastSnapshot: the index of the last multiple of 0.1 s at or before t, exact at the multiples.
  assert.deepEqual([0, 0.1, 0.28, 0.3, 0.29999999999999993, 1.7].map(lastSnapshot), [0, 1, 2, 3, 2, 17]);
});

test('the dispatch rule alone: in-flight counts from finish times, a rotating scan start, a fixed point reached by passes', () => {
  // Four requests at t 0, none finished: round robin 0, 1, 0, 1; with request 0 finished by t 1
  // (finishS 0.5) and the rest in flight, a request at t 1 scans from 0: engine 0 holds
  // request 2, engine 1 requests 1 and 3 → engine 0.
  const arrivals = Float64Array.from([0, 0, 0, 0, 1]);
  assert.deepEqual([...dispatchByLoad(arrivals, new Float64Array(5).fill(Infinity), new Int32Array(5).fill(-1), 2)], [0, 1, 0, 1, 0]);
  const prev = Int32Array.from([0, 1, 0, 1, 0]);
  assert.deepEqual([...dispatchByLoad(arrivals, Float64Array.from([0.5, 2, 2, 2, 2]), prev, 2)], [0, 1, 0, 1, 0]);
});

/**
 * n requests at ~rate per second (exponential gaps), prompts 16..1040 tokens, outputs 1..200, a
 * third sharing one of two system prompts of 64 tokens (prefix hits), some at the same instant as
 * the one before (ties), a few never fitting the pool (rejected: never in flight).
 */
function randomTrace(n: number, seed: number, rate: number): ServingSimRequests {
  const next = uniformStream(seed);
  const arrivalS = new Float64Array(n), promptLen = new Int32Array(n), outputLen = new Int32Array(n), segmentStart = new Int32Array(n + 1);
  const stream: number[] = [], end: number[] = [];
  let t = 0;
  for (let i = 0; i < n; i++) {
    if (next() > 0.1) t += -Math.log(1 - next()) / rate;
    arrivalS[i] = t;
    promptLen[i] = next() < 0.01 ? 20000 : 16 + Math.floor(next() * 1024);
    outputLen[i] = 1 + Math.floor(next() * 200);
    if (next() < 0.33) {
      stream.push(Math.floor(next() * 2));
      end.push(Math.min(64, promptLen[i]));
    }
    segmentStart[i + 1] = stream.length;
  }
  return { arrivalS, promptLen, outputLen, segmentStart, segmentStream: new Float64Array(stream), segmentEnd: new Int32Array(end) };
}

/** A pool of 400 pages of 16 tokens (a 20,000-token prompt never fits), a roofline step of ~5 ms + 20 µs a token. */
const DP_CONFIG: ServingSimConfig = {
  layout: 'paged', numPages: 400, pageSize: 16, watermarkPages: 4, slidingWindow: 0, enablePrefixCaching: true, maxNumSeqs: 32,
  maxNumBatchedTokens: 1024, maxModelLen: 32768, perStepS: 1e-3, weightsS: 4e-3, perKvTokenS: 2e-8, perTokenS: 2e-5, perPairS: 1e-9, maxSamples: 100,
};

/** The online dispatch over `dp` engines of `config`: its dispatch, times merged, each engine's totals. */
async function online(config: ServingSimConfig, r: ServingSimRequests, dp: number) {
  const engines: Array<ServingSimulator | undefined> = new Array(dp);
  try {
    const { engineOf, byEngine } = await dispatchOnline(r, dp, engines, () => new ServingSimulator(config, r, true));
    return { engineOf, times: mergeTimes(r.arrivalS.length, byEngine, engines.map((e) => e!.times())), totals: engines.map((e) => e!.totals()) };
  } finally {
    for (const e of engines) e?.free();
  }
}

/** The fixed point (test/fixtures/dpFixedPoint.ts): its dispatch, times, the last pass's totals and the steps of all its passes. */
async function fixedPoint(config: ServingSimConfig, r: ServingSimRequests, dp: number) {
  let steps = 0;
  const settled = await settleDispatch(r, dp, async (_, requests) => {
    const sim = new ServingSimulator(config, requests);
    try {
      while (!sim.run(1 << 30));
      const totals = sim.totals();
      steps += totals.steps;
      return { totals, times: sim.times() };
    } finally {
      sim.free();
    }
  });
  return { engineOf: settled.engineOf, times: mergeTimes(r.arrivalS.length, settled.byEngine, settled.runs.map((x) => x.times)), totals: settled.runs.map((x) => x.totals), passes: settled.passes, steps };
}

const sumSteps = (totals: ServingSimTotals[]) => totals.reduce((a, t) => a + t.steps, 0);

test('the online dispatch equals the fixed point of passes, request by request and bit for bit, on random traces (busy, idle gaps, ties, rejections, prefix hits, preemptions, pipeline parallelism)', async () => {
  const PP = { ...DP_CONFIG, stages: [{ perStepS: 5e-4, weightsS: 2e-3, expertWeightsS: 0, perKvTokenS: 1e-8, perTokenS: 1e-5, perLogitsS: 0, perPairS: 5e-10, perDecodePairS: 5e-10, perSlidingKvTokenS: 0, perSlidingPairS: 0 },
    { perStepS: 5e-4, weightsS: 3e-3, expertWeightsS: 0, perKvTokenS: 1e-8, perTokenS: 1e-5, perLogitsS: 0, perPairS: 5e-10, perDecodePairS: 5e-10, perSlidingKvTokenS: 0, perSlidingPairS: 0 }], stageSendPerTokenS: 1e-7 };
  const cases: Array<[string, ServingSimConfig, number, number, number]> = [
    ['busy, 2 engines', DP_CONFIG, 2, 300, 60],
    ['idle gaps, 3 engines', DP_CONFIG, 3, 200, 2],
    ['a small pool that preempts, 2 engines', { ...DP_CONFIG, numPages: 120 }, 2, 250, 40],
    ['request by request (coast off), 4 engines', { ...DP_CONFIG, coast: false }, 4, 200, 50],
    ['pipeline parallelism 2, 2 engines', PP, 2, 250, 40],
    // Many engines, most idle between arrivals: the dispatch leaves them alone (dispatchOnline).
    ['idle gaps, 8 engines', DP_CONFIG, 8, 200, 4],
    ['busy, 6 engines', DP_CONFIG, 6, 300, 150],
    ['pipeline parallelism 2, 5 engines', PP, 5, 200, 20],
  ];
  let moved = 0;
  for (const [name, config, dp, n, rate] of cases) {
    const r = randomTrace(n, n + dp, rate);
    const a = await online(config, r, dp);
    const b = await fixedPoint(config, r, dp);
    assert.deepEqual([...a.engineOf], [...b.engineOf], name);
    assert.deepEqual(a.times, b.times, name);
    assert.deepEqual(a.totals, b.totals, name);
    assert.ok(b.totals.some((t) => t.rejected > 0), `${name}: a request must be rejected`);
    // Not round robin: the in-flight counts changed some request's engine.
    moved += [...a.engineOf].filter((e, i) => e !== i % dp).length;
    if (name.includes('preempts')) assert.ok(a.totals.some((t) => t.preemptions > 0), `${name}: the pool must preempt`);
  }
  assert.ok(moved > 0);
});

test('the online dispatch simulates every engine step once: dp 2 × n requests run the steps of one simulation of each engine, where the fixed point ran them once a pass', async () => {
  for (const n of [200, 800]) {
    const r = randomTrace(n, 5, 60);
    const a = await online(DP_CONFIG, r, 2);
    const b = await fixedPoint(DP_CONFIG, r, 2);
    // The online run's steps are the last pass's (its simulators' totals), a few per request
    // (prompt chunks and outputs up to 200 tokens, batched): linear in n.
    assert.equal(sumSteps(a.totals), sumSteps(b.totals));
    assert.ok(sumSteps(a.totals) < 200 * n, `${sumSteps(a.totals)} steps`);
    // The fixed point ran many passes over the growing prefix: several times the steps.
    assert.ok(b.passes > 2 && b.steps > 3 * sumSteps(a.totals), `${b.passes} passes, ${b.steps} steps vs ${sumSteps(a.totals)}`);
  }
});

test('an arrival brings up to date only the engines whose next change has come (and the one given the last request): dp 8 over 400 sparse arrivals', async () => {
  // 400 requests at ~4/s over 8 engines, each lasting 2..200 steps of ~5 ms: most engines are
  // idle at an arrival. An engine's next change is a step start or a finish of its own, so
  // arrival k (k >= 1) touches at most the engines holding a request j < k that finishes at or
  // after the previous arrival (in flight between the two: counted from the fixed point's times),
  // plus the engine given request k − 1. Touching every engine made is ~8 an arrival.
  const n = 400, dp = 8;
  const r = randomTrace(n, 11, 4);
  const engines: Array<ServingSimulator | undefined> = new Array(dp);
  let calls = 0;
  try {
    const { engineOf } = await dispatchOnline(r, dp, engines, () => {
      const sim = new ServingSimulator(DP_CONFIG, r, true);
      const runUntil = sim.runUntil.bind(sim);
      sim.runUntil = (t) => (calls++, runUntil(t));
      return sim;
    });
    const b = await fixedPoint(DP_CONFIG, r, dp);
    assert.deepEqual([...engineOf], [...b.engineOf]);
    // Touches happen at each arrival and, before it, at the last 100 ms snapshot when it is new.
    let bound = 0, every = 0, prev = -Infinity, snap = -1;
    const touchAt = (u: number, k: number) => {
      const live = new Set<number>(k > 0 ? [engineOf[k - 1]] : []);
      for (let j = 0; j < k; j++) if (b.times.finishS[j] >= prev) live.add(engineOf[j]);
      bound += live.size;
      every += new Set(engineOf.subarray(0, k)).size;
      prev = u;
    };
    for (let k = 0; k < n; k++) {
      const j = lastSnapshot(r.arrivalS[k]);
      if (j > snap) touchAt(j / 10, k);
      snap = j;
      touchAt(r.arrivalS[k], k);
    }
    assert.ok(calls <= bound, `${calls} runUntil calls, at most ${bound}`);
    assert.ok(bound < every / 2, `${bound} vs ${every}`);
  } finally {
    for (const e of engines) e?.free();
  }
});

test('progress every 1 % of the requests once 250 ms have passed (it was every 4,096: none in a run of 1,000), then while the engines run to the end; a cancel asked in a report is honoured at once; an engine\'s simulator is made at its first request', async () => {
  // A clock that moves 300 ms at each reading: every report is due as soon as 1 % more is
  // dispatched, so 1,000 requests report at 10, 20, ..., 990, each at the arrival just dispatched;
  // then after each engine's run but the last one's (not at the end: the caller knows it), at
  // the clock of the engine furthest behind, never before the last arrival.
  const r = randomTrace(1000, 3, 60);
  let clock = 0;
  const slow = () => (clock += 300);
  const all: DispatchProgress[] = [];
  const whole: Array<ServingSimulator | undefined> = new Array(2);
  try {
    await dispatchOnline(r, 2, whole, () => new ServingSimulator(DP_CONFIG, r, true), { onProgress: (p) => all.push(p), now: slow });
    const dispatching = all.filter((p) => p.dispatched < 1000);
    assert.deepEqual(dispatching.map((p) => p.dispatched), Array.from({ length: 99 }, (_, i) => 10 * (i + 1)));
    assert.deepEqual(dispatching.map((p) => p.clockS), dispatching.map((p) => r.arrivalS[p.dispatched - 1]));
    const finishing = all.slice(dispatching.length);
    assert.ok(finishing.length >= 1 && finishing.every((p) => p.dispatched === 1000), JSON.stringify(finishing));
    const ends = whole.map((e) => e!.totals().clockSeconds);
    for (const [i, p] of finishing.entries()) {
      assert.ok(p.clockS >= r.arrivalS[999] && p.clockS >= (finishing[i - 1]?.clockS ?? 0) && p.clockS <= Math.max(...ends), `${p.clockS}`);
    }
  } finally {
    for (const e of whole) e?.free();
  }
  // A clock that moves 25 ms a reading (read every 10 arrivals until a report is due, once at the start): a report
  // comes 250 ms after the last, 10 readings, 100 arrivals: at 100, 200, ..., 900, every 10 %, not 1 %.
  let quickClock = 0;
  const at: number[] = [];
  const quick: Array<ServingSimulator | undefined> = new Array(2);
  try {
    await dispatchOnline(r, 2, quick, () => new ServingSimulator(DP_CONFIG, r, true), { onProgress: (p) => at.push(p.dispatched), now: () => (quickClock += 25) });
  } finally {
    for (const e of quick) e?.free();
  }
  // From 900 on: 9 readings to 990, the 10th after engine 0's run to the end (250 ms): a report with all 1,000 dispatched.
  assert.deepEqual(at, [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);

  const engines: Array<ServingSimulator | undefined> = new Array(2);
  const stop = new AbortController();
  const seen: number[] = [];
  try {
    await assert.rejects(dispatchOnline(r, 2, engines, () => new ServingSimulator(DP_CONFIG, r, true), { signal: stop.signal, now: slow, onProgress: (p) => { seen.push(p.dispatched); stop.abort(new Error('stopped')); } }), /stopped/);
    assert.deepEqual(seen, [10]);
    // The engines hold the requests dispatched before the report only.
    assert.equal(engines.reduce((a, e) => a + e!.times().finishS.length, 0), 10);
  } finally {
    for (const e of engines) e?.free();
  }
  // An engine is made when its first request comes: 3 requests at once over 8 engines make 3
  // (each to an empty engine from the rotating start: 0, 1, 2).
  const three = randomTrace(3, 2, 1);
  three.arrivalS.fill(0);
  const made: number[] = [];
  const some: Array<ServingSimulator | undefined> = new Array(8);
  try {
    const { engineOf } = await dispatchOnline(three, 8, some, (e) => (made.push(e), new ServingSimulator(DP_CONFIG, three, true)));
    assert.deepEqual([...engineOf], [0, 1, 2]);
    assert.deepEqual(made, [0, 1, 2]);
  } finally {
    for (const e of some) e?.free();
  }
});

test('a data-parallel run reports its progress by tokens, as one engine does, from the dispatch to the end, and reaches the total (s48: it was requests dispatched, by onPrepare)', async (t) => {
  // A wall clock that moves 300 ms at each reading: a report is due at every 1 % of the requests
  // dispatched (4 of 400), then after each engine's run but the last (dataParallel.ts PROGRESS_MS);
  // simulate.ts passes one on once 50 times the last one's time has passed (REPORT_COST_SHARE: here
  // one reading, 300 ms, so every 15 s of this clock: 4 mid-run reports, at 0.6 %, 26 %, 51 %, 76 %).
  let wall = 0;
  t.mock.method(performance, 'now', () => (wall += 300));
  // 400 requests every 10 ms, prompt 100 + 10 · (i mod 7), output 20 + 10 · (i mod 5), none
  // rejected (a pool of 4,096 × 16 = 65,536 tokens per engine). Tokens to do by hand:
  // Σ prompt = 400 · 100 + 10 · Σ (i mod 7) = 40,000 + 10 · (57 · 21 + 0) = 51,970 (i = 0 … 398 are
  // 57 whole cycles of 0 … 6, i = 399 ≡ 0); Σ output = 400 · 20 + 10 · 80 · (0 + … + 4) = 16,000.
  const n = 400;
  const trace = Array.from({ length: n }, (_, i) => ({ arrivalS: 0.01 * i, promptLen: 100 + 10 * (i % 7), outputLen: 20 + 10 * (i % 5) }));
  const reports: PoolProgress[] = [];
  const r = await simulatePool(profile('{ gpu: H100 SXM, data_parallel_size: 2 }\nkv_cache: { page_size: 16, num_pages: 4096 }'), {
    trace, stepTime: { perStepS: 1e-3, perTokenS: 1e-5 }, onProgress: (p) => reports.push(p),
  });
  assert.equal(r.summary.completed, n);
  assert.ok(reports.length >= 3, `${reports.length} reports`);
  for (const [i, p] of reports.entries()) {
    assert.deepEqual([p.requests, p.tokensToDo], [n, 51_970 + 16_000]);
    if (i < reports.length - 1) assert.equal(p.fraction, (p.prefilledTokens + p.decodedTokens) / 67_970);
    assert.ok(p.fraction >= (reports[i - 1]?.fraction ?? 0) && p.clockSeconds >= (reports[i - 1]?.clockSeconds ?? 0), `report ${i}`);
  }
  // Mid-run reports carry tokens done (not 0 until the end, nor requests dispatched).
  assert.ok(reports.some((p) => p.fraction > 0 && p.fraction < 1 && p.finished < n && p.clockSeconds > 0));
  const last = reports.at(-1)!;
  assert.deepEqual(
    { fraction: last.fraction, prefilled: last.prefilledTokens, decoded: last.decodedTokens, finished: last.finished, clock: last.clockSeconds },
    { fraction: 1, prefilled: 51_970, decoded: 16_000, finished: n, clock: r.summary.simulatedSeconds },
  );
});

test('a cancel is seen while the engines are run to the end: after an engine whose run took a slice, not only when the last has finished (s43 newcomer43 F6: SIGTERM answered after 24 s at dp 1024)', async () => {
  // Two engines, one request each at 0 s. Engine 0's run finishes in one call that takes 60 ms of wall time (longer than a
  // slice, 50 ms: dataParallel.ts slicer) and the cancel comes during it. Before, the loop ran engine after engine without
  // looking while each finished in one call (1,024 engines of 2,048 requests each at dp 1024), so the dispatch here
  // resolved; now it stops with the signal's reason before engine 1 runs.
  const r: ServingSimRequests = { arrivalS: Float64Array.from([0, 0]), promptLen: Int32Array.from([1, 1]), outputLen: Int32Array.from([1, 1]),
    segmentStart: new Int32Array(3), segmentStream: new Float64Array(0), segmentEnd: new Int32Array(0) };
  const stop = new AbortController();
  const ran: number[] = [];
  const engine = (e: number) => ({
    runUntil: () => Infinity, inFlight: () => 0, add: () => undefined, totals: () => ({ clockSeconds: 0 }) as ServingSimTotals,
    run: () => {
      ran.push(e);
      if (e === 0) {
        stop.abort(new Error('stopped'));
        for (const t0 = performance.now(); performance.now() - t0 < 60;); // a long run of engine 0's steps
      }
      return true;
    },
  });
  await assert.rejects(dispatchOnline(r, 2, [], engine, { signal: stop.signal }), /stopped/);
  assert.deepEqual(ran, [0]);
});

test('a dispatched simulator: in-flight counts by hand; it refuses a request out of order, one at or before a step it ran, and add/runUntil/inFlight on a plain simulator', () => {
  // Four requests of prompt 16, output 1, at t 0, 1, 1, 3; a step of 16 tokens lasts
  // 1 ms + max(4 ms + 16 · 2e-8 s KV, 16 · 2e-5 s + 136 · 1e-9 s pairs) = 5.00032 ms.
  const r: ServingSimRequests = { arrivalS: Float64Array.from([0, 1, 1, 3]), promptLen: Int32Array.from([16, 16, 16, 16]), outputLen: Int32Array.from([1, 1, 1, 1]),
    segmentStart: new Int32Array(5), segmentStream: new Float64Array(0), segmentEnd: new Int32Array(0) };
  const sim = new ServingSimulator(DP_CONFIG, r, true);
  // runUntil returns the engine's next change: nothing to run, nothing finishing → Infinity.
  assert.equal(sim.runUntil(1), Infinity);
  sim.add(1);
  assert.equal(sim.inFlight(1), 1); // added, its step not run
  assert.throws(() => sim.add(0), /arrivalS\[0\] precedes the engine's last request's arrival/);
  // Its step (1 .. 1.00500032) ran, ending after 1.003: in flight until then, and nothing else
  // to run, so the next change is that finish (an engine left alone past it would count it).
  assert.equal(Math.round(sim.runUntil(1.003) * 1e8) / 1e8, 1.00500032);
  assert.equal(sim.inFlight(1.003), 1);
  assert.equal(sim.runUntil(1.5), Infinity);
  assert.equal(sim.inFlight(1.5), 0);
  // Request 2 arrives at 1, when the step that admitted request 1 started: that step would have taken it.
  assert.throws(() => sim.add(2), /arrivalS\[2\] is not after the engine's last step start/);
  sim.runUntil(3);
  sim.add(3);
  assert.equal(sim.runUntil(3), 3); // request 3's step starts at its arrival: not run before t 3
  assert.throws(() => sim.add(9), /index must be an integer in \[0, 4\)/);
  assert.throws(() => sim.runUntil(NaN), /t must not be NaN/);
  assert.equal(sim.run(100), true);
  const times = sim.times();
  assert.deepEqual([...times.finishS].map((x) => Math.round(x * 1e8) / 1e8), [1.00500032, 3.00500032]);
  sim.free();
  const plain = new ServingSimulator(DP_CONFIG, r);
  assert.throws(() => plain.add(0), /need a dispatched simulator/);
  plain.free();
  // pickEngine: the fewest in flight from the scan start, strict < (a tie keeps the first scanned).
  assert.equal(pickEngine([2, 1, 1], 0), 1);
  assert.equal(pickEngine([2, 1, 1], 2), 2);
  assert.equal(pickEngine([0, 0], 1), 1);
});

/** A vLLM 0.10.1 V1 log of Llama-3.1-8B under data_parallel_size 2: two engine cores, each printing its own pool. */
const DP_LOG = [
  "INFO 08-20 10:00:00 [utils.py:326] non-default args: {'model': 'meta-llama/Llama-3.1-8B-Instruct', 'max_model_len': 32768, 'data_parallel_size': 2}",
  "(EngineCore_0 pid=101) INFO 08-20 10:00:10 [core.py:74] Initializing a V1 LLM engine (v0.10.1) with config: model='meta-llama/Llama-3.1-8B-Instruct', dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=2, kv_cache_dtype=auto",
  "(EngineCore_1 pid=102) INFO 08-20 10:00:10 [core.py:74] Initializing a V1 LLM engine (v0.10.1) with config: model='meta-llama/Llama-3.1-8B-Instruct', dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=2, kv_cache_dtype=auto",
  '(EngineCore_0 pid=101) INFO 08-20 10:01:20 [gpu_worker.py:276] Available KV cache memory: 54.07 GiB',
  '(EngineCore_1 pid=102) INFO 08-20 10:01:20 [gpu_worker.py:276] Available KV cache memory: 53.07 GiB',
  '(EngineCore_0 pid=101) INFO 08-20 10:01:21 [kv_cache_utils.py:849] GPU KV cache size: 442,928 tokens',
  '(EngineCore_1 pid=102) INFO 08-20 10:01:21 [kv_cache_utils.py:849] GPU KV cache size: 434,736 tokens',
].join('\n');

test('vllm-log: data-parallel engine cores are replicas with their own pools, each compared, data_parallel_size named', () => {
  // By hand: 54.07 GiB = 58,057,318,318 B // 2,097,152 B a block (32 layers · 16 · 2 · 8 · 128 · 2)
  // = 27,683 blocks · 16 = 442,928 tokens; 53.07 GiB → 27,171 · 16 = 434,736 (kv_cache_utils get_num_blocks).
  const log = parseVllmLog(DP_LOG);
  assert.equal(log.startups.length, 1);
  assert.equal(log.settings.dataParallelSize?.value, 2);
  const notes = rankNotes(log);
  assert.ok(notes.length > 0);
  for (const n of notes) {
    assert.match(n.message, /once per data-parallel engine/);
    assert.doesNotMatch(n.message, /sizes every rank's pool by the smallest/);
  }
  assert.ok(logFigureLines(log).some((l) => l.includes('data_parallel_size 2')));
  const p = exampleProfile('model: ./llama-3.1-8b/config.json\ndevice: { gpu: H100 SXM }\n');
  const c = compareVllmLog(log, p);
  assert.ok(c.fromLog.some((s) => s.startsWith('data_parallel_size 2 (line 3')), c.fromLog.join('; '));
  const tokens = c.estimate.pool.tokens.toLocaleString('en-US');
  const note = c.notes.find((n) => n.includes('data-parallel replicas'));
  assert.ok(note, formatComparisonText(c));
  assert.match(note, new RegExp(`EngineCore_0: KV cache memory 54\\.07 GiB \\(line 4; .*GPU KV cache size 442,928 tokens \\(line 6; estimate ${tokens} tokens`));
  assert.match(note, new RegExp(`EngineCore_1: KV cache memory 53\\.07 GiB \\(line 5; .*GPU KV cache size 434,736 tokens \\(line 7; estimate ${tokens} tokens`));
});

test('a dp 1024 run keeps the pool samples of engines 1 … 8 and the busiest only, every engine\'s row, and its JSON stays small (s45 newcomer-ed N4: 205 MB)', async () => {
  // 1,024 requests at t 0: each finds every engine it has not yet reached empty, and the scan's
  // start moves on by one a request, so request k goes to engine k (the rule of the test above).
  // Request 600 holds 512 + 8 tokens (33 pages of 16) where the others hold 8 + 8 (1 page): engine
  // 601 is the busiest, past engine 8.
  const dp = 1024;
  const p = profile(`{ gpu: H100 SXM, data_parallel_size: ${dp} }\nkv_cache: { page_size: 16, num_pages: 64 }`);
  const trace = Array.from({ length: dp }, (_, k) => ({ arrivalS: 0, promptLen: k === 600 ? 512 : 8, outputLen: 8 }));
  const r = await simulatePool(p, { stepTime: { perTokenS: 1 / 64 }, watermark: 0, trace });
  const d = r.dataParallel!;
  assert.equal(d.replicas.length, dp);
  assert.deepEqual(d.sampledEngines, [0, 1, 2, 3, 4, 5, 6, 7, 600]);
  assert.deepEqual(d.replicas.flatMap((x, e) => (x.samples ? [e] : [])), [1, 2, 3, 4, 5, 6, 7, 600]);
  assert.equal(d.replicas[600]!.peakOccupancy, 33 / 64);
  // Every engine ran 8 steps at least (a prefill, 7 decodes): kept for all 1,023 others, samples
  // of ~130 characters each would be > 1,023 × 8 × 130 = 1.06 M characters; the rows are ~200 each.
  const chars = JSON.stringify(r).length;
  assert.ok(chars < 400_000, `${chars} characters`);
  assert.match(formatPoolSummary(r), /pool samples of engines 1 … 8 and the busiest \(engine 601\) of 1,024, not the others' \(the dashboard's Engine select picks the one charted\)/);
});
