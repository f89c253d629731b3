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

/** The widest prose line (reports' long lines, --help), in columns: at most this on any terminal. */
export const PROSE_WIDTH = 100;

/**
 * The width the CLI's prose wraps at, in columns: min({@link tableWidth}, PROSE_WIDTH). A narrow
 * terminal (COLUMNS=60) narrows prose with the tables; a wide one (200 columns) widens only the
 * tables, which gain whole columns from it, while prose stays at 100, the measure a sentence is
 * read at (as man pages, git and clap cap their text). DESIGN.md "Output width".
 * `size`: what tableWidth reads, or the tables' width itself (a caller that was given one).
 * e.g. proseWidth({ env: { COLUMNS: '200' } }) -> 100; with COLUMNS '60' -> 60; proseWidth(72) -> 72.
 */
export function proseWidth(size?: OutputSize | number): number {
  return Math.min(typeof size === 'number' ? size : tableWidth(size), PROSE_WIDTH);
}

/** The locale variables {@link utf8Locale} reads. */
export interface LocaleEnv {
  LC_ALL?: string | undefined;
  LC_CTYPE?: string | undefined;
  LANG?: string | undefined;
}

/**
 * Whether the output's locale takes UTF-8: the character type of POSIX's precedence (LC_ALL, else
 * LC_CTYPE, else LANG; the first one set and non-empty decides) names UTF-8 ("en_US.UTF-8",
 * "C.utf8"), or none is set (UTF-8 is the default: macOS, Windows and most terminals). False for
 * "C", "POSIX", "en_US.ISO-8859-1": {@link terminalText} then prints ASCII. Without `process` (a
 * browser bundle), true.
 * e.g. utf8Locale({ LANG: 'C' }) -> false; utf8Locale({ LC_ALL: 'C', LANG: 'en_US.UTF-8' }) -> false; utf8Locale({}) -> true.
 */
export function utf8Locale(env: LocaleEnv | undefined = typeof process === 'undefined' ? undefined : process.env): boolean {
  const ctype = [env?.LC_ALL, env?.LC_CTYPE, env?.LANG].find((v) => v !== undefined && v !== '');
  return ctype === undefined || /utf-?8/i.test(ctype);
}

/**
 * ASCII for each non-ASCII character the CLI's own text uses (the symbols of its formulas and
 * units). Where a symbol is one column the ASCII is one column too, so a table's alignment holds.
 * '·' is mostly a product ("4·B·H·N_q·N_k·D", "parameters · bytes"): '*', where '.' would read as a
 * decimal point ("4.B.H"); as the header's separator ("2 threads · avx512") '*' reads as a bullet.
 */
const ASCII_EQUIVALENTS: Readonly<Record<string, string>> = {
  '×': 'x', '−': '-', '–': '-', '—': '--', '·': '*', '÷': '/', '±': '+/-', '≈': '~', '≥': '>=', '≤': '<=', '≠': '!=',
  '→': '->', '←': '<-', '…': '...', 'µ': 'u', 'μ': 'u', '√': 'sqrt', 'Σ': 'sum', 'α': 'alpha', 'β': 'beta',
  '‘': "'", '’': "'", '“': '"', '”': '"', '\u00a0': ' ', '\u2009': ' ', '\u202f': ' ',
};
const NON_ASCII = /\P{ASCII}/gu;
/** A run of superscript digits (an exponent: "10⁹", "(d)²") and their digits. */
const SUPERSCRIPTS = /[⁰¹²³⁴⁵⁶⁷⁸⁹]+/g;
const SUPERSCRIPT_DIGITS = '⁰¹²³⁴⁵⁶⁷⁸⁹';

/**
 * `text` as the output's locale can show it: unchanged where it takes UTF-8 ({@link utf8Locale}),
 * else each character of {@link ASCII_EQUIVALENTS} as its ASCII ("2 × 8 GiB ≈ 16 GiB" ->
 * "2 x 8 GiB ~ 16 GiB", "µs" -> "us", "…" -> "...", "10⁹" -> "10^9") and an accented letter as its base letter; any
 * other character (a CJK file name) is left as given. The one place the CLI's text meets the
 * locale: the CLI's standard output and error pass through it ({@link localeOutput}), and so do the
 * renderers that measure widths (renderTable, core/format.ts wrapLine, the progress line) before
 * they measure. Idempotent.
 */
export function terminalText(text: string, env?: LocaleEnv): string {
  if (utf8Locale(env)) return text;
  return text
    .replace(SUPERSCRIPTS, (run) => `^${[...run].map((c) => SUPERSCRIPT_DIGITS.indexOf(c)).join('')}`)
    .replace(NON_ASCII, (c) => ASCII_EQUIVALENTS[c] ?? (c.normalize('NFKD').replace(/[\u0300-\u036f]/g, '') || c));
}

/**
 * Under a locale that does not take UTF-8 ({@link utf8Locale}: LANG=C, LC_ALL=POSIX), makes each of
 * `streams` pass the text written to it through {@link terminalText}, in ASCII, whichever line of
 * the program writes it (the CLI's standard output and error, runner/cli.ts; npm run bench:kernels);
 * nothing under UTF-8. Buffers pass as they are. Files the program writes are not streams here: UTF-8.
 */
export function localeOutput(streams: readonly NodeJS.WriteStream[], env?: LocaleEnv): void {
  if (utf8Locale(env)) return;
  for (const stream of streams) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => write(typeof chunk === 'string' ? terminalText(chunk, env) : chunk, ...rest)) as typeof stream.write;
  }
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
  // Widths of the text as printed: a non-UTF-8 locale's ASCII ('…' -> '...') before it is measured.
  header = header.map((h) => terminalText(h));
  rows = rows.map((r) => r.map((c) => terminalText(c)));
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
