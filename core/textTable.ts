/**
 * The one renderer of the CLI's text tables (kernel table, sweep report, simulate and capacity
 * tables, the vLLM-log comparison). A table wider than `width` columns (TABLE_WIDTH, 100: what
 * pastes into a design doc without reflowing) is split into stacked tables, each repeating the
 * leading `keys` columns, so every figure is still printed and each line fits. --csv/--json
 * keep the full-width form.
 */

/** The widest line a text table prints, in columns (characters). */
export const TABLE_WIDTH = 100;

/** How a table is laid out; every field optional. */
export interface TableOptions {
  /** Leading columns that name a row, repeated in each part of a split table (default 1). */
  keys?: number;
  /** A dashed rule under the header (default true). */
  rule?: boolean;
  /** The widest line, in columns (default TABLE_WIDTH). */
  width?: number;
  /** A line printed under row i (indented by its text), in the last part only; undefined for none. */
  notes?: readonly (string | undefined)[];
}

/** Column indices per part: the key columns, then as many of the rest as fit in `width`, in order. */
function parts(widths: number[], keys: number, width: number): number[][] {
  const keyCols = widths.slice(0, keys).map((_, i) => i);
  const keyWidth = widths.slice(0, keys).reduce((s, w, i) => s + w + (i > 0 ? 2 : 0), 0);
  const out: number[][] = [];
  let cur: number[] = [];
  let used = keyWidth;
  for (let c = keys; c < widths.length; c++) {
    const add = (used > 0 ? 2 : 0) + widths[c]!;
    if (cur.length > 0 && used + add > width) {
      out.push([...keyCols, ...cur]);
      cur = [];
      used = keyWidth;
    }
    used += (used > 0 ? 2 : 0) + widths[c]!;
    cur.push(c);
  }
  if (cur.length > 0 || out.length === 0) out.push([...keyCols, ...cur]);
  return out;
}

/**
 * `header` and `rows` (cells as text) as aligned columns two spaces apart: right-aligned where
 * `rightAligned[i]`, else left; trailing spaces trimmed. Wider than `opts.width`: stacked parts,
 * a blank line between them, each with the key columns first. A single column too wide to fit
 * beside the keys still gets a part of its own (that part's lines then exceed the width).
 * e.g. renderTable(['k', 'v'], [['a', '1']], [false, true]) -> "k  v\n-  -\na  1".
 */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[], rightAligned: readonly boolean[], opts: TableOptions = {}): string {
  const keys = Math.min(opts.keys ?? 1, header.length);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const split = parts(widths, keys, opts.width ?? TABLE_WIDTH);
  const blocks = split.map((cols, p) => {
    const fmt = (cells: readonly string[]) => cols.map((i) => (rightAligned[i] ? cells[i]!.padStart(widths[i]!) : cells[i]!.padEnd(widths[i]!))).join('  ').trimEnd();
    const lines = [fmt(header)];
    if (opts.rule ?? true) lines.push(cols.map((i) => '-'.repeat(widths[i]!)).join('  '));
    rows.forEach((r, i) => {
      lines.push(fmt(r));
      const note = p === split.length - 1 ? opts.notes?.[i] : undefined;
      if (note !== undefined) lines.push(note);
    });
    return lines.join('\n');
  });
  return blocks.join('\n\n');
}
