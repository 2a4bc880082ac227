import { nameWords, normalizeName, type WantedItem } from '@crateflow/sdk';
import type { Candidate } from './download-record.js';
import type { SlskdFile, SlskdSearchResponse } from './slskd-api.js';
import { remoteBaseName, remoteDirectory } from './remote-path.js';
import type { QualityPrefs } from './slskd-config.schema.js';

const LOSSLESS = new Set(['flac', 'alac', 'ape', 'wav', 'wv', 'aiff', 'aif', 'dsf']);
// "CD1", "Disc 2", "Disk 01 - Bonus", "Album (CD 2)", as nameWords() spells them.
const DISC_FOLDER = /(?:^| )(?:cd|disc|disk) ?\d{1,2}(?: |$)/;

/**
 * Turns a search's responses into the folders worth downloading, best first. A candidate is one user's remote
 * directory holding the album in an accepted format whose path or track names contain the wanted album's words
 * **and the wanted artist's words**: the `{album}`-only fallback search finds every artist's "Greatest Hits", and a
 * FLAC copy of the wrong album must never outrank (or stand in for) a missing match. Only then is it scored on,
 * in order of weight: being complete (file count against the count most results agree on), format preference,
 * a free upload slot and a short queue, upload speed, and lossy bitrate. Wanted words and folder words go
 * through the sdk's one normalisation (`nameWords`), so "Ágætis byrjun" or "L.A. Woman" match their folders.
 */
export function rankCandidates(
  responses: readonly SlskdSearchResponse[],
  item: WantedItem,
  prefs: QualityPrefs,
  skipUsers: ReadonlySet<string>,
  limit: number,
  /** The discs of a multi-disc album may be combined into one candidate (slskd 0.26+ batch destinations). */
  multiDisc = false,
): Candidate[] {
  const formats = formatOrder(prefs);
  const wanted = item.type === 'track' ? (item.title ?? item.album ?? '') : (item.album ?? item.title ?? '');
  // normalizeName drops a leading "The" and edition suffixes; nameWords then empties a punctuation-only name
  // ("!!!"), which cannot be looked for in a folder name, so the check is skipped rather than failing every folder.
  const wantedWords = nameWords(normalizeName(wanted));
  const artistWords = nameWords(normalizeName(item.artist));
  const itemText = ` ${nameWords(`${item.artist} ${item.album ?? ''} ${item.title ?? ''}`)} `;
  const excluded = prefs.excluded_terms.map(nameWords).filter((term) => term !== '' && !itemText.includes(` ${term} `));

  const found: Found[] = [];
  const consider = (response: SlskdSearchResponse, directory: string, files: readonly SlskdFile[], discNames: readonly string[]): void => {
    const folderText = ` ${nameWords([directory, ...discNames].join(' '))} `;
    const chosen = pickFormat(files, formats);
    if (!chosen) return;
    let picked = chosen.files;
    const fileText = ` ${picked.map((f) => nameWords(remoteBaseName(f.filename))).join(' ')} `;
    if (excluded.some((term) => folderText.includes(` ${term} `) || fileText.includes(` ${term} `))) return;
    if (!containsAll(`${folderText}${fileText}`, wantedWords)) return;
    if (!containsAll(`${folderText}${fileText}`, artistWords)) return;
    if (item.type === 'track') {
      const match = picked.find((f) => containsAll(` ${nameWords(remoteBaseName(f.filename))} `, wantedWords));
      if (!match) return;
      picked = [match];
    }
    const lossy = !LOSSLESS.has(chosen.format);
    const bitRates = picked.flatMap((f) => (f.bitRate === undefined ? [] : [f.bitRate]));
    if (lossy && bitRates.some((rate) => rate < prefs.min_bitrate)) return;
    const averageRate = bitRates.length > 0 ? bitRates.reduce((a, b) => a + b, 0) / bitRates.length : 0;
    const bonus =
      (formats.length - formats.indexOf(chosen.format)) * 1000 +
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
      multi_disc: discNames.length > 0,
      bonus,
      count: picked.length,
    });
  };

  for (const response of responses) {
    if (!response.username || skipUsers.has(response.username)) continue;
    const discSets = new Map<string, { parent: string; names: string[]; files: SlskdFile[] }>();
    for (const [directory, files] of byDirectory(response.files)) {
      const disc = item.type === 'album' ? discOf(directory, itemText) : undefined;
      if (disc === undefined) {
        consider(response, directory, files, []);
        continue;
      }
      // One disc alone is never the album. With batch destinations, the discs of one release (same parent,
      // same name apart from the disc marker) become one candidate, each disc in its own subfolder.
      const key = `${remoteDirectory(directory)}\u0000${disc.album}`;
      const set = discSets.get(key) ?? { parent: remoteDirectory(directory), names: [], files: [] };
      set.names.push(remoteBaseName(directory));
      set.files.push(...files);
      discSets.set(key, set);
    }
    if (!multiDisc) continue;
    for (const set of discSets.values()) if (set.names.length >= 2) consider(response, set.parent, set.files, set.names);
  }

  const expected = item.type === 'track' ? 1 : mostCommon(found.map((c) => c.count));
  const ranked = found.map(({ bonus, count, ...candidate }) => ({ ...candidate, score: Math.round(bonus - completenessPenalty(count, expected, prefs.track_count_tolerance)) }));
  ranked.sort((a, b) => b.score - a.score || a.username.localeCompare(b.username) || a.directory.localeCompare(b.directory));
  return ranked.slice(0, limit);
}

type Found = Candidate & { bonus: number; count: number };

/**
 * Whether a remote folder holds one disc of a multi-disc release (`…\\Album\\CD1`, `…\\Album (Disc 2)`), and the
 * folder's name without its disc marker (to tell the discs of one release from those of another). Alone such a
 * folder is not the album: the download would be reported complete with half of it. Unless the wanted album's
 * own name says "CD 2".
 */
function discOf(directory: string, itemText: string): { album: string } | undefined {
  const name = nameWords(remoteBaseName(directory));
  const match = DISC_FOLDER.exec(name);
  const disc = match?.[0].trim();
  if (!match || disc === undefined || itemText.includes(` ${disc} `)) return undefined;
  return { album: name.slice(0, match.index).trim() };
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
    const directory = remoteDirectory(file.filename);
    folders.set(directory, [...(folders.get(directory) ?? []), file]);
  }
  return folders;
}

function containsAll(haystack: string, needle: string): boolean {
  return needle.split(' ').every((word) => word === '' || haystack.includes(` ${word} `));
}
