/**
 * vLLM's default max_model_len (core/estimate vllmMaxModelLen), checked by hand against
 * vllm/config/model.py _get_and_verify_max_len (vllm-project/vllm 0052a5b8) on the shipped
 * configs and on configs that hold each of its rules.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readModelConfig, readProfile, type ModelSpec } from '../../core/config/index';
import { estimate, vllmMaxModelLen } from '../../core/estimate/index';
import { loadModel } from './helpers';

/** A small Llama-style config with `extra` keys on top. */
function model(extra: Record<string, unknown>): ModelSpec {
  const config = { model_type: 'llama', hidden_size: 512, num_hidden_layers: 2, num_attention_heads: 8, num_key_value_heads: 8, intermediate_size: 1024, vocab_size: 1000, ...extra };
  const r = readModelConfig(JSON.stringify(config), 'config.json');
  if (!r.value) throw new Error(r.problems.map((p) => p.message).join('; '));
  return r.value;
}

test('vLLM default max_model_len of the shipped configs: the smallest length key, times the rope_scaling factor except llama3; yarn from original_max_position_embeddings', () => {
  const cases: Array<[string, number, string]> = [
    // rope_type llama3 is in vLLM's ("su", "longrope", "llama3") list: max_position_embeddings unscaled.
    ['Llama-3.1-8B', 131_072, 'max_position_embeddings 131,072'],
    ['Llama-3.2-3B', 131_072, 'max_position_embeddings 131,072'],
    // rope_scaling null: the length as written.
    ['Llama-2-7b-hf', 4_096, 'max_position_embeddings 4,096'],
    ['Qwen3-8B', 40_960, 'max_position_embeddings 40,960'],
    // sliding_window 4,096 does not cap it (only --disable-sliding-window does).
    ['gemma-2-9b', 8_192, 'max_position_embeddings 8,192'],
    // yarn: original_max_position_embeddings × factor: 4,096 × 40 = 163,840; 4,096 × 32 = 131,072.
    ['DeepSeek-V3', 163_840, 'rope_scaling yarn: original_max_position_embeddings 4,096 × factor 40 = 163,840'],
    ['gpt-oss-20b', 131_072, 'rope_scaling yarn: original_max_position_embeddings 4,096 × factor 32 = 131,072'],
    // GPT-2 names it n_positions (vLLM's second key).
    ['gpt2', 1_024, 'n_positions 1,024'],
  ];
  for (const [name, tokens, basis] of cases) {
    const m = vllmMaxModelLen(loadModel(name));
    assert.deepEqual({ tokens: m.tokens, basis: m.basis, limit: m.limit }, { tokens, basis, limit: tokens }, name);
  }
});

test('vLLM default max_model_len: each rule of _get_and_verify_max_len on a config that holds it', () => {
  const of = (extra: Record<string, unknown>) => vllmMaxModelLen(model(extra));
  // The smallest of the possible_keys: max_position_embeddings 4,096 and seq_length 2,048 -> 2,048.
  assert.equal(of({ max_position_embeddings: 4096, seq_length: 2048 }).tokens, 2048);
  // model_max_length (Command-R) replaces the smallest, even when larger: 8,192 and 131,072 -> 131,072.
  assert.deepEqual(of({ max_position_embeddings: 8192, model_max_length: 131072 }), { tokens: 131_072, basis: 'model_max_length 131,072', limit: 131_072, limitBasis: 'model_max_length 131,072' });
  // linear and dynamic scale the length by factor: 4,096 × 4 = 16,384; "type" is read as rope_type.
  assert.equal(of({ max_position_embeddings: 4096, rope_scaling: { type: 'linear', factor: 4 } }).tokens, 16_384);
  assert.equal(of({ max_position_embeddings: 4096, rope_scaling: { rope_type: 'dynamic', factor: 2 } }).basis, 'max_position_embeddings 4,096 × rope_scaling dynamic factor 2 = 8,192');
  // LongRoPE (Phi-3-mini-128k): the default is the config's original_max_position_embeddings
  // 4,096; the limit stays max_position_embeddings 131,072 (longrope is not scaled).
  const longrope = of({ max_position_embeddings: 131072, original_max_position_embeddings: 4096, rope_scaling: { type: 'longrope', long_factor: [1], short_factor: [1] } });
  assert.deepEqual([longrope.tokens, longrope.limit], [4_096, 131_072]);
  assert.match(longrope.basis, /^LongRoPE: original_max_position_embeddings 4,096/);
  // Gemma 3's length is already scaled: factor 8 is not applied.
  assert.equal(vllmMaxModelLen(model({ model_type: 'gemma3_text', max_position_embeddings: 131072, rope_scaling: { rope_type: 'linear', factor: 8 } })).tokens, 131_072);
  // transformers v5 rope_parameters, one per layer type: the scaled type's factor applies once.
  assert.equal(of({ max_position_embeddings: 4096, rope_parameters: { full_attention: { rope_type: 'linear', factor: 4 }, sliding_attention: { rope_type: 'default' } } }).tokens, 16_384);
  // No length key at all: vLLM assumes 2,048 and accepts any written max_model_len.
  const none = vllmMaxModelLen({ ...model({}), contextLength: { lengths: [], rope: [], originalMaxPositionEmbeddings: null } });
  assert.deepEqual([none.tokens, none.limit], [2048, null]);
});

test('a workload: block without max_model_len takes vLLM\'s default, so the estimate\'s max concurrency is at vLLM\'s N', () => {
  const host = { readFile: () => JSON.stringify({ model_type: 'llama', hidden_size: 4096, num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8, intermediate_size: 14336, vocab_size: 128256, max_position_embeddings: 131072, rope_scaling: { rope_type: 'llama3', factor: 8, original_max_position_embeddings: 8192 } }) };
  const p = readProfile('model: ./m/config.json\nkv_cache: { memory_gib: 32 }\nworkload: { requests: 10 }\n', '/x/p.attn.yaml', host).value!;
  // Llama-3.1-8B's shape: llama3 leaves max_position_embeddings 131,072 unscaled (it was min(131,072, 8,192) = 8,192).
  assert.equal(p.workload!.maxModelLen, 131_072);
  // 32 GiB / 2 MiB pages (16 tokens × 131,072 B) = 16,384 pages; one 131,072-token request takes
  // 131,072 / 16 = 8,192 of them: 2 at once (at 8,192 it was 32).
  assert.equal(estimate(p).pool.maxConcurrency, 2);
});
