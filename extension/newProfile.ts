/**
 * The first profile of a workspace: what "AttnScope: New profile…" writes for a model's
 * config.json and a GPU (s40 newcomer-ed: nothing in the editor said how to begin; the README's
 * example was reachable only through the CLI quick start). No `vscode` import: the command in
 * extension/commands.ts asks for the config, the GPU and the file; this module writes the text,
 * and test/extension/newProfile.test.ts reads it back.
 */
import { dirname, relative, sep } from 'node:path';
import { stringify } from 'yaml';
import { readProfile, type ProfileHost } from '../core/config/index';
import { tensorParallelSizes } from '../core/estimate/checks';
import { checkProfile, estimate } from '../core/estimate/index';
import { vllmMaxModelLen } from '../core/estimate/maxModelLen';
import { formatCount } from '../core/format';

/** What the user chose. */
export interface NewProfileChoice {
  /** Absolute path of the profile to write (`*.attn.yaml`). */
  profilePath: string;
  /** Absolute path of the model's config.json. */
  configPath: string;
  /** `device.gpu`: a name of core/estimate/gpus.ts GPUS. */
  gpu: string;
}

/** The profile to write, or why none can be. */
export type NewProfile =
  | {
      text: string;
      /** The tensor_parallel_size written: the smallest of the model's that serves (below). */
      tensorParallelSize: number;
      /** One sentence for the notification: why that tp, and what the file's hints show. */
      note: string;
    }
  | { error: string };

/** The largest tensor_parallel_size tried: one 8-GPU node, as vLLM deployments without pp run. */
const MAX_TP = 8;
/** workload.max_model_len when the model allows more: a chat load's, as the shipped example's. */
const CHAT_MAX_MODEL_LEN = 8192;

/**
 * The profile for `choice`, read back through the one profile loader and the estimate: the
 * tensor_parallel_size written is the smallest the model takes (core/estimate/checks.ts
 * tensorParallelSizes; up to 8) at which the profile has no error and neither
 * `weights-exceed-device` nor a pool too small for one max_model_len sequence; when none up to 8
 * does, 8's profile is written and its own warning says what would fit. `error` when the config
 * does not read as a model (its first error, as the CLI prints it).
 */
export function newProfile(choice: NewProfileChoice, host: ProfileHost): NewProfile {
  const first = readProfile(profileText(choice, 1, null), choice.profilePath, host);
  if (!first.value) {
    const e = first.problems.find((p) => p.severity === 'error') ?? first.problems[0];
    return { error: e?.message ?? 'the config does not describe a model' };
  }
  const model = first.value.model;
  const derived = vllmMaxModelLen(model).tokens;
  const maxModelLen = Math.min(derived, CHAT_MAX_MODEL_LEN);
  const sizes = tensorParallelSizes(model).filter((t) => t <= MAX_TP);
  const candidates = sizes.length > 0 ? sizes : [1];
  const serves = (tp: number): { text: string; ok: boolean } => {
    const text = profileText(choice, tp, { maxModelLen, derived });
    const read = readProfile(text, choice.profilePath, host);
    if (!read.value || read.problems.some((p) => p.severity === 'error')) return { text, ok: false };
    const problems = checkProfile(read.value, estimate(read.value));
    const blocking = new Set(['weights-exceed-device', 'pool-below-max-model-len', 'kv-pool-empty']);
    return { text, ok: !problems.some((p) => p.severity === 'error' || blocking.has(p.code)) };
  };
  for (const tp of candidates) {
    const r = serves(tp);
    if (r.ok) {
      const why = tp === 1 ? `one ${choice.gpu} holds its weights and one ${formatCount(maxModelLen)}-token sequence` : `the smallest tensor_parallel_size at which ${choice.gpu}s hold its weights and one ${formatCount(maxModelLen)}-token sequence`;
      return { text: r.text, tensorParallelSize: tp, note: `tensor_parallel_size ${tp}: ${why}.` };
    }
  }
  const tp = candidates.at(-1)!;
  return {
    text: serves(tp).text,
    tensorParallelSize: tp,
    note: `no tensor_parallel_size up to ${tp} serves it on ${choice.gpu}s: the file's warning says what would (pipeline_parallel_size, a larger GPU or memory_gib).`,
  };
}

