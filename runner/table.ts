/**
 * Plain-text tables for the terminal: the kernel results and the memory estimate.
 * Units: time in ms; rates with SI prefixes (GFLOP/s, GB/s); memory with IEC prefixes.
 */
import type { Profile, QuantizationSpec } from '../core/config/types';
import { mixerNames } from '../core/config/mamba';
import { isBareConfig } from '../core/config/profileDefaults';
import type { Estimate, KvPoolLayout } from '../core/estimate/types';
import { kvHeadsPerGpu, quantizedScopeText, quantizedWidthText } from '../core/estimate';
import { blocksPerRequestFormula, grouped, poolBlocksText } from '../core/estimate/layout';
import { formatBytes, formatConcurrency, formatCount, formatCountOf, formatPercent, formatRate, fractionText, formatSignificant, fromCacheBy, fromCacheText, isMemoryBound, loadAverageText, perGpuCaseText, perGpuCasesHeader, tpWeightsFormula } from '../core/format';
import type { Environment, KernelCase, RunResult } from '../core/protocol/run';
import { mlaDecodeHeadDim, mlaPrefillHeadDim, softcapNote } from '../core/kernelLimits';
import { ceilingFor, computeCeiling } from './measure';
import { timingBudget, timingBudgetText } from './plan';
import { NOISY_MARK_NOTE, noisyMark, PERCENTILE_MIN_SAMPLES, spreadName, spreadsName } from '../core/noise';
import { formatPoolSummary } from './simulate';
import { cpuName } from '../core/sweepFigures';
import { renderTable } from '../core/textTable';

function ms(ns: number): string {
  const v = ns / 1e6;
  return v >= 100 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3);
}

function shapeText(c: KernelCase): string {
  const s = c.shape;
  const perGpu = perGpuCaseText(s);
  const heads = `H=${s.numHeads}/${s.numKvHeads}${perGpu ? ` (${perGpu})` : ''} D=${s.headDim}`;
  if (c.kernel === 'paged_decode') return `B=${s.batchSize} ctx=${s.seqLenK}${s.slidingWindow ? ` win=${s.slidingWindow}` : ''} ${heads} page=${s.pageSize}`;
  return `B=${s.batchSize} N=${s.seqLenQ} ${heads}${s.causal ? ' causal' : ''}${s.slidingWindow ? ` win=${s.slidingWindow}` : ''}`;
}

/** Three significant digits, whole and grouped from 1,000 (core/format formatSignificant): 1234 -> "1,234"; below, toPrecision's trailing zeros kept for the column: 12 -> "12.0", 0.0471. */
function rate(x: number): string {
  return x >= 1000 ? formatSignificant(x) : x.toPrecision(3);
}

function sci(x: number | null): string {
  if (x === null) return '-';
  if (Number.isNaN(x)) return 'NaN';
  return x === 0 ? '0' : x.toExponential(1);
}

/** The unit a CPU path's name implies: its products run there unless the case says otherwise. */
const PATH_UNIT: Record<string, string> = { scalar: 'scalar', avx512bf16: 'avx512-bf16', amx: 'amx-bf16' };

/**
 * A CPU case's path, one token where the path's name says which unit did the products ("avx2",
 * "avx512bf16", "scalar"), else the path with that unit in parentheses ("amx (avx512-bf16)": bf16
 * decode on an AMX CPU, "avx512bf16 (fp32-fma)": fp32 forced onto that path); the backend for a GPU case.
 */
export function pathText(c: Pick<KernelCase, 'simdPath' | 'productUnit' | 'backend'>): string {
  if (!c.simdPath) return c.backend;
  const implied = PATH_UNIT[c.simdPath] ?? 'fp32-fma';
  return c.productUnit && c.productUnit !== implied ? `${c.simdPath} (${c.productUnit})` : c.simdPath;
}

/**
 * The kernel table: kernel, shape, dtype, the path that ran, n (samples timed), median ms, the
 * spread (p10–p90, or min–max of fewer than PERCENTILE_MIN_SAMPLES samples: core/noise.ts spreadName), the rate of
 * the roof that bounds the case (GFLOP/s for a compute-bound one, GB/s for a memory-bound one),
 * % of that roof ("(from cache)" after it for a decode case `environment` says was read from cache,
 * by its last-level cache's size or by its pages' read-alone rate against its DRAM read peak:
 * core/format.ts fromCacheBy; the run's notes say which), the roof with which bound it is,
 * max |err|, lse err. Past `width` columns (default core/textTable.ts tableWidth: the terminal's, else 100) stacked parts,
 * each repeating kernel and shape.
 */
