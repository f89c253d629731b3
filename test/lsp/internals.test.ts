/**
 * Server parts a client cannot isolate: the safe request wrapper (cancellation, failures), the
 * reuse of the previous parse when an edit only rewrites a number (it must give exactly the
 * tree a fresh parse gives), and the line rule for hints kept from the previous version.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CancellationTokenSource, LSPErrorCodes, ResponseError, type TextDocuments } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { parseProfileOrConfig } from '../../core/config';
import { analyze, reuseTree, type FileHost } from '../../server/analysis';
import { carryHints, documentHints } from '../../server/hints';
import { codeLenses } from '../../server/lenses';
import { analysisReasons, cannotRunOf } from '../../server/resolve';
import { runSafe } from '../../server/safe';
import { Workspace } from '../../server/workspace';
import { fixture } from './harness';
import { tempDir } from '../fixtures/tmp';

const log = (): { error(m: string): void; messages: string[] } => {
  const messages: string[] = [];
  return { messages, error: (m: string) => messages.push(m) };
};

test('runSafe answers a request cancelled before it runs with RequestCancelled, without running it', async () => {
  const source = new CancellationTokenSource();
  source.cancel();
  let ran = false;
  const result = await runSafe(log(), source.token, 'hover', null, () => {
    ran = true;
    return 1;
  });
  assert.ok(result instanceof ResponseError);
  assert.equal(result.code, LSPErrorCodes.RequestCancelled);
  assert.equal(ran, false);
});

test('runSafe answers a request cancelled while it ran with RequestCancelled', async () => {
  const source = new CancellationTokenSource();
  const result = await runSafe(log(), source.token, 'hover', null, () => {
    source.cancel();
    return 1;
  });
  assert.ok(result instanceof ResponseError && result.code === LSPErrorCodes.RequestCancelled);
});

test('runSafe turns a failure into the fallback and logs it', async () => {
  const l = log();
  const result = await runSafe(l, new CancellationTokenSource().token, 'inlayHint', [], () => {
    throw new RangeError('boom');
  });
  assert.deepEqual(result, []);
  assert.equal(l.messages.length, 1);
  assert.match(l.messages[0]!, /^inlayHint failed: RangeError: boom/);
});

const host: FileHost = { readFile: (p) => (p.endsWith('llama-3.1-8b/config.json') ? fixture('../../examples/llama-3.1-8b/config.json').text : null) };

/** The document after replacing `from` (first match) by `to`, analysed with and without the previous analysis. */
function edit(name: string, text: string, from: string, to: string): { reused: ReturnType<typeof reuseTree>; fresh: ReturnType<typeof parseProfileOrConfig> } {
  const uri = `file:///w/${name}`;
  const before = analyze(TextDocument.create(uri, 'yaml', 1, text), host);
  const after = text.replace(from, to);
  return { reused: reuseTree(before, after), fresh: parseProfileOrConfig(after, `/w/${name}`) };
}

test('a rewritten number reuses the tree, equal to a fresh parse (YAML and JSON)', () => {
  const yaml = fixture('llama-3.1-8b.attn.yaml').text;
  for (const [from, to] of [['page_size: 16', 'page_size: 1600'], ['page_size: 16', 'page_size: 6'], ['memory_gib: 3.8125', 'memory_gib: 3.81'], ['requests: 2000', 'requests: -2e3'], ['[1024, 4096]', '[1024, 40960]']]) {
    const { reused, fresh } = edit('a.attn.yaml', yaml, from!, to!);
    assert.ok(reused !== null, `${from} -> ${to} reused`);
    assert.deepEqual(reused, fresh, `${from} -> ${to}`);
  }
  const json = fixture('../../examples/llama-3.1-8b/config.json').text;
  for (const [from, to] of [['"num_key_value_heads": 8', '"num_key_value_heads": 4'], ['"vocab_size": 128256', '"vocab_size": 1'], ['"rope_theta": 500000.0', '"rope_theta": 5e5']]) {
    const { reused, fresh } = edit('config.json', json, from!, to!);
    assert.ok(reused !== null, `${from} -> ${to} reused`);
    assert.deepEqual(reused, fresh, `${from} -> ${to}`);
  }
});

