/**
 * What every run from the editor shares, a benchmark or serving simulation (benchmark.ts
 * BenchmarkRun) and a sweep (sweep.ts SweepRun): it is the context's one run in flight from its
 * start to its end (ctx.activeRun and the `attnscope.running` context key, released however it
 * ends, the status item's run cleared), its runner child process (core/runnerProcess.ts) with
 * Cancel (SIGTERM, then SIGKILL after the run's own grace), and a cancellable progress
 * notification that the runner's `progress` events move. No `vscode` import: the editor's side
 * comes in as a RunUi (runLaunch.ts EDITOR_RUN_UI), so the extension suite drives this part
 * with a fake editor and a real runner process.
 */
import type { RunnerEvent, RunnerProgressEvent } from '../core/protocol/runner';
import { RunnerProcess, type RunnerJob, type RunnerLaunch, type RunnerOutcome } from '../core/runnerProcess';
import type { Profile } from '../core/config/types';
import type { ActiveRun } from './ctx';
import type { RunState } from './status';
import type { ToWebview } from '../core/protocol/webview';

/** Where the one run in flight is kept (the extension's Ctx). */
export interface RunSlot {
  activeRun: ActiveRun | null;
  readonly status: { setRun(run: RunState | null): void; setCancelling(): void };
  /** The dashboard, told when Cancel is pressed (runCancelling), as the status item is. */
  readonly dashboard: { post(msg: ToWebview): void };
}

/** The editor's side of a run: the context key and the progress notification (EDITOR_RUN_UI in the extension). */
export interface RunUi {
  /** Sets the `attnscope.running` context key, which shows the Cancel command while a run is in flight. */
  setRunning(running: boolean): PromiseLike<unknown>;
  /**
   * Shows a cancellable progress notification titled `title` while `task` runs; `task` moves it
   * with `report` (an increment in percent and a message) and gives `onCancel` what its Cancel does.
   */
  withProgress<T>(title: string, task: (report: (increment: number, message: string) => void, onCancel: (cancel: () => void) => void) => Promise<T>): PromiseLike<T>;
}

/** What a run does with the runner's output while it runs (RunInFlight.runRunner). */
export interface RunnerHandlers {
  /** Every event, in order, before the notification moves for a `progress` one. */
  onEvent(e: RunnerEvent): void;
  /** A stderr line. */
  onLog(line: string): void;
  /** The notification's message for a `progress` event with a total; `percent` is done / total · 100. */
  progressMessage(e: RunnerProgressEvent, percent: number): string;
}

/**
 * A run in flight: subclasses say what they run (execute, with runRunner) and what a window
 * reload does to it (interrupt); this class holds the slot, the process and Cancel.
 * `Result` is what start() resolves with (the saved run, the sweep report; null when none).
 */
export abstract class RunInFlight<Result> implements ActiveRun {
  abstract readonly name: string;
  abstract readonly job: RunnerJob;
  private process: RunnerProcess | null = null;
  /** The runner has ended (its outcome came): a Cancel after it says nothing. */
  private runnerEnded = false;
  /** The slot this run holds (hold), whose status item says "cancelling…" from Cancel to the runner's end. */
  private heldIn: RunSlot | null = null;

  /** `killAfterMs`: how long Cancel's SIGTERM may take before SIGKILL (the runner's own wind-down). */
  protected constructor(
    protected readonly ui: RunUi,
    private readonly killAfterMs: number,
  ) {}

  /**
   * Ends the runner: SIGTERM, SIGKILL after the grace; nothing before it has started or after it
   * has ended. The status item says "cancelling…" and the dashboard's Cancel "Cancelling…" until it
   * has ended (the notification closes at once on Cancel; the runner's wind-down took 2.8 s at load
   * 21 with nothing on screen).
   */
  cancel(): void {
    if (this.process === null || this.runnerEnded) return;
    this.heldIn?.status.setCancelling();
    this.heldIn?.dashboard.post({ type: 'runCancelling' });
    this.process.cancel(this.killAfterMs);
  }

  abstract interrupt(): void;

  /** The run itself, while it holds the slot: resolves when the runner has ended and its end is handled. */
  protected abstract execute(): Promise<Result>;

  /**
   * Runs execute() as `slot`'s one run in flight: the slot holds this run and the context key is
   * set before it starts; however it ends (a result, null, a throw), the slot is emptied, the
   * status item's run cleared and the key unset. Rejects with what execute() throws.
   */
  async hold(slot: RunSlot): Promise<Result> {
    slot.activeRun = this;
    this.heldIn = slot;
    try {
      // Inside the try: a context key that cannot be set still empties the slot.
      await this.ui.setRunning(true);
      return await this.execute();
    } finally {
      slot.activeRun = null;
      slot.status.setRun(null);
      await this.ui.setRunning(false);
    }
  }

  /**
   * Spawns the runner (`launch`; `input` on its stdin, null for none) under a progress
   * notification titled `title` and resolves with its outcome when it has ended. A `progress`
   * event with a total moves the notification to done / total, never back; the notification's
   * Cancel is cancel().
   */
  protected runRunner(title: string, launch: RunnerLaunch, input: Profile | null, handlers: RunnerHandlers): Promise<RunnerOutcome> {
    return Promise.resolve(
      this.ui.withProgress(title, (report, onCancel) =>
        new Promise<RunnerOutcome>((resolve) => {
          let reported = 0;
          const proc = new RunnerProcess(launch, input, {
            onEvent: (e) => {
              handlers.onEvent(e);
              if (e.type === 'progress' && e.total > 0) {
                const percent = (100 * e.done) / e.total;
                report(Math.max(0, percent - reported), handlers.progressMessage(e, percent));
                reported = Math.max(reported, percent);
              }
            },
            onLog: (line) => handlers.onLog(line),
          });
          this.process = proc;
          onCancel(() => this.cancel());
          void proc.done.then((outcome) => {
            this.runnerEnded = true;
            resolve(outcome);
          });
        }),
      ),
    );
  }
}
