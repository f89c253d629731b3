/**
 * A model config reached through a symlinked folder (s53 newcomer-ed F0): the profile's model:
 * is ./m/config.json where m -> a folder elsewhere. VS Code's watcher reports no change behind a
 * symlinked folder, so the client sends no didChangeWatchedFiles when the real config.json is
 * edited: the server watches the real path of such a read itself (server/readWatcher.ts), and a
 * keystroke in the profile re-reads a config whose stat changed (server/workspace.ts diskText).
 * The client here registers for watched files (as VS Code does) and is never told of the edit.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LspClient, hintLabel, root } from './harness';
import { tempDir } from '../fixtures/tmp';

let client: LspClient;
let ws: string;
let realConfig: string;
const LLAMA = readFileSync(join(root, 'examples', 'llama-3.1-8b', 'config.json'), 'utf8');
const PROFILE = 'model: ./m/config.json\nkv_cache:\n  page_size: 16\n  memory_gib: 3.8125\n';
/** A hang guard (the test fails with this message instead of running to the file's timeout), not a speed target. */
const WAIT_MS = 60_000;

function within<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: nothing within ${WAIT_MS / 1000} s`)), WAIT_MS)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

before(async () => {
  const top = tempDir('attnscope-symlinked-');
  ws = join(top, 'ws');
  const elsewhere = join(top, 'elsewhere', 'llama');
  mkdirSync(ws);
  mkdirSync(elsewhere, { recursive: true });
  realConfig = join(elsewhere, 'config.json');
  writeFileSync(realConfig, LLAMA);
  symlinkSync(elsewhere, join(ws, 'm'), 'dir');
  client = await LspClient.start({ workspaceFolders: [ws] });
});
after(async () => {
  assert.equal(await client.stop(), 0);
});

test('the real config.json behind a symlinked folder edited on disk, no watcher event: the profile is checked again and its hints follow', async () => {
  const uri = pathToFileURL(join(ws, 'p.attn.yaml')).href;
  await client.open(uri, PROFILE);
  // KV per token: 32 layers · 2 (K, V) · 8 KV heads · 128 head_dim · 2 B = 128 KiB; a 16-token page
  // 2 MiB; 3.8125 GiB / 2 MiB = 1,952 pages = 31,232 tokens (as test/lsp/big-config.test.ts).
  let hints = (await client.inlayHints(uri))!.map(hintLabel);
  assert.ok(hints.includes('31,232 tokens · 1,952 × 2 MiB'), JSON.stringify(hints));

  const rechecked = client.nextDiagnostics(uri);
  const refreshes = client.calls.inlayHintRefresh;
  // Saved as editors save, a temporary file renamed over it (one event; a write in place could be
  // seen empty between its truncation and its write).
  writeFileSync(`${realConfig}.tmp`, LLAMA.replace('"num_key_value_heads": 8', '"num_key_value_heads": 4'));
  renameSync(`${realConfig}.tmp`, realConfig);
  await within(rechecked, 'the profile re-checked after its symlinked config.json changed on disk');
  // 32 · 2 · 4 · 128 · 2 B = 64 KiB a token; a 16-token page 1 MiB; 3.8125 GiB / 1 MiB = 3,904 pages = 62,464 tokens.
  hints = (await client.inlayHints(uri))!.map(hintLabel);
  assert.ok(hints.some((h) => h.endsWith('64 KiB KV/token')), JSON.stringify(hints));
  assert.ok(hints.includes('62,464 tokens · 3,904 × 1 MiB'), JSON.stringify(hints));
  assert.ok(client.calls.inlayHintRefresh > refreshes, 'the client was asked to refresh its hints');
  await client.close(uri);
});
