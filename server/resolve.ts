/**
 * attnscope/resolveProfile: the open document's current (unsaved) text resolved into a Profile
 * and its Estimate, for the extension's benchmark command. A document that is not open is read
 * from disk through the same analysis. attnscope/cannotRun: why a command cannot run each of a
 * pick's files, from the same analysis.
 */
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Problem, Profile } from '../core/config';
import type { CannotRunRequest, ResolveProfileRequest } from '../core/protocol/lsp';
import { cannotRun, PICK_JOBS, runSeverity } from '../core/validate';
import { analyze, checkedProblems, type Analysis, type FileHost } from './analysis';
import type { PickReasons, Workspace } from './workspace';
import { uriToPath } from './paths';

/**
 * The analysis of `uri` (the open document's, else the file's on disk) and its problems, the
 * sweep's points checked (analysis.ts checkedProblems) only when `problems` is called; or the
 * problem why there is none (the file neither open nor readable, or neither a profile nor a config).
 */
function analysed(workspace: Workspace, uri: string, host: FileHost = workspace.fileHost()): { analysis: Analysis; problems: () => Problem[] } | { problem: Problem } {
  const open = workspace.problems(uri);
  if (open !== null) return { analysis: open.analysis, problems: () => open.problems };
  const path = uriToPath(uri);
  const text = path === null ? null : host.readFile(path);
  if (text === null) return { problem: { severity: 'error', code: 'file-not-found', message: `${uri} is neither open nor readable`, range: { offset: 0, length: 0 } } };
  const a = analyze(TextDocument.create(uri, path!.endsWith('.json') ? 'json' : 'yaml', 0, text), host);
  if (a.kind === 'other') {
    return {
      problem: {
        severity: 'error',
        code: 'not-a-profile',
        message: 'this file is neither a profile (*.attn.yaml, *.attn.json) nor a HuggingFace config.json (a config.json with "model_type" or "architectures")',
        range: { offset: 0, length: 0 },
      },
    };
  }
  return { analysis: a, problems: () => checkedProblems(a, host) };
}

export function resolveProfile(workspace: Workspace, params: ResolveProfileRequest.Params): ResolveProfileRequest.Result {
  const found = analysed(workspace, params.uri);
  if ('problem' in found) return { profile: null, estimate: null, problems: [found.problem] };
  return { profile: found.analysis.profile, estimate: found.analysis.estimate, problems: found.problems() };
}

/**
 * core/validate.ts cannotRun of `uri` for `job`, as of resolveProfile's result, without its
 * cost where the answer does not need it: a file whose profile reads needs no sweep-point checks
 * (cannotRun reads problems only when there is no profile), and none when the analysis's own
 * problems hold an error a run stops at (it is found first). page-size.attn.yaml's 4-point sweep
 * took 6-12 ms of a pick's check, a profile without one 2-3 ms. An open document is answered from
 * its analysis of this version (the one its diagnostics read); a closed file from the answer kept
 * while no file it read changed (Workspace.closedFileReasons), else from a new analysis of it.
 */
export function cannotRunOf(workspace: Workspace, uri: string, job: CannotRunRequest.Params['job']): string | null {
  if (workspace.isOpen(uri)) return reasonsOf(analysed(workspace, uri))[job];
  return workspace.closedFileReasons(uri, (host) => reasonsOf(analysed(workspace, uri, host)))[job];
}

/**
 * cannotRun of each PickJob for the file of `analysis`, its sweep's points checked through `host`
 * only when the answer needs them (reasonsOf): Workspace.reasonsOfAnalysis, which keeps a closed
 * document's answer from its last analysis.
 */
export function analysisReasons(analysis: Analysis, host: FileHost): PickReasons {
  return reasonsOf({ analysis, problems: () => checkedProblems(analysis, host) });
}

/** cannotRun of each PickJob for one analysed file (core/validate.ts PICK_JOBS). */
function reasonsOf(found: ReturnType<typeof analysed>): PickReasons {
  let resolved: { profile: Profile | null; problems: readonly Problem[] };
  if ('problem' in found) resolved = { profile: null, problems: [found.problem] };
  else if (found.analysis.profile !== null) resolved = { profile: found.analysis.profile, problems: [] };
  else {
    const own = found.analysis.problems;
    resolved = { profile: null, problems: own.some((p) => runSeverity(p) === 'error') ? own : found.problems() };
  }
  return Object.fromEntries(PICK_JOBS.map((job) => [job, cannotRun(job, resolved)])) as PickReasons;
}
