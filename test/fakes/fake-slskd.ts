import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { FakeSlskdBatches } from './fake-slskd-batches.js';
import type { FakeSlskdPeer } from './fake-slskd-catalogue.js';
import { FakeSlskdSearches, type SearchCompletion } from './fake-slskd-searches.js';
import { FakeSlskdTransfers, groupByUser, toTransferJson, type TransferPacing } from './fake-slskd-transfers.js';
import { parseJsonBody } from './is-json-object.js';
import { listenOnLoopback, type LoopbackServer } from './listen-on-loopback.js';
import { recordRequest, type RecordedRequest } from './recorded-request.js';
import { replyEmpty, replyJson, replyText } from './reply.js';

export type { FakeSlskdFile, FakeSlskdPeer, FakeSlskdPeerBehaviour } from './fake-slskd-catalogue.js';

export interface FakeSlskdOptions {
  /** Where finished downloads are written (a temp dir owned by the test). */
  readonly downloadsDir: string;
  /** Value expected in `X-API-Key`; random when omitted. */
  readonly apiKey?: string;
  /** slskd's `web.url_base`, e.g. `/slskd`; every path except `/health` must then start with it. */
  readonly urlBase?: string;
  readonly peers?: readonly FakeSlskdPeer[];
  /** Default `{ afterPolls: 2 }`: the second `GET /searches/{id}` sees `Completed, TimedOut`. */
  readonly searchCompletion?: SearchCompletion;
  /** Default `'poll'`: each GET on a transfers endpoint moves every unfinished transfer one state on. */
  readonly transferPacing?: TransferPacing;
  /** How many `InProgress` readings a successful transfer shows (default 2). */
  readonly inProgressSteps?: number;
  /** Logged in to the Soulseek network (default true); false makes POST /searches answer 409. */
  readonly connected?: boolean;
  /** Hold each POST /searches this long, so a concurrent one gets slskd's 429 (default 0). */
  readonly searchHandlingMs?: number;
  /** Hold each enqueue this long; a third concurrent enqueue gets 429 (default 0). */
  readonly enqueueHandlingMs?: number;
  /** Re-read search records lose the `Z` of their timestamps, as after slskd's SQLite round trip (default true). */
  readonly sqliteTimestamps?: boolean;
  /**
   * slskd's version (default `0.26.0`). From 0.26 the batch endpoint with `options.destination` exists and
   * transfers carry `attempts`/`batchId`; before it, files land in `<downloads>/<last remote folder>` only.
   */
  readonly version?: string;
  /** Reads that see a completed search before its responses are saved: slskd's completion race (default 2; 0 = none). */
  readonly completionRaceReads?: number;
  /** Transfer reads a succeeded file takes to be moved (copied) whole into the downloads directory (default 2; 0 = at once). */
  readonly moveSteps?: number;
}

/** Live, mutable state a test can inspect or steer between requests. */
export interface FakeSlskdState {
  connected: boolean;
  /** The API key was revoked: every API request gets 401, as slskd answers an unknown key. */
  apiKeyRevoked: boolean;
  /** The next n POST /searches answer 429 as if another search were still being handled. */
  rejectNextSearches: number;
  peers: FakeSlskdPeer[];
  readonly searches: FakeSlskdSearches;
  readonly transfers: FakeSlskdTransfers;
  readonly batches: FakeSlskdBatches;
}

export interface FakeSlskd {
  /** Base URL including the url base, e.g. `http://127.0.0.1:41234/slskd`. */
  readonly url: string;
  readonly apiKey: string;
  readonly downloadsDir: string;
  readonly received: RecordedRequest[];
  readonly state: FakeSlskdState;
  close(): Promise<void>;
  /** Simulates slskd restarting: connections are refused for `downMs`, then it listens on the same port, state kept. */
  restart(downMs?: number): Promise<void>;
}

interface Call {
  readonly request: RecordedRequest;
  readonly res: ServerResponse;
  readonly params: ReadonlyMap<string, string>;
  readonly body: unknown;
}
type Route = readonly [method: string, pattern: string, handle: (call: Call) => Promise<void> | void];

const BUSY = 'Only one concurrent operation is permitted. Wait for the pending operation to complete.';
const GUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/**
 * A real HTTP fake of slskd's `/api/v0` (0.26 by default, 0.22–0.25 shapes by `version`), quirks on by default:
 * the search completion race, 2 search slots, timestamps without `Z`, files moved after `Completed, Succeeded`.
 * See shared/reference/slskd-api.md.
 */
