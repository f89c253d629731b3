/**
 * Chart texts fitted to the width a chart has, for every chart of the dashboard (registered once
 * in main.ts, so the PNG export's redraws have it too): in a narrow panel (an editor split,
 * 320–500 px) Chart.js writes a title, an axis title or a legend item wider than its room past the
 * canvas's edge, where it is cut off. Each draw starts again from the text the chart's config gave
 * (kept in the options object as `fullText`), so a panel made wider shows the whole text again.
 *
 * - the chart's title: whole if it fits, else without its parenthesised parts ("Roofline (roofs:
 *   this machine's measured peaks)" -> "Roofline"), else that wrapped at spaces onto more lines;
 * - an axis title: wrapped at spaces to the axis's length (its unit stays);
 * - a legend item: whole, else without its parenthesised parts, else cut at a word with "…" (the
 *   full names are in the chart's data table and tooltips).
 */
import { Chart, type LegendItem, type Plugin, type Scale } from 'chart.js';
import { toFont, toPadding } from 'chart.js/helpers';

/** Measures a text's width in px in the font set. */
export type Measure = (text: string) => number;

/**
 * `text`'s words on lines no wider than `width` (as `measure` measures them). A word wider than
 * `width` breaks after its dots and underscores ("workload." / "max_num_batched_tokens"); a
 * piece wider still is a line of its own.
 */
