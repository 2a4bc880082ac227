import type { LibraryAlbum } from '@crateflow/sdk';
import { arrayField, isRecord, numberField, stringField, type JsonRecord } from '@crateflow/sdk';

/**
 * A MusicAlbum item as a LibraryAlbum, or undefined when it has no name. `ProviderIds` (present only when the
 * request asked for `Fields=ProviderIds`) carries `MusicBrainzAlbum` (the release id) and `MusicBrainzReleaseGroup`.
 */
export function toLibraryAlbum(item: JsonRecord): LibraryAlbum | undefined {
  const name = stringField(item, 'Name');
  if (!name) return undefined;
  const firstAlbumArtist = arrayField(item, 'AlbumArtists').find(isRecord);
  const artist =
    stringField(item, 'AlbumArtist') ||
    (firstAlbumArtist ? stringField(firstAlbumArtist, 'Name') : undefined) ||
    arrayField(item, 'Artists').find((a): a is string => typeof a === 'string') ||
    '';
  const ids = isRecord(item['ProviderIds']) ? item['ProviderIds'] : {};
  const mbid = stringField(ids, 'MusicBrainzAlbum');
  const releaseGroup = stringField(ids, 'MusicBrainzReleaseGroup');
  const year = numberField(item, 'ProductionYear');
  return {
    artist,
    album: name,
    ...(mbid ? { mbid } : {}),
    ...(releaseGroup ? { release_group_mbid: releaseGroup } : {}),
    ...(year !== undefined && Number.isInteger(year) && year > 0 ? { year } : {}),
  };
}
