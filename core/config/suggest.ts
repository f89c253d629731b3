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
