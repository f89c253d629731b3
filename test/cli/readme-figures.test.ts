/**
 * README's example figures, rerun with this build on the shipped example profile
 * (examples/llama-3.1-8b.attn.yaml), so that a change of the simulator or of the example cannot
 * leave them stale (s39 newcomer F6: the tables still printed figures of before a step-time
 * change): the sweep table, the max-rate sweep's table and best point, the Slurm example's table (a Slurm job merges the point files of the
 * same sweep, so its table is the one `attnscope sweep` prints for those --set values here) and
 * the example profile's μ comment (`simulate --max-rate`'s "Saturated throughput μ"). Every
 * line README shows of a table must be a line this build prints; its "..." rows are left out.
 * Through the built dist/runner.js, from the repository root, as README's commands run.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../fixtures/tmp';

const root = join(__dirname, '..', '..');
const runner = join(root, 'dist', 'runner.js');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const EXAMPLE = 'examples/llama-3.1-8b.attn.yaml';

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [runner, ...args], { cwd: root, encoding: 'utf8', timeout: 300_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * README's example that starts at the line beginning `$ attnscope <command>`: its --set
 * arguments and the lines it shows from the line starting "Sweep " to the end of the code block.
 */
function example(command: string): { set: string[]; shown: string[] } {
  const lines = readme.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`$ attnscope ${command}`));
  assert.ok(start >= 0, `README has no example starting "$ attnscope ${command}"`);
  const end = lines.findIndex((l, i) => i > start && l.startsWith('```'));
  const block = lines.slice(start, end);
  // The command, continued over lines ending in a backslash.
  let k = 0;
  while (block[k]!.endsWith('\\')) k++;
  const commandText = block.slice(0, k + 1).join(' ');
  const set = [...commandText.matchAll(/--set (\S+)/g)].map((m) => m[1]!);
  const table = block.findIndex((l) => l.startsWith('Sweep '));
  assert.ok(table > 0, `README's "${command}" example shows no sweep table`);
  return { set, shown: block.slice(table).filter((l) => l.trim() !== '' && l.trim() !== '...') };
}

/** The lines of the sweep `attnscope sweep EXAMPLE [--max-rate] --set ...` prints with this build. */
function sweepTable(set: string[], maxRate = false): string[] {
  const r = cli(['sweep', EXAMPLE, ...(maxRate ? ['--max-rate'] : []), ...set.flatMap((s) => ['--set', s]), '--out', join(tempDir('attnscope-readme-'), 'sweep')]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.split('\n');
}

test("README's sweep table is what this build prints for its command on the shipped example", () => {
  const { set, shown } = example(`sweep ${EXAMPLE}`);
  assert.deepEqual(set, ['kv_cache.page_size=8,16,32', 'workload.max_num_seqs=64,256']);
  const printed = sweepTable(set);
  assert.ok(shown.length >= 5, shown.join('\n'));
  for (const line of shown) assert.ok(printed.includes(line), `README's line\n${line}\nis not printed; the build prints:\n${printed.join('\n')}`);
});

test("README's max-rate sweep table is what this build prints for its command: each point's highest rate under the SLO, ranked per GPU", () => {
  const { set, shown } = example(`sweep ${EXAMPLE} --max-rate`);
  assert.deepEqual(set, ['device.tensor_parallel_size=1,2', 'slo.ttft_ms=1000']);
  const printed = sweepTable(set, true);
  assert.ok(shown.length >= 4, shown.join('\n'));
  for (const line of shown) assert.ok(printed.includes(line), `README's line\n${line}\nis not printed; the build prints:\n${printed.join('\n')}`);
  // The sentence under it names the best point the report picks (README wraps it: white space as one space).
  const best = /\(`(best:\s[^`]*?) \.\.\.`\)/.exec(readme)?.[1]?.replace(/\s+/g, ' ');
  assert.ok(best && printed.some((l) => l.startsWith(best)), `README's ${best} is not how the printed best line starts`);
});

