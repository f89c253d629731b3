// Pipeline parallelism as vLLM lays it out (core/estimate/pipeline.ts, estimate's stages): the layer
// split of get_pp_indices, what each stage holds, and the pool's block count unified over the stages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { profileFromModelConfig, readProfile } from '../../core/config/index';
import type { Profile } from '../../core/config/types';
import { estimate, paramCounts, pipelineLayerCounts, pipelineStagesOf, stageWeights, weightsBytes } from '../../core/estimate/index';
import { fixtureText, loadModel } from './helpers';
import { simulatePool, stepSeconds } from '../../runner/simulate/index';
import { chunkAttention, stageSendPerTokenS } from '../../runner/simulate/step-time';

/** A profile of `name` on `memoryGib` per GPU with every engine reserve 0: the KV budget is memory · 0.9 − weights per GPU. */
function bare(name: string, tp: number, pp: number, memoryGib = 80): Profile {
  const p = profileFromModelConfig(loadModel(name), null);
  p.dtype = 'bf16';
  p.device = { ...p.device, memoryGib, tensorParallelSize: tp, pipelineParallelSize: pp };
  p.engine = { ...p.engine!, nonTorchGib: 0, ncclGib: 0, cudaGraphGib: 0, activationGib: 0 };
  return p;
}

test('get_pp_indices: floor(L / pp) layers each, the remainder one each to the stages before the last', () => {
  // vllm/distributed/utils.py: partitions[-i] += 1 for i in 2 .. r + 1 (the last stage holds the
  // final norm and lm_head and gets no extra layer). vLLM's tests: 5 layers over 2 -> (0,3),(3,5);
  // over 3 -> (0,2),(2,4),(4,5).
  assert.deepEqual(pipelineLayerCounts(5, 2), [3, 2]);
  assert.deepEqual(pipelineLayerCounts(5, 3), [2, 2, 1]);
  assert.deepEqual(pipelineLayerCounts(80, 2), [40, 40]);
  // 80 over 3: 26 each, r = 2 -> the 2nd and 1st stages get one more.
  assert.deepEqual(pipelineLayerCounts(80, 3), [27, 27, 26]);
  // Llama-3.1-405B's 126 layers over 16: 7 each, r = 14 -> stages 2..15 (1-based) get 8.
  assert.deepEqual(pipelineLayerCounts(126, 16), [7, ...new Array(14).fill(8), 7]);
  assert.deepEqual(pipelineStagesOf(61, 2).map((s) => [s.start, s.end]), [[0, 31], [31, 61]]);
  assert.throws(() => pipelineLayerCounts(4, 5), RangeError);
});

