import type { Static } from 'typebox';
import { addressPolicySchema } from './address-policy.schema.js';

/**
 * `metadata_policy` in config.yaml: where requests for public metadata (MusicBrainz, the Cover Art Archive and the
 * hops behind it, discovery sources such as ListenBrainz and Last.fm, previews) may connect beyond the upstreams the
 * config names. A configured upstream (`metadata.musicbrainz.url`, a source's `listenbrainz_url`, …) is always
 * reachable at its own host and port, a mirror on this machine or the LAN included; anything else (a redirect, a
 * link in an answer) is judged here. Loopback and LAN are blocked by default: these services live on the internet,
 * and a redirect into the operator's own network is an attack, not a cover.
 */
export const MetadataPolicy = addressPolicySchema({
  what: 'metadata requests to hosts other than the configured upstreams',
  fallback: 'block',
  allowExample: '["192.168.1.30/32"] for a mirror that redirects to a second host',
});
export type MetadataPolicy = Static<typeof MetadataPolicy>;

/** `metadata_policy` when config.yaml leaves it out (what the schema's defaults give). */
export const DEFAULT_METADATA_POLICY: MetadataPolicy = { loopback: 'block', lan: 'block', allow_cidrs: [], block_cidrs: [] };
