#!/usr/bin/env node
// `npm run package`: the .vsix files, from what was built (nothing is compiled on the user's
// machine):
//   attnscope-<platform>-<arch>.vsix (vsce --target, e.g. linux-x64): the native addon, the CUDA
//     library when nvcc built it, and the WebAssembly module: what VS Code installs on this
//     platform;
//   attnscope-linux-arm64.vsix (vsce --target linux-arm64), only where the cross-compiled addon
//     (npm run build:linux-arm64) passed its tests under qemu (the test suite arm64 records the
//     sha-256 of the file it tested in native/prebuilds/linux-arm64/tested.json): that addon and
//     the WebAssembly module, no CUDA library; one line says why it was left out otherwise;
//   attnscope-universal.vsix (no --target): the WebAssembly module only, no addon, no CUDA
//     library: what VS Code installs on every platform without a package of its own.
// .vscodeignore is the one allow-list; each package keeps the lines of what it ships (native/build
// and native/cuda/build for this platform, native/prebuilds/<target> for a cross-compiled one).
// Exits 1 naming what is missing.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
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

const allowList = readFileSync(join(root, '.vscodeignore'), 'utf8').split('\n');
const isBuildLine = (line) => /^!native\/(cuda\/)?build\//.test(line);
const isPrebuildLine = (line) => line.startsWith('!native/prebuilds/');

/** vsce package with `.vscodeignore` rewritten by `lines` (the allow-list's lines in, its lines out). */
function packageWith(out, extra, lines) {
  const dir = mkdtempSync(join(tmpdir(), 'attnscope-package-'));
  try {
    const ignoreFile = join(dir, 'vscodeignore');
    writeFileSync(ignoreFile, lines(allowList).join('\n'));
    vscePackage(out, [...extra, '--ignoreFile', ignoreFile]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

packageWith(PLATFORM_VSIX, ['--target', TARGET], (lines) => lines.filter((l) => !isPrebuildLine(l)));

/** Why the cross-compiled linux-arm64 addon is not packaged, or undefined when it is to be. */
function arm64Refusal() {
  if (TARGET === 'linux-arm64') return 'this machine is linux-arm64 (its own package above)';
  const addon = join(root, 'native', 'prebuilds', 'linux-arm64', 'attnscope_native.node');
  if (!existsSync(addon)) return 'no cross-compiled addon (npm run build:linux-arm64)';
  const record = join(dirname(addon), 'tested.json');
  const sha256 = createHash('sha256').update(readFileSync(addon)).digest('hex');
  const tested = existsSync(record) ? JSON.parse(readFileSync(record, 'utf8')) : undefined;
  if (tested?.sha256 !== sha256) return 'the addon has not passed its tests under qemu (node scripts/test.mjs arm64)';
  return undefined;
}

const arm64Why = arm64Refusal();
if (arm64Why) process.stderr.write(`[package] attnscope-linux-arm64.vsix left out: ${arm64Why}\n`);
else {
  packageWith(join(root, 'attnscope-linux-arm64.vsix'), ['--target', 'linux-arm64'], (lines) =>
    lines.filter((l) => !isBuildLine(l)).map((l) => (isPrebuildLine(l) ? '!native/prebuilds/linux-arm64/attnscope_native.node' : l)));
}

packageWith(UNIVERSAL_VSIX, [], (lines) => lines.filter((l) => !isBuildLine(l) && !isPrebuildLine(l)));
