/**
 * Quick fixes through a real LSP client: for each planted mistake, the offered edit is applied
 * to the text, the text is sent back, and the diagnostic is gone.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readModelConfig } from '../../core/config/index';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { CodeAction, Diagnostic } from 'vscode-languageserver-protocol';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LspClient, fixture, fixtureUri } from './harness';
import { tempDir } from '../fixtures/tmp';

let client: LspClient;
before(async () => {
  client = await LspClient.start();
});
after(async () => {
  assert.equal(await client.stop(), 0);
});

let n = 0;

/**
 * Opens `text`, finds the diagnostic `code`, asks for quick fixes on it, applies the one titled
 * `title` and returns the fixed text and its diagnostics.
 */
async function fix(name: string, text: string, code: string, title: string): Promise<{ fixed: string; after: Diagnostic[]; titles: string[] }> {
  const uri = fixtureUri(`fix-${n++}.${name}`);
  const diags = await client.open(uri, text);
  const d = diags.find((x) => x.code === code);
  assert.ok(d, `${code} among ${JSON.stringify(diags.map((x) => x.code))}`);
  const actions = ((await client.codeActions(uri, d.range, [d])) ?? []) as CodeAction[];
  const titles = actions.map((a) => a.title);
  const action = actions.find((a) => a.title === title);
  assert.ok(action, `"${title}" among ${JSON.stringify(titles)}`);
  assert.equal(action.kind, 'quickfix');
  const edits = action.edit?.changes?.[uri];
  assert.ok(edits && edits.length > 0);
  const fixed = TextDocument.applyEdits(TextDocument.create(uri, 'x', 1, text), edits);
  const after = await client.change(uri, fixed);
  await client.close(uri);
  assert.deepEqual(after.filter((x) => x.code === code).map((x) => x.message), [], `${code} cleared`);
  return { fixed, after, titles };
}

test('heads not divisible: the nearest divisor of the head count', async () => {
  const text = fixture('../../examples/llama-3.1-8b/config.json').text.replace('"num_key_value_heads": 8', '"num_key_value_heads": 7');
  // Divisors of 32 nearest 7: 8 (distance 1), then 4 (distance 3).
  const { fixed, titles } = await fix('config.json', text, 'heads-not-divisible', 'Set num_key_value_heads to 8 (divides 32 heads)');
  assert.deepEqual(titles, ['Set num_key_value_heads to 8 (divides 32 heads)', 'Set num_key_value_heads to 4 (divides 32 heads)']);
  assert.equal(fixed, fixture('../../examples/llama-3.1-8b/config.json').text);
  // 5: 4 (distance 1), then 2 and 8 both at distance 3, so both are offered (8 is what Llama-3.1-8B has; s38 newcomer-ed 6f).
  const five = await fix('config.json', text.replace('"num_key_value_heads": 7', '"num_key_value_heads": 5'), 'heads-not-divisible', 'Set num_key_value_heads to 8 (divides 32 heads)');
  assert.deepEqual(five.titles, [4, 2, 8].map((d) => `Set num_key_value_heads to ${d} (divides 32 heads)`));
  assert.equal(five.fixed, fixture('../../examples/llama-3.1-8b/config.json').text);
});

test('hidden size not divisible and no head_dim: add head_dim after the head count (JSON)', async () => {
  // Qwen2.5-7B: 3584 / 28 = 128; with 30 heads 3584 / 30 = 119.47 -> nearest usual head_dim 112
  // (|112 - 119.47| = 7.47 < |128 - 119.47| = 8.53); the other fix goes back to 28 heads.
  const original = fixture('configs/Qwen2.5-7B.config.json').text;
  const text = original.replace('"num_attention_heads": 28', '"num_attention_heads": 30');
  const { fixed, titles } = await fix('config.json', text, 'hidden-not-divisible', 'Add "head_dim": 112 (check the model card)');
  assert.ok(fixed.includes('"num_attention_heads": 30,\n  "head_dim": 112,\n'), fixed);
  assert.deepEqual(titles, ['Add "head_dim": 112 (check the model card)', 'Set num_attention_heads to 28 (divides hidden_size 3584)']);
  assert.equal((await fix('config.json', text, 'hidden-not-divisible', 'Set num_attention_heads to 28 (divides hidden_size 3584)')).fixed, original);
});

test('hidden size not divisible in an inline YAML model: add head_dim on its own line', async () => {
  const text = 'model:\n  model_type: llama\n  hidden_size: 3000\n  num_attention_heads: 32\n  num_hidden_layers: 2\n  vocab_size: 1000\n';
  // 3000 / 32 = 93.75 -> nearest usual head_dim 96.
  const { fixed } = await fix('p.attn.yaml', text, 'hidden-not-divisible', 'Add "head_dim": 96 (check the model card)');
  assert.equal(fixed, 'model:\n  model_type: llama\n  hidden_size: 3000\n  num_attention_heads: 32\n  head_dim: 96\n  num_hidden_layers: 2\n  vocab_size: 1000\n');
  // CRLF and old-Mac CR-only line ends: the line goes after its key's line, with the file's line break (in a CR-only
  // file the key's line was not found: the line went to the end of the text, after an indent of the whole text).
  for (const eol of ['\r\n', '\r']) {
    const fixedEol = await fix('p.attn.yaml', text.replace(/\n/g, eol), 'hidden-not-divisible', 'Add "head_dim": 96 (check the model card)');
    assert.equal(fixedEol.fixed, fixed.replace(/\n/g, eol), JSON.stringify(eol));
  }
});

