import { normalizeName } from '@crateflow/sdk';

// How credits join artists: "A & B", "A and B", "A feat. B", "A with B", "A x B", "A vs. B", "A, B".
const JOINS = /\s+(?:&|and|\+|feat\.?|ft\.?|featuring|with|x|vs\.?)\s+|\s*,\s+/i;

/**
 * The artists of a credit, normalised (normalizeName), lead first; a single name gives itself. The split is
 * greedy ("Simon & Garfunkel" gives two), so a part alone never proves a match: whoever uses a part checks it
 * against what the service says about the other parts.
 *
 * @example
 * creditArtists('Boards of Canada & Autechre') // ['boards of canada', 'autechre']
 */
export function creditArtists(credit: string): string[] {
  const parts = credit.split(JOINS).map((part) => normalizeName(part)).filter((part) => part.length > 0);
  return parts.length > 0 ? parts : [normalizeName(credit)];
}

/** Whether two credits name the same artists, whatever their order and joins. */
export function sameArtists(a: string, b: string): boolean {
  if (normalizeName(a) === normalizeName(b)) return true;
  const left = new Set(creditArtists(a));
  const right = new Set(creditArtists(b));
  return left.size === right.size && [...left].every((artist) => right.has(artist));
}
