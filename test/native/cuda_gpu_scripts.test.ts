// The GPU machine's scripts (test/gpu/*.py), checked where no GPU is: every file compiles, the
// planning and SASS-counting logic passes its own tests (test/gpu/test_bench_plan.py), and the
// benchmark says "no usable CUDA device" (exit 2, in its JSON) instead of failing otherwise.
// Skipped where python3 is missing; the last check also where the CUDA library is not built or
// a GPU is present (then test/gpu/run.sh runs the real thing).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cudaAvailable } from '../../native/index';

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

test('the planning and SASS-count logic passes its tests', { skip: noPython }, () => {
  const r = py(['test_bench_plan.py']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /Ran \d+ tests/);
  assert.match(r.stderr, /\nOK\s*$/);
});

const noLibrary = !existsSync(library) ? 'the CUDA library is not built (no nvcc)' : false;
test('without a GPU the benchmark exits 2 and says why in its JSON', {
  skip: noPython || noLibrary || (cudaAvailable().available ? 'a CUDA device is present' : false),
}, () => {
  const dir = mkdtempSync(join(tmpdir(), 'attnscope-bench-'));
  try {
    const json = join(dir, 'out.json');
    const r = py(['bench_cuda.py', '--lib', library, '--json', json]);
    assert.equal(r.status, 2, r.stdout + r.stderr);
    const out = JSON.parse(readFileSync(json, 'utf8')) as { status: string; error: string };
    assert.equal(out.status, 'failed');
    assert.match(out.error, /^no usable CUDA device: /);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
