/**
 * Hybrid Mamba / attention models: which layers attend and which run a Mamba mixer (or Qwen3-Next's
 * Gated DeltaNet linear attention, which vLLM builds as a Mamba-style layer), read from each
 * family's own keys, and the mixer's sizes as vLLM's model files build them. Used by
 * core/config/model.ts; the parameter and state formulas are in core/estimate.
 *
 * Sources (vLLM vllm/model_executor/models/{jamba,bamba,nemotron_h,granitemoehybrid,falcon_h1,
 * zamba2,qwen3_next,qwen3_5}.py; mixers vllm/model_executor/layers/mamba/mamba_mixer.py (Mamba-1),
 * mamba_mixer2.py (Mamba-2) and Qwen3NextGatedDeltaNet (qwen3_next.py; since moved to
 * layers/mamba/gdn/qwen_gdn_linear_attn.py QwenGatedDeltaNetAttention, same weights; Qwen3.5's
 * GatedDeltaNetAttention, layers/mamba/gdn_linear_attn.py, the same shapes); defaults:
 * transformers' Jamba/Bamba/NemotronH/GraniteMoeHybrid/FalconH1/Zamba2/Qwen3Next config classes,
 * vLLM's Qwen3_5(Moe)TextConfig).
 */
import type { KeyReader } from './keys';
import { describe, MAX_WIDTH } from './keys';
import type { Dtype, MambaSpec, SourceRange } from './types';
import { DTYPE_NAMES } from './families';

type LayerKind = 'full' | 'sliding' | 'linear';

/** What readMamba found: the layer layout where the family's keys set it, and the mixer. */
export interface MambaLayout {
  /** Per layer, when the family's keys decide which layers attend ('linear': no attention, no KV). */
  layerTypes: LayerKind[] | null;
  mamba: MambaSpec | null;
  /** Per layer, whether it has an MLP (Nemotron-H: only its "-" and "E" layers); null: every layer. */
  mlpLayers: boolean[] | null;
  /** Nemotron-H's "E" layers (0-based) carry the routed experts, its "-" layers a dense MLP; null otherwise. */
  moeLayers: number[] | null;
  /** Jamba's expert_layer_period / expert_layer_offset: layer i is MoE when i % period == offset. */
  expertPeriod: { period: number; offset: number } | null;
  /** Norms per layer where the family differs from 2 (Nemotron-H: one pre-norm per block). */
  normsPerLayer: number | null;
  /** Zamba2's attention head_dim (2 · hidden_size / num_attention_heads: its shared block attends over [h, embedding]). */
  headDim: number | null;
  /** Parts of the parameter count that are approximated, in words; null when counted as vLLM builds them. */
  paramsApproximated: string | null;
  /** The MLP width vLLM builds where the family derives it from intermediate_size (LFM2's auto-adjusted width); null: intermediate_size as written. */
  mlpIntermediateSize: number | null;
}

/**
 * Model types whose linear layers are Gated DeltaNet (vLLM builds them as Mamba-style layers with
 * their state in the KV pool): Qwen3-Next (qwen3_next.py) and Qwen3.5, dense and MoE (qwen3_5.py:
 * Qwen3_5ForConditionalGeneration / Qwen3_5MoeForConditionalGeneration, whose text_config is
 * qwen3_5_text / qwen3_5_moe_text; vLLM's GatedDeltaNetAttention, the same weights and state).
 */
export const GDN_FAMILIES = new Set(['qwen3_next', 'qwen3_5', 'qwen3_5_text', 'qwen3_5_moe', 'qwen3_5_moe_text']);
/** Qwen3.5's model types (GDN_FAMILIES less Qwen3-Next). */
export const QWEN3_5_TYPES = new Set(['qwen3_5', 'qwen3_5_text', 'qwen3_5_moe', 'qwen3_5_moe_text']);

/**
 * MiniMax-Text-01 and MiniMax-M1 (remote code: minimax_text_01, minimax_m1) and transformers' port
 * (minimax, MiniMaxAI/MiniMax-Text-01-hf): lightning attention layers, which vLLM's
 * minimax_text_01.py builds as MiniMaxText01LinearAttention, a MambaBase layer with its state in
 * the KV pool (vLLM PR #22151), beside softmax attention layers.
 */
