#!/usr/bin/env node
// Runs the test suites with node's own test runner (TypeScript through tsx).
// Usage: node scripts/test.mjs [suite ...]   suites are folders of test/ (default: all but e2e,
// which needs code-server, and slurm, which needs Debian's slurm-wlm and munge and root: .ci/run
// installs those and calls both on their own right after this), and `wasm`: the kernel,
// allocator, peaks and simulator files again with ATTNSCOPE_BACKEND=wasm, against the
// WebAssembly build (in the default run when that build exists).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const requested = process.argv.slice(2);
// The files that hold a build to the reference and property tests, run again on WebAssembly.
const WASM_FILES = ['native/kernels', 'native/allocator', 'native/peaks', 'unit/simulate', 'unit/latency', 'unit/traces']
  .map((f) => join(root, 'test', `${f}.test.ts`));
const wasmBuilt = existsSync(join(root, 'native', 'wasm', 'build', 'attnscope_wasm.js'));
const suites = requested.length > 0
  ? requested
  : [...readdirSync(join(root, 'test')).filter((d) => d !== 'e2e' && d !== 'gpu' && d !== 'slurm' && statSync(join(root, 'test', d)).isDirectory()),
    ...(wasmBuilt ? ['wasm'] : [])];

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...collect(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const files = [];
const wasmRun = suites.includes('wasm');
for (const s of suites) {
  if (s === 'wasm') continue;
  const dir = join(root, 'test', s);
  if (!existsSync(dir)) {
    console.error(`test: no suite test/${s}`);
    process.exit(2);
  }
  files.push(...collect(dir));
}
if (files.length === 0 && !wasmRun) {
  console.error('test: no test files found');
  process.exit(1);
}
if (wasmRun && !wasmBuilt) {
  console.error('test: suite wasm needs the WebAssembly build (npm run build:wasm, with em++ on PATH)');
  process.exit(2);
}
// No --test-force-exit: on Node 20-24 it can drop the tail of a file's results before the parent
// reads them, so a run reports fewer tests than ran, at exit 0 (nodejs/node#64833). Instead a
// test that hangs fails after --test-timeout, and a file whose process never exits (a handle left
// open) is killed with the whole run after WATCHDOG_MS, loudly.
const WATCHDOG_MS = 45 * 60 * 1000;
/** Runs `list` in one node --test; its exit status. */
function runFiles(list, env) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-timeout=600000', ...list], {
    cwd: root,
    stdio: 'inherit',
    timeout: WATCHDOG_MS,
    killSignal: 'SIGKILL',
    env: { ...process.env, ...env },
  });
  if (r.error?.code === 'ETIMEDOUT' || r.signal === 'SIGKILL') {
    console.error(`test: the run did not finish within ${WATCHDOG_MS / 60000} min (a test file left a handle open?); killed`);
    process.exit(1);
  }
  return r.status ?? 1;
}
const status = files.length > 0 ? runFiles(files, {}) : 0;
if (wasmRun) {
  console.error('test: the kernel, allocator, peaks and simulator files again on the WebAssembly build (ATTNSCOPE_BACKEND=wasm)');
}
const wasmStatus = wasmRun ? runFiles(WASM_FILES, { ATTNSCOPE_BACKEND: 'wasm' }) : 0;
process.exit(status || wasmStatus);