test('a number rewritten at the same length shares every node after it with the previous tree (no copy of a long list per keystroke)', () => {
  const yaml = fixture('llama-3.1-8b.attn.yaml').text;
  const before = analyze(TextDocument.create('file:///w/a.attn.yaml', 'yaml', 1, yaml), host);
  const after = yaml.replace('page_size: 16', 'page_size: 32');
  const reused = reuseTree(before, after)!;
  assert.deepEqual(reused, parseProfileOrConfig(after, '/w/a.attn.yaml'));
  // prefill (its seq_lens list) and decode lie after page_size: the same objects, ranges unchanged.
  const node = (root: typeof reused.root, key: string) => root!.properties!.find((p) => p.key === key)!.value;
  for (const key of ['prefill', 'decode', 'workload']) assert.equal(node(reused.root, key), node(before.tree, key), key);
  // A rewrite that changes the length shifts them: copies.
  assert.notEqual(node(reuseTree(before, yaml.replace('page_size: 16', 'page_size: 160'))!.root, 'decode'), node(before.tree, 'decode'));
});

test('a rewritten number in a config with 5,000 labels (maps left unread): the reused tree equals a fresh parse, before and after the maps; inside one, that map is read again and the other kept', async () => {
  const { labelledConfig } = await import('../../scripts/bench-config-size');
  const json = labelledConfig(5_000).replace(/\n}\n$/, ',\n  "max_position_embeddings": 131072\n}\n').replace('"max_position_embeddings": 131072,', '"max_window_layers": 28,');
  for (const [from, to] of [['"num_key_value_heads": 8', '"num_key_value_heads": 16'], ['"max_position_embeddings": 131072', '"max_position_embeddings": 8192']]) {
    const { reused, fresh } = edit('config.json', json, from!, to!);
    assert.ok(reused !== null, `${from} -> ${to} reused`);
    assert.deepEqual(reused, fresh, `${from} -> ${to}`);
  }
  // A number inside an unread map: not re-read in place (reading the map's members would cost more
  // than parsing it); the text is parsed again with the other map kept (analysis.ts parseAroundUnread).
  const inside = edit('config.json', json, '"LABEL_17": 17', '"LABEL_17": 170');
  assert.ok(inside.reused !== null);
  assert.deepEqual(inside.reused, inside.fresh);
});

test('any other edit parses again', () => {
  const yaml = fixture('llama-3.1-8b.attn.yaml').text;
  for (const [from, to] of [['page_size: 16', 'page_size: 16x'], ['page_size: 16', 'page_size: 0x10'], ['page_size: 16', 'page_sizes: 16'], ['dtype: bf16', 'dtype: fp16'], ['page_size: 16', 'page_size: &a 16'], ['page_size: 16', 'page_size: 1 6']]) {
    assert.equal(edit('a.attn.yaml', yaml, from!, to!).reused, null, `${from} -> ${to}`);
  }
});

/**
 * Hints kept from the previous version (server/hints.ts carryHints, as the workspace cache
 * applies it) at the edges of the rule:
 * a hint stays only when its key's lines are untouched and still start a line.
 */
test('carried hints: an edit on the hint line or one that joins it to the line above drops it; one on the next line does not', () => {
  const text = [
    'model:',
    '  model_type: llama',
    '  hidden_size: 4096',
    '  num_attention_heads: 32',
    '  num_key_value_heads: 8',
    '  num_hidden_layers: 32',
    '  vocab_size: 128256',
    '  intermediate_size: 14336',
    'kv_cache:',
    '  page_size: 16',
    '  memory_gib: 4',
    'prefill:',
    '  seq_lens: [512, 2048]',
  ].join('\n');
  const uri = 'file:///w/carry.attn.yaml';
  const good = analyze(TextDocument.create(uri, 'yaml', 1, text), host);
  const at = (a: ReturnType<typeof analyze>, hints: ReturnType<typeof documentHints>): string[] =>
    hints.map((h) => `${a.document.positionAt(h.offset).line}:${a.document.positionAt(h.offset).character} ${h.path}`);
  const where = (a: ReturnType<typeof analyze>): string[] => at(a, documentHints(a));
  // Four hints: weights on model:, KV per token, page pool, prefill workspace (on the last line, no newline after it).
  assert.deepEqual(where(good), ['0:6 model', '4:24 model.num_key_value_heads', '9:15 kv_cache.page_size', '12:23 prefill.seq_lens']);
  const broken = (to: string): string[] => {
    const a = analyze(TextDocument.create(uri, 'yaml', 2, to), host, good);
    assert.equal(a.profile, null, 'the edit leaves an error');
    return at(a, documentHints(a, carryHints(good, documentHints(good), a)));
  };
  // "]" typed at the end of the last line: its hint goes.
  assert.deepEqual(broken(`${text}]`), ['0:6 model', '4:24 model.num_key_value_heads', '9:15 kv_cache.page_size']);
  // The newline before "  page_size" deleted: page_size now sits on the kv_cache line.
  assert.deepEqual(broken(text.replace('kv_cache:\n', 'kv_cache:')), ['0:6 model', '4:24 model.num_key_value_heads', '11:23 prefill.seq_lens']);
  // A quote typed at the start of the line after page_size: page_size's line is untouched, all stay.
  assert.deepEqual(broken(text.replace('  memory_gib', '"  memory_gib')), where(good));
  // A key of the inline model emptied: the weights hint on `model:` spans the whole mapping, so it goes; KV per token stays.
  assert.deepEqual(broken(text.replace('vocab_size: 128256', 'vocab_size: "')), ['4:24 model.num_key_value_heads', '9:15 kv_cache.page_size', '12:23 prefill.seq_lens']);
});

