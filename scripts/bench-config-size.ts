/**
 * npm run bench:config-size — how reading a HuggingFace config.json and a profile grows with
 * their size, and what an editor user waits for.
 * Configs: examples/llama-3.1-8b/config.json with `id2label` / `label2id` maps of N labels
 * added, as a classifier's config has them (real ones hold up to tens of thousands of labels),
 * written with JSON.stringify(…, null, 2).
 * 1. Core: CPU time of parseJsonTree and of readModelConfig (parse + model) per size; linear
 *    work shows as a constant time per MB.
 * 2. Language server (the bundled server over stdio, validation delay 0): from opening the
 *    config to its diagnostics and inlay hints; then one edit in the config (a letter typed
 *    into a label) sent together with a hint request for another open config, timed to that
 *    other file's hints (how long one keystroke in the big file holds up the rest).
 * Profiles: examples/llama-3.1-8b.attn.yaml with prefill.seq_lens a flow list of N lengths
 * (N = 2 is the example, 1.3 KB; 20,000 make 134 KB; 160,000 make 1.1 MB).
 * 3. The server's work per edit, in process: CPU time of what the server runs for each version
 *    (server/analysis.ts analyze with the previous version's analysis, then the diagnostics and
 *    the inlay hints), for each kind of edit in turn: a digit typed into a seq_len, a length
 *    added (`, 2048` pasted after one), that length removed, kv_cache.page_size rewritten, and a
 *    word edited (dtype bf16 -> fp16, which parses the text again). With `--base <checkout>`
 *    (e.g. a clone of main) the same edits run through that tree's server modules too, A and B
 *    interleaved edit by edit in this one process, and the ratio per kind is of the medians.
 * 4. Language server: a digit typed into a seq_len, timed to its diagnostics and to its hints.
 * Wall times of a loaded machine mix in other processes: quote CPU times, or A/B pairs.
 * Usage: npm run bench:config-size [-- --labels 1000,20000,100000] [--lens 2,20000,160000]
 *        [--base /tmp/main-clone] [--no-lsp] [--no-config] [--no-profile]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseJsonTree } from '../core/config/tree';
import { readModelConfig } from '../core/config/model';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { LspClient, positionAt } from '../test/lsp/harness';
import type { Analysis, FileHost } from '../server/analysis';

const root = join(__dirname, '..');
const args = process.argv.slice(2);
const labelsArg = args.indexOf('--labels');
const LABELS = labelsArg >= 0 ? args[labelsArg + 1]!.split(',').map(Number) : [1_000, 5_000, 20_000, 100_000, 400_000];
const BASE = join(root, 'examples', 'llama-3.1-8b', 'config.json');
const lensArg = args.indexOf('--lens');
const LENS = lensArg >= 0 ? args[lensArg + 1]!.split(',').map(Number) : [2, 20_000, 160_000];
const baseArg = args.indexOf('--base');
const BASE_TREE = baseArg >= 0 ? args[baseArg + 1]! : null;
const PROFILE = join(root, 'examples', 'llama-3.1-8b.attn.yaml');

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

/**
 * examples/llama-3.1-8b.attn.yaml with prefill.seq_lens a flow list of `n` lengths (n = 2: the
 * example as it is), lengths drawn from 1..32,768 by a fixed linear congruential sequence.
 */
export function seqLensProfile(n: number): string {
  const text = readFileSync(PROFILE, 'utf8');
  if (n === 2) return text;
  let x = 1;
  const lens = Array.from({ length: n }, () => 1 + ((x = (x * 1103515245 + 12345) % 2147483648) % 32768));
  return text.replace('seq_lens: [512, 1024]', `seq_lens: [${lens.join(', ')}]`);
}

/** The server modules the per-edit timing runs: this tree's, or another checkout's (`--base`). */
interface ServerModules {
  analyze: typeof import('../server/analysis').analyze;
  /** The analysis's diagnostics, its sweep checked. */
  diagnostics(a: Analysis, host: FileHost): unknown;
  documentHints: typeof import('../server/hints').documentHints;
}

