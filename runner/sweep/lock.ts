/**
 * One runner at a time per sweep results folder (s41 newcomer-ed F8: two editor windows ran the
 * same sweep, every point simulated twice): `attnscope sweep` takes a lock file in the folder,
 * `.sweep.lock`, holding its pid, host and start time (JSON), created exclusively (O_EXCL: the
 * file system decides who takes it), and removes it when it ends, cancelled or not. A second runner
 * of the same sweep finds it and refuses at once, naming the first and how to follow it
 * ({@link SweepBusyError}). A lock whose pid is gone on this host (a runner killed outright, a
 * machine rebooted) is stale: it is replaced, and said. So is one whose pid is alive but is no
 * longer its runner: after a crash or a reboot the kernel hands the pid to another process (an
 * editor, a shell), and a lock judged by the pid alone refused the sweep, exit 75, for as long as
 * that process lived, naming a "runner" that was not one, until the user deleted the lock by hand
 * (s43). The lock records its process's start time (/proc/<pid>/stat starttime), and a live pid
 * whose start time differs is another process; a lock without it (written before s43) is its
 * runner's only while that pid's command line runs a sweep (/proc/<pid>/cmdline has a `sweep`
 * argument). Where /proc is not (macOS), a live pid holds the lock. A lock of another host cannot
 * be checked and is respected. Dot-files are not results (results.ts listResultFiles skips them).
 *
 * Own code rather than proper-lockfile: that package judges a lock stale by an mtime its holder
 * refreshes on a timer (10 s after a crash by default), not by its pid: a runner busy in one long
 * point must not lose its lock, and a killed one's lock is stale at once.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** The lock file's name in a results folder. */
export const SWEEP_LOCK_FILE = '.sweep.lock';

/** Who holds a sweep's lock: its runner's pid, host (os.hostname) and start time (ISO 8601). */
export interface SweepLockOwner {
  pid: number;
  host: string;
  startedAt: string;
  /**
   * The runner process's start, in clock ticks after boot (/proc/<pid>/stat field 22, starttime:
   * proc_pid_stat(5)), which tells it from a later process given the same pid; absent off Linux
   * and in locks written before s43.
   */
  processStart?: number;
}

/** A live runner holds the results folder's lock: `owner`, or null when its file could not be read yet (being written). */
export class SweepBusyError extends Error {
  constructor(
    readonly outDir: string,
    readonly lockFile: string,
    readonly owner: SweepLockOwner | null,
  ) {
    const who = owner ? `pid ${owner.pid} on ${owner.host}, started ${owner.startedAt}` : 'a runner starting now';
    super(
      `this sweep is already running in ${outDir} (${who}; lock ${lockFile}): follow it there, where it writes each point as it finishes ` +
        `(\`attnscope merge ${outDir}\` reports the points so far; the editor's History lists its report when it ends), ` +
        `or run this command again once it has ended to resume any points it left; delete the lock only if that process is gone`,
    );
    this.name = 'SweepBusyError';
  }
}

/** Whether process `pid` runs on this host (signal 0: ESRCH = gone; EPERM = there, another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * When process `pid` started, in clock ticks after boot: field 22 (starttime) of /proc/<pid>/stat
 * (proc_pid_stat(5)), counted after the command name's closing parenthesis (the name may hold
 * spaces and parentheses); undefined where it cannot be read (no such process, no /proc).
 */
function processStart(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields 3 on follow ") "; starttime, field 22, is the 20th of them.
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    return Number.isInteger(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}

/** Whether process `pid` runs a sweep: an argument of its command line (/proc/<pid>/cmdline) is `sweep`; undefined where it cannot be read. */
function runsSweep(pid: number): boolean | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('sweep');
  } catch {
    return undefined;
  }
}

/**
 * Why the lock of `owner`, a runner on this host, is stale, or null while that runner holds it:
 * 'gone' (no such pid), 'reused' (the pid is another process: its start time differs from the
 * lock's, or, for a lock without one, its command line runs no sweep).
 */
function staleWhy(owner: SweepLockOwner): 'gone' | 'reused' | null {
  if (!alive(owner.pid)) return 'gone';
  const start = processStart(owner.pid);
  if (owner.processStart !== undefined && start !== undefined) return start === owner.processStart ? null : 'reused';
  return runsSweep(owner.pid) === false ? 'reused' : null;
}

/** The owner in `file`, or null when it is empty or not one (a runner between creating and writing it). */
function readOwner(file: string): SweepLockOwner | null {
  try {
    const o = JSON.parse(readFileSync(file, 'utf8')) as Partial<SweepLockOwner>;
    if (typeof o.pid !== 'number' || typeof o.host !== 'string' || typeof o.startedAt !== 'string') return null;
    return { pid: o.pid, host: o.host, startedAt: o.startedAt, ...(typeof o.processStart === 'number' ? { processStart: o.processStart } : {}) };
  } catch {
    return null;
  }
}

/**
 * Takes `outDir`'s sweep lock for this process; returns its release (removes the file if it is
 * still this process's). A stale lock (its pid gone on this host, or another process's now) is replaced, and `say` tells.
 * @throws SweepBusyError when a live runner holds it; a file-system error other than EEXIST as is.
 */
export function takeSweepLock(outDir: string, say: (line: string) => void): () => void {
  const file = join(outDir, SWEEP_LOCK_FILE);
  const start = processStart(process.pid);
  const me: SweepLockOwner = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString(), ...(start !== undefined ? { processStart: start } : {}) };
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, `${JSON.stringify(me)}\n`, { flag: 'wx' });
      return () => {
        if (readOwner(file)?.pid === me.pid) rmSync(file, { force: true });
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const owner = readOwner(file);
    const stale = owner && owner.host === me.host ? staleWhy(owner) : null;
    if (attempt > 0 || !owner || stale === null) throw new SweepBusyError(outDir, file, owner);
    say(`attnscope: ${file}: the runner that held this sweep (pid ${owner.pid}, started ${owner.startedAt}) is gone${stale === 'reused' ? ` (pid ${owner.pid} is another process now)` : ''}: its lock is replaced`);
    rmSync(file, { force: true });
  }
}
