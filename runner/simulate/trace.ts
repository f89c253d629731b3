/**
 * attnscope's own JSONL request traces (one of the formats traces.ts reads): one JSON object per line,
 *   {"arrival_s": 0.25, "prompt_len": 812, "output_len": 128, "prefix_id": "sys-a", "prefix_len": 300}
 * prefix_id (string or integer) and prefix_len are optional (see TraceRequest); other keys are
 * ignored with a warning; blank lines are skipped. Lines need not be sorted by arrival_s.
 */
import { closestMatch, getProperty, parseJsonTree, type ValueNode } from '../../core/config/index';
import { InputError } from '../errors';
import type { TraceRequest } from './workload';

/**
 * The largest token count a trace may carry: the simulator keeps lengths as int32, as vLLM
 * does (and as the profile schema bounds max_model_len). Larger values are refused at their
 * line before any work, not wrapped.
 */
export const MAX_TRACE_TOKENS = 2 ** 31 - 1;

/** The keys of a trace line. */
export const TRACE_KEYS = ['arrival_s', 'prompt_len', 'output_len', 'prefix_id', 'prefix_len'] as const;

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
 * One line of an attnscope JSONL trace (1-based `lineNo` in `file`), or null for a blank line.
 * @param unknown keys already warned about (each unknown key is warned about once, at its first line).
 * @throws TraceError at a bad line: JSON syntax, a non-object line, a missing or mistyped field
 *   (arrival_s finite >= 0; prompt_len, output_len integers >= 1; prefix_id a string or integer;
 *   prefix_len an integer >= 0).
 */
export function parseTraceLine(text: string, file: string, lineNo: number, unknown: Set<string>, warnings: string[]): TraceRequest | null {
  const line = text.replace(/\r$/, '');
  if (line.trim() === '') return null;
  const fail = (offset: number, reason: string): never => {
    throw new TraceError(file, lineNo, offset + 1, reason);
  };
  const { root, problems } = parseJsonTree(line);
  if (problems.length > 0) fail(problems[0].range.offset, problems[0].message);
  if (!root || root.type !== 'object') fail(root?.range.offset ?? 0, 'each line must be a JSON object {"arrival_s", "prompt_len", "output_len"}');
  const obj = root as ValueNode;
  for (const prop of obj.properties ?? []) {
    if ((TRACE_KEYS as readonly string[]).includes(prop.key) || unknown.has(prop.key)) continue;
    unknown.add(prop.key);
    const suggestion = closestMatch(prop.key, TRACE_KEYS);
    warnings.push(
      `${file}:${lineNo}:${prop.keyRange.offset + 1}: warning: unknown key "${prop.key}" ignored${suggestion ? `: did you mean "${suggestion}"?` : ` (a trace line has ${TRACE_KEYS.join(', ')})`}`,
    );
  }
  const field = (key: string): ValueNode | undefined => getProperty(obj, key)?.value;
  const number = (key: string, integer: boolean, min: number, required: boolean): number | undefined => {
    const node = field(key);
    if (!node) {
      if (required) fail(obj.range.offset, `missing "${key}"`);
      return undefined;
    }
    const v = node.value as unknown;
    if (typeof v !== 'number' || !Number.isFinite(v)) return fail(node.range.offset, `"${key}" must be a number, got ${node.type === 'object' || node.type === 'array' ? `an ${node.type}` : JSON.stringify(v)}`);
    if (integer && !Number.isInteger(v)) return fail(node.range.offset, `"${key}" must be an integer, got ${v}`);
    if (v < min) return fail(node.range.offset, `"${key}" must be >= ${min}, got ${v}`);
    if (integer && v > MAX_TRACE_TOKENS) return fail(node.range.offset, `"${key}" must be <= ${MAX_TRACE_TOKENS}, got ${v}`);
    return v;
  };
  const r: TraceRequest = {
    arrivalS: number('arrival_s', false, 0, true)!,
    promptLen: number('prompt_len', true, 1, true)!,
    outputLen: number('output_len', true, 1, true)!,
  };
  const pid = field('prefix_id');
  if (pid && pid.type !== 'null') {
    const v = pid.value as unknown;
    if (typeof v !== 'string' && !(typeof v === 'number' && Number.isInteger(v))) fail(pid.range.offset, `"prefix_id" must be a string or an integer, got ${pid.type === 'object' || pid.type === 'array' ? `an ${pid.type}` : JSON.stringify(v)}`);
    r.prefixId = v as string | number;
  }
  const plen = number('prefix_len', true, 0, false);
  if (plen !== undefined) r.prefixLen = plen;
  return r;
}

/**
 * Parses JSONL trace text. `file` names it in errors and warnings.
 * @param warnings receives `file:line:column: warning: …` for the first line with each unknown
 *   key (it is ignored).
 * @throws TraceError at the first bad line ({@link parseTraceLine}), or for a trace without requests.
 */
export function parseTrace(text: string, file: string, warnings: string[] = []): TraceRequest[] {
  const out: TraceRequest[] = [];
  const unknown = new Set<string>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const r = parseTraceLine(lines[i], file, i + 1, unknown, warnings);
    if (r) out.push(r);
  }
  if (out.length === 0) throw new TraceError(file, 1, 1, 'the trace holds no requests (one JSON object per line expected)');
  return out;
}
