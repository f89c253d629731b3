/**
 * Completion through a real LSP client: profile keys with their schema documentation (minus the
 * keys already there), and enum values, in YAML (block and flow) and JSON.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CompletionItem, CompletionList, MarkupContent, Position } from 'vscode-languageserver-protocol';
import { LspClient, fixtureUri, positionAt } from './harness';

let client: LspClient;
before(async () => {
  client = await LspClient.start();
});
after(async () => {
  assert.equal(await client.stop(), 0);
});

let n = 0;
/** Completion at the `|` in `textWithCursor`. */
async function complete(name: string, textWithCursor: string, trigger?: string): Promise<CompletionItem[]> {
  const offset = textWithCursor.indexOf('|');
  const text = textWithCursor.replace('|', '');
  const uri = fixtureUri(`complete-${n++}.${name}`);
  await client.open(uri, text);
  const position: Position = positionAt(text, offset);
  const result = (await client.completion(uri, position, trigger)) as CompletionItem[] | CompletionList | null;
  await client.close(uri);
  return Array.isArray(result) ? result : (result?.items ?? []);
}

const labels = (items: CompletionItem[]): string[] => items.map((i) => i.label);

test('YAML: keys of kv_cache with documentation, minus those present', async () => {
  const items = await complete('p.attn.yaml', 'model: ../../examples/llama-3.1-8b/config.json\nkv_cache:\n  dtype: auto\n  |\n');
  assert.deepEqual(labels(items), ['page_size', 'num_pages', 'memory_gib', 'kv_cache_memory_bytes']);
  const page = items[0]!;
  assert.match((page.documentation as MarkupContent).value, /Token slots per page \(vLLM --block-size\)/);
  assert.match((page.documentation as MarkupContent).value, /default: `16`/);
  assert.equal(page.textEdit && 'newText' in page.textEdit ? page.textEdit.newText : undefined, 'page_size: ');
});

test('YAML: top-level keys', async () => {
  const items = await complete('p.attn.yaml', 'model: ../../examples/llama-3.1-8b/config.json\n|\n');
  // Every top-level key of schemas/attn-profile.schema.json but the one present (model).
  assert.deepEqual(labels(items), ['$schema', 'dtype', 'device', 'engine', 'kv_cache', 'prefill', 'decode', 'workload', 'slo', 'step_time', 'sweep']);
});

test('YAML: a key whose value is a mapping is inserted on its own line, the cursor at its children\'s indent, where completion offers their keys (s38 newcomer-ed 7)', async () => {
  const newText = (items: CompletionItem[], label: string): string | undefined => {
    const edit = items.find((i) => i.label === label)?.textEdit;
    return edit && 'newText' in edit ? edit.newText : undefined;
  };
  const top = await complete('p.attn.yaml', 'model: ../../examples/llama-3.1-8b/config.json\nwork|');
  assert.equal(newText(top, 'workload'), 'workload:\n  ');
  // A scalar (dtype) or a key that is a path or a mapping (model) stays on the line.
  assert.equal(newText(top, 'dtype'), 'dtype: ');
  assert.equal(newText(await complete('p.attn.yaml', '|'), 'model'), 'model: ');
  // The children's keys are offered where the inserted text leaves the cursor (it was column 1: top-level keys again).
  const inserted = 'model: ../../examples/llama-3.1-8b/config.json\nworkload:\n  |';
  assert.deepEqual(labels(await complete('p.attn.yaml', inserted)).slice(0, 4), ['requests', 'arrival_rate', 'prompt_len', 'output_len']);
  // Nested, in a file indented by 4, with CRLF line ends: the file's step and line break.
  const nested = await complete('p.attn.yaml', 'model: x\r\nworkload:\r\n    requests: 10\r\n    |');
  assert.equal(newText(nested, 'prompt_len'), 'prompt_len:\r\n        ');
  assert.equal(newText(nested, 'seed'), 'seed: ');
  // In a flow mapping the value stays on the line.
  assert.equal(newText(await complete('p.attn.yaml', 'model: x\nworkload: { requests: 10, |'), 'prompt_len'), 'prompt_len: ');
});

test('a typed space offers values after a key, never the key list (indenting stays quiet)', async () => {
  assert.deepEqual(await complete('p.attn.yaml', 'model: x\nkv_cache:\n  |\n', ' '), []);
  assert.deepEqual(labels(await complete('p.attn.yaml', 'model: x\ndevice:\n  backend: |\n', ' ')), ['auto', 'cpu', 'cuda']);
});

