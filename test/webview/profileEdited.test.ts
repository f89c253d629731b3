/**
 * The page's side of the live "profile edited" note (webview/model.ts reduce of `profileEdited`,
 * sent by extension/profileEdited.ts LiveEditedNotes): each note goes only over the result it
 * was worked out for.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emptyModel, reduce } from '../../webview/model';
import type { SweepReport } from '../../core/protocol/sweep';
import { run } from '../fixtures/run';

const NOTE = 'profile edited since this simulation started: the figures below are of the earlier text of run.attn.yaml; run the simulation again for the file as it is now';

describe('profileEdited', () => {
  it('puts the note over the run shown, and takes it off again; a note for another run or while one runs is not shown', () => {
    let model = reduce(emptyModel, { type: 'showRun', run, id: 'r1' });
    assert.equal(model.current?.profileEdited, undefined);
    model = reduce(model, { type: 'profileEdited', current: { createdAt: run.createdAt, note: NOTE } });
    assert.equal(model.current?.profileEdited, NOTE);
    model = reduce(model, { type: 'profileEdited', current: { createdAt: run.createdAt, note: null } });
    assert.equal(model.current?.profileEdited, undefined);
    assert.equal(reduce(model, { type: 'profileEdited', current: { createdAt: '2020-01-01T00:00:00.000Z', note: NOTE } }).current?.profileEdited, undefined, 'another run\'s');
    const running = reduce(model, { type: 'runStarted', name: 'run.attn.yaml', total: 0, kind: 'simulate' });
    assert.equal(reduce(running, { type: 'profileEdited', current: { createdAt: run.createdAt, note: NOTE } }).current?.profileEdited, undefined, 'a run streaming');
  });

  it('puts the note over the sweep report shown, only that sweep\'s', () => {
    const report = { kind: 'attnscope-sweep-report', sweepId: 'abc', name: 'p.attn.yaml', rows: [], missing: [] } as unknown as SweepReport;
    let model = reduce(emptyModel, { type: 'showSweep', report });
    model = reduce(model, { type: 'profileEdited', sweep: { sweepId: 'other', note: NOTE } });
    assert.equal(model.sweepProfileEdited, null);
    model = reduce(model, { type: 'profileEdited', sweep: { sweepId: 'abc', note: NOTE } });
    assert.equal(model.sweepProfileEdited, NOTE);
  });
});
