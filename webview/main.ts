/**
 * Dashboard entry (bundled to dist/webview/main.js). Renders the current run's charts, the
 * run history and comparisons from extension messages; redraws on theme change; keeps its
 * state across reloads; never loads anything remote.
 *
 * Bounded work whatever the message rate (the page shares the workbench's main thread in
 * code-server): messages only update the model and mark what changed; one animation frame
 * draws the header, the charts whose inputs changed (charts.ts chartInputs) at most every
 * CHART_INTERVAL_MS while a run streams, the history only when the run list changed, a chart's
 * data table only while its "Data" is open; the state is saved when the page is idle.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-tabs/index.js';
import '@vscode-elements/elements/dist/vscode-tab-header/index.js';
import '@vscode-elements/elements/dist/vscode-tab-panel/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import { Chart, registerables, type ChartConfiguration } from 'chart.js';
import { LineWithErrorBarsController, PointWithErrorBar } from 'chartjs-chart-error-bars';
import type { ToWebview } from '../core/protocol/webview';
import type { SweepReport } from '../core/protocol/sweep';
import { fitTextPlugin, plotAreaPlugin } from './fit';
import { bandLabelPlugin, CHART_IDS, chartInputs, engineOptions, engineView, headerMachineText, NARROW_CHART_PX, narrowOptions, runChart, type ChartId, type ChartSpec } from './charts';
import { capacityChart, latencyCdfChart, queueChart, sloBadge, stepTimeNoteParts } from './latency';
import { buildDifference, comparePools, compareRuns, compareSettings, comparisonRows, kindDifference, loadBoundNote, loadDifference, modelDifference, sameRun, sloDifference, tpotNoteText, workloadDifference } from './compare';
import { composeChartsPng, composePng, composeTablePng, type PngChart } from './png';
import { sweepExportStem, sweepProvenance } from '../core/sweepFigures';
import { decisionMetric, interruptedText, isOwnStoppedReport, metricsOf as sweepMetricsOf, otherSweepNote, sweepAxisCharts, sweepChartHeight, sweepCostChart, sweepCostChartHeight, sweepBestText, sweepCaption, sweepChip, sweepMarkdown, sweepPngCaption, sweepPointsText, sweepTable, sweepTitle, chartedFigures } from './sweep';
import { benchCancelledText, CHANGE_MEANING, formatCount, formatCountOf, formatDuration, formatLoadNote, formatPercent, INTERRUPTED, isInterrupted, loadVerdict, formatRunTime, formatShortRunTime, formatShortRunTimes, loadAverageText, perGpuCasesHeader, poolCancelledText, runStateWord, wasmBuildNote } from '../core/format';
import { comparedRun, compareOptionLabel, DEFAULT_RUN_SORT, exportId, nextRunSort, RUN_SORT_COLUMNS, runDeletedText, runSortText, sortRuns, type RunSort, type RunSortKey, listedName, reduce, rerunOf, runCountText, runKindWord, runOriginWord, runTimeTooltip, skippedNote, skippedSweepsNote, startModel, type DashboardModel, type ViewRun } from './model';
import { readPalette, watchTheme, type Palette } from './theme';
import { loadState, onMessage, post, saveState, type PersistedState } from './vscodeApi';

// fitTextPlugin: every chart's title, axis titles and legend fitted to its width (a narrow panel cut them off);
// bandLabelPlugin: a narrow bar chart's category labels above its bars (charts.ts narrowOptions).
// chartjs-chart-error-bars: the Sweep tab's p10–p90 bars on measured decode times (webview/sweep.ts SWEEP_ERROR_BARS_TYPE).
// plotAreaPlugin: where each chart's plot lies, for the tests (as data-drawn is).
Chart.register(...registerables, fitTextPlugin, bandLabelPlugin, LineWithErrorBarsController, PointWithErrorBar, plotAreaPlugin);

const restored = loadState();
// A run saved as running ended with the window that reloaded (model.ts restoredModel): not shown running, and until `init` says how it ended, restoring.
let model: DashboardModel = startModel(restored?.model);
let tab: PersistedState['tab'] = restored?.tab ?? 'run';
let palette: Palette = readPalette();
const charts = new Map<ChartId, Chart>();

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Record<string, string>, ...children: Array<Node | string>): HTMLElementTagNameMap[K];
function el(tag: string, attrs?: Record<string, string>, ...children: Array<Node | string>): HTMLElement;
function el(tag: string, attrs: Record<string, string> = {}, ...children: Array<Node | string>): HTMLElement {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

function button(label: string, onClick: () => void, attrs: Record<string, string> = {}): HTMLElement {
  const b = el('vscode-button', attrs, label);
  b.addEventListener('click', () => {
    if (!b.hasAttribute('disabled')) onClick();
  });
  return b;
}

/** A run's time as the reader reads it (formatRunTime), the ISO value in its tooltip and `datetime`. */
function runTime(iso: string): HTMLElement {
  return el('time', { datetime: iso, title: iso }, formatRunTime(iso));
}

/**
 * A time in History's lists, runs and sweeps alike (one format for every row; the runs' read "Dec 6, 2026, 5:13:32 PM" beside the
 * sweeps' "Dec 6, 05:02 PM", s50 newcomer-ed 12): formatShortRunTime, to the minute, the full time and ISO value in its tooltip and `datetime`.
 */
function shortTime(iso: string, text = formatShortRunTime(iso)): HTMLElement {
  return el('time', { datetime: iso, title: runTimeTooltip(iso) }, text);
}

/** `parts` with `sep` between each two (text and elements in one line). */
function joined(parts: ReadonlyArray<Node | string>, sep: string): Array<Node | string> {
  return parts.flatMap((part, i) => (i === 0 ? [part] : [sep, part]));
}

/**
 * A data table as plain HTML: a pool run's table has ~2,000 rows, which as vscode-table elements
 * (a custom element with its own shadow root per cell) took the page 20 s to lay out.
 */
function table(t: { columns: string[]; rows: Array<Array<Node | string>> }, className = '', rowAttrs: (i: number) => Record<string, string> = () => ({}), caption?: { text: Array<Node | string>; hidden?: boolean }, sort?: TableSort): HTMLElement {
  // A caption names the table for a screen reader ("figure A B change" said nothing of which runs, s39 newcomer-ed 8); `hidden`: for it alone, a heading above says it on screen.
  const cap = caption ? [el('caption', caption.hidden ? { class: 'visually-hidden' } : {}, ...caption.text)] : [];
  const head = el('thead', {}, el('tr', {}, ...t.columns.map((c) => {
    const key = sort?.keys[c];
    if (!sort || key === undefined) return el('th', {}, ...breakable(c));
    // A sortable column: its header a button (click, Enter and Space sort by it; again, the other way), the order in aria-sort.
    const on = sort.by.key === key;
    const mark = on ? (sort.by.dir === 'ascending' ? ' ▲' : ' ▼') : '';
    return el('th', { 'aria-sort': on ? sort.by.dir : 'none' }, el('button', { class: 'sort-header', type: 'button', 'data-sort': key, title: `Sort by ${c}` }, ...breakable(c), el('span', { 'aria-hidden': 'true' }, mark)));
  })));
  // Each cell names its column (data-label) for a table stacked to fit a narrow panel (fitStacked).
  const body = el('tbody', {}, ...t.rows.map((r, i) => el('tr', rowAttrs(i), ...r.map((c, j) => el('td', { 'data-label': t.columns[j] ?? '' }, c)))));
  return el('table', { class: `data-table ${className}`.trim(), 'data-rows': String(t.rows.length) }, ...cap, head, body);
}

/** A table whose columns sort (History's saved runs): which column header sorts by which key, and the order now. */
interface TableSort {
  keys: Record<string, RunSortKey>;
  by: RunSort;
}

/** A header's text with a line break allowed after each dot and underscore ("workload." / "max_num_" / "batched_tokens"), as the charts' axis titles wrap a key. */
function breakable(text: string): Array<Node | string> {
  return text.split(/(?<=[._])/).flatMap((part, i) => (i === 0 ? [part] : [document.createElement('wbr'), part]));
}

/**
 * Stacks the table in `box` (each row a block of "column  value" lines, CSS .stacked) when its
 * columns, headers wrapped, do not fit the box's width: History's Sweeps (the sweep's own table is
 * transposed instead, fitTransposed).
 */
function fitStacked(box: HTMLElement): void {
  const t = box.querySelector('table');
  if (!t || box.clientWidth === 0) return;
  t.classList.remove('stacked');
  t.classList.toggle('stacked', box.scrollWidth > box.clientWidth + 1);
}

/**
 * Shows the sweep's table in `box` transposed (CSS .transposed: each point a column, each axis and
 * figure a row, their names in a first column that stays while the box scrolls sideways) when its
 * columns, headers wrapped, do not fit the box's width. The DOM keeps a row per point; a CSS grid
 * fills its cells a column at a time, `grid-template-rows` one track per column of the table. Stacked
 * 12-line cards (fitStacked) could not be compared point by point at 600 px (s50 newcomer-ed 3).
 */
function fitTransposed(box: HTMLElement): void {
  const t = box.querySelector('table');
  if (!t || box.clientWidth === 0) return;
  t.classList.remove('transposed');
  t.style.removeProperty('grid-template-rows');
  if (box.scrollWidth <= box.clientWidth + 1) return;
  t.classList.add('transposed');
  // Through the CSSOM: the page's CSP refuses style attributes. One grid row per column of the table (the header row's cells).
  t.style.gridTemplateRows = `repeat(${t.tHead?.rows[0]?.cells.length ?? 1}, auto)`;
}

// ---- static layout ------------------------------------------------------------------------

const app = document.getElementById('app')!;
const title = el('h1', { id: 'run-title' });
const status = el('span', { id: 'run-status', class: 'status' });
/** Read before the status badge, so a screen reader says "status: ok" rather than a bare "ok" after the heading (s41 newcomer-ed F6 d); hidden with the badge empty. */
const statusLabel = el('span', { class: 'visually-hidden', hidden: '' }, 'status: ');
/** The run's SLO verdict (webview/latency.ts sloBadge), in place of the status badge of a run that ended ok, which says how the run ended, not whether it met its SLO. */
const sloStatus = el('span', { id: 'run-slo', class: 'status', hidden: '' });
/**
 * Whether the modelled server kept up with a simulation's load (core/format loadVerdict: the CLI's
 * Kept up / Cannot tell / Overloaded / None served line), beside the SLO badge, the line on hover;
 * a run that cannot tell also shows the line under the header (s45 newcomer-ed N3).
 */
