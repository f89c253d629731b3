/**
 * What the CLI says where a newcomer's input is wrong or surprising (session 31): a flag given
 * twice, a symbolic link loop, a vLLM log of two start-ups, an encoder-only model against a vLLM
 * log, a BurstGPT filter of another case, a trace stamped in milliseconds, a sweep no point of
 * which meets the SLO, a sweep with errors in several points, an empty token cell in a CSV trace.
 * Through the built dist/runner.js.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../fixtures/tmp';

const root = join(__dirname, '..', '..');
const runner = join(root, 'dist', 'runner.js');
const llamaConfig = join(root, 'examples', 'llama-3.1-8b', 'config.json');

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [runner, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A profile of Llama-3.1-8B with a fixed pool and a small workload, in a fresh folder. */
function profileDir(extra = ''): { dir: string; profile: string } {
  const dir = tempDir('attnscope-msg-');
  const profile = join(dir, 'p.attn.yaml');
  writeFileSync(profile, `model: ${JSON.stringify(llamaConfig)}\nkv_cache: { page_size: 16, num_pages: 2048 }\nworkload: { requests: 20, arrival_rate: 2, max_model_len: 8192 }\n${extra}`);
  return { dir, profile };
}

test('a --set key given twice (--set k=64 --set k=128) is refused before any work, naming both and the one argument to give: exit 2, one line (s53 newcomer 10)', () => {
  // Before: the second replaced the first and the sweep ran 1 point (128), rc 0.
  const { dir, profile } = profileDir();
  const out = join(dir, 'swx');
  const r = cli(['sweep', profile, '--set', 'workload.max_num_seqs=64', '--set', 'workload.max_num_seqs=128', '--out', out]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr, "attnscope: --set workload.max_num_seqs is given 2 times ('workload.max_num_seqs=64', then 'workload.max_num_seqs=128'): the last would replace the others; give the key once with all its values, e.g. --set workload.max_num_seqs=64,128\n");
  assert.equal(r.stdout, '');
  assert.throws(() => readFileSync(join(out, 'sweep.json')), /ENOENT/);
  // Two keys once each are a two-axis sweep, as before.
  const two = cli(['sweep', profile, '--set', 'workload.max_num_seqs=64', '--set', 'kv_cache.page_size=16', '--out', join(dir, 'sw2')]);
  assert.equal(two.code, 0, two.stderr);
  assert.doesNotMatch(two.stderr, /is given/);
});

test('a flag that takes one value given twice (--trace a --trace b) is refused before any work, naming both values: exit 2, one line', () => {
  const { dir, profile } = profileDir();
  const a = join(dir, 'a.jsonl');
  const b = join(dir, 'b.jsonl');
  for (const f of [a, b]) writeFileSync(f, '{"arrival_s": 0, "prompt_len": 100, "output_len": 10}\n');
  const r = cli(['simulate', profile, '--trace', a, '--trace', b]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr, `attnscope: --trace is given 2 times ('${a}', then '${b}'): it takes one value; give it once\n`);
  assert.equal(r.stdout, '');
  // The --flag=value spelling counts the same; a boolean flag twice says the same thing twice and runs.
  const eq = cli(['simulate', profile, `--trace=${a}`, '--trace', b]);
  assert.equal(eq.code, 2);
  assert.match(eq.stderr, /^attnscope: --trace is given 2 times/);
  const once = cli(['estimate', profile, '--json', '--json']);
  assert.equal(once.code, 0, once.stderr);
});

