import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FILE_GLOBS,
  isConfigPath,
  fileLocation,
  formatProblem,
  isModelConfigFile,
  isProfilePath,
  offsetToLineColumn,
  profileFromModelConfig,
  readModelConfig,
  readsAsProfile,
  type ModelSpec,
} from '../../core/config/index';
import { DEFAULT_ENGINE, estimate, kvBytesForSequence, kvBytesPerToken, paramCounts, replicatedWeights } from '../../core/estimate/index';
import { formatEstimate } from '../../runner/table';
import { fixtureText, loadModel } from './helpers';
import { labelledConfig } from '../../scripts/bench-config-size';
import { EAGER_MEMBERS, getProperty, parseJsonTree, toPlain, type TreeStats } from '../../core/config/index';
import { at, only } from '../fixtures/problems';
import { SCOUT, SCOUT_TEXT } from '../fixtures/llama4';

test('every shipped config reads without errors or warnings', () => {
  for (const name of ['DeepSeek-V3', 'Llama-2-70b-hf', 'Llama-3.1-405B', 'Mixtral-8x7B-v0.1', 'Qwen3-30B-A3B', 'gemma-2-9b', 'gpt-oss-120b', 'gpt2', 'gpt2-large']) {
    const r = readModelConfig(fixtureText(name));
    assert.ok(r.value, name);
    assert.deepEqual(r.problems.filter((p) => p.severity !== 'info'), [], name);
  }
});

test('GPT-2 key names resolve, with ranges at the aliased keys', () => {
  const text = fixtureText('gpt2-large');
  const m = readModelConfig(text).value!;
  assert.equal(m.hiddenSize, 1280);
  assert.equal(m.numHeads, 20);
  assert.equal(m.numLayers, 36);
  assert.equal(m.headDim, 64);
  assert.equal(m.maxPositionEmbeddings, 1024);
  assert.equal(m.intermediateSize, 5120); // n_inner absent -> 4 · n_embd
  assert.equal(m.tieWordEmbeddings, true); // GPT-2 ties by default
  assert.equal(m.gatedMlp, false);
  assert.equal(m.sourceKeys.hiddenSize, 'n_embd');
  const r = m.ranges['n_head']!;
  assert.equal(text.slice(r.offset, r.offset + r.length), '20');
});

test('GQA, MQA and MHA come from num_key_value_heads', () => {
  assert.equal(loadModel('Llama-2-70b-hf').attention, 'gqa');
  assert.equal(loadModel('Llama-2-7b-hf').attention, 'mha');
  assert.equal(loadModel('Llama-3.1-405B').numKvHeads, 8);
});

test('explicit head_dim wins over hidden / heads (Qwen3-30B-A3B 128, gemma-2 256, gpt-oss 64)', () => {
  const q = loadModel('Qwen3-30B-A3B');
  assert.equal(q.headDim, 128);
  assert.equal(q.headDimExplicit, true);
  assert.equal(loadModel('gemma-2-9b').headDim, 256);
  assert.equal(loadModel('gpt-oss-20b').headDim, 64);
  assert.equal(loadModel('Llama-3.1-8B').headDimExplicit, false);
});

test('sliding windows: gpt-oss layer_types, gemma-2 alternation, Qwen2 disabled, Mixtral null', () => {
  const oss = loadModel('gpt-oss-120b');
  assert.equal(oss.slidingWindow, 128);
  assert.deepEqual(oss.layerTypes.slice(0, 3), ['sliding', 'full', 'sliding']);
  const gemma = loadModel('gemma-2-9b');
  assert.equal(gemma.slidingWindow, 4096);
  assert.equal(gemma.layerTypes.filter((t) => t === 'sliding').length, 21);
  assert.equal(gemma.layerTypes[0], 'sliding'); // HF Gemma2: is_sliding = not bool(layer_idx % 2)
  assert.equal(loadModel('Qwen2-7B').slidingWindow, null); // use_sliding_window: false
  assert.equal(loadModel('Mixtral-8x7B-v0.1').slidingWindow, null);
  // Gemma-3 style sliding_window_pattern 6: layers 5, 11 are global.
  const g3 = readModelConfig(JSON.stringify({ model_type: 'gemma3_text', hidden_size: 64, num_attention_heads: 4, num_hidden_layers: 12, vocab_size: 10, intermediate_size: 128, sliding_window: 512, sliding_window_pattern: 6 })).value!;
  assert.deepEqual(g3.layerTypes.map((t, i) => (t === 'full' ? i : -1)).filter((i) => i >= 0), [5, 11]);
  // Mistral v0.1 style: a window and no pattern -> every layer slides.
  const mistral = readModelConfig(JSON.stringify({ model_type: 'mistral', hidden_size: 64, num_attention_heads: 4, num_hidden_layers: 3, vocab_size: 10, intermediate_size: 128, sliding_window: 4096 })).value!;
  assert.deepEqual(mistral.layerTypes, ['sliding', 'sliding', 'sliding']);
});

test('a sliding_window or attention_chunk_size above 2^31 − 1 is an error at its value (the simulator died on it with a RangeError, exit 1)', () => {
  // 2,147,483,648 = 2^31, one past int32's largest, which the simulator and the kernels hold the window in.
  const base = { model_type: 'mistral', hidden_size: 64, num_attention_heads: 4, num_hidden_layers: 3, vocab_size: 10, intermediate_size: 128 };
  const text = JSON.stringify({ ...base, sliding_window: 2147483648 });
  const r = readModelConfig(text);
  assert.equal(r.value, null);
  const e = only(r.problems, 'invalid-value');
  assert.equal(e.message, '"sliding_window" must be at most 2,147,483,647, not 2,147,483,648');
  assert.equal(at(text, e), '2147483648');
  assert.equal(readModelConfig(JSON.stringify({ ...base, sliding_window: 2147483647 })).value!.slidingWindow, 2147483647);
  const chunked = readModelConfig(JSON.stringify({ ...base, model_type: 'llama4_text', attention_chunk_size: 2 ** 32 }));
  assert.equal(only(chunked.problems, 'invalid-value').message, '"attention_chunk_size" must be at most 2,147,483,647, not 4,294,967,296');
});

test('Qwen2 use_sliding_window with max_window_layers < num_hidden_layers: transformers\' layers, vLLM refuses', () => {
  // transformers' Qwen2Config: layer_types[i] = "sliding_attention" if sliding_window is not None
  // (use_sliding_window) and i >= max_window_layers, else "full_attention". vLLM's qwen2.py asserts
  // max_window_layers == num_hidden_layers when a window is in use, so it will not load this config.
  const base = JSON.parse(fixtureText('Qwen2.5-7B')) as Record<string, unknown>;
  const text = JSON.stringify({ ...base, use_sliding_window: true, sliding_window: 4096, max_window_layers: 14 }, null, 1);
  const r = readModelConfig(text);
  const m = r.value!;
  assert.equal(m.slidingWindow, 4096);
  assert.deepEqual(m.layerTypes, [...Array(14).fill('full'), ...Array(14).fill('sliding')]);
  const p = only(r.problems, 'partial-sliding-window');
  assert.equal(p.severity, 'warning');
  assert.equal(at(text, p), '14');
  assert.match(p.message, /vLLM refuses to load this config/);
  assert.match(p.message, /layers 14–27 slide over 4096 tokens, layers 0–13 hold every token/);
  // max_window_layers == num_hidden_layers (the only form vLLM loads): every layer slides, as vLLM
  // applies the window to every layer; no warning.
  const all = readModelConfig(JSON.stringify({ ...base, use_sliding_window: true, sliding_window: 4096, max_window_layers: 28 }));
  assert.deepEqual(all.value!.layerTypes, Array(28).fill('sliding'));
  assert.equal(all.problems.filter((q) => q.code === 'partial-sliding-window').length, 0);
});

test('MoE: experts, top-k, expert width, shared experts and leading dense layers', () => {
  const ds = loadModel('DeepSeek-V3').moe!;
  assert.deepEqual(
    [ds.numExperts, ds.numExpertsPerTok, ds.expertIntermediateSize, ds.numSharedExperts, ds.sharedExpertIntermediateSize, ds.firstDenseLayers, ds.routerBias],
    [256, 8, 2048, 1, 2048, 3, true],
  );
  const mix = loadModel('Mixtral-8x7B-v0.1').moe!;
  assert.deepEqual([mix.numExperts, mix.numExpertsPerTok, mix.expertIntermediateSize], [8, 2, 14336]);
  const q = loadModel('Qwen3-30B-A3B').moe!;
  assert.deepEqual([q.numExperts, q.numExpertsPerTok, q.expertIntermediateSize], [128, 8, 768]);
  assert.equal(loadModel('gpt-oss-20b').moe!.numExperts, 32);
  assert.equal(loadModel('Llama-3.1-8B').moe, null);
});

test('MLA: DeepSeek-V3 latent sizes and q·k head_dim nope + rope', () => {
  const m = loadModel('DeepSeek-V3');
  assert.equal(m.attention, 'mla');
  assert.deepEqual(m.mla, { kvLoraRank: 512, qLoraRank: 1536, qkRopeHeadDim: 64, qkNopeHeadDim: 128, vHeadDim: 128 });
  assert.equal(m.headDim, 192);
});

test('tie_word_embeddings: explicit true/false and family defaults', () => {
  assert.equal(loadModel('Qwen2.5-3B').tieWordEmbeddings, true);
  assert.equal(loadModel('Llama-3.2-3B').tieWordEmbeddings, true);
  assert.equal(loadModel('Llama-3.1-8B').tieWordEmbeddings, false);
  assert.equal(loadModel('gemma-2-9b').tieWordEmbeddings, true); // Gemma2Config default
  assert.equal(loadModel('gpt2').tieWordEmbeddings, true);
});

test('torch_dtype and dtype map to fp32 / fp16 / bf16', () => {
  assert.equal(loadModel('gemma-2-9b').torchDtype, 'fp32');
  assert.equal(loadModel('Llama-2-7b-hf').torchDtype, 'fp16');
  assert.equal(loadModel('Llama-3.1-8B').torchDtype, 'bf16');
  assert.equal(loadModel('gpt2').torchDtype, null);
  const m = readModelConfig(JSON.stringify({ model_type: 'llama', hidden_size: 64, num_attention_heads: 4, num_hidden_layers: 1, vocab_size: 10, intermediate_size: 128, dtype: 'bfloat16' })).value!;
  assert.equal(m.torchDtype, 'bf16');
});

test('nested text_config is read, with ranges under its path', () => {
  const text = JSON.stringify({
    model_type: 'llava', architectures: ['LlavaForConditionalGeneration'], torch_dtype: 'float16',
    text_config: { model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, num_key_value_heads: 8, num_hidden_layers: 32, vocab_size: 32064, intermediate_size: 14336 },
    vision_config: { hidden_size: 1024, num_attention_heads: 16 },
  }, null, 2);
  const m = readModelConfig(text).value!;
  assert.equal(m.hiddenSize, 4096);
  assert.equal(m.numKvHeads, 8);
  assert.equal(m.torchDtype, 'fp16');
  const r = m.ranges['text_config.num_key_value_heads']!;
  assert.equal(text.slice(r.offset, r.offset + r.length), '8');
});

test('BERT is an encoder, said as an info problem', () => {
  const r = readModelConfig(fixtureText('bert-base-uncased'));
  assert.equal(r.value!.isEncoder, true);
  assert.equal(only(r.problems, 'encoder-no-kv-cache').severity, 'info');
});

test('Falcon: multi_query without a KV count -> MQA; new_decoder_architecture uses num_kv_heads', () => {
  const base = { model_type: 'falcon', hidden_size: 4544, num_attention_heads: 71, num_hidden_layers: 32, vocab_size: 65024 };
  const f7 = readModelConfig(JSON.stringify({ ...base, multi_query: true })).value!;
  assert.equal(f7.numKvHeads, 1);
  assert.equal(f7.attention, 'mqa');
  assert.equal(f7.intermediateSize, 4 * 4544);
  const f40 = readModelConfig(JSON.stringify({ model_type: 'falcon', hidden_size: 8192, num_attention_heads: 128, num_kv_heads: 8, multi_query: true, new_decoder_architecture: true, num_hidden_layers: 60, vocab_size: 65024 })).value!;
  assert.equal(f40.numKvHeads, 8);
  // Pre-port falcon-40b (model_type RefinedWeb): new_decoder_architecture by default, n_head_kv counts.
  const old = readModelConfig(JSON.stringify({ model_type: 'RefinedWeb', hidden_size: 8192, n_head: 128, n_head_kv: 8, n_layer: 60, vocab_size: 65024 })).value!;
  assert.equal(old.numKvHeads, 8);
  // model_type falcon without either flag: transformers' defaults (multi_query true, old
  // architecture) load 1 KV head, whatever n_head_kv says.
  assert.equal(readModelConfig(JSON.stringify({ model_type: 'falcon', hidden_size: 8192, n_head: 128, n_head_kv: 8, n_layer: 60, vocab_size: 65024 })).value!.numKvHeads, 1);
});

test('Falcon in its pre-port form (RefinedWebModel) is read as Falcon: 2-matrix MLP, one LayerNorm a layer', () => {
  // tiiuae/falcon-7b's config.json as first published (s34 newcomer: read as a gated MLP, +38 %).
  const old = '{"alibi":false,"architectures":["RWForCausalLM"],"bias":false,"hidden_size":4544,"model_type":"RefinedWebModel","multi_query":true,"n_head":71,"n_layer":32,"parallel_attn":true,"torch_dtype":"bfloat16","vocab_size":65024}';
  const m = readModelConfig(old).value!;
  // Hand count: embedding 65,024 · 4,544 = 295,469,056 (tied); per layer QKV 4,544 · (71 + 2) · 64
  // = 21,229,568, dense 4,544² = 20,647,936, MLP 2 · 4,544 · 18,176 = 165,183,488, one LayerNorm
  // (parallel_attn, old architecture) 2 · 4,544 = 9,088: 207,070,080 · 32 + final LayerNorm 9,088
  // + embedding = 6,921,720,704 (tiiuae/falcon-7b's model card: 7B).
  assert.equal(m.gatedMlp, false);
  assert.equal(m.normsPerLayer, 1);
  assert.equal(paramCounts(m).total, 6_921_720_704);
  // The model_type falcon form of the same checkpoint counts the same.
  const ported = old.replace('"RefinedWebModel"', '"falcon"').replace('"RWForCausalLM"', '"FalconForCausalLM"');
  assert.equal(paramCounts(readModelConfig(ported).value!).total, 6_921_720_704);
  // Without parallel_attn, input_layernorm and post_attention_layernorm (falcon-rw): two a layer;
  // new_decoder_architecture: ln_attn and ln_mlp, two.
  assert.equal(readModelConfig(old.replace('"parallel_attn":true', '"parallel_attn":false')).value!.normsPerLayer, 2);
  assert.equal(readModelConfig(old.replace('"RefinedWebModel"', '"RefinedWeb"')).value!.normsPerLayer, 2);
});

