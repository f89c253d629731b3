/**
 * HuggingFace config.json -> ModelSpec. Resolves the key aliases real configs use (GPT-2,
 * Falcon, DistilBERT, T5-style names), nested `text_config`, the defaults transformers' config
 * classes apply when a key is absent, and reports every problem as a value at the range of the
 * key that causes it. The family tables are in families.ts, the key reader in keys.ts,
 * quantization_config in quantization.ts.
 */
import {
  ALIASES, BIASED_TYPES, DTYPE_NAMES, ENCODER_DECODER_TYPES, ENCODER_TYPES, FAMILY_BOOL_DEFAULTS, FAMILY_DEFAULTS, FAMILY_OF_MODEL_TYPE, FOUR_H_MLP_TYPES, FOUR_NORM_TYPES,
  LAYER_KINDS, LAYERNORM_TYPES, LEARNED_POSITION_TYPES, LLAMA4_TYPES, PLAIN_MLP_TYPES, QK_NORM_TYPES,
  QKV_BIAS_TYPES, TEXT_CONFIG_DEFAULTS, UNTIED_BY_DEFAULT, type LayerKind,
} from './families';
import { isConfigPath } from './fileKinds';
import { GEMMA3N_TYPES, gemma3nTowers, readGemma3n } from './gemma3n';
import { describe, KeyReader, MAX_HEADS, MAX_LAYERS, MAX_WIDTH, MAX_WINDOW } from './keys';
import { GDN_FAMILIES, MINIMAX_TYPES, mixerNames, readMamba } from './mamba';
import { alignmentProblem, readQuantization } from './quantization';
import { OTHER_ENCODERS, readVisionTower } from './vision';
import { formatCount } from '../format';
import { closestMatch } from './suggest';
import { getProperty, parseJsonTree, type ParsedTree, type ValueNode } from './tree';
import type { AttentionKind, ContextLengthKeys, Dtype, MlaSpec, ModelSpec, MoeSpec, ReadResult, SourceRange } from './types';

/**
 * Builds a ModelSpec from a parsed HF config (a config.json root, or a profile's inline
 * `model:` mapping). Problems' ranges are into the text `root` was parsed from. The value is
 * null when an error-severity problem makes the numbers untrustworthy.
 */
