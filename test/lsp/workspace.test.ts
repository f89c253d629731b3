/**
 * The server as a whole through a real LSP client: a profile is re-checked when its config.json
 * changes on disk or in an editor; attnscope/resolveProfile answers from unsaved text; code
 * lenses name the extension's commands; the IPC transport works; closing clears diagnostics.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PoolResult } from '../../core/protocol/run';
import { copyFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FileChangeType, type InlayHint } from 'vscode-languageserver-protocol';
import { Commands } from '../../core/protocol/lsp';
import { cannotRun } from '../../core/validate';
import { LspClient, fixture, rangeOf } from './harness';
import { tempDir } from '../fixtures/tmp';

let client: LspClient;
let dir: string;
before(async () => {
  client = await LspClient.start();
  dir = tempDir('attnscope-ws-');
  copyFileSync(fixture('../../examples/llama-3.1-8b/config.json').path, join(dir, 'config.json'));
});
after(async () => {
  assert.equal(await client.stop(), 0);
});

const label = (h: InlayHint): string => (typeof h.label === 'string' ? h.label : h.label.map((p) => p.value).join(''));

test('the server registers file watching', async () => {
  await client.registration('workspace/didChangeWatchedFiles');
  assert.deepEqual(client.calls.registrations, ['workspace/didChangeWatchedFiles']);
});

test('a profile is re-checked when its config.json changes on disk', async () => {
  const profile = join(dir, 'disk.attn.yaml');
  const uri = pathToFileURL(profile).href;
  const configPath = join(dir, 'config.json');
  const original = readFileSync(configPath, 'utf8');
  const text = 'model: ./config.json\nkv_cache: { page_size: 16, memory_gib: 3.8125 }\n';
  // 3.8125 GiB holds 31,232 tokens, less than one sequence of max_position_embeddings 131,072 (16 GiB): warned.
  assert.deepEqual((await client.open(uri, text)).map((d) => d.code), ['pool-below-max-model-len']);
  assert.ok((await client.inlayHints(uri))!.map(label).includes('15 GiB weights, 128 KiB KV/token'));
  try {
    writeFileSync(configPath, original.replace('"num_key_value_heads": 8', '"num_key_value_heads": 6'));
    const refreshes = client.calls.inlayHintRefresh;
    const next = client.nextDiagnostics(uri);
    await client.filesChanged([{ uri: pathToFileURL(configPath).href, type: FileChangeType.Changed }]);
    const diags = (await next).diagnostics;
    // 32 heads over 6 KV heads: the config's error shows on the profile's model path, once (no
    // model-config-invalid summary restating it).
    assert.deepEqual(diags.map((d) => d.code).sort(), ['heads-not-divisible']);
    assert.equal(client.calls.inlayHintRefresh, refreshes + 1, 'the client is asked to re-pull hints');
    writeFileSync(configPath, original.replace('"num_key_value_heads": 8', '"num_key_value_heads": 4'));
    const fixed = client.nextDiagnostics(uri);
    await client.filesChanged([{ uri: pathToFileURL(configPath).href, type: FileChangeType.Changed }]);
    // 62,464 tokens: still less than one 131,072-token sequence (8 GiB at 64 KiB per token).
    assert.deepEqual((await fixed).diagnostics.map((d) => d.code), ['pool-below-max-model-len']);
    // 32 · 2 · 4 · 128 · 2 = 65,536 B = 64 KiB per token; page = 16 · 64 KiB = 1 MiB;
    // floor(3.8125 GiB / 1 MiB) = 3,904 pages = 62,464 tokens. Weights: 4 fewer KV heads drop
    // 32 layers · 2 (k, v) · 4096 · 4 · 128 = 134,217,728 parameters: 7,896,043,520 (7.9B) · 2 B = 14.7 GiB.
    const hints = (await client.inlayHints(uri))!.map(label);
    assert.ok(hints.includes('14.7 GiB weights, 64 KiB KV/token'), JSON.stringify(hints));
    assert.ok(hints.includes('62,464 tokens · 3,904 × 1 MiB'), JSON.stringify(hints));
  } finally {
    writeFileSync(configPath, original);
    await client.close(uri);
  }
});

test('a profile is re-checked when the folder of its config is renamed away and back (one folder event each)', async () => {
  // VS Code reports a folder's rename as one Deleted event for the old folder and one Created for
  // the new, not one per file inside: the server matches the files it read under that folder.
  const sub = join(dir, 'moved');
  mkdirSync(sub);
  copyFileSync(join(dir, 'config.json'), join(sub, 'config.json'));
  const uri = pathToFileURL(join(dir, 'moved.attn.yaml')).href;
  const folderUri = pathToFileURL(sub).href;
  assert.deepEqual(await client.open(uri, 'model: ./moved/config.json\nkv_cache: { memory_gib: 16 }\n'), []);
  try {
    renameSync(sub, sub + '2');
    const gone = client.nextDiagnostics(uri);
    await client.filesChanged([{ uri: folderUri, type: FileChangeType.Deleted }, { uri: pathToFileURL(sub + '2').href, type: FileChangeType.Created }]);
    const missing = (await gone).diagnostics;
    assert.equal(missing.length, 1, JSON.stringify(missing));
    assert.match(String(missing[0]!.message), /cannot read the model config "\.\/moved\/config\.json"/);
    renameSync(sub + '2', sub);
    const back = client.nextDiagnostics(uri);
    await client.filesChanged([{ uri: pathToFileURL(sub + '2').href, type: FileChangeType.Deleted }, { uri: folderUri, type: FileChangeType.Created }]);
    assert.deepEqual((await back).diagnostics, [], 'the error clears when the folder is back');
  } finally {
    await client.close(uri);
  }
});

test('a profile is re-checked when its config.json changes in an editor (unsaved)', async () => {
  const uri = pathToFileURL(join(dir, 'editor.attn.yaml')).href;
  const configUri = pathToFileURL(join(dir, 'config.json')).href;
  const config = readFileSync(join(dir, 'config.json'), 'utf8');
  assert.deepEqual(await client.open(uri, 'model: ./config.json\nkv_cache: { memory_gib: 16 }\n'), []);
  // Opening the config in an editor re-checks the profile once (same text, same result).
  const opened = client.nextDiagnostics(uri);
  await client.open(configUri, config);
  assert.deepEqual((await opened).diagnostics, []);
  const next = client.nextDiagnostics(uri);
  await client.change(configUri, config.replace('"num_key_value_heads": 8', '"num_key_value_heads": 5'));
  assert.deepEqual((await next).diagnostics.map((d) => d.code).sort(), ['heads-not-divisible']);
  // Closing the editor without saving: the disk's text counts again.
  const back = client.nextDiagnostics(uri);
  await client.close(configUri);
  assert.deepEqual((await back).diagnostics, []);
  await client.close(uri);
});

test('typing in a config.json asks again for the hints of the open profiles that read it, by name: no refresh of every editor per key (the extension\'s client, hintsChanged)', async () => {
  const folder = tempDir('attnscope-hints-changed-');
  mkdirSync(join(folder, 'other'));
  const config = readFileSync(join(dir, 'config.json'), 'utf8');
  writeFileSync(join(folder, 'config.json'), config);
  writeFileSync(join(folder, 'other', 'config.json'), config);
  const configUri = pathToFileURL(join(folder, 'config.json')).href;
  const reader = pathToFileURL(join(folder, 'reader.attn.yaml')).href;
  const other = pathToFileURL(join(folder, 'other.attn.yaml')).href;
  const own = await LspClient.start({ hintsChanged: true });
  try {
    await own.open(reader, 'model: ./config.json\nkv_cache: { memory_gib: 16 }\n');
    await own.open(other, 'model: ./other/config.json\nkv_cache: { memory_gib: 16 }\n');
    // Opening the config re-checks the profile that reads it (one notification naming it).
    await own.open(configUri, config);
    assert.deepEqual(own.calls.hintsChanged, [[reader]]);
    // Five keys in num_key_value_heads' value, 8 -> (empty) -> 1 -> 16 -> 1 -> 4, each its own version.
    let text = config;
    for (const value of ['', '1', '16', '1', '4']) {
      const at = rangeOf(text, /"num_key_value_heads": (\d*)/.exec(text)![0]);
      const key = '"num_key_value_heads": ';
      const valueRange = { start: { line: at.start.line, character: at.start.character + key.length }, end: at.end };
      text = text.replace(/"num_key_value_heads": \d*/, `${key}${value}`);
      own.sendChange(configUri, [{ range: valueRange, text: value }]);
    }
    await own.diagnostics(configUri, 6);
    // One notification per key, each naming the one profile that reads the config; the old code
    // sent workspace/inlayHint/refresh at the opening and per key (6), which VS Code answers by
    // asking the server for every visible editor's hints.
    assert.equal(own.calls.inlayHintRefresh, 0);
    assert.deepEqual(own.calls.hintsChanged, [[reader], [reader], [reader], [reader], [reader], [reader]]);
    // The reader's hints are of 4 KV heads (32 · 2 · 4 · 128 · 2 B = 64 KiB a token), the other's still of 8 (128 KiB).
    assert.ok((await own.inlayHints(reader))!.map(label).some((h) => h.endsWith('64 KiB KV/token')));
    assert.ok((await own.inlayHints(other))!.map(label).some((h) => h.endsWith('128 KiB KV/token')));
    // A change of the hints setting changes every open document's hints: all three named, still no refresh.
    await own.changeSettings({ attnscope: { hints: 'off' } });
    await own.cannotRun([reader], 'bench'); // a round trip: the notification, sent before its answer, has come
    assert.deepEqual(own.calls.hintsChanged.at(-1)!.slice().sort(), [configUri, other, reader].sort());
    assert.equal(own.calls.inlayHintRefresh, 0);
  } finally {
    assert.equal(await own.stop(), 0);
  }
});

