/**
 * Real VS Code for the end-to-end test: code-server 4.100.3 (VS Code 1.100.3, installed by
 * scripts/e2e-setup.sh into ~/.cache/attnscope-e2e) with a packaged .vsix (this platform's, or the universal one)
 * installed into a fresh user-data and extensions folder, driven through Debian Chromium.
 * Every missing piece is a thrown error naming the fix: the suite fails, never skips.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { afterEach } from 'node:test';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { tempDir } from '../fixtures/tmp';

export const root = join(__dirname, '..', '..');
export const shots = join(root, 'test-results', 'e2e');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CACHE = process.env.ATTNSCOPE_E2E_CACHE ?? join(process.env.HOME ?? tmpdir(), '.cache', 'attnscope-e2e');
export const CODE_SERVER = process.env.ATTNSCOPE_CODE_SERVER ?? join(CACHE, 'code-server-4.100.3', 'node_modules', 'code-server', 'out', 'node', 'entry.js');
/** This platform's package (scripts/package.mjs: attnscope-<platform>-<arch>.vsix). */
export const VSIX = process.env.ATTNSCOPE_VSIX ?? join(root, `attnscope-${process.platform}-${process.arch}.vsix`);

/** Throws unless code-server, Chromium, the .vsix and the bundles it must contain exist. */
export function checkPrerequisites(): void {
  const missing: string[] = [];
  if (!existsSync(CODE_SERVER)) missing.push(`code-server at ${CODE_SERVER} (run scripts/e2e-setup.sh)`);
  if (!existsSync(CHROMIUM)) missing.push(`Chromium at ${CHROMIUM} (apt-get install chromium, or scripts/e2e-setup.sh)`);
  if (!existsSync(VSIX)) missing.push(`${VSIX} (npm run package)`);
  for (const f of ['dist/extension.js', 'dist/server.js', 'dist/runner.js', 'dist/webview/main.js']) {
    if (!existsSync(join(root, f))) missing.push(`${f} (npm run build)`);
  }
  if (missing.length > 0) throw new Error(`e2e setup incomplete, missing:\n  ${missing.join('\n  ')}`);
}

/** The niceness of process `pid` (field 19 of /proc/PID/stat), or null when it cannot be read. */
export function niceOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  } catch {
    return null;
  }
}

