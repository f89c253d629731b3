/** Shared by the unit tests: the real HF configs (copied from shared/data/hf-configs) read into ModelSpecs. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readModelConfig, type ModelSpec } from '../../core/config/index';

export const FIXTURES = join(import.meta.dirname, 'fixtures', 'hf-configs');

export function fixtureText(name: string): string {
  return readFileSync(join(FIXTURES, `${name}.json`), 'utf8');
}

/** Reads a shipped config and fails loudly when it does not read cleanly. */
export function loadModel(name: string): ModelSpec {
  const r = readModelConfig(fixtureText(name), `${name}.json`);
  if (!r.value) throw new Error(`${name}: ${r.problems.map((p) => p.message).join('; ')}`);
  return r.value;
}
