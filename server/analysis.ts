/**
 * One analysis per document version: what kind of file it is, its positioned tree, the Profile
 * core reads from it (a bare config.json gets core's default profile), the Estimate, every
 * Problem (with the refusal of a bench of too many cases: TOO_MANY_CASES), and which other files were read. Features (diagnostics, hints, hover, lenses,
 * completion, quick fixes, resolveProfile) all work from this one value. The text is parsed once
 * per version — not at all when an edit stays inside a number or a list of numbers, and without
 * its long lists of numbers when it lies outside them (see reuseTree) — and analyze() never throws: a failure inside core becomes an 'internal-error' problem. A version
 * with errors still carries the profile of its valid keys, so that hints can stay (hints.ts) and
 * so can the cross-key and estimate checks that read none of the invalid keys (core/validate.ts);
 * the previous version's hints that still hold are kept by the workspace cache (workspace.ts).
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import {
  isConfigPath,
  isModelConfigFile,
  isProfilePath,
  isUnread,
  lineFeeds,
  moveUnread,
  numberLiteralNode,
  parseJsonTree,
  parseJsonTreeKeeping,
  parseProfileOrConfig,
  readSweepBlock,
  sweepProblems,
  sweepSize,
  type KeptNode,
  type SweepJob,
  type SourceRange,
  type ModelSpec,
  type ParsedTree,
  type Problem,
  type Profile,
  type ValueNode,
} from '../core/config';
import { anchorOf } from '../core/config/profileSchema';
import type { NotRead } from '../core/fileText';
import type { Estimate } from '../core/estimate';
import { DEFAULT_GPU, GPUS } from '../core/estimate/gpus';
import { POOL_NOT_SIMULABLE, sweepPointNoter, validateProfileTree, type PartialProfile } from '../core/validate';
import { caseCountRefusal } from '../core/refusals';
import { documentName, uriToPath } from './paths';
import { describeError } from './safe';
import { traceTimeoutText, type TraceSettings, type TraceState } from './traceCheck';

/**
 * Code of the warning that `attnscope bench` refuses the profile for its case lists (more than
 * MAX_CASES cases: core/refusals.ts caseCountRefusal), at the list that contributes most; the
 * editor then offers no "Run attention benchmark" lens (lenses.ts).
 */
export const TOO_MANY_CASES = 'too-many-cases';

/** Code of the information that a workload is simulated on the default GPU's peaks ({@link gpuAssumed}). */
export const GPU_ASSUMED = 'gpu-assumed';

/** Reads files other than the document (a profile's config.json): unsaved editor text first, else disk. */
export interface FileHost {
  readFile(absPath: string): string | null;
  /** Why readFile gave null for a file that is there (a FIFO, too big): core/config/profile.ts ProfileHost. */
  whyNotRead?(absPath: string): NotRead | undefined;
  /** The parse of a file's text when the host has it (core/config/profile.ts ProfileHost.parsedJson). */
  parsedJson?(absPath: string, text: string): ParsedTree | undefined;
  /** Where a profile's workload.trace file stands, read with its settings (Workspace.traceState: a stat, and the runner's check of that version); absent: traces are not checked. */
  trace?(absPath: string, settings: TraceSettings): TraceState;
}

export type DocumentKind = 'config' | 'profile' | 'other';

export type Syntax = 'json' | 'yaml';

export interface Analysis {
  uri: string;
  version: number;
  document: TextDocument;
  /**
   * The text this analysis is of: the document's text at `version`, each lone \r made a \n (core's lineFeeds: one
   * character for one, so offsets and the document's positionAt agree), so that the line scans here, in hints.ts and
   * in actions.ts find the lines of an old-Mac (CR-only) file.
   */
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
   * that profile (core/validate.ts). Null when `profile` is set, and when no profile
   * can be made at all (a syntax error; the model missing, invalid or in error).
   */
  partial: PartialProfile | null;
  /**
   * Every problem core found (those of a referenced config carry `file`) but those of a
   * profile's `sweep:` block and its points, which {@link checkedProblems} adds.
   */
  problems: Problem[];
  /** A profile's `sweep:` block: how many points it expands to and what each runs; null without one or without axes. */
  sweep: { points: number; job: SweepJob } | null;
  /**
   * The problems of the sweep block and of its first SWEEP_POINTS_CHECKED points
   * (core/config/sweep.ts sweepProblems); null until {@link checkedProblems} asked for them.
   */
  sweepChecked: Problem[] | null;
  /** Absolute paths read while analysing (the profile's config.json). */
  reads: string[];
  /** Text of each file read, by absolute path (positions of their problems). */
  readTexts: Map<string, string>;
  /** A profile's workload.trace (as written, and absolute) and where its check stands; null without one. */
  trace: { path: string; resolvedPath: string; state: TraceState } | null;
}

