// Serving simulation: hand-computed timelines (occupancy, waste, external fragmentation,
// preemption, prefix hits), request accounting under random traces, workload generation,
// trace errors with positions, and the summary table.
import { test } from 'node:test';
import { createHash } from 'node:crypto';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { readProfile } from '../../core/config/index';
import { ServingSimulator, SIM_SAMPLE_FIELDS, type ServingSimConfig, type SimLayout } from '../../native/simulator';
import { packRequests } from '../../runner/simulate/workload';
import { ungroupedCoefficientKeys } from '../../runner/simulate/simulate';
import { stopSimulations } from '../../native/simulator';
import { loadedBuild } from '../../native/binding';
import type { Profile } from '../../core/config/types';
import { exampleProfile } from '../fixtures/profile';
import {
  formatPoolSummary,
  generateRequests,
  parseTrace,
  RequestGenerator,
  PoolConfigError,
  readTraceFile,
  simulatePool,
  TraceError,
  type PoolProgress,
  type SimulateOptions,
  type TraceRequest,
} from '../../runner/simulate/index';
import { tempDir } from '../fixtures/tmp';

const EXAMPLES = resolve(__dirname, '../../examples');

/** A profile over the shipped Llama-3.1-8B config with the given YAML sections. */
function profile(yaml: string): Profile {
  return exampleProfile(`model: ./llama-3.1-8b/config.json\n${yaml}`);
}

/** One simulated second per step, no watermark: timelines become hand-computable. */
const UNIT_STEPS: SimulateOptions = { stepTime: { perStepS: 1, perTokenS: 0, perKvTokenS: 0 }, watermark: 0 };

const req = (arrivalS: number, promptLen: number, outputLen: number, extra: Partial<TraceRequest> = {}): TraceRequest => ({
  arrivalS,
  promptLen,
  outputLen,
  ...extra,
});

test('occupancy and waste of a tiny trace equal the hand calculation', async () => {
  // 10 pages of 4 tokens. A: prompt 6, output 3; B: prompt 3, output 2; both at t = 0.
  // step 1 (0–1 s): prefill A (6 tokens, 2 pages) and B (3 tokens, 1 page): 3 pages, 9 tokens; each emits a token.
  // step 2 (1–2 s): A 7 tokens (2 pages), B 4 tokens (1 page): 3 pages, 11 tokens; B has its 2 tokens, frees.
  // step 3 (2–3 s): A 8 tokens (2 pages): 2 pages, 8 tokens; A has its 3 tokens, frees.
  // mean occupancy = (3 + 3 + 2) / (10 · 3) = 8/30; peak = 3/10;
  // useful = (9 + 11 + 8) / ((3 + 3 + 2) · 4) = 28/32; throughput = 5 tokens / 3 s.
  // Baseline max_model_len (16 slots each): reserved 32, 32, 16 -> useful 28/80.
  // Baseline prompt + output (9 and 5 slots): reserved 14, 14, 9 -> useful 28/37.
  const p = profile('kv_cache: { page_size: 4, num_pages: 10 }\nworkload: { max_model_len: 16 }\n');
  const r = await simulatePool(p, { ...UNIT_STEPS, trace: [req(0, 6, 3), req(0, 3, 2)] });
  const s = r.summary;
  assert.equal(s.simulatedSeconds, 3);
  assert.equal(s.meanOccupancy, 8 / 30);
  assert.equal(s.peakOccupancy, 0.3);
  assert.equal(s.usefulTokenFraction, 28 / 32);
  assert.equal(s.meanInternalFragmentation, 4 / 32);
  assert.equal(s.throughputTokensPerSec, 5 / 3);
  assert.equal(s.meanConcurrency, 5 / 3);
  assert.deepEqual([s.completed, s.rejected, s.preemptions], [2, 0, 0]);
  const [maxLen, exact] = r.baselines;
  assert.equal(maxLen.name, 'contiguous_max_model_len');
  assert.equal(maxLen.usefulTokenFraction, 28 / 80);
  assert.equal(maxLen.internalFragmentation, 52 / 80);
  assert.equal(exact.name, 'contiguous_prompt_plus_output');
  assert.equal(exact.usefulTokenFraction, 28 / 37);
  assert.deepEqual(
    r.samples.map((x) => [x.t, x.pagesUsed, x.tokens, x.running]),
    [[0, 3, 9, 2], [1, 3, 11, 2], [2, 2, 8, 1]],
  );
  assert.equal(r.samples[0].internalFragmentation, 3 / 12);
});

test('external fragmentation of the contiguous arena, by hand', async () => {
  // Pages of 1 token, 10 pages = an arena of 10 slots; all arrive at t = 0:
  // A (prompt 2, output 1) reserves 3 at [0,3); B (1, 2) 3 at [3,6); C (3, 1) 4 at [6,10);
  // D (4, 1) needs 5: refused at step 1 (0 free). A and C finish after step 1, leaving holes
  // [0,3) and [6,10): at step 2, 7 slots are free yet no hole holds 5 -> F = 7 for 1 s.
  // B finishes after step 2; D runs in step 3. External fragmentation = 7 / (10 slots · 3 s).
  // Useful: tokens 6, 2, 4 over reserved 10, 3, 5 -> 12/18.
  // Paging fits all four at once (10 pages): steps 1–2, pages 10 then 2 -> occupancy 12/20.
  const p = profile('kv_cache: { page_size: 1, num_pages: 10 }\nworkload: { max_model_len: 8 }\n');
  const r = await simulatePool(p, { ...UNIT_STEPS, trace: [req(0, 2, 1), req(0, 1, 2), req(0, 3, 1), req(0, 4, 1)] });
  const exact = r.baselines[1];
  assert.equal(exact.externalFragmentation, 7 / 30);
  assert.equal(exact.usefulTokenFraction, 12 / 18);
  assert.equal(exact.rejectedOrDelayed, 1);
  assert.equal(exact.peakConcurrency, 3);
  assert.equal(r.summary.meanOccupancy, 12 / 20);
  assert.equal(r.summary.peakConcurrency, 4);
  // max_model_len = 8 slots per sequence: one at a time in 10 slots, never a fitting hole lost.
  assert.equal(r.baselines[0].peakConcurrency, 1);
  assert.equal(r.baselines[0].externalFragmentation, 0);
});

test('preemption by recompute frees the most recently admitted sequence and requeues it first', async () => {
  // 4 pages of 1 token. A and B: prompt 2, output 3 (each holds up to 4 tokens).
  // step 1: both prefill (4 pages). step 2: A needs a 5th page -> B preempted (freed), A at 3.
  // step 3: A at 4 tokens, done. step 4: B recomputes prompt + its 1 token (3 pages).
  // step 5: B at 4, done. Pages held: 4, 3, 4, 3, 4 -> occupancy 18 / (4 · 5).
  const p = profile('kv_cache: { page_size: 1, num_pages: 4 }\nworkload: { max_model_len: 16 }\n');
  const r = await simulatePool(p, { ...UNIT_STEPS, trace: [req(0, 2, 3), req(0, 2, 3)], enablePrefixCaching: false });
  assert.equal(r.summary.preemptions, 1);
  assert.equal(r.summary.completed, 2);
  assert.equal(r.summary.simulatedSeconds, 5);
  assert.equal(r.summary.meanOccupancy, 18 / 20);
  assert.deepEqual(
    r.samples.map((x) => [x.pagesUsed, x.running, x.waiting, x.preempted, x.preemptions]),
    // preemptions: cumulative, step 2's counted in its own sample.
    [[4, 2, 0, 0, 0], [3, 1, 1, 1, 1], [4, 1, 1, 1, 1], [3, 1, 0, 0, 1], [4, 1, 0, 0, 1]],
  );
});

test('requests with a shared prefix hit the prefix cache', async () => {
  // Pages of 4. A and B share an 8-token prompt (prefix_id "sys"); B arrives after A is done.
  // A's two full pages are cached when it frees; B may reuse at most 7 tokens -> 1 page (4 tokens).
  // Hit rate = 4 hit / (8 + 8) looked up.
  const p = profile('kv_cache: { page_size: 4, num_pages: 8 }\nworkload: { max_model_len: 16 }\n');
  const r = await simulatePool(p, { ...UNIT_STEPS, trace: [req(0, 8, 1, { prefixId: 'sys' }), req(10, 8, 1, { prefixId: 'sys' })] });
  assert.equal(r.summary.prefixHitRate, 4 / 16);
  const off = await simulatePool(p, { ...UNIT_STEPS, trace: [req(0, 8, 1, { prefixId: 'a' }), req(10, 8, 1, { prefixId: 'b' })] });
  assert.equal(off.summary.prefixHitRate, 0);
});

test('every request is accounted for: completed + rejected = requests, and every output token is generated', async () => {
  const p = profile('kv_cache: { page_size: 4, num_pages: 16 }\nworkload: { max_model_len: 40, max_num_seqs: 3, max_num_batched_tokens: 16 }\n');
  const trace = fc.array(
    fc.record({
      arrivalS: fc.integer({ min: 0, max: 20 }),
      promptLen: fc.integer({ min: 1, max: 60 }),
      outputLen: fc.integer({ min: 1, max: 30 }),
      prefixId: fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
    }),
    { minLength: 1, maxLength: 25 },
  );
  await fc.assert(
    fc.asyncProperty(trace, fc.boolean(), async (requests, caching) => {
      let last: PoolProgress | undefined;
      const r = await simulatePool(p, { ...UNIT_STEPS, trace: requests, enablePrefixCaching: caching, onProgress: (x) => (last = x) });
      // Independent: rejected when prompt >= max_model_len, or when its largest KV
      // (prompt + capped output − 1) needs more than the 16 pages.
      let rejected = 0;
      let outputs = 0;
      let prompts = 0;
      // vllm bench serve's duration: 0 s to the last request's end, the last step's or a later
      // rejected request's arrival (vLLM answers it with an error then).
      let end = r.summary.simulatedSeconds;
      for (const q of requests) {
        const out = Math.min(q.outputLen, 40 - q.promptLen);
        if (q.promptLen >= 40 || Math.ceil((q.promptLen + out - 1) / 4) > 16) {
          rejected++;
          end = Math.max(end, q.arrivalS);
        } else {
          outputs += out;
          prompts += q.promptLen;
        }
      }
      // The progress counts (s47): each prompt token prefilled once (a preempted request's
      // recompute and cache hits not again), each output token decoded once, rejected ones in neither.
      assert.deepEqual(
        { fraction: last!.fraction, prefilled: last!.prefilledTokens, decoded: last!.decodedTokens, toDo: last!.tokensToDo },
        { fraction: 1, prefilled: prompts, decoded: outputs, toDo: prompts + outputs },
      );
      assert.equal(r.summary.requests, requests.length);
      assert.equal(r.summary.rejected, rejected);
      assert.equal(r.summary.completed + r.summary.rejected, requests.length);
      assert.ok(Math.abs(r.summary.throughputTokensPerSec * end - outputs) < 1e-6);
      assert.ok(r.summary.peakOccupancy <= 1);
      for (const s of r.samples) assert.equal(s.pagesUsed + s.pagesCached + s.pagesFree, 16);
    }),
    { numRuns: 60 },
  );
});

test('time integrals match the per-step samples (coasting requests are summed in aggregate)', async () => {
  // All requests arrive at t = 0, so the run is one busy period: step k lasts t[k+1] − t[k]
  // (the last until the end) and every step is sampled. The summary's integrals, which add the
  // coasting requests through aggregates, must equal sums over these per-step samples.
  const p = profile('kv_cache: { page_size: 4, num_pages: 64 }\nworkload: { max_model_len: 200, max_num_seqs: 6, max_num_batched_tokens: 32 }\n');
  const trace = fc.array(fc.record({ arrivalS: fc.constant(0), promptLen: fc.integer({ min: 1, max: 80 }), outputLen: fc.integer({ min: 1, max: 60 }) }), { minLength: 1, maxLength: 12 });
  await fc.assert(
    fc.asyncProperty(trace, async (requests) => {
      const r = await simulatePool(p, { trace: requests, maxSamples: 100_000, stepTime: { perStepS: 0.01, perTokenS: 1e-4, perKvTokenS: 1e-5 } });
      const s = r.samples;
      let used = 0;
      let tokens = 0;
      let running = 0;
      let time = 0;
      for (let k = 0; k < s.length; k++) {
        const dt = (k + 1 < s.length ? s[k + 1].t : r.summary.simulatedSeconds) - s[k].t;
        assert.ok(dt > 0);
        used += s[k].pagesUsed * dt;
        tokens += s[k].tokens * dt;
        running += s[k].running * dt;
        time += dt;
      }
      const close = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);
      close(time, r.summary.simulatedSeconds, 'time');
      close(r.summary.meanOccupancy, used / (64 * time), 'mean occupancy');
      close(r.summary.usefulTokenFraction, tokens / (used * 4), 'useful-token fraction');
      close(r.summary.meanConcurrency, running / time, 'mean concurrency');
      assert.equal(r.summary.peakOccupancy, Math.max(...s.map((x) => x.pagesUsed)) / 64);
    }),
    { numRuns: 80 },
  );
});

