/**
 * The step-time model of the serving simulation: how long one forward pass over a batch takes,
 * modelled (never measured here) as a roofline on a named GPU (core/estimate/gpus.ts):
 *
 *   step = overhead + max(memory, compute)
 *   memory  = (W + W_e · (1 − (1 − k/E)^T) + B_kv · K) / (BW · e_mem)
 *                                                  W = weight bytes per GPU but the routed experts',
 *                                                  read once per step; W_e = all routed experts'
 *                                                  bytes per GPU (MoE; 0 for dense), of which a step
 *                                                  of T tokens reads the expected share its tokens
 *                                                  touch: each token picks k of E experts per layer,
 *                                                  so E · (1 − (1 − k/E)^T) experts are touched,
 *                                                  assuming uniform routing (real routers are
 *                                                  skewed: fewer distinct experts); shared experts
 *                                                  are in W; B_kv = KV bytes per token per GPU,
 *                                                  K = KV tokens the step's requests attend to
 *   compute = (2 · P · T + 4 · L · H · D / tp · Q) / (F · e_comp)
 *                                                  P = active parameters per GPU, T = tokens
 *                                                  scheduled; Q = query-key pairs attended (QKᵀ and
 *                                                  PV, 2 FLOPs per multiply-add each)
 *
 * BW and F are the GPU's published memory bandwidth and dense bf16 peak; e_mem, e_comp and the
 * overhead come from the profile's `step_time`, else the assumptions below (reported as such),
 * or from a calibration (calibrate.ts). It ignores communication under tensor parallelism,
 * activations' memory traffic, the sampler and MoE routing skew (uniform routing is assumed).
 */
import type { Profile, StepTimeSpec } from '../../core/config/types';
import { estimate, routedExpertBytes } from '../../core/estimate/index';
import { DEFAULT_GPU, gpuByName, GPUS, type GpuSpec } from '../../core/estimate/gpus';
import type { StepTimeModel } from '../../core/protocol/run';
import { formatRate, formatSignificant } from '../../core/format';

/**
 * What the model assumes when the profile's `step_time` leaves a factor out: typical achieved
 * fractions of peak for serving engines (an assumption, not a measurement of this setup;
 * calibrate to replace them).
 */
export const ASSUMED_STEP_TIME: Required<StepTimeSpec> = { computeEfficiency: 0.6, memoryEfficiency: 0.8, overheadMs: 0 };

/** The per-step work a model's step costs at peak, before efficiencies: seconds per unit. */
export interface StepWork {
  gpu: GpuSpec;
  /** Weight bytes per GPU but the routed experts' / bandwidth. */
  weightsS: number;
  /** MoE: all routed experts' bytes per GPU / bandwidth (0 for dense); a step reads the share {@link expertShareRead} gives. */
  expertWeightsS: number;
  /** MoE: routed experts per layer E and experts per token k; 0 for dense. */
  numExperts: number;
  numExpertsPerTok: number;
  /** KV bytes per token per GPU / bandwidth. */
  perKvTokenS: number;
  /** 2 · active params per GPU / FLOP/s. */
  perTokenS: number;
  /** 4 · L · H · D / tp / FLOP/s. */
  perPairS: number;
}

/** The GPU the profile names (device.gpu), else {@link DEFAULT_GPU}. @throws RangeError for a name not in the table. */
export function profileGpu(profile: Profile): GpuSpec {
  const name = profile.device.gpu ?? DEFAULT_GPU;
  const gpu = gpuByName(name);
  if (!gpu) throw new RangeError(`device.gpu '${name}' is not one of ${GPUS.map((g) => g.name).join(', ')}`);
  return gpu;
}

/** The profile's model on its GPU at 100% of both peaks. */
export function stepWork(profile: Profile): StepWork {
  const gpu = profileGpu(profile);
  const est = estimate(profile);
  const m = profile.model;
  const tp = profile.device.tensorParallelSize;
  const expertBytes = routedExpertBytes(m, profile.dtype);
  return {
    gpu,
    weightsS: (est.weightsBytes - expertBytes) / tp / gpu.memoryBytesPerSec,
    expertWeightsS: expertBytes / tp / gpu.memoryBytesPerSec,
    numExperts: expertBytes > 0 ? m.moe!.numExperts : 0,
    numExpertsPerTok: expertBytes > 0 ? m.moe!.numExpertsPerTok : 0,
    perKvTokenS: est.kvBytesPerToken / gpu.memoryBytesPerSec,
    perTokenS: (2 * est.paramsActiveCompute) / tp / gpu.bf16FlopsPerSec,
    perPairS: (4 * m.numLayers * m.numHeads * m.headDim) / tp / gpu.bf16FlopsPerSec,
  };
}

/**
 * The model's coefficients for `profile` with efficiencies from `spec` (default: the profile's
 * step_time), each missing one from {@link ASSUMED_STEP_TIME} and listed in `assumed`.
 * @param how the source's wording for the efficiencies' origin (e.g. "calibrated from bench.json").
 */