/**
 * The profile's text: the shipped example's blocks (examples/llama-3.1-8b.attn.yaml) with each
 * key's meaning in a comment; `len` null writes no workload.max_model_len (the first reading,
 * which learns the model's own).
 */
function profileText(choice: NewProfileChoice, tp: number, len: { maxModelLen: number; derived: number } | null): string {
  let model = relative(dirname(choice.profilePath), choice.configPath).split(sep).join('/');
  if (!model.startsWith('.') && !model.startsWith('/')) model = `./${model}`;
  const scalar = (s: string) => stringify(s, { lineWidth: 0 }).trimEnd();
  const lenLine = len === null
    ? ''
    : `  max_model_len: ${len.maxModelLen}${len.derived > len.maxModelLen ? `             # vLLM's default for this model: ${formatCount(len.derived)} (raise it for longer requests)` : ''}\n`;
  return [
    '# An AttnScope profile: a model served by vLLM on a GPU. Hover a key for what it means and which',
    '# vLLM flag it is; the hints at the end of lines show memory per GPU, the KV pool and its pages.',
    '# Code lenses above run a benchmark of the attention kernels on this machine, a simulation of',
    '# serving the workload below, and the dashboard shows the results.',
    `model: ${scalar(model)}`,
    'device:',
    `  gpu: ${scalar(choice.gpu)}`,
    '  gpu_memory_utilization: 0.9     # vLLM --gpu-memory-utilization',
    `  tensor_parallel_size: ${tp}`,
    'kv_cache:',
    '  page_size: 16                   # vLLM --block-size',
    '  dtype: auto                     # vLLM --kv-cache-dtype: auto, fp8_e4m3, fp8_e5m2',
    'prefill:                          # the FlashAttention forward the benchmark times',
    '  batch_size: 1',
    `  seq_lens: [${capped([512, 2048], len?.maxModelLen).join(', ')}]`,
    '  causal: true',
    'decode:                           # the PagedAttention decode the benchmark times',
    '  batch_sizes: [1, 8]',
    `  context_lens: [${capped([1024, 4096], len?.maxModelLen).join(', ')}]`,
    'workload:                         # what `Run serving simulation` serves: a chat-like load',
    '  requests: 1000',
    '  arrival_rate: 8                 # requests per second, Poisson',
    ...lengthLines(len?.maxModelLen ?? null),
    lenLine.trimEnd(),
    '  seed: 1',
    'slo:                              # goodput counts the requests that meet both',
    '  ttft_ms: 1000',
    '  tpot_ms: 100',
    '',
  ].filter((l, i, all) => l !== '' || i === all.length - 1).join('\n');
}

/** Benchmark lengths no longer than the model's max_model_len (GPT-2: 1,024), without repeats. */
function capped(lens: number[], maxModelLen: number | undefined): number[] {
  return [...new Set(lens.map((n) => Math.min(n, maxModelLen ?? n)))];
}

/**
 * workload.prompt_len / output_len: the shipped example's chat lengths (lognormal prompts of median
 * 512 up to 4,096 tokens, outputs 32-512), shrunk to fit a shorter max_model_len (a prompt at most
 * three quarters of it, an output the rest) so that no request is refused as too long.
 */
function lengthLines(maxModelLen: number | null): string[] {
  const promptMax = Math.max(2, Math.min(4096, Math.floor((maxModelLen ?? Infinity) * 0.75)));
  const outputMax = Math.max(1, Math.min(512, (maxModelLen ?? Infinity) - promptMax));
  const median = Math.max(1, Math.min(512, Math.floor(promptMax / 4)));
  return [
    `  prompt_len: { dist: lognormal, median: ${median}, sigma: 1, max: ${promptMax} }`,
    `  output_len: { dist: uniform, min: ${Math.min(32, outputMax)}, max: ${outputMax} }`,
  ];
}

/** The profile file's name for a config: `<model label>.attn.yaml`, made unique with `-2`, `-3`, … among `taken`. */
export function newProfileName(label: string, taken: (name: string) => boolean): string {
  const stem = label.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'model';
  for (let i = 1; ; i++) {
    const name = `${stem}${i === 1 ? '' : `-${i}`}.attn.yaml`;
    if (!taken(name)) return name;
  }
}
