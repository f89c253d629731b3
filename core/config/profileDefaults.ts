/**
 * What a profile gets for every key it leaves out, and the whole default profile of a bare
 * config.json. Used by core/config/profile.ts.
 */
import type { DecodeSpec, DeviceSpec, Dtype, EngineSpec, KvCacheSpec, ModelSpec, PrefillSpec, Profile, WorkloadSpec } from './types';

/**
 * Defaults of every optional profile key (the schema's `default` annotations say the same; a
 * unit test keeps them equal). Prefill and decode are sized so the default CPU benchmark of an
 * 8B-class model stays under a minute on 2 cores.
 */
export const PROFILE_DEFAULTS = {
  dtype: 'bf16' as Dtype,
  device: { backend: 'auto', memoryGib: null, gpuMemoryUtilization: 0.9, tensorParallelSize: 1, pipelineParallelSize: 1 } satisfies DeviceSpec,
  engine: { vllmVersion: null, nonTorchGib: 'auto', ncclGib: 'auto', cudaGraphGib: 'auto', activationGib: 'auto' } satisfies EngineSpec,
  kvCache: { pageSize: 16, dtype: 'auto', numPages: 'auto', memoryGib: 'auto' } satisfies KvCacheSpec,
  prefill: { batchSize: 1, seqLens: [512, 1024], causal: true } satisfies PrefillSpec,
  decode: { batchSizes: [1, 8], contextLens: [1024, 4096] } satisfies DecodeSpec,
  workload: {
    requests: 1000,
    arrivalRate: 8,
    promptLen: { dist: 'lognormal', median: 512, sigma: 1, max: 4096 },
    outputLen: { dist: 'uniform', min: 32, max: 512 },
    seed: 0,
  } satisfies Omit<WorkloadSpec, 'maxModelLen'>, // max_model_len: vLLM's default for the model (core/estimate vllmMaxModelLen)
} as const;

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
export function defaultCases(model: ModelSpec): { prefill: PrefillSpec; decode: DecodeSpec } {
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
 * Gemma-2 requires). A config that names no torch_dtype (GPT-2, BERT: float32 checkpoints) is
 * float32 to vLLM (config.py: a missing torch_dtype reads as torch.float32), so it is downcast
 * alike. A torch_dtype it names but this tool does not know (float8_e4m3fn) gets the default
 * with no note: the config reader warned at the key. Returns the dtype and, when it is not the config's own, why.
 */
export function defaultDtype(model: ModelSpec): { dtype: Dtype; note?: string } {
  const halved = 'serving engines run such checkpoints in half precision, so bf16 is assumed (set `dtype: fp32` to size for float32)';
  // A torch_dtype this tool does not size (float8_e4m3fn): the reader's warning at the key already says the default is used.
  if (model.torchDtype === null && model.sourceKeys.torchDtype !== undefined) return { dtype: PROFILE_DEFAULTS.dtype };
  if (model.torchDtype === null) return { dtype: PROFILE_DEFAULTS.dtype, note: `the config names no torch_dtype, which transformers and vLLM read as float32; ${halved}` };
  if (model.torchDtype === 'fp32') return { dtype: 'bf16', note: `the config says torch_dtype float32; ${halved}` };
  return { dtype: model.torchDtype };
}

/**
 * Whether `profile` is a bare config.json's ({@link profileFromModelConfig}: the file read is the
 * model's config itself, no profile named it), whose device no key can set: what sizes its KV pool
 * is a profile.
 */
export function isBareConfig(profile: Pick<Profile, 'sourcePath' | 'modelPath'>): boolean {
  return profile.sourcePath !== null && profile.sourcePath === profile.modelPath;
}

/**
 * How a bare config.json (`configPath`), which names no GPU, gets a KV pool, one clause: the profile to write,
 * named and placed as the editor's "AttnScope: New profile…" writes it (`<model folder>.attn.yaml`
 * beside the model's folder; extension/newProfile.ts), its two keys with `gpu` (a GPU of the
 * table), or that command. s47 newcomer: `simulate config.json` said "set device.gpu", a key no
 * config.json has, with no word of a profile.
 */
export function bareConfigProfileHint(configPath: string, gpu: string): string {
  const parts = configPath.split(/[\\/]/);
  const file = parts.at(-1)!;
  const folder = parts.at(-2);
  const [profile, model, where] = file === 'config.json' && folder
    ? [`${folder}.attn.yaml`, `${folder}/config.json`, `beside the ${folder} folder`]
    : [`${file.replace(/(\.config)?\.json$/i, '')}.attn.yaml`, file, 'beside it'];
  return `write a profile naming a GPU, e.g. ${profile} ${where}: \`model: ${model}\` and \`device: { gpu: ${gpu} }\` (the editor's "AttnScope: New profile…" writes one), and give that instead`;
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
