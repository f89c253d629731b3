/**
 * What the status item says about the run in flight (status.ts StatusItem), without the editor:
 * its text and tooltip line, so the extension suite checks them with no `vscode`.
 */

export interface RunState {
  name: string;
  /** Steps done (cases; a sweep's points) of `total`; fractional while one runs. 0 of 0: the runner has not said how many yet. */
  done: number;
  total: number;
  /** What the tooltip says is happening: 'Benchmarking' when not given, 'Sweeping' for a sweep. */
  verb?: string;
  /**
   * What done and total count, shown as "3/9 points" (a sweep's points). Without it the item shows
   * the share done: a benchmark's steps are the peaks measured, each case and the page pool, and
   * "1/8" beside a run of 6 cases read as a wrong count (s43 newcomer-ed L8).
   */
  unit?: string;
  /**
   * Cancel was pressed and the runner has not ended yet (RunInFlight.cancel): the notification
   * closes at once, and the runner's wind-down took 2.8 s with nothing on screen (s46 newcomer-ed L3).
   */
  cancelling?: boolean;
}

/**
 * The status item's text after "AttnScope": "cancelling…" once Cancel is pressed, "starting…"
 * before the runner has said how many steps there are (a sweep showed "0/0 points", read as
 * nothing to do, for 14.5 s: s46 newcomer-ed L4), then "3/9 points" or "42%".
 */
export function runStatusText(run: RunState): string {
  if (run.cancelling) return 'cancelling…';
  if (run.total <= 0) return 'starting…';
  return run.unit ? `${Math.floor(run.done)}/${run.total} ${run.unit}` : `${Math.round((100 * run.done) / run.total)}%`;
}

/** The tooltip's first line: "Sweeping **name**: 42%", "Cancelling **name**: waiting for the runner to stop". */
export function runStatusTooltip(run: RunState): string {
  if (run.cancelling) return `Cancelling **${run.name}**: waiting for the runner to stop`;
  return `${run.verb ?? 'Benchmarking'} **${run.name}**: ${run.total > 0 ? `${Math.round((100 * run.done) / run.total)}%` : 'starting'}`;
}
