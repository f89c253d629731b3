/**
 * Checks of a resolved Profile that arrives without its text: the runner's stdin door
 * (`attnscope bench - --events`, `attnscope simulate - --events`), where the editor sends the
 * Profile its language server read. The values a profile file sets are put back under their
 * profile keys (kv_cache.page_size, workload.max_num_seqs, ...) and validated against the same
 * JSON Schema as a file (profileSchema.ts), so a file and stdin meet one set of limits; the
 * model's sizes, which a file gets from its config.json reader, are checked here against that
 * reader's limits (keys.ts).
 */
import { isAbsolute } from 'node:path';
import { MAX_HEADS, MAX_LAYERS, MAX_WIDTH, MAX_WINDOW } from './keys';
import { schemaProblems, validate } from './profileSchema';
import { parseJsonTree, propertyAt } from './tree';
import { userGpu } from '../estimate/gpus';
import { semanticProblems } from './profileChecks';
import type { AllReduceSpec, Problem, Profile } from './types';

type Loose = Record<string, unknown> | undefined;

/** The object at `key` of `v`, or undefined when it is not an object. */
function part(v: unknown, key: string): Loose {
  const x = v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  return x && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : undefined;
}

const isEmptyList = (v: unknown): boolean => Array.isArray(v) && v.length === 0;

/** The Profile's file-settable values under their profile keys; anything missing stays missing, for the schema to name. */
function profileKeys(p: Record<string, unknown>): Record<string, unknown> {
  const device = part(p, 'device');
  const kv = part(p, 'kvCache');
  const prefill = part(p, 'prefill');
  const decode = part(p, 'decode');
  const w = p.workload === null ? undefined : part(p, 'workload');
  const engine = part(p, 'engine');
  const slo = part(p, 'slo');
  const st = part(p, 'stepTime');
  const ar = (st as { allReduce?: AllReduceSpec } | undefined)?.allReduce;
  const share = part(w, 'prefixSharing');
  return {
    model: 'resolved',
    dtype: p.dtype,
    device: device && { backend: device.backend, memory_gib: device.memoryGib, gpu_memory_utilization: device.gpuMemoryUtilization, tensor_parallel_size: device.tensorParallelSize, pipeline_parallel_size: device.pipelineParallelSize, data_parallel_size: device.dataParallelSize, cpu_offload_gb: device.cpuOffloadGib, gpu_hour_usd: device.gpuHourUsd, gpu: describedGpu(device) ?? device.gpu },
    kv_cache: kv && { page_size: kv.pageSize, dtype: kv.dtype, num_pages: kv.numPages, memory_gib: kv.memoryGib },
    prefill: prefill && { batch_size: prefill.batchSize, seq_lens: prefill.seqLens, causal: prefill.causal },
    // An encoder resolves to no decode cases (profileDefaults.ts defaultCases): no decode key, as a file with none.
    decode: decode && !(part(p, 'model')?.isEncoder === true && isEmptyList(decode.batchSizes) && isEmptyList(decode.contextLens)) ? { batch_sizes: decode.batchSizes, context_lens: decode.contextLens } : undefined,
    workload: w && {
      requests: w.requests,
      arrival_rate: w.arrivalRate,
      // LengthDist's fields are named as the profile's (dist, value, min, max, median, sigma, mean).
      prompt_len: w.promptLen,
      output_len: w.outputLen,
      max_num_seqs: w.maxNumSeqs,
      max_model_len: w.maxModelLen,
      max_num_batched_tokens: w.maxNumBatchedTokens,
      prefix_sharing: share ? { groups: share.groups, prefix_len: share.prefixLen, fraction: share.fraction } : w.prefixSharing,
      seed: w.seed,
      // The resolved path (absolute): what the runner reads; a value of another shape is left for the schema to name.
      // A Profile's trace is { path, resolvedPath } (types.ts WorkloadTrace); another shape is named by traceProblem, not by the file's schema.
      trace: traceProblem(w.trace) === null ? (w.trace as { resolvedPath?: string } | undefined)?.resolvedPath : undefined,
      // How to read it (WorkloadTrace timeUnit, model, logType), checked by the file's keys: a unit of another kind is named as workload.trace_time_unit.
      trace_time_unit: part(w, 'trace')?.timeUnit,
      trace_model: part(w, 'trace')?.model,
      trace_log_type: part(w, 'trace')?.logType,
    },
    engine: engine && { vllm_version: engine.vllmVersion ?? undefined, disable_hybrid_kv_cache_manager: engine.disableHybridKvCacheManager, mamba_cache_mode: engine.mambaCacheMode, non_torch_gib: engine.nonTorchGib, nccl_gib: engine.ncclGib, cuda_graph_gib: engine.cudaGraphGib, activation_gib: engine.activationGib },
    slo: slo && { ttft_ms: slo.ttftMs, tpot_ms: slo.tpotMs, attainment: slo.attainment },
    step_time: st && {
      compute_efficiency: st.computeEfficiency, memory_efficiency: st.memoryEfficiency, overhead_ms: st.overheadMs,
      all_reduce: ar && {
        efficiency: ar.efficiency && { one_shot: ar.efficiency.oneShot, two_shot: ar.efficiency.twoShot, multimem: ar.efficiency.multimem },
        latency_us: ar.latencyUs,
      },
    },
  };
}

