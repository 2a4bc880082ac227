import { arrayField, isRecord, numberField, stringField, type JsonRecord } from '@crateflow/sdk';
import type { Artist, ArtistHit, CreditedArtist, RecordingReleaseGroups, ReleaseGroup, ReleaseGroupHit } from '@crateflow/sdk';

/**
 * MusicBrainz JSON into Crateflow's shapes, field by field (shared/reference/musicbrainz-api.md §5, §6). Lookups and
 * search hits differ: search leaves empty fields out, lookups send `""`, `[]` and `null`; both read the same here.
 */
export function readReleaseGroup(record: JsonRecord): ReleaseGroup | undefined {
  const mbid = stringField(record, 'id');
  const title = stringField(record, 'title');
  if (!mbid || title === undefined) return undefined;
  const credit = arrayField(record, 'artist-credit').filter(isRecord);
  return {
    mbid,
    title,
    primaryType: stringField(record, 'primary-type') ?? null,
    secondaryTypes: arrayField(record, 'secondary-types').filter((type): type is string => typeof type === 'string'),
    // `""` on lookups and browses, absent in search hits: both mean unknown (§7).
    firstReleaseDate: stringField(record, 'first-release-date') || undefined,
    artistCredit: 'artist-credit' in record ? creditText(credit) : undefined,
    artists: credit.flatMap(creditedArtist),
  };
}

export function readReleaseGroupHit(record: JsonRecord): ReleaseGroupHit | undefined {
  const group = readReleaseGroup(record);
  return group && { ...group, score: score(record), releaseCount: numberField(record, 'count') ?? arrayField(record, 'releases').length };
}

export function readArtist(record: JsonRecord): Artist | undefined {
  const mbid = stringField(record, 'id');
  const name = stringField(record, 'name');
  if (!mbid || name === undefined) return undefined;
  return {
    mbid,
    name,
    sortName: stringField(record, 'sort-name') ?? name,
    disambiguation: stringField(record, 'disambiguation') || undefined,
    type: stringField(record, 'type'),
    country: stringField(record, 'country'),
  };
}

export function readArtistHit(record: JsonRecord): ArtistHit | undefined {
  const artist = readArtist(record);
  return artist && { ...artist, score: score(record) };
}

/** Each release group a recording's releases belong to, once, in the order MusicBrainz listed the releases. */
export function readRecordingReleaseGroups(record: JsonRecord): RecordingReleaseGroups | undefined {
  const mbid = stringField(record, 'id');
  const title = stringField(record, 'title');
  if (!mbid || title === undefined) return undefined;
  const groups = new Map<string, ReleaseGroup>();
  for (const release of arrayField(record, 'releases').filter(isRecord)) {
    const nested = release['release-group'];
    const group = isRecord(nested) ? readReleaseGroup(nested) : undefined;
    if (group && !groups.has(group.mbid)) groups.set(group.mbid, group);
  }
  return { mbid, title, artistCredit: creditText(arrayField(record, 'artist-credit').filter(isRecord)), releaseGroups: [...groups.values()] };
}

/** The credit as printed: each name followed by its join phrase (`Serializer/ArtistCredit.pm`). */
function creditText(credit: readonly JsonRecord[]): string {
  return credit.map((part) => (stringField(part, 'name') ?? '') + (stringField(part, 'joinphrase') ?? '')).join('');
}

function creditedArtist(part: JsonRecord): CreditedArtist[] {
  const artist = part['artist'];
  if (!isRecord(artist)) return [];
  const mbid = stringField(artist, 'id');
  const name = stringField(artist, 'name');
  return mbid && name !== undefined ? [{ mbid, name }] : [];
}

/** An integer now; older servers sent a string such as `"100"` (§6.3). */
function score(record: JsonRecord): number {
  const value = record['score'];
  const parsed = typeof value === 'string' ? Number(value) : value;
  return typeof parsed === 'number' && Number.isFinite(parsed) ? parsed : 0;
}
