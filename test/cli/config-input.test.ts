/**
 * What profiles, configs and traces accept and refuse, through the built dist/runner.js (session
 * 34, from the s33 newcomer CLI findings): YAML merge keys, page sizes vLLM's CUDA backends do
 * not run, NaN in a trace, integers written as floats in config.json. Each bad input is one line
 * `file:line:col: message` and exit 2; each warning one line at the value.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs, { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { mock, test } from 'node:test';
import { main } from '../../runner/cli';
import { tempDir } from '../fixtures/tmp';
import { unwrapped } from '../fixtures/unwrap';

const root = join(__dirname, '..', '..');
const runner = join(root, 'dist', 'runner.js');
const llamaConfig = join(root, 'examples', 'llama-3.1-8b', 'config.json');

function cli(args: string[], cwd?: string) {
  const r = spawnSync(process.execPath, [runner, ...args], { encoding: 'utf8', timeout: 300_000, cwd });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `text` written as `name` in a fresh folder. */
function tmp(name: string, text: string): { dir: string; file: string } {
  const dir = tempDir('attnscope-cfg-');
  const file = join(dir, name);
  writeFileSync(file, text);
  return { dir, file };
}

/** 1-based line and column of the first `needle` in `text`, as `line:col`. */
function at(text: string, needle: string): string {
  const offset = text.indexOf(needle);
  assert.ok(offset >= 0, needle);
  const before = text.slice(0, offset).split('\n');
  return `${before.length}:${before.at(-1)!.length + 1}`;
}

test('YAML merge keys (<<: *dev) are honoured in estimate and in a sweep\'s --set overlay; a merged wrong value is one line where it is written, exit 2 (s33 newcomer CLI finding 3)', () => {
  const text = `model: ${JSON.stringify(llamaConfig)}\nbase: &dev { gpu: H100 SXMX, gpu_memory_utilization: 0.9 }\ndevice:\n  <<: *dev\n  tensor_parallel_size: 1\nworkload: { requests: 5, arrival_rate: 1, max_model_len: 2048, prompt_len: { dist: fixed, value: 100 }, output_len: { dist: fixed, value: 10 } }\n`;
  const { dir, file } = tmp('m.attn.yaml', text);
  const bad = cli(['estimate', file]);
  assert.equal(bad.code, 2, bad.stderr);
  // One error line, at the merged value in the anchored mapping (not at `<<` or `*dev`); then, since d37c7f3f (s50
  // newcomer LOW-5: unknown keys were hidden while a profile had errors), the top-level anchor holder `base`, which no
  // profile key reads, as the unknown-key warning it gets when the profile is otherwise right.
  const lines = bad.stderr.trim().split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 2, bad.stderr);
  assert.ok(lines[0]!.startsWith(`${file}:${at(text, 'H100 SXMX')}: device.gpu must be one of `), bad.stderr);
  assert.ok(lines[1]!.startsWith(`${file}:2:1: warning: unknown key "base"`), bad.stderr);
  writeFileSync(file, text.replace('SXMX', 'SXM'));
  const good = cli(['estimate', file]);
  assert.equal(good.code, 0, good.stderr);
  assert.doesNotMatch(good.stderr, /<<|device\.gpu/);
  // The merged device.gpu is the budget's (H100 SXM's 79.22 GiB as CUDA reports it, core/estimate/gpus.ts).
  assert.match(good.stdout, /device\.gpu H100 SXM, 79\.22 GiB/);
  // A sweep's --set replaces a merged key: the wrong merged gpu is overridden in every point.
  writeFileSync(file, text);
  const sweep = cli(['sweep', file, '--set', 'device.gpu=H200,H100 SXM', '--out', join(dir, 'out')]);
  assert.equal(sweep.code, 0, sweep.stderr);
  const report = JSON.parse(readFileSync(join(dir, 'out', 'sweep-report.json'), 'utf8')) as { rows: Array<{ status: string; values: Record<string, string> }> };
  assert.deepEqual(report.rows.map((r) => [r.values['device.gpu'], r.status]).sort(), [['H100 SXM', 'ok'], ['H200', 'ok']]);
});

