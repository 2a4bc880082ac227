import { PROJECT_URL } from './project-url.js';

/**
 * The User-Agent of every request to MusicBrainz and the Cover Art Archive: `Crateflow/<version> ( <project URL> )`,
 * the form MusicBrainz asks of an application (shared/reference/musicbrainz-api.md §1, "User-Agent rule"). The
 * operator's `metadata.contact`, when set, is added after the project's address; it is optional, as MusicBrainz
 * needs to reach the application's maintainer, not each of its users.
 */
export function metadataUserAgent(version: string, contact?: string): string {
  const own = contact?.trim();
  return `Crateflow/${version} ( ${PROJECT_URL}${own ? `; ${own}` : ''} )`;
}