test('attnscope/resolveProfile resolves the unsaved text, and reads a file that is not open', async () => {
  const f = fixture('llama-3.1-8b.attn.yaml');
  await client.open(f.uri, f.text);
  await client.change(f.uri, f.text.replace('page_size: 16', 'page_size: 32'));
  const r = await client.resolveProfile(f.uri);
  assert.equal(r.profile?.kvCache.pageSize, 32);
  // 32 · 131,072 B = 4 MiB per page; floor(3.8125 GiB / 4 MiB) = 976 pages.
  assert.equal(r.estimate?.pageBytes, 4 * 1024 * 1024);
  assert.equal(r.estimate?.pool.pages, 976);
  // The one note: the fixture's workload has no device.gpu (gpu-assumed, the editor's information).
  assert.deepEqual(r.problems.map((p) => p.code), ['gpu-assumed']);
  await client.close(f.uri);
  const closed = await client.resolveProfile(f.uri);
  assert.equal(closed.profile?.kvCache.pageSize, 16);
  assert.equal(closed.estimate?.pool.pages, 1952);
  const missing = await client.resolveProfile(pathToFileURL(join(dir, 'nope.attn.yaml')).href);
  assert.equal(missing.profile, null);
  assert.equal(missing.problems[0]?.code, 'file-not-found');
});