test('a page_size vLLM\'s CUDA attention backends do not run, with device.gpu set: estimate warns at the value, one line, and still answers (s33 newcomer CLI finding 4)', () => {
  const text = `model: ${JSON.stringify(llamaConfig)}\ndevice: { gpu: H100 SXM }\nkv_cache: { page_size: 1, memory_gib: 4 }\nworkload: { max_model_len: 8192 }\n`;
  const { file } = tmp('ps1.attn.yaml', text);
  const r = cli(['estimate', file]);
  assert.equal(r.code, 0, r.stderr);
  // vllm/v1/attention/backends/flash_attn.py: "Block size must be a multiple of 16."
  assert.equal(r.stderr, `${file}:${at(text, '1, memory_gib')}: warning: page_size 1 is not a block size vLLM runs on H100 SXM: its CUDA attention backends take multiples of 16 (FlashAttention: "Block size must be a multiple of 16.", vllm/v1/attention/backends/flash_attn.py; FlashInfer 16, 32 or 64): try 16; the figures are for page_size 1 as written\n`);
  assert.match(r.stdout, /KV per token {6}128 KiB/);
});

test('NaN in a trace and in a config.json: one line at the word, in the same words (s33 newcomer CLI finding 11)', () => {
  // Python's json.dump writes a float NaN as the bare word NaN, which JSON has not.
  const nan = "NaN is not a JSON number (Python's json.dump writes it for a float NaN): write a number";
  const { dir, file: trace } = tmp('b1.jsonl', '{"arrival_s":NaN,"prompt_len":10,"output_len":1}\n');
  const profile = join(dir, 'p.attn.yaml');
  writeFileSync(profile, `model: ${JSON.stringify(llamaConfig)}\nkv_cache: { num_pages: 512 }\nworkload: { max_model_len: 2048 }\n`);
  const r = cli(['simulate', profile, '--trace', trace]);
  assert.equal(r.code, 2, r.stderr);
  // Column 14: the N of NaN after `{"arrival_s":` (13 characters). It used to say "not JSON: unquoted text or a character JSON does not allow".
  // A first line that does not parse is taken for a vllm bench serve result (one JSON document), which the message says, with --trace-format.
  assert.equal(r.stderr, `${trace}:1:14: not JSON: ${nan} (the trace was taken for a vllm bench serve result from its first line; name another format with --trace-format attnscope, azure, burstgpt, mooncake)\n`);
  // The same word in a config.json: one line (jsonc-parser's "value expected" after it was a second).
  const config = JSON.parse(readFileSync(llamaConfig, 'utf8')) as Record<string, unknown>;
  const text = JSON.stringify({ ...config, num_key_value_heads: 'NAN_HERE' }, null, 2).replace('"NAN_HERE"', 'NaN');
  const { file } = tmp('config.json', text);
  const c = cli(['estimate', file]);
  assert.equal(c.code, 2, c.stderr);
  assert.equal(c.stderr, `${file}:${at(text, 'NaN')}: JSON syntax error: ${nan}\n`);
});

test('"num_key_value_heads": 8.0 in config.json: one warning line at the value, and the estimate at 8 KV heads (s33 newcomer CLI finding 12)', () => {
  const config = readFileSync(llamaConfig, 'utf8');
  const text = config.replace('"num_key_value_heads": 8', '"num_key_value_heads": 8.0');
  assert.notEqual(text, config);
  const { file } = tmp('config.json', text);
  const r = cli(['estimate', file]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, `${file}:${at(text, '8.0')}: warning: "num_key_value_heads" is 8 written with a fraction or exponent, which Python's json reads as a float, not the integer transformers and vLLM compute with: write 8\n`);
  assert.match(r.stdout, /H_kv=8 /);
});

