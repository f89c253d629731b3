/**
 * max_model_len: vLLM's default and limit for a model (vllmMaxModelLen), and the length a
 * profile serves (referenceSeqLen, maxModelLenOf). Used by the estimate, the profile reader's
 * workload default, the checks and the simulator.
 */
import type { ModelSpec, Profile } from '../config/types';
import { formatCount } from '../format';

/**
 * vLLM's max_model_len for a model: `tokens`, what `vllm serve` takes without --max-model-len,
 * and `limit`, the longest --max-model-len it starts with unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1
 * (null: no length in the config, so any is accepted); `basis` and `limitBasis` say how, in
 * words. Tokens.
 *
 * The rule of vllm/config/model.py _get_and_verify_max_len (vllm-project/vllm 0052a5b8), called
 * by ModelConfig.get_and_verify_max_len with the text config:
 * 1. derived_max_model_len = the smallest of the possible_keys the config has
 *    (max_position_embeddings, n_positions, max_seq_len, seq_length, model_max_length,
 *    max_target_positions, max_sequence_length, max_seq_length, seq_len:
 *    ModelSpec.contextLength.lengths); model_max_length, where given, replaces it ("For Command-R /
 *    Cohere, Cohere2 / Aya Vision models"). None of them: 2048 (its warning "Assuming the model's
 *    maximum length is 2048"), and a written max_model_len is taken unchecked.
 * 2. rope_scaling / rope_parameters, except for Gemma 3 ("max_model_len (128K) is already scaled"):
 *    each entry whose rope_type is not su, longrope or llama3 sets the scaling factor (its
 *    `factor`, 1 for "default"), and yarn replaces the length by its
 *    original_max_position_embeddings; the length is then multiplied by the factor.
 *    Llama-3.1-8B: llama3, not scaled, 131,072; gpt-oss-20b: yarn, 4,096 × 32 = 131,072;
 *    DeepSeek-V3: yarn, 4,096 × 40 = 163,840.
 * 3. The default (`max_model_len is None`) is int(derived), except with LongRoPE (su is its
 *    legacy name, renamed by vLLM's patch_rope_parameters), where it is the config's
 *    original_max_position_embeddings ("to avoid performance degradation for shorter
 *    sequences"; Phi-3-mini-128k: 4,096 of 131,072). current_platform.check_max_model_len leaves
 *    it as is on CUDA.
 * 4. A written max_model_len above derived (and above model_max_length, where given) raises
 *    "User-specified max_model_len (N) is greater than the derived max_model_len".
 * Not modelled: --disable-sliding-window (caps at sliding_window; AttnScope has no such key) and
 * the tokenizer_config.json's model_max_length, which vLLM reads only for pooling models with
 * absolute position embeddings (BERT-like encoders, which keep no KV cache here).
 */
export function vllmMaxModelLen(model: ModelSpec): { tokens: number; basis: string; limit: number | null; limitBasis: string } {
  const c = model.contextLength;
  const n = (x: number): string => formatCount(x);
  if (c.lengths.length === 0) {
    const basis = "the config gives no length (max_position_embeddings or another of vLLM's keys): vLLM assumes 2,048";
    return { tokens: 2048, basis, limit: null, limitBasis: basis };
  }
  const smallest = c.lengths.reduce((a, b) => (b.tokens < a.tokens ? b : a));
  const written = c.lengths.find((l) => l.key === 'model_max_length');
  const base = written ?? smallest;
  let derived = base.tokens;
  let basis = `${base.key} ${n(derived)}`;
  let longrope = false;
  if (c.rope.length > 0 && !model.modelType.toLowerCase().includes('gemma3')) {
    let factor = 1;
    let scaledBy = '';
    for (const rp of c.rope) {
      if (rp.ropeType === 'su' || rp.ropeType === 'longrope') longrope = true;
      if (['su', 'longrope', 'llama3'].includes(rp.ropeType)) continue;
      factor = rp.factor ?? factor;
      scaledBy = `rope_scaling ${rp.ropeType} factor`;
      if (rp.ropeType === 'yarn' && rp.originalMaxPositionEmbeddings !== null) {
        derived = rp.originalMaxPositionEmbeddings;
        basis = `rope_scaling yarn: original_max_position_embeddings ${n(derived)}`;
        scaledBy = 'factor';
      }
    }
    derived *= factor;
    if (factor !== 1) basis = `${basis} × ${scaledBy} ${factor} = ${n(Math.floor(derived))}`;
  }
  const limit = written && written.tokens > derived ? written.tokens : derived;
  const limitBasis = limit === derived ? basis : `model_max_length ${n(limit)}`;
  if (longrope && c.originalMaxPositionEmbeddings !== null) {
    return { tokens: c.originalMaxPositionEmbeddings, basis: `LongRoPE: original_max_position_embeddings ${n(c.originalMaxPositionEmbeddings)} (vLLM's default for LongRoPE; it accepts up to ${n(Math.floor(limit))})`, limit: Math.floor(limit), limitBasis };
  }
  return { tokens: Math.floor(derived), basis, limit: Math.floor(limit), limitBasis };
}

/**
 * The max_model_len a profile serves: workload.max_model_len (written, or vLLM's default filled
 * in by core/config/profile.ts), else vLLM's default for the model ({@link vllmMaxModelLen}).
 * The length the estimate's max concurrency and start-up check are at.
 */
export function referenceSeqLen(profile: Profile): number {
  return profile.workload?.maxModelLen ?? vllmMaxModelLen(profile.model).tokens;
}

/**
 * The max_model_len a profile serves ({@link referenceSeqLen}) and where it comes from, in words:
 * 'workload.max_model_len' as written, else "vLLM's default, <how it derives it>"
 * ({@link vllmMaxModelLen}), the length `vllm serve` without --max-model-len uses. `written` is
 * false for the default.
 */
export function maxModelLenOf(profile: Profile): { tokens: number; source: string; written: boolean } {
  const tokens = referenceSeqLen(profile);
  if (profile.workload && profile.ranges['workload.max_model_len']) return { tokens, source: 'workload.max_model_len', written: true };
  return { tokens, source: `vLLM's default, ${vllmMaxModelLen(profile.model).basis}`, written: false };
}
