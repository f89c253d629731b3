// lm_head in the step-time model: vLLM multiplies it only at the logits rows, one per request
// scheduled in a step, not at every scheduled token (runner/simulate/step-time.ts perLogitsS).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { profileFromModelConfig } from '../../core/config/index';
import { chunkAttention, stepSeconds, stepTimeModel } from '../../runner/simulate/step-time';
import { loadModel } from './helpers';

const PEAKS = { computeEfficiency: 1, memoryEfficiency: 1, overheadMs: 0 };

test('Llama-3.1-8B: lm_head (128,256 × 4,096) once per request scheduled, as vLLM computes logits only at logits_indices; the rest per token', () => {
  // vllm/v1/worker/gpu_model_runner.py _prepare_inputs, without speculative decoding:
  // logits_indices = query_start_loc[1:] - 1 (each request's last scheduled token; "the batch may
  // contain partial requests ... we do so for simplicity", their samples discarded), then
  // sample_hidden_states = hidden_states[logits_indices]; logits = compute_logits(...).
  // By hand from Llama-3.1-8B's config.json: lm_head 128,256 · 4,096 = 525,336,576 params;
  // active compute params 7,504,924,672 (all but the embedding lookup) → 6,979,588,096 per token.
  // H100 SXM bf16 989e12 FLOP/s at efficiency 1:
  //   perTokenS = 2 · 6,979,588,096 / 989e12 = 14.1144 µs; perLogitsS = 2 · 525,336,576 / 989e12 = 1.06236 µs.
  const m = stepTimeModel(profileFromModelConfig(loadModel('Llama-3.1-8B'), null), PEAKS);
  const close = (got: number, want: number, what: string) => assert.ok(Math.abs(got / want - 1) < 1e-12, `${what}: ${got} vs ${want}`);
  close(m.perTokenS, 13_959_176_192 / 989e12, 'per token');
  close(m.perLogitsS!, 1_050_673_152 / 989e12, 'per request (lm_head)');
  // One 8,000-token prompt in one step (compute-bound): 8,000 · 13,959,176,192 + 1,050,673,152
  // + 32,004,000 pairs · 524,288 = 1.28454e14 FLOPs / 989e12 = 129.882 ms; charging lm_head at
  // all 8,000 tokens gave 8,000 · 15,009,849,344 + the same pairs = 1.36858e14 → 138.380 ms (6.5% more).
  const pairs = (8000 * 8001) / 2;
  close(stepSeconds(m, 8000, 1, chunkAttention(8000, 8000, 0)), (8000 * 13_959_176_192 + 1_050_673_152 + pairs * 524_288) / 989e12, 'an 8,000-token prefill');
  assert.match(m.source, /lm_head \(vocab_size 128,256 × hidden_size 4,096\) once per request scheduled in a step, not per token/);
});

test('a run saved before perLogitsS (lm_head in perTokenS) steps as before: no lm_head term', () => {
  const old = { perStepS: 0, weightsS: 0, perKvTokenS: 0, perTokenS: 2e-6, perPairS: 0 };
  // 100 tokens · 2 µs, whatever the 3 requests: 200 µs.
  assert.ok(Math.abs(stepSeconds(old, 100, 3, chunkAttention(100, 100, 0)) - 2e-4) < 1e-18);
});
