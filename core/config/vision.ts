/**
 * The vision tower of a multimodal config (`vision_config` beside `text_config`): its encoder and
 * the projector into the text model, counted from their shapes where the family's modeling code
 * is known, else said to be left out. The text model is what the KV cache and the kernels see;
 * the tower adds weights (and parameters) only.
 */
import { describe } from './keys';
import { getProperty, toPlain, type ValueNode } from './tree';
import { formatCount, formatGrouped } from '../format';
import type { Problem, TowerReplication, VisionTower } from './types';

/** A vision tower whose shapes are modelled: its config class's defaults and its parameter count. */
interface TowerKind {
  /** Its name in notes ("SigLIP"). */
  name: string;
  /**
   * transformers' config-class defaults (__init__) for the keys the count reads; the first alias
   * of a key group names it (Qwen2-VL's published configs write in_chans for the class's in_channels).
   */
  defaults: Record<string, number>;
  /** The encoder's parameters, from the values read (defaults filled in). */
  encoder(v: Record<string, number>): number;
  /**
   * Of those, what vLLM's model file builds whole on every tensor-parallel GPU (its convolutions,
   * embeddings, norms and the biases of RowParallelLinear layers, which every rank adds whole);
   * absent where that file was not read (the tower then splits as the text model's layers).
   */
  replicated?(v: Record<string, number>): number;
  /** The attention weights vLLM builds whole when `heads` do not divide by tensor_parallel_size (InternViT); absent elsewhere. */
  unsplitAttention?(v: Record<string, number>): { heads: number; params: number };
  /** Its shape in a note ("27 layers, hidden 1152, patch 14 at 896 px"). */
  shape(v: Record<string, number>): string;
  /** Switches read from other than integer keys (booleans, a norm_type), as 0 / 1 beside the values; absent: none. */
  flags?(vision: ValueNode): Record<string, number>;
}

/** A boolean key of a node (the first alias written), else `fallback`. */
function flag(node: ValueNode, keys: readonly string[], fallback: boolean): boolean {
  for (const key of keys) {
    const v = getProperty(node, key)?.value;
    if (v?.type === 'boolean') return v.value === true;
  }
  return fallback;
}

/** Other names a key is written under: the first alias present counts. */
const KEY_ALIASES: Record<string, readonly string[]> = { in_channels: ['in_channels', 'in_chans'] };
/** Keys whose value is a list and whose count is its length (mllama's aspect ratios, Qwen3-VL's deepstack layers). */
const LIST_LENGTH_KEYS = new Set(['supported_aspect_ratios', 'deepstack_visual_indexes']);

const vitShape = (v: Record<string, number>) => `${v.num_hidden_layers} layers, hidden ${v.hidden_size}, patch ${v.patch_size} at ${v.image_size} px`;

/**
 * Parameters of a ViT encoder layer as transformers' SiglipEncoderLayer / CLIPEncoderLayer
 * build it: q, k, v, o with biases (4h² + 4h), two LayerNorms (4h), fc1 and fc2 with biases
 * (2hi + i + h). Qwen2-VL's Qwen2VisionBlock is the same (fused qkv and proj with biases,
 * two LayerNorms, fc1 / fc2 with biases).
 */
function vitLayer(h: number, i: number): number {
  return 4 * h * h + 4 * h + 4 * h + 2 * h * i + i + h;
}

/**
 * What of {@link vitLayer} vLLM keeps whole on every tensor-parallel GPU when it builds the layer
 * from its parallel linears (siglip.py / clip.py / idefics2_vision_model.py: qkv_proj
 * QKVParallelLinear and fc1 ColumnParallelLinear split with their biases, out_proj and fc2
 * RowParallelLinear split their weights but add their biases whole): the two LayerNorms 4h and
 * the two row-parallel biases 2h = 6h.
 */
function vitLayerReplicated(h: number): number {
  return 6 * h;
}

