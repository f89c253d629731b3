/**
 * Cancels that land between the phases of a run, driven in-process (runner/cli.ts main) so that
 * the signal reaches the runner at a chosen point of its own code, not after a sleep: the runner's
 * handlers are process.on('SIGINT'/'SIGTERM') listeners, and process.emit calls them as a signal
 * would.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import type { RunnerEvent } from '../../core/protocol/runner';
import { main } from '../../runner/cli';
import { cancelWhileReadingFifo, HANDED_FIFO } from '../fixtures/fifo';
import { untilReadingStdin } from '../fixtures/stdin';
import { tempDir } from '../fixtures/tmp';

const runner = join(__dirname, '..', '..', 'dist', 'runner.js');

const TINY_CONFIG = JSON.stringify({
  model_type: 'llama', hidden_size: 256, num_attention_heads: 4, num_key_value_heads: 2, num_hidden_layers: 2,
  intermediate_size: 512, vocab_size: 1000, max_position_embeddings: 4096, torch_dtype: 'float32',
});

/** A sink that keeps what is written and calls `onText` with each chunk, as it is written. */
function sink(onText: (text: string) => void = () => undefined): Writable & { text: () => string } {
  let all = '';
  const w = new Writable({
    write(chunk: Buffer, _enc, cb) {
      all += chunk.toString();
      onText(chunk.toString());
      cb();
    },
  });
  return Object.assign(w, { text: () => all });
}

test('simulate --events cancelled once the paged simulation finished, while the baselines still run: the line says so, not "at 100%", and the stream ends on one cancelled done (s31 newcomer-cli 6)', async () => {
  const dir = tempDir('attnscope-cancel-');
  writeFileSync(join(dir, 'config.json'), TINY_CONFIG);
  const profile = join(dir, 'p.attn.yaml');
  writeFileSync(profile, 'model: ./config.json\nkv_cache: { page_size: 16, num_pages: 400 }\nworkload: { requests: 2000, seed: 1 }\n');
  let signalled = false;
  // The progress event that says the paged run is done is written from the simulator's callback,
  // before simulatePool awaits the baselines: SIGINT then lands in that wait.
  const stdout = sink((text) => {
    if (!signalled && text.includes('finished; waiting for the contiguous-allocation baselines')) {
      signalled = true;
      process.emit('SIGINT', 'SIGINT');
    }
  });
  const stderr = sink();
  const code = await main(['simulate', profile, '--events'], { stdout, stderr });
  assert.ok(signalled, `no progress event said the simulation finished:\n${stdout.text()}`);
  assert.equal(code, 130, stderr.text());
  const at = 'after the simulation of 2,000 requests finished, while its contiguous-allocation baselines and summary were computed';
  assert.equal(stderr.text().split('\n').filter((l) => l.startsWith('attnscope: ')).join('\n'), `attnscope: simulate cancelled by SIGINT ${at}; nothing written`);
  const events = stdout.text().trim().split('\n').map((l) => JSON.parse(l) as RunnerEvent);
  assert.equal(events.filter((e) => e.type === 'done').length, 1);
  const done = events.at(-1)!;
  assert.ok(done.type === 'done', `ends on ${done.type}`);
  assert.equal(done.run.status, 'cancelled');
  assert.equal(done.run.pool, undefined);
  assert.equal(done.run.error, `cancelled by SIGINT ${at}`);
});

test('simulate --events cancelled before simulating, once the profile is read (here while reading the trace): the stream ends on one cancelled done, as a cancel while simulating does (core/protocol/runner.ts)', async () => {
  const dir = tempDir('attnscope-cancel-');
  writeFileSync(join(dir, 'config.json'), TINY_CONFIG);
  const profile = join(dir, 'p.attn.yaml');
  // No dtype: a note (bf16 assumed... or the config's dtype) comes as a log event before the trace is read.
  writeFileSync(profile, 'model: ./config.json\nkv_cache: { page_size: 16, num_pages: 400 }\n');
  const trace = join(dir, 't.jsonl');
  writeFileSync(trace, '{"arrival_s": 0, "prompt_len": 100, "output_len": 10}\n{"arrival_s": 1, "prompt_len": 100, "output_len": 10}\n');
  let signalled = false;
  // The profile's notes are written before the trace is read (simulateProfile printNotes): SIGTERM
  // at the first one is seen at the check after the (synchronous) read of the trace.
  const stdout = sink((text) => {
    if (!signalled && text.includes('"type":"log"')) {
      signalled = true;
      process.emit('SIGTERM', 'SIGTERM');
    }
  });
  const stderr = sink();
  const code = await main(['simulate', profile, '--trace', trace, '--events'], { stdout, stderr });
  assert.ok(signalled, `no log event before the trace was read:\n${stdout.text()}`);
  assert.equal(code, 130, stderr.text());
  assert.equal(stderr.text(), 'attnscope: simulate cancelled by SIGTERM while reading the trace; nothing written\n');
  const events = stdout.text().trim().split('\n').map((l) => JSON.parse(l) as RunnerEvent);
  assert.deepEqual(events.map((e) => e.type).filter((t) => t !== 'log'), ['done']);
  const done = events.at(-1)!;
  assert.ok(done.type === 'done', `ends on ${done.type}`);
  assert.equal(done.run.kind, 'simulate');
  assert.equal(done.run.name, 'p.attn.yaml');
  assert.equal(done.run.status, 'cancelled');
  assert.equal(done.run.pool, undefined);
  assert.equal(done.run.error, 'cancelled by SIGTERM while reading the trace');
});

