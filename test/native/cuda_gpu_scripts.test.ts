// The GPU machine's scripts (test/gpu/*.py, run.sh), checked where no GPU is: every file
// compiles, the planning and SASS-counting logic passes its own tests (test/gpu/test_bench_plan.py),
// the library's host-memory entry points (the addon's) refuse bad arguments before any device
// work (test/gpu/test_host_checks.py), and the benchmark says "no usable CUDA device" (exit 2, in
// its JSON) instead of failing otherwise. Skipped where python3 is missing; the library checks
// also where it is not built, the last one also where a GPU is present (then test/gpu/run.sh
// runs the real thing).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cudaAvailable } from '../../native/index';
import { tempDir } from '../fixtures/tmp';

const root = join(__dirname, '..', '..');
const gpuDir = join(root, 'test', 'gpu');
const python = spawnSync('python3', ['--version'], { encoding: 'utf8' }).status === 0 ? 'python3' : undefined;
const noPython = python ? false : 'python3 is not installed';
const library = join(root, 'native', 'cuda', 'build', 'libattnscope_cuda.so');

// -B: no __pycache__ folders in the tree.
function py(args: string[]) {
  return spawnSync(python!, ['-B', ...args], { cwd: gpuDir, encoding: 'utf8', timeout: 60_000 });
}

test('every GPU script compiles', { skip: noPython }, () => {
  const files = readdirSync(gpuDir).filter((f) => f.endsWith('.py'));
  assert.ok(files.includes('bench_cuda.py') && files.includes('bench_plan.py'), files.join(' '));
  const r = py(['-c', 'import sys\nfor f in sys.argv[1:]: compile(open(f).read(), f, "exec")', ...files]);
  assert.equal(r.status, 0, r.stderr);
});

test('run.sh parses, and its step limits add up to under 8 minutes', () => {
  const script = join(gpuDir, 'run.sh');
  assert.equal(spawnSync('bash', ['-n', script], { encoding: 'utf8' }).status, 0);
  const r = spawnSync('bash', [script, '--limits'], { encoding: 'utf8', timeout: 10_000 });
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n').map((l) => l.split(' '));
  const total = Number(lines.pop()![1]);
  const steps = new Map(lines.map(([name, s]) => [name!, Number(s)]));
  for (const name of ['build', 'device', 'host_checks', 'bench', 'memcheck', 'racecheck']) assert.ok(steps.get(name)! > 0, name);
  assert.equal([...steps.values()].reduce((a, b) => a + b, 0), total);
  assert.ok(total < 8 * 60, `${total} s`);
});

test('the planning and SASS-count logic passes its tests', { skip: noPython }, () => {
  const r = py(['test_bench_plan.py']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /Ran \d+ tests/);
  assert.match(r.stderr, /\nOK\s*$/);
});

const noLibrary = !existsSync(library) ? 'the CUDA library is not built (no nvcc)' : false;
test('the host-memory entry points refuse bad arguments, naming them, GPU or not', { skip: noPython || noLibrary }, () => {
  const r = py(['test_host_checks.py', library]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stderr, /Ran 4 tests/);
});

test('without a GPU the benchmark exits 2 and says why in its JSON', {
  skip: noPython || noLibrary || (cudaAvailable().available ? 'a CUDA device is present' : false),
}, () => {
  const dir = tempDir('attnscope-bench-');
  const json = join(dir, 'out.json');
  const r = py(['bench_cuda.py', '--lib', library, '--json', json]);
  assert.equal(r.status, 2, r.stdout + r.stderr);
  const out = JSON.parse(readFileSync(json, 'utf8')) as { status: string; error: string };
  assert.equal(out.status, 'failed');
  assert.match(out.error, /^no usable CUDA device: /);
});
