/** Text summary of a pool simulation for `attnscope simulate` (stdout). */
import { contiguousNotSimulatedText, dataParallelDeployment, dataParallelEngines, deployedGpuCount, dpScopeText, formatCount, formatCountOf, formatDuration, formatLoad, formatLoadSource, formatPercent, formatRequestRate, wrapLine, formatUsd, formatUsdCost, gpuHourUsdText, poolCost, searchedRate, tpotOverheadNote } from '../../core/format';
import type { DeviceSpec } from '../../core/config/types';
import type { PoolResult, StepTimeModel } from '../../core/protocol/run';
import { formatLatency } from './latency-format';
import { renderTable } from '../../core/textTable';

const pct = (x: number): string => formatPercent(x);
/** A mean count: 1 decimal, 3 significant digits below 10 (0.0431, not 0.0). */
const mean = (x: number): string => (x > 0 && x < 10 ? x.toPrecision(3) : x.toFixed(1));
const int = formatCount;

/** Seconds as core/format writes durations. */
const seconds = (s: number): string => formatDuration(s * 1e9);

const BASELINE_LABEL: Record<string, string> = {
  contiguous_max_model_len: 'contiguous, max_model_len each',
  contiguous_prompt_plus_output: 'contiguous, prompt + output each',
};

/**
 * The cost line of a simulation whose profile prices its GPU (device.gpu_hour_usd): the modelled $
 * per million output tokens (core/format.ts poolCost: price × GPUs / 3600 / output tokens/s × 10^6,
 * at the steady rate of core/format.ts steadyOutput), said to be modelled, at the user's price, and
 * at which rate; null without a price or with no output; for a capacity search no rate passed (its
 * figures are those of a failing rate) the line says there is no cost, and why (s45 newcomer LOW: it was left out silently).
 * Llama-3.1-8B on one H100 SXM at 24 requests/s offered (kept up), 272 output tokens a request, $2.49:
 * 2.49 / 3600 / (24 × 272) × 10^6 = $0.106.
 */
export function costLine(result: PoolResult, device: Pick<DeviceSpec, 'gpuHourUsd' | 'tensorParallelSize' | 'pipelineParallelSize' | 'dataParallelSize'>): string | null {
  const c = poolCost(result, device.gpuHourUsd, deployedGpuCount(device));
  if (!c && device.gpuHourUsd !== undefined && result.capacity?.maxRate === null) return `Cost: none at ${gpuHourUsdText(device.gpuHourUsd)}: no rate tried meets the SLO, so there is no max rate to price (the figures above are a failing rate's)`;
  if (!c) return null;
  const rate = c.requestsPerSec === undefined ? '' : formatRequestRate(c.requestsPerSec);
  const at = c.basis === 'max-rate'
    ? ` at the max rate, ${rate} requests/s`
    : c.basis === 'offered'
      ? ` at the offered ${rate} requests/s, which the server keeps up with`
      : c.basis === 'saturated'
        ? ` at the saturated throughput μ, ${rate} requests/s (the offered rate is above it)`
        : ` of this run: its output tokens / (0 s to the last request's end), ramp-up and drain included (${result.load?.offeredRequestsPerSec === null ? 'all requests at one instant' : result.load?.overloaded ? 'overloaded, and μ not measured' : result.load?.inFlightAtLastArrival !== undefined ? 'too short to tell whether the server keeps up, and μ not measured' : 'a run saved before s44: no steady rate recorded'})`;
  const tokens = c.requestsPerSec === undefined
    ? `${formatCount(c.outputTokensPerSec)} output tokens/s`
    : `(${rate} requests/s × ${formatCount(c.meanOutputTokens!)} output tokens a request, the run's mean, ${shownProductSign(rate, c.meanOutputTokens!, c.outputTokensPerSec)} ${formatCount(c.outputTokensPerSec)} output tokens/s)`;
  return `Cost (modelled, at ${gpuHourUsdText(c.gpuHourUsd)}): ${formatUsdCost(c.usdPerMillionOutputTokens)} per 1M output tokens${at} = ${formatUsd(c.gpuHourUsd)} × ${formatCountOf(c.gpus, 'GPU')} / 3600 s / ${tokens} × 10^6`;
}