test('a symbolic link loop (ELOOP) is one line at the file saying so, for a profile, a trace, a vLLM log, a sweep and a results folder: exit 2, no Node error text', () => {
  const { dir, profile } = profileDir();
  const loop = (name: string) => {
    // x -> y -> x: opening either fails with ELOOP.
    symlinkSync(`${name}.2`, join(dir, name));
    symlinkSync(name, join(dir, `${name}.2`));
    return join(dir, name);
  };
  const p = loop('loop.attn.yaml');
  const t = loop('loop.jsonl');
  const l = loop('loop.log');
  const d = loop('results');
  for (const [args, file, prefix] of [
    [['estimate', p], p, ''],
    [['simulate', profile, '--trace', t], t, 'cannot read the trace: '],
    [['vllm-log', l], l, ''],
    [['sweep', p, '--set', 'kv_cache.page_size=8,16'], p, ''],
    [['merge', d], d, ''],
  ] as const) {
    const r = cli([...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr, `${file}:1:1: ${prefix}symbolic link loop: a link on the path leads back to itself; point it at the file\n`, args.join(' '));
  }
});

test('simulate on a trace stamped in milliseconds (arrival_s 0, 1000, ...) is refused before any work with the flag to give; --trace-time-unit ms replays it in seconds', () => {
  const { dir, profile } = profileDir();
  // 30 requests 1,000 ms apart: read as seconds, 8.06 hours with every gap 1,000 s (runner/simulate/traces.ts MS_SUSPECT_SPAN_S).
  const trace = join(dir, 'ms.jsonl');
  writeFileSync(trace, Array.from({ length: 30 }, (_, i) => JSON.stringify({ arrival_s: i * 1000, prompt_len: 100, output_len: 10 })).join('\n') + '\n');
  const r = cli(['simulate', profile, '--trace', trace]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`^${trace.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:30:1: the attnscope trace read in seconds \\(arrival_s, seconds\\) spans 8\\.06 hours, .*: its timestamps look like milliseconds: pass --trace-time-unit ms \\(or --trace-time-unit s to replay them as seconds\\)\n$`));
  assert.equal(r.stdout, '');
  const ms = cli(['simulate', profile, '--trace', trace, '--trace-time-unit', 'ms']);
  assert.equal(ms.code, 0, ms.stderr);
  assert.match(ms.stderr, /attnscope trace \(arrival_s, milliseconds \(--trace-time-unit ms\)\), 30 requests/);
  const bad = cli(['simulate', profile, '--trace', trace, '--trace-time-unit', 'us']);
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr, "attnscope: --trace-time-unit must be s or ms (the unit of the trace's time stamps), got 'us' (see attnscope simulate --help)\n");
});

test('simulate --trace-model in another case than the BurstGPT trace\'s values keeps the rows; one no row has names the values there are', () => {
  const { profile } = profileDir();
  const trace = join(root, 'test', 'unit', 'fixtures', 'traces', 'burstgpt.csv');
  const r = cli(['simulate', profile, '--trace', trace, '--trace-model', 'chatgpt']);
  assert.equal(r.code, 0, r.stderr);
  // burstgpt.csv: ChatGPT keeps the rows at 5 s and 131 s; the two 0-response rows are dropped, GPT-4's one too.
  assert.match(r.stderr, /burstgpt trace \(Timestamp, seconds\), 2 requests/);
  const none = cli(['simulate', profile, '--trace', trace, '--trace-model', 'claude']);
  assert.equal(none.code, 2);
  assert.equal(none.stderr, `${trace}:1:1: the burstgpt trace holds no requests (dropped: 5 of another Model than claude); its Model values: "ChatGPT" (4 rows), "GPT-4" (1 row): give one of them to --trace-model\n`);
});

test('simulate --trace with empty token cells in a BurstGPT CSV is refused at each cell: exit 2, a line each, not dropped failed requests', () => {
  const { dir, profile } = profileDir();
  // The session-31 bg_mixed.csv: rows 3 and 4 lack Request tokens (column 11) and Response tokens (column 15).
  const trace = join(dir, 'bg_mixed.csv');
  writeFileSync(trace, 'Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,472,18,490,Conversation log\n6,ChatGPT,,30,490,Conversation log\n7,ChatGPT,300,,300,Conversation log\n');
  const r = cli(['simulate', profile, '--trace', trace]);
  assert.equal(r.code, 2, r.stderr);
  // Row 3: `6,ChatGPT,` is 10 characters; row 4: `7,ChatGPT,300,` is 14. Both rows, not only the first.
  assert.equal(r.stderr, `${trace}:3:11: Request tokens must be an integer from 1 to 2,147,483,647, got an empty cell\n${trace}:4:15: Response tokens must be an integer from 1 to 2,147,483,647, got an empty cell\n`);
  assert.equal(r.stdout, '');
});

