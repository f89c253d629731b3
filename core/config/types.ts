/**
 * Types read from the files users write: HuggingFace config.json (-> ModelSpec) and
 * *.attn.yaml / *.attn.json profiles (-> Profile). Every value keeps where it came from, so
 * the language server can put a diagnostic, hint or quick fix at the right range.
 * Problems are values, never exceptions.
 */

import type { GpuSpec } from '../estimate/gpus';

/** A span of the source text, in UTF-16 code-unit offsets (what VS Code and LSP count). */
export interface SourceRange {
  /** Offset of the first character. */
  offset: number;
  /** Number of characters; 0 for a point (e.g. an empty file). */
  length: number;
}

export type Severity = 'error' | 'warning' | 'info';

/**
 * A problem found in a file. `code` is stable (quick fixes and tests key on it), `message`
 * says what is wrong and what to do. `file` is set when the problem lies in another file than
 * the one being read (e.g. the config.json a profile points at).
 */
export interface Problem {
  severity: Severity;
  code: string;
  message: string;
  range: SourceRange;
  file?: string;
  /** Extra facts for quick fixes (e.g. { suggestion: 16 } or { key: 'head_dim' }). */
  data?: Record<string, unknown>;
}

/** Element dtypes of Q/K/V/O and of the KV cache. */
export type Dtype = 'fp32' | 'fp16' | 'bf16';
export type KvDtype = Dtype | FP8KvDtype;

/** The 1-byte KV-cache dtypes vLLM's --kv-cache-dtype takes by name (vllm/config/cache.py CacheDType; its alias fp8 reads as fp8_e4m3). */
export type FP8KvDtype = 'fp8_e4m3' | 'fp8_e5m2';

/** True for an fp8 KV-cache dtype (1 byte per element; estimate-only here: no kernel has one). */
export function isFp8KvDtype(d: KvDtype | 'auto'): d is FP8KvDtype {
  return d === 'fp8_e4m3' || d === 'fp8_e5m2';
}

export type AttentionKind = 'mha' | 'gqa' | 'mqa' | 'mla';

/** Multi-head latent attention (DeepSeek-V2/V3): the KV cache holds a compressed latent. */
export interface MlaSpec {
  /** Rank of the compressed KV latent (kv_lora_rank), a count of elements. */
  kvLoraRank: number;
  /** Rank of the compressed query (q_lora_rank), a count of elements; null when queries are not compressed. */
  qLoraRank: number | null;
  /** Rotary part of each query/key head (qk_rope_head_dim), elements. */
  qkRopeHeadDim: number;
  /** Non-rotary part of each query/key head (qk_nope_head_dim), elements. */
  qkNopeHeadDim: number;
  /** Value head dimension (v_head_dim), elements. */
  vHeadDim: number;
}

/**
 * The Mamba mixer of a hybrid Mamba / attention model (Jamba, Bamba, Nemotron-H, GraniteMoeHybrid,
 * Falcon-H1, Zamba2), or the linear attention of Qwen3-Next / Qwen3.5 (Gated DeltaNet) and
 * MiniMax-Text-01 / MiniMax-M1 (lightning attention), or LFM2's short convolutions: vLLM builds those as MambaBase layers too,
 * their state in a MambaSpec. The sizes vLLM's mixers are built from (core/config/mamba.ts).
 * - 'mamba1' (vLLM MambaMixer, Jamba): in_proj [h, 2·I], conv1d [I, K], x_proj [I, R + 2N],
 *   dt_proj [R, I] + bias, A [I, N], D [I], out_proj [I, h], RMSNorms on Δ, B, C (R + 2N).
 * - 'mamba2' (vLLM MambaMixer2): in_proj [h, 2·I + 2·G·N + nh], conv1d [I + 2·G·N, K], A, D,
 *   dt_bias [nh] each, gated RMSNorm [I], out_proj [I, h].
 * - 'gdn' (vLLM Qwen3NextGatedDeltaNet / QwenGatedDeltaNetAttention): in_proj_qkvz [h, 2·G·N + 2·I],
 *   in_proj_ba [h, 2·nh], conv1d [I + 2·G·N, K] (no bias), dt_bias and A_log [nh] each, gated
 *   RMSNorm [head_dim], out_proj [I, h]. Read from linear_num_value_heads (nh),
 *   linear_value_head_dim (head_dim), I = nh · head_dim, linear_num_key_heads (G: the key heads
 *   play Mamba-2's B/C groups), linear_key_head_dim (N), linear_conv_kernel_dim (K).
 * - 'lightning' (vLLM MiniMaxText01LinearAttention, MiniMax-Text-01 / MiniMax-M1): qkv_proj [h, 3·I],
 *   output_gate [h, I], out_proj [I, h], no biases, RMSNorm [I]; I = nh · head_dim
 *   (num_attention_heads, head_dim); one state (nh, head_dim, head_dim), no conv.
 * - 'shortconv' (vLLM ShortConv, LFM2): in_proj [I, 3·I], conv1d [I, K], out_proj [I, I], biases
 *   (3·I, I, I) with conv_bias; I = conv_dim (the hidden size), K = conv_L_cache; one conv state.
 * I = intermediateSize, N = stateSize, K = convKernel, R = dtRank, G = nGroups, nh = numHeads.
 */
