/**
 * The memory estimate, as `attnscope estimate --json` prints it (DESIGN.md "Estimate JSON").
 * Bytes are integers; camelCase keys.
 */
import type { AttentionKind, Dtype, KvDtype } from '../config/types';

export interface EstimateModel {
  numLayers: number;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  hiddenSize: number;
  vocabSize: number;
  attention: AttentionKind;
  slidingWindow: number | null;
  dtype: Dtype;
}

export interface PoolEstimate {
  /** Bytes given to the KV pool (explicit memory_gib, or memory·utilization − weights − activation peak). */
  budgetBytes: number;
  /** Pages that fit: floor(budgetBytes / pageBytes) = floor(budget / (page_size · KV bytes/token/layer) / L), vLLM's GPU blocks. */
  pages: number;
  /** pages · page_size. */
  tokens: number;
  /** Sequences of the reference length (max_model_len, else max_position_embeddings) that fit at once. */
  maxConcurrency: number;
  /** The reference length maxConcurrency is computed at. */
  concurrencySeqLen: number;
  /** Activation peak subtracted from the budget (0 when memory_gib is explicit); see its source in the estimator. */
  activationPeakBytes: number;
  /** Where the budget came from: 'explicit' kv_cache.memory_gib, 'device' memory · utilization − weights − activations. */
  budgetSource: 'explicit' | 'device' | 'none';
}

export interface AttentionWorkspace {
  /** Naive S and P for one layer: 2 · B · H · N · N · bytes(dtype). */
  naiveBytes: number;
  /** Flash: O(B·H·N): running max m, running sum l and lse, fp32 each (3 · B · H · N · 4). */
  flashBytes: number;
  seqLen: number;
}

/** Where the parameters sit (counts, not bytes). Sums to paramsTotal. */
export interface ParamBreakdown {
  /** Token embedding V·h, plus learned position and token-type embeddings where the model has them. */
  embedding: number;
  /** q/k/v/o projections (MLA's low-rank ones), their biases, q/k norms and sinks, all layers. */
  attention: number;
  /** Dense MLPs (layers without routed experts). */
  mlp: number;
  /** All routed experts of all MoE layers. */
  experts: number;
  /** The routed experts one token uses (num_experts_per_tok per MoE layer). */
  expertsActive: number;
  sharedExperts: number;
  router: number;
  /** Per-layer norms and the final norm. */
  norms: number;
  /** 0 when tied to the embedding, and for encoders. */
  lmHead: number;
  /** Encoders' pooler (h² + h); 0 for decoders. */
  pooler: number;
}

export interface Estimate {
  model: EstimateModel;
  kvDtype: KvDtype;
  /** False for encoders (BERT...): they keep no KV cache, and every KV and pool figure is 0. */
  hasKvCache: boolean;
  /** All layers, K and V, per GPU under tensor parallelism; 0 for encoders. */
  kvBytesPerToken: number;
  kvBytesPerTokenPerLayer: number;
  /** Bytes one sequence of attention.seqLen tokens really needs (sliding-window layers hold at most the window). */
  kvBytesForSeqLen: number;
  paramsTotal: number;
  paramsActive: number;
  params: ParamBreakdown;
  /** All weights, every GPU together (quantized layers at their stored width). */
  weightsBytes: number;
  /** weightsBytes / tensor_parallel_size, rounded up: what one GPU holds. */
  weightsBytesPerGpu: number;
  /**
   * One page across all layers: page_size · kvBytesPerToken (Llama-2-7B fp16, 16 tokens: 8 MiB).
   * vLLM allocates a block id once for every layer, so this is what one block id costs.
   */
  pageBytes: number;
  /** One layer's page: page_size · kvBytesPerTokenPerLayer. */
  pageBytesPerLayer: number;
  pool: PoolEstimate;
  attention: AttentionWorkspace;
  /** Facts a reader should know about these numbers (assumed dtype, encoder, sliding window, no budget). */
  notes: string[];
}
