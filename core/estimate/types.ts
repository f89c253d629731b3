/**
 * The memory estimate, as `attnscope estimate --json` prints it (DESIGN.md "Estimate JSON").
 * Bytes are integers; camelCase keys.
 */
import type { AttentionKind, Dtype, KvDtype, MambaCacheMode } from '../config/types';
import type { ReserveTerm } from './reserve';

export interface EstimateModel {
  /** Layers, a count. */
  numLayers: number;
  /** Attention (query) heads, a count. */
  numHeads: number;
  /** KV heads, a count. */
  numKvHeads: number;
  /** Head dimension, elements. */
  headDim: number;
  /** Hidden size, elements. */
  hiddenSize: number;
  /** Vocabulary size, tokens. */
  vocabSize: number;
  /** Attention kind: 'mha', 'gqa', 'mqa' (from the head counts) or 'mla'. */
  attention: AttentionKind;
  /** sliding_window in tokens, or null (none, or Llama 4's chunked attention: attentionChunkSize). */
  slidingWindow: number | null;
  /**
   * Llama 4's chunked local attention: attention_chunk_size in tokens (a query attends only the
   * keys of its own chunk); null without it. Absent in runs saved before it was told apart from slidingWindow.
   */
  attentionChunkSize?: number | null;
  /** The weights' dtype. */
  dtype: Dtype;
}

/**
 * How vLLM lays out the KV pool of a model, per GPU.
 * - 'uniform': one KV-cache group of every attention layer; one block id covers all of them
 *   (block = page_size · kvBytesPerToken) and a sequence of N tokens takes ceil(N / page_size) blocks.
 * - 'hybrid' (vLLM >= 0.9 and a model with full and sliding-window layers, or Llama 4's full and
 *   chunked local-attention layers with the hybrid manager on): layers are split into
 *   groups of `groupSize` layers of one type (vllm/v1/core/kv_cache_utils.py
 *   _get_kv_cache_groups_uniform_page_size: the smaller layer count, or the larger where it is
 *   under 1.5 times the smaller, padding the last group of a type); a block is one group's page,
 *   groupSize · page_size · kvBytesPerTokenPerLayer (get_kv_cache_config_from_groups ->
 *   get_num_blocks: available // page_size // group_size), and a request takes blocks in every
 *   group.
 * - 'sliding' (vLLM >= 0.9.1 and a model whose every layer slides): one KV-cache group of
 *   SlidingWindowSpec layers; a block covers every layer as in 'uniform', but a request reserves
 *   only its window's blocks (blocksPerRequest), and the manager frees the pages outside it.
 * - 'mamba' (vLLM >= 0.10.0 and a hybrid Mamba / attention model, ModelSpec.mamba): the Mamba
 *   layers' state comes from the same pool. The attention block_size is raised until one
 *   attention page (per layer) holds one Mamba layer's state, which is padded to it
 *   (HybridAttentionMambaModelConfig); attention and Mamba layers are split into groups of
 *   `groupSize` as for 'hybrid'; a request holds ceil(N / block_size) blocks in each attention
 *   group and `stateBlocks` blocks in each Mamba group, whatever its length (MambaSpec).
 */
