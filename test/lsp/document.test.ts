/**
 * server/document.ts OpenDocument against the library's TextDocument (vscode-languageserver-textdocument,
 * the independent implementation it must equal): the same edits give the same text, line count,
 * positions and offsets, for text with '\n' only and for text with CR LF and lone CR (which the
 * library's document takes over).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { OpenDocument } from '../../server/document';

/** Deterministic random numbers in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sameDocument(ours: OpenDocument, theirs: TextDocument, what: string): void {
  const text = theirs.getText();
  assert.equal(ours.getText(), text, what);
  assert.equal(ours.lineCount, theirs.lineCount, what);
  assert.equal(ours.version, theirs.version, what);
  for (let offset = -1; offset <= text.length + 1; offset++) assert.deepEqual(ours.positionAt(offset), theirs.positionAt(offset), `${what}: positionAt(${offset})`);
  for (let line = -1; line <= theirs.lineCount; line++) {
    assert.deepEqual(ours.getLineRange(line), theirs.getLineRange(line), `${what}: getLineRange(${line})`);
    assert.equal(ours.getEOLCharacters(line), theirs.getEOLCharacters(line), `${what}: getEOLCharacters(${line})`);
    for (const character of [-1, 0, 1, 2, 5, 40]) {
      const p = { line, character };
      assert.equal(ours.offsetAt(p), theirs.offsetAt(p), `${what}: offsetAt(${JSON.stringify(p)})`);
    }
  }
  const range = { start: theirs.positionAt(1), end: theirs.positionAt(text.length - 2) };
  assert.equal(ours.getText(range), theirs.getText(range), what);
}

function randomEdits(seed: number, alphabet: string, start: string): void {
  const rnd = random(seed);
  const ours = OpenDocument.create('file:///t.json', 'json', 1, start);
  const theirs = TextDocument.create('file:///t.json', 'json', 1, start);
  const pick = (n: number): string => Array.from({ length: n }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');
  for (let version = 2; version < 200; version++) {
    // Each change's range is in the text the changes before it leave (as LSP sends them): built on a scratch copy.
    const scratch = TextDocument.create('file:///s.json', 'json', 1, theirs.getText());
    const changes = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => {
      const text = scratch.getText();
      // Reversed ranges, a character past its line's end, and whole replacements now and then, as a client may send them.
      const change = rnd() < 0.03
        ? { text: pick(Math.floor(rnd() * 30)) }
        : (() => {
            const a = scratch.positionAt(Math.floor(rnd() * (text.length + 1)));
            const b = rnd() < 0.1 ? { line: a.line, character: a.character + 40 } : scratch.positionAt(Math.floor(rnd() * (text.length + 1)));
            return { range: rnd() < 0.5 ? { start: a, end: b } : { start: b, end: a }, text: pick(Math.floor(rnd() * 8)) };
          })();
      TextDocument.update(scratch, [change], 1);
      return change;
    });
    OpenDocument.update(ours, changes, version);
    TextDocument.update(theirs, changes, version);
    // Read now and then only: edits pile up as pieces in between.
    if (rnd() < 0.3 || version === 199) sameDocument(ours, theirs, `seed ${seed} v${version}`);
  }
}

test('random edits of text with \\n line ends: the same text, lines, positions and offsets as the library\'s document', () => {
  for (let seed = 1; seed <= 20; seed++) randomEdits(seed, 'ab\n{}: ', 'model: x\nkv_cache:\n  page_size: 16\n');
});

test('random edits that bring in CR LF and lone CR: the library\'s document takes over, the same answers', () => {
  for (let seed = 21; seed <= 40; seed++) randomEdits(seed, 'ab\n\r ', 'a\nb\n');
  for (let seed = 41; seed <= 45; seed++) randomEdits(seed, 'ab\n ', 'a\r\nb\r\nc');
});

test('edits of an 11 MB text: 40 one-character edits, then one read', () => {
  // The piece list and the line offsets change per edit, not the text: after 40 edits (as many
  // keystrokes) the text, lines and positions equal the library's after the same edits.
  const big = `{\n${'  "label": "x",\n'.repeat(700_000)}}\n`;
  const ours = OpenDocument.create('file:///big.json', 'json', 1, big);
  const theirs = TextDocument.create('file:///big.json', 'json', 1, big);
  for (let i = 0; i < 40; i++) {
    const at = { line: 1 + i * 15_000, character: 5 };
    const changes = [{ range: { start: at, end: at }, text: 'y' }];
    OpenDocument.update(ours, changes, i + 2);
    TextDocument.update(theirs, changes, i + 2);
  }
  assert.equal(ours.lineCount, theirs.lineCount);
  assert.deepEqual(ours.positionAt(5_000_000), theirs.positionAt(5_000_000));
  assert.equal(ours.getText(), theirs.getText());
});
