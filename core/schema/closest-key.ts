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

/** Edit distance counting insert, delete, replace and a swap of two neighbours ("hots" → "host") as one edit each. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const above = rows[i - 1] ?? [];
      let best = Math.min((above[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (above[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      row[j] = best;
    }
    rows.push(row);
  }
  return rows[a.length]?.[b.length] ?? 0;
}
