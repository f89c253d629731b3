/**
 * The language server's incremental analysis (server/analysis.ts reuseTree: an edit inside a
 * number, or inside a list of numbers, updates the previous tree instead of parsing again) must
 * give exactly what a full analysis of the same text gives: the tree, every problem, the
 * diagnostics and the inlay hints. A property test over random edits (seeded, so a failure
 * replays), most of them inside the profile's lists, in each list form: a YAML flow list on one
 * line and over several lines, a YAML block list (at the end of the text, without a final line
 * break, too), and a JSON profile's lists; and edits outside the lists, which parse a YAML text
 * again around its long lists (analysis.ts parseAroundLists), also when the text before or
 * after the edit is not valid YAML (half-typed: an unclosed bracket, a stray `:` or tab); and a
 * classifier's config.json, whose id2label / label2id maps are put back unread after an edit
 * outside them (analysis.ts parseAroundUnread), valid JSON or not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { isUnread, type ValueNode } from '../../core/config';
import { labelledConfig } from '../../scripts/bench-config-size';
import { analyze, checkedProblems, KEPT_LIST_ITEMS, reuseTree, type Analysis, type FileHost } from '../../server/analysis';
import { toDiagnostics } from '../../server/diagnostics';
import { documentHints } from '../../server/hints';
import { root } from './harness';

const examples = join(root, 'examples');
const host: FileHost = {
  readFile: (p) => {
    try {
      return readFileSync(p, 'utf8');
    } catch {
      return null;
    }
  },
};

/** mulberry32: a small seeded generator, so that a failing edit sequence replays. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Lengths for the lists: mostly fine, some past Llama-3.1-8B's max_position_embeddings 131072
 * (a warning at the item). Edits add errors (a 0 is below the schema's minimum 1).
 */
function lengths(rnd: () => number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => (i % 7 === 5 ? 200_000 + i : 1 + Math.floor(rnd() * 32_768)));
}

/** Profiles of Llama-3.1-8B (examples/) with its lists written in each form. */
function documents(rnd: () => number): Array<{ name: string; text: string }> {
  const yaml = readFileSync(join(examples, 'llama-3.1-8b.attn.yaml'), 'utf8');
  // Long enough to be kept when an edit elsewhere parses the text again (parseAroundLists).
  const a = lengths(rnd, KEPT_LIST_ITEMS + 44);
  const b = lengths(rnd, 12);
  const lines = (xs: number[]): string => xs.map((x, i) => (i % 8 === 7 ? `${x},\n    ` : `${x}, `)).join('').replace(/,\s*$/, '');
  const json = readFileSync(join(examples, 'qwen3-30b-a3b.attn.json'), 'utf8').replace('"./qwen3-30b-a3b/config.json"', '"./llama-3.1-8b/config.json"');
  return [
    { name: 'flow.attn.yaml', text: yaml.replace('seq_lens: [512, 1024]', `seq_lens: [${a.join(', ')}]`).replace('context_lens: [1024, 4096]', `context_lens: [${b.join(',')} ]`) },
    { name: 'lines.attn.yaml', text: yaml.replace('seq_lens: [512, 1024]', `seq_lens: [${lines(a)}]`) },
    {
      name: 'block.attn.yaml',
      text: yaml.replace('  seq_lens: [512, 1024]', `  seq_lens:\n${a.map((x) => `    - ${x}`).join('\n')}`).replace(/\ndecode:[^]*?\nworkload:/, '\nworkload:') +
        `decode:\n  context_lens:\n${b.map((x) => `  - ${x}`).join('\n')}`,
    },
    { name: 'lists.attn.json', text: json.replace('"seq_lens": [512, 1024]', `"seq_lens": [${a.join(', ')}]`).replace('"context_lens": [1024, 4096]', `"context_lens": [\n      ${b.join(',\n      ')}\n    ]`) },
  ];
}

/** What a random edit is made of: list punctuation, and what breaks a list. */
const PIECES = ['1', '0', '42', '512', ', ', ',', ' ', '\n    - ', '\n  - 64', '\n', '-', '.5', 'e3', '#', ']', ':', 'x', '\t', '[', '{', '"', ': ', '\n  x'];

/**
 * An edit of `text`: three in five what a user does in a list of numbers (a digit typed or
 * deleted in a number, a number added after it or removed with its separator), the rest a random
 * insertion, deletion or replacement, half of them inside a list, half outside the lists.
 */