test('coasting and private tails give the same run as serving every request every step and hashing every page, sample for sample (sliding-window and chunked local-attention step times too)', () => {
  // Coasting (native/src/pool/simulator.h) skips decoding requests between their events; coast:
  // false serves every running request every step, as vLLM's scheduler loop does; privateTails:
  // false hashes and registers every full page as it fills, as vLLM does. Small pools
  // (preemption, eviction), small token budgets (chunked prefill, steps where the budget runs
  // out), shared prefixes (cache hits) and every layout: totals and every sample must be equal.
  const request = fc.record({
    arrivalS: fc.double({ min: 0, max: 2, noNaN: true }),
    promptLen: fc.integer({ min: 1, max: 90 }),
    outputLen: fc.integer({ min: 1, max: 70 }),
    prefixId: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
    prefixLen: fc.option(fc.integer({ min: 1, max: 90 }), { nil: undefined }),
  });
  const setup = fc.record({
    requests: fc.array(request, { minLength: 1, maxLength: 40 }),
    layout: fc.constantFrom<SimLayout>('paged', 'contiguous_max_model_len', 'contiguous_prompt_plus_output'),
    pageSize: fc.constantFrom(1, 4, 16),
    numPages: fc.integer({ min: 30, max: 120 }),
    watermarkPages: fc.integer({ min: 0, max: 3 }),
    maxNumSeqs: fc.integer({ min: 1, max: 12 }),
    maxNumBatchedTokens: fc.integer({ min: 8, max: 200 }),
    enablePrefixCaching: fc.boolean(),
    moe: fc.boolean(),
    // Sliding-window layers in the step time (0: none): coasting requests cross the window.
    stepSlidingWindow: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 100 })),
    // Chunked local-attention layers instead (used when there is no window): coasting requests
    // cross chunk boundaries, where their read falls back to 1 token.
    stepAttentionChunkSize: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 100 })),
    // A hybrid pool (0: none): window blocks released at their own events; chunked: the groups
    // keep the current chunk of `window` tokens (Llama 4) instead of a sliding window.
    hybrid: fc.oneof(fc.constant(null), fc.record({ window: fc.integer({ min: 2, max: 60 }), full: fc.integer({ min: 1, max: 2 }), sliding: fc.integer({ min: 1, max: 2 }), chunked: fc.boolean() })),
  });
  fc.assert(
    fc.property(setup, ({ requests, layout, pageSize, ...rest }) => {
      const h = layout === 'paged' ? rest.hybrid : null;
      // Every request fits alone (a hybrid pool: every group's blocks of 160 tokens, and one more each).
      const numPages = Math.max(rest.numPages, Math.ceil(160 / pageSize) * (h ? h.full + h.sliding : 1) + (h ? h.sliding : 0));
      const config: ServingSimConfig = {
        layout, pageSize, numPages, watermarkPages: rest.watermarkPages, slidingWindow: h && !h.chunked ? h.window : 0,
        ...(h ? { fullGroups: h.full, slidingGroups: h.sliding, ...(h.chunked ? { attentionChunkSize: h.window } : {}) } : {}),
        enablePrefixCaching: rest.enablePrefixCaching, maxNumSeqs: rest.maxNumSeqs,
        maxNumBatchedTokens: rest.maxNumBatchedTokens, maxModelLen: 160,
        perStepS: 0.01, weightsS: 0.004, perKvTokenS: 1e-5, perTokenS: 1e-4, perPairS: 2e-6, maxSamples: 1_000_000,
        ...(rest.moe ? { expertWeightsS: 0.02, numExperts: 16, numExpertsPerTok: 2 } : {}),
        ...(rest.stepSlidingWindow > 0 ? { stepSlidingWindow: rest.stepSlidingWindow, perSlidingKvTokenS: 3e-5, perSlidingPairS: 5e-6 } : {}),
        ...(rest.stepSlidingWindow === 0 && rest.stepAttentionChunkSize > 0
          ? { stepAttentionChunkSize: rest.stepAttentionChunkSize, perSlidingKvTokenS: 3e-5, perSlidingPairS: 5e-6 }
          : {}),
      };
      const packed = packRequests(requests);
      const run = (coast: boolean, privateTails = true) => {
        const sim = new ServingSimulator({ ...config, coast, privateTails }, packed);
        assert.equal(sim.run(10_000_000), true);
        return { totals: sim.totals(), samples: [...sim.samples()], times: sim.times() };
      };
      const coasting = run(true);
      const stepwise = run(false);
      const hashingAll = run(true, false);
      for (const other of [stepwise, hashingAll]) {
        assert.deepEqual(coasting.totals, other.totals);
        assert.deepEqual(coasting.samples, other.samples);
        assert.deepEqual(coasting.times, other.times);
      }
      assert.equal(coasting.totals.completed + coasting.totals.rejected, requests.length);
      // Every block is held, cached or free at every sample (a hybrid pool's window pages too).
      if (layout === 'paged') {
        const s = coasting.samples;
        const f = SIM_SAMPLE_FIELDS.length;
        for (let i = 0; i < s.length; i += f) assert.equal(s[i + 1]! + s[i + 2]! + s[i + 3]!, numPages, `sample ${i / f}: held + cached + free`);
      }
      assert.ok(coasting.totals.prefixHitTokens <= coasting.totals.prefixQueryTokens);
    }),
    { numRuns: 300 },
  );
});

test('hybrid pool by hand: every group\'s blocks charged from one pool; a preemption and a refused admission vLLM would make', () => {
  // page_size 4, 1 full-attention + 1 sliding-window group, window W = 5, 9 blocks, no watermark,
  // no prefix caching; A and B arrive at 0, prompt 8, output 6; every step 1 s. A request with c
  // tokens computed scheduling n holds ceil((c + n) / 4) full-attention blocks and the
  // sliding-window blocks of pages floor(max(0, c − W + 1) / 4) .. ceil((c + n) / 4) − 1
  // (vLLM SlidingWindowManager: remove_skipped_blocks(c), then allocate_new_blocks(c + n)).
  //   step 1: A prefill 8: 2 + 2 = 4 blocks; B prefill 8: 4; held 8 of 9. Both emit a token.
  //   step 2: A c = 8: frees sliding page 0 (floor(4 / 4) = 1), takes page 2 in both: 5.
  //           B c = 8: would free 1 and take 2, but 0 are free: B preempts itself (vLLM
  //           running.pop()), its 4 freed; held 5. (Charging the full group alone: 3 + 3 = 6 of 9,
  //           no preemption.)
  //   steps 3-5: A c = 9, 10, 11 holds 5; B (9 tokens known: prompt + its first token) needs
  //           3 + 3 = 6 > 4 free: refused.
  //   step 6: A c = 12: frees sliding page 1, takes page 3 in both: 6; A finishes (6 tokens), B refused (3 free).
  //   step 7: B recomputes 9: 6 blocks. step 8: c = 9 frees sliding page 0: 5. steps 9, 10: 5.
  //   step 11: c = 12: frees page 1, takes page 3: 6; B finishes.
  const packed = packRequests([{ arrivalS: 0, promptLen: 8, outputLen: 6 }, { arrivalS: 0, promptLen: 8, outputLen: 6 }]);
  const config: ServingSimConfig = {
    layout: 'paged', numPages: 9, pageSize: 4, watermarkPages: 0, slidingWindow: 5, fullGroups: 1, slidingGroups: 1,
    enablePrefixCaching: false, maxNumSeqs: 8, maxNumBatchedTokens: 64, maxModelLen: 64,
    perStepS: 1, weightsS: 0, perKvTokenS: 0, perTokenS: 0, perPairS: 0, maxSamples: 1000,
  };
  for (const coast of [true, false]) {
    const sim = new ServingSimulator({ ...config, coast }, packed);
    assert.equal(sim.run(1000), true);
    const s = sim.samples();
    const f = SIM_SAMPLE_FIELDS.length;
    const col = (k: number) => Array.from({ length: s.length / f }, (_, i) => s[i * f + k]);
    assert.deepEqual(col(1), [8, 5, 5, 5, 5, 6, 6, 5, 5, 5, 6], `blocks held per step (coast ${coast})`);
    assert.deepEqual(col(6), [2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], 'running');
    assert.deepEqual(col(7), [0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0], 'waiting');
    assert.deepEqual(col(SIM_SAMPLE_FIELDS.indexOf('preemptions')), [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], 'preemptions so far');
    // Held + cached + free = the 9 blocks at every step.
    for (let i = 0; i < s.length / f; i++) assert.equal(col(1)[i]! + col(2)[i]! + col(3)[i]!, 9);
    const t = sim.totals();
    assert.equal(t.preemptions, 1);
    assert.equal(t.delayed, 1);
    assert.equal(t.steps, 11);
    assert.equal(t.peakPagesUsed, 8);
    assert.deepEqual(Array.from(sim.times().finishS), [6, 11]);
  }
});

test('chunked local-attention pool by hand (Llama 4): a chunked group keeps only the current chunk\'s blocks (vLLM ChunkedLocalAttentionManager)', () => {
  // page_size 4, chunk C = 8 (2 pages), 1 full-attention + 1 chunked group, one request of prompt 10,
  // output 8, one step a second, no prefix caching. Before the append at c computed tokens vLLM frees
  // the chunked blocks before get_num_skipped_tokens(c) = floor(c / 8) · 8 (remove_skipped_blocks, then
  // allocate_new_blocks(c + n)); the full group holds ceil((c + n) / 4):
  //   step 1: c = 0, n = 10: full 3, chunked pages 0..2: 3 -> 6.
  //   step 2: c = 10: skipped 8 -> chunked pages 0, 1 freed; 11 tokens: full 3, chunked page 2 -> 4.
  //   step 3: c = 11: 12 tokens -> 4.   step 4: c = 12: page 3 in both: full 4, chunked 2, 3 -> 6.
  //   steps 5-7: c = 13..15 -> 6.       step 8: c = 16: skipped 16 -> pages 2, 3 freed; page 4: 5 + 1 = 6.
  // (As a sliding window of 8, the old upper bound: 6, 6, 5, 7, 7, 7, 6, 8, since a window of 8
  // keeps the 7 tokens before the current one where the chunk keeps those since its start.)
  const packed = packRequests([{ arrivalS: 0, promptLen: 10, outputLen: 8 }]);
  const config: ServingSimConfig = {
    layout: 'paged', numPages: 40, pageSize: 4, watermarkPages: 0, slidingWindow: 0, fullGroups: 1, slidingGroups: 1, attentionChunkSize: 8,
    enablePrefixCaching: false, maxNumSeqs: 8, maxNumBatchedTokens: 64, maxModelLen: 64,
    perStepS: 1, weightsS: 0, perKvTokenS: 0, perTokenS: 0, perPairS: 0, maxSamples: 1000,
  };
  const f = SIM_SAMPLE_FIELDS.length;
  for (const coast of [true, false]) {
    const sim = new ServingSimulator({ ...config, coast }, packed);
    assert.equal(sim.run(1000), true);
    const s = sim.samples();
    const col = (k: number) => Array.from({ length: s.length / f }, (_, i) => s[i * f + k]);
    assert.deepEqual(col(1), [6, 4, 4, 6, 6, 6, 6, 6], `blocks held per step (coast ${coast})`);
    for (let i = 0; i < s.length / f; i++) assert.equal(col(1)[i]! + col(2)[i]! + col(3)[i]!, 40);
  }
  // A chunk with a sliding window or without groups is refused, naming the argument.
  assert.throws(() => new ServingSimulator({ ...config, slidingWindow: 8 }, packed), /attentionChunkSize needs slidingWindow 0 and slidingGroups >= 1/);
  assert.throws(() => new ServingSimulator({ ...config, slidingGroups: 0 }, packed), /attentionChunkSize needs slidingWindow 0 and slidingGroups >= 1/);
});

test('chunked prefix caching: the blocks before the hit\'s chunk count as hit without chunked blocks; from its start the chunked blocks must be cached (vLLM ChunkedLocalAttentionManager.find_longest_cache_hit)', () => {
  // 2 groups (1 full-attention, 1 chunked of C = 8 tokens = 2 pages of 4), one step a second.
  // A (t 0): prompt 40 = 36 shared + 4 own, output 3; C (t 1.5): its own prompt of 4 or 8, output 1;
  // B (t 2.5): the same 36 shared tokens + 4 own, output 1. By hand:
  //   step 1: A prefills 40: 10 pages + 10 chunked pages = 20 blocks, registered as they fill.
  //   step 2: A's decode at c = 40 first frees the chunked pages before floor(40 / 8) · 8 = 40,
  //           page 10: 9, 8, .., 0 (the highest first) to the cached queue, then takes page 10 in
  //           both groups: 12 held, 10 cached, X free (numPages = 22 + X).
  //   step 3: C takes a page and a chunked page per 4 tokens; beyond the X free blocks it evicts the
  //           least recently released cached record: chunked page 9 first, then 8, 7, 6.
  //   step 4: B's lookup: the full group's run is 9 pages (at most (40 − 1) / 4 = 9); the chunked group
  //           (max_length 36) counts the pages before floor(36 / 8) · 8 = 32 (page 8) as hit, null, and
  //           needs page 8's chunked block from there:
  //     X = 2, C 4 tokens: nothing evicted: 9 pages = 36 tokens;
  //     X = 1, C 4 tokens: 9 evicted, 8 cached: 36;
  //     X = 0, C 4 tokens: 9, 8 evicted: 8 pages = 32;
  //     X = 0, C 8 tokens: 9, 8, 7, 6 evicted: 32 (the sliding rule of a window of 8, which needs the
  //             ceil(7 / 4) = 2 window pages before the hit's end, found 5, 4: 24).
  const requests = (c: number) =>
    packRequests([
      { arrivalS: 0, promptLen: 40, outputLen: 3, prefixId: 'p', prefixLen: 36 },
      { arrivalS: 1.5, promptLen: c, outputLen: 1 },
      { arrivalS: 2.5, promptLen: 40, outputLen: 1, prefixId: 'p', prefixLen: 36 },
    ]);
  const config: ServingSimConfig = {
    layout: 'paged', numPages: 22, pageSize: 4, watermarkPages: 0, slidingWindow: 0, fullGroups: 1, slidingGroups: 1, attentionChunkSize: 8,
    enablePrefixCaching: true, maxNumSeqs: 8, maxNumBatchedTokens: 64, maxModelLen: 128,
    perStepS: 1, weightsS: 0, perKvTokenS: 0, perTokenS: 0, perPairS: 0, maxSamples: 1000,
  };
  for (const coast of [true, false]) {
    for (const [free, c, hit] of [[2, 4, 36], [1, 4, 36], [0, 4, 32], [0, 8, 32]] as const) {
      const sim = new ServingSimulator({ ...config, numPages: 22 + free, coast }, requests(c));
      assert.equal(sim.run(1000), true);
      const t = sim.totals();
      assert.equal(t.preemptions, 0);
      assert.equal(t.prefixHitTokens, hit, `X = ${free}, C ${c} tokens, coast ${coast}`);
      const s = sim.samples();
      const f = SIM_SAMPLE_FIELDS.length;
      for (let i = 0; i < s.length / f; i++) assert.equal(s[i * f + 1]! + s[i * f + 2]! + s[i * f + 3]!, 22 + free, 'held + cached + free = the pool');
    }
  }
});

