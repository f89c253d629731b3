/**
 * One positioned value tree for JSON (jsonc-parser) and YAML (yaml) sources, so that the
 * model and profile readers, the schema error mapping and the language server walk the same
 * shape whatever the file's syntax. Offsets are UTF-16 code units, as both parsers count.
 */
import * as jsonc from 'jsonc-parser';
import * as YAML from 'yaml';
import type { Problem, SourceRange } from './types';
import { formatCountOf } from '../format';

export type ValueNodeType = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

/** One member of an object node: the key as written, where the key sits, and its value. */
export interface PropertyNode {
  key: string;
  keyRange: SourceRange;
  value: ValueNode;
}

/** A value with its source range. Objects keep member order; a key written twice keeps both. */
export interface ValueNode {
  type: ValueNodeType;
  range: SourceRange;
  /** Scalars: the value (string, number, boolean, null). Containers: undefined. */
  value?: string | number | boolean | null;
  properties?: PropertyNode[];
  items?: ValueNode[];
  /**
   * Numbers written as an integer literal beyond ±Number.MAX_SAFE_INTEGER (2^53 − 1): the digits
   * as written, since `value` holds them rounded to the nearest float64 (12345678901234567890
   * reads as 12345678901234567000). Readers refuse such a value ({@link unsafeIntegerText}).
   */
  written?: string;
  /**
   * Numbers that read as ±Infinity or NaN (`1e400`, YAML's `.inf` / `.nan`): the text as written,
   * which a message quotes ("not 1e400", s53 nc-cli 20), since `value` no longer says it.
   */
  nonFiniteText?: string;
  /**
   * Numbers whose value is an integer but that are written as a float literal (`8.0`, `1e3`):
   * Python's json and PyYAML read them as a float, which an integer field (a head count, a
   * size) is not in transformers' or vLLM's arithmetic. Readers of integer fields warn.
   */
  floatLiteral?: true;
}

/** Number.MAX_SAFE_INTEGER as messages write it. */
const MAX_SAFE_TEXT = '9,007,199,254,740,991';

/** The source text of a number as ValueNode.written keeps it, when it is an integer literal beyond ±Number.MAX_SAFE_INTEGER. */
function unsafeIntegerLiteral(source: string, value: number): string | undefined {
  return !Number.isSafeInteger(value) && Number.isInteger(value) && /^[-+]?\d+$/.test(source.trim()) ? source.trim() : undefined;
}

/**
 * The number node of `value` written as `source` at `range`: `written` for an integer literal
 * beyond ±Number.MAX_SAFE_INTEGER, `floatLiteral` for an integer value written with a fraction or
 * an exponent (not a YAML hex or octal integer). The one maker of number nodes (JSON, YAML, the
 * language server's reuse of a parse).
 */
function numberNode(range: SourceRange, value: number, source: string): ValueNode {
  const node: ValueNode = { type: 'number', range, value };
  const written = unsafeIntegerLiteral(source, value);
  if (written !== undefined) node.written = written;
  else if (!Number.isFinite(value)) node.nonFiniteText = source.trim();
  else if (Number.isInteger(value) && /[.eE]/.test(source) && !/^[-+]?0[xXoO]/.test(source.trim())) node.floatLiteral = true;
  return node;
}

/** A number literal both JSON and YAML 1.2 (core schema) read, to the same value: `-?` digits, optional fraction and exponent. */
const NUMBER_LITERAL = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * The number node a JSON or YAML parse makes of text[offset, offset + length) (value, range, and
 * `written` for an integer beyond ±Number.MAX_SAFE_INTEGER), when that text is a number literal
 * both syntaxes read alike (NUMBER_LITERAL) to a finite value; null for anything else. For code
 * that rebuilds part of a tree without the parser (the language server's reuse of a parse).
 */
export function numberLiteralNode(text: string, offset: number, length: number): ValueNode | null {
  const source = text.slice(offset, offset + length);
  if (!NUMBER_LITERAL.test(source)) return null;
  const value = Number(source);
  if (!Number.isFinite(value)) return null;
  return numberNode({ offset, length }, value, source);
}

/**
 * Why `node` cannot be read as an integer when it was written as one beyond
 * ±Number.MAX_SAFE_INTEGER (a float64 holds every integer only up to 2^53 − 1; past it the value
 * would be silently rounded), with `what` naming it; null for any other node.
 */
export function unsafeIntegerText(what: string, node: ValueNode): string | null {
  if (node.written === undefined) return null;
  return `${what} is ${node.written}, beyond 2^53 − 1 (${MAX_SAFE_TEXT}): a JavaScript number cannot hold it exactly (it would be read as ${node.value})`;
}

/** The result of parsing: the root node (null when nothing usable parsed) and syntax problems. */
export interface ParsedTree {
  root: ValueNode | null;
  problems: Problem[];
}

/** Last member named `key` (JSON.parse semantics: the last duplicate wins). */
export function getProperty(node: ValueNode | null | undefined, key: string): PropertyNode | undefined {
  if (!node || node.type !== 'object' || !node.properties) return undefined;
  for (let i = node.properties.length - 1; i >= 0; i--) {
    if (node.properties[i]!.key === key) return node.properties[i];
  }
  return undefined;
}

/** The node at a JSON-pointer-like path of keys and indices, or undefined. */
export function nodeAtPath(root: ValueNode | null, path: ReadonlyArray<string | number>): ValueNode | undefined {
  let node: ValueNode | undefined = root ?? undefined;
  for (const seg of path) {
    if (!node) return undefined;
    if (node.type === 'array' && node.items) node = node.items[Number(seg)];
    else node = getProperty(node, String(seg))?.value;
  }
  return node;
}

/** The plain JavaScript value of a node (what JSON.parse would give). */
export function toPlain(node: ValueNode): unknown {
  switch (node.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const p of node.properties ?? []) out[p.key] = toPlain(p.value);
      return out;
    }
    case 'array':
      return (node.items ?? []).map(toPlain);
    default:
      return node.value;
  }
}

const JSON_ERROR_TEXT: Record<string, string> = {
  // Parser jargon in words a user acts on (s52 newcomer: "stdin is not JSON: invalid symbol").
  InvalidSymbol: 'unquoted text or a character JSON does not allow',
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'property name expected',
  ValueExpected: 'value expected',
  ColonExpected: "':' expected",
  CommaExpected: "',' expected",
  CloseBraceExpected: "'}' expected",
  CloseBracketExpected: "']' expected",
  EndOfFileExpected: 'end of file expected',
  InvalidCommentToken: 'comments are not allowed in JSON',
  UnexpectedEndOfComment: 'unterminated comment',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'unterminated number',
  InvalidUnicode: 'invalid unicode escape',
  InvalidEscapeCharacter: 'invalid escape character',
  InvalidCharacter: 'invalid character in string',
};

