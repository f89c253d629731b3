/**
 * npm run bench:lsp — how long the language server takes, after an edit, to publish the
 * diagnostics of the new version and answer the inlay-hint request that follows (what a user
 * waits for while typing; the server's debounce is set to 0 so only the work is timed).
 * Documents: every config in test/fixtures/configs, and a generated 2,000-line profile (YAML
 * and JSON), also with an invalid value and with a syntax error elsewhere (hints computed from the
 * valid keys, or kept from the previous version), and the llama example with a sweep axis of
 * 2,960 values (its diagnostics check 256 points). Each edit rewrites one number (a value the
 * estimate depends on). Prints the median,
 * p10 and p90 per document and overall; the target is a median under 10 ms per edit.
 * Then big config.json files (s38 newcomer-ed 2: an 11 MB one showed no hints, a 3.2 MB one took
 * 11 s): Llama-3.1-8B with id2label / label2id maps of 60,000 and 200,000 labels (a classifier's
 * config; bench:config-size's labelledConfig), each timed open in the editor (its own hints after
 * opening it, after a digit of num_key_value_heads rewritten, and after that digit deleted and
 * typed again: an invalid version between, as typing makes), from a 4-line profile that points at
 * it on disk (page_size rewritten, to the profile's hints), and for the server's stall: another
 * small file's hint request sent right behind an edit of the big config (deleted digit) and its
 * hint request, timed to its answer (the server is single-threaded: what it waits is the time the
 * big file's work held the event loop). Not in the overall median.
 * Then a huge profile (s46 newcomer-ed 1: 46 s to the first hint in the editor): the llama example and
 * 60,000 comment lines, 5.2 MB, opened, and edited as an edit, as the whole text (the extension sends a
 * document over 4 MiB whole, deferredSync.ts), and in a comment (the YAML parsed again); wall and the
 * server's CPU ms. Not in the overall median.
 * Then the 256-point sweep's editor cost (sweepCost): the server's CPU ms per edit. Not in the overall median.
 * --pick-only: the command palette's pick check of 200 profiles (pickCheck; --pick-files N for another count).
 * --typing-only: the extension's hints while typing (typingTimes): after each key, when the edited
 * line's old figure is gone and when its new one is drawn whole, VS Code 1.100's requests played.
 * Usage: npm run bench:lsp [-- --edits N] [--labels 60000,200000] [--big-only | --huge-only | --sweep-only | --pick-only [--pick-files N] | --typing-only]
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { InlayHint, Range, TextDocumentContentChangeEvent } from 'vscode-languageserver-protocol';
import { TypingHints } from '../extension/typingHints';
import { hintLabel, LspClient, positionAt } from '../test/lsp/harness';
import { tempDir } from '../test/fixtures/tmp';
import { labelledConfig } from './bench-config-size';

const root = join(__dirname, '..');
const configsDir = join(root, 'test', 'fixtures', 'configs');
const editsArg = process.argv.indexOf('--edits');
const EDITS = editsArg > 0 ? Number(process.argv[editsArg + 1]) : 40;
const WARMUP = 5;
const labelsArg = process.argv.indexOf('--labels');
const BIG_LABELS = labelsArg > 0 ? process.argv[labelsArg + 1]!.split(',').map(Number) : [60_000, 200_000];
const pickFilesArg = process.argv.indexOf('--pick-files');
/** How many profiles pickCheck's pick checks (s49 newcomer-ed's workspace had 255; the background pass answers 200). */
const PICK_FILES = pickFilesArg > 0 ? Number(process.argv[pickFilesArg + 1]) : 200;
/** Edits timed per big-config case (each may parse megabytes). */
const BIG_EDITS = Math.min(EDITS, 10);

