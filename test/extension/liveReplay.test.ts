/**
 * The messages the dashboard keeps for a page that opens or reloads mid-run (extension/liveReplay.ts):
 * a Cancel pressed stays with them, so the page opened then shows "Cancelling…" (the page's side:
 * test/webview/dashboard.test.ts 'a page opened while a run or sweep is cancelling').
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ToWebview } from '../../core/protocol/webview';
import { recordLive, replayAfterInit, type LiveMessages } from '../../extension/liveReplay';

const after = (msgs: ToWebview[], from: LiveMessages = { live: [], sweepLive: [] }): LiveMessages => msgs.reduce(recordLive, from);

describe('live replay', () => {
  it('a sweep cancelling: its start, the latest progress and the Cancel pressed, in that order, the Cancel kept past later progress; gone at its end', () => {
    const started: ToWebview = { type: 'sweepStarted', name: 's.attn.yaml' };
    const p1: ToWebview = { type: 'sweepProgress', done: 1, total: 4, message: '1 of 4 points saved' };
    const p2: ToWebview = { type: 'sweepProgress', done: 2, total: 4, message: '2 of 4 points saved' };
    const cancelling: ToWebview = { type: 'runCancelling' };
    const lists = after([started, p1, cancelling, p2]);
    assert.deepEqual(lists, { live: [], sweepLive: [started, p2, cancelling] });
    // Replayed after init: the start marked replayed, not ended.
    assert.deepEqual(replayAfterInit(lists, [{ type: 'runSaved', id: 'x' }]), [{ ...started, replayed: true }, p2, cancelling]);
    const ended: ToWebview = { type: 'sweepEnded', status: 'cancelled', message: 'sweep of s.attn.yaml cancelled' };
    const done = after([ended], lists);
    assert.deepEqual(done.sweepLive, [started, ended]);
    // A Cancel after its end (none in flight) is not kept.
    assert.deepEqual(after([cancelling], done).sweepLive, [started, ended]);
    assert.deepEqual(replayAfterInit(done, []), [{ ...started, replayed: true, ended: true }, ended]);
  });

  it('a run cancelling: its start, every case and progress, then the Cancel pressed; cleared by its refusal', () => {
    const started: ToWebview = { type: 'runStarted', name: 'r.attn.yaml', total: 2 };
    const progress: ToWebview = { type: 'progress', done: 1, total: 2, message: 'case' };
    const cancelling: ToWebview = { type: 'runCancelling' };
    const lists = after([started, progress, cancelling]);
    assert.deepEqual(lists, { live: [started, progress, cancelling], sweepLive: [] });
    assert.deepEqual(after([{ type: 'runRefused', reason: 'm' }], lists).live, []);
  });
});