test('an encoder-decoder (T5) is refused at is_encoder_decoder, not read as a decoder-only model', () => {
  // google/flan-t5-base: 247,577,856 parameters (12 encoder + 12 decoder layers with cross-attention);
  // read as a decoder it gave 134,302,464 and a KV per token without the cross-attention (s34 newcomer).
  const text = '{"architectures":["T5ForConditionalGeneration"],"d_model":768,"d_ff":2048,"d_kv":64,"is_encoder_decoder":true,"model_type":"t5","num_decoder_layers":12,"num_heads":12,"num_layers":12,"vocab_size":32128}';
  const r = readModelConfig(text);
  assert.equal(r.value, null);
  const p = only(r.problems, 'encoder-decoder');
  assert.equal(p.severity, 'error');
  assert.equal(p.range.offset, text.indexOf('true'));
  // By model_type alone (a BART config without the key), at the model_type value.
  const bart = '{"model_type":"bart","d_model":768,"encoder_layers":6,"decoder_layers":6,"encoder_attention_heads":12,"vocab_size":50265}';
  assert.equal(only(readModelConfig(bart).problems, 'encoder-decoder').range.offset, bart.indexOf('"bart"'));
});

test('Falcon: multi_query defaults to true (transformers FalconConfig), num_kv_heads beside it is ignored, as information', () => {
  const text = '{"model_type": "falcon", "hidden_size": 4544, "num_attention_heads": 71, "num_hidden_layers": 2, "vocab_size": 10, "multi_query": true, "num_kv_heads": 71}';
  const r = readModelConfig(text);
  const p = only(r.problems, 'multi-query-conflict');
  assert.equal(p.severity, 'info');
  assert.equal(p.range.offset, text.lastIndexOf('71'));
  assert.equal(r.value!.numKvHeads, 1);
  // Without the key: still MQA, as transformers loads it (falcon-7b: 71 query heads, 1 KV head).
  const bare = readModelConfig('{"model_type": "falcon", "hidden_size": 4544, "num_attention_heads": 71, "num_hidden_layers": 2, "vocab_size": 10}');
  assert.equal(bare.value!.numKvHeads, 1);
  assert.equal(bare.value!.attention, 'mqa');
  // new_decoder_architecture (falcon-40b): num_kv_heads counts.
  const big = readModelConfig('{"model_type": "falcon", "hidden_size": 8192, "num_attention_heads": 128, "num_hidden_layers": 2, "vocab_size": 10, "new_decoder_architecture": true, "num_kv_heads": 8}');
  assert.equal(big.value!.numKvHeads, 8);
  assert.equal(big.problems.some((q) => q.code === 'multi-query-conflict'), false);
});

const LLAMA = { model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, num_key_value_heads: 8, num_hidden_layers: 4, vocab_size: 128, intermediate_size: 14336 };

test('semantic problem: heads not divisible by KV heads, at num_key_value_heads', () => {
  const text = JSON.stringify({ ...LLAMA, num_key_value_heads: 6 }, null, 2);
  const r = readModelConfig(text);
  assert.equal(r.value, null);
  const p = only(r.problems, 'heads-not-divisible');
  assert.equal(p.severity, 'error');
  assert.equal(at(text, p), '6');
  assert.deepEqual((p.data as { suggestions: number[] }).suggestions, [1, 2, 4, 8, 16, 32]);
});

test('semantic problem: hidden not divisible by heads without head_dim; fine with head_dim', () => {
  const text = JSON.stringify({ ...LLAMA, num_attention_heads: 24, num_key_value_heads: 8 }, null, 2);
  const p = only(readModelConfig(text).problems, 'hidden-not-divisible');
  assert.equal(at(text, p), '24');
  const ok = readModelConfig(JSON.stringify({ ...LLAMA, num_attention_heads: 24, num_key_value_heads: 8, head_dim: 128 }));
  assert.equal(ok.value!.headDim, 128);
});

test('semantic problem: layer_types length differs from num_hidden_layers', () => {
  const text = JSON.stringify({ ...LLAMA, sliding_window: 128, layer_types: ['sliding_attention', 'full_attention', 'sliding_attention'] });
  const p = only(readModelConfig(text).problems, 'layer-types-length');
  assert.equal(at(text, p), '["sliding_attention","full_attention","sliding_attention"]');
  assert.deepEqual(p.data, { expected: 4, actual: 3 });
});

test('semantic problems: unknown layer type, sliding layers without a window', () => {
  const text = JSON.stringify({ ...LLAMA, num_hidden_layers: 2, layer_types: ['sliding_attention', 'diagonal_attention'] });
  const r = readModelConfig(text);
  assert.equal(at(text, only(r.problems, 'unknown-layer-type')), '"diagonal_attention"');
  only(r.problems, 'missing-sliding-window');
});

test('semantic problem: more experts per token than experts', () => {
  const text = JSON.stringify({ ...LLAMA, num_local_experts: 8, num_experts_per_tok: 10 });
  const p = only(readModelConfig(text).problems, 'experts-per-tok-exceeds');
  assert.equal(at(text, p), '10');
});

test('missing required fields: one error each, naming the key', () => {
  const text = '{"model_type": "llama", "hidden_size": 4096}';
  const r = readModelConfig(text);
  assert.equal(r.value, null);
  const missing = r.problems.filter((p) => p.code === 'missing-field' && p.severity === 'error').map((p) => (p.data as { key: string }).key).sort();
  assert.deepEqual(missing, ['num_attention_heads', 'num_hidden_layers', 'vocab_size']);
  assert.deepEqual(r.problems[0]!.range, { offset: 0, length: 1 });
});

test('wrong types and invalid values point at the value', () => {
  const text = JSON.stringify({ ...LLAMA, hidden_size: '4096', num_hidden_layers: 0, num_attention_heads: 32.5 });
  const r = readModelConfig(text);
  assert.equal(at(text, only(r.problems, 'wrong-type')), '"4096"');
  const invalid = r.problems.filter((p) => p.code === 'invalid-value').map((p) => at(text, p)).sort();
  assert.deepEqual(invalid, ['0', '32.5']);
  assert.equal(r.problems.filter((p) => p.code === 'missing-field').length, 0);
});

test('architectures must be a list of class names', () => {
  const text = JSON.stringify({ ...LLAMA, architectures: 'LlamaForCausalLM' });
  assert.equal(at(text, only(readModelConfig(text).problems, 'wrong-type')), '"LlamaForCausalLM"');
  const items = JSON.stringify({ ...LLAMA, architectures: ['LlamaForCausalLM', 7] });
  assert.equal(at(items, only(readModelConfig(items).problems, 'wrong-type')), '7');
  assert.deepEqual(readModelConfig(JSON.stringify({ ...LLAMA, architectures: ['LlamaForCausalLM'] })).value!.architectures, ['LlamaForCausalLM']);
});

test('syntax errors: value null, problem at the offending offset, file attached', () => {
  const text = '{\n  "model_type": "llama",\n  "hidden_size": 4096,,\n}';
  const r = readModelConfig(text, '/m/config.json');
  assert.equal(r.value, null);
  const p = r.problems.find((x) => x.code === 'json-syntax')!;
  assert.equal(p.file, '/m/config.json');
  // The second comma of `  "hidden_size": 4096,,` is column 23.
  assert.deepEqual(offsetToLineColumn(text, p.range.offset), { line: 3, column: 23 });
  assert.equal(readModelConfig('').problems[0]!.code, 'json-syntax');
  assert.equal(readModelConfig('[1, 2]').problems[0]!.code, 'not-an-object');
});

test('never throws on garbage', () => {
  for (const text of ['', 'null', '"x"', '{', '{"hidden_size": {}}', '{"text_config": 3}', '{"layer_types": "full"}', '\u0000\uffff', '{"architectures": 5}', '{"quantization_config": {"quant_method": 7}}']) {
    assert.doesNotThrow(() => readModelConfig(text), text);
  }
});

test('quantization_config: fp8 for DeepSeek-V3, mxfp4 experts for gpt-oss', () => {
  // Fp8Config quantizes activations too (per 128-group for block-quant): a W8A8 fp8 checkpoint.
  assert.deepEqual(loadModel('DeepSeek-V3').quantization, { method: 'fp8', bitsPerWeight: 8, scope: 'all', activations: 'fp8', weightBlockSize: [128, 128] });
  assert.deepEqual(loadModel('gpt-oss-20b').quantization, { method: 'mxfp4', bitsPerWeight: 4.25, scope: 'experts' });
  assert.equal(loadModel('Llama-3.1-8B').quantization, null);
});

test('isModelConfigFile / isProfilePath / isConfigPath, and FILE_GLOBS name the same files', () => {
  assert.equal(isModelConfigFile('/a/config.json', '{"model_type": "llama"}'), true);
  assert.equal(isModelConfigFile('/a/llama.config.json', '{"architectures": []}'), true);
  assert.equal(isModelConfigFile('/a/config.json', '{"compilerOptions": {}}'), false);
  // Hand-written, without model_type: a layer count beside a hidden size or head count makes it one.
  assert.equal(isModelConfigFile('/a/config.json', '{"num_hidden_layers": 2, "hidden_size": 64}'), true);
  assert.equal(isModelConfigFile('/a/config.json', '{"n_layer": 2, "n_head": 4,}'), true);
  assert.equal(isModelConfigFile('/a/config.json', '{"num_layers": 3, "port": 80}'), false);
  assert.equal(isModelConfigFile('/a/tsconfig.json', '{"model_type": "llama"}'), false);
  assert.equal(isModelConfigFile('C:\\m\\config.json', '{"model_type": "llama",,}'), true);
  assert.equal(isProfilePath('/x/serve.attn.yaml'), true);
  assert.equal(isProfilePath('/x/serve.attn.yml'), true);
  assert.equal(isProfilePath('/x/serve.attn.json'), true);
  assert.equal(isProfilePath('/x/serve.yaml'), false);
  assert.equal(isProfilePath('/x/.attn.yaml'), false, 'a suffix alone is no name');
  assert.equal(isConfigPath('/x/config.json'), true);
  assert.equal(isConfigPath('C:\\x\\Llama.config.json'), true);
  assert.equal(isConfigPath('/x/tsconfig.json'), false);
  assert.equal(isConfigPath('/x/config.jsonc'), false);
  // Each workspace glob, made concrete, is accepted by the predicates (and nothing else is listed).
  assert.deepEqual(FILE_GLOBS, ['**/*.attn.yaml', '**/*.attn.yml', '**/*.attn.json', '**/config.json', '**/*.config.json']);
  for (const glob of FILE_GLOBS) {
    const name = glob.replace('**/', '/w/').replace('*', 'llama');
    assert.ok(isProfilePath(name) || isConfigPath(name), name);
  }
});

test('readsAsProfile: by the name when it has a known ending, else by the text (a JSON document starts with {)', () => {
  assert.equal(readsAsProfile('/x/serve.attn.json', '{"model": "./config.json"}'), true);
  assert.equal(readsAsProfile('/x/serve.yaml', '{"model": "./config.json"}'), true);
  assert.equal(readsAsProfile('/x/config.json', 'model: ./config.json'), false);
  // bash's <(cat p.yaml): no ending, so the text decides.
  assert.equal(readsAsProfile('/dev/fd/63', 'model: ./config.json\n'), true);
  assert.equal(readsAsProfile('/dev/fd/63', '# a comment\n{not: json}'), true);
  assert.equal(readsAsProfile('/dev/fd/63', '{"model_type": "llama"}'), false);
  assert.equal(readsAsProfile('/dev/fd/63', '\uFEFF \r\n\t{"model_type": "llama"}'), false);
  assert.equal(readsAsProfile('/dev/fd/63', ''), true, 'empty: the YAML reader says what is missing');
});

test('offsetToLineColumn is 1-based and handles CRLF; formatProblem is file:line:col', () => {
  const text = 'ab\r\ncd\nef';
  assert.deepEqual(offsetToLineColumn(text, 0), { line: 1, column: 1 });
  assert.deepEqual(offsetToLineColumn(text, 4), { line: 2, column: 1 });
  assert.deepEqual(offsetToLineColumn(text, 8), { line: 3, column: 2 });
  assert.deepEqual(offsetToLineColumn(text, 99), { line: 3, column: 3 });
  const line = formatProblem('p.attn.yaml', text, { severity: 'error', code: 'x', message: 'bad', range: { offset: 5, length: 1 } });
  assert.equal(line, 'p.attn.yaml:2:2: error: bad [x]');
  assert.match(formatProblem('p.attn.yaml', text, { severity: 'error', code: 'x', message: 'bad', range: { offset: 0, length: 0 }, file: '/m/config.json' }), /^\/m\/config\.json:1:1: /);
  // s40 newcomer 15: a name with a control character is quoted and escaped, so the message stays one line.
  assert.equal(fileLocation('nl\nname.attn.yaml', 2, 24), '"nl\\nname.attn.yaml":2:24');
  assert.equal(fileLocation('a"b\u2028\u001b\\c', 1, 1), '"a\\"b\\u2028\\u001b\\\\c":1:1');
  assert.equal(fileLocation('dir é/p 模.attn.yaml', 3, 4), 'dir é/p 模.attn.yaml:3:4');
  assert.equal(formatProblem('x\ty.json', text, { severity: 'warning', code: 'c', message: 'm', range: { offset: 0, length: 0 } }), '"x\\ty.json":1:1: warning: m [c]');
});

test('Llama 4 Scout (text_config): chunked attention on RoPE layers, MoE with a shared expert', () => {
  const text = SCOUT;
  const r = readModelConfig(text);
  assert.deepEqual(r.problems, []);
  const m = r.value!;
  // Default no_rope_layers: every 4th layer is global (NoPE) -> 12 full, 36 chunked of 8192.
  assert.equal(m.slidingWindow, 8192);
  assert.equal(m.layerTypes.filter((t) => t === 'full').length, 12);
  assert.equal(m.layerTypes[3], 'full');
  // 48 · 2 · 8 · 128 · 2 = 196,608 B/token; a 32k sequence holds (12 · 32768 + 36 · 8192) · 4096 B.
  assert.equal(kvBytesPerToken(m, 'bf16'), 196_608);
  assert.equal(kvBytesForSequence(m, 32_768, 'bf16'), (12 * 32_768 + 36 * 8192) * 4096);
  // Per layer: attention 2·5120² + 2·5120·1024 = 62,914,560; 16 experts + 1 shared of 3·5120·8192
  // = 125,829,120 each; router 5120·16; norms 10,240 -> 2,202,101,760 ×48, + 2 · 202048·5120
  // + 5120 = 107,769,861,120 (Meta: 109B with the vision encoder). Active: 1 routed + shared
  // -> 314,664,960 ×48 + embeddings = 17,172,894,720 (Meta: 17B active, counting the embedding);
  // active without the 202048 · 5120 = 1,034,485,760 input-embedding lookup: 16,138,408,960.
  const p = paramCounts(m);
  assert.equal(p.total, 107_769_861_120);
  assert.equal(p.active, 16_138_408_960);
  assert.equal(p.active + p.breakdown.embedding, 17_172_894_720);
});

