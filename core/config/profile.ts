/**
 * *.attn.yaml / *.attn.json profiles -> Profile. Parses with positions (yaml parseDocument,
 * jsonc-parser), validates against the schema (profileSchema.ts: every ajv error a Problem at
 * the range of the offending key or value), resolves `model:` (a path read through the host,
 * so unsaved editor text wins, or an inline mapping of HF keys), checks what a schema cannot
 * (profileChecks.ts) and fills defaults (profileDefaults.ts).
 */
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { NotRead } from '../fileText';
import { formatBytes, formatCount } from '../format';
import { isProfilePath } from './fileKinds';
import { guarded, modelSpecFromTree, readModelConfig, readModelConfigTree } from './model';
import { semanticProblems } from './profileChecks';
import { vllmMaxModelLen } from '../estimate/index';
import { userGpu, type UserGpuFields } from '../estimate/gpus';
import { defaultCases, defaultDtype, PROFILE_DEFAULTS, profileFromModelConfig } from './profileDefaults';
import { describeValue, parseVllmLength, schemaProblems, validate, vllmSuffixWords } from './profileSchema';
import { schemaAt } from './schemaWalk';
import { getProperty, nodeAtPath, parseJsonTree, parseYamlTree, toPlain, unsafeIntegerText, type ParsedTree, type ValueNode } from './tree';
import { TRACE_SETTING_KEYS, type Dtype, type KvCacheSpec, type LengthDist, type ModelSpec, type Problem, type Profile, type ReadResult, type SourceRange, type WorkloadSpec, type WorkloadTrace, type DeviceSpec, type AllReduceSpec } from './types';

/** How a profile reads the files it points at. Editors pass their unsaved text first. */
export interface ProfileHost {
  /** The text of an absolute path, or null when it cannot be read. */
  readFile(absPath: string): string | null;
  /**
   * Why readFile(absPath) gave null though the file is there: it was refused unread (a FIFO,
   * socket or device; too big), core/fileText.ts readInputText; undefined otherwise.
   */
  whyNotRead?(absPath: string): NotRead | undefined;
  /**
   * parseJsonTree(text) of the file at absPath when the host has it already (the language server:
   * an open config.json's own analysis, which reuses its previous parse around the edit); undefined
   * when it has not. Spares a second parse of a big config.json for each profile reading it.
   */
  parsedJson?(absPath: string, text: string): ParsedTree | undefined;
}

/** The profile's `slo` and `step_time` sections (the schema has checked their values). */
function sloAndStepTime(plain: Plain): Pick<Profile, 'slo' | 'stepTime'> {
  const out: Pick<Profile, 'slo' | 'stepTime'> = {};
  const slo = plain.slo as Plain | undefined;
  if (slo && typeof slo === 'object') {
    out.slo = {};
    if (typeof slo.ttft_ms === 'number') out.slo.ttftMs = slo.ttft_ms;
    if (typeof slo.tpot_ms === 'number') out.slo.tpotMs = slo.tpot_ms;
    if (typeof slo.attainment === 'number') out.slo.attainment = slo.attainment;
  }
  const st = plain.step_time as Plain | undefined;
  if (st && typeof st === 'object') {
    out.stepTime = {};
    if (typeof st.compute_efficiency === 'number') out.stepTime.computeEfficiency = st.compute_efficiency;
    if (typeof st.memory_efficiency === 'number') out.stepTime.memoryEfficiency = st.memory_efficiency;
    if (typeof st.overhead_ms === 'number') out.stepTime.overheadMs = st.overhead_ms;
    const ar = st.all_reduce as Plain | undefined;
    if (ar && typeof ar === 'object') {
      const allReduce: AllReduceSpec = {};
      // efficiency: one number for every algorithm, or a mapping of them.
      const e = ar.efficiency as Plain | number | undefined;
      if (typeof e === 'number') allReduce.efficiency = { oneShot: e, twoShot: e, multimem: e };
      else if (e && typeof e === 'object') {
        allReduce.efficiency = {};
        if (typeof e.one_shot === 'number') allReduce.efficiency.oneShot = e.one_shot;
        if (typeof e.two_shot === 'number') allReduce.efficiency.twoShot = e.two_shot;
        if (typeof e.multimem === 'number') allReduce.efficiency.multimem = e.multimem;
      }
      if (typeof ar.latency_us === 'number') allReduce.latencyUs = ar.latency_us;
      out.stepTime.allReduce = allReduce;
    }
  }
  return out;
}

