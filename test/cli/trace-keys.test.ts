// A profile's workload.trace_time_unit, trace_model and trace_log_type: how `simulate` reads the
// profile's trace, as its --trace-time-unit, --trace-model and --trace-log-type flags do; a flag
// replaces a key and says so; the reader's messages name the keys for a profile's trace.
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { RunResult } from '../../core/protocol/run';
import { tempDir } from '../fixtures/tmp';

const root = join(__dirname, '..', '..');
const runner = join(root, 'dist', 'runner.js');
const TINY_CONFIG = JSON.stringify({
  model_type: 'llama', hidden_size: 256, num_attention_heads: 4, num_key_value_heads: 2, num_hidden_layers: 2,
  intermediate_size: 512, vocab_size: 1000, max_position_embeddings: 4096, torch_dtype: 'float32',
});

function folder(workload: string): { dir: string; run: (args: string[]) => SpawnSyncReturns<string> } {
  const dir = tempDir('attnscope-trace-keys-');
  writeFileSync(join(dir, 'config.json'), TINY_CONFIG);
  writeFileSync(join(dir, 'p.attn.yaml'), `model: ./config.json\nkv_cache: { page_size: 16, num_pages: 1000 }\nworkload:\n${workload}`);
  copyFileSync(join(root, 'test', 'unit', 'fixtures', 'traces', 'burstgpt.csv'), join(dir, 'b.csv'));
  // 10 requests 100,000 apart: milliseconds written where seconds are read (250 h; every gap over 60 s).
  writeFileSync(join(dir, 'ms.jsonl'), Array.from({ length: 10 }, (_, i) => `{"arrival_s": ${i * 100000}, "prompt_len": 100, "output_len": 10}\n`).join(''));
  return { dir, run: (args) => spawnSync(process.execPath, [runner, ...args], { encoding: 'utf8', cwd: dir, timeout: 300_000 }) };
}