export interface MambaSpec {
  /** The recurrent mixer family. */
  kind: 'mamba1' | 'mamba2' | 'gdn' | 'lightning' | 'shortconv';
  /** 0-based layers with a Mamba mixer. */
  layers: number[];
  /** The mixer's inner width I (mamba_expand · hidden_size, or mamba heads · head dim). */
  intermediateSize: number;
  /** SSM state size N (mamba_d_state / ssm_state_size). */
  stateSize: number;
  /** Causal conv1d width K (mamba_d_conv / conv_kernel): the conv state keeps K − 1 inputs. */
  convKernel: number;
  /** Mamba-1's Δ rank R (mamba_dt_rank); 0 for Mamba-2. */
  dtRank: number;
  /** Mamba-2's heads, head dim and B/C groups (Gated DeltaNet: value heads, value head dim, key heads); 0 for Mamba-1. */
  numHeads: number;
  /** Head dimension of the mixer (mamba_head_dim or the family's key), elements. */
  headDim: number;
  /** Groups of the B and C projections (n_groups), a count. */
  nGroups: number;
  /** A bias on the causal conv1d (use_conv_bias / conv_bias): its I parameters a layer more (shortconv: biases on in_proj, conv and out_proj). */
  convBias: boolean;
  /** Biases on in_proj and out_proj. */
  projBias: boolean;
  /** The mixer's RMSNorms (Mamba-1: on Δ, B, C; Mamba-2: the gated norm of width I; Gated DeltaNet: of width head_dim, shared by the heads). */
  mixerNorm: boolean;
  /**
   * The SSM (temporal) state dtype vLLM picks when --mamba-ssm-cache-dtype is auto: Nemotron-H's
   * config value or float32 (vLLM NemotronHForCausalLMConfig), Qwen3.5's text config
   * `mamba_ssm_dtype` (Qwen3_5ForConditionalGenerationConfig); null: the model dtype, as the conv state.
   */
  ssmStateDtype: Dtype | null;
  /**
   * Mamba-2's SSD chunk size (mamba_chunk_size, or Nemotron-H's and Zamba2's chunk_size; vLLM
   * ModelConfig.get_mamba_chunk_size), tokens; absent when the config has none (Mamba-1, Gated
   * DeltaNet). vLLM aligns the block to it under mamba_cache_mode "all".
   */
  chunkSize?: number;
}

/**
 * Gemma 3n's text-model sizes beyond a Gemma decoder's (core/config/gemma3n.ts), as vLLM's
 * gemma3n.py builds them, with h = hidden_size, L = num_hidden_layers:
 * embed_tokens_per_layer [Vp, L·p], per_layer_model_projection [h, L·p] and its RMSNorm p,
 * altup_projections and altup_unembed_projections (n − 1) · [h, h]; per layer AltUp
 * (correction_coefs [n, n], prediction_coefs [n, n²], modality_router [h, n], router_norm h,
 * correct_output_scale h), LAuReL (linear_left [h, r], linear_right [r, h], post_laurel_norm h),
 * per_layer_input_gate [h, p] and per_layer_projection [p, h].
 */
export interface Gemma3nSpec {
  /** hidden_size_per_layer_input p: one layer's slice of the per-layer embedding. */
  hiddenSizePerLayerInput: number;
  /** vocab_size_per_layer_input Vp: rows of the per-layer embedding table. */
  vocabSizePerLayerInput: number;
  /** altup_num_inputs n: AltUp's parallel copies of the hidden state. */
  altupNumInputs: number;
  /** laurel_rank r. */
  laurelRank: number;
}

/** Mixture of experts, as the config states it. */
/** The vision tower of a multimodal config (core/config/vision.ts). */
export interface VisionTower {
  /** vision_config.model_type ("siglip_vision_model", "clip_vision_model", ...). */
  modelType: string;
  /** Parameters of the vision encoder; null when this tower is not counted. */
  params: number | null;
  /** Parameters of the projector into the text model; null when not counted. */
  projectorParams: number | null;
  /** What is counted and what is not, in one sentence (hover, CLI, estimate notes). */
  note: string;
  /**
   * What of params + projectorParams vLLM builds whole on every tensor-parallel GPU, as the
   * family's vLLM model file places it (core/config/vision.ts); absent where that placement is not
   * modelled (then the tower splits like the text model's linear layers).
   */
  replicated?: TowerReplication;
}

/** The part of a vision / audio tower that tensor parallelism does not split in vLLM (core/estimate replicatedWeights). */
export interface TowerReplication {
  /** Parameters each GPU holds whole: patch and position embeddings, norms, row-parallel biases, nn.Linear / ReplicatedLinear layers, or a whole tower built outside vLLM's parallel layers. */
  params: number;
  /**
   * Attention weights built whole instead of split when the tower's `heads` do not divide by
   * tensor_parallel_size (intern_vit.py InternSdpaAttention, nn.Linear qkv and proj); absent for
   * towers whose attention vLLM always splits (it asserts divisibility there).
   */
  unsplitAttention?: {
    /** The tower's attention heads, a count. */
    heads: number;
    /** Parameters of the attention weights built whole, a count. */
    params: number;
  };
  /** What they are, with the vLLM file that builds them, for the estimate's note. */
  what: string;
}

