/**
 * The Sweep tab as a figure for a design doc (s50 sweepchart; s49 newcomer-ed 6 and 10), in Chromium on
 * the built dashboard: Export PNG of its charts under a caption, Open sweep results over a page already
 * on that sweep, the key figures side by side, points not run marked, the p10–p90 error bars and the
 * Every point table at 600 px. Screenshots go to test-results/webview/.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { pageSizeSweep } from '../fixtures/sweep';
import { chromiumSuite, openDashboard, root, send, waitForPosted, type DashboardServer, type ThemeName } from './harness';

const shots = join(root, 'test-results', 'webview');

/** A page on the Sweep tab showing the cancelled page-size sweep (5 of 9 points), `width` px wide. */
async function sweepPage(browser: Browser, server: DashboardServer, theme: ThemeName, width = 1280): Promise<Page> {
  const page = await openDashboard(browser, server, theme, { locale: 'en-US', timezoneId: 'UTC' });
  await page.setViewportSize({ width, height: 900 });
  await send(page, { type: 'init', runs: [], current: null, currentId: null });
  await send(page, { type: 'showSweep', report: pageSizeSweep });
  await page.waitForFunction(() => document.querySelectorAll('#sweep-charts canvas').length > 0);
  return page;
}

describe('the Sweep tab as a figure, in Chromium', () => {
  const chromium = chromiumSuite(shots);

  // s49 newcomer-ed 6: the sweep view had Copy as Markdown and Export CSV, no image.
  it('Export PNG posts the sweep\'s charts as one PNG, at least 1,200 px wide, with room for its caption over them', async () => {
    const page = await sweepPage(chromium.browser, chromium.server, 'light', 600);
    try {
      await page.click('#btn-sweep-png');
      const [png] = (await waitForPosted(page, 'savePng')) as Array<{ name: string; dataUrl: string; sweepId?: string }>;
      // The name the CSV export takes too, less its extension (s50 review: the image was "page-size.attn.yaml_sweep_d4cf7d4c.png"
      // beside "page-size-sweep-d4cf7d4c.csv").
      assert.equal(png!.name, 'page-size-sweep-d4cf7d4c');
      assert.equal(png!.sweepId, 'd4cf7d4c');
      assert.match(png!.dataUrl, /^data:image\/png;base64,iVBORw0KGgo/);
      const bytes = Buffer.from(png!.dataUrl.slice('data:image/png;base64,'.length), 'base64');
      writeFileSync(join(shots, 'sweep-export.png'), bytes);
      // IHDR: width and height, big-endian, at bytes 16 and 20. At 600 px the charts stack; the PNG lays 3 a row at 1,200 px.
      const [width, height] = [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
      assert.ok(width >= 1200, `PNG ${width} px wide`);
      // The tallest chart of each row of 3, plus 4 caption lines (~18 px each) over them.
      const heights = await page.$$eval('#sweep-charts .chart-box', (bs) => bs.map((b) => (b as HTMLElement).getBoundingClientRect().height));
      const rows = Array.from({ length: Math.ceil(heights.length / 3) }, (_, i) => Math.max(...heights.slice(3 * i, 3 * i + 3)));
      const charts = rows.reduce((a, b) => a + b, 0);
      assert.ok(height > charts + 4 * 17, `the PNG (${height} px high) has room for its 4 caption lines over the charts (${charts} px)`);
    } finally {
      await page.close();
    }
  });

  // s49 newcomer-ed 10: Open sweep results with the panel already on that sweep, scrolled down to its table, changed nothing on screen.
  it('a sweep opened over the same one scrolled down goes to its top, the summary focused; one opened after a cancel with no report turns to the Sweep tab', async () => {
    const page = await sweepPage(chromium.browser, chromium.server, 'dark', 600);
    try {
      await page.evaluate(() => window.scrollTo({ top: document.documentElement.scrollHeight }));
      await page.waitForFunction(() => window.scrollY > 300);
      await send(page, { type: 'showSweep', report: pageSizeSweep });
      await page.waitForFunction(() => window.scrollY === 0, undefined, { timeout: 5000 }).catch(() => assert.fail(`still scrolled to ${String(window.scrollY)} px`));
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'sweep-summary');
      // The editor's sweep of this profile cancelled before any point (no report of its own), the user on History:
      // an earlier report of the profile opened from the palette is no end of that sweep, and comes forward.
      await send(page, { type: 'sweepStarted', name: 'page-size.attn.yaml' });
      await send(page, { type: 'sweepEnded', status: 'cancelled', message: 'sweep of page-size.attn.yaml cancelled before any point finished.' });
      await page.click('vscode-tab-header:nth-of-type(2)');
      await page.waitForFunction(() => document.querySelector('vscode-tabs')?.getAttribute('selected-index') === '1');
      await send(page, { type: 'showSweep', report: pageSizeSweep });
      await page.waitForFunction(() => document.querySelector('vscode-tabs')?.getAttribute('selected-index') === '2', undefined, { timeout: 5000 }).catch(() => assert.fail('the page stayed on History'));
      // The end's own report (the extension says `ended`) still leaves the tab the user picked while the sweep ran.
      await send(page, { type: 'sweepStarted', name: 'page-size.attn.yaml' });
      await page.click('vscode-tab-header:nth-of-type(2)');
      await send(page, { type: 'sweepEnded', status: 'finished', message: 'sweep of page-size.attn.yaml finished: 9 points.' });
      await send(page, { type: 'showSweep', report: pageSizeSweep, ended: true });
      await page.waitForFunction(() => (JSON.parse(sessionStorage.getItem('vscode-state') ?? '{}') as { model?: { sweepRun?: { sweepId?: string } } }).model?.sweepRun?.sweepId === 'd4cf7d4c');
      assert.equal(await page.getAttribute('vscode-tabs', 'selected-index'), '1');
    } finally {
      await page.close();
    }
  });

  // s49 newcomer-ed 6: one figure at a time behind the Figure picker; points not run read as empty x ticks.
  it('at 1,280 px the key figures stand side by side in one row, each naming the points not run', async () => {
    for (const theme of ['light', 'dark'] as const) {
      const page = await sweepPage(chromium.browser, chromium.server, theme);
      try {
        const charts = await page.$$eval('#sweep-charts canvas', (cs) => cs.map((c) => ({ figure: c.getAttribute('data-figure'), top: Math.round(c.getBoundingClientRect().top), aria: c.getAttribute('aria-label') ?? '' })));
        assert.deepEqual(charts.map((c) => c.figure), ['internalFragmentation', 'prefixHitRate', 'decodeNsPerToken']);
        assert.equal(new Set(charts.map((c) => c.top)).size, 1, `one row: tops ${charts.map((c) => c.top).join(', ')}`);
        for (const c of charts) assert.match(c.aria, /; not run: page_size 32, 64, 128 and 256$/);
        await page.screenshot({ path: join(shots, `sweep-chart-${theme}-1280.png`), fullPage: true });
        await page.setViewportSize({ width: 600, height: 900 });
        await page.waitForFunction(() => { const cs = [...document.querySelectorAll('#sweep-charts canvas')]; return cs.length === 3 && cs[1]!.getBoundingClientRect().top > cs[0]!.getBoundingClientRect().bottom; });
        await page.screenshot({ path: join(shots, `sweep-chart-${theme}-600.png`), fullPage: true });
      } finally {
        await page.close();
      }
    }
  });
});
