/**
 * `model:` paths through a real LSP client, in a workspace laid out on disk: completion lists
 * the model configs near the profile (relative to it, nearest first; not dependencies, not a
 * config.json that is no model config), and a path that does not resolve gets a quick fix to
 * the most similar config, which clears the diagnostic.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { CodeAction, CompletionItem, CompletionList } from 'vscode-languageserver-protocol';
import { LspClient, positionAt, root } from './harness';
import { tempDir } from '../fixtures/tmp';

let client: LspClient;
let ws: string;
const LLAMA = join(root, 'examples', 'llama-3.1-8b', 'config.json');

before(async () => {
  // ws/profiles/*.attn.yaml and ws/profiles/local/config.json; ws/models/{llama-3.1-8b,qwen3}/config.json;
  // ws/models/tokenizer/config.json is no model config; ws/node_modules/x/config.json is a dependency's.
  ws = tempDir('attnscope-model-path-');
  for (const dir of ['profiles/local', 'models/llama-3.1-8b', 'models/qwen3', 'models/tokenizer', 'node_modules/x']) mkdirSync(join(ws, dir), { recursive: true });
  for (const dir of ['profiles/local', 'models/llama-3.1-8b', 'models/qwen3', 'node_modules/x']) copyFileSync(LLAMA, join(ws, dir, 'config.json'));
  writeFileSync(join(ws, 'models/tokenizer/config.json'), '{"do_lower_case": true}');
  client = await LspClient.start();
});
after(async () => {
  assert.equal(await client.stop(), 0);
});

let n = 0;
async function complete(name: string, textWithCursor: string): Promise<CompletionItem[]> {
  const offset = textWithCursor.indexOf('|');
  const text = textWithCursor.replace('|', '');
  const uri = pathToFileURL(join(ws, 'profiles', `c${n++}.${name}`)).href;
  await client.open(uri, text);
  const result = (await client.completion(uri, positionAt(text, offset))) as CompletionItem[] | CompletionList | null;
  await client.close(uri);
  return Array.isArray(result) ? result : (result?.items ?? []);
}

const edit = (i: CompletionItem): string | undefined => (i.textEdit && 'newText' in i.textEdit ? i.textEdit.newText : undefined);

test('YAML: model: offers the model configs near the profile, relative to it, nearest first', async () => {
  const items = await complete('p.attn.yaml', 'model: ../mo|\ndtype: bf16\n');
  assert.deepEqual(items.map((i) => i.label), ['./local/config.json', '../models/llama-3.1-8b/config.json', '../models/qwen3/config.json']);
  // The item replaces the whole path typed so far (slashes included), not the word at the cursor.
  const range = items[1]!.textEdit && 'range' in items[1]!.textEdit ? items[1]!.textEdit.range : null;
  assert.deepEqual(range, { start: { line: 0, character: 7 }, end: { line: 0, character: 12 } });
  assert.equal(edit(items[1]!), '../models/llama-3.1-8b/config.json');
});

test('JSON: the value of "model" is completed as a quoted path', async () => {
  const items = await complete('p.attn.json', '{ "model": "../models/q|" }');
  assert.equal(items.length, 3);
  assert.equal(edit(items[2]!), '"../models/qwen3/config.json"');
});

test('a model: path that does not resolve: change it to the most similar config, and the error clears', async () => {
  const text = 'model: ../models/lama-3.1-8b\ndtype: bf16\n';
  const uri = pathToFileURL(join(ws, 'profiles', 'fix.attn.yaml')).href;
  const diags = await client.open(uri, text);
  const d = diags.find((x) => x.code === 'model-not-found');
  assert.ok(d, JSON.stringify(diags));
  const actions = ((await client.codeActions(uri, d.range, [d])) ?? []) as CodeAction[];
  // "lama-3.1-8b/config.json" is one letter from "llama-3.1-8b/config.json", further from the others.
  assert.equal(actions[0]?.title, 'Change to ../models/llama-3.1-8b/config.json');
  assert.equal(actions[0]?.isPreferred, true);
  const fixed = TextDocument.applyEdits(TextDocument.create(uri, 'yaml', 1, text), actions[0]!.edit!.changes![uri]!);
  assert.equal(fixed, 'model: ../models/llama-3.1-8b/config.json\ndtype: bf16\n');
  const afterFix = await client.change(uri, fixed);
  await client.close(uri);
  assert.deepEqual(afterFix.filter((x) => x.code === 'model-not-found'), []);
});
