/**
 * JSONL request traces for `attnscope simulate --trace FILE`: one JSON object per line,
 *   {"arrival_s": 0.25, "prompt_len": 812, "output_len": 128, "prefix_id": "sys-a", "prefix_len": 300}
 * prefix_id (string or integer) and prefix_len are optional (see TraceRequest); other keys are
 * ignored; blank lines are skipped. Lines need not be sorted by arrival_s.
 */
import { readFileSync } from 'node:fs';
import { findNodeAtLocation, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { InputError } from '../errors';
import type { TraceRequest } from './workload';

/**
 * A bad trace, an InputError (the CLI prints `format()` = `file:line:column: message`, 1-based,
 * and exits 2).
 */
export class TraceError extends InputError {
  constructor(file: string, line: number, column: number, message: string) {
    super(message, file, line, column);
    this.name = 'TraceError';
  }
}

/**
 * Parses trace text. `file` names it in errors.
 * @throws TraceError at the first bad line: JSON syntax, a non-object line, a missing or
 *   mistyped field (arrival_s finite >= 0; prompt_len, output_len integers >= 1; prefix_id a
 *   string or integer; prefix_len an integer >= 0), or a trace without requests.
 */
export function parseTrace(text: string, file: string): TraceRequest[] {
  const out: TraceRequest[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, '');
    if (line.trim() === '') continue;
    const fail = (offset: number, reason: string): never => {
      throw new TraceError(file, i + 1, offset + 1, reason);
    };
    const errors: ParseError[] = [];
    const root = parseTree(line, errors, { disallowComments: true, allowTrailingComma: false });
    if (errors.length > 0) fail(errors[0].offset, `invalid JSON: ${printParseErrorCode(errors[0].error)}`);
    if (!root || root.type !== 'object') fail(root?.offset ?? 0, 'each line must be a JSON object {"arrival_s", "prompt_len", "output_len"}');
    const field = (key: string): Node | undefined => findNodeAtLocation(root!, [key]);
    const number = (key: string, integer: boolean, min: number, required: boolean): number | undefined => {
      const node = field(key);
      if (!node) {
        if (required) fail(root!.offset, `missing "${key}"`);
        return undefined;
      }
      const v = node.value as unknown;
      if (typeof v !== 'number' || !Number.isFinite(v)) return fail(node.offset, `"${key}" must be a number, got ${JSON.stringify(v)}`);
      if (integer && !Number.isInteger(v)) return fail(node.offset, `"${key}" must be an integer, got ${v}`);
      if (v < min) return fail(node.offset, `"${key}" must be >= ${min}, got ${v}`);
      return v;
    };
    const r: TraceRequest = {
      arrivalS: number('arrival_s', false, 0, true)!,
      promptLen: number('prompt_len', true, 1, true)!,
      outputLen: number('output_len', true, 1, true)!,
    };
    const pid = field('prefix_id');
    if (pid && pid.value !== null) {
      const v = pid.value as unknown;
      if (typeof v !== 'string' && !(typeof v === 'number' && Number.isInteger(v))) fail(pid.offset, `"prefix_id" must be a string or an integer, got ${JSON.stringify(v)}`);
      r.prefixId = v as string | number;
    }
    const plen = number('prefix_len', true, 0, false);
    if (plen !== undefined) r.prefixLen = plen;
    out.push(r);
  }
  if (out.length === 0) throw new TraceError(file, 1, 1, 'the trace holds no requests (one JSON object per line expected)');
  return out;
}

/**
 * Reads a JSONL trace file.
 * @throws TraceError (`file:line:column: reason`) for an unreadable file or a bad line.
 */
export function readTrace(path: string): TraceRequest[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new TraceError(path, 1, 1, `cannot read the trace: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return parseTrace(text, path);
}
