/**
 * Inlay hints while typing (s52 newcomer-ed 4: typing page_size 1 -> 12 -> 128 at 150 ms a key,
 * page_size 1's "453,809 tokens · 453,809 × 128 KiB" stood beside 12 and 128 for ~550 ms, unmarked,
 * then the right figure cut, "× 16 M…", then whole 300-500 ms later).
 *
 * VS Code draws a document's last hints, moved with the text, until its next request is answered
 * (so the figure of the value before stands beside the new one), and asks that request a while
 * after a key: its inlay-hint controller waits the running mean of the provider's last answer times
 * (ILanguageFeatureDebounceService, 25 ms to 625 ms). The first answer drawn within 800 ms of a key
 * is cut or padded, on the cursor's line, to the length of the hint drawn there before (so the
 * cursor does not jump: its _updateHintsDecorators' "fixed lengths"); any later answer is drawn
 * whole, and it asks again 800 ms after the last key. VS Code 1.100 (code-server 4.100.3),
 * src/vs/editor/contrib/inlayHints/browser/inlayHintsController.ts.
 *
 * So the client's middleware answers a request on a version newer than its last server answer at
 * once, from that answer: the hints of every line an edit since touched dropped (the edited line
 * shows no figure rather than the old value's), those below moved by the lines it added or removed.
 * Meanwhile it asks the server for this version; the answer, kept for the request it was asked for,
 * is handed to VS Code's next request, which `changed` asks for (the provider's
 * onDidChangeInlayHints). That draw is not VS Code's first after the key, so it is whole: each key
 * now shows no hint on its line, then its own figure, whole, one round trip later.
 *
 * A request on the version of the last answer is answered from it, without the server, until the
 * server says the document's hints changed with no edit of its own (`serverChanged`: its
 * attnscope/hintsChanged, a config.json the profile reads edited or changed on disk, the hints
 * setting). VS Code's onDidChangeInlayHints names no document, so each such change, and each
 * `changed` above, makes it ask again for every visible editor's hints: those the server did not
 * name are answered here as they were (s52: each key typed in a config re-asked the server for
 * every visible editor's hints).
 *
 * Pure (no vscode import): the extension (ctx.ts) passes how its hints and ranges are read.
 */

/** One edit as the hints see it: the lines it replaced (0-based, inclusive) and how many line breaks its new text has. */
export interface LineEdit {
  startLine: number;
  endLine: number;
  insertedLines: number;
}

/**
 * The hints of a version moved through `edits` (in the order they were made, each on the text the
 * ones before it left): a hint on a line an edit touched is dropped; one below it moves by the
 * line breaks the edit added less those it removed; one above it stays. `lineOf` reads a hint's
 * line, `moved` makes its copy on another line.
 */
export function hintsAfterEdits<H>(hints: readonly H[], edits: readonly LineEdit[], lineOf: (h: H) => number, moved: (h: H, line: number) => H): H[] {
  let out = [...hints];
  for (const e of edits) {
    const shift = e.insertedLines - (e.endLine - e.startLine);
    out = out.flatMap((h) => {
      const line = lineOf(h);
      if (line < e.startLine) return [h];
      if (line <= e.endLine) return [];
      return shift === 0 ? [h] : [moved(h, line + shift)];
    });
  }
  return out;
}

/** How the hints and ranges of the editor are read (vscode.InlayHint and vscode.Range in the extension). */
export interface TypingHintsShape<H, R> {
  lineOf(h: H): number;
  moved(h: H, line: number): H;
  /** Whether `outer` holds all of `inner`. */
  covers(outer: R, inner: R): boolean;
  /** Whether the hint lies in `range`. */
  inRange(h: H, range: R): boolean;
}

/** The most edits kept since a document's last answer; past them its next request is the server's alone. */
const MAX_EDITS_KEPT = 1000;

interface Answer<H, R> {
  version: number;
  range: R;
  hints: H[];
  /** The document's serverChanged count when the server was asked. */
  generation: number;
}

