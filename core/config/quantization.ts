/** quantization_config of a HuggingFace config -> how the published weights are stored (core/config/model.ts reads it). */
import { formatCount } from '../format';
import { describe, type KeyReader } from './keys';
import { getProperty, type ValueNode } from './tree';
import type { GroupedQuantization, LayerSkips, ModelSpec, QuantizationSpec } from './types';

/**
 * quantization_config -> how the weights are stored. fp8 (DeepSeek-V3 block-wise e4m3): 8 bits
 * on every linear layer. mxfp4 (gpt-oss): 4-bit e2m1 values plus one 8-bit scale per 32 = 4.25
 * bits, routed experts only (its modules_to_not_convert keeps attention, router and embeddings
 * in bf16). bitsandbytes (grouped, below): NF4 / FP4 4.5 bits (fp32 absmax per 64), 4.127 with
 * double quant, int8 8 bits and an fp32 scale per output. fbgemm_fp8: 8. NVFP4 (ModelOpt quant_algo NVFP4, compressed-tensors float 4-bit
 * groups of 16): 4.5 bits (an fp8 e4m3 scale per 16 values); ModelOpt FP8: 8.
 * Integer formats stored in groups keep their layout ({@link GroupedQuantization}, counted tensor
 * by tensor in core/estimate quantizedWeights): AWQ (vLLM awq.py AWQLinearMethod: qweight, qzeros
 * packed `bits` a value in int32, fp16 scales per group; modules_to_not_convert), GPTQ (gptq.py
 * GPTQLinearMethod: the same plus g_idx, one int32 per input; group_size -1 is one group over the
 * whole input; lm_head; dynamic "-:" patterns), and compressed-tensors (llm-compressor) integer
 * schemes (type int): the first config group's weights.num_bits, strategy group / channel, zero
 * points only when not symmetric, `ignore`; its float schemes (FP8): num_bits + 32 / group_size.
 * The flat formats keep their skip lists (QuantizationSpec.skip): fp8 and fbgemm_fp8 by full name,
 * ModelOpt by substring or wildcard, compressed-tensors `ignore` exactly or by "re:".
 */
