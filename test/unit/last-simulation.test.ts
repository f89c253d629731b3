// The hover's last simulation: the newest saved run of this profile with a latency summary,
// found in .attnscope/runs above the profile; other profiles' runs and unreadable files skipped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { latencyMarkdown, lastSimulation } from '../../server/lastSimulation';
import { tempDir } from '../fixtures/tmp';

const stats = (s: number) => ({ mean: s, p50: s, p90: s, p99: s, max: s });
const latency = (ttft: number) => ({ kind: 'modelled', requests: 10, queue: stats(0), ttft: stats(ttft), tpot: stats(0.02), e2e: stats(1), requestsPerSec: 2.5, outputTokensPerSec: 400, slo: { ttftMs: 500 }, goodputRequestsPerSec: 2, sloAttainment: 0.8, ttftCdf: [], tpotCdf: [] });

test('the newest saved run of this profile gives the hover its latency table', () => {
  const root = tempDir('attnscope-last-');
  const runs = join(root, '.attnscope', 'runs');
  mkdirSync(runs, { recursive: true });
  mkdirSync(join(root, 'profiles'));
  const profile = join(root, 'profiles', 'a.attn.yaml');
  const other = join(root, 'profiles', 'b.attn.yaml');
  const run = (file: string, sourcePath: string, ttft: number | null, createdAt: string) =>
    writeFileSync(join(runs, file), JSON.stringify({ createdAt, profile: { sourcePath }, pool: ttft === null ? { summary: {} } : { latency: latency(ttft) } }));
  assert.equal(lastSimulation(profile), null);
  run('20261201-100000-a.json', profile, 0.3, '2026-12-01T10:00:00Z');
  run('20261201-110000-a.json', profile, 0.4, '2026-12-01T11:00:00Z');
  run('20261201-120000-b.json', other, 0.9, '2026-12-01T12:00:00Z');
  run('20261201-130000-a.json', profile, null, '2026-12-01T13:00:00Z'); // a bench without a workload
  writeFileSync(join(runs, '20261201-140000-broken.json'), '{');
  const last = lastSimulation(profile)!;
  assert.equal(last.createdAt, '2026-12-01T11:00:00Z');
  const md = latencyMarkdown(last);
  assert.match(md, /^\*\*Last simulation\*\* \(2026-12-01T11:00:00Z, modelled on the step-time model\) — 10 requests$/m);
  // Each cell carries its unit (core/format formatDuration): 0.4 s reads 400 ms, 0.02 s 20 ms.
  assert.match(md, /^\| TTFT \| 400 ms \| 400 ms \| 400 ms \| 400 ms \|$/m);
  assert.match(md, /^\| TPOT \| 20 ms \| 20 ms \| 20 ms \| 20 ms \|$/m);
  assert.match(md, /^Goodput 2\.00 requests\/s meet TTFT <= 500 ms \(80\.0 % of requests\)\.$/m);
  assert.equal(lastSimulation(other)!.latency.ttft!.p99, 0.9);
});
