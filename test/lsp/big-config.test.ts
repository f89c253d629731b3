/**
 * Big model configs in the editor (s38 newcomer-ed 2). The config is a classifier's: Llama-3.1-8B
 * with id2label / label2id maps of 200,000 labels (11 MB, 400,037 lines; bench:config-size's
 * labelledConfig, as an extreme multi-label classification head's config.json holds them). A
 * profile pointing at it gets its hints, and the server keeps the config's text between
 * keystrokes (server/workspace.ts diskText) yet sees it change on disk by its stat, with no watcher
 * event (a config outside the watched folders).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { labelledConfig } from '../../scripts/bench-config-size';
import { LspClient, hintLabel, positionAt } from './harness';
import { tempDir } from '../fixtures/tmp';

let client: LspClient;
let dir: string;
const BIG = labelledConfig(200_000);

before(async () => {
  client = await LspClient.start();
  dir = tempDir('attnscope-big-config-');
  writeFileSync(join(dir, 'config.json'), BIG);
});
after(async () => {
  assert.equal(await client.stop(), 0);
});

test('a profile whose config.json is 11 MB gets its hints, and sees the config change on disk at its next edit', async () => {
  assert.ok(BIG.length > 11e6 && BIG.split('\n').length > 400_000, `${BIG.length} chars`);
  const uri = pathToFileURL(join(dir, 'p.attn.yaml')).href;
  const text = 'model: ./config.json\nkv_cache:\n  page_size: 16\n  memory_gib: 3.8125\n';
  await client.open(uri, text);
  // KV per token: 32 layers · 2 (K, V) · 8 KV heads · 128 head_dim · 2 B (bf16) = 131,072 B = 128 KiB.
  // A page: 16 tokens · 128 KiB = 2 MiB; 3.8125 GiB / 2 MiB = 1,952 pages = 31,232 tokens (vLLM's
  // log for this model at 3.8125 GiB: "# GPU blocks: 1952"). Weights: Llama-3.1-8B's 8.03B params · 2 B.
  let hints = (await client.inlayHints(uri))!.map(hintLabel);
  assert.ok(hints.includes('15 GiB weights, 128 KiB KV/token'), JSON.stringify(hints));
  assert.ok(hints.includes('31,232 tokens · 1,952 × 2 MiB'), JSON.stringify(hints));

  const at = positionAt(text, text.indexOf('16'));
  const range = { start: at, end: { line: at.line, character: at.character + 2 } };
  await client.change(uri, [{ range, text: '32' }]);
  // 32 tokens · 128 KiB = 4 MiB a page: 976 pages, the same 31,232 tokens.
  hints = (await client.inlayHints(uri))!.map(hintLabel);
  assert.ok(hints.includes('31,232 tokens · 976 × 4 MiB'), JSON.stringify(hints));

  // The config changes on disk and no watcher says so: 16 KV heads (a size change, so the stat differs
  // even within one tick of the file system's clock).
  writeFileSync(join(dir, 'config.json'), BIG.replace('"num_key_value_heads": 8', '"num_key_value_heads": 16'));
  await client.change(uri, [{ range, text: '16' }]);
  // 32 · 2 · 16 · 128 · 2 = 262,144 B = 256 KiB a token; 16 tokens a page: 4 MiB, 976 pages, 15,616 tokens.
  hints = (await client.inlayHints(uri))!.map(hintLabel);
  assert.ok(hints.some((h) => h.endsWith('256 KiB KV/token')), JSON.stringify(hints));
  assert.ok(hints.includes('15,616 tokens · 976 × 4 MiB'), JSON.stringify(hints));
  await client.close(uri);
});

test('the 11 MB config.json open and edited (unsaved): its own hints follow, and so do those of a profile reading it (from the config\'s own parse)', async () => {
  const configPath = join(dir, 'open', 'config.json');
  mkdirSync(join(dir, 'open'));
  writeFileSync(configPath, BIG);
  const configUri = pathToFileURL(configPath).href;
  const profileUri = pathToFileURL(join(dir, 'open', 'p.attn.yaml')).href;
  await client.open(configUri, BIG);
  await client.open(profileUri, 'model: ./config.json\nkv_cache:\n  page_size: 16\n  memory_gib: 3.8125\n');
  let hints = (await client.inlayHints(configUri))!.map(hintLabel);
  assert.ok(hints.includes('128 KiB KV/token'), JSON.stringify(hints));
  // As typed: the digit deleted (a JSON syntax error), then 16 typed. The profile is checked again after each.
  const at = positionAt(BIG, BIG.indexOf('"num_key_value_heads": 8') + '"num_key_value_heads": '.length);
  const rechecked = client.nextDiagnostics(profileUri);
  const invalid = await client.change(configUri, [{ range: { start: at, end: { line: at.line, character: at.character + 1 } }, text: '' }]);
  assert.deepEqual(invalid.map((d) => d.message), ['JSON syntax error: value expected']);
  await rechecked;
  const again = client.nextDiagnostics(profileUri);
  await client.change(configUri, [{ range: { start: at, end: at }, text: '16' }]);
  await again;
  // 32 · 2 · 16 · 128 · 2 = 256 KiB a token: 4 MiB a 16-token page, 976 pages, 15,616 tokens at 3.8125 GiB.
  hints = (await client.inlayHints(configUri))!.map(hintLabel);
  assert.ok(hints.includes('256 KiB KV/token'), JSON.stringify(hints));
  hints = (await client.inlayHints(profileUri))!.map(hintLabel);
  assert.ok(hints.includes('15,616 tokens · 976 × 4 MiB'), JSON.stringify(hints));
  await client.close(profileUri);
  await client.close(configUri);
});
