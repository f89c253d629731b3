/**
 * Server parts a client cannot isolate: the safe request wrapper (cancellation, failures) and
 * the reuse of the previous parse when an edit only rewrites a number (it must give exactly the
 * tree a fresh parse gives).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CancellationTokenSource, LSPErrorCodes, ResponseError } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { parseProfileOrConfig } from '../../core/config';
import { analyze, reuseTree, type FileHost } from '../../server/analysis';
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

const host: FileHost = { readFile: (p) => (p.endsWith('Llama-3.1-8B.config.json') ? fixture('configs/Llama-3.1-8B.config.json').text : null) };

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
  const json = fixture('configs/Llama-3.1-8B.config.json').text;
  for (const [from, to] of [['"num_key_value_heads": 8', '"num_key_value_heads": 4'], ['"vocab_size": 128256', '"vocab_size": 1'], ['"rope_theta": 500000.0', '"rope_theta": 5e5']]) {
    const { reused, fresh } = edit('config.json', json, from!, to!);
    assert.ok(reused !== null, `${from} -> ${to} reused`);
    assert.deepEqual(reused, fresh, `${from} -> ${to}`);
  }
});

test('any other edit parses again', () => {
  const yaml = fixture('llama-3.1-8b.attn.yaml').text;
  for (const [from, to] of [['page_size: 16', 'page_size: 16x'], ['page_size: 16', 'page_size: 0x10'], ['page_size: 16', 'page_sizes: 16'], ['dtype: bf16', 'dtype: fp16'], ['page_size: 16', 'page_size: &a 16'], ['page_size: 16', 'page_size: 1 6']]) {
    assert.equal(edit('a.attn.yaml', yaml, from!, to!).reused, null, `${from} -> ${to}`);
  }
});