export async function startFakeSlskd(options: FakeSlskdOptions): Promise<FakeSlskd> {
  const VERSION = options.version ?? '0.26.0';
  const batchesSupported = !/^0\.(?:1?\d|2[0-5])\./.test(VERSION);
  const transfers = new FakeSlskdTransfers(options.downloadsDir, options.transferPacing ?? 'poll', options.inProgressSteps ?? 2, options.moveSteps ?? 2, VERSION);
  const apiKey = options.apiKey ?? randomBytes(16).toString('hex');
  const urlBase = (options.urlBase ?? '').replace(/\/+$/, '');
  const received: RecordedRequest[] = [];
  const peers = [...(options.peers ?? [])];
  const state: FakeSlskdState = {
    connected: options.connected ?? true,
    apiKeyRevoked: false,
    rejectNextSearches: 0,
    peers,
    searches: new FakeSlskdSearches(() => state.peers, options.searchCompletion ?? { afterPolls: 2 }, options.sqliteTimestamps ?? true, options.completionRaceReads ?? 2),
    transfers,
    batches: new FakeSlskdBatches(transfers),
  };
  let searchesInFlight = 0;
  let enqueuesInFlight = 0;
  const serverState = () => ({
    address: 'vps.slsknet.org:2271',
    ipEndPoint: '208.76.170.59:2271',
    state: state.connected ? 'Connected, LoggedIn' : 'Disconnected',
    isConnected: state.connected,
    isLoggedIn: state.connected,
    isConnecting: false,
    isLoggingIn: false,
    isTransitioning: false,
  });

  const routes: Route[] = [
    ['GET', 'application', ({ res }) => replyJson(res, 200, {
      version: { full: `${VERSION}+fake`, current: VERSION, isCanary: false, isDevelopment: false },
      server: serverState(),
      user: { username: 'fake-slskd', privileges: { isPrivileged: false, privilegesRemaining: 0 } },
      shares: { scanning: false, ready: true, directories: 0, files: 0 },
      pendingReconnect: false,
      pendingRestart: false,
    })],
    ['GET', 'application/version', ({ res }) => replyJson(res, 200, VERSION)],
    ['GET', 'server', ({ res }) => replyJson(res, 200, serverState())],
    ['PUT', 'server', ({ res }) => { state.connected = true; replyEmpty(res, 200); }],
    ['DELETE', 'server', ({ res }) => { state.connected = false; replyEmpty(res, 204); }],
    ['POST', 'searches', async ({ res, body }) => {
      if (state.rejectNextSearches > 0 || searchesInFlight > 0) {
        state.rejectNextSearches = Math.max(0, state.rejectNextSearches - 1);
        return replyJson(res, 429, BUSY);
      }
      searchesInFlight++;
      try {
        // Without the option there is no await here, so requests never overlap and 429 never happens by accident.
        if (options.searchHandlingMs) await delay(options.searchHandlingMs);
      } finally {
        searchesInFlight--;
      }
      if (!state.connected) return replyJson(res, 409, 'The server connection must be connected and logged in to perform a search (currently: Disconnected)');
      const started = state.searches.start(body);
      if (!started.ok) return replyJson(res, started.status ?? 400, started.message);
      replyJson(res, 200, state.searches.toJson(started.record, { includeResponses: false, fresh: true }));
    }],
    ['GET', 'searches', ({ res }) => replyJson(res, 200, state.searches.all().map((r) => state.searches.toJson(r, { includeResponses: false })))],
    ['GET', 'searches/:id', ({ res, params, request }) => {
      const record = state.searches.find(param(params, 'id'), true);
      if (!record) return replyEmpty(res, 404);
      const includeResponses = (request.query.get('includeResponses') ?? '').toLowerCase() === 'true';
      replyJson(res, 200, state.searches.toJson(record, { includeResponses }));
    }],
    ['GET', 'searches/:id/responses', ({ res, params }) => {
      const record = state.searches.find(param(params, 'id'));
      if (!record) return replyEmpty(res, 404);
      replyJson(res, 200, state.searches.visibleResponses(record));
    }],
    ['PUT', 'searches/:id', ({ res, params }) => replyEmpty(res, state.searches.cancel(param(params, 'id')) ? 200 : 404)],
    ['DELETE', 'searches/:id', ({ res, params }) => replyEmpty(res, state.searches.delete(param(params, 'id')) ? 204 : 404)],
    ['GET', 'transfers/downloads', async ({ res, request }) => {
      await state.transfers.advance();
      const includeRemoved = (request.query.get('includeRemoved') ?? '').toLowerCase() === 'true';
      replyJson(res, 200, groupByUser(state.transfers.visible(includeRemoved), VERSION));
    }],
    ['GET', 'transfers/downloads/:username', async ({ res, params }) => {
      await state.transfers.advance();
      const [group] = groupByUser(state.transfers.visible().filter((r) => r.username === param(params, 'username')), VERSION);
      if (!group) return replyEmpty(res, 404);
      replyJson(res, 200, group);
    }],
    ['GET', 'transfers/downloads/:username/:id', async ({ res, params }) => {
      if (!GUID.test(param(params, 'id'))) return replyJson(res, 400, `The value '${param(params, 'id')}' is not valid.`);
      await state.transfers.advance();
      const record = state.transfers.find(param(params, 'username'), param(params, 'id'));
      if (!record) return replyEmpty(res, 404);
      replyJson(res, 200, toTransferJson(record, VERSION));
    }],
    ...(batchesSupported ? batchRoutes() : []),
    ['POST', 'transfers/downloads/:username', async ({ res, params, body }) => {
      // The limit is two concurrent enqueue requests; the third is turned away.
      if (enqueuesInFlight >= 2) return replyJson(res, 429, BUSY);
      enqueuesInFlight++;
      try {
        // Without the option there is no await here, so requests never overlap and 429 never happens by accident.
        if (options.enqueueHandlingMs) await delay(options.enqueueHandlingMs);
      } finally {
        enqueuesInFlight--;
      }
      const username = param(params, 'username');
      const result = state.transfers.enqueue(state.peers.find((p) => p.username === username), username, body);
      if (result.status === 201) return replyJson(res, 201, result.body);
      replyJson(res, result.status, result.message);
    }],
    ['DELETE', 'transfers/downloads/all/completed', ({ res }) => {
      for (const record of state.transfers.visible()) if (record.state.startsWith('Completed')) record.removed = true;
      replyEmpty(res, 204);
    }],
    ['DELETE', 'transfers/downloads/:username/:id', ({ res, params, request }) => {
      const record = state.transfers.find(param(params, 'username'), param(params, 'id'));
      if (!record) return replyEmpty(res, 404);
      state.transfers.cancel(record, (request.query.get('remove') ?? '').toLowerCase() === 'true');
      replyEmpty(res, 204);
    }],
  ];

  /** 0.26+: enqueue with options; shares the 2-request enqueue limit with the per-user endpoint. */
  function batchRoutes(): Route[] {
    return [
      ['POST', 'transfers/downloads/batches', ({ res, body }) => {
        if (enqueuesInFlight >= 2) return replyJson(res, 429, BUSY);
        const result = state.batches.create(state.peers, body);
        if ('body' in result) return replyJson(res, result.status, result.body);
        replyJson(res, result.status, result.message);
      }],
      ['GET', 'transfers/downloads/batches/:id', ({ res, params }) => {
        const batch = state.batches.find(param(params, 'id'));
        if (!batch) return replyEmpty(res, 404);
        replyJson(res, 200, batch);
      }],
    ];
  }

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const request = await recordRequest(req);
    received.push(request);
    const inBase = request.path === urlBase || request.path.startsWith(`${urlBase}/`);
    const path = inBase ? request.path.slice(urlBase.length) || '/' : request.path;
    if (path === '/health') return replyText(res, 200, 'Healthy');
    if (!inBase) return replyEmpty(res, 404);
    if (path === '/api/v0/session/enabled' && request.method === 'GET') return replyJson(res, 200, true);
    if (!path.startsWith('/api/')) {
      // slskd's web UI is a single-page app: any other path gets index.html.
      return replyText(res, 200, '<!doctype html><html><head><title>slskd</title></head><body><div id="root"></div></body></html>', 'text/html');
    }
    const match = matchRoute(routes, request.method, path.slice('/api/v0/'.length));
    if (!path.startsWith('/api/v0/') || !match) return replyEmpty(res, 404);
    if (state.apiKeyRevoked || request.headers['x-api-key'] !== apiKey) return replyEmpty(res, 401);
    let body: unknown;
    if (request.body.length > 0) {
      if (!(request.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) return replyEmpty(res, 415);
      const parsed = parseJsonBody(request.text);
      if (parsed.invalid) {
        return replyJson(res, 400, { type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1', title: 'One or more validation errors occurred.', status: 400,
          errors: { '$': ['The JSON value could not be converted.'] } }, { 'content-type': 'application/problem+json; charset=utf-8' });
      }
      body = parsed.value;
    }
    await match.handle({ request, res, params: match.params, body });
  };

  let listener: LoopbackServer = await listenOnLoopback(handle);
  const port = listener.port;
  return {
    url: `${listener.origin}${urlBase}`,
    apiKey,
    downloadsDir: options.downloadsDir,
    received,
    state,
    close: () => listener.close(),
    async restart(downMs = 200) {
      await listener.close();
      await delay(downMs);
      listener = await listenOnLoopback(handle, port);
    },
  };
}

function matchRoute(routes: readonly Route[], method: string, path: string): { handle: Route[2]; params: Map<string, string> } | undefined {
  const segments = path.split('/').filter((s) => s !== '');
  for (const [routeMethod, pattern, handle] of routes) {
    if (routeMethod !== method) continue;
    const parts = pattern.split('/');
    if (parts.length !== segments.length) continue;
    const params = new Map<string, string>();
    const matches = parts.every((part, i) => {
      const segment = segments[i] ?? '';
      if (part.startsWith(':')) {
        params.set(part.slice(1), decodeSegment(segment));
        return true;
      }
      return part === segment.toLowerCase(); // ASP.NET route literals are case-insensitive
    });
    if (matches) return { handle, params };
  }
  return undefined;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch (error: unknown) {
    // A malformed escape cannot name a real user or id; keep it raw so the lookup simply finds nothing.
    return segment;
  }
}

function param(params: ReadonlyMap<string, string>, name: string): string {
  return params.get(name) ?? '';
}