/**
 * The towers counted, by vision_config.model_type (Qwen2-VL / Qwen2.5-VL also by the root
 * model_type: their published vision_config names none):
 * - SigLIP (modeling_siglip.py): patch Conv2d c·p²·h + h (bias), positions (image/p)²·h, L
 *   layers, post LayerNorm 2h, and the attention-pooling head when vision_use_head (default true;
 *   Gemma 3 and PaliGemma set it false): probe h, MultiheadAttention 4h² + 4h, LayerNorm 2h,
 *   MLP 2hi + i + h. gemma-3's SigLIP-So400m (h 1152, i 4304, 27 layers, patch 14, image 896):
 *   416,866,032, the "417M" vision encoder of the Gemma 3 report's Table 1.
 * - CLIP (modeling_clip.py): class embedding h, patch Conv2d c·p²·h (no bias), positions
 *   ((image/p)² + 1)·h, pre and post LayerNorm 4h, L layers. CLIP ViT-L/14-336: 303,507,456; in
 *   LLaVA-1.5 vLLM loads 23 of its 24 layers and no post-LayerNorm ({@link llavaLoadedLayers}): 290,909,184.
 * - Qwen2-VL (vLLM qwen2_vl.py Qwen2VisionTransformer): patch Conv3d c·t·p²·d (no bias; t =
 *   temporal_patch_size), depth ViT layers of embed_dim d and MLP d·mlp_ratio. Qwen2-VL-7B: 631,183,360.
 * - Qwen2.5-VL (vLLM qwen2_5_vl.py): the same Conv3d; per block two RMSNorms 2d, qkv and proj with
 *   biases 4d² + 4d, gated MLP with biases 3di + 2i + d. Qwen2.5-VL-7B: 631,975,680.
 * - Pixtral (transformers PixtralVisionModel; vLLM pixtral.py VisionTransformer): patch Conv2d
 *   c·p²·h (no bias), ln_pre RMSNorm h, per layer q, k, v, o without biases 4h², gated MLP
 *   without biases 3hi, two RMSNorms 2h; 2D RoPE, no position table. Pixtral-12B: 403,489,792,
 *   its card's "400M parameter vision encoder".
 * - mllama (transformers MllamaVisionModel, Llama 3.2 Vision): patch Conv2d c·p²·h (no bias),
 *   class embedding h, gated position embedding 1 + P·h and its tile table (A + 1)·T·P·h
 *   (P = (image/p)² + 1 patches, T = max_num_tiles, A = len(supported_aspect_ratios)), gated pre-
 *   and post-tile embeddings 2·((A + 1)·T·h + 1), LayerNorms pre and post 4h, num_hidden_layers
 *   layers of q, k, v, o without biases 4h², fc1 / fc2 with biases 2hi + i + h and two LayerNorms
 *   4h, then num_global_layers more with 2 gates each. Llama-3.2-11B-Vision: 863,567,379.
 * - Llama 4 (vLLM mllama4.py Llama4VisionModel): patch_embedding (an unfold and a linear without
 *   bias) c·p²·h, class embedding h, positions ((image/p)² + 1)·h, layernorm_pre and _post 4h, L
 *   ViT layers (qkv and o_proj with biases, fc1 / fc2 with biases, two LayerNorms), then the
 *   vision_adapter's pixel-shuffle MLP fc1 i·P_in and fc2 P_in·P_out (biases only with
 *   multi_modal_projector_bias). Llama-4-Scout: 850,960,896.
 * - Qwen3-VL (vLLM qwen3_vl.py Qwen3_VisionTransformer): patch Conv3d c·t·p²·d + d (bias), pos_embed
 *   num_position_embeddings·d, depth ViT blocks (LayerNorms, qkv / proj and linear_fc1 / fc2 with
 *   biases). Qwen3-VL-8B: 415,891,440.
 * - InternViT (transformers InternVLVisionModel; InternVL's own internvl_chat form, intern_vit_6b,
 *   as vLLM intern_vit.py builds it): class token h, patch Conv2d c·p²·h + h, positions
 *   ((image/p)² + 1)·h; per layer q, k, v (biases with attention_bias / qkv_bias) and the output
 *   projection with bias 4h² + h, q / k RMSNorms 2h with use_qk_norm / qk_normalization, the layer
 *   scales 2h (internvl_chat always, the HF form when layer_scale_init_value > 0), two norms
 *   (LayerNorm 2h, RMSNorm h by norm_type), fc1 / fc2 with biases; no final norm (mean pooling).
 *   InternViT-300M-448px (InternVL3-8B): 304,012,288.
 * - Idefics3 / SmolVLM (transformers Idefics3VisionTransformer, SigLIP's shapes): patch Conv2d with
 *   bias, positions (image/p)²·h, L layers, post LayerNorm, no head. Idefics3-8B: 412,926,192.
 */
const TOWERS: Record<string, TowerKind> = {
  siglip_vision_model: {
    name: 'SigLIP',
    defaults: { hidden_size: 768, intermediate_size: 3072, num_hidden_layers: 12, image_size: 224, patch_size: 16, num_channels: 3 },
    encoder: (v) => {
      const h = v.hidden_size!, i = v.intermediate_size!, p = v.patch_size!;
      const head = v.vision_use_head ? h + 4 * h * h + 4 * h + 2 * h + 2 * h * i + i + h : 0;
      return v.num_channels! * p * p * h + h + Math.floor(v.image_size! / p) ** 2 * h + v.num_hidden_layers! * vitLayer(h, i) + (v.post_norm === 0 ? 0 : 2 * h) + head;
    },
    // siglip.py: patch Conv2dLayer and position nn.Embedding whole, post_layernorm whole; the
    // pooling head's probe, torch MultiheadAttention and LayerNorm whole, its SiglipMLP split but
    // for fc2's bias.
    replicated: (v) => {
      const h = v.hidden_size!, p = v.patch_size!;
      const head = v.vision_use_head ? h + 4 * h * h + 4 * h + 2 * h + h : 0;
      return v.num_channels! * p * p * h + h + Math.floor(v.image_size! / p) ** 2 * h + v.num_hidden_layers! * vitLayerReplicated(h) + (v.post_norm === 0 ? 0 : 2 * h) + head;
    },
    shape: vitShape,
  },
  clip_vision_model: {
    name: 'CLIP',
    defaults: { hidden_size: 768, intermediate_size: 3072, num_hidden_layers: 12, image_size: 224, patch_size: 32, num_channels: 3 },
    encoder: (v) => {
      const h = v.hidden_size!, p = v.patch_size!;
      return h + v.num_channels! * p * p * h + (Math.floor(v.image_size! / p) ** 2 + 1) * h + 2 * h + (v.post_norm === 0 ? 0 : 2 * h) + v.num_hidden_layers! * vitLayer(h, v.intermediate_size!);
    },
    // clip.py CLIPVisionEmbeddings: class_embedding nn.Parameter, Conv2dLayer, position nn.Embedding;
    // pre_layrnorm and post_layernorm nn.LayerNorm: all whole.
    replicated: (v) => {
      const h = v.hidden_size!, p = v.patch_size!;
      return h + v.num_channels! * p * p * h + (Math.floor(v.image_size! / p) ** 2 + 1) * h + 2 * h + (v.post_norm === 0 ? 0 : 2 * h) + v.num_hidden_layers! * vitLayerReplicated(h);
    },
    shape: vitShape,
  },
  qwen2_vl: {
    name: 'Qwen2-VL',
    defaults: { depth: 32, embed_dim: 1280, mlp_ratio: 4, in_channels: 3, patch_size: 14, temporal_patch_size: 2, spatial_merge_size: 2 },
    encoder: (v) => {
      const d = v.embed_dim!, p = v.patch_size!;
      return v.in_channels! * v.temporal_patch_size! * p * p * d + v.depth! * vitLayer(d, Math.floor(d * v.mlp_ratio!));
    },
    // qwen2_vl.py: Qwen2VisionPatchEmbed nn.Conv3d whole; per block norm1 / norm2 nn.LayerNorm and the
    // biases of attn.proj and mlp.fc2 (RowParallelLinear) whole, qkv and fc1 split.
    replicated: (v) => v.in_channels! * v.temporal_patch_size! * v.patch_size! ** 2 * v.embed_dim! + v.depth! * vitLayerReplicated(v.embed_dim!),
    shape: (v) => `${v.depth} layers, hidden ${v.embed_dim}, patch ${v.patch_size}`,
  },
  qwen2_5_vl: {
    name: 'Qwen2.5-VL',
    defaults: { depth: 32, hidden_size: 3584, intermediate_size: 3420, in_channels: 3, patch_size: 14, temporal_patch_size: 2, spatial_merge_size: 2 },
    encoder: (v) => {
      const d = v.hidden_size!, i = v.intermediate_size!, p = v.patch_size!;
      return v.in_channels! * v.temporal_patch_size! * p * p * d + v.depth! * (2 * d + 4 * d * d + 4 * d + 3 * d * i + 2 * i + d);
    },
    // qwen2_5_vl.py: Qwen2_5_VisionPatchEmbed.proj ReplicatedLinear; per block the two RMSNorms 2d and
    // the biases of attn.proj and mlp.down_proj (RowParallelLinear) 2d whole.
    replicated: (v) => v.in_channels! * v.temporal_patch_size! * v.patch_size! ** 2 * v.hidden_size! + v.depth! * 4 * v.hidden_size!,
    shape: (v) => `${v.depth} layers, hidden ${v.hidden_size}, patch ${v.patch_size}`,
  },
  pixtral: {
    name: 'Pixtral',
    defaults: { hidden_size: 1024, intermediate_size: 4096, num_hidden_layers: 24, image_size: 1024, patch_size: 16, num_channels: 3 },
    encoder: (v) => {
      const h = v.hidden_size!, i = v.intermediate_size!, p = v.patch_size!;
      return v.num_channels! * p * p * h + h + v.num_hidden_layers! * (4 * h * h + 3 * h * i + 2 * h);
    },
    // pixtral.py PixtralHFVisionModel (the HF form, through llava.py): patch_conv and ln_pre whole, per
    // layer attention_norm and ffn_norm whole; qkv_proj / o_proj / gate_up_proj / down_proj split, no
    // biases. Mistral's own params.json form is built whole (readTower).
    replicated: (v) => v.num_channels! * v.patch_size! ** 2 * v.hidden_size! + v.hidden_size! + v.num_hidden_layers! * 2 * v.hidden_size!,
    shape: vitShape,
  },
  mllama_vision_model: {
    name: 'Llama 3.2 Vision (mllama)',
    defaults: {
      hidden_size: 1280, intermediate_size: 5120, num_hidden_layers: 32, num_global_layers: 8, image_size: 448, patch_size: 14,
      num_channels: 3, max_num_tiles: 4, supported_aspect_ratios: 8,
    },
    encoder: (v) => {
      const h = v.hidden_size!, i = v.intermediate_size!, p = v.patch_size!;
      const patches = Math.floor(v.image_size! / p) ** 2 + 1;
      const rows = v.supported_aspect_ratios! + 1; // nn.Embedding(max_aspect_ratio_id + 1, ...)
      const layer = 4 * h * h + 2 * h * i + i + h + 4 * h;
      return v.num_channels! * p * p * h + h + 1 + patches * h + rows * v.max_num_tiles! * patches * h
        + 2 * (rows * v.max_num_tiles! * h + 1) + 4 * h + v.num_hidden_layers! * layer + v.num_global_layers! * (layer + 2);
    },
    shape: (v) => `${v.num_hidden_layers} + ${v.num_global_layers} global layers, hidden ${v.hidden_size}, patch ${v.patch_size} at ${v.image_size} px, ${v.max_num_tiles} tiles`,
  },
};

