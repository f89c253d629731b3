/**
 * Bounds the rate of dashboard messages whatever the runner's event rate and however busy the
 * page is: pool samples are gathered into one `poolSamples` message and only the latest
 * `progress` (or a sweep's `sweepProgress`) is kept; what is gathered goes at most once per
 * `intervalMs`, and only once the page has drawn the batch before (`drawn()`, the page's
 * `streamDrawn`): at most one batch is ever queued in front of the page. Any other message
 * first sends what is gathered, page drawn or not, so the page sees every sample, in order,
 * before it; a run's finish (`runFinished`) instead drops what is gathered, which it carries
 * itself, and never waits behind stale progress. Two go at once:
 * the first of a quiet stream (no batch in the last `intervalMs`, the page has drawn the last:
 * a run's or sweep's first progress, a sweep's progress a point at a time) and the last progress
 * (`done` of `total`, whatever the page has drawn), alone, the samples held keeping their pace
 * (s45: flushed with it, ~210 kB at the end of a simulation went just ahead of the finish, and the
 * finish reached the page ~200 ms after them at load 29): the interval bounds bursts, and before
 * (s37 newcomer-ed 6) it delayed every sweep update by up to 250 ms, the first and the last too.
 *
 * Why the page's word and not a rate alone: at load 21-26, while the user typed, the editor's
 * renderer drew the page far slower than 10 batches a second, and the page replayed the
 * backlog one message at a time: the finished run showed 33 s (a simulation) to 116 s (a
 * benchmark) after the runner exited (s34 newcomer-ed 1). No `vscode` import (unit-tested with
 * mock timers).
 */
import type { ToWebview } from '../core/protocol/webview';

type PoolSamples = Extract<ToWebview, { type: 'poolSamples' }>['samples'];

export class StreamBatcher {
  private samples: PoolSamples = [];
  /** The latest progress, of a run or of a sweep (only one runs at a time). */
  private progress: Extract<ToWebview, { type: 'progress' | 'sweepProgress' }> | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** A batch was sent and the page has not said it drew it. */
  private awaitingPage = false;
  /** The interval passed while the page had not drawn: send as soon as it has. */
  private due = false;
  /** When the last batch was sent (Date.now(), ms); -Infinity before any. */
  private sentAt = -Infinity;

  /** `send` gets every message, batched; `intervalMs`: the least time between two batches but the last. */
  constructor(
    private readonly send: (msg: ToWebview) => void,
    readonly intervalMs = 250,
  ) {}

  /**
   * Queues `poolSamples`, `progress` and `sweepProgress`, sent at once when the stream was quiet
   * (no batch in the last interval, the page drew the last), or the progress alone when it is the
   * last (done >= total); sends `runFinished` at once, dropping what is queued (it carries those samples); sends
   * anything else at once, after what is queued.
   */
  post(msg: ToWebview): void {
    if (msg.type === 'poolSamples') {
      for (const s of msg.samples) this.samples.push(s);
    } else if (msg.type === 'progress' || msg.type === 'sweepProgress') {
      if (msg.total > 0 && msg.done >= msg.total) {
        // The last goes at once and alone: the samples held keep their pace, so that a run's
        // finish right behind it carries them rather than queueing behind their drawing.
        this.progress = null;
        this.send(msg);
        return;
      }
      this.progress = msg;
    } else if (msg.type === 'runFinished') {
      // The finish carries the samples the page has not been sent (Dashboard.deliver): what is
      // held is dropped, not sent ahead of it, nor the progress it supersedes. One message then
      // reaches the page, not a batch (~210 kB at the end of a simulation) whose drawing the
      // finish queued behind (s45: the page drew the batch, 23 ms CPU / 156 ms wall at load 29,
      // while the finish waited in the workbench).
      this.dispose();
      this.send(msg);
      return;
    } else {
      this.flush();
      this.send(msg);
      return;
    }
    if (this.due || this.timer !== undefined) return;
    const wait = this.sentAt + this.intervalMs - Date.now();
    if (wait <= 0 && !this.awaitingPage) this.flush();
    else this.timer = setTimeout(() => this.tick(), Math.max(0, wait));
  }

  /**
   * The page drew what it was sent (its `streamDrawn`), or is a new page (`ready`: the stream so
   * far is replayed to it whole): what waited for it goes now.
   */
  drawn(): void {
    this.awaitingPage = false;
    if (this.due) this.flush();
  }

  /** Sends what is queued now (samples first, then the latest progress), whether or not the page has drawn. */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.due = false;
    if (this.samples.length === 0 && this.progress === null) return;
    this.sentAt = Date.now();
    if (this.samples.length > 0) {
      const samples = this.samples;
      this.samples = [];
      this.awaitingPage = true;
      this.send({ type: 'poolSamples', samples });
    }
    if (this.progress !== null) {
      const progress = this.progress;
      this.progress = null;
      this.awaitingPage = true;
      this.send(progress);
    }
  }

  /** Drops what is queued and stops the timer. */
  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.samples = [];
    this.progress = null;
    this.due = false;
    this.awaitingPage = false;
  }

  private tick(): void {
    this.timer = undefined;
    if (this.awaitingPage) this.due = true;
    else this.flush();
  }
}