export function readQuantization(r: KeyReader): QuantizationSpec | null {
  const found = r.find(['quantization_config']);
  if (!found) return null;
  if (found.prop.value.type !== 'object') {
    // transformers and vLLM read it as a dict (quantization_config.get("quant_method")): a list or a
    // number stops both, so it is refused, not read as an unquantized checkpoint.
    r.problem('error', 'wrong-type', `"quantization_config" must be an object, not ${describe(found.prop.value)}`, found.prop.value.range, { key: found.path, expected: 'object' });
    return null;
  }
  const q = found.prop.value;
  const methodNode = getProperty(q, 'quant_method')?.value;
  const method = methodNode?.value;
  if (typeof method !== 'string') {
    // vLLM ModelConfig._verify_quantization reads quant_cfg.get("quant_method", ""): no method is
    // none it knows. Said as a typo's method is, never read as unquantized in silence.
    r.problem('info', 'unknown-quantization', methodNode === undefined || methodNode.type === 'null'
      ? 'quantization_config has no "quant_method", so its quantization is not modelled: weight bytes assume unquantized weights in the profile\'s dtype'
      : `"quant_method" must be a string, not ${describe(methodNode)}: the quantization is not modelled, and weight bytes assume unquantized weights in the profile's dtype`, found.prop.keyRange);
    return null;
  }
  const m = method.toLowerCase();
  if (m === 'fp8') {
    // vLLM fp8.py Fp8Config: weight_block_size "must have 2 dimensions" (block-wise scales, one
    // per [n, k] block: DeepSeek-V3's [128, 128]); a 0 or a fraction gives no block layout.
    const block = getProperty(q, 'weight_block_size')?.value;
    const blockOk = block?.type === 'array' && block.items?.length === 2
      && block.items.every((b) => b.type === 'number' && typeof b.value === 'number' && Number.isInteger(b.value) && b.value >= 1 && b.value <= 1 << 20);
    if (block && block.type !== 'null' && !blockOk) {
      r.problem('error', 'invalid-value', `"weight_block_size" must be two integers from 1 (the [n, k] block of one fp8 scale, e.g. [128, 128]), not ${block.type === 'array' ? `[${(block.items ?? []).map((b) => (b.type === 'string' ? JSON.stringify(b.value) : String(b.value))).join(', ')}]` : describe(block)}`, block.range, { key: `${found.path}.weight_block_size` });
    }
    // vLLM fp8.py Fp8Config.from_config: ignored_layers, else modules_to_not_convert.
    const ignored = strings(getProperty(q, 'ignored_layers')?.value);
    const weightBlockSize = blockOk ? { weightBlockSize: block!.items!.map((b) => b.value as number) as [number, number] } : {};
    return withSkips({ method, bitsPerWeight: 8, scope: 'all', activations: 'fp8', ...weightBlockSize }, exactSkips(ignored.length > 0 ? ignored : strings(getProperty(q, 'modules_to_not_convert')?.value)));
  }
  // vLLM mxfp4.py Mxfp4Config.from_config returns cls(): no skip list is read; every FusedMoE is
  // mxfp4 and every linear layer unquantized, whatever modules_to_not_convert says.
  if (m === 'mxfp4') return { method, bitsPerWeight: 4.25, scope: 'experts' };
  // vLLM fbgemm_fp8.py FBGEMMFp8Config: modules_to_not_convert, matched as fp8's.
  if (m === 'fbgemm_fp8') return withSkips({ method, bitsPerWeight: 8, scope: 'all', activations: 'fp8' }, exactSkips(strings(getProperty(q, 'modules_to_not_convert')?.value)));
  if (m === 'modelopt' || m === 'modelopt_fp4') {
    const spec = modelOpt(method, q);
    if (spec !== null) return spec;
  }
  const num = (node: ValueNode | undefined, key: string): number | undefined => {
    const v = getProperty(node, key)?.value.value;
    return typeof v === 'number' && v > 0 ? v : undefined;
  };
  if (m === 'awq' || m === 'gptq') {
    // AWQConfig.from_config reads w_bit | bits and q_group_size | group_size; GPTQ bits and group_size (-1: per channel).
    // A value vLLM refuses is refused at it (the default stands in, for the figures of the other keys):
    // AWQConfig: "Currently, only 4-bit weight quantization is supported for AWQ, but got {bits} bits.";
    // GPTQConfig: "Currently, only 2/3/4/8-bit weight quantization is supported for GPTQ, but got {bits} bits."
    // (a string: 32 // "4" is a TypeError there); group_size 0 divides by zero in create_weights
    // (input_size_per_partition % group_size), and only -1 means one group over the whole input.
    const bits = quantSetting(r, found.path, q, m === 'awq' ? ['w_bit', 'bits'] : ['bits'], 4, m === 'awq' ? [4] : [2, 3, 4, 8],
      m === 'awq' ? 'AWQ takes 4 only (vLLM awq.py: "Currently, only 4-bit weight quantization is supported for AWQ")' : 'GPTQ takes 2, 3, 4 or 8 (vLLM gptq.py: "Currently, only 2/3/4/8-bit weight quantization is supported for GPTQ")');
    const groupRaw = quantSetting(r, found.path, q, m === 'awq' ? ['q_group_size', 'group_size'] : ['group_size'], 128, null,
      '-1 (one group over the whole input) or a group of at least 1 input');
    const groupSize = groupRaw === -1 ? null : groupRaw;
    return grouped(method, {
      bits,
      groupSize,
      zeroPoints: true,
      groupIndex: m === 'gptq',
      notConverted: m === 'awq' ? strings(getProperty(q, 'modules_to_not_convert')?.value) : [],
      notConvertedPatterns: m === 'gptq' ? dynamicSkips(getProperty(q, 'dynamic')?.value) : [],
      lmHead: m === 'gptq' && getProperty(q, 'lm_head')?.value.value === true,
    });
  }
  if (m === 'compressed-tensors') {
    // The first config group's weight scheme (llm-compressor: W8A8-FP8, W4A16, ...).
    const groups = getProperty(q, 'config_groups')?.value;
    const weights = groups?.properties?.[0] ? getProperty(groups.properties[0].value, 'weights')?.value : undefined;
    const bits = num(weights, 'num_bits');
    if (bits !== undefined) {
      const strategy = getProperty(weights, 'strategy')?.value.value;
      const group = num(weights, 'group_size');
      // Float schemes: FP8 W8A8 bits plus a 32-bit scale per group; 4-bit floats in groups (NVFP4,
      // group 16, strategy tensor_group; MXFP4, group 32) an 8-bit scale per group, tensor by
      // tensor (vLLM compressed_tensors_w4a4_nvfp4.py create_weights: weight_packed [N, K / 2],
      // weight_scale float8_e4m3fn [N, K / 16]). One fp32 scale a tensor (weight_global_scale) is negligible.
      const float = getProperty(weights, 'type')?.value.value === 'float';
      // compressed-tensors names ignored modules exactly or by "re:" pattern (re.match).
      const ignore = strings(getProperty(q, 'ignore')?.value).map((s) => (s.startsWith('re:') ? s.slice(3) : `${escapeRegex(textModelName(s))}$`));
      if (float && bits === 4 && group !== undefined) {
        return grouped(method, { bits, groupSize: group, zeroPoints: false, groupIndex: false, notConverted: [], notConvertedPatterns: ignore, lmHead: false, scaleBits: 8 });
      }
      // W8A8 (vLLM compressed_tensors.py _is_fp8_w8a8 / _is_static_tensor_w8a8 / _is_dynamic_token_w8a8):
      // 8-bit weights with 8-bit input_activations of the same type run fp8 / int8 GEMMs.
      const acts = groups?.properties?.[0] ? getProperty(groups.properties[0].value, 'input_activations')?.value : undefined;
      const actType = getProperty(acts, 'type')?.value.value ?? 'int';
      const w8a8 = bits === 8 && num(acts, 'num_bits') === 8 && actType === (float ? 'float' : 'int') ? { activations: float ? 'fp8' as const : 'int8' as const } : {};
      if (float || strategy === 'tensor' || (strategy !== 'channel' && group === undefined)) {
        return withSkips({ method, bitsPerWeight: bits + (group ? 32 / group : 0), scope: 'all', ...w8a8 }, { notConverted: [], notConvertedPatterns: ignore });
      }
      const spec = grouped(method, {
        bits,
        groupSize: strategy === 'channel' ? null : group ?? null,
        zeroPoints: getProperty(weights, 'symmetric')?.value.value === false,
        groupIndex: false,
        notConverted: [],
        notConvertedPatterns: ignore,
        lmHead: false,
      });
      return { ...spec, ...w8a8 };
    }
  }
  if (m === 'bitsandbytes') {
    // NF4 / FP4: 4 bits + one fp32 absmax per block of 64 weights = 4.5. Double quant
    // (bnb_4bit_use_double_quant) stores those absmax as 8-bit values with one fp32 constant per
    // 256 of them: 4 + 8/64 + 32/(64·256) = 4.126953125 bits (Dettmers et al. 2023, QLoRA,
    // §3 "Double Quantization": 32/64 = 0.5 -> 8/64 + 32/(64·256) = 0.127 bits per parameter).
    // LLM.int8(): int8 weights and one fp32 scale per output row (Int8Params SCB). Tensor by
    // tensor, llm_int8_skip_modules left in the dtype as vLLM's is_layer_skipped_bnb decides: a
    // skipped name equal to one dotted component of the layer's name, or to a dotted prefix of it.
    const skip = strings(getProperty(q, 'llm_int8_skip_modules')?.value)
      .map((n) => (n.includes('.') ? `${escapeRegex(n)}(?:\\..*)?$` : `(?:.*\\.)?${escapeRegex(n)}(?:\\..*)?$`));
    const layout = { zeroPoints: false, groupIndex: false, notConverted: [], notConvertedPatterns: skip, lmHead: false };
    if (getProperty(q, 'load_in_4bit')?.value.value === true) {
      const double = getProperty(q, 'bnb_4bit_use_double_quant')?.value.value === true;
      return grouped(method, { bits: 4, groupSize: 64, ...layout, scaleBits: double ? 8 + 32 / 256 : 32 });
    }
    if (getProperty(q, 'load_in_8bit')?.value.value === true) return grouped(method, { bits: 8, groupSize: null, ...layout, scaleBits: 32 });
  }
  r.problem('info', 'unknown-quantization', `quantization "${method}" is not modelled: weight bytes assume unquantized weights in the profile's dtype`, found.prop.keyRange);
  return null;
}

