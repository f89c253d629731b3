/**
 * Serves the built dashboard (dist/webview) exactly as the extension builds its page
 * (extension/dashboardHtml.ts, same CSP) over 127.0.0.1, and opens it in headless Debian
 * Chromium with a stub of the webview API: posted messages land in `window.__posted`, the
 * persisted state in sessionStorage (so it survives a reload as VS Code keeps it).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { dashboardHtml } from '../../extension/dashboardHtml';

export const root = join(__dirname, '..', '..');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export interface DashboardServer {
  origin: string;
  nonce: string;
  close(): Promise<void>;
}

/** Serves `/` (the dashboard page) and `/main.js`, `/main.css` from dist/webview. */
export async function serveDashboard(): Promise<DashboardServer> {
  const nonce = 'dGVzdC1ub25jZS0xMjM0NQ==';
  let origin = '';
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(dashboardHtml({ cspSource: origin, script: `${origin}/main.js`, style: `${origin}/main.css` }, nonce));
      return;
    }
    const file = path === '/main.js' ? 'main.js' : path === '/main.css' ? 'main.css' : null;
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    readFile(join(root, 'dist', 'webview', file)).then(
      (body) => res.writeHead(200, { 'content-type': file.endsWith('.js') ? 'text/javascript' : 'text/css' }).end(body),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, nonce, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/** The served dashboard and the browser of one describe block ({@link chromiumSuite}), set in its before hook. */
export interface ChromiumSuite {
  server: DashboardServer;
  browser: Browser;
}

/**
 * Registers, in the calling describe block, the hooks every Chromium suite needs: before, Chromium is
 * checked for (failing with the command that installs it), the bundles built, `shots` made, the
 * dashboard served and Chromium launched; after, both closed. The returned object holds the two once
 * the before hook has run (read them inside `it`, not at describe time).
 */
export function chromiumSuite(shots: string): ChromiumSuite {
  const suite = {} as ChromiumSuite;
  before(async () => {
    assert.ok(existsSync(CHROMIUM), `Chromium not found at ${CHROMIUM}: run scripts/e2e-setup.sh (apt-get install chromium)`);
    const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--bundles'], { cwd: root, encoding: 'utf8' });
    assert.equal(build.status, 0, `build failed:\n${build.stderr}`);
    mkdirSync(shots, { recursive: true });
    suite.server = await serveDashboard();
    suite.browser = await launchChromium();
  });
  after(async () => {
    await suite.browser?.close();
    await suite.server?.close();
  });
  return suite;
}

/**
 * Theme variables as VS Code sets them on <html>, and the <body> class of each theme kind. The settings.dropdown* colours
 * (VS Code 1.100.3: dropdown.background / border / foreground, editorWidget.border for the list) dress the Compare pickers
 * (vscode-single-select): without them the pickers fell back to their dark defaults in the light screenshots (s51).
 */
export const THEMES = {
  dark: {
    bodyClass: 'vscode-dark',
    vars: { '--vscode-foreground': '#cccccc', '--vscode-editor-background': '#1f1f1f', '--vscode-charts-foreground': '#cccccc', '--vscode-charts-lines': 'rgba(204, 204, 204, 0.5)', '--vscode-charts-blue': '#3794ff', '--vscode-charts-orange': '#d18616', '--vscode-charts-green': '#89d185', '--vscode-charts-purple': '#b180d7', '--vscode-charts-red': '#f14c4c', '--vscode-charts-yellow': '#cca700', '--vscode-descriptionForeground': '#9d9d9d', '--vscode-font-family': 'sans-serif', '--vscode-font-size': '13px', '--vscode-button-background': '#0078d4', '--vscode-button-foreground': '#ffffff', '--vscode-settings-dropdownBackground': '#313131', '--vscode-settings-dropdownBorder': '#3c3c3c', '--vscode-settings-dropdownForeground': '#cccccc', '--vscode-settings-dropdownListBorder': '#454545' },
  },
  light: {
    bodyClass: 'vscode-light',
    vars: { '--vscode-foreground': '#3b3b3b', '--vscode-editor-background': '#ffffff', '--vscode-charts-foreground': '#616161', '--vscode-charts-lines': 'rgba(97, 97, 97, 0.5)', '--vscode-charts-blue': '#0066bf', '--vscode-charts-orange': '#b25b00', '--vscode-charts-green': '#388a34', '--vscode-charts-purple': '#652d90', '--vscode-charts-red': '#e51400', '--vscode-charts-yellow': '#bf8803', '--vscode-descriptionForeground': '#717171', '--vscode-font-family': 'sans-serif', '--vscode-font-size': '13px', '--vscode-button-background': '#005fb8', '--vscode-button-foreground': '#ffffff', '--vscode-settings-dropdownBackground': '#ffffff', '--vscode-settings-dropdownBorder': '#cecece', '--vscode-settings-dropdownForeground': '#3b3b3b', '--vscode-settings-dropdownListBorder': '#c8c8c8' },
  },
  highContrast: {
    bodyClass: 'vscode-high-contrast',
    vars: { '--vscode-foreground': '#ffffff', '--vscode-editor-background': '#000000', '--vscode-charts-foreground': '#ffffff', '--vscode-charts-lines': 'rgba(255, 255, 255, 0.5)', '--vscode-contrastBorder': '#6fc3df', '--vscode-charts-blue': '#3794ff', '--vscode-charts-orange': '#d18616', '--vscode-charts-green': '#89d185', '--vscode-charts-purple': '#b180d7', '--vscode-charts-red': '#f14c4c', '--vscode-charts-yellow': '#cca700', '--vscode-descriptionForeground': '#ffffff', '--vscode-font-family': 'sans-serif', '--vscode-font-size': '13px', '--vscode-button-background': '#000000', '--vscode-button-foreground': '#ffffff', '--vscode-settings-dropdownBackground': '#000000', '--vscode-settings-dropdownBorder': '#6fc3df', '--vscode-settings-dropdownForeground': '#ffffff', '--vscode-settings-dropdownListBorder': '#6fc3df' },
  },
  // VS Code 1.100.3's registered hcLight colours (its workbench.js colour registry): charts.orange is minimap.findMatchHighlight, a navy.
  highContrastLight: {
    bodyClass: 'vscode-high-contrast-light',
    vars: { '--vscode-foreground': '#292929', '--vscode-editor-background': '#ffffff', '--vscode-charts-foreground': '#292929', '--vscode-charts-lines': 'rgba(41, 41, 41, 0.5)', '--vscode-contrastBorder': '#0f4a85', '--vscode-charts-blue': '#1a85ff', '--vscode-charts-orange': '#0f4a85', '--vscode-charts-green': '#374e06', '--vscode-charts-purple': '#652d90', '--vscode-charts-red': '#b5200d', '--vscode-charts-yellow': '#895503', '--vscode-descriptionForeground': '#292929', '--vscode-font-family': 'sans-serif', '--vscode-font-size': '13px', '--vscode-button-background': '#0f4a85', '--vscode-button-foreground': '#ffffff', '--vscode-settings-dropdownBackground': '#ffffff', '--vscode-settings-dropdownBorder': '#0f4a85', '--vscode-settings-dropdownForeground': '#292929', '--vscode-settings-dropdownListBorder': '#0f4a85' },
  },
} as const;
export type ThemeName = keyof typeof THEMES;

/** Stub of acquireVsCodeApi, installed before any page script runs. */
const STUB = `
window.__posted = [];
window.acquireVsCodeApi = (() => {
  let acquired = false;
  return () => {
    if (acquired) throw new Error('acquireVsCodeApi called twice');
    acquired = true;
    return {
      postMessage: (m) => window.__posted.push(JSON.parse(JSON.stringify(m))),
      getState: () => { const s = sessionStorage.getItem('vscode-state'); return s ? JSON.parse(s) : undefined; },
      setState: (s) => sessionStorage.setItem('vscode-state', JSON.stringify(s)),
    };
  };
})();
`;

/**
 * A page on the dashboard with the stub API, in theme `theme`; `reader`: the locale and time zone
 * the page reads dates in (Chromium's own unless given), and the zoom (deviceScaleFactor 2: VS Code at
 * 200 %, whose webview has half the CSS px of the panel). Returns once it posted `ready`.
 */
export async function openDashboard(browser: Browser, server: DashboardServer, theme: ThemeName, reader: { locale?: string; timezoneId?: string; deviceScaleFactor?: number } = {}): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, ...reader });
  await page.addInitScript(STUB);
  await page.goto(server.origin + '/');
  await waitForPosted(page, 'ready');
  await setTheme(page, theme);
  return page;
}