test('Llama 4 chunked attention is named attention_chunk_size in the estimate, not a sliding window (s34 newcomer-cli finding 11)', () => {
  const text = JSON.stringify(SCOUT_TEXT);
  const p = profileFromModelConfig(readModelConfig(text).value!, null);
  // vLLM 0.10.1 to 0.13 keep the hybrid KV-cache manager off for chunked local attention (PR #21761).
  p.engine = { ...DEFAULT_ENGINE, vllmVersion: '0.13.0' };
  const e = estimate(p, { seqLen: 32_768 });
  assert.equal(e.model.slidingWindow, null);
  assert.equal(e.model.attentionChunkSize, 8192);
  assert.match(formatEstimate(e, 'scout'), /hidden=5120 attention_chunk_size=8192 \(chunked attention\), weights/);
  // One KV-cache group, so the pool reserves every token of every layer: 32,768 · 196,608 B = 6 GiB,
  // where the chunked layers need at most their chunk: (12 · 32,768 + 36 · 8,192) · 4,096 B = 2,818,572,288 B (2.63 GiB).
  const note = e.notes.find((n) => n.startsWith('chunked-attention layers'));
  assert.match(note ?? '', /attention_chunk_size 8,192: a query attends only the keys of its own chunk.* needs 2\.63 GiB, but vLLM < 0\.14\.0 .* turns the hybrid KV-cache manager off .*every layer holds every token, so the pool reserves 6 GiB \(from 0\.14\.0, or with VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1 \(engine\.disable_hybrid_kv_cache_manager false\), the chunked layers get KV-cache groups of their own\)$/);
  assert.ok(!e.notes.some((n) => /sliding/.test(n)), e.notes.join('\n'));
});

test('MPT expansion_ratio sets the MLP width; Qwen2-MoE counts its shared_expert_gate (s34 newcomer-cli findings 9, 10)', () => {
  // MPT-7B's config with expansion_ratio 2 (vLLM mpt.py: intermediate_size = expansion_ratio · d_model).
  // By hand: embedding 50432 · 4096 = 206,569,472 (tied); per layer Wqkv + out_proj 4 · 4096² =
  // 67,108,864, MLP 2 · 4096 · 8192 = 67,108,864, 2 LayerNorms without bias 8,192; final norm 4,096:
  // 206,569,472 + 32 · 134,225,920 + 4,096 = 4,501,803,008 (expansion_ratio 4: 6,649,286,656).
  const mpt = { architectures: ['MPTForCausalLM'], model_type: 'mpt', d_model: 4096, n_heads: 32, n_layers: 32, no_bias: true, vocab_size: 50432, max_seq_len: 2048, expansion_ratio: 2 };
  const r = readModelConfig(JSON.stringify(mpt));
  assert.deepEqual(r.problems.filter((p) => p.severity !== 'info'), []);
  assert.equal(r.value!.intermediateSize, 8192);
  assert.equal(paramCounts(r.value!).total, 4_501_803_008);
  // Absent: MPTConfig's default 4, said by no warning (it is the class default).
  const { expansion_ratio: _, ...mpt4 } = mpt;
  const r4 = readModelConfig(JSON.stringify(mpt4));
  assert.equal(paramCounts(r4.value!).total, 6_649_286_656);
  assert.deepEqual(r4.problems.filter((p) => p.code === 'missing-field'), []);
  // Qwen1.5-MoE-A2.7B's config. By hand (vLLM qwen2_moe.py Qwen2MoeSparseMoeBlock): per layer
  // attention 4 · 2048² + 3 · 2048 (qkv bias) = 16,783,360; 60 experts of 3 · 2048 · 1408 =
  // 519,045,120; shared expert 3 · 2048 · 5632 = 34,603,008; router 2048 · 60 = 122,880;
  // shared_expert_gate [2048, 1] = 2,048; norms 4,096: 570,560,512 · 24 = 13,693,452,288; + embedding
  // and lm_head 2 · 151936 · 2048 = 622,329,856 + final norm 2,048 = 14,315,784,192 (card: 14.3B).
  const qwen = {
    architectures: ['Qwen2MoeForCausalLM'], model_type: 'qwen2_moe', hidden_size: 2048, intermediate_size: 5632, num_hidden_layers: 24,
    num_attention_heads: 16, num_key_value_heads: 16, vocab_size: 151936, num_experts: 60, num_experts_per_tok: 4, moe_intermediate_size: 1408,
    shared_expert_intermediate_size: 5632, decoder_sparse_step: 1, tie_word_embeddings: false, mlp_only_layers: [],
  };
  assert.equal(paramCounts(readModelConfig(JSON.stringify(qwen)).value!).total, 14_315_784_192);
});

test('gemma-3 text_config without head counts takes Gemma3TextConfig defaults, said as info', () => {
  // Verbatim shape of google/gemma-3-4b-it: the text_config names no heads, head_dim or vocab.
  const text = JSON.stringify({
    architectures: ['Gemma3ForConditionalGeneration'], model_type: 'gemma3', torch_dtype: 'bfloat16',
    text_config: { hidden_size: 2560, intermediate_size: 10240, model_type: 'gemma3_text', num_hidden_layers: 34, rope_scaling: { factor: 8.0, rope_type: 'linear' }, sliding_window: 1024 },
  });
  const r = readModelConfig(text);
  const info = r.problems.find((p) => p.code === 'family-defaults')!;
  assert.equal(info.severity, 'info');
  assert.match(info.message, /num_attention_heads 8/);
  const m = r.value!;
  assert.deepEqual([m.numHeads, m.numKvHeads, m.headDim, m.vocabSize], [8, 4, 256, 262_208]);
  // sliding_window_pattern 6: layers 5, 11, 17, 23, 29 global.
  assert.equal(m.layerTypes.filter((t) => t === 'full').length, 5);
  // 34 · 2 · 4 · 256 · 2 = 139,264 B/token.
  assert.equal(kvBytesPerToken(m, 'bf16'), 139_264);
  // Embedding 262208·2560 (tied) + 34 · (attention 15,728,640 + q/k norms 512 + MLP 3·2560·10240
  // + 4 norms 10,240) + 2560 = 3,880,263,168 (the 4B model's language part; SigLIP adds 0.4B).
  assert.equal(paramCounts(m).total, 3_880_263_168);
});

test('hybrid layer_types: linear-attention layers hold no KV; unknown types warned once per type', () => {
  // Qwen3-Next style: 3 linear_attention layers per full_attention layer.
  const layerTypes = Array.from({ length: 8 }, (_, i) => ((i + 1) % 4 === 0 ? 'full_attention' : 'linear_attention'));
  const text = JSON.stringify({ ...LLAMA, model_type: 'qwen3_next', num_hidden_layers: 8, head_dim: 256, num_attention_heads: 16, num_key_value_heads: 2, layer_types: layerTypes });
  const r = readModelConfig(text);
  const m = r.value!;
  assert.equal(r.problems.find((p) => p.code === 'linear-attention-layers')!.severity, 'info');
  assert.equal(m.layerTypes.filter((t) => t === 'linear').length, 6);
  // Only the 2 full layers: 2 · 2 · 2 · 256 · 2 = 4096 B/token.
  assert.equal(kvBytesPerToken(m, 'bf16'), 4096);
  assert.equal(kvBytesForSequence(m, 1000, 'bf16'), 2 * 1000 * 2048);
  const odd = readModelConfig(JSON.stringify({ ...LLAMA, layer_types: ['full_attention', 'moe_attention', 'moe_attention', 'full_attention'] }));
  const warn = only(odd.problems, 'unknown-layer-type');
  assert.match(warn.message, /"moe_attention" \(2 layers\)/);
});

test('Qwen3-Next without layer_types: built from full_attention_interval as transformers does, not every layer attention', () => {
  // The published Qwen3-Next-80B-A3B config gives full_attention_interval 4 and no layer_types;
  // transformers' Qwen3NextConfig makes layer i "linear_attention" unless (i + 1) % 4 == 0. 48
  // layers: 12 full. KV 12 · 2 · 2 KV heads · 256 · 2 B = 24,576 B/token (was 98,304: all 48).
  const base = { ...LLAMA, model_type: 'qwen3_next', num_hidden_layers: 48, head_dim: 256, num_attention_heads: 16, num_key_value_heads: 2 };
  const r = readModelConfig(JSON.stringify({ ...base, full_attention_interval: 4 }));
  const m = r.value!;
  assert.deepEqual(m.layerTypes.slice(0, 8), ['linear', 'linear', 'linear', 'full', 'linear', 'linear', 'linear', 'full']);
  assert.equal(kvBytesPerToken(m, 'bf16'), 24_576);
  assert.equal(r.problems.find((p) => p.code === 'linear-attention-layers')!.severity, 'info');
  // Without the key: transformers' default interval 4. Interval 2: 24 full layers, 49,152 B.
  assert.equal(kvBytesPerToken(readModelConfig(JSON.stringify(base)).value!, 'bf16'), 24_576);
  assert.equal(kvBytesPerToken(readModelConfig(JSON.stringify({ ...base, full_attention_interval: 2 })).value!, 'bf16'), 49_152);
});

test('remaining config codes: unknown-dtype, not-a-model-config, unknown-quantization, MoE and MLA missing fields', () => {
  const dtypeText = JSON.stringify({ ...LLAMA, torch_dtype: 'float8' });
  const d = readModelConfig(dtypeText);
  assert.equal(at(dtypeText, only(d.problems, 'unknown-dtype')), '"float8"');
  assert.equal(d.value!.torchDtype, null);
  const { model_type: _omit, ...bare } = LLAMA;
  assert.equal(only(readModelConfig(JSON.stringify(bare)).problems, 'not-a-model-config').severity, 'warning');
  const quantText = JSON.stringify({ ...LLAMA, quantization_config: { quant_method: 'bitnet' } });
  const q = only(readModelConfig(quantText).problems, 'unknown-quantization');
  assert.equal(at(quantText, q), '"quantization_config"');
  const moe = readModelConfig(JSON.stringify({ ...LLAMA, num_local_experts: 8 }));
  assert.equal(moe.value, null);
  assert.deepEqual(moe.problems.filter((p) => p.code === 'missing-field').map((p) => p.data?.key), ['num_experts_per_tok']);
  const mla = readModelConfig(JSON.stringify({ ...LLAMA, kv_lora_rank: 512, qk_rope_head_dim: 64 }));
  assert.deepEqual(mla.problems.filter((p) => p.code === 'missing-field').map((p) => p.data?.key).sort(), ['qk_nope_head_dim', 'v_head_dim']);
});

test('quantization_config of common checkpoint formats: AWQ, GPTQ, compressed-tensors, bitsandbytes', () => {
  const q = (qc: object) => readModelConfig(JSON.stringify({ ...LLAMA, quantization_config: qc })).value!.quantization;
  // AWQ 4-bit, group 128 (vLLM awq.py: int32-packed qweight and qzeros, fp16 scales per group):
  // 4 + (16-bit scale + 4-bit zero) / 128 = 4.15625 bits a full group, not 4 + 32/128.
  const none = { notConverted: [], notConvertedPatterns: [], lmHead: false };
  assert.deepEqual(q({ quant_method: 'awq', bits: 4, group_size: 128, zero_point: true, modules_to_not_convert: null }),
    { method: 'awq', bitsPerWeight: 4.15625, scope: 'all', grouped: { bits: 4, groupSize: 128, zeroPoints: true, groupIndex: false, ...none } });
  assert.deepEqual(q({ quant_method: 'awq', bits: 4, group_size: 128, modules_to_not_convert: ['mlp', 7] })?.grouped?.notConverted, ['mlp']);
  // GPTQ: g_idx too; group_size -1 is one group over the whole input (gptq.py: group_size = input_size), not 128.
  assert.deepEqual(q({ quant_method: 'gptq', bits: 4, group_size: -1, desc_act: false, sym: true }),
    { method: 'gptq', bitsPerWeight: 4, scope: 'all', grouped: { bits: 4, groupSize: null, zeroPoints: true, groupIndex: true, ...none } });
  assert.deepEqual(q({ quant_method: 'gptq', bits: 8, group_size: 64, lm_head: true, dynamic: { '-:.*mlp.*': {}, '+:.*attn.*': { bits: 8 } } })?.grouped,
    { bits: 8, groupSize: 64, zeroPoints: true, groupIndex: true, notConverted: [], notConvertedPatterns: ['.*mlp.*'], lmHead: true });
  // llm-compressor W4A16 symmetric (pack-quantized): no zero points; `ignore` names exactly or by "re:".
  assert.deepEqual(q({ quant_method: 'compressed-tensors', ignore: ['lm_head', 're:.*gate$'], config_groups: { group_0: { targets: ['Linear'], weights: { num_bits: 4, type: 'int', symmetric: true, strategy: 'group', group_size: 128 } } } }),
    { method: 'compressed-tensors', bitsPerWeight: 4.125, scope: 'all', grouped: { bits: 4, groupSize: 128, zeroPoints: false, groupIndex: false, notConverted: [], notConvertedPatterns: ['lm_head$', '.*gate$'], lmHead: false } });
  // llm-compressor FP8 (W8A8): 8 bits, per-channel scales.
  assert.deepEqual(q({ quant_method: 'compressed-tensors', config_groups: { group_0: { targets: ['Linear'], weights: { num_bits: 8, type: 'float', strategy: 'channel' } } } }), { method: 'compressed-tensors', bitsPerWeight: 8, scope: 'all' });
  assert.equal(q({ quant_method: 'bitsandbytes', load_in_4bit: true })?.bitsPerWeight, 4.5);
});

