import { loadavg } from 'node:os';

export type Cell = string | number;

/**
 * Prints one bench's figures as an aligned plain-text table, with the machine's load average, because figures
 * taken while other work runs on the same cores are not comparable with quiet ones.
 */
export function printTable(title: string, header: readonly string[], rows: readonly (readonly Cell[])[], notes: readonly string[] = []): void {
  const text = (cell: Cell) => (typeof cell === 'number' ? cell.toLocaleString('en-US') : cell);
  const all = [header, ...rows].map((row) => row.map(text));
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ');
  const [head, ...body] = all;
  const load = loadavg().map((n) => n.toFixed(2)).join(' ');
  process.stdout.write(`\n== ${title} ==  (load average ${load})\n`);
  process.stdout.write(`${line(head ?? [])}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  for (const row of body) process.stdout.write(`${line(row)}\n`);
  for (const note of notes) process.stdout.write(`  ${note}\n`);
}

/** `part / whole` as a percentage with one decimal. */
export function percent(part: number, whole: number): string {
  return whole > 0 ? `${((100 * part) / whole).toFixed(1)}%` : 'n/a';
}

/** The median of some numbers. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const upper = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  const lower = sorted[Math.ceil(sorted.length / 2) - 1] ?? Number.NaN;
  return (lower + upper) / 2;
}