export function formatCases(cases: KernelCase[], width?: number, environment?: Pick<Environment, 'lastLevelCache' | 'peaks'>): string {
  // One name for the column where every case's spread is the same kind; else each min–max cell says so.
  const names = new Set(cases.map((c) => spreadName(c.samplesNs.length)));
  const header = ['kernel', 'shape', 'dtype', 'path', 'n', 'median ms', `${names.size === 1 ? [...names][0] : 'p10–p90'} ms`, 'rate', '% of peak', 'peak', 'max |err|', 'lse err'];
  // A row whose spread is past core/noise.ts's NOISY_SPREAD_RATIO says so beside it: its median and % of peak may be off by that factor.
  const noisy = (c: KernelCase): string => {
    const mark = noisyMark({ p10: c.p10Ns, p90: c.p90Ns });
    return mark === null ? '' : ` ${mark}`;
  };
  // One sample has no spread: "561.3-561.3" read as a measured, tight one (s51 nc-cli #14).
  const spread = (c: KernelCase): string =>
    c.samplesNs.length === 1
      ? '1 sample: no spread'
      : `${ms(c.p10Ns)}-${ms(c.p90Ns)}${names.size > 1 && spreadName(c.samplesNs.length) === 'min–max' ? ' (min–max)' : ''}${noisy(c)}`;
  const rows = cases.map((c) => [
    c.kernel,
    shapeText(c),
    c.kernel === 'paged_decode' && c.kvDtype && c.kvDtype !== c.dtype ? `${c.dtype}/kv ${c.kvDtype}` : c.dtype,
    pathText(c),
    String(c.samplesNs.length),
    ms(c.medianNs),
    spread(c),
    isMemoryBound(c) ? `${rate(c.gbps)} GB/s` : `${rate(c.gflops)} GFLOP/s`,
    c.fractionOfPeak === null ? '-' : `${fractionText(c.fractionOfPeak, (f) => formatPercent(f, 0))}${fromCacheBy(c, environment) === null ? '' : ' (from cache)'}`,
    c.fractionOfPeak === null ? '-' : `${c.ceiling ?? '?'}${c.bound ? ` (${c.bound}-bound)` : ''}`,
    sci(c.maxAbsErr),
    sci(c.lseMaxAbsErr),
  ]);
  // Past the table width (core/textTable.ts tableWidth: 100 piped): stacked parts, each repeating kernel and shape.
  return renderTable(header, rows, [false, false, false, false, true, true, true, true, true, false, true, true], { keys: 2, width });
}

/**
 * What the kernel table's figures are, the line above it: measured in this run (where), the rate
 * and what it divides (modelled FLOPs or bytes of the shape), how each case's roof is chosen
 * (the roofline's ridge point), and each peak a "% of peak" divides by with its value, measured
 * in the same run (the GPU's FLOP peak is computed from its clocks, and says so). Empty for a
 * run with no cases.
 */
