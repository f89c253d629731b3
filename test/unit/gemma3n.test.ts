import { test } from 'node:test';
import assert from 'node:assert/strict';
import { profileFromModelConfig, readModelConfig } from '../../core/config/index';
import { mobileNetV5Params } from '../../core/config/gemma3n';
import { estimate, gemma3nParams, kvBytesForSequence, kvBytesPerToken, kvPoolLayout, modelBufferBytes, paramCounts, replicatedWeights } from '../../core/estimate/index';
import { requestReservation } from '../../core/estimate/layout';
import { at, only } from '../fixtures/problems';

/**
 * google/gemma-3n-E4B-it's config.json (HF model card files; label_names and token ids left out):
 * 35 layers, 4 sliding + 1 full five times seven, the last 15 sharing KV.
 */
function gemma3nConfig(layers: number, width: number, shared: number): Record<string, unknown> {
  return {
    architectures: ['Gemma3nForConditionalGeneration'],
    model_type: 'gemma3n',
    torch_dtype: 'bfloat16',
    audio_soft_tokens_per_image: 188,
    vision_soft_tokens_per_image: 256,
    audio_config: {
      conf_attention_chunk_size: 12, conf_attention_context_left: 13, conf_attention_context_right: 0, conf_attention_logit_cap: 50.0,
      conf_conv_kernel_size: 5, conf_num_attention_heads: 8, conf_num_hidden_layers: 12, conf_reduction_factor: 4, conf_residual_weight: 0.5,
      hidden_size: 1536, input_feat_size: 128, model_type: 'gemma3n_audio', rms_norm_eps: 1e-6, sscp_conv_channel_size: [128, 32],
      sscp_conv_group_norm_eps: 0.001, sscp_conv_kernel_size: [[3, 3], [3, 3]], sscp_conv_stride_size: [[2, 2], [2, 2]], vocab_offset: 262272, vocab_size: 128,
    },
    text_config: {
      activation_sparsity_pattern: [...Array(10).fill(0.95), ...Array(layers - 10).fill(0)],
      altup_active_idx: 0, altup_coef_clip: 120.0, altup_correct_scale: true, altup_lr_multiplier: 1.0, altup_num_inputs: 4,
      attention_bias: false, attention_dropout: 0.0, final_logit_softcapping: 30.0, head_dim: 256, hidden_activation: 'gelu_pytorch_tanh',
      hidden_size: 2048, hidden_size_per_layer_input: 256, initializer_range: 0.02, intermediate_size: Array(layers).fill(width), laurel_rank: 64,
      layer_types: Array.from({ length: layers }, (_, i) => ((i + 1) % 5 === 0 ? 'full_attention' : 'sliding_attention')),
      max_position_embeddings: 32768, model_type: 'gemma3n_text', num_attention_heads: 8, num_hidden_layers: layers, num_key_value_heads: 2,
      num_kv_shared_layers: shared, query_pre_attn_scalar: 256, rms_norm_eps: 1e-6, rope_local_base_freq: 10000.0, rope_scaling: null,
      rope_theta: 1000000.0, sliding_window: 512, torch_dtype: 'bfloat16', use_cache: true, vocab_size: 262400, vocab_size_per_layer_input: 262144,
    },
    vision_config: {
      architecture: 'mobilenetv5_300m_enc', do_pooling: true, hidden_size: 2048, initializer_range: 0.02, model_args: null,
      model_type: 'gemma3n_vision', num_classes: 2, rms_norm_eps: 1e-6, vocab_offset: 262144, vocab_size: 128,
    },
  };
}
const E4B = gemma3nConfig(35, 16384, 15);
/** google/gemma-3n-E2B-it: 30 layers of MLP width 8192, the last 10 sharing KV; otherwise E4B's keys. */
const E2B = gemma3nConfig(30, 8192, 10);

