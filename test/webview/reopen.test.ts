/**
 * The dashboard as it starts again and as History and the Sweep tab list things (s46 newcomer and
 * lead): a page restored after a window reload says it is restoring a run saved as running, not that
 * it was "cancelled before any kernel finished", until `init` brings how it ended; a page opened
 * mid-run says Loading…, not "No run yet" nor the run before, and lands on the running run's tab, not
 * on a sweep that ended before; History names the sweep reports it leaves out; its lists scroll inside
 * a 371 px panel; swept values read grouped ("30,000") in the legend and the table. In headless
 * Chromium (test/webview/harness.ts); screenshots in test-results/webview/reopen-*.png.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { RunResult } from '../../core/protocol/run';
import type { RunListEntry } from '../../core/protocol/webview';
import { keptInHistory } from '../../core/protocol/run';
import { partialRun, runId } from '../../extension/history';
import { interruptedError, interruptedMessage } from '../../extension/refusal';
import { ShownRunStore } from '../../extension/shownRun';
import { emptyModel, reduce, startModel, STOPPED_BY_RELOAD } from '../../webview/model';
import { run } from '../fixtures/run';
import { logSweep as sweep } from '../fixtures/sweep';
import { tempDir } from '../fixtures/tmp';
import { chromiumSuite, openDashboard, root, seenSweepTable, send, waitForPosted } from './harness';

const shots = join(root, 'test-results', 'webview');
const timed = run.cases.filter((c) => c.kernel !== 'reference');
/** The start of the benchmark the reload stops, as the extension sends it. */
const started = { type: 'runStarted', name: 'llama.attn.yaml · benchmark', total: 8, kind: 'bench', profile: run.profile, estimate: run.estimate } as const;
/** What the extension saved of it when the reload stopped it (BenchmarkRun.interrupt: partialRun with the cases measured). */
const interrupted: RunResult = {
  ...partialRun({ name: started.name, kind: 'bench', toolVersion: '0.1.0', profile: run.profile, estimate: run.estimate, cases: timed.slice(0, 2), status: 'cancelled', error: interruptedError('bench', 2), environment: run.environment }),
  createdAt: '2026-12-05T09:00:00.000Z',
};
const INTERRUPTED_ID = runId(interrupted.createdAt, interrupted.name);
/** The recorded run's history id: the run the window showed before the reload. */
const RUN_ID = runId(run.createdAt, run.name);

/** 60 saved runs of long names (the History list's first page is 50): ~1,800 px of rows at 600 px wide. */
const manyRuns: RunListEntry[] = Array.from({ length: 60 }, (_, i) => {
  const createdAt = new Date(Date.parse('2026-12-05T10:00:00Z') - i * 60_000).toISOString();
  const name = `llama-3.1-8b-instruct.attn.yaml · benchmark · gpu H100 SXM · tp ${1 + (i % 4)}`;
  return { id: runId(createdAt, name), name, createdAt, status: 'ok', cases: 6, build: 'native addon · avx512 · 2 threads' };
});


/** The index of the tab shown (vscode-tabs' selected-index: 0 Run, 1 History, 2 Sweep). */
const tabShown = (page: Page): Promise<string | null> => page.getAttribute('vscode-tabs', 'selected-index');

/** Texts of the elements on screen (laid out, not hidden) that contain `text` in a text node of their own. */
const shownWith = (page: Page, text: string): Promise<string[]> =>
  page.$$eval('*', (all, text) => all.filter((e) => (e as HTMLElement).offsetParent !== null && [...e.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.includes(text))).map((e) => e.id || e.tagName), text);

