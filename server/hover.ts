/**
 * Hover over any key or value of a config or profile: the key's own figure first (the term it
 * drives, e.g. KV per token on num_key_value_heads), the key's documentation from the schema,
 * then the estimate as a markdown table — each
 * term, its formula with this file's numbers, its value — with the terms the hovered key drives
 * in bold, then the estimate's notes (assumed dtype, sliding window, encoder, unsized pool); on
 * decode.context_lens, which drives no term, the figure of its hint (the KV one sequence of its
 * longest length holds, with its formula) in place of the driven terms; on
 * `workload` and `slo`, the latency of the last saved simulation of the file (lastSimulation.ts).
 */
import { MarkupKind, type Hover, type Position } from 'vscode-languageserver';
import { propertyAt } from '../core/config';
import { unmodelledFlagMessage, unmodelledVllmFlag } from '../core/config/vllmFlags';
import type { Analysis } from './analysis';
import { formatTraceSummary } from '../core/format';
import { toRange } from './diagnostics';
import { schemaAt, schemaPathOf } from './schema';
import { latencyMarkdown, lastSimulation } from './lastSimulation';
import { traceTimeoutText } from './traceCheck';
import { uriToPath } from './paths';
import { budgetMarkdown, drivesTerm, kvForSeqRow, table, termRows, type TermId } from './terms';

/** Which driven term leads a key's hover: the most specific figure the key changes. */
const LEAD_ORDER: TermId[] = ['kvToken', 'page', 'pool', 'concurrency', 'budget', 'reserved', 'flash', 'naive', 'kvLayer', 'weights', 'active', 'params'];

export function hover(a: Analysis, position: Position): Hover | null {
  if (a.kind === 'other') return null;
  const offset = a.document.offsetAt(position);
  const found = propertyAt(a.tree, offset);
  if (found === null) return null;
  const { key, keyRange, value } = found.property;
  const onKey = offset >= keyRange.offset && offset <= keyRange.offset + keyRange.length;
  const range = toRange(a, onKey ? keyRange : value.range);
  // A vLLM setting the estimate does not model (core/config/vllmFlags.ts) is no schema key: the table's row speaks for it.
  const flag = a.kind === 'profile' ? unmodelledVllmFlag(key) : undefined;
  const about = flag ? unmodelledFlagMessage(flag) : schemaAt(schemaPathOf(a.kind, found.path))
    .map((n) => n.description)
    .find((d) => d !== undefined);
  const traceLine = a.trace !== null && found.path.join('.') === 'workload.trace' ? traceHoverLine(a.trace) : null;
  const heading = [...(traceLine !== null ? [traceLine, ''] : []), ...(about === undefined ? [] : [`\`${key}\`: ${about}`, ''])];
  // Without an estimate (the file has errors), the key's documentation alone.
  if (a.estimate === null) return heading.length === 0 ? null : { contents: { kind: MarkupKind.Markdown, value: heading.join('\n').trimEnd() }, range };
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
  // decode.context_lens (the key or one of its values) drives no term: its hint's figure instead.
  const contexts = a.profile?.decode.contextLens ?? [];
  const onContexts = a.kind === 'profile' && found.path[0] === 'decode' && found.path[1] === 'context_lens' && e.hasKvCache && contexts.length > 0;
  const held = onContexts ? kvForSeqRow(a, contexts.reduce((m, x) => Math.max(m, x))) : null; // not Math.max(...): a long list overflows the stack
  // A key that changes no term (seed, requests, ...): its documentation and that sentence, not the
  // whole estimate again below the fold (s39 newcomer-ed 6); workload and slo keys keep the latency.
  const inert = !held && key !== 'model' && drivenNames.length === 0;
  const lines = inert ? [...heading, `\`${key}\` does not change the memory estimate.`] : [
    ...(held ? [`**${held.term}: ${held.value}**`, ''] : lead ? [`**${lead.term}: ${lead.value}**`, ''] : []),
    ...heading,
    `**AttnScope estimate** — ${e.model.attention.toUpperCase()}, weights in ${e.model.dtype}, KV cache in ${e.kvDtype}`,
    '',
    held ? `\`${key}\` changes no term of the pool estimate; its hint is the KV one sequence of the longest context length holds:` : key === 'model' ? 'The model drives every term.' : drivenNames.length > 0 ? `\`${key}\` drives: ${drivenNames.join(', ')}.` : `\`${key}\` does not change the memory estimate.`,
    '',
    ...(held ? [table([held], new Set(['kvToken'])), '', 'The estimate:', ''] : []),
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

/** The trace's line of the workload.trace hover: what it holds (`attnscope trace`'s summary), or that it is being read, or why not. */
function traceHoverLine(t: NonNullable<Analysis['trace']>): string {
  const s = t.state;
  if ('summary' in s) return `**Trace ${t.path}: ${formatTraceSummary(s.summary)}** (read by \`attnscope trace\`, as \`simulate\` replays it)`;
  if ('pending' in s) return `Trace ${t.path}: being read…`;
  if ('failed' in s) return `Trace ${t.path}: not checked (${s.failed})`;
  if ('timedOut' in s) return `Trace ${t.path}: ${traceTimeoutText(t.path, s.timedOut)}`;
  return `Trace ${t.path}: cannot be replayed (see the diagnostic)`;
}