const loadStatus = el('span', { id: 'run-keeps-up', class: 'status', hidden: '' });
const progress = el('progress', { id: 'run-progress', max: '1', value: '0' });
const runButton = button('Run benchmark', () => {
  const { source, kind, replay, sweep } = rerunOf(model.current, model.runTarget ?? null);
  if (sweep) post({ type: 'runSweep' });
  else post(source ? { type: 'runBenchmark', source, kind, ...(replay ? { replay } : {}) } : { type: 'runBenchmark', ...(kind ? { kind } : {}) });
}, { id: 'btn-run' });
const cancelButton = button('Cancel', () => post({ type: 'cancelRun' }), { id: 'btn-cancel', secondary: '' });
/** Export JSON / CSV of the run shown, saved or not (exportId). */
const exportRun = (format: 'json' | 'csv'): void => {
  const id = exportId(model.current);
  if (id !== undefined) post({ type: 'export', id, format });
};
const exportJson = button('Export JSON', () => exportRun('json'), { id: 'btn-export-json', secondary: '' });
const exportCsv = button('Export CSV', () => exportRun('csv'), { id: 'btn-export-csv', secondary: '' });
const exportPng = button('Export PNG', () => exportChartsPng(), { id: 'btn-export-png', secondary: '' });
/**
 * The run's buttons: its exports only on the Run tab, the run it shows (on History they exported
 * the run the Run tab shows, not the comparison above them, s39 newcomer-ed 1: Compare has its own);
 * all hidden on the Sweep tab, where they would act on a run the page does not show.
 */
const actions = el('div', { class: 'actions', id: 'run-actions' }, runButton, cancelButton, exportJson, exportCsv, exportPng);
const environment = el('p', { id: 'run-environment', class: 'muted' });
/**
 * What the run's times are: one line (measured or modelled), with the step-time model's roofline,
 * GPU figures and sources folded under it (latency.ts stepTimeNoteParts): the numbers come first.
 */
const stepTimeHead = el('summary', {});
const stepTimeModel = el('p', { id: 'run-step-time-model' });
const stepTime = el('details', { id: 'run-step-time', class: 'muted' }, stepTimeHead, stepTimeModel);
/** Under the machine line, for a run the WebAssembly module ran: so, why, and what it means for the figures. */
const buildNote = el('p', { id: 'run-build', class: 'warning' });
/** Under the machine line, for a run whose kernels were timed while the machine was busy (load above its CPUs): the CLI's load line (core/format loadAverageText). */
const loadNote = el('p', { id: 'run-load', class: 'warning' });
/** The Cannot tell line (core/format loadVerdict) under the header, where its badge says only that. */
const keepsUpNote = el('p', { id: 'run-keeps-up-note', class: 'warning', hidden: '' });
/**
 * Over a run the page did not make (ViewRun.latest: the newest saved run on a page with none of its
 * own, after a window reload): that it is, and that the Run button runs the editor's file, not it.
 */
const latestNote = el('p', { id: 'run-latest', class: 'muted' });
/** Over a run whose profile was edited after it started (ViewRun.profileEdited): its figures are of the earlier text (s44 newcomer-ed F3). */
const runEditedNote = el('p', { id: 'run-profile-edited', class: 'warning', hidden: '' });
/** Over a run whose saved file was deleted from History meanwhile (ViewRun.deleted): that it was, and where it went. */
const runDeletedNote = el('p', { id: 'run-deleted', class: 'warning', hidden: '' });
/** Under a benchmark cancelled from the editor: what it kept (core/format benchCancelledText, the toast's words), "Cancelled after 2 case(s); the partial run is saved." */
const cancelledNote = el('p', { id: 'run-cancelled', class: 'muted', hidden: '' });

const chartGrid = el('div', { class: 'chart-grid' });
/**
 * With no run to show, this one line in place of the cards (each said it, nine times, s34 newcomer-ed); until the extension
 * says what to show, that it is loading, and over a run restored after a reload, that it is restoring it (noRunText).
 */
const noRun = el('p', { id: 'run-empty', class: 'empty' });
/** The line in place of the cards for `run` (null: none shown), as noRun says it; null when the cards show. */
function noRunText(run: ViewRun | null): string | null {
  if (run?.status === 'restoring') return 'Restoring this run: the window reloaded while it ran; how it ended comes from the editor…';
  if (run) return null;
  return model.awaiting !== undefined ? 'Loading…' : 'No run yet: run a benchmark (AttnScope: Run attention benchmark) or open one from History.';
}
interface Card {
  id: ChartId;
  card: HTMLElement;
  /** The chart's box, sized from ChartSpec.height. */
  box: HTMLElement;
  canvas: HTMLCanvasElement;
  empty: HTMLElement;
  summary: HTMLElement;
  details: HTMLDetailsElement;
  data: HTMLElement;
  /** The spec drawn last (its table is built when "Data" opens). */
  spec: ChartSpec | null;
  /** chartInputs of the run drawn last, and the palette; null: draw on the next frame. */
  drawn: { inputs: readonly unknown[]; palette: Palette } | null;
  /** The spec whose table is in `data`. */
  tabled: ChartSpec | null;
  /** Whether the chart was drawn narrow (charts.ts narrowOptions): a resize across NARROW_CHART_PX draws it again. */
  narrow: boolean;
}

/** Whether a chart box `width` px wide draws its chart narrow; a hidden box (width 0) keeps how it was drawn. */
const isNarrow = (box: HTMLElement, was: boolean): boolean => (box.clientWidth === 0 ? was : box.clientWidth < NARROW_CHART_PX);
const cards = new Map<ChartId, Card>();
for (const id of [...CHART_IDS, 'latencyCdf', 'queue', 'capacity'] as ChartId[]) {
  // role img and an aria-label (set when drawn: ChartSpec.ariaLabel), as chart.js's accessibility
  // guide asks; described by the summary line above it, its details the Data table under it.
  const canvas = el('canvas', { id: `chart-${id}`, role: 'img', 'aria-details': `data-${id}` });
  const empty = el('p', { class: 'empty' });
  const summary = el('p', { class: 'chart-summary', id: `summary-${id}` });
  const data = el('div', { class: 'chart-data' });
  const details = el('details', { id: `data-${id}` }, el('summary', {}, 'Data'), data);
  const box = el('div', { class: 'chart-box' }, canvas);
  const card = el('section', { class: `card card-${id}`, 'data-chart': id }, summary, box, empty, details);
  const entry: Card = { id, card, box, canvas, empty, summary, details, data, spec: null, drawn: null, tabled: null, narrow: false };
  details.addEventListener('toggle', () => fillTable(entry, id));
  // The panel made narrower or wider than NARROW_CHART_PX: the chart drawn again with the other options.
  new ResizeObserver(() => {
    if (entry.spec && isNarrow(box, entry.narrow) !== entry.narrow) {
      entry.drawn = null;
      renderCharts(model.current);
    }
  }).observe(box);
  chartGrid.append(card);
  cards.set(id, entry);
}

/**
 * Under data parallelism, the engine (0-based) the pool and queue charts draw (s41 newcomer-ed F2:
 * engine 1 only), picked in either card's Engine select (the two kept alike; hidden for a run of
 * one engine); back to engine 1 when another run's engines are shown.
 */
let poolEngine = 0;
/** The engines the selects list (a run's DataParallelResult): their options are made again only when it changes. */
let enginesListed: unknown = null;
const engineSelects = (['poolTimeline', 'queue'] as const).map((id) => {
  const select = el('vscode-single-select', { id: `engine-${id}`, 'aria-label': 'Engine charted', label: 'Engine charted' }) as HTMLElement & { value: string };
  select.addEventListener('change', () => {
    poolEngine = Number(select.value) || 0;
    for (const other of engineSelects) if (other.select !== select) other.select.value = select.value;
    renderCharts(model.current);
  });
  const bar = el('label', { class: 'engine-bar', hidden: '' }, 'Engine ', select);
  const card = cards.get(id)!;
  card.card.insertBefore(bar, card.summary);
  return { bar, select };
});

/** The Engine selects' options for `run`'s engines, shown under data parallelism, else hidden. */
function renderEngineSelects(run: ViewRun | null): void {
  const dp = run?.pool?.dataParallel ?? null;
  if (dp === enginesListed) return;
  enginesListed = dp;
  const options = run ? engineOptions(run) : [];
  if (!options.some((o) => o.engine === poolEngine)) poolEngine = 0;
  for (const { bar, select } of engineSelects) {
    bar.hidden = options.length === 0;
    select.replaceChildren(...options.map(({ engine, label }) => el('vscode-option', engine === poolEngine ? { value: String(engine), selected: '' } : { value: String(engine) }, label)));
  }
}

/** The run chart `id` draws: the pool and queue charts the engine picked's (charts.ts engineView, one object per run and engine, so an unchanged pick draws nothing again). */
let engineDrawn: { run: ViewRun; engine: number; view: ViewRun } | null = null;
function runFor(id: ChartId, run: ViewRun): ViewRun {
  if (id !== 'poolTimeline' && id !== 'queue') return run;
  if (engineDrawn?.run !== run || engineDrawn.engine !== poolEngine) engineDrawn = { run, engine: poolEngine, view: engineView(run, poolEngine) };
  return engineDrawn.view;
}

const historyList = el('div', { id: 'history-list' });
/**
 * History's runs are many (343 in a s37 newcomer's workspace: ~340 rows of 50 px above Sweeps and
 * Compare, newcomer-ed 7): a filter on the name, and the newest HISTORY_PAGE shown, more on request.
 */