export const MINIMAX_TYPES = new Set(['minimax', 'minimax_text_01', 'minimax_m1']);

/**
 * LFM2 (Liquid AI, lfm2): gated short convolution layers ("conv" in layer_types), which vLLM's
 * lfm2.py builds as ShortConv, a MambaBase layer with its conv state in the KV pool, beside
 * attention layers.
 */
export const LFM2_TYPES = new Set(['lfm2']);

/** Model types with a Mamba mixer, or a layer vLLM builds as one (Qwen3-Next, Qwen3.5: Gated DeltaNet; MiniMax: lightning attention; LFM2: short convolutions), in some or all layers. */
export const MAMBA_FAMILIES = new Set(['jamba', 'bamba', 'nemotron_h', 'granitemoehybrid', 'falcon_h1', 'zamba2', ...GDN_FAMILIES, ...MINIMAX_TYPES, ...LFM2_TYPES]);

/**
 * What a mixer is called in messages: its layers ("Mamba-2 layers"), vLLM's class ("MambaMixer2";
 * `modelType`, lower case, picks Qwen3.5's GatedDeltaNetAttention over Qwen3-Next's class),
 * its per-sequence state in short ("Mamba state", "GDN state": the hint, the CLI table, the hover
 * row) and its state tensors in vLLM's order (get_state_shape): the first in the conv dtype, the
 * second in the SSM dtype of mambaStateDtypes ("conv", "SSM"; Gated DeltaNet's second is the
 * recurrent state; lightning attention keeps one, its (heads, head_dim, head_dim) KV state).
 */
export function mixerNames(m: Pick<MambaSpec, 'kind'>, modelType = ''): { layer: string; vllmClass: string; short: string; states: readonly string[] } {
  if (m.kind === 'mamba1') return { layer: 'Mamba', vllmClass: 'MambaMixer', short: 'Mamba', states: ['conv', 'SSM'] };
  if (m.kind === 'mamba2') return { layer: 'Mamba-2', vllmClass: 'MambaMixer2', short: 'Mamba', states: ['conv', 'SSM'] };
  if (m.kind === 'lightning') return { layer: 'lightning attention', vllmClass: 'MiniMaxText01LinearAttention', short: 'Lightning', states: ['linear-attention KV'] };
  if (m.kind === 'shortconv') return { layer: 'short conv', vllmClass: 'ShortConv', short: 'Conv', states: ['conv'] };
  return { layer: 'Gated DeltaNet', vllmClass: QWEN3_5_TYPES.has(modelType) ? 'GatedDeltaNetAttention' : 'Qwen3NextGatedDeltaNet', short: 'GDN', states: ['conv', 'recurrent'] };
}

/**
 * Keys only Mamba-style or linear-attention hybrid configs carry: one of them outside MAMBA_FAMILIES
 * means a layout AttnScope cannot read (linear_attn_config: Kimi Linear's KDA layers, vLLM
 * kimi_linear.py, not modelled here).
 */
const MAMBA_HINT_KEYS = ['linear_attn_config', 'mamba_d_state', 'mamba_expand', 'mamba_n_heads', 'mamba_num_heads', 'ssm_state_size', 'mamba_d_conv', 'attn_layer_period', 'attn_layer_indices', 'hybrid_override_pattern', 'layers_block_type'];

/**
 * Reads the hybrid layout of `family` (lower-case model_type). `L` layers of width `h`.
 * `fromLayerTypes`: what the layer_types key gave, if it is there (GraniteMoeHybrid writes
 * "mamba" / "attention" in it, Qwen3-Next "linear_attention" / "full_attention"). Problems go to `r`: unknown layout values as warnings at the value, a Mamba-looking
 * config of another family as a warning at the key.
 */
