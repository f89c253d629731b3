// The server's check of a profile's workload.trace is bounded: the runner's child is killed when
// it reads past its time limit (a diagnostic and the hover then say how to check the trace), when
// the file changes again, and when no open document reads the trace any more. No sleeps: the
// fake checker's promises settle on the abort signals, the real runner's child on its exit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tempDir } from '../fixtures/tmp';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TextDocuments } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { hover } from '../../server/hover';
import { checkTrace, traceTimeoutText, type TraceCheck, type TraceSettings } from '../../server/traceCheck';
import { Workspace } from '../../server/workspace';
import { positionAt } from './harness';

const root = join(import.meta.dirname, '..', '..');
const runnerPath = join(root, 'dist', 'runner.js');
const ROW = '{"arrival_s": 0, "prompt_len": 1000, "output_len": 11}\n';

function log() {
  return { error: (): void => undefined, info: (): void => undefined } as never;
}

/** A folder with the example Llama config and a profile that replays ./t.jsonl; the profile is an open document of `workspace`. */
function setup(checker: (path: string, settings: TraceSettings, signal: AbortSignal) => Promise<TraceCheck>) {
  const dir = tempDir('attnscope-trace-check-');
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
  const { dir, tracePath, uri, workspace } = setup((_path, _settings, signal) => {
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
  const dir = tempDir('attnscope-trace-big-');
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

test("the editor's check reads the trace with the profile's workload.trace_time_unit / trace_model: a trace in milliseconds is refused naming the key, replayed with trace_time_unit: ms; a refused setting is said at its key", async () => {
  const dir = tempDir('attnscope-trace-keys-');
  try {
    writeFileSync(join(dir, 'config.json'), readFileSync(join(root, 'examples', 'llama-3.1-8b', 'config.json')));
    // 10 requests 100,000 apart: milliseconds written where seconds are read (250 h, every gap over 60 s).
    writeFileSync(join(dir, 'ms.jsonl'), Array.from({ length: 10 }, (_, i) => `{"arrival_s": ${i * 100000}, "prompt_len": 100, "output_len": 10}\n`).join(''));
    const uri = pathToFileURL(join(dir, 'p.attn.yaml')).href;
    const base = 'model: ./config.json\ndevice: { gpu: H100 SXM }\nkv_cache: { memory_gib: 16 }\nworkload:\n  trace: ./ms.jsonl\n';
    const docs = new Map<string, TextDocument>();
    const workspace = new Workspace({ get: (u: string) => docs.get(u) } as unknown as TextDocuments<TextDocument>, log());
    workspace.traceChecker = (path, settings, signal) => checkTrace(runnerPath, path, { settings, signal });
    workspace.opened(uri);
    let version = 0;
    /** The profile's problems once the runner answered for this text. */
    const checked = async (text: string) => {
      docs.set(uri, TextDocument.create(uri, 'yaml', ++version, text));
      const answered = new Promise<void>((r) => (workspace.onTraceChecked = () => r()));
      workspace.problems(uri);
      await answered;
      return workspace.problems(uri)!.problems.filter((p) => p.code.startsWith('trace-'));
    };
    const refused = await checked(base);
    assert.equal(refused.length, 1);
    assert.equal(base.slice(refused[0]!.range.offset, refused[0]!.range.offset + refused[0]!.range.length), './ms.jsonl');
    assert.match(refused[0]!.message, /its timestamps look like milliseconds: set workload\.trace_time_unit: ms \(or workload\.trace_time_unit: s to replay them as seconds\)$/);
    const ms = `${base}  trace_time_unit: ms\n`;
    assert.deepEqual(await checked(ms), []);
    // 9 gaps of 100 s: 900 s = 15 min.
    const shown = (hover(workspace.analysis(uri)!, positionAt(ms, ms.indexOf('./ms.jsonl') + 2))?.contents as { value: string }).value;
    assert.match(shown, /\*\*Trace \.\/ms\.jsonl: attnscope trace: 10 requests over 15 min, mean 100 prompt \/ 10 output tokens\*\*/);
    // A BurstGPT filter on an attnscope trace: refused at trace_model, naming the keys.
    const filtered = `${ms}  trace_model: ChatGPT\n`;
    const wrong = await checked(filtered);
    assert.equal(wrong.length, 1);
    assert.equal(filtered.slice(wrong[0]!.range.offset, wrong[0]!.range.offset + wrong[0]!.range.length), 'ChatGPT');
    assert.match(wrong[0]!.message, /: workload\.trace_model and workload\.trace_log_type filter BurstGPT traces only; this trace is attnscope$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("every bad row of a profile's trace: the runner's answer carries each (file:line:col), and the editor shows them in one diagnostic at workload.trace, a line each", async () => {
  const dir = tempDir('attnscope-trace-rows-');
  try {
    writeFileSync(join(dir, 'config.json'), readFileSync(join(root, 'examples', 'llama-3.1-8b', 'config.json')));
    const tracePath = join(dir, 't.jsonl');
    // Line 2: `{"arrival_s": 1, "prompt_len": ` is 31 characters (-5 at column 32); line 4:
    // `{"arrival_s": 3, "prompt_len": 10, "output_len": ` is 49 (0 at column 50).
    writeFileSync(tracePath, `${ROW}{"arrival_s": 1, "prompt_len": -5, "output_len": 11}\n${ROW}{"arrival_s": 3, "prompt_len": 10, "output_len": 0}\n`);
    const answer = await checkTrace(runnerPath, tracePath);
    assert.deepEqual(answer, {
      errors: [
        { file: tracePath, line: 2, column: 32, message: '"prompt_len" must be >= 1, got -5' },
        { file: tracePath, line: 4, column: 50, message: '"output_len" must be >= 1, got 0' },
      ],
    });
    const uri = pathToFileURL(join(dir, 'p.attn.yaml')).href;
    const text = 'model: ./config.json\ndevice: { gpu: H100 SXM }\nkv_cache: { memory_gib: 16 }\nworkload:\n  trace: ./t.jsonl\n';
    const docs = new Map([[uri, TextDocument.create(uri, 'yaml', 1, text)]]);
    const workspace = new Workspace({ get: (u: string) => docs.get(u) } as unknown as TextDocuments<TextDocument>, log());
    workspace.traceChecker = (path, settings, signal) => checkTrace(runnerPath, path, { settings, signal });
    workspace.opened(uri);
    const answered = new Promise<void>((r) => (workspace.onTraceChecked = () => r()));
    workspace.problems(uri);
    await answered;
    const found = workspace.problems(uri)!.problems.filter((p) => p.code.startsWith('trace-'));
    assert.deepEqual(found.map((p) => [p.code, p.message, p.range]), [[
      'trace-invalid',
      `the trace ./t.jsonl cannot be replayed:\n${tracePath}:2:32: "prompt_len" must be >= 1, got -5\n${tracePath}:4:50: "output_len" must be >= 1, got 0`,
      { offset: text.indexOf('./t.jsonl'), length: './t.jsonl'.length },
    ]]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
