/**
 * Where the `n`-th tab of a line is (-1 when it has fewer): the append-only files keep their key fields before
 * the record, tab-separated, so an index reads keys without parsing the JSON after them.
 */
export function nthTab(line: string | Buffer, n: number): number {
  let at = -1;
  for (let i = 0; i < n; i++) {
    at = typeof line === 'string' ? line.indexOf('\t', at + 1) : line.indexOf(9, at + 1);
    if (at === -1) return -1;
  }
  return at;
}
