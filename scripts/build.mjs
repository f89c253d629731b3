#!/usr/bin/env node
// Builds what a user needs: the native addon (node-gyp), the CUDA library when nvcc exists
// (CMake), and the esbuild bundles in dist/. Flags: --native, --bundles (both when none).
// Exits non-zero with the failing step named; never downloads anything.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, cpSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const args = new Set(process.argv.slice(2));
const all = !args.has('--native') && !args.has('--bundles');

function run(step, cmd, cmdArgs, opts = {}) {
  process.stderr.write(`[build] ${step}\n`);
  const r = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit', ...opts });
  if (r.status !== 0) {
    process.stderr.write(`[build] ${step} failed (exit ${r.status ?? r.signal}).\n`);
    process.exit(1);
  }
}

if (all || args.has('--native')) {
  const nodeGyp = require.resolve('node-gyp/bin/node-gyp.js');
  const gypArgs = [nodeGyp, 'rebuild', '--directory', 'native', '--jobs', 'max'];
  // Build against this Node's own headers when it ships them (Debian's nodejs, official
  // tarballs): node-gyp would otherwise download them, and installs must not download.
  const prefix = dirname(dirname(process.execPath));
  if (!process.env.npm_config_nodedir && existsSync(join(prefix, 'include', 'node', 'node.h'))) gypArgs.push(`--nodedir=${prefix}`);
  run('native addon (node-gyp)', process.execPath, gypArgs);
  if (existsSync(join(root, 'native', 'cuda', 'CMakeLists.txt'))) {
    run('CUDA library', process.execPath, [join(root, 'native', 'cuda', 'build.mjs')]);
  }
}

if (all || args.has('--bundles')) {
  const esbuild = await import('esbuild');
  mkdirSync(join(root, 'dist'), { recursive: true });
  const common = {
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: true,
    logLevel: 'warning',
    absWorkingDir: root,
    // jsonc-parser's "main" is a UMD build whose require('./impl/...') esbuild cannot follow.
    mainFields: ['module', 'main'],
  };
  const entries = [
    { in: 'runner/cli.ts', out: 'dist/runner.js', banner: '#!/usr/bin/env node' },
    { in: 'server/main.ts', out: 'dist/server.js' },
    { in: 'extension/main.ts', out: 'dist/extension.js', external: ['vscode'] },
  ];
  for (const e of entries) {
    if (!existsSync(join(root, e.in))) continue;
    await esbuild.build({
      ...common,
      entryPoints: [e.in],
      outfile: e.out,
      external: e.external ?? [],
      banner: e.banner ? { js: e.banner } : undefined,
    });
  }
  if (existsSync(join(root, 'webview', 'main.ts'))) {
    await esbuild.build({
      ...common,
      platform: 'browser',
      target: 'es2022',
      format: 'iife',
      entryPoints: ['webview/main.ts'],
      outfile: 'dist/webview/main.js',
    });
    if (existsSync(join(root, 'webview', 'main.css'))) cpSync(join(root, 'webview', 'main.css'), join(root, 'dist', 'webview', 'main.css'));
  }
  process.stderr.write('[build] bundles in dist/\n');
}
