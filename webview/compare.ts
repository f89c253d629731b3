/**
 * Comparing two runs case by case. A change is flagged only when it is beyond the runs' own
 * noise: neither median inside the other's p10–p90 range (core/noise.ts withinNoise). Pure.
 */
import type { KernelCase, RunResult } from '../core/protocol/run';
import { formatCount, formatMs, formatPercent, loadAverageText, nativeBuildLabel } from '../core/format';
import { withinNoise } from '../core/noise';

export interface CaseComparison {
  key: string;
  label: string;
  a: KernelCase | null;
  b: KernelCase | null;
  /** (median_b − median_a) / median_a; null when either side is missing. */
  relativeChange: number | null;
  /** Beyond the runs' noise (withinNoise false): 'faster' | 'slower'; 'same' within it. */
  verdict: 'faster' | 'slower' | 'same' | 'only-a' | 'only-b';
}

/**
 * Identity of a case across runs: kernel, backend, dtypes, every shape field, and the tensor
 * parallelism it is one GPU's share of (CaseShape.tensorParallelSize; absent = 1): a model's
 * share at TP 2 (H=32/4) and a whole model of 32/4 heads at TP 1 are the same kernel shape but
 * not the same case.
 */
export function caseKey(c: KernelCase): string {
  const s = c.shape;
  return [c.kernel, c.backend, c.dtype, c.kvDtype ?? '', s.batchSize, s.numHeads, s.numKvHeads, s.headDim, s.seqLenQ, s.seqLenK, s.causal ? 'causal' : 'full', s.slidingWindow ?? '', s.pageSize ?? '', s.mlaLatentDim ?? '', `tp${s.tensorParallelSize ?? 1}`].join('|');
}

/** Short human label: "prefill B1 N4096" / "decode B16 ctx8192 p16", then " TP 2" for one GPU's share under tensor parallelism. */
export function caseLabel(c: KernelCase): string {
  const s = c.shape;
  const tp = (s.tensorParallelSize ?? 1) > 1 ? ` TP ${s.tensorParallelSize}` : '';
  if (c.kernel === 'paged_decode') return `decode B${s.batchSize} ctx${s.seqLenK}${s.slidingWindow ? ` w${s.slidingWindow}` : ''}${s.pageSize ? ` p${s.pageSize}` : ''}${tp}`;
  if (c.kernel === 'flash_fwd') return `prefill B${s.batchSize} N${s.seqLenQ}${s.slidingWindow ? ` w${s.slidingWindow}` : ''}${tp}`;
  return `reference B${s.batchSize} ${s.seqLenQ}×${s.seqLenK}${tp}`;
}

/** Every case of either run, in `a`'s order then `b`'s new ones. */
export function compareRuns(a: RunResult, b: RunResult): CaseComparison[] {
  const bByKey = new Map(b.cases.map((c) => [caseKey(c), c] as const));
  const out: CaseComparison[] = [];
  const seen = new Set<string>();
  for (const ca of a.cases) {
    const key = caseKey(ca);
    seen.add(key);
    const cb = bByKey.get(key) ?? null;
    if (!cb) {
      out.push({ key, label: caseLabel(ca), a: ca, b: null, relativeChange: null, verdict: 'only-a' });
      continue;
    }
    const delta = cb.medianNs - ca.medianNs;
    const same = withinNoise({ median: ca.medianNs, p10: ca.p10Ns, p90: ca.p90Ns }, { median: cb.medianNs, p10: cb.p10Ns, p90: cb.p90Ns });
    const verdict = same ? 'same' : delta < 0 ? 'faster' : 'slower';
    out.push({ key, label: caseLabel(ca), a: ca, b: cb, relativeChange: ca.medianNs > 0 ? delta / ca.medianNs : null, verdict });
  }
  for (const cb of b.cases) {
    const key = caseKey(cb);
    if (!seen.has(key)) out.push({ key, label: caseLabel(cb), a: null, b: cb, relativeChange: null, verdict: 'only-b' });
  }
  return out;
}

