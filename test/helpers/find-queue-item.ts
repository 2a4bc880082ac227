import type { QueueItem } from '../../core/queue/queue-item.schema.js';
import { api } from './api-client.js';

/** The queue item `id` as the API shows it, whatever its status (the API lists items by status), or undefined. */
export async function findQueueItem(baseUrl: string, id: string): Promise<QueueItem | undefined> {
  for (const status of ['pending', 'approved', 'rejected']) {
    const page = await api<{ items: QueueItem[] }>(baseUrl, 'GET', `/api/v1/queue?status=${status}&limit=500`);
    const found = page.body.items.find((item) => item.id === id);
    if (found) return found;
  }
  return undefined;
}
