/**
 * End to end in a real VS Code (code-server 4.100.3) with the packaged .vsix installed:
 * hints and a planted diagnostic on a real config and profile, "AttnScope: Run attention
 * benchmark" from the command palette in quick mode with the bundled runner, the dashboard
 * drawing the run and surviving a reload, cancel of a real run through the progress
 * notification, a crashing runner (a fake one, via attnscope.runnerPath) reported with
 * its log (saved when it had a case, not when it crashed before its first), a 2-point sweep run
 * from its code lens into the Sweep view, and an untrusted workspace refusing runs while hints still work.
 * Run by `npm run test:e2e` (scripts/e2e-run.mjs), not by `npm test`. Screenshots and the
 * code-server logs go to test-results/e2e/; a failed step's screenshot, DOM and state to
 * test-results/e2e/failures/<step>/ (harness.ts failureArtifacts).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { RunResult } from '../../core/protocol/run';
import type { RunnerProgressEvent } from '../../core/protocol/runner';
import { sweepProgressMessage } from '../../extension/sweepMessages';
import { tempDir } from '../fixtures/tmp';
import { checkPrerequisites, dashboardFrame, failureArtifacts, launchChromium, makeWorkspace, niceOf, openFile, openNewFile, openWorkbench, runCommand, settingsInForce, shots, startCodeServer, webviewTakesFocus, type CodeServer } from './harness';

const FAKE_RUNNER = join(__dirname, '..', 'fixtures', 'fake-runner.mjs');

/** A runner script that runs the fake runner in `mode` (runnerPath takes a path, not an env). */
function fakeRunner(dir: string, mode: string): string {
  const file = join(dir, `fake-runner-${mode}.mjs`);
  writeFileSync(file, `process.env.FAKE_RUNNER_MODE = ${JSON.stringify(mode)};\nawait import(${JSON.stringify(FAKE_RUNNER)});\n`);
  return file;
}

/**
 * A runner script that runs the bundled dist/runner.js as its child (with no CUDA device visible,
 * so a CUDA run is refused on any machine), passes its stdout through
 * and appends two times (Date.now(), ms) to `timeLog`: `done T` when the runner's `done` event
 * line went to the extension, `exit T` when the runner process exited; and `progress T <event>`
 * for each progress event line. The clock the page's times are compared against (same machine,
 * same clock).
 */
function timedRunner(dir: string, timeLog: string): string {
  const file = join(dir, 'timed-runner.mjs');
  writeFileSync(file, [
    "import { spawn } from 'node:child_process';",
    "import { appendFileSync } from 'node:fs';",
    "import { createInterface } from 'node:readline';",
    `const child = spawn(process.execPath, [${JSON.stringify(join(__dirname, '..', '..', 'dist', 'runner.js'))}, ...process.argv.slice(2)], { stdio: ['inherit', 'pipe', 'inherit'], env: { ...process.env, CUDA_VISIBLE_DEVICES: '' } });`,
    "for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => child.kill(sig));",
    'const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });',
    `lines.on('line', (line) => { process.stdout.write(line + '\\n'); if (line.startsWith('{"type":"done"')) appendFileSync(${JSON.stringify(timeLog)}, 'done ' + Date.now() + '\\n'); if (line.startsWith('{"type":"progress"')) appendFileSync(${JSON.stringify(timeLog)}, 'progress ' + Date.now() + ' ' + line + '\\n'); });`,
    "const closed = new Promise((r) => lines.on('close', r));",
    // process.exit() would drop stdout writes still queued for a pipe the editor reads slowly (a
    // 314 kB done line arrived cut in CI); setting exitCode lets Node exit once they are flushed.
    `child.on('exit', async (code, signal) => { appendFileSync(${JSON.stringify(timeLog)}, 'exit ' + Date.now() + '\\n'); await closed; process.exitCode = code ?? (signal ? 1 : 0); });`,
    '',
  ].join('\n'));
  return file;
}

/**
 * A runner script that installs a SIGUSR1 handler, says so on stderr (the extension logs it:
 * `[runner] gated-runner: pid <pid> waits for SIGUSR1`), waits for that signal, then runs the fake
 * runner in `mode`: a run started from the editor whose result the test lets go when it chooses.
 */
function gatedRunner(dir: string, mode: string): string {
  const file = join(dir, `gated-runner-${mode}.mjs`);
  writeFileSync(file, [
    // A signal handler alone does not keep Node running: the timer does, until the signal.
    'const alive = setInterval(() => undefined, 1 << 30);',
    "await new Promise((resolve) => { process.once('SIGUSR1', resolve); process.stderr.write(`gated-runner: pid ${process.pid} waits for SIGUSR1\\n`); });",
    'clearInterval(alive);',
    `process.env.FAKE_RUNNER_MODE = ${JSON.stringify(mode)};`,
    `await import(${JSON.stringify(FAKE_RUNNER)});`,
    '',
  ].join('\n'));
  return file;
}

/** The extension's record of the run the dashboard shows, for the next extension host (extension/shownRun.ts: `dashboard.json` in its workspace storage). */
function shownRunRecord(userDataDir: string): { shownRunId: string | null } {
  // The newest: a workspace can have more than one storage folder (VS Code adds "-2" and so on).
  const files = readdirSync(userDataDir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith(join('attnscope.attnscope', 'dashboard.json')))
    .map((f) => join(userDataDir, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  assert.ok(files.length > 0, 'the extension recorded what the dashboard shows');
  return JSON.parse(readFileSync(files[0]!, 'utf8')) as { shownRunId: string | null };
}

/** The first `done` and `exit` times timedRunner logged. */
function runnerTimes(timeLog: string): { doneAt: number; exitedAt: number } {
  const lines = readFileSync(timeLog, 'utf8').trim().split('\n');
  const first = (kind: string): number => Number(lines.find((l) => l.startsWith(`${kind} `))?.slice(kind.length + 1));
  return { doneAt: first('done'), exitedAt: first('exit') };
}

/** The progress events timedRunner logged from `since` on (Date.now(), ms), with when each went to the extension. */
function progressLines(timeLog: string, since: number): Array<{ at: number; event: RunnerProgressEvent }> {
  return readFileSync(timeLog, 'utf8').split('\n').filter((l) => l.startsWith('progress ')).map((l) => {
    const rest = l.slice('progress '.length);
    const space = rest.indexOf(' ');
    return { at: Number(rest.slice(0, space)), event: JSON.parse(rest.slice(space + 1)) as RunnerProgressEvent };
  }).filter((p) => p.at >= since);
}

/** One task of a Chromium renderer's main thread: start (Date.now() clock), wall and CPU (thread) time, ms. */
interface RendererTask {
  at: number;
  wallMs: number;
  cpuMs: number;
}

/** Trace categories whose `RunTask` events carry each main-thread task's wall (`dur`) and thread CPU (`tdur`) time, µs. */
const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline'];
const SYNC_LABEL = 'attnscope-e2e-clock';

/**
 * Starts a Chromium trace and ties its clock to Date.now(): the page stamps SYNC_LABEL with
 * console.timeStamp at a Date.now() it returns (the trace's `TimeStamp` event carries the
 * trace clock of the same moment).
 */
async function startRendererTrace(browser: Browser, page: Page): Promise<number> {
  await browser.startTracing(page, { categories: TRACE_CATEGORIES });
  return page.evaluate((label) => {
    const at = Date.now();
    console.timeStamp(label);
    return at;
  }, SYNC_LABEL);
}

/**
 * The tasks over 50 ms (the Long Tasks API's threshold) of every renderer main thread
 * (CrRendererMain: the workbench page and the webviews, in its process or their own) in the
 * trace, on the Date.now() clock. Their CPU time (`tdur`) is what the renderer itself did: a
 * task the OS took the CPU from is longer in wall time but not in CPU time, so a bound on it
 * does not depend on what else the machine runs.
 */
function rendererTasks(trace: Buffer, syncAt: number): RendererTask[] {
  const events = (JSON.parse(trace.toString('utf8')) as { traceEvents: Array<{ name: string; ph: string; pid: number; tid: number; ts: number; dur?: number; tdur?: number; args?: { name?: string; data?: { message?: string } } }> }).traceEvents;
  const mains = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const sync = events.find((e) => e.name === 'TimeStamp' && e.args?.data?.message === SYNC_LABEL);
  assert.ok(sync, 'the trace has the clock stamp');
  assert.ok(mains.size > 0, 'the trace names the renderer main threads');
  const toDate = (ts: number): number => Math.round(syncAt + (ts - sync.ts) / 1000);
  return events
    .filter((e) => e.ph === 'X' && e.name === 'RunTask' && mains.has(`${e.pid}:${e.tid}`) && (e.dur ?? 0) >= 50_000)
    .map((e) => ({ at: toDate(e.ts), wallMs: Math.round(e.dur! / 1000), cpuMs: Math.round((e.tdur ?? e.dur!) / 1000) }));
}

/** Run-queue delay (ns: time runnable but waiting for a CPU) of thread `tid` of `pid`: /proc/PID/task/TID/schedstat, second field. */
function runQueueDelayNs(pid: number, tid = pid): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]);
  } catch {
    return 0;
  }
}

/** Process ids under `root` (itself included), from /proc/PID/stat's parent field. */
function processTree(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // the process ended while the list was read
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of parent) if (ppid === out[i]) out.push(pid);
  return out;
}

/** Processes of the two trees that the finish does not pass through: the runner, the language server, code-server's pty host and file watcher, Chromium's GPU process and zygotes. */
const OFF_PATH = /runner|dist\/server\.js|ptyHost|fileWatcher|watcherService|--type=(gpu-process|zygote|utility --utility-sub-type=(?!network))/;

/** The command line of `pid`, arguments joined by spaces ('' when it cannot be read). */
function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/**
 * Polls, every 20 ms from now until stopped, the run-queue delay of the main threads of the
 * processes the finish passes through: code-server's (its server, the extension host) and the
 * browser's (Chromium's browser, network service and renderers, this test's children), not
 * those OFF_PATH names. A sum over processes: where several wait at once it counts each. The series is
 * cumulative, each process counted by its growth between polls (a process that exits, such as
 * the runner, takes its total with it: its last reading stays counted). A sample is
 * [Date.now(), ns]; delayBetween(a, b) interpolates the growth over [a, b].
 */
