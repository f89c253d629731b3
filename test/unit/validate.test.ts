/**
 * core/validate.ts: the one validation the editor and the CLI share, and runSeverity, the
 * severity a run gives each problem (DESIGN.md "Errors and warnings").
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runSeverity, validateProfileText, POOL_NOT_SIMULABLE } from '../../core/validate';

const LLAMA = join(__dirname, '..', '..', 'examples', 'llama-3.1-8b', 'config.json');
const host = { readFile: (p: string) => (p === '/p/llama/config.json' ? readFileSync(LLAMA, 'utf8') : null) };
const validate = (yaml: string) => validateProfileText(`model: ./llama/config.json\n${yaml}`, '/p/x.attn.yaml', host);

test('every error at once: the three of three keys, each at its own value', () => {
  const v = validate('device:\n  tensor_parallel_size: 3\nworkload:\n  requests: 1\n  arrival_rate: 1\n  prompt_len: { dist: uniform, min: 9, max: 8 }\n  output_len: { dist: fixed, value: 8 }\n  max_model_len: 131073\n');
  const errors = v.problems.filter((p) => p.severity === 'error');
  assert.deepEqual(errors.map((p) => p.code).sort(), ['exceeds-max-position', 'invalid-value', 'tp-not-divisible']);
  assert.equal(new Set(errors.map((p) => p.range.offset)).size, 3);
  assert.ok(errors.every((p) => runSeverity(p) === 'error'));
});

test('weights that do not fit the device: a warning in the editor as in a run (s38 newcomer-ed 4)', () => {
  // Llama-3.1-8B bf16: 14.96 GiB of weights > 8 GiB × 0.9 = 7.20 GiB.
  const v = validate('device:\n  memory_gib: 8\n');
  const weights = v.problems.find((p) => p.code === 'weights-exceed-device')!;
  assert.equal(weights.severity, 'warning');
  assert.equal(runSeverity(weights), 'warning');
  // The pool that leaves no page is the one simulate refuses: one problem, a warning in both.
  const withWorkload = validate('device:\n  memory_gib: 8\nworkload:\n  requests: 1\n  arrival_rate: 1\n  prompt_len: { dist: fixed, value: 8 }\n  output_len: { dist: fixed, value: 8 }\n');
  const pool = withWorkload.problems.filter((p) => p.code === POOL_NOT_SIMULABLE);
  assert.equal(pool.length, 1);
  assert.equal(runSeverity(pool[0]!), 'warning');
});

test('warnings and infos keep their severity in a run', () => {
  const v = validate('prefill:\n  seq_lens: [200000]\n');
  const long = v.problems.find((p) => p.code === 'exceeds-max-position')!;
  assert.equal(long.severity, 'warning');
  assert.equal(runSeverity(long), 'warning');
  const info = validate('').problems.find((p) => p.code === 'no-memory-budget')!;
  assert.equal(runSeverity(info), 'info');
});

test('errors at some keys leave the profile of the others and its deployment checks that read none of them', () => {
  // fp8 KV (an estimate only) beside an invalid page_size: the warning stays, the profile does not.
  const v = validate('kv_cache:\n  page_size: 0\n  dtype: fp8\n');
  assert.equal(v.profile, null);
  assert.deepEqual(v.partial?.invalid, ['kv_cache.page_size']);
  assert.ok(v.problems.some((p) => p.code === 'kv-dtype-estimate-only'));
});

test('a schema error hides no cross-key check: the three errors of three keys, each at its own value', () => {
  // dtype bf17 is not a dtype (schema); tensor_parallel_size 3 does not divide Llama-3.1-8B's 32
  // heads (config.json num_attention_heads 32) and max_num_batched_tokens 64 < max_num_seqs 128
  // (vLLM's SchedulerConfig refuses it): two cross-key errors of keys that are valid on their own.
  const text = 'dtype: bf17\ndevice:\n  tensor_parallel_size: 3\n  memory_gib: 80\nworkload:\n  max_num_seqs: 128\n  max_num_batched_tokens: 64\n';
  const v = validate(text);
  const full = `model: ./llama/config.json\n${text}`;
  const errors = v.problems.filter((p) => p.severity === 'error').map((p) => [p.code, full.slice(p.range.offset, p.range.offset + p.range.length)]);
  assert.deepEqual(errors.sort(), [['batch-limits-conflict', '64'], ['invalid-value', 'bf17'], ['tp-not-divisible', '3']]);
  assert.equal(v.profile, null);
});

test('a cross-key check that reads a key in error is skipped, not run on its default', () => {
  // max_num_batched_tokens "lots" is left out; vLLM's default in its place (8,192 on a >= 70 GiB
  // GPU: core/estimate batchDefaults) would be below max_num_seqs 10,000: that conflict is the
  // default's, not the user's. The page_size warning, which reads neither key, stays.
  const v = validate('device:\n  memory_gib: 80\nkv_cache:\n  page_size: 12\nworkload:\n  max_num_seqs: 10000\n  max_num_batched_tokens: lots\n');
  assert.deepEqual(v.problems.map((p) => p.code).sort(), ['page-size-unusual', 'wrong-type']);
});

test('cross-key checks are reported once when no key has a schema error', () => {
  // No schema error: the read itself ran every check; leaving out tensor_parallel_size for the
  // figures must not add the page_size warning a second time.
  const v = validate('device:\n  tensor_parallel_size: 3\nkv_cache:\n  page_size: 12\n');
  assert.deepEqual(v.problems.filter((p) => p.code !== 'no-memory-budget').map((p) => p.code).sort(), ['page-size-unusual', 'tp-not-divisible']);
});

test("workload.max_model_len in vLLM's spellings (32k, 32K, 25.6k): read as vLLM reads them, with an info saying so; what vLLM refuses, refused (s39 newcomer 12)", () => {
  const read = (v: string) => validate(`workload: { max_model_len: ${v} }\n`);
  const message = (v: string) => read(v).problems.find((p) => p.severity === 'error')?.message;
  // vllm/utils/argparse_utils.py human_readable_int (before: vllm/engine/arg_utils.py): lowercase
  // decimal, int(float(number) * 10**3), uppercase binary, int(number) * 2**10 ('1k' -> 1,000,
  // '1K' -> 1,024, '25.6k' -> 25,600: its docstring); 0.5m = 500,000 > Llama-3.1's 131,072.
  for (const [text, tokens, words] of [['32k', 32000, 'lowercase k = 1,000'], ['32K', 32768, 'uppercase K = 1,024'], ['25.6k', 25600, 'lowercase k = 1,000'], [' 8K ', 8192, 'uppercase K = 1,024'], ['0.1m', 100000, 'lowercase m = 1,000,000']] as const) {
    const v = read(`"${text}"`);
    assert.equal(v.problems.filter((p) => p.severity === 'error').length, 0, `${text}: ${JSON.stringify(v.problems)}`);
    assert.equal(v.profile!.workload!.maxModelLen, tokens, text);
    const info = v.problems.find((p) => p.code === 'vllm-length-read')!;
    assert.equal(info.severity, 'info');
    assert.equal(info.message, `max_model_len ${text.trim()} is read as ${tokens.toLocaleString('en-US')} tokens, as vLLM's --max-model-len reads it (vllm/utils/argparse_utils.py human_readable_int: ${words})`);
  }
  // What vLLM refuses ("Decimals are not allowed with binary suffixes like K"), and what it reads
  // out of range (3g = 3,000,000,000 > 2^31 - 1), stay errors at the value, saying what vLLM does.
  assert.equal(message('1.5K'), 'workload.max_model_len must be an integer, not the string "1.5K": vLLM refuses decimals with a binary suffix ("Decimals are not allowed with binary suffixes like K. Did you mean to use 1.5k instead?")');
  assert.equal(message('3g'), 'workload.max_model_len must be <= 2,147,483,647, not 3g: vLLM reads 3g as 3,000,000,000 (vllm/utils/argparse_utils.py human_readable_int: lowercase g = 1,000,000,000)');
  assert.match(message('0.0001k')!, /must be >= 1, not 0\.0001k: vLLM reads 0\.0001k as 0 /);
  for (const v of ['-1', 'auto']) assert.match(message(v)!, /vLLM's -1 \/ auto sizes max_model_len to the longest the KV cache holds; write that number/, v);
  // Other strings: the message as before.
  assert.equal(message('abc'), 'workload.max_model_len must be an integer, not the string "abc"');
  assert.equal(message('32x'), 'workload.max_model_len must be an integer, not the string "32x"');
});

test("kv_cache.dtype fp8_inc / fp8_ds_mla (vLLM's CacheDType values) are refused saying what vLLM means and what to write (s39 newcomer 12)", () => {
  const message = (v: string) => validate(`kv_cache: { dtype: ${v} }\n`).problems.find((p) => p.severity === 'error')?.message;
  assert.match(message('fp8_inc')!, /not the string "fp8_inc": vLLM's fp8_inc is the fp8 \(e4m3\) KV cache of Intel Gaudi .*: write fp8_e4m3 for its memory$/);
  assert.match(message('fp8_ds_mla')!, /vLLM's fp8_ds_mla is DeepSeek's sparse-MLA \(FlashMLA\) fp8 layout/);
});
