// Calibration of the step-time model from a vllm bench serve result: a synthetic file made by
// the model's formula with known efficiencies and overhead is fitted back to them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Environment, KernelCase } from '../../core/protocol/run';
import { calibrateStepTime, readVllmResult } from '../../runner/simulate/index';
import { calibrationModelMismatch, formatCalibration } from '../../runner/simulate/calibrate';
import { calibrateFromKernels, gpuRowForDevice } from '../../runner/simulate/calibrate-kernels';
import { stepTimeModel } from '../../runner/simulate/step-time';
import { exampleProfile } from '../fixtures/profile';
import { tempDir } from '../fixtures/tmp';
import { lcg, lowLoadResult } from '../fixtures/vllm-bench';


/** Llama-3.1-8B (examples/) with device.gpu H100 SXM and no step_time (the assumed efficiencies). */
function llamaOnH100() {
  return exampleProfile('model: ./llama-3.1-8b/config.json\ndevice: { gpu: H100 SXM }\n');
}

const ENVIRONMENT: Environment = { os: 'linux', arch: 'x64', cpuModel: 'AMD EPYC', cpuCores: 2, simd: 'avx2', cpuFeatures: [], threads: 2, nodeVersion: 'v20', toolVersion: '0.1.0' };

test('calibration recovers known efficiencies and overhead from a synthetic vllm bench serve file', () => {
  // Llama-3.1-8B bf16 on an H100 SXM, by hand from the model card and datasheet:
  // W = 15,009,849,344 B read a step (the weights, 16,060,522,496 B, less the input embedding's
  // 1,050,673,152, of which a step reads one row a token), KV 131,072 B/token, 2·P = 13,959,176,192 FLOP/token (P = the
  // 8,030,261,248 parameters less the 525,336,576-row embedding lookup, which multiplies nothing,
  // and lm_head's 525,336,576, which vLLM multiplies once per request scheduled in a step: 2 ·
  // 525,336,576 = 1,050,673,152 FLOP per request), attention 4·L·H·D = 524,288 FLOP per
  // query-key pair; 3.35e12 B/s, 989e12 FLOP/s.
  // Truth: compute efficiency 0.45, memory efficiency 0.7, overhead 2 ms; one request at a time
  // (max_concurrency 1). A prompt of P tokens: TTFT = 2 ms + max(compute, memory) of one prefill
  // step; its i-th later token (i = 1 … O−1) is a decode step over KV P + i.
  const profile = llamaOnH100();
  const W = 15009849344;
  const bw = 3.35e12 * 0.7;
  const flops = 989e12 * 0.45;
  const step = (tokens: number, requests: number, kv: number, pairs: number) => 0.002 + Math.max((W + 131072 * kv) / bw, (13959176192 * tokens + 1050673152 * requests + 524288 * pairs) / flops);
  const inputLens = [128, 512, 1024, 2048, 3000, 4096, 300, 6000];
  const outputLens = [64, 32, 128, 16, 200, 8, 100, 50];
  const ttfts = inputLens.map((p) => step(p, 1, p, (p * (p + 1)) / 2));
  const itls = inputLens.map((p, k) => Array.from({ length: outputLens[k] - 1 }, (_, i) => step(1, 1, p + i + 1, p + i + 1)));
  const dir = tempDir('attnscope-calibrate-');
  const file = join(dir, 'bench.json');
  writeFileSync(file, JSON.stringify({ backend: 'vllm', request_rate: 'inf', max_concurrency: 1, input_lens: inputLens, output_lens: outputLens, ttfts, itls, errors: inputLens.map(() => '') }));
  const fit = calibrateStepTime(profile, readVllmResult(file));
  const rel = (a: number, b: number) => Math.abs(a - b) / b;
  assert.ok(rel(fit.spec.computeEfficiency, 0.45) < 1e-9, `compute ${fit.spec.computeEfficiency}`);
  assert.ok(rel(fit.spec.memoryEfficiency, 0.7) < 1e-9, `memory ${fit.spec.memoryEfficiency}`);
  assert.ok(rel(fit.spec.overheadMs, 2) < 1e-6, `overhead ${fit.spec.overheadMs}`);
  assert.ok(fit.ttftError.max < 1e-9 && fit.tpotError!.max < 1e-9);
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
  assert.ok(rel(m.weightsS, 15009849344 / (3.35e12 * 0.8)) < 1e-9);
  assert.ok(rel(m.perTokenS, 13959176192 / (989e12 * 0.6)) < 1e-9);
  assert.equal(m.perStepS, 0);
  assert.match(m.source, /perPairS and perKvTokenS measured from run\.json \(NVIDIA H100 80GB HBM3\)/);
  // With one case per kernel, the fit goes through the origin: the rate is flops / time.
  const one = calibrateFromKernels(profile, { ...run, cases: [kernelCase('flash_fwd', 'cuda', 'fp16', 1e12, 0, 2e6)] }, 'run.json');
  assert.equal(one.measured!.length, 1);
  assert.ok(rel(one.measured![0].rate, 5e14) < 1e-12);
  assert.equal(one.measured![0].fixedS, 0);
  assert.equal(one.perKvTokenS, stepTimeModel(profile).perKvTokenS);
});