export function modelSpecFromTree(root: ValueNode): ReadResult<ModelSpec> {
  if (root.type !== 'object') {
    return {
      value: null,
      problems: [{ severity: 'error', code: 'not-an-object', message: `a model config must be a JSON object of HuggingFace keys, not ${describe(root)}`, range: root.range }],
    };
  }
  const anchor: SourceRange = { offset: root.range.offset, length: Math.min(1, root.range.length) };
  // InternVL's own configs (internvl_chat) nest the text model as llm_config (transformers'
  // InternVLConfig reads it as text_config).
  const textKey = getProperty(root, 'text_config') ? 'text_config' : getProperty(root, 'llm_config') ? 'llm_config' : 'text_config';
  const textConfig = getProperty(root, textKey);
  const scopes = textConfig && textConfig.value.type === 'object'
    ? [{ node: textConfig.value, prefix: `${textKey}.` }, { node: root, prefix: '' }]
    : [{ node: root, prefix: '' }];
  const r = new KeyReader(scopes, anchor);

  // Identity.
  const architectures: string[] = [];
  const archFound = r.find(['architectures']);
  if (archFound) {
    const v = archFound.prop.value;
    if (v.type === 'array') {
      for (const item of v.items ?? []) {
        if (item.type === 'string') architectures.push(String(item.value));
        else r.problem('error', 'wrong-type', `"architectures" entries must be class names, not ${describe(item)}`, item.range, { key: archFound.path });
      }
    } else {
      r.problem('error', 'wrong-type', `"architectures" must be an array of class names, not ${describe(v)}`, v.range, { key: archFound.path });
    }
  }
  const modelTypeFound = r.str(['model_type']);
  const modelType = modelTypeFound ?? architectures[0] ?? '';
  if (modelTypeFound === undefined && architectures.length === 0) {
    r.problem('warning', 'not-a-model-config', 'no "model_type" or "architectures": this does not look like a HuggingFace config.json; family defaults (tied embeddings, biases) cannot be applied', anchor);
  }
  // The written model_type, lower case (its own boolean defaults), and the family it is read as.
  const writtenType = (modelTypeFound ?? '').toLowerCase();
  const family = FAMILY_OF_MODEL_TYPE[writtenType] ?? writtenType;
  r.familyDefaults = FAMILY_DEFAULTS[family] ?? (scopes.length > 1 ? TEXT_CONFIG_DEFAULTS[family] : undefined) ?? {};
  const archText = architectures.join(' ');
  const isEncoder = ENCODER_TYPES.has(family)
    || (family === '' && /For(MaskedLM|SequenceClassification|TokenClassification)\b/.test(archText) && !/CausalLM/.test(archText));
  r.sourceKeys.modelType = modelTypeFound !== undefined ? r.find(['model_type'])?.path ?? 'model_type' : 'architectures';
  if (isEncoder) r.sourceKeys.isEncoder = r.sourceKeys.modelType;
  if (r.bool(['is_encoder_decoder']) === true || ENCODER_DECODER_TYPES.has(family)) {
    const at = r.find(['is_encoder_decoder']) ?? r.find(['model_type']);
    r.problem(
      'error', 'encoder-decoder',
      `${modelType || 'this model'} is an encoder-decoder model: AttnScope models decoder-only and encoder-only ones; read as a decoder, its encoder's weights and the cross-attention KV of every encoder token would be left out, so it gives no figures`,
      at ? at.prop.value.range : anchor,
    );
  }

  // Required sizes.
  const hiddenSize = r.num('hiddenSize', [...ALIASES.hiddenSize, 'n_embed'], { max: MAX_WIDTH });
  const numLayers = r.num('numLayers', ALIASES.numLayers, { max: MAX_LAYERS });
  const numHeads = r.num('numHeads', ALIASES.numHeads, { max: MAX_HEADS });
  const vocabSize = r.num('vocabSize', ALIASES.vocabSize, { max: MAX_WIDTH });
  const required: Array<[unknown, keyof ModelSpec, readonly string[], string]> = [
    [hiddenSize, 'hiddenSize', ALIASES.hiddenSize, 'the model width sizes every projection'],
    [numLayers, 'numLayers', ALIASES.numLayers, 'the layer count multiplies KV cache and weights'],
    [numHeads, 'numHeads', ALIASES.numHeads, 'the query head count sizes attention'],
    [vocabSize, 'vocabSize', ALIASES.vocabSize, 'the vocabulary sizes the embedding and lm_head'],
  ];
  for (const [value, field, keys, why] of required) {
    if (value === undefined && !r.find(keys)) r.missing(field, [keys[0]!], why);
  }

  // Heads: num_key_value_heads, Falcon's multi_query / new_decoder_architecture.
  const kvFound = r.find(ALIASES.numKvHeads);
  const kvCount = r.num('numKvHeads', ALIASES.numKvHeads, { max: MAX_HEADS });
  const boolDefaults = FAMILY_BOOL_DEFAULTS[writtenType] ?? {};
  const multiQueryWritten = r.bool(['multi_query']);
  const multiQuery = multiQueryWritten ?? boolDefaults['multi_query'];
  const newDecoderArch = r.bool(['new_decoder_architecture']) ?? boolDefaults['new_decoder_architecture'];
  let numKvHeads = kvCount ?? numHeads;
  if (multiQuery === true && newDecoderArch !== true) {
    if (kvCount !== undefined && kvCount !== 1) {
      // Not a contradiction to fix: transformers ignores num_kv_heads here (stock falcon-7b
      // configs carry both). Say so, at the ignored key; the only quick fix removes that key,
      // which leaves what transformers loads unchanged.
      const where = multiQueryWritten === true ? '"multi_query": true' : `"multi_query" (absent: ${writtenType}'s default is true)`;
      r.problem(
        'info', 'multi-query-conflict',
        `"${kvFound?.prop.key ?? 'num_key_value_heads'}": ${kvCount} is ignored: with ${where} and no "new_decoder_architecture", transformers' Falcon uses 1 KV head (MQA)`,
        kvFound?.prop.value.range ?? anchor, { key: kvFound?.path, kvHeads: kvCount },
      );
    }
    numKvHeads = 1;
    r.sourceKeys.numKvHeads = multiQueryWritten === true ? 'multi_query' : r.sourceKeys.modelType;
  }
  if (numHeads !== undefined && numKvHeads !== undefined && numHeads % numKvHeads !== 0) {
    const at = r.find(ALIASES.numKvHeads) ?? r.find(['multi_query']);
    r.problem(
      'error', 'heads-not-divisible',
      `${numHeads} attention heads cannot be shared evenly by ${numKvHeads} KV heads: num_attention_heads must be a multiple of num_key_value_heads (divisors: ${divisors(numHeads).join(', ')})`,
      at ? at.prop.value.range : anchor, { numHeads, numKvHeads, suggestions: divisors(numHeads) },
    );
  }

  // MLA (DeepSeek-V2/V3): compressed latent KV.
  let mla: MlaSpec | null = null;
  const kvLoraRank = r.num(null, ['kv_lora_rank']);
  if (kvLoraRank !== undefined) {
    const qkRope = r.num(null, ['qk_rope_head_dim']);
    const qkNope = r.num(null, ['qk_nope_head_dim'], { min: 0 });
    const vHead = r.num(null, ['v_head_dim']);
    const qLora = r.num(null, ['q_lora_rank']);
    for (const [v, key] of [[qkRope, 'qk_rope_head_dim'], [qkNope, 'qk_nope_head_dim'], [vHead, 'v_head_dim']] as const) {
      if (v === undefined && !r.find([key])) r.missing(key, [key], 'MLA ("kv_lora_rank") needs the rope, nope and value head sizes');
    }
    if (qkRope !== undefined && qkNope !== undefined && vHead !== undefined) {
      mla = { kvLoraRank, qLoraRank: qLora ?? null, qkRopeHeadDim: qkRope, qkNopeHeadDim: qkNope, vHeadDim: vHead };
    }
  } else {
    // The other MLA sizes without the latent rank: not plain GQA, and the KV cache cannot be sized.
    const other = r.find(['qk_rope_head_dim', 'qk_nope_head_dim']);
    if (other && !r.find(['kv_lora_rank'])) {
      r.problem(
        'error', 'missing-field',
        `missing "kv_lora_rank": "${other.prop.key}" is a key of MLA (DeepSeek-V2/V3 latent attention), whose KV cache per token is kv_lora_rank + qk_rope_head_dim; without it this would be read as plain attention`,
        other.prop.keyRange, { key: 'kv_lora_rank', field: 'kvLoraRank' },
      );
    }
  }

  // head_dim: explicit, MLA's q·k width, or hidden / heads.
  const explicitHeadDim = r.num('headDim', ALIASES.headDim, { max: MAX_WIDTH });
  let headDim: number | undefined = explicitHeadDim;
  if (mla) {
    headDim = mla.qkNopeHeadDim + mla.qkRopeHeadDim;
    r.sourceKeys.headDim = 'qk_rope_head_dim';
  } else if (headDim === undefined && hiddenSize !== undefined && numHeads !== undefined) {
    if (hiddenSize % numHeads !== 0) {
      const at = r.find(ALIASES.numHeads);
      r.problem(
        'error', 'hidden-not-divisible',
        `hidden_size ${hiddenSize} is not a multiple of ${numHeads} heads and no "head_dim" is given: add "head_dim", or fix the head count`,
        at?.prop.value.range ?? anchor, { hiddenSize, numHeads },
      );
    } else {
      headDim = hiddenSize / numHeads;
    }
  }

  // Sliding window: sliding_window + use_sliding_window + layer_types / sliding_window_pattern.
  // At most 2^31 − 1: the simulator and the kernels hold the window as an int32 (vLLM's
  // window_size too); a larger one died there with a RangeError, exit 1 (s37 fix37 Left).
  let windowValue = r.num('slidingWindow', ['sliding_window', 'sliding_window_size'], { max: MAX_WINDOW });
  const useSliding = r.bool(['use_sliding_window']);
  const layerTypes: LayerKind[] = [];
  const layerTypesFound = r.find(['layer_types']);
  let sawSliding = false;
  if (layerTypesFound) {
    const v = layerTypesFound.prop.value;
    if (v.type !== 'array') {
      r.problem('error', 'wrong-type', `"layer_types" must be an array of "full_attention" / "sliding_attention", not ${describe(v)}`, v.range, { key: layerTypesFound.path });
    } else {
      const unknown = new Map<string, { count: number; range: SourceRange }>();
      let sawChunked = false;
      for (const item of v.items ?? []) {
        const kind = typeof item.value === 'string' ? LAYER_KINDS[item.value] : undefined;
        if (kind === undefined) {
          const name = JSON.stringify(item.value);
          const seen = unknown.get(name);
          if (seen) seen.count++;
          else unknown.set(name, { count: 1, range: item.range });
        }
        if (kind === 'sliding') sawSliding = true;
        if (item.value === 'chunked_attention') sawChunked = true;
        layerTypes.push(kind ?? 'full');
      }
      for (const [name, { count, range }] of unknown) {
        r.problem('warning', 'unknown-layer-type', `layer type ${name} (${count} layer${count > 1 ? 's' : ''}) is not one AttnScope knows; sized as full attention`, range);
      }
      if (numLayers !== undefined && layerTypes.length !== numLayers) {
        r.problem(
          'error', 'layer-types-length',
          `"layer_types" lists ${layerTypes.length} layers but num_hidden_layers is ${numLayers}`,
          v.range, { expected: numLayers, actual: layerTypes.length },
        );
      }
      if (sawChunked && windowValue === undefined) windowValue = r.num('slidingWindow', ['attention_chunk_size'], { max: MAX_WINDOW });
      if (sawSliding && windowValue === undefined) {
        r.problem('error', 'missing-sliding-window', '"layer_types" has sliding_attention layers but no "sliding_window" says how many tokens they keep', v.range);
      }
    }
  }
  let slidingWindow: number | null = null;
  const L = numLayers ?? 0;
  const chunk = LLAMA4_TYPES.has(family) ? r.num(null, ['attention_chunk_size'], { max: MAX_WINDOW }) : undefined;
  if (chunk !== undefined && !layerTypesFound) {
    // Llama 4 chunked local attention: a RoPE layer attends within its chunk, so it holds at
    // most attention_chunk_size tokens; NoPE layers (no_rope_layers[i] == 0, by default every
    // 4th) are global. Sized as a sliding window of the chunk.
    const noRope = r.find(['no_rope_layers'])?.prop.value;
    const flags = noRope?.type === 'array' ? (noRope.items ?? []).map((n) => n.value) : [];
    for (let i = 0; i < L; i++) {
      const usesRope = flags.length === L ? flags[i] !== 0 : (i + 1) % 4 !== 0;
      layerTypes.push(usesRope ? 'sliding' : 'full');
    }
    slidingWindow = chunk;
    r.sourceKeys.slidingWindow = r.find(['attention_chunk_size'])?.path;
    r.sourceKeys.layerTypes = r.find(['no_rope_layers'])?.path ?? r.sourceKeys.slidingWindow;
  } else if (windowValue !== undefined && useSliding !== false && (!layerTypesFound || sawSliding)) {
    slidingWindow = windowValue;
    if (!layerTypesFound) {
      const pattern = r.num(null, ['sliding_window_pattern']);
      // Qwen2 / Qwen3 (transformers' Qwen2Config.layer_types): with use_sliding_window, only
      // layers i >= max_window_layers slide. vLLM applies the window to every layer and refuses
      // a config where max_window_layers < num_hidden_layers (vllm/model_executor/models/qwen2.py:
      // "Sliding window for some but all layers is not supported").
      const maxWindowLayers = useSliding === true && pattern === undefined ? r.num(null, ['max_window_layers'], { min: 0 }) : undefined;
      const firstSliding = maxWindowLayers !== undefined && maxWindowLayers < L ? maxWindowLayers : 0;
      for (let i = 0; i < L; i++) {
        // Gemma-3: every pattern-th layer is global. Gemma-2: even layers slide (is_sliding =
        // not bool(layer_idx % 2)). Mistral v0.1 and others: every layer slides.
        const sliding = pattern !== undefined ? (i + 1) % pattern !== 0 : family === 'gemma2' ? i % 2 === 0 : i >= firstSliding;
        layerTypes.push(sliding ? 'sliding' : 'full');
      }
      if (pattern !== undefined) r.sourceKeys.layerTypes = r.find(['sliding_window_pattern'])?.path ?? 'sliding_window_pattern';
      if (firstSliding > 0) {
        const at = r.find(['max_window_layers']);
        r.sourceKeys.layerTypes = at?.path ?? 'max_window_layers';
        r.problem(
          'warning', 'partial-sliding-window',
          `vLLM refuses to load this config: with use_sliding_window, max_window_layers ${firstSliding} < num_hidden_layers ${L} makes only some layers slide ("Sliding window for some but all layers is not supported", vllm/model_executor/models/qwen2.py). Sized as transformers' Qwen2Config.layer_types does: layers ${firstSliding}–${L - 1} slide over ${windowValue} tokens, layers 0–${firstSliding - 1} hold every token`,
          at?.prop.value.range ?? anchor, { maxWindowLayers: firstSliding, numLayers: L },
        );
      }
    }
  }
  if (layerTypes.length !== L) {
    // No layer_types, no window (or layer_types of the wrong length, reported above): all full.
    slidingWindow = null;
    layerTypes.length = 0;
    for (let i = 0; i < L; i++) layerTypes.push('full');
  } else if (slidingWindow === null) {
    // Sliding layers without a window in force (Qwen2's use_sliding_window: false) are full.
    for (let i = 0; i < L; i++) if (layerTypes[i] === 'sliding') layerTypes[i] = 'full';
  }
  if (layerTypesFound && layerTypes.length === L && (slidingWindow !== null || layerTypes.includes('linear'))) {
    r.sourceKeys.layerTypes = layerTypesFound.path;
  }
  // Hybrid Mamba / attention families: their own keys say which layers attend.
  const hybrid = readMamba(r, family, L, hiddenSize ?? 0, numHeads, layerTypesFound && layerTypes.length === L ? layerTypes : null, r.find(['model_type'])?.prop.value.range ?? anchor);
  if (hybrid.layerTypes && hybrid.layerTypes.length === L) {
    layerTypes.splice(0, L, ...hybrid.layerTypes);
    if (!layerTypes.includes('sliding')) slidingWindow = null;
  }
  if (hybrid.headDim !== null && explicitHeadDim === undefined) headDim = hybrid.headDim;
  const mamba = hybrid.mamba;
  const linearLayers = layerTypes.filter((t) => t === 'linear').length;
  if (linearLayers > 0) {
    const at = (r.sourceKeys.layerTypes ? r.ranges[r.sourceKeys.layerTypes] : undefined) ?? anchor;
    const attending = L - linearLayers;
    const names = mamba ? mixerNames(mamba, family) : null;
    // No layer left attending (Qwen3-Next with full_attention_interval above num_hidden_layers): no KV at all, and no encoder either.
    const kv = attending === 0 ? 'no layer attends, so there is no per-token KV cache' : `only the ${attending} attention layer${attending === 1 ? '' : 's'} keep a per-token KV cache`;
    const what = mamba && names
      ? `${mamba.layers.length} of ${L} layers are ${names.layer} layers${linearLayers > mamba.layers.length ? ` and ${linearLayers - mamba.layers.length} are MLP-only blocks` : ''}: ${kv}; each ${names.layer} layer keeps a constant ${names.states.join(' + ')} state per sequence instead (vLLM takes it from the KV pool, a state block per Mamba KV-cache group padded to an attention page, and raises the attention block size until a page holds a state; the page, pool, concurrency and simulation figures here count both), and its parameters are counted as vLLM's ${names.vllmClass} builds them`
      : `${linearLayers} of ${L} layers are linear-attention / state-space layers: they keep a constant state, not a per-token KV cache, so ${attending === 0 ? 'no layer counts' : `only the other ${attending} layers count`} toward KV bytes; their parameters are approximated by attention shapes and their state is not counted`;
    r.problem('info', 'linear-attention-layers', what, at, { linearLayers });
  }
  if (hybrid.paramsApproximated) {
    r.problem('warning', 'params-approximated', `parameters approximated: ${hybrid.paramsApproximated}`, r.find(['model_type'])?.prop.value.range ?? anchor);
  }
  if (slidingWindow === null) delete r.sourceKeys.slidingWindow;

  // MLP and MoE.
  const llama4 = LLAMA4_TYPES.has(family);
  // Gemma 3n: an MLP width per layer, per-layer embeddings, AltUp / LAuReL, KV sharing (gemma3n.ts).
  const g3n = GEMMA3N_TYPES.has(family) ? readGemma3n(r, numLayers) : null;
  // Llama 4 names the expert width intermediate_size and the dense MLP intermediate_size_mlp.
  const interFound = g3n
    ? (g3n.intermediateSizes ? Math.max(...g3n.intermediateSizes) : undefined)
    : r.num('intermediateSize', llama4 ? ['intermediate_size_mlp', ...ALIASES.intermediateSize] : ALIASES.intermediateSize, { max: MAX_WIDTH });
  const moeInter = r.num(null, llama4 ? ['intermediate_size'] : ['moe_intermediate_size'], { max: MAX_WIDTH });
  const numExperts = r.num(null, ALIASES.numExperts, { min: 0 });
  let moe: MoeSpec | null = null;
  const nullExperts = numExperts === undefined ? scopes.flatMap(({ node }) => ALIASES.numExperts.map((k) => getProperty(node, k))).find((p) => p?.value.type === 'null') : undefined;
  if (nullExperts && r.find([...ALIASES.numExpertsPerTok, 'moe_intermediate_size'])) {
    // DeepSeek-V3 with "n_routed_experts": null: transformers keeps None, and vLLM's deepseek_v2.py
    // builds a layer's MoE only when n_routed_experts is not None, so every layer gets the dense MLP.
    r.problem('warning', 'experts-null', `"${nullExperts.key}" is null, so no layer has experts: every layer is counted as a dense MLP of intermediate_size, as vLLM builds it (deepseek_v2.py makes a layer MoE only when n_routed_experts is not None), though the config names ${r.find(ALIASES.numExpertsPerTok) ? 'experts per token' : 'an expert width'}; write the expert count for the MoE model`, nullExperts.value.range, { key: nullExperts.key });
  }
  if (numExperts !== undefined && numExperts > 0) {
    const topk = r.num(null, ALIASES.numExpertsPerTok);
    if (topk === undefined && !r.find(ALIASES.numExpertsPerTok)) {
      r.missing('numExpertsPerTok', ['num_experts_per_tok'], `${numExperts} experts are listed but not how many each token uses`);
    } else if (topk !== undefined && topk > numExperts) {
      const at = r.find(ALIASES.numExpertsPerTok);
      r.problem('error', 'experts-per-tok-exceeds', `each token cannot use ${topk} of ${numExperts} experts: num_experts_per_tok must be at most the expert count`, at?.prop.value.range ?? anchor, { numExperts, numExpertsPerTok: topk });
    }
    const expertInter = moeInter ?? interFound;
    const nShared = r.num(null, ['n_shared_experts', 'num_shared_experts'], { min: 0 });
    const sharedInter = r.num(null, ['shared_expert_intermediate_size'], { min: 0 });
    const mlpOnly: number[] = [];
    const mlpOnlyFound = r.find(['mlp_only_layers']);
    if (mlpOnlyFound?.prop.value.type === 'array') {
      for (const item of mlpOnlyFound.prop.value.items ?? []) if (typeof item.value === 'number') mlpOnly.push(item.value);
    }
    const topkMethod = r.str(['topk_method']);
    if (topk !== undefined && expertInter !== undefined) {
      moe = {
        numExperts,
        numExpertsPerTok: topk,
        expertIntermediateSize: expertInter,
        numSharedExperts: nShared ?? (sharedInter || llama4 ? 1 : 0),
        sharedExpertIntermediateSize: sharedInter ?? (nShared || llama4 ? expertInter : 0),
        firstDenseLayers: r.num(null, ['first_k_dense_replace'], { min: 0 }) ?? 0,
        layerFrequency: hybrid.expertPeriod?.period ?? r.num(null, ['moe_layer_freq', 'decoder_sparse_step', 'interleave_moe_layer_step']) ?? 1,
        ...(hybrid.expertPeriod ? { layerOffset: hybrid.expertPeriod.offset } : {}),
        mlpOnlyLayers: hybrid.moeLayers ? Array.from({ length: L }, (_, i) => i).filter((i) => !hybrid.moeLayers!.includes(i)) : mlpOnly,
        routerBias: family === 'gpt_oss' || topkMethod === 'noaux_tc',
        sharedExpertGate: (family === 'qwen2_moe' || GDN_FAMILIES.has(family)) && (sharedInter ?? 0) > 0,
      };
    } else if (expertInter === undefined) {
      r.missing('intermediateSize', ['moe_intermediate_size'], 'the size of one expert MLP is needed for parameter counts');
    }
  }
  let intermediateSize = hybrid.mlpIntermediateSize ?? interFound ?? moe?.expertIntermediateSize;
  if (intermediateSize === undefined && hiddenSize !== undefined && family === 'mpt') {
    // MPT: the MLP is expansion_ratio · d_model wide (MPTConfig's default 4; vLLM mpt.py MPTMLP:
    // intermediate_size = config.expansion_ratio * hidden_size).
    const ratio = r.num('intermediateSize', ['expansion_ratio'], { integer: false, min: Number.MIN_VALUE, max: Math.floor(MAX_WIDTH / hiddenSize) });
    intermediateSize = Math.round((ratio ?? 4) * hiddenSize);
  }
  if (intermediateSize === undefined && hiddenSize !== undefined && !g3n) {
    intermediateSize = 4 * hiddenSize;
    // Present but invalid: its error already stands at the value; "no intermediate_size" would contradict it.
    const present = r.find(llama4 ? ['intermediate_size_mlp', ...ALIASES.intermediateSize] : ALIASES.intermediateSize) !== undefined;
    if (!FOUR_H_MLP_TYPES.has(family) && !present) {
      r.problem('warning', 'missing-field', `no "intermediate_size": assuming 4 · hidden_size = ${intermediateSize} for parameter counts`, anchor, { key: 'intermediate_size' });
    }
  }

  // Embeddings, biases, norms.
  const tieFound = r.bool(['tie_word_embeddings']);
  // Without a model_type (an inline profile model), read it as the Llama-style decoder most
  // configs are: untied.
  const tieWordEmbeddings = tieFound ?? (family !== '' && !UNTIED_BY_DEFAULT.has(family));
  if (tieFound !== undefined) r.sourceKeys.tieWordEmbeddings = r.find(['tie_word_embeddings'])?.path;
  const attnBiasKey = r.bool(['attention_bias', 'bias', 'use_bias', 'add_bias_linear']);
  const qkvBiasKey = r.bool(['qkv_bias', 'add_qkv_bias']);
  const attentionBias = qkvBiasKey ?? attnBiasKey ?? (BIASED_TYPES.has(family) || QKV_BIAS_TYPES.has(family));
  const attentionOutputBias = attnBiasKey ?? BIASED_TYPES.has(family);
  const mlpBias = r.bool(['mlp_bias']) ?? r.bool(['bias', 'use_bias', 'add_bias_linear']) ?? (BIASED_TYPES.has(family) || family === 'gpt_oss');
  const maxPositionEmbeddings = r.num('maxPositionEmbeddings', ALIASES.maxPositionEmbeddings) ?? null;
  const contextLength = readContextLength(r, maxPositionEmbeddings);
  const positionEmbeddingRows = LEARNED_POSITION_TYPES.has(family) ? (maxPositionEmbeddings ?? 0) + (family === 'opt' ? 2 : 0) : 0;
  const typeVocabSize = isEncoder ? r.num(null, ['type_vocab_size'], { min: 0 }) ?? 0 : 0;

  // dtype of the published weights.
  let torchDtype: Dtype | null = null;
  // The top level speaks for the checkpoint; text_config's may differ (gemma-3-12b-it: float32 there, bfloat16 above).
  const dtypeFound = r.findRootFirst(ALIASES.torchDtype);
  if (dtypeFound) {
    const v = dtypeFound.prop.value;
    const name = typeof v.value === 'string' ? v.value.replace(/^torch\./, '').toLowerCase() : '';
    torchDtype = DTYPE_NAMES[name] ?? null;
    // Named, known or not: defaultDtype then never says the config names none.
    r.sourceKeys.torchDtype = dtypeFound.path;
    if (!torchDtype) {
      const suggestion = dtypeTypo(name);
      r.problem('warning', 'unknown-dtype', `"${dtypeFound.prop.key}": ${JSON.stringify(v.value)} is not float32, float16 or bfloat16${suggestion ? `: did you mean "${suggestion}"?` : ''}; the profile's dtype (default bf16) is used`, v.range, suggestion ? { key: dtypeFound.path, suggestion } : { key: dtypeFound.path });
    }
  }

  const quantization = readQuantization(r);

  if (r.defaulted.length > 0) {
    r.problem('info', 'family-defaults', `not in the config, taken from transformers' ${family} defaults: ${r.defaulted.join(', ')}`, anchor, { defaults: r.defaulted });
  }
  if (isEncoder) {
    r.problem('info', 'encoder-no-kv-cache', `${modelType || 'this model'} is an encoder: it attends over the whole input at once and keeps no KV cache, so KV and page-pool sizes are 0`, anchor);
  }

  const crossAttentionLayers = readCrossAttentionLayers(r, L, root);

  const softcap = r.num('attnLogitSoftcapping', ['attn_logit_softcapping'], { integer: false, min: 0 });
  r.reportTypos();
  // Read before the verdict so that a bad tower size is refused beside the text config's problems
  // (hiddenSize only sizes the projector, and the value is dropped when any is an error).
  const vision = g3n ? gemma3nTowers(root, hiddenSize ?? 1) : readVisionTower(root, rootModelType(root), hiddenSize ?? 1, r.problems);
  if (g3n?.spec && numLayers !== undefined) {
    const shared = g3n.numKvSharedLayers;
    const at = r.find(['num_kv_shared_layers']);
    r.problem(
      'info', 'kv-shared-layers',
      `Gemma 3n: the per-layer embeddings (vocab_size_per_layer_input ${formatCount(g3n.spec.vocabSizePerLayerInput)} × ${numLayers} layers × hidden_size_per_layer_input ${g3n.spec.hiddenSizePerLayerInput}), AltUp, LAuReL and the per-layer MLP widths are counted as vLLM's gemma3n.py builds them${shared > 0 ? `; the last ${shared} of ${numLayers} layers read the KV of an earlier layer (vLLM kv_sharing_target_layer_name) and hold none of their own, so the KV cache, pages and pool count the first ${numLayers - shared}` : ''}`,
      at?.prop.keyRange ?? r.find(['model_type'])?.prop.value.range ?? anchor, { numKvSharedLayers: shared },
    );
  }
  if (vision && (vision.params === null || vision.projectorParams === null || / is not counted/.test(vision.note))) {
    // A tower, projector or encoder whose weights are left out: said at its key, not only in the estimate's notes.
    const key = ['vision_config', ...OTHER_ENCODERS.map(([k]) => k)].map((k) => getProperty(root, k)).find((p) => p !== undefined);
    r.problem('info', 'encoder-not-counted', vision.note, key?.keyRange ?? anchor);
  }
  const hasError = r.problems.some((p) => p.severity === 'error');
  if (hasError || hiddenSize === undefined || numLayers === undefined || numHeads === undefined || vocabSize === undefined
    || numKvHeads === undefined || headDim === undefined || intermediateSize === undefined) {
    return { value: null, problems: r.problems };
  }

  const attention: AttentionKind = mla ? 'mla' : numKvHeads === numHeads ? 'mha' : numKvHeads === 1 ? 'mqa' : 'gqa';
  const spec: ModelSpec = {
    modelType,
    architectures,
    isEncoder,
    hiddenSize,
    numLayers,
    numHeads,
    numKvHeads,
    headDim,
    headDimExplicit: explicitHeadDim !== undefined,
    attention,
    mla,
    intermediateSize,
    vocabSize,
    maxPositionEmbeddings,
    contextLength,
    slidingWindow,
    layerTypes,
    moe,
    tieWordEmbeddings,
    gatedMlp: !PLAIN_MLP_TYPES.has(family),
    attentionBias,
    attentionOutputBias,
    mlpBias,
    norm: LAYERNORM_TYPES.has(family) ? 'layernorm' : 'rmsnorm',
    // Gemma 3n: Gemma's four plus post_per_layer_input_norm (vLLM Gemma3nDecoderLayer).
    normsPerLayer: hybrid.normsPerLayer ?? (g3n ? 5 : FOUR_NORM_TYPES.has(family) ? 4 : family === 'falcon' ? falconNormsPerLayer(r, newDecoderArch === true) : 2),
    qkNorm: QK_NORM_TYPES.has(family),
    // vLLM Qwen3NextAttention (Qwen3.5's attention too): attn_output_gate = getattr(config, "attn_output_gate", True).
    ...(GDN_FAMILIES.has(family) ? { attnOutputGate: r.bool(['attn_output_gate']) ?? true } : {}),
    attentionSinks: family === 'gpt_oss',
    ...(softcap ? { attnLogitSoftcapping: softcap } : {}),
    ...(crossAttentionLayers.length > 0 ? { crossAttentionLayers } : {}),
    positionEmbeddingRows,
    typeVocabSize,
    quantization,
    torchDtype,
    vision,
    mamba,
    ...(MINIMAX_TYPES.has(family) ? { fp32Weights: { lmHead: true, router: true } } : {}),
    ...(hybrid.mlpLayers ? { mlpLayers: hybrid.mlpLayers } : {}),
    ...(g3n?.intermediateSizes && new Set(g3n.intermediateSizes).size > 1 ? { intermediateSizes: g3n.intermediateSizes } : {}),
    ...(g3n?.spec ? { gemma3n: g3n.spec } : {}),
    ...(g3n && g3n.numKvSharedLayers > 0 ? { numKvSharedLayers: g3n.numKvSharedLayers } : {}),
    ...(hybrid.paramsApproximated ? { paramsApproximated: hybrid.paramsApproximated } : {}),
    ranges: r.ranges,
    sourceKeys: r.sourceKeys,
  };
  alignmentProblem(r, spec);
  return { value: spec, problems: r.problems };
}

