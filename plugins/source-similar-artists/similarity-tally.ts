import { normalizeName } from '@crateflow/sdk';

/** An artist similar to one seed, `similarity` 0–1 (1: the seed's most similar artist). */
export interface SimilarArtist {
  readonly mbid: string | null;
  readonly name: string | null;
  readonly similarity: number;
}

export interface Seed {
  readonly name: string;
  readonly mbid: string | null;
}

/** One similar artist over all seeds: the sum of its similarities and the seeds that gave them. */
export interface TallyEntry {
  mbid: string | null;
  name: string | null;
  total: number;
  seeds: { seed: Seed; similarity: number }[];
}

/**
 * Sums similarity scores across seeds, so an artist similar to many owned artists ranks above one very similar to a
 * single seed. Artists are keyed by MBID; a name-only row (Last.fm's `mbid: ""`) joins the MBID entry of the same
 * normalised name when there is one.
 */
export class SimilarityTally {
  private readonly entries = new Map<string, TallyEntry>();

  add(seed: Seed, similar: readonly SimilarArtist[]): void {
    for (const artist of similar) {
      const key = artist.mbid ?? `name:${normalizeName(artist.name ?? '')}`;
      const entry = this.entries.get(key) ?? { mbid: artist.mbid, name: artist.name, total: 0, seeds: [] };
      entry.name ??= artist.name;
      entry.total += artist.similarity;
      entry.seeds.push({ seed, similarity: artist.similarity });
      this.entries.set(key, entry);
    }
  }

  /** Every artist, highest total first (ties by name, for a stable order across runs). */
  ranked(): TallyEntry[] {
    const byName = new Map<string, TallyEntry>();
    for (const entry of this.entries.values()) if (entry.mbid && entry.name) byName.set(normalizeName(entry.name), entry);
    const merged: TallyEntry[] = [];
    for (const entry of this.entries.values()) {
      const twin = !entry.mbid && entry.name ? byName.get(normalizeName(entry.name)) : undefined;
      if (twin) {
        twin.total += entry.total;
        twin.seeds.push(...entry.seeds);
      } else {
        merged.push(entry);
      }
    }
    return merged.sort((a, b) => b.total - a.total || (a.name ?? '').localeCompare(b.name ?? ''));
  }
}

/** "similar to Boards of Canada, Autechre (+3)": the two seeds that count most, then how many more. */
export function similarityText(entry: TallyEntry): string {
  const names = orderedSeeds(entry).map((seed) => seed.name);
  const shown = names.slice(0, 2).join(', ');
  return names.length > 2 ? `similar to ${shown} (+${names.length - 2})` : `similar to ${shown}`;
}

/** The entry's seeds, each once, strongest first. */
export function orderedSeeds(entry: TallyEntry): Seed[] {
  const strongest = new Map<string, { seed: Seed; similarity: number }>();
  for (const item of entry.seeds) {
    const key = item.seed.mbid ?? normalizeName(item.seed.name);
    const known = strongest.get(key);
    if (!known || item.similarity > known.similarity) strongest.set(key, item);
  }
  return [...strongest.values()].sort((a, b) => b.similarity - a.similarity || a.seed.name.localeCompare(b.seed.name)).map((item) => item.seed);
}