const EMPTY: ParsedTree = { root: null, problems: [] };

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
  const text = lineFeeds(document.getText());
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
    sweepChecked: null,
    reads: [],
    readTexts,
    trace: null,
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
    const checked = validateProfileTree(a.parsed, a.file, recordingHost(a, host));
    a.problems = checked.problems;
    a.profile = checked.profile;
    a.model = checked.profile?.model ?? null;
    a.estimate = checked.estimate;
    a.partial = checked.partial;
    const block = a.kind === 'profile' ? readSweepBlock(a.tree).block : null;
    // No axes, no sweep (`attnscope sweep` refuses it; the schema's diagnostic says what to add): no points hint, no lens.
    a.sweep = block && block.axes.length > 0 ? { points: sweepSize(block.axes), job: block.job } : null;
    if (a.kind === 'profile' && a.profile !== null && a.tree !== null) {
      const assumed = gpuAssumed(a.profile, a.tree, a.problems);
      if (assumed !== null) a.problems.push(assumed);
    }
    const trace = a.kind === 'profile' ? a.profile?.workload?.trace : undefined;
    if (trace && host.trace) {
      // The trace is a file the analysis reads: its change on disk re-checks this profile (Workspace.fileChanged).
      a.reads.push(trace.resolvedPath);
      const settings: TraceSettings = {
        ...(trace.timeUnit !== undefined ? { timeUnit: trace.timeUnit } : {}),
        ...(trace.model !== undefined ? { model: trace.model } : {}),
        ...(trace.logType !== undefined ? { logType: trace.logType } : {}),
      };
      a.trace = { ...trace, state: host.trace(trace.resolvedPath, settings) };
      const problem = traceProblem(a.trace, a.profile!.ranges);
      if (problem !== null) a.problems.push(problem);
    }
    const tooMany = a.kind === 'profile' && a.profile !== null && !a.profile.model.isEncoder ? caseCountRefusal(a.profile) : null;
    if (tooMany !== null) {
      // `attnscope bench` refuses this profile with these words (runner/plan.ts planProblems); estimate and simulate run it.
      a.problems.push({ severity: 'warning', code: TOO_MANY_CASES, message: tooMany.message, range: a.profile!.ranges[tooMany.key] ?? { offset: 0, length: 0 } });
    }
  } catch (err) {
    a.problems.push(internalError(err));
  }
  return a;
}

/**
 * The information at `workload` that its simulation's step times use {@link DEFAULT_GPU}'s peaks
 * (runner/simulate/step-time.ts profileGpu) because device.gpu is not set, naming the GPUs it
 * takes; null when device.gpu is set, or nothing is simulated (no workload, an encoder). The
 * editor's only: the CLI's simulate prints the GPU on its step-time line ("on H100 SXM (device.gpu
 * not set: the default)").
 */
function gpuAssumed(profile: Profile, root: ValueNode, problems: readonly Problem[]): Problem | null {
  // A pool the simulation cannot size: its warning says what to set, this would say it again (s49).
  if (profile.workload === null || profile.device.gpu || profile.model.isEncoder || problems.some((p) => p.code === POOL_NOT_SIMULABLE)) return null;
  return {
    severity: 'info',
    code: GPU_ASSUMED,
    message: `device.gpu is not set, so the simulation's step times use the ${DEFAULT_GPU}'s peaks (the latency model's default GPU): set device.gpu to the GPU you serve on (${GPUS.map((g) => g.name).join(', ')})`,
    range: anchorOf(root, ['workload']),
    data: { gpu: DEFAULT_GPU },
  };
}