/** A profile of about `lines` lines: an inline model, every section, and long case lists. */
export function generatedProfile(lines: number, syntax: 'yaml' | 'json'): string {
  const model = { model_type: 'llama', hidden_size: 4096, intermediate_size: 14336, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 8, vocab_size: 128256, max_position_embeddings: 131072, torch_dtype: 'bfloat16' };
  const fixedLines = 40;
  const listLen = Math.max(1, Math.floor((lines - fixedLines) / 3));
  const seqLens = Array.from({ length: listLen }, (_, i) => 128 + 16 * i);
  const batchSizes = Array.from({ length: listLen }, (_, i) => 1 + i);
  const contextLens = Array.from({ length: listLen }, (_, i) => 256 + 32 * i);
  const profile = {
    model,
    dtype: 'bf16',
    device: { backend: 'cuda', memory_gib: 80, gpu_memory_utilization: 0.9, tensor_parallel_size: 1 },
    kv_cache: { page_size: 16, dtype: 'auto', num_pages: 'auto', memory_gib: 'auto' },
    prefill: { batch_size: 1, seq_lens: seqLens, causal: true },
    decode: { batch_sizes: batchSizes, context_lens: contextLens },
    workload: { requests: 2000, arrival_rate: 8, prompt_len: { dist: 'lognormal', median: 512, max: 4096 }, output_len: { dist: 'uniform', min: 32, max: 512 }, max_num_seqs: 256, max_model_len: 8192 },
  };
  if (syntax === 'json') return JSON.stringify(profile, null, 2) + '\n';
  const out: string[] = ['# generated benchmark profile'];
  const emit = (obj: Record<string, unknown>, indent: string): void => {
    for (const [k, v] of Object.entries(obj)) {
      if (Array.isArray(v)) {
        out.push(`${indent}${k}:`);
        for (const x of v) out.push(`${indent}  - ${x}`);
      } else if (v !== null && typeof v === 'object') {
        out.push(`${indent}${k}:`);
        emit(v as Record<string, unknown>, `${indent}  `);
      } else out.push(`${indent}${k}: ${String(v)}`);
    }
  };
  emit(profile, '');
  return out.join('\n') + '\n';
}

export interface Doc {
  name: string;
  uri: string;
  text: string;
  /** The number each edit rewrites (alternating between two values). */
  key: RegExp;
  values: [string, string];
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function timeDoc(client: LspClient, doc: Doc): Promise<number[]> {
  await client.open(doc.uri, doc.text);
  await client.inlayHints(doc.uri);
  const m = doc.key.exec(doc.text);
  if (m === null) throw new Error(`${doc.name}: no ${String(doc.key)} to edit`);
  const start = positionAt(doc.text, m.index + m[0].length - m[1]!.length);
  let current = m[1]!;
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + EDITS; i++) {
    const next = current === doc.values[0] ? doc.values[1] : doc.values[0];
    const range = { start, end: { line: start.line, character: start.character + current.length } };
    const t0 = performance.now();
    await client.change(doc.uri, [{ range, text: next }]);
    await client.inlayHints(doc.uri);
    const ms = performance.now() - t0;
    if (i >= WARMUP) samples.push(ms);
    current = next;
  }
  await client.close(doc.uri);
  return samples.sort((a, b) => a - b);
}

/**
 * One benchmark document per HuggingFace config in `dir` (files named *.config.json; the folder
 * also holds a README.md), each edited by rewriting its layer count (num_hidden_layers or n_layer).
 * Throws naming the file when a config has no layer count.
 */
export function configDocs(dir: string): Doc[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.config.json'))
    .sort()
    .map((name) => {
      const text = readFileSync(join(dir, name), 'utf8');
      const key = /"(?:num_hidden_layers|n_layer)"\s*:\s*(\d+)/;
      const layers = key.exec(text)?.[1];
      if (layers === undefined) throw new Error(`${join(dir, name)}: no num_hidden_layers or n_layer to edit`);
      return { name, uri: `file:///bench/${name}`, text, key, values: [layers, String(Number(layers) + 1)] as [string, string] };
    });
}