/**
 * mllama's cross_attention_layers (Llama-3.2-11B-Vision: [3, 8, ..., 38], 8 of 40 layers): the
 * layer indices, each checked to be an integer in [0, num_hidden_layers). Said as an info at the
 * key: what is modelled. The parameters count their q / k norms and gates; the KV cache per text
 * token counts every layer, as vLLM's encoder-decoder runner (V0, which served mllama) sized a
 * block across all attention layers (CacheEngine: num_attention_layers, cross-attention layers
 * included); the cross-attention KV of the image's tokens is not charged, and the info gives its
 * size: V0's block manager (SelfAttnBlockSpaceManager.can_allocate) reserves
 * ceil(E / block_size) more blocks of the same pool for a request's encoder sequence, an image
 * being up to E = max_num_tiles · ((image_size / patch_size)² + 1) tokens (vision_config; the
 * class defaults 4 · ((448 / 14)² + 1) = 4,100). vLLM's V1 engine never served mllama.
 */
function readCrossAttentionLayers(r: KeyReader, numLayers: number, root: ValueNode): number[] {
  const found = r.find(['cross_attention_layers']);
  if (!found) return [];
  const v = found.prop.value;
  if (v.type !== 'array') {
    r.problem('error', 'wrong-type', `"cross_attention_layers" must be an array of layer indices, not ${describe(v)}`, v.range, { key: found.path });
    return [];
  }
  const layers: number[] = [];
  for (const item of v.items ?? []) {
    if (typeof item.value !== 'number' || !Number.isInteger(item.value) || item.value < 0 || item.value >= numLayers) {
      r.problem('error', 'invalid-value', `"cross_attention_layers" entries must be layer indices from 0 to ${numLayers - 1}, not ${describe(item)}`, item.range, { key: found.path });
      return [];
    }
    layers.push(item.value);
  }
  const unique = [...new Set(layers)];
  if (unique.length > 0) {
    r.problem(
      'info', 'cross-attention-layers',
      `${unique.length} of ${numLayers} layers are cross-attention layers (mllama): they attend to the image's tokens, not the text's. Their q / k norms and gates are counted; the KV cache per token counts all ${numLayers} layers, as vLLM's encoder-decoder runner sized a block across every attention layer; the image tokens' own cross-attention KV (per request) is not charged: vLLM V0 reserved blocks for up to ${formatCount(imageTokens(root))} more tokens a request for each image (max_num_tiles · ((image_size / patch_size)² + 1))`,
      found.prop.keyRange, { crossAttentionLayers: unique.length },
    );
  }
  return unique;
}

