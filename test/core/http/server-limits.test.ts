import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { startApp, type StartedApp } from '../../helpers/start-app.js';

/** A raw connection that records what comes back and when the server closed it. */
interface Conn {
  socket: Socket;
  text(): string;
  closed: Promise<number>;
}

async function open(app: StartedApp, request?: string): Promise<Conn> {
  const socket = connect(app.port, '127.0.0.1');
  let received = '';
  const started = Date.now();
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  // A reset counts as a close too: the point is whether, and when, the server let go. The error itself (a
  // reset when the server refuses the connection) is kept in the received text's place for failure messages.
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - started)));
  socket.on('error', (err: NodeJS.ErrnoException) => (received ||= `(connection error ${err.code ?? err.message})`));
  await once(socket, 'connect');
  if (request) socket.write(request);
  return { socket, text: () => received, closed };
}

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`;

async function waitFor(what: string, condition: () => boolean, timeoutMs = 5000): Promise<void> {
  for (const until = Date.now() + timeoutMs; !condition(); await new Promise((resolve) => setTimeout(resolve, 10))) {
    if (Date.now() > until) throw new Error(`timed out waiting until ${what}`);
  }
}

describe('server limits (server.*)', () => {
  it('closes connections beyond server.max_connections at once, and serves again when one goes away', async (t) => {
    const app = await startApp({ config: { server: { max_connections: 3 } } });
    t.after(() => app.close());
    const held: Conn[] = [];
    for (let i = 0; i < 3; i++) {
      const conn = await open(app, get('/health'));
      await waitFor(`connection ${i} is answered`, () => conn.text().includes('"status"'));
      held.push(conn);
    }
    const extra = await open(app, get('/health'));
    await extra.closed;
    assert.doesNotMatch(extra.text(), /HTTP\/1\.1/, 'the connection beyond the limit gets no answer');
    held[0]?.socket.destroy();
    await held[0]?.closed;
    const res = await fetch(`${app.baseUrl}/health`, { headers: { connection: 'close' } });
    assert.equal(res.status, 200);
    for (const conn of held) conn.socket.destroy();
  });

  it('answers 408 problem+json and disconnects a client whose body takes longer than server.request_timeout_ms', async (t) => {
    const app = await startApp({ config: { server: { request_timeout_ms: 1000 } } });
    t.after(() => app.close());
    const conn = await open(app, 'POST /api/v1/queue HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"artist":');
    const trickle = setInterval(() => conn.socket.writable && conn.socket.write(' '), 200);
    t.after(() => clearInterval(trickle));
    const closedAfter = await conn.closed;
    clearInterval(trickle);
    assert.match(conn.text(), /^HTTP\/1\.1 408 /);
    assert.match(conn.text(), /application\/problem\+json/);
    assert.ok(closedAfter < 3000, `disconnected after ${closedAfter} ms`);
  });

  it('answers 408 to a client that trickles its headers (slowloris)', async (t) => {
    const app = await startApp({ config: { server: { request_timeout_ms: 1000 } } });
    t.after(() => app.close());
    const conn = await open(app, 'GET /health HTTP/1.1\r\nHost: localhost\r\n');
    const trickle = setInterval(() => conn.socket.writable && conn.socket.write('X-Slow: 1\r\n'), 200);
    t.after(() => clearInterval(trickle));
    const closedAfter = await conn.closed;
    clearInterval(trickle);
    assert.match(conn.text(), /^HTTP\/1\.1 408 /);
    assert.ok(closedAfter < 3000, `disconnected after ${closedAfter} ms`);
  });

  it('refuses an event stream beyond server.max_event_streams with 429 and Retry-After, and admits one when a stream ends', async (t) => {
    const app = await startApp({ config: { server: { max_event_streams: 2 } } });
    t.after(() => app.close());
    const streams = [await open(app, get('/api/v1/events/stream')), await open(app, get('/api/v1/events/stream'))];
    for (const stream of streams) await waitFor('the stream is open', () => stream.text().includes(': connected'));
    const refused = await fetch(`${app.baseUrl}/api/v1/events/stream`);
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), '10');
    assert.match(await refused.text(), /server\.max_event_streams/);
    streams[0]?.socket.destroy();
    await streams[0]?.closed;
    let status = 0;
    // A liveness bound: the freed slot is seen as soon as the server notices the close, later on a loaded machine.
    for (const until = Date.now() + 30_000; Date.now() < until && status !== 200; await new Promise((resolve) => setTimeout(resolve, 20))) {
      const res = await fetch(`${app.baseUrl}/api/v1/events/stream`);
      status = res.status;
      await res.body?.cancel();
    }
    assert.equal(status, 200, 'a slot is free again once a client goes away');
    streams[1]?.socket.destroy();
  });

  // The client that stops reading is dropped in test/resilience/resource-limits.test.ts: the kernel's socket
  // buffers (megabytes on loopback) fill first, which takes more events than a unit test should publish.
  it('keeps a client that reads, even when one burst of events is larger than the unread limit', async (t) => {
    const app = await startApp({ config: { server: { event_stream_max_unread_bytes: 4096 } } });
    t.after(() => app.close());
    const res = await fetch(`${app.baseUrl}/api/v1/events/stream`);
    const reader = res.body?.getReader();
    assert.ok(reader);
    let text = '';
    const readUntil = async (pattern: RegExp): Promise<void> => {
      while (!pattern.test(text)) {
        const { value, done } = await reader.read();
        assert.equal(done, false, `the stream ended after ${text.length} characters`);
        text += new TextDecoder().decode(value);
      }
    };
    const long = 'y'.repeat(400);
    const items = Array.from({ length: 200 }, (_, i) => ({ artist: `${long} burst`, album: `${long} ${i}` }));
    const posted = await fetch(`${app.baseUrl}/api/v1/queue`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(items) });
    assert.equal(posted.status, 201);
    await readUntil(new RegExp(`${long} 199`));
    assert.equal(text.match(/event: queue_added/g)?.length, 200, 'all 200 events of the burst (~200 KB) arrived');
    await new Promise((resolve) => setTimeout(resolve, 2500)); // past the grace period
    await fetch(`${app.baseUrl}/api/v1/queue`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ artist: 'After', album: 'Burst' }) });
    await readUntil(/"artist":"After"/);
    await reader.cancel();
  });
});
