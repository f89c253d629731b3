/** The latency part of `attnscope simulate`'s text output, and the capacity search's curve. */
import { BENCHMARK_DURATION, formatAttainmentTarget, formatCount, formatCountOf, formatDuration, formatPercent, formatRequestRate, formatRequestRates, formatTimeScale, boundToWrite, OVERLOAD_MIN_SHARE, percentileName, QUEUE_GROWS, sloMet, sloNearIdleNote, sloVerdict, formatAttainedBelow } from '../../core/format';
import { EXIT_SLO_MISSED } from '../../core/protocol/runner';
import type { PoolResult } from '../../core/protocol/run';
import { renderTable } from '../../core/textTable';
import { SLO_ATTAINMENT_DEFAULT, type CapacityCurve, type LatencySlo, type LatencyStats, type LatencySummary } from '../../core/protocol/latency';

/** A latency given in seconds, in the unit its size needs (core/format formatDuration: "42.5 ms", "3.27 h"). */
const dur = (s: number): string => formatDuration(s * 1e9);
const int = formatCount;
const rate = formatRequestRate;

/** "TTFT <= 500 ms, TPOT <= 50 ms". */
export function formatSlo(slo: LatencySlo): string {
  const parts: string[] = [];
  if (slo.ttftMs !== undefined) parts.push(`TTFT <= ${slo.ttftMs} ms`);
  if (slo.tpotMs !== undefined) parts.push(`TPOT <= ${slo.tpotMs} ms`);
  return parts.join(', ');
}

/**
 * Why a simulation's SLO question is answered no, in words (one line, without "attnscope: "), or null:
 * with --max-rate (`pool.capacity`), when no rate tried meets the SLO (`capacity.maxRate` null); else, with an
 * SLO (`pool.latency.slo`), when the share of requests meeting it (`latency.sloAttainment`) is below its
 * target (`latency.slo.attainment`, default 0.9: core/format.ts sloMet). Null without an SLO, Overloaded or
 * not. The CLI exits EXIT_SLO_MISSED (3) on it (core/protocol/runner.ts).
 */
export function sloMissedLine(pool: PoolResult): string | null {
  const c = pool.capacity;
  if (c) return c.maxRate === null ? `no rate tried meets the SLO (${formatSlo(c.slo)} for ${formatAttainmentTarget(c.attainmentTarget)} of requests); exit status ${EXIT_SLO_MISSED}` : null;
  const l = pool.latency;
  if (!l?.slo || sloMet(l.slo, l.sloAttainment)) return null;
  return `the SLO is not met: ${formatAttainedBelow(l.sloAttainment ?? 0, l.slo.attainment ?? SLO_ATTAINMENT_DEFAULT)} of requests meet ${formatSlo(l.slo)}, ${formatAttainmentTarget(l.slo.attainment ?? SLO_ATTAINMENT_DEFAULT)} asked; exit status ${EXIT_SLO_MISSED}`;
}

/**
 * Lines: the percentile table (each time in the unit its size needs) of queueing delay, TTFT, TPOT and end-to-end; throughput,
 * goodput, and the waiting queue. Every figure is labelled modelled (the simulator's clock).
 */
export function formatLatency(l: LatencySummary, meanWaiting: number | undefined, peakWaiting: number | undefined, perEngine = false): string[] {
  const header = ['latency (modelled)', 'mean', 'p50', 'p90', 'p99', 'max'];
  const row = (name: string, x: LatencyStats | null): string[] => (x ? [name, dur(x.mean), dur(x.p50), dur(x.p90), dur(x.p99), dur(x.max)] : [name, 'n/a', 'n/a', 'n/a', 'n/a', 'n/a']);
  const rows = [row('queueing delay', l.queue), row('TTFT', l.ttft), row('TPOT', l.tpot), row('end-to-end', l.e2e)];
  const lines = renderTable(header, rows, header.map((_, c) => c > 0), { rule: false }).split('\n');
  // One line per distinct reason: "n/a: TTFT, TPOT, …: no request completed: all 20 were rejected".
  const reasons = new Map<string, string[]>();
  const names = { queue: 'queueing delay', ttft: 'TTFT', tpot: 'TPOT', e2e: 'end-to-end' } as const;
  for (const k of ['queue', 'ttft', 'tpot', 'e2e'] as const) {
    const why = l.unmeasured?.[k];
    if (why) reasons.set(why, [...(reasons.get(why) ?? []), names[k]]);
  }
  for (const [why, which] of reasons) lines.push(`n/a (${which.join(', ')}): ${why}`);
  lines.push(`Throughput (modelled): ${rate(l.requestsPerSec)} requests/s, ${rate(l.outputTokensPerSec)} output tokens/s over ${formatCountOf(l.requests, 'completed request')}, divided by ${BENCHMARK_DURATION}`);
  if (l.slo && l.goodputRequestsPerSec !== undefined) {
    lines.push(`Goodput (modelled): ${rate(l.goodputRequestsPerSec)} requests/s meet ${formatSlo(l.slo)} (${[`${formatPercent(l.sloAttainment ?? 0)} of all requests`, sloVerdict(l.slo, l.sloAttainment, l.requests)].filter((x) => x).join('; ')})`);
  } else {
    lines.push('Goodput: no SLO given (profile `slo: { ttft_ms, tpot_ms }`, or --slo-ttft-ms / --slo-tpot-ms)');
  }
  if (meanWaiting !== undefined) {
    // Waiting is counted after each step's admissions (simulator.cc, step 3): a request that arrives
    // during a step and is admitted at the next one is never counted, though its queueing delay
    // (arrival to the start of the step that admits it) holds its wait for the step in flight.
    // The Kept up line's "still waiting" at the last arrival leaves such an arrival out too since s52
    // (s47 newcomer LOW-6: "1 of the 6 still waiting" beside "0 at most" read as a contradiction).
    lines.push(`Queue${perEngine ? ' (per engine)' : ''}: ${meanWaiting >= 999.5 ? formatCount(meanWaiting) : meanWaiting.toPrecision(3)} requests queued after a step's admissions on average, ${int(peakWaiting ?? 0)} at most (an arrival during a step, admitted at the next, is not counted here); queueing delay (arrival to the step that admits it, the step in flight included) p99 ${l.queue ? formatDuration(l.queue.p99 * 1e9) : 'n/a'}`);
  }
  lines.push('TTFT = arrival to the first output token; TPOT = mean gap between later tokens; times run on the modelled step time.');
  return lines;
}

