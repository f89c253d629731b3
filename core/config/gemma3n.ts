/**
 * Gemma 3n (model_type gemma3n, text_config gemma3n_text: google/gemma-3n-E2B / E4B): the keys its
 * text model adds to a Gemma decoder, read for core/config/model.ts. Shapes as vLLM builds the
 * model it serves (vllm/model_executor/models/gemma3n.py Gemma3nTextModel, Gemma3nDecoderLayer,
 * Gemma3nAltUp, Gemma3nLaurelBlock; the same as transformers' modeling_gemma3n.py); the counts
 * are core/estimate paramCounts, the KV cache kvCacheLayerTypes.
 */
import type { KeyReader } from './keys';
import { describe, MAX_WIDTH } from './keys';
import { getProperty, type ValueNode } from './tree';
import type { Gemma3nSpec, VisionTower } from './types';

/** The text model types read here; the multimodal root is gemma3n. */
export const GEMMA3N_TYPES = new Set(['gemma3n', 'gemma3n_text']);

/** What {@link readGemma3n} gives model.ts. */
export interface Gemma3nRead {
  spec: Gemma3nSpec | null;
  /** intermediate_size per layer (a list in Gemma 3n's config; one number means every layer); null when unreadable. */
  intermediateSizes: number[] | null;
  /** num_kv_shared_layers: the last layers that read an earlier layer's KV and keep none; 0 when absent. */
  numKvSharedLayers: number;
}

/**
 * Reads Gemma 3n's own keys (every problem reported at its key):
 * - hidden_size_per_layer_input p, vocab_size_per_layer_input Vp, altup_num_inputs n, laurel_rank r
 *   (all required: Gemma3nTextConfig's defaults are E4B's, but a config that leaves them out is
 *   no published one);
 * - intermediate_size: a list of one width per layer (Gemma3nTextConfig turns a single number into
 *   [intermediate_size] · num_hidden_layers; vLLM's Gemma3nMLP takes config.intermediate_size[layer]);
 * - num_kv_shared_layers s, from 0 to num_hidden_layers − 1: vLLM's Gemma3nAttention gives layer
 *   i >= L − s a kv_sharing_target_layer_name (the last full-attention layer before L − s for a full
 *   layer, the last sliding one for a sliding layer), and gpu_model_runner.get_kv_cache_spec skips
 *   such layers ("KV cache management logic will act as this layer does not exist"): they hold no KV.
 */
export function readGemma3n(r: KeyReader, numLayers: number | undefined): Gemma3nRead {
  const p = r.num(null, ['hidden_size_per_layer_input'], { max: MAX_WIDTH });
  const vp = r.num(null, ['vocab_size_per_layer_input'], { max: MAX_WIDTH });
  const n = r.num(null, ['altup_num_inputs'], { max: 64 });
  const rank = r.num(null, ['laurel_rank'], { max: MAX_WIDTH });
  const why = 'Gemma 3n\'s per-layer embeddings, AltUp and LAuReL blocks are sized by it';
  for (const [v, key] of [[p, 'hidden_size_per_layer_input'], [vp, 'vocab_size_per_layer_input'], [n, 'altup_num_inputs'], [rank, 'laurel_rank']] as const) {
    if (v === undefined && !r.find([key])) r.missing(key, [key], why);
  }
  const spec = p !== undefined && vp !== undefined && n !== undefined && rank !== undefined
    ? { hiddenSizePerLayerInput: p, vocabSizePerLayerInput: vp, altupNumInputs: n, laurelRank: rank }
    : null;
  const L = numLayers ?? 0;
  const shared = r.num(null, ['num_kv_shared_layers'], { min: 0, max: Math.max(0, L - 1) }) ?? 0;
  return { spec, intermediateSizes: readWidths(r, L), numKvSharedLayers: shared };
}

