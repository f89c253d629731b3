// MLA's attention FLOPs in the step-time model: vLLM runs prefill and decode in two forms of
// different cost per query-key pair (runner/simulate/step-time.ts pairFlopsPerHead).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { profileFromModelConfig } from '../../core/config/index';
import { chunkAttention, pairSeconds, stepTimeModel } from '../../runner/simulate/step-time';
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
