/**
 * Refusals that the runner gives and the editor shows, worded once here for each surface they are
 * read on: the sentence of what is wrong is the same; what to do instead is the surface's own (a
 * CLI command on the command line; the hover, inlay hints or a command in the editor). The runner
 * tags such a refusal's `error` event with its code (core/protocol/runner.ts RunnerErrorEvent.code),
 * so the editor words it for itself without parsing the runner's sentence.
 */

import type { Profile } from './config/types';
import { formatCount } from './format';

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

/**
 * Most cases one run plans. Each is timed for at least 0.2 s (runner/plan.ts timingBudget) and
 * checked against the fp64 reference, so 1,000 cases are minutes of work at the least; a profile
 * listing more (a newcomer's 200,000 prefill lengths: a dry run ran for minutes, then overflowed
 * the stack) is a list pasted in the wrong place, refused before any planning.
 */
export const MAX_CASES = 1000;

/**
 * Masks a run benchmarks (runner/plan.ts planCases), prefill and decode alike: null (full
 * attention) for models with any full layer (or no sliding window), the sliding window for models
 * with any sliding layer (gpt-oss and Gemma-2 alternate, so they get both).
 */
export function caseWindows(profile: Profile): Array<number | null> {
  const m = profile.model;
  const out: Array<number | null> = [];
  if (m.slidingWindow === null || m.layerTypes.some((t) => t === 'full')) out.push(null);
  if (m.slidingWindow !== null && m.layerTypes.some((t) => t === 'sliding')) out.push(m.slidingWindow);
  return out;
}

/** How many distinct values each case list of a run holds (runner/plan.ts caseAxes: duplicates are planned once). */
export interface CaseListSizes {
  seqLens: number;
  batchSizes: number;
  contextLens: number;
}

/** How many distinct numbers `xs` holds (sorted as a Float64Array: 3-4 times faster than a Set on 20,000 numbers). */
function distinctCount(xs: readonly number[]): number {
  const sorted = Float64Array.from(xs).sort();
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) n++;
  return n;
}

/**
 * The distinct values of each of the profile's case lists (a full run's: `--quick` keeps one of
 * each). Counted only when the lists as written plan more than MAX_CASES: duplicates only lower
 * the count, so the editor spends nothing on a profile of ordinary lists.
 */
function distinctSizes(profile: Profile): CaseListSizes {
  const written = { seqLens: profile.prefill.seqLens.length, batchSizes: profile.decode.batchSizes.length, contextLens: profile.decode.contextLens.length };
  if ((written.seqLens + written.batchSizes * written.contextLens) * caseWindows(profile).length <= MAX_CASES) return written;
  return { seqLens: distinctCount(profile.prefill.seqLens), batchSizes: distinctCount(profile.decode.batchSizes), contextLens: distinctCount(profile.decode.contextLens) };
}

/**
 * The refusal of a benchmark whose case lists plan more than MAX_CASES cases: prefill lengths ×
 * windows plus decode batch sizes × contexts × windows (an upper bound: a window covering a
 * length is planned once), with the profile key of the list that contributes most
 * ("prefill.seq_lens", "decode.context_lens", "decode.batch_sizes"); null when it fits. The one
 * check: `attnscope bench` refuses with it (runner/plan.ts planProblems), the editor shows it at
 * that key and offers no benchmark lens (server/analysis.ts, server/lenses.ts).
 * @param sizes distinct values per list (default: the profile's, as a full run plans them).
 */
export function caseCountRefusal(profile: Profile, sizes: CaseListSizes = distinctSizes(profile)): { key: string; message: string } | null {
  const { seqLens, batchSizes, contextLens } = sizes;
  const windows = caseWindows(profile).length;
  const prefill = seqLens * windows;
  const decode = batchSizes * contextLens * windows;
  if (prefill + decode <= MAX_CASES) return null;
  const key = prefill >= decode ? 'prefill.seq_lens' : contextLens >= batchSizes ? 'decode.context_lens' : 'decode.batch_sizes';
  const lists = `${formatCount(seqLens)} prefill length${seqLens === 1 ? '' : 's'}, ${formatCount(batchSizes)} decode batch size${batchSizes === 1 ? '' : 's'} × ${formatCount(contextLens)} context${contextLens === 1 ? '' : 's'}${windows > 1 ? `, each full and windowed` : ''}`;
  return { key, message: `the case lists plan up to ${formatCount(prefill + decode)} cases (${lists}), more than the ${formatCount(MAX_CASES)} one run takes (each is timed for at least 0.2 s): list fewer lengths` };
}