test('unknown key: rename to the suggestion, or remove it (YAML block and flow, JSON)', async () => {
  const yaml = 'model: ../../examples/llama-3.1-8b/config.json\nkv_cache:\n  page_sise: 32\n  dtype: auto\n';
  const renamed = await fix('p.attn.yaml', yaml, 'unknown-key', 'Rename to "page_size"');
  assert.equal(renamed.fixed, yaml.replace('page_sise', 'page_size'));
  const removed = await fix('p.attn.yaml', yaml, 'unknown-key', 'Remove "page_sise"');
  assert.equal(removed.fixed, 'model: ../../examples/llama-3.1-8b/config.json\nkv_cache:\n  dtype: auto\n');
  const flow = 'model: ../../examples/llama-3.1-8b/config.json\nkv_cache: { dtype: auto, colour: red }\n';
  assert.equal((await fix('p.attn.yaml', flow, 'unknown-key', 'Remove "colour"')).fixed, 'model: ../../examples/llama-3.1-8b/config.json\nkv_cache: { dtype: auto }\n');
  const json = '{\n  "model": "../../examples/llama-3.1-8b/config.json",\n  "colour": "red",\n  "dtype": "bf16"\n}\n';
  assert.equal((await fix('p.attn.json', json, 'unknown-key', 'Remove "colour"')).fixed, '{\n  "model": "../../examples/llama-3.1-8b/config.json",\n  "dtype": "bf16"\n}\n');
  const last = '{\n  "model": "../../examples/llama-3.1-8b/config.json",\n  "colour": "red"\n}\n';
  assert.equal((await fix('p.attn.json', last, 'unknown-key', 'Remove "colour"')).fixed, '{\n  "model": "../../examples/llama-3.1-8b/config.json"\n}\n');
});

test('draw keys beside workload.trace: "Remove the keys the trace replaces" removes them all in one edit, its own wrapped comment too, the other comments and the scheduler limits kept (YAML block and flow, JSON)', async () => {
  const model = 'model: ../../examples/llama-3.1-8b/config.json\n';
  const yaml = `${model}workload:           # replayed from production\n  trace: ./no-such-trace.jsonl  # exported nightly\n  requests: 2000\n  arrival_rate: 24                # busy enough\n                                  # (a second comment line)\n  prompt_len:\n    dist: lognormal\n    median: 512\n  # the scheduler\n  max_num_seqs: 256\n  max_model_len: 8192\n  seed: 1\n`;
  const block = await fix('p.attn.yaml', yaml, 'unused-with-trace', 'Remove the keys the trace replaces (requests, arrival_rate, prompt_len, seed)');
  // Every line of the four keys goes (prompt_len's children too), and arrival_rate's comment with
  // its wrapped second line (indented past the key: s48 newcomer-ed 11); "# the scheduler", at the
  // keys' column, heads max_num_seqs and stays.
  assert.equal(block.fixed, `${model}workload:           # replayed from production\n  trace: ./no-such-trace.jsonl  # exported nightly\n  # the scheduler\n  max_num_seqs: 256\n  max_model_len: 8192\n`);
  assert.deepEqual(block.titles.slice(0, 2), ['Remove the keys the trace replaces (requests, arrival_rate, prompt_len, seed)', 'Remove "requests"']);
  assert.deepEqual(block.after.filter((d) => d.code === 'unused-with-trace'), []);
  // Flow: neighbouring keys go as one span with their commas (a removal per key would overlap).
  const flow = `${model}workload: { requests: 20, arrival_rate: 2, trace: ./no-such-trace.jsonl, output_len: { dist: fixed, value: 8 }, max_model_len: 4096, seed: 3 }\n`;
  const flowFixed = await fix('p.attn.yaml', flow, 'unused-with-trace', 'Remove the keys the trace replaces (requests, arrival_rate, output_len, seed)');
  assert.equal(flowFixed.fixed, `${model}workload: { trace: ./no-such-trace.jsonl, max_model_len: 4096 }\n`);
  const json = '{\n  "model": "../../examples/llama-3.1-8b/config.json",\n  "workload": {\n    "trace": "./no-such-trace.jsonl",\n    "arrival_rate": 2,\n    "max_model_len": 4096,\n    "seed": 3\n  }\n}\n';
  const jsonFixed = await fix('p.attn.json', json, 'unused-with-trace', 'Remove the keys the trace replaces (arrival_rate, seed)');
  assert.equal(jsonFixed.fixed, '{\n  "model": "../../examples/llama-3.1-8b/config.json",\n  "workload": {\n    "trace": "./no-such-trace.jsonl",\n    "max_model_len": 4096\n  }\n}\n');
});

test('a misspelt block key (a key with children): renamed, or removed with its children and nothing after (s38 newcomer-ed 6a)', async () => {
  // The block before the key ends where the key starts (a YAML block value runs to the next
  // key's line), so the key's first character lay in that block too and the fix found no key.
  const model = 'model: ../../examples/llama-3.1-8b/config.json\n';
  const device = 'device:\n  tensor_parallel_size: 1\n';
  const instead = `${model}${device}kv_cahce:\n  page_size: 32\n  dtype: auto\ndecode: { batch_sizes: [1] }\n`;
  const renamed = await fix('p.attn.yaml', instead, 'unknown-key', 'Rename to "kv_cache"');
  assert.deepEqual(renamed.titles, ['Rename to "kv_cache"', 'Remove "kv_cahce"']);
  assert.equal(renamed.fixed, `${model}${device}kv_cache:\n  page_size: 32\n  dtype: auto\ndecode: { batch_sizes: [1] }\n`);
  // Beside kv_cache: renaming would write the key twice, so only Remove; the block's lines go, the next key stays.
  const beside = `${model}${device}kv_cahce:\n  page_size: 16\ndecode: { batch_sizes: [1] }\nkv_cache:\n  page_size: 32\n`;
  const removed = await fix('p.attn.yaml', beside, 'unknown-key', 'Remove "kv_cahce"');
  assert.deepEqual(removed.titles, ['Remove "kv_cahce"']);
  assert.equal(removed.fixed, `${model}${device}decode: { batch_sizes: [1] }\nkv_cache:\n  page_size: 32\n`);
});