test('vllm-log on a log of two start-ups reads the last and says so at its line; --startup 1 reads the first; --startup 3 is refused naming both', () => {
  // The 0.11 Qwen2.5-7B start-up (lines 1-7) and then the 0.6.4 Llama-3.1-8B one from line 8, as a restart appends them.
  const logs = join(root, 'test', 'unit', 'fixtures', 'vllm-logs');
  const read = (name: string) => readFileSync(join(logs, name), 'utf8').trimEnd();
  const dir = tempDir('attnscope-msg-');
  const file = join(dir, 'restarted.log');
  writeFileSync(file, `${read('constructed-v0.11-qwen2.5-7b.log')}\n${read('constructed-v0.6.4-llama-3.1-8b.log')}\n`);
  const r = cli(['vllm-log', file]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, `${file}:8:1: info: the log holds 2 start-ups (lines 1, 8); read the last (line 8); --startup 1 reads the first\n`);
  // 0.6.4's blocks at line 13, and no usable figure: the 0.11 start-up's 71.27 GiB is not this one's.
  assert.match(r.stdout, /GPU blocks\s+1,952\s+\(line 13\)/);
  assert.doesNotMatch(r.stdout, /71\.27/);
  const first = cli(['vllm-log', file, '--startup', '1']);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stderr, `${file}:1:1: info: the log holds 2 start-ups (lines 1, 8); read the first (line 1); --startup 2 reads the last\n`);
  assert.match(first.stdout, /KV cache size \(tokens\)\s+1,038,832\s+\(line 5\)/);
  const third = cli(['vllm-log', file, '--startup', '3']);
  assert.equal(third.code, 2);
  assert.equal(third.stderr, `${file}:1:1: --startup 3: the log holds 2 start-ups (lines 1, 8): give 1 to 2\n`);
});

