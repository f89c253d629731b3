import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dataParallelEngines, fewAndCount, formatAttainedBelow, formatAttainmentTarget, formatBytes, formatBytesVs, formatCount, formatCountOf, formatFactorAsWritten, formatGrouped, formatTimeScale, formatDuration, formatGib, formatLoad, loadVerdict, formatMs, formatParams, formatPercent, formatGpuPeaks, formatRate, formatRequestRate, formatRequestRates, formatRunTime, requestRateDown, formatSignificant, indefiniteArticle, sloNearIdleNote, sloSampleNote, sloTargetText, sloVerdict, shownFileName, vllmConcurrencyLine, wasmBuildNote, wrapLine, wrapLongLines } from '../../core/format';
import { PROSE_WIDTH } from '../../core/textTable';
import { rowExclusion } from '../../core/sweepFigures';
import { GPUS } from '../../core/estimate/gpus';
import { skippedNote } from '../../webview/model';

test('formatBytes: IEC prefixes, three significant digits', () => {
  assert.equal(formatBytes(0), '0 B');
  assert.equal(formatBytes(512), '512 B');
  assert.equal(formatBytes(131_072), '128 KiB');
  assert.equal(formatBytes(2 * 1024 ** 2), '2 MiB');
  assert.equal(formatBytes(4_093_640_704), '3.81 GiB'); // vLLM's "kv_cache_size=3.81GiB"
  assert.equal(formatBytes(16_060_522_496), '15 GiB'); // Llama-3.1-8B bf16 weights: 14.96 GiB
  assert.equal(formatBytes(1536), '1.5 KiB');
  assert.equal(formatBytes(1023.99 * 1024), '1 MiB'); // rounding past 1023 moves up a prefix
  assert.equal(formatBytes(2 * 1024 ** 4), '2 TiB');
});

test('formatCount: thousands separators', () => {
  assert.equal(formatCount(1952), '1,952');
  assert.equal(formatCount(999), '999');
  assert.equal(formatCount(8_030_261_248), '8,030,261,248');
  assert.equal(formatCount(-12345), '-12,345');
  // Up to 2^53 every integer is exact in a double; beyond, digits would be rounding shown as exact:
  // L·(4h² + 3h·i + 2h) + 2·V·h + h for 100,000 layers of hidden 2^20 is 1,759,239,785,677,848,576
  // (Python integers), which float64 makes ...600. Three significant digits, as a 300-digit span would be too.
  assert.equal(formatCount(2 ** 53), '9,007,199,254,740,992');
  assert.equal(formatCount(1_759_239_785_677_848_576), '1.76e18');
  assert.equal(formatCount(2 ** 70), '1.18e21');
  assert.equal(formatCount(-2.466e304), '-2.47e304');
});

test('formatRate: SI prefixes', () => {
  assert.equal(formatRate(1.234e11, 'FLOP/s'), '123 GFLOP/s');
  assert.equal(formatRate(2.5e10, 'B/s'), '25 GB/s');
  assert.equal(formatRate(9.87e14, 'FLOP/s'), '987 TFLOP/s');
  assert.equal(formatRate(999.7e9, 'B/s'), '1 TB/s');
  assert.equal(formatRate(512, 'B/s'), '512 B/s');
});

test('formatParams and formatDuration', () => {
  assert.equal(formatParams(8_030_261_248), '8.03B');
  assert.equal(formatParams(124_439_808), '124M');
  assert.equal(formatParams(671_026_404_352), '671B');
  assert.equal(formatDuration(812_000), '812 µs');
  assert.equal(formatDuration(3_412_000), '3.41 ms');
  assert.equal(formatDuration(1_200_000_000), '1.2 s');
  assert.equal(formatDuration(450), '450 ns');
  assert.equal(formatDuration(0), '0 s');
  // 3,383.93 s / 60 = 56.4 min; 999.4 s = 16.66 min; 59.9 s stays in seconds.
  assert.equal(formatDuration(3_383.93e9), '56.4 min');
  assert.equal(formatDuration(999.4e9), '16.7 min');
  assert.equal(formatDuration(59.9e9), '59.9 s');
  // A modelled p99 TTFT of 11,766,444 ms = 11,766.444 s / 3,600 = 3.268 h (it read "11,766,444 ms").
  assert.equal(formatMs(11_766_444), '3.27 h');
  assert.equal(formatMs(5_935_503), '1.65 h');
  assert.equal(formatMs(7_000_000), '1.94 h');
  assert.equal(formatMs(1000 * 3600e3), '1,000 h');
  assert.equal(formatMs(42.5), '42.5 ms');
});

test('formatPercent: one decimal by default, the digits asked for, a dash for no figure', () => {
  // 0.4213 · 100 = 42.13 -> "42.1%"; 7/8 = 87.5%; 2/3 to 0 decimals = 67%.
  assert.equal(formatPercent(0.4213), '42.1%');
  assert.equal(formatPercent(7 / 8), '87.5%');
  assert.equal(formatPercent(2 / 3, 0), '67%');
  assert.equal(formatPercent(null), '—');
  assert.equal(formatPercent(Number.NaN), '—');
});

