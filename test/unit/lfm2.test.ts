/**
 * LFM2 (model_type lfm2): its short convolution layers counted as vLLM's lfm2.py builds them
 * (ShortConv, a MambaBase layer), their conv state (mamba_utils.py short_conv_state_shape) in the
 * KV pool, and the MLP width vLLM derives (Lfm2MLP's auto-adjusted block_ff_dim). Before, the first
 * configs' full_attn_idxs were not read (all 16 layers attention: 32,768 B/token, 1.107B, the MLP
 * guessed as 4 · hidden_size with a warning), and with layer_types the conv layers were attention
 * shapes with no state and the MLP intermediate_size's 12,288 wide, not 8,192. Config:
 * test/fixtures/linearHybrids.ts (where each value comes from).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { profileFromModelConfig, readModelConfig, type ModelSpec, type Problem } from '../../core/config/index';
import { DEFAULT_ENGINE, estimate, kvBytesPerToken, mambaLayerParams, mambaStateBytesPerSequence, paramCounts } from '../../core/estimate/index';
import { LFM2_1_2B } from '../fixtures/linearHybrids';
import { only } from '../fixtures/problems';

function read(config: object): { model: ModelSpec; problems: Problem[] } {
  const r = readModelConfig(JSON.stringify(config));
  assert.ok(r.value, JSON.stringify(r.problems));
  return { model: r.value, problems: r.problems };
}

test('LFM2-1.2B: 10 short conv layers and 6 attention layers from full_attn_idxs, counted as vLLM builds them (1,170,340,608, the card\'s 1.17B)', () => {
  const { model, problems } = read(LFM2_1_2B);
  assert.equal(model.mamba?.kind, 'shortconv');
  assert.deepEqual(model.layerTypes.flatMap((t, i) => (t === 'full' ? [i] : [])), [2, 5, 8, 10, 12, 14]);
  assert.equal(model.mamba?.layers.length, 10);
  assert.match(only(problems, 'linear-attention-layers').message, /^10 of 16 layers are short conv layers: only the 6 attention layers keep a per-token KV cache; each short conv layer keeps a constant conv state .*counted as vLLM's ShortConv builds them$/);
  // Lfm2MLP: int(2 · 12,288 / 3) = 8,192, · 1.0, rounded up to a multiple of 256: 8,192.
  assert.equal(model.intermediateSize, 8192);
  // One short conv layer (dim 2048, L_cache 3, no biases): in_proj 2048 · 6144 = 12,582,912; conv 2048 · 3
  // = 6,144; out_proj 2048 · 2048 = 4,194,304: 16,783,360.
  assert.equal(mambaLayerParams(model), 16_783_360);
  // Totals (hand count of vLLM lfm2.py):
  //   embed_tokens 65,536 · 2048 = 134,217,728 (lm_head tied); embedding_norm 2048;
  //   16 MLPs 3 · 2048 · 8192 = 50,331,648 each, 805,306,368;
  //   6 attention layers (head_dim 2048 / 32 = 64): q_proj and out_proj 2048 · 2048 each, k_proj and v_proj
  //     2048 · 512 each, q_layernorm and k_layernorm 64 each: 10,485,888 each, 62,915,328;
  //   10 short conv layers 167,833,600; 16 · 2 RMSNorms of 2048 (operator_norm, ffn_norm) 65,536;
  //   total 1,170,340,608.
  const c = paramCounts(model);
  assert.equal(c.breakdown.attention, 62_915_328);
  assert.equal(c.breakdown.mlp, 805_306_368);
  assert.equal(c.total, 1_170_340_608);
  // KV only in the 6 attention layers: 6 · 2 · 8 · 64 · 2 = 12,288 B/token (all 16: 32,768).
  assert.equal(kvBytesPerToken(model, 'bf16'), 12_288);
  // The conv state: 10 · 2048 · (3 − 1) · 2 B = 81,920 B a sequence; tp 2: 40,960.
  assert.equal(mambaStateBytesPerSequence(model, 'bf16'), 81_920);
  assert.equal(mambaStateBytesPerSequence(model, 'bf16', 2), 40_960);
});

test('LFM2 with layer_types (later configs) gives the same layers; without full_attn_idxs or layer_types every layer attends (Lfm2Config)', () => {
  const { full_attn_idxs: idxs, block_ff_dim: _ff, ...rest } = LFM2_1_2B;
  const layerTypes = Array.from({ length: 16 }, (_, i) => (idxs.includes(i) ? 'full_attention' : 'conv'));
  const withTypes = read({ ...rest, intermediate_size: 12288, layer_types: layerTypes }).model;
  assert.equal(withTypes.mamba?.layers.length, 10);
  assert.equal(withTypes.intermediateSize, 8192);
  assert.equal(paramCounts(withTypes).total, 1_170_340_608);
  // block_auto_adjust_ff_dim false: intermediate_size as written.
  const asWritten = read({ ...rest, intermediate_size: 10752, block_auto_adjust_ff_dim: false, layer_types: layerTypes }).model;
  assert.equal(asWritten.intermediateSize, 10752);
  const allAttention = read({ ...rest, intermediate_size: 12288 }).model;
  assert.equal(allAttention.mamba, null);
  assert.equal(kvBytesPerToken(allAttention, 'bf16'), 32_768);
});

test('LFM2-1.2B in the KV pool: 16-token pages already hold a conv state, padded 300 %; 1 + 2 groups of 6', () => {
  // Per layer: conv state 2048 · 2 · 2 = 8,192 B; attention KV 2 · 8 · 64 · 2 = 2,048 B a token; block 16 ·
  // ceil(8,192 / (16 · 2,048)) = 16, page 32,768 B: the state is padded by (32,768 − 8,192) / 8,192 = 300 %.
  // 6 attention + 10 conv layers: 10 ≥ 1.5 · 6, groups of 6: 1 + 2; blocks of 6 · 16 · 2,048 = 196,608 B;
  // on 4 GiB 4,294,967,296 / 196,608 = 21,845 blocks; 21,845 // 3 · 16 = 116,496 tokens; a 128,000-token
  // request holds 8,000 blocks + 2 state blocks: 21,845 / 8,002 = 2.73x.
  const { model } = read(LFM2_1_2B);
  const base = profileFromModelConfig(model, null);
  const e = estimate({ ...base, kvCache: { pageSize: 16, dtype: 'auto', numPages: 'auto', memoryGib: 4 }, engine: { ...DEFAULT_ENGINE, vllmVersion: '0.11.0' } });
  const l = e.pool.layout;
  assert.equal(l.kind, 'mamba');
  assert.equal(l.pageSize, 16);
  assert.equal(l.mambaPageBytes, 8_192);
  assert.equal(e.pageBytesPerLayer, 32_768);
  assert.deepEqual([l.groupSize, l.fullGroups, l.mambaGroups, l.stateBlocks], [6, 1, 2, 1]);
  assert.equal(e.pageBytes, 196_608);
  assert.equal(e.pool.pages, 21_845);
  assert.equal(e.pool.tokens, 116_496);
  assert.equal(e.pool.maxConcurrency.toFixed(2), '2.73');
  assert.match(e.notes.join('\n'), /10 short conv layers keep a constant state per sequence, .*\(conv state in bf16\)/);
});
