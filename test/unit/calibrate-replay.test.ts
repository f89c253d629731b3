// simulate --calibrate's replay: the result's requests through the simulator, compared with
// what the result measured, on a clock simple enough to step through by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { packRequests } from '../../runner/simulate/index';
import { formatCalibrationReplay, replayCalibration, replayMeanError } from '../../runner/simulate/calibrate-replay';
import type { VllmBenchResult } from '../../runner/simulate/traces';
import { exampleProfile } from '../fixtures/profile';

test('the replay adds what the one-step view leaves out: the other request\'s prefill in a decode step, and the wait for the step before', async () => {
  // Step = 10 ms + 1 ms per scheduled token (perStepS, perTokenS; step-time.ts stepSeconds).
  // A arrives at 0 (prompt 1, output 3), B at 5 ms (prompt 100, output 2). Measured as each
  // alone would be (what a one-step fit reproduces exactly): A TTFT 11 ms, ITLs 11, 11 ms;
  // B TTFT 110 ms (10 + 100), ITL 11 ms.
  // Replay by hand: step 1 [0, 11 ms] A's prefill (1 token): A TTFT 11 ms. Step 2 [11, 122 ms]
  // A's decode + B's prefill (101 tokens, 111 ms): B TTFT 122 − 5 = 117 ms. Step 3 [122, 134 ms]
  // both decode (2 tokens, 12 ms): A done, TPOT (134 − 11) / 2 = 61.5 ms; B TPOT 12 ms.
  // TTFT mean: measured (11 + 110) / 2 = 60.5 ms, replayed (11 + 117) / 2 = 64 ms: +5.785 %.
  // TPOT mean: measured 11 ms, replayed (61.5 + 12) / 2 = 36.75 ms: +234.1 %.
  const profile = exampleProfile('model: ./llama-3.1-8b/config.json\nkv_cache: { page_size: 16, num_pages: 1000 }\n');
  const bench: VllmBenchResult = {
    inputLens: [1, 100],
    outputLens: [3, 2],
    ttfts: [0.011, 0.11],
    itls: [[0.011, 0.011], [0.011]],
    startTimes: [0, 0.005],
    errors: null,
    requestRate: null,
    maxConcurrency: null,
    modelId: null,
  };
  const requests = packRequests([
    { arrivalS: 0, promptLen: 1, outputLen: 3 },
    { arrivalS: 0.005, promptLen: 100, outputLen: 2 },
  ]);
  const r = await replayCalibration(profile, bench, requests, { perStepS: 0.01, perTokenS: 0.001 });
  const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-9, `${a} vs ${b}`);
  close(r.ttft!.measured.mean, 0.0605);
  close(r.ttft!.replayed.mean, 0.064);
  close(r.tpot!.measured.mean, 0.011);
  close(r.tpot!.replayed.mean, 0.03675);
  close(replayMeanError(r.ttft!), 0.064 / 0.0605 - 1);
  close(replayMeanError(r.tpot!), 0.03675 / 0.011 - 1);
  const lines = formatCalibrationReplay(r, 'b.json');
  assert.match(lines[1], /^ {4}TTFT mean 60\.5 ms → 64 ms \(\+5\.8%\), p50 60\.5 ms → 64 ms \(\+5\.8%\), p90 /);
  assert.match(lines[2], /^ {4}TPOT mean 11 ms → 36\.8 ms \(\+234\.1%\)/);
});
