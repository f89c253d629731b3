/** The pool chart's pure parts (webview/charts.ts): which samples are drawn, which series show. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PoolSample } from '../../core/protocol/run';
import { logTick, poolTimelineChart, thinSamples } from '../../webview/charts';
import { viewOfRun } from '../../webview/model';
import type { Palette } from '../../webview/theme';
import { run } from '../fixtures/run';

const palette: Palette = { kind: 'dark', foreground: '#cccccc', muted: '#9d9d9d', grid: '#444444', background: '#1f1f1f', series: ['#3794ff', '#d18616', '#89d185', '#b180d7', '#f14c4c', '#cca700'], fontFamily: 'sans-serif', fontSize: 13, lineWidth: 1 };

const sample = (t: number, pagesUsed: number): PoolSample => ({ t, pagesUsed, pagesCached: 0, pagesFree: 100 - pagesUsed, tokens: pagesUsed * 16, internalFragmentation: 0, running: 1, waiting: 0, preempted: 0, prefixHitRate: 0 });

describe('pool chart', () => {
  it('thins 1,144 samples to 400, keeping the first, the last and the peak', () => {
    // A ramp with one spike of 97 pages at sample 501 (between two picks of a stride sampler).
    const samples = Array.from({ length: 1144 }, (_, i) => sample(i / 10, i === 501 ? 97 : (i % 50)));
    const drawn = thinSamples(samples, 400);
    assert.equal(drawn.length, 400);
    assert.equal(drawn[0], samples[0]);
    assert.equal(drawn.at(-1), samples.at(-1));
    assert.ok(drawn.includes(samples[501]!), 'the peak sample is drawn');
    assert.ok(drawn.every((s, i) => i === 0 || s.t > drawn[i - 1]!.t), 'in time order, no repeats');
    assert.equal(thinSamples(samples.slice(0, 61), 400).length, 61, 'few samples: all drawn');
  });

  it('leaves out series that are zero throughout (no cached pages, no preemptions), and their axes', () => {
    const samples = Array.from({ length: 10 }, (_, i) => ({ ...sample(i, 10 * i), internalFragmentation: 0.05 }));
    const spec = poolTimelineChart({ ...viewOfRun(run, null), pool: null, poolSamples: samples }, palette);
    const labels = (spec.config.data.datasets as Array<{ label: string }>).map((d) => d.label);
    // tokens = 16 · pagesUsed: no internal waste either.
    assert.deepEqual(labels, ['held: pages of tokens', 'free', 'internal fragmentation (%)']);
    assert.deepEqual(Object.keys(spec.config.options!.scales!), ['x', 'y', 'yPct']);
    // The pool, 100 pages, from the samples (held + cached + free) while the run has no PoolResult yet.
    assert.equal((spec.config.options!.scales!['y'] as { max: number }).max, 100);
  });
});

describe('logTick', () => {
  it('labels only powers of ten, compactly (chart.js printed "700.00 1,000.00" side by side)', () => {
    assert.deepEqual([0.1, 0.3, 1, 7, 10, 700, 1000, 30000, 1e6].map(logTick), ['0.1', '', '1', '', '10', '', '1k', '', '1M']);
  });
});
