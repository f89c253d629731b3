// The weights one GPU holds under tensor parallelism, as vLLM places them: split layers / tp plus
// the tensors it replicates (core/estimate replicatedWeights), and the step-time model reading them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { profileFromModelConfig, readModelConfig } from '../../core/config/index';
import { checkProfile, estimate, mlaDecodeCopies, replicatedWeights } from '../../core/estimate/index';
import { formatEstimate } from '../../runner/table';
import { formatBytes, tpWeightsFormula } from '../../core/format';
import { stepTimeModel } from '../../runner/simulate/step-time';
import { fixtureText, loadModel } from './helpers';

const PEAKS = { computeEfficiency: 1, memoryEfficiency: 1, overheadMs: 0 };

test('DeepSeek-V3 at tp 8: vLLM replicates q_a_proj, kv_a_proj_with_mqa, the routers and the norms: +996,075,136 B per GPU', () => {
  // deepseek_v2.py: q_a_proj and kv_a_proj_with_mqa are ReplicatedLinear (fp8 here: 1 B), the gate
  // a replicated GateLinear (bf16, with e_score_correction_bias), RMSNorms whole on every GPU.
  //   a-projections 61 · 7168 · (1536 + 576) · 1 B          =   923,467,776
  //   routers 58 · (7168 · 256 + 256) · 2 B                 =   212,890,624
  //   norms (61 · 2 · 7168 + 7168 + 61 · (1536 + 512)) · 2 B =     2,013,184
  //   Σ 1,138,371,584 B, held 8 times instead of once: + 1,138,371,584 · 7 / 8 = 996,075,136 per GPU.
  const p = profileFromModelConfig(loadModel('DeepSeek-V3'), null);
  p.device.gpu = 'H200';
  p.device.tensorParallelSize = 8;
  const e = estimate(p);
  assert.equal(replicatedWeights(p.model, p.dtype, 8).extraBytesPerGpu, 996_075_136);
  // + 255,852,544: the bf16 copies of kv_b_proj (next test).
  assert.equal(e.weightsBytesPerGpu, Math.ceil(e.weightsBytes / 8) + 996_075_136 + 255_852_544);
  assert.ok(e.notes.some((n) => /MLA q_a_proj and kv_a_proj_with_mqa on every GPU \(ReplicatedLinear\)/.test(n)));
  // The step-time model reads the same per-GPU weights, less the routed experts' share and the
  // input embedding's (129,280 · 7,168 · 2 B / 8 = 231,669,760 B a GPU: a step reads one row a token),
  // with the kv_b_proj copies and the fp8 kv_b_proj apart (decodeWeightsS, prefillWeightsS: read by
  // decode and prefill tokens only, step-time-mla.test.ts).
  const m = stepTimeModel(p, PEAKS);
  const every = (m.weightsS + m.decodeWeightsS! + m.prefillWeightsS!) * 4.8e12;
  assert.ok(Math.abs(every - (e.weightsBytesPerGpu - m.expertWeightsS! * 4.8e12 - 231_669_760)) < 1);
});

test('Llama-3.1-405B at tp 16 with 8 KV heads: each KV head\'s k_proj / v_proj on 2 GPUs (num_kv_head_replicas): +536,254,464 B per GPU', () => {
  // QKVParallelLinear: tp 16 > 8 KV heads → one KV head per GPU, num_kv_head_replicas = 2.
  //   k/v 126 layers · 2 · 8 · 128 · 16,384 · 2 B = 8,455,716,864 B, held twice: + 8,455,716,864 / 16 = 528,482,304
  //   norms (126 · 2 + 1) · 16,384 · 2 B = 8,290,304, held 16 times: + 8,290,304 · 15 / 16 = 7,772,160
  const p = profileFromModelConfig(loadModel('Llama-3.1-405B'), null);
  p.dtype = 'bf16';
  p.device.tensorParallelSize = 16;
  assert.equal(replicatedWeights(p.model, 'bf16', 16).extraBytesPerGpu, 528_482_304 + 7_772_160);
  // tp 8 = H_kv: every KV head on one GPU, only the norms replicate.
  assert.equal(replicatedWeights(p.model, 'bf16', 8).extraBytesPerGpu, (8_290_304 * 7) / 8);
  assert.equal(replicatedWeights(p.model, 'bf16', 1).extraBytesPerGpu, 0);
});