export interface MoeSpec {
  /** Routed experts per MoE layer (num_local_experts | num_experts | n_routed_experts). */
  numExperts: number;
  /** Experts each token is routed to (num_experts_per_tok). */
  numExpertsPerTok: number;
  /** Intermediate size of one routed expert (moe_intermediate_size, else intermediate_size). */
  expertIntermediateSize: number;
  /** Always-active shared experts (n_shared_experts / shared_expert_intermediate_size). */
  numSharedExperts: number;
  /** Intermediate size of the shared experts together, elements; 0 without shared experts. */
  sharedExpertIntermediateSize: number;
  /** Leading layers that are dense, not MoE (first_k_dense_replace). */
  firstDenseLayers: number;
  /** Every n-th layer is MoE (decoder_sparse_step / moe_layer_freq, Jamba's expert_layer_period); 1 = all. */
  layerFrequency: number;
  /**
   * Which layer of each layerFrequency stride is MoE: layer i when i % layerFrequency == layerOffset
   * (Jamba's expert_layer_offset); absent: layerFrequency − 1 ((i + 1) % freq == 0, Qwen-MoE's rule).
   */
  layerOffset?: number;
  /** Layers that stay dense whatever the frequency says (Qwen-MoE mlp_only_layers), 0-based. */
  mlpOnlyLayers: number[];
  /** The router has a bias (gpt-oss) or a per-expert score correction bias (DeepSeek-V3 noaux_tc). */
  routerBias: boolean;
  /**
   * A sigmoid gate [h, 1] on the shared expert's output (Qwen2-MoE, Qwen3-Next: vLLM qwen2_moe.py
   * shared_expert_gate, a ReplicatedLinear(hidden_size, 1) without quantization): h parameters per MoE layer.
   * Absent in runs saved before it was counted.
   */
  sharedExpertGate?: boolean;
}

/** How the published weights are quantized (quantization_config), as far as weight bytes go. */
export interface QuantizationSpec {
  /** quant_method as written: "fp8", "mxfp4", "awq", "gptq", ... */
  method: string;
  /**
   * Bits per weight element of the quantized linear layers, scales included (mxfp4: 4.25, fp8: 8).
   * Grouped formats: a full group's width, bits + (16-bit scale + zero bits) / group_size (AWQ
   * 4-bit, 128: 4.15625; per channel: bits); their bytes are counted tensor by tensor from `grouped`.
   */
  bitsPerWeight: number;
  /** Which linear weights are quantized: 'all' linear layers, or only the routed 'experts'. */
  scope: 'all' | 'experts';
  /**
   * W8A8 schemes: the type the quantized layers' activations are quantized to as well, so that
   * vLLM runs their GEMMs on fp8 or int8 tensor cores (fp8 and fbgemm_fp8: Fp8LinearMethod /
   * FBGEMMFp8LinearMethod quantize activations per token or per 128-group; ModelOpt FP8 and
   * FP8_PER_CHANNEL_PER_TOKEN; compressed-tensors with 8-bit float / int input_activations:
   * CompressedTensorsW8A8Fp8 / W8A8Int8). Absent for weight-only formats (AWQ, GPTQ, bitsandbytes,
   * mxfp4, NVFP4 on these GPUs, compressed-tensors W4A16 / W8A16), whose GEMMs run in the
   * activation dtype.
   */
  activations?: 'fp8' | 'int8';
  /**
   * fp8 block-wise scales (quantization_config.weight_block_size, DeepSeek-V3's [128, 128]): the
   * [block_n, block_k] block of outputs × inputs one scale covers. Absent: per-tensor or per-channel
   * scales (and in runs saved before it was read).
   */
  weightBlockSize?: [number, number];
  /** Integer weights stored in groups (AWQ, GPTQ, compressed-tensors int): the stored tensors' layout. Absent for the flat formats. */
  grouped?: GroupedQuantization;
  /**
   * A flat format's skip list: the linear layers it leaves in the model's dtype (fp8 ignored_layers /
   * modules_to_not_convert, fbgemm_fp8 modules_to_not_convert, ModelOpt FP8 exclude_modules,
   * compressed-tensors ignore). Absent: every layer of the scope is quantized.
   */
  skip?: LayerSkips;
}

/**
 * Which linear layers a quantization config leaves unquantized, by the names a Llama-style
 * checkpoint gives them (model.layers.0.self_attn.q_proj): a layer is skipped when one of
 * `notConverted` is a substring of its name, one of `notConvertedPatterns` matches it (Python
 * re.match: anchored at the start), or, for a routed expert's weight, one of `fusedMoe` contains
 * its FusedMoE module's name (model.layers.3.mlp.experts: vLLM's is_layer_skipped keeps a layer's
 * experts together, unquantized when any listed expert name contains that prefix).
 */
export interface LayerSkips {
  /** Substrings: a layer whose name contains one stays unquantized (AWQ modules_to_not_convert and the like). */
  notConverted: string[];
  /** Regexes (Python re.match: anchored at the start) of layers that stay unquantized (GPTQ dynamic "-:" keys, compressed-tensors ignore). */
  notConvertedPatterns: string[];
  /** Expert names: a routed expert's FusedMoE module (model.layers.3.mlp.experts) stays unquantized when one contains its prefix; absent: none. */
  fusedMoe?: string[];
}

/**
 * How AWQ / GPTQ / compressed-tensors store one quantized linear layer of K inputs and N outputs
 * (vLLM awq.py / gptq.py create_weights): the weight K·N·bits/8 bytes (int32-packed), per group
 * of `groupSize` inputs and per output a 16-bit scale and, with zero points, a `bits`-wide zero
 * (int32-packed qzeros), and GPTQ's g_idx, one int32 per input.
 */
