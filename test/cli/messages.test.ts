/**
 * What the CLI says where a newcomer's input is wrong or surprising (session 31): a flag given
 * twice, a symbolic link loop, a vLLM log of two start-ups, an encoder-only model against a vLLM
 * log, a BurstGPT filter of another case, a trace stamped in milliseconds, a sweep no point of
 * which meets the SLO, a sweep with errors in several points. Through the built dist/runner.js.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../fixtures/tmp';

const root = join(__dirname, '..', '..');
const runner = join(root, 'dist', 'runner.js');
const llamaConfig = join(root, 'examples', 'llama-3.1-8b', 'config.json');

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [runner, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A profile of Llama-3.1-8B with a fixed pool and a small workload, in a fresh folder. */
function profileDir(extra = ''): { dir: string; profile: string } {
  const dir = tempDir('attnscope-msg-');
  const profile = join(dir, 'p.attn.yaml');
  writeFileSync(profile, `model: ${JSON.stringify(llamaConfig)}\nkv_cache: { page_size: 16, num_pages: 2048 }\nworkload: { requests: 20, arrival_rate: 2, max_model_len: 8192 }\n${extra}`);
  return { dir, profile };
}

test('a flag that takes one value given twice (--trace a --trace b) is refused before any work, naming both values: exit 2, one line', () => {
  const { dir, profile } = profileDir();
  const a = join(dir, 'a.jsonl');
  const b = join(dir, 'b.jsonl');
  for (const f of [a, b]) writeFileSync(f, '{"arrival_s": 0, "prompt_len": 100, "output_len": 10}\n');
  const r = cli(['simulate', profile, '--trace', a, '--trace', b]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr, `attnscope: --trace is given 2 times ('${a}', then '${b}'): it takes one value; give it once\n`);
  assert.equal(r.stdout, '');
  // The --flag=value spelling counts the same; a boolean flag twice says the same thing twice and runs.
  const eq = cli(['simulate', profile, `--trace=${a}`, '--trace', b]);
  assert.equal(eq.code, 2);
  assert.match(eq.stderr, /^attnscope: --trace is given 2 times/);
  const once = cli(['estimate', profile, '--json', '--json']);
  assert.equal(once.code, 0, once.stderr);
});

test('a symbolic link loop (ELOOP) is one line at the file saying so, for a profile, a trace, a vLLM log, a sweep and a results folder: exit 2, no Node error text', () => {
  const { dir, profile } = profileDir();
  const loop = (name: string) => {
    // x -> y -> x: opening either fails with ELOOP.
    symlinkSync(`${name}.2`, join(dir, name));
    symlinkSync(name, join(dir, `${name}.2`));
    return join(dir, name);
  };
  const p = loop('loop.attn.yaml');
  const t = loop('loop.jsonl');
  const l = loop('loop.log');
  const d = loop('results');
  for (const [args, file, prefix] of [
    [['estimate', p], p, ''],
    [['simulate', profile, '--trace', t], t, 'cannot read the trace: '],
    [['vllm-log', l], l, ''],
    [['sweep', p, '--set', 'kv_cache.page_size=8,16'], p, ''],
    [['merge', d], d, ''],
  ] as const) {
    const r = cli([...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr, `${file}:1:1: ${prefix}symbolic link loop: a link on the path leads back to itself; point it at the file\n`, args.join(' '));
  }
});
