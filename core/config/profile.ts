/**
 * *.attn.yaml / *.attn.json profiles -> Profile. Parses with positions (yaml parseDocument,
 * jsonc-parser), validates against schemas/attn-profile.schema.json with ajv, maps every ajv
 * error to a Problem at the range of the offending key or value, resolves `model:` (a path
 * read through the host, so unsaved editor text wins, or an inline mapping of HF keys), checks
 * what a schema cannot (tensor parallelism vs heads, lengths vs the model's context, min ≤ max),
 * and fills defaults.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import profileSchema from '../../schemas/attn-profile.schema.json';
import { nearestPageSize } from '../estimate/checks';
import { guarded, modelSpecFromTree, readModelConfig, readModelConfigTree } from './model';
import { getProperty, nodeAtPath, parseJsonTree, parseYamlTree, toPlain, type ParsedTree, type ValueNode } from './tree';
import type {
  DecodeSpec,
  DeviceSpec,
  Dtype,
  EngineSpec,
  KvCacheSpec,
  LengthDist,
  ModelSpec,
  PrefillSpec,
  Problem,
  Profile,
  ReadResult,
  SourceRange,
  WorkloadSpec,
} from './types';

/** How a profile reads the files it points at. Editors pass their unsaved text first. */
export interface ProfileHost {
  /** The text of an absolute path, or null when it cannot be read. */
  readFile(absPath: string): string | null;
}

/**
 * Defaults of every optional profile key (the schema's `default` annotations say the same; a
 * unit test keeps them equal). Prefill and decode are sized so the default CPU benchmark of an
 * 8B-class model stays under a minute on 2 cores.
 */
export const PROFILE_DEFAULTS = {
  dtype: 'bf16' as Dtype,
  device: { backend: 'auto', memoryGib: null, gpu: null, gpuMemoryUtilization: 0.9, tensorParallelSize: 1 } satisfies DeviceSpec,
  engine: { vllmVersion: null, nonTorchGib: 'auto', ncclGib: 'auto', cudaGraphGib: 'auto', activationGib: 'auto' } satisfies EngineSpec,
  kvCache: { pageSize: 16, dtype: 'auto', numPages: 'auto', memoryGib: 'auto' } satisfies KvCacheSpec,
  prefill: { batchSize: 1, seqLens: [512, 1024], causal: true } satisfies PrefillSpec,
  decode: { batchSizes: [1, 8], contextLens: [1024, 4096] } satisfies DecodeSpec,
  workload: {
    requests: 1000,
    arrivalRate: 8,
    promptLen: { dist: 'lognormal', median: 512, sigma: 1, max: 4096 },
    outputLen: { dist: 'uniform', min: 32, max: 512 },
    maxNumSeqs: 256,
    maxModelLen: 8192,
    maxNumBatchedTokens: 8192,
    seed: 0,
  } satisfies WorkloadSpec,
} as const;

let validator: ValidateFunction | null = null;
function validate(value: unknown): ErrorObject[] {
  if (!validator) {
    const ajv = new Ajv({ allErrors: true, verbose: true, discriminator: true, allowUnionTypes: true });
    // Editor-only annotations VS Code reads from the same schema.
    ajv.addVocabulary(['errorMessage', 'enumDescriptions', 'defaultSnippets', 'markdownDescription']);
    validator = ajv.compile(profileSchema);
  }
  return validator(value) ? [] : [...(validator.errors ?? [])];
}

/** What users write for a dtype (torch and vLLM names) -> the profile's name. */
const DTYPE_SYNONYMS: Record<string, string> = {
  bfloat16: 'bf16', float16: 'fp16', half: 'fp16', float32: 'fp32', float: 'fp32',
  fp8: 'fp8_e4m3', float8_e4m3fn: 'fp8_e4m3', fp8_e4m3fn: 'fp8_e4m3', e4m3: 'fp8_e4m3',
};

