// Trace readers where a newcomer's trace met a silent surprise (session 31): a BurstGPT filter in
// another case than the trace's values, a filter that keeps no row, and stamps written in
// milliseconds read as seconds (a 2.5-minute trace replayed as 41.7 hours). Values counted by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readTraceFile, TraceError } from '../../runner/simulate/index';
import { tempDir } from '../fixtures/tmp';

const burstgpt = resolve(__dirname, 'fixtures/traces/burstgpt.csv');
const tmp = tempDir('attnscope-trace-units-');
const write = (name: string, text: string) => {
  writeFileSync(join(tmp, name), text);
  return join(tmp, name);
};
const cliLine = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof TraceError) return e.format();
    throw e;
  }
  return 'no error';
};

test('BurstGPT filters compare ignoring case: "chatgpt" and "conversation LOG" keep the rows "ChatGPT" and "Conversation log" keep', () => {
  // burstgpt.csv: t 5 ChatGPT 472/18 conv; t 45 ChatGPT 0 response; t 118 GPT-4 417/276 conv;
  // t 131 ChatGPT 1360/115 API; t 160 ChatGPT 0 response API. ChatGPT keeps t 5 and t 131.
  const lower = readTraceFile(burstgpt, { maxModelLen: 8192, model: 'chatgpt' });
  assert.equal(lower.count, 2);
  assert.deepEqual([...lower.requests.arrivalS], [0, 126]);
  const conv = readTraceFile(burstgpt, { maxModelLen: 8192, logType: 'conversation LOG' });
  assert.deepEqual([...conv.requests.promptLen], [472, 417]);
  // A row written with quotes goes through the slow path: the same rule there.
  const quoted = write('quoted.csv', 'Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n1,"CHATGPT",10,5,15,"API log"\n2,"GPT-4",10,5,15,"API log"\n');
  assert.equal(readTraceFile(quoted, { maxModelLen: 8192, model: 'ChatGpt' }).count, 1);
});

test('a BurstGPT filter that keeps no row names the values the trace has, with their rows, and the flag to give one to', () => {
  // All 5 rows are dropped by the Model filter before the 0-response check: ChatGPT 4 rows, GPT-4 1.
  assert.equal(
    cliLine(() => readTraceFile(burstgpt, { maxModelLen: 8192, model: 'gpt4' })),
    `${burstgpt}:1:1: the burstgpt trace holds no requests (dropped: 5 of another Model than gpt4); its Model values: "ChatGPT" (4 rows), "GPT-4" (1 row): give one of them to --trace-model`,
  );
  // The Model filter kept rows (ChatGPT's 4), so only the Log Type filter's values are named: of those rows, 2 conversation, 2 API.
  assert.equal(
    cliLine(() => readTraceFile(burstgpt, { maxModelLen: 8192, model: 'ChatGPT', logType: 'chat' })),
    `${burstgpt}:1:1: the burstgpt trace holds no requests (dropped: 4 of another Log Type than chat, 1 of another Model than ChatGPT); its Log Type values: "Conversation log" (2 rows), "API log" (2 rows): give one of them to --trace-log-type`,
  );
});

/** `n` attnscope JSONL requests `gapMs` apart, stamped in milliseconds into arrival_s. */
function msTrace(name: string, n: number, gapMs: number): string {
  return write(name, Array.from({ length: n }, (_, i) => JSON.stringify({ arrival_s: i * gapMs, prompt_len: 100, output_len: 10 })).join('\n') + '\n');
}

test('stamps in milliseconds read as seconds are refused at the latest arrival: span > 6 h with a median gap > 60 s; --trace-time-unit ms reads them, s replays them as written', () => {
  // 30 requests 1,000 ms apart: read as seconds they span 29,000 s = 8.06 h with every gap 1,000 s.
  const file = msTrace('ms.jsonl', 30, 1000);
  assert.equal(
    cliLine(() => readTraceFile(file, { maxModelLen: 8192 })),
    `${file}:30:1: the attnscope trace read in seconds (arrival_s, seconds) spans 8.06 hours, and most gaps between its arrivals are over 60 s (29 of 29): its timestamps look like milliseconds: pass --trace-time-unit ms (or --trace-time-unit s to replay them as seconds)`,
  );
  const ms = readTraceFile(file, { maxModelLen: 8192, timeUnit: 'ms' });
  assert.equal(ms.requests.arrivalS[29], 29);
  assert.equal(ms.timeUnit, 'arrival_s, milliseconds (--trace-time-unit ms)');
  assert.deepEqual([ms.timeColumn, ms.stampUnit], ['arrival_s', 'ms']);
  const s = readTraceFile(file, { maxModelLen: 8192, timeUnit: 's' });
  assert.equal(s.requests.arrivalS[29], 29_000);
  // Under the span (300 requests 61 s apart: 5.07 h) or with most gaps short, seconds are believed.
  assert.equal(readTraceFile(msTrace('short.jsonl', 300, 61), { maxModelLen: 8192 }).count, 300);
  const burst = write('burst.jsonl', [0, 1, 2, 3, 100_000].map((t) => JSON.stringify({ arrival_s: t, prompt_len: 100, output_len: 10 })).join('\n'));
  assert.equal(readTraceFile(burst, { maxModelLen: 8192 }).count, 5);
});

test('--trace-time-unit on a format in milliseconds (Mooncake) reads its stamps as seconds; on Azure\'s datetimes it is refused', () => {
  const mooncake = write('mc.jsonl', '{"timestamp": 0, "input_length": 100, "output_length": 10}\n{"timestamp": 3, "input_length": 100, "output_length": 10}\n');
  assert.equal(readTraceFile(mooncake, { maxModelLen: 8192 }).requests.arrivalS[1], 0.003);
  assert.equal(readTraceFile(mooncake, { maxModelLen: 8192, timeUnit: 's' }).requests.arrivalS[1], 3);
  const azure = resolve(__dirname, 'fixtures/traces/azure-code.csv');
  assert.equal(cliLine(() => readTraceFile(azure, { maxModelLen: 8192, timeUnit: 'ms' })), `${azure}:1:1: --trace-time-unit ms: this azure trace's TIMESTAMP is a datetime, which says its own time; leave --trace-time-unit out`);
});

test('--trace-time-unit ms on arrival_s stamps that read as seconds (no ms pattern) warns: arrival_s names its unit; on ms-looking stamps it stays silent', () => {
  // 6 requests 0.154 s apart (examples/chat-trace.jsonl's shape): span 0.77 s as written; read as ms, 770 µs.
  const file = write('secs.jsonl', [0, 0.154, 0.308, 0.462, 0.616, 0.77].map((t) => JSON.stringify({ arrival_s: t, prompt_len: 100, output_len: 10 })).join('\n') + '\n');
  const warnings: string[] = [];
  const r = readTraceFile(file, { maxModelLen: 8192, timeUnit: 'ms', warnings });
  assert.ok(Math.abs(r.requests.arrivalS[5]! - 0.00077) < 1e-12);
  assert.deepEqual(warnings, [
    `${file}:1:1: warning: arrival_s is in seconds by its name, but --trace-time-unit ms reads it as milliseconds: the arrivals span 770 µs, not 770 ms; leave --trace-time-unit out unless the file holds milliseconds`,
  ]);
  // 30 stamps 1,000 apart look like milliseconds (the refusal above asks for the flag): no warning.
  const quiet: string[] = [];
  readTraceFile(msTrace('ms2.jsonl', 30, 1000), { maxModelLen: 8192, timeUnit: 'ms', warnings: quiet });
  assert.deepEqual(quiet, []);
});
