/**
 * The server's view of the workspace: open documents (incremental sync), one cached Analysis per
 * document (its latest analysed version) with its inlay hints, and which files each analysis
 * read, so that a profile is re-checked when the config.json it points at changes on disk or in
 * an open editor. A version with an error keeps the previous version's hints that still hold
 * (hints.ts carryHints): the cache is what remembers them. For files that are not open it keeps
 * the pick's cannotRun answers, by the stamps of the files each read (closedFileReasons).
 */
import { statSync } from 'node:fs';
import { sep } from 'node:path';
import { fileStamp, readInputText, traceFileStat, type NotRead } from '../core/fileText';
import type { TextDocuments } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ParsedTree, Problem } from '../core/config';
import type { PickJob } from '../core/validate';
import { analyze, checkedProblems, type Analysis, type FileHost } from './analysis';
import { carryHints, documentHints, type AnchoredHint } from './hints';
import { uriToPath } from './paths';
import type { ErrorLog } from './safe';
import type { TraceCheck, TraceSettings, TraceState } from './traceCheck';

/** A document's latest analysed version. */
interface Cached {
  analysis: Analysis;
  /** The previous version's hints that still hold (carryHints), when this version has an error. */
  carried: AnchoredHint[];
  /** documentHints of this version, computed on the first request. */
  hints?: AnchoredHint[];
  /**
   * The stamp (Workspace.stampOf) of each file this analysis and its sweep's checks read, taken
   * before the read: what the pick's answer is kept by when the document closes (Workspace.closed).
   */
  stamps: Map<string, string>;
}

export class Workspace {
  private readonly cache = new Map<string, Cached>();
  /**
   * Documents whose cached analysis read a file that changed since. They are analysed again on
   * the next request, with the cached analysis as the previous version, so that their hints can
   * stay while that file is mid-edit.
   */
  private readonly outdated = new Set<string>();
  /** Absolute path of a file read by an analysis -> URIs of the documents whose analysis read it. */
  private readonly dependents = new Map<string, Set<string>>();
  /** Open documents by absolute path (their unsaved text wins over the disk). */
  private readonly openByPath = new Map<string, string>();
  /** Which opening of the server's (1, 2, ...) each open document is: its versions count again from each opening. */
  private readonly openings = new Map<string, number>();
  private opens = 0;
  /**
   * Texts read from disk by absolute path, with the stat they were read at (least recently used
   * first): a profile's analysis on each keystroke reads its config.json, and reading it again
   * was most of a keystroke's cost with a big one (s39: a 4-line profile pointing at an 11 MB
   * config.json, 132 ms a keystroke against 6.5 ms at a 1 KB one). A file is read again when the
   * watcher says it changed (fileChanged) or its stat differs (a file outside the watched folders).
   */
  private readonly diskTexts = new Map<string, { text: string; stamp: string }>();

  /**
   * Profiles' workload.trace files by absolute path: the stat their check was started at and its
   * answer (null while the runner reads it). A new stat starts a new check; a keystroke in the
   * profile costs a stat (traceState), never a read of the trace.
   */
  private readonly traces = new Map<string, { path: string; stamp: string; answer: TraceCheck | null; stop: AbortController }>();

  /**
   * Why a command cannot run each file that is not open (core/validate.ts cannotRun, every
   * PickJob), by URI, least recently used first, with the stamp of every file its analysis read
   * (the file itself, its config.json, a sweep point's): see closedFileReasons.
   */
  private readonly closedReasons = new Map<string, { stamps: Map<string, string>; reasons: PickReasons }>();

  /**
   * How many closed files closedFileReasons analysed (it had no answer, or a file read for it
   * changed): a pick of files it answered before analyses none (test/lsp/internals.test.ts,
   * scripts/bench-lsp.ts --pick-only).
   */
  closedAnalyses = 0;

  /** Called with every file an analysis read (server.ts watches them when the client does not). */
  onRead: ((absPath: string) => void) | null = null;

  /**
   * Why a command cannot run the file of `analysis` (server/resolve.ts analysisReasons; `host` reads
   * what its sweep's checks still need): set by server.ts (resolve.ts imports this module, so this
   * one cannot import it). With it, a document's analysis is handed to closedFileReasons when it
   * closes; null: a closed document is analysed again on the pick's first ask.
   */
  reasonsOfAnalysis: ((analysis: Analysis, host: FileHost) => PickReasons) | null = null;

  /** Reads a trace file off the server's thread (server/traceCheck.ts checkTrace); null: traces are not checked. */
  traceChecker: ((absPath: string, settings: TraceSettings, signal: AbortSignal) => Promise<TraceCheck>) | null = null;

  /** Called with the documents whose trace's check just answered (server.ts re-checks them). */
  onTraceChecked: ((uris: string[]) => void) | null = null;

