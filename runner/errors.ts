/**
 * Errors the CLI reports as bad input (exit 2, one line `file:line:col: message` on stderr,
 * no output file written) as opposed to internal failures (exit 1).
 */

export class InputError extends Error {
  constructor(
    message: string,
    readonly file: string,
    readonly line = 1,
    readonly column = 1,
  ) {
    super(message);
    this.name = 'InputError';
  }

  /** The one line the CLI prints: `file:line:col: message`. */
  format(): string {
    return `${this.file}:${this.line}:${this.column}: ${this.message}`;
  }
}

/** A usage mistake on the command line (exit 2); `showUsage` false when the usage text would not help. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly showUsage = true,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A result file that could not be written (exit 1, one line). */
export class OutputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutputError';
  }
}

/** Raised inside a run when the user cancelled it (SIGINT / SIGTERM: `signal`). */
export class CancelledError extends Error {
  constructor(readonly signal?: NodeJS.Signals) {
    super(signal ? `cancelled by ${signal}` : 'cancelled');
    this.name = 'CancelledError';
  }
}