/**
 * "=" where the factors as shown (a rate to 3 significant digits, a whole token count) multiply to
 * the product as shown, else "≈" (s47 newcomer LOW-2: "24.0 requests/s × 272 = 6,521", 24.0 × 272 = 6,528).
 */
function shownProductSign(rateShown: string, tokens: number, product: number): '=' | '≈' {
  return formatCount(Number(rateShown.replace(/,/g, '')) * Math.round(tokens)) === formatCount(product) ? '=' : '≈';
}

/** The line in place of the step-time derivation when it is not asked for. */
export const STEP_TIME_EXPLAIN_HINT = 'how each figure is derived (peaks, sources, coefficients): --explain (a --json file holds it too)';

/**
 * The timeline summary and both baselines as a fixed-width table:
 * the pool, request counts, the workload simulated and its load (offered and
 * served rates; whether the server kept up), then one row per allocation scheme (useful-token
 * fraction, internal and external fragmentation, mean / peak running sequences,
 * rejected-or-delayed requests), then paging's occupancy, preemptions and prefix-cache hits, the
 * latency figures, and, when `device` prices its GPU (device.gpu_hour_usd), the cost line ({@link costLine});
 * last, after a blank line, the step-time model (its formula with the figures, what was measured or
 * left out, and its derivation, which for an MLA or tensor-parallel model runs to ~40 lines: with
 * `options.explain` false, the CLI's default, one line naming --explain instead; left out, the
 * whole derivation, as the unit tests read it).
 */