test('vllm-log --profile of an encoder-only model (BERT) says the model keeps no KV cache, not that the device memory is missing', () => {
  const bert = join(root, 'test', 'fixtures', 'configs', 'bert-base-uncased.config.json');
  const dir = tempDir('attnscope-msg-');
  // What vLLM V1 prints for an encoder-only model: its weights, and no KV line (get_kv_cache_spec
  // skips ENCODER_ONLY layers; _initialize_kv_caches profiles no budget). 109,482,240 params · 2 B = 0.20 GiB.
  const log = join(dir, 'bert.log');
  writeFileSync(log, '(EngineCore_DP0 pid=2) INFO 10-02 09:00:21 [gpu_model_runner.py:2653] Model loading took 0.2044 GiB and 1.5 seconds\n');
  const r = cli(['vllm-log', log, '--profile', bert]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^KV cache memory\s+—\s+0 B\s+—\n {4}bert is an encoder-only model, which keeps no KV cache: vLLM sizes no KV pool for it \(V1 skips\s+encoder-only attention layers in get_kv_cache_spec/m);
  assert.match(r.stdout, /^activation peak \(PyTorch\)\s+—\s+—\s+—\n {4}not modelled: bert is an encoder-only model, which keeps no KV cache$/m);
  assert.match(r.stdout, /note: bert is an encoder-only model, [\s\S]*: only the weights compare$/m);
  assert.doesNotMatch(r.stdout, /without the device memory|no device budget/);
  // A log that sized a pool (the 0.11 Qwen2.5-7B one) is another model's: said so, with the blocks' difference.
  const qwen = join(root, 'test', 'unit', 'fixtures', 'vllm-logs', 'constructed-v0.11-qwen2.5-7b.log');
  const other = cli(['vllm-log', qwen, '--profile', bert]);
  assert.equal(other.code, 0, other.stderr);
  // The comparison past 100 columns is stacked parts (core/textTable.ts): the log and estimate in one, the difference and why in the last.
  assert.match(other.stdout, /^KV cache memory\s+55\.48 GiB \[4\]\s+0 B$/m);
  assert.match(other.stdout, /^KV cache memory\s+−55\.48 GiB\n {4}bert\s+is\s+an\s+encoder-only\s+model,\s+which\s+keeps\s+no\s+KV\s+cache;\s+this\s+log's\s+vLLM\s+sized\s+a\s+55\.48\s+GiB\s+pool,\s+so\s+it\s+served\s+a\s+model\s+with\s+a\s+decoder,\s+not\s+bert:\s+compare\s+with\s+a\s+profile\s+or\s+config\.json\s+of\s+the\s+log's\s+model$/m);
  assert.doesNotMatch(other.stdout, /without the device memory|no device budget/);
});

test('a profile with CRLF or old-Mac CR-only line ends reads as with LF: the same file:line:col for a profile error, a YAML syntax error and a JSON profile error', () => {
  const dir = tempDir('attnscope-eol-');
  const eols: Array<[string, string]> = [['lf', '\n'], ['crlf', '\r\n'], ['cr', '\r']];
  const cases: Array<{ name: string; lines: string[]; expected: string }> = [
    // Line 5 is `  tensor_parallel_size: 3`: 2 spaces + `tensor_parallel_size: ` (22) before the 3 -> column 25.
    {
      name: 'tp.attn.yaml',
      lines: [`model: ${JSON.stringify(llamaConfig)}`, 'dtype: bf16', 'device:', '  gpu: H100 SXM', '  tensor_parallel_size: 3', 'kv_cache:', '  page_size: 16', ''],
      expected: ':5:25: tensor_parallel_size 3 does not divide the 32 attention heads',
    },
    // The unclosed flow list of line 2 ends at the end of the text (line 4, column 1); before, a CR-only file
    // was one line to the yaml library: "Nested mappings are not allowed in compact mappings" at 1:8.
    { name: 'syntax.attn.yaml', lines: ['a: 1', 'b: [1,', '  c: d', ''], expected: ':4:1: YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ]' },
    // JSON: line 6 is `  "device": {"gpu": "H100 SXM", "tensor_parallel_size": 3}`; the 3 is its 57th character.
    {
      name: 'tp.attn.json',
      lines: ['{', `  "model": ${JSON.stringify(llamaConfig)},`, '  "dtype": "bf16",', '  "kv_cache": {"page_size": 16},', '  "workload": {"requests": 10},', '  "device": {"gpu": "H100 SXM", "tensor_parallel_size": 3}', '}', ''],
      expected: ':6:57: tensor_parallel_size 3 does not divide the 32 attention heads',
    },
  ];
  for (const c of cases) {
    for (const [eol, sep] of eols) {
      const file = join(dir, `${eol}-${c.name}`);
      writeFileSync(file, c.lines.join(sep));
      const r = cli(['estimate', file]);
      assert.equal(r.code, 2, `${eol} ${c.name}: ${r.stderr}`);
      assert.ok(r.stderr.startsWith(`${file}${c.expected}`), `${eol} ${c.name}: ${r.stderr}`);
      assert.equal(r.stderr.split('\n').length, 2, r.stderr);
    }
  }
});

test('estimate, bench or simulate on estimate --json\'s output or a sweep report says in one line what the file is (they were read as a config.json: lines of missing "hidden_size")', () => {
  const { dir, profile } = profileDir();
  const est = join(dir, 'est.json');
  const made = cli(['estimate', profile, '--json']);
  assert.equal(made.code, 0, made.stderr);
  writeFileSync(est, made.stdout);
  const createdAt = (JSON.parse(made.stdout) as { createdAt: string }).createdAt;
  // A sweep report as attnscope sweep writes it (core/protocol/sweep.ts SweepReport: kind, tool, sweepId, name).
  const report = join(dir, 'sweep-report.json');
  writeFileSync(report, JSON.stringify({ schema: 1, kind: 'attnscope-sweep-report', tool: 'attnscope 0.1.0', createdAt, sweepId: '0123456789abcdef', name: 'p.attn.yaml', job: 'simulate', rows: [] }));
  for (const command of ['estimate', 'bench', 'simulate']) {
    const a = cli([command, est]);
    assert.equal(a.code, 2, a.stderr);
    assert.equal(a.stderr, `${est}:1:1: the output of attnscope estimate --json for p.attn.yaml at ${createdAt}, not a profile or config.json: give attnscope ${command} the profile it was made from (p.attn.yaml)\n`);
    const b = cli([command, report]);
    assert.equal(b.code, 2, b.stderr);
    assert.equal(b.stderr, `${report}:1:1: a sweep report (sweep 0123456789abcdef of p.attn.yaml), not a profile or config.json: give attnscope ${command} the profile it was made from (p.attn.yaml); the report opens with AttnScope: Open sweep results\n`);
  }
});

// s37 fix38: the refusal lived in cli.ts's estimate and bench; vllm-log --profile, sweep and
// submit read a run as a config.json ("missing \"hidden_size\"" lines) or refused it by its name.
test('vllm-log --profile, sweep and submit refuse a saved run, estimate --json\'s output and a sweep report in the one line estimate gives, with their own command to run', () => {
  const { dir, profile } = profileDir();
  const run = join(dir, 'run.json');
  const made = cli(['simulate', profile, '--json', run]);
  assert.equal(made.code, 0, made.stderr);
  const createdAt = (JSON.parse(readFileSync(run, 'utf8')) as { createdAt: string }).createdAt;
  const est = join(dir, 'est.json');
  writeFileSync(est, cli(['estimate', profile, '--json']).stdout);
  const estAt = (JSON.parse(readFileSync(est, 'utf8')) as { createdAt: string }).createdAt;
  const report = join(dir, 'sweep-report.json');
  writeFileSync(report, JSON.stringify({ schema: 1, kind: 'attnscope-sweep-report', tool: 'attnscope 0.1.0', createdAt, sweepId: '0123456789abcdef', name: 'p.attn.yaml', job: 'simulate', rows: [] }));
  const log = join(root, 'test', 'unit', 'fixtures', 'vllm-logs', 'a10-llama-3.1-8b-v0.log');
  const made_ = `made by attnscope simulate from p.attn.yaml at ${createdAt}`;
  const cases: Array<[string[], string, string]> = [
    [['vllm-log', log, '--profile', run], run, `a saved run (${made_}), not a profile or config.json: give its profile: attnscope vllm-log ${log} --profile p.attn.yaml; attnscope simulate ${run} simulates the run's profile again`],
    [['vllm-log', log, '--profile', est], est, `the output of attnscope estimate --json for p.attn.yaml at ${estAt}, not a profile or config.json: give attnscope vllm-log --profile the profile it was made from (p.attn.yaml)`],
    [['vllm-log', log, '--profile', report], report, 'a sweep report (sweep 0123456789abcdef of p.attn.yaml), not a profile or config.json: give attnscope vllm-log --profile the profile it was made from (p.attn.yaml); the report opens with AttnScope: Open sweep results'],
    // Before: "a sweep needs a profile (*.attn.yaml, ...)", which says what it is not, not what it is.
    [['sweep', run, '--set', 'kv_cache.page_size=16,32'], run, `a saved run (${made_}), not a profile or config.json: give its profile: attnscope sweep p.attn.yaml; attnscope simulate ${run} simulates the run's profile again`],
    [['sweep', report], report, 'a sweep report (sweep 0123456789abcdef of p.attn.yaml), not a profile or config.json: give attnscope sweep the profile it was made from (p.attn.yaml); the report opens with AttnScope: Open sweep results'],
    [['submit', '--slurm', est], est, `the output of attnscope estimate --json for p.attn.yaml at ${estAt}, not a profile or config.json: give attnscope submit --slurm the profile it was made from (p.attn.yaml)`],
  ];
  for (const [args, file, message] of cases) {
    const r = spawnSync(process.execPath, [runner, ...args], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr, `${file}:1:1: ${message}\n`, args.join(' '));
    assert.equal(r.stdout, '', args.join(' '));
  }
});

test('estimate or bench on a saved run (simulate --json) says in one line what the file is and what to give: its profile, or simulate RUN.json', () => {
  const { dir, profile } = profileDir();
  const run = join(dir, 'run.json');
  const made = cli(['simulate', profile, '--json', run]);
  assert.equal(made.code, 0, made.stderr);
  const createdAt = (JSON.parse(readFileSync(run, 'utf8')) as { createdAt: string }).createdAt;
  for (const command of ['estimate', 'bench']) {
    const r = spawnSync(process.execPath, [runner, command, 'run.json'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 2, r.stderr);
    // Before: four lines `run.json:1:1: missing "hidden_size": ...` (the run read as a config.json).
    assert.equal(r.stderr, `run.json:1:1: a saved run (made by attnscope simulate from p.attn.yaml at ${createdAt}), not a profile or config.json: give its profile: attnscope ${command} p.attn.yaml; attnscope simulate run.json simulates the run's profile again\n`);
    assert.equal(r.stdout, '');
  }
  // The profile gone: no command naming it.
  rmSync(profile);
  const gone = cli(['estimate', run]);
  assert.equal(gone.code, 2, gone.stderr);
  assert.equal(gone.stderr, `${run}:1:1: a saved run (made by attnscope simulate from p.attn.yaml at ${createdAt}), not a profile or config.json: give the profile it was made from; attnscope simulate ${run} simulates the run's profile again\n`);
});

test("workload.max_model_len in vLLM's spelling 32K is read as vLLM reads it, 32,768 tokens, an info at its value; 1.5K is refused there as vLLM refuses it (exit 2)", () => {
  const dir = tempDir('attnscope-msg-');
  const profile = join(dir, 'p.attn.yaml');
  // vllm/utils/argparse_utils.py human_readable_int: uppercase K = 2^10, so 32K = 32 · 1,024 = 32,768.
  writeFileSync(profile, `model: ${JSON.stringify(llamaConfig)}\ndevice: { gpu: H100 SXM }\nworkload: { max_model_len: 32K }\n`);
  const r = cli(['estimate', profile]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, new RegExp(`^${profile.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:3:28: info: max_model_len 32K is read as 32,768 tokens, as vLLM's --max-model-len reads it`, 'm'));
  assert.match(r.stdout, /max concurrency .* for 32,768 tokens per request/);
  writeFileSync(profile, `model: ${JSON.stringify(llamaConfig)}\nworkload: { max_model_len: 1.5K }\n`);
  const bad = cli(['estimate', profile]);
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr, `${profile}:2:28: workload.max_model_len must be an integer, not the string "1.5K": vLLM refuses decimals with a binary suffix ("Decimals are not allowed with binary suffixes like K. Did you mean to use 1.5k instead?")\n`);
});

// s47 newcomer M2, M3: each of these was read as a profile and gave parser noise (README.md: 5 lines
// of "YAML syntax error: Implicit keys need to be on a single line"; the shipped vLLM log 2 such
// lines; the shipped trace "JSON syntax error: end of file expected"; package.json 4 lines of
// missing "hidden_size" and the like; /bin/ls's bytes one line of 424 characters of escapes).
test('a file of another kind given as the profile says in one line what it looks like and what takes it (exit 2)', () => {
  const dir = tempDir('attnscope-msg-');
  const bin = join(dir, 'b.attn.yaml');
  // \x7fELF, then 3 bytes, then the first NUL: byte 7 counted from 0 (\x7f E L F \x02 \x01 \x01 = 7 bytes before it).
  writeFileSync(bin, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x41]));
  const notes = join(dir, 'notes.md');
  writeFileSync(notes, '# Notes\n\nSome prose: with a colon\nand more prose here\n');
  const pkg = join(dir, 'package.json');
  writeFileSync(pkg, JSON.stringify({ name: 'x', version: '1.0.0', scripts: { test: 'node t.js' } }, null, 2));
  const cases: Array<[string, RegExp]> = [
    [bin, /:1:1: binary data \(a NUL byte at byte 7\), not a profile or config\.json/],
    // The line holding the first log line (vLLM V1's "(EngineCore_DP0 pid=...) INFO 02-06 ..." on line 1).
    [join(root, 'examples', 'vllm-llama-3.1-8b.log'), /vllm-llama-3\.1-8b\.log:1:1: a vLLM server log, not a profile or config\.json: attnscope vllm-log \S+vllm-llama-3\.1-8b\.log --profile P /],
    [join(root, 'examples', 'chat-trace.jsonl'), /chat-trace\.jsonl:2:1: JSON lines \(one object a line, as a request trace is\), not a profile or config\.json: .*--trace /],
    // Line 3, "Some prose: with a colon", reads as a key and its value; line 4 is a key without
    // its ":" (a map's next entry): the first YAML error, at 4:1.
    [notes, /notes\.md:4:1: not a profile or config\.json: a \.md file that does not read as YAML/],
    [pkg, /package\.json:1:1: not a model's config\.json: none of a HuggingFace config's keys/],
  ];
  for (const command of ['estimate', 'simulate']) {
    for (const [file, expected] of cases) {
      const r = cli([command, file]);
      assert.equal(r.code, 2, `${command} ${file}: ${r.stderr}`);
      assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, r.stderr);
      assert.match(r.stderr, expected);
      assert.ok(r.stderr.length < 400, `${r.stderr.length} characters`);
      assert.equal(r.stdout, '');
    }
  }
  // A YAML profile with a syntax error keeps its own error (the name says YAML).
  const bad = join(dir, 'bad.attn.yaml');
  writeFileSync(bad, `model: ${llamaConfig}\nkv_cache:\n  page_size: 16\n dtype: auto\n`);
  assert.match(cli(['estimate', bad]).stderr, /bad\.attn\.yaml:4:\d+: YAML syntax error/);
});

