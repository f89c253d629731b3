/**
 * Pipeline parallelism as vLLM lays it out: which decoder layers each stage (pp rank) holds, and
 * the ModelSpec of one stage's layers. The memory model of a stage (its weights, its KV-cache
 * groups, the pool's block count unified over the stages) is in core/estimate/index.ts
 * (pipelineStages, estimate).
 */
import type { ModelSpec } from '../config/types';

/**
 * The largest pipeline_parallel_size tried for one at which the weights fit the device
 * (Estimate.weightsFit, named by weights-exceed-device): more stages than vLLM deployments run,
 * and each try sizes every stage.
 */
export const PP_FIT_SEARCH_MAX = 64;

/** One pipeline stage: layers [start, end) of the model, 0-based, and its place. */
export interface PipelineStage {
  /** 0-based pp rank. */
  index: number;
  /** pipeline_parallel_size. */
  count: number;
  /** First layer (0-based) and one past the last. */
  start: number;
  end: number;
}

/**
 * The layers per stage vLLM gives `numLayers` decoder layers over `pp` stages
 * (vllm/distributed/utils.py get_pp_indices, without VLLM_PP_LAYER_PARTITION): floor(L / pp)
 * each, and the remainder r = L mod pp one each to the r stages before the last, counted back
 * from it (partitions[-i] += 1 for i in 2 .. r + 1): the last stage, which holds the final norm
 * and lm_head, gets none. 80 layers over 2: [40, 40]; 61 over 2: [31, 30]; 10 over 4: [2, 3, 3, 2];
 * 11 over 4: [3, 3, 3, 2]. Throws a RangeError for pp < 1 or pp > numLayers (vLLM gives a stage no
 * layer there; the profile check refuses it first).
 */
export function pipelineLayerCounts(numLayers: number, pp: number): number[] {
  if (!Number.isInteger(pp) || pp < 1 || pp > numLayers) throw new RangeError(`pipeline_parallel_size must be an integer from 1 to num_hidden_layers ${numLayers}, got ${pp}`);
  const counts = new Array<number>(pp).fill(Math.floor(numLayers / pp));
  const r = numLayers % pp;
  for (let i = 2; i < r + 2; i++) counts[pp - i]++;
  return counts;
}

/** The stages of {@link pipelineLayerCounts}, with their layer ranges. */
export function pipelineStagesOf(numLayers: number, pp: number): PipelineStage[] {
  let start = 0;
  return pipelineLayerCounts(numLayers, pp).map((n, index) => {
    const s = { index, count: pp, start, end: start + n };
    start += n;
    return s;
  });
}

/** "stage 2 of 2, layers 40-79": how the estimate text names a stage (1-based, as a reader counts; vLLM's pp rank is `index`). */
export function stageLabel(s: PipelineStage): string {
  return `stage ${s.index + 1} of ${s.count}, layers ${s.start}-${s.end - 1}`;
}

/**
 * The model restricted to layers [start, end): every per-layer list sliced and its indices shifted
 * so that layer `start` becomes 0 (layerTypes, mlpLayers, intermediateSizes, Mamba and
 * cross-attention layers, Gemma 3n's KV-shared tail), the MoE pattern kept on the same layers
 * (first_k_dense_replace, mlp_only_layers and the stride's offset shifted). The embedding, final
 * norm, lm_head and vision tower stay in it: the caller decides which stage holds them
 * (stageWeightsBytes in core/estimate/index.ts).
 */
export function stageModel(model: ModelSpec, start: number, end: number): ModelSpec {
  const inRange = (i: number) => i >= start && i < end;
  const shift = (xs: number[]) => xs.filter(inRange).map((i) => i - start);
  const L = model.numLayers;
  const shared = model.numKvSharedLayers ?? 0;
  const moe = model.moe;
  return {
    ...model,
    numLayers: end - start,
    layerTypes: model.layerTypes.slice(start, end),
    ...(model.mlpLayers ? { mlpLayers: model.mlpLayers.slice(start, end) } : {}),
    ...(model.intermediateSizes ? { intermediateSizes: model.intermediateSizes.slice(start, end) } : {}),
    ...(model.crossAttentionLayers ? { crossAttentionLayers: shift(model.crossAttentionLayers) } : {}),
    ...(model.mamba ? { mamba: { ...model.mamba, layers: shift(model.mamba.layers) } } : {}),
    ...(shared > 0 ? { numKvSharedLayers: Math.max(0, end - Math.max(start, L - shared)) } : {}),
    moe: moe && {
      ...moe,
      firstDenseLayers: Math.max(0, moe.firstDenseLayers - start),
      mlpOnlyLayers: shift(moe.mlpOnlyLayers),
      layerOffset: (((moe.layerOffset ?? moe.layerFrequency - 1) - start) % moe.layerFrequency + moe.layerFrequency) % moe.layerFrequency,
    },
  };
}
