// The step-time model's weight read for MoE: the dense part every step, the routed experts in the
// expected share a step's tokens touch under uniform routing (runner/simulate/step-time.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkAttention, chunkedPairs, expertShareRead, kvReadSeconds, pairSeconds, slidingPairs, stepSeconds, stepTimeModel, weightReadSeconds } from '../../runner/simulate/step-time';
import { exampleProfile } from '../fixtures/profile';
import { profileFromModelConfig, readModelConfig } from '../../core/config/index';
import { SCOUT } from '../fixtures/llama4';


function profileOf(model: string) {
  return exampleProfile(`model: ./${model}/config.json\ndevice: { gpu: H100 SXM }\n`);
}

test('MoE step: dense weights every step, routed experts in the share E · (1 − (1 − k/E)^n) of n tokens (Qwen3-30B-A3B, H100 SXM)', () => {
  // By hand from Qwen3-30B-A3B's config.json (hidden 2048, 48 layers all MoE, 128 experts of
  // moe_intermediate_size 768, 8 per token, 32 heads · 128 q, 4 KV heads, vocab 151,936, untied):
  //   one expert 3 · 2048 · 768 = 4,718,592; routed experts 48 · 128 · 4,718,592 = 28,991,029,248
  //   per layer: attention 2048·4096·2 + 2048·512·2 = 18,874,368, q/k norms 256, router
  //   2048 · 128 = 262,144, 2 norms 4,096, experts 603,979,776 → 623,120,640; × 48 = 29,909,790,720
  //   + embedding and lm_head 2 · 151,936 · 2048 = 622,329,856 + final norm 2,048 = 30,532,122,624
  //   (the card's 30.5B). Dense part 30,532,122,624 − 28,991,029,248 = 1,541,093,376 params,
  //   read but the input embedding 151,936 · 2048 = 311,164,928 (one row a token): 1,229,928,448.
  // bf16, H100 SXM 3.35e12 B/s at the assumed memory efficiency 0.8 (2.68e12 B/s):
  //   dense 2,459,856,896 B → 0.917857 ms; all experts 57,982,058,496 B → 21.6351 ms.
  // n = 1: share 8/128 = 0.0625 → 0.917857 + 1.35219 = 2.27005 ms (all experts: 22.553 ms).
  // n = 38: share 1 − (120/128)^38 = 1 − e^(38 · ln 0.9375) = 1 − 0.086073 = 0.913927
  //   → 0.917857 + 19.7729 = 20.6908 ms (active only, dense + 8/128 of experts: 2.270 ms).
  const m = stepTimeModel(profileOf('qwen3-30b-a3b'));
  assert.equal(m.numExperts, 128);
  assert.equal(m.numExpertsPerTok, 8);
  const close = (got: number, want: number, what: string) => assert.ok(Math.abs(got - want) / want < 1e-4, `${what}: ${got} vs ${want}`);
  close(m.weightsS, 2_459_856_896 / 2.68e12, 'dense part');
  close(m.expertWeightsS!, 57_982_058_496 / 2.68e12, 'all routed experts');
  close(expertShareRead(m, 38), 0.913927, 'share at 38 tokens');
  close(weightReadSeconds(m, 1, 1), 2.27005e-3, 'weights read at 1 token');
  close(weightReadSeconds(m, 38, 38), 20.6908e-3, 'weights read at 38 tokens');
  // A decode step of one token with no KV is memory-bound: its step time is the weight read.
  close(stepSeconds(m, 1, 1, chunkAttention(1, 0, 0)), 2.27005e-3, 'step of 1 token');
  assert.match(m.source, /MoE: .*E · \(1 − \(1 − k\/E\)\^n\) of E = 128 experts .*k = 8 .*uniform routing/);
});

test('dense model: no expert term, the weights read every step are all of them but the input embedding (Llama-3.1-8B)', () => {
  // 16,060,522,496 B bf16 less the input embedding 128,256 · 4,096 · 2 = 1,050,673,152 B (a step
  // reads one row of it per token; lm_head, untied, is read whole): 15,009,849,344 B / 2.68e12 B/s
  // = 5.60069 ms whatever the step's token count (5.99273 ms with the whole table).
  const m = stepTimeModel(profileOf('llama-3.1-8b'));
  assert.equal(m.expertWeightsS, undefined);
  assert.equal(expertShareRead(m, 1000), 0);
  assert.ok(Math.abs(weightReadSeconds(m, 1000, 1000) - 15_009_849_344 / 2.68e12) < 1e-9);
  assert.doesNotMatch(m.source, /MoE/);
});

