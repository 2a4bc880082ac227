import type { DomainEvent, EventType, Notification } from '@crateflow/sdk';

/** The events that may be news for a requester. */
export const REQUEST_NEWS: ReadonlySet<EventType> = new Set(['queue_rejected', 'queue_approved', 'wishlist_removed']);

export type RequestNews = 'declined' | 'in_library';

/**
 * What an event tells the requester, if anything: declined (by someone else: cancelling one's own request is no
 * news), or in the library (approved when the library had it already, or taken off the wishlist by a library sync:
 * `inLibrary` says whether the library has it, as a removal by hand is not news of that kind).
 */
export function requestNewsOf(event: Pick<DomainEvent, 'type' | 'data'>, inLibrary: boolean): RequestNews | undefined {
  const { data } = event;
  if (event.type === 'queue_rejected') return data.decided_by !== undefined && data.decided_by === data.requested_by ? undefined : 'declined';
  if (event.type === 'queue_approved') return data.in_library === true ? 'in_library' : undefined;
  if (event.type === 'wishlist_removed') return inLibrary ? 'in_library' : undefined;
  return undefined;
}

/** The message a requester gets about their request. */
export function requestNotification(id: string, event: EventType, news: RequestNews, data: DomainEvent['data'], recipient: string, openUrl: string | undefined): Notification {
  const name = `${data.artist} – ${data.album ?? data.title ?? ''}`;
  const [title, text] = news === 'declined'
    ? [`Declined: ${name}`, data.decline_reason === undefined ? `Your request was declined${data.decided_by === undefined ? '' : ` by ${data.decided_by}`}.` : `${data.decided_by ?? 'An admin'}: ${data.decline_reason}`]
    : [`In the library: ${name}`, 'Your request is in the library now.'];
  return { id, kind: 'event', event, title, text, items: [], recipient, ...(openUrl ? { open_url: openUrl } : {}) };
}
