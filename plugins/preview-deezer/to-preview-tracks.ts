import { isRecord, numberField, stringField, type JsonRecord, type PreviewTrack } from '@crateflow/sdk';

interface Placed {
  readonly track: JsonRecord;
  readonly disc: number;
  readonly place: number;
}

/**
 * An album's Deezer track objects (every page of `/album/{id}/tracks`) as preview tracks, in album order. Deezer's
 * `track_position` starts again at 1 on every disc and `disk_number` says which disc (a two-disc album numbers
 * 1…9, 1…8), so tracks go by disc, then place on the disc, and `position` counts on across discs (1…17) while
 * `disc` tells the disc on albums of more than one. A track without a licensed preview has `preview: ""` (and
 * often `readable: false`) and is left out (shared/reference/deezer-api.md §6); its place still counts, so
 * `position` stays the track's number on the album.
 */
export function toPreviewTracks(tracks: readonly unknown[], albumArtist: string): PreviewTrack[] {
  const placed: Placed[] = tracks.filter(isRecord).map((track, index) => ({
    track,
    disc: wholeNumber(numberField(track, 'disk_number')) ?? 1,
    // Without a position of its own a track keeps the place Deezer listed it in.
    place: wholeNumber(numberField(track, 'track_position')) ?? index + 1,
  }));
  placed.sort((a, b) => a.disc - b.disc || a.place - b.place);
  const severalDiscs = placed.some((entry) => entry.disc !== placed[0]?.disc);
  const previews: PreviewTrack[] = [];
  placed.forEach(({ track, disc }, index) => {
    const preview = stringField(track, 'preview');
    const title = stringField(track, 'title');
    if (!preview || !/^https?:\/\//.test(preview) || track['readable'] === false || !title) return;
    const artist = (isRecord(track['artist']) && stringField(track['artist'], 'name')) || albumArtist;
    const duration = numberField(track, 'duration');
    const link = stringField(track, 'link');
    previews.push({
      title: title.slice(0, 500),
      artist: artist.slice(0, 500),
      position: index + 1,
      ...(severalDiscs ? { disc } : {}),
      ...(duration !== undefined && duration >= 0 ? { duration_s: Math.round(duration) } : {}),
      preview_url: preview,
      source: 'deezer',
      ...(link && /^https?:\/\//.test(link) ? { link } : {}),
    });
  });
  return previews;
}

function wholeNumber(value: number | undefined): number | undefined {
  return value !== undefined && Number.isInteger(value) && value >= 1 && value <= 9999 ? value : undefined;
}