test('Gemma-3n-E4B is counted as vLLM builds it (was refused): per-layer embeddings, AltUp, LAuReL, the embedders; 3.98B without embeddings, as Google counts its effective parameters', () => {
  const text = JSON.stringify(E4B, null, 2);
  const r = readModelConfig(text);
  const m = r.value!;
  assert.ok(m, JSON.stringify(r.problems));
  assert.deepEqual(r.problems.filter((p) => p.severity !== 'info'), []);
  const p = paramCounts(m);
  // Hand count from vLLM gemma3n.py (h 2048, L 35, V 262,400, Vp 262,144, p 256, n 4, r 64, H 8, H_kv 2, D 256, MLP 16,384):
  //   embed_tokens 262,400 · 2048 = 537,395,200 (tied: no lm_head); embed_tokens_per_layer 262,144 · 35 · 256 = 2,348,810,240;
  //   per layer: q/k/v/o 2048·(8 + 2·2)·256 + 8·256·2048 = 10,485,760, q_norm + k_norm 512; MLP 3 · 2048 · 16,384 = 100,663,296;
  //   AltUp 4² + 4³ + 2048·4 + 2·2048 = 12,368; LAuReL 2·2048·64 + 2048 = 264,192; per-layer gate + projection 2·2048·256 = 1,048,576;
  //   5 RMSNorms 10,240: 112,484,944 a layer, 3,936,973,040 in all;
  //   model: per_layer_model_projection 2048 · 35 · 256 = 18,350,080 + its norm 256, altup (un)embed projections 6 · 2048² = 25,165,824,
  //   final norm 2048. Text model 6,866,696,688.
  //   Embedders (gemma3n_mm.py Gemma3nMultimodalEmbedder): vision 128·2048 + 2·2048 + 2048·2048 = 4,460,544; audio 128·1536 + 2·1536 + 1536·2048 = 3,345,408.
  //   Audio encoder (modeling_gemma3n.py Gemma3nAudioEncoder, d 1536, 8 heads of 192, conv kernel 5): subsampling convs
  //   1·128·3·3 + 128 and 128·32·3·3 + 32, frequency 128 -> 64 -> 32, input_proj_linear 32·32·1536: 1,611,040; a conformer block
  //   2 · (8d² + 2d) + (5d² + 2d + 192) + (3d² + 5d + 2d) + d = 56,644,800, 12 of them: 681,348,640 in all.
  assert.equal(p.breakdown.embedding, 537_395_200 + 2_348_810_240);
  assert.equal(p.breakdown.gemma3n, gemma3nParams(m));
  assert.equal(gemma3nParams(m), 18_350_336 + 25_165_824 + 35 * (12_368 + 264_192 + 1_048_576));
  assert.equal(m.vision!.projectorParams, 4_460_544 + 3_345_408);
  //   Vision tower (timm mobilenetv5_300m_enc, block table of timm/models/mobilenetv5.py), by hand:
  //   stem 3·64·9 + 64 = 1,792; stage 0 (3 EdgeResidual) 180,608 + 2 · 656,000; stage 1 (5 UIR) 317,440 + 2 · 532,480 + 2 · 528,384;
  //   stages 2-3 and the fusion adapter (1920 -> 3840 -> 2048 + norm 2048 = 15,245,056) as mobileNetV5Params' comment: 294,126,848.
  //   KerasHub's preset mobilenetv5_300m_enc_gemma3n says 294,284,096 ("params" metadata): 157,248 more, not explained here.
  assert.equal(m.vision!.params, 681_348_640 + 294_126_848);
  assert.equal(mobileNetV5Params('mobilenetv5_300m_enc'), 294_126_848);
  assert.equal(p.breakdown.vision, 681_348_640 + 294_126_848 + 7_805_952);
  // The card: "the raw parameter count of this model is 8B".
  assert.equal(p.total, 6_866_696_688 + 7_805_952 + 681_348_640 + 294_126_848);
  // google/gemma3n-slicing-configs lists the main (E4B) model at 3.98B effective parameters: the text model without its two embedding tables.
  assert.equal(p.total - p.breakdown.embedding - p.breakdown.vision!, 3_980_491_248);
  assert.equal(m.normsPerLayer, 5);
  assert.equal(m.qkNorm, true);
  assert.equal(m.tieWordEmbeddings, true);
  // Everything counted: no encoder-not-counted info; the estimate's note says what the vision figure holds.
  assert.equal(r.problems.filter((x) => x.code === 'encoder-not-counted').length, 0);
  assert.equal(m.vision!.note, "Gemma 3n: the multimodal embedders (embed_vision, embed_audio) and the vision tower (timm mobilenetv5_300m_enc, MobileNet-V5, from timm's block table) and the audio encoder (Gemma3nAudioEncoder, from audio_config) are counted");
});

