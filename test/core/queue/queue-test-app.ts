import assert from 'node:assert/strict';
import type { QueueItem } from '../../../core/queue/queue-item.schema.js';
import type { WishlistItem } from '../../../core/wishlist/wishlist-item.schema.js';
import { api } from '../../helpers/api-client.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { recordEvents, type EventRecorder } from '../../helpers/record-events.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';

export interface Added {
  items: QueueItem[];
  duplicates: number;
}
export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
  next_before?: string;
}
export interface Bulk {
  success: boolean;
  count: number;
  message: string;
  in_library?: number;
  wishlist_ids?: string[];
}
export interface Problem {
  status: number;
  detail: string;
  errors?: { path: string; message: string }[];
}

/** The API key of the app's `node-red` identity (role approver), sent as X-API-Key or a Bearer token. */
export const API_KEY = 'k'.repeat(20);
export const MBID_A = '0e9b3b0a-6b3e-4a8f-9d3c-1c2b3a4d5e6f';
export const MBID_B = '5b11f4ce-a62d-471e-81fc-a69a8278c7da';
export const MBID_C = 'f5093c06-23e3-404f-aeaa-40f72885ee3a';

/** A fresh app: an empty queue, its own manual clock and its own event log; closed when `owner` (a test) ends. */
export async function startQueueApp(owner?: { after(fn: () => Promise<void>): void }): Promise<{ app: StartedApp; clock: ManualClock; events: EventRecorder }> {
  const clock = new ManualClock();
  const app = await startApp({ clock, config: { ui: { auth: { api_keys: [{ name: 'node-red', key: API_KEY, role: 'approver' }] } } } });
  owner?.after(() => app.close());
  return { app, clock, events: recordEvents(app) };
}

export const add = (app: StartedApp, body: unknown) => api<Added>(app.baseUrl, 'POST', '/api/v1/queue', body);
export const pending = (app: StartedApp, query = '') => api<Page<QueueItem>>(app.baseUrl, 'GET', `/api/v1/queue/pending${query}`);
export const wishlist = (app: StartedApp) => api<Page<WishlistItem>>(app.baseUrl, 'GET', '/api/v1/wishlist?limit=500');

/** Adds one candidate and answers the queue item, failing the test unless it was added. */
export async function addOne(app: StartedApp, body: Record<string, unknown>): Promise<QueueItem> {
  const res = await add(app, body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const item = res.body.items[0];
  assert.ok(item, `expected ${JSON.stringify(body)} to be added`);
  return item;
}