test("workload.trace_model reads the profile's BurstGPT trace as --trace-model does (the same rows kept and dropped, recorded as the run's filter); --trace-model replaces it and says so", () => {
  const { dir, run } = folder('  trace: ./b.csv\n  trace_model: chatgpt\n  max_num_seqs: 2\n  max_model_len: 4096\n');
  const r = run(['simulate', 'p.attn.yaml', '--json', 'out.json']);
  assert.equal(r.status, 0, r.stderr);
  // burstgpt.csv (as test/cli/cli.test.ts's --trace-model chatgpt run): ChatGPT at 5 s and 131 s kept; ChatGPT at
  // 45 s and 160 s have 0 response tokens (failed, always dropped), GPT-4 at 118 s is another Model: 2 read, 3 dropped.
  const load = (JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8')) as RunResult).pool!.load!;
  assert.deepEqual(load.trace, {
    path: './b.csv', from: 'workload.trace', resolvedPath: join(realpathSync(dir), 'b.csv'), format: 'burstgpt', timeUnit: 'Timestamp, seconds', rowsRead: 2, spanS: 126,
    dropped: { 'with 0 response tokens (failed requests)': 2, 'of another Model than chatgpt': 1 }, filters: { model: 'chatgpt' },
  });
  // The flag wins: GPT-4's one row at 118 s (4 others dropped: 2 failed, 2 ChatGPT with a response).
  const flag = run(['simulate', 'p.attn.yaml', '--trace-model', 'gpt-4', '--json', 'flag.json']);
  assert.equal(flag.status, 0, flag.stderr);
  assert.match(flag.stdout + flag.stderr, /^--trace-model gpt-4 replaces the profile's workload\.trace_model: chatgpt$/m);
  const flagged = (JSON.parse(readFileSync(join(dir, 'flag.json'), 'utf8')) as RunResult).pool!.load!.trace!;
  assert.deepEqual([flagged.rowsRead, flagged.filters], [1, { model: 'gpt-4' }]);
});

test('workload.trace_time_unit: ms replays a trace written in milliseconds; without it the refusal names the key, not the flag; a --trace-* flag with no trace at all is refused', () => {
  const without = folder('  trace: ./ms.jsonl\n');
  const refused = without.run(['simulate', 'p.attn.yaml']);
  assert.equal(refused.status, 2, refused.stdout);
  assert.match(refused.stderr, /its timestamps look like milliseconds: set workload\.trace_time_unit: ms \(or workload\.trace_time_unit: s to replay them as seconds\)$/m);
  const { dir, run } = folder('  trace: ./ms.jsonl\n  trace_time_unit: ms\n');
  const ok = run(['simulate', 'p.attn.yaml', '--json', 'out.json']);
  assert.equal(ok.status, 0, ok.stderr);
  // 9 gaps of 100,000 ms: 900 s.
  const t = (JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8')) as RunResult).pool!.load!.trace!;
  assert.deepEqual([t.rowsRead, t.spanS, t.timeUnit], [10, 900, 'arrival_s, milliseconds (workload.trace_time_unit: ms)']);
  const drawn = folder('  requests: 10\n');
  const noTrace = drawn.run(['simulate', 'p.attn.yaml', '--trace-time-unit', 'ms']);
  assert.equal(noTrace.status, 2);
  assert.equal(noTrace.stderr.trim(), "attnscope: --trace-time-unit needs a trace to read: --trace FILE, or the profile's workload.trace (see attnscope simulate --help)");
});

test("a sweep's simulate points read the profile's trace as the profile says: workload.trace_time_unit and trace_model reach each point's run (simulatePool read the trace without them: s41 maxrate41 left 1)", () => {
  const ms = folder('  trace: ./ms.jsonl\n  trace_time_unit: ms\n');
  const r = ms.run(['sweep', 'p.attn.yaml', '--set', 'workload.max_num_seqs=1,2', '--out', 'sw']);
  assert.equal(r.status, 0, r.stderr);
  const points = readdirSync(join(ms.dir, 'sw')).filter((f) => f !== 'sweep-report.json' && f.endsWith('.json'));
  assert.equal(points.length, 2, points.join(' '));
  for (const f of points) {
    // 9 gaps of 100,000 ms: 900 s (read as seconds, the reader refused the file: "its timestamps look like milliseconds").
    const t = (JSON.parse(readFileSync(join(ms.dir, 'sw', f), 'utf8')) as RunResult).pool!.load!.trace!;
    assert.deepEqual([t.rowsRead, t.spanS, t.timeUnit], [10, 900, 'arrival_s, milliseconds (workload.trace_time_unit: ms)']);
  }
  // burstgpt.csv with trace_model chatgpt: 2 rows read, the filter recorded (as the simulate test above).
  const burst = folder('  trace: ./b.csv\n  trace_model: chatgpt\n  max_model_len: 4096\n');
  const b = burst.run(['sweep', 'p.attn.yaml', '--set', 'workload.max_num_seqs=1,2', '--out', 'sw']);
  assert.equal(b.status, 0, b.stderr);
  for (const f of readdirSync(join(burst.dir, 'sw')).filter((f) => f !== 'sweep-report.json' && f.endsWith('.json'))) {
    const t = (JSON.parse(readFileSync(join(burst.dir, 'sw', f), 'utf8')) as RunResult).pool!.load!.trace!;
    assert.deepEqual([t.rowsRead, t.filters], [2, { model: 'chatgpt' }]);
  }
});

test("a sweep's simulate point judges a profile's trace against the trace's μ, not the μ of the draws the trace replaces: equal to simulate --max-rate's (s41 maxrate41 left 2)", () => {
  // The trace: 50 requests of 100 + 10 tokens; the draws it replaces: 3,000 + 1,000 tokens (warned unused), whose μ is far lower.
  const { dir, run } = folder('  trace: ./short.jsonl\n  prompt_len: { dist: fixed, value: 3000 }\n  output_len: { dist: fixed, value: 1000 }\n  max_model_len: 4096\n  max_num_seqs: 4\n');
  writeFileSync(join(dir, 'short.jsonl'), Array.from({ length: 50 }, (_, i) => `{"arrival_s": ${i / 100}, "prompt_len": 100, "output_len": 10}\n`).join(''));
  const capacity = run(['simulate', 'p.attn.yaml', '--max-rate', '--slo-ttft-ms', '1000', '--json', 'cap.json']);
  assert.equal(capacity.status, 0, capacity.stderr);
  const mu = (JSON.parse(readFileSync(join(dir, 'cap.json'), 'utf8')) as RunResult).pool!.capacity!.saturatedRate;
  const sweep = run(['sweep', 'p.attn.yaml', '--set', 'workload.max_num_seqs=4,8', '--out', 'sw']);
  assert.equal(sweep.status, 0, sweep.stderr);
  const points = readdirSync(join(dir, 'sw')).filter((f) => f !== 'sweep-report.json' && f.endsWith('.json')).map((f) => JSON.parse(readFileSync(join(dir, 'sw', f), 'utf8')) as RunResult);
  const four = points.find((p) => p.profile.workload!.maxNumSeqs === 4)!;
  assert.equal(four.pool!.load!.saturatedRequestsPerSec, mu);
});

test("a sweep's bad trace filter value on an axis is exit 2 at that axis value before any point runs (s42 newcomer 11: the third point failed at run time, exit 1)", () => {
  const { dir, run } = folder('  trace: ./b.csv\n  trace_model: chatgpt\n  max_model_len: 4096\n');
  const r = run(['sweep', 'p.attn.yaml', '--set', 'workload.trace_model=chatgpt,gpt-4,claude', '--out', 'sw']);
  assert.equal(r.status, 2, r.stderr);
  // burstgpt.csv's Model values: ChatGPT (4 rows), GPT-4 (1 row); claude keeps none. The reader's
  // message, naming the profile's key, at the --set value of the point that takes it.
  assert.match(r.stderr, /^attnscope: --set workload\.trace_model=chatgpt,gpt-4,claude \(value 3 of 3\): sweep point trace_model=claude: \S*b\.csv:1:1: the burstgpt trace holds no requests \(dropped: 5 of another Model than claude\); its Model values: "ChatGPT" \(4 rows\), "GPT-4" \(1 row\): give one of them to workload\.trace_model$/m);
  assert.doesNotMatch(r.stderr, /chatgpt: .*holds no requests|gpt-4: .*holds no requests/);
  // No point ran: no results folder written.
  assert.deepEqual(readdirSync(dir).filter((f) => f === 'sw'), []);
});

test("--trace-model over a profile's trace: a value no row has is named as the flag that gave it, not the profile's key (s42 newcomer 11)", () => {
  const { run } = folder('  trace: ./b.csv\n  trace_model: chatgpt\n  max_model_len: 4096\n');
  const r = run(['simulate', 'p.attn.yaml', '--trace-model', 'claude']);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /its Model values: "ChatGPT" \(4 rows\), "GPT-4" \(1 row\): give one of them to --trace-model$/m);
});
