/**
 * Extension <-> dashboard webview messages. One union per direction with a `type`
 * discriminant. The webview imports only this folder of core/.
 */
import type { Profile } from '../config/types';
import type { Estimate } from '../estimate/types';
import type { KernelCase, PoolSample, RunResult } from './run';

/** Summary row of a saved run, for the history list. */
export interface RunListEntry {
  id: string;
  name: string;
  createdAt: string;
  status: RunResult['status'];
  cases: number;
}

/** extension -> webview */
export type ToWebview =
  | { type: 'init'; runs: RunListEntry[]; current: RunResult | null; currentId?: string | null }
  | { type: 'runStarted'; name: string; total: number; profile?: Profile; estimate?: Estimate }
  | { type: 'progress'; done: number; total: number; message: string }
  | { type: 'case'; case: KernelCase }
  /** Pool samples in simulated-time order, batched by the extension (at most ~10 messages a second whatever the runner's rate). */
  | { type: 'poolSamples'; samples: PoolSample[] }
  | { type: 'runFinished'; run: RunResult; id?: string | null }
  /** The run shown last (runFinished) was saved as history entry `id`. */
  | { type: 'runSaved'; id: string }
  | { type: 'runs'; runs: RunListEntry[] }
  | { type: 'showRun'; run: RunResult; id?: string | null }
  | { type: 'compare'; a: RunResult; b: RunResult }
  /** A profile's memory estimate without a run ("Show memory breakdown"). */
  | { type: 'showEstimate'; name: string; profile: Profile; estimate: Estimate };

/** webview -> extension */
export type FromWebview =
  | { type: 'ready' }
  | { type: 'openRun'; id: string }
  | { type: 'compareRuns'; a: string; b: string }
  | { type: 'export'; id: string; format: 'json' | 'csv' }
  | { type: 'savePng'; name: string; dataUrl: string }
  | { type: 'runBenchmark' }
  | { type: 'cancelRun' };
