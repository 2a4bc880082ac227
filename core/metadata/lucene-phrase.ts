/**
 * A value as a quoted Lucene phrase for a MusicBrainz search. Inside quotes only `"` and `\` need escaping; an
 * unescaped quote in an artist or album name ends the phrase early and searches for something else
 * (shared/reference/musicbrainz-api.md §6.3, §7).
 */
export function lucenePhrase(value: string): string {
  return `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}