/**
 * Why two runs are not of the same model, or null when they are: the architecture fields that
 * size attention (model_type, layers, query and KV heads, head_dim, hidden size) and the Q/K/V
 * dtype. Cases of different models share shapes only by chance; the dashboard says so above a
 * comparison of such runs.
 */
export function modelDifference(a: RunResult, b: RunResult): string | null {
  const ma = a.profile.model;
  const mb = b.profile.model;
  const fields: Array<[string, unknown, unknown]> = [
    ['model_type', ma.modelType, mb.modelType],
    ['num_hidden_layers', ma.numLayers, mb.numLayers],
    ['num_attention_heads', ma.numHeads, mb.numHeads],
    ['num_key_value_heads', ma.numKvHeads, mb.numKvHeads],
    ['head_dim', ma.headDim, mb.headDim],
    ['hidden_size', ma.hiddenSize, mb.hiddenSize],
    ['dtype', a.profile.dtype, b.profile.dtype],
  ];
  const differ = fields.filter(([, x, y]) => x !== y).map(([k, x, y]) => `${k} ${String(x)} vs ${String(y)}`);
  return differ.length === 0 ? null : `These runs are of different models (${differ.join(', ')}): only cases of the same shape are compared, and their times say nothing about one model against the other.`;
}

/**
 * Why two runs' kernel times are not of the same build on the same machine, or null when they
 * are: the kernels' backends (cpu, cuda), the CPU kernels' build (native addon or WebAssembly,
 * Environment.nativeBuild), CPU model, SIMD path, threads, and GPU. A native run against a
 * WebAssembly run read "+821.6% ▲ slower" with no word that the build, not the code, changed; the
 * dashboard says so above the table, as for different models. A side that does not know a field
 * (a run saved before it, or one the editor put together: simd '') is not held against the other.
 */
export function buildDifference(a: RunResult, b: RunResult): string | null {
  const ea = a.environment;
  const eb = b.environment;
  const backends = (r: RunResult): string => [...new Set(r.cases.map((c) => c.backend))].sort().join('+');
  const known = (x: string, y: string): boolean => x !== '' && y !== '';
  const cpuKnown = known(ea.simd, eb.simd);
  const fields: Array<[string, string, string, boolean]> = [
    ['backend', backends(a), backends(b), known(backends(a), backends(b))],
    ['build', nativeBuildLabel(ea), nativeBuildLabel(eb), known(nativeBuildLabel(ea), nativeBuildLabel(eb))],
    ['CPU', ea.cpuModel, eb.cpuModel, cpuKnown],
    ['SIMD path', ea.simd, eb.simd, cpuKnown],
    ['threads', String(ea.threads), String(eb.threads), cpuKnown && ea.nativeBuild !== 'wasm' && eb.nativeBuild !== 'wasm'],
    // The GPU only where a side's kernels ran on one (a CPU run's machine may have one idle).
    ['GPU', ea.gpu?.name ?? 'none', eb.gpu?.name ?? 'none', [a, b].some((r) => r.cases.some((c) => c.backend !== 'cpu'))],
  ];
  const differ = fields.filter(([, x, y, k]) => k && x !== y).map(([name, x, y]) => `${name} ${x} vs ${y}`);
  return differ.length === 0 ? null : `These runs' kernels ran on different builds or machines (${differ.join(', ')}): a change below is the build's or the machine's as much as the code's or the profile's.`;
}

/**
 * When one run's kernels were timed on a busy machine (1-minute load above its CPUs) and the
 * other's not, the sentence Compare shows above the table, each side's load line as the CLI prints
 * it (core/format loadAverageText): a change below may be the load's. Null when both were busy,
 * neither was, a side did not record its load, or a side timed no kernel.
 */
