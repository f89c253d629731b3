// scripts/e2e-setup.sh run twice at once over one cache (two people's e2e runs): the second
// waits for the first instead of removing the code-server install it is writing. npm is a stub
// here (no network, seconds instead of minutes); its `install code-server` blocks until the test
// says go, so the second run starts while the first is installing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tempDir } from '../fixtures/tmp';

const SETUP = resolve(import.meta.dirname, '../../scripts/e2e-setup.sh');
const APT = ['chromium', 'neovim', 'ripgrep', 'libkrb5-dev', 'libxkbfile-dev', 'libsecret-1-dev', 'pkg-config'];
const installed = (p: string) => spawnSync('dpkg-query', ['-W', '-f=${Status}', p], { encoding: 'utf8' }).stdout?.includes('install ok installed') === true;
// The script installs these with apt first (root, network): only where they are already there.
const aptReady = spawnSync('flock', ['--version']).status === 0 && APT.every(installed) && existsSync('/usr/bin/chromium') && existsSync('/usr/bin/nvim');

/** A fake npm: `install code-server@...` reads one line of the fifo `$GO` first; the rest make the files the script checks. */
function fakeNpm(bin: string, prefix: string): void {
  mkdirSync(join(prefix, 'lib/node_modules/npm/node_modules/node-gyp/bin'), { recursive: true });
  writeFileSync(join(prefix, 'lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js'), '');
  writeFileSync(
    join(bin, 'npm'),
    `#!/usr/bin/env bash
set -e
case "$1 $2" in
  "prefix -g") echo "${prefix}" ;;
  "config get") echo /usr ;;
  "rebuild argon2") ;;
  install*)
    if [[ "$*" == *code-server@* ]]; then
      echo "install $PPID" >> "$LOG"
      read -r _ < "$GO"
      mkdir -p node_modules/code-server/out/node node_modules/code-server/lib/vscode
      echo '// entry' > node_modules/code-server/out/node/entry.js
    else
      mkdir -p node_modules/node-pty node_modules/@vscode/spdlog
      echo 'module.exports = {}' > node_modules/node-pty/index.js
      echo 'module.exports = {}' > node_modules/@vscode/spdlog/index.js
    fi ;;
  *) echo "fake npm: $*" >&2; exit 1 ;;
esac
`,
  );
  chmodSync(join(bin, 'npm'), 0o755);
}

/** Resolves with the child's stderr once it matches `re` (or rejects when the child ends first). */
function stderrMatch(child: ReturnType<typeof spawn>, re: RegExp, text: { value: string }): Promise<string> {
  return new Promise((res, rej) => {
    const check = () => {
      const m = re.exec(text.value);
      if (m) {
        child.stderr!.off('data', check);
        res(m[0]);
      }
    };
    child.stderr!.on('data', check);
    child.once('close', () => rej(new Error(`exited before ${re}: ${text.value}`)));
    check();
  });
}

test('two e2e setups at once: the second waits for the first, which installs into a temporary folder renamed whole', { skip: !aptReady && 'needs flock and the apt packages e2e-setup.sh installs' }, async () => {
  const root = tempDir('attnscope-e2e-setup-');
  const bin = join(root, 'bin');
  mkdirSync(bin);
  fakeNpm(bin, join(root, 'npm-prefix'));
  const cache = join(root, 'cache');
  const go = join(root, 'go');
  spawnSync('mkfifo', [go]);
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, ATTNSCOPE_E2E_CACHE: cache, GO: go, LOG: join(root, 'installs.log') };
  const run = () => {
    // Its own process group: a failed test kills the stub npm blocked on the fifo too.
    const child = spawn('bash', [SETUP], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const out = { value: '' };
    const err = { value: '' };
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out.value += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err.value += d));
    const code = new Promise<number | null>((res) => child.on('close', (c) => res(c)));
    return { child, out, err, code };
  };
  const first = run();
  await stderrMatch(first.child, /npm install code-server@[\d.]+ \(scripts off\)/, first.err);
  const second = run();
  let released = false;
  const release = () => {
    if (!released) writeFileSync(go, 'go\n');
    released = true;
  };
  try {
    // The first is inside `npm install code-server`: the second must wait, not start its own install (which began with rm -rf of the first's folder).
    const said = await Promise.race([
      stderrMatch(second.child, /another e2e setup holds .*: waiting for it/, second.err),
      stderrMatch(second.child, /npm install code-server/, second.err),
    ]);
    assert.match(said, /waiting for it/, second.err.value);
    // Meanwhile the install is in a temporary folder: the final one does not exist half-made.
    const dir = join(cache, 'code-server-4.100.3');
    assert.equal(existsSync(dir), false);
    assert.ok(readdirSync(cache).some((n) => n.startsWith('code-server-4.100.3.tmp.')), readdirSync(cache).join(' '));
    release();
    assert.equal(await first.code, 0, first.err.value);
    assert.equal(await second.code, 0, second.err.value);
    const entry = join(dir, 'node_modules/code-server/out/node/entry.js');
    assert.equal(first.out.value.trim().split('\n').at(-1), entry);
    assert.equal(second.out.value.trim().split('\n').at(-1), entry);
    assert.match(second.err.value, /code-server 4\.100\.3 cached in /);
    assert.ok(existsSync(join(dir, '.complete')) && existsSync(entry));
    // One install, no temporary folder left.
    assert.equal(spawnSync('wc', ['-l', env.LOG], { encoding: 'utf8' }).stdout.trim().split(' ')[0], '1');
    assert.deepEqual(readdirSync(cache).filter((n) => n.includes('.tmp.')), []);
  } finally {
    if (!released) {
      for (const c of [first.child, second.child]) if (c.exitCode === null && c.signalCode === null) process.kill(-c.pid!, 'SIGKILL');
    }
  }
});