/** mllama: the encoder tokens of one image at most, max_num_tiles · ((image_size / patch_size)² + 1), from vision_config or MllamaVisionConfig's defaults (4, 448, 14). */
function imageTokens(root: ValueNode): number {
  const vision = getProperty(root, 'vision_config')?.value;
  const int = (key: string, fallback: number) => {
    const v = getProperty(vision, key)?.value;
    return v?.type === 'number' && typeof v.value === 'number' && Number.isInteger(v.value) && v.value >= 1 && v.value <= 1 << 16 ? v.value : fallback;
  };
  return int('max_num_tiles', 4) * (Math.floor(int('image_size', 448) / int('patch_size', 14)) ** 2 + 1);
}

/**
 * LayerNorms per Falcon decoder layer, as vLLM's FalconDecoderLayer (and transformers') builds them:
 * 2 (input_layernorm, post_attention_layernorm) without parallel_attn; with it (FalconConfig's
 * default), num_ln_in_parallel_attn of them (ln_attn, ln_mlp), which defaults to 2 under
 * new_decoder_architecture and otherwise leaves one input_layernorm (falcon-7b: 32 · 2 · 4544
 * fewer parameters than two a layer).
 */
function falconNormsPerLayer(r: KeyReader, newDecoderArch: boolean): number {
  if (r.bool(['parallel_attn']) === false) return 2;
  const written = r.num(null, ['num_ln_in_parallel_attn'], { min: 1, max: 2 });
  return (written ?? (newDecoderArch ? 2 : 1)) === 2 ? 2 : 1;
}

