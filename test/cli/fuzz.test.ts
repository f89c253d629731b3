/**
 * Robustness of the CLI, as test/lsp/fuzz.test.ts is of the language server: a seeded stream of
 * mutated configs, profiles and serving traces through `estimate`, `bench --dry-run` (plan and
 * preflight, nothing measured) and `simulate`. Every run must end in exit 0 or 2 with no stack
 * trace and no "internal error"; nothing may reject unhandled. The commands run in-process
 * (runner/cli.ts main with collecting streams: thousands of node start-ups would take minutes on
 * a busy machine); a sample also runs as the built dist/runner.js, which must exit the same way.
 * Seed: ATTNSCOPE_FUZZ_SEED (default 20261201); count: ATTNSCOPE_CLI_FUZZ_COUNT (default 2000).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { main, type CliIo } from '../../runner/cli';
import type { LengthDist } from '../../core/config/types';
import { loadProfile, profileCommand } from '../../runner/load';
import { uniformStream } from '../../runner/random';
import { mutate } from '../lsp/mutate';
import { tempDir } from '../fixtures/tmp';

const root = join(__dirname, '..', '..');
const runner = join(root, 'dist', 'runner.js');
const SEED = Number(process.env.ATTNSCOPE_FUZZ_SEED ?? 20261201);
const COUNT = Number(process.env.ATTNSCOPE_CLI_FUZZ_COUNT ?? 2000);
/** One case in SPAWN_EVERY also runs as a child process (the real front door). */
const SPAWN_EVERY = 200;
/**
 * Simulations are run only when the mutated workload is small (requests × tokens / page), so
 * that thousands of cases take seconds; a workload past it still goes through estimate and bench.
 */
const MAX_SIMULATED_PAGES = 200_000;

type Kind = 'config' | 'profile' | 'trace';
interface Seed {
  kind: Kind;
  /** File name the mutated text is written under (decides how it is read). */
  name: string;
  text: string;
}

/** A profile's `model:` path made absolute, so the mutated copy can live in a temporary folder. */
function absolutize(text: string, from: string): string {
  return text.replace(/^(\s*"?model"?\s*:\s*)"?(\.{1,2}\/[^"\s,]+)"?/m, (_m, head: string, rel: string) => `${head}${JSON.stringify(resolve(dirname(from), rel))}`);
}

function corpus(): Seed[] {
  const out: Seed[] = [];
  const configs = join(root, 'test', 'fixtures', 'configs');
  for (const n of readdirSync(configs).sort()) if (n.endsWith('.config.json')) out.push({ kind: 'config', name: 'fuzz.config.json', text: readFileSync(join(configs, n), 'utf8') });
  for (const dir of [join(root, 'examples'), join(root, 'test', 'fixtures')]) {
    for (const n of readdirSync(dir).sort()) {
      if (!/\.attn\.(ya?ml|json)$/.test(n)) continue;
      const path = join(dir, n);
      out.push({ kind: 'profile', name: `fuzz${n.slice(n.indexOf('.attn.'))}`, text: absolutize(readFileSync(path, 'utf8'), path) });
    }
  }
  const traces = join(root, 'test', 'unit', 'fixtures', 'traces');
  for (const n of readdirSync(traces).sort()) out.push({ kind: 'trace', name: `fuzz-trace${n.slice(n.lastIndexOf('.'))}`, text: readFileSync(join(traces, n), 'utf8') });
  // Our own JSONL and a vllm bench serve result (--save-detailed), the other two formats.
  out.push({ kind: 'trace', name: 'fuzz-trace.jsonl', text: '{"arrival_s": 0, "prompt_len": 512, "output_len": 64, "prefix_id": "sys", "prefix_len": 256}\n{"arrival_s": 0.25, "prompt_len": 1024, "output_len": 128}\n{"arrival_s": 1.5, "prompt_len": 300, "output_len": 7, "prefix_id": 3, "prefix_len": 100}\n' });
  out.push({ kind: 'trace', name: 'fuzz-bench.json', text: JSON.stringify({ date: '20250101-000000', request_rate: 4, max_concurrency: 8, input_lens: [100, 200, 300], output_lens: [10, 20, 30], start_times: [1000.5, 1000.75, 1001.5], errors: ['', 'timeout', ''], ttfts: [0.1, 0, 0.2], itls: [[0.01], [], [0.02, 0.03]] }, null, 1) });
  return out;
}

/** The profile every mutated trace is simulated with: a small Llama-3.1-8B pool. */
const TRACE_PROFILE = `model: ${JSON.stringify(join(root, 'examples', 'llama-3.1-8b', 'config.json'))}
dtype: bf16
kv_cache: { page_size: 16, num_pages: 4096 }
workload: { requests: 10, arrival_rate: 4, max_num_seqs: 32, max_model_len: 16384 }
`;