test("typing in a profile with a sweep reads none of its points for hints, lenses or hover; its diagnostics read each once per version", () => {
  // s35: reading the first 256 points on every keystroke's hint and lens requests was 70% of the server's CPU per
  // keystroke in a 2,992-line profile. Here the axis sweeps `model`, so that each point's read shows as a read of its config.
  const config = fixture('../../examples/llama-3.1-8b/config.json').text;
  const docs = new Map<string, TextDocument>();
  const reads = new Map<string, number>();
  const documents = { get: (uri: string) => docs.get(uri) } as unknown as TextDocuments<TextDocument>;
  // A read of an open config is its text asked for (Workspace.fileHost); its stamp (its version) is no read.
  const counted = (doc: TextDocument): TextDocument => Object.assign(Object.create(doc) as TextDocument, {
    getText: (range?: Parameters<TextDocument['getText']>[0]) => (reads.set(doc.uri, (reads.get(doc.uri) ?? 0) + 1), doc.getText(range)),
  });
  const workspace = new Workspace(documents, log());
  const configUri = (name: string): string => `file:///w/${name}/config.json`;
  for (const name of ['m0', 'm1', 'm2', 'm3']) {
    // m3 has 7 KV heads for 32 query heads: an error of its points only.
    docs.set(configUri(name), counted(TextDocument.create(configUri(name), 'json', 1, name === 'm3' ? config.replace('"num_key_value_heads": 8', '"num_key_value_heads": 7') : config)));
    workspace.opened(configUri(name));
  }
  const uri = 'file:///w/typing.attn.yaml';
  const text = fixture('../../examples/llama-3.1-8b.attn.yaml').text.replace('./llama-3.1-8b/config.json', './m0/config.json') +
    'sweep:\n  axes:\n    model: [./m1/config.json, ./m2/config.json, ./m3/config.json]\n';
  docs.set(uri, TextDocument.create(uri, 'yaml', 1, text));
  workspace.opened(uri);
  const points = (): number[] => ['m1', 'm2', 'm3'].map((name) => reads.get(configUri(name)) ?? 0);
  // Ten keystrokes in a comment on the dtype line, each followed by what the editor asks for while the user types.
  const line = text.split('\n').findIndex((l) => l.startsWith('dtype:'));
  for (let i = 0; i < 10; i++) {
    const doc = docs.get(uri)!;
    const character = doc.getText().split('\n')[line]!.length;
    docs.set(uri, TextDocument.update(doc, [{ range: { start: { line, character }, end: { line, character } }, text: i === 0 ? ' #' : 'x' }], doc.version + 1));
    const found = workspace.hints(uri)!;
    assert.equal(found.analysis.version, i + 2);
    assert.equal(found.analysis.sweep?.points, 3, 'the points hint and the Run sweep lens still count the points');
    codeLenses(workspace.analysis(uri)!, true);
  }
  assert.deepEqual(points(), [0, 0, 0], 'no sweep point was read while typing');
  // The diagnostics of the last version (what the debounced check publishes): each point read once, m3's error among them.
  const checked = workspace.problems(uri)!;
  assert.deepEqual(points(), [1, 1, 1]);
  assert.ok(checked.problems.some((p) => p.severity === 'error' && p.message.startsWith('sweep point model=./m3/config.json')), JSON.stringify(checked.problems.map((p) => p.message)));
  assert.equal(checked.problems.filter((p) => p.message.startsWith('sweep point')).length, checked.analysis.sweepChecked!.length);
  // Asked again (quick fixes for these diagnostics): nothing read again.
  workspace.problems(uri);
  assert.deepEqual(points(), [1, 1, 1]);
  // A point's config is a dependency of the profile, as the analysis's own reads are.
  assert.deepEqual(workspace.fileChanged('/w/m3/config.json'), [uri]);
});

