/**
 * schemas/run.schema.json says each figure's unit (s50 schemadoc; README: "every field, with its
 * unit in its description"), and every other field what it is and its values (s51): every numeric property of the run schema — a number, a number or
 * null, a number or 'auto', an enum of numbers — at any depth (definitions, inline objects, array
 * items, union members) carries a description, which scripts/run-schema.ts takes from the
 * property's doc comment in the types. test/cli/run-schema.test.ts checks that the committed file
 * is what the types give now, so reading the committed file here is reading the types.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

type Node = Record<string, unknown>;

const schema = JSON.parse(readFileSync(join(__dirname, '..', '..', 'schemas', 'run.schema.json'), 'utf8')) as Node;

/** A schema that admits a number: type number, an anyOf with one, or an enum with a numeric member. */
function isNumeric(s: Node): boolean {
  if (s.type === 'number' || s.type === 'integer') return true;
  if (Array.isArray(s.anyOf) && (s.anyOf as Node[]).some(isNumeric)) return true;
  return Array.isArray(s.enum) && (s.enum as unknown[]).some((v) => typeof v === 'number');
}

/** Every property schema under node, by a dotted path ("Def.prop.inner", "[]" for array items), depth first. */
function properties(node: unknown, path: string, out: Array<{ path: string; schema: Node }>): Array<{ path: string; schema: Node }> {
  if (node === null || typeof node !== 'object') return out;
  const n = node as Node;
  for (const [name, s] of Object.entries((n.properties ?? {}) as Record<string, Node>)) {
    out.push({ path: `${path}.${name}`, schema: s });
    properties(s, `${path}.${name}`, out);
  }
  if (n.items) properties(n.items, `${path}[]`, out);
  if (typeof n.additionalProperties === 'object') properties(n.additionalProperties, `${path}[key]`, out);
  for (const member of (n.anyOf ?? []) as Node[]) properties(member, path, out);
  return out;
}

const all = Object.entries(schema.definitions as Record<string, Node>).flatMap(([name, def]) => properties(def, name, []));
const undescribed = [...new Set(all.filter((p) => isNumeric(p.schema) && !p.schema.description).map((p) => p.path))].sort();

/**
 * Numeric properties still without a description (inline object types not yet given doc comments):
 * this list must only shrink. Give the field a doc comment (what it is, its unit), run
 * `npm run schema:run`, and delete its line here.
 */
const KNOWN_UNDESCRIBED: string[] = [
];

test('every numeric property of the run schema has a description (its unit), but the known list, which only shrinks', () => {
  // The walk sees the fields it must: a nested inline one and a definition's own (hand-checked in the file).
  assert.ok(all.some((p) => p.path === 'MeasuredCoefficient.error.max'), 'the walk reaches inline objects');
  assert.ok(all.some((p) => p.path === 'CapacityPoint.goodputRequestsPerSec' && isNumeric(p.schema)));
  assert.ok(all.some((p) => p.path === 'KvCacheSpec.numPages' && isNumeric(p.schema)), "a number or 'auto' counts as numeric");
  assert.ok(all.filter((p) => isNumeric(p.schema)).length > 300, 'the schema has its hundreds of numeric fields');
  const added = undescribed.filter((p) => !KNOWN_UNDESCRIBED.includes(p));
  assert.deepEqual(added, [], 'numeric fields with no doc comment: give each one (what it is, its unit), then `npm run schema:run`');
  const fixed = KNOWN_UNDESCRIBED.filter((p) => !undescribed.includes(p));
  assert.deepEqual(fixed, [], 'these now have a description: delete them from KNOWN_UNDESCRIBED');
});

test('every property of the run schema, numeric or not, has a description (what it is, its values) (s51: 130 strings, booleans, enums, arrays and references had none)', () => {
  // The walk reaches non-numeric fields at every depth: a reference, an array's items, an inline object's, a union member's, a map's keys.
  for (const path of ['RunResult.profile', 'SweepPointInfo.axes[].key', 'Environment.simdDispatch[].unit', 'LengthDist.dist', 'ModelSpec.sourceKeys.hiddenSize', 'Environment.peaks.notes.readBytesPerSec']) {
    assert.ok(all.some((p) => p.path === path), `the walk reaches ${path}`);
  }
  assert.ok(all.length > 700, `the schema has its hundreds of fields (776 in s51): ${all.length}`);
  const none = [...new Set(all.filter((p) => !p.schema.description).map((p) => p.path))].sort();
  assert.deepEqual(none, [], 'fields with no doc comment: give each one (what it is, its values; a map\'s keys: an @entry tag on the map), then `npm run schema:run`');
  // A map's keys are described from its @entry tag (scripts/run-schema.ts), each naming its key.
  const description = (path: string): string => String(all.find((p) => p.path === path)?.schema.description ?? '');
  assert.match(description('ModelSpec.sourceKeys.hiddenSize'), /^The config's JSON path the model's hiddenSize was read from/);
  assert.match(description('LatencySummary.unmeasured.ttft'), /^Why the ttft statistic is null/);
  // Each member of a union keeps its own: LengthDist's four 'dist' values, four descriptions.
  assert.equal(new Set(all.filter((p) => p.path === 'LengthDist.dist').map((p) => p.schema.description)).size, 4);
});

test('the units the README names are in the descriptions the newcomer found missing', () => {
  const description = (path: string): string => String(all.find((p) => p.path === path)?.schema.description ?? '');
  assert.match(description('CapacityPoint.goodputRequestsPerSec'), /requests\/s/);
  assert.match(description('CapacityPoint.sloAttainment'), /fraction 0-1/i);
  assert.match(description('GpuFigures.computePeak'), /FLOP\/s/);
  assert.match(description('DeviceSpec.gpuMemoryUtilization'), /fraction 0-1/i);
  assert.match(description('KernelCase.medianNs'), /nanoseconds/);
});