export function readMamba(r: KeyReader, family: string, L: number, h: number, numHeads: number | undefined, fromLayerTypes: readonly LayerKind[] | null, fallback: SourceRange): MambaLayout {
  const out: MambaLayout = { layerTypes: null, mamba: null, mlpLayers: null, moeLayers: null, expertPeriod: null, normsPerLayer: null, headDim: null, paramsApproximated: null, mlpIntermediateSize: null };
  // The value of the first of `keys` the config has, else `fallback` (the model_type, or the document's start).
  const anchor = (keys: string[]): SourceRange => r.find(keys)?.prop.value.range ?? fallback;
  const layersBlockType = readLayersBlockType(r, L);
  if (!MAMBA_FAMILIES.has(family)) {
    if (layersBlockType) {
      out.layerTypes = layersBlockType.kinds;
      return out;
    }
    const hint = MAMBA_HINT_KEYS.map((k) => r.find([k])).find((f) => f !== undefined);
    if (hint) {
      r.problem('warning', 'unknown-hybrid-layout',
        `"${hint.prop.key}" is a key of hybrid Mamba / attention models, but model_type ${JSON.stringify(family)} is not one whose layer layout AttnScope reads (${[...MAMBA_FAMILIES].join(', ')}): read as a pure transformer, every layer attention with a per-token KV cache and no Mamba state; the KV and parameter figures are likely too high`,
        hint.prop.keyRange, { key: hint.path });
    }
    return out;
  }
  const kinds: LayerKind[] = [];
  const mambaLayers: number[] = [];
  if (family === 'jamba') {
    // vLLM jamba.py / transformers JambaConfig.layers_block_type: attention where i % period == offset.
    const period = r.num(null, ['attn_layer_period']) ?? 8;
    const offset = r.num(null, ['attn_layer_offset'], { min: 0 }) ?? 4;
    if (offset >= period) {
      r.problem('error', 'invalid-value', `"attn_layer_offset" ${offset} must be below "attn_layer_period" ${period}: no layer would attend`, anchor(['attn_layer_offset', 'attn_layer_period']), { key: 'attn_layer_offset' });
    }
    for (let i = 0; i < L; i++) kinds.push(i % period === offset ? 'full' : 'linear');
    const ePeriod = r.num(null, ['expert_layer_period']) ?? 2;
    const eOffset = r.num(null, ['expert_layer_offset'], { min: 0 }) ?? 1;
    out.expertPeriod = { period: ePeriod, offset: eOffset };
    r.sourceKeys.layerTypes = r.find(['attn_layer_period'])?.path ?? 'model_type';
  } else if (family === 'bamba') {
    // vLLM bamba.py: attention at attn_layer_indices, Mamba-2 elsewhere.
    const found = r.find(['attn_layer_indices']);
    const indices = new Set<number>();
    if (found) {
      const v = found.prop.value;
      if (v.type !== 'array') r.problem('error', 'wrong-type', `"attn_layer_indices" must be an array of layer indices, not ${describe(v)}`, v.range, { key: found.path });
      for (const item of v.items ?? []) {
        if (typeof item.value === 'number' && Number.isInteger(item.value) && item.value >= 0 && item.value < L) indices.add(item.value);
        else r.problem('warning', 'unknown-layer-type', `${JSON.stringify(item.value)} is not a layer index 0–${L - 1}: ignored`, item.range);
      }
      r.sourceKeys.layerTypes = found.path;
    }
    for (let i = 0; i < L; i++) kinds.push(indices.has(i) ? 'full' : 'linear');
  } else if (family === 'nemotron_h') {
    // vLLM nemotron_h.py: one block per character, M = Mamba-2, * = attention, - = MLP, E = MoE.
    const found = r.find(['hybrid_override_pattern']);
    const v = found?.prop.value;
    const pattern = v?.type === 'string' ? String(v.value) : '';
    if (found && v && v.type !== 'string') r.problem('error', 'wrong-type', `"hybrid_override_pattern" must be a string of M, *, - and E, not ${describe(v)}`, v.range, { key: found.path });
    if (found && v?.type === 'string' && pattern.length !== L) {
      r.problem('error', 'layer-types-length', `"hybrid_override_pattern" has ${pattern.length} blocks but num_hidden_layers is ${L}`, v.range, { expected: L, actual: pattern.length });
    }
    const unknown = new Set<string>();
    out.mlpLayers = [];
    out.moeLayers = [];
    for (let i = 0; i < L; i++) {
      const c = pattern[i] ?? '-';
      if (!'M*-E'.includes(c)) unknown.add(c);
      kinds.push(c === '*' ? 'full' : 'linear');
      out.mlpLayers.push(c === '-' || c === 'E');
      if (c === 'E') out.moeLayers.push(i);
      if (c === 'M') mambaLayers.push(i);
    }
    if (unknown.size > 0 && v) {
      r.problem('warning', 'unknown-layer-type', `block type${unknown.size > 1 ? 's' : ''} ${[...unknown].map((c) => JSON.stringify(c)).join(', ')} in "hybrid_override_pattern" ${unknown.size > 1 ? 'are' : 'is'} not one AttnScope knows (M Mamba-2, * attention, - MLP, E MoE): counted as an MLP-less block with no KV cache and no parameters`, v.range);
    }
    if (!found) r.missing('layerTypes', ['hybrid_override_pattern'], 'Nemotron-H says which blocks are Mamba-2, attention and MLP in it');
    out.normsPerLayer = 1;
    r.sourceKeys.layerTypes = found?.path;
  } else if (family === 'zamba2') {
    if (!layersBlockType) r.missing('layerTypes', ['layers_block_type'], 'Zamba2 says which layers carry its shared attention block in it');
    for (let i = 0; i < L; i++) kinds.push(layersBlockType?.kinds[i] ?? 'linear');
    out.headDim = numHeads !== undefined ? r.num(null, ['attention_head_dim']) ?? Math.floor(2 * h / numHeads) : null;
    out.paramsApproximated = "Zamba2's shared transformer blocks (num_mem_blocks of them, reused by every hybrid layer, with LoRA adapters and a 2 · hidden_size attention input) are counted as a plain attention block and MLP in every hybrid layer";
  } else if (family === 'falcon_h1') {
    // vLLM falcon_h1.py: attention, Mamba-2 and the MLP run in parallel in every layer.
    for (let i = 0; i < L; i++) kinds.push('full');
  } else if (MINIMAX_TYPES.has(family)) {
    // vLLM MiniMaxText01Model: attn_type_list (else decoder_attention_types), 0 a lightning
    // attention layer, 1 softmax attention; else layer_types ("linear_attention" /
    // "full_attention", read by model.ts); else every layer attends. transformers' MiniMaxConfig
    // (model_type minimax) writes layer_types when the config has none: layer i attends where
    // (i + 1) % 2 != 0, the others are lightning attention.
    const found = r.find(['attn_type_list', 'decoder_attention_types']);
    const v = found?.prop.value;
    if (found && v && v.type !== 'array') {
      r.problem('error', 'wrong-type', `"${found.prop.key}" must be an array of 0 (lightning attention) and 1 (softmax attention), one per layer, not ${describe(v)}`, v.range, { key: found.path });
    } else if (found && v) {
      for (const item of v.items ?? []) {
        if (item.value === 0 || item.value === 1) kinds.push(item.value === 0 ? 'linear' : 'full');
        else {
          r.problem('warning', 'unknown-layer-type', `${JSON.stringify(item.value)} in "${found.prop.key}" is neither 0 (lightning attention) nor 1 (softmax attention): sized as softmax attention`, item.range);
          kinds.push('full');
        }
      }
      if (kinds.length !== L) {
        r.problem('error', 'layer-types-length', `"${found.prop.key}" lists ${kinds.length} layers but num_hidden_layers is ${L}`, v.range, { expected: L, actual: kinds.length });
        kinds.length = 0;
      } else {
        r.sourceKeys.layerTypes = found.path;
      }
    } else if (family === 'minimax' && !fromLayerTypes) {
      for (let i = 0; i < L; i++) kinds.push((i + 1) % 2 !== 0 ? 'full' : 'linear');
      r.sourceKeys.layerTypes = 'model_type';
    }
  } else if (LFM2_TYPES.has(family)) {
    // transformers' Lfm2Config: layer_types ("conv" / "full_attention", read by model.ts), else
    // full_attn_idxs (the first LFM2 configs: those layers attend, the rest are "conv"), else
    // every layer attends.
    const found = fromLayerTypes ? undefined : r.find(['full_attn_idxs']);
    const v = found?.prop.value;
    if (found && v && v.type !== 'array') {
      r.problem('error', 'wrong-type', `"full_attn_idxs" must be an array of layer indices, not ${describe(v)}`, v.range, { key: found.path });
    } else if (found && v) {
      const attend = new Set<number>();
      for (const item of v.items ?? []) {
        if (typeof item.value === 'number' && Number.isInteger(item.value) && item.value >= 0 && item.value < L) attend.add(item.value);
        else r.problem('warning', 'unknown-layer-type', `${JSON.stringify(item.value)} is not a layer index 0–${L - 1}: ignored`, item.range);
      }
      for (let i = 0; i < L; i++) kinds.push(attend.has(i) ? 'full' : 'linear');
      r.sourceKeys.layerTypes = found.path;
    }
    // vLLM Lfm2MLP: with block_auto_adjust_ff_dim (default true) the width is int(2 · I / 3), times
    // block_ffn_dim_multiplier when set, rounded up to a multiple of block_multiple_of (256); I is
    // block_ff_dim where written (Lfm2Config reads it before intermediate_size), else intermediate_size.
    const written = r.num(null, ['block_ff_dim', 'intermediate_size'], { max: MAX_WIDTH });
    if (written !== undefined && flag(r, ['block_auto_adjust_ff_dim'], true)) {
      let width = Math.floor((2 * written) / 3);
      const multiplier = r.num(null, ['block_ffn_dim_multiplier'], { integer: false, min: Number.MIN_VALUE, max: 64 });
      if (multiplier !== undefined) width = Math.floor(multiplier * width);
      const multiple = r.num(null, ['block_multiple_of'], { min: 1, max: MAX_WIDTH }) ?? 256;
      out.mlpIntermediateSize = multiple * Math.ceil(width / multiple);
    } else if (written !== undefined) {
      out.mlpIntermediateSize = written;
    }
  } else if (GDN_FAMILIES.has(family) && !fromLayerTypes) {
    // transformers' Qwen3NextConfig builds layer_types when the config leaves it out (the
    // published Qwen3-Next-80B-A3B config does): layer i is "linear_attention" (Gated DeltaNet,
    // no KV cache) unless (i + 1) % full_attention_interval == 0 (default 4).
    const interval = r.num(null, ['full_attention_interval'], { min: 1 }) ?? 4;
    for (let i = 0; i < L; i++) kinds.push((i + 1) % interval === 0 ? 'full' : 'linear');
    r.sourceKeys.layerTypes = r.find(['full_attention_interval'])?.path ?? 'full_attention_interval';
  }
  // GraniteMoeHybrid: layer_types "mamba" / "attention", read by model.ts.
  if (family === 'granitemoehybrid' && !fromLayerTypes) r.missing('layerTypes', ['layer_types'], 'GraniteMoeHybrid says which layers are Mamba-2 and which attend in it');
  if (kinds.length > 0) out.layerTypes = kinds;
  if (family !== 'nemotron_h') {
    // Every layer that does not attend runs the mixer; Falcon-H1 runs it beside attention in all; Zamba2 in all.
    const layout = out.layerTypes ?? fromLayerTypes;
    for (let i = 0; i < L; i++) {
      if (family === 'falcon_h1' || family === 'zamba2' || layout?.[i] === 'linear') mambaLayers.push(i);
    }
  }
  out.mamba = readMixer(r, family, h, numHeads, mambaLayers, anchor(['mamba_d_head', 'mamba_n_heads', 'mamba_expand']));
  return out;
}