function randomEdit(rnd: () => number, text: string): { text: string; outside: boolean } {
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const lists = [...text.matchAll(/\[[^\]]*\]|(?:\n *- [^\n]*)+/g)];
  if (lists.length > 0 && rnd() < 0.6) {
    const list = pick(lists);
    const numbers = [...list[0].matchAll(/\d+/g)];
    if (numbers.length > 0) {
      const n = pick(numbers);
      const from = list.index + n.index;
      const to = from + n[0].length;
      const block = list[0].startsWith('\n');
      const indent = block ? /\n( *)-/.exec(list[0])![1]! : '';
      switch (Math.floor(rnd() * 4)) {
        case 0: {
          const at = from + Math.floor(rnd() * (n[0].length + 1));
          return { text: text.slice(0, at) + String(Math.floor(rnd() * 10)) + text.slice(at), outside: false };
        }
        case 1: {
          const at = from + Math.floor(rnd() * n[0].length);
          return { text: text.slice(0, at) + text.slice(at + 1), outside: false };
        }
        case 2:
          return { text: text.slice(0, to) + (block ? `\n${indent}- ` : ', ') + String(1 + Math.floor(rnd() * 9999)) + text.slice(to), outside: false };
        default: {
          const sep = block ? new RegExp(`^\\n${indent}- `) : /^ *, */;
          const after = sep.exec(text.slice(to));
          return { text: after === null ? text : text.slice(0, from) + text.slice(to + after[0].length), outside: false };
        }
      }
    }
  }
  let at: number;
  const outside = lists.length === 0 || rnd() < 0.5;
  if (!outside) {
    const m = pick(lists);
    at = m.index + Math.floor(rnd() * (m[0].length + 1));
  } else {
    // Outside the lists (a key, a value, a comment): a YAML text is parsed again around them.
    const masked = text.replace(/\[[^\]]*\]|(?:\n *- [^\n]*)+/g, (m) => '\0'.repeat(m.length));
    do at = Math.floor(rnd() * (text.length + 1));
    while (masked[at] === '\0' || masked[at - 1] === '\0');
  }
  const remove = rnd() < 0.5 ? 0 : 1 + Math.floor(rnd() * 4);
  const insert = remove > 0 && rnd() < 0.4 ? '' : Array.from({ length: 1 + Math.floor(rnd() * 2) }, () => pick(PIECES)).join('');
  return { text: text.slice(0, at) + insert + text.slice(at + remove), outside };
}

/** Everything a client sees of an analysis, and its tree and problems. */
function observed(a: Analysis): unknown {
  return { tree: a.tree, problems: a.problems, diagnostics: toDiagnostics(a, checkedProblems(a, host), {}), hints: documentHints(a, []), profile: a.profile !== null };
}

test('random edits, mostly inside lists of numbers: the incremental analysis equals the full one (tree, problems, diagnostics, hints)', () => {
  const rnd = random(28);
  for (const { name, text } of documents(rnd)) {
    let reused = 0;
    let reusedOutside = 0;
    const uri = `file://${join(examples, name)}`;
    let version = 1;
    const original = analyze(TextDocument.create(uri, 'yaml', version, text), host);
    let previous = original;
    let valid = previous;
    assert.equal(previous.parsed.problems.length, 0, `${name} parses cleanly`);
    assert.ok(previous.problems.some((p) => p.code === 'exceeds-max-position'), `${name} has a warning at a list item`);
    for (let step = 0; step < 150; step++) {
      // Back to the document as written every 50 steps: a walk that wrote a string into a list
      // (never reused after, by design) would otherwise spend the rest of its steps unreused, and
      // whether it does turns on the example's every character (a comment's length moved it, s39).
      if (step % 50 === 0) previous = valid = original;
      const { text: next, outside } = randomEdit(rnd, previous.text);
      const doc = TextDocument.create(uri, 'yaml', ++version, next);
      if (reuseTree(previous, next) !== null) {
        reused++;
        if (outside) reusedOutside++;
      }
      const incremental = analyze(doc, host, previous);
      const full = analyze(doc, host);
      assert.deepEqual(observed(incremental), observed(full), `${name} step ${step}: ${JSON.stringify(previous.text)} -> ${JSON.stringify(next)}`);
      // Edit on from a version with an error now and then (its diagnostics and partial hints
      // are compared too), but mostly from the last valid one: a version whose parse has
      // problems is never reused, nor is a list once it holds a string (which an unknown key's
      // list may, with a warning only).
      if (!full.problems.some((p) => p.severity === 'error' || p.code === 'unknown-key')) previous = valid = incremental;
      else previous = rnd() < 0.3 ? incremental : valid;
    }
    // The reuse must be exercised, not skipped, in each form of list.
    assert.ok(reused >= 30, `${name}: ${reused} of 150 edits reused the previous tree`);
    if (name.endsWith('.yaml')) assert.ok(reusedOutside >= 10, `${name}: ${reusedOutside} edits outside the lists kept them`);
  }
});