export interface KvPoolLayout {
  /** The pool's layout: 'uniform' (every layer full attention, one page size), 'sliding' (some layers windowed), 'hybrid' (full and windowed or linear layers in KV-cache groups), 'mamba' (attention beside Mamba layers, whose state takes whole blocks). */
  kind: 'uniform' | 'hybrid' | 'sliding' | 'mamba';
  /**
   * Tokens one block holds (vLLM's cache_config.block_size): kv_cache.page_size, or for a 'mamba'
   * layout vLLM's raised attention block size when page_size is smaller.
   */
  pageSize: number;
  /** Layers one block covers. */
  groupSize: number;
  /** KV-cache groups of full-attention layers (uniform: 1, holding every layer; sliding: 0). */
  fullGroups: number;
  /** KV-cache groups of sliding-window layers (uniform: 0; sliding: 1, holding every layer). */
  slidingGroups: number;
  /**
   * KV-cache groups of chunked local-attention layers (Llama 4's ChunkedLocalAttentionSpec, hybrid
   * only): each holds a request's blocks from the start of its current chunk of `chunk` tokens on.
   * Absent (runs saved before) = 0.
   */
  chunkedGroups?: number;
  /** attention_chunk_size of the chunked groups, tokens; absent or 0 without them. */
  chunk?: number;
  /** The sliding window, tokens (hybrid with sliding-window groups, sliding); 0 otherwise. */
  window: number;
  /** max_num_batched_tokens the sliding and chunked groups' reservation is computed with (hybrid, sliding); 0 for uniform. */
  maxNumBatchedTokens: number;
  /** KV-cache groups of Mamba layers ('mamba'; 0 otherwise). */
  mambaGroups: number;
  /**
   * Blocks one request holds in each Mamba group, whatever its length ('mamba'; 0 otherwise):
   * MambaSpec.max_memory_usage_bytes / page, 1 with mamba_cache_mode "none", 2 with "align"; with
   * "all" the one state a running request keeps (its reservation is ceil(N / pageSize) a group:
   * layout.ts blocksPerRequest).
   */
  stateBlocks: number;
  /** vLLM's mamba_cache_mode the 'mamba' layout follows (absent: runs saved before, and other kinds; read as stateBlocks says). */
  mambaCacheMode?: MambaCacheMode;
  /** One Mamba layer's state per sequence, bytes, before vLLM pads it to an attention page ('mamba'; 0 otherwise). */
  mambaPageBytes: number;
  /** Bytes of one block (vLLM's block id): groupSize · pageSize · kvBytesPerTokenPerLayer. */
  blockBytes: number;
  /** Why this layout, in a few words, naming the vLLM release rule. */
  basis: string;
}

export interface PoolEstimate {
  /** Bytes given to the KV pool (explicit memory_gib or num_pages, or device memory · utilization − every subtracted reserve term). */
  budgetBytes: number;
  /**
   * Pages (blocks) that fit: floor(budgetBytes / pageBytes), vLLM's GPU blocks. Uniform layout:
   * floor(budget / (page_size · KV bytes/token/layer) / L); hybrid: the same with L = group size.
   */
  pages: number;
  /** vLLM "GPU KV cache size: N tokens": pages · page_size, or for a hybrid layout floor(pages / groups) · page_size. */
  tokens: number;
  /** How vLLM lays the pool out for this model and vLLM release (one group, or one per layer type). */
  layout: KvPoolLayout;
  /** Blocks one concurrencySeqLen-token request can take (blocksPerRequest): ceil(N / page_size) in a uniform pool. */
  blocksPerSeq: number;
  /**
   * KV bytes vLLM's start-up check needs for one concurrencySeqLen-token request (blocksPerSeq ·
   * pageBytes; vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory, Σ max_memory_usage_bytes).
   */
  seqNeededBytes: number;
  /**
   * vLLM's "Maximum concurrency for N tokens per request: 1.56x": pages / blocksPerSeq (uniform:
   * pages / ceil(N / page_size)), unrounded (vllm/v1/core/kv_cache_utils.py
   * get_max_concurrency_for_kv_cache_config); print it with formatConcurrency. 0 without a budget.
   */
  maxConcurrency: number;
  /** Whole sequences of concurrencySeqLen tokens that fit at once: floor(maxConcurrency). */
  sequencesAtOnce: number;
  /** The reference length maxConcurrency is computed at (max_model_len, else max_position_embeddings). */
  concurrencySeqLen: number;
  /** Activation peak subtracted from the budget (0 unless the budget is device-derived). */
  activationPeakBytes: number;
  /** Engine reserves subtracted besides weights and activations (model buffers, non-torch, NCCL, CUDA graphs when counted); 0 unless device-derived. */
  engineReserveBytes: number;
  /** Where the budget came from: 'explicit' kv_cache.memory_gib / num_pages, 'device' memory · utilization − reserve terms. */
  budgetSource: 'explicit' | 'device' | 'none';
  /** Device memory per GPU the budget starts from (device.memory_gib, else device.gpu's CUDA total); 0 when unknown. */
  deviceMemoryBytes: number;
  /** floor(deviceMemoryBytes · gpu_memory_utilization): vLLM's "the current vLLM instance can use". */
  usableBytes: number;
  /** The gpu_memory_utilization usableBytes was computed with. */
  gpuMemoryUtilization: number;
  /** Where deviceMemoryBytes comes from ("device.memory_gib", "device.gpu A100 80GB, 79.15 GiB as CUDA reports it"); '' when unknown. */
  deviceSource: string;
  /** Every term a device-derived budget subtracts or could (CUDA graphs), with its source; [] otherwise. */
  reserve: ReserveTerm[];
}