test('a FIFO named on the command line is refused in one line, exit 2, not waited on (estimate, vllm-log); a pipe the shell hands over (/dev/stdin) is read as before', { skip: process.platform === 'win32' && 'mkfifo' }, () => {
  // Was: estimate fifo.json and vllm-log fifo.log opened the FIFO and waited for a writer, for ever with none.
  const { dir } = tmp('x', '');
  for (const name of ['fifo.json', 'fifo.log']) assert.equal(spawnSync('mkfifo', [join(dir, name)]).status, 0);
  const e = spawnSync(process.execPath, [runner, 'estimate', join(dir, 'fifo.json')], { encoding: 'utf8', timeout: 60_000 });
  assert.deepEqual([e.status, e.signal], [2, null], e.stderr);
  assert.equal(e.stderr, `${join(dir, 'fifo.json')}:1:1: is a named pipe (FIFO), not a file: reading it waits until something writes to it; give the profile or config.json itself, or pipe it in as <(cat FILE) (a profile so piped reads a relative model: path beside /dev/fd: write it absolute)\n`);
  const v = spawnSync(process.execPath, [runner, 'vllm-log', join(dir, 'fifo.log')], { encoding: 'utf8', timeout: 60_000 });
  assert.deepEqual([v.status, v.signal], [2, null], v.stderr);
  assert.equal(v.stderr, `${join(dir, 'fifo.log')}:1:1: is a named pipe (FIFO), not a file: reading it waits until something writes to it; give the log file itself, or pipe it in as /dev/stdin or <(cat LOG)\n`);
  // vllm-log reads a pipe on /dev/stdin as it did, and refuses a device unread.
  const log = 'INFO 08-20 10:01:21 [kv_cache_utils.py:849] GPU KV cache size: 1,000 tokens\n';
  const logFile = join(dir, 'v.log');
  writeFileSync(logFile, log);
  // A shell's pipe (spawnSync's input is a socket, which /dev/stdin cannot open).
  const piped = spawnSync('bash', ['-c', 'cat "$2" | "$0" "$1" vllm-log /dev/stdin', process.execPath, runner, logFile], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(piped.status, 0, piped.stderr);
  assert.match(piped.stdout, /1,000/);
  const zero = spawnSync(process.execPath, [runner, 'vllm-log', '/dev/zero'], { encoding: 'utf8', timeout: 60_000 });
  assert.deepEqual([zero.status, zero.stderr], [2, '/dev/zero:1:1: is not a regular file (a device), not a log file\n']);
});

test('estimate reads the config.json it is given once (was twice: once to look for a saved run, once as the profile), and JSON.parse-s it once to tell an AttnScope output', async () => {
  const text = readFileSync(llamaConfig, 'utf8');
  const { file } = tmp('config.json', text);
  const opened: string[] = [];
  const original = fs.openSync;
  const open = mock.method(fs, 'openSync', (...args: Parameters<typeof fs.openSync>) => {
    if (String(args[0]) === file) opened.push(String(args[0]));
    return original(...args);
  });
  let parsed = 0;
  const parse = JSON.parse;
  const json = mock.method(JSON, 'parse', (t: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    if (t === text) parsed++;
    return parse(t, reviver) as unknown;
  });
  let err = '';
  try {
    const out = new Writable({ write: (_c, _e, done) => done() });
    const errs = new Writable({ write: (c, _e, done) => { err += String(c); done(); } });
    assert.equal(await main(['estimate', file], { stdout: out, stderr: errs }), 0, err);
  } finally {
    open.mock.restore();
    json.mock.restore();
  }
  assert.equal(opened.length, 1);
  // Once for "is it a saved run, an estimate --json or a sweep report" (load.ts toolOutputIn); the profile reader parses its own tree.
  assert.equal(parsed, 1);
});

test('device.gpu described as a mapping: a bad figure is one line file:line:col at the value, exit 2 before any work; a good one simulates with its figures labelled user-given', () => {
  const good = `model: ${JSON.stringify(llamaConfig)}\ndevice:\n  gpu: { name: MI325X, bf16_tflops: 1307.4, memory_bandwidth_gb_s: 6000, memory_gib: 255.5 }\nworkload: { requests: 4, arrival_rate: 2, max_model_len: 2048, prompt_len: { dist: fixed, value: 100 }, output_len: { dist: fixed, value: 10 } }\n`;
  const badText = good.replace('memory_gib: 255.5', 'memory_gib: -1');
  const { file } = tmp('g.attn.yaml', badText);
  const bad = cli(['simulate', file]);
  assert.equal(bad.code, 2, bad.stderr);
  assert.equal(bad.stdout, '');
  const lines = bad.stderr.trim().split('\n');
  assert.equal(lines.length, 1, bad.stderr);
  assert.equal(lines[0], `${file}:${at(badText, '-1')}: device.gpu.memory_gib must be > 0, not -1`);
  writeFileSync(file, good);
  const ok = cli(['simulate', file, '--explain']); // the step time's sources: its derivation, printed with --explain
  assert.equal(ok.code, 0, ok.stderr);
  // The pool from its memory_gib (estimate's device line), the step time from its figures, each said to be the user's.
  const est = cli(['estimate', file]);
  assert.equal(est.code, 0, est.stderr);
  assert.match(est.stdout, /device\.gpu MI325X, 255\.5 GiB user-given/);
  assert.match(unwrapped(ok.stdout), /on MI325X \(user-given\): bf16 1\.31 PFLOP\/s dense, memory 6 TB\/s, from the user-given device\.gpu MI325X \(bf16_tflops 1307\.4, memory_bandwidth_gb_s 6000\)/);
  // The editor's door (`simulate - --events`, the resolved Profile on stdin) and a saved run's profile run it too, with
  // the same figures (s42 newcomer 2: both were refused, "device.gpu must be one of H100 SXM, ..., not the string "MI325X"").
  const runFile = join(dirname(file), 'run.json');
  assert.equal(cli(['simulate', file, '--json', runFile]).code, 0);
  const saved = JSON.parse(readFileSync(runFile, 'utf8')) as { profile: { device: { gpuSpec: { bf16FlopsPerSec: number } } }; pool: { latency: { tpot: { p50: number } } } };
  const again = cli(['simulate', runFile, '--json', join(dirname(file), 'again.json')]);
  assert.equal(again.code, 0, again.stderr);
  assert.equal((JSON.parse(readFileSync(join(dirname(file), 'again.json'), 'utf8')) as typeof saved).pool.latency.tpot.p50, saved.pool.latency.tpot.p50);
  // On stdin, figures carried beside the checked mapping are not what runs: the spec is made again from the mapping.
  saved.profile.device.gpuSpec.bf16FlopsPerSec = 1;
  const piped = spawnSync(process.execPath, [runner, 'simulate', '-', '--json', join(dirname(file), 'piped.json')], { input: JSON.stringify(saved.profile), encoding: 'utf8', timeout: 300_000 });
  assert.equal(piped.status, 0, piped.stderr);
  assert.equal((JSON.parse(readFileSync(join(dirname(file), 'piped.json'), 'utf8')) as typeof saved).pool.latency.tpot.p50, saved.pool.latency.tpot.p50);
  // A bad figure in the mapping a Profile carries is refused at <stdin> by its profile key, as a file's.
  (saved.profile.device.gpuSpec as unknown as { given: { memory_gib: number } }).given.memory_gib = -1;
  const badPiped = spawnSync(process.execPath, [runner, 'simulate', '-'], { input: JSON.stringify(saved.profile), encoding: 'utf8', timeout: 300_000 });
  assert.equal(badPiped.status, 2, badPiped.stderr);
  assert.match(badPiped.stderr, /^<stdin>:.*device\.gpu\.memory_gib must be > 0, not -1/);
  // A sweep takes a described GPU as a value of its device.gpu axis, beside a table name.
  const { dir, file: swept } = tmp('s.attn.yaml', good.replace(/device:\n {2}gpu: (\{[^\n]*\})\n/, 'sweep: { axes: { device.gpu: [H100 SXM, $1] } }\n'));
  const sweep = cli(['sweep', swept, '--out', join(dir, 'out')]);
  assert.equal(sweep.code, 0, sweep.stderr);
  const report = JSON.parse(readFileSync(join(dir, 'out', 'sweep-report.json'), 'utf8')) as { rows: Array<{ status: string }> };
  assert.deepEqual(report.rows.map((r) => r.status), ['ok', 'ok']);
  // Its pool from its 255.5 GiB: the H100 SXM point's 28,011 pages of 2 MiB (16 tokens · 128 KiB) are
  // 79.22 · 0.9 − 54.71 = 16.59 GiB of weights and reserves short of its budget; 255.5 · 0.9 − 16.59 =
  // 213.36 GiB = 109,241 pages, as the simulate line of the profile alone says.
  assert.match(sweep.stdout, /^MI325X \(user-given\)\s.*\s109,241\s/m);
});

test('estimate on DeepSeek-V3 fp8 prints the weights one GPU holds, 629 GiB, as the editor\'s hint on model_type (s46: "weights 627 GiB", the checkpoint alone, beside a note saying the bf16 kv_b_proj copies were in it)', async () => {
  // 672,987,104,256 B checkpoint (627 GiB) + 61 · 512 · 128 · (128 + 128) · 2 B = 2,046,820,352 B of bf16
  // copies of kv_b_proj's halves (vLLM process_weights_after_loading, counted by "Model loading took")
  // = 675,033,924,608 B = 628.67 GiB; test/lsp/hints.test.ts asserts the hint's "629 GiB weights".
  const file = join(root, 'test', 'fixtures', 'configs', 'DeepSeek-V3.config.json');
  let out = '';
  let err = '';
  const stdout = new Writable({ write: (c, _e, done) => { out += String(c); done(); } });
  const stderr = new Writable({ write: (c, _e, done) => { err += String(c); done(); } });
  assert.equal(await main(['estimate', file], { stdout, stderr }), 0, err);
  assert.match(out, /\n {2}weights {11}629 GiB \(checkpoint 627 GiB \+ 1\.91 GiB bf16 kv_b_proj copies\)\n/);
});
