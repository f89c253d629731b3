/**
 * The background pass that answers attnscope/cannotRun for the workspace's profiles before a command's pick asks (s48: a pick's check of 200 profiles took 0.6-0.9 s of the server's
 * CPU, ~2 ms of analysis a file): Workspace.closedFileReasons keeps each answer while no file it
 * read changes, so the pick then costs a stat per file read. One file at a time, the event loop
 * free between files (setImmediate: edits and requests are answered in between); a file open in
 * an editor is left to its own analysis (the one its diagnostics make).
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { describeError } from './safe';

/** Where the pass says what it did: the connection's console (info) and its failures (error). */
export interface PrefillLog {
  info(message: string): void;
  error(message: string): void;
}

export class PickPrefill {
  private queue: string[] = [];
  private running = false;
  private disposed = false;

  /**
   * `fill(uri)` answers one file (server/resolve.ts cannotRunOf, which keeps the answer);
   * `isOpen(uri)`: the file is open in an editor (skipped).
   */
  constructor(
    private readonly fill: (uri: string) => void,
    private readonly isOpen: (uri: string) => boolean,
    private readonly log: PrefillLog,
  ) {}

  /**
   * Answers the files at `paths` (absolute; server/modelPaths.ts workspaceProfiles), in order,
   * after those already queued; logs "AttnScope: answered N workspace files for the pick in T ms
   * (CPU C ms)" when the queue empties. A file already answered and unchanged costs its stats.
   */
  start(paths: readonly string[]): void {
    if (this.disposed || paths.length === 0) return;
    this.queue.push(...paths.map((p) => pathToFileURL(p).href));
    if (!this.running) void this.run();
  }

  /** Stops the pass (the server shuts down): the files not yet answered are dropped. */
  dispose(): void {
    this.disposed = true;
    this.queue = [];
  }

  private async run(): Promise<void> {
    this.running = true;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    let answered = 0;
    try {
      for (let uri = this.queue.shift(); uri !== undefined && !this.disposed; uri = this.queue.shift()) {
        await new Promise((resolve) => setImmediate(resolve));
        if (this.disposed) return;
        if (this.isOpen(uri)) continue;
        try {
          this.fill(uri);
          answered++;
        } catch (err) {
          this.log.error(`The pick's background pass failed on ${uri}: ${describeError(err)}`);
        }
      }
      const cpu = process.cpuUsage(cpu0);
      this.log.info(`AttnScope: answered ${answered} workspace files for the pick in ${(performance.now() - t0).toFixed(0)} ms (CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms)`);
    } finally {
      this.running = false;
    }
  }
}