/** Attention workspace of one layer on one GPU (H: the heads that GPU computes, headsPerGpu). */
export interface AttentionWorkspace {
  /** Naive S and P for one layer: 2 · B · H · N · N · bytes(dtype). */
  naiveBytes: number;
  /** Flash: O(B·H·N): running max m, running sum l and lse, fp32 each (3 · B · H · N · 4). */
  flashBytes: number;
  /** Sequence length the workspace is computed for, tokens. */
  seqLen: number;
}

/** Where the parameters sit (counts, not bytes). Sums to paramsTotal. */
export interface ParamBreakdown {
  /** Token embedding V·h, plus learned position and token-type embeddings where the model has them. */
  embedding: number;
  /** q/k/v/o projections (MLA's low-rank ones), their biases, q/k norms and sinks, all layers. */
  attention: number;
  /** Mamba mixers of a hybrid model's Mamba layers (mambaLayerParams); 0 otherwise (absent in runs saved before they were counted). */
  mamba?: number;
  /** Dense MLPs (layers without routed experts). */
  mlp: number;
  /** All routed experts of all MoE layers. */
  experts: number;
  /** The routed experts one token uses (num_experts_per_tok per MoE layer). */
  expertsActive: number;
  /** Shared experts of all MoE layers (always active), parameters. */
  sharedExperts: number;
  /** Routers [h, E] (and their bias), and Qwen2-MoE's shared-expert gates [h, 1]. */
  router: number;
  /** Per-layer norms and the final norm. */
  norms: number;
  /** 0 when tied to the embedding, and for encoders. */
  lmHead: number;
  /** Encoders' pooler (h² + h); 0 for decoders. */
  pooler: number;
  /** A multimodal config's vision encoder and its projector into the text model, where counted (ModelSpec.vision); else 0 (absent in runs saved before it was counted). */
  vision?: number;
  /** Gemma 3n's AltUp, LAuReL and per-layer-input projections (gemma3nParams; its per-layer embedding table is in embedding); absent for other models. */
  gemma3n?: number;
}

/**
 * What tensor parallelism does not split (core/estimate replicatedWeights), in bytes one GPU holds:
 * the tensors whole on every GPU, and the k/v projections of KV heads that several GPUs share.
 */
export interface TpReplication {
  /** The tensors every GPU holds whole: norms, MoE routers, MLA's q_a_proj / kv_a_proj_with_mqa, a tower's unsplit parts; the k/v projections when H_kv is 1. */
  wholeBytes: number;
  /** tensor_parallel_size above H_kv > 1: the k_proj / v_proj weights (and biases) of all H_kv heads; each GPU holds one head's, bytes ÷ heads. */
  kvHeads?: {
    /** The k_proj / v_proj weights and biases of all KV heads, bytes. */
    bytes: number;
    /** KV heads (H_kv), a count. */
    heads: number;
  };
  /**
   * What the replicated bytes are in vLLM, in words, one entry a part ("norms on every GPU", "MoE
   * routers on every GPU (ReplicatedLinear gate)", "k_proj / v_proj of each of the 8 KV heads on 2
   * GPUs (QKVParallelLinear num_kv_head_replicas)"): the estimate's note and the editor's Weights row
   * name them from here. Absent in runs saved before session 51.
   */
  parts?: string[];
}

