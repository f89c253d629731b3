// simulate --calibrate fed a real run of this tool: test/fixtures/run.ts, recorded from
// `attnscope bench test/fixtures/run.attn.yaml --quick --json` on this machine's CPU, written out
// as the JSON file bench writes. As recorded it is refused (the step-time model is a GPU's);
// the same run with its cases marked as CUDA on the profile's GPU goes through the whole path —
// reading, fitting, the model, the simulation and the run JSON — and the coefficients it reports
// are checked against the recorded timings by hand formulas, not by the fitting code.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { KernelCase, RunResult } from '../../core/protocol/run';
import { run as recorded } from '../fixtures/run';
import { tempDir } from '../fixtures/tmp';

const root = join(__dirname, '..', '..');
const runner = join(root, 'dist', 'runner.js');
const profile = join(root, 'test', 'fixtures', 'run.attn.yaml'); // Llama-3.1-8B bf16; device.gpu unset: H100 SXM
const dir = tempDir('attnscope-calibrate-');

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [runner, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Checks that t = c + x / rate is the weighted least-squares line (weights 1 / t²) of the cases,
 * by its normal equations: the weighted residuals sum to 0 (when c > 0) and are orthogonal to x.
 * With one case the line goes through the origin and the point: rate = x / t.
 */
function assertFit(points: Array<[number, number]>, rate: number, fixedS: number, what: string): void {
  if (points.length === 1) {
    assert.ok(Math.abs(rate / (points[0][0] / points[0][1]) - 1) < 1e-12, `${what}: rate ${rate} against x / t ${points[0][0] / points[0][1]}`);
    assert.equal(fixedS, 0);
    return;
  }
  let sum = 0;
  let sumX = 0;
  let scale = 0;
  for (const [x, t] of points) {
    const r = (fixedS + x / rate - t) / (t * t);
    sum += r;
    sumX += r * x;
    scale += Math.abs(x / (t * t));
  }
  if (fixedS > 0) assert.ok(Math.abs(sum) * points[0][1] < 1e-6 * points.length, `${what}: residuals sum to ${sum}`);
  assert.ok(Math.abs(sumX) < 1e-6 * scale, `${what}: residuals · x = ${sumX}`);
}

test('simulate --calibrate with a real CPU bench run: refused as it is, fitted end to end once its cases are marked as the profile\'s GPU', () => {
  const asRecorded = join(dir, 'cpu-run.json');
  writeFileSync(asRecorded, JSON.stringify(recorded));
  const refused = cli(['simulate', profile, '--calibrate', asRecorded]);
  assert.equal(refused.code, 2, refused.stderr);
  assert.equal(
    refused.stderr.trim(),
    `${asRecorded}:1:1: cpu-run.json has no CUDA kernel timings (its ${recorded.cases.length} cases ran on the cpu backend (${recorded.environment.cpuModel})); the step-time model is for H100 SXM: benchmark on that GPU (attnscope bench --backend cuda --json FILE)`,
  );

  const relabelled: RunResult = {
    ...recorded,
    cases: recorded.cases.map((c): KernelCase => ({ ...c, backend: 'cuda' })),
    environment: { ...recorded.environment, gpu: { name: 'NVIDIA H100 80GB HBM3', smCount: 132, memoryBytes: 85520809984, driver: 'recorded on a CPU', runtime: 'n/a' } },
  };
  const asCuda = join(dir, 'cuda-run.json');
  writeFileSync(asCuda, JSON.stringify(relabelled));
  const out = join(dir, 'sim.json');
  const r = cli(['simulate', profile, '--calibrate', asCuda, '--json', out]);
  assert.equal(r.code, 0, r.stderr);
  const flash = recorded.cases.filter((c) => c.kernel === 'flash_fwd' && (c.dtype === 'bf16' || c.dtype === 'fp16'));
  const decode = recorded.cases.filter((c) => c.kernel === 'paged_decode');
  assert.ok(flash.length > 0 && decode.length > 0, 'the recorded run has a flash_fwd bf16 and a paged_decode case');
  const saved = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
  const step = saved.pool!.stepTime!;
  const pairs = step.measured!.find((m) => m.coefficient === 'perPairS')!;
  const kv = step.measured!.find((m) => m.coefficient === 'perKvTokenS')!;
  assert.equal(pairs.cases, flash.length);
  assert.equal(kv.cases, decode.length);
  assertFit(flash.map((c) => [c.flops, c.medianNs * 1e-9]), pairs.rate, pairs.fixedS, 'flash_fwd');
  assertFit(decode.map((c) => [c.bytes, c.medianNs * 1e-9]), kv.rate, kv.fixedS, 'paged_decode');
  // Hand formulas for Llama-3.1-8B (32 layers, 32 query heads, 8 KV heads, head_dim 128, bf16, one GPU):
  // KV bytes per token 2 (K and V) × 32 × 8 × 128 × 2 B = 131,072; FLOPs per query-key pair
  // 4 × 32 layers × 32 heads × 128 = 524,288 (QK^T and PV, 2 FLOPs per multiply-add each).
  assert.ok(Math.abs(step.perKvTokenS / (131072 / kv.rate) - 1) < 1e-9, `perKvTokenS ${step.perKvTokenS}`);
  assert.ok(Math.abs(step.perPairS / (524288 / pairs.rate) - 1) < 1e-9, `perPairS ${step.perPairS}`);
  // H100 SXM's published figures (its datasheet, as core/estimate/gpus.ts copies them): 1,979 TFLOP/s bf16 with sparsity, so 989 dense; 3.35 TB/s.
  assert.ok(Math.abs(pairs.efficiency / (pairs.rate / 989e12) - 1) < 1e-9);
  assert.ok(Math.abs(kv.efficiency / (kv.rate / 3.35e12) - 1) < 1e-9);
  assert.match(r.stdout, /^Calibration from .*cuda-run\.json \(kernel timings on H100 SXM\):$/m);
  assert.match(r.stdout, /^Step time \(modelled\) = max\(memory, compute\)\n {2}memory: .*\n {2}compute: .*\n {2}perPairS, perKvTokenS measured\n/m);
  // The run's latency is on that clock: every completed request has a TTFT.
  assert.ok(saved.pool!.latency!.ttft !== null && saved.pool!.latency!.requests > 0);
});
