/**
 * Comparing two runs case by case. A change is flagged only when it is beyond the runs' own
 * noise: neither median inside the other's p10–p90 range (core/noise.ts withinNoise). Pure.
 */
import type { GpuFigures, KernelCase, RunResult } from '../core/protocol/run';
import { BENCHMARK_DURATION, deployedGpuCount, formatCount, formatDuration, formatMs, formatPercent, formatRate, formatRequestRate, keepsUpOf, loadAverageText, nativeBuildLabel, perGpuRate, sloTargetText, sloVerdict, tpotOverheadNote } from '../core/format';
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

/**
 * The figure History and the Compare pickers show beside a saved run, to tell apart runs of one
 * profile (ten rows of one name and minute read alike, s52 newcomer-ed 3): a simulation's highest
 * rate that kept its SLO ("kept up 4.20 req/s", from --max-rate: PoolResult.capacity.maxRate), else
 * its modelled TTFT p99 ("TTFT p99 312 ms", latency.ttft.p99 in s); a benchmark's headline case,
 * the one it timed longest ("prefill B1 N4096 1.23 ms", its median); undefined when the run has
 * none of these (a cancelled simulation, a benchmark before its first case).
 */
export function runFigure(run: Pick<RunResult, 'kind' | 'cases' | 'pool'>): string | undefined {
  if (run.kind === 'simulate') {
    const maxRate = run.pool?.capacity?.maxRate;
    if (typeof maxRate === 'number') return `kept up ${formatRequestRate(maxRate)} req/s`;
    const p99 = run.pool?.latency?.ttft?.p99;
    return typeof p99 === 'number' ? `TTFT p99 ${formatMs(p99 * 1e3)}` : undefined;
  }
  const longest = run.cases.reduce<KernelCase | undefined>((top, c) => (top === undefined || c.medianNs > top.medianNs ? c : top), undefined);
  return longest === undefined ? undefined : `${caseLabel(longest)} ${formatDuration(longest.medianNs)}`;
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
 * One run's SLO as Compare words it, each part a setting's cell: the TTFT and TPOT bounds
 * ("1 s", "none" where unset) and the share asked (core/format sloTargetText: "99%", "90%
 * (default)" where slo.attainment is unset; "none" without an SLO); 'n/a' for a run without
 * latency (no pool simulation). The one formatter of the "SLO TTFT / TPOT / attainment" rows
 * ({@link compareSettings}) and of the banner when they differ ({@link sloDifference}).
 */
function sloTerms(r: RunResult): { ttft: string; tpot: string; attainment: string } {
  const l = r.pool?.latency;
  if (!l) return { ttft: 'n/a', tpot: 'n/a', attainment: 'n/a' };
  const bound = (ms: number | undefined) => (ms === undefined ? 'none' : formatMs(ms));
  return { ttft: bound(l.slo?.ttftMs), tpot: bound(l.slo?.tpotMs), attainment: l.slo === undefined ? 'none' : sloTargetText(l.slo) };
}

/**
 * Why two runs' SLOs are not one (TTFT bound, TPOT bound, attainment, the default 0.9 where
 * unset: {@link sloTerms}), or null when they are or a side has no latency: goodput,
 * the requests meeting the SLO and its verdict then count under two definitions (s42
 * newcomer-ed F13: TTFT and TPOT against TTFT alone compared goodput +85.4 %).
 */
export function sloDifference(a: RunResult, b: RunResult): string | null {
  const la = a.pool?.latency;
  const lb = b.pool?.latency;
  if (!la || !lb || (!la.slo && !lb.slo)) return null;
  const ta = sloTerms(a);
  const tb = sloTerms(b);
  const fields: Array<[string, string, string]> = [
    ['TTFT', ta.ttft, tb.ttft],
    ['TPOT', ta.tpot, tb.tpot],
    ['attainment', ta.attainment, tb.attainment],
  ];
  const differ = fields.filter(([, x, y]) => x !== y).map(([k, x, y]) => `${k} ${x} vs ${y}`);
  return differ.length === 0 ? null : `A and B judge different SLOs (${differ.join(', ')}): goodput, the requests meeting the SLO and its verdict below are counted under two definitions and do not compare.`;
}

/**
 * The note on a TPOT SLO judged at small batch with the per-step overhead assumed 0 (core/format
 * tpotOverheadNote, the text the CLI's simulate summary, the Run tab and a sweep's best line
 * show), for whichever of the two runs carries it: "A and B: TPOT <= 100 ms is judged on …" when
 * both carry the same, "A: …" / "B: …" otherwise (each its own, both when both differ). It
 * qualifies the "SLO met" rows below: a TPOT met on a step with no fixed cost may be missed on the
 * server. Null when neither run carries it.
 */
export function tpotNoteText(a: RunResult, b: RunResult): string | null {
  const na = a.pool ? tpotOverheadNote(a.pool) : null;
  const nb = b.pool ? tpotOverheadNote(b.pool) : null;
  if (na !== null && na === nb) return `A and B: ${na}.`;
  const parts = [...(na !== null ? [`A: ${na}.`] : []), ...(nb !== null ? [`B: ${nb}.`] : [])];
  return parts.length === 0 ? null : parts.join(' ');
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

/**
 * One row of a comparison: a setting or figure of runs A and B as shown (`a`, `b`), the same in
 * `unit` for an export (`aValue`, `bValue`: numbers in `unit`, or the setting's text), the change
 * and where the figure comes from (`source`: 'profile', 'step-time model', 'simulated' by the
 * page-pool simulation, 'modelled' on the step-time model's clock, 'measured' on the machine).
 */
export interface PoolFigure {
  label: string;
  a: string;
  b: string;
  /** (b − a) / a, when both are numbers and a ≠ 0. */
  relativeChange: number | null;
  /**
   * The change as shown (core/format CHANGE_MEANING): relative, "+4.7%"; for a percentage figure
   * (occupancy, hit rate) its difference in percentage points, "−8.6 pp"; '' when none.
   */
  change: string;
  unit: string;
  source: string;
  aValue: number | string | null;
  bValue: number | string | null;
}

const signed = (x: number, text: string): string => `${x >= 0 ? '+' : ''}${text}`;

/** One figure's row; `percentage`: a fraction shown as a percentage, whose change is in percentage points. */
function figure(label: string, x: number | null | undefined, y: number | null | undefined, show: (v: number) => string, unit: string, source: string, opts: { toUnit?: (v: number) => number; percentage?: boolean } = {}): PoolFigure {
  const num = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);
  const toUnit = opts.toUnit ?? ((v: number) => v);
  const relativeChange = num(x) && num(y) && x !== 0 ? (y - x) / x : null;
  const change = num(x) && num(y)
    ? opts.percentage ? signed(y - x, `${((y - x) * 100).toFixed(1)} pp`) : relativeChange === null ? '' : signed(relativeChange, formatPercent(relativeChange))
    : '';
  return { label, a: num(x) ? show(x) : 'n/a', b: num(y) ? show(y) : 'n/a', relativeChange, change, unit, source, aValue: num(x) ? toUnit(x) : null, bValue: num(y) ? toUnit(y) : null };
}

/** A setting's row: the two values as text, no change. */
function setting(label: string, a: string, b: string, unit: string, source: string): PoolFigure {
  return { label, a, b, relativeChange: null, change: '', unit, source, aValue: a, bValue: b };
}

/**
 * What two runs are set up with, the settings that change a figure: tensor_parallel_size,
 * pipeline_parallel_size, data_parallel_size, the GPUs they use, every replica's (core/format deployedGpuCount), the KV cache's dtype ('auto'
 * named with the dtype it takes), page_size and budget, and the step-time model (the GPU whose
 * peaks it divides by, its efficiencies and overhead, what it leaves out: under tensor
 * parallelism the all-reduce). `differ`: the rows that differ, shown as the comparison's first
 * rows; `same`: the others, "name value", for one line under the table (s39 newcomer-ed 3: tp 1
 * against tp 2 and bf16 against fp8 showed no row saying so), and `sameRows` those as rows, which
 * the exports carry (s40 newcomer-ed F3: a pasted comparison lost the GPU and efficiencies its
 * modelled figures are for). The SLO each run's goodput was judged by (LatencySummary.slo) too.
 */
export function compareSettings(a: RunResult, b: RunResult): { differ: PoolFigure[]; same: string[]; sameRows: PoolFigure[] } {
  const kvDtype = (r: RunResult): string => (r.profile.kvCache.dtype === 'auto' ? `auto (${r.profile.dtype})` : r.profile.kvCache.dtype);
  const stepGpu = (r: RunResult): string => r.pool?.stepTime?.gpu ?? r.profile.device.gpu ?? 'n/a';
  // StepTimeModel.assumed names the profile keys (step_time.compute_efficiency, ...).
  const eff = (r: RunResult, k: 'computeEfficiency' | 'memoryEfficiency', key: string): string => {
    const st = r.pool?.stepTime;
    const v = st?.[k];
    return v === undefined ? 'n/a' : `${v}${st?.assumed?.includes(key) ? ' (assumed)' : ''}`;
  };
  const overhead = (r: RunResult): string => {
    const st = r.pool?.stepTime;
    return st ? `${formatMs(st.perStepS * 1000)}${st.assumed?.includes('overhead_ms') ? ' (assumed)' : ''}` : 'n/a';
  };
  const unmodelled = (r: RunResult): string => (r.pool?.stepTime ? (r.pool.stepTime.unmodelled ?? []).join('; ') || 'nothing named' : 'n/a');
  // The share asked too (s41 newcomer-ed F5: a pasted comparison carried the bounds, not the 99%
  // asked); unset, judged at the default everywhere and said so (s42 newcomer-ed F8: it read "none").
  const sa = sloTerms(a);
  const sb = sloTerms(b);
  const budget = (r: RunResult): string => (r.profile.kvCache.memoryGib === 'auto' ? 'auto (from the device)' : `${r.profile.kvCache.memoryGib} GiB`);
  const rows: PoolFigure[] = [
    setting('tensor_parallel_size', String(a.profile.device.tensorParallelSize), String(b.profile.device.tensorParallelSize), 'GPUs a stage', 'profile'),
    setting('pipeline_parallel_size', String(a.profile.device.pipelineParallelSize ?? 1), String(b.profile.device.pipelineParallelSize ?? 1), 'stages', 'profile'),
    setting('data_parallel_size', String(a.profile.device.dataParallelSize ?? 1), String(b.profile.device.dataParallelSize ?? 1), 'replicas', 'profile'),
    setting('GPUs', String(deployedGpuCount(a.profile.device)), String(deployedGpuCount(b.profile.device)), 'GPUs (tensor_parallel_size × pipeline_parallel_size × data_parallel_size)', 'profile'),
    setting('kv_cache.dtype', kvDtype(a), kvDtype(b), '', 'profile'),
    setting('kv_cache.page_size', String(a.profile.kvCache.pageSize), String(b.profile.kvCache.pageSize), 'tokens', 'profile'),
    setting('kv_cache.memory_gib', budget(a), budget(b), 'GiB a GPU', 'profile'),
    ...(a.pool && b.pool
      ? [
          setting('GPU (step-time peaks)', stepGpu(a), stepGpu(b), '', 'step-time model'),
          ...gpuFigureRows(a, b),
          setting('compute efficiency', eff(a, 'computeEfficiency', 'compute_efficiency'), eff(b, 'computeEfficiency', 'compute_efficiency'), 'fraction of peak FLOP/s', 'step-time model'),
          setting('memory efficiency', eff(a, 'memoryEfficiency', 'memory_efficiency'), eff(b, 'memoryEfficiency', 'memory_efficiency'), 'fraction of peak bandwidth', 'step-time model'),
          setting('step overhead', overhead(a), overhead(b), 'per step', 'step-time model'),
          setting('not modelled', unmodelled(a), unmodelled(b), '', 'step-time model'),
          setting('SLO TTFT', sa.ttft, sb.ttft, 'bound on each request (goodput counts those meeting every bound)', 'profile slo (or --slo-ttft-ms)'),
          setting('SLO TPOT', sa.tpot, sb.tpot, 'bound on each request (goodput counts those meeting every bound)', 'profile slo (or --slo-tpot-ms)'),
          setting('SLO attainment', sa.attainment, sb.attainment, 'share of requests that must meet the bounds', 'profile slo.attainment (or --slo-attainment)'),
          // The load simulated, so that an exported comparison can be reproduced and judged (s41
          // newcomer-ed F5: a pasted one named the offered rate alone); a replayed trace: its path.
          ...WORKLOAD_KEYS.map(([key, label, unit]) => setting(label, workloadValue(a, key), workloadValue(b, key), unit, 'profile workload')),
        ]
      : []),
  ];
  const sameRows = rows.filter((r) => r.a === r.b && r.a !== 'n/a');
  // The page's "Same in both" line leaves the workload to its own note (workloadDifference); the exports carry it.
  return { differ: rows.filter((r) => r.a !== r.b), same: sameRows.filter((r) => r.label !== 'not modelled' && r.label !== GPU_SOURCES && r.a !== 'none' && !r.label.startsWith('workload.')).map((r) => `${r.label} ${r.a}`), sameRows };
}

/** The row naming where each run's GPU figures are copied from (long: the exports carry it, the page's "Same in both" line does not). */
const GPU_SOURCES = 'GPU figures from';

/**
 * The step-time GPU's figures each run was modelled with (StepTimeModel.gpuFigures): peak memory
 * bandwidth, the dense compute peak of its dtype, a W8A8 checkpoint's GEMM peak, the interconnect,
 * each value followed by its origin ("3.35 TB/s (datasheet)", "user-given", "derived"), then the
 * sources' words (s41 newcomer-ed F5 c: a pasted H100 against H200 comparison named the GPUs and
 * no figure). 'n/a' for a run saved before the figures were recorded.
 */
function gpuFigureRows(a: RunResult, b: RunResult): PoolFigure[] {
  const fa = a.pool?.stepTime?.gpuFigures;
  const fb = b.pool?.stepTime?.gpuFigures;
  const source = 'step-time model (the GPU figures it divides by; origin in brackets)';
  // A figure's row with each side's origin after its value.
  const row = (label: string, get: (f: GpuFigures) => number | undefined, origin: (f: GpuFigures) => string | undefined, show: (v: number, f: GpuFigures) => string, unit: string, toUnit: (v: number) => number): PoolFigure => {
    const r = figure(label, fa && get(fa), fb && get(fb), (v) => `${formatCount(v)}`, unit, source, { toUnit });
    const text = (f: GpuFigures | undefined, shown: string): string => {
      const v = f && get(f);
      return f && v !== undefined ? `${show(v, f)} (${origin(f) ?? ''})` : shown;
    };
    return { ...r, a: text(fa, r.a), b: text(fb, r.b) };
  };
  const tera = (v: number): number => v / 1e12;
  const giga = (v: number): number => v / 1e9;
  const rows = [
    row('GPU memory bandwidth', (f) => f.memoryBytesPerSec, (f) => f.memoryOrigin, (v) => formatRate(v, 'B/s'), 'TB/s (peak)', tera),
    row('GPU compute peak', (f) => f.computeFlopsPerSec, (f) => f.computeOrigin, (v, f) => `${f.computePeak.replace(' peak', '')} ${formatRate(v, 'FLOP/s')}`, 'TFLOP/s (dense, the profile dtype\'s peak)', tera),
    ...(fa?.gemmPeak !== undefined || fb?.gemmPeak !== undefined
      ? [row('GPU quantized GEMM peak', (f) => f.gemmFlopsPerSec, (f) => f.gemmOrigin, (v, f) => `${(f.gemmPeak ?? '').replace(' peak', '')} ${formatRate(v, f.gemmPeak === 'int8 peak' ? 'OP/s' : 'FLOP/s')}`, 'TFLOP/s or TOP/s (dense, the W8A8 GEMMs\' peak)', tera)]
      : []),
    row('GPU interconnect', (f) => f.interconnectBytesPerSec, (f) => f.interconnectOrigin, (v, f) => `${f.interconnect} ${formatRate(v, 'B/s')} a direction`, 'GB/s a direction (the tensor-parallel all-reduces\' link)', giga),
  ];
  const sources = (f: GpuFigures | undefined): string => (f ? `${f.source}; link: ${f.interconnectSource}` : 'n/a');
  return [...rows, setting(GPU_SOURCES, sources(fa), sources(fb), '', 'AttnScope\'s built-in GPU table or the profile\'s described device.gpu')];
}

/** The workload keys Compare carries as settings: profile key, row label, unit. */
const WORKLOAD_KEYS: ReadonlyArray<[key: 'requests' | 'arrivalRate' | 'promptLen' | 'outputLen' | 'maxModelLen', label: string, unit: string]> = [
  ['requests', 'workload.requests', 'requests'],
  ['arrivalRate', 'workload.arrival_rate', 'requests/s (Poisson)'],
  ['promptLen', 'workload.prompt_len', 'tokens'],
  ['outputLen', 'workload.output_len', 'tokens'],
  ['maxModelLen', 'workload.max_model_len', 'tokens'],
];

/** A run's workload key as the profile wrote it ("{dist:lognormal,median:1024,sigma:1,max:8192}"), a replayed trace's path for the draws it replaced, 'default' when unset, 'n/a' without a workload. */
function workloadValue(r: RunResult, key: (typeof WORKLOAD_KEYS)[number][0]): string {
  const w = r.profile.workload;
  if (!w) return 'n/a';
  if (r.pool?.load?.source === 'trace' && key !== 'maxModelLen') return key === 'requests' ? `trace ${r.pool.load.trace?.resolvedPath ?? '(not named)'}` : 'n/a (trace)';
  const v = w[key];
  return v === undefined ? 'default' : typeof v === 'object' ? JSON.stringify(v).replace(/"/g, '') : String(v);
}

/**
 * Whether a run's modelled server kept up with its offered load, in words: the Sweep tab's check
 * (core/format keepsUpOf: rate ≤ the saturated throughput μ and a queue that did not grow) where
 * the run judged it (a sweep point); else only whether its queue grew through the arrivals
 * (PoolLoad.overloaded), μ not measured. 'n/a' without a recorded load.
 */
export function keepsUpText(r: RunResult): string {
  const k = keepsUpOf(r);
  if (k.keepsUp === true) return 'yes';
  if (k.keepsUp === false) return `no: ${k.notKeptUp ?? ''}`;
  const load = r.pool?.load;
  if (!load) return 'n/a';
  return load.overloaded ? `no: its queue grew through the arrivals (${formatCount(load.waitingAtLastArrival)} requests waiting at the last arrival)` : 'yes, its queue did not grow (μ not measured)';
}

/**
 * The pool simulations of two runs side by side: the pool's tokens (PoolResult.poolTokens, else
 * numPages · pageSize: the one unit every pool shares), its pages or a hybrid pool's blocks
 * (named as such; no change between a pages and a blocks figure, they count different things:
 * a page holds page_size tokens of every layer, a hybrid block one KV-cache group's), occupancy,
 * preemptions, prefix-cache hit rate, requests served, modelled TTFT / TPOT percentiles,
 * throughput and goodput, per GPU too where the runs' GPU counts differ (core/format perGpuRate,
 * as the Sweep tab ranks them), the offered load and whether each run kept up with it
 * ({@link keepsUpText}). Null unless both runs have one. The latency figures are modelled
 * (each run's step-time model).
 */
export function comparePools(a: RunResult, b: RunResult): PoolFigure[] | null {
  if (!a.pool || !b.pool) return null;
  const pa = a.pool;
  const pb = b.pool;
  const rows: PoolFigure[] = [];
  const sim = 'simulated (page-pool simulation)';
  const modelled = 'modelled (step-time model)';
  const ms = (s: number): string => formatMs(s * 1000);
  const toMs = { toUnit: (s: number) => s * 1000 };
  const pct = (v: number): string => formatPercent(v);
  const asPct = { toUnit: (v: number) => v * 100, percentage: true };
  // Under data parallelism the pool and its occupancy are one engine's (the peak the busiest engine's, the
  // mean over the engines): said beside that run's value, as the Run tab does (s43 newcomer-ed M3: B's
  // "1,063,984" tokens read as the deployment's, which holds 2 × that).
  const engines = (p: typeof pa): string => (p.dataParallel ? ` per engine (${p.dataParallel.size} engines)` : '');
  const perEngine = (row: PoolFigure): PoolFigure => ({ ...row, a: row.a === 'n/a' ? row.a : row.a + engines(pa), b: row.b === 'n/a' ? row.b : row.b + engines(pb) });
  rows.push(perEngine(figure('pool tokens', pa.poolTokens ?? pa.numPages * pa.pageSize, pb.poolTokens ?? pb.numPages * pb.pageSize, formatCount, 'tokens', sim)));
  const unit = (p: typeof pa): string => (p.poolBlocks != null ? 'blocks' : 'pages');
  if (unit(pa) === unit(pb)) rows.push(perEngine(figure(`pool ${unit(pa)}`, pa.numPages, pb.numPages, formatCount, unit(pa), sim)));
  else rows.push(perEngine({ ...setting('pool pages / blocks (not comparable)', `${formatCount(pa.numPages)} ${unit(pa)}`, `${formatCount(pb.numPages)} ${unit(pb)}`, '', sim) }));
  rows.push(
    perEngine(figure('peak occupancy', pa.summary.peakOccupancy, pb.summary.peakOccupancy, pct, '%', sim, asPct)),
    perEngine(figure('mean occupancy', pa.summary.meanOccupancy, pb.summary.meanOccupancy, pct, '%', sim, asPct)),
    figure('preemptions', pa.summary.preemptions, pb.summary.preemptions, formatCount, 'preemptions', sim),
    figure('prefix-cache hit rate', pa.summary.prefixHitRate, pb.summary.prefixHitRate, pct, '% of prompt tokens', sim, asPct),
    figure('requests completed', pa.summary.completed, pb.summary.completed, formatCount, 'requests', sim),
    figure('requests rejected', pa.summary.rejected, pb.summary.rejected, formatCount, 'requests', sim),
    figure('TTFT p50 (modelled)', pa.latency?.ttft?.p50, pb.latency?.ttft?.p50, ms, 'ms', modelled, toMs),
    figure('TTFT p99 (modelled)', pa.latency?.ttft?.p99, pb.latency?.ttft?.p99, ms, 'ms', modelled, toMs),
    figure('TPOT p50 (modelled)', pa.latency?.tpot?.p50, pb.latency?.tpot?.p50, ms, 'ms', modelled, toMs),
    figure('TPOT p99 (modelled)', pa.latency?.tpot?.p99, pb.latency?.tpot?.p99, ms, 'ms', modelled, toMs),
    figure('output tokens/s (modelled)', pa.latency?.outputTokensPerSec, pb.latency?.outputTokensPerSec, (v) => formatCount(Math.round(v)), `tokens/s (completed requests' output tokens / ${BENCHMARK_DURATION})`, modelled),
  );
  // Every replica's GPUs (core/format deployedGpuCount): a run's throughput is all its replicas'.
  const ga = deployedGpuCount(a.profile.device);
  const gb = deployedGpuCount(b.profile.device);
  const perGpu = (v: number | undefined, g: number): number | undefined => (v === undefined ? undefined : perGpuRate(v, g));
  if (ga !== gb) rows.push(figure('output tokens/s per GPU (modelled)', perGpu(pa.latency?.outputTokensPerSec, ga), perGpu(pb.latency?.outputTokensPerSec, gb), (v) => formatCount(Math.round(v)), 'tokens/s a GPU (output tokens/s / GPUs)', modelled));
  rows.push(figure('goodput req/s (modelled)', pa.latency?.goodputRequestsPerSec, pb.latency?.goodputRequestsPerSec, formatRequestRate, 'requests/s meeting the SLO', modelled));
  // The decision's criterion beside the goodput: the share meeting the SLO and, against the share
  // the SLO asks, its verdict as the CLI and the dashboard word it (core/format sloVerdict).
  const verdict = (l: typeof pa.latency): string => (l?.sloAttainment === undefined ? 'n/a' : sloVerdict(l.slo, l.sloAttainment, l.requests) ?? 'n/a');
  if (pa.latency?.sloAttainment !== undefined || pb.latency?.sloAttainment !== undefined) {
    rows.push(
      figure('requests meeting the SLO (modelled)', pa.latency?.sloAttainment, pb.latency?.sloAttainment, pct, '% of all requests', modelled, asPct),
      setting('SLO met', verdict(pa.latency), verdict(pb.latency), '', modelled),
    );
  }
  if (ga !== gb) rows.push(figure('goodput req/s per GPU (modelled)', perGpu(pa.latency?.goodputRequestsPerSec, ga), perGpu(pb.latency?.goodputRequestsPerSec, gb), formatRequestRate, 'requests/s a GPU (goodput / GPUs)', modelled));
  rows.push(
    figure('offered load', pa.load?.offeredRequestsPerSec, pb.load?.offeredRequestsPerSec, (v) => formatRequestRate(v), 'requests/s ((requests − 1) / arrival span)', 'workload'),
    setting('keeps up with the offered load', keepsUpText(a), keepsUpText(b), '', 'modelled (Sweep tab keeps-up check)'),
  );
  return rows;
}

/**
 * When both runs kept up with their offered load (neither queue grew), the sentence saying that
 * their throughput is the load's, not their capacity: two runs of one workload then differ in
 * throughput by a fraction of a percent whatever the profile (s39 newcomer-ed 3: tp 2 "+4.7 %"
 * was the trace's). Null otherwise.
 */
export function loadBoundNote(a: RunResult, b: RunResult): string | null {
  const kept = (r: RunResult): boolean => r.pool?.load !== undefined && !keepsUpText(r).startsWith('no') && keepsUpText(r) !== 'n/a';
  if (!kept(a) || !kept(b)) return null;
  return 'Both runs kept up with their offered load: their throughput and goodput are set by the arrivals, not by their capacity. To compare capacity, run a sweep over arrival_rate (the Sweep tab ranks points per GPU and by μ) or the capacity search (slo in the profile).';
}

/**
 * Every row of a comparison for an export: the settings that differ, then those the same in both
 * (the page's "Same in both" line: the GPU, efficiencies and SLO the modelled figures are for), the
 * kernel cases (median ns, measured) when both runs timed kernels, and the pool figures. What the
 * dashboard's Copy Markdown / Export CSV of Compare carry (extension/exportCompare.ts).
 */
export function comparisonRows(a: RunResult, b: RunResult): PoolFigure[] {
  const settings = compareSettings(a, b);
  const rows = [...settings.differ, ...settings.sameRows];
  if (!kindDifference(a, b)) {
    for (const c of compareRuns(a, b)) {
      rows.push({
        label: c.label, a: c.a ? formatDuration(c.a.medianNs) : '', b: c.b ? formatDuration(c.b.medianNs) : '', relativeChange: c.relativeChange,
        change: c.relativeChange === null ? '' : signed(c.relativeChange, formatPercent(c.relativeChange)), unit: 'ns (median)', source: 'measured',
        aValue: c.a?.medianNs ?? null, bValue: c.b?.medianNs ?? null,
      });
    }
  }
  rows.push(...(comparePools(a, b) ?? []));
  return rows;
}
