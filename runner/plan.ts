/**
 * Plans the benchmark cases of a run from a resolved Profile: one flash_fwd case per prefill
 * length and one paged_decode case per (batch size, context length), each under every mask the
 * model's layers use (full, and its sliding window when it has sliding layers), with the heads one GPU
 * runs (H / tp query heads, the H_kv / tp KV heads it holds, replicated when tp > H_kv; all of
 * them at tp 1) and the model's head_dim. `quick` keeps the smallest prefill length and decode shape so that a
 * run takes seconds. Every case also gets the reduced shape its correctness check runs on.
 */
import { totalmem } from 'node:os';
import { isFp8KvDtype, type Dtype, type Profile } from '../core/config/types';
import { headsPerGpu, isChunkedLocalAttention, kvHeadsPerGpu } from '../core/estimate';
import { KERNEL_LIMITS } from '../core/estimate/checks';
import { mlaDecodeHeadDim, mlaPrefillHeadDim } from '../core/kernelLimits';
import { formatBytes, formatCount } from '../core/format';
import { caseCountRefusal, caseWindows } from '../core/refusals';
import type { CaseShape, KernelName } from '../core/protocol/run';

export interface PlannedCase {
  kernel: Exclude<KernelName, 'reference'>;
  shape: CaseShape;
  dtype: Dtype;
  kvDtype: Dtype;
  /** Reduced shape checked against the fp64 reference (same heads, head_dim and masks). */
  checkShape: CaseShape;
}

export interface PlanOptions {
  quick: boolean;
}

/** Largest sequence length the fp64 reference is run at (it materializes N_q × N_k per head). */
export const CHECK_MAX_SEQ = 256;
/** Query heads kept in the check (a multiple of the GQA group, so grouping is still exercised). */
const CHECK_MAX_HEADS = 8;

function checkHeads(numHeads: number, numKvHeads: number): { h: number; hkv: number } {
  const group = numHeads / numKvHeads;
  if (numHeads <= CHECK_MAX_HEADS) return { h: numHeads, hkv: numKvHeads };
  const hkv = Math.max(1, Math.min(numKvHeads, Math.floor(CHECK_MAX_HEADS / group)));
  return { h: hkv * group, hkv };
}

/**
 * The attention shapes a model runs. Prefill: MLA models decompress the latent and run
 * multi-head attention with the qk head dim (nope + rope), as vLLM's MLA prefill does, V at that
 * width too (mlaPrefillHeadDim: the kernels take one head_dim; its note says so in runs). Decode:
 * MLA attends from every query head to the one shared latent (the weight-absorbed form, as
 * FlashMLA), so it runs as MQA at mlaDecodeHeadDim (core/kernelLimits.ts: kv_lora_rank, the rope
 * part left out, which the CPU kernels' head_dim <= 512 cannot hold; its note says so in runs),
 * its shape carrying the latent width (kv_lora_rank + qk_rope_head_dim) its bytes are counted at.
 * Under tensor parallelism every count is one GPU's, as vLLM shards heads: H / tp query heads
 * (headsPerGpu), max(1, H_kv / tp) KV heads (kvHeadsPerGpu); MLA's decompressed prefill heads are
 * the query heads, its decode latent is one replicated head.
 */
function modelHeads(profile: Profile): { h: number; prefillHkv: number; prefillD: number; decodeHkv: number; decodeD: number; mlaLatentDim?: number } {
  const m = profile.model;
  const tp = profile.device.tensorParallelSize;
  const h = headsPerGpu(m, tp);
  if (m.mla) {
    const mlaLatentDim = m.mla.kvLoraRank + m.mla.qkRopeHeadDim;
    return { h, prefillHkv: h, prefillD: mlaPrefillHeadDim(m.mla).headDim, decodeHkv: 1, decodeD: mlaDecodeHeadDim(m.mla).headDim, mlaLatentDim };
  }
  const hkv = kvHeadsPerGpu(m, tp);
  return { h, prefillHkv: hkv, prefillD: m.headDim, decodeHkv: hkv, decodeD: m.headDim };
}

/**
 * The prefill lengths and decode contexts the model's sliding window covers whole (N or ctx <=
 * sliding_window: the window hides no key), as a note, or null: those lengths are benchmarked
 * as full attention, once (a model with full layers too has that case already). `quick` as planCases.
 */
