/**
 * The Sweep tab as a figure for a design doc (s50 sweepchart; s49 newcomer-ed 6 and 10), in Chromium on
 * the built dashboard: Export PNG of its charts under a caption, Open sweep results over a page already
 * on that sweep, the key figures side by side, points not run marked, the p10–p90 error bars and the
 * Every point table at 600 px. Screenshots go to test-results/webview/.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { pageSizeSweep } from '../fixtures/sweep';
import { CHROMIUM, launchChromium, openDashboard, root, send, serveDashboard, waitForPosted, type DashboardServer, type ThemeName } from './harness';

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
  let server: DashboardServer;
  let browser: Browser;

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `Chromium not found at ${CHROMIUM}: run scripts/e2e-setup.sh (apt-get install chromium)`);
    const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--bundles'], { cwd: root, encoding: 'utf8' });
    assert.equal(build.status, 0, `build failed:\n${build.stderr}`);
    mkdirSync(shots, { recursive: true });
    server = await serveDashboard();
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  // s49 newcomer-ed 6: the sweep view had Copy as Markdown and Export CSV, no image.
  it('Export PNG posts the sweep\'s charts as one PNG, at least 1,200 px wide, with room for its caption over them', async () => {
    const page = await sweepPage(browser, server, 'light', 600);
    try {
      await page.click('#btn-sweep-png');
      const [png] = (await waitForPosted(page, 'savePng')) as Array<{ name: string; dataUrl: string; sweepId?: string }>;
      assert.equal(png!.name, 'page-size.attn.yaml sweep d4cf7d4c');
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
});
