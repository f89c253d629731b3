/**
 * Calibration of the step-time model (step-time.ts) from this tool's own kernel timings: a run
 * JSON of `attnscope bench --backend cuda --json RUN.json` (core/protocol/run.ts RunResult) taken
 * on the GPU the profile's `device.gpu` names.
 *
 * What the kernels measure, and so what this derives (measured), is attention alone:
 * - perPairS from the flash_fwd cases in fp16 / bf16 (tensor cores): their marginal FLOP rate R,
 *   the slope of median time over FLOPs, t = t₀ + FLOPs / R; then
 *   perPairS = 4 · L_f · H · D / tp / R (the model's FLOPs per query-key pair, step-time.ts) and
 *   the attention compute efficiency R / F (F the GPU's published dense bf16 peak);
 * - perKvTokenS from the paged_decode cases: their marginal read rate R, t = t₀ + bytes / R
 *   (bytes = K + V read + Q + O); then perKvTokenS = KV bytes per token per GPU / R and the KV
 *   read efficiency R / BW (BW the published bandwidth).
 * A model with sliding-window (or chunked local-attention) layers gets their perSlidingPairS and
 * perSlidingKvTokenS from the same rates (the same kernels, over fewer tokens). An MLA model's
 * perDecodePairS (decode in the absorbed form, another kernel) stays modelled.
 * The fit is least squares on relative error (weight 1 / t²) over the cases of each kernel;
 * with one case, or a negative t₀, it goes through the origin (t = FLOPs / R). t₀, the fixed
 * cost of one launch, is reported but not used: a serving step launches kernels under CUDA
 * graphs, which its overhead term (overhead_ms) covers.
 *
 * What the kernels cannot measure stays modelled with the profile's step_time (or the assumed
 * efficiencies): weightsS (weights streamed at memory_efficiency · BW), perTokenS and perLogitsS
 * (linear layers and lm_head at compute_efficiency · F) and the overhead.
 *
 * A run timed on the CPU, or on another GPU, is refused: its rates describe another device.
 */
import { readFileSync } from 'node:fs';
import { formatPercent, formatRate } from '../../core/format';
import type { Profile, StepTimeSpec } from '../../core/config/types';
import { TOOL_NAME, type KernelCase, type MeasuredCoefficient, type RunResult, type StepTimeModel } from '../../core/protocol/run';
import { InputError } from '../errors';
import { stepTimeModel, stepWork } from './step-time';

/** What the calibration reads of a run. */
export type KernelRun = Pick<RunResult, 'cases' | 'environment'>;

/**
 * The kernel cases and environment of the attnscope run JSON at `path`, or null when the file
 * is not one (no `tool` "attnscope …" with a `cases` array: a vllm bench serve result, or
 * unreadable, which its reader reports).
 * @throws InputError (at the file) when a case lacks a field the calibration reads.
 */