export interface GroupedQuantization {
  /** Bits per quantized weight (e.g. 4, 8). */
  bits: number;
  /** Inputs sharing one scale; null: one group over the whole input (GPTQ group_size -1, compressed-tensors strategy "channel"). */
  groupSize: number | null;
  /** Zero points stored (AWQ and GPTQ qzeros always; compressed-tensors only when not symmetric). */
  zeroPoints: boolean;
  /** GPTQ's g_idx (one int32 per input element of each quantized layer). */
  groupIndex: boolean;
  /** AWQ modules_to_not_convert: a layer whose name contains one of these stays in the model's dtype (vLLM is_layer_skipped). */
  notConverted: string[];
  /** Regexes (Python re.match: anchored at the start) of layers that stay in the model's dtype: GPTQ dynamic "-:" keys, compressed-tensors ignore. */
  notConvertedPatterns: string[];
  /** GPTQ `lm_head: true`: lm_head is quantized too (vLLM GPTQConfig lm_head_quantized); else it stays in the model's dtype. */
  lmHead: boolean;
  /**
   * Bits of one scale; absent: 16 (fp16, AWQ / GPTQ / compressed-tensors int). NVFP4 (4-bit e2m1
   * values, ModelOpt or compressed-tensors): 8, an fp8 e4m3 scale per 16 inputs. bitsandbytes:
   * 32 (fp32 absmax per 64, LLM.int8's SCB per output), 8 + 32/256 with double quant.
   */
  scaleBits?: number;
}

/**
 * What vLLM's _get_and_verify_max_len (vllm/config/model.py) reads from a checkpoint to derive
 * max_model_len, as written there (core/config/model.ts readContextLength; the rule itself is
 * core/estimate vllmMaxModelLen).
 */
export interface ContextLengthKeys {
  /**
   * vLLM's possible_keys present in the (text) config with a positive integer value, in vLLM's
   * order (max_position_embeddings, n_positions, max_seq_len, seq_length, model_max_length,
   * max_target_positions, max_sequence_length, max_seq_length, seq_len); a length transformers'
   * config class supplies where the file leaves it out is listed under max_position_embeddings.
   */
  lengths: Array<{
    /** The config key, as vLLM names it ("max_position_embeddings", "seq_length", ...). */
    key: string;
    /** The length the key gives, tokens. */
    tokens: number;
  }>;
  /**
   * rope_scaling (or transformers v5's rope_parameters): one entry, or one per layer type;
   * `ropeType` from rope_type or type ("default" when neither), `factor` and
   * `originalMaxPositionEmbeddings` null where not given. Empty when the config has none.
   */
  rope: Array<{
    /** The RoPE scaling kind: rope_scaling's rope_type or type ("linear", "dynamic", "yarn", "llama3", ...), "default" when neither. */
    ropeType: string;
    /** rope_scaling's factor, a ratio (the scaled length / the original); null where not given. */
    factor: number | null;
    /** rope_scaling's original_max_position_embeddings, tokens; null where not given. */
    originalMaxPositionEmbeddings: number | null;
  }>;
  /** The config's own original_max_position_embeddings (outside rope_scaling): LongRoPE's default length. */
  originalMaxPositionEmbeddings: number | null;
}

/**
 * A model's architecture as attention sizing needs it. Sizes are counts (not bytes).
 * Aliases are resolved: n_embd -> hiddenSize, n_head -> numHeads, n_layer -> numLayers, ...
 */
