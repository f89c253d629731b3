/**
 * The built dashboard (dist/webview, page from extension/dashboardHtml.ts) in headless
 * Chromium with the recorded run (test/fixtures/run.ts): every chart carries the run's points,
 * theme switches redraw in the new colours, the CSP blocks injected inline script, state
 * survives a reload, a streamed run updates live, compare flags only changes beyond the
 * spread, exports post the right requests. Screenshots go to test-results/webview/.
 * Bundles the sources first (scripts/build.mjs --bundles); needs /usr/bin/chromium.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { KernelCase, RunResult } from '../../core/protocol/run';
import type { SweepReport } from '../../core/protocol/sweep';
import type { ToWebview } from '../../core/protocol/webview';
import { vllmPageSizeNote } from '../../core/estimate/checks';
import { partialRun, runId } from '../../extension/history';
import { recordLive, replayAfterInit, type LiveMessages } from '../../extension/liveReplay';
import { bestRow } from '../../runner/sweep/results';
import { sweepMarkdown } from '../../webview/sweep';
import { SWEEP_METRICS } from '../../core/sweepFigures';
import { run } from '../fixtures/run';
import { logSweep } from '../fixtures/sweep';
import { chromiumSuite, openDashboard, root, seenSweepTable, send, setTheme, THEMES, waitForPosted } from './harness';

// What the page must show is worked out here from the recorded run's figures, by arithmetic of
// its own (not the webview's formatters), so recording the run again needs no edit below.
const RUN_ID = runId(run.createdAt, run.name);
const shots = join(root, 'test-results', 'webview');
const timed = run.cases.filter((c) => c.kernel !== 'reference');
/** The s27 newcomer's run's six cases: prefill N512 and N1024, decode B1 and B8 at ctx1024 and ctx4096 (the fixture's two, reshaped). */
const six = ((prefill: KernelCase, decode: KernelCase) => [
  ...[512, 1024].map((n) => ({ ...prefill, shape: { ...prefill.shape, seqLenQ: n, seqLenK: n } })),
  ...[1, 8].flatMap((b) => [1024, 4096].map((ctx) => ({ ...decode, shape: { ...decode.shape, batchSize: b, seqLenK: ctx } }))),
])(timed.find((c) => c.kernel === 'flash_fwd')!, timed.find((c) => c.kernel === 'paged_decode')!);

/** 96454977 ns -> "96.5 ms", 1134598 -> "1.13 ms", 190037 -> "190 µs": three significant digits (times under 1 s). */
function threeDigits(ns: number): string {
  const [v, unit] = ns >= 1e6 ? [ns / 1e6, 'ms'] : ns >= 1e3 ? [ns / 1e3, 'µs'] : [ns, 'ns'];
  return `${Number(v.toPrecision(3))} ${unit}`;
}

/** 1.94e11 -> "194 GFLOP/s", 1.2e12 -> "1.2 TFLOP/s": SI prefix, three significant digits, no trailing zeros. */
function si(value: number, unit: string): string {
  const k = Math.min(4, Math.floor(Math.log10(value) / 3));
  return `${Number((value / 1000 ** k).toPrecision(3))} ${['', 'k', 'M', 'G', 'T'][k]}${unit}`;
}

/** Text with every white space as a space: ICU writes a narrow no-break space before AM/PM. */
const spaced = (text: string): string => text.replace(/\s/g, ' ');

/** A table cell's count, its thousands separators dropped: "2,048" -> 2048. */
const count = (cell: string): number => Number(cell.replace(/,/g, ''));

/** 0.99253 -> "99.3%". */
const percent = (fraction: number): string => `${(100 * fraction).toFixed(1)}%`;

/** Chart.js's own account of what it drew, from the canvas's data-drawn: dataset label -> element count. */
async function drawnPoints(page: Page, chart: string): Promise<Record<string, number>> {
  const list = (await page.getAttribute(`#chart-${chart}`, 'data-drawn')) ?? '';
  const out: Record<string, number> = {};
  for (const part of list.split('; ')) {
    const m = /^(.*): (\d+) points$/.exec(part);
    if (m) out[m[1]!] = Number(m[2]);
  }
  return out;
}

/** Cell texts of a data table under a chart (its "Data" opened first: the page builds it only then) or any data table with that class. */
async function tableRows(page: Page, cls: string): Promise<string[][]> {
  const chart = /^table-(\w+)$/.exec(cls)?.[1];
  if (chart) await page.$eval(`section[data-chart="${chart}"] details`, (d) => ((d as HTMLDetailsElement).open = true)).catch(() => undefined);
  await page.waitForSelector(`table.${cls}`, { state: 'attached' });
  return page.$$eval(`table.${cls} tbody tr`, (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent ?? '')));
}

/** How many canvas pixels have exactly colour `hex`. */
async function pixelsOf(page: Page, chart: string, hex: string): Promise<number> {
  return page.$eval(`#chart-${chart}`, (canvas, hex) => {
    const c = canvas as HTMLCanvasElement;
    const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    const want = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] === want[0] && d[i + 1] === want[1] && d[i + 2] === want[2] && d[i + 3] === 255) n++;
    return n;
  }, hex);
}

type Corner = { x: number; y: number };
/** A text a canvas's last draw wrote: fillText's text and its ink box's corners in canvas pixels. */
type DrawnText = { text: string; corners: Corner[] };
/** What recordTexts keeps on the page (window.__drawn): per canvas id, the last draw's backing size and texts. */
type Drawn = Record<string, { width: number; height: number; texts: DrawnText[] }>;

/**
 * Records, from now on, the texts the page writes on each canvas with an id: every fillText's
 * text and its ink box's corners in canvas pixels (the measured actualBoundingBox, through the
 * context's transform, so rotated labels are boxed as drawn). A clearRect of the whole canvas
 * (Chart.js's clear before each draw) starts that canvas's list again, noting the canvas's size,
 * so each list holds the canvas's last draw. Installed once per page load: a second call (for
 * another chart) wraps nothing again, where wrapping twice fed one chart's texts into another's list.
 */
async function recordTexts(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __drawn?: Drawn };
    if (w.__drawn) return;
    const drawn: Drawn = {};
    w.__drawn = drawn;
    const proto = CanvasRenderingContext2D.prototype;
    const clearRect = proto.clearRect;
    const fillText = proto.fillText;
    proto.clearRect = function (this: CanvasRenderingContext2D, ...a: [number, number, number, number]) {
      const c = this.canvas;
      if (c.id && a[0] <= 0 && a[1] <= 0 && a[0] + a[2] >= c.width && a[1] + a[3] >= c.height) drawn[c.id] = { width: c.width, height: c.height, texts: [] };
      clearRect.apply(this, a);
    };
    proto.fillText = function (this: CanvasRenderingContext2D, text: string, x: number, y: number, maxWidth?: number) {
      const list = drawn[this.canvas.id]?.texts;
      if (list && text.trim() !== '') {
        const m = this.measureText(text);
        const t = this.getTransform();
        const [l, r, top, bottom] = [x - m.actualBoundingBoxLeft, x + m.actualBoundingBoxRight, y - m.actualBoundingBoxAscent, y + m.actualBoundingBoxDescent];
        list.push({ text, corners: [[l, top], [r, top], [r, bottom], [l, bottom]].map(([u, v]) => ({ x: t.a * u! + t.c * v! + t.e, y: t.b * u! + t.d * v! + t.f })) });
      }
      if (maxWidth === undefined) fillText.call(this, text, x, y);
      else fillText.call(this, text, x, y, maxWidth);
    };
  });
}

/**
 * The texts of chart `id`'s last draw, once Chart.js has fitted the canvas to its box (at most
 * `maxWidth` CSS px wide) and drawn it at that size: the canvas's CSS size is its box's and its
 * backing size is what the last full clear found. That is the signal, not the texts (a log axis
 * legitimately skips tick labels); read in the same task as it is checked. Call recordTexts first,
 * and wait for the data to be drawn (e.g. the canvas's data-drawn) before: this waits for the size.
 */
async function lastDrawnTexts(page: Page, id: string, maxWidth: number): Promise<DrawnText[]> {
  const settled = await page.waitForFunction(([id, maxWidth]) => {
    const c = document.getElementById(`chart-${id}`) as HTMLCanvasElement | null;
    const box = c?.parentElement;
    const d = (window as unknown as { __drawn: Drawn }).__drawn[`chart-${id}`];
    if (!c || !box || !d || c.clientWidth === 0 || c.clientWidth > maxWidth) return null;
    // Chart.js sizes the backing store to floor(CSS size × ratio); a card sharing its row may be 444.5 px wide.
    const [r, b] = [c.getBoundingClientRect(), box.getBoundingClientRect()];
    const fitted = Math.abs(r.width - b.width) < 0.01 && Math.abs(r.height - b.height) < 0.01 && c.width === Math.floor(r.width * devicePixelRatio + 1e-6) && c.height === Math.floor(r.height * devicePixelRatio + 1e-6);
    return fitted && d.width === c.width && d.height === c.height ? d.texts : null;
  }, [id, maxWidth] as const);
  return (await settled.jsonValue()) as DrawnText[];
}

/** Whether two convex quadrilaterals overlap (separating axis test on their edge normals; touching is apart). */
function quadsOverlap(a: Corner[], b: Corner[]): boolean {
  return [a, b].every((q) => q.every((p, i) => {
    const n = { x: p.y - q[(i + 1) % 4]!.y, y: q[(i + 1) % 4]!.x - p.x };
    const proj = (pts: Corner[]) => pts.map((c) => c.x * n.x + c.y * n.y);
    return Math.max(...proj(a)) > Math.min(...proj(b)) && Math.max(...proj(b)) > Math.min(...proj(a));
  }));
}

/** Each pair of `texts` whose ink boxes overlap, as "'a' [corners] overlaps 'b' [corners]". */
function overlappingTexts(texts: readonly DrawnText[]): string[] {
  const out: string[] = [];
  for (const [i, a] of texts.entries()) {
    for (const b of texts.slice(i + 1)) if (quadsOverlap(a.corners, b.corners)) out.push(`'${a.text}' ${JSON.stringify(a.corners)} overlaps '${b.text}' ${JSON.stringify(b.corners)}`);
  }
  return out;
}