test("README's Slurm example table is what this build prints for the same sweep", () => {
  const { set, shown } = example(`submit --slurm ${EXAMPLE}`);
  assert.deepEqual(set, ['kv_cache.page_size=8,16,32,64,128,256']);
  const printed = sweepTable(set);
  assert.ok(shown.length >= 5, shown.join('\n'));
  for (const line of shown) assert.ok(printed.includes(line), `README's line\n${line}\nis not printed; the build prints:\n${printed.join('\n')}`);
});

test("the example profile's μ comment is what `simulate --max-rate --slo-ttft-ms 1000` prints for it", () => {
  const comment = /modelled saturated throughput, ([\d.]+) requests\/s: its μ line under `attnscope simulate [^`]* --max-rate --slo-ttft-ms 1000`/.exec(readFileSync(join(root, EXAMPLE), 'utf8'));
  assert.ok(comment, 'the example profile names no saturated throughput');
  const r = cli(['simulate', EXAMPLE, '--max-rate', '--slo-ttft-ms', '1000']);
  assert.equal(r.code, 0, r.stderr);
  const mu = /Saturated throughput μ = ([\d.]+) requests\/s/.exec(r.stdout);
  assert.ok(mu, r.stdout);
  // The comment gives μ to 0.1 requests/s.
  assert.equal(Number(mu[1]).toFixed(1), comment[1], `μ = ${mu[1]} requests/s`);
  // The comment's claim beside it: the example's arrival_rate is below μ.
  const rate = /arrival_rate: ([\d.]+)/.exec(readFileSync(join(root, EXAMPLE), 'utf8'));
  assert.ok(rate && Number(rate[1]) < Number(mu[1]), `arrival_rate ${rate?.[1]} against μ ${mu[1]}`);
});

test("the JSON example's μ in examples/README.md is what `simulate --max-rate --slo-ttft-ms 1000` prints, and its arrival_rate is under it", () => {
  // s46 newcomer46 M2: at arrival_rate 16 (μ 14.5) the example's first simulate printed "Overloaded: ... 215 of
  // the 2,000 requests (10.8%) were still waiting", TTFT p99 15.6 s, with no word that it was meant to.
  const json = 'examples/qwen3-30b-a3b.attn.json';
  const row = readFileSync(join(root, 'examples', 'README.md'), 'utf8').split('\n').find((l) => l.startsWith('| `qwen3-30b-a3b.attn.json`'));
  const said = /a workload with prefix sharing, ([\d.]+) requests\/s: under the modelled saturated throughput, ([\d.]+) requests\/s \(`simulate --max-rate --slo-ttft-ms 1000`/.exec(row ?? '');
  assert.ok(said, `examples/README.md's row names no rate and μ: ${row}`);
  const r = cli(['simulate', json, '--max-rate', '--slo-ttft-ms', '1000']);
  assert.equal(r.code, 0, r.stderr);
  const mu = /Saturated throughput μ = ([\d.]+) requests\/s/.exec(r.stdout);
  assert.ok(mu, r.stdout);
  assert.equal(Number(mu[1]).toFixed(1), said[2], `μ = ${mu[1]} requests/s`);
  const rate = (JSON.parse(readFileSync(join(root, json), 'utf8')) as { workload: { arrival_rate: number } }).workload.arrival_rate;
  assert.equal(String(rate), said[1]);
  assert.ok(rate < Number(mu[1]), `arrival_rate ${rate} against μ ${mu[1]}`);
});

