import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { GPUS } from '../../core/estimate/gpus';
import {
  PROFILE_DEFAULTS,
  closestMatch,
  isProfilePath,
  formatProblem,
  offsetToLineColumn,
  profileFromModelConfig,
  readProfile,
  resolvedProfileProblems,
  type ProfileHost,
} from '../../core/config/index';
import { BACKENDS, type Profile } from '../../core/config/types';
import { parseYamlTree, toPlain, yamlErrorMessage } from '../../core/config/tree';
import { checkProfile, estimate } from '../../core/estimate/index';
import { validateProfileText } from '../../core/validate';
import schema from '../../schemas/attn-profile.schema.json';
import { fixtureText, loadModel } from './helpers';
import { at, only } from '../fixtures/problems';

const DIR = '/work/project';
const PROFILE = join(DIR, 'serve.attn.yaml');

/** A host over an in-memory file system: what an editor with unsaved buffers looks like. */
function host(files: Record<string, string>): ProfileHost & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    readFile(abs: string) {
      reads.push(abs);
      return files[abs] ?? null;
    },
  };
}

const LLAMA_FILES = { [join(DIR, 'llama/config.json')]: fixtureText('Llama-3.1-8B') };

function read(text: string, files: Record<string, string> = LLAMA_FILES, file = PROFILE) {
  return readProfile(text, file, host(files));
}

test('a minimal profile gets every default, and the config dtype', () => {
  const r = read('model: ./llama/config.json\n');
  assert.ok(r.value, JSON.stringify(r.problems));
  const p = r.value;
  assert.equal(p.modelPath, join(DIR, 'llama/config.json'));
  assert.equal(p.sourcePath, PROFILE);
  assert.equal(p.dtype, 'bf16');
  assert.deepEqual(p.device, { backend: 'auto', memoryGib: null, gpuMemoryUtilization: 0.9, tensorParallelSize: 1, pipelineParallelSize: 1 });
  assert.deepEqual(p.engine, { vllmVersion: null, nonTorchGib: 'auto', ncclGib: 'auto', cudaGraphGib: 'auto', activationGib: 'auto' });
  assert.deepEqual(p.kvCache, { pageSize: 16, dtype: 'auto', numPages: 'auto', memoryGib: 'auto' });
  assert.deepEqual(p.prefill, { batchSize: 1, seqLens: [512, 1024], causal: true });
  assert.deepEqual(p.decode, { batchSizes: [1, 8], contextLens: [1024, 4096] });
  assert.equal(p.workload, null);
  // No device memory: said once, as information.
  assert.equal(only(r.problems, 'no-memory-budget').severity, 'info');
});

test('dtype defaults: the config torch_dtype (Llama-2 fp16); float32 checkpoints assume bf16 and say so', () => {
  const files = {
    [join(DIR, 'l2/config.json')]: fixtureText('Llama-2-7b-hf'),
    [join(DIR, 'gemma/config.json')]: fixtureText('gemma-2-9b'),
  };
  assert.equal(read('model: ./l2/config.json', files).value!.dtype, 'fp16');
  const text = 'model: ./gemma/config.json';
  const g = read(text, files);
  assert.equal(g.value!.dtype, 'bf16');
  const info = only(g.problems, 'dtype-assumed');
  assert.equal(info.severity, 'info');
  assert.equal(at(text, info), './gemma/config.json');
  // An explicit dtype is taken as written, without the note.
  const fp32 = read('model: ./gemma/config.json\ndtype: fp32', files);
  assert.equal(fp32.value!.dtype, 'fp32');
  assert.equal(fp32.problems.filter((p) => p.code === 'dtype-assumed').length, 0);
});

test('dtype defaults: a config with no torch_dtype (GPT-2, a float32 checkpoint) assumes bf16 and says why, in a profile and as a bare config', () => {
  const gpt2 = fixtureText('gpt2');
  assert.doesNotMatch(gpt2, /torch_dtype|"dtype"/);
  const text = 'model: ./gpt2/config.json';
  const p = read(text, { [join(DIR, 'gpt2/config.json')]: gpt2 });
  assert.equal(p.value!.dtype, 'bf16');
  const info = only(p.problems, 'dtype-assumed');
  assert.equal(info.severity, 'info');
  assert.equal(info.message, 'the config names no torch_dtype, which transformers and vLLM read as float32; serving engines run such checkpoints in half precision, so bf16 is assumed (set `dtype: fp32` to size for float32)');
  assert.equal(at(text, info), './gpt2/config.json');
  // A bare config: the note at 1:1 of the config, which has no torch_dtype key to point at.
  const bare = validateProfileText(gpt2, join(DIR, 'gpt2/config.json'), host({}));
  const note = only(bare.problems, 'dtype-assumed');
  assert.deepEqual([note.file, note.range.offset, note.message], [join(DIR, 'gpt2/config.json'), 0, info.message]);
  // An explicit dtype is taken as written, without the note.
  assert.equal(read(`${text}\ndtype: fp32`, { [join(DIR, 'gpt2/config.json')]: gpt2 }).problems.filter((q) => q.code === 'dtype-assumed').length, 0);
});