/** The top level's model_type, lower case ("gemma3", "llava"): the multimodal family, where text_config names the text one. */
function rootModelType(root: ValueNode): string {
  const v = getProperty(root, 'model_type')?.value;
  return v?.type === 'string' ? String(v.value).toLowerCase() : '';
}

/** The divisors of a positive integer n, ascending (1 and n included). */
export function divisors(n: number): number[] {
  const out: number[] = [];
  for (let d = 1; d <= n; d++) if (n % d === 0) out.push(d);
  return out;
}

/**
 * Reads a HuggingFace config.json. `file` is set on every problem when given (so a profile
 * can pass problems of the config it points at straight through). The value is null when the
 * text has a syntax error or an error-severity problem.
 */
export function readModelConfig(text: string, file?: string): ReadResult<ModelSpec> {
  return readModelConfigTree(parseJsonTree(text), file);
}

/** readModelConfig on text already parsed by parseJsonTree (the language server parses once). */
export function readModelConfigTree(parsed: ParsedTree, file?: string): ReadResult<ModelSpec> {
  const problems = [...parsed.problems];
  let value: ModelSpec | null = null;
  if (!parsed.root) {
    if (problems.length === 0) {
      problems.push({ severity: 'error', code: 'json-syntax', message: 'the file is empty: a config.json is a JSON object of HuggingFace keys', range: { offset: 0, length: 0 } });
    }
  } else {
    const read = guarded(() => modelSpecFromTree(parsed.root!));
    problems.push(...read.problems);
    if (!parsed.problems.some((p) => p.severity === 'error')) value = read.value;
  }
  if (file !== undefined) for (const p of problems) p.file = file;
  return { value, problems };
}

