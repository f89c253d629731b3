/**
 * The dashboard's "Export PNG": every visible chart of the run view redrawn at a width a report
 * can use (at least PNG_MIN_CSS_WIDTH CSS px, times the device-pixel ratio; a narrow panel's
 * 561 px cut the pool chart's title at both sides), each under its summary line, all under a
 * caption that says what the image is and where its figures come from — the lines the dashboard
 * shows above the charts (stepTimeNote: step times modelled by which roofline on which GPU;
 * wasmBuildNote) and each chart's own (the throughput chart's "against this machine's measured
 * … peak"). An image pasted into a report carries no other context.
 */
import { Chart, type ChartConfiguration } from 'chart.js';
import { wasmBuildNote } from '../core/format';
import { machineText, type ChartSpec } from './charts';
import { stepTimeNote } from './latency';
import type { ViewRun } from './model';
import type { Palette } from './theme';

/** The narrowest export, CSS px: a chart drawn narrower is redrawn at this width. */
export const PNG_MIN_CSS_WIDTH = 1200;

/**
 * What the exported PNG says about itself, drawn at its top: the run's name; the model, the
 * machine and the date; then where its figures come from, as the dashboard's header says it
 * (stepTimeNote, wasmBuildNote), one line each.
 */
export function pngCaption(run: ViewRun): string[] {
  const model = run.profile ? `${run.profile.model.architectures[0] ?? run.profile.model.modelType}${run.profile.modelPath ? ` (${run.profile.modelPath.split(/[\\/]/).slice(-2).join('/')})` : ''}` : null;
  const env = run.environment;
  const machine = env ? machineText(env, ', ', run.cases.length > 0) : null;
  const date = run.createdAt ?? new Date().toISOString();
  const provenance = [stepTimeNote(run), run.status === 'running' ? null : wasmBuildNote(env, run.kind)].filter((line): line is string => line !== null);
  return [run.name, [model && `model ${model}`, machine && `machine ${machine}`, date].filter(Boolean).join(' · '), ...provenance];
}

