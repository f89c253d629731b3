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

test("workload.max_model_len in vLLM's spellings (32k, 32K, -1, auto): refused with what vLLM means and the integer to write (s39 newcomer 12)", () => {
  const message = (v: string) => validate(`workload: { max_model_len: ${v} }\n`).problems.find((p) => p.severity === 'error')?.message;
  // vllm/engine/arg_utils.py human_readable_int: '1k' -> 1,000, '1K' -> 1,024, '25.6k' -> 25,600 (its docstring).
  assert.equal(message('32k'), 'workload.max_model_len must be an integer, not the string "32k": vLLM reads 32k as 32,000 (human_readable_int: lowercase k = 1,000): write 32000');
  assert.match(message('25.6k')!, /vLLM reads 25\.6k as 25,600 .*: write 25600$/);
  assert.match(message('32K')!, /reads 32K as 32,768 \(uppercase K = 1,024; a later form of it takes 32Ki for that and refuses 32K\): write 32768$/);
  assert.match(message('1.5K')!, /vLLM refuses decimals with a binary suffix \(1\.5K\)/);
  for (const v of ['-1', 'auto']) assert.match(message(v)!, /vLLM's -1 \/ auto sizes max_model_len to the longest the KV cache holds; write that number/, v);
  // Other keys and other strings: the message as before.
  assert.equal(message('abc'), 'workload.max_model_len must be an integer, not the string "abc"');
});

test("kv_cache.dtype fp8_inc / fp8_ds_mla (vLLM's CacheDType values) are refused saying what vLLM means and what to write (s39 newcomer 12)", () => {
  const message = (v: string) => validate(`kv_cache: { dtype: ${v} }\n`).problems.find((p) => p.severity === 'error')?.message;
  assert.match(message('fp8_inc')!, /not the string "fp8_inc": vLLM's fp8_inc is the fp8 \(e4m3\) KV cache of Intel Gaudi .*: write fp8_e4m3 for its memory$/);
  assert.match(message('fp8_ds_mla')!, /vLLM's fp8_ds_mla is DeepSeek's sparse-MLA \(FlashMLA\) fp8 layout/);
});
