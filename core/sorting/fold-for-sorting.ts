/**
 * A name as an A–Z sort key that code-unit order (SQLite's) sorts like a collator at base strength: case and
 * accents do not count ("Ørsted" beside "Orsted", "beck" beside "Beck"). SQLite has no locale collation through
 * better-sqlite3, so the key is computed here and stored beside the record.
 */
export function foldForSorting(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[ØøĐđŁłÆæŒœß]/g, (letter) => FOLDED[letter] ?? letter)
    .toLowerCase();
}

/** Letters NFKD does not take apart. */
const FOLDED: Record<string, string> = { Ø: 'o', ø: 'o', Đ: 'd', đ: 'd', Ł: 'l', ł: 'l', Æ: 'ae', æ: 'ae', Œ: 'oe', œ: 'oe', ß: 'ss' };
