import { join } from 'node:path';
import type { Candidate, CandidateFile } from './download-record.js';
import { sanitizeSegment } from './local-folder.js';
import { remoteBaseName, remoteDirectory, remoteFolderName } from './remote-path.js';

/**
 * Where a candidate's files sit locally, and how they are handed to slskd. A plain candidate is one remote
 * folder: one batch, every file straight in the download folder. A multi-disc candidate (`…\\Album\\CD1`,
 * `…\\Album\\CD2`) is one batch per disc, each with its own `options.destination` subfolder, because discs often
 * repeat file names ("01 - Intro.flac") that slskd would otherwise rename with a `_<ticks>` suffix.
 *
 * @example
 * enqueueGroups(multiDiscCandidate, multiDiscCandidate.files, 'Low - Album [r1]')
 * // [{ destination: 'Low - Album [r1]/CD1', files: [...] }, { destination: 'Low - Album [r1]/CD2', files: [...] }]
 */
export function enqueueGroups(candidate: Candidate, files: readonly CandidateFile[], destination: string): { destination: string; files: CandidateFile[] }[] {
  if (!candidate.multi_disc) return [{ destination, files: [...files] }];
  const groups = new Map<string, CandidateFile[]>();
  for (const file of files) {
    const disc = discFolder(file);
    groups.set(disc, [...(groups.get(disc) ?? []), file]);
  }
  return [...groups].map(([disc, discFiles]) => ({ destination: `${destination}/${disc}`, files: discFiles }));
}

/** Each file's local path and expected size once slskd has moved it into `folder`. */
export function localFiles(folder: string, candidate: Candidate): { path: string; size: number }[] {
  return candidate.files.map((file) => ({
    path: candidate.multi_disc ? join(folder, discFolder(file), fileName(file)) : join(folder, fileName(file)),
    size: file.size,
  }));
}

function discFolder(file: CandidateFile): string {
  return sanitizeSegment(remoteFolderName(remoteDirectory(file.filename))) || 'disc';
}

function fileName(file: CandidateFile): string {
  return sanitizeSegment(remoteBaseName(file.filename));
}
