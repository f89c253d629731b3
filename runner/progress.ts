/**
 * Progress on stderr: one rewritten line on a terminal, plain lines otherwise (logs, CI, the
 * extension's output channel).
 */
export class Progress {
  private lastLen = 0;
  private readonly tty: boolean;

  constructor(private readonly out: NodeJS.WriteStream) {
    this.tty = out.isTTY === true;
  }

  update(done: number, total: number, message: string): void {
    const pct = total > 0 ? Math.floor((100 * done) / total) : 0;
    const line = `[${String(pct).padStart(3)}%] ${message}`;
    if (this.tty) {
      this.out.write(`\r${line.padEnd(this.lastLen)}`);
      this.lastLen = line.length;
    } else {
      this.out.write(`${line}\n`);
    }
  }

  finish(): void {
    if (this.tty && this.lastLen > 0) this.out.write('\n');
    this.lastLen = 0;
  }
}
