/**
 * The vision tower of a multimodal config (`vision_config` beside `text_config`): its encoder and
 * the projector into the text model, counted from their shapes where the family's modeling code
 * is known, else said to be left out. The text model is what the KV cache and the kernels see;
 * the tower adds weights (and parameters) only.
 */
import { getProperty, type ValueNode } from './tree';
import type { VisionTower } from './types';

/**
 * transformers' config-class defaults of the towers we count, for keys a vision_config leaves out
 * (SiglipVisionConfig and CLIPVisionConfig __init__ defaults).
 */
const TOWER_DEFAULTS: Record<string, { hidden_size: number; intermediate_size: number; num_hidden_layers: number; image_size: number; patch_size: number; num_channels: number }> = {
  siglip_vision_model: { hidden_size: 768, intermediate_size: 3072, num_hidden_layers: 12, image_size: 224, patch_size: 16, num_channels: 3 },
  clip_vision_model: { hidden_size: 768, intermediate_size: 3072, num_hidden_layers: 12, image_size: 224, patch_size: 32, num_channels: 3 },
};

const TOWER_NAMES: Record<string, string> = { siglip_vision_model: 'SigLIP', clip_vision_model: 'CLIP' };

/**
 * Parameters of a ViT encoder layer as transformers' SiglipEncoderLayer / CLIPEncoderLayer
 * build it: q, k, v, o with biases (4h² + 4h), two LayerNorms (4h), fc1 and fc2 with biases
 * (2hi + i + h).
 */
function vitLayer(h: number, i: number): number {
  return 4 * h * h + 4 * h + 4 * h + 2 * h * i + i + h;
}

/**
 * The encoder's parameters (modeling_siglip.py / modeling_clip.py):
 * - SigLIP: patch Conv2d c·p²·h + h (bias), positions (image/p)²·h, L layers, post LayerNorm
 *   2h, and the attention-pooling head when vision_use_head (default true; Gemma 3 and
 *   PaliGemma set it false): probe h, MultiheadAttention 4h² + 4h, LayerNorm 2h, MLP 2hi + i + h.
 *   gemma-3's SigLIP-So400m (h 1152, i 4304, 27 layers, patch 14, image 896): 416,866,032, the
 *   "417M" vision encoder of the Gemma 3 report's Table 1.
 * - CLIP: class embedding h, patch Conv2d c·p²·h (no bias), positions ((image/p)² + 1)·h, pre and
 *   post LayerNorm 4h, L layers. CLIP ViT-L/14-336 (LLaVA-1.5): 303,507,456.
 */
function encoderParams(type: string, v: Record<string, number>, useHead: boolean): number {
  const h = v.hidden_size!;
  const i = v.intermediate_size!;
  const p = v.patch_size!;
  const patches = Math.floor(v.image_size! / p) ** 2;
  const layers = v.num_hidden_layers! * vitLayer(h, i);
  if (type === 'siglip_vision_model') {
    const head = useHead ? h + 4 * h * h + 4 * h + 2 * h + 2 * h * i + i + h : 0;
    return v.num_channels! * p * p * h + h + patches * h + layers + 2 * h + head;
  }
  return h + v.num_channels! * p * p * h + (patches + 1) * h + 4 * h + layers;
}

/**
 * The projector from the tower's hidden size vh into the text model's th, by the multimodal
 * family (the root model_type), or null when its shape is not known here:
 * - gemma3: mm_input_projection_weight vh·th and mm_soft_emb_norm vh (Gemma3MultiModalProjector);
 *   gemma-3-12b-it: 1152 · 3840 + 1152 = 4,424,832;
 * - llava: linear_1 vh·th + th, linear_2 th·th + th (LlavaMultiModalProjector, biases by default);
 * - paligemma: one linear vh·th + th (PaliGemmaMultiModalProjector, th = projection_dim).
 */
function projectorParams(family: string, vh: number, th: number): number | null {
  if (family === 'gemma3') return vh * th + vh;
  if (family === 'llava') return vh * th + th + th * th + th;
  if (family === 'paligemma') return vh * th + th;
  return null;
}

/**
 * Reads `vision_config` of a config root. Null when there is none.
 * @param family the root model_type, lower case (gemma3, llava, paligemma, llama4, ...).
 * @param textHidden the text model's hidden_size (the projector's output width).
 */
export function readVisionTower(root: ValueNode, family: string, textHidden: number): VisionTower | null {
  const node = getProperty(root, 'vision_config')?.value;
  if (!node || node.type !== 'object') return null;
  const str = (key: string) => {
    const v = getProperty(node, key)?.value;
    return v?.type === 'string' ? String(v.value) : undefined;
  };
  const type = (str('model_type') ?? '').toLowerCase();
  const defaults = TOWER_DEFAULTS[type];
  if (!defaults) {
    return { modelType: type || 'unknown', params: null, projectorParams: null, note: `the vision tower (${type || 'no model_type'}) is not counted (its shapes are not modelled here): parameters and weights are the text model's` };
  }
  const values: Record<string, number> = {};
  const defaulted: string[] = [];
  for (const [key, fallback] of Object.entries(defaults)) {
    const v = getProperty(node, key)?.value;
    const ok = v?.type === 'number' && typeof v.value === 'number' && Number.isInteger(v.value) && v.value >= 1 && v.value <= 1 << 20;
    values[key] = ok ? (v.value as number) : fallback;
    if (!ok && key !== 'num_channels') defaulted.push(`${key} ${fallback}`); // RGB needs no mention
  }
  const headNode = getProperty(node, 'vision_use_head')?.value;
  const useHead = type === 'siglip_vision_model' && (headNode?.type === 'boolean' ? headNode.value === true : true);
  const params = encoderParams(type, values, useHead);
  const projector = projectorParams(family, values.hidden_size!, textHidden);
  const name = TOWER_NAMES[type]!;
  const shape = `${values.num_hidden_layers} layers, hidden ${values.hidden_size}, patch ${values.patch_size} at ${values.image_size} px`;
  const what = projector === null ? `the ${name} vision tower (${shape}) is counted, not the ${family || 'model'} projector into the text model` : `the ${name} vision tower (${shape}) and its projector into the text model are counted`;
  const defaultsText = defaulted.length > 0 ? ` (not in vision_config, taken from transformers' ${type} defaults: ${defaulted.join(', ')})` : '';
  return { modelType: type, params, projectorParams: projector, note: `${what}${defaultsText}` };
}
