/**
 * End to end: attnscope.runnerPath, a machine setting, written where VS Code does not read it: a value in the
 * workspace's .vscode/settings.json was dropped without a word and the bundled runner ran (s51 newcomer-ed LOW-3).
 * The extension says each such value once: a line in its log and a warning, naming the place and the runner in use.
 * Run by `npm run test:e2e`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { checkPrerequisites, failureArtifacts, launchChromium, makeWorkspace, openWorkbench, shots, startCodeServer, type CodeServer } from './harness';

describe('AttnScope with its runner setting where VS Code ignores it', { timeout: 300_000 }, () => {
  let browser: Browser;
  let server: CodeServer;
  let page: Page;

  before(async () => {
    checkPrerequisites();
    mkdirSync(shots, { recursive: true });
    const ws = makeWorkspace();
    mkdirSync(join(ws, '.vscode'), { recursive: true });
    writeFileSync(join(ws, '.vscode', 'settings.json'), '{\n  // a runner of this workspace\n  "attnscope.runnerPath": "/tmp/ws-runner.js",\n}\n');
    // ATTNSCOPE_E2E_PORT: where a shared machine allows code-server one port only; else a free one.
    server = await startCodeServer({ settings: {}, trust: false, log: join(shots, 'code-server-machine-settings.log'), ...(process.env['ATTNSCOPE_E2E_PORT'] ? { port: Number(process.env['ATTNSCOPE_E2E_PORT']) } : {}) });
    browser = await launchChromium();
    page = await openWorkbench(browser, server, ws);
  });
  failureArtifacts(() => page);

  after(async () => {
    await browser?.close();
    server?.saveExtensionLog(join(shots, 'attnscope-machine-settings.log'));
    await server?.stop();
  });

  it('says once where each value is written and that the bundled runner is used', async () => {
    // The setting in force: empty (VS Code dropped the workspace's value).
    await server.extensionLogLine(/setting attnscope\.runnerPath = "" \(at start\)/, 120_000);
    await server.extensionLogLine(/setting attnscope\.runnerPath "\/tmp\/ws-runner\.js" in the workspace settings \(.*\/\.vscode\/settings\.json\) is ignored: a machine setting is read from the User settings, or in a remote window from the Remote settings \(code-server: Machine\/settings\.json\); the bundled runner is used/, 60_000);
    await page.locator('.notification-toast', { hasText: '/tmp/ws-runner.js' }).first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(shots, 'machine-setting-ignored.png') });
  });
});
