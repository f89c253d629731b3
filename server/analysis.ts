/**
 * One analysis per document version: what kind of file it is, its positioned tree, the Profile
 * core reads from it (a bare config.json gets core's default profile), the Estimate, every
 * Problem, and which other files were read. Features (diagnostics, hints, hover, lenses,
 * completion, quick fixes, resolveProfile) all work from this one value. The text is parsed once
 * per version — and not at all when an edit only rewrites a number (see reuseTree) — and
 * analyze() never throws: a failure inside core becomes an 'internal-error' problem. A version
 * with errors still carries the profile of its valid keys, so that hints can stay (hints.ts);
 * the previous version's hints that still hold are kept by the workspace cache (workspace.ts).
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import {
  isConfigPath,
  isModelConfigFile,
  isProfilePath,
  isUnread,
  moveUnread,
  parseJsonTree,
  parseProfileOrConfig,
  propertyAt,
  readProfileOrConfigTree,
  sweepProblems,
  type SweepJob,
  type SourceRange,
  type ModelSpec,
  type ParsedTree,
  type Problem,
  type PropertyNode,
  type Profile,
  type ValueNode,
} from '../core/config';
import { checkProfile, estimate, poolSizeProblem, type Estimate } from '../core/estimate';
import { documentName, uriToPath } from './paths';
import { describeError } from './safe';

/** Reads files other than the document (a profile's config.json): unsaved editor text first, else disk. */
export interface FileHost {
  readFile(absPath: string): string | null;
}

export type DocumentKind = 'config' | 'profile' | 'other';

export type Syntax = 'json' | 'yaml';

export interface Analysis {
  uri: string;
  version: number;
  document: TextDocument;
  /** The text this analysis is of (the document's text at `version`). */
  text: string;
  kind: DocumentKind;
  syntax: Syntax;
  /** Absolute path for file: URIs, else null. */
  path: string | null;
  /** The name core reads the document under (its path, or the last segment of a non-file URI). */
  file: string;
  /** The parse of `text` (null root when nothing parsed). */
  parsed: ParsedTree;
  /** parsed.root, for short. */
  tree: ValueNode | null;
  model: ModelSpec | null;
  profile: Profile | null;
  estimate: Estimate | null;
  /**
   * When `profile` is null because some keys have errors but the rest still make a profile:
   * that profile (see readWithoutInvalidKeys). Null when `profile` is set, and when no profile
   * can be made at all (a syntax error; the model missing, invalid or in error).
   */
  partial: PartialProfile | null;
  /** Every problem core found (those of a referenced config carry `file`). */
  problems: Problem[];
  /** A profile's `sweep:` block: how many points it expands to and what each runs; null without one. */
  sweep: { points: number; job: SweepJob } | null;
  /** Absolute paths read while analysing (the profile's config.json). */
  reads: string[];
  /** Text of each file read, by absolute path (positions of their problems). */
  readTexts: Map<string, string>;
}

/** A profile read from the keys that are valid, for the figures that do not depend on the others. */
export interface PartialProfile {
  /** The profile with every key that has an error left out, so defaults stand in for them. */
  profile: Profile;
  estimate: Estimate;
  /** Dotted paths of the keys left out ("kv_cache.page_size", "workload.prompt_len"). */
  invalid: string[];
}

const EMPTY: ParsedTree = { root: null, problems: [] };

/**
 * Code of the warning on a profile with a workload whose pool `attnscope simulate` refuses
 * (core/estimate poolSizeProblem: no pages, too many, an encoder); lenses.ts offers no
 * "Run serving simulation" lens beside it.
 */
export const POOL_NOT_SIMULABLE = 'pool-not-simulable';

function kindOf(name: string, text: string, parsedJson: () => ParsedTree): DocumentKind {
  if (isProfilePath(name)) return 'profile';
  if (isConfigPath(name) && isModelConfigFile(name, text, parsedJson())) return 'config';
  return 'other';
}

/**
 * Analyses `document`; `host` reads the files it refers to. `previous` (the analysis of an
 * earlier version) lets an edit that only rewrites a number skip the parse.
 */
