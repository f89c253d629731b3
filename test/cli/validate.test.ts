/**
 * One validation for the CLI and the editor (core/validate.ts): the CLI prints every error of a
 * profile, one `file:line:col: message` line each in file order, and exits 2 before any work;
 * each severity decision of DESIGN.md "Errors and warnings" as a run meets it. The built
 * dist/runner.js in a child process, as a user meets it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../fixtures/tmp';
import { shownPath } from '../../runner/load';

const root = join(__dirname, '..', '..');
const runner = join(root, 'dist', 'runner.js');

function cli(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [runner, ...args], { encoding: 'utf8', cwd, timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A folder with Llama-3.1-8B's config.json (examples/) and `name` holding `text`. */
function profileDir(name: string, text: string): string {
  const dir = tempDir('attnscope-validate-');
  mkdirSync(join(dir, 'llama'));
  copyFileSync(join(root, 'examples', 'llama-3.1-8b', 'config.json'), join(dir, 'llama', 'config.json'));
  writeFileSync(join(dir, name), text);
  return dir;
}

test('a profile with three errors on three lines: three lines in file order, exit 2, nothing written', () => {
  // Llama-3.1-8B: 32 attention heads (3 does not divide them), max_position_embeddings 131,072
  // with rope_type llama3, which vLLM does not scale: 131,072 is the longest max_model_len it derives.
  // The checks find tensor_parallel_size, then max_model_len, then prompt_len's min: the lines are
  // sorted by position, not by the order found.
  const text = [
    'model: ./llama/config.json', // 1
    'device:', // 2
    '  gpu: H100 SXM', // 3
    '  tensor_parallel_size: 3', // 4
    'workload:', // 5
    '  requests: 10', // 6
    '  arrival_rate: 1', // 7
    '  prompt_len: { dist: uniform, min: 900, max: 100 }', // 8
    '  output_len: { dist: fixed, value: 64 }', // 9
    '  max_model_len: 200000', // 10
    '',
  ].join('\n');
  const dir = profileDir('three.attn.yaml', text);
  const r = cli(['simulate', 'three.attn.yaml', '--json', 'out.json'], dir);
  assert.equal(r.code, 2, r.stderr);
  const lines = r.stderr.trimEnd().split('\n');
  assert.deepEqual(lines.map((l) => l.split(': ')[0]), ['three.attn.yaml:4:25', 'three.attn.yaml:8:37', 'three.attn.yaml:10:18'], r.stderr);
  assert.match(lines[0]!, /^three\.attn\.yaml:4:25: tensor_parallel_size 3 does not divide the 32 attention heads/);
  assert.match(lines[1]!, /^three\.attn\.yaml:8:37: workload\.prompt_len: min 900 is greater than max 100$/);
  assert.match(lines[2]!, /^three\.attn\.yaml:10:18: max_model_len 200,000 is longer than the 131,072 tokens vLLM derives/);
  assert.equal(r.stdout, '');
  assert.equal(existsSync(join(dir, 'out.json')), false);
});

test('a schema error beside two cross-key errors: all three lines, each at its value', () => {
  // dtype bf17 breaks the schema; tensor_parallel_size 3 does not divide Llama-3.1-8B's 32 heads
  // and max_num_batched_tokens 64 < max_num_seqs 128 (vLLM's SchedulerConfig refuses it): checks
  // of keys valid on their own, which the schema error used to hide.
  const text = [
    'model: ./llama/config.json', // 1
    'dtype: bf17', // 2
    'device:', // 3
    '  tensor_parallel_size: 3', // 4
    '  memory_gib: 80', // 5
    'workload:', // 6
    '  max_num_seqs: 128', // 7
    '  max_num_batched_tokens: 64', // 8
    '',
  ].join('\n');
  const dir = profileDir('mixed.attn.yaml', text);
  const r = cli(['estimate', 'mixed.attn.yaml'], dir);
  assert.equal(r.code, 2, r.stderr);
  const lines = r.stderr.trimEnd().split('\n');
  assert.deepEqual(lines.map((l) => l.split(': ')[0]), ['mixed.attn.yaml:2:8', 'mixed.attn.yaml:4:25', 'mixed.attn.yaml:8:27'], r.stderr);
  assert.match(lines[0]!, /dtype must be one of fp32, fp16, bf16, not the string "bf17"/);
  assert.match(lines[1]!, /tensor_parallel_size 3 does not divide the 32 attention heads/);
  assert.match(lines[2]!, /max_num_batched_tokens 64 is less than max_num_seqs 128/);
});