test('attnscope/cannotRun answers a pick\'s files in one request, each as cannotRun of its resolve; an open file from its unsaved text', async () => {
  // The palette's pick sent one resolveProfile per file (200 at most), each answering its Profile and Estimate: 1.6 MB
  // for the examples' profiles, 0.9-1.5 s of the server's CPU and 0.2-0.3 s of the extension host's at load 20.
  const good = fixture('llama-3.1-8b.attn.yaml');
  const bare = join(dir, 'bare.attn.yaml');
  writeFileSync(bare, `model: ${fixture('configs/Qwen2.5-7B.config.json').path}\n`);
  const broken = join(dir, 'broken.attn.yaml');
  writeFileSync(broken, 'model: ./no-such/config.json\n');
  const uris = [good.uri, pathToFileURL(bare).href, pathToFileURL(broken).href, pathToFileURL(join(dir, 'nope.attn.yaml')).href];
  for (const job of ['simulate', 'bench'] as const) {
    const { reasons } = await client.cannotRun(uris, job);
    const each = await Promise.all(uris.map(async (uri) => cannotRun(job, await client.resolveProfile(uri))));
    assert.deepEqual(reasons, each, job);
  }
  const { reasons } = await client.cannotRun(uris, 'simulate');
  assert.equal(reasons[0], null);
  assert.equal(reasons[1], 'no `workload:` block to simulate');
  assert.match(reasons[2] ?? '', /no-such/);
  assert.match(reasons[3] ?? '', /nope\.attn\.yaml is neither open nor readable$/);
  // Open, its workload deleted and not saved: the unsaved text's answer.
  await client.open(good.uri, good.text.replace(/^workload:[\s\S]*?(?=^\S|(?![\s\S]))/m, ''));
  assert.deepEqual((await client.cannotRun([good.uri], 'simulate')).reasons, ['no `workload:` block to simulate']);
  await client.close(good.uri);
});

