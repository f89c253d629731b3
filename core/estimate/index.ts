/**
 * core/estimate: the memory model of attention serving. Weights, KV cache per token, paged
 * pool sizing with vLLM's semantics, and the attention workspace of a naive vs a flash kernel.
 * Pure functions of a ModelSpec / Profile; sizes are integers of bytes or of parameters.
 *
 * Sources: vLLM (vllm/v1/kv_cache_interface.py page sizes, vllm/v1/core/kv_cache_utils.py
 * pool sizing, vllm/v1/worker/gpu_worker.py determine_available_memory), the FlashAttention
 * paper (Dao et al. 2022, §3.1: O(N) extra memory), the DeepSeek-V2 paper (§2.1.2 MLA cache),
 * and transformers' modeling files for parameter shapes.
 */
import type { Dtype, KvDtype, LayerSkips, MambaCacheMode, ModelSpec, MoeSpec, Problem, Profile, QuantizationSpec } from '../config/types';
import { boundToWrite, formatBytes, formatCount, formatCountOf, formatFactorAsWritten, formatGib, formatGrouped, formatParams, indefiniteArticle, tpWeightsFormula } from '../format';
import { DEFAULT_GPU, deviceGpu, gpuMemory } from './gpus';
import { DEFAULT_ENGINE, engineEraName, engineKeyOf, reserveTerms, subtractedBytes, vllmAtLeast, type ReserveTerm } from './reserve';
import { blocksPerRequestFormula, poolTokens, requestReservation } from './layout';
import { referenceSeqLen } from './maxModelLen';
import { mixerNames } from '../config/mamba';
import { bareConfigProfileHint, isBareConfig } from '../config/profileDefaults';
import { pipelineStagesOf, stageLabel, stageModel, type PipelineStage } from './pipeline';
import { checkProfile as checkProfileWith, checksIndependentOf as checksIndependentOfWith, parallelFit } from './checks';
import type { AttentionWorkspace, Estimate, KvPoolLayout, ParamBreakdown, PoolEstimate, TpReplication } from './types';

export * from './types';
export { blocksPerRequest, blocksPerRequestFormula, grouped, kvCacheGroups, poolBlocksFormula, poolBlocksText, poolGroupsWhy, poolTokens, poolTokensFormula, poolTokenPages, requestReservation, tokenPageBytes } from './layout';
export { CHECK_KEYS, flashMlaPageSizeNote, nearestPageSize, KERNEL_LIMITS, pageSizesFor, vllmBlockSizesText, vllmPageSizeNote, VLLM_BLOCK_SIZES, VLLM_CUDA_BLOCK_MULTIPLE } from './checks';
export { maxModelLenOf, referenceSeqLen, vllmMaxModelLen } from './maxModelLen';
export { DEFAULT_GPU, deviceGpu, GPUS, gpuByName, gpuLabel, type GpuSpec } from './gpus';
export { DEFAULT_ENGINE, engineEraName, engineKeyOf, parseVllmVersion, vllmAtLeast, type ReserveKey, type ReserveTerm } from './reserve';
export { PP_FIT_SEARCH_MAX, pipelineLayerCounts, pipelineStagesOf, stageLabel, stageModel, type PipelineStage } from './pipeline';

const GIB = 1024 ** 3;

/** Bytes per element: fp32 4, fp16 / bf16 2, fp8_e4m3 / fp8_e5m2 1. */
export function dtypeBytes(dtype: KvDtype): number {
  switch (dtype) {
    case 'fp32':
      return 4;
    case 'fp16':
    case 'bf16':
      return 2;
    case 'fp8_e4m3':
    case 'fp8_e5m2':
      return 1;
  }
}

/**
 * KV heads one GPU holds under tensor parallelism: H_kv / tp, and at least 1 (vLLM replicates
 * KV heads when tp > H_kv: ModelConfig.get_num_kv_heads = max(1, H_kv // tp)).
 */
export function kvHeadsPerGpu(model: Pick<ModelSpec, 'numKvHeads'>, tensorParallelSize = 1): number {
  return Math.max(1, Math.floor(model.numKvHeads / tensorParallelSize));
}

/**
 * Query (attention) heads one GPU computes under tensor parallelism: H / tp, at least 1 (vLLM
 * shards the attention heads across tensor-parallel ranks: num_heads = total_num_heads // tp_size
 * in each model's Attention layer, and refuses an H that tp does not divide).
 */
export function headsPerGpu(model: ModelSpec, tensorParallelSize = 1): number {
  return Math.max(1, Math.floor(model.numHeads / tensorParallelSize));
}

/**
 * KV-cache bytes one token takes in one layer, on one GPU.
 * - MHA / GQA / MQA: 2 (K and V) · H_kv/tp · head_dim · bytes(kv dtype)
 *   (vLLM AttentionSpec.page_size_bytes / block_size).
 * - MLA: (kv_lora_rank + qk_rope_head_dim) · bytes: one compressed latent plus the shared
 *   rope key, no factor 2, and not split by tensor parallelism (DeepSeek-V2 §2.1.2; vLLM
 *   MLAAttentionSpec, head_size = kv_lora_rank + qk_rope_head_dim with one KV head).
 * - Encoders keep no KV cache: 0.
 */
export function kvBytesPerTokenPerLayer(model: ModelSpec, kvDtype: KvDtype, tensorParallelSize = 1): number {
  if (model.isEncoder) return 0;
  const bytes = dtypeBytes(kvDtype);
  if (model.mla) return (model.mla.kvLoraRank + model.mla.qkRopeHeadDim) * bytes;
  return 2 * kvHeadsPerGpu(model, tensorParallelSize) * model.headDim * bytes;
}

/**
 * Layers that keep a per-token KV cache: all of them, except linear-attention / state-space
 * layers of hybrid models (Qwen3-Next, Granite-4), which keep a constant state instead, and the
 * layers that read another layer's KV (Gemma 3n's last num_kv_shared_layers: E4B keeps 20 of 35).
 */
export function kvLayerCount(model: ModelSpec): number {
  let n = 0;
  for (const kind of kvCacheLayerTypes(model)) if (kind !== 'linear') n++;
  return n;
}

/**
 * The kinds of the layers that hold a KV cache of their own, in order: layerTypes without the last
 * ModelSpec.numKvSharedLayers, which vLLM gives a kv_sharing_target_layer_name and
 * gpu_model_runner.get_kv_cache_spec leaves out of every KV-cache group ("as this layer does not
 * exist"). Gemma-3n-E4B: the first 20 of 35 layers, 16 sliding and 4 full.
 */
export function kvCacheLayerTypes(model: ModelSpec): ModelSpec['layerTypes'] {
  const shared = model.numKvSharedLayers ?? 0;
  return shared > 0 ? model.layerTypes.slice(0, Math.max(0, model.layerTypes.length - shared)) : model.layerTypes;
}

/**
 * Whether the model's 'sliding' layers are Llama 4's chunked local attention (its window is
 * attention_chunk_size): a query at position i reads only its own chunk's tokens so far,
 * (i mod window) + 1 of them, not the window before it.
 */
export function isChunkedLocalAttention(model: ModelSpec): boolean {
  return /attention_chunk_size$/.test(model.sourceKeys.slidingWindow ?? '');
}

/** Attention layers by how many tokens a query reads: see {@link attentionLayerTypes}. */
export interface AttentionLayerTypes {
  /** Layers that attend the whole context. */
  full: number;
  /** Layers that attend at most `window` tokens per query (sliding_window; Llama 4's chunked layers too). */
  sliding: number;
  /** The sliding layers' window in tokens; 0 when there are none. */
  window: number;
}

/**
 * The model's attention layers by type, from layerTypes (config.json's layer_types, or
 * sliding_window_pattern, or a sliding_window that every layer uses): 'full' layers attend the
 * whole context, 'sliding' ones at most sliding_window tokens; linear-attention / state-space
 * layers (no per-token KV) are in neither. gpt-oss-20b: 12 full, 12 sliding of 128.
 */
export function attentionLayerTypes(model: ModelSpec): AttentionLayerTypes {
  let full = 0;
  let sliding = 0;
  for (const kind of model.layerTypes) {
    if (kind === 'full' || (kind === 'sliding' && model.slidingWindow === null)) full++;
    else if (kind === 'sliding') sliding++;
  }
  return { full, sliding, window: sliding > 0 ? model.slidingWindow! : 0 };
}

/**
 * KV-cache bytes per token across all layers, per GPU: L_kv · kvBytesPerTokenPerLayer, with
 * L_kv = kvLayerCount (= L but for hybrids). Every attention layer is charged for every token,
 * sliding-window layers included: that is how vLLM sizes its pool (one block id covers all
 * layers). gpt-oss-120b bf16: 36 · 2 · 8 · 64 · 2 = 73,728 B.
 */
export function kvBytesPerToken(model: ModelSpec, kvDtype: KvDtype, tensorParallelSize = 1): number {
  return kvLayerCount(model) * kvBytesPerTokenPerLayer(model, kvDtype, tensorParallelSize);
}

/**
 * KV-cache bytes a sequence of `seqLen` tokens really needs, per GPU: full-attention layers
 * hold every token, sliding-window layers at most `sliding_window` of them, linear-attention
 * layers none.
 * Σ_layers min(seqLen, window_l) · kvBytesPerTokenPerLayer.
 */
export function kvBytesForSequence(model: ModelSpec, seqLen: number, kvDtype: KvDtype, tensorParallelSize = 1): number {
  const perLayer = kvBytesPerTokenPerLayer(model, kvDtype, tensorParallelSize);
  let tokens = 0;
  for (const kind of kvCacheLayerTypes(model)) {
    if (kind === 'linear') continue;
    tokens += kind === 'sliding' && model.slidingWindow !== null ? Math.min(seqLen, model.slidingWindow) : seqLen;
  }
  return tokens * perLayer;
}

/**
 * First vLLM release whose V1 engine sizes the KV pool per layer type (the hybrid KV-cache
 * manager, vLLM RFC #11382): a model with both full-attention and sliding-window layers gets one
 * KV-cache group per layer type, and a sliding-window group holds at most the window plus the
 * tokens in flight. The v0.9.0 API of vllm/v1/kv_cache_interface.py already documents
 * FullAttentionSpec.sliding_window as the fallback "when hybrid allocator is disabled", and the
 * v0.9.0 release notes list the Hybrid Memory Allocator PRs (#17394 ... #18593). Before it
 * (V0, and V1 up to 0.8.x: PR #14097 "for models with global attention + sliding window
 * attention, still regard as global-attention-only model in kv cache manager") every layer is
 * charged for every token.
 */
export const HYBRID_KV_MANAGER_SINCE: readonly [number, number, number] = [0, 9, 0];

/**
 * First vLLM release whose max concurrency and start-up check count a model whose every layer
 * slides by its window: vLLM PR #19029 ("Max concurrency estimation and check_enough_kv_cache_memory
 * for models with sliding window layers", merged 2025-06-02, in v0.9.1). Such a model has one
 * KV-cache group of SlidingWindowSpec layers, and get_max_concurrency_for_kv_cache_config divides
 * the blocks by SlidingWindowSpec.max_memory_usage_bytes / page; before it vLLM printed blocks ·
 * block_size / max_model_len (the PR's starcoder2-3b log: 134.19x before, 178.68x after), though
 * its manager (SlidingWindowManager) already freed the pages outside the window.
 */
export const SLIDING_ONLY_WINDOWED_SINCE: readonly [number, number, number] = [0, 9, 1];

/**
 * First vLLM release whose default keeps the hybrid KV-cache manager on for Llama 4's chunked
 * local attention: PR #29627 ("Cache attention metadata builds across hybrid KV-cache groups",
 * merged 2025-12-16) made VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE default to 1 in
 * vllm/envs.py (vLLM PR #46553, which proposed flipping it back, names #29627 as the change; closed
 * unmerged). Bracketed by the released API pages of vllm.envs: v0.12.0's reads
 * `VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE: bool = (False)`, v0.16.0's `(True)`
 * (docs.vllm.ai/en/v0.12.0/api/vllm/envs/, /en/v0.16.0/api/vllm/envs/; checked session 38). The
 * v0.13-v0.15 pages and vLLM's git history (its snapshot is over the fetch limit here) were not
 * to be had, so the tag that first carries the merge is not pinned: 0.14.0 is kept (v0.13.0 may
 * have it; a profile naming 0.13 that ran with it sets engine.disable_hybrid_kv_cache_manager
 * false). From PR #21761 (merged 2025-07-28, after v0.10.0) up to it the variable defaulted to 0
 * (v0.10.1.1, v0.11.0, v0.11.1 and v0.12.0 pages: False): VllmConfig.__post_init__ turns the
 * manager off for a model with attention_chunk_size ("a latency regression").
 */
export const CHUNKED_HYBRID_DEFAULT_SINCE: readonly [number, number, number] = [0, 14, 0];

/**
 * First vLLM release that takes a hybrid Mamba / attention model's Mamba state from the KV pool:
 * vLLM PR #20840 (merged 2025-07-12, in v0.10.0) serves hybrid models on V1 from `vllm serve` and
 * sizes the attention block at start-up (HybridAttentionMambaModelConfig.verify_and_update_config,
 * vllm/model_executor/models/config.py); V1's KV-cache groups then hold a MambaSpec per Mamba
 * layer (vllm/v1/kv_cache_interface.py). Before it (V0) the state lived in a separate
 * MambaCacheManager of max_num_seqs states, outside the KV pool: not modelled.
 */
export const MAMBA_IN_KV_POOL_SINCE: readonly [number, number, number] = [0, 10, 0];

/**
 * First vLLM release that turns prefix caching on for hybrid Mamba models by default, with
 * mamba_cache_mode "align" (vLLM PR #50991, merged 2026-08-04, "enable prefix cache for hybrid
 * model by default and change the default mode to `align`": arg_utils
 * _set_default_chunked_prefill_and_prefix_caching_args drops `and not model_config.is_hybrid`;
 * vllm-metal PR #651 dates it to 0.28.0, and vLLM issue #45238 still sets align by hand on 0.27.1
 * on 2026-08-24; vLLM's tags could not be read here, session 38). A request then holds 2 blocks
 * per Mamba group (MambaSpec.max_memory_usage_bytes: page · (2 + speculative blocks)); before,
 * prefix caching was off for hybrids by default (PR #23716; re-asserted by PR #29393, merged
 * 2025-11-25, after main had turned it on by accident) and mamba_cache_mode "none" holds 1.
 */
export const MAMBA_ALIGN_DEFAULT_SINCE: readonly [number, number, number] = [0, 28, 0];

/**
 * The attention block alignment of vLLM's CUDA backends, tokens: HybridAttentionMambaModelConfig
 * rounds the raised block size up to a multiple of it (kernel_block_alignment_size 16; 32 on
 * Blackwell with head_dim 256 and FlashInfer, 64 / 128 for MLA: not modelled).
 */
export const MAMBA_BLOCK_ALIGNMENT = 16;

/**
 * The attention block size vLLM gives a hybrid Mamba model (vllm/model_executor/models/config.py
 * HybridAttentionMambaModelConfig.verify_and_update_config, mamba_cache_mode "none" or "align"):
 * attn_block_size = 16 · ceil(mamba_page / (16 · attn_page_1_token)), the smallest multiple of
 * {@link MAMBA_BLOCK_ALIGNMENT} whose attention page (per layer) holds one Mamba layer's state;
 * cache_config.block_size is raised to it when smaller (or unset), kept when larger. The Mamba
 * page is then padded to the attention page (mamba_page_size_padded). `kvBytesPerTokenPerLayer`
 * is one attention layer's K and V per token on one GPU (vLLM's FullAttentionSpec(block_size=1)
 * page), `mambaPageBytes` one Mamba layer's state ({@link mambaStatePageBytes}).
 * Nemotron-Cascade-2-30B-A3B (Nemotron-3 Nano shapes), fp8 KV, SSM state fp32: attention
 * 2 · 2 · 128 · 1 = 512 B/token, state 36,864 + 2,097,152 = 2,134,016 B: 16 · ceil(260.5) = 4,176
 * tokens, padding 0.19 % (the vLLM 0.19.0 log's "Setting attention block size to 4176 tokens").
 */
export function mambaAttentionBlockSize(pageSize: number, kvBytesPerTokenPerLayer: number, mambaPageBytes: number): number {
  if (kvBytesPerTokenPerLayer <= 0 || mambaPageBytes <= 0) return pageSize;
  const a = MAMBA_BLOCK_ALIGNMENT;
  return Math.max(pageSize, a * Math.ceil(mambaPageBytes / (a * kvBytesPerTokenPerLayer)));
}