test('the shipped profiles with a workload of their own keep up at it: their first simulate says "Kept up", not "Overloaded"', () => {
  // page-size.attn.yaml is left out: its 2 GiB pool is there to make sequences compete (examples/README.md).
  for (const profile of ['examples/llama-3.1-8b.attn.yaml', 'examples/gpt-oss-20b.attn.yaml', 'examples/qwen3-30b-a3b.attn.json']) {
    const r = cli(['simulate', profile]);
    assert.equal(r.code, 0, `${profile}: ${r.stderr}`);
    assert.match(r.stdout, /^Kept up: /m, profile);
    assert.doesNotMatch(r.stdout, /^Overloaded/m, profile);
    // The lines above the allocation table, Scheduler limits (146 columns for this example) and Workload
    // among them, wrapped at 100 columns as Load (s48 newcomer L5).
    const head = r.stdout.split('\n\n')[0]!.split('\n');
    assert.ok(head.some((l) => l.startsWith('Scheduler limits: ')) && head.some((l) => l.startsWith('Workload: ')), r.stdout);
    for (const l of head) assert.ok(l.length <= 100, `${profile}: ${l.length} columns: ${l}`);
    // The step-time derivation only with --explain (s48 newcomer M5): by default the formula and a line naming the flag.
    assert.match(r.stdout, /^ {2}how each figure is derived \(peaks, sources, coefficients\): --explain \(a --json file holds it too\)$/m, profile);
    assert.doesNotMatch(r.stdout, /step = max\(weights/, profile);
  }
  const explained = cli(['simulate', EXAMPLE, '--explain']);
  assert.equal(explained.code, 0, explained.stderr);
  assert.match(explained.stdout.replace(/\n {4,}/g, ' '), /; step = max\(weights \+ KV read at 0\.8 × bandwidth, FLOPs at 0\.6 × bf16 peak\);/);
  assert.doesNotMatch(explained.stdout, /--explain \(a --json file/);
  // The sweep example's plain run is overloaded, and its row says so (s47: a newcomer's first simulate of it read Overloaded unexplained).
  const row = readFileSync(join(root, 'examples', 'README.md'), 'utf8').split('\n').find((l) => l.startsWith('| `page-size.attn.yaml`'))!;
  assert.match(row, /a plain `attnscope simulate` of it says Overloaded/);
  const r = cli(['simulate', 'examples/page-size.attn.yaml']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Overloaded: at the last arrival 389 of the 600 requests/m);
  assert.match(r.stdout, /^Load: 20\.0 requests\/s offered, 6\.44 requests\/s served/m);
});

test("README's Usage section comes before Quick start, one command each of estimate, simulate, sweep and bench, and its estimate and simulate excerpts are lines this build prints", () => {
  // s47 newcomer MEDIUM-5: the basic usage was 1,169 lines of prose away. The excerpts are copied
  // from a run; a line cut with "…" must be how a printed line starts (to the cut), others printed whole.
  const usage = readme.slice(readme.indexOf('\n## Usage\n'), readme.indexOf('\n## Quick start\n'));
  assert.ok(readme.indexOf('\n## Usage\n') > 0 && usage.length > 0 && usage.length < 6000, 'a short Usage section before Quick start');
  const blocks = [...usage.matchAll(/^ {3}```\n((?: {3}.*\n)*?) {3}```$/gm)].map((m) => m[1]!.split('\n').filter((l) => l !== '').map((l) => l.slice(3)));
  assert.deepEqual(blocks.map((b) => /^\$ attnscope (\w+)/.exec(b[0]!)?.[1]), ['estimate', 'simulate', 'sweep', 'bench']);
  for (const block of blocks.slice(0, 2)) {
    const args = block[0]!.slice('$ attnscope '.length).split(' ');
    const r = cli(args);
    assert.equal(r.code, 0, r.stderr);
    const printed = r.stdout.split('\n');
    for (const line of block.slice(1)) {
      const cut = line.indexOf('…');
      const ok = cut < 0 ? printed.includes(line) : printed.some((p) => p.startsWith(line.slice(0, cut).trimEnd()));
      assert.ok(ok, `README's Usage line\n${line}\nis not printed by attnscope ${args.join(' ')}:\n${r.stdout}`);
    }
  }
});