export function casesCaption(run: Pick<RunResult, 'cases' | 'environment' | 'quick'>): string {
  if (run.cases.length === 0) return '';
  const env = run.environment;
  const where = run.cases.some((c) => c.backend === 'cuda') && env?.gpu ? env.gpu.name : `this CPU${env ? ` (${cpuName(env)}, ${formatCountOf(env.threads, 'thread')})` : ''}`;
  const peaks = new Map<string, string>();
  const ridges = new Map<string, string>();
  for (const c of run.cases) {
    const dtype = c.dtype === 'fp16' || c.dtype === 'bf16' ? c.dtype : 'fp32';
    const ceiling = ceilingFor(c.kernel, c.flops / c.bytes, dtype, env?.peaks, c.productUnit, c.backend);
    if (!ceiling) continue;
    // Every CPU peak and the GPU's copy bandwidth are measured by this run; the GPU's FLOP peaks are not.
    peaks.set(ceiling.name, `${formatRate(ceiling.value, ceiling.unit)}${/from clocks/.test(ceiling.name) ? ', computed' : /datasheet/.test(ceiling.name) ? ', copied' : ', measured in this run'}`);
    const compute = computeCeiling(dtype, env?.peaks, c.productUnit, c.backend);
    if (ceiling.ridge !== null && compute) ridges.set(compute.name, `${compute.name}: ${formatSignificant(ceiling.ridge)} FLOP/byte`);
  }
  const ridge = ridges.size > 0 ? ` (${[...ridges.values()].join('; ')})` : '';
  const against = peaks.size > 0
    ? `% of peak: rate / the roof that bounds the case (roofline): its compute peak where its FLOP/byte reaches the ridge point, peak / bandwidth${ridge}, else the bandwidth; each named beside it (${[...peaks].map(([name, value]) => `${name} ${value}`).join('; ')})`
    : '% of peak: no peak was measured in this run';
  const mla = run.cases.some((c) => c.shape.mlaLatentDim) ? '; MLA decode: the latent, kv_lora_rank + qk_rope_head_dim values a token, read once, in place of K + V' : '';
  // A --quick run's cases had the shorter timing budget: said where the figures are read.
  const samples = run.quick ? ` (--quick: each case timed ${timingBudgetText(timingBudget(true))}, not ${timingBudgetText(timingBudget(false))})` : ` (each case timed ${timingBudgetText(timingBudget(false))})`;
  const perGpu = perGpuCasesHeader(run.cases.map((c) => c.shape));
  const spread = spreadsName(run.cases.map((c) => c.samplesNs.length));
  const fewer = spread === 'p10–p90' ? '' : ` (nearest-rank p10 and p90 of fewer than ${PERCENTILE_MIN_SAMPLES} samples are their min and max)`;
  const noisy = run.cases.some((c) => noisyMark({ p10: c.p10Ns, p90: c.p90Ns }) !== null) ? `; ${NOISY_MARK_NOTE}` : '';
  const unit = run.cases.some((c) => pathText(c).includes('(')) ? '; path: the SIMD path that ran, and in parentheses the unit that did the products where the path\'s name does not say it' : '';
  return `Kernel timings, measured on ${where}${perGpu ? `, ${perGpu}` : ''}: median and ${spread} of each case's n samples${fewer}${samples}${noisy}${unit}; rate: FLOPs (4·B·H·N_q·N_k·D over the mask) or bytes (K + V + Q in their dtypes + O in fp32${mla}) of the shape / median; ${against}`;
}

/**
 * What each of `tp` GPUs holds of one token's KV cache, from the facts the per-GPU KV bytes come
 * from (core/estimate kvBytesPerTokenPerLayer): MLA's latent is not split, so every GPU holds
 * all of it; else kvHeadsPerGpu of the H_kv heads, which vLLM replicates when tp > H_kv.
 * e.g. "each holds 2 of the 8 KV heads"; "each holds the whole MLA latent (...)".
 */
function tpKvShareText(m: Estimate['model'], tp: number): string {
  if (m.attention === 'mla') return 'each holds the whole MLA latent (kv_lora_rank + qk_rope_head_dim: tensor parallelism does not split it)';
  const held = kvHeadsPerGpu(m, tp);
  if (tp <= m.numKvHeads) return `each holds ${held} of the ${m.numKvHeads} KV heads`;
  const heads = m.numKvHeads === 1 ? 'the one KV head' : `${held} of the ${m.numKvHeads} KV heads`;
  return `each holds ${heads} (${tp} GPUs on ${formatCountOf(m.numKvHeads, 'KV head')}: vLLM replicates ${m.numKvHeads === 1 ? 'it' : 'them'})`;
}

/**
 * How a per-GPU figure of `e` is labelled: '' on one GPU, " per GPU" under tensor parallelism,
 * " per GPU (stage 2 of 2)" under pipeline parallelism, whose per-GPU figures are one stage's
 * (Estimate.pipeline.stage: the stage with the fewest blocks).
 */
export function perGpuText(e: Pick<Estimate, 'pipeline'>, tp: number): string {
  const pp = e.pipeline;
  if (pp) return ` per GPU (stage ${pp.stage + 1} of ${pp.size})`;
  return tp > 1 ? ' per GPU' : '';
}