test('formatGib prints GiB as vLLM\'s log does (two decimals), small terms in IEC units; formatSignificant keeps three digits', () => {
  // Llama-3.1-8B bf16 weights: 16,060,522,496 B / 2^30 = 14.957... GiB (vLLM prints two decimals).
  assert.equal(formatGib(16_060_522_496), '14.96 GiB');
  assert.equal(formatGib(3.8125 * 2 ** 30), '3.81 GiB');
  assert.equal(formatGib(5 * 2 ** 20), '5 MiB'); // 0.0049 GiB would print as "0.00 GiB"
  assert.equal(formatSignificant(123.4), '123');
  assert.equal(formatSignificant(12.34), '12.3');
  assert.equal(formatSignificant(1.234), '1.23');
  assert.equal(formatSignificant(Infinity), 'Infinity');
});

test('figures of 1,000 and more are grouped wherever they are written (s45 newcomer-ed: B200 "2250 TFLOP/s" beside "1,979")', () => {
  // B200: 36 PFLOPS bf16 with sparsity over 8 GPUs (HGX B200 specifications) = 4.5 PFLOP/s, dense half: 2,250 TFLOP/s.
  const b200 = GPUS.find((g) => g.name === 'B200')!;
  assert.equal(b200.bf16FlopsPerSec, 2250e12);
  assert.equal(formatGpuPeaks(b200), '8 TB/s · 2,250 TFLOP/s bf16');
  assert.equal(formatGpuPeaks(GPUS.find((g) => g.name === 'H100 SXM')!), '3.35 TB/s · 989 TFLOP/s bf16');
  // MI300X: 1,307.4 TFLOP/s dense (AMD data sheet), whole from 1,000.
  assert.equal(formatGpuPeaks(GPUS.find((g) => g.name === 'MI300X')!), '5.3 TB/s · 1,307 TFLOP/s bf16');
  assert.equal(formatSignificant(2250), '2,250');
  assert.equal(formatSignificant(54_921.3), '54,921');
  assert.equal(formatSignificant(-1234.5), '-1,235');
  assert.equal(formatSignificant(999.6), '1,000');
  assert.equal(formatBytes(1023.4 * 1024), '1,023 KiB');
  assert.equal(formatBytes(1000), '1,000 B');
  // A capacity rate of 12,345.6 requests/s (toPrecision(4) wrote "1.235e+4"): grouped.
  assert.equal(formatRequestRate(12_345.6), '12,346');
});

test('requestRateDown: the highest 3-significant-digit rate at or below, printed exactly by formatRequestRate', () => {
  // By hand: 0.20394 -> 0.203 (not 0.204, which would claim more than was found); 272.6 -> 272; 12,978 -> 12,900; 15.62 -> 15.6.
  assert.equal(requestRateDown(0.20394), 0.203);
  assert.equal(formatRequestRate(requestRateDown(0.20394)), '0.203');
  assert.equal(requestRateDown(272.6), 272);
  assert.equal(requestRateDown(12_978), 12_900);
  assert.equal(formatRequestRate(requestRateDown(12_978)), '12,900');
  assert.equal(requestRateDown(15.62), 15.6);
  // Already 3 digits, or a few ulps under (0.203 / 8 × 8): unchanged.
  assert.equal(requestRateDown(8), 8);
  assert.equal(requestRateDown((0.203 / 8) * 8), 0.203);
  assert.ok(Number.isNaN(requestRateDown(0)));
});

test('formatRequestRates: rates that would print alike but differ get the digits that tell them apart (s51: two capacity rows "0.199")', () => {
  // By hand: 0.19943 and 0.19871 are both "0.199" to 3 digits, "0.1994" and "0.1987" to 4; 0.191 prints as before.
  assert.deepEqual(formatRequestRates([0.19943, 0.19871, 0.191]), ['0.1994', '0.1987', '0.191']);
  // Equal rates stay alike; no clash, no change.
  assert.deepEqual(formatRequestRates([0.199, 0.199, 30.05479]), ['0.199', '0.199', '30.1']);
  // 166.44 / 166.38: "166" both, "166.4" both to 4 digits, "166.44" / "166.38" to 5.
  assert.deepEqual(formatRequestRates([166.44, 166.38]), ['166.44', '166.38']);
  // Grouped and never in exponent form: 12,978.4 / 12,978.2 need 6 digits.
  assert.deepEqual(formatRequestRates([12_978.4, 12_978.2]), ['12,978.4', '12,978.2']);
});

test('formatCountOf: singular for exactly one, plural otherwise, irregular plurals given', () => {
  assert.equal(formatCountOf(1, 'request'), '1 request');
  assert.equal(formatCountOf(0, 'result'), '0 results');
  assert.equal(formatCountOf(1952, 'point'), '1,952 points');
  assert.equal(formatCountOf(2, 'axis', 'axes'), '2 axes');
});

test('the article before a count is the one it is read aloud with: an 8,192, an 11,000, an 18, a 1,024, a 180', () => {
  for (const [n, article] of [[8192, 'an'], [8, 'an'], [80, 'an'], [11000, 'an'], [18, 'an'], [1024, 'a'], [180, 'a'], [110, 'a'], [4096, 'a'], [1, 'a']] as const) {
    assert.equal(indefiniteArticle(formatCount(n)), article, String(n));
  }
});

