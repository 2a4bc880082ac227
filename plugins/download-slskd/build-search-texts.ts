import type { WantedItem } from '@crateflow/sdk';

/**
 * The search texts for an item, one per query template, in order, without duplicates. A template whose
 * placeholders the item cannot fill (`{album}` for a track without an album, `{year}` without a year) is skipped.
 * Punctuation becomes a space: Soulseek matches whole words, and a leading `-` would exclude a word.
 *
 * @example
 * buildSearchTexts(['{artist} {album}', '{album}'], { artist: 'AC/DC', album: 'Back in Black', … })
 * // → ['AC DC Back in Black', 'Back in Black']
 */
export function buildSearchTexts(templates: readonly string[], item: WantedItem): string[] {
  const values: Record<string, string | undefined> = {
    artist: item.artist,
    album: item.album ?? (item.type === 'track' ? undefined : item.title),
    title: item.title ?? item.album,
    year: item.year === undefined ? undefined : String(item.year),
  };
  const texts: string[] = [];
  for (const template of templates) {
    let unfilled = false;
    const filled = template.replace(/\{(\w+)\}/g, (whole, name: string) => {
      if (!Object.hasOwn(values, name)) return whole;
      const value = values[name];
      if (value === undefined || value.trim() === '') unfilled = true;
      return value ?? '';
    });
    const text = filled.replace(/[^\p{L}\p{N}'\s]+/gu, ' ').replace(/\s+/g, ' ').trim();
    if (!unfilled && text !== '' && !texts.includes(text)) texts.push(text);
  }
  return texts;
}