test('a torch_dtype this tool does not know (float8_e4m3fn): one warning at the value, and no note that the config names none', () => {
  const text = 'model: { num_hidden_layers: 32, hidden_size: 4096, num_attention_heads: 32, vocab_size: 32000, intermediate_size: 11008, torch_dtype: float8_e4m3fn }\n';
  const p = read(text);
  assert.equal(p.value!.dtype, 'bf16');
  const warning = only(p.problems, 'unknown-dtype');
  assert.equal(at(text, warning), 'float8_e4m3fn');
  assert.match(warning.message, /is not float32, float16 or bfloat16; the profile's dtype \(default bf16\) is used/);
  // The config names one: "the config names no torch_dtype" would contradict the warning.
  assert.deepEqual(p.problems.filter((q) => q.code === 'dtype-assumed'), []);
  // The same for a bare config.
  const config = JSON.stringify({ num_hidden_layers: 2, hidden_size: 256, num_attention_heads: 4, vocab_size: 1000, intermediate_size: 512, torch_dtype: 'float8_e4m3fn' });
  const bare = validateProfileText(config, join(DIR, 'f8/config.json'), host({}));
  assert.equal(only(bare.problems, 'unknown-dtype').severity, 'warning');
  assert.deepEqual(bare.problems.filter((q) => q.code === 'dtype-assumed'), []);
});

test('a GPU name that begins several: all named, before the nearest by edit distance (s46 newcomer L1)', () => {
  // "h100" is 1 edit from "H200" and 4 from "H100 SXM": before, "did you mean \"H200\"?".
  const gpu = (name: string) => read(`model: ./llama/config.json\ndevice: { gpu: ${name} }\n`).problems.find((p) => p.code === 'invalid-value')!.message;
  assert.match(gpu('h100'), /not the string "h100": did you mean "H100 SXM", "H100 PCIe" or "H100 NVL"\?$/);
  // One typo of one name keeps the one answer.
  assert.match(gpu('H100 SXMM'), /: did you mean "H100 SXM"\?$/);
});

test('unknown key: warning with "did you mean" at the exact key (YAML)', () => {
  const text = 'model: ./llama/config.json\nkv_cache:\n  pagesize: 32\n';
  const r = read(text);
  const p = only(r.problems, 'unknown-key');
  assert.equal(p.severity, 'warning');
  assert.equal(p.range.offset, text.indexOf('pagesize'));
  assert.equal(p.range.length, 'pagesize'.length);
  assert.match(p.message, /did you mean "page_size"\?/);
  assert.deepEqual(p.data, { key: 'pagesize', suggestion: 'page_size' });
  // A warning does not block the profile.
  assert.ok(r.value);
});

test('unknown key: warning with "did you mean" at the exact key (JSON), top level', () => {
  const text = '{\n  "model": "./llama/config.json",\n  "dtpye": "bf16"\n}';
  const p = only(read(text, LLAMA_FILES, join(DIR, 'serve.attn.json')).problems, 'unknown-key');
  assert.equal(at(text, p), '"dtpye"');
  assert.deepEqual(offsetToLineColumn(text, p.range.offset), { line: 3, column: 3 });
  assert.match(p.message, /did you mean "dtype"/);
});

test('an unknown key far from any known one lists the known keys', () => {
  const p = only(read('model: ./llama/config.json\nprefill:\n  zzzzzzzz: 1\n').problems, 'unknown-key');
  assert.match(p.message, /known keys are batch_size, seq_lens, causal/);
});

test('wrong type: error at the value, value null', () => {
  const text = 'model: ./llama/config.json\nkv_cache:\n  page_size: "16"\n';
  const r = read(text);
  assert.equal(r.value, null);
  const p = only(r.problems, 'wrong-type');
  assert.equal(at(text, p), '"16"');
  assert.match(p.message, /kv_cache\.page_size must be an integer, not the string "16"/);
});

test('YAML .inf and .nan, and JSON 1e999, are numbers that must be finite, not "a number, not number Infinity"', () => {
  for (const [text, file, shown, value] of [
    ['model: ./llama/config.json\nworkload:\n  arrival_rate: .inf\n', PROFILE, '.inf', '.inf'],
    ['model: ./llama/config.json\nworkload:\n  arrival_rate: .nan\n', PROFILE, '.nan', '.nan'],
    // As written, with why (the flag form's words: s53 nc-cli 20 saw "not Infinity" for page_size: 1e400).
    ['{"model": "./llama/config.json", "workload": {"arrival_rate": 1e999}}', PROFILE.replace(/\.yaml$/, '.json'), '1e999, beyond the 64-bit float range (±1.8e308)', '1e999'],
    ['model: ./llama/config.json\nworkload:\n  arrival_rate: 1e400\n', PROFILE, '1e400, beyond the 64-bit float range (±1.8e308)', '1e400'],
  ] as const) {
    const p = only(read(text, LLAMA_FILES, file).problems, 'wrong-type');
    assert.equal(at(text, p), value);
    assert.equal(p.message, `workload.arrival_rate must be a finite number, not ${shown}`);
  }
});

test('an integer written beyond Number.MAX_SAFE_INTEGER is refused at the value as written, not quoted rounded', () => {
  // 2^53 + 1 = 9007199254740993 has no float64: it reads as 2^53 = 9007199254740992 (round half to even).
  for (const [text, file] of [
    ['model: ./llama/config.json\nkv_cache:\n  num_pages: 9007199254740993\n', PROFILE],
    ['{"model": "./llama/config.json", "kv_cache": {"num_pages": 9007199254740993}}', join(DIR, 'serve.attn.json')],
  ] as const) {
    const r = read(text, LLAMA_FILES, file);
    assert.equal(r.value, null);
    const errors = r.problems.filter((p) => p.severity === 'error');
    assert.equal(errors.length, 1, JSON.stringify(errors));
    assert.equal(at(text, errors[0]!), '9007199254740993');
    assert.equal(errors[0]!.message, 'kv_cache.num_pages is 9007199254740993, beyond 2^53 − 1 (9,007,199,254,740,991): a JavaScript number cannot hold it exactly (it would be read as 9007199254740992)');
  }
  // 2^53 - 1 itself is exact: no such error (the schema's own bound decides).
  const edge = read('model: ./llama/config.json\nkv_cache:\n  num_pages: 9007199254740991\n');
  assert.ok(!edge.problems.some((p) => /MAX_SAFE_INTEGER/.test(p.message)));
});

test('YAML !!int and !!float tags make numbers, as PyYAML reads them; another tag is an error naming it (s34 newcomer-cli finding 4)', () => {
  // PyYAML (vLLM's --config reader): !!int 16 -> 16, !!float 4 -> 4.0 (construct_yaml_float:
  // float('4')), !!bool yes -> True (YAML 1.1); yaml's core schema left "!!float 4" the string "4".
  const text = 'model: ./llama/config.json\nkv_cache: { page_size: !!int 16 }\nworkload: { arrival_rate: !!float 4, requests: !!int 0x10 }\n';
  const r = read(text);
  assert.deepEqual(r.problems.filter((p) => p.severity !== 'info'), []);
  assert.equal(r.value!.kvCache.pageSize, 16);
  assert.equal(r.value!.workload!.arrivalRate, 4);
  assert.equal(r.value!.workload!.requests, 16);
  assert.deepEqual(toPlain(parseYamlTree('a: !!bool yes\nb: !!float 1_000.5\n').root!), { a: true, b: 1000.5 });
  // A custom tag (PyYAML: "could not determine a constructor for the tag '!gib'"): an error naming it, not "the string".
  const custom = 'model: ./llama/config.json\nkv_cache: { memory_gib: !gib 4 }\n';
  const e = read(custom).problems.find((p) => p.code === 'yaml-unknown-tag')!;
  assert.equal(e.severity, 'error');
  assert.equal(at(custom, e), '4');
  assert.match(e.message, /^!gib 4: a tag this reader cannot make a value of/);
  // !!str stays a string, said by the schema as before.
  assert.ok(!read('model: ./llama/config.json\ndevice: { gpu: !!str H100 SXM }\n').problems.some((p) => p.code === 'yaml-unknown-tag'));
});

test('an integer key written as a float (page_size: 16.0, !!float 16) is a warning at the value, and the integer is read', () => {
  // As a config.json's num_key_value_heads 8.0 (keys.ts): PyYAML reads 16.0 as a float, not an int.
  const text = 'model: ./llama/config.json\nkv_cache: { page_size: 16.0 }\nworkload: { requests: !!float 100, arrival_rate: 4.0 }\nprefill: { seq_lens: [512, 1e3] }\n';
  const r = read(text);
  const warned = r.problems.filter((p) => p.code === 'integer-written-as-float');
  assert.deepEqual(warned.map((p) => [p.data?.key, at(text, p), p.severity]), [
    ['kv_cache.page_size', '16.0', 'warning'], ['workload.requests', '100', 'warning'], ['prefill.seq_lens.1', '1e3', 'warning'],
  ]);
  assert.equal(warned[0]!.message, "kv_cache.page_size is an integer written as a float (a fraction, an exponent or !!float), which PyYAML and Python's json read as a float, not an int: write 16");
  assert.equal(r.value!.kvCache.pageSize, 16);
  // A number key (arrival_rate 4.0) and an inline model mapping (the model reader's) say nothing here.
  assert.ok(!warned.some((p) => p.data?.key === 'workload.arrival_rate'));
  // 1e300 has no integer digits to write (String(1e300) is '1e+300'): only its range error, no
  // quick fix that writes 1e+300 and raises the same warning again (s36 newcomer, editor 4).
  const huge = read('model: ./llama/config.json\nkv_cache: { page_size: 1e300 }\n').problems;
  assert.deepEqual(huge.filter((p) => p.code === 'integer-written-as-float'), []);
  assert.ok(huge.some((p) => p.severity === 'error' && /page_size/.test(p.message)));
});

test('enum and range errors: did-you-mean for dtype, bounds for numbers, anyOf said once', () => {
  const text = 'model: ./llama/config.json\nkv_cache:\n  dtype: fp8_e4m2\n  num_pages: 0\ndevice:\n  gpu_memory_utilization: 1.5\n';
  const r = read(text);
  const byValue = Object.fromEntries(r.problems.filter((p) => p.code === 'invalid-value').map((p) => [at(text, p), p.message]));
  assert.deepEqual(Object.keys(byValue).sort(), ['0', '1.5', 'fp8_e4m2']);
  assert.match(byValue['fp8_e4m2']!, /did you mean "fp8_e4m3"/);
  assert.match(byValue['1.5']!, /must be <= 1/);
  assert.match(byValue['0']!, /^kv_cache\.num_pages must be "auto" or a whole number of pages from 1 to 2,147,483,647 \(2\^31 − 1: vLLM's block table holds int32 ids\), not the number 0$/);
  // Every "auto or a number" key says its full path (the engine's too, which said no key at all).
  const more = 'model: ./llama/config.json\nkv_cache: { memory_gib: 0 }\nengine: { nccl_gib: -1 }\n';
  const msgs = read(more).problems.filter((p) => p.code === 'invalid-value').map((p) => p.message);
  assert.ok(msgs.some((m) => /^kv_cache\.memory_gib must be "auto" or a number of GiB above 0/.test(m)), JSON.stringify(msgs));
  assert.ok(msgs.some((m) => /^engine\.nccl_gib must be "auto" or a number of GiB from 0/.test(m)), JSON.stringify(msgs));
});

test('a length distribution written as a plain number says how to write a fixed length', () => {
  const text = 'model: ./llama/config.json\nworkload: { requests: 10, arrival_rate: 1, prompt_len: 100, output_len: { dist: fixed, value: 10 } }\n';
  const p = only(read(text).problems, 'wrong-type');
  assert.equal(at(text, p), '100');
  assert.equal(p.message, 'workload.prompt_len must be an object, not the number 100: write { dist: fixed, value: 100 } for a fixed length (or uniform, lognormal, exponential)');
});

test('workload length distributions: a bad dist names the choices', () => {
  const text = 'model: ./llama/config.json\nworkload:\n  prompt_len: { dist: lognorm, median: 5, max: 9 }\n  output_len: { min: 1, max: 2 }\n';
  const r = read(text);
  const bad = r.problems.find((p) => p.code === 'invalid-value')!;
  assert.equal(at(text, bad), 'lognorm');
  assert.match(bad.message, /did you mean "lognormal"/);
  const missing = r.problems.find((p) => p.code === 'missing-field')!;
  assert.match(missing.message, /workload\.output_len needs "dist"/);
  assert.equal(at(text, missing), 'output_len');
});

test('missing model path: error at the model value; a folder resolves to its config.json', () => {
  const text = 'model: ./nope/config.json\n';
  const r = read(text);
  assert.equal(r.value, null);
  const p = only(r.problems, 'model-not-found');
  assert.equal(at(text, p), './nope/config.json');
  assert.equal(p.file, undefined);
  const folder = read('model: ./llama\n');
  assert.equal(folder.value!.modelPath, join(DIR, 'llama/config.json'));
});

test('a model: that is a repo id, a URL or a ~ path (none read) says what AttnScope reads instead', () => {
  const advice = (model: string) => only(read(`model: ${model}\n`).problems, 'model-not-found').message;
  assert.match(advice('meta-llama/Llama-3.1-8B'), /HuggingFace repo id: AttnScope reads local files only, so download its config\.json \(huggingface-cli download meta-llama\/Llama-3\.1-8B config\.json --local-dir \.\/Llama-3\.1-8B\) and set model: \.\/Llama-3\.1-8B\/config\.json$/);
  assert.match(advice('https://huggingface.co/meta-llama/Llama-3.1-8B/resolve/main/config.json'), /URLs are not fetched/);
  assert.match(advice('~/llama/config.json'), /~ is not expanded/);
  // A relative path that reads like org/name but starts with ./ is a path, not a repo id.
  assert.match(advice('./nope/config.json'), /check the path, relative to this profile$/);
  assert.match(advice('nope/config.json'), /check the path, relative to this profile$/);
});

test('a model folder holding weights but no config.json says so (the path is right; config.json is missing), not "check the path"', () => {
  // A Llama-3.1-8B download without its config: model.safetensors.index.json's metadata.total_size
  // 16,060,522,496 B = 14.96 GiB, "15 GiB" at three significant figures as the hints write it.
  const index = JSON.stringify({ metadata: { total_size: 16_060_522_496 }, weight_map: { 'lm_head.weight': 'model-00004-of-00004.safetensors' } });
  const indexed = only(read('model: ./noconfig\n', { [join(DIR, 'noconfig/model.safetensors.index.json')]: index }).problems, 'model-not-found').message;
  assert.equal(indexed, '"./noconfig" is a model folder with weights (model.safetensors.index.json, 15 GiB) but no config.json: download the model\'s config.json into it (huggingface-cli download <repo id> config.json --local-dir ./noconfig)');
  // One safetensors file, no index; and an index without a size.
  assert.match(only(read('model: ./one\n', { [join(DIR, 'one/model.safetensors')]: '\u0008\u0000' }).problems, 'model-not-found').message, /^"\.\/one" is a model folder with weights \(model\.safetensors\) but no config\.json/);
  assert.match(only(read('model: ./bare\n', { [join(DIR, 'bare/model.safetensors.index.json')]: '{}' }).problems, 'model-not-found').message, /with weights \(model\.safetensors\.index\.json\) but no config\.json/);
  // A folder with neither: the path advice as before.
  assert.match(only(read('model: ./empty\n', {}).problems, 'model-not-found').message, /check the path, relative to this profile$/);
});

test('model: naming a profile (itself or another) or a YAML file is an error at the model value, not a JSON syntax error in that file', () => {
  const self = 'model: ./serve.attn.yaml\n';
  const r = read(self, { ...LLAMA_FILES, [PROFILE]: self });
  const p = only(r.problems, 'model-not-found');
  assert.equal(at(self, p), './serve.attn.yaml');
  assert.equal(p.message, 'model must name a HuggingFace config.json (or a folder holding one), not a profile: "./serve.attn.yaml" is this profile itself');
  assert.equal(r.problems.some((q) => /JSON syntax error/.test(q.message)), false, JSON.stringify(r.problems));
  const other = 'model: ./base.attn.json\n';
  assert.match(only(read(other, { [join(DIR, 'base.attn.json')]: '{"model": "./llama"}' }).problems, 'model-not-found').message, /not a profile: "\.\/base\.attn\.json" is a profile \(profiles do not nest\)$/);
  const yaml = 'model: ./llama.yaml\n';
  assert.match(only(read(yaml, { [join(DIR, 'llama.yaml')]: 'hidden_size: 4096\n' }).problems, 'model-not-found').message, /not a YAML file: "\.\/llama\.yaml" is YAML$/);
  // A folder without config.json: both paths tried are named.
  assert.match(only(read('model: ./empty\n').problems, 'model-not-found').message, new RegExp(`read neither ${join(DIR, 'empty')} nor ${join(DIR, 'empty/config.json')}\\)`));
});

test('the host is asked for the model file, so unsaved editor text wins', () => {
  const h = host({ [join(DIR, 'llama/config.json')]: JSON.stringify({ ...JSON.parse(fixtureText('Llama-3.1-8B')), num_key_value_heads: 4 }) });
  const r = readProfile('model: ./llama/config.json', PROFILE, h);
  assert.equal(r.value!.model.numKvHeads, 4);
  assert.deepEqual(h.reads, [join(DIR, 'llama/config.json')]);
});

test('problems inside the referenced config carry its file, and the model line says so', () => {
  const cfg = JSON.stringify({ ...JSON.parse(fixtureText('Llama-3.1-8B')), num_key_value_heads: 6 }, null, 2);
  const text = 'model: ./llama/config.json\n';
  const r = read(text, { [join(DIR, 'llama/config.json')]: cfg });
  const inner = only(r.problems, 'heads-not-divisible');
  assert.equal(inner.file, join(DIR, 'llama/config.json'));
  assert.equal(cfg.slice(inner.range.offset, inner.range.offset + inner.range.length), '6');
  const outer = only(r.problems, 'model-config-invalid');
  assert.equal(at(text, outer), './llama/config.json');
});

test('inline model mapping: HF keys read in place, problems at profile offsets', () => {
  const text = 'model:\n  hidden_size: 2048\n  num_attention_heads: 16\n  num_key_value_heads: 3\n  num_hidden_layers: 4\n  vocab_size: 1000\n  intermediate_size: 8192\n';
  const bad = read(text);
  assert.equal(at(text, only(bad.problems, 'heads-not-divisible')), '3');
  const good = read(text.replace('num_key_value_heads: 3', 'num_key_value_heads: 4'));
  assert.ok(good.value);
  assert.equal(good.value.modelPath, null);
  assert.equal(good.value.model.numKvHeads, 4);
  assert.equal(good.value.model.headDim, 128);
});

test('malformed YAML and JSON: syntax errors with positions, no value, no throw', () => {
  const yamlText = 'model: ./llama/config.json\nprefill:\n  seq_lens: [512, 1024\n';
  const y = read(yamlText);
  assert.equal(y.value, null);
  const ys = y.problems.find((p) => p.code === 'yaml-syntax')!;
  assert.ok(ys, JSON.stringify(y.problems));
  assert.equal(offsetToLineColumn(yamlText, ys.range.offset).line >= 3, true);
  const jsonText = '{\n  "model": "./llama/config.json",\n  "dtype": bf16\n}';
  const j = read(jsonText, LLAMA_FILES, join(DIR, 'serve.attn.json'));
  assert.equal(j.value, null);
  const js = j.problems.find((p) => p.code === 'json-syntax')!;
  assert.deepEqual(offsetToLineColumn(jsonText, js.range.offset), { line: 3, column: 12 });
  for (const t of ['', '---\n', '[1,2]', 'model', ': :', '{{', 'model: [\n', '\t\tx: 1', 'a: &x 1\nb: *x\n', 'model: 5']) {
    assert.doesNotThrow(() => read(t), t);
    assert.equal(read(t).value, null, t);
  }
});

test('a stray indent before the first key: one error at that key, the errors it causes counted, no token names', () => {
  // s31-newcomer-ed item 7: yaml reports 3 errors at line 2 ("Unexpected map-value-ind token in YAML stream") and none at line 1.
  const text = '   model: ./llama/config.json\ndtype: bf16\n';
  const syntax = read(text).problems.filter((p) => p.code === 'yaml-syntax');
  assert.deepEqual(syntax.map((p) => [p.message, p.range]), [
    ['the first key is indented by 3 spaces: top-level keys start at column 1 (the 3 YAML syntax errors after it come from the indent and are not listed)', { offset: 0, length: 8 }],
  ]);
  // The same whole-file indent on every line is valid YAML: no error.
  assert.deepEqual(read('   model: ./llama/config.json\n   dtype: bf16\n').problems.filter((p) => p.code === 'yaml-syntax'), []);
});

test('a duplicate key names the key and the lines of both uses, at the second; a line one column too deep names the key to align with (s46 newcomer M5)', () => {
  // Before: "Map keys must be unique" at 3:1, and "Nested mappings are not allowed in compact mappings" at 4:8 (the value above).
  const dup = 'model: ./x.json\ndtype: bf16\ndtype: fp32\n';
  assert.deepEqual(parseYamlTree(dup).problems.map((p) => [p.message, p.range]), [
    ['`dtype` is given twice (first above, in the same mapping): keep one', { offset: dup.lastIndexOf('dtype'), length: 5 }],
  ]);
  // Line 5 starts at column 4, "gpu" on line 4 at column 3: yaml reads "H100 SXM\n   tensor_parallel_size" as one key.
  const deep = 'model: ./x.json\ndtype: bf16\ndevice:\n  gpu: H100 SXM\n   tensor_parallel_size: 2\n';
  assert.deepEqual(parseYamlTree(deep).problems.map((p) => [p.message, p.range]), [
    ['`tensor_parallel_size` is indented deeper than the key above (`gpu`): align it with `gpu` (2 spaces)', { offset: deep.indexOf('tensor_parallel_size'), length: 20 }],
  ]);
  // A tab indent keeps yaml's text and says what to do.
  assert.match(parseYamlTree('a:\n\tb: 1\n').problems[0]!.message, /: indent with spaces, not tabs$/);
});

test('YAML syntax errors: worded without the parser\'s token names, the first 5 listed and the rest counted', () => {
  // A list item then 4 keys at its column: per key, yaml's "Unexpected scalar ..." at the key, its
  // "Unexpected map-value-ind token in YAML stream" and "Unexpected scalar token ..." at its value: 3 × 4 = 12 errors.
  const text = '- a\nb: 1\nc: 2\nd: 3\ne: 4\n';
  const syntax = parseYamlTree(text).problems;
  assert.equal(syntax.length, 6, JSON.stringify(syntax));
  for (const p of syntax) assert.doesNotMatch(p.message, /map-value-ind|\bscalar\b|token/, p.message);
  assert.equal(syntax[0]!.message, 'YAML syntax error: unexpected value after the end of the previous value');
  assert.equal(syntax[1]!.message, 'YAML syntax error: unexpected ":" here');
  assert.equal(syntax[5]!.message, '7 more YAML syntax errors from here on, not listed: fix the ones above first (one mistake often causes several)');
  assert.equal(yamlErrorMessage('Unexpected flow-map-end token in YAML stream'), 'unexpected "}" here');
});

// s49 newcomer-ed 11: `page_size:64` (no space after the colon) is one plain scalar to YAML, and
// the parser's words ("Implicit keys need to be on a single line") did not name the slip.
test('key:value with no space after the colon: the YAML error says to add one, at that line', () => {
  const inside = 'model: ./config.json\nkv_cache:\n  page_size:64\n  memory_gib: 4\n';
  const [first] = parseYamlTree(inside).problems;
  assert.deepEqual(first, { severity: 'error', code: 'yaml-syntax', message: 'YAML syntax error: Implicit keys need to be on a single line (add a space after the colon: "page_size: 64")', range: { offset: inside.indexOf('page_size'), length: 'page_size:64'.length } });
  const last = 'model: ./config.json\nkv_cache:\n  memory_gib: 4\n  page_size:64\n';
  assert.deepEqual(parseYamlTree(last).problems.map((p) => [p.message, p.range.offset]), [['YAML syntax error: Implicit map keys need to be followed by map values (add a space after the colon: "page_size: 64")', last.indexOf('page_size')]]);
  // A URL's colon is no slip: no hint where the only glued colon is in `http://…`.
  const url = 'a: 1\nhttp://x\nb: 2\n';
  for (const p of parseYamlTree(url).problems) assert.doesNotMatch(p.message, /add a space/, p.message);
});

test('an empty profile or one without model: missing-field for model', () => {
  assert.match(only(read('').problems, 'missing-field').message, /model/);
  const p = only(read('dtype: bf16\n').problems, 'missing-field');
  assert.match(p.message, /missing "model"/);
});

test('JSON profiles may carry $schema and comments', () => {
  const text = '{\n  // served on one GPU\n  "$schema": "../schemas/attn-profile.schema.json",\n  "model": "./llama/config.json"\n}';
  const r = read(text, LLAMA_FILES, join(DIR, 'serve.attn.json'));
  assert.ok(r.value, JSON.stringify(r.problems));
});

test('ranges: every key\'s value by dotted path; a list\'s items are not listed', () => {
  const text = 'model: ./llama/config.json\nkv_cache:\n  page_size: 32\nprefill:\n  seq_lens: [128, 256]\n';
  const p = read(text).value!;
  const slice = (k: string) => text.slice(p.ranges[k]!.offset, p.ranges[k]!.offset + p.ranges[k]!.length);
  assert.equal(slice('kv_cache.page_size'), '32');
  assert.equal(slice('prefill.seq_lens'), '[128, 256]');
  assert.equal(slice('model'), './llama/config.json');
  assert.equal(p.ranges['prefill.seq_lens.1'], undefined);
});

test('a seq_len past max_position_embeddings is warned about at that item', () => {
  // The fixture's Llama config has max_position_embeddings 131072.
  const text = 'model: ./llama/config.json\nprefill:\n  seq_lens: [128, 262144, 256]\n';
  const p = only(read(text).problems, 'exceeds-max-position');
  assert.equal(at(text, p), '262144');
});

test('semantic: tensor parallelism must divide the heads', () => {
  const text = 'model: ./llama/config.json\ndevice:\n  tensor_parallel_size: 3\n';
  const p = only(read(text).problems, 'tp-not-divisible');
  assert.equal(at(text, p), '3');
  // Llama-3.1-8B: 32 heads, 8 KV heads; every divisor of 32 either divides 8 or is divided by it.
  assert.match(p.message, /\(tensor_parallel_size values that split this model evenly: 1, 2, 4, 8, 16, 32\)$/);
  assert.ok(read('model: ./llama/config.json\ndevice:\n  tensor_parallel_size: 4\n').value);
});

test('semantic: tensor parallelism must keep the quantized weights\' groups and fp8 blocks whole, as vLLM checks them (s38 newcomer finding 2)', () => {
  // Qwen/Qwen2-72B-Instruct-AWQ's config.json (shapes and quantization_config as published).
  const q72 = (intermediate: number, qc: object) => ({
    [join(DIR, 'q72/config.json')]: JSON.stringify({
      architectures: ['Qwen2ForCausalLM'], hidden_size: 8192, intermediate_size: intermediate, max_position_embeddings: 32768, model_type: 'qwen2',
      num_attention_heads: 64, num_hidden_layers: 80, num_key_value_heads: 8, rms_norm_eps: 1e-6, rope_theta: 1e6, tie_word_embeddings: false,
      torch_dtype: 'float16', vocab_size: 152064, quantization_config: qc,
    }),
  });
  const awq = { bits: 4, group_size: 128, modules_to_not_convert: null, quant_method: 'awq', version: 'gemm', zero_point: true };
  const profile = (tp: number, model = 'q72') => `model: ./${model}/config.json\ndevice:\n  tensor_parallel_size: ${tp}\n`;
  // By hand: 29,568 = 128 · 231 and 231 is odd, so down_proj's input per GPU (RowParallelLinear:
  // 29,568 / tp) is 14,784 = 128 · 115.5 at tp 2, 7,392 at 4, 3,696 at 8: never whole groups. vLLM
  // awq.py AWQLinearMethod.create_weights: input_size_per_partition % group_size != 0 -> "The input size
  // is not aligned with the quantized weight shape. This can be caused by too large tensor parallel size."
  // (vllm-project/vllm#13640; QwenLM padded Qwen2.5-72B's MLP to 29,696 for it). Heads 64 / KV 8 fit every
  // tp up to 8, so only the quantization refuses.
  for (const [tp, perGpu] of [[2, '14,784'], [4, '7,392'], [8, '3,696']] as const) {
    const text = profile(tp);
    const p = only(read(text, q72(29568, awq)).problems, 'tp-not-divisible');
    assert.equal(p.severity, 'error');
    assert.equal(at(text, p), String(tp));
    assert.equal(p.message, `tensor_parallel_size ${tp} does not fit the quantized weights: down_proj's input per GPU is intermediate_size 29,568 / ${tp} = ${perGpu}, not a multiple of the AWQ group_size 128: vLLM awq.py refuses it ("The input size is not aligned with the quantized weight shape. This can be caused by too large tensor parallel size.") (tensor_parallel_size values that split this model evenly: 1)`);
    assert.deepEqual(p.data?.fits, [1]);
  }
  // The same model unquantized fits tp 8 (the check is the quantization's), and so does Qwen2.5-72B-AWQ's
  // padded 29,696 = 128 · 232 (29,696 / 8 = 3,712 = 128 · 29).
  assert.ok(read(profile(8), q72(29568, { quant_method: 'bitnet' })).value);
  assert.ok(read(profile(8), q72(29696, awq)).value);
  // GPTQ: gptq.py create_weights, the same test and message; group_size -1 is input % -1 == 0 in Python: accepted.
  const gptq = { quant_method: 'gptq', bits: 4, group_size: 128, desc_act: false, sym: true };
  assert.match(only(read(profile(4), q72(29568, gptq)).problems, 'tp-not-divisible').message, /not a multiple of the GPTQ group_size 128: vLLM gptq\.py refuses it/);
  assert.ok(read(profile(8), q72(29568, { ...gptq, group_size: -1 })).value);
  // Qwen/Qwen3-30B-A3B-FP8: moe_intermediate_size 768, weight_block_size [128, 128]. FusedMoE shards
  // each expert's 768 over tp: 384 = 3 · 128 at tp 2; 192 at tp 4 and 96 at tp 8 are not multiples of
  // block_n 128. vLLM fp8.py Fp8MoEMethod.create_weights: "The output_size of gate's and up's weight =
  // 192 is not divisible by weight quantization block_n = 128." (vllm-project/vllm#25292, "crashes with TP=4").
  // Attention (32 heads, 4 KV heads, head_dim 128) fits tp 4.
  const q30 = JSON.parse(fixtureText('Qwen3-30B-A3B')) as Record<string, unknown>;
  const fp8 = { [join(DIR, 'q30/config.json')]: JSON.stringify({ ...q30, quantization_config: { activation_scheme: 'dynamic', fmt: 'e4m3', quant_method: 'fp8', weight_block_size: [128, 128] } }) };
  const t4 = profile(4, 'q30');
  const e4 = only(read(t4, fp8).problems, 'tp-not-divisible');
  assert.equal(at(t4, e4), '4');
  assert.match(e4.message, /^tensor_parallel_size 4 does not fit the quantized weights: the experts' gate and up output per GPU is moe_intermediate_size 768 \/ 4 = 192, not a multiple of weight_block_size's block_n 128: vLLM fp8\.py refuses it \("The output_size of gate's and up's weight = 192 is not divisible by weight quantization block_n = 128\."\) \(tensor_parallel_size values that split this model evenly: 1, 2\)$/);
  assert.match(only(read(profile(8, 'q30'), fp8).problems, 'tp-not-divisible').message, /= 96 is not divisible/);
  assert.ok(read(profile(2, 'q30'), fp8).value);
  assert.ok(read(t4, { [join(DIR, 'q30/config.json')]: JSON.stringify(q30) }).value);
});

test('semantic: unusual page size, budget conflict, lengths past the model context', () => {
  const text = [
    'model: ./llama/config.json',
    'kv_cache: { page_size: 24, num_pages: 100, memory_gib: 4 }',
    'prefill: { seq_lens: [512, 200000] }',
    'decode: { context_lens: [140000] }',
  ].join('\n');
  const r = read(text);
  assert.equal(at(text, only(r.problems, 'page-size-unusual')), '24');
  assert.equal(at(text, only(r.problems, 'kv-budget-conflict')), '4');
  const past = r.problems.filter((p) => p.code === 'exceeds-max-position').map((p) => at(text, p));
  assert.deepEqual(past, ['200000', '140000']);
  assert.ok(r.value);
});

test('semantic: workload min > max, and requests longer than max_model_len', () => {
  const text = 'model: ./llama/config.json\nworkload:\n  prompt_len: { dist: uniform, min: 900, max: 100 }\n  output_len: { dist: fixed, value: 9000 }\n  max_model_len: 8192\n';
  const r = read(text);
  const minMax = r.problems.find((p) => p.code === 'invalid-value')!;
  assert.equal(at(text, minMax), '900');
  assert.equal(at(text, only(r.problems, 'exceeds-max-model-len')), '8192');
  assert.equal(r.value, null);
});

test('exceeds-max-model-len only about what the user wrote: not on defaults alone', () => {
  // GPT-2: n_positions 1024, so max_model_len defaults to 1024 while the default prompt_len
  // (lognormal, max 4096) and output_len (uniform, max 512) reach 4608. None of it written: quiet.
  const files = { [join(DIR, 'gpt2/config.json')]: fixtureText('gpt2') };
  const quiet = read('model: ./gpt2/config.json\nworkload: { requests: 10 }\n', files);
  assert.equal(quiet.problems.filter((p) => p.code === 'exceeds-max-model-len').length, 0);
  assert.equal(quiet.value!.workload!.maxModelLen, 1024);
  // The user writes a prompt length: the warning is theirs, at what they wrote (4096 + 512 default output max).
  const text = 'model: ./gpt2/config.json\nworkload:\n  prompt_len: { dist: uniform, min: 10, max: 4096 }\n';
  const said = read(text, files);
  const p = only(said.problems, 'exceeds-max-model-len');
  // What the user did not write is named as a default: max_model_len (GPT-2's n_positions) and output_len.
  assert.equal(p.message, "prompt_len max 4096 reaches max_model_len 1024 (not written: vLLM's default, n_positions 1,024): such prompts are rejected, and shorter ones whose prompt + output (max 4608; output_len defaults to uniform 32 to 512) exceeds it have their output clipped");
  assert.equal(at(text, p), '{ dist: uniform, min: 10, max: 4096 }');
  // The warning says what happens: every prompt (uniform from 100) reaches max_model_len 50 -> all rejected;
  // prompts of at most 100 + outputs of at most 512 under max_model_len 1024 -> only clipped.
  const all = only(read('model: ./gpt2/config.json\nworkload:\n  prompt_len: { dist: uniform, min: 100, max: 200 }\n  max_model_len: 50\n', files).problems, 'exceeds-max-model-len');
  assert.equal(all.message, 'every prompt (prompt_len min 100) reaches max_model_len 50: all requests are rejected');
  const clip = only(read('model: ./gpt2/config.json\nworkload:\n  prompt_len: { dist: fixed, value: 600 }\n', files).problems, 'exceeds-max-model-len');
  assert.equal(clip.message, "prompt_len max 600 + output_len max 512 (not written: output_len defaults to uniform 32 to 512) = 1112 exceeds max_model_len 1024 (not written: vLLM's default, n_positions 1,024): such requests have their output clipped at max_model_len");
  // Written, a length is not called a default, nor rewritten: the fix is max_model_len's alone (300 + 400 = 700, under GPT-2's 1,024).
  const mine = only(read('model: ./gpt2/config.json\nworkload:\n  prompt_len: { dist: fixed, value: 300 }\n  output_len: { dist: fixed, value: 400 }\n  max_model_len: 512\n', files).problems, 'exceeds-max-model-len');
  assert.equal(mine.message, 'prompt_len max 300 + output_len max 400 = 700 exceeds max_model_len 512: such requests have their output clipped at max_model_len');
  assert.deepEqual(mine.data, { limit: 512, maxModelLenNeeded: 700 });
});

test('semantic: decode cases on an encoder', () => {
  const files = { [join(DIR, 'bert/config.json')]: fixtureText('bert-base-uncased') };
  const text = 'model: ./bert/config.json\ndecode: { batch_sizes: [1] }\n';
  const r = read(text, files);
  assert.equal(at(text, only(r.problems, 'encoder-decode')), 'decode');
});

test('workload defaults fill the missing keys; max_model_len is vLLM\'s default for the model', () => {
  const files = { [join(DIR, 'gpt2/config.json')]: fixtureText('gpt2') };
  const w = read('model: ./gpt2/config.json\nworkload:\n  requests: 10\n  prompt_len: { dist: uniform, min: 10, max: 100 }\n  output_len: { dist: fixed, value: 20 }\n', files).value!.workload!;
  assert.equal(w.requests, 10);
  assert.equal(w.maxModelLen, 1024); // GPT-2 n_positions, vLLM's second length key (no rope_scaling)
  assert.equal(w.arrivalRate, PROFILE_DEFAULTS.workload.arrivalRate);
  assert.deepEqual(w.outputLen, { dist: 'fixed', value: 20 });
});

/** The schema's `default` annotations (completion shows them) must say what the reader fills in. */
test('schema defaults match PROFILE_DEFAULTS', () => {
  const props = schema.properties;
  const d = PROFILE_DEFAULTS;
  assert.equal(props.device.properties.backend.default, d.device.backend);
  assert.deepEqual(props.device.properties.backend.enum, [...BACKENDS], 'the schema offers the backends core knows');
  assert.equal(props.device.properties.memory_gib.default, d.device.memoryGib);
  assert.equal(props.device.properties.gpu_memory_utilization.default, d.device.gpuMemoryUtilization);
  assert.equal(props.device.properties.tensor_parallel_size.default, d.device.tensorParallelSize);
  assert.equal(props.kv_cache.properties.page_size.default, d.kvCache.pageSize);
  assert.equal(props.kv_cache.properties.dtype.default, d.kvCache.dtype);
  assert.equal(props.kv_cache.properties.num_pages.default, d.kvCache.numPages);
  assert.equal(props.kv_cache.properties.memory_gib.default, d.kvCache.memoryGib);
  assert.equal(props.prefill.properties.batch_size.default, d.prefill.batchSize);
  assert.deepEqual(props.prefill.properties.seq_lens.default, d.prefill.seqLens);
  assert.equal(props.prefill.properties.causal.default, d.prefill.causal);
  assert.deepEqual(props.decode.properties.batch_sizes.default, d.decode.batchSizes);
  assert.deepEqual(props.decode.properties.context_lens.default, d.decode.contextLens);
  assert.equal(props.workload.properties.requests.default, d.workload.requests);
  assert.equal(props.workload.properties.arrival_rate.default, d.workload.arrivalRate);
  // max_num_seqs neither (vLLM's arg_utils.py get_batch_defaults: 1024 on >= 70 GiB but not an A100, else 256).
  assert.equal('default' in props.workload.properties.max_num_seqs, false);
  assert.equal('maxNumSeqs' in d.workload, false);
  assert.match(props.workload.properties.max_num_seqs.description, /1024 on a GPU of 70 GiB or more that is not an A100 .*256 otherwise/);
  // max_model_len neither: vLLM's default derives from the model's config (core/estimate vllmMaxModelLen), and the schema says so.
  assert.equal('default' in props.workload.properties.max_model_len, false);
  assert.equal('maxModelLen' in d.workload, false);
  assert.match(props.workload.properties.max_model_len.description, /Default: vLLM's, what `vllm serve` without --max-model-len derives from the model's config/);
  // max_num_batched_tokens has no one default: vLLM's depends on the device (defaultMaxNumBatchedTokens), and the schema says so.
  assert.equal('default' in props.workload.properties.max_num_batched_tokens, false);
  assert.equal('maxNumBatchedTokens' in d.workload, false);
  assert.match(props.workload.properties.max_num_batched_tokens.description, /8192 on a GPU of 70 GiB or more .*2048 below/);
  assert.equal(props.workload.properties.seed.default, d.workload.seed);
  for (const [key, field] of [['non_torch_gib', 'nonTorchGib'], ['nccl_gib', 'ncclGib'], ['cuda_graph_gib', 'cudaGraphGib'], ['activation_gib', 'activationGib']] as const) {
    assert.equal(props.engine.properties[key].default, d.engine[field], key);
  }
  // device.gpu offers exactly the GPU table's names.
  assert.deepEqual(props.device.properties.gpu.anyOf[0].enum, GPUS.map((g) => g.name));
});

test('engine and device.gpu are read; a GPU name off the table is refused with the nearest name', () => {
  const r = read('model: ./llama/config.json\ndevice: { gpu: A100 80GB, tensor_parallel_size: 1 }\nengine: { vllm_version: "0.2.5", nccl_gib: 2, cuda_graph_gib: 0.5 }\n');
  assert.ok(r.value, JSON.stringify(r.problems));
  assert.equal(r.value.device.gpu, 'A100 80GB');
  assert.deepEqual(r.value.engine, { vllmVersion: '0.2.5', nonTorchGib: 'auto', ncclGib: 2, cudaGraphGib: 0.5, activationGib: 'auto' });
  const bad = read('model: ./llama/config.json\ndevice: { gpu: A100 80G }\n');
  const p = only(bad.problems, 'invalid-value');
  assert.match(p.message, /did you mean "A100 80GB"/);
  const neg = read('model: ./llama/config.json\nengine: { non_torch_gib: -1 }\n');
  assert.equal(neg.value, null);
});

test('every schema property has a description (hover and completion show them)', () => {
  const missing: string[] = [];
  const walk = (node: Record<string, unknown>, path: string) => {
    const props = node.properties as Record<string, Record<string, unknown>> | undefined;
    for (const [k, v] of Object.entries(props ?? {})) {
      if (typeof v.description !== 'string' || v.description.length < 8) missing.push(`${path}${k}`);
      walk(v, `${path}${k}.`);
    }
    for (const branch of (node.oneOf as Array<Record<string, unknown>> | undefined) ?? []) walk(branch, path);
  };
  walk(schema as unknown as Record<string, unknown>, '');
  walk(schema.definitions.lengthDist as unknown as Record<string, unknown>, 'lengthDist.');
  assert.deepEqual(missing, []);
});

test('the shipped examples read cleanly and estimate', () => {
  const examples = resolve(import.meta.dirname, '../../examples');
  const fsHost: ProfileHost = {
    readFile(p) {
      try {
        return readFileSync(p, 'utf8');
      } catch {
        return null;
      }
    },
  };
  const names = readdirSync(examples).filter((f) => isProfilePath(f));
  assert.ok(names.includes('llama-3.1-8b.attn.yaml'));
  assert.ok(names.some((n) => n.endsWith('.attn.json')));
  for (const name of names) {
    const file = join(examples, name);
    const r = readProfile(readFileSync(file, 'utf8'), file, fsHost);
    assert.deepEqual(r.problems, [], name);
    assert.ok(r.value, name);
    const e = estimate(r.value);
    assert.ok(e.pool.pages > 0, name);
    assert.deepEqual(checkProfile(r.value, e), [], name);
  }
  const llama = readProfile(readFileSync(join(examples, 'llama-3.1-8b.attn.yaml'), 'utf8'), join(examples, 'llama-3.1-8b.attn.yaml'), fsHost).value!;
  assert.equal(estimate(llama).kvBytesPerToken, 131_072);
});

test('the flagship example is one device, an H100 SXM: its CUDA memory sizes the pool, its peaks the step times, and README prints that pool', () => {
  // s28 newcomer finding 5: memory_gib 80 sized the pool while the step times were an H100's (79.22 GiB as CUDA reports it).
  // By hand: floor(79.22 · 2^30) = 85,061,827,297 B; · 0.9 -> 76,555,644,567 usable; weights 8,030,261,248 · 2 =
  // 16,060,522,496; non-torch round(0.1 GiB) = 107,374,182; activation 905,969,664 (864 MiB, activationPeakBytes at
  // max_num_batched_tokens 8192); budget 59,481,778,225 B / 2 MiB pages = 28,363.2 -> 28,363 pages;
  // max concurrency 28,363 / ceil(8,192 / 16) = 28,363 / 512 = 55.396 -> "55.40x". (At memory_gib 80: 28,722 and 56.10x.)
  const examples = resolve(import.meta.dirname, '../../examples');
  const file = join(examples, 'llama-3.1-8b.attn.yaml');
  const host: ProfileHost = { readFile: (p) => { try { return readFileSync(p, 'utf8'); } catch { return null; } } };
  const p = readProfile(readFileSync(file, 'utf8'), file, host).value!;
  assert.equal(p.device.gpu, 'H100 SXM');
  assert.equal(p.device.memoryGib, null);
  const e = estimate(p);
  assert.equal(e.pool.usableBytes, 76_555_644_567);
  assert.equal(e.pool.reserve.find((t) => t.key === 'activation')!.bytes, 905_969_664);
  assert.equal(e.pool.budgetBytes, 76_555_644_567 - 16_060_522_496 - 905_969_664 - 107_374_182);
  assert.equal(e.pool.pages, 28_363);
  assert.equal(e.pool.maxConcurrency.toFixed(2), '55.40');
  const readme = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');
  assert.match(readme, /\n16 +64 +0\.8% +0\.0% +0 +28,363 /);
  assert.match(readme, /\n16 +0\.8% +0\.0% +0 +28,363 /);
  // The max_model_len hint counts the whole sequences (floor 55.396 = 55); its tooltip quotes vLLM's 55.40x.
  assert.match(readme, /`1 GiB reserved\/seq · 55 seqs fit`/);
  assert.match(readme, /"Maximum concurrency for 8,192 tokens per request: 55\.40x"/);
  assert.doesNotMatch(readme, /28,722 |56\.10x/);
});

test('profileFromModelConfig: the defaults around a bare config', () => {
  const p = profileFromModelConfig(loadModel('gemma-2-9b'), '/m/config.json');
  assert.equal(p.dtype, 'bf16');
  assert.equal(p.modelPath, '/m/config.json');
  assert.equal(p.kvCache.pageSize, 16);
  // Defaults are copies: changing one profile leaves the next alone.
  p.prefill.seqLens.push(99);
  assert.deepEqual(profileFromModelConfig(loadModel('gpt2'), null).prefill.seqLens, [512, 1024]);
});

test('closestMatch: typos and prefixes, nothing for unrelated words', () => {
  assert.equal(closestMatch('pagesize', ['page_size', 'dtype']), 'page_size');
  assert.equal(closestMatch('fp8', ['auto', 'fp32', 'fp16', 'bf16', 'fp8_e4m3']), 'fp8_e4m3');
  assert.equal(closestMatch('memory', ['backend', 'memory_gib']), 'memory_gib');
  assert.equal(closestMatch('qqqqqq', ['backend', 'memory_gib']), undefined);
  // Two of three letters replaced is no typo: "foo" is not "slo", "fp8" not "fp32".
  assert.equal(closestMatch('foo', ['slo', 'dtype', 'model']), undefined);
  assert.equal(closestMatch('fp8', ['fp32', 'fp16', 'bf16']), undefined);
  assert.equal(closestMatch('bf17', ['fp32', 'fp16', 'bf16']), 'bf16');
  const fp8 = 'model: ./llama/config.json\ndtype: fp8\n';
  // s47 newcomer-ed F1: the message said "the weights' dtype is one of these" while the estimate
  // counts an fp8 checkpoint's weights (DeepSeek-V3's quantization_config) as fp8 with dtype bf16.
  const f8 = only(read(fp8).problems, 'invalid-value');
  assert.equal(f8.message, 'dtype must be one of fp32, fp16, bf16, not the string "fp8": dtype is vLLM\'s --dtype, the activations\' (compute) dtype; fp8 weights come from the checkpoint\'s quantization_config, which the estimate reads, and an fp8 KV cache from kv_cache.dtype: fp8');
  assert.equal(f8.data?.['suggestion'], 'bf16');
  assert.equal(f8.data?.['kvCacheDtype'], 'fp8');
});

test('validateProfileText: a bare config.json gets the default profile; a profile is read as one', () => {
  const gemmaPath = join(DIR, 'gemma/config.json');
  const g = validateProfileText(fixtureText('gemma-2-9b'), gemmaPath, host({}));
  assert.equal(g.profile!.modelPath, gemmaPath);
  assert.equal(g.profile!.dtype, 'bf16');
  const note = only(g.problems, 'dtype-assumed');
  assert.equal(note.file, gemmaPath);
  assert.equal(fixtureText('gemma-2-9b').slice(note.range.offset, note.range.offset + note.range.length), '"float32"');
  assert.equal(validateProfileText('model: ./llama/config.json', PROFILE, host(LLAMA_FILES)).profile!.modelPath, join(DIR, 'llama/config.json'));
  const bad = validateProfileText('{"model_type": "llama"', join(DIR, 'config.json'), host({}));
  assert.equal(bad.profile, null);
  assert.equal(bad.problems[0]!.file, join(DIR, 'config.json'));
});

test('formatProblem positions a problem of the referenced config in that file', () => {
  const cfgPath = join(DIR, 'llama/config.json');
  const cfg = '{\n  "model_type": "llama",\n  "hidden_size": 4096,\n  "num_attention_heads": 32,\n  "num_key_value_heads": 6,\n  "num_hidden_layers": 2,\n  "vocab_size": 10\n}';
  const files = { [cfgPath]: cfg };
  const text = 'model: ./llama/config.json\n';
  const r = read(text, files);
  const inner = only(r.problems, 'heads-not-divisible');
  assert.match(formatProblem(PROFILE, text, inner, host(files)), new RegExp(`^${cfgPath}:5:26: error: `));
  const outer = only(r.problems, 'model-config-invalid');
  assert.match(formatProblem(PROFILE, text, outer, host(files)), new RegExp(`^${PROFILE}:1:8: error: `));
});

test('an inline model without model_type reads as an untied Llama-style decoder', () => {
  const m = read('model: { hidden_size: 64, num_attention_heads: 4, num_hidden_layers: 2, vocab_size: 100, intermediate_size: 128 }').value!.model;
  assert.equal(m.tieWordEmbeddings, false);
  assert.equal(m.gatedMlp, true);
  assert.equal(m.norm, 'rmsnorm');
});

test('never throws on any prefix of a real profile or config (what an editor sees while typing)', () => {
  const examples = resolve(import.meta.dirname, '../../examples');
  const files = { ...LLAMA_FILES };
  for (const name of ['llama-3.1-8b.attn.yaml', 'qwen3-30b-a3b.attn.json']) {
    const full = readFileSync(join(examples, name), 'utf8').replace(/\.\/[a-z0-9.-]+\/config\.json/, './llama/config.json');
    for (let i = 0; i <= full.length; i += 3) {
      const r = read(full.slice(0, i), files, join(DIR, name));
      for (const p of r.problems) assert.ok(p.range.offset >= 0 && p.range.offset + p.range.length <= Math.max(i, (p.file ? Infinity : i)), `${name}[0..${i}) ${p.code}`);
    }
  }
  const cfg = fixtureText('gpt-oss-20b');
  for (let i = 0; i <= cfg.length; i += 7) {
    const r = validateProfileText(cfg.slice(0, i), join(DIR, 'config.json'), host({}));
    if (i < cfg.length - 2) assert.equal(r.profile, null);
  }
});

test('default cases fit the model: lengths within its context; an encoder gets no decode and no causal mask', () => {
  const gpt2 = profileFromModelConfig(loadModel('gpt2'), null);
  assert.deepEqual(gpt2.decode.contextLens, [1024]); // 4096 > n_positions 1024
  const bert = profileFromModelConfig(loadModel('bert-base-uncased'), null);
  assert.deepEqual(bert.prefill.seqLens, [512]);
  assert.equal(bert.prefill.causal, false);
  assert.deepEqual(bert.decode, { batchSizes: [], contextLens: [] });
  const files = { [join(DIR, 'gpt2/config.json')]: fixtureText('gpt2') };
  const r = read('model: ./gpt2/config.json\n', files);
  assert.deepEqual(r.value!.decode.contextLens, [1024]);
  assert.equal(r.problems.filter((p) => p.code === 'exceeds-max-position').length, 0);
});

test("kv_cache.dtype fp8, vLLM's alias of fp8_e4m3 (CacheConfig.cache_dtype: \"fp8 (=fp8_e4m3)\"), reads as fp8_e4m3", () => {
  const r = read('model: ./llama/config.json\nkv_cache: { dtype: fp8 }\n');
  assert.deepEqual(r.problems.filter((p) => p.severity === 'error'), []);
  assert.equal(r.value!.kvCache.dtype, 'fp8_e4m3');
});

test('dtype synonyms suggest the profile name: bfloat16 -> bf16, float8_e4m3fn -> fp8_e4m3', () => {
  const text = 'model: ./llama/config.json\ndtype: bfloat16\nkv_cache: { dtype: float8_e4m3fn }\n';
  const msgs = read(text).problems.filter((p) => p.code === 'invalid-value').map((p) => p.data?.suggestion);
  assert.deepEqual(msgs, ['bf16', 'fp8_e4m3']);
});

test('inline model: one message per problem (the model reader speaks, not the schema too)', () => {
  const text = 'model:\n  hidden_size: "2048"\n  num_attention_heads: 16\n  num_hidden_layers: 4\n  vocab_size: 1000\n';
  const r = read(text);
  const p = only(r.problems, 'wrong-type');
  assert.equal(at(text, p), '"2048"');
  assert.match(p.message, /"hidden_size" must be a number/);
});

test('a second YAML document is ignored with a warning; an empty model path is model-not-found', () => {
  const text = 'model: ./llama/config.json\n---\ndtype: fp32\n';
  const r = read(text);
  assert.equal(at(text, only(r.problems, 'yaml-multiple-documents')), '---');
  assert.equal(r.value!.dtype, 'bf16');
  const empty = 'model: ""\n';
  assert.equal(at(empty, only(read(empty).problems, 'model-not-found')), '""');
});

test('semantic: max_model_len past the length vLLM derives from the config is an error; rope_scaling can lengthen it', () => {
  // vllm/config/model.py _get_and_verify_max_len: max_position_embeddings, then rope_scaling: "yarn"
  // takes original_max_position_embeddings × factor, other types (but su / longrope / llama3) × factor.
  const withConfig = (config: string, len: number) => {
    const text = `model: ./m/config.json\nworkload:\n  requests: 10\n  arrival_rate: 1\n  max_model_len: ${len}\n`;
    return { text, r: read(text, { [join(DIR, 'm/config.json')]: config }) };
  };
  // gpt-oss-120b: yarn, 4,096 × 32 = 131,072 (= its max_position_embeddings).
  const oss = fixtureText('gpt-oss-120b');
  const long = withConfig(oss, 1_000_000);
  const e = only(long.r.problems, 'exceeds-max-position');
  assert.equal(e.severity, 'error');
  assert.equal(at(long.text, e), '1000000');
  assert.equal(e.data?.['limit'], 131_072);
  assert.match(e.message, /original_max_position_embeddings 4,096 × factor 32 = 131,072\).*VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.*at most 131,072/);
  assert.deepEqual(withConfig(oss, 131_072).r.problems.filter((p) => p.code === 'exceeds-max-position'), []);
  // Qwen3-8B (max_position_embeddings 40,960, rope_scaling null): 40,961 is refused; with its
  // card's YaRN setting {rope_type yarn, factor 4, original 32,768} vLLM derives 131,072.
  const qwen = fixtureText('Qwen3-8B');
  assert.equal(only(withConfig(qwen, 40_961).r.problems, 'exceeds-max-position').data?.['limit'], 40_960);
  const yarn = qwen.replace(/"rope_scaling": null/, '"rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}');
  assert.notEqual(yarn, qwen);
  assert.deepEqual(withConfig(yarn, 131_072).r.problems.filter((p) => p.code === 'exceeds-max-position'), []);
  assert.equal(only(withConfig(yarn, 131_073).r.problems, 'exceeds-max-position').data?.['limit'], 131_072);
  // Llama-3.1-8B: rope_type llama3 does not scale the length: 131,072 stays the limit.
  assert.equal(only(read('model: ./llama/config.json\nworkload:\n  max_model_len: 200000\n').problems, 'exceeds-max-position').data?.['limit'], 131_072);
});

test('schema messages say what to write: fp8_e5m2 accepted (1 byte), num_pages names its upper limit, an unquoted 0.10 is told to be quoted, no raw ajv wording', () => {
  // vLLM's --kv-cache-dtype takes fp8_e5m2 (vllm/config/cache.py CacheDType: auto, fp8, fp8_e4m3, fp8_e5m2, ...): 1 byte per element.
  const e5m2 = read('model: ./llama/config.json\nkv_cache: { dtype: fp8_e5m2 }\n');
  assert.equal(e5m2.value?.kvCache.dtype, 'fp8_e5m2', JSON.stringify(e5m2.problems));
  // Llama-3.1-8B: 32 layers × 8 KV heads × 128 head_dim × 2 (K and V) × 1 byte = 65,536.
  assert.equal(estimate(e5m2.value!).kvBytesPerToken, 65_536);
  const cases: Array<[string, string, string]> = [
    // Schema maximum 2,147,483,647 (2^31 − 1); the message stated only "at least 1".
    ['kv_cache: { num_pages: 100000000000 }', '100000000000', 'kv_cache.num_pages must be "auto" or a whole number of pages from 1 to 2,147,483,647 (2^31 − 1: vLLM\'s block table holds int32 ids), not the number 100,000,000,000'],
    // YAML reads 0.10 as 0.1: the text as written (its range is 4 characters long) is what to quote.
    ['engine: { vllm_version: 0.10 }', '0.10', 'engine.vllm_version must be a vLLM release as a quoted string, such as "0.10", "0.8.5" or "v0.6.3", not the number 0.1: write it quoted, "0.10" (YAML reads an unquoted 0.10 as the number 0.1)'],
    ['engine: { vllm_version: 0.9 }', '0.9', 'engine.vllm_version must be a vLLM release as a quoted string, such as "0.10", "0.8.5" or "v0.6.3", not the number 0.9: write it quoted, "0.9" (YAML reads an unquoted 0.9 as a number)'],
    // Was: must match pattern "^v?[0-9]+\.[0-9]+(\.[0-9]+)?"
    ['engine: { vllm_version: "x0.10" }', '"x0.10"', 'engine.vllm_version must be a vLLM release as a quoted string, such as "0.10", "0.8.5" or "v0.6.3", not the string "x0.10"'],
    // Was: sweep.axes must NOT have fewer than 1 properties
    ['sweep: { axes: {} }', '{}', 'sweep.axes needs at least one axis: a profile key with its values, e.g. `kv_cache.page_size: [8, 16, 32]`'],
  ];
  for (const [line, value, message] of cases) {
    const text = `model: ./llama/config.json\n${line}\n`;
    const errors = read(text).problems.filter((p) => p.severity === 'error');
    assert.equal(errors.length, 1, `${line}: ${JSON.stringify(errors.map((p) => p.message))}`);
    assert.equal(errors[0]!.message, message);
    // Placed at the value as written.
    assert.equal(at(text, errors[0]!), value, line);
  }
});

test('max_num_batched_tokens below max_num_seqs is an error at the written key, as vLLM refuses to start; defaults alone never are', () => {
  // The newcomer's case: both written, 100 tokens for 300 sequences (vLLM's SchedulerConfig:
  // "max_num_batched_tokens (100) must be greater than or equal to max_num_seqs (300)").
  const text = 'model: ./llama/config.json\ndevice: { gpu: A100 80GB }\nworkload: { max_num_seqs: 300, max_num_batched_tokens: 100 }\n';
  const r = read(text);
  const p = only(r.problems, 'batch-limits-conflict');
  assert.equal(p.severity, 'error');
  assert.equal(at(text, p), '100');
  assert.equal(p.message, 'max_num_batched_tokens 100 is less than max_num_seqs 300: vLLM refuses to start, with chunked prefill on or off ("max_num_batched_tokens (100) must be greater than or equal to max_num_seqs (300)", SchedulerConfig); raise max_num_batched_tokens to at least 300 or lower max_num_seqs to at most 100');
  assert.equal(r.value, null);
  // Equal is fine (vLLM's check is >=).
  assert.equal(read('model: ./llama/config.json\nworkload: { max_num_seqs: 300, max_num_batched_tokens: 300 }\n').problems.filter((q) => q.code === 'batch-limits-conflict').length, 0);
  // max_num_seqs written, max_num_batched_tokens defaulted: an A100's default is 2048 tokens
  // (get_batch_defaults), and vLLM does not raise a default to a written max_num_seqs.
  const seqsOnly = 'model: ./llama/config.json\ndevice: { gpu: A100 80GB }\nworkload: { max_num_seqs: 4096 }\n';
  const q = only(read(seqsOnly).problems, 'batch-limits-conflict');
  assert.equal(at(seqsOnly, q), '4096');
  assert.match(q.message, /^max_num_batched_tokens 2048 \(vLLM's default on an A100\) is less than max_num_seqs 4096: /);
  // Only max_num_batched_tokens written: vLLM caps the defaulted max_num_seqs at it (min(256, 100)): no error.
  const tokensOnly = read('model: ./llama/config.json\ndevice: { gpu: A100 80GB }\nworkload: { max_num_batched_tokens: 100 }\n');
  assert.equal(tokensOnly.problems.filter((x) => x.code === 'batch-limits-conflict').length, 0);
  assert.ok(tokensOnly.value);
});

test('YAML merge keys (<<: *a) are honoured as PyYAML (vLLM --config) reads them; a merged value\'s problem lands where it is written', () => {
  // s33 newcomer CLI finding 3: `<<` was an unknown key and device.gpu was lost.
  const text = 'model: ./llama/config.json\nbase: &dev { gpu: H100 SXM, gpu_memory_utilization: 0.8 }\ndevice:\n  <<: *dev\n  gpu_memory_utilization: 0.5\n';
  const r = read(text);
  assert.ok(r.value);
  assert.equal(r.value.device.gpu, 'H100 SXM');
  // A key written in the mapping wins over the merged one (PyYAML flatten_mapping).
  assert.equal(r.value.device.gpuMemoryUtilization, 0.5);
  assert.deepEqual(r.problems.filter((p) => p.code === 'unknown-key').map((p) => text.slice(p.range.offset, p.range.offset + p.range.length)), ['base']);
  // A wrong merged value: the error at the value inside the anchored mapping, not at `<<` or `*dev`.
  const bad = text.replace('gpu: H100 SXM', 'gpu: H100 SXMX');
  const e = only(read(bad).problems, 'invalid-value');
  assert.deepEqual(e.range, { offset: bad.indexOf('H100 SXMX'), length: 'H100 SXMX'.length });
  // PyYAML's orders, checked with PyYAML 6.0.3: an earlier mapping of a list wins over a later one,
  // a later `<<` over an earlier one; a scalar merged is an error at it (PyYAML: "expected a mapping
  // or list of mappings for merging").
  const plain = (t: string) => toPlain(parseYamlTree(t).root!);
  assert.deepEqual(plain('b: {<<: [{x: 1}, {x: 2, y: 3}]}'), { b: { x: 1, y: 3 } });
  assert.deepEqual(plain('a: &a {x: 1}\nb:\n  <<: *a\n  <<: {x: 3}\n'), { a: { x: 1 }, b: { x: 3 } });
  const scalar = parseYamlTree('b:\n  <<: 5\n');
  assert.deepEqual(scalar.problems.map((p) => [p.code, p.range]), [['yaml-merge', { offset: 9, length: 1 }]]);
  // A quoted "<<" is a plain key, as in PyYAML.
  assert.deepEqual(plain('b: {"<<": 1}'), { b: { '<<': 1 } });
});

test('kv_cache.kv_cache_memory_bytes (vLLM --kv-cache-memory-bytes) is the KV budget in bytes: gpu_memory_utilization ignored; with memory_gib an error', () => {
  // vLLM v1/worker/gpu_worker.py Worker.determine_available_memory: with kv_cache_memory_bytes set
  // it returns that figure as the budget (no profiling, "does not respect the gpu_memory_utilization
  // config"); kv_cache_utils get_num_blocks: 10,000,000,000 // (16 · 2 · 8 · 128 · 2 B = 65,536 B a
  // layer's block) = 152,587 // 32 layers = 4,768 blocks for Llama-3.1-8B (1e10 / 2^30 = 9.31 GiB).
  const text = 'model: ./llama/config.json\ndevice: { gpu: H100 SXM, gpu_memory_utilization: 0.5 }\nkv_cache: { kv_cache_memory_bytes: 10000000000 }\n';
  const r = read(text);
  assert.ok(r.value, JSON.stringify(r.problems));
  assert.deepEqual(r.problems.filter((p) => p.severity !== 'info'), []);
  const e = estimate(r.value);
  assert.equal(e.pool.budgetBytes, 10_000_000_000);
  assert.equal(e.pool.budgetSource, 'explicit');
  assert.equal(e.pool.pages, 4768);
  // The same budget as memory_gib: one implementation.
  const gib = read(`model: ./llama/config.json\nkv_cache: { memory_gib: ${10_000_000_000 / 2 ** 30} }\n`);
  assert.equal(estimate(gib.value!).pool.pages, 4768);
  const both = 'model: ./llama/config.json\nkv_cache: { memory_gib: 4, kv_cache_memory_bytes: 10000000000 }\n';
  const b = read(both);
  assert.equal(b.value, null);
  const conflict = only(b.problems, 'kv-budget-conflict');
  assert.equal(conflict.severity, 'error');
  assert.equal(at(both, conflict), '10000000000');
  const pages = 'model: ./llama/config.json\nkv_cache: { num_pages: 100, kv_cache_memory_bytes: 10000000000 }\n';
  assert.match(only(read(pages).problems, 'kv-budget-conflict').message, /kv_cache\.num_pages and kv_cache\.kv_cache_memory_bytes/);
});

test('workload.trace: a path relative to the profile, resolved against its folder; the draw keys written beside it are warned about at their keys, the scheduler limits are not', () => {
  const text = 'model: ./llama/config.json\nworkload:\n  trace: ./traces/prod.jsonl\n  arrival_rate: 8\n  prompt_len: { dist: fixed, value: 900000 }\n  max_num_seqs: 64\n';
  const r = read(text);
  assert.ok(r.value, JSON.stringify(r.problems));
  // Relative to /work/project (the profile's folder), not to the process's working folder.
  assert.deepEqual(r.value.workload?.trace, { path: './traces/prod.jsonl', resolvedPath: join(DIR, 'traces/prod.jsonl') });
  assert.equal(r.value.workload?.maxNumSeqs, 64);
  const unused = r.problems.filter((p) => p.code === 'unused-with-trace');
  // At the keys arrival_rate and prompt_len, not at max_num_seqs; a drawn prompt of 900,000 tokens is about nothing used: no exceeds-max-model-len.
  assert.deepEqual(unused.map((p) => [p.severity, text.slice(p.range.offset, p.range.offset + p.range.length)]), [['warning', 'arrival_rate'], ['warning', 'prompt_len']]);
  assert.match(unused[0]!.message, /^workload\.arrival_rate is not used: workload\.trace replays \.\/traces\/prod\.jsonl/);
  assert.equal(r.problems.filter((p) => p.code === 'exceeds-max-model-len').length, 0);
  // An absolute path stays as written.
  assert.equal(read('model: ./llama/config.json\nworkload: { trace: /data/t.csv }\n').value?.workload?.trace?.resolvedPath, '/data/t.csv');
  // Without a trace the same prompt_len is warned about (the check above was skipped for the trace, not lost).
  assert.equal(read('model: ./llama/config.json\nworkload:\n  prompt_len: { dist: fixed, value: 900000 }\n').problems.filter((p) => p.code === 'exceeds-max-model-len').length, 1);
});

test('workload.trace_time_unit, trace_model and trace_log_type say how to read the trace (the flags --trace-time-unit, --trace-model, --trace-log-type); without a trace each is warned about at its key; a unit other than s / ms is an error at its value', () => {
  const text = 'model: ./llama/config.json\nworkload:\n  trace: ./burst.csv\n  trace_time_unit: ms\n  trace_model: ChatGPT\n  trace_log_type: Conversation log\n';
  const r = read(text);
  assert.ok(r.value, JSON.stringify(r.problems));
  assert.deepEqual(r.value.workload?.trace, { path: './burst.csv', resolvedPath: join(DIR, 'burst.csv'), timeUnit: 'ms', model: 'ChatGPT', logType: 'Conversation log' });
  assert.deepEqual(r.problems.filter((p) => p.code.startsWith('unused')), []);
  // The resolved Profile the editor sends the runner (JSON) is checked against the same keys: a bad unit is named by its key.
  const sent = JSON.parse(JSON.stringify(r.value)) as Profile;
  assert.deepEqual(resolvedProfileProblems(sent), []);
  sent.workload!.trace!.timeUnit = 'seconds' as never;
  assert.ok(resolvedProfileProblems(sent).some((m) => m.startsWith('workload.trace_time_unit')), JSON.stringify(resolvedProfileProblems(sent)));
  // No trace: drawn requests, so each is unused, said at its key.
  const none = 'model: ./llama/config.json\nworkload:\n  requests: 10\n  trace_time_unit: ms\n  trace_model: ChatGPT\n';
  const unused = read(none).problems.filter((p) => p.code === 'unused-without-trace');
  assert.deepEqual(unused.map((p) => [p.severity, none.slice(p.range.offset, p.range.offset + p.range.length)]), [['warning', 'trace_time_unit'], ['warning', 'trace_model']]);
  assert.equal(unused[0]!.message, 'workload.trace_time_unit is not used: it says how to read workload.trace, and there is none (the requests are drawn); add trace: ./your-trace, or remove trace_time_unit');
  const seconds = 'model: ./llama/config.json\nworkload: { trace: ./b.csv, trace_time_unit: seconds }\n';
  const e = read(seconds).problems.find((p) => p.severity === 'error')!;
  assert.equal(seconds.slice(e.range.offset, e.range.offset + e.range.length), 'seconds', e.message);
});

test('workload.trace must be a non-blank string: an error at its value', () => {
  for (const v of ['""', '"  "', '3', '[a.jsonl]']) {
    const text = `model: ./llama/config.json\nworkload: { trace: ${v} }\n`;
    const r = read(text);
    assert.equal(r.value, null, v);
    const e = r.problems.find((p) => p.severity === 'error')!;
    assert.equal(text.slice(e.range.offset, e.range.offset + e.range.length), v, `${v}: ${e.message}`);
  }
});

test('a profile that is one long string (a binary file read as YAML) is refused quoting its first 60 characters and its length', () => {
  // s40 newcomer F7: 3,000 random bytes gave one error line of 7,331 bytes.
  const text = 'x'.repeat(59) + 'é' + 'y'.repeat(2940);
  const r = readProfile(text, '/p/bin.attn.yaml', host({}));
  const e = r.problems.find((p) => p.code === 'not-an-object');
  assert.equal(e?.message, `a profile is a mapping of keys (model, dtype, device, kv_cache, ...), not the string "${'x'.repeat(59)}é"… (3,000 characters)`);
  const short = readProfile('just words', '/p/w.attn.yaml', host({}));
  assert.match(short.problems.find((p) => p.code === 'not-an-object')!.message, /not the string "just words"$/);
});