test('tensor_parallel_size that does not divide the heads: one fix per size that fits, nearest the written size first', async () => {
  // Llama-3.1-8B: 32 query heads, 8 KV heads, intermediate_size 14336 = 2^11 · 7: every divisor
  // of 32 divides 14336 and divides or is divided by 8, so 1, 2, 4, 8, 16, 32 fit; 3 divides none.
  // By distance from 3: 2 and 4 (1 each, the smaller first), 1 (2), 8 (5), 16 (13), 32 (29); 16
  // and 32 GPUs are 2 and 4 nodes of 8 and say so (s47 newcomer-ed F10: offered as equals of 2-8).
  const text = fixture('llama-3.1-8b.attn.yaml').text.replace('tensor_parallel_size: 1', 'tensor_parallel_size: 3');
  const { fixed, titles } = await fix('p.attn.yaml', text, 'tp-not-divisible', 'Set tensor_parallel_size to 4');
  assert.deepEqual(titles, [...[2, 4, 1, 8].map((d) => `Set tensor_parallel_size to ${d}`), 'Set tensor_parallel_size to 16 (spans 2 nodes of 8 GPUs)', 'Set tensor_parallel_size to 32 (spans 4 nodes of 8 GPUs)']);
  assert.equal(fixed, text.replace('tensor_parallel_size: 3', 'tensor_parallel_size: 4'));
});

test('page_size the CUDA kernel does not take: the nearest supported page size', async () => {
  const text = 'model: ../../examples/llama-3.1-8b/config.json\ndevice: { backend: cuda }\nkv_cache: { page_size: 1000 }\n';
  // Powers of two in [8, 256] nearest 1000: 256.
  const { fixed } = await fix('p.attn.yaml', text, 'page-size-unsupported', 'Set page_size to 256');
  assert.ok(fixed.includes('page_size: 256'));
});

test('a page size vLLM does not take (100): the nearest it takes', async () => {
  const text = 'model: ../../examples/llama-3.1-8b/config.json\nkv_cache: { page_size: 100 }\n';
  // |128 - 100| = 28 < |64 - 100| = 36.
  await fix('p.attn.yaml', text, 'page-size-unusual', 'Set page_size to 128');
});

test('misspelt enum value: the suggestion', async () => {
  const text = '{ "model": "../../examples/llama-3.1-8b/config.json", "dtype": "bf61" }';
  const { fixed } = await fix('p.attn.json', text, 'invalid-value', 'Change to "bf16"');
  assert.equal(fixed, '{ "model": "../../examples/llama-3.1-8b/config.json", "dtype": "bf16" }');
});

test('dtype: fp8 on DeepSeek-V3 (an fp8 checkpoint): dtype bf16, or with kv_cache.dtype fp8 too (s47 newcomer-ed F1: no fix offered)', async () => {
  const text = 'model: ./configs/DeepSeek-V3.config.json\ndtype: fp8\ndevice: { gpu: H100 SXM, tensor_parallel_size: 8, pipeline_parallel_size: 2 }\nkv_cache:\n  page_size: 64\n';
  const { fixed, titles } = await fix('p.attn.yaml', text, 'invalid-value', 'Change to "bf16"');
  assert.deepEqual(titles, ['Change to "bf16"', 'Set dtype to "bf16" and kv_cache.dtype to fp8 (an fp8 KV cache)']);
  assert.equal(fixed, text.replace('dtype: fp8', 'dtype: bf16'));
  const both = await fix('p.attn.yaml', text, 'invalid-value', 'Set dtype to "bf16" and kv_cache.dtype to fp8 (an fp8 KV cache)');
  assert.equal(both.fixed, text.replace('dtype: fp8', 'dtype: bf16').replace('page_size: 64\n', 'page_size: 64\n  dtype: fp8\n'));
});

test('a misspelt torch_dtype / dtype in config.json: did you mean the dtype of the same width; float8 gets no fix (s38 newcomer-ed 6b)', async () => {
  const original = fixture('../../examples/llama-3.1-8b/config.json').text;
  // "bfloat61": two edits from bfloat16 (the digits swapped), three from float16.
  const text = original.replace('"torch_dtype": "bfloat16"', '"torch_dtype": "bfloat61"');
  const { fixed, titles } = await fix('config.json', text, 'unknown-dtype', 'Set torch_dtype to "bfloat16"');
  assert.deepEqual(titles, ['Set torch_dtype to "bfloat16"']);
  assert.equal(fixed, original);
  // transformers 4.56+ writes "dtype"; an inline model in a profile is fixed in place, unquoted.
  const yaml = 'model: { model_type: llama, hidden_size: 256, num_attention_heads: 4, num_hidden_layers: 2, vocab_size: 1000, dtype: flaot16 }\n';
  assert.equal((await fix('p.attn.yaml', yaml, 'unknown-dtype', 'Set dtype to float16')).fixed, yaml.replace('flaot16', 'float16'));
  // float8 (an fp8 checkpoint) is two edits from float16 but another width: no suggestion, no fix.
  const uri = fixtureUri('f8.config.json');
  const diags = await client.open(uri, original.replace('"torch_dtype": "bfloat16"', '"torch_dtype": "float8"'));
  const d = diags.find((x) => x.code === 'unknown-dtype');
  assert.ok(d, JSON.stringify(diags));
  assert.doesNotMatch(String(d.message), /did you mean/);
  assert.deepEqual(await client.codeActions(uri, d.range, [d]), []);
  await client.close(uri);
});