/**
 * The weights line's figure: what one GPU holds as vLLM loads it, Estimate.weightsBytesPerGpu, the
 * figure the editor's weights hint shows (server/hints.ts). vLLM's "Model loading took" counts
 * process_weights_after_loading, which runs inside BaseModelLoader.load_model under the
 * runner's DeviceMemoryProfiler, so an fp8 MLA checkpoint's bf16 kv_b_proj copies are in it
 * (DeepSeek-V3 on one GPU: 627 GiB checkpoint + 1.91 GiB copies = 629 GiB), and the KV pool is
 * what is left after it. Under tensor or pipeline parallelism the checkpoint's total comes first
 * ("in all"); on one GPU, where the two differ, the checkpoint and what is added or offloaded
 * follow in parentheses. Under tensor parallelism alone the per-GPU figure is split so the figures
 * add up (s47 newcomer LOW-4: DeepSeek-V3 at tp 8 "627 GiB in all, 79.5 GiB per GPU", 8 × 79.5 =
 * 636): (checkpoint − what every GPU holds whole) ÷ tp + that (norms, the router, MLA's
 * a-projections: Estimate.replicated, tpWeightsFormula) + those copies.
 */
function weightsText(e: Estimate, perGpu: string, tp = 1): string {
  if (perGpu) {
    const copies = e.kvBProjCopiesBytesPerGpu ?? 0;
    const formula = tpWeightsFormula(e.weightsBytes, tp, e.replicated);
    const split = !e.pipeline && tp > 1 && !e.cpuOffloadBytesPerGpu && (formula || copies > 0)
      ? ` (${formula || `${formatBytes(e.weightsBytes)} ÷ ${tp}`}${copies > 0 ? ` + ${formatBytes(copies)} ${e.model.dtype} kv_b_proj copies` : ''})`
      : '';
    return `${formatBytes(e.weightsBytes)} in all, ${formatBytes(e.weightsBytesPerGpu)}${perGpu}${split}`;
  }
  const copies = e.kvBProjCopiesBytesPerGpu ?? 0;
  const offloaded = e.cpuOffloadBytesPerGpu ?? 0;
  if (copies === 0 && offloaded === 0) return formatBytes(e.weightsBytesPerGpu);
  return `${formatBytes(e.weightsBytesPerGpu)}${offloaded > 0 ? ' on the GPU' : ''} (checkpoint ${formatBytes(e.weightsBytes)}${copies > 0 ? ` + ${formatBytes(copies)} ${e.model.dtype} kv_b_proj copies` : ''}${offloaded > 0 ? ` − ${formatBytes(offloaded)} in CPU memory` : ''})`;
}