/** A jsonc-parser error code in words ("',' expected"), for `file:line:col: ...` messages. */
export function jsonErrorText(code: jsonc.ParseErrorCode): string {
  const name = jsonc.printParseErrorCode(code);
  return JSON_ERROR_TEXT[name] ?? name;
}

/** A short form of a scalar for messages ("8192", "\"bf16\""); containers give "". */
function shown(node: ValueNode): string {
  return node.type === 'object' || node.type === 'array' ? '' : ` (${JSON.stringify(node.value)})`;
}

/**
 * Members a nested object or array holds before its members are left unread until asked for:
 * a classifier config's id2label / label2id maps (tens of thousands of labels) or a long unknown
 * list, none of which the model reader looks at. The root's members are always read.
 */
export const EAGER_MEMBERS = 1024;

/** What parseJsonTree did, for tests that hold its work linear: value nodes it made (members of deferred containers made on first read count too). */
export interface TreeStats {
  nodes: number;
}

/** A container being read: its members so far, and the member whose key came last. */
interface OpenContainer {
  type: 'object' | 'array';
  offset: number;
  properties: PropertyNode[];
  items: ValueNode[];
  seen: Set<string> | null;
  /** The property whose key was read and whose value is pending (jsonc-parser's 'property' node). */
  key: { key: string; keyRange: SourceRange; value: ValueNode | null } | null;
  /** Members past EAGER_MEMBERS: the rest is skipped and read again on first access. */
  deferred: boolean;
}

/**
 * Builds the ValueNode tree of `text` (the JSON of text[base...], offsets shifted by `base`) in
 * one jsonc-parser visit, with the recovery jsonc-parser's parseTree makes: a key without a value
 * gets a null value at the end of the property. Errors and keys written twice go to `problems`
 * (null: not reported, the text was checked before). A nested container that passes
 * EAGER_MEMBERS members stops being read there: its node gets `properties` / `items` as a getter
 * that reads its text on first access (so a reader sees the same tree), and keys written twice
 * inside it are not reported.
 */
function buildJsonTree(
  text: string,
  base: number,
  allowComments: boolean,
  problems: Problem[] | null,
  stats: TreeStats | undefined,
  keep: readonly KeptNode[] = [],
): { root: ValueNode | null; placed: number } {
  // With nodes kept, the text visited has each kept node's text as an empty `{}` / `[]`; `at`
  // maps an offset in it back to `text` (base is then 0).
  const { visited, at } = keep.length === 0 ? { visited: text, at: (o: number) => base + o } : standIns(text, keep);
  const keptAt = new Map(keep.map((k) => [k.range.offset, k]));
  let placed = 0;
  const stack: OpenContainer[] = [];
  let result: ValueNode | null = null;
  /** Where the NaN / Infinity word of the last error ends (-1: the last error was none). */
  let wordEnd = -1;
  /** Depth inside a deferred container (0: reading members). */
  let skip = 0;
  const made = (): void => {
    if (stats) stats.nodes++;
  };
  /** Ends the pending property of the top container at `end` (jsonc-parser's ensurePropertyComplete). */
  const completeProperty = (end: number): void => {
    const top = stack[stack.length - 1];
    if (!top || top.type !== 'object' || top.key === null) return;
    const { key, keyRange } = top.key;
    let value = top.key.value;
    if (value === null) {
      made();
      value = { type: 'null', value: null, range: { offset: end, length: 0 } };
    }
    top.key = null;
    if (top.seen !== null) {
      if (top.seen.has(key)) {
        problems?.push({
          severity: 'warning',
          code: 'duplicate-key',
          message: `${key} is given twice; the last one${shown(value)} is used, as Python's json does`,
          range: keyRange,
        });
      }
      top.seen.add(key);
    }
    top.properties.push({ key, keyRange, value });
    deferIfLong(top);
  };
  const deferIfLong = (top: OpenContainer): void => {
    if (stack.length > 1 && top.properties.length + top.items.length > EAGER_MEMBERS) {
      top.deferred = true;
      top.properties = [];
      top.items = [];
      top.seen = null;
      skip = 1;
    }
  };
  /** A finished value: the pending property's value, an array item, or the root. */
  const place = (value: ValueNode): void => {
    const top = stack[stack.length - 1];
    if (!top) result ??= value;
    else if (top.type === 'object') {
      if (top.key !== null) top.key.value = value;
    } else {
      top.items.push(value);
      deferIfLong(top);
    }
  };
  const begin = (type: 'object' | 'array', offset: number): void => {
    if (skip > 0) {
      skip++;
      return;
    }
    stack.push({ type, offset: at(offset), properties: [], items: [], seen: type === 'object' ? new Set() : null, key: null, deferred: false });
  };
  const end = (offset: number, length: number): void => {
    if (skip > 1) {
      skip--;
      return;
    }
    skip = 0;
    const endOffset = at(offset) + length;
    completeProperty(endOffset);
    const open = stack.pop()!;
    const range = { offset: open.offset, length: endOffset - open.offset };
    made();
    const kept = keptAt.get(open.offset);
    const standIn = kept !== undefined && kept.range.length === range.length && kept.node.type === open.type && open.properties.length + open.items.length === 0;
    if (standIn) placed++;
    const node: ValueNode = standIn
      ? kept.node
      : open.deferred
        ? deferredNode(open.type, range, text, base, allowComments, stats)
        : open.type === 'object'
          ? { type: 'object', range, properties: open.properties }
          : { type: 'array', range, items: open.items };
    place(node);
    completeProperty(endOffset);
  };
  jsonc.visit(
    visited,
    {
      onObjectBegin: (offset) => begin('object', offset),
      onObjectEnd: end,
      onArrayBegin: (offset) => begin('array', offset),
      onArrayEnd: end,
      onObjectProperty: (key, offset, length) => {
        if (skip > 0) return;
        const top = stack[stack.length - 1]!;
        top.key = { key, keyRange: { offset: at(offset), length }, value: null };
      },
      onLiteralValue: (value: unknown, offset, length) => {
        if (skip > 0) return;
        made();
        const range = { offset: at(offset), length };
        let node: ValueNode;
        if (typeof value === 'number') node = numberNode(range, value, visited.slice(offset, offset + length));
        else if (typeof value === 'string') node = { type: 'string', range, value };
        else if (typeof value === 'boolean') node = { type: 'boolean', range, value };
        else node = { type: 'null', range, value: null };
        place(node);
        completeProperty(at(offset) + length);
      },
      onSeparator: (sep, offset) => {
        if (skip > 0 || sep !== ',') return;
        completeProperty(at(offset));
      },
      onError: (error, offset, length) => {
        // jsonc-parser reports a bare NaN / -Infinity as one to three errors (the '-', the word, then
        // "value expected" after it): the first says what it is, the others are left out.
        if (offset < wordEnd || (jsonc.printParseErrorCode(error) === 'ValueExpected' && wordEnd >= 0 && visited.slice(wordEnd, offset).trim() === '')) {
          if (offset >= wordEnd) wordEnd = -1;
          return;
        }
        const word = nonJsonNumber(visited, offset);
        wordEnd = word === undefined ? -1 : offset + word.length;
        problems?.push({ severity: 'error', code: 'json-syntax', message: `JSON syntax error: ${jsonSyntaxText(visited, error, offset)}`, range: { offset: at(offset), length } });
      },
    },
    { disallowComments: !allowComments, allowTrailingComma: false, allowEmptyContent: false },
  );
  return { root: result, placed };
}

