/**
 * The editor's "Run sweep" without the editor: its command line (core/runnerProcess runnerLaunch),
 * the real runner (dist/runner.js `sweep <profile> --events`) driven through the one
 * RunnerProcess every run uses, to its end and through Cancel (SIGTERM, a clean exit 130 that
 * keeps the points written, not a kill), and what the notification and toasts say
 * (extension/sweepMessages.ts).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { RunnerEvent, RunnerProgressEvent } from '../../core/protocol/runner';
import { RunnerProcess, runnerLaunch, type RunnerOutcome } from '../../core/runnerProcess';
import { EXAMPLE_SWEEP_BLOCK, hasNoSweepBlock, noSweepMessage, sweepBusyMessage, sweepEndMessage, sweepInputError, sweepInterruptedMessage, sweepProgressMessage, sweepRefusalMessage } from '../../extension/sweepMessages';
import { readSweepReport } from '../../extension/sweepReports';
import { loadSweep } from '../../runner/sweep/spec';
import { sweepWorkspace } from '../fixtures/sweep';

const RUNNER = join(__dirname, '..', '..', 'dist', 'runner.js');

const BASE = `model: ./tiny/config.json
kv_cache: { memory_gib: 0.0625 }
workload:
  requests: 50
  arrival_rate: 50
  prompt_len: { dist: lognormal, median: 400, sigma: 0.5, max: 2048 }
  output_len: { dist: uniform, min: 16, max: 128 }
  max_model_len: 4096
  seed: 7
`;

/** Runs `attnscope sweep <file> --events` as the editor does (cwd: the workspace folder); `onEvent` may cancel. */
function sweep(dir: string, file: string, onEvent: (e: RunnerEvent, proc: RunnerProcess) => void = () => undefined): { events: RunnerEvent[]; done: Promise<RunnerOutcome> } {
  const events: RunnerEvent[] = [];
  const launch = { ...runnerLaunch(RUNNER, process.execPath, { job: 'sweep', file, quick: false, backend: 'auto' }), cwd: dir };
  const proc: RunnerProcess = new RunnerProcess(launch, null, {
    onEvent: (e) => {
      events.push(e);
      onEvent(e, proc);
    },
    onLog: () => undefined,
  });
  return { events, done: proc.done };
}