/**
 * Applies a theme the way VS Code's webview host does: variables set through CSSOM on <html>
 * (a `style` attribute written as text would be blocked by the page's CSP), kind class on <body>.
 */
export async function setTheme(page: Page, theme: ThemeName): Promise<void> {
  const t = THEMES[theme];
  await page.evaluate(({ bodyClass, vars }) => {
    const style = document.documentElement.style;
    for (const name of [...style].filter((n) => n.startsWith('--vscode-'))) style.removeProperty(name);
    for (const [k, v] of Object.entries(vars)) style.setProperty(k, v);
    document.body.classList.remove('vscode-dark', 'vscode-light', 'vscode-high-contrast', 'vscode-high-contrast-light');
    document.body.classList.add(bodyClass);
  }, { bodyClass: t.bodyClass, vars: t.vars as Record<string, string> });
}

/** Delivers a message as the extension does (a window `message` event). */
export async function send(page: Page, msg: unknown): Promise<void> {
  await page.evaluate((m) => window.postMessage(m, '*'), msg);
}

export async function waitForPosted(page: Page, type: string, count = 1): Promise<unknown[]> {
  await page.waitForFunction(
    ({ type, count }) => ((window as unknown as { __posted: Array<{ type: string }> }).__posted ?? []).filter((m) => m.type === type).length >= count,
    { type, count },
  );
  return page.evaluate((type) => (window as unknown as { __posted: Array<{ type: string }> }).__posted.filter((m) => m.type === type), type);
}

