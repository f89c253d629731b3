/**
 * The webview side of the extension channel: typed postMessage, typed persisted state.
 * `acquireVsCodeApi` may be called once per page; this module calls it.
 */
import type { FromWebview, ToWebview } from '../core/protocol/webview';
import type { DashboardModel } from './model';

/** What survives a window reload (setState/getState; the panel serializer hands it back too). */
export interface PersistedState {
  tab: 'run' | 'history' | 'sweep';
  model: DashboardModel;
}

interface VsCodeApi {
  postMessage(msg: FromWebview): void;
  getState(): PersistedState | undefined;
  setState(state: PersistedState): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();

export function post(msg: FromWebview): void {
  api.postMessage(msg);
}

export function loadState(): PersistedState | undefined {
  return api.getState();
}

export function saveState(state: PersistedState): void {
  api.setState(state);
}

/** Subscribes to extension messages. */
export function onMessage(handler: (msg: ToWebview) => void): void {
  window.addEventListener('message', (e: MessageEvent) => {
    const data = e.data as ToWebview | undefined;
    if (data && typeof data === 'object' && typeof data.type === 'string') handler(data);
  });
}