/** One pipeline stage's per-GPU figures (Estimate.pipeline). */
export interface StageEstimate {
  /** Its layers: [start, end), 0-based (vLLM get_pp_indices). */
  start: number;
  /** One past the stage's last layer (exclusive), 0-based. */
  end: number;
  /** The stage's weights, its tensor-parallel GPUs together. */
  weightsBytes: number;
  /** One GPU of the stage: weightsBytes / tensor_parallel_size plus what tensor parallelism replicates and MLA's 16-bit kv_b_proj copies (mlaDecodeCopies), less cpuOffloadBytesPerGpu. */
  weightsBytesPerGpu: number;
  /** Of weightsBytesPerGpu: the stage's 16-bit MLA kv_b_proj copies (mlaDecodeCopies); absent in runs saved before session 39. */
  kvBProjCopiesBytesPerGpu?: number;
  /** Of weightsBytesPerGpu: what tensor parallelism does not split on the stage (replicatedWeights); absent at tensor_parallel_size 1 and in runs saved before session 49. */
  replicated?: TpReplication;
  /** Of the stage's weights per GPU, what device.cpu_offload_gb keeps in CPU memory (core/estimate cpuOffload): weightsBytesPerGpu is what stays on the GPU. Absent without offloading. */
  cpuOffloadBytesPerGpu?: number;
  /** KV bytes per token of the stage's layers, per GPU. */
  kvBytesPerToken: number;
  /** One block on one GPU of the stage (the layers its KV-cache groups cover there · page_size · KV per token per layer). */
  pageBytes: number;
  /** KV budget per GPU of the stage, bytes. */
  budgetBytes: number;
  /** Blocks the stage's budget fits before vLLM takes the smallest over the stages. */
  pages: number;
  /** What it holds beyond its layers, in words ("the embedding", "the final norm and lm_head"). */
  holds: string[];
}

/** Estimate.pipeline. */
export interface PipelineEstimate {
  /** pipeline_parallel_size. */
  size: number;
  /** 0-based index of the stage the per-GPU figures are of: the fewest blocks (ties: the most weights per GPU). */
  stage: number;
  /** Every pipeline stage's figures, in order: its layers, weights and KV bytes per GPU, blocks (StageEstimate). */
  stages: StageEstimate[];
}

