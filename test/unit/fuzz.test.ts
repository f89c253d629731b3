import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readModelConfig, readProfile, profileFromModelConfig } from '../../core/config/index';
import { estimate, kvBytesPerToken, paramCounts } from '../../core/estimate/index';

/** Keys the reader looks at, so random configs exercise its branches rather than ignored keys. */
const KEYS = [
  'model_type', 'architectures', 'hidden_size', 'n_embd', 'num_hidden_layers', 'n_layer', 'num_attention_heads', 'n_head',
  'num_key_value_heads', 'num_kv_heads', 'multi_query', 'new_decoder_architecture', 'head_dim', 'intermediate_size',
  'vocab_size', 'max_position_embeddings', 'sliding_window', 'use_sliding_window', 'layer_types', 'sliding_window_pattern',
  'num_local_experts', 'num_experts_per_tok', 'moe_intermediate_size', 'n_shared_experts', 'first_k_dense_replace',
  'kv_lora_rank', 'q_lora_rank', 'qk_rope_head_dim', 'qk_nope_head_dim', 'v_head_dim', 'tie_word_embeddings', 'torch_dtype',
  'text_config', 'quantization_config', 'attention_chunk_size', 'mlp_only_layers',
];
const value = fc.oneof(
  fc.integer({ min: -2, max: 64 }),
  fc.constantFrom(0, 1, 2, 4, 8, 16, 128, 4096, 1e9, 2.5, -1),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('llama', 'gemma2', 'falcon', 'bert', 'gpt2', 'deepseek_v3', 'llama4_text', 'bfloat16', 'float32', 'x'),
  fc.array(fc.constantFrom('full_attention', 'sliding_attention', 'linear_attention', 'other', 1), { maxLength: 6 }),
  fc.record({ quant_method: fc.constantFrom('fp8', 'mxfp4', 'awq', 'compressed-tensors', 'bitsandbytes', 'zzz') }),
);
/** A valid base config with a few keys overridden at random: most results read, some do not. */
const BASE = { model_type: 'llama', hidden_size: 512, num_attention_heads: 8, num_key_value_heads: 2, num_hidden_layers: 4, vocab_size: 1000, intermediate_size: 1024 };
const config = fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 4 }).map((o) => ({ ...BASE, ...o }));

test('readModelConfig on random configs: never throws, ranges inside the text, finite sizes', () => {
  let read = 0;
  fc.assert(
    fc.property(config, (obj) => {
      const text = JSON.stringify(obj, null, 1);
      const r = readModelConfig(text);
      for (const p of r.problems) {
        assert.ok(p.range.offset >= 0 && p.range.offset + p.range.length <= text.length, `${p.code} out of range`);
        assert.notEqual(p.code, 'internal-error', p.message);
      }
      if (r.value) {
        read++;
        const m = r.value;
        assert.equal(m.layerTypes.length, m.numLayers);
        const kv = kvBytesPerToken(m, 'bf16');
        assert.ok(Number.isFinite(kv) && kv >= 0);
        const params = paramCounts(m);
        assert.ok(Number.isFinite(params.total) && params.active <= params.total);
        const e = estimate(profileFromModelConfig(m, null), { seqLen: 1000 });
        assert.ok(Number.isFinite(e.pool.pages) && e.pool.pages >= 0);
      }
    }),
    { numRuns: 400, seed: 42 },
  );
  // The property must have been checked on real values, not only on rejected configs.
  assert.ok(read > 100, `only ${read} of 400 configs read`);
});

test('readProfile on random edits of a profile: never throws, ranges inside the text', () => {
  const base = 'model:\n  hidden_size: 64\n  num_attention_heads: 4\n  num_hidden_layers: 2\n  vocab_size: 100\n  intermediate_size: 128\ndtype: bf16\ndevice: { memory_gib: 1, tensor_parallel_size: 2 }\nkv_cache: { page_size: 16, num_pages: auto }\nprefill: { seq_lens: [128, 256] }\nworkload:\n  prompt_len: { dist: uniform, min: 1, max: 10 }\n';
  const edit = fc.record({ at: fc.nat({ max: base.length }), cut: fc.nat({ max: 8 }), insert: fc.constantFrom('', ':', '-', ' ', '\n', '[', '{', '"', 'x', '0', '  ', '#') });
  fc.assert(
    fc.property(fc.array(edit, { minLength: 1, maxLength: 4 }), (edits) => {
      let text = base;
      for (const e of edits) {
        const at = Math.min(e.at, text.length);
        text = text.slice(0, at) + e.insert + text.slice(at + e.cut);
      }
      const r = readProfile(text, '/p/x.attn.yaml', { readFile: () => null });
      for (const p of r.problems) {
        assert.ok(p.range.offset >= 0 && p.range.offset + p.range.length <= text.length, `${p.code} out of range in ${JSON.stringify(text)}`);
        assert.notEqual(p.code, 'internal-error', p.message);
      }
    }),
    { numRuns: 100, seed: 7 },
  );
});