/**
 * Runs a reader and turns an exception (a bug: readers report problems as values) into an
 * 'internal-error' problem, so an editor or CLI never crashes on a file it cannot read.
 */
export function guarded<T>(read: () => ReadResult<T>): ReadResult<T> {
  try {
    return read();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return {
      value: null,
      problems: [{ severity: 'error', code: 'internal-error', message: `AttnScope failed to read this file (please report it): ${message}`, range: { offset: 0, length: 0 } }],
    };
  }
}

/**
 * True when `path` is a config name (isConfigPath) and its text holds a top-level "model_type"
 * or "architectures" key, or, for a hand-written config without either, a layer count
 * (num_hidden_layers and its aliases) beside a hidden size or a head count: the keys a profile's
 * `model:` needs, so such a file gets the same diagnostics open as through a profile (including
 * the one saying it lacks model_type). Cheap: a syntax error still counts when the keys are
 * there, so the server can report it. `parsed`: the text's parseJsonTree result when the caller
 * has it already.
 */
export function isModelConfigFile(path: string, text: string, parsed?: ParsedTree): boolean {
  if (!isConfigPath(path)) return false;
  const root = (parsed ?? parseJsonTree(text)).root;
  const shape = (has: (key: string) => boolean): boolean =>
    has('model_type') || has('architectures') ||
    (ALIASES.numLayers.some(has) && [...ALIASES.hiddenSize, ...ALIASES.numHeads].some(has));
  if (root?.type === 'object') {
    const keys = new Set((root.properties ?? []).map((p) => p.key));
    return shape((k) => keys.has(k));
  }
  return shape((k) => new RegExp(`"${k}"\\s*:`).test(text));
}

