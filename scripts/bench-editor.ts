/**
 * npm run bench:editor — the huge profile (bench:lsp's hugeProfileText: the llama example + 60,000
 * comment lines, 5.2 MB) in a real VS Code: code-server 4.100.3 driven by Chromium, as test/e2e
 * does (scripts/e2e-setup.sh installs both; the packaged .vsix, npm run package). s46 newcomer-ed
 * M1 took 46 s from opening it to its first inlay hint at load ~20; the language server alone
 * needs about 1 s CPU (bench:lsp --huge-only). This says where the rest goes:
 *   - opened (Quick Open, Enter) -> its page_size hint drawn, after a small profile was opened
 *     first (the extension and its server already run), and
 *   - page_size 16 <-> 32 typed (the two digits selected and replaced by one edit) -> the new
 *     figure drawn, `--edits N` times,
 * each split by timestamps on one clock (core/timingLog.ts: the extension host's and the language
 * server's marks, ATTNSCOPE_TIMING_LOG, and this script's own), with the CPU time each process
 * spent in it (/proc/<pid>/stat utime + stime of code-server's and Chromium's process trees,
 * grouped by role), and the load average. Not a test: nothing is asserted beyond the hint showing.
 * The timing log is copied to test-results/e2e/bench-editor-timing.log.
 * Usage: npm run bench:editor [-- --port 8468] [--edits 4] [--vsix FILE]
 */
import { appendFileSync, copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { checkPrerequisites, launchChromium, makeWorkspace, openFile, openWorkbench, runCommand, shots, startCodeServer, VSIX } from '../test/e2e/harness';
import { hugeProfileText } from './bench-lsp';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const PORT = arg('--port') === undefined ? undefined : Number(arg('--port'));
const EDITS = Number(arg('--edits') ?? 4);
const HUGE = 'examples/bench-huge.attn.yaml';
/** The page_size line of the llama example (1-based), and the hint on it for 16 and 32 tokens a page ("T tokens · P × 2 MiB"): Llama-3.1-8B, 128 KiB of KV per token. */
const PAGE_SIZE_LINE = 12;
const HINT = { '16': '× 2 MiB', '32': '× 4 MiB' } as const;
/** The window an edit's CPU is summed over, ms from its keystroke: the same for the profile (hint drawn within it at load ~20) and the controls. */
const EDIT_WINDOW_MS = 5000;
/** The same text under names the extension does nothing with (VS Code's own cost of the file): a YAML file that is no profile, and plain text. */
const CONTROLS = ['examples/bench-huge-control.yaml', 'examples/bench-huge-control.txt'];

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (sysconf(_SC_CLK_TCK), 100 on Linux). */
const CLK_TCK = 100;

interface Proc {
  pid: number;
  ppid: number;
  cmd: string;
  cpuMs: number;
}

/** Every process now, from /proc: its parent, command line and CPU time (user + system) so far. */
function processes(): Map<number, Proc> {
  const all = new Map<number, Proc>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ');
      all.set(Number(name), { pid: Number(name), ppid: Number(f[1]), cmd, cpuMs: ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK });
    } catch {
      // gone meanwhile
    }
  }
  return all;
}

/** What a process is, by its command line: the groups the CPU table sums. */
function roleOf(cmd: string): string {
  if (cmd.includes('bench-editor')) return 'this bench (playwright)';
  if (cmd.includes('dist/server.js')) return 'language server';
  if (/--type=extensionHost|extensionHostProcess|bootstrap-fork.*extensionHost/.test(cmd)) return 'extension host';
  if (/ptyHost/.test(cmd)) return 'code-server pty host';
  if (/fileWatcher|watcherMain/.test(cmd)) return 'code-server file watcher';
  if (cmd.includes('chromium') || cmd.includes('chrome')) {
    const type = /--type=([\w-]+)/.exec(cmd)?.[1];
    return type === undefined ? 'chromium browser' : type === 'renderer' ? 'chromium renderer (the page)' : `chromium ${type}`;
  }
  if (cmd.includes('code-server')) return 'code-server';
  return cmd.split(' ')[0] ?? '?';
}