/**
 * A described GPU's device.gpu mapping as its profile wrote it (GpuSpec.given), or undefined for a
 * GPU named from the table. The schema checks the mapping, not the name alone: a Profile's
 * device.gpu holds only the mapping's name, which the table's list of names refuses (s42 newcomer
 * 2: README's MI325X profile could not run from the editor or from its saved run).
 */
function describedGpu(device: Record<string, unknown>): unknown {
  const spec = part(device, 'gpuSpec');
  return spec ? spec.given : undefined;
}

/**
 * The Profile a resolved Profile received as JSON stands for, once {@link resolvedProfileProblems}
 * found it usable: a described GPU's spec made again from the mapping the schema checked
 * (userGpu), so the peaks the runner reads are those of the checked keys, not figures the JSON
 * carried beside them.
 */
export function withCheckedGpu(profile: Profile): Profile {
  const given = profile.device.gpuSpec?.given;
  return given ? { ...profile, device: { ...profile.device, gpu: given.name, gpuSpec: userGpu(given) } } : profile;
}

/** The kinds a ModelSpec.layerTypes entry takes. */
const LAYER_KINDS = ['full', 'sliding', 'linear'] as const;

/**
 * The model's fields every reader of a Profile relies on: its sizes whole numbers within the config
 * reader's limits, H a multiple of H_kv, layerTypes one known kind per layer, slidingWindow a whole
 * number from 1 (or null while no layer is "sliding"), ranges a map of source ranges.
 */
function modelProblems(m: Loose): string[] {
  if (m === undefined) return ['model must be the resolved model (numLayers, numHeads, numKvHeads, headDim, ...)'];
  const out: string[] = [];
  const sizes: Array<[string, number]> = [['numLayers', MAX_LAYERS], ['numHeads', MAX_HEADS], ['numKvHeads', MAX_HEADS], ['headDim', MAX_WIDTH], ['hiddenSize', MAX_WIDTH], ['vocabSize', MAX_WIDTH]];
  for (const [key, max] of sizes) {
    const v = m[key];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max) out.push(`model.${key} must be an integer from 1 to ${max}, not ${JSON.stringify(v) ?? 'nothing'}`);
  }
  const { numHeads: h, numKvHeads: hkv } = m as { numHeads: unknown; numKvHeads: unknown };
  if (out.length === 0 && (h as number) % (hkv as number) !== 0) out.push(`model.numHeads ${String(h)} must be a multiple of model.numKvHeads ${String(hkv)} (each KV head serves a whole group of query heads)`);
  // One kind per layer: the KV size and the pool's groups walk it layer by layer (ModelSpec.layerTypes).
  const kinds = m.layerTypes;
  const strange = Array.isArray(kinds) ? kinds.find((k) => !(LAYER_KINDS as readonly unknown[]).includes(k)) : undefined;
  const layers = m.numLayers;
  if (Number.isInteger(layers) && (layers as number) >= 1 && (layers as number) <= MAX_LAYERS && (!Array.isArray(kinds) || kinds.length !== m.numLayers || strange !== undefined)) {
    const got = !Array.isArray(kinds) ? (JSON.stringify(kinds) ?? 'nothing') : strange !== undefined ? `a list holding ${JSON.stringify(strange) ?? 'nothing'}` : `a list of ${kinds.length}`;
    out.push(`model.layerTypes must list one kind per layer (model.numLayers ${String(layers)}), each ${LAYER_KINDS.map((k) => `"${k}"`).join(', ')}, not ${got}`);
  }
  // The window the "sliding" layers keep (model.ts reads sliding_window as a whole number from 1); null when no layer slides.
  const window = m.slidingWindow;
  const sliding = Array.isArray(kinds) ? kinds.filter((k) => k === 'sliding').length : 0;
  const whole = typeof window === 'number' && Number.isSafeInteger(window) && window >= 1 && window <= MAX_WINDOW;
  if (!whole && (window !== null || sliding > 0)) {
    const what = sliding > 0 ? `the window of the ${sliding} "sliding" layer${sliding === 1 ? '' : 's'} in model.layerTypes, in tokens: an integer from 1 to ${MAX_WINDOW}` : `null (no layer slides) or the sliding window in tokens, an integer from 1 to ${MAX_WINDOW}`;
    out.push(`model.slidingWindow must be ${what}, not ${JSON.stringify(window) ?? 'nothing'}`);
  }
  // The KV walk drops the last numKvSharedLayers layers, the MLP count reads one width a layer.
  const shared = m.numKvSharedLayers;
  if (shared !== undefined && (typeof shared !== 'number' || !Number.isInteger(shared) || shared < 0 || !Number.isInteger(layers) || shared >= (layers as number))) {
    out.push(`model.numKvSharedLayers must be an integer from 0 to model.numLayers − 1, not ${JSON.stringify(shared) ?? 'nothing'}`);
  }
  const widths = m.intermediateSizes;
  if (widths !== undefined && (!Array.isArray(widths) || widths.length !== layers || widths.some((w) => typeof w !== 'number' || !Number.isInteger(w) || w < 1 || w > MAX_WIDTH))) {
    out.push(`model.intermediateSizes must list one MLP width per layer (model.numLayers ${String(layers)}), each an integer from 1 to ${MAX_WIDTH}`);
  }
  const g = m.gemma3n as Record<string, unknown> | undefined;
  if (g !== undefined && (!g || typeof g !== 'object' || ['hiddenSizePerLayerInput', 'vocabSizePerLayerInput', 'altupNumInputs', 'laurelRank'].some((k) => typeof g[k] !== 'number' || !Number.isInteger(g[k]) || (g[k] as number) < 1 || (g[k] as number) > MAX_WIDTH))) {
    out.push(`model.gemma3n must hold hiddenSizePerLayerInput, vocabSizePerLayerInput, altupNumInputs and laurelRank, each an integer from 1 to ${MAX_WIDTH}`);
  }
  const ranges = rangesProblem(m.ranges, 'model.ranges');
  if (ranges) out.push(ranges);
  return out;
}