test('Llama-3.1-70B tp 4 × pp 2: 40 layers a stage, 16.4 GiB weights and 40 KiB KV per token per GPU, 2.8x the blocks of tp 4 alone', () => {
  // Per layer: attention 8192 · (64 + 2 · 8) · 128 + 64 · 128 · 8192 = 150,994,944, MLP 3 · 8192 · 28,672
  // = 704,643,072, norms 2 · 8192: 855,654,400. Embedding = lm_head = 128,256 · 8192 = 1,050,673,152.
  // Stage 2 (layers 40-79): 40 · 855,654,400 + 1,050,673,152 + 8,192 (final norm) = 35,276,857,344
  //   params = 70,553,714,688 B; per GPU ÷ 4 = 17,638,428,672, + its norms (40 · 16,384 + 8,192) · 2 B
  //   held 4 times: 1,327,104 · 3 / 4 = 995,328 -> 17,639,424,000 B (16.43 GiB).
  // Stage 1 (layers 0-39, the embedding, no final norm): 17,638,424,576 + 1,310,720 · 3 / 4 = 17,639,407,616.
  // KV: 40 layers · 2 · (8 / 4) · 128 · 2 B = 40,960 B per token; a page of 16 tokens 655,360 B.
  // Budget 80 GiB · 0.9 = 77,309,411,328 − 17,639,424,000 = 59,669,987,328 -> 91,049 blocks (stage 1:
  //   59,670,003,712 -> 91,049 too; the tie goes to the stage with more weights, stage 2).
  // tp 4 alone: 80 layers, 35,278,831,616 B per GPU, 1,310,720 B a page -> 32,066 blocks.
  const e = estimate(bare('Llama-3.1-70B', 4, 2));
  assert.deepEqual(e.pipeline?.stages.map((s) => [s.start, s.end]), [[0, 40], [40, 80]]);
  assert.equal(e.pipeline?.stages[1].weightsBytes, 70_553_714_688);
  assert.equal(e.pipeline?.stages[0].weightsBytesPerGpu, 17_639_407_616);
  assert.equal(e.pipeline?.stage, 1);
  assert.equal(e.weightsBytesPerGpu, 17_639_424_000);
  assert.equal(e.kvBytesPerToken, 40_960);
  assert.equal(e.pageBytes, 655_360);
  assert.equal(e.pool.pages, 91_049);
  assert.equal(e.pool.tokens, 91_049 * 16);
  assert.deepEqual(e.pipeline?.stages.map((s) => s.pages), [91_049, 91_049]);
  const alone = estimate(bare('Llama-3.1-70B', 4, 1));
  assert.equal(alone.pipeline, undefined);
  assert.equal(alone.weightsBytesPerGpu, 35_278_831_616);
  assert.equal(alone.pool.pages, 32_066);
  assert.ok(e.notes.some((n) => /pipeline_parallel_size 2: 8 GPUs; vLLM splits the 80 layers 40 \+ 40 \(get_pp_indices\)/.test(n)));
});

test('Llama-3.1-70B over pp 3: stages of 27, 27 and 26 layers, the pool sized by stage 1 (27 layers and the embedding)', () => {
  // Stage 1: 27 · 855,654,400 + 1,050,673,152 = 24,153,341,952 params = 48,306,683,904 B, tp 1: + 0.
  // Its page: 27 layers · 16 · 2 · 8 · 128 · 2 B = 1,769,472 B. Budget 200 GiB · 0.9 = 193,273,528,320
  // − 48,306,683,904 = 144,966,844,416 -> 81,926 blocks. Stage 3 (26 layers, lm_head, norm) fits more.
  const e = estimate(bare('Llama-3.1-70B', 1, 3, 200));
  assert.deepEqual(e.pipeline?.stages.map((s) => s.end - s.start), [27, 27, 26]);
  assert.equal(e.pipeline?.stage, 0);
  assert.equal(e.weightsBytesPerGpu, 48_306_683_904);
  assert.equal(e.pageBytes, 1_769_472);
  assert.equal(e.pool.pages, 81_926);
  assert.ok(e.pipeline!.stages[2].pages > 81_926);
});

test('tied embeddings (Llama-3.2-3B): the last stage holds its own copy of the embedding as lm_head', () => {
  // llama.py: embed_tokens on `is_first_rank or (tie_word_embeddings and is_last_rank)`. Per layer
  // 3072 · (24 + 16) · 128 + 24 · 128 · 3072 + 3 · 3072 · 8192 + 2 · 3072 = 100,669,440; embedding
  // 128,256 · 3072 = 394,002,432. Stage 2 (layers 14-27): 14 · 100,669,440 + 394,002,432 + 3072 (norm)
  // = 1,803,377,664 params = 3,606,755,328 B. The stages together: the model + one more embedding.
  const p = bare('Llama-3.2-3B', 1, 2);
  const e = estimate(p);
  assert.equal(e.pipeline?.stages[1].weightsBytes, 3_606_755_328);
  assert.equal(e.pipeline!.stages[0].weightsBytes + e.pipeline!.stages[1].weightsBytes, e.weightsBytes + 394_002_432 * 2);
  assert.ok(e.notes.some((n) => /stage 2 \(layers 14-27\) also holds the final norm and the embedding as tied lm_head/.test(n)));
});