/** CPU ms so far of each process under `roots` (themselves included), by pid, with its role. */
function treeCpu(roots: number[]): Map<number, { role: string; cpuMs: number }> {
  const all = processes();
  const out = new Map<number, { role: string; cpuMs: number }>();
  const children = new Map<number, number[]>();
  for (const p of all.values()) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const stack = [...roots];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    const p = all.get(pid);
    if (p === undefined || out.has(pid)) continue;
    out.set(pid, { role: roleOf(p.cmd), cpuMs: p.cpuMs });
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** CPU ms by role between two treeCpu snapshots (a process that started in between counts from 0). */
function cpuByRole(before: Map<number, { cpuMs: number }>, after: Map<number, { role: string; cpuMs: number }>): Map<string, number> {
  const byRole = new Map<string, number>();
  for (const [pid, p] of after) byRole.set(p.role, (byRole.get(p.role) ?? 0) + p.cpuMs - (before.get(pid)?.cpuMs ?? 0));
  return byRole;
}

/** One line of the timing log: when (ms), which process role, its CPU ms so far, the event and its detail. */
interface Mark {
  at: number;
  role: string;
  cpu: number;
  event: string;
  detail: string;
}

function readMarks(file: string): Mark[] {
  return readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => {
    const m = /^(\d+) (\S+) \d+ cpu=(\d+) (\S+) ?(.*)$/.exec(l);
    if (m === null) throw new Error(`timing log: unreadable line ${l}`);
    return { at: Number(m[1]), role: m[2]!, cpu: Number(m[3]), event: m[4]!, detail: m[5]! };
  });
}

/** Resolves with the page's Date.now() once the active editor's visible lines contain `text` (a hint's spaces are no-break spaces there). */
async function drawnAt(page: Page, text: string, timeoutMs: number): Promise<number> {
  const handle = await page.waitForFunction(
    (want) => {
      const lines = document.querySelector('.editor-group-container.active .monaco-editor .view-lines');
      return (lines?.textContent ?? '').replace(/\u00a0/g, ' ').includes(want) ? Date.now() : 0;
    },
    text,
    { timeout: timeoutMs, polling: 20 },
  );
  return (await handle.jsonValue()) as number;
}

