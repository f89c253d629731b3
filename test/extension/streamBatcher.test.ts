/** StreamBatcher (extension/streamBatcher.ts) under mock timers: bounded message rate, nothing lost, order kept. */
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import type { ToWebview } from '../../core/protocol/webview';
import { StreamBatcher } from '../../extension/streamBatcher';
import { run } from '../fixtures/run';

const samples = run.pool!.samples;

describe('StreamBatcher', () => {
  it('sends a burst of pool samples as one message after the interval, and the latest progress only', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const sent: ToWebview[] = [];
      const b = new StreamBatcher((m) => sent.push(m), 100);
      for (const [i, s] of samples.entries()) {
        b.post({ type: 'poolSamples', samples: [s] });
        b.post({ type: 'progress', done: i, total: samples.length, message: 'pool' });
      }
      assert.equal(sent.length, 0, 'nothing before the interval');
      mock.timers.tick(99);
      assert.equal(sent.length, 0);
      mock.timers.tick(1);
      assert.deepEqual(sent, [
        { type: 'poolSamples', samples },
        { type: 'progress', done: samples.length - 1, total: samples.length, message: 'pool' },
      ]);
    } finally {
      mock.timers.reset();
    }
  });

  it('keeps a sweep\'s latest progress only, and sends it before the sweep\'s end', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const sent: ToWebview[] = [];
      const b = new StreamBatcher((m) => sent.push(m), 100);
      // A point's progress events, many a second: one message per interval reaches the page.
      for (let i = 1; i <= 50; i++) b.post({ type: 'sweepProgress', done: i / 50, total: 4, message: `0 of 4 points done · running: page_size=16 ${2 * i}%` });
      b.post({ type: 'sweepEnded', status: 'cancelled', message: 'cancelled' });
      assert.deepEqual(sent, [
        { type: 'sweepProgress', done: 1, total: 4, message: '0 of 4 points done · running: page_size=16 100%' },
        { type: 'sweepEnded', status: 'cancelled', message: 'cancelled' },
      ]);
    } finally {
      mock.timers.reset();
    }
  });

  it('at most one batch per interval whatever the rate: 1,000 samples 1 ms apart -> 10 batches, all samples in order', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const sent: ToWebview[] = [];
      const b = new StreamBatcher((m) => sent.push(m), 100);
      const many = Array.from({ length: 1000 }, (_, i) => ({ ...samples[0]!, t: i }));
      for (const s of many) {
        b.post({ type: 'poolSamples', samples: [s] });
        mock.timers.tick(1);
      }
      // Samples 0..99 go at t = 100 ms, ..., 900..999 at 1,000 ms: 10 messages.
      assert.equal(sent.length, 10);
      assert.deepEqual(sent.flatMap((m) => (m.type === 'poolSamples' ? m.samples.map((s) => s.t) : [])), many.map((s) => s.t));
    } finally {
      mock.timers.reset();
    }
  });

  it('flushes what it holds before any other message (runFinished never overtakes samples)', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const sent: string[] = [];
      const b = new StreamBatcher((m) => sent.push(m.type === 'poolSamples' ? `poolSamples:${m.samples.length}` : m.type), 100);
      b.post({ type: 'poolSamples', samples: samples.slice(0, 3) });
      b.post({ type: 'progress', done: 1, total: 2, message: 'x' });
      b.post({ type: 'runFinished', run, id: null });
      assert.deepEqual(sent, ['poolSamples:3', 'progress', 'runFinished']);
      mock.timers.tick(1000);
      assert.equal(sent.length, 3, 'the timer of the flushed batch sends nothing more');
    } finally {
      mock.timers.reset();
    }
  });
});