test('typing through invalid YAML: edits on from versions with syntax errors, the incremental analysis equals the full one', () => {
  const rnd = random(29);
  for (const { name, text } of documents(rnd)) {
    if (!name.endsWith('.yaml')) continue;
    let reusedInvalid = 0;
    const uri = `file://${join(examples, name)}`;
    let version = 1;
    const start = analyze(TextDocument.create(uri, 'yaml', version, text), host);
    let previous = start;
    let invalidRun = 0;
    for (let step = 0; step < 150; step++) {
      const { text: next } = randomEdit(rnd, previous.text);
      const doc = TextDocument.create(uri, 'yaml', ++version, next);
      const reused = reuseTree(previous, next);
      const incremental = analyze(doc, host, previous);
      const full = analyze(doc, host);
      assert.deepEqual(observed(incremental), observed(full), `${name} step ${step}: ${JSON.stringify(previous.text)} -> ${JSON.stringify(next)}`);
      const syntax = (a: Analysis): boolean => a.parsed.problems.some((p) => p.severity === 'error');
      if (reused !== null && (syntax(previous) || syntax(full))) reusedInvalid++;
      // Walk on from each version, invalid ones too, for a few edits (a user typing), then go
      // back to the first text, so that the lists stay long and the edits land near them.
      invalidRun = syntax(full) ? invalidRun + 1 : 0;
      previous = invalidRun > 4 || rnd() < 0.1 ? start : incremental;
      if (previous === start) invalidRun = 0;
    }
    // Versions with a syntax error, or edits to one, kept their long lists.
    assert.ok(reusedInvalid >= 15, `${name}: ${reusedInvalid} edits from or to invalid YAML reused the previous lists`);
  }
});

test('a key indented past its flow list\'s later lines: the syntax error at the list is the full parse\'s (no stand-in on one line hides it)', () => {
  const lines = documents(random(28)).find((d) => d.name === 'lines.attn.yaml')!;
  const uri = `file://${join(examples, lines.name)}`;
  // seq_lens the first key of prefill, then indented by 4 more: the value's lines (indented 4)
  // are no longer indented past the key (6), which yaml reports at the list's second line.
  const first = lines.text.replace('  batch_size: 1\n', '');
  const second = first.replace('\n  seq_lens:', '\n      seq_lens:');
  const a = analyze(TextDocument.create(uri, 'yaml', 1, first), host);
  assert.equal(a.parsed.problems.length, 0);
  const incremental = analyze(TextDocument.create(uri, 'yaml', 2, second), host, a);
  const full = analyze(TextDocument.create(uri, 'yaml', 2, second), host);
  const listLine = second.indexOf('\n', second.indexOf('seq_lens: [')) + 1;
  assert.ok(full.parsed.problems.some((p) => p.code === 'yaml-syntax' && p.range.offset === listLine + 4), JSON.stringify(full.parsed.problems));
  assert.deepEqual(observed(incremental), observed(full));
});

test('an item typed into a long flow list through invalid states (`,`, ` `, a digit): each version parses only around the list\'s other items, and equals a full analysis', () => {
  const flow = documents(random(28)).find((d) => d.name === 'flow.attn.yaml')!;
  const uri = `file://${join(examples, flow.name)}`;
  const at = flow.text.indexOf('seq_lens: [') + 'seq_lens: ['.length;
  const firstEnd = flow.text.indexOf(',', at);
  // `[a, b, …]` -> `[a,, b` (yaml: 'Unexpected , in flow sequence') -> `[a, , b` (the same) -> `[a, 7, b` (valid again).
  const texts = [',', ', ', ', 7'].map((typed) => flow.text.slice(0, firstEnd) + typed + flow.text.slice(firstEnd));
  let previous = analyze(TextDocument.create(uri, 'yaml', 1, flow.text), host);
  texts.forEach((text, i) => {
    const reused = reuseTree(previous, text);
    assert.notEqual(reused, null, `version ${i + 2} kept the list's other items`);
    const doc = TextDocument.create(uri, 'yaml', i + 2, text);
    const incremental = analyze(doc, host, previous);
    const full = analyze(doc, host);
    assert.deepEqual(observed(incremental), observed(full), `version ${i + 2}`);
    assert.equal(full.parsed.problems.some((p) => p.code === 'yaml-syntax'), i < 2, `version ${i + 2}: a syntax error while the item is half-typed`);
    previous = incremental;
  });
});

