import type { DomainEvent, IssuedDecisionLink, Notification, NotifiedItem } from '@crateflow/sdk';
import type { QueueItem } from '../queue/queue-item.schema.js';

/** How many candidates a digest names; the rest are counted. */
const DIGEST_TOP = 3;

/** One candidate with its decision link. */
export function itemNotification(id: string, item: QueueItem, link: IssuedDecisionLink | undefined, openUrl: string | undefined): Notification {
  const reasons = reasonsOf(item);
  return {
    id,
    kind: 'item',
    event: 'queue_added',
    title: nameOf(item),
    text: item.requested_by !== undefined ? requestText(item.requested_by, item.note) : reasons.length > 0 ? reasons.join('\n') : `Proposed by ${item.source}`,
    items: [notifiedItem(item)],
    ...(link ? { decide_url: link.url, decide_expires_at: link.expiresAt } : {}),
    ...(openUrl ? { open_url: openUrl } : {}),
  };
}

/** Several candidates in one message: how many, and the best scored by name. */
export function digestNotification(id: string, items: readonly QueueItem[], openUrl: string | undefined): Notification {
  const top = [...items].sort((a, b) => (b.score ?? 0) - (a.score ?? 0)).slice(0, DIGEST_TOP);
  const albums = items.length === 1 ? '1 new candidate' : `${items.length} new candidates`;
  return {
    id,
    kind: 'digest',
    event: 'queue_added',
    title: `${albums} to decide`,
    text: `${items.length > top.length ? `Top ${top.length}: ` : ''}${top.map(nameOf).join('; ')}`,
    items: top.map(notifiedItem),
    total: items.length,
    ...(openUrl ? { open_url: openUrl } : {}),
  };
}

/** Something that happened to an album: it was downloaded, or it left the wishlist (owned now, or removed). */
export function eventNotification(id: string, event: DomainEvent['type'], data: DomainEvent['data'], openUrl: string | undefined): Notification {
  const name = `${data.artist} – ${data.album ?? data.title ?? ''}`;
  const [title, text] =
    event === 'download_completed'
      ? [`Downloaded: ${name}`, data.download_path === undefined ? 'The download finished.' : `Saved in ${data.download_path}`]
      : [`Off the wishlist: ${name}`, 'No longer wanted: the library has it now, or it was removed by hand.'];
  return { id, kind: 'event', event, title, text, items: [], ...(openUrl ? { open_url: openUrl } : {}) };
}

/** Who asked for an album, and what they wrote with it. */
function requestText(requestedBy: string, note: string | undefined): string {
  return `Requested by ${requestedBy}${note === undefined ? '' : `: ${note}`}`;
}

function notifiedItem(item: QueueItem): NotifiedItem {
  return {
    id: item.id,
    artist: item.artist,
    ...(item.album !== undefined ? { album: item.album } : {}),
    ...(item.title !== undefined ? { title: item.title } : {}),
    ...(item.year !== undefined ? { year: item.year } : {}),
    source: item.source,
    reasons: reasonsOf(item),
    ...(item.cover_url !== undefined ? { cover_url: item.cover_url } : {}),
  };
}

function nameOf(item: QueueItem): string {
  const year = item.year === undefined ? '' : ` (${item.year})`;
  return `${item.artist} – ${item.album ?? item.title ?? ''}${year}`;
}

function reasonsOf(item: QueueItem): string[] {
  return (item.reasons ?? []).slice(0, 3).map((reason) => reason.text);
}