test('a server given workspace folders answers the pick\'s check of their profiles in the background; a config.json changed on disk is answered anew', async () => {
  const folder = tempDir('attnscope-prefill-');
  mkdirSync(join(folder, 'm'));
  const configPath = join(folder, 'm', 'config.json');
  const config = readFileSync(join(dir, 'config.json'), 'utf8');
  writeFileSync(configPath, config);
  // Two profiles, one in a hidden folder the pass skips (as the pick's findFiles does: core/config/fileKinds.ts SKIPPED_FOLDERS).
  mkdirSync(join(folder, 'sub'));
  mkdirSync(join(folder, '.hidden'));
  writeFileSync(join(folder, 'sub', 'a.attn.yaml'), 'model: ../m/config.json\n');
  writeFileSync(join(folder, 'b.attn.yaml'), 'model: ./m/config.json\n');
  writeFileSync(join(folder, '.hidden', 'c.attn.yaml'), 'model: ../m/config.json\n');
  const own = await LspClient.start({ workspaceFolders: [folder] });
  try {
    assert.match(await own.logged(/workspace files for the pick/), /^AttnScope: answered 2 workspace files for the pick in \d+ ms \(CPU \d+ ms\)$/);
    const uris = [pathToFileURL(join(folder, 'sub', 'a.attn.yaml')).href, pathToFileURL(join(folder, 'b.attn.yaml')).href];
    assert.deepEqual((await own.cannotRun(uris, 'simulate')).reasons, ['no `workload:` block to simulate', 'no `workload:` block to simulate']);
    // 32 query heads over 5 KV heads (32 = 6 * 5 + 2): each profile's error, from the file on disk now.
    writeFileSync(configPath, config.replace('"num_key_value_heads": 8', '"num_key_value_heads": 5'));
    const { reasons } = await own.cannotRun(uris, 'bench');
    for (const r of reasons) assert.match(r ?? '', /32 attention heads cannot be shared evenly by 5 KV heads/);
  } finally {
    assert.equal(await own.stop(), 0);
  }
});

test('a config.json resolves to the default profile around it', async () => {
  const f = fixture('configs/Qwen2.5-7B.config.json');
  const r = await client.resolveProfile(f.uri);
  // Qwen2.5-7B bf16: 28 layers · 2 · 4 · 128 · 2 = 57,344 B per token.
  assert.equal(r.estimate?.kvBytesPerToken, 57344);
  assert.equal(r.profile?.modelPath, f.path);
});

test('code lenses: run the benchmark and show the memory breakdown, on profiles and configs only; run the simulation on profiles with a workload', async () => {
  for (const f of [fixture('llama-3.1-8b.attn.yaml'), fixture('configs/gpt2.config.json')]) {
    await client.open(f.uri, f.text);
    const lenses = (await client.codeLenses(f.uri))!;
    // The profile writes a workload (its max_model_len hint is in hints.test.ts); a config.json has none.
    const simulate = f.path.endsWith('.attn.yaml') ? [['Run serving simulation', Commands.runSimulation, [f.uri]]] : [];
    assert.deepEqual(
      lenses.map((l) => [l.command?.title, l.command?.command, l.command?.arguments]),
      [
        ['Run attention benchmark', Commands.runBenchmark, [f.uri]],
        ...simulate,
        ['Show memory breakdown', Commands.showMemoryBreakdown, [f.uri]],
      ],
    );
    await client.close(f.uri);
  }
  // A profile without a workload: no simulation lens.
  const bare = pathToFileURL(join(dir, 'bare.attn.yaml')).href;
  await client.open(bare, 'model: ../../examples/llama-3.1-8b/config.json\n');
  assert.deepEqual((await client.codeLenses(bare))!.map((l) => l.command?.command), [Commands.runBenchmark, Commands.showMemoryBreakdown]);
  await client.close(bare);
  // No `model:` key yet (the s36 newcomer typed `mod`; an empty file; keys but no model): every command
  // needs the model, so no lens, only the error that says to write one.
  for (const [i, text] of ['mod', '', 'dtype: bf16\nworkload:\n  requests: 10\n'].entries()) {
    const unfinished = pathToFileURL(join(dir, `unfinished-${i}.attn.yaml`)).href;
    assert.equal((await client.open(unfinished, text)).length, 1, text);
    assert.deepEqual(await client.codeLenses(unfinished), [], text);
    await client.close(unfinished);
  }
  // An encoder (bert): nothing to benchmark (`attnscope bench` refuses it), so only the memory breakdown.
  const bert = fixture('configs/bert-base-uncased.config.json');
  await client.open(bert.uri, bert.text);
  assert.deepEqual((await client.codeLenses(bert.uri))!.map((l) => l.command?.command), [Commands.showMemoryBreakdown]);
  await client.close(bert.uri);
  const other = pathToFileURL(join(dir, 'package.json')).href;
  await client.open(other, '{ "name": "x" }');
  assert.deepEqual(await client.codeLenses(other), []);
  await client.close(other);
});

