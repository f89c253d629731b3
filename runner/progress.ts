import { clearLine, cursorTo } from 'node:readline';

/**
 * Progress on stderr: one rewritten line on a terminal; elsewhere plain lines (logs, CI, the
 * extension's output channel), or nothing when `plainLines` is false (output that is piped
 * stays clean).
 */
export class Progress {
  private lastLen = 0;
  private readonly tty: boolean;

  constructor(
    private readonly out: NodeJS.WritableStream & { isTTY?: boolean },
    private readonly plainLines = true,
  ) {
    this.tty = out.isTTY === true;
  }

  /** Shows `[ pct%] message`, pct = floor(100 · done / total); `done` may be fractional. */
  update(done: number, total: number, message: string): void {
    const pct = total > 0 ? Math.floor((100 * done) / total) : 0;
    const line = `[${String(pct).padStart(3)}%] ${message}`;
    if (this.tty) {
      this.out.write(`\r${line.padEnd(this.lastLen)}`);
      this.lastLen = line.length;
    } else if (this.plainLines) {
      this.out.write(`${line}\n`);
    }
  }

  /** Ends the line on a terminal, leaving the last progress visible. */
  finish(): void {
    if (this.tty && this.lastLen > 0) this.out.write('\n');
    this.lastLen = 0;
  }

  /** Erases the progress line on a terminal (with whatever was echoed onto it, e.g. ^C), so that what follows starts on a clean line. */
  clear(): void {
    if (this.tty && this.lastLen > 0) {
      clearLine(this.out, 0);
      cursorTo(this.out, 0);
    }
    this.lastLen = 0;
  }
}
