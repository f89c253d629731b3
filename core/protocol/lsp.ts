/**
 * Custom LSP messages between the extension (client) and the language server, and the
 * command ids the server's code lenses name. Each message says which side sends it.
 */
import type { Problem, Profile } from '../config/types';
import type { Estimate } from '../estimate/types';
import type { PickJob } from '../validate';

/**
 * Command ids contributed by the extension (package.json "contributes.commands"). The server's
 * code lenses on profiles and config.json files name runBenchmark and showMemoryBreakdown with one
 * argument: the document's URI (a string), runSimulation on profiles with a `workload`, and
 * runSweep on a profile's `sweep:` key; the extension resolves the URI with ResolveProfileRequest
 * (a sweep: the runner reads the file itself).
 */
export const Commands = {
  runBenchmark: 'attnscope.runBenchmark',
  runSimulation: 'attnscope.runSimulation',
  runSweep: 'attnscope.runSweep',
  openDashboard: 'attnscope.openDashboard',
  showMemoryBreakdown: 'attnscope.showMemoryBreakdown',
  compareRuns: 'attnscope.compareRuns',
  exportRun: 'attnscope.exportRun',
  cancelRun: 'attnscope.cancelRun',
  showLog: 'attnscope.showLog',
  openSweepResults: 'attnscope.openSweepResults',
  checkVllmLog: 'attnscope.checkVllmLog',
  newProfile: 'attnscope.newProfile',
} as const;

/**
 * attnscope/resolveProfile — client -> server request.
 * Resolves the document at `uri` (a profile or a config.json) from its current, possibly
 * unsaved text into a Profile and its Estimate. `profile` is null when the document has
 * errors that prevent it; `problems` then says why.
 */
export namespace ResolveProfileRequest {
  export const method = 'attnscope/resolveProfile' as const;
  export interface Params {
    uri: string;
  }
  export interface Result {
    profile: Profile | null;
    estimate: Estimate | null;
    problems: Problem[];
  }
}

/**
 * attnscope/cannotRun — client -> server request.
 * Why a command of `job` cannot run each of the files `uris` (core/validate.ts cannotRun of each
 * one's resolve, as ResolveProfileRequest would give it), in their order: null for one it runs.
 * The command palette's pick marks its files with it (extension/commands.ts markUnrunnable): one
 * request for all its files (up to extension/pick.ts PICK_FILE_LIMIT, 5,000), not a resolve each
 * answering its Profile and Estimate (8 KB each, 1.6 MB for 200, encoded by the server and decoded by
 * the extension host). Cancellable between files (the pick closed). The server answers a file it
 * answered before from the answer it kept (server/workspace.ts closedFileReasons).
 */
export namespace CannotRunRequest {
  export const method = 'attnscope/cannotRun' as const;
  export interface Params {
    uris: string[];
    job: PickJob;
  }
  export interface Result {
    reasons: Array<string | null>;
  }
}

/**
 * attnscope/hintsChanged — server -> client notification, sent in place of
 * workspace/inlayHint/refresh to a client whose initializationOptions say `hintsChanged: true`
 * (the extension). The inlay hints of the open documents `uris` changed with no edit of theirs: a
 * config.json they read was edited, changed on disk, or closed, a trace they read was checked, or
 * the `attnscope.hints` setting changed (then every open document). The standard refresh names no
 * document, so VS Code asked the server again for every visible editor at each key typed in a
 * config one profile reads; the extension asks only for those named (extension/typingHints.ts).
 */
export namespace HintsChangedNotification {
  export const method = 'attnscope/hintsChanged' as const;
  export interface Params {
    uris: string[];
  }
}
