/**
 * Bounds the rate of dashboard messages whatever the runner's event rate: pool samples are
 * gathered into one `poolSamples` message and only the latest `progress` (or a sweep's
 * `sweepProgress`) is kept, both sent
 * at most once per `intervalMs`; any other message first sends what is gathered, so the page
 * sees every sample, in order, before e.g. `runFinished`. A run's 1,144 pool samples in
 * 2.5 s (examples' e2e profile) become ~25 messages instead of 1,144, each of which cost the
 * page a model update and a redraw. No `vscode` import (unit-tested with mock timers).
 */
import type { ToWebview } from '../core/protocol/webview';

type PoolSamples = Extract<ToWebview, { type: 'poolSamples' }>['samples'];

export class StreamBatcher {
  private samples: PoolSamples = [];
  /** The latest progress, of a run or of a sweep (only one runs at a time). */
  private progress: Extract<ToWebview, { type: 'progress' | 'sweepProgress' }> | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /** `send` gets every message, batched; `intervalMs`: the longest a sample or progress waits. */
  constructor(
    private readonly send: (msg: ToWebview) => void,
    readonly intervalMs = 100,
  ) {}

  /** Queues `poolSamples`, `progress` and `sweepProgress`; sends anything else at once, after what is queued. */
  post(msg: ToWebview): void {
    if (msg.type === 'poolSamples') {
      for (const s of msg.samples) this.samples.push(s);
    } else if (msg.type === 'progress' || msg.type === 'sweepProgress') {
      this.progress = msg;
    } else {
      this.flush();
      this.send(msg);
      return;
    }
    this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  /** Sends what is queued now (samples first, then the latest progress). */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.samples.length > 0) {
      const samples = this.samples;
      this.samples = [];
      this.send({ type: 'poolSamples', samples });
    }
    if (this.progress !== null) {
      const progress = this.progress;
      this.progress = null;
      this.send(progress);
    }
  }

  /** Drops what is queued and stops the timer. */
  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.samples = [];
    this.progress = null;
  }
}