export interface ModelSpec {
  /** model_type, e.g. "llama"; architectures[0] when model_type is absent. */
  modelType: string;
  /** The config's architectures list ("LlamaForCausalLM"), as written; empty when absent. */
  architectures: string[];
  /** True for encoder-only models (BERT...): no KV cache exists. */
  isEncoder: boolean;
  /** Hidden size (hidden_size), elements. */
  hiddenSize: number;
  /** Decoder layers (num_hidden_layers), a count. */
  numLayers: number;
  /** Query heads, H. */
  numHeads: number;
  /** KV heads, H_kv (GQA when < H, MQA when 1). */
  numKvHeads: number;
  /** head_dim (D): explicit if given, else hiddenSize / numHeads. */
  headDim: number;
  /** True when head_dim came from the config rather than hiddenSize / numHeads. */
  headDimExplicit: boolean;
  /** Attention kind: 'mha', 'gqa', 'mqa' (from the head counts) or 'mla'. */
  attention: AttentionKind;
  /** Multi-head latent attention's dimensions (DeepSeek-V2/V3: kv_lora_rank, rope head dim); null for other attention. */
  mla: MlaSpec | null;
  /** MLP intermediate size (intermediate_size), elements. */
  intermediateSize: number;
  /** Vocabulary size (vocab_size), tokens. */
  vocabSize: number;
  /** Longest sequence the model is configured for (max_position_embeddings), tokens; null when the config does not say. */
  maxPositionEmbeddings: number | null;
  /**
   * The keys vLLM derives max_model_len from, as the config writes them; core/estimate
   * vllmMaxModelLen applies vLLM's rule to them (the default `vllm serve` takes, and the
   * longest it accepts).
   */
  contextLength: ContextLengthKeys;
  /** sliding_window in tokens, or null when no layer slides. */
  slidingWindow: number | null;
  /**
   * Per layer (length numLayers): 'full' attention holds every token; 'sliding' holds at most
   * slidingWindow tokens (also Llama 4's chunked layers); 'linear' (linear attention, Mamba,
   * conv: Qwen3-Next, Jamba, Bamba, Granite-4 hybrids; Nemotron-H's MLP-only blocks) keeps no
   * per-token KV cache (a Mamba layer keeps a constant state: ModelSpec.mamba).
   * All 'full' without a window or layer_types.
   */
  layerTypes: Array<'full' | 'sliding' | 'linear'>;
  /** Mixture of experts: experts, experts per token, shared experts, their sizes and which layers; null for a dense model. */
  moe: MoeSpec | null;
  /** lm_head shares the token embedding's weights (tie_word_embeddings). */
  tieWordEmbeddings: boolean;
  /** Gated MLP (SwiGLU/GeGLU: 3 matrices) vs plain (2 matrices). */
  gatedMlp: boolean;
  /** Biases on the q/k/v projections (attention_bias; Qwen2 has them by default). */
  attentionBias: boolean;
  /** Bias on the output projection o_proj (Llama-style attention_bias: true sets both). */
  attentionOutputBias: boolean;
  /** The MLP projections have biases (mlp_bias). */
  mlpBias: boolean;
  /** LayerNorm (weight + bias: GPT-2, BERT) or RMSNorm (weight only: Llama and most decoders). */
  norm: 'layernorm' | 'rmsnorm';
  /** Norms in one layer: 2 (pre-attention, pre-MLP); Gemma-2/3 have 4 (pre and post each). */
  normsPerLayer: number;
  /** Per-head RMSNorm on q and k (Qwen3, Gemma-3): 2 · head_dim parameters per layer. */
  qkNorm: boolean;
  /**
   * Qwen3-Next's gated attention (vLLM Qwen3NextAttention, attn_output_gate, default true): q_proj
   * also projects a sigmoid gate on the attention output, [h, 2·H·D] instead of [h, H·D]. Absent
   * for other models (and runs saved before it was read).
   */
  attnOutputGate?: boolean;
  /** Learned sink logit per query head (gpt-oss): H parameters per layer. */
  attentionSinks: boolean;
  /**
   * attn_logit_softcapping (Gemma-2: 50): attention logits become cap · tanh(logits / cap) before
   * the softmax. Absent when the config has none (and in runs saved before it was read).
   */
  attnLogitSoftcapping?: number;
  /**
   * mllama's (Llama 3.2 Vision) cross_attention_layers: the indices of the layers that attend to
   * the image's tokens instead of the text's (MllamaCrossAttentionDecoderLayer: Llama's shapes plus
   * a q_norm and a k_norm over head_dim and two tanh gates). Absent for other models.
   */
  crossAttentionLayers?: number[];
  /** Rows of a learned absolute position embedding (GPT-2 n_positions, BERT); 0 with rotary positions. */
  positionEmbeddingRows: number;
  /** BERT token type (segment) embedding rows (type_vocab_size); 0 for decoders. */
  typeVocabSize: number;
  /** quantization_config of the published weights; null for plain 16/32-bit checkpoints. */
  quantization: QuantizationSpec | null;
  /**
   * torch_dtype / dtype of the published weights, mapped; null when absent or unknown (unknown:
   * float8_e4m3fn, with sourceKeys.torchDtype naming the key that holds it). A
   * multimodal config's top-level one wins over text_config's (gemma-3-12b-it: bfloat16 at the
   * top, float32 in text_config; transformers loads the checkpoint in the top-level dtype).
   */
  torchDtype: Dtype | null;
  /** The Mamba mixer of a hybrid model; null or absent for pure transformers (and runs saved before it was read). */
  mamba?: MambaSpec | null;
  /**
   * Weights vLLM holds in fp32 whatever the model dtype (4 B a parameter), absent where none:
   * MiniMax-Text-01 / MiniMax-M1's lm_head (minimax_text_01.py `self.lm_head.float()`, its
   * logits computed from `hidden_states.float()`) and MoE gates (`ReplicatedLinear(...,
   * params_dtype=torch.float32)`).
   */
  fp32Weights?: {
    /** lm_head held in fp32 (MiniMax-Text-01 / MiniMax-M1). */
    lmHead: boolean;
    /** MoE router (gate) weights held in fp32. */
    router: boolean;
  };
  /** Per layer, whether it has an MLP (Nemotron-H's Mamba and attention blocks have none); absent: every layer. */
  mlpLayers?: boolean[];
  /**
   * The MLP width of each layer (length numLayers) where layers differ (Gemma 3n's intermediate_size
   * list, a MatFormer slice); absent: every layer intermediateSize. intermediateSize is then the widest.
   */
  intermediateSizes?: number[];
  /**
   * The last numKvSharedLayers layers attend over an earlier layer's KV cache and keep none of their
   * own (Gemma 3n's num_kv_shared_layers: vLLM sets their kv_sharing_target_layer_name and
   * gpu_model_runner.get_kv_cache_spec skips them). Absent: 0.
   */
  numKvSharedLayers?: number;
  /** Gemma 3n's per-layer embeddings, AltUp and LAuReL sizes; absent for other families. */
  gemma3n?: Gemma3nSpec;
  /** What the parameter count approximates for this family, in words (Zamba2's shared blocks); absent: counted as vLLM builds it. */
  paramsApproximated?: string;
  /** A multimodal config's vision tower (vision_config); null or absent for text-only configs (and runs saved before it was read). */
  vision?: VisionTower | null;
  /**
   * Where each recognised key's value sits in the source, by its JSON path as written
   * ("num_key_value_heads", "n_head", "text_config.head_dim"). For a model written inline in a
   * profile the offsets are into the profile's text.
   */
  ranges: Record<string, SourceRange>;
  /**
   * Which JSON path each ModelSpec field was read from (hiddenSize -> "n_embd"); absent = default.
   * @entry The config's JSON path the model's {key} was read from, as written ("n_embd", "text_config.head_dim"); absent: a default or derived value.
   */
  sourceKeys: Partial<Record<keyof ModelSpec, string>>;
}