test('formatRunTime: a run\'s ISO time as the reader\'s local date and time; no date comes back as written', () => {
  // By hand: 08:55:36 UTC is 17:55:36 in Tokyo (UTC+9, no daylight saving) and 03:55:36 in New
  // York on 3 December (EST, UTC−5); 23:30 UTC on 31 December is already 1 January 2027 in Tokyo.
  // ICU may write a narrow no-break space before AM/PM: compared with spaces as spaces.
  const read = (iso: string, zone: string): string => formatRunTime(iso, 'en-US', zone).replace(/\s/g, ' ');
  assert.equal(read('2026-12-03T08:55:36.023Z', 'Asia/Tokyo'), 'Dec 3, 2026, 5:55:36 PM');
  assert.equal(read('2026-12-03T08:55:36.023Z', 'America/New_York'), 'Dec 3, 2026, 3:55:36 AM');
  assert.equal(read('2026-12-31T23:30:00.000Z', 'Asia/Tokyo'), 'Jan 1, 2027, 8:30:00 AM');
  assert.equal(formatRunTime('not a date'), 'not a date');
});

test('wasmBuildNote: a run whose kernels ran in WebAssembly says so, that its timings are not the native speed, and why, without the files tried', () => {
  assert.equal(wasmBuildNote({ nativeBuild: 'native' }), null);
  assert.equal(wasmBuildNote(undefined), null);
  assert.equal(wasmBuildNote({}), null, 'a run saved before runs named their build');
  const reason = 'no native addon found: `npm run build:native` builds it (needs g++, make and python3) (tried /x/native/build/Release/attnscope_native.node)';
  assert.equal(wasmBuildNote({ nativeBuild: 'wasm', nativeBuildReason: reason }), 'Its kernels ran single-threaded in WebAssembly, not in the native addon: these timings are not the native kernels\' speed. Why: no native addon found: `npm run build:native` builds it (needs g++, make and python3).');
  assert.equal(wasmBuildNote({ nativeBuild: 'wasm' }, 'simulate'), 'Simulated by the WebAssembly module, not the native addon (the same results bit for bit): ATTNSCOPE_BACKEND=wasm.');
});

test("Load: served is the throughput over vllm bench serve's duration, said so, and a run that kept up says it on a Kept up line (s37 newcomer: 4.55 offered, 3.66 served, no Overloaded line)", () => {
  // 50 requests arriving over 10.77 s: (50 − 1) / 10.77 = 4.5497 offered; the last ones finish 2.89 s
  // after the last arrival, so served = 50 / (10.77 + 2.89) = 3.6603 although 1 request waited then
  // (a served rate given, as the run holds it: latency.ts divides from 0 s, here the first arrival).
  const load = { source: 'workload' as const, timeScale: 1, offeredRequestsPerSec: 49 / 10.77, servedRequestsPerSec: 50 / 13.66, waitingAtLastArrival: 1, waitingAtMiddleArrival: 1, overloaded: false };
  const all = { requests: 50, completed: 50, rejected: 0 };
  assert.deepEqual(formatLoad(load, all), [
    'Load: 4.55 requests/s offered, 3.66 requests/s served (modelled; offered = (requests − 1) / span of the arrivals; served = completed / the time from 0 s to the last request\'s end (vllm bench serve\'s benchmark duration), which takes in the service of the requests still running at the last arrival: below the offered rate even when the server keeps up)',
    'Kept up: at the last arrival 1 of the 50 requests (2.0%) was still waiting, 1 at the middle arrival: the queue did not grow from the middle of the arrivals to the last (modelled)',
  ]);
  // Grown, within the bound: 2 · √(50 / 2) = 10 (s43 newcomer43 F2: "did not grow" was printed for a queue that doubled).
  assert.equal(formatLoad({ ...load, waitingAtLastArrival: 2, waitingAtMiddleArrival: 0 }, all)[1],
    'Kept up: at the last arrival 2 of the 50 requests (4.0%) were still waiting, 0 at the middle arrival: the queue grew by 2, within 10 (2 · √(requests / 2), twice a Poisson count\'s spread over the second half\'s arrivals), with fewer than 5 % waiting (modelled)');
  // One waiting where none did at the middle, in a run of 6 (16.7 %): no "fewer than 5 % waiting" (s44 newcomer M6); the rule's floor of 2 said.
  assert.equal(formatLoad({ ...load, waitingAtLastArrival: 1, waitingAtMiddleArrival: 0 }, { requests: 6, completed: 6, rejected: 0 })[1],
    'Kept up: at the last arrival 1 of the 6 requests (16.7%) was still waiting, 0 at the middle arrival; one waiting request is no growing queue (the overload test asks at least 2; modelled)');
  // Two requests 10 s apart, each done in 0.1 s: (2 − 1) / 10 = 0.1 offered, 2 / 10.1 = 0.198 served: above, so no
  // "below the offered rate" clause (s42 newcomer 9: it was printed there too).
  const sparse = formatLoad({ ...load, offeredRequestsPerSec: 0.1, servedRequestsPerSec: 2 / 10.1, waitingAtLastArrival: 0 }, { requests: 2, completed: 2, rejected: 0 });
  assert.equal(sparse[0], 'Load: 0.100 requests/s offered, 0.198 requests/s served (modelled; offered = (requests − 1) / span of the arrivals; served = completed / the time from 0 s to the last request\'s end (vllm bench serve\'s benchmark duration))');
  // A capacity search's answer (simulate --max-rate, s50 newcomer LOW-7): asked 24 × 1.2523 = 30.055 -> "30.1", its
  // drawn arrivals offered (2,000 − 1) / 66.57 s = 30.03 -> "30.0": the Load line names the searched rate beside it.
  const searched = formatLoad({ ...load, offeredRequestsPerSec: 1999 / 66.57 }, all, 24 * 1.2523)[0]!;
  assert.match(searched, /^Load: 30\.0 requests\/s offered \(searched at 30\.1: the random arrivals drawn at a rate offer a little more or less\), 3\.66 requests\/s served/);
  // Where the two read alike, nothing is added.
  assert.match(formatLoad(load, all, 49 / 10.77)[0]!, /^Load: 4\.55 requests\/s offered, 3\.66/);
  // Overloaded: the Overloaded line, no Kept up line.
  const over = formatLoad({ ...load, waitingAtLastArrival: 20, overloaded: true }, all);
  assert.equal(over.length, 2);
  assert.match(over[1]!, /^Overloaded: at the last arrival 20 of the 50 requests \(40\.0%\)/);
  // s40 newcomer 9: every request rejected (prompts of 8,192 at max_model_len 8,192): 0 served is no "Kept up".
  const none = formatLoad({ ...load, servedRequestsPerSec: 0, waitingAtLastArrival: 0 }, { requests: 50, completed: 0, rejected: 50 });
  assert.equal(none.length, 2);
  assert.match(none[1]!, /^None served: all 50 requests were rejected /);
});

