/**
 * The one renderer of the CLI's text tables (kernel table, sweep report, simulate and capacity
 * tables, the vLLM-log comparison). A table wider than `width` columns ({@link tableWidth}: the
 * terminal's width, COLUMNS, else TABLE_WIDTH, 100: what pastes into a design doc without
 * reflowing) is split into stacked tables, each repeating the leading `keys` columns, so every
 * figure is still printed and each line fits. --csv/--json keep the full-width form.
 */

/** The widest line a text table prints where no terminal says otherwise, in columns (characters). */
export const TABLE_WIDTH = 100;

/** The narrowest width {@link tableWidth} gives (a key column and a figure still fit). */
export const MIN_TABLE_WIDTH = 40;

/** What {@link tableWidth} reads: the environment's COLUMNS and the output stream. */
export interface OutputSize {
  env?: { COLUMNS?: string | undefined };
  stdout?: { isTTY?: boolean; columns?: number };
}

/**
 * The width the CLI's text tables render at, in columns — the one place that decides it:
 * COLUMNS when it is a whole number (the user's say, piped or not: COLUMNS=60 narrows), else a
 * terminal's width (stdout a TTY: process.stdout.columns, so a 160-column terminal gets fewer
 * stacked parts), else TABLE_WIDTH (100: piped output, a file, the editor, the tests). Never under
 * MIN_TABLE_WIDTH. Where there is no `process` (a browser bundle), TABLE_WIDTH.
 * e.g. tableWidth({ env: {}, stdout: { isTTY: true, columns: 160 } }) -> 160; with COLUMNS '60' -> 60.
 */
export function tableWidth(size: OutputSize = typeof process === 'undefined' ? {} : { env: process.env, stdout: process.stdout }): number {
  const given = size.env?.COLUMNS?.trim();
  const fromEnv = given !== undefined && /^\d+$/.test(given) ? Number(given) : undefined;
  const tty = size.stdout?.isTTY === true && Number.isInteger(size.stdout.columns) && size.stdout.columns! > 0 ? size.stdout.columns : undefined;
  return Math.max(MIN_TABLE_WIDTH, fromEnv ?? tty ?? TABLE_WIDTH);
}

/** How a table is laid out; every field optional. */
export interface TableOptions {
  /** Leading columns that name a row, repeated in each part of a split table (default 1). */
  keys?: number;
  /** A dashed rule under the header (default true). */
  rule?: boolean;
  /** The widest line, in columns (default {@link tableWidth}: COLUMNS, a terminal's width, else TABLE_WIDTH). */
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
  const split = parts(widths, keys, opts.width ?? tableWidth());
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