test('a hybrid Mamba pool: a request holds its state blocks from admission to its end, so fewer run at once', () => {
  // By hand: 10 blocks of 4 tokens, 3 state blocks per request (vLLM's MambaManager: one per Mamba
  // group), 4 requests at 0 s of 4 prompt + 2 output tokens, one step a second. Admission needs the
  // prompt's page + 3 state blocks = 4 blocks: A and B are admitted (8 held), C and D wait (2 free).
  // Step 2: A and B append token 5, a second page each: 10 held; they finish. Step 3: C and D the same.
  // Without state blocks all 4 run from step 1 (4 pages, then 8).
  const packed = packRequests(Array.from({ length: 4 }, () => ({ arrivalS: 0, promptLen: 4, outputLen: 2 })));
  const config: ServingSimConfig = {
    layout: 'paged', numPages: 10, pageSize: 4, watermarkPages: 0, slidingWindow: 0, fullGroups: 1, stateBlocks: 3,
    enablePrefixCaching: false, maxNumSeqs: 8, maxNumBatchedTokens: 64, maxModelLen: 64,
    perStepS: 1, weightsS: 0, perKvTokenS: 0, perTokenS: 0, perPairS: 0, maxSamples: 1000,
  };
  const f = SIM_SAMPLE_FIELDS.length;
  for (const coast of [true, false]) {
    const sim = new ServingSimulator({ ...config, coast }, packed);
    assert.equal(sim.run(1000), true);
    const s = sim.samples();
    const col = (k: number) => Array.from({ length: s.length / f }, (_, i) => s[i * f + k]);
    assert.deepEqual(col(6), [2, 2, 2, 2], `running (coast ${coast})`);
    assert.deepEqual(col(7), [2, 2, 0, 0], 'waiting');
    assert.deepEqual(col(1), [8, 10, 8, 10], 'blocks held, state blocks included');
    // Token slots reserved (useful tokens / internal fragmentation): the pages' alone, 2 or 4 pages of 4; a state block holds no token.
    assert.deepEqual(col(5), [8, 16, 8, 16], 'token slots reserved');
    for (let i = 0; i < s.length / f; i++) assert.equal(col(1)[i]! + col(2)[i]! + col(3)[i]!, 10);
    assert.equal(sim.totals().completed, 4);
    assert.deepEqual(Array.from(sim.times().finishS), [2, 2, 4, 4]);
    const plain = new ServingSimulator({ ...config, stateBlocks: 0, coast }, packed);
    assert.equal(plain.run(1000), true);
    assert.equal(plain.samples()[6], 4, 'without state blocks all 4 run at once');
  }
  // A request whose state and pages can never fit is rejected, not left waiting.
  const big = new ServingSimulator({ ...config, numPages: 4, stateBlocks: 3 }, packRequests([{ arrivalS: 0, promptLen: 4, outputLen: 2 }]));
  assert.equal(big.run(1000), true);
  assert.equal(big.totals().rejected, 1);
});

test('MoE step time: a step of n tokens reads the dense weights and the expected share 1 − (1 − k/E)^n of the routed experts', () => {
  // By hand: one request at 0 s, prompt 2, output 3; dense weights 1 ms, all routed experts
  // 10 ms, E = 4, k = 1, nothing else costs. Prefill step (2 tokens): 1 − (3/4)^2 = 0.4375 of
  // the experts → 1 + 4.375 = 5.375 ms, the first token. Two decode steps of 1 token:
  // 1 + 10 · 1/4 = 3.5 ms each → last token at 12.375 ms. (All experts every step: 11, 33 ms;
  // k/E of them every step: 3.5, 10.5 ms.)
  const config: ServingSimConfig = {
    layout: 'paged', pageSize: 16, numPages: 10, watermarkPages: 0, slidingWindow: 0, enablePrefixCaching: false,
    maxNumSeqs: 4, maxNumBatchedTokens: 64, maxModelLen: 160, maxSamples: 100,
    perStepS: 0, weightsS: 0.001, expertWeightsS: 0.01, numExperts: 4, numExpertsPerTok: 1, perKvTokenS: 0, perTokenS: 0, perPairS: 0,
  };
  const sim = new ServingSimulator(config, packRequests([{ arrivalS: 0, promptLen: 2, outputLen: 3 }]));
  assert.equal(sim.run(1000), true);
  const t = sim.times();
  assert.ok(Math.abs(t.firstTokenS[0]! - 0.005375) < 1e-12, `first token ${t.firstTokenS[0]}`);
  assert.ok(Math.abs(t.finishS[0]! - 0.012375) < 1e-12, `finish ${t.finishS[0]}`);
  assert.throws(() => new ServingSimulator({ ...config, numExpertsPerTok: 5 }, packRequests([{ arrivalS: 0, promptLen: 2, outputLen: 3 }])), RangeError);
});

test('hybrid prefix caching: a hit is as long as the sliding group can serve it, whose window pages the window released and eviction took (vLLM HybridKVCacheCoordinator)', () => {
  // 2 groups (1 full-attention, 1 sliding of W = 16 tokens = 4 pages of 4), one step a second.
  // A (t 0): prompt 44 = 40 shared + 4 own, output 3; C (t 1.5): its own prompt of 4 or 8,
  // output 1; B (t 2.5): the same 40 shared tokens + 4 own, output 1. By hand:
  //   step 1: A prefills 44: 11 pages + 11 window pages = 22 blocks, all registered as they fill.
  //   step 2: A's decode at 44 first releases the window pages the next query cannot see,
  //           before floor((44 − 16 + 1) / 4) = 7: 6, 5, .., 0 in that order (vLLM
  //           remove_skipped_blocks: the highest first), to the cached queue (still hashed,
  //           as vLLM's BlockPool keeps a freed block's hash), then takes page 11 + its window
  //           page: 17 held, 7 cached, X free (numPages = 24 + X).
  //   step 3: C takes 2 blocks a page; beyond the X free ones it evicts the least recently
  //           released cached record, window page 6 first, then 5, 4, 3. A and C finish (A's
  //           window pages 7..10 and pages 0..10 cached).
  //   step 4: B's lookup: the full group's longest run of cached pages is 10 (max (44 − 1) / 4 =
  //           10, FullAttentionManager); the sliding group searches from page 9 down for
  //           c = ceil((16 − 1) / 4) = 4 cached window pages in a row and cuts the hit to the end
  //           of that run (SlidingWindowManager.find_longest_cache_hit; one pass for one full +
  //           one sliding spec):
  //     X = 10, C 4 tokens: nothing evicted, pages 6..9 cached: 10 pages = 40 tokens;
  //     X = 1,  C 4 tokens: 6 evicted: 9, 8, 7 then a miss, then 5, 4, 3, 2: end 6 = 24 tokens;
  //     X = 0,  C 4 tokens: 6, 5 evicted: 4, 3, 2, 1: end 5 = 20 tokens;
  //     X = 0,  C 8 tokens: 6, 5, 4, 3 evicted: no run of 4, so the run from page 0, 0..2
  //             (vLLM: "the first num_contiguous_blocks is a cache hit"): 3 pages = 12 tokens.
  // A full-attention pool of the same pages, or a hit on the full group alone (before), finds 40.
  const requests = (c: number) =>
    packRequests([
      { arrivalS: 0, promptLen: 44, outputLen: 3, prefixId: 'p', prefixLen: 40 },
      { arrivalS: 1.5, promptLen: c, outputLen: 1 },
      { arrivalS: 2.5, promptLen: 44, outputLen: 1, prefixId: 'p', prefixLen: 40 },
    ]);
  const config: ServingSimConfig = {
    layout: 'paged', numPages: 24, pageSize: 4, watermarkPages: 0, slidingWindow: 16, fullGroups: 1, slidingGroups: 1,
    enablePrefixCaching: true, maxNumSeqs: 8, maxNumBatchedTokens: 64, maxModelLen: 128,
    perStepS: 1, weightsS: 0, perKvTokenS: 0, perTokenS: 0, perPairS: 0, maxSamples: 1000,
  };
  const cases: Array<[number, number, number]> = [[10, 4, 40], [1, 4, 24], [0, 4, 20], [0, 8, 12]];
  for (const coast of [true, false]) {
    for (const [free, c, hit] of cases) {
      const sim = new ServingSimulator({ ...config, numPages: 24 + free, coast }, requests(c));
      assert.equal(sim.run(1000), true);
      const t = sim.totals();
      assert.equal(t.preemptions, 0);
      assert.equal(t.prefixHitTokens, hit, `X = ${free}, C ${c} tokens, coast ${coast}`);
      const s = sim.samples();
      const f = SIM_SAMPLE_FIELDS.length;
      for (let i = 0; i < s.length / f; i++) assert.equal(s[i * f + 1]! + s[i * f + 2]! + s[i * f + 3]!, 24 + free, 'held + cached + free = the pool');
    }
    const full = new ServingSimulator({ ...config, numPages: 24, slidingWindow: 0, slidingGroups: 0, coast }, requests(8));
    assert.equal(full.run(1000), true);
    assert.equal(full.totals().prefixHitTokens, 40, 'a full-attention pool keeps the 10 pages held or cached');
  }
});

test('sliding-window step time: a full layer reads the whole context, a sliding one (W = 4) min(context, 4) KV tokens and the pairs inside its window', () => {
  // A 2-layer toy, one full-attention layer and one sliding-window layer of W = 4, each costing
  // 1 ms per KV token read (memory run: no compute) or 1 ms per query-key pair (compute run: no
  // memory); one request, prompt 10, output 2, max_num_batched_tokens 6: three steps.
  //   step 1, prefill chunk at positions 0..5 (context 6):
  //     full KV 6; sliding: its queries see keys 0..5, min(6, 6 + 4 − 1) = 6  → 12 KV tokens
  //     full pairs 1 + .. + 6 = 21; sliding 1 + 2 + 3 + 4 + 4 + 4 = 18        → 39 pairs
  //   step 2, prefill chunk at positions 6..9 (context 10), then the first token:
  //     full KV 10; sliding: query 6 sees keys 3..6, query 9 sees 6..9: keys 3..9 = 7 = min(10, 4 + 3)
  //                                                                           → 17 KV tokens
  //     full pairs 7 + 8 + 9 + 10 = 34; sliding 4 · 4 = 16                   → 50 pairs
  //   step 3, the decode token at position 10 (context 11), the last token:
  //     full KV 11, sliding min(11, 4) = 4 → 15 KV tokens; pairs 11 + 4 = 15
  // Memory run: first token at 12 + 17 = 29 ms, last at 44 ms; compute run: 89 ms, 104 ms.
  // (Every layer at the whole context, as before: 12 + 20 = 32 ms and 54 ms; 42 + 68 = 110 ms and 132 ms.)
  // simulator.h SlidingPairs's own example: W = 4, positions 0..9: 1 + 2 + 3 + 4 · 7 = 34.
  const base: ServingSimConfig = {
    layout: 'paged', pageSize: 16, numPages: 10, watermarkPages: 0, slidingWindow: 0, enablePrefixCaching: false,
    maxNumSeqs: 4, maxNumBatchedTokens: 6, maxModelLen: 160, maxSamples: 100,
    perStepS: 0, weightsS: 0, perTokenS: 0, perKvTokenS: 0, perPairS: 0, stepSlidingWindow: 4,
  };
  const run = (config: ServingSimConfig) => {
    const sim = new ServingSimulator(config, packRequests([{ arrivalS: 0, promptLen: 10, outputLen: 2 }]));
    assert.equal(sim.run(1000), true);
    assert.equal(sim.totals().steps, 3);
    const t = sim.times();
    return [t.firstTokenS[0]! * 1000, t.finishS[0]! * 1000];
  };
  const close = (got: number[], want: number[], what: string) => assert.ok(got.every((g, i) => Math.abs(g - want[i]!) < 1e-9), `${what}: ${got} vs ${want}`);
  close(run({ ...base, perKvTokenS: 1e-3, perSlidingKvTokenS: 1e-3 }), [29, 44], 'memory-bound');
  close(run({ ...base, perPairS: 1e-3, perSlidingPairS: 1e-3 }), [89, 104], 'compute-bound');
  // The same layers all full (no window): the whole context for both.
  close(run({ ...base, stepSlidingWindow: 0, perKvTokenS: 2e-3 }), [32, 54], 'both layers full');
  assert.throws(() => new ServingSimulator({ ...base, stepSlidingWindow: 0, perSlidingKvTokenS: 1e-3 }, packRequests([{ arrivalS: 0, promptLen: 10, outputLen: 2 }])), /need stepSlidingWindow >= 1 .* or stepAttentionChunkSize >= 1/);
  assert.throws(() => new ServingSimulator({ ...base, stepSlidingWindow: -1 }, packRequests([{ arrivalS: 0, promptLen: 10, outputLen: 2 }])), RangeError);
});