test('errors of the profile and of the config.json it names: the profile\'s lines first, then the config\'s, each in order', () => {
  const dir = profileDir('mixed.attn.yaml', 'model: ./bad/config.json\nkv_cache:\n  page_size: 0\nprefill:\n  seq_lens: [-1]\n');
  mkdirSync(join(dir, 'bad'));
  // 32 attention heads cannot be shared by 7 KV heads (the config reader's error, at that value).
  writeFileSync(join(dir, 'bad', 'config.json'), JSON.stringify({ model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, num_key_value_heads: 7, num_hidden_layers: 32, intermediate_size: 14336, vocab_size: 128256, max_position_embeddings: 8192 }, null, 1));
  const r = cli(['estimate', 'mixed.attn.yaml'], dir);
  assert.equal(r.code, 2, r.stderr);
  const at = r.stderr.trimEnd().split('\n').map((l) => l.split(': ')[0]);
  // The config's error once, at its own line, last: not again as the profile's summary at the
  // model value (1:8, "the model config ... has 1 error; first: ..."), which the editor shows.
  // The config.json as the profile was named (s48 newcomer L7: a relative profile's lines beside the config's
  // absolute path): relative to the working directory here, absolute when the profile is named by its absolute path.
  assert.deepEqual(at, ['mixed.attn.yaml:3:14', 'mixed.attn.yaml:5:14', join('bad', 'config.json') + ':5:25'], r.stderr);
  const abs = cli(['estimate', join(dir, 'mixed.attn.yaml')], dir);
  assert.deepEqual(abs.stderr.trimEnd().split('\n').map((l) => l.split(': ')[0]), [`${join(dir, 'mixed.attn.yaml')}:3:14`, `${join(dir, 'mixed.attn.yaml')}:5:14`, `${join(dir, 'bad', 'config.json')}:5:25`], abs.stderr);
  const sub = join(dir, 'sub');
  mkdirSync(sub);
  const up = cli(['estimate', '../mixed.attn.yaml'], sub);
  assert.equal(up.stderr.trimEnd().split('\n').at(-1)!.split(': ')[0], `${join('..', 'bad', 'config.json')}:5:25`, up.stderr);
});

test('a model file the profile reaches, whose path relative to the working directory climbs out of it: the shorter of that and the absolute path (s52 newcomer: "../../work/shared/...")', () => {
  const dir = tempDir('shown-');
  const deep = join(dir, 'a', 'b');
  mkdirSync(deep, { recursive: true });
  const before = process.cwd();
  process.chdir(deep);
  try {
    // Inside the working directory: relative, as before.
    assert.equal(shownPath(join(deep, 'm', 'config.json'), 'p.attn.yaml'), join('m', 'config.json'));
    // One level up: "../c.json" (9 characters) is shorter than the absolute path.
    assert.equal(shownPath(join(dir, 'a', 'c.json'), 'p.attn.yaml'), join('..', 'c.json'));
    // "/c.json" from <tmp>/a/b climbs at least three levels: the absolute path (7 characters) is shorter.
    assert.equal(shownPath('/c.json', 'p.attn.yaml'), '/c.json');
    // A profile named by its absolute path: absolute, whatever the length.
    assert.equal(shownPath(join(dir, 'a', 'c.json'), join(deep, 'p.attn.yaml')), join(dir, 'a', 'c.json'));
  } finally {
    process.chdir(before);
  }
});

