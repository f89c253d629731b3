/**
 * The runner child process (core/runnerProcess.ts) against the fake runner: events in
 * order, cancel through SIGTERM (graceful `done` cancelled) and SIGKILL (runner ignores
 * SIGTERM), a crash reported with its last stderr lines, a bad-input error with its position.
 */
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { RunnerEvent } from '../../core/protocol/runner';
import { launchSettingsProblem, parseEvent, RunnerProcess, runnerLaunch, unreadableEvent, type RunnerOutcome } from '../../core/runnerProcess';
import { run as recorded } from '../fixtures/run';
import { tempDir } from '../fixtures/tmp';

const FAKE = join(__dirname, '..', 'fixtures', 'fake-runner.mjs');
const profile = recorded.profile;

function start(mode: string, onEvent: (e: RunnerEvent, proc: RunnerProcess) => void = () => undefined) {
  const events: RunnerEvent[] = [];
  const logs: string[] = [];
  const launch = { ...runnerLaunch(FAKE, process.execPath, { job: 'bench', quick: true, backend: 'cpu' }), env: { ...process.env, FAKE_RUNNER_MODE: mode } };
  const proc: RunnerProcess = new RunnerProcess(launch, profile, {
    onEvent: (e) => {
      events.push(e);
      onEvent(e, proc);
    },
    onLog: (l) => logs.push(l),
  });
  return { proc, events, logs, done: proc.done };
}

describe('runner child process', () => {
  it('passes a simulation the flags that replay a saved run\'s trace after simulate - --events; a bench none', () => {
    const replay = ['--trace', '/w/t.jsonl', '--trace-format', 'mooncake'];
    assert.deepEqual(runnerLaunch('/x/dist/runner.js', 'node', { job: 'simulate', quick: false, backend: 'auto', replay }).args, ['/x/dist/runner.js', 'simulate', '-', '--events', ...replay]);
    assert.deepEqual(runnerLaunch('/x/dist/runner.js', 'node', { job: 'bench', quick: false, backend: 'auto', replay }).args, ['/x/dist/runner.js', 'bench', '-', '--events']);
  });

  it('builds the command line: node runner.js bench - --events, backend only when not auto, quick; simulate - --events without either', () => {
    assert.deepEqual(runnerLaunch('/x/dist/runner.js', '/usr/bin/node', { job: 'bench', quick: true, backend: 'cuda' }), {
      command: '/usr/bin/node',
      args: ['/x/dist/runner.js', 'bench', '-', '--events', '--backend', 'cuda', '--quick'],
    });
    assert.deepEqual(runnerLaunch('/opt/attnscope', 'node', { job: 'bench', quick: false, backend: 'auto' }), {
      command: '/opt/attnscope',
      args: ['bench', '-', '--events'],
    });
    // A simulation times no kernel: the backend and quick settings do not reach it.
    assert.deepEqual(runnerLaunch('/x/dist/runner.js', '/usr/bin/node', { job: 'simulate', quick: true, backend: 'cuda' }), {
      command: '/usr/bin/node',
      args: ['/x/dist/runner.js', 'simulate', '-', '--events'],
    });
  });

  it('parses only RunnerEvent lines', () => {
    assert.deepEqual(parseEvent('{"type":"progress","done":1,"total":2,"message":"m"}'), { type: 'progress', done: 1, total: 2, message: 'm' });
    assert.deepEqual(parseEvent('{"type":"environment","environment":{"os":"linux"}}'), { type: 'environment', environment: { os: 'linux' } });
    assert.equal(parseEvent('{"type":"other"}'), null);
    assert.equal(parseEvent('progress 1/2'), null);
    assert.equal(parseEvent('42'), null);
  });

  it('names a cut event line by its type and length instead of repeating it', () => {
    // A done line cut after 40 of its characters (a pipe closed early): 40 characters, type done.
    const cut = '{"type":"done","run":{"schema":1,"tool":';
    assert.equal(parseEvent(cut), null);
    assert.equal(unreadableEvent(cut), '(a done event the runner wrote could not be read: 40 characters of JSON, cut or garbled)');
  });

  it('streams progress, cases and pool samples, and returns the done run', async () => {
    const { events, logs, done } = start('ok');
    const out = await done;
    assert.equal(out.exitCode, 0);
    assert.equal(out.cancelled, false);
    assert.equal(out.run?.status, 'ok');
    assert.equal(events.filter((e) => e.type === 'case').length, recorded.cases.length);
    assert.equal(events.filter((e) => e.type === 'poolSample').length, recorded.pool!.samples.length);
    // The fake runner's progress: 0 before the first case, then one step per case.
    assert.deepEqual(events.filter((e) => e.type === 'progress').map((e) => (e as { done: number }).done), recorded.cases.map((_, i) => i).concat(recorded.cases.length));
    assert.equal(events.at(-1)?.type, 'done');
    // The profile went in on stdin, the flags on the command line.
    assert.ok(logs.includes('fake-runner model: llama'), logs.join('\n'));
    assert.ok(logs.includes('fake-runner argv: bench - --events --backend cpu --quick'), logs.join('\n'));
  });

  it('cancel: SIGTERM lets the runner record a cancelled run', async () => {
    // A grace far above the runner's own SIGTERM handling, so a loaded machine cannot turn the
    // graceful path into the SIGKILL one (the stubborn test below covers the kill).
    const { done } = start('slow', (e, proc) => e.type === 'case' && proc.cancel(10_000));
    const out: RunnerOutcome = await done;
    assert.equal(out.cancelled, true);
    assert.equal(out.signal, null, 'the runner exited by itself');
    assert.equal(out.exitCode, 0);
    assert.equal(out.run?.status, 'cancelled');
    assert.equal(out.run?.cases.length, 1);
  });

  it('cancel: a runner that ignores SIGTERM is killed', async () => {
    const { done } = start('stubborn', (e, proc) => e.type === 'case' && proc.cancel(300));
    const out = await done;
    assert.equal(out.cancelled, true);
    assert.equal(out.signal, 'SIGKILL');
    assert.equal(out.run, null);
  });

  it('a crash ends without a run and keeps the last stderr lines', async () => {
    const out = await start('crash').done;
    assert.equal(out.exitCode, 134);
    assert.equal(out.run, null);
    assert.equal(out.cancelled, false);
    assert.equal(out.logTail.at(-1), 'Segmentation fault in attnscope_native.node (forced by FAKE_RUNNER_MODE=crash)');
  });

  it('bad input: the error event with file:line:col', async () => {
    const out = await start('badinput').done;
    assert.equal(out.exitCode, 2);
    assert.equal(out.error, `${profile.sourcePath}:4:24: kv_cache.page_size must be a power of two`);
  });

  it('a runner that cannot start is reported, not thrown', async () => {
    const proc = new RunnerProcess({ command: '/nonexistent/attnscope', args: [] }, profile, { onEvent: () => undefined, onLog: () => undefined });
    const out = await proc.done;
    assert.equal(out.run, null);
    assert.match(out.error ?? '', /could not start \/nonexistent\/attnscope: .*ENOENT/);
  });
});