test('quantization_config values vLLM refuses are refused at the value, not replaced by defaults (s38 newcomer finding 4)', () => {
  const read = (qc: unknown) => {
    const text = JSON.stringify({ ...LLAMA, quantization_config: qc });
    return { text, r: readModelConfig(text) };
  };
  const refused = (qc: unknown, code: string, where: string, message: RegExp) => {
    const { text, r } = read(qc);
    const p = only(r.problems, code);
    assert.equal(p.severity, 'error', JSON.stringify(qc));
    assert.equal(at(text, p), where);
    assert.match(p.message, message);
  };
  const gptq = { quant_method: 'gptq', bits: 4, group_size: 128, desc_act: true, sym: true };
  // vLLM gptq.py GPTQConfig.__init__: weight_bits not in [2, 3, 4, 8] -> "Currently, only 2/3/4/8-bit
  // weight quantization is supported for GPTQ, but got 0 bits." (was read as 4 bits, 5.34 GiB).
  refused({ ...gptq, bits: 0 }, 'invalid-value', '0', /^"bits" in quantization_config cannot be 0: GPTQ takes 2, 3, 4 or 8 \(vLLM gptq\.py/);
  // A string: Fraction(32, "4") / 32 // "4" is a TypeError in vLLM (was read as 4).
  refused({ ...gptq, bits: '4' }, 'wrong-type', '"4"', /^"bits" in quantization_config must be a number, not the string "4"/);
  // awq.py AWQConfig.__init__: "Currently, only 4-bit weight quantization is supported for AWQ, but got 8 bits." (was 8.19 bits).
  refused({ quant_method: 'awq', bits: 8, group_size: 128, zero_point: true }, 'invalid-value', '8', /^"bits" in quantization_config cannot be 8: AWQ takes 4 only/);
  // AWQ reads w_bit before bits (get_from_keys(config, ["w_bit", "bits"])).
  refused({ quant_method: 'awq', w_bit: 3, bits: 4, q_group_size: 128 }, 'invalid-value', '3', /"w_bit" in quantization_config cannot be 3/);
  // group_size 0: input_size_per_partition % 0 is a ZeroDivisionError in create_weights (was read as 128).
  refused({ ...gptq, group_size: 0 }, 'invalid-value', '0', /^"group_size" in quantization_config cannot be 0: -1 \(one group over the whole input\) or a group of at least 1/);
  refused({ ...gptq, group_size: -2 }, 'invalid-value', '-2', /cannot be -2/);
  // quantization_config must be a dict (vLLM: quant_cfg.get("quant_method")); [1] was read as unquantized.
  refused([1], 'wrong-type', '[1]', /^"quantization_config" must be an object, not an array$/);
  // No quant_method: the note a typo's method gets (was unquantized 15 GiB with no word).
  const { text, r } = read({ bits: 4, group_size: 128 });
  const note = only(r.problems, 'unknown-quantization');
  assert.equal(note.severity, 'info');
  assert.equal(at(text, note), '"quantization_config"');
  assert.match(note.message, /^quantization_config has no "quant_method"/);
  assert.equal(r.value!.quantization, null);
  // group_size 100 on Llama-3.1-8B: q/k/v and gate/up take the whole hidden_size 4,096 = 100 · 40.96 on
  // every GPU, so vLLM refuses it at tp 1 (gptq.py create_weights: input_size_per_partition % group_size
  // != 0, "The input size is not aligned with the quantized weight shape"): an error at the value (was 5.37 GiB).
  refused({ ...gptq, group_size: 100 }, 'invalid-value', '100', /^quantization_config does not fit the model: qkv_proj's input is hidden_size 4,096, not a multiple of the GPTQ group_size 100: vLLM gptq\.py refuses it/);
  // The values vLLM takes still read: GPTQ 3 bits, AWQ group -1, null as absent.
  assert.equal(read({ ...gptq, bits: 3 }).r.value!.quantization!.grouped!.bits, 3);
  assert.equal(read({ quant_method: 'awq', bits: 4, group_size: -1 }).r.value!.quantization!.grouped!.groupSize, null);
  assert.deepEqual(read({ ...gptq, bits: null }).r.problems.filter((p) => p.severity === 'error'), []);
});

test('bitsandbytes double quant, NVFP4 (ModelOpt and compressed-tensors) and ModelOpt FP8: bits per weight (s36 newcomer finding 2)', () => {
  const q = (qc: object) => readModelConfig(JSON.stringify({ ...LLAMA, quantization_config: qc })).value!.quantization;
  // QLoRA (Dettmers et al. 2023) §3: double quantization stores the fp32 absmax of each 64-weight block as
  // 8 bits, with one fp32 constant per 256 blocks: 4 + 8/64 + 32/(64·256) = 4.126953125 bits (was 4.5).
  assert.equal(q({ quant_method: 'bitsandbytes', load_in_4bit: true, bnb_4bit_quant_type: 'nf4', bnb_4bit_use_double_quant: true })?.bitsPerWeight, 4.126953125);
  assert.equal(q({ quant_method: 'bitsandbytes', load_in_8bit: true })?.bitsPerWeight, 8);
  // NVFP4 = e2m1 values + an fp8 e4m3 scale per 16 (vLLM modelopt.py / compressed_tensors_w4a4_nvfp4.py): 4 + 8/16.
  // config.json form (quant_algo beside quant_method) and hf_quant_config.json's nested `quantization`.
  assert.equal(q({ quant_method: 'modelopt', quant_algo: 'NVFP4', group_size: 16, ignore: ['lm_head'] })?.bitsPerWeight, 4.5);
  assert.equal(q({ quant_method: 'modelopt', quantization: { quant_algo: 'nvfp4', exclude_modules: ['lm_head'] } })?.bitsPerWeight, 4.5);
  assert.equal(q({ quant_method: 'modelopt', quant_algo: 'FP8' })?.bitsPerWeight, 8);
  // llm-compressor NVFP4: 4-bit float weights in groups of 16 with fp8 scales: 4.5, not 4 + 32/16 = 6.
  const nvfp4 = { num_bits: 4, type: 'float', symmetric: true, strategy: 'tensor_group', group_size: 16, dynamic: false };
  assert.equal(q({ quant_method: 'compressed-tensors', format: 'nvfp4-pack-quantized', config_groups: { group_0: { targets: ['Linear'], weights: nvfp4 } } })?.bitsPerWeight, 4.5);
  // A ModelOpt algorithm not modelled is said so, not read as bf16 in silence.
  const mixed = readModelConfig(JSON.stringify({ ...LLAMA, quantization_config: { quant_method: 'modelopt', quant_algo: 'MIXED_PRECISION' } }));
  assert.equal(mixed.value!.quantization, null);
  assert.equal(only(mixed.problems, 'unknown-quantization').severity, 'info');
});

/** google/gemma-3-12b-it's config.json, keys as published (text_config's torch_dtype as the issue's copy had it). */
const GEMMA3_12B_IT = {
  architectures: ['Gemma3ForConditionalGeneration'], boi_token_index: 255999, eoi_token_index: 256000, eos_token_id: [1, 106],
  image_token_index: 262144, initializer_range: 0.02, mm_tokens_per_image: 256, model_type: 'gemma3',
  text_config: {
    hidden_size: 3840, intermediate_size: 15360, model_type: 'gemma3_text', num_attention_heads: 16, num_hidden_layers: 48,
    num_key_value_heads: 8, rope_scaling: { factor: 8.0, rope_type: 'linear' }, sliding_window: 1024, torch_dtype: 'float32',
  },
  torch_dtype: 'bfloat16', transformers_version: '4.50.0.dev0',
  vision_config: {
    hidden_size: 1152, image_size: 896, intermediate_size: 4304, model_type: 'siglip_vision_model', num_attention_heads: 16,
    num_hidden_layers: 27, patch_size: 14, vision_use_head: false,
  },
};

test('gemma-3-12b-it: the top-level torch_dtype wins, and the SigLIP tower and projector are counted (12,187,325,040, the card\'s 12.2B)', () => {
  const m = readModelConfig(JSON.stringify(GEMMA3_12B_IT, null, 2)).value!;
  // transformers loads the checkpoint in the top-level dtype; text_config's float32 is the text class's serialization.
  assert.equal(m.torchDtype, 'bf16');
  assert.equal(m.sourceKeys.torchDtype, 'torch_dtype');
  const p = paramCounts(m);
  // SigLIP-So400m by hand (modeling_siglip.py; h 1152, i 4304, 27 layers, patch 14, image 896 -> 64² = 4096 patches):
  //   patch conv 3·14²·1152 + 1152 = 678,528; positions 4096·1152 = 4,718,592;
  //   per layer 4h² + 2hi + 9h + i = 5,308,416 + 9,916,416 + 10,368 + 4,304 = 15,239,504, ×27 = 411,466,608;
  //   post LayerNorm 2,304; no head (vision_use_head false): 416,866,032 — the Gemma 3 report's "417M" vision encoder.
  assert.equal(m.vision!.params, 416_866_032);
  // Gemma3MultiModalProjector: mm_input_projection_weight 1152·3840 + mm_soft_emb_norm 1152.
  assert.equal(m.vision!.projectorParams, 4_424_832);
  // Text (Gemma3TextConfig defaults: vocab 262,208, head_dim 256): embedding 1,006,878,720 (tied);
  // per layer q 15,728,640 + k, v 7,864,320 each + o 15,728,640 + MLP 3·3840·15360 = 176,947,200
  // + 4 norms 15,360 + q/k norms 512 = 224,148,992, ×48 = 10,759,151,616 (the report's 10,759M
  // non-embedding); final norm 3,840. With the tower: 12,187,325,040, the safetensors total the
  // model card rounds to 12.2B.
  assert.equal(p.total, 12_187_325_040);
  assert.equal(p.breakdown.vision, 416_866_032 + 4_424_832);
  assert.equal(p.active, p.total);
  // Per-token compute leaves the tower out (it runs once per image).
  assert.equal(p.activeCompute, p.total - p.breakdown.vision! - p.breakdown.embedding + p.breakdown.embedding);
  assert.match(m.vision!.note, /^the SigLIP vision tower \(27 layers, hidden 1152, patch 14 at 896 px\) and its projector into the text model are counted$/);
});

test('a vision_config size written wrong is refused at its value, not replaced by the class default', () => {
  // SiglipVisionConfig would build no tower from patch_size -14, "14" or 0, image_size 0, num_hidden_layers -3
  // or hidden_size 1e300; the tool used to take its defaults (patch 16, image 224, 12 layers, hidden 768) and
  // say "not in vision_config", exit 0.
  const cases: Array<[string, unknown, string]> = [
    ['patch_size', -14, '"patch_size" in vision_config must be at least 1, not -14'],
    ['patch_size', '14', '"patch_size" in vision_config must be a number, not the string "14"'],
    ['patch_size', 0, '"patch_size" in vision_config must be at least 1, not 0'],
    ['image_size', 0, '"image_size" in vision_config must be at least 1, not 0'],
    ['num_hidden_layers', -3, '"num_hidden_layers" in vision_config must be at least 1, not -3'],
    ['hidden_size', 1e300, '"hidden_size" in vision_config must be at most 1,048,576, not 1e+300'],
    ['intermediate_size', 4304.5, '"intermediate_size" in vision_config must be an integer, not 4,304.5'],
  ];
  for (const [key, value, message] of cases) {
    const text = JSON.stringify({ ...GEMMA3_12B_IT, vision_config: { ...GEMMA3_12B_IT.vision_config, [key]: value } }, null, 2);
    const r = readModelConfig(text);
    assert.equal(r.value, null, `${key}: ${JSON.stringify(value)}`);
    const errors = r.problems.filter((p) => p.severity === 'error');
    assert.deepEqual(errors.map((p) => p.message), [message]);
    assert.equal(at(text, errors[0]!), JSON.stringify(value));
    assert.equal(errors[0]!.data?.key, `vision_config.${key}`);
  }
  // Absent or null still takes the class default, said in the note (SiglipVisionConfig: patch_size 16).
  const { patch_size: _dropped, ...noPatch } = GEMMA3_12B_IT.vision_config;
  for (const vision of [noPatch, { ...noPatch, patch_size: null }]) {
    const m = readModelConfig(JSON.stringify({ ...GEMMA3_12B_IT, vision_config: vision })).value!;
    assert.match(m.vision!.note, /patch 16 at 896 px.*not in vision_config, taken from transformers' siglip_vision_model defaults: patch_size 16/);
  }
  // A text-config error and a vision one are reported together.
  const both = readModelConfig(JSON.stringify({ ...GEMMA3_12B_IT, text_config: { ...GEMMA3_12B_IT.text_config, num_hidden_layers: 0 }, vision_config: { ...GEMMA3_12B_IT.vision_config, patch_size: 0 } }));
  assert.equal(both.problems.filter((p) => p.severity === 'error').length, 2);
});

/** llava-hf/llava-1.5-7b-hf's config.json: its text_config relies on LlamaConfig's defaults for every size. */
const LLAVA_15_7B = {
  architectures: ['LlavaForConditionalGeneration'], ignore_index: -100, image_token_index: 32000, model_type: 'llava', pad_token_id: 32001,
  projector_hidden_act: 'gelu',
  text_config: {
    _name_or_path: 'lmsys/vicuna-7b-v1.5', architectures: ['LlamaForCausalLM'], max_position_embeddings: 4096, model_type: 'llama',
    rms_norm_eps: 1e-05, torch_dtype: 'float16', vocab_size: 32064,
  },
  tie_word_embeddings: false, torch_dtype: 'float16', transformers_version: '4.36.0.dev0',
  vision_config: {
    hidden_size: 1024, image_size: 336, intermediate_size: 4096, model_type: 'clip_vision_model', num_attention_heads: 16,
    num_hidden_layers: 24, patch_size: 14, projection_dim: 768, vocab_size: 32000,
  },
  vision_feature_layer: -2, vision_feature_select_strategy: 'default', vocab_size: 32064,
};

test('llava-1.5-7b: text_config sizes absent are LlamaConfig defaults, as transformers builds it (7,050,828,800 parameters vLLM loads; was refused)', () => {
  const r = readModelConfig(JSON.stringify(LLAVA_15_7B, null, 2));
  const m = r.value!;
  // transformers LlamaConfig.__init__: hidden_size 4096, intermediate_size 11008, 32 layers, 32 heads (KV heads = heads).
  assert.deepEqual([m.hiddenSize, m.intermediateSize, m.numLayers, m.numHeads, m.numKvHeads, m.vocabSize], [4096, 11008, 32, 32, 32, 32064]);
  assert.equal(only(r.problems, 'family-defaults').message,
    "not in the config, taken from transformers' llama defaults: hidden_size 4096, num_hidden_layers 32, num_attention_heads 32, intermediate_size 11008");
  // By hand: embedding and untied lm_head 2 · 32064 · 4096 = 262,668,288; per layer 4 · 4096² + 3 · 4096 · 11008
  // + 2 · 4096 = 202,383,360, ×32 = 6,476,267,520; final norm 4096: text 6,738,939,904 (Llama-2-7B's 6,738,415,616
  // + 64 rows · 2 · 4096). CLIP ViT-L/14-336 303,507,456 and the projector 1024 · 4096 + 4096 + 4096² + 4096
  // = 20,979,712: 7,063,427,072, the safetensors total the model card rounds to 7.06B. vLLM (llava.py
  // init_vision_tower_for_llava) builds the tower up to vision_feature_layer -2, 24 − 2 + 1 = 23 layers, with
  // require_post_norm=False: one CLIP layer 4h² + 8h + 2hi + i + h = 12,596,224 and the post-LayerNorm 2,048 are
  // never loaded: tower 290,909,184, total 7,050,828,800.
  assert.equal(m.vision!.params, 290_909_184);
  assert.equal(paramCounts(m).total, 7_050_828_800);
  assert.match(m.vision!.note, /^the CLIP vision tower \(24 layers, hidden 1024, patch 14 at 336 px\) and its projector into the text model are counted \(vLLM loads 23 of them, up to vision_feature_layer -2, without the post-LayerNorm\)$/);
  // vision_feature_layer -1 keeps all 24 layers, still without the post-LayerNorm (require_post_norm=False): 303,505,408.
  assert.equal(readModelConfig(JSON.stringify({ ...LLAVA_15_7B, vision_feature_layer: -1 })).value!.vision!.params, 303_507_456 - 2048);
  // A top-level llama config lacking sizes is still refused (see 'missing required fields').
});

test('llava-v1.6-mistral-7b (llava_next): MistralConfig defaults, CLIP-336 and the projector with image_newline (7,566,747,648, the card\'s 7.57B)', () => {
  // llava-hf/llava-v1.6-mistral-7b-hf's config.json (token ids and image grid left out).
  const cfg = {
    architectures: ['LlavaNextForConditionalGeneration'], model_type: 'llava_next', projector_hidden_act: 'gelu',
    text_config: {
      _name_or_path: 'mistralai/Mistral-7B-Instruct-v0.2', architectures: ['MistralForCausalLM'], intermediate_size: 14336, max_position_embeddings: 32768,
      model_type: 'mistral', num_key_value_heads: 8, rms_norm_eps: 1e-05, rope_theta: 1000000.0, sliding_window: null, torch_dtype: 'bfloat16', vocab_size: 32064,
    },
    torch_dtype: 'float16', use_image_newline_parameter: true,
    vision_config: {
      hidden_size: 1024, image_size: 336, intermediate_size: 4096, model_type: 'clip_vision_model', num_attention_heads: 16, num_hidden_layers: 24,
      patch_size: 14, projection_dim: 768, vocab_size: 32000,
    },
    vision_feature_layer: -2, vision_feature_select_strategy: 'default', vocab_size: 32064,
  };
  const m = readModelConfig(JSON.stringify(cfg)).value!;
  // Text (MistralConfig: hidden 4096, 32 layers, 32 heads): Mistral-7B's 7,241,732,096 + 64 rows · 2 · 4096 = 7,242,256,384.
  // CLIP ViT-L/14-336 as vLLM loads it (23 layers, no post-LayerNorm, as llava-1.5's) 290,909,184; projector
  // 1024 · 4096 + 4096² + 2 · 4096 = 20,979,712, + image_newline 4096. The checkpoint holds 7,566,747,648 (7.57B);
  // vLLM loads 7,554,149,376.
  assert.equal(m.vision!.projectorParams, 20_983_808);
  assert.equal(paramCounts(m).total, 7_554_149_376);
  // Granite Vision's form: a list of feature layers, concatenated into linear_1 (vLLM llava_next.py: vision_hidden_size
  // · len(vision_feature_layer)). [-24, -20, -12, -1] of 24: the deepest is 24, every layer loaded; linear_1 4 · 1024 · 4096.
  const granite = readModelConfig(JSON.stringify({ ...cfg, vision_feature_layer: [-24, -20, -12, -1] })).value!;
  assert.equal(granite.vision!.params, 303_507_456 - 2048);
  assert.equal(granite.vision!.projectorParams, 4 * 1024 * 4096 + 4096 * 4096 + 2 * 4096 + 4096);
  // A list naming a layer the tower lacks: vLLM refuses it, and so does the reader, at the value (it counted the
  // whole tower, silently).
  const text = JSON.stringify({ ...cfg, vision_feature_layer: [3, 30] }, null, 1);
  const bad = readModelConfig(text);
  assert.equal(bad.value, null);
  const e = only(bad.problems, 'invalid-value');
  assert.equal(e.message, '"vision_feature_layer" must name a layer of the 24-layer vision tower (an integer from -24 to -1, or 1 to 24, or a list of them), not [3,30]');
  assert.equal(at(text, e).replace(/\s+/g, ''), '[3,30]');
});

test('a tower setting beside the sizes written wrong (spatial_merge_size, scale_factor, vision_output_dim, img_processor.image_dim_out) is refused at its value, not replaced by its default', () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ ...GEMMA3_12B_IT, model_type: 'mistral3', spatial_merge_size: 0 }, '"spatial_merge_size" must be at least 1, not 0'],
    [{ ...GEMMA3_12B_IT, model_type: 'idefics3', scale_factor: '2' }, '"scale_factor" must be a number, not the string "2"'],
  ];
  for (const [cfg, message] of cases) {
    const r = readModelConfig(JSON.stringify(cfg));
    assert.equal(r.value, null, message);
    assert.deepEqual(r.problems.filter((p) => p.severity === 'error').map((p) => p.message), [message]);
  }
});

