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
 * - the audio encoder ({@link audioEncoderParams}): 681,348,640 in both;
 * - the vision tower, timm's MobileNet-V5 (vision_config.architecture "mobilenetv5_300m_enc",
 *   which vLLM builds by AutoModel → TimmWrapperModel → timm.create_model), from timm's block
 *   table for that name ({@link mobileNetV5Params}): 294,126,848.
 * A tower whose architecture timm's table here does not have, or a sub-config value that is no
 * whole number, leaves its part uncounted, said in the note. The counted encoders are
 * VisionTower.params (the breakdown's vision), the embedders projectorParams. Null for a config
 * without either sub-config.
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
  // Gemma3nVisionConfig's default architecture.
  const arch = getProperty(visionNode, 'architecture')?.value;
  const archName = arch === undefined || arch.type === 'null' ? 'mobilenetv5_300m_enc' : arch.type === 'string' ? String(arch.value) : JSON.stringify(arch.value) ?? '?';
  const tower = hasVision ? mobileNetV5Params(archName) : 0;
  const counted = [
    ...(vision !== null && audio !== null ? [`the multimodal embedders (${[...(hasVision ? ['embed_vision'] : []), ...(hasAudio ? ['embed_audio'] : [])].join(', ')})`] : []),
    ...(hasVision && tower !== null ? [`the vision tower (timm ${archName}, MobileNet-V5, from timm's block table)`] : []),
    ...(hasAudio && encoder !== null ? ['the audio encoder (Gemma3nAudioEncoder, from audio_config)'] : []),
  ];
  const left = [
    ...(hasVision && tower === null ? [`the vision tower (timm architecture ${archName}: only ${Object.keys(MOBILENETV5_ARCHS).join(', ')} is modelled here)`] : []),
    ...(vision === null || audio === null ? ['the multimodal embedders'] : []),
    ...(hasAudio && encoder === null ? ['the audio encoder'] : []),
  ];
  const encoders = [...(hasVision ? [tower] : []), ...(hasAudio ? [encoder] : [])];
  const why = bad.length > 0 ? ` (${bad.join(', ')} ${bad.length > 1 ? 'are' : 'is'} not a whole number)` : '';
  const params = encoders.some((n) => n !== null) ? encoders.reduce<number>((sum, n) => sum + (n ?? 0), 0) : null;
  // Under tensor parallelism (gemma3n_mm.py Gemma3nForConditionalGeneration.__init__): vision_tower and
  // audio_tower are AutoModel.from_config, transformers' modules with no tensor-parallel layers, so
  // every GPU holds them whole; each Gemma3nMultimodalEmbedder splits its VocabParallelEmbedding and
  // RowParallelLinear embedding_projection but holds its hard / soft RMSNorms (2d) whole.
  const embedderNorms = (hasVision ? 2 * (whole(visionNode, 'hidden_size', 2048, '', []) ?? 0) : 0) + (hasAudio ? 2 * (whole(audioNode, 'hidden_size', 1536, '', []) ?? 0) : 0);
  const replicatedParams = (params ?? 0) + (vision === null || audio === null ? 0 : embedderNorms);
  return {
    modelType: hasVision ? 'gemma3n_vision' : 'gemma3n_audio',
    params,
    projectorParams: vision === null || audio === null ? null : vision + audio,
    ...(replicatedParams > 0 ? { replicated: { params: replicatedParams, what: "Gemma 3n's vision and audio towers, built whole by transformers' AutoModel, and the embedders' RMSNorms (gemma3n_mm.py)" } } : {}),
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

/**
 * timm's MobileNet-V5 block tables by architecture name (timm/models/mobilenetv5.py
 * _gen_mobilenet_v5, the encoder's: 84 blocks in 4 stages). A block string reads as timm's
 * _efficientnet_builder._decode_block_str does: type er (EdgeResidual), uir
 * (UniversalInvertedResidual) or mqa (MobileAttention with MultiQueryAttention2d); a start
 * depthwise kernel (uir, 0 = none), k the mid depthwise kernel (uir, 0 = none), the expansion
 * kernel (er) or the key / value down-conv kernel (mqa), e the expansion ratio, h heads, d the
 * key and value width, v the key / value stride, c the output channels; r (repeats) and s
 * (stride) change no shape.
 */
export const MOBILENETV5_ARCHS: Record<string, string[][]> = {
  mobilenetv5_300m_enc: [
    ['er_r1_k3_s2_e4_c128', 'er_r1_k3_s1_e4_c128', 'er_r1_k3_s1_e4_c128'],
    ['uir_r1_a3_k5_s2_e6_c256', 'uir_r1_a5_k0_s1_e4_c256', 'uir_r1_a3_k0_s1_e4_c256', 'uir_r1_a5_k0_s1_e4_c256', 'uir_r1_a3_k0_s1_e4_c256'],
    [
      'uir_r1_a5_k5_s2_e6_c640', ...Array<string>(7).fill('uir_r1_a5_k0_s1_e4_c640'), 'uir_r1_a0_k0_s1_e1_c640',
      ...Array.from({ length: 14 }, () => ['mqa_r1_k3_h12_v2_s1_d64_c640', 'uir_r1_a0_k0_s1_e2_c640']).flat(),
    ],
    ['uir_r1_a5_k5_s2_e6_c1280', ...Array.from({ length: 19 }, () => ['mqa_r1_k3_h16_s1_d96_c1280', 'uir_r1_a0_k0_s1_e2_c1280']).flat()],
  ],
};

/**
 * Parameters of timm's MobileNetV5Encoder for an architecture of {@link MOBILENETV5_ARCHS}, null
 * for another name. Every conv is bias-free and every norm an RmsNorm2d (a weight of its
 * channels); uir and mqa blocks carry a LayerScale2d (out channels; layer_scale_init_value 1e-5):
 * - stem: ConvNormAct 3 → 64, 3×3;
 * - er (in i, out o, mid m = i·e): conv_exp i·m·k² + m, conv_pwl m·o + o;
 * - uir: dw_start i·a² + i (a > 0), pw_exp i·m + m, dw_mid m·k² + m (k > 0), pw_proj m·o + o, + o;
 * - mqa (in = out = C): norm C, query C·h·d, key and value each (v > 1: a depthwise down_conv
 *   C·k² and its norm C) + C·d, output h·d·C, + C;
 * - MultiScaleFusionAdapter over the last two stages' outputs (640 + 1280 = 1920 in): a
 *   UniversalInvertedResidual without depthwise convs or layer scale (exp 2: 1920·3840 + 3840 +
 *   3840·2048 + 2048) and a norm of 2048 (MobileNetV5Encoder's num_features).
 * mobilenetv5_300m_enc: 278,881,792 in the blocks and stem + 15,245,056 = 294,126,848.
 */
export function mobileNetV5Params(architecture: string): number | null {
  const stages = MOBILENETV5_ARCHS[architecture];
  if (!stages) return null;
  let c = 64;
  let total = 3 * c * 9 + c;
  const ends: number[] = [];
  for (const stage of stages) {
    for (const block of stage) {
      const [type, ...opts] = block.split('_');
      const o: Record<string, number> = {};
      for (const opt of opts) o[opt[0]!] = Number(opt.slice(1));
      const out = o.c!;
      const k = o.k ?? 0;
      if (type === 'er') {
        const m = c * o.e!;
        total += c * m * k * k + m + m * out + out;
      } else if (type === 'uir') {
        const a = o.a ?? 0;
        const m = c * o.e!;
        total += (a > 0 ? c * a * a + c : 0) + c * m + m + (k > 0 ? m * k * k + m : 0) + m * out + out + out;
      } else {
        const hd = o.h! * o.d!;
        const kv = ((o.v ?? 1) > 1 ? c * k * k + c : 0) + c * o.d!;
        total += c + c * hd + 2 * kv + hd * out + out;
      }
      c = out;
    }
    ends.push(c);
  }
  const msfaIn = ends[ends.length - 2]! + ends[ends.length - 1]!;
  const mid = 2 * msfaIn;
  return total + msfaIn * mid + mid + mid * 2048 + 2048 + 2048;
}