  constructor(
    private readonly documents: TextDocuments<TextDocument>,
    private readonly log: ErrorLog,
  ) {}

  /** Records an opened document so that other documents' reads see its unsaved text. */
  opened(uri: string): void {
    const path = uriToPath(uri);
    if (path === null) return;
    this.openByPath.set(path, uri);
    this.openings.set(path, ++this.opens);
  }

  /**
   * Forgets a closed document and its cached analysis, handing the pick's answer from that
   * analysis to closedFileReasons when it holds for the file on disk (keepClosedAnswer); returns
   * the documents that read it.
   */
  closed(uri: string): string[] {
    const entry = this.outdated.has(uri) ? undefined : this.cache.get(uri);
    this.cache.delete(uri);
    this.outdated.delete(uri);
    for (const set of this.dependents.values()) set.delete(uri);
    // A trace no open document reads any more: its check (a child reading it) is stopped, its answer forgotten.
    for (const [trace, entry] of this.traces) {
      if ((this.dependents.get(entry.path)?.size ?? 0) > 0) continue;
      entry.stop.abort();
      this.traces.delete(trace);
    }
    const path = uriToPath(uri);
    if (path === null) return [];
    this.openByPath.delete(path);
    this.openings.delete(path);
    if (entry !== undefined) this.keepClosedAnswer(uri, path, entry);
    return this.fileChanged(path);
  }

  /**
   * Keeps the pick's answer (reasonsOfAnalysis) from the analysis of a document just closed, as
   * closedFileReasons would keep its own, when the file on disk holds the text that analysis is
   * of (not when it closed with unsaved edits, or past a version not yet analysed): by the stamps
   * the analysis took before each read (Cached.stamps; a file changed since then, its watcher
   * event still on its way, has another stamp now) and the file's own, taken before it is read
   * here. s49: the analysis was dropped at close and the next pick analysed the file again.
   */
  private keepClosedAnswer(uri: string, path: string, entry: Cached): void {
    if (this.reasonsOfAnalysis === null || entry.analysis.kind === 'other') return;
    const stamps = new Map(entry.stamps);
    stamps.set(path, this.stampOf(path));
    if (readInputText(path, new Map()) !== entry.analysis.document.getText()) return;
    const reasons = this.reasonsOfAnalysis(entry.analysis, this.stampingHost(stamps, this.closedHost()));
    this.keepReasons(uri, stamps, reasons);
  }

  /**
   * A file changed (an open document's text, or a file on disk), or a folder was created, deleted
   * or renamed (`path` is then the folder: every file read under it counts as changed): marks the
   * cached analyses that read it outdated and returns their URIs, so the caller re-validates them.
   */
  fileChanged(path: string): string[] {
    const uris = new Set(this.dependents.get(path) ?? []);
    const folder = path.endsWith(sep) ? path : path + sep;
    this.diskTexts.delete(path);
    for (const read of this.diskTexts.keys()) if (read.startsWith(folder)) this.diskTexts.delete(read);
    for (const [read, set] of this.dependents) if (read.startsWith(folder)) for (const uri of set) uris.add(uri);
    for (const uri of uris) this.outdated.add(uri);
    return [...uris];
  }

  /** The analysis of the open document `uri` at its current version; null when it is not open. */
  analysis(uri: string): Analysis | null {
    return this.current(uri)?.analysis ?? null;
  }

  /**
   * Every problem of the open document `uri` at its current version, its sweep's points checked
   * (analysis.ts checkedProblems, once per version; the files they read become dependencies like
   * the analysis's own); null when it is not open.
   */
  problems(uri: string): { analysis: Analysis; problems: Problem[] } | null {
    const entry = this.current(uri);
    if (entry === null) return null;
    const a = entry.analysis;
    const unchecked = a.sweepChecked === null;
    const before = a.reads.length;
    const problems = checkedProblems(a, this.stampingHost(entry.stamps, this.fileHost()));
    if (unchecked) this.record(uri, a.reads.slice(before), a.sweepChecked!);
    return { analysis: a, problems };
  }

  /** The inlay hints of the open document `uri` at its current version (hints.ts documentHints); null when it is not open. */
  hints(uri: string): { analysis: Analysis; hints: AnchoredHint[] } | null {
    const entry = this.current(uri);
    if (entry === null) return null;
    entry.hints ??= documentHints(entry.analysis, entry.carried);
    return { analysis: entry.analysis, hints: entry.hints };
  }