export function stepTimeModel(profile: Profile, spec: StepTimeSpec | undefined = profile.stepTime, how = 'the profile'): StepTimeModel {
  const w = stepWork(profile);
  const assumed = (Object.keys(ASSUMED_STEP_TIME) as Array<keyof StepTimeSpec>).filter((k) => spec?.[k] === undefined);
  const e = { ...ASSUMED_STEP_TIME, ...Object.fromEntries(Object.entries(spec ?? {}).filter(([, v]) => v !== undefined)) } as Required<StepTimeSpec>;
  const byName: Record<keyof StepTimeSpec, string> = { computeEfficiency: 'compute_efficiency', memoryEfficiency: 'memory_efficiency', overheadMs: 'overhead_ms' };
  const parts = [
    // The figures the model divides by, as used (dense bf16: the H100's datasheet prints twice it, with sparsity), then where they are copied from.
    `${profile.model.modelType} on ${w.gpu.name}: bf16 ${formatRate(w.gpu.bf16FlopsPerSec, 'FLOP/s')} dense, memory ${formatRate(w.gpu.memoryBytesPerSec, 'B/s')}, from the ${w.gpu.source}`,
    // Calibrated values are least-squares floats: three significant digits, as core/format writes figures.
    `step = ${formatSignificant(e.overheadMs)} ms + max(weights + KV read at ${formatSignificant(e.memoryEfficiency)} × bandwidth, FLOPs at ${formatSignificant(e.computeEfficiency)} × bf16 peak)`,
    ...(w.numExperts > 0
      ? [`MoE: routed experts' weights read per step modelled as the E · (1 − (1 − k/E)^n) of E = ${w.numExperts} experts per layer that n tokens touch at k = ${w.numExpertsPerTok} each, assuming uniform routing (a skewed router touches fewer); shared experts and the dense part read every step`]
      : []),
    ...slidingWindowCount(profile),
    // Under TP each rank's weights, KV and FLOPs are divided by tp above, but the all-reduces after
    // every attention and MLP block are not in the formula: only overhead_ms stands for them.
    ...(profile.device.tensorParallelSize > 1
      ? [`tensor parallel ${profile.device.tensorParallelSize}: each GPU's share of weights, KV and FLOPs, but the communication between the GPUs (an all-reduce after every attention and MLP block) is not modelled; overhead_ms ${formatSignificant(e.overheadMs)} ms per step is all that stands for it`]
      : []),
    assumed.length > 0 ? `assumed: ${assumed.map((k) => byName[k]).join(', ')}; the rest from ${how}` : `efficiencies from ${how}`,
  ];
  return {
    perStepS: e.overheadMs / 1000,
    weightsS: w.weightsS / e.memoryEfficiency,
    ...(w.numExperts > 0 ? { expertWeightsS: w.expertWeightsS / e.memoryEfficiency, numExperts: w.numExperts, numExpertsPerTok: w.numExpertsPerTok } : {}),
    perKvTokenS: w.perKvTokenS / e.memoryEfficiency,
    perTokenS: w.perTokenS / e.computeEfficiency,
    perPairS: w.perPairS / e.computeEfficiency,
    gpu: w.gpu.name,
    computeEfficiency: e.computeEfficiency,
    memoryEfficiency: e.memoryEfficiency,
    assumed: assumed.map((k) => byName[k]),
    ...(profile.device.tensorParallelSize > 1 ? { unmodelled: [`the communication between the ${profile.device.tensorParallelSize} tensor-parallel GPUs`] } : {}),
    source: parts.join('; '),
  };
}

/**
 * How the model counts sliding-window layers, for its printed line: every layer's KV read and
 * attention FLOPs at the request's whole context, where a sliding-window layer reads at most
 * `sliding_window` tokens (min(context, window)); past the window the KV-read and attention terms
 * are upper bounds. Empty for a model without sliding-window layers.
 */
function slidingWindowCount(profile: Profile): string[] {
  const m = profile.model;
  const sliding = m.layerTypes.filter((t) => t === 'sliding').length;
  if (m.slidingWindow === null || sliding === 0) return [];
  return [`KV read and attention FLOPs count all ${m.layerTypes.filter((t) => t !== 'linear').length} attention layers at the whole context, though the ${sliding} sliding-window layers read at most ${m.slidingWindow.toLocaleString('en-US')} tokens (min(context, window)): past ${m.slidingWindow.toLocaleString('en-US')} tokens of context both terms are upper bounds`];
}

/**
 * The expected share of the routed experts' weights a step of `tokens` tokens reads, assuming
 * uniform routing: each token picks k of E experts (per MoE layer), so an expert is missed by all
 * of them with probability (1 − k/E)^tokens and E · (1 − (1 − k/E)^tokens) are touched. 0 for a
 * dense model (numExperts 0 or absent). The same as native/src/pool/simulator.cc ExpertShareRead.
 */
export function expertShareRead(m: { numExperts?: number; numExpertsPerTok?: number }, tokens: number): number {
  const E = m.numExperts ?? 0;
  if (E <= 0 || tokens <= 0) return 0;
  return 1 - Math.pow(1 - (m.numExpertsPerTok ?? 0) / E, tokens);
}

/** The step-time coefficients {@link stepSeconds} reads. */
export type StepCoefficients = Pick<StepTimeModel, 'perStepS' | 'weightsS' | 'perKvTokenS' | 'perTokenS' | 'perPairS' | 'expertWeightsS' | 'numExperts' | 'numExpertsPerTok'>;

/** Seconds of the weights a step of `tokens` tokens reads: weightsS + expertWeightsS · expertShareRead. */
export function weightReadSeconds(m: Pick<StepCoefficients, 'weightsS' | 'expertWeightsS' | 'numExperts' | 'numExpertsPerTok'>, tokens: number): number {
  return m.weightsS + (m.expertWeightsS ?? 0) * expertShareRead(m, tokens);
}

/**
 * One step's modelled seconds, the same formula as the simulator's (native/src/pool/simulator.h):
 * tokens scheduled, KV tokens attended, query-key pairs attended.
 */
export function stepSeconds(m: StepCoefficients, tokens: number, kvTokens: number, pairs: number): number {
  return m.perStepS + Math.max(weightReadSeconds(m, tokens) + m.perKvTokenS * kvTokens, m.perTokenS * tokens + m.perPairS * pairs);
}