test('Falcon multi_query beside num_kv_heads (stock falcon-7b-instruct): the only fix removes the ignored key, MQA either way', async () => {
  // transformers FalconConfig: multi_query=True by default, num_kv_heads counts only with
  // new_decoder_architecture. Removing "multi_query" would change nothing there, so it is not offered.
  const text = '{\n  "model_type": "falcon",\n  "hidden_size": 4544,\n  "n_head": 71,\n  "n_layer": 32,\n  "vocab_size": 65024,\n  "multi_query": true,\n  "num_kv_heads": 71\n}\n';
  const { fixed } = await fix('config.json', text, 'multi-query-conflict', 'Remove "num_kv_heads" (ignored: transformers uses 1 KV head)');
  assert.equal(fixed, text.replace(',\n  "num_kv_heads": 71', ''));
  assert.equal(readModelConfig(fixed).value!.numKvHeads, 1);
  assert.equal(readModelConfig(text.replace('  "multi_query": true,\n', '')).value!.numKvHeads, 1);
});

test('fp8 KV cache on the CPU: back to the profile dtype', async () => {
  const text = 'model: ../../examples/llama-3.1-8b/config.json\ndevice: { backend: cpu }\nkv_cache: { dtype: fp8_e4m3 }\n';
  await fix('p.attn.yaml', text, 'kv-dtype-estimate-only', 'Set dtype to auto');
});

test('lengths beyond max_position_embeddings: cut to the limit', async () => {
  // Llama-2-7B: max_position_embeddings 4096.
  const text = 'model: ./configs/Llama-2-7b-hf.config.json\nprefill: { seq_lens: [1024, 8192] }\n';
  const { fixed } = await fix('p.attn.yaml', text, 'exceeds-max-position', "Set to 4096 (the model's limit)");
  assert.ok(fixed.includes('[1024, 4096]'));
});

test('a KV pool below one sequence of the default max_model_len: workload.max_model_len added at the longest that fits', async () => {
  // Llama-3.1-8B: vLLM's default max_model_len is max_position_embeddings 131,072 (rope_scaling
  // llama3 does not scale it). kv_cache.memory_gib 4 holds 4 GiB / 2 MiB = 2,048 pages of 16
  // tokens = 32,768 tokens, vLLM's "estimated maximum model length".
  const text = 'model: ../../examples/llama-3.1-8b/config.json\nkv_cache: { memory_gib: 4 }\nworkload:\n  requests: 10\n';
  const { fixed } = await fix('p.attn.yaml', text, 'pool-below-max-model-len', 'Set workload.max_model_len to 32768 (the longest the KV pool holds)');
  assert.equal(fixed, `${text}  max_model_len: 32768\n`);
  // Written, in a flow mapping: the value is replaced.
  const flow = 'model: ../../examples/llama-3.1-8b/config.json\nkv_cache: { memory_gib: 4 }\nworkload: { requests: 10, max_model_len: 65536 }\n';
  const written = await fix('p.attn.yaml', flow, 'pool-below-max-model-len', 'Set workload.max_model_len to 32768 (the longest the KV pool holds)');
  assert.ok(written.fixed.includes('workload: { requests: 10, max_model_len: 32768 }'), written.fixed);
});

test('no room for a KV page, and a pool the device sizes below one max_model_len sequence: fixes that set the gpu_memory_utilization, memory_gib or tensor_parallel_size that fit (s39 Left 5)', async () => {
  // Llama-3.1-8B on 17 GiB: weights 14.96 GiB + activation peak + engine reserves (test/unit/checks.test.ts) leave no
  // 2 MiB page in 17 · 0.90 = 15.30 GiB. Each fix clears the warning (fix() checks): 0.91 · 17 = 15.47 GiB, 18 GiB
  // · 0.90 = 16.2 GiB, tp 2 halves the weights.
  const text = 'model: ../../examples/llama-3.1-8b/config.json\ndevice:\n  memory_gib: 17\n';
  const empty = await fix('p.attn.yaml', text, 'kv-pool-empty', 'Set memory_gib to 18');
  assert.deepEqual(empty.titles, ['Set gpu_memory_utilization to 0.91', 'Set memory_gib to 18', 'Set tensor_parallel_size to 2']);
  assert.equal(empty.fixed, text.replace('17', '18'));
  assert.equal((await fix('p.attn.yaml', text, 'kv-pool-empty', 'Set gpu_memory_utilization to 0.91')).fixed, `${text}  gpu_memory_utilization: 0.91\n`);
  assert.equal((await fix('p.attn.yaml', text, 'kv-pool-empty', 'Set tensor_parallel_size to 2')).fixed, `${text}  tensor_parallel_size: 2\n`);
  // On 24 GiB the device leaves 6.16 GiB, 9.84 GiB short of one 131,072-token sequence (16 GiB): 9.84 / 0.90 =
  // 10.93 GiB more, memory_gib 35; utilization would be 0.90 + 9.84 / 24 > 1; tp 2 fits (7.48 GiB of weights, 64 KiB a token).
  const short = 'model: ../../examples/llama-3.1-8b/config.json\ndevice: { memory_gib: 24 }\nworkload:\n  requests: 10\n';
  const below = await fix('p.attn.yaml', short, 'pool-below-max-model-len', 'Set memory_gib to 35');
  assert.deepEqual(below.titles.filter((t) => !t.startsWith('Set workload')), ['Set memory_gib to 35', 'Set tensor_parallel_size to 2']);
  assert.equal(below.fixed, short.replace('24', '35'));
  assert.equal((await fix('p.attn.yaml', short, 'pool-below-max-model-len', 'Set tensor_parallel_size to 2')).fixed, short.replace('24 }', '24, tensor_parallel_size: 2 }'));
});

