/**
 * What `simulate` says of a long run (runner/progress.ts): its plan before it starts and the time
 * it has left (s46 newcomer46 M3: 10,000,000 requests of 100,000 + 30,000 tokens sat at
 * "[  0%] simulating 10,000,000 requests: 0 done, 0 s of serving" for minutes, no word of its size).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Writable } from 'node:stream';
import { muProgressText, PLAN_NOTE_DECODE_TOKENS, Progress, simulationPlanNote, simulationProgressText, TimeLeft, timeLeftText } from '../../runner/progress';
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

test('the time left is written to two significant digits in its unit: a projection from the pace so far is no finer', () => {
  // 2,934.07 s = 48.9 min -> 49; 14.7 s -> 15; 4,000 s = 1.11 h -> 1.1; 90 s = 1.5 min.
  assert.equal(timeLeftText(2934.07), '49 min');
  assert.equal(timeLeftText(14.7), '15 s');
  assert.equal(timeLeftText(4000), '1.1 h');
  assert.equal(timeLeftText(90), '1.5 min');
});

test('TimeLeft: none before 5 s or before a 4 s window of steady pace; then (1 − f) / the window\'s pace, told on at every report once steady (s53)', () => {
  // Reports every 0.5 s of a steady 5 % a second.
  const steady = new TimeLeft();
  const told: Array<[number, number | null]> = [];
  for (let i = 1; i <= 12; i++) told.push([i * 0.5, steady.at(i * 0.5, i * 0.025).leftS]);
  // Nothing to 4.5 s (under 5 s); at 5 s, 25 % done at 5 % a second: 0.75 / 0.05 = 15 s.
  assert.deepEqual(told.filter(([, l]) => l !== null).map(([t]) => t), [5, 5.5, 6]);
  assert.ok(Math.abs(told[9]![1]! - 15) < 1e-9, String(told[9]![1]));
  // Its pace before the window is full: since the start, from 1 s on (2.5 % at 0.5 s gives none).
  const early = new TimeLeft();
  assert.equal(early.at(0.5, 0.025).pace, null);
  assert.ok(Math.abs(early.at(1, 0.05).pace! - 0.05) < 1e-12);
  // A pace that triples between the window's halves (1 % a second, then 3 %) is not steady: no time left.
  const jumpy = new TimeLeft();
  let f = 0;
  const paces: Array<number | null> = [];
  for (let i = 1; i <= 16; i++) {
    f += (i <= 8 ? 0.01 : 0.03) * 0.5;
    paces.push(jumpy.at(i * 0.5, f).leftS);
  }
  // At 6 s the window 2-6 s went at 1 % a second to 4 s and 3 % after: 3x apart, more than the 50 % allowed.
  assert.equal(paces[11], null);
  // Once steady, a later change of pace moves the time left but does not hide it (no flicker).
  const sticky = new TimeLeft();
  for (let i = 1; i <= 10; i++) sticky.at(i * 0.5, i * 0.01);
  const at5 = sticky.at(5.5, 0.11).leftS;
  assert.ok(at5 !== null && Math.abs(at5 - 0.89 / 0.02) < 1e-9, String(at5));
  // The pace halves from 5.5 s: 0.5 % a half-second. At 7.5 s the window (3.5-7.5 s) went 2 % a second
  // to 5.5 s and 1 % after: the mean over the window, 1.5 % a second, gives (1 − 0.13) / 0.015 = 58 s.
  let g = 0.11;
  let last: number | null = null;
  for (let t = 6; t <= 7.5; t += 0.5) last = sticky.at(t, (g += 0.005)).leftS;
  assert.ok(last !== null && Math.abs(last - (1 - 0.13) / 0.015) < 1e-6, String(last));
  // Under a second left: not said (noise). 99.5 % at 1 % a second: 0.5 s.
  const end = new TimeLeft();
  for (let i = 1; i <= 20; i++) end.at(i * 0.5, 0.895 + i * 0.005);
  assert.equal(end.at(10.5, 0.9995).leftS, null);
  assert.equal(end.at(11, 1).leftS, null);
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
  // A pace of 4,048 of 202,000 tokens in 60 s: 4,048 / 60 = 67.5 tokens/s, written whole (67); the time left
  // (1 − f) / pace = 60 · 197,952 / 4,048 = 2,934.07 s = 48.9 min, about 49; the clock, 1,024 s = 17.1 min.
  const pace = { pace: 4048 / 202_000 / 60, leftS: 60 * (202_000 - 4048) / 4048 };
  assert.equal(simulationProgressText(r, pace), 'simulating 0/2 requests, 4.05k/202k tokens, about 49 min left at 67 tokens/s, 17.1 min of serving');
  // The same work as μ's second saturation run, before its time left is told: its own stage's line.
  assert.equal(
    muProgressText({ run: 2, maxRuns: 5, progress: r }, { pace: pace.pace, leftS: null }),
    'measuring μ, run 2 of at most 5: 0/2 requests, 4.05k/202k tokens at 67 tokens/s',
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

test('under TERM=dumb clearing the progress line writes no ANSI escape: spaces between two \\r (s53 nc-cli 13)', async () => {
  const dumb = terminal(60);
  const p = new Progress(dumb, true, { TERM: 'dumb' });
  p.update(5, 100, 'simulating');
  p.clear();
  await new Promise<void>((r) => dumb.end(r));
  // '[  5%] simulating' is 17 characters; 17 + 2 for an echoed ^C = 19 spaces.
  assert.equal(dumb.text, `\r[  5%] simulating\r${' '.repeat(19)}\r`);
  assert.ok(!dumb.text.includes('\u001b'), JSON.stringify(dumb.text));
  // Any other terminal keeps the ANSI erase (ESC[2K, then ESC[1G to column 1).
  const xterm = terminal(60);
  const q = new Progress(xterm, true, { TERM: 'xterm-256color' });
  q.update(5, 100, 'simulating');
  q.clear();
  await new Promise<void>((r) => xterm.end(r));
  assert.equal(xterm.text, '\r[  5%] simulating\u001b[2K\u001b[1G');
});