test('Load at dp 8: a run whose requests in flight grew while its queue did not cannot tell, not Kept up; an offered rate above a measured μ is Overloaded (s44 newcomer44 MEDIUM-3)', () => {
  // examples/llama-3.1-8b.attn.yaml at data_parallel_size 8, arrival_rate 300 (μ 251 = 8 × 31.4 by --max-rate), as simulated:
  // 10 waiting at the last arrival, 6 at the middle (grew 4, within 2 · √(2,000 / 2) = 63.2), but in flight 811 -> 1,613
  // (grew 802 > 63): every engine's 250 requests fit its max_num_seqs 256, so the overload sat in the batches.
  const load = { source: 'workload' as const, timeScale: 1, offeredRequestsPerSec: 299.88, servedRequestsPerSec: 170.67, waitingAtLastArrival: 10, waitingAtMiddleArrival: 6, inFlightAtLastArrival: 1613, inFlightAtMiddleArrival: 811, overloaded: false };
  const all = { requests: 2000, completed: 2000, rejected: 0 };
  const lines = formatLoad(load, all);
  assert.equal(lines.length, 2);
  assert.match(lines[1]!, /^Cannot tell whether the server keeps up: at the last arrival 10 of the 2,000 requests were still waiting, 6 at the middle arrival, but the requests in flight \(waiting or running\) grew from 811 at the middle arrival to 1,613, by more than 63 /);
  // The dp 1 example at 24 requests/s (μ 31.0): in flight 79 -> 114, grew 35 <= 63: Kept up, as before.
  assert.match(formatLoad({ ...load, offeredRequestsPerSec: 23.99, waitingAtLastArrival: 2, waitingAtMiddleArrival: 1, inFlightAtLastArrival: 114, inFlightAtMiddleArrival: 79 }, all)[1]!, /^Kept up: /);
  // A sweep point measured μ = 251: 300 offered is Overloaded whatever its queue showed.
  const over = formatLoad({ ...load, saturatedRequestsPerSec: 251 }, all);
  assert.equal(over[1], 'Overloaded: the offered 300 requests/s is above the saturated throughput μ = 251 requests/s measured for this server (modelled), though this run\'s queue did not show it: its queue grows without bound in a steady state, so its TTFT and queueing delay grow with the length of the run (the number of requests), not toward a latency the server would settle at.');
  // A run saved before s44 (no in-flight counts) reads as it did.
  assert.match(formatLoad({ ...load, inFlightAtLastArrival: undefined, inFlightAtMiddleArrival: undefined }, all)[1]!, /^Kept up: /);
});