/** layers_block_type (Zamba2, and Jamba configs saved with transformers' property): "mamba" / "attention" / "hybrid". */
function readLayersBlockType(r: KeyReader, L: number): { kinds: LayerKind[] } | null {
  const found = r.find(['layers_block_type']);
  if (!found) return null;
  const v = found.prop.value;
  if (v.type !== 'array') {
    r.problem('error', 'wrong-type', `"layers_block_type" must be an array of "mamba" / "attention" / "hybrid", not ${describe(v)}`, v.range, { key: found.path });
    return null;
  }
  const kinds: LayerKind[] = [];
  const unknown = new Map<string, { count: number; range: SourceRange }>();
  for (const item of v.items ?? []) {
    const name = typeof item.value === 'string' ? item.value : '';
    if (name === 'attention' || name === 'hybrid') kinds.push('full');
    else if (name === 'mamba' || name === 'mamba2') kinds.push('linear');
    else {
      const key = JSON.stringify(item.value);
      const seen = unknown.get(key);
      if (seen) seen.count++;
      else unknown.set(key, { count: 1, range: item.range });
      kinds.push('full');
    }
  }
  for (const [name, { count, range }] of unknown) {
    r.problem('warning', 'unknown-layer-type', `layer block type ${name} (${count} layer${count > 1 ? 's' : ''}) is not one AttnScope knows ("mamba", "attention", "hybrid"); sized as full attention`, range);
  }
  if (kinds.length !== L) {
    r.problem('error', 'layer-types-length', `"layers_block_type" lists ${kinds.length} layers but num_hidden_layers is ${L}`, v.range, { expected: L, actual: kinds.length });
  }
  r.sourceKeys.layerTypes = found.path;
  return { kinds };
}