function watchRunQueue(codeServerPid: number): { stop(): void; delayBetween(a: number, b: number): number } {
  const samples: Array<[number, number]> = [];
  const last = new Map<number, number>();
  let total = 0;
  const onPath = (): number[] => [...processTree(codeServerPid), ...processTree(process.pid)].filter((pid) => pid !== process.pid && !OFF_PATH.test(cmdline(pid)));
  let pids = onPath();
  let polls = 0;
  const poll = (): void => {
    if (++polls % 50 === 0) pids = onPath();
    for (const pid of pids) {
      const ns = runQueueDelayNs(pid);
      if (ns === 0) continue;
      const before = last.get(pid);
      if (before !== undefined && ns > before) total += ns - before;
      last.set(pid, ns);
    }
    samples.push([Date.now(), total]);
  };
  poll();
  const timer = setInterval(poll, 20);
  const at = (t: number): number => {
    const i = samples.findIndex(([ts]) => ts >= t);
    if (i <= 0) return samples[i === -1 ? samples.length - 1 : 0]![1];
    const [[t0, v0], [t1, v1]] = [samples[i - 1]!, samples[i]!];
    return v0 + ((v1 - v0) * (t - t0)) / Math.max(1, t1 - t0);
  };
  return { stop: () => clearInterval(timer), delayBetween: (a, b) => Math.max(0, (at(b) - at(a)) / 1e6) };
}

function savedRuns(ws: string): RunResult[] {
  const dir = join(ws, '.attnscope', 'runs');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as RunResult);
}

/** Every string value the workbench last wrote to its IndexedDB state stores (ItemTable of each `vscode-web-state-db-*`). */
async function workbenchStateValues(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const found: string[] = [];
    for (const { name } of await indexedDB.databases()) {
      if (!name?.startsWith('vscode-web-state-db-')) continue;
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open(name);
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      if (db.objectStoreNames.contains('ItemTable')) {
        const values = await new Promise<unknown[]>((resolve, reject) => {
          const all = db.transaction('ItemTable', 'readonly').objectStore('ItemTable').getAll();
          all.onsuccess = () => resolve(all.result);
          all.onerror = () => reject(all.error);
        });
        for (const v of values) if (typeof v === 'string') found.push(v);
      }
      db.close();
    }
    return found;
  });
}

/**
 * The run status in the dashboard state the workbench last wrote to its IndexedDB (the editor
 * layout, with each webview's setState state): 'running', 'ok', ..., or 'none' when no dashboard
 * state is stored. What a reload restores into the page before the extension sends anything.
 */
