/**
 * The bookkeeping every editor run shares (extension/runInFlight.ts RunInFlight, which
 * BenchmarkRun and SweepRun extend), with a fake editor side (RunUi) and the fake runner as a
 * real child process: the context's one run slot held from start to end and released however
 * the run ends, the notification moved by progress events to 100 % and never back, and its
 * Cancel ending the runner through the run's cancel().
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { RunnerEvent } from '../../core/protocol/runner';
import type { ToWebview } from '../../core/protocol/webview';
import { runnerLaunch, type RunnerOutcome } from '../../core/runnerProcess';
import type { ActiveRun } from '../../extension/ctx';
import { notSavedMessage } from '../../extension/refusal';
import { RunInFlight, type RunSlot, type RunUi } from '../../extension/runInFlight';
import { runStatusText, runStatusTooltip, type RunState } from '../../extension/runStatus';
import { run as recorded } from '../fixtures/run';
import { saveInChild, SAVE_LIMIT_MS } from '../fixtures/saveInChild';
import { tempDir } from '../fixtures/tmp';

const FAKE = join(__dirname, '..', 'fixtures', 'fake-runner.mjs');

/** An editor that records what the run did to it; `cancelOn` presses the notification's Cancel at that message. */
function fakeEditor(cancelOn?: RegExp) {
  const keys: boolean[] = [];
  const reports: Array<{ increment: number; message: string }> = [];
  const titles: string[] = [];
  const ui: RunUi = {
    setRunning: async (running) => void keys.push(running),
    withProgress: (title, task) => {
      titles.push(title);
      let cancel: (() => void) | undefined;
      return task(
        (increment, message) => {
          reports.push({ increment, message });
          if (cancelOn?.test(message)) cancel?.();
        },
        (c) => (cancel = c),
      );
    },
  };
  const statuses: Array<RunState | null | 'cancelling'> = [];
  const posted: ToWebview[] = [];
  const slot: RunSlot = { activeRun: null, status: { setRun: (r) => void statuses.push(r), setCancelling: () => void statuses.push('cancelling') }, dashboard: { post: (m) => void posted.push(m) } };
  return { ui, slot, keys, reports, titles, statuses, posted };
}

/** A run of the fake runner in `mode`; `seen` records what the slot held while its events came. */
class FakeRun extends RunInFlight<RunnerOutcome> {
  readonly name = 'fake';
  readonly job = 'bench' as const;
  readonly events: RunnerEvent[] = [];
  readonly slotDuring: Array<ActiveRun | null> = [];

  constructor(
    ui: RunUi,
    private readonly slot: RunSlot,
    private readonly mode: string,
    private readonly fail = false,
  ) {
    super(ui, 5_000);
  }

  interrupt(): void {
    this.cancel();
  }

  protected async execute(): Promise<RunnerOutcome> {
    const launch = { ...runnerLaunch(FAKE, process.execPath, { job: 'bench', quick: true, backend: 'cpu' }), env: { ...process.env, FAKE_RUNNER_MODE: this.mode } };
    const outcome = await this.runRunner('AttnScope: fake', launch, recorded.profile, {
      onEvent: (e) => {
        this.events.push(e);
        this.slotDuring.push(this.slot.activeRun);
      },
      onLog: () => undefined,
      progressMessage: (e, percent) => `${Math.round(percent)}% · ${e.message}`,
    });
    if (this.fail) throw new Error('finish failed');
    return outcome;
  }
}

/**
 * A run that saves its result in history folder `folder` after the runner, as BenchmarkRun.finish
 * does: a save that fails is the error it would show (saveError), not a throw.
 */
class SavingRun extends FakeRun {
  saveError: string | null = null;
  savedId: string | null = null;

  constructor(ui: RunUi, slot: RunSlot, private readonly folder: string) {
    super(ui, slot, 'ok');
  }

  protected override async execute(): Promise<RunnerOutcome> {
    const outcome = await super.execute();
    // saveRun in a child process killed after SAVE_LIMIT_MS: a save that hangs (a libuv thread looping) fails this test
    // with why, where in this process it outlived node:test's timeout to the runner's.
    const [saved] = await saveInChild([this.folder], outcome.run!);
    if (saved && 'id' in saved) this.savedId = saved.id;
    else this.saveError = notSavedMessage(this.name, this.folder, Object.assign(new Error(saved?.error.message), { code: saved?.error.code }));
    return outcome;
  }
}

