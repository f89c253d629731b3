/**
 * A second real LSP client: Neovim's built-in client (Debian's nvim, headless) drives
 * dist/server.js over stdio through test/lsp/neovim/driver.lua, so the server is held to the
 * protocol and not to VS Code. It checks diagnostics, hover, a quick fix on a line where
 * non-ASCII characters precede the problem (Neovim 0.7 hands the diagnostic back in UTF-8 byte
 * columns), code lenses a client without the extension's commands can run
 * (workspace/executeCommand), and a profile re-checked when its config.json changes on disk
 * (Neovim 0.7 watches no files for the server). nvim is installed by scripts/e2e-setup.sh; a
 * missing nvim fails the test, it never skips.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { root } from './harness';
import { tempDir } from '../fixtures/tmp';

const NVIM = process.env.NVIM_PATH ?? '/usr/bin/nvim';
const server = join(root, 'dist', 'server.js');

interface Seen {
  nvim?: { major: number; minor: number };
  error?: string;
  steps: string[];
  messages: string[];
  diagnostics?: Array<{ lnum: number; col: number; message: string; code: string }>;
  hover?: string | null;
  sentRange?: { start: { line: number; character: number }; end: { line: number; character: number } };
  actions?: string[];
  lineAfterFix?: string;
  lenses?: Array<{ title: string; command: string }>;
  executed?: { kvBytesPerToken?: number; error?: string };
  afterDiskChange?: { seen: boolean; messages: string[] };
}

// Line 4: "größe" (ö and ß: 2 UTF-8 bytes, 1 UTF-16 unit each) before the typo "dtpye".
const PROFILE = [
  '# Neovim client test: Llama-3.1-8B (config copied beside this file)',
  'model: ./m/config.json',
  'dtype: bf16',
  'kv_cache: { größe: 1, dtpye: auto, page_size: 16 }',
  'device:',
  '  backend: cpu',
  '  memory_gib: 80',
  'prefill:',
  '  batch_size: 1',
  '  seq_lens: [512]',
  '',
].join('\n');

let dir: string;
let seen: Seen;

before(() => {
  assert.ok(existsSync(NVIM), `Neovim not found at ${NVIM}: run scripts/e2e-setup.sh (apt-get install neovim)`);
  assert.ok(existsSync(server), `${server} missing: npm run build:bundles`);
  dir = tempDir('attnscope-nvim-');
  mkdirSync(join(dir, 'm'));
  copyFileSync(join(root, 'examples', 'llama-3.1-8b', 'config.json'), join(dir, 'm', 'config.json'));
  writeFileSync(join(dir, 'p.attn.yaml'), PROFILE);
  const outFile = join(dir, 'out.json');
  const r = spawnSync(NVIM, ['--headless', '--clean', '-n', '-i', 'NONE', '-c', `luafile ${join(__dirname, 'neovim', 'driver.lua')}`], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 240_000,
    env: { ...process.env, ATTNSCOPE_SERVER: server, ATTNSCOPE_PROFILE: join(dir, 'p.attn.yaml'), ATTNSCOPE_CONFIG: join(dir, 'm', 'config.json'), ATTNSCOPE_OUT: outFile },
  });
  assert.ok(existsSync(outFile), `nvim wrote no result (exit ${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  seen = JSON.parse(readFileSync(outFile, 'utf8')) as Seen;
  assert.equal(seen.error, undefined, `the driver failed after steps [${seen.steps.join(', ')}]: ${seen.error}`);
});

test('Neovim is a version with the built-in LSP client (0.5 or later)', () => {
  assert.ok(seen.nvim && (seen.nvim.major > 0 || seen.nvim.minor >= 5), JSON.stringify(seen.nvim));
});

test('diagnostics arrive, placed in Neovim\'s byte columns', () => {
  const typo = seen.diagnostics!.find((d) => d.message.includes('dtpye'))!;
  assert.ok(typo, JSON.stringify(seen.diagnostics));
  // "kv_cache: { größe: 1, " is 22 UTF-16 units and 24 UTF-8 bytes: Neovim stores the byte column.
  assert.equal(typo.lnum, 3);
  assert.equal(typo.col, Buffer.byteLength('kv_cache: { größe: 1, '));
  assert.match(typo.message, /did you mean "dtype"/);
});

test('hover answers with the estimate', () => {
  assert.match(seen.hover ?? '', /AttnScope estimate/);
});

test('a quick fix is found after non-ASCII characters on the line, and applying it fixes the key', () => {
  // Neovim 0.7 sends the range back in bytes (24), not the UTF-16 column the server sent (22).
  assert.equal(seen.sentRange!.start.character, Buffer.byteLength('kv_cache: { größe: 1, '));
  assert.ok(seen.actions!.includes('Rename to "dtype"'), JSON.stringify(seen.actions));
  assert.equal(seen.lineAfterFix, 'kv_cache: { größe: 1, dtype: auto, page_size: 16 }');
});

test('code lenses name only commands the server executes, and executing one answers', () => {
  assert.ok(seen.lenses!.length > 0);
  for (const l of seen.lenses!) assert.match(l.command, /^attnscope\.server\./, `a lens Neovim cannot run: ${JSON.stringify(l)}`);
  // Llama-3.1-8B bf16: 2 · 8 KV heads · 128 · 2 B · 32 layers = 131,072 B per token.
  assert.equal(seen.executed!.kvBytesPerToken, 131072, JSON.stringify(seen.executed));
  assert.ok(seen.messages.some((m) => m.includes('128 KiB KV/token')), JSON.stringify(seen.messages));
});

test('a profile is re-checked when its config.json changes on disk, without the client watching files', () => {
  assert.ok(seen.afterDiskChange!.seen, `no num_key_value_heads problem after the change: ${JSON.stringify(seen.afterDiskChange!.messages)}`);
});