test('a client without the extension\'s commands gets lenses the server runs: the estimate, and on a profile with a workload the serving simulation, which the server runs by the runner', async () => {
  const other = await LspClient.start({ clientCommands: false });
  try {
    const f = fixture('llama-3.1-8b.attn.yaml');
    await other.open(f.uri, f.text);
    const lenses = (await other.codeLenses(f.uri))!;
    assert.deepEqual(lenses.map((l) => l.command?.command), ['attnscope.server.showEstimate', 'attnscope.server.simulate']);
    assert.equal(lenses[1]!.command!.title, 'AttnScope: run serving simulation');
    const pool = (await other.executeCommand('attnscope.server.simulate', [f.uri])) as PoolResult | null;
    // The profile's workload, every request served (the same figures `attnscope simulate` prints for it).
    const requests = Number(/requests: (\d+)/.exec(f.text)![1]);
    assert.equal(pool?.summary.requests, requests);
    assert.equal(pool.summary.completed + pool.summary.rejected, requests);
    assert.ok(pool.latency?.ttft !== null && pool.latency?.ttft !== undefined);
    const said = other.calls.shown.at(-1)!;
    assert.equal(said.type, 3, 'an Info message');
    assert.match(said.message, /^AttnScope: simulation of llama-3\.1-8b\.attn\.yaml finished: peak occupancy [\d.]+%, \d+ preemptions?, prefix-cache hit rate [\d.]+%, p99 TTFT [\d.,]+ (?:µs|ms|s|min|h) \(modelled\)\.$/);
    // A config.json has no workload: no simulation lens, and the command says why.
    const config = fixture('configs/gpt2.config.json');
    await other.open(config.uri, config.text);
    assert.deepEqual((await other.codeLenses(config.uri))!.map((l) => l.command?.command), ['attnscope.server.showEstimate']);
    assert.equal(await other.executeCommand('attnscope.server.simulate', [config.uri]), null);
    assert.match(other.calls.shown.at(-1)!.message, /has no workload to simulate/);
  } finally {
    assert.equal(await other.stop(), 0);
  }
});

test('closing a document clears its diagnostics', async () => {
  const uri = pathToFileURL(join(dir, 'close.attn.yaml')).href;
  assert.equal((await client.open(uri, 'model: ./nowhere/config.json\n')).length, 1);
  const cleared = client.nextDiagnostics(uri);
  await client.close(uri);
  assert.deepEqual((await cleared).diagnostics, []);
});

test('the IPC transport (--node-ipc) serves the same answers', async () => {
  const ipc = await LspClient.start({ transport: 'ipc' });
  try {
    const f = fixture('../../examples/llama-3.1-8b/config.json');
    await ipc.open(f.uri, f.text);
    assert.ok((await ipc.inlayHints(f.uri))!.map(label).includes('128 KiB KV/token'));
    assert.equal(await ipc.stop(), 0);
  } finally {
    ipc.kill();
  }
});

