/** Case-by-case comparison (webview/compare.ts): a change counts only beyond both runs' p10–p90 spread. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { KernelCase, RunResult } from '../../core/protocol/run';
import { caseLabel, compareRuns } from '../../webview/compare';

const run = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'run.json'), 'utf8')) as RunResult;
const c0 = run.cases[0]!; // median 1915798 ns, p10 1842794, p90 1959530: spread 116736 ns

function withTimes(c: KernelCase, median: number, p10: number, p90: number): KernelCase {
  return { ...c, medianNs: median, p10Ns: p10, p90Ns: p90 };
}

describe('compareRuns', () => {
  it('flags a change just beyond the wider spread and not one just inside it', () => {
    const spread = c0.p90Ns - c0.p10Ns; // 116736
    const inside = { ...run, cases: [withTimes(c0, c0.medianNs + spread, c0.p10Ns + spread, c0.p90Ns + spread)] };
    const beyond = { ...run, cases: [withTimes(c0, c0.medianNs + spread + 1, c0.p10Ns + spread, c0.p90Ns + spread)] };
    const a = { ...run, cases: [c0] };
    assert.equal(compareRuns(a, inside)[0]!.verdict, 'same');
    assert.equal(compareRuns(a, beyond)[0]!.verdict, 'slower');
    // A noisier B widens the threshold: 200000 ns faster, but B's own spread is 400000.
    const noisyFaster = { ...run, cases: [withTimes(c0, c0.medianNs - 200000, c0.medianNs - 400000, c0.medianNs)] };
    assert.equal(compareRuns(a, noisyFaster)[0]!.verdict, 'same');
    const clearlyFaster = { ...run, cases: [withTimes(c0, 1000000, 990000, 1010000)] };
    const r = compareRuns(a, clearlyFaster)[0]!;
    assert.equal(r.verdict, 'faster');
    assert.equal(r.relativeChange, (1000000 - 1915798) / 1915798);
  });

  it('matches cases by shape, and reports cases only one run has', () => {
    const b = { ...run, cases: [run.cases[1]!, { ...run.cases[2]!, shape: { ...run.cases[2]!.shape, seqLenQ: 8192, seqLenK: 8192 } }] };
    const a = { ...run, cases: [run.cases[0]!, run.cases[1]!] };
    assert.deepEqual(compareRuns(a, b).map((r) => [r.label, r.verdict]), [
      ['prefill B1 N512', 'only-a'],
      ['prefill B1 N1024', 'same'],
      ['prefill B1 N8192', 'only-b'],
    ]);
  });

  it('labels decode cases with batch, context and page size', () => {
    assert.equal(caseLabel(run.cases[6]!), 'decode B8 ctx4096 p16');
  });
});
