/** quantization_config of a HuggingFace config -> bits per weight (core/config/model.ts reads it). */
import type { KeyReader } from './keys';
import { getProperty, type ValueNode } from './tree';
import type { QuantizationSpec } from './types';

/**
 * quantization_config -> bits per weight. fp8 (DeepSeek-V3 block-wise e4m3): 8 bits on every
 * linear layer. mxfp4 (gpt-oss): 4-bit e2m1 values plus one 8-bit scale per 32 = 4.25 bits,
 * routed experts only (its modules_to_not_convert keeps attention, router and embeddings in
 * bf16). AWQ / GPTQ: `bits` plus a 16-bit scale and zero per group (group_size, default 128).
 * compressed-tensors (llm-compressor): the first config group's weights.num_bits (+ scales per
 * group_size). bitsandbytes: NF4 4.5 bits (fp32 absmax per 64), int8 8 bits. fbgemm_fp8: 8.
 */
export function readQuantization(r: KeyReader): QuantizationSpec | null {
  const found = r.find(['quantization_config']);
  if (!found || found.prop.value.type !== 'object') return null;
  const q = found.prop.value;
  const method = getProperty(q, 'quant_method')?.value.value;
  if (typeof method !== 'string') return null;
  const m = method.toLowerCase();
  if (m === 'fp8') return { method, bitsPerWeight: 8, scope: 'all' };
  if (m === 'mxfp4') return { method, bitsPerWeight: 4.25, scope: 'experts' };
  if (m === 'fbgemm_fp8') return { method, bitsPerWeight: 8, scope: 'all' };
  const num = (node: ValueNode | undefined, key: string): number | undefined => {
    const v = getProperty(node, key)?.value.value;
    return typeof v === 'number' && v > 0 ? v : undefined;
  };
  if (m === 'awq' || m === 'gptq') {
    return { method, bitsPerWeight: (num(q, 'bits') ?? 4) + 32 / (num(q, 'group_size') ?? 128), scope: 'all' };
  }
  if (m === 'compressed-tensors') {
    // The first config group's weight scheme (llm-compressor: W8A8-FP8, W4A16, ...).
    const groups = getProperty(q, 'config_groups')?.value;
    const weights = groups?.properties?.[0] ? getProperty(groups.properties[0].value, 'weights')?.value : undefined;
    const bits = num(weights, 'num_bits');
    if (bits !== undefined) {
      const group = num(weights, 'group_size');
      return { method, bitsPerWeight: bits + (group ? 32 / group : 0), scope: 'all' };
    }
  }
  if (m === 'bitsandbytes') {
    // NF4: 4 bits + one fp32 absmax per 64 weights; LLM.int8(): 8 bits.
    if (getProperty(q, 'load_in_4bit')?.value.value === true) return { method, bitsPerWeight: 4.5, scope: 'all' };
    if (getProperty(q, 'load_in_8bit')?.value.value === true) return { method, bitsPerWeight: 8, scope: 'all' };
  }
  r.problem('info', 'unknown-quantization', `quantization "${method}" is not modelled: weight bytes assume unquantized weights in the profile's dtype`, found.prop.keyRange);
  return null;
}