test('the dashboard\'s keeps-up badge is formatLoad\'s verdict, its lines word for word (s45 newcomer-ed N3: the Run tab showed "ok" and "SLO met" for the dp 8 run the CLI could not tell)', () => {
  // The dp 8 run of the test above: Cannot tell, with the CLI's line as its reason.
  const load = { source: 'workload' as const, timeScale: 1, offeredRequestsPerSec: 299.88, servedRequestsPerSec: 170.67, waitingAtLastArrival: 10, waitingAtMiddleArrival: 6, inFlightAtLastArrival: 1613, inFlightAtMiddleArrival: 811, overloaded: false };
  const all = { requests: 2000, completed: 2000, rejected: 0 };
  const tell = loadVerdict(load, all)!;
  assert.equal(tell.kind, 'cannot-tell');
  assert.equal(tell.badge, 'cannot tell if it keeps up');
  assert.deepEqual(tell.lines, formatLoad(load, all).slice(1));
  assert.match(tell.lines[0]!, /^Cannot tell whether the server keeps up: .* grew from 811 at the middle arrival to 1,613, by more than 63 /);
  // In flight 79 -> 114 (grew 35 <= 63): kept up.
  assert.equal(loadVerdict({ ...load, offeredRequestsPerSec: 23.99, waitingAtLastArrival: 2, waitingAtMiddleArrival: 1, inFlightAtLastArrival: 114, inFlightAtMiddleArrival: 79 }, all)!.kind, 'kept-up');
  // μ 251 measured under 300 offered: overloaded, though the queue did not show it; a queue that grew: overloaded.
  assert.equal(loadVerdict({ ...load, saturatedRequestsPerSec: 251 }, all)!.badge, 'overloaded');
  assert.equal(loadVerdict({ ...load, overloaded: true, waitingAtLastArrival: 700 }, all)!.kind, 'overloaded');
  // Every request rejected and the queue grown: the badge names both verdicts (it named only None served), the worst first.
  const none = loadVerdict({ ...load, overloaded: true }, { requests: 2000, completed: 0, rejected: 2000 })!;
  assert.equal(none.kind, 'none-served');
  assert.equal(none.badge, 'none served, overloaded');
  assert.deepEqual(none.lines.map((l) => l.split(':')[0]), ['None served', 'Overloaded']);
  // A capacity search (simulate --max-rate) tried 3 rates: 12 and 16 requests/s kept up, 24 did not (above μ 18.2):
  // the badge counts the rates, not the answer's run alone (which kept up: it said "kept up"); each rate's line on hover.
  const kept = { ...load, offeredRequestsPerSec: 15.99, servedRequestsPerSec: 15.2, waitingAtLastArrival: 2, waitingAtMiddleArrival: 1, inFlightAtLastArrival: 114, inFlightAtMiddleArrival: 79 };
  const point = (rate: number, keepsUp: boolean) => ({ rate, scale: rate / 8, p99TtftS: 0.5, p99TpotS: 0.05, goodputRequestsPerSec: rate, sloAttainment: 0.99, keepsUp, meets: keepsUp });
  const search = loadVerdict(kept, all, { points: [point(12, true), point(24, false), point(16, true)], maxRate: 16 })!;
  assert.equal(search.badge, 'overloaded (1 of 3 rates)');
  assert.equal(search.kind, 'overloaded');
  assert.match(search.lines[0]!, /^At the highest rate meeting the SLO, 16\.0 requests\/s \(the run shown\): Kept up: /);
  assert.deepEqual(search.lines.slice(1), ['12.0 requests/s: kept up (at most μ, its queue not growing), passes', '24.0 requests/s: did not keep up (above μ, or its queue grew), fails', '16.0 requests/s: kept up (at most μ, its queue not growing), passes']);
  const twoOver = loadVerdict(kept, all, { points: [point(12, true), point(24, false), point(20, false)], maxRate: 12 })!;
  assert.equal(twoOver.badge, 'overloaded (2 of 3 rates)');
  assert.equal(loadVerdict(kept, all, { points: [point(12, true), point(16, true)], maxRate: 16 })!.badge, 'kept up (2 of 2 rates)');
  // Two rates that print alike to 3 digits (16.04 passes, 15.98 fails; s51: "0.199" pass beside "0.199" fail): 4 digits, the answer as its line.
  const apart = loadVerdict(kept, all, { points: [point(16.04, true), point(15.98, false)], maxRate: 16.04 })!;
  assert.match(apart.lines[0]!, /^At the highest rate meeting the SLO, 16\.04 requests\/s \(the run shown\)/);
  assert.deepEqual(apart.lines.slice(1).map((l) => l.split(':')[0]), ['16.04 requests/s', '15.98 requests/s']);
  // All at one instant and not overloaded: formatLoad judges nothing, no badge.
  assert.equal(loadVerdict({ ...load, offeredRequestsPerSec: null, inFlightAtLastArrival: undefined, inFlightAtMiddleArrival: undefined }, all), null);
});

test('a long list of skipped history files names three and counts the rest (40 were listed whole, ~3,800 characters: s37 newcomer-ed)', () => {
  assert.equal(fewAndCount(['a', 'b', 'c'], 3), 'a; b; c');
  assert.equal(fewAndCount(['a', 'b', 'c', 'd', 'e'], 3), 'a; b; c; and 2 more');
  const files = Array.from({ length: 1003 }, (_, i) => `r${i}.json: not a run`);
  assert.equal(skippedNote(files), '1,003 files in the history folder skipped: r0.json: not a run; r1.json: not a run; r2.json: not a run; and 1,000 more');
  assert.equal(skippedNote([]), null);
});