/**
 * Whether vLLM applies Qwen3_5ForConditionalGenerationConfig (MODELS_CONFIG_MAP, by architecture)
 * to this Qwen3.5 config: its architectures name Qwen3_5ForConditionalGeneration or
 * Qwen3_5MoeForConditionalGeneration, or name nothing (read as the published form). A text-only
 * Qwen3_5ForCausalLM is not in that map, so its mamba_ssm_dtype is not applied.
 */
function qwen35ConfigClass(r: KeyReader): boolean {
  const v = r.find(['architectures'])?.prop.value;
  const names = v?.type === 'array' ? (v.items ?? []).map((item) => item.value) : [];
  return names.length === 0 || names.some((a) => a === 'Qwen3_5ForConditionalGeneration' || a === 'Qwen3_5MoeForConditionalGeneration');
}

/** A boolean under `keys`, else `fallback`. */
function flag(r: KeyReader, keys: string[], fallback: boolean): boolean {
  return r.bool(keys) ?? fallback;
}

/** The Mamba mixer of `family` as vLLM builds it; null without Mamba layers. */
function readMixer(r: KeyReader, family: string, h: number, numHeads: number | undefined, layers: number[], headsRange: SourceRange): MambaSpec | null {
  if (layers.length === 0) return null;
  const n = (keys: string[], fallback: number, max = MAX_WIDTH): number => r.num(null, keys, { max }) ?? fallback;
  const ssmDtype = (): Dtype | null => {
    // vLLM NemotronHForCausalLMConfig.update_mamba_ssm_cache_dtype: the config's
    // mamba_ssm_cache_dtype, else float32. Qwen3.5 (Qwen3_5ForConditionalGenerationConfig, for
    // Qwen3_5ForConditionalGeneration and Qwen3_5MoeForConditionalGeneration, the published
    // architectures): the text config's mamba_ssm_dtype, else the model dtype.
    const key = family === 'nemotron_h' ? 'mamba_ssm_cache_dtype' : 'mamba_ssm_dtype';
    const v = r.find([key])?.prop.value;
    const named = typeof v?.value === 'string' ? DTYPE_NAMES[v.value.replace(/^torch\./, '').toLowerCase()] : undefined;
    if (family === 'nemotron_h') return named ?? 'fp32';
    return QWEN3_5_TYPES.has(family) && qwen35ConfigClass(r) ? named ?? null : null;
  };
  if (family === 'jamba') {
    // vLLM jamba.py JambaMambaDecoderLayer -> MambaMixer(hidden, mamba_d_state, mamba_d_conv,
    // mamba_expand · hidden, mamba_dt_rank, mamba_conv_bias, mamba_proj_bias, use_rms_norm=True);
    // JambaConfig defaults: d_state 16, d_conv 4, expand 2, dt_rank "auto" = ceil(hidden / 16).
    const expand = n(['mamba_expand'], 2, 64);
    const dtRankValue = r.find(['mamba_dt_rank'])?.prop.value;
    const dtRank = typeof dtRankValue?.value === 'number' ? n(['mamba_dt_rank'], Math.ceil(h / 16)) : Math.ceil(h / 16);
    return {
      kind: 'mamba1', layers, intermediateSize: expand * h, stateSize: n(['mamba_d_state'], 16), convKernel: n(['mamba_d_conv'], 4, 1024),
      dtRank, numHeads: 0, headDim: 0, nGroups: 0,
      convBias: flag(r, ['mamba_conv_bias'], true), projBias: flag(r, ['mamba_proj_bias'], false), mixerNorm: true, ssmStateDtype: null,
    };
  }
  if (family === 'nemotron_h') {
    // vLLM nemotron_h.py NemotronHMambaDecoderLayer -> MambaMixer2(intermediate_size =
    // mamba_num_heads · mamba_head_dim, n_groups, ssm_state_size, conv_kernel, use_conv_bias, use_bias, use_rms_norm=True).
    const heads = n(['mamba_num_heads'], 128);
    const headDim = n(['mamba_head_dim'], 64);
    return {
      kind: 'mamba2', layers, intermediateSize: heads * headDim, stateSize: n(['ssm_state_size'], 128), convKernel: n(['conv_kernel'], 4, 1024),
      dtRank: 0, numHeads: heads, headDim, nGroups: n(['n_groups'], 8),
      convBias: flag(r, ['use_conv_bias'], true), projBias: flag(r, ['use_bias'], false), mixerNorm: true, ssmStateDtype: ssmDtype(),
      ...chunkSizeOf(r, ['chunk_size']),
    };
  }
  if (LFM2_TYPES.has(family)) {
    // vLLM ShortConv (layers/mamba/short_conv.py), dim = conv_dim: in_proj [dim, 3·dim], conv
    // [dim, conv_L_cache], out_proj [dim, dim], biases with conv_bias (default false); state
    // (mamba_utils.py short_conv_state_shape) (dim / tp, conv_L_cache − 1) in the model dtype.
    return {
      kind: 'shortconv', layers, intermediateSize: n(['conv_dim'], h), stateSize: 0, convKernel: n(['conv_L_cache'], 3, 1024),
      dtRank: 0, numHeads: 0, headDim: 0, nGroups: 0, convBias: flag(r, ['conv_bias'], false), projBias: flag(r, ['conv_bias'], false),
      mixerNorm: false, ssmStateDtype: null,
    };
  }
  if (MINIMAX_TYPES.has(family)) {
    // vLLM MiniMaxText01LinearAttention (layers/mamba/linear_attn.py), built by
    // MiniMaxText01DecoderLayer with hidden_inner_size = head_dim · num_attention_heads (head_dim,
    // else hidden_size / num_attention_heads): qkv_proj [h, 3·I], output_gate [h, I], out_proj
    // [I, h], no biases, MiniMaxText01RMSNormTP(I); state (mamba_utils.py
    // linear_attention_state_shape) (heads / tp, head_dim, head_dim) in the model dtype
    // (linear_attention_state_dtype: --mamba-cache-dtype auto).
    const heads = numHeads ?? 64;
    const headDim = n(['head_dim'], Math.floor(h / heads));
    return {
      kind: 'lightning', layers, intermediateSize: heads * headDim, stateSize: headDim, convKernel: 0,
      dtRank: 0, numHeads: heads, headDim, nGroups: 0, convBias: false, projBias: false, mixerNorm: true, ssmStateDtype: null,
    };
  }
  if (GDN_FAMILIES.has(family)) {
    // vLLM Qwen3NextGatedDeltaNet (Qwen3.5: GatedDeltaNetAttention, the same weights; its
    // checkpoint's in_proj_qkv + in_proj_z and in_proj_b + in_proj_a are loaded fused): in_proj_qkvz [h, 2·key_dim + 2·value_dim], in_proj_ba
    // [h, 2·num_v_heads], conv1d [key_dim · 2 + value_dim, K] without bias, dt_bias and A_log
    // [num_v_heads], RMSNormGated(head_v_dim), out_proj [value_dim, h], no biases; state
    // (mamba_utils.py gated_delta_net_state_shape): conv (2·key_dim + value_dim, K − 1), recurrent
    // (num_v_heads, head_v_dim, head_k_dim). transformers Qwen3NextConfig defaults: K 4, head dims
    // 128, 16 key heads, 32 value heads.
    const vHeads = n(['linear_num_value_heads'], 32);
    const vDim = n(['linear_value_head_dim'], 128);
    return {
      kind: 'gdn', layers, intermediateSize: vHeads * vDim, stateSize: n(['linear_key_head_dim'], 128), convKernel: n(['linear_conv_kernel_dim'], 4, 1024),
      dtRank: 0, numHeads: vHeads, headDim: vDim, nGroups: n(['linear_num_key_heads'], 16),
      convBias: false, projBias: false, mixerNorm: true, ssmStateDtype: ssmDtype(),
    };
  }
  if (family === 'zamba2') {
    // transformers Zamba2Config: mamba_headdim 64, mamba_ngroups 1, mamba_d_state 64, mamba_d_conv 4, mamba_expand 2, add_bias_linear false.
    const inner = n(['mamba_expand'], 2, 64) * h;
    const headDim = n(['mamba_headdim'], 64);
    return {
      kind: 'mamba2', layers, intermediateSize: inner, stateSize: n(['mamba_d_state', 'state_size'], 64), convKernel: n(['mamba_d_conv'], 4, 1024),
      dtRank: 0, numHeads: n(['n_mamba_heads'], Math.floor(inner / headDim)), headDim, nGroups: n(['mamba_ngroups'], 1),
      convBias: true, projBias: flag(r, ['add_bias_linear'], false), mixerNorm: true, ssmStateDtype: null,
      ...chunkSizeOf(r, ['chunk_size']),
    };
  }
  // Bamba, GraniteMoeHybrid (vLLM bamba.py / granitemoehybrid.py: MambaMixer2(intermediate_size =
  // mamba_expand · hidden, mamba_n_groups, mamba_d_state, mamba_d_conv, mamba_conv_bias,
  // mamba_proj_bias, mamba_n_heads, mamba_d_head, use_rms_norm=True)) and Falcon-H1 (falcon_h1.py:
  // intermediate_size = mamba_d_ssm, else mamba_expand · hidden; the gated norm when mamba_rms_norm).
  // BambaConfig defaults: n_heads 128, d_head "auto" (= inner / n_heads), n_groups 1, d_state 256, d_conv 4, expand 2.
  const dSsm = family === 'falcon_h1' ? r.num(null, ['mamba_d_ssm'], { max: MAX_WIDTH }) : undefined;
  const inner = dSsm ?? n(['mamba_expand'], 2, 64) * h;
  const heads = n(['mamba_n_heads'], 128);
  const dHead = r.find(['mamba_d_head'])?.prop.value;
  const headDim = typeof dHead?.value === 'number' ? n(['mamba_d_head'], Math.floor(inner / heads)) : Math.floor(inner / heads);
  if (heads * headDim !== inner && family !== 'falcon_h1') {
    r.problem('error', 'invalid-value', `mamba_n_heads ${heads} · mamba_d_head ${headDim} = ${heads * headDim} must be the Mamba inner width mamba_expand · hidden_size = ${inner}`, headsRange, { key: 'mamba_d_head' });
  }
  return {
    kind: 'mamba2', layers, intermediateSize: inner, stateSize: n(['mamba_d_state'], 256), convKernel: n(['mamba_d_conv'], 4, 1024),
    dtRank: 0, numHeads: heads, headDim, nGroups: n(['mamba_n_groups'], 1),
    convBias: flag(r, ['mamba_conv_bias'], true), projBias: flag(r, ['mamba_proj_bias'], false),
    mixerNorm: family === 'falcon_h1' ? flag(r, ['mamba_rms_norm'], false) : true, ssmStateDtype: null,
    ...chunkSizeOf(r, ['mamba_chunk_size']),
  };
}

/** Mamba-2's SSD chunk size from the first of `keys` the config gives as a positive integer ({@link MambaSpec.chunkSize}); {} without one. */
function chunkSizeOf(r: KeyReader, keys: string[]): { chunkSize?: number } {
  const v = r.num(null, keys, { max: MAX_WIDTH });
  return v !== undefined && Number.isInteger(v) && v > 0 ? { chunkSize: v } : {};
}