async function workbenchSavedStatus(page: Page): Promise<string> {
  // The page's state is JSON inside the serialized editor input inside the layout's JSON: quotes come escaped.
  const found = (await workbenchStateValues(page)).filter((v) => v.includes('attnscope.dashboard')).flatMap((v) => [...v.matchAll(/current\\*":\{\\*"id\\*":[^]*?status\\*":\\*"(\w+)/g)].map((m) => m[1]!));
  return found.join(',') || 'none';
}

/**
 * Waits until the editor layout the workbench last wrote to its IndexedDB (the value holding the
 * editor part's `serializedGrid`) holds an AttnScope dashboard. A browser reload restores that
 * layout: the workbench writes it every 5 s, and a write during the page's unload may not finish,
 * so a reload soon after the dashboard opened can restore a layout without it (a clean-clone CI
 * run, session 35: empty editor area after the reload). Polls the store, the only signal there is.
 */
async function dashboardInSavedLayout(page: Page, timeout = 30_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await workbenchStateValues(page)).some((v) => v.includes('serializedGrid') && v.includes('attnscope.dashboard'))) {
    if (Date.now() > deadline) throw new Error(`the workbench's saved editor layout held no AttnScope dashboard after ${timeout} ms`);
    await page.waitForTimeout(250);
  }
}

async function notification(page: Page, text: string | RegExp, timeout = 120_000) {
  const toast = page.locator('.notification-toast', { hasText: text }).first();
  await toast.waitFor({ timeout });
  return toast;
}

// The timeout is a hang guard, not a speed target: the 18 steps took 535 s at load 21 and went
// past 600 s at load 28 (s34), one step short of the end (scripts/test.mjs bounds the file at 120 min).
describe('AttnScope in code-server', { timeout: 1_200_000 }, () => {
  let browser: Browser;
  let server: CodeServer;
  let page: Page;
  let ws: string;
  let exitLog: string;
  let settings: Record<string, unknown>;

  before(async () => {
    checkPrerequisites();
    mkdirSync(shots, { recursive: true });
    ws = makeWorkspace();
    exitLog = join(ws, 'runner-exits.log');
    settings = { 'attnscope.quickMode': true, 'attnscope.runnerPath': timedRunner(ws, exitLog) };
    server = await startCodeServer({ settings, trust: false, log: join(shots, 'code-server.log') });
    browser = await launchChromium();
    page = await openWorkbench(browser, server, ws);
  });
  failureArtifacts(() => page);

  after(async () => {
    if (page) await page.screenshot({ path: join(shots, 'last.png') }).catch(() => undefined);
    await browser?.close();
    server?.saveExtensionLog(join(shots, 'attnscope.log'));
    await server?.stop();
  });

  it('shows inlay hints on a real config.json', async () => {
    await openFile(page, 'llama-3.1-8b/config.json', 'num_key_value_heads');
    await settingsInForce(page, settings); // the extension is active, with quick mode and the timed runner
    // Llama-3.1-8B: 2 (K,V) · 8 KV heads · head_dim 128 · 2 bytes (bf16) · 32 layers = 131072 B = 128 KiB per token.
    await page.locator('.editor-group-container.active .monaco-editor .view-lines', { hasText: '128 KiB KV/token' }).first().waitFor({ timeout: 60_000 });
    await page.screenshot({ path: join(shots, '01-config-hints.png') });
  });

  it('shows every hint of the shipped examples uncut (VS Code cuts labels over 43 characters with "…")', async () => {
    const files = readdirSync(join(ws, 'examples'), { recursive: true, encoding: 'utf8' }).filter((n) => /(\.attn\.(ya?ml|json)|config\.json)$/.test(n)).sort();
    assert.ok(files.length >= 6, files.join(', '));
    for (const name of files) {
      await openFile(page, `examples/${name}`, name.endsWith('config.json') ? 'model_type' : 'model');
      const lines = page.locator('.editor-group-container.active .monaco-editor .view-lines').first();
      // Every example has a KV-per-token figure (on num_key_value_heads, or on a profile's model line).
      await page.locator('.editor-group-container.active .monaco-editor .view-lines', { hasText: /KV\/token/ }).first().waitFor({ timeout: 60_000 });
      assert.ok(!((await lines.textContent()) ?? '').includes('…'), `a hint of examples/${name} is cut: ${await lines.textContent()}`);
    }
    await page.screenshot({ path: join(shots, '01b-example-hints.png') });
  });

  it('a JSON profile shows each error once, the language server\'s: no "Unable to load schema", no second problem from VS Code\'s JSON schema check (s52 newcomer-ed 2)', async () => {
    // The shipped JSON example carries no $schema path (one relative to the repository broke once
    // the file was copied: "Unable to load schema"). The extension contributes no schema to VS
    // Code's JSON service (it reported each error beside ours, "Value is not accepted. Valid values:
    // ..." for a dtype, a wrong "Value must be "exponential"." for a dist): a copy with a dtype
    // no enum allows shows our problem alone.
    const bad = readFileSync(join(ws, 'examples', 'qwen3-30b-a3b.attn.json'), 'utf8').replace('"model": "./qwen3-30b-a3b/config.json"', '"model": "./examples/qwen3-30b-a3b/config.json"').replace('"dtype": "bf16"', '"dtype": "bf17"');
    assert.match(bad, /"dtype": "bf17"/);
    writeFileSync(join(ws, 'schema-check.attn.json'), bad);
    await openFile(page, 'examples/qwen3-30b-a3b.attn.json', 'model');
    await openNewFile(page, 'schema-check.attn.json', 'bf17');
    await page.keyboard.press('Control+Shift+M');
    // The language server's message (core/config: "dtype must be one of fp32, fp16, bf16, not the string "bf17": did you mean "bf16"?").
    await page.locator('.markers-panel', { hasText: 'did you mean "bf16"' }).first().waitFor({ timeout: 60_000 });
    const markers = (await page.locator('.markers-panel').first().textContent()) ?? '';
    assert.doesNotMatch(markers, /Unable to load schema/);
    assert.doesNotMatch(markers, /Value is not accepted/);
    await page.screenshot({ path: join(shots, '01c-json-schema.png') });
    await runCommand(page, 'View: Hide Panel');
  });

  it('shows hints and the planted diagnostic on a profile', async () => {
    await openFile(page, 'e2e.attn.yaml', 'dtpye');
    // page 16 tokens · 128 KiB/token = 2 MiB per page (all layers): the page hint's "T tokens · P × 2 MiB".
    await page.locator('.editor-group-container.active .monaco-editor .view-lines', { hasText: '× 2 MiB' }).first().waitFor({ timeout: 60_000 });
    await page.locator('.editor-group-container.active .squiggly-warning').first().waitFor({ timeout: 30_000 });
    await page.keyboard.press('Control+Shift+M');
    await page.locator('.markers-panel', { hasText: 'did you mean "dtype"' }).first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(shots, '02-profile-hints-diagnostic.png') });
  });

  it('a pipeline-parallel profile whose weights do not fit: a warning (no error) naming the tp and pp that fit, the stage in the hints, and a quick fix that writes tensor_parallel_size (s38 newcomer-ed 4)', async () => {
    // Llama-3.1-8B bf16: a layer 4096 · (32 + 16) · 128 + 32 · 128 · 4096 + 3 · 4096 · 14,336 + 2 · 4096 =
    // 218,112,000 parameters, the embedding = lm_head 128,256 · 4096 = 525,336,576. pp 2 on 7 GiB (× 0.90 =
    // 6.30 GiB): stage 2, 16 layers + lm_head + the 4096 final norm = 4,015,132,672 parameters = 7.48 GiB.
    // tp 2 halves it (3.74 GiB with the norms it replicates); pp 3 ([11, 11, 10]): stage 1, 11 layers + embedding = 2,924,568,576 = 5.45 GiB.
    writeFileSync(join(ws, 'pp-fit.attn.yaml'), 'model: ./llama-3.1-8b/config.json\ndtype: bf16\ndevice:\n  memory_gib: 7\n  pipeline_parallel_size: 2\n');
    await openNewFile(page, 'pp-fit.attn.yaml', 'pipeline_parallel_size');
    const editor = '.editor-group-container.active .monaco-editor';
    // A string, not a RegExp: the hint's spaces are drawn as no-break spaces, which only a string match normalizes.
    // The model line's pair (weights and KV per token, one GPU's: 16 layers · 2 · 8 · 128 · 2 B = 64 KiB); the stage it is of
    // is the hint's next part, in its tooltip where the label has no room, and in the budget hint below.
    await page.locator(`${editor} .view-lines`, { hasText: '7.48 GiB weights/GPU, 64 KiB KV/token/GPU' }).first().waitFor({ timeout: 60_000 });
    await page.locator(`${editor} .squiggly-warning`).first().waitFor({ timeout: 30_000 });
    assert.equal(await page.locator(`${editor} .squiggly-error`).count(), 0);
    await page.keyboard.press('Control+Shift+M');
    const message = 'exceed 7 GiB × 0.90 = 6.3 GiB: raise device.tensor_parallel_size (2 fits), device.pipeline_parallel_size (3 fits) or memory_gib';
    await page.locator('.markers-panel', { hasText: message }).first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(shots, '02b-pp-weights-warning.png') });
    // The diagnostic is on memory_gib's value (line 4, column 15): Ctrl+. there offers both sizes.
    await page.locator(`${editor} .view-lines`).first().click();
    await page.keyboard.press('Control+G');
    await page.keyboard.type('4:15');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Control+.');
    await page.locator('.action-widget .monaco-list-row', { hasText: 'Set pipeline_parallel_size to 3' }).first().waitFor({ timeout: 30_000 });
    // The first fix is focused; a click is taken by the widget's pointer block, Enter applies it.
    await page.locator('.action-widget .monaco-list-row.focused[aria-label="Set tensor_parallel_size to 2"]').first().waitFor({ timeout: 30_000 });
    await page.keyboard.press('Enter');
    await page.locator(`${editor} .view-lines`, { hasText: 'tensor_parallel_size: 2' }).first().waitFor({ timeout: 30_000 });
    await page.locator(`${editor} .view-lines`, { hasText: '3.74 GiB weights/GPU, 32 KiB KV/token/GPU' }).first().waitFor({ timeout: 60_000 });
    await page.locator(`${editor} .view-lines`, { hasText: 'KV budget/GPU · stage 2 of 2' }).first().waitFor({ timeout: 60_000 });
    await page.locator('.markers-panel', { hasText: message }).waitFor({ state: 'detached', timeout: 30_000 });
    await page.screenshot({ path: join(shots, '02c-pp-weights-fixed.png') });
    await runCommand(page, 'View: Hide Panel');
    await runCommand(page, 'File: Revert File');
  });

  it('runs the benchmark from the command palette (quick mode) and draws the dashboard without stalling the workbench', async () => {
    // The dashboard open beside the profile first (its load is not the subject), then the run, watched from its start.
    await openFile(page, 'e2e.attn.yaml', 'dtpye');
    await runCommand(page, 'AttnScope: Open dashboard');
    const frame = await dashboardFrame(page);
    await runCommand(page, 'View: Focus First Editor Group');
    await page.locator('.editor-group-container.active .tab.active', { hasText: 'e2e.attn.yaml' }).first().waitFor({ timeout: 30_000 });
    // The moment the dashboard shows the run finished, stamped by the page itself.
    await frame.evaluate(() => {
      const w = window as unknown as { __finishedAt?: number; __resultArrivedAt?: number; __messages?: Array<{ type: string; at: number; bytes: number }> };
      // In the capture phase: at the window (the message's target) it runs before the page's own
      // listener, so it stamps the message's arrival, not the end of the page's handling of it.
      window.addEventListener('message', (e: MessageEvent<{ type?: string }>) => {
        if (e.data?.type === 'runFinished') w.__resultArrivedAt = Date.now();
        // Every message's arrival and size (its JSON's length, characters): what the relay carried.
        (w.__messages ??= []).push({ type: e.data?.type ?? '?', at: Date.now(), bytes: JSON.stringify(e.data).length });
      }, { capture: true });
      const status = document.querySelector('#run-status')!;
      new MutationObserver(() => {
        if (status.textContent === 'ok') w.__finishedAt ??= Date.now();
      }).observe(status, { childList: true, characterData: true, subtree: true });
    });
    const syncAt = await startRendererTrace(browser, page);
    const runQueue = watchRunQueue(server.pid);
    let trace: Buffer;
    try {
      await runCommand(page, 'AttnScope: Run attention benchmark');
      await notification(page, 'AttnScope: benchmarking llama-3.1-8b · e2e.attn.yaml · quick', 60_000);
      await page.screenshot({ path: join(shots, '03-running.png') });
      await notification(page, /benchmark of llama-3\.1-8b · e2e\.attn\.yaml · quick finished: \d+ case/, 300_000);
      await frame.waitForFunction(() => document.querySelector('#run-status')?.textContent === 'ok');
      // The last work of a finished run: the history list re-read and drawn with this run.
      await frame.waitForSelector('table.table-history[data-rows="1"]', { state: 'attached' });
    } finally {
      runQueue.stop();
      trace = await browser.stopTracing();
    }
    const historyAt = Date.now();
    const { finishedAt, arrivedAt, msgs } = await frame.evaluate(() => {
      const w = window as unknown as { __finishedAt?: number; __resultArrivedAt?: number; __messages?: Array<{ type: string; at: number; bytes: number }> };
      return { finishedAt: w.__finishedAt, arrivedAt: w.__resultArrivedAt, msgs: w.__messages ?? [] };
    });
    const { doneAt, exitedAt } = runnerTimes(exitLog);
    // The extension host's leg: its log line written when it sent the result (extension/benchmark.ts), local time to the ms.
    const sentLine = await server.extensionLogLine(/ run llama-3\.1-8b · e2e\.attn\.yaml · quick: result sent to the dashboard$/);
    const sentAt = new Date(sentLine.slice(0, 23).replace(' ', 'T')).getTime();
    assert.ok(finishedAt !== undefined && arrivedAt !== undefined && doneAt > 0 && exitedAt > 0 && Number.isFinite(sentAt), 'every end of the finish latency was recorded');
    const run0 = savedRuns(ws)[0]!;
    assert.ok((run0.pool?.samples.length ?? 0) > 500, 'the run streamed a pool simulation (the load under test)');
    // The end of the run: from 1 s before the done event (the pool simulation streams its samples
    // in its last ~0.3 s) until the history shows the run.
    const tasks = rendererTasks(trace, syncAt).filter((t) => t.at + t.wallMs >= doneAt - 1000 && t.at <= historyAt);
    const listed = tasks.map((t) => `${t.cpuMs} ms CPU / ${t.wallMs} ms wall at ${t.at - doneAt >= 0 ? '+' : ''}${t.at - doneAt}`).join(', ');
    // The finish shown on screen, from the runner's exit (Date.now() on both ends, same machine).
    // Waiting for a CPU is not the editor's doing: the run-queue delay the path's main threads
    // (extension host, code-server, Chromium's processes) accumulated in that window is printed
    // and taken off; on CI's idle 2-CPU machine it is a few ms.
    const [from, to] = [Math.min(exitedAt, finishedAt!), Math.max(exitedAt, finishedAt!)];
    const waited = Math.round(runQueue.delayBetween(from, to));
    const latency = finishedAt! - exitedAt;
    // What reached the page in the relay leg (from the host's post to the finish's arrival), in order, with each message's size.
    const relayed = msgs.filter((m) => m.at >= sentAt && m.at <= arrivedAt!).map((m) => `${m.type} ${(m.bytes / 1000).toFixed(1)} kB at +${m.at - sentAt}`).join(', ');
    console.log(`[e2e] pool samples ${run0.pool?.samples.length ?? 0}; finish shown ${latency} ms after the runner's exit (${finishedAt! - doneAt} ms after its done event: the extension host sent the result ${sentAt - doneAt} ms after it, the page received it ${arrivedAt! - sentAt} ms later [${relayed}] and showed it ${finishedAt! - arrivedAt!} ms after that; the runner exited ${exitedAt - doneAt} ms after its done event), of which the path's main threads waited ${waited} ms for a CPU; renderer main-thread tasks over 50 ms at the end of the run (start relative to the done event): [${listed}]; load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} CPUs; code-server at nice ${niceOf(server.pid)}`);
    // Issue 17's bounds, the same on every machine. A task of the renderer's main thread (the
    // workbench page and the dashboard) holds the workbench: its CPU time, what the renderer
    // itself did, under 200 ms.
    const worst = tasks.reduce((m, t) => Math.max(m, t.cpuMs), 0);
    assert.ok(worst < 200, `a renderer main-thread task took ${worst} ms of CPU at the end of the run (limit 200 ms): [${listed}]`);
    assert.ok(finishedAt! - arrivedAt! < 500, `the page showed the finish ${finishedAt! - arrivedAt!} ms after the message arrived (limit 500 ms)`);
    assert.ok(latency - waited < 500, `the dashboard showed the run finished ${latency} ms after the runner's exit, ${latency - waited} ms without the ${waited} ms its path waited for a CPU (limit 500 ms)`);
    const label = (await frame.getAttribute('#chart-timings', 'data-drawn')) ?? '';
    const runs = savedRuns(ws);
    assert.equal(runs.length, 1, 'one run saved under .attnscope/runs');
    const run = runs[0]!;
    assert.equal(run.status, 'ok');
    const timed = run.cases.filter((c) => c.kernel !== 'reference').length;
    assert.ok(timed > 0, 'the run has timed cases');
    assert.match(label, new RegExp(`median: ${timed} points`), `the timings chart draws the saved run's ${timed} cases: ${label}`);
    assert.equal(run.profile.kvCache.pageSize, 16);
    await page.screenshot({ path: join(shots, '04-dashboard.png') });
    // The pool chart as drawn in the workbench, and its table: cached and free pages (both free
    // for allocation, as vLLM counts them) add up to the pool minus the held pages in every sample.
    const poolCard = frame.locator('section[data-chart="poolTimeline"]');
    await poolCard.locator('details').evaluate((d) => ((d as HTMLDetailsElement).open = true));
    await frame.waitForSelector('table.table-poolTimeline', { state: 'attached' });
    // Counts with thousands separators ("2,048": core/format formatCount).
    const poolRows = await frame.$$eval('table.table-poolTimeline tbody tr', (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((c) => Number((c.textContent ?? '').replace(/,/g, '')))));
    assert.equal(poolRows.length, run.pool!.samples.length);
    for (const [t, held, cached, free] of poolRows) assert.equal(cached! + free!, run.pool!.numPages - held!, `t=${t}: cached + free = ${run.pool!.numPages} − ${held} held`);
    await poolCard.locator('details').evaluate((d) => ((d as HTMLDetailsElement).open = false));
    await poolCard.screenshot({ path: join(shots, '04c-pool-chart.png') });
  });

  // A reloaded browser workbench restores the dashboard with the state the workbench last wrote
  // to IndexedDB (every 5 s, with the editor layout), which can predate the run's finish: that
  // restored a "running" page when the reload came within seconds of the finish (a clean-clone CI
  // run at low load). The extension host that starts with the reloaded window sends the run the
  // last one recorded as shown (extension/shownRun.ts), whatever the page's state says.
  it('restores the dashboard after a window reload (panel serializer + webview state)', async () => {
    const saved = await workbenchSavedStatus(page);
    const reloadedAt = Date.now();
    await page.reload();
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    const frame = await dashboardFrame(page);
    // A reloaded workbench restores its webviews after the extension host restarts: on a loaded
    // machine that took over 30 s (the default wait) once in six CI runs; 60 s as for the workbench.
    await frame.waitForFunction(
      () => document.querySelector('#run-status')?.textContent === 'ok' && document.querySelector('#chart-timings')?.getAttribute('data-drawn')?.includes('points'),
      undefined,
      { timeout: 60_000 },
    );
    assert.equal(await frame.textContent('#run-title'), 'llama-3.1-8b · e2e.attn.yaml · quick', 'the run shown before the reload');
    // Shown by the new extension host from its record, not by the page's saved state alone (which
    // held the finished run only when the workbench's flush came before the reload).
    const [runId] = readdirSync(join(ws, '.attnscope', 'runs')).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -'.json'.length));
    await server.extensionLogLine(new RegExp(`dashboard: showing ${runId}, the run shown before the window reloaded`));
    console.log(`[e2e] reload: the workbench had saved the dashboard's state as ${saved} before it; the finished run shown ${Date.now() - reloadedAt} ms after the reload`);
    await page.screenshot({ path: join(shots, '04b-dashboard-after-reload.png') });
  });

  it('cancels a real run from the progress notification and records it as cancelled', async () => {
    // Full (not quick) mode: each case takes >= 1 s, so the run is still going when Cancel is clicked.
    const full = { 'attnscope.quickMode': false, 'attnscope.openDashboardOnRun': false };
    server.writeSettings(full);
    await settingsInForce(page, full);
    await openFile(page, 'e2e.attn.yaml', 'dtpye');
    await runCommand(page, 'AttnScope: Run attention benchmark');
    const toast = await notification(page, 'AttnScope: benchmarking llama-3.1-8b · e2e.attn.yaml · full', 60_000);
    await toast.locator('.monaco-button', { hasText: 'Cancel' }).click();
    const ended = await notification(page, /benchmark of llama-3\.1-8b · e2e\.attn\.yaml · full cancelled (after [1-9]\d* case|before its first case: nothing was measured)/, 30_000);
    // A cancel before the first case saves nothing (history.ts keptInHistory); one after it, the partial run.
    const runs = savedRuns(ws);
    if (/before its first case/.test((await ended.textContent()) ?? '')) assert.equal(runs.length, 1);
    else {
      assert.equal(runs.length, 2);
      assert.equal(runs.at(-1)!.status, 'cancelled');
    }
    await page.screenshot({ path: join(shots, '05-cancelled.png') });
  });

  // A reload ends the extension host, and with it the runner and every promise: the run so far
  // was lost (nothing saved, no notice). deactivate() saves it synchronously (BenchmarkRun.interrupt).
  it('keeps a benchmark a window reload interrupts: saved as cancelled with its measured cases, shown after the reload with a notice', async () => {
    const before = savedRuns(ws).length;
    await openFile(page, 'e2e.attn.yaml', 'dtpye');
    await runCommand(page, 'AttnScope: Run attention benchmark');
    await notification(page, 'AttnScope: benchmarking llama-3.1-8b · e2e.attn.yaml · full', 60_000);
    // A case measured: the (already open) dashboard has received one.
    const frame = await dashboardFrame(page);
    await frame.waitForFunction(() => {
      const status = document.querySelector<HTMLElement>('#run-status');
      return status?.textContent === 'running' && Number(status.dataset.cases) >= 1;
    }, undefined, { timeout: 120_000 });
    await page.reload();
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    await notification(page, /benchmark of llama-3\.1-8b · e2e\.attn\.yaml · full was interrupted when the window reloaded or closed; the [1-9]\d* case\(s\) measured before are saved/, 60_000);
    const runs = savedRuns(ws);
    assert.equal(runs.length, before + 1, 'the interrupted run is saved');
    const run = runs.at(-1)!;
    assert.equal(run.status, 'cancelled');
    assert.match(run.error ?? '', /^interrupted \(window reloaded or closed\) after [1-9]\d* case\(s\)$/);
    assert.ok(run.cases.length >= 1, 'its measured cases are kept');
    const after = await dashboardFrame(page);
    // The page shows its own saved state at once (webview/model.ts restoredModel: a run it saved as
    // running, as "restoring…", its saved cases lagging the run's), then the saved run when `init` comes
    // (3-15 s after a reload on a busy machine): wait for the saved run's own line (CI read the page's
    // state once, before `init`, at load ~2).
    await after.waitForFunction(() => document.querySelector('#run-status')?.textContent === 'interrupted' && /interrupted \(window reloaded or closed\)/.test(document.querySelector('#run-environment')?.textContent ?? ''), undefined, { timeout: 60_000 });
    assert.equal(await after.textContent('#run-title'), 'llama-3.1-8b · e2e.attn.yaml · full');
    await page.screenshot({ path: join(shots, '05b-interrupted-by-reload.png') });
  });

  // A simulation stopped before its end is not saved (its figures are of the whole workload:
  // extension/refusal.ts SIMULATION_NOT_SAVED); a reload that stopped one said nothing at all.
  it('says after a window reload that the simulation it stopped is not saved, and why; saves nothing', async () => {
    await openFile(page, 'e2e.attn.yaml', 'dtpye');
    const slow = { 'attnscope.runnerPath': fakeRunner(ws, 'slow'), 'attnscope.openDashboardOnRun': true };
    server.writeSettings(slow);
    await settingsInForce(page, slow);
    const before = savedRuns(ws).length;
    await runCommand(page, 'AttnScope: Run serving simulation');
    await notification(page, 'AttnScope: simulating llama-3.1-8b · e2e.attn.yaml · simulation', 60_000);
    const frame = await dashboardFrame(page);
    await frame.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'llama-3.1-8b · e2e.attn.yaml · simulation' && document.querySelector('#run-status')?.textContent === 'running', undefined, { timeout: 60_000 });
    await page.reload();
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    await notification(page, /llama-3\.1-8b · e2e\.attn\.yaml · simulation was interrupted when the window reloaded or closed; nothing is saved \(a simulation is saved only when it ends\)\./, 60_000);
    assert.equal(savedRuns(ws).length, before, 'nothing saved');
    // The run the previous step left shown is not handed to the new host as the one shown: the
    // page showed the simulation (extension/dashboard.ts noticeAfterReload records none while a
    // run streams); that run sent in `init` replaced the stopped simulation with a stale one.
    assert.equal(shownRunRecord(server.userDataDir).shownRunId, null);
    const after = await dashboardFrame(page);
    // What the page shows is the run shown before (none here), or, where the workbench flushed the
    // page's state while the simulation ran, that run as interrupted (webview/model.ts): not running.
    await after.waitForFunction(() => document.querySelector('#run-status')?.textContent !== 'running', undefined, { timeout: 60_000 });
    assert.notEqual(await after.getAttribute('#btn-cancel', 'disabled'), null, 'no Cancel: nothing runs');
    await page.screenshot({ path: join(shots, '05c-simulation-interrupted-by-reload.png') });
  });

  it('reports a crashing runner with its last log lines and stays usable', async () => {
    const crash = { 'attnscope.quickMode': true, 'attnscope.runnerPath': fakeRunner(ws, 'crash'), 'attnscope.openDashboardOnRun': false };
    server.writeSettings(crash);
    await settingsInForce(page, crash);
    await openFile(page, 'e2e.attn.yaml', 'dtpye');
    await runCommand(page, 'AttnScope: Run attention benchmark');
    const toast = await notification(page, 'the benchmark runner failed (exit code 134)', 60_000);
    // Its last line on stderr, the likeliest reason.
    assert.match((await toast.textContent()) ?? '', /its last line: Segmentation fault in attnscope_native\.node/);
    await page.screenshot({ path: join(shots, '06-crash.png') });
    await toast.locator('.monaco-button', { hasText: 'Open log' }).click();
    await page.locator('.output-view, .panel', { hasText: 'FAKE_RUNNER_MODE=crash' }).first().waitFor({ timeout: 30_000 });
    assert.equal(savedRuns(ws).at(-1)!.status, 'failed');
    // Still usable: the memory breakdown of the same profile opens in the dashboard.
    await runCommand(page, 'AttnScope: Show memory breakdown');
    const frame = await dashboardFrame(page);
    await frame.waitForFunction(() => document.querySelector('#chart-memory')?.getAttribute('data-drawn')?.includes('weights: 1 points'));
    await page.screenshot({ path: join(shots, '07-memory-after-crash.png') });
  });

  it('a runner that crashes before its first case: the error and the dashboard say so, History gets nothing', async () => {
    const early = { 'attnscope.quickMode': true, 'attnscope.runnerPath': fakeRunner(ws, 'crash-early'), 'attnscope.openDashboardOnRun': true };
    server.writeSettings(early);
    await settingsInForce(page, early);
    const before = savedRuns(ws).length;
    await openFile(page, 'e2e.attn.yaml', 'dtpye');
    await runCommand(page, 'AttnScope: Run attention benchmark');
    const toast = await notification(page, 'the benchmark runner failed (exit code 1)', 60_000);
    const text = (await toast.textContent()) ?? '';
    assert.match(text, /its last line: internal error: no kernels could be loaded/);
    assert.match(text, /Nothing is saved in History: it had no kernel case and no pool yet\./);
    const frame = await dashboardFrame(page);
    await frame.waitForFunction(() => document.querySelector('#run-status')?.textContent === 'failed');
    assert.match((await frame.textContent('#run-environment')) ?? '', /failed before any kernel finished/);
    await page.screenshot({ path: join(shots, '07a-crash-early.png') });
    // newcomerB: such a run (no case, no pool) was saved, listed in History among the real ones.
    assert.equal(savedRuns(ws).length, before, 'a run that failed with nothing is not saved in history');
  });

  it('refuses a CUDA run without a GPU in the editor\'s terms, records nothing and shows why in the dashboard', async () => {
    const real = { 'attnscope.quickMode': true, 'attnscope.runnerPath': settings['attnscope.runnerPath'], 'attnscope.openDashboardOnRun': true };
    server.writeSettings(real);
    await settingsInForce(page, real);
    const before = savedRuns(ws).length;
    await openFile(page, 'cuda.attn.yaml', 'backend: cuda');
    await runCommand(page, 'AttnScope: Run attention benchmark');
    const toast = await notification(page, 'llama-3.1-8b · cuda.attn.yaml · quick was not run', 60_000);
    const text = (await toast.textContent()) ?? '';
    // The profile asked for CUDA (the setting is 'auto'): the fix is named as the profile key, not a CLI flag.
    assert.match(text, /device\.backend is cuda: set it to auto \(or cpu\)/);
    assert.doesNotMatch(text, /--backend/);
    const frame = await dashboardFrame(page);
    await frame.waitForFunction(() => document.querySelector('#run-status')?.textContent === 'refused');
    assert.match((await frame.textContent('#run-environment')) ?? '', /CUDA[^]*device\.backend is cuda/);
    await page.screenshot({ path: join(shots, '07b-refused.png') });
    assert.equal(savedRuns(ws).length, before, 'a refused run is not saved in history');
  });

  it('compares two saved runs picked from the command palette, and lists an unreadable run file there with why', async () => {
    // A run file cut short: listed after the runs as unreadable, with the reason (it was only logged).
    // The runs saved so far: ok, interrupted and failed ones, and the cancelled one when the
    // cancel test's Cancel came after its first case (before it, nothing is saved: 4947939).
    const saved = savedRuns(ws).length;
    assert.ok(saved >= 3, `${saved} runs saved`);
    const broken = join(ws, '.attnscope', 'runs', '20261203-000000-broken.json');
    writeFileSync(broken, '{"schema": 1, "na');
    const rows = page.locator('.quick-input-list .monaco-list-row');
    try {
      await runCommand(page, 'AttnScope: Compare runs');
      await rows.first().waitFor();
      // The palette's close gave the focus to the active editor, the dashboard, which takes it in
      // steps; the last, its iframe acting on VS Code's deferred `focus` message, can come after the
      // pick opened, which closed it (1 CI run in ~15: no rows within 30 s). Done here on purpose:
      // the pick stays open (extension/pick.ts PICK_OPTIONS; without it, it closes every time).
      await webviewTakesFocus(page);
      assert.ok(await page.locator('.quick-input-widget').isVisible(), 'the pick stays open when the dashboard takes the focus');
      assert.equal(await rows.count(), saved + 1, 'the saved runs are listed, then the unreadable file');
      assert.match((await rows.nth(saved).textContent()) ?? '', /20261203-000000-broken\.json[^]*unreadable: not JSON/);
    } finally {
      // Later tests read every run file (savedRuns): the cut one must go even when this one fails.
      rmSync(broken);
    }
    await rows.nth(0).click();
    await rows.nth(2).click();
    await page.locator('.quick-input-widget .monaco-button', { hasText: 'OK' }).click();
    const frame = await dashboardFrame(page);
    const table = frame.locator('table.table-compare');
    await table.waitFor({ timeout: 30_000 });
    assert.ok((await table.locator('tbody tr').count()) > 0);
    await page.screenshot({ path: join(shots, '08-compare.png') });
  });

  // s33 newcomer-ed 8: with no profile active, the pick offered every config.json too, which has no workload.
  it('offers only profiles to simulate when the active editor is a config.json', async () => {
    await openFile(page, 'llama-3.1-8b/config.json', 'num_key_value_heads');
    await runCommand(page, 'AttnScope: Run serving simulation');
    const widget = page.locator('.quick-input-widget');
    await widget.locator('.quick-input-title', { hasText: 'AttnScope: pick a profile to simulate' }).waitFor({ timeout: 30_000 });
    const rows = widget.locator('.quick-input-list .monaco-list-row');
    await rows.first().waitFor();
    const labels = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
    assert.ok(labels.some((l) => l.startsWith('e2e.attn.yaml')), labels.join(' | '));
    // cuda.attn.yaml has no workload: once the server's checks come back it is listed under a "cannot simulate" separator row (pick.ts cannotRun).
    assert.ok(labels.filter((l) => l !== 'cannot simulate').every((l) => /^\S+\.attn\.(ya?ml|json)\b/.test(l)), `only profiles: ${labels.join(' | ')}`);
    await page.keyboard.press('Escape');
  });

  it('runs a serving simulation from its code lens: the pool, its summary and the modelled latency, no kernel timed, saved as a simulation', async () => {
    const before = savedRuns(ws).length;
    await openFile(page, 'e2e.attn.yaml', 'dtpye');
    const lens = page.locator('.editor-group-container.active .codelens-decoration a', { hasText: 'Run serving simulation' }).first();
    await lens.waitFor({ timeout: 60_000 });
    await lens.click();
    const frame = await dashboardFrame(page);
    await frame.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'llama-3.1-8b · e2e.attn.yaml · simulation' && document.querySelector('#run-status')?.textContent === 'ok', undefined, { timeout: 120_000 });
    await notification(page, /AttnScope: llama-3\.1-8b · e2e\.attn\.yaml · simulation finished: peak occupancy [\d.]+%, \d+ preemptions?, prefix-cache hit rate/);
    assert.match((await frame.textContent('#run-step-time')) ?? '', /^Serving simulation: no kernel was timed; step times, latency and throughput are modelled, not measured: llama on H100 SXM/);
    // The header shows 'ok' first and the charts with their summaries follow in later tasks (main.ts
    // scheduleRender): wait for the finished run's summaries (the pool's replaces the streamed "so far:" one).
    await frame.waitForFunction(() => /^peak occupancy/.test(document.querySelector('#summary-poolTimeline')?.textContent ?? '') && /^modelled:/.test(document.querySelector('#summary-latencyCdf')?.textContent ?? ''));
    assert.match((await frame.textContent('#summary-poolTimeline')) ?? '', /^peak occupancy [\d.]+% held \(mean [\d.]+%\) · \d+ preemptions? · prefix-cache hit rate [\d.]+% · 200 of 200 requests completed$/);
    assert.match((await frame.textContent('#summary-latencyCdf')) ?? '', /^modelled: TTFT p50 [\d.]+ ms, p99 [\d.]+ ms · TPOT p50 [\d.]+ ms, p99 [\d.]+ ms/);
    assert.equal(await frame.$eval('section[data-chart="timings"]', (c) => (c as HTMLElement).offsetParent !== null), false, 'no kernel card');
    await page.screenshot({ path: join(shots, '09-simulation.png') });
    const runs = savedRuns(ws);
    assert.equal(runs.length, before + 1);
    const saved = runs.find((r) => r.name === 'llama-3.1-8b · e2e.attn.yaml · simulation')!;
    assert.equal(saved.kind, 'simulate');
    assert.deepEqual(saved.cases, []);
    // e2e.attn.yaml's workload: 200 requests, all served.
    assert.equal(saved.pool!.summary.requests, 200);
  });

  // s40 newcomer-ed F1: a trace could be replayed only from the CLI.
  it("replays a profile's workload.trace from its Run serving simulation lens: the dashboard's header and the saved run name the trace, from the profile, with its rows and span", async () => {
    // Written here, not in test/e2e/workspace: the other steps pick profiles from that folder.
    mkdirSync(join(ws, 'traces'), { recursive: true });
    // Three requests over 4 s (arrivals 0, 1.5, 4).
    writeFileSync(join(ws, 'traces', 'e2e.jsonl'), '{"arrival_s": 0, "prompt_len": 1000, "output_len": 11}\n{"arrival_s": 1.5, "prompt_len": 300, "output_len": 40}\n{"arrival_s": 4, "prompt_len": 2000, "output_len": 7}\n');
    writeFileSync(join(ws, 'trace.attn.yaml'), 'model: ./llama-3.1-8b/config.json\ndevice: { backend: cpu, gpu: H100 SXM }\nworkload:\n  trace: ./traces/e2e.jsonl\n  max_model_len: 4096\n');
    await openNewFile(page, 'trace.attn.yaml', 'traces/e2e.jsonl');
    const lens = page.locator('.editor-group-container.active .codelens-decoration a', { hasText: 'Run serving simulation' }).first();
    await lens.waitFor({ timeout: 60_000 });
    await lens.click();
    const frame = await dashboardFrame(page);
    await frame.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'llama-3.1-8b · trace.attn.yaml · simulation · trace e2e.jsonl' && document.querySelector('#run-status')?.textContent === 'ok', undefined, { timeout: 120_000 });
    const header = ((await frame.textContent('#run-environment')) ?? '').replace(/\s+/g, ' ');
    assert.ok(header.includes("workload: trace ./traces/e2e.jsonl (the profile's workload.trace) (attnscope; time stamps: arrival_s, seconds): 3 rows read as requests over 4 s, none dropped"), header);
    // The run is saved after the page shows it; its finish toast comes once it is (as the step above waits).
    await notification(page, /AttnScope: llama-3\.1-8b · trace\.attn\.yaml · simulation · trace e2e\.jsonl finished/);
    const saved = savedRuns(ws).find((r) => r.name === 'llama-3.1-8b · trace.attn.yaml · simulation · trace e2e.jsonl')!;
    assert.equal(saved.pool!.summary.requests, 3);
    assert.deepEqual({ from: saved.pool!.load!.trace!.from, spanS: saved.pool!.load!.trace!.spanS, rows: saved.pool!.load!.trace!.rowsRead }, { from: 'workload.trace', spanS: 4, rows: 3 });
  });

  it('runs a 2-point sweep from the lens on its sweep: key: the report written where Open sweep results looks, and the Sweep view showing both rows', async () => {
    // Written here, not in test/e2e/workspace: the other steps pick profiles from that folder.
    writeFileSync(join(ws, 'sweep.attn.yaml'), sweepProfile(100, [16, 32]));
    // With the dashboard closed: the report must reach the page that the sweep's end opens (a
    // message posted before the page is ready is queued, and its `ready` replays it).
    await runCommand(page, 'View: Close All Editors');
    await openNewFile(page, 'sweep.attn.yaml', 'kv_cache.page_size');
    const lens = page.locator('.editor-group-container.active .codelens-decoration a', { hasText: 'Run sweep' }).first();
    await lens.waitFor({ timeout: 60_000 });
    assert.equal(await lens.textContent(), 'Run sweep · 2 points');
    await lens.click();
    await notification(page, /AttnScope: sweep of sweep\.attn\.yaml finished: 2 points, report in \.attnscope\/sweeps\/sweep-[0-9a-f]{8}\./);
    const frame = await dashboardFrame(page);
    await frame.waitForFunction(() => document.querySelectorAll('#sweep-table tbody tr').length === 2, undefined, { timeout: 60_000 });
    assert.match((await frame.textContent('#sweep-summary')) ?? '', /^sweep\.attn\.yaml · sweep [0-9a-f]{16} · merged .+ · job simulate · 2 results for 2 of 2 points/);
    // Column 1 marks the best point (★), column 2 is the axis kv_cache.page_size.
    const pageSizes = await frame.locator('#sweep-table tbody tr').evaluateAll((rows) => rows.map((r) => r.querySelectorAll('td')[1]?.textContent?.trim()));
    assert.deepEqual([...pageSizes].sort(), ['16', '32']);
    // The tab's sweep line: how it ended, in the toast's words, and no Cancel left.
    await frame.waitForFunction(() => /^sweep of sweep\.attn\.yaml finished: 2 points, report in \.attnscope\/sweeps\/sweep-[0-9a-f]{8}\.$/.test(document.querySelector('#sweep-run-status')?.textContent ?? ''), undefined, { timeout: 30_000 });
    assert.equal(await frame.isVisible('#btn-cancel-sweep'), false);
    await page.screenshot({ path: join(shots, '10-sweep.png') });
    const folders = readdirSync(join(ws, '.attnscope', 'sweeps')).filter((n) => n.startsWith('sweep-'));
    assert.equal(folders.length, 1);
    assert.ok(existsSync(join(ws, '.attnscope', 'sweeps', folders[0]!, 'sweep-report.json')));
  });

  // s28 newcomer-ed 5: the finished sweep was gone after closing and reopening the dashboard and
  // after a window reload ("No sweep open"), and History listed no sweep.
  it('shows the finished sweep again in a reopened dashboard and after a window reload, and lists it in History', async () => {
    const [folder] = readdirSync(join(ws, '.attnscope', 'sweeps')).filter((n) => n.startsWith('sweep-'));
    await runCommand(page, 'View: Close All Editors');
    await runCommand(page, 'AttnScope: Open dashboard');
    const reopened = await dashboardFrame(page);
    await reopened.waitForFunction(() => document.querySelectorAll('#sweep-table tbody tr').length === 2, undefined, { timeout: 60_000 });
    await reopened.waitForSelector(`#sweep-list tr[data-sweep="${folder}"]`, { state: 'attached', timeout: 60_000 });
    await dashboardInSavedLayout(page);
    await page.reload();
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    const after = await dashboardFrame(page);
    await after.waitForFunction(() => document.querySelectorAll('#sweep-table tbody tr').length === 2, undefined, { timeout: 60_000 });
    assert.match((await after.textContent('#sweep-summary')) ?? '', /^sweep\.attn\.yaml · sweep [0-9a-f]{16} · merged .+ · job simulate · 2 results for 2 of 2 points/);
    // Sent by the new extension host from its record, not only restored from the page's own state.
    await server.extensionLogLine(new RegExp(`dashboard: showing the sweep .*${folder}/sweep-report\\.json, the one shown before the window reloaded`));
    await after.locator('vscode-tab-header', { hasText: 'History' }).click();
    await after.waitForSelector(`#sweep-list tr[data-sweep="${folder}"]`, { timeout: 60_000 });
    await page.screenshot({ path: join(shots, '10b-sweep-history-after-reload.png') });
  });

  // s30 newcomers: a running sweep left the dashboard on its Run tab, Cancel off; only the toast and status bar could stop it.
  it('shows a running sweep\'s progress in the Sweep tab, and its Cancel sweep button stops it as the notification\'s Cancel does', async () => {
    // 4 points of 20,000 requests each: long enough to be cancelled while it runs.
    writeFileSync(join(ws, 'long-sweep.attn.yaml'), sweepProfile(20_000, [16, 32, 64, 128]));
    await openNewFile(page, 'long-sweep.attn.yaml', 'kv_cache.page_size');
    const lens = page.locator('.editor-group-container.active .codelens-decoration a', { hasText: 'Run sweep' }).first();
    await lens.waitFor({ timeout: 60_000 });
    await lens.click();
    const frame = await dashboardFrame(page);
    await frame.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'long-sweep.attn.yaml · sweep', undefined, { timeout: 60_000 });
    await frame.waitForFunction(() => /^Sweeping long-sweep\.attn\.yaml: \d+ of 4 points saved/.test(document.querySelector('#sweep-run-status')?.textContent ?? ''), undefined, { timeout: 60_000 });
    await page.screenshot({ path: join(shots, '10c-sweep-running.png') });
    await frame.locator('#btn-cancel-sweep').click();
    await notification(page, /AttnScope: sweep of long-sweep\.attn\.yaml cancelled/);
    await frame.waitForFunction(() => /^sweep of long-sweep\.attn\.yaml cancelled/.test(document.querySelector('#sweep-run-status')?.textContent ?? ''), undefined, { timeout: 30_000 });
    assert.equal(await frame.isVisible('#btn-cancel-sweep'), false);
    await server.extensionLogLine(/sweep long-sweep\.attn\.yaml: runner ended .* after cancel/);
  });

  // s37 newcomer-ed 6: the Sweep tab lagged the notification (every update waited for the
  // dashboard's 250 ms batch), and with short points (~0.5 s) every sample read "0%": a point's
  // simulation finished within its first progress interval, and the runner then dropped it from
  // the running list. Measured: each progress line of the runner to the Sweep tab showing its words.
  it('shows a short sweep\'s progress in the Sweep tab as the runner sends it: the first at once, a point at 100 % before it is saved', async () => {
    writeFileSync(join(ws, 'short-sweep.attn.yaml'), sweepProfile(100, [8, 16, 32, 64]));
    // The dashboard beside the profile, as a user keeps it (s40 newcomer-ed: typing in the profile
    // on the left, the finished sweep's reveal took the keyboard to the dashboard on the right).
    await page.locator('.editor-group-container.active .tab[aria-label^="AttnScope"]').first().click();
    await runCommand(page, 'View: Move Editor into Next Group');
    await runCommand(page, 'View: Focus First Editor Group');
    await openNewFile(page, 'short-sweep.attn.yaml', 'kv_cache.page_size');
    const lens = page.locator('.editor-group-container.active .codelens-decoration a', { hasText: 'Run sweep' }).first();
    await lens.waitFor({ timeout: 60_000 });
    // The dashboard is open from the sweep before: every text its sweep line shows, and when (the runner's clock too).
    const frame = await dashboardFrame(page);
    await frame.evaluate(() => {
      const w = window as unknown as { __sweepShown?: Array<[number, string]> };
      w.__sweepShown = [];
      const line = document.querySelector('#sweep-run-status')!;
      new MutationObserver(() => w.__sweepShown!.push([Date.now(), line.textContent ?? ''])).observe(line, { childList: true, characterData: true, subtree: true });
    });
    const clickedAt = Date.now();
    const runQueue = watchRunQueue(server.pid);
    try {
      await lens.click();
      await notification(page, /AttnScope: sweep of short-sweep\.attn\.yaml finished: 4 points/);
      await frame.waitForFunction(() => /^sweep of short-sweep\.attn\.yaml finished/.test(document.querySelector('#sweep-run-status')?.textContent ?? ''), undefined, { timeout: 30_000 });
      // s40 newcomer-ed: the finished sweep's reveal took the keyboard from the profile being typed in.
      assert.equal(await page.locator('.editor-group-container.active .tab.active[data-resource-name="short-sweep.attn.yaml"]').count(), 1, 'the profile\'s editor group keeps the focus when the sweep ends');
    } finally {
      runQueue.stop();
    }
    const shown = await frame.evaluate(() => (window as unknown as { __sweepShown: Array<[number, string]> }).__sweepShown);
    const sent = progressLines(exitLog, clickedAt).filter((p) => p.event.saved !== undefined);
    assert.ok(sent.length > 0, 'the runner sent progress');
    // Each progress line and the first time the page showed its words at or after it (a line the next replaced before a frame is never shown).
    const seen = sent.map(({ at, event }) => {
      const text = `Sweeping short-sweep.attn.yaml: ${sweepProgressMessage(event)}`;
      const hit = shown.find(([t, s]) => t >= at && s === text);
      return { at, text, delay: hit ? hit[0] - at : null, waited: hit ? Math.round(runQueue.delayBetween(at, hit[0])) : 0 };
    });
    const delays = seen.flatMap((x) => (x.delay === null ? [] : [x.delay])).sort((a, b) => a - b);
    const first = seen[0]!;
    const last = seen.at(-1)!;
    const at100 = shown.filter(([, s]) => /\b100%/.test(s)).length;
    console.log(`[e2e] short sweep progress: ${sent.length} runner lines, ${delays.length} shown on the page; first shown ${first.delay ?? 'never'} ms after the runner's line (${first.waited} ms of it waiting for a CPU), last ("${last.text.replace(/^Sweeping [^:]+: /, '')}") ${last.delay === null ? 'replaced by the end before a frame drew it' : `${last.delay} ms`}; median ${delays[Math.floor(delays.length / 2)] ?? '-'} ms, max ${delays.at(-1) ?? '-'} ms; runner lines listing a point at 100 %: ${sent.filter((p) => /\b100%/.test(p.event.message)).length}, page texts: ${at100}; load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} CPUs`);
    // Issue 17's bound for the finish, here for the sweep's first update (it waited for the 250 ms batch).
    assert.ok(first.delay !== null, `the page never showed the first progress line: ${first.text}`);
    assert.ok(first.delay - first.waited < 500, `the Sweep tab showed the first progress ${first.delay} ms after the runner's line, ${first.delay - first.waited} ms without the ${first.waited} ms its path waited for a CPU (limit 500 ms)`);
  });

  // s40 newcomer-ed: nothing in the editor said how to begin (no walkthrough, no command to write a profile).
  it('writes a first profile for the open config.json: New profile…, a GPU picked, the file opened with its hints', async () => {
    await openFile(page, 'llama-3.1-8b/config.json', 'num_key_value_heads');
    await runCommand(page, 'AttnScope: New profile…');
    const input = page.locator('.quick-input-widget input');
    await input.fill('H200', { timeout: 30_000 });
    await page.locator('.quick-input-list .monaco-list-row.focused', { hasText: 'H200' }).first().waitFor({ timeout: 30_000 });
    await page.keyboard.press('Enter');
    // Llama-3.1-8B's 16 GB of bf16 weights and one 8,192-token sequence (1 GiB) fit one H200.
    await notification(page, /AttnScope: wrote llama-3\.1-8b\.attn\.yaml; tensor_parallel_size 1: one H200 holds its weights/, 60_000);
    const text = readFileSync(join(ws, 'llama-3.1-8b.attn.yaml'), 'utf8');
    assert.match(text, /^model: \.\/llama-3\.1-8b\/config\.json$/m);
    assert.match(text, /^ {2}gpu: H200$/m);
    await page.locator('.editor-group-container.active .tab.active[data-resource-name="llama-3.1-8b.attn.yaml"]').first().waitFor({ timeout: 30_000 });
    // Its hints: weights per GPU on `model:` (15 GiB: 8,030,261,248 params × 2 B, the estimate's figure).
    await page.locator('.editor-group-container.active .monaco-editor .view-lines', { hasText: '15 GiB weights' }).first().waitFor({ timeout: 60_000 });
    await page.screenshot({ path: join(shots, '14-new-profile.png') });
  });
});

