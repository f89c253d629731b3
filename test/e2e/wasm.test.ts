/**
 * End to end on the universal package: attnscope-universal.vsix (the WebAssembly module, no
 * native addon, no CUDA library; scripts/package.mjs) installed into code-server, with nothing
 * else on the loader's path, so the bundled runner must fall back to WebAssembly. "AttnScope:
 * Run attention benchmark" from the command palette (quick mode) times the kernels and runs the
 * profile's pool simulation; the saved run must say it ran on WebAssembly and why, and the
 * finish notification, the status item's tooltip and the dashboard's run header must say so too. Run by `npm run test:e2e` (ATTNSCOPE_VSIX_UNIVERSAL).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { RunResult } from '../../core/protocol/run';
import { checkPrerequisites, dashboardFrame, failureArtifacts, launchChromium, makeWorkspace, openFile, openWorkbench, root, runCommand, shots, startCodeServer, type CodeServer } from './harness';

const UNIVERSAL = process.env.ATTNSCOPE_VSIX_UNIVERSAL ?? join(root, 'attnscope-universal.vsix');

describe('AttnScope from the universal package (WebAssembly, no native addon)', { timeout: 600_000 }, () => {
  let browser: Browser;
  let server: CodeServer;
  let page: Page;
  let ws: string;

  before(async () => {
    checkPrerequisites();
    if (!existsSync(UNIVERSAL)) throw new Error(`${UNIVERSAL} missing (npm run package)`);
    mkdirSync(shots, { recursive: true });
    ws = makeWorkspace();
    // The runner inherits code-server's environment: no override may point at a native addon.
    for (const v of ['ATTNSCOPE_NATIVE', 'ATTNSCOPE_WASM', 'ATTNSCOPE_BACKEND']) delete process.env[v];
    server = await startCodeServer({ settings: { 'attnscope.quickMode': true, 'attnscope.openDashboardOnRun': false }, trust: false, log: join(shots, 'code-server-wasm.log'), vsix: UNIVERSAL });
    browser = await launchChromium();
    page = await openWorkbench(browser, server, ws);
  });
  failureArtifacts(() => page);

  after(async () => {
    if (page) await page.screenshot({ path: join(shots, 'wasm-last.png') }).catch(() => undefined);
    await browser?.close();
    server?.saveExtensionLog(join(shots, 'attnscope-wasm.log'));
    await server?.stop();
  });

  it('runs a benchmark and its pool simulation through WebAssembly and says so', async () => {
    await openFile(page, 'e2e.attn.yaml', 'dtpye');
    await runCommand(page, 'AttnScope: Run attention benchmark');
    const toast = page.locator('.notification-toast', { hasText: /benchmark of llama-3\.1-8b · e2e\.attn\.yaml · quick finished: \d+ case/ }).first();
    await toast.waitFor({ timeout: 420_000 });
    assert.match((await toast.textContent()) ?? '', /Its kernels ran single-threaded in WebAssembly, not in the native addon: these timings are not the native kernels' speed\. Why: no native addon found/);
    const dir = join(ws, '.attnscope', 'runs');
    const runs = readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as RunResult);
    assert.equal(runs.length, 1);
    const run = runs[0]!;
    assert.equal(run.status, 'ok', run.error);
    const env = run.environment!;
    assert.equal(env.nativeBuild, 'wasm');
    // The package has no addon: the loader says it looked for one and found none.
    assert.match(env.nativeBuildReason ?? '', /no native addon found: .*\(tried .*attnscope_native\.node/);
    assert.equal(env.simd, 'simd128');
    assert.equal(env.threads, 1);
    const timed = run.cases.filter((c) => c.kernel !== 'reference');
    assert.ok(timed.length > 0 && timed.every((c) => c.simdPath === 'simd128'), 'timed cases on the simd128 path');
    // Every timed case passed the correctness check against the fp64 reference (bf16 inputs).
    assert.ok(timed.every((c) => c.maxAbsErr !== undefined && c.maxAbsErr < 1e-2), JSON.stringify(timed.map((c) => c.maxAbsErr)));
    assert.ok((run.pool?.samples.length ?? 0) > 100, 'the pool simulation ran');
    assert.equal(run.pool!.summary.completed + run.pool!.summary.rejected, 200);

    // The status item's tooltip names the build of the last run.
    await page.locator('.statusbar-item', { hasText: 'AttnScope' }).first().hover();
    await page.locator('.monaco-hover, .workbench-hover', { hasText: "Last run's CPU kernels: WebAssembly module" }).first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(shots, '10-wasm-tooltip.png') });

    // The dashboard, opened after the run, shows it: the machine line names the build, and a
    // warning line says what that means for its timings, and why (it was said only in the toast).
    await runCommand(page, 'AttnScope: Open dashboard');
    const frame = await dashboardFrame(page);
    await frame.waitForFunction(() => document.querySelector('#run-status')?.textContent === 'ok');
    assert.match((await frame.textContent('#run-environment')) ?? '', / · simd128 · WebAssembly, 1 thread · /);
    assert.equal(await frame.isVisible('#run-build'), true);
    assert.match((await frame.textContent('#run-build')) ?? '', /^Its kernels ran single-threaded in WebAssembly, not in the native addon: these timings are not the native kernels' speed\. Why: no native addon found: /);
    await page.screenshot({ path: join(shots, '11-wasm-dashboard.png') });
  });
});
