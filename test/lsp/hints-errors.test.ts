/**
 * Inlay hints while the file has an error (server/hints.ts, top comment): computed from the
 * valid keys when some keys are invalid; otherwise kept from the previous version next to keys
 * whose lines the edit left alone, moved with the text, and gone with their key. Diagnostics
 * still point at the error. Figures are those of test/lsp/hints.test.ts, computed by hand there
 * and repeated here.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DiagnosticSeverity, type Diagnostic, type InlayHint, type MarkupContent } from 'vscode-languageserver-protocol';
import { LspClient, fixture, fixtureUri, hintLabel as label, rangeOf } from './harness';

let client: LspClient;
before(async () => {
  client = await LspClient.start();
});
after(async () => {
  assert.equal(await client.stop(), 0);
});

/** Every hint as "line:character label", in text order: the whole picture, compared at once. */
function picture(hints: InlayHint[]): string[] {
  return hints
    .slice()
    .sort((x, y) => x.position.line - y.position.line || x.position.character - y.position.character)
    .map((h) => `${h.position.line}:${h.position.character} ${label(h)}`);
}

/** "line:character label" for a hint right after `needle` in `text`. */
function placed(text: string, needle: string, hintLabel: string): string {
  const at = rangeOf(text, needle).end;
  return `${at.line}:${at.character} ${hintLabel}`;
}

/** "line:character label" for a hint at the end of the line of `needle` (inside a flow mapping: `prefill: { ..., seq_lens: [..], ... }`). */
function placedAtLineEnd(text: string, needle: string, hintLabel: string): string {
  const line = rangeOf(text, needle).end.line;
  return `${line}:${text.split('\n')[line]!.length} ${hintLabel}`;
}

/**
 * A picture entry as shown when carried from an earlier version: "⚠ " before the label's
 * first part, then parts dropped from the end while the label passes 43 characters.
 */
function stale(entry: string): string {
  const [, pos, label] = /^(\d+:\d+ )(.*)$/.exec(entry)!;
  const parts = label!.split(' · ');
  parts[0] = `⚠ ${parts[0]}`;
  while (parts.length > 1 && parts.join(' · ').length > 43) parts.pop();
  return pos + parts.join(' · ');
}

function errors(diags: Diagnostic[]): Diagnostic[] {
  return diags.filter((d) => d.severity === DiagnosticSeverity.Error);
}

// Llama-3.1-8B, bf16, the fixture profile (test/lsp/hints.test.ts has the arithmetic):
// KV per token 32 · 2 · 8 · 128 · 2 B = 128 KiB; weights 8,030,261,248 · 2 B = 15 GiB;
// page 16 · 128 KiB = 2 MiB, floor(3.8125 GiB / 2 MiB) = 1,952 pages = 31,232 tokens;
// N = 4096: naive 2 · 32 · 4096² · 2 B = 2 GiB, flash 3 · 32 · 4096 · 4 B = 1.5 MiB;
// KV of 8,192 tokens = 8,192 · 128 KiB = 1 GiB; floor(1,952 / (8,192 / 16)) = 3 sequences.
const WEIGHTS = '15 GiB weights, 128 KiB KV/token';
const PAGE = '31,232 tokens · 1,952 × 2 MiB';
const WORKSPACE = '2 GiB S+P vs 1.5 MiB flash at 4,096';
const CONTEXT = '1 GiB KV held/seq at 8,192';
const MAX_MODEL_LEN = '1 GiB reserved/seq · 3 seqs fit';
const MODEL = '../../examples/llama-3.1-8b/config.json';

/** The fixture profile's hints, placed in `text`. */
function fullPicture(text: string): string[] {
  return [
    placed(text, MODEL, WEIGHTS),
    placed(text, 'page_size: 16', PAGE),
    placedAtLineEnd(text, 'seq_lens: [1024, 4096]', WORKSPACE),
    placed(text, 'context_lens: [1024, 8192]', CONTEXT),
    placed(text, 'max_model_len: 8192', MAX_MODEL_LEN),
  ].sort((x, y) => Number(x.split(':')[0]) - Number(y.split(':')[0]));
}

