/**
 * Completion in profiles and config.json files, driven by the shipped JSON Schema: keys (with
 * their documentation, minus those already present; a config.json gets the HuggingFace keys the
 * schema documents for an inline model) and enum values (dtype, backend, kv dtype, dist, ...). JSON
 * positions come from jsonc-parser's getLocation, which copes with half-typed text; YAML
 * positions inside flow collections and list items from the positioned tree (the yaml library's
 * AST, which reads a half-typed `{ ba` too), in block mappings from the indentation of the lines
 * above, which a half-typed line cannot break. A YAML key whose value is a mapping is inserted
 * with a line break and its children's indent.
 */
import * as jsonc from 'jsonc-parser';
import { CompletionItemKind, MarkupKind, type CompletionItem, type Position, type Range } from 'vscode-languageserver';
import { CONFIG_NAME, nodeAtPath, readSweepBlock, sweepAxisKeys, sweepGpuNames, type ValueNode } from '../core/config';
import type { SourceRange } from '../core/config/types';
import type { Analysis } from './analysis';
import { modelConfigLabel, modelConfigsNear, traceFilesNear } from './modelPaths';
import { PROFILE_DEFAULTS } from '../core/config/profileDefaults';
import { pageSizesFor, VLLM_CUDA_BLOCK_MULTIPLE } from '../core/estimate/checks';
import { alternatives, describeSchema, enumValuesAt, flowMapping, keysAt, schemaAt, schemaPathOf, type EnumValue, type SchemaNode } from './schema';

/** Characters after which the client should ask for completion on its own ('/': the next folder of a `model:` path). */
export const COMPLETION_TRIGGERS = ['"', ':', ' ', '/'];

type Path = Array<string | number>;

interface Context {
  mode: 'key' | 'value';
  /** Key mode: the object's path; value mode: the value's path. */
  path: Path;
  /** The text the chosen item replaces (the half-typed word, quotes included). */
  replace: Range;
  /** JSON key mode: whether a ':' already follows the word. */
  colonFollows: boolean;
  /** YAML: inside a flow mapping (`device: { ba|`), where a key's value stays on the line. */
  flow?: boolean;
}

