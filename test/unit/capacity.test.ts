// The capacity search on a load whose limit is known by hand: it brackets the limit within its
// tolerance, and every rate it calls passing really passes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { packRequests, searchCapacity } from '../../runner/simulate/index';
import { exampleProfile } from '../fixtures/profile';


test('the highest rate meeting a TTFT bound is found within the tolerance of the hand-computed limit', async () => {
  // 200 requests (prompt 1, output 1) arriving every 20 ms (50/s); one at a time (max_num_seqs 1),
  // each one 10 ms step. At a gap g >= 10 ms nobody waits: TTFT = 10 ms. At g < 10 ms the server
  // stays busy from t = 0, request i starts at 10·i ms and TTFT_i = 10 + i·(10 − g) ms, largest
  // at i = 199. TTFT <= 15 ms for every request (attainment 1) holds while
  // g >= 10 − 5/199 ms, i.e. up to r* = 1000 / (10 − 5/199) = 100.2519 requests/s.
  const profile = exampleProfile('model: ./llama-3.1-8b/config.json\nkv_cache: { page_size: 16, num_pages: 100 }\nworkload: { max_num_seqs: 1 }\n');
  const requests = packRequests(Array.from({ length: 200 }, (_, i) => ({ arrivalS: i * 0.02, promptLen: 1, outputLen: 1 })));
  const tolerance = 0.01;
  const { curve } = await searchCapacity(profile, { slo: { ttftMs: 15 }, attainment: 1, tolerance, requests, simulate: { stepTime: { perStepS: 0.01 } } });
  const limit = 1000 / (10 - 5 / 199);
  assert.equal(curve.points[0]!.rate, 50);
  assert.ok(curve.maxRate! <= limit && curve.maxRate! * (1 + tolerance) > limit, `max rate ${curve.maxRate} vs ${limit}`);
  for (const p of curve.points) assert.equal(p.meets, p.rate <= limit, `rate ${p.rate}`);
  assert.equal(curve.unbounded, false);
});

test('an SLO below one step alone: the halving stops once the p99s stop falling, and no rate is called passing', async () => {
  // Same load, TTFT bound 5 ms under a 10 ms step: at 50/s nobody waits already (gap 20 ms >=
  // 10 ms), so TTFT is 10 ms at 50/s, 25/s, ...: the first halving changes nothing, and the search
  // stops there (it used to halve 20 times, to 50 · 2^-20 requests/s).
  const profile = exampleProfile('model: ./llama-3.1-8b/config.json\nkv_cache: { page_size: 16, num_pages: 100 }\nworkload: { max_num_seqs: 1 }\n');
  const requests = packRequests(Array.from({ length: 200 }, (_, i) => ({ arrivalS: i * 0.02, promptLen: 1, outputLen: 1 })));
  const { curve } = await searchCapacity(profile, { slo: { ttftMs: 5 }, attainment: 1, requests, simulate: { stepTime: { perStepS: 0.01 } } });
  assert.deepEqual(curve.points.map((p) => [p.rate, p.meets]), [[50, false], [25, false]]);
  for (const p of curve.points) assert.ok(Math.abs(p.p99TtftS! - 0.01) < 1e-12, String(p.p99TtftS));
  assert.equal(curve.maxRate, null);
});
