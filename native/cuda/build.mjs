#!/usr/bin/env node
// Builds native/cuda/build/libattnscope_cuda.so with CMake + nvcc (called by scripts/build.mjs).
// - nvcc or cmake missing: prints one line and exits 0 (the CPU build stays complete).
// - nvcc found but the build fails: exits 1 with the failing step named.
// nvcc is looked up as $CUDACXX, then on PATH; cmake on PATH. Jobs: $ATTNSCOPE_CUDA_JOBS or 2.
import { spawnSync } from 'node:child_process';
import { existsSync, accessSync, constants } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const buildDir = join(here, 'build');

function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return undefined;
}

const nvcc = process.env.CUDACXX && existsSync(process.env.CUDACXX) ? process.env.CUDACXX : onPath('nvcc');
const cmake = onPath('cmake');
if (!nvcc || !cmake) {
  process.stderr.write(
    `[build] CUDA library skipped: ${!nvcc ? 'nvcc' : 'cmake'} not found on PATH (the GPU backend needs both; the CPU build is complete).\n`,
  );
  process.exit(0);
}

function step(name, args) {
  const t0 = Date.now();
  const r = spawnSync(cmake, args, { cwd: here, stdio: 'inherit' });
  if (r.status !== 0) {
    process.stderr.write(`[build] CUDA library: ${name} failed (exit ${r.status ?? r.signal}); nvcc is ${nvcc}.\n`);
    process.exit(1);
  }
  return (Date.now() - t0) / 1000;
}

const jobs = process.env.ATTNSCOPE_CUDA_JOBS ?? '2';
const generator = onPath('ninja') ? ['-G', 'Ninja'] : [];
const configured = existsSync(join(buildDir, 'CMakeCache.txt'));
const tConfigure = step('cmake configure', [
  '-S', here, '-B', buildDir, ...(configured ? [] : generator),
  `-DCMAKE_CUDA_COMPILER=${nvcc}`, '-DCMAKE_BUILD_TYPE=Release',
]);
const tBuild = step('cmake build', ['--build', buildDir, '--parallel', jobs]);
process.stderr.write(
  `[build] CUDA library ${join(buildDir, 'libattnscope_cuda.so')} (configure ${tConfigure.toFixed(1)} s, build ${tBuild.toFixed(1)} s)\n`,
);
