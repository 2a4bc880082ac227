import { fakeMbid, type MbArtist, type MbCredit, type MbRecording, type MbRelease, type MbReleaseGroup, type MusicBrainzCatalogue } from './musicbrainz-catalogue.js';

/**
 * The JSON the MusicBrainz fake answers, key for key as shared/reference/musicbrainz-api.md describes it: lookups
 * and browses follow the Perl serializers (§5), searches follow the Solr writer (§6.3, §6.5: empty fields omitted,
 * integer `score`, `count` per group).
 */
type Json = Record<string, unknown>;

/** Nested artist of an artist credit (`Serializer/ArtistCredit.pm`). */
export function artistJson(artist: MbArtist): Json {
  return { id: artist.id, name: artist.name, 'sort-name': artist.sortName, disambiguation: artist.disambiguation, type: artist.type,
    'type-id': typeId(artist.type), ...(artist.country ? { country: artist.country } : {}) };
}

export function creditJson(credit: readonly MbCredit[]): Json[] {
  return credit.map((part) => ({ name: part.name, joinphrase: part.joinphrase, artist: artistJson(part.artist) }));
}

/** A release group in a lookup or browse: every §5 key present, `first-release-date` `""` when unknown. */
export function releaseGroupJson(group: MbReleaseGroup, withCredit: boolean): Json {
  return {
    id: group.id, title: group.title, 'primary-type': group.primaryType, 'primary-type-id': group.primaryType ? typeId(group.primaryType) : null,
    'secondary-types': group.secondaryTypes, 'secondary-type-ids': group.secondaryTypes.map(typeId),
    'first-release-date': group.firstReleaseDate, disambiguation: group.disambiguation,
    ...(withCredit ? { 'artist-credit': creditJson(group.credit) } : {}),
  };
}

export function releaseJson(release: MbRelease, group: MbReleaseGroup, inc: ReadonlySet<string>): Json {
  return {
    id: release.id, title: release.title, status: release.status, 'status-id': release.status ? typeId(release.status) : null,
    quality: 'normal', packaging: null, 'packaging-id': null, barcode: '', disambiguation: '',
    'text-representation': { language: 'eng', script: 'Latn' },
    ...(release.date ? { date: release.date, country: release.country, 'release-events': [{ date: release.date, area: null }] } : {}),
    ...(inc.has('artist-credits') ? { 'artist-credit': creditJson(group.credit) } : {}),
    ...(inc.has('release-groups') ? { 'release-group': releaseGroupJson(group, inc.has('artist-credits')) } : {}),
  };
}

/** §6.4: releases stop at 25 without a count (`$MAX_ITEMS`). */
export function releaseGroupLookupJson(group: MbReleaseGroup, inc: ReadonlySet<string>): Json {
  return {
    ...releaseGroupJson(group, inc.has('artist-credits')),
    ...(inc.has('releases') ? { releases: group.releases.slice(0, 25).map((release) => releaseJson(release, group, new Set([...inc].filter((i) => i !== 'release-groups')))) } : {}),
  };
}

/** §6.1: `artist-credit` always, `first-release-date` omitted when unknown, releases filtered by `status`/`type`. */
export function recordingJson(recording: MbRecording, catalogue: MusicBrainzCatalogue, inc: ReadonlySet<string>, params: URLSearchParams): Json {
  const status = params.get('status')?.split('|');
  const types = params.get('type')?.split('|');
  const releases = recording.releaseIds.flatMap((id) => {
    const release = catalogue.release(id);
    const group = release ? catalogue.releaseGroup(release.releaseGroupId) : undefined;
    if (!release || !group) return [];
    if (status && !status.includes((release.status ?? '').toLowerCase())) return [];
    if (types && !types.includes((group.primaryType ?? '').toLowerCase())) return [];
    return [releaseJson(release, group, inc)];
  });
  return {
    id: recording.id, title: recording.title, disambiguation: '', length: recording.length, video: false,
    ...(recording.firstReleaseDate ? { 'first-release-date': recording.firstReleaseDate } : {}),
    'artist-credit': creditJson(recording.credit),
    ...(inc.has('releases') ? { releases: releases.slice(0, 25) } : {}),
  };
}

/** A release-group search hit (§6.3). */
export function releaseGroupHitJson(group: MbReleaseGroup, score: number): Json {
  return {
    id: group.id, 'type-id': group.primaryType ? typeId(group.primaryType) : undefined, score,
    'primary-type-id': group.primaryType ? typeId(group.primaryType) : undefined, count: group.releases.length, title: group.title,
    'first-release-date': group.firstReleaseDate || undefined, 'primary-type': group.primaryType ?? undefined,
    'secondary-types': group.secondaryTypes.length > 0 ? group.secondaryTypes : undefined,
    'artist-credit': group.credit.map((part, index) => ({
      name: part.name, joinphrase: index === group.credit.length - 1 && !part.joinphrase ? undefined : part.joinphrase,
      artist: { id: part.artist.id, name: part.artist.name, 'sort-name': part.artist.sortName },
    })),
    releases: group.releases.map((release) => ({ id: release.id, 'status-id': release.status ? typeId(release.status) : undefined, title: release.title, status: release.status ?? undefined })),
  };
}

/** An artist search hit (§6.5): `disambiguation`, `country` absent when unknown. */
export function artistHitJson(artist: MbArtist, score: number): Json {
  return { id: artist.id, type: artist.type, 'type-id': typeId(artist.type), score, name: artist.name, 'sort-name': artist.sortName,
    country: artist.country, disambiguation: artist.disambiguation || undefined, 'life-span': { ended: null } };
}

/** Type ids are fixed per name on the real server; here they only need to be stable. */
function typeId(name: string): string {
  return fakeMbid(0, `type ${name}`);
}
