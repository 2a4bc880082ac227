import { arrayField, isRecord, numberField, stringField, type JsonRecord, type Tracklist, type TracklistTrack } from '@crateflow/sdk';

/**
 * Which release stands for a release group's track list: among its official releases (all of them when none is
 * official), those with the track count most releases share, and of those the earliest. A group's releases are
 * mostly the same album pressed again; the count they share is the album as released, where a deluxe edition adds
 * bonus tracks and a promo often cuts some. Ties go to the count whose first release came first.
 */
export function chooseTracklistRelease(releases: readonly JsonRecord[]): string | undefined {
  const official = releases.filter((release) => stringField(release, 'status') === 'Official');
  const pool = (official.length > 0 ? official : releases)
    .map((release) => ({ id: stringField(release, 'id'), date: stringField(release, 'date') || '~', tracks: trackCountOf(release) }))
    .filter((release): release is { id: string; date: string; tracks: number } => release.id !== undefined)
    // Plain code-unit order: ISO dates sort correctly, `~` (no date) after every digit, then the id for a stable pick.
    .sort((a, b) => compare(a.date, b.date) || compare(a.id, b.id));
  const frequency = new Map<number, number>();
  for (const release of pool) frequency.set(release.tracks, (frequency.get(release.tracks) ?? 0) + 1);
  let best: { id: string; count: number } | undefined;
  for (const release of pool) {
    const count = frequency.get(release.tracks) ?? 0;
    // The pool is in date order, so the first release seen with the highest frequency is the earliest one.
    if (!best || count > best.count) best = { id: release.id, count };
  }
  return best?.id;
}

/** The tracks of a release looked up with `inc=recordings`, numbered across its media. */
export function readTracklist(release: JsonRecord): Tracklist | undefined {
  const releaseMbid = stringField(release, 'id');
  if (!releaseMbid) return undefined;
  const tracks: TracklistTrack[] = [];
  const media = arrayField(release, 'media').filter(isRecord).sort((a, b) => (numberField(a, 'position') ?? 0) - (numberField(b, 'position') ?? 0));
  for (const medium of media) {
    const onMedium = arrayField(medium, 'tracks').filter(isRecord).sort((a, b) => (numberField(a, 'position') ?? 0) - (numberField(b, 'position') ?? 0));
    for (const track of onMedium) {
      const recording = isRecord(track['recording']) ? track['recording'] : undefined;
      // The title as printed on this release; the recording's when the track has none.
      const title = stringField(track, 'title') || (recording && stringField(recording, 'title'));
      if (!title) continue;
      const length = numberField(track, 'length') ?? (recording ? numberField(recording, 'length') : undefined);
      tracks.push({ position: tracks.length + 1, title, lengthMs: length, recordingMbid: recording && stringField(recording, 'id') });
    }
  }
  return { releaseMbid, tracks };
}

/** The tracks on every medium (`track-count` comes with `inc=media`). */
function trackCountOf(release: JsonRecord): number {
  return arrayField(release, 'media').filter(isRecord).reduce((sum, medium) => sum + (numberField(medium, 'track-count') ?? 0), 0);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
