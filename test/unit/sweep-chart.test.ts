/**
 * The Sweep tab as a figure for a design doc (webview/sweep.ts, s50 sweepchart): what its PNG says of
 * itself, the key figures charted side by side, the points not run and the p10–p90 spread.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sweepPngCaption } from '../../webview/sweep';
import { pageSizeSweep } from '../fixtures/sweep';

test('the sweep PNG\'s caption names the model, profile, sweep id and job, the GPU modelled for and the machine measured on', () => {
  // Written out from the fixture: models, name, sweepId, job, each row's gpu, the one environment (run.environment: AMD EPYC, 2 cores, x64, avx2).
  assert.deepEqual(sweepPngCaption(pageSizeSweep), [
    'Llama-3.1-8B · page-size.attn.yaml · sweep',
    'Llama-3.1-8B · page-size.attn.yaml · sweep d4cf7d4c (job both) · modelled for H100 SXM: internal fragmentation, prefix-cache hit rate · measured on AMD EPYC (2 cores, x64, avx2): decode time per token (median, p10–p90)',
    '5 of 9 points; not run: the other 4 (the sweep was interrupted) · merged 2026-12-06 13:54 UTC',
    'Best point: page_size=16 — the lowest measured decode time per token.',
  ]);
});
