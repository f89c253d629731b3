/**
 * npm run bench:history — what listing History and the finished sweeps costs the extension host
 * (extension/history.ts listRunsIn, extension/sweepReports.ts sweepReportsIn), which runs them on
 * its one thread when the dashboard opens, after every run saved and every sweep ended.
 * The folder: RUNS runs of a data_parallel_size 8 simulation (`attnscope simulate` of
 * examples/llama-3.1-8b.attn.yaml with device.data_parallel_size 8, saved as the editor saves
 * runs: history.ts saveRun) and SWEEPS sweep reports of ROWS rows each (the rows of a 3-point
 * sweep's report repeated; ~1.5 KB a row).
 * Each listing: CPU time (process.cpuUsage), wall time, and the longest stall of the event loop
 * while it ran (perf_hooks monitorEventLoopDelay, 1 ms resolution): what a user of the window
 * feels as a frozen editor. Listed: the first listing (a fresh extension host), a listing again
 * after one run file changed, the sweeps list, and each first listing of a new extension host
 * (a window reload) from what the last one kept (extension/listedFiles.ts persistListings).
 * Usage: npm run bench:history [-- --runs 40 --sweeps 3 --rows 10000]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { listRunsIn, saveRun } from '../extension/history';
import { sweepReportsIn } from '../extension/sweepReports';
import { listingsWritten, persistListings } from '../extension/listedFiles';
import type { RunResult } from '../core/protocol/run';
import { tempDir } from '../test/fixtures/tmp';

const root = join(__dirname, '..');
const args = process.argv.slice(2);
const arg = (name: string, dflt: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const RUNS = arg('runs', 40);
const SWEEPS = arg('sweeps', 3);
const ROWS = arg('rows', 10_000);

/** CPU ms, wall ms and the longest event-loop stall (ms) of `f`. */
async function timed<T>(f: () => Promise<T>): Promise<{ cpu: number; wall: number; stall: number; value: T }> {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await f();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  h.disable();
  return { cpu: (c.user + c.system) / 1000, wall, stall: h.max / 1e6, value };
}

const fmt = (t: { cpu: number; wall: number; stall: number }): string => `CPU ${t.cpu.toFixed(0)} ms, wall ${t.wall.toFixed(0)} ms, longest stall ${t.stall.toFixed(0)} ms`;

async function main(): Promise<void> {
  const dir = tempDir('attnscope-bench-history-');
  const profile = join(dir, 'dp8.attn.yaml');
  const example = readFileSync(join(root, 'examples', 'llama-3.1-8b.attn.yaml'), 'utf8');
  writeFileSync(profile, example.replace('./llama-3.1-8b/', `${join(root, 'examples', 'llama-3.1-8b')}/`).replace('  tensor_parallel_size: 1\n', '  tensor_parallel_size: 1\n  data_parallel_size: 8\n'));
  execFileSync(process.execPath, [join(root, 'dist', 'runner.js'), 'simulate', profile, '--json', join(dir, 'dp8.json')], { stdio: 'ignore' });
  const run = JSON.parse(readFileSync(join(dir, 'dp8.json'), 'utf8')) as RunResult;
  const runs = join(dir, '.attnscope', 'runs');
  const ids: string[] = [];
  for (let i = 0; i < RUNS; i++) ids.push(await saveRun(runs, { ...run, createdAt: new Date(Date.parse(run.createdAt) + i * 1000).toISOString() }));
  const runBytes = readFileSync(join(runs, `${ids[0]}.json`)).length;

  const sweeps = join(dir, '.attnscope', 'sweeps');
  const tiny = join(dir, 'tiny.attn.yaml');
  writeFileSync(tiny, `model: ${join(root, 'examples', 'llama-3.1-8b', 'config.json')}\ndtype: bf16\ndevice: { gpu: H100 SXM }\nkv_cache: { memory_gib: 2 }\nworkload:\n  requests: 100\n  arrival_rate: 20\n  prompt_len: { dist: lognormal, median: 1200, sigma: 0.4, max: 4096 }\n  output_len: { dist: uniform, min: 64, max: 512 }\n  max_num_seqs: 64\n  max_model_len: 8192\n  seed: 1\nsweep:\n  job: simulate\n  axes:\n    kv_cache.page_size: [8, 16, 32]\n`);
  execFileSync(process.execPath, [join(root, 'dist', 'runner.js'), 'sweep', tiny, '--out', join(dir, 'tiny')], { stdio: 'ignore' });
  const small = JSON.parse(readFileSync(join(dir, 'tiny', 'sweep-report.json'), 'utf8')) as { rows: unknown[]; total: number };
  const rows = Array.from({ length: ROWS }, (_, i) => small.rows[i % small.rows.length]);
  let sweepBytes = 0;
  for (let s = 0; s < SWEEPS; s++) {
    mkdirSync(join(sweeps, `tiny-${s}`), { recursive: true });
    const text = JSON.stringify({ ...small, rows, total: ROWS }, null, 2);
    sweepBytes = text.length;
    writeFileSync(join(sweeps, `tiny-${s}`, 'sweep-report.json'), text);
  }
  console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}; ${RUNS} runs of ${(runBytes / 2 ** 20).toFixed(1)} MiB, ${SWEEPS} sweep reports of ${ROWS} rows, ${(sweepBytes / 2 ** 20).toFixed(1)} MiB`);

  const first = await timed(() => listRunsIn([{ path: runs }]));
  console.log(`History, first listing (${first.value.runs.length} runs): ${fmt(first)}`);
  const again = await timed(() => listRunsIn([{ path: runs }]));
  console.log(`History, listed again, nothing changed: ${fmt(again)}`);
  await saveRun(runs, run);
  const changed = await timed(() => listRunsIn([{ path: runs }]));
  console.log(`History, listed again after one run saved: ${fmt(changed)}`);
  const sw = await timed(() => sweepReportsIn(sweeps));
  console.log(`Sweeps list (${sw.value.entries.length} reports): ${fmt(sw)}`);
  const sw2 = await timed(() => sweepReportsIn(sweeps));
  console.log(`Sweeps list again, nothing changed: ${fmt(sw2)}`);
  // A new extension host (a window reload) of this build: what the last one kept (listedFiles.ts persistListings).
  const store = join(dir, 'storage', 'listed-files.json');
  persistListings(store, 'bench');
  await listRunsIn([{ path: runs }]);
  await sweepReportsIn(sweeps);
  await listingsWritten();
  persistListings(store, 'bench');
  const reloaded = await timed(() => listRunsIn([{ path: runs }]));
  console.log(`History, first listing of a new extension host: ${fmt(reloaded)}`);
  const swReloaded = await timed(() => sweepReportsIn(sweeps));
  console.log(`Sweeps list, first of a new extension host: ${fmt(swReloaded)}`);
}

void main();