describe('the model a page starts from and init', () => {
  it('a run saved as running is restoring until init, then the saved run, or stopped by the reload when init brings none', () => {
    const saved = reduce(reduce(emptyModel, { type: 'init', runs: [], current: null }), started);
    const start = startModel(saved);
    assert.equal(start.current?.status, 'restoring');
    assert.equal(start.current?.error, null);
    assert.equal(start.awaiting, 'init');
    const withRun = reduce(start, { type: 'init', runs: [], current: interrupted, currentId: INTERRUPTED_ID });
    assert.equal(withRun.current?.status, 'cancelled');
    assert.equal(withRun.current?.cases.length, 2);
    assert.equal(withRun.awaiting, undefined);
    const without = reduce(start, { type: 'init', runs: [], current: null });
    assert.deepEqual([without.current?.status, without.current?.error], ['cancelled', STOPPED_BY_RELOAD]);
  });

  // s47 newcomer-ed 11: a simulation cancelled (not saved) before a window reload was still the page's run after it,
  // "… · simulation  cancelled", though README says a page with no run of its own shows the newest saved run.
  it('a run that ended unsaved before the reload gives way to the newest saved run; with none saved it stays, saying it was not saved', () => {
    const notSaved = 'cancelled; not saved: a simulation is saved only when it ends';
    const cancelledSim = { ...partialRun({ name: 'llama.attn.yaml · simulation', kind: 'simulate', toolVersion: '0.1.0', profile: run.profile, estimate: run.estimate, cases: [], status: 'cancelled', error: notSaved }), createdAt: '2026-12-05T09:10:00.000Z' };
    const saved = reduce(reduce(reduce(emptyModel, { type: 'init', runs: [], current: null }), { ...started, kind: 'simulate', name: cancelledSim.name }), { type: 'runFinished', run: cancelledSim, id: null });
    assert.deepEqual([saved.current?.status, saved.current?.id], ['cancelled', null]);
    const latest = { run, id: runId(run.createdAt, run.name) };
    const after = reduce(startModel(saved), { type: 'init', runs: [], current: null, latest });
    assert.deepEqual([after.current?.name, after.current?.id, after.current?.latest], [run.name, latest.id, true]);
    // None saved: the cancelled run stays, its own line saying why it was not saved.
    const none = reduce(startModel(saved), { type: 'init', runs: [], current: null });
    assert.deepEqual([none.current?.status, none.current?.error], ['cancelled', notSaved]);
    // A run that ended saved (an id) is still the page's run after a reload, not the newest saved one.
    const savedRun = reduce(saved, { type: 'runSaved', id: 'r1' });
    assert.equal(reduce(startModel(savedRun), { type: 'init', runs: [], current: null, latest }).current?.id, 'r1');
  });

  it('init of a streaming run shows neither its current nor its latest run, and awaits the start replayed after it', () => {
    const latest = { run, id: runId(run.createdAt, run.name) };
    const model = reduce(startModel(undefined), { type: 'init', runs: [], current: null, latest, streaming: true });
    assert.equal(model.current, null);
    assert.equal(model.awaiting, 'run');
    const running = reduce(model, started);
    assert.equal(running.current?.status, 'running');
    assert.equal(running.awaiting, undefined);
  });
});