/** Levenshtein distance, for "did you mean". */
function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/** The closest candidate within a distance that still reads as a typo, or undefined. */
export function closestMatch(word: string, candidates: readonly string[]): string | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');
  const prefixed = candidates.filter((c) => word.length >= 2 && norm(c).startsWith(norm(word)));
  if (prefixed.length === 1) return prefixed[0];
  let best: string | undefined;
  let bestDist = Infinity;
  for (const c of candidates) {
    const d = norm(word) === norm(c) ? 0 : editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDist) {
      bestDist = d;
      best = c;
    }
  }
  return best !== undefined && bestDist <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

function pointerToPath(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function dotted(path: readonly string[]): string {
  return path.length === 0 ? 'the profile' : path.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : (i > 0 ? '.' : '') + s)).join('');
}

function describeValue(node: ValueNode | undefined): string {
  if (!node) return 'nothing';
  if (node.type === 'string') return `the string ${JSON.stringify(node.value)}`;
  if (node.type === 'object') return 'a mapping';
  if (node.type === 'array') return 'a list';
  if (node.type === 'null') return 'null';
  return `${node.type} ${String(node.value)}`;
}

/** Where to point for a problem about an object's member: the key of the object in its parent, else its first character. */
function anchorOf(root: ValueNode, path: readonly string[]): SourceRange {
  if (path.length > 0) {
    const parent = nodeAtPath(root, path.slice(0, -1));
    const prop = getProperty(parent, path[path.length - 1]!);
    if (prop) return prop.keyRange;
  }
  const node = nodeAtPath(root, path) ?? root;
  return { offset: node.range.offset, length: Math.min(1, node.range.length) };
}

