// Trace readers on small files whose values are counted by hand (test/unit/fixtures/traces/):
// format detection, time units, dropped rows, max_model_len warnings by file:line, Mooncake
// hash_ids becoming page-level prefix hits at page_size 16, 32 and 48, the vllm bench serve
// result, streaming across chunk boundaries, and errors naming file:line:col.
import { test } from 'node:test';
import fc from 'fast-check';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Profile } from '../../core/config/types';
import { DatetimeBytes, parseDecimal, parseDigits } from '../../runner/simulate/lines';
import { detectTraceFormat, forEachLine, parseDatetimeSeconds, readTraceFile, readVllmResult, simulatePool, splitCsv, TraceError } from '../../runner/simulate/index';
import { exampleProfile } from '../fixtures/profile';
import { tempDir } from '../fixtures/tmp';
import { maxModelLenOf } from '../../core/estimate/index';
import { vllmBenchArrivals } from '../../runner/simulate/traces';
import { TRACE_ERROR_KINDS_SHOWN, TRACE_ERRORS_SHOWN } from '../../runner/simulate/trace';
import { InputErrors } from '../../runner/errors';
import { Rng } from '../../runner/random';

const DIR = resolve(__dirname, 'fixtures/traces');
const fixture = (name: string) => join(DIR, name);
const tmp = tempDir('attnscope-traces-');
const write = (name: string, text: string) => {
  writeFileSync(join(tmp, name), text);
  return join(tmp, name);
};
/** What the CLI prints for the TraceError f throws, or for every error of an InputErrors (a line each). */
const cliLine = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof TraceError || e instanceof InputErrors) return e.format();
    throw e;
  }
  return 'no error';
};

function profile(yaml: string): Profile {
  return exampleProfile(`model: ./llama-3.1-8b/config.json\n${yaml}`);
}

test('formats are detected from the header or the first line\'s keys', () => {
  assert.equal(detectTraceFormat(fixture('azure-code.csv')), 'azure');
  assert.equal(detectTraceFormat(fixture('burstgpt.csv')), 'burstgpt');
  assert.equal(detectTraceFormat(fixture('mooncake.jsonl')), 'mooncake');
  assert.equal(detectTraceFormat(write('own.jsonl', '{"arrival_s": 0, "prompt_len": 3, "output_len": 1}\n')), 'attnscope');
  assert.equal(detectTraceFormat(write('bench.json', '{\n  "date": "20250101-000000",\n  "input_lens": [1]\n}\n')), 'vllm-bench');
  assert.match(cliLine(() => detectTraceFormat(write('other.csv', 'a,b,c\n1,2,3\n'))), /other\.csv:1:1: unknown trace format: expected attnscope JSONL/);
});

