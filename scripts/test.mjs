#!/usr/bin/env node
// Runs the test suites with node's own test runner (TypeScript through tsx).
// Usage: node scripts/test.mjs [suite ...]   suites are folders of test/ (default: all but e2e,
// which .ci/run calls on its own because it needs code-server installed first).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const requested = process.argv.slice(2);
const suites = requested.length > 0
  ? requested
  : readdirSync(join(root, 'test')).filter((d) => d !== 'e2e' && d !== 'gpu' && statSync(join(root, 'test', d)).isDirectory());

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
for (const s of suites) {
  const dir = join(root, 'test', s);
  if (!existsSync(dir)) {
    console.error(`test: no suite test/${s}`);
    process.exit(2);
  }
  files.push(...collect(dir));
}
if (files.length === 0) {
  console.error('test: no test files found');
  process.exit(1);
}
// --test-force-exit: a handle a failed test leaves open (a child server, a socket) must not keep
// CI waiting; --test-timeout: no single test may hang a run (10 minutes is far above any test).
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-force-exit', '--test-timeout=600000', ...files], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(r.status ?? 1);