export function loadDifference(a: RunResult, b: RunResult): string | null {
  if (a.cases.length === 0 || b.cases.length === 0) return null;
  const la = loadAverageText(a.environment);
  const lb = loadAverageText(b.environment);
  if (!la || !lb || la.busy === lb.busy) return null;
  return `The runs were timed under different load: A at ${la.text}; B at ${lb.text}. A change below may be the load's, not the code's or the profile's.`;
}

/**
 * What two runs of different kinds share: a serving simulation (`attnscope simulate`) timed no
 * kernel, so only the pool simulations compare. Null when both are benchmarks; else the sentence
 * the dashboard shows above the comparison (or instead of it when there is nothing in common).
 */
export function kindDifference(a: RunResult, b: RunResult): string | null {
  const simA = a.kind === 'simulate';
  const simB = b.kind === 'simulate';
  if (!simA && !simB) return null;
  const which = simA && simB ? 'Both runs are serving simulations' : `${simA ? 'A' : 'B'} is a serving simulation`;
  if (!a.pool || !b.pool) return `${which} (no kernel timed) and ${a.pool ? 'B' : 'A'} has no pool simulation (its profile had no workload): nothing to compare.`;
  return simA && simB ? `${which}: their pools and modelled latency are compared below.` : `${which} (no kernel timed): only the pool simulations and their modelled latency are compared below.`;
}

/**
 * "A and B are the same run" when they are (one name and one createdAt: a run's id is made of
 * them, extension/history.ts runId), else null: every change below would read +0.0%.
 */
export function sameRun(a: RunResult, b: RunResult): string | null {
  return a.name === b.name && a.createdAt === b.createdAt ? `A and B are the same run (${a.name}, saved ${a.createdAt}): every change below is zero; pick another run as A or B.` : null;
}

/**
 * Why two runs' pool simulations are not of one workload (profile key `workload`: requests,
 * arrival rate, prompt and output lengths, max_num_seqs, max_model_len, max_num_batched_tokens,
 * prefix sharing, seed; a replayed trace, PoolLoad.trace, in place of the draws; the time scale),
 * or null when they are or a side simulated none: their served requests,
 * latency and throughput differ by the workload as much as by the profile.
 */