test('per layer type: gpt-oss-20b\'s 12 full-attention layers read the whole context, its 12 sliding-window layers (window 128) at most 128 tokens', () => {
  // gpt-oss-20b: 24 attention layers alternating sliding_attention / full_attention (layer_types),
  // sliding_window 128, 8 KV heads · head_dim 64, 64 query heads. One layer's KV per token in bf16:
  // 2 · 8 · 64 · 2 = 2,048 B; 12 layers of each type: 24,576 B at 3.35e12 B/s · 0.8 = 2.68e12 B/s
  // → 9.1701 ns per KV token for each type (it was 49,152 B = 18.34 ns for all 24 layers at the
  // whole context). Per query-key pair: 4 · 12 · 64 · 64 = 196,608 FLOPs at 989e12 · 0.6 FLOP/s
  // = 0.33132 ns for each type.
  const m = stepTimeModel(profileOf('gpt-oss-20b'));
  const close = (got: number, want: number, what: string) => assert.ok(Math.abs(got - want) / want < 1e-9, `${what}: ${got} vs ${want}`);
  close(m.perKvTokenS, 24_576 / 2.68e12, 'full layers per KV token');
  close(m.perSlidingKvTokenS!, 24_576 / 2.68e12, 'sliding layers per KV token');
  close(m.perPairS, 196_608 / (989e12 * 0.6), 'full layers per pair');
  close(m.perSlidingPairS!, 196_608 / (989e12 * 0.6), 'sliding layers per pair');
  assert.equal(m.slidingWindow, 128);
  // A decode token at a context of 10,000 reads 10,000 tokens in each full layer and 128 in each
  // sliding one: 9.1701 ns · (10,000 + 128) = 92.875 µs (every layer at the whole context:
  // 18.340 ns · 10,000 = 183.40 µs); its pairs likewise 0.33132 ns · 10,128 = 3.3556 µs.
  const decode = chunkAttention(1, 10_000, 128);
  assert.deepEqual(decode, { kvTokens: 10_000, pairs: 0, decodePairs: 10_000, slidingKvTokens: 128, slidingPairs: 128, decodeTokens: 1, prefillContextTokens: 0 });
  close(kvReadSeconds(m, decode), (24_576 / 2.68e12) * 10_128, 'KV read of a decode token at 10,000');
  close(pairSeconds(m, decode), (196_608 / (989e12 * 0.6)) * 10_128, 'pairs of a decode token at 10,000');
  assert.match(m.source, /attention per layer type: the 12 full-attention layers read the whole context \(9\.17 ns\/KV token\) and attend every earlier token, the 12 sliding-window layers read min\(context, 128\) tokens \(9\.17 ns\/KV token\) and attend only the query-key pairs inside the window/);
  assert.doesNotMatch(m.source, /upper bound/);
  const dense = stepTimeModel(profileOf('llama-3.1-8b'));
  assert.equal(dense.slidingWindow, undefined);
  assert.doesNotMatch(dense.source, /sliding|per layer type/);
});

test('Llama 4\'s chunked layers read only the query\'s own chunk (its chunk size, said so); linear-attention layers count no KV and no pairs', () => {
  // Llama 4 Scout's text config: 48 layers, every 4th global (NoPE), the other 36 chunked by
  // attention_chunk_size 8,192; 8 KV heads · head_dim 128 → 2 · 8 · 128 · 2 = 4,096 B per layer
  // and token in bf16. On the default H100 SXM at 0.8 · 3.35e12 = 2.68e12 B/s: full layers
  // 12 · 4,096 = 49,152 B, chunked 36 · 4,096 = 147,456 B per KV token.
  const scout = readModelConfig(SCOUT).value!;
  const close = (got: number, want: number, what: string) => assert.ok(Math.abs(got - want) / want < 1e-9, `${what}: ${got} vs ${want}`);
  const m = stepTimeModel(profileFromModelConfig(scout, null));
  close(m.perKvTokenS, 49_152 / 2.68e12, 'full layers');
  close(m.perSlidingKvTokenS!, 147_456 / 2.68e12, 'chunked layers');
  assert.equal(m.attentionChunkSize, 8192);
  assert.equal(m.slidingWindow, undefined);
  assert.match(m.source, /the 12 full-attention layers .* the 36 chunked local-attention layers read only their own 8,192-token chunk so far \(\(position mod 8,192\) \+ 1 tokens per decode token, 55 ns\/KV token\)/);
  assert.doesNotMatch(m.source, /upper bound/);
  // A decode token at position 10,000 (context 10,001): the full layers read all 10,001 tokens,
  // the chunked ones those of chunk 8,192..16,383 so far, 10,000 − 8,192 + 1 = 1,809 (a window
  // of 8,192 would read 8,192): 10,001 · 49,152 + 1,809 · 147,456 = 758,317,056 B at 2.68e12 B/s.
  close(kvReadSeconds(m, chunkAttention(1, 10_001, 0, m.attentionChunkSize)), 758_317_056 / 2.68e12, 'decode KV read at 10,000');
  // A Qwen3-Next-style toy: 8 layers, every 4th full_attention, the rest linear_attention; 16 heads
  // · head_dim 256, 2 KV heads. Only the 2 full layers read KV (2 · 2 · 256 · 2 = 2,048 B each) and
  // attend pairs: 4 · 2 · 16 · 256 = 32,768 FLOPs per pair at 989e12 · 0.6 (all 8 layers: 131,072).
  const layerTypes = Array.from({ length: 8 }, (_, i) => ((i + 1) % 4 === 0 ? 'full_attention' : 'linear_attention'));
  const next = readModelConfig(JSON.stringify({
    model_type: 'qwen3_next', hidden_size: 4096, num_attention_heads: 16, num_key_value_heads: 2, head_dim: 256, num_hidden_layers: 8,
    vocab_size: 128, intermediate_size: 14336, layer_types: layerTypes,
  })).value!;
  const q = stepTimeModel(profileFromModelConfig(next, null));
  close(q.perKvTokenS, 4_096 / 2.68e12, 'full layers\' KV');
  close(q.perPairS, 32_768 / (989e12 * 0.6), 'full layers\' pairs');
  assert.equal(q.slidingWindow, undefined);
  assert.match(q.source, /the 2 full-attention layers read the whole context .*, the 6 linear-attention layers keep a constant state: no KV read, no query-key pairs/);
});

