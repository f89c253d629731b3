/**
 * Under a locale that takes no UTF-8 (LANG=C), the CLI prints ASCII (core/textTable.ts terminalText:
 * × as x, − as -, µ as u, … as ...; s52): estimate, simulate and a bad input's one line, through the
 * built dist/runner.js, every byte of stdout and stderr below 0x80. Under UTF-8 the same lines keep
 * their symbols.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../fixtures/tmp';

const root = join(__dirname, '..', '..');
const runner = join(root, 'dist', 'runner.js');
const profile = join(root, 'examples', 'llama-3.1-8b.attn.yaml');

/** The CLI's stdout and stderr as bytes, piped, under `lang` (LC_ALL and LC_CTYPE unset, COLUMNS unset). */
function cli(args: string[], lang: string): { status: number | null; stdout: Buffer; stderr: Buffer } {
  const env: NodeJS.ProcessEnv = { ...process.env, LANG: lang };
  delete env.LC_ALL;
  delete env.LC_CTYPE;
  delete env.COLUMNS;
  const r = spawnSync(process.execPath, [runner, ...args], { timeout: 300_000, cwd: root, env });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The bytes of `b` at or above 0x80, with the line they are on, for the message. */
function nonAscii(b: Buffer): string[] {
  return b.toString('latin1').split('\n').filter((l) => /\P{ASCII}/u.test(l));
}

test('LANG=C: estimate prints ASCII only, its formulas\' symbols as x, -, ~ (UTF-8: ×)', () => {
  const c = cli(['estimate', profile], 'C');
  assert.equal(c.status, 0, c.stderr.toString());
  assert.deepEqual(nonAscii(c.stdout), []);
  assert.deepEqual(nonAscii(c.stderr), []);
  // The KV budget's product: "79.22 GiB as CUDA reports it × gpu_memory_utilization 0.9" (README's figures).
  const text = c.stdout.toString('latin1').replace(/\n +/g, ' ');
  assert.match(text, /79\.22 GiB as CUDA reports it x gpu_memory_utilization 0\.9/);
  const utf8 = cli(['estimate', profile], 'C.UTF-8').stdout.toString('utf8').replace(/\n +/g, ' ');
  assert.match(utf8, /79\.22 GiB as CUDA reports it × gpu_memory_utilization 0\.9/);
});

test('LANG=C: simulate prints ASCII only (its KV pool line, its µs terms, its tables), every line within 100 columns', () => {
  const c = cli(['simulate', profile], 'C');
  assert.equal(c.status, 0, c.stderr.toString());
  assert.deepEqual(nonAscii(c.stdout), []);
  assert.deepEqual(nonAscii(c.stderr), []);
  const out = c.stdout.toString('latin1');
  // README's pool: 28,363 pages of 16 tokens; the compute term's per-token time in µs -> us.
  assert.match(out, /^KV pool: 28,363 pages x 16 tokens = 453,808 tokens$/m);
  assert.match(out, /^ {2}compute: [\d.]+ us\/token /m);
  assert.ok(out.split('\n').every((l) => l.length <= 100), out);
});

test('LANG=C: a bad input is one ASCII line, file:line:col: message, exit 2 (its "2^53 − 1" as "2^53 - 1")', () => {
  // max_model_len past 2^53 - 1 = 9,007,199,254,740,991: core/config/tree.ts's refusal, which has a − in it.
  const dir = tempDir('attnscope-locale-');
  const file = join(dir, 'big.attn.yaml');
  const yaml = readFileSync(profile, 'utf8')
    .replace('model: ./llama-3.1-8b/config.json', `model: ${join(root, 'examples', 'llama-3.1-8b', 'config.json')}`)
    .replace('max_model_len: 8192', 'max_model_len: 9007199254740993');
  assert.match(yaml, /max_model_len: 9007199254740993/);
  writeFileSync(file, yaml);
  const c = cli(['estimate', file], 'C');
  assert.equal(c.status, 2);
  assert.equal(c.stdout.length, 0);
  const lines = c.stderr.toString('latin1').split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, c.stderr.toString('latin1'));
  assert.deepEqual(nonAscii(c.stderr), []);
  assert.match(lines[0]!, /^.*big\.attn\.yaml:\d+:\d+: workload\.max_model_len is 9007199254740993, beyond 2\^53 - 1 /);
  assert.match(cli(['estimate', file], 'C.UTF-8').stderr.toString('utf8'), /beyond 2\^53 − 1 /);
});

/** `text` without the fields that differ between two runs of one command: when and on what load it ran. */
function stable(text: string): string {
  return text.replace(/"createdAt": ?"[^"]*"/, '"createdAt":""').replace(/"loadAverage": ?\[[^\]]*\]/, '"loadAverage":[]');
}

test('LANG=C: JSON on stdout stays UTF-8, the bytes --json FILE writes (its "×" and "−" kept), not terminal ASCII', () => {
  // estimate --json: its KV budget text holds "1 − gpu_memory_utilization"; LANG=C and C.UTF-8 print the same bytes.
  const c = cli(['estimate', profile, '--json'], 'C');
  assert.equal(c.status, 0, c.stderr.toString());
  const utf8 = cli(['estimate', profile, '--json'], 'C.UTF-8');
  assert.match(c.stdout.toString('utf8'), /1 − gpu_memory_utilization/);
  assert.equal(stable(c.stdout.toString('utf8')), stable(utf8.stdout.toString('utf8')));
  // simulate --json /dev/stdout against --json FILE, both under LANG=C: its step-time text holds "0.8 × bandwidth".
  const file = join(tempDir('attnscope-locale-'), 'run.json');
  const s = cli(['simulate', profile, '--json', '/dev/stdout'], 'C');
  assert.equal(s.status, 0, s.stderr.toString());
  assert.deepEqual(nonAscii(s.stderr), []);
  assert.equal(cli(['simulate', profile, '--json', file], 'C').status, 0);
  assert.match(s.stdout.toString('utf8'), / × /);
  assert.equal(stable(s.stdout.toString('utf8')), stable(readFileSync(file, 'utf8')));
});