test('bench cancelled while it still reads the profile from a file: the run starts cancelled, exit 130, and --events ends on one done with no case (was: killed by the signal, no event)', { skip: process.platform !== 'linux' && '/proc' }, async () => {
  // The profile comes through a pipe (a FIFO handed over as /dev/fd/3): the child blocks reading
  // it until this test writes it, so the signal lands in the reading (fixtures/fifo.ts).
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    const dir = tempDir('attnscope-cancel-');
    writeFileSync(join(dir, 'config.json'), TINY_CONFIG);
    const fifo = join(dir, 'p.attn.yaml');
    const profile = `model: ${JSON.stringify(join(dir, 'config.json'))}\ndtype: fp32\nprefill: { seq_lens: [64] }\ndecode: { batch_sizes: [1], context_lens: [64] }\n`;
    const { code, by, stdout, stderr } = await cancelWhileReadingFifo(runner, fifo, ['bench', HANDED_FIFO, '--quick', '--events'], profile, signal);
    assert.deepEqual([code, by], [130, null], `${signal}: ${stderr}`);
    const events = stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as RunnerEvent);
    assert.equal(events.filter((e) => e.type === 'done').length, 1, signal);
    const done = events.at(-1)!;
    assert.ok(done.type === 'done', `${signal}: ends on ${done.type}`);
    assert.equal(done.run.status, 'cancelled');
    assert.deepEqual(done.run.cases, []);
    assert.match(stderr, new RegExp(`^attnscope: bench cancelled by ${signal} after 0 of \\d+ cases; the run so far is on stdout$`, 'm'));
  }
});

test('bench - cancelled while stdin is still open: SIGTERM ends it with exit 130 and one line, the open pipe does not keep it waiting', { skip: process.platform !== 'linux' && '/proc', timeout: 60_000 }, async (t) => {
  // As simulate's test of the same: the signal goes once the child's event loop polls fd 0
  // ("tfd: 0" in /proc/PID/fdinfo of its epoll fd), a state polled for, not a time slept.
  const child = spawn(process.execPath, [runner, 'bench', '-', '--events'], { stdio: ['pipe', 'pipe', 'pipe'] });
  t.after(() => child.kill('SIGKILL'));
  let stderr = '';
  let stdout = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  const closed = new Promise<[number | null, NodeJS.Signals | null]>((res) => child.on('close', (c, sig) => res([c, sig])));
  await untilReadingStdin(child.pid!);
  child.kill('SIGTERM');
  const [code, by] = await closed;
  assert.deepEqual([code, by], [130, null], stderr);
  assert.equal(stderr, 'attnscope: bench cancelled by SIGTERM while reading the profile from stdin; nothing written\n');
  // No profile came: there is no run to end the stream on (core/protocol/runner.ts), and nothing else is written.
  assert.equal(stdout, '');
  child.stdin.destroy();
});

test('simulate --json --events stopped by SIGTERM right after its paged run: exit 130, one cancelled done, the old --json file kept, whether the baselines or the summary were running (s40 newcomer F3)', { timeout: 120_000 }, async () => {
  // A real signal to a child process: it lands while the main thread works on the summary of
  // 50,000 requests (about a second at load), where the runner's handler waits in the event loop.
  // Before the fix it ran to the end: exit 0, a done with the pool, the --json file replaced.
  const dir = tempDir('attnscope-cancel-');
  const profile = join(dir, 'p.attn.yaml');
  writeFileSync(profile, `model: ${JSON.stringify(join(__dirname, '..', '..', 'examples', 'llama-3.1-8b', 'config.json'))}\ndevice: { gpu: H100 SXM }\nworkload: { requests: 50000, arrival_rate: 24, max_model_len: 8192, seed: 1 }\n`);
  const out = join(dir, 'run.json');
  writeFileSync(out, 'old\n');
  const child = spawn(process.execPath, [runner, 'simulate', profile, '--events', '--json', out], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let signalled = false;
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    if (!signalled && stdout.includes('finished; waiting for the contiguous-allocation baselines')) {
      signalled = true;
      child.kill('SIGTERM');
    }
  });
  const code = await new Promise<number | null>((resolveExit) => child.on('exit', (c) => resolveExit(c)));
  assert.ok(signalled, `no progress event said the simulation finished:\n${stderr}`);
  assert.equal(code, 130, stderr);
  const events = stdout.trim().split('\n').map((l) => JSON.parse(l) as RunnerEvent);
  const done = events.filter((e) => e.type === 'done');
  assert.equal(done.length, 1);
  assert.ok(done[0]!.type === 'done' && done[0]!.run.status === 'cancelled' && done[0]!.run.pool === undefined, JSON.stringify(done[0]).slice(0, 300));
  assert.equal(readFileSync(out, 'utf8'), 'old\n', 'the --json file is left as it was');
});