test('a chunk\'s query-key pairs inside a window of W tokens: Σ min(i + 1, W) over its query positions i', () => {
  // W = 4, positions 0..9: 1 + 2 + 3 + 4 + 4 + 4 + 4 + 4 + 4 + 4 = 34; positions 6..9: 4 · 4 = 16;
  // positions 0..2 (inside the window): 1 + 2 + 3 = 6; no window (W >= 10): 1 + .. + 10 = 55.
  assert.equal(slidingPairs(0, 10, 4), 34);
  assert.equal(slidingPairs(6, 10, 4), 16);
  assert.equal(slidingPairs(0, 3, 4), 6);
  assert.equal(slidingPairs(0, 10, 10), 55);
  // The chunk of positions 6..9 after 6 cached tokens: full layers read all 10 keys and attend
  // 7 + 8 + 9 + 10 = 34 pairs; sliding ones read keys 3..9 (query 6 sees 3..6): 7 = min(10, 4 + 4 − 1).
  assert.deepEqual(chunkAttention(4, 10, 4), { kvTokens: 10, pairs: 34, decodePairs: 0, slidingKvTokens: 7, slidingPairs: 16, decodeTokens: 0, prefillContextTokens: 6 });
  assert.deepEqual(chunkAttention(4, 10, 0), { kvTokens: 10, pairs: 34, decodePairs: 0, slidingKvTokens: 0, slidingPairs: 0, decodeTokens: 0, prefillContextTokens: 6 });
});

test('a chunk\'s query-key pairs in chunked local attention of C tokens: Σ ((i mod C) + 1) over its query positions i', () => {
  // C = 4, positions 0..9: (1 + 2 + 3 + 4) · 2 + 1 + 2 = 23; positions 6..9: 3 + 4 + 1 + 2 = 10;
  // positions 0..2: 1 + 2 + 3 = 6; one chunk as large as the sequence (C = 10): 1 + .. + 10 = 55.
  assert.equal(chunkedPairs(0, 10, 4), 23);
  assert.equal(chunkedPairs(6, 10, 4), 10);
  assert.equal(chunkedPairs(0, 3, 4), 6);
  assert.equal(chunkedPairs(0, 10, 10), 55);
  // The chunk of positions 6..9 after 6 cached tokens: the chunked layers read keys 4..9 (from the
  // start of position 6's chunk) = 6, where a window of 4 reads 7 (keys 3..9).
  assert.deepEqual(chunkAttention(4, 10, 0, 4), { kvTokens: 10, pairs: 34, decodePairs: 0, slidingKvTokens: 6, slidingPairs: 10, decodeTokens: 0, prefillContextTokens: 6 });
  // Decode tokens at positions 11 and 12 (contexts 12, 13): 4 keys (8..11), then 1 (a new chunk).
  assert.deepEqual(chunkAttention(1, 12, 0, 4), { kvTokens: 12, pairs: 0, decodePairs: 12, slidingKvTokens: 4, slidingPairs: 4, decodeTokens: 1, prefillContextTokens: 0 });
  assert.deepEqual(chunkAttention(1, 13, 0, 4), { kvTokens: 13, pairs: 0, decodePairs: 13, slidingKvTokens: 1, slidingPairs: 1, decodeTokens: 1, prefillContextTokens: 0 });
});