/**
 * kv_cache.dtype as the profile names it: vLLM's `--kv-cache-dtype fp8` is read as fp8_e4m3,
 * 1 byte per element (vllm/config/cache.py: CacheDType lists "fp8" beside "fp8_e4m3", and
 * CacheConfig.cache_dtype's doc says "CUDA 11.8+ supports fp8 (=fp8_e4m3) and fp8_e5m2. ROCm
 * (AMD GPU) supports fp8 (=fp8_e4m3)").
 */
export function kvCacheDtype(written: string | undefined): KvCacheSpec['dtype'] | undefined {
  return written === 'fp8' ? 'fp8_e4m3' : (written as KvCacheSpec['dtype'] | undefined);
}

/**
 * The range of every key's value, by dotted path ("kv_cache.page_size", "prefill.seq_lens"): a
 * list's items are not listed (a profile's lists hold numbers; 20,000 seq_lens would cost an entry
 * each on every edit): nodeAtPath finds one's node.
 */
function collectRanges(node: ValueNode, prefix: string, out: Record<string, SourceRange>): void {
  if (prefix) out[prefix] = node.range;
  if (node.type === 'object') {
    for (const p of node.properties ?? []) collectRanges(p.value, prefix ? `${prefix}.${p.key}` : p.key, out);
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
 * Parses a profile (see parseProfileText) or a config.json (strict JSON), by the file's name: what
 * a user points AttnScope at, checked by core/validate.ts (validateProfileText, which also reads a
 * name that says neither, /dev/fd/63, by its text: readsAsProfile).
 */
export function parseProfileOrConfig(text: string, file: string): ParsedTree {
  return isProfilePath(file) ? parseProfileText(text, file) : parseJsonTree(text);
}

/**
 * Reads the tree parseProfileOrConfig made: a profile, or a bare HuggingFace config.json, which
 * gets profileFromModelConfig's defaults.
 */
export function readProfileOrConfigTree(parsed: ParsedTree, file: string, host: ProfileHost): ReadResult<Profile> {
  if (isProfilePath(file)) return readProfileTree(parsed, file, host);
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

/**
 * What to do about a `model:` that names no readable file: AttnScope reads local files only, so a
 * URL, a HuggingFace repo id (what vLLM's --model takes) or a ~ path (never expanded) get their
 * own advice; anything else is a path to check.
 */
function unreadModelHint(raw: string): string {
  const v = raw.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) return 'URLs are not fetched (AttnScope reads local files only): download the config.json and give its path, relative to this profile';
  if (v.startsWith('~')) return '~ is not expanded: give a path relative to this profile, or an absolute one';
  if (/^[\w.-]+\/[\w.-]+$/.test(v) && !v.startsWith('.') && !/\.json$/i.test(v)) {
    return `if "${v}" is a HuggingFace repo id: AttnScope reads local files only, so download its config.json (huggingface-cli download ${v} config.json --local-dir ./${v.split('/')[1]}) and set model: ./${v.split('/')[1]}/config.json`;
  }
  return 'check the path, relative to this profile';
}

/**
 * What a folder without config.json holds of a HuggingFace checkpoint, in words, or null: its
 * model.safetensors.index.json (with the index's metadata.total_size, the weights' bytes, when it
 * gives one) or a single model.safetensors. A weights download that skipped config.json (s39
 * newcomer-ed 7: the error said to check a path that was right).
 */
function weightsWithoutConfig(host: ProfileHost, folder: string): string | null {
  const index = host.readFile(join(folder, 'model.safetensors.index.json'));
  if (index !== null) {
    let total: unknown;
    try {
      total = (JSON.parse(index) as { metadata?: { total_size?: unknown } })?.metadata?.total_size;
    } catch {
      total = undefined;
    }
    return `model.safetensors.index.json${typeof total === 'number' && Number.isFinite(total) && total > 0 ? `, ${formatBytes(total)}` : ''}`;
  }
  const single = join(folder, 'model.safetensors');
  return host.readFile(single) !== null || host.whyNotRead?.(single) !== undefined ? 'model.safetensors' : null;
}

/** How many model config reads {@link modelConfigRead} keeps (a sweep over `model` alternates between its axis's configs). */
const MODEL_READS_KEPT = 8;
/** readModelConfig's results with the path and text they are of, the least recently used first. */
const modelReads: Array<{ path: string; text: string; read: ReadResult<ModelSpec> }> = [];

/**
 * readModelConfig(text, path), kept by the config's path and text: a sweep's points (256 in the
 * editor, every one in `attnscope sweep`) and each keystroke's analysis of a profile read the
 * same config.json, and its parse was most of their cost (s35: 25% of the language server's CPU
 * per keystroke in a 2,992-line profile). Callers share the result, which no reader mutates.
 * A kept text is found by comparing strings (the same string, as the language server hands in
 * for a file it has not seen change, compares at once), not by a key made of the text: building
 * and hashing `path + text` cost 11 MB of copying per keystroke for an 11 MB config.json (s39).
 */
function modelConfigRead(text: string, path: string, host: ProfileHost): ReadResult<ModelSpec> {
  const at = modelReads.findIndex((r) => r.path === path && r.text === text);
  if (at >= 0) {
    const [kept] = modelReads.splice(at, 1);
    modelReads.push(kept!);
    return kept!.read;
  }
  const parsed = host.parsedJson?.(path, text);
  const read = parsed !== undefined ? readModelConfigTree(parsed, path) : readModelConfig(text, path);
  if (modelReads.length >= MODEL_READS_KEPT) modelReads.shift();
  modelReads.push({ path, text, read });
  return read;
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
  let refused = text === null ? host.whyNotRead?.(abs) : undefined;
  if (text === null && refused === undefined && !/\.json$/i.test(abs)) {
    path = join(abs, 'config.json');
    text = host.readFile(path);
    refused = text === null ? host.whyNotRead?.(path) : undefined;
  }
  if (refused !== undefined) {
    problems.push({
      severity: 'error',
      code: 'model-not-found',
      message: refused.bytes !== undefined
        ? `the model config "${raw}" is ${formatBytes(refused.bytes)}: too big for a config.json (a weights file?); point model: at the folder or its config.json`
        : `the model config "${raw}" is ${refused.why}, so not read: point model: at a HuggingFace config.json (or a folder holding one)`,
      range: value.range,
      data: { path },
    });
    return { spec: null, path: null };
  }
  if (text === null) {
    const weights = path !== abs ? weightsWithoutConfig(host, abs) : null;
    problems.push({
      severity: 'error',
      code: 'model-not-found',
      message: weights !== null
        ? `"${raw}" is a model folder with weights (${weights}) but no config.json: download the model's config.json into it (huggingface-cli download <repo id> config.json --local-dir ${raw})`
        : `cannot read the model config "${raw}" (${path !== abs ? `read neither ${abs} nor ${path}` : `looked for ${abs}`}): ${unreadModelHint(raw)}`,
      range: value.range,
      data: { path: abs },
    });
    return { spec: null, path: null };
  }
  // A profile (or other YAML) named as the model would be reported as a JSON syntax error in
  // that file: name the mistake at `model:` instead.
  if (isProfilePath(path) || /\.ya?ml$/i.test(path)) {
    problems.push({
      severity: 'error',
      code: 'model-not-found',
      message: `model must name a HuggingFace config.json (or a folder holding one), not ${isProfilePath(path) ? 'a profile' : 'a YAML file'}: "${raw}" is ${path === profileFile ? 'this profile itself' : isProfilePath(path) ? 'a profile (profiles do not nest)' : 'YAML'}`,
      range: value.range,
      data: { path },
    });
    return { spec: null, path: null };
  }
  const read = modelConfigRead(text, path, host);
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
  return withCrossKeyChecks(parsed.root, readProfileValues(parsed, file, host));
}

/**
 * readProfileTree without the checks that compare keys or a key with the model
 * (profileChecks.ts semanticProblems): the profile as written, null when the syntax, the schema
 * or the model has an error. For a reader that runs those checks itself ({@link withCrossKeyChecks}).
 */
export function readProfileValues(parsed: ParsedTree, file: string, host: ProfileHost): ReadResult<Profile> {
  return guarded(() => readValuesUnguarded(parsed, file, host));
}

/**
 * `read` (readProfileValues of the tree `root`) with the checks that compare keys or a key with
 * the model (profileChecks.ts semanticProblems) added, and its value null when they find an
 * error; `read` itself when it has no profile. `invalid`: keys left out of `root` for their
 * errors, whose checks are skipped (core/validate.ts).
 */
export function withCrossKeyChecks(root: ValueNode | null, read: ReadResult<Profile>, invalid: readonly string[] = []): ReadResult<Profile> {
  const profile = read.value;
  // A profile is read only from an object tree: root is null only with the profile.
  if (profile === null || root === null) return read;
  return guarded(() => {
    const problems = [...read.problems, ...semanticProblems(root, profile, invalid)];
    return { value: problems.some((p) => p.severity === 'error') ? null : profile, problems };
  });
}

/**
 * An error at each number of the profile written as an integer beyond ±Number.MAX_SAFE_INTEGER
 * (read as a float64, it would be rounded: unsafeIntegerText), named by its dotted path. An
 * inline `model:` mapping is left to the model reader, which checks the keys it reads.
 */
function unsafeIntegerProblems(root: ValueNode): Problem[] {
  const out: Problem[] = [];
  // `path` is the dotted path of a key's value, `items` the indices below it, joined only for a problem.
  const walk = (node: ValueNode, path: string, items: number[]): void => {
    if (node.written !== undefined) {
      const key = [path, ...items].join('.');
      out.push({ severity: 'error', code: 'invalid-value', message: unsafeIntegerText(key, node)!, range: node.range, data: { key } });
    }
    node.items?.forEach((item, k) => walk(item, path, [...items, k]));
    for (const prop of node.properties ?? []) if (node !== root || prop.key !== 'model') walk(prop.value, node === root ? prop.key : [path, ...items, prop.key].join('.'), []);
  };
  walk(root, '', []);
  return out;
}

/**
 * A warning at each number of the profile whose key the schema types integer (page_size,
 * max_num_seqs, requests, ...) written with a fraction or exponent, or tagged !!float (`16.0`,
 * `!!float 16`): PyYAML and Python's json read it as a float, not the int vLLM's arguments
 * take; the integer is read (as for a config.json's num_key_value_heads 8.0: keys.ts). Named by
 * its dotted path; an inline `model:` mapping is the model reader's.
 */
function floatIntegerProblems(root: ValueNode): Problem[] {
  const out: Problem[] = [];
  const walk = (node: ValueNode, path: Array<string | number>): void => {
    // Only where the integer has digits to write (a safe integer): 1e300 is no integer to suggest
    // (its range error says what is wrong; the fix "write 1e+300" came back after each use).
    if (node.floatLiteral && Number.isSafeInteger(node.value)) {
      const types = schemaAt(path).flatMap((n) => (n.type === undefined ? [] : Array.isArray(n.type) ? n.type : [n.type]));
      if (types.includes('integer') && !types.includes('number')) {
        const key = path.join('.');
        out.push({ severity: 'warning', code: 'integer-written-as-float', message: `${key} is an integer written as a float (a fraction, an exponent or !!float), which PyYAML and Python's json read as a float, not an int: write ${node.value}`, range: node.range, data: { key, suggestion: node.value } });
      }
    }
    node.items?.forEach((item, k) => walk(item, [...path, k]));
    for (const prop of node.properties ?? []) if (node !== root || prop.key !== 'model') walk(prop.value, [...path, prop.key]);
  };
  walk(root, []);
  return out;
}

/**
 * workload.max_model_len written as vLLM's `--max-model-len` takes it, `32k` or `32K`
 * (profileSchema.ts parseVllmLength), replaced in `plain` by the tokens vLLM reads, before the
 * schema checks them (a range error then quotes the text and says what it was read as); an info
 * at the value says what it was read as, since 32k is 32,000 there, not 32,768. Any other text
 * is left to the schema's error.
 */
function readVllmLengths(root: ValueNode, plain: Plain): Problem[] {
  const w = plain.workload;
  if (!w || typeof w !== 'object' || Array.isArray(w) || typeof (w as Plain).max_model_len !== 'string') return [];
  const read = parseVllmLength((w as Plain).max_model_len as string);
  const node = nodeAtPath(root, ['workload', 'max_model_len']);
  if (read === null || 'refused' in read || !node) return [];
  (w as Plain).max_model_len = read.tokens;
  return [{
    severity: 'info', code: 'vllm-length-read',
    message: `max_model_len ${String(node.value).trim()} is read as ${formatCount(read.tokens)} tokens, as vLLM's --max-model-len reads it (vllm/utils/argparse_utils.py human_readable_int: ${vllmSuffixWords(read.suffix)})`,
    range: node.range, data: { key: 'workload.max_model_len', tokens: read.tokens },
  }];
}

function readValuesUnguarded(parsed: ParsedTree, file: string, host: ProfileHost): ReadResult<Profile> {
  const problems: Problem[] = [...parsed.problems];
  const root = parsed.root;
  if (!root || (root.type === 'null' && problems.length === 0)) {
    if (!problems.some((p) => p.severity === 'error')) {
      problems.push({
        severity: 'error', code: 'missing-field',
        message: `the profile is empty: start with ${/\.json$/i.test(file) ? '`{"model": "./<model>/config.json"}`' : '`model: ./<model>/config.json`'}`,
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
  problems.push(...readVllmLengths(root, plain));
  const unsafe = unsafeIntegerProblems(root);
  // The schema's own error at such a value (a maximum, say) would quote it rounded: the one above says why.
  problems.push(...unsafe, ...schemaProblems(root, validate(plain)).filter((p) => !unsafe.some((u) => u.range.offset === p.range.offset)), ...floatIntegerProblems(root));

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
    // Not written: vLLM's default for the model, what `vllm serve` without --max-model-len takes.
    const maxModelLen = (w.max_model_len as number | undefined) ?? vllmMaxModelLen(model).tokens;
    workload = {
      requests: (w.requests as number | undefined) ?? D.workload.requests,
      arrivalRate: (w.arrival_rate as number | undefined) ?? D.workload.arrivalRate,
      promptLen: lengthDist(w.prompt_len, { ...D.workload.promptLen }),
      outputLen: lengthDist(w.output_len, { ...D.workload.outputLen }),
      maxModelLen,
      // Not written: vLLM's defaults for the device (core/estimate maxNumSeqsOf, maxNumBatchedTokensOf).
      ...(w.max_num_seqs !== undefined ? { maxNumSeqs: w.max_num_seqs as number } : {}),
      ...(w.max_num_batched_tokens !== undefined ? { maxNumBatchedTokens: w.max_num_batched_tokens as number } : {}),
      seed: (w.seed as number | undefined) ?? D.workload.seed,
    };
    const ps = w.prefix_sharing as Plain | undefined;
    if (ps) workload.prefixSharing = { groups: ps.groups as number, prefixLen: ps.prefix_len as number, fraction: ps.fraction as number };
    // A trace to replay, relative to the profile's folder as `model:` is; read by its reader when simulated (runner/simulate/traces.ts).
    if (typeof w.trace === 'string') {
      const t: WorkloadTrace = (workload.trace = { path: w.trace, resolvedPath: isAbsolute(w.trace) ? w.trace : resolve(dirname(file), w.trace) });
      // How to read it: the keys of `simulate`'s --trace-time-unit, --trace-model and --trace-log-type (those flags override them; a value of another kind is the schema's error).
      const unit = w[TRACE_SETTING_KEYS.timeUnit];
      if (unit === 's' || unit === 'ms') t.timeUnit = unit;
      if (typeof w[TRACE_SETTING_KEYS.model] === 'string') t.model = w[TRACE_SETTING_KEYS.model] as string;
      if (typeof w[TRACE_SETTING_KEYS.logType] === 'string') t.logType = w[TRACE_SETTING_KEYS.logType] as string;
    }
  }

  const profile: Profile = {
    sourcePath: file,
    model,
    modelPath,
    dtype: (plain.dtype as Dtype | undefined) ?? dtypeDefault.dtype,
    device: {
      backend: (device.backend as DeviceSpec['backend'] | undefined) ?? D.device.backend,
      memoryGib: (device.memory_gib as number | null | undefined) ?? D.device.memoryGib,
      gpuMemoryUtilization: (device.gpu_memory_utilization as number | undefined) ?? D.device.gpuMemoryUtilization,
      tensorParallelSize: (device.tensor_parallel_size as number | undefined) ?? D.device.tensorParallelSize,
      pipelineParallelSize: (device.pipeline_parallel_size as number | undefined) ?? D.device.pipelineParallelSize,
      ...(typeof device.data_parallel_size === 'number' ? { dataParallelSize: device.data_parallel_size } : {}),
      ...(typeof device.cpu_offload_gb === 'number' && device.cpu_offload_gb > 0 ? { cpuOffloadGib: device.cpu_offload_gb } : {}),
      ...(typeof device.gpu_hour_usd === 'number' && device.gpu_hour_usd > 0 ? { gpuHourUsd: device.gpu_hour_usd } : {}),
      ...(typeof device.gpu === 'string' ? { gpu: device.gpu } : {}),
      // A GPU described, not named (the schema has checked its keys): its figures, labelled user-given.
      ...(device.gpu && typeof device.gpu === 'object' ? { gpu: (device.gpu as Plain).name as string, gpuSpec: userGpu(device.gpu as unknown as UserGpuFields) } : {}),
    },
    kvCache: {
      pageSize: (kv.page_size as number | undefined) ?? D.kvCache.pageSize,
      dtype: kvCacheDtype(kv.dtype as string | undefined) ?? D.kvCache.dtype,
      numPages: (kv.num_pages as KvCacheSpec['numPages'] | undefined) ?? D.kvCache.numPages,
      // vLLM's --kv-cache-memory-bytes is the same budget in bytes (both written: profileChecks.ts refuses).
      memoryGib: (kv.memory_gib as KvCacheSpec['memoryGib'] | undefined) ?? (typeof kv.kv_cache_memory_bytes === 'number' ? kv.kv_cache_memory_bytes / 1024 ** 3 : D.kvCache.memoryGib),
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
      ...(typeof engine.disable_hybrid_kv_cache_manager === 'boolean' ? { disableHybridKvCacheManager: engine.disable_hybrid_kv_cache_manager } : {}),
      ...(engine.mamba_cache_mode === 'none' || engine.mamba_cache_mode === 'align' || engine.mamba_cache_mode === 'all' ? { mambaCacheMode: engine.mamba_cache_mode } : {}),
      nonTorchGib: (engine.non_torch_gib as number | 'auto' | undefined) ?? D.engine.nonTorchGib,
      ncclGib: (engine.nccl_gib as number | 'auto' | undefined) ?? D.engine.ncclGib,
      cudaGraphGib: (engine.cuda_graph_gib as number | 'auto' | undefined) ?? D.engine.cudaGraphGib,
      activationGib: (engine.activation_gib as number | 'auto' | undefined) ?? D.engine.activationGib,
    },
    ...sloAndStepTime(plain),
    ranges,
  };
  return { value: profile, problems };
}