describe('dashboard webview in Chromium', () => {
  // Chromium checked, the current sources bundled (the page under test is what `npm run package` would ship), the dashboard served.
  const chromium = chromiumSuite(shots);
  let page: Page;
  const requests: string[] = [];

  before(async () => {
    // Dates read as in Tokyo in US English, whatever this machine's zone: the expected times below are worked out by hand.
    page = await openDashboard(chromium.browser, chromium.server, 'dark', { locale: 'en-US', timezoneId: 'Asia/Tokyo' });
    page.on('request', (r) => requests.push(r.url()));
    await send(page, { type: 'init', runs: [{ id: RUN_ID, name: run.name, createdAt: run.createdAt, status: 'ok', cases: run.cases.length }], current: run, currentId: RUN_ID });
    await page.waitForFunction(() => document.querySelector('#chart-poolTimeline')?.getAttribute('data-drawn')?.includes('points'));
  });

  it('draws every timed case in the timings chart, with the fixture medians in its table', async () => {
    // test/fixtures/run.attn.yaml under --quick: its smallest prefill and decode shapes.
    assert.equal(timed.length, 2);
    assert.deepEqual(await drawnPoints(page, 'timings'), { 'p10–p90': 2, median: 2 });
    const rows = await tableRows(page, 'table-timings');
    assert.deepEqual(rows.map((r) => r[0]), ['prefill B1 N512', 'decode B1 ctx1024 p16']);
    assert.deepEqual(rows.map((r) => r[1]), timed.map((c) => threeDigits(c.medianNs)));
    await page.screenshot({ path: join(shots, 'dark.png'), fullPage: true });
  });

  it('draws throughput, roofline with the measured ceilings, memory and both pool charts', async () => {
    assert.deepEqual(await drawnPoints(page, 'throughput'), { 'compute-bound (of GFLOP/s peak)': timed.length, 'memory-bound (of GB/s peak)': timed.length });
    // One roof per CPU compute peak the run measured, each bent at the read-bandwidth ridge: 3 points.
    const peaks = run.environment.peaks as NonNullable<RunResult['environment']['peaks']>;
    assert.ok(peaks.fp32FlopsPerSec && peaks.readBytesPerSec, 'the recorded run measured the fp32 peak and read bandwidth');
    const roofs = ([['fp32 FMA peak', peaks.fp32FlopsPerSec], ['bf16 AMX peak', peaks.bf16AmxFlopsPerSec], ['bf16 AVX512-BF16 peak', peaks.avx512Bf16FlopsPerSec]] as const)
      .filter(([, v]) => v)
      .map(([name, v]) => [`${name} ${si(v!, 'FLOP/s')}`, 3]);
    assert.deepEqual(await drawnPoints(page, 'roofline'), {
      'prefill (flash_fwd)': timed.filter((c) => c.kernel === 'flash_fwd').length,
      'decode (paged_decode)': timed.filter((c) => c.kernel === 'paged_decode').length,
      ...Object.fromEntries(roofs),
    });
    await page.locator('section[data-chart="roofline"]').screenshot({ path: join(shots, 'roofline.png') });
    // The fixture's gpu_memory_utilization 0.9: the rest is of what vLLM uses; the 10 % it leaves alone is its own part.
    // Its pool is given (kv_cache.num_pages), so no activation peak is modelled and the rest is not all free.
    assert.deepEqual(await drawnPoints(page, 'memory'), { weights: 1, 'KV pool': 1, 'rest under gpu_memory_utilization 0.9: activations, reserves, free (not modelled: kv_cache.num_pages is given)': 1, 'left alone (1 − gpu_memory_utilization)': 1 });
    const memory = await tableRows(page, 'table-memory');
    assert.deepEqual(memory.slice(0, 4).map((r) => r.slice(0, 2)), [
      ['weights', (run.estimate.weightsBytes).toLocaleString('en-US')],
      ['KV pool', (run.estimate.pool.budgetBytes).toLocaleString('en-US')],
      // 0.9 × 80 GiB − weights − KV pool (2,048 pages × 2 MiB = 4 GiB); the other 8 GiB vLLM leaves alone.
      ['rest under gpu_memory_utilization 0.9: activations, reserves, free (not modelled: kv_cache.num_pages is given)', (Math.round(0.9 * 80 * 1024 ** 3 - run.estimate.weightsBytes - 2048 * 2 * 1024 ** 2)).toLocaleString('en-US')],
      ['left alone (1 − gpu_memory_utilization)', (Math.round(0.1 * 80 * 1024 ** 3)).toLocaleString('en-US')],
    ]);
    const pool = run.pool!;
    const n = pool.samples.length;
    // The recorded run has no preemptions: that series (and its axis) is left out. Over 400 samples, 400 are drawn.
    assert.ok(n > 400 && pool.samples.every((s) => s.preempted === 0) && pool.samples.some((s) => s.pagesCached > 0));
    assert.deepEqual(await drawnPoints(page, 'poolTimeline'), {
      'held: tokens': 400,
      'held: internal waste': 400,
      'cached (evictable): to the dashed line': 400,
      free: 400,
      'fragmentation %': 400,
    });
    // The run's summary above the chart, percentages to one decimal.
    const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
    const sum = pool.summary;
    assert.equal(await page.textContent('#summary-poolTimeline'), `peak occupancy ${pct(sum.peakOccupancy)} held (mean ${pct(sum.meanOccupancy)}) · ${sum.preemptions} preemptions · prefix-cache hit rate ${pct(sum.prefixHitRate)} · ${sum.completed} of ${sum.requests} requests completed`);
    // Cached pages are free for allocation (vLLM's count): free + cached = pool (2,048 pages) − held, in every sample.
    const rows = await tableRows(page, 'table-poolTimeline');
    assert.equal(rows.length, n, 'the table lists every sample');
    const pool0 = rows;
    for (const [t, held, cached, free, forAllocation] of pool0) {
      assert.equal(count(cached) + count(free), count(forAllocation), `t=${t}`);
      assert.equal(count(forAllocation), 2048 - count(held), `t=${t}: free for allocation = 2,048 − ${held} held`);
    }
    await page.locator('section[data-chart="poolTimeline"]').screenshot({ path: join(shots, 'pool-timeline.png') });
    assert.deepEqual(await drawnPoints(page, 'poolBaselines'), { 'useful KV memory': 3, 'internal fragmentation': 3, 'external fragmentation': 3 });
    const baselines = await tableRows(page, 'table-poolBaselines');
    const useful = (name: string) => run.pool!.baselines.find((b) => b.name === name)!.usefulTokenFraction;
    assert.deepEqual(baselines.map((r) => r.slice(0, 2)), [
      ['paged (page_size 16)', percent(run.pool!.summary.usefulTokenFraction)],
      ['contiguous, max_model_len', percent(useful('contiguous_max_model_len'))],
      ['contiguous, prompt+output', percent(useful('contiguous_prompt_plus_output'))],
    ]);
    // The latency view: both CDFs as recorded, each from its step at 0 (webview/latency.ts ecdfSteps: one point more), and the percentile table with its units (p99 TTFT 0.114 s: in ms).
    const latency = run.pool!.latency!;
    assert.deepEqual(await drawnPoints(page, 'latencyCdf'), { TTFT: latency.ttftCdf.length + 1, TPOT: latency.tpotCdf.length + 1 });
    const percentiles = await tableRows(page, 'table-latencyCdf');
    assert.equal(percentiles[1]![0], 'TTFT');
    assert.equal(percentiles[1]![4], `${Number((latency.ttft!.p99 * 1000).toPrecision(3))} ms`);
    // The fixture's summary: peakConcurrency 16, peakWaiting 0, each a two-point dashed line over the samples' span.
    assert.deepEqual(await drawnPoints(page, 'queue'), { running: n, waiting: n, 'waiting, preempted': n, 'peak running 16 (every step, not sampled)': 2, 'peak waiting 0 (every step, not sampled)': 2 });
  });

  it('names each chart by what it shows and its key figures, described by its summary line, its details the Data table (s33 newcomer-ed 5: "weights: 1 points")', async () => {
    const aria = async (id: string): Promise<string> => (await page.getAttribute(`#chart-${id}`, 'aria-label')) ?? '';
    // The fixture's estimate by hand: weights 16,060,522,496 B = 14.96 GiB ("15 GiB" to three
    // digits); KV pool 2,048 pages × 2 MiB = 4 GiB; of 0.9 × 80 GiB, 72 − 14.96 − 4 = 53.04 GiB
    // the rest (activations, reserves, free: the pool is given); 0.1 × 80 = 8 GiB left alone.
    const memory = await aria('memory');
    for (const part of ['Memory breakdown (estimate) of device 80 GiB', 'weights 15 GiB', 'KV pool 4 GiB', 'rest under gpu_memory_utilization 0.9: activations, reserves, free (not modelled: kv_cache.num_pages is given) 53 GiB', 'left alone (1 − gpu_memory_utilization) 8 GiB']) assert.ok(memory.includes(part), `${part} in "${memory}"`);
    assert.doesNotMatch(memory, /points/);
    // The recorded latency (test/fixtures/run.ts): TTFT p50 18.33 ms, p99 114.1 ms; TPOT p50 6.826 ms, p99 7.915 ms.
    const latency = await aria('latencyCdf');
    for (const part of ['TTFT p50 18.3 ms, p99 114 ms', 'TPOT p50 6.83 ms, p99 7.92 ms']) assert.ok(latency.includes(part), `${part} in "${latency}"`);
    // The pool summary: peak occupancy 0.5908 of 2,048 pages, no preemption.
    const pool = await aria('poolTimeline');
    for (const part of ['KV page pool of 2,048 pages', 'peak occupancy 59.1%', '0 preemptions']) assert.ok(pool.includes(part), `${part} in "${pool}"`);
    // The baselines: each allocation's useful share, its fragmentation, its peak concurrency (16 paged).
    assert.match(await aria('poolBaselines'), /^Paged pool vs contiguous allocation, % of reserved KV memory: paged \(page_size 16\): useful 99\.3%, internal fragmentation 0\.7%, external fragmentation none \(paged\), peak concurrency 16; contiguous, max_model_len: /);
    // Described by the summary line above the chart; its details, the Data table under it (collapsed: aria-details, not read as the description).
    for (const id of ['memory', 'poolTimeline', 'latencyCdf', 'poolBaselines']) {
      const [details, describedBy] = await page.$eval(`#chart-${id}`, (c) => [c.getAttribute('aria-details'), c.getAttribute('aria-describedby')]);
      assert.equal(await page.$eval(`#${details}`, (d) => [d.tagName, d.querySelector('summary')?.textContent, d.closest('section')?.getAttribute('data-chart')].join(' ')), `DETAILS Data ${id}`);
      if (id === 'poolBaselines') assert.equal(describedBy, null, 'no summary line');
      else assert.equal(describedBy, `summary-${id}`);
    }
    // Each Data disclosure named by its chart (s41 newcomer-ed F6 c: nine read "Data" alike).
    assert.equal(await page.getAttribute('#data-poolTimeline summary', 'aria-label'), 'Data: Page pool');
    assert.equal(await page.getAttribute('#data-queue summary', 'aria-label'), 'Data: Queue');
    // The status badge read as "status: ok", not a bare "ok" after the heading (s41 newcomer-ed F6 d).
    assert.match(await page.locator('header .title').ariaSnapshot(), /- text: "?status: ok"?$/m);
    // One tab list: vscode-tabs' header slot had role=tablist inside its tablist box (s41 newcomer-ed F6 e).
    const tablists = (await page.locator('vscode-tabs').ariaSnapshot()).match(/- tablist/g) ?? [];
    assert.equal(tablists.length, 1);
    // The selects' inner comboboxes named (s41 newcomer-ed F6 a: the host's aria-label did not reach them).
    for (const [id, name] of [['compare-a', 'Run A (baseline)'], ['compare-b', 'Run B'], ['sweep-metric', 'Figure to chart']]) {
      assert.equal(await page.$eval(`#${id}`, (e) => e.shadowRoot?.querySelector('[role="combobox"]')?.getAttribute('aria-label') ?? null), name, id);
    }
  });

  it('redraws in the new colours when the theme changes (light, high contrast)', async () => {
    const darkBlue = THEMES.dark.vars['--vscode-charts-blue'];
    const lightBlue = THEMES.light.vars['--vscode-charts-blue'];
    assert.ok((await pixelsOf(page, 'timings', darkBlue)) > 50, 'dark theme: bar borders in --vscode-charts-blue');
    assert.equal(await pixelsOf(page, 'timings', lightBlue), 0);
    await setTheme(page, 'light');
    await page.waitForFunction(() => document.querySelector('#chart-timings')?.getAttribute('data-theme') === 'light');
    assert.ok((await pixelsOf(page, 'timings', lightBlue)) > 50, 'light theme: bars redrawn in the light --vscode-charts-blue');
    assert.equal(await pixelsOf(page, 'timings', darkBlue), 0, 'no pixel left in the dark theme colour');
    await page.screenshot({ path: join(shots, 'light.png'), fullPage: true });
    await setTheme(page, 'highContrast');
    await page.waitForFunction(() => document.querySelector('#chart-timings')?.getAttribute('data-theme') === 'high-contrast');
    assert.ok((await pixelsOf(page, 'timings', THEMES.highContrast.vars['--vscode-charts-blue'])) > 50);
    await page.screenshot({ path: join(shots, 'high-contrast.png'), fullPage: true });
    // The Compare pickers in each theme's own dropdown colours (s51: dark in the light screenshot, the harness lacked them):
    // the face's background and text as the theme gives them, its text 4.5:1 or more against its background (WCAG 2.1 1.4.3).
    for (const theme of ['light', 'highContrast', 'highContrastLight', 'dark'] as const) {
      await setTheme(page, theme);
      const face = await page.$eval('#compare-a', (sel) => {
        const f = sel.shadowRoot?.querySelector('.select-face');
        const cs = f ? getComputedStyle(f) : null;
        return { background: cs?.backgroundColor ?? '', color: cs?.color ?? '' };
      });
      const hex = (c: string) => `#${(c.match(/\d+/g) ?? []).slice(0, 3).map((v) => Number(v).toString(16).padStart(2, '0')).join('')}`;
      const vars = THEMES[theme].vars as Record<string, string>;
      assert.deepEqual([hex(face.background), hex(face.color)], [vars['--vscode-settings-dropdownBackground'], vars['--vscode-settings-dropdownForeground']], theme);
      const lum = (c: string) => {
        const [r, g, b] = (c.match(/\d+/g) ?? []).slice(0, 3).map((v) => Number(v) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
        return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
      };
      const [hi, lo] = [lum(face.background), lum(face.color)].sort((x, y) => y - x);
      assert.ok((hi! + 0.05) / (lo! + 0.05) >= 4.5, `${theme}: picker text ${face.color} on ${face.background}`);
    }
    await page.waitForFunction(() => document.querySelector('#chart-timings')?.getAttribute('data-theme') === 'dark');
  });

  it('loads nothing but its own files, and the CSP blocks injected inline script', async () => {
    const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
    assert.match(csp ?? '', /default-src 'none'/);
    const outcome = await page.evaluate(async () => {
      const violation = new Promise<string>((resolve) => document.addEventListener('securitypolicyviolation', (e) => resolve(e.effectiveDirective), { once: true }));
      const s = document.createElement('script');
      s.textContent = 'window.__injected = true;';
      document.body.append(s);
      const directive = await violation;
      return { directive, ran: (window as unknown as { __injected?: boolean }).__injected === true };
    });
    assert.equal(outcome.ran, false, 'the inline script must not run');
    assert.equal(outcome.directive, 'script-src-elem');
    assert.ok(requests.every((u) => u.startsWith(chromium.server.origin) || u.startsWith('data:')), `remote loads: ${requests.join(', ')}`);
  });

  it('in a narrow panel the kernel charts stay inside their cards (screenshots narrow-*.png)', async () => {
    await page.setViewportSize({ width: 340, height: 900 });
    try {
      await page.waitForFunction(() => (document.querySelector('#chart-timings') as HTMLCanvasElement | null)!.clientWidth < 330);
      for (const id of ['timings', 'throughput', 'roofline']) {
        const [canvas, card] = await page.$eval(`section[data-chart="${id}"]`, (c) => [c.querySelector('canvas')!.getBoundingClientRect().right, c.getBoundingClientRect().right]);
        assert.ok(canvas <= card, `${id}: canvas ends at ${canvas}, its card at ${card}`);
        await page.locator(`section[data-chart="${id}"]`).screenshot({ path: join(shots, `narrow-${id}.png`) });
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('in a 200 px panel the header wraps the run\'s name at its separators, never inside the file name (s29 newcomer-ed 10: "llama-3.1- / 8b.attn.yaml")', async () => {
    const name = 'llama-3.1-8b · llama-3.1-8b.attn.yaml · full';
    await page.setViewportSize({ width: 200, height: 900 });
    try {
      await send(page, { type: 'showRun', run: { ...run, name }, id: RUN_ID });
      await page.waitForFunction((n) => document.querySelector('#run-title')?.textContent === n, name);
      assert.equal(await page.getAttribute('#run-title', 'title'), name);
      // Each part on one line (one client rect), inside the header.
      const parts = await page.$$eval('#run-title .title-part', (els) => els.map((e) => ({ text: e.textContent, lines: e.getClientRects().length, right: e.getBoundingClientRect().right, page: document.documentElement.clientWidth })));
      assert.deepEqual(parts.map((p) => p.text), ['llama-3.1-8b', 'llama-3.1-8b.attn.yaml', 'full']);
      for (const p of parts) {
        assert.equal(p.lines, 1, `${p.text} on ${p.lines} lines`);
        assert.ok(p.right <= p.page, `${p.text} ends at ${p.right}, the page at ${p.page}`);
      }
      await page.locator('header.toolbar').screenshot({ path: join(shots, 'narrow-header.png') });
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
      await send(page, { type: 'showRun', run, id: RUN_ID });
    }
  });

  it('the Run tab badges the SLO verdict beside the run status: an overloaded run at 2.8 % against the default 90 % reads "SLO not met" (s42 newcomer-ed F7)', async () => {
    const judged = (share: number): RunResult => ({ ...run, pool: { ...run.pool!, latency: { ...run.pool!.latency!, slo: { ttftMs: 1000, tpotMs: 100 }, sloAttainment: share } } });
    await send(page, { type: 'showRun', run: judged(0.028), id: RUN_ID });
    await page.waitForFunction(() => document.querySelector('#run-slo')?.textContent === 'SLO not met');
    // In place of the run's "ok": beside "SLO not met" its grey badge read first, as the verdict (s44 newcomer-ed F19); the text stays for the e2e suite.
    assert.equal(await page.textContent('#run-status'), 'ok');
    assert.equal(await page.isVisible('#run-status'), false);
    assert.equal(await page.getAttribute('#run-slo', 'title'), '2.8% of requests meet the SLO; the SLO asks 90% (slo.attainment unset: the default 0.9): not met (modelled)');
    // The newcomer's RTX 4090 run: 8.5 % meet, 7.98 req/s offered and 3.84 served, its queue growing (PoolLoad.overloaded): said on the badge.
    const load = { source: 'workload' as const, timeScale: 1, offeredRequestsPerSec: 7.98, servedRequestsPerSec: 3.84, waitingAtLastArrival: 180, overloaded: true };
    await send(page, { type: 'showRun', run: { ...judged(0.085), pool: { ...judged(0.085).pool!, load } }, id: RUN_ID });
    await page.waitForFunction(() => document.querySelector('#run-slo')?.textContent === 'SLO not met · overloaded');
    assert.match((await page.getAttribute('#run-slo', 'title'))!, /^8\.5% of requests meet the SLO; .*; overloaded: the server did not keep up with the offered load, its queue grew through the arrivals \(modelled\)$/);
    await page.locator('header.toolbar').screenshot({ path: join(shots, 'slo-badge-overloaded.png') });
    await send(page, { type: 'showRun', run: judged(0.95), id: RUN_ID });
    await page.waitForFunction(() => document.querySelector('#run-slo')?.textContent === 'SLO met');
    // No SLO: no verdict badge.
    await send(page, { type: 'showRun', run: { ...run, pool: { ...run.pool!, latency: { ...run.pool!.latency!, slo: undefined, sloAttainment: undefined } } }, id: RUN_ID });
    await page.waitForFunction(() => (document.querySelector('#run-slo') as HTMLElement | null)?.hidden === true);
    assert.equal(await page.isVisible('#run-status'), true, 'no verdict: the run\'s status shows');
    await send(page, { type: 'showRun', run, id: RUN_ID });
  });

  // s45 newcomer-ed N3: the CLI printed "Cannot tell whether the server keeps up" for this dp 8 run; the tab showed only "ok" and "SLO met".
  it('the Run tab badges whether the server kept up beside the SLO verdict, with the CLI\'s line: cannot tell (and the line beneath), kept up, overloaded', async () => {
    // examples/llama-3.1-8b.attn.yaml at dp 8, 300 requests/s, 2,000 requests: in flight 811 -> 1,613 grew by more than 2 · √(2,000 / 2) = 63.2.
    const grown = { source: 'workload' as const, timeScale: 1, offeredRequestsPerSec: 299.88, servedRequestsPerSec: 170.67, waitingAtLastArrival: 10, waitingAtMiddleArrival: 6, inFlightAtLastArrival: 1613, inFlightAtMiddleArrival: 811, overloaded: false };
    const sim = (load: NonNullable<RunResult['pool']>['load']): RunResult => ({ ...run, kind: 'simulate', cases: [], pool: { ...run.pool!, load, summary: { ...run.pool!.summary, requests: 2000, completed: 2000, rejected: 0 }, latency: { ...run.pool!.latency!, slo: { ttftMs: 1000, tpotMs: 100 }, sloAttainment: 1 } } });
    await send(page, { type: 'showRun', run: sim(grown), id: RUN_ID });
    await page.waitForFunction(() => document.querySelector('#run-keeps-up')?.textContent === 'cannot tell if it keeps up');
    assert.equal(await page.textContent('#run-slo'), 'SLO met');
    const title = (await page.getAttribute('#run-keeps-up', 'title')) ?? '';
    assert.match(title, /^Cannot tell whether the server keeps up: at the last arrival 10 of the 2,000 requests were still waiting, 6 at the middle arrival, but the requests in flight \(waiting or running\) grew from 811 at the middle arrival to 1,613, by more than 63 /);
    assert.equal(await page.isVisible('#run-keeps-up-note'), true);
    assert.equal(await page.textContent('#run-keeps-up-note'), title);
    await page.screenshot({ path: join(shots, 'keeps-up-cannot-tell.png'), clip: { x: 0, y: 0, width: 1280, height: 220 } });
    // In flight 79 -> 114 at 24 requests/s (grew 35 <= 63): kept up, the queue's line on hover, nothing beneath.
    await send(page, { type: 'showRun', run: sim({ ...grown, offeredRequestsPerSec: 23.99, waitingAtLastArrival: 2, waitingAtMiddleArrival: 1, inFlightAtLastArrival: 114, inFlightAtMiddleArrival: 79 }), id: RUN_ID });
    await page.waitForFunction(() => document.querySelector('#run-keeps-up')?.textContent === 'kept up');
    assert.match((await page.getAttribute('#run-keeps-up', 'title')) ?? '', /^Kept up: at the last arrival 2 of the 2,000 requests \(0\.1%\) were still waiting, 1 at the middle arrival: the queue grew by 1, within 63 /);
    assert.equal(await page.isVisible('#run-keeps-up-note'), false);
    // μ 251 measured under 300 offered: overloaded, whatever the queue showed.
    await send(page, { type: 'showRun', run: sim({ ...grown, saturatedRequestsPerSec: 251 }), id: RUN_ID });
    await page.waitForFunction(() => document.querySelector('#run-keeps-up')?.textContent === 'overloaded');
    assert.match((await page.getAttribute('#run-keeps-up', 'class')) ?? '', /status-load-overloaded/);
    // A capacity search's answer kept up, but one of its three rates did not: the badge counts the rates (it said "kept up"), each rate's line on hover.
    const kept = sim({ ...grown, offeredRequestsPerSec: 23.99, waitingAtLastArrival: 2, waitingAtMiddleArrival: 1, inFlightAtLastArrival: 114, inFlightAtMiddleArrival: 79 });
    const point = (rate: number, keepsUp: boolean) => ({ rate, scale: rate / 24, p99TtftS: 0.5, p99TpotS: 0.05, goodputRequestsPerSec: rate, sloAttainment: 1, keepsUp, meets: keepsUp });
    const capacity = { kind: 'modelled' as const, slo: { ttftMs: 1000, tpotMs: 100 }, attainmentTarget: 0.9, tolerance: 0.05, points: [point(24, true), point(48, false), point(34, true)], maxRate: 34, maxScale: 34 / 24, saturatedRate: 36 };
    await send(page, { type: 'showRun', run: { ...kept, pool: { ...kept.pool!, capacity } }, id: RUN_ID });
    await page.waitForFunction(() => document.querySelector('#run-keeps-up')?.textContent === 'overloaded (1 of 3 rates)');
    const rates = ((await page.getAttribute('#run-keeps-up', 'title')) ?? '').split('\n');
    assert.match(rates[0]!, /^At the highest rate meeting the SLO, 34\.0 requests\/s \(the run shown\): Kept up: /);
    assert.deepEqual(rates.slice(1).map((l) => l.split(':')[0]), ['24.0 requests/s', '48.0 requests/s', '34.0 requests/s']);
    // The fixture's benchmark records no load: no badge.
    await send(page, { type: 'showRun', run, id: RUN_ID });
    await page.waitForFunction(() => (document.querySelector('#run-keeps-up') as HTMLElement | null)?.hidden === true);
  });

  // s52 newcomer-ed: in high-contrast dark VS Code's badge background is the page's black, so "ok" / "kept up" lost their pill.
  it('outlines the status chips with the theme\'s contrastBorder in high contrast; elsewhere their border is transparent', async () => {
    const chip = (): Promise<{ width: string; color: string; background: string }> =>
      page.$eval('#run-keeps-up', (e) => {
        const cs = getComputedStyle(e);
        return { width: cs.borderTopWidth, color: cs.borderTopColor, background: cs.backgroundColor };
      });
    const keptUp = { source: 'workload' as const, timeScale: 1, offeredRequestsPerSec: 23.99, servedRequestsPerSec: 23.99, waitingAtLastArrival: 2, waitingAtMiddleArrival: 1, inFlightAtLastArrival: 114, inFlightAtMiddleArrival: 79, overloaded: false };
    await send(page, { type: 'showRun', run: { ...run, kind: 'simulate', cases: [], pool: { ...run.pool!, load: keptUp, summary: { ...run.pool!.summary, requests: 2000, completed: 2000, rejected: 0 } } }, id: RUN_ID });
    await page.waitForFunction(() => document.querySelector('#run-keeps-up')?.textContent === 'kept up');
    // Dark+ sets no contrastBorder: a transparent 1px border, the chip's pill its badge background.
    assert.deepEqual(await chip(), { width: '1px', color: 'rgba(0, 0, 0, 0)', background: 'rgba(0, 0, 0, 0)' });
    await setTheme(page, 'highContrast');
    // VS Code 1.100's hc-black badge colours (its colour registry: badge.background #000000, badge.foreground #ffffff): the page's own black.
    await page.evaluate(() => {
      document.documentElement.style.setProperty('--vscode-badge-background', '#000000');
      document.documentElement.style.setProperty('--vscode-badge-foreground', '#ffffff');
    });
    // THEMES.highContrast's --vscode-contrastBorder, #6fc3df.
    assert.deepEqual(await chip(), { width: '1px', color: 'rgb(111, 195, 223)', background: 'rgb(0, 0, 0)' });
    await page.locator('header.toolbar').screenshot({ path: join(shots, 'chips-high-contrast.png') });
    await setTheme(page, 'dark');
    await send(page, { type: 'showRun', run, id: RUN_ID });
    await page.waitForFunction(() => (document.querySelector('#run-keeps-up') as HTMLElement | null)?.hidden === true);
  });

  it('exports: PNG posts a PNG data URL, CSV and JSON post the run id', async () => {
    await page.click('#btn-export-png');
    const [png] = (await waitForPosted(page, 'savePng')) as Array<{ name: string; dataUrl: string }>;
    assert.equal(png!.name, run.name);
    assert.match(png!.dataUrl, /^data:image\/png;base64,iVBORw0KGgo/);
    // Its width (IHDR, bytes 16-19): at least 1,200 CSS px at this page's device-pixel ratio 1,
    // whatever the panel's width (a narrow one exported 561 px, the pool chart's title cut at both sides).
    const bytes = Buffer.from(png!.dataUrl.slice('data:image/png;base64,'.length), 'base64');
    writeFileSync(join(shots, 'export.png'), bytes);
    assert.ok(bytes.readUInt32BE(16) >= 1200, `PNG ${bytes.readUInt32BE(16)} px wide`);
    await page.click('#btn-export-csv');
    await page.click('#btn-export-json');
    const exports = await waitForPosted(page, 'export', 2);
    assert.deepEqual(exports, [{ type: 'export', id: RUN_ID, format: 'csv' }, { type: 'export', id: RUN_ID, format: 'json' }]);
  });

  it('restores its state after a reload without the extension resending the run', async () => {
    await page.reload();
    await page.waitForFunction(() => document.querySelector('#chart-timings')?.getAttribute('data-drawn')?.includes('points'));
    await setTheme(page, 'dark'); // VS Code sets the theme on every (re)load of a webview
    assert.deepEqual(await drawnPoints(page, 'timings'), { 'p10–p90': timed.length, median: timed.length });
    assert.equal(await page.textContent('#run-title'), run.name);
  });

  it('updates live while a run streams, then shows the finished run', async () => {
    await send(page, { type: 'runStarted', name: 'streaming.attn.yaml', total: 3, profile: run.profile, estimate: run.estimate });
    for (const [i, c] of run.cases.slice(0, 2).entries()) {
      await send(page, { type: 'case', case: c });
      await send(page, { type: 'progress', done: i + 1, total: 3, message: 'case' });
    }
    await send(page, { type: 'poolSamples', samples: run.pool!.samples.slice(0, 2) });
    await send(page, { type: 'poolSamples', samples: run.pool!.samples.slice(2, 5) });
    await page.waitForFunction(() => document.querySelector('#chart-poolTimeline')?.getAttribute('data-drawn')?.includes('held: tokens: 5 points'));
    // Charts redraw at most every 250 ms while a run streams: wait for the timings chart's second case too.
    await page.waitForFunction(() => document.querySelector('#chart-timings')?.getAttribute('data-drawn')?.includes('median: 2 points'));
    assert.match((await page.textContent('#summary-poolTimeline')) ?? '', /^so far: peak occupancy /);
    assert.deepEqual(await drawnPoints(page, 'timings'), { 'p10–p90': 2, median: 2 });
    assert.equal(await page.getAttribute('#run-progress', 'value'), String(2 / 3));
    assert.equal(await page.getAttribute('#btn-cancel', 'disabled'), null, 'Cancel is enabled while running');
    assert.equal(await page.getAttribute('#btn-cancel', 'aria-disabled'), 'false');
    await page.screenshot({ path: join(shots, 'streaming.png'), fullPage: true });
    await page.click('#btn-cancel');
    await waitForPosted(page, 'cancelRun');
    // The extension's Cancel answers runCancelling (extension/runInFlight.ts cancel): "Cancelling…", disabled, until the
    // run ends (s47: the page offered "Cancel" through the runner's ~5 s wind-down while the status bar said cancelling…).
    await send(page, { type: 'runCancelling' });
    await page.waitForFunction(() => document.querySelector('#btn-cancel')?.textContent === 'Cancelling…');
    assert.notEqual(await page.getAttribute('#btn-cancel', 'disabled'), null);
    assert.equal(await page.getAttribute('#btn-cancel', 'aria-disabled'), 'true');
    assert.equal(await page.textContent('#run-status'), 'cancelling…');
    // The finish is saved in the task that shows it: when the status changes, the persisted state
    // (what a window reload restores) already has it. (Saved after the drawing or when idle, a
    // reload of the workbench right after the finish showed restored the "running" state.)
    const saved = await page.evaluate((finish) => new Promise<string | undefined>((resolve) => {
      const status = document.querySelector('#run-status')!;
      new MutationObserver((_, observer) => {
        if (status.textContent !== 'cancelled') return;
        observer.disconnect();
        resolve((JSON.parse(sessionStorage.getItem('vscode-state') ?? '{}') as { model?: { current?: { status?: string } } }).model?.current?.status);
      }).observe(status, { childList: true, characterData: true, subtree: true });
      window.postMessage(finish, '*');
    }), { type: 'runFinished', run: { ...run, name: 'streaming.attn.yaml', status: 'cancelled', cases: run.cases.slice(0, 2) }, id: null });
    assert.equal(saved, 'cancelled', 'the state saved when the finish shows');
    // What it kept, in the toast's words (core/format benchCancelledText): the 2 cases, saved.
    assert.equal(await page.textContent('#run-cancelled'), 'Cancelled after 2 case(s); the partial run is saved.');
    assert.equal(await page.textContent('#btn-cancel'), 'Cancel');
    await page.reload();
    await page.waitForFunction(() => document.querySelector('#run-status')?.textContent === 'cancelled');
    await setTheme(page, 'dark');
    assert.notEqual(await page.getAttribute('#btn-cancel', 'disabled'), null);
    assert.equal(await page.getAttribute('#btn-cancel', 'aria-disabled'), 'true', 'exposed as disabled when nothing runs (s41 newcomer-ed F6 b)');
  });

  // s34 newcomer-ed 1: with the editor busy (the user typing), messages queue up in front of the
  // page; it drew the header and persisted per message and showed the finish 33-116 s late, saying
  // "running 52%" meanwhile. A backlog must be reduced at once and drawn once, the finish in it.
  it('a backlog of 1,000 progress and sample messages and the finish is drawn once, with the finish, and acknowledged once', async () => {
    const fresh = await openDashboard(chromium.browser, chromium.server, 'dark');
    try {
      await send(fresh, { type: 'runStarted', name: 'backlog.attn.yaml', total: 1000, kind: 'simulate', profile: run.profile, estimate: run.estimate });
      await fresh.waitForFunction(() => document.querySelector('#run-status')?.textContent === 'running');
      // The frames the browser draws meanwhile (it may draw some while the backlog is handled). A
      // string: a named function in the test's source would reach the page wrapped in tsx's __name.
      await fresh.evaluate('window.__frames = 0; requestAnimationFrame(function frame() { window.__frames++; if (!window.__framesDone) requestAnimationFrame(frame); });');
      const drawn = await fresh.evaluate((finish) => new Promise<{ progressWrites: number; frames: number; shown: string; acks: number }>((resolve) => {
        const posted = (window as unknown as { __posted: Array<{ type: string }> }).__posted;
        const acksBefore = posted.filter((m) => m.type === 'streamDrawn').length;
        let progressWrites = 0;
        new MutationObserver((records) => (progressWrites += records.length)).observe(document.querySelector('#run-progress')!, { attributes: true, attributeFilter: ['value'] });
        // One task: what the page finds queued when the editor gets to it.
        for (let i = 1; i <= 1000; i++) {
          window.postMessage({ type: 'poolSamples', samples: [] }, '*');
          window.postMessage({ type: 'progress', done: i, total: 1000, message: `page pool: ${i / 10}% of 40,000 requests` }, '*');
        }
        window.postMessage(finish, '*');
        // Two frames after the finish is handled, its render (a frame, then a task) has run.
        window.addEventListener('message', (e) => {
          if ((e.data as { type?: string }).type !== 'runFinished') return;
          requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => {
            const w = window as unknown as { __frames: number; __framesDone: boolean };
            w.__framesDone = true;
            resolve({ progressWrites, frames: w.__frames, shown: document.querySelector('#run-status')!.textContent ?? '', acks: posted.filter((m) => m.type === 'streamDrawn').length - acksBefore });
          }, 0)));
        });
      }), { type: 'runFinished', run: { ...run, name: 'backlog.attn.yaml' }, id: null });
      assert.equal(drawn.shown, 'ok', 'the finish is on screen');
      // The header is drawn at most once a frame: the progress bar's value written once per frame
      // at most (once per message, it was written ~1,001 times), and the page asks the extension
      // for the next batch at most once a frame.
      assert.ok(drawn.progressWrites <= drawn.frames, `${drawn.progressWrites} progress writes in ${drawn.frames} frames`);
      assert.ok(drawn.acks >= 1 && drawn.acks <= drawn.frames, `${drawn.acks} streamDrawn in ${drawn.frames} frames`);
    } finally {
      await fresh.close();
    }
  });

  // s31 newcomer: the roofline drew its roofs only when the run ended; the runner measures the peaks before any kernel.
  it('draws the roofline\'s roofs from the runner\'s environment message on, before the first case (roofline-streaming.png)', async () => {
    const fresh = await openDashboard(chromium.browser, chromium.server, 'dark', { locale: 'en-US', timezoneId: 'Asia/Tokyo' });
    try {
      await recordTexts(fresh);
      await fresh.setViewportSize({ width: 1000, height: 900 });
      await send(fresh, { type: 'runStarted', name: 'streaming.attn.yaml', total: 3, profile: run.profile, estimate: run.estimate });
      await send(fresh, { type: 'progress', done: 0, total: 3, message: 'measuring this machine (FMA peak, bandwidth)' });
      await send(fresh, { type: 'environment', environment: run.environment });
      await send(fresh, { type: 'progress', done: 1, total: 3, message: 'prefill B1 N512: timing' });
      // The roofs in the canvas's account of what it drew, no case yet.
      await fresh.waitForFunction(() => /FMA peak/.test(document.querySelector('#chart-roofline')?.getAttribute('data-drawn') ?? ''));
      const texts = (await lastDrawnTexts(fresh, 'roofline', 980)).map((t) => t.text);
      // The recorded run's peaks (test/fixtures/run.ts), written as the page's labels write them.
      const peaks = run.environment.peaks!;
      assert.ok(texts.includes(`fp32 FMA peak ${si(peaks.fp32FlopsPerSec!, 'FLOP/s')}`), texts.join(' | '));
      assert.ok(texts.includes(`read bandwidth ${si(peaks.readBytesPerSec!, 'B/s')}`), texts.join(' | '));
      assert.ok(texts.includes('Roofline (roofs: this machine’s measured peaks)'), texts.join(' | '));
      assert.equal(await fresh.textContent('#run-status'), 'running');
      await fresh.locator('section[data-chart="roofline"]').screenshot({ path: join(shots, 'roofline-streaming.png') });
      // The first case lands among the roofs.
      await send(fresh, { type: 'case', case: timed[0] });
      await fresh.waitForFunction(() => /: 1 points/.test(document.querySelector('#chart-roofline')?.getAttribute('data-drawn') ?? ''));
    } finally {
      await fresh.close();
    }
  });

  it('a benchmark cancelled before any kernel finished says so, and shows no SIMD path the editor never learned (it said "unknown")', async () => {
    // What the extension saves when the runner is cancelled before its first case: partialRun with no cases.
    const cancelled = { ...partialRun({ name: 'early.attn.yaml', kind: 'bench', toolVersion: '0.1.0', profile: run.profile, estimate: run.estimate, cases: [], status: 'cancelled' }), createdAt: '2026-12-03T08:55:36.023Z' };
    await send(page, { type: 'runFinished', run: cancelled, id: null });
    await page.waitForFunction(() => document.querySelector('#run-title')?.textContent?.includes('early.attn.yaml'));
    assert.equal(await page.textContent('#run-status'), 'cancelled');
    const line = (await page.textContent('#run-environment')) ?? '';
    const env = cancelled.environment;
    // The time as the reader reads it (08:55:36 UTC is 17:55:36 in Tokyo, UTC+9), the ISO value in its tooltip.
    assert.equal(spaced(line), `${env.cpuModel} · ${env.cpuCores} cores · cancelled before any kernel finished · Dec 3, 2026, 5:55:36 PM`);
    assert.equal(await page.textContent('#run-cancelled'), 'Cancelled before its first case: nothing was measured, nothing is saved in History.');
    assert.equal(await page.getAttribute('#run-environment time', 'title'), cancelled.createdAt);
  });

  it('a run whose kernels ran in WebAssembly says so in its header: which build, why, and that its timings are not the native speed', async () => {
    const reason = 'no native addon found: `npm run build:native` builds it (needs g++, make and python3) (tried /x/native/build/Release/attnscope_native.node)';
    const wasm: RunResult = { ...run, name: 'wasm.attn.yaml', environment: { ...run.environment, simd: 'simd128', nativeBuild: 'wasm', nativeBuildReason: reason } };
    await send(page, { type: 'runFinished', run: wasm, id: null });
    await page.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'wasm.attn.yaml');
    const env = wasm.environment;
    assert.ok(spaced((await page.textContent('#run-environment')) ?? '').startsWith(`${env.cpuModel} · ${env.cpuCores} cores · simd128 · WebAssembly, 1 thread · `));
    assert.equal(await page.isVisible('#run-build'), true);
    // The reason without the files tried (the log has them).
    assert.equal(await page.textContent('#run-build'), 'Its kernels ran single-threaded in WebAssembly, not in the native addon: these timings are not the native kernels\' speed. Why: no native addon found: `npm run build:native` builds it (needs g++, make and python3).');
    // The same run from the addon: the header names it, and no note.
    await send(page, { type: 'runFinished', run: { ...wasm, name: 'native.attn.yaml', environment: { ...run.environment, nativeBuild: 'native' } }, id: null });
    await page.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'native.attn.yaml');
    assert.ok(spaced((await page.textContent('#run-environment')) ?? '').startsWith(`${env.cpuModel} · ${env.cpuCores} cores · ${run.environment.simd} · native addon · `));
    assert.equal(await page.isVisible('#run-build'), false);
  });

  // s33 newcomer-cli 2 and 6: a run did not say which trace it replayed, nor that it was far above capacity.
  it('a simulation\'s header names the trace it replayed and, when the server did not keep up, that it is overloaded', async () => {
    const load = {
      source: 'trace' as const, timeScale: 2, offeredRequestsPerSec: 100, servedRequestsPerSec: 28.7, waitingAtLastArrival: 700_000, overloaded: true,
      trace: { path: 'big.jsonl', resolvedPath: '/w/big.jsonl', format: 'attnscope', timeUnit: 'arrival_s, seconds', rowsRead: 1_000_000, dropped: {} },
    };
    const sim: RunResult = { ...run, name: 'trace.attn.yaml', kind: 'simulate', cases: [], pool: { ...run.pool!, load } };
    await send(page, { type: 'runFinished', run: sim, id: null });
    await page.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'trace.attn.yaml');
    assert.ok(spaced((await page.textContent('#run-environment')) ?? '').includes(
      ' · workload: trace big.jsonl (attnscope; time stamps: arrival_s, seconds): 1,000,000 rows read as requests, none dropped; time scale 2 (arrival times divided by it); ' +
        'overloaded: 100 requests/s offered, 28.7 served (modelled): its TTFT and queueing delay grow with the run\'s length · ',
    ), (await page.textContent('#run-environment')) ?? '');
    // Every figure of a simulation is modelled for the profile's GPU: it is named first, the CPU the simulator ran on second (s40 newcomer-ed F6).
    assert.ok(spaced((await page.textContent('#run-environment')) ?? '').startsWith(`modelled for H100 SXM · simulated on ${run.environment.cpuModel} · ${run.environment.cpuCores} cores · no kernel timed · `));
    // Its Run button replays the same trace, and says so (s40 newcomer-ed F0: it drew the profile's workload silently).
    assert.equal(spaced((await page.textContent('#btn-run')) ?? ''), 'Run simulation: run.attn.yaml with trace big.jsonl');
  });

  // s40 newcomer-ed F1: the editor replays a profile's workload.trace; its run says which trace, from the profile, and over what span.
  it("a simulation of a profile's workload.trace names the trace as the profile writes it, that it came from the profile, its rows and the span of its arrivals", async () => {
    const load = {
      source: 'trace' as const, timeScale: 1, offeredRequestsPerSec: 6.26, servedRequestsPerSec: 6.1, waitingAtLastArrival: 0, overloaded: false,
      trace: { path: './traces/prod.jsonl', from: 'workload.trace' as const, spanS: 192, resolvedPath: '/w/traces/prod.jsonl', format: 'attnscope', timeUnit: 'arrival_s, seconds', rowsRead: 1_204, dropped: {} },
    };
    const sim: RunResult = { ...run, name: 'prod.attn.yaml', kind: 'simulate', cases: [], pool: { ...run.pool!, load } };
    await send(page, { type: 'runFinished', run: sim, id: null });
    await page.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'prod.attn.yaml');
    // 192 s = 3.2 min (core/format formatDuration: 3 significant digits in the largest unit below it).
    assert.ok(spaced((await page.textContent('#run-environment')) ?? '').includes(
      " · workload: trace ./traces/prod.jsonl (the profile's workload.trace) (attnscope; time stamps: arrival_s, seconds): 1,204 rows read as requests over 3.2 min, none dropped · ",
    ), (await page.textContent('#run-environment')) ?? '');
  });

  // s27 newcomer-ed 3: the run recorded load 11.46 on 2 CPUs and the CLI printed its caveat; the dashboard said nothing.
  it('a benchmark timed on a busy machine (load above its CPUs) shows the CLI\'s load line under its header; an idle one and a simulation do not', async () => {
    const busy: RunResult = { ...run, name: 'busy.attn.yaml', environment: { ...run.environment, loadAverage: [11.46, 10.8, 8.13] } };
    await send(page, { type: 'runFinished', run: busy, id: null });
    await page.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'busy.attn.yaml');
    assert.equal(await page.isVisible('#run-load'), true);
    // runner/table.ts's line, written out by hand: 11.46 > 2 CPUs.
    assert.equal(await page.textContent('#run-load'), 'load average 11.46 (1 min), 10.80 (5 min) at the start (above 2 CPUs: other processes competed, times are longer than on an idle machine)');
    // The fixture's own load, 1.95 on 2 CPUs: no caveat.
    await send(page, { type: 'runFinished', run: { ...run, name: 'idle.attn.yaml' }, id: null });
    await page.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'idle.attn.yaml');
    assert.equal(await page.isVisible('#run-load'), false);
    // A simulation timed no kernel: its modelled figures do not depend on the load.
    await send(page, { type: 'runFinished', run: { ...busy, name: 'sim.attn.yaml', kind: 'simulate', cases: [] }, id: null });
    await page.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'sim.attn.yaml');
    assert.equal(await page.isVisible('#run-load'), false);
  });

  // s50 newcomer-ed 12: the runs read "Dec 6, 2026, 5:13:32 PM" and the sweeps "Dec 6, 05:02 PM"; "cases" held "6" in one row and
  // "simulation" in the next. One format for every row (to the minute, the whole time in the tooltip), the kind in a column of its own.
  it('History shows each run\'s and sweep\'s time in one format as the reader reads it, the whole time in its tooltip, and each run\'s kind apart from its case count', async () => {
    const runs = [
      // By hand, in Tokyo (UTC+9): 23:30 UTC on 31 December is 08:30 on 1 January; 22:02:29 UTC on 1 December is 07:02:29 on the 2nd.
      { id: '20261231-233000-new', name: 'new.attn.yaml · simulation', createdAt: '2026-12-31T23:30:00.000Z', status: 'ok' as const, cases: 0, requests: 1200, kind: 'simulate' as const },
      { id: RUN_ID, name: run.name, createdAt: run.createdAt, status: 'ok' as const, cases: run.cases.length },
    ];
    assert.equal(run.createdAt, '2026-12-01T22:02:29.363Z', 'the recorded run\'s time, which the hand calculation above reads');
    // 17:05 UTC on 1 December is 02:05 on the 2nd in Tokyo.
    await send(page, { type: 'sweeps', sweeps: [{ id: 'page-size-d4cf7d4c', name: 'page-size.attn.yaml', createdAt: '2026-12-01T17:05:00.000Z', job: 'both', points: 9, total: 9 }] });
    await send(page, { type: 'runs', runs });
    await page.waitForSelector('table.table-history[data-rows="2"]', { state: 'attached' });
    // Runs, then sweeps (the page lists the sweeps above the runs): each cell's text, the time cell's tooltip.
    const rowsOf = (table: string) => page.$$eval(`table.${table} tbody tr`, (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.querySelector('time')?.getAttribute('title') ?? td.textContent ?? '')));
    const timesOf = (table: string) => page.$$eval(`table.${table} tbody tr td:first-child`, (tds) => tds.map((td) => td.textContent ?? ''));
    const cells = [...await rowsOf('table-history'), ...await rowsOf('table-sweeps')];
    const times = [...await timesOf('table-history'), ...await timesOf('table-sweeps')];
    assert.deepEqual(times.map(spaced), ['Jan 1, 08:30 AM', 'Dec 2, 07:02 AM', 'Dec 2, 02:05 AM']);
    assert.deepEqual(cells.map((r) => spaced(r[0]!)), ['Jan 1, 2027, 8:30:00 AM (2026-12-31T23:30:00.000Z)', `Dec 2, 2026, 7:02:29 AM (${run.createdAt})`, 'Dec 2, 2026, 2:05:00 AM (2026-12-01T17:05:00.000Z)']);
    // Columns: time, name, kind, status, count (a benchmark's kernel cases; a simulation's requests, s51: it read "0" cases), Open;
    // the sweep's kind in the same column.
    assert.deepEqual(cells.map((r) => r.slice(2, 5)), [['simulation', 'ok', '1,200 requests'], ['benchmark', 'ok', `${run.cases.length} cases`], ['sweep (job: both)', '9', 'page-size-d4cf7d4c']]);
    await send(page, { type: 'sweeps', sweeps: [] });
  });

  // s52 newcomer-ed 3: ten rows read exactly "Dec 6, 11:26 PM · llama-3.1-8b · llama-3.1-8b.attn.yaml · simulation · ok".
  it('History tells runs of one profile and minute apart: the seconds where two share a minute, a figure, and where each was made', async () => {
    const name = 'llama-3.1-8b · llama-3.1-8b.attn.yaml · simulation';
    const runs = [
      // By hand, in Tokyo (UTC+9): 14:26:40 UTC is 11:26:40 PM, 14:26:05 UTC 11:26:05 PM, 14:20 UTC 11:20 PM.
      { id: '20261206-142640-b', name, createdAt: '2026-12-06T14:26:40.000Z', status: 'ok' as const, cases: 0, requests: 200, kind: 'simulate' as const, figure: 'TTFT p99 312 ms', origin: 'editor' as const },
      { id: '20261206-142605-a', name, createdAt: '2026-12-06T14:26:05.000Z', status: 'ok' as const, cases: 0, requests: 200, kind: 'simulate' as const, figure: 'TTFT p99 1.20 s', origin: 'cli' as const },
      { id: '20261206-142000-c', name, createdAt: '2026-12-06T14:20:00.000Z', status: 'ok' as const, cases: 0, requests: 200, kind: 'simulate' as const },
    ];
    await send(page, { type: 'runs', runs });
    await page.locator('vscode-tab-header', { hasText: 'History' }).click();
    await page.waitForSelector('table.table-history[data-rows="3"]', { state: 'attached' });
    const cells = await page.$$eval('table.table-history tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
    assert.deepEqual(cells.map((r) => [spaced(r[0]!), ...r.slice(5, 7)]), [['Dec 6, 11:26:40 PM', 'TTFT p99 312 ms', 'editor'], ['Dec 6, 11:26:05 PM', 'TTFT p99 1.20 s', 'CLI'], ['Dec 6, 11:20 PM', '', '']]);
    // The pickers: the profile file and figure first, the seconds as History's rows have them.
    await page.waitForFunction(() => document.querySelectorAll('#compare-a vscode-option').length === 3);
    const options = await page.$$eval('#compare-a vscode-option', (os) => os.map((o) => o.textContent ?? ''));
    assert.deepEqual(options.map(spaced), [
      'llama-3.1-8b.attn.yaml · simulation · TTFT p99 312 ms · Dec 6, 11:26:40 PM · simulation · editor · llama-3.1-8b',
      'llama-3.1-8b.attn.yaml · simulation · TTFT p99 1.20 s · Dec 6, 11:26:05 PM · simulation · CLI · llama-3.1-8b',
      'llama-3.1-8b.attn.yaml · simulation · Dec 6, 11:20 PM · simulation · llama-3.1-8b',
    ]);
  });

  // s52 Left 2: History had no way to delete a run. Delete asks the extension (which asks the user, then moves the file to the
  // trash: extension/deleteRun.ts); its answer drops the run from the list and both pickers at once.
  it('History deletes a run by keyboard: Delete posts the run, the deletion drops it from the list and both pickers at once, the run shown says it was deleted and exports as shown, the focus stays in the list', async () => {
    const fresh = await openDashboard(chromium.browser, chromium.server, 'dark', { locale: 'en-US', timezoneId: 'Asia/Tokyo' });
    try {
      const runs = [
        { id: '20261206-143000-c', name: 'c.attn.yaml', createdAt: '2026-12-06T14:30:00.000Z', status: 'ok' as const, cases: 6, kind: 'bench' as const, figure: 'prefill B1 N512 34.9 ms', origin: 'editor' as const },
        // The recorded run predates kind, figure and origin: an old saved run.
        { id: RUN_ID, name: run.name, createdAt: run.createdAt, status: 'ok' as const, cases: run.cases.length },
        { id: '20261130-100000-a', name: 'a.attn.yaml', createdAt: '2026-11-30T10:00:00.000Z', status: 'ok' as const, cases: 2 },
      ];
      await send(fresh, { type: 'init', runs, current: run, currentId: RUN_ID });
      await fresh.locator('vscode-tab-header', { hasText: 'History' }).click();
      await fresh.waitForSelector('table.table-history[data-rows="3"]', { state: 'attached' });
      const del = fresh.locator(`table.table-history tr[data-run="${RUN_ID}"] vscode-button.delete-run`);
      // 22:02:29 UTC on 1 December is 07:02 on the 2nd in Tokyo, as the row's time reads.
      assert.equal(await del.getAttribute('aria-label'), `Delete run ${run.name}, Dec 2, 07:02 AM`);
      await del.focus();
      await fresh.keyboard.press('Enter');
      const [asked] = await waitForPosted(fresh, 'deleteRun');
      assert.deepEqual(asked, { type: 'deleteRun', id: RUN_ID, name: run.name, createdAt: run.createdAt });
      // Nothing dropped before the extension says it deleted it (the user may say no to its question).
      assert.equal(await fresh.getAttribute('table.table-history', 'data-rows'), '3');
      assert.equal(await fresh.isVisible('#run-deleted'), false);
      await send(fresh, { type: 'runDeleted', id: RUN_ID, how: 'trash' });
      await fresh.waitForSelector('table.table-history[data-rows="2"]', { state: 'attached' });
      assert.deepEqual(await fresh.$$eval('table.table-history tbody tr', (trs) => trs.map((tr) => (tr as HTMLElement).dataset.run)), ['20261206-143000-c', '20261130-100000-a']);
      for (const picker of ['#compare-a', '#compare-b']) {
        assert.deepEqual(await fresh.$$eval(`${picker} vscode-option`, (os) => os.map((o) => o.getAttribute('value'))), ['20261206-143000-c', '20261130-100000-a'], picker);
      }
      // The focus on the Delete of the row now in the deleted one's place, not lost with its row.
      assert.equal(await fresh.evaluate(() => (document.activeElement as HTMLElement | null)?.closest('tr')?.dataset.run + ' ' + document.activeElement?.textContent), '20261130-100000-a Delete');
      // The Run tab: the run stays shown, saying it was deleted and where it went; its export writes the run shown (no history id).
      await fresh.locator('vscode-tab-header', { hasText: 'Run' }).first().click();
      await fresh.waitForSelector('#run-deleted', { state: 'visible' });
      assert.equal(await fresh.textContent('#run-deleted'), 'This run was deleted from History: its file is in the trash, from where it can be restored. It stays shown here until you open another.');
      await fresh.click('#btn-export-json');
      assert.deepEqual((await waitForPosted(fresh, 'export')).at(-1), { type: 'export', id: null, format: 'json' });
    } finally {
      await fresh.close();
    }
  });

  // s52 Left 2: History's runs listed newest first only. A header sorts by its column (click, Enter, Space; again, the other way).
  it('History sorts its runs by time, name, kind or figure from the column headers, by mouse and keyboard, says the order in aria-sort, keeps it over a new list; old runs sort too', async () => {
    const fresh = await openDashboard(chromium.browser, chromium.server, 'dark', { locale: 'en-US', timezoneId: 'UTC' });
    try {
      const sim = 'llama-3.1-8b · b.attn.yaml · simulation';
      const runs = [
        { id: 'A', name: sim, createdAt: '2026-12-06T14:30:00.000Z', status: 'ok' as const, cases: 0, requests: 200, kind: 'simulate' as const, figure: 'TTFT p99 1.20 s', origin: 'cli' as const },
        { id: 'B', name: 'llama-3.1-8b · a.attn.yaml · full', createdAt: '2026-12-06T14:20:00.000Z', status: 'ok' as const, cases: 6, kind: 'bench' as const, figure: 'prefill B1 N512 34.9 ms', origin: 'editor' as const },
        { id: 'C', name: sim, createdAt: '2026-12-06T14:10:00.000Z', status: 'ok' as const, cases: 0, requests: 200, kind: 'simulate' as const, figure: 'TTFT p99 312 ms', origin: 'editor' as const },
        // An old saved run: no kind (a benchmark), figure nor origin.
        { id: 'D', name: 'run.attn.yaml', createdAt: '2026-12-01T22:02:29.363Z', status: 'ok' as const, cases: 3 },
      ];
      await send(fresh, { type: 'init', runs, current: null, currentId: null });
      await fresh.locator('vscode-tab-header', { hasText: 'History' }).click();
      await fresh.waitForSelector('table.table-history[data-rows="4"]', { state: 'attached' });
      const order = () => fresh.$$eval('table.table-history tbody tr', (trs) => trs.map((tr) => (tr as HTMLElement).dataset.run).join(''));
      const sorts = () => fresh.$$eval('table.table-history th', (ths) => ths.map((th) => `${th.textContent}:${th.getAttribute('aria-sort') ?? '-'}`));
      const header = (name: string) => fresh.locator(`table.table-history th button.sort-header[data-sort="${name}"]`);
      /** Waits for the rows in `want`'s order (the table is drawn again for each sort). */
      const rowsBecome = (want: string) => fresh.waitForFunction((w) => [...document.querySelectorAll('table.table-history tbody tr')].map((tr) => (tr as HTMLElement).dataset.run).join('') === w, want);
      assert.equal(await order(), 'ABCD', 'newest first until a header is used');
      assert.deepEqual(await sorts(), ['time ▼:descending', 'name:none', 'kind:none', 'status:-', 'count:-', 'figure:none', 'from:-', ':-']);
      assert.equal(await fresh.textContent('table.table-history caption'), 'Saved runs, newest first');
      // Keyboard: Enter on the figure header sorts by what each figure is of, then its value: "prefill …" before "TTFT p99 …", and
      // 312 ms before 1.20 s (as text "1.20 s" came first); the old run with no figure last.
      await header('figure').focus();
      await fresh.keyboard.press('Enter');
      await rowsBecome('BCAD');
      assert.deepEqual((await sorts()).filter((x) => !x.endsWith(':-')), ['time:none', 'name:none', 'kind:none', 'figure ▲:ascending']);
      assert.equal(await fresh.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.sort), 'figure', 'the focus stays on the header');
      // Space: the other way; the run with no figure still last.
      await fresh.keyboard.press(' ');
      await rowsBecome('ACBD');
      assert.equal(await fresh.textContent('table.table-history caption'), 'Saved runs, by figure, Z to A');
      // Mouse: kind, A to Z: the benchmarks (the old run's no kind is one), then the simulations, each newest first.
      await header('kind').click();
      await rowsBecome('BDAC');
      // Name: the listed name as shown, "llama-3.1-8b · a…" before "… · b…" before "run.attn.yaml"; A and C, one name, newest first.
      await header('name').click();
      await rowsBecome('BACD');
      // The order stays when the list comes again (a run saved or deleted) and over a tab switch; the pickers stay newest first.
      await send(fresh, { type: 'runs', runs: runs.filter((r) => r.id !== 'B') });
      await rowsBecome('ACD');
      await fresh.locator('vscode-tab-header', { hasText: 'Run' }).first().click();
      await fresh.locator('vscode-tab-header', { hasText: 'History' }).click();
      assert.equal(await order(), 'ACD');
      assert.deepEqual(await fresh.$$eval('#compare-a vscode-option', (os) => os.map((o) => o.getAttribute('value'))), ['A', 'C', 'D']);
      // Time again: newest first; again, oldest first.
      await header('time').click();
      await fresh.waitForFunction(() => document.querySelector('table.table-history th:first-child')?.getAttribute('aria-sort') === 'descending');
      assert.equal(await order(), 'ACD');
      await header('time').click();
      await rowsBecome('DCA');
      assert.equal(await fresh.textContent('table.table-history caption'), 'Saved runs, oldest first');
    } finally {
      await fresh.close();
    }
  });

  it('History says where a benchmark cancelled during its pool simulation stopped, and which runs a window reload interrupted', async () => {
    // s34 newcomer-ed 2: such a run listed as plain "cancelled", and its cards said "cancelled before its pool simulation".
    const runs = [
      { id: '20261204-155557-pool', name: 'long.attn.yaml', createdAt: '2026-12-04T15:55:57.000Z', status: 'cancelled' as const, poolCancelled: { finished: 9123, requests: 40000 }, cases: 9 },
      { id: '20261204-155000-cases', name: 'long.attn.yaml', createdAt: '2026-12-04T15:50:00.000Z', status: 'cancelled' as const, cases: 2 },
      // s50 newcomer-ed 1: a run a window reload stopped was listed as "cancelled", as if the user had cancelled it.
      { id: '20261204-154000-reload', name: 'long.attn.yaml', createdAt: '2026-12-04T15:40:00.000Z', status: 'cancelled' as const, interrupted: true as const, cases: 3 },
    ];
    await send(page, { type: 'runs', runs });
    await page.waitForFunction(() => document.querySelector('table.table-history tbody tr td:nth-child(4)')?.textContent?.includes('9,123'));
    const status = await page.$$eval('table.table-history tbody tr td:nth-child(4)', (tds) => tds.map((td) => td.textContent ?? ''));
    assert.deepEqual(status, ['cancelled during its pool simulation (at 9,123 of 40,000 requests); the partial pool was not kept', 'cancelled', 'interrupted (window reloaded or closed)']);
  });

  it('compares two runs, flagging only changes beyond the p10–p90 spread', async () => {
    const shift = (c: KernelCase, ns: number): KernelCase => ({ ...c, medianNs: c.medianNs + ns, p10Ns: c.p10Ns + ns, p90Ns: c.p90Ns + ns });
    const spread = (c: KernelCase) => c.p90Ns - c.p10Ns;
    // Case 0 slower by twice its p10–p90 spread (beyond it); case 1 faster by half its spread (inside it).
    const slower = 2 * spread(run.cases[0]!);
    const b: RunResult = { ...run, createdAt: '2099-01-01T00:00:00.000Z', cases: run.cases.map((c, i) => (i === 0 ? shift(c, slower) : i === 1 ? shift(c, -spread(c) / 2) : c)) };
    await send(page, { type: 'runs', runs: [
      { id: '20990101-000000-b', name: 'b.attn.yaml', createdAt: b.createdAt, status: 'ok', cases: b.cases.length },
      { id: RUN_ID, name: run.name, createdAt: run.createdAt, status: 'ok', cases: run.cases.length },
    ] });
    // The pickers default to A = the older run, B = the newest; Compare asks the extension for both.
    // Both pickers are filled before B is read: waiting for A alone raced B's update (CI read the older run there).
    await page.waitForFunction((id) => {
      const [a, b] = ['#compare-a', '#compare-b'].map((sel) => (document.querySelector(sel) as HTMLElement & { value: string }).value);
      return a === id && b !== id && b !== '';
    }, RUN_ID);
    assert.equal(await page.$eval('#compare-b', (e) => (e as HTMLElement & { value: string }).value), '20990101-000000-b');
    await page.locator('vscode-tab-header', { hasText: 'History' }).click();
    // s31 newcomer-ed 10: each row's Open named no run ("Open, button" 21 times to a screen reader): its label names the run and its time, as the row shows them.
    const opens = await page.$$eval('vscode-button', (bs) => bs.filter((b) => b.textContent === 'Open' && b.closest('tr')).map((b) => [b.getAttribute('aria-label'), b.closest('tr')!.querySelector('time')!.textContent]));
    assert.deepEqual(opens.map(([label]) => label?.replace(/, .*$/, '')), ['Open run b.attn.yaml', `Open run ${run.name}`]);
    for (const [label, time] of opens) assert.ok(label?.endsWith(`, ${time}`), `${label} ends with the row's time ${time}`);
    await page.click('#btn-compare');
    assert.deepEqual((await waitForPosted(page, 'compareRuns')).at(-1), { type: 'compareRuns', a: RUN_ID, b: '20990101-000000-b' });
    await send(page, { type: 'compare', a: run, b });
    await page.waitForSelector('table.table-compare');
    const rows = await tableRows(page, 'table-compare');
    assert.deepEqual(rows.map((r) => r[6]), ['▲ slower', 'within noise']);
    assert.equal(rows[0]![3], `+${(100 * slower / run.cases[0]!.medianNs).toFixed(1)}%`);
    await page.screenshot({ path: join(shots, 'compare.png'), fullPage: true });
  });

  it('runs again the file of the run shown, as the same kind of run, and says which on the button', async () => {
    await page.locator('vscode-tab-header', { hasText: 'Run' }).click();
    await send(page, { type: 'showRun', run, id: RUN_ID });
    await page.waitForFunction(() => document.querySelector('#btn-run')?.textContent === 'Run benchmark: run.attn.yaml');
    assert.equal(await page.getAttribute('#btn-run', 'title'), 'Run benchmark of test/fixtures/run.attn.yaml');
    const before = (await page.evaluate(() => (window as unknown as { __posted?: Array<{ type: string }> }).__posted ?? [])).filter((m) => m.type === 'runBenchmark').length;
    await page.click('#btn-run');
    assert.deepEqual((await waitForPosted(page, 'runBenchmark', before + 1)).at(-1), { type: 'runBenchmark', source: 'test/fixtures/run.attn.yaml', kind: 'bench' });
    // A serving simulation shown: the button runs the simulation again.
    await send(page, { type: 'showRun', run: { ...run, kind: 'simulate', cases: [] }, id: null });
    await page.waitForFunction(() => document.querySelector('#btn-run')?.textContent === 'Run simulation: run.attn.yaml');
    // s31 newcomer-ed 10: the text held the space but the button showed "Run simulation:run.attn.yaml"
    // (its slot is a flex box, which drops a bare text node's trailing space). The file's name starts
    // a space's width (about 3-4 px at 13 px) right of the colon on the same line, not at it.
    const gap = await page.evaluate(() => {
      const btn = document.querySelector('#btn-run')!;
      const file = btn.querySelector('.title-part')!.getBoundingClientRect();
      const walker = document.createTreeWalker(btn, NodeFilter.SHOW_TEXT);
      let verb: Text | null = null;
      for (let n = walker.nextNode(); n; n = walker.nextNode()) if (n.textContent?.startsWith('Run simulation:')) verb = n as Text;
      const range = document.createRange();
      range.setStart(verb!, 0);
      range.setEnd(verb!, 'Run simulation:'.length);
      const colon = range.getBoundingClientRect();
      return { px: file.left - colon.right, sameLine: Math.abs(file.top - colon.top) < colon.height / 2 };
    });
    assert.ok(gap.sameLine, 'verb and file on one line at this width');
    assert.ok(gap.px >= 2, `a space between the colon and the file's name, got ${gap.px.toFixed(1)} px`);
    await page.click('#btn-run');
    assert.deepEqual((await waitForPosted(page, 'runBenchmark', before + 2)).at(-1), { type: 'runBenchmark', source: 'test/fixtures/run.attn.yaml', kind: 'simulate' });
    // A benchmark of another file started: the (disabled) button names it from its start, as the header does
    // (it named the simulation shown before until the benchmark ended: s29 newcomer-ed 5).
    await send(page, { type: 'runStarted', name: 'other', total: 2, kind: 'bench', profile: { ...run.profile, sourcePath: 'ws/other.attn.yaml' } });
    await page.waitForFunction(() => document.querySelector('#run-status')?.textContent === 'running');
    assert.equal(await page.textContent('#btn-run'), 'Run benchmark: other.attn.yaml');
    assert.notEqual(await page.getAttribute('#btn-run', 'disabled'), null, 'disabled while it runs');
    // A run of no file (a profile from stdin): the editor's choice, under the plain label.
    await send(page, { type: 'showRun', run: { ...run, profile: { ...run.profile, sourcePath: null } }, id: null });
    await page.waitForFunction(() => document.querySelector('#btn-run')?.textContent === 'Run benchmark');
    await page.click('#btn-run');
    assert.deepEqual((await waitForPosted(page, 'runBenchmark', before + 3)).at(-1), { type: 'runBenchmark' });
  });

  it('warns when the two runs\' kernels ran on different builds, and the pickers name each run\'s build', async () => {
    // The recorded run: the native addon's avx2 path on 2 threads (its file predates nativeBuild, so no build is named).
    const wasm: RunResult = { ...run, createdAt: '2099-01-01T00:00:00.000Z', environment: { ...run.environment, nativeBuild: 'wasm', simd: 'simd128', threads: 1 } };
    await send(page, { type: 'runs', runs: [
      { id: '20990101-000000-w', name: 'w.attn.yaml', createdAt: wasm.createdAt, status: 'ok', cases: wasm.cases.length, build: 'WebAssembly, 1 thread · simd128' },
      { id: RUN_ID, name: run.name, createdAt: run.createdAt, status: 'ok', cases: run.cases.length, build: 'avx2 · 2 threads' },
    ] });
    await page.locator('vscode-tab-header', { hasText: 'History' }).click();
    await page.waitForFunction(() => document.querySelectorAll('#compare-a vscode-option').length === 2);
    const options = await page.$$eval('#compare-a vscode-option', (os) => os.map((o) => o.textContent ?? ''));
    const descriptions = await page.$$eval('#compare-a vscode-option', (os) => os.map((o) => o.getAttribute('description') ?? ''));
    // The profile file first, then time and kind (s52 newcomer-ed 3: time and kind first cut the profile file off at 1280 px).
    // The time as History's lists write it, to the minute (s51: the pickers had "Jan 1, 2099, 9:00:00 AM"): by hand, 00:00 UTC
    // on 1 January is 09:00 in Tokyo; the year and seconds in the option's description, as in History's tooltip.
    assert.match(spaced(options[0]!), /^w\.attn\.yaml · Jan 1, 09:00 AM · benchmark · WebAssembly, 1 thread · simd128$/);
    assert.equal(spaced(descriptions[0]!), 'Jan 1, 2099, 9:00:00 AM (2099-01-01T00:00:00.000Z)');
    assert.ok(options[1]!.endsWith(' · avx2 · 2 threads'), options[1]);
    // Wide enough to show the profile file, figure and time (s50 newcomer-ed 4: at 280 px "Dec 6, 2026, 5:12:49 PM · simulatio…"):
    // the picker is at least as wide as that text, and never wider than the page.
    const fit = await page.$eval('#compare-a', (sel) => {
      const probe = document.createElement('span');
      probe.style.cssText = 'position:absolute;visibility:hidden;white-space:nowrap;font:inherit';
      probe.textContent = 'llama-3.1-8b.attn.yaml · simulation · TTFT p99 312 ms · Dec 16, 12:12:49 PM';
      sel.parentElement!.append(probe);
      const need = probe.getBoundingClientRect().width;
      probe.remove();
      return { width: sel.getBoundingClientRect().width, need, page: document.documentElement.clientWidth };
    });
    assert.ok(fit.width >= fit.need && fit.width <= fit.page, JSON.stringify(fit));
    await send(page, { type: 'compare', a: run, b: { ...run, createdAt: wasm.createdAt } });
    await page.waitForSelector('table.table-compare');
    assert.equal(await page.$('#compare-build'), null, 'one build: no warning');
    await send(page, { type: 'compare', a: { ...run, environment: { ...run.environment, nativeBuild: 'native' } }, b: wasm });
    await page.waitForSelector('#compare-build');
    assert.equal(await page.textContent('#compare-build'), "These runs' kernels ran on different builds or machines (build native addon vs WebAssembly, 1 thread, SIMD path avx2 vs simd128): a change below is the build's or the machine's as much as the code's or the profile's.");
  });

  it('names the files of the history folder it skipped, and why, under the list', async () => {
    const runs = [{ id: RUN_ID, name: run.name, createdAt: run.createdAt, status: 'ok' as const, cases: run.cases.length }];
    await send(page, { type: 'runs', runs, skipped: ['zz-junk.json: not named as AttnScope names runs (<yyyymmdd-hhmmss>-<name>.json)'] });
    // The note is on the History tab: opened here, not left to the test before.
    await page.locator('vscode-tab-header', { hasText: 'History' }).click();
    await page.waitForSelector('#history-skipped');
    assert.equal(await page.textContent('#history-skipped'), '1 file in the history folder skipped: zz-junk.json: not named as AttnScope names runs (<yyyymmdd-hhmmss>-<name>.json)');
    await send(page, { type: 'runs', runs, skipped: [] });
    await page.waitForSelector('#history-skipped', { state: 'detached' });
  });

  it('shows a serving simulation: pool, its summary and the modelled latency, no kernel card, the step-time model named', async () => {
    await page.locator('vscode-tab-header', { hasText: 'Run' }).click();
    // What `attnscope simulate` writes: the recorded run's pool simulation, no kernel case.
    const sim: RunResult = { ...run, kind: 'simulate', cases: [], name: 'llama · run.attn.yaml · simulation' };
    await send(page, { type: 'showRun', run: sim, id: null });
    await page.waitForFunction(() => document.querySelector('#run-title')?.textContent?.endsWith('simulation'));
    await page.waitForFunction(() => document.querySelector('#chart-latencyCdf')?.getAttribute('data-drawn')?.includes('points'));
    const visible = async (id: string) => page.$eval(`section[data-chart="${id}"]`, (c) => (c as HTMLElement).offsetParent !== null);
    for (const id of ['timings', 'throughput', 'roofline']) assert.equal(await visible(id), false, `${id}: no kernel card for a simulation`);
    for (const id of ['poolTimeline', 'latencyCdf', 'memory']) assert.equal(await visible(id), true, `${id} shows`);
    // 1,839 samples, thinned to the chart's 400 points.
    assert.equal((await drawnPoints(page, 'poolTimeline'))['free'], Math.min(400, run.pool!.samples.length));
    // The summary above the pool: the recorded peak occupancy 0.5908203125 (1,210 of 2,048 pages), no preemption, no prefix hit.
    assert.equal(await page.textContent('#summary-poolTimeline'), `peak occupancy ${percent(run.pool!.summary.peakOccupancy)} held (mean ${percent(run.pool!.summary.meanOccupancy)}) · 0 preemptions · prefix-cache hit rate 0.0% · 400 of 400 requests completed`);
    // The latency above its chart, in ms from the recorded seconds.
    const l = run.pool!.latency!;
    // Three significant digits in the largest unit the value reaches (these are all under a minute).
    const durText = (s: number) => (s >= 1 ? `${Number(s.toPrecision(3))} s` : `${Number((s * 1000).toPrecision(3))} ms`);
    const latency = (await page.textContent('#summary-latencyCdf')) ?? '';
    assert.ok(latency.startsWith(`modelled: TTFT p50 ${durText(l.ttft!.p50)}, p99 ${durText(l.ttft!.p99)} · TPOT p50 ${durText(l.tpot!.p50)}, p99 ${durText(l.tpot!.p99)}`), latency);
    assert.match(latency, /goodput/);
    // Its times are said to be modelled, on which GPU and roofline.
    const note = (await page.textContent('#run-step-time')) ?? '';
    assert.ok(note.startsWith('Serving simulation: no kernel was timed; step times, latency and throughput are modelled, not measured: '), note);
    assert.ok(note.includes(run.pool!.stepTime!.source), note);
    assert.match(note, /H100 SXM/);
    assert.equal(await page.getAttribute('#btn-export-png', 'disabled'), null, 'a simulation exports its charts too');
    await page.screenshot({ path: join(shots, 'simulation.png'), fullPage: true });
    // An overloaded pool: every TTFT 10^5 times the recorded one. p50 0.018331 s -> 1,833.1 s / 60 =
    // 30.6 min; p99 0.114147 s -> 11,414.7 s / 3,600 = 3.17 h (it read "TTFT p50 1833111 ms").
    const lat = run.pool!.latency!;
    const slowTtft = { ...lat, ttft: { ...lat.ttft!, p50: lat.ttft!.p50 * 1e5, p99: lat.ttft!.p99 * 1e5 }, ttftCdf: lat.ttftCdf.map((c) => ({ ...c, s: c.s * 1e5 })) };
    await send(page, { type: 'showRun', run: { ...sim, name: 'slow · simulation', pool: { ...run.pool!, latency: slowTtft } }, id: null });
    await page.waitForFunction(() => document.querySelector('#summary-latencyCdf')?.textContent?.includes(' h'));
    assert.ok(((await page.textContent('#summary-latencyCdf')) ?? '').startsWith('modelled: TTFT p50 30.6 min, p99 3.17 h · TPOT'));
    await page.locator('section[data-chart="latencyCdf"]').screenshot({ path: join(shots, 'latency-hours.png') });
    // A benchmark's note: its kernels measured, its pool's step times modelled.
    await send(page, { type: 'showRun', run, id: RUN_ID });
    await page.waitForFunction(() => document.querySelector('#run-step-time')?.textContent?.startsWith('Kernel timings are measured on this machine'));
    assert.equal(await visible('timings'), true);
    // The numbers first (s48 newcomer-ed 7: a five-line paragraph on the step-time model came before any number): the line
    // says what is measured and what modelled; the model's roofline, figures and sources are folded under it until asked for.
    const box = await page.$eval('#run-step-time', (e) => ({ height: e.getBoundingClientRect().height, line: parseFloat(getComputedStyle(e).lineHeight) || 1.4 * parseFloat(getComputedStyle(e).fontSize) }));
    assert.ok(box.height <= 2.5 * box.line, `the note takes ${box.height} px, ${(box.height / box.line).toFixed(1)} lines`);
    assert.equal(await page.isVisible(`text=${run.pool!.stepTime!.source.slice(0, 40)}`), false, 'the model folded');
    assert.equal(await page.textContent('#run-step-time > summary'), "Kernel timings are measured on this machine; the pool simulation's step times are modelled, not measured:");
    await page.click('#run-step-time > summary');
    await page.waitForFunction(() => (document.querySelector('#run-step-time-model') as HTMLElement | null)?.offsetParent !== null);
    assert.equal(await page.textContent('#run-step-time-model'), ` ${run.pool!.stepTime!.source}.`);
  });

  it('a data-parallel simulation: the pool and queue charts draw the engine picked in their labelled Engine select, by keyboard (s41 newcomer-ed F2: engine 1 only)', async () => {
    await page.locator('vscode-tab-header', { hasText: 'Run' }).click();
    // Engine 2's samples: the recorded run's first 120 (a series of its own, told apart by its length).
    const replica = { requests: 200, completed: 200, outputTokensPerSec: 1000, requestsPerSec: 2, meanConcurrency: 10, peakConcurrency: 40, peakWaiting: 5, peakOccupancy: 0.5 };
    const dataParallel = { size: 2, gpusPerEngine: 1, dispatch: 'each request to the engine with the fewest requests in flight', replicas: [replica, { ...replica, peakConcurrency: 41, samples: run.pool!.samples.slice(0, 120) }] };
    // A data-parallel simulation has no contiguous-allocation baselines (simulateDataParallel runs the paged pool only).
    const sim: RunResult = { ...run, kind: 'simulate', cases: [], name: 'llama · dp.attn.yaml · simulation', pool: { ...run.pool!, dataParallel, baselines: [] } };
    await send(page, { type: 'showRun', run: sim, id: null });
    await page.waitForFunction(() => document.querySelector('#chart-poolTimeline')?.getAttribute('aria-label')?.startsWith('KV page pool (engine 1 of 2)'));
    // s44 newcomer-ed F14: "Paged pool vs contiguous allocation" drew the paged row alone and did not say why; the CLI's
    // sentence (runner/simulate/summary.ts, test/unit/data-parallel.test.ts: "(contiguous-allocation baselines: not simulated ...)") over it.
    // The charts are drawn one per task (drawQueued), each card's summary with its chart: wait for this one's drawing first
    // (CI read the summary empty once, the pool timeline drawn and this chart not yet).
    const why = 'contiguous-allocation baselines: not simulated at data parallel 2, whose engines run the paged pool only; data_parallel_size 1 simulates them';
    await page.waitForFunction(() => document.querySelector('#chart-poolBaselines')?.getAttribute('data-drawn')?.includes('useful KV memory: 1 points'));
    assert.equal(await page.textContent('#summary-poolBaselines'), why);
    assert.ok((await page.getAttribute('#chart-poolBaselines', 'aria-label'))?.endsWith(`; ${why}`));
    await page.locator('section[data-chart="poolBaselines"]').screenshot({ path: join(shots, 'pool-baselines-dp.png') });
    assert.deepEqual(await page.$$eval('#engine-poolTimeline vscode-option', (os) => os.map((o) => o.textContent)), ['engine 1 of 2: 200 requests, peak running 40', 'engine 2 of 2: 200 requests, peak running 41']);
    // Named for a screen reader (its inner combobox, as the other selects').
    assert.equal(await page.$eval('#engine-poolTimeline', (e) => e.shadowRoot?.querySelector('[role="combobox"]')?.getAttribute('aria-label') ?? null), 'Engine charted');
    // Keyboard: focus, Space opens, ArrowDown, Enter picks engine 2.
    await page.focus('#engine-poolTimeline');
    for (const key of [' ', 'ArrowDown', 'Enter']) await page.keyboard.press(key);
    await page.waitForFunction(() => document.querySelector('#chart-poolTimeline')?.getAttribute('aria-label')?.startsWith('KV page pool (engine 2 of 2)'));
    assert.equal((await drawnPoints(page, 'poolTimeline'))['held: tokens'], 120);
    // The queue chart follows, with engine 2's peaks; its own select shows the same engine.
    await page.waitForFunction(() => document.querySelector('#chart-queue')?.getAttribute('aria-label')?.startsWith('Requests running and waiting (engine 2 of 2)'));
    assert.ok(Object.keys(await drawnPoints(page, 'queue')).includes('peak running 41 (every step, not sampled)'));
    assert.equal(await page.$eval('#engine-queue', (e) => (e as HTMLElement & { value: string }).value), '1');
    await page.locator('section[data-chart="poolTimeline"]').screenshot({ path: join(shots, 'pool-engine-2.png') });
    await page.locator('section[data-chart="queue"]').screenshot({ path: join(shots, 'queue-engine-2.png') });
    // A run of one engine: no select.
    await send(page, { type: 'showRun', run: { ...sim, name: 'one engine · simulation', pool: run.pool! }, id: null });
    await page.waitForFunction(() => document.querySelector('#chart-poolTimeline')?.getAttribute('aria-label')?.startsWith('KV page pool of'));
    assert.equal(await page.$eval('#engine-poolTimeline', (e) => (e.parentElement as HTMLElement).hidden), true);
    // Its baselines drawn (three rows, no longer the dp run's one), then nothing to explain.
    await page.waitForFunction(() => { const d = document.querySelector('#chart-poolBaselines')?.getAttribute('data-drawn'); return d !== undefined && d !== null && !d.includes('useful KV memory: 1 points'); });
    assert.equal(await page.textContent('#summary-poolBaselines'), '', 'one engine: its baselines drawn, nothing to explain');
  });

  it('compares a simulation with a benchmark by their pool simulations only; with no pool on one side, says there is nothing to compare', async () => {
    await page.locator('vscode-tab-header', { hasText: 'History' }).click();
    // B: the same profile simulated with twice the pool's peak (an edited copy), no kernel case.
    const sim: RunResult = { ...run, kind: 'simulate', cases: [], createdAt: '2099-01-02T00:00:00.000Z', pool: { ...run.pool!, summary: { ...run.pool!.summary, peakOccupancy: 2 * run.pool!.summary.peakOccupancy / 4, preemptions: 3 } } };
    await send(page, { type: 'compare', a: run, b: sim });
    await page.waitForSelector('table.table-compare-pool');
    assert.equal(await page.textContent('#compare-kinds'), 'B is a serving simulation (no kernel timed): only the pool simulations and their modelled latency are compared below.');
    assert.equal(await page.$('table.table-compare'), null, 'no kernel table: B timed no kernel');
    const rows = await tableRows(page, 'table-compare-pool');
    const byLabel = Object.fromEntries(rows.map((r) => [r[0], r.slice(1)]));
    // 0.5908 -> 0.2954: −29.5 percentage points (a percentage's change, not −50.0 %); preemptions 0 -> 3 (no relative change from 0).
    assert.deepEqual(byLabel['peak occupancy']!.slice(0, 3), [percent(run.pool!.summary.peakOccupancy), percent(run.pool!.summary.peakOccupancy / 2), `-${(50 * run.pool!.summary.peakOccupancy).toFixed(1)} pp`]);
    assert.deepEqual(byLabel['preemptions']!.slice(0, 3), ['0', '3', '']);
    assert.deepEqual(byLabel['TTFT p99 (modelled)']!.slice(0, 2).map((x) => / (ms|s)$/.test(x)), [true, true]);
    // A benchmark without a pool against a simulation: nothing in common.
    const { pool: _pool, ...noPool } = run;
    await send(page, { type: 'compare', a: noPool as RunResult, b: sim });
    await page.waitForFunction(() => document.querySelector('#compare-kinds')?.textContent?.endsWith('nothing to compare.'));
    assert.equal(await page.$('table.table-compare-pool'), null);
    assert.equal(await page.$('table.table-compare'), null);
    // A TPOT bound judged with step_time.overhead_ms assumed 0 (the fixture's pool, 7.39 running on
    // average): B carries the note the Run tab shows, A (no SLO) none; said of B, under the tables.
    assert.equal(await page.$('#compare-tpot'), null);
    const tpot: RunResult = { ...sim, pool: { ...sim.pool!, latency: { ...sim.pool!.latency!, slo: { ttftMs: 1000, tpotMs: 100 }, sloAttainment: 1, goodputRequestsPerSec: 1 } } };
    await send(page, { type: 'compare', a: run, b: tpot });
    await page.waitForSelector('#compare-tpot');
    assert.match((await page.textContent('#compare-tpot')) ?? '', /^Note: B: TPOT <= 100 ms is judged on steps of 7\.39 running sequences on average with no per-step overhead \(step_time\.overhead_ms assumed 0\)/);
  });

  it('Compare of tp 1 against tp 2: the pickers show the two runs, the settings that differ, throughput per GPU, its own exports; the run\'s exports off the tab (s39 newcomer-ed 1-3, 8)', async () => {
    const fresh = await openDashboard(chromium.browser, chromium.server, 'light');
    try {
      const sim = (tp: number, createdAt: string, tokensPerS: number): RunResult => ({
        ...run, kind: 'simulate', cases: [], name: `tp${tp}.attn.yaml · simulation`, createdAt,
        profile: { ...run.profile, device: { ...run.profile.device, tensorParallelSize: tp } },
        pool: { ...run.pool!, latency: { ...run.pool!.latency!, outputTokensPerSec: tokensPerS }, load: { source: 'workload', timeScale: 1, offeredRequestsPerSec: 19.6, servedRequestsPerSec: 18.7, waitingAtLastArrival: 0, overloaded: false } },
      });
      const tp1 = sim(1, '2099-02-01T00:00:00.000Z', 2678);
      const tp2 = sim(2, '2099-02-02T00:00:00.000Z', 2804);
      const entry = (r: RunResult) => ({ id: runId(r.createdAt, r.name), name: r.name, createdAt: r.createdAt, status: 'ok' as const, cases: 0, kind: 'simulate' as const });
      // Two newer runs: the pickers' defaults (A = second newest, B = newest) are neither compared run.
      const other = (n: number) => ({ id: `2099030${n}-000000-kv${n}`, name: `kv${n}.attn.yaml · simulation`, createdAt: `2099-03-0${n}T00:00:00.000Z`, status: 'ok' as const, cases: 0, kind: 'simulate' as const });
      await send(fresh, { type: 'init', runs: [other(2), other(1), entry(tp2), entry(tp1)], current: run, currentId: RUN_ID });
      await send(fresh, { type: 'compare', a: tp1, b: tp2, aId: entry(tp1).id, bId: entry(tp2).id });
      await fresh.waitForSelector('table.table-compare-pool');
      const picked = () => fresh.$$eval('#compare-a, #compare-b', (els) => els.map((e) => (e as HTMLElement & { value: string }).value));
      await fresh.waitForFunction((want) => ['#compare-a', '#compare-b'].map((sel) => (document.querySelector(sel) as HTMLElement & { value: string }).value).join() === want, [entry(tp1).id, entry(tp2).id].join());
      assert.deepEqual(await picked(), [entry(tp1).id, entry(tp2).id]);
      // What differs, first: B on two GPUs.
      const settings = await tableRows(fresh, 'table-compare-settings');
      assert.deepEqual(settings.slice(0, 2), [['tensor_parallel_size', '1', '2', 'profile'], ['GPUs', '1', '2', 'profile']]);
      const pool = Object.fromEntries((await tableRows(fresh, 'table-compare-pool')).map((r) => [r[0], r.slice(1)]));
      // 2,804 / 2 = 1,402 tokens/s a GPU: 1,402 / 2,678 − 1 = −47.6 %.
      assert.deepEqual(pool['output tokens/s per GPU (modelled)']!.slice(0, 3), ['2,678', '1,402', '-47.6%']);
      assert.deepEqual(pool['keeps up with the offered load']!.slice(0, 2), ['yes, its queue did not grow (μ not measured)', 'yes, its queue did not grow (μ not measured)']);
      // Captions name the two runs; the kernel spread note only over kernel cases (none here).
      const caption = (await fresh.textContent('table.table-compare-pool caption')) ?? '';
      assert.ok(caption.startsWith('Pool simulations: A tp1.attn.yaml · simulation (') && caption.includes(') vs B tp2.attn.yaml · simulation ('), caption);
      assert.equal(await fresh.$('#compare-spread'), null);
      assert.match((await fresh.textContent('#compare-change')) ?? '', /percentage points \(pp\)/);
      assert.match((await fresh.textContent('#compare-load-bound')) ?? '', /^Both runs kept up/);
      // The History tab shows the comparison: the run's exports (of the Run tab's run) are not there; the comparison's are.
      await fresh.locator('vscode-tab-header', { hasText: 'History' }).click();
      for (const id of ['btn-export-json', 'btn-export-csv', 'btn-export-png']) assert.equal(await fresh.isVisible(`#${id}`), false, `#${id} on History`);
      await fresh.click('#btn-compare-csv');
      const [csv] = (await waitForPosted(fresh, 'exportCompare')) as Array<{ format: string; a: { name: string; file?: string }; b: { name: string; file?: string }; rows: Array<{ figure: string; a: unknown; b: unknown; unit: string; source: string }> }>;
      assert.equal(csv!.format, 'csv');
      assert.equal(csv!.a.name, tp1.name);
      // Which runs (their history files) and what is the same in both: the GPU the modelled figures are for (s40 newcomer-ed F3).
      assert.deepEqual([csv!.a.file, csv!.b.file], [`${entry(tp1).id}.json`, `${entry(tp2).id}.json`]);
      assert.deepEqual(csv!.rows.find((r) => r.figure === 'GPU (step-time peaks)')?.a, 'H100 SXM');
      assert.deepEqual(csv!.rows.find((r) => r.figure === 'output tokens/s per GPU (modelled)')!.b, 1402);
      await fresh.click('#btn-compare-md');
      assert.equal(((await waitForPosted(fresh, 'exportCompare', 2)) as Array<{ format: string }>)[1]!.format, 'markdown');
      await fresh.click('#btn-compare-png');
      const [png] = (await waitForPosted(fresh, 'savePng')) as Array<{ name: string; dataUrl: string }>;
      assert.equal(png!.name, `compare ${tp1.name} vs ${tp2.name}`);
      assert.match(png!.dataUrl, /^data:image\/png;base64,/);
      writeFileSync(join(shots, 'compare-png.png'), Buffer.from(png!.dataUrl.split(',')[1]!, 'base64'));
      await fresh.locator('vscode-tab-panel').nth(1).screenshot({ path: join(shots, 'compare-tp.png') });
      await fresh.locator('vscode-tab-header', { hasText: 'Run' }).click();
      assert.equal(await fresh.isVisible('#btn-export-csv'), true);
      assert.equal(await fresh.getAttribute('#btn-export-csv', 'title'), `Export the run ${run.name} as CSV`);
    } finally {
      await fresh.close();
    }
  });

  it('lays the cards out without a half-empty row: a card alone in its row takes all of it, charts with nothing to show go last', async () => {
    await page.locator('vscode-tab-header', { hasText: 'Run' }).click();
    await send(page, { type: 'showRun', run, id: RUN_ID });
    await page.waitForFunction(() => document.querySelector('#chart-queue')?.getAttribute('data-drawn')?.includes('points'));
    const boxes = await page.$$eval('.chart-grid > section.card', (cards) => cards.map((c) => {
      const r = c.getBoundingClientRect();
      return { id: (c as HTMLElement).dataset.chart!, top: Math.round(r.top), width: Math.round(r.width), empty: c.classList.contains('is-empty') };
    }));
    const gridWidth = await page.$eval('.chart-grid', (g) => Math.round(g.getBoundingClientRect().width));
    const rows = new Map<number, typeof boxes>();
    for (const b of boxes) rows.set(b.top, [...(rows.get(b.top) ?? []), b]);
    for (const row of rows.values()) {
      if (row.length === 1) assert.ok(row[0]!.width >= gridWidth - 2, `${row[0]!.id} is alone in its row and ${row[0]!.width} of ${gridWidth} px wide`);
    }
    // The recorded run has no capacity search: that card is the last, below every chart.
    const capacity = boxes.find((b) => b.id === 'capacity')!;
    assert.ok(capacity.empty && boxes.every((b) => b.empty || b.top < capacity.top), JSON.stringify(boxes));
  });

  it('exports a PNG captioned with the run, model, machine and date above the charts', async () => {
    const before = await page.evaluate(() => (window as unknown as { __posted: Array<{ type: string }> }).__posted.filter((m) => m.type === 'savePng').length);
    await page.click('#btn-export-png');
    const png = ((await waitForPosted(page, 'savePng', before + 1)) as Array<{ dataUrl: string }>).at(-1)!;
    const bytes = Buffer.from(png.dataUrl.slice('data:image/png;base64,'.length), 'base64');
    // IHDR: width and height, big-endian, at bytes 16 and 20 of a PNG.
    const height = bytes.readUInt32BE(20);
    const charts = await page.$$eval('.chart-grid > section.card:not(.is-empty) canvas', (cs) => cs.reduce((h, c) => h + (c as HTMLCanvasElement).height, 0));
    assert.ok(height > charts + 30, `the PNG (${height} px high) has room for its caption above the charts (${charts} px)`);
  });

  // s39 newcomer-ed 9: after a window reload the page said "No run yet" beside four saved runs. Showing
  // the newest (ca4111c) was reverted (55e53d3): its Run button then ran the shown run's profile, another
  // folder's in a two-folder workspace. Now the run shows as one the page did not make, and the button
  // names and runs the active editor's file.
  it('a page with no run of its own shows the newest saved run, and its Run button names and runs the active editor\'s file, not that run\'s', async () => {
    const fresh = await openDashboard(chromium.browser, chromium.server, 'dark');
    try {
      const runs = [{ id: RUN_ID, name: run.name, createdAt: run.createdAt, status: 'ok', cases: run.cases.length, folder: 'alpha' }, { id: '20000101-000000-old', name: 'old.attn.yaml', createdAt: '2000-01-01T00:00:00.000Z', status: 'ok', cases: 1, folder: 'beta' }];
      await send(fresh, { type: 'init', runs, current: null, currentId: null, latest: { run, id: RUN_ID }, runTarget: { path: '/ws/beta/e2e.attn.yaml', label: 'beta/e2e.attn.yaml' } });
      await fresh.waitForFunction((name) => document.querySelector('#run-title')?.getAttribute('title') === name, run.name);
      assert.equal(await fresh.isVisible('#run-empty'), false);
      assert.equal(await fresh.textContent('#run-latest'), "The newest saved run (in alpha), shown as this window has shown no run; History lists 2 saved runs. The Run button runs the editor's file, not this run's.");
      // The run shown is test/fixtures/run.attn.yaml's benchmark: the button names beta's file instead, and posts no source.
      assert.equal(await fresh.textContent('#btn-run'), 'Run benchmark: beta/e2e.attn.yaml');
      assert.equal(await fresh.getAttribute('#btn-run', 'title'), 'Run benchmark of /ws/beta/e2e.attn.yaml, the file of the editor active last');
      await fresh.click('#btn-run');
      assert.deepEqual((await waitForPosted(fresh, 'runBenchmark')).at(-1), { type: 'runBenchmark' });
      // Another editor active: the label follows; none open: the plain label (the command picks).
      await send(fresh, { type: 'runTarget', target: { path: '/ws/alpha/x.attn.yaml', label: 'alpha/x.attn.yaml' } });
      await fresh.waitForFunction(() => document.querySelector('#btn-run')?.textContent === 'Run benchmark: alpha/x.attn.yaml');
      await send(fresh, { type: 'runTarget', target: null });
      await fresh.waitForFunction(() => document.querySelector('#btn-run')?.textContent === 'Run benchmark');
      // A run the page is shown (opened from History, or run): the button runs that run's file again, and the note goes.
      await send(fresh, { type: 'showRun', run, id: RUN_ID });
      await fresh.waitForFunction(() => document.querySelector('#btn-run')?.textContent === 'Run benchmark: run.attn.yaml');
      assert.equal(await fresh.isVisible('#run-latest'), false);
    } finally {
      await fresh.close();
    }
  });

  // s49 newcomer-ed 9: after sweeping page-size.attn.yaml, History's header read "Run benchmark: page-size.attn.yaml".
  it('over a sweep profile the Run button of a page with no run of its own names and posts the sweep, on History too', async () => {
    const fresh = await openDashboard(chromium.browser, chromium.server, 'light');
    try {
      await send(fresh, { type: 'init', runs: [], current: null, currentId: null, runTarget: { path: '/ws/page-size.attn.yaml', label: 'page-size.attn.yaml', sweep: true } });
      await fresh.locator('vscode-tab-header', { hasText: 'History' }).click();
      await fresh.waitForFunction(() => document.querySelector('#btn-run')?.textContent === 'Run sweep: page-size.attn.yaml');
      assert.equal(await fresh.isVisible('#btn-run'), true, 'the header keeps its Run button on History');
      assert.equal(await fresh.getAttribute('#btn-run', 'title'), 'Run the sweep of /ws/page-size.attn.yaml (its sweep block), the file of the editor active last');
      await fresh.locator('header.toolbar').screenshot({ path: join(shots, 'history-run-sweep.png') });
      await fresh.click('#btn-run');
      assert.deepEqual((await waitForPosted(fresh, 'runSweep')).at(-1), { type: 'runSweep' });
      assert.equal((await fresh.evaluate(() => (window as unknown as { __posted: Array<{ type: string }> }).__posted.filter((m) => m.type === 'runBenchmark').length)), 0, 'no benchmark posted');
      // The sweep block removed (saved): a benchmark again.
      await send(fresh, { type: 'runTarget', target: { path: '/ws/page-size.attn.yaml', label: 'page-size.attn.yaml' } });
      await fresh.waitForFunction(() => document.querySelector('#btn-run')?.textContent === 'Run benchmark: page-size.attn.yaml');
    } finally {
      await fresh.close();
    }
  });

  it('with no run says so once, in place of the cards; a run shown brings the cards back (s34 newcomer-ed: "No run yet" nine times)', async () => {
    const fresh = await openDashboard(chromium.browser, chromium.server, 'dark');
    try {
      await send(fresh, { type: 'init', runs: [], current: null, currentId: null });
      await fresh.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'AttnScope');
      // Each card said "No run yet: ..." (one per chart: nine on a wide panel); now the one line, and no card.
      const says = () => fresh.$$eval('*', (all) => all.filter((e) => (e as HTMLElement).offsetParent !== null && [...e.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.includes('No run yet'))).map((e) => e.id));
      assert.deepEqual(await says(), ['run-empty']);
      assert.equal(await fresh.textContent('#run-empty'), 'No run yet: run a benchmark (AttnScope: Run attention benchmark) or open one from History.');
      const visibleCards = () => fresh.$$eval('.chart-grid > section.card', (cards) => cards.filter((c) => (c as HTMLElement).offsetParent !== null).length);
      assert.equal(await visibleCards(), 0);
      await send(fresh, { type: 'showRun', run, id: RUN_ID });
      await fresh.waitForFunction(() => document.querySelector('#chart-timings')?.getAttribute('data-drawn')?.includes('points'));
      assert.deepEqual(await says(), []);
      assert.ok((await visibleCards()) > 0);
    } finally {
      await fresh.close();
    }
  });

  it('shows a bare config.json\'s memory estimate alone, without empty run placeholders', async () => {
    // Llama-3.1-8B with no profile: no device, so no pool; 128 KiB KV/token · 131,072 tokens = 16 GiB for one sequence.
    const estimate = { ...run.estimate, kvBytesPerToken: 131072, kvBytesForSeqLen: 131072 * 131072, attention: { ...run.estimate.attention, seqLen: 131072 }, pool: { ...run.estimate.pool, budgetSource: 'none', pages: 0, budgetBytes: 0 }, notes: ['no device memory_gib, device.gpu or kv_cache memory_gib: the pool is not sized'] };
    // Named by its folder as the extension sends it (core/format shownFileName): every model's file is config.json (s44 newcomer-ed F7).
    await send(page, { type: 'showEstimate', name: 'Llama-3.1-8B/config.json', profile: { ...run.profile, sourcePath: '/w/hf/Llama-3.1-8B/config.json', device: { ...run.profile.device, memoryGib: null } }, estimate });
    await page.waitForFunction(() => document.querySelector('#run-status')?.textContent === 'estimate');
    assert.equal(await page.textContent('#run-title'), 'Llama-3.1-8B/config.json');
    assert.equal(await page.textContent('#btn-run'), 'Run benchmark: Llama-3.1-8B/config.json');
    await page.waitForFunction(() => document.querySelector('#chart-memory')?.getAttribute('data-drawn')?.includes('KV cache of one 131,072-token sequence'));
    const visible = await page.$$eval('.chart-grid > section.card', (cards) => cards.filter((c) => (c as HTMLElement).offsetParent !== null).map((c) => (c as HTMLElement).dataset.chart));
    assert.deepEqual(visible, ['memory']);
    assert.match((await page.textContent('#summary-memory')) ?? '', /the pool is not sized/);
    await page.screenshot({ path: join(shots, 'estimate-bare-config.png'), fullPage: true });
  });

  it('draws the device\'s capacity across the memory bar of a model larger than the device, and says it does not fit', async () => {
    // DeepSeek-V3's 627 GiB of weights on one 80 GiB device (a newcomer saw a 627 GiB bar labelled "device 80 GiB" and no mark at 80).
    const estimate = { ...run.estimate, weightsBytes: 627 * 1024 ** 3, weightsBytesPerGpu: 627 * 1024 ** 3 };
    await send(page, { type: 'showEstimate', name: 'ds.attn.yaml', profile: { ...run.profile, device: { ...run.profile.device, memoryGib: 80, tensorParallelSize: 1 } }, estimate });
    await page.waitForFunction(() => (document.querySelector('#summary-memory')?.textContent ?? '').includes('they do not fit'));
    assert.match((await page.textContent('#summary-memory')) ?? '', /These parts need \d+\.\d\d GiB, \d+\.\dx the device's 80\.00 GiB \(the line\): they do not fit\./);
    await page.screenshot({ path: join(shots, 'estimate-over-device.png'), fullPage: true });
  });

  it('labels the device line clear of the x tick labels (memory-device-line.png)', async () => {
    // The s36 newcomer's Jamba on an H100 SXM: the line at 79.22 GiB was labelled as an extra tick,
    // "79.2" printed over the axis's "80" ("79.280"). 96 GiB of weights: chart.js ticks every 10 or 20 GiB, 80 among them.
    await recordTexts(page);
    const estimate = { ...run.estimate, weightsBytes: 96 * 1024 ** 3, weightsBytesPerGpu: 96 * 1024 ** 3 };
    await send(page, { type: 'showEstimate', name: 'jamba.attn.yaml', profile: { ...run.profile, device: { ...run.profile.device, memoryGib: 79.22, tensorParallelSize: 1 } }, estimate });
    await page.waitForFunction(() => (document.querySelector('#summary-memory')?.textContent ?? '').includes("the device's 79.22 GiB (the line)"));
    for (const width of [1280, 480, 340]) {
      await page.setViewportSize({ width, height: 900 });
      const texts = await lastDrawnTexts(page, 'memory', width - 20);
      if (width === 1280) await page.locator('section[data-chart="memory"]').screenshot({ path: join(shots, 'memory-device-line.png') });
      assert.ok(texts.some((t) => t.text === '79.22 GiB'), `${width} px: no device label among ${texts.map((t) => t.text).join(' | ')}`);
      if (width === 1280) assert.ok(texts.some((t) => t.text === '80'), `${width} px: no tick 80 among ${texts.map((t) => t.text).join(' | ')}`);
      assert.deepEqual(overlappingTexts(texts), [], `${width} px`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('draws a bf16 roof close above the fp32 one with both labels drawn (roofline-bf16.png: each label clear of the lines and of the other)', async () => {
    // A bf16 peak 1.5x the fp32 one: the two flat roofs lie a few pixels apart on the log axis, the closest they come.
    const peaks = { ...run.environment.peaks!, avx512Bf16FlopsPerSec: 1.5 * run.environment.peaks!.fp32FlopsPerSec! };
    await send(page, { type: 'runFinished', run: { ...run, name: 'bf16.attn.yaml', environment: { ...run.environment, peaks } }, id: null });
    await page.waitForFunction(() => document.querySelector('#chart-roofline')?.getAttribute('data-drawn')?.includes('bf16 AVX512-BF16 peak'));
    await page.locator('section[data-chart="roofline"]').screenshot({ path: join(shots, 'roofline-bf16.png') });
  });

  it('in a 340 px panel writes the roof labels apart from each other and from every other text (roofline-340-*.png)', async () => {
    await recordTexts(page);
    await page.setViewportSize({ width: 340, height: 900 });
    try {
      // The bandwidth 33.4 GB/s; the fp32 peak alone (the recorded run), then with a bf16 peak 1.5x it.
      const bandwidth = si(run.environment.peaks!.readBytesPerSec!, 'B/s');
      for (const [name, peaks] of [['fp32', run.environment.peaks!], ['bf16', { ...run.environment.peaks!, avx512Bf16FlopsPerSec: 1.5 * run.environment.peaks!.fp32FlopsPerSec! }]] as const) {
        await send(page, { type: 'runFinished', run: { ...run, name: `${name}.attn.yaml`, environment: { ...run.environment, peaks } }, id: null });
        // Each peak's label whole, or where that finds no clear place, its unit and rate alone.
        const fp32 = si(peaks.fp32FlopsPerSec!, 'FLOP/s');
        const bf16 = 'avx512Bf16FlopsPerSec' in peaks ? si(peaks.avx512Bf16FlopsPerSec!, 'FLOP/s') : null;
        const computeLabels = [[`fp32 FMA peak ${fp32}`, `fp32 ${fp32}`], ...(bf16 ? [[`bf16 AVX512-BF16 peak ${bf16}`, `AVX512-BF16 ${bf16}`]] : [])];
        // This run's roofs drawn (the page describes them in the canvas's data-drawn after drawing), then the draw at the narrow width.
        await page.waitForFunction((bf16) => (document.querySelector('#chart-roofline')?.getAttribute('data-drawn') ?? '').includes('bf16 AVX512-BF16 peak') === bf16, bf16 !== null);
        const texts = await lastDrawnTexts(page, 'roofline', 330);
        await page.locator('section[data-chart="roofline"]').screenshot({ path: join(shots, `roofline-340-${name}.png`) });
        for (const labels of computeLabels) assert.ok(texts.some((t) => labels.includes(t.text)), `no ${labels.join(' / ')} among ${texts.map((t) => t.text).join(' | ')}`);
        // The slope's label is written too, whole or as the rate alone.
        assert.ok(texts.some((t) => t.text === `read bandwidth ${bandwidth}` || t.text === bandwidth), `no bandwidth label among ${texts.map((t) => t.text).join(' | ')}`);
        assert.deepEqual(overlappingTexts(texts), [], name);
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('at 480 and 340 px writes the Achieved-throughput chart\'s two-line case labels apart from each other and from every other text (throughput-*.png)', async () => {
    // The s27 newcomer's panel, about 480 px: 'B1 N512' / 'prefill' and the next row's lines printed over each other.
    // Each row's label on two lines, kernel then shape (caseTickLines), written out by hand from the shapes above.
    const lines = ['prefill', 'B1 N512', 'prefill', 'B1 N1024', 'decode', 'B1 ctx1024 p16', 'decode', 'B1 ctx4096 p16', 'decode', 'B8 ctx1024 p16', 'decode', 'B8 ctx4096 p16'];
    await recordTexts(page);
    await send(page, { type: 'runFinished', run: { ...run, name: 'six.attn.yaml', cases: six }, id: null });
    await page.waitForFunction(() => document.querySelector('#chart-throughput')?.getAttribute('data-drawn')?.endsWith('compute-bound (of GFLOP/s peak): 6 points; memory-bound (of GB/s peak): 6 points'));
    try {
      for (const width of [480, 340]) {
        await page.setViewportSize({ width, height: 900 });
        const texts = await lastDrawnTexts(page, 'throughput', width - 20);
        await page.locator('section[data-chart="throughput"]').screenshot({ path: join(shots, `throughput-${width}.png`) });
        // Every label is written (autoSkip off): in order, top row first.
        const rows = texts.filter((t) => lines.includes(t.text)).sort((a, b) => a.corners[0]!.y - b.corners[0]!.y).map((t) => t.text);
        assert.deepEqual(rows, lines, `${width} px`);
        assert.deepEqual(overlappingTexts(texts), [], `${width} px`);
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('at 340, 480 and 800 px no chart of a run writes a text over another (charts-*.png)', async () => {
    // The recorded run (pool, latency) with 18 cases (the six at batch 1x, 4x and 16x: 18 rows, where a row per case
    // 28 px tall printed each two-line label over the next at every width): every card of the run view with something to show.
    const eighteen = [1, 4, 16].flatMap((k) => six.map((c) => ({ ...c, shape: { ...c.shape, batchSize: k * c.shape.batchSize } })));
    await recordTexts(page);
    await send(page, { type: 'runFinished', run: { ...run, name: 'all.attn.yaml', cases: eighteen }, id: null });
    // The kernel charts drawn with the 18 cases (the page writes each canvas's data-drawn after drawing it); the pool
    // and latency charts show the recorded run's pool, as they have since the first test.
    await page.waitForFunction((want) => want.every(([id, text]) => document.querySelector(`#chart-${id}`)?.getAttribute('data-drawn')?.includes(text)), [
      ['timings', 'median: 18 points; p10–p90: 18 points'],
      ['throughput', 'compute-bound (of GFLOP/s peak): 18 points; memory-bound (of GB/s peak): 18 points'],
      ['roofline', 'prefill (flash_fwd): 6 points; decode (paged_decode): 12 points'],
    ]);
    const found: string[] = [];
    try {
      for (const width of [340, 480, 800]) {
        await page.setViewportSize({ width, height: 900 });
        const ids = await page.$$eval('section.card:not(.is-empty)', (cards) => cards.filter((c) => (c as HTMLElement).offsetParent !== null).map((c) => c.getAttribute('data-chart')!));
        assert.ok(['timings', 'throughput', 'roofline', 'memory', 'poolTimeline', 'poolBaselines', 'latencyCdf', 'queue'].every((id) => ids.includes(id)), `${width} px: cards ${ids.join(', ')}`);
        for (const id of ids) {
          const texts = await lastDrawnTexts(page, id, width - 20);
          const overlaps = overlappingTexts(texts);
          if (overlaps.length > 0) {
            found.push(`${width} px, ${id}: ${overlaps.join('; ')}`);
            await page.locator(`section[data-chart="${id}"]`).screenshot({ path: join(shots, `charts-${width}-${id}.png`) });
          }
        }
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    assert.deepEqual(found, []);
  });

  it('a run it restores as running after a window reload, with no run from the extension, shows as interrupted, not running', async () => {
    // A simulation streaming when the window reloaded: the extension host that ran it ended, and the
    // next one has no run to send in init (a simulation stopped early is not saved). The restored page said "running", Cancel on, forever.
    await send(page, { type: 'runStarted', name: 'sim.attn.yaml · simulation', total: 1, kind: 'simulate', profile: run.profile, estimate: run.estimate });
    await send(page, { type: 'poolSamples', samples: run.pool!.samples.slice(0, 3) });
    await page.waitForFunction(() => (JSON.parse(sessionStorage.getItem('vscode-state') ?? '{}') as { model?: { current?: { status?: string; poolSamples?: unknown[] } } }).model?.current?.poolSamples?.length === 3);
    await page.reload();
    await waitForPosted(page, 'ready');
    // s37 newcomer-ed 5: before init (3-15 s after a reload on a busy machine) it read "running", Cancel on and Run off; then
    // "cancelled" from the state saved while it ran, which lags the run (s46): restoring until init says how it ended.
    assert.equal(await page.textContent('#run-status'), 'restoring…', 'before init');
    assert.notEqual(await page.getAttribute('#btn-cancel', 'disabled'), null, 'no Cancel before init');
    await setTheme(page, 'dark');
    await send(page, { type: 'init', runs: [], current: null, currentId: null });
    // s50 newcomer-ed 1: its badge said "cancelled" beside the line's "interrupted": one word for it, as History says.
    await page.waitForFunction(() => document.querySelector('#run-status')?.textContent === 'interrupted');
    assert.equal(await page.textContent('#run-title'), 'sim.attn.yaml · simulation');
    assert.match((await page.textContent('#run-environment')) ?? '', /interrupted \(window reloaded or closed\) while it ran/);
    assert.notEqual(await page.getAttribute('#btn-cancel', 'disabled'), null, 'no Cancel for a run nothing runs');
    // A run the extension still streams replays its runStarted after init: running again.
    await send(page, { type: 'runStarted', name: 'live.attn.yaml', total: 3, profile: run.profile, estimate: run.estimate });
    await page.waitForFunction(() => document.querySelector('#run-status')?.textContent === 'running');
  });

  it('the Sweep tab names the sweep in its header and hides the run\'s buttons (they acted on the run beside it: Export CSV wrote that run); its own Export CSV sends the sweep, and it says where the figures come from', async () => {
    // The s27 newcomer's view: a run in the header (here live.attn.yaml, still running), then a sweep opened.
    const report: SweepReport = {
      schema: 1, kind: 'attnscope-sweep-report', tool: 't', createdAt: '', sweepId: 'ab12', name: 'llama-3.1-8b.attn.yaml', job: 'simulate',
      axes: [{ key: 'kv_cache.page_size', values: [8, 16] }], total: 2,
      rows: [8, 16].map((ps, index) => ({ id: `p${ps}`, index, values: { 'kv_cache.page_size': ps }, label: `page_size=${ps}`, environmentKey: 'e1', status: 'ok' as const, metrics: { throughputTokensPerSec: 100 }, file: `p${ps}.json` })),
      missing: [], duplicates: [], environments: { e1: run.environment }, best: null,
    };
    await send(page, { type: 'showSweep', report });
    await page.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'llama-3.1-8b.attn.yaml · sweep');
    for (const id of ['btn-run', 'btn-cancel', 'btn-export-json', 'btn-export-csv', 'btn-export-png', 'run-progress']) assert.equal(await page.isVisible(`#${id}`), false, `#${id} on the Sweep tab`);
    assert.equal(await page.textContent('#run-status'), '');
    // Where its figures come from, in the CLI footer's words (core/sweepFigures sweepProvenance): a simulated throughput alone, the pool sentence.
    assert.equal(await page.textContent('#sweep-sources'), 'pool figures: modelled, the page-pool simulation of each point (as `attnscope simulate`; vLLM V1 scheduling), time-averaged');
    // The tab's own Export CSV sends the report it shows, for the extension to write (core/sweepCsv.ts).
    await page.click('#btn-export-sweep-csv');
    assert.deepEqual(await waitForPosted(page, 'exportSweep'), [{ type: 'exportSweep', report }]);
    // Copy as Markdown (s41 newcomer-ed F5): the report with its table as Markdown, ranked by the figure shown (the only one here), for the extension's clipboard.
    await page.click('#btn-sweep-md');
    const [, copied] = (await waitForPosted(page, 'exportSweep', 2)) as Array<{ report: SweepReport; markdown?: string }>;
    assert.equal(copied!.markdown, sweepMarkdown(report, SWEEP_METRICS.find((m) => m.key === 'throughputTokensPerSec')!));
    assert.match(copied!.markdown!, /^### llama-3\.1-8b\.attn\.yaml · sweep \(modelled\)\n[^]*\n- ranked by output throughput \(tokens\/s, modelled\), higher first\n\n\| rank \| best \| kv_cache\.page_size \| output throughput \(tokens\/s, modelled\) \| status \|\n/);
    // Tab from the bar's last button (Export PNG, after Export CSV) stops at the Every point table (no stop before s41 newcomer-ed F7: Tab left the webview), a region named by its heading.
    await page.focus('#btn-sweep-png');
    await page.keyboard.press('Tab');
    assert.deepEqual(await page.evaluate(() => [document.activeElement?.id, document.activeElement?.getAttribute('role')]), ['sweep-table', 'region']);
    assert.match(await page.locator('#sweep-table').ariaSnapshot(), /^- region "Every point":/);
    // Back on the Run tab: the run's header and buttons again.
    await page.locator('vscode-tab-header').first().click();
    await page.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'live.attn.yaml');
    assert.equal(await page.textContent('#run-status'), 'running');
    assert.equal(await page.isVisible('#btn-export-csv'), true);
  });

  // s45 newcomer-ed N1 / N2: s44's cost profile over four GPUs in a ~480 px panel; screenshots sweep-cost-narrow.png.
  it('a cost sweep in a 480 px panel: the points left out of the best greyed in the $ / 1M output tokens vs device.gpu chart too, its name\'s "lowest" among the points kept', async () => {
    // The newcomer's figures: H100 SXM $0.318, A100 80GB $0.165 (keep up, all meet the SLO), L4 $0.563 (0.0 %), RTX 4090 $0.0863 (8.5 %), neither keeping up.
    const gpus: Array<[string, number, number, number, boolean]> = [['H100 SXM', 2.49, 0.318, 1, true], ['A100 80GB', 1.29, 0.165, 1, true], ['L4', 0.8, 0.563, 0, false], ['RTX 4090', 0.35, 0.0863, 0.085, false]];
    const rows = gpus.map(([gpu, price, usd, met, keepsUp], index) => ({
      id: `g${index}`, index, values: { 'device.gpu': gpu }, label: `gpu=${gpu}`, environmentKey: 'e1', status: 'ok' as const, file: `g${index}.json`, gpu, keepsUp,
      metrics: { gpuHourUsd: price, usdPerMillionOutputTokens: usd, sloAttainment: met, throughputTokensPerSec: 1000 },
    }));
    const report: SweepReport = {
      schema: 1, kind: 'attnscope-sweep-report', tool: 't', createdAt: '', sweepId: 'c045', name: 'cost.attn.yaml', job: 'simulate',
      axes: [{ key: 'device.gpu', values: gpus.map((g) => g[0]) }], total: 4, rows, missing: [], duplicates: [], environments: { e1: run.environment },
      best: { id: 'g1', environmentKey: 'e1', label: 'gpu=A100 80GB', rule: 'lowest modelled $ per million output tokens', byCost: true },
    };
    await page.setViewportSize({ width: 480, height: 1400 });
    try {
      await send(page, { type: 'showSweep', report });
      await page.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'cost.attn.yaml · sweep');
      await page.waitForSelector('#chart-sweep-cost');
      const line = (await page.getAttribute('#chart-sweep-0', 'aria-label')) ?? '';
      // Before: "lowest 0.0863 … at gpu RTX 4090".
      assert.match(line, /lowest \$0\.165 [^;]* at gpu A100 80GB among the points kept for the best; left out of the best: gpu L4 \$0\.563 \(fails SLO \(0\.0%\), does not keep up\), gpu RTX 4090 \$0\.0863 \(fails SLO \(8\.5%\), does not keep up\)$/);
      await page.locator('#sweep-charts').screenshot({ path: join(shots, 'sweep-cost-narrow.png') });
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.locator('vscode-tab-header').first().click();
    }
  });

  it('a sweep over tensor_parallel_size: the best line says it ranks per GPU, and the sources say the all-reduce is not modelled (s38 newcomer 3)', async () => {
    // Goodput 5.89 requests/s on 4 GPUs (1.47 per GPU) against 9.32 on 8 (1.165): per GPU, tp 4.
    const rows = [[4, 5.89], [8, 9.32]].map(([tp, goodput], index) => ({
      id: `t${tp}`, index, values: { 'device.tensor_parallel_size': tp }, label: `tensor_parallel_size=${tp}`, environmentKey: 'e1', status: 'ok' as const, file: `t${tp}.json`,
      metrics: { gpus: tp!, sloAttainment: 1, goodputRequestsPerSec: goodput! }, unmodelled: [`the communication between the ${tp} tensor-parallel GPUs`],
    }));
    const best = bestRow(rows)!;
    const report: SweepReport = {
      schema: 1, kind: 'attnscope-sweep-report', tool: 't', createdAt: '', sweepId: 'tp01', name: 'l70-tp.attn.yaml', job: 'simulate',
      axes: [{ key: 'device.tensor_parallel_size', values: [4, 8] }], total: 2, rows, missing: [], duplicates: [], environments: { e1: run.environment },
      best: { id: best.row.id, environmentKey: 'e1', label: best.row.label, rule: best.rule },
    };
    await send(page, { type: 'showSweep', report });
    await page.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'l70-tp.attn.yaml · sweep');
    assert.match((await page.textContent('#sweep-best')) ?? '', /^Best point: tensor_parallel_size=4 — highest simulated goodput per GPU \(the points use different GPU counts/);
    assert.match((await page.textContent('#sweep-sources')) ?? '', /not modelled in the step times: the communication between the 4 tensor-parallel GPUs, the communication between the 8 tensor-parallel GPUs \(the all-reduce after every attention and MLP block/);
    await page.locator('vscode-tab-header').first().click();
  });

  it('a best point vLLM would not run says so under it, in the CLI\'s words (best.notOnVllm, 714738d); a best it runs, nothing', async () => {
    // The CLI's sentence for page_size 8 on an H100 SXM (runner/sweep/results.ts mergeResults: core/estimate vllmPageSizeNote).
    const note = vllmPageSizeNote(8, { gpu: 'H100 SXM', backend: 'cuda' })!.text;
    const report = (best: SweepReport['best']): SweepReport => ({
      schema: 1, kind: 'attnscope-sweep-report', tool: 't', createdAt: '', sweepId: 'cd34', name: 'vllm-pages.attn.yaml', job: 'simulate',
      axes: [{ key: 'kv_cache.page_size', values: [8, 16] }], total: 2,
      rows: [8, 16].map((ps, index) => ({ id: `p${ps}`, index, values: { 'kv_cache.page_size': ps }, label: `page_size=${ps}`, environmentKey: 'e1', status: 'ok' as const, metrics: { throughputTokensPerSec: 100 + 16 - ps }, file: `p${ps}.json` })),
      missing: [], duplicates: [], environments: { e1: run.environment }, best,
    });
    const rule = 'highest output throughput (modelled) among points that rejected no request';
    await send(page, { type: 'showSweep', report: report({ id: 'p8', environmentKey: 'e1', label: 'page_size=8', rule, notOnVllm: note }) });
    await page.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'vllm-pages.attn.yaml · sweep');
    assert.equal(await page.textContent('#sweep-best'), `Best point: page_size=8 — ${rule}.`);
    assert.equal(await page.textContent('#sweep-best-vllm'), `not runnable on vLLM: ${note}`);
    assert.equal(await page.isVisible('#sweep-best-vllm'), true);
    await send(page, { type: 'showSweep', report: report({ id: 'p16', environmentKey: 'e1', label: 'page_size=16', rule }) });
    await page.waitForFunction(() => document.querySelector('#sweep-best')?.textContent?.startsWith('Best point: page_size=16'));
    assert.equal(await page.isVisible('#sweep-best-vllm'), false);
    // Back on the Run tab, as the tests after this one expect.
    await page.locator('vscode-tab-header').first().click();
    await page.waitForFunction(() => !document.querySelector('#run-title')?.textContent?.endsWith(' · sweep'));
  });

  it('the Sweep tab says what the CLI report says: its title names the model, the table has keeps up, the points left out and why are under the best; with no best, the report\'s reasons (s36 sweep36 3)', async () => {
    const why = '400.0 requests/s offered, above the saturated throughput μ = 236.1 requests/s';
    const leftOut = `left out, the modelled server not keeping up (a finite run ends before such a queue has grown, so its latency and goodput flatter it): arrival_rate=400 (${why})`;
    const report = (best: SweepReport['best'], noBest?: string[]): SweepReport => ({
      schema: 1, kind: 'attnscope-sweep-report', tool: 't', createdAt: '', sweepId: 'ef56', name: 'rates.attn.yaml', job: 'simulate', models: ['Llama-3.1-8B'],
      axes: [{ key: 'workload.arrival_rate', values: [100, 400] }], total: 2,
      rows: [100, 400].map((rate, index) => ({ id: `r${rate}`, index, values: { 'workload.arrival_rate': rate }, label: `arrival_rate=${rate}`, environmentKey: 'e1', status: 'ok' as const, metrics: { throughputTokensPerSec: rate * 10 }, file: `r${rate}.json`, keepsUp: rate === 100, ...(rate === 100 ? {} : { notKeptUp: why }) })),
      missing: [], duplicates: [], environments: { e1: run.environment }, best, ...(noBest ? { noBest } : {}),
    });
    const rule = 'highest output throughput (modelled) among points that rejected no request and the server keeps up with';
    await send(page, { type: 'showSweep', report: report({ id: 'r100', environmentKey: 'e1', label: 'arrival_rate=100', rule, leftOut }) });
    await page.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'Llama-3.1-8B · rates.attn.yaml · sweep');
    const headers = await page.$$eval('#sweep-table th', (els) => els.map((e) => e.textContent));
    assert.ok(headers.includes('keeps up (modelled)'), headers.join(' | '));
    const cells = await page.$$eval('#sweep-table tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    const column = headers.indexOf('keeps up (modelled)');
    assert.deepEqual(cells.map((r) => r[column]), ['yes', 'no']);
    assert.equal(await page.textContent('#sweep-best-notes'), leftOut);
    const none = `no best point: ${leftOut}`;
    await send(page, { type: 'showSweep', report: report(null, [none]) });
    await page.waitForFunction(() => document.querySelector('#sweep-best')?.textContent === 'No point qualifies as best.');
    assert.equal(await page.textContent('#sweep-best-notes'), none);
    await page.locator('vscode-tab-header').first().click();
    await page.waitForFunction(() => !document.querySelector('#run-title')?.textContent?.endsWith(' · sweep'));
  });

  it('a best tied with more points than its sentence names lists them on the tab, under a Details toggle (s44 newcomer-ed F5: "the report\'s best.tiedWith lists them")', async () => {
    const tiedWith = logSweep.rows.slice(1, 6).map((r) => ({ id: r.id, environmentKey: r.environmentKey, label: r.label }));
    const best = { id: logSweep.rows[0]!.id, environmentKey: 'e1', label: logSweep.rows[0]!.label, rule: 'highest simulated output throughput', tiedWith, tie: 'tied with 5 other points (sweep-report.json lists them under best.tiedWith): simulated throughput within 1%' };
    await send(page, { type: 'showSweep', report: { ...logSweep, best } });
    await page.waitForSelector('#sweep-best-tied');
    assert.equal(await page.textContent('#sweep-best'), 'Best point: max_num_batched_tokens=50 page_size=16 — highest simulated output throughput; tied with 5 other points (listed below): simulated throughput within 1%.');
    assert.equal(await page.textContent('#sweep-best-tied summary'), 'The 5 points tied with the best');
    await page.$eval('#sweep-best-tied', (d) => ((d as HTMLDetailsElement).open = true));
    assert.deepEqual(await page.$$eval('#sweep-best-tied li', (lis) => lis.map((li) => li.textContent)), tiedWith.map((t) => t.label));
    await page.locator('#sweep-best-notes').screenshot({ path: join(shots, 'sweep-best-tied.png') });
  });

  it('a max-rate sweep on the Sweep tab: the CLI\'s limit and rejected columns, and under the best the close point and the GPU models counted alike (s42 newcomer-ed F3, F4)', async () => {
    // The newcomer's sweep (Llama-3.1-70B, p99 TTFT <= 1 s): tp 4 limited by the SLO, tp 8 by capacity (μ), as `attnscope merge` printed it.
    const close = 'close, not a clear winner on max rate per GPU alone: tensor_parallel_size=4 gpu=H100 SXM 2.2% below (0.1% to 4.2% by the searches)';
    const gpuModels = 'the points run on different GPU models (H100 SXM, H200): the ranking counts a GPU of each alike, as if they cost the same';
    const points: Array<[number, string, number, 'slo' | 'capacity', number]> = [[4, 'H100 SXM', 11.16, 'slo', 0], [4, 'H200', 11.4, 'slo', 0], [8, 'H100 SXM', 20, 'capacity', 0], [8, 'H200', 20, 'capacity', 3]];
    const report: SweepReport = {
      schema: 1, kind: 'attnscope-sweep-report', tool: 't', createdAt: '', sweepId: 'mr42', name: 'decision.attn.yaml', job: 'max-rate',
      axes: [{ key: 'device.tensor_parallel_size', values: [4, 8] }, { key: 'device.gpu', values: ['H100 SXM', 'H200'] }], total: 4,
      rows: points.map(([tp, gpu, rate, limit, rejected], index) => ({ id: `p${index}`, index, values: { 'device.tensor_parallel_size': tp, 'device.gpu': gpu }, label: `tensor_parallel_size=${tp} gpu=${gpu}`, environmentKey: 'e1', status: 'ok' as const, metrics: { gpus: tp, maxRateRequestsPerSec: rate, maxRatePerGpuRequestsPerSec: rate / tp, maxRateLimit: limit, rejected, throughputTokensPerSec: rate * 272 }, file: `p${index}.json`, gpu })),
      missing: [], duplicates: [], environments: { e1: run.environment },
      best: { id: 'p1', environmentKey: 'e1', label: 'tensor_parallel_size=4 gpu=H200', rule: 'highest max rate per GPU', close, gpuModels },
    };
    await send(page, { type: 'showSweep', report });
    await page.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'decision.attn.yaml · sweep');
    const headers = await page.$$eval('#sweep-table th', (els) => els.map((e) => e.textContent));
    const cells = await page.$$eval('#sweep-table tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    const limit = headers.indexOf('limit (modelled)');
    const rejected = headers.indexOf('rejected requests (modelled)');
    // As the CLI's table: limit after the rate per GPU, rejected after the output throughput.
    assert.equal(headers[limit - 1], 'max rate per GPU (requests/s, modelled)', headers.join(' | '));
    assert.equal(headers[rejected - 1], 'output throughput (tokens/s, modelled)', headers.join(' | '));
    assert.deepEqual(cells.map((r) => r[limit]), ['SLO', 'SLO', 'capacity', 'capacity']);
    assert.deepEqual(cells.map((r) => r[rejected]), ['0', '0', '0', '3']);
    assert.deepEqual(await page.$$eval('#sweep-best-notes p', (ps) => ps.map((p) => p.textContent)), [close, gpuModels]);
    await page.locator('vscode-tab-header').first().click();
    await page.waitForFunction(() => !document.querySelector('#run-title')?.textContent?.endsWith(' · sweep'));
  });

  // s28 newcomer-ed 5: after a reload or a closed and reopened dashboard the Sweep tab sent the user
  // to the CLI, under an empty Figure picker and an empty "Every point" heading; History listed no sweep.
  it('the Sweep tab with no sweep: advice naming the Run sweep lens first, no picker or heading; the extension\'s sweep in init shown, History listing sweeps to open', async () => {
    const fresh = await openDashboard(chromium.browser, chromium.server, 'dark', { locale: 'en-US', timezoneId: 'Asia/Tokyo' });
    try {
      await send(fresh, { type: 'init', runs: [], current: null, currentId: null });
      await fresh.locator('vscode-tab-header').nth(2).click();
      await fresh.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'AttnScope · sweep');
      assert.match((await fresh.textContent('#sweep-summary')) ?? '', /^No sweep open: run one with the Run sweep code lens on a profile's sweep: key \(or AttnScope: Run sweep\), or open a finished one from History/);
      for (const id of ['sweep-metric', 'btn-export-sweep-csv', 'sweep-points-heading']) assert.equal(await fresh.isVisible(`#${id}`), false, `#${id} with no sweep`);
      // The extension's init after a reload (or a reopened dashboard): the sweep shown last, and the sweeps of .attnscope/sweeps.
      const report: SweepReport = {
        schema: 1, kind: 'attnscope-sweep-report', tool: 't', createdAt: '2026-12-03T18:12:51.000Z', sweepId: 'c322d6f5', name: 'combo.attn.yaml', job: 'simulate',
        axes: [{ key: 'kv_cache.page_size', values: [16, 32] }], total: 2,
        rows: [16, 32].map((ps, index) => ({ id: `p${ps}`, index, values: { 'kv_cache.page_size': ps }, label: `page_size=${ps}`, environmentKey: 'e1', status: 'ok' as const, metrics: { throughputTokensPerSec: 100 + ps }, file: `p${ps}.json` })),
        missing: [], duplicates: [], environments: { e1: run.environment }, best: null,
      };
      const sweeps = [
        { id: 'combo-c322d6f5', name: 'combo.attn.yaml', createdAt: '2026-12-03T18:12:51.000Z', job: 'simulate' as const, points: 2, total: 2 },
        { id: 'grid-0badcafe', name: 'grid.attn.yaml', createdAt: '2026-12-03T17:00:00.000Z', job: 'bench' as const, points: 3, total: 4 },
        // s42: the report of a sweep cancelled or interrupted with points kept (SweepReport.interrupted), which read as a finished one.
        { id: 'grid-feedf00d', name: 'grid.attn.yaml', createdAt: '2026-12-03T16:00:00.000Z', job: 'simulate' as const, points: 9, total: 24, interrupted: true as const },
      ];
      await send(fresh, { type: 'init', runs: [], current: null, currentId: null, sweep: report, sweeps });
      await fresh.waitForFunction(() => document.querySelectorAll('#sweep-table tbody tr').length === 2);
      assert.equal(await fresh.textContent('#run-title'), 'combo.attn.yaml · sweep');
      for (const id of ['sweep-metric', 'btn-export-sweep-csv', 'sweep-points-heading']) assert.equal(await fresh.isVisible(`#${id}`), true, `#${id} with a sweep`);
      await fresh.locator('vscode-tab-header').nth(1).click();
      // Columns: time, name, kind (the sweep's job), points (with a result, of the sweep's), Open.
      const rows = await tableRows(fresh, 'table-sweeps');
      assert.deepEqual(rows.map((r) => r.slice(1, 4)), [['combo.attn.yaml', 'sweep (job: simulate)', '2'], ['grid.attn.yaml', 'sweep (job: bench)', '3 of 4'], ['grid.attn.yaml', 'sweep (job: simulate)', 'interrupted, 9 of 24 points']]);
      await fresh.locator('tr[data-sweep="grid-0badcafe"] vscode-button').click();
      assert.deepEqual(await waitForPosted(fresh, 'openSweep'), [{ type: 'openSweep', id: 'grid-0badcafe' }]);
      await fresh.screenshot({ path: join(shots, 'history-sweeps.png') });
    } finally {
      await fresh.close();
    }
  });

  // s37 newcomer-ed 7: 343 runs put Sweeps and Compare ~340 rows down with no filter, Open wrapped "Op / en"
  // at the side panel's width, and two sweeps of one profile read alike.
  it('History of 343 runs: Compare and Sweeps above the runs, the newest 50 shown with Show more, a name filter, Open on one line, each sweep\'s folder', async () => {
    const fresh = await openDashboard(chromium.browser, chromium.server, 'highContrast', { locale: 'en-US', timezoneId: 'Asia/Tokyo' });
    try {
      await fresh.setViewportSize({ width: 570, height: 900 });
      const runs = Array.from({ length: 343 }, (_, i) => ({ id: `r${i}`, name: `${i % 7 === 0 ? 'qwen' : 'llama-3.1-8b-instruct'}-${i}.attn.yaml`, createdAt: new Date(Date.UTC(2026, 11, 4) - i * 60_000).toISOString(), status: 'ok' as const, cases: 6, folder: i % 2 ? 'a' : 'b' }));
      const sweeps = [
        { id: 'bsweep-beeb9d62', name: 'bsweep.attn.yaml', createdAt: '2026-12-04T01:00:00.000Z', job: 'simulate' as const, points: 1, total: 4, folder: 'b' },
        { id: 'bsweep-97fc9f9d', name: 'bsweep.attn.yaml', createdAt: '2026-12-04T00:00:00.000Z', job: 'simulate' as const, points: 4, total: 4, folder: 'b' },
      ];
      await send(fresh, { type: 'init', runs, current: null, currentId: null, sweeps });
      await fresh.locator('vscode-tab-header').nth(1).click();
      await fresh.waitForSelector('table.table-history[data-rows="50"]', { state: 'attached' });
      assert.equal(await fresh.textContent('#history-count'), 'newest 50 of 343 runs');
      // Compare and Sweeps above the runs.
      const y = async (sel: string) => (await fresh.locator(sel).boundingBox())!.y;
      assert.ok(await y('#btn-compare') < await y('table.table-history'));
      assert.ok(await y('table.table-sweeps') < await y('table.table-history'));
      // Each sweep's results folder, as the Open sweep results picker names it.
      assert.deepEqual((await tableRows(fresh, 'table-sweeps')).map((r) => r[4]), ['bsweep-beeb9d62', 'bsweep-97fc9f9d']);
      // Open on one line: as tall as the one-line Compare button.
      const open = (await fresh.locator('table.table-history vscode-button').first().boundingBox())!;
      const one = (await fresh.locator('#btn-compare').boundingBox())!;
      assert.ok(open.height <= one.height + 1, `Open ${open.height} px tall, Compare ${one.height} px`);
      await fresh.screenshot({ path: join(shots, 'history-343.png') });
      await fresh.click('#btn-history-more');
      await fresh.waitForSelector('table.table-history[data-rows="100"]', { state: 'attached' });
      // 343 / 7 rounded up: 49 qwen runs (i = 0, 7, ..., 336); "qwen" in one of them only matches "qwen-7.".
      await fresh.locator('#history-filter').click();
      await fresh.keyboard.type('QWEN');
      await fresh.waitForSelector('table.table-history[data-rows="49"]', { state: 'attached' });
      assert.equal(await fresh.textContent('#history-count'), '49 of 343 runs');
      assert.equal(await fresh.isVisible('#btn-history-more'), false);
      await fresh.keyboard.type('-7.');
      await fresh.waitForSelector('table.table-history[data-rows="1"]', { state: 'attached' });
      assert.deepEqual((await tableRows(fresh, 'table-history')).map((r) => r[1]), ['a: qwen-7.attn.yaml']);
    } finally {
      await fresh.close();
    }
  });

  // s33 newcomer-ed: in a ~190 px panel the pool chart's three axes left its left one too narrow for "2,048", the memory bar's
  // "device 80 GiB" ran past the canvas's left edge, legends were cut.
  it('in a 190 px panel every chart of a run writes its texts inside its canvas: legend below, fewer ticks, no right axes (narrow-190-*.png)', async () => {
    const fresh = await openDashboard(chromium.browser, chromium.server, 'dark', { locale: 'en-US', timezoneId: 'Asia/Tokyo' });
    try {
      await recordTexts(fresh);
      await fresh.setViewportSize({ width: 190, height: 900 });
      await send(fresh, { type: 'init', runs: [], current: run, currentId: RUN_ID });
      await fresh.waitForFunction(() => ['poolTimeline', 'latencyCdf', 'queue'].every((id) => document.querySelector(`#chart-${id}`)?.getAttribute('data-drawn')?.includes('points')));
      const found: string[] = [];
      for (const theme of ['dark', 'highContrastLight'] as const) {
        await setTheme(fresh, theme);
        const ids = await fresh.$$eval('canvas[id^="chart-"]', (cs) => cs.filter((c) => (c as HTMLElement).offsetParent !== null).map((c) => c.id.slice('chart-'.length)));
        assert.ok(ids.length >= 8, `charts ${ids.join(', ')}`);
        for (const id of ids) {
          const texts = await lastDrawnTexts(fresh, id, 170);
          const size = await fresh.$eval(`#chart-${id}`, (c) => ({ w: (c as HTMLCanvasElement).width, h: (c as HTMLCanvasElement).height }));
          for (const t of texts.filter((t) => t.corners.some((c) => c.x < -0.5 || c.y < -0.5 || c.x > size.w + 0.5 || c.y > size.h + 0.5))) {
            found.push(`${theme} ${id}: '${t.text}' x ${Math.min(...t.corners.map((c) => c.x)).toFixed(0)}..${Math.max(...t.corners.map((c) => c.x)).toFixed(0)} of ${size.w}`);
          }
        }
        await fresh.screenshot({ path: join(shots, `narrow-190-${theme}.png`), fullPage: true });
      }
      assert.deepEqual(found, []);
      // The pool chart's y axis keeps its top tick, the pool's 2,048 pages, whole.
      assert.ok((await lastDrawnTexts(fresh, 'poolTimeline', 170)).some((t) => t.text === '2,048'));
    } finally {
      await fresh.close();
    }
  });

  // s36 newcomer-ed: at 200 % zoom (a 600 px panel is 300 CSS px) the bar charts are drawn narrow, and their category
  // labels were mirrored onto the plot at the bars' centre, over the fills; #chart-capacity had no accessible name.
  it('at 200 % zoom the bar charts write each category label above its bars, not over them, and every chart canvas is named (zoom-200.png)', async () => {
    const fresh = await openDashboard(chromium.browser, chromium.server, 'dark', { deviceScaleFactor: 2 });
    try {
      await fresh.setViewportSize({ width: 300, height: 900 });
      await send(fresh, { type: 'init', runs: [], current: run, currentId: RUN_ID });
      const bars = ['timings', 'throughput', 'memory', 'poolBaselines'];
      await fresh.waitForFunction((ids) => ids.every((id) => document.querySelector(`#chart-${id}`)?.getAttribute('data-band-labels')), bars);
      for (const id of bars) {
        const boxes = JSON.parse((await fresh.getAttribute(`#chart-${id}`, 'data-band-labels'))!) as Array<{ label: string; top: number; bottom: number; barsTop: number; barsBottom: number }>;
        // One label per category: the recorded run's two cases; the memory chart's one bar; the three allocations compared.
        assert.equal(boxes.length, id === 'memory' ? 1 : id === 'poolBaselines' ? 3 : timed.length, `${id}: ${JSON.stringify(boxes)}`);
        boxes.forEach((b, i) => {
          assert.ok(b.bottom <= b.barsTop, `${id} '${b.label}' ends at ${b.bottom}, below its bars' top ${b.barsTop}`);
          if (i > 0) assert.ok(b.top >= boxes[i - 1]!.barsBottom, `${id} '${b.label}' starts at ${b.top}, over the bars above (to ${boxes[i - 1]!.barsBottom})`);
        });
      }
      await fresh.screenshot({ path: join(shots, 'zoom-200.png'), fullPage: true });
      // Every chart canvas has an accessible name, the capacity chart of this run (no capacity search) its card's words.
      const unnamed = await fresh.$$eval('canvas[role="img"]', (cs) => cs.filter((c) => !c.getAttribute('aria-label')).map((c) => c.id));
      assert.deepEqual(unnamed, []);
      assert.match((await fresh.getAttribute('#chart-capacity', 'aria-label'))!, /^Capacity: No capacity search in this run/);
    } finally {
      await fresh.close();
    }
  });

  // s30 newcomers: in an editor split (~350–500 px) chart titles, axis titles and legend items ran
  // past the canvas's edge (cut off), and the Run button's label past the panel's.
  it('at 320, 400, 600 and 1000 px, dark and light, no chart writes a text past its canvas\'s edge and no control lies past the panel\'s (narrow-*.png)', async () => {
    const fresh = await openDashboard(chromium.browser, chromium.server, 'dark', { locale: 'en-US', timezoneId: 'Asia/Tokyo' });
    try {
      await recordTexts(fresh);
      // The recorded run, run from a file whose name makes the Run button "Run benchmark: llama-3.1-8b-instruct.attn.yaml" (wider than 288 px).
      const named = { ...run, profile: { ...run.profile, sourcePath: 'examples/llama-3.1-8b-instruct.attn.yaml' } };
      await send(fresh, { type: 'init', runs: [], current: named, currentId: RUN_ID, sweep: logSweep });
      await fresh.waitForFunction(() => document.querySelector('#chart-poolTimeline')?.getAttribute('data-drawn')?.includes('points'));
      const found: string[] = [];
      for (const theme of ['dark', 'light'] as const) {
        await setTheme(fresh, theme);
        for (const [tab, index] of [['run', 0], ['sweep', 2]] as const) {
          await fresh.locator('vscode-tab-header').nth(index).click();
          for (const width of [320, 400, 600, 1000]) {
            await fresh.setViewportSize({ width, height: 900 });
            const ids = await fresh.$$eval('canvas[id^="chart-"]', (cs) => cs.filter((c) => (c as HTMLElement).offsetParent !== null).map((c) => c.id.slice('chart-'.length)));
            assert.ok(ids.length >= (tab === 'run' ? 8 : 2), `${theme} ${tab} ${width} px: charts ${ids.join(', ')}`);
            for (const id of ids) {
              const texts = await lastDrawnTexts(fresh, id, width - 20);
              const size = await fresh.$eval(`#chart-${id}`, (c) => ({ w: (c as HTMLCanvasElement).width, h: (c as HTMLCanvasElement).height }));
              // Half a pixel of anti-aliasing either side.
              const out = texts.filter((t) => t.corners.some((c) => c.x < -0.5 || c.y < -0.5 || c.x > size.w + 0.5 || c.y > size.h + 0.5));
              for (const t of out) found.push(`${theme} ${width} px ${id}: '${t.text}' x ${Math.min(...t.corners.map((c) => c.x)).toFixed(0)}..${Math.max(...t.corners.map((c) => c.x)).toFixed(0)} of ${size.w}`);
            }
            if (tab === 'run') {
              // s31 newcomers: roof labels drawn clipped at a narrow card's edge. Each roof keeps a label at every width (its whole
              // text or its short form, placeLabels), inside the plot: right of the y axis's ticks, left of the canvas's edge.
              const roof = await lastDrawnTexts(fresh, 'roofline', width - 20);
              const peaks = run.environment.peaks!;
              const [fma, bw] = [si(peaks.fp32FlopsPerSec!, 'FLOP/s'), si(peaks.readBytesPerSec!, 'B/s')];
              // The y axis's '10' (the x axis has one too, further right).
              const tick = roof.filter((t) => t.text === '10').sort((a, b) => Math.min(...a.corners.map((c) => c.x)) - Math.min(...b.corners.map((c) => c.x)))[0];
              for (const texts of [[`fp32 FMA peak ${fma}`, `fp32 ${fma}`], [`read bandwidth ${bw}`, bw]]) {
                const label = roof.find((t) => texts.includes(t.text));
                if (!label) found.push(`${theme} ${width} px roofline: no '${texts[0]}' label (drawn: ${roof.map((t) => t.text).join(' | ')})`);
                else if (tick && Math.min(...label.corners.map((c) => c.x)) < Math.max(...tick.corners.map((c) => c.x))) found.push(`${theme} ${width} px roofline: '${label.text}' left of the plot`);
              }
              // s31 newcomers: the baselines' plot was ~40 px tall at 320 px under rotated labels: the allocations go
              // down the left upright (beside the plot, or narrow above their bars on one line or two), the bars across,
              // the three groups spread over the chart's height.
              const bars = await lastDrawnTexts(fresh, 'poolBaselines', width - 20);
              const label = (text: string) => bars.find((t) => t.text.split(' ').includes(text));
              const [paged, last] = [label('paged'), label('prompt+output')];
              if (!paged || !last || !label('max_model_len')) found.push(`${theme} ${width} px poolBaselines: allocation labels ${bars.map((t) => t.text).join(' | ')}`);
              else if (Math.abs(last.corners[0]!.y - last.corners[1]!.y) > 0.5 || last.corners[0]!.y - paged.corners[0]!.y < 100 * (await fresh.evaluate(() => devicePixelRatio))) found.push(`${theme} ${width} px poolBaselines: labels rotated or groups ${(last.corners[0]!.y - paged.corners[0]!.y).toFixed(0)} px apart`);
            } else {
              // s31 newcomers: the sweep's table scrolled sideways below ~650 px (one column showing at 320 px), its names gone with
              // the first column. Where its columns do not fit it is transposed (s50): it may scroll, the names column staying.
              const fits = await fresh.waitForFunction(() => { const b = document.getElementById('sweep-table')!; return b.clientWidth > 0 && (b.scrollWidth <= b.clientWidth + 1 || b.querySelector('table')!.classList.contains('transposed')); }, null, { timeout: 5000 }).then(() => true, () => false);
              const t = await fresh.$eval('#sweep-table', (b) => ({ scroll: b.scrollWidth, client: b.clientWidth }));
              const seen = await seenSweepTable(fresh);
              if (!fits) found.push(`${theme} ${width} px: the sweep table scrolls sideways (${t.scroll} px in ${t.client})`);
              if (seen.transposed && !seen.sticky) found.push(`${theme} ${width} px: the transposed sweep table's names scroll away`);
              // Where its six columns fit, it stays a point a row.
              if (width === 1000 && seen.transposed) found.push(`${theme} ${width} px: the sweep table transposed where it fits`);
            }
            const controls = await fresh.$$eval('vscode-button, vscode-single-select, vscode-tab-header, #sweep-run-status', (els) => els
              .filter((e) => (e as HTMLElement).offsetParent !== null)
              .map((e) => ({ what: `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''} '${(e.textContent ?? '').slice(0, 30)}'`, left: e.getBoundingClientRect().left, right: e.getBoundingClientRect().right, clipped: e.scrollWidth > e.clientWidth + 1 || (e.shadowRoot?.querySelector('[part="base"]') ? (e.shadowRoot.querySelector('[part="base"]') as HTMLElement).scrollWidth > (e.shadowRoot.querySelector('[part="base"]') as HTMLElement).clientWidth + 1 : false) })));
            const panel = await fresh.evaluate(() => document.documentElement.clientWidth);
            for (const c of controls) if (c.left < -0.5 || c.right > panel + 0.5 || c.clipped) found.push(`${theme} ${width} px: ${c.what} at ${c.left.toFixed(0)}..${c.right.toFixed(0)} of ${panel}${c.clipped ? ', its label clipped' : ''}`);
            await fresh.screenshot({ path: join(shots, `narrow-${theme}-${tab}-${width}.png`), fullPage: true });
          }
        }
      }
      assert.deepEqual(found, []);
    } finally {
      await fresh.close();
    }
  });

  // s50 newcomer-ed 8, at a 602 px webview: the page-pool chart's axis titles clipped, the roofline's peak label touched the plot's
  // right edge, the Data tables were wider than the panel. A llama-like pool (28,363 pages, held + cached peak 20 %: the axis zoomed
  // to 10,000, its title the long one) with fragmentation and preemptions (three vertical axes, ~90 px each), in both themes.
  it('at 600 px no chart text is clipped or over another, the roof labels keep off the plot\'s edges, and the Data tables scroll in their own box', async () => {
    const fresh = await openDashboard(chromium.browser, chromium.server, 'dark', { locale: 'en-US', timezoneId: 'Asia/Tokyo' });
    try {
      await recordTexts(fresh);
      const pages = 28_363;
      // Held pages scaled from the fixture's 2,048-page pool; the peak, 59 % of it, is ~8 % of 28,363 (+ cached to 20 %): poolAxisTop 10,000.
      const samples = run.pool!.samples.map((x, i) => { const held = Math.round(x.pagesUsed * 2.7); const cached = Math.round(held * 0.5); return { ...x, pagesUsed: held, tokens: held * 14, pagesCached: cached, pagesFree: pages - held - cached, preemptions: Math.floor(i / 50) }; });
      const llama = { ...run, pool: { ...run.pool!, numPages: pages, samples } };
      await send(fresh, { type: 'init', runs: [], current: llama, currentId: RUN_ID });
      await fresh.waitForFunction(() => document.querySelector('#chart-poolTimeline')?.getAttribute('data-drawn')?.includes('preemptions'));
      const found: string[] = [];
      for (const theme of ['dark', 'light'] as const) {
        await setTheme(fresh, theme);
        await fresh.setViewportSize({ width: 600, height: 900 });
        const ids = await fresh.$$eval('canvas[id^="chart-"]', (cs) => cs.filter((c) => (c as HTMLElement).offsetParent !== null).map((c) => c.id.slice('chart-'.length)));
        assert.ok(['roofline', 'memory', 'poolTimeline'].every((id) => ids.includes(id)), `charts ${ids.join(', ')}`);
        for (const id of ids) {
          const texts = await lastDrawnTexts(fresh, id, 580);
          const size = await fresh.$eval(`#chart-${id}`, (c) => ({ w: (c as HTMLCanvasElement).width, h: (c as HTMLCanvasElement).height }));
          for (const t of texts.filter((x) => x.corners.some((c) => c.x < -0.5 || c.y < -0.5 || c.x > size.w + 0.5 || c.y > size.h + 0.5))) found.push(`${theme} ${id}: '${t.text}' past the canvas`);
          for (const o of overlappingTexts(texts)) found.push(`${theme} ${id}: ${o}`);
          if (id === 'poolTimeline') {
            // The pool's axis title says the axis is not the pool's, whole or shortened to its first part.
            const title = texts.filter((t) => t.text.startsWith('pages')).map((t) => t.text).join(' ');
            if (!title.startsWith('pages, axis to 10,000')) found.push(`${theme} poolTimeline: y title '${title}'`);
          }
        }
        // The roof labels: their ink (their halo 2 px round it) 6 px or more inside the plot's left and right edges.
        const roof = await lastDrawnTexts(fresh, 'roofline', 580);
        const [left, , right] = ((await fresh.getAttribute('#chart-roofline', 'data-plot')) ?? '').split(' ').map(Number);
        const peaks = run.environment.peaks!;
        const [fma, bw] = [si(peaks.fp32FlopsPerSec!, 'FLOP/s'), si(peaks.readBytesPerSec!, 'B/s')];
        const labels = roof.filter((t) => [`fp32 FMA peak ${fma}`, `fp32 ${fma}`, `read bandwidth ${bw}`, bw].includes(t.text));
        if (labels.length !== 2) found.push(`${theme} roofline: labels ${roof.map((t) => t.text).join(' | ')}`);
        for (const label of labels) {
          const xs = label.corners.map((c) => c.x);
          if (Math.max(...xs) > right! - 8 || Math.min(...xs) < left! + 2) found.push(`${theme} roofline: '${label.text}' at ${Math.min(...xs).toFixed(1)}..${Math.max(...xs).toFixed(1)} in the plot ${left}..${right}`);
        }
        // Every Data table open: wider than its card, it scrolls inside its own box; the page never scrolls sideways.
        await fresh.$$eval('section.card details', (ds) => ds.forEach((d) => ((d as HTMLDetailsElement).open = true)));
        await fresh.waitForFunction(() => [...document.querySelectorAll('section.card:not(.is-empty) details')].every((d) => d.querySelector('table') !== null));
        const boxes = await fresh.$$eval('section.card:not(.is-empty) .chart-data', (els) => els.filter((e) => (e as HTMLElement).offsetParent !== null).map((e) => {
          const card = e.closest('section')!.getBoundingClientRect();
          const box = e.getBoundingClientRect();
          return { chart: e.closest('section')!.getAttribute('data-chart'), table: e.querySelector('table')!.getBoundingClientRect().width, box: box.width, inside: box.left >= card.left - 0.5 && box.right <= card.right + 0.5, scrolls: getComputedStyle(e).overflowX };
        }));
        assert.ok(boxes.some((b) => b.table > b.box + 1), `${theme}: a table wider than its box (the pool's 11 columns): ${JSON.stringify(boxes)}`);
        for (const b of boxes) if (!b.inside || (b.table > b.box + 1 && b.scrolls !== 'auto')) found.push(`${theme} ${b.chart}: Data table ${b.table.toFixed(0)} px in a ${b.box.toFixed(0)} px box ${b.inside ? '' : 'past its card'} (overflow-x ${b.scrolls})`);
        const page600 = await fresh.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
        if (page600.scroll > page600.client) found.push(`${theme}: the page scrolls sideways (${page600.scroll} px in ${page600.client})`);
        for (const id of ['roofline', 'memory', 'poolTimeline']) await fresh.locator(`section[data-chart="${id}"]`).screenshot({ path: join(shots, `600-${theme}-${id}.png`) });
        await fresh.$$eval('section.card details', (ds) => ds.forEach((d) => ((d as HTMLDetailsElement).open = false)));
      }
      assert.deepEqual(found, []);
    } finally {
      await fresh.close();
    }
  });

  // s30 newcomers: the sweep chart's x axis put 50, 100 and 30,000 evenly apart (a category axis),
  // and its y ticks read "99.3%" six times (the table's one decimal for ticks 0.01% apart).
  it('the sweep chart puts swept values along a log axis and writes each y tick once, with the decimals its step needs', async () => {
    const fresh = await openDashboard(chromium.browser, chromium.server, 'light', { locale: 'en-US', timezoneId: 'Asia/Tokyo' });
    try {
      await recordTexts(fresh);
      await fresh.setViewportSize({ width: 1000, height: 900 });
      await send(fresh, { type: 'init', runs: [], current: null, currentId: null, sweep: logSweep });
      await fresh.locator('vscode-tab-header').nth(2).click();
      await fresh.waitForFunction(() => document.querySelectorAll('#sweep-table tbody tr').length === 6);
      const texts = await lastDrawnTexts(fresh, 'sweep-0', 980);
      const centre = (t: DrawnText) => t.corners.reduce((x, c) => x + c.x, 0) / 4;
      const tick = (label: string) => texts.find((t) => t.text === label);
      // x: 50, 100, 30,000 at distances in proportion to log(value): (log 100 − log 50) / (log 30000 − log 50) = log 2 / log 600 = 0.1083.
      const [x50, x100, x30k] = ['50', '100', '30,000'].map((l) => tick(l));
      assert.ok(x50 && x100 && x30k, `x ticks drawn: ${texts.map((t) => t.text).join(' | ')}`);
      assert.ok(Math.abs((centre(x100!) - centre(x50!)) / (centre(x30k!) - centre(x50!)) - Math.log(2) / Math.log(600)) < 0.01);
      assert.ok(texts.some((t) => t.text === 'workload.max_num_batched_tokens (tokens, log)'), 'the x axis names the swept key, its unit and the log scale');
      // y: fragmentation 99.25% to 99.30% (the rows below), on an axis from 0 since s51 (a percentage chart starts at 0,
      // webview/sweep.ts startsAtZero: a zoomed axis drew 0.05 points as the whole height); every tick label once (s30:
      // "99.3%" six times), 0% among them, none above 100%.
      const yTicks = texts.filter((t) => /^\d+(\.\d+)?%$/.test(t.text)).map((t) => t.text);
      assert.ok(yTicks.length >= 3, `y ticks: ${yTicks.join(', ')}`);
      assert.deepEqual([...new Set(yTicks)], yTicks, 'no two y ticks read the same');
      assert.ok(yTicks.includes('0%') && yTicks.every((t) => Number.parseFloat(t) <= 100 + 1e-9), yTicks.join(', '));
      assert.deepEqual(overlappingTexts(texts), []);
      await fresh.locator('#sweep-charts').screenshot({ path: join(shots, 'sweep-log-axis.png') });
    } finally {
      await fresh.close();
    }
  });

  // s37 newcomer-ed 2: 9-12 lines per chart: the legend took the 300 px box and was drawn over a 45-60 px plot,
  // lines 0 and 6 alike, y ticks "5.000000 min" ... "0.000000 min" for p99 TTFT 114 ms to 4.82 min.
  it('a 36-point sweep\'s charts: the legend above a plot of usable height, no text over another, p99 TTFT on a log axis at round durations (sweep-36-*.png)', async () => {
    // The newcomer's sweep: page_size [8, 16, 32, 64] × max_num_seqs [16, 64, 256] × arrival_rate [2, 8, 32]; p99 TTFT from
    // 114 ms (arrival_rate 2) to 4.82 min (arrival_rate 32 at page_size 64, max_num_seqs 16), 289.2 s.
    const axes = [{ key: 'kv_cache.page_size', values: [8, 16, 32, 64] }, { key: 'workload.max_num_seqs', values: [16, 64, 256] }, { key: 'workload.arrival_rate', values: [2, 8, 32] }];
    const rows = [8, 16, 32, 64].flatMap((ps, a) => [16, 64, 256].flatMap((seqs, b) => [2, 8, 32].map((rate, c) => ({
      id: `${ps}-${seqs}-${rate}`, index: 9 * a + 3 * b + c, values: { 'kv_cache.page_size': ps, 'workload.max_num_seqs': seqs, 'workload.arrival_rate': rate },
      label: `page_size=${ps} max_num_seqs=${seqs} arrival_rate=${rate}`, environmentKey: 'e1', status: 'ok' as const,
      metrics: { p99TtftS: c === 0 ? 0.114 + 0.001 * (a + b) : c === 1 ? 0.75 + 0.01 * (a + b) : 289.2 - 20 * a - 30 * b }, file: 'f.json',
    }))));
    const big: SweepReport = { schema: 1, kind: 'attnscope-sweep-report', tool: 't', createdAt: '2026-12-04T00:00:00.000Z', sweepId: '986adb4a6eb253ac', name: 'sweep.attn.yaml', job: 'simulate', axes, total: 36, rows, missing: [], duplicates: [], environments: { e1: run.environment }, best: null };
    const found: string[] = [];
    for (const theme of ['light', 'dark', 'highContrast'] as const) {
      const fresh = await openDashboard(chromium.browser, chromium.server, theme, { locale: 'en-US', timezoneId: 'Asia/Tokyo' });
      try {
        await recordTexts(fresh);
        await send(fresh, { type: 'init', runs: [], current: null, currentId: null, sweep: big });
        await fresh.locator('vscode-tab-header').nth(2).click();
        await fresh.waitForFunction(() => document.querySelectorAll('#sweep-table tbody tr').length === 36);
        // The side panel (~570 px) and the panel maximised (~1,190 px).
        for (const width of [600, 1220]) {
          await fresh.setViewportSize({ width, height: 900 });
          // Chart 1: vs max_num_seqs, 12 lines (page_size × arrival_rate).
          const texts = await lastDrawnTexts(fresh, 'sweep-1', width - 30);
          const yTicks = texts.filter((t) => /^[\d.,]+ (ns|µs|ms|s|min|h)$/.test(t.text));
          const legend = texts.filter((t) => /^page_size=/.test(t.text));
          const where = `${theme} ${width} px`;
          // Round durations, each in its own unit, from 100 ms (under 114 ms) to 5 min (over 4.82 min).
          if (yTicks.map((t) => t.text).join(' ') !== '100 ms 1 s 10 s 1 min 5 min' && yTicks.map((t) => t.text).join(' ') !== '5 min 1 min 10 s 1 s 100 ms') found.push(`${where}: y ticks ${yTicks.map((t) => t.text).join(', ')}`);
          if (legend.length !== 12) found.push(`${where}: ${legend.length} legend items of 12`);
          const bottom = (t: DrawnText) => Math.max(...t.corners.map((c) => c.y));
          const top = (t: DrawnText) => Math.min(...t.corners.map((c) => c.y));
          // The legend above the plot: its last row over the top tick's label, not beside the ticks.
          if (Math.max(...legend.map(bottom)) >= Math.min(...yTicks.map(top))) found.push(`${where}: a legend item at y ${Math.max(...legend.map(bottom))} below the top y tick at ${Math.min(...yTicks.map(top))}`);
          const plot = Math.max(...yTicks.map(bottom)) - Math.min(...yTicks.map(top));
          if (plot < 150) found.push(`${where}: the plot spans ${plot} px`);
          for (const o of overlappingTexts(texts)) found.push(`${where}: ${o}`);
          await fresh.locator('section.card:has(#chart-sweep-1)').screenshot({ path: join(shots, `sweep-36-${theme}-${width}.png`) });
        }
        // Every figure, as the newcomer's job: both sweep had (16 columns): too wide at 1,220 px, so transposed, a point a column
        // (s50 newcomer-ed 3: stacked blocks of 17 lines could not be compared point by point).
        const figures = { internalFragmentation: 0.1, prefixHitRate: 0, preemptions: 0, poolPages: 1952, meanOccupancy: 0.5, throughputTokensPerSec: 1234, p99TtftS: 0.114, p99TpotS: 0.02, sloAttainment: 0.9, goodputRequestsPerSec: 2, decodeNsPerToken: 1200, decodeP10NsPerToken: 1100, decodeP90NsPerToken: 1300 };
        await send(fresh, { type: 'showSweep', report: { ...big, rows: big.rows.map((r) => ({ ...r, keepsUp: true, metrics: { ...figures, p99TtftS: r.metrics.p99TtftS } })) } });
        await fresh.setViewportSize({ width: 1220, height: 900 });
        await fresh.waitForFunction(() => document.querySelectorAll('#sweep-table th').length >= 16 && document.querySelector('table.table-sweep')?.classList.contains('transposed'));
        const seen = await seenSweepTable(fresh);
        const line = (name: RegExp) => seen.lines.find((l) => name.test(l.name))?.cells ?? [];
        // The points in the report's order, page_size slowest: 8 × 9, 16 × 9, … under 36 columns; p99 TTFT along its line as
        // built above: arrival_rate 2, 8, 32 at page_size 8, max_num_seqs 16 = 114 ms, 750 ms, 289.2 s (4.82 min); the 36th
        // (64, 256, 32) 289.2 − 20·3 − 30·2 = 169.2 s (2.82 min).
        assert.deepEqual(line(/^kv_cache\.page_size$/), [8, 16, 32, 64].flatMap((ps) => Array<string>(9).fill(String(ps))));
        assert.deepEqual(line(/^workload\.arrival_rate$/).slice(0, 4), ['2', '8', '32', '2']);
        const ttft = line(/^p99 TTFT/);
        assert.equal(ttft.length, 36);
        assert.deepEqual([...ttft.slice(0, 3), ttft[35]], ['114 ms', '750 ms', '4.82 min', '2.82 min']);
        assert.equal(seen.sticky, true, '1,220 px: the names column stays while the table scrolls');
        await fresh.locator('#sweep-table').screenshot({ path: join(shots, `sweep-36-table-${theme}-1220.png`) });
        await send(fresh, { type: 'showSweep', report: big });
        await fresh.waitForFunction(() => document.querySelectorAll('#sweep-table th').length < 10);
        // The table: each cell in its own unit, as the chart's ticks.
        const cells = await tableRows(fresh, 'table-sweep');
        assert.deepEqual(cells.slice(0, 3).map((r) => r[4]), ['114 ms', '750 ms', '4.82 min']);
      } finally {
        await fresh.close();
      }
    }
    assert.deepEqual(found, []);
  });

  // s31 newcomer: two sweep lines with the same values lay on one path, the one drawn last hiding
  // the other: the chart showed one line, its legend two.
  it('a sweep line with the same values as another is drawn dashed over it, both colours showing, and its legend item says so (sweep-twins.png)', async () => {
    const fresh = await openDashboard(chromium.browser, chromium.server, 'highContrast', { locale: 'en-US', timezoneId: 'Asia/Tokyo' });
    try {
      await recordTexts(fresh);
      await fresh.setViewportSize({ width: 1000, height: 900 });
      // page_size 16 and 32 fragment alike at every max_num_batched_tokens (the fragmentation below depends on i alone).
      const twins: SweepReport = { ...logSweep, rows: logSweep.rows.map((r, k) => ({ ...r, metrics: { internalFragmentation: 0.2 + 0.1 * Math.floor(k / 2) } })) };
      await send(fresh, { type: 'init', runs: [], current: null, currentId: null, sweep: twins });
      await fresh.locator('vscode-tab-header').nth(2).click();
      await fresh.waitForFunction(() => document.querySelectorAll('#sweep-table tbody tr').length === 6);
      const texts = await lastDrawnTexts(fresh, 'sweep-0', 980);
      const note = texts.find((t) => t.text === '32, same values as 16');
      assert.ok(note, `legend items: ${texts.map((t) => t.text).join(' | ')}`);
      // Below the legend, on the plot: pixels of each line's colour (high contrast: 3 px lines, blue 16, orange 32).
      const below = Math.max(...note.corners.map((c) => c.y)) + 6;
      const counts = await fresh.$eval('#chart-sweep-0', (canvas, top) => {
        const c = canvas as HTMLCanvasElement;
        const d = c.getContext('2d')!.getImageData(0, Math.ceil(top), c.width, c.height - Math.ceil(top)).data;
        const n = { blue: 0, orange: 0 };
        for (let i = 0; i < d.length; i += 4) {
          if (d[i] === 0x37 && d[i + 1] === 0x94 && d[i + 2] === 0xff) n.blue++;
          if (d[i] === 0xd1 && d[i + 1] === 0x86 && d[i + 2] === 0x16) n.orange++;
        }
        return n;
      }, below);
      // Each colour along a good part of the ~400 px path (3 px wide; 308 blue, 520 orange when written): the dashed twin's dashes over the solid line, the solid line in its gaps.
      // Drawn as before, the first line covered the second wholly: no orange on the plot.
      await fresh.locator('#sweep-charts').screenshot({ path: join(shots, 'sweep-twins.png') });
      assert.ok(counts.blue > 150 && counts.orange > 150, JSON.stringify(counts));
    } finally {
      await fresh.close();
    }
  });

  // s30 newcomers: a sweep run from the editor left the dashboard on its Run tab with Cancel off; only the toast and status bar could stop it.
  it('a run, simulation or memory breakdown the user asks for while the Sweep tab shows brings the Run tab forward with it (s43 newcomer-ed M8: the panel kept the sweep)', async () => {
    const fresh = await openDashboard(chromium.browser, chromium.server, 'dark');
    try {
      await send(fresh, { type: 'init', runs: [], current: run, currentId: RUN_ID });
      const shown = () => fresh.$$eval('vscode-tab-header', (hs) => hs.filter((h) => h.getAttribute('aria-selected') === 'true').map((h) => h.textContent));
      const toSweep = async () => {
        await send(fresh, { type: 'showSweep', report: logSweep });
        await fresh.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'batched.attn.yaml · sweep');
        assert.deepEqual(await shown(), ['Sweep']);
      };
      // The user's own click on Sweep, then the lens's Show memory breakdown: its estimate shown on the Run tab, which comes forward.
      await toSweep();
      await fresh.click('vscode-tab-header:nth-of-type(1)');
      await fresh.click('vscode-tab-header:nth-of-type(3)');
      assert.deepEqual(await shown(), ['Sweep']);
      await send(fresh, { type: 'showEstimate', name: 'mi325.attn.yaml', profile: run.profile, estimate: run.estimate });
      await fresh.waitForFunction(() => document.querySelector('#run-status')?.textContent === 'estimate');
      assert.deepEqual(await shown(), ['Run']);
      assert.equal(await fresh.textContent('#run-title'), 'mi325.attn.yaml');
      assert.equal(await fresh.isVisible('#chart-memory'), true);
      // Run serving simulation: the start brings Run forward.
      await toSweep();
      await send(fresh, { type: 'runStarted', name: 'l70.attn.yaml', total: 0, kind: 'simulate', profile: run.profile, estimate: run.estimate });
      await fresh.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'l70.attn.yaml');
      assert.deepEqual(await shown(), ['Run']);
      // The page's saved state once it shows `name` finished (persist() saves it synchronously then, after the tab is chosen): the tab it is on.
      const finishedOn = async (name: string) => {
        await fresh.waitForFunction((n) => {
          const current = JSON.parse(sessionStorage.getItem('vscode-state') ?? '{}').model?.current;
          return current?.name === n && current.status === 'ok';
        }, name);
        return fresh.evaluate(() => JSON.parse(sessionStorage.getItem('vscode-state')!).tab as string);
      };
      // The user picks Sweep while it runs: its finish leaves them there, the result waits on the Run tab (s44 newcomer-ed F11).
      await fresh.click('vscode-tab-header:nth-of-type(3)');
      assert.deepEqual(await shown(), ['Sweep']);
      await send(fresh, { type: 'runFinished', run: { ...run, name: 'l70.attn.yaml' }, id: null });
      assert.equal(await finishedOn('l70.attn.yaml'), 'sweep');
      assert.deepEqual(await shown(), ['Sweep']);
      await fresh.click('vscode-tab-header:nth-of-type(1)');
      assert.equal(await fresh.textContent('#run-title'), 'l70.attn.yaml');
      // No pick while the next runs (Sweep came with a report opened, Open sweep results): its finish brings Run forward (s43 newcomer-ed M8).
      await send(fresh, { type: 'runStarted', name: 'l8.attn.yaml', total: 0, kind: 'simulate', profile: run.profile, estimate: run.estimate });
      await fresh.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'l8.attn.yaml');
      await toSweep();
      await send(fresh, { type: 'runFinished', run: { ...run, name: 'l8.attn.yaml' }, id: null });
      assert.equal(await finishedOn('l8.attn.yaml'), 'run');
      assert.deepEqual(await shown(), ['Run']);
      // A sweep's end alike: picked Run while it ran, its report waits on the Sweep tab; not picked, the report comes forward.
      await send(fresh, { type: 'sweepStarted', name: 'batched.attn.yaml' });
      await fresh.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'batched.attn.yaml · sweep');
      await fresh.click('vscode-tab-header:nth-of-type(1)');
      await send(fresh, { type: 'sweepEnded', status: 'finished', message: 'sweep of batched.attn.yaml finished: 6 points, report in .attnscope/sweeps/batched-c0ffee.' });
      await send(fresh, { type: 'showSweep', report: logSweep, ended: true });
      await fresh.waitForFunction(() => JSON.parse(sessionStorage.getItem('vscode-state') ?? '{}').model?.sweep?.sweepId === 'c0ffee');
      assert.deepEqual(await shown(), ['Run']);
      await send(fresh, { type: 'sweepStarted', name: 'batched.attn.yaml' });
      await fresh.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'batched.attn.yaml · sweep');
      await send(fresh, { type: 'showRun', run, id: RUN_ID });
      await fresh.waitForFunction(() => document.querySelector('#run-status')?.textContent === 'ok');
      assert.deepEqual(await shown(), ['Run']);
      await send(fresh, { type: 'sweepEnded', status: 'finished', message: 'sweep of batched.attn.yaml finished: 6 points, report in .attnscope/sweeps/batched-c0ffee.' });
      await send(fresh, { type: 'showSweep', report: logSweep, ended: true });
      await fresh.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'batched.attn.yaml · sweep');
      assert.deepEqual(await shown(), ['Sweep']);
    } finally {
      await fresh.close();
    }
  });

  // s49 newcomer-ed 5: while a sweep ran or resumed, its saved points and chart went behind the progress bar until it ended.
  it('a running sweep\'s points saved so far show under its progress, chart and table, and each point saved is added', async () => {
    const fresh = await openDashboard(chromium.browser, chromium.server, 'dark', { locale: 'en-US', timezoneId: 'UTC' });
    try {
      await send(fresh, { type: 'init', runs: [], current: null, currentId: null });
      await send(fresh, { type: 'sweepStarted', name: 'batched.attn.yaml' });
      await fresh.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'batched.attn.yaml · sweep');
      // Resumed with 2 of 6 points in the folder: the merge of those two, the other 4 missing (runner/sweep/cli.ts sweepPoints).
      const missing = logSweep.rows.slice(2).map((r) => ({ id: r.id, label: r.label, values: r.values }));
      const partial = (n: number) => ({ ...logSweep, rows: logSweep.rows.slice(0, n), missing: missing.slice(n - 2) });
      await send(fresh, { type: 'sweepProgress', done: 2, total: 6, message: '2 of 6 points saved · running: max_num_batched_tokens=100 page_size=16 0%' });
      await send(fresh, { type: 'sweepPoints', report: partial(2) });
      await fresh.waitForFunction(() => document.querySelectorAll('#sweep-table tbody tr').length === 2);
      assert.ok(await fresh.isVisible('#sweep-progress'), 'the progress stays, above');
      assert.ok((await fresh.$$eval('#sweep-charts canvas', (c) => c.length)) >= 1, 'the chart of the points so far');
      assert.match(await fresh.textContent('#sweep-summary') ?? '', /^So far, while the others run: 2 of 6 points saved;/);
      // Its own points: no "another sweep" note over them.
      assert.equal(await fresh.isVisible('#sweep-other'), false);
      // The progress line sits above the chart.
      const [bar, chart] = await fresh.$$eval('#sweep-run, #sweep-charts', (els) => els.map((e) => e.getBoundingClientRect().top));
      assert.ok(bar! < chart!, `progress at ${bar} px above the chart at ${chart} px`);
      // The next point saved: added.
      await send(fresh, { type: 'sweepPoints', report: partial(3) });
      await fresh.waitForFunction(() => document.querySelectorAll('#sweep-table tbody tr').length === 3);
      await fresh.screenshot({ path: join(shots, 'sweep-running-points.png') });
      // Its end: the line says how; the finished report follows.
      await send(fresh, { type: 'sweepEnded', status: 'finished', message: 'sweep of batched.attn.yaml finished: 6 points, report in .attnscope/sweeps/batched-c0ffee.' });
      await send(fresh, { type: 'showSweep', report: logSweep, ended: true });
      await fresh.waitForFunction(() => document.querySelectorAll('#sweep-table tbody tr').length === 6);
    } finally {
      await fresh.close();
    }
  });

  it('a sweep the editor runs switches to the Sweep tab with its progress and a Cancel that asks the extension to cancel it; its end replaces both with how it ended', async () => {
    const fresh = await openDashboard(chromium.browser, chromium.server, 'dark', { locale: 'en-US', timezoneId: 'Asia/Tokyo' });
    try {
      await send(fresh, { type: 'init', runs: [], current: run, currentId: RUN_ID });
      // s31 newcomer-ed 10: a tab header never selected had no aria-selected and no tabindex (vscode-tab-header sets them when `active` changes).
      assert.deepEqual(await fresh.$$eval('vscode-tab-header', (hs) => hs.map((h) => [h.textContent, h.getAttribute('aria-selected'), h.getAttribute('tabindex')])), [['Run', 'true', '0'], ['History', 'false', '-1'], ['Sweep', 'false', '-1']]);
      assert.equal(await fresh.isVisible('#sweep-run'), false, 'no sweep line before a sweep');
      // Another profile's finished sweep open in the tab (s37 newcomer-ed 1: it stayed under the new sweep's line, its Best point too).
      await send(fresh, { type: 'showSweep', report: { ...logSweep, best: { id: 't50-p16', environmentKey: 'e1', label: 'max_num_batched_tokens=50 page_size=16', rule: 'r' } } });
      await fresh.waitForFunction(() => document.querySelectorAll('#sweep-table tbody tr').length === 6);
      await send(fresh, { type: 'sweepStarted', name: 'sweep.attn.yaml' });
      await fresh.waitForFunction(() => document.querySelector('#run-title')?.textContent === 'sweep.attn.yaml · sweep');
      assert.equal(await fresh.textContent('#run-status'), 'running');
      assert.equal(await fresh.$$eval('#sweep-table tbody tr, #sweep-charts canvas', (els) => els.length), 0, 'no other sweep\'s table or charts under the running sweep');
      assert.equal(await fresh.textContent('#sweep-best'), '');
      assert.equal(await fresh.isVisible('#sweep-bar'), false);
      // s31 newcomer-ed 3b: no "No sweep open: run one ..." under the line of the sweep running.
      assert.equal(await fresh.textContent('#sweep-summary'), '');
      await send(fresh, { type: 'sweepProgress', done: 1, total: 4, message: '0 of 4 points saved · running: page_size=16 70%, page_size=32 30%' });
      await fresh.waitForFunction(() => document.querySelector('#sweep-run-status')?.textContent === 'Sweeping sweep.attn.yaml: 0 of 4 points saved · running: page_size=16 70%, page_size=32 30%');
      assert.equal(await fresh.getAttribute('#sweep-progress', 'value'), '0.25');
      assert.equal(await fresh.isVisible('#btn-cancel-sweep'), true);
      assert.equal(await fresh.getAttribute('#btn-cancel-sweep', 'disabled'), null);
      await fresh.click('#btn-cancel-sweep');
      // The extension's cancelRun: the Cancel run command, which ends the one run in flight (the sweep), as the notification's Cancel does.
      assert.deepEqual(await waitForPosted(fresh, 'cancelRun'), [{ type: 'cancelRun' }]);
      await send(fresh, { type: 'runCancelling' });
      await fresh.waitForFunction(() => document.querySelector('#btn-cancel-sweep')?.textContent === 'Cancelling…');
      assert.notEqual(await fresh.getAttribute('#btn-cancel-sweep', 'disabled'), null);
      assert.equal(await fresh.textContent('#run-status'), 'cancelling…');
      await send(fresh, { type: 'sweepEnded', status: 'cancelled', message: 'sweep of sweep.attn.yaml cancelled; 1 of 4 points are saved in .attnscope/sweeps/sweep-0123abcd.' });
      // The end message names the sweep: not "sweep.attn.yaml: sweep of sweep.attn.yaml" (s31 newcomer-ed 10).
      await fresh.waitForFunction(() => document.querySelector('#sweep-run-status')?.textContent?.startsWith('sweep of sweep.attn.yaml cancelled; 1 of 4 points are saved'));
      assert.equal(await fresh.isVisible('#btn-cancel-sweep'), false);
      assert.equal(await fresh.isVisible('#sweep-progress'), false);
      // The header's chip says how the sweep ended, as the Run tab's does for a run (933af3d9; it was emptied).
      assert.equal(await fresh.textContent('#run-status'), 'cancelled');
      assert.equal(await fresh.isVisible('#sweep-interrupted'), false);
      // s41: the cancelled sweep's points kept, merged into a report marked interrupted (extension/sweep.ts finish): shown as its own
      // sweep's (no other-sweep note), with how many of its points and a Resume sweep that runs its profile again.
      const kept: SweepReport = { ...logSweep, name: 'sweep.attn.yaml', interrupted: true, total: 7, missing: [{ id: 'm', index: 6, values: {}, label: 'page_size=64' }] };
      await send(fresh, { type: 'showSweep', report: kept, ended: true });
      await fresh.waitForFunction(() => (document.querySelector('#sweep-interrupted') as HTMLElement | null)?.hidden === false);
      // One line says how it ended (s48 newcomer-ed 9: "cancelled; 1 of 4 points are saved … Run sweep again to resume" over
      // "interrupted: 6 of 7 points … Resume sweep runs the other point", the same thing twice): the report's, in the run's word.
      assert.equal(await fresh.textContent('#sweep-interrupted-text'), 'cancelled: 6 of 7 points: the figures and the best point below are of these only; Resume sweep runs the other point (the points kept are not run again).');
      assert.equal(await fresh.$$eval('#sweep-table tbody tr', (trs) => trs.length), 6);
      assert.equal(await fresh.isVisible('#sweep-other'), false);
      assert.equal(await fresh.isVisible('#sweep-run'), false, "the cancelled sweep's own line is not repeated over its own report");
      assert.equal(await fresh.isVisible('#btn-resume-interrupted-sweep'), true);
      await fresh.click('#btn-resume-interrupted-sweep');
      assert.deepEqual((await waitForPosted(fresh, 'resumeSweep')).at(-1), { type: 'resumeSweep', name: 'sweep.attn.yaml' });
      // s42: a report that records its profile (SweepReport.profile, as `attnscope sweep` writes it when interrupted), opened from History
      // in a window that did not run it: Resume sends that profile, which the extension runs (and checks) instead of guessing.
      const profile = { path: '/work/other/sweep.attn.yaml', sha256: 'ab'.repeat(32) };
      await send(fresh, { type: 'showSweep', report: { ...kept, profile, createdAt: '2026-12-05T10:00:00.000Z' } });
      await fresh.waitForFunction(() => (document.querySelector('#sweep-interrupted') as HTMLElement | null)?.hidden === false);
      await fresh.click('#btn-resume-interrupted-sweep');
      assert.deepEqual((await waitForPosted(fresh, 'resumeSweep', 2)).at(-1), { type: 'resumeSweep', name: 'sweep.attn.yaml', profile });
      // Open of another sweep (batched.attn.yaml): the ended sweep's line goes with its table (s31 newcomer-ed 3a).
      await send(fresh, { type: 'showSweep', report: logSweep });
      await fresh.waitForFunction(() => (document.querySelector('#sweep-run') as HTMLElement | null)?.hidden === true);
      // A dashboard reopened after a sweep finished: init with its report, then the start and end replayed; the report stays (the e2e reopen).
      await send(fresh, { type: 'init', runs: [], current: null, currentId: null, sweep: logSweep });
      await send(fresh, { type: 'sweepStarted', name: 'batched.attn.yaml', replayed: true });
      await send(fresh, { type: 'sweepEnded', status: 'finished', message: 'sweep of batched.attn.yaml finished: 6 points, report in .attnscope/sweeps/batched-c0ffee.' });
      await fresh.waitForFunction(() => document.querySelector('#sweep-run-status')?.textContent?.startsWith('sweep of batched.attn.yaml finished'));
      assert.equal(await fresh.$$eval('#sweep-table tbody tr', (trs) => trs.length), 6, 'the report kept under a replayed start');
      assert.equal(await fresh.isVisible('#sweep-other'), false);
      // A reload while a sweep runs: the page restores it, and init (no sweepStarted after it) says it is no longer running.
      await send(fresh, { type: 'sweepStarted', name: 'sweep.attn.yaml' });
      // A finished report opened from History while it runs: named as another sweep, by profile, id and time (s37 newcomer-ed 1).
      await send(fresh, { type: 'showSweep', report: logSweep });
      await fresh.waitForFunction(() => document.querySelectorAll('#sweep-table tbody tr').length === 6);
      assert.equal(await fresh.isVisible('#sweep-other'), true);
      // 2026-12-04T00:00Z read in Tokyo (UTC+9): 09:00 on Dec 4.
      assert.match(spaced((await fresh.textContent('#sweep-other')) ?? ''), /^The report below is another sweep: batched\.attn\.yaml, sweep c0ffee of .*Dec.* 4.*9:00.*; not the sweep of sweep\.attn\.yaml that is running \(its report comes when it ends\)\.$/);
      assert.match(spaced((await fresh.textContent('#sweep-summary')) ?? ''), /^batched\.attn\.yaml · sweep c0ffee · merged .*Dec.* 4.* · job simulate · 6 results/);
      await fresh.waitForFunction(() => (JSON.parse(sessionStorage.getItem('vscode-state') ?? '{}') as { model?: { sweepRun?: { status?: string } } }).model?.sweepRun?.status === 'running');
      await fresh.reload();
      await waitForPosted(fresh, 'ready');
      // Interrupted at once, not "running" with Cancel until init (s37 newcomer-ed 5).
      assert.equal(await fresh.textContent('#sweep-run-status'), 'sweep.attn.yaml: interrupted (window reloaded or closed) while it ran');
      assert.equal(await fresh.textContent('#sweep-other'), 'The report below is another sweep: batched.attn.yaml, sweep c0ffee of ' + (await fresh.$eval('#sweep-summary time', (t) => t.textContent)) + '; not the sweep of sweep.attn.yaml that was interrupted.');
      await send(fresh, { type: 'init', runs: [], current: null, currentId: null });
      await fresh.waitForFunction(() => document.querySelector('#sweep-run-status')?.textContent === 'sweep.attn.yaml: interrupted (window reloaded or closed) while it ran');
      assert.equal(await fresh.isVisible('#btn-cancel-sweep'), false);
      // Its Resume sweep runs it again, as the reloaded window's toast does (s40 newcomer-ed F8: the toast hid itself, the banner had no button).
      assert.equal(await fresh.isVisible('#btn-resume-sweep'), true);
      await fresh.click('#btn-resume-sweep');
      assert.deepEqual((await waitForPosted(fresh, 'resumeSweep')).at(-1), { type: 'resumeSweep', name: 'sweep.attn.yaml' });
    } finally {
      await fresh.close();
    }
  });

  it('a page opened while a run or sweep is cancelling: the replay after init shows "Cancelling…", disabled, not an enabled Cancel (s48 review)', async () => {
    // The messages the dashboard keeps (extension/liveReplay.ts) as the extension sent them: a start, progress, Cancel pressed, more progress.
    const sweepLists = ([
      { type: 'sweepStarted', name: 'sweep.attn.yaml' },
      { type: 'sweepProgress', done: 1, total: 4, message: '1 of 4 points saved' },
      { type: 'runCancelling' },
      { type: 'sweepProgress', done: 2, total: 4, message: '2 of 4 points saved' },
    ] as ToWebview[]).reduce(recordLive, { live: [], sweepLive: [] } as LiveMessages);
    const runLists = ([
      { type: 'runStarted', name: 'streaming.attn.yaml', total: 3, profile: run.profile, estimate: run.estimate },
      { type: 'case', case: run.cases[0]! },
      { type: 'progress', done: 1, total: 3, message: 'case' },
      { type: 'runCancelling' },
    ] as ToWebview[]).reduce(recordLive, { live: [], sweepLive: [] } as LiveMessages);
    for (const [lists, button, label] of [[sweepLists, '#btn-cancel-sweep', 'Cancel sweep'], [runLists, '#btn-cancel', 'Cancel']] as const) {
      const fresh = await openDashboard(chromium.browser, chromium.server, 'dark');
      try {
        await send(fresh, { type: 'init', runs: [], current: null, currentId: null });
        for (const m of replayAfterInit(lists, [])) await send(fresh, m);
        await fresh.waitForFunction((b) => document.querySelector(b)?.textContent === 'Cancelling…', button);
        assert.notEqual(await fresh.getAttribute(button, 'disabled'), null, `${button} disabled`);
        assert.equal(await fresh.getAttribute(button, 'aria-disabled'), 'true');
        assert.equal(await fresh.textContent('#run-status'), 'cancelling…');
        // Without the Cancel among them, the same page would offer an enabled Cancel: what the replay keeps is what shows.
        await fresh.reload();
        await waitForPosted(fresh, 'ready');
        await send(fresh, { type: 'init', runs: [], current: null, currentId: null });
        for (const m of replayAfterInit({ live: lists.live.filter((m) => m.type !== 'runCancelling'), sweepLive: lists.sweepLive.filter((m) => m.type !== 'runCancelling') }, [])) await send(fresh, m);
        await fresh.waitForFunction(([b, l]) => document.querySelector(b)?.textContent === l, [button, label] as const);
        assert.equal(await fresh.getAttribute(button, 'disabled'), null);
      } finally {
        await fresh.close();
      }
    }
  });

  it('a sweep a reload stopped: the run line\'s "interrupted" and Resume sweep alone, no "No sweep open" under it; its kept points\' report then says it once (s48 newcomer-ed 9, 32-after-reload-30s.png)', async () => {
    const fresh = await openDashboard(chromium.browser, chromium.server, 'dark');
    try {
      await send(fresh, { type: 'init', runs: [], current: null, currentId: null });
      await send(fresh, { type: 'sweepStarted', name: 'sweep.attn.yaml' });
      await fresh.waitForFunction(() => (JSON.parse(sessionStorage.getItem('vscode-state') ?? '{}') as { model?: { sweepRun?: { status?: string } } }).model?.sweepRun?.status === 'running');
      await fresh.reload();
      await waitForPosted(fresh, 'ready');
      await send(fresh, { type: 'init', runs: [], current: null, currentId: null });
      await fresh.waitForFunction(() => document.querySelector('#sweep-run-status')?.textContent === 'sweep.attn.yaml: interrupted (window reloaded or closed) while it ran');
      assert.equal(await fresh.isVisible('#btn-resume-sweep'), true);
      // Was: "No sweep open: run one with the Run sweep code lens …" right under it, which said no sweep was there.
      assert.equal(await fresh.textContent('#sweep-summary'), '');
      // The extension then opens the points it kept (a report marked interrupted, of the same profile): its line says
      // "interrupted" with its Resume sweep, and the run line is not shown beside it (one state, one message).
      const kept: SweepReport = { ...logSweep, name: 'sweep.attn.yaml', interrupted: true, total: 7, missing: [{ id: 'm', index: 6, values: {}, label: 'page_size=64' }] };
      await send(fresh, { type: 'showSweep', report: kept });
      await fresh.waitForFunction(() => (document.querySelector('#sweep-interrupted') as HTMLElement | null)?.hidden === false);
      assert.match((await fresh.textContent('#sweep-interrupted-text')) ?? '', /^interrupted: 6 of 7 points: /);
      assert.equal(await fresh.isVisible('#sweep-run'), false);
      assert.deepEqual(await fresh.$$eval('vscode-button', (bs) => bs.filter((b) => (b as HTMLElement).offsetParent !== null && b.textContent === 'Resume sweep').map((b) => b.id)), ['btn-resume-interrupted-sweep']);
      // A failed sweep with no report: its line says so, and no "No sweep open" under it either.
      await send(fresh, { type: 'sweepStarted', name: 'other.attn.yaml' });
      await send(fresh, { type: 'sweepEnded', status: 'failed', message: 'sweep of other.attn.yaml failed: the runner exited with code 1' });
      await fresh.waitForFunction(() => document.querySelector('#sweep-run-status')?.textContent?.startsWith('sweep of other.attn.yaml failed'));
      assert.equal(await fresh.textContent('#sweep-summary'), '');
    } finally {
      await fresh.close();
    }
  });

  it('a result whose profile was edited after its run started says so over it, on the Run tab and the Sweep tab alike; a result that reads the same says nothing (s44 newcomer-ed F3, profile-edited-*.png)', async () => {
    const fresh = await openDashboard(chromium.browser, chromium.server, 'dark');
    try {
      // The extension's note (extension/profileEdited.ts profileEditedText), which the page shows as sent.
      const simNote = 'profile edited since this simulation started: the figures below are of the earlier text of llama-3.1-8b.attn.yaml; run the simulation again for the file as it is now';
      const sweepNote = 'profile edited since this sweep started: the figures below are of the earlier text of batched.attn.yaml; run the sweep again for the file as it is now';
      const shownText = (id: string) => fresh.$eval(`#${id}`, (e) => ((e as HTMLElement).hidden ? null : e.textContent));
      await send(fresh, { type: 'init', runs: [], current: run, currentId: RUN_ID });
      await fresh.waitForFunction(() => document.querySelector('#run-status')?.textContent === 'ok');
      assert.equal(await shownText('run-profile-edited'), null);
      await send(fresh, { type: 'runStarted', name: 'edited.attn.yaml', total: 0, kind: 'simulate', profile: run.profile, estimate: run.estimate });
      await send(fresh, { type: 'runFinished', run: { ...run, name: 'edited.attn.yaml' }, id: null, profileEdited: simNote });
      await fresh.waitForFunction(() => (document.querySelector('#run-profile-edited') as HTMLElement | null)?.hidden === false);
      assert.equal(await shownText('run-profile-edited'), simNote);
      // Saved: the same run, still of the earlier text.
      await send(fresh, { type: 'runSaved', id: 'edited-1' });
      assert.equal(await shownText('run-profile-edited'), simNote);
      await fresh.locator('#app').screenshot({ path: join(shots, 'profile-edited-run.png') });
      // Another run opened from History whose profile reads as it ran: no note.
      await send(fresh, { type: 'showRun', run, id: RUN_ID });
      await fresh.waitForFunction(() => (document.querySelector('#run-profile-edited') as HTMLElement | null)?.hidden === true);
      // A page that reloads gets it in init (Dashboard's current is checked again).
      await send(fresh, { type: 'init', runs: [], current: run, currentId: RUN_ID, currentProfileEdited: simNote });
      await fresh.waitForFunction(() => (document.querySelector('#run-profile-edited') as HTMLElement | null)?.hidden === false);
      // The Sweep tab: a finished sweep whose profile was saved with another value while it ran.
      await send(fresh, { type: 'showSweep', report: logSweep, profileEdited: sweepNote });
      await fresh.waitForFunction(() => (document.querySelector('#sweep-profile-edited') as HTMLElement | null)?.hidden === false);
      assert.equal(await shownText('sweep-profile-edited'), sweepNote);
      await fresh.locator('#app').screenshot({ path: join(shots, 'profile-edited-sweep.png') });
      // The same report opened again after the profile was set back (no note sent): none; a new sweep's start drops it with the report.
      await send(fresh, { type: 'showSweep', report: logSweep });
      await fresh.waitForFunction(() => (document.querySelector('#sweep-profile-edited') as HTMLElement | null)?.hidden === true);
      await send(fresh, { type: 'showSweep', report: logSweep, profileEdited: sweepNote });
      await fresh.waitForFunction(() => (document.querySelector('#sweep-profile-edited') as HTMLElement | null)?.hidden === false);
      await send(fresh, { type: 'sweepStarted', name: 'batched.attn.yaml' });
      await fresh.waitForFunction(() => (document.querySelector('#sweep-profile-edited') as HTMLElement | null)?.hidden === true);
    } finally {
      await fresh.close();
    }
  });

  it('a Run sweep refused at its start gives the interrupted sweep\'s view back, its Resume sweep too, under the refusal (s44 newcomer-ed F4)', async () => {
    const fresh = await openDashboard(chromium.browser, chromium.server, 'dark', { locale: 'en-US', timezoneId: 'Asia/Tokyo' });
    try {
      await send(fresh, { type: 'init', runs: [], current: run, currentId: RUN_ID });
      const kept: SweepReport = { ...logSweep, interrupted: true, total: 7, missing: [{ id: 'm', index: 6, values: {}, label: 'page_size=64' }] };
      await send(fresh, { type: 'showSweep', report: kept });
      await fresh.waitForFunction(() => (document.querySelector('#sweep-interrupted') as HTMLElement | null)?.hidden === false);
      // Run sweep on its profile, which has an error now: the start drops the report (s37), the runner refuses (exit 2), and the
      // extension sends the report shown before the start again (Dashboard.restoreSweepBeforeStart), after the end.
      await send(fresh, { type: 'sweepStarted', name: 'batched.attn.yaml' });
      await fresh.waitForFunction(() => document.querySelectorAll('#sweep-table tbody tr').length === 0);
      const refusal = 'the sweep of batched.attn.yaml was not run: batched.attn.yaml:10:17: workload.arrival_rate must be > 0, not -5. Change the value there (it is marked in the Problems view) and run the sweep again.';
      await send(fresh, { type: 'sweepEnded', status: 'refused', message: refusal });
      await send(fresh, { type: 'showSweep', report: kept });
      await fresh.waitForFunction(() => document.querySelectorAll('#sweep-table tbody tr').length === 6);
      assert.equal(await fresh.textContent('#sweep-run-status'), refusal);
      assert.equal(await fresh.isVisible('#btn-resume-interrupted-sweep'), true);
      assert.match((await fresh.textContent('#sweep-interrupted-text')) ?? '', /^interrupted: 6 of 7 points/);
      assert.match((await fresh.textContent('#sweep-summary')) ?? '', /^batched\.attn\.yaml · sweep c0ffee/);
      await fresh.locator('#app').screenshot({ path: join(shots, 'sweep-refused-keeps-interrupted.png') });
    } finally {
      await fresh.close();
    }
  });
});

