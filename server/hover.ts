/**
 * Hover over any key or value of a config or profile: the key's own figure first (the term it
 * drives, e.g. KV per token on num_key_value_heads), the key's documentation from the schema,
 * then the estimate as a markdown table — each
 * term, its formula with this file's numbers, its value — with the terms the hovered key drives
 * in bold, then the estimate's notes (assumed dtype, sliding window, encoder, unsized pool); on
 * decode.context_lens, which drives no term, the figure of its hint (the KV one sequence of its
 * longest length holds, with its formula) in place of the driven terms, and likewise on
 * prefill.seq_lens its hint's naive and flash workspace at the longest seq_len; inside a section
 * on none of its keys (indentation, braces) none; on
 * `workload` and `slo`, the latency of the last saved simulation of the file (lastSimulation.ts).
 */
import { MarkupKind, type Hover, type Position } from 'vscode-languageserver';
import { propertyAt } from '../core/config';
import { unmodelledFlagMessage, unmodelledVllmFlag } from '../core/config/vllmFlags';
import type { Analysis } from './analysis';
import { firstErrorText } from './hintView';
import { toRange } from './diagnostics';
import { schemaAt, schemaPathOf } from './schema';
import { latencyMarkdown, lastSimulation } from './lastSimulation';
import { traceTimeoutText } from './traceCheck';
import { uriToPath } from './paths';
import { budgetMarkdown, drivesTerm, kvForSeqRow, table, termRows, workspaceRows, type TermId, type TermRow } from './terms';
import { attentionWorkspace, headsPerGpu } from '../core/estimate';
import { formatCount, formatTraceSummary } from '../core/format';

/** Which driven term leads a key's hover: the most specific figure the key changes. */
const LEAD_ORDER: TermId[] = ['kvToken', 'page', 'pool', 'concurrency', 'budget', 'reserved', 'flash', 'naive', 'kvLayer', 'weights', 'active', 'params'];

export function hover(a: Analysis, position: Position): Hover | null {
  if (a.kind === 'other') return null;
  const offset = a.document.offsetAt(position);
  const found = propertyAt(a.tree, offset);
  if (found === null) return null;
  const { key, keyRange, value } = found.property;
  const onKey = offset >= keyRange.offset && offset <= keyRange.offset + keyRange.length;
  // Inside a section's value but on none of its keys (indentation, braces, a comment): nothing to
  // say. A section's hover is on its key; one over its whole block (its range) stayed on screen
  // while the mouse moved onto a nested key, which then read as the parent's (s43 newcomer-ed M2).
  if (!onKey && value.type === 'object') return null;
  const range = toRange(a, onKey ? keyRange : value.range);
  // A vLLM setting the estimate does not model (core/config/vllmFlags.ts) is no schema key: the table's row speaks for it.
  const flag = a.kind === 'profile' ? unmodelledVllmFlag(key) : undefined;
  const about = flag ? unmodelledFlagMessage(flag) : schemaAt(schemaPathOf(a.kind, found.path))
    .map((n) => n.description)
    .find((d) => d !== undefined);
  const traceLine = a.trace !== null && found.path.join('.') === 'workload.trace' ? traceHoverLine(a.trace) : null;
  const heading = [...(traceLine !== null ? [traceLine, ''] : []), ...(about === undefined ? [] : [`\`${key}\`: ${about}`, ''])];
  // Without an estimate (the file has errors): the key's documentation and, where the key has
  // figures, which error keeps them from being computed (s46 newcomer-ed L7: page_size 17 beside
  // a tensor_parallel_size error showed the documentation alone, as if the key had no figure).
  if (a.estimate === null) {
    // The hints keep the last valid version's figures, each marked ⚠ (stale): the hover says whose they are, not "no figure" beside them (s51 newcomer-ed L4).
    const why = a.problems.some((p) => p.severity === 'error') ? [`No figure for this version: this file has ${firstErrorText(a)} Figures marked ⚠ beside the keys are from the last version without an error; they update once it is fixed.`] : [];
    const lines = [...heading, ...why];
    return lines.length === 0 ? null : { contents: { kind: MarkupKind.Markdown, value: lines.join('\n').trimEnd() }, range };
  }
  // A section (kv_cache, device, an inline model) drives what its keys drive.
  const here = found.path.join('.');
  const paths = [here, ...(value.properties ?? []).map((p) => `${here}.${p.key}`)];
  const rows = termRows(a);
  const driven = new Set<TermId>(rows.filter((r) => paths.some((path) => drivesTerm(rows, r, path))).map((r) => r.id));
  const e = a.estimate;
  const drivenNames = rows.filter((r) => driven.has(r.id)).map((r) => r.term);
  // The key's own figure first, in the first lines a hover shows without scrolling: KV per
  // token on num_key_value_heads / head_dim, the page on page_size, the pool on the budget's keys...
  const lead = key === 'model' ? rows.find((r) => r.id === 'kvToken') : LEAD_ORDER.map((id) => rows.find((r) => r.id === id && driven.has(id))).find((r) => r !== undefined);
  // decode.context_lens and prefill.seq_lens (the key or one of its values) drive no term of the
  // estimate (its workspace is at max_model_len): their hint's figures instead, at their longest length.
  const own = ownRows(a, found.path);
  // A key that changes no term (seed, requests, ...): its documentation and that sentence, not the
  // whole estimate again below the fold (s39 newcomer-ed 6); workload and slo keys keep the latency.
  const inert = !own && key !== 'model' && drivenNames.length === 0;
  const headline = own?.lead ?? lead;
  const lines = inert ? [...heading, `\`${key}\` does not change the memory estimate.`] : [
    ...(headline ? [`**${headline.term}: ${headline.value}**`, ''] : []),
    ...heading,
    `**AttnScope estimate** — ${e.model.attention.toUpperCase()}, weights in ${e.model.dtype}, KV cache in ${e.kvDtype}`,
    '',
    own ? `\`${key}\` changes no term of the estimate; ${own.what}:` : key === 'model' ? 'The model drives every term.' : drivenNames.length > 0 ? `\`${key}\` drives: ${drivenNames.join(', ')}.` : `\`${key}\` does not change the memory estimate.`,
    '',
    ...(own ? [table(own.rows, new Set([own.lead.id])), '', 'The estimate:', ''] : []),
    table(rows, key === 'model' ? new Set() : driven),
  ];
  const budget = inert ? '' : budgetMarkdown(a);
  if (budget !== '') lines.push('', budget);
  if (!inert && e.notes.length > 0) lines.push('', ...e.notes.map((n) => `- ${n}`));
  if (!inert) lines.push('', 'Bytes in IEC units (1 KiB = 1024 B).');
  // On workload and slo (and their keys): the latency of the last saved simulation of this file.
  const section = found.path[0];
  const path = section === 'workload' || section === 'slo' ? uriToPath(a.document.uri) : null;
  const last = path === null ? null : lastSimulation(path);
  if (last !== null) lines.push('', latencyMarkdown(last));
  return { contents: { kind: MarkupKind.Markdown, value: lines.join('\n') }, range };
}