describe('AttnScope in an untrusted workspace', { timeout: 300_000 }, () => {
  let browser: Browser;
  let server: CodeServer;
  let page: Page;

  before(async () => {
    checkPrerequisites();
    server = await startCodeServer({ settings: { 'attnscope.quickMode': true }, trust: true, log: join(shots, 'code-server-untrusted.log') });
    browser = await launchChromium();
    page = await openWorkbench(browser, server, makeWorkspace());
  });
  failureArtifacts(() => page);

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('keeps hints, refuses benchmark runs with the reason', async () => {
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'trust' });
    await dialog.waitFor({ timeout: 60_000 });
    await dialog.locator('.monaco-button', { hasText: "No, I don't trust the authors" }).click();
    await openFile(page, 'e2e.attn.yaml', 'dtpye');
    await page.locator('.editor-group-container.active .monaco-editor .view-lines', { hasText: '× 2 MiB' }).first().waitFor({ timeout: 60_000 });
    // No run lens that would be refused: one lens says why, beside the memory breakdown, which works here.
    const lenses = page.locator('.editor-group-container.active .codelens-decoration');
    await lenses.locator('a', { hasText: 'Runs need a trusted workspace' }).first().waitFor({ timeout: 60_000 });
    const titles = await lenses.locator('a').allTextContents();
    assert.ok(titles.some((t) => t.includes('Show memory breakdown')), titles.join(' | '));
    assert.ok(!titles.some((t) => /Run attention benchmark|Run serving simulation/.test(t)), titles.join(' | '));
    await runCommand(page, 'AttnScope: Run attention benchmark');
    await notification(page, 'AttnScope runs benchmarks (native code) only in trusted workspaces', 30_000);
    await page.screenshot({ path: join(shots, '09-untrusted.png') });
  });
});