export function wrapWords(text: string, width: number, measure: Measure): string[] {
  // Pieces, each with the text that joins it to the one before: a space between words, nothing inside a broken word.
  const pieces = text.split(' ').filter((w) => w !== '').flatMap((word) => {
    const parts = measure(word) > width ? word.split(/(?<=[._])/) : [word];
    return parts.map((part, i) => ({ part, join: i === 0 ? ' ' : '' }));
  });
  const lines: string[] = [];
  let line = '';
  for (const { part, join } of pieces) {
    const next = line === '' ? part : `${line}${join}${part}`;
    if (line !== '' && measure(next) > width) {
      lines.push(line);
      line = part;
    } else {
      line = next;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** `text` without its parenthesised parts: "cached (evictable): to the dashed line" -> "cached: to the dashed line"; unchanged when it has none. */
export function withoutAsides(text: string): string {
  return text.replace(/\s*\([^()]*\)/g, '').replace(/\s+/g, ' ').trim();
}

/**
 * `text` within `width`: whole when it fits, else without its parenthesised parts, else those
 * words cut after the last that fits, with "…" (at least the first word's first letter and "…").
 */
export function shortenText(text: string, width: number, measure: Measure): string {
  if (measure(text) <= width) return text;
  const bare = withoutAsides(text);
  if (bare !== '' && measure(bare) <= width) return bare;
  const words = (bare === '' ? text : bare).split(' ');
  for (let n = words.length - 1; n >= 1; n--) {
    const cut = `${words.slice(0, n).join(' ')}…`;
    if (measure(cut) <= width) return cut;
  }
  const first = words[0] ?? '';
  for (let n = first.length - 1; n >= 1; n--) {
    const cut = `${first.slice(0, n)}…`;
    if (measure(cut) <= width) return cut;
  }
  return `${first.slice(0, 1)}…`;
}

/**
 * A chart title within `width`: whole, else without its parenthesised parts, else that wrapped onto lines;
 * `keepAsides` (a title whose parentheses say the unit and source, the Sweep tab's small multiples): whole or wrapped.
 */
export function fitTitle(text: string, width: number, measure: Measure, keepAsides = false): string | string[] {
  if (measure(text) <= width) return text;
  if (keepAsides) return wrapWords(text, width, measure);
  const bare = withoutAsides(text);
  if (bare !== '' && measure(bare) <= width) return bare;
  return wrapWords(bare === '' ? text : bare, width, measure);
}

interface Fitted {
  text?: string | string[];
  /** Wrap the title whole, never dropping its parenthesised parts (fitTitle's keepAsides). */
  keepAsides?: boolean;
  /** The config's own text, kept on the first draw: each draw fits it again. */
  fullText?: string | string[];
  display?: boolean;
}

/** The config's text of `opts` (kept in `fullText` the first time), joined when the config gave lines. */
function fullTextOf(opts: Fitted): string {
  opts.fullText ??= opts.text;
  const full = opts.fullText ?? '';
  return Array.isArray(full) ? full.join(' ') : full;
}

function measurer(chart: Chart, font: unknown): Measure {
  const ctx = chart.ctx;
  const spec = toFont(font as Parameters<typeof toFont>[0]).string;
  return (text) => {
    ctx.save();
    ctx.font = spec;
    const w = ctx.measureText(text).width;
    ctx.restore();
    return w;
  };
}

/**
 * Pixels across a vertical axis left for its title's lines: the width Chart.js gives the axis at most (Scale.maxWidth) less
 * its tick marks, its widest tick label with the labels' padding, and the title's padding (Chart.js's Scale.fit adds these).
 */
function titleRoom(scale: Scale): number {
  const opts = scale.options as unknown as { grid?: { drawTicks?: boolean; tickLength?: number }; ticks: { display?: boolean; padding?: number; font?: unknown }; title: { padding?: unknown } };
  let labels = 0;
  if (opts.ticks.display !== false && scale.ticks.length > 0) {
    // The ticks' labels before Chart.js writes them (it does again after this hook), measured in the ticks' font.
    scale.generateTickLabels(scale.ticks);
    const measure = measurer(scale.chart, opts.ticks.font);
    labels = Math.max(...scale.ticks.map((t) => Math.max(0, ...[t.label ?? ''].flat().map((line) => measure(String(line)))))) + 2 * (opts.ticks.padding ?? 3);
  }
  const tickMarks = opts.grid?.drawTicks === false ? 0 : (opts.grid?.tickLength ?? 8);
  return scale.maxWidth - tickMarks - labels - toPadding(opts.title.padding as Parameters<typeof toPadding>[0]).height;
}

type LegendLabels = { generateLabels?: (chart: Chart) => LegendItem[]; fitted?: boolean };

/** The plugin (id 'attnscopeFitText'); see the file's comment. */
export const fitTextPlugin: Plugin = {
  id: 'attnscopeFitText',
  beforeUpdate(chart) {
    const raw = chart.config.options?.plugins;
    const title = raw?.title as Fitted | undefined;
    // The title block's width is the canvas's, less a little for its edges.
    if (title && title.display !== false && (title.text !== undefined || title.fullText !== undefined)) {
      title.text = fitTitle(fullTextOf(title), chart.width - 8, measurer(chart, chart.options.plugins?.title?.font), title.keepAsides === true);
    }
    // A subtitle (a sweep decode chart's note of what its error bars are) wrapped at word breaks to the canvas's width.
    const subtitle = raw?.subtitle as Fitted | undefined;
    if (subtitle && subtitle.display !== false && (subtitle.text !== undefined || subtitle.fullText !== undefined)) {
      const lines = wrapWords(fullTextOf(subtitle), chart.width - 8, measurer(chart, chart.options.plugins?.subtitle?.font));
      subtitle.text = lines.length === 1 ? lines[0]! : lines;
    }
    const legend = raw?.legend as { labels?: LegendLabels; title?: Fitted } | undefined;
    if (legend?.title?.display && (legend.title.text !== undefined || legend.title.fullText !== undefined)) {
      legend.title.text = shortenText(fullTextOf(legend.title), chart.width - 8, measurer(chart, chart.options.plugins?.legend?.title?.font));
    }
    if (legend && legend.labels?.fitted !== true) {
      legend.labels ??= {};
      const labels = legend.labels;
      const generate = labels.generateLabels ?? ((c: Chart) => Chart.defaults.plugins.legend.labels.generateLabels(c));
      labels.generateLabels = (c: Chart) => {
        const opts = (c.options.plugins?.legend?.labels ?? {}) as { font?: unknown; usePointStyle?: boolean; pointStyleWidth?: number; boxWidth?: number; padding?: number };
        const font = toFont(opts.font as Parameters<typeof toFont>[0]);
        // An item is its box (chart.js getBoxSize: a point style's pointStyleWidth, else at most the font size), half the
        // font size of gap, then its text, inside the legend's padding on each side.
        const box = opts.usePointStyle ? (opts.pointStyleWidth || Math.min(opts.boxWidth ?? font.size, font.size)) : (opts.boxWidth ?? 40);
        const room = c.width - box - font.size / 2 - 2 * (opts.padding ?? 10);
        const measure = measurer(c, opts.font);
        return generate(c).map((item) => (typeof item.text === 'string' ? { ...item, text: shortenText(item.text, room, measure) } : item));
      };
      labels.fitted = true;
    }
  },
  afterBuildTicks(chart, args: { scale?: Scale }) {
    const scale = args.scale;
    const title = (scale?.options as { title?: Fitted & { font?: unknown } } | undefined)?.title;
    if (!scale || !title?.display) return;
    const raw = (chart.config.options?.scales as Record<string, { title?: Fitted }> | undefined)?.[scale.id]?.title;
    if (!raw) return;
    const length = scale.isHorizontal() ? scale.maxWidth : scale.maxHeight;
    const measure = measurer(chart, title.font);
    const full = fullTextOf(raw);
    let lines = wrapWords(full, length - 8, measure);
    // A vertical axis's title lines stack across the axis's width, which Chart.js caps (half the chart shared among the
    // vertical axes: ~90 px each for the pool chart's three at 600 px) without shortening the title: its lines past that width
    // were drawn over the tick labels (a zoomed pool's "pages (axis to 20,000: …)" in three lines, s50 newcomer-ed 8). As many
    // lines as fit beside the tick labels; past that, the title without its parenthesised parts, else cut with "…".
    if (!scale.isHorizontal()) {
      const most = Math.max(1, Math.floor(titleRoom(scale) / toFont(title.font as Parameters<typeof toFont>[0]).lineHeight));
      if (lines.length > most) lines = wrapWords(withoutAsides(full) || full, length - 8, measure);
      if (lines.length > most) lines = [...lines.slice(0, most - 1), shortenText(lines.slice(most - 1).join(' '), length - 8, measure)];
    }
    // Through the resolved options (it caches what it read), and the config for the next draw's start.
    title.text = lines.length === 1 ? lines[0]! : lines;
  },
};

/**
 * Writes where the last draw put a chart's plot (Chart.chartArea: left top right bottom, CSS px) on its canvas as `data-plot`,
 * for the tests that hold texts clear of the plot's edges (test/webview/dashboard.test.ts: the roof labels at 600 px).
 */
export const plotAreaPlugin: Plugin = {
  id: 'attnscopePlotArea',
  afterDraw(chart) {
    const a = chart.chartArea;
    if (a) chart.canvas.dataset.plot = [a.left, a.top, a.right, a.bottom].map((v) => v.toFixed(1)).join(' ');
  },
};
