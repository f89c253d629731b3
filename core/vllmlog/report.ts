/**
 * A log comparison as text for the terminal (aligned columns) or Markdown for the editor, and
 * a log read without a profile (its figures and the line each is on).
 */
import { formatConcurrency, formatCount, formatGib } from '../format';
import type { ComparisonRow, LogComparison } from './compare';
import { missingKvNote, stopNote } from './notes';
import { isDataParallel, NAMED_RANK_TERMS, type LogFigure, type RankedKey, type VllmLog, type VllmLogFigures } from './parse';
import { renderTable } from '../textTable';

const LABELS: Array<[keyof VllmLogFigures, string, 'bytes' | 'count' | 'x' | 'ratio']> = [
  ['totalGpuMemoryBytes', 'device memory (total_gpu_memory)', 'bytes'],
  ['gpuMemoryUtilization', 'gpu_memory_utilization', 'ratio'],
  ['usableBytes', 'usable', 'bytes'],
  ['weightsBytes', 'model weights', 'bytes'],
  ['activationPeakBytes', 'activation peak (PyTorch)', 'bytes'],
  ['nonTorchBytes', 'non-torch memory', 'bytes'],
  ['cudaGraphBytes', 'CUDA graph memory', 'bytes'],
  ['kvCacheBytes', 'KV cache memory', 'bytes'],
  ['kvShortfallBytes', 'KV cache memory short by', 'bytes'],
  ['gpuBlocks', 'GPU blocks', 'count'],
  ['kvCacheTokens', 'KV cache size (tokens)', 'count'],
  ['maxConcurrency', 'maximum concurrency', 'x'],
];

/** Why a line is in VllmLog.unread, for messages that name the line themselves. */
export const UNREAD_WHY = 'could not read this vLLM memory line (cut short or garbled?)';
/** Why one line of VllmLog.unread was not read, where the other lines' figures were: its own reason, else {@link UNREAD_WHY}. */
export function unreadLine(u: VllmLog['unread'][number]): string {
  return `${u.why ?? UNREAD_WHY}: its figure is left out`;
}

/** "line 12: could not read ...: <the line>", one per line of the log that could not be read. */
export function unreadLines(log: VllmLog): string[] {
  return log.unread.map((u) => `line ${u.line}: ${unreadLine(u)}: ${u.text}`);
}

const RANKED_LABELS: Record<RankedKey, [string, (v: number) => string]> = {
  kvCacheBytes: ['KV cache memory', formatGib],
  gpuBlocks: ['GPU blocks', formatCount],
  kvCacheTokens: ['GPU KV cache size', (v) => `${formatCount(v)} tokens`],
  maxConcurrency: ['maximum concurrency', formatConcurrency],
};

/**
 * "KV cache memory is printed 2 times, once per rank (line 12: 60.98 GiB (VllmWorker TP0 pid=7),
 * line 13: 61.23 GiB (...)): the smallest is read, line 12, as vLLM sizes every rank's pool by the
 * smallest (...)", one per {@link VllmLog.ranks} entry, with the line of the copy read.
 */
export function rankNotes(log: Pick<VllmLog, 'ranks' | 'rankProcess' | 'rankTermsElsewhere'>): Array<{ line: number; message: string }> {
  return log.ranks.map((r) => {
    const [label, fmt] = RANKED_LABELS[r.key];
    const named = new Set(r.processes).size > 1;
    const list = r.copies.map((c, k) => `line ${c.line}: ${fmt(c.value)}${named && r.processes[k] ? ` (${r.processes[k]})` : ''}`).join(', ');
    const terms = r.key === 'kvCacheBytes' && log.rankProcess !== undefined ? rankTermsText(log.rankProcess, log.rankTermsElsewhere ?? []) : '';
    return {
      line: r.read.line,
      message: isDataParallel(r)
        // Data parallelism: each engine is its own vLLM engine with its own pool; none is bounded by another's.
        ? `${label} is printed ${r.copies.length} times, once per data-parallel engine (${list}): each replica is an engine of its own and sizes its own pool (vLLM takes the smallest over one engine's workers, get_kv_cache_configs, and syncs nothing across replicas), so these are ${r.copies.length} pools, not one pool's ranks; the smallest, line ${r.read.line}, is the one set beside the estimate, and with --profile every replica is compared${terms}`
        : `${label} is printed ${r.copies.length} times, once per rank (${list}): the smallest is read, line ${r.read.line}, as vLLM sizes every rank's pool by the smallest (V0: the workers' minimum of blocks, determine_num_available_blocks; V1: kv_cache_utils unify_kv_cache_configs / get_kv_cache_configs, min_num_blocks)${terms}`,
    };
  });
}

