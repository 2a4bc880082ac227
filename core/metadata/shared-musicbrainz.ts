import type { Clock, Logger } from '@crateflow/sdk';
import type { MetadataConfig } from '../config/app-config.schema.js';
import type { PathProblem } from '../schema/format-schema-errors.js';
import type { OutboundAddressPolicy } from '../net/outbound-address-policy.js';
import { MusicBrainzClient } from './musicbrainz-client.js';

// musicbrainz.org allows one request a second per address (shared/reference/musicbrainz-api.md §1); a mirror of
// the operator's own, or a test fake, may allow more.
const PUBLIC_HOST = /(^|\.)musicbrainz\.org$/i;
const PUBLIC_MIN_INTERVAL_MS = 1000;

/** The config rules of `metadata`: the public server keeps its rate limit. */
export function checkMetadataConfig(metadata: MetadataConfig): PathProblem[] {
  const problems: PathProblem[] = [];
  if (metadata.musicbrainz.request_interval_ms < PUBLIC_MIN_INTERVAL_MS && PUBLIC_HOST.test(hostOf(metadata.musicbrainz.url))) {
    problems.push({ path: 'metadata.musicbrainz.request_interval_ms', message: `must be >= ${PUBLIC_MIN_INTERVAL_MS} for musicbrainz.org (one request a second at most)` });
  }
  return problems;
}

/**
 * The instance's one MusicBrainz client. It needs no setting: its User-Agent names Crateflow and the project's
 * address, which is what MusicBrainz asks of an application; `metadata.contact` only adds the operator's.
 */
export function openSharedMusicBrainz(
  metadata: MetadataConfig,
  deps: { dataDir: string; version: string; clock: Clock; log: Logger; addressPolicy: OutboundAddressPolicy },
): Promise<MusicBrainzClient> {
  return MusicBrainzClient.open({
    version: deps.version,
    ...(metadata.contact === undefined ? {} : { contact: metadata.contact }),
    dataDir: deps.dataDir,
    clock: deps.clock,
    log: deps.log,
    addressPolicy: deps.addressPolicy,
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
