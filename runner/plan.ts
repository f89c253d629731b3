/**
 * Plans the benchmark cases of a run from a resolved Profile: one flash_fwd case per prefill
 * length and one paged_decode case per (batch size, context length), with the model's own
 * H, H_kv and head_dim. `quick` keeps the smallest prefill length and decode shape so that a
 * run takes seconds. Every case also gets the reduced shape its correctness check runs on.
 */
import type { Dtype, Profile } from '../core/config/types';
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

/** The attention shape a model runs: MLA models run their kernels on the decompressed heads (qk head dim). */
function modelHeads(profile: Profile): { h: number; hkv: number; d: number; window: number | null } {
  const m = profile.model;
  const d = m.mla ? m.mla.qkNopeHeadDim + m.mla.qkRopeHeadDim : m.headDim;
  const hkv = m.mla ? m.numHeads : m.numKvHeads;
  const window = m.layerTypes.every((t) => t === 'sliding') ? m.slidingWindow : null;
  return { h: m.numHeads, hkv, d, window };
}

/** KV dtype the kernels run with: fp8 KV is estimate-only on CPU, so decode then runs in the Q dtype. */
function kernelKvDtype(profile: Profile): Dtype {
  const kv = profile.kvCache.dtype;
  return kv === 'auto' || kv === 'fp8_e4m3' ? profile.dtype : kv;
}

/** Cases in run order: prefill lengths ascending, then decode shapes ascending by work. */
export function planCases(profile: Profile, opts: PlanOptions): PlannedCase[] {
  const { h, hkv, d, window } = modelHeads(profile);
  const check = checkHeads(h, hkv);
  const dtype = profile.dtype;
  const kvDtype = kernelKvDtype(profile);
  const cases: PlannedCase[] = [];

  let seqLens = [...new Set(profile.prefill.seqLens)].sort((a, b) => a - b);
  if (opts.quick) seqLens = seqLens.slice(0, 1).map((n) => Math.min(n, 512));
  for (const n of seqLens) {
    const shape: CaseShape = {
      batchSize: profile.prefill.batchSize,
      numHeads: h,
      numKvHeads: hkv,
      headDim: d,
      seqLenQ: n,
      seqLenK: n,
      causal: profile.prefill.causal,
      slidingWindow: window,
    };
    const cn = Math.min(n, CHECK_MAX_SEQ);
    // An odd length (not a multiple of any tile) exercises the tails.
    const checkN = cn > 2 && cn % 2 === 0 ? cn - 1 : cn;
    cases.push({
      kernel: 'flash_fwd',
      shape,
      dtype,
      kvDtype: dtype,
      checkShape: { ...shape, batchSize: 1, numHeads: check.h, numKvHeads: check.hkv, seqLenQ: checkN, seqLenK: checkN },
    });
  }

  let batchSizes = [...new Set(profile.decode.batchSizes)].sort((a, b) => a - b);
  let contextLens = [...new Set(profile.decode.contextLens)].sort((a, b) => a - b);
  if (opts.quick) {
    batchSizes = batchSizes.slice(0, 1);
    contextLens = contextLens.slice(0, 1).map((n) => Math.min(n, 1024));
  }
  const pageSize = profile.kvCache.pageSize;
  for (const b of batchSizes) {
    for (const ctx of contextLens) {
      const shape: CaseShape = {
        batchSize: b,
        numHeads: h,
        numKvHeads: hkv,
        headDim: d,
        seqLenQ: 1,
        seqLenK: ctx,
        causal: true,
        // The decode kernel reads the whole context; sliding layers would read less.
        slidingWindow: null,
        pageSize,
      };
      const checkCtx = Math.min(ctx, 4 * CHECK_MAX_SEQ) - 3; // a partial last page
      cases.push({
        kernel: 'paged_decode',
        shape,
        dtype,
        kvDtype,
        checkShape: { ...shape, batchSize: Math.min(b, 3), numHeads: check.h, numKvHeads: check.hkv, seqLenK: Math.max(1, checkCtx) },
      });
    }
  }
  return cases;
}
