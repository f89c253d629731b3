/**
 * Refusals that the runner gives and the editor shows, worded once here for each surface they are
 * read on: the sentence of what is wrong is the same; what to do instead is the surface's own (a
 * CLI command on the command line; the hover, inlay hints or a command in the editor). The runner
 * tags such a refusal's `error` event with its code (core/protocol/runner.ts RunnerErrorEvent.code),
 * so the editor words it for itself without parsing the runner's sentence.
 */

/** Where a message is read: the `attnscope` command line, or the editor (VS Code, through the extension). */
export type Surface = 'cli' | 'editor';

/** The refusals worded per surface: 'encoder', a bench of an encoder-only model (BERT...). */
export type RefusalCode = 'encoder';

/** Where a model's memory figures are, for a run refused because there is nothing else to show. */
const ESTIMATE_INSTEAD: Record<Surface, string> = {
  cli: 'try `attnscope estimate`',
  editor: 'its memory estimate is in the hover and inlay hints of its file, and "AttnScope: Show memory breakdown" draws it',
};

/**
 * The refusal of a benchmark of an encoder (`modelType`: config.json model_type, e.g. "bert"): it
 * keeps no KV cache and has no causal decode, so there is nothing to time; what to use instead,
 * in `surface`'s terms.
 */
export function encoderBenchRefusal(modelType: string, surface: Surface): string {
  return `${modelType} is an encoder: it has no KV cache and no causal decode to benchmark; ${ESTIMATE_INSTEAD[surface]}`;
}
