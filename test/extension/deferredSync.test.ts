/**
 * DeferredSync (extension/deferredSync.ts) under mock timers: a huge document's edits reach the
 * server as one whole text once the typing stops, a small one's edit by edit, and requests wait
 * for the text they are about.
 */
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { DeferredSync, MAX_HELD_EDITS, STALE_DIAGNOSTIC_NOTE, staleDiagnosticMessage } from '../../extension/deferredSync';

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

describe('DeferredSync while a flush is sending', () => {
  /** A send that the test lets finish: `open()` resolves the oldest call not yet let go. */
  function gatedNext(log: string[]) {
    const gates: Array<() => void> = [];
    const next = (e: { document: Doc; change: string }): Promise<void> => {
      log.push(`edit ${e.document.uri}: ${e.change}`);
      return new Promise<void>((r) => gates.push(r));
    };
    return { next, open: () => gates.shift()?.(), waitingGates: () => gates.length };
  }
  const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

  it('sends an edit that comes during a flush\'s awaits after the held ones, and a request made then waits for all of them', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const log: string[] = [];
      const { next, open, waitingGates } = gatedNext(log);
      const sync = new DeferredSync<Doc>(async (d) => void log.push(`whole ${d.uri}: ${d.text}`), (d) => d.text.length, 5, 500);
      const big = doc('b', 'page_size: 16');
      await sync.didChange(edit(big, 'page_size: 1'), next);
      await sync.didChange(edit(big, 'page_size: 12'), next);
      mock.timers.tick(500);
      await turn();
      // The first held edit is on its way (the client's sendNotification has not returned).
      assert.deepEqual(log, ['edit b: page_size: 1']);
      assert.equal(sync.waiting(big), true, 'its hints stay withheld while it is being sent');
      let requestAnswered = false;
      const request = sync.settled(big).then(() => (requestAnswered = true));
      // An edit during that await; its own quiet time passes before the flush is done.
      await sync.didChange(edit(big, 'page_size: 128'), next);
      mock.timers.tick(500);
      await turn();
      open();
      await turn();
      // Before: the flush had forgotten the document, so the new edit's flush sent it at once,
      // ahead of 'page_size: 12', and the request made during the flush did not wait at all.
      assert.deepEqual(log, ['edit b: page_size: 1', 'edit b: page_size: 12'], 'the second held edit next, not the newer one');
      assert.equal(requestAnswered, false, 'the request waits while held edits are still being sent');
      let laterAnswered = false;
      const later = sync.settled(big).then(() => (laterAnswered = true));
      open();
      await turn();
      assert.deepEqual(log, ['edit b: page_size: 1', 'edit b: page_size: 12', 'edit b: page_size: 128'], 'the edit that came during the flush, last');
      await request;
      assert.equal(laterAnswered, false, 'a request made after that edit waits for it too');
      assert.equal(waitingGates(), 1);
      open();
      await later;
      assert.equal(sync.waiting(big), false);
    } finally {
      mock.timers.reset();
    }
  });

  it('a document cut under the limit during a flush: its edit goes straight behind the held ones, and a flush() waits for them', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const log: string[] = [];
      const { next, open } = gatedNext(log);
      const sync = new DeferredSync<Doc>(async (d) => void log.push(`whole ${d.uri}: ${d.text}`), (d) => d.text.length, 5, 500);
      const big = doc('b', 'long text');
      await sync.didChange(edit(big, 'long text!'), next);
      const flushed = sync.flush(big);
      await turn();
      assert.deepEqual(log, ['edit b: long text!']);
      // Cut under the limit (5 characters) while that edit is being sent: not sent ahead of it.
      const cut = sync.didChange(edit(big, 'lo'), next);
      await turn();
      assert.deepEqual(log, ['edit b: long text!']);
      let commandRead = false;
      // resolveProfile's flush: nothing waits any more, but what is in flight must arrive first.
      const command = sync.flush(big).then(() => (commandRead = true));
      open();
      await flushed;
      await turn();
      assert.deepEqual(log, ['edit b: long text!', 'edit b: lo']);
      assert.equal(commandRead, false, 'the command reads after the cut edit is sent');
      open();
      await cut;
      await command;
      assert.equal(commandRead, true);
    } finally {
      mock.timers.reset();
    }
  });
});

describe('DeferredSync and diagnostics of an older text', () => {
  it('says when a document starts to wait (once per wait), and marks a message once', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const { sync, next } = setup(5, 500);
      const held: string[] = [];
      sync.onHeld = (d) => held.push(d.text);
      const big = doc('b', 'page_size: 16');
      await sync.didChange(edit(big, 'page_size: 1'), next);
      await sync.didChange(edit(big, 'page_size: 12'), next);
      assert.deepEqual(held, ['page_size: 1'], 'the first held edit, not each');
      mock.timers.tick(500);
      await new Promise((r) => setImmediate(r));
      assert.equal(sync.waiting(big), false);
      await sync.didChange(edit(big, 'page_size: 128'), next);
      assert.deepEqual(held, ['page_size: 1', 'page_size: 128'], 'a new wait after the text was sent');
      const small = doc('s', 'x');
      await sync.didChange(edit(small, 'xy'), next);
      assert.equal(held.length, 2, 'a small document never waits');
      const marked = staleDiagnosticMessage('page_size must be a multiple of 16');
      assert.equal(marked, `page_size must be a multiple of 16${STALE_DIAGNOSTIC_NOTE}`);
      assert.equal(staleDiagnosticMessage(marked), marked, 'marked again (a second wait before the server answered): unchanged');
    } finally {
      mock.timers.reset();
    }
  });
});