export function windowCoverage(profile: Profile, quick: boolean): string | null {
  const w = profile.model.slidingWindow;
  if (w === null || !caseWindows(profile).includes(w)) return null;
  const axes = caseAxes(profile, quick);
  const prefill = axes.seqLens.filter((n) => n <= w);
  const decode = axes.contextLens.filter((n) => n <= w);
  const list = (what: string, ns: number[]) => (ns.length === 0 ? [] : [`${what} = ${ns.map((n) => formatCount(n)).join(', ')}`]);
  const covered = [...list('prefill N', prefill), ...list('decode ctx', decode)];
  if (covered.length === 0) return null;
  const count = prefill.length + decode.length;
  // Llama 4's chunked attention: a sequence of N <= the chunk is one chunk, attended whole as well.
  const what = isChunkedLocalAttention(profile.model) ? `the attention chunk (attention_chunk_size ${formatCount(w)} tokens)` : `the sliding window (${formatCount(w)} tokens)`;
  const kind = isChunkedLocalAttention(profile.model) ? 'chunked' : 'sliding-window';
  return `${what} covers ${covered.join(' and ')} whole, where ${kind} attention is full attention: ${count === 1 ? 'that length is' : 'those lengths are'} benchmarked once, as full attention, not again under a window label`;
}

/** KV dtype the kernels run with: fp8 KV is estimate-only on CPU, so decode then runs in the Q dtype. */
function kernelKvDtype(profile: Profile): Dtype {
  const kv = profile.kvCache.dtype;
  return kv === 'auto' || isFp8KvDtype(kv) ? profile.dtype : kv;
}

/** Quick mode's longest prefill and decode context: a quick run takes seconds. */
export const QUICK_MAX_SEQ_LEN = 512;
export const QUICK_MAX_CONTEXT_LEN = 1024;

const ascending = (xs: number[]) => [...new Set(xs)].sort((a, b) => a - b);

/**
 * The lengths and batch sizes a run takes: the profile's, distinct and ascending; `quick` keeps
 * the smallest of each, the lengths capped at QUICK_MAX_SEQ_LEN / QUICK_MAX_CONTEXT_LEN.
 */
function caseAxes(profile: Profile, quick: boolean): { seqLens: number[]; batchSizes: number[]; contextLens: number[] } {
  const seqLens = ascending(profile.prefill.seqLens);
  const batchSizes = ascending(profile.decode.batchSizes);
  const contextLens = ascending(profile.decode.contextLens);
  if (!quick) return { seqLens, batchSizes, contextLens };
  return {
    seqLens: seqLens.slice(0, 1).map((n) => Math.min(n, QUICK_MAX_SEQ_LEN)),
    batchSizes: batchSizes.slice(0, 1),
    contextLens: contextLens.slice(0, 1).map((n) => Math.min(n, QUICK_MAX_CONTEXT_LEN)),
  };
}

/** The C++ timing loop's budget per case: warm-up calls, then samples until minReps and minTimeMs, or stop at maxTimeMs. */
export interface TimingBudget {
  warmup: number;
  minReps: number;
  minTimeMs: number;
  maxTimeMs: number;
}

/**
 * Timing budget per case (DESIGN.md §Benchmark method): after the warm-up the C++ loop
 * (native timing.cc) times runs until it has 30 samples and 200 ms, or stops at 2 s, so a case
 * slower than 2 s / 30 = 67 ms gets fewer than 30 samples (2 s / its time, at least one).
 * Quick mode: 10 samples and 100 ms, 0.5 s at most (quickShortening says so).
 */
export function timingBudget(quick: boolean): TimingBudget {
  return quick
    ? { warmup: 1, minReps: 10, minTimeMs: 100, maxTimeMs: 500 }
    : { warmup: 1, minReps: 30, minTimeMs: 200, maxTimeMs: 2000 };
}

/** "until 30 samples and 0.2 s, at most 2 s": a timing budget in words. */
export function timingBudgetText(b: TimingBudget): string {
  return `until ${b.minReps} samples and ${b.minTimeMs / 1000} s, at most ${b.maxTimeMs / 1000} s`;
}

/**
 * What `--quick` changed, one entry per list of the profile's cases it shortened
 * ("prefill.seq_lens [1024, 4096] -> [512]"; none when they are already quick), and always the
 * timing budget per case, which --quick cuts whatever the cases
 * ("timing per case until 30 samples and 0.2 s, at most 2 s -> until 10 samples and 0.1 s, at most 0.5 s").
 */
export function quickShortening(profile: Profile): string[] {
  const quick = caseAxes(profile, true);
  const lists: Array<[string, number[], number[]]> = [
    ['prefill.seq_lens', profile.prefill.seqLens, quick.seqLens],
    ['decode.batch_sizes', profile.decode.batchSizes, quick.batchSizes],
    ['decode.context_lens', profile.decode.contextLens, quick.contextLens],
  ];
  const cases = lists.filter(([, from, to]) => from.length !== to.length || from.some((n, i) => n !== to[i])).map(([key, from, to]) => `${key} [${from.join(', ')}] -> [${to.join(', ')}]`);
  return [...cases, `timing per case ${timingBudgetText(timingBudget(false))} -> ${timingBudgetText(timingBudget(true))}`];
}

