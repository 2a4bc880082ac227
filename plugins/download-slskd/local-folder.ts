import { join } from 'node:path';
import { remoteFolderName } from './remote-path.js';

/**
 * Where slskd up to 0.25 (and 0.26 with its default `${SOURCE_DIRECTORY}` template) puts a finished remote
 * folder: `<downloads>/<last remote folder segment>` (slskd-api.md §6). Segments are split on `\` and `/`, as
 * slskd's `FileSafety.SanitizePath` does; NUL, the one other character Linux refuses in a name, becomes `_`.
 * Two albums whose remote folders end alike (`…\Dummy\FLAC`, `…\Mezzanine\FLAC`) land in the same local
 * folder this way: see `batchDestination()` for slskd 0.26+, and the collision check for older versions.
 *
 * @example
 * localFolder('/srv/slskd/downloads', '@@abcde\\Music\\Low\\Double Negative (2018)') // '/srv/slskd/downloads/Double Negative (2018)'
 */
export function localFolder(downloadsDir: string, remoteDirectory: string): string {
  const last = remoteFolderName(remoteDirectory);
  return last === '' ? downloadsDir : join(downloadsDir, sanitizeSegment(last));
}

/** A folder or file name as slskd writes it on a Linux host. */
export function sanitizeSegment(name: string): string {
  return name.replace(/[/\\\0]/g, '_');
}
