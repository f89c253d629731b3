/**
 * `attnscope vllm-log` through the built CLI (dist/runner.js): the A10 log of
 * test/unit/fixtures/vllm-logs against Llama-3.1-8B, and the bad inputs (exit 2, one line).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../fixtures/tmp';

const root = join(__dirname, '..', '..');

/**
 * A comparison row's cells after its term, the parts of a table stacked past 100 columns
 * (core/textTable.ts) joined in order: "9,871 [5]  10,291  +420 (+4.3%)".
 */
function row(stdout: string, term: string): string {
  return stdout.split('\n').filter((l) => l.startsWith(`${term} `)).map((l) => l.slice(term.length).trim()).join('  ');
}
const runner = join(root, 'dist', 'runner.js');
const log = join(root, 'test', 'unit', 'fixtures', 'vllm-logs', 'a10-llama-3.1-8b-v0.log');
const llamaConfig = join(root, 'examples', 'llama-3.1-8b', 'config.json');

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [runner, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('vllm-log LOG --profile config.json: every figure beside the estimate, the line it came from, and why', () => {
  const r = cli(['vllm-log', log, '--profile', llamaConfig]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /GPU blocks\s+2,356 \[5\]/);
  // The V0 log at max_model_len 131,072 takes V0's chunked-prefill default max_num_batched_tokens
  // 2048: the sampler phase, 2048 · 2 · 4096 + 3 · 256 · 128256 · 4 B = 0.38 GiB, and blocks within 5%.
  assert.match(row(r.stdout, 'activation peak (PyTorch)'), /^0\.22 GiB \[4\]\s+0\.38 GiB\s+\+0\.16 GiB$/);
  assert.match(row(r.stdout, 'GPU blocks'), /2,356 \[5\]\s+2,264\s+−92 \(−3\.9%\)$/);
  assert.match(r.stdout, /maximum concurrency for 131,072 tokens\s+0\.29x \[6\]/);
  assert.match(r.stdout, /settings from the log: device memory 22\.07 GiB/);
});

test('vllm-log --profile with no device: the log\'s total_gpu_memory sizes the pool, so no "device.memory_gib not set" info', () => {
  const dir = tempDir('attnscope-vllmlog-');
  const profile = join(dir, 'nodevice.attn.yaml');
  writeFileSync(profile, `model: ${JSON.stringify(llamaConfig)}\n`);
  const r = cli(['vllm-log', log, '--profile', profile]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /settings from the log: device memory 22\.07 GiB/);
  assert.doesNotMatch(r.stderr, /neither device\.memory_gib nor device\.gpu/);
});

test('vllm-log: a log of another model than the profile\'s is warned at its model= line, naming both; the same model (an instruct checkpoint) is not', () => {
  // constructed-v0.6.4-llama-3.1-8b.log line 3: "Initializing an LLM engine (v0.6.4) with config: model='meta-llama/Llama-3.1-8B-Instruct'".
  const v064 = join(root, 'test', 'unit', 'fixtures', 'vllm-logs', 'constructed-v0.6.4-llama-3.1-8b.log');
  const qwen = join(root, 'test', 'fixtures', 'configs', 'Qwen2.5-7B.config.json');
  const r = cli(['vllm-log', v064, '--profile', qwen]);
  assert.equal(r.code, 0, r.stderr);
  const warning = `${v064}:3:1: warning: the log is of model 'meta-llama/Llama-3.1-8B-Instruct', the profile's model is Qwen2.5-7B (${qwen})`;
  assert.ok(r.stderr.split('\n').some((l) => l.startsWith(warning)), r.stderr);
  // examples/llama-3.1-8b/config.json is named by its folder: the same model, no warning.
  const ok = cli(['vllm-log', v064, '--profile', llamaConfig]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.doesNotMatch(ok.stderr, /the log is of model/);
});

test('vllm-log without a profile lists the figures; --json gives them with their lines', () => {
  const r = cli(['vllm-log', log]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /GPU blocks\s+2,356\s+\(line 5\)/);
  assert.match(r.stdout, /give --profile/);
  const j = cli(['vllm-log', log, '--json']);
  const doc = JSON.parse(j.stdout);
  assert.equal(doc.figures.gpuBlocks.value, 2356);
  // README: every JSON file AttnScope writes opens with schema, tool, createdAt, name and a kind.
  assert.deepEqual(Object.keys(doc).slice(0, 5), ['schema', 'tool', 'createdAt', 'name', 'kind']);
  assert.equal(doc.kind, 'vllm-log');
  assert.equal(doc.name, 'a10-llama-3.1-8b-v0.log');
  assert.match(doc.tool, /^attnscope \d/);
  assert.ok(!Number.isNaN(Date.parse(doc.createdAt)));
  // --json /dev/stdout as bench, simulate, sweep and merge take it: the same JSON on stdout.
  const d = cli(['vllm-log', log, '--json', '/dev/stdout']);
  assert.equal(d.code, 0, d.stderr);
  assert.equal(JSON.parse(d.stdout).figures.gpuBlocks.value, 2356);
  const c = cli(['vllm-log', log, '--profile', llamaConfig, '--json', '/dev/fd/1']);
  assert.equal(c.code, 0, c.stderr);
  const compared = JSON.parse(c.stdout);
  assert.equal(compared.log.figures.gpuBlocks.value, 2356);
  assert.deepEqual(Object.keys(compared), ['schema', 'tool', 'createdAt', 'name', 'kind', 'log', 'comparison']);
  assert.equal(compared.kind, 'vllm-log-comparison');
  const f = cli(['vllm-log', log, '--profile', llamaConfig, '--json', 'out.json']);
  assert.equal(f.code, 2);
  assert.match(f.stderr, new RegExp(`^attnscope: vllm-log --json prints JSON to stdout; to a file: attnscope vllm-log ${log.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} --profile .*config\\.json --json > out\\.json`));
});

test('vllm-log bad input: a missing file, a file with no vLLM line, a bad profile: exit 2, one line each', () => {
  const dir = tempDir('attnscope-vllmlog-');
  const empty = join(dir, 'other.log');
  writeFileSync(empty, 'nothing from vLLM here\n');
  for (const args of [['vllm-log', join(dir, 'missing.log')], ['vllm-log', empty], ['vllm-log', log, '--profile', join(dir, 'nope.attn.yaml')], ['vllm-log'], ['vllm-log', log, '--bogus']]) {
    const r = cli(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /internal error|\n\s+at /, args.join(' '));
  }
  const r = cli(['vllm-log', empty]);
  assert.equal(r.stderr.trim().split('\n').length, 1);
  assert.match(r.stderr, /other\.log:1:1: no vLLM start-up memory line found/);
  // An empty file says it is empty (s44 newcomer LOW-11: it said no memory line was found, true but not the fix).
  const zero = join(dir, 'zero.log');
  writeFileSync(zero, '');
  const z = cli(['vllm-log', zero]);
  assert.equal(z.code, 2);
  assert.equal(z.stderr.trim().split('\n').length, 1);
  assert.match(z.stderr, /zero\.log:1:1: the file is empty: give the log vLLM's server printed \(its start-up lines up to "Maximum concurrency"\)\n$/);
});

test('vllm-log on a log cut short: the figures it could read, and a warning at each line it could not (file:line:1); none readable: exit 2 at the line', () => {
  const dir = tempDir('attnscope-vllmlog-');
  const file = join(dir, 'cut.log');
  // The A10 log's first five lines and its sixth, "Maximum concurrency for 131072 tokens per request: 0.29x", cut after "0.".
  const text = readFileSync(log, 'utf8').split('\n');
  assert.match(text[5]!, /Maximum concurrency for .*: 0\.29x/);
  writeFileSync(file, [...text.slice(0, 5), text[5]!.replace(/0\.29x.*$/, '0.')].join('\n'));
  const r = cli(['vllm-log', file, '--profile', llamaConfig]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /GPU blocks\s+2,356 \[5\]/);
  assert.match(r.stderr, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:6:1: warning: could not read this vLLM memory line \\(cut short or garbled\\?\\): its figure is left out: .*Maximum concurrency`, 'm'));
  // Only a garbled line: nothing to compare, exit 2 at that line.
  const only = join(dir, 'only.log');
  writeFileSync(only, 'INFO 03-01 10:00:00 [kv_cache_utils.py:1] some line\nINFO 03-01 10:00:01 [kv_cache_utils.py:2] GPU KV cache size: 447,7\n');
  const bad = cli(['vllm-log', only]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /only\.log:2:1: no vLLM start-up memory line could be read: could not read this vLLM memory line \(cut short or garbled\?\): .*GPU KV cache size: 447,7/);
  assert.equal(bad.stderr.trim().split('\n').length, 1);
});

test('vllm-log --profile with kv_cache.memory_gib: the pool is sized from it, as estimate sizes it (ground truth 3.8125 GiB = 1,952 blocks)', () => {
  // /work/shared/data/hf-configs/README.md: Llama-3.1-8B bf16, page_size 16, 3.8125 GiB holds
  // 1952 pages (3.8125 GiB / (16 · 131,072 B) = 1952); vLLM printed "# GPU blocks: 1952".
  const dir = tempDir('attnscope-vllmlog-');
  const profile = join(dir, 'gt8b.attn.yaml');
  writeFileSync(profile, `model: ${JSON.stringify(llamaConfig)}\ndtype: bf16\nkv_cache: { page_size: 16, memory_gib: 3.8125 }\n`);
  const gt = join(dir, 'gt.log');
  writeFileSync(gt, [
    'INFO 08-01 10:00:00 llm_engine.py:100] Initializing an LLM engine (v0.5.3) with config: model=meta-llama/Llama-3.1-8B, dtype=torch.bfloat16, max_seq_len=8192, tensor_parallel_size=1, kv_cache_dtype=auto',
    'INFO 08-01 10:00:10 model_runner.py:680] Loading model weights took 14.9888 GB',
    'INFO 08-01 10:00:12 gpu_executor.py:102] # GPU blocks: 1952, # CPU blocks: 2048',
  ].join('\n'));
  const est = cli(['estimate', profile]);
  assert.match(est.stdout, /KV pool\s+1,952 pages/);
  const r = cli(['vllm-log', gt, '--profile', profile]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(row(r.stdout, 'GPU blocks'), /1,952 \[3\]\s+1,952\s+=$/);
  assert.match(r.stdout, /settings from the profile: [\s\S]*kv_cache\.memory_gib 3\.8125/);
  assert.doesNotMatch(r.stdout, /sizes no pool|gives 0/);
});

test('vllm-log on a tensor-parallel log: the smallest rank\'s KV cache memory is read and said at its line (file:line:1: info)', () => {
  // constructed-v0.10.1-tp2-llama-3.1-8b.log: TP0 61.71 GiB (line 7), TP1 61.96 GiB (line 9); vLLM
  // sizes both ranks' pools by the smaller (kv_cache_utils unify_kv_cache_configs: min num_blocks).
  const tp2 = join(root, 'test', 'unit', 'fixtures', 'vllm-logs', 'constructed-v0.10.1-tp2-llama-3.1-8b.log');
  const r = cli(['vllm-log', tp2, '--profile', llamaConfig]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^KV cache memory\s+61\.71 GiB \[7\]/m);
  assert.ok(r.stderr.split('\n').some((l) => l.startsWith(`${tp2}:7:1: info: KV cache memory is printed 2 times, once per rank (line 7: 61.71 GiB (VllmWorker TP0 pid=7), line 9: 61.96 GiB (VllmWorker TP1 pid=8)): the smallest is read, line 7`)), r.stderr);
});

test('vllm-log on a log cut before its KV lines: the figures it has, and a warning at its last memory line saying what is missing and what to give', () => {
  // The public V1 log's first three lines: its weights ("Model loading took 14.99 GiB", line 3),
  // then cut before "Available KV cache memory" (line 4 of the whole log).
  const dir = tempDir('attnscope-vllmlog-');
  const file = join(dir, 'cut-before-kv.log');
  const v1 = readFileSync(join(root, 'test', 'unit', 'fixtures', 'vllm-logs', 'v1-llama-3.1-8b-eager.log'), 'utf8').split('\n');
  assert.match(v1[2]!, /Model loading took 14\.99 GiB/);
  writeFileSync(file, v1.slice(0, 3).join('\n'));
  const r = cli(['vllm-log', file, '--profile', llamaConfig]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^model weights\s+14\.99 GiB \[3\]/m);
  const warning = r.stderr.split('\n').find((l) => l.startsWith(`${file}:3:1: warning: no KV cache line after this, the start-up's last memory line`));
  assert.ok(warning, r.stderr);
  assert.match(warning, /give the server's output from its start through "Maximum concurrency" \(V1\) or "# GPU blocks" \(V0\), uncut$/);
  // The whole log has its KV lines: no such warning.
  const whole = cli(['vllm-log', join(root, 'test', 'unit', 'fixtures', 'vllm-logs', 'v1-llama-3.1-8b-eager.log'), '--profile', llamaConfig]);
  assert.equal(whole.code, 0, whole.stderr);
  assert.doesNotMatch(whole.stderr, /no KV cache line/);
  // A file with no vLLM line at all: exit 2, one line, with what to give.
  const none = join(dir, 'none.log');
  writeFileSync(none, 'nothing from vLLM here\n');
  const n = cli(['vllm-log', none]);
  assert.equal(n.code, 2);
  assert.match(n.stderr, /none\.log:1:1: no vLLM start-up memory line found \(.*\): give the server's output from its start through "Maximum concurrency" \(V1\) or "# GPU blocks" \(V0\), uncut\n$/);
});

test('vllm-log reads model and tensor_parallel_size from V0\'s "args: Namespace(...)" line, compares at the log\'s tp and warns that the profile\'s differs', () => {
  // A V0 log trimmed to the api_server lines (no engine-config line): tp 4 on line 2 only (s36 newcomer: compared at the profile's tp 2, no warning).
  const dir = tempDir('attnscope-vllmlog-');
  const profile = join(dir, 'tp2.attn.yaml');
  writeFileSync(profile, `model: ${JSON.stringify(llamaConfig)}\ndtype: bf16\ndevice: { gpu: H100 SXM, tensor_parallel_size: 2 }\nkv_cache: { page_size: 16 }\n`);
  const v0 = join(dir, 'v0tp4.log');
  writeFileSync(v0, [
    'INFO 10-28 10:00:00 api_server.py:528] vLLM API server version 0.6.3',
    "INFO 10-28 10:00:00 api_server.py:529] args: Namespace(host=None, port=8000, model='meta-llama/Llama-3.1-8B', tensor_parallel_size=4, gpu_memory_utilization=0.9, max_model_len=8192, block_size=16, max_num_seqs=256, enable_chunked_prefill=None)",
    'INFO 10-28 10:00:20 model_runner.py:1067] Loading model weights took 3.7500 GB',
    'INFO 10-28 10:00:30 distributed_gpu_executor.py:57] # GPU blocks: 120000, # CPU blocks: 8192',
  ].join('\n'));
  const r = cli(['vllm-log', v0, '--profile', profile]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^settings from the log: [\s\S]*?tensor_parallel_size\s+4\s+\(line\s+2\)/m);
  // Llama-3.1-8B at tp 4: 32 layers · 2 (K, V) · 8/4 KV heads · head_dim 128 · 2 B = 32,768 B per token per GPU (65,536 at tp 2).
  assert.match(r.stdout, /page = 16 tokens · 32,768 B/);
  assert.match(r.stderr, /v0tp4\.log:2:1: warning: the log ran tensor_parallel_size 4, the profile's is 2: compared at the log's 4$/m);
  // The model is read from the same line: one of another name is warned about at it.
  writeFileSync(v0, readFileSync(v0, 'utf8').replace("model='meta-llama/Llama-3.1-8B'", "model='Qwen/Qwen3-8B'"));
  const other = cli(['vllm-log', v0, '--profile', profile]);
  assert.equal(other.code, 0, other.stderr);
  assert.match(other.stderr, /v0tp4\.log:2:1: warning: the log is of model 'Qwen\/Qwen3-8B'/);
});

test('examples/README\'s vllm-log demo pairs the log with a profile of the GPU its figures fit: blocks within 5%, and the device caveat on its own line above the table', () => {
  // s47 newcomer MEDIUM-1: paired with llama-3.1-8b.attn.yaml (H100 SXM, 79.22 GiB) the demo read
  // +36.12 GiB / +187.3% blocks. The log prints weights 14.99 GiB and KV 19.28 GiB, 9,871 blocks, and
  // no device memory; on an A100 40GB (39.49 GiB · 0.9 = 35.54 GiB usable) the estimate's pool is
  // 35.54 − 14.96 − 0.38 − 0.10 = 20.10 GiB = 10,291 2-MiB blocks, +4.3%.
  const r = cli(['vllm-log', join(root, 'examples', 'vllm-llama-3.1-8b.log'), '--profile', join(root, 'examples', 'vllm-llama-3.1-8b-a100-40gb.attn.yaml')]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(row(r.stdout, 'GPU blocks (tokens / block size)'), /^9,871 \[5\]\s+10,291\s+\+420 \(\+4\.3%\)$/);
  // The note is the output's first paragraph (wrapped as the report's long lines are), before the table.
  const first = r.stdout.split('\n\n')[0]!.replace(/\s+/g, ' ');
  assert.equal(first, 'note: the log gives no device memory: the estimate\'s is the profile\'s (device.gpu A100 40GB, 39.49 GiB as CUDA reports it); compare with a profile of the log\'s GPU');
  assert.match(r.stdout.split('\n\n')[1]!, /^term /);
  const readme = readFileSync(join(root, 'examples', 'README.md'), 'utf8');
  assert.match(readme, /`attnscope vllm-log vllm-llama-3\.1-8b\.log --profile vllm-llama-3\.1-8b-a100-40gb\.attn\.yaml`/);
});

test('vllm-log - is refused in one line naming /dev/stdin, the way to pipe a log in, not read as a file named "-" (s51 nc-cli 17)', () => {
  const r = cli(['vllm-log', '-']);
  assert.equal(r.code, 2, r.stdout);
  assert.equal(r.stderr, "-:1:1: attnscope vllm-log does not read - as stdin: pipe the log in as /dev/stdin (cat LOG | attnscope vllm-log /dev/stdin), or give the log file's path\n");
});