test('an empty .json says it is empty and what to write, as an empty YAML profile does; a profile piped to `simulate -` is told where a resolved Profile comes from', () => {
  // s47 newcomer LOW-7: a 0-byte config.json and .attn.json read "JSON syntax error: value expected".
  const dir = tempDir('attnscope-msg-');
  const config = join(dir, 'empty.json');
  const profile = join(dir, 'empty.attn.json');
  writeFileSync(config, '');
  writeFileSync(profile, ' \n');
  const c = cli(['estimate', config]);
  assert.equal(c.code, 2);
  assert.equal(c.stderr, `${config}:1:1: the file is empty: a config.json is a JSON object of HuggingFace keys\n`);
  const p = cli(['estimate', profile]);
  assert.equal(p.code, 2);
  assert.equal(p.stderr, `${profile}:1:1: the profile is empty: start with \`{"model": "./<model>/config.json"}\`\n`);
  // A profile's own keys as JSON on stdin: not a resolved Profile; a run file's "profile" is one.
  const r = spawnSync(process.execPath, [runner, 'simulate', '-'], { encoding: 'utf8', input: JSON.stringify({ model: llamaConfig }), timeout: 120_000 });
  assert.equal(r.status, 2);
  assert.equal(r.stderr, '<stdin>:1:1: stdin must hold a resolved profile as JSON, as a run file\'s "profile" is (attnscope simulate p.attn.yaml --json run.json); for a profile file give its path instead (attnscope simulate p.attn.yaml)\n');
});

