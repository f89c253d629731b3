/**
 * A document of more than DEFERRED_SYNC_CHARS characters (a config.json with 200,000 labels is
 * 11 MB) is not sent to the language server edit by edit: its edits wait until the typing stops
 * (QUIET_MS without an edit), then go as one whole-text change (LSP's TextDocumentContentChangeEvent
 * without a range), or as they came when there are at most MAX_HELD_EDITS, and the server analyses
 * that version once. Why: vscode-languageserver-textdocument's
 * update of an 11 MB text costs 60-85 ms of the server's CPU per keystroke before any analysis (it
 * reads around each edit and V8 flattens the joined string; s44 ed44), on the 2 CPUs the editor
 * shares. A whole-text change replaces the library's string without that copy; the server's
 * analysis finds what changed by comparing texts (server/analysis.ts changedRegion), so it re-reads
 * only around the edit as before. Requests on such a document (inlay hints, lenses, code actions,
 * hovers, completions, resolveProfile) wait for its pending text to be sent first, so none is
 * answered from an older version. Smaller documents go edit by edit, as the client sends them.
 * Inlay hints are the exception: while a document's text waits, the client answers none at once
 * (waiting()), and asks again once it is sent (onSent): VS Code keeps drawing a document's last
 * hints until its next request is answered, so a page hint read the old page_size's figure, unmarked,
 * while the new text waited and was checked (s46 newcomer-ed M1: a 5.3 MB profile). Its diagnostics,
 * which VS Code keeps until replaced, are marked as of the text before (onHeld, staleDiagnosticMessage).
 * A document's sends form one chain: an edit made while a flush is still sending waits behind it, and
 * a request made then waits for all of it (s47: the flush had forgotten the document before its awaits).
 */

/** A document as DeferredSync needs it: its key. */
export interface SyncedDocument {
  readonly uri: { toString(): string };
}

/** Documents longer than this (characters) are sent whole once the typing stops: 4 MiB (a 3.2 MB config still goes edit by edit, about 20 ms of the server's CPU a keystroke). */
export const DEFERRED_SYNC_CHARS = 4 * 1024 * 1024;

/** The pause that ends a burst of typing, ms: a key every 150 ms (s44's typing test) keeps the text waiting; VS Code's own inlay-hint request waits about 250 ms after an edit. */
export const QUIET_MS = 500;

/** Up to this many held edits go to the server as they came (each costs the library's update, about 45 ms at 11 MB); more go as the whole text (its JSON parse, about 100 ms, whatever the edits). */
export const MAX_HELD_EDITS = 3;

/** What a diagnostic of a document whose edits wait says after its message: VS Code keeps drawing it (moved with the text) until the server's next one replaces it. */
export const STALE_DIAGNOSTIC_NOTE = ' (⚠ from before your last edits: this file is over 4 MiB, so AttnScope checks it again once the typing stops)';

/** `message` with STALE_DIAGNOSTIC_NOTE after it, once (a message already marked is returned as it is). */
export function staleDiagnosticMessage(message: string): string {
  return message.endsWith(STALE_DIAGNOSTIC_NOTE) ? message : `${message}${STALE_DIAGNOSTIC_NOTE}`;
}

interface Pending<D> {
  doc: D;
  timer: ReturnType<typeof setTimeout>;
  /** The held edits, each sent as it came by calling it; dropped for the whole text past MAX_HELD_EDITS. */
  held: Array<() => Promise<void>>;
  /** Resolved once the document's text is sent. */
  sent: Promise<void>;
  resolve: () => void;
}

export class DeferredSync<D extends SyncedDocument> {
  /** Documents whose edits are held, by URI: their timer runs. */
  private readonly pending = new Map<string, Pending<D>>();
  /**
   * Each document's sends in flight, by URI: the last of its chain (a flush's held edits or whole
   * text, then any edit that came during it), so that nothing overtakes what was held before it
   * and a request waits for all of it. Removed when the chain is done.
   */
  private readonly sending = new Map<string, Promise<void>>();
  /** Flushes in flight per document (each fires onSent when done): its hints are withheld until then. */
  private readonly flushing = new Map<string, number>();
  /** Called after a document's waiting text is sent (not when it is dropped): the client asks for its inlay hints again. */
  onSent: ((doc: D) => void) | null = null;
  /** Called when a document's edits start to wait (its first held edit): the client marks its diagnostics, from the text before. */
  onHeld: ((doc: D) => void) | null = null;

