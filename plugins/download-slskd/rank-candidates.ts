import { normalizeName, type WantedItem } from '@crateflow/sdk';
import type { Candidate } from './download-record.js';
import type { SlskdFile, SlskdSearchResponse } from './slskd-api.js';
import type { QualityPrefs } from './slskd-config.schema.js';

const LOSSLESS = new Set(['flac', 'alac', 'ape', 'wav', 'wv', 'aiff', 'aif', 'dsf']);
// "CD1", "Disc 2", "Disk 01 - Bonus", "Album (CD 2)", as words() spells them.
const DISC_FOLDER = /(?:^| )(?:cd|disc|disk) ?\d{1,2}(?: |$)/;

/**
 * Turns a search's responses into the folders worth downloading, best first. A candidate is one user's remote
 * directory holding the album in an accepted format; it is scored on, in order of weight: being complete
 * (file count against the count most results agree on), format preference, naming the wanted artist, a free
 * upload slot and a short queue, upload speed, and lossy bitrate.
 */
export function rankCandidates(
  responses: readonly SlskdSearchResponse[],
  item: WantedItem,
  prefs: QualityPrefs,
  skipUsers: ReadonlySet<string>,
  limit: number,
): Candidate[] {
  const formats = formatOrder(prefs);
  const wanted = item.type === 'track' ? (item.title ?? item.album ?? '') : (item.album ?? item.title ?? '');
  const wantedWords = words(normalizeName(wanted));
  const artistWords = words(normalizeName(item.artist));
  const itemText = ` ${words(`${item.artist} ${item.album ?? ''} ${item.title ?? ''}`)} `;
  const excluded = prefs.excluded_terms.map(words).filter((term) => term !== '' && !itemText.includes(` ${term} `));

  const found: (Candidate & { bonus: number; count: number })[] = [];
  for (const response of responses) {
    if (!response.username || skipUsers.has(response.username)) continue;
    for (const [directory, files] of byDirectory(response.files)) {
      if (item.type === 'album' && holdsOneDisc(directory, itemText)) continue;
      const folderText = ` ${words(directory)} `;
      const chosen = pickFormat(files, formats);
      if (!chosen) continue;
      let picked = chosen.files;
      const fileText = ` ${picked.map((f) => words(baseName(f.filename))).join(' ')} `;
      if (excluded.some((term) => folderText.includes(` ${term} `) || fileText.includes(` ${term} `))) continue;
      if (!containsAll(`${folderText}${fileText}`, wantedWords)) continue;
      if (item.type === 'track') {
        const match = picked.find((f) => containsAll(` ${words(baseName(f.filename))} `, wantedWords));
        if (!match) continue;
        picked = [match];
      }
      const lossy = !LOSSLESS.has(chosen.format);
      const bitRates = picked.flatMap((f) => (f.bitRate === undefined ? [] : [f.bitRate]));
      if (lossy && bitRates.some((rate) => rate < prefs.min_bitrate)) continue;
      const averageRate = bitRates.length > 0 ? bitRates.reduce((a, b) => a + b, 0) / bitRates.length : 0;
      const bonus =
        (formats.length - formats.indexOf(chosen.format)) * 1000 +
        (containsAll(`${folderText}${fileText}`, artistWords) ? 400 : -400) +
        (response.hasFreeUploadSlot ? 300 : 0) -
        Math.min(response.queueLength, 100) * 3 +
        Math.min(response.uploadSpeed / 1_048_576, 10) * 20 +
        (lossy ? (Math.min(averageRate, 320) / 320) * 100 : 100);
      found.push({
        username: response.username,
        directory,
        format: chosen.format,
        score: 0,
        files: picked.map((f) => ({ filename: f.filename, size: f.size })),
        bonus,
        count: picked.length,
      });
    }
  }

  const expected = item.type === 'track' ? 1 : mostCommon(found.map((c) => c.count));
  const ranked = found.map(({ bonus, count, ...candidate }) => ({ ...candidate, score: Math.round(bonus - completenessPenalty(count, expected, prefs.track_count_tolerance)) }));
  ranked.sort((a, b) => b.score - a.score || a.username.localeCompare(b.username) || a.directory.localeCompare(b.directory));
  return ranked.slice(0, limit);
}

/**
 * Whether a remote folder holds one disc of a multi-disc release (`…\\Album\\CD1`, `…\\Album (Disc 2)`). Such
 * folders are not candidates for an album: slskd files each download under its own remote folder's name, so the
 * discs would land in separate local folders called "CD1", "CD2"… and no one download path would hold the album
 * (the download would be reported complete with half of it). Unless the wanted album's own name says "CD 2".
 */
function holdsOneDisc(directory: string, itemText: string): boolean {
  const disc = DISC_FOLDER.exec(words(baseName(directory)))?.[0].trim();
  return disc !== undefined && !itemText.includes(` ${disc} `);
}

/** A folder missing more tracks than the tolerance is all but ruled out; within it, each missing track costs. */
function completenessPenalty(count: number, expected: number, tolerance: number): number {
  const missing = Math.max(0, expected - count);
  const extra = Math.max(0, count - expected);
  if (missing > tolerance) return 5000 + missing * 300;
  return missing * 300 + extra * 50;
}

/** The track count most folders agree on (the larger on a tie): the best guess of the album's length. */
function mostCommon(counts: readonly number[]): number {
  const tally = new Map<number, number>();
  for (const count of counts) tally.set(count, (tally.get(count) ?? 0) + 1);
  let best = 0;
  let bestVotes = 0;
  for (const [count, votes] of tally) {
    if (votes > bestVotes || (votes === bestVotes && count > best)) {
      best = count;
      bestVotes = votes;
    }
  }
  return best;
}

export function formatOrder(prefs: Pick<QualityPrefs, 'preferred_formats' | 'lossless_first'>): string[] {
  const formats = prefs.preferred_formats.map((f) => f.toLowerCase());
  if (!prefs.lossless_first) return formats;
  return [...formats.filter((f) => LOSSLESS.has(f)), ...formats.filter((f) => !LOSSLESS.has(f))];
}

/** The accepted format most of the folder's audio files have (the better one on a tie), with those files. */
function pickFormat(files: readonly SlskdFile[], formats: readonly string[]): { format: string; files: SlskdFile[] } | undefined {
  let best: { format: string; files: SlskdFile[] } | undefined;
  for (const format of formats) {
    const matching = files.filter((f) => f.extension === format);
    if (matching.length > (best?.files.length ?? 0)) best = { format, files: matching };
  }
  return best;
}

function byDirectory(files: readonly SlskdFile[]): Map<string, SlskdFile[]> {
  const folders = new Map<string, SlskdFile[]>();
  for (const file of files) {
    const directory = file.filename.slice(0, Math.max(0, file.filename.lastIndexOf('\\')));
    folders.set(directory, [...(folders.get(directory) ?? []), file]);
  }
  return folders;
}

function baseName(remotePath: string): string {
  return remotePath.slice(remotePath.lastIndexOf('\\') + 1);
}

/** Lower-case words without accents or punctuation, space-separated, for whole-word containment tests. */
function words(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/['’`]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

function containsAll(haystack: string, needle: string): boolean {
  return needle.split(' ').every((word) => word === '' || haystack.includes(` ${word} `));
}