/** ajv errors -> Problems at exact ranges, one per cause. */
function schemaProblems(root: ValueNode, errors: ErrorObject[]): Problem[] {
  const problems: Problem[] = [];
  const seen = new Set<string>();
  const add = (p: Problem) => {
    const k = `${p.range.offset}:${p.range.length}:${p.code}`;
    if (!seen.has(k)) {
      seen.add(k);
      problems.push(p);
    }
  };
  // An anyOf with its own errorMessage speaks for all its branches.
  const anyOfPaths = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  // A value of the wrong type needs no second message about its allowed values or bounds.
  const typePaths = new Set(errors.filter((e) => e.keyword === 'type').map((e) => e.instancePath));
  for (const e of errors) {
    // Inside an inline model the model reader reports, with HF-specific messages.
    if (e.instancePath.startsWith('/model/')) continue;
    const path = pointerToPath(e.instancePath);
    const where = dotted(path);
    const node = nodeAtPath(root, path);
    const range = node?.range ?? anchorOf(root, path);
    if (anyOfPaths.has(e.instancePath) && e.keyword !== 'anyOf') continue;
    if (typePaths.has(e.instancePath) && e.keyword !== 'type' && e.keyword !== 'anyOf') continue;
    switch (e.keyword) {
      case 'additionalProperties': {
        const key = String((e.params as { additionalProperty: string }).additionalProperty);
        const prop = getProperty(node, key);
        const known = Object.keys((e.parentSchema as { properties?: Record<string, unknown> }).properties ?? {}).filter((k) => k !== '$schema');
        const suggestion = closestMatch(key, known);
        const inWhere = path.length === 0 ? '' : ` in ${where}`;
        add({
          severity: 'warning',
          code: 'unknown-key',
          message: suggestion
            ? `unknown key "${key}"${inWhere}: did you mean "${suggestion}"?`
            : `unknown key "${key}"${inWhere}: known keys are ${known.join(', ')}`,
          range: prop?.keyRange ?? range,
          data: suggestion ? { key, suggestion } : { key },
        });
        break;
      }
      case 'required': {
        const missing = String((e.params as { missingProperty: string }).missingProperty);
        add({
          severity: 'error',
          code: 'missing-field',
          message: path.length === 0 && missing === 'model'
            ? 'missing "model": give a path to a HuggingFace config.json, e.g. `model: ./llama-3.1-8b/config.json`'
            : `${where} needs "${missing}"`,
          range: anchorOf(root, path),
          data: { key: [...path, missing].join('.') },
        });
        break;
      }
      case 'type': {
        const expected = (e.params as { type: string | string[] }).type;
        const list = Array.isArray(expected) ? expected.join(' or ') : expected;
        const custom = (e.parentSchema as { errorMessage?: string }).errorMessage;
        add({
          severity: 'error',
          code: 'wrong-type',
          message: custom ? `${custom}, not ${describeValue(node)}` : `${where} must be ${article(list)}, not ${describeValue(node)}`,
          range,
          data: { key: path.join('.'), expected },
        });
        break;
      }
      case 'enum': {
        const allowed = ((e.params as { allowedValues: unknown[] }).allowedValues).map(String);
        const got = node?.value;
        const synonym = typeof got === 'string' ? DTYPE_SYNONYMS[got.toLowerCase().replace(/^torch\./, '')] : undefined;
        const suggestion = synonym && allowed.includes(synonym) ? synonym : typeof got === 'string' ? closestMatch(got, allowed) : undefined;
        add({
          severity: 'error',
          code: 'invalid-value',
          message: `${where} must be one of ${allowed.join(', ')}, not ${describeValue(node)}${suggestion ? `: did you mean "${suggestion}"?` : ''}`,
          range,
          data: suggestion ? { key: path.join('.'), allowed, suggestion } : { key: path.join('.'), allowed },
        });
        break;
      }
      case 'minimum':
      case 'maximum':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum': {
        const { comparison, limit } = e.params as { comparison: string; limit: number };
        add({
          severity: 'error',
          code: 'invalid-value',
          message: `${where} must be ${comparison} ${limit}, not ${String(node?.value)}`,
          range,
          data: { key: path.join('.'), limit },
        });
        break;
      }
      case 'minItems':
        add({ severity: 'error', code: 'invalid-value', message: `${where} needs at least one value`, range, data: { key: path.join('.') } });
        break;
      case 'anyOf': {
        const custom = (e.parentSchema as { errorMessage?: string }).errorMessage ?? `${where} has an invalid value`;
        add({ severity: 'error', code: 'invalid-value', message: `${custom}, not ${describeValue(node)}`, range, data: { key: path.join('.') } });
        break;
      }
      case 'discriminator': {
        const branches = ['fixed', 'uniform', 'lognormal', 'exponential'];
        const distNode = getProperty(node, 'dist')?.value;
        const got = distNode?.value;
        const suggestion = typeof got === 'string' ? closestMatch(got, branches) : undefined;
        add({
          severity: 'error',
          code: distNode ? 'invalid-value' : 'missing-field',
          message: distNode
            ? `${where}.dist must be one of ${branches.join(', ')}, not ${describeValue(distNode)}${suggestion ? `: did you mean "${suggestion}"?` : ''}`
            : `${where} needs "dist": one of ${branches.join(', ')}`,
          range: distNode?.range ?? anchorOf(root, path),
          data: suggestion ? { key: `${path.join('.')}.dist`, suggestion } : { key: `${path.join('.')}.dist` },
        });
        break;
      }
      case 'oneOf':
      case 'const':
        // Covered by the discriminator error or by the branch's own errors.
        break;
      default:
        add({ severity: 'error', code: 'invalid-value', message: `${where} ${e.message ?? 'is invalid'}`, range, data: { key: path.join('.') } });
    }
  }
  return problems;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** Every value's range, by dotted path ("kv_cache.page_size", "prefill.seq_lens.0"). */
function collectRanges(node: ValueNode, prefix: string, out: Record<string, SourceRange>): void {
  if (prefix) out[prefix] = node.range;
  if (node.type === 'object') {
    for (const p of node.properties ?? []) collectRanges(p.value, prefix ? `${prefix}.${p.key}` : p.key, out);
  } else if (node.type === 'array') {
    (node.items ?? []).forEach((item, i) => collectRanges(item, `${prefix}.${i}`, out));
  }
}

