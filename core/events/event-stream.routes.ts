import { PassThrough } from 'node:stream';
import type { DomainEvent } from '@crateflow/sdk';
import { route, type RouteSpec } from '../http/route.js';
import type { EventBus } from './event-bus.js';

const HEARTBEAT_MS = 25_000;
// A client that stops reading is dropped rather than buffered without bound; EventSource reconnects by itself.
const MAX_BUFFERED_BYTES = 1024 * 1024;

export interface EventStreamDeps {
  events: Pick<EventBus, 'subscribe'>;
  /** Aborted on shutdown: every open stream is ended so the server can close without waiting for them. */
  signal: AbortSignal;
  heartbeatMs?: number;
}

/**
 * `GET /events/stream`: server-sent events relaying every committed domain event (the web UI's live updates).
 * Each message is `event: <type>`, `id: <event id>`, `data: {"id","type","timestamp","data"}`.
 */
export function eventStreamRoutes(deps: EventStreamDeps): RouteSpec[] {
  return [
    route({
      method: 'get', path: '/events/stream', tag: 'events', access: 'viewer', status: 200,
      summary: 'Domain events as they happen (text/event-stream)',
      description:
        'A `text/event-stream` that stays open. Each committed event is sent as `event: <type>`, `id: <event id>` and ' +
        '`data:` the event as JSON (`id`, `type`, `timestamp`, `data`). A comment line is sent every 25 s so that ' +
        'proxies keep the connection open. Events that happened while no stream was open are not replayed; ' +
        'read `GET /stats` (recent events) after reconnecting.',
      handle: ({ setHeader }) => {
        setHeader('Content-Type', 'text/event-stream; charset=utf-8');
        setHeader('Cache-Control', 'no-store');
        // nginx buffers proxied responses by default, which would hold events back.
        setHeader('X-Accel-Buffering', 'no');
        // The stream holds its connection for its whole life; closing it with the stream lets shutdown finish at once.
        setHeader('Connection', 'close');
        return openStream(deps);
      },
    }),
  ];
}

function openStream(deps: EventStreamDeps): PassThrough {
  const stream = new PassThrough();
  const send = (chunk: string): void => {
    if (stream.destroyed || stream.writableEnded) return;
    if (stream.writableLength > MAX_BUFFERED_BYTES) {
      stream.destroy();
      return;
    }
    stream.write(chunk);
  };
  const unsubscribe = deps.events.subscribe((event: DomainEvent) => send(formatEvent(event)));
  const heartbeat = setInterval(() => send(': ping\n\n'), deps.heartbeatMs ?? HEARTBEAT_MS);
  heartbeat.unref();
  const end = (): void => {
    if (!stream.writableEnded) stream.end();
  };
  deps.signal.addEventListener('abort', end, { once: true });
  // Koa destroys the body stream when the client goes away; that is where the subscription ends.
  stream.once('close', () => {
    unsubscribe();
    clearInterval(heartbeat);
    deps.signal.removeEventListener('abort', end);
  });
  if (deps.signal.aborted) end();
  send('retry: 3000\n: connected\n\n');
  return stream;
}

/** One SSE message. JSON never contains a raw newline, so `data:` fits on one line. */
export function formatEvent(event: DomainEvent): string {
  return `event: ${event.type}\nid: ${event.id}\ndata: ${JSON.stringify(event)}\n\n`;
}
