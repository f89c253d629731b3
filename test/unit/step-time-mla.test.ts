// MLA's attention FLOPs in the step-time model: vLLM runs prefill and decode in two forms of
// different cost per query-key pair (runner/simulate/step-time.ts pairFlopsPerHead).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { profileFromModelConfig } from '../../core/config/index';
import { chunkAttention, gemmSeconds, kvReadSeconds, mlaContextKvBytes, pairSeconds, stepSeconds, stepTimeModel, stepWork, weightReadSeconds } from '../../runner/simulate/step-time';
import { estimate } from '../../core/estimate/index';
import { loadModel } from './helpers';

const PEAKS = { computeEfficiency: 1, memoryEfficiency: 1, overheadMs: 0 };

test('DeepSeek-V3 at tp 8: prefill pairs at 640 FLOPs per head (non-absorbed MLA), decode pairs at 2,176 (absorbed), as vLLM runs them', () => {
  // By hand from vllm/v1/attention/backends/mla/common.py (its docstring and MLACommonImpl.forward)
  // and DeepSeek-V3's config.json (qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128,
  // kv_lora_rank 512, 128 heads, 61 layers):
  //   prefill (_forward_prefill: "MHA with QK headdim = P + R, V headdim = V"): q·k over
  //     128 + 64 = 192 dims, P·V over 128: 2 · 192 + 2 · 128 = 640 FLOPs per pair and head;
  //   decode (_forward_decode on query_len <= reorder_batch_threshold = 1: "MQA with QK headdim =
  //     Lkv + R, V headdim = Lkv"): q·k over 512 + 64 = 576, P·V over 512: 2 · 576 + 2 · 512 = 2,176.
  //   (Before: 4 · head_dim = 4 · 192 = 768 for both.)
  // tp 8: 128 / 8 = 16 heads per GPU, 61 layers → 976 head-layers; at the dense bf16 peak of the
  // H200 (989e12 FLOP/s, attention stays at it in this fp8 checkpoint) and efficiency 1:
  //   perPairS = 976 · 640 = 624,640 FLOPs / 989e12; perDecodePairS = 976 · 2,176 = 2,123,776 FLOPs / 989e12.
  const p = profileFromModelConfig(loadModel('DeepSeek-V3'), null);
  p.device.gpu = 'H200';
  p.device.tensorParallelSize = 8;
  const m = stepTimeModel(p, PEAKS);
  const close = (got: number, want: number, what: string) => assert.ok(Math.abs(got - want) / want < 1e-12, `${what}: ${got} vs ${want}`);
  close(m.perPairS, 624_640 / 989e12, 'prefill pair');
  close(m.perDecodePairS!, 2_123_776 / 989e12, 'decode pair');
  // A decode token at a context of 10,000 attends 10,000 pairs at the decode cost; a 2-token
  // chunk at positions 9,999 and 10,000 (context 10,001) attends 10,000 + 10,001 = 20,001 at the prefill cost.
  close(pairSeconds(m, chunkAttention(1, 10_000, 0)), (10_000 * 2_123_776) / 989e12, 'a decode token');
  close(pairSeconds(m, chunkAttention(2, 10_001, 0)), (20_001 * 624_640) / 989e12, 'a 2-token chunk');
  assert.match(m.source, /MLA attention as vLLM runs it: prefill chunks at 640 FLOPs per query-key pair and head \(q·k over qk_nope_head_dim \+ qk_rope_head_dim = 192, P·V over v_head_dim 128\), decode tokens at 2,176 \(absorbed: q·k over kv_lora_rank \+ qk_rope_head_dim = 576, P·V over kv_lora_rank 512\)/);
});

