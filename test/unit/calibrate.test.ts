// Calibration of the step-time model from a vllm bench serve result: a synthetic file made by
// the model's formula with known efficiencies and overhead is fitted back to them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Environment, KernelCase } from '../../core/protocol/run';
import { calibrateStepTime, readVllmResult } from '../../runner/simulate/index';
import { calibrationModelMismatch } from '../../runner/simulate/calibrate';
import { calibrateFromKernels, gpuRowForDevice } from '../../runner/simulate/calibrate-kernels';
import { stepTimeModel } from '../../runner/simulate/step-time';
import { exampleProfile } from '../fixtures/profile';
import { tempDir } from '../fixtures/tmp';


/** Llama-3.1-8B (examples/) with device.gpu H100 SXM and no step_time (the assumed efficiencies). */
function llamaOnH100() {
  return exampleProfile('model: ./llama-3.1-8b/config.json\ndevice: { gpu: H100 SXM }\n');
}

const ENVIRONMENT: Environment = { os: 'linux', arch: 'x64', cpuModel: 'AMD EPYC', cpuCores: 2, simd: 'avx2', cpuFeatures: [], threads: 2, nodeVersion: 'v20', toolVersion: '0.1.0' };

test('calibration recovers known efficiencies and overhead from a synthetic vllm bench serve file', () => {
  // Llama-3.1-8B bf16 on an H100 SXM, by hand from the model card and datasheet:
  // W = 16,060,522,496 B, KV 131,072 B/token, 2·P = 15,009,849,344 FLOP/token (P = the
  // 8,030,261,248 parameters less the 525,336,576-row embedding lookup, which multiplies nothing),
  // attention 4·L·H·D = 524,288 FLOP per query-key pair; 3.35e12 B/s, 989e12 FLOP/s.
  // Truth: compute efficiency 0.45, memory efficiency 0.7, overhead 2 ms; one request at a time
  // (max_concurrency 1). A prompt of P tokens: TTFT = 2 ms + max(compute, memory) of one prefill
  // step; its i-th later token (i = 1 … O−1) is a decode step over KV P + i.
  const profile = llamaOnH100();
  const W = 16060522496;
  const bw = 3.35e12 * 0.7;
  const flops = 989e12 * 0.45;
  const step = (tokens: number, kv: number, pairs: number) => 0.002 + Math.max((W + 131072 * kv) / bw, (15009849344 * tokens + 524288 * pairs) / flops);
  const inputLens = [128, 512, 1024, 2048, 3000, 4096, 300, 6000];
  const outputLens = [64, 32, 128, 16, 200, 8, 100, 50];
  const ttfts = inputLens.map((p) => step(p, p, (p * (p + 1)) / 2));
  const itls = inputLens.map((p, k) => Array.from({ length: outputLens[k] - 1 }, (_, i) => step(1, p + i + 1, p + i + 1)));
  const dir = tempDir('attnscope-calibrate-');
  const file = join(dir, 'bench.json');
  writeFileSync(file, JSON.stringify({ backend: 'vllm', request_rate: 'inf', max_concurrency: 1, input_lens: inputLens, output_lens: outputLens, ttfts, itls, errors: inputLens.map(() => '') }));
  const fit = calibrateStepTime(profile, readVllmResult(file));
  const rel = (a: number, b: number) => Math.abs(a - b) / b;
  assert.ok(rel(fit.spec.computeEfficiency, 0.45) < 1e-9, `compute ${fit.spec.computeEfficiency}`);
  assert.ok(rel(fit.spec.memoryEfficiency, 0.7) < 1e-9, `memory ${fit.spec.memoryEfficiency}`);
  assert.ok(rel(fit.spec.overheadMs, 2) < 1e-6, `overhead ${fit.spec.overheadMs}`);
  assert.ok(fit.ttftError.max < 1e-9 && fit.tpotError.max < 1e-9);
  assert.equal(fit.concurrency, 1);
  assert.equal(fit.requests, 8);
  // A result saved without --save-detailed cannot be fitted.
  writeFileSync(file, JSON.stringify({ input_lens: inputLens, output_lens: outputLens }));
  assert.throws(() => calibrateStepTime(profile, readVllmResult(file)), /no ttfts \/ itls: save it with --save-result --save-detailed/);
});