/** Reads through `host`, recording each path and text in the analysis (reads, readTexts); a text it recorded is not read again. */
/**
 * The diagnostic of a profile's trace at its workload.trace value: a file that cannot be read, or
 * its bad rows as `attnscope simulate` refuses them (one diagnostic, a line each with its
 * file:line:col, as the runner capped them), or
 * (info) that the check ran out of time and how to check it; null while it is read, once it read
 * cleanly, or when the runner could not check it (logged).
 */
function traceProblem(t: NonNullable<Analysis['trace']>, ranges: Record<string, SourceRange>): Problem | null {
  const at = ranges['workload.trace'] ?? { offset: 0, length: 0 };
  if ('problem' in t.state) return { severity: 'error', code: 'trace-unreadable', message: `cannot read the trace ${t.path}: ${t.state.problem}`, range: at, data: { path: t.resolvedPath } };
  if ('errors' in t.state) {
    const errors = t.state.errors;
    const e = errors[0]!;
    // A refusal of a setting (the runner names the key: `workload.trace_time_unit: ms: this azure trace's ...`) is said at that key.
    const key = errors.length === 1 ? /^(workload\.trace_\w+)/.exec(e.message)?.[1] : undefined;
    const range = (key !== undefined ? ranges[key] : undefined) ?? at;
    const place = (r: typeof e) => `${r.file}:${r.line}:${r.column}: ${r.message}`;
    const message = errors.length === 1 ? `the trace ${t.path} cannot be replayed: ${place(e)}` : `the trace ${t.path} cannot be replayed:\n${errors.map(place).join('\n')}`;
    return { severity: 'error', code: 'trace-invalid', message, range, data: { path: e.file, line: e.line, column: e.column } };
  }
  if ('timedOut' in t.state) return { severity: 'info', code: 'trace-not-checked', message: traceTimeoutText(t.path, t.state.timedOut), range: at };
  return null;
}

function recordingHost(a: Analysis, host: FileHost): FileHost {
  return {
    readFile: (absPath) => {
      const recorded = a.readTexts.get(absPath);
      if (recorded !== undefined) return recorded;
      a.reads.push(absPath);
      const content = host.readFile(absPath);
      if (content !== null) a.readTexts.set(absPath, content);
      return content;
    },
    whyNotRead: (absPath) => host.whyNotRead?.(absPath),
    parsedJson: (absPath, text) => host.parsedJson?.(absPath, text),
    ...(host.trace ? { trace: (absPath: string, settings: TraceSettings) => host.trace!(absPath, settings) } : {}),
  };
}

/**
 * Every problem of the analysis: its `problems`, then those of a profile's sweep block and its
 * points, checked on the first call (the points read their files through `host`, recorded in
 * `reads`) and kept in `sweepChecked`. Diagnostics, quick fixes and resolveProfile ask for them;
 * hints, lenses, hover and completion do not, so a keystroke whose diagnostics the debounce
 * (validation.ts) has not reached yet reads no sweep point: reading them was 70% of the server's
 * CPU per keystroke in a 2,992-line profile (s35). Never throws.
 */
export function checkedProblems(a: Analysis, host: FileHost): Problem[] {
  if (a.sweepChecked === null) {
    try {
      a.sweepChecked = a.kind === 'profile' ? sweepProblems(a.tree, a.file, recordingHost(a, host), a.problems, sweepPointNoter).problems : [];
    } catch (err) {
      a.sweepChecked = [internalError(err)];
    }
  }
  return a.sweepChecked.length === 0 ? a.problems : [...a.problems, ...a.sweepChecked];
}