/** `text` broken at spaces into lines no wider than `maxWidth` as `measure` says (a word wider than that stays whole on its line). */
export function wrapText(text: string, maxWidth: number, measure: (s: string) => number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line ? `${line} ${word}` : word;
    if (line && measure(next) > maxWidth) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

/** One chart to export: its spec (redrawn from it: its config, and its summary line over it) and the CSS height it is shown at. */
export interface PngChart {
  spec: Pick<ChartSpec, 'config' | 'summary'>;
  cssHeight: number;
  /** Drawn across the whole width, a row of its own, however many `columns` the others share (the Sweep tab's cost bars). */
  wide?: boolean;
}

/**
 * Sizes `out` to width × height CSS pixels at `scale` device pixels each, fills it with
 * `background` and returns its 2D context in CSS pixels, text laid from its top.
 */
function paintBackground(out: HTMLCanvasElement, width: number, height: number, scale: number, background: string): CanvasRenderingContext2D {
  out.width = Math.round(width * scale);
  out.height = Math.round(height * scale);
  const ctx = out.getContext('2d')!;
  ctx.scale(scale, scale);
  ctx.fillStyle = background;
  ctx.fillRect(0, 0, width, height);
  ctx.textBaseline = 'top';
  return ctx;
}

/**
 * The PNG of `charts` for `run`: `cssWidth` (at least PNG_MIN_CSS_WIDTH) wide in CSS px, drawn at
 * `scale` device pixels per CSS px, on the palette's background, under pngCaption(run)
 * (composeChartsPng).
 */
export function composePng(run: ViewRun, charts: readonly PngChart[], p: Palette, scale: number, cssWidth: number): HTMLCanvasElement {
  return composeChartsPng(pngCaption(run), charts, p, scale, cssWidth);
}

/**
 * The one chart-image writer (the run's Export PNG and the Sweep tab's): `caption` at the top (its
 * first line bold and larger, the next muted, the rest plain, each wrapped to the width), then each
 * chart under its summary line, stacked, or `columns` a row (the Sweep tab's small multiples: a
 * row as tall as its tallest chart). `cssWidth` (at least PNG_MIN_CSS_WIDTH) wide in CSS px, drawn
 * at `scale` device pixels per CSS px, on the palette's background. Each chart is a fresh chart.js
 * chart of its spec on an offscreen canvas (the page's own stay as they are).
 */
export function composeChartsPng(captionLines: readonly string[], charts: readonly PngChart[], p: Palette, scale: number, cssWidth: number, columns = 1): HTMLCanvasElement {
  const width = Math.max(PNG_MIN_CSS_WIDTH, Math.round(cssWidth));
  const pad = 12;
  const out = document.createElement('canvas');
  const measureCtx = out.getContext('2d')!;
  const font = (size: number, bold = false) => `${bold ? '600 ' : ''}${size}px ${p.fontFamily}`;
  type Line = { text: string; size: number; bold: boolean; muted: boolean };
  const wrapped = (text: string, size: number, bold: boolean, muted: boolean): Line[] => {
    measureCtx.font = font(size, bold);
    return wrapText(text, width - 2 * pad, (s) => measureCtx.measureText(s).width).map((t) => ({ text: t, size, bold, muted }));
  };
  const [name, ...rest] = captionLines;
  const caption = [...wrapped(name ?? '', p.fontSize + 3, true, false), ...rest.flatMap((line, i) => wrapped(line, p.fontSize, false, i === 0))];
  const cols = Math.max(1, Math.min(columns, charts.filter((c) => !c.wide).length));
  const cellWidth = Math.floor((width - pad * (cols - 1)) / cols);
  const blocks = charts.map((c) => ({ chart: c, lines: c.spec.summary ? wrapped(c.spec.summary, p.fontSize, false, true) : [] }));
  const lineHeight = (l: Line) => Math.round(l.size * 1.35);
  const textHeight = (lines: readonly Line[]) => lines.reduce((h, l) => h + lineHeight(l), 0);
  const blockHeight = (b: (typeof blocks)[number]) => (b.lines.length ? textHeight(b.lines) + pad / 2 : 0) + b.chart.cssHeight;
  // Rows of `cols` charts; a wide chart a row of its own.
  const rows: Array<typeof blocks> = [];
  for (const b of blocks) {
    const last = rows.at(-1);
    if (b.chart.wide || !last || last.length === cols || last[0]!.chart.wide) rows.push([b]);
    else last.push(b);
  }
  const height = pad + textHeight(caption) + pad + rows.reduce((h, r) => h + Math.max(...r.map(blockHeight)) + pad, 0);
  const ctx = paintBackground(out, width, height, scale, p.background);
  let y = pad;
  const draw = (lines: readonly Line[], x: number) => {
    for (const l of lines) {
      ctx.font = font(l.size, l.bold);
      ctx.fillStyle = l.muted ? p.muted : p.foreground;
      ctx.fillText(l.text, x, y);
      y += lineHeight(l);
    }
  };
  draw(caption, pad);
  y += pad;
  for (const row of rows) {
    const top = y;
    row.forEach((b, k) => {
      y = top;
      const x = k * (cellWidth + pad);
      if (b.lines.length) {
        draw(b.lines, x + pad);
        y += pad / 2;
      }
      const w = cols === 1 || b.chart.wide ? width : cellWidth;
      const canvas = document.createElement('canvas');
      canvas.width = w;
      canvas.height = b.chart.cssHeight;
      const config = b.chart.spec.config;
      const chart = new Chart(canvas, { ...config, options: { ...config.options, responsive: false, maintainAspectRatio: false, animation: false, devicePixelRatio: scale } } as ChartConfiguration);
      ctx.drawImage(canvas, x, y, w, b.chart.cssHeight);
      chart.destroy();
    });
    y = top + Math.max(...row.map(blockHeight)) + pad;
  }
  return out;
}

/** One table to draw: its caption and its rows of cell text, the header row first. */
export interface PngTable {
  caption: string;
  rows: string[][];
}

/** Widest a table column is drawn, CSS px; longer cells wrap at spaces. */
const PNG_COLUMN_MAX = 360;

/**
 * Compare's "Export PNG": `title`, then each table under its caption (the header row bold, a rule
 * under it; a column as wide as its widest cell up to PNG_COLUMN_MAX, longer cells wrapped), then
 * `notes` (what the change means, where the figures come from), on the palette's background, at
 * least PNG_MIN_CSS_WIDTH CSS px wide, drawn at `scale` device pixels per CSS px.
 */
export function composeTablePng(title: string, tables: readonly PngTable[], notes: readonly string[], p: Palette, scale: number): HTMLCanvasElement {
  const pad = 12;
  const gap = 16;
  const out = document.createElement('canvas');
  const m = out.getContext('2d')!;
  const font = (bold = false, size = p.fontSize) => `${bold ? '600 ' : ''}${size}px ${p.fontFamily}`;
  const lh = Math.round(p.fontSize * 1.35);
  const measure = (text: string, bold: boolean): number => {
    m.font = font(bold);
    return m.measureText(text).width;
  };
  const laid = tables.map((t) => {
    const cols = Math.max(0, ...t.rows.map((r) => r.length));
    const widths = Array.from({ length: cols }, (_, j) => Math.min(PNG_COLUMN_MAX, Math.ceil(Math.max(0, ...t.rows.map((r, i) => measure(r[j] ?? '', i === 0))))));
    const cells = t.rows.map((r, i) => widths.map((w, j) => wrapText(r[j] ?? '', w, (s) => measure(s, i === 0))));
    return { caption: t.caption, widths, cells, rowHeights: cells.map((r) => Math.max(1, ...r.map((c) => c.length)) * lh) };
  });
  const tableWidth = (t: (typeof laid)[number]) => t.widths.reduce((a, w) => a + w, 0) + gap * Math.max(0, t.widths.length - 1);
  const width = Math.max(PNG_MIN_CSS_WIDTH, ...laid.map((t) => tableWidth(t) + 2 * pad));
  const wrap = (text: string, bold = false) => wrapText(text, width - 2 * pad, (s) => measure(s, bold));
  const titleLines = wrap(title, true);
  const noteLines = notes.flatMap((n) => wrap(n));
  const height = pad + titleLines.length * lh + pad + laid.reduce((h, t) => h + wrap(t.caption, true).length * lh + t.rowHeights.reduce((a, b) => a + b, 0) + 4 + pad, 0) + noteLines.length * lh + pad;
  const ctx = paintBackground(out, width, height, scale, p.background);
  let y = pad;
  const line = (text: string, x: number, bold: boolean, muted: boolean) => {
    ctx.font = font(bold);
    ctx.fillStyle = muted ? p.muted : p.foreground;
    ctx.fillText(text, x, y);
  };
  for (const l of titleLines) {
    line(l, pad, true, false);
    y += lh;
  }
  y += pad;
  for (const t of laid) {
    for (const l of wrap(t.caption, true)) {
      line(l, pad, true, false);
      y += lh;
    }
    t.cells.forEach((row, i) => {
      const top = y;
      let x = pad;
      row.forEach((cell, j) => {
        cell.forEach((l, k) => {
          y = top + k * lh;
          line(l, x, i === 0, false);
        });
        x += t.widths[j]! + gap;
      });
      y = top + t.rowHeights[i]!;
      if (i === 0) {
        ctx.fillStyle = p.muted;
        ctx.fillRect(pad, y + 1, tableWidth(t), 1);
        y += 4;
      }
    });
    y += pad;
  }
  for (const l of noteLines) {
    line(l, pad, false, true);
    y += lh;
  }
  return out;
}