test('a model without MLA has one cost per pair: no perDecodePairS, decode pairs at perPairS (Llama-3.1-8B: 4 · 128 per head)', () => {
  // 32 layers · 32 heads · 4 · 128 = 524,288 FLOPs per pair at 989e12 (H100 SXM, the default).
  const m = stepTimeModel(profileFromModelConfig(loadModel('Llama-3.1-8B'), null), PEAKS);
  assert.equal(m.perDecodePairS, undefined);
  assert.ok(Math.abs(m.perPairS / (524_288 / 989e12) - 1) < 1e-12);
  assert.equal(pairSeconds(m, chunkAttention(1, 1000, 0)), m.perPairS * 1000);
  assert.doesNotMatch(m.source, /MLA/);
});

test('DeepSeek-V3 at tp 8: a prefill chunk up-projects its cached context through kv_b_proj again (a 10,000-token prefix-cache hit with 100 new tokens)', () => {
  // vllm/model_executor/layers/attention/mla_attention.py (MLACommonImpl._compute_prefill_context,
  // called from forward_mha for prefills with context_lens > 0; query_len > 1, decode excluded):
  // `kv_nope = self.kv_b_proj(kv_c_normed)` over every context token of every prefill, in pieces of
  // chunked_prefill_workspace_size / (prefills with context) tokens that cover each token once.
  // kv_b_proj is [kv_lora_rank 512, 128 heads · (qk_nope 128 + v 128)], a ColumnParallelLinear: at
  // tp 8, 16 heads: 512 · 16 · 256 = 2,097,152 params a layer, 61 layers: 127,926,272; 2 FLOPs per
  // multiply-add: 255,852,544 FLOPs per context token on each GPU. The checkpoint is fp8 W8A8
  // (quant_method fp8, dynamic activations) and kv_b_proj is quantized, so the layer's own GEMM runs
  // at the H200's dense fp8 peak, 1,979e12.
  //   One request, 10,000 tokens cached, 100 new (positions 10,000 .. 10,099):
  //     context up-projection: 10,000 · 255,852,544 = 2,558,525,440,000 FLOPs at fp8 → 1.2929 ms
  //     query-key pairs: 100 · 10,000 + 100 · 101 / 2 = 1,005,050, at 624,640 FLOPs each (the first
  //       test) = 627,794,432,000 FLOPs at bf16 989e12 → 0.6348 ms
  //   so the context's up-projection costs twice the chunk's attention; before it was not counted.
  const p = profileFromModelConfig(loadModel('DeepSeek-V3'), null);
  p.device.gpu = 'H200';
  p.device.tensorParallelSize = 8;
  const m = stepTimeModel(p, PEAKS);
  const close = (got: number, want: number, what: string) => assert.ok(Math.abs(got - want) / want < 1e-12, `${what}: ${got} vs ${want}`);
  close(m.perPrefillContextTokenS!, 255_852_544 / 1979e12, 'per context token');
  const hit = chunkAttention(100, 10_100, 0);
  assert.equal(hit.prefillContextTokens, 10_000);
  assert.equal(hit.pairs, 1_005_050);
  // The linear layers of the 100 new tokens and the one logits row as before (their own tests).
  close(gemmSeconds(m, 100, 1, hit) - 100 * m.perTokenS - m.perLogitsS!, 2_558_525_440_000 / 1979e12, 'the context up-projection');
  close(pairSeconds(m, hit), 627_794_432_000 / 989e12, 'the pairs');
  // (This one step alone is memory-bound at tp 8: its weights' read, ~17 ms, exceeds its ~2.4 ms
  // of FLOPs; in a batch of such hits the FLOPs add up while the weights are read once.)
  // A decode token (query_len 1, forward_mqa) reads the latent directly: no context up-projection.
  assert.equal(chunkAttention(1, 10_001, 0).prefillContextTokens, 0);
  assert.match(m.source, /a prefill chunk's context tokens \(cached or earlier chunks\) are up-projected through kv_b_proj again, 33,554,432 FLOPs per token and layer/);
});

test('DeepSeek-V3 at tp 8: a prefill chunk\'s context moves its up-projected K/V through HBM, 1,889,536 B a token beside its latent\'s 70,272 B', () => {
  // vllm/model_executor/layers/attention/mla_attention.py _compute_prefill_context, per piece and
  // layer, in bf16 (b = 2; the workspace is dequantized), L 512, R 64, P 128, V 128, 16 heads a GPU:
  //   gather_and_maybe_dequant_cache: reads the latent (the KV term's 576 · 2 = 1,152 B), writes the
  //     workspace (L + R) · b = 1,152 B;
  //   kv_b_proj: reads kv_c_normed L · b = 1,024 B, writes kv_nope 16 · (P + V) · b = 8,192 B;
  //   _concat_k_nope_k_pe: reads k_nope 16 · P · b = 4,096 B and k_pe R · b = 128 B, writes k
  //     16 · (P + R) · b = 6,144 B;
  //   run_prefill_context_chunk: reads k 6,144 B and v 16 · V · b = 4,096 B.
  // Beyond the latent's read: 1,152 + 1,024 + 8,192 + 4,096 + 128 + 6,144 + 6,144 + 4,096 = 30,976 B
  // a layer (= 2 · (2 · 576 + 16 · 896)), 61 layers: 1,889,536 B; the latent 61 · 1,152 = 70,272 B.
  // A 10,000-token hit with 100 new tokens on an H200 at efficiency 1: (10,100 · 70,272 + 10,000 ·
  // 1,889,536) B = 19,605,107,200 B / 4.8e12 = 4.0844 ms of KV traffic, where the latent alone
  // gave 0.1479 ms; the context's FLOPs (the test above) 1.29 ms at fp8 + 0.63 ms of pairs.
  const p = profileFromModelConfig(loadModel('DeepSeek-V3'), null);
  p.device.gpu = 'H200';
  p.device.tensorParallelSize = 8;
  assert.equal(mlaContextKvBytes(p.model, 'bf16', 8), 1_889_536);
  const m = stepTimeModel(p, PEAKS);
  const close = (got: number, want: number, what: string) => assert.ok(Math.abs(got - want) / want < 1e-12, `${what}: ${got} vs ${want}`);
  close(m.perKvTokenS, 70_272 / 4.8e12, 'the latent a token');
  close(m.perPrefillContextKvS!, 1_889_536 / 4.8e12, 'the up-projected K/V a context token');
  close(kvReadSeconds(m, chunkAttention(100, 10_100, 0)), 19_605_107_200 / 4.8e12, 'a 10,000-token hit');
  // A decode token reads the latent only (forward_mqa): no context term.
  close(kvReadSeconds(m, chunkAttention(1, 10_001, 0)), (10_001 * 70_272) / 4.8e12, 'a decode token');
  assert.match(m.source, /and its up-projected K and V written and read again, 1\.8 MiB per context token per GPU beside its latent's read/);
  // Under pp 2 (31 + 30 layers) each stage its own: 31 · 30,976 = 960,256 B and 30 · 30,976 = 929,280 B.
  p.device.pipelineParallelSize = 2;
  const pp = stepTimeModel(p, PEAKS);
  close(pp.stages![0]!.perPrefillContextKvS!, 960_256 / 4.8e12, 'stage 0');
  close(pp.stages![1]!.perPrefillContextKvS!, 929_280 / 4.8e12, 'stage 1');
  // Llama-3.1-8B (no MLA): its attention reads the paged K/V itself, no such term.
  assert.equal(stepTimeModel(profileFromModelConfig(loadModel('Llama-3.1-8B'), null), PEAKS).perPrefillContextKvS, undefined);
});

test('DeepSeek-V3 fp8 at tp 8: decode tokens run kv_b_proj at the bf16 peak (vLLM has no quantized bmm for W_UK_T / W_UV), prefill tokens at fp8', () => {
  // mla_attention.py process_weights_after_loading: "we currently do not have quantized bmm's which
  // are needed for `W_UV` and `W_UK_T`, we just store fp16/bf16 copies and perform the bmm's in
  // 16-bit" (get_and_maybe_dequant_weights(self.kv_b_proj)); forward_impl's decode (mqa) path
  // multiplies by them with torch.bmm, the prefill (forward_mha) calls self.kv_b_proj, the fp8 layer.
  // A decode token's kv_b_proj FLOPs per GPU, 255,852,544 (above), move from 1,979e12 to 989e12:
  //   perDecodeTokenS − perTokenS = 255,852,544 / 989e12 − 255,852,544 / 1979e12 = 0.12940 µs
  const p = profileFromModelConfig(loadModel('DeepSeek-V3'), null);
  p.device.gpu = 'H200';
  p.device.tensorParallelSize = 8;
  const m = stepTimeModel(p, PEAKS);
  const delta = 255_852_544 / 989e12 - 255_852_544 / 1979e12;
  assert.ok(Math.abs((m.perDecodeTokenS! - m.perTokenS) / delta - 1) < 1e-9, `${m.perDecodeTokenS! - m.perTokenS} vs ${delta}`);
  // 8 decode tokens and 92 prefill tokens in one step: 8 of them at perDecodeTokenS.
  const mixed = { decodeTokens: 8, prefillContextTokens: 0 };
  assert.ok(Math.abs(gemmSeconds(m, 100, 9, mixed) - (100 * m.perTokenS + 8 * delta + 9 * m.perLogitsS!)) < 1e-15);
  assert.match(m.source, /decode tokens run kv_b_proj \(1\.02B params\) at the bf16 peak, not the fp8 peak: vLLM's absorbed decode multiplies by bf16 copies of kv_b_proj's halves W_UK_T and W_UV/);
  // The bf16 checkpoint (no quantization_config): one peak, no decode-token term; the context
  // up-projection at 989e12.
  const bf16 = profileFromModelConfig({ ...loadModel('DeepSeek-V3'), quantization: null }, null);
  bf16.device.gpu = 'H200';
  bf16.device.tensorParallelSize = 8;
  const b = stepTimeModel(bf16, PEAKS);
  assert.equal(b.perDecodeTokenS, undefined);
  assert.ok(Math.abs(b.perPrefillContextTokenS! / (255_852_544 / 989e12) - 1) < 1e-12);
  assert.doesNotMatch(b.source, /W_UK_T/);
});

test('DeepSeek-V3 fp8 at tp 8: a decode-only step reads the bf16 W_UK_T / W_UV copies, a prefill-only step the fp8 kv_b_proj, a mixed step both', () => {
  // mla_attention.py: forward_mqa (decode, query_len 1) multiplies by W_UK_T and W_UV, the bf16
  // copies process_weights_after_loading keeps ("we currently do not have quantized bmm's");
  // forward_mha and _compute_prefill_context (prefill) call self.kv_b_proj, the fp8 layer. Per GPU:
  //   copies 61 · 512 · 128 · (128 + 128) · 2 B / 8 = 255,852,544 B (core/estimate mlaDecodeCopies);
  //   kv_b_proj 1,023,410,176 params at 8 bits / 8 = 127,926,272 B.
  // At the H200's 4.8 TB/s: 53.30 µs and 26.65 µs, each out of the every-step weightsS.
  const p = profileFromModelConfig(loadModel('DeepSeek-V3'), null);
  p.device.gpu = 'H200';
  p.device.tensorParallelSize = 8;
  const m = stepTimeModel(p, PEAKS);
  const close = (got: number, want: number, what: string) => assert.ok(Math.abs(got - want) / want < 1e-12, `${what}: ${got} vs ${want}`);
  close(m.decodeWeightsS!, 255_852_544 / 4.8e12, 'the copies');
  close(m.prefillWeightsS!, 127_926_272 / 4.8e12, 'kv_b_proj');
  // The three together are the weights per GPU but the routed experts and the lookup table, as before the split.
  const w = stepWork(p);
  const e = estimate(p);
  close((w.weightsS + w.decodeWeightsS + w.prefillWeightsS) * 4.8e12 + w.expertWeightsS * 4.8e12, e.weightsBytesPerGpu - (129_280 * 7_168 * 2) / 8, 'all weights but the lookup (bf16 embedding 129,280 · 7,168 · 2 B / 8)');
  close(weightReadSeconds({ ...m, expertWeightsS: 0 }, 8, 8) - m.weightsS, 255_852_544 / 4.8e12, 'decode-only step');
  close(weightReadSeconds({ ...m, expertWeightsS: 0 }, 100, 0) - m.weightsS, 127_926_272 / 4.8e12, 'prefill-only step');
  close(weightReadSeconds({ ...m, expertWeightsS: 0 }, 108, 8) - m.weightsS, 383_778_816 / 4.8e12, 'mixed step');
  // The bf16 checkpoint: kv_b_proj's halves are views of it, one weight, read every step.
  const bf16 = profileFromModelConfig({ ...loadModel('DeepSeek-V3'), quantization: null }, null);
  bf16.device.gpu = 'H200';
  bf16.device.tensorParallelSize = 8;
  const b = stepTimeModel(bf16, PEAKS);
  assert.equal(b.decodeWeightsS, undefined);
  assert.equal(b.prefillWeightsS, undefined);
  // pp 2 (31 + 30 layers): each stage its own layers' copies, 31 · 4,194,304 = 130,023,424 B and 30 · … = 125,829,120 B.
  p.device.pipelineParallelSize = 2;
  const pp = stepTimeModel(p, PEAKS);
  close(pp.stages![0]!.decodeWeightsS!, 130_023_424 / 4.8e12, 'stage 0 copies');
  close(pp.stages![1]!.prefillWeightsS!, 62_914_560 / 4.8e12, 'stage 1 kv_b_proj');
});

test('a model without MLA: no context up-projection, every token at perTokenS (Llama-3.1-8B, a 10,000-token hit with 100 new tokens)', () => {
  const m = stepTimeModel(profileFromModelConfig(loadModel('Llama-3.1-8B'), null), PEAKS);
  assert.equal(m.perPrefillContextTokenS, undefined);
  assert.equal(m.perDecodeTokenS, undefined);
  const hit = chunkAttention(100, 10_100, 0);
  // As before: 100 tokens' linear layers, one logits row, the pairs.
  assert.equal(stepSeconds(m, 100, 1, hit), Math.max(m.weightsS + m.perKvTokenS * 10_100, 100 * m.perTokenS + m.perLogitsS! + m.perPairS * 1_005_050));
});

test('DeepSeek-V3 at tp 8 × pp 2: each stage charges the context up-projection of its own layers (31 + 30, vLLM get_pp_indices)', () => {
  // get_pp_indices(61, rank, 2): 61 // 2 = 30 a stage, the remainder to partitions[-2]: 31 + 30.
  // Per context token and GPU: 31 · 2 · 512 · 16 · 256 = 130,023,424 and 30 · … = 125,829,120 FLOPs
  // at fp8 1,979e12; their sum the whole model's 255,852,544 (above).
  const p = profileFromModelConfig(loadModel('DeepSeek-V3'), null);
  p.device.gpu = 'H200';
  p.device.tensorParallelSize = 8;
  p.device.pipelineParallelSize = 2;
  const m = stepTimeModel(p, PEAKS);
  const close = (got: number, want: number, what: string) => assert.ok(Math.abs(got - want) / want < 1e-12, `${what}: ${got} vs ${want}`);
  close(m.stages![0]!.perPrefillContextTokenS!, 130_023_424 / 1979e12, 'stage 0');
  close(m.stages![1]!.perPrefillContextTokenS!, 125_829_120 / 1979e12, 'stage 1');
  close(m.perPrefillContextTokenS!, 255_852_544 / 1979e12, 'the whole model');
  close(m.stages![1]!.perDecodeTokenS! - m.stages![1]!.perTokenS, 125_829_120 / 989e12 - 125_829_120 / 1979e12, 'stage 1 decode kv_b_proj at bf16');
});