/** A kernel case of a synthetic run: only the fields the calibration reads are meaningful. */
function kernelCase(kernel: 'flash_fwd' | 'paged_decode', backend: 'cuda' | 'cpu', dtype: 'bf16' | 'fp16' | 'fp32', flops: number, bytes: number, medianNs: number): KernelCase {
  const shape = { batchSize: 1, numHeads: 32, numKvHeads: 8, headDim: 128, seqLenQ: 1, seqLenK: 1, causal: true, slidingWindow: null };
  return { kernel, backend, shape, dtype, samplesNs: [medianNs], medianNs, p10Ns: medianNs, p90Ns: medianNs, flops, bytes, gflops: flops / medianNs, gbps: bytes / medianNs, fractionOfPeak: null, maxAbsErr: 0, lseMaxAbsErr: null };
}

test('calibration from kernel timings recovers the attention rates of a synthetic CUDA run, the rest stays modelled', () => {
  const profile = llamaOnH100();
  // Truth, by construction: flash_fwd runs at 0.55 × 989e12 FLOP/s after 6 µs per launch,
  // paged_decode reads at 0.7 × 3.35e12 B/s after 4 µs. FLOPs of a causal N×N case (one layer,
  // H = 32, D = 128): 4 · 32 · N(N+1)/2 · 128; decode bytes: K + V of B·ctx tokens, 8 heads × 128
  // × 2 B each, plus Q and O (B · 32 · 128 · 2 B each).
  const flashRate = 0.55 * 989e12;
  const readRate = 0.7 * 3.35e12;
  const flashFlops = [512, 1024, 4096].map((n) => 4 * 32 * ((n * (n + 1)) / 2) * 128);
  const decodeBytes = [[1, 1024], [8, 1024], [8, 4096], [64, 8192]].map(([b, ctx]) => 2 * b * ctx * 8 * 128 * 2 + 2 * b * 32 * 128 * 2);
  const cases = [
    ...flashFlops.map((f) => kernelCase('flash_fwd', 'cuda', 'bf16', f, 0, 6000 + (f / flashRate) * 1e9)),
    ...decodeBytes.map((b) => kernelCase('paged_decode', 'cuda', 'bf16', 0, b, 4000 + (b / readRate) * 1e9)),
    // Neither an fp32 flash case (not on the tensor cores the bf16 peak counts) nor a CPU case is used.
    kernelCase('flash_fwd', 'cuda', 'fp32', flashFlops[0], 0, 1e9),
    kernelCase('paged_decode', 'cpu', 'bf16', 0, decodeBytes[0], 1e9),
  ];
  const run = { cases, environment: { ...ENVIRONMENT, gpu: { name: 'NVIDIA H100 80GB HBM3', smCount: 132, memoryBytes: 85e9, driver: '550', runtime: '12.4' } } };
  const m = calibrateFromKernels(profile, run, 'run.json');
  const rel = (a: number, b: number) => Math.abs(a - b) / b;
  const [pairs, kv] = m.measured!;
  assert.equal(pairs.coefficient, 'perPairS');
  assert.ok(rel(pairs.efficiency, 0.55) < 1e-9, `flash efficiency ${pairs.efficiency}`);
  assert.ok(rel(pairs.fixedS, 6e-6) < 1e-6, `flash fixed ${pairs.fixedS}`);
  assert.equal(pairs.cases, 3);
  assert.equal(kv.coefficient, 'perKvTokenS');
  assert.ok(rel(kv.efficiency, 0.7) < 1e-9, `decode efficiency ${kv.efficiency}`);
  assert.ok(rel(kv.fixedS, 4e-6) < 1e-6, `decode fixed ${kv.fixedS}`);
  assert.equal(kv.cases, 4);
  assert.ok(pairs.error.max < 1e-9 && kv.error.max < 1e-9);
  // The model's units (hand, as above): 524,288 FLOP per query-key pair over all 32 layers,
  // 131,072 KV bytes per token.
  assert.ok(rel(m.perPairS, 524288 / flashRate) < 1e-9);
  assert.ok(rel(m.perKvTokenS, 131072 / readRate) < 1e-9);
  // Modelled with the assumed efficiencies (0.8 memory, 0.6 compute, no overhead).
  assert.ok(rel(m.weightsS, 16060522496 / (3.35e12 * 0.8)) < 1e-9);
  assert.ok(rel(m.perTokenS, 15009849344 / (989e12 * 0.6)) < 1e-9);
  assert.equal(m.perStepS, 0);
  assert.match(m.source, /perPairS and perKvTokenS measured from run\.json \(NVIDIA H100 80GB HBM3\)/);
  // With one case per kernel, the fit goes through the origin: the rate is flops / time.
  const one = calibrateFromKernels(profile, { ...run, cases: [kernelCase('flash_fwd', 'cuda', 'fp16', 1e12, 0, 2e6)] }, 'run.json');
  assert.equal(one.measured!.length, 1);
  assert.ok(rel(one.measured![0].rate, 5e14) < 1e-12);
  assert.equal(one.measured![0].fixedS, 0);
  assert.equal(one.perKvTokenS, stepTimeModel(profile).perKvTokenS);
});

