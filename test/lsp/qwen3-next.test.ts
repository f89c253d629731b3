/**
 * Qwen3-Next in the editor: its Gated DeltaNet state shown like Jamba's Mamba state (the KV hint,
 * the hover's row), named for what it is. The config is the published config.json of
 * Qwen/Qwen3-Next-80B-A3B-Instruct (HF model card), trimmed of keys that size nothing.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { InlayHint, MarkupContent } from 'vscode-languageserver-protocol';
import { LspClient, fixtureUri, hintLabel as label, rangeOf } from './harness';

let client: LspClient;
before(async () => {
  client = await LspClient.start();
});
after(async () => {
  assert.equal(await client.stop(), 0);
});

test('Qwen3-Next-80B-A3B config.json: KV of its 12 attention layers and the Gated DeltaNet state per sequence, in the hint and the hover', async () => {
  const config = {
    architectures: ['Qwen3NextForCausalLM'], model_type: 'qwen3_next', attention_bias: false, decoder_sparse_step: 1, full_attention_interval: 4,
    head_dim: 256, hidden_size: 2048, intermediate_size: 5120, linear_conv_kernel_dim: 4, linear_key_head_dim: 128, linear_num_key_heads: 16,
    linear_num_value_heads: 32, linear_value_head_dim: 128, max_position_embeddings: 262144, mlp_only_layers: [], moe_intermediate_size: 512,
    norm_topk_prob: true, num_attention_heads: 16, num_experts: 512, num_experts_per_tok: 10, num_hidden_layers: 48, num_key_value_heads: 2,
    shared_expert_intermediate_size: 512, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 151936,
  };
  const text = JSON.stringify(config, null, 2);
  const uri = fixtureUri('qwen3-next-80b-a3b.config.json');
  await client.open(uri, text);
  const hints = (await client.inlayHints(uri))!;
  // 12 attention layers · 2 · 2 · 256 · 2 B = 24 KiB; 36 GDN layers · (8192·3 + 32·128·128) · 2 B = 39,518,208 B = 37.7 MiB.
  const at = rangeOf(text, '"num_key_value_heads": 2').end;
  const kv = hints.filter((h: InlayHint) => h.position.line === at.line);
  assert.deepEqual(kv.map(label), ['24 KiB KV/token · 37.7 MiB GDN/seq']);
  const key = rangeOf(text, '"num_key_value_heads"');
  const hover = await client.hover(uri, { line: key.start.line, character: key.start.character + 3 });
  const md = (hover!.contents as MarkupContent).value;
  assert.ok(md.includes('| GDN state per sequence | Gated DeltaNet layers · (conv (2·key_dim + value_dim)·(K − 1) · 2 + recurrent value_heads·value_head_dim·key_head_dim · 2 = (2·16·128 + 4096)·3 · 2 + 32·128·128 · 2) (conv bf16, recurrent bf16; vLLM mamba_utils.py shapes)'), md);
  assert.ok(md.includes('| 36 layers · 1.05 MiB (1,097,728 B) = 37.7 MiB (39,518,208 B) |'), md);
  assert.doesNotMatch(md, /Mamba state per sequence/);
  await client.close(uri);
});