let n = 0;
const freshUri = (): string => fixtureUri(`mid-edit-${n++}.attn.yaml`);

test('the fixture profile: its five hints (the baseline the other tests edit)', async () => {
  const f = fixture('llama-3.1-8b.attn.yaml');
  const uri = freshUri();
  await client.open(uri, f.text);
  assert.deepEqual(picture((await client.inlayHints(uri))!), fullPicture(f.text));
  await client.close(uri);
});

test('one invalid value no other figure depends on: every other hint, same figures, error at the value', async () => {
  const text = fixture('llama-3.1-8b.attn.yaml').text.replace('arrival_rate: 8', 'arrival_rate: -8');
  const uri = freshUri();
  const diags = errors(await client.open(uri, text));
  // arrival_rate feeds only the simulator, no memory figure: all five hints stay, with the
  // figures of the valid profile.
  assert.deepEqual(picture((await client.inlayHints(uri))!), fullPicture(text));
  assert.equal(diags.length, 1, JSON.stringify(diags));
  const rate = rangeOf(text, 'arrival_rate: -8').end;
  assert.deepEqual(diags[0]!.range, { start: { line: rate.line, character: rate.character - 2 }, end: rate });
  assert.equal(diags[0]!.code, 'invalid-value');
  await client.close(uri);
});

test('an invalid device.gpu: only the hints that need the GPU go (with memory_gib set, none), the error at device.gpu', async () => {
  const profile = (gpu: string, memory: boolean): string => [
    `model: ${MODEL}`, 'dtype: bf16', 'device:', `  gpu: ${gpu}`, ...(memory ? ['  memory_gib: 80'] : []), 'kv_cache:', '  page_size: 16', 'prefill: { seq_lens: [1024] }', '',
  ].join('\n');
  const shown = async (text: string): Promise<{ hints: string[]; errors: Diagnostic[] }> => {
    const uri = freshUri();
    const diags = errors(await client.open(uri, text));
    const hints = picture((await client.inlayHints(uri))!);
    await client.close(uri);
    return { hints, errors: diags };
  };
  // The oracle: the same profile with a valid GPU that is no A100 (H200, the same length as
  // Z900 (a GPU no table names), so every hint sits at the same place). memory_gib sizes the device either way, and
  // both take vLLM's large batch defaults (>= 70 GiB, not an A100), so every figure is the same.
  const valid = await shown(profile('H200', true));
  assert.deepEqual(valid.errors, []);
  assert.ok(valid.hints.some((h) => h.includes('KV budget')) && valid.hints.some((h) => / tokens · [\d,]+ × /.test(h)), valid.hints.join('\n'));
  const text = profile('Z900', true);
  const z900 = await shown(text);
  assert.deepEqual(z900.hints, valid.hints);
  assert.deepEqual(z900.errors.map((d) => [d.code, d.range]), [['invalid-value', rangeOf(text, 'Z900')]]);

  // Without memory_gib the GPU sizes the device: the budget and the pool go; the weights with KV
  // per token (15 GiB, 128 KiB: see the top of this file) and the workspace do not need it. At
  // N = 1,024: naive 2 · 1 · 32 · 1,024² · 2 B = 128 MiB, flash 3 · 1 · 32 · 1,024 · 4 B = 384 KiB.
  const bare = profile('Z900', false);
  const noMemory = await shown(bare);
  assert.deepEqual(noMemory.hints, [placed(bare, MODEL, WEIGHTS), placedAtLineEnd(bare, 'seq_lens: [1024]', '128 MiB S+P vs 384 KiB flash at 1,024')]);
  assert.deepEqual(noMemory.errors.map((d) => d.range), [rangeOf(bare, 'Z900')]);

  // "A100" (no such row: "A100 80GB" or "A100 40GB") with memory_gib: an A100 takes vLLM's smaller
  // batch defaults, which size the activation peak, so the budget needs the GPU after all.
  const a100 = await shown(profile('A100', true));
  assert.deepEqual(a100.hints.filter((h) => h.includes('KV budget') || / tokens · [\d,]+ × /.test(h)), []);
  assert.ok(a100.hints.some((h) => h.includes(WEIGHTS)), a100.hints.join('\n'));
});