/** The middleware's state for each open document (by its URI string): its last server answer, the edits since, the answer waiting for VS Code's next request. */
export class TypingHints<H, R> {
  private readonly kept = new Map<string, Answer<H, R>>();
  private readonly waiting = new Map<string, Answer<H, R>>();
  private readonly edits = new Map<string, Array<{ version: number; edit: LineEdit }>>();
  private readonly versions = new Map<string, number>();
  /** How many times the server said the document's hints changed (serverChanged). */
  private readonly generations = new Map<string, number>();

  /** `changed(key)`: ask VS Code to request the document's hints again (the provider's onDidChangeInlayHints). */
  constructor(
    private readonly shape: TypingHintsShape<H, R>,
    private readonly changed: (key: string) => void,
  ) {}

  /** The document `key` is at `version` after `edits` (onDidChangeTextDocument). */
  edited(key: string, version: number, edits: readonly LineEdit[]): void {
    this.versions.set(key, version);
    const list = this.edits.get(key) ?? [];
    for (const edit of edits) list.push({ version, edit });
    this.edits.set(key, list);
    // Edits no answer came for (hints off, the server stopped): the next request goes to the server, as without this class.
    if (list.length > MAX_EDITS_KEPT) {
      this.kept.delete(key);
      this.edits.delete(key);
    }
  }

  /** The document closed: its state goes. */
  forget(key: string): void {
    this.kept.delete(key);
    this.waiting.delete(key);
    this.edits.delete(key);
    this.versions.delete(key);
    this.generations.delete(key);
  }

  /** The server says the hints of the documents `keys` changed with no edit of theirs: their next requests go to it. */
  serverChanged(keys: readonly string[]): void {
    for (const key of keys) this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
  }

  /**
   * The hints of `range` of the document `key` at `version`: the server's answer waiting for this
   * request; else the last answer when it is of this version, covers `range` and the server said
   * nothing changed since it was asked (serverChanged); else, when the last answer is of an older
   * version and covers `range`, that answer moved through the edits since (asking the server
   * meanwhile: `ask(true)`, a request VS Code's next one must not cancel); else the server's
   * (`ask(false)`).
   */
  async provide(key: string, version: number, range: R, ask: (background: boolean) => PromiseLike<H[] | null | undefined>): Promise<H[] | null | undefined> {
    this.versions.set(key, version);
    const generation = this.generations.get(key) ?? 0;
    const inRange = (hints: H[]) => hints.filter((h) => this.shape.inRange(h, range));
    const waiting = this.waiting.get(key);
    this.waiting.delete(key);
    if (waiting !== undefined && waiting.version === version && waiting.generation === generation && this.shape.covers(waiting.range, range)) return inRange(waiting.hints);
    const kept = this.kept.get(key);
    if (kept !== undefined && kept.version === version && kept.generation === generation && this.shape.covers(kept.range, range)) return inRange(kept.hints);
    if (kept === undefined || kept.version >= version || !this.shape.covers(kept.range, range)) {
      const hints = await ask(false);
      if (hints) this.keep(key, { version, range, hints, generation });
      return hints;
    }
    const since = (this.edits.get(key) ?? []).filter((e) => e.version > kept.version && e.version <= version).map((e) => e.edit);
    void Promise.resolve(ask(true)).then(
      (hints) => {
        if (!hints || !this.versions.has(key)) return;
        this.keep(key, { version, range, hints, generation });
        if (this.versions.get(key) !== version) return;
        this.waiting.set(key, { version, range, hints, generation });
        this.changed(key);
      },
      () => undefined,
    );
    return inRange(hintsAfterEdits(kept.hints, since, this.shape.lineOf, this.shape.moved));
  }

  private keep(key: string, answer: Answer<H, R>): void {
    const kept = this.kept.get(key);
    if (kept !== undefined && (kept.version > answer.version || (kept.version === answer.version && kept.generation > answer.generation))) return;
    this.kept.set(key, answer);
    this.edits.set(key, (this.edits.get(key) ?? []).filter((e) => e.version > answer.version));
  }
}