function collector(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

async function runInProcess(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = collector();
  const err = collector();
  const io: CliIo = { stdout: out.stream, stderr: err.stream };
  const code = await main(args, io);
  return { code, stdout: out.text(), stderr: err.text() };
}

/** Whether `simulate` on this profile stays within MAX_SIMULATED_PAGES of page work. */
function smallWorkload(file: string): boolean {
  try {
    const { profile } = loadProfile(file, profileCommand('simulate'));
    const w = profile.workload;
    if (!w) return true;
    const most = (d: LengthDist) => (d.dist === 'fixed' ? d.value : d.max);
    const longest = most(w.promptLen) + most(w.outputLen);
    return (w.requests * Math.min(longest, w.maxModelLen)) / profile.kvCache.pageSize <= MAX_SIMULATED_PAGES;
  } catch {
    return true; // it fails to load: simulate ends at the same error, before any work
  }
}

const STACK = /^\s+at .+(:\d+:\d+\)?|\(native\))$/m;

test(`CLI fuzz: ${COUNT} mutated configs, profiles and traces through estimate, bench --dry-run and simulate`, { timeout: 600_000 }, async () => {
  const seeds = corpus();
  const dir = tempDir('attnscope-fuzz-');
  const traceProfile = join(dir, 'trace.attn.yaml');
  writeFileSync(traceProfile, TRACE_PROFILE);
  const rand = uniformStream(SEED);
  const failures: string[] = [];
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  const codes = new Map<string, number>();
  let spawned = 0;
  try {
    for (let n = 0; n < COUNT; n++) {
      const seed = seeds[Math.floor(rand() * seeds.length)]!;
      let text = seed.text;
      const rounds = 1 + Math.floor(rand() * 3);
      for (let k = 0; k < rounds; k++) text = mutate(rand, text);
      const file = join(dir, seed.name);
      writeFileSync(file, text);
      const runs: string[][] = [];
      if (seed.kind === 'trace') {
        runs.push(['simulate', traceProfile, '--trace', file]);
      } else {
        runs.push(['estimate', file, ...(rand() < 0.5 ? ['--json'] : [])]);
        runs.push(['bench', file, '--dry-run', ...(rand() < 0.7 ? ['--quick'] : []), '--backend', 'cpu']);
        if (seed.kind === 'profile' && smallWorkload(file)) runs.push(['simulate', file]);
      }
      for (const args of runs) {
        const r = await runInProcess(args);
        const tag = `#${n} ${seed.kind} ${args[0]}`;
        codes.set(`${args[0]} exit ${r.code}`, (codes.get(`${args[0]} exit ${r.code}`) ?? 0) + 1);
        // 3: simulate's SLO missed (a mutated profile's slo: block), an answer, not a failure (README "Exit codes").
        if (r.code !== 0 && r.code !== 2 && !(args[0] === 'simulate' && r.code === 3)) failures.push(`${tag}: exit ${r.code}: ${r.stderr.slice(0, 400)}`);
        if (STACK.test(r.stderr) || /internal error/.test(r.stderr)) failures.push(`${tag}: ${r.stderr.slice(0, 600)}`);
        if (r.code === 2 && r.stderr.trim() === '') failures.push(`${tag}: exit 2 without a word on stderr`);
        if (n % SPAWN_EVERY === 0) {
          const child = spawnSync(process.execPath, [runner, ...args], { encoding: 'utf8', timeout: 120_000 });
          spawned++;
          if (child.status !== r.code) failures.push(`${tag}: in-process exit ${r.code}, dist/runner.js exit ${child.status}: ${child.stderr.slice(0, 400)}`);
          if (STACK.test(child.stderr)) failures.push(`${tag} (dist/runner.js): ${child.stderr.slice(0, 600)}`);
        }
        if (failures.length > 0) {
          // Keep the input that failed, so it can be replayed.
          failures.push(`input (${seed.name}):\n${text.slice(0, 2000)}`);
          break;
        }
      }
      if (failures.length > 0) break;
    }
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  assert.deepEqual(failures, []);
  assert.deepEqual(unhandled, [], 'no promise rejected unhandled');
  assert.ok(spawned >= Math.floor(COUNT / SPAWN_EVERY), 'the sample ran as dist/runner.js');
  // Both outcomes happen, so the mutations reach past the reader and the checks are exercised.
  for (const key of ['estimate exit 0', 'estimate exit 2', 'bench exit 0', 'bench exit 2', 'simulate exit 0', 'simulate exit 2']) {
    assert.ok((codes.get(key) ?? 0) > 0, `some ${key} (${JSON.stringify([...codes])})`);
  }
});
