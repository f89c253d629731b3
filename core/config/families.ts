/**
 * What HuggingFace configs leave unsaid, by model family (`model_type`): the key aliases each
 * family uses and the defaults its transformers config and modeling classes apply. Read by
 * core/config/model.ts; tables only, no logic.
 */
import type { Dtype, ModelSpec } from './types';

/** Key aliases, most common name first. Sources: transformers configuration_*.py of each family. */
export const ALIASES = {
  hiddenSize: ['hidden_size', 'n_embd', 'd_model', 'dim', 'model_dim'],
  numLayers: ['num_hidden_layers', 'n_layer', 'num_layers', 'n_layers'],
  numHeads: ['num_attention_heads', 'n_head', 'num_heads', 'n_heads'],
  numKvHeads: ['num_key_value_heads', 'num_kv_heads', 'n_head_kv', 'n_kv_heads', 'multi_query_group_num'],
  headDim: ['head_dim', 'd_kv', 'kv_channels'],
  intermediateSize: ['intermediate_size', 'n_inner', 'ffn_dim', 'd_ff', 'hidden_dim', 'ffn_hidden_size'],
  vocabSize: ['vocab_size', 'padded_vocab_size'],
  maxPositionEmbeddings: ['max_position_embeddings', 'n_positions', 'max_seq_len', 'seq_length', 'n_ctx'],
  numExperts: ['num_local_experts', 'num_experts', 'n_routed_experts', 'moe_num_experts'],
  numExpertsPerTok: ['num_experts_per_tok', 'experts_per_token', 'num_experts_per_token', 'moe_topk'],
  torchDtype: ['torch_dtype', 'dtype'],
} as const;

/** Encoder-only families: no autoregressive decoding, hence no KV cache. */
export const ENCODER_TYPES = new Set([
  'bert', 'roberta', 'xlm-roberta', 'distilbert', 'electra', 'albert', 'deberta', 'deberta-v2',
  'mpnet', 'camembert', 'modernbert', 'ernie', 'nomic_bert', 'xlm-roberta-xl',
]);
/**
 * Encoder-decoder families (transformers' is_encoder_decoder): an encoder stack beside the decoder,
 * whose layers also hold cross-attention K and V of every encoder token. The memory model is of
 * decoder-only (and encoder-only) models, so these are refused rather than read as a decoder.
 */
export const ENCODER_DECODER_TYPES = new Set([
  't5', 'mt5', 'umt5', 'longt5', 'switch_transformers', 'bart', 'mbart', 'pegasus', 'pegasus_x', 'marian',
  'blenderbot', 'blenderbot-small', 'led', 'm2m_100', 'nllb-moe', 'prophetnet', 'whisper', 'seamless_m4t',
]);
/** Plain 2-matrix MLP (fc1, act, fc2) rather than gated SwiGLU/GeGLU. */
export const PLAIN_MLP_TYPES = new Set([
  'gpt2', 'gpt_bigcode', 'gpt_neo', 'gpt_neox', 'gptj', 'codegen', 'falcon', 'opt', 'bloom', 'mpt',
  'phi', 'starcoder2', 'nemotron_h', ...ENCODER_TYPES,
]);
PLAIN_MLP_TYPES.delete('modernbert');
/** LayerNorm with bias (2·h parameters per norm) rather than RMSNorm. */
export const LAYERNORM_TYPES = new Set([
  'gpt2', 'gpt_bigcode', 'gpt_neo', 'gpt_neox', 'gptj', 'codegen', 'falcon', 'opt', 'bloom', 'phi',
  'starcoder2', ...ENCODER_TYPES,
]);
/** Families whose linear layers carry biases by default (no attention_bias key in their configs). */
export const BIASED_TYPES = new Set([
  'gpt2', 'gpt_bigcode', 'gpt_neox', 'opt', 'bloom', 'phi', 'starcoder2', ...ENCODER_TYPES,
]);
/** Qwen2-family attention: q/k/v projections with bias, o_proj without (modeling_qwen2.py). */
export const QKV_BIAS_TYPES = new Set(['qwen2', 'qwen2_moe', 'qwen2_vl', 'qwen2_5_vl']);
/** Learned absolute position embeddings (wpe / position_embeddings). */
export const LEARNED_POSITION_TYPES = new Set(['gpt2', 'gpt_bigcode', 'gpt_neo', 'opt', ...ENCODER_TYPES]);
/**
 * Families whose config class defaults tie_word_embeddings to false. Every other family keeps
 * transformers' PretrainedConfig default, true (GPT-2, Gemma, Falcon, OPT, BLOOM, ...).
 */
export const UNTIED_BY_DEFAULT = new Set([
  'llama', 'mistral', 'mixtral', 'qwen2', 'qwen2_moe', 'qwen3', 'qwen3_moe', 'deepseek_v2', 'deepseek_v3',
  'gpt_oss', 'phi', 'phi3', 'phimoe', 'gpt_neox', 'olmo', 'olmo2', 'olmoe', 'granite', 'granitemoe',
  'internlm2', 'exaone', 'nemotron', 'dbrx', 'jamba', 'minimax', 'minimax_text_01', 'minimax_m1', 'glm', 'glm4', 'glm4_moe', 'hunyuan',
  'gptj', 'llama4', 'llama4_text', 'qwen3_next', 'mllama', 'mllama_text_model', 'bamba', 'nemotron_h', 'granitemoehybrid', 'falcon_h1',
  'qwen3_vl', 'qwen3_vl_text', 'qwen3_vl_moe', 'qwen3_vl_moe_text', 'qwen3_5', 'qwen3_5_text', 'qwen3_5_moe', 'qwen3_5_moe_text',
]);
/** Families whose MLP width defaults to 4 · hidden_size when the key is absent or null (GPT-2 n_inner). */
export const FOUR_H_MLP_TYPES = new Set(['gpt2', 'gpt_bigcode', 'gpt_neo', 'gptj', 'codegen', 'falcon', 'bloom']);
/**
 * Defaults of config classes whose published config.json files leave size keys out (the
 * gemma-3 4B/12B/27B text_config names no head counts). Values: transformers
 * Gemma3TextConfig.__init__.
 */
