#!/usr/bin/env node
// Builds what a user needs: the native addon (node-gyp), the CUDA library when nvcc exists
// (CMake), the WebAssembly module when em++ exists (Emscripten), and the esbuild bundles in
// dist/ (the profile and run schemas' validator code first: scripts/profile-validator.mjs, run-validator.mjs). Flags: --native,
// --wasm, --bundles (all three when none); --linux-arm64 (only when asked: for packaging)
// cross-compiles the native addon for linux-arm64 with Debian's aarch64 toolchain.
// Exits non-zero with the failing step named; never downloads anything.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, cpSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const args = new Set(process.argv.slice(2));
const all = !args.has('--native') && !args.has('--wasm') && !args.has('--bundles') && !args.has('--linux-arm64');

function run(step, cmd, cmdArgs, opts = {}) {
  process.stderr.write(`[build] ${step}\n`);
  const r = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit', ...opts });
  if (r.status !== 0) {
    process.stderr.write(`[build] ${step} failed (exit ${r.status ?? r.signal}).\n`);
    process.exit(1);
  }
}

if (all || args.has('--native')) {
  run('native addon (node-gyp)', process.execPath, nodeGypRebuild('native'));
  if (existsSync(join(root, 'native', 'cuda', 'CMakeLists.txt'))) {
    run('CUDA library', process.execPath, [join(root, 'native', 'cuda', 'build.mjs')]);
  }
}

if (all || args.has('--wasm')) await buildWasm();
if (args.has('--linux-arm64')) buildLinuxArm64();

/**
 * The native addon for linux-arm64 (the linux-arm64 .vsix, scripts/package.mjs), cross-compiled
 * by node-gyp from the same binding.gyp with Debian's aarch64-linux-gnu-g++ (scripts/arm64-setup.sh
 * installs it): binding.gyp's portable path, as on any non-x64 target. N-API's headers are the
 * same on every architecture, so this Node's own headers serve. node-gyp always builds into
 * build/ beside binding.gyp, so it runs in native/build-linux-arm64/, whose binding.gyp, src and
 * cuda link to native/'s (the native/build/ of this machine stays as it is); the addon is then
 * copied to native/prebuilds/linux-arm64/, where native/binding.ts looks on that platform.
 * Exits 1 naming the missing compiler.
 */
function buildLinuxArm64() {
  const cxx = 'aarch64-linux-gnu-g++';
  if (!onPath(cxx)) {
    process.stderr.write(`[build] linux-arm64 addon: ${cxx} not on PATH (bash scripts/arm64-setup.sh installs it)\n`);
    process.exit(1);
  }
  const native = join(root, 'native');
  const stage = join(native, 'build-linux-arm64');
  mkdirSync(stage, { recursive: true });
  for (const name of ['binding.gyp', 'src', 'cuda']) {
    const link = join(stage, name);
    if (!existsSync(link)) symlinkSync(join('..', name), link);
  }
  const env = { ...process.env, CC: 'aarch64-linux-gnu-gcc', CXX: cxx, LINK: cxx, AR: 'aarch64-linux-gnu-ar' };
  run('linux-arm64 addon (node-gyp, aarch64-linux-gnu-g++)', process.execPath, nodeGypRebuild(stage, '--arch=arm64'), { env });
  const out = join(native, 'prebuilds', 'linux-arm64');
  mkdirSync(out, { recursive: true });
  cpSync(join(stage, 'build', 'Release', 'attnscope_native.node'), join(out, 'attnscope_native.node'));
  process.stderr.write('[build] linux-arm64 addon in native/prebuilds/linux-arm64/\n');
}

/** node-gyp's arguments to rebuild the addon of `dir` (its binding.gyp), with `extra` flags. */
function nodeGypRebuild(dir, ...extra) {
  const args = [require.resolve('node-gyp/bin/node-gyp.js'), 'rebuild', '--directory', dir, '--jobs', 'max', ...extra];
  // Build against this Node's own headers when it ships them (Debian's nodejs, official
  // tarballs): node-gyp would otherwise download them, and installs must not download.
  const prefix = dirname(dirname(process.execPath));
  if (!process.env.npm_config_nodedir && existsSync(join(prefix, 'include', 'node', 'node.h'))) args.push(`--nodedir=${prefix}`);
  return args;
}

/** Where `cmd` is on PATH, or undefined. */
function onPath(cmd) {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, cmd))) return join(dir, cmd);
  }
  return undefined;
}

/**
 * The WebAssembly build of the native part (native/wasm/, DESIGN.md "native/"): the portable
 * sources of binding.gyp's addon target (every src/*.cc but the N-API bridges, the CUDA loader
 * and the x86 SIMD units) plus the SIMD128 ops and the C ABI, compiled by em++ in parallel and
 * linked into native/wasm/build/attnscope_core.{js,wasm}; then native/wasm/addon.ts bundled
 * beside them as attnscope_wasm.js, the file native/binding.ts loads. Skipped with one line
 * without em++ (a package built elsewhere ships these files).
 */