test('an invalid page_size: its hint and the hints that depend on it go, the independent ones stay', async () => {
  const text = fixture('llama-3.1-8b.attn.yaml').text.replace('page_size: 16', 'page_size: 0');
  const uri = freshUri();
  const diags = errors(await client.open(uri, text));
  const zero = rangeOf(text, 'page_size: 0').end;
  assert.deepEqual(diags.map((d) => [d.code, d.range]), [['invalid-value', { start: { line: zero.line, character: zero.character - 1 }, end: zero }]]);
  // No page hint (its value is invalid; the default page size 16 must not stand in for it), no
  // sequences-that-fit (pages per sequence need the page size). Weights, workspace and one
  // sequence's KV do not depend on page_size.
  assert.deepEqual(picture((await client.inlayHints(uri))!), [
    placed(text, MODEL, WEIGHTS),
    placedAtLineEnd(text, 'seq_lens: [1024, 4096]', WORKSPACE),
    placed(text, 'context_lens: [1024, 8192]', CONTEXT),
  ]);
  await client.close(uri);
});

test('an invalid dtype, after a valid version: computed hints drop, the last good ones stay where their lines are untouched', async () => {
  const f = fixture('llama-3.1-8b.attn.yaml');
  const uri = freshUri();
  await client.open(uri, f.text);
  assert.deepEqual(picture((await client.inlayHints(uri))!), fullPicture(f.text));
  // Mid-edit of dtype: every figure depends on it, so none is computed; the previous version's
  // stay (their lines are untouched), with a tooltip that says they are from an earlier version.
  const at = rangeOf(f.text, 'bf16');
  const diags = errors(await client.change(uri, [{ range: at, text: 'bf1' }]));
  const text = f.text.replace('dtype: bf16', 'dtype: bf1');
  assert.deepEqual(diags.map((d) => [d.code, d.range.start]), [['invalid-value', at.start]]);
  const hints = (await client.inlayHints(uri))!;
  assert.deepEqual(picture(hints), fullPicture(text).map(stale));
  // The tooltip names the error that keeps them stale, by its line (dtype is on the fixture's line ${at.start.line + 1}).
  const line = at.start.line + 1;
  for (const h of hints) assert.ok((h.tooltip as MarkupContent).value.startsWith(`⚠ **Stale**: from an earlier version of this file. This version has an error at line ${line}: ${diags[0]!.message}${/[.?!]$/.test(String(diags[0]!.message)) ? '' : '.'} The figure is recomputed once it is fixed.`), (h.tooltip as MarkupContent).value);
  for (const h of hints) assert.ok(label(h).length <= 43, label(h));
  await client.close(uri);
});