export const GEMMA3_TEXT_DEFAULTS = {
  vocab_size: 262_208, hidden_size: 2304, intermediate_size: 9216, num_hidden_layers: 26,
  num_attention_heads: 8, num_key_value_heads: 4, head_dim: 256, max_position_embeddings: 131_072,
  sliding_window: 4096, sliding_window_pattern: 6,
};
export const FAMILY_DEFAULTS: Record<string, Record<string, number>> = {
  gemma3_text: GEMMA3_TEXT_DEFAULTS,
  gemma3: GEMMA3_TEXT_DEFAULTS,
};
/**
 * Defaults of text config classes that multimodal configs nest as `text_config` with only a few
 * keys, relying on the class for the rest (transformers' LlavaConfig builds
 * CONFIG_MAPPING[text_config["model_type"]](**text_config)): llava-hf/llava-1.5-7b-hf's
 * text_config names no width, depth or heads (LlamaConfig.__init__: Llama-2-7B's shape);
 * mistral-community/pixtral-12b's no num_attention_heads (MistralConfig.__init__: 32, 8 KV heads,
 * max_position_embeddings 4096 · 32). Applied in a nested text_config only: a top-level config
 * lacking a size is read as a slip and refused (missing-field), not as Llama-2-7B.
 */
export const TEXT_CONFIG_DEFAULTS: Record<string, Record<string, number>> = {
  llama: {
    vocab_size: 32_000, hidden_size: 4096, intermediate_size: 11_008, num_hidden_layers: 32, num_attention_heads: 32,
    max_position_embeddings: 2048,
  },
  mistral: {
    vocab_size: 32_000, hidden_size: 4096, intermediate_size: 14_336, num_hidden_layers: 32, num_attention_heads: 32,
    num_key_value_heads: 8, max_position_embeddings: 131_072,
  },
};
export type LayerKind = ModelSpec['layerTypes'][number];
/**
 * model_type values read as another family's: the pre-port Falcon configs (tiiuae/falcon-7b as
 * first published: "RefinedWebModel", architectures RWForCausalLM; falcon-40b: "RefinedWeb") are
 * Falcon's architecture (transformers maps both to FalconConfig; vLLM serves RWForCausalLM with its
 * FalconForCausalLM): plain 2-matrix MLP of 4 · hidden_size, LayerNorm, tied embeddings. Their own
 * boolean defaults stay in FAMILY_BOOL_DEFAULTS under the written model_type.
 */
export const FAMILY_OF_MODEL_TYPE: Record<string, string> = {
  refinedwebmodel: 'falcon',
  refinedweb: 'falcon',
};
/** layer_types values real configs use -> how the layer holds KV. */
/**
 * Boolean keys whose config-class default is not false, by family: what transformers loads
 * when a config.json leaves the key out. falcon: FalconConfig.__init__(multi_query=True,
 * new_decoder_architecture=False), so a Falcon config without "multi_query" is MQA (1 KV head)
 * and num_kv_heads only counts with new_decoder_architecture (falcon-40b/180b); the pre-port
 * model types RefinedWebModel (falcon-7b) and RefinedWeb (falcon-40b, new architecture) read the
 * same way.
 */
export const FAMILY_BOOL_DEFAULTS: Record<string, Record<string, boolean>> = {
  falcon: { multi_query: true, new_decoder_architecture: false },
  refinedwebmodel: { multi_query: true, new_decoder_architecture: false },
  refinedweb: { multi_query: true, new_decoder_architecture: true },
};

export const LAYER_KINDS: Record<string, LayerKind> = {
  full_attention: 'full', attention: 'full', global_attention: 'full',
  sliding_attention: 'sliding', chunked_attention: 'sliding', local_attention: 'sliding',
  linear_attention: 'linear', mamba: 'linear', mamba2: 'linear', conv: 'linear', recurrent: 'linear',
};
/** Llama 4: chunked local attention on RoPE layers, MoE with one shared expert, dense layers of intermediate_size_mlp. */
export const LLAMA4_TYPES = new Set(['llama4', 'llama4_text']);
/** Pre- and post-norms around attention and MLP: 4 norms per layer. */
export const FOUR_NORM_TYPES = new Set(['gemma2', 'gemma3', 'gemma3_text', 'olmo2']);
/** Per-head q/k RMSNorm (Gemma 3n's v_norm has no weight: vLLM gemma3n.py RMSNorm(has_weight=False)). */
export const QK_NORM_TYPES = new Set(['lfm2', 'qwen3', 'qwen3_moe', 'qwen3_next', 'qwen3_5', 'qwen3_5_text', 'qwen3_5_moe', 'qwen3_5_moe_text', 'gemma3', 'gemma3_text', 'gemma3n', 'gemma3n_text', 'qwen3_vl', 'qwen3_vl_text', 'qwen3_vl_moe', 'qwen3_vl_moe_text']);

export const DTYPE_NAMES: Record<string, Dtype> = {
  float32: 'fp32', fp32: 'fp32', float: 'fp32',
  float16: 'fp16', fp16: 'fp16', half: 'fp16',
  bfloat16: 'bf16', bf16: 'bf16',
};