test('a list with hundreds of errors prints three of a kind and a count, not hundreds of lines', () => {
  const dir = profileDir('many.attn.yaml', `model: ./llama/config.json\nprefill:\n  seq_lens: [${Array(500).fill(-1).join(', ')}]\n`);
  const r = cli(['estimate', 'many.attn.yaml'], dir);
  assert.equal(r.code, 2, r.stderr);
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 4, r.stderr);
  assert.match(lines[3]!, /^many\.attn\.yaml:3:\d+: 497 more like the last from here on, not shown one by one$/);
});

test('--events: one error event per error, in file order, and exit 2', () => {
  const dir = profileDir('two.attn.yaml', 'model: ./llama/config.json\nkv_cache:\n  page_size: 0\nprefill:\n  seq_lens: [-1]\n');
  const r = cli(['bench', 'two.attn.yaml', '--events'], dir);
  assert.equal(r.code, 2, r.stderr);
  const events = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { type: string; line: number; column: number });
  assert.deepEqual(events.map((e) => [e.type, e.line, e.column]), [['error', 3, 14], ['error', 5, 14]]);
});

/**
 * Each severity decision of DESIGN.md "Errors and warnings", as `estimate` meets it: an error
 * stops it with exit 2 at the line:col, a warning prints `warning:` there and the figures follow.
 * Figures: Llama-3.1-8B bf16 holds 14.96 GiB of weights (8,030,261,248 · 2 B); 32 heads.
 */
