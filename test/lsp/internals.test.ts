/**
 * Server parts a client cannot isolate: the safe request wrapper (cancellation, failures), the
 * reuse of the previous parse when an edit only rewrites a number (it must give exactly the
 * tree a fresh parse gives), and the line rule for hints kept from the previous version.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CancellationTokenSource, LSPErrorCodes, ResponseError } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { parseProfileOrConfig } from '../../core/config';
import { analyze, reuseTree, type FileHost } from '../../server/analysis';
import { carryHints, documentHints } from '../../server/hints';
import { runSafe } from '../../server/safe';
import { fixture } from './harness';

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

test('a rewritten number in a config with 5,000 labels (maps left unread): the reused tree equals a fresh parse, before and after the maps; inside one it parses again', async () => {
  const { labelledConfig } = await import('../../scripts/bench-config-size');
  const json = labelledConfig(5_000).replace(/\n}\n$/, ',\n  "max_position_embeddings": 131072\n}\n').replace('"max_position_embeddings": 131072,', '"max_window_layers": 28,');
  for (const [from, to] of [['"num_key_value_heads": 8', '"num_key_value_heads": 16'], ['"max_position_embeddings": 131072', '"max_position_embeddings": 8192']]) {
    const { reused, fresh } = edit('config.json', json, from!, to!);
    assert.ok(reused !== null, `${from} -> ${to} reused`);
    assert.deepEqual(reused, fresh, `${from} -> ${to}`);
  }
  // A number inside an unread map: parsed again (reading the map's members would cost more).
  assert.equal(edit('config.json', json, '"LABEL_17": 17', '"LABEL_17": 170').reused, null);
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