export function formatPoolSummary(result: PoolResult, device?: Parameters<typeof costLine>[1], options: { explain?: boolean } = {}): string {
  const s = result.summary;
  const lines: string[] = [];
  // One token figure for the pool, the estimate's and vLLM's "GPU KV cache size" (PoolResult.poolTokens):
  // a hybrid pool's blocks hold a token in each group, so its tokens are not its pages × page_size.
  const tokens = result.poolTokens ?? result.numPages * result.pageSize;
  // Under data parallelism the pool is one engine's, each engine its own (s42 newcomer 10: unlabelled).
  const pool = result.dataParallel ? `KV pool (each engine's, the same on all ${result.dataParallel.size}):` : 'KV pool:';
  lines.push(result.poolBlocks !== undefined
    ? result.numPages === result.poolBlocks && result.poolGroups !== undefined
      ? `${pool} ${formatCountOf(result.poolBlocks, 'block')} of ${formatCountOf(result.pageSize, 'token')} in ${result.poolGroups} KV-cache groups; floor(${formatCount(result.poolBlocks)} / ${result.poolGroups}) × ${formatCount(result.pageSize)} = ${formatCountOf(tokens, 'token')} (vLLM's "GPU KV cache size" divides the blocks by every group); simulated block by block`
      : `${pool} ${formatCountOf(result.poolBlocks, 'block')} of ${formatCountOf(result.pageSize, 'token')}, ${formatCountOf(tokens, 'token')} (vLLM's "GPU KV cache size"); simulated as ${formatCountOf(result.numPages, 'page')}, one full-attention block each (a run saved before every group was charged)`
    : `${pool} ${formatCountOf(result.numPages, 'page')} × ${formatCountOf(result.pageSize, 'token')} = ${formatCountOf(tokens, 'token')}`);
  if (result.poolLayout) lines.push(`  ${result.poolLayout}`);
  // The step-time model after the results (s48 newcomer M5: for DeepSeek-V3 at tp 8 its formula and
  // derivation were ~45 lines, 4,000 characters, before the first result): pushed at the end.
  const stepLines: string[] = [];
  if (result.stepTime) {
    const m = result.stepTime;
    // The formula first (s47: a tensor-parallel profile's qualifiers came before it, 170 characters in); what was measured and left out on the line after it.
    const measured = m.measured && m.measured.length > 0 ? `${m.measured.map((c) => c.coefficient).join(', ')} measured` : '';
    const unmodelled = m.unmodelled && m.unmodelled.length > 0 ? `${m.unmodelled.join(', ')} not modelled` : '';
    const qualifiers = [measured, unmodelled].filter((q) => q).join('; ');
    // The derivation (m.source: peaks and their sources, the coefficients, what each term stands for)
    // runs to ~40 lines for an MLA or tensor-parallel model (s48 newcomer M5): printed with `explain`
    // (the CLI's --explain); otherwise one line says where it is.
    stepLines.push(...stepTermLines(m), ...(qualifiers ? wrapLine(`  ${qualifiers}`, { keepUnits: true }) : []), options.explain === false ? `  ${STEP_TIME_EXPLAIN_HINT}` : `  ${m.source}`);
  }
  // With a latency section its throughput line says the output throughput (the same figure as
  // s.throughputTokensPerSec, vLLM's definition): once.
  lines.push(
    `Requests: ${int(s.requests)} (completed ${int(s.completed)}, rejected ${int(s.rejected)}); ` +
      `${seconds(s.simulatedSeconds)} of simulated serving${result.latency ? '' : `; ${int(s.throughputTokensPerSec)} output tokens/s`}`,
  );
  // Data parallelism: the engines, how the requests were spread over them, and each one's share.
  const dp = result.dataParallel;
  if (dp) {
    lines.push(
      `Data parallel ${dp.size}: ${dataParallelDeployment(dp)}, each this pool and scheduler; ${dp.dispatch}; ${dpScopeText(dp)}`,
      `  ${dataParallelEngines(dp)}`,
    );
  }
  // What was simulated (a trace, or the profile's workload drawn) and whether the server kept up with it.
  // Wrapped here at the prose width (core/format wrapLine: core/textTable.ts proseWidth, as wrapLongLines would), so
  // the summary stays within 100 columns, and a narrower terminal's, wherever it is printed (s48 newcomer L5: the Load line was 330 in bench's table,
  // a trace's Workload line 132).
  if (result.load) lines.push(...[`Workload: ${formatLoadSource(result.load)}`, ...formatLoad(result.load, s, searchedRate(result))].flatMap((l) => wrapLine(l, { keepUnits: true })));
  lines.push('');
  const perEngine = dp ? '/engine' : '';
  const header = ['allocation (modelled)', 'useful tokens', 'internal frag', 'external frag', `mean running${perEngine}`, `peak running${perEngine}`, 'rejected/delayed'];
  const rows: string[][] = [
    [`paged (${result.pageSize}-token pages)`, pct(s.usefulTokenFraction), pct(s.meanInternalFragmentation), '-', mean(s.meanConcurrency), int(s.peakConcurrency), int(s.rejected + (s.delayed ?? 0))],
    ...result.baselines.map((b) => [
      BASELINE_LABEL[b.name] ?? b.name,
      pct(b.usefulTokenFraction),
      pct(b.internalFragmentation),
      pct(b.externalFragmentation),
      mean(b.meanConcurrency),
      int(b.peakConcurrency),
      int(b.rejectedOrDelayed),
    ]),
  ];
  // Past the table width (core/textTable.ts tableWidth: 100 piped): stacked parts, each repeating the allocation.
  lines.push(...renderTable(header, rows, header.map((_, c) => c > 0), { rule: false }).split('\n'));
  // Said, not left out silently (s41 newcomer F11): simulateDataParallel runs the paged pool only.
  if (dp) lines.push(`(${contiguousNotSimulatedText(dp.size)})`);
  lines.push('');
  lines.push(
    `Paging (modelled): occupancy${dp ? ' per engine' : ''} mean ${pct(s.meanOccupancy)}, peak ${pct(s.peakOccupancy)}${dp ? ' (the busiest engine)' : ''}; ` +
      `preemptions${dp ? ' (all engines)' : ''} ${int(s.preemptions)}${s.preemptedTokens ? ` (${int(s.preemptedTokens)} KV tokens to recompute, ${int(s.preemptedTokensCached ?? 0)} of them found again in the cache)` : ''}`,
    `Prefix cache (modelled): ${pct(s.prefixHitRate)} of prompt tokens shared between requests (hits at first admission / prompt tokens)`,
  );
  lines.push(
    'useful tokens = KV slots holding a token / slots reserved, time-averaged; internal frag = the rest: reserved, empty.',
    'external frag = free slots while the next request waited though enough were free in total (split into holes), / all slots.',
    'rejected/delayed = requests that could never fit, plus those that waited for memory. occupancy = pages held / pages in pool.',
  );
  // A TPOT SLO judged at small batch with no per-step overhead: the note the dashboard's Run tab and a sweep's best line show too (core/format).
  const note = tpotOverheadNote(result);
  if (result.latency) lines.push('', ...formatLatency(result.latency, s.meanWaiting, s.peakWaiting, dp !== undefined), ...(note ? [`Note: ${note}`] : []));
  const cost = device ? costLine(result, device) : null;
  if (cost) lines.push('', cost);
  if (stepLines.length > 0) lines.push('', ...stepLines);
  return lines.join('\n');
}