test('the stages hold every weight once (untied models): MoE patterns, MLA and fp8 kept on the right layers', () => {
  // A stage's slice keeps which layers are dense (DeepSeek-V3's first_k_dense_replace 3, Mixtral
  // all MoE) and quantized: the stages' weights add up to the whole model's, at every pp.
  for (const [name, pps] of [['DeepSeek-V3', [2, 4, 7]], ['Mixtral-8x7B-v0.1', [2, 3]], ['Qwen2.5-7B', [2, 5]]] as const) {
    const model = loadModel(name);
    const whole = weightsBytes(model, 'bf16', paramCounts(model));
    for (const pp of pps) {
      const sum = pipelineStagesOf(model.numLayers, pp).reduce((s, stage) => s + stageWeights(model, 'bf16', 1, stage).bytes, 0);
      assert.equal(sum, whole, `${name} pp ${pp}`);
    }
  }
});

test('sliding-window hybrid (gpt-oss-120b) over pp 2 and 4: a block covers the layers its groups have on the stage', () => {
  // 36 layers alternating sliding / full: vLLM's groups from the whole model, 1 full and 1 sliding
  // group of 18. Projected on layers 0-17: 9 of each -> a block of 9 layers; over pp 4, layers 0-8
  // hold 5 sliding (0, 2, 4, 6, 8) and 4 full -> 5 layers. A layer's page: 16 · 2 · 8 · 64 · 2 B = 32,768 B.
  const e2 = estimate(bare('gpt-oss-120b', 1, 2));
  assert.equal(e2.pool.layout.kind, 'hybrid');
  assert.equal(e2.pool.layout.groupSize, 9);
  assert.equal(e2.pageBytes, 9 * 32_768);
  const e4 = estimate(bare('gpt-oss-120b', 1, 4, 120));
  assert.equal(e4.pool.layout.groupSize, 5);
  assert.equal(e4.pageBytes, 5 * 32_768);
  // The groups (and the token count's divisor) stay the whole model's: 2.
  assert.equal(e4.pool.tokens, Math.floor(e4.pool.pages / 2) * 16);
});

