/**
 * Code lenses at the top of every model config and profile: "Run attention benchmark" and
 * "Show memory breakdown". The extension implements both commands (ids in core/protocol/lsp.ts);
 * each receives the document URI.
 */
import type { CodeLens } from 'vscode-languageserver';
import { Commands } from '../core/protocol/lsp';
import type { Analysis } from './analysis';

export function codeLenses(a: Analysis): CodeLens[] {
  if (a.kind === 'other') return [];
  const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  return [
    { range, command: { title: 'Run attention benchmark', command: Commands.runBenchmark, arguments: [a.uri] } },
    { range, command: { title: 'Show memory breakdown', command: Commands.showMemoryBreakdown, arguments: [a.uri] } },
  ];
}