export interface Estimate {
  /** The model as the estimate reads it: its dtype, attention kind, head counts and sizes (EstimateModel). */
  model: EstimateModel;
  /** The KV cache dtype the estimate sizes the cache in. */
  kvDtype: KvDtype;
  /** False for encoders (BERT...): they keep no KV cache, and every KV and pool figure is 0. */
  hasKvCache: boolean;
  /** All layers, K and V, per GPU under tensor parallelism; 0 for encoders. */
  kvBytesPerToken: number;
  /** KV bytes per token of one attention layer, K and V, per GPU. */
  kvBytesPerTokenPerLayer: number;
  /** Bytes one sequence of attention.seqLen tokens really needs (sliding-window layers hold at most the window). */
  kvBytesForSeqLen: number;
  /**
   * Mamba state (conv + SSM) one sequence holds whatever its length, all Mamba layers, per GPU
   * (mambaStateBytesPerSequence); 0 without Mamba layers. The pool holds it in state blocks
   * padded to an attention page (pool.layout 'mamba').
   * Absent in runs saved before it was counted.
   */
  mambaStateBytesPerSeq?: number;
  /** All parameters, a count. */
  paramsTotal: number;
  /** Active parameters per token (MoE): without the routed experts a token skips and without the input-embedding lookup, for every family (paramCounts); dense: paramsTotal. */
  paramsActive: number;
  /**
   * Active parameters per token with the input embedding: paramsTotal − the routed experts + those a
   * token uses (params.experts, params.expertsActive): the figure model cards publish (Qwen3-30B-A3B's
   * "3.3B activated", Mixtral's 12.9B, DeepSeek-V3's 37B); paramsTotal for a dense model. The text's
   * "(… with it)". Absent in runs saved before s50 (s50 newcomer LOW-4).
   */
  paramsActiveWithEmbedding?: number;
  /** Weights one token is multiplied by (no embedding lookups; tied lm_head counted): 2 · this = FLOPs per token outside attention. */
  paramsActiveCompute: number;
  /** The parameter count by part: embeddings, attention, MLP or experts, norms, lm_head (ParamBreakdown). */
  params: ParamBreakdown;
  /** All weights, every GPU together (quantized layers at their stored width). */
  weightsBytes: number;
  /** What one GPU holds: weightsBytes / tensor_parallel_size, rounded up, plus the tensors vLLM replicates on every GPU (replicatedWeights: norms, routers, MLA a-projections, KV heads past H_kv, a vision tower's unsplit parts), less cpuOffloadBytesPerGpu. */
  weightsBytesPerGpu: number;
  /**
   * device.cpu_offload_gb (vLLM --cpu-offload-gb): the weights one GPU keeps in pinned CPU memory
   * instead (core/estimate cpuOffload: decoder layers' parameters from the first, until the budget
   * is reached), taken out of weightsBytesPerGpu and so added to the KV budget; every forward pass
   * reads them over the host link (runner/simulate step time). Under pipeline parallelism, the
   * reported stage's. Absent without offloading.
   */
  cpuOffloadBytesPerGpu?: number;
  /**
   * Present when the heaviest GPU's weights (the heaviest pipeline stage's) exceed the device's
   * usable memory (pool.usableBytes): the smallest tensor_parallel_size above the profile's that
   * vLLM takes for the model (checks.ts tensorParallelSizes) at which they fit, pipeline_parallel_size
   * kept, and the smallest pipeline_parallel_size above the profile's, up to num_hidden_layers and
   * PP_FIT_SEARCH_MAX (64), at which they fit, tensor_parallel_size kept; `pair`, when neither
   * alone fits on one 8-GPU node, the tp × pp pair (tp within a node, both raised) on the fewest
   * GPUs, then the smallest pp (checks.ts parallelFit); each absent when none fits. Absent in runs
   * saved before session 39 (`pair` before session 40).
   */
  weightsFit?: {
    /** Smallest tensor_parallel_size at which the weights fit, a count of GPUs. */
    tensorParallelSize?: number;
    /** Smallest pipeline_parallel_size at which the weights fit, a count of stages. */
    pipelineParallelSize?: number;
    /** The smallest tensor_parallel_size × pipeline_parallel_size pair at which the weights fit, where neither alone up to the GPUs given does; absent otherwise. */
    pair?: {
      /** The pair's tensor_parallel_size, a count of GPUs. */
      tensorParallelSize: number;
      /** The pair's pipeline_parallel_size, a count of stages. */
      pipelineParallelSize: number;
    };
  };
  /**
   * Of weightsBytesPerGpu: the 16-bit copies of a quantized MLA kv_b_proj's halves W_UK_T and W_UV
   * vLLM keeps for the decode's bmm's (mlaDecodeCopies; DeepSeek-V3 fp8 at tp 8: 255,852,544 B); 0
   * otherwise (and absent from a run saved before it). Under pipeline parallelism, the reported stage's.
   */
  kvBProjCopiesBytesPerGpu?: number;
  /**
   * Of weightsBytesPerGpu: what tensor parallelism does not split (replicatedWeights: the bytes every
   * GPU holds whole, and KV heads' k/v projections several GPUs share; Llama-3.1-8B bf16 at tp 2:
   * wholeBytes 532,480, its 65 norms of 4,096). Absent at tensor_parallel_size 1 and from runs saved
   * before session 49. Under pipeline parallelism, the reported stage's.
   */
  replicated?: TpReplication;
  /**
   * What one block id costs: one page across all layers, page_size · kvBytesPerToken (Llama-2-7B
   * fp16, 16 tokens: 8 MiB), or for a hybrid layout (pool.layout) one page across one KV-cache
   * group's layers, page_size · group size · kvBytesPerTokenPerLayer.
   */
  pageBytes: number;
  /** One layer's page: page_size · kvBytesPerTokenPerLayer. */
  pageBytesPerLayer: number;
  /** The KV page pool vLLM would allocate: budget, blocks, tokens, layout (PoolEstimate). */
  pool: PoolEstimate;
  /**
   * Pipeline parallelism (device.pipeline_parallel_size > 1; absent otherwise): every stage's
   * figures. The per-GPU fields above (weightsBytesPerGpu, kvBytesPerToken, pageBytes,
   * kvBytesForSeqLen, pool.budgetBytes, pool.layout's groupSize and blockBytes, the reserve terms)
   * are those of stage `stage`, the one whose GPUs fit the fewest blocks: vLLM gives every stage
   * that block count (get_kv_cache_configs). weightsBytes stays the whole model's.
   */
  pipeline?: PipelineEstimate;
  /** Attention's workspace for one layer on one GPU: naive attention's S and P against FlashAttention's running statistics, bytes, at a sequence length (AttentionWorkspace). */
  attention: AttentionWorkspace;
  /** Facts a reader should know about these numbers (assumed dtype, encoder, sliding window, no budget). */
  notes: string[];
}