/** Qwen/Qwen2-VL-7B-Instruct's and Qwen/Qwen2.5-VL-7B-Instruct's config.json (token ids left out): the text keys at the top, a vision_config without model_type. */
const QWEN_VL_TEXT = {
  attention_dropout: 0.0, hidden_act: 'silu', hidden_size: 3584, initializer_range: 0.02, intermediate_size: 18944, max_window_layers: 28,
  num_attention_heads: 28, num_hidden_layers: 28, num_key_value_heads: 4, rms_norm_eps: 1e-06, rope_theta: 1000000.0, sliding_window: 32768,
  tie_word_embeddings: false, torch_dtype: 'bfloat16', use_cache: true, use_sliding_window: false, vocab_size: 152064,
  rope_scaling: { type: 'mrope', mrope_section: [16, 24, 24] },
};
const QWEN2_VL_7B = {
  architectures: ['Qwen2VLForConditionalGeneration'], ...QWEN_VL_TEXT, model_type: 'qwen2_vl', max_position_embeddings: 32768,
  vision_config: { depth: 32, embed_dim: 1280, mlp_ratio: 4, num_heads: 16, in_chans: 3, hidden_size: 3584, patch_size: 14, spatial_merge_size: 2, spatial_patch_size: 14, temporal_patch_size: 2 },
};
const QWEN25_VL_7B = {
  architectures: ['Qwen2_5_VLForConditionalGeneration'], ...QWEN_VL_TEXT, model_type: 'qwen2_5_vl', max_position_embeddings: 128000,
  vision_config: {
    depth: 32, hidden_act: 'silu', hidden_size: 1280, intermediate_size: 3420, num_heads: 16, in_chans: 3, out_hidden_size: 3584, patch_size: 14,
    spatial_merge_size: 2, spatial_patch_size: 14, window_size: 112, fullatt_block_indexes: [7, 15, 23, 31], tokens_per_second: 2, temporal_patch_size: 2,
  },
};

test('Qwen2-VL / Qwen2.5-VL: the vision tower and patch merger are counted (8,291,375,616 and 8,292,166,656, the cards\' 8.29B; were left out)', () => {
  // Text (Qwen2.5-7B's shapes, untied): 7,615,616,512.
  // Qwen2-VL (vLLM qwen2_vl.py): Conv3d 3 · 2 · 14² · 1280 = 1,505,280 (no bias); 32 blocks of d 1280, MLP 5120
  // (mlp_ratio 4): 4d² + 4d qkv / proj + 4d two LayerNorms + 2di + i + d fc1 / fc2 = 19,677,440, ×32 = 629,678,080:
  // encoder 631,183,360. Merger: LayerNorm 2 · 1280 + Linear(5120, 5120) 26,219,520 + Linear(5120, 3584) 18,353,664
  // = 44,575,744. Tower 675,759,104 (the "≈676M" of the newcomer's report); total 8,291,375,616.
  const q2 = readModelConfig(JSON.stringify(QWEN2_VL_7B)).value!;
  assert.equal(q2.vision!.params, 631_183_360);
  assert.equal(q2.vision!.projectorParams, 44_575_744);
  assert.equal(paramCounts(q2).total, 8_291_375_616);
  assert.equal(q2.vision!.note, 'the Qwen2-VL vision tower (32 layers, hidden 1280, patch 14) and its projector into the text model are counted');
  // Qwen2.5-VL (vLLM qwen2_5_vl.py): the same Conv3d; per block RMSNorms 2d, qkv / proj 4d² + 4d, gated MLP with
  // biases 3 · 1280 · 3420 + 2 · 3420 + 1280 = 13,140,920: 19,702,200, ×32 = 630,470,400; encoder 631,975,680.
  // Merger with an RMSNorm (1280): 44,574,464. Total 7,615,616,512 + 676,550,144 = 8,292,166,656.
  const q25 = readModelConfig(JSON.stringify(QWEN25_VL_7B)).value!;
  assert.equal(q25.vision!.params, 631_975_680);
  assert.equal(q25.vision!.projectorParams, 44_574_464);
  assert.equal(paramCounts(q25).total, 8_292_166_656);
});

/** mistral-community/pixtral-12b's config.json: text_config lacks num_attention_heads, vision_config the tower's sizes (class defaults). */
const PIXTRAL_12B = {
  architectures: ['LlavaForConditionalGeneration'], ignore_index: -100, image_seq_length: 1, image_token_index: 10, model_type: 'llava', projector_hidden_act: 'gelu',
  text_config: {
    hidden_size: 5120, head_dim: 128, intermediate_size: 14336, is_composition: true, max_position_embeddings: 1024000, model_type: 'mistral', num_hidden_layers: 40,
    num_key_value_heads: 8, rms_norm_eps: 1e-05, rope_theta: 1000000000.0, sliding_window: null, vocab_size: 131072,
  },
  torch_dtype: 'bfloat16', transformers_version: '4.45.0.dev0',
  vision_config: { head_dim: 64, hidden_act: 'silu', image_size: 1024, is_composition: true, model_type: 'pixtral', patch_size: 16, rope_theta: 10000.0, tie_word_embeddings: false },
  vision_feature_layer: -1, vision_feature_select_strategy: 'full',
};