test('the replicated figure is the bytes every GPU holds whole, not their excess over a 1/tp share: one formula in the note, the fit warning, the table and the reserve (s48 newcomer L1)', () => {
  // Llama-3.1-8B bf16 at tp 2: 32 layers · 2 RMSNorms + the final one = 65 norms of hidden 4,096, 2 B each:
  //   65 · 4,096 · 2 = 532,480 B = 520 KiB on both GPUs. The old text said "260 KiB replicated": 532,480 / 2,
  //   what the norms add beyond each GPU's half. Per GPU (15 GiB − 520 KiB) ÷ 2 + 520 KiB.
  const l8 = profileFromModelConfig(loadModel('Llama-3.1-8B'), null);
  l8.dtype = 'bf16';
  l8.device.tensorParallelSize = 2;
  const e8 = estimate(l8);
  assert.deepEqual(e8.replicated, { wholeBytes: 532_480, parts: ['norms on every GPU'] });
  assert.equal(e8.weightsBytesPerGpu, Math.ceil(e8.weightsBytes / 2) + 532_480 / 2);
  const formula8 = '(15 GiB − 520 KiB) ÷ 2 + 520 KiB replicated on every GPU';
  assert.equal(tpWeightsFormula(e8.weightsBytes, 2, e8.replicated), formula8);
  assert.ok(e8.notes.includes(`weights per GPU: ${formatBytes(e8.weightsBytesPerGpu)} = ${formula8} (vLLM: norms on every GPU)`), e8.notes.join('\n'));
  const table = formatEstimate(e8, 'l8', { tensorParallelSize: 2 });
  assert.ok(table.includes(`7.48 GiB per GPU (${formula8})`), table);
  assert.ok(!/260 KiB/.test(table + e8.notes.join('\n')));
  // Llama-3.1-405B bf16 at tp 8 on 80 GiB: (126 · 2 + 1) · 16,384 · 2 B = 8,290,304 B = 7.91 MiB of norms (the old
  // text: 6.92 MiB = 7.91 · 7/8). 756 GiB ÷ 8 = 94.5 GiB do not fit 80 × 0.9 = 72 GiB: the warning in three figures.
  const l405 = profileFromModelConfig(loadModel('Llama-3.1-405B'), null);
  l405.dtype = 'bf16';
  l405.device.tensorParallelSize = 8;
  l405.device.memoryGib = 80;
  const e405 = estimate(l405);
  assert.deepEqual(e405.replicated, { wholeBytes: 8_290_304, parts: ['norms on every GPU'] });
  const fit = checkProfile(l405, e405).find((p) => p.code === 'weights-exceed-device');
  assert.ok(fit?.message.startsWith('weights 94.5 GiB per GPU ((756 GiB − 7.91 MiB) ÷ 8 + 7.91 MiB replicated on every GPU) exceed 80 GiB × 0.90 = 72 GiB:'), fit?.message);
  // tp 16 > 8 KV heads: each GPU holds one KV head's k/v projections, 1/8 of 126 · 2 · 8 · 128 · 16,384 · 2 B = 8,455,716,864 B.
  const r16 = replicatedWeights(l405.model, 'bf16', 16);
  assert.deepEqual({ wholeBytes: r16.wholeBytes, kvHeads: r16.kvHeads }, { wholeBytes: 8_290_304, kvHeads: { bytes: 8_455_716_864, heads: 8 } });
  assert.equal(tpWeightsFormula(756 * 2 ** 30, 16, r16), '(756 GiB − 7.91 MiB − 7.88 GiB) ÷ 16 + 7.91 MiB replicated on every GPU + 7.88 GiB ÷ 8 (k_proj / v_proj: one of the 8 KV heads on each GPU)');
  // With the parts named (the estimate's note, the editor's Weights row): one parenthesis, the KV heads' reason inside it.
  assert.equal(tpWeightsFormula(756 * 2 ** 30, 16, r16, formatBytes, r16.parts), '(756 GiB − 7.91 MiB − 7.88 GiB) ÷ 16 + 7.91 MiB replicated on every GPU + 7.88 GiB ÷ 8 (vLLM: norms on every GPU; k_proj / v_proj of each of the 8 KV heads on 2 GPUs (QKVParallelLinear num_kv_head_replicas))');
  // Its per-GPU figure is the same sum: (T − R − K)/16 + R + K/8 = T/16 + R·15/16 + K/16 (extraBytesPerGpu).
  assert.equal(r16.extraBytesPerGpu, Math.ceil((8_290_304 * 15 + 8_455_716_864) / 16));
});

