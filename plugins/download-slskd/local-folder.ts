import { join } from 'node:path';

/**
 * Where slskd puts a finished remote folder: `<downloads>/<last remote folder segment>` (slskd-api.md §6;
 * the 0.26 default `${SOURCE_DIRECTORY}` gives the same). slskd replaces characters invalid in a file name on
 * its host with `_`; on Linux that is `/` and NUL.
 *
 * @example
 * localFolder('/srv/slskd/downloads', '@@abcde\\Music\\Low\\Double Negative (2018)') // '/srv/slskd/downloads/Double Negative (2018)'
 */
export function localFolder(downloadsDir: string, remoteDirectory: string): string {
  const last = remoteDirectory.split('\\').filter((segment) => segment !== '').at(-1) ?? '';
  return last === '' ? downloadsDir : join(downloadsDir, last.replace(/[/\0]/g, '_'));
}
