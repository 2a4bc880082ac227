import type { DomainEvent } from '@crateflow/sdk';

/** The body of a delivery, in the key order the bytes are sent. */
export interface WebhookPayload {
  event: DomainEvent['type'];
  timestamp: string;
  data: PayloadData;
}

interface PayloadData {
  artist: string;
  album?: string;
  mbid?: string;
  download_path?: string;
  id?: string;
  title?: string;
  type?: 'album' | 'track';
  in_library?: boolean;
  decided_by?: string;
  decided_via?: string;
  requested_by?: string;
  decline_reason?: string;
  /** queue_added, when the server issues decision links: added to each attempt's body, never stored. */
  decide_url?: string;
}

/**
 * Builds the specification's payload for an event: `data` carries `artist`, `album` and `mbid` when known,
 * `download_path` only for `download_completed`, `id` only for this project's `queue_added` (its `decide_url` is
 * added as it is sent: decision-link-body.ts), `decided_by`/`decided_via` on decisions, `requested_by` on events about a request, `decline_reason` on a
 * declined one, and `title` with
 * `type: "track"` only for track items (the four specified events about albums keep exactly the fields the
 * specification lists).
 */
export function buildPayload(event: DomainEvent): WebhookPayload {
  const { artist, album, mbid, download_path, id } = event.data;
  const data: PayloadData = { artist };
  if (album !== undefined) data.album = album;
  if (mbid !== undefined) data.mbid = mbid;
  if (event.type === 'download_completed' && download_path !== undefined) data.download_path = download_path;
  if (event.type === 'queue_added' && id !== undefined) data.id = id;
  // An addition (CONTRACT §7): whether the approved album was in the library already, so nothing is downloaded.
  if (event.type === 'queue_approved' && event.data.in_library !== undefined) data.in_library = event.data.in_library;
  // Additions (CONTRACT §7): who decided and through which channel.
  if (event.type === 'queue_approved' || event.type === 'queue_rejected') {
    if (event.data.decided_by !== undefined) data.decided_by = event.data.decided_by;
    if (event.data.decided_via !== undefined) data.decided_via = event.data.decided_via;
  }
  // Additions (CONTRACT §7): the requester of a request, on every event about it; a decline's reason.
  if (event.data.requested_by !== undefined) data.requested_by = event.data.requested_by;
  if (event.type === 'queue_rejected' && event.data.decline_reason !== undefined) data.decline_reason = event.data.decline_reason;
  // Additions (CONTRACT §6): a track item's events name the track; album events are unchanged.
  if (event.data.type === 'track') {
    data.type = 'track';
    if (event.data.title !== undefined) data.title = event.data.title;
  }
  return { event: event.type, timestamp: isoTimestamp(event.timestamp), data };
}

/** The exact bytes sent: compact JSON, so what is signed is what goes on the wire. */
export function serializePayload(payload: WebhookPayload): string {
  return JSON.stringify(payload);
}

// The specification's form is `2026-03-18T12:00:00.000Z` (milliseconds and Z); normalise anything else the
// event might carry, and keep it as given only when it is not a date at all.
function isoTimestamp(value: string): string {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value : new Date(ms).toISOString();
}

/** The sample event `POST /webhooks/test` sends. */
export function sampleEvent(now: number): DomainEvent {
  return {
    id: 'test',
    type: 'download_completed',
    timestamp: new Date(now).toISOString(),
    data: {
      artist: 'Crateflow',
      album: 'Test Delivery',
      mbid: '00000000-0000-4000-8000-000000000000',
      download_path: '/music/Crateflow/Test Delivery',
    },
  };
}