/** The Llama 4 tower (Llama4VisionConfig defaults). */
const LLAMA4_TOWER: TowerKind = {
  name: 'Llama 4',
  defaults: {
    hidden_size: 768, intermediate_size: 5632, num_hidden_layers: 34, image_size: 448, patch_size: 14, num_channels: 3,
    projector_input_dim: 4096, projector_output_dim: 4096, vision_output_dim: 7680,
  },
  encoder: (v) => {
    const h = v.hidden_size!, i = v.intermediate_size!, p = v.patch_size!, pin = v.projector_input_dim!, pout = v.projector_output_dim!;
    const adapter = i * pin + pin * pout + (v.adapter_bias ? pin + pout : 0);
    return v.num_channels! * p * p * h + h + (Math.floor(v.image_size! / p) ** 2 + 1) * h + 4 * h + v.num_hidden_layers! * vitLayer(h, i) + adapter;
  },
  // mllama4.py: the patch_embedding linear is a ColumnParallelLinear (split); class_embedding,
  // positional_embedding_vlm and layernorm_pre / _post whole; per layer the two LayerNorms and the
  // o_proj and fc2 biases (RowParallelLinear) whole; the vision_adapter's fc2 bias whole.
  replicated: (v) => {
    const h = v.hidden_size!;
    return h + (Math.floor(v.image_size! / v.patch_size!) ** 2 + 1) * h + 4 * h + v.num_hidden_layers! * vitLayerReplicated(h) + (v.adapter_bias ? v.projector_output_dim! : 0);
  },
  shape: vitShape,
  flags: (vision) => ({ adapter_bias: flag(vision, ['multi_modal_projector_bias'], false) ? 1 : 0 }),
};

/** The Qwen3-VL tower (Qwen3VLVisionConfig defaults); its mergers are the projector. */
const QWEN3_VL_TOWER: TowerKind = {
  name: 'Qwen3-VL',
  defaults: {
    depth: 27, hidden_size: 1152, intermediate_size: 4304, in_channels: 3, patch_size: 16, temporal_patch_size: 2, spatial_merge_size: 2,
    num_position_embeddings: 2304, out_hidden_size: 3584, deepstack_visual_indexes: 3,
  },
  encoder: (v) => {
    const d = v.hidden_size!, p = v.patch_size!;
    return v.in_channels! * v.temporal_patch_size! * p * p * d + d + v.num_position_embeddings! * d + v.depth! * vitLayer(d, v.intermediate_size!);
  },
  // qwen3_vl.py: patch_embed and pos_embed (nn.Embedding) whole; per block norm1 / norm2 and the
  // biases of attn.proj and mlp.linear_fc2 (RowParallelLinear) whole.
  replicated: (v) => {
    const d = v.hidden_size!;
    return v.in_channels! * v.temporal_patch_size! * v.patch_size! ** 2 * d + d + v.num_position_embeddings! * d + v.depth! * vitLayerReplicated(d);
  },
  shape: (v) => `${v.depth} layers, hidden ${v.hidden_size}, patch ${v.patch_size}`,
};