/**
 * An integer setting of an AWQ / GPTQ quantization_config under the first of `keys` written (not
 * null), else `fallback`. A value that is no number, no integer, or not one of `allowed` (null:
 * -1 or at least 1, a group size) is an error at the value, naming what vLLM takes (`takes`), and
 * `fallback` stands in.
 */
function quantSetting(r: KeyReader, path: string, q: ValueNode, keys: readonly string[], fallback: number, allowed: readonly number[] | null, takes: string): number {
  const prop = keys.map((k) => getProperty(q, k)).find((p) => p !== undefined && p.value.type !== 'null');
  if (!prop) return fallback;
  const v = prop.value;
  const data = { key: `${path}.${prop.key}` };
  if (v.type !== 'number' || typeof v.value !== 'number') {
    r.problem('error', 'wrong-type', `"${prop.key}" in quantization_config must be a number, not ${describe(v)}: ${takes}`, v.range, { ...data, expected: 'number' });
    return fallback;
  }
  const ok = Number.isInteger(v.value) && (allowed ? allowed.includes(v.value) : v.value === -1 || (v.value >= 1 && v.value <= 1 << 20));
  if (!ok) {
    r.problem('error', 'invalid-value', `"${prop.key}" in quantization_config cannot be ${v.value}: ${takes}`, v.range, data);
    return fallback;
  }
  return v.value;
}