type Plain = Record<string, unknown>;

function lengthDist(raw: unknown, fallback: LengthDist): LengthDist {
  if (!raw || typeof raw !== 'object') return fallback;
  const r = raw as Plain;
  switch (r.dist) {
    case 'fixed':
      return { dist: 'fixed', value: r.value as number };
    case 'uniform':
      return { dist: 'uniform', min: r.min as number, max: r.max as number };
    case 'lognormal':
      return { dist: 'lognormal', median: r.median as number, sigma: (r.sigma as number | undefined) ?? 1, max: r.max as number };
    case 'exponential':
      return { dist: 'exponential', mean: r.mean as number, max: r.max as number };
    default:
      return fallback;
  }
}

/**
 * Default lengths that fit the model's context: those up to max_position_embeddings, or that
 * length alone when every default is longer (GPT-2's 1024, BERT's 512).
 */
function fitLengths(lengths: readonly number[], model: ModelSpec): number[] {
  const max = model.maxPositionEmbeddings;
  if (max === null) return [...lengths];
  const fit = lengths.filter((n) => n <= max);
  return fit.length > 0 ? fit : [max];
}

/** Default prefill and decode cases for a model; an encoder has no decode step, so no decode cases. */
function defaultCases(model: ModelSpec): { prefill: PrefillSpec; decode: DecodeSpec } {
  const D = PROFILE_DEFAULTS;
  return {
    prefill: { batchSize: D.prefill.batchSize, seqLens: fitLengths(D.prefill.seqLens, model), causal: model.isEncoder ? false : D.prefill.causal },
    decode: model.isEncoder
      ? { batchSizes: [], contextLens: [] }
      : { batchSizes: [...D.decode.batchSizes], contextLens: fitLengths(D.decode.contextLens, model) },
  };
}

/**
 * The profile's dtype when it gives none: the config's torch_dtype, except that a float32
 * checkpoint is served in half precision (vLLM's dtype "auto" downcasts float32; bf16 here, as
 * Gemma-2 requires). Returns the dtype and, when it differs from the config, why.
 */
function defaultDtype(model: ModelSpec): { dtype: Dtype; note?: string } {
  if (model.torchDtype === null) return { dtype: PROFILE_DEFAULTS.dtype };
  if (model.torchDtype === 'fp32') {
    return { dtype: 'bf16', note: 'the config says torch_dtype float32; serving engines run such checkpoints in half precision, so bf16 is assumed (set `dtype: fp32` to size for float32)' };
  }
  return { dtype: model.torchDtype };
}

/**
 * The default profile for a bare config.json (what `attnscope bench config.json` and the
 * editor's code lens on a config use): PROFILE_DEFAULTS with the config's dtype.
 */
export function profileFromModelConfig(spec: ModelSpec, configPath: string | null): Profile {
  return {
    sourcePath: configPath,
    model: spec,
    modelPath: configPath,
    dtype: defaultDtype(spec).dtype,
    device: { ...PROFILE_DEFAULTS.device },
    kvCache: { ...PROFILE_DEFAULTS.kvCache },
    ...defaultCases(spec),
    workload: null,
    engine: { ...PROFILE_DEFAULTS.engine },
    ranges: {},
  };
}

/**
 * Reads what a user points AttnScope at: a profile (*.attn.yaml / *.attn.json, by name), or a
 * bare HuggingFace config.json, which gets profileFromModelConfig's defaults. One entry for the
 * CLI (`attnscope bench <file>`) and the editor's code lens.
 */
export function readProfileOrConfig(text: string, file: string, host: ProfileHost): ReadResult<Profile> {
  return readProfileOrConfigTree(parseProfileOrConfig(text, file), file, host);
}

