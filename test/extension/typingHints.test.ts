/**
 * Inlay hints while typing (extension/typingHints.ts; s52 newcomer-ed 4: page_size 1's figures stood
 * beside 12 and 128 for ~550 ms). VS Code's requests are played by hand: a hint is its line and label,
 * a range its first and last line.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hintsAfterEdits, TypingHints, type LineEdit } from '../../extension/typingHints';

interface Hint {
  line: number;
  label: string;
}
interface Lines {
  from: number;
  to: number;
}
const shape = {
  lineOf: (h: Hint) => h.line,
  moved: (h: Hint, line: number): Hint => ({ ...h, line }),
  covers: (outer: Lines, inner: Lines) => outer.from <= inner.from && inner.to <= outer.to,
  inRange: (h: Hint, r: Lines) => r.from <= h.line && h.line <= r.to,
};
const after = (hints: Hint[], edits: LineEdit[]): Hint[] => hintsAfterEdits(hints, edits, shape.lineOf, shape.moved);

/** A server answer the test resolves when it likes. */
function deferred(): { promise: Promise<Hint[]>; resolve: (h: Hint[]) => void } {
  let resolve!: (h: Hint[]) => void;
  const promise = new Promise<Hint[]>((r) => (resolve = r));
  return { promise, resolve };
}

// examples/llama-3.1-8b.attn.yaml: the model's hint on line 3, page_size's on 11, max_model_len's on 27.
const V1: Hint[] = [
  { line: 3, label: '15 GiB weights · 8.03B params' },
  { line: 11, label: '453,808 tokens · 28,363 × 2 MiB' },
  { line: 27, label: '1 GiB reserved/seq · 55 seqs fit' },
];
const ALL: Lines = { from: 0, to: 60 };