/**
 * InternViT, in the HF form (internvl_vision, InternVLVisionConfig defaults: InternViT-300M) and in
 * InternVL's own (intern_vit_6b, InternVisionConfig defaults: InternViT-6B, RMSNorm, q / k norms).
 */
function internVit(chat: boolean): TowerKind {
  return {
    name: 'InternViT',
    defaults: chat
      ? { hidden_size: 3200, intermediate_size: 12800, num_hidden_layers: 48, image_size: 224, patch_size: 14, num_channels: 3 }
      : { hidden_size: 1024, intermediate_size: 4096, num_hidden_layers: 24, image_size: 448, patch_size: 14, num_channels: 3 },
    encoder: (v) => {
      const h = v.hidden_size!, i = v.intermediate_size!, p = v.patch_size!;
      const norm = v.layer_norm ? 2 * h : h;
      const layer = 4 * h * h + (v.qkv_bias ? 3 * h : 0) + h + (v.qk_norm ? 2 * h : 0) + (v.layer_scale ? 2 * h : 0) + 2 * norm + 2 * h * i + i + h;
      return h + v.num_channels! * p * p * h + h + (v.positions ? (Math.floor(v.image_size! / p) ** 2 + 1) * h : 0) + (v.mask_token ? h : 0) + v.num_hidden_layers! * layer;
    },
    // intern_vit.py: class_embedding, patch Conv2d and position_embedding whole; per layer norm1 /
    // norm2, ls1 / ls2, the q_norm / k_norm RMSNorms and the biases of attn.proj and mlp.fc2
    // (RowParallelLinear) whole; qkv and fc1 split. (The HF form goes through interns1.py, not read
    // here: taken to place its layers the same way.)
    replicated: (v) => {
      const h = v.hidden_size!, p = v.patch_size!;
      const norm = v.layer_norm ? 2 * h : h;
      const layer = 2 * norm + (v.layer_scale ? 2 * h : 0) + (v.qk_norm ? 2 * h : 0) + 2 * h;
      return h + v.num_channels! * p * p * h + h + (v.positions ? (Math.floor(v.image_size! / p) ** 2 + 1) * h : 0) + (v.mask_token ? h : 0) + v.num_hidden_layers! * layer;
    },
    // intern_vit.py InternVisionEncoderLayer._init_attn: InternParallelAttention when the heads divide
    // by tensor_parallel_size, else InternSdpaAttention, whose qkv and proj are nn.Linear (whole):
    // 4h² and the qkv bias 3h per layer (proj's bias is whole either way).
    unsplitAttention: (v) => ({ heads: v.heads!, params: v.num_hidden_layers! * (4 * v.hidden_size! ** 2 + (v.qkv_bias ? 3 * v.hidden_size! : 0)) }),
    shape: vitShape,
    flags: (vision) => {
      const normType = getProperty(vision, 'norm_type')?.value;
      const scale = getProperty(vision, 'layer_scale_init_value')?.value;
      return {
        qkv_bias: flag(vision, ['attention_bias', 'qkv_bias'], false) ? 1 : 0,
        qk_norm: flag(vision, ['use_qk_norm', 'qk_normalization'], chat) ? 1 : 0,
        layer_norm: (normType?.type === 'string' ? normType.value === 'layer_norm' : !chat) ? 1 : 0,
        layer_scale: chat || !(scale?.type === 'number' && typeof scale.value === 'number' && scale.value <= 0) ? 1 : 0,
        positions: chat || flag(vision, ['use_absolute_position_embeddings'], true) ? 1 : 0,
        mask_token: !chat && flag(vision, ['use_mask_token'], false) ? 1 : 0,
        // num_attention_heads: InternVisionConfig's default 25 (InternViT-6B), InternVLVisionConfig's 16.
        heads: intValue(getProperty(vision, 'num_attention_heads')?.value) ?? (chat ? 25 : 16),
      };
    },
  };
}

/** Idefics3's and SmolVLM's tower: SigLIP's shapes without the head (Idefics3VisionConfig defaults). */
const IDEFICS3_TOWER: TowerKind = {
  name: 'Idefics3 SigLIP',
  defaults: { hidden_size: 1152, intermediate_size: 3072, num_hidden_layers: 12, image_size: 224, patch_size: 32, num_channels: 3 },
  encoder: (v) => {
    const h = v.hidden_size!, p = v.patch_size!;
    return v.num_channels! * p * p * h + h + Math.floor(v.image_size! / p) ** 2 * h + v.num_hidden_layers! * vitLayer(h, v.intermediate_size!) + 2 * h;
  },
  // idefics2_vision_model.py (Idefics3VisionTransformer): patch Conv2d with bias, position
  // nn.Embedding and post_layernorm whole; the layers as SigLIP's.
  replicated: (v) => {
    const h = v.hidden_size!, p = v.patch_size!;
    return v.num_channels! * p * p * h + h + Math.floor(v.image_size! / p) ** 2 * h + v.num_hidden_layers! * vitLayerReplicated(h) + 2 * h;
  },
  shape: vitShape,
};
TOWERS.llama4_vision_model = LLAMA4_TOWER;
TOWERS.qwen3_vl = QWEN3_VL_TOWER;
TOWERS.qwen3_vl_moe = QWEN3_VL_TOWER;
TOWERS.internvl_vision = internVit(false);
TOWERS.intern_vit_6b = internVit(true);
TOWERS.idefics3_vision = IDEFICS3_TOWER;
TOWERS.idefics3 = IDEFICS3_TOWER;
TOWERS.smolvlm_vision = IDEFICS3_TOWER;

/** The projector family of a Mistral params.json's vision_encoder (no model_type there). */
const MISTRAL_NATIVE = 'mistral params.json';

/** Vision towers named by the root model_type where vision_config names no model_type (Qwen2-VL's published configs). */
const TOWER_OF_FAMILY: Record<string, string> = {
  qwen2_vl: 'qwen2_vl', qwen2_5_vl: 'qwen2_5_vl', qwen3_vl: 'qwen3_vl', qwen3_vl_moe: 'qwen3_vl_moe',
  idefics3: 'idefics3_vision', smolvlm: 'smolvlm_vision', internvl_chat: 'intern_vit_6b', internvl: 'internvl_vision',
};

