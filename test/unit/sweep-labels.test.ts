// A sweep axis value as the sweep's labels and table write it (core/format axisValueText).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pointLabel } from '../../core/config/sweep';
import { axisValueText } from '../../core/format';
import type { SweepReport } from '../../core/protocol/sweep';
import { formatReport } from '../../runner/sweep/results';

test('a described GPU on a device.gpu axis reads as its name, not its mapping as JSON (s42 newcomer 11: 150+ characters in the gpu column and the best line)', () => {
  const mi325x = { name: 'MI325X', bf16_tflops: 1307.4, memory_bandwidth_gb_s: 6000, memory_gib: 255.5, interconnect: 'Infinity Fabric', interconnect_gb_s: 448 };
  assert.equal(axisValueText(mi325x), 'MI325X (user-given)');
  assert.equal(pointLabel({ 'device.gpu': mi325x, 'device.tensor_parallel_size': 2 }), 'gpu=MI325X (user-given) tensor_parallel_size=2');
  // A table name stays as written; numbers as String writes them (Infinity, as 1e400 reads, not JSON's null); a mapping without a name stays JSON.
  assert.deepEqual([axisValueText('H100 SXM'), axisValueText(Infinity), axisValueText({ value: 3 })], ['H100 SXM', 'Infinity', '{"value":3}']);
  const row = (id: string, gpu: unknown, rate: number) => ({ id, index: 0, values: { 'device.gpu': gpu }, label: pointLabel({ 'device.gpu': gpu }), environmentKey: 'e', status: 'ok' as const, metrics: { maxRateRequestsPerSec: rate, maxRatePerGpuRequestsPerSec: rate, maxRateLimit: 'slo' }, file: `${id}.json` });
  const report = {
    schema: 1, name: 'p.attn.yaml', sweepId: 's', inputsId: 'i', job: 'max-rate', axes: [{ key: 'device.gpu', values: ['H100 SXM', mi325x] }], total: 2,
    environments: { e: { cpuModel: 'x' } }, rows: [row('a', 'H100 SXM', 10), row('b', mi325x, 20)], missing: [], duplicates: [], best: null,
  } as unknown as SweepReport;
  const text = formatReport(report);
  assert.match(text, /^MI325X \(user-given\) /m);
  assert.doesNotMatch(text, /bf16_tflops/);
});
