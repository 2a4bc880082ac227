import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenOnLoopback } from '../fakes/listen-on-loopback.js';
import { recordRequest, type RecordedRequest } from '../fakes/recorded-request.js';
import { replyJson } from '../fakes/reply.js';

interface FakeQueueItem {
  id: string;
  artist: string;
  album?: string;
  mbid?: string;
  type: 'album' | 'track';
  source: string;
  status: 'pending' | 'approved' | 'rejected';
  added_at: string;
}

export interface FakeCrateflowApi {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Every request, with its exact body. */
  readonly received: RecordedRequest[];
  readonly items: Map<string, FakeQueueItem>;
  /** Puts a pending item in the queue, as if added through the API. */
  seed(artist: string, album?: string, mbid?: string): FakeQueueItem;
  /** Stops the server; calling it again is harmless. */
  close(): Promise<void>;
}

/**
 * A stand-in for Crateflow's queue API (CONTRACT §2, §3) for the node unit tests: the routes the nodes call,
 * with the contract's status codes and problem+json errors, and `Authorization: Bearer <apiKey>` required.
 */
export async function startFakeCrateflowApi(apiKey: string): Promise<FakeCrateflowApi> {
  const received: RecordedRequest[] = [];
  const items = new Map<string, FakeQueueItem>();
  let nextId = 1;

  const seed = (artist: string, album?: string, mbid?: string): FakeQueueItem => {
    const item: FakeQueueItem = {
      id: `q${nextId++}`,
      artist,
      ...(album === undefined ? {} : { album }),
      ...(mbid === undefined ? {} : { mbid }),
      type: 'album',
      source: 'manual',
      status: 'pending',
      added_at: new Date().toISOString(),
    };
    items.set(item.id, item);
    return item;
  };

  const problem = (res: ServerResponse, status: number, title: string, detail: string) => {
    const body = JSON.stringify({ type: 'about:blank', title, status, detail });
    res.writeHead(status, { 'content-type': 'application/problem+json', ...(status === 401 ? { 'www-authenticate': 'Bearer' } : {}) });
    res.end(body);
  };

  const decide = (ids: string[], status: 'approved' | 'rejected') => {
    let count = 0;
    for (const id of ids) {
      const item = items.get(id);
      if (item?.status !== 'pending') continue;
      item.status = status;
      count += 1;
    }
    return { success: true, count, message: `${count} item(s) ${status}` };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const request = await recordRequest(req);
    received.push(request);
    const route = `${request.method} ${request.path}`;
    if (route === 'GET /api/v1/auth/info') {
      const authenticated = request.headers.authorization === `Bearer ${apiKey}`;
      return replyJson(res, 200, { enabled: true, type: 'basic', authenticated, user: authenticated ? { name: 'node-red', groups: [] } : null });
    }
    if (request.headers.authorization !== `Bearer ${apiKey}`) return problem(res, 401, 'Unauthorized', 'authentication required');
    const body: unknown = request.text ? JSON.parse(request.text) : undefined;
    const field = (name: string): unknown => (typeof body === 'object' && body !== null ? Reflect.get(body, name) : undefined);
    const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v) => typeof v === 'string') : []);

    if (route === 'GET /api/v1/queue/pending') {
      const pending = [...items.values()].filter((item) => item.status === 'pending');
      const limit = Number(request.query.get('limit') ?? 50);
      return replyJson(res, 200, { items: pending.slice(0, limit), total: pending.length, limit, offset: 0 });
    }
    if (route === 'POST /api/v1/queue') {
      const candidates: unknown[] = Array.isArray(body) ? body : [body];
      const added: FakeQueueItem[] = [];
      for (const candidate of candidates) {
        const artist: unknown = typeof candidate === 'object' && candidate !== null ? Reflect.get(candidate, 'artist') : undefined;
        const album: unknown = typeof candidate === 'object' && candidate !== null ? Reflect.get(candidate, 'album') : undefined;
        if (typeof artist !== 'string') return problem(res, 400, 'Bad Request', 'artist: must be a string');
        added.push(seed(artist, typeof album === 'string' ? album : undefined));
      }
      return replyJson(res, 201, { items: added, duplicates: 0 });
    }
    const bulk = /^POST \/api\/v1\/queue\/(approve|reject)$/.exec(route);
    if (bulk) {
      const ids = strings(field('ids'));
      const mbids = strings(field('mbids'));
      const all = field('all') === true;
      if (ids.length === 0 && mbids.length === 0 && !all) return problem(res, 400, 'Bad Request', 'ids: give ids, mbids or all');
      const selected = all ? [...items.keys()] : [...ids, ...[...items.values()].filter((i) => i.mbid && mbids.includes(i.mbid)).map((i) => i.id)];
      return replyJson(res, 200, decide(selected, bulk[1] === 'approve' ? 'approved' : 'rejected'));
    }
    const single = /^POST \/api\/v1\/queue\/([^/]+)\/(approve|reject)$/.exec(route);
    if (single?.[1] && single[2]) {
      const id = decodeURIComponent(single[1]);
      const item = items.get(id);
      if (!item) return problem(res, 404, 'Not Found', `queue item "${id}" does not exist`);
      if (item.status !== 'pending') return problem(res, 409, 'Conflict', `queue item "${id}" is ${item.status}`);
      item.status = single[2] === 'approve' ? 'approved' : 'rejected';
      return replyJson(res, 200, { item });
    }
    return problem(res, 404, 'Not Found', `no route ${route}`);
  };

  const server = await listenOnLoopback(handle);
  let closing: Promise<void> | undefined;
  // Idempotent, so a test may stop the API early (to simulate an outage) and the afterEach hook still closes it.
  return { url: server.origin, received, items, seed, close: () => (closing ??= server.close()) };
}
