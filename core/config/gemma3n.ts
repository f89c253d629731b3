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
 * Gemma 3n's towers as vLLM's Gemma3nForConditionalGeneration (gemma3n_mm.py) loads them.
 * Counted from the config:
 * - the two Gemma3nMultimodalEmbedder projectors (embedding vocab_size · d, hard and soft RMSNorms
 *   d each, embedding_projection d · text hidden, a weightless post-projection norm; d = the
 *   tower's hidden_size): vision 128 · 2048 + 2 · 2048 + 2048 · 2048 = 4,460,544 and audio
 *   128 · 1536 + 2 · 1536 + 1536 · 2048 = 3,345,408 in E2B and E4B;
 * - the audio encoder ({@link audioEncoderParams}): 681,348,640 in both.
 * Not counted, and named in the note: the vision tower, timm's MobileNet-V5
 * (vision_config.architecture "mobilenetv5_300m_enc", built by AutoModel → TimmWrapperModel from
 * timm's own block table in timm/models/mobilenetv5.py, no size in config.json). The counted
 * encoder is VisionTower.params (the breakdown's vision), the embedders projectorParams. A
 * sub-config value that is no whole number leaves its part uncounted, said in the note. Null for
 * a config without either sub-config.
 */
export function gemma3nTowers(root: ValueNode, textHidden: number): VisionTower | null {
  const visionNode = getProperty(root, 'vision_config')?.value;
  const audioNode = getProperty(root, 'audio_config')?.value;
  const hasVision = visionNode?.type === 'object';
  const hasAudio = audioNode?.type === 'object';
  if (!hasVision && !hasAudio) return null;
  const bad: string[] = [];
  // Gemma3nVisionConfig / Gemma3nAudioConfig defaults: vocab_size 128, hidden_size 2048 / 1536.
  const embedder = (node: ValueNode, key: string, fallbackHidden: number): number | null => {
    const d = whole(node, 'hidden_size', fallbackHidden, `${key}.`, bad);
    const v = whole(node, 'vocab_size', 128, `${key}.`, bad);
    return d === null || v === null ? null : v * d + 2 * d + d * textHidden;
  };
  const vision = hasVision ? embedder(visionNode, 'vision_config', 2048) : 0;
  const audio = hasAudio ? embedder(audioNode, 'audio_config', 1536) : 0;
  const encoder = hasAudio ? audioEncoderParams(audioNode, bad) : 0;
  const arch = getProperty(visionNode, 'architecture')?.value;
  const archName = arch?.type === 'string' ? String(arch.value) : 'mobilenetv5_300m_enc';
  const counted = [
    ...(vision !== null && audio !== null ? [`the multimodal embedders (${[...(hasVision ? ['embed_vision'] : []), ...(hasAudio ? ['embed_audio'] : [])].join(', ')})`] : []),
    ...(hasAudio && encoder !== null ? ['the audio encoder (Gemma3nAudioEncoder, from audio_config)'] : []),
  ];
  const left = [
    ...(hasVision ? [`the vision tower (timm ${archName}: MobileNet-V5, whose shapes are timm's block table, not config.json)`] : []),
    ...(vision === null || audio === null ? ['the multimodal embedders'] : []),
    ...(hasAudio && encoder === null ? ['the audio encoder'] : []),
  ];
  const why = bad.length > 0 ? ` (${bad.join(', ')} ${bad.length > 1 ? 'are' : 'is'} not a whole number)` : '';
  return {
    modelType: hasVision ? 'gemma3n_vision' : 'gemma3n_audio',
    params: encoder,
    projectorParams: vision === null || audio === null ? null : vision + audio,
    note: `Gemma 3n: ${[
      ...(counted.length > 0 ? [`${counted.join(' and ')} ${counted.length > 1 ? 'are' : 'is'} counted`] : []),
      ...(left.length > 0 ? [`${left.join(' and ')} ${left.length > 1 ? 'are' : 'is'} not counted${why}`] : []),
    ].join('; ')}`,
  };
}

/**
 * A whole number from 1 (to MAX_WIDTH) under `key` of `node`, `fallback` when absent (the config
 * class's default); null, with `prefix + key` pushed onto `bad`, when it is something else.
 */
function whole(node: ValueNode, key: string, fallback: number, prefix: string, bad: string[]): number | null {
  const v = getProperty(node, key)?.value;
  if (v === undefined || v.type === 'null') return fallback;
  if (v.type === 'number' && typeof v.value === 'number' && Number.isInteger(v.value) && v.value >= 1 && v.value <= MAX_WIDTH) return v.value;
  bad.push(prefix + key);
  return null;
}

/** A pair [a, b] of whole numbers under `key` (sscp_conv_kernel_size's entries), `fallback` when absent; null (reported in `bad`) otherwise. */
function pairs(node: ValueNode, key: string, fallback: number[][], bad: string[]): number[][] | null {
  const v = getProperty(node, key)?.value;
  if (v === undefined || v.type === 'null') return fallback;
  const ok = (x: ValueNode): boolean => x.type === 'number' && typeof x.value === 'number' && Number.isInteger(x.value) && x.value >= 1 && x.value <= MAX_WIDTH;
  const items = v.type === 'array' ? v.items ?? [] : [];
  const out = items.map((item) => (item.type === 'array' ? item.items ?? [] : [item]));
  if (v.type !== 'array' || out.length !== fallback.length || out.some((p) => p.length !== fallback[0]!.length || !p.every(ok))) {
    bad.push(`audio_config.${key}`);
    return null;
  }
  return out.map((p) => p.map((x) => x.value as number));
}

/**
 * Parameters of Gemma 3n's audio encoder, as transformers' modeling_gemma3n.py builds
 * Gemma3nAudioEncoder (vLLM loads it through AutoModel.from_config(audio_config)), with d =
 * hidden_size, N = conf_num_attention_heads, A = N · (d / N), K = conf_conv_kernel_size and the
 * Gemma3nAudioConfig defaults for what the config leaves out:
 * - subsample_conv_projection: two Conv2d without bias (1 → c0, c0 → c1 channels,
 *   sscp_conv_kernel_size each) with a CumulativeGroupNorm weight of its channels, and
 *   input_proj_linear (c1 · f1) · d, f the frequency width after each conv,
 *   f' = floor((f + 2 − k_w) / s_w) + 1 from input_feat_size;
 * - conf_num_hidden_layers conformer blocks, each two feed-forwards (d · 4d + 4d · d and two
 *   RMSNorms d), attention (pre-norm d, relative position pos_proj d · A, per_dim_scale d / N,
 *   q / k / v 3 · d · A, post A · d, post_norm d), the light conv (pre-norm d, linear_start
 *   d · 2d, depthwise conv d · K, conv_norm d, linear_end d²) and a norm d.
 * Gemma-3n-E4B (d 1536, N 8, K 5, 12 blocks, c 128 / 32, 3×3 kernels, stride 2, 128 mel bins):
 * 12 · 56,644,800 + 1,611,040 = 681,348,640. Null when a value is no whole number (named in `bad`).
 */
export function audioEncoderParams(node: ValueNode, bad: string[] = []): number | null {
  const before = bad.length;
  const w = (key: string, fallback: number) => whole(node, key, fallback, 'audio_config.', bad);
  const d = w('hidden_size', 1536);
  const heads = w('conf_num_attention_heads', 8);
  const layers = w('conf_num_hidden_layers', 12);
  const k = w('conf_conv_kernel_size', 5);
  const feat = w('input_feat_size', 128);
  const channels = pairs(node, 'sscp_conv_channel_size', [[128], [32]], bad);
  const kernels = pairs(node, 'sscp_conv_kernel_size', [[3, 3], [3, 3]], bad);
  const strides = pairs(node, 'sscp_conv_stride_size', [[2, 2], [2, 2]], bad);
  if (bad.length > before || d === null || heads === null || layers === null || k === null || feat === null || !channels || !kernels || !strides) return null;
  const [c0, c1] = [channels[0]![0]!, channels[1]![0]!];
  let f = feat;
  for (let i = 0; i < 2; i++) f = Math.floor((f + 2 - kernels[i]![1]!) / strides[i]![1]!) + 1;
  if (f < 1) {
    bad.push('audio_config.input_feat_size');
    return null;
  }
  const sscp = c0 * kernels[0]![0]! * kernels[0]![1]! + c0 + c0 * c1 * kernels[1]![0]! * kernels[1]![1]! + c1 + c1 * f * d;
  const headDim = Math.floor(d / heads);
  const a = heads * headDim;
  const ffw = 8 * d * d + 2 * d;
  const attention = 2 * d + d * a + headDim + 3 * d * a + a * d;
  const lconv = 2 * d * d + d * k + 2 * d + d * d;
  return sscp + layers * (2 * ffw + attention + lconv + d);
}
