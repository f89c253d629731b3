/**
 * device.cpu_offload_gb (vLLM --cpu-offload-gb), modelled: the weights vLLM keeps in CPU memory
 * leave the GPU, the KV budget gets them, and every forward pass reads them over the host link.
 * Hand counts from vLLM's code: vllm/model_executor/models/utils.py maybe_offload_to_cpu (and
 * offloader/uva.py _maybe_offload_to_cpu, the same walk): make_layers wraps each decoder layer in
 * turn; parameters move, in module order, while the bytes moved so far are below
 * int(cpu_offload_gb · 1024³) (gpu_model_runner.py set_cpu_offload_max_bytes), so the last one
 * overshoots; nothing outside the decoder layers moves.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkProfile, cpuOffload, estimate } from '../../core/estimate/index';
import { stepTimeModel } from '../../runner/simulate/step-time';
import { exampleProfile } from '../fixtures/profile';

const profile = (device: string) => exampleProfile(`model: ./llama-3.1-8b/config.json\ndevice: ${device}\n`);

// Llama-3.1-8B in bf16, one GPU: a decoder layer's parameters in vLLM's LlamaDecoderLayer order,
// bytes: self_attn.qkv_proj 4,096 · (4,096 + 2 · 1,024) · 2 = 50,331,648; o_proj 4,096² · 2 =
// 33,554,432; mlp.gate_up_proj 2 · 14,336 · 4,096 · 2 = 234,881,024; down_proj 117,440,512; two
// RMSNorms 2 · 4,096 · 2 = 16,384: 436,224,000 a layer.
const LAYER = 436_224_000;

test('cpu_offload_gb 4 on Llama-3.1-8B: 9 layers and layer 9 but its norms, 4,362,223,616 B, leave the GPU; the KV budget gets them', () => {
  // 4 GiB = 4,294,967,296 B. 9 layers: 3,926,016,000 (below); layer 9's qkv_proj → 3,976,347,648,
  // o_proj → 4,009,902,080, gate_up_proj → 4,244,783,104 (all below), down_proj → 4,362,223,616
  // (at or above: the walk stops; the two norms stay).
  const o = cpuOffload(profile('{ gpu: H100 SXM }').model, 'bf16', 1, 0, 32, 4);
  assert.deepEqual(o, { bytes: 4_362_223_616, wholeLayers: 9, partialBytes: 4_362_223_616 - 9 * LAYER });
  const base = estimate(profile('{ gpu: H100 SXM }'));
  const off = estimate(profile('{ gpu: H100 SXM, cpu_offload_gb: 4 }'));
  assert.equal(base.weightsBytesPerGpu, 16_060_522_496);
  assert.equal(off.cpuOffloadBytesPerGpu, 4_362_223_616);
  assert.equal(off.weightsBytesPerGpu, 16_060_522_496 - 4_362_223_616);
  // vLLM's determine_available_memory subtracts the memory the loaded model takes on the GPU: the
  // budget grows by what left it, 4,362,223,616 B = 2,080 more 2 MiB blocks (2,080.06).
  assert.equal(off.pool.budgetBytes - base.pool.budgetBytes, 4_362_223_616);
  assert.equal(off.pool.pages - base.pool.pages, 2080);
  assert.equal(off.pool.reserve.find((t) => t.key === 'weights')!.bytes, 11_698_298_880);
  const note = off.notes.find((n) => n.startsWith('cpu_offload_gb 4:'));
  assert.ok(note, off.notes.join('\n'));
  assert.match(note, /layers 0-9: 9 whole and 416 MiB of layer 9's parameters, 4\.06 GiB/);
  // An explicit KV budget is not grown.
  const explicit = estimate(profile('{ gpu: H100 SXM, cpu_offload_gb: 4 }\nkv_cache: { memory_gib: 10 }'));
  assert.equal(explicit.pool.budgetBytes, 10 * 2 ** 30);
});

test('a fit warning under cpu_offload_gb says what leaves the GPU, so its weights add up to the figure it names (s49 review)', () => {
  // One GPU, cpu_offload_gb 4 (the test above): 16,060,522,496 − 4,362,223,616 = 11,698,298,880 B = 10.9 GiB on the GPU,
  // above 10 GiB × 0.9 = 9 GiB. The warning said "weights 10.9 GiB" with no word of the 15 GiB checkpoint it came from.
  const one = profile('{ memory_gib: 10, cpu_offload_gb: 4 }');
  const [fit] = checkProfile(one, estimate(one));
  assert.equal(fit!.code, 'weights-exceed-device');
  assert.match(fit!.message, /^weights 10\.9 GiB \(15 GiB − 4\.06 GiB kept in CPU memory by cpu_offload_gb 4\) exceed 10 GiB × 0\.90 = 9 GiB: /);
  // tp 2: a layer's share per GPU 25,165,824 (qkv_proj) + 16,777,216 (o_proj) + 117,440,512 (gate_up_proj) + 58,720,256
  // (down_proj) + 16,384 (its two norms, whole) = 218,120,192 B. 19 layers 4,144,283,648; layer 19's qkv_proj → 4,169,449,472,
  // o_proj → 4,186,226,688, gate_up_proj → 4,303,667,200 ≥ 4 GiB: the walk stops, 4,303,667,200 B = 4.01 GiB off each GPU.
  // Per GPU (16,060,522,496 − 532,480 norms whole on both) ÷ 2 + 532,480 − 4,303,667,200 = 3,726,860,288 B = 3.47 GiB
  // > 3 GiB × 0.9 = 2.7 GiB. The warning read "(15 GiB − 520 KiB) ÷ 2 + 520 KiB replicated on every GPU)": 7.48 GiB, not 3.47.
  const two = profile('{ memory_gib: 3, tensor_parallel_size: 2, cpu_offload_gb: 4 }');
  const e2 = estimate(two);
  assert.equal(e2.cpuOffloadBytesPerGpu, 4_303_667_200);
  assert.equal(e2.weightsBytesPerGpu, 3_726_860_288);
  const split = checkProfile(two, e2).find((p) => p.code === 'weights-exceed-device');
  assert.match(split!.message, /^weights 3\.47 GiB per GPU \(\(15 GiB − 520 KiB\) ÷ 2 \+ 520 KiB replicated on every GPU − 4\.01 GiB kept in CPU memory by cpu_offload_gb 4\) exceed 3 GiB × 0\.90 = 2\.7 GiB: /);
});

test('cpu_offload_gb: a budget inside one layer stops at the parameter that reaches it; one past the layers moves every decoder layer and nothing else', () => {
  const model = profile('{ gpu: H100 SXM }').model;
  // 0.1 GiB = 107,374,182 B: qkv_proj 50,331,648, + o_proj = 83,886,080 (below), + gate_up_proj = 318,767,104.
  assert.deepEqual(cpuOffload(model, 'bf16', 1, 0, 32, 0.1), { bytes: 318_767_104, wholeLayers: 0, partialBytes: 318_767_104 });
  // 100 GiB: all 32 layers, 13,959,168,000 B; the GPU keeps the embedding and lm_head
  // (2 · 128,256 · 4,096 · 2 = 2,101,346,304) and the final norm (8,192): 2,101,354,496.
  const all = estimate(profile('{ gpu: H100 SXM, cpu_offload_gb: 100 }'));
  assert.equal(all.cpuOffloadBytesPerGpu, 32 * LAYER);
  assert.equal(all.weightsBytesPerGpu, 2_101_354_496);
  // Tensor parallelism 2, 1 GiB = 1,073,741,824 B: each GPU moves its own half of each layer's
  // linear layers (218,103,808 B) and its whole norms (RMSNorm is not split: 16,384), 218,120,192
  // a layer: 4 layers 872,480,768, layer 4's qkv_proj 25,165,824 → 897,646,592, o_proj 16,777,216
  // → 914,423,808, gate_up_proj 117,440,512 → 1,031,864,320, down_proj 58,720,256 → 1,090,584,576.
  assert.equal(cpuOffload(model, 'bf16', 2, 0, 32, 1).bytes, 1_090_584_576);
});

test('cpu_offload_gb in the step time: the offloaded bytes over the host link every step, added to weightsS, not divided by the memory efficiency', () => {
  const base = stepTimeModel(profile('{ gpu: H100 SXM }'));
  const off = stepTimeModel(profile('{ gpu: H100 SXM, cpu_offload_gb: 4 }'));
  // 4,362,223,616 B / 55 GB/s (H100 SXM: PCIe Gen5 x16, gpus.ts hostLinkBytesPerSec) = 79.313 ms.
  assert.ok(Math.abs(off.weightsS - base.weightsS - 4_362_223_616 / 55e9) < 1e-12, `${off.weightsS - base.weightsS}`);
  assert.match(off.source, /cpu_offload_gb 4: the 4\.06 GiB of weights per GPU kept in CPU memory cross the host link every step, 79\.3 ms at an assumed 55 GB\/s \(a typical pinned-memory copy rate over PCIe Gen5 x16, modelled\)/);
  // An A100 is PCIe Gen4: 26 GB/s, 167.8 ms.
  const a100 = stepTimeModel(profile('{ gpu: A100 80GB, cpu_offload_gb: 4 }'));
  const a100Base = stepTimeModel(profile('{ gpu: A100 80GB }'));
  assert.ok(Math.abs(a100.weightsS - a100Base.weightsS - 4_362_223_616 / 26e9) < 1e-12);
});

test('cpu_offload_gb under pipeline parallelism: each stage walks its own layers from its first', () => {
  // pp 2: stages of layers 0-15 and 16-31, each moving 4,362,223,616 B (9 layers and a part of its
  // 10th), as each rank runs make_layers over its own range with its own budget.
  const e = estimate(profile('{ gpu: H100 SXM, pipeline_parallel_size: 2, cpu_offload_gb: 4 }'));
  assert.deepEqual(e.pipeline!.stages.map((s) => s.cpuOffloadBytesPerGpu), [4_362_223_616, 4_362_223_616]);
  const plain = estimate(profile('{ gpu: H100 SXM, pipeline_parallel_size: 2 }'));
  assert.deepEqual(e.pipeline!.stages.map((s, i) => plain.pipeline!.stages[i]!.weightsBytesPerGpu - s.weightsBytesPerGpu), [4_362_223_616, 4_362_223_616]);
});
