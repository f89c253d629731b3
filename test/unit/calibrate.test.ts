// Calibration of the step-time model from a vllm bench serve result: a synthetic file made by
// the model's formula with known efficiencies and overhead is fitted back to them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readProfile } from '../../core/config/index';
import { calibrateStepTime, readVllmResult } from '../../runner/simulate/index';

const EXAMPLES = resolve(import.meta.dirname, '../../examples');

test('calibration recovers known efficiencies and overhead from a synthetic vllm bench serve file', () => {
  // Llama-3.1-8B bf16 on an H100 SXM, by hand from the model card and datasheet:
  // W = 16,060,522,496 B, KV 131,072 B/token, 2·P = 15,009,849,344 FLOP/token (P = the
  // 8,030,261,248 parameters less the 525,336,576-row embedding lookup, which multiplies nothing),
  // attention 4·L·H·D = 524,288 FLOP per query-key pair; 3.35e12 B/s, 989e12 FLOP/s.
  // Truth: compute efficiency 0.45, memory efficiency 0.7, overhead 2 ms; one request at a time
  // (max_concurrency 1). A prompt of P tokens: TTFT = 2 ms + max(compute, memory) of one prefill
  // step; its i-th later token (i = 1 … O−1) is a decode step over KV P + i.
  const r = readProfile('model: ./llama-3.1-8b/config.json\ndevice: { gpu: H100 SXM }\n', join(EXAMPLES, 'x.attn.yaml'), {
    readFile: (p) => {
      try {
        return readFileSync(p, 'utf8');
      } catch {
        return null;
      }
    },
  });
  const profile = r.value!;
  const W = 16060522496;
  const bw = 3.35e12 * 0.7;
  const flops = 989e12 * 0.45;
  const step = (tokens: number, kv: number, pairs: number) => 0.002 + Math.max((W + 131072 * kv) / bw, (15009849344 * tokens + 524288 * pairs) / flops);
  const inputLens = [128, 512, 1024, 2048, 3000, 4096, 300, 6000];
  const outputLens = [64, 32, 128, 16, 200, 8, 100, 50];
  const ttfts = inputLens.map((p) => step(p, p, (p * (p + 1)) / 2));
  const itls = inputLens.map((p, k) => Array.from({ length: outputLens[k] - 1 }, (_, i) => step(1, p + i + 1, p + i + 1)));
  const dir = mkdtempSync(join(tmpdir(), 'attnscope-calibrate-'));
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