describe('inlay hints while typing', () => {
  it('an edit drops the hints of the lines it touched and moves those below by the lines it added or removed', () => {
    // A digit typed in page_size's value: its line's hint goes, the others stay where they are.
    assert.deepEqual(after(V1, [{ startLine: 11, endLine: 11, insertedLines: 0 }]), [V1[0], V1[2]]);
    // Two lines pasted at line 5 (a comment): the hints below move down 2, page_size's to 13.
    assert.deepEqual(after(V1, [{ startLine: 5, endLine: 5, insertedLines: 2 }]).map((h) => h.line), [3, 13, 29]);
    // Lines 4-6 joined into one (2 line breaks removed), then that line edited again: below moves up 2, nothing else goes.
    assert.deepEqual(after(V1, [{ startLine: 4, endLine: 6, insertedLines: 0 }, { startLine: 4, endLine: 4, insertedLines: 0 }]).map((h) => h.line), [3, 9, 25]);
    // The edit that moved page_size's line to 13 and then one on line 13: page_size's hint goes.
    assert.deepEqual(after(V1, [{ startLine: 5, endLine: 5, insertedLines: 2 }, { startLine: 13, endLine: 13, insertedLines: 0 }]).map((h) => h.label), [V1[0]!.label, V1[2]!.label]);
  });

  it('a request on a newer version is answered at once without the edited line\'s hint, then with the server\'s answer for that version', async () => {
    const changed: string[] = [];
    const typing = new TypingHints<Hint, Lines>(shape, (key) => changed.push(key));
    const asks: boolean[] = [];
    // Version 1: the server's answer, as without this class.
    assert.deepEqual(await typing.provide('p', 1, ALL, async (background) => (asks.push(background), V1)), V1);
    // "1" typed over "16" (version 2): no figure on line 11 at once, the others as they were.
    typing.edited('p', 2, [{ startLine: 11, endLine: 11, insertedLines: 0 }]);
    const server = deferred();
    const instant = await typing.provide('p', 2, ALL, (background) => (asks.push(background), server.promise));
    assert.deepEqual(instant, [V1[0], V1[2]]);
    assert.deepEqual(asks, [false, true], 'the server asked for version 2 behind the instant answer, on a request VS Code does not cancel');
    assert.deepEqual(changed, []);
    // The server's answer for version 2 (page_size 1: 453,809 tokens of 1 · 128 KiB): VS Code is asked to request again, and gets it.
    const v2: Hint[] = [V1[0]!, { line: 11, label: '453,809 tokens · 453,809 × 128 KiB' }, V1[2]!];
    server.resolve(v2);
    await server.promise;
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(changed, ['p']);
    assert.deepEqual(await typing.provide('p', 2, ALL, () => assert.fail('the waiting answer is handed over, not asked again')), v2);
    // VS Code's own request 800 ms after the key, on the same version: the server's answer for it, kept.
    assert.deepEqual(await typing.provide('p', 2, ALL, () => assert.fail('version 2 was answered and nothing changed since')), v2);
    assert.deepEqual(asks, [false, true]);
  });

  it('a document the server did not name since its last answer is answered from it; one it named (serverChanged) asks the server', async () => {
    const typing = new TypingHints<Hint, Lines>(shape, () => undefined);
    await typing.provide('reader', 1, ALL, async () => V1);
    await typing.provide('other', 1, ALL, async () => V1);
    // A key typed in the config the reader reads: the server names the reader. VS Code asks again for both.
    typing.serverChanged(['reader']);
    // Labels: Llama-3.1-8B with 4, then 2, KV heads: 8.03B less 32 layers · 2 · 4096 · 128 per head dropped.
    const four: Hint[] = [{ line: 3, label: '14.7 GiB weights · 7.9B params' }, V1[1]!, V1[2]!];
    assert.deepEqual(await typing.provide('other', 1, ALL, () => assert.fail('nothing changed for the other profile')), V1);
    const asked = deferred();
    const reader = typing.provide('reader', 1, ALL, () => asked.promise);
    // Another key before that answer came: the answer is of the config before it, so not kept as current.
    typing.serverChanged(['reader']);
    asked.resolve(four);
    assert.deepEqual(await reader, four);
    const five: Hint[] = [{ line: 3, label: '14.6 GiB weights · 7.83B params' }, V1[1]!, V1[2]!];
    assert.deepEqual(await typing.provide('reader', 1, ALL, async () => five), five);
    assert.deepEqual(await typing.provide('reader', 1, ALL, () => assert.fail('answered for this change')), five);
    // Past the last answer's range, the server is asked as before.
    assert.deepEqual(await typing.provide('other', 1, { from: 0, to: 100 }, async () => V1), V1);
  });

  it('a key typed before the server answered the one before: that answer is kept for the next instant one, not handed to VS Code', async () => {
    const changed: string[] = [];
    const typing = new TypingHints<Hint, Lines>(shape, (key) => changed.push(key));
    await typing.provide('p', 1, ALL, async () => V1);
    typing.edited('p', 2, [{ startLine: 11, endLine: 11, insertedLines: 0 }]);
    const slow = deferred();
    await typing.provide('p', 2, ALL, () => slow.promise);
    // A line added above page_size (version 3) before version 2's answer came.
    typing.edited('p', 3, [{ startLine: 0, endLine: 0, insertedLines: 1 }]);
    slow.resolve([V1[0]!, { line: 11, label: '453,809 tokens · 453,809 × 128 KiB' }, V1[2]!]);
    await slow.promise;
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(changed, [], 'version 2 is not the document\'s any more');
    // Version 3 at once: version 2's answer moved down one line; page_size's figure is version 2's, its line untouched since.
    const three = await typing.provide('p', 3, ALL, () => deferred().promise);
    assert.deepEqual(three?.map((h) => [h.line, h.label]), [[4, V1[0]!.label], [12, '453,809 tokens · 453,809 × 128 KiB'], [28, V1[2]!.label]]);
  });

  it('a range the last answer did not cover, and a closed document, go to the server', async () => {
    const typing = new TypingHints<Hint, Lines>(shape, () => undefined);
    await typing.provide('p', 1, { from: 0, to: 20 }, async () => V1.slice(0, 2));
    typing.edited('p', 2, [{ startLine: 11, endLine: 11, insertedLines: 0 }]);
    const asks: boolean[] = [];
    await typing.provide('p', 2, { from: 10, to: 40 }, async (background) => (asks.push(background), V1));
    typing.forget('p');
    typing.edited('p', 3, [{ startLine: 11, endLine: 11, insertedLines: 0 }]);
    await typing.provide('p', 3, ALL, async (background) => (asks.push(background), V1));
    assert.deepEqual(asks, [false, false]);
  });
});
