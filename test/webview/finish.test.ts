/**
 * The finish of a streamed run (webview/model.ts reduce of `runFinished` with `streamedSamples`):
 * the extension sends the page only the pool samples it had not streamed (extension/dashboard.ts
 * deliver, StreamBatcher dropping its held batch), and the page puts its own first.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emptyModel, exportId, reduce } from '../../webview/model';
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

// s52 newcomer-ed 1: a run whose history folder could not be written was shown with Export JSON and
// CSV disabled (they needed a history id): its result could not be kept at all.
describe('Export JSON / CSV of the run shown (exportId)', () => {
  it('a finished run not saved exports as the run shown (null), a saved one by its id; nothing while it runs or with no figure', () => {
    let model = reduce(emptyModel, { type: 'runStarted', name: 'run.attn.yaml', total: 0, kind: 'bench' });
    assert.equal(exportId(model.current), undefined, 'running');
    model = reduce(model, { type: 'runFinished', run, id: null });
    assert.ok(run.cases.length > 0);
    assert.equal(exportId(model.current), null, 'finished, not saved: the extension exports the run it showed');
    assert.equal(exportId(reduce(model, { type: 'runSaved', id: '20261129-134012-run.attn' }).current), '20261129-134012-run.attn');
    // A cancelled simulation (its `done` has no pool) shows a run with no case and no pool: nothing to export.
    const bare = { ...run, status: 'cancelled' as const, cases: [], pool: undefined };
    assert.equal(exportId(reduce(emptyModel, { type: 'runFinished', run: bare, id: null }).current), undefined);
    assert.equal(exportId(null), undefined);
  });

  // s52 Left 2: a run deleted from History while shown.
  it('a run deleted from History: dropped from the list; shown, it says how and exports as shown; the newest saved run a page showed (latest) exports nothing', () => {
    const id = '20261129-134012-run.attn';
    const listed = [{ id, name: run.name, createdAt: run.createdAt, status: 'ok' as const, cases: run.cases.length }, { id: 'other', name: 'b.attn.yaml', createdAt: run.createdAt, status: 'ok' as const, cases: 1 }];
    const shown = reduce(reduce(emptyModel, { type: 'runs', runs: listed }), { type: 'showRun', run, id });
    const after = reduce(shown, { type: 'runDeleted', id, how: 'deleted' });
    assert.deepEqual(after.runs.map((r) => r.id), ['other']);
    assert.equal(after.current?.deleted, 'deleted');
    assert.equal(exportId(after.current), null, 'the extension exports the run it showed');
    // Another run's deletion leaves the run shown alone.
    assert.equal(reduce(shown, { type: 'runDeleted', id: 'other', how: 'trash' }).current, shown.current);
    const latest = reduce(emptyModel, { type: 'init', runs: listed, current: null, currentId: null, latest: { run, id } });
    assert.equal(latest.current?.latest, true);
    assert.equal(exportId(reduce(latest, { type: 'runDeleted', id, how: 'trash' }).current), undefined);
  });
});