/** Parses a profile (see parseProfileText) or a config.json (strict JSON), as readProfileOrConfig does. */
export function parseProfileOrConfig(text: string, file: string): ParsedTree {
  return /\.attn\.(ya?ml|json)$/i.test(file) ? parseProfileText(text, file) : parseJsonTree(text);
}

/** readProfileOrConfig on text already parsed by parseProfileOrConfig. */
export function readProfileOrConfigTree(parsed: ParsedTree, file: string, host: ProfileHost): ReadResult<Profile> {
  if (/\.attn\.(ya?ml|json)$/i.test(file)) return readProfileTree(parsed, file, host);
  const read = readModelConfigTree(parsed, file);
  if (!read.value) return { value: null, problems: read.problems };
  const note = defaultDtype(read.value).note;
  const problems = [...read.problems];
  if (note) {
    const range = read.value.ranges[read.value.sourceKeys.torchDtype ?? ''] ?? { offset: 0, length: 0 };
    problems.push({ severity: 'info', code: 'dtype-assumed', message: note, range, file });
  }
  return { value: profileFromModelConfig(read.value, file), problems };
}

/** Resolves `model:` given as a path: relative to the profile; a folder means its config.json. */
function readModelPath(
  value: ValueNode,
  profileFile: string,
  host: ProfileHost,
  problems: Problem[],
): { spec: ModelSpec | null; path: string | null } {
  const raw = String(value.value);
  if (raw.trim() === '') {
    problems.push({ severity: 'error', code: 'model-not-found', message: 'model is an empty path: give the path of a HuggingFace config.json, relative to this profile', range: value.range });
    return { spec: null, path: null };
  }
  const abs = isAbsolute(raw) ? raw : resolve(dirname(profileFile), raw);
  let path = abs;
  let text = host.readFile(abs);
  if (text === null && !/\.json$/i.test(abs)) {
    path = join(abs, 'config.json');
    text = host.readFile(path);
  }
  if (text === null) {
    problems.push({
      severity: 'error',
      code: 'model-not-found',
      message: `cannot read the model config "${raw}" (looked for ${abs}${path !== abs ? ` and ${path}` : ''}): check the path, relative to this profile`,
      range: value.range,
      data: { path: abs },
    });
    return { spec: null, path: null };
  }
  const read = readModelConfig(text, path);
  problems.push(...read.problems);
  const errors = read.problems.filter((p) => p.severity === 'error');
  if (errors.length > 0) {
    problems.push({
      severity: 'error',
      code: 'model-config-invalid',
      message: `the model config ${path} has ${errors.length} error${errors.length > 1 ? 's' : ''}; first: ${errors[0]!.message}`,
      range: value.range,
      data: { path },
    });
  }
  return { spec: read.value, path };
}