test('typing fast: with the default debounce only the last version is checked', async () => {
  const slow = await LspClient.start({ validationDelayMs: 150 });
  try {
    const uri = pathToFileURL(join(dir, 'typing.attn.yaml')).href;
    const next = slow.nextDiagnostics(uri);
    const text = (size: number): string => `model: ./config.json\nkv_cache: { page_size: ${size}, memory_gib: 16 }\n`;
    slow.sendOpen(uri, text(1000));
    for (const size of [16, 160, 16]) slow.sendChange(uri, text(size));
    // Versions 1-3 were superseded within the 150 ms debounce window: the first publish is version 4's.
    const first = await next;
    assert.equal(first.version, 4);
    assert.deepEqual(first.diagnostics, []);
    assert.equal(await slow.stop(), 0);
  } finally {
    slow.kill();
  }
});

test("a profile's workload.trace: a missing file is an error at the key; the runner reads the trace off the server's thread, a bad row an error at the key naming the row's file:line:col; re-checked when the trace changes on disk; the hover says what it holds", async () => {
  const traces = join(dir, 'traces');
  mkdirSync(traces, { recursive: true });
  const tracePath = join(traces, 'prod.jsonl');
  const traceUri = pathToFileURL(tracePath).href;
  const uri = pathToFileURL(join(dir, 'traced.attn.yaml')).href;
  const text = 'model: ./config.json\ndevice: { gpu: H100 SXM }\nkv_cache: { memory_gib: 16 }\nworkload:\n  trace: ./traces/prod.jsonl\n  max_model_len: 8192\n';
  const key = rangeOf(text, './traces/prod.jsonl');
  try {
    // Not there yet: at the value, before any runner is started.
    const missing = await client.open(uri, text);
    assert.deepEqual(missing.map((d) => [d.code, d.message, d.range]), [['trace-unreadable', 'cannot read the trace ./traces/prod.jsonl: no such file', key]]);
    // A bad second row (prompt_len -5): the runner's answer re-checks the profile.
    writeFileSync(tracePath, '{"arrival_s": 0, "prompt_len": 1000, "output_len": 11}\n{"arrival_s": 10, "prompt_len": -5, "output_len": 11}\n');
    const checked = client.nextDiagnostics(uri);
    await client.filesChanged([{ uri: traceUri, type: FileChangeType.Created }]);
    let diags = (await checked).diagnostics;
    // The first publish may come before the runner answers (the file exists now: no diagnostic yet); the answer's follows.
    if (diags.length === 0) diags = (await client.nextDiagnostics(uri)).diagnostics;
    assert.equal(diags.length, 1, JSON.stringify(diags));
    assert.equal(diags[0]!.code, 'trace-invalid');
    assert.deepEqual(diags[0]!.range, key);
    // The row's own place, as `attnscope simulate` prints it: line 2, at the value -5.
    const row = '{"arrival_s": 10, "prompt_len": -5, "output_len": 11}';
    const message = String(diags[0]!.message);
    assert.ok(message.startsWith(`the trace ./traces/prod.jsonl cannot be replayed: ${tracePath}:2:${row.indexOf('-5') + 1}: `), message);
    // Fixed on disk: two requests, 10 s apart, 1,000 + 3,000 prompt tokens, 11 + 31 output tokens.
    writeFileSync(tracePath, '{"arrival_s": 0, "prompt_len": 1000, "output_len": 11}\n{"arrival_s": 10, "prompt_len": 3000, "output_len": 31}\n');
    const fixed = client.nextDiagnostics(uri);
    await client.filesChanged([{ uri: traceUri, type: FileChangeType.Changed }]);
    diags = (await fixed).diagnostics;
    assert.deepEqual(diags, []);
    // The hover once the runner answered: its answer is followed by a publish (awaited where the hover still says it is being read).
    const hoverText = async (): Promise<string> => {
      const h = await client.hover(uri, key.start);
      return h && typeof h.contents === 'object' && 'value' in h.contents ? h.contents.value : '';
    };
    const answered = client.nextDiagnostics(uri);
    let hovered = await hoverText();
    if (hovered.includes('being read')) {
      await answered;
      hovered = await hoverText();
    }
    // Means by hand: (1000 + 3000) / 2 = 2,000 prompt, (11 + 31) / 2 = 21 output tokens; span 10 s.
    assert.match(hovered, /\*\*Trace \.\/traces\/prod\.jsonl: attnscope trace: 2 requests over 10 s, mean 2,000 prompt \/ 21 output tokens\*\*/);
  } finally {
    await client.close(uri);
  }
});