test('a Gemma 3n vision architecture timm\'s table here does not have is named as not counted, at vision_config', () => {
  const cfg = structuredClone(E4B);
  (cfg.vision_config as Record<string, unknown>).architecture = 'mobilenetv5_base';
  const text = JSON.stringify(cfg, null, 2);
  const r = readModelConfig(text);
  const info = only(r.problems, 'encoder-not-counted');
  assert.equal(at(text, info), '"vision_config"');
  assert.match(info.message, /; the vision tower \(timm architecture mobilenetv5_base: only mobilenetv5_300m_enc is modelled here\) is not counted$/);
  assert.equal(r.value!.vision!.params, 681_348_640);
});

test('Gemma 3n\'s audio encoder follows audio_config, and a value that is no whole number leaves it out by name (not a silent default)', () => {
  const cfg = structuredClone(E4B);
  const audio = cfg.audio_config as Record<string, unknown>;
  audio.conf_num_hidden_layers = 6;
  audio.sscp_conv_channel_size = [64, 32];
  // 6 blocks of 56,644,800; conv0 64·9 + 64, conv1 64·32·9 + 32: 640 + 18,432 fewer in the subsampling than with 128 channels.
  // (The vision tower's 294,126,848 beside it.)
  assert.equal(readModelConfig(JSON.stringify(cfg)).value!.vision!.params, 294_126_848 + 6 * 56_644_800 + 1_611_040 - 64 * 10 - 64 * 32 * 9);
  audio.conf_num_hidden_layers = 'twelve';
  const text = JSON.stringify(cfg, null, 2);
  const r = readModelConfig(text);
  assert.equal(r.value!.vision!.params, 294_126_848);
  assert.equal(r.value!.vision!.projectorParams, 4_460_544 + 3_345_408);
  assert.match(only(r.problems, 'encoder-not-counted').message, /; the audio encoder is not counted \(audio_config\.conf_num_hidden_layers is not a whole number\)$/);
  assert.equal(paramCounts(r.value!).total, 6_866_696_688 + 7_805_952 + 294_126_848);
});

test('Gemma-3n-E2B: 30 layers of width 8192, 1.91B without embeddings (google/gemma3n-slicing-configs, "Config for official E2B Model")', () => {
  const m = readModelConfig(JSON.stringify(E2B)).value!;
  const p = paramCounts(m);
  // Per layer 10,486,272 + 3 · 2048 · 8192 + 12,368 + 264,192 + 1,048,576 + 10,240 = 62,153,296; · 30 = 1,864,598,880;
  // model 2048 · 30 · 256 + 256 + 25,165,824 + 2048 = 40,896,768: 1,905,495,648 without the embeddings
  // (537,395,200 + 262,144 · 30 · 256 = 2,013,265,920).
  assert.equal(p.total - p.breakdown.embedding - p.breakdown.vision!, 1_905_495_648);
  assert.equal(p.breakdown.embedding, 537_395_200 + 2_013_265_920);
  // The card's "raw parameter count of this model is 5B" (towers as E4B's).
  assert.equal(p.total, 1_905_495_648 + 537_395_200 + 2_013_265_920 + 7_805_952 + 681_348_640 + 294_126_848);
});