/**
 * The kernel backends a run can ask for: device.backend in a profile, `--backend`, the
 * attnscope.backend setting (the schema's and package.json's enums list the same). 'auto' takes
 * CUDA when a device is there and its kernels take every case, else the CPU.
 */
export const BACKENDS = ['auto', 'cpu', 'cuda'] as const;
export type Backend = (typeof BACKENDS)[number];
/** The backend a case ran on (a run result's KernelCase.backend). */
export type KernelBackendName = Exclude<Backend, 'auto'>;

/** True when `s` names a Backend. */
export function isBackend(s: string): s is Backend {
  return (BACKENDS as readonly string[]).includes(s);
}

export interface DeviceSpec {
  /** Where the kernels run: 'cpu', 'cuda', or 'auto' (CUDA when a device is there and its kernels take every case, else the CPU). */
  backend: Backend;
  /** Device memory in GiB; null = unknown (then device.gpu's memory, else kv_cache.memory_gib sizes the pool). */
  memoryGib: number | null;
  /** Fraction 0-1 of device memory vLLM may use (vLLM's gpu_memory_utilization). */
  gpuMemoryUtilization: number;
  /** Tensor-parallel GPUs (tensor_parallel_size), a count. */
  tensorParallelSize: number;
  /**
   * Pipeline stages (vLLM --pipeline-parallel-size): the layers are split over them
   * (core/estimate/pipeline.ts), each stage on tensorParallelSize GPUs; GPUs = tp · pp (core/format gpuCount).
   * Absent in runs saved before it was read: 1.
   */
  pipelineParallelSize?: number;
  /**
   * Engine replicas (vLLM --data-parallel-size): each a whole copy of the model on
   * tensorParallelSize · pipelineParallelSize GPUs with its own scheduler and KV pool; the
   * estimate is one replica's. Absent (runs saved before it was read, or not written): 1.
   */
  dataParallelSize?: number;
  /**
   * GiB of weights per GPU vLLM keeps in pinned CPU memory (--cpu-offload-gb; core/estimate
   * cpuOffload): the GPU holds that much less, the KV pool gets it, and every forward pass reads it
   * over the host link (runner/simulate step time). Absent (not written, or 0): none.
   */
  cpuOffloadGib?: number;
  /**
   * What one GPU of `gpu` costs per hour, US dollars (device.gpu_hour_usd): user-given, never a
   * built-in figure. With it the modelled cost per million output tokens (core/format.ts
   * usdPerMillionTokens) is said by `simulate` and ranks a sweep. Absent: no price.
   */
  gpuHourUsd?: number;
  /**
   * A row of core/estimate/gpus.ts GPUS, as written, or the name of the GPU device.gpu describes
   * (then `gpuSpec` holds it): its peaks drive the step-time model (absent = DEFAULT_GPU) and its
   * CUDA memory sizes the KV pool when memory_gib is not set. Read through gpus.ts deviceGpu.
   */
  gpu?: string;
  /**
   * The GPU device.gpu describes as an object (its name, peaks and memory, gpus.ts userGpu): every
   * figure user-given and labelled so. Absent when device.gpu names a table row or is not set.
   */
  gpuSpec?: GpuSpec;
}

/** A latency service-level objective (profile `slo`); a request meets it when each given bound holds. */
export interface SloSpec {
  /** Time to first token bound, milliseconds. */
  ttftMs?: number;
  /** Time per output token bound (mean inter-token gap of the request), milliseconds. */
  tpotMs?: number;
  /**
   * Fraction of all requests that must meet the bounds for a run (a rate of the capacity search, a
   * sweep point) to meet the SLO, in (0, 1]; absent = SLO_ATTAINMENT_DEFAULT (0.9). 0.99 makes the
   * bounds p99 bounds.
   */
  attainment?: number;
}

/**
 * Efficiency factors of the step-time model (profile `step_time`, runner/simulate/step-time.ts):
 * achieved fractions of the GPU's peaks and a fixed cost per step. Absent keys take the model's
 * stated assumptions; `attnscope simulate --calibrate` fits all three.
 */
export interface StepTimeSpec {
  /** Achieved fraction (0, 1] of the GPU's compute peak (profile step_time.compute_efficiency). */
  computeEfficiency?: number;
  /** Achieved fraction (0, 1] of the GPU's memory bandwidth (profile step_time.memory_efficiency). */
  memoryEfficiency?: number;
  /** Fixed cost per step, milliseconds (profile step_time.overhead_ms). */
  overheadMs?: number;
  /** The tensor-parallel all-reduces' link figures (profile `step_time.all_reduce`); not fitted by calibration. */
  allReduce?: AllReduceSpec;
}