test('a YAML syntax error mid-edit keeps the previous hints on untouched lines only, moves them, drops removed keys', async () => {
  const f = fixture('llama-3.1-8b.attn.yaml');
  const uri = freshUri();
  await client.open(uri, f.text);
  assert.deepEqual(picture((await client.inlayHints(uri))!), fullPicture(f.text));

  // 1. Delete the prefill mapping's closing brace: a syntax error on that line.
  let text = f.text.replace('causal: true }', 'causal: true ');
  const brace = rangeOf(f.text, 'causal: true }').end;
  let diags = errors(await client.change(uri, [{ range: { start: { line: brace.line, character: brace.character - 1 }, end: brace }, text: '' }]));
  assert.ok(diags.length > 0 && diags.every((d) => d.code === 'yaml-syntax'), JSON.stringify(diags));
  assert.ok(diags.some((d) => d.range.start.line >= brace.line), JSON.stringify(diags));
  // The workspace hint's line changed: gone. The others: same figures, same places.
  // The workspace hint's line changed: gone. The others: same figures, same places, marked stale.
  const unchanged = (t: string): string[] => [
    placed(t, MODEL, WEIGHTS),
    placed(t, 'page_size: 16', PAGE),
    placed(t, 'context_lens: [1024, 8192]', CONTEXT),
    placed(t, 'max_model_len: 8192', MAX_MODEL_LEN),
  ].map(stale);
  assert.deepEqual(picture((await client.inlayHints(uri))!), unchanged(text));

  // 2. Still broken, a comment line typed at the top: every kept hint moves down one line.
  await client.change(uri, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '# draft\n' }]);
  text = `# draft\n${text}`;
  const moved = picture((await client.inlayHints(uri))!);
  assert.deepEqual(moved, unchanged(text));
  assert.equal(Number(moved[0]!.split(':')[0]), rangeOf(f.text, MODEL).end.line + 1);

  // 3. Still broken, the page_size line deleted: its hint goes with it; the others move up.
  const page = rangeOf(text, 'page_size: 16').start.line;
  await client.change(uri, [{ range: { start: { line: page, character: 0 }, end: { line: page + 1, character: 0 } }, text: '' }]);
  text = text.replace('  page_size: 16\n', '');
  assert.deepEqual(picture((await client.inlayHints(uri))!), [
    placed(text, MODEL, WEIGHTS),
    placed(text, 'context_lens: [1024, 8192]', CONTEXT),
    placed(text, 'max_model_len: 8192', MAX_MODEL_LEN),
  ].map(stale));

  // 4. Still broken, the key enclosing context_lens renamed: context_lens is no longer
  // decode.context_lens, so its hint goes too.
  const decode = rangeOf(text, 'decode:');
  await client.change(uri, [{ range: decode, text: 'decod:' }]);
  text = text.replace('decode:', 'decod:');
  assert.deepEqual(picture((await client.inlayHints(uri))!), [placed(text, MODEL, WEIGHTS), placed(text, 'max_model_len: 8192', MAX_MODEL_LEN)].map(stale));

  // 5. Fixed: hints computed again (the profile now has default decode cases and no page_size
  // key; an unknown key "decod" is only a warning). The pool is the same: page_size defaults to 16.
  const fixedText = text.replace('decod:', 'decode:').replace('causal: true \n', 'causal: true }\n');
  diags = errors(await client.change(uri, fixedText));
  assert.deepEqual(diags, []);
  assert.deepEqual(picture((await client.inlayHints(uri))!), [
    placed(fixedText, MODEL, WEIGHTS),
    placedAtLineEnd(fixedText, 'seq_lens: [1024, 4096]', WORKSPACE),
    placed(fixedText, 'context_lens: [1024, 8192]', CONTEXT),
    placed(fixedText, 'max_model_len: 8192', MAX_MODEL_LEN),
  ]);
  await client.close(uri);
});