test('Gemma 3n\'s last num_kv_shared_layers layers hold no KV: E4B and E2B keep 20 layers (16 sliding, 4 full), 40,960 B a token in bf16, 5 KV-cache groups of 4', () => {
  for (const [cfg, shared] of [[E4B, 15], [E2B, 10]] as const) {
    const text = JSON.stringify(cfg, null, 2);
    const r = readModelConfig(text);
    const m = r.value!;
    assert.equal(m.numKvSharedLayers, shared);
    // 20 layers · 2 (K, V) · 2 KV heads · 256 · 2 B = 40,960 (every layer: 71,680 for E4B, 61,440 for E2B).
    assert.equal(kvBytesPerToken(m, 'bf16'), 40_960);
    // 32,768 tokens: 4 full layers hold all, 16 sliding ones 512: (4 · 32,768 + 16 · 512) · 2048 B.
    assert.equal(kvBytesForSequence(m, 32_768, 'bf16'), (4 * 32_768 + 16 * 512) * 2048);
    // vLLM's hybrid groups over the 20 layers with a KV cache: 4 full, 16 sliding -> groups of 4 (16 >= 1.5 · 4), 1 + 4 of them;
    // a block is 4 layers · 16 tokens · 2048 B = 131,072 B.
    const layout = kvPoolLayout(m, 'bf16', 'bf16', 1, 16, null, 2048);
    assert.equal(layout.kind, 'hybrid');
    assert.deepEqual([layout.groupSize, layout.fullGroups, layout.slidingGroups, layout.blockBytes], [4, 1, 4, 131_072]);
    // A 32,768-token request: ceil(32,768 / 16) = 2,048 full blocks + 4 · (ceil((511 + 2,048) / 16) + 1) = 4 · 161 sliding ones.
    assert.equal(requestReservation(layout, 32_768).blocks, 2_048 + 4 * 161);
    const info = only(r.problems, 'kv-shared-layers');
    assert.equal(at(text, info), '"num_kv_shared_layers"');
    assert.match(info.message, new RegExp(`the last ${shared} of ${shared + 20} layers read the KV of an earlier layer .* count the first 20`));
  }
});

test('Gemma 3n\'s own keys are checked at their keys: an intermediate_size list of the wrong length, num_kv_shared_layers past the layers, a missing laurel_rank', () => {
  const bad = (edit: (t: Record<string, unknown>) => void) => {
    const cfg = structuredClone(E4B);
    edit(cfg.text_config as Record<string, unknown>);
    const text = JSON.stringify(cfg, null, 2);
    const r = readModelConfig(text);
    assert.equal(r.value, null);
    return { text, r };
  };
  {
    const { text, r } = bad((t) => { t.intermediate_size = Array(34).fill(16384); });
    const p = only(r.problems, 'invalid-value');
    assert.equal(p.message, '"intermediate_size" lists 34 widths but num_hidden_layers is 35');
    assert.ok(at(text, p).startsWith('['));
  }
  {
    const { text, r } = bad((t) => { t.num_kv_shared_layers = 35; });
    const p = only(r.problems, 'invalid-value');
    assert.equal(at(text, p), '35');
    assert.match(p.message, /"num_kv_shared_layers" must be at most 34/);
  }
  {
    const { r } = bad((t) => { delete t.laurel_rank; });
    assert.match(only(r.problems, 'missing-field').message, /^missing "laurel_rank"/);
  }
  {
    // One number for every layer reads as the list Gemma3nTextConfig makes of it.
    const cfg = structuredClone(E4B);
    (cfg.text_config as Record<string, unknown>).intermediate_size = 16384;
    assert.equal(paramCounts(readModelConfig(JSON.stringify(cfg)).value!).total, 6_866_696_688 + 7_805_952 + 681_348_640 + 294_126_848);
  }
});

test('Gemma 3n\'s MLP widths per layer are counted layer by layer (a MatFormer slice)', () => {
  const cfg = structuredClone(E2B);
  const widths = Array(30).fill(8192);
  widths[4] = 16384;
  (cfg.text_config as Record<string, unknown>).intermediate_size = widths;
  const m = readModelConfig(JSON.stringify(cfg)).value!;
  assert.equal(m.intermediateSize, 16384);
  assert.deepEqual(m.intermediateSizes, widths);
  // One layer 8192 wider: 3 · 2048 · 8192 = 50,331,648 more than E2B.
  assert.equal(paramCounts(m).total, 1_905_495_648 + 537_395_200 + 2_013_265_920 + 7_805_952 + 681_348_640 + 294_126_848 + 50_331_648);
});

