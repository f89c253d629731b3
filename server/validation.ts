/**
 * Diagnostics pushed per document, debounced: each change restarts the document's timer; when it
 * fires, the current version is analysed and published with its version number (clients and
 * tests match results to edits by it); closing a document clears its diagnostics.
 */
import type { Connection, Diagnostic } from 'vscode-languageserver';
import { describeError } from './safe';
import { timingEnabled, timingMark } from '../core/timingLog';

export interface ValidationTarget {
  /** Current version of the open document, or null when it is closed. */
  version(uri: string): number | null;
  /** Diagnostics of the document's current version. */
  diagnostics(uri: string): Diagnostic[];
}

export class ValidationScheduler {
  private readonly pending = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly connection: Connection,
    private readonly target: ValidationTarget,
    /** Milliseconds of quiet typing before a document is checked. */
    public delayMs: number,
  ) {}

  /** (Re)starts the document's debounce timer. */
  schedule(uri: string): void {
    this.cancel(uri);
    const timer = setTimeout(() => {
      this.pending.delete(uri);
      this.validateNow(uri);
    }, this.delayMs);
    this.pending.set(uri, timer);
  }

  /** Stops a pending check and clears the document's diagnostics (document closed). */
  clear(uri: string): void {
    this.cancel(uri);
    void this.connection.sendDiagnostics({ uri, diagnostics: [] }).catch(() => undefined);
  }

  dispose(): void {
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }

  private cancel(uri: string): void {
    const timer = this.pending.get(uri);
    if (timer !== undefined) clearTimeout(timer);
    this.pending.delete(uri);
  }

  private validateNow(uri: string): void {
    const version = this.target.version(uri);
    if (version === null) return;
    let diagnostics: Diagnostic[];
    try {
      diagnostics = this.target.diagnostics(uri);
    } catch (err) {
      this.connection.console.error(`Checking ${uri} failed: ${describeError(err)}`);
      return;
    }
    if (timingEnabled) timingMark('server', 'diagnostics', `${uri} v${version} ${diagnostics.length}`);
    void this.connection.sendDiagnostics({ uri, version, diagnostics }).catch(() => undefined);
  }
}