/**
 * The label of the step formula's plain all-reduce term (perTokenAllReduceS): the token counts it
 * applies to, those outside the one-shot, multimem and ring bands, and what runs there (two-shot:
 * vLLM's custom or symmetric-memory kernel, or NCCL's ring below its large-message band), e.g. " (16
 * to 511 tokens, two-shot or NCCL ring)" for Llama-3.1-70B at tp 8 on A100 80GB (on H100 SXM the
 * bands cover every size: one-shot to 15 tokens, multimem to 4,096, the ring from 4,097). An empty
 * string at tp 1; null where the other bands cover every step size, so the plain term applies to none
 * and is left out of the line (s45 newcomer MEDIUM-2: a described GPU at tp 2, one-shot to 1,023
 * tokens and the ring from 1,024, printed an empty band "1,024 to 1,023 tokens").
 */
function twoShotBand(m: StepTimeModel): string | null {
  if (!m.allReduceS) return '';
  const one = m.perTokenOneShotAllReduceS ? m.oneShotAllReduceTokens ?? 0 : 0;
  const lo = m.perTokenMultimemAllReduceS ? m.multimemAllReduceMinTokens ?? 0 : 0;
  const hi = m.perTokenMultimemAllReduceS ? m.multimemAllReduceMaxTokens ?? 0 : 0;
  // The ring's large-message band takes the steps from ringAllReduceMinTokens on ({@link ringBand}); this rate those below it.
  const ring = m.perTokenRingAllReduceS ? m.ringAllReduceMinTokens ?? 0 : 0;
  // The steps from `from` up to the ring's band, or null where that range is empty (the ring's band starts right after).
  const upTo = (from: number, what: string) => (ring === 0 ? `above ${formatCount(from - 1)} tokens, ${what}` : ring > from ? `${formatCount(from)} to ${formatCount(ring - 1)} tokens, ${what}` : null);
  if (hi > 0) {
    const parts = [...(lo > one + 1 ? [`${formatCount(one + 1)} to ${formatCount(lo - 1)} tokens, two-shot`] : []), upTo(hi + 1, 'NCCL ring') ?? []].flat();
    return parts.length > 0 ? ` (${parts.join('; ')})` : null;
  }
  // No one-shot band: vLLM's custom all-reduce is off (step-time.ts allReduceLink: its one-shot runs wherever it is on), NCCL's ring alone (s44 newcomer L1).
  if (one > 0) {
    const band = upTo(one + 1, 'two-shot or NCCL ring');
    return band === null ? null : ` (${band})`;
  }
  return ring > 1 ? ` (up to ${formatCount(ring - 1)} tokens, NCCL ring)` : ring === 1 ? null : ' (NCCL ring)';
}

/** The all-reduces' per-token terms: the plain one with its band, or, where the bands after it cover every step size, none (twoShotBand). */
function allReducePlainTerm(m: StepTimeModel): string {
  const band = twoShotBand(m);
  return band === null ? ' + per token by step size' : ` + ${seconds(m.perTokenAllReduceS ?? 0)}/token${band}`;
}

