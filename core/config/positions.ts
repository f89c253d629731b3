/** Offsets to human positions, for CLI messages (`file:line:col: message`). */
import type { Problem } from './types';

/**
 * 1-based line and column of a UTF-16 offset (what the parsers and LSP count). Lines end at
 * \n, \r\n or a lone \r; an offset past the end clamps to the end of the text.
 */
export function offsetToLineColumn(text: string, offset: number): { line: number; column: number } {
  const end = Math.max(0, Math.min(offset, text.length));
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/** A control character (C0, DEL, C1) or a Unicode line or paragraph separator: what would break a one-line message. */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * `file:line:col`, the place every one-line CLI message starts with (compilers' format, which
 * terminals and editors make clickable). A file name holding a control character (a newline, an
 * escape) is written as a JSON string, quoted and escaped, so the message stays one line and shows
 * the name as it is (s40 newcomer 15: `nl\nname.attn.yaml` split the error over two lines).
 */
export function fileLocation(file: string, line: number, column: number): string {
  return `${CONTROL.test(file) ? quoted(file) : file}:${line}:${column}`;
}

/** `s` in double quotes, `"` and `\` escaped, control characters as JSON writes them (\n, \u001b), U+2028/9 too (JSON.stringify leaves those). */
function quoted(s: string): string {
  const named: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
  return `"${s.replace(/["\\]/g, '\\$&').replace(new RegExp(CONTROL.source, 'g'), (c) => named[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}

/**
 * One line, `file:line:col: severity: message [code]`, in the format compilers use so that
 * terminals and editors make it clickable. `file` / `text` are the file that was read; a
 * problem whose `file` names another file (the config.json a profile points at) is positioned
 * in that file's text, read through `host` (without a host, or when it cannot be read, the
 * position is 1:1).
 */
export function formatProblem(
  file: string,
  text: string,
  problem: Problem,
  host?: { readFile(absPath: string): string | null },
): string {
  let source: string | null = text;
  if (problem.file !== undefined && problem.file !== file) source = host?.readFile(problem.file) ?? null;
  const { line, column } = source === null ? { line: 1, column: 1 } : offsetToLineColumn(source, problem.range.offset);
  return `${fileLocation(problem.file ?? file, line, column)}: ${problem.severity}: ${problem.message} [${problem.code}]`;
}
