import { PassThrough } from 'node:stream';
import type { DomainEvent, Identity } from '@crateflow/sdk';
import { TooManyEventStreamsError } from '../errors/too-many-event-streams-error.js';
import { route, type RouteSpec } from '../http/route.js';
import type { EventBus } from './event-bus.js';

const HEARTBEAT_MS = 25_000;
const UNREAD_GRACE_MS = 2000;
const HARD_CAP_FLOOR_BYTES = 4 * 1024 * 1024;
// What a client turned away for too many streams is told to wait; EventSource honours `retry:`, others the header.
const RETRY_AFTER_S = 10;

export interface EventStreamDeps {
  events: Pick<EventBus, 'subscribe'>;
  /** Aborted on shutdown: every open stream is ended so the server can close without waiting for them. */
  signal: AbortSignal;
  /** `server.max_event_streams`: each open stream holds a connection, a subscription and a buffer. */
  maxStreams: number;
  /**
   * `server.event_stream_max_unread_bytes`: a client that stops reading is dropped rather than buffered
   * without bound (EventSource reconnects by itself).
   */
  maxUnreadBytes: number;
  /**
   * Whether the stream's caller may still read, asked before each event: a stream opened by a user who is then
   * disabled, or loses the read scope, ends rather than going on for hours.
   */
  stillAllowed?: (identity: Identity | null) => boolean;
  heartbeatMs?: number;
  /** How long a stream may stay over `maxUnreadBytes` before its client is dropped. */
  unreadGraceMs?: number;
}

/**
 * `GET /events/stream`: server-sent events relaying every committed domain event (the web UI's live updates).
 * Each message is `event: <type>`, `id: <event id>`, `data: {"id","type","timestamp","data"}`.
 */
export function eventStreamRoutes(deps: EventStreamDeps): RouteSpec[] {
  const open = new Set<PassThrough>();
  return [
    route({
      method: 'get', path: '/events/stream', tag: 'events', access: 'read', status: 200, responseMediaType: 'text/event-stream',
      summary: 'Domain events as they happen (text/event-stream)',
      description:
        'A `text/event-stream` that stays open. Each committed event is sent as `event: <type>`, `id: <event id>` and ' +
        '`data:` the event as JSON (`id`, `type`, `timestamp`, `data`). A comment line is sent every 25 s so that ' +
        'proxies keep the connection open. Events that happened while no stream was open are not replayed; ' +
        'read `GET /stats` (recent events) after reconnecting. At most `server.max_event_streams` streams are open at ' +
        'once (one more gets 429 with `Retry-After`); a client that leaves more than `server.event_stream_max_unread_bytes` ' +
        'unread is disconnected.',
      errors: [429],
      handle: ({ setHeader, identity }) => {
        if (open.size >= deps.maxStreams) {
          setHeader('Retry-After', String(RETRY_AFTER_S));
          throw new TooManyEventStreamsError(open.size, RETRY_AFTER_S);
        }
        setHeader('Content-Type', 'text/event-stream; charset=utf-8');
        setHeader('Cache-Control', 'no-store');
        // nginx buffers proxied responses by default, which would hold events back.
        setHeader('X-Accel-Buffering', 'no');
        // The stream holds its connection for its whole life; closing it with the stream lets shutdown finish at once.
        setHeader('Connection', 'close');
        const stream = openStream(deps, () => deps.stillAllowed?.(identity) ?? true);
        open.add(stream);
        stream.once('close', () => open.delete(stream));
        return stream;
      },
    }),
  ];
}

function openStream(deps: EventStreamDeps, allowed: () => boolean): PassThrough {
  const stream = new PassThrough();
  // Both halves: events published in one burst wait on the readable side until the socket takes them; once the
  // socket pushes back, the writable side fills too.
  const unread = (): number => stream.writableLength + stream.readableLength;
  // A burst (1000 queue_added events from one POST) can briefly exceed the limit for a client that reads fine,
  // so going over starts a grace period and only a client still behind at its end is dropped. The hard cap
  // bounds memory during the grace period whatever the burst.
  const hardCap = Math.max(4 * deps.maxUnreadBytes, HARD_CAP_FLOOR_BYTES);
  let grace: NodeJS.Timeout | undefined;
  const dropIfBehind = (): void => {
    grace = undefined;
    if (unread() > deps.maxUnreadBytes) stream.destroy();
  };
  const send = (chunk: string): void => {
    if (stream.destroyed || stream.writableEnded) return;
    if (unread() > hardCap) {
      stream.destroy();
      return;
    }
    stream.write(chunk);
    if (unread() > deps.maxUnreadBytes && !grace) grace = setTimeout(dropIfBehind, deps.unreadGraceMs ?? UNREAD_GRACE_MS).unref();
  };
  const unsubscribe = deps.events.subscribe((event: DomainEvent) => {
    if (allowed()) send(formatEvent(event));
    else if (!stream.writableEnded) stream.end();
  });
  const heartbeat = setInterval(() => send(': ping\n\n'), deps.heartbeatMs ?? HEARTBEAT_MS);
  heartbeat.unref();
  const end = (): void => {
    if (!stream.writableEnded) stream.end();
  };
  deps.signal.addEventListener('abort', end, { once: true });
  // Koa destroys the body stream when the client goes away; that is where the subscription ends.
  stream.once('close', () => {
    clearTimeout(grace);
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