export function analyze(document: TextDocument, host: FileHost, previous?: Analysis): Analysis {
  const text = document.getText();
  const name = documentName(document.uri);
  const path = uriToPath(document.uri);
  const readTexts = new Map<string, string>();
  const a: Analysis = {
    uri: document.uri,
    version: document.version,
    document,
    text,
    kind: 'other',
    syntax: /\.ya?ml$/i.test(name) || (!/\.json$/i.test(name) && document.languageId === 'yaml') ? 'yaml' : 'json',
    path,
    file: path ?? name,
    parsed: EMPTY,
    tree: null,
    model: null,
    profile: null,
    estimate: null,
    partial: null,
    problems: [],
    sweep: null,
    reads: [],
    readTexts,
  };
  try {
    const reused = previous !== undefined && previous.kind !== 'other' && previous.file === a.file ? reuseTree(previous, text) : null;
    if (reused !== null) {
      a.kind = previous!.kind;
      a.parsed = reused;
    } else {
      let json: ParsedTree | null = null;
      a.kind = kindOf(name, text, () => (json ??= parseJsonTree(text)));
      if (a.kind === 'other') return a;
      a.parsed = a.kind === 'config' && json !== null ? json : parseProfileOrConfig(text, a.file);
    }
    a.tree = a.parsed.root;
    const recording: FileHost = {
      readFile: (absPath) => {
        a.reads.push(absPath);
        const content = host.readFile(absPath);
        if (content !== null) readTexts.set(absPath, content);
        return content;
      },
    };
    const read = readProfileOrConfigTree(a.parsed, a.file, recording);
    a.problems = read.problems;
    a.profile = read.value;
    a.model = read.value?.model ?? null;
    if (a.profile !== null) {
      a.estimate = estimate(a.profile);
      a.problems.push(...checkProfile(a.profile, a.estimate));
      // What `attnscope simulate` refuses this profile's pool for, in its words, at the key it names.
      const pool = a.profile.workload ? poolSizeProblem(a.profile) : null;
      const at = pool?.keys.find((k) => a.profile!.ranges[k] !== undefined);
      if (pool) a.problems.push({ severity: 'warning', code: POOL_NOT_SIMULABLE, message: pool.message, range: at !== undefined ? a.profile.ranges[at] : { offset: 0, length: 0 } });
    } else {
      a.partial = readWithoutInvalidKeys(a, recording);
    }
    if (a.kind === 'profile') {
      // Every point re-reads the model config: read it once.
      const once = new Map<string, string | null>();
      const cached: FileHost = { readFile: (p) => (once.has(p) ? once.get(p)! : (once.set(p, recording.readFile(p)), once.get(p)!)) };
      const sweep = sweepProblems(a.tree, a.file, cached);
      a.problems.push(...sweep.problems);
      a.sweep = sweep.block ? { points: sweep.points, job: sweep.block.job } : null;
    }
  } catch (err) {
    a.problems.push({
      severity: 'error',
      code: 'internal-error',
      message: `AttnScope could not analyse this file (please report it): ${describeError(err).split('\n')[0]}`,
      range: { offset: 0, length: 0 },
    });
  }
  return a;
}

/**
 * Value range of a model key (a JSON path as core records it, e.g. "num_key_value_heads") in
 * this document: in a config.json, or in a profile whose model is written inline. Undefined
 * when the model lives in another file or the key is absent.
 */
export function modelKeyRange(a: Analysis, path: string): SourceRange | undefined {
  const model = a.model;
  if (model === null) return undefined;
  if (a.kind === 'profile' && a.profile?.modelPath !== null) return undefined;
  return model.ranges[path] ?? model.ranges[`model.${path}`];
}

/** Value range of a profile key ("kv_cache.page_size") in this profile. */
export function profileKeyRange(a: Analysis, path: string): SourceRange | undefined {
  return a.kind === 'profile' ? a.profile?.ranges[path] : undefined;
}

/** Rounds of leaving keys out: a key left out can reveal one more (min > max -> "needs min"). */
const PARTIAL_ROUNDS = 3;

/**
 * The profile of `a` with every key that holds an error left out, so that one invalid or
 * half-typed value does not cost the figures of the keys that are fine. Each error's key is the
 * innermost property holding the start of its range; the tree without those properties is
 * read again, up to PARTIAL_ROUNDS times. Null when that cannot work: not a profile, a syntax
 * error (the tree may not be what the user wrote), an error in the model (inline, its file, or
 * the referenced config.json), an error outside any key, or errors left after the last round.
 */
function readWithoutInvalidKeys(a: Analysis, host: FileHost): PartialProfile | null {
  if (a.kind !== 'profile' || a.tree?.type !== 'object' || a.parsed.problems.some((p) => p.severity === 'error')) return null;
  let tree: ValueNode = a.tree;
  let problems = a.problems;
  const invalid: string[] = [];
  for (let round = 0; round < PARTIAL_ROUNDS; round++) {
    const drop = new Set<PropertyNode>();
    for (const p of problems) {
      if (p.severity !== 'error') continue;
      if (p.file !== undefined && p.file !== a.file) return null;
      const found = propertyAt(tree, p.range.offset);
      if (found === null || found.path[0] === 'model') return null;
      if (!drop.has(found.property)) invalid.push(found.path.join('.'));
      drop.add(found.property);
    }
    tree = withoutProperties(tree, drop);
    const read = readProfileOrConfigTree({ root: tree, problems: [] }, a.file, host);
    if (read.value !== null) return { profile: read.value, estimate: estimate(read.value), invalid };
    problems = read.problems;
  }
  return null;
}