test('--trace-format of the other kind than the file (JSONL on a CSV, a CSV on JSON) says what it expects and what the file looks like', () => {
  const azure = write('azure-for-mooncake.csv', '\nTIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.0,12,3\n');
  assert.equal(cliLine(() => readTraceFile(azure, { maxModelLen: 8192, format: 'mooncake' })),
    `${azure}:2:1: --trace-format mooncake expects Mooncake JSONL (timestamp, input_length, output_length, hash_ids), but this file looks like an Azure LLM inference CSV (TIMESTAMP,ContextTokens,GeneratedTokens): pass --trace-format azure, or leave --trace-format out to detect it`);
  const own = write('own-for-burstgpt.jsonl', '{"arrival_s": 0, "prompt_len": 3, "output_len": 1}\n');
  assert.match(cliLine(() => readTraceFile(own, { maxModelLen: 8192, format: 'burstgpt' })), /own-for-burstgpt\.jsonl:1:1: --trace-format burstgpt expects a BurstGPT CSV \(Timestamp,Model,Request tokens,Response tokens,\.\.\.\), but this file's first line opens a JSON document: leave --trace-format out to detect its format$/);
  // Same kind: left to the format's reader (attnscope JSONL read as Mooncake misses Mooncake's keys).
  assert.doesNotMatch(cliLine(() => readTraceFile(own, { maxModelLen: 8192, format: 'mooncake' })), /expects/);
});

test('trace detection reads the first line that is not blank; an empty trace says it is empty', () => {
  assert.equal(detectTraceFormat(write('blank-first.jsonl', '\n\r\n  \n{"arrival_s": 0, "prompt_len": 3, "output_len": 1}\n')), 'attnscope');
  assert.match(cliLine(() => detectTraceFormat(write('blank-other.csv', '\n\na,b,c\n'))), /blank-other\.csv:3:1: unknown trace format/);
  for (const text of ['', '\n\n  \n']) {
    assert.match(cliLine(() => detectTraceFormat(write('empty.jsonl', text))), /empty\.jsonl:1:1: the trace is empty/);
  }
});

test('Azure and BurstGPT CSVs with blank lines before the header are read, and rows keep their file line numbers', () => {
  // Three blank lines (one CRLF, one of spaces) push the header to line 4, the rows to lines 5-7.
  const azure = write('azure-blank.csv', '\n\r\n   \nTIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.0,12,3\n2023-11-16 18:15:48.5,9000,4\nyesterday,5,5\n');
  assert.equal(detectTraceFormat(azure), 'azure');
  // Line 7's bad stamp is reported at 7:1, line 6's rejected prompt at 6:1 (hand-counted).
  assert.equal(cliLine(() => readTraceFile(azure, { maxModelLen: 8192 })), `${azure}:7:1: TIMESTAMP must be a valid datetime like 2023-11-16 18:15:46.6805900 (month 1-12, a day the month has, hour 0-23, minute and second 0-59; an offset Z or ±HH:MM), got "yesterday"`);
  const good = write('azure-blank-good.csv', readFileSync(azure, 'utf8').replace('yesterday,5,5\n', ''));
  const warnings: string[] = [];
  const r = readTraceFile(good, { maxModelLen: 8192, warnings });
  assert.deepEqual([...r.requests.arrivalS], [0, 2.5]);
  assert.deepEqual([...r.requests.promptLen], [12, 9000]);
  assert.deepEqual(warnings, [`${good}:6:1: warning: prompt of 9,000 tokens reaches max_model_len 8,192: the request is rejected`]);
  const burst = write('burst-blank.csv', '\n\nTimestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,472,18,490,Conversation log\n7,ChatGPT,x,1,2,API log\n');
  assert.equal(detectTraceFormat(burst), 'burstgpt');
  assert.equal(cliLine(() => readTraceFile(burst, { maxModelLen: 8192 })), `${burst}:5:11: Request tokens must be an integer from 1 to 2,147,483,647, got "x"`);
  // A header lacking a column is reported at its own line (3), with the format forced past detection.
  const noCol = write('burst-nocol.csv', '\n\nTimestamp,Model,Request tokens\n5,ChatGPT,472\n');
  assert.equal(cliLine(() => readTraceFile(noCol, { maxModelLen: 8192, format: 'burstgpt' })), `${noCol}:3:1: the burstgpt header lacks Response tokens`);
});

test('an empty or blank token cell in a BurstGPT or Azure CSV is refused at its column, not dropped as a failed request', () => {
  // BurstGPT writes a failed request as 0 response tokens; an empty cell is a half-written row.
  // Columns hand-counted: "6,ChatGPT," puts Request tokens at 11; "7,ChatGPT,300," Response tokens at 15.
  const head = 'Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,472,18,490,Conversation log\n';
  const req = write('burst-empty-req.csv', `${head}6,ChatGPT,,30,490,Conversation log\n`);
  assert.equal(cliLine(() => readTraceFile(req, { maxModelLen: 8192 })), `${req}:3:11: Request tokens must be an integer from 1 to 2,147,483,647, got an empty cell`);
  const resp = write('burst-empty-resp.csv', `${head}7,ChatGPT,300,  ,300,Conversation log\n`);
  assert.equal(cliLine(() => readTraceFile(resp, { maxModelLen: 8192 })), `${resp}:3:15: Response tokens must be an integer from 1 to 2,147,483,647, got an empty cell`);
  // The only row: reported at its own line 2, not as "no requests" at the header's 1:1.
  const only = write('burst-empty-only.csv', 'Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,472,,490,Conversation log\n');
  assert.equal(cliLine(() => readTraceFile(only, { maxModelLen: 8192 })), `${only}:2:15: Response tokens must be an integer from 1 to 2,147,483,647, got an empty cell`);
  // An empty Timestamp is not second 0.
  const stamp = write('burst-empty-stamp.csv', `${head},ChatGPT,300,20,320,Conversation log\n`);
  assert.equal(cliLine(() => readTraceFile(stamp, { maxModelLen: 8192 })), `${stamp}:3:1: Timestamp must be a number of seconds, got an empty cell`);
  // Azure: "2023-11-16 18:15:46.6805900,374," is 32 characters, so GeneratedTokens is at 33.
  const az = write('azure-empty.csv', 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,\n2023-11-16 18:15:47.6805900,374,0\n');
  assert.equal(cliLine(() => readTraceFile(az, { maxModelLen: 8192 })), `${az}:2:33: GeneratedTokens must be an integer from 1 to 2,147,483,647, got an empty cell`);
  // A written 0 is still a failed request, dropped and counted.
  const zero = write('azure-zero.csv', 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,5\n2023-11-16 18:15:47.6805900,374,0\n');
  assert.deepEqual(readTraceFile(zero, { maxModelLen: 8192 }).dropped, { 'with 0 GeneratedTokens': 1 });
});

test('a Mooncake timestamp below 0 is refused, as an attnscope arrival_s below 0 is', () => {
  const moon = write('neg-moon.jsonl', '{"timestamp": -5, "input_length": 100, "output_length": 10, "hash_ids": [0]}\n');
  assert.equal(cliLine(() => readTraceFile(moon, { maxModelLen: 8192 })), `${moon}:1:15: "timestamp" must be >= 0 (milliseconds from the trace's start), got -5`);
  const own = write('neg-own.jsonl', '{"arrival_s": -3, "prompt_len": 100, "output_len": 10}\n');
  assert.equal(cliLine(() => readTraceFile(own, { maxModelLen: 8192 })), `${own}:1:15: "arrival_s" must be >= 0, got -3`);
});

test('a number beyond float64 (1e400, which JSON.parse makes Infinity) is quoted as written, not as null', () => {
  const own = write('inf.jsonl', '{"arrival_s": 1e400, "prompt_len": 100, "output_len": 10}\n');
  assert.equal(cliLine(() => readTraceFile(own, { maxModelLen: 8192 })), `${own}:1:15: "arrival_s" must be a number, got 1e400, a number beyond the 64-bit float range (±1.8e308)`);
  const moon = write('inf-moon.jsonl', '{"timestamp": -1e999, "input_length": 100, "output_length": 10, "hash_ids": [0]}\n');
  assert.equal(cliLine(() => readTraceFile(moon, { maxModelLen: 8192 })), `${moon}:1:15: "timestamp" must be a number of milliseconds, got a number beyond the 64-bit float range (±1.8e308)`);
});

test('Azure CSV: datetime stamps to seconds from the first, lengths, max_model_len warnings by line', () => {
  // Rows at 18:15:46.6805900, :50.9951690, :51.25, :52.0, :52.5 -> 0, 4.314579, 4.56941, 5.31941, 5.81941 s.
  // Line 5: prompt 9000 >= 8192 -> rejected; line 6: 7000 + 2000 > 8192 -> output clipped to 1192.
  const warnings: string[] = [];
  const r = readTraceFile(fixture('azure-code.csv'), { maxModelLen: 8192, warnings });
  assert.equal(r.format, 'azure');
  assert.equal(r.timeUnit, 'TIMESTAMP, datetime (UTC)');
  assert.deepEqual([r.timeColumn, r.stampUnit], ['TIMESTAMP', 'datetime']);
  assert.equal(r.count, 5);
  [0, 4.314579, 4.56941, 5.31941, 5.81941].forEach((t, i) => assert.ok(Math.abs(r.requests.arrivalS[i] - t) < 1e-6, `arrival ${i}: ${r.requests.arrivalS[i]}`));
  assert.deepEqual([...r.requests.promptLen], [4808, 3180, 110, 9000, 7000]);
  assert.deepEqual([...r.requests.outputLen], [10, 8, 27, 4, 2000]);
  assert.deepEqual(warnings, [
    `${fixture('azure-code.csv')}:5:1: warning: prompt of 9,000 tokens reaches max_model_len 8,192: the request is rejected`,
    `${fixture('azure-code.csv')}:6:1: warning: prompt 7,000 + output 2,000 tokens exceed max_model_len 8,192: the output is clipped to 1,192`,
  ]);
  assert.equal(parseDatetimeSeconds('2023-11-16 18:15:46.6805900'), Date.UTC(2023, 10, 16, 18, 15, 46) / 1000 + 0.68059);
  assert.ok(Number.isNaN(parseDatetimeSeconds('16/11/2023 18:15')));
  const bad = write('azure-bad.csv', 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,12,3\nyesterday,5,5\n');
  assert.equal(cliLine(() => readTraceFile(bad, { maxModelLen: 8192 })), `${bad}:3:1: TIMESTAMP must be a valid datetime like 2023-11-16 18:15:46.6805900 (month 1-12, a day the month has, hour 0-23, minute and second 0-59; an offset Z or ±HH:MM), got "yesterday"`);
  // Impossible calendar fields are refused, not rolled over by Date.UTC (February 30 would be March 2,
  // 86,401 s after 2023-02-28 23:59:59). 2024 is a leap year: February 29 exists there only.
  for (const stamp of ['2023-02-30 00:00:00.0', '2023-02-29 00:00:00', '2023-11-16 18:99:00.0', '2023-11-16 25:00:00', '2023-11-16 18:61:00', '2023-11-16 18:00:60', '2023-13-01 00:00:00', '2023-04-31 00:00:00', '2023-00-10 00:00:00']) {
    assert.ok(Number.isNaN(parseDatetimeSeconds(stamp)), stamp);
  }
  assert.equal(parseDatetimeSeconds('2024-02-29 23:59:59'), Date.UTC(2024, 1, 29, 23, 59, 59) / 1000);
  // A UTC offset is taken off: 02:00 at +02:00 is 00:00 UTC; 23:30 at -01:00 is 00:30 UTC the next day.
  assert.equal(parseDatetimeSeconds('2024-05-10 02:00:00.000000+02:00'), Date.UTC(2024, 4, 10, 0, 0, 0) / 1000);
  assert.equal(parseDatetimeSeconds('2024-05-09T23:30:00-0100'), Date.UTC(2024, 4, 10, 0, 30, 0) / 1000);
  assert.equal(parseDatetimeSeconds('2024-05-10 00:00:00.009930+00:00'), Date.UTC(2024, 4, 10) / 1000 + 0.00993);
  assert.ok(Number.isNaN(parseDatetimeSeconds('2024-05-10 00:00:00+24:00')));
  assert.equal(parseDatetimeSeconds('2023-12-31 23:59:59'), Date.UTC(2023, 11, 31, 23, 59, 59) / 1000);
  const feb30 = write('azure-feb30.csv', 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-02-28 23:59:59.0,12,3\n2023-02-30 00:00:00.0,5,5\n');
  assert.match(cliLine(() => readTraceFile(feb30, { maxModelLen: 8192 })), new RegExp(`^${feb30.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3:1: TIMESTAMP must be a valid datetime .*got "2023-02-30 00:00:00.0"$`));
  const badLen = write('azure-len.csv', 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,12.5,3\n');
  assert.equal(cliLine(() => readTraceFile(badLen, { maxModelLen: 8192 })), `${badLen}:2:21: ContextTokens must be an integer from 1 to 2,147,483,647, got "12.5"`);
});

test('CSV cells past what is read are warned about: a header column the format lacks, rows wider than the header; a row lacking a column is an error at its end', () => {
  // "TIMESTAMP,ContextTokens,GeneratedTokens," is 40 characters: Note starts at column 41.
  // Row 3 "2023-11-16 18:15:47,375,45,x,more": "x" at 28, "more" (the 5th cell, past the header's 4) at 30.
  const noted = write('azure-note.csv', 'TIMESTAMP,ContextTokens,GeneratedTokens,Note\n2023-11-16 18:15:46,374,44,a\n2023-11-16 18:15:47,375,45,x,more\n');
  const warnings: string[] = [];
  const r = readTraceFile(noted, { maxModelLen: 8192, warnings });
  // Each row's lengths are its own, whatever follows them.
  assert.deepEqual([[...r.requests.promptLen], [...r.requests.outputLen]], [[374, 375], [44, 45]]);
  assert.deepEqual(warnings, [
    `${noted}:1:41: warning: unknown column "Note" ignored (an Azure trace has TIMESTAMP, ContextTokens, GeneratedTokens)`,
    `${noted}:3:30: warning: the row has 5 cells, the header 4: the last is ignored`,
  ]);
  // Five rows one cell wider than the 3-cell header ("extra" at column 25 of "2023-11-16 18:15:4N,3,2,extra"):
  // the first three at their line, then the count.
  const wide = write('azure-wide.csv', `TIMESTAMP,ContextTokens,GeneratedTokens\n${[0, 1, 2, 3, 4].map((k) => `2023-11-16 18:15:4${k},3,2,extra`).join('\n')}\n`);
  const wideWarnings: string[] = [];
  assert.equal(readTraceFile(wide, { maxModelLen: 8192, warnings: wideWarnings }).count, 5);
  assert.deepEqual(wideWarnings, [
    ...[2, 3, 4].map((n) => `${wide}:${n}:25: warning: the row has 4 cells, the header 3: the last is ignored`),
    `${wide}:1:1: warning: 5 rows in all have more cells than the header; the cells past it are ignored`,
  ]);
  // BurstGPT's own columns (its release has Total tokens, which nothing needs) draw no warning.
  const burst: string[] = [];
  readTraceFile(fixture('burstgpt.csv'), { maxModelLen: 8192, warnings: burst });
  assert.deepEqual(burst, []);
  // "2023-11-16 18:15:46,374" is 23 characters: the missing GeneratedTokens is placed after it.
  const short = write('azure-short.csv', 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,374\n');
  assert.equal(cliLine(() => readTraceFile(short, { maxModelLen: 8192 })), `${short}:2:24: the row has 2 cells, the header 3: no GeneratedTokens`);
});

test('BurstGPT CSV: failed rows (0 response tokens) dropped and counted; Model and Log Type filters', () => {
  // 5 rows: t 5 ChatGPT 472/18 conv; t 45 ChatGPT 0 response (failed); t 118 GPT-4 417/276 conv;
  // t 131 ChatGPT 1360/115 API; t 160 ChatGPT 0 response (failed, API).
  const all = readTraceFile(fixture('burstgpt.csv'), { maxModelLen: 8192 });
  assert.equal(all.count, 3);
  assert.deepEqual(all.dropped, { 'with 0 response tokens (failed requests)': 2 });
  assert.deepEqual([...all.requests.arrivalS], [0, 113, 126]);
  assert.deepEqual([...all.requests.promptLen], [472, 417, 1360]);
  assert.deepEqual([...all.requests.outputLen], [18, 276, 115]);
  const chatgpt = readTraceFile(fixture('burstgpt.csv'), { maxModelLen: 8192, model: 'ChatGPT' });
  assert.equal(chatgpt.count, 2);
  assert.deepEqual(chatgpt.dropped, { 'with 0 response tokens (failed requests)': 2, 'of another Model than ChatGPT': 1 });
  assert.deepEqual([...chatgpt.requests.arrivalS], [0, 126]);
  const conv = readTraceFile(fixture('burstgpt.csv'), { maxModelLen: 8192, logType: 'Conversation log' });
  assert.equal(conv.count, 2);
  assert.deepEqual(conv.dropped, { 'with 0 response tokens (failed requests)': 1, 'of another Log Type than Conversation log': 2 });
  assert.match(cliLine(() => readTraceFile(fixture('burstgpt.csv'), { maxModelLen: 8192, model: 'Claude' })), /burstgpt\.csv:1:1: the burstgpt trace holds no requests \(dropped: 5 of another Model than Claude\); its Model values: "ChatGPT" \(4 rows\), "GPT-4" \(1 row\): give one of them to --trace-model$/);
});

test('Mooncake JSONL: ms stamps, and shared leading hash_ids blocks become prefix-cache hits at page_size 16, 32 and 48', async () => {
  // A (t 0): 1200 tokens, blocks [0, 1, 2]; B (1.5 s): 1100, [0, 1, 3]; C (3 s): 600, [0, 4]; D (4.5 s): 300, [5].
  // Blocks are 512 tokens: B shares A's first 1024 tokens, C the first 512, D nothing. One
  // simulated second per step: A runs from t = 0 to 10, so B (admitted at 2) and C (at 3) find A's
  // full pages: at page_size 16 or 32 (dividing 512) all 1024 and 512 tokens hit; at 48,
  // floor(1024 / 48) = 21 pages = 1008 and floor(512 / 48) = 10 pages = 480.
  // Shared hit rate = hits / prompt tokens at first admission (1200 + 1100 + 600 + 300 = 3200).
  const r = readTraceFile(fixture('mooncake.jsonl'), { maxModelLen: 8192 });
  assert.equal(r.timeUnit, 'timestamp, milliseconds');
  assert.deepEqual([r.timeColumn, r.stampUnit], ['timestamp', 'ms']);
  assert.deepEqual([...r.requests.arrivalS], [0, 1.5, 3, 4.5]);
  assert.deepEqual([...r.requests.segmentStart], [0, 3, 6, 8, 9]);
  assert.deepEqual([...r.requests.segmentEnd], [512, 1024, 1200, 512, 1024, 1100, 512, 600, 300]);
  for (const [pageSize, hits] of [[16, 1536], [32, 1536], [48, 1488]]) {
    const p = profile(`kv_cache: { page_size: ${pageSize}, num_pages: 1000 }\n`);
    const sim = await simulatePool(p, { requests: r.requests, stepTime: { perStepS: 1 }, watermark: 0 });
    assert.equal(sim.summary.prefixHitRate, hits / 3200, `page_size ${pageSize}`);
    assert.equal(sim.summary.preemptions, 0);
  }
  // Without hash_ids nothing is shared.
  const plain = write('mooncake-plain.jsonl', '{"timestamp": 0, "input_length": 1200, "output_length": 10}\n{"timestamp": 1500, "input_length": 1100, "output_length": 5}\n');
  const none = await simulatePool(profile('kv_cache: { page_size: 16, num_pages: 1000 }\n'), { requests: readTraceFile(plain, { maxModelLen: 8192, format: 'mooncake' }).requests, stepTime: { perStepS: 1 } });
  assert.equal(none.summary.prefixHitRate, 0);
  const bad = write('mooncake-bad.jsonl', '{"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": [0]}\n{"timestamp": 5, "input_length": -3, "output_length": 1}\n');
  // Column 34: `{"timestamp": 5, ` is 17 characters, `"input_length": ` 16 more, so -3 starts at the 34th.
  assert.equal(cliLine(() => readTraceFile(bad, { maxModelLen: 8192 })), `${bad}:2:34: "input_length" must be an integer from 1 to 2,147,483,647, got -3`);
});

test('vllm bench serve result: start_times, failed requests dropped, or even spacing at request_rate', () => {
  const withStarts = write('bench-a.json', JSON.stringify({ request_rate: 4, input_lens: [100, 200, 300], output_lens: [10, 20, 30], start_times: [1000.5, 1000.75, 1001.5], errors: ['', 'timeout', ''], ttfts: [0.1, 0, 0.2], itls: [[], [], []] }));
  const a = readTraceFile(withStarts, { maxModelLen: 8192 });
  assert.equal(a.format, 'vllm-bench');
  assert.deepEqual([...a.requests.arrivalS], [0, 1]);
  assert.deepEqual([...a.requests.promptLen], [100, 300]);
  assert.deepEqual(a.dropped, { 'failed (errors non-empty)': 1 });
  const spaced = write('bench-b.json', JSON.stringify({ request_rate: 4, max_concurrency: 8, input_lens: [100, 200, 300], output_lens: [10, 20, 30] }));
  const b = readTraceFile(spaced, { maxModelLen: 8192 });
  // Drawn as vLLM sends them (vllmBenchArrivals, seed 0), shifted so that the first is at 0 s.
  const drawn = vllmBenchArrivals(3, 4, 1, 0);
  assert.deepEqual([...b.requests.arrivalS], [...drawn].map((t) => t - drawn[0]!));
  assert.deepEqual(b.notes, [
    "the result has no start_times: arrivals drawn as vllm bench serve sends them at its request_rate 4/s, gaps gamma-distributed with shape burstiness 1 (vLLM's default) (a Poisson process), then scaled so that the last is sent at 3 / 4 s (vllm/benchmarks/serve.py get_request); from seed 0, not vLLM's own draws",
    'the benchmark capped concurrency at 8 (max_concurrency); the replay does not',
  ]);
  // No start_times and no request_rate, or request_rate "inf": all at 0 s, the note saying which.
  const noRate = readTraceFile(write('bench-norate.json', JSON.stringify({ input_lens: [100, 200], output_lens: [10, 20] })), { maxModelLen: 8192 });
  assert.deepEqual([...noRate.requests.arrivalS], [0, 0]);
  assert.deepEqual(noRate.notes, ['the result has no start_times and no request_rate: every request arrives at 0 s']);
  const inf = readTraceFile(write('bench-inf.json', JSON.stringify({ request_rate: 'inf', input_lens: [100, 200], output_lens: [10, 20] })), { maxModelLen: 8192 });
  assert.deepEqual(inf.notes, ['the result has no start_times and request_rate inf: every request arrives at 0 s']);
  const summaryOnly = write('bench-c.json', JSON.stringify({ request_rate: 'inf', mean_ttft_ms: 12 }));
  assert.match(cliLine(() => readTraceFile(summaryOnly, { maxModelLen: 8192, format: 'vllm-bench' })), /bench-c\.json:1:1: a vllm bench serve result needs per-request input_lens and output_lens: save it with --save-result --save-detailed/);
  // The BurstGPT filters on another format are refused, not silently ignored.
  assert.equal(cliLine(() => readTraceFile(withStarts, { maxModelLen: 8192, model: 'GPT-4' })), `${withStarts}:1:1: --trace-model and --trace-log-type filter BurstGPT traces only; this trace is vllm-bench`);
  // The label says what the arrivals came from: start_times, or request_rate when there are none.
  assert.equal(a.timeUnit, 'start_times, seconds');
  assert.equal(b.timeUnit, 'no start_times: arrivals from request_rate');
  assert.deepEqual([a.timeColumn, a.stampUnit, b.timeColumn, b.stampUnit], ['start_times', 's', null, null]);
  // A syntax error is reported where it is: line 4, column 3 (the missing comma before "output_lens"),
  // not 1:1 with a character offset.
  const broken = write('bench-d.json', '{\n  "request_rate": 4,\n  "input_lens": [1, 2]\n  "output_lens": [3, 4]\n}\n');
  assert.equal(cliLine(() => readTraceFile(broken, { maxModelLen: 8192, format: 'vllm-bench' })), `${broken}:4:3: not JSON: ',' expected`);
  // JSON lines given as a result (--calibrate x.jsonl): the second line's value is named as such, in words.
  const lines = write('bench-e.jsonl', '{"arrival_s": 0, "prompt_len": 10, "output_len": 5}\n{"arrival_s": 1, "prompt_len": 10, "output_len": 5}\n');
  assert.equal(cliLine(() => readVllmResult(lines)), `${lines}:2:1: not JSON: end of file expected: a vllm bench serve result is one JSON object, and another value follows it here (--calibrate takes a vllm bench serve --save-result --save-detailed JSON, or an attnscope bench --backend cuda --json run; a trace goes to --trace)`);
  // A CSV given to --calibrate (readVllmResult's default hint) says what --calibrate takes, not only "not JSON".
  const csv = write('azure-for-calibrate.csv', 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.0,12,3\n');
  assert.match(cliLine(() => readVllmResult(csv)), /azure-for-calibrate\.csv:1:1: not JSON: .*\(--calibrate takes a vllm bench serve --save-result --save-detailed JSON, or an attnscope bench --backend cuda --json run; a trace goes to --trace\)$/);
});

test('a JSONL trace whose first line is longer than 64 KiB is detected from its keys, not taken for a vllm bench serve result', () => {
  // The prompt's text kept as an extra key (70,000 characters, past the 64 KiB head the detector sampled),
  // before and after the keys that name the format.
  const pad = 'p'.repeat(70_000);
  for (const first of [`{"text": "${pad}", "arrival_s": 0, "prompt_len": 10, "output_len": 5}`, `{"arrival_s": 0, "prompt_len": 10, "output_len": 5, "text": "${pad}"}`]) {
    const path = write('long-first.jsonl', `${first}\n{"arrival_s": 1, "prompt_len": 20, "output_len": 6}\n`);
    assert.equal(detectTraceFormat(path), 'attnscope');
    const r = readTraceFile(path, { maxModelLen: 8192, warnings: [] });
    assert.deepEqual([...r.requests.promptLen], [10, 20]);
  }
  // A first line past 64 KiB that is no JSON value at all is still unknown, and the refusal names --trace-format.
  assert.match(cliLine(() => detectTraceFormat(write('long-other.csv', `${'a,'.repeat(40_000)}b\n1\n`))), /long-other\.csv:1:1: unknown trace format: .*; name the format with --trace-format attnscope, azure, burstgpt, mooncake, vllm-bench if the first line is not its header$/);
  // A trace taken for a vllm bench serve result (a first line that opens JSON but does not parse) and refused says so, with --trace-format.
  const cut = write('cut-first.jsonl', '{"arrival_s": 0, "prompt_len": 10,\n"output_len": 5}\n');
  assert.match(cliLine(() => readTraceFile(cut, { maxModelLen: 8192 })), /cut-first\.jsonl:1:1: a vllm bench serve result needs per-request input_lens and output_lens: .*\(the trace was taken for a vllm bench serve result from its first line; name another format with --trace-format attnscope, azure, burstgpt, mooncake\)$/);
});

test('lines are streamed across chunk boundaries without losing or splitting one', () => {
  // 3 MiB of lines with a multi-byte character, so that 1 MiB chunks cut inside lines.
  const lines = Array.from({ length: 60_000 }, (_, i) => `${i},é${'x'.repeat(40)}`);
  const path = write('long.csv', `${lines.join('\r\n')}\r\n`);
  const seen: string[] = [];
  forEachLine(path, (line, n) => {
    if (line !== '') assert.equal(n, seen.length + 1);
    seen.push(line);
  });
  assert.deepEqual(seen.filter((l) => l !== ''), lines);
  assert.deepEqual(splitCsv('1,"a, ""b""",c'), ['1', 'a, "b"', 'c']);
  // Each cell's column (1-based), quoted or not: 1,"a, ""b""",c has cells at 1, 3 and 14 (the closing quote is column 12, its comma 13).
  const columns: number[] = [];
  splitCsv('1,"a, ""b""",c', columns);
  assert.deepEqual(columns, [1, 3, 14]);
  const plain: number[] = [];
  splitCsv('12,,345', plain);
  assert.deepEqual(plain, [1, 4, 5]);
});

test('every integer a trace carries is bounded by int32 (vLLM keeps token counts as int32) and refused at its line before any work', () => {
  // 2^31 = 2,147,483,648 is one past the largest int32; each reader names the field and its line.
  const csv = write('big.csv', 'Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,2147483648,18,1,Conversation log\n');
  assert.equal(cliLine(() => readTraceFile(csv, { maxModelLen: 8192 })), `${csv}:2:11: Request tokens must be an integer from 1 to 2,147,483,647, got "2147483648"`);
  const moon = write('big.jsonl', '{"timestamp": 0, "input_length": 12, "output_length": 1e12, "hash_ids": [0]}\n');
  // Column 55: 17 characters of timestamp, 20 of `"input_length": 12, `, 17 of `"output_length": `.
  assert.equal(cliLine(() => readTraceFile(moon, { maxModelLen: 8192 })), `${moon}:1:55: "output_length" must be an integer from 1 to 2,147,483,647, got 1000000000000`);
  const ours = write('big-ours.jsonl', '{"arrival_s": 0, "prompt_len": 5, "output_len": 1, "prefix_len": 4294967297}\n');
  assert.equal(cliLine(() => readTraceFile(ours, { maxModelLen: 8192 })), `${ours}:1:66: "prefix_len" must be <= 2,147,483,647, got 4294967297`);
  const bench = write('big-bench.json', JSON.stringify({ input_lens: [100, 2 ** 31], output_lens: [10, 20] }));
  // At the value: `{"input_lens":[100,` is 19 characters.
  assert.equal(cliLine(() => readTraceFile(bench, { maxModelLen: 8192 })), `${bench}:1:20: input_lens[1] must be an integer from 1 to 2,147,483,647, got 2147483648`);
  const starts = write('bad-starts.json', JSON.stringify({ input_lens: [100, 200], output_lens: [10, 20], start_times: [0, 'soon'] }));
  // At the value: `{"input_lens":[100,200],"output_lens":[10,20],"start_times":[0,` is 63 characters.
  assert.equal(cliLine(() => readTraceFile(starts, { maxModelLen: 8192, format: 'vllm-bench' })), `${starts}:1:64: start_times[1] must be a number of seconds, got "soon"`);
});

test('a vllm bench serve result whose request_rate is no rate > 0 or "inf" is refused at the value (it replayed as one burst, noted "request_rate inf")', () => {
  // vLLM's benchmark writes request_rate as the float it ran at, or "inf"; -4, 0, "fast" come from no run.
  // `{"input_lens":[10,20],"output_lens":[5,6],"request_rate":` is 57 characters: the value at column 58.
  for (const [rate, shown] of [[-4, '-4'], [0, '0'], ['fast', '"fast"'], [true, 'true']] as const) {
    const f = write('bad-rate.json', JSON.stringify({ input_lens: [10, 20], output_lens: [5, 6], request_rate: rate }));
    assert.equal(cliLine(() => readTraceFile(f, { maxModelLen: 8192 })), `${f}:1:58: request_rate must be a positive number of requests/s or "inf", got ${shown}`);
  }
  // 0.5/s: drawn at that rate (vllmBenchArrivals), the second sent at 2 / 0.5 = 4 s, the first at its draw.
  const slow = readTraceFile(write('slow-rate.json', JSON.stringify({ input_lens: [10, 20], output_lens: [5, 6], request_rate: 0.5 })), { maxModelLen: 8192 });
  const drawn = vllmBenchArrivals(2, 0.5, 1, 0);
  assert.equal(drawn[1], 4);
  assert.deepEqual([...slow.requests.arrivalS], [0, 4 - drawn[0]!]);
});

test('a key given twice on a trace line is refused at its second writing, in attnscope and Mooncake JSONL', () => {
  // `{"arrival_s": 0, ` is 17 characters: the second "arrival_s" at column 18, the first at 2.
  const ours = write('dup.jsonl', '{"arrival_s": 0, "arrival_s": 2, "prompt_len": 100, "output_len": 10}\n');
  assert.equal(cliLine(() => readTraceFile(ours, { maxModelLen: 8192 })), `${ours}:1:18: "arrival_s" is given twice on this line (first at column 2): give each key once (JSON.parse would keep the last one silently)`);
  // A repeated string-valued key (its quotes count as a string value's would) on line 2: the first
  // "prefix_id" after 1 + 16 + 17 + 17 = 51 characters (column 52), the second after 18 more (column 70).
  const ids = write('dup-id.jsonl', '{"arrival_s": 0, "prompt_len": 9, "output_len": 1}\n{"arrival_s": 1, "prompt_len": 9, "output_len": 1, "prefix_id": "a", "prefix_id": "b"}\n');
  assert.equal(cliLine(() => readTraceFile(ids, { maxModelLen: 8192 })), `${ids}:2:70: "prefix_id" is given twice on this line (first at column 52): give each key once (JSON.parse would keep the last one silently)`);
  // Mooncake: `{"timestamp": 0, ` is 17 characters, as above.
  const moon = write('dup-moon.jsonl', '{"timestamp": 0, "timestamp": 5, "input_length": 600, "output_length": 10, "hash_ids": [1, 2]}\n');
  assert.equal(cliLine(() => readTraceFile(moon, { maxModelLen: 8192 })), `${moon}:1:18: "timestamp" is given twice on this line (first at column 2): give each key once (JSON.parse would keep the last one silently)`);
  // Quotes that are not keys (an escaped quote in a prefix_id, a nested unknown value) are not a repeated key: read as written.
  const warnings: string[] = [];
  const quoted = write('quoted.jsonl', '{"arrival_s": 0, "prompt_len": 9, "output_len": 1, "prefix_id": "say \\"hi\\"", "prefix_len": 4, "meta": {"user": "x"}}\n');
  const r = readTraceFile(quoted, { maxModelLen: 8192, warnings });
  assert.equal(r.count, 1);
  assert.deepEqual([...r.requests.segmentEnd], [4]);
  assert.equal(warnings.length, 1);
});

test('an integer written beyond Number.MAX_SAFE_INTEGER in a trace is refused at its column as written: rounded, two prefix_ids or block ids would read as one', () => {
  // 12345678901234567890 and ...891 both read as the float64 12345678901234567000: before, the
  // second request silently shared the first one's prefix. `{"arrival_s": 0, "prompt_len": 100, "output_len": 10, "prefix_id": ` is 67 characters.
  const ids = write('big-ids.jsonl', '{"arrival_s": 0, "prompt_len": 100, "output_len": 10, "prefix_id": 12345678901234567890, "prefix_len": 50}\n{"arrival_s": 1, "prompt_len": 100, "output_len": 10, "prefix_id": 12345678901234567891, "prefix_len": 50}\n');
  // Both lines are refused, each at its own id (every bad row, not only the first).
  assert.equal(cliLine(() => readTraceFile(ids, { maxModelLen: 8192 })), [
    `${ids}:1:68: "prefix_id" is 12345678901234567890, beyond 2^53 − 1 (9,007,199,254,740,991): a JavaScript number cannot hold it exactly (it would be read as 12345678901234567000): two such ids can read as one; write it as a string`,
    `${ids}:2:68: "prefix_id" is 12345678901234567891, beyond 2^53 − 1 (9,007,199,254,740,991): a JavaScript number cannot hold it exactly (it would be read as 12345678901234567000): two such ids can read as one; write it as a string`,
  ].join('\n'));
  // `{"arrival_s": 0, "prompt_len": ` is 31 characters.
  const len = write('big-len.jsonl', '{"arrival_s": 0, "prompt_len": 12345678901234567890, "output_len": 10}\n');
  assert.equal(cliLine(() => readTraceFile(len, { maxModelLen: 8192 })), `${len}:1:32: "prompt_len" is 12345678901234567890, beyond 2^53 − 1 (9,007,199,254,740,991): a JavaScript number cannot hold it exactly (it would be read as 12345678901234567000)`);
  // Mooncake: `{"timestamp": 0, "input_length": 600, "output_length": 1, "hash_ids": [` is 71 characters (as below); 2^53 + 1 reads as 2^53.
  const moon = write('big-moon.jsonl', '{"timestamp": 0, "input_length": 600, "output_length": 1, "hash_ids": [9007199254740993, 1]}\n');
  assert.equal(cliLine(() => readTraceFile(moon, { maxModelLen: 8192 })), `${moon}:1:72: hash_ids[0] is 9007199254740993, beyond 2^53 − 1 (9,007,199,254,740,991): a JavaScript number cannot hold it exactly (it would be read as 9007199254740992)`);
});

test('attnscope JSONL prefixes are consistent: one prefix_len per prefix_id, within the prompt, and only with a prefix_id', () => {
  const ok = write('prefix-ok.jsonl', [
    '{"arrival_s": 0, "prompt_len": 10, "output_len": 1, "prefix_id": "s", "prefix_len": 4}',
    '{"arrival_s": 1, "prompt_len": 6, "output_len": 1, "prefix_id": "s", "prefix_len": 4}',
    '{"arrival_s": 2, "prompt_len": 8, "output_len": 1, "prefix_id": "t"}',
    '{"arrival_s": 3, "prompt_len": 9, "output_len": 1, "prefix_id": "t"}',
    '{"arrival_s": 4, "prompt_len": 9, "output_len": 1, "prefix_id": null, "prefix_len": 0}',
  ].join('\n'));
  const r = readTraceFile(ok, { maxModelLen: 8192 });
  // "s" is one stream over 4 tokens for both; "t" (no prefix_len) shares each whole prompt; the last line shares nothing.
  assert.deepEqual([...r.requests.segmentStart], [0, 1, 2, 3, 4, 4]);
  assert.deepEqual([...r.requests.segmentStream], [0, 0, 1, 1]);
  assert.deepEqual([...r.requests.segmentEnd], [4, 4, 8, 9]);
  // Line 3 gives "s" 5 tokens where line 1 gave 4: refused at line 3's prefix_len (column 85:
  // `{"arrival_s": 2, "prompt_len": 10, "output_len": 1, "prefix_id": "s", "prefix_len": ` is 1 + 16 + 18 + 17 + 18 + 14 = 84 characters).
  const line3 = '{"arrival_s": 2, "prompt_len": 10, "output_len": 1, "prefix_id": "s", "prefix_len": 5}';
  const differ = write('prefix-differ.jsonl', `{"arrival_s": 0, "prompt_len": 10, "output_len": 1, "prefix_id": "s", "prefix_len": 4}\n{"arrival_s": 1, "prompt_len": 3, "output_len": 1}\n${line3}\n`);
  assert.equal(line3.indexOf('5}') + 1, 85);
  assert.equal(cliLine(() => readTraceFile(differ, { maxModelLen: 8192 })), `${differ}:3:85: prefix_id "s" has prefix_len 4 on line 1, prefix_len 5 here: give every line of one prefix_id the same prefix_len (or none, to share each whole prompt)`);
  // One line of 7 with prefix_len, one without: refused at the second's prefix_id (column 65: 1 + 16 + 17 + 17 + 13 characters before it).
  const mixed = write('prefix-mixed.jsonl', '{"arrival_s": 0, "prompt_len": 10, "output_len": 1, "prefix_id": 7, "prefix_len": 4}\n{"arrival_s": 1, "prompt_len": 9, "output_len": 1, "prefix_id": 7}\n');
  assert.equal(cliLine(() => readTraceFile(mixed, { maxModelLen: 8192 })), `${mixed}:2:65: prefix_id 7 has prefix_len 4 on line 1, no prefix_len here: give every line of one prefix_id the same prefix_len (or none, to share each whole prompt)`);
  // prefix_len 12 > prompt_len 10: column 85 (84 characters before it, as on line 3 above).
  const longer = write('prefix-long.jsonl', '{"arrival_s": 0, "prompt_len": 10, "output_len": 1, "prefix_id": "s", "prefix_len": 12}\n');
  assert.equal(cliLine(() => readTraceFile(longer, { maxModelLen: 8192 })), `${longer}:1:85: "prefix_len" 12 exceeds "prompt_len" 10: a request shares at most its whole prompt`);
  // prefix_len without prefix_id: column 67 (`{"arrival_s": 0, "prompt_len": 10, "output_len": 1, "prefix_len": ` is 66 characters).
  const orphan = write('prefix-orphan.jsonl', '{"arrival_s": 0, "prompt_len": 10, "output_len": 1}\n{"arrival_s": 0, "prompt_len": 10, "output_len": 1, "prefix_len": 4}\n');
  assert.equal(cliLine(() => readTraceFile(orphan, { maxModelLen: 8192 })), `${orphan}:2:67: "prefix_len" needs a "prefix_id": the requests that share those tokens have the same prefix_id`);
});

test('Mooncake hash_ids must be block ids (integers >= 0); ids beyond the blocks input_length fills are warned about and ignored', () => {
  // `{"timestamp": 0, "input_length": 600, "output_length": 1, "hash_ids": [` is 71 characters: element 0 at column 72, element 1 at 75.
  const head = '{"timestamp": 0, "input_length": 600, "output_length": 1, "hash_ids": [';
  assert.equal(head.length, 71);
  for (const [ids, column, got] of [['0, -1', 75, '-1'], ['0, 1.5', 75, '1.5'], ['"a", 1', 72, '"a"']] as const) {
    const f = write('moon-ids.jsonl', `${head}${ids}]}\n`);
    assert.equal(cliLine(() => readTraceFile(f, { maxModelLen: 8192 })), `${f}:1:${column}: hash_ids[${ids.startsWith('"') ? 0 : 1}] must be a block id (an integer >= 0), got ${got}`);
  }
  const notArray = write('moon-obj.jsonl', '{"timestamp": 0, "input_length": 600, "output_length": 1, "hash_ids": 3}\n');
  assert.equal(cliLine(() => readTraceFile(notArray, { maxModelLen: 8192 })), `${notArray}:1:71: "hash_ids" must be an array of block ids, got 3`);
  // 600 tokens fill ceil(600 / 512) = 2 blocks: a third id (column 78) is warned about and ignored;
  // 1024 tokens fill exactly 2, so 2 ids draw no warning.
  const warnings: string[] = [];
  const extra = write('moon-extra.jsonl', `${head}0, 1, 2]}\n{"timestamp": 10, "input_length": 1024, "output_length": 1, "hash_ids": [0, 1]}\n`);
  const r = readTraceFile(extra, { maxModelLen: 8192, warnings });
  assert.deepEqual(warnings, [`${extra}:1:78: warning: 3 hash_ids for input_length 600, which fills 2 blocks of 512 tokens: the 1 beyond are ignored`]);
  assert.deepEqual([...r.requests.segmentStart], [0, 2, 4]);
  assert.deepEqual([...r.requests.segmentEnd], [512, 600, 512, 1024]);
});

test('out-of-order arrivals are warned about at the first such line and a count, and replayed sorted, stably, in every format', () => {
  // Arrivals 5, 3, 3, 9, 1 s (or the same stamps in each format's unit): line 3 (the second row) is
  // the first early one, 2 s before the 5 s row; the first 3 s row and the 1 s row are early: 2 in all
  // (the second 3 s row is not before the first). Sorted, stably: 1, 3, 3, 5, 9 with prompts 50, 20, 30, 10, 40.
  const rows: [number, number][] = [[5, 10], [3, 20], [3, 30], [9, 40], [1, 50]];
  const files = {
    attnscope: ['', ...rows.map(([t, p]) => `{"arrival_s": ${t}, "prompt_len": ${p}, "output_len": 1}`)],
    azure: ['TIMESTAMP,ContextTokens,GeneratedTokens', ...rows.map(([t, p]) => `2023-11-16 18:00:0${t}.0000000,${p},1`)],
    burstgpt: ['Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type', ...rows.map(([t, p]) => `${t},ChatGPT,${p},1,${p + 1},API log`)],
    mooncake: ['', ...rows.map(([t, p]) => `{"timestamp": ${t * 1000}, "input_length": ${p}, "output_length": 1}`)],
  };
  // The arrival's column on line 3: 15 in the JSON lines ("arrival_s": is 14 characters with the brace), 15 for Mooncake's
  // `{"timestamp": `, 1 in both CSVs.
  const columns = { attnscope: 15, azure: 1, burstgpt: 1, mooncake: 15 };
  for (const [format, lines] of Object.entries(files)) {
    // The JSONL files start with a blank line, so that their second row is line 3 as in the CSVs.
    const f = write(`late-${format}.txt`, `${lines.join('\n')}\n`);
    const warnings: string[] = [];
    const r = readTraceFile(f, { maxModelLen: 8192, warnings, format: format as 'azure' });
    assert.deepEqual(warnings, [
      `${f}:3:${columns[format as keyof typeof columns]}: warning: this request arrives 2 s before the one read before it: the trace is replayed in arrival order (sorted, stably: equal times keep the file's order)`,
      `${f}:1:1: warning: 2 requests in all arrive before the one read before them; all are replayed in arrival order`,
    ], format);
    assert.deepEqual([...r.requests.arrivalS], [0, 2, 2, 4, 8], format);
    assert.deepEqual([...r.requests.promptLen], [50, 20, 30, 10, 40], format);
  }
  // vllm bench serve: start_times out of order, located at the document (1:1).
  const bench = write('late-bench.json', JSON.stringify({ input_lens: rows.map(([, p]) => p), output_lens: rows.map(() => 1), start_times: rows.map(([t]) => t) }));
  const warnings: string[] = [];
  assert.deepEqual([...readTraceFile(bench, { maxModelLen: 8192, warnings }).requests.promptLen], [50, 20, 30, 10, 40]);
  assert.equal(warnings[0], `${bench}:1:1: warning: this request arrives 2 s before the one read before it: the trace is replayed in arrival order (sorted, stably: equal times keep the file's order)`);
});

test('a trace spanning more than 1e9 s is refused at its latest request (float64 seconds would drop the step times)', () => {
  // At 1e18 s the spacing of float64 is 128 s: a 6 ms step added to it leaves it unchanged, and every
  // TTFT came out 0. The latest arrival is on line 2 (JSONL, after 0 s) / line 3 (BurstGPT's fast CSV path).
  const jsonl = write('span.jsonl', '{"arrival_s": 0, "prompt_len": 10, "output_len": 1}\n{"arrival_s": 1e18, "prompt_len": 10, "output_len": 1}\n{"arrival_s": 5, "prompt_len": 10, "output_len": 1}\n');
  assert.match(cliLine(() => readTraceFile(jsonl, { maxModelLen: 8192 })), new RegExp(`^${jsonl}:2:1: this request arrives 1.00e18 s after the first one: a trace may span at most 1,000,000,000 s`));
  const csv = write('span.csv', 'Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n0,ChatGPT,10,1,11,API log\n1000000001,ChatGPT,10,1,11,API log\n');
  assert.match(cliLine(() => readTraceFile(csv, { maxModelLen: 8192, format: 'burstgpt' })), new RegExp(`^${csv}:3:1: this request arrives 1,000,000,001 s after the first one`));
  // Exactly 1e9 s is kept, with its arrivals as read.
  const edge = write('span-edge.jsonl', '{"arrival_s": 7, "prompt_len": 10, "output_len": 1}\n{"arrival_s": 1000000007, "prompt_len": 10, "output_len": 1}\n');
  assert.deepEqual([...readTraceFile(edge, { maxModelLen: 8192 }).requests.arrivalS], [0, 1e9]);
});

test('the byte-level CSV path reads the same values as the string path (quotes, spaces, other stamp shapes)', () => {
  // The same three requests written plainly and in ways only the string path reads: quoted cells,
  // a "T" separator, a trailing "Z", a 19-digit fraction, spaces around a number.
  const plain = write('azure-plain.csv', 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,4808,10\n2023-11-16 18:15:50.9951690,3180,8\n2023-11-17 00:00:00,110,27\n');
  const odd = write('azure-odd.csv', 'TIMESTAMP,ContextTokens,GeneratedTokens\n"2023-11-16 18:15:46.6805900","4808",10\n2023-11-16T18:15:50.9951690000000000000Z, 3180 ,8\n2023-11-17 00:00:00.,110,27\n');
  const a = readTraceFile(plain, { maxModelLen: 8192 });
  assert.deepEqual([...a.requests.promptLen], [4808, 3180, 110]);
  // 18:15:46.68059 to 18:15:50.995169 is 4.314579 s; to midnight 20,653.31941 s.
  // (Epoch seconds near 1.7e9 are kept to about 2.4e-7 s, one double's step there.)
  assert.ok(Math.abs(a.requests.arrivalS[1] - 4.314579) < 1e-6 && Math.abs(a.requests.arrivalS[2] - 20653.31941) < 1e-6, `${[...a.requests.arrivalS]}`);
  // "2023-11-17 00:00:00." (a point without digits) is not the usual shape: the string path refuses it at its line.
  assert.match(cliLine(() => readTraceFile(odd, { maxModelLen: 8192 })), /azure-odd\.csv:4:1: TIMESTAMP must be a valid datetime/);
  const odd2 = write('azure-odd2.csv', readFileSync(odd, 'utf8').replace('00:00:00.,', '00:00:00,'));
  const b = readTraceFile(odd2, { maxModelLen: 8192 });
  assert.deepEqual([...b.requests.promptLen], [...a.requests.promptLen]);
  assert.deepEqual([...b.requests.arrivalS], [...a.requests.arrivalS]);
});

test('the byte parsers give bit for bit what the string path gives: parseDatetimeSeconds, Number', () => {
  const stamp = fc.record({
    y: fc.integer({ min: 1970, max: 2100 }), mo: fc.integer({ min: 0, max: 13 }), d: fc.integer({ min: 0, max: 32 }),
    h: fc.integer({ min: 0, max: 25 }), mi: fc.integer({ min: 0, max: 61 }), s: fc.integer({ min: 0, max: 61 }),
    frac: fc.option(fc.stringMatching(/^[0-9]{1,16}$/), { nil: undefined }),
  });
  const pad = (x: number) => String(x).padStart(2, '0');
  fc.assert(
    fc.property(stamp, ({ y, mo, d, h, mi, s, frac }) => {
      const text = `${y}-${pad(mo)}-${pad(d)} ${pad(h)}:${pad(mi)}:${pad(s)}${frac === undefined ? '' : `.${frac}`}`;
      const fast = new DatetimeBytes().read(Buffer.from(text), 0, text.length);
      const slow = parseDatetimeSeconds(text);
      // The byte path declines (NaN) what the string path reads only for fractions over 15 digits.
      if (Number.isNaN(fast) && frac !== undefined && frac.length > 15) return true;
      return Object.is(fast, slow);
    }),
    { numRuns: 3000 },
  );
  fc.assert(
    fc.property(fc.stringMatching(/^[0-9]{1,9}(\.[0-9]{1,6})?$/), (text) => Object.is(parseDecimal(Buffer.from(text), 0, text.length), Number(text))),
    { numRuns: 3000 },
  );
  const bytes = (t: string) => Buffer.from(t);
  assert.ok(Number.isNaN(parseDecimal(bytes('1e3'), 0, 3)) && Number.isNaN(parseDecimal(bytes('5.'), 0, 2)) && Number.isNaN(parseDecimal(bytes(''), 0, 0)));
  assert.equal(parseDigits(bytes('2147483647'), 0, 10), 2147483647);
  assert.equal(parseDigits(bytes('12a'), 0, 3), -1);
  assert.equal(parseDigits(bytes('12345678901'), 0, 11), -1);
});

test('a line longer than the 1 MiB read buffer is read whole', () => {
  const long = `{"arrival_s": 0, "prompt_len": 5, "output_len": 1, "pad": "${'x'.repeat(2_500_000)}"}`;
  const path = write('long-line.jsonl', `${long}\n{"arrival_s": 1, "prompt_len": 6, "output_len": 1}`);
  const lengths: number[] = [];
  forEachLine(path, (line) => lengths.push(line.length));
  assert.deepEqual(lengths, [long.length, 50]);
});

test('attnscope JSONL: a prefix_id without prefix_len shares whole prompts; the run notes how many, and warns when one id\'s prompts are more than 2x apart (s29 newcomer-ed finding 3)', () => {
  // Same lengths within each id (a system prompt shared whole): the note only. 3 requests give no prefix_len
  // (ids "a" and 7); the one with prefix_len 10 and the one without prefix_id do not count.
  const same = write('whole-same.jsonl', [
    '{"arrival_s": 0, "prompt_len": 500, "output_len": 5, "prefix_id": "a"}',
    '{"arrival_s": 1, "prompt_len": 1000, "output_len": 5, "prefix_id": "a"}',
    '{"arrival_s": 2, "prompt_len": 300, "output_len": 5, "prefix_id": 7}',
    '{"arrival_s": 3, "prompt_len": 300, "output_len": 5, "prefix_id": "b", "prefix_len": 10}',
    '{"arrival_s": 4, "prompt_len": 300, "output_len": 5}',
  ].join('\n'));
  const warnings: string[] = [];
  const r = readTraceFile(same, { maxModelLen: 8192, warnings });
  // 1,000 = 2 · 500: not more than 2x apart, no warning.
  assert.deepEqual(warnings, []);
  assert.deepEqual(r.notes, ["3 requests give a prefix_id and no prefix_len: each shares its whole prompt with every other request of its prefix_id (the prefix cache hits up to the shorter prompt's length, in whole pages)"]);
  // One such request: "1 request gives ... it shares" (s44 newcomer L5: "1 request give").
  const one = readTraceFile(write('whole-one.jsonl', '{"arrival_s": 0, "prompt_len": 500, "output_len": 5, "prefix_id": "a"}'), { maxModelLen: 8192, warnings: [] });
  assert.deepEqual(one.notes, ["1 request gives a prefix_id and no prefix_len: it shares its whole prompt with every other request of its prefix_id (the prefix cache hits up to the shorter prompt's length, in whole pages)"]);
  // The newcomer's two-line trace: 1,000 and 5,000 tokens, one id: 5,000 > 2 · 1,000, warned at line 2's prompt_len
  // (column 29: `{"arrival_s":5,"prompt_len":` is 28 characters). A second id spread wide (100 then 201 > 2 · 100) is counted.
  const wide = write('whole-wide.jsonl', [
    '{"arrival_s":0,"prompt_len":1000,"output_len":10,"prefix_id":1}',
    '{"arrival_s":5,"prompt_len":5000,"output_len":10,"prefix_id":1}',
    '{"arrival_s":6,"prompt_len":100,"output_len":10,"prefix_id":2}',
    '{"arrival_s":7,"prompt_len":201,"output_len":10,"prefix_id":2}',
  ].join('\n'));
  const w2: string[] = [];
  readTraceFile(wide, { maxModelLen: 8192, warnings: w2 });
  assert.deepEqual(w2, [`${wide}:2:29: warning: prefix_id 1 has no prefix_len and prompts of 1,000 to 5,000 tokens by this line, more than 2x apart (and 1 more prefix_id): its requests share their whole prompts with each other, so a session or conversation id used as prefix_id overstates the prefix cache hits; give prefix_len, the tokens they really share`]);
});

test('a max_model_len the profile does not write is vLLM\'s default, with or without a workload: block, and is named with its source in the estimate and the trace warnings', () => {
  // Llama-3.1-8B: max_position_embeddings 131,072 and rope_scaling llama3 (its config.json), which
  // vLLM does not scale (vllm/config/model.py _get_and_verify_max_len: su, longrope and llama3
  // keep the length), so `vllm serve` without --max-model-len serves 131,072. A workload: block
  // that leaves max_model_len out takes the same (it took AttnScope's min(131,072, 8,192) before).
  const base = 'model: ./llama-3.1-8b/config.json\n';
  const defaulted = maxModelLenOf(exampleProfile(`${base}workload: { requests: 100 }\n`));
  assert.deepEqual(defaulted, { tokens: 131072, written: false, source: "vLLM's default, max_position_embeddings 131,072" });
  assert.deepEqual(maxModelLenOf(exampleProfile(base)), defaulted);
  assert.deepEqual(maxModelLenOf(exampleProfile(`${base}workload: { max_model_len: 8192 }\n`)), { tokens: 8192, written: true, source: 'workload.max_model_len' });
  // A 12,000-token prompt fits the default; a 140,000-token one reaches it, and the rejection
  // warning carries the source.
  const file = join(tempDir('attnscope-mml-'), 'p140k.jsonl');
  writeFileSync(file, '{"arrival_s": 0, "prompt_len": 12000, "output_len": 10}\n{"arrival_s": 1, "prompt_len": 140000, "output_len": 10}\n');
  const warnings: string[] = [];
  readTraceFile(file, { maxModelLen: defaulted.tokens, maxModelLenSource: defaulted.source, warnings });
  assert.deepEqual(warnings, [`${file}:2:1: warning: prompt of 140,000 tokens reaches max_model_len 131,072 (vLLM's default, max_position_embeddings 131,072): the request is rejected`]);
});

test('an empty prefix_id ("" or spaces, an empty cell a converter carried over) is refused at its value; null still means no shared prefix', () => {
  // Before, "" was read as an id: every line with an empty cell shared its whole prompt with the others (a 50% hit here).
  // "prefix_id" is at column 52 in the test of a key given twice above, 53 here (prompt_len 64 has one digit more); its value 13 characters on, at column 66.
  for (const empty of ['""', '"  "']) {
    const f = write('empty-id.jsonl', `{"arrival_s": 0, "prompt_len": 64, "output_len": 1}\n{"arrival_s": 1, "prompt_len": 64, "output_len": 1, "prefix_id": ${empty}}\n`);
    assert.equal(cliLine(() => readTraceFile(f, { maxModelLen: 8192 })), `${f}:2:66: "prefix_id" is empty (${empty}): for a request that shares no prefix write null or leave the key out; else give the id its requests share`);
  }
  const none = write('null-id.jsonl', '{"arrival_s": 0, "prompt_len": 64, "output_len": 1, "prefix_id": null}\n{"arrival_s": 1, "prompt_len": 64, "output_len": 1, "prefix_id": null}\n');
  assert.equal(readTraceFile(none, { maxModelLen: 8192 }).count, 2);
});

test('an empty, blank, null or missing number in a JSONL or vllm bench trace is refused, never read as 0 or dropped (the CSV readers: see the BurstGPT/Azure empty-cell test)', () => {
  // Each case names the field: a wrong reader that read "" as 0 would drop the row as a failed request or take it.
  const jsonl: Array<['attnscope' | 'mooncake', string, RegExp]> = [
    ['attnscope', '{"arrival_s": 0, "prompt_len": "", "output_len": 5}', /"prompt_len" must be a number, got ""/],
    ['attnscope', '{"arrival_s": 0, "prompt_len": 5, "output_len": " "}', /"output_len" must be a number, got " "/],
    ['attnscope', '{"arrival_s": null, "prompt_len": 5, "output_len": 5}', /"arrival_s" must be a number, got null/],
    ['attnscope', '{"arrival_s": 0, "prompt_len": 5}', /missing "output_len"/],
    ['attnscope', '{"arrival_s": 0, "prompt_len": 5, "output_len": 5, "prefix_id": 1, "prefix_len": ""}', /"prefix_len" must be a number, got ""/],
    ['mooncake', '{"timestamp": "", "input_length": 600, "output_length": 5, "hash_ids": [1, 2]}', /"timestamp" must be a number of milliseconds, got ""/],
    ['mooncake', '{"timestamp": 0, "input_length": " ", "output_length": 5, "hash_ids": [1, 2]}', /"input_length" must be an integer from 1 to 2,147,483,647, got " "/],
    ['mooncake', '{"timestamp": 0, "input_length": 600, "hash_ids": [1, 2]}', /"output_length" must be an integer from 1 to 2,147,483,647, got nothing/],
    ['mooncake', '{"timestamp": 0, "input_length": 600, "output_length": null, "hash_ids": [1, 2]}', /"output_length" must be an integer from 1 to 2,147,483,647, got null/],
    ['mooncake', '{"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": ["", 2]}', /hash_ids\[0\] must be a block id \(an integer >= 0\), got ""/],
  ];
  for (const [format, line, message] of jsonl) {
    const f = write(`empty-${format}.jsonl`, `${line}\n`);
    assert.match(cliLine(() => readTraceFile(f, { format, maxModelLen: 8192 })), message, line);
  }
  const bench = (arrays: Record<string, unknown>) => write('empty-bench.json', JSON.stringify({ backend: 'vllm', model_id: 'x', request_rate: 'inf', duration: 1, ...arrays }));
  for (const [arrays, message] of [
    [{ input_lens: ['', 5], output_lens: [5, 5] }, /input_lens\[0\] must be an integer from 1 to 2,147,483,647, got ""/],
    [{ input_lens: [5, 5], output_lens: [null, 5] }, /output_lens\[0\] must be an integer from 1 to 2,147,483,647, got null/],
    [{ input_lens: [5, 5], output_lens: [5, 5], start_times: [' ', 1] }, /start_times\[0\] must be a number of seconds, got " "/],
    [{ input_lens: [5, 5], output_lens: [5] }, /output_lens has 1 entries, input_lens 2/],
  ] as const) {
    assert.match(cliLine(() => readTraceFile(bench(arrays), { format: 'vllm-bench', maxModelLen: 8192 })), message, JSON.stringify(arrays));
  }
});

test('vllm bench serve result without start_times (s39 newcomer 9): gamma gaps of shape burstiness at request_rate, the last sent at n / rate, as vllm/benchmarks/serve.py get_request draws them', () => {
  // vLLM: gap ~ Gamma(shape = burstiness, scale = 1 / (rate · burstiness)): mean 1 / rate, coefficient of variation 1 / sqrt(burstiness);
  // the running sums rescaled so that the last is at n / rate. Even spacing (the replay before) has CV 0.
  const n = 4000;
  for (const [burstiness, cv] of [[1, 1], [4, 0.5], [0.25, 2]] as const) {
    const t = vllmBenchArrivals(n, 4, burstiness, 0);
    assert.ok(Math.abs(t[n - 1]! - n / 4) < 1e-9, `last at ${t[n - 1]}`);
    assert.ok(t[0]! > 0, 'the first request waits its gap, as vLLM sleeps delay_ts[0]');
    const gaps = Array.from({ length: n - 1 }, (_, i) => t[i + 1]! - t[i]!);
    assert.ok(gaps.every((g) => g >= 0));
    const mean = gaps.reduce((a, g) => a + g, 0) / gaps.length;
    const sd = Math.sqrt(gaps.reduce((a, g) => a + (g - mean) ** 2, 0) / gaps.length);
    assert.ok(Math.abs(mean - 0.25) < 0.02, `burstiness ${burstiness}: mean gap ${mean}`);
    assert.ok(Math.abs(sd / mean - cv) < 0.1 * cv, `burstiness ${burstiness}: CV ${sd / mean}, expected ${cv}`);
  }
  // The result's burstiness is read (vLLM writes result_json["burstiness"]); one vLLM would not take is refused at its place.
  const bursty = readTraceFile(write('bench-bursty.json', JSON.stringify({ request_rate: 2, burstiness: 0.5, input_lens: [10, 20, 30, 40], output_lens: [1, 2, 3, 4] })), { maxModelLen: 8192 });
  const expect = vllmBenchArrivals(4, 2, 0.5, 0);
  assert.deepEqual([...bursty.requests.arrivalS], [...expect].map((x) => x - expect[0]!));
  assert.match(bursty.notes[0]!, /shape burstiness 0\.5, then scaled so that the last is sent at 4 \/ 2 s/);
  const bad = write('bench-badburst.json', '{"request_rate": 2,\n "burstiness": 0, "input_lens": [1], "output_lens": [1]}');
  assert.equal(cliLine(() => readTraceFile(bad, { maxModelLen: 8192 })), `${bad}:2:16: burstiness must be a positive number (vllm bench serve --burstiness; 1 is a Poisson process), got 0`);
});

test('Rng.gamma: mean and variance equal the shape (scale 1), below and above shape 1', () => {
  const rng = new Rng(7);
  for (const shape of [0.3, 1, 2.5, 9]) {
    const xs = Array.from({ length: 20000 }, () => rng.gamma(shape));
    const mean = xs.reduce((a, x) => a + x, 0) / xs.length;
    const variance = xs.reduce((a, x) => a + (x - mean) ** 2, 0) / xs.length;
    assert.ok(Math.abs(mean - shape) < 0.05 * shape, `shape ${shape}: mean ${mean}`);
    assert.ok(Math.abs(variance - shape) < 0.1 * shape, `shape ${shape}: variance ${variance}`);
  }
  assert.throws(() => rng.gamma(0), RangeError);
});

test('every bad row of a trace is refused at once, each at its line:col, in file order, the good rows between them read past; JSONL, CSV and Mooncake alike', () => {
  const ours = write('three-bad.jsonl', [
    '{"arrival_s": 0, "prompt_len": 10, "output_len": 5}',
    // Line 2: `{"arrival_s": 1, "prompt_len": ` is 31 characters, so -5 is at column 32.
    '{"arrival_s": 1, "prompt_len": -5, "output_len": 5}',
    '{"arrival_s": 2, "prompt_len": 10, "output_len": 5}',
    // Line 4: `{"arrival_s": ` is 14 characters, so "soon" is at column 15.
    '{"arrival_s": "soon", "prompt_len": 10, "output_len": 5}',
    // Line 5: `{"arrival_s": 3, "prompt_len": 10 ` is 34 characters: the missing comma is reported at column 35.
    '{"arrival_s": 3, "prompt_len": 10 "output_len": 5}',
    '{"arrival_s": 4, "prompt_len": 10, "output_len": 5}',
  ].join('\n'));
  const e = (() => {
    try {
      readTraceFile(ours, { maxModelLen: 8192 });
    } catch (err) {
      return err;
    }
    return null;
  })();
  assert.ok(e instanceof InputErrors, String(e));
  assert.deepEqual(e.errors.map((x) => [x.line, x.column]), [[2, 32], [4, 15], [5, 35]]);
  assert.equal(e.format(), [
    `${ours}:2:32: "prompt_len" must be >= 1, got -5`,
    `${ours}:4:15: "arrival_s" must be a number, got "soon"`,
    `${ours}:5:35: JSON syntax error: ',' expected`,
  ].join('\n'));
  // BurstGPT: header on line 1; `0.5,ChatGPT,` is 12 characters (Request tokens at 13), `x` at column 1; line 4 lacks its Response tokens.
  const csv = write('three-bad.csv', [
    'Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type',
    '0.5,ChatGPT,abc,10,20,Conversation log',
    'x,ChatGPT,10,10,20,Conversation log',
    '2.5,ChatGPT,10',
    '3.5,ChatGPT,10,10,20,Conversation log',
  ].join('\n'));
  assert.equal(cliLine(() => readTraceFile(csv, { maxModelLen: 8192 })), [
    `${csv}:2:13: Request tokens must be an integer from 1 to 2,147,483,647, got "abc"`,
    `${csv}:3:1: Timestamp must be a number of seconds, got "x"`,
    // '2.5,ChatGPT,10' is 14 characters: the error is past its end, at column 15.
    `${csv}:4:15: the row has 3 cells, the header 6: no Response tokens`,
  ].join('\n'));
  // Mooncake: `{"timestamp": ` is 14 characters; `{"timestamp": 1, "input_length": ` 33.
  const moon = write('two-bad-moon.jsonl', [
    '{"timestamp": -1, "input_length": 10, "output_length": 1}',
    '{"timestamp": 1, "input_length": 0, "output_length": 1}',
    '{"timestamp": 2, "input_length": 10, "output_length": 1}',
  ].join('\n'));
  assert.equal(cliLine(() => readTraceFile(moon, { maxModelLen: 8192 })), [
    `${moon}:1:15: "timestamp" must be >= 0 (milliseconds from the trace's start), got -1`,
    `${moon}:2:34: "input_length" must be an integer from 1 to 2,147,483,647, got 0`,
  ].join('\n'));
});

test('a trace with thousands of bad rows: the first 20 one line each, the rest one line per kind at its first row, counted: the output bounded however many rows are bad', () => {
  // 3,000 rows: row i (line i + 1) has prompt_len 0 when i % 3 == 1 (1,000 rows), output_len 0 when
  // i % 3 == 2 (1,000 rows), and is good when i % 3 == 0. In file order the bad rows alternate
  // prompt, output, ...: the first 20 are lines 2, 3, 5, 6, ..., 29, 30 (10 of each kind), and the
  // 21st, the first not shown, is line 32 (i = 31, a prompt_len row): 990 more of that kind; then
  // line 33 (i = 32), the first output_len row not shown: 990 more.
  const rows = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ arrival_s: i, prompt_len: i % 3 === 1 ? 0 : 10, output_len: i % 3 === 2 ? 0 : 5 }));
  const many = write('many-bad.jsonl', `${rows.join('\n')}\n`);
  const lines = cliLine(() => readTraceFile(many, { maxModelLen: 8192 })).split('\n');
  assert.equal(TRACE_ERRORS_SHOWN, 20);
  assert.equal(lines.length, 22);
  // `{"arrival_s":1,"prompt_len":` is 28 characters; `{"arrival_s":2,"prompt_len":10,"output_len":` is 44.
  assert.equal(lines[0], `${many}:2:29: "prompt_len" must be >= 1, got 0`);
  assert.equal(lines[1], `${many}:3:45: "output_len" must be >= 1, got 0`);
  assert.equal(lines[19], `${many}:30:46: "output_len" must be >= 1, got 0`);
  assert.equal(lines[20], `${many}:32:30: 990 more rows like this from here on, not shown one by one: "prompt_len" must be >= 1, got 0`);
  assert.equal(lines[21], `${many}:33:46: 990 more rows like this from here on, not shown one by one: "output_len" must be >= 1, got 0`);
  // Past TRACE_ERROR_KINDS_SHOWN kinds, the rest share one line. A good line 1, 20 non-object lines
  // (lines 2-21, all shown), then 12 kinds told apart by their words (numbers and the value after
  // ", got" are left out of a kind): each of the three keys missing, of a wrong type, below its
  // minimum (9), a JSON syntax error, a non-object line (a kind not yet counted: the 20 were shown),
  // a prefix_len without prefix_id; written twice (lines 22-33, 34-45). The first 10 kinds (lines
  // 22-31) are counted, 2 rows each; kinds 11 and 12 (lines 32, 33, 44, 45) share the last line, at line 32.
  const kinds = [
    '{"prompt_len": 5, "output_len": 1}', '{"arrival_s": 0, "output_len": 1}', '{"arrival_s": 0, "prompt_len": 5}',
    '{"arrival_s": "a", "prompt_len": 5, "output_len": 1}', '{"arrival_s": 0, "prompt_len": "a", "output_len": 1}', '{"arrival_s": 0, "prompt_len": 5, "output_len": "a"}',
    '{"arrival_s": -1, "prompt_len": 5, "output_len": 1}', '{"arrival_s": 0, "prompt_len": 0, "output_len": 1}', '{"arrival_s": 0, "prompt_len": 5, "output_len": 0}',
    '{"arrival_s": 0,, }', '[1]', '{"arrival_s": 0, "prompt_len": 5, "output_len": 1, "prefix_len": 2}',
  ];
  const mixed = write('kinds-bad.jsonl', `${['{"arrival_s": 0, "prompt_len": 5, "output_len": 1}', ...Array.from({ length: 20 }, () => '[0]'), ...kinds, ...kinds].join('\n')}\n`);
  const out = cliLine(() => readTraceFile(mixed, { maxModelLen: 8192 })).split('\n');
  assert.equal(TRACE_ERROR_KINDS_SHOWN, 10);
  // 20 shown + 10 kinds counted (each 2 rows: the kinds list is written twice) + 1 line for the 2 other kinds (4 rows).
  assert.equal(out.length, 31);
  assert.equal(out.filter((l) => / 2 more rows like this from here on/.test(l)).length, 10);
  assert.match(out[30]!, new RegExp(`^${mixed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:32:1: 4 more bad rows of other kinds from here on, not shown one by one; the first: each line must be a JSON object`));
  assert.ok(out.every((l) => l.startsWith(`${mixed}:`)));
});

test('a vllm bench serve result: every bad start_times entry and length, each at its value', () => {
  // `{"input_lens":[100,0,300],"output_lens":[10,20,30],"start_times":[0,` is 14 + 12 + 14 + 11 + 14 + 3 = 68
  // characters, and `"soon",` 7 more. (The input_lens 0 is not reached: the document's problems come first.)
  const bench = write('bad-many.json', JSON.stringify({ input_lens: [100, 0, 300], output_lens: [10, 20, 30], start_times: [0, 'soon', null] }));
  assert.equal(cliLine(() => readTraceFile(bench, { maxModelLen: 8192 })), [
    `${bench}:1:69: start_times[1] must be a number of seconds, got "soon"`,
    `${bench}:1:76: start_times[2] must be a number of seconds, got null`,
  ].join('\n'));
  const lens = write('bad-lens.json', JSON.stringify({ input_lens: [100, 0, 300], output_lens: [10, 20, -3] }));
  // `{"input_lens":[100,0,300],"output_lens":[10,20,` is 47 characters.
  assert.equal(cliLine(() => readTraceFile(lens, { maxModelLen: 8192 })), [
    `${lens}:1:20: input_lens[1] must be an integer from 1 to 2,147,483,647, got 0`,
    `${lens}:1:48: output_lens[2] must be an integer from 1 to 2,147,483,647, got -3`,
  ].join('\n'));
});