test('estimate shows the exact KV bytes per token only where the unit rounds them: a tiny model reads "256 B (128 B per layer)", not the figure twice', () => {
  // s47 newcomer LOW-12: "512 B (512 B; 256 B per layer)". 2 layers · (K + V) · 1 KV head · head_dim 32 · 2 B (bf16) = 256 B, 128 B a layer.
  const dir = tempDir('attnscope-msg-');
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ model_type: 'llama', hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 2, num_key_value_heads: 1, intermediate_size: 128, vocab_size: 1000, max_position_embeddings: 2048, torch_dtype: 'bfloat16' }));
  const r = cli(['estimate', config]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^ {2}KV per token {6}256 B \(128 B per layer\)$/m);
  // Where the unit rounds, the exact count stays: Llama-3.1-8B's 128 KiB is 131,072 B.
  assert.match(cli(['estimate', llamaConfig]).stdout, /^ {2}KV per token {6}128 KiB \(131,072 B; 4 KiB per layer\)$/m);
});

test('a bare config.json, which names no GPU, is told which profile to write (the editor\'s New profile… too), not "set device.gpu", a key no config.json has (s47 newcomer)', () => {
  // examples/README.md: `attnscope estimate examples/qwen3-30b-a3b/config.json` ("a bare config gets the default profile; no GPU, so its note says which profile to write").
  const config = join(root, 'examples', 'qwen3-30b-a3b', 'config.json');
  // New profile… writes <model folder>.attn.yaml beside the model's folder, its model: the config's path from there.
  const hint = 'write a profile naming a GPU, e.g. qwen3-30b-a3b.attn.yaml beside the qwen3-30b-a3b folder: `model: qwen3-30b-a3b/config.json` and `device: { gpu: H100 SXM }` (the editor\'s "AttnScope: New profile…" writes one), and give that instead';
  const sim = cli(['simulate', config]);
  assert.equal(sim.code, 2, sim.stderr);
  // One line, as every refusal: the hint in it.
  assert.equal(sim.stderr, `${config}:1:1: the KV pool has no pages: a config.json names no GPU: ${hint}\n`);
  const est = cli(['estimate', config]);
  assert.equal(est.code, 0, est.stderr);
  assert.match(est.stdout, /^ {2}KV pool {11}no budget: a config\.json names no GPU \(the note below says what to write\)$/m);
  assert.doesNotMatch(est.stdout, /set device\.|device\.memory_gib/);
  // The note, read joined (wrapped at 100 columns).
  assert.ok(est.stdout.replace(/\n {6}/g, ' ').includes(`note: a config.json names no GPU, so nothing sizes the KV pool: ${hint}`), est.stdout);
  // The profile it names sizes the pool: written as said, estimate reads a KV pool.
  const dir = tempDir('attnscope-msg-');
  const written = join(dir, 'qwen3-30b-a3b.attn.yaml');
  writeFileSync(written, `model: ${JSON.stringify(join(root, 'examples', 'qwen3-30b-a3b', 'config.json'))}\ndevice: { gpu: H100 SXM }\n`);
  const sized = cli(['estimate', written]);
  assert.equal(sized.code, 0, sized.stderr);
  assert.match(sized.stdout, /^ {2}KV pool {11}[\d,]+ pages = [\d,]+ tokens/m);
});