test("the pick's check of a closed file is kept while no file it read changes: a second pick analyses none; an edit of the file, of its config.json on disk or in an editor, or a file appearing, is answered anew", () => {
  // s48: each pick analysed its 200 files again (0.6-0.9 s of the server's CPU at load 20); Workspace.closedFileReasons
  // keeps each file's answer by the stamps of the files its analysis read.
  const dir = tempDir('attnscope-pick-');
  mkdirSync(join(dir, 'm'));
  const configPath = join(dir, 'm', 'config.json');
  const config = fixture('../../examples/llama-3.1-8b/config.json').text;
  writeFileSync(configPath, config);
  const example = fixture('../../examples/llama-3.1-8b.attn.yaml').text.replace('./llama-3.1-8b/config.json', './m/config.json');
  const files = { good: join(dir, 'good.attn.yaml'), bare: join(dir, 'bare.attn.yaml'), broken: join(dir, 'broken.attn.yaml'), later: join(dir, 'later.attn.yaml') };
  writeFileSync(files.good, example);
  writeFileSync(files.bare, 'model: ./m/config.json\n');
  writeFileSync(files.broken, 'model: ./none/config.json\n');
  const uri = (path: string): string => pathToFileURL(path).href;
  const docs = new Map<string, TextDocument>();
  const workspace = new Workspace({ get: (u: string) => docs.get(u) } as unknown as TextDocuments<TextDocument>, log());
  const pick = (job: 'simulate' | 'bench'): Array<string | null> => [files.good, files.bare, files.broken, files.later].map((p) => cannotRunOf(workspace, uri(p), job));

  const first = pick('simulate');
  assert.deepEqual(first.slice(0, 2), [null, 'no `workload:` block to simulate']);
  assert.match(first[2]!, /none\/config\.json/);
  assert.match(first[3]!, /later\.attn\.yaml is neither open nor readable$/);
  assert.equal(workspace.closedAnalyses, 4);
  // Again, and for another job (each job's answer is kept from the one analysis): no file analysed.
  assert.deepEqual(pick('simulate'), first);
  assert.deepEqual(pick('bench'), [null, null, first[2], first[3]]);
  assert.equal(workspace.closedAnalyses, 4);

  // The file itself edited: its workload deleted.
  writeFileSync(files.good, example.replace(/^workload:[\s\S]*?(?=^\S|(?![\s\S]))/m, ''));
  assert.equal(cannotRunOf(workspace, uri(files.good), 'simulate'), 'no `workload:` block to simulate');
  assert.equal(workspace.closedAnalyses, 5);

  // The config.json both profiles read, changed on disk: 32 query heads over 6 KV heads (32 = 5 * 6 + 2) is an error
  // of each; the broken profile and the still-missing later.attn.yaml, which read no such file, are kept.
  writeFileSync(configPath, config.replace('"num_key_value_heads": 8', '"num_key_value_heads": 6'));
  const six = /32 attention heads cannot be shared evenly by 6 KV heads/;
  const afterConfig = pick('bench');
  assert.match(afterConfig[0]!, six);
  assert.match(afterConfig[1]!, six);
  assert.equal(workspace.closedAnalyses, 7, 'good and bare analysed again');

  // The config opened in an editor, its unsaved text at 7 KV heads: answered from that text, and again after each edit.
  const configUri = uri(configPath);
  docs.set(configUri, TextDocument.create(configUri, 'json', 1, config.replace('"num_key_value_heads": 8', '"num_key_value_heads": 7')));
  workspace.opened(configUri);
  assert.match(cannotRunOf(workspace, uri(files.bare), 'bench')!, /by 7 KV heads/);
  docs.set(configUri, TextDocument.create(configUri, 'json', 2, config));
  assert.equal(cannotRunOf(workspace, uri(files.bare), 'bench'), null);
  // Closed unsaved: the disk's 6 again.
  docs.delete(configUri);
  workspace.closed(configUri);
  assert.match(cannotRunOf(workspace, uri(files.bare), 'bench')!, six);

  // A file that was missing appears.
  writeFileSync(files.later, 'model: ./m/config.json\n');
  writeFileSync(configPath, config);
  assert.equal(cannotRunOf(workspace, uri(files.later), 'bench'), null);
  const analysed = workspace.closedAnalyses;
  assert.equal(cannotRunOf(workspace, uri(files.later), 'bench'), null);
  assert.equal(workspace.closedAnalyses, analysed);
});