test('under tensor parallelism Gemma 3n\'s ReplicatedLinear AltUp and per-layer input projections, and its AutoModel vision and audio towers, stay whole on every GPU', () => {
  const m = readModelConfig(JSON.stringify(E4B)).value!;
  // Replicated, in parameters: norms 35 · 5 · 2048 + 2048 = 360,448; q/k norms 35 · 512 = 17,920; Gemma 3n (vLLM gemma3n.py
  // ReplicatedLinear and norms) 35 · (AltUp 12,368 + post_laurel_norm 2048 + per_layer_input_gate / per_layer_projection
  // 1,048,576) + per_layer_projection_norm 256 = 37,204,976.
  // The towers (vLLM gemma3n_mm.py Gemma3nForConditionalGeneration.__init__: vision_tower = AutoModel.from_config(
  // config.vision_config), audio_tower = AutoModel.from_config(config.audio_config), transformers modules without
  // vLLM's parallel layers, so whole on every GPU): MobileNet-V5 294,126,848 + audio encoder 681,348,640; the two
  // Gemma3nMultimodalEmbedder split their VocabParallelEmbedding and RowParallelLinear but keep hard / soft
  // RMSNorm whole: 2 · 2048 + 2 · 1536 = 7,168. Σ towers 975,482,656.
  // At tp 2 in bf16 a GPU holds one extra copy of half of each: Σ · 2 B · (2 − 1) / 2.
  const r = replicatedWeights(m, 'bf16', 2);
  assert.equal(r.extraBytesPerGpu, 360_448 + 17_920 + 37_204_976 + 975_482_656);
  assert.ok(r.parts.some((p) => /Gemma 3n's AltUp, per_layer_input_gate and per_layer_projection/.test(p)));
  assert.ok(r.parts.some((p) => /Gemma 3n's vision and audio towers, built whole by transformers' AutoModel/.test(p)));
  // tp 4: three extra copies of the towers, a quarter each: 975,482,656 · 2 B · 3 / 4 = 1,463,223,984 B of the GPU's
  // extra (beside the text model's, which at tp 4 also holds each of the 2 KV heads' k/v projections twice).
  const noTowers = { ...m, vision: { ...m.vision!, replicated: undefined } };
  assert.equal(replicatedWeights(m, 'bf16', 4).extraBytesPerGpu - replicatedWeights(noTowers, 'bf16', 4).extraBytesPerGpu, 1_463_223_984);
});

test('Gemma 3n\'s per-layer-embedding buffer is subtracted from the KV budget as a term of its own (vLLM allocates it while loading the model)', () => {
  // vLLM gemma3n_mm.py Gemma3nForConditionalGeneration.__init__: per_layer_embeddings = torch.zeros(
  // scheduler_config.max_num_batched_tokens, text_config.num_hidden_layers, text_config.hidden_size_per_layer_input)
  // in embed_tokens' dtype, on every GPU. E4B on an H200 (max_num_batched_tokens 8,192, vLLM's default for a
  // >= 70 GiB GPU) in bf16: 8,192 · 35 · 256 · 2 B = 146,800,640 B, at tp 1 and per GPU at tp 2 alike.
  const p = profileFromModelConfig(readModelConfig(JSON.stringify(E4B)).value!, null);
  p.dtype = 'bf16';
  p.device.gpu = 'H200';
  const term = (tp: number) => {
    p.device.tensorParallelSize = tp;
    const e = estimate(p);
    return { buffers: e.pool.reserve.find((t) => t.key === 'buffers'), e };
  };
  const one = term(1);
  assert.equal(one.buffers?.bytes, 146_800_640);
  assert.equal(one.buffers?.subtracted, true);
  assert.match(one.buffers!.basis, /^Gemma 3n per-layer-embedding buffer: max_num_batched_tokens 8,192 · 35 layers · hidden_size_per_layer_input 256 · 2 B$/);
  // The budget is the usable memory less every subtracted term, the buffer among them.
  assert.equal(one.e.pool.budgetBytes, one.e.pool.usableBytes - one.e.pool.reserve.filter((t) => t.subtracted).reduce((s, t) => s + t.bytes, 0));
  assert.equal(term(2).buffers?.bytes, 146_800_640);
  // max_num_batched_tokens sizes it: 2,048 · 35 · 256 · 2 = 36,700,160.
  assert.equal(modelBufferBytes(p.model, 'bf16', 2048).bytes, 36_700_160);
  // Other models allocate none: no term.
  const llama = profileFromModelConfig(readModelConfig(JSON.stringify({ model_type: 'llama', hidden_size: 4096, intermediate_size: 11008, num_attention_heads: 32, num_hidden_layers: 32, vocab_size: 32000 })).value!, null);
  llama.device.gpu = 'H200';
  assert.equal(estimate(llama).pool.reserve.some((t) => t.key === 'buffers'), false);
});