export function workloadDifference(a: RunResult, b: RunResult): string | null {
  const wa = a.profile.workload;
  const wb = b.profile.workload;
  if (!a.pool || !b.pool || !wa || !wb) return null;
  const text = (v: unknown): string => (v === undefined ? 'default' : typeof v === 'object' ? JSON.stringify(v).replace(/"/g, '') : String(v));
  // A replayed trace (PoolLoad.source 'trace') used none of the profile's draws: the traces compare instead.
  const la = a.pool.load;
  const lb = b.pool.load;
  const from = (l: typeof la): string => (l?.source === 'trace' ? `trace ${l.trace?.resolvedPath ?? '(not named)'}` : 'drawn');
  const traced = la?.source === 'trace' || lb?.source === 'trace';
  const fields: Array<[string, unknown, unknown]> = [
    ...(traced
      ? [['requests', from(la), from(lb)] as [string, unknown, unknown]]
      : [
        ['requests', wa.requests, wb.requests],
        ['arrival_rate', wa.arrivalRate, wb.arrivalRate],
        ['prompt_len', wa.promptLen, wb.promptLen],
        ['output_len', wa.outputLen, wb.outputLen],
      ] as Array<[string, unknown, unknown]>),
    ['time scale', la?.timeScale ?? 1, lb?.timeScale ?? 1],
    ['max_num_seqs', wa.maxNumSeqs, wb.maxNumSeqs],
    ['max_model_len', wa.maxModelLen, wb.maxModelLen],
    ['max_num_batched_tokens', wa.maxNumBatchedTokens, wb.maxNumBatchedTokens],
    ...(traced ? [] : [['prefix_sharing', wa.prefixSharing, wb.prefixSharing], ['seed', wa.seed, wb.seed]] as Array<[string, unknown, unknown]>),
  ];
  const differ = fields.filter(([, x, y]) => text(x) !== text(y)).map(([k, x, y]) => `${k} ${text(x)} vs ${text(y)}`);
  return differ.length === 0 ? null : `A and B simulate different workloads (${differ.join(', ')}): requests served, latency and throughput below differ by the workload as much as by the profile.`;
}

/** One figure of two runs' pool simulations. */
export interface PoolFigure {
  label: string;
  a: string;
  b: string;
  /** (b − a) / a, when both are numbers and a ≠ 0. */
  relativeChange: number | null;
}

/**
 * The pool simulations of two runs side by side: the pool's tokens (PoolResult.poolTokens, else
 * numPages · pageSize: the one unit every pool shares), its pages or a hybrid pool's blocks
 * (named as such; no change between a pages and a blocks figure, they count different things:
 * a page holds page_size tokens of every layer, a hybrid block one KV-cache group's), occupancy,
 * preemptions, prefix-cache hit rate, requests served, modelled TTFT / TPOT percentiles,
 * throughput and goodput. Null unless both runs have one. The latency figures are modelled
 * (each run's step-time model).
 */
export function comparePools(a: RunResult, b: RunResult): PoolFigure[] | null {
  if (!a.pool || !b.pool) return null;
  const pa = a.pool;
  const pb = b.pool;
  const rows: PoolFigure[] = [];
  const add = (label: string, x: number | null | undefined, y: number | null | undefined, show: (v: number) => string): void => {
    const num = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);
    rows.push({ label, a: num(x) ? show(x) : 'n/a', b: num(y) ? show(y) : 'n/a', relativeChange: num(x) && num(y) && x !== 0 ? (y - x) / x : null });
  };
  const ms = (s: number): string => formatMs(s * 1000);
  add('pool tokens', pa.poolTokens ?? pa.numPages * pa.pageSize, pb.poolTokens ?? pb.numPages * pb.pageSize, formatCount);
  const unit = (p: typeof pa): string => (p.poolBlocks != null ? 'blocks' : 'pages');
  if (unit(pa) === unit(pb)) add(`pool ${unit(pa)}`, pa.numPages, pb.numPages, formatCount);
  else rows.push({ label: 'pool pages / blocks (not comparable)', a: `${formatCount(pa.numPages)} ${unit(pa)}`, b: `${formatCount(pb.numPages)} ${unit(pb)}`, relativeChange: null });
  add('peak occupancy', pa.summary.peakOccupancy, pb.summary.peakOccupancy, (v) => formatPercent(v));
  add('mean occupancy', pa.summary.meanOccupancy, pb.summary.meanOccupancy, (v) => formatPercent(v));
  add('preemptions', pa.summary.preemptions, pb.summary.preemptions, formatCount);
  add('prefix-cache hit rate', pa.summary.prefixHitRate, pb.summary.prefixHitRate, (v) => formatPercent(v));
  add('requests completed', pa.summary.completed, pb.summary.completed, formatCount);
  add('requests rejected', pa.summary.rejected, pb.summary.rejected, formatCount);
  add('TTFT p50 (modelled)', pa.latency?.ttft?.p50, pb.latency?.ttft?.p50, ms);
  add('TTFT p99 (modelled)', pa.latency?.ttft?.p99, pb.latency?.ttft?.p99, ms);
  add('TPOT p50 (modelled)', pa.latency?.tpot?.p50, pb.latency?.tpot?.p50, ms);
  add('TPOT p99 (modelled)', pa.latency?.tpot?.p99, pb.latency?.tpot?.p99, ms);
  add('output tokens/s (modelled)', pa.latency?.outputTokensPerSec, pb.latency?.outputTokensPerSec, (v) => formatCount(Math.round(v)));
  add('goodput req/s (modelled)', pa.latency?.goodputRequestsPerSec, pb.latency?.goodputRequestsPerSec, (v) => v.toPrecision(3));
  return rows;
}
