// The step-time roofline times W8A8 checkpoints' GEMMs on fp8 / int8 tensor cores, as vLLM runs
// them (runner/simulate/step-time.ts, core/estimate/gpus.ts quantizedGemmPeak); weight-only
// formats, and fp8 on GPUs without fp8 tensor cores, at the activation dtype's peak.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { profileFromModelConfig, readModelConfig, type ModelSpec } from '../../core/config/index';
import { chunkAttention, stepSeconds, stepTimeModel } from '../../runner/simulate/step-time';
import { fixtureText } from './helpers';

const PEAKS = { computeEfficiency: 1, memoryEfficiency: 1, overheadMs: 0 };

/** Llama-3.1-8B's config with a quantization_config, as llm-compressor writes them. */
function llama8bWith(quantization: unknown): ModelSpec {
  const cfg = JSON.parse(fixtureText('Llama-3.1-8B')) as Record<string, unknown>;
  cfg.quantization_config = quantization;
  const r = readModelConfig(JSON.stringify(cfg), 'config.json');
  assert.ok(r.value, r.problems.map((p) => p.message).join('; '));
  return r.value;
}

/** compressed-tensors scheme: weights and (optionally) input_activations of `type` at `wBits` / `aBits`. */
function compressedTensors(type: 'float' | 'int', wBits: number, aBits: number | null): unknown {
  return {
    quant_method: 'compressed-tensors',
    format: type === 'float' ? 'float-quantized' : 'int-quantized',
    ignore: ['lm_head'],
    config_groups: {
      group_0: {
        targets: ['Linear'],
        weights: { num_bits: wBits, type, strategy: 'channel', symmetric: true, dynamic: false },
        ...(aBits === null ? {} : { input_activations: { num_bits: aBits, type, strategy: 'token', symmetric: true, dynamic: true } }),
      },
    },
  };
}

function stepModel(model: ModelSpec, gpu: string) {
  const p = profileFromModelConfig(model, null);
  p.device.gpu = gpu;
  return stepTimeModel(p, PEAKS);
}

// Llama-3.1-8B (hidden 4096, 32 layers, 32 heads · 128, 8 KV heads, MLP 14,336, vocab 128,256):
// linear layers per layer 4096 · (4096 + 2 · 1024 + 4096) + 3 · 4096 · 14,336 = 218,103,808,
// × 32 = 6,979,321,856; lm_head 128,256 · 4096 = 525,336,576 (ignored: bf16; once per request
// scheduled, perLogitsS); norms 65 · 4096 = 266,240.
const LINEAR = 6_979_321_856;
const NORMS = 266_240;
const LM_HEAD = 525_336_576;

test('W8A8 fp8 (compressed-tensors): the linear layers\' GEMMs at the fp8 peak, lm_head and attention at bf16 (Llama-3.1-8B, H100 SXM)', () => {
  // H100 SXM datasheet: FP8 3,958 TFLOPS with sparsity = 1,979e12 dense; BF16 989e12 dense.
  // per token 2 · (6,979,321,856 / 1,979e12 + 266,240 / 989e12) = 7.05338 + 0.00054 = 7.05392 µs;
  // lm_head per request 2 · 525,336,576 / 989e12 = 1.06236 µs, at bf16.
  const m = stepModel(llama8bWith(compressedTensors('float', 8, 8)), 'H100 SXM');
  const close = (got: number, want: number, what: string) => assert.ok(Math.abs(got - want) / want < 1e-9, `${what}: ${got} vs ${want}`);
  close(m.perTokenS, 2 * (LINEAR / 1979e12 + NORMS / 989e12), 'per token');
  close(m.perLogitsS!, (2 * LM_HEAD) / 989e12, 'lm_head per request');
  // One 8,192-token prompt: 8,192 · 7.05392 µs = 57.7857 ms of GEMMs, + lm_head at its last
  // token 0.0011 ms, + pairs 8,192 · 8,193 / 2 = 33,558,528 · 4 · 32 · 128 · 32 layers =
  // 1.75947e13 FLOPs / 989e12 = 17.7900 ms → 75.5768 ms (lm_head at every token: 84.279 ms; at
  // the bf16 peak for every GEMM 133.417 ms: 2 · (7,504,924,672 − 525,336,576) · 8,192 / 989e12
  // + 0.0011 + 17.79).
  assert.ok(Math.abs(stepSeconds(m, 8192, 1, chunkAttention(8192, 8192, 0)) - 75.5768e-3) < 1e-7);
  assert.match(m.source, /GEMMs \(compressed-tensors W8A8: fp8 weights and activations.*\) at fp8 1\.98 PFLOP\/s dense \(NVIDIA H100 .*FP8 Tensor Core 3,958 TFLOPS/);
  assert.match(m.source, /FLOPs at 1 × the fp8 \/ bf16 peaks/);
});

test('fp8 on a GPU without fp8 tensor cores (A100): vLLM\'s Marlin runs the weights weight-only, at the bf16 peak, and the line says so', () => {
  // A100: 2 · (7,504,924,672 − 525,336,576) / 312e12 = 44.7410 µs per token, every GEMM at bf16.
  const m = stepModel(llama8bWith(compressedTensors('float', 8, 8)), 'A100 80GB');
  assert.ok(Math.abs(m.perTokenS - (2 * (LINEAR + NORMS)) / 312e12) < 1e-15);
  assert.ok(Math.abs(m.perLogitsS! - (2 * LM_HEAD) / 312e12) < 1e-15);
  assert.match(m.source, /A100 80GB has no fp8 tensor cores: vLLM runs the fp8 weights as weight-only \(Marlin/);
});

test('int8 W8A8 runs at the int8 peak (A100: 624 TOPS dense); weight-only schemes (W8A16, W4A16) at the bf16 peak', () => {
  // A100 datasheet: INT8 Tensor Core 624 TOPS dense. 2 · (6,979,321,856 / 624e12 + 266,240 / 312e12).
  const int8 = stepModel(llama8bWith(compressedTensors('int', 8, 8)), 'A100 80GB');
  assert.ok(Math.abs(int8.perTokenS - 2 * (LINEAR / 624e12 + NORMS / 312e12)) < 1e-15);
  assert.match(int8.source, /at int8 624 TOP\/s dense \(NVIDIA A100 .*INT8 Tensor Core 624 TOPS dense/);
  for (const [bits, acts] of [[8, null], [4, null]] as const) {
    const m = stepModel(llama8bWith(compressedTensors(bits === 8 ? 'float' : 'int', bits, acts)), 'H100 SXM');
    assert.ok(Math.abs(m.perTokenS - (2 * (LINEAR + NORMS)) / 989e12) < 1e-15, `W${bits}A16`);
    assert.doesNotMatch(m.source, /W8A8/);
  }
});
