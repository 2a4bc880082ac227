import type { DomainEvent } from '@crateflow/sdk';

const TITLES: Record<DomainEvent['type'], string> = {
  queue_added: 'New candidate',
  queue_approved: 'Approved',
  queue_rejected: 'Rejected',
  wishlist_removed: 'Removed from the wishlist',
  download_completed: 'Downloaded',
};

const TAGS: Record<DomainEvent['type'], string> = {
  queue_added: 'inbox_tray',
  queue_approved: 'white_check_mark',
  queue_rejected: 'x',
  wishlist_removed: 'wastebasket',
  download_completed: 'musical_note',
};

/** The ntfy message for one event: a title and tag per event type, "Artist — Album" as the body. */
export function formatMessage(event: DomainEvent): { title: string; tags: string; body: string } {
  const name = event.data.album ? `${event.data.artist} — ${event.data.album}` : event.data.artist;
  const body = event.data.download_path ? `${name}\n${event.data.download_path}` : name;
  return { title: `Crateflow: ${TITLES[event.type]}`, tags: TAGS[event.type], body };
}
