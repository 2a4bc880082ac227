/**
 * Where Crateflow lives. MusicBrainz asks every application to name itself with a contact URL in its User-Agent
 * (shared/reference/musicbrainz-api.md §1, "User-Agent rule"): this is that URL, so a fresh install identifies
 * itself without the operator's address. package.json names no homepage, so this is the one place it is written.
 * (Not in version.ts: the bundle replaces that module with the version read at build time.)
 */
export const PROJECT_URL = 'https://github.com/crateflow/crateflow';