test('calibration from kernel timings under pipeline parallelism: each stage\'s attention at the measured rates over its own layers', () => {
  // Llama-3.1-8B (32 layers) at pipeline_parallel_size 2: 16 + 16 layers. One case per kernel (the fit
  // through the origin): flash_fwd 1e12 FLOPs in 2 ms = 5e14 FLOP/s, paged_decode 1e9 B in 1 ms = 1e12 B/s.
  // Per stage (hand): 16 · 32 heads · 4 · 128 = 262,144 FLOPs per pair, 16 · 4,096 = 65,536 KV bytes per token.
  const profile = exampleProfile('model: ./llama-3.1-8b/config.json\ndevice: { gpu: H100 SXM, pipeline_parallel_size: 2 }\n');
  const gpu = { name: 'NVIDIA H100 80GB HBM3', smCount: 132, memoryBytes: 85e9, driver: '550', runtime: '12.4' };
  const m = calibrateFromKernels(profile, { cases: [kernelCase('flash_fwd', 'cuda', 'bf16', 1e12, 0, 2e6), kernelCase('paged_decode', 'cuda', 'bf16', 0, 1e9, 1e6)], environment: { ...ENVIRONMENT, gpu } }, 'run.json');
  const rel = (a: number, b: number) => Math.abs(a - b) / b;
  assert.equal(m.stages!.length, 2);
  for (const st of m.stages!) {
    assert.ok(rel(st.perPairS, 262144 / 5e14) < 1e-9, `perPairS ${st.perPairS}`);
    assert.equal(st.perDecodePairS, st.perPairS);
    assert.ok(rel(st.perKvTokenS, 65536 / 1e12) < 1e-9, `perKvTokenS ${st.perKvTokenS}`);
  }
  // The top-level figures are the whole model's (the stages' sums).
  assert.ok(rel(m.perPairS, 524288 / 5e14) < 1e-9);
});

test('calibration from kernel timings of an fp32 profile fits the fp32 flash cases against the fp32 peak', () => {
  // H100 SXM fp32 peak 67 TFLOPS (NVIDIA H100 datasheet, non-tensor: TF32 is off by default in
  // PyTorch). Truth by construction: fp32 flash_fwd at 0.5 · 67e12 FLOP/s; a bf16 case at the
  // bf16 rate is not the profile's compute and is left out. perPairS = 524,288 FLOPs per pair
  // (hand, as above) / 33.5e12.
  const profile = exampleProfile('model: ./llama-3.1-8b/config.json\ndevice: { gpu: H100 SXM }\ndtype: fp32\n');
  const rate = 0.5 * 67e12;
  const cases = [
    ...[1e12, 4e12].map((f) => kernelCase('flash_fwd', 'cuda', 'fp32', f, 0, (f / rate) * 1e9)),
    kernelCase('flash_fwd', 'cuda', 'bf16', 1e12, 0, (1e12 / 5e14) * 1e9),
  ];
  const run = { cases, environment: { ...ENVIRONMENT, gpu: { name: 'NVIDIA H100 80GB HBM3', smCount: 132, memoryBytes: 85e9, driver: '550', runtime: '12.4' } } };
  const m = calibrateFromKernels(profile, run, 'run.json');
  const [pairs] = m.measured!;
  assert.equal(pairs.cases, 2);
  assert.ok(Math.abs(pairs.efficiency - 0.5) < 1e-9, `efficiency ${pairs.efficiency}`);
  assert.ok(Math.abs(m.perPairS - 524288 / rate) / (524288 / rate) < 1e-9);
  assert.match(m.source, /flash_fwd 33\.5 TFLOP\/s = 50(\.0)?% of the published fp32 peak over 2 cases/);
});