test('a comment typed at the start of a long flow list\'s later line hides that line\'s items: the incremental analysis equals the full one', () => {
  // s40: the random walk typed `#,` before `    22945, 26104, …` in the shipped example; the
  // items kept after the edit were put back whole though the comment hid their first line.
  const flow = documents(random(28)).find((d) => d.name === 'lines.attn.yaml')!;
  const uri = `file://${join(examples, flow.name)}`;
  const list = flow.text.indexOf('seq_lens: [');
  const lineStart = flow.text.indexOf('\n', flow.text.indexOf('\n', list) + 1) + 1; // the list's third line
  assert.match(flow.text.slice(lineStart, lineStart + 8), /^ +\d/, 'a continuation line of numbers');
  const text = flow.text.slice(0, lineStart) + '#,' + flow.text.slice(lineStart);
  const previous = analyze(TextDocument.create(uri, 'yaml', 1, flow.text), host);
  const doc = TextDocument.create(uri, 'yaml', 2, text);
  const full = analyze(doc, host);
  assert.deepEqual(observed(analyze(doc, host, previous)), observed(full));
  const items = full.tree?.properties?.find((p) => p.key === 'prefill')?.value.properties?.find((p) => p.key === 'seq_lens')?.value.items?.length;
  const before = previous.tree?.properties?.find((p) => p.key === 'prefill')?.value.properties?.find((p) => p.key === 'seq_lens')?.value.items?.length;
  assert.ok(items !== undefined && before !== undefined && items < before, `the commented line's items are gone: ${before} -> ${items}`);
});

/** A tree as comparable data, a container left unread as its type and range (reading it would keep it from being kept). */
function shape(n: ValueNode | null): unknown {
  if (n === null) return null;
  if (isUnread(n)) return { type: n.type, range: n.range, unread: true };
  return { ...n, properties: n.properties?.map((p) => ({ ...p, value: shape(p.value) })), items: n.items?.map(shape) };
}

test('a config.json with id2label / label2id maps left unread: random edits above, between and in them, through invalid JSON: the incremental analysis equals the full one, and edits outside the maps keep them unread', () => {
  // Llama-3.1-8B with 2,000 labels in each map (past EAGER_MEMBERS, 1,024: both left unread), as a classifier's config has them.
  const text = labelledConfig(2_000);
  const uri = `file://${join(examples, 'labels', 'config.json')}`;
  const rnd = random(39);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const pieces = ['1', '0', '"', ',', ':', ' ', '\n', '{', '}', '[', ']', 'x', '"x": 1,', 'NaN', '//'];
  const start = analyze(TextDocument.create(uri, 'json', 1, text), host);
  assert.equal(start.kind, 'config');
  assert.equal(start.parsed.problems.length, 0);
  const observedJson = (a: Analysis): unknown => ({ tree: shape(a.tree), problems: a.problems, diagnostics: toDiagnostics(a, checkedProblems(a, host), {}), hints: documentHints(a, []) });
  let previous = start;
  let invalidRun = 0;
  let kept = 0;
  let keptInvalid = 0;
  for (let step = 0; step < 200; step++) {
    const old = previous.text;
    const maps = old.indexOf('"id2label"');
    const between = old.indexOf('"label2id"');
    const r = rnd();
    // Mostly the keys above the maps (what a user edits), then around the second map's key, inside a map, the end.
    const at = r < 0.7 ? 1 + Math.floor(rnd() * (maps - 1)) : r < 0.8 ? between - 8 + Math.floor(rnd() * 16) : r < 0.9 ? maps + Math.floor(rnd() * (old.length - maps)) : old.length - 1 - Math.floor(rnd() * 3);
    const remove = rnd() < 0.5 ? 0 : 1 + Math.floor(rnd() * 3);
    const next = old.slice(0, at) + (remove > 0 && rnd() < 0.4 ? '' : pick(pieces)) + old.slice(at + remove);
    const doc = TextDocument.create(uri, 'json', step + 2, next);
    const reused = reuseTree(previous, next);
    const incremental = analyze(doc, host, previous);
    const full = analyze(doc, host);
    assert.deepEqual(observedJson(incremental), observedJson(full), `step ${step}: ${JSON.stringify(old.slice(Math.max(0, at - 40), at + 40))} -> ${JSON.stringify(next.slice(Math.max(0, at - 40), at + 40))}`);
    const syntax = (a: Analysis): boolean => a.parsed.problems.some((p) => p.severity === 'error');
    if (reused !== null && incremental.tree !== null && at < maps) {
      kept++;
      if (syntax(previous) || syntax(full)) keptInvalid++;
    }
    invalidRun = syntax(full) ? invalidRun + 1 : 0;
    previous = invalidRun > 4 || rnd() < 0.1 ? start : incremental;
    if (previous === start) invalidRun = 0;
  }
  // The maps were kept, from and to invalid versions too.
  assert.ok(kept >= 60, `${kept} edits above the maps kept them`);
  assert.ok(keptInvalid >= 20, `${keptInvalid} edits from or to invalid JSON kept them`);
});
