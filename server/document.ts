/**
 * The language server's open documents: vscode-languageserver-textdocument's TextDocument, whose
 * edits do not copy the text. That library's update (1.0.16) reads characters around each edit
 * (its CR LF check, and offsetAt's ensureBeforeEOL) right after joining the text around it, and
 * V8 copies a joined string whole at its first character read: a keystroke in an 11 MB config.json
 * cost 60-85 ms of CPU before any analysis (s43 newcomer-ed M6). Here an edit splits a list of
 * pieces (slices of the text, which V8 makes without copying) and the line offsets; the text is
 * joined once when it is read, however many edits came since. Text holding a '\r' (CR LF or
 * old-Mac line ends) is left to the library's document, whose line rules it has.
 */
import { TextDocument as LibraryDocument, type Position, type Range, type TextDocumentContentChangeEvent, type TextDocument } from 'vscode-languageserver-textdocument';

/** More pieces than this are joined at the next edit (a long run of edits with no read between). */
const MAX_PIECES = 256;

/** Offsets of the starts of the lines after each '\n' of `text`, shifted by `at`. */
function lineStartsIn(text: string, at: number): number[] {
  const starts: number[] = [];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(at + i + 1);
  return starts;
}

export class OpenDocument implements TextDocument {
  /** The library's document, once the text holds a '\r'; then every call goes to it. */
  private library: TextDocument | null = null;
  /** The text is these joined. */
  private pieces: string[];
  private length: number;
  /** Offset of each line's first character (line 0 at 0): '\n' ends a line. */
  private lineOffsets: number[];

  private constructor(
    readonly uri: string,
    readonly languageId: string,
    private currentVersion: number,
    text: string,
  ) {
    this.pieces = [text];
    this.length = text.length;
    this.lineOffsets = [0, ...lineStartsIn(text, 0)];
    if (text.includes('\r')) this.library = LibraryDocument.create(uri, languageId, currentVersion, text);
  }

  /** TextDocuments' `create`. */
  static create(uri: string, languageId: string, version: number, text: string): OpenDocument {
    return new OpenDocument(uri, languageId, version, text);
  }

  /** TextDocuments' `update`: applies `changes` in order (ranges in the text each one leaves), at `version`. */
  static update(document: OpenDocument, changes: TextDocumentContentChangeEvent[], version: number): OpenDocument {
    document.update(changes, version);
    return document;
  }

  get version(): number {
    return this.library?.version ?? this.currentVersion;
  }

  get lineCount(): number {
    return this.library?.lineCount ?? this.lineOffsets.length;
  }

  getText(range?: Range): string {
    if (this.library) return this.library.getText(range);
    if (this.pieces.length !== 1) this.pieces = [this.pieces.join('')];
    const text = this.pieces[0]!;
    return range ? text.substring(this.offsetAt(range.start), this.offsetAt(range.end)) : text;
  }

  /** As the library's: `offset` clamped to the text, a '\n' the end of its line. */
  positionAt(offset: number): Position {
    if (this.library) return this.library.positionAt(offset);
    offset = Math.max(Math.min(offset, this.length), 0);
    const offsets = this.lineOffsets;
    let low = 0;
    let high = offsets.length;
    while (low < high) {
      const mid = Math.floor((low + high) / 2);
      if (offsets[mid]! > offset) high = mid;
      else low = mid + 1;
    }
    // Without '\r' no offset falls inside a line end: the library's ensureBeforeEOL moves none.
    return { line: low - 1, character: offset - offsets[low - 1]! };
  }

  /** As the library's: a line past the end is the text's end, a character past its line is the line's end (before its '\n'). */
  offsetAt(position: Position): number {
    if (this.library) return this.library.offsetAt(position);
    const offsets = this.lineOffsets;
    if (position.line >= offsets.length) return this.length;
    if (position.line < 0) return 0;
    const start = offsets[position.line]!;
    if (position.character <= 0) return start;
    const end = position.line + 1 < offsets.length ? offsets[position.line + 1]! - 1 : this.length;
    return Math.min(start + position.character, end);
  }

  /** As the library's: line `line`'s range without its '\n' (a line past the end: the last line's, before 0: empty at 0). */
  getLineRange(line: number): Range {
    if (this.library) return this.library.getLineRange(line);
    const offsets = this.lineOffsets;
    if (line >= offsets.length) {
      const last = offsets.length - 1;
      return { start: { line: last, character: 0 }, end: { line: last, character: this.length - offsets[last]! } };
    }
    if (line < 0) return { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    const end = line + 1 < offsets.length ? offsets[line + 1]! - 1 : this.length;
    return { start: { line, character: 0 }, end: { line, character: end - offsets[line]! } };
  }

  /** As the library's: the characters ending line `line` ('\n', or '' for the last line and a line out of range). */
  getEOLCharacters(line: number): string {
    if (this.library) return this.library.getEOLCharacters(line);
    return line >= 0 && line + 1 < this.lineOffsets.length ? '\n' : '';
  }

  private update(changes: TextDocumentContentChangeEvent[], version: number): void {
    for (const [i, change] of changes.entries()) {
      if (this.library || change.text.includes('\r')) {
        this.library ??= LibraryDocument.create(this.uri, this.languageId, this.currentVersion, this.getText());
        LibraryDocument.update(this.library, changes.slice(i), version);
        return;
      }
      if (!('range' in change)) {
        this.pieces = [change.text];
        this.length = change.text.length;
        this.lineOffsets = [0, ...lineStartsIn(change.text, 0)];
        continue;
      }
      const [a, b] = [this.offsetAt(change.range.start), this.offsetAt(change.range.end)];
      const [start, end] = a <= b ? [a, b] : [b, a];
      this.splice(start, end, change.text);
    }
    this.currentVersion = version;
  }

  /** Replaces [start, end) with `text`: the pieces and the line offsets, no copy of the rest. */
  private splice(start: number, end: number, text: string): void {
    const offsets = this.lineOffsets;
    const startLine = this.positionAt(start).line;
    const endLine = this.positionAt(end).line;
    const added = lineStartsIn(text, start);
    if (added.length < 10_000) offsets.splice(startLine + 1, endLine - startLine, ...added);
    else this.lineOffsets = [...offsets.slice(0, startLine + 1), ...added, ...offsets.slice(endLine + 1)];
    const diff = text.length - (end - start);
    if (diff !== 0) for (let i = startLine + 1 + added.length, n = this.lineOffsets.length; i < n; i++) this.lineOffsets[i]! += diff;

    const kept: string[] = [];
    let at = 0;
    let inserted = false;
    for (const piece of this.pieces) {
      const pieceEnd = at + piece.length;
      if (at < start) kept.push(pieceEnd <= start ? piece : piece.substring(0, start - at));
      if (!inserted && pieceEnd >= start) {
        kept.push(text);
        inserted = true;
      }
      if (pieceEnd > end) kept.push(at >= end ? piece : piece.substring(end - at));
      at = pieceEnd;
    }
    if (!inserted) kept.push(text);
    this.pieces = kept.filter((p) => p.length > 0);
    this.length += diff;
    if (this.pieces.length > MAX_PIECES) this.pieces = [this.pieces.join('')];
  }
}