/** The step_time factors calibration fits (all of StepTimeSpec but the all-reduce's link figures). */
export type StepTimeFactors = Omit<StepTimeSpec, 'allReduce'>;

/**
 * Profile `step_time.all_reduce`: what the modelled tensor-parallel all-reduce achieves
 * (runner/simulate/step-time.ts allReduceWork), to replace the figures fitted on H100 SXM
 * (ALL_REDUCE_EFFICIENCY, ALL_REDUCE_LATENCY_S) with a card's own, e.g. from nccl-tests or vLLM's
 * benchmarks/kernels/benchmark_device_communicators.py. `efficiency: 0.5` in the profile sets all
 * three; absent ones keep the assumed values.
 */
export interface AllReduceSpec {
  /** Achieved fraction (0, 1] of the interconnect's per-direction bandwidth on the bytes each algorithm moves per GPU: one-shot, two-shot (NCCL's ring too, at every size: given, it replaces the ring's large-message 0.82 past 4 MiB), multimem. */
  efficiency?: {
    /** One-shot all-reduce's achieved fraction (0, 1] of the link bandwidth. */
    oneShot?: number;
    /** Two-shot (and NCCL ring) all-reduce's achieved fraction (0, 1] of the link bandwidth. */
    twoShot?: number;
    /** Multimem (symmetric-memory) all-reduce's achieved fraction (0, 1] of the link bandwidth. */
    multimem?: number;
  };
  /** One all-reduce call's fixed latency, microseconds (≥ 0). */
  latencyUs?: number;
}

export interface KvCacheSpec {
  /** Token slots per page (vLLM block_size). */
  pageSize: number;
  /** 'auto' = the profile's dtype. */
  dtype: KvDtype | 'auto';
  /** Pages in the KV pool, a count; 'auto' = what the KV budget fits. */
  numPages: number | 'auto';
  /** Explicit KV budget in GiB (vLLM "Available KV cache memory"), else derived from the device. */
  memoryGib: number | 'auto';
}

export interface PrefillSpec {
  /** Sequences per prefill case, a count. */
  batchSize: number;
  /** Sequence lengths of the prefill cases, tokens, one case each. */
  seqLens: number[];
  /** True when each query attends only to keys at or before its position. */
  causal: boolean;
}

export interface DecodeSpec {
  /** Batch sizes of the decode cases (sequences decoding one token together), counts; each pairs with every context length. */
  batchSizes: number[];
  /** Context lengths of the decode cases (tokens in each sequence's KV cache), tokens. */
  contextLens: number[];
}

export type LengthDist =
  | {
      /** 'fixed': every length the same, `value`. */
      dist: 'fixed';
      /** Every length, tokens. */
      value: number;
    }
  | {
      /** 'uniform': lengths drawn evenly from `min` to `max`, whole tokens. */
      dist: 'uniform';
      /** Shortest length, tokens. */
      min: number;
      /** Longest length, tokens. */
      max: number;
    }
  | {
      /** 'lognormal': lengths whose natural log is normal around ln(`median`) with `sigma`, clipped at `max`. */
      dist: 'lognormal';
      /** Median length, tokens. */
      median: number;
      /** Standard deviation of the length's natural log (dimensionless). */
      sigma?: number;
      /** Longest length (draws above are clipped), tokens. */
      max: number;
    }
  | {
      /** 'exponential': lengths drawn exponentially with `mean`, clipped at `max`. */
      dist: 'exponential';
      /** Mean length, tokens. */
      mean: number;
      /** Longest length (draws above are clipped), tokens. */
      max: number;
    };

export interface WorkloadSpec {
  /** Requests drawn, a count. */
  requests: number;
  /** Requests per second, Poisson arrivals. */
  arrivalRate: number;
  /** How each request's prompt length is drawn, tokens (LengthDist). */
  promptLen: LengthDist;
  /** How each request's output length is drawn, tokens (LengthDist). */
  outputLen: LengthDist;
  /** Absent: vLLM's default for the device (core/estimate maxNumSeqsOf). */
  maxNumSeqs?: number;
  /** Not written: vLLM's default for the model (core/estimate vllmMaxModelLen), as `vllm serve` without --max-model-len. */
  maxModelLen: number;
  /** Absent: vLLM's default for the device (core/estimate maxNumBatchedTokensOf). */
  maxNumBatchedTokens?: number;
  /** Optional prefix sharing: requests fall into groups that share a common prompt prefix. */
  prefixSharing?: {
    /** Groups of requests, each with its own shared prefix, a count. */
    groups: number;
    /** Length of the shared prefix, tokens. */
    prefixLen: number;
    /** Fraction 0-1 of the requests that share a group's prefix. */
    fraction: number;
  };
  /** Seed of the random draws (arrivals and lengths), an integer. */
  seed?: number;
  /**
   * Key workload.trace: a request trace to replay instead of drawing requests (any format
   * `attnscope simulate --trace` reads, detected from its first line): `path` as written,
   * `resolvedPath` absolute (a relative path is relative to the profile's folder). With it, the
   * draw keys (requests, arrival_rate, prompt_len, output_len, prefix_sharing, seed) are not
   * used; the scheduler limits (max_num_seqs, max_model_len, max_num_batched_tokens) are.
   */
  trace?: WorkloadTrace;
}

