import type { Clock, Logger } from '@crateflow/sdk';
import type { MetadataConfig } from '../config/app-config.schema.js';
import type { PathProblem } from '../schema/format-schema-errors.js';
import { MusicBrainzClient } from './musicbrainz-client.js';

// musicbrainz.org allows one request a second per address (shared/reference/musicbrainz-api.md §1); a mirror of
// the operator's own, or a test fake, may allow more.
const PUBLIC_HOST = /(^|\.)musicbrainz\.org$/i;
const PUBLIC_MIN_INTERVAL_MS = 1000;

/**
 * The config rules of `metadata`: the contact MusicBrainz's etiquette asks for is required as soon as something
 * uses MusicBrainz (`users`: the config paths of those plugins), and the public server keeps its rate limit.
 */
export function checkMetadataConfig(metadata: MetadataConfig, users: readonly string[]): PathProblem[] {
  const problems: PathProblem[] = [];
  if (users.length > 0 && !metadata.contact?.trim()) {
    const who = users.length === 1 ? `${users[0]} uses` : `${users.join(', ')} use`;
    problems.push({ path: 'metadata.contact', message: `required because ${who} MusicBrainz: an e-mail address or a URL where MusicBrainz can reach you` });
  }
  if (metadata.musicbrainz.request_interval_ms < PUBLIC_MIN_INTERVAL_MS && PUBLIC_HOST.test(hostOf(metadata.musicbrainz.url))) {
    problems.push({ path: 'metadata.musicbrainz.request_interval_ms', message: `must be >= ${PUBLIC_MIN_INTERVAL_MS} for musicbrainz.org (one request a second at most)` });
  }
  return problems;
}

/** The instance's one MusicBrainz client, or undefined when no contact is configured (then nothing may use it). */
export async function openSharedMusicBrainz(
  metadata: MetadataConfig,
  deps: { dataDir: string; version: string; clock: Clock; log: Logger },
): Promise<MusicBrainzClient | undefined> {
  const contact = metadata.contact?.trim();
  if (!contact) return undefined;
  return MusicBrainzClient.open({
    version: deps.version,
    contact,
    dataDir: deps.dataDir,
    clock: deps.clock,
    log: deps.log,
    baseUrl: metadata.musicbrainz.url.replace(/\/+$/, ''),
    minIntervalMs: metadata.musicbrainz.request_interval_ms,
    cacheMaxBytes: metadata.musicbrainz.cache_max_mb * 1024 * 1024,
  });
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}