test('calibration from kernel timings refuses a CPU run and a run on another GPU', () => {
  const profile = llamaOnH100();
  const cuda = [kernelCase('paged_decode', 'cuda', 'bf16', 0, 1e8, 1e5)];
  const gpu = (name: string) => ({ ...ENVIRONMENT, gpu: { name, smCount: 1, memoryBytes: 1, driver: '', runtime: '' } });
  assert.throws(() => calibrateFromKernels(profile, { cases: [kernelCase('paged_decode', 'cpu', 'bf16', 0, 1e8, 1e5)], environment: ENVIRONMENT }, 'run.json'),
    /run\.json has no CUDA kernel timings \(its 1 cases ran on the cpu backend \(AMD EPYC\)\); the step-time model is for H100 SXM/);
  assert.throws(() => calibrateFromKernels(profile, { cases: cuda, environment: gpu('NVIDIA A100-SXM4-80GB') }, 'run.json'), /on NVIDIA A100-SXM4-80GB \(A100 80GB\), not on the profile's device\.gpu H100 SXM/);
  assert.throws(() => calibrateFromKernels(profile, { cases: cuda, environment: gpu('NVIDIA H100 PCIe') }, 'run.json'), /on NVIDIA H100 PCIe \(H100 PCIe\), not on the profile's device\.gpu H100 SXM/);
  // The A100 80GB PCIe has a row of its own now (gpus.ts 'A100 PCIe 80GB'); the 40GB PCIe card has none.
  assert.throws(() => calibrateFromKernels(profile, { cases: cuda, environment: gpu('NVIDIA A100 80GB PCIe') }, 'run.json'), /on NVIDIA A100 80GB PCIe \(A100 PCIe 80GB\), not on the profile's device\.gpu H100 SXM/);
  assert.throws(() => calibrateFromKernels(profile, { cases: cuda, environment: gpu('NVIDIA A100-PCIE-40GB') }, 'run.json'), /which is not in the GPU table/);
  // CUDA device names as drivers report them (nvidia-smi, torch.cuda.get_device_name; vLLM issues
  // #10129 "NVIDIA H100 NVL", #7865 "NVIDIA H20", #4959 "NVIDIA L4", #7951 "AMD Instinct MI300X") -> the GPU table's rows.
  const rows: Array<[string, string | undefined]> = [
    ['NVIDIA H100 80GB HBM3', 'H100 SXM'], ['NVIDIA H100 PCIe', 'H100 PCIe'], ['NVIDIA H100 NVL', 'H100 NVL'], ['NVIDIA H200', 'H200'],
    ['NVIDIA H20', 'H20'], ['NVIDIA B200', 'B200'], ['NVIDIA L4', 'L4'], ['AMD Instinct MI300X', 'MI300X'],
    ['NVIDIA A100-SXM4-80GB', 'A100 80GB'], ['NVIDIA A100-SXM4-40GB', 'A100 40GB'], ['NVIDIA A100 80GB PCIe', 'A100 PCIe 80GB'], ['NVIDIA A100-PCIE-40GB', undefined],
    ['NVIDIA L40S', 'L40S'], ['NVIDIA L40', undefined], ['NVIDIA GeForce RTX 4090', 'RTX 4090'], ['NVIDIA A10', 'A10'], ['NVIDIA A10G', undefined],
  ];
  for (const [name, row] of rows) assert.equal(gpuRowForDevice(name), row, name);
});

test('the step-time line writes fitted floats to three significant digits (core/format), not 16', () => {
  // A least-squares fit gives values like these; the line must read 3.03 ms, 0.644 ×, 0.5 ×.
  const m = stepTimeModel(llamaOnH100(), { overheadMs: 3.0313509092327635, memoryEfficiency: 0.6437993716103817, computeEfficiency: 0.5 }, 'calibrated from bench.json');
  assert.match(m.source, /; step = 3\.03 ms \+ max\(weights \+ KV read at 0\.644 × bandwidth, FLOPs at 0\.5 × bf16 peak\); lm_head \(vocab_size 128,256 × hidden_size 4,096\) once per request scheduled in a step, not per token: [^;]+; efficiencies from calibrated from bench\.json$/);
  assert.equal(m.perStepS, 3.0313509092327635 / 1000, 'the model itself keeps the full value');
  // The peaks it divides by, as used: the H100 SXM's dense bf16 989 TFLOP/s (its datasheet prints
  // 1,979 with sparsity) and 3.35 TB/s, then the source; one level of parentheses.
  assert.match(m.source, /^llama on H100 SXM: bf16 989 TFLOP\/s dense, memory 3\.35 TB\/s, from the NVIDIA H100 Tensor Core GPU datasheet \(H100 SXM: BF16 Tensor Core 1,979 TFLOPS with sparsity, HBM3 3\.35 TB\/s\); step = /);
});

test('a fit that misses its own timings by more than half on average is refused, not used: timings faster than the GPU allows', () => {
  // Three requests whose TTFT is 1-3 ms and whose inter-token gap is 1 ms: the H100 model's decode
  // step for an 8B model reads 16,060,522,496 B of weights, 4.79 ms at the datasheet's 3.35 TB/s
  // even at memory_efficiency 1, so no bounded fit comes within 50% (every step ≥ 4.79 ms against
  // 1-3 ms measured: errors of 60% and more); the line says the memory factor sits at its bound.
  const dir = tempDir('attnscope-calibrate-');
  const file = join(dir, 'bench.json');
  writeFileSync(file, JSON.stringify({
    backend: 'vllm', request_rate: 'inf', input_lens: [100, 200, 300], output_lens: [10, 20, 30],
    start_times: [0, 0.1, 0.2], ttfts: [0.001, 0.002, 0.003], itls: [[0.001], [0.001], [0.001]], errors: ['', '', ''],
  }));
  assert.throws(() => calibrateStepTime(llamaOnH100(), readVllmResult(file)),
    /RangeError: the step-time model fitted to these 3 requests misses their own timings \(mean error TTFT [\d.]+%, TPOT [\d.]+%; at most 50% is accepted\): .*memory_efficiency held at its bound 1; unbounded, the fit asks for [\d.]+/);
});

test('too few usable requests: the refusal says why the others are left out (negative TTFTs, failed requests), not only "0 usable requests" (s37 newcomer 7)', () => {
  // 4 requests: one failed, three with TTFTs -0.1, 0 and -2 s (no time above 0): none usable.
  const file = join(tempDir('attnscope-calibrate-'), 'bench.json');
  writeFileSync(file, JSON.stringify({
    backend: 'vllm', request_rate: 'inf', input_lens: [100, 200, 300, 400], output_lens: [10, 20, 30, 40],
    ttfts: [0.1, -0.1, 0, -2], itls: [[0.01], [0.01], [0.01], [0.01]], errors: ['timeout', '', '', ''],
  }));
  assert.throws(() => calibrateStepTime(llamaOnH100(), readVllmResult(file)), {
    name: 'RangeError',
    message: 'the result has 0 usable requests of 4 (1 failed (errors non-empty), 3 with a TTFT that is no time above 0 s (ttfts[1] is -0.1)); the fit needs at least 3',
  });
});

test('timings that shrink as the modelled work grows are refused, the held factor named with the value the unbounded fit gives, not "do not vary enough in length"', () => {
  // Six requests of 100-4,000 prompt tokens one at a time whose TTFT falls 0.1 ms per prompt
  // token (0.49 s at 100, 0.1 s at 4,000) while prefill FLOPs and bytes grow with the prompt: no
  // bounded factor can follow them (the TTFT error stays over 50%), and the unbounded one comes
  // out negative. The lengths vary plenty (a newcomer's 200-request result was told they did not).
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
      assert.match(e.message, /^the step-time model fitted to these 6 requests misses their own timings/);
      assert.match(e.message, /_efficiency held at its bound 1; unbounded, its factor comes out -[\d.]+ ≤ 0: the timings do not grow with the steps' /);
      assert.match(e.message, /or set step_time in the profile$/);
      assert.doesNotMatch(e.message, /vary enough in length/);
      return true;
    },
  );
});


test('a noisy synthetic result from known efficiencies and overhead, at concurrency 4 over long contexts, is recovered within tolerance, every factor fitted', () => {
  // Truth: compute 0.5, memory 0.75, overhead 3 ms, 4 requests at a time (max_concurrency 4);
  // Llama-3.1-8B on an H100 SXM as in the first test. Prompts of 1,000-32,000 tokens, so the
  // decode steps' KV read (131,072 B/token) spans 4.5 µs.. 1.7 ms beside the 6.4 ms weight read:
  // the bytes vary enough to separate the memory factor from the overhead. Every TTFT and ITL
  // is scaled by 1 ± 2% uniform noise. The calibration's batch: the request and 3 others at the
  // mean context c̄ (its header): a prefill of P has T = P + 3 tokens, KV P + 3 c̄, pairs
  // P(P+1)/2 + 3 c̄; a decode at the request's context c has T = 4, KV = pairs = c + 3 c̄.
  const profile = llamaOnH100();
  const W = 15009849344; // the weights a step reads (above)
  const bw = 3.35e12 * 0.75;
  const flops = 989e12 * 0.5;
  const step = (tokens: number, requests: number, kv: number, pairs: number) => 0.003 + Math.max((W + 131072 * kv) / bw, (13959176192 * tokens + 1050673152 * requests + 524288 * pairs) / flops);
  const rand = lcg(7);
  const n = 40;
  const inputLens = Array.from({ length: n }, () => 1000 + Math.floor(rand() * 31000));
  const outputLens = Array.from({ length: n }, () => 20 + Math.floor(rand() * 200));
  const meanCtx = inputLens.reduce((acc, p, k) => acc + p + outputLens[k] / 2, 0) / n;
  const noise = () => 1 + 0.04 * (rand() - 0.5);
  const ttfts = inputLens.map((p) => step(p + 3, 4, p + 3 * meanCtx, (p * (p + 1)) / 2 + 3 * meanCtx) * noise());
  // Each ITL at the request's own context; the fit takes their mean at the mid-output context, exact for a linear step.
  const itls = inputLens.map((p, k) => Array.from({ length: outputLens[k] - 1 }, (_, i) => step(4, 4, p + i + 1 + 3 * meanCtx, p + i + 1 + 3 * meanCtx) * noise()));
  const dir = tempDir('attnscope-calibrate-');
  const file = join(dir, 'bench.json');
  writeFileSync(file, JSON.stringify({ backend: 'vllm', request_rate: 'inf', max_concurrency: 4, input_lens: inputLens, output_lens: outputLens, ttfts, itls, errors: inputLens.map(() => '') }));
  const fit = calibrateStepTime(profile, readVllmResult(file));
  const rel = (a: number, b: number) => Math.abs(a - b) / b;
  assert.equal(fit.concurrency, 4);
  assert.ok(rel(fit.spec.computeEfficiency, 0.5) < 0.05, `compute ${fit.spec.computeEfficiency}`);
  assert.ok(rel(fit.spec.memoryEfficiency, 0.75) < 0.05, `memory ${fit.spec.memoryEfficiency}`);
  assert.ok(rel(fit.spec.overheadMs, 3) < 0.15, `overhead ${fit.spec.overheadMs}`);
  assert.deepEqual(fit.parameters.map((p) => [p.key, p.fitted]), [['overhead_ms', true], ['compute_efficiency', true], ['memory_efficiency', true]]);
});


/** Each request's end-to-end latency in a result written by lowLoadResult: TTFT + Σ ITL, seconds. */
function e2es(file: string): number[] {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { ttfts: number[]; itls: number[][] };
  return doc.ttfts.map((t, k) => t + doc.itls[k].reduce((s, x) => s + x, 0));
}

test("without start_times or max_concurrency the batch is Little's law over the result's duration, not 1", () => {
  // Little's law L = λ · W: mean requests in the system = Σ e2e / duration (README; calibrate.ts
  // header). The 50 requests without start_times, duration 25 s: Σ e2e summed here from the file.
  const file = lowLoadResult((c) => 0.0065 + 0.12e-9 * c, (doc) => { delete doc.start_times; doc.duration = 25; });
  const want = e2es(file).reduce((s, x) => s + x, 0) / 25;
  assert.ok(want > 1.5, `Σ e2e / duration ${want}`);
  const fit = calibrateStepTime(llamaOnH100(), readVllmResult(file));
  assert.ok(Math.abs(fit.concurrency - want) < 1e-9, `${fit.concurrency} vs ${want}`);
  assert.equal(fit.concurrencySource, "Little's law over the result's duration 25 s");
  // Neither: assumed 1, and the line says what was missing.
  const none = calibrateStepTime(llamaOnH100(), readVllmResult(lowLoadResult((c) => 0.0065 + 0.12e-9 * c, (doc) => { delete doc.start_times; })));
  assert.equal(none.concurrencySource, 'assumed 1 (no max_concurrency, start_times or duration)');
});

test('max_concurrency is a cap, not the batch: a light load under a cap of 64 is fitted at the Little\'s law batch the start_times show (~1.9, was 50); a cap under it is the batch', () => {
  // The low-load result (50 requests, one every 0.5 s from start_times 1,000 s, e2e about 1 s each) run with
  // max_concurrency 64: the cap is never reached; the batch the file shows is Σ e2e / (last start + its e2e − first start),
  // by hand from the file here, about 2. Before s46 the fit took 50 (the cap, bounded by the 50 requests).
  const file = lowLoadResult((c) => 0.0065 + 0.12e-9 * c, (doc) => { doc.max_concurrency = 64; });
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { start_times: number[] };
  const e = e2es(file);
  const span = Math.max(...doc.start_times.map((t, k) => t + e[k]!)) - Math.min(...doc.start_times);
  const want = e.reduce((s, x) => s + x, 0) / span;
  assert.ok(want > 1.5 && want < 4, `Little's law ${want}`);
  const fit = calibrateStepTime(llamaOnH100(), readVllmResult(file));
  assert.ok(Math.abs(fit.concurrency - want) < 1e-9, `${fit.concurrency} vs ${want}`);
  assert.equal(fit.concurrencySource, "Little's law over start_times, below max_concurrency 64");
  // A cap of 1, under the ~1.9 Little's law gives: the cap is the batch, and the line says Little's law is at or above it.
  const capped = calibrateStepTime(llamaOnH100(), readVllmResult(lowLoadResult((c) => 0.0065 + 0.12e-9 * c, (d) => { d.max_concurrency = 1; })));
  assert.equal(capped.concurrency, 1);
  assert.match(capped.concurrencySource, /^max_concurrency \(Little's law over start_times gives [0-9.]+, at or above it\)$/);
});

test('Little\'s law over start_times pairs each request\'s start with its own e2e when a failed request is skipped', () => {
  // Starts 1000 + 0.02 k² s (uneven), request 0 failed: the usable requests are 1..49, so by hand
  // the span is max(start_k + e2e_k) − min(start_k) over k = 1..49 and L = Σ e2e_k / span.
  const file = lowLoadResult((c) => 0.0065 + 0.12e-9 * c, (doc) => {
    doc.start_times = (doc.input_lens as number[]).map((_, k) => 1000 + 0.02 * k * k);
    doc.errors = (doc.input_lens as number[]).map((_, k) => (k === 0 ? 'timeout' : ''));
  });
  const e = e2es(file);
  const start = (k: number) => 1000 + 0.02 * k * k;
  const ks = e.map((_, k) => k).slice(1);
  const span = Math.max(...ks.map((k) => start(k) + e[k])) - Math.min(...ks.map(start));
  const want = Math.max(1, ks.reduce((s, k) => s + e[k], 0) / span);
  const fit = calibrateStepTime(llamaOnH100(), readVllmResult(file));
  assert.ok(Math.abs(fit.concurrency - want) < 1e-9, `${fit.concurrency} vs ${want}`);
});

test("a low-load result (near-constant decode batch) keeps memory_efficiency at its bound 1, where the unbounded fit gives 11.8 (the newcomer's vb4: 14.8): the KV read is no faster than the bandwidth", () => {
  // ITL = 6.5 ms + 0.12 ns · context: the decode batch is ~2 requests, so every decode step reads
  // the 16.06 GB of weights and a few MB of KV: the bytes vary by well under 1%, the weight read
  // and overhead_ms are collinear, and the unbounded least squares put the weight read in the
  // overhead at memory_efficiency 11.8 here (a newcomer's vb4.json: 14.77).
  const profile = llamaOnH100();
  const fit = calibrateStepTime(profile, readVllmResult(lowLoadResult((c) => 0.0065 + 0.12e-9 * c)));
  assert.ok(fit.spec.memoryEfficiency <= 1 && fit.spec.computeEfficiency <= 1, JSON.stringify(fit.spec));
  const memory = fit.parameters.find((p) => p.key === 'memory_efficiency')!;
  assert.equal(memory.fitted, false);
  assert.match(memory.why!, /^held at its bound 1; unbounded, the fit asks for [\d.]+: a read faster than the bandwidth; the steps' bytes read \(weights and KV cache\) vary by only [\d.]+% \(relative standard deviation\) over these requests, so they and overhead_ms are nearly collinear: the data cannot tell one from the other$/);
  assert.equal(fit.parameters.find((p) => p.key === 'overhead_ms')!.fitted, true);
  // The floor by hand: 131,072 B of KV per token (32 layers · 8 KV heads · 128 · 2 (K, V) · 2 B)
  // at 100% of the H100 SXM's 3.35e12 B/s is 131,072 / 3.35e12 = 39.13 ns per KV token; the
  // unbounded fit's model read one in 2.65 ns.
  const model = stepTimeModel(profile, fit.spec, 'calibrated');
  assert.ok(model.perKvTokenS >= 131072 / 3.35e12 * (1 - 1e-12), `KV ${model.perKvTokenS * 1e9} ns/token`);
  // The weight read is in the step at the bound too: 15,009,849,344 B (the weights less the input
  // embedding) / 3.35e12 B/s = 4.481 ms, and the overhead is the rest of the ~6.6 ms decode step,
  // about 2.1 ms, not the whole of it.
  assert.ok(Math.abs(model.weightsS - 15009849344 / 3.35e12) < 1e-9);
  assert.ok(fit.spec.overheadMs > 1 && fit.spec.overheadMs < 2.5, `overhead ${fit.spec.overheadMs}`);
  // The CLI's lines say which keys the data determined and which were held.
  const lines = formatCalibration(fit, 'vb4.json');
  assert.match(lines.join('\n'), /\n {2}determined by the data: overhead_ms \(standard error [\d.]+%\), compute_efficiency \(standard error [\d.]+%\)\n {2}memory_efficiency held at its bound 1; /);
  // The comment above its paste-ready line names the one held key, memory_efficiency, and no fitted one.
  assert.match(lines[1]!, /^ {2}# not determined by this data: memory_efficiency \(see below\)/);
  assert.match(lines[2]!, /^ {2}step_time: \{/);
});

test('50 identical requests determine no factor: with overhead_ms at its bound 0 (all 50) or memory_efficiency at its bound 1 (3 dropped) the others are said to rest on that bound, not "determined by the data" (s45 newcomer MEDIUM-4)', () => {
  // The newcomer's cal.json: 50 requests of prompt 512 and output 128, every TTFT 50 ms and ITL 10 ms, one every 250 ms.
  // Two distinct timings (one prefill step, one decode step) for three unknowns: any two fit them exactly once the third
  // is fixed, so which two come out "fitted" is decided by a bound, and a standard error (~0.7%, from rounding alone)
  // is no evidence. It read "determined by the data: compute_efficiency (0.7%), memory_efficiency (0.7%)", and with
  // 3 requests dropped "determined: overhead_ms, compute_efficiency" with memory_efficiency "held at its bound 1".
  const dir = tempDir('attnscope-cal-');
  const n = 50;
  const bench = {
    request_rate: 4, model_id: 'meta-llama/Llama-3.1-8B-Instruct', max_concurrency: null, duration: 12.5, completed: n,
    input_lens: Array(n).fill(512), output_lens: Array(n).fill(128), ttfts: Array<number | null>(n).fill(0.05),
    itls: Array.from({ length: n }, () => Array(127).fill(0.01)), start_times: Array.from({ length: n }, (_, i) => i * 0.25), errors: Array(n).fill(''),
  };
  const all = join(dir, 'cal.json');
  writeFileSync(all, JSON.stringify(bench));
  bench.errors[3] = 'boom';
  bench.ttfts[5] = 0;
  bench.ttfts[7] = null;
  const dropped = join(dir, 'calbad.json');
  writeFileSync(dropped, JSON.stringify(bench));
  for (const file of [all, dropped]) {
    const fit = calibrateStepTime(llamaOnH100(), readVllmResult(file));
    const text = formatCalibration(fit, file).join('\n');
    assert.doesNotMatch(text, /^ {2}determined by the data:/m, text);
    // A YAML comment line above the paste-ready line says so (s50 newcomer LOW-11: "compute_efficiency: 0.1632" read as a figure).
    assert.match(text.split('\n')[1]!, /^ {2}# not determined by this data: (\w+, )*compute_efficiency(, \w+)* \(see below\); paste it, or set them yourself$/);
    assert.match(text.split('\n')[2]!, /^ {2}step_time: \{ .* \}$/);
    // Every factor is either held at a bound or said to rest on one; compute_efficiency is fitted through a bound in both.
    for (const p of fit.parameters) assert.ok(!p.fitted || p.throughBound !== undefined, `${file}: ${p.key}`);
    assert.match(text, /^ {2}compute_efficiency [\d.]+ is not determined by the data: .*\(every request alike\); the value is the fit's with (overhead_ms held at 0|memory_efficiency held at 1), and its standard error [\d.]+% assumes that$/m);
  }
});

test('a factor whose relative standard error exceeds MAX_RELATIVE_SE is held at the profile\'s step_time, else the assumed value, and the message says so', () => {
  // Llama-3.1-8B bf16 on an H100 SXM, one request at a time, output 1 (no TPOT): each request is
  // one prefill step of P tokens. Its memory work at peak is M = (W + 131,072 · P) / 3.35e12 s
  // (W = 15,009,849,344 B, the weights less the input embedding); its compute work (15,009,849,344 · P + 524,288 · P(P+1)/2) / 989e12
  // is at most 2.30 ms at P = 151, under M = 4.80 ms at every P, so every step is memory-bound
  // (1/0.6 · 2.30 < 1/0.8 · 4.80 ms) and compute_efficiency is held: no step is compute-bound.
  // P = 1, 51, 101, 151 space M by d = 131,072 · 50 / 3.35e12 = 1.95630e-6 s. TTFT =
  // 15 ms + 3 · M + r with r = +10, −10, −10, +10 µs (orthogonal to 1 and M), so the fit of
  // y = o + b · M gives b = 3, o = 15 ms, residuals r, and (equal weights 1/TTFT² to 0.1 %)
  //   s² = Σ r² / (n − 2) = 4e-10 / 2 = 2e-10,  Σ (M − M̄)² = (2.25 + 0.25 + 0.25 + 2.25) d² = 1.91356e-11,
  //   SE(b) = √(2e-10 / 1.91356e-11) = 3.233,  SE / b = 107.8 % > MAX_RELATIVE_SE 50 %:
  // memory_efficiency is held at 0.8 (assumed) and overhead_ms refitted with b = 1 / 0.8:
  // o = mean(TTFT − 1.25 · M) = 15 ms + 1.75 · M̄, M̄ = (W + 131,072 · 76) / 3.35e12 = 4.483526 ms
  // → 22.8462 ms. (Kept free, the fit would print memory_efficiency 1 / 3 = 0.333.)
  const P = [1, 51, 101, 151];
  const M = P.map((p) => (15009849344 + 131072 * p) / 3.35e12);
  const r = [1e-5, -1e-5, -1e-5, 1e-5];
  const ttfts = M.map((m, k) => 0.015 + 3 * m + r[k]);
  const file = join(tempDir('attnscope-calibrate-'), 'bench.json');
  writeFileSync(file, JSON.stringify({ backend: 'vllm', max_concurrency: 1, input_lens: P, output_lens: P.map(() => 1), ttfts, itls: P.map(() => []), errors: P.map(() => '') }));
  const fit = calibrateStepTime(llamaOnH100(), readVllmResult(file));
  assert.deepEqual(fit.parameters.map((p) => [p.key, p.fitted]), [['overhead_ms', true], ['compute_efficiency', false], ['memory_efficiency', false]]);
  assert.equal(fit.spec.memoryEfficiency, 0.8);
  assert.equal(fit.spec.computeEfficiency, 0.6);
  assert.ok(Math.abs(fit.spec.overheadMs - 22.846) < 1e-3, `overhead ${fit.spec.overheadMs}`);
  const memory = fit.parameters[2]!.why!;
  assert.match(memory, /^held at 0\.8 \(assumed, as without --calibrate\): the data do not determine it \(standard error (\d+\.\d)% of the fitted value\): the steps' bytes read \(weights and KV cache\) vary by only .*nearly collinear/);
  // The weights 1/TTFT² move the last digit: within 0.2 points of the hand figure.
  const se = Number(/standard error (\d+\.\d)%/.exec(memory)![1]);
  assert.ok(Math.abs(se - 107.8) <= 0.2, `standard error ${se}%`);
  // The bytes' spread, to three significant digits (it read "vary by only 0.0%"): the steps read
  // W + 131,072 · P bytes, mean W + 131,072 · 76 = 15,019,810,816, standard deviation
  // 131,072 · 50 · √((1.5² + 0.5² + 0.5² + 1.5²) / 4) = 7,327,188 (the weights 1/TTFT² differ by
  // under 0.1%): 7,327,188 / 15,019,810,816 = 0.0488%.
  assert.match(memory, /the steps' bytes read \(weights and KV cache\) vary by only 0\.0488% \(relative standard deviation\)/);
  assert.match(fit.parameters[1]!.why!, /^held at 0\.6: no step of these requests is compute-bound under the fit/);
  assert.ok(formatCalibration(fit, 'bench.json').includes(`  memory_efficiency ${memory}`));
  // With the profile's step_time the held factor takes the profile's value, and says so:
  // o = 15 ms + (3 − 1/0.7) · M̄ = 15 + 1.5714 · 4.483526 = 22.0455 ms.
  const given = calibrateStepTime(exampleProfile('model: ./llama-3.1-8b/config.json\ndevice: { gpu: H100 SXM }\nstep_time: { memory_efficiency: 0.7 }\n'), readVllmResult(file));
  assert.equal(given.spec.memoryEfficiency, 0.7);
  assert.match(given.parameters[2]!.why!, /^held at 0\.7 \(the profile's step_time\): the data do not determine it/);
  assert.ok(Math.abs(given.spec.overheadMs - 22.046) < 1e-3, `overhead ${given.spec.overheadMs}`);
});

test('a spread under 0.001% is written in exponent form, not with six zeros: P = 1, 1, 1, 2 read "vary by only 0.000378%" -> "3.8e-4%"', () => {
  // s46 newcomer46 L7 ("vary by only 0.00000225%"). The steps read W + 131,072 · P bytes (W = 15,009,849,344,
  // Llama-3.1-8B bf16): mean W + 131,072 · 1.25 = 15,010,013,184, standard deviation 131,072 · √(3 · 0.25² + 0.75²) / 2
  // = 131,072 · 0.4330 = 56,757 (the weights 1/TTFT² equal to 1e-4): 56,757 / 15,010,013,184 = 3.781e-6 = 3.8e-4%.
  // Prompts of one or two tokens: every step memory-bound.
  const P = [1, 1, 1, 2];
  const ttfts = P.map((p, k) => 0.015 + (15009849344 + 131072 * p) / 3.35e12 / 0.8 + [1e-5, -1e-5, -1e-5, 1e-5][k]!);
  const file = join(tempDir('attnscope-calibrate-'), 'bench.json');
  writeFileSync(file, JSON.stringify({ backend: 'vllm', max_concurrency: 1, input_lens: P, output_lens: P.map(() => 1), ttfts, itls: P.map(() => []), errors: P.map(() => '') }));
  // overhead_ms goes to its bound 0 (unbounded it would be negative) and memory_efficiency is fitted through it:
  // its note says the bytes do not vary enough to tell it from overhead_ms.
  const memory = calibrateStepTime(llamaOnH100(), readVllmResult(file)).parameters[2]!.throughBound!;
  assert.match(memory, /the steps' bytes read \(weights and KV cache\) vary by only 3\.8e-4% \(relative standard deviation\)/);
});

test('the profile\'s step_time.all_reduce is what the fit takes off its targets, and its snippet keeps it: latency_us 30 at tp 2 lowers overhead_ms by 65 calls · 20 µs = 1.3 ms', () => {
  // Llama-3.1-8B at tp 2: 32 · 2 + 1 = 65 all-reduces a step. The fit subtracts each step's modelled all-reduces from
  // its measured time (calibrate.ts); latency_us 30 for the assumed 10 subtracts 65 · 20 µs = 1.3 ms more from every
  // target, a constant, which the least squares' intercept (overhead) absorbs whole: the weights are 1 / measured²
  // (calibrate.ts), the same in both fits, so the shift is 1.3 ms to rounding (weights 1 / (measured − all-reduce)² gave 1.30010 ms).
  const P = [1, 51, 101, 151];
  const ttfts = P.map((p, k) => 0.02 + (15009849344 / 2 + 65536 * p) / 3.35e12 / 0.7 + [1e-5, -1e-5, -1e-5, 1e-5][k]!);
  const file = join(tempDir('attnscope-calibrate-'), 'bench.json');
  writeFileSync(file, JSON.stringify({ backend: 'vllm', max_concurrency: 1, input_lens: P, output_lens: P.map(() => 1), ttfts, itls: P.map(() => []), errors: P.map(() => '') }));
  const base = 'model: ./llama-3.1-8b/config.json\ndtype: bf16\ndevice: { gpu: H100 SXM, tensor_parallel_size: 2 }\n';
  const assumed = calibrateStepTime(exampleProfile(base), readVllmResult(file));
  const given = calibrateStepTime(exampleProfile(`${base}step_time: { all_reduce: { latency_us: 30 } }\n`), readVllmResult(file));
  assert.ok(Math.abs(assumed.spec.overheadMs - given.spec.overheadMs - 1.3) < 1e-9, `${assumed.spec.overheadMs} − ${given.spec.overheadMs}`);
  assert.deepEqual(given.spec.allReduce, { latencyUs: 30 });
  assert.match(formatCalibration(given, 'bench.json')[1]!, /^ {2}# not determined by this data: compute_efficiency, memory_efficiency \(see below\)/);
  assert.match(formatCalibration(given, 'bench.json')[2]!, /^ {2}step_time: \{ compute_efficiency: [\d.]+, memory_efficiency: [\d.]+, overhead_ms: [\d.]+, all_reduce: \{ latency_us: 30 \} \}$/);
  assert.doesNotMatch(formatCalibration(assumed, 'bench.json')[1]!, /all_reduce/);
});

test('a flat inter-token gap (a weight-bound decode) is fitted as overhead + weights at the bound, not refused as data that do not follow the model', () => {
  // ITL 7.5 ms at every context (vb2.json): the weight read at the full bandwidth, 4.481 ms
  // (15,009,849,344 B, the weights less the input embedding, / 3.35e12 B/s), plus an overhead of
  // the rest; the KV term at 39 ns/token over the ~2,000-token decode batch adds ~0.08 ms. So
  // o + 4.481 ms + 0.08 ms ≈ 7.5 ms.
  const profile = llamaOnH100();
  const fit = calibrateStepTime(profile, readVllmResult(lowLoadResult(() => 0.0075)));
  assert.equal(fit.spec.memoryEfficiency, 1);
  assert.match(fit.parameters.find((p) => p.key === 'memory_efficiency')!.why!, /^held at its bound 1; unbounded, (its factor comes out -?[\d.]+ ≤ 0: the timings do not grow with the steps' bytes read|the fit asks for [\d.]+: a read faster than the bandwidth)/);
  const decode = fit.spec.overheadMs + (15009849344 / 3.35e12) * 1000;
  assert.ok(Math.abs(decode - 7.5) / 7.5 < 0.03, `overhead ${fit.spec.overheadMs} ms + weights 4.481 ms = ${decode} ms`);
  assert.ok(fit.tpotError!.mean < 0.03);
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
  // A config named "<model>.config.json" is named without ".config": the instruct id matches it.
  assert.equal(calibrationModelMismatch({ modelPath: '/c/Llama-3.1-8B.config.json' }, { modelId: { value: 'meta-llama/Llama-3.1-8B-Instruct', line: 1, column: 1 } }), null);
  assert.match(calibrationModelMismatch({ modelPath: '/c/Qwen2.5-7B.config.json' }, { modelId: { value: 'meta-llama/Llama-3.1-8B-Instruct', line: 1, column: 1 } })!, /the profile's model is Qwen2\.5-7B \(/);
  // No model_id, or a profile not read from a file: nothing to compare.
  assert.equal(calibrationModelMismatch(profile, { modelId: null }), null);
  assert.equal(calibrationModelMismatch({ modelPath: null }, result), null);
  // s40 newcomer 6: a config in the hub cache is the model of its models--ORG--NAME folder, not of its revision hash.
  const hub = { modelPath: '/h/hub/models--meta-llama--Llama-3.1-8B/snapshots/abc123/config.json' };
  assert.equal(calibrationModelMismatch(hub, { modelId: { value: 'meta-llama/Llama-3.1-8B', line: 1, column: 1 } }), null);
  assert.match(calibrationModelMismatch(hub, result)!, /the profile's model is meta-llama\/Llama-3\.1-8B \(/);
});

test('a result with no inter-token latencies (every output_len 1): TPOT is n/a in the fit error and the refusal, not a perfect 0.0 %; the clamped Little\'s law and a null TTFT are said (s43 newcomer43 F5)', () => {
  // 50 requests, output_len 1 (itls empty), TTFT 50 ms each, duration 15.5 s: Little's law
  // Σ e2e / duration = 50 · 0.05 / 15.5 = 0.161 requests in flight (the server idle most of the
  // span), which the fit raises to 1. Request 3's TTFT is null (vllm bench serve's None).
  const file = lowLoadResult((c) => 0.0065 + 0.12e-9 * c, (doc) => {
    delete doc.start_times;
    doc.duration = 15.5;
    doc.output_lens = (doc.input_lens as number[]).map(() => 1);
    doc.itls = (doc.input_lens as number[]).map(() => []);
    doc.ttfts = (doc.input_lens as number[]).map((_, k) => (k === 3 ? null : 0.05));
  });
  const fit = calibrateStepTime(llamaOnH100(), readVllmResult(file));
  assert.equal(fit.tpotError, null);
  assert.equal(fit.requests, 49);
  assert.deepEqual(fit.leftOut, ['1 with no TTFT (ttfts[3] is null)']);
  assert.equal(fit.concurrency, 1);
  assert.equal(fit.concurrencySource, "Little's law over the result's duration 15.5 s, which gives 0.158 (Σ e2e / span: the server idle part of the time), taken as 1: a request's step holds at least itself");
  const lines = formatCalibration(fit, 'r.json');
  // 49 · 0.05 / 15.5 = 0.158 (the null-TTFT request has no e2e).
  assert.match(lines[0]!, /^Calibration from r\.json \(49 requests of 50, left out: 1 with no TTFT \(ttfts\[3\] is null\); concurrency 1\.00 from Little's law over the result's duration 15\.5 s, which gives 0\.158 /);
  assert.match(lines.find((l) => l.includes("one-step model's fit error"))!, /; TPOT n\/a \(no inter-token latencies in the result\)$/);
  assert.doesNotMatch(lines.join('\n'), /TPOT mean 0\.0%/);
});

test('an efficiency the unbounded fit puts at 1,000 or more is written in powers of ten and said for what it is (s43 newcomer43 F5: 13279632874210 printed raw)', () => {
  // No ITLs (output_len 1) and TTFT = 50 ms + 1 ns per prompt token: the prefill's FLOPs cost
  // 2 · 6.98e9 FLOP / 989e12 FLOP/s = 14.1 µs a token at the bf16 peak (the step-time model's
  // per-token figure for Llama-3.1-8B on an H100 SXM), so the fit asks for an efficiency of about
  // 14.1 µs / 1 ns = 1.4e4: far above the bound 1.
  const file = lowLoadResult(() => 0.0065, (doc) => {
    doc.output_lens = (doc.input_lens as number[]).map(() => 1);
    doc.itls = (doc.input_lens as number[]).map(() => []);
    doc.ttfts = (doc.input_lens as number[]).map((p) => 0.05 + 1e-9 * p);
  });
  const fit = calibrateStepTime(llamaOnH100(), readVllmResult(file));
  const compute = fit.parameters.find((p) => p.key === 'compute_efficiency')!;
  assert.equal(compute.fitted, false);
  const m = /^held at its bound 1; unbounded, the fit asks for ≈ (\d\.\de\d+), FLOPs that many times faster than the bf16 peak: the timings hardly grow with the steps' FLOPs/.exec(compute.why!);
  assert.ok(m, compute.why);
  assert.ok(Number(m[1]) > 1e4 && Number(m[1]) < 2e4, m[1]);
});