/** intermediate_size as a list of L widths (or one width for every layer); null, with the problem reported, when it is neither. */
function readWidths(r: KeyReader, L: number): number[] | null {
  const found = r.find(['intermediate_size']);
  if (!found) {
    r.missing('intermediateSize', ['intermediate_size'], 'Gemma 3n\'s MLP widths, one per layer');
    return null;
  }
  const v = found.prop.value;
  if (v.type === 'number') {
    const one = r.num('intermediateSize', ['intermediate_size'], { max: MAX_WIDTH });
    return one === undefined ? null : Array.from({ length: L }, () => one);
  }
  if (v.type !== 'array') {
    r.problem('error', 'wrong-type', `"intermediate_size" must be a list of MLP widths, one per layer, or one number, not ${describe(v)}`, v.range, { key: found.path });
    return null;
  }
  const items = v.items ?? [];
  const bad = items.find((item) => typeof item.value !== 'number' || !Number.isInteger(item.value) || item.value < 1 || item.value > MAX_WIDTH);
  if (bad) {
    r.problem('error', 'invalid-value', `"intermediate_size" entries must be MLP widths, integers from 1 to ${MAX_WIDTH}, not ${describe(bad)}`, bad.range, { key: found.path });
    return null;
  }
  if (items.length !== L) {
    r.problem('error', 'invalid-value', `"intermediate_size" lists ${items.length} widths but num_hidden_layers is ${L}`, v.range, { key: found.path, expected: L, actual: items.length });
    return null;
  }
  r.sourceKeys.intermediateSize = found.path;
  return items.map((item) => item.value as number);
}

/**
 * Gemma 3n's towers as vLLM's Gemma3nForConditionalGeneration (gemma3n_mm.py) loads them: the two
 * Gemma3nMultimodalEmbedder projectors are counted from the config (embedding vocab_size · d,
 * hard and soft RMSNorms d each, embedding_projection d · text hidden, a weightless post-projection
 * norm; d = the tower's hidden_size: vision 128 · 2048 + 2 · 2048 + 2048 · 2048 = 4,460,544 and
 * audio 128 · 1536 + 2 · 1536 + 1536 · 2048 = 3,345,408 in E2B and E4B). The towers are not:
 * the vision tower is timm's MobileNet-V5 (vision_config.architecture "mobilenetv5_300m_enc",
 * built by AutoModel → TimmWrapperModel from timm's own block table, no size in config.json), the
 * audio tower Gemma3nAudioEncoder (a USM conformer, not modelled here). Null for a config without
 * either sub-config.
 */
export function gemma3nTowers(root: ValueNode, textHidden: number): VisionTower | null {
  const embedder = (key: string, fallbackHidden: number): number | null => {
    const node = getProperty(root, key)?.value;
    if (node?.type !== 'object') return null;
    const int = (k: string, fallback: number): number => {
      const v = getProperty(node, k)?.value;
      return v?.type === 'number' && typeof v.value === 'number' && Number.isInteger(v.value) && v.value >= 1 && v.value <= MAX_WIDTH ? v.value : fallback;
    };
    // Gemma3nVisionConfig / Gemma3nAudioConfig defaults: vocab_size 128, hidden_size 2048 / 1536.
    const d = int('hidden_size', fallbackHidden);
    return int('vocab_size', 128) * d + 2 * d + d * textHidden;
  };
  const vision = embedder('vision_config', 2048);
  const audio = embedder('audio_config', 1536);
  if (vision === null && audio === null) return null;
  const arch = getProperty(getProperty(root, 'vision_config')?.value, 'architecture')?.value;
  const archName = arch?.type === 'string' ? String(arch.value) : 'mobilenetv5_300m_enc';
  const left = [
    ...(vision !== null ? [`the vision tower (timm ${archName}: MobileNet-V5, whose shapes are timm's block table, not config.json)`] : []),
    ...(audio !== null ? ['the audio encoder (Gemma3nAudioEncoder, audio_config)'] : []),
  ];
  return {
    modelType: 'gemma3n_vision',
    params: null,
    projectorParams: (vision ?? 0) + (audio ?? 0),
    note: `Gemma 3n's multimodal embedders (embed_vision, embed_audio) are counted; ${left.join(' and ')} ${left.length > 1 ? 'are' : 'is'} not counted: parameters and weights are the text model's and the embedders'`,
  };
}
