/**
 * One positioned value tree for JSON (jsonc-parser) and YAML (yaml) sources, so that the
 * model and profile readers, the schema error mapping and the language server walk the same
 * shape whatever the file's syntax. Offsets are UTF-16 code units, as both parsers count.
 */
import * as jsonc from 'jsonc-parser';
import * as YAML from 'yaml';
import type { Problem, SourceRange } from './types';

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
}

/** Number.MAX_SAFE_INTEGER as messages write it. */
const MAX_SAFE_TEXT = '9,007,199,254,740,991';

/** The source text of a number as ValueNode.written keeps it, when it is an integer literal beyond ±Number.MAX_SAFE_INTEGER. */
function unsafeIntegerLiteral(source: string, value: number): string | undefined {
  return !Number.isSafeInteger(value) && Number.isInteger(value) && /^[-+]?\d+$/.test(source.trim()) ? source.trim() : undefined;
}

/**
 * Why `node` cannot be read as an integer when it was written as one beyond
 * ±Number.MAX_SAFE_INTEGER (a float64 holds every integer only up to 2^53 − 1; past it the value
 * would be silently rounded), with `what` naming it; null for any other node.
 */
export function unsafeIntegerText(what: string, node: ValueNode): string | null {
  if (node.written === undefined) return null;
  return `${what} is ${node.written}, beyond Number.MAX_SAFE_INTEGER (${MAX_SAFE_TEXT}): a JavaScript number cannot hold it exactly (it would be read as ${node.value})`;
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
  InvalidSymbol: 'invalid symbol',
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

/** Converts a jsonc-parser tree; a key written twice in one object adds a warning at the second. */
function fromJsonc(node: jsonc.Node, problems: Problem[], text: string): ValueNode {
  const range = { offset: node.offset, length: node.length };
  switch (node.type) {
    case 'object': {
      const properties: PropertyNode[] = [];
      const seen = new Set<string>();
      for (const prop of node.children ?? []) {
        const [keyNode, valueNode] = prop.children ?? [];
        if (!keyNode) continue;
        const value: ValueNode = valueNode
          ? fromJsonc(valueNode, problems, text)
          : { type: 'null', value: null, range: { offset: prop.offset + prop.length, length: 0 } };
        const key = String(keyNode.value);
        const keyRange = { offset: keyNode.offset, length: keyNode.length };
        if (seen.has(key)) {
          problems.push({
            severity: 'warning',
            code: 'duplicate-key',
            message: `${key} is given twice; the last one${shown(value)} is used, as Python's json does`,
            range: keyRange,
          });
        }
        seen.add(key);
        properties.push({ key, keyRange, value });
      }
      return { type: 'object', range, properties };
    }
    case 'array':
      return { type: 'array', range, items: (node.children ?? []).map((c) => fromJsonc(c, problems, text)) };
    case 'number': {
      const written = unsafeIntegerLiteral(text.slice(node.offset, node.offset + node.length), node.value as number);
      return written === undefined ? { type: 'number', range, value: node.value as number } : { type: 'number', range, value: node.value as number, written };
    }
    case 'string':
    case 'boolean':
    case 'null':
      return { type: node.type, range, value: node.value as string | number | boolean | null };
    default:
      return { type: 'null', range, value: null };
  }
}

/**
 * Deepest nesting of objects and arrays read. Python's json (what transformers loads
 * config.json with) stops at its recursion limit, 1,000 by default; jsonc-parser recurses
 * without a limit and overflows the stack near 10,000 levels.
 */
export const MAX_NESTING = 1000;

/** The bracket where nesting passes MAX_NESTING, or null. Scans tokens (no recursion). */
function tooDeep(text: string): SourceRange | null {
  let brackets = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) brackets++;
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

/**
 * Parses JSON (strict: comments and trailing commas are syntax errors, as in HF's loader;
 * pass `allowComments` for .jsonc-style profiles). Never throws; jsonc-parser recovers, so a
 * partial tree usually comes back alongside the errors. Nesting deeper than MAX_NESTING is an
 * error at the bracket that passes it (null root). Warnings: a UTF-8 byte-order mark (read past,
 * offsets unchanged), a key written twice in one object (at the second; the last one wins).
 */
export function parseJsonTree(text: string, opts: { allowComments?: boolean } = {}): ParsedTree {
  const deep = tooDeep(text);
  if (deep) {
    return {
      root: null,
      problems: [{ severity: 'error', code: 'json-nesting', message: `JSON nested more than ${MAX_NESTING.toLocaleString('en-US')} levels deep (Python's json stops there too)`, range: deep }],
    };
  }
  const problems: Problem[] = [];
  if (text.charCodeAt(0) === 0xfeff) {
    // A space in its place keeps every offset after it right.
    text = ' ' + text.slice(1);
    problems.push({
      severity: 'warning',
      code: 'json-bom',
      message: 'the file starts with a UTF-8 byte-order mark: read past here, but Python\'s json.loads (transformers\' loader) refuses it ("Unexpected UTF-8 BOM"): save the file without it',
      range: { offset: 0, length: 1 },
    });
  }
  const errors: jsonc.ParseError[] = [];
  const root = jsonc.parseTree(text, errors, {
    disallowComments: !opts.allowComments,
    allowTrailingComma: false,
    allowEmptyContent: false,
  });
  for (const e of errors) {
    // Python's json.dump writes a float NaN or infinity as the bare word, which JSON has not.
    const word = /^-?(?:NaN|Infinity)\b/.exec(text.slice(e.offset, e.offset + 10))?.[0];
    const why = word !== undefined ? `${word} is not JSON (Python's json.dump writes it for a float ${word === 'NaN' ? 'NaN' : 'infinity'}): write a number` : jsonErrorText(e.error);
    problems.push({
      severity: 'error',
      code: 'json-syntax',
      message: `JSON syntax error: ${why}`,
      range: { offset: e.offset, length: e.length },
    });
  }
  return { root: root ? fromJsonc(root, problems, text) : null, problems };
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

/**
 * Converts a composed yaml document to a ValueNode tree, expanding aliases. Throws YamlRefusal
 * when an alias refers to a node that contains it (the tree would be infinite) or when
 * aliases expand to more than MAX_ALIAS_NODES nodes.
 */
function yamlToTree(doc: YAML.Document, contents: unknown, text: string): ValueNode {
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
      for (const pair of node.items) {
        const keyNode = pair.key;
        const key = YAML.isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
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
      if (typeof v === 'number' || typeof v === 'bigint') {
        const value = Number(v);
        const written = unsafeIntegerLiteral(text.slice(range.offset, range.offset + range.length), value);
        return written === undefined ? { type: 'number', range, value } : { type: 'number', range, value, written };
      }
      if (typeof v === 'boolean') return { type: 'boolean', range, value: v };
      return { type: 'string', range, value: String(v) };
    }
    return { type: 'null', range: { offset: fallback, length: 0 }, value: null };
  };
  return convert(contents, 0);
}

/**
 * Parses YAML 1.2 (core schema: `yes` stays a string, `0x10` is a number). Syntax errors and
 * a second document become problems; duplicate keys are errors, as yaml reports them. Aliases
 * are expanded; one that refers to the node containing it, or aliases expanding to more than
 * MAX_ALIAS_NODES nodes, give an error at the alias and a null root (nothing else is read).
 */
export function parseYamlTree(text: string): ParsedTree {
  const problems: Problem[] = [];
  const docs = YAML.parseAllDocuments(text, { prettyErrors: false, uniqueKeys: true });
  const list = Array.isArray(docs) ? docs : [];
  const doc = list[0];
  for (const d of list) {
    for (const e of d.errors) {
      problems.push({
        severity: 'error',
        code: 'yaml-syntax',
        // yaml composes nested nodes recursively: deep enough nesting overflows its stack there.
        message: /Maximum call stack size exceeded/.test(e.message)
          ? 'YAML nested too deeply: the parser ran out of stack here'
          : `YAML syntax error: ${firstLine(e.message)}`,
        range: clampRange(e.pos[0], e.pos[1], text.length),
      });
    }
  }
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
    return { root: yamlToTree(doc, doc.contents, text), problems };
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

/** The property whose key starts at `offset` (the anchor of unknown-key problems). */
export function propertyWithKeyAt(root: ValueNode | null, offset: number): FoundProperty | null {
  const found = propertyAt(root, offset);
  return found !== null && found.property.keyRange.offset === offset ? found : null;
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
