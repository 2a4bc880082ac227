import { isRecord, numberField, stringField, type PreviewTrack } from '@crateflow/sdk';

/**
 * Deezer track objects (from `/album/{id}/tracks`) as preview tracks. A track without a licensed preview has
 * `preview: ""` (and often `readable: false`) and is left out (shared/reference/deezer-api.md §6); its place still
 * counts, so `position` stays the track's number on the album.
 */
export function toPreviewTracks(tracks: readonly unknown[], albumArtist: string, firstPosition: number): PreviewTrack[] {
  const previews: PreviewTrack[] = [];
  tracks.forEach((track, index) => {
    if (!isRecord(track)) return;
    const preview = stringField(track, 'preview');
    const title = stringField(track, 'title');
    if (!preview || !/^https?:\/\//.test(preview) || track['readable'] === false || !title) return;
    const artist = (isRecord(track['artist']) && stringField(track['artist'], 'name')) || albumArtist;
    const duration = numberField(track, 'duration');
    const link = stringField(track, 'link');
    previews.push({
      title: title.slice(0, 500),
      artist: artist.slice(0, 500),
      position: numberField(track, 'track_position') ?? firstPosition + index,
      ...(duration !== undefined && duration >= 0 ? { duration_s: Math.round(duration) } : {}),
      preview_url: preview,
      source: 'deezer',
      ...(link && /^https?:\/\//.test(link) ? { link } : {}),
    });
  });
  return previews;
}