/**
 * ModelOpt (NVIDIA Model Optimizer) checkpoints: quant_algo at the top of quantization_config
 * (with `ignore`) or under `quantization` (hf_quant_config.json's form, with `exclude_modules`),
 * read as vLLM's modelopt.py from_config does (upper-cased). NVFP4 / W4A16_NVFP4: 4-bit e2m1
 * values and an fp8 e4m3 scale per group_size (16) inputs, tensor by tensor (the fp32
 * weight_scale_2 per tensor is negligible); a layer is left in the dtype when an excluded name is
 * a substring of its name or matches it as an fnmatch wildcard (ModelOptQuantConfigBase
 * is_layer_excluded). lm_head stays in the dtype whatever the list says: ModelOptQuantConfigBase
 * get_quant_method quantizes only LinearBase and FusedMoE layers, and ParallelLMHead is a
 * VocabParallelEmbedding, so it returns None and the head gets UnquantizedEmbeddingMethod (read
 * at vLLM commit c9a5990, modelopt.py; ModelOptNvFp4Config and ModelOptFp8Config do not override
 * it). FP8 (per-tensor scale),
 * FP8_PER_CHANNEL_PER_TOKEN and FP8_PB_WO: 8 bits; MXFP8 8 + 8/32 (an e8m0 scale per 32).
 * Null for another algorithm (MIXED_PRECISION): reported as not modelled.
 */
