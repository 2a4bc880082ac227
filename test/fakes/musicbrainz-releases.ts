import type { MbRecording, MbRelease, MusicBrainzCatalogue } from './musicbrainz-catalogue.js';
import { releaseJson } from './musicbrainz-json.js';
import type { Answer } from './musicbrainz-queries.js';

/**
 * Releases for the MusicBrainz fake: the browse of a release group's releases (`/ws/2/release?release-group=…`) and
 * the release lookup (`/ws/2/release/{mbid}`), with media and tracks. shared/reference/musicbrainz-api.md names the
 * release browse as the way past the 25 releases a lookup lists (§4) and gives the nested release's keys (§5); it
 * does not describe `media` or tracks, so their shape here (`position`, `format`, `track-count`, `track-offset`,
 * `tracks[{id, position, number, title, length, recording}]`) follows MusicBrainz's release serializer as
 * documented on musicbrainz.org/doc/MusicBrainz_API — not verified against a recorded answer.
 *
 * A release's tracks are the catalogue's recordings that list it, in catalogue order, so every release of a group
 * has the group's two tracks and the first compilation release one more (see musicbrainz-catalogue.ts).
 */
const HELP = 'For usage, please see: https://musicbrainz.org/development/mmd';
const MBID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const fail = (status: number, error: string): Answer => ({ status, body: { error, help: HELP } });

/** §4: browse limit default 25, clamped to 100; `release-count` and `release-offset`; page items sorted by MBID. */
export function answerReleaseBrowse(catalogue: MusicBrainzCatalogue, params: URLSearchParams, inc: ReadonlySet<string>): Answer {
  const groupId = params.get('release-group') ?? '';
  if (!MBID.test(groupId)) return fail(400, 'Invalid mbid.');
  const group = catalogue.releaseGroup(groupId.toLowerCase());
  if (!group) return fail(404, 'Not Found');
  const limitText = params.get('limit') ?? '25';
  const offsetText = params.get('offset') ?? '0';
  if (!/^\d+$/.test(limitText) || !/^\d+$/.test(offsetText)) return fail(400, "The 'limit' and 'offset' parameters must be positive integers");
  const limit = Number(limitText) === 0 ? 25 : Math.min(100, Number(limitText));
  const offset = Number(offsetText);
  const page = group.releases.slice(offset, offset + limit).sort((a, b) => a.id.localeCompare(b.id));
  return {
    status: 200,
    body: { 'release-count': group.releases.length, 'release-offset': offset, releases: page.map((release) => withMedia(release, catalogue, inc, false)) },
  };
}

/** A release lookup: `media` always (as the real lookup sends it), with tracks under `inc=recordings`. */
export function answerReleaseLookup(catalogue: MusicBrainzCatalogue, id: string, inc: ReadonlySet<string>): Answer {
  const release = catalogue.release(id.toLowerCase());
  return release ? { status: 200, body: withMedia(release, catalogue, inc, true) } : fail(404, 'Not Found');
}

function withMedia(release: MbRelease, catalogue: MusicBrainzCatalogue, inc: ReadonlySet<string>, lookup: boolean): Record<string, unknown> {
  const group = catalogue.releaseGroup(release.releaseGroupId);
  const base = group ? releaseJson(release, group, inc) : { id: release.id, title: release.title };
  if (!lookup && !inc.has('media') && !inc.has('recordings')) return base;
  const tracks = catalogue.recordings.filter((recording) => recording.releaseIds.includes(release.id));
  const medium: Record<string, unknown> = { position: 1, title: '', format: 'CD', 'track-count': tracks.length, 'track-offset': 0 };
  if (inc.has('recordings')) medium['tracks'] = tracks.map((recording, index) => trackJson(recording, release, index));
  return { ...base, media: [medium] };
}

function trackJson(recording: MbRecording, release: MbRelease, index: number): Record<string, unknown> {
  return {
    id: `${release.id.slice(0, 24)}${String(index).padStart(12, '0')}`, position: index + 1, number: String(index + 1), title: recording.title,
    length: recording.length,
    recording: { id: recording.id, title: recording.title, length: recording.length, disambiguation: '', video: false },
  };
}