const HISTORY_PAGE = 50;
let historyShown = HISTORY_PAGE;
/** The saved runs' order, as the user last picked it by a column header: newest first until then; kept while the panel lives (the page is kept while hidden). */
let historySort: RunSort = DEFAULT_RUN_SORT;
/** The header whose sort the user just picked: focused again in the table drawn for it (the old header went with the old table). */
let sortFocus: RunSortKey | null = null;
// One listener for every header the table is drawn with (a click, or Enter / Space on the focused button).
historyList.addEventListener('click', (e) => {
  const key = (e.target as HTMLElement | null)?.closest<HTMLElement>('button.sort-header')?.dataset.sort as RunSortKey | undefined;
  if (key === undefined) return;
  historySort = nextRunSort(historySort, key);
  sortFocus = key;
  historyShown = HISTORY_PAGE;
  renderHistory();
});
const historyFilter = el('vscode-textfield', { id: 'history-filter', placeholder: 'Filter runs by name', 'aria-label': 'Filter runs by name', type: 'search' }) as HTMLElement & { value: string };
historyFilter.addEventListener('input', () => {
  historyShown = HISTORY_PAGE;
  renderHistory();
});
const historyCount = el('span', { id: 'history-count', class: 'muted' });
const historyMore = button('Show more', () => {
  historyShown += HISTORY_PAGE;
  renderHistory();
}, { id: 'btn-history-more', secondary: '' });
/** History's finished sweeps (.attnscope/sweeps), each opened into the Sweep tab. */
const sweepList = el('div', { id: 'sweep-list' });
// `label`: the select's own accessible name for its inner combobox; the host's aria-label did not reach it (s41 newcomer-ed F6 a: an unnamed combobox).
const selectA = el('vscode-single-select', { id: 'compare-a', 'aria-label': 'Run A (baseline)', label: 'Run A (baseline)' }) as HTMLElement & { value: string };
const selectB = el('vscode-single-select', { id: 'compare-b', 'aria-label': 'Run B', label: 'Run B' }) as HTMLElement & { value: string };
for (const select of [selectA, selectB]) select.addEventListener('change', () => (select.dataset.chosen = '1'));
const compareButton = button('Compare', () => {
  if (selectA.value && selectB.value) post({ type: 'compareRuns', a: selectA.value, b: selectB.value });
}, { id: 'btn-compare' });
const compareResult = el('div', { id: 'compare-result' });
/** The comparison's own exports (s39 newcomer-ed 1: nothing exported the table a design doc wants): every row of it, figure, A, B, change, unit, source. */
const exportCompare = (format: 'csv' | 'markdown'): void => {
  const cmp = model.compare;
  if (cmp) post({ type: 'exportCompare', format, a: comparedRun(cmp.a, cmp.aId, model.runs), b: comparedRun(cmp.b, cmp.bId, model.runs), rows: comparisonRows(cmp.a, cmp.b).map((r) => ({ figure: r.label, a: r.aValue, b: r.bValue, aText: r.a, bText: r.b, change: r.change, unit: r.unit, source: r.source })) });
};
const compareExport = el('div', { class: 'compare-bar', id: 'compare-export' },
  button('Copy as Markdown', () => exportCompare('markdown'), { id: 'btn-compare-md', secondary: '', title: 'The comparison as a Markdown table, to the clipboard' }),
  button('Export CSV', () => exportCompare('csv'), { id: 'btn-compare-csv', secondary: '', title: 'The comparison as CSV: figure, A, B, change, unit, source' }),
  button('Export PNG', () => exportComparePng(), { id: 'btn-compare-png', secondary: '', title: 'The comparison\'s tables as a PNG image' }),
);

// The Sweep tab: a merged sweep report ("AttnScope: Open sweep results").
const sweepMetric = el('vscode-single-select', { id: 'sweep-metric', 'aria-label': 'Figure to chart', label: 'Figure to chart' }) as HTMLElement & { value: string };
sweepMetric.addEventListener('change', () => {
  sweepMetric.dataset.chosen = sweepMetric.value;
  renderSweep();
});
/** The Sweep table as CSV (the extension writes it: core/sweepCsv.ts); the run's Export buttons are hidden on this tab. */
/**
 * The report the Sweep tab shows: the one opened or finished (DashboardModel.sweep), else, while the
 * editor's sweep runs, its points saved so far (SweepRunView.points: s49 newcomer-ed 5); null with neither.
 */
function shownSweep(): SweepReport | null {
  return model.sweep ?? (model.sweepRun?.status === 'running' ? (model.sweepRun.points ?? null) : null);
}
const sweepExportCsv = button('Export CSV', () => { const r = shownSweep(); if (r) post({ type: 'exportSweep', report: r }); }, { id: 'btn-export-sweep-csv', secondary: '' });
/** The Sweep table as Markdown, ranked by the figure shown, with what it assumed (webview/sweep.ts sweepMarkdown), to the clipboard (s41 newcomer-ed F5: nothing pasteable said the SLO, the GPU or the assumptions). */
const sweepCopyMarkdown = button('Copy as Markdown', () => {
  const report = shownSweep();
  const metrics = report ? sweepMetricsOf(report) : [];
  const metric = metrics.find((m) => m.key === sweepMetric.dataset.chosen) ?? decisionMetric(metrics, report?.best?.byCost === true, report?.best?.byLatency === true);
  if (report && metric) post({ type: 'exportSweep', report, markdown: sweepMarkdown(report, metric) });
}, { id: 'btn-sweep-md', secondary: '', title: 'The sweep\'s points ranked by the figure shown, with its SLO, GPU and step-time assumptions, as Markdown, to the clipboard' });
/** The Sweep tab's charts as one PNG under its caption (model, profile, sweep id, GPU, machine: webview/sweep.ts sweepPngCaption), saved as the run's Export PNG is. */
const sweepExportPng = button('Export PNG', () => exportSweepPng(), { id: 'btn-sweep-png', secondary: '', title: 'The sweep\'s charts as a PNG image, captioned with the model, profile, sweep, GPU and machine' });
/** Focused (not tabbable) when a report is opened, so a screen reader says which sweep came. */
const sweepSummary = el('p', { id: 'sweep-summary', tabindex: '-1' });
/** Over a report opened while the editor's sweep runs, or after it was cancelled, failed or refused: which sweep the report is, and that it is not that one's. */
const sweepOther = el('p', { id: 'sweep-other', class: 'warning' });
/** Over a report whose profile was edited after its sweep started (DashboardModel.sweepProfileEdited), as the Run tab's #run-profile-edited. */
const sweepEditedNote = el('p', { id: 'sweep-profile-edited', class: 'warning', hidden: '' });
/**
 * Over an interrupted sweep's report (the points kept, webview/sweep.ts interruptedText), with a Resume sweep that
 * runs the sweep of its profile again (the runner resumes: only the missing points run), as the run line's does.
 */
const sweepInterruptedText = el('span', { id: 'sweep-interrupted-text' });
/** Runs the interrupted report's own profile where it has one (SweepReport.profile: from any window, a report opened from History too). */
const sweepInterruptedResume = button('Resume sweep', () => model.sweep && post({ type: 'resumeSweep', name: model.sweep.name, ...(model.sweep.profile ? { profile: model.sweep.profile } : {}) }), { id: 'btn-resume-interrupted-sweep' });
const sweepInterrupted = el('div', { class: 'compare-bar warning', id: 'sweep-interrupted' }, sweepInterruptedText, sweepInterruptedResume);
sweepInterrupted.hidden = true;
const sweepBest = el('p', { id: 'sweep-best' });
/** Under the best line: the points left out of it and why, or why no point is the best (webview/sweep.ts sweepBestText). */
const sweepBestNotes = el('div', { id: 'sweep-best-notes' });
/** Under the best point, when vLLM would not run it on its GPU: the CLI's line ("not runnable on vLLM: ...", SweepReport best.notOnVllm). */
const sweepBestVllm = el('p', { id: 'sweep-best-vllm', class: 'warning' });
const sweepCharts = el('div', { id: 'sweep-charts', class: 'chart-grid' });
/** Under the charts: what they are of and where each figure comes from (webview/sweep.ts sweepCaption), for a screenshot in a design doc. */
const sweepCaptionLine = el('p', { id: 'sweep-caption', class: 'muted' });
/**
 * The Every point table's box: a focusable region named by its heading, so Tab stops at it and the
 * arrow keys scroll it (it had no focus stop: a sighted keyboard user could not reach the table, s41
 * newcomer-ed F7). Focusable only while it holds a table.
 */
const sweepTableBox = el('div', { id: 'sweep-table', role: 'region', 'aria-labelledby': 'sweep-points-heading' });
// The panel resized, or the Sweep tab shown (its box has no width while hidden): fit the table again.
// Its width alone: showing the other layout changes its height, which would call this again.
let sweepTableWidth = -1;
new ResizeObserver(() => {
  if (sweepTableBox.clientWidth === sweepTableWidth) return;
  sweepTableWidth = sweepTableBox.clientWidth;
  fitTransposed(sweepTableBox);
}).observe(sweepTableBox);
// History's Sweeps alike (the History tab shown, or the panel resized).
new ResizeObserver(() => fitStacked(sweepList)).observe(sweepList);
new ResizeObserver(() => fitStacked(historyList)).observe(historyList);
/** Where the sweep's figures come from, a line each: the CLI's footer sentences (core/sweepFigures.ts sweepProvenance). */
const sweepSources = el('div', { id: 'sweep-sources' });
/** The figure picker and Export CSV, and the table's heading: hidden while no sweep is open (they had nothing to act on). */
const sweepBar = el('div', { class: 'compare-bar', id: 'sweep-bar' }, el('label', {}, 'Figure ', sweepMetric), sweepCopyMarkdown, sweepExportCsv, sweepExportPng);
const sweepPointsHeading = el('h2', { id: 'sweep-points-heading' }, 'Every point');
// A sweep the editor runs: its progress and a Cancel that ends it as the notification's Cancel does
// (cancelRun: the extension's Cancel run command, which ends the one run in flight, the sweep).
const sweepRunText = el('span', { id: 'sweep-run-status' });
const sweepProgress = el('progress', { id: 'sweep-progress', max: '1', value: '0' });
const sweepCancel = button('Cancel sweep', () => post({ type: 'cancelRun' }), { id: 'btn-cancel-sweep', secondary: '' });
/**
 * On a sweep the window's reload interrupted: runs it again, as the reloaded window's toast's button
 * does (the runner resumes: only the points not in its results folder run), where the toast hid
 * itself after ~10 s and the banner had no button (s40 newcomer-ed F8).
 */