/**
 * The sweep's "Every point" table as it is seen, transposed or not: a line per header cell (its text, "" for the ★
 * column's), each with the texts of the cells beside it in reading order — for a transposed table, the cells whose
 * middle lies on the header's line, left to right; `sticky`: whether each header cell stays at the box's left edge
 * with the box scrolled to its right end (the names column of a transposed table). Read from where the cells are drawn,
 * not from the DOM's rows, so a wrong transposition (cells filled row by row, or a grid track short) reads wrong.
 */
export async function seenSweepTable(page: Page): Promise<{ transposed: boolean; lines: Array<{ name: string; cells: string[] }>; sticky: boolean }> {
  return page.$eval('#sweep-table', (box) => {
    const t = box.querySelector('table')!;
    const transposed = t.classList.contains('transposed');
    const ths = [...t.querySelectorAll('th')];
    const tds = [...t.querySelectorAll('td')];
    // No named function in here: the test's transform would wrap it in a helper the page lacks.
    const lines = ths.map((th) => {
      const r = th.getBoundingClientRect();
      const cells = tds.map((td) => ({ td, r: td.getBoundingClientRect() }))
        .filter(({ r: c }) => (transposed ? Math.abs((c.top + c.bottom) / 2 - (r.top + r.bottom) / 2) < 2 : Math.abs((c.left + c.right) / 2 - (r.left + r.right) / 2) < 2))
        .sort((a, b) => (transposed ? a.r.left - b.r.left : a.r.top - b.r.top))
        .map(({ td }) => td.textContent ?? '');
      return { name: th.textContent ?? '', cells };
    });
    const before = box.scrollLeft;
    box.scrollLeft = box.scrollWidth;
    const left = box.getBoundingClientRect().left + box.clientLeft;
    const sticky = ths.every((th) => Math.abs(th.getBoundingClientRect().left - left) < 1.5);
    box.scrollLeft = before;
    return { transposed, lines, sticky };
  });
}