/** vLLM's possible_keys for a model's length, in its order (vllm/config/model.py _get_and_verify_max_len). */
const VLLM_LENGTH_KEYS = [
  'max_position_embeddings', 'n_positions', 'max_seq_len', 'seq_length', 'model_max_length',
  'max_target_positions', 'max_sequence_length', 'max_seq_length', 'seq_len',
] as const;

/** A positive integer written under `key` in the config's scopes (text_config first), else null; nothing reported. */
function quietLength(r: KeyReader, key: string, node?: ValueNode): number | null {
  const v = node ? getProperty(node, key)?.value : r.find([key])?.prop.value;
  return v?.type === 'number' && typeof v.value === 'number' && Number.isSafeInteger(v.value) && v.value >= 1 ? v.value : null;
}

/**
 * The torch dtype a misspelt torch_dtype was meant to be ("bfloat61", "flaot16" -> bfloat16,
 * float16), or undefined. Only a name of the same bit width counts: "float8" (an fp8
 * checkpoint) and "float64" are other dtypes, not typos of float16 or float32.
 */
function dtypeTypo(name: string): string | undefined {
  const digits = (s: string) => [...s.replace(/\D/g, '')].sort().join('');
  return closestMatch(name, ['float32', 'float16', 'bfloat16'].filter((d) => digits(d) === digits(name)));
}

