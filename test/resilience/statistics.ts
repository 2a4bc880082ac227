/** The p-th percentile (0..100) of `values` by nearest rank; NaN for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** Least-squares slope of y over x (units of y per unit of x); 0 for fewer than two points. */
export function slope(points: readonly { x: number; y: number }[]): number {
  if (points.length < 2) return 0;
  const n = points.length;
  const meanX = points.reduce((s, p) => s + p.x, 0) / n;
  const meanY = points.reduce((s, p) => s + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - meanX) * (p.y - meanY);
    den += (p.x - meanX) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** Prints a titled block of `label: value` lines (the short report each resilience test leaves in the log). */
export function printReport(title: string, rows: readonly (readonly [string, string | number])[]): void {
  const width = Math.max(...rows.map(([label]) => label.length));
  const lines = rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`);
  console.log(`\n=== ${title} ===\n${lines.join('\n')}\n`);
}

/** Milliseconds as a short human figure: 850 ms, 12.4 s, 3 min 05 s. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (value < 1000) return `${Math.round(value)} ms`;
  if (value < 60_000) return `${(value / 1000).toFixed(1)} s`;
  const minutes = Math.floor(value / 60_000);
  return `${minutes} min ${String(Math.round((value % 60_000) / 1000)).padStart(2, '0')} s`;
}