// s33 newcomer-ed 1: the extension activated only through workspaceContains, whose search VS Code
// times out on a loaded machine; then opening a profile did not activate it (no hints, no
// diagnostics, no message). Here the search cannot match at all (an empty folder; the files are
// opened from outside it), so only opening them can activate the extension (onLanguage:json/yaml).
describe('AttnScope when the workspace search finds no profile', { timeout: 300_000 }, () => {
  let browser: Browser;
  let server: CodeServer;
  let page: Page;
  let outside: string;

  before(async () => {
    checkPrerequisites();
    server = await startCodeServer({ settings: {}, trust: false, log: join(shots, 'code-server-empty.log') });
    browser = await launchChromium();
    page = await openWorkbench(browser, server, tempDir('attnscope-e2e-empty-'));
    outside = makeWorkspace();
    writeFileSync(join(outside, 'package.json'), '{ "name": "not-a-model" }\n');
  });
  failureArtifacts(() => page);

  after(async () => {
    await browser?.close();
    server?.saveExtensionLog(join(shots, 'attnscope-empty.log'));
    await server?.stop();
  });

  it('activates on an opened JSON file without starting the language server, which starts with the first profile: hints and diagnostics', async () => {
    await openFile(page, join(outside, 'package.json'), 'not-a-model');
    await server.extensionLogLine(/language server: not started yet; it starts when a profile or config\.json opens/, 60_000);
    await openFile(page, join(outside, 'e2e.attn.yaml'), 'dtpye');
    await server.extensionLogLine(/language server: starting for .*e2e\.attn\.yaml/, 60_000);
    // page 16 tokens · 128 KiB/token = 2 MiB per page (all layers), as in the workspace's own profile.
    await page.locator('.editor-group-container.active .monaco-editor .view-lines', { hasText: '× 2 MiB' }).first().waitFor({ timeout: 60_000 });
    await page.locator('.editor-group-container.active .squiggly-warning').first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(shots, '11-activated-by-opening.png') });
  });
});