/**
 * Why `v` is no map of source ranges (Profile.ranges, ModelSpec.ranges: { "kv_cache.page_size":
 * { offset, length } }, offsets and lengths whole UTF-16 code units), or null when it is one.
 * The stdin door places its messages at <stdin>, yet the checks read these maps for positions.
 */
function rangesProblem(v: unknown, key: string): string | null {
  const what = `${key} must be an object of source ranges by key ({ "key": { "offset": 0, "length": 1 } }, or {} for none)`;
  if (!v || typeof v !== 'object' || Array.isArray(v)) return `${what}, not ${JSON.stringify(v) ?? 'nothing'}`;
  const whole = (x: unknown) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
  for (const [k, r] of Object.entries(v)) {
    const range = r as { offset?: unknown; length?: unknown } | null;
    if (!range || typeof range !== 'object' || !whole(range.offset) || !whole(range.length)) return `${what}, not ${JSON.stringify(r) ?? 'nothing'} at ${JSON.stringify(k)}`;
  }
  return null;
}

/**
 * Why a resolved Profile's workload.trace is not the shape every reader of a Profile relies on
 * (types.ts WorkloadTrace: `{ path, resolvedPath }`, the path as the profile wrote it and its
 * absolute form), or null when it is, or absent. A run's `profile` stores this shape; a bare path
 * string is a profile file's form, not a Profile's (s41 newcomer F-EV1: it reached the trace
 * reader as undefined and crashed `simulate - --events`).
 */
function traceProblem(t: unknown): string | null {
  if (t === undefined) return null;
  const o = t && typeof t === 'object' && !Array.isArray(t) ? (t as Record<string, unknown>) : undefined;
  if (o && typeof o.path === 'string' && o.path.trim() !== '' && typeof o.resolvedPath === 'string' && isAbsolute(o.resolvedPath)) return null;
  return `workload.trace must be { "path": the trace as the profile names it, "resolvedPath": its absolute path } (a run's profile holds it so), not ${JSON.stringify(t) ?? 'nothing'}`;
}

/**
 * What is wrong with a resolved Profile received as JSON, in words naming each key by its
 * profile path ("kv_cache.page_size must be an integer, not the string \"x\""); [] when it is
 * usable. Never throws.
 */
export function resolvedProfileProblems(value: unknown): string[] {
  return resolvedProfileProblemsAt(value).map((x) => x.message);
}

