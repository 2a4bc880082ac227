import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rankCandidates } from '../../../plugins/download-slskd/rank-candidates.js';
import type { SlskdSearchResponse } from '../../../plugins/download-slskd/slskd-api.js';
import type { QualityPrefs } from '../../../plugins/download-slskd/slskd-config.schema.js';
import { albumFiles, WANTED } from './slskd-fixtures.js';

const PREFS: QualityPrefs = { preferred_formats: ['flac', 'mp3'], lossless_first: true, min_bitrate: 192, excluded_terms: ['karaoke'], track_count_tolerance: 2 };

function peer(username: string, files: ReturnType<typeof albumFiles>, extra: Partial<SlskdSearchResponse> = {}): SlskdSearchResponse {
  return {
    username,
    hasFreeUploadSlot: true,
    queueLength: 0,
    uploadSpeed: 1_048_576,
    files: files.map((f) => ({ filename: f.filename, size: f.size, extension: f.filename.slice(f.filename.lastIndexOf('.') + 1), bitRate: f.bitRate })),
    ...extra,
  };
}

const rank = (responses: SlskdSearchResponse[], prefs: QualityPrefs = PREFS, skip: string[] = []) =>
  rankCandidates(responses, WANTED, prefs, new Set(skip), 10).map((c) => `${c.username}:${c.format}:${c.files.length}`);

