/**
 * What `simulate` says of a long run (runner/progress.ts): its plan before it starts and the time
 * it has left (s46 newcomer46 M3: 10,000,000 requests of 100,000 + 30,000 tokens sat at
 * "[  0%] simulating 10,000,000 requests: 0 done, 0 s of serving" for minutes, no word of its size).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Writable } from 'node:stream';
import { PLAN_NOTE_DECODE_TOKENS, Progress, remainingText, simulationPlanNote, simulationProgressText } from '../../runner/progress';
import { simulatePool, type PoolProgress } from '../../runner/simulate/simulate';
import { exampleProfile } from '../fixtures/profile';

test('the plan note names the requests, the prompt tokens and the tokens to decode of a run of 10^10 decode tokens or more; none below', () => {
  // The newcomer's workload: 10^7 requests × 100,000 prompt tokens = 10^12, × 30,000 output tokens = 3 · 10^11.
  assert.equal(
    simulationPlanNote(1e7, 1e12, 3e11),
    'note: simulating 10,000,000 requests: 1,000,000,000,000 prompt tokens to prefill and up to 300,000,000,000 tokens to decode, a step at a time: a long run (its progress line says the time left; Ctrl-C cancels it, nothing written)',
  );
  // The example's 2,000 requests of mean 256 output tokens: about 512,000, no note.
  assert.equal(simulationPlanNote(2000, 2_048_000, 512_000), null);
  assert.equal(simulationPlanNote(1000, 1e6, PLAN_NOTE_DECODE_TOKENS - 1), null);
  assert.match(simulationPlanNote(1000, 1e6, PLAN_NOTE_DECODE_TOKENS)!, /up to 10,000,000,000 tokens to decode/);
});

test('the time left: elapsed · (1 − f) / f once 5 s have passed and some work is done; nothing before, at 0 or at 1', () => {
  // 60 s for a quarter: 180 s more.
  assert.equal(remainingText(60, 0.25), ', about 3 min left at the rate so far');
  // 10 s for 1 %: 990 s = 16.5 min.
  assert.equal(remainingText(10, 0.01), ', about 16.5 min left at the rate so far');
  assert.equal(remainingText(4.9, 0.5), '');
  assert.equal(remainingText(60, 0), '');
  assert.equal(remainingText(60, 1), '');
});

test('a few huge requests: the progress reports tokens done, the simulated time served, and the line a time left, before any request finishes (s47, s48)', async () => {
  // Two requests at 0 s of 1,000 prompt + 100,000 output tokens; a pool that holds both whole
  // (2 × 101,000 tokens < 20,000 pages × 16), so neither waits nor is preempted.
  const p = exampleProfile('model: ./llama-3.1-8b/config.json\nkv_cache: { page_size: 16, num_pages: 20000 }\n');
  const reports: PoolProgress[] = [];
  const ac = new AbortController();
  const stop = new Error('stopped by the test after its first report');
  await assert.rejects(
    simulatePool(p, {
      trace: [{ arrivalS: 0, promptLen: 1000, outputLen: 100_000 }, { arrivalS: 0, promptLen: 1000, outputLen: 100_000 }],
      stepTime: { perStepS: 1, perTokenS: 0, perKvTokenS: 0 },
      baselines: false,
      signal: ac.signal,
      onProgress: (r) => {
        reports.push(r);
        ac.abort(stop);
      },
    }),
    (e: unknown) => e === stop,
  );
  // The first slice is 1,024 steps (simulate.ts FIRST_SLICE_STEPS): step 1 prefills both prompts
  // (2,000 tokens <= the 8,192 budget) and each emits its first token; steps 2..1,024 decode one
  // token each: 2 · 1,024 = 2,048 decoded. To do: 2 · (1,000 + 100,000) = 202,000.
  assert.equal(reports.length, 1);
  const [r] = reports;
  assert.deepEqual({ finished: r.finished, prefilled: r.prefilledTokens, decoded: r.decodedTokens, toDo: r.tokensToDo }, { finished: 0, prefilled: 2000, decoded: 2048, toDo: 202_000 });
  assert.equal(r.fraction, 4048 / 202_000);
  // The simulator's clock: 1,024 steps of 1 s each from the arrivals at 0 s, though no request has
  // finished (s48: it said 0 s, the end of the step of the last completion, until one did).
  assert.equal(r.clockSeconds, 1024);
  // 60 s of wall time for 4,048 of 202,000 tokens: 60 · 197,952 / 4,048 = 2,934.07 s = 48.9 min more.
  assert.equal(
    simulationProgressText(r, 60),
    'simulating 2 requests: 0 done, 4,048 of 202,000 tokens, 1,024 s of serving, about 48.9 min left at the rate so far',
  );
});

/** A stream that says it is a terminal of `columns` columns and keeps what is written to it. */
function terminal(columns: number): Writable & { isTTY: boolean; columns: number; text: string } {
  const out = new Writable({
    write(chunk: Buffer, _enc, done) {
      out.text += chunk.toString();
      done();
    },
  }) as Writable & { isTTY: boolean; columns: number; text: string };
  Object.assign(out, { isTTY: true, columns, text: '' });
  return out;
}

test('on a 60-column terminal each progress redraw fits one row (at most 59 characters), cut with …; piped lines stay whole (s51 nc-cli 7)', async () => {
  // The newcomer's line, 92 characters: on a 60-column terminal it wrapped to 2 rows and the \r redraw rewrote only the second.
  const message = 'simulating 2,000 requests: 257 done, 380,295 of 2,157,212 tokens, 15 s of serving, about 3 s left';
  const out = terminal(60);
  const p = new Progress(out, true, {});
  p.update(17, 100, message);
  p.update(18, 100, message.replace('257', '300'));
  p.finish();
  await new Promise<void>((r) => out.end(r));
  const rows = out.text.split('\r').filter((r) => r !== '');
  assert.equal(rows.length, 2);
  for (const r of rows) assert.ok(r.replace(/\n$/, '').length <= 59, `${r.length} characters: ${JSON.stringify(r)}`);
  // 58 characters of '[ 17%] ' + the message, then '…': 59 in all.
  assert.equal(rows[0], `[ 17%] ${message}`.slice(0, 58) + '…');
  // COLUMNS is the user's say over the terminal's, as for the tables: 80 gives rows of up to 79.
  const wide = terminal(60);
  new Progress(wide, true, { COLUMNS: '80' }).update(17, 100, message);
  assert.equal(wide.text, `\r[ 17%] ${message}`.slice(0, 79) + '…');
  // Under LANG=C the line is cut as printed, ASCII, with '...': still 59 characters (s52).
  const ascii = terminal(60);
  new Progress(ascii, true, { LANG: 'C' }).update(17, 100, `${message} × 2`);
  assert.equal(ascii.text, `\r[ 17%] ${message}`.slice(0, 57) + '...');
  // Not a terminal: the plain line, whole (a log keeps every figure).
  const log = terminal(60);
  log.isTTY = false;
  new Progress(log, true, {}).update(17, 100, message);
  assert.equal(log.text, `[ 17%] ${message}\n`);
});