/**
 * The projector from the tower (hidden size vh) into the text model's th, by the multimodal
 * family (the root model_type), or null when its shape is not known here:
 * - gemma3: mm_input_projection_weight vh·th and mm_soft_emb_norm vh (Gemma3MultiModalProjector);
 *   gemma-3-12b-it: 1152 · 3840 + 1152 = 4,424,832;
 * - llava: linear_1 vh·th + th, linear_2 th·th + th (LlavaMultiModalProjector; biases unless
 *   multimodal_projector_bias is false); llava-1.5 and Pixtral-12B (mistral-community/pixtral-12b);
 *   llava_next (LLaVA-1.6) adds its image_newline, th, and with a list of n vision_feature_layer
 *   linear_1 takes their n concatenated outputs, n·vh·th (vLLM llava_next.py; Granite Vision);
 * - mistral3 (Mistral3MultiModalProjector, Mistral-Small-3.1): RMSNorm vh, patch merger
 *   (vh·m²)·vh without bias (m = spatial_merge_size, default 2), linear_1 and linear_2 as llava's,
 *   biases only with multimodal_projector_bias (default false);
 * - paligemma: one linear vh·th + th (PaliGemmaMultiModalProjector, th = projection_dim);
 * - qwen2_vl / qwen2_5_vl: the patch merger (vLLM Qwen2VisionPatchMerger): a norm over vh
 *   (LayerNorm 2vh; Qwen2.5-VL RMSNorm vh), then Linear(vh·m², vh·m²) and Linear(vh·m², th),
 *   both with biases (m = spatial_merge_size). Qwen2-VL-7B: 2,560 + 26,219,520 + 18,353,664 = 44,575,744;
 * - Mistral's params.json vision_encoder (Pixtral): the vision-language adapter, as llava's;
 * - mllama: multi_modal_projector Linear(vision_output_dim, th) with bias (vision_output_dim
 *   default 7680: 5 intermediate layers' outputs beside the last);
 * - llama4: multi_modal_projector.linear_1 vision_output_dim·th without bias (vLLM mllama4.py);
 * - qwen3_vl / qwen3_vl_moe: the merger, LayerNorm 2vh, Linear(W, W) and Linear(W, out) with biases
 *   (W = vh·m², out = out_hidden_size), and one more per deepstack_visual_indexes entry with its
 *   LayerNorm over W (use_postshuffle_norm). Qwen3-VL-8B: 40,119,040 + 3 · 40,125,952 = 160,496,896;
 * - internvl / internvl_chat: mlp1 (InternVLMultiModalProjector), LayerNorm 2·vh·r, Linear(vh·r, th)
 *   and Linear(th, th) with biases, r = (1 / downsample_ratio)² (default 0.5: 4);
 * - idefics3 / smolvlm: the connector's modality_projection Linear(vh·s², th) without bias
 *   (s = scale_factor, default 2).
 */
function projectorParams(family: string, v: Record<string, number>, th: number, root: ValueNode, vision: ValueNode, problems: Problem[]): Projector | null {
  const bias = (fallback: boolean): boolean => {
    const b = getProperty(root, 'multimodal_projector_bias')?.value;
    return b?.type === 'boolean' ? b.value === true : fallback;
  };
  const whole = (params: number): Projector => ({ params, replicated: params });
  const vh = v.hidden_size ?? v.embed_dim!;
  // gemma3_mm.py Gemma3MultiModalProjector: an nn.Parameter and a GemmaRMSNorm, whole.
  if (family === 'gemma3') return whole(vh * th + vh);
  // llava.py LlavaMultiModalProjector: linear_1 ColumnParallelLinear, linear_2 RowParallelLinear (its bias whole).
  if (family === 'llava') return { params: vh * th + th * th + (bias(true) ? 2 * th : 0), replicated: bias(true) ? th : 0 };
  // LLaVA-NeXT: the same projector and the image_newline vector th (LlavaNextModel), an nn.Parameter.
  if (family === 'llava_next') return { params: vh * (v.feature_layers ?? 1) * th + th * th + (bias(true) ? 2 * th : 0) + th, replicated: (bias(true) ? th : 0) + th };
  if (family === 'mistral3') {
    // mistral3.py: the RMSNorm and Mistral3PatchMerger's merging_layer (nn.Linear) whole; linear_1 /
    // linear_2 taken as LLaVA's (Column / RowParallelLinear).
    const m = sizeSetting(root, 'spatial_merge_size', 2, problems, '');
    return { params: vh + vh * m * m * vh + vh * th + th * th + (bias(false) ? 2 * th : 0), replicated: vh + vh * m * m * vh + (bias(false) ? th : 0) };
  }
  // paligemma.py PaliGemmaMultiModalProjector: one nn.Linear, whole.
  if (family === 'paligemma') return whole(vh * th + th);
  if (family === MISTRAL_NATIVE) {
    // vLLM pixtral.py (params.json): VisionLanguageAdapter w_in vh·th, w_out th·th, biases unless
    // adapter_bias is false; pre_mm_projector_norm RMSNorm vh with add_pre_mm_projector_layer_norm;
    // a PatchMerger Linear(vh·m², vh) without bias when spatial_merge_size m > 1. All nn.Linear: whole.
    const flag = (key: string, fallback: boolean) => {
      const b = getProperty(vision, key)?.value;
      return b?.type === 'boolean' ? b.value === true : fallback;
    };
    const m = sizeSetting(vision, 'spatial_merge_size', 1, problems, 'vision_encoder');
    return whole(vh * th + th * th + (flag('adapter_bias', true) ? 2 * th : 0) + (flag('add_pre_mm_projector_layer_norm', false) ? vh : 0) + (m > 1 ? vh * m * m * vh : 0));
  }
  if (family === 'qwen2_vl' || family === 'qwen2_5_vl') {
    // Qwen2(_5)_VisionPatchMerger: ln_q whole, mlp.0 ColumnParallelLinear, mlp.2 RowParallelLinear (its bias th whole).
    const wide = vh * v.spatial_merge_size! ** 2;
    const norm = family === 'qwen2_vl' ? 2 * vh : vh;
    return { params: norm + wide * wide + wide + wide * th + th, replicated: norm + th };
  }
  if (family === 'mllama') {
    // mllama.py is not read here: the projector's placement is not modelled.
    const out = sizeSetting(vision, 'vision_output_dim', 7680, problems, 'vision_config');
    return { params: out * th + th, replicated: null };
  }
  // mllama4.py Llama4MultiModalProjector.linear_1: ColumnParallelLinear without bias, split.
  if (family === 'llama4') return { params: v.vision_output_dim! * th, replicated: 0 };
  if (family === 'qwen3_vl' || family === 'qwen3_vl_moe') {
    // Qwen3_VisionPatchMerger: the norm whole, linear_fc1 ColumnParallelLinear, linear_fc2 RowParallelLinear (bias out whole).
    const wide = vh * v.spatial_merge_size! ** 2, out = v.out_hidden_size!;
    const merger = wide * wide + wide + wide * out + out;
    return { params: 2 * vh + merger + v.deepstack_visual_indexes! * (2 * wide + merger), replicated: 2 * vh + out + v.deepstack_visual_indexes! * (2 * wide + out) };
  }
  if (family === 'internvl' || family === 'internvl_chat') {
    // internvl.py _init_mlp1 and interns1.py InternS1MultiModalProjector: nn.LayerNorm and two nn.Linear, whole.
    const ratio = getProperty(root, 'downsample_ratio')?.value;
    const r = ratio?.type === 'number' && typeof ratio.value === 'number' && ratio.value > 0 && ratio.value <= 1 ? Math.round(1 / ratio.value) ** 2 : 4;
    return whole(2 * vh * r + vh * r * th + th + th * th + th);
  }
  if (family === 'idefics3' || family === 'smolvlm') {
    // idefics3.py Idefics3SimpleMLP.proj: ReplicatedLinear, whole.
    const s = sizeSetting(root, 'scale_factor', 2, problems, '');
    return whole(vh * s * s * th);
  }
  return null;
}