function modelOpt(method: string, q: ValueNode): QuantizationSpec | null {
  const nested = getProperty(q, 'quantization')?.value;
  const scope = nested?.type === 'object' ? nested : q;
  const algo = getProperty(scope, 'quant_algo')?.value.value;
  if (typeof algo !== 'string') return null;
  const a = algo.toUpperCase();
  const excluded = strings(getProperty(scope, scope === q ? 'ignore' : 'exclude_modules')?.value).map(textModelName);
  // fnmatch: * any run, ? one character; the whole name (re.match anchors the start).
  const wildcards = excluded.map((e) => `${escapeRegex(e).replace(/\\\*/g, '.*').replace(/\\\?/g, '.')}$`);
  if (a === 'NVFP4' || a === 'W4A16_NVFP4') {
    const g = getProperty(scope, 'group_size')?.value.value;
    return grouped(method, {
      bits: 4,
      groupSize: typeof g === 'number' && Number.isInteger(g) && g > 0 ? g : 16,
      zeroPoints: false,
      groupIndex: false,
      notConverted: excluded,
      notConvertedPatterns: wildcards,
      lmHead: false,
      scaleBits: 8,
    });
  }
  // FP8 and MXFP8 share ModelOptQuantConfigBase.is_layer_excluded (the same exclusions as NVFP4's)
  // and its lm_head rule (above).
  const skips = { notConverted: excluded, notConvertedPatterns: wildcards };
  // FP8 (static per-tensor activation scale) and FP8_PER_CHANNEL_PER_TOKEN (dynamic per token) are W8A8;
  // FP8_PB_WO is named weight-only and kept at the activation dtype's peak.
  if (a === 'FP8' || a === 'FP8_PER_CHANNEL_PER_TOKEN') return withSkips({ method, bitsPerWeight: 8, scope: 'all', activations: 'fp8' }, skips);
  if (a === 'FP8_PB_WO') return withSkips({ method, bitsPerWeight: 8, scope: 'all' }, skips);
  if (a === 'MXFP8') return withSkips({ method, bitsPerWeight: 8 + 8 / 32, scope: 'all' }, skips);
  return null;
}

/**
 * vLLM's is_layer_skipped (quant_utils.py) as Fp8Config and FBGEMMFp8Config call it (no
 * skip_with_substr): a layer is skipped when its full name is in the list (each shard of a fused
 * qkv_proj / gate_up_proj by its own name, the names a checkpoint lists); a FusedMoE
 * (model.layers.3.mlp.experts) when a listed name with "experts" in it contains that name.
 */
function exactSkips(names: string[]): LayerSkips {
  const listed = names.map(textModelName);
  return { notConverted: [], notConvertedPatterns: listed.map((n) => `${escapeRegex(n)}$`), fusedMoe: listed.filter((n) => n.includes('experts')) };
}

/** `spec` with its skip list, when the list names anything. */
function withSkips(spec: QuantizationSpec, skips: LayerSkips): QuantizationSpec {
  return skips.notConverted.length + skips.notConvertedPatterns.length > 0 ? { ...spec, skip: skips } : spec;
}

/**
 * A listed module name as the text model's own (model.layers.0...): multimodal checkpoints list
 * model.language_model.layers.0... (transformers >= 4.52) or language_model.model.layers.0..., which
 * vLLM maps onto its modules (apply_vllm_mapper); the counted weights are named as a text model's.
 */
function textModelName(name: string): string {
  if (name.startsWith('model.language_model.')) return `model.${name.slice('model.language_model.'.length)}`;
  if (name.startsWith('language_model.')) return name.slice('language_model.'.length);
  return name;
}

/** `s` with regex metacharacters escaped. */
function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A grouped spec; bitsPerWeight is a full group's width: bits + (16-bit scale + zero bits) / group_size (per channel: bits). */
function grouped(method: string, g: GroupedQuantization): QuantizationSpec {
  const perGroup = (g.scaleBits ?? 16) + (g.zeroPoints ? g.bits : 0);
  return { method, bitsPerWeight: g.groupSize === null ? g.bits : g.bits + perGroup / g.groupSize, scope: 'all', grouped: g };
}

/** The strings of a JSON array (others skipped); [] for anything else. */
function strings(node: ValueNode | undefined): string[] {
  return node?.type === 'array' ? (node.items ?? []).map((i) => i.value).filter((v): v is string => typeof v === 'string') : [];
}

/** GPTQModel's `dynamic`: keys "-:<regex>" leave the modules they match unquantized (vLLM gptq_utils get_dynamic_override). */
function dynamicSkips(node: ValueNode | undefined): string[] {
  return node?.type === 'object' ? (node.properties ?? []).map((p) => p.key).filter((k) => k.startsWith('-:')).map((k) => k.slice(2)) : [];
}

