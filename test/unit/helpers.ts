/**
 * Shared by the unit tests: the real HF configs read into ModelSpecs. Each is stored once:
 * test/fixtures/configs/<name>.config.json (shared with the LSP tests), or, for the models the
 * examples use, examples/<model>/config.json.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readModelConfig, type ModelSpec } from '../../core/config/index';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'configs');
const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples');

/** The configs the examples ship, by the model name the fixtures use. */
const IN_EXAMPLES: Record<string, string> = {
  'Llama-3.1-8B': 'llama-3.1-8b',
  'gpt-oss-20b': 'gpt-oss-20b',
  'Qwen3-30B-A3B': 'qwen3-30b-a3b',
};

/** The path of a real config by model name ("Llama-3.1-8B", "gpt2"). */
export function configPath(name: string): string {
  const example = IN_EXAMPLES[name];
  return example !== undefined ? join(EXAMPLES, example, 'config.json') : join(FIXTURES, `${name}.config.json`);
}

/** Every real config's model name: test/fixtures/configs and the examples'. */
export function configNames(): string[] {
  const fixtures = readdirSync(FIXTURES).filter((f) => f.endsWith('.config.json')).map((f) => f.replace(/\.config\.json$/, ''));
  return [...fixtures, ...Object.keys(IN_EXAMPLES)].sort();
}

export function fixtureText(name: string): string {
  return readFileSync(configPath(name), 'utf8');
}

/** Reads a shipped config and fails loudly when it does not read cleanly. */
export function loadModel(name: string): ModelSpec {
  const r = readModelConfig(fixtureText(name), `${name}.json`);
  if (!r.value) throw new Error(`${name}: ${r.problems.map((p) => p.message).join('; ')}`);
  return r.value;
}