/** Cases in run order: prefill lengths ascending, then decode shapes ascending by work. */
export function planCases(profile: Profile, opts: PlanOptions): PlannedCase[] {
  const { h, prefillHkv, prefillD, decodeHkv, decodeD, mlaLatentDim } = modelHeads(profile);
  const dtype = profile.dtype;
  const kvDtype = kernelKvDtype(profile);
  const tp = profile.device.tensorParallelSize;
  // The shapes are one GPU's share under tensor parallelism: the run says so (CaseShape).
  const perGpu = tp > 1 ? { tensorParallelSize: tp } : {};
  const cases: PlannedCase[] = [];

  const { seqLens, batchSizes, contextLens } = caseAxes(profile, opts.quick);
  const prefillCheck = checkHeads(h, prefillHkv);
  const windows = caseWindows(profile);
  for (const w of windows) {
    for (const n of seqLens) {
      // A window of at least N keys hides none (kernels.h: key j visible iff j > i − W): full
      // attention, planned once (see windowCoverage).
      const covers = w !== null && n <= w;
      if (covers && windows.includes(null)) continue;
      const window = covers ? null : w;
      const shape: CaseShape = {
        batchSize: profile.prefill.batchSize,
        numHeads: h,
        numKvHeads: prefillHkv,
        headDim: prefillD,
        seqLenQ: n,
        seqLenK: n,
        causal: profile.prefill.causal,
        slidingWindow: window,
        ...perGpu,
      };
      const cn = Math.min(n, CHECK_MAX_SEQ);
      // An odd length (not a multiple of any tile) exercises the tails.
      const checkN = cn > 2 && cn % 2 === 0 ? cn - 1 : cn;
      cases.push({
        kernel: 'flash_fwd',
        shape,
        dtype,
        kvDtype: dtype,
        checkShape: { ...shape, batchSize: 1, numHeads: prefillCheck.h, numKvHeads: prefillCheck.hkv, seqLenQ: checkN, seqLenK: checkN },
      });
    }
  }

  const pageSize = profile.kvCache.pageSize;
  const decodeCheck = checkHeads(h, decodeHkv);
  for (const b of batchSizes) {
    for (const ctx of contextLens) {
      for (const w of windows) {
        // The query (position ctx − 1) sees keys j > ctx − 1 − W: a window of at least ctx
        // tokens hides none, so that context is the full case, planned once (windowCoverage).
        const covers = w !== null && ctx <= w;
        if (covers && windows.includes(null)) continue;
        const window = covers ? null : w;
        const shape: CaseShape = {
          batchSize: b,
          numHeads: h,
          numKvHeads: decodeHkv,
          headDim: decodeD,
          seqLenQ: 1,
          seqLenK: ctx,
          causal: true,
          // Sliding layers: the kernel reads the pages of the last W tokens only (kernels.h).
          slidingWindow: window,
          pageSize,
          // The model reads one latent per token for K and V: the bytes count it once (attentionBytes).
          ...(mlaLatentDim ? { mlaLatentDim } : {}),
          ...perGpu,
        };
        // A partial last page; under a window, a context past it, so the check sees the window
        // hide keys and start inside a page (gpt-oss at ctx 1,024: 1,021 − 128 = 893, page 55 slot 13 of 16).
        const checkCtx = Math.min(ctx, (window ?? 0) + 4 * CHECK_MAX_SEQ) - 3;
        cases.push({
          kernel: 'paged_decode',
          shape,
          dtype,
          kvDtype,
          checkShape: { ...shape, batchSize: Math.min(b, 3), numHeads: decodeCheck.h, numKvHeads: decodeCheck.hkv, seqLenK: Math.max(1, checkCtx) },
        });
      }
    }
  }
  return cases;
}

/** One part of the memory a case holds while it runs: what it is, and its bytes. */
export interface CasePart {
  what: string;
  bytes: number;
}

/**
 * The memory a case holds while it runs, part by part (bytes): Q in the compute dtype, K and V in
 * the KV dtype (decode: the page pools, whole pages), and the kernel's fp32 outputs O and lse.
 * The timed runs fill K and V in place from one 2^20-value block (runner/inputs.ts fillTiled), so
 * no fp32 copy of a pool is held; that block (6 MiB at most), the per-thread scratch and the check's
 * small shape are left out. Decode B=64 ctx=16,384, 8 KV heads, D 128, bf16: K and V
 * 2 · 64 · 16,384 · 8 · 128 · 2 B = 4 GiB.
 */
