/**
 * DeferredSync (extension/deferredSync.ts) under mock timers: a huge document's edits reach the
 * server as one whole text once the typing stops, a small one's edit by edit, and requests wait
 * for the text they are about.
 */
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { DeferredSync, MAX_HELD_EDITS } from '../../extension/deferredSync';

interface Doc {
  uri: string;
  text: string;
}
const doc = (uri: string, text: string): Doc => ({ uri, text });
/** One edit event, as the client's didChange middleware gets it: the document (its text now) and the change (here the text it made). */
const edit = (d: Doc, text: string): { document: Doc; change: string } => {
  d.text = text;
  return { document: d, change: text };
};

function setup(limit: number, quietMs: number) {
  const sent: string[] = [];
  const sync = new DeferredSync<Doc>(
    async (d) => void sent.push(`whole ${d.uri}: ${d.text}`),
    (d) => d.text.length,
    limit,
    quietMs,
  );
  const next = async (e: { document: Doc; change: string }): Promise<void> => void sent.push(`edit ${e.document.uri}: ${e.change}`);
  return { sent, sync, next };
}

describe('DeferredSync', () => {
  it('passes a small document\'s edits on as they come; sends a huge one\'s whole text once, after the typing stops', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const { sent, sync, next } = setup(10, 500);
      const small = doc('a', 'short');
      const big = doc('b', '0123456789xx');
      await sync.didChange(edit(small, 'shorter'), next);
      assert.deepEqual(sent, ['edit a: shorter']);
      // Keys 150 ms apart (s44's typing test): nothing reaches the server while they come.
      assert.equal(MAX_HELD_EDITS, 3);
      for (const text of ['0123456789xx7', '0123456789xx', '0123456789xx7', '0123456789xx', '0123456789xx7']) {
        await sync.didChange(edit(big, text), next);
        mock.timers.tick(150);
      }
      assert.deepEqual(sent, ['edit a: shorter']);
      mock.timers.tick(349);
      assert.equal(sent.length, 1, 'not before 500 ms without an edit');
      mock.timers.tick(1);
      await Promise.resolve();
      assert.deepEqual(sent, ['edit a: shorter', 'whole b: 0123456789xx7'], 'five edits: the last text, once');
      // Two keys, then a pause: the two edits as they came (cheaper than the whole text's parse).
      await sync.didChange(edit(big, '0123456789xx78'), next);
      await sync.didChange(edit(big, '0123456789xx789'), next);
      mock.timers.tick(500);
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(sent.slice(2), ['edit b: 0123456789xx78', 'edit b: 0123456789xx789']);
      // Cut under the limit once its text was sent: its edits go one by one again (the server's copy is that text).
      await sync.didChange(edit(big, '012'), next);
      assert.deepEqual(sent.slice(4), ['edit b: 012']);
    } finally {
      mock.timers.reset();
    }
  });

  it('holds a request on a waiting document until its text is sent; a flush sends it at once, a close drops it', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const { sent, sync, next } = setup(3, 500);
      const big = doc('b', 'long text');
      let idle = false;
      void sync.settled(big).then(() => (idle = true));
      await Promise.resolve();
      await Promise.resolve();
      assert.equal(idle, true, 'nothing waits: at once');
      await sync.didChange(edit(big, 'long text!'), next);
      let answered = false;
      const request = sync.settled(big).then(() => {
        answered = true;
        return sent.slice();
      });
      mock.timers.tick(499);
      await Promise.resolve();
      assert.equal(answered, false, 'the request waits while the typing may go on');
      mock.timers.tick(1);
      assert.deepEqual(await request, ['edit b: long text!'], 'answered after the edit was sent');
      // A command that reads the document (resolveProfile) sends it now.
      await sync.didChange(edit(big, 'long text!!'), next);
      await sync.flush(big);
      assert.deepEqual(sent, ['edit b: long text!', 'edit b: long text!!']);
      mock.timers.tick(1000);
      assert.equal(sent.length, 2, 'the timer of a flushed text sends nothing more');
      // Closed while it waits: nothing is sent, and a waiting request is let go.
      await sync.didChange(edit(big, 'long text!!!'), next);
      const held = sync.settled(big);
      sync.drop(big);
      await held;
      mock.timers.tick(1000);
      assert.equal(sent.length, 2);
    } finally {
      mock.timers.reset();
    }
  });

  it('answers no inlay hints for a document whose edits wait, and asks again once they are sent (not after a close)', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      // The server's copy of the text, and what ctx.ts's inlay-hint middleware answers: none while the
      // document waits, else the server's (here: a hint naming the text it was computed from).
      let server = 'page_size: 16';
      const sync = new DeferredSync<Doc>(async (d) => void (server = d.text), (d) => d.text.length, 5, 500);
      const next = async (e: { document: Doc; change: string }): Promise<void> => void (server = e.change);
      const hints = (d: Doc): string[] => (sync.waiting(d) ? [] : [`hint of ${server}`]);
      const asked: string[][] = [];
      const big = doc('b', 'page_size: 16');
      sync.onSent = (d) => asked.push(hints(d));
      assert.deepEqual(hints(big), ['hint of page_size: 16']);
      await sync.didChange(edit(big, 'page_size: 32'), next);
      // VS Code asks after the edit (its own debounce): the 16's figure would be drawn as current.
      mock.timers.tick(250);
      assert.deepEqual(hints(big), [], 'withdrawn while the edit waits');
      assert.deepEqual(asked, []);
      mock.timers.tick(250);
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(asked, [['hint of page_size: 32']], 'asked again once sent: the new figure');
      // Closed while waiting: nothing is sent, nothing asked.
      await sync.didChange(edit(big, 'page_size: 64'), next);
      sync.drop(big);
      mock.timers.tick(1000);
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(asked.length, 1);
      assert.equal(server, 'page_size: 32');
    } finally {
      mock.timers.reset();
    }
  });
});
