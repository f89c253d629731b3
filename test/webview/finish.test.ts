/**
 * The finish of a streamed run (webview/model.ts reduce of `runFinished` with `streamedSamples`):
 * the extension sends the page only the pool samples it had not streamed (extension/dashboard.ts
 * deliver, StreamBatcher dropping its held batch), and the page puts its own first.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emptyModel, reduce } from '../../webview/model';
import { run } from '../fixtures/run';

const samples = run.pool!.samples;

describe('runFinished after a streamed pool', () => {
  it('keeps the streamed samples and appends the tail the finish carries, in order', () => {
    assert.ok(samples.length >= 5, 'the fixture has samples to split');
    let model = reduce(emptyModel, { type: 'runStarted', name: 'run.attn.yaml', total: 0, kind: 'simulate' });
    model = reduce(model, { type: 'poolSamples', samples: samples.slice(0, 2) });
    model = reduce(model, { type: 'poolSamples', samples: samples.slice(2, 3) });
    model = reduce(model, { type: 'runFinished', run: { ...run, pool: { ...run.pool!, samples: samples.slice(3) } }, id: null, streamedSamples: 3 });
    assert.equal(model.current?.status, run.status);
    assert.deepEqual(model.current?.poolSamples.map((s) => s.t), samples.map((s) => s.t));
  });

  it('takes a finish that carries every sample (nothing streamed) as it is', () => {
    let model = reduce(emptyModel, { type: 'runStarted', name: 'run.attn.yaml', total: 0, kind: 'simulate' });
    model = reduce(model, { type: 'runFinished', run, id: null });
    assert.deepEqual(model.current?.poolSamples.map((s) => s.t), samples.map((s) => s.t));
  });
});