/**
 * A node of an earlier parse put back, unread, where its text still stands (parseJsonTreeKeeping):
 * `range` is where it is in the text now.
 */
export interface KeptNode {
  range: SourceRange;
  node: ValueNode;
}

/**
 * `text` with each kept node's text written as an empty container of its kind (`{}` or `[]`), and
 * the map from an offset in that text back to `text`'s (a stand-in's closing bracket maps to the
 * kept text's last character, so the stand-in's node spans the kept range).
 */
function standIns(text: string, keep: readonly KeptNode[]): { visited: string; at: (offset: number) => number } {
  const parts: string[] = [];
  /** From visited offset starts[i] on (a stand-in's closing bracket and after), offsets move by shifts[i]. */
  const starts: number[] = [];
  const shifts: number[] = [];
  let from = 0;
  let length = 0;
  let shift = 0;
  for (const k of keep) {
    parts.push(text.slice(from, k.range.offset), k.node.type === 'object' ? '{}' : '[]');
    length += k.range.offset - from;
    starts.push(length + 1);
    shift += k.range.length - 2;
    shifts.push(shift);
    length += 2;
    from = k.range.offset + k.range.length;
  }
  parts.push(text.slice(from));
  const at = (offset: number): number => {
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? offset : offset + shifts[lo - 1]!;
  };
  return { visited: parts.join(''), at };
}

/**
 * A container left unread (buildJsonTree): `properties` or `items` is a getter that reads the
 * container's own text once, on first access, and then stays a plain value.
 */
function deferredNode(type: 'object' | 'array', range: SourceRange, text: string, base: number, allowComments: boolean, stats: TreeStats | undefined): ValueNode {
  const node: ValueNode = { type, range };
  const field = type === 'object' ? 'properties' : 'items';
  unread.set(node, allowComments);
  Object.defineProperty(node, field, {
    configurable: true,
    enumerable: true,
    get() {
      unread.delete(node);
      const from = range.offset - base;
      const inner = buildJsonTree(text.slice(from, from + range.length), range.offset, allowComments, null, stats).root;
      const members = (type === 'object' ? inner?.properties : inner?.items) ?? [];
      Object.defineProperty(node, field, { value: members, writable: true, enumerable: true, configurable: true });
      return members;
    },
  });
  return node;
}

/** Containers left unread (deferredNode) whose members nobody has asked for yet, with their allowComments. */
const unread = new WeakMap<ValueNode, boolean>();

/**
 * Whether `node` is a container whose members were never read (reading `properties` / `items`
 * reads them), for code that searches trees and would rather not read them.
 */
export function isUnread(node: ValueNode): boolean {
  return unread.has(node);
}

/**
 * For code that copies trees (the language server's reuse of a parse after an edit): an unread
 * container moved to `range` of `text` (its text unchanged, its offset moved by an edit before
 * it), still unread; null when `node` is not one (copy it as usual: spreading an unread one reads it).
 */
export function moveUnread(node: ValueNode, range: SourceRange, text: string): ValueNode | null {
  const allowComments = unread.get(node);
  if (allowComments === undefined || (node.type !== 'object' && node.type !== 'array')) return null;
  return deferredNode(node.type, range, text, 0, allowComments, undefined);
}

/**
 * Deepest nesting of objects and arrays read. Python's json (what transformers loads
 * config.json with) stops at its recursion limit, 1,000 by default; jsonc-parser recurses
 * without a limit and overflows the stack near 10,000 levels.
 */
export const MAX_NESTING = 1000;

/**
 * The bracket where nesting passes MAX_NESTING, or null. Counts the opening brackets first
 * (indexOf, which skips the text between them far faster than a loop over its characters: an
 * 11 MB config.json of labels holds a few); only past MAX_NESTING of them scans tokens (no recursion).
 */
function tooDeep(text: string): SourceRange | null {
  let brackets = 0;
  for (const bracket of ['{', '[']) {
    for (let i = text.indexOf(bracket); i >= 0 && brackets <= MAX_NESTING; i = text.indexOf(bracket, i + 1)) brackets++;
  }
  if (brackets <= MAX_NESTING) return null;
  // jsonc-parser's SyntaxKind, a const enum (not importable under isolatedModules):
  // 1 `{`, 2 `}`, 3 `[`, 4 `]`, 17 end of file.
  const scanner = jsonc.createScanner(text, true);
  let depth = 0;
  for (let t = scanner.scan(); t !== 17; t = scanner.scan()) {
    if (t === 1 || t === 3) {
      if (++depth > MAX_NESTING) return { offset: scanner.getTokenOffset(), length: 1 };
    } else if ((t === 2 || t === 4) && depth > 0) depth--;
  }
  return null;
}

/** The error a text nested past MAX_NESTING parses to. */
function nestingError(at: SourceRange): ParsedTree {
  return {
    root: null,
    problems: [{ severity: 'error', code: 'json-nesting', message: `JSON nested more than ${MAX_NESTING.toLocaleString('en-US')} levels deep (Python's json stops there too)`, range: at }],
  };
}

