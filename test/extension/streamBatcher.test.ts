/** StreamBatcher (extension/streamBatcher.ts) under mock timers: bounded message rate, nothing lost, order kept. */
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import type { ToWebview } from '../../core/protocol/webview';
import { StreamBatcher } from '../../extension/streamBatcher';
import { run } from '../fixtures/run';

const samples = run.pool!.samples;

describe('StreamBatcher', () => {
  it('sends the first message of a quiet stream at once, the burst after it as one message after the interval, and the latest progress only', () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    try {
      const sent: ToWebview[] = [];
      const b = new StreamBatcher((m) => sent.push(m), 100);
      for (const [i, s] of samples.entries()) {
        b.post({ type: 'poolSamples', samples: [s] });
        b.post({ type: 'progress', done: i, total: samples.length, message: 'pool' });
      }
      assert.deepEqual(sent, [{ type: 'poolSamples', samples: [samples[0]] }], 'the first at once, the rest held');
      b.drawn();
      mock.timers.tick(99);
      assert.equal(sent.length, 1);
      mock.timers.tick(1);
      assert.deepEqual(sent.slice(1), [
        { type: 'poolSamples', samples: samples.slice(1) },
        { type: 'progress', done: samples.length - 1, total: samples.length, message: 'pool' },
      ]);
    } finally {
      mock.timers.reset();
    }
  });

  it('keeps a sweep\'s latest progress only, and sends it before the sweep\'s end', () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    try {
      const sent: ToWebview[] = [];
      const b = new StreamBatcher((m) => sent.push(m), 100);
      // A point's progress events, many a second: the first goes at once, then one message per interval reaches the page.
      for (let i = 1; i <= 50; i++) b.post({ type: 'sweepProgress', done: i / 50, total: 4, message: `0 of 4 points done · running: page_size=16 ${2 * i}%` });
      b.post({ type: 'sweepEnded', status: 'cancelled', message: 'cancelled' });
      assert.deepEqual(sent, [
        { type: 'sweepProgress', done: 1 / 50, total: 4, message: '0 of 4 points done · running: page_size=16 2%' },
        { type: 'sweepProgress', done: 1, total: 4, message: '0 of 4 points done · running: page_size=16 100%' },
        { type: 'sweepEnded', status: 'cancelled', message: 'cancelled' },
      ]);
    } finally {
      mock.timers.reset();
    }
  });

  // s37 newcomer-ed 6: the Sweep tab lagged the notification; every update waited for the 250 ms
  // timer, the sweep's first and its last too (which the end then replaced unseen).
  it('sends a run\'s or sweep\'s first progress at once, a progress after a quiet interval at once, and the last (done = total) at once whatever the page drew', () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    try {
      const sent: ToWebview[] = [];
      const b = new StreamBatcher((m) => sent.push(m), 250);
      const at = (saved: number) => ({ type: 'sweepProgress' as const, done: saved, total: 4, message: `${saved} of 4 points saved` });
      b.post(at(0));
      assert.deepEqual(sent, [at(0)], 'the first at once (it waited 250 ms)');
      // A burst while the page has not drawn: held.
      b.post(at(1));
      b.post(at(2));
      mock.timers.tick(250);
      assert.equal(sent.length, 1, 'the page has not drawn the first');
      b.drawn();
      assert.deepEqual(sent.slice(1), [at(2)], 'the latest of the burst once the page drew');
      b.drawn();
      // Quiet for the interval: the next goes at once.
      mock.timers.tick(400);
      b.post(at(3));
      assert.deepEqual(sent.slice(2), [at(3)]);
      // The last, 10 ms after the one before and not drawn yet: at once all the same.
      mock.timers.tick(10);
      b.post(at(4));
      assert.deepEqual(sent.slice(3), [at(4)]);
      mock.timers.tick(1000);
      assert.equal(sent.length, 4, 'nothing left behind to send');
    } finally {
      mock.timers.reset();
    }
  });

  it('at most one batch per interval whatever the rate: 1,000 samples 1 ms apart -> 10 batches, all samples in order', () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    try {
      const sent: ToWebview[] = [];
      // A page that draws each batch at once.
      const b: StreamBatcher = new StreamBatcher((m) => {
        sent.push(m);
        b.drawn();
      }, 100);
      const many = Array.from({ length: 1000 }, (_, i) => ({ ...samples[0]!, t: i }));
      for (const s of many) {
        b.post({ type: 'poolSamples', samples: [s] });
        mock.timers.tick(1);
      }
      // Sample 0 at once (a quiet stream), 1..99 at t = 100 ms, ..., 900..999 at 1,000 ms: 11 messages.
      assert.equal(sent.length, 11);
      assert.deepEqual(sent.flatMap((m) => (m.type === 'poolSamples' ? m.samples.map((s) => s.t) : [])), many.map((s) => s.t));
    } finally {
      mock.timers.reset();
    }
  });

  it('flushes what it holds before any other message (samples never overtaken), but drops it before runFinished, which carries them', () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    try {
      const sent: string[] = [];
      const b = new StreamBatcher((m) => sent.push(m.type === 'poolSamples' ? `poolSamples:${m.samples.length}` : m.type), 100);
      b.post({ type: 'poolSamples', samples: samples.slice(0, 3) });
      b.post({ type: 'poolSamples', samples: samples.slice(3, 5) });
      b.post({ type: 'progress', done: 1, total: 2, message: 'x' });
      b.post({ type: 'runSaved', id: 'x' });
      assert.deepEqual(sent, ['poolSamples:3', 'poolSamples:2', 'progress', 'runSaved'], 'the first at once, the held two and the progress before the other message');
      b.post({ type: 'poolSamples', samples: samples.slice(5, 9) });
      b.post({ type: 'progress', done: 1, total: 2, message: 'x' });
      b.post({ type: 'poolSamples', samples: samples.slice(9, 12) });
      // The last progress goes at once, alone: the samples stay held for the finish right behind it.
      b.post({ type: 'progress', done: 2, total: 2, message: 'x' });
      assert.deepEqual(sent.slice(4), ['progress']);
      b.post({ type: 'runFinished', run, id: null });
      assert.deepEqual(sent.slice(4), ['progress', 'runFinished'], 'the held samples dropped: the finish carries them');
      mock.timers.tick(1000);
      assert.equal(sent.length, 6, 'the timer of the dropped batch sends nothing more');
    } finally {
      mock.timers.reset();
    }
  });

  // s34 newcomer-ed 1: at load 21-26 with the user typing, the page drew far fewer batches than it
  // was sent; the backlog replayed one message at a time and the finish showed 33-116 s late.
  it('sends nothing more until the page drew the last batch, then only the latest progress; the finish never waits for the page', () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    try {
      const sent: ToWebview[] = [];
      const b = new StreamBatcher((m) => sent.push(m), 100);
      b.post({ type: 'progress', done: 0, total: 1000, message: 'pool' });
      mock.timers.tick(100);
      assert.equal(sent.length, 1, 'the first batch');
      // 999 progress events and samples over 10 s while the page has not drawn the first batch.
      for (let i = 1; i < 1000; i++) {
        b.post({ type: 'poolSamples', samples: [{ ...samples[0]!, t: i }] });
        b.post({ type: 'progress', done: i, total: 1000, message: 'pool' });
        mock.timers.tick(10);
      }
      assert.equal(sent.length, 1, 'nothing while the page has not drawn: 1 message, not ~200');
      b.drawn();
      // The interval had passed: the page's word sends the gathered batch at once, the latest progress only.
      assert.deepEqual(sent.slice(1).map((m) => (m.type === 'poolSamples' ? m.samples.length : m.type === 'progress' ? m.done : m.type)), [999, 999]);
      b.post({ type: 'progress', done: 1000, total: 1000, message: 'saving' });
      // Not drawn again: the finish goes at once all the same, after what is held.
      b.post({ type: 'runFinished', run, id: null });
      assert.deepEqual(sent.slice(3).map((m) => m.type), ['progress', 'runFinished']);
      mock.timers.tick(1000);
      assert.equal(sent.length, 5, 'nothing after the finish');
    } finally {
      mock.timers.reset();
    }
  });
});