/** `attnscope simulate e2e.attn.yaml --json .attnscope/runs/<id>.json` in `folder`, as a user runs it in a terminal: the run as the CLI saves it. */
function cliSimulate(folder: string, id: string): void {
  mkdirSync(join(folder, '.attnscope', 'runs'), { recursive: true });
  const r = spawnSync(process.execPath, [join(__dirname, '..', '..', 'dist', 'runner.js'), 'simulate', 'e2e.attn.yaml', '--json', join('.attnscope', 'runs', `${id}.json`)], { cwd: folder, encoding: 'utf8', env: { ...process.env, CUDA_VISIBLE_DEVICES: '' } });
  assert.equal(r.status, 0, `attnscope simulate in ${folder}: ${r.stderr}`);
}

// s33/s34: History, Compare and the Run button read the first workspace folder's runs only (fixed in
// fc703bf and here); no step opened a workspace of two folders.
describe('AttnScope in a two-folder workspace', { timeout: 600_000 }, () => {
  let browser: Browser;
  let server: CodeServer;
  let page: Page;
  let alpha: string;
  let beta: string;

  before(async () => {
    checkPrerequisites();
    alpha = makeWorkspace();
    beta = makeWorkspace();
    cliSimulate(alpha, '20261204-120000-alpha-cli');
    // The profile the typing step edits (its own: the others' stay as the workspace has them),
    // written before the workbench starts, so Quick Open's file search lists it.
    writeFileSync(join(beta, 'typing.attn.yaml'), readFileSync(join(beta, 'e2e.attn.yaml')));
    // Beta has no .attnscope yet: the step's CLI run makes it with `mkdir -p .attnscope/runs` while
    // the window is open, the case code-server's watcher (@parcel/watcher) missed 7 of 20 times at
    // load 17 (s36 e2e36) and extension/folderWatch.ts covers.
    assert.ok(!existsSync(join(beta, '.attnscope')));
    const file = join(tempDir('attnscope-e2e-multi-'), 'two.code-workspace');
    writeFileSync(file, JSON.stringify({ folders: [{ path: alpha, name: 'alpha' }, { path: beta, name: 'beta' }] }));
    // The fake runner (the recorded run, at once): the subject is which file runs where, not the kernels.
    server = await startCodeServer({ settings: { 'attnscope.quickMode': true, 'attnscope.runnerPath': fakeRunner(beta, 'ok') }, trust: false, log: join(shots, 'code-server-multi.log') });
    browser = await launchChromium();
    page = await openWorkbench(browser, server, file);
  });
  failureArtifacts(() => page);

  after(async () => {
    await browser?.close();
    server?.saveExtensionLog(join(shots, 'attnscope-multi.log'));
    await server?.stop();
  });

  it("lists both folders' runs in History, named by folder, and a run the CLI saves while it is open", async () => {
    // The extension is active (its first log lines) before the palette is opened: one opened right
    // after the workbench loaded listed no AttnScope command yet, and kept that list (s34). Opening
    // a profile activates it (onLanguage:yaml) even if the workspaceContains search timed out; it
    // is also the editor active before the one the next step opens.
    await openFile(page, join(alpha, 'e2e.attn.yaml'), 'dtpye');
    await server.extensionLogLine(/setting attnscope\.quickMode = true/, 120_000);
    await runCommand(page, 'AttnScope: Open dashboard');
    const frame = await dashboardFrame(page);
    await frame.locator('vscode-tab-header', { hasText: 'History' }).click();
    const history = frame.locator('table.table-history');
    await frame.waitForSelector('table.table-history[data-rows="1"]', { state: 'attached', timeout: 60_000 });
    // A CLI run, named by the runner by its file, listed as the editor names runs (s40 newcomer-ed F9).
    assert.match((await history.locator('tbody tr').first().textContent()) ?? '', /alpha: llama-3\.1-8b · e2e\.attn\.yaml · simulation/);
    // Saved by the CLI in the second folder while the dashboard is open, into a history folder it
    // makes with its parent: the dashboard's watcher lists it.
    cliSimulate(beta, '20261204-120500-beta-cli');
    const savedAt = Date.now();
    await frame.waitForSelector('table.table-history[data-rows="2"]', { state: 'attached', timeout: 60_000 });
    console.log(`[e2e] two folders: History listed the run the CLI saved in beta ${Date.now() - savedAt} ms after the save; load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} CPUs`);
    const rows = await history.locator('tbody tr').allTextContents();
    assert.ok(rows.some((r) => r.includes('beta: llama-3.1-8b · e2e.attn.yaml · simulation')) && rows.some((r) => r.includes('alpha: llama-3.1-8b · e2e.attn.yaml · simulation')), rows.join(' | '));
    await page.screenshot({ path: join(shots, '12-two-folders-history.png') });
  });

  // s35 CI: the finish toast came with beta's history empty. Quick Open had listed alpha's
  // e2e.attn.yaml ("recently opened") first for beta's path, Enter opened it, and the run was
  // alpha's, saved in alpha (harness openFile now waits for the file's own row and tab).
  // s39 newcomer-ed 9: the page opened with no run of its own shows the newest saved run (alpha's CLI
  // run, the only one when it opened), as one it did not make: the button names beta's file, the
  // editor active last, and runs it (showing that run made the button run alpha's profile: 55e53d3).
  it('runs, from the Run button of a dashboard that shows no run of its own (the newest saved run, another folder\'s), the profile of the editor active before it, named on the button, saved in its own folder', async () => {
    // Beside the dashboard (the second group), which stays in view.
    await runCommand(page, 'View: Focus First Editor Group');
    await openFile(page, join(beta, 'e2e.attn.yaml'), 'dtpye');
    const frame = await dashboardFrame(page);
    await frame.locator('vscode-tab-header', { hasText: /^\s*Run\s*$/ }).click();
    await frame.waitForSelector('#run-latest:not([hidden])', { timeout: 30_000 });
    assert.match((await frame.textContent('#run-latest')) ?? '', /^The newest saved run \(in alpha\)/);
    await frame.waitForFunction(() => document.querySelector('#btn-run')?.textContent === 'Run benchmark: beta/e2e.attn.yaml', undefined, { timeout: 30_000 });
    // The click gives the dashboard (a webview) the focus: the command then has no active text editor.
    await frame.locator('#btn-run').click();
    await notification(page, /benchmark of llama-3\.1-8b · e2e\.attn\.yaml · quick finished/, 120_000);
    // The toast follows the save (extension/benchmark.ts finish): the file is there now, in one folder or the other.
    const runsOf = (ws: string): string => savedRuns(ws).map((r) => `${r.kind ?? 'bench'} of ${r.profile.sourcePath}`).join(', ');
    const benches = savedRuns(beta).filter((r) => r.kind !== 'simulate');
    assert.equal(benches.length, 1, `the benchmark is saved in the second folder's history; beta holds [${runsOf(beta)}], alpha [${runsOf(alpha)}]`);
    assert.equal(benches[0]!.profile.sourcePath, join(beta, 'e2e.attn.yaml'), "the benchmark ran beta's profile");
    assert.equal(savedRuns(alpha).length, 1, `the first folder's history holds only its CLI run: [${runsOf(alpha)}]`);
  });

  // s39 newcomer-ed 1: Compare's own export (extension/exportCompare.ts), through VS Code's save
  // dialog (code-server's simple file dialog: a path in a quick input), proposed in the first folder.
  it("exports a comparison of two folders' runs from Compare's own buttons: the CSV file written, its header and a value; the Markdown table on the clipboard", async () => {
    const frame = await dashboardFrame(page);
    await frame.locator('vscode-tab-header', { hasText: 'History' }).click();
    // The two CLI simulations of e2e.attn.yaml (before()), picked by id in the pickers as a click would.
    await frame.waitForSelector('#compare-a vscode-option[value="20261204-120000-alpha-cli"]', { state: 'attached', timeout: 30_000 });
    await frame.evaluate(([a, b]) => {
      for (const [sel, id] of [['#compare-a', a], ['#compare-b', b]] as const) (document.querySelector(sel) as HTMLElement & { value: string }).value = id!;
    }, ['20261204-120000-alpha-cli', '20261204-120500-beta-cli']);
    await frame.locator('#btn-compare').click();
    await frame.locator('table.table-compare-pool').waitFor({ timeout: 30_000 });
    await frame.locator('#btn-compare-csv').click();
    const dialog = page.locator('.quick-input-widget');
    await dialog.locator('.quick-input-title', { hasText: 'Export the comparison' }).waitFor({ timeout: 30_000 });
    // The simple dialog fills its input in steps (the folder first, '/tmp/', then the name once it has
    // read the folder): Enter before the name is there saved nothing where this step looks (1 run in 2).
    await page.waitForFunction(() => /\/compare-[^/]*\.csv$/.test(document.querySelector<HTMLInputElement>('.quick-input-widget .quick-input-box input')?.value ?? ''), undefined, { timeout: 30_000 });
    await page.keyboard.press('Enter');
    await notification(page, /exported the comparison .* vs .* to /, 60_000);
    const written = readdirSync(alpha).filter((f) => /^compare-.*\.csv$/.test(f));
    assert.equal(written.length, 1, `one comparison CSV in the first folder: ${readdirSync(alpha).join(', ')}`);
    const lines = readFileSync(join(alpha, written[0]!), 'utf8').split(/\r?\n/);
    assert.equal(lines[0], 'figure,A,B,change,unit,source');
    // Which runs A and B are, by their history files (s40 newcomer-ed F3: the CSV named neither).
    assert.ok(lines.some((l) => l.startsWith('run file,20261204-120000-alpha-cli.json,20261204-120500-beta-cli.json,')), lines.join('\n'));
    // The profile's 200 requests (e2e.attn.yaml workload.requests), all completed in both runs (prompt max 2,048
    // + output max 128 within max_model_len 4,096: none rejected), as their saved run files say.
    const completed = (ws: string): number => savedRuns(ws).find((r) => r.kind === 'simulate')!.pool!.summary.completed;
    assert.deepEqual([completed(alpha), completed(beta)], [200, 200]);
    assert.ok(lines.some((l) => l.startsWith('requests completed,200,200,') && l.endsWith(',requests,simulated (page-pool simulation)')), lines.join('\n'));
    // Copy as Markdown: the same rows, as shown, on the clipboard (read back with the page's permission).
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(page.url()).origin });
    await frame.locator('#btn-compare-md').click();
    await notification(page, /copied the comparison .* vs .* \(\d+ rows\) as a Markdown table/, 60_000);
    await page.bringToFront();
    const md = await page.evaluate(() => navigator.clipboard.readText());
    assert.ok(md.includes('| figure | A | B | change | unit | source |'), md);
    assert.match(md, /^\| requests completed \| 200 \| 200 \| [^|\n]* \| requests \| simulated \(page-pool simulation\) \|$/m);
  });

  // The editor while a simulation's result lands (the recorded run, ~400 kB with its pool
  // samples: the extension reads and saves it, the dashboard draws it). Each keystroke's round
  // trip (Playwright's key press returns once the page has handled the key) is printed, for the
  // keys typed before the result is let go and for those typed while it lands: a figure, no bound.
  // Asserted: no keystroke is lost, and the profile is left as saved: its own file, which no other
  // step opens (typing into the shared e2e.attn.yaml and "File: Revert" had left it modified: the
  // browser editor auto-saves as one types, so Revert went back to the typed text).
  it('keeps every keystroke typed while a simulation finishes, and prints their round trips before and while its result lands', async () => {
    const file = join(beta, 'typing.attn.yaml');
    const gated = { 'attnscope.quickMode': true, 'attnscope.runnerPath': gatedRunner(beta, 'ok') };
    server.writeSettings(gated);
    await settingsInForce(page, gated);
    await runCommand(page, 'View: Focus First Editor Group');
    await openFile(page, file, 'dtpye');
    await runCommand(page, 'AttnScope: Run serving simulation');
    await notification(page, 'AttnScope: simulating llama-3.1-8b · typing.attn.yaml · simulation', 60_000);
    const pid = Number(/pid (\d+)/.exec(await server.extensionLogLine(/gated-runner: pid \d+ waits for SIGUSR1/, 60_000))![1]);
    // The caret at the end of the profile (a new line after `seed: 1`): a YAML comment, where the
    // editor offers no completions, that the language server analyses again at each key.
    await page.locator('.editor-group-container.active .monaco-editor.focused').first().waitFor({ timeout: 10_000 });
    await page.keyboard.press('Control+End');
    let finishedAt: number | undefined;
    let failed: unknown;
    const finished = notification(page, /llama-3\.1-8b · typing\.attn\.yaml · simulation finished/, 120_000).then(
      () => void (finishedAt = Date.now()),
      (err: unknown) => void (failed = err),
    );
    const phrase = '# typed while the result lands: the quick brown fox jumps over the lazy dog. ';
    const keys: Array<{ at: number; ms: number }> = [];
    let typed = '';
    let releasedAt: number | undefined;
    // About 20 keys a second, a fast typist's pace: 2 s of keys, then the result let go, then keys
    // until 1 s after the finish toast (at most 2,400 keys, 120 s).
    while (failed === undefined && keys.length < 2400 && (finishedAt === undefined || Date.now() < finishedAt + 1000)) {
      if (keys.length === 40) {
        process.kill(pid, 'SIGUSR1');
        releasedAt = Date.now();
      }
      const ch = phrase[typed.length % phrase.length]!;
      const at = Date.now();
      await page.keyboard.type(ch);
      keys.push({ at, ms: Date.now() - at });
      typed += ch;
      await page.waitForTimeout(Math.max(0, at + 50 - Date.now())); // the typing pace, not a wait for something
    }
    await finished;
    if (failed !== undefined) throw failed;
    const stats = (ms: number[]): string => {
      const sorted = [...ms].sort((a, b) => a - b);
      const q = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
      return `${ms.length} keys, median ${q(0.5)} ms, p95 ${q(0.95)} ms, max ${sorted.at(-1)} ms`;
    };
    const before = keys.filter((k) => k.at < releasedAt!).map((k) => k.ms);
    const landing = keys.filter((k) => k.at >= releasedAt!).map((k) => k.ms);
    console.log(`[e2e] typing while a simulation's result lands (fake runner, the recorded ~400 kB run; the finish toast ${finishedAt! - releasedAt!} ms after the result was let go): keystroke round trip before it: ${stats(before)}; from its release to 1 s after the toast: ${stats(landing)}; load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} CPUs; code-server at nice ${niceOf(server.pid)}`);
    // Every key in the file, in order: saved, the file on disk ends with them. (The browser editor
    // saves a second after the last key by default, files.autoSave "afterDelay" in VS Code for the
    // web: Control+S saves now. The tab shows no `dirty` class while a save is under way: the file
    // is what is read.)
    await page.keyboard.press('Control+S');
    for (const deadline = Date.now() + 30_000; !readFileSync(file, 'utf8').endsWith(typed); ) {
      assert.ok(Date.now() < deadline, `the saved profile ends with the ${typed.length} keys typed; it ends with ${JSON.stringify(readFileSync(file, 'utf8').slice(-typed.length))}`);
      await page.waitForTimeout(100); // the file has no event in this process but its change
    }
    assert.ok(savedRuns(beta).some((r) => r.name === 'llama-3.1-8b · typing.attn.yaml · simulation'), "the simulation is saved in beta's history");
    await page.screenshot({ path: join(shots, '13-typing-while-a-run-finishes.png') });
  });
});

/** A simulate sweep profile over kv_cache.page_size for the workspace's Llama-3.1-8B: `requests` per point, one point per page size. */
function sweepProfile(requests: number, pageSizes: number[]): string {
  return [
    'model: ./llama-3.1-8b/config.json',
    'device: { backend: cpu, memory_gib: 80 }',
    'workload:',
    `  requests: ${requests}`,
    '  arrival_rate: 8',
    '  prompt_len: { dist: lognormal, median: 256, sigma: 1, max: 2048 }',
    '  output_len: { dist: uniform, min: 16, max: 64 }',
    '  max_model_len: 4096',
    '  seed: 1',
    'sweep:',
    '  axes:',
    `    kv_cache.page_size: [${pageSizes.join(', ')}]`,
    '',
  ].join('\n');
}
