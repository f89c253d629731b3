/**
 * Chart colours from the theme's --vscode-* CSS variables (VS Code sets them on <html> and
 * the theme kind as a class on <body>: vscode-light | vscode-dark | vscode-high-contrast |
 * vscode-high-contrast-light). Charts re-read the palette and redraw when either changes.
 */

export type ThemeKind = 'light' | 'dark' | 'high-contrast' | 'high-contrast-light';

export interface Palette {
  kind: ThemeKind;
  foreground: string;
  muted: string;
  background: string;
  grid: string;
  /** Series colours, in order: blue, orange, green, purple, red, yellow. */
  series: string[];
  fontFamily: string;
  fontSize: number;
  /** Line width for series: thicker in high contrast. */
  lineWidth: number;
  /**
   * A bar part's fill with its mark (markedFill, marks in `ink`, the background colour unless
   * given); absent where there is no DOM canvas (the unit tests' palettes): the plain colour is used.
   */
  marked?: (fill: string, mark: Mark, ink?: string) => string | CanvasPattern;
}

/**
 * The mark a bar part carries besides its colour, so the parts of a stacked or grouped bar read
 * apart in greyscale and in any theme: none, diagonal lines, dots, crossed diagonals, horizontal
 * lines.
 */
export type Mark = 'none' | 'diagonal' | 'dots' | 'cross' | 'horizontal';

/** Side of the square tile a mark repeats on, px. */
const MARK_TILE_PX = 8;

/**
 * `fill` with `mark` drawn over it in `ink`, as a CanvasPattern chart.js takes for a fill (its
 * docs, "Colors: Patterns and Gradients", suggest patterns for readers who cannot tell the colours
 * apart); `fill` itself for 'none' or where no 2D canvas is to be had.
 */
export function markedFill(fill: string, mark: Mark, ink: string): string | CanvasPattern {
  if (mark === 'none' || typeof document === 'undefined') return fill;
  const n = MARK_TILE_PX;
  const tile = document.createElement('canvas');
  tile.width = n;
  tile.height = n;
  const ctx = tile.getContext('2d');
  if (!ctx) return fill;
  ctx.fillStyle = fill;
  ctx.fillRect(0, 0, n, n);
  ctx.strokeStyle = ink;
  ctx.fillStyle = ink;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  // Each diagonal also through the two corners it leaves, so neighbouring tiles join into unbroken lines.
  const rising = (): void => {
    for (const o of [-n, 0, n]) {
      ctx.moveTo(o, n);
      ctx.lineTo(o + n, 0);
    }
  };
  if (mark === 'diagonal') rising();
  else if (mark === 'cross') {
    rising();
    for (const o of [-n, 0, n]) {
      ctx.moveTo(o, 0);
      ctx.lineTo(o + n, n);
    }
  } else if (mark === 'horizontal') {
    ctx.moveTo(0, n / 2);
    ctx.lineTo(n, n / 2);
  } else ctx.arc(n / 2, n / 2, 1.5, 0, 2 * Math.PI);
  if (mark === 'dots') ctx.fill();
  else ctx.stroke();
  return ctx.createPattern(tile, 'repeat') ?? fill;
}

function cssVar(style: CSSStyleDeclaration, name: string, fallback: string): string {
  const v = style.getPropertyValue(name).trim();
  return v === '' ? fallback : v;
}

/** The theme kind from <body>'s class. */
export function themeKind(body: HTMLElement = document.body): ThemeKind {
  const c = body.classList;
  if (c.contains('vscode-high-contrast-light')) return 'high-contrast-light';
  if (c.contains('vscode-high-contrast')) return 'high-contrast';
  if (c.contains('vscode-light')) return 'light';
  return 'dark';
}

/** Reads the palette from the current CSS variables. */
export function readPalette(): Palette {
  const style = getComputedStyle(document.documentElement);
  const kind = themeKind();
  const hc = kind === 'high-contrast' || kind === 'high-contrast-light';
  const foreground = cssVar(style, '--vscode-charts-foreground', cssVar(style, '--vscode-foreground', kind === 'light' ? '#333333' : '#cccccc'));
  const background = cssVar(style, '--vscode-editor-background', kind === 'light' ? '#ffffff' : '#1e1e1e');
  // One pattern per fill and mark for this palette (a theme change reads a new palette).
  const patterns = new Map<string, string | CanvasPattern>();
  const marked = (fill: string, mark: Mark, ink = background): string | CanvasPattern => {
    const key = `${fill} ${mark} ${ink}`;
    if (!patterns.has(key)) patterns.set(key, markedFill(fill, mark, ink));
    return patterns.get(key)!;
  };
  return {
    kind,
    foreground,
    muted: cssVar(style, '--vscode-descriptionForeground', foreground),
    background,
    grid: hc ? cssVar(style, '--vscode-contrastBorder', foreground) : cssVar(style, '--vscode-charts-lines', 'rgba(128,128,128,0.35)'),
    series: [
      cssVar(style, '--vscode-charts-blue', '#3794ff'),
      cssVar(style, '--vscode-charts-orange', '#d18616'),
      cssVar(style, '--vscode-charts-green', '#89d185'),
      cssVar(style, '--vscode-charts-purple', '#b180d7'),
      cssVar(style, '--vscode-charts-red', '#f14c4c'),
      cssVar(style, '--vscode-charts-yellow', '#cca700'),
    ],
    fontFamily: cssVar(style, '--vscode-font-family', 'system-ui, sans-serif'),
    fontSize: Number.parseFloat(cssVar(style, '--vscode-font-size', '13')) || 13,
    lineWidth: hc ? 3 : 1.5,
    marked,
  };
}

/** `color` with alpha `a` (0–1); accepts #rgb, #rrggbb and rgb()/rgba(); other forms unchanged. */
export function withAlpha(color: string, a: number): string {
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color.trim());
  if (hex) {
    const h = hex[1]!.length === 3 ? hex[1]!.split('').map((c) => c + c).join('') : hex[1]!;
    const n = Number.parseInt(h, 16);
    return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${a})`;
  }
  const rgb = /^rgba?\(([^,]+),([^,]+),([^,)]+)/i.exec(color.trim());
  if (rgb) return `rgba(${rgb[1]!.trim()}, ${rgb[2]!.trim()}, ${rgb[3]!.trim()}, ${a})`;
  return color;
}

/** Calls `onChange` when the theme kind or the theme's variables change. Returns a disposer. */
export function watchTheme(onChange: () => void): () => void {
  let pending = false;
  const schedule = (): void => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      onChange();
    });
  };
  const observer = new MutationObserver(schedule);
  observer.observe(document.body, { attributes: true, attributeFilter: ['class'] });
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['style', 'class'] });
  return () => observer.disconnect();
}
