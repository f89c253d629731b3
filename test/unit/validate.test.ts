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

test('a deployment check keeps the editor\'s severity and is a warning in a run', () => {
  // Llama-3.1-8B bf16: 14.96 GiB of weights > 8 GiB × 0.9 = 7.20 GiB.
  const v = validate('device:\n  memory_gib: 8\n');
  const weights = v.problems.find((p) => p.code === 'weights-exceed-device')!;
  assert.equal(weights.severity, 'error');
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
