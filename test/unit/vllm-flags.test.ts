/**
 * vLLM settings the estimate does not model (core/config/vllmFlags.ts): each gets its own warning
 * naming what it would change, not "unknown key", in any section and as a sweep axis; the figures
 * are unchanged (s39 newcomer F1).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { readProfile } from '../../core/config/index';
import { axisProblems } from '../../core/config/sweep';
import { UNMODELLED_VLLM_FLAGS } from '../../core/config/vllmFlags';
import { estimate } from '../../core/estimate/index';
import schema from '../../schemas/attn-profile.schema.json';

const EXAMPLES = resolve(__dirname, '../../examples');
const read = (yaml: string) => readProfile(`model: ./llama-3.1-8b/config.json\n${yaml}`, join(EXAMPLES, 'test.attn.yaml'), { readFile: (p) => readFileSync(p, 'utf8') });

test('a vLLM flag the estimate does not model: its own warning at the key, saying what it would change; figures unchanged', () => {
  const base = read('device: { gpu: H100 SXM }\n');
  const r = read([
    'device: { gpu: H100 SXM, enable_expert_parallel: true }',
    'engine: { swap_space: 4, speculative_config: { method: eagle, num_speculative_tokens: 3 } }',
    'workload: { enable_chunked_prefill: false }',
  ].join('\n') + '\n');
  assert.ok(r.value, JSON.stringify(r.problems));
  const flags = r.problems.filter((p) => p.code === 'vllm-flag-not-modelled');
  assert.deepEqual(flags.map((p) => p.data?.['key']), ['enable_expert_parallel', 'swap_space', 'speculative_config', 'enable_chunked_prefill']);
  assert.ok(!r.problems.some((p) => p.code === 'unknown-key'), JSON.stringify(r.problems));
  for (const p of flags) assert.equal(p.severity, 'warning');
  assert.match(flags[1]!.message, /^swap_space is a vLLM setting \(--swap-space, CacheConfig\.swap_space\) the estimate does not model: none on the GPU pool/);
  assert.match(flags[2]!.message, /^speculative_config is a vLLM setting .* the estimate does not model: speculative decoding: the draft model's weights and its KV .* are not counted/);
  assert.equal(estimate(r.value).pool.pages, estimate(base.value!).pool.pages);
  // A typo stays a typo.
  const typo = read('device: { gpu: H100 SXM, swap_spase: 4 }\n');
  assert.equal(typo.problems.find((p) => p.code === 'vllm-flag-not-modelled'), undefined);
  assert.ok(typo.problems.some((p) => p.code === 'unknown-key'));
});

test('the table names no key the schema models, and a sweep axis of one says what it is', () => {
  const modelled = new Set<string>();
  const walk = (s: { properties?: Record<string, unknown> }) => {
    for (const [k, v] of Object.entries(s.properties ?? {})) {
      modelled.add(k);
      if (v && typeof v === 'object') walk(v as { properties?: Record<string, unknown> });
    }
  };
  walk(schema as { properties?: Record<string, unknown> });
  for (const f of UNMODELLED_VLLM_FLAGS) assert.ok(!modelled.has(f.key), `${f.key} is a profile key`);
  const [p] = axisProblems([{ key: 'engine.swap_space', values: [], keyRange: null }], () => ({ offset: 0, length: 0 }));
  assert.match(p!.message, /^"engine\.swap_space" is not a profile key to sweep: swap_space is a vLLM setting .* does not model/);
});