describe('dashboard reopened, History and Sweep lists, in Chromium', () => {
  const chromium = chromiumSuite(shots);

  // s46 lead: after a reload the page read "cancelled · cancelled before any kernel finished" until init brought the run with its cases.
  it('a page reloaded while a benchmark ran says it is restoring it, not how it ended, until init brings the saved run', async () => {
    for (const [width, height] of [[1280, 800], [600, 371]] as const) {
      const page = await openDashboard(chromium.browser, chromium.server, 'dark', { locale: 'en-US' });
      try {
        await page.setViewportSize({ width, height });
        await send(page, { type: 'init', runs: [], current: null, currentId: null });
        await send(page, started);
        // The page saves its state when idle while a run streams: the reload restores it as running, with no case yet.
        await page.waitForFunction(() => (JSON.parse(sessionStorage.getItem('vscode-state') ?? '{}') as { model?: { current?: { status?: string } } }).model?.current?.status === 'running');
        await page.reload();
        await waitForPosted(page, 'ready');
        // Drawn before `ready` (main.ts renders the restored model first): no wait needed, and none would tell a wrong page from a slow one.
        assert.equal(await page.textContent('#run-status'), 'restoring…');
        assert.equal(await page.textContent('#run-empty'), 'Restoring this run: the window reloaded while it ran; how it ended comes from the editor…');
        assert.deepEqual(await shownWith(page, 'cancelled'), [], 'no word of a cancellation before init');
        assert.deepEqual(await shownWith(page, 'before any kernel finished'), []);
        assert.equal(await page.$$eval('.chart-grid > section.card', (cards) => cards.filter((c) => (c as HTMLElement).offsetParent !== null).length), 0, 'no cards of the cases saved before');
        assert.notEqual(await page.getAttribute('#btn-cancel', 'disabled'), null, 'no Cancel: nothing runs');
        await page.screenshot({ path: join(shots, `reopen-restoring-${width}x${height}.png`) });
        // init brings the run the reload stopped, saved with its two cases: its own line, not "before any kernel finished".
        await send(page, { type: 'init', runs: [], current: interrupted, currentId: INTERRUPTED_ID });
        // s50 newcomer-ed 1: the badge read "cancelled" beside the line's "interrupted (window reloaded or closed)": one word.
        await page.waitForFunction(() => document.querySelector('#run-status')?.textContent === 'interrupted');
        const line = (await page.textContent('#run-environment')) ?? '';
        assert.ok(line.includes('interrupted (window reloaded or closed) after 2 case(s)'), line);
        assert.ok(!line.includes('before any kernel finished'), line);
        assert.deepEqual(await shownWith(page, 'cancelled'), [], 'no word of a cancellation anywhere on the Run tab');
        assert.equal(await page.isVisible('#run-empty'), false);
        await page.screenshot({ path: join(shots, `reopen-restored-${width}x${height}.png`) });
      } finally {
        await page.close();
      }
    }
  });

  // s50 newcomer-ed 1: a Mixtral benchmark reloaded at "0/8 · measuring this machine" left no word, and the next window showed
  // llama's older run as if current. What BenchmarkRun.interrupt leaves (not saved: nothing was measured) goes through the store the
  // next extension host reads (extension/shownRun.ts), then to a page reloaded mid-run as Dashboard's init sends it: the same
  // interrupted state as a run stopped after a case (the test above), with Run again on the toast and the Run button on that file.
  it('a benchmark the reload stopped before its first case: the next window shows it interrupted, with Run again, not the run before', async () => {
    const dir = join(tempDir('attnscope-reopen-'), 'workspaceStorage', 'attnscope');
    const name = 'Mixtral-8x7B-v0.1 · Mixtral-8x7B-v0.1.attn.yaml · full';
    const file = '/ws/hf/Mixtral-8x7B-v0.1.attn.yaml';
    const stopped = partialRun({ name, kind: 'bench', toolVersion: '0.1.0', profile: { ...run.profile, sourcePath: file }, estimate: run.estimate, cases: [], status: 'cancelled', error: interruptedError('bench', 0), environment: run.environment });
    assert.equal(keptInHistory(stopped), false, 'nothing measured: History does not keep it');
    const before = new ShownRunStore(dir);
    await before.save(RUN_ID);
    before.saveSync(null, interruptedMessage('bench', name, 0, false), undefined, { run: stopped, rerun: { source: `file://${file}`, job: 'bench' } });
    // The next host: no saved run to show (not the llama run shown before), the stopped one, and a toast with Run again on the file.
    const next = new ShownRunStore(dir);
    assert.equal(await next.load(), null);
    const shown = await next.loadInterrupted();
    assert.ok(shown);
    assert.deepEqual(await next.takeNotice(), { notice: `AttnScope: the benchmark of ${name} was interrupted when the window reloaded or closed, before its first case: nothing was measured, nothing is saved.`, resumeSweep: null, rerun: { source: `file://${file}`, job: 'bench' } });
    const page = await openDashboard(chromium.browser, chromium.server, 'dark', { locale: 'en-US' });
    try {
      await page.setViewportSize({ width: 600, height: 900 });
      await send(page, { type: 'init', runs: [], current: null, currentId: null });
      await send(page, { ...started, name, profile: shown.profile });
      await page.waitForFunction(() => (JSON.parse(sessionStorage.getItem('vscode-state') ?? '{}') as { model?: { current?: { status?: string } } }).model?.current?.status === 'running');
      await page.reload();
      await waitForPosted(page, 'ready');
      const llama: RunListEntry = { id: RUN_ID, name: run.name, createdAt: run.createdAt, status: 'ok', cases: run.cases.length, kind: 'bench' };
      await send(page, { type: 'init', runs: [llama], current: shown, currentId: null });
      await page.waitForFunction(() => document.querySelector('#run-status')?.textContent === 'interrupted');
      assert.equal(await page.getAttribute('#run-title', 'title'), name);
      const line = (await page.textContent('#run-environment')) ?? '';
      assert.ok(line.includes('interrupted (window reloaded or closed) before its first case: nothing was measured, nothing is saved'), line);
      assert.ok(!line.includes('before any kernel finished'), line);
      assert.deepEqual(await shownWith(page, 'cancelled'), [], 'no word of a cancellation: the badge, line and cards say interrupted');
      assert.equal(await page.textContent('section[data-chart="poolTimeline"] .empty'), 'Page pool: This run was interrupted (window reloaded or closed) before its pool simulation ended.');
      assert.equal(await page.isVisible('#run-latest'), false, 'not the newest saved run of another model');
      // The Run button runs that file again, as the toast's Run again does.
      assert.equal((await page.textContent('#btn-run'))?.trim(), 'Run benchmark: Mixtral-8x7B-v0.1.attn.yaml');
      await page.click('#btn-run');
      const [posted] = await waitForPosted(page, 'runBenchmark');
      assert.deepEqual(posted, { type: 'runBenchmark', source: file, kind: 'bench' });
      await page.screenshot({ path: join(shots, 'reopen-interrupted-before-first-case-600.png') });
    } finally {
      await page.close();
    }
  });

  it('a simulation the reload stopped (not saved: init brings none) is shown stopped by the reload once init comes', async () => {
    const page = await openDashboard(chromium.browser, chromium.server, 'dark', { locale: 'en-US' });
    try {
      await send(page, { type: 'init', runs: [], current: null, currentId: null });
      await send(page, { ...started, name: 'llama.attn.yaml · simulation', kind: 'simulate' });
      await page.waitForFunction(() => (JSON.parse(sessionStorage.getItem('vscode-state') ?? '{}') as { model?: { current?: { status?: string } } }).model?.current?.status === 'running');
      await page.reload();
      await waitForPosted(page, 'ready');
      assert.equal(await page.textContent('#run-status'), 'restoring…');
      await send(page, { type: 'init', runs: [], current: null, currentId: null });
      await page.waitForFunction(() => document.querySelector('#run-status')?.textContent === 'interrupted');
      assert.equal(await page.textContent('#run-environment'), STOPPED_BY_RELOAD);
      assert.equal(STOPPED_BY_RELOAD, 'interrupted (window reloaded or closed) while it ran', 'the words of a run the reload stopped, as the saved one says them');
    } finally {
      await page.close();
    }
  });

  // s46 lead: opened mid-run, the page said "No run yet" (and then showed the newest saved run) until the run's start came, and landed on the Sweep tab.
  it('a dashboard opened mid-run says Loading… until the run\'s start, and lands on the Run tab, not on a sweep that ended before', async () => {
    const page = await openDashboard(chromium.browser, chromium.server, 'dark', { locale: 'en-US' });
    try {
      await page.setViewportSize({ width: 1280, height: 800 });
      assert.equal(await page.textContent('#run-empty'), 'Loading…');
      assert.deepEqual(await shownWith(page, 'No run yet'), []);
      // What Dashboard sends a page opened while a run streams: init with no run and `streaming`, then the replay: the run's
      // start, then the sweep that ended before it (its start, marked ended, and its end).
      await send(page, { type: 'init', runs: [{ id: INTERRUPTED_ID, name: interrupted.name, createdAt: interrupted.createdAt, status: 'cancelled', cases: 2 }], current: null, currentId: null, latest: null, sweep, streaming: true });
      await page.waitForFunction(() => document.querySelector('#history-count')?.textContent === '1 run');
      assert.equal(await page.textContent('#run-empty'), 'Loading…', 'between init and the start replayed after it');
      assert.equal(await page.isVisible('#run-latest'), false);
      await send(page, started);
      await send(page, { type: 'sweepStarted', name: 'batched.attn.yaml', replayed: true, ended: true });
      await send(page, { type: 'sweepEnded', status: 'finished', message: 'sweep of batched.attn.yaml finished: 6 points, report in .attnscope/sweeps/batched-c0ffee.' });
      await page.waitForFunction(() => document.querySelector('#sweep-run-status')?.textContent?.startsWith('sweep of batched.attn.yaml finished'));
      assert.equal(await page.textContent('#run-status'), 'running');
      assert.equal(await tabShown(page), '0', 'the Run tab, where the run streams');
      assert.equal(await page.isVisible('#run-empty'), false);
      await page.screenshot({ path: join(shots, 'reopen-mid-run-1280x800.png') });
    } finally {
      await page.close();
    }
    // Opened while a sweep runs (no run streams): its tab.
    const sweeping = await openDashboard(chromium.browser, chromium.server, 'dark', { locale: 'en-US' });
    try {
      await send(sweeping, { type: 'init', runs: [], current: null, currentId: null });
      await send(sweeping, { type: 'sweepStarted', name: 'batched.attn.yaml', replayed: true });
      await send(sweeping, { type: 'sweepProgress', done: 1, total: 6, message: '1 of 6 points saved' });
      await sweeping.waitForFunction(() => document.querySelector('#sweep-run-status')?.textContent === 'Sweeping batched.attn.yaml: 1 of 6 points saved');
      assert.equal(await tabShown(sweeping), '2');
      assert.equal(await sweeping.textContent('#run-empty'), 'No run yet: run a benchmark (AttnScope: Run attention benchmark) or open one from History.');
    } finally {
      await sweeping.close();
    }
  });

  // s49 newcomer-ed 7: in a 400 px side panel the Sweeps table's Open was cut off at the right edge and the time took four lines.
  // s50 newcomer-ed 12: the saved runs' Open was past the edge there (the table scrolled sideways), their time in another format.
  it('History\'s Sweeps and saved runs fit a narrow panel: the blocks wrap, Open (and a run\'s Delete) within the panel, the time to the minute on one line, kind and cases apart', async () => {
    const page = await openDashboard(chromium.browser, chromium.server, 'light', { locale: 'en-US', timezoneId: 'UTC' });
    try {
      await page.setViewportSize({ width: 400, height: 800 });
      const runs: RunListEntry[] = [
        { id: 'r1', name: 'llama-3.1-8b · llama-3.1-8b.attn.yaml · simulation', createdAt: '2026-12-06T16:58:19.000Z', status: 'ok', cases: 0, requests: 200, kind: 'simulate' },
        { id: 'r2', name: 'Mixtral-8x7B-v0.1 · Mixtral-8x7B-v0.1.attn.yaml · full', createdAt: '2026-12-06T16:40:00.000Z', status: 'cancelled', interrupted: true, cases: 3, kind: 'bench' },
      ];
      await send(page, { type: 'init', runs, current: null, currentId: null, sweeps: [{ id: 'page-size-d4cf7d4c', name: 'page-size.attn.yaml', folder: 'nc49-ws', createdAt: '2026-12-06T13:54:30.000Z', job: 'both', points: 5, total: 9, interrupted: true }] });
      await page.locator('vscode-tab-header').nth(1).click();
      await page.waitForSelector('#sweep-list table.stacked');
      await page.waitForSelector('#history-list table.stacked');
      // Every cell of the saved runs within the list's box (none past its right edge, nothing to scroll to sideways), each labelled by its column.
      const cells = await page.$eval('#history-list', (list) => {
        const right = list.getBoundingClientRect().right;
        return { scrolls: list.scrollWidth > list.clientWidth + 1, rows: [...list.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => ({ label: td.getAttribute('data-label'), text: td.textContent, past: td.getBoundingClientRect().right > right + 0.5, lines: Math.round(td.querySelector('time')?.getBoundingClientRect().height ?? 0) }))) };
      });
      assert.equal(cells.scrolls, false, 'the runs do not scroll sideways');
      for (const cell of cells.rows.flat()) assert.equal(cell.past, false, `${cell.label} '${cell.text}' past the list's right edge`);
      // 16:58:19 UTC in en-US: "Dec 6, 04:58 PM", the sweeps' format, on one line (under two font sizes, 13 px).
      assert.deepEqual(cells.rows.map((r) => r.map((c) => [c.label, c.text])), [
        [['time', 'Dec 6, 04:58 PM'], ['name', runs[0]!.name], ['kind', 'simulation'], ['status', 'ok'], ['count', '200 requests'], ['', 'OpenDelete']],
        [['time', 'Dec 6, 04:40 PM'], ['name', runs[1]!.name], ['kind', 'benchmark'], ['status', 'interrupted (window reloaded or closed)'], ['count', '3 cases'], ['', 'OpenDelete']],
      ]);
      for (const cell of cells.rows.flat().filter((c) => c.label === 'time')) assert.ok(cell.lines > 0 && cell.lines < 26, `time ${cell.lines} px tall`);
      const box = await page.$eval('#sweep-list', (list) => {
        const open = list.querySelector('vscode-button')!.getBoundingClientRect();
        const time = list.querySelector('time')!;
        return { right: open.right, panel: list.getBoundingClientRect().right, width: open.width, time: time.textContent, height: time.getBoundingClientRect().height, font: parseFloat(getComputedStyle(time).fontSize), after: getComputedStyle(list.querySelector('vscode-button')!.parentElement!, '::after').content };
      });
      assert.ok(box.width > 20 && box.right <= box.panel, `Open ${box.right} px past the list's right edge ${box.panel} px`);
      // en-US, UTC: 13:54:30 is "Dec 6, 01:54 PM" (month short, day, 2-digit hour and minute), was "Dec 6, 2026, 1:54:30 PM".
      assert.equal(box.time, 'Dec 6, 01:54 PM');
      // Open's cell is no best point's ★: no "best" after it (the sweep table's stacked ★ cell reads so).
      assert.equal(box.after, 'none');
      // One line: under two font sizes tall (four lines were ~70 px at 13 px).
      assert.ok(box.height < 2 * box.font, `time ${box.height} px tall at ${box.font} px`);
      await page.screenshot({ path: join(shots, 'reopen-history-sweeps-400px.png') });
    } finally {
      await page.close();
    }
  });

  // s46 lead: a sweep report that is not JSON was left out of History with no word, where Open sweep results named it.
  it('History names the sweep reports it leaves out, with why, and drops the note when none is', async () => {
    const page = await openDashboard(chromium.browser, chromium.server, 'dark', { locale: 'en-US' });
    try {
      const bad = ['.attnscope/sweeps/broken-1234/sweep-report.json: not JSON (Unexpected end of JSON input)', '.attnscope/sweeps/old-5678/sweep-report.json: not a sweep report (kind "attnscope-sweep-report" with rows)'];
      await send(page, { type: 'init', runs: [], current: null, currentId: null, sweeps: [{ id: 'batched-c0ffee', name: 'batched.attn.yaml', createdAt: sweep.createdAt, job: 'simulate', points: 6, total: 6 }], sweepsSkipped: bad });
      await page.locator('vscode-tab-header').nth(1).click();
      await page.waitForSelector('#sweeps-skipped');
      assert.equal(await page.textContent('#sweeps-skipped'), `2 sweep reports not listed: ${bad[0]}; ${bad[1]}`);
      assert.equal(await page.$$eval('#sweep-list tr[data-sweep]', (trs) => trs.length), 1);
      await page.screenshot({ path: join(shots, 'reopen-history-skipped-sweeps.png') });
      // The list sent again (a report fixed, or deleted): the note goes.
      await send(page, { type: 'sweeps', sweeps: [], skipped: [] });
      await page.waitForFunction(() => document.querySelector('#sweeps-skipped') === null);
      // With no sweep listed, the reports left out are still named.
      await send(page, { type: 'sweeps', sweeps: [], skipped: bad.slice(0, 1) });
      await page.waitForFunction((line) => document.querySelector('#sweeps-skipped')?.textContent === line, `1 sweep report not listed: ${bad[0]}`);
    } finally {
      await page.close();
    }
  });

  // s46 lead: at a 371 px high panel the Saved runs list's scrollbar was ~1,800 px down, at the foot of its 50 rows.
  it('History\'s saved runs scroll inside a box within a 371 px panel, under a header that stays', async () => {
    const page = await openDashboard(chromium.browser, chromium.server, 'dark', { locale: 'en-US' });
    try {
      await send(page, { type: 'init', runs: manyRuns, current: null, currentId: null });
      await page.locator('vscode-tab-header').nth(1).click();
      for (const width of [600, 320]) {
        await page.setViewportSize({ width, height: 371 });
        await page.waitForFunction(() => document.querySelectorAll('#history-list tr[data-run]').length === 50);
        // At 320 px the columns do not fit: a block a run (fitStacked), each value labelled, no header row to keep.
        const stacked = await page.waitForFunction((w) => document.querySelector('#history-list table')?.classList.contains('stacked') === (w < 400), width).then(() => width < 400);
        await page.$eval('#history-list', (box) => box.scrollIntoView());
        const box = await page.$eval('#history-list', (b) => ({ top: b.getBoundingClientRect().top, bottom: b.getBoundingClientRect().bottom, client: b.clientHeight, scroll: b.scrollHeight, view: innerHeight }));
        // The whole box, its scrollbars with it, on screen at once; its 50 rows (each two lines or more, ~35 px) scroll inside it.
        assert.ok(box.bottom <= box.view + 0.5, `${width} px: the list's box ends at ${box.bottom} px, past the ${box.view} px panel`);
        assert.ok(box.client >= 150, `${width} px: a box of ${box.client} px shows a few rows`);
        assert.ok(box.scroll > box.client, `${width} px: the rows (${box.scroll} px) scroll inside the box (${box.client} px)`);
        await page.screenshot({ path: join(shots, `reopen-history-${width}x371.png`) });
        // Scrolled down the list, its header row is still at the box's top.
        if (!stacked) {
          await page.$eval('#history-list', (b) => (b.scrollTop = 400));
          const header = await page.$eval('#history-list', (b) => b.querySelector('thead th')!.getBoundingClientRect().top - b.getBoundingClientRect().top);
          assert.ok(Math.abs(header) <= 1, `${width} px: the header ${header} px from the box's top`);
          await page.$eval('#history-list', (b) => (b.scrollTop = 0));
        }
      }
    } finally {
      await page.close();
    }
  });

  // s46 lead: the legend and the table wrote 30000 beside the x axis's "30,000".
  // s47 newcomer-ed 8: in the stacked table the best point's ★ took a line of its own. s50 newcomer-ed 3: the stacked blocks could
  // not be compared point by point; too narrow for its columns, the table is transposed: a point a column, the ★ over the best's.
  it('the sweep table too narrow for its columns is transposed: a point a column under its ★, the names column staying while it scrolls', async () => {
    const page = await openDashboard(chromium.browser, chromium.server, 'dark', { locale: 'en-US' });
    try {
      await page.setViewportSize({ width: 420, height: 800 });
      const best = sweep.rows[2]!;
      await send(page, { type: 'init', runs: [], current: null, currentId: null, sweep: { ...sweep, best: { id: best.id, environmentKey: 'e1', label: best.label, rule: 'highest modelled output throughput' } } });
      await page.locator('vscode-tab-header').nth(2).click();
      await page.waitForFunction(() => document.querySelector('table.table-sweep')?.classList.contains('transposed') && document.querySelectorAll('#sweep-table tbody tr').length === 6);
      const seen = await seenSweepTable(page);
      assert.equal(seen.transposed, true);
      const line = (name: RegExp) => seen.lines.find((l) => name.test(l.name))?.cells;
      // The fixture's points in its order (max_num_batched_tokens 50, 100, 30000 × page_size 16, 32), the best the third
      // (100, 16): its ★ over its column, its throughput 100 + 1 (the fixture's 100 + i for the second max_num_batched_tokens).
      assert.deepEqual(seen.lines[0], { name: '', cells: ['', '', '★', '', '', ''] });
      assert.deepEqual(line(/^workload\.max_num_batched_tokens$/), ['50', '50', '100', '100', '30,000', '30,000']);
      assert.deepEqual(line(/^kv_cache\.page_size$/), ['16', '32', '16', '32', '16', '32']);
      assert.deepEqual(line(/^output throughput/), ['100', '100', '101', '101', '102', '102']);
      assert.deepEqual(line(/^status$/), ['ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
      // Scrolled to its right end, each figure's name still at the box's left edge.
      assert.equal(seen.sticky, true);
      await page.locator('#sweep-table').screenshot({ path: join(shots, 'reopen-sweep-best-420.png') });
      // Where its columns fit, a point a row again.
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.waitForFunction(() => !document.querySelector('table.table-sweep')!.classList.contains('transposed'));
      assert.deepEqual((await seenSweepTable(page)).lines[0], { name: '', cells: ['', '', '★', '', '', ''] });
    } finally {
      await page.close();
    }
  });

  it('the Sweep tab writes swept values grouped in its legend and table, as on its x axis', async () => {
    const page = await openDashboard(chromium.browser, chromium.server, 'dark', { locale: 'en-US' });
    try {
      await page.setViewportSize({ width: 1280, height: 800 });
      await send(page, { type: 'init', runs: [], current: null, currentId: null, sweep });
      await page.locator('vscode-tab-header').nth(2).click();
      await page.waitForFunction(() => document.querySelectorAll('#sweep-table tbody tr').length === 6);
      const column = await page.$$eval('#sweep-table tbody tr', (trs) => trs.map((tr) => tr.querySelectorAll('td')[1]?.textContent ?? ''));
      assert.deepEqual(column, ['50', '50', '100', '100', '30,000', '30,000']);
      // The chart against page_size: a line per max_num_batched_tokens, each named in the legend and the chart's accessible name.
      const name = (await page.getAttribute('#chart-sweep-1', 'aria-label')) ?? '';
      assert.match(name, /\b30,000: /);
      assert.doesNotMatch(name, /30000/);
      await page.screenshot({ path: join(shots, 'reopen-sweep-values-1280x800.png'), fullPage: true });
    } finally {
      await page.close();
    }
  });
});