export function caseParts(c: PlannedCase): CasePart[] {
  const s = c.shape;
  const size = (dtype: Dtype) => (dtype === 'fp32' ? 4 : 2);
  const q = s.batchSize * s.seqLenQ * s.numHeads * s.headDim;
  const kvTokens = c.kernel === 'paged_decode' ? s.batchSize * Math.ceil(s.seqLenK / (s.pageSize ?? 16)) * (s.pageSize ?? 16) : s.batchSize * s.seqLenK;
  const kv = 2 * kvTokens * s.numKvHeads * s.headDim;
  const lse = s.batchSize * s.seqLenQ * s.numHeads;
  return [
    { what: `K and V ${c.kvDtype}`, bytes: kv * size(c.kvDtype) },
    { what: `Q ${c.dtype}`, bytes: q * size(c.dtype) },
    { what: 'O and lse fp32', bytes: (q + lse) * 4 },
  ];
}

/** Bytes a case holds while it runs: the sum of caseParts. */
export function caseBytes(c: PlannedCase): number {
  return caseParts(c).reduce((sum, p) => sum + p.bytes, 0);
}

/** Largest case a run takes: half of this machine's memory, and no typed array over 2^31 elements. */
export function caseMemoryLimit(): number {
  return Math.floor(totalmem() / 2);
}

/** caseCountRefusal (core/refusals.ts) of the lists this run plans (`quick`: one of each). */
function caseCountProblem(profile: Profile, quick: boolean): { key: string; message: string } | null {
  const { seqLens, batchSizes, contextLens } = caseAxes(profile, quick);
  return caseCountRefusal(profile, { seqLens: seqLens.length, batchSizes: batchSizes.length, contextLens: contextLens.length });
}

/**
 * Every reason the planned cases cannot run here, each with the profile key to change, in plan
 * order (prefill cases, then decode), each message once; empty when all can: case lists past
 * MAX_CASES (core/refusals.ts caseCountRefusal; the full plan is then not built, as planning
 * 200,000 lengths ran minutes: its head_dim is checked on the quick plan, whose cases have the same
 * heads), a head_dim past the CPU kernels', each case past this machine's memory or 2^31 elements
 * in one K (or V) array. A user fixing the profile sees them all in one run, not one a run.
 * @param memoryLimit bytes one case may hold (default caseMemoryLimit()).
 */
export function planProblems(profile: Profile, quick: boolean, memoryLimit = caseMemoryLimit()): { key: string; message: string }[] {
  const problems: { key: string; message: string }[] = [];
  const tooMany = caseCountProblem(profile, quick);
  if (tooMany) problems.push(tooMany);
  const add = (key: string, message: string) => {
    if (!problems.some((p) => p.message === message)) problems.push({ key, message });
  };
  for (const c of planCases(profile, { quick: quick || tooMany !== null })) {
    if (c.shape.headDim > KERNEL_LIMITS.cpu.maxHeadDim) {
      add('model.head_dim', `head_dim ${c.shape.headDim} is larger than the CPU kernels take (at most ${KERNEL_LIMITS.cpu.maxHeadDim})`);
      continue;
    }
    if (tooMany) continue;
    const bytes = caseBytes(c);
    const s = c.shape;
    const elements = s.batchSize * s.seqLenK * s.numKvHeads * s.headDim; // one K (or V) array
    if (bytes <= memoryLimit && elements < 2 ** 31) continue;
    const key = c.kernel === 'flash_fwd' ? 'prefill.seq_lens' : 'decode.context_lens';
    const what = c.kernel === 'flash_fwd' ? `prefill N=${s.seqLenQ}` : `decode B=${s.batchSize} ctx=${s.seqLenK}`;
    const lower = c.kernel === 'flash_fwd' ? `lower the sequence length ${s.seqLenQ}` : `lower the context ${s.seqLenK} or the batch size ${s.batchSize}`;
    if (elements >= 2 ** 31) {
      // Past any machine's help: said first, as a larger machine would not take it either.
      add(key, `${what} holds ${formatCount(elements)} values in one K array, more than the ${formatCount(2 ** 31 - 1)} an array takes: ${lower}`);
    } else {
      const parts = caseParts(c).map((p) => `${p.what} ${formatBytes(p.bytes)}`).join(', ');
      add(key, `${what} needs ${formatBytes(bytes)} of memory (${parts}), more than the ${formatBytes(memoryLimit)} a case may use on this machine (half its memory): ${lower}`);
    }
  }
  return problems;
}