test('a profile with errors names its unknown keys too, after the errors (s50 newcomer LOW-5: the typo "pagesize" surfaced only once the two errors were fixed)', () => {
  const dir = tempDir('attnscope-msg-');
  const profile = join(dir, 'p.attn.yaml');
  writeFileSync(profile, `model: ${llamaConfig}\ndevice: { gpu: H100 SXMM }\nkv_cache: { pagesize: 16, dtype: fp9 }\n`);
  const r = cli(['estimate', profile]);
  assert.equal(r.code, 2);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 3, r.stderr);
  assert.match(lines[0]!, /p\.attn\.yaml:2:16: device\.gpu must be one of .* did you mean "H100 SXM"\?$/);
  assert.match(lines[1]!, /p\.attn\.yaml:3:34: kv_cache\.dtype must be one of .* did you mean "fp8"\?$/);
  // Column 13: the key "pagesize" in `kv_cache: { pagesize: …`.
  assert.equal(lines[2], `${profile}:3:13: warning: unknown key "pagesize" in kv_cache: did you mean "page_size"?`);
});

// s53 newcomer 5: a saved run (or any JSON file) cut short said "not a model's config.json: none of a
// HuggingFace config's keys ..." at 1:1 to simulate and estimate; every command that reads it says
// where its JSON stops and that it looks cut short, as merge does for a point file.
test('a JSON file cut short is named so at its end by every command that reads it: simulate, estimate, bench, vllm-log --profile, --calibrate', () => {
  const { dir, profile } = profileDir();
  const small = join(dir, 'small.json');
  // Line 3 is `  "tool": "attnsc`: 2 spaces and 15 characters, so the text ends at 3:18.
  writeFileSync(small, '{\n  "schema": 1,\n  "tool": "attnsc');
  const cutLine = (f: string, bytes: number) => `${f}:3:18: the JSON stops unfinished at the end of the file (${bytes} bytes): it looks cut short, by an interrupted copy or a full disk: copy or save it again\n`;
  for (const args of [['simulate', small], ['estimate', small], ['bench', small, '--dry-run'], ['vllm-log', join(root, 'examples', 'vllm-llama-3.1-8b.log'), '--profile', small], ['simulate', profile, '--calibrate', small]]) {
    const r = cli(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr, cutLine(small, 34), args.join(' '));
    assert.equal(r.stdout, '');
  }
  // A real saved run cut after its first 3,000 bytes (head -c 3000): its end's place counted from its lines here.
  const run = join(dir, 'run.json');
  assert.equal(cli(['simulate', profile, '--json', run]).code, 0);
  const text = readFileSync(run, 'utf8').slice(0, 3000);
  const cut = join(dir, 'cut.json');
  writeFileSync(cut, text);
  const lines = text.trimEnd().split('\n');
  for (const command of ['simulate', 'estimate']) {
    const r = cli([command, cut]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, `${cut}:${lines.length}:${lines.at(-1)!.length + 1}: the JSON stops unfinished at the end of the file (3,000 bytes): it looks cut short, by an interrupted copy or a full disk: copy or save it again\n`);
  }
  // Not cut short but wrong: still the syntax error at its place, not "cut short".
  const garbled = join(dir, 'garbled.json');
  writeFileSync(garbled, '{\n  "schema": x,\n  "tool": "attnscope"\n}\n');
  assert.match(cli(['estimate', garbled]).stderr, /^.*garbled\.json:2:13: /);
  assert.doesNotMatch(cli(['estimate', garbled]).stderr, /cut short/);
});