test('pipeline_parallel_size: a known key, refused at its value beyond num_hidden_layers with the sizes that fit', () => {
  const read = (pp: string) => {
    const text = `model: ./cfg.json\ndevice: { gpu: H100 SXM, tensor_parallel_size: 4, pipeline_parallel_size: ${pp} }\n`;
    const r = readProfile(text, '/x/p.attn.yaml', { readFile: (f) => (f.endsWith('cfg.json') ? fixtureText('Llama-3.1-70B') : null) });
    return { r, text };
  };
  const ok = read('2');
  assert.equal(ok.r.value?.device.pipelineParallelSize, 2);
  assert.deepEqual(ok.r.problems.filter((p) => p.severity !== 'info').map((p) => p.message), []);
  const bad = read('81');
  const p = bad.r.problems.find((x) => x.code === 'pp-exceeds-layers');
  assert.ok(p, bad.r.problems.map((x) => x.message).join('; '));
  assert.equal(p.severity, 'error');
  assert.equal(bad.text.slice(p.range.offset, p.range.offset + p.range.length), '81');
  assert.match(p.message, /pipeline_parallel_size 81 exceeds the model's 80 layers .* \(pipeline_parallel_size values that fit: 1 to 80\)/);
  for (const v of ['0', '1.5', '"2"']) assert.ok(read(v).r.problems.some((x) => x.severity === 'error'), v);
});

test('simulate under pipeline parallelism: the estimate\'s unified pool, each stage\'s own step coefficients, one request waits for both stages', async () => {
  // Llama-3.1-70B bf16, tp 4 × pp 2 on 80 GiB H100 SXMs (the hand count above): the pool the simulation
  // runs is the estimate's, the smallest stage's 91,049 blocks (vLLM get_kv_cache_configs).
  const p = bare('Llama-3.1-70B', 4, 2);
  p.device.gpu = 'H100 SXM';
  const r = await simulatePool(p, { trace: [{ arrivalS: 0, promptLen: 1000, outputLen: 1 }] });
  assert.equal(r.numPages, 91_049);
  const stepTime = r.stepTime!;
  const st = stepTime.stages!;
  assert.equal(st.length, 2);
  // Weights read per step, per GPU at 3.35 TB/s · 0.8 (assumed): stage 1 its 17,639,407,616 B (layers
  // 0-39 and the embedding) less the embedding, of which a step reads one row a token (128,256 · 8,192
  // · 2 B / 4 = 525,336,576 B): 17,114,071,040 B; stage 2 its 17,639,424,000 B (layers 40-79, final
  // norm, lm_head).
  assert.ok(Math.abs(st[0]!.weightsS - 17_114_071_040 / (3.35e12 * 0.8)) < 1e-15);
  assert.ok(Math.abs(st[1]!.weightsS - 17_639_424_000 / (3.35e12 * 0.8)) < 1e-15);
  // GEMMs per token: each stage its 40 layers (40 · 855,654,400 params; the 8,192 final-norm weights ride
  // along on both, stageModel keeps them) over tp 4 at 989 TFLOP/s dense bf16 · 0.6 (assumed); lm_head's logits
  // (2 · 1,050,673,152 / 4 FLOPs a request) on the last stage only.
  const F = 989e12 * 0.6;
  for (const s of st) assert.ok(Math.abs(s.perTokenS - (2 * (40 * 855_654_400 + 8_192)) / 4 / F) < 1e-18, `${s.perTokenS}`);
  assert.equal(st[0]!.perLogitsS, 0);
  assert.ok(Math.abs(st[1]!.perLogitsS - (2 * 1_050_673_152) / 4 / F) < 1e-18);
  // KV read per token: 40 layers · 1 KiB per GPU each.
  for (const s of st) assert.ok(Math.abs(s.perKvTokenS - 40_960 / (3.35e12 * 0.8)) < 1e-18);
  // Hidden states sent on: hidden_states + residual, 2 · 8,192 · 2 B / tp 4 = 8,192 B a token, and the
  // receiving stage's all-gather of the slices, 2 · 3/4 · 16,384 = 24,576 B into each GPU; tp 4 × pp 2 =
  // 8 GPUs, one node: both over NVLink, 450e9 B/s at 0.5 (step-time.ts ALL_REDUCE_EFFICIENCY.twoShot, step_time.all_reduce's two_shot; was
  // 8,192 B at 50 GB/s, no all-gather).
  assert.ok(Math.abs(stepTime.stageSendPerTokenS! - 32_768 / 225e9) < 1e-20);
  // Over 8 GPUs (tp 4 × pp 4: nodes): the send at the assumed 50 GB/s InfiniBand, the all-gather on NVLink.
  const wide = bare('Llama-3.1-70B', 4, 4);
  wide.device.gpu = 'H100 SXM';
  assert.ok(Math.abs(stageSendPerTokenS(wide) - (8_192 / 50e9 + 24_576 / 225e9)) < 1e-20);
  // One request, one output token: its TTFT is stage 1's step (+ the send of its 1,000 tokens) then stage 2's.
  const a = chunkAttention(1000, 1000, 0);
  const ttft = stepSeconds(st[0]!, 1000, 1, a) + 1000 * stepTime.stageSendPerTokenS! + stepSeconds(st[1]!, 1000, 1, a);
  assert.ok(Math.abs(r.summary.simulatedSeconds - ttft) < 1e-12, `${r.summary.simulatedSeconds} vs ${ttft}`);
  assert.match(stepTime.source, /pipeline parallel 2: each stage runs a batch over its own layers \(40 \+ 40, vLLM get_pp_indices\)/);  // Coefficients given outright without each stage's would run the stages as one step: refused.
  await assert.rejects(simulatePool(p, { stepTime: { perStepS: 1, perTokenS: 0, perKvTokenS: 0 }, trace: [{ arrivalS: 0, promptLen: 10, outputLen: 1 }] }),
    /stepTime: pipeline_parallel_size 2 needs the coefficients of each of its 2 stages \(StepTimeModel.stages\), got none/);
  await assert.rejects(simulatePool(p, { stepTime: { ...stepTime, stages: [st[0]!] }, trace: [{ arrivalS: 0, promptLen: 10, outputLen: 1 }] }), /got 1$/);
});