  /**
   * `sendWhole(doc)` sends `doc`'s current text and version as one whole-text change;
   * `lengthOf(doc)` is its current length in characters (UTF-16 units); `limit` (characters) and
   * `quietMs` as DEFERRED_SYNC_CHARS and QUIET_MS.
   */
  constructor(
    private readonly sendWhole: (doc: D) => Promise<void>,
    private readonly lengthOf: (doc: D) => number,
    private readonly limit = DEFERRED_SYNC_CHARS,
    private readonly quietMs = QUIET_MS,
  ) {}

  /**
   * The client's didChange middleware: a document over the limit, or one whose text already
   * waits, is sent whole after the typing stops; an edit of a smaller document goes on (`next`)
   * as it came, after whatever of it is still being sent (a flush's awaits).
   */
  didChange<E extends { document: D }>(event: E, next: (event: E) => Promise<void>): Promise<void> {
    const key = event.document.uri.toString();
    const waiting = this.pending.get(key);
    if (waiting !== undefined) {
      waiting.held.push(() => next(event));
      clearTimeout(waiting.timer);
      waiting.timer = setTimeout(() => void this.flush(waiting.doc), this.quietMs);
      return Promise.resolve();
    }
    if (this.lengthOf(event.document) <= this.limit) return this.sending.has(key) ? this.chain(key, () => next(event)) : next(event);
    let resolve!: () => void;
    const sent = new Promise<void>((r) => (resolve = r));
    const doc = event.document;
    this.pending.set(key, { doc, sent, resolve, held: [() => next(event)], timer: setTimeout(() => void this.flush(doc), this.quietMs) });
    this.onHeld?.(doc);
    return Promise.resolve();
  }

  /** Resolves once `doc`'s waiting text and every send before it are done (after the typing stops), or at once when none waits. */
  settled(doc: SyncedDocument): Promise<void> {
    const key = doc.uri.toString();
    return this.pending.get(key)?.sent ?? this.sending.get(key) ?? Promise.resolve();
  }

  /** True while `doc`'s edits wait to be sent, or are being sent: the server still holds an older version. */
  waiting(doc: SyncedDocument): boolean {
    const key = doc.uri.toString();
    return this.pending.has(key) || this.flushing.has(key);
  }

  /**
   * Sends `doc`'s waiting edits, or its whole text past MAX_HELD_EDITS, now (a command that reads
   * it: resolveProfile), after any send of it still in flight; resolves when they are sent. An edit
   * that comes meanwhile waits anew, behind them.
   */
  async flush(doc: SyncedDocument): Promise<void> {
    const key = doc.uri.toString();
    const waiting = this.pending.get(key);
    if (waiting === undefined) return this.sending.get(key);
    clearTimeout(waiting.timer);
    this.pending.delete(key);
    this.flushing.set(key, (this.flushing.get(key) ?? 0) + 1);
    const held = waiting.held;
    try {
      await this.chain(key, async () => {
        if (held.length <= MAX_HELD_EDITS) for (const send of held) await send();
        else await this.sendWhole(waiting.doc);
      });
    } finally {
      const n = (this.flushing.get(key) ?? 1) - 1;
      if (n > 0) this.flushing.set(key, n);
      else this.flushing.delete(key);
      waiting.resolve();
    }
    this.onSent?.(waiting.doc);
  }

  /** Runs `send` after the document's sends in flight; the chain's end is what settled() waits for. A failed send does not stop the ones behind it. */
  private chain(key: string, send: () => Promise<void>): Promise<void> {
    const before = this.sending.get(key);
    const done = (before === undefined ? send() : before.then(send));
    const last = done.catch(() => undefined);
    this.sending.set(key, last);
    void last.then(() => {
      if (this.sending.get(key) === last) this.sending.delete(key);
    });
    return done;
  }

  /** Drops `doc`'s waiting text (it closes: the server forgets it). */
  drop(doc: SyncedDocument): void {
    const key = doc.uri.toString();
    const waiting = this.pending.get(key);
    if (waiting === undefined) return;
    clearTimeout(waiting.timer);
    this.pending.delete(key);
    waiting.resolve();
  }

  /** Drops every waiting text and timer (the client stops). */
  dispose(): void {
    for (const w of this.pending.values()) {
      clearTimeout(w.timer);
      w.resolve();
    }
    this.pending.clear();
    this.onSent = null;
    this.onHeld = null;
  }
}