/**
 * The figures of a key that drives no term of the estimate but has a hint of its own, at its
 * longest length (hints.ts): on decode.context_lens the KV one sequence holds; on prefill.seq_lens
 * the naive and flash workspace per layer (the hint's "S+P vs flash at N"), flash leading. null elsewhere.
 */
function ownRows(a: Analysis, path: ReadonlyArray<string | number>): { rows: TermRow[]; lead: TermRow; what: string } | null {
  const p = a.profile;
  const m = a.model;
  if (a.kind !== 'profile' || p === null || m === null || a.estimate === null) return null;
  const longest = (xs: readonly number[]): number => xs.reduce((x, y) => Math.max(x, y)); // not Math.max(...): a long list overflows the stack
  if (path[0] === 'decode' && path[1] === 'context_lens' && a.estimate.hasKvCache && p.decode.contextLens.length > 0) {
    const held = kvForSeqRow(a, longest(p.decode.contextLens));
    return { rows: [held], lead: held, what: 'its hint is the KV one sequence of the longest context length holds' };
  }
  if (path[0] === 'prefill' && path[1] === 'seq_lens' && p.prefill.seqLens.length > 0) {
    const n = longest(p.prefill.seqLens);
    const rows = workspaceRows(a, attentionWorkspace(p.prefill.batchSize, headsPerGpu(m, p.device.tensorParallelSize), n, n, p.dtype));
    return { rows, lead: rows.find((r) => r.id === 'flash')!, what: `its hint is the prefill workspace per layer at its longest length, N = ${formatCount(n)} (the estimate's rows are at N = max_model_len)` };
  }
  return null;
}

/** The trace's line of the workload.trace hover: what it holds (`attnscope trace`'s summary), or that it is being read, or why not. */
function traceHoverLine(t: NonNullable<Analysis['trace']>): string {
  const s = t.state;
  if ('summary' in s) return `**Trace ${t.path}: ${formatTraceSummary(s.summary)}** (read by \`attnscope trace\`, as \`simulate\` replays it)`;
  if ('pending' in s) return `Trace ${t.path}: being read…`;
  if ('failed' in s) return `Trace ${t.path}: not checked (${s.failed})`;
  if ('timedOut' in s) return `Trace ${t.path}: ${traceTimeoutText(t.path, s.timedOut)}`;
  return `Trace ${t.path}: cannot be replayed (see the diagnostic)`;
}