export function readKernelRun(path: string): KernelRun | null {
  let v: unknown;
  try {
    v = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
  const run = v as Partial<RunResult> | null;
  if (!run || typeof run !== 'object' || typeof run.tool !== 'string' || !run.tool.startsWith(TOOL_NAME) || !Array.isArray(run.cases)) return null;
  run.cases.forEach((c: Partial<KernelCase>, i) => {
    const bad = (['kernel', 'backend', 'dtype'] as const).find((k) => typeof c?.[k] !== 'string') ?? (['medianNs', 'flops', 'bytes'] as const).find((k) => typeof c?.[k] !== 'number');
    if (bad) throw new InputError(`cases[${i}].${bad} is missing or not a ${bad === 'kernel' || bad === 'backend' || bad === 'dtype' ? 'string' : 'number'}: not a run of attnscope bench --json`, path);
  });
  const env = run.environment;
  if (!env || typeof env !== 'object') throw new InputError('the run has no environment: not a run of attnscope bench --json', path);
  return { cases: run.cases, environment: env };
}

/**
 * The row of core/estimate/gpus.ts a CUDA device name (`nvidia-smi`, torch.cuda.get_device_name;
 * on ROCm "AMD Instinct MI300X") is, or undefined. PCIe and NVL boards have other peaks than the
 * table's SXM rows; the A100 80GB PCIe has its own row ("NVIDIA A100 80GB PCIe"), the A100 40GB PCIe
 * ("NVIDIA A100-PCIE-40GB") none.
 */
const CUDA_DEVICE_NAMES: Array<[RegExp, string]> = [
  [/\bH200\b/i, 'H200'],
  [/\bH100\b.*\bPCIe\b/i, 'H100 PCIe'],
  [/\bH100\b.*\bNVL\b/i, 'H100 NVL'],
  [/\bH100\b(?!.*\b(PCIe|NVL)\b)/i, 'H100 SXM'],
  [/\bH20\b/i, 'H20'],
  [/\bB200\b/i, 'B200'],
  [/\bL4\b/i, 'L4'],
  [/\bMI300X\b/i, 'MI300X'],
  [/\bA100\b(?=.*\bPCIe\b).*\b80\s*GB\b|\bA100\b.*\b80\s*GB\b.*\bPCIe\b/i, 'A100 PCIe 80GB'],
  [/\bA100\b(?!.*\bPCIe\b).*\b80\s*GB\b/i, 'A100 80GB'],
  [/\bA100\b(?!.*\bPCIe\b).*\b40\s*GB\b/i, 'A100 40GB'],
  [/\bL40S\b/i, 'L40S'],
  [/\bRTX 4090\b/i, 'RTX 4090'],
  [/\bA10\b/i, 'A10'],
];

/** The GPU table's name for a CUDA device name ("NVIDIA H100 80GB HBM3" -> "H100 SXM"), or undefined. */
export function gpuRowForDevice(deviceName: string): string | undefined {
  return CUDA_DEVICE_NAMES.find(([re]) => re.test(deviceName))?.[1];
}

/** The fit of t = fixed + x / rate over some cases. */
export interface RateFit {
  /** Units of x per second (FLOP/s or B/s). */
  rate: number;
  /** Seconds per case not explained by x (0 when fitted through the origin). */
  fixedS: number;
  cases: number;
  /** |fit − measured| / measured over the cases. */
  error: { mean: number; max: number };
}

/**
 * Least squares of t = c + s · x on relative error (weights 1 / t²); through the origin when
 * the x do not vary or c would be negative.
 * @param points [x, t seconds], t > 0.
 */
export function fitRate(points: Array<[number, number]>): RateFit {
  const w = points.map(([, t]) => 1 / (t * t));
  let sw = 0, sx = 0, st = 0, sxx = 0, sxt = 0;
  points.forEach(([x, t], i) => {
    sw += w[i];
    sx += w[i] * x;
    st += w[i] * t;
    sxx += w[i] * x * x;
    sxt += w[i] * x * t;
  });
  const det = sw * sxx - sx * sx;
  let c = det > 1e-12 * sw * sxx ? (sxx * st - sx * sxt) / det : -1;
  let s = c >= 0 ? (sw * sxt - sx * st) / det : 0;
  if (c < 0 || !(s > 0)) {
    c = 0;
    s = sxt / sxx;
  }
  const errors = points.map(([x, t]) => Math.abs(c + s * x - t) / t);
  return {
    rate: 1 / s,
    fixedS: c,
    cases: points.length,
    error: { mean: errors.reduce((a, e) => a + e, 0) / errors.length, max: Math.max(...errors) },
  };
}

/** A calibration that cannot be made from the run: the message says why. */
export class KernelCalibrationError extends RangeError {}

const usable = (c: KernelCase): boolean => c.backend === 'cuda' && c.medianNs > 0 && Number.isFinite(c.medianNs);

/**
 * The step-time model of `profile` with perPairS and perKvTokenS measured from `run`'s CUDA
 * kernel timings and the rest modelled with `spec` (default: the profile's step_time).
 * @param file the run's path, for the model's `source` wording.
 * @throws KernelCalibrationError when the run has no CUDA cases, was timed on another GPU than
 *   the profile's device.gpu, or has neither flash_fwd in fp16/bf16 nor paged_decode cases.
 */
export function calibrateFromKernels(profile: Profile, run: Pick<RunResult, 'cases' | 'environment'>, file: string, spec: StepTimeSpec | undefined = profile.stepTime): StepTimeModel {
  const work = stepWork(profile);
  const cases = run.cases.filter(usable);
  if (cases.length === 0) {
    const where = run.cases.length > 0 ? `its ${run.cases.length} cases ran on the ${run.cases[0].backend} backend (${run.environment.cpuModel})` : 'it has no kernel cases';
    throw new KernelCalibrationError(`${file} has no CUDA kernel timings (${where}); the step-time model is for ${work.gpu.name}: benchmark on that GPU (attnscope bench --backend cuda --json FILE)`);
  }
  const device = run.environment.gpu?.name ?? 'an unnamed GPU';
  const row = gpuRowForDevice(device);
  if (row !== work.gpu.name) {
    throw new KernelCalibrationError(`${file} timed the kernels on ${device}${row ? ` (${row})` : ', which is not in the GPU table'}, not on the profile's device.gpu ${work.gpu.name}: its rates describe another device`);
  }
  // flash_fwd cases of the profile's compute class: fp32 ones for an fp32 profile, else fp16 / bf16 (tensor cores).
  const flash = cases.filter((c) => c.kernel === 'flash_fwd' && (profile.dtype === 'fp32' ? c.dtype === 'fp32' : c.dtype === 'bf16' || c.dtype === 'fp16'));
  const decode = cases.filter((c) => c.kernel === 'paged_decode');
  if (flash.length === 0 && decode.length === 0) throw new KernelCalibrationError(`${file} has no flash_fwd (${profile.dtype === 'fp32' ? 'fp32' : 'fp16 / bf16'}) or paged_decode CUDA cases to calibrate from`);

  const modelled = stepTimeModel(profile, spec);
  const measured: MeasuredCoefficient[] = [];
  let perPairS = modelled.perPairS;
  let perKvTokenS = modelled.perKvTokenS;
  let perSlidingPairS = modelled.perSlidingPairS;
  let perSlidingKvTokenS = modelled.perSlidingKvTokenS;
  const sliding = work.slidingWindow > 0 || work.attentionChunkSize > 0;
  // The fitted rates, for the pipeline stages' coefficients below.
  let flashRate: number | null = null;
  let readRate: number | null = null;
  if (flash.length > 0) {
    const fit = fitRate(flash.map((c) => [c.flops, c.medianNs * 1e-9]));
    flashRate = fit.rate;
    // stepWork's perPairS is the model's FLOPs per pair / F.
    perPairS = (work.perPairS * work.peak.flopsPerSec) / fit.rate;
    if (sliding) perSlidingPairS = (work.perSlidingPairS * work.peak.flopsPerSec) / fit.rate;
    measured.push({ coefficient: 'perPairS', kernel: 'flash_fwd', rate: fit.rate, efficiency: fit.rate / work.peak.flopsPerSec, ceiling: work.peak.name, fixedS: fit.fixedS, cases: fit.cases, error: fit.error });
  }
  if (decode.length > 0) {
    const fit = fitRate(decode.map((c) => [c.bytes, c.medianNs * 1e-9]));
    readRate = fit.rate;
    perKvTokenS = (work.perKvTokenS * work.gpu.memoryBytesPerSec) / fit.rate;
    if (sliding) perSlidingKvTokenS = (work.perSlidingKvTokenS * work.gpu.memoryBytesPerSec) / fit.rate;
    measured.push({ coefficient: 'perKvTokenS', kernel: 'paged_decode', rate: fit.rate, efficiency: fit.rate / work.gpu.memoryBytesPerSec, ceiling: 'bandwidth', fixedS: fit.fixedS, cases: fit.cases, error: fit.error });
  }
  const names = measured.map((m) => m.coefficient).join(' and ');
  // Pipeline parallelism: each stage's attention coefficients at the same measured rates, over its
  // own layers (its modelled work at peak · peak / rate); a non-MLA stage's decode pairs cost its perPairS.
  const stages = modelled.stages?.map((st, k) => {
    const w = stepWork(profile, k);
    const pair = flashRate ? { perPairS: (w.perPairS * w.peak.flopsPerSec) / flashRate, perSlidingPairS: (w.perSlidingPairS * w.peak.flopsPerSec) / flashRate } : {};
    const kv = readRate ? { perKvTokenS: (w.perKvTokenS * w.gpu.memoryBytesPerSec) / readRate, perSlidingKvTokenS: (w.perSlidingKvTokenS * w.gpu.memoryBytesPerSec) / readRate } : {};
    const measuredStage = { ...st, ...pair, ...kv };
    return profile.model.mla ? measuredStage : { ...measuredStage, perDecodePairS: measuredStage.perPairS };
  });
  return {
    ...modelled,
    perPairS,
    perKvTokenS,
    ...(sliding ? { perSlidingPairS, perSlidingKvTokenS } : {}),
    ...(stages ? { stages } : {}),
    measured,
    source: `${modelled.source}; ${names} measured from ${file} (${device}): ${measured.map(describeMeasured).join('; ')}`,
  };
}

/** One measured coefficient in words: kernel, rate, efficiency, cases, fit error. */
export function describeMeasured(m: MeasuredCoefficient): string {
  const unit = m.kernel === 'flash_fwd' ? 'FLOP/s' : 'B/s';
  return `${m.kernel} ${formatRate(m.rate, unit)} = ${formatPercent(m.efficiency)} of the published ${m.ceiling} over ${m.cases} case${m.cases === 1 ? '' : 's'} (fit error mean ${formatPercent(m.error.mean)}, max ${formatPercent(m.error.max)})`;
}

/** The calibration as lines for the CLI: which coefficients are measured, which stay modelled. */
export function formatKernelCalibration(model: StepTimeModel, file: string): string[] {
  const measured = model.measured ?? [];
  // An MLA model's decode pairs run in another kernel than flash_fwd (the absorbed form): modelled.
  const kept = ['perStepS', 'weightsS', 'perTokenS', ...(['perDecodeTokenS', 'perPrefillContextTokenS', 'perLogitsS', 'perRequestStateS', 'perPrefillContextKvS', 'decodeWeightsS', 'prefillWeightsS'] as const).filter((k) => model[k] !== undefined), 'perPairS', ...(model.perDecodePairS !== undefined ? ['perDecodePairS'] : []), 'perKvTokenS']
    .filter((k) => !measured.some((m) => m.coefficient === k));
  return [
    `Calibration from ${file} (kernel timings on ${model.gpu}):`,
    ...measured.map((m) => `  measured ${m.coefficient}: ${describeMeasured(m)}`),
    `  modelled ${kept.join(', ')}: compute_efficiency ${model.computeEfficiency}, memory_efficiency ${model.memoryEfficiency}${model.assumed && model.assumed.length > 0 ? ` (assumed: ${model.assumed.join(', ')})` : ''}`,
  ];
}