const sweepResume = button('Resume sweep', () => model.sweepRun && post({ type: 'resumeSweep', name: model.sweepRun.name }), { id: 'btn-resume-sweep' });
const sweepRunBar = el('div', { class: 'compare-bar', id: 'sweep-run' }, sweepRunText, sweepProgress, sweepCancel, sweepResume);
const sweepCharted: Chart[] = [];
/** What the Sweep tab charts, for its Export PNG: each chart's config and the CSS height it is shown at, in the grid's order. */
let sweepPngCharts: PngChart[] = [];
const TABS: Array<PersistedState['tab']> = ['run', 'history', 'sweep'];

// A tab header sets aria-selected and tabindex only when its `active` attribute changes (vscode-tab-header's
// attributeChangedCallback): one never selected had neither, so a screen reader gave it no state. Unselected from the start.
const unselected = { slot: 'header', 'aria-selected': 'false', tabindex: '-1' };
const tabs = el('vscode-tabs', { 'selected-index': String(Math.max(0, TABS.indexOf(tab))) },
  el('vscode-tab-header', unselected, 'Run'),
  el('vscode-tab-header', unselected, 'History'),
  el('vscode-tab-header', unselected, 'Sweep'),
  el('vscode-tab-panel', {}, runDeletedNote, runEditedNote, latestNote, environment, cancelledNote, keepsUpNote, buildNote, loadNote, stepTime, noRun, chartGrid),
  // Sweeps and Compare first: after every saved run they were ~340 rows down (s37 newcomer-ed 7).
  el('vscode-tab-panel', {}, el('h2', {}, 'Compare two runs'),
    el('div', { class: 'compare-bar' }, el('label', {}, 'A ', selectA), el('label', {}, 'B ', selectB), compareButton),
    compareResult, compareExport, el('h2', {}, 'Sweeps'), sweepList, el('h2', {}, 'Saved runs'), el('div', { class: 'compare-bar' }, historyFilter, historyCount), historyList, historyMore),
  el('vscode-tab-panel', {}, sweepRunBar, sweepOther, sweepEditedNote, sweepInterrupted, sweepSummary, sweepBar, sweepBest, sweepBestNotes, sweepBestVllm, sweepCharts, sweepCaptionLine, sweepPointsHeading, sweepTableBox, sweepSources),
);
// vscode-tabs (2.5.1) gives both its header box and the header slot inside it role=tablist, so a screen reader
// heard a tab list inside a tab list (s41 newcomer-ed F6 e): the slot's role goes; the box's tablist holds the tabs.
void (tabs as HTMLElement & { updateComplete: Promise<unknown> }).updateComplete.then(() => tabs.shadowRoot?.querySelector('slot[name="header"]')?.removeAttribute('role'));
/**
 * Whether the user picked a tab (a click or a key on the tab headers: vsc-tabs-select, which
 * showTab's attribute does not fire) since the run, or the sweep, the editor runs started: its end
 * then leaves the user on the tab they chose (s44 newcomer-ed F11: a finish pulled them back to Run).
 */
let pickedSinceRun = false;
let pickedSinceSweep = false;
tabs.addEventListener('vsc-tabs-select', (e: Event) => {
  pickedSinceRun = true;
  pickedSinceSweep = true;
  tab = TABS[(e as CustomEvent<{ selectedIndex: number }>).detail.selectedIndex] ?? 'run';
  renderHeader(model.current);
  persist();
});

app.append(
  el('header', { class: 'toolbar' }, el('div', { class: 'title' }, title, statusLabel, status, sloStatus, loadStatus, progress), actions),
  tabs,
);

// ---- rendering ----------------------------------------------------------------------------

/**
 * What chart.js drew, as its dataset metas count it ("weights: 1 points; KV pool: 1 points"): the
 * canvas's data-drawn, read by the tests to know a chart was drawn with a run's data (the
 * accessible name is ChartSpec.ariaLabel, the figures).
 */
function drawnText(chart: Chart): string {
  return chart.getSortedVisibleDatasetMetas().map((m) => `${m.label}: ${m.data.length} points`).join('; ');
}

/** The data table under a chart, built only while its "Data" is open (a pool run has ~1,000 rows). */
function fillTable(card: Card, id: ChartId): void {
  if (!card.details.open || card.tabled === card.spec) return;
  card.tabled = card.spec;
  card.data.replaceChildren(card.spec ? table(card.spec.table, `table-${id}`) : '');
}