test('Pixtral-12B: MistralConfig\'s 32 heads, the Pixtral tower from PixtralVisionConfig defaults and the llava projector (12,682,739,712, the card\'s 12.7B)', () => {
  const r = readModelConfig(JSON.stringify(PIXTRAL_12B));
  const m = r.value!;
  assert.equal(m.numHeads, 32);
  assert.equal(m.headDim, 128);
  // Text (Mistral-NeMo): embedding and lm_head 2 · 131072 · 5120 = 1,342,177,280; per layer q / o 2 · 5120 · 4096,
  // k / v 2 · 5120 · 1024, MLP 3 · 5120 · 14336, norms 10,240 = 272,640,000, ×40; final norm: 12,247,782,400.
  // Tower (transformers PixtralVisionModel, hidden 1024, MLP 4096, 24 layers): patch conv 3 · 16² · 1024 = 786,432,
  // ln_pre 1024, per layer 4 · 1024² + 3 · 1024 · 4096 + 2 · 1024 = 16,779,264, ×24 = 402,702,336: 403,489,792
  // (the card's "400M parameter vision encoder"). Projector 1024 · 5120 + 5120 + 5120² + 5120 = 31,467,520.
  assert.equal(m.vision!.params, 403_489_792);
  assert.equal(m.vision!.projectorParams, 31_467_520);
  assert.equal(paramCounts(m).total, 12_682_739_712);
  assert.match(m.vision!.note, /taken from transformers' pixtral defaults: hidden_size 1024, intermediate_size 4096, num_hidden_layers 24\)$/);
});

test('Pixtral-12B in Mistral\'s own params.json: the vision_encoder and its adapter count as in the HF form (12,682,739,712)', () => {
  // mistralai/Pixtral-12B-2409's params.json; vLLM pixtral.py VisionLanguageAdapter w_in 1024 → 5120, w_out 5120 → 5120, biases.
  const params = {
    dim: 5120, n_layers: 40, head_dim: 128, hidden_dim: 14336, n_heads: 32, n_kv_heads: 8, rope_theta: 1000000000.0, norm_eps: 1e-05, vocab_size: 131072,
    vision_encoder: {
      hidden_size: 1024, num_channels: 3, image_size: 1024, patch_size: 16, rope_theta: 10000.0, intermediate_size: 4096, num_hidden_layers: 24,
      num_attention_heads: 16, image_token_id: 10, image_break_token_id: 12, image_end_token_id: 13, adapter_bias: true,
    },
  };
  const m = readModelConfig(JSON.stringify(params)).value!;
  assert.equal(m.vision!.params, 403_489_792);
  assert.equal(m.vision!.projectorParams, 31_467_520);
  assert.equal(paramCounts(m).total, 12_682_739_712);
});

test('Mistral-Small-3.1 (mistral3): the Pixtral tower and Mistral3MultiModalProjector with its patch merger (24,011,361,280, the card\'s 24B)', () => {
  // mistralai/Mistral-Small-3.1-24B-Instruct-2503's sizes (keys as published, token ids and rope left out).
  const cfg = {
    architectures: ['Mistral3ForConditionalGeneration'], model_type: 'mistral3', multimodal_projector_bias: false, projector_hidden_act: 'gelu', spatial_merge_size: 2,
    text_config: { head_dim: 128, hidden_size: 5120, intermediate_size: 32768, max_position_embeddings: 131072, model_type: 'mistral', num_attention_heads: 32, num_hidden_layers: 40, num_key_value_heads: 8, sliding_window: null, vocab_size: 131072 },
    torch_dtype: 'bfloat16',
    vision_config: { head_dim: 64, hidden_size: 1024, image_size: 1540, intermediate_size: 4096, model_type: 'pixtral', num_attention_heads: 16, num_hidden_layers: 24, patch_size: 14 },
    vision_feature_layer: -1,
  };
  const m = readModelConfig(JSON.stringify(cfg)).value!;
  // Tower: 3 · 14² · 1024 + 1024 + 24 · 16,779,264 = 403,305,472. Projector (no biases): RMSNorm 1024, patch merger
  // Linear(4 · 1024, 1024) 4,194,304, linear_1 1024 · 5120, linear_2 5120²: 35,652,608. Text 23,572,403,200.
  assert.equal(m.vision!.params, 403_305_472);
  assert.equal(m.vision!.projectorParams, 35_652_608);
  assert.equal(paramCounts(m).total, 24_011_361_280);
});

/** meta-llama/Llama-3.2-11B-Vision's config.json (token ids left out). */
const LLAMA32_11B_VISION = {
  architectures: ['MllamaForConditionalGeneration'], image_token_index: 128256, model_type: 'mllama', torch_dtype: 'bfloat16', transformers_version: '4.45.0.dev0',
  text_config: {
    cross_attention_layers: [3, 8, 13, 18, 23, 28, 33, 38], dropout: 0, hidden_act: 'silu', hidden_size: 4096, initializer_range: 0.02,
    intermediate_size: 14336, max_position_embeddings: 131072, model_type: 'mllama_text_model', num_attention_heads: 32, num_hidden_layers: 40,
    num_key_value_heads: 8, rms_norm_eps: 1e-05,
    rope_scaling: { factor: 8.0, high_freq_factor: 4.0, low_freq_factor: 1.0, original_max_position_embeddings: 8192, rope_type: 'llama3' },
    rope_theta: 500000.0, tie_word_embeddings: false, torch_dtype: 'bfloat16', use_cache: true, vocab_size: 128256,
  },
  vision_config: {
    attention_heads: 16, hidden_act: 'gelu', hidden_size: 1280, image_size: 560, intermediate_layers_indices: [3, 7, 15, 23, 30], intermediate_size: 5120,
    max_num_tiles: 4, model_type: 'mllama_vision_model', norm_eps: 1e-05, num_channels: 3, num_global_layers: 8, num_hidden_layers: 32, patch_size: 14,
    supported_aspect_ratios: [[1, 1], [1, 2], [1, 3], [1, 4], [2, 1], [2, 2], [3, 1], [4, 1]], torch_dtype: 'bfloat16', vision_output_dim: 7680,
  },
};

test('Llama-3.2-11B-Vision: the mllama vision tower and its projector are counted', () => {
  const m = readModelConfig(JSON.stringify(LLAMA32_11B_VISION)).value!;
  // transformers MllamaVisionModel, h 1280, i 5120, P = (560/14)² + 1 = 1,601 patches, T = 4 tiles, 8 aspect ratios (9 rows):
  // patch conv 3 · 14² · 1280 = 752,640; class 1280; gated positions 1 + 1601 · 1280 = 2,049,281 and tile table
  // 9 · 4 · 1601 · 1280 = 73,774,080; gated pre / post tile tables 2 · (9 · 4 · 1280 + 1) = 92,162; LayerNorms 5,120;
  // a layer 4h² + 2hi + i + h + 4h = 19,672,320, ×32 = 629,514,240, global ×8 with 2 gates = 157,378,576: 863,567,379.
  assert.equal(m.vision!.params, 863_567_379);
  // multi_modal_projector Linear(7680, 4096) with bias.
  assert.equal(m.vision!.projectorParams, 7680 * 4096 + 4096);
});

test('Llama-3.2-11B-Vision: cross_attention_layers add their q / k norms, gates and 8 embedding rows (10,670,220,835, the card\'s 10.6B); KV counts all 40 layers, said', () => {
  const r = readModelConfig(JSON.stringify(LLAMA32_11B_VISION, null, 2));
  const m = r.value!;
  assert.deepEqual(m.crossAttentionLayers, [3, 8, 13, 18, 23, 28, 33, 38]);
  // Text by hand: embed_tokens (128256 + 8) · 4096 = 525,369,344 (MllamaTextModel), lm_head 128256 · 4096 = 525,336,576;
  // 40 layers of q / o 2 · 4096², k / v 2 · 4096 · 1024, MLP 3 · 4096 · 14336, 2 norms = 218,112,000 each: 8,724,480,000;
  // 8 cross-attention layers' q_norm, k_norm (128 each) and 2 gates: 2,064; final norm 4096: 9,775,192,080.
  // With the tower 863,567,379 and projector 31,461,376: 10,670,220,835 (the safetensors total; card: 10.6B).
  const p = paramCounts(m);
  assert.equal(p.total - p.breakdown.vision!, 9_775_192_080);
  assert.equal(p.total, 10_670_220_835);
  // What the KV cache models: every layer per text token (vLLM V0's CacheEngine sized a block over all 40
  // attention layers), 40 · 2 · 8 · 128 · 2 B = 163,840 B; the image's cross-attention KV is not charged, and said.
  assert.equal(kvBytesPerToken(m, 'bf16'), 163_840);
  const info = only(r.problems, 'cross-attention-layers');
  assert.equal(info.severity, 'info');
  // V0 reserved ceil(E / block_size) more blocks a request for an image's encoder tokens: E = 4 tiles · ((560 / 14)² + 1) = 6,404.
  assert.match(info.message, /^8 of 40 layers are cross-attention layers \(mllama\).*not charged: vLLM V0 reserved blocks for up to 6,404 more tokens a request for each image/);
  assert.equal(m.tieWordEmbeddings, false);
  // A layer index past the last layer is refused at the entry.
  const bad = readModelConfig(JSON.stringify({ ...LLAMA32_11B_VISION, text_config: { ...LLAMA32_11B_VISION.text_config, cross_attention_layers: [3, 40] } }));
  assert.equal(bad.value, null);
  assert.match(only(bad.problems, 'invalid-value').message, /from 0 to 39, not the number 40/);
});

test('Llama-4-Scout: the Llama 4 vision tower, its pixel-shuffle adapter and projector are counted (108,641,793,536, Meta\'s 109B; was a note)', () => {
  // meta-llama/Llama-4-Scout-17B-16E-Instruct's config.json (token ids and rope left out).
  const cfg = {
    architectures: ['Llama4ForConditionalGeneration'], model_type: 'llama4',
    text_config: {
      model_type: 'llama4_text', num_hidden_layers: 48, hidden_size: 5120, num_attention_heads: 40, num_key_value_heads: 8, head_dim: 128,
      intermediate_size: 8192, intermediate_size_mlp: 16384, vocab_size: 202048, max_position_embeddings: 10485760, num_experts_per_tok: 1,
      num_local_experts: 16, interleave_moe_layer_step: 1, attention_chunk_size: 8192, torch_dtype: 'bfloat16',
    },
    vision_config: {
      attention_dropout: 0.0, hidden_act: 'gelu', hidden_size: 1408, image_size: 336, initializer_range: 0.02, intermediate_size: 5632,
      model_type: 'llama4_vision_model', multi_modal_projector_bias: false, norm_eps: 1e-05, num_attention_heads: 16, num_channels: 3, num_hidden_layers: 34,
      patch_size: 14, pixel_shuffle_ratio: 0.5, projector_dropout: 0.0, projector_input_dim: 4096, projector_output_dim: 4096, rope_theta: 10000,
      vision_feature_layer: -1, vision_feature_select_strategy: 'default', vision_output_dim: 4096,
    },
  };
  const r = readModelConfig(JSON.stringify(cfg));
  assert.deepEqual(r.problems, []);
  const m = r.value!;
  // vLLM mllama4.py Llama4VisionModel, h 1408, i 5632, 34 layers, patch 14 at 336 px (24² + 1 = 577 positions):
  // patch_embedding.linear 3 · 14² · 1408 = 827,904; class_embedding 1,408; positional_embedding_vlm 577 · 1408 = 812,416;
  // layernorm_pre / _post 5,632; a layer 4h² + 4h (qkv, o_proj biases) + 4h (2 LayerNorms) + 2hi + i + h = 23,807,872,
  // ×34 = 809,467,648; vision_adapter fc1 5632 · 4096 + fc2 4096 · 4096 (no bias) = 39,845,888: 850,960,896.
  assert.equal(m.vision!.params, 850_960_896);
  // multi_modal_projector.linear_1 4096 · 5120, no bias.
  assert.equal(m.vision!.projectorParams, 20_971_520);
  // Text 107,769,861,120 (see the Llama 4 test above): 108,641,793,536, the "109B" of Meta's card.
  assert.equal(paramCounts(m).total, 108_641_793_536);
});

test('Qwen3-VL-8B: the Qwen3-VL tower, its merger and three deepstack mergers are counted (8,767,123,696, the card\'s 8.77B; was a note)', () => {
  // Qwen/Qwen3-VL-8B-Instruct's config.json (token ids left out).
  const cfg = {
    architectures: ['Qwen3VLForConditionalGeneration'], model_type: 'qwen3_vl', tie_word_embeddings: false,
    text_config: {
      attention_bias: false, dtype: 'bfloat16', head_dim: 128, hidden_act: 'silu', hidden_size: 4096, intermediate_size: 12288, max_position_embeddings: 262144,
      model_type: 'qwen3_vl_text', num_attention_heads: 32, num_hidden_layers: 36, num_key_value_heads: 8, rms_norm_eps: 1e-06,
      rope_scaling: { mrope_interleaved: true, mrope_section: [24, 20, 20], rope_type: 'default' }, rope_theta: 5000000, vocab_size: 151936,
    },
    vision_config: {
      deepstack_visual_indexes: [8, 16, 24], depth: 27, hidden_act: 'gelu_pytorch_tanh', hidden_size: 1152, in_channels: 3, intermediate_size: 4304,
      model_type: 'qwen3_vl', num_heads: 16, num_position_embeddings: 2304, out_hidden_size: 4096, patch_size: 16, spatial_merge_size: 2, temporal_patch_size: 2,
    },
  };
  const m = readModelConfig(JSON.stringify(cfg)).value!;
  // vLLM qwen3_vl.py, d 1152, i 4304, 27 blocks, patch 16: Conv3d 3 · 2 · 16² · 1152 + 1152 = 1,770,624; pos_embed
  // 2304 · 1152 = 2,654,208; a block 4d² + 4d + 4d + 2di + i + d = 15,239,504, ×27 = 411,466,608: 415,891,440.
  assert.equal(m.vision!.params, 415_891_440);
  // Mergers, W = 1152 · 4 = 4608: merger LayerNorm 2 · 1152 + 4608² + 4608 + 4608 · 4096 + 4096 = 40,119,040; each of the 3
  // deepstack mergers normalises W (2 · 4608) instead: 40,125,952. 160,496,896.
  assert.equal(m.vision!.projectorParams, 160_496_896);
  // Text: Qwen3-8B's shapes (q / k norms, untied): 8,190,735,360. Total 8,767,123,696.
  assert.equal(m.qkNorm, true);
  assert.equal(paramCounts(m).total, 8_767_123_696);
});

/** OpenGVLab/InternVL3-8B's config.json (InternVL's own form; token ids and template keys left out). */
const INTERNVL3_LLM = {
  architectures: ['Qwen2ForCausalLM'], model_type: 'qwen2', hidden_size: 3584, intermediate_size: 18944, num_attention_heads: 28, num_hidden_layers: 28,
  num_key_value_heads: 4, max_position_embeddings: 32768, rms_norm_eps: 1e-06, rope_theta: 1000000.0, sliding_window: 131072, use_sliding_window: false,
  tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 151674,
};
const INTERNVL3_8B = {
  architectures: ['InternVLChatModel'], model_type: 'internvl_chat', downsample_ratio: 0.5, select_layer: -1, template: 'internvl2_5', torch_dtype: 'bfloat16',
  force_image_size: 448, dynamic_image_size: true, max_dynamic_patch: 12, ps_version: 'v2', llm_config: INTERNVL3_LLM,
  vision_config: {
    architectures: ['InternVisionModel'], model_type: 'intern_vit_6b', hidden_size: 1024, intermediate_size: 4096, num_attention_heads: 16, num_hidden_layers: 24,
    image_size: 448, patch_size: 14, qkv_bias: true, qk_normalization: false, norm_type: 'layer_norm', layer_norm_eps: 1e-06, initializer_factor: 0.1,
  },
};

test('InternVL3-8B: llm_config is the text model, InternViT-300M and mlp1 are counted (7,944,373,760, the card\'s 7.94B; was refused), in both config forms', () => {
  const r = readModelConfig(JSON.stringify(INTERNVL3_8B));
  assert.deepEqual(r.problems, []);
  const m = r.value!;
  assert.equal(m.sourceKeys.hiddenSize, 'llm_config.hidden_size');
  // Text (Qwen2.5-7B's shapes, vocabulary 151674, untied): 7,612,820,992.
  // InternViT-300M-448px (vLLM intern_vit.py; h 1024, i 4096, 24 layers, patch 14 at 448 px, 32² + 1 = 1,025 positions):
  // class_embedding 1,024; patch Conv2d 3 · 14² · 1024 + 1024 = 603,136; positions 1,049,600; a layer 4h² + 3h (qkv bias)
  // + h (proj bias) + 2h (ls1, ls2) + 4h (2 LayerNorms) + 2hi + i + h = 12,598,272, ×24 = 302,358,528: 304,012,288.
  assert.equal(m.vision!.params, 304_012_288);
  // mlp1: LayerNorm 2 · 4096 + Linear(4096, 3584) + Linear(3584, 3584), biases: 27,540,480.
  assert.equal(m.vision!.projectorParams, 27_540_480);
  assert.equal(paramCounts(m).total, 7_944_373_760);
  // The HF form (OpenGVLab/InternVL3-8B-hf): text_config, internvl_vision with [h, w] sizes, attention_bias and layer scales.
  const hf = readModelConfig(JSON.stringify({
    architectures: ['InternVLForConditionalGeneration'], model_type: 'internvl', downsample_ratio: 0.5, vision_feature_layer: -1, projector_hidden_act: 'gelu',
    text_config: INTERNVL3_LLM,
    vision_config: {
      model_type: 'internvl_vision', hidden_size: 1024, image_size: [448, 448], patch_size: [14, 14], intermediate_size: 4096, num_attention_heads: 16,
      num_hidden_layers: 24, attention_bias: true, use_qk_norm: false, layer_scale_init_value: 0.1, norm_type: 'layer_norm', use_mean_pooling: true,
      use_absolute_position_embeddings: true,
    },
  })).value!;
  assert.equal(paramCounts(hf).total, 7_944_373_760);
  // select_layer -2: vLLM's InternVisionModel stops one layer short (internvl.py _init_vision_model).
  const cut = readModelConfig(JSON.stringify({ ...INTERNVL3_8B, select_layer: -2 })).value!;
  assert.equal(cut.vision!.params, 304_012_288 - 12_598_272);
  assert.match(cut.vision!.note, /\(vLLM loads 23 of them, up to select_layer -2\)$/);
});

test('Idefics3-8B: the SigLIP tower without head and the connector are counted (8,462,086,384, the card\'s 8.46B; was a note)', () => {
  // HuggingFaceM4/Idefics3-8B-Llama3's sizes: Llama-3.1-8B's text with 3 added tokens, SigLIP-So400m at 364 px, scale_factor 2.
  const llama = JSON.parse(fixtureText('Llama-3.1-8B')) as Record<string, unknown>;
  const m = readModelConfig(JSON.stringify({
    architectures: ['Idefics3ForConditionalGeneration'], model_type: 'idefics3', scale_factor: 2, torch_dtype: 'bfloat16',
    text_config: { ...llama, vocab_size: 128259 },
    vision_config: { hidden_size: 1152, image_size: 364, intermediate_size: 4304, model_type: 'idefics3', num_attention_heads: 16, num_hidden_layers: 27, patch_size: 14 },
  })).value!;
  // transformers Idefics3VisionTransformer: patch Conv2d 3 · 14² · 1152 + 1152 = 678,528; positions 26² · 1152 = 778,752;
  // 27 SigLIP layers of 15,239,504 = 411,466,608; post LayerNorm 2,304: 412,926,192. Connector Linear(1152 · 2², 4096),
  // no bias: 18,874,368. Text 8,030,261,248 + 3 rows · 2 · 4096 = 8,030,285,824. Total 8,462,086,384.
  assert.equal(m.vision!.params, 412_926_192);
  assert.equal(m.vision!.projectorParams, 18_874_368);
  assert.equal(paramCounts(m).total, 8_462_086_384);
});

test('Phi-3.5-vision: img_processor\'s CLIP ViT-L/14-336 as vLLM loads it and the HD image projection are counted (4,134,023,168; was silently left out)', () => {
  // microsoft/Phi-3.5-vision-instruct's config.json (rope scaling and token ids left out).
  const cfg = {
    architectures: ['Phi3VForCausalLM'], model_type: 'phi3_v', hidden_size: 3072, intermediate_size: 8192, num_attention_heads: 32, num_hidden_layers: 32,
    num_key_value_heads: 32, max_position_embeddings: 131072, original_max_position_embeddings: 4096, rms_norm_eps: 1e-05, tie_word_embeddings: false,
    torch_dtype: 'bfloat16', vocab_size: 32064,
    embd_layer: { embedding_cls: 'image', hd_transform_order: 'sub_glb', projection_cls: 'mlp', use_hd_transform: true, with_learnable_separator: true },
    img_processor: { image_dim_out: 1024, model_name: 'openai/clip-vit-large-patch14-336', name: 'clip_vision_model', num_img_tokens: 144 },
  };
  const r = readModelConfig(JSON.stringify(cfg));
  const m = r.value!;
  // vLLM phi3v.py _init_img_processor: CLIP-L/14-336 up to layer_idx -2 (23 layers), no post-LayerNorm: 290,909,184
  // (llava-1.5's, above). Phi3HDImageEmbedding: glb_GN and sub_GN 2 · 4096, img_projection Linear(4096, 3072) + Linear(3072, 3072)
  // with biases: 8,192 + 12,585,984 + 9,440,256 = 22,034,432. Text (Phi-3.5-mini): 3,821,079,552. Total 4,134,023,168;
  // the checkpoint's 24th CLIP layer and post-LayerNorm (12,598,272) make its 4,146,621,440, the card's 4.15B.
  assert.equal(m.vision!.params, 290_909_184);
  assert.equal(m.vision!.projectorParams, 22_034_432);
  assert.equal(paramCounts(m).total, 4_134_023_168);
  assert.deepEqual(r.problems.map((p) => p.code), []);
});

/** What a model's vision tower adds per GPU under tensor parallelism: replicatedWeights with the tower's placement less without it. */
function towerExtraPerGpu(m: ModelSpec, tp: number): number {
  const without: ModelSpec = { ...m, vision: m.vision ? { ...m.vision, replicated: undefined } : null };
  return replicatedWeights(m, 'bf16', tp).extraBytesPerGpu - replicatedWeights(without, 'bf16', tp).extraBytesPerGpu;
}

test('under tensor parallelism a vision tower is split as vLLM\'s model file builds it: embeddings, norms, row-parallel biases and nn.Linear projectors stay whole on every GPU', () => {
  // gemma-3-12b-it at tp 2 (vLLM siglip.py: qkv_proj QKVParallelLinear, out_proj RowParallelLinear, fc1 Column-, fc2
  // RowParallelLinear split; patch Conv2dLayer, position nn.Embedding, LayerNorms and the row-parallel biases whole.
  // gemma3_mm.py Gemma3MultiModalProjector: mm_input_projection_weight nn.Parameter and GemmaRMSNorm, whole):
  //   conv 3·14²·1152 + 1152 = 678,528; positions 64²·1152 = 4,718,592; 27 layers · (2 LayerNorms 4h + out_proj / fc2
  //   biases 2h = 6,912) = 186,624; post_layernorm 2,304 → 5,586,048; projector 4,424,832. Σ 10,010,880 params, 2 B
  //   each, one extra copy of half of it per GPU at tp 2: 10,010,880 B.
  const gemma = readModelConfig(JSON.stringify(GEMMA3_12B_IT)).value!;
  assert.equal(gemma.vision!.replicated!.params, 5_586_048 + 4_424_832);
  assert.equal(towerExtraPerGpu(gemma, 2), 10_010_880);
  assert.ok(replicatedWeights(gemma, 'bf16', 2).parts.some((p) => /^the SigLIP vision tower's patch and position embeddings, norms and row-parallel biases and its projector \(nn\.Linear \/ ReplicatedLinear\) on every GPU$/.test(p)));
  // Qwen2.5-VL-7B at tp 4 (vLLM qwen2_5_vl.py: patch_embed.proj ReplicatedLinear 3·2·14²·1280 = 1,505,280; per block
  // two RMSNorms 2,560 + attn.proj and mlp.down_proj biases 2,560 = 5,120, ×32 = 163,840; the merger's ln_q RMSNorm
  // 1,280 and mlp.2 (RowParallelLinear) bias 3,584): 1,673,984 params · 2 B · 3 / 4 = 2,510,976 B per GPU.
  const q25 = readModelConfig(JSON.stringify(QWEN25_VL_7B)).value!;
  assert.equal(towerExtraPerGpu(q25, 4), 2_510_976);
  // InternVL3-8B at tp 2 (vLLM intern_vit.py, 16 heads: InternParallelAttention; class 1,024, Conv2d 602,112 + bias 1,024,
  // positions 1,049,600; per layer norm1 / norm2 LayerNorms 4,096, ls1 / ls2 2,048, attn.proj and mlp.fc2 biases 2,048
  // = 8,192, ×24 = 196,608 → 1,850,368; internvl.py mlp1 nn.LayerNorm + two nn.Linear, whole: 27,540,480):
  // 29,390,848 params · 2 B / 2 = 29,390,848 B per GPU.
  const internvl = readModelConfig(JSON.stringify(INTERNVL3_8B)).value!;
  assert.equal(towerExtraPerGpu(internvl, 2), 29_390_848);
  // InternViT-6B (InternVisionConfig defaults: hidden 3200, 25 heads, qkv without bias, q/k RMSNorms, RMSNorm layers;
  // 45 layers as InternVL2.5-78B's) at tp 4: 25 heads do not divide by 4, so intern_vit.py _init_attn builds
  // InternSdpaAttention, nn.Linear qkv 3·3200² and proj 3200², whole: 45 · 4 · 3200² = 1,843,200,000 more params
  // whole, · 2 B · 3 / 4 = 2,764,800,000 B more per GPU than at a tp its heads divide by.
  const v6b = readModelConfig(JSON.stringify({ ...INTERNVL3_8B, vision_config: { model_type: 'intern_vit_6b', num_hidden_layers: 45, image_size: 448, patch_size: 14 } })).value!;
  assert.equal(towerExtraPerGpu(v6b, 4) - (v6b.vision!.replicated!.params * 2 * 3) / 4, 2_764_800_000);
  assert.ok(replicatedWeights(v6b, 'bf16', 4).parts.some((p) => /and its attention, whose 25 heads do not divide by 4 \(nn\.Linear qkv \/ proj\)/.test(p)));
  // At tp 5 the heads divide: the attention splits (to within the byte replicatedWeights rounds up).
  assert.ok(Math.abs(towerExtraPerGpu(v6b, 5) - (v6b.vision!.replicated!.params * 2 * 4) / 5) < 1);
  assert.ok(!replicatedWeights(v6b, 'bf16', 5).parts.some((p) => /heads do not divide/.test(p)));
});

test('under tensor parallelism Pixtral in Mistral\'s params.json form is whole on every GPU (pixtral.py builds it from nn.Linear), the HF form splits', () => {
  // vLLM pixtral.py VisionTransformer (params.json): patch_conv nn.Conv2d, wq / wk / wv / wo and w1 / w2 / w3 nn.Linear,
  // RMSNorms; VisionLanguageAdapter w_in / w_out nn.Linear: the tower 403,489,792 and adapter 31,467,520 whole.
  // At tp 2, 2 B each: 434,957,312 B more per GPU.
  const native = readModelConfig(JSON.stringify({
    dim: 5120, n_layers: 40, head_dim: 128, hidden_dim: 14336, n_heads: 32, n_kv_heads: 8, rope_theta: 1000000000.0, norm_eps: 1e-05, vocab_size: 131072,
    vision_encoder: { hidden_size: 1024, num_channels: 3, image_size: 1024, patch_size: 16, intermediate_size: 4096, num_hidden_layers: 24, num_attention_heads: 16, adapter_bias: true },
  })).value!;
  assert.equal(towerExtraPerGpu(native, 2), 434_957_312);
  // The HF form (llava.py → PixtralHFVisionModel: qkv_proj, o_proj, gate_up_proj, down_proj split, no biases): patch_conv
  // 3·16²·1024 = 786,432, ln_pre 1,024, 24 · (attention_norm + ffn_norm 2,048) = 49,152; LlavaMultiModalProjector
  // linear_2 (RowParallelLinear) bias 5,120: 841,728 params · 2 B / 2 = 841,728 B.
  const hf = readModelConfig(JSON.stringify(PIXTRAL_12B)).value!;
  assert.equal(towerExtraPerGpu(hf, 2), 841_728);
});

test('under tensor parallelism Phi-3.5-vision keeps its HD image projection (nn.Linear) whole, the CLIP tower splits', () => {
  // vLLM phi3v.py: img_processor is clip.py CLIPVisionModel (split but class embedding 1,024, Conv2dLayer 3·14²·1024 =
  // 602,112, positions 577·1024 = 590,848, pre_layrnorm 2,048, 23 layers · 6,144 = 141,312: 1,337,344); glb_GN, sub_GN and
  // img_projection nn.Linear whole: 22,034,432. 23,371,776 params · 2 B / 2 = 23,371,776 B per GPU at tp 2.
  const m = readModelConfig(JSON.stringify({
    architectures: ['Phi3VForCausalLM'], model_type: 'phi3_v', hidden_size: 3072, intermediate_size: 8192, num_attention_heads: 32, num_hidden_layers: 32,
    num_key_value_heads: 32, max_position_embeddings: 131072, rms_norm_eps: 1e-05, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32064,
    embd_layer: { embedding_cls: 'image', hd_transform_order: 'sub_glb', projection_cls: 'mlp', use_hd_transform: true, with_learnable_separator: true },
    img_processor: { image_dim_out: 1024, model_name: 'openai/clip-vit-large-patch14-336', name: 'clip_vision_model', num_img_tokens: 144 },
  })).value!;
  assert.equal(towerExtraPerGpu(m, 2), 23_371_776);
});

test('a vision tower whose shapes are not modelled is said to be left out, at its key, and changes no count', () => {
  const cfg = { ...GEMMA3_12B_IT, model_type: 'glm4v', vision_config: { model_type: 'glm4v', hidden_size: 1536, depth: 24 } };
  const text = JSON.stringify(cfg, null, 2);
  const r = readModelConfig(text);
  const m = r.value!;
  assert.equal(m.vision!.params, null);
  assert.equal(m.vision!.note, "the vision tower (glm4v) is not counted (its shapes are not modelled here): parameters and weights are the text model's");
  assert.equal(paramCounts(m).breakdown.vision, 0);
  const info = only(r.problems, 'encoder-not-counted');
  assert.equal(info.severity, 'info');
  assert.equal(at(text, info), '"vision_config"');
  assert.equal(info.message, m.vision!.note);
  // Encoders without a vision_config are said too: Phi-4-multimodal's embd_layer and audio_processor, Qwen2-Audio's audio_config.
  const phi4 = readModelConfig(JSON.stringify({ ...LLAMA, model_type: 'phi4mm', embd_layer: { image_embd_layer: {} }, audio_processor: { name: 'cascades' } }));
  assert.equal(phi4.value!.vision!.note,
    "the image / audio embedding (embd_layer) is not counted (its shapes are not modelled here): parameters and weights are the text model's; the audio encoder (audio_processor) is not counted");
  assert.equal(only(phi4.problems, 'encoder-not-counted').message, phi4.value!.vision!.note);
  assert.match(readModelConfig(JSON.stringify({ ...LLAMA, model_type: 'qwen2_audio', audio_config: { model_type: 'qwen2_audio_encoder' } })).value!.vision!.note, /^the audio encoder \(audio_config\) is not counted/);
  // A text-only config has no tower at all.
  assert.equal(readModelConfig(fixtureText('Llama-3.1-8B')).value!.vision, null);
});

test('widths far beyond any model are refused at their value: hidden_size 2^52 (a newcomer saw 3.56e33 parameters)', () => {
  // Llama-3.1-8B with hidden_size 2^52 = 4,503,599,627,370,496: above MAX_WIDTH 2^24 = 16,777,216.
  const text = fixtureText('Llama-3.1-8B').replace('"hidden_size": 4096', '"hidden_size": 4503599627370496');
  assert.notEqual(text, fixtureText('Llama-3.1-8B'));
  const p = only(readModelConfig(text).problems, 'invalid-value');
  assert.equal(p.severity, 'error');
  assert.equal(p.message, '"hidden_size" must be at most 16,777,216, not 4,503,599,627,370,496');
  assert.equal(at(text, p), '4503599627370496');
});

test('a key written twice: a warning at the second key naming the value used (the last, as json.loads keeps)', () => {
  const text = '{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 2, "vocab_size": 10, "intermediate_size": 64, "hidden_size": 8192}';
  const r = readModelConfig(text);
  const p = only(r.problems, 'duplicate-key');
  assert.equal(p.severity, 'warning');
  assert.equal(p.range.offset, text.lastIndexOf('"hidden_size"'));
  assert.equal(p.message, "hidden_size is given twice; the last one (8192) is used, as Python's json does");
  // json.loads('{"a": 1, "a": 2}') == {"a": 2}
  assert.equal(r.value!.hiddenSize, 8192);
});

test('a UTF-8 byte-order mark: read past with a warning at it; later positions stay right', () => {
  const text = '\uFEFF{"model_type": "llama", "hidden_size": "wide", "num_attention_heads": 32, "num_hidden_layers": 2, "vocab_size": 10}';
  const r = readModelConfig(text);
  const bom = only(r.problems, 'json-bom');
  assert.equal(bom.severity, 'warning');
  assert.deepEqual(bom.range, { offset: 0, length: 1 });
  assert.match(bom.message, /byte-order mark/);
  // The wrong-type error sits on "wide" in the text as written, BOM included.
  assert.equal(at(text, r.problems.find((p) => p.severity === 'error')!), '"wide"');
  const ok = readModelConfig('\uFEFF' + JSON.stringify(LLAMA));
  assert.equal(ok.value!.hiddenSize, 4096);
});

test('JSON nested past 1,000 levels: one error at the 1,001st bracket, no stack overflow; 1,000 levels read', () => {
  const text = '{"a": ' + '['.repeat(100_000) + ']'.repeat(100_000) + '}';
  const r = readModelConfig(text);
  assert.equal(r.value, null);
  const p = only(r.problems, 'json-nesting');
  // The object is level 1, so the 1,000th `[` is level 1,001: offset 6 + 999.
  assert.equal(p.range.offset, 6 + 999);
  assert.match(p.message, /nested more than 1,000 levels deep/);
  const fine = readModelConfig('{"a": ' + '['.repeat(999) + ']'.repeat(999) + ', ' + JSON.stringify(LLAMA).slice(1));
  assert.deepEqual(fine.problems.filter((q) => q.code === 'json-nesting'), []);
  assert.equal(fine.value!.hiddenSize, 4096);
});

test('MLA sizes without kv_lora_rank: an error naming the missing key at the MLA key, not plain GQA', () => {
  const text = JSON.stringify({ ...LLAMA, model_type: 'deepseek_v3', qk_rope_head_dim: 64 });
  const r = readModelConfig(text);
  assert.equal(r.value, null);
  const p = r.problems.find((q) => q.code === 'missing-field')!;
  assert.equal(p.severity, 'error');
  assert.equal(at(text, p), '"qk_rope_head_dim"');
  assert.match(p.message, /missing "kv_lora_rank"/);
});

test('a config that is JSON null, a number or an array is named once: "not null", not "not null null"', () => {
  for (const [text, what] of [['null', 'null'], ['42', 'the number 42'], ['[1]', 'an array']] as const) {
    const r = readModelConfig(text);
    assert.equal(r.value, null);
    assert.equal(r.problems[0]?.message, `a model config must be a JSON object of HuggingFace keys, not ${what}`, text);
  }
});

test('a wrong-typed intermediate_size gets its type error, not also "no intermediate_size"', () => {
  const text = '{"model_type": "llama", "num_hidden_layers": 32, "num_attention_heads": 32, "hidden_size": 4096, "vocab_size": 1000, "intermediate_size": "big"}';
  const r = readModelConfig(text);
  assert.deepEqual(r.problems.map((p) => p.message), ['"intermediate_size" must be a number, not the string "big"']);
  // Absent: the warning still says what is assumed (4 · 4096 = 16384).
  const absent = readModelConfig(text.replace(', "intermediate_size": "big"', ''));
  assert.deepEqual(absent.problems.map((p) => p.message), ['no "intermediate_size": assuming 4 · hidden_size = 16384 for parameter counts']);
});

test('a config holding NaN or Infinity (Python json.dump\'s words for float NaN and inf) is told so at the word, not "invalid symbol"', async () => {
  const { parseJsonTree } = await import('../../core/config/tree');
  for (const [text, word, kind] of [['{"hidden_size": NaN}', 'NaN', 'NaN'], ['{"hidden_size": -Infinity}', '-Infinity', 'infinity']] as const) {
    // One problem: jsonc-parser's "value expected" after the word (and, for -Infinity, its "invalid
    // symbol" at the word after the '-') said the same thing again at the same place (s33 newcomer CLI finding 11).
    const problems = parseJsonTree(text).problems;
    assert.deepEqual(problems.map((p) => p.message), [`JSON syntax error: ${word} is not a JSON number (Python's json.dump writes it for a float ${kind}): write a number`]);
    assert.equal(problems[0]!.range.offset, text.indexOf(word));
  }
  // A second mistake past the word is still reported.
  assert.deepEqual(parseJsonTree('{"hidden_size": NaN, "x": }').problems.map((p) => [p.range.offset, p.message]), [[16, "JSON syntax error: NaN is not a JSON number (Python's json.dump writes it for a float NaN): write a number"], [26, 'JSON syntax error: value expected']]);
  // Other bad words keep jsonc-parser's words.
  assert.equal(parseJsonTree('{"hidden_size": nope}').problems[0]!.message, 'JSON syntax error: unquoted text or a character JSON does not allow');
  // A trailing comma is named (before: "property name expected" / "value expected"), at the bracket after it.
  assert.deepEqual(parseJsonTree('{"a":1,}').problems.map((p) => [p.range.offset, p.message]).slice(0, 1), [[7, 'JSON syntax error: a trailing comma before "}": JSON allows none, remove the ","']]);
  assert.equal(parseJsonTree('{"a": [1, 2, ]}').problems[0]!.message, 'JSON syntax error: a trailing comma before "]": JSON allows none, remove the ","');
});

test('a config with 50,000 labels (2.7 MB) reads as the model; a key written twice after the labels is found, at its own line', () => {
  // The newcomer's case: a classifier config; the labels change nothing in the model.
  const plain = labelledConfig(50_000);
  const r = readModelConfig(plain);
  assert.deepEqual(r.problems.filter((p) => p.severity !== 'info'), []);
  assert.equal(r.value!.numLayers, 32);
  assert.equal(r.value!.numKvHeads, 8);
  // num_hidden_layers written again after label2id: json.loads keeps the last (40).
  const text = plain.replace(/\n {2}}\n}\n$/, '\n  },\n  "num_hidden_layers": 40\n}\n');
  assert.notEqual(text, plain);
  const read = readModelConfig(text);
  const p = only(read.problems, 'duplicate-key');
  assert.equal(p.message, "num_hidden_layers is given twice; the last one (40) is used, as Python's json does");
  assert.equal(read.value!.numLayers, 40);
  assert.equal(p.range.offset, text.lastIndexOf('"num_hidden_layers"'));
  // Its line, counted independently: the lines before it plus one; the column after 2 spaces.
  const lineNo = text.slice(0, p.range.offset).split('\n').length;
  assert.equal(text.split('\n')[lineNo - 1], '  "num_hidden_layers": 40');
  assert.equal(formatProblem('config.json', text, p), `config.json:${lineNo}:3: warning: ${p.message} [duplicate-key]`);
});

test('a 100,000-label config: the label maps are read only when asked for, then equal to JSON.parse with ranges at their keys', () => {
  const text = labelledConfig(100_000);
  const stats: TreeStats = { nodes: 0 };
  const { root, problems } = parseJsonTree(text, { stats });
  assert.deepEqual(problems, []);
  // The model reader's work: Llama-3.1-8B's 30-odd keys and rope_scaling, plus at most
  // EAGER_MEMBERS + 1 values of each label map before it is left unread. Reading every label
  // (400,000 value nodes: 200,000 per map, key and value) fails this.
  const parsedNodes = stats.nodes;
  assert.ok(parsedNodes <= 2 * (EAGER_MEMBERS + 1) + 100, `${parsedNodes} nodes made`);
  assert.equal(readModelConfig(text).value!.numLayers, 32);
  // Asked for, id2label is read: its 100,000 values (and nothing of label2id), each where it is written.
  const id2label = getProperty(root, 'id2label')!.value;
  const members = id2label.properties!;
  assert.equal(members.length, 100_000);
  assert.ok(stats.nodes - parsedNodes <= 100_000 + EAGER_MEMBERS + 2, `${stats.nodes - parsedNodes} nodes made on reading id2label`);
  const last = members[99_999]!;
  assert.equal(text.slice(last.keyRange.offset, last.keyRange.offset + last.keyRange.length), '"99999"');
  assert.equal(text.slice(last.value.range.offset, last.value.range.offset + last.value.range.length), '"LABEL_99999"');
  assert.equal(text.slice(id2label.range.offset, id2label.range.offset + 1), '{');
  assert.equal(text[id2label.range.offset + id2label.range.length - 1], '}');
  // The whole tree, read, is what JSON.parse gives (an independent parser).
  assert.deepEqual(toPlain(root!), JSON.parse(text));
});

test('a syntax error inside a map left unread is still reported, at its place', () => {
  const text = labelledConfig(5_000).replace('"LABEL_4321"', '"LABEL_4321" "x"');
  const errors = parseJsonTree(text).problems.filter((p) => p.severity === 'error');
  // jsonc-parser: a ',' is missing before "x", then "x" reads as a key whose ':' is missing (at the ',' after it).
  assert.deepEqual(errors.map((e) => [e.message, e.range.offset]), [
    ["JSON syntax error: ',' expected", text.indexOf('"x"')],
    ["JSON syntax error: ':' expected", text.indexOf('"x"') + 3],
  ]);
});

test('an integer field written as a float (num_key_value_heads 8.0, 1e3): a warning at the value, the value read; a float field or 8 says nothing (s33 newcomer CLI finding 12)', () => {
  // Python's json.loads('8.0') is the float 8.0; transformers and vLLM compute head counts and sizes as ints.
  const base = { model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, num_key_value_heads: 8, num_hidden_layers: 32, vocab_size: 1000, intermediate_size: 14336, rope_theta: 500000.0 };
  const plain = JSON.stringify(base).replace('"rope_theta":500000', '"rope_theta":500000.0');
  const text = plain.replace('"num_key_value_heads":8', '"num_key_value_heads":8.0').replace('"vocab_size":1000', '"vocab_size":1e3');
  const r = readModelConfig(text);
  assert.equal(r.value?.numKvHeads, 8);
  assert.equal(r.value?.vocabSize, 1000);
  const warned = r.problems.filter((p) => p.code === 'integer-written-as-float').sort((a, b) => a.range.offset - b.range.offset);
  assert.deepEqual(warned.map((p) => [p.severity, text.slice(p.range.offset, p.range.offset + p.range.length)]), [['warning', '8.0'], ['warning', '1e3']]);
  assert.equal(warned[0]!.message, '"num_key_value_heads" is 8 written with a fraction or exponent, which Python\'s json reads as a float, not the integer transformers and vLLM compute with: write 8');
  // rope_theta is a float field (500000.0 as Llama 3 publishes it); integers written as integers are fine.
  assert.deepEqual(readModelConfig(plain).problems.filter((p) => p.code === 'integer-written-as-float'), []);
  // 8.5 stays an error.
  assert.ok(readModelConfig(text.replace('8.0', '8.5')).problems.some((p) => p.severity === 'error' && /must be an integer, not 8\.5/.test(p.message)));
});

test('a key one or two letters from one the reader looks for and does not find is warned at the key, with the key it meant (s35 newcomer editor finding 1)', () => {
  // Qwen2.5-7B: 28 attention heads, 4 KV heads. Without num_key_value_heads transformers takes the
  // attention heads (Qwen2Config: num_key_value_heads = num_attention_heads when None): KV 7x too big.
  const text = fixtureText('Qwen2.5-7B');
  const typo = text.replace('"num_key_value_heads"', '"num_key_value_head"').replace('"intermediate_size"', '"intermediate_sise"');
  const r = readModelConfig(typo);
  const warned = r.problems.filter((p) => p.code === 'unknown-key').sort((a, b) => a.range.offset - b.range.offset);
  assert.deepEqual(warned.map((p) => [p.severity, at(typo, p), p.data?.['suggestion']]).sort(), [
    ['warning', '"intermediate_sise"', 'intermediate_size'],
    ['warning', '"num_key_value_head"', 'num_key_value_heads'],
  ]);
  assert.match(warned.find((p) => p.data?.['suggestion'] === 'num_key_value_heads')!.message,
    /^unknown key "num_key_value_head": did you mean "num_key_value_heads"\?/);
  // The published config: no such warning (hidden_act is 3 edits from hidden_dim, an alias of the
  // hidden_size it has; neither is a typo's target).
  assert.deepEqual(readModelConfig(text).problems.filter((p) => p.code === 'unknown-key'), []);
});

test('DeepSeek-V3 with "n_routed_experts": null is warned at the null (read dense, as vLLM builds it), and a weight_block_size that is no [n, k] of integers >= 1 is an error at its value (s37 newcomer 7)', () => {
  const text = fixtureText('DeepSeek-V3');
  // vLLM deepseek_v2.py DeepseekV2DecoderLayer: the MoE only `if config.n_routed_experts is not None and
  // layer_idx >= first_k_dense_replace and layer_idx % moe_layer_freq == 0`; else DeepseekV2MLP.
  const nulled = text.replace('"n_routed_experts": 256', '"n_routed_experts": null');
  const dense = readModelConfig(nulled);
  assert.equal(dense.value!.moe, null);
  const w = only(dense.problems, 'experts-null');
  assert.equal(w.severity, 'warning');
  assert.equal(at(nulled, w), 'null');
  assert.match(w.message, /^"n_routed_experts" is null, so no layer has experts: every layer is counted as a dense MLP of intermediate_size/);
  // The published config: no such warning.
  assert.equal(readModelConfig(text).problems.filter((p) => p.code === 'experts-null').length, 0);
  // vLLM Fp8Config: "The quantization block size of weight must have 2 dimensions"; a 0 leaves no block.
  const block = (value: string) => text.replace(/"weight_block_size": \[\s*128,\s*128\s*\]/, `"weight_block_size": ${value}`);
  for (const [value, shown] of [['[0, 128]', '[0, 128]'], ['[128]', '[128]'], ['[128.5, 128]', '[128.5, 128]'], ['"128"', 'the string "128"']]) {
    const t = block(value);
    assert.notEqual(t, text);
    const r = readModelConfig(t);
    assert.equal(r.value, null, value);
    const e = only(r.problems, 'invalid-value');
    assert.equal(e.message, `"weight_block_size" must be two integers from 1 (the [n, k] block of one fp8 scale, e.g. [128, 128]), not ${shown}`);
    assert.equal(at(t, e), value);
  }
});

test('rope_scaling that is not a mapping (5) is a warning at its value: transformers reads a dict or null (s43 newcomer43 L4)', () => {
  const text = JSON.stringify({ ...LLAMA, max_position_embeddings: 8192, rope_scaling: 5 });
  const r = readModelConfig(text);
  assert.ok(r.value, JSON.stringify(r.problems));
  const w = only(r.problems, 'rope-scaling-not-mapping');
  assert.equal(w.severity, 'warning');
  assert.equal(at(text, w), '5');
  assert.match(w.message, /^"rope_scaling" is the number 5, not a mapping: transformers expects \{ rope_type, factor, \.\.\. \} or null/);
  assert.deepEqual(r.value.contextLength?.rope ?? [], []);
  // A mapping, or null (Llama-2's), is read without it.
  assert.equal(readModelConfig(JSON.stringify({ ...LLAMA, rope_scaling: null })).problems.filter((p) => p.code === 'rope-scaling-not-mapping').length, 0);
  assert.equal(readModelConfig(JSON.stringify({ ...LLAMA, rope_scaling: { rope_type: 'llama3', factor: 8 } })).problems.filter((p) => p.code === 'rope-scaling-not-mapping').length, 0);
});