test('DeepSeek-V3 fp8 at tp 8: vLLM keeps bf16 copies of kv_b_proj (W_UK_T, W_UV) beside the fp8 one: +255,852,544 B per GPU, out of the KV pool', () => {
  // mla_attention.py process_weights_after_loading: "we currently do not have quantized bmm's which
  // are needed for `W_UV` and `W_UK_T`, we just store fp16/bf16 copies" (get_and_maybe_dequant_weights
  // dequantizes kv_b_proj to the activation dtype; W_UK_T and W_UV are views of that new tensor, the
  // fp8 kv_b_proj stays for the prefill). Per layer kv_lora_rank × H · (qk_nope_head_dim + v_head_dim):
  //   61 · 512 · 128 · (128 + 128) = 1,023,410,176 params, 2 B each = 2,046,820,352 B, / 8 = 255,852,544 a GPU.
  const p = profileFromModelConfig(loadModel('DeepSeek-V3'), null);
  p.device.gpu = 'H200';
  p.device.tensorParallelSize = 8;
  assert.deepEqual(mlaDecodeCopies(p.model, 'bf16', 8), { params: 1_023_410_176, bytesPerGpu: 255_852_544 });
  const e = estimate(p);
  assert.equal(e.weightsBytesPerGpu - Math.ceil(e.weightsBytes / 8) - replicatedWeights(p.model, p.dtype, 8).extraBytesPerGpu, 255_852_544);
  assert.equal(e.kvBProjCopiesBytesPerGpu, 255_852_544);
  assert.match(e.pool.reserve.find((t) => t.key === 'weights')!.basis, /\+ 244 MiB bf16 kv_b_proj copies$/);
  assert.ok(e.notes.some((n) => /weights per GPU include 244 MiB of bf16 copies of kv_b_proj's halves W_UK_T and W_UV \(1\.02B quantized kv_b_proj parameters ÷ 8\)/.test(n)), e.notes.join('\n'));
  // The pool is what is left after the weights, copies included: usable − weights − activations − reserves.
  assert.equal(e.pool.budgetSource, 'device');
  assert.equal(e.pool.budgetBytes, e.pool.usableBytes - e.weightsBytesPerGpu - e.pool.activationPeakBytes - e.pool.engineReserveBytes);
  const bf16 = profileFromModelConfig({ ...loadModel('DeepSeek-V3'), quantization: null }, null);
  bf16.device.gpu = 'H200';
  bf16.device.tensorParallelSize = 8;
  // The bf16 checkpoint: W_UK_T and W_UV are views of kv_b_proj's own weight, no copy.
  assert.deepEqual(mlaDecodeCopies(bf16.model, 'bf16', 8), { params: 0, bytesPerGpu: 0 });
  const b = estimate(bf16);
  assert.equal(b.weightsBytesPerGpu, Math.ceil(b.weightsBytes / 8) + replicatedWeights(bf16.model, bf16.dtype, 8).extraBytesPerGpu);
  assert.ok(!b.notes.some((n) => /W_UK_T/.test(n)));
  assert.equal(b.kvBProjCopiesBytesPerGpu, 0);
});

test('an fp8 model without MLA (Llama-3.1-8B, quant_method fp8): no kv_b_proj copies, weights per GPU as before', () => {
  const llama = JSON.parse(fixtureText('Llama-3.1-8B')) as Record<string, unknown>;
  const model = readModelConfig(JSON.stringify({ ...llama, quantization_config: { quant_method: 'fp8', activation_scheme: 'dynamic' } })).value!;
  assert.ok(model.quantization);
  assert.deepEqual(mlaDecodeCopies(model, 'bf16', 2), { params: 0, bytesPerGpu: 0 });
  const p = profileFromModelConfig(model, null);
  p.device.tensorParallelSize = 2;
  const e = estimate(p);
  assert.equal(e.weightsBytesPerGpu, Math.ceil(e.weightsBytes / 2) + replicatedWeights(model, p.dtype, 2).extraBytesPerGpu);
  assert.ok(!e.notes.some((n) => /W_UK_T/.test(n)));
});

test('the estimate carries what its replicated bytes are (TpReplication.parts), the stage\'s own under pipeline parallelism: the editor\'s Weights row names them from there (s50 review 1)', () => {
  // DeepSeek-V3 at tp 8 (the first test): a-projections, routers and norms replicated; the parts as
  // replicatedWeights lists them, carried beside their bytes (1,138,371,584 B whole on every GPU).
  const p = profileFromModelConfig(loadModel('DeepSeek-V3'), null);
  p.device.gpu = 'H200';
  p.device.tensorParallelSize = 8;
  const e = estimate(p);
  assert.equal(e.replicated?.wholeBytes, 1_138_371_584);
  assert.deepEqual(e.replicated?.parts, ['norms on every GPU', 'MoE routers on every GPU (ReplicatedLinear gate)', 'MLA q_a_proj and kv_a_proj_with_mqa on every GPU (ReplicatedLinear)']);
  // Llama-3.1-70B at tp 4 × pp 2: the limiting stage (2 of 2, layers 40-79) replicates its norms only
  // (8 KV heads, tp 4: no k/v copies).
  const q = profileFromModelConfig(loadModel('Llama-3.1-70B'), null);
  q.device.memoryGib = 80;
  q.device.tensorParallelSize = 4;
  q.device.pipelineParallelSize = 2;
  const s = estimate(q).pipeline!;
  assert.deepEqual(s.stages[s.stage]!.replicated?.parts, ['norms on every GPU']);
});