test('YAML: enum values of kv_cache.dtype with their descriptions', async () => {
  const items = await complete('p.attn.yaml', 'model: ../../examples/llama-3.1-8b/config.json\nkv_cache:\n  dtype: |\n');
  assert.deepEqual(labels(items), ['auto', 'fp32', 'fp16', 'bf16', 'fp8_e4m3', 'fp8_e5m2', 'fp8']);
  assert.equal(items[4]!.detail, '1 byte (vLLM fp8 / fp8_e4m3)');
  assert.match(items[5]!.detail!, /^1 byte \(vLLM fp8_e5m2/);
  assert.match(items[6]!.detail!, /alias of fp8_e4m3/);
});

test('YAML flow mapping: device backend values and device keys', async () => {
  assert.deepEqual(labels(await complete('p.attn.yaml', 'model: x\ndevice: { backend: c| }\n')), ['auto', 'cpu', 'cuda']);
  assert.deepEqual(labels(await complete('p.attn.yaml', 'model: x\ndevice: { backend: cpu, | }\n')), ['memory_gib', 'gpu_memory_utilization', 'tensor_parallel_size', 'pipeline_parallel_size', 'data_parallel_size', 'cpu_offload_gb', 'gpu', 'gpu_hour_usd']);
});

test('YAML: workload length distributions', async () => {
  const items = await complete('p.attn.yaml', 'model: x\nworkload:\n  prompt_len:\n    dist: |\n');
  assert.deepEqual(labels(items), ['fixed', 'uniform', 'lognormal', 'exponential']);
});

test('workload lengths: a distribution\'s keys are those of its dist; the value offers each distribution, filled from the key\'s default, and each passes the checks as written (s39 Left 5)', async () => {
  // The schema's lengthDist (schemas/attn-profile.schema.json): uniform holds min and max, lognormal median, sigma and max.
  assert.deepEqual(labels(await complete('p.attn.yaml', 'model: x\nworkload:\n  prompt_len:\n    dist: uniform\n    |\n')), ['min', 'max']);
  assert.deepEqual(labels(await complete('p.attn.yaml', 'model: x\nworkload:\n  prompt_len: { dist: lognormal, | }\n')), ['median', 'sigma', 'max']);
  // No dist yet: every field.
  assert.deepEqual(labels(await complete('p.attn.yaml', 'model: x\nworkload:\n  output_len: { | }\n')), ['dist', 'value', 'min', 'max', 'median', 'sigma', 'mean']);
  // A flow mapping in a flow mapping: the inner one's values (it offered workload's keys).
  assert.deepEqual(labels(await complete('p.attn.yaml', 'model: x\nworkload: { prompt_len: { dist: | } }\n')), ['fixed', 'uniform', 'lognormal', 'exponential']);
  // The value: one mapping per kind, the default's first (core/config/profileDefaults.ts: prompt_len lognormal
  // median 512, sigma 1, max 4096), the others from it (value / mean 512, max 4096, min 1). It offered nothing.
  const newText = (i: CompletionItem): string | undefined => (i.textEdit && 'newText' in i.textEdit ? i.textEdit.newText : undefined);
  const prompt = await complete('p.attn.yaml', 'model: ../../examples/llama-3.1-8b/config.json\nworkload:\n  requests: 10\n  prompt_len: |\n');
  assert.deepEqual(prompt.map(newText), ['{ dist: lognormal, median: 512, sigma: 1, max: 4096 }', '{ dist: fixed, value: 512 }', '{ dist: uniform, min: 1, max: 4096 }', '{ dist: exponential, mean: 512, max: 4096 }']);
  assert.match(prompt[0]!.detail!, /^default · /);
  // output_len's default, uniform 32 to 512: its midpoint 272 for the others; JSON quoted.
  const output = await complete('p.attn.json', '{\n  "model": "../../examples/llama-3.1-8b/config.json",\n  "workload": { "requests": 10, "output_len": | }\n}\n');
  assert.deepEqual(output.map(newText), ['{ "dist": "uniform", "min": 32, "max": 512 }', '{ "dist": "fixed", "value": 272 }', '{ "dist": "lognormal", "median": 272, "sigma": 1, "max": 512 }', '{ "dist": "exponential", "mean": 272, "max": 512 }']);
  // Typed "log": the kind is what is filtered on.
  assert.deepEqual(prompt.map((i) => i.filterText), ['lognormal', 'fixed', 'uniform', 'exponential']);
  // Each written in: no diagnostic at workload.
  for (const item of prompt) {
    const uri = fixtureUri(`complete-${n++}.p.attn.yaml`);
    const diags = await client.open(uri, `model: ../../examples/llama-3.1-8b/config.json\nworkload:\n  requests: 10\n  prompt_len: ${newText(item)!}\n`);
    await client.close(uri);
    assert.deepEqual(diags.filter((d) => d.range.start.line === 3).map((d) => d.message), [], newText(item));
  }
});

test('JSON: quoted keys and values', async () => {
  const keys = await complete('p.attn.json', '{\n  "model": "x",\n  "device": { "|" }\n}\n');
  assert.deepEqual(labels(keys), ['backend', 'memory_gib', 'gpu_memory_utilization', 'tensor_parallel_size', 'pipeline_parallel_size', 'data_parallel_size', 'cpu_offload_gb', 'gpu', 'gpu_hour_usd']);
  // s38 newcomer 1: the key vLLM calls --pipeline-parallel-size, documented (it was "unknown key ... did you mean tensor_parallel_size").
  assert.match((keys[4]!.documentation as MarkupContent).value, /Pipeline stages the layers are split over \(vLLM --pipeline-parallel-size/);
  assert.equal(keys[0]!.textEdit && 'newText' in keys[0]!.textEdit ? keys[0]!.textEdit.newText : undefined, '"backend": ');
  const values = await complete('p.attn.json', '{\n  "model": "x",\n  "dtype": "b|"\n}\n');
  assert.deepEqual(labels(values), ['fp32', 'fp16', 'bf16']);
  assert.equal(values[2]!.textEdit && 'newText' in values[2]!.textEdit ? values[2]!.textEdit.newText : undefined, '"bf16"');
});

test('config.json: the HuggingFace keys the schema documents, minus those present', async () => {
  const items = await complete('config.json', '{\n  "model_type": "llama",\n  "hidden_size": 4096,\n  "|"\n}\n');
  assert.ok(labels(items).includes('num_key_value_heads'));
  assert.ok(!labels(items).includes('model_type') && !labels(items).includes('hidden_size'));
  const kv = items.find((i) => i.label === 'num_key_value_heads')!;
  assert.match((kv.documentation as MarkupContent).value, /GQA when fewer than H, MQA when 1/);
});

test('nothing to complete inside a list of numbers', async () => {
  assert.deepEqual(await complete('p.attn.yaml', 'model: x\nprefill:\n  seq_lens: [|]\n'), []);
});

test('page_size: completion offers exactly the sizes the diagnostics accept, for the profile\'s device (s36 newcomer finding 3)', async () => {
  // vLLM's --block-size choices (vllm/config/cache.py BlockSize = Literal[1, 8, 16, 32, 64, 128, 256]);
  // on a GPU its CUDA backends take multiples of 16 (flash_attn.py "Block size must be a multiple of 16.").
  const cpu = 'model: ../../examples/llama-3.1-8b/config.json\nkv_cache:\n  page_size: |\n';
  const gpu = 'model: ../../examples/llama-3.1-8b/config.json\ndevice: { gpu: H200 }\nkv_cache: { page_size: | }\n';
  const cpuItems = await complete('p.attn.yaml', cpu);
  const gpuItems = await complete('p.attn.yaml', gpu);
  assert.deepEqual(labels(cpuItems), ['1', '8', '16', '32', '64', '128', '256']);
  assert.deepEqual(labels(gpuItems), ['16', '32', '64', '128', '256']);
  assert.match(cpuItems[2]!.detail!, /^default · vLLM --block-size 16/);
  // Each value offered, written in: no page_size diagnostic; a size left out (8 on a GPU, 2 anywhere): one.
  const pageDiags = async (text: string): Promise<string[]> => {
    const uri = fixtureUri(`complete-${n++}.p.attn.yaml`);
    const diags = await client.open(uri, text);
    await client.close(uri);
    return diags.filter((d) => /page-size/.test(String(d.code))).map((d) => String(d.code));
  };
  for (const [text, items] of [[cpu, cpuItems], [gpu, gpuItems]] as const) {
    for (const item of items) assert.deepEqual(await pageDiags(text.replace('|', item.label)), [], `${item.label} in ${text}`);
  }
  assert.deepEqual(await pageDiags(gpu.replace('|', '8')), ['page-size-not-vllm']);
  assert.deepEqual(await pageDiags(cpu.replace('|', '2')), ['page-size-unusual']);
});

test('device.gpu: completion lists every row of the GPU table, each with its peaks and memory; a derived memory says so', async () => {
  const items = await complete('p.attn.yaml', 'model: ../../examples/llama-3.1-8b/config.json\ndevice: { gpu: | }\n');
  // core/estimate/gpus.ts GPUS, in table order (the schema's enum is checked against it in test/unit/gpus.test.ts).
  assert.deepEqual(labels(items), ['H100 SXM', 'H100 PCIe', 'H100 NVL', 'H200', 'H20', 'B200', 'A100 80GB', 'A100 PCIe 80GB', 'A100 40GB', 'L40S', 'L4', 'RTX 4090', 'A10', 'MI300X']);
  const text = (label: string): string => {
    const i = items.find((x) => x.label === label)!;
    return `${i.detail ?? ''} ${typeof i.documentation === 'string' ? i.documentation : (i.documentation?.value ?? '')}`;
  };
  // HGX B200: BF16 36 PFLOPS with sparsity over 8 GPUs = 2,250 dense; CUDA total 178.35 GiB (pytorch/ao#4002).
  assert.match(text('B200'), /2,250 TFLOP\/s bf16, 8 TB\/s, 178\.35 GiB/);
  // H20: PyTorch's device query, total_memory=97285MB, 95.005 GiB (alipay/PainlessInferenceAcceleration); H100 PCIe:
  // OpenXLA's device config, 84,942,979,072 B = 79.11 GiB (s48; it was derived, 79.2).
  assert.match(text('H20'), /95\.005 GiB; figures from resellers/);
  assert.match(text('H100 PCIe'), /79\.11 GiB/);
  assert.doesNotMatch(text('H100 PCIe'), /derived/);
  assert.match(text('MI300X'), /ROCm/);
});

test('device.gpu as a mapping: completion offers the keys of a described GPU, with their units', async () => {
  const items = await complete('p.attn.yaml', 'model: ../../examples/llama-3.1-8b/config.json\ndevice:\n  gpu:\n    name: MI325X\n    |\n');
  assert.deepEqual(labels(items), ['bf16_tflops', 'memory_bandwidth_gb_s', 'memory_gib', 'fp32_tflops', 'fp8_tflops', 'int8_tops', 'pcie_gen', 'interconnect', 'interconnect_gb_s', 'compute_capability', 'nvlink_multicast', 'nvlink_bridged_pairs', 'ring_all_reduce_efficiency', 'platform']);
  assert.match((items.find((i) => i.label === 'memory_bandwidth_gb_s')!.documentation as MarkupContent).value, /GB\/s \(10\^9 bytes\/s\): an H100 SXM's 3\.35 TB\/s is 3350/);
});

test('hover on device.gpu: the budget row says whose memory sizes the pool: a built-in row says CUDA reports it, a described GPU says user-given', async () => {
  const hoverOn = async (text: string): Promise<string> => {
    const uri = fixtureUri(`complete-${n++}.p.attn.yaml`);
    await client.open(uri, text);
    const h = await client.hover(uri, positionAt(text, text.indexOf('gpu') + 1));
    await client.close(uri);
    return (h?.contents as MarkupContent | undefined)?.value ?? '';
  };
  // H100 PCIe: its CUDA total from OpenXLA's device config, 79.11 GiB (core/estimate/gpus.ts; s48, it was derived).
  assert.match(await hoverOn('model: ../../examples/llama-3.1-8b/config.json\ndevice: { gpu: H100 PCIe }\n'), /device\.gpu H100 PCIe, 79\.11 GiB as CUDA reports it · gpu_memory_utilization 0\.9/);
  assert.match(await hoverOn('model: ../../examples/llama-3.1-8b/config.json\ndevice: { gpu: { name: MI325X, bf16_tflops: 1307.4, memory_bandwidth_gb_s: 6000, memory_gib: 255.5 } }\n'), /device\.gpu MI325X, 255\.5 GiB user-given · gpu_memory_utilization 0\.9/);
});

test("hover on step_time.all_reduce and its keys: the schema's words, what is assumed when absent", async () => {
  const text = 'model: ../../examples/llama-3.1-8b/config.json\nstep_time: { all_reduce: { efficiency: { two_shot: 0.4 }, latency_us: 12 } }\n';
  const uri = fixtureUri(`complete-${n++}.p.attn.yaml`);
  await client.open(uri, text);
  const on = async (word: string) => ((await client.hover(uri, positionAt(text, text.indexOf(word) + 1)))?.contents as MarkupContent | undefined)?.value ?? '';
  assert.match(await on('all_reduce'), /fitted by hand to vLLM PR #24111's H100 SXM timings .* assumed on every other GPU/);
  // The ring's large-message rate past 4 MiB (step-time.ts ALL_REDUCE_EFFICIENCY.ring), and that a given two_shot replaces it.
  assert.match(await on('two_shot'), /two-shot all-reduce and NCCL's ring: 2 · \(tp − 1\)\/tp · M per GPU \(assumed 0\.5 when absent, and 0\.82 for NCCL's ring on messages past 4 MiB, .*\); given, it holds for the ring at every size/);
  assert.match(await on('latency_us'), /One all-reduce call's fixed cost, microseconds \(assumed 10 when absent\)/);
  await client.close(uri);
});

test('a sweep axis list offers the values of the key it sweeps: GPU names in `device.gpu: [`, in a block list and in JSON; the whole item replaced (s41 newcomer-ed F13)', async () => {
  // core/estimate/gpus.ts GPUS in table order, as at device.gpu (the test above).
  const gpus = ['H100 SXM', 'H100 PCIe', 'H100 NVL', 'H200', 'H20', 'B200', 'A100 80GB', 'A100 PCIe 80GB', 'A100 40GB', 'L40S', 'L4', 'RTX 4090', 'A10', 'MI300X'];
  const head = 'model: ../../examples/llama-3.1-8b/config.json\nsweep:\n  axes:\n';
  assert.deepEqual(labels(await complete('p.attn.yaml', `${head}    device.gpu: [|\n`)), gpus);
  const second = await complete('p.attn.yaml', `${head}    device.gpu: [H200, H100 S|]\n`);
  assert.deepEqual(labels(second), gpus);
  // "H100 S" is replaced whole (the word around the cursor stops at the space), up to the `]`: 4 spaces, "device.gpu:" (11),
  // " [" (2) and "H200, " (6) put it at columns 23 to 29.
  const edit = second.find((i) => i.label === 'H100 SXM')!.textEdit!;
  assert.deepEqual('range' in edit ? edit.range : null, { start: { line: 3, character: 23 }, end: { line: 3, character: 29 } });
  assert.deepEqual(labels(await complete('p.attn.yaml', `${head}    device.gpu:\n      - H200\n      - |\n`)), gpus);
  assert.deepEqual(labels(await complete('p.attn.json', '{ "model": "../../examples/llama-3.1-8b/config.json", "sweep": { "axes": { "device.gpu": ["|"] } } }')), gpus);
  // Another axis: its key's values (kv_cache.dtype's enum), and the axis's own value stays a list: nothing offered as a scalar there.
  assert.ok(labels(await complete('p.attn.yaml', `${head}    kv_cache.dtype: [|\n`)).includes('fp8_e4m3'));
  assert.deepEqual(labels(await complete('p.attn.yaml', `${head}    device.gpu: |\n`)), []);
});

test('a sweep axis list at its key\'s column and in flow mappings offers the same values: `device.gpu:` then `- |` in the same column, `sweep: { axes: { device.gpu: [ | ] } }` (s41 ux41 dropped F13 forms)', async () => {
  const gpus = ['H100 SXM', 'H100 PCIe', 'H100 NVL', 'H200', 'H20', 'B200', 'A100 80GB', 'A100 PCIe 80GB', 'A100 40GB', 'L40S', 'L4', 'RTX 4090', 'A10', 'MI300X'];
  const model = 'model: ../../examples/llama-3.1-8b/config.json\n';
  // YAML lets a block list's `- ` stand at its key's column; the indentation-based reading took `- |` for a key of axes.
  assert.deepEqual(labels(await complete('p.attn.yaml', `${model}sweep:\n  axes:\n    device.gpu:\n    - H200\n    - |\n`)), gpus);
  assert.deepEqual(labels(await complete('p.attn.yaml', `${model}sweep:\n  axes:\n    device.gpu:\n    - |\n`)), gpus);
  assert.deepEqual(labels(await complete('p.attn.yaml', `${model}sweep: { axes: { device.gpu: [ | ] } }\n`)), gpus);
  // The second item, "H1" replaced whole: `sweep: { axes: { device.gpu: [ ` is 31 columns, "H200, " 6 more.
  const second = await complete('p.attn.yaml', `${model}sweep: { axes: { device.gpu: [ H200, H1| ] } }\n`);
  assert.deepEqual(labels(second), gpus);
  const edit = second.find((i) => i.label === 'H100 SXM')!.textEdit!;
  assert.deepEqual('range' in edit ? edit.range : null, { start: { line: 1, character: 37 }, end: { line: 1, character: 39 } });
  // Keys inside the flow mappings: axes's are the sweepable profile keys, sweep's its own.
  assert.ok(labels(await complete('p.attn.yaml', `${model}sweep: { axes: { | } }\n`)).includes('device.gpu'));
  assert.ok(labels(await complete('p.attn.yaml', `${model}sweep: { | }\n`)).includes('axes'));
});
