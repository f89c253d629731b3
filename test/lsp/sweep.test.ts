/**
 * The `sweep:` block in the editor (issue 13), through a real LSP client: diagnostics at the
 * axis key or the point value that is wrong, completion of axis keys, the points hint, and the
 * "Run sweep" lens on the `sweep:` key.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DiagnosticSeverity, type CompletionItem, type CompletionList, type Diagnostic } from 'vscode-languageserver-protocol';
import { Commands } from '../../core/protocol/lsp';
import { LspClient, fixtureUri, hintLabel, positionAt, rangeOf } from './harness';

let client: LspClient;
before(async () => {
  client = await LspClient.start();
});
after(async () => {
  assert.equal(await client.stop(), 0);
});

const BASE = 'model: ../../examples/llama-3.1-8b/config.json\ndevice: { memory_gib: 80 }\nworkload: { requests: 100 }\n';

let n = 0;
async function diagnostics(text: string): Promise<Diagnostic[]> {
  const uri = fixtureUri(`sweep-${n++}.attn.yaml`);
  const diags = await client.open(uri, text);
  await client.close(uri);
  return diags;
}

test('a clean sweep has no errors and no "unknown key" warning', async () => {
  const diags = await diagnostics(`${BASE}sweep:\n  job: both\n  axes:\n    kv_cache.page_size: [8, 16, 32]\n    workload.max_num_seqs: [64, 256]\n`);
  assert.deepEqual(diags.filter((d) => d.severity !== DiagnosticSeverity.Information).map((d) => d.message), []);
});

test('an unknown axis key: an error at the key, with the suggestion', async () => {
  const text = `${BASE}sweep:\n  axes:\n    kv_cache.page_sise: [8, 16]\n`;
  const d = (await diagnostics(text)).find((x) => x.code === 'sweep-axis-unknown');
  assert.ok(d, 'no sweep-axis-unknown');
  assert.equal(d.severity, DiagnosticSeverity.Error);
  assert.deepEqual(d.range, rangeOf(text, 'kv_cache.page_sise'));
  assert.match(String(d.message), /unknown key "page_sise" in kv_cache, did you mean "page_size"\?/);
});

test('a value an axis repeats: an error at the repeat (the second 16), as attnscope sweep refuses it', async () => {
  const text = `${BASE}sweep:\n  axes:\n    kv_cache.page_size: [8, 16, 32, 16]\n`;
  const d = (await diagnostics(text)).filter((x) => x.code === 'sweep-axis-repeat');
  assert.equal(d.length, 1, JSON.stringify(d));
  assert.equal(d[0]!.severity, DiagnosticSeverity.Error);
  assert.deepEqual(d[0]!.range, rangeOf(text, '16', 1));
  assert.match(String(d[0]!.message), /the sweep axis kv_cache\.page_size repeats the value 16/);
});

test('a pasted axis of 20,000 equal values: 10 repeats marked and one error counting all, not 19,999 diagnostics (s30: 5.9 MB to the editor)', async () => {
  // 20,000 values "16": 19,999 repeats; REPEATS_MARKED (10) marked at their own ranges, then one error saying 19,999.
  const text = `${BASE}sweep:\n  axes:\n    kv_cache.page_size: [${Array(20000).fill('16').join(', ')}]\n`;
  const all = await diagnostics(text);
  const d = all.filter((x) => x.code === 'sweep-axis-repeat');
  assert.equal(d.length, 11);
  assert.deepEqual(d[0]!.range, rangeOf(text, '16', 1));
  assert.equal(d[10]!.message, 'the sweep axis kv_cache.page_size repeats 19,999 values in all (the first 10 are marked): each value runs once, drop the repeats');
  assert.deepEqual(d[10]!.range, rangeOf(text, '16', 11));
  assert.ok(all.length <= 20, `${all.length} diagnostics`);
});

test('a point value the profile does not take: an error at that value, naming the point', async () => {
  const text = `${BASE}sweep:\n  axes:\n    kv_cache.page_size: [16, 0]\n    kv_cache.dtype: [bf16, fp9]\n`;
  const diags = (await diagnostics(text)).filter((d) => d.severity === DiagnosticSeverity.Error);
  const zero = diags.find((d) => /page_size must be >= 1/.test(String(d.message)));
  assert.ok(zero, JSON.stringify(diags.map((d) => d.message)));
  assert.deepEqual(zero.range.start, rangeOf(text, '0]').start);
  // page_size=0 fails in the two points that hold it, (0, bf16) and (0, fp9), and only there: named by that value.
  assert.match(String(zero.message), /^the sweep points with page_size=0 \(2 of 4\): /);
  const fp9 = diags.find((d) => /kv_cache\.dtype must be one of/.test(String(d.message)));
  assert.ok(fp9);
  assert.deepEqual(fp9.range.start, rangeOf(text, 'fp9').start);
  // One diagnostic per wrong value, not one per point that holds it.
  assert.equal(diags.filter((d) => /page_size must be >= 1/.test(String(d.message))).length, 1);
});

test('the block\'s shape is the schema\'s: a job that does not exist', async () => {
  const text = `${BASE}sweep:\n  job: benchmark\n  axes: { kv_cache.page_size: [8] }\n`;
  const d = (await diagnostics(text)).find((x) => /sweep\.job must be one of simulate, max-rate, bench, both/.test(String(x.message)));
  assert.ok(d);
  assert.deepEqual(d.range, rangeOf(text, 'benchmark'));
});

test('completion under sweep.axes offers dotted profile keys with their documentation', async () => {
  const textWithCursor = `${BASE}sweep:\n  axes:\n    |\n`;
  const offset = textWithCursor.indexOf('|');
  const text = textWithCursor.replace('|', '');
  const uri = fixtureUri(`sweep-complete-${n++}.attn.yaml`);
  await client.open(uri, text);
  const result = (await client.completion(uri, positionAt(text, offset))) as CompletionItem[] | CompletionList | null;
  await client.close(uri);
  const items = Array.isArray(result) ? result : (result?.items ?? []);
  const labels = items.map((i) => i.label);
  for (const key of ['kv_cache.page_size', 'workload.max_num_seqs', 'kv_cache.dtype', 'device.memory_gib', 'workload.prompt_len.median']) assert.ok(labels.includes(key), `${key} in ${labels.join(', ')}`);
  assert.ok(!labels.some((l) => l.startsWith('sweep')), 'no sweep.* axis');
  const page = items.find((i) => i.label === 'kv_cache.page_size')!;
  assert.match(JSON.stringify(page.documentation), /Token slots per page/);
});

test('the points hint after axes: the product of the axis lengths and the job', async () => {
  const text = `${BASE}sweep:\n  job: bench\n  axes:\n    kv_cache.page_size: [8, 16, 32]\n    workload.max_num_seqs: [64, 256]\n`;
  const uri = fixtureUri(`sweep-hint-${n++}.attn.yaml`);
  await client.open(uri, text);
  const hints = (await client.inlayHints(uri))!;
  await client.close(uri);
  const at = rangeOf(text, '  axes:').end;
  const found = hints.filter((h) => h.position.line === at.line && h.position.character === at.character);
  assert.equal(found.length, 1, JSON.stringify(hints.map((h) => [h.position, hintLabel(h)])));
  // 3 page sizes × 2 max_num_seqs = 6 points.
  assert.equal(hintLabel(found[0]!), '6 points (3 × 2) · bench');
});

test('the "Run sweep" lens sits on the line of the sweep: key, names the points, and carries the document; none without a sweep, none for a client without the commands', async () => {
  const text = `${BASE}sweep:\n  axes:\n    kv_cache.page_size: [8, 16, 32]\n    workload.max_num_seqs: [64, 256]\n`;
  const uri = fixtureUri(`sweep-lens-${n++}.attn.yaml`);
  await client.open(uri, text);
  const lenses = (await client.codeLenses(uri))!;
  const sweep = lenses.filter((l) => l.command?.command === Commands.runSweep);
  assert.equal(sweep.length, 1, JSON.stringify(lenses.map((l) => l.command?.title)));
  // BASE is 3 lines: `sweep:` starts line 3 (from 0); 3 page sizes × 2 max_num_seqs = 6 points.
  assert.deepEqual(sweep[0]!.range.start, { line: 3, character: 0 });
  assert.equal(sweep[0]!.command!.title, 'Run sweep · 6 points');
  assert.deepEqual(sweep[0]!.command!.arguments, [uri]);
  // The other lenses stay at the top.
  assert.ok(lenses.filter((l) => l !== sweep[0]).every((l) => l.range.start.line === 0));
  // A block in error (an unknown axis key): the lens stays on its line (the runner says what is wrong).
  await client.change(uri, text.replace('page_size', 'page_sise'));
  assert.deepEqual((await client.codeLenses(uri))!.filter((l) => l.command?.command === Commands.runSweep).map((l) => l.range.start.line), [3]);
  await client.close(uri);

  const bare = fixtureUri(`sweep-lens-${n++}.attn.yaml`);
  await client.open(bare, BASE);
  assert.deepEqual((await client.codeLenses(bare))!.filter((l) => l.command?.command === Commands.runSweep), []);
  await client.close(bare);

  const other = await LspClient.start({ clientCommands: false });
  try {
    await other.open(uri, text);
    assert.ok(!(await other.codeLenses(uri))!.some((l) => /sweep/i.test(`${l.command?.command} ${l.command?.title}`)));
  } finally {
    assert.equal(await other.stop(), 0);
  }
});

test('a sweep: block with no axes: no "Run sweep" lens (attnscope sweep runs nothing: it used to say "Run sweep · 1 point") and an error saying what to add (s36 sweep36 4)', async () => {
  for (const block of ['sweep:\n  job: simulate\n', 'sweep:\n  axes: {}\n', 'sweep:\n']) {
    const text = `${BASE}${block}`;
    const uri = fixtureUri(`sweep-noaxes-${n++}.attn.yaml`);
    const diags = await client.open(uri, text);
    const lenses = (await client.codeLenses(uri))!;
    await client.close(uri);
    assert.deepEqual(lenses.filter((l) => l.command?.command === Commands.runSweep).map((l) => l.command?.title), [], block);
    // The other lenses stay: the profile itself benchmarks and simulates.
    assert.deepEqual(lenses.map((l) => l.command?.title), ['Run attention benchmark', 'Run serving simulation', 'Show memory breakdown'], block);
    const errors = diags.filter((d) => d.severity === DiagnosticSeverity.Error);
    assert.equal(errors.length, 1, JSON.stringify(errors));
    assert.match(String(errors[0]!.message), /axes.*e\.g\. `(axes: \{ )?kv_cache\.page_size: \[8, 16, 32\]/, block);
  }
});

test('an error of the base profile that every point shares is one diagnostic; one some points have says which (s28 newcomer finding 4)', async () => {
  // Llama-3.1-8B: vLLM derives 131,072 tokens, so max_model_len 200,000 fails the base profile and
  // each of the 2 · 2 = 4 points alike: one error, at the value, without a "sweep point" copy.
  const text = `${BASE.replace('requests: 100', 'requests: 100, max_model_len: 200000')}sweep:\n  axes:\n    kv_cache.page_size: [16, 32]\n    workload.arrival_rate: [2, 4]\n`;
  const errors = (await diagnostics(text)).filter((d) => d.severity === DiagnosticSeverity.Error);
  assert.equal(errors.length, 1, JSON.stringify(errors.map((d) => d.message)));
  assert.deepEqual(errors[0]!.range, rangeOf(text, '200000'));
  assert.match(String(errors[0]!.message), /^max_model_len 200,000 is longer than the 131,072 tokens/);
  // Swept instead: the base is fine, the 2 of the 4 points with max_model_len=200000 fail; the error is at that value and names them by it.
  const swept = `${BASE}sweep:\n  axes:\n    kv_cache.page_size: [16, 32]\n    workload.max_model_len: [4096, 200000]\n`;
  const some = (await diagnostics(swept)).filter((d) => d.severity === DiagnosticSeverity.Error);
  assert.equal(some.length, 1, JSON.stringify(some.map((d) => d.message)));
  assert.deepEqual(some[0]!.range, rangeOf(swept, '200000'));
  assert.match(String(some[0]!.message), /^the sweep points with max_model_len=200000 \(2 of 4\): max_model_len 200,000 is longer/);
  // A point with page_size 0 stops at that error, so max_model_len 200,000 fails in one point of the four only,
  // (16, 200000): named by its whole label; page_size=0 in the two that hold it.
  const one = `${BASE}sweep:\n  axes:\n    kv_cache.page_size: [16, 0]\n    workload.max_model_len: [4096, 200000]\n`;
  const msgs = (await diagnostics(one)).filter((d) => d.severity === DiagnosticSeverity.Error).map((d) => String(d.message));
  assert.ok(msgs.some((m) => /^the sweep points with page_size=0 \(2 of 4\): /.test(m)), JSON.stringify(msgs));
  assert.ok(msgs.some((m) => /^sweep point page_size=16 max_model_len=200000 \(1 of 4\): max_model_len 200,000 is longer/.test(m)), JSON.stringify(msgs));
  assert.equal(msgs.length, 2, JSON.stringify(msgs));
});

test('every axis value error at once, beside an unknown axis key and an empty axis; Infinity named so; no lens for 0 points or for more than the runner takes (s37 newcomer-ed 4)', async () => {
  // (a) The values 0, "32" and 1e9 of page_size used to be checked only once the typo and the empty axis were fixed.
  const text = `${BASE}sweep:\n  axes:\n    kv_cache.page_size: [16, 0, "32", 1e9]\n    workload.max_num_seq: [8, 16]\n    workload.arrival_rate: []\n`;
  const uri = fixtureUri(`sweep-all-${n++}.attn.yaml`);
  const diags = await client.open(uri, text);
  const lenses = (await client.codeLenses(uri))!;
  await client.close(uri);
  const errors = diags.filter((d) => d.severity === DiagnosticSeverity.Error);
  const at = (needle: string) => errors.filter((d) => JSON.stringify(d.range) === JSON.stringify(rangeOf(text, needle)));
  assert.equal(at('workload.max_num_seq').length, 1, JSON.stringify(errors.map((d) => d.message)));
  assert.equal(at('[]').length, 1, JSON.stringify(errors.map((d) => d.message)));
  const zero = text.indexOf('[16, 0') + 5;
  const zeroRange = JSON.stringify({ start: positionAt(text, zero), end: positionAt(text, zero + 1) });
  const pageErrors = [errors.filter((d) => JSON.stringify(d.range) === zeroRange), at('"32"'), at('1e9')];
  for (const [k, found] of pageErrors.entries()) assert.equal(found.length, 1, `${k}: ${JSON.stringify(errors.map((d) => [d.range, d.message]))}`);
  // Each names its point by the page size alone: 1 of the 4 points page_size takes (the other axes are not read).
  assert.match(String(pageErrors[0]![0]!.message), /^sweep point page_size=0 \(1 of 4\): /);
  // (c) An empty axis makes 0 points: no "Run sweep · 0 points" lens.
  assert.deepEqual(lenses.filter((l) => l.command?.command === Commands.runSweep).map((l) => l.command?.title), []);

  // (b) 1e400 reads as Infinity: the label says Infinity, not "null".
  const inf = `${BASE}sweep:\n  axes:\n    workload.arrival_rate: [2, -1, 1e400]\n`;
  const infErrors = (await diagnostics(inf)).filter((d) => d.severity === DiagnosticSeverity.Error).map((d) => String(d.message));
  assert.ok(infErrors.some((m) => m.startsWith('sweep point arrival_rate=Infinity (1 of 3): ')), JSON.stringify(infErrors));
  assert.ok(!infErrors.some((m) => /=null/.test(m)), JSON.stringify(infErrors));

  // (d) 200 × 200 × 100 = 4,000,000 points, more than the runner's 100,000: an error at the sweep key, no lens.
  const values = (count: number, step: number) => `[${Array.from({ length: count }, (_, i) => (i + 1) * step).join(', ')}]`;
  const huge = `${BASE}sweep:\n  axes:\n    kv_cache.page_size: ${values(200, 16)}\n    workload.max_num_seqs: ${values(200, 1)}\n    workload.arrival_rate: ${values(100, 1)}\n`;
  const hugeUri = fixtureUri(`sweep-huge-${n++}.attn.yaml`);
  const hugeDiags = await client.open(hugeUri, huge);
  const hugeLenses = (await client.codeLenses(hugeUri))!;
  await client.close(hugeUri);
  const big = hugeDiags.filter((d) => d.code === 'sweep-too-big');
  assert.equal(big.length, 1, JSON.stringify(hugeDiags.map((d) => d.message)));
  assert.equal(big[0]!.severity, DiagnosticSeverity.Error);
  assert.deepEqual(big[0]!.range, rangeOf(huge, 'sweep'));
  assert.equal(big[0]!.message, 'the sweep has 4,000,000 points, more than 100,000: split it');
  assert.deepEqual(hugeLenses.filter((l) => l.command?.command === Commands.runSweep), []);
});

test('a max-rate sweep over workload.arrival_rate: a warning at the axis key, the CLI\'s sentence (s42 newcomer 11; the editor said nothing, s43)', async () => {
  const text = `${BASE}slo: { ttft_ms: 500 }\nsweep:\n  job: max-rate\n  axes:\n    workload.arrival_rate: [5, 20]\n    kv_cache.page_size: [16, 32]\n`;
  const d = (await diagnostics(text)).filter((x) => x.code === 'max-rate-arrival-axis');
  assert.equal(d.length, 1, JSON.stringify(d));
  assert.equal(d[0]!.severity, DiagnosticSeverity.Warning);
  assert.deepEqual(d[0]!.range, rangeOf(text, 'workload.arrival_rate'));
  assert.match(String(d[0]!.message), /^workload\.arrival_rate only sets where each max-rate point's capacity search starts \(the search finds the rate itself\)/);
  // A simulate sweep takes it as a design axis: not this warning, but that its simulated rates follow the offered load (s48 newcomer M3).
  const simulate = await diagnostics(text.replace('job: max-rate', 'job: simulate'));
  assert.deepEqual(simulate.filter((x) => x.code === 'max-rate-arrival-axis'), []);
  const offered = simulate.filter((x) => x.code === 'offered-rate-axis');
  assert.deepEqual(offered.map((x) => x.range), [rangeOf(text, 'workload.arrival_rate')]);
  assert.match(String(offered[0]!.message), /^workload\.arrival_rate is the offered load/);
});

test('a sweep axis its job does not read: a warning at the axis key, the CLI\'s sentence (s48 newcomer M2)', async () => {
  const text = `${BASE}sweep:\n  axes:\n    kv_cache.page_size: [16, 32]\n    decode.context_lens: [[512], [2048]]\n`;
  const d = (await diagnostics(text)).filter((x) => x.code === 'sweep-axis-not-read');
  assert.equal(d.length, 1, JSON.stringify(d));
  assert.equal(d[0]!.severity, DiagnosticSeverity.Warning);
  assert.deepEqual(d[0]!.range, rangeOf(text, 'decode.context_lens'));
  assert.match(String(d[0]!.message), /^decode\.context_lens only changes the kernel benchmark; job simulate runs the simulation alone and ignores it/);
  // Job both benchmarks the decode cases: no warning.
  assert.deepEqual((await diagnostics(text.replace('sweep:\n', 'sweep:\n  job: both\n'))).filter((x) => x.code === 'sweep-axis-not-read'), []);
});

test('prices per GPU-hour: a negative, zero or quoted price is an error at its value, in device and in sweep.gpu_hour_usd; a price for a GPU no point runs on is a warning at its key with a rename', async () => {
  for (const [bad, why] of [['-2.49', /must be > 0/], ['0', /must be > 0/], ['"2.49"', /must be a number/]] as const) {
    const text = `${BASE.replace('memory_gib: 80', `memory_gib: 80, gpu_hour_usd: ${bad}`)}sweep:\n  axes: { device.gpu: [H100 SXM, A100 80GB] }\n  gpu_hour_usd: { A100 80GB: ${bad} }\n`;
    const errors = (await diagnostics(text)).filter((d) => d.severity === DiagnosticSeverity.Error);
    const at = (before: string) => ({ start: positionAt(text, text.indexOf(before) + before.length), end: positionAt(text, text.indexOf(before) + before.length + bad.length) });
    assert.deepEqual(errors.map((d) => d.range), [at('gpu_hour_usd: '), at('A100 80GB: ')], JSON.stringify(errors));
    for (const d of errors) assert.match(String(d.message), why);
  }
  const text = `${BASE}sweep:\n  axes: { device.gpu: [H100 SXM, A100 80GB] }\n  gpu_hour_usd: { H100: 2.49, A100 80GB: 1.29 }\n`;
  const uri = fixtureUri(`sweep-price-${n++}.attn.yaml`);
  const diags = await client.open(uri, text);
  const d = diags.find((x) => x.code === 'sweep-price-unused');
  assert.ok(d, JSON.stringify(diags));
  assert.equal(d.severity, DiagnosticSeverity.Warning);
  assert.deepEqual(d.range, rangeOf(text, 'H100', 1));
  assert.match(String(d.message), /^sweep\.gpu_hour_usd prices "H100", which no point of the sweep runs on \(its GPUs: H100 SXM, A100 80GB\): did you mean "H100 SXM"\?/);
  const actions = (await client.codeActions(uri, d.range, [d])) ?? [];
  await client.close(uri);
  const rename = actions.find((x) => x.title === 'Rename to "H100 SXM"') as { edit?: { changes?: Record<string, Array<{ newText: string }>> } } | undefined;
  assert.ok(rename, JSON.stringify(actions));
  assert.deepEqual(Object.values(rename.edit?.changes ?? {}).flat().map((e) => e.newText), ['"H100 SXM"']);
});

test('completion: gpu_hour_usd beside the other device keys and sweep keys; under sweep.gpu_hour_usd the GPU models of the points', async () => {
  const complete = async (withCursor: string): Promise<CompletionItem[]> => {
    const offset = withCursor.indexOf('|');
    const text = withCursor.replace('|', '');
    const uri = fixtureUri(`sweep-complete-${n++}.attn.yaml`);
    await client.open(uri, text);
    const result = (await client.completion(uri, positionAt(text, offset))) as CompletionItem[] | CompletionList | null;
    await client.close(uri);
    return Array.isArray(result) ? result : (result?.items ?? []);
  };
  const device = await complete('model: ../../examples/llama-3.1-8b/config.json\ndevice:\n  gpu: H100 SXM\n  |\n');
  const price = device.find((i) => i.label === 'gpu_hour_usd');
  assert.ok(price, device.map((i) => i.label).join(', '));
  assert.match(JSON.stringify(price.documentation), /never a built-in one/);
  const sweep = await complete(`${BASE}sweep:\n  axes: { kv_cache.page_size: [16] }\n  |\n`);
  assert.ok(sweep.some((i) => i.label === 'gpu_hour_usd'), sweep.map((i) => i.label).join(', '));
  const gpus = await complete(`${BASE}sweep:\n  axes: { device.gpu: [H200, A100 80GB] }\n  gpu_hour_usd:\n    |\n`);
  assert.deepEqual(gpus.map((i) => i.label), ['H100 SXM', 'H200', 'A100 80GB']);
  assert.match(JSON.stringify(gpus[1]!.documentation), /What one H200 costs per hour, US dollars: your price \(user-given\)/);
});

test('a point\'s warning is a diagnostic at the axis value that raises it, in `attnscope sweep`\'s words (s46: the CLI alone said it)', async () => {
  // page_size 2 is not among vLLM's --block-size choices (vllm/config/cache.py BlockSize: 1, 8, 16, 32, 64, 128, 256);
  // 16 is. `attnscope sweep` prints "<file>:6:26: warning: sweep point page_size=2: page_size 2 is not a block size vLLM takes: ...".
  const text = `${BASE}sweep:\n  axes:\n    kv_cache.page_size: [2, 16]\n`;
  const notes = (await diagnostics(text)).filter((d) => /^sweep point/.test(String(d.message)));
  assert.equal(notes.length, 1, JSON.stringify(notes.map((d) => d.message)));
  assert.equal(notes[0]!.severity, DiagnosticSeverity.Warning);
  assert.deepEqual(notes[0]!.range, rangeOf(text, '2'));
  assert.match(String(notes[0]!.message), /^sweep point page_size=2: page_size 2 is not a block size vLLM takes: its --block-size is one of 1, 8, 16, 32, 64, 128, 256 \(vllm\/config\/cache\.py BlockSize\)/);
});