/**
 * The attention block size vLLM gives a hybrid Mamba model under mamba_cache_mode "all" (Mamba
 * prefix caching: HybridAttentionMambaModelConfig.verify_and_update_config's prefix-caching path,
 * vllm/model_executor/models/config.py, vllm-project/vllm 1936cf3): the smallest multiple of
 * chunk = lcm(mamba chunk size, 16) of at least cdiv(mamba_page, attn_page_1_token) tokens, so
 * that a block ends on a Mamba-2 SSD chunk boundary; page_size when larger. `chunkSize` is
 * MambaSpec.chunkSize (16 alone when the config gives none). Bamba-9B bf16: state 2,147,840 B,
 * attention 4,096 B a token and layer: cdiv = 525 tokens, lcm(256, 16) = 256: 768 (528 without).
 */
export function mambaAllBlockSize(pageSize: number, kvBytesPerTokenPerLayer: number, mambaPageBytes: number, chunkSize: number | undefined): number {
  if (kvBytesPerTokenPerLayer <= 0 || mambaPageBytes <= 0) return pageSize;
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const a = MAMBA_BLOCK_ALIGNMENT;
  const chunk = chunkSize ? (chunkSize / gcd(chunkSize, a)) * a : a;
  return Math.max(pageSize, chunk * Math.ceil(Math.ceil(mambaPageBytes / kvBytesPerTokenPerLayer) / chunk));
}

/**
 * Layers per KV-cache group when a model's attention layers come in two kinds of `a` and `b`
 * layers (vllm/v1/core/kv_cache_utils.py _get_kv_cache_groups_uniform_page_size): the smaller
 * count, or the larger where it is under 1.5 times the smaller (each kind is then padded up to
 * whole groups). gpt-oss-20b 12 and 12: 12; gemma-3-27b 10 and 52: 10; Llama-4-Scout 12 and 36: 12.
 */
function hybridGroupSize(a: number, b: number): number {
  const lo = Math.min(a, b);
  const hi = Math.max(a, b);
  return hi < lo * 1.5 ? hi : lo;
}

/**
 * The pool layout vLLM gives `model` (see {@link KvPoolLayout}); engine.vllm_version, none given:
 * the current release.
 * - Hybrid: a model with both full-attention and sliding-window layers (no linear-attention
 *   layers), on vLLM >= {@link HYBRID_KV_MANAGER_SINCE}; Llama 4's full and chunked
 *   local-attention layers on vLLM >= {@link CHUNKED_HYBRID_DEFAULT_SINCE}: groups of one kind
 *   ({@link hybridGroupSize}), the chunked ones ChunkedLocalAttentionSpec groups, whose
 *   ChunkedLocalAttentionManager (vllm/v1/core/single_type_kv_cache_manager.py:
 *   get_num_skipped_tokens = floor(num_computed_tokens / C) · C, whose blocks
 *   remove_skipped_blocks frees) keeps only the current chunk's blocks. Llama-4-Scout (12 NoPE
 *   full layers, 36 chunked): 1 full-attention and 3 chunked groups of 12, as vLLM PR #21761 lists
 *   them ("(FullAttention x 12) (ChunkedLocalAttention x 12) x 3").
 * - Sliding: a model whose every layer slides, on vLLM >= {@link SLIDING_ONLY_WINDOWED_SINCE}.
 * - Mamba: a hybrid Mamba / attention model (ModelSpec.mamba), on vLLM >= {@link MAMBA_IN_KV_POOL_SINCE}:
 *   block size {@link mambaAttentionBlockSize}, attention and Mamba layers in groups of
 *   {@link hybridGroupSize}, 1 state block per Mamba group and request (2 from
 *   {@link MAMBA_ALIGN_DEFAULT_SINCE}). Jamba-v0.1 bf16: block_size 80 (state 311,296 B per layer,
 *   attention 4,096 B/token/layer), 4 attention + 28 Mamba layers = 1 + 7 groups of 4, blocks of
 *   4 · 80 · 4,096 = 1,310,720 B. `dtype` sizes the Mamba state (mambaStateDtypes).
 * - Uniform otherwise: every layer charged for every token; for Llama 4 on the releases from PR
 *   #21761 (after v0.10.0) to {@link CHUNKED_HYBRID_DEFAULT_SINCE}, which turned the hybrid
 *   manager off for attention_chunk_size by default (VllmConfig.__post_init__). Releases before
 *   PR #21761 that ran chunked layers in the hybrid manager (from PR #19351) are kept uniform too.
 * `disableHybrid` (engine.disable_hybrid_kv_cache_manager, vLLM's --disable-hybrid-kv-cache-manager):
 * true keeps full + sliding or chunked models uniform (kv_cache_utils.unify_hybrid_kv_cache_specs);
 * false turns the manager on for chunked local attention whatever the release's default (on
 * 0.10.1 to 0.13 what VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1 does); neither applies
 * before {@link HYBRID_KV_MANAGER_SINCE}, which had no such manager, nor to a model whose every
 * layer slides (one layer type: no groups to merge).
 */
