/**
 * Qwen3-Next (core/config/mamba.ts, core/estimate mambaLayerParams, mambaStateBytesPerSequence):
 * its 36 Gated DeltaNet linear-attention layers counted as vLLM builds them, not as attention
 * shapes, and their per-sequence state. The config is the published config.json of
 * Qwen/Qwen3-Next-80B-A3B-Instruct (HF model card), as written there. Expected values are hand
 * counts of vLLM's qwen3_next.py (Qwen3NextGatedDeltaNet, Qwen3NextAttention, Qwen3NextSparseMoeBlock)
 * and mamba_utils.py (MambaStateShapeCalculator.gated_delta_net_state_shape), written out beside each
 * assert; the card says "80B total, 3B active" (79B without the embeddings).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { profileFromModelConfig, readModelConfig, type ModelSpec, type Problem } from '../../core/config/index';
import { DEFAULT_ENGINE, estimate, kvBytesPerToken, mambaLayerParams, mambaStateBytesPerSequence, paramCounts } from '../../core/estimate/index';
import { formatEstimateOf } from '../../runner/table';

const QWEN3_NEXT_80B = {
  architectures: ['Qwen3NextForCausalLM'], attention_bias: false, attention_dropout: 0.0, bos_token_id: 151643, decoder_sparse_step: 1,
  eos_token_id: 151645, full_attention_interval: 4, head_dim: 256, hidden_act: 'silu', hidden_size: 2048, initializer_range: 0.02,
  intermediate_size: 5120, linear_conv_kernel_dim: 4, linear_key_head_dim: 128, linear_num_key_heads: 16, linear_num_value_heads: 32,
  linear_value_head_dim: 128, max_position_embeddings: 262144, mlp_only_layers: [], model_type: 'qwen3_next', moe_intermediate_size: 512,
  norm_topk_prob: true, num_attention_heads: 16, num_experts: 512, num_experts_per_tok: 10, num_hidden_layers: 48, num_key_value_heads: 2,
  output_router_logits: false, partial_rotary_factor: 0.25, rms_norm_eps: 1e-06, rope_scaling: null, rope_theta: 10000000,
  router_aux_loss_coef: 0.001, shared_expert_intermediate_size: 512, tie_word_embeddings: false, torch_dtype: 'bfloat16',
  transformers_version: '4.57.0.dev0', use_cache: true, use_sliding_window: false, vocab_size: 151936,
};

function read(config: object): { model: ModelSpec; problems: Problem[] } {
  const r = readModelConfig(JSON.stringify(config));
  assert.ok(r.value, JSON.stringify(r.problems));
  return { model: r.value, problems: r.problems };
}

test('Qwen3-Next-80B-A3B: Gated DeltaNet layers and gated attention counted as vLLM builds them (79.67B total, 3.56B active)', () => {
  const { model, problems } = read(QWEN3_NEXT_80B);
  // One Gated DeltaNet layer (h 2048; key_dim 16 · 128 = 2048, value_dim 32 · 128 = 4096):
  // in_proj_qkvz 2048 · (2 · 2048 + 2 · 4096) = 25,165,824; in_proj_ba 2048 · 64 = 131,072;
  // conv1d (2 · 2048 + 4096) · 4 = 32,768; dt_bias 32, A_log 32; norm 128; out_proj 4096 · 2048 =
  // 8,388,608: 33,718,464.
  assert.equal(mambaLayerParams(model), 33_718_464);
  assert.deepEqual(model.mamba?.layers.length, 36);
  // Totals (hand count, the lm_head untied):
  //   embedding and lm_head 2 · 151,936 · 2048 = 622,329,856; final norm 2048;
  //   36 Gated DeltaNet layers 36 · 33,718,464 = 1,213,864,704;
  //   12 attention layers, q_proj doubled for the output gate: 2048 · (2 · 16 · 256) = 16,777,216,
  //     k_proj, v_proj 2048 · 512 each, o_proj 4096 · 2048 = 8,388,608, q_norm + k_norm 512:
  //     27,263,488 each, 327,161,856;
  //   48 MoE blocks: 512 experts 3 · 2048 · 512 each = 1,610,612,736, shared expert 3,145,728,
  //     shared_expert_gate 2048, router 2048 · 512 = 1,048,576, 2 norms 4096: 1,614,813,184 each,
  //     77,511,032,832;
  //   total 79,674,391,296 (was 79,039,334,400 with the linear layers as attention shapes).
  // Active (10 of 512 experts, no input embedding): 79,674,391,296 − 48 · 502 · 3,145,728
  //   − 311,164,928 = 3,563,764,480 (was 2,928,707,584: 17.8 % fewer FLOPs a token).
  const c = paramCounts(model);
  assert.equal(c.total, 79_674_391_296);
  assert.equal(c.active, 3_563_764_480);
  assert.equal(c.activeCompute, 3_563_764_480);
  assert.equal(c.breakdown.attention, 327_161_856);
  // The info names the layers and says they are counted, not approximated.
  const info = problems.filter((p) => p.code === 'linear-attention-layers');
  assert.equal(info.length, 1);
  assert.match(info[0]!.message, /^36 of 48 layers are Gated DeltaNet layers: only the 12 attention layers keep a per-token KV cache; .*counted as vLLM's Qwen3NextGatedDeltaNet builds them$/);
  assert.doesNotMatch(info[0]!.message, /approximated/);
  assert.equal(problems.filter((p) => p.code === 'params-approximated').length, 0);
  // KV only in the 12 attention layers: 12 · 2 · 2 · 256 · 2 = 24,576 B/token.
  assert.equal(kvBytesPerToken(model, 'bf16'), 24_576);
});

test('Qwen3-Next-80B-A3B: Gated DeltaNet state per sequence from vLLM gated_delta_net_state_shape, split by tensor parallelism', () => {
  const { model } = read(QWEN3_NEXT_80B);
  // Per layer: conv (2 · 2048 + 4096, K − 1 = 3) = 24,576 values + recurrent (32, 128, 128) = 524,288
  // values = 548,864 values; bf16 (gated_delta_net_state_dtype: the model dtype for both with
  // mamba_cache_dtype / mamba_ssm_cache_dtype auto): 1,097,728 B; 36 layers: 39,518,208 B (37.69 MiB).
  assert.equal(mambaStateBytesPerSequence(model, 'bf16'), 39_518_208);
  // tp 2: both halved, no replicated key heads (gated_delta_net_state_shape divides conv_dim and
  // num_v_heads by tp): 36 · (4096 · 3 + 16 · 128 · 128) · 2 = 19,759,104 B. A vLLM 0.10.2 log of
  // this model at tensor_parallel_size 2 says "Setting attention block size to 544 tokens" and
  // "Padding mamba page size by 1.49%": 544 = 16 · ceil(548,864 / (16 · 1,024 B of KV a token and
  // layer)), (544 · 1,024 − 548,864) / 548,864 = 1.49 %.
  assert.equal(mambaStateBytesPerSequence(model, 'bf16', 2), 19_759_104);
  assert.equal(mambaStateBytesPerSequence(model, 'fp32'), 2 * 39_518_208);
});

test('Qwen3-Next-80B-A3B in the KV pool at tensor_parallel_size 2: a real vLLM 0.10.2 log\'s block size, padding, tokens and concurrency (544 tokens, 1.49 %, 973,760, 14.77x)', () => {
  // The log (vLLM 0.10.2, bf16, --tensor-parallel-size 2, max_model_len 262144, prefix caching off for hybrids):
  //   Setting attention block size to 544 tokens to ensure that attention page size is >= mamba page size.
  //   Padding mamba page size by 1.49% to ensure that mamba page size and attention page size are exactly equal.
  //   Available KV cache memory: 44.59 GiB
  //   GPU KV cache size: 973,760 tokens
  //   Maximum concurrency for 262,144 tokens per request: 14.77x
  // Per GPU: a GDN layer's state (4096 · 3 + 16 · 128 · 128) · 2 B = 548,864 B; attention KV 2 · 1 · 256 · 2 =
  // 1,024 B a token and layer; block 16 · ceil(548,864 / 16,384) = 544, padding (544 · 1,024 − 548,864) / 548,864
  // = 1.49 %; 12 attention + 36 GDN layers in groups of 12: 1 + 3 groups, blocks of 12 · 544 · 1,024 = 6,684,672 B;
  // floor(44.59 GiB / that) = 7,162; floor(7,162 / 4) · 544 = 973,760 tokens; 7,162 / (ceil(262,144 / 544) + 3)
  // = 7,162 / 485 = 14.77. Counted as attention shapes (before), the model had no state and no raised block.
  const { model } = read(QWEN3_NEXT_80B);
  const base = profileFromModelConfig(model, null);
  const e = estimate({
    ...base, device: { ...base.device, tensorParallelSize: 2 },
    kvCache: { pageSize: 16, dtype: 'auto', numPages: 'auto', memoryGib: 44.59 }, engine: { ...DEFAULT_ENGINE, vllmVersion: '0.10.2' },
  });
  const l = e.pool.layout;
  assert.equal(l.kind, 'mamba');
  assert.equal(l.pageSize, 544);
  assert.equal(l.mambaPageBytes, 548_864);
  assert.equal(((100 * (e.pageBytesPerLayer - l.mambaPageBytes)) / l.mambaPageBytes).toFixed(2), '1.49');
  assert.deepEqual([l.groupSize, l.fullGroups, l.mambaGroups], [12, 1, 3]);
  assert.equal(e.pageBytes, 12 * 544 * 1_024);
  assert.equal(e.pool.pages, 7_162);
  assert.equal(e.pool.tokens, 973_760);
  assert.equal(e.pool.maxConcurrency.toFixed(2), '14.77');
  assert.match(e.notes.join('\n'), /36 Gated DeltaNet layers keep a constant state per sequence, .*recurrent state in bf16/);
});

test('Qwen3-Next with layer_types, attn_output_gate false, and other linear-attention keys', () => {
  // layer_types written out (as later Qwen3-Next-style configs do) gives the same layers as the interval.
  const layerTypes = Array.from({ length: 48 }, (_, i) => ((i + 1) % 4 === 0 ? 'full_attention' : 'linear_attention'));
  const listed = read({ ...QWEN3_NEXT_80B, full_attention_interval: undefined, layer_types: layerTypes }).model;
  assert.equal(paramCounts(listed).total, 79_674_391_296);
  assert.deepEqual(listed.mamba?.layers.slice(0, 4), [0, 1, 2, 4]);
  // attn_output_gate false (vLLM Qwen3NextAttention reads it, default true): q_proj 2048 · 4096,
  // 12 · 2048 · 4096 = 100,663,296 fewer.
  const ungated = read({ ...QWEN3_NEXT_80B, attn_output_gate: false }).model;
  assert.equal(paramCounts(ungated).total, 79_674_391_296 - 100_663_296);
  // Wider value heads: 64 value heads of 128 (value_dim 8192): conv (4096 + 8192) · 4 = 49,152,
  // in_proj_qkvz 2048 · (4096 + 16384) = 41,943,040, in_proj_ba 2048 · 128 = 262,144, dt_bias +
  // A_log 128, norm 128, out_proj 8192 · 2048 = 16,777,216: 59,031,808; state (12,288 · 3 +
  // 64 · 128 · 128) · 2 = 2,170,880 B a layer.
  const wide = read({ ...QWEN3_NEXT_80B, linear_num_value_heads: 64 }).model;
  assert.equal(mambaLayerParams(wide), 59_031_808);
  assert.equal(mambaStateBytesPerSequence(wide, 'bf16'), 36 * 2_170_880);
});

test('Qwen3-Next with no attention layer left (full_attention_interval 100 > 48 layers): no KV cache, said as such, not as an encoder; the state shown', () => {
  const { model, problems } = read({ ...QWEN3_NEXT_80B, full_attention_interval: 100 });
  assert.equal(model.isEncoder, false);
  assert.equal(kvBytesPerToken(model, 'bf16'), 0);
  const info = problems.find((p) => p.code === 'linear-attention-layers')!;
  assert.match(info.message, /^48 of 48 layers are Gated DeltaNet layers: no layer attends, so there is no per-token KV cache; each Gated DeltaNet layer keeps/);
  // 48 layers · 1,097,728 B = 52,690,944 B of state a sequence (bf16).
  const profile = profileFromModelConfig(model, null);
  const text = formatEstimateOf(profile, estimate(profile), 'q');
  assert.match(text, /\n {2}KV cache {10}none: no layer attends\n {2}GDN state {9}50\.3 MiB per sequence, whatever its length \(52,690,944 B\)\n/);
  assert.doesNotMatch(text, /encoder/);
  // The pool note: from vLLM 0.10.0 the states are the whole KV pool, one group of 48 MambaSpec layers, a block one
  // sequence's state. 10 GiB = 10,737,418,240 B / 52,690,944 = 203.8 -> 203 states; on 0.19.0 one block a
  // request (mamba_cache_mode "none"): 203 at once; on the current release ("align", 2 blocks): floor(203.8 / 2) = 101.
  // Before, the note said "vLLM before 0.10.0 (engine.vllm_version null) kept it outside the KV pool".
  const sized = (vllmVersion: string | null) => estimate({ ...profile, kvCache: { ...profile.kvCache, memoryGib: 10 }, engine: { ...DEFAULT_ENGINE, vllmVersion } });
  const note = (e: ReturnType<typeof estimate>) => e.notes.find((n) => n.includes('Gated DeltaNet layers keep a constant state')) ?? e.notes.join('\n');
  assert.match(note(sized('0.19.0')), /No layer attends, so vLLM's KV pool \(from 0\.10\.0\) holds these states alone: one KV-cache group of the 48 Gated DeltaNet layers \(MambaSpec; .*1 per request \(mamba_cache_mode "none"; .*the budget of 10 GiB holds 203 states, 203 requests at once/);
  assert.match(note(sized(null)), /2 per request \(mamba_cache_mode "align", the default from 0\.28\.0; .*holds 203 states, 101 requests at once/);
  assert.doesNotMatch(note(sized(null)), /before 0\.10\.0|outside the KV pool/);
  // A vLLM before 0.10.0 (V0) kept the state outside the pool: said so.
  assert.match(note(sized('0.9.2')), /vLLM before 0\.10\.0 \(engine\.vllm_version 0\.9\.2\) kept it outside the KV pool/);
});
