// The server's check of a profile's workload.trace is bounded: the runner's child is killed when
// it reads past its time limit (a diagnostic and the hover then say how to check the trace), when
// the file changes again, and when no open document reads the trace any more. No sleeps: the
// fake checker's promises settle on the abort signals, the real runner's child on its exit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TextDocuments } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { hover } from '../../server/hover';
import { checkTrace, traceTimeoutText, type TraceCheck } from '../../server/traceCheck';
import { Workspace } from '../../server/workspace';
import { positionAt } from './harness';

const root = join(import.meta.dirname, '..', '..');
const runnerPath = join(root, 'dist', 'runner.js');
const ROW = '{"arrival_s": 0, "prompt_len": 1000, "output_len": 11}\n';

function log() {
  return { error: (): void => undefined, info: (): void => undefined } as never;
}

/** A folder with the example Llama config and a profile that replays ./t.jsonl; the profile is an open document of `workspace`. */
function setup(checker: (path: string, signal: AbortSignal) => Promise<TraceCheck>) {
  const dir = mkdtempSync(join(tmpdir(), 'attnscope-trace-check-'));
  writeFileSync(join(dir, 'config.json'), readFileSync(join(root, 'examples', 'llama-3.1-8b', 'config.json')));
  const tracePath = join(dir, 't.jsonl');
  writeFileSync(tracePath, ROW);
  const uri = pathToFileURL(join(dir, 'p.attn.yaml')).href;
  const text = 'model: ./config.json\ndevice: { gpu: H100 SXM }\nkv_cache: { memory_gib: 16 }\nworkload:\n  trace: ./t.jsonl\n  max_model_len: 8192\n';
  const docs = new Map([[uri, TextDocument.create(uri, 'yaml', 1, text)]]);
  const workspace = new Workspace({ get: (u: string) => docs.get(u) } as unknown as TextDocuments<TextDocument>, log());
  workspace.traceChecker = checker;
  workspace.opened(uri);
  return { dir, tracePath, uri, text, workspace };
}

test('a check still running is stopped (its signal aborted) when the trace changes again, and when the last document reading it closes', () => {
  const signals: AbortSignal[] = [];
  const { dir, tracePath, uri, workspace } = setup((_path, signal) => {
    signals.push(signal);
    return new Promise((done) => signal.addEventListener('abort', () => done({ failed: 'cancelled' })));
  });
  try {
    workspace.problems(uri);
    assert.equal(signals.length, 1, 'the first version of the trace is being checked');
    assert.equal(signals[0]!.aborted, false);
    // Appended to (another size, another stat): the first check's child is killed, a second one reads it.
    writeFileSync(tracePath, ROW + ROW);
    assert.deepEqual(workspace.fileChanged(tracePath), [uri]);
    workspace.problems(uri);
    assert.equal(signals.length, 2);
    assert.deepEqual(signals.map((s) => s.aborted), [true, false]);
    // The profile closes: no open document reads the trace, so its check stops too.
    workspace.closed(uri);
    assert.deepEqual(signals.map((s) => s.aborted), [true, true]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a check that ran out of time: an info diagnostic at workload.trace and the hover say so, with the size and the command that checks it', async () => {
  // 1,048,576 B = "1 MiB" (core/format formatBytes); 20,000 ms = "20 s".
  let answered!: () => void;
  const checked = new Promise<void>((r) => (answered = r));
  const { dir, uri, text, workspace } = setup(async () => ({ timedOut: { afterMs: 20_000, bytes: 1_048_576 } }));
  workspace.onTraceChecked = () => answered();
  try {
    workspace.problems(uri);
    await checked;
    const expected = "the trace ./t.jsonl (1 MiB) was not checked: reading it took longer than 20 s, so the editor stopped; `attnscope trace ./t.jsonl` in a terminal checks it (`simulate` reads it whole)";
    const found = workspace.problems(uri)!.problems.filter((p) => p.code === 'trace-not-checked');
    assert.deepEqual(found.map((p) => [p.severity, p.message, p.range]), [['info', expected, { offset: text.indexOf('./t.jsonl'), length: './t.jsonl'.length }]]);
    const shown = hover(workspace.analysis(uri)!, positionAt(text, text.indexOf('./t.jsonl') + 2));
    const value = (shown?.contents as { value: string }).value;
    assert.ok(value.includes(`Trace ./t.jsonl: ${expected}`), value);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('checkTrace on a generated 48 MiB trace: past its time limit the runner is killed and the answer says after how long and how big; an abort kills it too', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'attnscope-trace-big-'));
  try {
    // 48 MiB of one 56-byte row repeated: 898,779 rows (no reader gets through it before a 1 ms limit).
    const big = join(dir, 'big.jsonl');
    const rows = Math.floor((48 << 20) / ROW.length);
    writeFileSync(big, Buffer.from(ROW.repeat(rows)));
    const bytes = rows * ROW.length;
    let pid = 0;
    const timedOut = await checkTrace(runnerPath, big, { timeoutMs: 1, onSpawn: (p) => (pid = p) });
    assert.deepEqual(timedOut, { timedOut: { afterMs: 1, bytes } });
    assert.ok(pid > 0);
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, 'the child is gone');
    assert.equal(traceTimeoutText('./big.jsonl', { afterMs: 20_000, bytes }), "the trace ./big.jsonl (48 MiB) was not checked: reading it took longer than 20 s, so the editor stopped; `attnscope trace ./big.jsonl` in a terminal checks it (`simulate` reads it whole)");
    // Aborted as soon as it started (the file changed again): killed, answered as cancelled.
    const stop = new AbortController();
    const cancelled = await checkTrace(runnerPath, big, { signal: stop.signal, onSpawn: (p) => ((pid = p), stop.abort()) });
    assert.deepEqual(cancelled, { failed: 'cancelled' });
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