describe('Run sweep', () => {
  it('builds the command line: sweep <file> --events, the backend and quick settings as for a benchmark (a sweep may time kernels)', () => {
    assert.deepEqual(runnerLaunch('/x/dist/runner.js', '/usr/bin/node', { job: 'sweep', file: '/w/grid.attn.yaml', quick: true, backend: 'cpu' }), {
      command: '/usr/bin/node',
      args: ['/x/dist/runner.js', 'sweep', '/w/grid.attn.yaml', '--events', '--backend', 'cpu', '--quick'],
    });
    assert.deepEqual(runnerLaunch('/opt/attnscope', 'node', { job: 'sweep', file: '/w/g.attn.json', quick: false, backend: 'auto' }).args, ['sweep', '/w/g.attn.json', '--events']);
    assert.throws(() => runnerLaunch('/x/dist/runner.js', 'node', { job: 'sweep', quick: false, backend: 'auto' }), /needs the profile file/);
  });

  // s41 newcomer-ed F8: a second window ran the same sweep again, point for point.
  it('a sweep another runner holds: the runner\'s sweepBusy event reaches the editor, exit 75, and the toast names the other runner, not an error', async () => {
    const { dir, file } = sweepWorkspace(`${BASE}sweep:\n  axes:\n    kv_cache.page_size: [16]\n`, 'held.attn.yaml', 'attnscope-ext-sweep-');
    const ran = await sweep(dir, file).done;
    assert.equal(ran.exitCode, 0, ran.logTail.join('\n'));
    // This test's process as the other runner: alive, on this host, with its own start (/proc/<pid>/stat field 22,
    // the 20th after the ") " closing the command name), so the lock is not taken for a reused pid's (runner/sweep/lock.ts).
    const stat = readFileSync(`/proc/${process.pid}/stat`, 'utf8');
    const owner = { pid: process.pid, host: hostname(), startedAt: '2026-12-05T15:00:00.000Z', processStart: Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[19]) };
    writeFileSync(join(ran.sweepEnd!.outDir, '.sweep.lock'), JSON.stringify(owner));
    const { events, done } = sweep(dir, file);
    const out = await done;
    assert.equal(out.exitCode, 75);
    const busy = events.find((e) => e.type === 'sweepBusy');
    assert.ok(busy && busy.type === 'sweepBusy', JSON.stringify(events));
    assert.deepEqual(busy.owner, owner);
    assert.equal(out.sweepEnd, null);
    assert.equal(
      sweepBusyMessage('held.attn.yaml', busy, '.attnscope/sweeps/held-1'),
      `AttnScope: the sweep of held.attn.yaml is already running (process ${process.pid} on ${hostname()}, since 2026-12-05T15:00:00.000Z: another window or a terminal), so it was not started again. Its points land in .attnscope/sweeps/held-1 as they finish, and History lists its report when it ends; run the sweep again then to resume any points it left.`,
    );
  });

  it('runs a 2-point sweep to its report in the workspace\'s .attnscope/sweeps, counting points in the progress line', async () => {
    const { dir, file } = sweepWorkspace(`${BASE}sweep:\n  axes:\n    kv_cache.page_size: [16, 64]\n`, 'grid.attn.yaml', 'attnscope-ext-sweep-');
    const { events, done } = sweep(dir, file);
    const out = await done;
    assert.equal(out.exitCode, 0, out.logTail.join('\n'));
    assert.ok(out.sweepEnd && !out.sweepEnd.cancelled, JSON.stringify(out.sweepEnd));
    assert.equal(out.sweepEnd.reportFile, join(out.sweepEnd.outDir, 'sweep-report.json'));
    assert.ok(out.sweepEnd.outDir.startsWith(join(dir, '.attnscope', 'sweeps', 'grid-')), out.sweepEnd.outDir);
    const report = await readSweepReport(out.sweepEnd.reportFile!);
    assert.equal(report?.rows.length, 2);
    const last = events.filter((e): e is RunnerProgressEvent => e.type === 'progress').at(-1)!;
    assert.equal(sweepProgressMessage(last), '2 of 2 points saved');
    // Each point is listed at 100 % once it has simulated all its requests, until it is saved (s37
    // newcomer-ed 6: left out at 100 %, a short point read 0 % and then nothing); a saved point
    // (its `point <label>: <file>` line) is never listed as running.
    const saved = new Set<string>();
    const at100 = new Set<string>();
    for (const e of events) {
      if (e.type === 'log' && e.message.startsWith('point ')) saved.add(/^point (.+?): /.exec(e.message)![1]!);
      if (e.type !== 'progress' || !e.message) continue;
      for (const running of e.message.split(', ')) {
        const [, label, pct] = /^(.+) (\d+)%$/.exec(running)!;
        assert.ok(!saved.has(label!), `${label} listed as running after it was saved: ${e.message}`);
        if (pct === '100') at100.add(label!);
      }
    }
    assert.deepEqual([...at100].sort(), ['page_size=16', 'page_size=64']);
    assert.equal(sweepEndMessage('grid.attn.yaml', out.sweepEnd, '.attnscope/sweeps/grid-x'), 'AttnScope: sweep of grid.attn.yaml finished: 2 points, report in .attnscope/sweeps/grid-x.');
  });

  it('Cancel: SIGTERM ends the sweep cleanly (exit 130, no kill) with the finished point kept, and the toast says a rerun resumes', async () => {
    // The first point is quick; the second simulates 400,000 requests (many seconds).
    const { dir, file } = sweepWorkspace(`${BASE}sweep:\n  axes:\n    workload.requests: [50, 400000]\n`, 'long.attn.yaml', 'attnscope-ext-sweep-');
    let pointLine = '';
    const { events, done } = sweep(dir, file, (e, proc) => {
      if (e.type === 'log' && e.message.startsWith('point requests=50: ')) {
        pointLine = e.message;
        proc.cancel(30_000);
      }
    });
    const out = await done;
    assert.deepEqual([out.cancelled, out.exitCode, out.signal], [true, 130, null], out.logTail.join('\n'));
    const end = out.sweepEnd!;
    // s41: the point kept, merged into a report marked interrupted, which SweepRun.finish shows in the Sweep tab (its Resume sweep beside it).
    assert.deepEqual([end.cancelled, end.inFolder, end.total, end.reportFile], [true, 1, 2, join(end.outDir, 'sweep-report.json')]);
    assert.deepEqual(readdirSync(end.outDir).length, 2);
    const kept = await readSweepReport(end.reportFile!);
    assert.deepEqual([kept?.interrupted, kept?.rows.map((r) => r.label), kept?.missing.map((m) => m.label)], [true, ['requests=50'], ['requests=400000']]);
    assert.equal(
      sweepEndMessage('long.attn.yaml', end, '.attnscope/sweeps/long-x'),
      'AttnScope: sweep of long.attn.yaml cancelled; 1 of 2 points are saved in .attnscope/sweeps/long-x. Run sweep again to resume: it runs only the points not there yet.',
    );
    // A window reload ends the extension host before the runner's sweepEnd: its notice names the
    // folder every progress event carries, from the first one on (before any point is written).
    const progress = events.filter((e): e is RunnerProgressEvent => e.type === 'progress');
    assert.ok(progress.length > 0 && events.indexOf(progress[0]!) < events.findIndex((e) => e.type === 'log' && e.message === pointLine), pointLine);
    assert.deepEqual([...new Set(progress.map((e) => e.outDir))], [end.outDir]);
    assert.equal(
      sweepInterruptedMessage('long.attn.yaml', 1, 2, '.attnscope/sweeps/long-x'),
      'AttnScope: the sweep of long.attn.yaml was interrupted when the window reloaded or closed; 1 of 2 points finished before are saved in .attnscope/sweeps/long-x. Resume sweep runs it again: only the points not there yet.',
    );
    assert.match(sweepInterruptedMessage('long.attn.yaml', 0, 0, '.attnscope/sweeps'), /; the points finished before, if any, are saved in \.attnscope\/sweeps\./);
  });

  it('bad input: the runner\'s error event as a place in the profile and a toast that says what to do; nothing written', async () => {
    const { dir, file } = sweepWorkspace(`${BASE}sweep:\n  axes:\n    kv_cache.page_size: [16, 3000000000]\n`, 'bad.attn.yaml', 'attnscope-ext-sweep-');
    const { events, done } = sweep(dir, file);
    const out = await done;
    assert.deepEqual([out.exitCode, out.sweepEnd], [2, null]);
    const e = events.find((x) => x.type === 'error');
    assert.ok(e && e.type === 'error');
    const placed = sweepInputError(e)!;
    // BASE is 9 lines, then `sweep:`, `axes:`: the axis is line 12; `    kv_cache.page_size: [16, ` is 29 characters.
    assert.deepEqual([placed.file, placed.line, placed.column], [file, 12, 30]);
    assert.equal(
      sweepRefusalMessage('bad.attn.yaml', placed, 'bad.attn.yaml:12:30'),
      'AttnScope: the sweep of bad.attn.yaml was not run: bad.attn.yaml:12:30: sweep point page_size=3000000000: kv_cache.page_size must be <= 4,096, not 3,000,000,000. Change the value there (it is marked in the Problems view) and run the sweep again.',
    );
    assert.ok(!existsSync(join(dir, '.attnscope')));
  });

  it('a profile with no sweep: block is refused before anything starts, and the example block the toast offers is a sweep the runner takes', () => {
    // s51 newcomer-ed M2: the dashboard said "running", then the runner's refusal named --set, a CLI flag.
    const { file } = sweepWorkspace(BASE, 'plain.attn.yaml', 'attnscope-nosweep-');
    assert.equal(hasNoSweepBlock(BASE, file), true);
    // The runner's own check agrees on that file (runner/sweep/spec.ts: "has no sweep").
    assert.throws(() => loadSweep(file), /has no sweep/);
    // The block Add example block appends: 3 points, page_size 8 / 16 / 32, each read as a number.
    const added = `${BASE}${EXAMPLE_SWEEP_BLOCK}`;
    assert.equal(hasNoSweepBlock(added, file), false);
    writeFileSync(file, added);
    const plan = loadSweep(file);
    assert.deepEqual([plan.axes, plan.points.length], [[{ key: 'kv_cache.page_size', values: [8, 16, 32] }], 3]);
    // A sweep: block of another shape, or text that does not parse: not ours to refuse (the runner places those errors).
    assert.equal(hasNoSweepBlock(`${BASE}sweep: 3\n`, file), false);
    assert.equal(hasNoSweepBlock('model: [', file), false);
    // JSON: the same check, the example in JSON, no button.
    assert.equal(hasNoSweepBlock('{"model": "./tiny/config.json"}', 'p.attn.json'), true);
    assert.equal(noSweepMessage('p.attn.json', true), 'AttnScope: p.attn.json has no sweep: block, so there is nothing to sweep. Add one that lists the values to try for a key, e.g. "sweep": {"axes": {"kv_cache.page_size": [8, 16, 32]}}, then run the sweep again.');
    assert.doesNotMatch(noSweepMessage('plain.attn.yaml', false), /--set/);
  });

  it('the progress line: points saved, then the running points\' values', () => {
    // The count is of points saved, the names of the running ones (s28 newcomer finding 7: '2 of 6 points · page_size=16 arrival_rate=8 0%').
    // Two points running at 90 % and 38 % with none saved: done 1.28 read '1 of 4 points done' (s31 newcomer-ed 2).
    assert.equal(sweepProgressMessage({ saved: 0, total: 4, message: 'page_size=8 90%, page_size=16 38%' }), '0 of 4 points saved · running: page_size=8 90%, page_size=16 38%');
    assert.equal(sweepProgressMessage({ saved: 1, total: 3, message: 'page_size=64 40%' }), '1 of 3 points saved · running: page_size=64 40%');
    assert.equal(sweepProgressMessage({ saved: 0, total: 1, message: '' }), '0 of 1 point saved');
    assert.match(
      sweepEndMessage('g.attn.yaml', { cancelled: false, inFolder: 1, total: 2, failed: [{ label: 'page_size=64', error: 'worker exited with SIGKILL' }] }, 'd'),
      /^AttnScope: sweep of g\.attn\.yaml: 1 of 2 points failed \(page_size=64: worker exited with SIGKILL\)\. The report shows the 1 that ran; run sweep again to retry only the failed ones\.$/,
    );
  });
});