/** The memory estimate as labelled lines; `bareConfig`: the estimate is of a bare config.json (core/config isBareConfig), whose unsized pool asks for a profile, not keys. */
export function formatEstimate(e: Estimate, title: string, opts: { tensorParallelSize?: number; weightsQuantization?: { spec: QuantizationSpec; width: string } | null; stateName?: string; bareConfig?: boolean } = {}): string {
  const m = e.model;
  const tp = opts.tensorParallelSize ?? 1;
  const pp = e.pipeline;
  // Under pipeline parallelism the per-GPU figures are one stage's (Estimate.pipeline.stage).
  const perGpu = perGpuText(e, tp);
  const lines: string[] = [];
  const q = opts.weightsQuantization;
  const weightsDtype = q ? `${m.dtype} (${quantizedScopeText(q.spec)} ${q.spec.method} at ${q.width})` : m.dtype;
  lines.push(`${title}: ${m.attention.toUpperCase()} L=${m.numLayers} H=${m.numHeads} H_kv=${m.numKvHeads} head_dim=${m.headDim} hidden=${m.hiddenSize}${m.slidingWindow ? ` sliding_window=${m.slidingWindow}` : ''}${m.attentionChunkSize ? ` attention_chunk_size=${m.attentionChunkSize} (chunked attention)` : ''}, weights ${weightsDtype}${e.hasKvCache ? `, KV ${e.kvDtype}` : ', no KV cache'}${pp ? `, tensor parallel ${tp} × pipeline parallel ${pp.size} (${formatCount(tp * pp.size)} GPUs)` : tp > 1 ? `, tensor parallel ${tp}` : ''}`);
  const params = e.paramsActive !== e.paramsTotal
    ? `${formatCount(e.paramsTotal)} total, ${formatCount(e.paramsActive)} active per token without the input embedding (${formatCount(e.paramsActiveWithEmbedding ?? e.paramsTotal - e.params.experts + e.params.expertsActive)} with it)`
    : formatCount(e.paramsTotal);
  lines.push(`  parameters        ${params}`);
  lines.push(`  weights           ${weightsText(e, perGpu, tp)}`);
  // The per-sequence state of Mamba (or Gated DeltaNet) layers, named as mixerNames' short name.
  const stateLine = (e.mambaStateBytesPerSeq ?? 0) > 0
    ? `  ${`${opts.stateName ?? 'Mamba'} state`.padEnd(18)}${formatBytes(e.mambaStateBytesPerSeq!)}`
    : null;
  if (e.kvBytesPerToken === 0) {
    // An encoder, or a hybrid with no attention layer left (Qwen3-Next with full_attention_interval above num_hidden_layers).
    lines.push(`  KV cache          none: ${e.hasKvCache ? 'no layer attends' : 'an encoder keeps no KV cache'}`);
    if (stateLine) lines.push(`${stateLine}${perGpu} per sequence, whatever its length (${formatCount(e.mambaStateBytesPerSeq!)} B)`);
  } else {
    // The exact byte count only where the unit rounds it (s47 newcomer LOW-12: "512 B (512 B; ...)").
    const exact = formatBytes(e.kvBytesPerToken) === `${formatCount(e.kvBytesPerToken)} B` ? '' : `${formatCount(e.kvBytesPerToken)} B; `;
    lines.push(`  KV per token      ${formatBytes(e.kvBytesPerToken)}${perGpu} (${exact}${formatBytes(e.kvBytesPerTokenPerLayer)} per layer)`);
    if (stateLine) lines.push(`${stateLine}${perGpu} per sequence, whatever its length (${formatCount(e.mambaStateBytesPerSeq!)} B; ${e.pool.layout.kind === 'mamba' ? `held in the pool as ${e.pool.layout.mambaCacheMode === 'all' ? 'one block per block of tokens (mamba_cache_mode "all")' : formatCountOf(e.pool.layout.stateBlocks, 'block')} per Mamba group: see the note` : 'not in the pool: see the note'})`);
    const hybrid = grouped(e.pool.layout);
    lines.push(`  page              ${formatBytes(e.pageBytes)}${perGpu} ${hybrid ? `per block, ${e.pool.layout.groupSize} layers of one KV-cache group${e.pool.layout.kind === 'mamba' ? ` (${formatCount(e.pool.layout.pageSize)} tokens of attention, or one Mamba state each)` : ''}` : pp ? `for all ${e.pool.layout.groupSize} layers of the stage` : 'for all layers'} (${formatBytes(e.pageBytesPerLayer)} per layer)`);
    if (e.pool.budgetSource === 'none') {
      // A bare config.json has no device keys to set: its note says which profile to write (core/config bareConfigProfileHint).
      lines.push(`  KV pool           no budget: ${opts.bareConfig ? 'a config.json names no GPU (the note below says what to write)' : 'set device.gpu, device.memory_gib or kv_cache.memory_gib'}`);
    } else {
      lines.push(...budgetLines(e, perGpu));
      // A run saved before the layout carried its block size and Mamba groups: the page over the per-layer KV gives the one, 0 the other.
      const saved = e.pool.layout as Partial<KvPoolLayout>;
      const blocks = poolBlocksText({ ...e.pool.layout, pageSize: saved.pageSize ?? e.pageBytesPerLayer / e.kvBytesPerTokenPerLayer, mambaGroups: saved.mambaGroups ?? 0 }, e.pool.pages);
      // Under TP every rank holds its part of the KV cache of every token (vLLM shards heads, not
      // tokens): the pool's token capacity is the same on each GPU and is not multiplied by tp.
      const gpus = tp * (pp?.size ?? 1);
      const share = pp ? `${tp > 1 ? tpKvShareText(m, tp) : 'each holds every KV head'} in its stage's layers for every one of these tokens` : `${tpKvShareText(m, tp)} of every one of these tokens`;
      const shared = gpus > 1 && e.pool.tokens > 0 ? `, the capacity of all ${gpus} GPUs together: ${share} (not ${gpus} × ${formatCount(e.pool.tokens)})` : '';
      lines.push(hybrid
        ? `  KV pool           ${formatCountOf(e.pool.pages, 'block')} of ${blocks.block}${perGpu}: vLLM's log says ${blocks.tokens}`
        : `  KV pool           ${formatCountOf(e.pool.pages, 'page')} = ${formatCountOf(e.pool.tokens, 'token')}${shared}`);
      // An empty pool has no concurrency to give (s52 newcomer: "0.00x ... 0 whole sequences"): the note says why.
      if (e.pool.pages > 0) lines.push(`  max concurrency   ${formatConcurrency(e.pool.maxConcurrency)} for ${formatCountOf(e.pool.concurrencySeqLen, 'token')} per request (vLLM's figure: ${hybrid ? 'blocks' : 'pages'} / ${e.pool.layout.kind === 'uniform' ? 'ceil(N / page_size)' : `${formatCount(e.pool.blocksPerSeq)} blocks a request reserves = ${blocksPerRequestFormula(e.pool.layout)}`}); ${formatCountOf(e.pool.sequencesAtOnce, 'whole sequence fits', 'whole sequences fit')} at once`);
    }
  }
  // The workspace is per layer and one GPU's heads (H / tp): the same on every pipeline stage.
  const perGpuHeads = tp > 1 ? ' per GPU' : '';
  lines.push(`  attention at N=${formatCount(e.attention.seqLen)}: naive S+P ${formatBytes(e.attention.naiveBytes)} per layer${perGpuHeads} vs flash ${formatBytes(e.attention.flashBytes)}${perGpuHeads}`);
  for (const note of e.notes) lines.push(`  note: ${note}`);
  return lines.join('\n');
}

