#!/usr/bin/env node
// `npm run package`: the two .vsix files, from what `npm install` built (nothing is compiled on
// the user's machine):
//   attnscope-<platform>-<arch>.vsix (vsce --target, e.g. linux-x64): the native addon, the CUDA
//     library when nvcc built it, and the WebAssembly module: what VS Code installs on this
//     platform;
//   attnscope-universal.vsix (no --target): the WebAssembly module only, no addon, no CUDA
//     library: what VS Code installs on every platform without a package of its own.
// .vscodeignore is the one allow-list; the universal package drops its native/build and
// native/cuda/build lines. Exits 1 naming what is missing.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const vsce = join(dirname(require.resolve('@vscode/vsce/package.json')), 'vsce');

/** The vsce target of this machine (https://code.visualstudio.com/api/working-with-extensions/publishing-extension#platformspecific-extensions). */
const TARGET = `${process.platform}-${process.arch}`;
const PLATFORM_VSIX = join(root, `attnscope-${TARGET}.vsix`);
const UNIVERSAL_VSIX = join(root, 'attnscope-universal.vsix');

const need = [
  ['native/build/Release/attnscope_native.node', 'npm run build:native'],
  ['native/wasm/build/attnscope_wasm.js', 'npm run build:wasm (needs em++: apt-get install emscripten)'],
  ['native/wasm/build/attnscope_core.wasm', 'npm run build:wasm'],
];
const missing = need.filter(([file]) => !existsSync(join(root, file))).map(([file, how]) => `${file} (${how})`);
if (missing.length > 0) {
  process.stderr.write(`package: missing ${missing.join(', ')}\n`);
  process.exit(1);
}

function vscePackage(out, extra) {
  process.stderr.write(`[package] ${out.slice(root.length + 1)}\n`);
  const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', out, ...extra], {
    cwd: root,
    stdio: 'inherit',
  });
  if (r.status !== 0) {
    process.stderr.write(`package: vsce failed for ${out} (exit ${r.status ?? r.signal})\n`);
    process.exit(1);
  }
}

vscePackage(PLATFORM_VSIX, ['--target', TARGET]);
const allow = readFileSync(join(root, '.vscodeignore'), 'utf8')
  .split('\n')
  .filter((line) => !/^!native\/(cuda\/)?build\//.test(line));
const dir = mkdtempSync(join(tmpdir(), 'attnscope-package-'));
try {
  const ignoreFile = join(dir, 'vscodeignore-universal');
  writeFileSync(ignoreFile, allow.join('\n'));
  vscePackage(UNIVERSAL_VSIX, ['--ignoreFile', ignoreFile]);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