/** A projector's parameters and, of them, what vLLM holds whole on every tensor-parallel GPU (null: not modelled). */
interface Projector {
  params: number;
  replicated: number | null;
}

/** The multimodal families whose tower vLLM builds with init_vision_tower_for_llava (llava.py): CLIP, SigLIP or Pixtral cut at the feature layer. */
const LLAVA_FAMILIES = new Set(['llava', 'llava_next']);

/**
 * The encoder layers vLLM loads for a LLaVA-style tower of `total` layers (llava.py
 * init_vision_tower_for_llava, _get_num_hidden_layers): up to the deepest `vision_feature_layer`
 * (an index i < 0 is layer total + i + 1; default -2, LlavaConfig's and LlavaNextConfig's), built
 * with require_post_norm=False, so the post-LayerNorm is not loaded either. featureLayers: how many
 * layers' outputs are concatenated into the projector (a list: Granite Vision's four). Null when
 * the value is not an integer or a list of them, or names no layer of the tower (vLLM refuses it).
 */
function llavaLoadedLayers(root: ValueNode, total: number): { layers: number; featureLayers: number; written: string } | null {
  const node = getProperty(root, 'vision_feature_layer')?.value;
  const index = (v: ValueNode): number | null => (v.type === 'number' && typeof v.value === 'number' && Number.isInteger(v.value) ? v.value : null);
  let indices: Array<number | null>;
  if (!node) indices = [-2];
  else if (node.type === 'array') indices = (node.items ?? []).map(index);
  else indices = [index(node)];
  if (indices.length === 0 || indices.some((i) => i === null)) return null;
  const layers = Math.max(...indices.map((i) => (i! < 0 ? total + i! + 1 : i!)));
  if (layers < 1 || layers > total) return null;
  const written = node?.type === 'array' ? `[${indices.join(', ')}]` : String(indices[0]);
  return { layers, featureLayers: node?.type === 'array' ? indices.length : 1, written };
}

/** The largest tower size read (2^20): far above any released tower, small enough that its width² products stay exact. */
const MAX_TOWER_SIZE = 1 << 20;

/** A positive integer no bigger than 2^20 (a tower's size), else undefined. */
function intValue(v: ValueNode | undefined): number | undefined {
  return v?.type === 'number' && typeof v.value === 'number' && Number.isInteger(v.value) && v.value >= 1 && v.value <= MAX_TOWER_SIZE ? v.value : undefined;
}

/**
 * Reads `vision_config` of a config root. Null when there is none.
 * @param family the root model_type, lower case (gemma3, llava, paligemma, qwen2_vl, mllama, ...).
 * @param textHidden the text model's hidden_size (the projector's output width).
 * @param problems receives an error (code invalid-value or wrong-type) at each size key of the
 *   tower that is written but is no integer from 1 to 2^20 (a string, -14, 0, 1e300): such a value is
 *   refused as the text config's are, never replaced by the class default. A key absent or null
 *   takes the default, said in the note.
 */
export function readVisionTower(root: ValueNode, family: string, textHidden: number, problems: Problem[] = []): VisionTower | null {
  const tower = readTower(root, family, textHidden, problems);
  // Another encoder beside the tower (MiniCPM-o's audio_config, Phi-4-multimodal's audio_processor) is not counted either.
  // (Phi-3-vision's embd_layer describes the image embedding counted from its img_processor.)
  const other = OTHER_ENCODERS.find(([key]) => key !== 'visual' && key !== tower?.modelType && !(family === 'phi3_v' && key === 'embd_layer')
    && getProperty(root, key)?.value.type === 'object');
  return tower && other ? { ...tower, note: `${tower.note}; ${other[1]} (${other[0]}) is not counted` } : tower;
}

/**
 * Encoders a config may carry without a vision_config, by key: none is counted, and the note says
 * which is left out (Phi-4-multimodal's embd_layer and audio_processor, Qwen2-Audio's audio_config,
 * Qwen-VL's visual).
 */
export const OTHER_ENCODERS: ReadonlyArray<readonly [string, string]> = [
  ['embd_layer', 'the image / audio embedding'],
  ['audio_config', 'the audio encoder'],
  ['audio_processor', 'the audio encoder'],
  ['visual', 'the vision tower'],
];