/**
 * The KV budget, term by term: an explicit budget in one line; a device-derived one as vLLM's
 * profiling subtracts it (usable memory, then every reserve term with its value and source,
 * CUDA graphs listed even when not subtracted), then the result.
 */
function budgetLines(e: Estimate, perGpu: string): string[] {
  const p = e.pool;
  if (p.budgetSource === 'explicit') return [`  KV budget         ${formatBytes(p.budgetBytes)}${perGpu} (explicit: kv_cache.memory_gib, kv_cache_memory_bytes or num_pages)`];
  const lines = [`  KV budget         ${formatBytes(p.usableBytes)} usable${perGpu} = ${p.deviceSource} × gpu_memory_utilization ${p.gpuMemoryUtilization}`];
  for (const t of p.reserve) {
    const sign = t.subtracted ? '−' : ' ';
    lines.push(`                    ${sign} ${`${t.label} ${t.unknown ? 'unknown' : formatBytes(t.bytes)}`.padEnd(28)} ${t.origin === 'profile' ? 'from the profile' : 'modelled'}: ${t.basis}${t.subtracted ? '' : ' (not subtracted)'}`);
  }
  lines.push(`                    = ${formatBytes(p.budgetBytes)}${perGpu} for the KV cache`);
  return lines;
}

/** formatEstimate with the profile's tensor parallelism and the weights' quantization labelled. */
export function formatEstimateOf(profile: Profile, e: Estimate, title: string): string {
  const spec = profile.model.quantization;
  const width = quantizedWidthText(profile.model);
  const mamba = profile.model.mamba;
  return formatEstimate(e, title, { tensorParallelSize: profile.device.tensorParallelSize, weightsQuantization: spec && width ? { spec, width } : null, ...(mamba ? { stateName: mixerNames(mamba).short } : {}), bareConfig: isBareConfig(profile) });
}

/**
 * " (avx2 loop, as ATTNSCOPE_SIMD=avx2)" where ATTNSCOPE_SIMD made the kernels take a narrower
 * path and the fp32 FMA peak was measured on that path's loop (native/src/peaks/peaks.h), so the
 * reader knows which unit's peak the forced path's % divides by; "" otherwise.
 */
