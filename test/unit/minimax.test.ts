/**
 * MiniMax-Text-01 / MiniMax-M1 (model_type minimax_text_01, minimax_m1; transformers' port minimax):
 * their lightning attention layers counted as vLLM's minimax_text_01.py builds them
 * (MiniMaxText01LinearAttention, a MambaBase layer), their (heads, head_dim, head_dim) state
 * (mamba_utils.py linear_attention_state_shape, in the model dtype) and the KV pool's raised
 * block. Before, attn_type_list was not read: all 80 layers were softmax attention (8x the KV per
 * token) and the lightning layers' weights were attention shapes. Config:
 * test/fixtures/linearHybrids.ts (where each value comes from).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { profileFromModelConfig, readModelConfig, type ModelSpec, type Problem } from '../../core/config/index';
import { DEFAULT_ENGINE, estimate, kvBytesPerToken, mambaLayerParams, mambaStateBytesPerSequence, paramCounts, weightsBytes } from '../../core/estimate/index';
import { stepWork } from '../../runner/simulate/step-time';
import { MINIMAX_M1 } from '../fixtures/linearHybrids';
import { only } from '../fixtures/problems';

function read(config: object): { model: ModelSpec; problems: Problem[] } {
  const r = readModelConfig(JSON.stringify(config));
  assert.ok(r.value, JSON.stringify(r.problems));
  return { model: r.value, problems: r.problems };
}

test('MiniMax-M1: 70 lightning attention layers and 10 softmax attention layers from attn_type_list, counted as vLLM builds them (456.09B total, 45.94B active without the embeddings)', () => {
  const { model, problems } = read(MINIMAX_M1);
  assert.equal(model.mamba?.kind, 'lightning');
  assert.deepEqual(model.layerTypes.flatMap((t, i) => (t === 'full' ? [i] : [])), [7, 15, 23, 31, 39, 47, 55, 63, 71, 79]);
  assert.equal(model.mamba?.layers.length, 70);
  assert.match(only(problems, 'linear-attention-layers').message, /^70 of 80 layers are lightning attention layers: only the 10 attention layers keep a per-token KV cache; each lightning attention layer keeps a constant linear-attention KV state .*counted as vLLM's MiniMaxText01LinearAttention builds them$/);
  // One lightning layer (h 6144, I = 64 heads · 128 = 8192): qkv_proj 6144 · 3 · 8192 = 150,994,944;
  // output_gate and out_proj 6144 · 8192 = 50,331,648 each; RMSNorm 8192: 251,666,432.
  assert.equal(mambaLayerParams(model), 251_666_432);
  // Totals (hand count of vLLM minimax_text_01.py):
  //   embed_tokens and lm_head (never tied) 2 · 200,064 · 6144 = 2,458,386,432; final norm 6144;
  //   70 lightning layers 70 · 251,666,432 = 17,616,650,240;
  //   10 softmax layers: q_proj 6144 · 8192 = 50,331,648, k_proj and v_proj 6144 · 1024 each,
  //     o_proj 8192 · 6144: 113,246,208 each, 1,132,462,080;
  //   80 MoE blocks: 32 experts · 3 · 6144 · 9216 = 5,435,817,984, router 6144 · 32 = 196,608:
  //     434,881,167,360; 80 · 2 RMSNorms of 6144: 983,040;
  //   total 456,089,655,296 (the card's "456 billion").
  // Active (2 of 32 experts, no input embedding): 456,089,655,296 − 80 · 30 · 169,869,312
  //   − 1,229,193,216 = 47,174,113,280; without lm_head too 45,944,920,064, the card's "45.9 billion".
  const c = paramCounts(model);
  assert.equal(c.breakdown.attention, 1_132_462_080);
  assert.equal(c.total, 456_089_655_296);
  assert.equal(c.active, 47_174_113_280);
  // KV only in the 10 softmax layers: 10 · 2 · 8 · 128 · 2 = 40,960 B/token (all 80: 327,680).
  assert.equal(kvBytesPerToken(model, 'bf16'), 40_960);
});

test('MiniMax-M1: the lightning state per sequence, (64, 128, 128) a layer in the model dtype, split by tensor parallelism', () => {
  const { model } = read(MINIMAX_M1);
  // 70 · 64 · 128 · 128 · 2 B = 146,800,640 B (140 MiB); tp 8: 70 · 8 · 128 · 128 · 2 = 18,350,080 B.
  assert.equal(mambaStateBytesPerSequence(model, 'bf16'), 146_800_640);
  assert.equal(mambaStateBytesPerSequence(model, 'bf16', 8), 18_350_080);
  assert.equal(mambaStateBytesPerSequence(model, 'fp32'), 2 * 146_800_640);
});

test('MiniMax-M1 in the KV pool at tensor_parallel_size 8: the attention block raised to 512 tokens, 1 + 7 groups of 10 layers', () => {
  // Per GPU: a lightning layer's state 8 · 128 · 128 · 2 = 262,144 B; attention KV 2 · 1 · 128 · 2 = 512 B a
  // token and layer (8 KV heads over 8 GPUs); block 16 · ceil(262,144 / (16 · 512)) = 16 · 32 = 512 tokens,
  // whose page 512 · 512 = 262,144 B holds the state exactly (no padding). 10 attention + 70 lightning
  // layers: groups of 10 (70 ≥ 1.5 · 10), 1 + 7; blocks of 10 · 512 · 512 = 2,621,440 B; on 40 GiB
  // 42,949,672,960 / 2,621,440 = 16,384 blocks, 16,384 // 8 · 512 = 1,048,576 tokens; a 10,240,000-token
  // request (max_position_embeddings) holds 10,240,000 / 512 = 20,000 blocks + 7 state blocks: 16,384 /
  // 20,007 = 0.82x. Read as 80 attention layers (before): 16-token pages, 80 · 512 = 40,960 B a token.
  const { model } = read(MINIMAX_M1);
  const base = profileFromModelConfig(model, null);
  const e = estimate({
    ...base, device: { ...base.device, tensorParallelSize: 8 },
    kvCache: { pageSize: 16, dtype: 'auto', numPages: 'auto', memoryGib: 40 }, engine: { ...DEFAULT_ENGINE, vllmVersion: '0.11.0' },
  });
  const l = e.pool.layout;
  assert.equal(l.kind, 'mamba');
  assert.equal(l.pageSize, 512);
  assert.equal(l.mambaPageBytes, 262_144);
  assert.equal(e.pageBytesPerLayer, 262_144);
  assert.deepEqual([l.groupSize, l.fullGroups, l.mambaGroups, l.stateBlocks], [10, 1, 7, 1]);
  assert.equal(e.pageBytes, 2_621_440);
  assert.equal(e.pool.pages, 16_384);
  assert.equal(e.pool.tokens, 1_048_576);
  assert.equal(e.pool.maxConcurrency.toFixed(2), '0.82');
  assert.match(e.notes.join('\n'), /70 lightning attention layers keep a constant state per sequence, .*\(linear-attention KV state in bf16\)/);
});

test('MiniMax layouts: decoder_attention_types, layer_types (transformers\' minimax), its alternating default, and a bad attn_type_list', () => {
  const { attn_type_list: list, ...rest } = MINIMAX_M1;
  // MiniMax-Text-01's remote code also reads decoder_attention_types.
  const dat = read({ ...rest, model_type: 'minimax_text_01', architectures: ['MiniMaxText01ForCausalLM'], decoder_attention_types: list }).model;
  assert.equal(dat.mamba?.layers.length, 70);
  // transformers' port (MiniMaxAI/MiniMax-Text-01-hf) writes layer_types.
  const hf = read({ ...rest, model_type: 'minimax', architectures: ['MiniMaxForCausalLM'], layer_types: list.map((t) => (t === 0 ? 'linear_attention' : 'full_attention')) }).model;
  assert.equal(hf.mamba?.layers.length, 70);
  assert.equal(kvBytesPerToken(hf, 'bf16'), 40_960);
  // Without either, transformers' MiniMaxConfig alternates: layers 0, 2, ... attend (40 of 80).
  const alt = read({ ...rest, model_type: 'minimax' }).model;
  assert.equal(alt.mamba?.layers.length, 40);
  assert.equal(alt.layerTypes[0], 'full');
  assert.equal(alt.layerTypes[1], 'linear');
  // The remote-code model without attn_type_list: vLLM makes every layer softmax attention.
  const none = read({ ...rest }).model;
  assert.equal(none.mamba, null);
  assert.equal(kvBytesPerToken(none, 'bf16'), 327_680);
  // A list of the wrong length is an error at it; a value other than 0 / 1 a warning.
  const short = readModelConfig(JSON.stringify({ ...MINIMAX_M1, attn_type_list: [0, 1] }));
  assert.match(only(short.problems, 'layer-types-length').message, /"attn_type_list" lists 2 layers but num_hidden_layers is 80/);
  const odd = readModelConfig(JSON.stringify({ ...MINIMAX_M1, attn_type_list: [2, ...list.slice(1)] }));
  assert.match(only(odd.problems, 'unknown-layer-type').message, /2 in "attn_type_list" is neither 0/);
});

test('MiniMax-M1: lm_head and the MoE gates held in fp32, as vLLM\'s minimax_text_01.py loads them (lm_head.float(), gate params_dtype=torch.float32)', () => {
  const { model } = read(MINIMAX_M1);
  const { fp32Weights: _held, ...asDtype } = model;
  assert.deepEqual(model.fp32Weights, { lmHead: true, router: true });
  // bf16: 456,089,655,296 · 2 = 912,179,310,592 B, plus 2 B more a parameter of lm_head (200,064 · 6,144 =
  // 1,229,193,216: 2,458,386,432 B) and of the 80 gates (80 · 6,144 · 32 = 15,728,640: 31,457,280 B):
  // 914,669,154,304 B (the model at bf16 with them in bf16 was 2.46 GB low).
  assert.equal(weightsBytes(model, 'bf16'), 914_669_154_304);
  assert.equal(weightsBytes(asDtype, 'bf16'), 912_179_310_592);
  // Per GPU at tp 8: ParallelLMHead splits lm_head (2,458,386,432 / 8 = 307,298,304 B more a GPU), the
  // ReplicatedLinear gates are whole on each (31,457,280 B more a GPU): 338,755,584 B.
  const perGpu = (m: ModelSpec) => {
    const base = profileFromModelConfig(m, null);
    return estimate({ ...base, device: { ...base.device, tensorParallelSize: 8 }, engine: { ...DEFAULT_ENGINE, vllmVersion: '0.11.0' } }).weightsBytesPerGpu;
  };
  assert.equal(perGpu(model) - perGpu(asDtype), 338_755_584);
  // Step time: one logits row is 2 · 1,229,193,216 / 8 FLOPs at the H100 SXM's fp32 67 TFLOP/s (datasheet),
  // 4.586 µs, not at its bf16 989 TFLOP/s (0.311 µs).
  const base = profileFromModelConfig(model, null);
  const w = stepWork({ ...base, device: { ...base.device, gpu: 'H100 SXM', tensorParallelSize: 8 } });
  assert.equal(w.perLogitsS.toFixed(7), (2 * 1_229_193_216 / 8 / 67e12).toFixed(7));
});