/** `text` with a UTF-8 byte-order mark made a space (offsets unchanged), and the warning that says so; `text` as it is without one. */
function withoutBom(text: string, problems: Problem[]): string {
  if (text.charCodeAt(0) !== 0xfeff) return text;
  problems.push({
    severity: 'warning',
    code: 'json-bom',
    message: 'the file starts with a UTF-8 byte-order mark: read past here, but Python\'s json.loads (transformers\' loader) refuses it ("Unexpected UTF-8 BOM"): save the file without it',
    range: { offset: 0, length: 1 },
  });
  return ' ' + text.slice(1);
}

/**
 * Parses JSON (strict: comments and trailing commas are syntax errors, as in HF's loader;
 * pass `allowComments` for .jsonc-style profiles). Never throws; jsonc-parser recovers, so a
 * partial tree usually comes back alongside the errors. Nesting deeper than MAX_NESTING is an
 * error at the bracket that passes it (null root). Warnings: a UTF-8 byte-order mark (read past,
 * offsets unchanged), a key written twice in one object (at the second; the last one wins).
 */
export function parseJsonTree(text: string, opts: { allowComments?: boolean; stats?: TreeStats } = {}): ParsedTree {
  const deep = tooDeep(text);
  if (deep) return nestingError(deep);
  const problems: Problem[] = [];
  const body = withoutBom(text, problems);
  // An empty file (or only white space) has no value: no root and no syntax error, so the reader
  // says it is empty and what to write, as for an empty YAML profile (s47 newcomer LOW-7: "value expected").
  if (body.trim() === '') return { root: null, problems };
  const root = buildJsonTree(body, 0, opts.allowComments === true, problems, opts.stats).root;
  return { root, problems };
}

/**
 * parseJsonTree (strict JSON) of `text` with the containers of an earlier parse put back unread
 * where their text still stands (the language server after an edit elsewhere in a big
 * config.json: its id2label / label2id maps, text an edit left untouched): each kept range is
 * read as an empty `{}` / `[]` (a 3 MB map's 60,000 labels are not scanned again) and its node
 * put in that place. The caller vouches that each range's text is the kept node's and parsed
 * without problems before. Null (parse it all) when a kept range was not read as a value there
 * (the edit changed what it is: an unclosed string or bracket before it), or when a problem
 * touches one (its message or range could be the stand-in's). Kept ranges must be sorted and
 * apart. Equal to parseJsonTree (tree, problems; keys written twice inside a kept container are
 * not reported, as in an unread one): test/lsp/incremental.test.ts.
 */
export function parseJsonTreeKeeping(text: string, keep: readonly KeptNode[]): ParsedTree | null {
  const deep = tooDeep(text);
  if (deep) return nestingError(deep);
  const problems: Problem[] = [];
  const { root, placed } = buildJsonTree(withoutBom(text, problems), 0, false, problems, undefined, keep);
  const touches = (r: SourceRange): boolean => keep.some((k) => r.offset <= k.range.offset + k.range.length && r.offset + r.length >= k.range.offset);
  if (placed !== keep.length || problems.some((p) => touches(p.range))) return null;
  return { root, problems };
}

/** The word Python's json.dump writes for a float NaN or infinity (`NaN`, `Infinity`, `-Infinity`) at text[offset], which JSON has not; undefined for anything else. */
function nonJsonNumber(text: string, offset: number): string | undefined {
  return /^-?(?:NaN|Infinity)\b/.exec(text.slice(offset, offset + 10))?.[0];
}

/**
 * A jsonc-parser syntax error at text[offset] in words, the one wording of every JSON reader
 * (config.json, profiles, traces): a bare NaN or Infinity, which Python's json.dump writes for a
 * float and JSON has not, is named as such ("NaN is not a JSON number (...): write a number");
 * anything else as jsonErrorText.
 */
export function jsonSyntaxText(text: string, error: jsonc.ParseErrorCode, offset: number): string {
  const word = nonJsonNumber(text, offset);
  if (word !== undefined) return `${word} is not a JSON number (Python's json.dump writes it for a float ${word === 'NaN' ? 'NaN' : 'infinity'}): write a number`;
  // {"a":1,} or [1,]: jsonc-parser says "property name expected" / "value expected" at the bracket.
  const name = jsonc.printParseErrorCode(error);
  const close = text[offset];
  if ((name === 'PropertyNameExpected' || name === 'ValueExpected') && (close === '}' || close === ']') && text.slice(0, offset).trimEnd().endsWith(',')) {
    return `a trailing comma before "${close}": JSON allows none, remove the ","`;
  }
  return jsonErrorText(error);
}

/**
 * Where `text`, which does not parse as strict JSON, stops unfinished: the offset of its end
 * (trailing white space left out) when the text is a prefix of valid JSON (empty; its first syntax
 * error where the text runs out; or a string, number or true/false/null the end cuts off:
 * `{"a": tru`), else null (its first error is a mistake elsewhere: `garbage`, `{"a": 1,}`). The one
 * test of "cut short" of every reader of a JSON file (a sweep's point files, the profile, config.json
 * or saved run a command names, a vllm bench serve result): such a file was cut by an interrupted
 * copy or a full disk, and is to be copied again, not edited.
 */
export function jsonCutShortAt(text: string): number | null {
  const errors: jsonc.ParseError[] = [];
  jsonc.parse(text, errors, { disallowComments: true, allowTrailingComma: false });
  const end = text.trimEnd().length;
  const first = errors[0];
  if (end === 0) return 0;
  if (!first) return null;
  if (first.offset >= end) return end;
  if (first.offset + first.length < end) return null;
  const code = jsonc.printParseErrorCode(first.error);
  if (code === 'UnexpectedEndOfString' || code === 'UnexpectedEndOfNumber') return end;
  const symbol = text.slice(first.offset, end);
  return code === 'InvalidSymbol' && ['true', 'false', 'null'].some((literal) => literal.length > symbol.length && literal.startsWith(symbol)) ? end : null;
}

/**
 * The words for a JSON file {@link jsonCutShortAt} found cut short, of `bytes` bytes ("the JSON
 * stops unfinished at the end of the file (5,000 bytes): it looks cut short, by an interrupted copy
 * or a full disk"); each reader adds what to do.
 */
export function jsonCutShortText(bytes: number): string {
  return `the JSON stops unfinished at the end of the file (${formatCountOf(bytes, 'byte')}): it looks cut short, by an interrupted copy or a full disk`;
}

