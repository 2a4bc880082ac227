import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseTracklistRelease, readTracklist } from '../../../core/metadata/read-musicbrainz-tracklist.js';

// Releases as a browse with inc=media lists them: a track count per medium, no tracks.
const release = (id: string, status: string | null, date: string | undefined, ...trackCounts: number[]) => ({
  id, title: 'Geogaddi', status, ...(date === undefined ? {} : { date }), media: trackCounts.map((count, i) => ({ position: i + 1, format: 'CD', 'track-count': count })),
});

describe('chooseTracklistRelease', () => {
  it('takes the track count most releases share over an earlier deluxe edition, then the earliest with it', () => {
    const releases = [release('deluxe', 'Official', '2002-02-18', 23, 5), release('late', 'Official', '2013-06-10', 23), release('first', 'Official', '2002-02-20', 23), release('promo', 'Promotion', '2002-01-01', 23)];
    assert.equal(chooseTracklistRelease(releases), 'first');
  });

  it('prefers official releases and counts every medium', () => {
    const releases = [release('promo-a', 'Promotion', '2001', 10), release('promo-b', 'Promotion', '2001', 10), release('double', 'Official', '2003', 6, 6)];
    assert.equal(chooseTracklistRelease(releases), 'double');
  });

  it('falls back to every release when none is official, undated ones last, and breaks a tie by the earlier first release', () => {
    assert.equal(chooseTracklistRelease([release('undated', null, undefined, 9), release('dated', null, '1999', 9)]), 'dated');
    assert.equal(chooseTracklistRelease([release('b', 'Official', '2001', 12), release('a', 'Official', '2000', 11)]), 'a');
  });

  it('answers undefined for a group without releases', () => {
    assert.equal(chooseTracklistRelease([]), undefined);
  });
});

describe('readTracklist', () => {
  it('numbers tracks across media in medium and track order, with the printed title and the length when known', () => {
    const tracks = readTracklist({
      id: 'r1',
      media: [
        { position: 2, tracks: [{ position: 1, title: 'Disc two opener', length: 61_400, recording: { id: 'rec3', title: 'Opener', length: 61_000 } }] },
        { position: 1, tracks: [
          { position: 2, title: '', length: null, recording: { id: 'rec2', title: 'From the recording', length: 200_000 } },
          { position: 1, title: 'Music Is Math', length: null, recording: { id: 'rec1', title: 'Music Is Math', length: null } },
        ] },
      ],
    });
    assert.deepEqual(tracks, {
      releaseMbid: 'r1',
      tracks: [
        { position: 1, title: 'Music Is Math', lengthMs: undefined, recordingMbid: 'rec1' },
        { position: 2, title: 'From the recording', lengthMs: 200_000, recordingMbid: 'rec2' },
        { position: 3, title: 'Disc two opener', lengthMs: 61_400, recordingMbid: 'rec3' },
      ],
    });
  });
});
