// The step-time model's weight read for MoE: the dense part every step, the routed experts in the
// expected share a step's tokens touch under uniform routing (runner/simulate/step-time.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expertShareRead, stepSeconds, stepTimeModel, weightReadSeconds } from '../../runner/simulate/step-time';
import { exampleProfile } from '../fixtures/profile';


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
  //   (the card's 30.5B). Dense part 30,532,122,624 − 28,991,029,248 = 1,541,093,376 params.
  // bf16, H100 SXM 3.35e12 B/s at the assumed memory efficiency 0.8 (2.68e12 B/s):
  //   dense 3,082,186,752 B → 1.15007 ms; all experts 57,982,058,496 B → 21.6351 ms.
  // n = 1: share 8/128 = 0.0625 → 1.15007 + 1.35219 = 2.50226 ms (all experts: 22.785 ms).
  // n = 38: share 1 − (120/128)^38 = 1 − e^(38 · ln 0.9375) = 1 − 0.086073 = 0.913927
  //   → 1.15007 + 19.7729 = 20.9230 ms (active only, dense + 8/128 of experts: 2.502 ms).
  const m = stepTimeModel(profileOf('qwen3-30b-a3b'));
  assert.equal(m.numExperts, 128);
  assert.equal(m.numExpertsPerTok, 8);
  const close = (got: number, want: number, what: string) => assert.ok(Math.abs(got - want) / want < 1e-4, `${what}: ${got} vs ${want}`);
  close(m.weightsS, 3_082_186_752 / 2.68e12, 'dense part');
  close(m.expertWeightsS!, 57_982_058_496 / 2.68e12, 'all routed experts');
  close(expertShareRead(m, 38), 0.913927, 'share at 38 tokens');
  close(weightReadSeconds(m, 1), 2.50226e-3, 'weights read at 1 token');
  close(weightReadSeconds(m, 38), 20.9230e-3, 'weights read at 38 tokens');
  // A decode step of one token with no KV is memory-bound: its step time is the weight read.
  close(stepSeconds(m, 1, 0, 0), 2.50226e-3, 'step of 1 token');
  assert.match(m.source, /MoE: .*E · \(1 − \(1 − k\/E\)\^n\) of E = 128 experts .*k = 8 .*uniform routing/);
});

test('dense model: no expert term, the weights read every step are all of them (Llama-3.1-8B)', () => {
  // 16,060,522,496 B bf16 / 2.68e12 B/s = 5.99273 ms whatever the step's token count.
  const m = stepTimeModel(profileOf('llama-3.1-8b'));
  assert.equal(m.expertWeightsS, undefined);
  assert.equal(expertShareRead(m, 1000), 0);
  assert.ok(Math.abs(weightReadSeconds(m, 1000) - 16_060_522_496 / 2.68e12) < 1e-9);
  assert.doesNotMatch(m.source, /MoE/);
});

test('the printed model says how sliding-window layers are counted: at the whole context, an upper bound past the window (gpt-oss-20b)', () => {
  // gpt-oss-20b: 24 attention layers, 12 of them sliding (window 128). The KV term is 49,152 B per
  // token = all 24 layers · 2,048 B, at 3.35e12 B/s · 0.8: 49,152 / 2.68e12 = 18.34 ns per KV token.
  const m = stepTimeModel(profileOf('gpt-oss-20b'));
  assert.ok(Math.abs(m.perKvTokenS - 49_152 / (3.35e12 * 0.8)) < 1e-15, String(m.perKvTokenS));
  assert.match(m.source, /count all 24 attention layers at the whole context, though the 12 sliding-window layers read at most 128 tokens .*upper bounds/);
  assert.doesNotMatch(stepTimeModel(profileOf('llama-3.1-8b')).source, /sliding/);
});

test('under tensor parallelism the step-time model says the GPUs\' communication is not modelled (unmodelled, which the Step time line prints, and its source); at TP 1 it says nothing of it', () => {
  const base = profileOf('qwen3-30b-a3b');
  const tp2 = stepTimeModel({ ...base, device: { ...base.device, tensorParallelSize: 2 } });
  assert.deepEqual(tp2.unmodelled, ['the communication between the 2 tensor-parallel GPUs']);
  assert.match(tp2.source, /tensor parallel 2: .*communication between the GPUs .* is not modelled; overhead_ms 0 ms per step is all that stands for it/);
  const one = stepTimeModel(base);
  assert.equal(one.unmodelled, undefined);
  assert.doesNotMatch(one.source, /tensor parallel/);
});