async function buildWasm() {
  const emxx = onPath('em++');
  if (!emxx) {
    process.stderr.write('[build] WebAssembly module skipped: em++ not on PATH (Debian: apt-get install emscripten)\n');
    return;
  }
  process.stderr.write('[build] WebAssembly module (em++)\n');
  const native = join(root, 'native');
  const out = join(native, 'wasm', 'build');
  mkdirSync(join(out, 'obj'), { recursive: true });
  const gyp = readFileSync(join(native, 'binding.gyp'), 'utf8');
  const portable = [...gyp.matchAll(/"(src\/[^"]+\.cc)"/g)].map((m) => m[1])
    .filter((src) => !/^src\/(napi|cuda_host|kernels\/simd)\//.test(src));
  const sources = [...new Set(portable), 'src/kernels/simd/ops_simd128.cc', 'wasm/abi.cc'];
  const maxHeadDim = JSON.parse(readFileSync(join(root, 'core', 'kernelLimits.json'), 'utf8')).cpu.maxHeadDim;
  // Debian's em++ runs its JS optimizer with /usr/bin/node, which finds Debian's acorn only here.
  const env = { ...process.env, NODE_PATH: [process.env.NODE_PATH, '/usr/share/nodejs'].filter(Boolean).join(':') };
  const cflags = ['-O3', '-std=c++17', '-msimd128', '-fvisibility=hidden', '-Isrc', `-DATTNSCOPE_CPU_MAX_HEAD_DIM=${maxHeadDim}`];
  const objects = sources.map((src) => join(out, 'obj', src.replace(/[/.]/g, '_') + '.o'));
  // An object is rebuilt when it, its dependency list (-MMD) or any file on that list is missing
  // or newer; npm ci starts without objects, so it builds all.
  const upToDate = (i) => {
    const dep = objects[i].replace(/\.o$/, '.d');
    if (!existsSync(objects[i]) || !existsSync(dep)) return false;
    const built = statSync(objects[i]).mtimeMs;
    const files = readFileSync(dep, 'utf8').replace(/\\\n/g, ' ').split(':').slice(1).join(':').trim().split(/\s+/);
    return files.every((f) => { const p = join(native, f); return existsSync(p) && statSync(p).mtimeMs <= built; });
  };
  const compile = (i) => new Promise((resolve) => {
    if (upToDate(i)) return resolve(null);
    const child = spawn(emxx, [...cflags, '-MMD', '-c', sources[i], '-o', objects[i]], { cwd: native, env, stdio: 'inherit' });
    child.on('close', (code) => resolve(code === 0 ? null : sources[i]));
  });
  const failed = [];
  let next = 0;
  const workers = Array.from({ length: Math.min(availableParallelism(), sources.length) }, async () => {
    while (next < sources.length) {
      const bad = await compile(next++);
      if (bad) failed.push(bad);
    }
  });
  await Promise.all(workers);
  if (failed.length > 0) {
    process.stderr.write(`[build] WebAssembly module failed: em++ could not compile ${failed.join(', ')}.\n`);
    process.exit(1);
  }
  run('WebAssembly module: link', emxx, [
    ...objects, '-O3', '-o', join(out, 'attnscope_core.js'),
    // A factory that instantiates synchronously from the bytes the adapter reads (3.1.6 would
    // fetch() the file by path under Node >= 18), for Node only, with a heap that grows to 4 GiB.
    '-sMODULARIZE=1', '-sEXPORT_NAME=createAttnScopeCore', '-sENVIRONMENT=node', '-sWASM_ASYNC_COMPILATION=0',
    '-sALLOW_MEMORY_GROWTH=1', '-sMAXIMUM_MEMORY=4GB',
    // No process-wide handlers: the module lives inside the runner and the extension host.
    '-sNODEJS_CATCH_EXIT=0', '-sNODEJS_CATCH_REJECTION=0',
    '-sEXPORTED_FUNCTIONS=_malloc,_free', '-sEXPORTED_RUNTIME_METHODS=UTF8ToString,stringToUTF8,lengthBytesUTF8',
  ], { cwd: native, env });
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [join(native, 'wasm', 'addon.ts')], outfile: join(out, 'attnscope_wasm.js'), absWorkingDir: root,
    bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning',
  });
  process.stderr.write('[build] WebAssembly module in native/wasm/build/\n');
}

if (all || args.has('--bundles')) {
  // The profile schema's validator as code (ajv standalone), which the bundles import: written
  // when the schema changed, so that a build never bundles a stale one (its test checks the
  // committed file).
  // The run file schema's too (scripts/run-validator.mjs), which merge's reader of point files imports.
  const profileValidator = await import('./profile-validator.mjs');
  const runValidator = await import('./run-validator.mjs');
  const { keepGenerated } = await import('./generated-file.mjs');
  keepGenerated(root, profileValidator.GENERATED, profileValidator.profileValidatorCode(), { source: 'schemas/attn-profile.schema.json' });
  keepGenerated(root, runValidator.GENERATED, runValidator.runValidatorCode(), { source: 'schemas/run.schema.json' });
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