function fmaPeakIsa(env: NonNullable<RunResult['environment']>): string {
  const o = env.simdOverride;
  if (!o?.applied || (env.simd !== 'avx2' && env.simd !== 'scalar')) return '';
  return ` (${env.simd === 'avx2' ? 'avx2' : 'portable'} loop, as ATTNSCOPE_SIMD=${o.value})`;
}

/**
 * The whole run for the terminal: environment line, estimate, kernel table (the cases finished,
 * for a cancelled run: what the command's stderr line says was kept), pool; a failed run's error.
 */
export function formatRun(run: RunResult, options: { explain?: boolean } = {}): string {
  const env = run.environment;
  const out: string[] = [];
  if (env) {
    const p = env.peaks ?? {};
    const peaks = [
      p.fp32FlopsPerSec ? `fp32 FMA ${formatRate(p.fp32FlopsPerSec, 'FLOP/s')}${fmaPeakIsa(env)}` : null,
      p.bf16AmxFlopsPerSec ? `AMX bf16 ${formatRate(p.bf16AmxFlopsPerSec, 'FLOP/s')}` : null,
      p.avx512Bf16FlopsPerSec ? `AVX512-BF16 ${formatRate(p.avx512Bf16FlopsPerSec, 'FLOP/s')}` : null,
      p.gpuFlopsPerSec ? `GPU bf16 ${formatRate(p.gpuFlopsPerSec, 'FLOP/s')}` : null,
      p.gpuCopyBytesPerSec ? `GPU copy ${formatRate(p.gpuCopyBytesPerSec, 'B/s')}` : null,
      p.readBytesPerSec ? `read ${formatRate(p.readBytesPerSec, 'B/s')}` : null,
    ].filter(Boolean);
    out.push(`${env.gpu ? `${env.gpu.name} (${env.gpu.smCount} SMs) · ` : ''}${cpuName(env)} · ${formatCountOf(env.threads, 'thread')} · ${env.simd}${env.nativeBuild === 'wasm' ? ' (WebAssembly)' : ''}${peaks.length ? ` · peaks: ${peaks.join(', ')}` : ''}`);
    const load = loadAverageText(env);
    if (load) out.push(load.text);
    if (env.simdOverride?.warning) out.push(`warning: ${env.simdOverride.warning}`);
    if (env.simdDispatchReason) out.push(`CPU kernels' paths: ${env.simdDispatchReason}`);
    if (env.nativeBuild === 'wasm') out.push(`CPU kernels, allocator and simulator: WebAssembly module, one thread (${env.nativeBuildReason ?? 'ATTNSCOPE_BACKEND=wasm'})`);
    out.push('');
  }
  out.push(formatEstimateOf(run.profile, run.estimate, run.name));
  out.push('');
  const caption = casesCaption(run);
  if (caption) out.push(caption);
  // A run cancelled before its first case has no rows: no table header over nothing (s46 newcomer46 L4).
  if (run.cases.length > 0) out.push(formatCases(run.cases, undefined, run.environment));
  // A decode case read from cache: its % of the DRAM read peak is a cache figure (core/format.ts fromCacheText says by what).
  for (const c of run.cases) {
    const fromCache = fromCacheText(c, run.environment);
    if (fromCache) out.push(`note: ${c.kernel} ${shapeText(c)}: ${fromCache}`);
  }
  const mla = run.profile.model.mla;
  const prefillNote = mla ? mlaPrefillHeadDim(mla).note : null;
  if (prefillNote && run.cases.some((c) => c.kernel === 'flash_fwd')) out.push(`note: ${prefillNote}`);
  if (mla && run.cases.some((c) => c.kernel === 'paged_decode')) out.push(`note: ${mlaDecodeHeadDim(mla).note}`);
  const softcap = run.profile.model.attnLogitSoftcapping;
  if (softcap && run.cases.length > 0) out.push(`note: ${softcapNote(softcap)}`);
  if (run.pool) out.push('', formatPoolSummary(run.pool, run.profile.device, options));
  // A cancelled run's one message is the CLI's stderr line (runner/errors.ts cancelLine: the signal, how far, what was
  // written), not a second "run cancelled" here on stdout (s47 newcomer: Ctrl-C printed both).
  if (run.status === 'failed') out.push(`\nrun failed${run.error ? `: ${run.error}` : ''}`);
  return out.join('\n');
}