test('calibration from kernel timings refuses a CPU run and a run on another GPU', () => {
  const profile = llamaOnH100();
  const cuda = [kernelCase('paged_decode', 'cuda', 'bf16', 0, 1e8, 1e5)];
  const gpu = (name: string) => ({ ...ENVIRONMENT, gpu: { name, smCount: 1, memoryBytes: 1, driver: '', runtime: '' } });
  assert.throws(() => calibrateFromKernels(profile, { cases: [kernelCase('paged_decode', 'cpu', 'bf16', 0, 1e8, 1e5)], environment: ENVIRONMENT }, 'run.json'),
    /run\.json has no CUDA kernel timings \(its 1 cases ran on the cpu backend \(AMD EPYC\)\); the step-time model is for H100 SXM/);
  assert.throws(() => calibrateFromKernels(profile, { cases: cuda, environment: gpu('NVIDIA A100-SXM4-80GB') }, 'run.json'), /on NVIDIA A100-SXM4-80GB \(A100 80GB\), not on the profile's device\.gpu H100 SXM/);
  assert.throws(() => calibrateFromKernels(profile, { cases: cuda, environment: gpu('NVIDIA H100 PCIe') }, 'run.json'), /which is not in the GPU table/);
  // CUDA device names as drivers report them -> the GPU table's rows.
  const rows: Array<[string, string | undefined]> = [
    ['NVIDIA H100 80GB HBM3', 'H100 SXM'], ['NVIDIA H100 PCIe', undefined], ['NVIDIA H100 NVL', undefined], ['NVIDIA H200', 'H200'],
    ['NVIDIA A100-SXM4-80GB', 'A100 80GB'], ['NVIDIA A100-SXM4-40GB', 'A100 40GB'], ['NVIDIA A100 80GB PCIe', undefined],
    ['NVIDIA L40S', 'L40S'], ['NVIDIA GeForce RTX 4090', 'RTX 4090'], ['NVIDIA A10', 'A10'], ['NVIDIA A10G', undefined],
  ];
  for (const [name, row] of rows) assert.equal(gpuRowForDevice(name), row, name);
});

test('the step-time line writes fitted floats to three significant digits (core/format), not 16', () => {
  // A least-squares fit gives values like these; the line must read 3.03 ms, 0.644 ×, 0.5 ×.
  const m = stepTimeModel(llamaOnH100(), { overheadMs: 3.0313509092327635, memoryEfficiency: 0.6437993716103817, computeEfficiency: 0.5 }, 'calibrated from bench.json');
  assert.match(m.source, /; step = 3\.03 ms \+ max\(weights \+ KV read at 0\.644 × bandwidth, FLOPs at 0\.5 × bf16 peak\); efficiencies from calibrated from bench\.json$/);
  assert.equal(m.perStepS, 3.0313509092327635 / 1000, 'the model itself keeps the full value');
  // The peaks it divides by, as used: the H100 SXM's dense bf16 989 TFLOP/s (its datasheet prints
  // 1,979 with sparsity) and 3.35 TB/s, then the source; one level of parentheses.
  assert.match(m.source, /^llama on H100 SXM: bf16 989 TFLOP\/s dense, memory 3\.35 TB\/s, from the NVIDIA H100 Tensor Core GPU datasheet \(H100 SXM: BF16 Tensor Core 1,979 TFLOPS with sparsity, HBM3 3\.35 TB\/s\); step = /);
});

test('a fit that misses its own timings by more than half on average is refused, not used', () => {
  // Three requests whose TTFT grows 10 ms per 100 prompt tokens and whose 10 ms inter-token gap
  // does not change with the context: the H100 model's decode step for an 8B model reads 16 GB of
  // weights, 4.8 ms at the datasheet's 3.35 TB/s, so any efficiency that fits these TTFTs (tens of
  // ms of prefill for 100-300 tokens, about 2.5% of peak) predicts decode steps over 100 ms: the
  // TPOT error alone is over 10x (a newcomer saw 1,520%).
  const dir = tempDir('attnscope-calibrate-');
  const file = join(dir, 'bench.json');
  writeFileSync(file, JSON.stringify({
    backend: 'vllm', request_rate: 'inf', input_lens: [100, 200, 300], output_lens: [10, 20, 30],
    start_times: [0, 0.1, 0.2], ttfts: [0.01, 0.02, 0.03], itls: [[0.01], [0.01], [0.01]], errors: ['', '', ''],
  }));
  assert.throws(() => calibrateStepTime(llamaOnH100(), readVllmResult(file)), /RangeError: the step-time model fitted to these 3 requests misses their own timings \(mean error TTFT [\d.]+%, TPOT [\d.]+%; at most 50% is accepted\)/);
});

test('timings that shrink as the modelled work grows are refused for what they are: a factor <= 0 named with its value, not "do not vary enough in length"', () => {
  // Six requests of 100-4,000 prompt tokens one at a time whose TTFT falls 0.1 ms per prompt
  // token (0.49 s at 100, 0.1 s at 4,000) while prefill FLOPs grow with the prompt: the least
  // squares compute factor has to come out negative. The lengths vary plenty (a newcomer's
  // 200-request result was told they did not).
  const inputLens = [100, 1000, 2000, 3000, 4000, 500];
  const outputLens = [20, 50, 100, 200, 300, 30];
  const dir = tempDir('attnscope-calibrate-');
  const file = join(dir, 'bench.json');
  writeFileSync(file, JSON.stringify({
    backend: 'vllm', request_rate: 'inf', max_concurrency: 1, input_lens: inputLens, output_lens: outputLens,
    ttfts: inputLens.map((p) => 0.5 - 0.0001 * p), itls: outputLens.map((o) => Array.from({ length: o - 1 }, () => 0.02)), errors: inputLens.map(() => ''),
  }));
  assert.throws(
    () => calibrateStepTime(llamaOnH100(), readVllmResult(file)),
    (e: Error) => {
      assert.match(e.message, /^the timings do not follow the step-time model: the fitted compute factor \(1 \/ compute_efficiency\) came out -[\d.]+, not > 0/);
      assert.match(e.message, /set step_time in the profile instead$/);
      assert.doesNotMatch(e.message, /vary enough/);
      return true;
    },
  );
});

test('a vllm bench serve result of another model (its model_id) is named beside the profile\'s model; the same model, instruct or not, is not', () => {
  const dir = tempDir('attnscope-calibrate-');
  const file = join(dir, 'qwen.json');
  // model_id's value on line 2, column 15 (its opening quote).
  writeFileSync(file, '{\n  "model_id": "Qwen/Qwen2.5-7B", "input_lens": [1], "output_lens": [1]\n}\n');
  const result = readVllmResult(file);
  assert.deepEqual(result.modelId, { value: 'Qwen/Qwen2.5-7B', line: 2, column: 15 });
  // llamaOnH100's model is examples/llama-3.1-8b/config.json: named by its folder.
  const profile = llamaOnH100();
  const m = calibrationModelMismatch(profile, result);
  assert.ok(m !== null);
  assert.match(m, /model_id "Qwen\/Qwen2\.5-7B", the profile's model is llama-3\.1-8b \(.*llama-3\.1-8b\/config\.json\)/);
  for (const same of ['meta-llama/Llama-3.1-8B', 'meta-llama/Meta-Llama-3.1-8B-Instruct', 'llama-3.1-8b']) {
    assert.equal(calibrationModelMismatch(profile, { modelId: { value: same, line: 1, column: 1 } }), null, same);
  }
  // Another size of the same family is another model: 70B is not 8B.
  assert.notEqual(calibrationModelMismatch(profile, { modelId: { value: 'meta-llama/Llama-3.1-70B', line: 1, column: 1 } }), null);
  // No model_id, or a profile not read from a file: nothing to compare.
  assert.equal(calibrationModelMismatch(profile, { modelId: null }), null);
  assert.equal(calibrationModelMismatch({ modelPath: null }, result), null);
});