/** Checks a schema cannot make: they need the model, or compare two keys. */
function semanticProblems(root: ValueNode, profile: Profile): Problem[] {
  const problems: Problem[] = [];
  const m = profile.model;
  const at = (path: string): SourceRange => profile.ranges[path] ?? anchorOf(root, path.split('.'));
  const tp = profile.device.tensorParallelSize;
  if (tp > 1 && m.numHeads % tp !== 0) {
    problems.push({
      severity: 'error', code: 'tp-not-divisible',
      message: `tensor_parallel_size ${tp} does not divide the ${m.numHeads} attention heads: vLLM requires num_attention_heads % tensor_parallel_size == 0`,
      range: at('device.tensor_parallel_size'), data: { numHeads: m.numHeads },
    });
  } else if (tp > 1 && !m.mla && m.numKvHeads % tp !== 0 && tp % m.numKvHeads !== 0) {
    problems.push({
      severity: 'error', code: 'tp-not-divisible',
      message: `tensor_parallel_size ${tp} and the ${m.numKvHeads} KV heads must divide one another (vLLM shards or replicates KV heads)`,
      range: at('device.tensor_parallel_size'), data: { numKvHeads: m.numKvHeads },
    });
  }
  const ps = profile.kvCache.pageSize;
  if ((ps & (ps - 1)) !== 0) {
    problems.push({
      severity: 'warning', code: 'page-size-unusual',
      message: `page_size ${ps} is not a power of two: vLLM's kernels take 8, 16, 32 (and 64-256 with FlashAttention / FlashInfer)`,
      range: at('kv_cache.page_size'), data: { suggestion: nearestPageSize(ps) },
    });
  }
  if (typeof profile.kvCache.numPages === 'number' && typeof profile.kvCache.memoryGib === 'number') {
    problems.push({
      severity: 'warning', code: 'kv-budget-conflict',
      message: 'both kv_cache.num_pages and kv_cache.memory_gib are set: num_pages wins; remove one',
      range: at('kv_cache.memory_gib'),
    });
  }
  if (profile.device.memoryGib === null && !profile.device.gpu && profile.kvCache.memoryGib === 'auto' && profile.kvCache.numPages === 'auto' && !m.isEncoder) {
    problems.push({
      severity: 'info', code: 'no-memory-budget',
      message: 'neither device.memory_gib nor device.gpu is set, so the KV pool is not sized: set device.gpu (A100-80GB, H100-80GB, ...), device.memory_gib or kv_cache.memory_gib',
      range: profile.ranges['device'] ?? anchorOf(root, []),
    });
  }
  const maxPos = m.maxPositionEmbeddings;
  if (maxPos !== null) {
    profile.prefill.seqLens.forEach((n, i) => {
      if (n > maxPos) problems.push({ severity: 'warning', code: 'exceeds-max-position', message: `seq_len ${n} is longer than the model's max_position_embeddings ${maxPos}`, range: at(`prefill.seq_lens.${i}`), data: { limit: maxPos } });
    });
    profile.decode.contextLens.forEach((n, i) => {
      if (n > maxPos) problems.push({ severity: 'warning', code: 'exceeds-max-position', message: `context_len ${n} is longer than the model's max_position_embeddings ${maxPos}`, range: at(`decode.context_lens.${i}`), data: { limit: maxPos } });
    });
    if (profile.workload && profile.ranges['workload.max_model_len'] && profile.workload.maxModelLen > maxPos) {
      problems.push({ severity: 'warning', code: 'exceeds-max-position', message: `max_model_len ${profile.workload.maxModelLen} is longer than the model's max_position_embeddings ${maxPos}`, range: at('workload.max_model_len'), data: { limit: maxPos } });
    }
  }
  if (m.isEncoder && profile.ranges['decode']) {
    problems.push({ severity: 'warning', code: 'encoder-decode', message: `${m.modelType} is an encoder: it has no decode step and no KV cache, so decode cases are skipped`, range: anchorOf(root, ['decode']) });
  }
  const w = profile.workload;
  if (w) {
    for (const key of ['prompt_len', 'output_len'] as const) {
      const d = key === 'prompt_len' ? w.promptLen : w.outputLen;
      if (d.dist === 'uniform' && d.min > d.max) {
        problems.push({ severity: 'error', code: 'invalid-value', message: `workload.${key}: min ${d.min} is greater than max ${d.max}`, range: at(`workload.${key}.min`) });
      }
      if (d.dist === 'lognormal' && d.median > d.max) {
        problems.push({ severity: 'error', code: 'invalid-value', message: `workload.${key}: median ${d.median} is greater than max ${d.max}`, range: at(`workload.${key}.median`) });
      }
      if (d.dist === 'exponential' && d.mean > d.max) {
        problems.push({ severity: 'warning', code: 'invalid-value', message: `workload.${key}: mean ${d.mean} is greater than max ${d.max}: most lengths get clipped`, range: at(`workload.${key}.mean`) });
      }
    }
    const longest = maxOf(w.promptLen) + maxOf(w.outputLen);
    if (longest > w.maxModelLen) {
      problems.push({
        severity: 'warning', code: 'exceeds-max-model-len',
        message: `prompt_len max + output_len max = ${longest} exceeds max_model_len ${w.maxModelLen}: such requests are cut at max_model_len`,
        range: profile.ranges['workload.max_model_len'] ?? anchorOf(root, ['workload']), data: { limit: w.maxModelLen },
      });
    }
    if (w.prefixSharing && w.prefixSharing.prefixLen > maxOf(w.promptLen)) {
      problems.push({ severity: 'warning', code: 'invalid-value', message: `prefix_len ${w.prefixSharing.prefixLen} is longer than the longest prompt ${maxOf(w.promptLen)}`, range: at('workload.prefix_sharing.prefix_len') });
    }
  }
  return problems;
}