/** A profile's workload.trace (WorkloadSpec.trace) and the keys that say how to read it. */
export interface WorkloadTrace {
  /** As written in the profile. */
  path: string;
  /** Absolute: `path` resolved against the profile's folder. */
  resolvedPath: string;
  /** Key workload.trace_time_unit: the unit of the trace's numeric time stamps when not its format's own (`simulate --trace-time-unit`). */
  timeUnit?: TraceTimeUnit;
  /** Key workload.trace_model: keep only the BurstGPT rows of this Model (`--trace-model`). */
  model?: string;
  /** Key workload.trace_log_type: keep only the BurstGPT rows of this Log Type (`--trace-log-type`). */
  logType?: string;
}

/** The units a trace's numeric time stamps are read in (runner/simulate/traces.ts TRACE_TIME_UNIT_SECONDS). */
export type TraceTimeUnit = 's' | 'ms';

/** The workload keys that say how to read workload.trace, by WorkloadTrace field: each the profile's spelling of a `simulate` flag. */
export const TRACE_SETTING_KEYS = { timeUnit: 'trace_time_unit', model: 'trace_model', logType: 'trace_log_type' } as const;

/** vLLM's mamba_cache_mode values (vllm/config/cache.py MambaCacheMode). */
export type MambaCacheMode = 'none' | 'align' | 'all';

/**
 * What the serving engine keeps on each GPU besides weights and the KV cache (profile key
 * `engine`). 'auto' takes the figure core/estimate/reserve.ts models for `vllmVersion`; a
 * number of GiB overrides it.
 */
export interface EngineSpec {
  /** The vLLM release whose memory profiling to follow ("0.2.5", "0.10.1"); null: the current one. */
  vllmVersion: string | null;
  /**
   * vLLM's --disable-hybrid-kv-cache-manager (key engine.disable_hybrid_kv_cache_manager): true, one
   * KV-cache group for every layer; false, the hybrid manager on (for Llama 4's chunked local
   * attention what VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1 does); absent, the default of
   * `vllmVersion` for the model (core/estimate kvPoolLayout).
   */
  disableHybridKvCacheManager?: boolean;
  /**
   * vLLM's --mamba-cache-mode (key engine.mamba_cache_mode) for a hybrid Mamba model: "none" (no
   * prefix caching of the state, 1 state block a request), "align" (states kept at block
   * boundaries, 2), "all" (a state per block of tokens, vLLM's Mamba-2 prefix caching); absent,
   * the default of `vllmVersion` ("align" from 0.28.0, else "none"; core/estimate kvPoolLayout).
   */
  mambaCacheMode?: MambaCacheMode;
  /** Memory outside torch's allocator the engine's profiling counts (cuBLAS workspaces, allocator slack), GiB per GPU. */
  nonTorchGib: number | 'auto';
  /** NCCL / custom all-reduce buffers of a tensor-parallel rank, GiB per GPU (0 at tensor_parallel_size 1). */
  ncclGib: number | 'auto';
  /** CUDA graph memory subtracted from the KV budget, GiB per GPU ('auto': 0, vLLM captures graphs after sizing the pool). */
  cudaGraphGib: number | 'auto';
  /** The activation peak of the profiling forward pass, GiB per GPU ('auto': modelled from max_num_batched_tokens). */
  activationGib: number | 'auto';
}

/** A resolved profile: defaults filled, model read. */
export interface Profile {
  /** Absolute path of the profile (or config.json) this came from, when it came from a file. */
  sourcePath: string | null;
  /** The model; when read from a path, modelPath is its absolute path. */
  model: ModelSpec;
  /** Absolute path of the model's config.json when the profile names one; null for a model written inline. */
  modelPath: string | null;
  /** Q/K/V/O dtype for kernels and the estimate (default: the config's torch_dtype, else bf16). */
  dtype: Dtype;
  /** The GPU and how the model is spread over GPUs: gpu, tensor / pipeline / data parallel sizes, gpu_memory_utilization (DeviceSpec). */
  device: DeviceSpec;
  /** The KV cache: page_size, dtype, pages or a GiB budget (KvCacheSpec). */
  kvCache: KvCacheSpec;
  /** The prefill kernel cases bench times (PrefillSpec). */
  prefill: PrefillSpec;
  /** The decode kernel cases bench times (DecodeSpec). */
  decode: DecodeSpec;
  /** The load simulate replays: requests drawn or a trace, rate, lengths, scheduler limits; null when the profile has none. */
  workload: WorkloadSpec | null;
  /** Engine reserves; absent (a profile written before the key existed) = all 'auto'. */
  engine?: EngineSpec;
  /** Absent: no SLO, so no goodput. */
  slo?: SloSpec;
  /** Absent: the step-time model's assumed efficiencies. */
  stepTime?: StepTimeSpec;
  /** Where each profile key's value sits in the profile's text, by path ("kv_cache.page_size"); a list's items are not listed. */
  ranges: Record<string, SourceRange>;
}

/** The result of reading a file: a value when it is usable, and every problem found. */
export interface ReadResult<T> {
  value: T | null;
  problems: Problem[];
}

/** True when one of two dotted key paths ('kv_cache', 'kv_cache.dtype') is the other or encloses it. */
export function keyPathsOverlap(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`);
}