test('prompt + output past max_model_len from unwritten defaults: the message says they are defaults; fixes write prompt_len to fit, or raise max_model_len (s38 newcomer-ed 5)', async () => {
  // The newcomer's jamba / awq profiles: max_model_len 4096 written, prompt_len and output_len left
  // to their defaults, lognormal (median 512, sigma 1, max 4096) and uniform 32 to 512 (core/config/profileDefaults.ts).
  // Fits: prompt max 4096 - 512 = 3584; or max_model_len 4096 + 512 = 4608, under Llama-3.1-8B's 131,072.
  const text = 'model: ../../examples/llama-3.1-8b/config.json\nworkload:\n  requests: 10\n  max_model_len: 4096\n';
  const uri = fixtureUri('defaults-mml.p.attn.yaml');
  const d = (await client.open(uri, text)).find((x) => x.code === 'exceeds-max-model-len');
  await client.close(uri);
  assert.equal(d?.message, 'prompt_len max 4096 (not written: prompt_len defaults to lognormal (median 512, sigma 1, max 4096)) reaches max_model_len 4096: such prompts are rejected, and shorter ones whose prompt + output (max 4608; output_len defaults to uniform 32 to 512) exceeds it have their output clipped');
  const add = 'Add workload.prompt_len with max 3584 (prompt + output within max_model_len 4096)';
  const raise = 'Set workload.max_model_len to 4608 (the longest prompt + output)';
  const { fixed, titles } = await fix('p.attn.yaml', text, 'exceeds-max-model-len', add);
  // output_len: 4096 - 4096 = 0 tokens left for it, so no output_len fix.
  assert.deepEqual(titles, [add, raise]);
  assert.equal(fixed, `${text}  prompt_len: { dist: lognormal, median: 512, sigma: 1, max: 3584 }\n`);
  assert.equal((await fix('p.attn.yaml', text, 'exceeds-max-model-len', raise)).fixed, text.replace('4096', '4608'));
  // After a block-valued key, in JSON: the line goes after the block, not after the line that follows it.
  const block = 'model: ../../examples/llama-3.1-8b/config.json\nworkload:\n  max_model_len: 4096\n  output_len:\n    dist: uniform\n    min: 32\n    max: 512\nkv_cache: { page_size: 16 }\n';
  assert.equal((await fix('p.attn.yaml', block, 'exceeds-max-model-len', add)).fixed, block.replace('512\n', '512\n  prompt_len: { dist: lognormal, median: 512, sigma: 1, max: 3584 }\n'));
  const json = '{\n  "model": "../../examples/llama-3.1-8b/config.json",\n  "workload": { "max_model_len": 4096 }\n}\n';
  assert.equal((await fix('p.attn.json', json, 'exceeds-max-model-len', add)).fixed, json.replace('4096 }', '4096, "prompt_len": { "dist": "lognormal", "median": 512, "sigma": 1, "max": 3584 } }'));
});

test('weights above the device: fixes that set tensor_parallel_size, or pipeline_parallel_size, to the smallest that fits and that vLLM takes (s38 newcomer-ed 4)', async () => {
  // Llama-2-70B bf16: 68,976,648,192 parameters · 2 B = 128.48 GiB > H100 SXM 79.22 GiB × 0.90 = 71.30 GiB;
  // ÷ 2 = 64.24 GiB fits (64 heads, 8 KV heads, intermediate_size 28,672: 2 divides all three). pp 2: stage 1
  // 40 layers · 855,654,400 + the 32,000 · 8,192 = 262,144,000 embedding = 34,488,320,000 parameters = 64.24 GiB,
  // stage 2 the same + the 8,192 final norm: fits.
  const flow = 'model: ../fixtures/configs/Llama-2-70b-hf.config.json\ndevice: { gpu: H100 SXM }\n';
  const added = await fix('p.attn.yaml', flow, 'weights-exceed-device', 'Set tensor_parallel_size to 2');
  assert.deepEqual(added.titles, ['Set tensor_parallel_size to 2', 'Set pipeline_parallel_size to 2']);
  assert.equal(added.fixed, flow.replace('H100 SXM }', 'H100 SXM, tensor_parallel_size: 2 }'));
  const staged = await fix('p.attn.yaml', flow, 'weights-exceed-device', 'Set pipeline_parallel_size to 2');
  assert.equal(staged.fixed, flow.replace('H100 SXM }', 'H100 SXM, pipeline_parallel_size: 2 }'));
  // Llama-3.1-405B: 405,853,388,800 · 2 B = 755.9 GiB; ÷ 8 = 94.5 GiB > 80 GiB × 0.90 = 72 GiB, ÷ 16 = 47.2 GiB fits
  // (128 heads, 8 KV heads, intermediate_size 53,248: 16 divides all three). The written 2 is replaced.
  // pp at tp 2: a layer is 16,384 · (128 + 16) · 128 + 128 · 128 · 16,384 + 3 · 16,384 · 53,248 + 2 · 16,384
  // = 3,187,703,808 parameters, the embedding 128,256 · 16,384 = 2,101,346,304. pp 5 ([25, 25, 25, 26, 25]):
  // stage 4, 26 layers ÷ 2 GPUs = 82,880,299,008 B = 77.19 GiB, too much; pp 6 (21 a stage): stage 1
  // (21 layers + embedding) 69,043,126,272 parameters ÷ 2 · 2 B = 64.30 GiB fits, the others less or as much.
  const block = 'model: ../fixtures/configs/Llama-3.1-405B.config.json\ndevice:\n  memory_gib: 80\n  tensor_parallel_size: 2\n';
  // Neither alone on one 8-GPU node (16 GPUs, 12): the pair on the fewest GPUs, tp 4 × pp 3 (12; test/unit/checks.test.ts).
  const replaced = await fix('p.attn.yaml', block, 'weights-exceed-device', 'Set tensor_parallel_size to 16 (spans 2 nodes of 8 GPUs)');
  assert.deepEqual(replaced.titles, ['Set tensor_parallel_size to 16 (spans 2 nodes of 8 GPUs)', 'Set pipeline_parallel_size to 6', 'Set tensor_parallel_size to 4 and pipeline_parallel_size to 3']);
  const pair = await fix('p.attn.yaml', block, 'weights-exceed-device', 'Set tensor_parallel_size to 4 and pipeline_parallel_size to 3');
  assert.equal(pair.fixed, `${block.replace('tensor_parallel_size: 2', 'tensor_parallel_size: 4')}  pipeline_parallel_size: 3\n`);
  assert.equal(replaced.fixed, block.replace('tensor_parallel_size: 2', 'tensor_parallel_size: 16'));
  const addedPp = await fix('p.attn.yaml', block, 'weights-exceed-device', 'Set pipeline_parallel_size to 6');
  assert.equal(addedPp.fixed, `${block}  pipeline_parallel_size: 6\n`);
});