const TERM_NAMES: Record<NonNullable<VllmLog['rankTermsElsewhere']>[number]['key'], string> = {
  weightsBytes: 'weights', activationPeakBytes: 'activation peak', nonTorchBytes: 'non-torch', cudaGraphBytes: 'CUDA graph',
};

/** "; the weights, activation peak and non-torch figures are read from the same process (TP3); the CUDA graph figure from TP0's line 17, TP3 printing none" */
function rankTermsText(process: string, elsewhere: NonNullable<VllmLog['rankTermsElsewhere']>): string {
  const named = (p: string) => (p ? `process (${p})` : 'unprefixed (driver) lines');
  const list = (names: string[]) => (names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0]!);
  const same = NAMED_RANK_TERMS.filter((k) => !elsewhere.some((e) => e.key === k)).map((k) => TERM_NAMES[k]);
  const parts = same.length > 0 ? [`; the ${list(same)} figure${same.length > 1 ? 's are' : ' is'} read from the same ${named(process)}`] : [];
  for (const e of elsewhere) parts.push(`; the ${TERM_NAMES[e.key]} figure from line ${e.line} (${e.process || 'the unprefixed driver'}), which ${process || 'the driver'} did not print`);
  return parts.join('');
}

/**
 * The figures a log printed, one per line with its line number; [] when it printed none. With
 * `notes` (the default), then the lines that could not be read, the ranks' copies and a missing
 * KV line, each at its line (the CLI prints those on stderr instead: `notes: false`).
 */
export function logFigureLines(log: VllmLog, opts: { notes?: boolean } = {}): string[] {
  const out: string[] = [];
  for (const [key, label, kind] of LABELS) {
    const f = log.figures[key] as LogFigure | undefined;
    if (!f || typeof f !== 'object') continue;
    const v = kind === 'bytes' ? formatGib(f.value) : kind === 'count' ? formatCount(f.value) : kind === 'x' ? formatConcurrency(f.value) : String(f.value);
    const extra = key === 'maxConcurrency' && log.figures.concurrencySeqLen ? ` for ${formatCount(log.figures.concurrencySeqLen.value)} tokens per request`
      : key === 'cudaGraphBytes' ? (log.figures.cudaGraphCounted ? ' (subtracted from the KV budget)' : ' (captured after the pool was sized)')
      : key === 'activationPeakBytes' && log.figures.activationFromPeakTorch && log.figures.peakTorchBytes && log.figures.weightsBytes ? ` (peak_torch_memory ${formatGib(log.figures.peakTorchBytes.value)}, weights included, − weights ${formatGib(log.figures.weightsBytes.value)})` : '';
    out.push(`${label.padEnd(34)} ${v}${extra}  (line ${f.line})`);
  }
  const s = log.settings;
  const set = [
    s.version && `vLLM ${s.version.value}`, s.engine && `${s.engine.value} engine`, s.model && `model ${s.model.value}`, s.dtype && `dtype ${s.dtype.value}`,
    s.maxModelLen && `max_model_len ${formatCount(s.maxModelLen.value)}`, s.tensorParallelSize && `tensor_parallel_size ${s.tensorParallelSize.value}`,
    s.dataParallelSize && `data_parallel_size ${s.dataParallelSize.value}`,
    s.maxNumBatchedTokens && `max_num_batched_tokens ${formatCount(s.maxNumBatchedTokens.value)}`, s.maxNumSeqs && `max_num_seqs ${s.maxNumSeqs.value}`,
    s.kvCacheDtype && `kv_cache_dtype ${s.kvCacheDtype.value}`, s.kvCacheMemoryBytes && `kv_cache_memory_bytes ${formatCount(s.kvCacheMemoryBytes.value)}`,
    s.cpuOffloadGib && `cpu_offload_gb ${s.cpuOffloadGib.value}`, s.speculativeConfig && `speculative_config ${s.speculativeConfig.value}`,
  ].filter(Boolean);
  if (set.length > 0) out.push(`settings: ${set.join(', ')}`);
  if (opts.notes === false) return out;
  out.push(...unreadLines(log));
  out.push(...rankNotes(log).map((n) => `line ${n.line}: ${n.message}`));
  for (const n of [missingKvNote(log), stopNote(log)]) if (n) out.push(`line ${n.line}: ${n.message}`);
  return out;
}