/**
 * Where no rate passed: the bound each SLO term would need at the lowest rate tried, its p99 there
 * (a nearly idle server's; p99 >= the percentile any attainment up to 99 % asks, so a bound at it
 * passes that term there), as the sweep report's no-best line says (s49 newcomer L7: "TTFT <= 0.001 ms"
 * missed at 0.0117 requests/s, p99 TTFT 104 ms, unnamed). '' when no term's p99 is over its bound.
 */
function idleBounds(c: CapacityCurve): string {
  const low = c.points.reduce<CapacityCurve['points'][number] | null>((b, p) => (b === null || p.rate < b.rate ? p : b), null);
  if (!low) return '';
  const terms = ([['TTFT', 'slo.ttft_ms', low.p99TtftS, c.slo.ttftMs], ['TPOT', 'slo.tpot_ms', low.p99TpotS, c.slo.tpotMs]] as const)
    .filter(([, , at, bound]) => at !== null && bound !== undefined && at * 1000 > bound)
    .map(([name, key, at]) => `p99 ${name} ${formatDuration(at! * 1e9)} (${key} >= ${boundToWrite(at! * 1000)} would hold ${name} there)`);
  return terms.length === 0 ? '' : ` At the lowest rate, ${formatRequestRate(low.rate)} requests/s: ${terms.join(', ')}.`;
}

/**
 * The capacity search: one line per rate tried, in order, then the answer. Every rate (those tried,
 * μ, the answer) as core/format.ts formatRequestRate writes it, as the sweep table, the cost line and
 * the Kept up line write the same figures (s46: "30.05" here, "30.1" there): 3 significant digits,
 * finer than the search's default 2 % tolerance. `dataParallelSize`:
 * the profile's device.data_parallel_size, whose μ is one engine's times it (capacity.ts saturatedThroughput).
 */