test('a workload length written as a number (`prompt_len: 512`): rewritten as the fixed distribution, YAML block and flow, JSON (s41 newcomer-ed F13)', async () => {
  const model = 'model: ../../examples/llama-3.1-8b/config.json\n';
  const block = `${model}workload:\n  prompt_len: 512\n`;
  const { fixed, titles } = await fix('p.attn.yaml', block, 'wrong-type', 'Write prompt_len as { dist: fixed, value: 512 }');
  assert.deepEqual(titles, ['Write prompt_len as { dist: fixed, value: 512 }']);
  assert.equal(fixed, `${model}workload:\n  prompt_len: { dist: fixed, value: 512 }\n`);
  const flow = `${model}workload: { requests: 10, output_len: 64 }\n`;
  assert.equal((await fix('p.attn.yaml', flow, 'wrong-type', 'Write output_len as { dist: fixed, value: 64 }')).fixed, flow.replace('64', '{ dist: fixed, value: 64 }'));
  const json = '{ "model": "../../examples/llama-3.1-8b/config.json", "workload": { "prompt_len": 128 } }';
  assert.equal((await fix('p.attn.json', json, 'wrong-type', 'Write prompt_len as { "dist": "fixed", "value": 128 }')).fixed, json.replace('128', '{ "dist": "fixed", "value": 128 }'));
  // A sweep axis's value: the point's error stands at the item, which the fix rewrites in the list.
  const sweep = `${model}workload: { requests: 10 }\nsweep:\n  axes:\n    workload.prompt_len: [512, { dist: fixed, value: 64 }]\n`;
  assert.equal((await fix('p.attn.yaml', sweep, 'wrong-type', 'Write prompt_len as { dist: fixed, value: 512 }')).fixed, sweep.replace('[512,', '[{ dist: fixed, value: 512 },'));
});

test('a number written quoted where a number is required: unquoted (YAML, JSON); a word or a fraction for an integer gets no unquote', async () => {
  // The newcomer's typed2 profile (s31-newcomer-ed item 8): `page_size: "16"` offered "No code actions available".
  const yaml = 'model: ../../examples/llama-3.1-8b/config.json\nkv_cache:\n  page_size: "16"\n';
  const { fixed, titles } = await fix('p.attn.yaml', yaml, 'wrong-type', 'Unquote page_size: 16');
  assert.deepEqual(titles, ['Unquote page_size: 16']);
  assert.equal(fixed, yaml.replace('"16"', '16'));
  // gpu_memory_utilization is a number (not an integer): a quoted fraction unquotes.
  const json = '{ "model": "../../examples/llama-3.1-8b/config.json", "device": { "gpu_memory_utilization": "0.85" } }';
  assert.equal((await fix('p.attn.json', json, 'wrong-type', 'Unquote gpu_memory_utilization: 0.85')).fixed, json.replace('"0.85"', '0.85'));
  for (const value of ['"many"', '"16.5"']) {
    const uri = fixtureUri(`unquote-none-${value.length}.p.attn.yaml`);
    const diags = await client.open(uri, yaml.replace('"16"', value));
    const d = diags.find((x) => x.code === 'wrong-type');
    assert.ok(d, JSON.stringify(diags));
    assert.deepEqual(((await client.codeActions(uri, d.range, [d])) ?? []).map((a) => (a as CodeAction).title), [], value);
    await client.close(uri);
  }
});

test('a quoted number where "auto" or a number is taken (memory_gib: "4"): unquoted; one out of range, or "auto4", gets none (s38 newcomer-ed 6c)', async () => {
  // memory_gib's schema is anyOf ["auto", number in (0, 1048576]]: the error is the anyOf's, not a type error.
  const yaml = 'model: ../../examples/llama-3.1-8b/config.json\nkv_cache:\n  page_size: 16\n  memory_gib: "4"\n';
  const { fixed, titles } = await fix('p.attn.yaml', yaml, 'invalid-value', 'Unquote memory_gib: 4');
  assert.deepEqual(titles, ['Unquote memory_gib: 4']);
  assert.equal(fixed, yaml.replace('"4"', '4'));
  const json = '{ "model": "../../examples/llama-3.1-8b/config.json", "kv_cache": { "memory_gib": "3.8125" } }';
  assert.equal((await fix('p.attn.json', json, 'invalid-value', 'Unquote memory_gib: 3.8125')).fixed, json.replace('"3.8125"', '3.8125'));
  // -4 is a number the key does not take, and "auto4" none at all: no unquote.
  for (const value of ['"-4"', '"auto4"']) {
    const uri = fixtureUri(`unquote-anyof-${value.length}.p.attn.yaml`);
    const diags = await client.open(uri, yaml.replace('"4"', value));
    const d = diags.find((x) => x.code === 'invalid-value');
    assert.ok(d, JSON.stringify(diags));
    assert.deepEqual(((await client.codeActions(uri, d.range, [d])) ?? []).map((a) => (a as CodeAction).title), [], value);
    await client.close(uri);
  }
});

