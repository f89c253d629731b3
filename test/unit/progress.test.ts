/**
 * What `simulate` says of a long run (runner/progress.ts): its plan before it starts and the time
 * it has left (s46 newcomer46 M3: 10,000,000 requests of 100,000 + 30,000 tokens sat at
 * "[  0%] simulating 10,000,000 requests: 0 done, 0 s of serving" for minutes, no word of its size).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PLAN_NOTE_DECODE_TOKENS, remainingText, simulationPlanNote } from '../../runner/progress';

test('the plan note names the requests, the prompt tokens and the tokens to decode of a run of 10^10 decode tokens or more; none below', () => {
  // The newcomer's workload: 10^7 requests × 100,000 prompt tokens = 10^12, × 30,000 output tokens = 3 · 10^11.
  assert.equal(
    simulationPlanNote(1e7, 1e12, 3e11),
    'note: simulating 10,000,000 requests: 1,000,000,000,000 prompt tokens to prefill and up to 300,000,000,000 tokens to decode, a step at a time: a long run (the time left shows once requests finish; Ctrl-C cancels it, nothing written)',
  );
  // The example's 2,000 requests of mean 256 output tokens: about 512,000, no note.
  assert.equal(simulationPlanNote(2000, 2_048_000, 512_000), null);
  assert.equal(simulationPlanNote(1000, 1e6, PLAN_NOTE_DECODE_TOKENS - 1), null);
  assert.match(simulationPlanNote(1000, 1e6, PLAN_NOTE_DECODE_TOKENS)!, /up to 10,000,000,000 tokens to decode/);
});

test('the time left: elapsed · (1 − f) / f once 5 s have passed and some requests finished; nothing before, at 0 or at 1', () => {
  // 60 s for a quarter: 180 s more.
  assert.equal(remainingText(60, 0.25), ', about 3 min left at the rate so far');
  // 10 s for 1 %: 990 s = 16.5 min.
  assert.equal(remainingText(10, 0.01), ', about 16.5 min left at the rate so far');
  assert.equal(remainingText(4.9, 0.5), '');
  assert.equal(remainingText(60, 0), '');
  assert.equal(remainingText(60, 1), '');
});
