/**
 * npm run bench:config-size — how reading a HuggingFace config.json grows with its size, and what
 * an editor user waits for. The configs are examples/llama-3.1-8b/config.json with
 * `id2label` / `label2id` maps of N labels added, as a classifier's config has them (real ones
 * hold up to tens of thousands of labels), written with JSON.stringify(…, null, 2).
 * 1. Core: CPU time of parseJsonTree and of readModelConfig (parse + model) per size; linear
 *    work shows as a constant time per MB.
 * 2. Language server (the bundled server over stdio, validation delay 0): from opening the
 *    config to its diagnostics and inlay hints; then one edit in the config (a letter typed
 *    into a label) sent together with a hint request for another open config, timed to that
 *    other file's hints (how long one keystroke in the big file holds up the rest).
 * Wall times of a loaded machine mix in other processes: quote CPU times, or A/B pairs.
 * Usage: npm run bench:config-size [-- --labels 1000,20000,100000] [--no-lsp]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseJsonTree } from '../core/config/tree';
import { readModelConfig } from '../core/config/model';
import { LspClient, positionAt } from '../test/lsp/harness';

const root = join(__dirname, '..');
const args = process.argv.slice(2);
const labelsArg = args.indexOf('--labels');
const LABELS = labelsArg >= 0 ? args[labelsArg + 1]!.split(',').map(Number) : [1_000, 5_000, 20_000, 100_000, 400_000];
const BASE = join(root, 'examples', 'llama-3.1-8b', 'config.json');

/** The Llama-3.1-8B config with id2label / label2id maps of `labels` entries, pretty-printed. */
export function labelledConfig(labels: number): string {
  const base = JSON.parse(readFileSync(BASE, 'utf8')) as Record<string, unknown>;
  const id2label: Record<string, string> = {};
  const label2id: Record<string, number> = {};
  for (let i = 0; i < labels; i++) {
    id2label[String(i)] = `LABEL_${i}`;
    label2id[`LABEL_${i}`] = i;
  }
  return JSON.stringify({ ...base, id2label, label2id }, null, 2) + '\n';
}

/** CPU milliseconds (user + system) of `f`. */
function cpuMs(f: () => unknown): number {
  const c = process.cpuUsage();
  f();
  const d = process.cpuUsage(c);
  return (d.user + d.system) / 1000;
}

/** Median of `repeat` CPU timings of `f`. */
function medianCpuMs(f: () => unknown, repeat: number): number {
  const t = Array.from({ length: repeat }, () => cpuMs(f)).sort((a, b) => a - b);
  return t[Math.floor(t.length / 2)]!;
}

async function lsp(text: string, labels: number): Promise<void> {
  const client = await LspClient.start({ validationDelayMs: 0 });
  try {
    const other = { uri: 'file:///bench/other/config.json', text: readFileSync(BASE, 'utf8') };
    await client.open(other.uri, other.text);
    await client.inlayHints(other.uri);
    const uri = `file:///bench/labels-${labels}/config.json`;
    let t0 = performance.now();
    await client.open(uri, text);
    const diagnosticsMs = performance.now() - t0;
    const hints = await client.inlayHints(uri);
    const openMs = performance.now() - t0;
    // One keystroke in the big config (a letter typed into the first label: the text is parsed
    // again, as for any edit but a number's digits), and at once a hint request for the other file.
    const at = positionAt(text, text.indexOf('"LABEL_0"') + '"LABEL_0'.length);
    t0 = performance.now();
    const version = client.sendChange(uri, [{ range: { start: at, end: at }, text: 'x' }]);
    await client.inlayHints(other.uri);
    const otherMs = performance.now() - t0;
    await client.diagnostics(uri, version);
    const editMs = performance.now() - t0;
    console.log(
      `lsp  ${String(labels).padStart(7)} labels: open -> diagnostics ${diagnosticsMs.toFixed(0)} ms, -> ${hints?.length ?? 0} hints ${openMs.toFixed(0)} ms; ` +
        `an edit in it: the other file's hints after ${otherMs.toFixed(0)} ms, its own diagnostics after ${editMs.toFixed(0)} ms`,
    );
  } finally {
    await client.stop();
  }
}

async function main(): Promise<void> {
  console.log(`load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}; CPU ms are medians of 3 (1 above 1 MB)`);
  console.log(`${'labels'.padStart(12)} ${'MB'.padStart(6)} ${'parse ms'.padStart(9)} ${'read ms'.padStart(8)} ${'read ms/MB'.padStart(11)}`);
  const texts = LABELS.map((n) => [n, labelledConfig(n)] as const);
  for (const [n, text] of texts) {
    const mb = text.length / 1e6;
    const repeat = mb > 1 ? 1 : 3;
    const parse = medianCpuMs(() => parseJsonTree(text), repeat);
    const read = medianCpuMs(() => readModelConfig(text, 'config.json'), repeat);
    console.log(`core ${String(n).padStart(7)} ${mb.toFixed(2).padStart(6)} ${parse.toFixed(0).padStart(9)} ${read.toFixed(0).padStart(8)} ${(read / mb).toFixed(0).padStart(11)}`);
  }
  if (args.includes('--no-lsp')) return;
  for (const [n, text] of texts) await lsp(text, n);
}

if (require.main === module) main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