/**
 * NCCL's large-message band of the step formula (perTokenRingAllReduceS from ringAllReduceMinTokens on, its latency ringAllReduceS
 * where it differs from allReduceS), or '': its ring's, or NVLink SHARP's on NVSwitch boards at 5-8 GPUs (step-time.ts
 * nvlsAllReduce), which the Step time line names; "NCCL" here for both (the model's band has the same two fields either way).
 */
function ringBand(m: StepTimeModel): string {
  const latency = m.ringAllReduceS !== undefined && m.ringAllReduceS !== m.allReduceS ? `, ${seconds(m.ringAllReduceS)} in place of ${seconds(m.allReduceS ?? 0)}` : '';
  return m.perTokenRingAllReduceS && m.ringAllReduceMinTokens ? ` (${seconds(m.perTokenRingAllReduceS)}/token from ${formatCount(m.ringAllReduceMinTokens)} tokens${latency}, NCCL at its large-message rate)` : '';
}

/** One step's modelled time as its terms (runner/simulate/step-time.ts StepTimeModel), each the figures of m in words. */
interface StepTerms {
  /** The fixed time a step (step_time.overhead_ms), null when 0 (the assumed overhead is no term). */
  overhead: string | null;
  /** What a step reads: the weights, the KV cache per token, recurrent state and MLA context per request or token. */
  memory: string;
  /** What a step computes: the GEMMs per token, lm_head per request, attention per query-key pair. */
  compute: string;
  /** The tensor-parallel all-reduces after the max, by step size; null without tensor parallelism. */
  allReduces: string | null;
}

/**
 * One step's terms, step = overhead + max(memory, compute) + all-reduces, with m's coefficients: the
 * memory arm's full layers' terms, then the sliding-window (or chunked) layers' over their window
 * (chunk), then the recurrent state read and written per request; the compute arm's tokens, lm_head
 * and query-key pairs.
 */
function stepTerms(m: StepTimeModel): StepTerms {
  const window = m.slidingWindow
    ? ` in the ${formatCount(m.slidingWindow)}-token window`
    : m.attentionChunkSize ? ` in the query's ${formatCount(m.attentionChunkSize)}-token chunk` : '';
  const slidingKv = window ? ` + ${seconds(m.perSlidingKvTokenS ?? 0)}/KV token${window}` : '';
  const slidingPairs = window ? ` + ${seconds(m.perSlidingPairS ?? 0)}/query-key pair${window}` : '';
  // A layer type the model lacks is no term: a model whose every layer slides (Mistral-7B-v0.1)
  // has no full-attention term, where it printed '0 s/KV token' and '0 s/query-key pair'.
  const fullKv = window && m.perKvTokenS === 0 ? '' : ` + ${seconds(m.perKvTokenS)}/KV token`;
  // MLA: prefill and decode pairs at their own cost (perDecodePairS; a stage always has one, equal to perPairS but for MLA).
  const fullPairs = window && m.perPairS === 0
    ? ''
    : m.perDecodePairS !== undefined && m.perDecodePairS !== m.perPairS
      ? ` + ${seconds(m.perPairS)}/prefill query-key pair + ${seconds(m.perDecodePairS)}/decode query-key pair`
      : ` + ${seconds(m.perPairS)}/query-key pair`;
  const memory = `${seconds(m.weightsS)}${m.decodeWeightsS ? ` + ${seconds(m.decodeWeightsS)} with decode tokens (W_UK_T, W_UV) + ${seconds(m.prefillWeightsS ?? 0)} with prefill tokens (kv_b_proj)` : ''}${m.expertWeightsS ? ` + ${seconds(m.expertWeightsS)} × (1 − (1 − ${m.numExpertsPerTok}/${m.numExperts})^tokens)` : ''}${fullKv}${slidingKv}` +
    // Recurrent-state layers: each scheduled request's state read and written (perRequestStateS).
    `${m.perRequestStateS ? ` + ${seconds(m.perRequestStateS)}/request (recurrent state)` : ''}` +
    // MLA: a prefill chunk's context K/V up-projected, written and read again (perPrefillContextKvS).
    `${m.perPrefillContextKvS ? ` + ${seconds(m.perPrefillContextKvS)}/prefill context token (MLA K/V)` : ''}`;
  // MLA W8A8: decode tokens at their own cost (perDecodeTokenS); MLA: the prefill context's up-projection.
  const compute = `${seconds(m.perTokenS)}/${m.perDecodeTokenS !== undefined && m.perDecodeTokenS !== m.perTokenS ? `prefill token + ${seconds(m.perDecodeTokenS)}/decode token` : 'token'}` +
    `${m.perPrefillContextTokenS ? ` + ${seconds(m.perPrefillContextTokenS)}/prefill context token (MLA kv_b_proj)` : ''}` +
    `${m.perLogitsS ? ` + ${seconds(m.perLogitsS)}/request (lm_head)` : ''}${fullPairs}${slidingPairs}`;
  // Tensor parallelism: the all-reduces after the max (allReduceS + tokens · perTokenAllReduceS; one-shot up to oneShotAllReduceTokens).
  const allReduces = m.allReduceS
    ? `${seconds(m.allReduceS)}${allReducePlainTerm(m)}${m.perTokenOneShotAllReduceS ? ` (${seconds(m.perTokenOneShotAllReduceS)}/token up to ${formatCount(m.oneShotAllReduceTokens ?? 0)} tokens, one-shot)` : ''}` +
      `${m.perTokenMultimemAllReduceS ? ` (${seconds(m.perTokenMultimemAllReduceS)}/token from ${formatCount(m.multimemAllReduceMinTokens ?? 0)} to ${formatCount(m.multimemAllReduceMaxTokens ?? 0)} tokens, multimem)` : ''}${ringBand(m)}`
    : null;
  // A zero overhead (the assumed one) is no term: 'max(...)', not '0 s + max(...)'.
  return { overhead: m.perStepS > 0 ? seconds(m.perStepS) : null, memory, compute, allReduces };
}

