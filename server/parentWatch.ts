/**
 * Ends the server when its client is gone, even while the main thread is busy. vscode-languageserver
 * checks `--clientProcessId` every 3 s and exits when stdin ends, but both run on the main
 * thread's event loop: during a long analysis they wait for it, and a server that never became
 * idle outlived a reloaded window as an orphan (parent PID 1) burning CPU. This watch runs on its
 * own thread (a worker, unref'd so it keeps nothing alive) and signals the process from there.
 */
import { Worker } from 'node:worker_threads';

/** How often the worker looks at the parent and the client, ms. */
export const PARENT_POLL_MS = 500;

/**
 * The worker: every pollMs, when the parent PID changed (the parent died and the process was
 * re-parented) or the client process no longer exists (kill(pid, 0) fails with ESRCH), it sends
 * the process SIGTERM (Node's default handler ends it whatever the main thread is doing), and
 * SIGKILL one poll later should a SIGTERM listener hold it up.
 */
const WATCH_SOURCE = `
const { workerData } = require('node:worker_threads');
const { parentPid, clientPid, pollMs } = workerData;
function gone(pid) {
  try { process.kill(pid, 0); return false; } catch (e) { return e.code === 'ESRCH'; }
}
let signalled = false;
setInterval(() => {
  if (signalled) process.kill(process.pid, 'SIGKILL');
  if (process.ppid !== parentPid || (clientPid !== null && gone(clientPid))) {
    signalled = true;
    process.kill(process.pid, 'SIGTERM');
  }
}, pollMs);
`;

/** The `--clientProcessId` the client passed (`--clientProcessId=N` or `--clientProcessId N`, as vscode-languageserver reads it); null without one. */
export function clientProcessId(argv: readonly string[]): number | null {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = arg === '--clientProcessId' ? argv[i + 1] : arg.startsWith('--clientProcessId=') ? arg.slice('--clientProcessId='.length) : undefined;
    if (value === undefined) continue;
    const pid = Number(value);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  }
  return null;
}

/**
 * Starts the watch: the process ends within about 2 × PARENT_POLL_MS of its parent's death or of the
 * client process (`clientPid`, from `--clientProcessId`) ending. Returns the worker (for tests).
 */
export function watchParent(clientPid: number | null, pollMs = PARENT_POLL_MS): Worker {
  const worker = new Worker(WATCH_SOURCE, { eval: true, execArgv: [], workerData: { parentPid: process.ppid, clientPid, pollMs } });
  worker.unref();
  return worker;
}
