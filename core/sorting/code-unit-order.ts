/**
 * Plain UTF-16 code-unit order, the same in every locale. ISO timestamps and ULIDs sort correctly this way, far
 * faster than `localeCompare`, which also pages ICU's collation data into memory (about 3 MB resident) on first use.
 */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