/** A workspace in a temp folder: test/e2e/workspace, examples/llama-3.1-8b/config.json, and every shipped example under examples/. */
export function makeWorkspace(): string {
  const dir = tempDir('attnscope-e2e-ws-');
  cpSync(join(__dirname, 'workspace'), dir, { recursive: true });
  cpSync(join(root, 'examples', 'llama-3.1-8b'), join(dir, 'llama-3.1-8b'), { recursive: true });
  cpSync(join(root, 'examples'), join(dir, 'examples'), { recursive: true });
  return dir;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface CodeServer {
  url: string;
  /** code-server's process id (its extension hosts are its children). */
  pid: number;
  userDataDir: string;
  /** Copies the extension's log (the AttnScope output channel) to `dest`, when it exists. */
  saveExtensionLog(dest: string): void;
  /**
   * Resolves with the first line of the newest extension log (a window reload starts a new one)
   * that matches `pattern`; rejects after `timeoutMs`. The log service writes the file behind the
   * extension (a line logged before the page showed its effect was not in the file yet then).
   */
  extensionLogLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Rewrites User/settings.json and Machine/settings.json (the test then waits for settingsInForce). */
  writeSettings(settings: Record<string, unknown>): void;
  stop(): Promise<void>;
}

/**
 * Installs the .vsix (`vsix`, default this platform's VSIX) into fresh dirs and starts code-server on `port` (default a free
 * one). `settings` go to User/settings.json before start; `trust: false` keeps workspace trust on (the trust dialog appears);
 * `env`, added to this process's environment for code-server (its extension hosts and language servers inherit it).
 */
export async function startCodeServer(opts: { settings: Record<string, unknown>; trust: boolean; log: string; vsix?: string; port?: number; env?: Record<string, string> }): Promise<CodeServer> {
  const vsix = opts.vsix ?? VSIX;
  const base = tempDir('attnscope-e2e-vscode-');
  const userDataDir = join(base, 'user-data');
  const extensionsDir = join(base, 'extensions');
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  mkdirSync(join(userDataDir, 'Machine'), { recursive: true });
  const writeSettings = (settings: Record<string, unknown>): void => {
    const all = { 'workbench.startupEditor': 'none', 'security.workspace.trust.enabled': opts.trust, 'workbench.tips.enabled': false, 'telemetry.telemetryLevel': 'off', 'extensions.autoCheckUpdates': false, 'editor.inlayHints.enabled': 'on', ...settings };
    writeFileSync(join(userDataDir, 'User', 'settings.json'), JSON.stringify(all, null, 2));
    // code-server's extension host is "remote": machine-scoped settings (attnscope.runnerPath) apply from Machine/settings.json.
    writeFileSync(join(userDataDir, 'Machine', 'settings.json'), JSON.stringify(all, null, 2));
  };
  writeSettings(opts.settings);
  const runtimeDir = join(base, 'run');
  mkdirSync(runtimeDir, { mode: 0o700 });
  mkdirSync(join(base, 'tmp'));
  const dirs = ['--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];
  const install = spawnSync(process.execPath, [CODE_SERVER, ...dirs, '--install-extension', vsix], { encoding: 'utf8', timeout: 120_000 });
  if (install.status !== 0 || !/was successfully installed/.test(install.stdout + install.stderr)) {
    throw new Error(`code-server --install-extension ${vsix} failed (exit ${install.status}):\n${install.stdout}\n${install.stderr}`);
  }
  const port = opts.port ?? (await freePort());
  const child: ChildProcess = spawn(process.execPath, [CODE_SERVER, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', ...dirs], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    // Its sockets (vscode-ipc-*.sock, the git extension's vscode-git-*.sock) and temp files go
    // to XDG_RUNTIME_DIR and TMPDIR: inside `base`, removed with it, not left in /tmp.
    env: { ...process.env, ...opts.env, VSCODE_AGENT_FOLDER: join(base, 'agent'), XDG_RUNTIME_DIR: runtimeDir, TMPDIR: join(base, 'tmp') },
  });
  let output = '';
  const logFile = opts.log;
  mkdirSync(shots, { recursive: true });
  const append = (d: Buffer): void => {
    output += d.toString();
    writeFileSync(logFile, output);
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  await new Promise<void>((resolve, reject) => {
    const onData = (): void => {
      if (/HTTP server listening on/.test(output)) {
        child.stdout!.off('data', onData);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`code-server exited (${code}) before listening:\n${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    userDataDir,
    writeSettings,
    saveExtensionLog: (dest) => {
      const log = extensionLogPath(userDataDir);
      if (log) copyFileSync(log, dest);
    },
    extensionLogLine: async (pattern, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const log = extensionLogPath(userDataDir);
        const line = log ? readFileSync(log, 'utf8').split('\n').find((l) => pattern.test(l)) : undefined;
        if (line) return line;
        if (Date.now() > deadline) throw new Error(`no line matching ${pattern} in the extension log ${log ?? '(none yet)'} after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 250)); // the file has no event to wait on in this process but its change
      }
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      process.kill(-child.pid!, 'SIGTERM');
      const timer = setTimeout(() => child.exitCode === null && process.kill(-child.pid!, 'SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The newest AttnScope output-channel log under `userDataDir`'s logs (a reload starts a new one), or null. */
function extensionLogPath(userDataDir: string): string | null {
  const dir = join(userDataDir, 'logs');
  if (!existsSync(dir)) return null;
  const logs = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /AttnScope\.log$/.test(f));
  return logs.length > 0 ? join(dir, logs.sort().at(-1)!) : null;
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/**
 * Kept in the workbench page from its first script on (and again after every reload): the last
 * 100 focus moves of its document, `window.__attnscopeFocusLog`, as `<ms since page load> in|out
 * <element>[ -> <element>]` and `window blur`, for failureArtifacts. A string, not a function:
 * tsx's name helpers (__name) do not exist in the page.
 */
const FOCUS_LOG_SCRIPT = `(() => {
  const log = (window.__attnscopeFocusLog = []);
  const name = (el) => !el ? 'null' : el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + [...(el.classList ?? [])].slice(0, 4).map((c) => '.' + c).join('');
  const push = (line) => { log.push(performance.now().toFixed(0) + ' ' + line); if (log.length > 100) log.shift(); };
  document.addEventListener('focusin', (e) => push('in ' + name(e.target)), true);
  document.addEventListener('focusout', (e) => push('out ' + name(e.target) + ' -> ' + name(e.relatedTarget)), true);
  window.addEventListener('blur', () => push('window blur, active ' + name(document.activeElement)));
})()`;

/** Opens the workbench on `folder` (a `.code-workspace` file: that multi-root workspace) and waits for it. */
export async function openWorkbench(browser: Browser, server: CodeServer, folder: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  await page.addInitScript(FOCUS_LOG_SCRIPT);
  // A loaded CI machine took over 30 s (the default) to serve the workbench once.
  await page.goto(`${server.url}/?${folder.endsWith('.code-workspace') ? 'workspace' : 'folder'}=${encodeURIComponent(folder)}`, { timeout: 120_000 });
  await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
  return page;
}

/** Opens the quick input with `key` (F1, Control+P), retrying while the workbench is still taking focus. */
async function openQuickInput(page: Page, key: string) {
  const input = page.locator('.quick-input-widget input');
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press(key);
    try {
      await input.waitFor({ state: 'visible', timeout: 10_000 });
      return input;
    } catch (err) {
      if (attempt === 3) throw err;
      await page.keyboard.press('Escape');
    }
  }
}

/**
 * Resolves once the extension's log (the AttnScope output channel, opened with "AttnScope: Show
 * log") shows, for every `attnscope.*` key of `settings`, a last `setting attnscope.<key> = <JSON>`
 * line (extension/ctx.ts logSettings) with that value: the proof that a settings file changed on
 * disk reached the extension host before a test relies on it. Then hides the panel again.
 * Rejects after `timeoutMs` naming what the extension last logged.
 */
export async function settingsInForce(page: Page, settings: Record<string, unknown>, timeoutMs = 60_000): Promise<void> {
  const want = Object.entries(settings).filter(([k]) => k.startsWith('attnscope.')).map(([k, v]) => [k, JSON.stringify(v)] as const);
  await runCommand(page, 'AttnScope: Show log');
  const logged = (): Promise<Record<string, string>> =>
    page.evaluate(() => {
      const last: Record<string, string> = {};
      for (const line of document.querySelectorAll('.panel .view-line')) {
        const m = /setting (attnscope\.\w+) = (.*) \((?:at start|changed)\)/.exec((line.textContent ?? '').replace(/\u00a0/g, ' '));
        if (m) last[m[1]!] = m[2]!;
      }
      return last;
    });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const last = await logged();
    if (want.every(([k, v]) => last[k] === v)) break;
    if (Date.now() > deadline) throw new Error(`settings not in force after ${timeoutMs} ms: want ${JSON.stringify(Object.fromEntries(want))}, the extension last logged ${JSON.stringify(last)}`);
    await page.waitForTimeout(250); // the output view has no event to wait on but its redraw
  }
  await runCommand(page, 'View: Hide Panel').catch(() => page.keyboard.press('Escape'));
  // The command moves focus when it runs, after the palette has closed: a Quick Open opened before
  // then closes under the next step (seen in CI as "element is not visible" on its input).
  await page.locator('.part.panel').waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => undefined);
}

/**
 * Runs a command by its palette title (F1, type, Enter on the matching row). The palette filters
 * the commands it knew when the text was typed and does not filter again as more register: a
 * palette opened before the extension's commands reached the workbench (s34, a two-folder
 * workspace at load 29) never listed them. So with no matching row, it is closed and opened again.
 */
export async function runCommand(page: Page, title: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const input = await openQuickInput(page, 'F1');
    try {
      // Inside the retry: the palette can close right after it opened, under a focus move of the
      // command before (View: Hide Panel in settingsInForce; s36: 2 of 6 two-folder runs failed
      // here on "element is not visible" after 30 s).
      await input.fill(`>${title}`, { timeout: 10_000 });
      await page.locator('.quick-input-list .monaco-list-row.focused', { hasText: title }).first().waitFor({ timeout: attempt === 1 ? 15_000 : 30_000 });
      break;
    } catch (err) {
      if (attempt === 3) throw err;
      await page.keyboard.press('Escape');
    }
  }
  await page.keyboard.press('Enter');
}

/**
 * Opens a file through Quick Open and waits until its editor is the active one: `relPath`, a path
 * in the workspace or an absolute one. The row Enter opens and the editor waited for are the
 * file's own, not one of the same name: with two files of one name (a two-folder workspace's
 * e2e.attn.yaml), Quick Open first lists the one opened before as "recently opened", focused,
 * for any query, and the file itself seconds later, from its file search; Enter on that first row
 * opened the other file, whose editor passed a wait on the tab's name (s35 CI: the Run step
 * benchmarked alpha's profile, saved in alpha). For an absolute path, the row waited for is the one
 * with its folder's file-icon class (VS Code's getIconClasses: `<folder name>-name-dir-icon`, lower
 * case), and the editor the one whose tab label is that path.
 */
export async function openFile(page: Page, relPath: string, expectText: string): Promise<void> {
  const name = relPath.split('/').at(-1)!;
  const absolute = isAbsolute(relPath);
  const row = `.quick-input-list .monaco-list-row.focused[aria-label^="${name}"]${absolute ? `:has([class~="${basename(dirname(relPath)).toLowerCase()}-name-dir-icon"])` : ''}`;
  for (let attempt = 1; ; attempt++) {
    const input = await openQuickInput(page, 'Control+P');
    try {
      await input.fill(relPath, { timeout: 10_000 });
      // Enter only once the focused row is the file: right after typing it can still be "recently opened".
      await page.locator(row).first().waitFor({ timeout: 30_000 });
      break;
    } catch (err) {
      // Quick Open closes when focus moves (a command still finishing): open it again.
      if (attempt === 3) throw err;
    }
  }
  await page.keyboard.press('Enter');
  // The tab's label names the file's path (its aria-label): the file itself, not one of its name.
  // A file with problems has them after the path ("/ws/e2e.attn.yaml • 1 problem in this file").
  const path = absolute ? relPath : `/${relPath}`;
  const labels = absolute ? [`[aria-label="${path}"]`, `[aria-label^="${path} •"]`] : [`[aria-label$="${path}"]`, `[aria-label*="${path} •"]`];
  await page.locator(labels.map((l) => `.editor-group-container.active .tab.active .monaco-icon-label${l}`).join(', ')).first().waitFor({ timeout: 30_000 });
  await page.locator('.editor-group-container.active .monaco-editor .view-lines', { hasText: expectText }).first().waitFor({ timeout: 30_000 });
}

/**
 * Opens `name`, a file at the workspace's top level written after the workbench started, from the
 * Explorer and waits until its editor is the active one. Not through Quick Open: its file search
 * keeps the list it made when first used, and a file written since was "No matching results"
 * (seen twice in a row on a clean clone, and again by hand in code-server 4.100.3); the Explorer
 * shows it from the file watcher.
 */
export async function openNewFile(page: Page, name: string, expectText: string): Promise<void> {
  await page.locator(`.explorer-folders-view .monaco-list-row[aria-label="${name}"]`).first().click({ timeout: 60_000 });
  await page.locator('.editor-group-container.active .tab.active', { hasText: name }).first().waitFor({ timeout: 30_000 });
  await page.locator('.editor-group-container.active .monaco-editor .view-lines', { hasText: expectText }).first().waitFor({ timeout: 30_000 });
}

/**
 * Does what the dashboard webview's iframe does when VS Code's deferred `focus` message reaches it
 * (webview/browser/pre/index.html: `activeFrame.contentWindow.focus()`; extension/pick.ts says
 * when that comes late), and resolves once the workbench's focus tracking has seen it: the focus
 * is in the webview's iframe, and a task queued after the blur's (VS Code's trackFocus reports a
 * blur from a setTimeout 0) has run.
 */
export async function webviewTakesFocus(page: Page): Promise<void> {
  const outer = (await dashboardFrame(page)).parentFrame();
  if (!outer) throw new Error('the dashboard frame has no parent (the webview iframe)');
  await outer.evaluate(() => (document.querySelector('iframe#active-frame') as HTMLIFrameElement | null)?.contentWindow?.focus());
  await page.waitForFunction(() => document.activeElement?.tagName === 'IFRAME', undefined, { timeout: 10_000 });
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
}

/** The dashboard webview's content frame, once its page is loaded. */
export async function dashboardFrame(page: Page, timeout = 60_000): Promise<Frame> {
  const deadline = Date.now() + timeout;
  for (;;) {
    for (const f of page.frames()) {
      if (await f.$('#chart-timings').catch(() => null)) return f;
    }
    if (Date.now() > deadline) throw new Error('the AttnScope dashboard webview did not appear');
    await page.waitForEvent('frameattached', { timeout: Math.max(1, Math.min(2000, deadline - Date.now())) }).catch(() => undefined);
  }
}

/**
 * Registers, in the calling describe, an afterEach that keeps what a failed step saw: under
 * test-results/e2e/failures/<step>/ the screenshot (screenshot.png), the workbench's DOM
 * (page.html) and each frame's that has a body (frame-<n>.html: the webviews), and state.txt: the
 * focused element, the quick input (visible, title, value, rows), the notification toasts, the
 * editor tabs and the page's last focus moves (FOCUS_LOG_SCRIPT). state.txt is also printed, with
 * the folder, so a CI log carries it. `page()` is the page of the describe (undefined before it
 * opened). Nothing is saved for a passed step.
 */
export function failureArtifacts(page: () => Page | undefined): void {
  afterEach(async (t) => {
    const p = page();
    // TestContext.passed: Node 20.12+ (CI's 20.20), missing from @types/node 20's TestContext.
    if ((t as { passed?: boolean }).passed !== false || !p || p.isClosed()) return;
    const dir = join(shots, 'failures', t.name.replace(/[^\w.-]+/g, '-').slice(0, 80));
    mkdirSync(dir, { recursive: true });
    await p.screenshot({ path: join(dir, 'screenshot.png') }).catch(() => undefined);
    writeFileSync(join(dir, 'page.html'), await p.content().catch((err: Error) => `page.content failed: ${err.message}`));
    let n = 0;
    for (const f of p.frames().slice(1)) {
      const html = await f.content().catch(() => '');
      if (html.includes('<body')) writeFileSync(join(dir, `frame-${++n}.html`), `<!-- ${f.url()} -->\n${html}`);
    }
    const state = await p
      .evaluate(`(() => {
        const text = (el) => (el?.innerText ?? '').replace(/\\s+/g, ' ').trim();
        const visible = (el) => !!el && el.offsetParent !== null;
        const active = document.activeElement;
        const quick = document.querySelector('.quick-input-widget');
        const lines = [
          'focused: ' + (active ? active.tagName.toLowerCase() + '.' + [...active.classList].join('.') : 'none') + (document.hasFocus() ? '' : ' (the page has no focus)'),
          'quick input: ' + (visible(quick) ? 'visible, title "' + text(quick.querySelector('.quick-input-title')) + '", value "' + (quick.querySelector('input')?.value ?? '') + '"' : 'hidden'),
          ...[...document.querySelectorAll('.quick-input-list .monaco-list-row')].filter(visible).map((r) => '  row: ' + text(r)),
          ...[...document.querySelectorAll('.notification-toast')].map((n) => 'toast: ' + text(n)),
          ...[...document.querySelectorAll('.editor-group-container')].map((g, i) => 'group ' + (i + 1) + (g.classList.contains('active') ? ' (active)' : '') + ': ' + [...g.querySelectorAll('.tab')].map((tab) => text(tab.querySelector('.label-name') ?? tab) + (tab.classList.contains('active') ? '*' : '')).join(', ')),
          'focus moves (ms since page load):',
          ...(window.__attnscopeFocusLog ?? []).map((l) => '  ' + l),
        ];
        return lines.join('\\n');
      })()`)
      .catch((err: Error) => `page state unreadable: ${err.message}`);
    writeFileSync(join(dir, 'state.txt'), `${String(state)}\n`);
    console.log(`[e2e] step failed: "${t.name}"; screenshot, DOM and state in ${dir}\n${String(state)}`);
  });
}