test('MLA step time: one-token chunks (decode) attend at perDecodePairS, longer chunks (prefill) at perPairS; without it (a run saved before the split) both at perPairS', () => {
  // vLLM's MLA backends (vllm/v1/attention/backends/mla/common.py) split a batch by query length:
  // query_len <= reorder_batch_threshold (1 without speculative decoding) runs the absorbed decode
  // form, longer ones the prefill form. A 1-layer toy at 1 ms per prefill pair and 3 ms per decode
  // pair (compute-bound, nothing else costs); one request, prompt 7, output 3,
  // max_num_batched_tokens 6: four steps.
  //   step 1, prefill chunk at positions 0..5: 1 + .. + 6 = 21 prefill pairs          → 21 ms
  //   step 2, the prompt's last token alone (position 6, query_len 1: decode in vLLM):
  //     7 decode pairs, then the first token                                           → 21 ms
  //   steps 3, 4, decode tokens at positions 7, 8: 8 and 9 decode pairs                → 24, 27 ms
  // First token at 21 + 21 = 42 ms, last at 42 + 24 + 27 = 93 ms. Without perDecodePairS every
  // pair costs 1 ms: 21 + 7 = 28 ms and 28 + 8 + 9 = 45 ms.
  const base: ServingSimConfig = {
    layout: 'paged', pageSize: 16, numPages: 10, watermarkPages: 0, slidingWindow: 0, enablePrefixCaching: false,
    maxNumSeqs: 4, maxNumBatchedTokens: 6, maxModelLen: 160, maxSamples: 100,
    perStepS: 0, weightsS: 0, perTokenS: 0, perKvTokenS: 0, perPairS: 1e-3,
  };
  const requests = packRequests([{ arrivalS: 0, promptLen: 7, outputLen: 3 }]);
  const run = (config: ServingSimConfig, coast: boolean) => {
    const sim = new ServingSimulator({ ...config, coast }, requests);
    assert.equal(sim.run(1000), true);
    assert.equal(sim.totals().steps, 4);
    const t = sim.times();
    return [t.firstTokenS[0]! * 1000, t.finishS[0]! * 1000];
  };
  const close = (got: number[], want: number[], what: string) => assert.ok(got.every((g, i) => Math.abs(g - want[i]!) < 1e-9), `${what}: ${got} vs ${want}`);
  for (const coast of [true, false]) {
    close(run({ ...base, perDecodePairS: 3e-3 }, coast), [42, 93], `MLA, coast ${coast}`);
    close(run(base, coast), [28, 45], `one coefficient, coast ${coast}`);
    // An undefined field is an absent one (runner/simulate/simulate.ts passes the model's coefficients as they are).
    close(run({ ...base, perDecodePairS: undefined }, coast), [28, 45], `perDecodePairS undefined, coast ${coast}`);
  }
  assert.throws(() => new ServingSimulator({ ...base, perDecodePairS: -1 }, requests), /perDecodePairS must be >= 0/);
});

test('lm_head step time: perLogitsS once per request scheduled in a step (its one logits row, a partial prefill chunk\'s too), not per token', () => {
  // vllm/v1/worker/gpu_model_runner.py: logits_indices = query_start_loc[1:] - 1, one row per
  // scheduled request (a partial prefill chunk's sample is computed and discarded). 1 ms per row,
  // nothing else costs. Request A: prompt 7, output 3; B arrives with it: prompt 2, output 1;
  // max_num_batched_tokens 6:
  //   step 1: A's chunk 0..5 (6 tokens, budget spent, B waits)                       1 row
  //   step 2: A's last prompt token (first token), B's prompt (2 tokens; its token)  2 rows
  //   step 3: A decodes (B finished)                                                 1 row
  //   step 4: A decodes, its last token                                              1 row
  // A: first token at 3 ms, last at 5 ms; B: first and last at 3 ms. Per token instead (1 ms):
  // 6 + 3 = 9 ms, then 10, 11.
  const base: ServingSimConfig = {
    layout: 'paged', pageSize: 16, numPages: 10, watermarkPages: 0, slidingWindow: 0, enablePrefixCaching: false,
    maxNumSeqs: 4, maxNumBatchedTokens: 6, maxModelLen: 160, maxSamples: 100,
    perStepS: 0, weightsS: 0, perTokenS: 0, perKvTokenS: 0, perPairS: 0,
  };
  const requests = packRequests([{ arrivalS: 0, promptLen: 7, outputLen: 3 }, { arrivalS: 0, promptLen: 2, outputLen: 1 }]);
  const run = (config: ServingSimConfig, coast: boolean) => {
    const sim = new ServingSimulator({ ...config, coast }, requests);
    assert.equal(sim.run(1000), true);
    assert.equal(sim.totals().steps, 4);
    const t = sim.times();
    return [t.firstTokenS[0]! * 1000, t.finishS[0]! * 1000, t.firstTokenS[1]! * 1000, t.finishS[1]! * 1000];
  };
  const close = (got: number[], want: number[], what: string) => assert.ok(got.every((g, i) => Math.abs(g - want[i]!) < 1e-9), `${what}: ${got} vs ${want}`);
  for (const coast of [true, false]) {
    close(run({ ...base, perLogitsS: 1e-3 }, coast), [3, 5, 3, 3], `per request, coast ${coast}`);
    close(run({ ...base, perTokenS: 1e-3 }, coast), [9, 11, 9, 9], `per token, coast ${coast}`);
  }
  assert.throws(() => new ServingSimulator({ ...base, perLogitsS: -1 }, requests), /perLogitsS must be >= 0/);
});

test('recurrent-state step time: perRequestStateS once per request scheduled, on the memory side of the roofline, coasting decodes included', () => {
  // Mamba / GDN / lightning / short-conv layers read and write each scheduled request's state once a
  // step (runner/simulate/step-time.ts recurrentStateNote). A toy: weights 1 ms, 0.5 ms a request's
  // state, nothing else. Three requests at 0 s, prompt 4, output 5, pages of 16 (their decode tokens
  // coast: no page or last-token event until the end):
  //   step 1: three prompts (3 requests)    1 + 1.5 = 2.5 ms   first tokens at 2.5 ms
  //   steps 2..5: three decodes each         2.5 ms            last tokens at 12.5 ms
  // Without the term: 1 ms a step, 1 and 5 ms. With 1 ms a token on the compute side instead of the
  // weights: max(0.5 · 3, 12) = 12 ms, then max(1.5, 3) = 3 ms a step: 12 and 24 ms (the state is a
  // read, not a FLOP: added to the compute side it would give 13.5 and 31.5).
  const base: ServingSimConfig = {
    layout: 'paged', pageSize: 16, numPages: 10, watermarkPages: 0, slidingWindow: 0, enablePrefixCaching: false,
    maxNumSeqs: 4, maxNumBatchedTokens: 64, maxModelLen: 160, maxSamples: 100,
    perStepS: 0, weightsS: 1e-3, perTokenS: 0, perKvTokenS: 0, perPairS: 0,
  };
  const requests = packRequests([0, 1, 2].map(() => ({ arrivalS: 0, promptLen: 4, outputLen: 5 })));
  const run = (config: ServingSimConfig, coast: boolean) => {
    const sim = new ServingSimulator({ ...config, coast }, requests);
    assert.equal(sim.run(1000), true);
    assert.equal(sim.totals().steps, 5);
    const t = sim.times();
    return [0, 1, 2].flatMap((i) => [t.firstTokenS[i]! * 1000, t.finishS[i]! * 1000]);
  };
  const close = (got: number[], want: number[], what: string) => assert.ok(got.every((g, i) => Math.abs(g - want[i]!) < 1e-9), `${what}: ${got} vs ${want}`);
  for (const coast of [true, false]) {
    close(run({ ...base, perRequestStateS: 0.5e-3 }, coast), [2.5, 12.5, 2.5, 12.5, 2.5, 12.5], `state, coast ${coast}`);
    close(run(base, coast), [1, 5, 1, 5, 1, 5], `without, coast ${coast}`);
    close(run({ ...base, weightsS: 0, perTokenS: 1e-3, perRequestStateS: 0.5e-3 }, coast), [12, 24, 12, 24, 12, 24], `compute-bound, coast ${coast}`);
  }
  assert.throws(() => new ServingSimulator({ ...base, perRequestStateS: -1 }, requests), /perRequestStateS must be >= 0/);
});

test('MLA step time: a prefill chunk pays perPrefillContextTokenS per token computed before it (earlier chunks, a prefix hit), a decode token perDecodeTokenS', () => {
  // vLLM's MLA prefill (mla_attention.py _compute_prefill_context) up-projects the latent of every
  // context token of a chunk of query_len > 1 through kv_b_proj; a decode token (query_len 1) does
  // not, and in a W8A8 checkpoint it runs kv_b_proj as bf16 bmm's (perDecodeTokenS). A toy: 1 ms per
  // token, 2 ms per decode token, 0.25 ms per context token, nothing else costs; pages of 4 tokens,
  // max_num_batched_tokens 8, prefix caching on.
  //   A (at 0 s): prompt 20 (its first 16 tokens a shared prefix), output 2:
  //     step 1, chunk 0..7, no context:                   8 ms
  //     step 2, chunk 8..15, context 8:        8 + 2   = 10 ms
  //     step 3, chunk 16..19, context 16:      4 + 4   =  8 ms   first token at 26 ms
  //     step 4, a decode token:                             2 ms   last token at 28 ms
  //   B (at 1 s, A gone): prompt 20, the same prefix: 16 tokens hit (4 full pages), chunk 16..19,
  //     context 16:                           4 + 4   =  8 ms   first and last token at 1.008 s
  // Without the two coefficients (a run saved before them): A 8, 8, 4 → 20 ms, then 21; B 4 ms.
  const base: ServingSimConfig = {
    layout: 'paged', pageSize: 4, numPages: 40, watermarkPages: 0, slidingWindow: 0, enablePrefixCaching: true,
    maxNumSeqs: 4, maxNumBatchedTokens: 8, maxModelLen: 64, maxSamples: 100,
    perStepS: 0, weightsS: 0, perTokenS: 1e-3, perKvTokenS: 0, perPairS: 0,
  };
  const requests = packRequests([
    { arrivalS: 0, promptLen: 20, outputLen: 2, prefixId: 'p', prefixLen: 16 },
    { arrivalS: 1, promptLen: 20, outputLen: 1, prefixId: 'p', prefixLen: 16 },
  ]);
  const run = (config: ServingSimConfig, coast: boolean) => {
    const sim = new ServingSimulator({ ...config, coast }, requests);
    assert.equal(sim.run(1000), true);
    assert.equal(sim.totals().prefixHitTokens, 16);
    const t = sim.times();
    return [t.firstTokenS[0]! * 1000, t.finishS[0]! * 1000, (t.firstTokenS[1]! - 1) * 1000, (t.finishS[1]! - 1) * 1000];
  };
  const close = (got: number[], want: number[], what: string) => assert.ok(got.every((g, i) => Math.abs(g - want[i]!) < 1e-9), `${what}: ${got} vs ${want}`);
  for (const coast of [true, false]) {
    close(run({ ...base, perDecodeTokenS: 2e-3, perPrefillContextTokenS: 0.25e-3 }, coast), [26, 28, 8, 8], `MLA, coast ${coast}`);
    close(run(base, coast), [20, 21, 4, 4], `without them, coast ${coast}`);
  }
  assert.throws(() => new ServingSimulator({ ...base, perPrefillContextTokenS: -1 }, requests), /perPrefillContextTokenS must be >= 0/);
  assert.throws(() => new ServingSimulator({ ...base, perDecodeTokenS: Number.NaN }, requests), /perDecodeTokenS must be a finite number/);
});

test('MLA step time: a prefill chunk\'s context K/V (perPrefillContextKvS) on the memory side, per context token', () => {
  // The toy above with 1 ms a token (compute) and 2 ms a context token of K/V traffic (memory):
  //   A: chunk 0..7, no context          max(0, 8)   =  8 ms
  //      chunk 8..15, context 8         max(16, 8)  = 16 ms
  //      chunk 16..19, context 16       max(32, 4)  = 32 ms   first token at 56 ms
  //      a decode token                 max(0, 1)   =  1 ms   last token at 57 ms
  //   B (at 1 s): 16 tokens hit, chunk 16..19, context 16: 32 ms
  // Added to the compute side instead it would give 8, 24, 36, 1: 68 and 69 ms.
  const base: ServingSimConfig = {
    layout: 'paged', pageSize: 4, numPages: 40, watermarkPages: 0, slidingWindow: 0, enablePrefixCaching: true,
    maxNumSeqs: 4, maxNumBatchedTokens: 8, maxModelLen: 64, maxSamples: 100,
    perStepS: 0, weightsS: 0, perTokenS: 1e-3, perKvTokenS: 0, perPairS: 0,
  };
  const requests = packRequests([
    { arrivalS: 0, promptLen: 20, outputLen: 2, prefixId: 'p', prefixLen: 16 },
    { arrivalS: 1, promptLen: 20, outputLen: 1, prefixId: 'p', prefixLen: 16 },
  ]);
  const run = (config: ServingSimConfig, coast: boolean) => {
    const sim = new ServingSimulator({ ...config, coast }, requests);
    assert.equal(sim.run(1000), true);
    const t = sim.times();
    return [t.firstTokenS[0]! * 1000, t.finishS[0]! * 1000, (t.firstTokenS[1]! - 1) * 1000, (t.finishS[1]! - 1) * 1000];
  };
  const close = (got: number[], want: number[], what: string) => assert.ok(got.every((g, i) => Math.abs(g - want[i]!) < 1e-9), `${what}: ${got} vs ${want}`);
  for (const coast of [true, false]) close(run({ ...base, perPrefillContextKvS: 2e-3 }, coast), [56, 57, 32, 32], `coast ${coast}`);
  assert.throws(() => new ServingSimulator({ ...base, perPrefillContextKvS: -1 }, requests), /perPrefillContextKvS must be >= 0/);
});

