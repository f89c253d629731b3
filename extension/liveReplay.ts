/**
 * What the dashboard replays to a page that opens or reloads while a run or sweep is in flight
 * (extension/dashboard.ts, after its `init`): no `vscode` import, so the lists are tested alone
 * (test/extension/liveReplay.test.ts) and fed to the page in test/webview.
 */
import type { ToWebview } from '../core/protocol/webview';

/** The run's stream so far (`live`) and the sweep's start, latest progress and end (`sweepLive`), each in the order sent. */
export interface LiveMessages {
  live: ToWebview[];
  sweepLive: ToWebview[];
}

/**
 * The lists after `msg` is sent: a run's start begins `live` and its cases, environment, samples,
 * progress and Cancel pressed (runCancelling) follow until its finish or refusal clears it; a
 * sweep's start begins `sweepLive`, which keeps only the latest progress, and a Cancel pressed
 * during the sweep (no run streaming) stays after that progress, so a page opened while the
 * runner stops shows "Cancelling…" (s48: it showed an enabled Cancel sweep); an ended sweep keeps
 * its start and end, for a page opened after it, until the next start. Other messages change neither.
 */
export function recordLive(before: LiveMessages, msg: ToWebview): LiveMessages {
  let { live, sweepLive } = before;
  if (msg.type === 'sweepStarted') sweepLive = [msg];
  else if (msg.type === 'sweepProgress' && sweepLive.length > 0) sweepLive = [sweepLive[0]!, msg, ...sweepLive.filter((m) => m.type === 'sweepPoints' || m.type === 'runCancelling')];
  // The points saved so far (sweepPoints), the latest merge only: each holds all before it.
  else if (msg.type === 'sweepPoints' && sweepLive.length > 0) sweepLive = [...sweepLive.filter((m) => m.type !== 'sweepPoints'), msg];
  else if (msg.type === 'runCancelling' && live.length === 0 && sweepLive.length > 0 && sweepLive.at(-1)?.type !== 'sweepEnded') sweepLive = [...sweepLive, msg];
  else if (msg.type === 'sweepEnded') sweepLive = sweepLive.length > 0 ? [sweepLive[0]!, msg] : [];
  if (msg.type === 'runStarted') live = [msg];
  else if (msg.type === 'case' || msg.type === 'environment' || msg.type === 'poolSamples' || msg.type === 'progress' || (msg.type === 'runCancelling' && live.length > 0)) live = [...live, msg];
  else if (msg.type === 'runFinished' || msg.type === 'runRefused') live = [];
  return { live, sweepLive };
}

/**
 * What a page that has just been sent `init` is sent next: the run's stream so far, the sweep's
 * messages, and of the messages `queued` before it was ready those that ask for a view (compare,
 * estimate, sweep; the rest are superseded by init). A replayed sweep start is marked `replayed`
 * (it keeps the report sent in init: the page drops that only for a new sweep) and `ended` where
 * the sweep has ended (the page stays on the tab it lands on: webview/model.ts, main.ts).
 */
export function replayAfterInit(lists: LiveMessages, queued: readonly ToWebview[]): ToWebview[] {
  const ended = lists.sweepLive.at(-1)?.type === 'sweepEnded';
  const asked = queued.filter((m) => m.type === 'compare' || m.type === 'showEstimate' || m.type === 'showSweep');
  return [...lists.live, ...lists.sweepLive, ...asked].map((m) => (m.type === 'sweepStarted' ? { ...m, replayed: true, ...(ended ? { ended: true as const } : {}) } : m));
}
