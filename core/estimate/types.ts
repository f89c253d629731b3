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
  /** Flash: O(B·H·N) fp32 output rows, m, l, lse. */
  flashBytes: number;
  seqLen: number;
}

export interface Estimate {
  model: EstimateModel;
  kvDtype: KvDtype;
  /** All layers, K and V, per GPU under tensor parallelism; 0 for encoders. */
  kvBytesPerToken: number;
  kvBytesPerTokenPerLayer: number;
  paramsTotal: number;
  paramsActive: number;
  weightsBytes: number;
  /**
   * One page across all layers: page_size · kvBytesPerToken (Llama-2-7B fp16, 16 tokens: 8 MiB).
   * vLLM allocates a block id once for every layer, so this is what one block id costs.
   */
  pageBytes: number;
  /** One layer's page: page_size · kvBytesPerTokenPerLayer. */
  pageBytesPerLayer: number;
  pool: PoolEstimate;
  attention: AttentionWorkspace;
}
