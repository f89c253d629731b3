/**
 * Qwen3.5 (model_type qwen3_5 / qwen3_5_moe, text_config qwen3_5_text / qwen3_5_moe_text): its
 * Gated DeltaNet layers counted as vLLM's qwen3_5.py builds them (GatedDeltaNetAttention, the same
 * weights as Qwen3-Next's), their state (mamba_utils.py gated_delta_net_state_shape, the recurrent
 * state in the config's mamba_ssm_dtype: vLLM Qwen3_5ForConditionalGenerationConfig) and the KV
 * pool's raised block. Before, the linear layers were attention shapes with no state, and the
 * pool kept 16-token pages. Config: test/fixtures/linearHybrids.ts (where each value comes from).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { profileFromModelConfig, readModelConfig, type ModelSpec, type Problem } from '../../core/config/index';
import { checkProfile, DEFAULT_ENGINE, estimate, kvBytesPerToken, mambaLayerParams, mambaStateBytesPerSequence, paramCounts } from '../../core/estimate/index';
import { QWEN3_5_35B_A3B } from '../fixtures/linearHybrids';
import { only } from '../fixtures/problems';

function read(config: object): { model: ModelSpec; problems: Problem[] } {
  const r = readModelConfig(JSON.stringify(config));
  assert.ok(r.value, JSON.stringify(r.problems));
  return { model: r.value, problems: r.problems };
}

test('Qwen3.5-35B-A3B: 30 Gated DeltaNet layers and 10 gated attention layers counted as vLLM builds them (34.66B total, 2.95B active)', () => {
  const { model, problems } = read(QWEN3_5_35B_A3B);
  assert.equal(model.mamba?.kind, 'gdn');
  // layer_types: linear_attention except every 4th: layers 3, 7, ..., 39 attend.
  assert.deepEqual(model.layerTypes.flatMap((t, i) => (t === 'full' ? [i] : [])), [3, 7, 11, 15, 19, 23, 27, 31, 35, 39]);
  assert.equal(model.mamba?.layers.length, 30);
  assert.match(only(problems, 'linear-attention-layers').message, /^30 of 40 layers are Gated DeltaNet layers: only the 10 attention layers keep a per-token KV cache; .*counted as vLLM's GatedDeltaNetAttention builds them$/);
  // One GDN layer (h 2048, key_dim 16 · 128 = 2048, value_dim 32 · 128 = 4096): in_proj_qkvz
  // 2048 · (2 · 2048 + 2 · 4096) = 25,165,824; in_proj_ba 2048 · 64 = 131,072; conv1d (2 · 2048 +
  // 4096) · 4 = 32,768; dt_bias + A_log 64; norm 128; out_proj 4096 · 2048 = 8,388,608: 33,718,464.
  assert.equal(mambaLayerParams(model), 33_718_464);
  // Totals (hand count of qwen3_5.py: Qwen3NextAttention, Qwen3NextSparseMoeBlock in every layer):
  //   embed_tokens and lm_head (untied) 2 · 248,320 · 2048 = 1,017,118,720; final norm 2048;
  //   30 GDN layers 30 · 33,718,464 = 1,011,553,920;
  //   10 attention layers, q_proj doubled for the output gate 2048 · 2 · 16 · 256 = 16,777,216, k_proj and
  //     v_proj 2048 · 512 each, o_proj 4096 · 2048 = 8,388,608, q_norm + k_norm 512: 27,263,488 each,
  //     272,634,880;
  //   40 MoE blocks: 256 experts · 3 · 2048 · 512 = 805,306,368, shared expert 3,145,728, shared_expert_gate
  //     2048, router 2048 · 256 = 524,288, 2 norms 4096: 808,982,528 each, 32,359,301,120;
  //   total 34,660,610,688 (the card's 35B counts the vision tower too).
  // Active (8 of 256 experts, no input embedding): 34,660,610,688 − 40 · 248 · 3,145,728 − 508,559,360
  //   = 2,946,429,568.
  const c = paramCounts(model);
  assert.equal(c.breakdown.attention, 272_634_880);
  assert.equal(c.total, 34_660_610_688);
  assert.equal(c.active, 2_946_429_568);
  // KV only in the 10 attention layers: 10 · 2 · 2 · 256 · 2 = 20,480 B/token (all 40 as attention: 81,920).
  assert.equal(kvBytesPerToken(model, 'bf16'), 20_480);
});

test('Qwen3.5-35B-A3B: GDN state per sequence with the recurrent state in fp32 (mamba_ssm_dtype), split by tensor parallelism', () => {
  const { model } = read(QWEN3_5_35B_A3B);
  // Per layer: conv (2 · 2048 + 4096, K − 1 = 3) = 24,576 values in bf16 = 49,152 B; recurrent
  // (32, 128, 128) = 524,288 values in fp32 (mamba_ssm_dtype) = 2,097,152 B; 2,146,304 B;
  // 30 layers: 64,389,120 B (61.41 MiB). In bf16 throughout it would be 30 · 1,097,728 = 32,931,840.
  assert.equal(mambaStateBytesPerSequence(model, 'bf16'), 64_389_120);
  // tp 2: (4096 · 3 · 2 + 16 · 128 · 128 · 4) · 30 = (24,576 + 1,048,576) · 30 = 32,194,560 B.
  assert.equal(mambaStateBytesPerSequence(model, 'bf16', 2), 32_194_560);
  // A text-only Qwen3_5MoeForCausalLM is not in vLLM's MODELS_CONFIG_MAP: mamba_ssm_dtype is not
  // applied, the recurrent state is in the model dtype.
  const causal = read({ ...QWEN3_5_35B_A3B, architectures: ['Qwen3_5MoeForCausalLM'] }).model;
  assert.equal(mambaStateBytesPerSequence(causal, 'bf16'), 32_931_840);
});

test('Qwen3.5-35B-A3B in the KV pool at tensor_parallel_size 2: the block size and padding of public vLLM start-ups (1056 tokens, 0.76 %)', () => {
  // The logs (Qwen3.6-35B-A3B, the same sizes, on a vLLM 0.17.1 build at --tensor-parallel-size 2, and
  // Qwen3.5-35B-A3B at tp 2; Qwen3_5MoeForConditionalGeneration):
  //   Setting attention block size to 1056 tokens to ensure that attention page size is >= mamba page size.
  //   Padding mamba page size by 0.76% to ensure that mamba page size and attention page size are exactly equal.
  // Per GPU: a GDN layer's state 24,576 + 1,048,576 = 1,073,152 B; attention KV 2 · 1 · 256 · 2 = 1,024 B a
  // token and layer; block 16 · ceil(1,073,152 / 16,384) = 16 · 66 = 1,056; padding (1,056 · 1,024 −
  // 1,073,152) / 1,073,152 = 8,192 / 1,073,152 = 0.76 % (bf16 recurrent state: 544 tokens, 1.49 %).
  // 10 attention + 30 GDN layers: groups of 10, 1 + 3; blocks of 10 · 1,056 · 1,024 = 10,813,440 B;
  // on 40 GiB floor(42,949,672,960 / 10,813,440) = 3,971 blocks, floor(3,971 / 4) · 1,056 = 1,047,552
  // tokens; a 262,144-token request holds ceil(262,144 / 1,056) + 3 = 249 + 3 = 252 blocks: 15.76x.
  const { model } = read(QWEN3_5_35B_A3B);
  const base = profileFromModelConfig(model, null);
  const e = estimate({
    ...base, device: { ...base.device, tensorParallelSize: 2 },
    kvCache: { pageSize: 16, dtype: 'auto', numPages: 'auto', memoryGib: 40 }, engine: { ...DEFAULT_ENGINE, vllmVersion: '0.17.1' },
  });
  const l = e.pool.layout;
  assert.equal(l.kind, 'mamba');
  assert.equal(l.pageSize, 1_056);
  assert.equal(l.mambaPageBytes, 1_073_152);
  assert.equal(((100 * (e.pageBytesPerLayer - l.mambaPageBytes)) / l.mambaPageBytes).toFixed(2), '0.76');
  assert.deepEqual([l.groupSize, l.fullGroups, l.mambaGroups, l.stateBlocks], [10, 1, 3, 1]);
  assert.equal(e.pageBytes, 10_813_440);
  assert.equal(e.pool.pages, 3_971);
  assert.equal(e.pool.tokens, 1_047_552);
  assert.equal(e.pool.maxConcurrency.toFixed(2), '15.76');
  assert.match(e.notes.join('\n'), /30 Gated DeltaNet layers keep a constant state per sequence, .*conv state in bf16, recurrent state in fp32/);
});

test('Qwen3.5 on a vLLM release before 0.17.0: a warning naming the first release that serves it', () => {
  // vllm-project/recipes Qwen/Qwen3.5.md: "Use vLLM nightly wheel until 0.17.0 is released."
  const { model } = read(QWEN3_5_35B_A3B);
  const base = profileFromModelConfig(model, null);
  const at = (v: string) => {
    const p = { ...base, engine: { ...DEFAULT_ENGINE, vllmVersion: v } };
    return checkProfile(p, estimate(p)).filter((x) => x.code === 'vllm-predates-model');
  };
  assert.match(at('0.16.0')[0]?.message ?? '', /predates Qwen3\.5 MoE \(model_type qwen3_5_moe or qwen3_5_moe_text\): vLLM serves it from 0\.17\.0/);
  assert.equal(at('0.17.0').length, 0);
});
