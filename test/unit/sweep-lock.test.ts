/**
 * The sweep lock (runner/sweep/lock.ts) after a crash: a lock whose pid the kernel has since given
 * to another process is stale (s43), by the start time the lock records, or, for a lock written
 * before it did, by that process's command line. Fake lock files over a live `sleep` (Linux /proc).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SWEEP_LOCK_FILE, SweepBusyError, takeSweepLock } from '../../runner/sweep/lock';
import { tempDir } from '../fixtures/tmp';

/** Field 22 (starttime) of /proc/<pid>/stat, read here on its own: the 20th field after the ") " closing the command name. */
function startTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[19]);
}

describe('sweep lock: a pid reused after a crash', { skip: existsSync('/proc/self/stat') ? false : 'needs /proc (Linux)' }, () => {
  // A live process that is no sweep runner, in the place of a crashed runner's pid.
  let other: ChildProcess;
  before(() => {
    other = spawn('sleep', ['600'], { stdio: 'ignore' });
  });
  after(() => {
    other.kill();
  });
  const lockIn = (owner: Record<string, unknown>): string => {
    const dir = tempDir('sweep-lock-');
    writeFileSync(join(dir, SWEEP_LOCK_FILE), JSON.stringify({ host: hostname(), startedAt: '2026-12-05T10:00:00.000Z', ...owner }));
    return dir;
  };

  it('a lock with a start time: stale when the live pid started at another time, held when at the same', () => {
    const pid = other.pid!;
    const said: string[] = [];
    const dir = lockIn({ pid, processStart: startTicks(pid) - 1 });
    const release = takeSweepLock(dir, (line) => said.push(line));
    assert.deepEqual(said, [`attnscope: ${join(dir, SWEEP_LOCK_FILE)}: the runner that held this sweep (pid ${pid}, started 2026-12-05T10:00:00.000Z) is gone (pid ${pid} is another process now): its lock is replaced`]);
    // The new lock is this process's, with its own start time.
    const mine = JSON.parse(readFileSync(join(dir, SWEEP_LOCK_FILE), 'utf8')) as { pid: number; processStart: number };
    assert.deepEqual([mine.pid, mine.processStart], [process.pid, startTicks(process.pid)]);
    release();
    assert.equal(existsSync(join(dir, SWEEP_LOCK_FILE)), false);
    // The same start time: the process that wrote the lock is still there; whatever it runs, it holds it.
    const held = lockIn({ pid, processStart: startTicks(pid) });
    assert.throws(() => takeSweepLock(held, () => assert.fail('nothing to say')), (e: unknown) => e instanceof SweepBusyError && e.owner?.pid === pid && e.owner.processStart === startTicks(pid));
  });

  it('a lock without a start time (before s43): stale when its pid runs no sweep, held while it runs one', () => {
    const said: string[] = [];
    const dir = lockIn({ pid: other.pid! });
    takeSweepLock(dir, (line) => said.push(line))();
    assert.match(said.join('\n'), new RegExp(`is gone \\(pid ${other.pid} is another process now\\): its lock is replaced`));
    // A process whose command line has a `sweep` argument (as `node dist/runner.js sweep p.attn.yaml` has) holds it.
    const runner = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)', 'sweep'], { stdio: 'ignore' });
    try {
      const held = lockIn({ pid: runner.pid! });
      assert.throws(() => takeSweepLock(held, () => assert.fail('nothing to say')), SweepBusyError);
    } finally {
      runner.kill();
    }
  });
});