function serverModules(tree: string): ServerModules {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { analyze, checkedProblems } = require(join(tree, 'server', 'analysis.ts')) as Partial<typeof import('../server/analysis')> & Pick<typeof import('../server/analysis'), 'analyze'>;
  const { toDiagnostics } = require(join(tree, 'server', 'diagnostics.ts')) as { toDiagnostics: (...args: unknown[]) => unknown };
  const { documentHints } = require(join(tree, 'server', 'hints.ts')) as typeof import('../server/hints');
  /* eslint-enable @typescript-eslint/no-require-imports */
  // A base tree from before checkedProblems (s35) checked the sweep in analyze: toDiagnostics(a, capabilities).
  const diagnostics = (a: Analysis, host: FileHost): unknown => (checkedProblems ? toDiagnostics(a, checkedProblems(a, host), {}) : toDiagnostics(a, {}));
  return { analyze, diagnostics, documentHints };
}

/** The kinds of edit timed, each a function of the current text giving the next (applied in turn, so the text returns to its start after each cycle). */
const EDITS: Array<[string, (text: string) => string]> = [
  ['digit typed in a seq_len', (t) => t.replace(/seq_lens: \[(\d+)/, 'seq_lens: [$19')],
  ['digit deleted again', (t) => t.replace(/seq_lens: \[(\d+)9/, 'seq_lens: [$1')],
  ['seq_len added', (t) => t.replace(/seq_lens: \[(\d+)/, 'seq_lens: [$1, 2048')],
  ['seq_len removed', (t) => t.replace(/seq_lens: \[(\d+), 2048/, 'seq_lens: [$1')],
  ['page_size rewritten', (t) => t.replace('page_size: 16', 'page_size: 32')],
  ['page_size back', (t) => t.replace('page_size: 32', 'page_size: 16')],
  ['dtype edited (parse)', (t) => t.replace('dtype: bf16', 'dtype: fp16')],
  ['dtype back (parse)', (t) => t.replace('dtype: fp16', 'dtype: bf16')],
  // Typing that passes through invalid YAML, outside the list and inside it.
  ['key started `  x` (invalid)', (t) => t.replace('  seed: 1', '  seed: 1\n  x')],
  ['its `:` typed', (t) => t.replace('\n  x', '\n  x:')],
  ['its value typed', (t) => t.replace('\n  x:', '\n  x: 1')],
  ['the line deleted', (t) => t.replace('\n  x: 1', '')],
  ['`[` typed, unclosed (invalid)', (t) => t.replace('page_size: 16', 'page_size: [16')],
  ['`[` deleted', (t) => t.replace('page_size: [16', 'page_size: 16')],
  ['tab typed in an indent (invalid)', (t) => t.replace('\n  page_size', '\n\t  page_size')],
  ['tab deleted', (t) => t.replace('\n\t  page_size', '\n  page_size')],
  ['stray `:` typed (invalid)', (t) => t.replace('dtype: bf16', 'dtype: bf16:')],
  ['stray `:` deleted', (t) => t.replace('dtype: bf16:', 'dtype: bf16')],
  ['`,` typed in the list (invalid)', (t) => t.replace(/seq_lens: \[(\d+)/, 'seq_lens: [$1,')],
  ['` ` typed (invalid)', (t) => t.replace(/seq_lens: \[(\d+),/, 'seq_lens: [$1, ')],
  ['`2` typed', (t) => t.replace(/seq_lens: \[(\d+), ,/, 'seq_lens: [$1, 2,')],
  ['`, 2` deleted', (t) => t.replace(/seq_lens: \[(\d+), 2,/, 'seq_lens: [$1,')],
];

/**
 * CPU ms per edit kind of what the server runs for a version (analyze with the previous
 * analysis, diagnostics, hints), `cycles` times through EDITS, for each tree in `trees`
 * interleaved edit by edit; medians per tree and kind.
 */
function editCosts(text: string, trees: ServerModules[], cycles: number): number[][] {
  const host = { readFile: (p: string): string | null => { try { return readFileSync(p, 'utf8'); } catch { return null; } } };
  const uri = `file://${join(root, 'examples', 'bench.attn.yaml')}`;
  const times = trees.map(() => EDITS.map((): number[] => []));
  const failures = new Set<string>();
  const previous = trees.map((m) => m.analyze(TextDocument.create(uri, 'yaml', 1, text), host));
  let current = text;
  let version = 1;
  for (let c = 0; c < cycles; c++) {
    EDITS.forEach(([, edit], k) => {
      current = edit(current);
      const doc = TextDocument.create(uri, 'yaml', ++version, current);
      trees.forEach((m, t) => {
        times[t]![k]!.push(cpuMs(() => {
          const a = m.analyze(doc, host, previous[t]);
          m.diagnostics(a, host);
          try {
            m.documentHints(a, []);
          } catch (err) {
            // The server logs it and answers no hints (server/safe.ts runSafe); the time until it threw counts.
            failures.add(`${t === 0 ? 'this tree' : 'base'}: hints threw ${String(err).split('\n')[0]}`);
          }
          previous[t] = a;
        }));
      });
    });
  }
  for (const f of failures) console.log(`  (${(text.length / 1e6).toFixed(1)} MB: ${f})`);
  return times.map((byKind) => byKind.map((xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!));
}

async function lspProfile(text: string, n: number): Promise<void> {
  const client = await LspClient.start({ validationDelayMs: 0 });
  try {
    const uri = `file://${join(root, 'examples', `bench-${n}.attn.yaml`)}`;
    let t0 = performance.now();
    await client.open(uri, text);
    const openMs = performance.now() - t0;
    const times: Array<[number, number]> = [];
    for (let i = 0; i < 5; i++) {
      const at = positionAt(text, text.indexOf('seq_lens: [') + 'seq_lens: [5'.length);
      t0 = performance.now();
      const version = client.sendChange(uri, [{ range: { start: at, end: at }, text: String(i % 2 === 0 ? 1 : 2) }]);
      await client.diagnostics(uri, version);
      const diagnosticsMs = performance.now() - t0;
      await client.inlayHints(uri);
      times.push([diagnosticsMs, performance.now() - t0]);
      // Undo, so that every edit starts from the same text.
      const end = { line: at.line, character: at.character + 1 };
      await client.diagnostics(uri, client.sendChange(uri, [{ range: { start: at, end }, text: '' }]));
    }
    const med = (k: 0 | 1): number => times.map((x) => x[k]).sort((a, b) => a - b)[2]!;
    console.log(`lsp  ${String(n).padStart(7)} seq_lens (${(text.length / 1e3).toFixed(0)} KB): open -> diagnostics ${openMs.toFixed(0)} ms; a digit typed in a seq_len -> its diagnostics ${med(0).toFixed(0)} ms, -> its hints ${med(1).toFixed(0)} ms (wall, median of 5)`);
  } finally {
    await client.stop();
  }
}

async function profiles(): Promise<void> {
  const trees = [serverModules(root), ...(BASE_TREE !== null ? [serverModules(BASE_TREE)] : [])];
  console.log(`\nprofile: CPU ms per edit (analyze + diagnostics + hints), median of ${BASE_TREE !== null ? 'A/B pairs' : 'runs'}; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  if (BASE_TREE !== null) console.log(`  this tree (new) vs ${BASE_TREE} (base), interleaved edit by edit`);
  for (const n of LENS) {
    const text = seqLensProfile(n);
    const cycles = text.length > 5e5 ? 3 : text.length > 5e4 ? 7 : 41;
    const [mine, base] = editCosts(text, trees, cycles);
    const kb = `${(text.length / 1e3).toFixed(text.length < 1e4 ? 1 : 0)} KB`;
    for (let k = 0; k < EDITS.length; k++) {
      console.log(`prof ${String(n).padStart(7)} seq_lens ${kb.padStart(8)}  ${EDITS[k]![0].padEnd(34)}${mine![k]!.toFixed(1).padStart(7)}${base ? ` vs ${base[k]!.toFixed(1).padStart(7)} (${(mine![k]! / base[k]!).toFixed(2)}x)` : ''}`);
    }
  }
  if (args.includes('--no-lsp')) return;
  for (const n of LENS) await lspProfile(seqLensProfile(n), n);
}

async function configs(): Promise<void> {
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


async function main(): Promise<void> {
  if (!args.includes('--no-config')) await configs();
  if (!args.includes('--no-profile')) await profiles();
}

if (require.main === module) main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
