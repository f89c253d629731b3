/**
 * `attnscope sweep` lists every point's errors before any work, as the CLI lists a profile's
 * (481419a), where it stopped at the first point's (session 31). Through the built dist/runner.js.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
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

function sweep(axes: string): { dir: string; file: string } {
  const dir = tempDir('attnscope-sweep-errors-');
  const file = join(dir, 's.attn.yaml');
  writeFileSync(file, `model: ${JSON.stringify(llamaConfig)}\nworkload: { requests: 10 }\nsweep:\n  axes:\n${axes}`);
  return { dir, file };
}

test('sweep: every point\'s error at its own value, one line each, exit 2 before any work (page_size 0 and 5000 of [0, 16, 5000])', () => {
  // Line 5 is "    kv_cache.page_size: [0, 16, 5000]": 0 at column 26, 5000 at column 33.
  const { dir, file } = sweep('    kv_cache.page_size: [0, 16, 5000]\n');
  const out = join(dir, 'never');
  const r = cli(['sweep', file, '--out', out]);
  assert.equal(r.code, 2, r.stderr);
  const lines = r.stderr.trim().split('\n').filter((l) => !/: (warning|info): /.test(l));
  assert.equal(lines.length, 2, r.stderr);
  assert.match(lines[0]!, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:5:26: sweep point page_size=0: kv_cache\\.page_size must be >= 1`));
  assert.match(lines[1]!, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:5:33: sweep point page_size=5000: kv_cache\\.page_size must be <= 4,096`));
  assert.equal(existsSync(out), false);
});

test('sweep: every point whose KV pool has no pages is refused at its value, together (memory_gib 1 and 2 of [1, 2, 80] cannot hold Llama-3.1-8B\'s 15 GiB of weights)', () => {
  // Line 5 is "    device.memory_gib: [1, 2, 80]": 1 at column 25, 2 at column 28.
  const { dir, file } = sweep('    device.memory_gib: [1, 2, 80]\n');
  const out = join(dir, 'never');
  const r = cli(['sweep', file, '--out', out]);
  assert.equal(r.code, 2, r.stderr);
  const refused = r.stderr.split('\n').filter((l) => /the KV pool has no pages/.test(l));
  assert.deepEqual(refused.map((l) => /:5:(\d+): sweep point (memory_gib=\d+):/.exec(l)?.slice(1)), [['25', 'memory_gib=1'], ['28', 'memory_gib=2']], r.stderr);
  assert.equal(existsSync(out), false);
});

test('a value\'s error is one line for all the points that hold it, in the file and in a --set (s37 newcomer 7: the same message once per point)', () => {
  // page_size 0 with arrival_rate 1 and 2: two points, one value, one line at the 0 (line 5, column 26).
  const { dir, file } = sweep('    kv_cache.page_size: [0, 16, 32]\n    workload.arrival_rate: [1, 2]\n');
  const out = join(dir, 'never');
  const r = cli(['sweep', file, '--out', out]);
  assert.equal(r.code, 2, r.stderr);
  const lines = r.stderr.trim().split('\n').filter((l) => !/: (warning|info): /.test(l));
  assert.deepEqual(lines, [`${file}:5:26: sweep points page_size=0 arrival_rate=1 and 1 more: kv_cache.page_size must be >= 1, not 0`]);
  // --set arrival_rate=0,1 over page_size [16, 32]: arrival_rate 0 is in 2 of the 4 points, said once.
  const set = sweep('    kv_cache.page_size: [16, 32]\n');
  const s = cli(['sweep', set.file, '--set', 'workload.arrival_rate=0,1', '--out', join(set.dir, 'never')]);
  assert.equal(s.code, 2, s.stderr);
  assert.equal(s.stderr, 'attnscope: --set workload.arrival_rate=0,1 (value 1 of 2): sweep points page_size=16 arrival_rate=0 and 1 more: workload.arrival_rate must be > 0, not 0\n');
  assert.equal(existsSync(out), false);
});