export function kvPoolLayout(model: ModelSpec, dtype: Dtype, kvDtype: KvDtype, tensorParallelSize: number, pageSize: number, vllmVersion: string | null, maxNumBatchedTokens: number, disableHybrid?: boolean, mambaCacheMode?: MambaCacheMode): KvPoolLayout {
  const perLayer = kvBytesPerTokenPerLayer(model, kvDtype, tensorParallelSize);
  const none = { mambaGroups: 0, stateBlocks: 0, mambaPageBytes: 0 };
  const mambaPage = mambaStatePageBytes(model, dtype, tensorParallelSize);
  const attending = model.layerTypes.filter((t) => t !== 'linear').length;
  if (model.mamba && mambaPage > 0 && attending > 0 && !model.isEncoder && vllmAtLeast(vllmVersion, MAMBA_IN_KV_POOL_SINCE)) {
    const mode: MambaCacheMode = mambaCacheMode ?? (vllmAtLeast(vllmVersion, MAMBA_ALIGN_DEFAULT_SINCE) ? 'align' : 'none');
    const blockSize = mode === 'all' ? mambaAllBlockSize(pageSize, perLayer, mambaPage, model.mamba.chunkSize) : mambaAttentionBlockSize(pageSize, perLayer, mambaPage);
    const mambaLayers = model.mamba.layers.length;
    const groupSize = hybridGroupSize(attending, mambaLayers);
    const fullGroups = Math.ceil(attending / groupSize);
    const mambaGroups = Math.ceil(mambaLayers / groupSize);
    const why = mambaCacheMode !== undefined ? 'engine.mamba_cache_mode' : mode === 'align' ? `the default with prefix caching from ${MAMBA_ALIGN_DEFAULT_SINCE.join('.')}` : 'prefix caching off for hybrid models by default';
    const held = mode === 'all'
      ? `ceil(N / ${blockSize}) state blocks per Mamba group and request (mamba_cache_mode "all", ${why}: a state per block of tokens, MambaSpec.max_memory_usage_bytes; the block a multiple of lcm(${model.mamba.chunkSize ?? MAMBA_BLOCK_ALIGNMENT}, ${MAMBA_BLOCK_ALIGNMENT}) tokens)`
      : `${mode === 'align' ? 2 : 1} state block${mode === 'align' ? 's' : ''} per Mamba group and request (mamba_cache_mode "${mode}", ${why})`;
    return {
      kind: 'mamba',
      pageSize: blockSize,
      groupSize,
      fullGroups,
      slidingGroups: 0,
      mambaGroups,
      stateBlocks: mode === 'align' ? 2 : 1,
      mambaCacheMode: mode,
      mambaPageBytes: mambaPage,
      window: 0,
      maxNumBatchedTokens: 0,
      blockBytes: groupSize * blockSize * perLayer,
      basis: `vLLM >= ${MAMBA_IN_KV_POOL_SINCE.join('.')} keeps the Mamba state in the KV pool: ${fullGroups} attention and ${mambaGroups} Mamba KV-cache ${fullGroups + mambaGroups === 1 ? 'group' : 'groups'} of ${groupSize} layers, ${held}`,
    };
  }
  let full = 0;
  let sliding = 0;
  let linear = 0;
  for (const kind of kvCacheLayerTypes(model)) {
    if (kind === 'full') full++;
    else if (kind === 'sliding') sliding++;
    else linear++;
  }
  const chunked = isChunkedLocalAttention(model);
  const local = sliding > 0 && linear === 0 && model.slidingWindow !== null && !model.isEncoder;
  const windowed = local && !chunked;
  const mixed = windowed && full > 0;
  const onlySliding = windowed && full === 0;
  const layers = full + sliding;
  const managerExists = vllmAtLeast(vllmVersion, HYBRID_KV_MANAGER_SINCE);
  const chunkedOn = disableHybrid === undefined ? vllmAtLeast(vllmVersion, CHUNKED_HYBRID_DEFAULT_SINCE) : !disableHybrid && managerExists;
  if (local && chunked && full > 0 && chunkedOn) {
    const groupSize = hybridGroupSize(full, sliding);
    const fullGroups = Math.ceil(full / groupSize);
    const chunkedGroups = Math.ceil(sliding / groupSize);
    return {
      kind: 'hybrid',
      pageSize,
      ...none,
      groupSize,
      fullGroups,
      slidingGroups: 0,
      chunkedGroups,
      chunk: model.slidingWindow!,
      window: 0,
      maxNumBatchedTokens,
      blockBytes: groupSize * pageSize * perLayer,
      basis: `${disableHybrid === false ? 'engine.disable_hybrid_kv_cache_manager false: vLLM\'s hybrid KV-cache manager on for chunked local attention (VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1)' : `vLLM >= ${CHUNKED_HYBRID_DEFAULT_SINCE.join('.')} hybrid KV-cache manager, on for chunked local attention by default (VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1, PR #29627)`}: ${fullGroups} full-attention and ${chunkedGroups} chunked-attention ${fullGroups + chunkedGroups === 1 ? 'group' : 'groups'} of ${groupSize} layers`,
    };
  }
  if (onlySliding && vllmAtLeast(vllmVersion, SLIDING_ONLY_WINDOWED_SINCE)) {
    return {
      kind: 'sliding',
      pageSize,
      ...none,
      groupSize: layers,
      fullGroups: 0,
      slidingGroups: 1,
      window: model.slidingWindow!,
      maxNumBatchedTokens,
      blockBytes: layers * pageSize * perLayer,
      basis: `vLLM >= ${SLIDING_ONLY_WINDOWED_SINCE.join('.')}: every layer slides, one KV-cache group of ${layers} sliding-window layers (SlidingWindowSpec)`,
    };
  }
  if (!mixed || !managerExists || disableHybrid === true) {
    const why = onlySliding
      ? `vLLM < ${SLIDING_ONLY_WINDOWED_SINCE.join('.')} (engine.vllm_version ${vllmVersion}) counts a model whose every layer slides as if every layer held every token (fixed by PR #19029), though its manager frees the pages outside the window`
      : (mixed || (local && chunked && full > 0)) && disableHybrid === true && managerExists
        ? 'engine.disable_hybrid_kv_cache_manager true (vLLM\'s --disable-hybrid-kv-cache-manager): one KV-cache group, every layer holds every token (unify_hybrid_kv_cache_specs)'
      : local && chunked && full > 0 && managerExists
        ? `vLLM < ${CHUNKED_HYBRID_DEFAULT_SINCE.join('.')} (engine.vllm_version ${vllmVersion}) turns the hybrid KV-cache manager off for chunked local attention by default (PR #21761; VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=0): one KV-cache group, every layer holds every token`
        : !mixed
          ? 'one KV-cache group: every layer holds every token'
          : `vLLM < ${HYBRID_KV_MANAGER_SINCE.join('.')} (engine.vllm_version ${vllmVersion}): sliding-window layers are charged like full ones, one block id covers every layer`;
    return { kind: 'uniform', pageSize, ...none, groupSize: layers, fullGroups: 1, slidingGroups: 0, window: 0, maxNumBatchedTokens: 0, blockBytes: layers * pageSize * perLayer, basis: why };
  }
  const groupSize = hybridGroupSize(full, sliding);
  return {
    kind: 'hybrid',
    pageSize,
    ...none,
    groupSize,
    fullGroups: Math.ceil(full / groupSize),
    slidingGroups: Math.ceil(sliding / groupSize),
    window: model.slidingWindow!,
    maxNumBatchedTokens,
    blockBytes: groupSize * pageSize * perLayer,
    basis: `vLLM >= ${HYBRID_KV_MANAGER_SINCE.join('.')} hybrid KV-cache manager: ${Math.ceil(full / groupSize)} full-attention and ${Math.ceil(sliding / groupSize)} sliding-window ${Math.ceil(full / groupSize) + Math.ceil(sliding / groupSize) === 1 ? 'group' : 'groups'} of ${groupSize} layers`,
  };
}

/**
 * Whether layer `i` (0-based) has a routed-expert MLP: not among the first_k_dense_replace
 * leading dense layers, not in mlp_only_layers, and on the decoder_sparse_step / moe_layer_freq
 * stride ((i + 1) % freq == 0, modeling_qwen2_moe.py; with freq 1 every layer, as DeepSeek-V3;
 * Jamba: i % expert_layer_period == expert_layer_offset, vLLM jamba.py).
 */
export function isMoeLayer(moe: MoeSpec, i: number): boolean {
  return i >= moe.firstDenseLayers && !moe.mlpOnlyLayers.includes(i) && i % moe.layerFrequency === (moe.layerOffset ?? moe.layerFrequency - 1);
}

function normParams(model: ModelSpec): number {
  return model.norm === 'layernorm' ? 2 * model.hiddenSize : model.hiddenSize;
}

/** One MLP of intermediate size `inter`: gated 3·h·i (gate, up, down), plain 2·h·i; biases 2i + h or i + h. */
function mlpParams(model: ModelSpec, inter: number): number {
  const h = model.hiddenSize;
  const weights = (model.gatedMlp ? 3 : 2) * h * inter;
  const biases = model.mlpBias ? (model.gatedMlp ? 2 : 1) * inter + h : 0;
  return weights + biases;
}

/** One attention block's parameters (projections, biases, q/k norms, sinks; Qwen3-Next's output gate doubles q_proj's outputs). */
function attentionParams(model: ModelSpec): number {
  const h = model.hiddenSize;
  const H = model.numHeads;
  if (model.mla) {
    // DeepSeek-V3 modeling: q_a_proj [h, q_lora] + q_a_layernorm + q_b_proj [q_lora, H·(nope+rope)]
    // (or q_proj [h, H·(nope+rope)]), kv_a_proj_with_mqa [h, kv_lora + rope] + kv_a_layernorm,
    // kv_b_proj [kv_lora, H·(nope + v)], o_proj [H·v, h].
    const m = model.mla;
    const qk = m.qkNopeHeadDim + m.qkRopeHeadDim;
    const q = m.qLoraRank ? h * m.qLoraRank + m.qLoraRank + m.qLoraRank * H * qk : h * H * qk;
    const kv = h * (m.kvLoraRank + m.qkRopeHeadDim) + m.kvLoraRank + m.kvLoraRank * H * (m.qkNopeHeadDim + m.vHeadDim);
    return q + kv + H * m.vHeadDim * h;
  }
  const D = model.headDim;
  const Hkv = model.numKvHeads;
  const Hq = model.attnOutputGate ? 2 * H : H;
  const qkv = h * (Hq + 2 * Hkv) * D + (model.attentionBias ? (Hq + 2 * Hkv) * D : 0);
  const o = H * D * h + (model.attentionOutputBias ? h : 0);
  return qkv + o + (model.qkNorm ? 2 * D : 0) + (model.attentionSinks ? H : 0);
}

/**
 * One Mamba layer's parameters, as vLLM's mixers allocate them (ModelSpec.mamba has the shapes):
 * - Mamba-1 (MambaMixer): in_proj h·2I, conv1d I·K (+ I bias), x_proj I·(R + 2N), dt_proj R·I + I,
 *   A I·N, D I, out_proj I·h, RMSNorms R + 2N; in/out_proj biases 2I + h with projBias.
 * - Mamba-2 (MambaMixer2): in_proj h·(2I + 2GN + nh), conv1d (I + 2GN)·K (+ I + 2GN bias),
 *   A, D, dt_bias nh each, gated norm I, out_proj I·h; biases (2I + 2GN + nh) + h with projBias.
 * - Gated DeltaNet (vLLM Qwen3NextGatedDeltaNet): in_proj_qkvz h·(2GN + 2I), in_proj_ba h·2nh,
 *   conv1d (I + 2GN)·K, dt_bias and A_log nh each, gated norm head_dim, out_proj I·h; no biases.
 * - Lightning attention (vLLM MiniMaxText01LinearAttention): qkv_proj h·3I, output_gate h·I,
 *   out_proj I·h, norm I; no biases. MiniMax-M1 (h 6144, I 64 · 128 = 8192): 251,666,432.
 * - Short conv (vLLM ShortConv, LFM2): in_proj I·3I, conv I·K, out_proj I·I, biases 3I + I + I with
 *   convBias. LFM2-1.2B (I 2048, K 3): 16,783,360.
 * Jamba-v0.1 (h 4096, I 8192, N 16, K 4, R 256): 105,308,448. Qwen3-Next-80B-A3B (h 2048, I 4096,
 * G 16, N 128, nh 32, K 4): 33,718,464.
 */
export function mambaLayerParams(model: ModelSpec): number {
  const m = model.mamba;
  if (!m) return 0;
  const h = model.hiddenSize;
  const I = m.intermediateSize;
  const N = m.stateSize;
  const K = m.convKernel;
  if (m.kind === 'mamba1') {
    const R = m.dtRank;
    return h * 2 * I + (m.projBias ? 2 * I : 0) + I * K + (m.convBias ? I : 0) + I * (R + 2 * N) + R * I + I
      + I * N + I + I * h + (m.projBias ? h : 0) + (m.mixerNorm ? R + 2 * N : 0);
  }
  if (m.kind === 'lightning') return 5 * h * I + I;
  if (m.kind === 'shortconv') return 3 * I * I + I * K + I * I + (m.convBias ? 5 * I : 0);
  const conv = I + 2 * m.nGroups * N;
  if (m.kind === 'gdn') return h * (2 * m.nGroups * N + 2 * I) + h * 2 * m.numHeads + conv * K + 2 * m.numHeads + m.headDim + I * h;
  const proj = 2 * I + 2 * m.nGroups * N + m.numHeads;
  return h * proj + (m.projBias ? proj : 0) + conv * K + (m.convBias ? conv : 0) + 3 * m.numHeads
    + (m.mixerNorm ? I : 0) + I * h + (m.projBias ? h : 0);
}

/** The dtypes of a Mamba layer's conv and SSM states, as vLLM's MambaStateDtypeCalculator picks them with --mamba-cache-dtype / --mamba-ssm-cache-dtype auto. */
export function mambaStateDtypes(model: ModelSpec, dtype: Dtype): { conv: Dtype; ssm: Dtype } {
  return { conv: dtype, ssm: model.mamba?.ssmStateDtype ?? dtype };
}

/**
 * Bytes of Mamba state one sequence holds on one GPU, all Mamba layers: the conv state (the last
 * K − 1 inputs of the causal conv1d) plus the SSM state, whatever the sequence's length
 * (vllm/model_executor/layers/mamba/mamba_utils.py MambaStateShapeCalculator):
 * - Mamba-1: conv (I/tp)·(K − 1), SSM (I/tp)·N;
 * - Mamba-2: conv ((I + 2·G'·N)/tp)·(K − 1), SSM (nh/tp)·head_dim·N, G' = G plus the groups
 *   replicated when tp does not divide G (extra_groups_for_head_shards: tp − G);
 * - Gated DeltaNet (gated_delta_net_state_shape): the same with G' = G (key heads, N = key head
 *   dim): conv ((2·key_dim + value_dim)/tp)·(K − 1), recurrent (nh/tp)·head_v_dim·head_k_dim.
 *   Qwen3-Next-80B-A3B, bf16: 36 · (8192 · 3 + 32 · 128 · 128) · 2 = 39,518,208 B;
 * - lightning attention (linear_attention_state_shape): (nh/tp)·head_dim·head_dim, no conv, in the
 *   model dtype. MiniMax-M1, bf16: 70 · 64 · 128 · 128 · 2 = 146,800,640 B;
 * - short conv (short_conv_state_shape): (I/tp)·(K − 1), one conv state. LFM2-1.2B, bf16:
 *   10 · 2048 · 2 · 2 = 81,920 B.
 * Conv state in the model dtype, SSM state in mambaStateDtypes' (Nemotron-H: fp32). The KV-cache
 * dtype (fp8) does not apply. Jamba-v0.1, bf16: 28 · (8192 · 3 · 2 + 8192 · 16 · 2) = 8,716,288 B.
 * 0 without Mamba layers.
 */
export function mambaStateBytesPerSequence(model: ModelSpec, dtype: Dtype, tensorParallelSize = 1): number {
  return (model.mamba?.layers.length ?? 0) * mambaStatePageBytes(model, dtype, tensorParallelSize);
}

/**
 * One Mamba layer's state per sequence on one GPU, bytes: vLLM's MambaSpec.page_size_bytes before
 * padding (Σ prod(shape) · dtype size over the conv and SSM states; shapes and dtypes as
 * {@link mambaStateBytesPerSequence} says). Jamba-v0.1 bf16: 49,152 + 262,144 = 311,296 B. 0 without Mamba layers.
 */
export function mambaStatePageBytes(model: ModelSpec, dtype: Dtype, tensorParallelSize = 1): number {
  const m = model.mamba;
  if (!m) return 0;
  const tp = tensorParallelSize;
  const d = mambaStateDtypes(model, dtype);
  let conv: number;
  let ssm: number;
  if (m.kind === 'mamba1') {
    conv = Math.floor(m.intermediateSize / tp) * (m.convKernel - 1);
    ssm = Math.floor(m.intermediateSize / tp) * m.stateSize;
  } else if (m.kind === 'shortconv') {
    return Math.floor(m.intermediateSize / tp) * (m.convKernel - 1) * dtypeBytes(d.conv);
  } else if (m.kind === 'lightning') {
    // One state, in the conv state's dtype (linear_attention_state_dtype: mamba_cache_dtype).
    return Math.floor(m.numHeads / tp) * m.headDim * m.headDim * dtypeBytes(d.conv);
  } else {
    const groups = m.nGroups + (m.kind === 'gdn' || m.nGroups % tp === 0 ? 0 : tp - m.nGroups);
    conv = Math.floor((m.intermediateSize + 2 * groups * m.stateSize) / tp) * (m.convKernel - 1);
    ssm = Math.floor(m.numHeads / tp) * m.headDim * m.stateSize;
  }
  return conv * dtypeBytes(d.conv) + ssm * dtypeBytes(d.ssm);
}

/**
 * Gemma 3n's parameters beyond a Gemma decoder's, without the per-layer embedding table (an
 * embedding, counted there), as vLLM's gemma3n.py allocates them (ModelSpec.gemma3n has the
 * shapes; h hidden, L layers, p per-layer input width, n AltUp inputs, r LAuReL rank):
 * per_layer_model_projection h·L·p + its norm p, altup_projections and altup_unembed_projections
 * 2·(n − 1)·h², and per layer AltUp n² + n³ + h·n + 2h (coefficients, router, router_norm,
 * correct_output_scale), LAuReL 2·h·r + h, per_layer_input_gate and per_layer_projection 2·h·p.
 * Gemma-3n-E4B (h 2048, L 35, p 256, n 4, r 64): 18,350,336 + 25,165,824 + 35 · 1,325,136 =
 * 89,895,920. 0 for other models. These layers stay in the model's dtype under quantization (vLLM
 * builds them without quant_config).
 */
export function gemma3nParams(model: ModelSpec): number {
  const g = model.gemma3n;
  if (!g) return 0;
  const h = model.hiddenSize;
  const L = model.numLayers;
  const p = g.hiddenSizePerLayerInput;
  const n = g.altupNumInputs;
  const top = h * L * p + p + 2 * (n - 1) * h * h;
  const laurel = 2 * h * g.laurelRank + h;
  return top + L * (gemma3nAltupParams(h, n) + laurel + 2 * h * p);
}

/** One Gemma 3n layer's AltUp (coefficients, modality_router, router_norm, correct_output_scale): n² + n³ + h·n + 2h. */
function gemma3nAltupParams(h: number, n: number): number {
  return n * n + n * n * n + h * n + 2 * h;
}

/**
 * The part of {@link gemma3nParams} vLLM's gemma3n.py keeps whole on every tensor-parallel GPU:
 * per layer AltUp (its coefficients and modality_router are ReplicatedLinear, router_norm and
 * correct_output_scale h each: n² + n³ + h·n + 2h), post_laurel_norm h, per_layer_input_gate and
 * per_layer_projection (ReplicatedLinear, "per_layer_input cannot be sharded": 2·h·p), and
 * per_layer_projection_norm p. LAuReL's linear_left / linear_right, per_layer_model_projection and
 * the AltUp (un)embed projections are column / row parallel: split. E4B: 35 · 1,062,992 + 256 =
 * 37,204,976. 0 for other models.
 */
export function gemma3nReplicatedParams(model: ModelSpec): number {
  const g = model.gemma3n;
  if (!g) return 0;
  const h = model.hiddenSize;
  const n = g.altupNumInputs;
  return model.numLayers * (gemma3nAltupParams(h, n) + h + 2 * h * g.hiddenSizePerLayerInput) + g.hiddenSizePerLayerInput;
}

/** Parameter counts and where they sit. */
export interface ParamCounts {
  /** Every parameter of the checkpoint (the MTP / next-n module of DeepSeek-V3 excluded, as its card does). */
  total: number;
  /**
   * Active parameters per token (MoE), one convention for every family: total minus the routed
   * experts a token is not sent to, minus the input-embedding lookup (a lookup multiplies
   * nothing; a tied embedding counts once, as lm_head). DeepSeek-V3's report (37B activated:
   * 36.6B here) and OpenAI's gpt-oss card (5.13B of 116.8B, 3.61B of 20.9B) count so; the
   * Mixtral (12.9B), Qwen3-MoE (3.3B) and Llama 4 (17B) cards add the embedding
   * (active + breakdown.embedding). Dense models: total, as their cards quote (no "active" is shown).
   */
  active: number;
  /**
   * The weights one token is multiplied by (what 2·N FLOPs per token counts): active routed
   * experts, shared experts, dense layers, attention, norms and lm_head (the tied embedding
   * matrix too, used as lm_head), without the embedding lookups. Dense models included.
   */
  activeCompute: number;
  breakdown: ParamBreakdown;
}

/**
 * Parameters of a model from its shapes (transformers modeling_<family>.py):
 * - embeddings V·h, plus learned positions (GPT-2 wpe, BERT) and BERT token types;
 * - per layer: q/k/v/o with GQA shapes [h, H·D], [h, H_kv·D] ×2, [H·D, h], biases when the
 *   config says so, MLA's low-rank projections; norms (RMSNorm h, LayerNorm 2h);
 * - hybrids: attention only in attention layers, a Mamba mixer or Gated DeltaNet
 *   (mambaLayerParams) in each of their layers, an MLP only where ModelSpec.mlpLayers says (Nemotron-H);
 * - MLP: gated 3·h·i, plain 2·h·i; MoE layers: E routed experts of moe_intermediate_size,
 *   a router [h, E], shared experts (Qwen2-MoE's with a gate [h, 1], counted with the router);
 * - final norm (encoders: the embedding LayerNorm instead, same size), lm_head V·h unless
 *   tie_word_embeddings; encoders have the pooler (h² + h) instead of an lm_head.
 * Active (MoE) = total − (E − k) experts per MoE layer − the embedding lookup (+ a tied lm_head);
 * activeCompute the same for every model, dense ones too, without a vision tower.
 */
export function paramCounts(model: ModelSpec): ParamCounts {
  const h = model.hiddenSize;
  const L = model.numLayers;
  // mllama (crossAttentionLayers): MllamaTextModel embeds vocab_size + 8 rows (vLLM mllama.py
  // VocabParallelEmbedding(config.vocab_size + 8, ...)), lm_head vocab_size; each cross-attention
  // layer adds a q_norm and a k_norm (RMSNorm over head_dim) and two tanh gates of 1.
  const cross = model.crossAttentionLayers?.length ?? 0;
  const perLayerEmbedding = model.gemma3n ? model.gemma3n.vocabSizePerLayerInput * L * model.gemma3n.hiddenSizePerLayerInput : 0;
  const embedding = (model.vocabSize + (cross > 0 ? 8 : 0)) * h + model.positionEmbeddingRows * h + model.typeVocabSize * h + perLayerEmbedding;
  // With a Mamba mixer (or Qwen3-Next's Gated DeltaNet) read, its layers have no attention
  // block; other linear-attention layers (MiniMax, ...) are approximated by attention shapes.
  const attentionLayers = model.mamba ? model.layerTypes.filter((t) => t !== 'linear').length : L;
  const attention = attentionLayers * attentionParams(model) + cross * (2 * model.headDim + 2);
  const g3n = gemma3nParams(model);
  const mamba = (model.mamba?.layers.length ?? 0) * mambaLayerParams(model);
  let mlp = 0;
  let experts = 0;
  let expertsActive = 0;
  let sharedExperts = 0;
  let router = 0;
  const moe = model.moe;
  for (let i = 0; i < L; i++) {
    if (model.mlpLayers && !model.mlpLayers[i]) continue;
    if (moe && isMoeLayer(moe, i)) {
      const expert = mlpParams(model, moe.expertIntermediateSize);
      experts += moe.numExperts * expert;
      expertsActive += moe.numExpertsPerTok * expert;
      if (moe.numSharedExperts > 0) sharedExperts += moe.numSharedExperts * mlpParams(model, moe.sharedExpertIntermediateSize);
      router += h * moe.numExperts + (moe.routerBias ? moe.numExperts : 0) + (moe.sharedExpertGate ? h : 0);
    } else {
      mlp += mlpParams(model, model.intermediateSizes?.[i] ?? model.intermediateSize);
    }
  }
  // Decoders: the final norm. Encoders (post-LN): no final norm, but the embedding LayerNorm.
  const norms = L * model.normsPerLayer * normParams(model) + normParams(model);
  const lmHead = model.isEncoder || model.tieWordEmbeddings ? 0 : model.vocabSize * h;
  const pooler = model.isEncoder ? h * h + h : 0;
  // The vision tower runs once per image, not per token: in the total (and the card's active
  // count, gemma-3-12b-it's 12.2B), not in the per-token compute.
  const vision = (model.vision?.params ?? 0) + (model.vision?.projectorParams ?? 0);
  const total = embedding + attention + mamba + mlp + experts + sharedExperts + router + norms + lmHead + pooler + vision + g3n;
  const used = total - experts + expertsActive;
  const tiedHead = !model.isEncoder && model.tieWordEmbeddings ? model.vocabSize * h : 0;
  const activeCompute = used - embedding + tiedHead - vision;
  return {
    total,
    active: moe === null ? total : used - embedding + tiedHead,
    activeCompute,
    breakdown: { embedding, attention, mamba, mlp, experts, expertsActive, sharedExperts, router, norms, lmHead, pooler, vision, ...(model.gemma3n ? { gemma3n: g3n } : {}) },
  };
}

/**
 * Bytes of the weights: parameters · bytes(dtype), except linear layers the checkpoint ships
 * quantized (quantization_config): fp8 (DeepSeek-V3) stores every linear weight in 1 byte,
 * mxfp4 (gpt-oss) its routed experts in 4.25 bits, AWQ / GPTQ / compressed-tensors int their
 * stored tensors ({@link quantizedWeights}). Embeddings, norms, biases and routers stay in dtype,
 * but lm_head and routers vLLM holds in fp32 ({@link heldBytes}).
 */
export function weightsBytes(model: ModelSpec, dtype: Dtype, params: ParamCounts = paramCounts(model)): number {
  const q = quantizedWeights(model, params.breakdown);
  const b = params.breakdown;
  // lm_head and routers vLLM holds in fp32 (MiniMax): their bytes beyond the dtype's (a GPTQ
  // lm_head is in q.bytes already).
  const fp32Extra = (part: 'lmHead' | 'router') => b[part] * (heldBytes(model, dtype, part) - dtypeBytes(dtype));
  const lmHeadExtra = model.quantization?.grouped?.lmHead ? 0 : fp32Extra('lmHead');
  return q.bytes + (params.total - q.params) * dtypeBytes(dtype) + lmHeadExtra + fp32Extra('router');
}

/**
 * Bytes a parameter of lm_head or of the MoE routers is held in: 4 where vLLM keeps that part in
 * fp32 whatever the model dtype (ModelSpec.fp32Weights: MiniMax-Text-01 / M1), else bytes(dtype).
 * MiniMax-M1's lm_head 200,064 · 6,144 = 1,229,193,216 parameters: 4,916,772,864 B, not 2,458,386,432.
 */
export function heldBytes(model: ModelSpec, dtype: Dtype, part: 'lmHead' | 'router'): number {
  return model.fp32Weights?.[part] ? Math.max(4, dtypeBytes(dtype)) : dtypeBytes(dtype);
}

/** The quantized part of the weights: how many parameters, and the bytes they are stored in (scales, zeros and indices included). */
export interface QuantizedWeights {
  /** Weight elements stored quantized (0 without quantization_config). */
  params: number;
  /** Their bytes as stored. */
  bytes: number;
  /** Of these, the routed experts' elements and bytes. */
  expertParams: number;
  expertBytes: number;
}

/**
 * The parameters {@link weightsBytes} charges at the quantization's width, and their bytes.
 * Flat formats: the routed experts alone for scope 'experts' (gpt-oss's mxfp4), else every
 * linear layer (attention, MLP, experts, shared experts) at bitsPerWeight. Grouped formats
 * (QuantizationSpec.grouped: AWQ, GPTQ, compressed-tensors int), tensor by tensor as vLLM's
 * awq.py / gptq.py create_weights shape them, for a layer of K inputs and N outputs with
 * G = ceil(K / group_size) groups (1 for group_size -1): qweight K·N·bits/8, scales G·N·2 (fp16;
 * NVFP4's fp8 G·N),
 * qzeros G·N·bits/8 (int32-packed), GPTQ g_idx 4·K. Layers named in modules_to_not_convert / GPTQ
 * dynamic "-:" / compressed-tensors ignore stay in the dtype, and so does lm_head (vLLM loads it
 * unquantized) unless GPTQ's lm_head says otherwise. Llama-3.1-8B AWQ 4-bit, group 128:
 * 6,979,321,856 parameters in 3,625,975,808 B (4.156 bits a weight). Every GPU together.
 */
export function quantizedWeights(model: ModelSpec, b: ParamBreakdown = paramCounts(model).breakdown): QuantizedWeights {
  const q = model.quantization;
  if (!q) return { params: 0, bytes: 0, expertParams: 0, expertBytes: 0 };
  const g = q.grouped;
  if (!g) {
    const mambaLinear = (model.mamba?.layers.length ?? 0) * mambaProjections(model).reduce((sum, w) => sum + w.k * w.n, 0);
    let params = q.scope === 'experts' ? b.experts : b.attention + mambaLinear + b.mlp + b.experts + b.sharedExperts;
    let expertParams = b.experts;
    // The skip list's layers stay in the dtype: their weights leave the quantized count.
    if (q.skip) {
      const skipped = skipTest(q.skip);
      for (const w of linearWeights(model, false)) {
        if ((q.scope === 'experts' && !w.expert) || !skipped(w)) continue;
        params -= w.k * w.n * w.copies;
        if (w.expert) expertParams -= w.k * w.n * w.copies;
      }
    }
    return { params, bytes: Math.ceil(params * q.bitsPerWeight / 8), expertParams, expertBytes: Math.ceil(expertParams * q.bitsPerWeight / 8) };
  }
  const skipped = skipTest(g);
  const out = { params: 0, bytes: 0, expertParams: 0, expertBytes: 0 };
  for (const w of linearWeights(model, g.lmHead)) {
    if (skipped(w)) continue;
    const bytes = groupedBytes(g, w);
    out.params += w.k * w.n * w.copies;
    out.bytes += bytes;
    if (w.expert) {
      out.expertParams += w.k * w.n * w.copies;
      out.expertBytes += bytes;
    }
  }
  return out;
}

/**
 * MLA's kv_b_proj weights (kv_lora_rank × H · (qk_nope_head_dim + v_head_dim) per MLA layer, the
 * up-projection of the latent to k_nope and v), over all layers: `params`, and of them `quantized`,
 * those the checkpoint stores quantized (not in its skip list, not an experts-only scope). What the
 * step-time model charges per prefill context token (vLLM's _compute_prefill_context runs kv_b_proj
 * over each) and splits between the fp8 and the dtype's peak (vLLM's decode runs kv_b_proj's halves
 * W_UK_T and W_UV as 16-bit bmm's); `quantizedBytes`, those quantized ones' bytes as stored (what a
 * step with prefill chunks reads of them: DeepSeek-V3 fp8 1,023,410,176 B). All 0 without MLA.
 */
export function mlaKvBProjParams(model: ModelSpec): { params: number; quantized: number; quantizedBytes: number } {
  const q = model.quantization;
  const out = { params: 0, quantized: 0, quantizedBytes: 0 };
  if (!model.mla) return out;
  for (const w of linearWeights(model, false)) {
    if (!w.name.endsWith('.kv_b_proj')) continue;
    const n = w.k * w.n * w.copies;
    out.params += n;
    if (q && (q.grouped ? !skipTest(q.grouped)(w) : q.scope !== 'experts' && !(q.skip && skipTest(q.skip)(w)))) {
      out.quantized += n;
      // The dtype only sizes an unquantized weight, which this one is not.
      out.quantizedBytes += linearWeightBytes(model, w, 'bf16');
    }
  }
  return out;
}

/**
 * The 16-bit copies of kv_b_proj that vLLM keeps beside a quantized kv_b_proj on each GPU: its
 * process_weights_after_loading (vllm/model_executor/layers/attention/mla_attention.py) dequantizes
 * kv_b_proj to the activation dtype and keeps its halves W_UK_T (H/tp · qk_nope_head_dim ×
 * kv_lora_rank) and W_UV (H/tp · kv_lora_rank × v_head_dim) for the decode's bmm's ("we currently
 * do not have quantized bmm's which are needed for `W_UV` and `W_UK_T`, we just store fp16/bf16
 * copies"); an unquantized kv_b_proj's halves are views of its weight, no copy. `params`: all
 * layers' quantized kv_b_proj parameters ({@link mlaKvBProjParams}); `bytesPerGpu`: params / tp ·
 * bytes(dtype) (kv_b_proj is column-parallel over the heads). DeepSeek-V3 fp8 in bf16 at tp 8:
 * 61 · 512 · 128 · (128 + 128) = 1,023,410,176 params, 2 B each, / 8 = 255,852,544 B. 0 without MLA
 * or when kv_b_proj is not quantized.
 */
export function mlaDecodeCopies(model: ModelSpec, dtype: Dtype, tp: number): { params: number; bytesPerGpu: number } {
  const params = mlaKvBProjParams(model).quantized;
  return { params, bytesPerGpu: Math.ceil(params / tp) * dtypeBytes(dtype) };
}

/** Bytes of one linear weight (all its copies) stored in a grouped layout: qweight K·N·bits/8, scales and zeros per group, GPTQ g_idx (see {@link quantizedWeights}). */
function groupedBytes(g: NonNullable<QuantizationSpec['grouped']>, w: LinearWeight): number {
  const groups = g.groupSize === null ? 1 : Math.ceil(w.k / g.groupSize);
  const bits = w.k * w.n * g.bits + groups * w.n * ((g.scaleBits ?? 16) + (g.zeroPoints ? g.bits : 0)) + (g.groupIndex ? 32 * w.k : 0);
  return Math.ceil(bits / 8) * w.copies;
}

/** Bytes of one linear weight (all its copies) as the checkpoint stores it: quantized at the format's width unless its skip list or scope leaves it in `dtype`. */
function linearWeightBytes(model: ModelSpec, w: LinearWeight, dtype: Dtype): number {
  const q = model.quantization;
  const plain = w.k * w.n * w.copies * dtypeBytes(dtype);
  if (!q) return plain;
  if (q.grouped) return skipTest(q.grouped)(w) ? plain : groupedBytes(q.grouped, w);
  if ((q.scope === 'experts' && !w.expert) || (q.skip && skipTest(q.skip)(w))) return plain;
  return Math.ceil(w.k * w.n * w.copies * q.bitsPerWeight / 8);
}

/** The weights vLLM keeps whole on every tensor-parallel GPU (or on more GPUs than their share), and what that adds per GPU. */
export interface ReplicatedWeights extends TpReplication {
  /** Bytes one GPU holds beyond weightsBytes / tp: (wholeBytes · (tp − 1) + kvHeads.bytes · (tp ÷ heads − 1)) ÷ tp, rounded up. */
  extraBytesPerGpu: number;
  /** What is replicated and where, in words (TpReplication.parts), always listed here. */
  parts: string[];
}

/**
 * The most weights one GPU holds over `tp` × `pp` GPUs: at pipeline_parallel_size 1 the weights ÷
 * tp, rounded up, plus what tensor parallelism does not split ({@link replicatedWeights}) and the
 * 16-bit copies of a quantized MLA kv_b_proj ({@link mlaDecodeCopies}); above
 * it the heaviest stage's ({@link stageWeights} perGpu over vLLM's layer split, pipelineStagesOf).
 * `pp` from 1 to the model's layers (pipelineLayerCounts' RangeError past them). Llama-2-70B bf16
 * (68,976,648,192 parameters, 128.48 GiB) at tp 2: 64.24 GiB plus its replicated norms.
 */
export function weightsBytesPerGpu(model: ModelSpec, dtype: Dtype, tp: number, pp = 1, params: ParamCounts = paramCounts(model)): number {
  if (pp === 1) return Math.ceil(weightsBytes(model, dtype, params) / tp) + replicatedWeights(model, dtype, tp, params).extraBytesPerGpu + mlaDecodeCopies(model, dtype, tp).bytesPerGpu;
  return pipelineStagesOf(model.numLayers, pp).reduce((most, stage) => Math.max(most, stageWeights(model, dtype, tp, stage).perGpu), 0);
}

/**
 * When the heaviest GPU's weights (`heaviest`: weightsBytesPerGpu at the profile's tp and pp)
 * exceed `usable` bytes: the tensor_parallel_size, pipeline_parallel_size or tp × pp pair at which
 * they fit (checks.ts parallelFit: the smallest tp vLLM takes, the smallest pp up to
 * num_hidden_layers and pipeline.ts PP_FIT_SEARCH_MAX, and a pair where neither alone fits a node). A
 * size is tried only from where the whole model's weights spread evenly could fit (weightsBytes /
 * (tp · pp) ≤ usable: the heaviest GPU holds at least that, the stages holding every weight at
 * least once), and pp above 1 not at all when the first or the last stage would not fit holding
 * one layer (every split's first stage holds layer 0 and the embedding, its last the last layer,
 * the final norm and lm_head). Null when the weights fit or `usable` is 0 (no device memory
 * known). Estimate.weightsFit.
 */
function weightsFitOf(model: ModelSpec, dtype: Dtype, tp: number, pp: number, params: ParamCounts, usable: number, heaviest: number): Estimate['weightsFit'] | null {
  if (usable <= 0 || heaviest <= usable) return null;
  const total = weightsBytes(model, dtype, params);
  const L = model.numLayers;
  const oneLayer = (t: number, index: number) => stageWeights(model, dtype, t, { index, count: L, start: index, end: index + 1 }).perGpu <= usable;
  const staged = new Map<number, boolean>();
  const stagesCanFit = (t: number): boolean => {
    if (!staged.has(t)) staged.set(t, L > 1 && oneLayer(t, 0) && oneLayer(t, L - 1));
    return staged.get(t)!;
  };
  return parallelFit(model, tp, pp, (t, p) => total / (t * p) <= usable && (p === 1 || stagesCanFit(t)) && weightsBytesPerGpu(model, dtype, t, p, params) <= usable);
}

/**
 * What tensor parallelism over `tp` GPUs does not split, as vLLM builds the layers: RMSNorm /
 * LayerNorm weights (every norm, MLA's q_a_layernorm / kv_a_layernorm and per-head q/k norms
 * too) are whole on every GPU; the MoE router is a ReplicatedLinear (mixtral.py, qwen2_moe.py,
 * qwen3_moe.py `gate`; deepseek_v2.py GateLinear), with its bias and Qwen's shared_expert_gate;
 * MLA's q_a_proj and kv_a_proj_with_mqa are ReplicatedLinear (deepseek_v2.py; fused_qkv_a_proj
 * with disable_tp=True in later releases), at their stored width; and when tp exceeds the KV heads
 * H_kv, QKVParallelLinear gives each GPU one KV head (num_kv_head_replicas = tp / H_kv), so the
 * k_proj / v_proj weights (and biases) are held tp / H_kv times over. Embeddings and lm_head split
 * (VocabParallelEmbedding / ParallelLMHead), as do the other projections and the experts.
 * A multimodal model's vision / audio tower adds what its family's vLLM file builds whole
 * (VisionTower.replicated: embeddings, norms, row-parallel biases, nn.Linear projectors; Gemma 3n's
 * AutoModel towers and Pixtral's params.json encoder entirely; InternViT's attention when its heads
 * do not divide by tp).
 * Not counted: the text model's row-parallel biases (o_proj / down_proj bias, h each, whole on every GPU).
 * Per GPU: (weights + Σ bytes_i · (copies_i − 1)) / tp, copies = tp for a replicated tensor.
 * DeepSeek-V3 at tp 8: +996,074,856 B (0.93 GiB); Llama-3.1-405B at tp 16: +528,482,304 B.
 */
export function replicatedWeights(model: ModelSpec, dtype: Dtype, tp: number, params: ParamCounts = paramCounts(model)): ReplicatedWeights {
  if (tp <= 1) return { extraBytesPerGpu: 0, wholeBytes: 0, parts: [] };
  const b = dtypeBytes(dtype);
  const attentionLayers = model.mamba ? model.layerTypes.filter((t) => t !== 'linear').length : model.numLayers;
  // Extra copies across all GPUs, in bytes: a replicated tensor's bytes · (tp − 1); `whole` sums
  // those tensors' bytes (what one GPU holds of them), `kvHeads` the k/v projections several GPUs share.
  let extra = 0;
  let whole = 0;
  let kvHeads: TpReplication['kvHeads'];
  const parts: string[] = [];
  const m = model.mla;
  const inAttention = attentionLayers * ((m ? (m.qLoraRank ?? 0) + m.kvLoraRank : 0) + (model.qkNorm ? 2 * model.headDim : 0));
  const norms = params.breakdown.norms + inAttention;
  if (norms > 0) {
    extra += norms * b * (tp - 1);
    whole += norms * b;
    parts.push('norms on every GPU');
  }
  if (params.breakdown.router > 0) {
    extra += params.breakdown.router * heldBytes(model, dtype, 'router') * (tp - 1);
    whole += params.breakdown.router * heldBytes(model, dtype, 'router');
    parts.push('MoE routers on every GPU (ReplicatedLinear gate)');
  }
  const g3n = gemma3nReplicatedParams(model);
  if (g3n > 0) {
    extra += g3n * b * (tp - 1);
    whole += g3n * b;
    parts.push('Gemma 3n\'s AltUp, per_layer_input_gate and per_layer_projection (ReplicatedLinear) and the LAuReL and per-layer-projection norms on every GPU');
  }
  // The vision / audio tower, as its family's vLLM file places it (core/config/vision.ts VisionTower.replicated).
  const tower = model.vision?.replicated;
  if (tower) {
    const attention = tower.unsplitAttention && tower.unsplitAttention.heads % tp !== 0 ? tower.unsplitAttention : null;
    const towerParams = tower.params + (attention?.params ?? 0);
    if (towerParams > 0) {
      extra += towerParams * b * (tp - 1);
      whole += towerParams * b;
      parts.push(`${tower.what}${attention ? `, and its attention, whose ${attention.heads} heads do not divide by ${tp} (nn.Linear qkv / proj)` : ''} on every GPU`);
    }
  }
  const weights = linearWeights(model, false);
  if (m) {
    const replicated = weights.filter((w) => /\.(q_a_proj|kv_a_proj_with_mqa)$/.test(w.name));
    const aProjections = replicated.reduce((sum, w) => sum + linearWeightBytes(model, w, dtype), 0);
    extra += aProjections * (tp - 1);
    whole += aProjections;
    parts.push(`MLA ${m.qLoraRank ? 'q_a_proj and ' : ''}kv_a_proj_with_mqa on every GPU (ReplicatedLinear)`);
  } else if (tp > model.numKvHeads && model.numKvHeads > 0) {
    // tp / H_kv copies of each KV head's projections (vLLM asserts tp % H_kv == 0; the profile check refuses the rest).
    const copies = (kvHeadsPerGpu(model, tp) * tp) / model.numKvHeads;
    const kv = weights.filter((w) => /\.(k_proj|v_proj)$/.test(w.name));
    const biases = model.attentionBias ? 2 * model.numKvHeads * model.headDim * b * attentionLayers : 0;
    const kvBytes = kv.reduce((sum, w) => sum + linearWeightBytes(model, w, dtype), 0) + biases;
    extra += kvBytes * (copies - 1);
    // One KV head: every GPU holds all of it, as a norm; more: each GPU one head's share.
    if (model.numKvHeads === 1) whole += kvBytes;
    else kvHeads = { bytes: kvBytes, heads: model.numKvHeads };
    parts.push(`k_proj / v_proj of each of the ${model.numKvHeads} KV heads on ${formatCount(copies)} GPUs (QKVParallelLinear num_kv_head_replicas)`);
  }
  return { extraBytesPerGpu: Math.ceil(extra / tp), wholeBytes: whole, ...(kvHeads ? { kvHeads } : {}), parts };
}


/** Estimate.replicated from {@link replicatedWeights}: absent when tensor parallelism replicates nothing. */
function tpReplicationOf(r: ReplicatedWeights): { replicated?: TpReplication } {
  if (r.wholeBytes <= 0 && !r.kvHeads) return {};
  return { replicated: { wholeBytes: r.wholeBytes, ...(r.kvHeads ? { kvHeads: r.kvHeads } : {}), parts: r.parts } };
}

/**
 * Whether a skip list ({@link LayerSkips}) leaves a linear weight unquantized: a listed substring of
 * its name, a pattern matching it from the start (Python re.match; a pattern that is no valid
 * JavaScript regex matches nothing), or, for a routed expert, a listed name containing its FusedMoE
 * module's name (model.layers.3.mlp.experts).
 */
function skipTest(s: LayerSkips): (w: LinearWeight) => boolean {
  const patterns = s.notConvertedPatterns.flatMap((p) => {
    try {
      return [new RegExp(`^(?:${p})`)];
    } catch {
      return [];
    }
  });
  return (w) => {
    if (s.notConverted.some((n) => w.name.includes(n)) || patterns.some((re) => re.test(w.name))) return true;
    if (!w.expert || !s.fusedMoe) return false;
    const moe = w.name.slice(0, w.name.lastIndexOf('.experts') + '.experts'.length);
    return s.fusedMoe.some((n) => n.includes(moe));
  };
}

/** One linear weight [K inputs, N outputs], `copies` times (routed / shared experts), named as a Llama-style checkpoint names it. */
interface LinearWeight {
  name: string;
  k: number;
  n: number;
  copies: number;
  /** A routed expert's. */
  expert: boolean;
}

/**
 * The model's linear weights (the ones {@link paramCounts} counts as attention, MLP, experts and
 * shared experts; lm_head when asked), with the names a Llama-style checkpoint gives them
 * (model.layers.<i>.self_attn.q_proj, .mlp.gate_proj, .mlp.experts.gate_proj, .mlp.shared_experts.up_proj,
 * lm_head): what modules_to_not_convert and dynamic patterns are matched against.
 */
function linearWeights(model: ModelSpec, withLmHead: boolean): LinearWeight[] {
  const h = model.hiddenSize;
  const H = model.numHeads;
  const out: LinearWeight[] = [];
  const add = (name: string, k: number, n: number, copies = 1, expert = false) => out.push({ name, k, n, copies, expert });
  const mlp = (prefix: string, inter: number, copies: number, expert: boolean) => {
    if (model.gatedMlp) add(`${prefix}.gate_proj`, h, inter, copies, expert);
    add(`${prefix}.up_proj`, h, inter, copies, expert);
    add(`${prefix}.down_proj`, inter, h, copies, expert);
  };
  const mambaLayers = new Set(model.mamba?.layers ?? []);
  for (let i = 0; i < model.numLayers; i++) {
    const a = `model.layers.${i}.self_attn`;
    if (mambaLayers.has(i)) for (const w of mambaProjections(model)) add(`model.layers.${i}.${model.mamba?.kind === 'gdn' ? 'linear_attn' : model.mamba?.kind === 'lightning' ? 'self_attn' : model.mamba?.kind === 'shortconv' ? 'conv' : 'mamba'}.${w.name}`, w.k, w.n);
    if (model.mamba && model.layerTypes[i] === 'linear') {
      // A Mamba (or MLP-only) layer: no attention block.
    } else if (model.mla) {
      const m = model.mla;
      const qk = m.qkNopeHeadDim + m.qkRopeHeadDim;
      if (m.qLoraRank) {
        add(`${a}.q_a_proj`, h, m.qLoraRank);
        add(`${a}.q_b_proj`, m.qLoraRank, H * qk);
      } else {
        add(`${a}.q_proj`, h, H * qk);
      }
      add(`${a}.kv_a_proj_with_mqa`, h, m.kvLoraRank + m.qkRopeHeadDim);
      add(`${a}.kv_b_proj`, m.kvLoraRank, H * (m.qkNopeHeadDim + m.vHeadDim));
      add(`${a}.o_proj`, H * m.vHeadDim, h);
    } else {
      const D = model.headDim;
      add(`${a}.q_proj`, h, (model.attnOutputGate ? 2 : 1) * H * D);
      add(`${a}.k_proj`, h, model.numKvHeads * D);
      add(`${a}.v_proj`, h, model.numKvHeads * D);
      add(`${a}.o_proj`, H * D, h);
    }
    const moe = model.moe;
    if (model.mlpLayers && !model.mlpLayers[i]) continue;
    if (moe && isMoeLayer(moe, i)) {
      mlp(`model.layers.${i}.mlp.experts`, moe.expertIntermediateSize, moe.numExperts, true);
      if (moe.numSharedExperts > 0) mlp(`model.layers.${i}.mlp.shared_experts`, moe.sharedExpertIntermediateSize, moe.numSharedExperts, false);
    } else {
      mlp(`model.layers.${i}.mlp`, model.intermediateSizes?.[i] ?? model.intermediateSize, 1, false);
    }
  }
  if (withLmHead && !model.isEncoder && !model.tieWordEmbeddings) add('lm_head', h, model.vocabSize);
  return out;
}

/**
 * The linear projections of one Mamba layer, [K inputs, N outputs] (vLLM MambaMixer: in_proj,
 * x_proj, dt_proj, out_proj; MambaMixer2: in_proj, out_proj; Qwen3NextGatedDeltaNet:
 * in_proj_qkvz, in_proj_ba, out_proj): what a quantized checkpoint stores quantized. conv1d, A, D,
 * dt_bias and the norms stay in the model's dtype. [] without Mamba.
 */
function mambaProjections(model: ModelSpec): Array<{ name: string; k: number; n: number }> {
  const m = model.mamba;
  if (!m) return [];
  const h = model.hiddenSize;
  const I = m.intermediateSize;
  if (m.kind === 'mamba1') {
    return [
      { name: 'in_proj', k: h, n: 2 * I },
      { name: 'x_proj', k: I, n: m.dtRank + 2 * m.stateSize },
      { name: 'dt_proj', k: m.dtRank, n: I },
      { name: 'out_proj', k: I, n: h },
    ];
  }
  if (m.kind === 'shortconv') {
    return [
      { name: 'in_proj', k: I, n: 3 * I },
      { name: 'out_proj', k: I, n: I },
    ];
  }
  if (m.kind === 'lightning') {
    return [
      { name: 'qkv_proj', k: h, n: 3 * I },
      { name: 'output_gate', k: h, n: I },
      { name: 'out_proj', k: I, n: h },
    ];
  }
  if (m.kind === 'gdn') {
    return [
      { name: 'in_proj_qkvz', k: h, n: 2 * m.nGroups * m.stateSize + 2 * I },
      { name: 'in_proj_ba', k: h, n: 2 * m.numHeads },
      { name: 'out_proj', k: I, n: h },
    ];
  }
  return [
    { name: 'in_proj', k: h, n: 2 * I + 2 * m.nGroups * m.stateSize + m.numHeads },
    { name: 'out_proj', k: I, n: h },
  ];
}

/** What {@link quantizedWeights} covers, in words for the CLI and the hover: "routed MoE expert weights" or "linear layers". */
export function quantizedScopeText(q: QuantizationSpec): string {
  return q.scope === 'experts' ? 'routed MoE expert weights' : 'linear layers';
}

/**
 * The stored width of the quantized weights, in words: "4.25 bits" (flat formats), or for a
 * grouped one the mean over its layers and the layout: "4.16 bits a weight (4-bit, fp16 scale and
 * 4-bit zero per 128 inputs)"; null without quantization.
 */
export function quantizedWidthText(model: ModelSpec, qw: QuantizedWeights = quantizedWeights(model)): string | null {
  const q = model.quantization;
  if (!q) return null;
  const g = q.grouped;
  if (!g) return `${Math.round(q.bitsPerWeight * 1000) / 1000} bits`;
  const mean = qw.params > 0 ? Math.round(qw.bytes * 8 / qw.params * 100) / 100 : g.bits;
  const per = g.groupSize === null ? 'per output channel' : `per ${g.groupSize} inputs`;
  const scale = { 8: 'fp8', 16: 'fp16', 32: 'fp32' }[g.scaleBits ?? 16] ?? `${g.scaleBits}-bit (double-quantized)`;
  return `${mean} bits a weight (${g.bits}-bit, ${scale} scale${g.zeroPoints ? ` and ${g.bits}-bit zero` : ''} ${per}${g.groupIndex ? ', int32 g_idx' : ''})`;
}

/**
 * Bytes of the routed experts' weights alone (all MoE layers, every GPU together): the part of
 * {@link weightsBytes} a step reads only for the experts its tokens are routed to. 0 for dense
 * models. Quantized at the checkpoint's width when quantization_config covers the experts.
 */
export function routedExpertBytes(model: ModelSpec, dtype: Dtype, params: ParamCounts = paramCounts(model)): number {
  const experts = params.breakdown.experts;
  if (experts === 0) return 0;
  const q = quantizedWeights(model, params.breakdown);
  return q.expertBytes + (experts - q.expertParams) * dtypeBytes(dtype);
}

/**
 * Of the weights one token is multiplied by ({@link ParamCounts.activeCompute}), those stored
 * quantized: the quantized linear layers', the routed experts' counted at the share a token uses
 * (k of E). What a W8A8 checkpoint's fp8 / int8 GEMMs multiply; 0 without quantization.
 */
export function quantizedActiveComputeParams(model: ModelSpec, params: ParamCounts = paramCounts(model)): number {
  const q = quantizedWeights(model, params.breakdown);
  const b = params.breakdown;
  const expertShare = b.experts > 0 ? b.expertsActive / b.experts : 0;
  return q.params - q.expertParams + q.expertParams * expertShare;
}

/** vLLM V1's default max_num_batched_tokens for `vllm serve` on a GPU of >= 70 GiB (and where the device is unknown). */
export const DEFAULT_MAX_NUM_BATCHED_TOKENS = 8192;
/** ... and on a smaller GPU (24 GB, 48 GB cards) or an A100. */
export const SMALL_GPU_MAX_NUM_BATCHED_TOKENS = 2048;
/** vLLM V1's default max_num_seqs for `vllm serve` on a GPU of >= 70 GiB that is not an A100 (and where the device is unknown). */
export const DEFAULT_MAX_NUM_SEQS = 1024;
/** ... and on a smaller GPU or an A100. */
export const SMALL_GPU_MAX_NUM_SEQS = 256;

/** vLLM's `vllm serve` batch defaults for a device, and which of its two cases applied, in words. */
export interface BatchDefaults {
  maxNumBatchedTokens: number;
  maxNumSeqs: number;
  /** "a >= 70 GiB GPU", "an A100", "a < 70 GiB GPU" or "no device given: taken as a >= 70 GiB GPU". */
  device: string;
}

/** Whether a device.gpu name alone picks vLLM's smaller batch defaults whatever the memory ("a100" in the name, case-insensitive: {@link batchDefaults}). */
export function gpuNamePicksSmallBatch(gpuName: string | null | undefined): boolean {
  return !!gpuName && /a100/i.test(gpuName);
}

/**
 * The max_num_batched_tokens and max_num_seqs vLLM V1 picks when they are not set, for `vllm
 * serve` (the OpenAI API server, how a model is deployed), by the device's memory and name
 * (vllm/engine/arg_utils.py EngineArgs.get_batch_defaults: device memory >= 70 GiB and "a100"
 * not in the device name -> 8192 tokens and 1024 sequences, else 2048 and 256; the A100
 * exclusion is vLLM PR #17885, "large max_num_batched_tokens reduces A100 throughput"). These
 * are V1's: the V0 engine's defaults did not depend on the device ({@link v0MaxNumBatchedTokens},
 * 256 sequences). Where the device is unknown (0 bytes) the large defaults, as on the H100 the
 * step-time model then assumes. `gpuName`: the profile's device.gpu, if any.
 */
export function batchDefaults(deviceBytes: number, gpuName?: string | null): BatchDefaults {
  if (gpuNamePicksSmallBatch(gpuName)) return { maxNumBatchedTokens: SMALL_GPU_MAX_NUM_BATCHED_TOKENS, maxNumSeqs: SMALL_GPU_MAX_NUM_SEQS, device: 'an A100' };
  if (deviceBytes > 0 && deviceBytes < 70 * GIB) return { maxNumBatchedTokens: SMALL_GPU_MAX_NUM_BATCHED_TOKENS, maxNumSeqs: SMALL_GPU_MAX_NUM_SEQS, device: 'a < 70 GiB GPU' };
  return { maxNumBatchedTokens: DEFAULT_MAX_NUM_BATCHED_TOKENS, maxNumSeqs: DEFAULT_MAX_NUM_SEQS, device: deviceBytes > 0 ? 'a >= 70 GiB GPU' : 'no device given: taken as a >= 70 GiB GPU' };
}

/** vLLM V0's SchedulerConfig default max_num_batched_tokens and why, in words. */
export interface V0BatchedTokensDefault {
  tokens: number;
  /** "vLLM V0's default with chunked prefill off: max(max_model_len, 2048)", ... */
  why: string;
}

/**
 * The max_num_batched_tokens vLLM's V0 engine picked when it was not set, whatever the device
 * (vllm/config.py SchedulerConfig, 0.2 to 0.10; read at v0.7.x, commit 0004438, `__post_init__`):
 * - chunked prefill off: max(max_model_len, 2048) ("If max_model_len is too short, use 2048");
 * - chunked prefill on: 2048 from vLLM 0.6.5 (PR #10544, merged 2024-11-21), 512 before
 *   ("the values that have the best balance between ITL and TTFT on A100").
 * Chunked prefill was off unless asked for, except that V0's EngineArgs.create_engine_config
 * (vllm/engine/arg_utils.py; `_set_default_args_v0` from 0.8) turned it on for max_model_len
 * > 32,768 on a CUDA GPU (PR #6666, merged 2024-07-23 as 0.5.3 was released: taken here as
 * from 0.5.4), unless sliding window, speculative decoding, LoRA, prompt adapters, a pooling,
 * multimodal or MLA model, or (before PR #8342) prefix caching ruled it out; which a log may not say, so
 * `chunkedPrefill` (the log's chunked_prefill_enabled / enable_chunked_prefill) decides where
 * known. Not modelled: multi-step scheduling with chunked prefill (max(max_model_len, 2048)),
 * and the pooling (32,768) and multimodal (5,120) floors. `vllmVersion` null: the last V0 rules.
 */
export function v0MaxNumBatchedTokens(maxModelLen: number, vllmVersion: string | null, chunkedPrefill?: boolean): V0BatchedTokensDefault {
  const onByDefault = maxModelLen > 32_768 && vllmAtLeast(vllmVersion, [0, 5, 4]);
  if (chunkedPrefill ?? onByDefault) {
    const tokens = vllmAtLeast(vllmVersion, [0, 6, 5]) ? 2048 : 512;
    const on = chunkedPrefill === undefined ? 'which V0 turns on for max_model_len > 32,768 from 0.5.4' : 'which the log says is on';
    return { tokens, why: `vLLM V0's default with chunked prefill, ${on}: ${tokens === 2048 ? '2048 from 0.6.5' : '512 before 0.6.5'}` };
  }
  return { tokens: Math.max(maxModelLen, 2048), why: `vLLM V0's default with chunked prefill off: max(max_model_len, 2048)` };
}

/** The max_num_batched_tokens a profile runs with: its workload's, else vLLM's default for its device. */
export function maxNumBatchedTokensOf(profile: Profile): number {
  return profile.workload?.maxNumBatchedTokens ?? batchDefaults(deviceMemory(profile).bytes, profile.device.gpu).maxNumBatchedTokens;
}

/**
 * The max_num_seqs a profile runs with: its workload's, else vLLM's default for its device,
 * capped at max_num_batched_tokens as vLLM caps a defaulted one
 * (EngineArgs._set_default_max_num_seqs_and_batched_tokens_args: min(max_num_seqs, max_num_batched_tokens)).
 */
export function maxNumSeqsOf(profile: Profile): number {
  return profile.workload?.maxNumSeqs ?? Math.min(batchDefaults(deviceMemory(profile).bytes, profile.device.gpu).maxNumSeqs, maxNumBatchedTokensOf(profile));
}

/**
 * "max_num_batched_tokens 8,192 (vLLM's default on a >= 70 GiB GPU), max_num_seqs 256": the two
 * batch limits a profile runs with, each a default said to be one, with the device case it is for.
 */
export function batchLimitsText(profile: Profile): string {
  const w = profile.workload;
  const why = ` (vLLM's default on ${batchDefaults(deviceMemory(profile).bytes, profile.device.gpu).device})`;
  return `max_num_batched_tokens ${formatCount(maxNumBatchedTokensOf(profile))}${w?.maxNumBatchedTokens === undefined ? why : ''}, max_num_seqs ${formatCount(maxNumSeqsOf(profile))}${w?.maxNumSeqs === undefined ? why : ''}`;
}

/**
 * The activation peak vLLM subtracts before sizing its pool. vLLM measures it: one dummy
 * forward pass of max_num_batched_tokens tokens, then the sampler over max_num_seqs rows,
 * reading torch's peak allocation (gpu_worker.determine_available_memory -> profile_run:
 * `_dummy_run(max_num_tokens)`, then `_dummy_sampler_run(hidden_states)`). The two phases do not
 * overlap: the forward pass frees each layer's intermediates before the next, and only its output
 * hidden states live on into the sampler. So the peak is the larger of
 *   forward: T · bytes · (2h + max(attn, mlp))      sampler: T · bytes · h + 3 · S · V · 4
 * - T = max_num_batched_tokens, S = max_num_seqs, 2h = the residual and the normed hidden state;
 * - attn = (H + 2·H_kv)·D (q, k, v) + H·D (attention output);
 * - mlp = gate/up output 2i + activation i + down output h for a gated MLP (i + i + h plain);
 *   MoE layers (vLLM fused_moe's caches): k·(2·i_e + i_e + h) + shared experts' 3·i_s + h;
 * - 3 · S · V · 4: the sampler's fp32 logits, probs and logprobs.
 * Not split by tensor parallelism (the sampler and residual stream are replicated; PR #10511's
 * Meta-Llama-3-8B logs the same 1.26 GiB peak at -tp 2 as at tp 1, while its weights halve). Checked
 * against vLLM's own logs: Meta-Llama-3-8B on an H100 at T 8192 (PR #10511: "PyTorch activation
 * peak memory 1.26GiB"; this model: 0.84 GiB, the forward phase) and Llama-3.1-8B on an A10 at
 * T 2048 (vLLM's default there; "PyTorch activation peak memory takes 0.22GiB"; this model:
 * 0.38 GiB, the sampler phase); both KV budgets land within 5% (test/unit/reserve.test.ts).
 * vLLM's non-torch memory and NCCL buffers are separate terms (reserve.ts).
 */
export function activationPeakBytes(
  model: ModelSpec,
  dtype: Dtype,
  maxNumBatchedTokens = DEFAULT_MAX_NUM_BATCHED_TOKENS,
  maxNumSeqs = DEFAULT_MAX_NUM_SEQS,
): number {
  const h = model.hiddenSize;
  const attnWidth = model.mla
    ? model.numHeads * (model.mla.qkNopeHeadDim + model.mla.qkRopeHeadDim) * 2 + model.numHeads * model.mla.vHeadDim * 2
    : (model.numHeads + 2 * model.numKvHeads) * model.headDim + model.numHeads * model.headDim;
  let mlpWidth = (model.gatedMlp ? 3 : 2) * model.intermediateSize + h;
  if (model.moe) {
    const m = model.moe;
    const moeWidth = m.numExpertsPerTok * (3 * m.expertIntermediateSize + h) + m.numSharedExperts * 3 * m.sharedExpertIntermediateSize + h;
    const hasDense = m.firstDenseLayers > 0 || m.mlpOnlyLayers.length > 0 || m.layerFrequency > 1;
    mlpWidth = hasDense ? Math.max(mlpWidth, moeWidth) : moeWidth;
  }
  const b = dtypeBytes(dtype);
  const forward = maxNumBatchedTokens * b * (2 * h + Math.max(attnWidth, mlpWidth));
  const sampler = model.isEncoder ? 0 : maxNumBatchedTokens * b * h + 3 * maxNumSeqs * model.vocabSize * 4;
  return Math.max(forward, sampler);
}

/**
 * Pages (vLLM blocks) that fit a KV budget: floor(budgetBytes / pageBytes), with pageBytes one
 * page across all layers (page_size · kvBytesPerToken). vLLM: num_blocks = available_memory //
 * page_size_bytes // num_layers, the same number. 0 when the budget is negative or there is no
 * KV cache.
 */
export function poolPages(budgetBytes: number, pageBytes: number): number {
  if (pageBytes <= 0 || budgetBytes <= 0) return 0;
  return Math.floor(budgetBytes / pageBytes);
}

/**
 * Attention workspace of one layer for B sequences of N_q queries over N_k keys, on one GPU
 * when `numHeads` is the heads it computes (headsPerGpu under tensor parallelism).
 * Naive: S = QKᵀ and P = softmax(S) materialized, 2 · B · H · N_q · N_k · bytes(dtype).
 * Flash: S and P live in on-chip tiles; what persists is O(B · H · N_q): the running max m,
 * running sum l and the returned lse, fp32 each (FlashAttention, Dao et al. 2022, Alg. 1 and
 * Thm. 1), 3 · B · H · N_q · 4. The output O itself is not workspace: both kernels write it.
 */
export function attentionWorkspace(batchSize: number, numHeads: number, seqLenQ: number, seqLenK: number, dtype: Dtype): AttentionWorkspace {
  return {
    naiveBytes: 2 * batchSize * numHeads * seqLenQ * seqLenK * dtypeBytes(dtype),
    flashBytes: 3 * batchSize * numHeads * seqLenQ * 4,
    seqLen: seqLenQ,
  };
}

/** The KV dtype a profile resolves to: kv_cache.dtype, or the profile's dtype for 'auto'. */
export function resolveKvDtype(profile: Profile): KvDtype {
  return profile.kvCache.dtype === 'auto' ? profile.dtype : profile.kvCache.dtype;
}

/**
 * Device memory per GPU a profile sizes for: device.memory_gib as written, else the CUDA total
 * of device.gpu (core/estimate/gpus.ts: a table row's, or the memory_gib of a GPU the profile
 * describes), else 0 (unknown).
 */
export function deviceMemory(profile: Profile): { bytes: number; source: string } {
  const d = profile.device;
  if (d.memoryGib !== null) return { bytes: Math.floor(d.memoryGib * GIB), source: `device.memory_gib ${Number(d.memoryGib.toPrecision(10))}` };
  const gpu = deviceGpu(d);
  if (gpu) return gpuMemory(gpu);
  return { bytes: 0, source: '' };
}

/**
 * Tensors vLLM allocates while it builds the model, per GPU, which its "Model loading took" figure
 * counts with the weights. Gemma 3n (the multimodal Gemma3nForConditionalGeneration, a config
 * with its towers) preallocates its per-layer-embedding buffer for CUDA graphs (vLLM
 * gemma3n_mm.py __init__: torch.zeros(scheduler_config.max_num_batched_tokens,
 * text_config.num_hidden_layers, text_config.hidden_size_per_layer_input) in embed_tokens' dtype),
 * whole on every GPU: E4B at max_num_batched_tokens 8,192 in bf16, 8,192 · 35 · 256 · 2 =
 * 146,800,640 B. 0 for other models.
 */
export function modelBufferBytes(model: ModelSpec, dtype: Dtype, maxNumBatchedTokens: number): { bytes: number; basis: string; source: string } {
  const g = model.gemma3n;
  if (!g || !model.vision) return { bytes: 0, basis: '', source: '' };
  const bytes = maxNumBatchedTokens * model.numLayers * g.hiddenSizePerLayerInput * dtypeBytes(dtype);
  const formula = `max_num_batched_tokens ${formatCount(maxNumBatchedTokens)} · ${model.numLayers} layers · hidden_size_per_layer_input ${g.hiddenSizePerLayerInput} · ${dtypeBytes(dtype)} B`;
  return {
    bytes,
    basis: `Gemma 3n per-layer-embedding buffer: ${formula}`,
    source: `vLLM gemma3n_mm.py Gemma3nForConditionalGeneration allocates per_layer_embeddings, ${formula}, on every GPU while it loads the model (for CUDA graphs); its "Model loading took" figure holds it`,
  };
}

/** One pipeline stage's per-GPU figures (the whole model when pipeline_parallel_size is 1). */
interface StageFigures {
  /** Absent without pipeline parallelism. */
  stage?: PipelineStage;
  /** The stage's layers (stageModel); the model itself without pipeline parallelism. */
  model: ModelSpec;
  /** The stage's weights, its tensor-parallel GPUs together. */
  bytes: number;
  /** What one GPU of the stage holds on the GPU: its weights (stageWeights perGpu) less what is offloaded to CPU memory. */
  weightsPerGpu: number;
  /** What device.cpu_offload_gb moves to CPU memory on one GPU of the stage (cpuOffload), already taken out of weightsPerGpu; absent without it. */
  offload?: CpuOffload;
  replicated: ReplicatedWeights;
  holds: string[];
  /** KV bytes per token of the stage's layers, per GPU. */
  perToken: number;
  /** Layers one block covers on the stage (stageBlockLayers). */
  blockLayers: number;
  /** One block on one GPU of the stage. */
  pageBytes: number;
}

/** The pool one stage's GPUs size (estimate's budget rules), before vLLM unifies the block count over the stages. */
function sizeStagePool(profile: Profile, st: StageFigures, device: { bytes: number; source: string }, usable: number): {
  budgetBytes: number; activation: number; engineReserve: number; reserve: ReserveTerm[]; budgetSource: PoolEstimate['budgetSource']; pages: number; notes: string[];
} {
  const model = profile.model;
  const tp = profile.device.tensorParallelSize;
  const notes: string[] = [];
  let budgetBytes = 0;
  let activation = 0;
  let engineReserve = 0;
  let reserve: ReserveTerm[] = [];
  let budgetSource: PoolEstimate['budgetSource'] = 'none';
  let pages: number;
  const weightsPerGpu = st.weightsPerGpu;
  if (model.isEncoder) {
    pages = 0;
  } else if (typeof profile.kvCache.numPages === 'number') {
    pages = profile.kvCache.numPages;
    budgetBytes = pages * st.pageBytes;
    budgetSource = 'explicit';
  } else {
    if (typeof profile.kvCache.memoryGib === 'number') {
      budgetBytes = Math.floor(profile.kvCache.memoryGib * GIB);
      budgetSource = 'explicit';
    } else if (device.bytes > 0) {
      const batched = maxNumBatchedTokensOf(profile);
      const copies = mlaDecodeCopies(st.model, profile.dtype, tp).bytesPerGpu;
      const seqs = maxNumSeqsOf(profile);
      reserve = reserveTerms(profile.engine ?? DEFAULT_ENGINE, tp, weightsPerGpu, {
        bytes: activationPeakBytes(model, profile.dtype, batched, seqs),
        basis: batchLimitsText(profile),
        source: `modelled: the larger of one forward pass of max_num_batched_tokens tokens and the sampler over max_num_seqs rows (${batchLimitsText(profile)}), the two phases of vLLM's profile_run`,
      }, `${tpWeightsFormula('parameters · bytes', tp, st.replicated) || (tp > 1 ? `parameters · bytes ÷ ${tp}` : 'parameters · bytes')}${copies > 0 ? ` + ${formatBytes(copies)} ${profile.dtype} kv_b_proj copies` : ''}${st.offload ? ` − ${formatBytes(st.offload.bytes)} in CPU memory (cpu_offload_gb ${profile.device.cpuOffloadGib})` : ''}`, modelBufferBytes(model, profile.dtype, batched));
      activation = reserve.find((t) => t.key === 'activation')!.bytes;
      engineReserve = subtractedBytes(reserve) - weightsPerGpu - activation;
      budgetBytes = usable - subtractedBytes(reserve);
      budgetSource = 'device';
      // A one-data-point figure (vLLM 0.2.5-0.2.6's NCCL term) does not decide alone that there
      // is no KV cache: it is left out, and the note says the pool is then an upper bound.
      const guess = reserve.find((t) => t.oneDataPoint && t.subtracted && t.bytes > 0);
      if (guess && budgetBytes <= 0 && budgetBytes + guess.bytes > 0) {
        reserve = reserve.map((t) => (t === guess ? { ...t, subtracted: false, basis: `${t.basis}; left out: it alone would leave no KV cache` } : t));
        engineReserve -= guess.bytes;
        budgetBytes += guess.bytes;
        notes.push(`the ${formatBytes(guess.bytes)} NCCL-buffers figure of vLLM 0.2.5-0.2.6 (${guess.basis.replace(/; left out.*/, '')}) would leave no room for a KV cache, so it is left out: the KV pool is an upper bound, uncertain by up to that much; set engine.nccl_gib to what this setup's log shows`);
      }
      const unknown = reserve.find((t) => t.unknown);
      if (unknown) notes.push(`${unknown.label} at tensor_parallel_size ${tp}: ${engineEraName(profile.engine ?? DEFAULT_ENGINE)} counted them, but no public log gives their size for a model and tensor_parallel_size, so they are not subtracted and the KV pool is an upper bound; start this vLLM once, read its "# GPU blocks" with attnscope vllm-log, and set ${engineKeyOf(unknown.key)} to what it implies`);
      // The remedy is the device-fit warning's alone, weights-exceed-device or kv-pool-empty, one of
      // which fires whenever this does (s52 newcomer: this note said "raise tensor_parallel_size"
      // beside a warning that named pipeline_parallel_size).
      if (budgetBytes <= 0) {
        const where = st.stage ? ` of ${stageLabel(st.stage)}` : '';
        notes.push(`weights${where} (${formatBytes(weightsPerGpu)} per GPU), activations (${formatBytes(activation)}) and engine reserves (${formatBytes(engineReserve)}) exceed ${formatGib(device.bytes)} × ${formatFactorAsWritten(profile.device.gpuMemoryUtilization)}: no room for a KV cache (the device warning says what fits)`);
        budgetBytes = Math.max(0, budgetBytes);
      }
    } else {
      notes.push(isBareConfig(profile) ? `a config.json names no GPU, so nothing sizes the KV pool: ${bareConfigProfileHint(profile.sourcePath!, DEFAULT_GPU)}` : 'no device.gpu, device.memory_gib or kv_cache.memory_gib: the pool is not sized');
    }
    pages = poolPages(budgetBytes, st.pageBytes);
  }
  return { budgetBytes, activation, engineReserve, reserve, budgetSource, pages, notes };
}

/**
 * The full estimate of a profile (DESIGN.md "Estimate JSON").
 * `seqLen` (default: referenceSeqLen) is the length the attention workspace and the max
 * concurrency are computed at; `batchSize` (default: prefill.batch_size) the workspace's B.
 * Pool budget, in order: kv_cache.num_pages · pageBytes; kv_cache.memory_gib; device memory
 * (memory_gib, else device.gpu) · gpu_memory_utilization − weights/tp − activation peak −
 * engine reserves (reserve.ts: non-torch, NCCL, CUDA graphs when counted); else none (0 pages).
 */
export function estimate(profile: Profile, opts: { seqLen?: number; batchSize?: number } = {}): Estimate {
  const model = profile.model;
  const dtype = profile.dtype;
  const kvDtype = resolveKvDtype(profile);
  const tp = profile.device.tensorParallelSize;
  const pp = profile.device.pipelineParallelSize ?? 1;
  const pageSize = profile.kvCache.pageSize;
  const perLayer = kvBytesPerTokenPerLayer(model, kvDtype, tp);
  const globalLayout = kvPoolLayout(model, dtype, kvDtype, tp, pageSize, profile.engine?.vllmVersion ?? null, maxNumBatchedTokensOf(profile), profile.engine?.disableHybridKvCacheManager, profile.engine?.mambaCacheMode);
  const chunked = isChunkedLocalAttention(model);
  const params = paramCounts(model);
  const weights = weightsBytes(model, dtype, params);
  const seqLen = opts.seqLen ?? referenceSeqLen(profile);
  const batchSize = opts.batchSize ?? profile.prefill.batchSize;
  const notes: string[] = [];

  // What one GPU holds, per pipeline stage (one stage, the whole model, without pipeline parallelism).
  // device.cpu_offload_gb (vLLM --cpu-offload-gb): each GPU keeps that much of its decoder layers'
  // parameters in CPU memory (cpuOffload); what stays is what it holds, and what its pool is sized
  // from (determine_available_memory measures the GPU memory the loaded model takes).
  const offloadGib = profile.device.cpuOffloadGib ?? 0;
  const offloadOf = (start: number, end: number) => (offloadGib > 0 && !model.isEncoder ? cpuOffload(model, dtype, tp, start, end, offloadGib) : undefined);
  const stages: StageFigures[] = pp > 1 && pp <= model.numLayers
    ? pipelineStagesOf(model.numLayers, pp).map((stage) => {
      const sm = stageModel(model, stage.start, stage.end);
      const w = stageWeights(model, dtype, tp, stage);
      const blockLayers = stageBlockLayers(model, globalLayout, stage.start, stage.end);
      const offload = offloadOf(stage.start, stage.end);
      return { stage, model: sm, bytes: w.bytes, weightsPerGpu: w.perGpu - (offload?.bytes ?? 0), offload, replicated: w.replicated, holds: w.holds, perToken: kvLayerCount(sm) * perLayer, blockLayers, pageBytes: blockLayers * globalLayout.pageSize * perLayer };
    })
    : [((offload) => ({ model, bytes: weights, weightsPerGpu: weightsBytesPerGpu(model, dtype, tp, 1, params) - (offload?.bytes ?? 0), offload, replicated: replicatedWeights(model, dtype, tp, params), holds: [], perToken: kvLayerCount(model) * perLayer, blockLayers: globalLayout.groupSize, pageBytes: globalLayout.blockBytes }))(offloadOf(0, model.numLayers))];

  const device = deviceMemory(profile);
  const usable = Math.floor(device.bytes * profile.device.gpuMemoryUtilization);
  const weightsFit = stages.length === pp ? weightsFitOf(model, dtype, tp, pp, params, usable, stages.reduce((most, st) => Math.max(most, st.weightsPerGpu), 0)) : null;
  // Each stage's GPUs size their own pool from what they hold (vLLM: every worker profiles its
  // memory); the pool's block count is then the smallest stage's (get_kv_cache_configs: "Change the
  // num_blocks of each rank to the smallest among all ranks").
  const sized = stages.map((st) => sizeStagePool(profile, st, device, usable));
  let k = 0;
  for (let i = 1; i < stages.length; i++) {
    if (sized[i].pages < sized[k].pages || (sized[i].pages === sized[k].pages && stages[i].weightsPerGpu > stages[k].weightsPerGpu)) k = i;
  }
  const lim = stages[k];
  const { budgetBytes, activation, engineReserve, reserve, budgetSource, pages } = sized[k];
  notes.push(...sized[k].notes);
  const weightsPerGpu = lim.weightsPerGpu;
  const replicated = lim.replicated;
  const perToken = lim.perToken;
  const pageBytes = lim.pageBytes;
  const layout: KvPoolLayout = lim.stage ? { ...globalLayout, groupSize: lim.blockLayers, blockBytes: lim.pageBytes } : globalLayout;
  const stageModelOf = lim.model;
  if (lim.stage) {
    const counts = stages.map((st) => st.stage!.end - st.stage!.start);
    const range = (st: StageFigures) => `stage ${st.stage!.index + 1} (layers ${st.stage!.start}-${st.stage!.end - 1})`;
    const holds = stages.filter((st) => st.holds.length > 0).map((st) => `${range(st)} also holds ${st.holds.join(' and ')}`);
    const each = stages.map((st, i) => `stage ${i + 1} ${formatBytes(st.weightsPerGpu)} weights/GPU, ${formatCount(sized[i].pages)} blocks of ${formatBytes(st.pageBytes)}`);
    notes.push(`pipeline_parallel_size ${pp}: ${formatCount(tp * pp)} GPUs; vLLM splits the ${model.numLayers} layers ${counts.join(' + ')} (get_pp_indices): ${holds.join(', ')}${model.vision ? '; the vision tower is on every stage' : ''}. Each stage sizes its KV pool from its own free memory, and vLLM gives every stage the smallest block count (get_kv_cache_configs): ${each.join('; ')}. The per-GPU figures here are stage ${k + 1}'s`);
  }
  // Data parallelism (vLLM --data-parallel-size): one EngineCore per replica, each loading the
  // whole model on its tp · pp GPUs and sizing its own pool (vllm/v1/engine/core.py
  // DPEngineCoreProc: each runs _initialize_kv_caches for itself); nothing here is split or shared.
  const dp = profile.device.dataParallelSize ?? 1;
  if (dp > 1) notes.push(`data_parallel_size ${dp}: ${dp} engine replicas, each a whole copy of the model on ${formatCount(tp * pp)} GPU${tp * pp > 1 ? 's' : ''} with its own scheduler and KV pool (vLLM: one EngineCore each), ${formatCount(tp * pp * dp)} GPUs in all. Every figure here is one replica's (its weights, pool and max concurrency); the deployment holds ${dp} such pools, and serves up to ${dp} times one replica's requests at once`);
  const reservation = requestReservation(layout, seqLen);
  const pagesPerSeq = reservation.blocks;
  const maxConcurrency = pagesPerSeq > 0 && perToken > 0 ? pages / pagesPerSeq : 0;
  if (model.torchDtype !== null && model.torchDtype !== dtype) {
    notes.push(`the checkpoint is ${model.torchDtype}; weights and activations are sized in ${dtype}`);
  }
  if (model.isEncoder) notes.push(`${model.modelType} is an encoder: no KV cache, so no pages`);
  if (model.vision) notes.push(params.breakdown.vision ? `${model.vision.note}: ${formatParams(params.breakdown.vision)} of the ${formatParams(params.total)} parameters` : model.vision.note);
  const kvForSeq = kvBytesForSequence(stageModelOf, seqLen, kvDtype, tp);
  const mambaState = mambaStateBytesPerSequence(stageModelOf, dtype, tp);
  if (layout.kind === 'sliding') {
    notes.push(`${layout.basis}: ${indefiniteArticle(formatCount(seqLen))} ${formatCount(seqLen)}-token request reserves ${formatCount(pagesPerSeq)} blocks of ${formatBytes(pageBytes)} = ${formatBytes(reservation.bytes)} (ceil(min(window − 1 + max_num_batched_tokens, N) / page_size) + 1 = ceil(min(${formatCount(layout.window - 1 + layout.maxNumBatchedTokens)}, ${formatCount(seqLen)}) / ${pageSize}) + 1)${reservation.bytes < perToken * seqLen ? `, not the ${formatBytes(perToken * seqLen)} of a pool that charges every token; pages outside the window are freed as the sequence grows` : ': at this length no less than a pool that charges every token'}`);
  } else if (layout.kind === 'hybrid') {
    const local = (layout.chunkedGroups ?? 0) > 0
      ? `chunked-attention groups hold at most attention_chunk_size + max_num_batched_tokens = ${formatCount((layout.chunk ?? 0) + layout.maxNumBatchedTokens)} tokens, and only the current chunk's blocks once it is computed`
      : `sliding-window groups hold at most window − 1 + max_num_batched_tokens = ${formatCount(layout.window - 1 + layout.maxNumBatchedTokens)} tokens`;
    notes.push(`${layout.basis}: ${indefiniteArticle(formatCount(seqLen))} ${formatCount(seqLen)}-token request reserves ${formatBytes(reservation.bytes)} (${formatCount(pagesPerSeq)} blocks of ${formatBytes(pageBytes)}; ${local})${reservation.bytes < perToken * seqLen ? `, not the ${formatBytes(perToken * seqLen)} of a pool that charges every layer` : `: at this length ${reservation.bytes === perToken * seqLen ? 'the same as' : 'more than'} a pool that charges every layer`}`);
  } else if (chunked && kvForSeq < perToken * seqLen) {
    // The releases whose default turns the hybrid manager off for chunked local attention (kvPoolLayout): every token of every layer.
    notes.push(`chunked-attention layers (attention_chunk_size ${formatCount(model.slidingWindow!)}: a query attends only the keys of its own chunk) need at most the current chunk's ${formatCount(model.slidingWindow!)} tokens: ${indefiniteArticle(formatCount(seqLen))} ${formatCount(seqLen)}-token sequence needs ${formatBytes(kvForSeq)}, but ${layout.basis}, so the pool reserves ${formatBytes(perToken * seqLen)} (${profile.engine?.disableHybridKvCacheManager === true ? 'with the hybrid manager on' : `from ${CHUNKED_HYBRID_DEFAULT_SINCE.join('.')}, or with VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1 (engine.disable_hybrid_kv_cache_manager false)`}, the chunked layers get KV-cache groups of their own)`);
  } else if (model.slidingWindow !== null && kvForSeq < perToken * seqLen) {
    notes.push(`sliding-window layers keep at most ${formatCount(model.slidingWindow)} tokens: ${indefiniteArticle(formatCount(seqLen))} ${formatCount(seqLen)}-token sequence needs ${formatBytes(kvForSeq)}, but ${layout.basis}, so the pool reserves ${formatBytes(perToken * seqLen)}`);
  }

  if (model.mamba && mambaState > 0) {
    const d = mambaStateDtypes(model, dtype);
    const names = mixerNames(model.mamba);
    const state = `${model.mamba.layers.length} ${names.layer} layers keep a constant state per sequence, whatever its length: ${formatBytes(mambaState)}${tp > 1 ? ' per GPU' : ''} (${names.states.map((s, i) => `${s} state in ${i === 0 ? d.conv : d.ssm}`).join(', ')}${d.ssm !== d.conv && names.states.length > 1 ? ", vLLM's default for this model" : ''})`;
    if (layout.kind === 'mamba') {
      const attnPage = layout.pageSize * perLayer;
      const unit = layout.mambaCacheMode === 'all' ? `lcm(${model.mamba.chunkSize ?? MAMBA_BLOCK_ALIGNMENT}, ${MAMBA_BLOCK_ALIGNMENT}) (the Mamba chunk size, mamba_cache_mode "all")` : `${MAMBA_BLOCK_ALIGNMENT}`;
      const raised = layout.pageSize > pageSize
        ? `vLLM raises the attention block size from page_size ${pageSize} to ${formatCount(layout.pageSize)} tokens, the smallest multiple of ${unit} whose attention page (${formatCount(layout.pageSize)} · ${formatBytes(perLayer)} = ${formatBytes(attnPage)} per layer) holds one layer's state (${formatBytes(layout.mambaPageBytes)}), and pads the state to it (+${(100 * (attnPage - layout.mambaPageBytes) / layout.mambaPageBytes).toFixed(2)} %; HybridAttentionMambaModelConfig): every page figure here is in blocks of ${formatCount(layout.pageSize)} tokens`
        : `page_size ${pageSize} already gives an attention page (${formatBytes(attnPage)} per layer) that holds one layer's state (${formatBytes(layout.mambaPageBytes)}); vLLM pads the state to it (HybridAttentionMambaModelConfig)`;
      notes.push(`${state}. ${raised}. ${layout.basis}: ${indefiniteArticle(formatCount(seqLen))} ${formatCount(seqLen)}-token request reserves ${formatCount(pagesPerSeq)} blocks of ${formatBytes(pageBytes)} = ${formatBytes(reservation.bytes)} (${blocksPerRequestFormula(layout)})`);
    } else if (perToken === 0 && !model.isEncoder && vllmAtLeast(profile.engine?.vllmVersion ?? null, MAMBA_IN_KV_POOL_SINCE)) {
      // No layer attends: the pool is one KV-cache group of MambaSpec layers (one spec, uniform
      // type: kv_cache_utils._get_kv_cache_config_uniform_type), a block one sequence's state.
      const stateBlocks = vllmAtLeast(profile.engine?.vllmVersion ?? null, MAMBA_ALIGN_DEFAULT_SINCE) ? 2 : 1;
      const held = budgetBytes > 0
        ? `: the budget of ${formatBytes(budgetBytes)} holds ${formatCount(Math.floor(budgetBytes / mambaState))} states, ${formatCount(Math.floor(budgetBytes / mambaState / stateBlocks))} requests at once whatever their length (an upper bound: HybridAttentionMambaModelConfig still pads each layer's state to the attention page of the config's head shape, not modelled)`
        : '';
      notes.push(`${state}. No layer attends, so vLLM's KV pool (from ${MAMBA_IN_KV_POOL_SINCE.join('.')}) holds these states alone: one KV-cache group of the ${model.mamba.layers.length} ${names.layer} layers (MambaSpec; one spec, so no hybrid manager is needed), a block one sequence's state, ${stateBlocks} per request (${stateBlocks === 2 ? `mamba_cache_mode "align", the default from ${MAMBA_ALIGN_DEFAULT_SINCE.join('.')}` : 'mamba_cache_mode "none"'}; MambaSpec.max_memory_usage_bytes)${held}`);
    } else {
      notes.push(`${state}. ${layout.basis}; vLLM before ${MAMBA_IN_KV_POOL_SINCE.join('.')} (engine.vllm_version ${profile.engine?.vllmVersion}) kept it outside the KV pool (V0's MambaCacheManager, max_num_seqs states): not modelled, so the pool here is larger than that vLLM's by up to ${formatBytes(mambaState * maxNumSeqsOf(profile))}`);
    }
  }
  const copies = mlaDecodeCopies(lim.model, dtype, tp);
  if (replicated.extraBytesPerGpu > 0) notes.push(`weights per GPU${lim.stage ? ` (${stageLabel(lim.stage)})` : ''}: ${formatBytes(weightsPerGpu)} = ${tpWeightsFormula(lim.bytes, tp, replicated, formatBytes, replicated.parts)}${copies.bytesPerGpu > 0 ? ` + ${formatBytes(copies.bytesPerGpu)} kv_b_proj copies` : ''}${lim.offload ? ` − ${formatBytes(lim.offload.bytes)} in CPU memory (cpu_offload_gb)` : ''}`);
  if (copies.bytesPerGpu > 0) notes.push(`weights per GPU include ${formatBytes(copies.bytesPerGpu)} of ${dtype} copies of kv_b_proj's halves W_UK_T and W_UV (${formatParams(copies.params)} quantized kv_b_proj parameters ÷ ${tp}), which vLLM keeps beside the quantized kv_b_proj for MLA's decode ("we currently do not have quantized bmm's", process_weights_after_loading): they come out of the KV pool, and the step time reads them with the other weights`);
  if (lim.offload) {
    const o = lim.offload;
    const layers = (lim.stage ? lim.stage.end - lim.stage.start : model.numLayers);
    const first = lim.stage?.start ?? 0;
    const walked = o.wholeLayers >= layers
      ? `all ${layers} decoder layers${lim.stage ? ` of ${stageLabel(lim.stage)}` : ''} (${formatBytes(o.bytes)}: they hold less than the budget; the embedding${model.tieWordEmbeddings ? '' : ', lm_head'} and final norm stay on the GPU)`
      : `layers ${first}-${first + o.wholeLayers - 1 + (o.partialBytes > 0 ? 1 : 0)}: ${o.wholeLayers} whole${o.partialBytes > 0 ? ` and ${formatBytes(o.partialBytes)} of layer ${first + o.wholeLayers}'s parameters` : ''}, ${formatBytes(o.bytes)} (parameter by parameter until the budget is reached, so the last one overshoots it)`;
    notes.push(`cpu_offload_gb ${profile.device.cpuOffloadGib}: vLLM keeps up to ${formatBytes(Math.floor(offloadGib * GIB))} of weights per GPU in pinned CPU memory (maybe_offload_to_cpu, offloading decoder layers' parameters in order from the first): ${walked}. The GPU holds ${formatBytes(weightsPerGpu)} of weights${budgetSource === 'device' ? `, and the KV budget is ${formatBytes(o.bytes)} larger` : ''}; every forward pass reads the offloaded bytes over the host link (the serving simulation's step time counts it)`);
  }
  if (model.paramsApproximated) notes.push(`parameters approximated: ${model.paramsApproximated}`);

  return {
    model: {
      numLayers: model.numLayers,
      numHeads: model.numHeads,
      numKvHeads: model.numKvHeads,
      headDim: model.headDim,
      hiddenSize: model.hiddenSize,
      vocabSize: model.vocabSize,
      attention: model.attention,
      slidingWindow: chunked ? null : model.slidingWindow,
      attentionChunkSize: chunked ? model.slidingWindow : null,
      dtype,
    },
    kvDtype,
    hasKvCache: !model.isEncoder,
    kvBytesPerToken: perToken,
    kvBytesPerTokenPerLayer: perLayer,
    kvBytesForSeqLen: kvForSeq,
    mambaStateBytesPerSeq: mambaState,
    paramsTotal: params.total,
    paramsActive: params.active,
    paramsActiveWithEmbedding: params.total - params.breakdown.experts + params.breakdown.expertsActive,
    paramsActiveCompute: params.activeCompute,
    params: params.breakdown,
    weightsBytes: weights,
    weightsBytesPerGpu: weightsPerGpu,
    ...(weightsFit ? { weightsFit } : {}),
    kvBProjCopiesBytesPerGpu: copies.bytesPerGpu,
    ...tpReplicationOf(replicated),
    ...(lim.offload ? { cpuOffloadBytesPerGpu: lim.offload.bytes } : {}),
    pageBytes,
    pageBytesPerLayer: layout.pageSize * perLayer,
    ...(stages[0].stage ? {
      pipeline: {
        size: pp,
        stage: k,
        stages: stages.map((st, i) => ({ start: st.stage!.start, end: st.stage!.end, weightsBytes: st.bytes, weightsBytesPerGpu: st.weightsPerGpu, kvBProjCopiesBytesPerGpu: mlaDecodeCopies(st.model, dtype, tp).bytesPerGpu, ...tpReplicationOf(st.replicated), ...(st.offload ? { cpuOffloadBytesPerGpu: st.offload.bytes } : {}), kvBytesPerToken: st.perToken, pageBytes: st.pageBytes, budgetBytes: sized[i].budgetBytes, pages: sized[i].pages, holds: st.holds })),
      },
    } : {}),
    pool: {
      budgetBytes,
      pages,
      tokens: poolTokens(layout, pages),
      layout,
      blocksPerSeq: model.isEncoder ? 0 : pagesPerSeq,
      seqNeededBytes: model.isEncoder ? 0 : reservation.bytes,
      maxConcurrency,
      sequencesAtOnce: Math.floor(maxConcurrency),
      concurrencySeqLen: seqLen,
      activationPeakBytes: activation,
      engineReserveBytes: engineReserve,
      budgetSource,
      deviceMemoryBytes: device.bytes,
      usableBytes: device.bytes > 0 ? usable : 0,
      gpuMemoryUtilization: profile.device.gpuMemoryUtilization,
      deviceSource: device.source,
      reserve,
    },
    attention: attentionWorkspace(batchSize, headsPerGpu(model, tp), seqLen, seqLen, dtype),
    notes,
  };
}

/** What one pipeline stage's GPUs hold of the weights (stageWeights). */
export interface StageWeights {
  /** The stage's weights, its tensor-parallel GPUs together. */
  bytes: number;
  /** One GPU of the stage: bytes / tensor_parallel_size, rounded up, plus what tensor parallelism replicates (replicatedWeights) and MLA's 16-bit kv_b_proj copies (mlaDecodeCopies). */
  perGpu: number;
  replicated: ReplicatedWeights;
  /** What the stage holds beyond its layers, in words ("the embedding", "the final norm and lm_head"). */
  holds: string[];
}

/**
 * The weights of one pipeline stage, as vLLM's model files build a pp rank (llama.py, qwen2.py,
 * ... with PPMissingLayer for what a rank does not hold): its decoder layers (make_layers over
 * get_pp_indices' range); embed_tokens on the first rank, and on the last too when
 * tie_word_embeddings (`is_first_rank or (tie_word_embeddings and is_last_rank)`: the last rank's
 * lm_head is tied to its own copy); the final norm and lm_head on the last rank; a vision tower
 * and projector on every rank (llava.py and the other multimodal models build them outside the
 * pipeline split). Layer weights as {@link weightsBytes} counts them (quantized at their stored
 * width), lm_head at its width (a GPTQ lm_head quantized when the config says so).
 * Llama-3.1-70B bf16 over pp 2: each stage 40 · 855,654,400 layer parameters + 1,050,673,152
 * (embedding, or lm_head + the 8,192 final norm).
 */
export function stageWeights(model: ModelSpec, dtype: Dtype, tp: number, stage: PipelineStage): StageWeights {
  const sm = stageModel(model, stage.start, stage.end);
  const p = paramCounts(sm);
  const b = dtypeBytes(dtype);
  const first = stage.index === 0;
  const last = stage.index === stage.count - 1;
  const embedding = p.breakdown.embedding * b;
  const lmHead = lmHeadBytes(sm, dtype, p);
  // Decoders' final norm (on the last rank); an encoder's embedding LayerNorm goes with its embedding.
  const endNorm = normParams(model) * b;
  const normHere = model.isEncoder ? first : last;
  const tiedCopy = last && !model.isEncoder && model.tieWordEmbeddings ? model.vocabSize * model.hiddenSize * b : 0;
  const bytes = weightsBytes(sm, dtype, p) - embedding - lmHead - endNorm
    + (first ? embedding : 0) + (last ? lmHead : 0) + (normHere ? endNorm : 0) + tiedCopy;
  const params = { ...p, breakdown: { ...p.breakdown, norms: p.breakdown.norms - (normHere ? 0 : normParams(model)) } };
  const replicated = replicatedWeights(sm, dtype, tp, params);
  const holds = [
    ...(first ? ['the embedding'] : []),
    ...(last && !model.isEncoder ? [tiedCopy > 0 ? 'the final norm and the embedding as tied lm_head' : 'the final norm and lm_head'] : []),
  ];
  return { bytes, perGpu: Math.ceil(bytes / tp) + replicated.extraBytesPerGpu + mlaDecodeCopies(sm, dtype, tp).bytesPerGpu, replicated, holds };
}

/** What vLLM's --cpu-offload-gb moves to CPU memory on one GPU of a stage ({@link cpuOffload}). */
export interface CpuOffload {
  /** Bytes of parameters offloaded per GPU: the cpu_offload_gb budget reached, overshot by up to one parameter, or every decoder layer's when they hold less. */
  bytes: number;
  /** Decoder layers whose every parameter is offloaded, counted from the stage's first. */
  wholeLayers: number;
  /** Parameters offloaded of the next layer (0 when the walk ended on a layer's end). */
  partialBytes: number;
}

/**
 * The weights vLLM keeps in pinned CPU memory under `cpu_offload_gb` GiB per GPU, one GPU of the
 * stage holding layers [start, end) (the whole model: 0 .. num_hidden_layers). vLLM sets the budget
 * to int(cpu_offload_gb · 1024³) bytes (gpu_model_runner.py set_cpu_offload_max_bytes; the
 * OffloadConfig's UVAOffloader in newer trees) and wraps each decoder layer as make_layers builds it
 * (vllm/model_executor/models/utils.py maybe_offload_to_cpu, offloader/uva.py _maybe_offload_to_cpu):
 * from the stage's first layer on, it moves parameter after parameter, in module order, while the
 * bytes moved so far are below the budget ("we use per-parameter offloading: one module might have
 * some parameters offloaded and some not"), so the last one moved may overshoot it. Only decoder
 * layers: the embedding, lm_head, final norm and a vision tower stay on the GPU. Module order is
 * modelled as the checkpoint's linear layers in their order, vLLM's fused ones as one parameter
 * (q/k/v as qkv_proj, gate/up as gate_up_proj, experts' as w13 and w2), then the layer's small
 * tensors (norms, routers, biases, Mamba's conv1d / A / D) as one. Per GPU: the linear layers ÷
 * tensor_parallel_size, rounded up, the rest as {@link stageWeights} gives the layer on one GPU. MLA's
 * 16-bit kv_b_proj copies are made after loading, on the GPU: not offloaded.
 * Llama-3.1-8B bf16 at 4 GiB (4,294,967,296 B): a layer is 436,224,000 B, 9 layers 3,926,016,000;
 * the 10th adds qkv_proj 50,331,648, o_proj 33,554,432, gate_up_proj 234,881,024 (still below) and
 * down_proj 117,440,512: 4,362,223,616 B, its two norms (16,384 B) stay.
 * @throws RangeError when gib is negative or not finite.
 */
export function cpuOffload(model: ModelSpec, dtype: Dtype, tp: number, start: number, end: number, gib: number): CpuOffload {
  if (!Number.isFinite(gib) || gib < 0) throw new RangeError(`cpu_offload_gb must be a finite number >= 0, got ${gib}`);
  const max = Math.floor(gib * GIB);
  let bytes = 0;
  let wholeLayers = 0;
  let partialBytes = 0;
  for (let i = start; i < end && bytes < max; i++) {
    const stage = { index: 1, count: 3, start: i, end: i + 1 };
    const layerModel = stageModel(model, i, i + 1);
    const perGpu = stageWeights(model, dtype, tp, stage).perGpu - mlaDecodeCopies(layerModel, dtype, tp).bytesPerGpu;
    const chunks: number[] = [];
    let prev = '';
    for (const w of linearWeights(layerModel, false)) {
      const kind = w.name.replace(/^.*\./, '');
      const fused = (/^[qkv]_proj$/.test(kind) && /^[qk]_proj$/.test(prev)) || (kind === 'up_proj' && prev === 'gate_proj');
      const b = Math.ceil(linearWeightBytes(layerModel, w, dtype) / tp);
      if (fused) chunks[chunks.length - 1] += b;
      else chunks.push(b);
      prev = kind;
    }
    const linear = chunks.reduce((a, b) => a + b, 0);
    if (perGpu > linear) chunks.push(perGpu - linear);
    let moved = 0;
    for (const c of chunks) {
      if (bytes >= max) break;
      bytes += c;
      moved += c;
    }
    if (moved >= perGpu) wholeLayers++;
    else partialBytes = moved;
  }
  return { bytes, wholeLayers, partialBytes };
}

/** Bytes of lm_head as stored: 0 when tied (or an encoder), its grouped width when a GPTQ config quantizes it, else parameters · {@link heldBytes} (fp32 for MiniMax). */
function lmHeadBytes(model: ModelSpec, dtype: Dtype, p: ParamCounts): number {
  if (p.breakdown.lmHead === 0) return 0;
  const g = model.quantization?.grouped;
  const w: LinearWeight = { name: 'lm_head', k: model.hiddenSize, n: model.vocabSize, copies: 1, expert: false };
  return g && g.lmHead && !skipTest(g)(w) ? groupedBytes(g, w) : p.breakdown.lmHead * heldBytes(model, dtype, 'lmHead');
}

/**
 * The layers one block covers on the GPUs of the stage holding layers [start, end): vLLM builds the
 * KV-cache groups from the whole model (get_kv_cache_configs: the workers' specs merged, then
 * get_kv_cache_groups; a type's layers go to its groups as layers[i::num_groups]), projects them
 * onto each worker's layers (_project_kv_cache_groups_to_worker), and a worker's block covers the
 * most layers any projected group has there (get_kv_cache_config_from_groups: group_size =
 * max(len(group.layer_names))). One group (uniform, all sliding): the stage's KV layers.
 * Llama-3.1-70B over pp 2: 40 each. 0 when the stage has no layer of any group.
 */
export function stageBlockLayers(model: ModelSpec, layout: KvPoolLayout, start: number, end: number): number {
  const kinds = kvCacheLayerTypes(model);
  const mamba = new Set(layout.kind === 'mamba' ? model.mamba?.layers ?? [] : []);
  const byKind = new Map<string, number[]>();
  model.layerTypes.forEach((t, i) => {
    const kind = layout.kind === 'mamba'
      ? (mamba.has(i) ? 'mamba' : t !== 'linear' ? 'attention' : null)
      : i < kinds.length && t !== 'linear' ? (layout.kind === 'hybrid' ? t : 'kv') : null;
    if (kind === null) return;
    const layers = byKind.get(kind);
    if (layers) layers.push(i);
    else byKind.set(kind, [i]);
  });
  let most = 0;
  for (const layers of byKind.values()) {
    const groups = Math.ceil(layers.length / layout.groupSize);
    for (let j = 0; j < groups; j++) {
      let n = 0;
      for (let x = j; x < layers.length; x += groups) if (layers[x] >= start && layers[x] < end) n++;
      most = Math.max(most, n);
    }
  }
  return most;
}

/**
 * The layers the per-GPU figures of `e` are of: under pipeline parallelism the stage
 * Estimate.pipeline names (stageModel), else the model itself. What a per-GPU figure computed
 * apart from the estimate (the KV one sequence holds at another length) is computed on.
 */
export function perGpuModel(model: ModelSpec, e: Pick<Estimate, 'pipeline'>): ModelSpec {
  const stage = e.pipeline?.stages[e.pipeline.stage];
  return stage ? stageModel(model, stage.start, stage.end) : model;
}

/** Largest pool the simulator takes: its per-page state for 2^24 pages is a few hundred MiB. */
export const MAX_SIMULATED_PAGES = 2 ** 24;

/**
 * Why the profile's own pool (kv_cache.num_pages, else the estimate's pages) cannot be
 * simulated: an encoder, no pages (the weights leave no KV budget: with the device-fit check's
 * message, weights-exceed-device or kv-pool-empty, where one fires), or more than
 * {@link MAX_SIMULATED_PAGES}; null when it can. `keys`: the profile keys to change, the first
 * one the text holds is where the problem is placed; `cause`: the code of that device-fit check
 * where it says why (its message then holds the check's whole message). `attnscope bench`'s preflight says a
 * workload's simulation is skipped for this reason before any work; simulate refuses with it
 * (runner/simulate); the language server shows it as a diagnostic on a profile with a workload and
 * offers no "Run serving simulation" lens for it (server/analysis.ts, server/lenses.ts).
 */
export function poolSizeProblem(profile: Profile): { keys: string[]; message: string; cause?: string } | null {
  const tooMany = (pages: number, keys: string[]) => ({
    keys,
    message: `the KV pool has ${formatCount(pages)} pages; the simulation takes at most ${formatCount(MAX_SIMULATED_PAGES)}: lower the KV budget or set kv_cache.num_pages`,
  });
  if (typeof profile.kvCache.numPages === 'number') {
    return profile.kvCache.numPages > MAX_SIMULATED_PAGES ? tooMany(profile.kvCache.numPages, ['kv_cache.num_pages', 'kv_cache']) : null;
  }
  if (profile.model.isEncoder) return { keys: ['model'], message: `${profile.model.modelType} is an encoder: it has no KV cache to simulate` };
  const e = estimate(profile);
  const pages = e.pool.pages;
  if (pages < 1) {
    // The device-fit check that says why (weights over the device, or no room left for a page): its
    // remedy, not a KV budget, which is no fix for a named GPU whose memory is what it is (s43 newcomer-ed L1).
    const overfull = checkProfile(profile, e).find((p) => p.code === 'weights-exceed-device' || p.code === 'kv-pool-empty');
    if (overfull) return { keys: ['device.memory_gib', 'device.gpu', 'device.gpu_memory_utilization', 'device.tensor_parallel_size', 'device.pipeline_parallel_size', 'device', 'model'], message: `the KV pool has no pages: ${overfull.message}`, cause: overfull.code };
    // An explicit KV budget below one page: that budget is the cause, whatever the device (s52 newcomer:
    // memory_gib 0.001 was told "no GPU is set ... or set kv_cache.memory_gib" while it was set).
    if (typeof profile.kvCache.memoryGib === 'number' && e.pool.budgetSource === 'explicit' && e.pageBytes > 0) {
      return {
        keys: ['kv_cache.memory_gib', 'kv_cache', 'model'],
        message:
          `kv_cache.memory_gib ${formatGrouped(profile.kvCache.memoryGib)} (${formatBytes(e.pool.budgetBytes)}) holds no page of ${formatBytes(e.pageBytes)} ` +
          `(${formatCountOf(profile.kvCache.pageSize, 'token')}): raise it to at least ${boundToWrite(e.pageBytes / 2 ** 30)}, one page`,
      };
    }
    // No GPU and no memory: the step time's default GPU does not size the pool, so a GPU is the first fix (s42 newcomer 11: not listed).
    const noDevice = profile.device.gpu === undefined && profile.device.memoryGib === null;
    // A bare config.json has none of these keys: a profile is what it needs (s47 newcomer).
    if (noDevice && isBareConfig(profile)) return { keys: ['model'], message: `the KV pool has no pages: a config.json names no GPU: ${bareConfigProfileHint(profile.sourcePath!, DEFAULT_GPU)}` };
    // No device at all: one thing to add, said plainly, at the workload it stops (s49 newcomer-ed 4: the
    // warning sat on `model:`, its aside "the step time's default H100 SXM does not" read as noise, and two
    // infos, no-memory-budget and the editor's gpu-assumed, said it again).
    if (noDevice) {
      return {
        keys: ['kv_cache.memory_gib', 'kv_cache', 'workload', 'model'],
        message: `the KV pool has no pages: no GPU is set; add device: { gpu: ${DEFAULT_GPU} } (the GPU you serve on: its memory sizes the pool), or set kv_cache.memory_gib or kv_cache.num_pages`,
      };
    }
    return {
      keys: ['kv_cache.memory_gib', 'device.memory_gib', 'device.gpu', 'kv_cache', 'device', 'model'],
      message: 'the KV pool has no pages: set kv_cache.num_pages or kv_cache.memory_gib, or device.memory_gib large enough for the weights',
    };
  }
  return pages > MAX_SIMULATED_PAGES ? tooMany(pages, ['kv_cache.memory_gib', 'device.memory_gib', 'kv_cache', 'device', 'model']) : null;
}

/**
 * What the profile cannot be served or benchmarked with, given its estimate `e`
 * (core/estimate/checks.ts checkProfile, whose remedies estimate the profile again with a
 * changed device setting through {@link estimate}).
 */
export function checkProfile(profile: Profile, e: Estimate): Problem[] {
  return checkProfileWith(profile, e, estimate);
}

/** checkProfile's problems none of whose keys overlap `invalid` (core/estimate/checks.ts checksIndependentOf). */
export function checksIndependentOf(profile: Profile, e: Estimate, invalid: readonly string[]): Problem[] {
  return checksIndependentOfWith(profile, e, invalid, estimate);
}
