// The benchmark scripts' inputs: npm run bench:lsp edits every HuggingFace config of
// test/fixtures/configs, a folder that also holds a README.md (which has no layer count).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { configDocs } from '../../scripts/bench-lsp';
import { tempDir } from '../fixtures/tmp';

const CONFIGS = resolve(import.meta.dirname, '../fixtures/configs');

test('bench:lsp takes every *.config.json of the fixtures and nothing else', () => {
  const expected = readdirSync(CONFIGS).filter((n) => n.endsWith('.config.json')).sort();
  assert.ok(readdirSync(CONFIGS).includes('README.md'), 'the folder holds a README.md, which must be left out');
  const docs = configDocs(CONFIGS);
  assert.deepEqual(docs.map((d) => d.name), expected);
  // Llama-3.1-8B has 32 layers (model card); the edit rewrites 32 to 33.
  const llama = docs.find((d) => d.name === 'Meta-Llama-3-8B.config.json')!;
  assert.deepEqual(llama.values, ['32', '33']);
  // gpt2 spells it n_layer: 12.
  assert.deepEqual(docs.find((d) => d.name === 'gpt2.config.json')!.values, ['12', '13']);
});

test('bench:lsp names a config without a layer count instead of crashing on null', () => {
  const dir = tempDir('bench-lsp-');
  writeFileSync(join(dir, 'nolayers.config.json'), '{"hidden_size": 8}');
  assert.throws(() => configDocs(dir), /nolayers\.config\.json: no num_hidden_layers or n_layer/);
});

test('bench:kernels targets: a case that did not run (--quick) says not measured, with no "on ?" placeholder', async () => {
  const { checkTargets } = await import('../../scripts/bench-kernels');
  const lines = checkTargets([], []);
  const bf16 = lines.filter((l) => l.startsWith('flash bf16 N=4k D=128'));
  assert.deepEqual(bf16, [
    'flash bf16 N=4k D=128 no slower than fp32 (fp32 time / bf16 time): not measured by wall time; not measured by CPU time',
    'flash bf16 N=4k D=128 causal no slower than fp32 (fp32 time / bf16 time): not measured by wall time; not measured by CPU time',
  ]);
  for (const l of lines) assert.doesNotMatch(l, /\?/, l);
});

test('bench:kernels decode bounds: where the kernel lies between max(read, arithmetic) and read + arithmetic', async () => {
  const { decodeBounds } = await import('../../scripts/bench-kernels');
  // A 64 KiB page read alone in 2 µs (32.768 GB/s), its arithmetic in L2 1 µs (65.536 GB/s):
  // one after the other 3 µs (21.845 GB/s), fully overlapped 2 µs. A kernel taking 2.5 µs hides
  // half the arithmetic: overlap (2.5 - 2) / (3 - 2) = 0.5.
  const b = decodeBounds(65536, 2000, 1000, 2500);
  assert.equal(b.readGBps, 32.768);
  assert.equal(b.computeGBps, 65.536);
  assert.ok(Math.abs(b.serialGBps - 65536 / 3000) < 1e-12);
  assert.equal(b.kernelGBps, 26.2144);
  assert.equal(b.overlap, 0.5);
  assert.equal(decodeBounds(65536, 2000, 1000, 3000).overlap, 1); // none hidden
  assert.equal(decodeBounds(65536, 2000, 1000, 2000).overlap, 0); // all hidden
});