/** A copy of `node` without the properties in `drop` (shared subtrees where nothing is dropped). */
function withoutProperties(node: ValueNode, drop: ReadonlySet<PropertyNode>): ValueNode {
  if (node.properties) {
    return { ...node, properties: node.properties.filter((p) => !drop.has(p)).map((p) => ({ ...p, value: withoutProperties(p.value, drop) })) };
  }
  if (node.items) return { ...node, items: node.items.map((item) => withoutProperties(item, drop)) };
  return node;
}

/**
 * Where `text` differs from `old`, as one replaced region: old[start, oldEnd) became
 * text[start, oldEnd + delta). The longest common prefix and suffix stay outside it.
 */
export interface TextChange {
  start: number;
  oldEnd: number;
  delta: number;
}

/** The region `text` differs from `old` in (empty, start === oldEnd and delta 0, when they are equal). */
export function changedRegion(old: string, text: string): TextChange {
  const max = Math.min(old.length, text.length);
  let prefix = 0;
  while (prefix < max && old.charCodeAt(prefix) === text.charCodeAt(prefix)) prefix++;
  let suffix = 0;
  while (suffix < max - prefix && old.charCodeAt(old.length - 1 - suffix) === text.charCodeAt(text.length - 1 - suffix)) suffix++;
  return { start: prefix, oldEnd: old.length - suffix, delta: text.length - old.length };
}

/** A number as both JSON and YAML 1.2 (core schema) read it, to the same value. */
const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * The previous version's tree, updated for `text`, when the only change rewrites the digits of
 * one number value: its value and length change, later ranges shift. Any other edit (a key, a
 * string, syntax, a YAML document with anchors or aliases, a previous parse with errors) returns
 * null and the text is parsed again. A typed digit in a 2,000-line YAML profile then costs no
 * YAML parse. Equivalence with a fresh parse is tested in test/lsp/analysis.test.ts.
 */
export function reuseTree(previous: Analysis, text: string): ParsedTree | null {
  const old = previous.text;
  if (previous.parsed.problems.length > 0 || previous.tree === null) return null;
  if (previous.syntax === 'yaml' && /[&*]/.test(text)) return null;
  const { start, oldEnd, delta } = changedRegion(old, text);
  if (delta === 0 && start === oldEnd) return previous.parsed;
  const target = numberContaining(previous.tree, start, oldEnd);
  if (target === null) return null;
  const from = target.range.offset;
  const oldToken = old.slice(from, from + target.range.length);
  const newToken = text.slice(from, from + target.range.length + delta);
  if (!NUMBER.test(oldToken) || !NUMBER.test(newToken)) return null;
  const value = Number(newToken);
  if (!Number.isFinite(value)) return null;
  const shift = (r: { offset: number; length: number }): { offset: number; length: number } => {
    if (r.offset >= oldEnd && !(r.offset === from)) return { offset: r.offset + delta, length: r.length };
    if (r.offset <= start && r.offset + r.length >= oldEnd) return { offset: r.offset, length: r.length + delta };
    return r;
  };
  const clone = (n: ValueNode): ValueNode => {
    if (n === target) return { ...n, range: shift(n.range), value };
    const moved = moveUnread(n, shift(n.range), text);
    if (moved !== null) return moved;
    const c: ValueNode = { ...n, range: shift(n.range) };
    if (n.properties) c.properties = n.properties.map((p) => ({ key: p.key, keyRange: shift(p.keyRange), value: clone(p.value) }));
    if (n.items) c.items = n.items.map(clone);
    return c;
  };
  return { root: clone(previous.tree), problems: [] };
}

/**
 * The number node whose range holds [start, end]; null also inside a container left unread
 * (core/config/tree.ts isUnread): parsing again reads less than reading its members.
 */
function numberContaining(node: ValueNode, start: number, end: number): ValueNode | null {
  const r = node.range;
  if (start < r.offset || end > r.offset + r.length || isUnread(node)) return null;
  if (node.type === 'number') return node;
  for (const p of node.properties ?? []) {
    const found = numberContaining(p.value, start, end);
    if (found !== null) return found;
  }
  for (const item of node.items ?? []) {
    const found = numberContaining(item, start, end);
    if (found !== null) return found;
  }
  return null;
}