/**
 * One linear layer of the text model as tensor parallelism shards it, per GPU at `tp` (vLLM
 * linear.py): column-parallel layers (qkv_proj, gate_up_proj: QKVParallelLinear /
 * MergedColumnParallelLinear) keep the whole input and split their outputs, one partition per
 * merged projection; row-parallel ones (o_proj, down_proj: RowParallelLinear) split their input.
 * `experts`: the routed experts' FusedMoE, whose per-GPU width is `input` of down and each of
 * gate's and up's outputs.
 */
interface LinearShard {
  name: string;
  /** The full width split, in words, for messages ("intermediate_size 29,568"). */
  width: string;
  input: number;
  outputs: number[];
  row: boolean;
  experts?: boolean;
}

/** The linear layers quantization alignment is checked on, per GPU at `tp` (sizes that tp divides; the divisibility check refuses the rest). */
function linearShards(m: ModelSpec, tp: number): LinearShard[] {
  const out: LinearShard[] = [];
  const h = m.hiddenSize;
  if (!m.mla) {
    const q = m.numHeads * m.headDim;
    const kv = Math.max(1, m.numKvHeads / tp) * m.headDim;
    out.push({ name: 'qkv_proj', width: `hidden_size ${formatCount(h)}`, input: h, outputs: [q / tp, kv, kv], row: false });
    out.push({ name: 'o_proj', width: `the ${m.numHeads} heads × head_dim ${m.headDim} = ${formatCount(q)}`, input: q / tp, outputs: [h], row: true });
  }
  const moe = m.moe;
  const hasDense = moe === null || moe.firstDenseLayers > 0 || moe.mlpOnlyLayers.length > 0 || moe.layerFrequency > 1;
  const mlp = (name: string, i: number, what: string) => {
    out.push({ name: `${name}gate_up_proj`, width: `${what} ${formatCount(i)}`, input: h, outputs: m.gatedMlp ? [i / tp, i / tp] : [i / tp], row: false });
    out.push({ name: `${name}down_proj`, width: `${what} ${formatCount(i)}`, input: i / tp, outputs: [h], row: true });
  };
  if (hasDense && m.intermediateSize > 0) mlp('', m.intermediateSize, 'intermediate_size');
  if (moe && moe.numSharedExperts > 0) mlp('the shared experts\' ', moe.sharedExpertIntermediateSize, 'the shared experts\' intermediate size');
  if (moe) out.push({ name: 'experts', width: `moe_intermediate_size ${formatCount(moe.expertIntermediateSize)}`, input: moe.expertIntermediateSize / tp, outputs: [moe.expertIntermediateSize / tp], row: true, experts: true });
  return out;
}

/**
 * Why vLLM refuses the quantized weights of `m` split over `tp` GPUs, or null when it takes them:
 * the first linear layer whose per-GPU shape breaks the checkpoint's quantization layout, as vLLM
 * checks it when it creates the weights.
 * - AWQ / GPTQ with a group size g (vLLM awq.py AWQLinearMethod / gptq.py GPTQLinearMethod
 *   create_weights): each linear layer's input per GPU (the whole hidden_size for column-parallel
 *   layers, the split width for row-parallel o_proj and down_proj) must be a multiple of g: "The
 *   input size is not aligned with the quantized weight shape. This can be caused by too large
 *   tensor parallel size." (awq_marlin / gptq_marlin fall back to these kernels for a layer Marlin
 *   cannot take, check_marlin_supports_layer, so their rule is the one that binds.) group_size -1
 *   and the routed experts (vLLM's MoE methods check no group alignment) are not checked.
 * - fp8 with weight_block_size [n, k] (vLLM fp8_utils.py validate_fp8_block_shape): under tp > 1
 *   a row-parallel layer's input per GPU must be a multiple of k ("Weight input_size_per_partition
 *   = X is not divisible by weight quantization block_k = k."), and each output partition of a
 *   split or merged column-parallel layer a multiple of n ("Weight output_partition_size = X is not
 *   divisible by weight quantization block_n = n."); the routed experts (fp8.py Fp8MoEMethod
 *   create_weights): moe_intermediate_size / tp a multiple of n ("The output_size of gate's and
 *   up's weight = X is not divisible by weight quantization block_n = n.") and, under tp > 1, of k
 *   ("The input_size of down's weight = X ...block_k = k.").
 * Layers a skip list leaves unquantized are checked too (a conservative reading). Only sizes tp
 * divides are checked: the divisibility check refuses the others first.
 */
