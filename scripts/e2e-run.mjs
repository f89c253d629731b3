#!/usr/bin/env node
// `npm run test:e2e`: the editor end-to-end suite. Installs (or finds in its cache) Chromium
// and code-server 4.100.3 via scripts/e2e-setup.sh, packages both .vsix (npm run package: this
// platform's and the universal one, which test/e2e/wasm.test.ts installs),
// then runs test/e2e with node's test runner. Any failing step fails the run (exit 1):
// an e2e that cannot set itself up is a failed test, never a skip.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function step(name, cmd, args, opts = {}) {
  process.stderr.write(`[e2e] ${name}\n`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', ...opts });
  if (r.status !== 0) {
    process.stderr.write(`${r.stdout ?? ''}[e2e] FAILED: ${name} (exit ${r.status ?? r.signal})\n`);
    process.exit(1);
  }
  return r.stdout ?? '';
}

const entry = step('setup: Chromium and code-server (scripts/e2e-setup.sh)', 'bash', [join(root, 'scripts', 'e2e-setup.sh')]).trim().split('\n').at(-1);
step('package: npm run package', 'npm', ['run', 'package']);
const r = spawnSync(process.execPath, [join(root, 'scripts', 'test.mjs'), 'e2e'], {
  cwd: root,
  stdio: 'inherit',
  env: {
    ...process.env,
    ATTNSCOPE_CODE_SERVER: entry,
    ATTNSCOPE_VSIX: join(root, `attnscope-${process.platform}-${process.arch}.vsix`),
    ATTNSCOPE_VSIX_UNIVERSAL: join(root, 'attnscope-universal.vsix'),
  },
});
process.exit(r.status ?? 1);