const WORD = /[\w."-]/;

function wordAround(text: string, offset: number): { start: number; end: number } {
  let start = offset;
  while (start > 0 && WORD.test(text[start - 1]!)) start--;
  let end = offset;
  while (end < text.length && WORD.test(text[end]!)) end++;
  return { start, end };
}

function jsonContext(a: Analysis, offset: number): Context | null {
  const text = a.document.getText();
  const loc = jsonc.getLocation(text, offset);
  const { start, end } = wordAround(text, offset);
  const replace = { start: a.document.positionAt(start), end: a.document.positionAt(end) };
  if (loc.isAtPropertyKey) {
    return { mode: 'key', path: loc.path.slice(0, -1), replace, colonFollows: /^\s*:/.test(text.slice(end)) };
  }
  if (loc.path.length === 0) return null;
  return { mode: 'value', path: loc.path, replace, colonFollows: false };
}

/** Key of a `key:` YAML line and its indentation; null for other lines. */
function yamlKeyLine(line: string): { indent: number; key: string; rest: string } | null {
  const m = /^(\s*)(?:-\s+)?([^\s:#{}[\],][^:#{}[\],]*?):(?:\s+(.*))?$/.exec(line);
  return m ? { indent: m[1]!.length, key: m[2]!.trim(), rest: (m[3] ?? '').trim() } : null;
}

/** Path of the mapping a line with this indentation belongs to, from the `key:` lines above it. */
function yamlParentPath(lines: string[], lineNo: number, indent: number): Path {
  const path: string[] = [];
  let limit = indent;
  for (let i = lineNo - 1; i >= 0 && limit > 0; i--) {
    const line = lines[i]!;
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const kl = yamlKeyLine(line);
    const lineIndent = line.length - line.trimStart().length;
    if (lineIndent >= limit) continue;
    if (kl === null || (kl.rest !== '' && !kl.rest.startsWith('#'))) return path;
    path.unshift(kl.key);
    limit = lineIndent;
  }
  return path;
}

/** True for the path of a sweep axis's list: sweep.axes.<dotted profile key>. */
const isSweepAxis = (path: Path): boolean => path.length === 3 && path[0] === 'sweep' && path[1] === 'axes' && typeof path[2] === 'string';

/**
 * Where an offset lies in a YAML document's positioned tree (core/config/tree.ts, built from the
 * yaml library's AST, which reads half-typed flow collections too: `device: { ba` is a key ba).
 * `in` is the innermost collection holding it: a flow one (`{ }`, `[ ]`), a block list (`- ` items
 * at any indent, its key's column included), or a block mapping, whose half-typed lines the tree
 * does not place reliably (yamlContext reads those from the indentation instead).
 */
interface TreePlace {
  mode: 'key' | 'value';
  /** Key mode: the mapping's path; value mode: the value's (a list item's ends in its index). */
  path: Path;
  in: 'flow' | 'list' | 'block';
  /** Value mode: the scalar written there, if any. */
  written?: ValueNode;
}

const endOf = (r: SourceRange): number => r.offset + r.length;
const holds = (r: SourceRange, offset: number): boolean => r.offset <= offset && offset <= endOf(r);

/** The {@link TreePlace} of `offset` inside `node` (at `path`); null where the tree cannot say (a block list between items). */
function treePlace(text: string, node: ValueNode, path: Path, offset: number): TreePlace | null {
  const flow = text[node.range.offset] === '{' || text[node.range.offset] === '[';
  const within: TreePlace['in'] = flow ? 'flow' : node.type === 'array' ? 'list' : 'block';
  const inside = (v: ValueNode): boolean => (v.type === 'object' || v.type === 'array') && holds(v.range, offset) && !(offset === v.range.offset && (text[offset] === '{' || text[offset] === '['));
  if (node.type === 'object') {
    // The last key written at or before the offset (a block value's range runs on to the next key).
    const p = (node.properties ?? []).filter((q) => q.keyRange.offset <= offset).at(-1);
    if (p === undefined || holds(p.keyRange, offset)) return { mode: 'key', path, in: within };
    const v = p.value;
    if (inside(v)) return treePlace(text, v, [...path, p.key], offset);
    // A scalar (or nothing yet) after `key:` on the same line.
    const end = v.type === 'null' ? v.range.offset : endOf(v.range);
    if (offset <= end && !/[\r\n]/.test(text.slice(endOf(p.keyRange), offset)) && v.type !== 'object' && v.type !== 'array') {
      return { mode: 'value', path: [...path, p.key], in: within, ...(v.type === 'null' ? {} : { written: v }) };
    }
    return { mode: 'key', path, in: within };
  }
  if (node.type !== 'array') return null;
  const items = node.items ?? [];
  const i = items.findIndex((item) => holds(item.range, offset));
  if (i >= 0) {
    const item = items[i]!;
    if (inside(item)) return treePlace(text, item, [...path, i], offset);
    if (item.type !== 'object' && item.type !== 'array') return { mode: 'value', path: [...path, i], in: within, ...(item.type === 'null' ? {} : { written: item }) };
  }
  // Between the items of a flow list (`[H200, |`): the next item's index.
  return flow ? { mode: 'value', path: [...path, items.filter((item) => endOf(item.range) < offset).length], in: within } : null;
}

/** The tree place of `position` in a YAML document; null without a tree. */
function yamlTreePlace(a: Analysis, position: Position): TreePlace | null {
  return a.tree === null ? null : treePlace(a.document.getText(), a.tree, [], a.document.offsetAt(position));
}

function yamlContext(a: Analysis, position: Position): Context | null {
  const text = a.document.getText();
  const lines = text.split(/\r?\n|\r/);
  const line = lines[position.line] ?? '';
  const before = line.slice(0, position.character);
  const offset = a.document.offsetAt(position);
  const { start, end } = wordAround(text, offset);
  const replace = { start: a.document.positionAt(start), end: a.document.positionAt(end) };
  // Inside a flow collection (`device: { ba|`, `workload: { prompt_len: { dist: |`,
  // `sweep: { axes: { device.gpu: [ | ] } }`) or a list item (`- |`, also at its key's column):
  // the tree says where. A value written there is replaced whole (a GPU name has a space, where
  // wordAround stops).
  const place = yamlTreePlace(a, position);
  if (place !== null && place.in !== 'block') {
    if (place.mode === 'key') return { mode: 'key', path: place.path, replace, colonFollows: false, flow: true };
    const written = place.written ? { start: a.document.positionAt(place.written.range.offset), end: a.document.positionAt(endOf(place.written.range)) } : { start: position, end: position };
    return { mode: 'value', path: place.path, replace: written, colonFollows: false };
  }
  const indent = before.length - before.trimStart().length;
  const valueMatch = /^(\s*)(?:-\s+)?([\w.-]+):\s+["']?[\w.-]*$/.exec(before);
  if (valueMatch) {
    const parent = yamlParentPath(lines, position.line, valueMatch[1]!.length);
    return { mode: 'value', path: [...parent, valueMatch[2]!], replace, colonFollows: false };
  }
  if (/^\s*(?:-\s+)?[\w.-]*$/.test(before)) {
    const colonFollows = /^[\w.-]*\s*:/.test(line.slice(position.character));
    return { mode: 'key', path: yamlParentPath(lines, position.line, indent), replace, colonFollows };
  }
  return null;
}

/** True when every alternative of `schema` that names a type is an object (workload, prompt_len; not model, a path or a mapping). */
function objectValued(schema: SchemaNode): boolean {
  const types = new Set(alternatives(schema).flatMap((s) => (s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type])));
  return types.size === 1 && types.has('object');
}

/**
 * The indentation step of a YAML document: the indent of its first indented key line (a
 * profile written with 4 spaces gets 4), else 2.
 */
function yamlIndentStep(text: string): number {
  const m = /^( +)[^\s#-]/m.exec(text);
  return m ? m[1]!.length : 2;
}

function presentKeys(a: Analysis, path: Path): Set<string> {
  const node = nodeAtPath(a.tree, path);
  return new Set((node?.properties ?? []).map((p) => p.key));
}

/** The scalar written at `path` (a string, number or boolean); undefined for none or a mapping or list. */
function writtenScalar(a: Analysis, path: Path): unknown {
  const v = nodeAtPath(a.tree, path)?.value;
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : undefined;
}

function literal(a: Analysis, value: unknown, replacingQuoted: boolean): string {
  if (a.syntax === 'json' || replacingQuoted) return JSON.stringify(value);
  return String(value);
}

/**
 * Completion items at `position` of a profile or config.json; [] elsewhere. A space typed (`trigger` ' ') only
 * offers values after `key: `, so that indenting a line does not pop up the key list.
 */
export function completion(a: Analysis, position: Position, trigger?: string): CompletionItem[] {
  if (a.kind === 'other') return [];
  const modelPaths = modelPathCompletion(a, position);
  if (modelPaths !== null) return modelPaths;
  const tracePaths = tracePathCompletion(a, position);
  if (tracePaths !== null) return tracePaths;
  const kind = a.kind;
  const ctx = a.syntax === 'json' ? jsonContext(a, a.document.offsetAt(position)) : yamlContext(a, position);
  if (ctx === null || (trigger === ' ' && ctx.mode === 'key')) return [];
  const replaced = a.document.getText(ctx.replace);
  if (ctx.mode === 'key') {
    const present = presentKeys(a, ctx.path);
    const typed = replaced.replace(/"/g, '');
    // Under sweep.axes the keys are dotted profile paths, which the schema cannot list; under
    // sweep.gpu_hour_usd the GPU models the sweep's points run on (the profile's, an axis's).
    const sweepKey = kind === 'profile' && ctx.path.length === 2 && ctx.path[0] === 'sweep' ? ctx.path[1] : undefined;
    const keys = sweepKey === 'axes'
      ? sweepAxisKeys().map((k) => ({ key: k.key, schema: { description: `Sweep axis: the values of \`${k.key}\` to try, as a list.${k.description ? `\n\n${k.description}` : ''}` } }))
      : sweepKey === 'gpu_hour_usd' && a.tree
        ? sweepGpuNames(a.tree, readSweepBlock(a.tree).block?.axes ?? []).map((gpu) => ({ key: gpu, schema: { description: `What one ${gpu} costs per hour, US dollars: your price (user-given), never a built-in one.` } }))
        : keysAt(schemaPathOf(kind, ctx.path), (key) => writtenScalar(a, [...ctx.path, key]));
    // A YAML key whose value is a mapping goes on its own line, the cursor on the next line at the
    // children's indent, as the YAML extension does: `workload: ` left a newcomer at column 1 after
    // Enter, where completion offered top-level keys again.
    const text = a.document.getText();
    const eol = /\r\n?|\n/.exec(text)?.[0] ?? '\n';
    const childIndent = ' '.repeat(ctx.replace.start.character + yamlIndentStep(text));
    return keys
      .filter((k) => !present.has(k.key) || k.key === typed)
      .map((k, i) => {
        const key = a.syntax === 'json' ? JSON.stringify(k.key) : k.key;
        const block = a.syntax !== 'json' && !ctx.flow && objectValued(k.schema);
        const newText = ctx.colonFollows ? key : block ? `${key}:${eol}${childIndent}` : `${key}: `;
        return {
          label: k.key,
          kind: CompletionItemKind.Property,
          documentation: { kind: MarkupKind.Markdown, value: describeSchema(k.schema) },
          sortText: String(i).padStart(3, '0'),
          filterText: a.syntax === 'json' ? `"${k.key}"` : k.key,
          textEdit: { range: ctx.replace, newText },
        };
      });
  }
  const quoted = replaced.startsWith('"') || replaced.startsWith("'");
  // An item of a sweep axis's list (sweep.axes."device.gpu"[i]) takes the values of the profile key it sweeps: the GPU names
  // were offered at device.gpu but not inside `device.gpu: [` (s41 newcomer-ed F13). Not the axis itself: it takes a list.
  const sweepItem = kind === 'profile' && ctx.path.length === 4 && isSweepAxis(ctx.path.slice(0, 3)) && typeof ctx.path[3] === 'number';
  const path = sweepItem ? String(ctx.path[2]).split('.') : ctx.path;
  const docs = schemaAt(schemaPathOf(kind, path)).map((s) => describeSchema(s)).find((d) => d !== '');
  const length = kind === 'profile' && !sweepItem && path.length === 2 && path[0] === 'workload' && (path[1] === 'prompt_len' || path[1] === 'output_len') ? path[1] : null;
  if (length !== null && !quoted) return lengthDistValues(a, length, ctx.replace, docs);
  const values = kind === 'profile' && path.length === 2 && path[0] === 'kv_cache' && path[1] === 'page_size'
    ? pageSizeValues(a)
    : enumValuesAt(schemaPathOf(kind, path));
  return values.map((v, i) => {
    const text = literal(a, v.value, quoted);
    return {
      label: String(v.value),
      kind: CompletionItemKind.EnumMember,
      detail: v.description,
      documentation: docs === undefined ? undefined : { kind: MarkupKind.Markdown, value: docs },
      sortText: String(i).padStart(3, '0'),
      filterText: text,
      textEdit: { range: ctx.replace, newText: text },
    };
  });
}

/**
 * The values offered at workload.prompt_len / output_len: one mapping per distribution the schema
 * takes (fixed, uniform, lognormal, exponential), on one line with its fields filled from the
 * key's default (core/config/profileDefaults.ts: prompt_len lognormal median 512, sigma 1, max
 * 4096; output_len uniform 32 to 512), the default's own kind first and marked: a value that
 * passes the checks as it is (`{ dist: exponential, mean: 512, max: 4096 }`). They offered nothing.
 */
function lengthDistValues(a: Analysis, key: 'prompt_len' | 'output_len', replace: Range, docs: string | undefined): CompletionItem[] {
  const d = key === 'prompt_len' ? PROFILE_DEFAULTS.workload.promptLen : PROFILE_DEFAULTS.workload.outputLen;
  const f = d as { value?: number; median?: number; mean?: number; min?: number; max?: number };
  const center = f.value ?? f.median ?? f.mean ?? Math.round(((f.min ?? 1) + (f.max ?? 1)) / 2);
  const max = f.max ?? center;
  const kinds: Array<Record<string, unknown>> = [
    { dist: 'fixed', value: center },
    { dist: 'uniform', min: f.min ?? 1, max },
    { dist: 'lognormal', median: center, sigma: 1, max },
    { dist: 'exponential', mean: center, max },
  ].map((k) => (k.dist === d.dist ? { ...d } : k));
  kinds.sort((x, y) => Number(y['dist'] === d.dist) - Number(x['dist'] === d.dist));
  const branches = schemaAt(schemaPathOf('profile', ['workload', key]));
  return kinds.map((k, i) => {
    const text = flowMapping(a.syntax === 'json', k);
    const description = branches.find((b) => b.properties?.['dist']?.const === k['dist'])?.description;
    return {
      label: String(k['dist']),
      kind: CompletionItemKind.Struct,
      detail: `${k['dist'] === d.dist ? 'default · ' : ''}${text}${description ? ` · ${description}` : ''}`,
      documentation: docs === undefined ? undefined : { kind: MarkupKind.Markdown, value: docs },
      sortText: String(i).padStart(3, '0'),
      // The kind typed so far ("log") picks its mapping.
      filterText: String(k['dist']),
      textEdit: { range: replace, newText: text },
    };
  });
}

/**
 * The values offered for kv_cache.page_size: the page sizes this profile's device can use
 * (core/estimate pageSizesFor, vLLM's --block-size choices; multiples of 16 on a GPU), so that
 * no value offered is one the diagnostics then flag. device.gpu and device.backend are read from
 * the tree, which a half-typed page_size does not stop.
 */
function pageSizeValues(a: Analysis): EnumValue[] {
  const text = (path: string[]): string | undefined => {
    const v = nodeAtPath(a.tree, path)?.value;
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  const gpu = text(['device', 'gpu']);
  const backend = text(['device', 'backend']) ?? 'auto';
  const where = gpu !== undefined || backend === 'cuda' ? `; on ${gpu ?? 'a CUDA GPU'} vLLM takes multiples of ${VLLM_CUDA_BLOCK_MULTIPLE}` : '';
  return pageSizesFor(gpu, backend).map((value) => ({
    value,
    description: `${value === PROFILE_DEFAULTS.kvCache.pageSize ? 'default · ' : ''}vLLM --block-size ${value} (vllm/config/cache.py BlockSize${where})`,
  }));
}

/**
 * The value at `key` (a profile's `['model']`, `['workload', 'trace']`) under the cursor, in YAML
 * (block or flow mapping, after `key: `) or JSON: the range a path completion replaces (the whole
 * path written so far, quotes included) and the quote it was written with ('' unquoted); null
 * elsewhere, an inline mapping at `key` included (an inline `model:`). The one place both path
 * completions ({@link modelPathCompletion}, {@link tracePathCompletion}) find their value.
 */
function pathValueAt(a: Analysis, position: Position, key: readonly string[]): { replace: Range; quote: string } | null {
  const text = a.document.getText();
  const offset = a.document.offsetAt(position);
  const atKey = (path: ReadonlyArray<string | number>): boolean => path.length === key.length && key.every((k, i) => path[i] === k);
  if (a.syntax === 'json') {
    const loc = jsonc.getLocation(text, offset);
    if (loc.isAtPropertyKey || !atKey(loc.path)) return null;
    const node = loc.previousNode;
    if (node !== undefined && node.type !== 'string') return null;
    const start = node?.offset ?? offset;
    const end = node ? node.offset + node.length : offset;
    return { replace: { start: a.document.positionAt(start), end: a.document.positionAt(end) }, quote: '"' };
  }
  const place = yamlTreePlace(a, position);
  if (place?.mode !== 'value' || !atKey(place.path)) return null;
  const start = place.written?.range.offset ?? offset;
  // After `key: `, not on `key:` itself.
  if (!/\s/.test(text[start - 1] ?? '')) return null;
  const end = place.written ? endOf(place.written.range) : offset;
  const quote = text[start] === '"' || text[start] === "'" ? text[start]! : '';
  return { replace: { start: a.document.positionAt(start), end: a.document.positionAt(end) }, quote };
}

/** A path offered for the value {@link pathValueAt} found: it replaces the whole value, in the quote it was written with. */
function pathItem(at: { replace: Range; quote: string }, path: string, i: number, item: Pick<CompletionItem, 'kind' | 'detail' | 'documentation'>): CompletionItem {
  const newText = at.quote === '' ? path : `${at.quote}${path}${at.quote}`;
  return { label: path, ...item, sortText: String(i).padStart(4, '0'), filterText: newText, textEdit: { range: at.replace, newText } };
}

/**
 * Completion of workload.trace in a profile: the files beside it named as a trace is (modelPaths.traceFilesNear:
 * .jsonl, .csv, .json), relative to the profile; it offered only word-based suggestions (s41 newcomer-ed F13).
 * Null when the cursor is not on that value.
 */
function tracePathCompletion(a: Analysis, position: Position): CompletionItem[] | null {
  if (a.kind !== 'profile' || a.path === null) return null;
  const at = pathValueAt(a, position, ['workload', 'trace']);
  if (at === null) return null;
  return traceFilesNear(a.path).map((path, i) => pathItem(at, path, i, { kind: CompletionItemKind.File, detail: 'request trace to replay (its format is read from its first line)' }));
}

/** What `model:` takes, shown beside each path offered (core/config/profile.ts readModelPath and unreadModelHint). */
const MODEL_VALUE_DOC = [
  '`model:` takes a path relative to this profile: a HuggingFace config.json, or the folder holding one (its config.json is read).',
  'Or write the model inline: a mapping of config.json keys (`model_type`, `num_hidden_layers`, `hidden_size`, `num_attention_heads`, `num_key_value_heads`, ...).',
  'A HuggingFace repo id or a URL is not fetched (AttnScope reads local files only): download its config.json first, e.g. `huggingface-cli download <repo id> config.json --local-dir ./<name>`.',
].join('\n\n');

/**
 * Completion of `model:` in a profile: the model configs near it inside the workspace
 * (modelPaths.modelConfigsNear), relative to the profile, nearest first, then the folders of
 * those named config.json (a folder reads its config.json), each documented with what else
 * `model:` takes; null when the cursor is not on that value.
 */
function modelPathCompletion(a: Analysis, position: Position): CompletionItem[] | null {
  if (a.kind !== 'profile' || a.path === null) return null;
  const at = pathValueAt(a, position, ['model']);
  if (at === null) return null;
  const configs = modelConfigsNear(a.path);
  const folders = configs.filter((p) => p.endsWith(`/${CONFIG_NAME}`) && p !== `./${CONFIG_NAME}`).map((p) => p.slice(0, -CONFIG_NAME.length - 1));
  const documentation = { kind: MarkupKind.Markdown, value: MODEL_VALUE_DOC };
  return [
    ...configs.map((p, i) => pathItem(at, p, i, { kind: CompletionItemKind.File, detail: `model config (${modelConfigLabel(p)})`, documentation })),
    ...folders.map((p, i) => pathItem(at, p, configs.length + i, { kind: CompletionItemKind.Folder, detail: `model folder (reads its ${CONFIG_NAME})`, documentation })),
  ];
}