export function quantizationAlignment(m: ModelSpec, tp: number): string | null {
  const q = m.quantization;
  if (!q) return null;
  const method = q.method.toLowerCase();
  const group = (method === 'awq' || method === 'gptq') ? q.grouped?.groupSize ?? null : null;
  const block = method === 'fp8' ? q.weightBlockSize : undefined;
  if (group === null && !block) return null;
  const name = method === 'awq' ? 'AWQ' : 'GPTQ';
  for (const l of linearShards(m, tp)) {
    if (![l.input, ...l.outputs].every(Number.isInteger)) continue;
    if (group !== null && !l.experts && l.input % group !== 0) {
      return `${l.name}'s input ${tp > 1 ? 'per GPU ' : ''}is ${l.row && tp > 1 ? `${l.width} / ${tp} = ${formatCount(l.input)}` : l.width}, not a multiple of the ${name} group_size ${group}: vLLM ${method}.py refuses it ("The input size is not aligned with the quantized weight shape. This can be caused by too large tensor parallel size.")`;
    }
    if (!block) continue;
    const [n, k] = block;
    if (l.experts) {
      if (l.input % n !== 0) return `the experts' gate and up output per GPU is ${l.width} / ${tp} = ${formatCount(l.input)}, not a multiple of weight_block_size's block_n ${n}: vLLM fp8.py refuses it ("The output_size of gate's and up's weight = ${l.input} is not divisible by weight quantization block_n = ${n}.")`;
      if (tp > 1 && l.input % k !== 0) return `the experts' down input per GPU is ${l.width} / ${tp} = ${formatCount(l.input)}, not a multiple of weight_block_size's block_k ${k}: vLLM fp8.py refuses it ("The input_size of down's weight = ${l.input} is not divisible by weight quantization block_k = ${k}.")`;
      continue;
    }
    if (tp > 1 && l.row && l.input % k !== 0) return `${l.name}'s input per GPU is ${l.width} / ${tp} = ${formatCount(l.input)}, not a multiple of weight_block_size's block_k ${k}: vLLM refuses it ("Weight input_size_per_partition = ${l.input} is not divisible by weight quantization block_k = ${k}.", fp8_utils.py validate_fp8_block_shape)`;
    const bad = (!l.row && (tp > 1 || l.outputs.length > 1)) ? l.outputs.find((o) => o % n !== 0) : undefined;
    if (bad !== undefined) return `${l.name}'s output per GPU ${formatCount(bad)} (${l.width}${tp > 1 ? ` over ${tp} GPUs` : ''}) is not a multiple of weight_block_size's block_n ${n}: vLLM refuses it ("Weight output_partition_size = ${bad} is not divisible by weight quantization block_n = ${n}.", fp8_utils.py validate_fp8_block_shape)`;
  }
  return null;
}

/**
 * An error at the quantization_config value (group_size / q_group_size, weight_block_size) when
 * vLLM refuses `m`'s quantized weights on one GPU already ({@link quantizationAlignment} at tp 1:
 * a GPTQ group_size of 100 on hidden_size 4,096); tensor_parallel_size's share is the profile's
 * check (core/config/profileChecks.ts).
 */
export function alignmentProblem(r: KeyReader, m: ModelSpec): void {
  const why = quantizationAlignment(m, 1);
  const found = why === null ? undefined : r.find(['quantization_config']);
  if (!found) return;
  const prop = ['weight_block_size', 'q_group_size', 'group_size'].map((k) => getProperty(found.prop.value, k)).find((p) => p !== undefined && p.value.type !== 'null');
  r.problem('error', 'invalid-value', `quantization_config does not fit the model: ${why}`, (prop ?? found.prop).value.range, { key: `${found.path}.${prop?.key ?? ''}`.replace(/\.$/, '') });
}
