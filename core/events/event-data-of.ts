import type { DomainEvent, ItemType } from '@crateflow/sdk';

/** The fields of a queue, wishlist or download record that an event about it carries. */
export interface EventSubject {
  artist: string;
  album?: string;
  title?: string;
  mbid?: string;
  type?: ItemType;
  /** A request's requester: every event about it names them (CONTRACT §7). */
  requested_by?: string;
}

/**
 * The `data` of an event about `item`: `artist`, `album`, `mbid` as the specification lists them, plus `title`
 * and `type: 'track'` for a track item (CONTRACT §6), so that a chat message or a notification names the track
 * and not only its artist. Album events keep exactly the specification's fields.
 */
export function eventDataOf(item: EventSubject): DomainEvent['data'] {
  const data: DomainEvent['data'] = { artist: item.artist };
  if (item.album !== undefined) data.album = item.album;
  if (item.mbid !== undefined) data.mbid = item.mbid;
  if (item.type === 'track') {
    data.type = 'track';
    if (item.title !== undefined) data.title = item.title;
  }
  if (item.requested_by !== undefined) data.requested_by = item.requested_by;
  return data;
}
