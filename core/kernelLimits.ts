/**
 * What the attention kernels accept, typed. The numbers live in core/kernelLimits.json, which
 * the native builds read too (binding.gyp: -D ATTNSCOPE_CPU_MAX_HEAD_DIM; native/cuda/CMakeLists.txt:
 * a generated kernel_limits.h), so TypeScript, C++ and the language server agree by construction.
 * CPU: any head_dim up to cpu.maxHeadDim, any page_size, fp32 / fp16 / bf16. CUDA: the head dims
 * with a compiled kernel, page_size in [minPageSize, maxPageSize], fp16 / bf16. Neither has an
 * fp8 KV cache.
 */
import limits from './kernelLimits.json';
import type { Dtype, MlaSpec } from './config/types';

export interface KernelLimits {
  cpu: { maxHeadDim: number; dtypes: readonly Dtype[] };
  cuda: { headDims: readonly number[]; minPageSize: number; maxPageSize: number; dtypes: readonly Dtype[] };
}

export const KERNEL_LIMITS: KernelLimits = {
  cpu: { maxHeadDim: limits.cpu.maxHeadDim, dtypes: limits.cpu.dtypes as Dtype[] },
  cuda: { ...limits.cuda, dtypes: limits.cuda.dtypes as Dtype[] },
};

/**
 * The head_dim MLA prefill is benchmarked at, and (when v_head_dim differs) what that
 * substitutes, in a sentence. MLA prefill decompresses the latent and runs multi-head attention
 * (vLLM's MLA prefill path): q·k over qk_nope_head_dim + qk_rope_head_dim dims (DeepSeek-V3:
 * 128 + 64 = 192), P·V over v_head_dim (128). The flash kernels take one head_dim for Q, K and V,
 * so V runs at the q·k width: P·V does qk / v_head_dim times the model's FLOPs and V bytes (1.5x
 * for DeepSeek-V3), and the timings include that extra work. `note` is null when the widths match.
 */
export function mlaPrefillHeadDim(mla: MlaSpec): { headDim: number; note: string | null } {
  const headDim = mla.qkNopeHeadDim + mla.qkRopeHeadDim;
  if (mla.vHeadDim === headDim) return { headDim, note: null };
  const ratio = Number((headDim / mla.vHeadDim).toPrecision(3));
  return {
    headDim,
    note: `MLA prefill is benchmarked with V at head_dim ${headDim}, not v_head_dim ${mla.vHeadDim}: the model's q·k runs over ${headDim} dims (qk_nope_head_dim ${mla.qkNopeHeadDim} + qk_rope_head_dim ${mla.qkRopeHeadDim}) and P·V over ${mla.vHeadDim}, while the flash kernels take one head_dim for K and V, so P·V does ${ratio}x the model's FLOPs and V bytes (the timings include them)`,
  };
}

/**
 * The head_dim MLA decode is benchmarked at, and what that substitutes, in a sentence. MLA decode
 * in the weight-absorbed form (FlashMLA, vLLM's MLA backends) attends from every query head to
 * one shared latent: q·k over kv_lora_rank + qk_rope_head_dim dims (DeepSeek-V3: 512 + 64 = 576),
 * the output over kv_lora_rank (512). The paged decode kernels take one head_dim for K and V, at
 * most cpu.maxHeadDim (512), so it runs as MQA at head_dim min(kv_lora_rank, 512): the rope
 * part's share of the q·k FLOPs is left out, and the output is exact. The kernels read K and V
 * as two copies of the kv_lora_rank latent (2 · 512 values a token) where the model reads its
 * 576-value latent once (1.78× the model's bytes); a run's bytes count the model's latent
 * (runner/measure.ts attentionBytes), so its rate is the model's effective bandwidth. The note
 * states that count whole (s51 nc-cli #15: "its rate counts the model's 576 values a token" left out
 * Q and O): DeepSeek-V3 bf16 B=1 ctx=1,024, 128 heads: 1,024 · 576 · 2 + Q 128 · 512 · 2 + O
 * 128 · 512 · 4 = 1,572,864 B, the run JSON's.
 */
export function mlaDecodeHeadDim(mla: MlaSpec): { headDim: number; note: string } {
  const qk = mla.kvLoraRank + mla.qkRopeHeadDim;
  const headDim = Math.min(mla.kvLoraRank, KERNEL_LIMITS.cpu.maxHeadDim);
  const left = qk - headDim;
  const share = `${Math.round((100 * left) / qk)}%`;
  return {
    headDim,
    note: `MLA decode is benchmarked at head_dim ${headDim}, not ${qk}: the model attends over its latent with q·k in ${qk} dims (kv_lora_rank ${mla.kvLoraRank} + qk_rope_head_dim ${mla.qkRopeHeadDim}) and v in ${mla.kvLoraRank}, while the paged decode kernels take one head_dim for K and V (at most ${KERNEL_LIMITS.cpu.maxHeadDim} on the CPU), so ${left} of the ${qk} q·k dims (${share} of its FLOPs) are left out; and the kernels read K and V as two copies of the ${headDim}-dim latent, ${(2 * headDim).toLocaleString('en-US')} values a token against the ${qk}-value latent the model reads once (${(2 * headDim / qk).toFixed(2)}× its bytes), so the case reads more bytes than the model, not fewer: the bytes it is credited with (the run's, and its GB/s where memory-bound) count the model's ${qk}-value latent once a token in the KV dtype, plus Q in the dtype and O in fp32 at head_dim ${headDim} for every query head`,
  };
}

/**
 * What the kernels leave out of a model with attention logit soft-capping (Gemma-2's
 * attn_logit_softcapping, 50): the model computes cap · tanh(q·k / cap) for every query-key
 * pair before the softmax; the flash and paged decode kernels here do not, so their timings
 * lack that tanh per pair (vLLM's FlashAttention and FlashInfer backends apply it).
 */
export function softcapNote(cap: number): string {
  return `the model soft-caps its attention logits (attn_logit_softcapping ${cap}: cap · tanh(q·k / cap) before the softmax); the kernels here time attention without it, so the timings leave out one tanh per query-key pair`;
}
