// test/fixtures/tmp.ts: the folders tempDir makes are gone once the process that made them
// ends, whether it ends normally, by process.exit, by an uncaught error or by SIGTERM, SIGINT or
// SIGHUP (s51: a run killed so left every folder its files had made), and nothing else in
// the temp folder is touched. Each case runs in a child process whose TMPDIR is a folder of its
// own, so what is left there afterwards is exactly what the child left.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../fixtures/tmp';

const fixture = join(__dirname, '..', 'fixtures', 'tmp.ts');

/** Runs `end` in a child after it made two folders (one with a read-only subfolder) and a bystander file. */
function runChild(end: string): { tmp: string; made: string[]; stdout: string[]; status: number | null; signal: NodeJS.Signals | null; stderr: string } {
  const tmp = tempDir('attnscope-tmpcheck-');
  writeFileSync(join(tmp, 'bystander.txt'), 'not the fixture\'s');
  const script = `
    const { tempDir } = require(${JSON.stringify(fixture)});
    const fs = require('node:fs');
    const a = tempDir('attnscope-a-'), b = tempDir('attnscope-b-');
    fs.mkdirSync(a + '/sub'); fs.writeFileSync(a + '/sub/f', 'x'); fs.chmodSync(a + '/sub', 0o500);
    fs.writeFileSync(b + '/run.json', '{}');
    console.log(JSON.stringify([a, b].filter((d) => fs.existsSync(d))));
    ${end}`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { env: { ...process.env, TMPDIR: tmp }, encoding: 'utf8' });
  const stdout = r.stdout.trim().split('\n');
  return { tmp, made: JSON.parse(stdout[0] ?? '[]') as string[], stdout, status: r.status, signal: r.signal, stderr: r.stderr };
}

// A signal the process is sent while it waits (a timer keeps it alive): it still ends by that signal.
const signalled = (signal: NodeJS.Signals) => `process.kill(process.pid, '${signal}'); setTimeout(() => undefined, 60_000);`;

for (const [how, end, status, signal] of [
  ['ends normally', '', 0, null],
  ['calls process.exit(3)', 'process.exit(3);', 3, null],
  ['throws', 'throw new Error("boom");', 1, null],
  ['is sent SIGTERM', signalled('SIGTERM'), null, 'SIGTERM'],
  ['is sent SIGINT', signalled('SIGINT'), null, 'SIGINT'],
  ['is sent SIGHUP', signalled('SIGHUP'), null, 'SIGHUP'],
] as const) {
  test(`tempDir's folders are removed when the process ${how}; the rest of TMPDIR stays`, () => {
    const r = runChild(end);
    assert.equal(r.status, status, r.stderr);
    assert.equal(r.signal, signal, r.stderr);
    // Both were made, in TMPDIR, and existed while the process ran.
    assert.equal(r.made.length, 2, r.stderr);
    for (const dir of r.made) assert.ok(dir.startsWith(join(r.tmp, 'attnscope-')), dir);
    assert.ok(r.made.every((dir) => !existsSync(dir)));
    // Only the fixture's own folders went (tsx keeps its cache, tsx-<uid>, in TMPDIR too).
    const left = readdirSync(r.tmp);
    assert.deepEqual(left.filter((name) => name.startsWith('attnscope-')), []);
    assert.ok(left.includes('bystander.txt'), left.join(', '));
  });
}

test('a SIGINT that another handler in the process takes (the runner\'s cancel, which cancel.test.ts emits in-process) leaves the folders to it: they stay until the process ends', () => {
  const r = runChild(`process.on('SIGINT', () => undefined); process.emit('SIGINT', 'SIGINT');
    console.log(JSON.stringify([a, b].filter((d) => fs.existsSync(d))));`);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.made.length, 2, r.stderr);
  // Both still there after the emit, and gone once the process ended.
  assert.deepEqual(JSON.parse(r.stdout[1] ?? '[]'), r.made);
  assert.ok(r.made.every((dir) => !existsSync(dir)));
});

test('a test file\'s process whose node --test has ended (orphaned: the runner was killed) removes its folders and ends at its next tempDir call, instead of running its remaining tests', async () => {
  const tmp = tempDir('attnscope-tmpcheck-');
  // The test file: a folder, then, once its parent (standing in for node --test) has ended, another tempDir call. Its parent's
  // end has no event here; it polls process.ppid every 20 ms, for 30 s at most.
  const file = `
    const { tempDir } = require(${JSON.stringify(fixture)});
    const a = tempDir('attnscope-a-');
    console.log(JSON.stringify([a]));
    process.send('made', () => process.disconnect());
    const runner = process.ppid, until = Date.now() + 30_000;
    const poll = setInterval(() => {
      if (process.ppid === runner && Date.now() < until) return;
      clearInterval(poll);
      tempDir('attnscope-b-');
      console.log('not ended');
    }, 20);`;
  // The runner starts it (NODE_TEST_CONTEXT set, as node --test sets it) and ends once it made its first folder (its
  // message); the file's process keeps this test's stdout pipe, which closes when that process ends.
  const fileScript = join(tmp, 'file.cjs');
  writeFileSync(fileScript, file);
  const runner = `require('node:child_process').spawn(process.execPath, ['--import', 'tsx', ${JSON.stringify(fileScript)}], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }).on('message', () => process.exit(0));`;
  const child = spawn(process.execPath, ['-e', runner], { env: { ...process.env, TMPDIR: tmp, NODE_TEST_CONTEXT: 'child' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  await new Promise((resolve) => child.stdout.on('close', resolve));
  const lines = stdout.trim().split('\n');
  const made = JSON.parse(lines[0] ?? '[]') as string[];
  assert.equal(made.length, 1, stderr);
  assert.deepEqual(lines.slice(1), [], 'the orphaned process went on past tempDir');
  assert.ok(!existsSync(made[0]!), made[0]);
  assert.deepEqual(readdirSync(tmp).filter((name) => name.startsWith('attnscope-')), [], stderr);
});