function yamlRange(node: { range?: YAML.Range | null | undefined }, fallback: number): SourceRange {
  const r = node.range;
  if (!r) return { offset: fallback, length: 0 };
  return { offset: r[0], length: Math.max(0, r[1] - r[0]) };
}

/**
 * Most nodes that aliases may expand to in one YAML document. A profile is a few hundred
 * nodes; nine aliases of nine aliases eight deep ("billion laughs") would be 43 million,
 * which hangs the CLI and the language server. The yaml library bounds its own toJS the
 * same way (its maxAliasCount option).
 */
export const MAX_ALIAS_NODES = 10_000;

/** A refusal found while converting a YAML document: where, and what to say. */
class YamlRefusal extends Error {
  constructor(
    message: string,
    readonly range: SourceRange,
  ) {
    super(message);
  }
}

/** Whether a mapping's key is a merge key: a plain `<<`, which yaml's `merge: true` reads as Symbol('<<') (a quoted "<<" stays a string key). */
function isMergeKey(key: unknown): boolean {
  return YAML.isScalar(key) && typeof key.value === 'symbol' && key.value.description === '<<';
}

/** A mapping key as the tree holds it: a scalar's value as a string. */
function keyText(key: unknown): string {
  return YAML.isScalar(key) ? String(key.value) : String(key);
}

const FLOAT_TAG = 'tag:yaml.org,2002:float';
const BOOL_TAG = 'tag:yaml.org,2002:bool';
const STR_TAG = 'tag:yaml.org,2002:str';
const YAML11_BOOLS: Record<string, boolean> = { yes: true, no: false, on: true, off: false, true: true, false: false, y: true, n: false };

/**
 * The value of a `!!float` scalar as PyYAML's construct_yaml_float reads it: underscores dropped,
 * .inf / .nan, otherwise Python's float() of the text (`4`, `1_000.5`, `1e3`); undefined for
 * anything else (left a string, with a warning).
 */
