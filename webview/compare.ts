/**
 * Comparing two runs case by case. A change is flagged only when it is larger than the runs'
 * own noise: |median_b − median_a| > max(p90_a − p10_a, p90_b − p10_b), i.e. wider than the
 * p10–p90 spread either run measured for that case. Pure.
 */
import type { KernelCase, RunResult } from '../core/protocol/run';

export interface CaseComparison {
  key: string;
  label: string;
  a: KernelCase | null;
  b: KernelCase | null;
  /** (median_b − median_a) / median_a; null when either side is missing. */
  relativeChange: number | null;
  /** Larger than both runs' p10–p90 spread: 'faster' | 'slower'; 'same' within noise. */
  verdict: 'faster' | 'slower' | 'same' | 'only-a' | 'only-b';
}

/** Identity of a case across runs: kernel, backend, dtypes and every shape field. */
export function caseKey(c: KernelCase): string {
  const s = c.shape;
  return [c.kernel, c.backend, c.dtype, c.kvDtype ?? '', s.batchSize, s.numHeads, s.numKvHeads, s.headDim, s.seqLenQ, s.seqLenK, s.causal ? 'causal' : 'full', s.slidingWindow ?? '', s.pageSize ?? ''].join('|');
}

/** Short human label: "prefill B1 N4096" / "decode B16 ctx8192 p16". */
export function caseLabel(c: KernelCase): string {
  const s = c.shape;
  if (c.kernel === 'paged_decode') return `decode B${s.batchSize} ctx${s.seqLenK}${s.pageSize ? ` p${s.pageSize}` : ''}`;
  if (c.kernel === 'flash_fwd') return `prefill B${s.batchSize} N${s.seqLenQ}${s.slidingWindow ? ` w${s.slidingWindow}` : ''}`;
  return `reference B${s.batchSize} ${s.seqLenQ}×${s.seqLenK}`;
}

/** Every case of either run, in `a`'s order then `b`'s new ones. */
export function compareRuns(a: RunResult, b: RunResult): CaseComparison[] {
  const bByKey = new Map(b.cases.map((c) => [caseKey(c), c] as const));
  const out: CaseComparison[] = [];
  const seen = new Set<string>();
  for (const ca of a.cases) {
    const key = caseKey(ca);
    seen.add(key);
    const cb = bByKey.get(key) ?? null;
    if (!cb) {
      out.push({ key, label: caseLabel(ca), a: ca, b: null, relativeChange: null, verdict: 'only-a' });
      continue;
    }
    const delta = cb.medianNs - ca.medianNs;
    const noise = Math.max(ca.p90Ns - ca.p10Ns, cb.p90Ns - cb.p10Ns);
    const verdict = Math.abs(delta) > noise ? (delta < 0 ? 'faster' : 'slower') : 'same';
    out.push({ key, label: caseLabel(ca), a: ca, b: cb, relativeChange: ca.medianNs > 0 ? delta / ca.medianNs : null, verdict });
  }
  for (const cb of b.cases) {
    const key = caseKey(cb);
    if (!seen.has(key)) out.push({ key, label: caseLabel(cb), a: null, b: cb, relativeChange: null, verdict: 'only-b' });
  }
  return out;
}

/**
 * Why two runs are not of the same model, or null when they are: the architecture fields that
 * size attention (model_type, layers, query and KV heads, head_dim, hidden size) and the Q/K/V
 * dtype. Cases of different models share shapes only by chance; the dashboard says so above a
 * comparison of such runs.
 */
export function modelDifference(a: RunResult, b: RunResult): string | null {
  const ma = a.profile.model;
  const mb = b.profile.model;
  const fields: Array<[string, unknown, unknown]> = [
    ['model_type', ma.modelType, mb.modelType],
    ['num_hidden_layers', ma.numLayers, mb.numLayers],
    ['num_attention_heads', ma.numHeads, mb.numHeads],
    ['num_key_value_heads', ma.numKvHeads, mb.numKvHeads],
    ['head_dim', ma.headDim, mb.headDim],
    ['hidden_size', ma.hiddenSize, mb.hiddenSize],
    ['dtype', a.profile.dtype, b.profile.dtype],
  ];
  const differ = fields.filter(([, x, y]) => x !== y).map(([k, x, y]) => `${k} ${String(x)} vs ${String(y)}`);
  return differ.length === 0 ? null : `These runs are of different models (${differ.join(', ')}): only cases of the same shape are compared, and their times say nothing about one model against the other.`;
}
