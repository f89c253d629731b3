/**
 * The profile schema's validator as code (scripts/profile-validator.mjs, ajv standalone): the
 * committed module is the schema's, and it keeps what profileSchema.ts reads from ajv's errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { anyOfBySchemaPath, profile } from '../../core/config/profileValidator.generated.js';

const root = join(__dirname, '..', '..');

test('core/config/profileValidator.generated.js is in step with schemas/attn-profile.schema.json', () => {
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'profile-validator.mjs'), '--check'], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, `${r.stderr}(npm run build:bundles writes it; commit the result)`);
});

test('the generated validator reports as ajv did at run time: every error (allErrors), each with its parentSchema (verbose)', () => {
  assert.equal(profile({ model: 'm/config.json' }), true);
  // Two errors in one profile: both reported, not only the first.
  assert.equal(profile({ model: 'm/config.json', dtype: 'bf17', kv_cache: { page_size: '16' } }), false);
  const dtype = profile.errors!.find((e) => e.instancePath === '/dtype' && e.keyword === 'enum');
  assert.ok((dtype?.parentSchema as { enum?: string[] } | undefined)?.enum?.includes('bf16'), 'the dtype error carries its schema, whose enum lists bf16');
  assert.ok(profile.errors!.some((e) => e.instancePath === '/kv_cache/page_size' && e.keyword === 'type'));
});

test('each anyOf with a number branch has its own validator, keyed by the anyOf\'s schemaPath', () => {
  // By hand from the schema: device.gpu (string | object) has no number branch; engine's four *_gib,
  // kv_cache.num_pages, kv_cache.memory_gib and step_time.all_reduce.efficiency do.
  assert.deepEqual(Object.keys(anyOfBySchemaPath).sort(), [
    '#/properties/engine/properties/activation_gib/anyOf',
    '#/properties/engine/properties/cuda_graph_gib/anyOf',
    '#/properties/engine/properties/nccl_gib/anyOf',
    '#/properties/engine/properties/non_torch_gib/anyOf',
    '#/properties/kv_cache/properties/memory_gib/anyOf',
    '#/properties/kv_cache/properties/num_pages/anyOf',
    '#/properties/step_time/properties/all_reduce/properties/efficiency/anyOf',
  ]);
  // memory_gib: "auto" or a number in (0, 1048576]; num_pages: "auto" or an integer in [1, 2^31 - 1].
  const memory = anyOfBySchemaPath['#/properties/kv_cache/properties/memory_gib/anyOf']!;
  assert.deepEqual([4, 0.5, 0, 2e6, 'auto'].map((v) => memory(v)), [true, true, false, false, true]);
  const pages = anyOfBySchemaPath['#/properties/kv_cache/properties/num_pages/anyOf']!;
  assert.deepEqual([4, 4.5, 0].map((v) => pages(v)), [true, false, false]);
});