async function main(): Promise<void> {
  if (process.argv.includes('--pick-only')) return pickCheck();
  if (process.argv.includes('--typing-only')) return typingTimes();
  if (process.argv.includes('--sweep-only')) return sweepCost();
  if (process.argv.includes('--huge-only')) return hugeProfile();
  if (process.argv.includes('--big-only')) {
    await hugeProfile();
    return bigConfigs();
  }
  const docs = configDocs(configsDir);
  for (const syntax of ['yaml', 'json'] as const) {
    const text = generatedProfile(2000, syntax);
    docs.push({
      name: `generated.attn.${syntax} (${text.split('\n').length} lines)`,
      uri: `file:///bench/generated.attn.${syntax}`,
      text,
      key: syntax === 'yaml' ? /page_size: (\d+)/ : /"page_size": (\d+)/,
      values: ['16', '32'],
    });
  }
  // Mid-edit: the same YAML profile with an invalid value elsewhere (hints from the valid keys),
  // and with a syntax error elsewhere (hints kept from the previous version).
  const yaml = generatedProfile(2000, 'yaml');
  for (const [what, from, to] of [['invalid value', 'arrival_rate: 8', 'arrival_rate: -8'], ['syntax error', 'requests: 2000', 'requests: [2000']] as const) {
    docs.push({ name: `generated.attn.yaml, ${what}`, uri: `file:///bench/${what.replace(' ', '-')}.attn.yaml`, text: yaml.replace(from, to), key: /page_size: (\d+)/, values: ['16', '32'] });
  }
  // A long sweep axis (s34 newcomer-ed 4: the llama example and 2,960 seeds, 2,992 lines): its diagnostics read the first 256 points.
  const seeds = Array.from({ length: 2960 }, (_, i) => `      - ${i + 1}`).join('\n');
  const swept = `${readFileSync(join(root, 'examples', 'llama-3.1-8b.attn.yaml'), 'utf8')}sweep:\n  axes:\n    workload.seed:\n${seeds}\n`;
  docs.push({ name: `llama-3.1-8b + sweep (${swept.split('\n').length - 1} lines)`, uri: pathToFileURL(join(root, 'examples', 'bench-sweep.attn.yaml')).href, text: swept, key: /page_size: (\d+)/, values: ['16', '32'] });
  const client = await LspClient.start({ validationDelayMs: 0 });
  const all: number[] = [];
  console.log(`diagnostics + inlay hints after one edit, ${EDITS} edits per document (ms)`);
  console.log(`${'document'.padEnd(44)} ${'median'.padStart(8)} ${'p10'.padStart(8)} ${'p90'.padStart(8)}`);
  for (const doc of docs) {
    const s = await timeDoc(client, doc);
    all.push(...s);
    console.log(`${doc.name.padEnd(44)} ${quantile(s, 0.5).toFixed(2).padStart(8)} ${quantile(s, 0.1).toFixed(2).padStart(8)} ${quantile(s, 0.9).toFixed(2).padStart(8)}`);
  }
  all.sort((a, b) => a - b);
  const median = quantile(all, 0.5);
  console.log(`${'all documents'.padEnd(44)} ${median.toFixed(2).padStart(8)} ${quantile(all, 0.1).toFixed(2).padStart(8)} ${quantile(all, 0.9).toFixed(2).padStart(8)}`);
  console.log(`target: median < 10 ms per edit — ${median < 10 ? 'met' : 'NOT met'}`);
  await client.stop();
  await sweepCost();
  await hugeProfile();
  await bigConfigs();
}

/**
 * The 256-point sweep of c7e0b5e6 (the llama example, axes kv_cache.page_size 1..128 x
 * tensor_parallel_size 1..8 x arrival_rate 1..128, powers of two: 8 x 4 x 8 points, 32 deployments),
 * whose every point's notes the editor reads (sweepProblems with sweepPointNotes) once per
 * debounced edit; arrival_rate rewritten in the profile -> its hints. The server's CPU ms per
 * edit (harness serverCpuMs, 10 ms ticks: the median of the per-edit figures), beside wall ms.
 */
