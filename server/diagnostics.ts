/**
 * Problems -> LSP diagnostics. A problem of this document maps its offsets straight to
 * positions. A problem that lies in another file (the config.json a profile points at) is shown
 * on the profile's `model` value, prefixed with that file's path relative to the profile, with
 * related information that jumps to the exact place in that file and quotes its line (not the
 * message again: editors show both), while clients without related information get
 * `file:line:col` in the message instead.
 */
import {
  DiagnosticSeverity,
  type ClientCapabilities,
  type Diagnostic,
  type DiagnosticRelatedInformation,
  type Range,
} from 'vscode-languageserver';
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, relative as relativePath, sep } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Problem, Severity, SourceRange } from '../core/config';
import { poolCause, summarisedElsewhere } from '../core/validate';
import type { Analysis } from './analysis';
import { pathToUri } from './paths';

/** Diagnostic source shown by editors. */
export const DIAGNOSTIC_SOURCE = 'attnscope';

const SEVERITY: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
};

/** LSP range of a source range of the analysed document. */
export function toRange(a: Analysis, r: SourceRange): Range {
  return { start: a.document.positionAt(r.offset), end: a.document.positionAt(r.offset + r.length) };
}

/** Range in a file the analysis read, as LSP counts (0-based line, UTF-16 character). */
export function foreignRange(a: Analysis, file: string, r: SourceRange): Range | null {
  const doc = readDocument(a, file);
  return doc === null ? null : { start: doc.positionAt(r.offset), end: doc.positionAt(r.offset + r.length) };
}

const readDocuments = new WeakMap<Analysis, Map<string, TextDocument>>();

/** A read file as a TextDocument (line offsets computed once per analysis). */
export function readDocument(a: Analysis, file: string): TextDocument | null {
  let docs = readDocuments.get(a);
  if (docs === undefined) readDocuments.set(a, (docs = new Map()));
  let doc = docs.get(file);
  if (doc === undefined) {
    const text = a.readTexts.get(file);
    if (text === undefined) return null;
    doc = TextDocument.create(pathToUri(file), 'json', 0, text);
    docs.set(file, doc);
  }
  return doc;
}

/** True when the problem lies in this document rather than in a file it read. */
export function isLocal(a: Analysis, p: Problem): boolean {
  return p.file === undefined || p.file === a.file;
}

/** Where a foreign problem is shown in the document: the `model` value, else the start. */
function anchorOfForeign(a: Analysis): SourceRange {
  return a.profile?.ranges['model'] ?? a.tree?.properties?.find((p) => p.key === 'model')?.value.range ?? { offset: 0, length: 0 };
}

/**
 * A problem's key within its document version: code, file and source range. Sent in the
 * diagnostic's `data.key` and read back by code actions, because clients hand diagnostics back
 * in their own columns (Neovim 0.7 in UTF-8 bytes where LSP counts UTF-16), so an exact range
 * cannot identify the problem.
 */
export function problemKey(p: Problem): string {
  return `${p.code}@${p.file ?? ''}:${p.range.offset}+${p.range.length}`;
}

/** Longest quoted source line in a related information's message, characters. */
const QUOTE_MAX = 80;

/** Line `line` of `doc`, trimmed (and cut with "…" past QUOTE_MAX characters): what a related information points at. */
function quotedLine(doc: TextDocument, line: number): string {
  const text = doc.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } }).trim();
  return text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX - 1)}…` : text;
}

export function toDiagnostic(a: Analysis, p: Problem, capabilities: ClientCapabilities): Diagnostic {
  const base = { severity: SEVERITY[p.severity], code: p.code, source: DIAGNOSTIC_SOURCE, data: { ...p.data, key: problemKey(p) } };
  if (isLocal(a, p)) return { ...base, range: toRange(a, p.range), message: p.message };
  const file = p.file!;
  const where = foreignRange(a, file, p.range);
  // The file as the profile names it (relative to the profile's folder), not the absolute path.
  const relative = relativePath(dirname(a.file), file);
  const name = relative !== '' && !isAbsolute(relative) ? relative.split(sep).join('/') : file;
  // The related information points at the place and quotes its line: the message is the
  // diagnostic's own, and an editor shows both (VS Code's hover printed each MLA note twice).
  const related: DiagnosticRelatedInformation[] | undefined =
    where !== null && capabilities.textDocument?.publishDiagnostics?.relatedInformation
      ? [{ location: { uri: pathToUri(file), range: where }, message: quotedLine(readDocument(a, file)!, where.start.line) }]
      : undefined;
  // The related information already shows the line and column (and jumps there); without it the message says them.
  const prefix = related !== undefined || where === null ? name : `${name}:${where.start.line + 1}:${where.start.character + 1}`;
  return { ...base, range: toRange(a, anchorOfForeign(a)), message: `${prefix}: ${p.message}`, relatedInformation: related };
}

/**
 * True when this machine may have an NVIDIA GPU: the driver's /proc entry or device node exists
 * (the server loads no native code, so it does not ask CUDA). Read once.
 */
let nvidiaPresent: boolean | undefined;
export function mayHaveNvidiaGpu(): boolean {
  nvidiaPresent ??= existsSync('/proc/driver/nvidia/version') || existsSync('/dev/nvidiactl') || process.platform === 'win32';
  return nvidiaPresent;
}

/**
 * Whether problem `p` is worth showing here: the info that a case would run on the CPU rather
 * than CUDA ('head-dim-unsupported' as info, under device.backend auto) applies only on a machine
 * that has a GPU; without one every case runs on the CPU anyway, and it was noise on most configs.
 */
export function applies(p: Problem): boolean {
  return !(p.severity === 'info' && p.code === 'head-dim-unsupported' && !mayHaveNvidiaGpu());
}

/**
 * The diagnostics of `problems` (the analysed document's: analysis.ts checkedProblems) that apply on
 * this machine, less those another says in full (core/validate.ts summarisedElsewhere, poolCause).
 */
export function toDiagnostics(a: Analysis, problems: readonly Problem[], capabilities: ClientCapabilities): Diagnostic[] {
  return problems.filter((p, _, all) => applies(p) && !summarisedElsewhere(p, all) && poolCause(p, all) === undefined).map((p) => toDiagnostic(a, p, capabilities));
}