test('a YAML 1.1 boolean word where a boolean is taken (causal: yes / off): true / false; "maybe" gets none (s38 newcomer-ed 6c)', async () => {
  // YAML 1.2 (the yaml library's default, which the reader follows) reads yes as the string "yes"; PyYAML (1.1) as True.
  const text = 'model: ../../examples/llama-3.1-8b/config.json\nprefill: { seq_lens: [512], causal: yes }\n';
  const { fixed, titles } = await fix('p.attn.yaml', text, 'wrong-type', 'Set causal to true');
  assert.deepEqual(titles, ['Set causal to true']);
  assert.equal(fixed, text.replace('causal: yes', 'causal: true'));
  const off = text.replace('causal: yes', 'causal: Off');
  assert.equal((await fix('p.attn.yaml', off, 'wrong-type', 'Set causal to false')).fixed, text.replace('causal: yes', 'causal: false'));
  const uri = fixtureUri('bool-none.p.attn.yaml');
  const diags = await client.open(uri, text.replace('causal: yes', 'causal: maybe'));
  const d = diags.find((x) => x.code === 'wrong-type');
  assert.ok(d, JSON.stringify(diags));
  assert.deepEqual(await client.codeActions(uri, d.range, [d]), []);
  await client.close(uri);
});

test('type and range errors do not hide a cross-key error (the newcomer\'s typed2 profile)', async () => {
  // s31-newcomer-ed item 8: "tensor_parallel_size 3 does not divide the 128 attention heads"
  // (Llama-3.1-405B: num_attention_heads 128, config.json) appeared only once the four type and
  // range errors were fixed; `attnscope estimate` prints all five for this file.
  const text = [
    'model: ./configs/Llama-3.1-405B.config.json',
    'device:',
    '  gpu: H100 SXM',
    '  tensor_parallel_size: 3',
    'kv_cache:',
    '  page_size: "16"',
    'workload:',
    '  requests: many',
    '  arrival_rate: -5',
    '  prompt_len: { dist: lognormal, median: 512, sigma: 1 }',
    '',
  ].join('\n');
  const uri = fixtureUri('typed2.attn.yaml');
  const diags = await client.open(uri, text);
  await client.close(uri);
  assert.deepEqual(diags.map((d) => [d.code, d.range.start.line + 1]).sort(), [
    ['invalid-value', 9],
    ['missing-field', 10],
    ['tp-not-divisible', 4],
    ['wrong-type', 6],
    ['wrong-type', 8],
  ]);
});

test('device.memory_gib above the GPU: set to the CUDA total the message names, or removed (s38 newcomer-ed 6d)', async () => {
  // RTX 4090: CUDA reports 23.64 GiB of its 24 GB (core/estimate/gpus.ts cudaMemoryGib, from vLLM logs).
  const text = 'model: ../../examples/llama-3.1-8b/config.json\ndevice: { gpu: RTX 4090, memory_gib: 30 }\nkv_cache: { page_size: 16 }\n';
  const { fixed, titles } = await fix('p.attn.yaml', text, 'memory-exceeds-gpu', "Set memory_gib to 23.64 (the RTX 4090's CUDA total)");
  assert.deepEqual(titles, ["Set memory_gib to 23.64 (the RTX 4090's CUDA total)", 'Remove "memory_gib" (device.gpu sizes the pool)']);
  assert.equal(fixed, text.replace('memory_gib: 30', 'memory_gib: 23.64'));
  const removed = await fix('p.attn.yaml', text, 'memory-exceeds-gpu', 'Remove "memory_gib" (device.gpu sizes the pool)');
  assert.equal(removed.fixed, text.replace(', memory_gib: 30', ''));
  // Block style, JSON.
  const block = 'model: ../../examples/llama-3.1-8b/config.json\ndevice:\n  gpu: A10\n  memory_gib: 80\n';
  // A10: CUDA reports 22.07 GiB of its 24 GB.
  assert.equal((await fix('p.attn.yaml', block, 'memory-exceeds-gpu', "Set memory_gib to 22.07 (the A10's CUDA total)")).fixed, block.replace('80', '22.07'));
  const json = '{ "model": "../../examples/llama-3.1-8b/config.json", "device": { "gpu": "RTX 4090", "memory_gib": 30 } }';
  assert.equal((await fix('p.attn.json', json, 'memory-exceeds-gpu', 'Remove "memory_gib" (device.gpu sizes the pool)')).fixed, '{ "model": "../../examples/llama-3.1-8b/config.json", "device": { "gpu": "RTX 4090" } }');
});

test('a stale diagnostic gets no fix', async () => {
  const uri = fixtureUri('stale.p.attn.yaml');
  const text = 'model: ../../examples/llama-3.1-8b/config.json\nkv_cache: { colour: red }\n';
  const [d] = await client.open(uri, text);
  assert.ok(d);
  await client.change(uri, 'model: ../../examples/llama-3.1-8b/config.json\n');
  assert.deepEqual(await client.codeActions(uri, d.range, [d]), []);
  await client.close(uri);
});