/** Resolves with the first mark of the timing log `file` that `match` accepts, at or after `since` (polled: the log has no event here). */
async function markAt(file: string, since: number, match: (m: Mark) => boolean, timeoutMs: number): Promise<Mark> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = readMarks(file).find((m) => m.at >= since && match(m));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no such mark in ${file} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function main(): Promise<void> {
  checkPrerequisites();
  const vsix = arg('--vsix') ?? VSIX;
  const ws = makeWorkspace();
  const text = hugeProfileText();
  writeFileSync(join(ws, HUGE), text);
  // The same text where the extension does nothing with it: a YAML file that is no profile, and plain text.
  for (const control of CONTROLS) writeFileSync(join(ws, control), text);
  const timing = join(ws, 'timing.log');
  writeFileSync(timing, '');
  const mark = (event: string, detail = ''): void => appendFileSync(timing, `${Date.now()} bench ${process.pid} cpu=0 ${event} ${detail}\n`);
  const server = await startCodeServer({ settings: {}, trust: false, log: join(shots, 'bench-editor-code-server.log'), vsix, port: PORT, env: { ATTNSCOPE_TIMING_LOG: timing } });
  const browser = await launchChromium();
  // code-server and Chromium are this process's children.
  const roots = (): number[] => [process.pid];
  const summary: string[] = [];
  const report = (title: string, t0: number, t1: number, cpu0: Map<number, { cpuMs: number }>, end: string): void => {
    const cpu = cpuByRole(cpu0, treeCpu(roots()));
    const marks = readMarks(timing).filter((m) => m.at >= t0 && m.at <= t1 + 50);
    const rows = [`\n${title}: ${((t1 - t0) / 1000).toFixed(2)} s wall, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`];
    rows.push("  timeline (ms after the start; each process's own CPU ms since its previous mark):");
    const lastCpu = new Map<string, number>();
    for (const m of marks) {
      const d = lastCpu.has(m.role) ? `+${m.cpu - lastCpu.get(m.role)!}` : '';
      if (m.role !== 'bench') lastCpu.set(m.role, m.cpu);
      rows.push(`  ${String(m.at - t0).padStart(7)}  ${m.role.padEnd(6)} ${d.padStart(6)}  ${m.event} ${m.detail.replaceAll(ws, '')}`);
    }
    rows.push(`  ${String(t1 - t0).padStart(7)}  ${end}`);
    rows.push('  CPU ms in that time, by process:');
    const byRole = [...cpu].sort((a, b) => b[1] - a[1]).filter(([, ms]) => ms >= 5);
    for (const [role, ms] of byRole) rows.push(`    ${role.padEnd(36)} ${ms.toFixed(0).padStart(7)}`);
    console.log(rows.join('\n'));
    summary.push(`${title.padEnd(44)} ${((t1 - t0) / 1000).toFixed(2).padStart(6)} s  CPU ${byRole.slice(0, 4).map(([r, ms]) => `${r.replace(/ \(.*\)/, '')} ${(ms / 1000).toFixed(2)}`).join(', ')}`);
  };
  /** Goes to the page_size line and selects its two digits: one edit replaces them. */
  const selectPageSize = async (page: Page): Promise<void> => {
    await page.keyboard.press('Control+G');
    await page.locator('.quick-input-widget input').waitFor({ state: 'visible', timeout: 10_000 });
    await page.keyboard.type(String(PAGE_SIZE_LINE));
    await page.keyboard.press('Enter');
    await page.keyboard.press('End');
    await page.keyboard.press('Shift+ArrowLeft');
    await page.keyboard.press('Shift+ArrowLeft');
  };
  /** The CPU of an edit by process, over EDIT_WINDOW_MS from its keystroke (the same window for the profile and the controls). */
  const settle = async (t0: number, cpu0: Map<number, { cpuMs: number }>, what: string): Promise<void> => {
    await new Promise((r) => setTimeout(r, Math.max(0, t0 + EDIT_WINDOW_MS - Date.now())));
    const byRole = [...cpuByRole(cpu0, treeCpu(roots()))].sort((a, b) => b[1] - a[1]).filter(([, ms]) => ms >= 5);
    editCpu.push(`${what.padEnd(44)} ${byRole.slice(0, 5).map(([r, ms]) => `${r.replace(/ \(.*\)/, '')} ${(ms / 1000).toFixed(2)}`).join(', ')}`);
  };
  const editCpu: string[] = [];
  try {
    const page = await openWorkbench(browser, server, ws);
    // The extension and its language server start with the first profile: not part of the figure.
    await openFile(page, 'examples/llama-3.1-8b.attn.yaml', 'page_size');
    await drawnAt(page, HINT['16'], 120_000);
    console.log(`huge profile in code-server: ${HUGE} (${(text.length / 1e6).toFixed(1)} MB, ${text.split('\n').length - 1} lines), port ${new URL(server.url).port}`);
    let cpu0 = treeCpu(roots());
    let t0 = Date.now();
    mark('open', HUGE);
    await openFile(page, HUGE, 'page_size');
    mark('text-shown', HUGE);
    let t1 = await drawnAt(page, HINT['16'], 300_000);
    report('opened -> page_size hint', t0, t1, cpu0, 'page   hint drawn');
    for (let i = 0; i < EDITS; i++) {
      const [from, to] = i % 2 === 0 ? (['16', '32'] as const) : (['32', '16'] as const);
      await selectPageSize(page);
      cpu0 = treeCpu(roots());
      t0 = Date.now();
      mark('type', `page_size ${from} -> ${to}`);
      await page.keyboard.insertText(to);
      t1 = await drawnAt(page, HINT[to], 300_000);
      report(`page_size ${from} -> ${to} -> its hint`, t0, t1, cpu0, 'page   hint drawn');
      await settle(t0, cpu0, `page_size ${from} -> ${to}`);
    }
    for (const control of CONTROLS) {
      await runCommand(page, 'View: Close All Editors');
      cpu0 = treeCpu(roots());
      t0 = Date.now();
      mark('open', control);
      await openFile(page, control, 'page_size');
      mark('text-shown', control);
      const reached = await markAt(timing, t0, (m) => m.event === 'document-opened' && m.detail.includes(control), 300_000);
      report(`control: ${control} opened -> in the extension host`, t0, reached.at, cpu0, 'ext    (the document reached the extension host)');
      for (let i = 0; i < Math.min(EDITS, 2); i++) {
        await selectPageSize(page);
        cpu0 = treeCpu(roots());
        t0 = Date.now();
        mark('type', `${control} page_size`);
        await page.keyboard.insertText(i % 2 === 0 ? '32' : '16');
        await markAt(timing, t0, (m) => m.event === 'document-changed' && m.detail.includes(control), 60_000);
        await settle(t0, cpu0, `control ${control.split('.').at(-1)}: page_size`);
      }
    }
  } finally {
    await browser.close().catch(() => undefined);
    await server.stop();
    copyFileSync(timing, join(shots, 'bench-editor-timing.log'));
  }
  console.log(`\nsummary (wall, then the four processes that spent the most CPU, s):\n${summary.join('\n')}`);
  console.log(`\nCPU of one edit over ${EDIT_WINDOW_MS / 1000} s from its keystroke, the five processes that spent the most (s):\n${editCpu.join('\n')}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