test('under tensor parallelism the step-time model charges the all-reduces and lists only the paths it leaves out (unmodelled, which the Step time line prints); at TP 1 it says nothing of them', () => {
  // Qwen3-30B-A3B: 48 layers, each attention + a MoE block (one all-reduce of the experts' sum), and
  // the embedding's: 97 calls.
  const base = profileOf('qwen3-30b-a3b');
  const tp2 = stepTimeModel({ ...base, device: { ...base.device, tensorParallelSize: 2 } });
  assert.deepEqual(tp2.unmodelled, ["FlashInfer's all-reduce (+ RMSNorm fusion) where enabled and the logits' all-gather over the tensor-parallel GPUs"]);
  assert.match(tp2.source, /tensor parallel 2: .*97 all-reduces a step/);
  assert.ok(Math.abs(tp2.allReduceS! - 97 * 10e-6) < 1e-15);
  const one = stepTimeModel(base);
  assert.equal(one.unmodelled, undefined);
  assert.doesNotMatch(one.source, /tensor parallel/);
});

test('dtype fp32 runs its FLOPs at the GPU\'s fp32 peak, not the bf16 tensor-core peak; fp16 at the bf16 peak\'s rate, labelled fp16 (Llama-3.1-8B, H100 SXM and A10)', () => {
  // Peaks from the vendors' datasheets: H100 SXM FP32 67 TFLOPS, dense BF16 / FP16 tensor core
  // 989 TFLOPS; A10 FP32 31.2 TFLOPS. TF32 tensor cores stay off: PyTorch's matmul default since
  // 1.12 (docs, notes/cuda "TensorFloat-32 (TF32) on Ampere (and later) devices").
  // By hand, at the assumed compute efficiency 0.6: 2 · (7,504,924,672 active compute params (all
  // but the embedding) − lm_head's 128,256 · 4,096 = 525,336,576, charged per request) =
  // 13,959,176,192 FLOPs per token / (67e12 · 0.6) = 347.24 µs per token (bf16: 23.52 µs; with
  // lm_head at every token 25.29 µs, the newcomer's 25.3 µs/token); 4 · 32 layers · 32 heads
  // · 128 = 524,288 FLOPs per query-key pair / (67e12 · 0.6) = 13.042 ns (bf16: 0.8836 ns).
  const close = (got: number, want: number, what: string) => assert.ok(Math.abs(got - want) / want < 1e-9, `${what}: ${got} vs ${want}`);
  const of = (yaml: string) => stepTimeModel(exampleProfile(`model: ./llama-3.1-8b/config.json\n${yaml}`));
  const fp32 = of('device: { gpu: H100 SXM }\ndtype: fp32\n');
  close(fp32.perTokenS, 13_959_176_192 / (67e12 * 0.6), 'fp32 per token');
  close(fp32.perPairS, 524_288 / (67e12 * 0.6), 'fp32 per pair');
  assert.match(fp32.source, /^llama on H100 SXM: dtype fp32 at fp32 67 TFLOP\/s \(NVIDIA H100 .*FP32 67 .*TF32 .* off by default/);
  assert.match(fp32.source, /FLOPs at 0\.6 × fp32 peak\)/);
  const fp16 = of('device: { gpu: H100 SXM }\ndtype: fp16\n');
  close(fp16.perTokenS, 13_959_176_192 / (989e12 * 0.6), 'fp16 per token');
  // The rate is the bf16 one, the label the dtype the model runs in (s38 newcomer: an AWQ float16
  // model's line said "bf16 989 TFLOP/s dense").
  assert.match(fp16.source, /^llama on H100 SXM: fp16 989 TFLOP\/s dense, memory 3\.35 TB\/s, from the NVIDIA H100 .*; fp16 at the bf16 tensor-core rate/);
  assert.match(fp16.source, /FLOPs at 0\.6 × fp16 peak\)/);
  assert.doesNotMatch(fp16.source, /bf16 989/);
  close(of('device: { gpu: A10 }\ndtype: fp32\n').perPairS, 524_288 / (31.2e12 * 0.6), 'A10 fp32 per pair');
});

test('a profile without device.gpu is timed on the default H100 SXM, and the Step time line says so; a named H100 SXM is not called the default', () => {
  const none = stepTimeModel(exampleProfile('model: ./llama-3.1-8b/config.json\n'));
  const named = stepTimeModel(exampleProfile('model: ./llama-3.1-8b/config.json\ndevice: { gpu: H100 SXM }\n'));
  // The same peaks (core/estimate/gpus.ts DEFAULT_GPU), one line saying where they come from.
  assert.equal(none.perTokenS, named.perTokenS);
  assert.match(none.source, /^llama on H100 SXM \(device\.gpu not set: the default\): bf16 989 TFLOP\/s dense/);
  assert.match(named.source, /^llama on H100 SXM: bf16 989 TFLOP\/s dense/);
});