test("a document's analysis answers the pick once it closes: no new analysis; closed with unsaved edits, or a file it read changed since its analysis, it is analysed again", () => {
  // s49: the analysis was dropped at close, so the next pick analysed the file once more (~5 ms).
  const dir = tempDir('attnscope-close-');
  mkdirSync(join(dir, 'm'));
  const configPath = join(dir, 'm', 'config.json');
  const config = fixture('../../examples/llama-3.1-8b/config.json').text;
  writeFileSync(configPath, config);
  const example = fixture('../../examples/llama-3.1-8b.attn.yaml').text.replace('./llama-3.1-8b/config.json', './m/config.json');
  const noWorkload = example.replace(/^workload:[\s\S]*?(?=^\S|(?![\s\S]))/m, '');
  const good = join(dir, 'good.attn.yaml');
  const bare = join(dir, 'bare.attn.yaml');
  writeFileSync(good, example);
  writeFileSync(bare, 'model: ./m/config.json\n');
  const uri = (path: string): string => pathToFileURL(path).href;
  const docs = new Map<string, TextDocument>();
  const workspace = new Workspace({ get: (u: string) => docs.get(u) } as unknown as TextDocuments<TextDocument>, log());
  workspace.reasonsOfAnalysis = analysisReasons; // as server.ts sets it
  // Opened as the client does (TextDocuments holds it, then didOpen), checked as its diagnostics are, closed as TextDocuments does (gone, then didClose).
  const open = (path: string, text = readFileSync(path, 'utf8')): void => {
    docs.set(uri(path), TextDocument.create(uri(path), 'yaml', 1, text));
    workspace.opened(uri(path));
    workspace.problems(uri(path));
  };
  const close = (path: string): void => {
    docs.delete(uri(path));
    workspace.closed(uri(path));
  };

  open(good);
  open(bare);
  close(good);
  close(bare);
  // The example writes a workload; bare.attn.yaml writes none (the answers a fresh analysis gives: the test above).
  assert.deepEqual([good, bare].map((p) => cannotRunOf(workspace, uri(p), 'simulate')), [null, 'no `workload:` block to simulate']);
  assert.equal(workspace.closedAnalyses, 0, 'both answered from the analyses made while they were open');

  // Closed with unsaved edits (its workload deleted in the editor): the disk's text, which writes one, is analysed.
  const edited = join(dir, 'edited.attn.yaml');
  writeFileSync(edited, example);
  open(edited, noWorkload);
  close(edited);
  assert.equal(cannotRunOf(workspace, uri(edited), 'simulate'), null);
  assert.equal(workspace.closedAnalyses, 1);
  // good.attn.yaml so closed: the answer kept from its first close still holds for the disk's text.
  open(good, noWorkload);
  close(good);
  assert.equal(cannotRunOf(workspace, uri(good), 'simulate'), null);
  assert.equal(workspace.closedAnalyses, 1);

  // The config.json changed on disk after bare's analysis, its watcher event not yet come (no fileChanged) when bare
  // closes: 32 query heads over 6 KV heads (32 = 5 * 6 + 2) is an error, found by a new analysis. (A space more: another
  // size, so the stamp differs whatever the file system's time resolution.)
  open(bare);
  writeFileSync(configPath, config.replace('"num_key_value_heads": 8', '"num_key_value_heads":  6'));
  close(bare);
  assert.match(cannotRunOf(workspace, uri(bare), 'bench') ?? '', /32 attention heads cannot be shared evenly by 6 KV heads/);
  assert.equal(workspace.closedAnalyses, 2);
});
