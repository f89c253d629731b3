/**
 * The run file schema's validator as code (scripts/run-validator.mjs, ajv standalone) and the
 * check of a run file read back that uses it (core/protocol/runCheck.ts): a value of the wrong
 * kind is named at its place; keys missing or unknown (a file of another build) are not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { runValueMismatch } from '../../core/protocol/runCheck';
import { run as recorded } from '../fixtures/run';

const root = join(__dirname, '..', '..');

test('core/protocol/runValidator.generated.js is in step with schemas/run.schema.json', () => {
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'run-validator.mjs'), '--check'], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, `${r.stderr}(npm run build:bundles writes it; commit the result)`);
});

test('a run file\'s value of the wrong kind is named with the kinds the schema allows, at the value\'s offset', () => {
  const text = (v: unknown) => JSON.stringify(v, null, 2);
  assert.equal(runValueMismatch(recorded, text(recorded)), null, 'the recorded bench run is a run file');
  // "meanOccupancy": "abc": at the string's opening quote.
  const summary = { ...recorded.pool!.summary, meanOccupancy: 'abc' };
  const edited = { ...recorded, pool: { ...recorded.pool!, summary } };
  const t = text(edited);
  const r = runValueMismatch(edited, t);
  assert.equal(r?.message, 'pool.summary.meanOccupancy is the string "abc", where a run file has a number');
  assert.equal(r?.offset, t.indexOf('"meanOccupancy": "abc"') + '"meanOccupancy": '.length);
  // A typo'd kind: its two values named, from the schema's enum (core/protocol/run.ts RunKind).
  const kind = { ...recorded, kind: 'simulat' };
  const k = runValueMismatch(kind, text(kind));
  assert.equal(k?.message, 'kind is the string "simulat", where a run file has "bench" or "simulate"');
  assert.equal(k?.offset, text(kind).indexOf('"simulat"'));
});

test('keys a run file lacks or the schema does not name are a file of another build, not a mismatch', () => {
  const { environment, ...noEnvironment } = recorded;
  assert.ok(environment);
  assert.equal(runValueMismatch(noEnvironment, JSON.stringify(noEnvironment)), null);
  const extra = { ...recorded, addedLater: 1 };
  assert.equal(runValueMismatch(extra, JSON.stringify(extra)), null);
  // A union's object lacking keys (model.mla is an MLA spec or null): not "must be null".
  const mla = { ...recorded, profile: { ...recorded.profile, model: { ...recorded.profile.model, mla: { kvLoraRank: 512 } } } };
  assert.equal(runValueMismatch(mla, JSON.stringify(mla)), null);
  // But a value of the wrong kind inside it is named.
  const badMla = { ...recorded, profile: { ...recorded.profile, model: { ...recorded.profile.model, mla: { kvLoraRank: 'x' } } } };
  assert.equal(runValueMismatch(badMla, JSON.stringify(badMla))?.message, 'profile.model.mla.kvLoraRank is the string "x", where a run file has a number');
});