describe('rankCandidates', () => {
  it('puts a lossless folder first when lossless_first is set, whatever the order of preferred_formats', () => {
    const responses = [peer('a', albumFiles('@@a\\Low', 'Double Negative', 'mp3')), peer('b', albumFiles('@@b\\Low', 'Double Negative', 'flac'))];
    assert.deepEqual(rank(responses, { ...PREFS, preferred_formats: ['mp3', 'flac'] }), ['b:flac:11', 'a:mp3:11']);
    assert.deepEqual(rank(responses, { ...PREFS, preferred_formats: ['mp3', 'flac'], lossless_first: false }), ['a:mp3:11', 'b:flac:11']);
  });

  it('ranks a complete folder above a preferred-format folder that misses more tracks than the tolerance', () => {
    const responses = [
      peer('full-mp3', albumFiles('@@a\\Low', 'Double Negative', 'mp3')),
      peer('half-flac', albumFiles('@@b\\Low', 'Double Negative', 'flac', 5)),
      peer('full-flac', albumFiles('@@c\\Low', 'Double Negative', 'flac')),
    ];
    assert.deepEqual(rank(responses), ['full-flac:flac:11', 'full-mp3:mp3:11', 'half-flac:flac:5']);
  });

  it('prefers a free upload slot, a short queue and a fast peer between equal folders', () => {
    const files = albumFiles('@@x\\Low', 'Double Negative', 'flac');
    const responses = [
      peer('busy', files, { hasFreeUploadSlot: false, queueLength: 40 }),
      peer('slow', files, { uploadSpeed: 10_000 }),
      peer('fast', files, { uploadSpeed: 8_000_000 }),
    ];
    assert.deepEqual(rank(responses), ['fast:flac:11', 'slow:flac:11', 'busy:flac:11']);
  });

  it('ignores folders below min_bitrate, with excluded terms, in other formats, or not naming the album', () => {
    const responses = [
      peer('low-rate', albumFiles('@@a\\Low', 'Double Negative', 'mp3', 11, { bitRate: 128 })),
      peer('karaoke', albumFiles('@@b\\Low', 'Double Negative (Karaoke Version)', 'flac')),
      peer('ogg', albumFiles('@@c\\Low', 'Double Negative', 'ogg')),
      peer('other', albumFiles('@@d\\Low', 'Things We Lost in the Fire', 'flac')),
      peer('good', albumFiles('@@e\\Low', 'Double Negative', 'flac')),
    ];
    assert.deepEqual(rank(responses), ['good:flac:11']);
  });

  it('groups files by remote directory, picks the main format of a mixed folder, and skips failed users', () => {
    const mixed = [...albumFiles('@@a\\Low', 'Double Negative', 'flac'), { filename: '@@a\\Low\\Double Negative\\cover.jpg', size: 1000 }];
    const twoFolders = [...albumFiles('@@b\\Low', 'Double Negative', 'flac', 6), ...albumFiles('@@b\\Low', 'Double Negative (2018)', 'flac', 11)];
    const ranked = rankCandidates([peer('a', mixed), peer('b', twoFolders)], WANTED, PREFS, new Set(), 10);
    assert.deepEqual(ranked.map((c) => c.directory), ['@@a\\Low\\Double Negative', '@@b\\Low\\Double Negative (2018)', '@@b\\Low\\Double Negative']);
    assert.ok(ranked[0]?.files.every((f) => f.filename.endsWith('.flac')));
    assert.deepEqual(rank([peer('a', mixed), peer('b', twoFolders)], PREFS, ['a']), ['b:flac:11', 'b:flac:6']);
  });

  it('never offers one disc of a multi-disc release as the album, however its folders are named', () => {
    const nested = [...albumFiles('@@a\\Low\\Double Negative', 'CD1', 'flac', 6), ...albumFiles('@@a\\Low\\Double Negative', 'Disc 2 - Bonus', 'flac', 5)];
    const siblings = [...albumFiles('@@b\\Low', 'Double Negative CD1', 'flac', 6), ...albumFiles('@@b\\Low', 'Double Negative (Disk 02)', 'flac', 5)];
    const whole = albumFiles('@@c\\Low', 'Double Negative', 'mp3');
    assert.deepEqual(rank([peer('nested', nested), peer('siblings', siblings), peer('whole', whole)]), ['whole:mp3:11'], 'a whole folder, even in a worse format');
    assert.deepEqual(rank([peer('nested', nested), peer('siblings', siblings)]), [], 'nothing rather than half an album');
    const wantedDisc = { ...WANTED, album: 'Double Negative CD2' };
    const ranked = rankCandidates([peer('b', albumFiles('@@b\\Low', 'Double Negative CD2', 'flac'))], wantedDisc, PREFS, new Set(), 10);
    assert.deepEqual(ranked.map((c) => c.directory), ['@@b\\Low\\Double Negative CD2'], 'unless the wanted album is itself called so');
  });

  it('keeps an excluded term when the wanted album itself contains it', () => {
    const item = { ...WANTED, album: 'Tribute to Nothing' };
    const prefs = { ...PREFS, excluded_terms: ['tribute'] };
    const ranked = rankCandidates([peer('a', albumFiles('@@a\\Low', 'Tribute to Nothing', 'flac'))], item, prefs, new Set(), 10);
    assert.equal(ranked.length, 1);
  });

  it('picks the one matching file for a track', () => {
    const track = { id: 't1', artist: 'Low', title: 'Fly', type: 'track' as const };
    const ranked = rankCandidates([peer('a', albumFiles('@@a\\Low', 'Double Negative', 'flac'))], track, PREFS, new Set(), 10);
    assert.deepEqual(ranked[0]?.files.map((f) => f.filename), ['@@a\\Low\\Double Negative\\03 - Fly.flac']);
  });

  it('never offers another artist\'s album of the same title, even in FLAC when the wanted artist\'s copy is a low-bitrate rip', () => {
    const item = { id: 'w_gh', artist: 'Low', album: 'Greatest Hits', type: 'album' as const };
    const responses = [
      peer('queen fan', albumFiles('@@q\\Music\\Queen', 'Greatest Hits (1981)', 'flac')),
      peer('abba fan', albumFiles('@@a\\Music\\ABBA', 'Greatest Hits', 'flac')),
      peer('rip', albumFiles('@@r\\Music\\Low', 'Greatest Hits', 'mp3', 11, { bitRate: 96 })),
    ];
    assert.deepEqual(rankCandidates(responses, item, PREFS, new Set(), 10), [], 'nothing usable rather than the wrong album');
    const decent = peer('decent', albumFiles('@@d\\Music\\Low', 'Greatest Hits', 'mp3'));
    assert.deepEqual(rankCandidates([...responses, decent], item, PREFS, new Set(), 10).map((c) => c.username), ['decent']);
  });

  it('accepts a folder that names the artist only in its track names ("01 - Low - Quorum.flac")', () => {
    const files = albumFiles('@@x\\Various', 'Double Negative', 'flac').map((f) => ({ ...f, filename: f.filename.replace(/\\(\d\d) - /, '\\$1 - Low - ') }));
    assert.deepEqual(rank([peer('tagged', files)]), ['tagged:flac:11']);
  });

  it('matches titles with æ ø œ ß ł đ þ or dotted initials to the folders that name them, with one normalisation', () => {
    const cases = [
      { artist: 'Sigur Rós', album: 'Ágætis byrjun', folders: ['Sigur Rós - Ágætis byrjun (1999)', 'Sigur Ros - Agaetis Byrjun [FLAC]'] },
      { artist: 'The Doors', album: 'L.A. Woman', folders: ['The Doors - L.A. Woman (1971)', 'Doors - LA Woman'] },
      { artist: 'Kendrick Lamar', album: 'good kid, m.A.A.d city', folders: ['Kendrick Lamar - good kid, m.A.A.d city (2012)', 'Kendrick Lamar - Good Kid Maad City'] },
      { artist: 'Røyksopp', album: 'Melody A.M.', folders: ['Røyksopp - Melody A.M. (2001)', 'Royksopp - Melody AM'] },
    ];
    for (const { artist, album, folders } of cases) {
      const item = { id: 'w', artist, album, type: 'album' as const };
      const responses = folders.map((folder, i) => peer(`p${i}`, albumFiles(`@@p${i}\\Music`, folder, 'flac')));
      const ranked = rankCandidates(responses, item, PREFS, new Set(), 10).map((c) => c.username).sort();
      assert.deepEqual(ranked, ['p0', 'p1'], `${artist} - ${album}`);
    }
  });

  it('splits remote paths on / as well as \\ (non-Windows peers)', () => {
    const slashed = albumFiles('@@s\\x', 'y', 'flac').map((f) => ({ ...f, filename: f.filename.replace('@@s\\x\\y\\', 'music/Low/Double Negative (2018)/FLAC/') }));
    const ranked = rankCandidates([peer('unix', slashed)], WANTED, PREFS, new Set(), 10);
    assert.equal(ranked[0]?.directory, 'music/Low/Double Negative (2018)/FLAC');
    assert.equal(ranked[0]?.files.length, 11);
  });

  it('combines the discs of one release into one candidate when batch destinations allow it, never a lone disc or discs of two releases', () => {
    const nested = [...albumFiles('@@a\\Low\\Double Negative', 'CD1', 'flac', 6), ...albumFiles('@@a\\Low\\Double Negative', 'CD2', 'flac', 5)];
    const lone = albumFiles('@@b\\Low\\Double Negative', 'Disc 1', 'flac', 6);
    const mixed = [...albumFiles('@@c\\Low', 'Double Negative CD1', 'flac', 6), ...albumFiles('@@c\\Low', 'Ones and Sixes CD2', 'flac', 5)];
    const ranked = rankCandidates([peer('nested', nested), peer('lone', lone), peer('mixed', mixed)], WANTED, PREFS, new Set(), 10, true);
    assert.deepEqual(ranked.map((c) => [c.username, c.directory, c.files.length, c.multi_disc]), [['nested', '@@a\\Low\\Double Negative', 11, true]]);
  });
});
