#!/usr/bin/env node
// Runs the test suites with node's own test runner (TypeScript through tsx).
// Usage: node scripts/test.mjs [suite ...]   suites are folders of test/ (default: all but e2e,
// which needs code-server, and slurm, which needs Debian's slurm-wlm and munge and root: .ci/run
// installs those and calls both on their own right after this), and `wasm`: the kernel,
// allocator, peaks and simulator files again with ATTNSCOPE_BACKEND=wasm, against the
// WebAssembly build (in the default run when that build exists), and `arm64`: the same files but
// peaks against the cross-compiled linux-arm64 addon (npm run build:linux-arm64), run by Debian's arm64
// Node under qemu-aarch64 (scripts/arm64-setup.sh; in the default run when both exist).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, statSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Tables print at COLUMNS when it is set (core/textTable.ts tableWidth); a shell that exports it would
// change the output every CLI test reads, so the suites run at the width a pipe gets.
delete process.env.COLUMNS;
// Under a locale without UTF-8 (LANG=C) the CLI prints ASCII (core/textTable.ts terminalText) and the suites read its
// UTF-8 text (×, µs, …): they run under C.UTF-8 there; test/cli/locale.test.ts sets LANG=C itself.
const ctype = [process.env.LC_ALL, process.env.LC_CTYPE, process.env.LANG].find((v) => v !== undefined && v !== '');
if (ctype !== undefined && !/utf-?8/i.test(ctype)) process.env.LC_ALL = 'C.UTF-8';
const requested = process.argv.slice(2);
// The files that hold a build to the reference and property tests, run again on WebAssembly.
const WASM_FILES = ['native/kernels', 'native/allocator', 'native/peaks', 'unit/simulate', 'unit/latency', 'unit/traces']
  .map((f) => join(root, 'test', `${f}.test.ts`));
// The same on the linux-arm64 addon but peaks: qemu's emulated rates are no machine's limits.
const ARM64_FILES = WASM_FILES.filter((f) => !f.endsWith('peaks.test.ts'));
const wasmBuilt = existsSync(join(root, 'native', 'wasm', 'build', 'attnscope_wasm.js'));
const arm64Addon = join(root, 'native', 'prebuilds', 'linux-arm64', 'attnscope_native.node');
const arm64Root = process.env.ATTNSCOPE_ARM64_ROOT ?? join(homedir(), '.cache', 'attnscope-arm64', 'root');
const arm64Ready = existsSync(arm64Addon) && existsSync(join(arm64Root, '.complete'));
const suites = requested.length > 0
  ? requested
  : [...readdirSync(join(root, 'test')).filter((d) => d !== 'e2e' && d !== 'gpu' && d !== 'slurm' && statSync(join(root, 'test', d)).isDirectory()),
    ...(wasmBuilt ? ['wasm'] : []), ...(arm64Ready ? ['arm64'] : [])];

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
const arm64Run = suites.includes('arm64');
for (const s of suites) {
  if (s === 'wasm' || s === 'arm64') continue;
  const dir = join(root, 'test', s);
  if (!existsSync(dir)) {
    console.error(`test: no suite test/${s}`);
    process.exit(2);
  }
  files.push(...collect(dir));
}
if (files.length === 0 && !wasmRun && !arm64Run) {
  console.error('test: no test files found');
  process.exit(1);
}
if (wasmRun && !wasmBuilt) {
  console.error('test: suite wasm needs the WebAssembly build (npm run build:wasm, with em++ on PATH)');
  process.exit(2);
}
if (arm64Run && !arm64Ready) {
  console.error(`test: suite arm64 needs ${arm64Addon} (npm run build:linux-arm64) and the arm64 Node in ${arm64Root} (bash scripts/arm64-setup.sh)`);
  process.exit(2);
}
// No --test-force-exit: on Node 20-24 it can drop the tail of a file's results before the parent
// reads them, so a run reports fewer tests than ran, at exit 0 (nodejs/node#64833). Instead a
// file whose process never exits (a handle left open) is found by its CPU time: a run whose
// processes used under IDLE_CPU_S of CPU time over the last IDLE_MIN minutes waits on nothing
// that will come and is killed, loudly. Both guards are hang guards, not speed targets: a run
// starved by other load still uses CPU time and goes on. A wall-clock limit cannot tell the two:
// the 45 min this was killed a whole run at load 17-27 with 328 tests passed and none failed
// (s44 newcomer HIGH-0), and test/cli/cli.test.ts alone took 11 min at load 25-30 (s33), past the
// 10 min --test-timeout was. --test-timeout bounds each file (node runs a file as one test) and
// WATCHDOG_MS the whole run, both far past a starved run's length.
const TEST_TIMEOUT_MS = 120 * 60 * 1000;
const WATCHDOG_MS = 180 * 60 * 1000;
const IDLE_MIN = 5;
const IDLE_CPU_S = 1;
/**
 * CPU time (user + system, s) of each live process of `pid`'s tree, by PID (Linux /proc/PID/stat
 * utime, stime, cutime, cstime in USER_HZ = 100 ticks; cutime/cstime hold the children it reaped);
 * null off Linux or when `pid` is gone.
 */