/**
 * Phi-3 / Phi-3.5-vision (phi3_v) names no vision_config: img_processor says CLIP ViT-L/14-336,
 * which vLLM phi3v.py builds from its own copy of that config (hidden 1024, MLP 4096, 24 layers,
 * patch 14 at 336 px) up to img_processor.layer_idx (default -2: 23 layers; i >= 0: i + 1), with
 * no post-LayerNorm; Phi3HDImageEmbedding adds glb_GN and sub_GN (4d each, d = image_dim_out) and
 * img_projection Linear(4d, th) + GELU + Linear(th, th), both with biases. Phi-3.5-vision:
 * 290,909,184 + 22,034,432 (the checkpoint's 24th layer and post-LayerNorm are not loaded).
 */
function phi3vTower(processor: ValueNode, textHidden: number, problems: Problem[]): VisionTower {
  const idx = getProperty(processor, 'layer_idx')?.value;
  const i = idx?.type === 'number' && typeof idx.value === 'number' && Number.isInteger(idx.value) ? idx.value : -2;
  const layers = Math.min(24, Math.max(1, i < 0 ? 24 + i + 1 : i + 1));
  const v = { hidden_size: 1024, intermediate_size: 4096, num_hidden_layers: layers, image_size: 336, patch_size: 14, num_channels: 3, post_norm: 0 };
  const d = sizeSetting(processor, 'image_dim_out', 1024, problems, 'img_processor');
  const projector = 2 * 4 * d + 4 * d * textHidden + textHidden + textHidden * textHidden + textHidden;
  return {
    modelType: 'clip_vision_model',
    params: TOWERS.clip_vision_model!.encoder(v),
    projectorParams: projector,
    // phi3v.py: the tower is vLLM's CLIPVisionModel (split); glb_GN, sub_GN and img_projection (nn.Linear) whole.
    replicated: { params: TOWERS.clip_vision_model!.replicated!(v) + projector, what: "the CLIP vision tower's patch and position embeddings, norms and row-parallel biases and the HD image projection (nn.Linear, phi3v.py)" },
    note: `the CLIP vision tower (24 layers, hidden 1024, patch 14 at 336 px, img_processor) and its projector into the text model are counted (vLLM loads ${layers} of them, up to layer_idx ${i}, without the post-LayerNorm)`,
  };
}

/**
 * The error for a tower size key written with a value intValue refuses (null counts as absent),
 * or null when the value is usable or absent. `pair`: [height, width] is accepted (InternVL).
 */
function badSize(key: string, v: ValueNode | undefined, pair: boolean, scope = 'vision_config'): Problem | null {
  if (!v || v.type === 'null') return null;
  const name = scope === '' ? `"${key}"` : `"${key}" in ${scope}`;
  const data = { key: scope === '' ? key : `${scope}.${key}` };
  if (pair && v.type === 'array') {
    if (v.items?.length === 2) return badSize(key, v.items[0], false, scope);
    return { severity: 'error', code: 'invalid-value', message: `${name} must be an integer or a [height, width] pair, not an array of ${v.items?.length ?? 0}`, range: v.range, data };
  }
  if (v.type !== 'number' || typeof v.value !== 'number') {
    return { severity: 'error', code: 'wrong-type', message: `${name} must be a number, not ${describe(v)}`, range: v.range, data: { ...data, expected: 'number' } };
  }
  const why = !Number.isInteger(v.value) ? 'an integer' : v.value < 1 ? 'at least 1' : v.value > MAX_TOWER_SIZE ? `at most ${formatCount(MAX_TOWER_SIZE)}` : null;
  return why ? { severity: 'error', code: 'invalid-value', message: `${name} must be ${why}, not ${typeof v.value === 'number' ? formatGrouped(v.value) : String(v.value)}`, range: v.range, data } : null;
}

/**
 * The size under `key` of `node` (a tower setting beside the sizes: spatial_merge_size,
 * scale_factor, vision_output_dim, image_dim_out), else `fallback` when absent or null; a value
 * written that is no integer from 1 to 2^20 is an error in `problems` (and `fallback` comes back,
 * for a value that is then dropped). `scope`: where the key is, for the message ('' the root).
 */
function sizeSetting(node: ValueNode, key: string, fallback: number, problems: Problem[], scope: string): number {
  const v = getProperty(node, key)?.value;
  const bad = badSize(key, v, false, scope);
  if (bad) problems.push(bad);
  return intValue(v) ?? fallback;
}