const DECISIONS: Array<{ what: string; yaml: string; code: 0 | 2; line: RegExp }> = [
  { what: 'TP not dividing the heads (vLLM refuses to start)', yaml: 'device:\n  tensor_parallel_size: 3\n', code: 2, line: /^p\.attn\.yaml:3:25: tensor_parallel_size 3 does not divide/ },
  { what: 'max_model_len above the model\'s 131,072 (vLLM refuses to start)', yaml: 'workload:\n  requests: 1\n  arrival_rate: 1\n  prompt_len: { dist: fixed, value: 8 }\n  output_len: { dist: fixed, value: 8 }\n  max_model_len: 131073\n', code: 2, line: /^p\.attn\.yaml:7:18: max_model_len 131,073 is longer than the 131,072 tokens/ },
  { what: 'max_num_batched_tokens below max_num_seqs (vLLM refuses to start)', yaml: 'workload:\n  requests: 1\n  arrival_rate: 1\n  prompt_len: { dist: fixed, value: 8 }\n  output_len: { dist: fixed, value: 8 }\n  max_num_seqs: 64\n  max_num_batched_tokens: 32\n', code: 2, line: /^p\.attn\.yaml:8:27: max_num_batched_tokens 32 is less than max_num_seqs 64/ },
  { what: 'a min above its max (no length can be drawn)', yaml: 'workload:\n  requests: 1\n  arrival_rate: 1\n  prompt_len: { dist: uniform, min: 9, max: 8 }\n  output_len: { dist: fixed, value: 8 }\n', code: 2, line: /^p\.attn\.yaml:5:37: workload\.prompt_len: min 9 is greater than max 8$/ },
  // 8 GiB × 0.9 = 7.20 GiB < 14.96 GiB: the editor's error, the run's warning.
  { what: 'weights above the device', yaml: 'device:\n  memory_gib: 8\n', code: 0, line: /^p\.attn\.yaml:3:15: warning: weights 15 GiB exceed 8 GiB × 0\.90 = 7\.2 GiB/ },
  // 17 GiB × 0.9 = 15.30 GiB < 14.96 + 0.38 activation peak + 0.10 reserves: the editor's error, the run's warning.
  { what: 'no room for a KV page', yaml: 'device:\n  memory_gib: 17\n', code: 0, line: /^p\.attn\.yaml:3:15: warning: weights 15 GiB \+ activation peak 392 MiB \+ engine reserves 102 MiB leave no room for a KV page/ },
  { what: 'a pool below one max_model_len sequence', yaml: 'device:\n  memory_gib: 18\n', code: 0, line: /^p\.attn\.yaml:3:15: warning: the KV pool holds 6,224 tokens \(389 pages of 16\), fewer than one max_model_len sequence/ },
  // The CUDA decode kernel takes 8 to 256 tokens per page (core/kernelLimits.json): the editor's error, the run's warning.
  { what: 'page_size past the CUDA kernels under backend cuda', yaml: 'device:\n  backend: cuda\n  memory_gib: 80\nkv_cache:\n  page_size: 512\n', code: 0, line: /^p\.attn\.yaml:6:14: warning: page_size 512 is not supported by the CUDA decode kernel/ },
  { what: 'a seq_len past max_position_embeddings', yaml: 'prefill:\n  seq_lens: [200000]\n', code: 0, line: /^p\.attn\.yaml:3:14: warning: seq_len 200000 is longer than the model's max_position_embeddings 131072$/ },
];

for (const d of DECISIONS) {
  test(`severity in a run: ${d.what} ${d.code === 2 ? 'is an error (exit 2)' : 'is a warning (exit 0)'}`, () => {
    const dir = profileDir('p.attn.yaml', `model: ./llama/config.json\n${d.yaml}`);
    const r = cli(['estimate', 'p.attn.yaml'], dir);
    assert.equal(r.code, d.code, r.stderr);
    assert.ok(r.stderr.split('\n').some((l) => d.line.test(l)), r.stderr);
    if (d.code === 0) assert.match(r.stdout, /KV per token\s+128 KiB/);
    else assert.equal(r.stdout, '');
  });
}

test('step_time.all_reduce out of range: one file:line:col line per bad value, exit 2 before any work', () => {
  const text = [
    'model: ./llama/config.json', // 1
    'device: { gpu: A100 80GB, tensor_parallel_size: 8 }', // 2
    'step_time:', // 3
    '  all_reduce:', // 4
    '    efficiency: { one_shot: 1.2 }', // 5
    '    latency_us: -1', // 6
    '',
  ].join('\n');
  const dir = profileDir('ar.attn.yaml', text);
  const r = cli(['simulate', 'ar.attn.yaml', '--json', 'out.json'], dir);
  assert.equal(r.code, 2, r.stderr);
  const lines = r.stderr.trimEnd().split('\n');
  assert.deepEqual(lines.map((l) => l.split(': ')[0]), ['ar.attn.yaml:5:29', 'ar.attn.yaml:6:17'], r.stderr);
  assert.equal(r.stdout, '');
  assert.equal(existsSync(join(dir, 'out.json')), false);
});

test('a described GPU: nvlink_multicast needs interconnect NVLink, compute_capability is written as vLLM prints it: one line each, exit 2', () => {
  const text = [
    'model: ./llama/config.json', // 1
    'device:', // 2
    '  gpu: { name: X, bf16_tflops: 100, memory_bandwidth_gb_s: 1000, memory_gib: 40, interconnect: PCIe, nvlink_multicast: true, compute_capability: ten }', // 3
    '',
  ].join('\n');
  const r = cli(['simulate', 'g.attn.yaml'], profileDir('g.attn.yaml', text));
  assert.equal(r.code, 2, r.stderr);
  assert.deepEqual(r.stderr.trimEnd().split('\n'), [
    'g.attn.yaml:3:96: device.gpu.interconnect must be NVLink where nvlink_multicast is true (NVLink SHARP multicast runs through an NVSwitch), not the string "PCIe"',
    'g.attn.yaml:3:146: device.gpu.compute_capability must be a CUDA compute capability as vLLM prints it, e.g. "9.0" (Hopper) or "10.0" (B200), not the string "ten"',
  ]);
  const missing = cli(['simulate', 'm.attn.yaml'], profileDir('m.attn.yaml', 'model: ./llama/config.json\ndevice:\n  gpu: { name: X, bf16_tflops: 100, memory_bandwidth_gb_s: 1000, memory_gib: 40, nvlink_multicast: true }\n'));
  assert.equal(missing.code, 2, missing.stderr);
  assert.equal(missing.stderr.trimEnd(), 'm.attn.yaml:3:3: device.gpu needs "interconnect: NVLink" where nvlink_multicast is true (NVLink SHARP multicast runs through an NVSwitch)');
});
