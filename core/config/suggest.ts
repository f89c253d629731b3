/** "Did you mean": the closest known word to a typo (profile keys and values, trace keys). */

/** Levenshtein distance, for "did you mean". */
function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/**
 * The closest candidate within a distance that still reads as a typo, or undefined. maxDistance
 * caps the edit distance further (a config.json has dozens of keys this tool never reads:
 * "hidden_act" is 3 edits from "hidden_dim").
 */
export function closestMatch(word: string, candidates: readonly string[], maxDistance = Infinity): string | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');
  const prefixed = candidates.filter((c) => word.length >= 2 && norm(c).startsWith(norm(word)));
  if (prefixed.length === 1 && (maxDistance === Infinity || editDistance(word.toLowerCase(), prefixed[0]!.toLowerCase()) <= maxDistance)) return prefixed[0];
  let best: string | undefined;
  let bestDist = Infinity;
  for (const c of candidates) {
    const d = norm(word) === norm(c) ? 0 : editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDist) {
      bestDist = d;
      best = c;
    }
  }
  // Within a typo's reach, and keeping at least two of the word's letters: "foo" is not a typo of "slo".
  return best !== undefined && bestDist <= Math.min(maxDistance, Math.max(2, Math.floor(word.length / 3))) && bestDist <= word.length - 2 ? best : undefined;
}

/**
 * The candidates `word` begins or is part of, case and `-`/`_`/spaces aside, where there are two
 * or more ("h100" -> H100 SXM, H100 PCIe, H100 NVL); otherwise [] (closestMatch then answers: by
 * edit distance "h100" is nearest "H200", s46 newcomer L1).
 */
export function partMatches(word: string, candidates: readonly string[]): string[] {
  const norm = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');
  const w = norm(word);
  if (w.length < 2) return [];
  const prefixed = candidates.filter((c) => norm(c).startsWith(w));
  const found = prefixed.length > 0 ? prefixed : candidates.filter((c) => norm(c).includes(w));
  return found.length >= 2 ? found : [];
}

/** The kinds of parallelism a key can name ("data_parallel_size", "dp_size", "tp"), by vLLM's words and their usual short forms. */
const PARALLELISMS: ReadonlyArray<readonly [string, RegExp]> = [
  ['data', /data|(^|[-_])dp([-_]|$)/i],
  ['tensor', /tensor|(^|[-_])tp([-_]|$)/i],
  ['pipeline', /pipeline|(^|[-_])pp([-_]|$)/i],
  ['expert', /expert|(^|[-_])ep([-_]|$)/i],
];

function parallelismOf(key: string): string | undefined {
  return PARALLELISMS.find(([, re]) => re.test(key))?.[0];
}

/**
 * closestMatch for a profile key: where the word names a kind of parallelism (data, tensor,
 * pipeline, expert, or dp / tp / pp / ep), only keys naming the same kind, or none, are
 * candidates. "data_parallel_size" is 4 edits from "tensor_parallel_size", but data parallelism
 * replicates the model where tensor parallelism splits it: a user who followed that hint got the
 * weights halved per GPU (s39 newcomer F1).
 */
export function closestKey(word: string, candidates: readonly string[]): string | undefined {
  const kind = parallelismOf(word);
  return closestMatch(word, kind === undefined ? candidates : candidates.filter((c) => { const k = parallelismOf(c); return k === undefined || k === kind; }));
}