test('an explicit KV budget past the device: set to the most that fits beside the weights, or removed (s38 newcomer-ed 6, diag2)', async () => {
  // Llama-3.1-8B bf16: 8,030,261,248 parameters (model card) × 2 B = 16,060,522,496 B of weights.
  // memory_gib 24 × 0.9 = 21.6 GiB usable; 21.6 GiB − 16,060,522,496 B = 6.6425 GiB -> 6.64 (rounded down),
  // or 7,132,300,902 B / 2 MiB a page (32 layers · K and V · 8 KV heads · 128 · 2 B · 16 tokens) = 3,400 pages.
  const text = 'model: ../../examples/llama-3.1-8b/config.json\ndevice: { memory_gib: 24 }\nkv_cache:\n  page_size: 16\n  memory_gib: 16\n';
  const set = 'Set memory_gib to 6.64 (the most that fits beside the weights)';
  const { fixed, titles } = await fix('p.attn.yaml', text, 'kv-budget-exceeds-device', set);
  assert.deepEqual(titles, [set, 'Remove "memory_gib" (the device sizes the pool)']);
  assert.equal(fixed, text.replace('memory_gib: 16', 'memory_gib: 6.64'));
  assert.equal((await fix('p.attn.yaml', text, 'kv-budget-exceeds-device', 'Remove "memory_gib" (the device sizes the pool)')).fixed, text.replace('  memory_gib: 16\n', ''));
  // num_pages: pages; removed only when no memory_gib would then size the pool instead.
  const pages = 'model: ../../examples/llama-3.1-8b/config.json\ndevice: { memory_gib: 24 }\nkv_cache: { page_size: 16, num_pages: 5000 }\n';
  assert.equal((await fix('p.attn.yaml', pages, 'kv-budget-exceeds-device', 'Set num_pages to 3400 (the most that fits beside the weights)')).fixed, pages.replace('5000', '3400'));
  const both = pages.replace('num_pages: 5000', 'num_pages: 5000, memory_gib: 4');
  assert.deepEqual((await fix('p.attn.yaml', both, 'kv-budget-exceeds-device', 'Set num_pages to 3400 (the most that fits beside the weights)')).titles, ['Set num_pages to 3400 (the most that fits beside the weights)']);
});

test('a number past an inclusive bound: set to the bound; past an exclusive one, no fix (s38 newcomer-ed 6e)', async () => {
  // attn-profile.schema.json: gpu_memory_utilization exclusiveMinimum 0, maximum 1; batch_sizes items minimum 1.
  const util = 'model: ../../examples/llama-3.1-8b/config.json\ndevice: { gpu: H100 SXM, gpu_memory_utilization: 1.5 }\n';
  const a = await fix('p.attn.yaml', util, 'invalid-value', "Set gpu_memory_utilization to 1 (the schema's maximum)");
  // vLLM's default (EngineArgs gpu_memory_utilization = 0.9) first: 1 leaves the GPU no headroom (s48 newcomer-ed 14).
  assert.deepEqual(a.titles, ["Set gpu_memory_utilization to 0.9 (vLLM's default)", "Set gpu_memory_utilization to 1 (the schema's maximum)"]);
  assert.equal(a.fixed, util.replace('1.5', '1'));
  assert.equal((await fix('p.attn.yaml', util, 'invalid-value', "Set gpu_memory_utilization to 0.9 (vLLM's default)")).fixed, util.replace('1.5', '0.9'));
  const batch = 'model: ../../examples/llama-3.1-8b/config.json\ndecode:\n  batch_sizes: [0, 4]\n  context_lens: [512]\n';
  assert.equal((await fix('p.attn.yaml', batch, 'invalid-value', "Set batch_sizes to 1 (the schema's minimum)")).fixed, batch.replace('[0, 4]', '[1, 4]'));
  const json = '{ "model": "../../examples/llama-3.1-8b/config.json", "prefill": { "seq_lens": [-1] } }';
  assert.equal((await fix('p.attn.json', json, 'invalid-value', "Set seq_lens to 1 (the schema's minimum)")).fixed, json.replace('-1', '1'));
  // arrival_rate > 0 (exclusiveMinimum): no allowed value is nearest -2, so none is offered;
  // likewise gpu_memory_utilization 0.
  for (const text of [
    'model: ../../examples/llama-3.1-8b/config.json\nworkload: { requests: 10, arrival_rate: -2 }\n',
    'model: ../../examples/llama-3.1-8b/config.json\ndevice: { gpu: H100 SXM, gpu_memory_utilization: 0 }\n',
  ]) {
    const uri = fixtureUri(`fix-${n++}.p.attn.yaml`);
    const d = (await client.open(uri, text)).find((x) => x.code === 'invalid-value');
    assert.ok(d, text);
    assert.deepEqual(await client.codeActions(uri, d.range, [d]), [], text);
    await client.close(uri);
  }
});

// s49 newcomer-ed 3: `trace: ./chat-trace.json` beside chat-trace.jsonl was an error with no fix.
test('a trace path that cannot be read: change to the trace file beside the profile it is a typo of', async () => {
  const dir = tempDir('attnscope-trace-fix-');
  writeFileSync(join(dir, 'chat-trace.jsonl'), '{"arrival_s": 0, "prompt_len": 100, "output_len": 10}\n');
  writeFileSync(join(dir, 'other.csv'), 'arrival_s,prompt_len,output_len\n0,100,10\n');
  const uri = pathToFileURL(join(dir, 'typo.attn.yaml')).href;
  const model = JSON.stringify(resolve('examples/llama-3.1-8b/config.json'));
  const text = `model: ${model}\ndevice: { gpu: H100 SXM }\nworkload: { trace: ./chat-trace.json, max_model_len: 8192 }\n`;
  const diags = await client.open(uri, text);
  const d = diags.find((x) => x.code === 'trace-unreadable');
  assert.ok(d, JSON.stringify(diags));
  const actions = ((await client.codeActions(uri, d.range, [d])) ?? []) as CodeAction[];
  // ./other.csv is no typo's reach of ./chat-trace.json: one fix.
  assert.deepEqual(actions.map((a) => a.title), ['Change to ./chat-trace.jsonl']);
  const fixed = TextDocument.applyEdits(TextDocument.create(uri, 'x', 1, text), actions[0]!.edit!.changes![uri]!);
  assert.equal(fixed, text.replace('./chat-trace.json,', './chat-trace.jsonl,'));
  await client.close(uri);
});
