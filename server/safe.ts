/**
 * The one wrapper every request handler runs through: it yields to the event loop first (so a
 * $/cancelRequest that arrived meanwhile is seen), answers a cancelled request with the standard
 * RequestCancelled error, and turns any exception into a logged fallback value, so that one bad
 * document never takes the server down or leaves a request unanswered.
 */
import { LSPErrorCodes, ResponseError, type CancellationToken } from 'vscode-languageserver';

/** Where failures are reported (the connection's console in the server, a spy in tests). */
export interface ErrorLog {
  error(message: string): void;
}

/** Message and stack of anything thrown, for the log. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return err.stack ?? `${err.name}: ${err.message}`;
  return String(err);
}

export function cancelled(): ResponseError<void> {
  return new ResponseError(LSPErrorCodes.RequestCancelled, 'Request cancelled');
}

/**
 * Runs `compute` for a request. Resolves to its value; to `fallback` (after logging `what` and
 * the error) when it throws; to a RequestCancelled ResponseError when `token` is cancelled before
 * or right after the work. Never rejects.
 */
export function runSafe<T>(
  log: ErrorLog,
  token: CancellationToken,
  what: string,
  fallback: T,
  compute: () => T,
): Promise<T | ResponseError<void>> {
  return new Promise((resolve) => {
    setImmediate(() => {
      if (token.isCancellationRequested) {
        resolve(cancelled());
        return;
      }
      try {
        const value = compute();
        resolve(token.isCancellationRequested ? cancelled() : value);
      } catch (err) {
        log.error(`${what} failed: ${describeError(err)}`);
        resolve(fallback);
      }
    });
  });
}

/** Runs a notification handler (no reply to send): logs instead of throwing. */
export function guard(log: ErrorLog, what: string, action: () => void): void {
  try {
    action();
  } catch (err) {
    log.error(`${what} failed: ${describeError(err)}`);
  }
}