const sameInputs = (a: readonly unknown[], b: readonly unknown[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** True when chart `id` must be drawn again for `run` (its inputs or the palette changed). */
function stale(card: Card, run: ViewRun | null): boolean {
  const inputs = run ? chartInputs(card.id, runFor(card.id, run)) : [];
  return !card.drawn || card.drawn.palette !== palette || !sameInputs(card.drawn.inputs, inputs) || (run !== null) !== (card.spec !== null);
}

/** Draws chart `id` of `run` now. */
function drawChart(card: Card, shown: ViewRun | null): void {
  const id = card.id;
  const run = shown && runFor(id, shown);
  card.drawn = { inputs: run ? chartInputs(id, run) : [], palette };
  const spec = run ? (id === 'latencyCdf' ? latencyCdfChart(run, palette) : id === 'queue' ? queueChart(run, palette) : id === 'capacity' ? capacityChart(run, palette) : runChart(id, run, palette)) : null;
  card.spec = spec;
  card.empty.textContent = spec && spec.empty !== null ? `${spec.title}: ${spec.empty}` : '';
  card.summary.textContent = spec?.summary ?? '';
  // Each Data disclosure named by its chart: nine all read "Data" in a list of controls (s41 newcomer-ed F6 c).
  card.details.querySelector('summary')?.setAttribute('aria-label', spec ? `Data: ${spec.title}` : 'Data');
  // Chart.js sets the canvas's display inline, so emptiness hides the chart's box through the card's class.
  card.card.classList.toggle('is-empty', !spec || spec.empty !== null);
  const height = `${spec?.height ?? 300}px`;
  if (card.box.style.height !== height) card.box.style.height = height;
  fillTable(card, id);
  let chart = charts.get(id);
  if (!spec) {
    chart?.destroy();
    charts.delete(id);
    return;
  }
  // Every chart's canvas is named, an empty one by what its card says (the capacity chart of a run without a capacity search had no name).
  card.canvas.setAttribute('aria-label', spec.empty !== null ? `${spec.title}: ${spec.empty}` : spec.ariaLabel);
  // An empty chart's box is hidden: it is not drawn until it has something to show.
  if (spec.empty !== null) return;
  card.narrow = isNarrow(card.box, card.narrow);
  const options = narrowOptions(spec.config.options, card.narrow) ?? {};
  if (chart) {
    chart.data = spec.config.data;
    chart.options = options;
    chart.update('none');
  } else {
    chart = new Chart(card.canvas, { ...spec.config, options });
    charts.set(id, chart);
  }
  if (spec.summary) card.canvas.setAttribute('aria-describedby', card.summary.id);
  else card.canvas.removeAttribute('aria-describedby');
  card.canvas.dataset.drawn = drawnText(chart);
  card.canvas.dataset.theme = palette.kind;
}

/** Charts waiting to be drawn, each in a task of its own (one chart's drawing is the longest the page blocks). */
let chartQueue: Card[] = [];
let chartTask: ReturnType<typeof setTimeout> | undefined;

/** Queues the charts whose inputs or palette changed since they were drawn. */
function renderCharts(run: ViewRun | null): void {
  renderEngineSelects(run);
  chartQueue = [...cards.values()].filter((c) => stale(c, run));
  if (chartQueue.length > 0) chartTask ??= setTimeout(drawQueued, 0);
}

function drawQueued(): void {
  chartTask = undefined;
  const card = chartQueue.shift();
  if (card === undefined) return;
  if (stale(card, model.current)) drawChart(card, model.current);
  if (chartQueue.length > 0) chartTask = setTimeout(drawQueued, 0);
}

function renderHeader(run: ViewRun | null): void {
  // The name's parts ("model · file · mode") each unbroken, the line wrapping at the separators: a
  // narrow panel split "llama-3.1- / 8b.attn.yaml" at its hyphen. A part wider than the panel ends
  // in an ellipsis (CSS .title-part), the whole name in the tooltip.
  const name = run ? run.name : 'AttnScope';
  title.replaceChildren(...joined(name.split(' · ').map((part) => el('span', { class: 'title-part' }, part)), ' · '));
  title.title = name;
  // Cancel pressed: "cancelling…" until the runner has ended (~5 s at load 20), as the status bar says.
  const cancelling = run?.status === 'running' && run.cancelling === true;
  // One word for how the run stands, the one History and its cards say: "interrupted" for a run a window reload stopped
  // (saved as cancelled; the badge read "cancelled" beside its "interrupted (window reloaded or closed)" line, s50 newcomer-ed 1).
  status.textContent = run ? (run.status === 'restoring' ? 'restoring…' : cancelling ? 'cancelling…' : runStateWord(run)) : '';
  status.title = run && isInterrupted(run) ? 'The window reloaded or closed while this run ran, which ended it' : '';
  status.className = `status status-${run?.status ?? 'none'}`;
  const slo = run && run.status !== 'running' ? sloBadge(run.pool?.latency, run.pool?.load) : null;
  // An ok run's verdict says more than its "ok", read first in grey beside "SLO not met" (s44 newcomer-ed F19); a
  // cancelled or failed run keeps its status beside it.
  status.hidden = slo !== null && run?.status === 'ok';
  sloStatus.textContent = slo?.text ?? '';
  sloStatus.title = slo?.title ?? '';
  sloStatus.className = `status ${slo ? (slo.met ? 'status-slo-met' : 'status-failed') : ''}`;
  sloStatus.hidden = !slo;
  const pool = run && run.status !== 'running' ? run.pool : undefined;
  const keepsUp = pool?.load ? loadVerdict(pool.load, pool.summary, pool.capacity) : null;
  loadStatus.textContent = keepsUp?.badge ?? '';
  loadStatus.title = keepsUp?.lines.join('\n') ?? '';
  loadStatus.className = `status ${keepsUp ? `status-load-${keepsUp.kind}` : ''}`;
  loadStatus.hidden = !keepsUp;
  keepsUpNote.textContent = keepsUp?.kind === 'cannot-tell' ? keepsUp.lines.join(' ') : '';
  keepsUpNote.hidden = keepsUp?.kind !== 'cannot-tell';
  // The cases received so far, for the e2e suite (a case measured before it reloads the window).
  status.dataset.cases = String(run?.cases.length ?? 0);
  const p = run?.progress;
  progress.hidden = !(run?.status === 'running');
  progress.setAttribute('value', p && p.total > 0 ? String(p.done / p.total) : '0');
  // The share done, not done/total: a benchmark's steps (the peaks, each case, the page pool) read as a wrong case count ("1/8" in a 6-case run, s43 newcomer-ed L8).
  progress.title = p ? `${p.total > 0 ? Math.floor((100 * p.done) / p.total) : 0}% · ${p.message}` : '';
  const running = run?.status === 'running';
  chartGrid.classList.toggle('running', running);
  // No run (or one restoring: its saved cases lag it): one line says so (noRun), the cards with nothing to draw are hidden (CSS).
  const noRunLine = noRunText(run);
  chartGrid.classList.toggle('no-run', noRunLine !== null);
  noRun.hidden = noRunLine === null;
  if (noRunLine !== null && noRun.textContent !== noRunLine) noRun.textContent = noRunLine;
  // A memory estimate (Show memory breakdown) is no run: its page is the memory card alone (CSS),
  // not a grid of "no timed cases" placeholders.
  chartGrid.classList.toggle('estimate', run?.status === 'estimate');
  // A serving simulation times no kernel: no kernel cards (CSS), and the note says its times are modelled.
  chartGrid.classList.toggle('simulation', run?.kind === 'simulate');
  const note = run ? stepTimeNoteParts(run) : null;
  // The head ends with ":" where the folded model follows, so the element's text reads as stepTimeNote's line.
  const head = note === null ? '' : note.model === null ? `${note.head} (the model is named when the simulation ends).` : `${note.head}:`;
  if (stepTimeHead.textContent !== head) stepTimeHead.textContent = head;
  stepTimeModel.textContent = note?.model ? ` ${note.model}.` : '';
  stepTime.classList.toggle('bare', !note?.model);
  stepTime.hidden = note === null;
  const wasm = run && !running ? wasmBuildNote(run.environment, run.kind) : null;
  buildNote.textContent = wasm ?? '';
  buildNote.hidden = wasm === null;
  // Only timed kernels compete for the CPUs: a simulation's figures are modelled, whatever the load.
  const load = run && !running && run.cases.length > 0 && run.environment ? loadAverageText(run.environment) : null;
  loadNote.textContent = load?.busy ? load.text : '';
  loadNote.hidden = !load?.busy;
  runButton.toggleAttribute('disabled', running);
  // The label names the run shown, from its start (disabled while it runs): the header names that
  // run, and a label kept from the run before named another file and kind beside it.
  const rerun = rerunOf(run, model.runTarget ?? null);
  // The file's name unbroken (a narrow panel wrapped the label inside "llama-3.1-8b-" / "instruct.attn.yaml"): the label wraps after the verb.
  // One span around both: the button's slot is a flex box, which dropped the space after the colon
  // of a bare text node ("Run simulation:qwen.attn.yaml", s31 newcomer-ed 10).
  if (runButton.textContent !== rerun.label) {
    const [verb, file] = rerun.label.split(/(?<=: )/);
    runButton.replaceChildren(el('span', {}, verb!, ...(file ? [el('span', { class: 'title-part' }, file)] : [])));
  }
  runButton.title = rerun.title;
  const saved = run?.latest ? model.runs.length : 0;
  const folder = run?.latest ? model.runs.find((r) => r.id === run.id)?.folder : undefined;
  latestNote.textContent = run?.latest ? `The newest saved run${folder === undefined ? '' : ` (in ${folder})`}, shown as this window has shown no run; History lists ${formatCountOf(saved, 'saved run')}. The Run button runs the editor's file, not this run's.` : '';
  latestNote.hidden = !run?.latest;
  runDeletedNote.textContent = run?.deleted ? runDeletedText(run.deleted) : '';
  runDeletedNote.hidden = run?.deleted === undefined;
  runEditedNote.textContent = run?.profileEdited ?? '';
  runEditedNote.hidden = run?.profileEdited === undefined;
  cancelButton.toggleAttribute('disabled', !running || cancelling);
  // vscode-button's disabled is not exposed to assistive technology: it read as an actionable Cancel (s41 newcomer-ed F6 b).
  cancelButton.setAttribute('aria-disabled', String(!running || cancelling));
  setCancelLabel(cancelButton, cancelling ? CANCELLING : 'Cancel');
  // What a cancelled benchmark kept, in the toast's words; not for one a reload stopped (its error says so) nor a simulation (its error says nothing is saved, and why).
  const kept = run?.status === 'cancelled' && run.kind !== 'simulate' && !isInterrupted(run)
    ? `Cancelled ${benchCancelledText({ status: run.status, cases: run.cases, ...(run.pool ? { pool: run.pool } : {}), ...(run.poolCancelled ? { poolCancelled: run.poolCancelled } : {}) })}.`
    : null;
  cancelledNote.textContent = kept ?? '';
  cancelledNote.hidden = kept === null;
  exportJson.toggleAttribute('disabled', exportId(run ?? null) === undefined);
  exportCsv.toggleAttribute('disabled', exportId(run ?? null) === undefined);
  exportPng.toggleAttribute('disabled', !run || run.status === 'restoring' || (run.cases.length === 0 && run.poolSamples.length === 0));
  const env = run?.environment;
  environment.replaceChildren(...(run?.status === 'restoring'
    ? []
    : running
    ? [`${p ? `${Math.floor(p.done)}/${p.total} · ${p.message}` : 'starting…'}`]
    : env
      ? joined([headerMachineText(run!, env, ' · '), run!.kind === 'simulate' ? 'no kernel timed' : perGpuCasesHeader(run!.cases.map((c) => c.shape)), run!.pool?.load ? formatLoadNote(run!.pool.load) : null, stoppedEarly(run!), run?.createdAt ? runTime(run.createdAt) : null, run?.error].filter((part): part is string | HTMLElement => !!part), ' · ')
      : [run?.error ?? '']));
  environment.classList.toggle('error', run?.status === 'refused' || run?.status === 'failed');
  // The Sweep tab shows no run: its header names the sweep (the one running, else the one shown), and the run's buttons and progress go.
  const onSweep = tab === 'sweep';
  actions.hidden = onSweep;
  for (const b of [exportJson, exportCsv, exportPng]) b.hidden = tab !== 'run';
  // Which run they export, in words (the header names it too).
  if (run) for (const [b, what] of [[exportJson, 'JSON'], [exportCsv, 'CSV'], [exportPng, 'PNG of its charts']] as const) b.title = `Export the run ${run.name} as ${what}`;
  if (onSweep) {
    const sweeping = model.sweepRun?.status === 'running' ? model.sweepRun : null;
    title.textContent = sweeping ? `${sweeping.name} · sweep` : model.sweep ? sweepTitle(model.sweep) : 'AttnScope · sweep';
    const chip = sweepChip(model.sweepRun ?? null, model.sweep ?? null);
    status.textContent = chip?.text ?? '';
    status.className = `status ${chip?.cls ?? 'status-none'}`;
    status.title = '';
    status.hidden = false;
    sloStatus.hidden = true;
    loadStatus.hidden = true;
    progress.hidden = true;
  }
  statusLabel.hidden = status.textContent === '' || status.hidden;
  renderSweepRun();
}

/** The Sweep tab's line for the sweep the editor runs: its progress and Cancel while it runs, how it ended after; hidden before any. */
function renderSweepRun(): void {
  const run = model.sweepRun ?? null;
  // Over its own kept points' report, the report's interrupted line says how it ended, with Resume sweep: said once.
  sweepRunBar.hidden = run === null || (model.sweep !== null && model.sweep !== undefined && isOwnStoppedReport(model.sweep, run));
  if (!run) return;
  const running = run.status === 'running';
  const p = run.progress;
  // The extension's end messages name the sweep ("sweep of a.attn.yaml finished: ..."): not twice.
  const ended = run.message ?? run.status;
  const text = running ? `Sweeping ${run.name}: ${p ? p.message : 'starting…'}` : ended.includes(run.name) ? ended : `${run.name}: ${ended}`;
  if (sweepRunText.textContent !== text) sweepRunText.textContent = text;
  sweepRunText.className = running ? '' : run.status === 'finished' ? 'muted' : 'warning';
  sweepProgress.hidden = !running;
  sweepProgress.setAttribute('value', p && p.total > 0 ? String(p.done / p.total) : '0');
  sweepCancel.hidden = !running;
  sweepCancel.toggleAttribute('disabled', !running || run.cancelling === true);
  sweepCancel.setAttribute('aria-disabled', String(!running || run.cancelling === true));
  setCancelLabel(sweepCancel, running && run.cancelling ? CANCELLING : 'Cancel sweep');
  sweepResume.hidden = run.status !== 'interrupted';
  sweepResume.title = `Run the sweep of ${run.name} again: the points saved before the reload are kept, only the others run`;
}

/** A Cancel's label from Cancel to the runner's end (ToWebview runCancelling), disabled meanwhile. */
const CANCELLING = 'Cancelling…';

/** Sets a Cancel button's label (`Cancel`, `Cancel sweep`, or CANCELLING) where it differs, and says in its tooltip what Cancelling… waits for. */
function setCancelLabel(b: HTMLElement, label: string): void {
  if (b.textContent !== label) b.textContent = label;
  b.title = label === CANCELLING ? 'Waiting for the runner to stop' : '';
}

/**
 * For a benchmark cancelled or failed before its first kernel case finished, that it was (its header would otherwise show only the
 * machine); else null. Not for one a window reload stopped: its error says so ("cancelled before any kernel finished" beside it
 * read as two endings).
 */
function stoppedEarly(run: ViewRun): string | null {
  if (run.kind === 'simulate' || run.cases.length > 0 || isInterrupted(run)) return null;
  return run.status === 'cancelled' ? 'cancelled before any kernel finished' : run.status === 'failed' ? 'failed before any kernel finished' : null;
}

/** A run's or sweep's name, after its workspace folder's when the workspace has several (`folder` set): "ws2: qwen.attn.yaml". */
function inFolder(name: string, folder: string | undefined): string {
  return folder === undefined ? name : `${folder}: ${name}`;
}

/**
 * A History row's buttons: Open, and Delete, which asks the extension to delete the run (it asks the user first, then moves the
 * file to the trash: extension/deleteRun.ts). Each names its run and time for a screen reader, as the row has them.
 */
function runActions(r: DashboardModel['runs'][number], name: string, time: string): HTMLElement {
  // Side by side where the table has room, one over the other where it has not (CSS .row-actions): side by side always, the
  // column's width stacked 50 runs that had fitted as rows at 600 px.
  return el('span', { class: 'row-actions' },
    button('Open', () => post({ type: 'openRun', id: r.id }), { secondary: '', 'aria-label': `Open run ${r.name}, ${time}` }),
    button('Delete', () => {
      deleting = { id: r.id, row: historyRows().findIndex((tr) => tr.dataset.run === r.id) };
      post({ type: 'deleteRun', id: r.id, name, createdAt: r.createdAt });
      // tabindex now: the element sets its own only in its first update, after focusAfterDelete may focus it.
    }, { secondary: '', class: 'delete-run', tabindex: '0', 'aria-label': `Delete run ${r.name}, ${time}` }),
  );
}

/** The run whose Delete was pressed last, and its row's place: once it is gone, the focus goes to the row that took that place. */
let deleting: { id: string; row: number } | null = null;
const historyRows = (): HTMLTableRowElement[] => [...historyList.querySelectorAll<HTMLTableRowElement>('table.table-history tbody tr')];

/** After the list is drawn without the run deleted: the focus on the Delete of the row now in its place (else the last row's, else the filter), not lost with the row. */
function focusAfterDelete(): void {
  if (!deleting || model.runs.some((r) => r.id === deleting!.id)) return;
  const rows = historyRows();
  const target = rows[Math.min(deleting.row, rows.length - 1)]?.querySelector<HTMLElement>('vscode-button.delete-run') ?? historyFilter;
  deleting = null;
  target.focus();
}

function renderHistory(): void {
  const note = skippedNote(model.skippedRuns);
  const wanted = historyFilter.value.trim().toLowerCase();
  const matching = sortRuns(wanted ? model.runs.filter((r) => inFolder(r.name, r.folder).toLowerCase().includes(wanted)) : model.runs, historySort, (r) => inFolder(r.name, r.folder));
  const shown = matching.slice(0, historyShown);
  const times = formatShortRunTimes(shown.map((r) => r.createdAt));
  const withFigure = shown.some((r) => r.figure), withOrigin = shown.some((r) => r.origin !== undefined);
  historyCount.textContent = model.runs.length === 0 ? '' : `${shown.length < matching.length ? `${historySort.key === 'time' ? (historySort.dir === 'descending' ? 'newest' : 'oldest') : 'first'} ${formatCount(shown.length)} of ` : ''}${formatCount(matching.length)}${wanted ? ` of ${formatCount(model.runs.length)}` : ''} ${matching.length === 1 ? 'run' : 'runs'}`;
  historyMore.hidden = shown.length >= matching.length;
  if (!historyMore.hidden) historyMore.textContent = `Show ${formatCount(Math.min(HISTORY_PAGE, matching.length - shown.length))} more`;
  if (model.runs.length === 0) {
    historyList.replaceChildren(el('p', { class: 'empty' }, 'No saved runs yet in this workspace.'));
  } else if (matching.length === 0) {
    historyList.replaceChildren(el('p', { class: 'empty' }, `No saved run's name contains "${historyFilter.value.trim()}".`));
  } else {
    historyList.replaceChildren(table({
      // The kind in its own column and what the run counts in theirs (model.ts runCountText: "6 cases", "200 requests"): "cases" read
      // "6" in one row and "simulation" in the next (s50 newcomer-ed 12), then "0" for a simulation (s51). Stacked where the columns
      // do not fit (fitStacked), as the Sweeps are.
      // A figure (compare.ts runFigure: TTFT p99, the rate kept up, the headline case's time) and where the run was made, and the
      // seconds where two rows share a minute: ten rows of one profile and minute read alike (s52 newcomer-ed 3).
      // Either column only where a listed run has its value: two empty columns stacked 50 runs that fit as rows at 600 px (s52 CI).
      columns: ['time', 'name', 'kind', 'status', 'count', ...(withFigure ? ['figure'] : []), ...(withOrigin ? ['from'] : []), ''],
      rows: shown.map((r, i) => [shortTime(r.createdAt, times[i]), inFolder(r.name, r.folder), runKindWord(r.kind), r.interrupted ? INTERRUPTED : r.poolCancelled ? `${r.status} ${poolCancelledText(r.poolCancelled)}` : r.status, runCountText(r), ...(withFigure ? [r.figure ?? ''] : []), ...(withOrigin ? [r.origin === undefined ? '' : runOriginWord(r.origin)] : []), runActions(r, inFolder(r.name, r.folder), times[i]!)]),
    }, 'table-history', (i) => ({ 'data-run': shown[i]!.id }), { text: [`Saved runs, ${runSortText(historySort)}`], hidden: true }, { keys: RUN_SORT_COLUMNS, by: historySort }));
    fitStacked(historyList);
    if (sortFocus !== null) historyList.querySelector<HTMLElement>(`button.sort-header[data-sort="${sortFocus}"]`)?.focus();
    sortFocus = null;
  }
  if (note) historyList.append(el('p', { class: 'note', id: 'history-skipped' }, note));
  focusAfterDelete();
  // Until the user picks: A = the previous run (baseline), B = the newest. The choice is marked on the option
  // (`selected`), which the element reads when its options change; setting `value` first would be lost.
  // Above a comparison they show its two runs (they named two others, s39 newcomer-ed 2); a run's id is its name and createdAt (extension/history.ts runId).
  const cmp = model.compare;
  // The ids the extension sent with the comparison; else by createdAt and name (a listed name may add settings to it: runName distinctRunNames).
  const idOf = (r: { name: string; createdAt: string } | undefined, id: string | undefined): string | undefined => id ?? (r ? model.runs.find((x) => x.createdAt === r.createdAt && x.name.startsWith(r.name))?.id : undefined);
  const pickerTimes = formatShortRunTimes(model.runs.map((r) => r.createdAt));
  for (const [select, fallback, compared] of [[selectA, model.runs[1]?.id, idOf(cmp?.a, cmp?.aId)], [selectB, model.runs[0]?.id, idOf(cmp?.b, cmp?.bId)]] as const) {
    const keep = compared ?? (select.dataset.chosen ? select.value : undefined);
    const want = keep && model.runs.some((r) => r.id === keep) ? keep : fallback;
    // Each option's whole time (with its year) as its description, which the open list shows under it for the option pointed at.
    select.replaceChildren(...model.runs.map((r, i) => el('vscode-option', { value: r.id, description: runTimeTooltip(r.createdAt), ...(r.id === want ? { selected: '' } : {}) }, compareOptionLabel(r, inFolder(r.name, r.folder), pickerTimes[i]))));
  }
  compareButton.toggleAttribute('disabled', model.runs.length < 2);
  renderSweepList();
  renderCompare();
}

function renderSweepList(): void {
  const sweeps = model.sweeps ?? [];
  // The reports left out, with why (s46: a report not JSON was dropped from History silently, where Open sweep results named it).
  const skipped = skippedSweepsNote(model.skippedSweeps);
  const note = skipped === null ? [] : [el('p', { class: 'note', id: 'sweeps-skipped' }, skipped)];
  if (sweeps.length === 0) {
    sweepList.replaceChildren(el('p', { class: 'empty' }, 'No finished sweeps yet in this workspace (.attnscope/sweeps): the Run sweep code lens on a profile\'s sweep: key runs one.'), ...note);
    return;
  }
  sweepList.replaceChildren(table({
    // The results folder (`<profile>-<sweep id>`) told two sweeps of one profile apart, as the Open sweep results picker does (s37 newcomer-ed 7).
    // The kind in the column the runs' list has it in: "sweep (job: both)", the profile's sweep job as it writes it.
    columns: ['time', 'name', 'kind', 'points', 'folder', ''],
    // The time to the minute, and stacked blocks that wrap (fitStacked) in a panel too narrow for the columns: in a 400 px
    // side panel the time took four lines and Open was cut off at the right edge (s49 newcomer-ed 7).
    rows: sweeps.map((s) => [shortTime(s.createdAt), inFolder(s.name, s.folder), `sweep (job: ${s.job})`, sweepPointsText(s), s.id, button('Open', () => post({ type: 'openSweep', id: s.id }), { secondary: '', 'aria-label': `Open sweep ${s.name}, ${formatShortRunTime(s.createdAt)}` })]),
  }, 'table-sweeps', (i) => ({ 'data-sweep': sweeps[i]!.id })), ...note);
  fitStacked(sweepList);
}

/** "A <name> (time) vs B <name> (time)": the two runs a comparison's table is of, for its caption; each named as History lists it (listedName). */
function comparedRuns(cmp: NonNullable<typeof model.compare>): Array<Node | string> {
  return ['A ', listedName(cmp.a, cmp.aId, model.runs), ' (', runTime(cmp.a.createdAt), ') vs B ', listedName(cmp.b, cmp.bId, model.runs), ' (', runTime(cmp.b.createdAt), ')'];
}

function renderCompare(): void {
  const cmp = model.compare;
  compareExport.hidden = !cmp;
  if (!cmp) {
    compareResult.replaceChildren();
    return;
  }
  const verdictText = { faster: '▼ faster', slower: '▲ slower', same: 'within noise', 'only-a': 'only in A', 'only-b': 'only in B' } as const;
  const differ = modelDifference(cmp.a, cmp.b);
  const builds = buildDifference(cmp.a, cmp.b);
  // A serving simulation timed no kernel: only the pool simulations compare (or nothing does).
  const kinds = kindDifference(cmp.a, cmp.b);
  const pools = comparePools(cmp.a, cmp.b);
  const parts: HTMLElement[] = [];
  const same = sameRun(cmp.a, cmp.b);
  if (same) parts.push(el('p', { class: 'warning', id: 'compare-same' }, same));
  if (differ) parts.push(el('p', { class: 'warning', id: 'compare-warning' }, differ));
  const workloads = workloadDifference(cmp.a, cmp.b);
  if (workloads) parts.push(el('p', { class: 'warning', id: 'compare-workload' }, workloads));
  const slos = sloDifference(cmp.a, cmp.b);
  if (slos) parts.push(el('p', { class: 'warning', id: 'compare-slo' }, slos));
  if (builds && !kinds) parts.push(el('p', { class: 'warning', id: 'compare-build' }, builds));
  const loads = kinds ? null : loadDifference(cmp.a, cmp.b);
  if (loads) parts.push(el('p', { class: 'warning', id: 'compare-load' }, loads));
  if (kinds) parts.push(el('p', { class: pools ? 'note' : 'warning', id: 'compare-kinds' }, kinds));
  // What the runs differ in (tensor_parallel_size, KV dtype, GPU, step-time model, ...), first; what they share, in a line under it.
  const settings = compareSettings(cmp.a, cmp.b);
  if (settings.differ.length > 0) {
    parts.push(table({ columns: ['setting', 'A', 'B', 'source'], rows: settings.differ.map((r) => [r.label, r.a, r.b, r.source]) }, 'table-compare-settings', () => ({}), { text: ['What differs: ', ...comparedRuns(cmp)] }));
  }
  if (settings.same.length > 0) parts.push(el('p', { class: 'muted', id: 'compare-same-settings' }, `Same in both: ${settings.same.join(', ')}.`));
  if (!kinds) {
    const rows = compareRuns(cmp.a, cmp.b);
    const flagged = rows.filter((r) => r.verdict === 'faster' || r.verdict === 'slower').length;
    parts.push(
      el('p', {}, `${listedName(cmp.a, cmp.aId, model.runs)} (`, runTime(cmp.a.createdAt), `) → ${listedName(cmp.b, cmp.bId, model.runs)} (`, runTime(cmp.b.createdAt), `): ${flagged} of ${rows.length} cases changed beyond their spread.`),
      // Only over measured cases: a simulation has no spread (the note stood above simulation-only comparisons, s39 newcomer-ed 3).
      el('p', { class: 'muted', id: 'compare-spread' }, 'Changes are flagged only when neither median lies inside the other run\'s p10–p90 range for that case.'),
      table({
        columns: ['case', 'A median', 'B median', 'change', 'A p10–p90', 'B p10–p90', 'verdict'],
        rows: rows.map((r) => [
          r.label,
          r.a ? formatDuration(r.a.medianNs) : '',
          r.b ? formatDuration(r.b.medianNs) : '',
          r.relativeChange === null ? '' : `${r.relativeChange >= 0 ? '+' : ''}${formatPercent(r.relativeChange)}`,
          r.a ? `${formatDuration(r.a.p10Ns)}–${formatDuration(r.a.p90Ns)}` : '',
          r.b ? `${formatDuration(r.b.p10Ns)}–${formatDuration(r.b.p90Ns)}` : '',
          verdictText[r.verdict],
        ]),
      }, 'table-compare', () => ({}), { text: ['Kernel cases: ', ...comparedRuns(cmp)] }),
    );
  }
  if (pools) {
    parts.push(table({
      columns: ['figure', 'A', 'B', 'change', 'source'],
      rows: pools.map((r) => [r.label, r.a, r.b, r.change, r.source]),
    }, 'table-compare-pool', () => ({}), { text: ['Pool simulations: ', ...comparedRuns(cmp)] }));
    const bound = loadBoundNote(cmp.a, cmp.b);
    if (bound) parts.push(el('p', { class: 'note', id: 'compare-load-bound' }, bound));
  }
  // A TPOT SLO judged at small batch with overhead_ms assumed 0: the note the CLI, the Run tab and a sweep's best line show (core/format tpotOverheadNote).
  const tpot = tpotNoteText(cmp.a, cmp.b);
  if (tpot) parts.push(el('p', { class: 'note', id: 'compare-tpot' }, `Note: ${tpot}`));
  if (pools || !kinds) parts.push(el('p', { class: 'muted', id: 'compare-change' }, CHANGE_MEANING));
  compareResult.replaceChildren(...parts);
}

/** The comparison's tables as one PNG (png.ts composeTablePng), titled with the two runs, saved by the extension as the run charts' PNG is. */
function exportComparePng(): void {
  const cmp = model.compare;
  if (!cmp) return;
  const tables = [...compareResult.querySelectorAll('table')].map((t) => ({
    caption: t.caption?.textContent ?? '',
    rows: [...t.rows].map((tr) => [...tr.cells].map((c) => c.textContent ?? '')),
  }));
  const notes = [...compareResult.querySelectorAll('p')].map((p) => p.textContent ?? '');
  const out = composeTablePng(`Compare: A ${listedName(cmp.a, cmp.aId, model.runs)} vs B ${listedName(cmp.b, cmp.bId, model.runs)}`, tables, notes, palette, window.devicePixelRatio || 1);
  post({ type: 'savePng', name: `compare ${cmp.a.name} vs ${cmp.b.name}`, dataUrl: out.toDataURL('image/png') });
}

function renderSweep(): void {
  for (const c of sweepCharted.splice(0)) c.destroy();
  sweepPngCharts = [];
  const report = shownSweep();
  // The running sweep's own points so far, under its progress: no note that it is another sweep's.
  const live = report !== null && report !== model.sweep;
  sweepExportCsv.toggleAttribute('disabled', !report);
  sweepExportPng.toggleAttribute('disabled', !report || report.rows.length === 0);
  sweepCopyMarkdown.toggleAttribute('disabled', !report || sweepMetricsOf(report).length === 0);
  sweepBar.hidden = !report;
  sweepPointsHeading.hidden = !report;
  if (!report) {
    // While a sweep runs its line above says so and its points come as they are saved (SweepRunView.points); one that ended with no report
    // (a reload, a failure, a refusal) is said by that line too: not "No sweep open" under "interrupted … Resume sweep"
    // (s48 newcomer-ed 9).
    sweepSummary.textContent = model.sweepRun ? '' : 'No sweep open: run one with the Run sweep code lens on a profile\'s sweep: key (or AttnScope: Run sweep), or open a finished one from History (or AttnScope: Open sweep results). From a terminal: attnscope sweep <profile>, or attnscope merge DIR... for shards.';
    sweepOther.hidden = true;
    sweepEditedNote.hidden = true;
    sweepInterrupted.hidden = true;
    sweepBest.textContent = '';
    sweepBestNotes.replaceChildren();
    sweepBestVllm.hidden = true;
    sweepCharts.replaceChildren();
    sweepCaptionLine.textContent = '';
    sweepTableBox.replaceChildren();
    sweepTableBox.removeAttribute('tabindex');
    sweepSources.replaceChildren();
    sweepMetric.replaceChildren();
    return;
  }
  const envs = Object.keys(report.environments).length;
  const other = live ? null : otherSweepNote(report, model.sweepRun ?? null);
  sweepOther.textContent = other ?? '';
  sweepOther.hidden = other === null;
  sweepEditedNote.textContent = live ? '' : (model.sweepProfileEdited ?? '');
  sweepEditedNote.hidden = live || !model.sweepProfileEdited;
  // The editor's own sweep's kept points: this line alone says how it ended (its run line is hidden, renderSweepRun).
  const own = isOwnStoppedReport(report, model.sweepRun ?? null);
  const interrupted = interruptedText(report, own && model.sweepRun?.status === 'cancelled' ? 'cancelled' : 'interrupted');
  sweepInterrupted.hidden = interrupted === null;
  sweepInterruptedText.textContent = interrupted ?? '';
  sweepInterruptedResume.title = `Run the sweep of ${report.name} again: the ${report.total - report.missing.length} points kept are not run again, only the others`;
  sweepSummary.replaceChildren(...(live ? [`So far, while the others run: ${report.total - report.missing.length} of ${report.total} points saved; the figures and the best point below are of these only. `] : []), `${report.name} · sweep ${report.sweepId}`, ...(report.createdAt && !live ? [' · merged ', runTime(report.createdAt)] : []), ` · job ${report.job} · ${report.rows.length} results for ${report.total - report.missing.length} of ${report.total} points${envs > 1 ? ` on ${envs} kinds of machine` : ''}${report.missing.length > 0 ? ` · missing: ${report.missing.map((m) => m.label).join('; ')}` : ''}`);
  const bestText = sweepBestText(report);
  sweepBest.textContent = bestText.best;
  // The points a tie sentence counts but does not name, listed here: the report's JSON is no page the user has open (s44 newcomer-ed F5).
  const tied = bestText.tied.length === 0 ? [] : [el('details', { id: 'sweep-best-tied' }, el('summary', {}, `The ${formatCount(bestText.tied.length)} points tied with the best`), el('ul', {}, ...bestText.tied.map((label) => el('li', {}, label))))];
  sweepBestNotes.replaceChildren(...tied, ...bestText.notes.map((line) => el('p', { class: 'note' }, line)));
  const notOnVllm = report.best?.notOnVllm;
  sweepBestVllm.textContent = notOnVllm ? `not runnable on vLLM: ${notOnVllm}` : '';
  sweepBestVllm.hidden = !notOnVllm;
  const metrics = sweepMetricsOf(report);
  const chosen = metrics.find((m) => m.key === sweepMetric.dataset.chosen) ?? decisionMetric(metrics, report.best?.byCost === true, report.best?.byLatency === true);
  sweepMetric.replaceChildren(...metrics.map((m) => el('vscode-option', m === chosen ? { value: m.key, selected: '' } : { value: m.key }, `${m.label} (${m.source})`)));
  sweepCharts.replaceChildren();
  // The cost per point as bars, cheapest first, above the figure's charts against each axis.
  const cost = chosen?.key === 'usdPerMillionOutputTokens' ? sweepCostChart(report, palette) : null;
  if (cost) {
    const canvas = el('canvas', { id: 'chart-sweep-cost', role: 'img', 'aria-label': cost.ariaLabel });
    const box = el('div', { class: 'chart-box' }, canvas);
    box.style.height = `${sweepCostChartHeight(cost.bars, palette.fontSize, cost.labelLines)}px`;
    sweepCharts.append(el('section', { class: 'card' }, box));
    sweepCharted.push(new Chart(canvas, cost.config) as unknown as Chart);
    sweepPngCharts.push({ spec: { config: cost.config as ChartConfiguration }, cssHeight: sweepCostChartHeight(cost.bars, palette.fontSize, cost.labelLines), wide: true });
  }
  // The picked figure's chart against each axis, then the key figures' (chartedFigures): small multiples side by side.
  const figures = chartedFigures(report, chosen);
  // Narrower cards (300 px) for several figures side by side; one figure against several axes keeps the 420 px cards its legend of up to 12 lines needs.
  sweepCharts.classList.toggle('multiples', figures.length > 1);
  for (const [k, figure] of figures.entries()) {
    for (const [j, spec] of sweepAxisCharts(report, figure, palette).entries()) {
      const i = k * report.axes.length + j;
      const canvas = el('canvas', { id: `chart-sweep-${i}`, role: 'img', 'aria-label': spec.ariaLabel, 'data-axis': spec.axis, 'data-figure': figure.key });
      const box = el('div', { class: 'chart-box' }, canvas);
      // Through the CSSOM: the page's CSP refuses style attributes.
      // Its error bars' subtitle (up to three lines in a 300 px card) on top of the legend's room.
      const height = sweepChartHeight(spec.lines + (spec.leftOut ? 1 : 0), palette.fontSize) + (spec.errorBars ? 3 * (palette.fontSize + 4) : 0);
      box.style.height = `${height}px`;
      sweepCharts.append(el('section', { class: 'card' }, box));
      sweepCharted.push(new Chart(canvas, spec.config));
      sweepPngCharts.push({ spec: { config: spec.config as ChartConfiguration }, cssHeight: height });
    }
  }
  sweepCaptionLine.textContent = sweepCaption(report);
  const points = table(sweepTable(report), 'table-sweep');
  // Its roles written out: a table laid out as a grid (transposed) loses them in Chromium, and a screen reader would read a list of cells.
  points.setAttribute('role', 'table');
  for (const tr of points.querySelectorAll('tr')) tr.setAttribute('role', 'row');
  for (const th of points.querySelectorAll('th')) th.setAttribute('role', 'columnheader');
  for (const td of points.querySelectorAll('td')) td.setAttribute('role', 'cell');
  sweepTableBox.replaceChildren(points);
  sweepTableBox.tabIndex = 0;
  fitTransposed(sweepTableBox);
  sweepSources.replaceChildren(...sweepProvenance(report).map((line) => el('p', { class: 'muted' }, line)));
}

/**
 * Saves the state after each change of the model: while a run streams, when the page is next idle
 * (at most one save pending; each setState copies the whole model); otherwise at once, in the
 * task that changed it. A browser workbench writes this state to disk only on its own 5-s flush,
 * so a window reloaded right after a run finishes may restore an older state (even "running"):
 * the extension sends the run it showed in `init` then (extension/shownRun.ts), and `init`'s run
 * replaces the restored one.
 */
let persistQueued = false;
function persist(): void {
  if (model.current?.status !== 'running') {
    saveState({ tab, model });
    return;
  }
  if (persistQueued) return;
  persistQueued = true;
  const save = (): void => {
    persistQueued = false;
    saveState({ tab, model });
  };
  if (typeof requestIdleCallback === 'function') requestIdleCallback(save, { timeout: 2000 });
  else setTimeout(save, 500);
}

/** Least time between two chart redraws while a run streams, ms (the header follows every frame). */
const CHART_INTERVAL_MS = 250;
let renderQueued = false;
/** A frame is asked for: the header is drawn in it (a message after it asks for the next). */
let frameQueued = false;
let chartsDrawnAt = -Infinity;
let chartTimer: ReturnType<typeof setTimeout> | undefined;
let historyDrawn: { runs: DashboardModel['runs']; sweeps: DashboardModel['sweeps']; skippedSweeps: DashboardModel['skippedSweeps']; compare: DashboardModel['compare'] } | null = null;
let sweepDrawn: { sweep: DashboardModel['sweep']; status: string | undefined } | undefined;

/** A sweep report the user opened arrived since the last render: the page goes to the Sweep tab's top (render). */
let sweepOpened = false;

/** Streamed messages arrived since the last render: the extension waits for `streamDrawn` to send more (extension/streamBatcher.ts). */
let streamUndrawn = false;

function render(): void {
  renderQueued = false;
  const run = model.current;
  const wait = chartsDrawnAt + CHART_INTERVAL_MS - performance.now();
  if (run?.status !== 'running' || wait <= 0) {
    renderCharts(run);
    chartsDrawnAt = performance.now();
  } else {
    chartTimer ??= setTimeout(() => {
      chartTimer = undefined;
      scheduleRender();
    }, wait);
  }
  if (historyDrawn?.runs !== model.runs || historyDrawn.sweeps !== model.sweeps || historyDrawn.skippedSweeps !== model.skippedSweeps || historyDrawn.compare !== model.compare) {
    historyDrawn = { runs: model.runs, sweeps: model.sweeps, skippedSweeps: model.skippedSweeps, compare: model.compare };
    renderHistory();
  }
  // A sweep starting or ending changes the empty Sweep tab's text (none while one runs) and the note over another sweep's report.
  if (sweepDrawn === undefined || sweepDrawn.sweep !== shownSweep() || sweepDrawn.status !== model.sweepRun?.status) {
    sweepDrawn = { sweep: shownSweep(), status: model.sweepRun?.status };
    renderSweep();
  }
  if (sweepOpened) {
    sweepOpened = false;
    window.scrollTo({ top: 0 });
    sweepSummary.focus({ preventScroll: true });
  }
  if (streamUndrawn) {
    streamUndrawn = false;
    post({ type: 'streamDrawn' });
  }
}
/**
 * One render per frame, however many messages came: the header (a few text nodes) in the frame,
 * the rest after its paint (a frame, then a task), so that the header's change shows first.
 */
function scheduleRender(): void {
  if (frameQueued) return;
  frameQueued = true;
  requestAnimationFrame(() => {
    frameQueued = false;
    renderHeader(model.current);
    if (renderQueued) return;
    renderQueued = true;
    setTimeout(render, 0);
  });
}

/** All visible charts of the run view, redrawn at least 1,200 px wide, each under its summary, under the caption with the provenance lines (png.ts composePng). */
function exportChartsPng(): void {
  const run = model.current;
  if (!run) return;
  const visible = [...cards.values()].filter((c) => c.spec !== null && c.spec.empty === null && !c.card.classList.contains('is-empty') && c.card.offsetParent !== null);
  if (visible.length === 0) return;
  const cssWidth = Math.max(...visible.map((c) => c.canvas.clientWidth));
  const out = composePng(run, visible.map((c) => ({ spec: c.spec!, cssHeight: c.box.clientHeight || c.canvas.clientHeight })), palette, window.devicePixelRatio || 1, cssWidth);
  post({ type: 'savePng', name: run.name, dataUrl: out.toDataURL('image/png') });
}

/**
 * The Sweep tab's charts as one PNG (png.ts composeChartsPng, the run's Export PNG's writer): the
 * cost bars a row of their own, the figures against each axis side by side as the grid lays them,
 * at least 1,200 px wide, under the caption (sweepPngCaption); the extension saves it (savePng).
 */
function exportSweepPng(): void {
  const report = shownSweep();
  if (!report || sweepPngCharts.length === 0) return;
  const out = composeChartsPng(sweepPngCaption(report), sweepPngCharts, palette, window.devicePixelRatio || 1, Math.max(sweepCharts.clientWidth, 1200), SWEEP_PNG_COLUMNS);
  post({ type: 'savePng', name: sweepExportStem(report), dataUrl: out.toDataURL('image/png'), sweepId: report.sweepId });
}

/** Charts a row in the Sweep tab's PNG: three small multiples across its 1,200 px and more. */
const SWEEP_PNG_COLUMNS = 3;

/** Shows tab `t`, as a click on its header does. */
function showTab(t: PersistedState['tab']): void {
  tab = t;
  tabs.setAttribute('selected-index', String(TABS.indexOf(t)));
}

onMessage((msg: ToWebview) => {
  // The report of the sweep the editor ran, sent right after its end (finished, or cancelled with points kept): not one opened.
  // Said by the extension (showSweep's `ended`): guessed from the sweep's name, an earlier report of a cancelled sweep's profile
  // opened from the palette read as its end and left the page on the tab picked meanwhile (s49 newcomer-ed 10).
  const sweepEnd = msg.type === 'showSweep' && msg.ended === true;
  model = reduce(model, msg);
  if (msg.type === 'runStarted') pickedSinceRun = false;
  if (msg.type === 'sweepStarted' && !msg.replayed) pickedSinceSweep = false;
  if (msg.type === 'compare') showTab('history');
  // A sweep opened, or one the editor starts: its tab, where its report, progress and Cancel are; its end's
  // report too, unless the user picked a tab since it started.
  // A start replayed to a page that opened mid-run (Dashboard's sweepLive) turns to its tab only while that sweep runs and no run streams:
  // a dashboard reopened while a run streamed landed on the Sweep tab of a sweep that had ended before (s46).
  const sweepStart = msg.type === 'sweepStarted' && (!msg.replayed || (!msg.ended && model.current?.status !== 'running' && model.awaiting !== 'run'));
  if (sweepStart || (msg.type === 'showSweep' && !(sweepEnd && pickedSinceSweep))) showTab('sweep');
  // A report the user opened (Open sweep results, History's Open): at its top, the summary naming it focused. Opened over the
  // same report scrolled down to its table, nothing on screen changed and the command seemed to do nothing (s49 newcomer-ed 10).
  if (msg.type === 'showSweep' && !sweepEnd) sweepOpened = true;
  // What the user asked for on the Run tab: a run's start, a run opened, Show memory breakdown's estimate; the
  // run's end (its result or a refusal's reason) unless the user picked a tab while it ran (s44 newcomer-ed F11).
  // With the Sweep tab showing, a finished simulation and the lens's breakdown stayed behind it: the lens seemed to
  // do nothing (s43 newcomer-ed M8); a sweep opened by Open sweep results while it ran is no pick.
  if (msg.type === 'showRun' || msg.type === 'runStarted' || msg.type === 'showEstimate' || ((msg.type === 'runFinished' || msg.type === 'runRefused') && !pickedSinceRun)) showTab('run');
  if (msg.type === 'poolSamples' || msg.type === 'progress' || msg.type === 'sweepProgress') streamUndrawn = true;
  // Only the state here: a backlog of messages (the editor busy) is reduced in milliseconds and
  // drawn once, in the next frame (scheduleRender), not replayed one drawing per message.
  // Saved here, not after the drawing: a window reloaded once the finish shows must find it saved.
  persist();
  scheduleRender();
});

watchTheme(() => {
  palette = readPalette();
  renderCharts(model.current);
  renderSweep();
});

renderHeader(model.current);
render();
post({ type: 'ready' });