// s53 newcomer 6: a hand-edited saved run's bad value was placed at 1:1 and named "the resolved Profile".
test('simulate RUN.json: a bad value in the run\'s profile is placed at the value in the file, and named as the run\'s profile', () => {
  const { dir, profile } = profileDir();
  const saved = join(dir, 'run.json');
  assert.equal(cli(['simulate', profile, '--json', saved]).code, 0);
  const run = JSON.parse(readFileSync(saved, 'utf8')) as { profile: { workload: Record<string, unknown> } };
  /** The run with `edit` made to its profile's workload, written as Python's json.dump(indent=1) does; the line and column (from 1) of `needle` in it. */
  const edited = (name: string, edit: (w: Record<string, unknown>) => void, needle: string) => {
    const copy = JSON.parse(JSON.stringify(run)) as typeof run;
    edit(copy.profile.workload);
    const text = JSON.stringify(copy, null, 1);
    const file = join(dir, name);
    writeFileSync(file, text);
    const lines = text.split('\n');
    const line = lines.findIndex((l) => l.includes(needle));
    assert.ok(line >= 0);
    return { file, at: `${line + 1}:${lines[line]!.indexOf(needle) + needle.indexOf(':') + 3}` };
  };
  // `"requests": "lots"`: at the value, the column of its opening quote.
  const lots = edited('lots.json', (w) => (w.requests = 'lots'), '"requests": "lots"');
  const r = cli(['simulate', lots.file]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr, `${lots.file}:${lots.at}: the run's profile: workload.requests must be an integer, not the string "lots"\n`);
  // A check past the schema (the prompt lengths' min above their max): at the min's value.
  const minMax = edited('minmax.json', (w) => (w.promptLen = { dist: 'uniform', min: 5000, max: 10 }), '"min": 5000');
  const m = cli(['simulate', minMax.file]);
  assert.equal(m.code, 2, m.stderr);
  assert.equal(m.stderr, `${minMax.file}:${minMax.at}: the run's profile: workload.prompt_len: min 5000 is greater than max 10\n`);
});