export function sweepCostProfile(): string {
  const powers = (n: number) => Array.from({ length: n }, (_, i) => 2 ** i).join(', ');
  return `${readFileSync(join(root, 'examples', 'llama-3.1-8b.attn.yaml'), 'utf8')}sweep:\n  job: simulate\n  axes:\n    kv_cache.page_size: [${powers(8)}]\n    device.tensor_parallel_size: [${powers(4)}]\n    workload.arrival_rate: [${powers(8)}]\n`;
}

async function sweepCost(): Promise<void> {
  const text = sweepCostProfile();
  const uri = pathToFileURL(join(root, 'examples', 'bench-sweep-256.attn.yaml')).href;
  const edits = Math.max(EDITS, 20);
  console.log(`\n256-point sweep (page_size x tensor_parallel_size x arrival_rate), ${edits} edits: wall ms, then the server's CPU ms; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  const client = await LspClient.start({ validationDelayMs: 0 });
  try {
    await client.open(uri, text);
    await client.inlayHints(uri);
    const m = /arrival_rate: (24)/.exec(text)!;
    const at = positionAt(text, m.index + 'arrival_rate: '.length);
    let current = '24';
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < WARMUP + edits; i++) {
      const next = current === '24' ? '25' : '24';
      const c0 = client.serverCpuMs();
      const t0 = performance.now();
      await client.change(uri, [{ range: { start: at, end: { line: at.line, character: at.character + 2 } }, text: next }]);
      await client.inlayHints(uri);
      if (i >= WARMUP) {
        wall.push(performance.now() - t0);
        cpu.push(client.serverCpuMs() - c0);
      }
      current = next;
    }
    const c = [...cpu].sort((a, b) => a - b);
    const mean = cpu.reduce((a, b) => a + b, 0) / cpu.length;
    console.log(`${'case'.padEnd(44)} ${'median'.padStart(8)} ${'p10'.padStart(8)} ${'p90'.padStart(8)} ${'cpu med'.padStart(8)} ${'cpu p90'.padStart(8)} ${'cpu mean'.padStart(8)}`);
    console.log(`${'arrival_rate rewritten -> its hints'.padEnd(44)} ${spread(wall)} ${quantile(c, 0.5).toFixed(0).padStart(8)} ${quantile(c, 0.9).toFixed(0).padStart(8)} ${mean.toFixed(1).padStart(8)}`);
  } finally {
    await client.stop();
  }
}

/** Median, p10 and p90 of `xs` (ms) as printed. */
function spread(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  return `${quantile(s, 0.5).toFixed(1).padStart(8)} ${quantile(s, 0.1).toFixed(1).padStart(8)} ${quantile(s, 0.9).toFixed(1).padStart(8)}`;
}

/** The huge profile's comment lines (s46 newcomer-ed 1's file had 60,000, 5,329,043 B in all). */
export const HUGE_COMMENT_LINES = 60_000;

/** The llama example followed by HUGE_COMMENT_LINES comment lines of 86 characters: 5.2 MB, over extension/deferredSync.ts's 4 MiB. */
export function hugeProfileText(): string {
  return `${readFileSync(join(root, 'examples', 'llama-3.1-8b.attn.yaml'), 'utf8')}${Array.from({ length: HUGE_COMMENT_LINES }, (_, i) => `# note ${String(i).padStart(5, '0')} ${'x'.repeat(72)}`).join('\n')}\n`;
}

/**
 * The huge profile (see the header): opened -> its hints, and page_size rewritten -> its hints,
 * both as an edit (a range) and as the whole text (how the extension sends a document over 4 MiB),
 * and a comment line rewritten (whole text: the YAML is parsed again). Each with the server's CPU
 * time (harness serverCpuMs) beside the wall time.
 */
async function hugeProfile(): Promise<void> {
  const text = hugeProfileText();
  const uri = pathToFileURL(join(root, 'examples', 'bench-huge.attn.yaml')).href;
  console.log(`\nhuge profile (llama-3.1-8b example + ${HUGE_COMMENT_LINES.toLocaleString('en-US')} comment lines, ${(text.length / 1e6).toFixed(1)} MB), ${BIG_EDITS} edits each: wall ms, then the server's CPU ms; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  console.log(`${'case'.padEnd(56)} ${'median'.padStart(8)} ${'p10'.padStart(8)} ${'p90'.padStart(8)} ${'cpu med'.padStart(8)} ${'cpu p90'.padStart(8)}`);
  const client = await LspClient.start({ validationDelayMs: 0 });
  const row = (name: string, wall: number[], cpu: number[]): void => {
    const c = [...cpu].sort((a, b) => a - b);
    console.log(`${name.padEnd(56)} ${spread(wall)} ${quantile(c, 0.5).toFixed(0).padStart(8)} ${quantile(c, 0.9).toFixed(0).padStart(8)}`);
  };
  /** Wall and server CPU ms of `step`. */
  const timed = async (step: () => Promise<unknown>): Promise<[number, number]> => {
    const c0 = client.serverCpuMs();
    const t0 = performance.now();
    await step();
    return [performance.now() - t0, client.serverCpuMs() - c0];
  };
  try {
    const [openWall, openCpu] = await timed(async () => {
      await client.open(uri, text);
      await client.inlayHints(uri);
    });
    row('opened -> its hints', [openWall], [openCpu]);
    const at = positionAt(text, text.indexOf('page_size: 16') + 'page_size: '.length);
    const range = { start: at, end: { line: at.line, character: at.character + 2 } };
    let current = text;
    const cases: Array<[string, (i: number) => string | TextDocumentContentChangeEvent[]]> = [
      ['page_size rewritten, sent as an edit -> its hints', (i) => {
        const v = i % 2 === 0 ? '32' : '16';
        current = current.replace(/page_size: \d+/, `page_size: ${v}`);
        return [{ range, text: v }];
      }],
      ['page_size rewritten, sent whole -> its hints', (i) => (current = current.replace(/page_size: \d+/, `page_size: ${i % 2 === 0 ? '32' : '16'}`))],
      ['a comment line rewritten, sent whole -> its hints', (i) => (current = current.replace(/# note 30000 ./, `# note 30000 ${i % 2 === 0 ? 'y' : 'x'}`))],
    ];
    for (const [name, edit] of cases) {
      const wall: number[] = [];
      const cpu: number[] = [];
      for (let i = 0; i < BIG_EDITS; i++) {
        const change = edit(i);
        const [w, c] = await timed(async () => {
          await client.change(uri, change);
          await client.inlayHints(uri);
        });
        wall.push(w);
        cpu.push(c);
      }
      row(name, wall, cpu);
    }
  } finally {
    await client.stop();
  }
}

/** The big config.json cases (see the header), one server per config size. */
async function bigConfigs(): Promise<void> {
  const dir = tempDir('attnscope-bench-lsp-');
  console.log(`\nbig config.json (Llama-3.1-8B + N id2label/label2id labels), ${BIG_EDITS} edits each (ms); load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  console.log(`${'case'.padEnd(72)} ${'median'.padStart(8)} ${'p10'.padStart(8)} ${'p90'.padStart(8)}`);
  const small = readFileSync(join(root, 'examples', 'llama-3.1-8b.attn.yaml'), 'utf8');
  const smallUri = pathToFileURL(join(root, 'examples', 'bench-small.attn.yaml')).href;
  for (const labels of BIG_LABELS) {
    const text = labelledConfig(labels);
    const folder = join(dir, `labels-${labels}`);
    mkdirSync(folder);
    const path = join(folder, 'config.json');
    writeFileSync(path, text);
    const what = `${labels.toLocaleString('en-US')} labels, ${(text.length / 1e6).toFixed(1)} MB, ${(text.split('\n').length - 1).toLocaleString('en-US')} lines`;
    const row = (name: string, xs: number[]): void => console.log(`${`${what}: ${name}`.padEnd(72)} ${spread(xs)}`);
    const client = await LspClient.start({ validationDelayMs: 0 });
    try {
      await client.open(smallUri, small);
      await client.inlayHints(smallUri);
      // A 4-line profile pointing at the config on disk (not open).
      const profile = 'model: ./config.json\nkv_cache:\n  page_size: 16\n  memory_gib: 3.8125\n';
      const profileUri = pathToFileURL(join(folder, 'p.attn.yaml')).href;
      const t0 = performance.now();
      await client.open(profileUri, profile);
      await client.inlayHints(profileUri);
      row('profile pointing at it opened -> its hints', [performance.now() - t0]);
      const pageAt = positionAt(profile, profile.indexOf('16'));
      const pageRange = { start: pageAt, end: { line: pageAt.line, character: pageAt.character + 2 } };
      const profileTimes: number[] = [];
      for (let i = 0; i < BIG_EDITS + 1; i++) {
        const t = performance.now();
        await client.change(profileUri, [{ range: pageRange, text: i % 2 === 0 ? '32' : '16' }]);
        await client.inlayHints(profileUri);
        if (i > 0) profileTimes.push(performance.now() - t);
      }
      row('profile pointing at it: page_size rewritten -> its hints', profileTimes);
      await client.close(profileUri);

      // The config open in the editor.
      const uri = pathToFileURL(path).href;
      const t1 = performance.now();
      await client.open(uri, text);
      await client.inlayHints(uri);
      row('opened in the editor -> its hints', [performance.now() - t1]);
      const at = positionAt(text, text.indexOf('"num_key_value_heads": 8') + '"num_key_value_heads": '.length);
      const digit = { start: at, end: { line: at.line, character: at.character + 1 } };
      const rewritten: number[] = [];
      const retyped: number[] = [];
      const stall: number[] = [];
      for (let i = 0; i < BIG_EDITS; i++) {
        let t = performance.now();
        await client.change(uri, [{ range: digit, text: i % 2 === 0 ? '4' : '8' }]);
        await client.inlayHints(uri);
        rewritten.push(performance.now() - t);
        const back = i % 2 === 0 ? '4' : '8';
        t = performance.now();
        await client.change(uri, [{ range: digit, text: '' }]);
        await client.change(uri, [{ range: { start: at, end: at }, text: back }]);
        await client.inlayHints(uri);
        retyped.push(performance.now() - t);
        // The stall: the digit deleted, the config's hints asked, and right behind them a small file's.
        t = performance.now();
        client.sendChange(uri, [{ range: digit, text: '' }]);
        const own = client.inlayHints(uri);
        await client.inlayHints(smallUri);
        stall.push(performance.now() - t);
        await own;
        await client.change(uri, [{ range: { start: at, end: at }, text: back }]);
      }
      row('a digit rewritten in it -> its hints', rewritten);
      row('a digit deleted, then typed -> its hints', retyped);
      row('another file\'s hints asked behind an edit in it (the stall)', stall);
    } finally {
      await client.stop();
    }
  }
}

/**
 * The command palette's pick check (extension/commands.ts markUnrunnable): PICK_FILES files, 200
 * by default (a pick listed 200 at most before session 49, now extension/pick.ts PICK_FILE_LIMIT;
 * the background pass answers 200), none open, answered by one attnscope/cannotRun. Files: the
 * examples' four profiles (llama-3.1-8b, gpt-oss-20b, qwen3-30b-a3b, page-size) in turn, each
 * four in their own folder with the example's config folders beside them. Per round: a server with no
 * workspace folder, whose first pick analyses every file (cold) and whose second finds each answer
 * kept (warm: Workspace.closedFileReasons, a stat per file read); then a server given the folder,
 * whose background pass answers the files before the pick (server/pickPrefill.ts; its log line
 * gives its wall and CPU ms). Prints each pick's wall ms, the server's and this process's CPU ms,
 * the bytes answered, and the load average.
 */
async function pickCheck(): Promise<void> {
  const dir = tempDir('attnscope-bench-pick-');
  const examples = join(root, 'examples');
  const profiles = ['llama-3.1-8b.attn.yaml', 'gpt-oss-20b.attn.yaml', 'qwen3-30b-a3b.attn.json', 'page-size.attn.yaml'];
  const uris: string[] = [];
  for (let i = 0; i < Math.ceil(PICK_FILES / profiles.length); i++) {
    const folder = join(dir, `p${String(i).padStart(2, '0')}`);
    for (const model of ['llama-3.1-8b', 'gpt-oss-20b', 'qwen3-30b-a3b']) {
      mkdirSync(join(folder, model), { recursive: true });
      writeFileSync(join(folder, model, 'config.json'), readFileSync(join(examples, model, 'config.json')));
    }
    for (const name of profiles.slice(0, PICK_FILES - uris.length)) {
      writeFileSync(join(folder, name), readFileSync(join(examples, name)));
      uris.push(pathToFileURL(join(folder, name)).href);
    }
  }
  const pick = async (client: LspClient, how: string): Promise<void> => {
    const load = loadavg()[0]!.toFixed(1);
    const c0 = client.serverCpuMs();
    const own0 = process.cpuUsage();
    const t0 = performance.now();
    const bytes = JSON.stringify(await client.cannotRun(uris, 'simulate')).length;
    const wall = performance.now() - t0;
    const own = process.cpuUsage(own0);
    console.log(`pick check of ${uris.length} files, ${how.padEnd(10)}: ${wall.toFixed(0).padStart(6)} ms wall, server CPU ${(client.serverCpuMs() - c0).toFixed(0).padStart(5)} ms, client CPU ${((own.user + own.system) / 1000).toFixed(0).padStart(4)} ms, ${(bytes / 1e6).toFixed(3)} MB answered; load ${load}`);
  };
  for (let round = 0; round < 3; round++) {
    const client = await LspClient.start({ validationDelayMs: 0 });
    try {
      await client.resolveProfile(uris[0]!); // the server's first request (its modules warm; resolveProfile keeps no answer)
      await pick(client, 'cold');
      await pick(client, 'warm');
    } finally {
      await client.stop();
    }
    const folder = await LspClient.start({ validationDelayMs: 0, workspaceFolders: [dir] });
    try {
      console.log(`background pass: ${await folder.logged(/workspace files for the pick/)}; load ${loadavg()[0]!.toFixed(1)}`);
      await pick(folder, 'prefilled');
    } finally {
      await folder.stop();
    }
  }
}

/**
 * VS Code 1.100's inlay-hint debounce when its provider answers at once (code-server 4.100.3's
 * inlayHintsController.ts): a request waits the running mean of the provider's answer times, at
 * least 25 ms, after a key and after the provider's onDidChangeInlayHints. The extension's
 * middleware answers most requests at once (typingHints.ts), so the mean sits at this floor.
 */
const VSCODE_DEBOUNCE_MS = 25;

/**
 * The extension's inlay hints while typing (extension/typingHints.ts, the middleware of ctx.ts)
 * over the real server, VS Code 1.100's requests played by hand: each key rewrites page_size in the
 * llama example (16 -> 1 -> 12 -> 128 -> 12 -> 1 -> 16 ..., a key each); VSCODE_DEBOUNCE_MS after
 * it VS Code asks, and the middleware answers at once without the edited line's hint ("gone");
 * when the server's answer for the key's version comes, the middleware fires
 * onDidChangeInlayHints, VS Code asks VSCODE_DEBOUNCE_MS later and gets it, its own line's figure
 * whole ("back"). Keys 400 ms apart (a pause after each, so each key's figure is drawn). Prints
 * the median, p10 and p90 of each in ms of wall time after the key, the server's answer alone, and
 * the load; exits 1 if a "gone" answer holds the edited line's hint or a "back" one lacks it.
 */
async function typingTimes(): Promise<void> {
  const text = readFileSync(join(root, 'examples', 'llama-3.1-8b.attn.yaml'), 'utf8');
  const uri = pathToFileURL(join(root, 'examples', 'bench-typing.attn.yaml')).href;
  const m = /page_size: (\d+)/.exec(text)!;
  const start = positionAt(text, m.index + 'page_size: '.length);
  const all: Range = { start: { line: 0, character: 0 }, end: { line: 1e6, character: 0 } };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  let changed: () => void = () => undefined;
  const typing = new TypingHints<InlayHint, Range>(
    {
      lineOf: (h) => h.position.line,
      moved: (h, line) => ({ ...h, position: { line, character: h.position.character } }),
      covers: (o, i) => o.start.line <= i.start.line && i.end.line <= o.end.line,
      inRange: (h, r) => r.start.line <= h.position.line && h.position.line <= r.end.line,
    },
    () => changed(),
  );
  const client = await LspClient.start({ validationDelayMs: 150, hintsChanged: true });
  const gone: number[] = [];
  const back: number[] = [];
  const server: number[] = [];
  const values = ['1', '12', '128', '12', '1', '16'];
  let current = m[1]!;
  const cpu0 = client.serverCpuMs();
  try {
    client.sendOpen(uri, text);
    await typing.provide(uri, 1, all, () => client.inlayHints(uri, all));
    for (let i = 0; i < WARMUP + EDITS; i++) {
      const next = values[i % values.length]!;
      const t0 = performance.now();
      const version = client.sendChange(uri, [{ range: { start, end: { line: start.line, character: start.character + current.length } }, text: next }]);
      current = next;
      typing.edited(uri, version, [{ startLine: start.line, endLine: start.line, insertedLines: 0 }]);
      const answered = new Promise<void>((resolve) => (changed = resolve));
      await sleep(VSCODE_DEBOUNCE_MS);
      let asked = 0;
      const instant = await typing.provide(uri, version, all, (background) => {
        asked = performance.now();
        if (!background) throw new Error('the middleware asked the server in the foreground: no instant answer');
        return client.inlayHints(uri, all);
      });
      const tGone = performance.now() - t0;
      if (instant!.some((h) => h.position.line === start.line)) throw new Error(`key ${i}: the edited line's hint is still drawn`);
      await answered;
      const tServer = performance.now() - asked;
      await sleep(VSCODE_DEBOUNCE_MS);
      const whole = await typing.provide(uri, version, all, () => Promise.reject(new Error('the server\'s answer was not waiting')));
      const tBack = performance.now() - t0;
      const label = whole!.filter((h) => h.position.line === start.line).map(hintLabel).join(' ');
      if (!label.includes(' tokens')) throw new Error(`key ${i} (page_size ${next}): no figure on its line: ${label}`);
      if (i >= WARMUP) {
        gone.push(tGone);
        back.push(tBack);
        server.push(tServer);
      }
      await sleep(Math.max(0, 400 - (performance.now() - t0)));
    }
    console.log(`hints while typing (page_size, llama example, ${EDITS} keys 400 ms apart, VS Code's debounce ${VSCODE_DEBOUNCE_MS} ms played): median p10 p90, ms after the key; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
    console.log(`  edited line's old figure gone ${spread(gone)}`);
    console.log(`  its new figure drawn whole    ${spread(back)}`);
    console.log(`  (the server's answer alone    ${spread(server)})`);
    console.log(`  server CPU ${(client.serverCpuMs() - cpu0).toFixed(0)} ms for ${WARMUP + EDITS} keys`);
  } finally {
    await client.stop();
  }
}

if (require.main === module) main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