function maxOf(d: LengthDist): number {
  return d.dist === 'fixed' ? d.value : d.max;
}

/**
 * Reads a profile. `file` is its absolute path (it decides the syntax, *.attn.json or YAML,
 * and anchors a relative `model:` path); `host.readFile` reads the config it points at.
 * Problems in that config carry `file`. The value is null when any error remains.
 */
export function readProfile(text: string, file: string, host: ProfileHost): ReadResult<Profile> {
  return readProfileTree(parseProfileText(text, file), file, host);
}

/** Parses a profile's text as readProfile does: *.json as JSON (comments allowed), else YAML. */
export function parseProfileText(text: string, file: string): ParsedTree {
  return /\.json$/i.test(file) ? parseJsonTree(text, { allowComments: true }) : parseYamlTree(text);
}

/**
 * readProfile on text already parsed by parseProfileText, so that a caller that needs the tree
 * too (the language server: hints, completion, quick fixes) parses a large profile only once.
 */
export function readProfileTree(parsed: ParsedTree, file: string, host: ProfileHost): ReadResult<Profile> {
  return guarded(() => readProfileTreeUnguarded(parsed, file, host));
}

function readProfileTreeUnguarded(parsed: ParsedTree, file: string, host: ProfileHost): ReadResult<Profile> {
  const problems: Problem[] = [...parsed.problems];
  const root = parsed.root;
  if (!root || (root.type === 'null' && problems.length === 0)) {
    if (!problems.some((p) => p.severity === 'error')) {
      problems.push({
        severity: 'error', code: 'missing-field',
        message: 'the profile is empty: start with `model: ./<model>/config.json`',
        range: { offset: 0, length: 0 }, data: { key: 'model' },
      });
    }
    return { value: null, problems };
  }
  if (root.type !== 'object') {
    problems.push({ severity: 'error', code: 'not-an-object', message: `a profile is a mapping of keys (model, dtype, device, kv_cache, ...), not ${describeValue(root)}`, range: root.range });
    return { value: null, problems };
  }
  const plain = toPlain(root) as Plain;
  problems.push(...schemaProblems(root, validate(plain)));

  // The model.
  const modelNode = getProperty(root, 'model')?.value;
  let model: ModelSpec | null = null;
  let modelPath: string | null = null;
  if (modelNode?.type === 'string') {
    const r = readModelPath(modelNode, file, host, problems);
    model = r.spec;
    modelPath = r.path;
  } else if (modelNode?.type === 'object') {
    const r = modelSpecFromTree(modelNode);
    problems.push(...r.problems.filter((p) => p.code !== 'not-a-model-config'));
    model = r.value;
  }
  if (problems.some((p) => p.severity === 'error') || !model) return { value: null, problems };

  const device = (plain.device ?? {}) as Plain;
  const engine = (plain.engine ?? {}) as Plain;
  const kv = (plain.kv_cache ?? {}) as Plain;
  const prefill = (plain.prefill ?? {}) as Plain;
  const decode = (plain.decode ?? {}) as Plain;
  const D = PROFILE_DEFAULTS;
  const cases = defaultCases(model);
  const ranges: Record<string, SourceRange> = {};
  collectRanges(root, '', ranges);

  const dtypeDefault = defaultDtype(model);
  if (plain.dtype === undefined && dtypeDefault.note && modelNode) {
    problems.push({ severity: 'info', code: 'dtype-assumed', message: dtypeDefault.note, range: modelNode.range, data: { dtype: dtypeDefault.dtype } });
  }
  let workload: WorkloadSpec | null = null;
  if (plain.workload && typeof plain.workload === 'object') {
    const w = plain.workload as Plain;
    const maxModelLen = (w.max_model_len as number | undefined) ?? Math.min(model.maxPositionEmbeddings ?? D.workload.maxModelLen, D.workload.maxModelLen);
    workload = {
      requests: (w.requests as number | undefined) ?? D.workload.requests,
      arrivalRate: (w.arrival_rate as number | undefined) ?? D.workload.arrivalRate,
      promptLen: lengthDist(w.prompt_len, { ...D.workload.promptLen }),
      outputLen: lengthDist(w.output_len, { ...D.workload.outputLen }),
      maxNumSeqs: (w.max_num_seqs as number | undefined) ?? D.workload.maxNumSeqs,
      maxModelLen,
      maxNumBatchedTokens: (w.max_num_batched_tokens as number | undefined) ?? D.workload.maxNumBatchedTokens,
      seed: (w.seed as number | undefined) ?? D.workload.seed,
    };
    const ps = w.prefix_sharing as Plain | undefined;
    if (ps) workload.prefixSharing = { groups: ps.groups as number, prefixLen: ps.prefix_len as number, fraction: ps.fraction as number };
  }

  const profile: Profile = {
    sourcePath: file,
    model,
    modelPath,
    dtype: (plain.dtype as Dtype | undefined) ?? dtypeDefault.dtype,
    device: {
      backend: (device.backend as DeviceSpec['backend'] | undefined) ?? D.device.backend,
      memoryGib: (device.memory_gib as number | null | undefined) ?? D.device.memoryGib,
      gpu: (device.gpu as string | undefined) ?? D.device.gpu,
      gpuMemoryUtilization: (device.gpu_memory_utilization as number | undefined) ?? D.device.gpuMemoryUtilization,
      tensorParallelSize: (device.tensor_parallel_size as number | undefined) ?? D.device.tensorParallelSize,
    },
    kvCache: {
      pageSize: (kv.page_size as number | undefined) ?? D.kvCache.pageSize,
      dtype: (kv.dtype as KvCacheSpec['dtype'] | undefined) ?? D.kvCache.dtype,
      numPages: (kv.num_pages as KvCacheSpec['numPages'] | undefined) ?? D.kvCache.numPages,
      memoryGib: (kv.memory_gib as KvCacheSpec['memoryGib'] | undefined) ?? D.kvCache.memoryGib,
    },
    prefill: {
      batchSize: (prefill.batch_size as number | undefined) ?? cases.prefill.batchSize,
      seqLens: (prefill.seq_lens as number[] | undefined) ?? cases.prefill.seqLens,
      causal: (prefill.causal as boolean | undefined) ?? cases.prefill.causal,
    },
    decode: {
      batchSizes: (decode.batch_sizes as number[] | undefined) ?? cases.decode.batchSizes,
      contextLens: (decode.context_lens as number[] | undefined) ?? cases.decode.contextLens,
    },
    workload,
    engine: {
      vllmVersion: (engine.vllm_version as string | undefined) ?? D.engine.vllmVersion,
      nonTorchGib: (engine.non_torch_gib as number | 'auto' | undefined) ?? D.engine.nonTorchGib,
      ncclGib: (engine.nccl_gib as number | 'auto' | undefined) ?? D.engine.ncclGib,
      cudaGraphGib: (engine.cuda_graph_gib as number | 'auto' | undefined) ?? D.engine.cudaGraphGib,
      activationGib: (engine.activation_gib as number | 'auto' | undefined) ?? D.engine.activationGib,
    },
    ranges,
  };
  problems.push(...semanticProblems(root, profile));
  return { value: problems.some((p) => p.severity === 'error') ? null : profile, problems };
}
