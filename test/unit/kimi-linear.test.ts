/**
 * Kimi Linear (model_type kimi_linear): vLLM's kimi_linear.py builds the layers its
 * linear_attn_config names KimiDeltaAttention (a MambaBase layer with a conv + fp32 recurrent state)
 * and the others MLA. AttnScope does not model the KDA layers yet: the config is read as MLA in
 * every layer, which a warning now says at linear_attn_config (before, nothing said it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readModelConfig } from '../../core/config/index';
import { only } from '../fixtures/problems';

test('Kimi Linear: its KDA layers are not modelled, and a warning at linear_attn_config says the figures are read as if every layer attended', () => {
  // The keys vLLM's KimiLinearConfig and kda.py read (kda_layers / full_attn_layers are 1-based
  // layer numbers); sizes here are a small hand-written model, not a published one.
  const config = {
    model_type: 'kimi_linear', architectures: ['KimiLinearForCausalLM'], hidden_size: 1024, num_hidden_layers: 4, num_attention_heads: 8,
    kv_lora_rank: 256, qk_rope_head_dim: 64, qk_nope_head_dim: 64, v_head_dim: 64, q_lora_rank: null, intermediate_size: 4096, vocab_size: 1000,
    linear_attn_config: { full_attn_layers: [4], kda_layers: [1, 2, 3], head_dim: 64, num_heads: 8, short_conv_kernel_size: 4 },
  };
  const r = readModelConfig(JSON.stringify(config));
  const w = only(r.problems, 'unknown-hybrid-layout');
  assert.equal(w.severity, 'warning');
  assert.match(w.message, /^"linear_attn_config" is a key of hybrid Mamba \/ attention models, but model_type "kimi_linear" is not one whose layer layout AttnScope reads .*: read as a pure transformer, every layer attention/);
  const text = JSON.stringify(config);
  assert.equal(w.range.offset, text.indexOf('"linear_attn_config"'));
});
