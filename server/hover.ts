/**
 * Hover over any key or value of a config or profile: the estimate as a markdown table — each
 * term, its formula with this file's numbers, its value — with the terms the hovered key drives
 * in bold, then the estimate's notes (assumed dtype, sliding window, encoder, unsized pool).
 */
import { MarkupKind, type Hover, type Position } from 'vscode-languageserver';
import type { Analysis } from './analysis';
import { toRange } from './diagnostics';
import { propertyAt } from './locate';
import { table, termRows, type TermId } from './terms';

export function hover(a: Analysis, position: Position): Hover | null {
  if (a.estimate === null) return null;
  const found = propertyAt(a.tree, a.document.offsetAt(position));
  if (found === null) return null;
  const key = found.property.key;
  const rows = termRows(a);
  const driven = new Set<TermId>(rows.filter((r) => r.keys.includes(key)).map((r) => r.id));
  const e = a.estimate;
  const drivenNames = rows.filter((r) => driven.has(r.id)).map((r) => r.term.toLowerCase());
  const lines = [
    `**AttnScope estimate** — ${e.model.attention.toUpperCase()}, weights in ${e.model.dtype}, KV cache in ${e.kvDtype}`,
    '',
    drivenNames.length > 0 ? `\`${key}\` drives: ${drivenNames.join(', ')}.` : `\`${key}\` does not change the memory estimate.`,
    '',
    table(rows, driven),
  ];
  if (e.notes.length > 0) lines.push('', ...e.notes.map((n) => `- ${n}`));
  lines.push('', 'Bytes in IEC units (1 KiB = 1024 B).');
  return {
    contents: { kind: MarkupKind.Markdown, value: lines.join('\n') },
    range: toRange(a, found.property.keyRange.offset <= a.document.offsetAt(position) && a.document.offsetAt(position) <= found.property.keyRange.offset + found.property.keyRange.length ? found.property.keyRange : found.property.value.range),
  };
}