/** A problem of a resolved Profile received as JSON, and the value it is about. */
export interface ResolvedProfileProblem {
  message: string;
  /** The keys (and list indices) of that value in the Profile's JSON (["workload", "requests"]); [] for the whole Profile. */
  at: Array<string | number>;
}

/**
 * {@link resolvedProfileProblems} with, for each, the path in the Profile's JSON of the value it
 * names, for a reader that has the JSON's text (a saved run: `attnscope simulate RUN.json` places
 * each at its value in the file). Never throws.
 */
export function resolvedProfileProblemsAt(value: unknown): ResolvedProfileProblem[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [{ message: 'a resolved Profile is a JSON object (model, dtype, device, kvCache, prefill, decode)', at: [] }];
  const p = value as Record<string, unknown>;
  // As JSON text once: the tree gives the schema's messages their keys, the parsed value (absent keys dropped) is what the schema sees.
  const text = JSON.stringify(profileKeys(p));
  const { root } = parseJsonTree(text);
  const schema = root ? schemaProblems(root, validate(JSON.parse(text))).filter((x) => x.severity === 'error').map((x) => ({ message: x.message, at: profileFieldPath(propertyAt(root, x.range.offset)?.path ?? []) })) : [];
  const ranges = rangesProblem(p.ranges, 'ranges');
  const trace = traceProblem(part(p, 'workload')?.trace);
  // The model's and the map's messages start with the Profile's own path ("model.numLayers must be ...").
  const named = (message: string) => ({ message, at: (/^[A-Za-z.]+(?= )/.exec(message)?.[0] ?? '').split('.').filter((k) => k !== '') });
  return [...modelProblems(part(p, 'model')).map(named), ...schema, ...(trace ? [{ message: trace, at: ['workload', 'trace'] }] : []), ...(ranges ? [named(ranges)] : [])];
}

/**
 * Where a problem {@link resolvedProfileChecks} found for `profile` is, as the path in the
 * Profile's JSON of the value it is about ([] when none is named): its range points into the
 * tree of the profile keys, which is made again here (error paths only).
 */
export function resolvedCheckPath(profile: Profile, problem: Problem): Array<string | number> {
  const { root } = parseJsonTree(JSON.stringify(profileKeys(profile as unknown as Record<string, unknown>)));
  return profileFieldPath(propertyAt(root, problem.range.offset)?.path ?? []);
}

/**
 * The path in a Profile's JSON of a value {@link profileKeys} put under the profile key path
 * `keys` (["kv_cache", "page_size"] -> ["kvCache", "pageSize"]): each key in camelCase, but for
 * the keys profileKeys moves (device.cpu_offload_gb is cpuOffloadGib, a described device.gpu is
 * gpuSpec.given, workload.trace is trace.resolvedPath, trace_time_unit / trace_model /
 * trace_log_type are trace.timeUnit / model / logType).
 */
export function profileFieldPath(keys: ReadonlyArray<string | number>): Array<string | number> {
  const camel = (k: string | number) => (typeof k === 'number' ? k : k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()));
  const [first, second, ...rest] = keys;
  if (first === 'device' && second === 'cpu_offload_gb') return ['device', 'cpuOffloadGib'];
  if (first === 'device' && second === 'gpu' && rest.length > 0) return ['device', 'gpuSpec', 'given', ...rest.map(camel)];
  if (first === 'workload' && second === 'trace') return ['workload', 'trace', 'resolvedPath'];
  const traceKey: Record<string, string> = { trace_time_unit: 'timeUnit', trace_model: 'model', trace_log_type: 'logType' };
  if (first === 'workload' && typeof second === 'string' && traceKey[second]) return ['workload', 'trace', traceKey[second], ...rest.map(camel)];
  return keys.map(camel);
}

/**
 * The checks a profile file meets past its schema (core/config/profileChecks.ts semanticProblems:
 * tensor_parallel_size against the heads and MLP widths, a distribution's min or median above its
 * max, max_model_len against the model, ...) for a resolved Profile received as JSON, which
 * resolvedProfileProblems found usable: the same implementation as the file's, over the tree of
 * its profile keys (so each problem's range points into that tree, not into a text the user
 * wrote). s39 newcomer 8: `simulate -` ran tensor_parallel_size 3 over 32 heads. Never throws.
 */
export function resolvedProfileChecks(profile: Profile): Problem[] {
  const { root } = parseJsonTree(JSON.stringify(profileKeys(profile as unknown as Record<string, unknown>)));
  return root ? semanticProblems(root, profile) : [];
}
