/**
 * One runner at a time per sweep results folder (s41 newcomer-ed F8: two editor windows ran the
 * same sweep, every point simulated twice): `attnscope sweep` takes a lock file in the folder,
 * `.sweep.lock`, holding its pid, host and start time (JSON), created exclusively (O_EXCL: the
 * file system decides who takes it), and removes it when it ends, cancelled or not. A second runner
 * of the same sweep finds it and refuses at once, naming the first and how to follow it
 * ({@link SweepBusyError}). A lock whose pid is gone on this host (a runner killed outright, a
 * machine rebooted) is stale: it is replaced, and said. A lock of another host cannot be checked
 * and is respected. Dot-files are not results (results.ts listResultFiles skips them).
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

/** The owner in `file`, or null when it is empty or not one (a runner between creating and writing it). */
function readOwner(file: string): SweepLockOwner | null {
  try {
    const o = JSON.parse(readFileSync(file, 'utf8')) as Partial<SweepLockOwner>;
    return typeof o.pid === 'number' && typeof o.host === 'string' && typeof o.startedAt === 'string' ? { pid: o.pid, host: o.host, startedAt: o.startedAt } : null;
  } catch {
    return null;
  }
}

/**
 * Takes `outDir`'s sweep lock for this process; returns its release (removes the file if it is
 * still this process's). A stale lock (its pid gone on this host) is replaced, and `say` tells.
 * @throws SweepBusyError when a live runner holds it; a file-system error other than EEXIST as is.
 */
export function takeSweepLock(outDir: string, say: (line: string) => void): () => void {
  const file = join(outDir, SWEEP_LOCK_FILE);
  const me: SweepLockOwner = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
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
    if (attempt > 0 || !owner || owner.host !== me.host || alive(owner.pid)) throw new SweepBusyError(outDir, file, owner);
    say(`attnscope: ${file}: the runner that held this sweep (pid ${owner.pid}, started ${owner.startedAt}) is gone: its lock is replaced`);
    rmSync(file, { force: true });
  }
}