  private current(uri: string): Cached | null {
    const doc = this.documents.get(uri);
    if (doc === undefined) return null;
    const cached = this.cache.get(uri);
    if (cached !== undefined && cached.analysis.version === doc.version && !this.outdated.has(uri)) return cached;
    const previous = cached?.analysis;
    const stamps = new Map<string, string>();
    const result = analyze(doc, this.stampingHost(stamps, this.fileHost()), previous);
    this.outdated.delete(uri);
    const carried = result.profile === null && previous !== undefined && previous.file === result.file
      ? carryHints(previous, cached!.hints ?? documentHints(previous, cached!.carried), result)
      : [];
    const entry: Cached = { analysis: result, carried, stamps };
    this.cache.set(uri, entry);
    this.record(uri, result.reads, result.problems);
    return entry;
  }

  /** Records files an analysis of `uri` read (it depends on them) and logs the internal errors among its problems. */
  private record(uri: string, reads: readonly string[], problems: readonly Problem[]): void {
    for (const p of problems) if (p.code === 'internal-error') this.log.error(`${uri} v${this.documents.get(uri)?.version}: ${p.message}`);
    for (const path of reads) {
      this.onRead?.(path);
      let set = this.dependents.get(path);
      if (set === undefined) this.dependents.set(path, (set = new Set()));
      set.add(uri);
    }
  }

  /** True when `uri` is open in the client (its text is the document's, not the disk's). */
  isOpen(uri: string): boolean {
    return this.documents.get(uri) !== undefined;
  }

  /**
   * `answer`'s reasons for `uri`, a file that is not open, kept while nothing it read changed:
   * `answer` reads through the host it is given (the file, its config.json, its sweep points'
   * files), and each path's stamp is taken as it reads it (an open document's version, else the
   * stat diskText keys a text on: device, inode, size, times; a missing file's "none"). The kept
   * reasons stand while every stamp is the same, so a pick of files answered before (by an earlier
   * pick, by the background pass, server/pickPrefill.ts, or by the file's own analysis while it was
   * open, handed over at its close: keepClosedAnswer) costs a stat per file read, not a parse;
   * a file edited, replaced, deleted or created where a read found none, or an open document
   * read for it edited or closed, is analysed again. The host starts no trace check: cannotRun
   * does not read one (a profile that reads is answered by its workload and pool alone).
   * Keeps CLOSED_REASONS_KEPT files; a `uri` that names no file (untitled:) is not kept.
   */
  closedFileReasons(uri: string, answer: (host: FileHost) => PickReasons): PickReasons {
    const path = uriToPath(uri);
    const kept = this.closedReasons.get(uri);
    if (kept !== undefined) {
      this.closedReasons.delete(uri);
      if (this.stampsHold(kept.stamps)) {
        this.closedReasons.set(uri, kept);
        return kept.reasons;
      }
    }
    this.closedAnalyses++;
    const stamps = new Map<string, string>();
    const reasons = answer(this.stampingHost(stamps, this.closedHost()));
    if (path !== null) {
      if (!stamps.has(path)) stamps.set(path, this.stampOf(path));
      this.keepReasons(uri, stamps, reasons);
    }
    return reasons;
  }

  /** Keeps `reasons` for the closed file `uri` by `stamps` (closedFileReasons), the least recently used dropped past CLOSED_REASONS_KEPT. */
  private keepReasons(uri: string, stamps: Map<string, string>, reasons: PickReasons): void {
    this.closedReasons.delete(uri);
    if (this.closedReasons.size >= CLOSED_REASONS_KEPT) this.closedReasons.delete(this.closedReasons.keys().next().value!);
    this.closedReasons.set(uri, { stamps, reasons });
  }

  /** fileHost less its trace checks: a closed file's pick answer reads no trace (cannotRun does not), so it starts no runner child. */
  private closedHost(): FileHost {
    const { readFile, whyNotRead, parsedJson } = this.fileHost();
    return { readFile, whyNotRead, parsedJson };
  }

  /**
   * `host`, recording in `stamps` the stamp (stampOf) of each file it reads, taken before its
   * first read: a change during the read gives another stamp next time, so it is read again.
   */
  private stampingHost(stamps: Map<string, string>, host: FileHost): FileHost {
    return {
      ...host,
      readFile: (absPath) => {
        if (!stamps.has(absPath)) stamps.set(absPath, this.stampOf(absPath));
        return host.readFile(absPath);
      },
    };
  }

  /** Whether every file of `stamps` still has its stamp (stampOf); stops at the first that changed (its answer is made again anyway). */
  private stampsHold(stamps: ReadonlyMap<string, string>): boolean {
    for (const [read, stamp] of stamps) if (this.stampOf(read) !== stamp) return false;
    return true;
  }

  /** What closedFileReasons compares: an open document's opening and version, else the file's stat (fileStamp), "none" when there is none. */
  private stampOf(absPath: string): string {
    const uri = this.openByPath.get(absPath);
    const doc = uri === undefined ? undefined : this.documents.get(uri);
    if (doc !== undefined) return `open ${this.openings.get(absPath)} v${doc.version}`;
    try {
      return fileStamp(statSync(absPath));
    } catch {
      return 'none';
    }
  }