test('a config.json whose edited value is invalid keeps the hints of its other keys', async () => {
  const f = fixture('../../examples/llama-3.1-8b/config.json');
  const uri = fixtureUri('mid-edit.config.json');
  await client.open(uri, f.text);
  const original = picture((await client.inlayHints(uri))!);
  // KV per token on num_key_value_heads, weights on model_type, KV of one 131,072-token sequence (16 GiB).
  assert.deepEqual(original, [
    placed(f.text, '"max_position_embeddings": 131072,', '16 GiB reserved/seq'),
    placed(f.text, '"model_type": "llama",', '15 GiB weights · 8.03B params'),
    placed(f.text, '"num_key_value_heads": 8,', '128 KiB KV/token'),
  ].sort((x, y) => Number(x.split(':')[0]) - Number(y.split(':')[0])));
  // A comma deleted (a JSON syntax error on a line without a hint): all three stay.
  const broken = f.text.replace('"hidden_size": 4096,', '"hidden_size": 4096');
  let diags = errors(await client.change(uri, broken));
  assert.deepEqual(diags.map((d) => [d.code, d.range.start]), [['json-syntax', rangeOf(broken, '"initializer_range"').start]]);
  assert.deepEqual(picture((await client.inlayHints(uri))!), original.map(stale));
  // Comma back, then 8 -> 0 KV heads: no model can be read, so nothing is computed; the hint of
  // the edited line goes, the two others stay.
  await client.change(uri, f.text);
  const text = f.text.replace('"num_key_value_heads": 8', '"num_key_value_heads": 0');
  diags = errors(await client.change(uri, text));
  assert.ok(diags.some((d) => d.range.start.line === rangeOf(text, '"num_key_value_heads": 0').start.line), JSON.stringify(diags));
  assert.deepEqual(picture((await client.inlayHints(uri))!), original.filter((h) => !h.endsWith('KiB KV/token')).map(stale));
  await client.close(uri);
});

test('a profile keeps its hints while the config.json it reads is mid-edit in another editor', async () => {
  const uri = freshUri();
  const text = `model: ${MODEL}\nkv_cache: { page_size: 16, memory_gib: 3.8125 }\n`;
  await client.open(uri, text);
  const good = [placed(text, MODEL, WEIGHTS), placedAtLineEnd(text, 'page_size: 16', PAGE)];
  assert.deepEqual(picture((await client.inlayHints(uri))!), good);
  const config = fixture('../../examples/llama-3.1-8b/config.json');
  const opened = client.nextDiagnostics(uri);
  await client.open(config.uri, config.text);
  await opened;
  // Unsaved: 0 KV heads. The profile cannot be computed; its own text is untouched, so its hints stay, marked.
  const broken = client.nextDiagnostics(uri);
  await client.change(config.uri, config.text.replace('"num_key_value_heads": 8', '"num_key_value_heads": 0'));
  // The config's own error, shown at `model:` and linked to its place; not restated by the
  // model-config-invalid summary (s40 newcomer-ed: one mistake, three Problems entries).
  assert.deepEqual((await broken).diagnostics.map((d) => d.code), ['invalid-value']);
  const kept = (await client.inlayHints(uri))!;
  assert.deepEqual(picture(kept), good.map(stale));
  // The error is in the config.json, named relative to the profile's folder.
  for (const h of kept) assert.match((h.tooltip as MarkupContent).value, /^⚠ \*\*Stale\*\*: from an earlier version of this file\. This version has an error in \.\.\/\.\.\/examples\/llama-3\.1-8b\/config\.json: /);
  // 4 KV heads: recomputed. 32 · 2 · 4 · 128 · 2 B = 64 KiB per token; page 16 · 64 KiB = 1 MiB;
  // floor(3.8125 GiB / 1 MiB) = 3,904 pages = 62,464 tokens; weights lose 32 · 2 · 4096 · 4 · 128
  // = 134,217,728 parameters: 7,896,043,520 (7.9B) · 2 B = 14.7 GiB.
  const fixed = client.nextDiagnostics(uri);
  await client.change(config.uri, config.text.replace('"num_key_value_heads": 8', '"num_key_value_heads": 4'));
  // 62,464 tokens are fewer than one sequence of max_position_embeddings 131,072: the one warning.
  assert.deepEqual((await fixed).diagnostics.map((d) => d.code), ['pool-below-max-model-len']);
  assert.deepEqual(picture((await client.inlayHints(uri))!), [
    placed(text, MODEL, '14.7 GiB weights, 64 KiB KV/token'),
    placedAtLineEnd(text, 'page_size: 16', '62,464 tokens · 3,904 × 1 MiB'),
  ]);
  await client.close(config.uri);
  await client.close(uri);
});
