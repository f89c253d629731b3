/**
 * Problems -> LSP diagnostics. A problem of this document maps its offsets straight to
 * positions. A problem that lies in another file (the config.json a profile points at) is shown
 * on the profile's `model` value, prefixed with `file:line:col`, with related information that
 * jumps to the exact place in that file.
 */
import {
  DiagnosticSeverity,
  type ClientCapabilities,
  type Diagnostic,
  type DiagnosticRelatedInformation,
  type Range,
} from 'vscode-languageserver';
import { offsetToLineColumn, type Problem, type Severity, type SourceRange } from '../core/config';
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

/** Position in another file's text, as LSP counts (0-based line, UTF-16 character). */
function foreignRange(text: string, r: SourceRange): Range {
  const start = offsetToLineColumn(text, r.offset);
  const end = offsetToLineColumn(text, r.offset + r.length);
  return { start: { line: start.line - 1, character: start.column - 1 }, end: { line: end.line - 1, character: end.column - 1 } };
}

/** True when the problem lies in this document rather than in a file it read. */
export function isLocal(a: Analysis, p: Problem): boolean {
  return p.file === undefined || p.file === a.path;
}

/** Where a foreign problem is shown in the document: the `model` value, else the start. */
function anchorOfForeign(a: Analysis): SourceRange {
  return a.profile?.ranges['model'] ?? a.tree?.properties?.find((p) => p.key === 'model')?.value.range ?? { offset: 0, length: 0 };
}

export function toDiagnostic(a: Analysis, p: Problem, capabilities: ClientCapabilities): Diagnostic {
  const base = { severity: SEVERITY[p.severity], code: p.code, source: DIAGNOSTIC_SOURCE, data: p.data };
  if (isLocal(a, p)) return { ...base, range: toRange(a, p.range), message: p.message };
  const file = p.file!;
  const text = a.readTexts.get(file);
  const where = text === undefined ? null : foreignRange(text, p.range);
  const prefix = where === null ? file : `${file}:${where.start.line + 1}:${where.start.character + 1}`;
  const related: DiagnosticRelatedInformation[] | undefined =
    where !== null && capabilities.textDocument?.publishDiagnostics?.relatedInformation
      ? [{ location: { uri: pathToUri(file), range: where }, message: p.message }]
      : undefined;
  return { ...base, range: toRange(a, anchorOfForeign(a)), message: `${prefix}: ${p.message}`, relatedInformation: related };
}

/** All diagnostics of the analysed document. */
export function toDiagnostics(a: Analysis, capabilities: ClientCapabilities): Diagnostic[] {
  return a.problems.map((p) => toDiagnostic(a, p, capabilities));
}