/** The problem a failure inside core becomes (at the start of the file). */
function internalError(err: unknown): Problem {
  return {
    severity: 'error',
    code: 'internal-error',
    message: `AttnScope could not analyse this file (please report it): ${describeError(err).split('\n')[0]}`,
    range: { offset: 0, length: 0 },
  };
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

/**
 * Where `text` differs from `old`, as one replaced region: old[start, oldEnd) became
 * text[start, oldEnd + delta). The longest common prefix and suffix stay outside it.
 */
export interface TextChange {
  start: number;
  oldEnd: number;
  delta: number;
}

/** Characters compared at once by changedRegion before it compares one by one. */
const COMPARED_CHUNK = 4096;

/**
 * The region `text` differs from `old` in (empty, start === oldEnd and delta 0, when they are equal).
 * Equal runs are skipped a chunk at a time (string equality of slices, a memory compare: an edit
 * at the top of an 11 MB config.json took 46 ms CPU to find one character at a time, s39).
 */
export function changedRegion(old: string, text: string): TextChange {
  const max = Math.min(old.length, text.length);
  let prefix = 0;
  while (prefix + COMPARED_CHUNK <= max && old.slice(prefix, prefix + COMPARED_CHUNK) === text.slice(prefix, prefix + COMPARED_CHUNK)) prefix += COMPARED_CHUNK;
  while (prefix < max && old.charCodeAt(prefix) === text.charCodeAt(prefix)) prefix++;
  let suffix = 0;
  const oldEnd = (n: number): string => old.slice(old.length - n - COMPARED_CHUNK, old.length - n);
  const textEnd = (n: number): string => text.slice(text.length - n - COMPARED_CHUNK, text.length - n);
  while (suffix + COMPARED_CHUNK <= max - prefix && oldEnd(suffix) === textEnd(suffix)) suffix += COMPARED_CHUNK;
  while (suffix < max - prefix && old.charCodeAt(old.length - 1 - suffix) === text.charCodeAt(text.length - 1 - suffix)) suffix++;
  return { start: prefix, oldEnd: old.length - suffix, delta: text.length - old.length };
}

/**
 * The previous version's tree, updated for `text`, when the only change lies inside a number
 * value (its digits rewritten: its value and length change) or inside a list of numbers (a flow
 * list `[512, 1024]` in YAML or JSON, or a YAML block list of `- 512` lines) that stays a list of
 * numbers written the same way (items added, removed or rewritten): the list is read again from
 * its own text, later ranges shift, and what lies before the edit is shared with the previous
 * tree. Any other edit of a YAML text (a key, a string, half-typed YAML, a list left invalid),
 * and any edit of a previous version whose parse has problems, parses it again around its long
 * lists of numbers that the edit left untouched, and around the items before and after the
 * edit in a long flow list it lies inside (parseAroundLists); null (parse it all) for a JSON text, or a
 * YAML text with anchors, aliases or merge keys (`<<`: a member may sit outside its mapping's text). A typed digit or a pasted value in a profile with 20,000
 * seq_lens then costs no YAML parse, and a key or a list item typed through invalid states a
 * parse of the rest. Equivalence with a fresh parse is tested in test/lsp/incremental.test.ts (random
 * edits, through invalid YAML too, and examples).
 */
export function reuseTree(previous: Analysis, text: string): ParsedTree | null {
  const old = previous.text;
  if (previous.tree === null) return null;
  const yaml = previous.syntax === 'yaml';
  if (yaml && /[&*]|<</.test(text)) return null;
  const { start, oldEnd, delta } = changedRegion(old, text);
  if (delta === 0 && start === oldEnd) return previous.parsed;
  // A tree with problems (half-typed YAML or JSON) keeps only its long lists, or unread containers, that no problem touches.
  if (previous.parsed.problems.length > 0) return yaml ? parseAroundLists(previous, text, start, oldEnd, delta) : parseAroundUnread(previous, text, start, oldEnd, delta);
  let target = numberContaining(previous.tree, start, oldEnd);
  let replacement: ValueNode | null = target && numberLiteralNode(text, target.range.offset, target.range.length + delta);
  if (replacement === null) {
    target = numberListContaining(previous.tree, start, oldEnd);
    replacement = target && rereadNumberList(text, target.range.offset, target.range.length + delta, old, start, oldEnd, yaml);
  }
  if (target === null || replacement === null) return yaml ? parseAroundLists(previous, text, start, oldEnd, delta) : parseAroundUnread(previous, text, start, oldEnd, delta);
  const edited = target;
  const shift = (r: SourceRange): SourceRange => {
    if (r.offset >= oldEnd) return { offset: r.offset + delta, length: r.length };
    if (r.offset <= start && r.offset + r.length >= oldEnd) return { offset: r.offset, length: r.length + delta };
    return r;
  };
  const clone = (n: ValueNode): ValueNode => {
    if (n === edited) return replacement;
    // Wholly before the edit, or after it when the text kept its length: unchanged, and so is all it holds.
    if (n.range.offset + n.range.length < start || (delta === 0 && n.range.offset >= oldEnd)) return n;
    if (n.type !== 'object' && n.type !== 'array') return leafAt(n, shift(n.range));
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
 * The outermost node `accepts` takes whose range holds [start, end] (past its first character
 * when `pastFirst`, at every level); null also inside a container left unread (core/config/tree.ts
 * isUnread): parsing again reads less than reading its members.
 */
function nodeContaining(node: ValueNode, start: number, end: number, pastFirst: boolean, accepts: (n: ValueNode) => boolean): ValueNode | null {
  const r = node.range;
  if (start < r.offset + (pastFirst ? 1 : 0) || end > r.offset + r.length || isUnread(node)) return null;
  if (accepts(node)) return node;
  for (const p of node.properties ?? []) {
    const found = nodeContaining(p.value, start, end, pastFirst, accepts);
    if (found !== null) return found;
  }
  for (const item of node.items ?? []) {
    const found = nodeContaining(item, start, end, pastFirst, accepts);
    if (found !== null) return found;
  }
  return null;
}

/** The number node whose range holds [start, end]. */
const numberContaining = (node: ValueNode, start: number, end: number): ValueNode | null => nodeContaining(node, start, end, false, (n) => n.type === 'number');

/** The list whose items are all numbers and whose range holds [start, end] past its first character (such a list holds no list). */
const numberListContaining = (node: ValueNode, start: number, end: number): ValueNode | null =>
  nodeContaining(node, start, end, true, (n) => n.type === 'array' && n.items!.every((item) => item.type === 'number'));

/**
 * The list node a parse makes of text[offset, offset + length) — the new text of a list of
 * numbers whose old text (in `old`) was edited in [start, oldEnd) — when it is still a list of
 * number literals (numberLiteralNode) written in the list's form; null when it may not be:
 * - a flow list: `[`, numbers separated by commas, `]`, with spaces and line breaks between
 *   (a trailing comma in YAML only); an edit that adds or removes a line break, or that touches
 *   a line's indentation (YAML's flow lines must stay indented), is refused;
 * - a YAML block list: lines `- <number>` (then spaces), each after the first indented as the
 *   first, ending with a line break (or the end of the text).
 */
function rereadNumberList(text: string, offset: number, length: number, old: string, start: number, oldEnd: number, yaml: boolean): ValueNode | null {
  const end = offset + length;
  const items: ValueNode[] = [];
  const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\n';
  if (text[offset] === '[') {
    if (text[end - 1] !== ']') return null;
    if (/[\r\n]/.test(old.slice(start, oldEnd)) || /[\r\n]/.test(text.slice(start, oldEnd + text.length - old.length))) return null;
    if (yaml) {
      const lineStart = text.lastIndexOf('\n', start - 1) + 1;
      if (lineStart > offset && !/[^ ]/.test(text.slice(lineStart, start))) return null;
    }
    let i = offset + 1;
    let expect: 'first' | 'separator' | 'next' = 'first';
    for (;;) {
      while (i < end - 1 && isSpace(text[i])) i++;
      if (i === end - 1) return expect === 'next' && !yaml ? null : { type: 'array', range: { offset, length }, items };
      const c = text[i];
      if (c === ',') {
        if (expect !== 'separator') return null;
        expect = 'next';
        i++;
        continue;
      }
      if (expect === 'separator') return null;
      let j = i;
      while (j < end - 1 && !isSpace(text[j]) && text[j] !== ',') j++;
      const item = numberLiteralNode(text, i, j - i);
      if (item === null) return null;
      items.push(item);
      expect = 'separator';
      i = j;
    }
  }
  if (!yaml || text[offset] !== '-') return null;
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const indent = text.slice(lineStart, offset);
  if (/[^ ]/.test(indent)) return null;
  let i = offset;
  for (;;) {
    // One line: `- `, spaces, a number, spaces, then a line break or the end of the text.
    if (text[i] !== '-' || text[i + 1] !== ' ') return null;
    i += 2;
    while (i < end && text[i] === ' ') i++;
    let j = i;
    while (j < end && text[j] !== ' ' && text[j] !== '\n') j++;
    const item = numberLiteralNode(text, i, j - i);
    if (item === null) return null;
    items.push(item);
    i = j;
    while (i < end && text[i] === ' ') i++;
    if (i === end) return end === text.length ? { type: 'array', range: { offset, length }, items } : null;
    if (text[i] !== '\n') return null;
    i++;
    if (i === end) return { type: 'array', range: { offset, length }, items };
    if (!text.startsWith(indent, i)) return null;
    i += indent.length;
  }
}

/** Lists of at least this many numbers are kept from the previous tree when a YAML text is parsed again around them (parseAroundLists). */
export const KEPT_LIST_ITEMS = 256;

/**
 * A run of a long list's items kept from the previous tree by parseAroundLists: the whole list
 * (`whole`), or, in a flow list the edit lies inside, the items wholly before the edit or
 * those wholly after it. `from`/`to`: the run's text in the previous version.
 */
interface KeptRun {
  list: ValueNode;
  whole: boolean;
  items: ValueNode[];
  from: number;
  to: number;
}

/**
 * For an edit of a YAML profile that no list re-read covers (a key, a string, a comment typed,
 * half-typed YAML, an edit that leaves a list of numbers invalid): the tree and parse problems
 * of `text`, parsed with each list of at least KEPT_LIST_ITEMS numbers that the edit left
 * untouched written as a stand-in of the same length (standInList), and in a flow list the edit
 * lies inside, its items before and after the edit as stand-ins of the same length and lines
 * (standInItems); the previous tree's nodes are put back in their places (moved by the edit
 * when after it). A profile with 20,000 seq_lens then parses as the 1 KB it is without them,
 * valid or not. A run of items is kept only when no problem of the previous parse touches it
 * and its text holds nothing but numbers, separators, spaces and line breaks. Null (parse it
 * all) when nothing is kept, when a problem of the parse so made touches a stand-in (its message
 * or range could be the stand-in's), or when a stand-in did not read back as the same list or
 * the same run of items (the edit changed what the list is: a key, inside an unclosed bracket).
 */
function parseAroundLists(previous: Analysis, text: string, start: number, oldEnd: number, delta: number): ParsedTree | null {
  const old = previous.text;
  const touches = (r: SourceRange, from: number, to: number): boolean => r.offset <= to && r.offset + r.length >= from;
  // No problem of the previous parse touches old[from, to], and old[textFrom, textTo) is numbers, separators, spaces and line breaks.
  const clean = (from: number, to: number, textFrom = from, textTo = to): boolean =>
    !previous.parsed.problems.some((p) => touches(p.range, from, to)) && !/[^-+.\w, \n]/.test(old.slice(textFrom, textTo));
  const end = (n: ValueNode): number => n.range.offset + n.range.length;
  const runs: KeptRun[] = [];
  const collect = (n: ValueNode): void => {
    if (n.type === 'array' && n.items!.length >= KEPT_LIST_ITEMS && n.items!.every((item) => item.type === 'number')) {
      const { offset } = n.range;
      if (end(n) < start || offset > oldEnd) {
        if (clean(offset, end(n), offset + 1, end(n) - 1)) runs.push({ list: n, whole: true, items: n.items!, from: offset, to: end(n) });
      } else if (old[offset] === '[' && offset < start) {
        const items = n.items!;
        let before = 0;
        while (before < items.length && end(items[before]!) < start) before++;
        let after = before;
        while (after < items.length && items[after]!.range.offset <= oldEnd) after++;
        for (const run of [items.slice(0, before), items.slice(after)]) {
          if (run.length > 0 && clean(run[0]!.range.offset, end(run[run.length - 1]!))) runs.push({ list: n, whole: false, items: run, from: run[0]!.range.offset, to: end(run[run.length - 1]!) });
        }
      }
      return;
    }
    for (const p of n.properties ?? []) collect(p.value);
    for (const item of n.items ?? []) collect(item);
  };
  collect(previous.tree!);
  if (runs.length === 0) return null;
  runs.sort((a, b) => a.from - b.from);
  const moved = (offset: number): number => (offset > oldEnd ? offset + delta : offset);
  const parts: string[] = [];
  let at = 0;
  for (const run of runs) {
    const from = moved(run.from);
    const piece = text.slice(from, from + run.to - run.from);
    const standIn = run.whole ? standInList(piece) : standInItems(piece);
    if (standIn === null) return null;
    parts.push(text.slice(at, from), standIn);
    at = from + run.to - run.from;
  }
  parts.push(text.slice(at));
  const parsed = parseProfileOrConfig(parts.join(''), previous.file);
  if (parsed.root === null || parsed.problems.some((p) => runs.some((r) => touches(p.range, moved(r.from), moved(r.to))))) return null;
  const wholeAt = new Map(runs.filter((r) => r.whole).map((r) => [moved(r.from), r]));
  const splitAt = new Map<number, KeptRun[]>();
  for (const r of runs) if (!r.whole) splitAt.set(r.list.range.offset, [...(splitAt.get(r.list.range.offset) ?? []), r]);
  let kept = 0;
  const shifted = (item: ValueNode): ValueNode => leafAt(item, { offset: item.range.offset + delta, length: item.range.length });
  const putBack = (n: ValueNode): ValueNode => {
    const whole = n.type === 'array' ? wholeAt.get(n.range.offset) : undefined;
    if (whole !== undefined && n.range.length === whole.list.range.length) {
      kept++;
      if (whole.from <= oldEnd) return whole.list;
      return { type: 'array', range: { offset: whole.from + delta, length: whole.list.range.length }, items: whole.items.map(shifted) };
    }
    const split = n.type === 'array' ? splitAt.get(n.range.offset) : undefined;
    if (split !== undefined) {
      // Each run's stand-in items, consecutive and inside it, become the run's items.
      let items = n.items!;
      for (const run of split) {
        const from = moved(run.from);
        const to = moved(run.to);
        const first = items.findIndex((item) => item.range.offset < to && end(item) > from);
        if (first < 0) return n;
        let last = first;
        while (last < items.length && items[last]!.range.offset < to && end(items[last]!) > from) {
          if (items[last]!.range.offset < from || end(items[last]!) > to) return n;
          last++;
        }
        // One stand-in item a line of the run (standInItems): fewer when a comment the edit began
        // before the run on its first line (`#` typed at a line's start) hid that line's items,
        // and the later lines' items alone were put back as the whole run (s40: the LSP property
        // walk's step 135, `#,` typed before `    22945, 26104, …`).
        if (last - first !== text.slice(from, to).split('\n').filter((line) => line.trim() !== '').length) return n;
        kept++;
        items = [...items.slice(0, first), ...(run.from > oldEnd ? run.items.map(shifted) : run.items), ...items.slice(last)];
      }
      return { ...n, items };
    }
    if (n.properties) n.properties = n.properties.map((p) => ({ key: p.key, keyRange: p.keyRange, value: putBack(p.value) }));
    if (n.items) n.items = n.items.map(putBack);
    return n;
  };
  const root = putBack(parsed.root);
  return kept === runs.length ? { root, problems: parsed.problems } : null;
}

/**
 * For an edit of a JSON config.json or profile outside its containers left unread (core/config/tree.ts
 * EAGER_MEMBERS: a classifier's id2label / label2id maps): the parse of `text` with those
 * containers put back from the previous tree (moved by the edit when after it) instead of read
 * again (core's parseJsonTreeKeeping). A typed key or value, valid or not, in the 40 lines above
 * an 11 MB config's 200,000 labels then parses those 40 lines (s39: the config's own hints and
 * its diagnostics took 0.3-1 s CPU per keystroke, every other request waiting behind them). A
 * container is kept when the edit does not touch its text and no problem of the previous parse
 * does; null (parse it all) when none is, or when core refuses.
 */
function parseAroundUnread(previous: Analysis, text: string, start: number, oldEnd: number, delta: number): ParsedTree | null {
  if (previous.syntax !== 'json' || previous.kind !== 'config') return null;
  const touches = (r: SourceRange, from: number, to: number): boolean => r.offset <= to && r.offset + r.length >= from;
  const keep: KeptNode[] = [];
  const collect = (n: ValueNode): void => {
    const { offset, length } = n.range;
    if (isUnread(n)) {
      if ((offset + length < start || offset > oldEnd) && !previous.parsed.problems.some((p) => touches(p.range, offset, offset + length))) {
        const range = { offset: offset > oldEnd ? offset + delta : offset, length };
        keep.push({ range, node: moveUnread(n, range, text)! });
      }
      return;
    }
    for (const p of n.properties ?? []) collect(p.value);
    for (const item of n.items ?? []) collect(item);
  };
  collect(previous.tree!);
  return keep.length === 0 ? null : parseJsonTreeKeeping(text, keep);
}

/**
 * A stand-in for a run of a flow list's items (its text from the first item's first character
 * to the last item's last): as long, with its line breaks where they were, that YAML reads as a
 * run of items in the same place: on each line its indentation, then `0`, and `,` where the
 * line ends with one. Null when a line before the last does not end with `,` (its stand-in
 * would run into the next line's) or a line starts with something other than a number.
 */
function standInItems(run: string): string | null {
  const lines = run.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const indent = line.length - line.trimStart().length;
    const content = line.trim();
    if (content === '') {
      out.push(line);
      continue;
    }
    const comma = content.endsWith(',');
    if (!/^[-+.\d]/.test(content) || (!comma && i < lines.length - 1)) return null;
    const head = comma ? '0,' : '0';
    out.push(`${' '.repeat(indent)}${head}${' '.repeat(line.length - indent - head.length)}`);
  }
  return out.join('\n');
}

/**
 * A stand-in for the text of a list of numbers (a YAML flow list `[...]`, or a block list of
 * `- <number>` lines): as long, with its line breaks where they were, that YAML reads as a
 * list wherever it reads the list. A flow list keeps its line breaks, and each later line its
 * indentation and first character's kind (YAML checks the indentation of a flow list's lines
 * against the block around it): `[`, spaces; each later line its indentation then `0,` (`0`
 * on the last, before its `]`) or its `]`. A block list is `- 0`, spaces, and its final line
 * break: one line, as yaml ends a block list at its last item, not at the blank lines after
 * (its later lines sit at the first one's column, which nothing outside the list changes; no
 * message of yaml's names a line). Null for a flow line too short to hold its stand-in.
 */
function standInList(list: string): string | null {
  if (list[0] !== '[') {
    const newline = list.endsWith('\n') ? '\n' : '';
    return `- 0${' '.repeat(list.length - 3 - newline.length)}${newline}`;
  }
  const lines = list.split('\n');
  const out = [`[${' '.repeat(lines[0]!.length - 1)}`];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const indent = line.length - line.trimStart().length;
    const rest = line.length - indent;
    const last = i === lines.length - 1;
    if (rest === 0 || (last && rest === 1)) out.push(line);
    else if (rest < 2) return null;
    else out.push(`${' '.repeat(indent)}${last ? `0${' '.repeat(rest - 2)}]` : `0,${' '.repeat(rest - 2)}`}`);
  }
  if (lines.length === 1) out[0] = `[${' '.repeat(list.length - 2)}]`;
  return out.join('\n');
}

/**
 * A leaf node (number, string, boolean, null) at `range`, all it says of its value kept (written
 * form, floatLiteral: a shifted `16.0` still warns as integer-written-as-float).
 */
function leafAt(n: ValueNode, range: SourceRange): ValueNode {
  return { ...n, range };
}