describe('a run in flight (RunInFlight)', () => {
  // s52 newcomer-ed 1: with attnscope.historyFolder /proc/nope/runs the save never settled (Node's
  // recursive mkdir loops on procfs's ENOENT): the slot stayed held after the runner had ended, every
  // later run was refused "... is running (one run at a time)", and nothing said the run was not saved.
  it('a history folder that cannot be made: the run ends, the slot is released, the error names the folder, its error and the setting; the next run starts and is saved', { timeout: 2 * SAVE_LIMIT_MS + 10_000 }, async () => {
    const ed = fakeEditor();
    const bad = '/proc/attnscope-s52-nope/runs';
    const first = new SavingRun(ed.ui, ed.slot, bad);
    await first.hold(ed.slot);
    assert.equal(ed.slot.activeRun, null);
    assert.deepEqual(ed.keys, [true, false]);
    assert.equal(first.savedId, null);
    assert.equal(
      first.saveError,
      `AttnScope: fake is not saved in History: its file could not be written in the history folder ${bad} (ENOENT: no such file or directory, mkdir '/proc/attnscope-s52-nope' (/proc exists, but its file system makes no folder there)). The result stays on the dashboard: Export JSON or CSV keeps it. Set "attnscope.historyFolder" to a folder you can write in.`,
    );
    // The next run, with a folder that can be made: holds the slot, ends, is saved.
    const good = join(tempDir('attnscope-inflight-'), 'runs');
    const next = new SavingRun(ed.ui, ed.slot, good);
    await next.hold(ed.slot);
    assert.ok(next.slotDuring.length > 0 && next.slotDuring.every((r) => r === next), 'the next run held the slot');
    assert.equal(next.saveError, null);
    assert.deepEqual(readdirSync(good), [`${next.savedId}.json`]);
    assert.equal(ed.slot.activeRun, null);
    assert.deepEqual(ed.keys, [true, false, true, false]);
  });


  it('holds the slot and the context key while the runner runs; the notification moves to 100 % with the progress messages', async () => {
    const ed = fakeEditor();
    const run = new FakeRun(ed.ui, ed.slot, 'ok');
    const outcome = await run.hold(ed.slot);
    assert.equal(outcome.exitCode, 0);
    assert.equal(outcome.run?.status, 'ok');
    assert.ok(run.slotDuring.length > 0 && run.slotDuring.every((r) => r === run), 'the slot held the run while its events came');
    assert.deepEqual(ed.keys, [true, false]);
    assert.equal(ed.slot.activeRun, null);
    assert.deepEqual(ed.statuses, [null]);
    assert.deepEqual(ed.titles, ['AttnScope: fake']);
    // The fake runner's progress: 0 of N ('warming up'), then 1..N: increments that add up to 100 %, none negative.
    const n = recorded.cases.length;
    assert.equal(ed.reports.length, n + 1);
    assert.deepEqual(ed.reports[0], { increment: 0, message: '0% · warming up' });
    assert.equal(ed.reports[1]!.message, `${Math.round(100 / n)}% · prefill B1 N512`);
    assert.ok(ed.reports.every((r) => r.increment >= 0));
    assert.ok(Math.abs(ed.reports.reduce((s, r) => s + r.increment, 0) - 100) < 1e-9);
  });

  it('Cancel in the notification ends the runner through cancel() (SIGTERM: the fake runner writes a cancelled run)', async () => {
    const ed = fakeEditor(/prefill B1 N512/);
    const outcome = await new FakeRun(ed.ui, ed.slot, 'slow').hold(ed.slot);
    assert.deepEqual([outcome.cancelled, outcome.run?.status, outcome.run?.cases.length], [true, 'cancelled', 1]);
    assert.deepEqual(ed.keys, [true, false]);
    // The status item says "cancelling…" from Cancel until the runner has ended, then the run is cleared
    // (s46 newcomer-ed L3: the notification closed at once and nothing showed for 2.8 s).
    assert.deepEqual(ed.statuses, ['cancelling', null]);
    // The dashboard is told too: its Cancel read "Cancel", enabled, for the ~5 s of the wind-down (s47).
    assert.deepEqual(ed.posted, [{ type: 'runCancelling' }]);
  });

  it('a Cancel after the runner has ended says nothing (the status item is not left "cancelling…")', async () => {
    const ed = fakeEditor();
    const run = new FakeRun(ed.ui, ed.slot, 'ok');
    await run.hold(ed.slot);
    run.cancel();
    assert.deepEqual(ed.statuses, [null]);
    assert.deepEqual(ed.posted, []);
  });

  it('releases the slot, the status item and the context key when the run throws, and rejects with that error', async () => {
    const ed = fakeEditor();
    await assert.rejects(new FakeRun(ed.ui, ed.slot, 'ok', true).hold(ed.slot), /finish failed/);
    assert.equal(ed.slot.activeRun, null);
    assert.deepEqual(ed.statuses, [null]);
    assert.deepEqual(ed.keys, [true, false]);
  });

  it('cancel() before the runner has started does nothing', () => {
    const ed = fakeEditor();
    assert.doesNotThrow(() => new FakeRun(ed.ui, ed.slot, 'ok').cancel());
    assert.deepEqual(ed.statuses, []);
  });
});

describe('the status item\'s run text (runStatusText)', () => {
  it('says "starting…" before the runner has given a total, "0/6 points" from the first progress, "cancelling…" once cancelled', () => {
    // s46 newcomer-ed L4: a sweep of 6 points showed "0/0 points" for 14.5 s, read as "nothing to do".
    assert.equal(runStatusText({ name: 's', done: 0, total: 0, verb: 'Sweeping', unit: 'points' }), 'starting…');
    assert.equal(runStatusText({ name: 's', done: 0, total: 6, verb: 'Sweeping', unit: 'points' }), '0/6 points');
    assert.equal(runStatusText({ name: 's', done: 2.5, total: 6, unit: 'points' }), '2/6 points');
    // A benchmark of 8 steps, 3 done: 37.5 % -> "38%".
    assert.equal(runStatusText({ name: 'b', done: 3, total: 8 }), '38%');
    assert.equal(runStatusText({ name: 'b', done: 0, total: 0 }), 'starting…');
    assert.equal(runStatusText({ name: 'b', done: 3, total: 8, cancelling: true }), 'cancelling…');
    assert.equal(runStatusTooltip({ name: 'b', done: 3, total: 8, cancelling: true }), 'Cancelling **b**: waiting for the runner to stop');
  });
});