export function formatCapacity(c: CapacityCurve, dataParallelSize = 1): string {
  // The TTFT and TPOT columns at the percentile judged (p90 at the default 0.9 attainment), so a passing row's
  // figures are within the bounds; a curve saved before s53 has only the p99s (s53 newcomer F3: "p99 TPOT 34.3 ms
  // ... pass" under TPOT <= 30 ms, judged at 90 %).
  const judged = c.points.every((p) => p.ttftAtTargetS !== undefined && p.tpotAtTargetS !== undefined);
  const pct = judged ? percentileName(c.attainmentTarget) : 'p99';
  const ms = (s: number | null | undefined) => (s === null || s === undefined ? 'n/a' : dur(s));
  const header = ['rate (req/s)', 'time scale', `${pct} TTFT`, `${pct} TPOT`, 'goodput (req/s)', 'meets SLO', 'keeps up', 'verdict'];
  // Rates that print alike but differ (a bisection's point and the 3-digit rate rounded from it) get the digits that tell them apart.
  const rates = formatRequestRates(c.points.map((p) => p.rate));
  const rows = c.points.map((p, i) => [rates[i]!, formatTimeScale(p.scale), ms(judged ? p.ttftAtTargetS : p.p99TtftS), ms(judged ? p.tpotAtTargetS : p.p99TpotS), rate(p.goodputRequestsPerSec), formatPercent(p.sloAttainment), p.keepsUp === false ? 'no' : 'yes', p.meets ? 'pass' : 'fail']);
  const lines = [
    `Capacity search (modelled): ${formatSlo(c.slo)} for at least ${formatAttainmentTarget(c.attainmentTarget)} of requests (${judged ? `the ${pct} columns` : 'judged on each request; the columns are p99s'}${c.attainmentTarget < 0.99 ? '; a p99 bound is --slo-attainment 0.99' : ''}), and the server keeping up; bisection to a relative tolerance of ${formatPercent(c.tolerance)}`,
    c.saturatedRate
      ? `Saturated throughput μ = ${rate(c.saturatedRate)} requests/s (modelled: served requests completed per second over the middle half of the load's requests, rejected ones left out, the higher of two runs (the second's where over 1 % higher): all queued at 0 s, and arriving one by one at 1.2 times that run's rate, which breaks up the waves equal lengths start in${dataParallelSize > 1 ? `; one engine's, times data_parallel_size ${dataParallelSize}: vLLM's engines share nothing once a request is dispatched, so saturated they complete the sum of their rates` : ''}); a rate above it does not keep up (${QUEUE_GROWS}, however short the trace) and fails`
      : 'Saturated throughput: not measured (fewer than 8 requests completed in the saturation run): rates are judged on the SLO alone',
  ];
  if (c.requestsPerEngine !== undefined) {
    const share = c.requestsPerEngine;
    // One engine (s49): its share is the whole run, said without "each of the 1 engines".
    const few = dataParallelSize === 1
      ? `Each rate's run has ${formatCountOf(Math.round(share), 'request')}: too few for a queue to show (the overload test asks 2 waiting and over 5 %, of ${OVERLOAD_MIN_SHARE} requests or more), `
      : `Each rate's run gives each of the ${formatCount(dataParallelSize)} engines ${share < 10 ? share.toPrecision(2) : formatCount(Math.round(share))} requests on average (${formatCountOf(Math.round(share * dataParallelSize), 'request')}): too few for a queue to show (the overload test asks 2 waiting and over 5 %, an engine's share of ${OVERLOAD_MIN_SHARE} or more), `;
    lines.push(
      few +
        `so a rate keeps up when it is at most μ, and its TTFT and TPOT are those of a nearly idle engine, not a steady state's: ${formatCountOf(OVERLOAD_MIN_SHARE * dataParallelSize, 'request')} or more (workload.requests, or a longer trace) would tell`,
    );
  }
  // Past the table width (100 piped; core/textTable.ts tableWidth): stacked parts, each repeating the rate.
  lines.push(...renderTable(header, rows, header.map(() => true), { rule: false }).split('\n'));
  if (c.points.some((p) => p.askedRate !== undefined)) lines.push("rate = each run's offered rate, (requests − 1) / span of its drawn arrivals, as its Load line counts it (workload.arrival_rate × time scale asks a little more or less: the draws)");
  if (c.unbounded) {
    lines.push(`Every rate tried meets the SLO, up to ${rate(c.maxRate!)} requests/s, where all requests arrive within one step, and the saturated throughput could not be measured: the load is too small to find the limit (a longer trace or more workload requests would).`);
    return lines.join('\n');
  }
  if (c.maxRate === null) {
    lines.push(`No rate tried meets the SLO: even the lowest load misses it (the step time alone is too long, or requests are rejected); the search stops once halving the rate no longer changes the p99s.${idleBounds(c)}`);
    return lines.join('\n');
  }
  const atIndex = c.points.findIndex((p) => p.meets && p.rate === c.maxRate);
  const at = atIndex >= 0 ? c.points[atIndex] : undefined;
  // The answer as its row prints it (more digits where another row would print alike).
  const answerRate = at ? rates[atIndex]! : rate(c.maxRate);
  // A drawn workload's offered rate beside the rate asked of it (arrival_rate × time scale), the one a load generator is given.
  const asked = at?.askedRate;
  const answer = asked !== undefined
    ? `${answerRate} requests/s offered (${rate(asked)} asked: workload.arrival_rate × time scale ${formatTimeScale(c.maxScale!)})`
    : `${answerRate} requests/s (time scale ${formatTimeScale(c.maxScale!)})`;
  // μ and the server's rates count served requests only: where some offered ones are rejected, the answer says how many and what is served.
  const refused = at?.rejected
    ? `; of these ${formatPercent(at.rejected)} are rejected (a prompt that reaches max_model_len, or more pages than the pool holds: vLLM refuses them), so the server serves ${rate(at.rate * (1 - at.rejected))} requests/s`
    : '';
  lines.push(
    c.limit === 'capacity'
      ? `Highest rate the server keeps up with: ${answer}${refused}; capacity is the limit, not the SLO: ${at ? `${formatPercent(at.sloAttainment)} of requests meet the SLO there, and ` : ''}no rate above the saturated throughput μ keeps up`
      : `Highest rate meeting the SLO: ${answer}${refused}; the SLO is the limit${c.saturatedRate ? `: the server keeps up to μ = ${rate(c.saturatedRate)} requests/s${at?.rejected ? ' served' : ''}` : ''}`,
  );
  const idle = sloNearIdleNote(c);
  if (idle) lines.push(`${idle[0]!.toUpperCase()}${idle.slice(1)}.`);
  return lines.join('\n');
}