test('the per-engine line lists 8 engines one by one; past that the first three, a count and min / median / max (s43 newcomer43 F3: 1,024 engines in 73,377 characters)', () => {
  const engine = (requests: number, tokensPerS: number) => ({ requests, completed: requests, outputTokensPerSec: tokensPerS, requestsPerSec: 0 });
  const eight = dataParallelEngines({ replicas: Array.from({ length: 8 }, (_, k) => engine(k + 1, 100)), ratesSpan: 'run' });
  assert.equal(eight.match(/engine \d+:/g)!.length, 8);
  // 1,024 engines: engine k (1-based) serves k requests at 10 · k tokens/s. Min 1, max 1,024; the median of 1..1,024 taken
  // as the lower middle value is 512 (tokens/s 5,120).
  const many = dataParallelEngines({ replicas: Array.from({ length: 1024 }, (_, k) => engine(k + 1, 10 * (k + 1))), ratesSpan: 'run' });
  assert.match(many, /^engine 1: 1 request, 10\.0 output tokens\/s; engine 2: 2 requests, 20\.0 output tokens\/s; engine 3: 3 requests, 30\.0 output tokens\/s; … 1,021 more; over all 1,024 engines, min \/ median \/ max: requests 1 \/ 512 \/ 1,024, output tokens\/s 10\.0 \/ 5,120 \/ 10,240 \(each engine's/);
  // An engine's 10 tokens over 100 s: 0.100 tokens/s, not "0 output tokens/s" (s44 newcomer L6).
  assert.match(dataParallelEngines({ replicas: [engine(1, 0.1), engine(2, 250)], ratesSpan: 'run' }), /^engine 1: 1 request, 0\.100 output tokens\/s; engine 2: 2 requests, 250 output tokens\/s/);
  assert.ok(many.length < 600, String(many.length));
});

test('a capacity search bounded by the SLO under 5 % of μ says the SLO holds only near idle (s44 newcomer-ed F13: 0.00678 of μ 1.25 written as a capacity)', () => {
  // 0.00678 / 1.25 = 0.54 %: near idle. 0.0624 / 1.25 = 4.99 %: still; 0.0625 = 5 %: a load, no note.
  assert.equal(sloNearIdleNote({ maxRate: 0.00678, saturatedRate: 1.25, limit: 'slo' }),
    'the SLO holds only near idle: 0.00678 requests/s is 0.5% of the saturated throughput μ = 1.25, so the requests that miss it miss it alone, by their own prefill or decode: raise the bound or lower slo.attainment (or use faster GPUs)');
  assert.notEqual(sloNearIdleNote({ maxRate: 0.0624, saturatedRate: 1.25, limit: 'slo' }), null);
  assert.equal(sloNearIdleNote({ maxRate: 0.0625, saturatedRate: 1.25, limit: 'slo' }), null);
  // Bounded by capacity, no μ measured, or no answer: nothing to say.
  assert.equal(sloNearIdleNote({ maxRate: 0.00678, saturatedRate: 1.25, limit: 'capacity' }), null);
  assert.equal(sloNearIdleNote({ maxRate: 0.00678, saturatedRate: null, limit: 'slo' }), null);
  assert.equal(sloNearIdleNote({ maxRate: null, saturatedRate: 1.25, limit: 'slo' }), null);
});

test('a fraction below 1 never reads 100 %, and an SLO attainment target is shown with the digits it has (s43 newcomer43 L2: 0.999999 read "the SLO asks 100%")', () => {
  // 1,999 of 2,000 requests: 99.95 %, which one decimal would round to "100.0%".
  assert.equal(formatPercent(1999 / 2000), '99.95%');
  assert.equal(formatPercent(0.999999, 0), '99.9999%');
  assert.equal(formatPercent(1, 0), '100%');
  assert.equal(formatPercent(0.4213), '42.1%');
  assert.equal(formatAttainmentTarget(0.99), '99%');
  assert.equal(formatAttainmentTarget(0.995), '99.5%');
  assert.equal(formatAttainmentTarget(0.9991), '99.91%');
  assert.equal(formatAttainmentTarget(0.999999), '99.9999%');
  assert.equal(formatAttainmentTarget(1), '100%');
  assert.equal(sloTargetText({ attainment: 0.999999 }), '99.9999%');
  assert.equal(sloVerdict({ attainment: 0.999999 }, 1), 'the SLO asks 99.9999%: met');
  // 10 / (1 − 0.999999) = 10,000,000 requests leave 10 outside the p99.9999.
  assert.equal(sloSampleNote(2000, 0.999999), 'but on 2,000 requests only: a 99.9999% target needs 10,000,000 to leave 10 outside it (the p99.9999 of 2,000 is about their maximum)');
});

test('shownFileName names a Hugging Face config.json by its folder, any other file by its name (s44 newcomer-ed F7)', () => {
  assert.equal(shownFileName('/w/hf/Llama-3.1-70B/config.json'), 'Llama-3.1-70B/config.json');
  assert.equal(shownFileName('C:\\models\\Qwen3-8B\\config.json'), 'Qwen3-8B/config.json');
  assert.equal(shownFileName('/w/examples/llama-3.1-8b.attn.yaml'), 'llama-3.1-8b.attn.yaml');
  // Another file that ends in config.json is its own name; a bare config.json has no folder to add.
  assert.equal(shownFileName('/w/tiny.config.json'), 'tiny.config.json');
  assert.equal(shownFileName('config.json'), 'config.json');
});

test('an attainment that misses its target reads below it (the sweep cost chart\'s "fails SLO (...)": 1,997 of 2,000 met of a 99.9 % target read "99.9%")', () => {
  // 1,997 / 2,000 = 0.9985: one decimal rounds to 99.9 %, the target; two say 99.85 %.
  assert.equal(formatAttainedBelow(1997 / 2000, 0.999), '99.85%');
  assert.equal(formatAttainedBelow(0.085, 0.9), '8.5%');
  // 0.99899 of 0.999: 99.90 % at two decimals too, so three.
  assert.equal(formatAttainedBelow(0.99899, 0.999), '99.899%');
  assert.equal(rowExclusion({ metrics: { sloAttainment: 1997 / 2000, sloAttainmentTarget: 0.999 }, keepsUp: true }), 'fails SLO (99.85%)');
});

test("wrapLine: --help's options: an explicit indent, breaks before '[' / '(' or '--' where one is in the room, else at the last space that fits (s48: one wrapper for reports and --help)", () => {
  // 'attnscope x A [--aa B] [--bb C] (note)' is 38 columns. At width 30 the words that fit are
  // "attnscope x A [--aa B] [--bb" (28; " C]" would make 31): with no preference the break is there,
  // mid-flag, the rest "  C] (note)" at indent 2; breaking before '[' it is after "[--aa B]" (22),
  // the rest "  [--bb C] (note)" (17).
  assert.deepEqual(wrapLine('attnscope x A [--aa B] [--bb C] (note)', { width: 30, indent: 2 }), ['attnscope x A [--aa B] [--bb', '  C] (note)']);
  assert.deepEqual(wrapLine('attnscope x A [--aa B] [--bb C] (note)', { width: 30, indent: 2, breakBefore: ['['] }), ['attnscope x A [--aa B]', '  [--bb C] (note)']);
  // At width 24, indent 12 (under A): "attnscope x A [--aa B]" (22), "            [--bb C]" (20; with
  // " (note)" 27 > 24), "            (note)" (18).
  assert.deepEqual(wrapLine('attnscope x A [--aa B] [--bb C] (note)', { width: 24, indent: 12, breakBefore: ['[', '('] }), ['attnscope x A [--aa B]', '            [--bb C]', '            (note)']);
  // A flag kept with its value: 'run --set a=1 --out d' at 16 breaks before --out, not after it.
  assert.deepEqual(wrapLine('  run --set a=1 --out d', { width: 16, indent: 6, breakBefore: ['--'] }), ['  run --set a=1', '      --out d']);
  // A line that fits is itself; the line's own indent is never a break (s47's help wrapper gave an empty first line there).
  assert.deepEqual(wrapLine('  short', { width: 10 }), ['  short']);
  assert.deepEqual(wrapLine(`    ${'x'.repeat(20)} y`, { width: 10, indent: 2 }), [`    ${'x'.repeat(20)}`, '  y']);
  // Spaces at a break are dropped (a flag line's padded gap): "  --a      text" at 8 -> "  --a", then "    text".
  assert.deepEqual(wrapLine('  --a      text', { width: 8, indent: 4 }), ['  --a', '    text']);
});

test('wrapLongLines: a line over 100 characters breaks at spaces into lines of at most 100, continued 4 further in; shorter lines and table rows stay whole (s47, s49)', () => {
  // 50 words "00w".."49w" of 3 characters: 2 + 6 + 50 · 4 − 1 = 207 characters. First line: "  Load:" (7)
  // + " NNw" (4 each) while <= 100: k = 23 words (99 characters); then "      " (6) + 4k − 1 <= 100 -> k = 23
  // words (97), and the last 4 words (6 + 15 = 21).
  const words = Array.from({ length: 50 }, (_, i) => `${String(i).padStart(2, '0')}w`);
  const line = `  Load: ${words.join(' ')}`;
  assert.ok(line.length > PROSE_WIDTH);
  const out = wrapLongLines(`${'k'.repeat(100)}\n${line}`).split('\n');
  assert.deepEqual(out.map((l) => l.length), [100, 99, 97, 21]);
  // 101 characters of prose are wrapped (s49: bench's legend and CPU lines, 110-160, were left whole under a 160 threshold):
  // "ab" 33 times is 33 · 3 − 1 = 98 characters, then "cd" on a line of its own, 4 in.
  assert.equal(PROSE_WIDTH, 100);
  assert.deepEqual(wrapLongLines(`${'ab '.repeat(33)}cd`).split('\n'), [`${'ab '.repeat(32)}ab`, '    cd']);
  assert.equal(out[1], `  Load: ${words.slice(0, 23).join(' ')}`);
  assert.equal(out[2], `      ${words.slice(23, 46).join(' ')}`);
  assert.equal(out[3], `      ${words.slice(46).join(' ')}`);
  // A table row (columns two spaces apart) stays whole at any length, as a sweep's 200-character rows.
  const row = ['tensor_parallel_size', ...Array.from({ length: 20 }, () => 'figure')].join('  ');
  assert.ok(row.length > PROSE_WIDTH);
  assert.equal(wrapLongLines(row), row);
  // A label and its value: continued at the value's column (20), the label's gap kept.
  const kv = `  KV pool           ${words.join(' ')}`;
  const kvOut = wrapLongLines(kv).split('\n');
  assert.equal(kvOut[0], `  KV pool           ${words.slice(0, 20).join(' ')}`); // 20 + 20 · 4 − 1 = 99
  assert.equal(kvOut[1], `${' '.repeat(20)}${words.slice(20, 40).join(' ')}`);
  assert.equal(kvOut[2], `${' '.repeat(20)}${words.slice(40).join(' ')}`);
  // A number stays with its unit: "51.2 ns/KV token" is not broken after 51.2 (s47: the Step time line's first wrap).
  const units = `Step time (modelled): max(${'x'.repeat(70)} + 51.2 ns/KV token, ${'z'.repeat(70)})`;
  assert.deepEqual(wrapLongLines(units).split('\n'), [`Step time (modelled): max(${'x'.repeat(70)} +`, `    51.2 ns/KV token, ${'z'.repeat(70)})`]);
  // A word longer than the width stays whole on its own line.
  assert.deepEqual(wrapLongLines(`a ${'y'.repeat(170)} b`).split('\n'), ['a', `    ${'y'.repeat(170)}`, '    b']);
});

test('limits and time scales in messages are grouped in thousands, decimals and exponents kept (s48 newcomer L4)', () => {
  // "workload.requests must be <= 10000000", "time scale 100000": written as every other count is.
  assert.equal(formatGrouped(10_000_000), '10,000,000');
  assert.equal(formatGrouped(16_777_216), '16,777,216');
  assert.equal(formatGrouped(0.95), '0.95');
  assert.equal(formatGrouped(1e300), '1e+300');
  assert.equal(formatGrouped(4096), '4,096');
  assert.equal(formatTimeScale(100_000), '100,000');
  assert.equal(formatTimeScale(2.5), '2.5');
});

test('formatBytesVs: a printed comparison reads true at the precision printed (s50 review: "needs 36 > 36 GiB")', () => {
  const GIB = 2 ** 30;
  // 38,654,705,664 B = 36 GiB exactly; 38,646,317,056 B = 35.9921875 GiB: "36" both at three digits, four give 35.99.
  assert.equal(formatBytesVs(38_654_705_664, 38_646_317_056), '36 > 35.99 GiB');
  // 36.0000001 GiB against 36 GiB: digits until they part (36.0000001 at 9 significant digits).
  assert.equal(formatBytesVs(36 * GIB + 108, 36 * GIB), '36.0000001 > 36 GiB');
  // Equal figures (a budget of exactly 0): "=", never ">".
  assert.equal(formatBytesVs(36 * GIB, 36 * GIB), '36 = 36 GiB');
  // Three digits where they already differ; the unit once where both share it, else each its own.
  assert.equal(formatBytesVs(79.5 * GIB, 71.3 * GIB), '79.5 > 71.3 GiB');
  assert.equal(formatBytesVs(1010 * 2 ** 20, GIB), '1,010 MiB < 1 GiB');
});

test('vllmConcurrencyLine quotes vLLM\'s start-up line in its own format: the length grouped, the factor %.2f without grouping', () => {
  // vllm/v1/core/kv_cache_utils.py: "Maximum concurrency for %s tokens per request: %.2fx" with f"{max_model_len:,}".
  // 1,952 pages / 512 per request = 3.8125 -> "3.81x"; 4,470.123 -> "4470.12x" (formatConcurrency writes 4,470.12x).
  assert.equal(vllmConcurrencyLine(8192, 1952 / 512), 'Maximum concurrency for 8,192 tokens per request: 3.81x');
  assert.equal(vllmConcurrencyLine(512, 4470.123), 'Maximum concurrency for 512 tokens per request: 4470.12x');
});

test('wrapLongLines: a YAML comment line over 100 characters continues as comment lines at its indent (s51: the --calibrate snippet\'s comments wrapped into plain text)', () => {
  const line = `  # not determined by this data: overhead_ms, compute_efficiency, memory_efficiency (see below); paste it, or set them yourself`;
  const out = wrapLongLines(line).split('\n');
  assert.deepEqual(out, ['  # not determined by this data: overhead_ms, compute_efficiency, memory_efficiency (see below);', '  # paste it, or set them yourself']);
  for (const l of out) assert.ok(l.length <= 100);
});

test('formatFactorAsWritten: two decimals where they give the value back, else the value as written (s53 nc-cli 20)', () => {
  assert.equal(formatFactorAsWritten(0.9), '0.90');
  assert.equal(formatFactorAsWritten(1), '1.00');
  assert.equal(formatFactorAsWritten(0.0001), '0.0001');
  assert.equal(formatFactorAsWritten(0.925), '0.925');
});
