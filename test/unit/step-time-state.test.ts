// The recurrent state of Mamba / Gated DeltaNet / lightning / short-conv layers in the step-time
// model: each step reads and writes every scheduled request's state once (runner/simulate/step-time.ts
// perRequestStateS, native/src/pool/simulator.h per_request_state_s). vLLM updates it in place by
// state index: decode in selective_state_update / causal_conv1d_update / linear_decode_forward_triton
// (which loads kv_cache and stores the decayed sum: vllm/model_executor/layers/lightning_attn.py),
// a prefill chunk gathers its initial state (ssm_state[state_indices_tensor_p]) and writes the final
// one back (vllm/model_executor/layers/mamba/mamba_mixer2.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { profileFromModelConfig, readModelConfig, type ModelSpec } from '../../core/config/index';
import { DEFAULT_ENGINE } from '../../core/estimate/index';
import type { Profile } from '../../core/config/types';
import { chunkAttention, stepSeconds, stepTimeModel, stepWork, sumAttention } from '../../runner/simulate/step-time';
import { formatPoolSummary, simulatePool } from '../../runner/simulate/index';
import { LFM2_1_2B, MINIMAX_M1 } from '../fixtures/linearHybrids';
import { exampleProfile } from '../fixtures/profile';
import { loadModel } from './helpers';

function read(config: object): ModelSpec {
  const r = readModelConfig(JSON.stringify(config));
  assert.ok(r.value, JSON.stringify(r.problems));
  return r.value;
}

function minimax(gpu: string, tp: number, pp = 1): Profile {
  const base = profileFromModelConfig(read(MINIMAX_M1), null);
  return { ...base, device: { ...base.device, gpu, tensorParallelSize: tp, pipelineParallelSize: pp }, engine: { ...DEFAULT_ENGINE, vllmVersion: '0.11.0' } };
}

const close = (got: number, want: number, what: string) => assert.ok(Math.abs(got / want - 1) < 1e-9, `${what}: ${got} vs ${want}`);

test('MiniMax-M1 at tp 8 on an H200: 17.5 MiB of lightning state per sequence per GPU, read and written each step; 256 decoding sequences add 2.45 ms', () => {
  // By hand (minimax.test.ts): 70 lightning layers · (64 / 8) heads · 128 · 128 · 2 B = 18,350,080 B
  // (17.5 MiB) per sequence per GPU. Read + write: 36,700,160 B a request; H200 4.8 TB/s at the
  // assumed memory efficiency 0.8 (3.84 TB/s): 9.5573 µs a request. 256 decoding sequences:
  // 256 · 36,700,160 = 9,395,240,960 B / 3.84e12 = 2.44668 ms, where the step reads ~114 GB of
  // weights a GPU (all 32 experts touched by 256 tokens): ~29.7 ms, so the step is memory-bound and
  // grows by exactly that (8%, s39 newcomer F14's figure).
  const m = stepTimeModel(minimax('H200', 8));
  close(stepWork(minimax('H200', 8)).perRequestStateS, 36_700_160 / 4.8e12, 'at peak');
  close(m.perRequestStateS!, 36_700_160 / 3.84e12, 'per request');
  const decodes = sumAttention([chunkAttention(1, 2000, 0), 256]);
  const { perRequestStateS: _state, ...without } = m;
  const added = stepSeconds(m, 256, 256, decodes) - stepSeconds(without, 256, 256, decodes);
  close(added, 9_395_240_960 / 3.84e12, 'added at 256 sequences');
  assert.ok(Math.abs(added - 2.44668e-3) < 1e-8, `${added}`);
  // Per scheduled request, not per token: one 8,192-token prefill chunk pays one request's state.
  const prefill = chunkAttention(8192, 8192, 0);
  const { perRequestStateS: _s, ...w0 } = m;
  assert.ok(stepSeconds(m, 8192, 1, prefill) - stepSeconds(w0, 8192, 1, prefill) <= m.perRequestStateS! * (1 + 1e-9));
  assert.match(m.source, /step = max\(weights \+ KV \+ recurrent state read at 0\.8 × bandwidth/);
  assert.match(m.source, /recurrent state: the 70 lightning attention layers keep 17\.5 MiB per sequence per GPU \(the estimate's state per sequence\), read and written once per request scheduled in a step, a decode token or a prefill chunk alike \(9\.56 µs a request at 0\.8 × bandwidth\): vLLM's kernels update/);
});

test('pipeline parallel: each stage charges its own recurrent-state layers (MiniMax-M1 tp 8 × pp 2: 35 lightning layers a stage)', () => {
  // get_pp_indices: 40 + 40 layers; each block of 8 has 7 lightning layers, so 35 a stage:
  // 35 · 8 · 128 · 128 · 2 = 9,175,040 B a sequence per GPU; read + write 18,350,080 B / 3.84e12.
  const m = stepTimeModel(minimax('H200', 8, 2));
  assert.equal(m.stages?.length, 2);
  for (const st of m.stages!) close(st.perRequestStateS!, 18_350_080 / 3.84e12, 'stage');
  close(m.perRequestStateS!, 36_700_160 / 3.84e12, 'whole model (the stages\' sum)');
});

test('a pure-attention model has no state term and its step is unchanged: Llama-3.1-8B on an H100 SXM, 64 decodes at context 1,000 take 8.7308 ms', () => {
  // By hand from config.json: weights 8,030,261,248 · 2 = 16,060,522,496 B less the input embedding
  // 128,256 · 4,096 · 2 = 1,050,673,152 B (read a row a token) = 15,009,849,344 B; KV 32 layers · 2 ·
  // 8 · 128 · 2 = 131,072 B a token, 64 · 1,000 tokens = 8,388,608,000 B; 23,398,457,344 B at
  // 0.8 · 3.35 TB/s = 8.730768 ms. FLOPs 64 · (13,959,176,192 + 1,050,673,152) + 64,000 pairs ·
  // 524,288 = 9.94e14 at 0.6 · 989 TFLOP/s: 1.68 ms, below it.
  const p = profileFromModelConfig(loadModel('Llama-3.1-8B'), null);
  const m = stepTimeModel({ ...p, device: { ...p.device, gpu: 'H100 SXM' } });
  assert.equal(m.perRequestStateS, undefined);
  assert.equal(stepWork(p).perRequestStateS, 0);
  close(stepSeconds(m, 64, 64, sumAttention([chunkAttention(1, 1000, 0), 64])), 23_398_457_344 / 2.68e12, 'decode step');
  assert.doesNotMatch(m.source, /recurrent state/);
});

test('the Step time line names the state term: LFM2-1.2B on an L40S, 237 ns a request', async () => {
  // 10 short-conv layers · 2,048 · (3 − 1) · 2 B = 81,920 B a sequence (core/estimate); read + write
  // 163,840 B at 0.8 · 864 GB/s = 691.2 GB/s: 237.04 ns.
  const p = exampleProfile([
    `model: ${JSON.stringify(LFM2_1_2B)}`,
    'device: { gpu: L40S }',
    'kv_cache: { page_size: 16, num_pages: 200 }',
    'workload: { max_model_len: 256 }',
  ].join('\n'));
  const text = formatPoolSummary(await simulatePool(p, { trace: [{ arrivalS: 0, promptLen: 6, outputLen: 3 }] }));
  // The block's memory term (what a step reads): the state read and written per request after the weights and KV.
  const memory = text.split('\n').find((l) => l.startsWith('  memory: '))!;
  assert.match(memory, /^ {2}memory: [^,]+ \+ 237 ns\/request \(recurrent state\)$/, text);
});