test('MLA W8A8 weights: decodeWeightsS only in a step with a decode token, prefillWeightsS only in one with a prefill chunk', () => {
  // vLLM's forward_mqa multiplies decode tokens (one-token chunks) by the bf16 copies W_UK_T / W_UV,
  // forward_mha calls the fp8 kv_b_proj. Toy: weights 1 ms, copies 2 ms, kv_b_proj 4 ms, nothing
  // else. A: prompt 7, output 3; B with it: prompt 2, output 1; max_num_batched_tokens 6:
  //   step 1: A's chunk 0..5 (prefill only)                                 1 + 4     =  5 ms
  //   step 2: A's last prompt token (a one-token chunk: decode), B's prompt   1 + 2 + 4 =  7 ms (12)
  //   steps 3, 4: A decodes                                                  1 + 2     =  3 ms (15, 18)
  // A: first token at 12 ms, last at 18; B: 12 and 12. Both every step (weightsS 7 ms, as before the
  // split): 14, 28, 14, 14.
  const base: ServingSimConfig = {
    layout: 'paged', pageSize: 16, numPages: 10, watermarkPages: 0, slidingWindow: 0, enablePrefixCaching: false,
    maxNumSeqs: 4, maxNumBatchedTokens: 6, maxModelLen: 160, maxSamples: 100,
    perStepS: 0, weightsS: 1e-3, perTokenS: 0, perKvTokenS: 0, perPairS: 0,
  };
  const requests = packRequests([{ arrivalS: 0, promptLen: 7, outputLen: 3 }, { arrivalS: 0, promptLen: 2, outputLen: 1 }]);
  const run = (config: ServingSimConfig, coast: boolean) => {
    const sim = new ServingSimulator({ ...config, coast }, requests);
    assert.equal(sim.run(1000), true);
    const t = sim.times();
    return [t.firstTokenS[0]! * 1000, t.finishS[0]! * 1000, t.firstTokenS[1]! * 1000, t.finishS[1]! * 1000];
  };
  const close = (got: number[], want: number[], what: string) => assert.ok(got.every((g, i) => Math.abs(g - want[i]!) < 1e-9), `${what}: ${got} vs ${want}`);
  for (const coast of [true, false]) {
    close(run({ ...base, decodeWeightsS: 2e-3, prefillWeightsS: 4e-3 }, coast), [12, 18, 12, 12], `split, coast ${coast}`);
    close(run({ ...base, weightsS: 7e-3 }, coast), [14, 28, 14, 14], `every step, coast ${coast}`);
  }
  assert.throws(() => new ServingSimulator({ ...base, prefillWeightsS: -1 }, requests), /prefillWeightsS must be >= 0/);
});

test('chunked local-attention step time (Llama 4): a query at position t reads its own chunk\'s keys only, (t mod C) + 1 of them', () => {
  // A 2-layer toy, one full-attention layer and one chunked layer of C = 4 (chunks 0..3, 4..7,
  // 8..11, 12..), each costing 1 ms per KV token read (memory run) or per query-key pair (compute
  // run); one request, prompt 10, output 5, max_num_batched_tokens 6: six steps.
  //   step 1, prefill chunk at positions 0..5: full KV 6; chunked: keys 0..5 (chunks 0 and 1) = 6
  //     → 12 KV tokens; pairs: full 1 + .. + 6 = 21, chunked 1 + 2 + 3 + 4 + 1 + 2 = 13 → 34
  //   step 2, positions 6..9, then the first token: full KV 10; chunked: keys from 4 (the start
  //     of position 6's chunk) to 9 = 6 → 16 KV tokens; pairs 7 + 8 + 9 + 10 = 34 and
  //     3 + 4 + 1 + 2 = 10 → 44
  //   steps 3-6, decode tokens at positions 10, 11, 12, 13 (12 starts a chunk, while the request
  //     coasts: the event there must come on time): full 11, 12, 13, 14; chunked 3, 4, 1, 2
  //     → KV tokens and pairs 14, 16, 14, 16
  // Memory run: first token at 12 + 16 = 28 ms, last at 28 + 60 = 88 ms; compute run: 34 + 44 =
  // 78 ms, 78 + 60 = 138 ms. (As a sliding window of 4, the old upper bound: 12 + 17 = 29 ms and
  // 29 + 15 + 16 + 17 + 18 = 95 ms memory-bound.)
  const base: ServingSimConfig = {
    layout: 'paged', pageSize: 16, numPages: 10, watermarkPages: 0, slidingWindow: 0, enablePrefixCaching: false,
    maxNumSeqs: 4, maxNumBatchedTokens: 6, maxModelLen: 160, maxSamples: 100,
    perStepS: 0, weightsS: 0, perTokenS: 0, perKvTokenS: 0, perPairS: 0, stepAttentionChunkSize: 4,
  };
  const requests = packRequests([{ arrivalS: 0, promptLen: 10, outputLen: 5 }]);
  const run = (config: ServingSimConfig, coast = true) => {
    const sim = new ServingSimulator({ ...config, coast }, requests);
    assert.equal(sim.run(1000), true);
    assert.equal(sim.totals().steps, 6);
    const t = sim.times();
    return [t.firstTokenS[0]! * 1000, t.finishS[0]! * 1000];
  };
  const close = (got: number[], want: number[], what: string) => assert.ok(got.every((g, i) => Math.abs(g - want[i]!) < 1e-9), `${what}: ${got} vs ${want}`);
  for (const coast of [true, false]) {
    close(run({ ...base, perKvTokenS: 1e-3, perSlidingKvTokenS: 1e-3 }, coast), [28, 88], `memory-bound, coast ${coast}`);
    close(run({ ...base, perPairS: 1e-3, perSlidingPairS: 1e-3 }, coast), [78, 138], `compute-bound, coast ${coast}`);
  }
  close(run({ ...base, stepAttentionChunkSize: 0, stepSlidingWindow: 4, perKvTokenS: 1e-3, perSlidingKvTokenS: 1e-3 }), [29, 95], 'a window of 4 instead');
  assert.throws(() => new ServingSimulator({ ...base, stepSlidingWindow: 4 }, requests), /cannot both be set/);
});

test('samples are downsampled to at most maxSamples, in time order, and reach onSample', async () => {
  const p = profile('kv_cache: { page_size: 16, num_pages: 2000 }\nworkload: { requests: 400, arrival_rate: 20, seed: 3 }\n');
  const seen: number[] = [];
  const r = await simulatePool(p, { maxSamples: 100, onSample: (s) => seen.push(s.t) });
  assert.ok(r.samples.length <= 100 && r.samples.length >= 50, `${r.samples.length} samples`);
  assert.deepEqual(seen, r.samples.map((s) => s.t));
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i] > seen[i - 1]);
});

test('samples carry the preemptions so far, counted over every step: thinned, they still end at the summary\'s count', async () => {
  // s34 newcomer-ed 3: 4,585 preemptions in the summary, spikes of 1-4 in the chart, which drew
  // the requests preempted at each sampled instant. A pool of 200 pages under 3,000 requests
  // preempts thousands of times; 100 samples keep one step in tens.
  const p = profile('kv_cache: { page_size: 16, num_pages: 200 }\nworkload: { requests: 3000, arrival_rate: 50, seed: 5 }\n');
  const r = await simulatePool(p, { maxSamples: 100 });
  const counts = r.samples.map((s) => s.preemptions!);
  assert.ok(r.summary.preemptions >= 1000, `${r.summary.preemptions} preemptions`);
  assert.ok(r.samples.length <= 100, `${r.samples.length} samples`);
  for (let i = 1; i < counts.length; i++) assert.ok(counts[i]! >= counts[i - 1]!, `sample ${i}: ${counts[i]} < ${counts[i - 1]}`);
  // The last step is always sampled, so the line ends where the summary does.
  assert.equal(counts[counts.length - 1], r.summary.preemptions);
  assert.equal(r.samples[r.samples.length - 1]!.t < r.summary.simulatedSeconds, true);
  // More preemptions than requests at the sampled instants could ever show (each sample's preempted <= waiting).
  assert.ok(r.summary.preemptions > r.samples.reduce((n, s) => n + s.preempted, 0));
});

test('an abort after the paged run rejects with the signal\'s reason', async () => {
  const p = profile('kv_cache: { page_size: 16, num_pages: 2000 }\nworkload: { requests: 50 }\n');
  const ac = new AbortController();
  await assert.rejects(simulatePool(p, { signal: ac.signal, onSample: () => ac.abort(new Error('stop')) }), { message: 'stop' });
});