test('simulate of 10^10 tokens to decode says its plan before it starts, and a cancel right after it still ends with exit 130 (s46 newcomer46 M3)', async () => {
  const dir = tempDir('attnscope-cancel-');
  writeFileSync(join(dir, 'config.json'), TINY_CONFIG.replace('"max_position_embeddings":4096', '"max_position_embeddings":131072'));
  const profile = join(dir, 'p.attn.yaml');
  // 100,000 requests of 10 prompt tokens and 100,000 output tokens: 10^6 to prefill, 10^10 to decode (PLAN_NOTE_DECODE_TOKENS).
  writeFileSync(profile, 'model: ./config.json\nkv_cache: { page_size: 16, num_pages: 7000 }\nworkload: { requests: 100000, arrival_rate: 1, prompt_len: { dist: fixed, value: 10 }, output_len: { dist: fixed, value: 100000 }, max_model_len: 100010, seed: 1 }\n');
  let signalled = false;
  const stderr = sink((text) => {
    if (!signalled && text.includes('note: simulating')) {
      signalled = true;
      process.emit('SIGINT', 'SIGINT');
    }
  });
  const code = await main(['simulate', profile], { stdout: sink(), stderr });
  assert.ok(signalled, `no plan note:\n${stderr.text()}`);
  assert.equal(code, 130, stderr.text());
  const note = stderr.text().split('\n').find((l) => l.startsWith('note: simulating'));
  assert.equal(note, 'note: simulating 100,000 requests: 1,000,000 prompt tokens to prefill and up to 10,000,000,000 tokens to decode, a step at a time: a long run (its progress line says the time left; Ctrl-C cancels it, nothing written)');
  assert.match(stderr.text(), /^attnscope: simulate cancelled by SIGINT.*; nothing written$/m);
});

test('simulate cancelled while it measures μ (its queue too short to tell): the line names that phase, the finished simulation is written without the keeps-up verdict, exit 130 (s52 newcomer MEDIUM)', async () => {
  const dir = tempDir('attnscope-cancel-');
  writeFileSync(join(dir, 'config.json'), TINY_CONFIG);
  const profile = join(dir, 'p.attn.yaml');
  // 5 requests: under the 40 a queue needs to tell, so simulate measures μ after the run (its note first, then the runs).
  writeFileSync(profile, 'model: ./config.json\nkv_cache: { page_size: 16, num_pages: 400 }\nworkload: { requests: 5, arrival_rate: 2, max_num_seqs: 256, seed: 1 }\n');
  const json = join(dir, 'run.json');
  let signalled = false;
  const stdout = sink((text) => {
    if (!signalled && text.includes('measuring the saturated throughput μ instead')) {
      signalled = true;
      process.emit('SIGINT', 'SIGINT');
    }
  });
  const stderr = sink();
  const code = await main(['simulate', profile, '--events', '--json', json], { stdout, stderr });
  assert.ok(signalled, `no note said μ is measured:\n${stdout.text()}`);
  assert.equal(code, 130, stderr.text());
  assert.equal(stderr.text(), 'attnscope: simulate cancelled by SIGINT while measuring the saturated throughput μ (run 1 of at most 6), after the simulation of 5 requests finished; the simulation is written without the keeps-up verdict (its Load line says it cannot tell)\n');
  const events = stdout.text().trim().split('\n').map((l) => JSON.parse(l) as RunnerEvent);
  const note = events.find((e) => e.type === 'log' && e.message.startsWith('note: the run is too short'));
  assert.ok(note && note.type === 'log');
  // K = max(1000, 8 · max_num_seqs 256) = 2,048 requests each run (the profile sets max_num_seqs).
  assert.match(note.message, /up to 6 simulations of 2,048 requests of this load on one engine/);
  const done = events.at(-1)!;
  assert.ok(done.type === 'done', `ends on ${done.type}`);
  assert.equal(done.run.status, 'ok');
  assert.equal(done.run.pool!.summary.requests, 5);
  assert.equal(done.run.pool!.load!.keepsUp, undefined);
  assert.equal(done.run.pool!.load!.saturatedRequestsPerSec, undefined);
  const written = JSON.parse(readFileSync(json, 'utf8')) as { pool: { summary: { requests: number } } };
  assert.equal(written.pool.summary.requests, 5);
});