/** A row's difference cell: '=' only where both sides are known and agree; '—' where one is unknown. */
function difference(r: ComparisonRow): string {
  if (r.difference) return r.difference;
  return r.log === null || r.estimate === '—' ? '—' : '=';
}

/**
 * The comparison as text: term, vLLM log, estimate, difference, and why under each row; past
 * `width` columns (default core/textTable.ts tableWidth: the terminal's, else 100) stacked parts, each repeating the term,
 * the why lines under the last.
 */
export function formatComparisonText(c: LogComparison, width?: number): string {
  const head = ['term', 'vLLM log', 'estimate', 'difference'];
  const cells = c.rows.map((r) => [r.term, r.log === null ? '—' : `${r.log}${r.logLine !== null ? ` [${r.logLine}]` : ''}`, r.estimate, difference(r)]);
  // Past the table width (core/textTable.ts tableWidth: 100 piped): stacked parts, each repeating the term; why under each row of the last.
  const table = renderTable(head, cells, head.map(() => false), { notes: c.rows.map((r) => `    ${r.why}`), width });
  const out = [...(c.deviceCaveat ? [`note: ${c.deviceCaveat}`, ''] : []), ...table.split('\n')];
  out.push('', `settings from the log: ${c.fromLog.length ? c.fromLog.join(', ') : 'none'}`);
  out.push(`settings from the profile: ${c.fromProfile.length ? c.fromProfile.join(', ') : 'none'}`);
  for (const n of c.notes) out.push(`note: ${n}`);
  return out.join('\n');
}

/** The comparison as a Markdown table (the editor's vLLM log view). */
export function formatComparisonMarkdown(c: LogComparison, title: string): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const out = [`# ${esc(title)}`, '', ...(c.deviceCaveat ? [`> ${esc(c.deviceCaveat)}`, ''] : []), '| Term | vLLM log | Estimate | Difference | Why |', '|---|---|---|---|---|'];
  for (const r of c.rows) {
    out.push(`| ${esc(r.term)} | ${r.log === null ? '—' : `${esc(r.log)}${r.logLine !== null ? ` (line ${r.logLine})` : ''}`} | ${esc(r.estimate)} | ${esc(difference(r))} | ${esc(r.why)} |`);
  }
  out.push('', `**Settings from the log:** ${c.fromLog.length ? c.fromLog.map(esc).join(', ') : 'none'}`, '');
  out.push(`**Settings from the profile:** ${c.fromProfile.length ? c.fromProfile.map(esc).join(', ') : 'none'}`);
  for (const n of [c.modelMismatch, c.tpMismatch]) if (n) out.push('', `> **Line ${n.line}**: ${esc(n.message)}`);
  for (const n of c.notes) out.push('', `> ${esc(n)}`);
  for (const u of c.unread) out.push('', `> **Line ${u.line}**: ${unreadLine(u)}: \`${u.text.replace(/`/g, "'")}\``);
  for (const n of rankNotes(c)) out.push('', `> **Line ${n.line}**: ${esc(n.message)}`);
  for (const n of [c.missingKv, c.stop]) if (n) out.push('', `> **Line ${n.line}**: ${esc(n.message)}`);
  return `${out.join('\n')}\n`;
}
