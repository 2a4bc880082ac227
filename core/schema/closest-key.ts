/**
 * The allowed key an unknown one was most likely meant to be ("retries" → "retry"), or undefined when none is
 * close: at most two edits away (three when the first four letters agree, as in a plural), and fewer edits
 * than half of the longer key's letters.
 */
export function closestKey(unknown: string, allowed: readonly string[]): string | undefined {
  let best: { key: string; distance: number } | undefined;
  for (const key of allowed) {
    const distance = editDistance(unknown.toLowerCase(), key.toLowerCase());
    const limit = unknown.slice(0, 4).toLowerCase() === key.slice(0, 4).toLowerCase() ? 3 : 2;
    if (distance <= limit && distance < Math.max(unknown.length, key.length) / 2 && (!best || distance < best.distance)) best = { key, distance };
  }
  return best?.key;
}

/** Levenshtein distance (insert, delete, replace), one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