/**
 * The keys vLLM derives max_model_len from (ModelSpec.contextLength; the rule is core/estimate
 * vllmMaxModelLen). Read quietly: a wrong max_position_embeddings is reported where the aliases
 * are read. `maxPositionEmbeddings` stands for max_position_embeddings when no key of vLLM's is
 * written (a transformers class default, or the n_ctx alias), as vLLM's getattr sees the class's.
 */
function readContextLength(r: KeyReader, maxPositionEmbeddings: number | null): ContextLengthKeys {
  const lengths: ContextLengthKeys['lengths'] = [];
  for (const key of VLLM_LENGTH_KEYS) {
    const tokens = quietLength(r, key);
    if (tokens !== null) lengths.push({ key, tokens });
  }
  if (lengths.length === 0 && maxPositionEmbeddings !== null) lengths.push({ key: 'max_position_embeddings', tokens: maxPositionEmbeddings });
  const rope: ContextLengthKeys['rope'] = [];
  const ropeFound = r.find(['rope_scaling', 'rope_parameters']);
  const found = ropeFound?.prop.value;
  // transformers reads rope_scaling as a dict (or None): `rope_scaling: 5` is no RoPE scaling it
  // knows, and vLLM's derived max_model_len would not follow it (s43 newcomer43 L4: accepted silently).
  if (ropeFound && found && found.type !== 'object') {
    r.problem('warning', 'rope-scaling-not-mapping', `"${ropeFound.prop.key}" is ${describe(found)}, not a mapping: transformers expects { rope_type, factor, ... } or null; read as no RoPE scaling (max_model_len from the position keys alone)`, found.range, { key: ropeFound.path });
  }
  if (found?.type === 'object') {
    // transformers v5: one rope_parameters per layer type ({ full_attention: {...}, sliding_attention: {...} }).
    const props = found.properties ?? [];
    const perLayer = props.length > 0 && props.every((p) => p.value.type === 'object');
    for (const node of perLayer ? props.map((p) => p.value) : [found]) {
      const str = (key: string): string | undefined => {
        const v = getProperty(node, key)?.value;
        return v?.type === 'string' ? String(v.value) : undefined;
      };
      const factor = getProperty(node, 'factor')?.value;
      rope.push({
        ropeType: str('rope_type') ?? str('type') ?? 'default',
        factor: factor?.type === 'number' && typeof factor.value === 'number' && factor.value > 0 ? factor.value : null,
        originalMaxPositionEmbeddings: quietLength(r, 'original_max_position_embeddings', node),
      });
    }
  }
  return { lengths, rope, originalMaxPositionEmbeddings: quietLength(r, 'original_max_position_embeddings') };
}