function treeCpuByPid(pid) {
  const stat = (p) => {
    try {
      return readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ');
    } catch {
      return null;
    }
  };
  const own = stat(pid);
  if (!own) return null;
  const children = new Map();
  for (const name of readdirSync('/proc')) {
    const f = /^\d+$/.test(name) ? stat(name) : null;
    if (f) children.set(Number(name), Number(f[1]));
  }
  const byPid = new Map();
  const add = (p, f) => {
    byPid.set(p, (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100);
    for (const [c, parent] of children) if (parent === p) { const cf = stat(c); if (cf) add(c, cf); }
  };
  add(pid, own);
  return byPid;
}

/** The CPU time (s) in all of a `treeCpuByPid` answer. */
function totalCpu(byPid) {
  let s = 0;
  for (const v of byPid.values()) s += v;
  return s;
}

/**
 * CPU time (s) the tree used between two `treeCpuByPid` samples, never negative: each process's
 * growth, and the whole time of one that appeared since. Summing the tree twice and subtracting
 * went negative (-12 s in 5 busy minutes, s53) when a process died unreaped by the tree (code-server
 * stopped by its process group: its children are reparented to init), taking its time out of the sum.
 */
function cpuBetween(before, after) {
  let used = 0;
  for (const [p, t] of after) used += Math.max(0, t - (before.get(p) ?? 0));
  return used;
}

/**
 * Runs `list` in one node --test; its exit status. Killed when its processes used under IDLE_CPU_S
 * of CPU time over the last IDLE_MIN minutes (waiting on a handle left open), or after WATCHDOG_MS,
 * it says the CPU time the run used, in all and in its last minutes: a run starved by other load
 * (nice 10 at load 40: 151 s of CPU time in 45 min, s41) still uses some, one waiting on a handle none.
 */
async function runFiles(list, env) {
  const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', `--test-timeout=${TEST_TIMEOUT_MS}`, ...list], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  const started = Date.now();
  const samples = []; // { used: s } CPU time used in each of the last IDLE_MIN minutes
  let previous = null; // the last treeCpuByPid sample
  let killed = false;
  const kill = (why) => {
    if (killed) return;
    killed = true;
    const now = treeCpuByPid(child.pid);
    const cpu = now === null ? null : totalCpu(now);
    const recent = samples.reduce((sum, x) => sum + x.used, 0);
    const used = cpu === null
      ? ''
      : ` Its live processes hold ${cpu.toFixed(0)} s of CPU time (${((100 * cpu) / ((Date.now() - started) / 1000)).toFixed(1)}% of one CPU)` +
        (samples.length ? `, ${recent.toFixed(1)} s used in the last ${samples.length} min` : '') +
        ': a run starved by other load still uses some; none in the last minutes is a test file waiting on a handle it left open.';
    console.error(`test: ${why}; killed.${used}`);
    child.kill('SIGKILL');
  };
  const sampler = setInterval(() => {
    const now = treeCpuByPid(child.pid);
    if (now === null) return;
    if (previous !== null) samples.push({ used: cpuBetween(previous, now) });
    previous = now;
    if (samples.length > IDLE_MIN) samples.shift();
    const used = samples.reduce((sum, x) => sum + x.used, 0);
    if (samples.length === IDLE_MIN && used < IDLE_CPU_S) {
      kill(`the run used ${used.toFixed(2)} s of CPU time in ${IDLE_MIN} min: a test file is waiting on something that will not come (a handle left open)`);
    }
  }, 60_000);
  const watchdog = setTimeout(() => kill(`the run did not finish within ${WATCHDOG_MS / 60000} min`), WATCHDOG_MS);
  const [code] = await new Promise((resolve) => child.on('close', (c, sig) => resolve([c, sig])));
  clearInterval(sampler);
  clearTimeout(watchdog);
  if (killed) process.exit(1);
  return code ?? 1;
}
const status = files.length > 0 ? await runFiles(files, {}) : 0;
if (wasmRun) {
  console.error('test: the kernel, allocator, peaks and simulator files again on the WebAssembly build (ATTNSCOPE_BACKEND=wasm)');
}
const wasmStatus = wasmRun ? await runFiles(WASM_FILES, { ATTNSCOPE_BACKEND: 'wasm' }) : 0;

/**
 * The same files against the linux-arm64 addon: Debian's arm64 Node under qemu-aarch64, each file
 * run directly (node:test then runs it in that process: `node --test` would spawn a child by the
 * arm64 node's path, which this kernel cannot exec). tsx's esbuild is this machine's binary, which
 * qemu hands to the kernel to run natively. A pass records the addon's sha-256 in tested.json
 * beside it, the record scripts/package.mjs checks before it packages that addon.
 */
function runArm64() {
  const hostEsbuild = createRequire(import.meta.url).resolve(`@esbuild/${process.platform}-${process.arch}/bin/esbuild`);
  const env = { ...process.env, ATTNSCOPE_BACKEND: 'native', ATTNSCOPE_NATIVE: arm64Addon, ESBUILD_BINARY_PATH: hostEsbuild };
  let failed = 0;
  for (const file of ARM64_FILES) {
    console.error(`test: ${file.slice(root.length + 1)} on the linux-arm64 addon (arm64 Node under qemu-aarch64)`);
    const r = spawnSync('qemu-aarch64', ['-L', arm64Root, join(arm64Root, 'usr', 'bin', 'node'), '--import', 'tsx', file], {
      cwd: root, stdio: 'inherit', timeout: WATCHDOG_MS, killSignal: 'SIGKILL', env,
    });
    if (r.status !== 0) {
      // Said by name: a file whose tests all printed "ok" can still end by a signal or a non-zero
      // code (qemu-user at the process's exit), and the run's exit status alone did not say which.
      failed++;
      const how = r.error ? `could not run (${r.error.message})` : r.signal ? `was ended by ${r.signal}` : `exited with code ${r.status}`;
      console.error(`test: ${file.slice(root.length + 1)} on the linux-arm64 addon ${how}`);
    }
  }
  if (failed > 0) return 1;
  const sha256 = createHash('sha256').update(readFileSync(arm64Addon)).digest('hex');
  writeFileSync(join(dirname(arm64Addon), 'tested.json'), JSON.stringify({ sha256, files: ARM64_FILES.map((f) => f.slice(root.length + 1)) }, null, 2) + '\n');
  return 0;
}
const arm64Status = arm64Run ? runArm64() : 0;
// One closing line naming the parts that failed: a long run's failures are far above its end.
const failedParts = [[status, 'the main run'], [wasmStatus, 'the WebAssembly run'], [arm64Status, 'the linux-arm64 run']]
  .filter(([s]) => s !== 0).map(([s, name]) => `${name} (exit ${s})`);
if (failedParts.length > 0) console.error(`test: failed: ${failedParts.join(', ')}; search this output for "not ok" or "test: ... on the linux-arm64 addon"`);
process.exit(status || wasmStatus || arm64Status);