/** Threads of this process (Linux /proc), to see what a run leaves behind and the work it did. */
const TASKS = '/proc/self/task';
const threadIds = (): string[] => readdirSync(TASKS);
/** CPU time of thread `tid` so far, in clock ticks: utime + stime, fields 14 and 15 of its stat. */
function cpuTicks(tid: string): number {
  const stat = readFileSync(join(TASKS, tid, 'stat'), 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from 3 (state) on
  return Number(fields[11]) + Number(fields[12]);
}

test('an abort mid-run rejects with the signal\'s reason and stops the baselines on their thread', { skip: !existsSync(TASKS) && 'needs /proc' }, async () => {
  // A pool of 1,000 pages and max_model_len 15,000: reserving max_model_len, one sequence runs
  // at a time, so the baselines' worker has far more steps to do than the first paged slice.
  const p = profile('kv_cache: { page_size: 16, num_pages: 1000 }\nworkload: { requests: 60000, arrival_rate: 50, seed: 3, max_model_len: 15000 }\n');
  await stopSimulations(); // a fresh simulation worker, so that its thread can be told apart
  const before = new Set(threadIds());
  await simulatePool(p, { trace: [req(0, 8, 1)] });
  const threads = threadIds();
  const started = threads.filter((t) => !before.has(t));
  assert.ok(started.length >= 1, 'the run starts the simulation worker');
  const workerTicks = () => started.reduce((sum, t) => sum + cpuTicks(t), 0);

  let t0 = workerTicks();
  await simulatePool(p);
  const fullTicks = workerTicks() - t0;

  const ac = new AbortController();
  const reports: number[] = [];
  const reason = new Error('cancelled by the test');
  t0 = workerTicks();
  await assert.rejects(
    simulatePool(p, {
      signal: ac.signal,
      onProgress: ({ fraction }) => {
        reports.push(fraction);
        ac.abort(reason);
      },
    }),
    (e: unknown) => e === reason,
  );
  const abortedTicks = workerTicks() - t0;
  // Aborted after the first slice, mid-run: no slice of the paged run came after it.
  assert.equal(reports.length, 1);
  assert.ok(reports[0] > 0 && reports[0] < 1, `first report ${reports[0]}`);
  // No thread was added, and the worker stopped early: a run to the end of the baselines
  // would cost it as much CPU as the full run did.
  assert.deepEqual(threadIds(), threads);
  assert.ok(fullTicks >= 10, `the full run's baselines took only ${fullTicks} ticks: grow the workload`);
  assert.ok(abortedTicks * 4 < fullTicks, `worker CPU: ${abortedTicks} ticks aborted vs ${fullTicks} for the full run`);
});

test('progress fractions (tokens done / to do) increase to exactly 1 while the event loop keeps turning', async () => {
  // 20,000 requests take ~20,000 steps; the first slice is 1,024.
  const p = profile('kv_cache: { page_size: 16, num_pages: 2000 }\nworkload: { requests: 20000, arrival_rate: 50, seed: 3 }\n');
  // Each report schedules an immediate; it must have run before the next report.
  let turns = 0;
  const reports: Array<{ fraction: number; clockSeconds: number; turns: number }> = [];
  const r = await simulatePool(p, {
    onProgress: ({ fraction, requests, clockSeconds, prefilledTokens, decodedTokens, tokensToDo }) => {
      assert.equal(requests, 20000);
      // The work done (tokens, s47), not the requests finished; at the end every prompt token was
      // prefilled and every output token decoded (those of rejected requests left out of both).
      assert.equal(fraction, (prefilledTokens + decodedTokens) / tokensToDo);
      reports.push({ fraction, clockSeconds, turns });
      setImmediate(() => turns++);
    },
  });
  assert.ok(reports.length >= 2, `${reports.length} reports`);
  for (let i = 1; i < reports.length; i++) {
    assert.ok(reports[i].fraction > reports[i - 1].fraction, `report ${i}: ${reports[i].fraction} after ${reports[i - 1].fraction}`);
    assert.ok(reports[i].clockSeconds >= reports[i - 1].clockSeconds);
  }
  assert.ok(reports[0].fraction > 0);
  assert.equal(reports.at(-1)!.fraction, 1);
  assert.equal(reports.at(-1)!.clockSeconds, r.summary.simulatedSeconds);
  assert.deepEqual(reports.map((x) => x.turns), reports.map((_, i) => i));
});

test('workloads are reproducible for a seed and follow their distributions', () => {
  const w = profile('workload: { requests: 4000, arrival_rate: 10, prompt_len: { dist: lognormal, median: 300, sigma: 0.5, max: 1000 }, output_len: { dist: uniform, min: 5, max: 9 }, prefix_sharing: { groups: 3, prefix_len: 50, fraction: 0.5 }, seed: 7 }\n').workload!;
  const a = generateRequests(w);
  assert.deepEqual(generateRequests(w), a);
  assert.notDeepEqual(generateRequests({ ...w, seed: 8 }), a);
  const prompts = [...a.promptLen].sort((x, y) => x - y);
  assert.ok(Math.abs(prompts[2000] - 300) < 15, `median ${prompts[2000]}`);
  assert.ok(prompts[3999] <= 1000);
  assert.ok(a.outputLen.every((o) => o >= 5 && o <= 9));
  // Poisson at 10/s, in order, the last of 4000 arrivals at 4000 / 10 = 400 s (next test).
  assert.ok(a.arrivalS.every((t, i) => i === 0 || t >= a.arrivalS[i - 1]));
  // At most one segment per request: its group over prefix_len 50 tokens, capped by a shorter prompt.
  const shared = [...a.segmentStream];
  assert.ok(Math.abs(shared.length / 4000 - 0.5) < 0.03);
  assert.deepEqual([...new Set(shared)].sort(), [0, 1, 2]);
  for (let i = 0; i < 4000; i++) {
    const k = a.segmentStart[i];
    assert.ok(a.segmentStart[i + 1] - k <= 1);
    if (a.segmentStart[i + 1] > k) assert.equal(a.segmentEnd[k], Math.min(50, a.promptLen[i]));
  }
});

test('prefix_sharing draws from a stream of its own: fraction 0 is the workload without it, and a fraction moves only the prefixes', () => {
  // s53 newcomer finding 4: `fraction: 0` drew a uniform per request from the lengths' stream, so
  // its prompt/output lengths (and the figures: 6,249 vs 6,157 output tokens/s) were not those of
  // the same workload without prefix_sharing.
  const w = profile('workload: { requests: 1000, arrival_rate: 10, prompt_len: { dist: lognormal, median: 300, sigma: 0.5, max: 1000 }, output_len: { dist: exponential, mean: 100, max: 500 }, seed: 7 }\n').workload!;
  const plain = generateRequests(w);
  // Byte-identical to the draws before the prefix stream was split off: the sha256 of the six
  // packed arrays and the first values were printed by the code of before this change (runner/simulate/workload.ts
  // with one Rng), so a seeded run without prefix_sharing keeps its figures.
  const h = createHash('sha256');
  for (const a of [plain.arrivalS, plain.promptLen, plain.outputLen, plain.segmentStart, plain.segmentStream, plain.segmentEnd]) h.update(Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  assert.equal(h.digest('hex'), 'b03a1531aec23f37d0c4b605c241079d8b3641bd629ed15ff0a7de42b911422c');
  assert.deepEqual([...plain.promptLen.slice(0, 5)], [126, 486, 167, 245, 405]);
  assert.deepEqual([...plain.outputLen.slice(0, 5)], [500, 43, 11, 123, 63]);
  assert.equal(plain.arrivalS[0], 0.19658905272921792);
  // fraction 0: the same requests, no segment.
  assert.deepEqual(generateRequests({ ...w, prefixSharing: { groups: 4, prefixLen: 64, fraction: 0 } }), plain);
  // fraction 0.5 and 1: the same arrivals and lengths; only the segments differ (about half, then every request).
  for (const fraction of [0.5, 1]) {
    const shared = generateRequests({ ...w, prefixSharing: { groups: 4, prefixLen: 64, fraction } });
    assert.deepEqual(shared.arrivalS, plain.arrivalS, `fraction ${fraction}`);
    assert.deepEqual(shared.promptLen, plain.promptLen, `fraction ${fraction}`);
    assert.deepEqual(shared.outputLen, plain.outputLen, `fraction ${fraction}`);
    const n = shared.segmentStream.length;
    assert.ok(fraction === 1 ? n === 1000 : Math.abs(n / 1000 - fraction) < 0.05, `fraction ${fraction}: ${n} of 1000 requests share a prefix`);
  }
  // A fraction axis keeps each request's draws: the requests sharing at 0.3 share at 0.6 too, in the same group.
  const groupOf = (fraction: number) => {
    const r = generateRequests({ ...w, prefixSharing: { groups: 4, prefixLen: 64, fraction } });
    return new Map([...Array(1000).keys()].filter((i) => r.segmentStart[i + 1] > r.segmentStart[i]).map((i) => [i, r.segmentStream[r.segmentStart[i]]]));
  };
  const low = groupOf(0.3);
  const high = groupOf(0.6);
  assert.ok(low.size > 250 && high.size > low.size + 200, `${low.size} requests at 0.3, ${high.size} at 0.6`);
  for (const [i, g] of low) assert.equal(high.get(i), g, `request ${i}`);
});

test('a drawn workload\'s last request arrives at requests / arrival_rate, the first after one gap, as vllm bench serve sends them', () => {
  // vllm/benchmarks/serve.py get_request (no ramp-up): the running sums of the drawn gaps are
  // scaled by normalize_factor = target_total_delay_s / delay_ts[-1], target_total_delay_s =
  // total_requests / request_rate; the first request is sent after delay_ts[0] > 0.
  const w = profile('workload: { requests: 4000, arrival_rate: 10, seed: 7 }\n').workload!;
  const a = generateRequests(w).arrivalS;
  assert.ok(Math.abs(a[3999] - 4000 / 10) < 1e-9, `last arrival ${a[3999]}`);
  assert.ok(a[0] > 0, `first arrival ${a[0]}`);
  // The capacity search's rate scale 2: the same draws at twice the rate, the last at 4000 / 20 = 200 s.
  const b = generateRequests(w, 2).arrivalS;
  assert.ok(Math.abs(b[3999] - 200) < 1e-9, `last arrival ${b[3999]}`);
  for (const i of [0, 1, 1234, 3998]) assert.ok(Math.abs(b[i] - a[i] / 2) < 1e-9 * a[i], `arrival ${i}: ${b[i]} vs ${a[i]} / 2`);
  // One request at 4/s is sent at 1 / 4 s whatever its draw; at rate 0 every request at 0 s.
  for (const seed of [0, 1, 2]) {
    const t = generateRequests({ ...w, requests: 1, arrivalRate: 4, seed }).arrivalS[0];
    assert.ok(Math.abs(t - 0.25) < 1e-15, `seed ${seed}: ${t}`);
  }
  assert.ok(generateRequests({ ...w, requests: 5, arrivalRate: 0 }).arrivalS.every((t) => t === 0));
});

test('a workload drawn in slices is the workload drawn at once; none at all is finished at once', () => {
  const w = profile('workload: { requests: 5000, arrival_rate: 10, prefix_sharing: { groups: 3, prefix_len: 50, fraction: 0.5 }, seed: 7 }\n').workload!;
  const g = new RequestGenerator(w, 2);
  const drawn: number[] = [];
  // Uneven slices, one past the end: the same draws in the same order.
  for (const k of [1, 999, 2500, 1, 4000]) {
    const done = g.next(k);
    drawn.push(g.drawn);
    assert.equal(done, g.drawn === 5000);
  }
  assert.deepEqual(drawn, [1, 1000, 3500, 3501, 5000]);
  assert.deepEqual(g.packed(), generateRequests(w, 2));
  assert.throws(() => new RequestGenerator(w).packed(), /5000 of 5000 requests are still to draw/);
  const none = new RequestGenerator({ ...w, requests: 0 });
  assert.equal(none.next(1 << 16), true);
  assert.equal(none.packed().arrivalS.length, 0);
});

test('the native simulator loads its requests in slices, checking each slice, with the run of a load at once', () => {
  const w = profile('workload: { requests: 3000, arrival_rate: 40, prefix_sharing: { groups: 2, prefix_len: 64, fraction: 0.5 }, seed: 5 }\n').workload!;
  const requests = generateRequests(w);
  const config: ServingSimConfig = {
    layout: 'paged', numPages: 400, pageSize: 16, watermarkPages: 0, slidingWindow: 0, enablePrefixCaching: true, maxNumSeqs: 64,
    maxNumBatchedTokens: 2048, maxModelLen: 4096, perStepS: 0.01, weightsS: 0, perKvTokenS: 0, perTokenS: 1e-5, perPairS: 0, maxSamples: 100,
  };
  // The WebAssembly build loads every request in its constructor (native/wasm/addon.ts load).
  const wasm = loadedBuild().build === 'wasm';
  const sliced = new ServingSimulator(config, requests);
  const loaded: number[] = [];
  while (!sliced.load(1024)) loaded.push(sliced.loadedRequests);
  loaded.push(sliced.loadedRequests);
  assert.deepEqual(loaded, wasm ? [3000] : [1024, 2048, 3000]);
  while (!sliced.run(500));
  // run() without load(): loads every request first.
  const atOnce = new ServingSimulator(config, requests);
  while (!atOnce.run(500));
  assert.deepEqual(sliced.totals(), atOnce.totals());
  assert.deepEqual(sliced.times(), atOnce.times());
  assert.ok(sliced.totals().completed > 2900);
  // Request 2100's arrival before request 2099's: refused by the slice that holds it, naming it.
  const unsorted = { ...requests, arrivalS: requests.arrivalS.slice() };
  unsorted.arrivalS[2100] = 0;
  const refusal = { name: 'RangeError', message: 'arrivalS must be sorted ascending (at 2100)' };
  if (wasm) {
    assert.throws(() => new ServingSimulator(config, unsorted), refusal);
    return;
  }
  const bad = new ServingSimulator(config, unsorted);
  assert.equal(bad.load(2048), false);
  assert.throws(() => bad.load(2048), refusal);
});

test('times() before the end: requests that have not arrived have no milestones yet', () => {
  const config: ServingSimConfig = {
    layout: 'paged', numPages: 100, pageSize: 16, watermarkPages: 0, slidingWindow: 0, enablePrefixCaching: false, maxNumSeqs: 8,
    maxNumBatchedTokens: 2048, maxModelLen: 4096, perStepS: 1, weightsS: 0, perKvTokenS: 0, perTokenS: 0, perPairS: 0, maxSamples: 10,
  };
  // One step per second: after the first step (t = 0 .. 1) request 0 has its first token, request 1 (arriving at 100 s) nothing.
  const sim = new ServingSimulator(config, packRequests([req(0, 10, 5), req(100, 10, 5)]));
  sim.run(1);
  const t = sim.times();
  assert.deepEqual([...t.scheduledS], [0, -1]);
  assert.deepEqual([...t.firstTokenS], [1, -1]);
  assert.deepEqual([...t.finishS], [-1, -1]);
  assert.deepEqual([...t.outputLen], [0, 0]);
});

test('times().queuedS: the start of the first step at or after the arrival, the first that could admit it (s52)', () => {
  const config: ServingSimConfig = {
    layout: 'paged', numPages: 100, pageSize: 16, watermarkPages: 0, slidingWindow: 0, enablePrefixCaching: false, maxNumSeqs: 1,
    maxNumBatchedTokens: 2048, maxModelLen: 4096, perStepS: 1, weightsS: 0, perKvTokenS: 0, perTokenS: 0, perPairS: 0, maxSamples: 10,
  };
  // One step per second, one request at a time, prompt 10 and output 1: a request takes one step. Request 0 arrives at
  // 0 s (taken in and admitted by the step at 0 s); 1 at 0.5 s, during that step: taken in and admitted by the step at
  // 1 s; 2 at 0.7 s: taken in at 1 s too but passed over (one slot), admitted at 2 s; 3 at 5 s, the server idle: 5 s.
  const sim = new ServingSimulator(config, packRequests([req(0, 10, 1), req(0.5, 10, 1), req(0.7, 10, 1), req(5, 10, 1)]));
  while (!sim.run(100)) continue;
  const t = sim.times();
  assert.deepEqual([...t.queuedS], [0, 1, 1, 5]);
  assert.deepEqual([...t.scheduledS], [0, 1, 2, 5]);
});

test('a cancel while preparing is honoured between slices of drawing the requests and of loading the simulator', async () => {
  // 300,000 requests: at least 4 slices of 65,536 in each phase.
  const p = profile('kv_cache: { page_size: 16, num_pages: 4000 }\nworkload: { requests: 300000, arrival_rate: 50, seed: 1 }\n');
  // The WebAssembly build loads in one call (native/wasm/addon.ts load): only the draws are sliced there.
  const phases = loadedBuild().build === 'wasm' ? (['generating requests'] as const) : (['generating requests', 'loading the simulator'] as const);
  for (const phase of phases) {
    const ac = new AbortController();
    const reason = new Error(`cancelled while ${phase}`);
    const seen: Array<{ phase: string; done: number }> = [];
    await assert.rejects(
      simulatePool(p, {
        signal: ac.signal,
        onPrepare: (x) => {
          seen.push({ phase: x.phase, done: x.done });
          assert.equal(x.requests, 300000);
          if (x.phase === phase) ac.abort(reason);
        },
        onProgress: () => assert.fail('the run started after the cancel'),
      }),
      (e: unknown) => e === reason,
    );
    // The first slice of the phase was the last: the phase stopped after it, long before its end.
    const last = seen.at(-1)!;
    assert.equal(last.phase, phase);
    assert.ok(last.done > 0 && last.done < 300000, `${phase}: stopped at ${last.done}`);
    assert.equal(seen.filter((x) => x.phase === phase).length, 1);
  }
});

test('trace lines are read, and a bad line is an error naming file:line:column', () => {
  const good = '{"arrival_s": 0.5, "prompt_len": 10, "output_len": 3, "prefix_id": "s", "prefix_len": 4}\n\n{"arrival_s": 0, "prompt_len": 2, "output_len": 1, "user": "x", "prefix_ln": 2}\n{"arrival_s": 1, "prompt_len": 2, "output_len": 1, "user": "y"}\n';
  const warnings: string[] = [];
  assert.deepEqual(parseTrace(good, 't.jsonl', warnings), [
    { arrivalS: 0.5, promptLen: 10, outputLen: 3, prefixId: 's', prefixLen: 4 },
    { arrivalS: 0, promptLen: 2, outputLen: 1 },
    { arrivalS: 1, promptLen: 2, outputLen: 1 },
  ]);
  // Unknown keys are ignored with one warning each, at their first line and column (the quote
  // of "user" is the 52nd character of line 3, of "prefix_ln" the 65th).
  assert.deepEqual(warnings, [
    't.jsonl:3:52: warning: unknown key "user" ignored (a trace line has arrival_s, prompt_len, output_len, prefix_id, prefix_len)',
    't.jsonl:3:65: warning: unknown key "prefix_ln" ignored: did you mean "prefix_len"?',
  ]);
  const line2 = '{"arrival_s": 1, "prompt_len": 0, "output_len": 1}';
  assert.throws(
    () => parseTrace(`{"arrival_s": 0, "prompt_len": 5, "output_len": 1}\n${line2}\n`, 't.jsonl'),
    (e: unknown) => e instanceof TraceError && e.format() === `t.jsonl:2:${line2.indexOf('0,') + 1}: "prompt_len" must be >= 1, got 0`,
  );
  /** The CLI line of the TraceError fn throws. */
  const cliLine = (fn: () => unknown): string => {
    try {
      fn();
    } catch (e) {
      assert.ok(e instanceof TraceError, String(e));
      return e.format();
    }
    assert.fail('no error thrown');
  };
  assert.equal(cliLine(() => parseTrace('{"arrival_s": 0, "prompt_len": 5}', 't.jsonl')), 't.jsonl:1:1: missing "output_len"');
  assert.equal(cliLine(() => parseTrace('{"arrival_s": 0, "prompt_len": 5,, }', 't.jsonl')), 't.jsonl:1:34: JSON syntax error: property name expected');
  assert.match(cliLine(() => parseTrace('[1, 2]', 't.jsonl')), /^t\.jsonl:1:1: each line must be a JSON object/);
  assert.equal(
    cliLine(() => parseTrace('{"arrival_s": "soon", "prompt_len": 5, "output_len": 1}', 't.jsonl')),
    't.jsonl:1:15: "arrival_s" must be a number, got "soon"',
  );
  assert.match(cliLine(() => parseTrace('\n\n', 'e.jsonl')), /^e\.jsonl:1:1: the trace holds no requests/);
  const dir = tempDir('attnscope-trace-');
  writeFileSync(join(dir, 'a.jsonl'), good);
  assert.equal(readTraceFile(join(dir, 'a.jsonl'), { maxModelLen: 8192 }).count, 3);
  assert.match(cliLine(() => readTraceFile(join(dir, 'missing.jsonl'), { maxModelLen: 8192 })), /missing\.jsonl:1:1: cannot read the trace: no such file: check the path$/);
  assert.match(cliLine(() => readTraceFile(dir, { maxModelLen: 8192, format: 'attnscope' })), /:1:1: cannot read the trace: it is a folder, not a file$/);
});

test('a profile without workload or pages says what to set, at the right place', async () => {
  await assert.rejects(simulatePool(profile('kv_cache: { num_pages: 10 }\n')), (e: unknown) => e instanceof PoolConfigError && e.key === 'workload');
  // A profile on disk: the error is for kv_cache.memory_gib (a budget to set) and, with neither it nor
  // device.memory_gib written, points at its kv_cache value (line 3, column 11).
  const dir = tempDir('attnscope-profile-');
  const file = join(dir, 'p.attn.yaml');
  writeFileSync(file, `model: ${join(EXAMPLES, 'llama-3.1-8b', 'config.json')}\nworkload: { requests: 3 }\nkv_cache: { page_size: 16 }\n`);
  const r = readProfile(readFileSync(file, 'utf8'), file, { readFile: (p) => readFileSync(p, 'utf8') });
  await assert.rejects(
    simulatePool(r.value!),
    (e: unknown) => e instanceof PoolConfigError && e.key === 'kv_cache.memory_gib' && e.format() === `${file}:3:11: the KV pool has no pages: no GPU is set; add device: { gpu: H100 SXM } (the GPU you serve on: its memory sizes the pool), or set kv_cache.memory_gib or kv_cache.num_pages`,
    // No device: adding device.gpu is the first fix (s42 newcomer 11: it was not listed; s49: said plainly, what to write).
  );
});

test('the summary table shows paging beside both baselines', async () => {
  const p = profile('kv_cache: { page_size: 4, num_pages: 10 }\nworkload: { max_model_len: 16 }\n');
  const text = formatPoolSummary(await simulatePool(p, { ...UNIT_STEPS, trace: [req(0, 6, 3), req(0, 3, 2)] }));
  assert.match(text, /paged \(4-token pages\)\s+87\.5%\s+12\.5%/);
  assert.match(text, /contiguous, max_model_len each\s+35\.0%\s+65\.0%\s+0\.0%/);
  assert.match(text, /contiguous, prompt \+ output each\s+75\.7%/);
  assert.match(text, /occupancy mean 26\.7%, peak 30\.0%/);
  assert.match(text, /^KV pool: 10 pages × 4 tokens = 40 tokens$/m);
  // One-token pages, one page: singular nouns.
  const one = formatPoolSummary(await simulatePool(profile('kv_cache: { page_size: 1, num_pages: 1 }\nworkload: { max_model_len: 16 }\n'), { ...UNIT_STEPS, trace: [req(0, 1, 1)] }));
  assert.match(one, /^KV pool: 1 page × 1 token = 1 token$/m);
  // One second per step: 3 steps (the 6-token prompt and its 2 more tokens), then idle.
  assert.match(text, /; 3 s of simulated serving\n/);
  // One output-throughput figure, the latency section's (vllm bench serve's definition, the same
  // as the summary's); two over different spans differed in the last digits (1,278 vs 1,279).
  assert.equal(text.match(/output tokens\/s/g)?.length, 1, text);
});

test('the Step time block leaves out a zero overhead: "max(memory, compute)", not "0 s + max(...)"; a nonzero one stays its first term, one term a line', async () => {
  // No step_time: the assumed overhead_ms 0 (step-time.ts ASSUMED_STEP_TIME) is no term, in the
  // Step time line and in the model's source; overhead_ms 1.5 is 1.5 ms in both.
  const trace = [req(0, 6, 3)];
  const line = (text: string) => text.split('\n').find((l) => l.startsWith('Step time'))!;
  const assumed = formatPoolSummary(await simulatePool(profile('kv_cache: { page_size: 4, num_pages: 10 }\nworkload: { max_model_len: 16 }\n'), { trace }));
  // The header names the terms; each comes on its own line under it (s49 cli's left item: one wrapped expression).
  assert.equal(line(assumed), 'Step time (modelled) = max(memory, compute)', assumed);
  assert.match(assumed, /^Step time \(modelled\) = max\(memory, compute\)\n {2}memory: \d.*\n {2}compute: \d.*\/token /m, assumed);
  assert.doesNotMatch(assumed, /^ {2}overhead: /m);
  assert.doesNotMatch(assumed, /\b0 s \+ max|\b0 ms \+ max/);
  assert.match(assumed, /; step = max\(weights \+ KV read at 0\.8 × bandwidth, FLOPs at 0\.6 × bf16 peak\);/);
  const given = formatPoolSummary(await simulatePool(profile('kv_cache: { page_size: 4, num_pages: 10 }\nworkload: { max_model_len: 16 }\nstep_time: { overhead_ms: 1.5 }\n'), { trace }));
  assert.match(given, /^Step time \(modelled\) = overhead \+ max\(memory, compute\)\n {2}overhead: 1\.5 ms\n {2}memory: \d/m, given);
  assert.match(given, /; step = 1\.5 ms \+ max\(weights/);
  // The step-time model comes after every result (s48 newcomer M5: ~45 lines of it for DeepSeek-V3 at tp 8 before the first):
  // after the allocation table and the latency section, last of all, behind a blank line; the KV pool line still first.
  const rows = given.split('\n');
  const at = (prefix: string) => rows.findIndex((l) => l.startsWith(prefix));
  assert.equal(at('KV pool:'), 0, given);
  assert.ok(at('Step time (modelled)') > at('allocation') && at('Step time (modelled)') > at('Requests:') && at('allocation') > 0, given);
  assert.equal(rows[at('Step time (modelled)') - 1], '', given);
  assert.ok(rows.slice(at('Step time (modelled)') + 1).every((l) => l.startsWith('  ')), given);
  // One request at one instant is "one request", not "all 1 request arriving at one instant" (s48 newcomer L6).
  assert.match(given, /^Load: one request, /m, given);
  // The CLI's default (explain: false): the formula and what was measured or left out, then one line naming
  // --explain in place of the derivation (s48 newcomer M5: DeepSeek-V3 at tp 8, ~40 lines of it).
  const short = formatPoolSummary(await simulatePool(profile('kv_cache: { page_size: 4, num_pages: 10 }\nworkload: { max_model_len: 16 }\nstep_time: { overhead_ms: 1.5 }\n'), { trace }), undefined, { explain: false }).split('\n');
  const tail = short.slice(short.findIndex((l) => l.startsWith('Step time (modelled)')));
  assert.equal(tail[0], 'Step time (modelled) = overhead + max(memory, compute)');
  assert.deepEqual(tail.slice(1, 4).map((l) => l.slice(0, l.indexOf(':') + 1)), ['  overhead:', '  memory:', '  compute:']);
  assert.deepEqual(tail.slice(4), ['  how each figure is derived (peaks, sources, coefficients): --explain (a --json file holds it too)']);
});

test('the summary\'s Workload and Load lines are wrapped at 100 columns in the summary itself, so bench\'s table (which prints it unwrapped) stays within them too (s48 newcomer L5: Load 330 columns)', async () => {
  // Two requests 1 s apart: "Load: 1.00 requests/s offered, ... (modelled; offered = (requests − 1) / span of the arrivals; ..."
  // runs to ~330 characters on one line: 4 lines of at most 100, the later ones indented 4.
  const summary = formatPoolSummary(await simulatePool(profile('kv_cache: { page_size: 4, num_pages: 10 }\nworkload: { max_model_len: 16 }\n'), { trace: [req(0, 6, 3), req(1, 6, 3)] }));
  const rows = summary.split('\n');
  const load = rows.findIndex((l) => l.startsWith('Load: '));
  assert.ok(load > 0 && rows[load + 1]!.startsWith('    '), summary);
  for (const l of rows.slice(0, rows.indexOf(''))) assert.ok(l.length <= 100, `${l.length}: ${l}`);
});

test('the Step time line of a model whose every layer slides (Mistral-7B-v0.1) has no full-attention terms, where it printed "0 s/KV token" and "0 s/query-key pair"', async () => {
  // Mistral-7B-v0.1 on an A100 80GB: every one of its 32 layers slides (window 4,096). By hand,
  // KV read: 32 layers · 8 KV heads · 128 · 2 (K, V) · 2 B = 131,072 B per token / (0.8 · 2.039 TB/s)
  // = 80.4 ns; attention: 4 · 32 heads · 128 · 32 layers = 524,288 FLOP per pair / (0.6 · 312 TFLOP/s) = 2.8 ns.
  const p = exampleProfile([
    'model: { architectures: [MistralForCausalLM], model_type: mistral, hidden_size: 4096, intermediate_size: 14336, num_attention_heads: 32, num_key_value_heads: 8, num_hidden_layers: 32, vocab_size: 32000, max_position_embeddings: 32768, sliding_window: 4096, tie_word_embeddings: false, torch_dtype: bfloat16 }',
    'device: { gpu: A100 80GB }',
    'kv_cache: { page_size: 16, num_pages: 100 }',
    'workload: { max_model_len: 1024 }',
  ].join('\n'));
  const text = formatPoolSummary(await simulatePool(p, { trace: [req(0, 6, 3)] }));
  // A term's line, its wrapped continuations (a newline and 4 or more spaces) joined back.
  const term = (t: string, name: string) => t.replace(/\n {4,}/g, ' ').split('\n').find((l) => l.startsWith(`  ${name}: `));
  assert.match(term(text, 'memory')!, /^ {2}memory: [\d.]+ ms \+ 80\.4 ns\/KV token in the 4,096-token window$/, text);
  assert.match(term(text, 'compute')!, /^ {2}compute: [\d.]+ µs\/token \+ 1\.4 µs\/request \(lm_head\) \+ 2\.8 ns\/query-key pair in the 4,096-token window$/, text);
  // A model with full layers keeps their terms (Llama-3.1-8B: no window, one KV and one pair term).
  const llama = formatPoolSummary(await simulatePool(profile('kv_cache: { page_size: 4, num_pages: 10 }\nworkload: { max_model_len: 16 }\n'), { trace: [req(0, 6, 3)] }));
  assert.match(term(llama, 'memory')!, /^ {2}memory: [\d.]+ \S+ \+ [\d.]+ ns\/KV token$/, llama);
  assert.match(term(llama, 'compute')!, /^ {2}compute: [\d.]+ \S+\/token \+ [\d.]+ µs\/request \(lm_head\) \+ [\d.]+ \S+\/query-key pair$/, llama);
});

test('a tiny throughput is written in significant digits for requests and output tokens alike, not "0 output tokens/s"', async () => {
  const p = profile('kv_cache: { page_size: 4, num_pages: 10 }\nworkload: { max_model_len: 16 }\n');
  // Two requests 1e8 s apart, one second per step: 2 requests and 3 + 2 = 5 output tokens over
  // 1e8 s and the last request's 2 steps: 2.00e-8 requests/s, 5.00e-8 output tokens/s.
  const text = formatPoolSummary(await simulatePool(p, { ...UNIT_STEPS, trace: [req(0, 6, 3), req(1e8, 3, 2)] }));
  assert.match(text, /Throughput \(modelled\): 2\.00e-8 requests\/s, 5\.00e-8 output tokens\/s over 2 completed requests/, text);
});

/** Two pipeline stages' coefficients (seconds), every one absent 0. */
const stage = (c: Partial<NonNullable<ServingSimConfig['stages']>[number]>) => ({
  perStepS: 0, weightsS: 0, expertWeightsS: 0, perKvTokenS: 0, perTokenS: 0, perLogitsS: 0, perPairS: 0, perDecodePairS: 0, perSlidingKvTokenS: 0, perSlidingPairS: 0, ...c,
});
/** A pool too large to matter; the top-level coefficients unused once `stages` is set. */
const PP_CONFIG: ServingSimConfig = {
  layout: 'paged', numPages: 100, pageSize: 4, watermarkPages: 0, slidingWindow: 0, enablePrefixCaching: false,
  maxNumSeqs: 8, maxNumBatchedTokens: 64, maxModelLen: 64, perStepS: 0, weightsS: 0, perKvTokenS: 0, perTokenS: 0, perPairS: 0, maxSamples: 1000,
};
const close = (a: number[], b: number[]) => a.every((x, i) => Math.abs(x - b[i]!) < 1e-12) && a.length === b.length;

test('pipeline parallelism by hand: one request through 2 stages waits for the sum of the stage times (vLLM batch queue)', () => {
  // Stage 0: weights 10 ms, 1 ms per token, sends 0.1 ms per token on; stage 1: weights 20 ms, lm_head
  // 5 ms per request. One request, prompt 10, output 3, at t = 0.
  //   batch 1 (t = 0, the prompt): stage 0 max(10, 10 · 1) + 10 · 0.1 = 11 ms, stage 1 max(20, 5) = 20 ms:
  //     TTFT = 11 + 20 = 31 ms. The engine finds nothing else to schedule (the request's tokens are all
  //     in flight: vLLM skips it, num_new_tokens 0) and waits for batch 1.
  //   batch 2 (t = 31 ms, 1 decode token): 10 + 0.1 + 20 = 30.1 ms -> 61.1 ms; batch 3 -> 91.2 ms.
  // One stage holding both (pp 1): 30 + 10 = 40 ms per prompt step, 30 per decode step: the pipeline adds the send only.
  const packed = packRequests([{ arrivalS: 0, promptLen: 10, outputLen: 3 }]);
  const sim = new ServingSimulator({
    ...PP_CONFIG,
    stages: [stage({ weightsS: 0.010, perTokenS: 0.001 }), stage({ weightsS: 0.020, perLogitsS: 0.005 })],
    stageSendPerTokenS: 0.0001,
  }, packed);
  assert.equal(sim.run(100), true);
  const t = sim.times();
  assert.ok(close(Array.from(t.firstTokenS), [0.031]), `TTFT ${t.firstTokenS[0]}`);
  assert.ok(close(Array.from(t.finishS), [0.0912]), `finish ${t.finishS[0]}`);
  assert.equal(sim.totals().steps, 3);
  assert.equal(sim.totals().generatedTokens, 3);
  assert.ok(Math.abs(sim.totals().simulatedSeconds - 0.0912) < 1e-12);
});

test('pipeline parallelism by hand: two requests interleave in the batch queue, a token every stage time (2x one request)', () => {
  // Two stages of 10 ms each (weights only), max_num_batched_tokens 4, prompts of 4: A and B at t = 0.
  //   batch 1 = A's prompt (the budget is spent), batch 2 = B's at the same t (A is in flight: skipped).
  //   The queue (2 = pipeline_parallel_size) is full: wait for batch 1.
  //   batch 1: stage 0 0-10 ms, stage 1 10-20; batch 2: stage 0 10-20, stage 1 20-30.
  //   20 ms: A's token 1, batch 3 = A's decode: stage 0 20-30, stage 1 30-40; 30 ms: B's token 1, batch 4: 30-40, 40-50 ...
  // A's tokens at 20, 40, 60, 80, 100 ms, B's at 30, 50, 70, 90, 110: each request 20 ms a token (the sum of
  // the stages), the two together a token every 10 ms (one stage), where A alone gets one every 20 ms.
  const two = packRequests([{ arrivalS: 0, promptLen: 4, outputLen: 5 }, { arrivalS: 0, promptLen: 4, outputLen: 5 }]);
  const config: ServingSimConfig = { ...PP_CONFIG, maxNumBatchedTokens: 4, stages: [stage({ weightsS: 0.010 }), stage({ weightsS: 0.010 })] };
  const sim = new ServingSimulator(config, two);
  assert.equal(sim.run(100), true);
  const t = sim.times();
  assert.ok(close(Array.from(t.firstTokenS), [0.02, 0.03]), `TTFT ${Array.from(t.firstTokenS)}`);
  assert.ok(close(Array.from(t.finishS), [0.1, 0.11]), `finish ${Array.from(t.finishS)}`);
  assert.equal(sim.totals().steps, 10);
  // Alone, A finishes at the same 100 ms: 5 tokens in 100 ms against the pair's 10 in 110 ms.
  const alone = new ServingSimulator(config, packRequests([{ arrivalS: 0, promptLen: 4, outputLen: 5 }]));
  assert.equal(alone.run(100), true);
  assert.ok(close(Array.from(alone.times().finishS), [0.1]));
  // Refused: one stage in `stages`, a negative coefficient.
  assert.throws(() => new ServingSimulator({ ...config, stages: [stage({})] }, two), /stages must be empty or hold at least 2 stages/);
  assert.throws(() => new ServingSimulator({ ...config, stages: [stage({}), stage({ perTokenS: -1 })] }, two), /stages\[1\]\.perTokenS must be >= 0/);
});

test('pipeline parallelism: every request is accounted for under preemption, requests preempted in flight included', async () => {
  // The accounting test above with 2 or 3 stages of 1 s each: up to pp batches in flight, a small
  // pool (16 pages of 4) that preempts requests whose tokens are in flight (their batch's token is
  // kept, vLLM update_from_output), and prefix caching on or off. Independent: the same rejections and
  // output tokens as one stage (pipelining changes when, never what).
  const p = profile('kv_cache: { page_size: 4, num_pages: 16 }\nworkload: { max_model_len: 40, max_num_seqs: 3, max_num_batched_tokens: 16 }\n');
  const trace = fc.array(
    fc.record({
      arrivalS: fc.integer({ min: 0, max: 20 }),
      promptLen: fc.integer({ min: 1, max: 60 }),
      outputLen: fc.integer({ min: 1, max: 30 }),
      prefixId: fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
    }),
    { minLength: 1, maxLength: 25 },
  );
  const unit = { perStepS: 1, weightsS: 0, expertWeightsS: 0, perKvTokenS: 0, perTokenS: 0, perLogitsS: 0, perPairS: 0, perDecodePairS: 0, perSlidingKvTokenS: 0, perSlidingPairS: 0 };
  let preempted = 0;
  await fc.assert(
    fc.asyncProperty(trace, fc.boolean(), fc.constantFrom(2, 3), async (requests, caching, pp) => {
      const stepTime = { perStepS: 0, weightsS: 0, perKvTokenS: 0, perTokenS: 0, perPairS: 0, stages: Array.from({ length: pp }, () => unit), source: 'test' };
      let last: PoolProgress | undefined;
      const r = await simulatePool(p, { stepTime, watermark: 0, trace: requests, enablePrefixCaching: caching, onProgress: (x) => (last = x) });
      let rejected = 0;
      let outputs = 0;
      let prompts = 0;
      // vllm bench serve's duration: to the last step's end or a later rejected arrival (as the test above).
      let end = r.summary.simulatedSeconds;
      for (const q of requests) {
        const out = Math.min(q.outputLen, 40 - q.promptLen);
        if (q.promptLen >= 40 || Math.ceil((q.promptLen + out - 1) / 4) > 16) {
          rejected++;
          end = Math.max(end, q.arrivalS);
        } else {
          outputs += out;
          prompts += q.promptLen;
        }
      }
      // The progress counts (as the test above): a request preempted in flight is prefilled once.
      assert.deepEqual({ prefilled: last!.prefilledTokens, decoded: last!.decodedTokens, toDo: last!.tokensToDo }, { prefilled: prompts, decoded: outputs, toDo: prompts + outputs });
      assert.equal(r.summary.rejected, rejected);
      assert.equal(r.summary.completed + r.summary.rejected, requests.length);
      assert.ok(Math.abs(r.summary.throughputTokensPerSec * end - outputs) < 1e-6);
      for (const s of r.samples) assert.equal(s.pagesUsed + s.pagesCached + s.pagesFree, 16);
      preempted += r.summary.preemptions;
    }),
    { numRuns: 60 },
  );
  assert.ok(preempted > 0, 'some runs preempt');
});

test('pipeline parallelism: each stage charges its own recurrent state (perRequestStateS), absent as 0', () => {
  // One request, prompt 4, output 2; stage 0: 2 ms of state a request, stage 1: 1 ms, nothing else.
  //   batch 1 (t = 0), the prompt: 2 + 1 = 3 ms → first token at 3 ms
  //   batch 2 (t = 3 ms), a decode token: 2 + 1 → 6 ms
  const packed = packRequests([{ arrivalS: 0, promptLen: 4, outputLen: 2 }]);
  const sim = new ServingSimulator({ ...PP_CONFIG, stages: [stage({ perRequestStateS: 0.002 }), stage({ perRequestStateS: 0.001 })] }, packed);
  assert.equal(sim.run(100), true);
  const t = sim.times();
  assert.ok(close([t.firstTokenS[0]!, t.finishS[0]!], [0.003, 0.006]), `${t.firstTokenS[0]}, ${t.finishS[0]}`);
});

test('pipeline parallelism: each stage charges its own MLA context K/V (perPrefillContextKvS)', () => {
  // One request, prompt 12, output 2, max_num_batched_tokens 8; stage 0: 2 ms a context token of
  // K/V traffic, stage 1: 1 ms, nothing else costs.
  //   batch 1, chunk 0..7, no context: 0 ms; batch 2, chunk 8..11, context 8: 16 + 8 = 24 ms (first
  //   token); batch 3, a decode token: 0 ms (last token at 24 ms).
  const packed = packRequests([{ arrivalS: 0, promptLen: 12, outputLen: 2 }]);
  const sim = new ServingSimulator({ ...PP_CONFIG, maxNumBatchedTokens: 8, stages: [stage({ perPrefillContextKvS: 0.002 }), stage({ perPrefillContextKvS: 0.001 })] }, packed);
  assert.equal(sim.run(100), true);
  const t = sim.times();
  assert.ok(close([t.firstTokenS[0]!, t.finishS[0]!], [0.024, 0.024]), `${t.firstTokenS[0]}, ${t.finishS[0]}`);
});

test('pipeline parallelism: each stage charges its own MLA terms (perPrefillContextTokenS over its layers, perDecodeTokenS), absent ones as before', () => {
  // One request, prompt 12, output 2, max_num_batched_tokens 8; stage 0: 1 ms per token, 3 ms per
  // decode token, 0.5 ms per context token; stage 1: 1 ms per decode token, 0.25 ms per context token.
  //   batch 1 (t = 0), chunk 0..7, no context: stage 0 8 ms, stage 1 0 → 8 ms (no token: the prompt goes on)
  //   batch 2 (t = 8 ms), chunk 8..11, context 8: stage 0 4 + 4 = 8 ms, stage 1 2 ms → first token at 18 ms
  //   batch 3 (t = 18 ms), a decode token: stage 0 3 ms, stage 1 1 ms → 22 ms
  // Without the two terms (a run saved before them): 8, then 8 + 4 = 12 ms, then 12 + 1 = 13 ms.
  const packed = packRequests([{ arrivalS: 0, promptLen: 12, outputLen: 2 }]);
  const run = (stages: ServingSimConfig['stages']) => {
    const sim = new ServingSimulator({ ...PP_CONFIG, maxNumBatchedTokens: 8, stages }, packed);
    assert.equal(sim.run(100), true);
    const t = sim.times();
    return [t.firstTokenS[0]!, t.finishS[0]!];
  };
  const got = run([stage({ perTokenS: 0.001, perDecodeTokenS: 0.003, perPrefillContextTokenS: 0.0005 }), stage({ perDecodeTokenS: 0.001, perPrefillContextTokenS: 0.00025 })]);
  assert.ok(close(got, [0.018, 0.022]), `MLA stages: ${got}`);
  const before = run([stage({ perTokenS: 0.001 }), stage({})]);
  assert.ok(close(before, [0.012, 0.013]), `without: ${before}`);
});

test("simulatePool replays the profile's workload.trace where the caller passed no requests (a sweep's point): the same run as the same requests passed in, the trace named in its load", async () => {
  const dir = tempDir('attnscope-sim-');
  const file = join(dir, 't.jsonl');
  // The hand-computed tiny trace of the first test: A (prompt 6, output 3) and B (3, 2), B 2 s later.
  writeFileSync(file, '{"arrival_s": 0, "prompt_len": 6, "output_len": 3}\n{"arrival_s": 2, "prompt_len": 3, "output_len": 2}\n');
  const sections = 'kv_cache: { page_size: 4, num_pages: 10 }\nworkload: { max_model_len: 16';
  const fromProfile = await simulatePool(profile(`${sections}, trace: ${file} }\n`), UNIT_STEPS);
  const given = await simulatePool(profile(`${sections} }\n`), { ...UNIT_STEPS, trace: [req(0, 6, 3), req(2, 3, 2)] });
  assert.deepEqual(fromProfile.summary, given.summary);
  assert.deepEqual(fromProfile.latency, given.latency);
  assert.equal(fromProfile.load?.source, 'trace');
  assert.deepEqual(fromProfile.load?.trace, { path: file, from: 'workload.trace', resolvedPath: file, format: 'attnscope', timeUnit: 'arrival_s, seconds', rowsRead: 2, spanS: 2, dropped: {} });
  // Under data parallelism too (simulateDataParallel's run named no trace before s43).
  const dp = await simulatePool(profile(`device: { data_parallel_size: 2 }\n${sections}, trace: ${file} }\n`), UNIT_STEPS);
  assert.deepEqual(dp.load?.trace, fromProfile.load?.trace);
});

test('every step-time coefficient is in a group resolveStepTime copies from caller-given coefficients (s42 tidy42 left 1: a key left out was dropped silently)', () => {
  // STEP_COEFFICIENT_KEYS (step-time.ts) against simulate.ts GIVEN_COEFFICIENT_GROUPS: a coefficient added to the one and not the other is named here.
  assert.deepEqual(ungroupedCoefficientKeys(), []);
});
