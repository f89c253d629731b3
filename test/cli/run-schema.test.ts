/**
 * schemas/run.schema.json (s36 sweep36 2): generated from the types (scripts/run-schema.ts) and
 * committed; the file must be what the types give now, and every kind of run file the built
 * runner writes — a bench with its pool, a simulation, a trace replay, a sweep point — and the
 * recorded bench run must validate against it with ajv. A field renamed in the types alone fails
 * the first check; one renamed in what the runner writes (or a field it writes that no type
 * names) fails the second: the schema allows no property the types do not name.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Ajv from 'ajv';
import { RUN_SCHEMA_FILE, runSchema } from '../../scripts/run-schema';
import { run as recorded } from '../fixtures/run';
import { sweepWorkspace } from '../fixtures/sweep';

const root = join(__dirname, '..', '..');
const runner = join(root, 'dist', 'runner.js');
const committed = JSON.parse(readFileSync(RUN_SCHEMA_FILE, 'utf8')) as Record<string, unknown>;

function cli(args: string[], cwd: string): void {
  const r = spawnSync(process.execPath, [runner, ...args], { encoding: 'utf8', timeout: 300_000, cwd });
  assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
}

/** ajv's errors as "path: message" lines (less the `if`'s own "must match else", which the errors inside say), for the assertion's message. */
const validate = (() => {
  const v = new Ajv({ allErrors: true, strict: true }).compile(committed);
  return (value: unknown): string[] => (v(value) ? [] : (v.errors ?? []).filter((e) => e.keyword !== 'if').map((e) => `${e.instancePath || '/'}: ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`));
})();

const PROFILE = `model: ./tiny/config.json
kv_cache: { num_pages: 400 }
workload: { requests: 50, seed: 3 }
prefill: { seq_lens: [128] }
decode: { batch_sizes: [2], context_lens: [256] }
`;

test('schemas/run.schema.json is what scripts/run-schema.ts makes of the types now (npm run schema:run writes it)', () => {
  assert.deepEqual(runSchema(), committed, 'the types changed: run `npm run schema:run` and commit schemas/run.schema.json');
});

test('every run file the runner writes validates against the schema: bench with a pool, simulate, a trace replay, a sweep point, and the recorded bench run', () => {
  const { dir } = sweepWorkspace(`${PROFILE}sweep:\n  axes:\n    kv_cache.page_size: [16, 32]\n`, 'p.attn.yaml', 'attnscope-run-schema-');
  writeFileSync(join(dir, 'plain.attn.yaml'), PROFILE);
  writeFileSync(join(dir, 't.jsonl'), '{"arrival_s": 0, "prompt_len": 100, "output_len": 10}\n{"arrival_s": 0.5, "prompt_len": 300, "output_len": 20}\n');
  cli(['bench', 'plain.attn.yaml', '--quick', '--json', 'bench.json'], dir);
  cli(['simulate', 'plain.attn.yaml', '--json', 'simulate.json'], dir);
  cli(['simulate', 'plain.attn.yaml', '--trace', 't.jsonl', '--json', 'trace.json'], dir);
  cli(['sweep', 'p.attn.yaml', '--out', 'sweep'], dir);
  const files = { bench: join(dir, 'bench.json'), simulate: join(dir, 'simulate.json'), trace: join(dir, 'trace.json'), point: join(dir, 'sweep', readdirSync(join(dir, 'sweep')).find((n) => n !== 'sweep-report.json')!) };
  const runs = Object.fromEntries(Object.entries(files).map(([k, f]) => [k, JSON.parse(readFileSync(f, 'utf8')) as Record<string, unknown>]));
  // Each is the kind it is meant to be: cases and a pool; a pool alone; a trace replayed; a point's sweep block.
  assert.ok((runs.bench!.cases as unknown[]).length > 0 && runs.bench!.pool);
  assert.equal(runs.simulate!.kind, 'simulate');
  assert.equal((runs.trace!.pool as { load: { trace?: { path: string } } }).load.trace?.path, 't.jsonl');
  assert.ok(runs.point!.sweep);
  for (const [kind, value] of Object.entries({ ...runs, recorded })) assert.deepEqual(validate(value), [], kind);
});

test('a field renamed in a written run, or one the types do not name, fails the schema at its path', () => {
  const summary = { ...recorded.pool!.summary } as Record<string, unknown>;
  summary.meanOccupancyRenamed = summary.meanOccupancy;
  delete summary.meanOccupancy;
  const renamed = { ...recorded, pool: { ...recorded.pool!, summary } };
  assert.deepEqual(validate(renamed).sort(), ["/pool/summary: must NOT have additional properties (meanOccupancyRenamed)", "/pool/summary: must have required property 'meanOccupancy'"]);
  // An optional field renamed: only its new name is caught, as a property no type names.
  const env = { ...recorded.environment, simdDispatchWhy: 'x' };
  assert.deepEqual(validate({ ...recorded, environment: env }), ['/environment: must NOT have additional properties (simdDispatchWhy)']);
});