function readTower(root: ValueNode, family: string, textHidden: number, problems: Problem[]): VisionTower | null {
  let node = getProperty(root, 'vision_config')?.value;
  const processor = getProperty(root, 'img_processor')?.value;
  if (!node && family === 'phi3_v' && processor?.type === 'object') return phi3vTower(processor, textHidden, problems);
  if (!node) {
    const other = OTHER_ENCODERS.find(([key]) => getProperty(root, key)?.value.type === 'object');
    if (other) return { modelType: other[0], params: null, projectorParams: null, note: `${other[1]} (${other[0]}) is not counted (its shapes are not modelled here): parameters and weights are the text model's` };
  }
  // Mistral's own params.json (mistralai/Pixtral-12B-2409): the Pixtral tower under vision_encoder.
  const mistralNative = !node && getProperty(root, 'vision_encoder')?.value.type === 'object';
  if (mistralNative) {
    node = getProperty(root, 'vision_encoder')!.value;
    family = MISTRAL_NATIVE;
  }
  if (!node || node.type !== 'object') return null;
  const written = getProperty(node, 'model_type')?.value;
  const type = (written?.type === 'string' ? String(written.value) : mistralNative ? 'pixtral' : TOWER_OF_FAMILY[family] ?? '').toLowerCase();
  const tower = TOWERS[type];
  if (!tower) {
    return { modelType: type || 'unknown', params: null, projectorParams: null, note: `the vision tower (${type || 'no model_type'}) is not counted (its shapes are not modelled here): parameters and weights are the text model's` };
  }
  const values: Record<string, number> = {};
  const defaulted: string[] = [];
  for (const [key, fallback] of Object.entries(tower.defaults)) {
    let value: number | undefined;
    for (const alias of KEY_ALIASES[key] ?? [key]) {
      const v = getProperty(node, alias)?.value;
      if (LIST_LENGTH_KEYS.has(key)) {
        if (v && v.type !== 'null' && v.type !== 'array') problems.push({ severity: 'error', code: 'wrong-type', message: `"${alias}" in vision_config must be a list, not ${describe(v)}`, range: v.range, data: { key: `vision_config.${alias}`, expected: 'array' } });
      } else if (key === 'mlp_ratio') {
        if (v && v.type !== 'null' && !(v.type === 'number' && typeof v.value === 'number' && v.value > 0 && v.value <= 64)) {
          problems.push({ severity: 'error', code: v.type === 'number' ? 'invalid-value' : 'wrong-type', message: `"mlp_ratio" in vision_config must be a number above 0 and at most 64, not ${v.type === 'number' ? String(v.value) : describe(v)}`, range: v.range, data: { key: 'vision_config.mlp_ratio' } });
        }
      } else {
        const bad = badSize(alias, v, true);
        if (bad) problems.push(bad);
      }
      // supported_aspect_ratios is a list: its length counts (MllamaVisionConfig.max_aspect_ratio_id);
      // deepstack_visual_indexes: one merger per entry. InternVL's HF form writes image_size and
      // patch_size as [height, width]: square, the first counts.
      if (LIST_LENGTH_KEYS.has(key)) value ??= v?.type === 'array' && (v.items?.length ?? 0) > 0 ? v.items!.length : undefined;
      else value ??= v?.type === 'array' && v.items?.length === 2 ? intValue(v.items[0]) : intValue(v);
    }
    // Qwen2-VL's mlp_ratio may be fractional.
    if (key === 'mlp_ratio') {
      const v = getProperty(node, key)?.value;
      value = v?.type === 'number' && typeof v.value === 'number' && v.value > 0 && v.value <= 64 ? v.value : undefined;
    }
    values[key] = value ?? fallback;
    if (value === undefined && key !== 'num_channels' && key !== 'in_channels') defaulted.push(`${key} ${fallback}`); // RGB needs no mention
  }
  if (type === 'siglip_vision_model') {
    const headNode = getProperty(node, 'vision_use_head')?.value;
    values.vision_use_head = headNode?.type === 'boolean' && headNode.value === false ? 0 : 1;
  }
  Object.assign(values, tower.flags?.(node));
  const shape = tower.shape(values);
  let loadedText = '';
  const cut = LLAVA_FAMILIES.has(family) && 'num_hidden_layers' in values ? llavaLoadedLayers(root, values.num_hidden_layers!) : null;
  if (family === 'internvl_chat') {
    // vLLM internvl.py _init_vision_model: InternVisionModel up to select_layer (i < 0: L + i + 1
    // layers, else i + 1); InternViT has no post-norm to drop.
    const sel = getProperty(root, 'select_layer')?.value;
    const i = sel?.type === 'number' && typeof sel.value === 'number' && Number.isInteger(sel.value) ? sel.value : -1;
    const layers = i < 0 ? values.num_hidden_layers! + i + 1 : i + 1;
    if (layers >= 1 && layers < values.num_hidden_layers!) {
      loadedText = ` (vLLM loads ${layers} of them, up to select_layer ${i})`;
      values.num_hidden_layers = layers;
    }
  }
  const featureNode = getProperty(root, 'vision_feature_layer')?.value;
  if (LLAVA_FAMILIES.has(family) && 'num_hidden_layers' in values && cut === null && featureNode && featureNode.type !== 'null') {
    // vLLM refuses a feature layer the tower does not have; counting the whole tower would hide it.
    const total = values.num_hidden_layers!;
    problems.push({
      severity: 'error', code: 'invalid-value', range: featureNode.range, data: { key: 'vision_feature_layer' },
      message: `"vision_feature_layer" must name a layer of the ${total}-layer vision tower (an integer from -${total} to -1, or 1 to ${total}, or a list of them), not ${featureNode.type === 'array' ? JSON.stringify(toPlain(featureNode)) : featureNode.type === 'number' ? String(featureNode.value) : describe(featureNode)}`,
    });
  }
  if (cut) {
    loadedText = cut.layers < values.num_hidden_layers! ? ` (vLLM loads ${cut.layers} of them, up to vision_feature_layer ${cut.written}, without the post-LayerNorm)` : '';
    values.num_hidden_layers = cut.layers;
    values.post_norm = 0;
    values.feature_layers = cut.featureLayers;
  }
  const params = tower.encoder(values);
  const projector = projectorParams(family, values, textHidden, root, node, problems);
  const what = projector === null ? `the ${tower.name} vision tower (${shape}) is counted, not the ${family || 'model'} projector into the text model` : `the ${tower.name} vision tower (${shape}) and its projector into the text model are counted`;
  const defaultsText = defaulted.length > 0 ? ` (not in vision_config, taken from transformers' ${type} defaults: ${defaulted.join(', ')})` : '';
  const replicated = towerReplication(family, tower, values, params, projector);
  return { modelType: type, params, projectorParams: projector?.params ?? null, note: `${what}${loadedText}${defaultsText}`, ...(replicated ? { replicated } : {}) };
}

/**
 * What of a counted tower and its projector vLLM holds whole on every tensor-parallel GPU
 * (TowerKind.replicated and the projector's share, by the family's vLLM model file), or undefined
 * where that file was not read (mllama). Mistral's own params.json form builds its encoder and
 * adapter from nn.Linear throughout (pixtral.py VisionTransformer, VisionLanguageAdapter): all of it.
 */
function towerReplication(family: string, tower: TowerKind, v: Record<string, number>, params: number, projector: Projector | null): TowerReplication | undefined {
  if (family === MISTRAL_NATIVE) return { params: params + (projector?.params ?? 0), what: "Pixtral's vision encoder and adapter, nn.Linear throughout (pixtral.py VisionTransformer, VisionLanguageAdapter)" };
  if (!tower.replicated || (projector && projector.replicated === null)) return undefined;
  const p = projector?.replicated ?? 0;
  const projectorText = !projector || p === 0 ? '' : p === projector.params ? ' and its projector (nn.Linear / ReplicatedLinear)' : " and its projector's norms and row-parallel biases";
  return {
    params: tower.replicated(v) + p,
    ...(tower.unsplitAttention ? { unsplitAttention: tower.unsplitAttention(v) } : {}),
    what: `the ${tower.name} vision tower's patch and position embeddings, norms and row-parallel biases${projectorText}`,
  };
}
