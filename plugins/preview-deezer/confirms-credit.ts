import { arrayField, isRecord, normalizeName, stringField, type JsonRecord } from '@crateflow/sdk';
import { creditArtists } from './credit-artists.js';

/**
 * Whether a Deezer album (`/album/{id}`) filed under one artist of a multi-artist credit is that credit's album:
 * Deezer gives an album a single `artist` and lists everyone in `contributors`, which only `/album/{id}` carries
 * (browniebroke/deezer-python #420, zaosoula/deezer-public-api #47). Every other artist of the credit must be a
 * contributor, so "Boards of Canada & Autechre" matches the album Deezer files under Boards of Canada with
 * Autechre contributing, while an album by another "Simon" is not Simon & Garfunkel's. Some albums come without
 * `contributors` (beetbox/beets #4339): then only the credit's lead, which is what Deezer files under, is trusted.
 */
export function confirmsCredit(album: JsonRecord, credit: string): boolean {
  const filedUnder = isRecord(album['artist']) ? stringField(album['artist'], 'name') : undefined;
  if (filedUnder === undefined) return false;
  const filed = normalizeName(filedUnder);
  const members = creditArtists(credit);
  if (!('contributors' in album)) return members[0] === filed;
  const contributors = new Set(
    arrayField(album, 'contributors').flatMap((contributor) => {
      const name = isRecord(contributor) ? stringField(contributor, 'name') : undefined;
      return name === undefined ? [] : [normalizeName(name)];
    }),
  );
  return members.includes(filed) && members.every((member) => member === filed || contributors.has(member));
}
