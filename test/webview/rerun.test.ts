/**
 * The dashboard's Run button (webview/model.ts rerunOf) on a simulation that replayed a trace: it
 * runs with that trace again and says so, where it ran the profile's drawn workload silently (s40
 * newcomer-ed F0); and the runner's flags it becomes (core/protocol/run.ts traceReplayArgs), the
 * ones `attnscope simulate RUN.json` names when it refuses such a run.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { traceReplayArgs, type PoolLoad, type RunResult } from '../../core/protocol/run';
import type { SweepReport } from '../../core/protocol/sweep';
import { comparedRun, emptyModel, reduce, rerunOf, viewOfRun } from '../../webview/model';
import { noPoolText, poolBaselinesChart, REFUSED_TEXT } from '../../webview/charts';
import { latencyCdfChart } from '../../webview/latency';
import type { Palette } from '../../webview/theme';
import { run } from '../fixtures/run';

const trace = {
  path: 'traces/mooncake.jsonl',
  resolvedPath: '/w/traces/mooncake.jsonl',
  format: 'mooncake',
  timeUnit: 'timestamp, milliseconds',
  rowsRead: 2,
  dropped: {},
};
const load = (l: Partial<PoolLoad>): PoolLoad => ({ source: 'trace', timeScale: 1, offeredRequestsPerSec: 0.1, servedRequestsPerSec: 0.1, waitingAtLastArrival: 0, overloaded: false, ...l });
const simulation = (l: PoolLoad): RunResult => ({ ...run, kind: 'simulate', pool: { ...run.pool!, load: l } });

describe('Run button of a run that replayed a trace', () => {
  it('re-runs the profile with the recorded trace and names it on the label', () => {
    const r = rerunOf(viewOfRun(simulation(load({ trace, timeScale: 2 })), 'x'));
    assert.equal(r.label, 'Run simulation: run.attn.yaml with trace mooncake.jsonl');
    assert.equal(r.kind, 'simulate');
    assert.equal(r.source, 'test/fixtures/run.attn.yaml');
    assert.deepEqual(r.replay, { trace, timeScale: 2 });
  });

  it("a drawn workload's run and a benchmark re-run the profile alone, as before", () => {
    const drawn = rerunOf(viewOfRun(simulation(load({ source: 'workload' })), 'x'));
    assert.equal(drawn.label, 'Run simulation: run.attn.yaml');
    assert.equal(drawn.replay, undefined);
    assert.equal(rerunOf(viewOfRun(run, 'x')).replay, undefined);
  });

  it("a run of a profile's own workload.trace re-runs the profile alone, which replays it (as simulate RUN.json does)", () => {
    const own = simulation(load({ trace: { ...trace, from: 'workload.trace' } }));
    const r = rerunOf(viewOfRun({ ...own, profile: { ...own.profile, workload: { ...own.profile.workload!, trace: { path: 'traces/mooncake.jsonl', resolvedPath: '/w/traces/mooncake.jsonl' } } } }, 'x'));
    assert.deepEqual([r.label, r.replay], ['Run simulation: run.attn.yaml', undefined]);
  });

  it("a run of unsaved changes: the button says it runs the file as it is now, the text run not being kept (s41 newcomer-ed F9)", () => {
    const r = rerunOf(viewOfRun({ ...simulation(load({ source: 'workload' })), unsavedSource: true }, 'x'));
    assert.equal(r.label, 'Run simulation: run.attn.yaml as it is now');
    assert.match(r.title, /this run was of unsaved changes, which are not kept with it$/);
    assert.equal(r.source, 'test/fixtures/run.attn.yaml');
    // Its comparison's exports say so beside the profile's path.
    assert.equal(comparedRun({ ...run, unsavedSource: true }, 'x').profile, 'test/fixtures/run.attn.yaml (unsaved changes: not the file as saved)');
    assert.equal(comparedRun(run, 'x').profile, 'test/fixtures/run.attn.yaml');
  });

  it('a trace the run does not record: the label says the workload is drawn instead', () => {
    const r = rerunOf(viewOfRun(simulation(load({})), 'x'));
    assert.equal(r.label, 'Run simulation: run.attn.yaml (drawn workload, not the trace)');
    assert.equal(r.replay, undefined);
  });

  it('the runner flags: path, format, filters, a time unit given, the time scale', () => {
    assert.deepEqual(traceReplayArgs(trace, 1), ['--trace', '/w/traces/mooncake.jsonl', '--trace-format', 'mooncake']);
    // A BurstGPT trace read with both filters and --trace-time-unit ms (the unit text readTraceFile records), at 4x.
    const burst = { ...trace, format: 'burstgpt', timeUnit: 'Timestamp, milliseconds (--trace-time-unit ms)', filters: { model: 'ChatGPT', logType: 'Conversation log' } };
    assert.deepEqual(traceReplayArgs(burst, 4), ['--trace', '/w/traces/mooncake.jsonl', '--trace-format', 'burstgpt', '--trace-model', 'ChatGPT', '--trace-log-type', 'Conversation log', '--trace-time-unit', 'ms', '--time-scale', '4']);
  });
});

// s43 newcomer-ed M5: after the full ps2 sweep finished, History's Open of an interrupted ps2 sweep (same profile name,
// another folder) kept "sweep of ps2.attn.yaml finished: 9 points, report in .attnscope/sweeps/ps2-3290f3de." over it.
describe('the Sweep tab\'s line of the sweep run here', () => {
  const report = (sweepId: string): SweepReport => ({ schema: 1, kind: 'attnscope-sweep-report', tool: 't', createdAt: '2026-12-05T10:00:00.000Z', sweepId, name: 'ps2.attn.yaml', job: 'simulate', axes: [], total: 9, rows: [], missing: [], duplicates: [], environments: {}, best: null });
  it('stays over its own report, shown after its end, and goes when another report of the same profile is opened', () => {
    let model = reduce(emptyModel, { type: 'sweepStarted', name: 'ps2.attn.yaml' });
    model = reduce(model, { type: 'sweepEnded', status: 'finished', message: 'sweep of ps2.attn.yaml finished: 9 points, report in .attnscope/sweeps/ps2-3290f3de.' });
    model = reduce(model, { type: 'showSweep', report: report('3290f3de') });
    assert.equal(model.sweepRun?.status, 'finished');
    // Opened again (History): still its own.
    model = reduce(model, { type: 'showSweep', report: report('3290f3de') });
    assert.equal(model.sweepRun?.sweepId, '3290f3de');
    model = reduce(model, { type: 'showSweep', report: { ...report('9afad1f5'), interrupted: true } });
    assert.equal(model.sweepRun, null);
  });
  it('a running sweep\'s line stays over any report opened meanwhile', () => {
    let model = reduce(emptyModel, { type: 'sweepStarted', name: 'ps2.attn.yaml' });
    model = reduce(model, { type: 'showSweep', report: report('9afad1f5') });
    assert.equal(model.sweepRun?.status, 'running');
  });
});

describe('a simulation refused for its profile\'s errors (s48 newcomer-ed 4)', () => {
  // The extension's messages (commands.ts resolve): runStarted with the kind asked for and no
  // profile (it did not resolve), then runRefused with the first error.
  const refused = reduce(reduce({ ...emptyModel, runTarget: { path: '/w/typos.attn.yaml', label: 'typos.attn.yaml' } }, { type: 'runStarted', name: 'typos.attn.yaml', total: 0, kind: 'simulate' }), { type: 'runRefused', reason: 'arrival_rate must be > 0 (the Problems panel shows where)' });
  it('offers the simulation asked for again, not a benchmark', () => {
    const r = rerunOf(refused.current, refused.runTarget);
    assert.deepEqual([r.label, r.kind], ['Run simulation: typos.attn.yaml', 'simulate']);
  });
  it('its cards say it was not run, not that the profile has no workload', () => {
    const view = refused.current!;
    assert.equal(view.status, 'refused');
    assert.equal(noPoolText(view), REFUSED_TEXT);
    assert.doesNotMatch(REFUSED_TEXT, /workload/);
    const palette: Palette = { kind: 'dark', foreground: '#cccccc', muted: '#9d9d9d', grid: '#444444', background: '#1f1f1f', series: ['#3794ff', '#d18616', '#89d185', '#b180d7', '#f14c4c', '#cca700'], fontFamily: 'sans-serif', fontSize: 13, lineWidth: 1 };
    assert.equal(poolBaselinesChart(view, palette).empty, REFUSED_TEXT);
    assert.equal(latencyCdfChart(view, palette).empty, REFUSED_TEXT);
  });
});

// s49 newcomer-ed 9: after sweeping page-size.attn.yaml, History's header offered "Run benchmark:
// page-size.attn.yaml", a run the user had not made, under a header that had named the sweep.
describe('the Run button over a sweep profile, with no run of the page\'s own shown', () => {
  const target = { path: '/ws/page-size.attn.yaml', label: 'page-size.attn.yaml', sweep: true as const };
  it('names and runs the sweep, as the user ran it', () => {
    const r = rerunOf(null, target);
    assert.deepEqual([r.label, r.sweep, r.source, r.kind], ['Run sweep: page-size.attn.yaml', true, undefined, undefined]);
    assert.equal(r.title, 'Run the sweep of /ws/page-size.attn.yaml (its sweep block), the file of the editor active last');
    // The newest saved run shown (a reloaded window's): the button runs the editor's file, so sweeps it too.
    const latest = reduce(emptyModel, { type: 'init', runs: [], current: null, latest: { run, id: 'x' }, runTarget: target });
    assert.equal(rerunOf(latest.current, latest.runTarget).label, 'Run sweep: page-size.attn.yaml');
  });
  it('a profile without a sweep block is benchmarked; a run the page shows is run again as it was', () => {
    assert.equal(rerunOf(null, { path: '/ws/llama.attn.yaml', label: 'llama.attn.yaml' }).label, 'Run benchmark: llama.attn.yaml');
    const shown = reduce(emptyModel, { type: 'showRun', run, id: 'x' });
    const r = rerunOf(shown.current, target);
    assert.equal(r.sweep, undefined);
    assert.match(r.label, /^Run benchmark: /);
  });
});