function yamlFloat(text: string): number | undefined {
  const t = text.trim().replace(/_/g, '').toLowerCase();
  if (/^[-+]?\.inf$/.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (t === '.nan') return NaN;
  return /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/.test(t) ? Number(t) : undefined;
}

/**
 * Converts a composed yaml document to a ValueNode tree, expanding aliases and merge keys
 * (`<<: *a`, `<<: [*a, *b]`, as PyYAML, which vLLM's --config reads with, and YAML 1.1's merge
 * type: a key written in the mapping wins over a merged one, an earlier mapping of a list over a
 * later one, a later `<<` over an earlier one). A merged member keeps the ranges where it is
 * written (in the anchored mapping), so a problem of its key or value lands there. A merge of
 * anything but mappings is an error in `problems`, at that value. Throws YamlRefusal when an alias
 * refers to a node that contains it (the tree would be infinite) or when aliases expand to more
 * than MAX_ALIAS_NODES nodes.
 */
function yamlToTree(doc: YAML.Document, contents: unknown, text: string, problems: Problem[]): ValueNode {
  /** Containers being converted now (the ancestors of the current node, aliases followed). */
  const open = new Set<unknown>();
  const targets = new Map<YAML.Alias, unknown>();
  let aliasDepth = 0;
  let aliasNodes = 0;
  let outerAlias: SourceRange | null = null;

  const convert = (node: unknown, fallback: number): ValueNode => {
    if (aliasDepth > 0 && ++aliasNodes > MAX_ALIAS_NODES) {
      throw new YamlRefusal(
        `YAML aliases expand to more than ${MAX_ALIAS_NODES.toLocaleString('en-US')} nodes; write the values out instead of aliasing aliases`,
        outerAlias!,
      );
    }
    if (YAML.isAlias(node)) {
      const range = yamlRange(node, fallback);
      let target = targets.get(node);
      if (target === undefined) {
        target = node.resolve(doc) ?? null;
        targets.set(node, target);
      }
      if (open.has(target)) {
        throw new YamlRefusal(`the alias *${node.source} refers to the node that contains it; the value would be infinite`, range);
      }
      if (aliasDepth === 0) outerAlias = range;
      aliasDepth++;
      const resolved = convert(target, fallback);
      aliasDepth--;
      return { ...resolved, range };
    }
    if (YAML.isMap(node)) {
      open.add(node);
      const properties: PropertyNode[] = [];
      const range = yamlRange(node, fallback);
      const explicit = new Set(node.items.filter((pair) => !isMergeKey(pair.key)).map((pair) => keyText(pair.key)));
      /** Merged members by key: the first set wins, the `<<` keys read last to first (PyYAML's order). */
      const merged = new Map<string, PropertyNode>();
      for (let i = node.items.length - 1; i >= 0; i--) {
        const pair = node.items[i]!;
        if (!isMergeKey(pair.key)) continue;
        const keyRange = yamlRange(pair.key as YAML.Node, range.offset);
        const value = pair.value == null ? null : convert(pair.value, keyRange.offset + keyRange.length);
        const sources = value?.type === 'array' ? value.items! : [value];
        for (const source of sources) {
          if (source?.type !== 'object') {
            problems.push({
              severity: 'error',
              code: 'yaml-merge',
              message: 'a merge key (<<) takes a mapping or a list of mappings (<<: *name, or <<: [*a, *b]), as PyYAML: nothing is merged from here',
              range: source?.range ?? value?.range ?? keyRange,
            });
            continue;
          }
          for (const p of source.properties ?? []) if (!explicit.has(p.key) && !merged.has(p.key)) merged.set(p.key, p);
        }
      }
      let mergedPlaced = false;
      for (const pair of node.items) {
        const keyNode = pair.key;
        if (isMergeKey(keyNode)) {
          // The merged members in place of the first `<<`, with the ranges where they are written.
          if (!mergedPlaced) properties.push(...merged.values());
          mergedPlaced = true;
          continue;
        }
        const key = keyText(keyNode);
        const keyRange = YAML.isNode(keyNode) ? yamlRange(keyNode, range.offset) : { offset: range.offset, length: 0 };
        const valueFallback = keyRange.offset + keyRange.length;
        const value: ValueNode =
          pair.value == null
            ? { type: 'null', value: null, range: { offset: valueFallback, length: 0 } }
            : convert(pair.value, valueFallback);
        properties.push({ key, keyRange, value });
      }
      open.delete(node);
      return { type: 'object', range, properties };
    }
    if (YAML.isSeq(node)) {
      open.add(node);
      const range = yamlRange(node, fallback);
      const items = node.items.map((item) => convert(item, range.offset));
      open.delete(node);
      return { type: 'array', range, items };
    }
    if (YAML.isScalar(node)) {
      const range = yamlRange(node, fallback);
      const v = node.value;
      if (v === null || v === undefined) return { type: 'null', range, value: null };
      const source = text.slice(range.offset, range.offset + range.length);
      if (node.tag === FLOAT_TAG) {
        // !!float: a float, as PyYAML constructs it (float('16') = 16.0), which yaml's core schema
        // leaves a string unless the text has a fraction or exponent. An integer value is then
        // one written as a float (floatLiteral), as `16.0` is.
        const f = typeof v === 'number' ? v : yamlFloat(String(v));
        if (f !== undefined) {
          const n = numberNode(range, f, source);
          if (Number.isInteger(f) && n.written === undefined) n.floatLiteral = true;
          return n;
        }
      }
      if (typeof v === 'number' || typeof v === 'bigint') return numberNode(range, Number(v), source);
      if (typeof v === 'boolean') return { type: 'boolean', range, value: v };
      if (node.tag === BOOL_TAG) {
        // !!bool: YAML 1.1's (PyYAML's) words, yes / no / on / off too.
        const b = YAML11_BOOLS[String(v).toLowerCase()];
        if (b !== undefined) return { type: 'boolean', range, value: b };
      }
      // Any other tag (`!gib 4`, `!!float x`): yaml leaves the text a string, PyYAML raises.
      if (node.tag !== undefined && node.tag !== STR_TAG) {
        problems.push({
          severity: 'error',
          code: 'yaml-unknown-tag',
          message: `${node.tag.replace(/^tag:yaml\.org,2002:/, '!!')} ${String(v)}: a tag this reader cannot make a value of (PyYAML, which vLLM reads its --config with, refuses it too); remove the tag`,
          range,
        });
      }
      return { type: 'string', range, value: String(v) };
    }
    return { type: 'null', range: { offset: fallback, length: 0 }, value: null };
  };
  return convert(contents, 0);
}

/**
 * `text` with each lone \r (old Mac OS line ends) made a \n: YAML 1.2 counts a lone carriage return as a line break
 * (spec 1.2.2 §5.4, b-break), the yaml library does not (it read a CR-only profile as one line: "Nested mappings are
 * not allowed in compact mappings"). One character for one, so every offset stays the source's; \r\n is kept.
 */
export function lineFeeds(text: string): string {
  return text.includes('\r') ? text.replace(/\r(?!\n)/g, '\n') : text;
}

/**
 * Parses YAML 1.2 (core schema: `yes` stays a string, `0x10` is a number) with YAML 1.1's merge
 * keys (`<<: *a`, which PyYAML honours: yamlToTree). Syntax errors and
 * a second document become problems; duplicate keys are errors, as yaml reports them. Aliases
 * and merge keys are expanded; one that refers to the node containing it, or aliases expanding to more than
 * MAX_ALIAS_NODES nodes, give an error at the alias and a null root (nothing else is read).
 */
export function parseYamlTree(source: string): ParsedTree {
  const problems: Problem[] = [];
  const text = lineFeeds(source);
  const docs = YAML.parseAllDocuments(text, { prettyErrors: false, uniqueKeys: true, merge: true });
  const list = Array.isArray(docs) ? docs : [];
  const doc = list[0];
  problems.push(...yamlSyntaxProblems(text, list.flatMap((d) => d.errors), list));
  if (list.length > 1) {
    const second = list[1]!;
    const start = second.range?.[0] ?? text.length;
    problems.push({
      severity: 'warning',
      code: 'yaml-multiple-documents',
      message: 'only the first YAML document is read; remove the `---` and what follows, or move it to its own file',
      range: { offset: start, length: text.startsWith('---', start) ? 3 : 0 },
    });
  }
  if (!doc || doc.contents == null) return { root: null, problems };
  try {
    return { root: yamlToTree(doc, doc.contents, text, problems), problems };
  } catch (e) {
    if (!(e instanceof YamlRefusal)) throw e;
    problems.push({ severity: 'error', code: 'yaml-alias', message: e.message, range: e.range });
    return { root: null, problems };
  }
}

/** yaml may point one past the end of the text (an unexpected end); keep ranges inside it. */
function clampRange(start: number, end: number, textLength: number): SourceRange {
  const offset = Math.max(0, Math.min(start, textLength));
  return { offset, length: Math.max(0, Math.min(end, textLength) - offset) };
}

function firstLine(message: string): string {
  const line = message.split('\n')[0] ?? message;
  return line.replace(/ at line \d+, column \d+:?$/, '');
}

/** Most YAML syntax errors listed one by one; the rest are counted in one more problem (one stray indent gave 57). */
export const MAX_YAML_ERRORS = 5;

/** The yaml library's token types (yaml/dist/parse/cst.js tokenType), as a user reads them. */
const YAML_TOKEN_WORDS: Record<string, string> = {
  'byte-order-mark': 'a byte-order mark',
  'doc-mode': 'a document marker',
  'doc-start': '"---"',
  'doc-end': '"..."',
  'flow-error-end': 'the end of a {...} or [...]',
  'directive-line': 'a % directive',
  'seq-item-ind': '"-"',
  'explicit-key-ind': '"?"',
  'map-value-ind': '":"',
  'flow-map-start': '"{"',
  'flow-map-end': '"}"',
  'flow-seq-start': '"["',
  'flow-seq-end': '"]"',
  'block-scalar-header': 'a "|" or ">"',
  'block-scalar': 'a "|" or ">" block of text',
  'block-map': 'a mapping',
  'block-seq': 'a list',
  'flow-collection': 'a {...} or [...]',
  'single-quoted-scalar': 'a quoted value',
  'double-quoted-scalar': 'a quoted value',
  scalar: 'a value',
  comma: '","',
  anchor: 'an anchor (&)',
  alias: 'an alias (*)',
  tag: 'a tag (!)',
  comment: 'a comment',
  newline: 'a line break',
  space: 'a space',
  document: 'a document',
};

/**
 * A yaml error message (first line) without the parser's token type names: "Unexpected
 * map-value-ind token in YAML stream: \":\"" -> "unexpected \":\" here". The one wording of a YAML
 * syntax error for the CLI and the editor (both read parseYamlTree's problems).
 */
export function yamlErrorMessage(message: string): string {
  const line = firstLine(message);
  const words = (type: string) => YAML_TOKEN_WORDS[type] ?? type.replace(/-/g, ' ');
  const bare = (type: string) => words(type).replace(/^an? /, '');
  const stream = /^Unexpected ([a-z-]+) token in YAML (?:stream|document)(?:: (.*))?$/.exec(line);
  if (stream) return `unexpected ${stream[2] !== undefined && stream[2] !== '' ? stream[2] : words(stream[1]!)} here`;
  const end = /^Unexpected ([a-z-]+) at node end$/.exec(line);
  if (end) return `unexpected ${bare(end[1]!)} after the end of the previous value`;
  const token = /^(?:Unexpected|Unsupported) (?:token )?\(?(?:type: )?([a-z-]+)\)?(?: token)?$/.exec(line);
  if (token) return `unexpected ${bare(token[1]!)}`;
  const header = /^Unexpected token in block scalar header: ([a-z-]+)$/.exec(line);
  if (header) return `unexpected ${words(header[1]!)} after the "|" or ">"`;
  return line.replace(/\b[a-z]+(?:-[a-z]+)+\b/g, (w) => YAML_TOKEN_WORDS[w] ?? w);
}

/**
 * The first content line's key when it is indented (spaces before the first key) though a later
 * line starts further left: the indent breaks the whole mapping (yaml reports the lines after
 * it, never this one). Its line's offset, the indent and the key's length; null otherwise.
 */
function indentedFirstKey(text: string): { offset: number; indent: number; keyLength: number } | null {
  let offset = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let first: { offset: number; indent: number; keyLength: number } | null = null;
  while (offset <= text.length) {
    const nl = text.indexOf('\n', offset);
    const end = nl < 0 ? text.length : nl;
    const line = text.slice(offset, end).replace(/\r$/, '');
    if (line.trim() !== '' && !/^\s*#/.test(line) && !/^(---|%)/.test(line)) {
      const indent = /^ */.exec(line)![0].length;
      if (first === null) {
        const key = /^ +([^\s#\-?{[][^:]*?):(\s|$)/.exec(line);
        if (key === null) return null;
        first = { offset, indent, keyLength: key[1]!.length };
      } else if (indent < first.indent) {
        return first;
      }
    }
    if (nl < 0) break;
    offset = nl + 1;
  }
  return null;
}

/**
 * The first line from the one holding `from` through the one holding `to` written `key:value`
 * with no space after the colon (`page_size:64`), which YAML reads as one plain scalar, not a key:
 * yaml then says "Implicit keys need to be on a single line" or "Implicit map keys need to be
 * followed by map values", neither naming the slip (s49 newcomer-ed 11). The key, the value and the
 * range of `key:value`; null when no line is so (a value starting with "/" or ":" is left alone: a URL).
 */
function gluedKeyValue(text: string, from: number, to: number): { key: string; value: string; range: SourceRange } | null {
  let offset = text.lastIndexOf('\n', Math.max(0, from - 1)) + 1;
  while (offset <= Math.min(to, text.length)) {
    const nl = text.indexOf('\n', offset);
    const line = text.slice(offset, nl < 0 ? text.length : nl).replace(/\r$/, '');
    const m = /^(\s*(?:- +)?)([A-Za-z_][\w.-]*):([^\s:/#][^#]*?)\s*(?:#.*)?$/.exec(line);
    if (m) return { key: m[2]!, value: m[3]!, range: { offset: offset + m[1]!.length, length: m[2]!.length + 1 + m[3]!.length } };
    if (nl < 0) break;
    offset = nl + 1;
  }
  return null;
}

/**
 * yaml's errors as problems, worded by yamlErrorMessage: a stray indent before the first key is
 * one error at that key (the errors it causes further down are counted, not listed); otherwise
 * the first MAX_YAML_ERRORS, and one more problem counting the rest.
 */
function yamlSyntaxProblems(text: string, all: YAML.YAMLError[], docs: readonly YAML.Document.Parsed[]): Problem[] {
  if (all.length === 0) return [];
  const problem = (message: string, range: SourceRange): Problem => ({ severity: 'error', code: 'yaml-syntax', message, range });
  const plural = (n: number) => `${n} YAML syntax error${n === 1 ? '' : 's'}`;
  const indented = indentedFirstKey(text);
  if (indented !== null) {
    const s = indented.indent === 1 ? '' : 's';
    return [problem(
      `the first key is indented by ${indented.indent} space${s}: top-level keys start at column 1 (the ${plural(all.length)} after it come from the indent and are not listed)`,
      { offset: indented.offset, length: indented.indent + indented.keyLength },
    )];
  }
  // A too-deep line gives BLOCK_AS_IMPLICIT_KEY and MULTILINE_IMPLICIT_KEY at the same value: one slip, said once.
  const deeper = new Map<number, { message: string; range: SourceRange }>();
  for (const e of all) if (e.code === 'BLOCK_AS_IMPLICIT_KEY') { const d = deeperLine(text, e.pos[0]); if (d) deeper.set(e.pos[0], d); }
  const errors = all.filter((e) => !(e.code === 'MULTILINE_IMPLICIT_KEY' && deeper.has(e.pos[0])));
  const listed = errors.slice(0, MAX_YAML_ERRORS).map((e) => {
    // yaml composes nested nodes recursively: deep enough nesting overflows its stack there.
    if (/Maximum call stack size exceeded/.test(e.message)) return problem('YAML nested too deeply: the parser ran out of stack here', clampRange(e.pos[0], e.pos[1], text.length));
    const said = e.code === 'DUPLICATE_KEY' ? duplicateKey(docs, e.pos[0]) : e.code === 'BLOCK_AS_IMPLICIT_KEY' ? deeper.get(e.pos[0]) : undefined;
    if (said) return problem(said.message, said.range);
    const hint = e.code === 'TAB_AS_INDENT' ? ': indent with spaces, not tabs' : '';
    const glued = /^Implicit (?:map )?keys need/.test(e.message) ? gluedKeyValue(text, e.pos[0], e.pos[1]) : null;
    if (glued) return problem(`YAML syntax error: ${yamlErrorMessage(e.message)} (add a space after the colon: "${glued.key}: ${glued.value}")`, glued.range);
    return problem(`YAML syntax error: ${yamlErrorMessage(e.message)}${hint}`, clampRange(e.pos[0], e.pos[1], text.length));
  });
  const rest = errors.slice(MAX_YAML_ERRORS);
  if (rest.length > 0) {
    listed.push(problem(`${rest.length} more YAML syntax error${rest.length === 1 ? '' : 's'} from here on, not listed: fix the ones above first (one mistake often causes several)`, clampRange(rest[0]!.pos[0], rest[0]!.pos[1], text.length)));
  }
  return listed;
}

/**
 * yaml's DUPLICATE_KEY (at the second use of a key) said with the key: "`dtype` is given twice
 * (first above, in the same mapping): keep one", at the second key. No line number in the text: the
 * language server's incremental analysis moves a kept problem's range with an edit but not its
 * message (test/lsp/incremental.test.ts caught a stale "line 325"). Undefined where the key
 * is not a plain value (the library's text then stands).
 */
function duplicateKey(docs: readonly YAML.Document.Parsed[], at: number): { message: string; range: SourceRange } | undefined {
  let found: { message: string; range: SourceRange } | undefined;
  for (const doc of docs) {
    YAML.visit(doc, {
      Map(_, map) {
        const items = map.items;
        const i = items.findIndex((p) => YAML.isScalar(p.key) && p.key.range?.[0] === at);
        if (i < 0) return undefined;
        const key = items[i]!.key as YAML.Scalar;
        const first = items.slice(0, i).find((p) => YAML.isScalar(p.key) && p.key.value === key.value)?.key as YAML.Scalar | undefined;
        if (first?.range && key.range) {
          found = {
            message: `\`${String(key.value)}\` is given twice (first above, in the same mapping): keep one`,
            range: { offset: key.range[0], length: key.range[1] - key.range[0] },
          };
        }
        return YAML.visit.BREAK;
      },
    });
    if (found) break;
  }
  return found;
}

/**
 * yaml's BLOCK_AS_IMPLICIT_KEY ("Nested mappings are not allowed in compact mappings", at the value
 * of the line above) where the next line's key is indented deeper than that line's key: said at
 * the deeper key, "`b` is indented deeper than the key above (`a`): align it with `a`
 * (2 spaces)" (no line number: see duplicateKey). Undefined for other shapes (the library's text then stands).
 */
function deeperLine(text: string, at: number): { message: string; range: SourceRange } | undefined {
  const start = text.lastIndexOf('\n', at - 1) + 1;
  const end = text.indexOf('\n', at);
  if (end < 0) return undefined;
  const above = /^( *)(?:- +)?([^\s#:][^:#]*?):[ \t]/.exec(text.slice(start, end));
  let next = end + 1;
  // The next content line (blank lines and comments between do not count).
  while (next < text.length) {
    const nl = text.indexOf('\n', next);
    const line = text.slice(next, nl < 0 ? text.length : nl);
    if (line.trim() !== '' && !/^\s*#/.test(line)) break;
    if (nl < 0) return undefined;
    next = nl + 1;
  }
  const lineEnd = text.indexOf('\n', next);
  const below = /^( *)([^\s#:][^:#]*?):(?:\s|$)/.exec(text.slice(next, lineEnd < 0 ? text.length : lineEnd));
  if (!above || !below) return undefined;
  const indent = above[0].length - above[2]!.length - 2;
  if (below[1]!.length <= indent) return undefined;
  return {
    message: `\`${below[2]}\` is indented deeper than the key above (\`${above[2]}\`): align it with \`${above[2]}\` (${indent === 0 ? 'no indent' : `${indent} space${indent === 1 ? '' : 's'}`})`,
    range: { offset: next + below[1]!.length, length: below[2]!.length },
  };
}

/** A property found by offset (propertyAt and its kin), with where it sits. */
export interface FoundProperty {
  /** Keys (and array indices) from the root to this property, the property's key last. */
  path: Array<string | number>;
  property: PropertyNode;
  /** The object that holds the property. */
  parent: ValueNode;
}

function contains(r: SourceRange, offset: number): boolean {
  return offset >= r.offset && offset <= r.offset + r.length;
}

/** The innermost property whose key or value contains `offset`. */
export function propertyAt(root: ValueNode | null, offset: number): FoundProperty | null {
  let found: FoundProperty | null = null;
  const walk = (node: ValueNode, path: Array<string | number>): void => {
    if (node.type === 'object') {
      for (const p of node.properties ?? []) {
        if (contains(p.keyRange, offset) || contains(p.value.range, offset)) {
          found = { path: [...path, p.key], property: p, parent: node };
          walk(p.value, [...path, p.key]);
          return;
        }
      }
    } else if (node.type === 'array') {
      (node.items ?? []).forEach((item, i) => {
        if (contains(item.range, offset)) walk(item, [...path, i]);
      });
    }
  };
  if (root !== null) walk(root, []);
  return found;
}

/**
 * The property whose key starts at `offset` (the anchor of unknown-key problems). Every value
 * that contains `offset` is searched, not only the first: a YAML block value's range runs to
 * the start of the next key (its line break included), so the block before a key also
 * "contains" that key's first character.
 */
export function propertyWithKeyAt(root: ValueNode | null, offset: number): FoundProperty | null {
  const walk = (node: ValueNode, path: Array<string | number>): FoundProperty | null => {
    if (node.type === 'object') {
      for (const p of node.properties ?? []) {
        if (p.keyRange.offset === offset) return { path: [...path, p.key], property: p, parent: node };
        const inner = contains(p.value.range, offset) ? walk(p.value, [...path, p.key]) : null;
        if (inner !== null) return inner;
      }
    } else if (node.type === 'array') {
      const items = node.items ?? [];
      for (let i = 0; i < items.length; i++) {
        const inner = contains(items[i]!.range, offset) ? walk(items[i]!, [...path, i]) : null;
        if (inner !== null) return inner;
      }
    }
    return null;
  };
  return root === null ? null : walk(root, []);
}

/** The outermost property whose value starts at `offset` (an inline model, not its first key). */
export function propertyWithValueAt(root: ValueNode | null, offset: number): FoundProperty | null {
  const walk = (node: ValueNode, path: Array<string | number>): FoundProperty | null => {
    if (node.type === 'object') {
      for (const p of node.properties ?? []) {
        if (p.value.range.offset === offset) return { path: [...path, p.key], property: p, parent: node };
        if (contains(p.value.range, offset)) return walk(p.value, [...path, p.key]);
      }
    } else if (node.type === 'array') {
      const items = node.items ?? [];
      for (let i = 0; i < items.length; i++) if (contains(items[i]!.range, offset)) return walk(items[i]!, [...path, i]);
    }
    return null;
  };
  return root === null ? null : walk(root, []);
}
