/**
 * README "Every JSON file AttnScope writes opens with `schema`, `tool`, `createdAt`, `name` and a
 * `kind` to dispatch on": each command's --json (and the files a sweep writes), read from the
 * built dist/runner.js, opens with those five keys in that order (core/protocol/run.ts runHeader,
 * the one implementation) and names its kind. s47 newcomer: `trace --json` printed the trace's
 * summary with no header, and the sweep report put `kind` second.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../fixtures/tmp';

const root = join(__dirname, '..', '..');
const runner = join(root, 'dist', 'runner.js');
const examples = join(root, 'examples');

/** The header's keys, in the order README promises them. */
const HEADER = ['schema', 'tool', 'createdAt', 'name', 'kind'];

function cli(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [runner, ...args], { encoding: 'utf8', cwd, timeout: 300_000 });
  assert.equal(r.status, 0, `attnscope ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** Asserts `text` is a JSON object that opens with the header, is of `kind` and is named `name` (or matches it). */
function assertHeader(text: string, kind: string, name: string | RegExp, what: string): void {
  const doc = JSON.parse(text) as Record<string, unknown>;
  assert.deepEqual(Object.keys(doc).slice(0, HEADER.length), HEADER, `${what}: ${Object.keys(doc).slice(0, 6).join(', ')}`);
  assert.equal(doc.schema, 1, what);
  assert.match(String(doc.tool), /^attnscope \d+\.\d+\.\d+/, what);
  // createdAt is ISO 8601 as Date.toISOString writes it, and a time of this test run.
  assert.match(String(doc.createdAt), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, what);
  assert.ok(Math.abs(Date.parse(String(doc.createdAt)) - Date.now()) < 3_600_000, `${what}: ${String(doc.createdAt)}`);
  assert.equal(doc.kind, kind, what);
  if (typeof name === 'string') assert.equal(doc.name, name, what);
  else assert.match(String(doc.name), name, what);
}

/** A small model (2 layers, 4 heads of 64) so that bench and the sweep run in seconds. */
const TINY_CONFIG = JSON.stringify({
  model_type: 'llama', hidden_size: 256, num_attention_heads: 4, num_key_value_heads: 2, num_hidden_layers: 2,
  intermediate_size: 512, vocab_size: 1000, max_position_embeddings: 4096, torch_dtype: 'float32',
});
const PROFILE = `model: ./tiny/config.json
kv_cache: { num_pages: 400 }
prefill: { seq_lens: [64] }
decode: { batch_sizes: [1], context_lens: [64] }
workload: { requests: 40, max_model_len: 1024 }
sweep:
  axes:
    kv_cache.page_size: [16, 32]
`;

test('trace, estimate and vllm-log --json open with the header and their kind', () => {
  const dir = tempDir('attnscope-header-');
  // trace: the kind 'trace', the trace's file name; the summary's fields follow.
  const trace = cli(['trace', join(examples, 'chat-trace.jsonl'), '--json'], dir);
  assertHeader(trace, 'trace', 'chat-trace.jsonl', 'trace --json');
  // The six requests of examples/chat-trace.jsonl (examples/README.md), after the header.
  assert.equal((JSON.parse(trace) as { requests: number }).requests, 6);
  // The time stamps' column and unit apart, the unit as --trace-time-unit spells it (s50 newcomer LOW-3: "arrival_s, seconds").
  const stamps = (t: string) => { const j = JSON.parse(t) as { timeColumn: unknown; timeUnit: unknown }; return [j.timeColumn, j.timeUnit]; };
  assert.deepEqual(stamps(trace), ['arrival_s', 's']);
  assert.deepEqual(stamps(cli(['trace', join(examples, 'chat-trace.jsonl'), '--trace-time-unit', 'ms', '--json'], dir)), ['arrival_s', 'ms']);
  // Given where a profile goes, the file is told by its kind (read as a config.json it gave "none of a HuggingFace config's keys").
  writeFileSync(join(dir, 'trace.json'), trace);
  const refused = spawnSync(process.execPath, [runner, 'estimate', 'trace.json'], { encoding: 'utf8', cwd: dir });
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /^trace\.json:1:1: the output of attnscope trace --json for chat-trace\.jsonl at \S+, a trace's summary, not a profile or config\.json: give attnscope estimate a profile/);
  assertHeader(cli(['estimate', join(examples, 'llama-3.1-8b.attn.yaml'), '--json'], dir), 'estimate', 'llama-3.1-8b.attn.yaml', 'estimate --json');
  const log = join(examples, 'vllm-llama-3.1-8b.log');
  assertHeader(cli(['vllm-log', log, '--json'], dir), 'vllm-log', 'vllm-llama-3.1-8b.log', 'vllm-log --json');
  assertHeader(cli(['vllm-log', log, '--profile', join(examples, 'vllm-llama-3.1-8b-a100-40gb.attn.yaml'), '--json'], dir), 'vllm-log-comparison', 'vllm-llama-3.1-8b.log', 'vllm-log --profile --json');
});

test('bench, simulate, sweep and merge write files that open with the header and their kind', () => {
  const dir = tempDir('attnscope-header-');
  mkdirSync(join(dir, 'tiny'));
  writeFileSync(join(dir, 'tiny', 'config.json'), TINY_CONFIG);
  writeFileSync(join(dir, 'p.attn.yaml'), PROFILE);
  cli(['bench', 'p.attn.yaml', '--quick', '--json', 'bench.json'], dir);
  assertHeader(readFileSync(join(dir, 'bench.json'), 'utf8'), 'bench', 'p.attn.yaml', 'bench --json');
  cli(['simulate', 'p.attn.yaml', '--json', 'sim.json'], dir);
  assertHeader(readFileSync(join(dir, 'sim.json'), 'utf8'), 'simulate', 'p.attn.yaml', 'simulate --json');
  cli(['sweep', 'p.attn.yaml', '--out', 'out'], dir);
  const points = readdirSync(join(dir, 'out')).filter((n) => n !== 'sweep-report.json');
  assert.equal(points.length, 2, points.join(' '));
  // A point's run is named by the profile and its axis values.
  for (const p of points) assertHeader(readFileSync(join(dir, 'out', p), 'utf8'), 'simulate', /^p\.attn\.yaml \[page_size=(16|32)\]$/, `sweep point ${p}`);
  assertHeader(readFileSync(join(dir, 'out', 'sweep-report.json'), 'utf8'), 'attnscope-sweep-report', 'p.attn.yaml', 'the sweep report');
  cli(['merge', 'out', '--json', 'merged.json'], dir);
  assertHeader(readFileSync(join(dir, 'merged.json'), 'utf8'), 'attnscope-sweep-report', 'p.attn.yaml', 'merge --json');
});