  /** Reads other files: an open document's current text first, else the disk; null when unreadable. */
  fileHost(): FileHost {
    const refused = new Map<string, NotRead>();
    return {
      readFile: (absPath: string): string | null => {
        const uri = this.openByPath.get(absPath);
        if (uri !== undefined) {
          const doc = this.documents.get(uri);
          if (doc !== undefined) return doc.getText();
        }
        return this.diskText(absPath, refused);
      },
      whyNotRead: (absPath: string) => refused.get(absPath),
      trace: (absPath: string, settings: TraceSettings) => this.traceState(absPath, settings),
      // An open config.json's parse, from its own analysis of this text (reused around each edit
      // there; the config's diagnostics run before those of the profiles it changed, scheduled
      // after it): a profile reading it parses no copy of an 11 MB config per keystroke in it.
      // (Core's readModelConfigTree sets `file` on the parse's problems: to this path, which they hold already.)
      parsedJson: (absPath: string, text: string): ParsedTree | undefined => {
        const uri = this.openByPath.get(absPath);
        const a = uri === undefined ? undefined : this.cache.get(uri)?.analysis;
        return a !== undefined && a.text === text && a.kind === 'config' && a.syntax === 'json' ? a.parsed : undefined;
      },
    };
  }

  /**
   * Where the trace file at `absPath` stands: a stat, and the check's answer for that stat; a
   * stat not seen before starts the check (traceChecker), whose answer marks the documents that
   * read the trace outdated and hands them to onTraceChecked. A new stat stops the check of the
   * previous one (its child killed: its answer would be dropped), as closing the last document
   * that reads the trace does (closed).
   */
  private traceState(absPath: string, settings: TraceSettings): TraceState {
    const st = traceFileStat(absPath);
    // One check per file and settings (two profiles may read one trace in other units).
    const id = Object.keys(settings).length > 0 ? `${absPath}\n${JSON.stringify(settings)}` : absPath;
    const kept = this.traces.get(id);
    if ('problem' in st) {
      kept?.stop.abort();
      this.traces.delete(id);
      return st;
    }
    if (kept !== undefined && kept.stamp === st.stamp) return kept.answer ?? { pending: true };
    kept?.stop.abort();
    if (this.traceChecker === null) return { pending: true };
    const entry = { path: absPath, stamp: st.stamp, answer: null as TraceCheck | null, stop: new AbortController() };
    this.traces.set(id, entry);
    void this.traceChecker(absPath, settings, entry.stop.signal).then((answer) => {
      if (this.traces.get(id) !== entry) return; // a newer version of the file is being read
      entry.answer = answer;
      if ('failed' in answer) this.log.error(`Could not check the trace ${absPath}: ${answer.failed}`);
      const uris = [...(this.dependents.get(absPath) ?? [])];
      for (const uri of uris) this.outdated.add(uri);
      this.onTraceChecked?.(uris);
    });
    return { pending: true };
  }

  /**
   * The text of a file on disk (readInputText: never a FIFO, whose read would block the server
   * for ever, nor a file past MAX_INPUT_TEXT_BYTES), the same string as last time while its stat
   * (device, inode, size, modification and change times) is unchanged and no watcher event named it.
   */
  private diskText(absPath: string, refused: Map<string, NotRead>): string | null {
    let stamp: string | null = null;
    try {
      const st = statSync(absPath);
      if (st.isFile()) stamp = fileStamp(st);
    } catch {
      // Missing or unreadable: readInputText says so (null).
    }
    const kept = this.diskTexts.get(absPath);
    this.diskTexts.delete(absPath);
    if (kept !== undefined && stamp !== null && kept.stamp === stamp) {
      this.diskTexts.set(absPath, kept);
      return kept.text;
    }
    const text = readInputText(absPath, refused);
    if (text !== null && stamp !== null) {
      if (this.diskTexts.size >= DISK_TEXTS_KEPT) this.diskTexts.delete(this.diskTexts.keys().next().value!);
      this.diskTexts.set(absPath, { text, stamp });
    }
    return text;
  }
}

/**
 * How many closed files' cannotRun reasons Workspace keeps: as many as a pick lists (extension/pick.ts
 * PICK_FILE_LIMIT; an entry is a few hundred bytes: the stamps and four reasons, no parse).
 */
const CLOSED_REASONS_KEPT = 5000;

/** Why a command of each PickJob cannot run a file (core/validate.ts cannotRun; null: it runs). */
export type PickReasons = Record<PickJob, string | null>;

/** How many files' texts Workspace keeps (the configs a sweep over `model` reads, a few profiles' points). */
const DISK_TEXTS_KEPT = 16;