describe('launchSettingsProblem', () => {
  it('accepts the defaults and an existing runner file', () => {
    assert.equal(launchSettingsProblem({ runnerPath: '', nodePath: '' }), null);
    assert.equal(launchSettingsProblem({ runnerPath: FAKE, nodePath: process.execPath }), null);
  });

  it('names attnscope.runnerPath, its value and the way out when the file is missing or a folder', () => {
    assert.equal(
      launchSettingsProblem({ runnerPath: '/nonexistent/runner.js', nodePath: '' }),
      'attnscope.runnerPath "/nonexistent/runner.js" is not a file: fix it in Settings (User, or the Remote tab in a remote window: a machine setting), or clear it to use the bundled runner',
    );
    assert.match(launchSettingsProblem({ runnerPath: __dirname, nodePath: '' })!, /^attnscope\.runnerPath ".*" is not a file/);
  });

  it('names attnscope.runnerPath when it is a file that cannot be executed (not a .js runner)', () => {
    // A text file without the execute bit: spawning it failed with the shell's exit code 127.
    const dir = tempDir('attnscope-runnerpath-');
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'not a program\n', { mode: 0o644 });
    assert.match(launchSettingsProblem({ runnerPath: text, nodePath: '' })!, /^attnscope\.runnerPath ".*notes\.txt" is not executable: point it at the attnscope runner/);
    chmodSync(text, 0o755);
    assert.equal(launchSettingsProblem({ runnerPath: text, nodePath: '' }), null);
  });

  it('resolves a relative runnerPath against the runner\'s working folder', () => {
    assert.equal(launchSettingsProblem({ runnerPath: 'fake-runner.mjs', nodePath: '' }, join(__dirname, '..', 'fixtures')), null);
    assert.notEqual(launchSettingsProblem({ runnerPath: 'fake-runner.mjs', nodePath: '' }, __dirname), null);
  });

  it('checks nodePath as a file when it is a path, else as a command on PATH', () => {
    assert.equal(
      launchSettingsProblem({ runnerPath: '', nodePath: '/nonexistent/bin/node' }),
      'attnscope.nodePath "/nonexistent/bin/node" is not a file: fix it in Settings (User, or the Remote tab in a remote window: a machine setting), or clear it to use the default Node',
    );
    const binDir = join(process.execPath, '..');
    const name = process.execPath.slice(binDir.length + 1);
    assert.equal(launchSettingsProblem({ runnerPath: '', nodePath: name }, undefined, { PATH: binDir }), null);
    assert.match(launchSettingsProblem({ runnerPath: '', nodePath: name }, undefined, { PATH: '/nonexistent' })!, /^attnscope\.nodePath ".*" is no command on PATH/);
  });

  it('leaves nodePath alone when the runner is an executable (Node does not start it)', () => {
    assert.equal(launchSettingsProblem({ runnerPath: process.execPath, nodePath: '/nonexistent/bin/node' }), null);
  });
});
