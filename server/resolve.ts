/**
 * attnscope/resolveProfile: the open document's current (unsaved) text resolved into a Profile
 * and its Estimate, for the extension's benchmark command. A document that is not open is read
 * from disk through the same analysis.
 */
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Problem } from '../core/config';
import type { ResolveProfileRequest } from '../core/protocol/lsp';
import { analyze, checkedProblems, type Analysis } from './analysis';
import type { Workspace } from './workspace';
import { uriToPath } from './paths';

export function resolveProfile(workspace: Workspace, params: ResolveProfileRequest.Params): ResolveProfileRequest.Result {
  const open = workspace.problems(params.uri);
  let a: Analysis;
  let problems: Problem[];
  if (open !== null) ({ analysis: a, problems } = open);
  else {
    const path = uriToPath(params.uri);
    const host = workspace.fileHost();
    const text = path === null ? null : host.readFile(path);
    if (text === null) {
      return {
        profile: null,
        estimate: null,
        problems: [{ severity: 'error', code: 'file-not-found', message: `${params.uri} is neither open nor readable`, range: { offset: 0, length: 0 } }],
      };
    }
    a = analyze(TextDocument.create(params.uri, path!.endsWith('.json') ? 'json' : 'yaml', 0, text), host);
    problems = checkedProblems(a, host);
  }
  if (a.kind === 'other') {
    return {
      profile: null,
      estimate: null,
      problems: [
        {
          severity: 'error',
          code: 'not-a-profile',
          message: 'this file is neither a profile (*.attn.yaml, *.attn.json) nor a HuggingFace config.json (a config.json with "model_type" or "architectures")',
          range: { offset: 0, length: 0 },
        },
      ],
    };
  }
  return { profile: a.profile, estimate: a.estimate, problems };
}