/**
 * The step-time block's lines for model m (s49 cli's left item: one wrapped expression of up to 7
 * lines for DeepSeek-V3 at tp 8): a header naming the terms, "Step time (modelled) = overhead +
 * max(memory, compute) + all-reduces" (each term only where the model has it), then one line a term,
 * "  memory: 5.84 ms + 23.5 µs/KV token", each wrapped at 100 columns with its figures kept whole.
 * Under pipeline parallelism the header says "of each of the 2 pipeline stages", each stage's terms come in
 * turn ("  stage 1 memory: …"), then its send to the next ("  stage 1 send: 72.8 ns/token to stage 2"),
 * and last the batches in flight.
 */
function stepTermLines(m: StepTimeModel): string[] {
  const stages = m.stages ? m.stages.map((st) => stepTerms({ ...m, ...st })) : [stepTerms(m)];
  const names = (['overhead', 'memory', 'compute', 'allReduces'] as const).filter((k) => stages.some((t) => t[k] !== null));
  const formula = `${names.includes('overhead') ? 'overhead + ' : ''}max(memory, compute)${names.includes('allReduces') ? ' + all-reduces' : ''}`;
  const header = m.stages
    ? `Step time (modelled) of each of the ${m.stages.length} pipeline stages = ${formula}`
    : `Step time (modelled) = ${formula}`;
  const label: Record<(typeof names)[number], string> = { overhead: 'overhead', memory: 'memory', compute: 'compute', allReduces: 'all-reduces' };
  const body = stages.flatMap((t, k) => {
    const stage = m.stages ? `stage ${k + 1} ` : '';
    const send = m.stages && k + 1 < m.stages.length ? [`  ${stage}send: ${seconds(m.stageSendPerTokenS ?? 0)}/token to stage ${k + 2}`] : [];
    return [...names.filter((n) => t[n] !== null).map((n) => `  ${stage}${label[n]}: ${t[n]!}`), ...send];
  });
  const inFlight = m.stages ? [`  up to ${m.stages.length} batches in flight, one in each stage`] : [];
  return [...wrapLine(header, { keepUnits: true }), ...[...body, ...inFlight].flatMap((l) => wrapLine(l, { keepUnits: true }))];
}
