import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fetchJson, postJson } from './json-fields.js';
import { SERVICE_CHILD, freePort, killAllServiceProcesses, residentMiB, startServiceProcess, type ServiceProcess } from './service-process.js';
import { ms, percentile, printReport } from './statistics.js';
import { writeServiceConfig } from './write-service-config.js';

// Issue 16, points 7 and 8, and issue 15, point 14: what one hostile or careless client can hold, against the
// real service in a child process, over real sockets. A connection flood past server.max_connections, slowloris
// headers and bodies past server.request_timeout_ms, an event-stream flood past server.max_event_streams, a
// stream client that stops reading, 5 MiB and "1 GiB" JSON bodies, and secrets in URLs looked for in every
// public answer and the log. Sizing: about 20 s, most of it the non-reading client (the kernel's socket
// buffers, megabytes on loopback, fill before the server's own).

const LIMITS = { max_connections: 64, request_timeout_ms: 2000, max_event_streams: 8, event_stream_max_unread_bytes: 65536 };
const MiB = 1024 * 1024;
const PASSWORD = 'hunter2-library';
const PATH_TOKEN = 'ha-webhook-id-c0ffee1234';
const QUERY_TOKEN = 'bot-token-9a8b7c';

interface Conn {
  socket: Socket;
  text(): string;
  closed: Promise<number>;
  error(): string | null;
}

function openConn(port: number, request?: string): Promise<Conn> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let failure: string | null = null;
    const started = Date.now();
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', (err: NodeJS.ErrnoException) => (failure ??= err.code ?? err.message));
    const closed = new Promise<number>((done) => socket.once('close', () => done(Date.now() - started)));
    socket.once('connect', () => {
      if (request) socket.write(request);
      resolve({ socket, text: () => received, closed, error: () => failure });
    });
    socket.once('error', () => resolve({ socket, text: () => received, closed, error: () => failure }));
  });
}

const GET = (path: string) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`;
const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  await killAllServiceProcesses();
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('resource limits and secrets under attack', () => {
  let service: ServiceProcess;
  const rows: [string, string][] = [];

  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-limits-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const port = await freePort();
    const closedPort = await freePort();
    const configPath = await writeServiceConfig(dir, port, {
      server: LIMITS,
      webhooks: [{ name: 'ha', url: `http://127.0.0.1:${closedPort}/api/webhook/${PATH_TOKEN}?token=${QUERY_TOKEN}`, events: ['queue_added'], retry: 0 }],
      replace: { library: { type: 'subsonic', url: `http://admin:${PASSWORD}@127.0.0.1:${closedPort}/navidrome`, username: 'u', password: 'p' } },
    });
    service = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', configPath], port });
  });

  after(() => printReport('resource limits and secrets', [['limits', JSON.stringify(LIMITS)], ...rows]));

  it('refuses connections past server.max_connections and keeps serving', async () => {
    const conns = await Promise.all(Array.from({ length: 3 * LIMITS.max_connections }, () => openConn(service.port, GET('/health'))));
    await sleep(500);
    const answered = conns.filter((c) => c.text().startsWith('HTTP/1.1 200')).length;
    const refused = conns.filter((c) => c.text() === '' && c.socket.destroyed).length;
    for (const c of conns) c.socket.destroy();
    await Promise.all(conns.map((c) => c.closed));
    const started = Date.now();
    const health = await fetchJson(`${service.baseUrl}/health`);
    rows.push(['connection flood', `${conns.length} sockets: ${answered} served, ${refused} closed unanswered; /health after: ${health.status} in ${ms(Date.now() - started)}`]);
    assert.ok(answered <= LIMITS.max_connections, `${answered} served`);
    assert.ok(refused >= conns.length - LIMITS.max_connections, `${refused} refused`);
    assert.equal(health.status, 200);
  });

  it('disconnects slowloris headers and trickled bodies with 408 after server.request_timeout_ms', async () => {
    const heads = await Promise.all(Array.from({ length: 20 }, () => openConn(service.port, 'GET /health HTTP/1.1\r\nHost: localhost\r\n')));
    const bodies = await Promise.all(
      Array.from({ length: 20 }, () => openConn(service.port, 'POST /api/v1/queue HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n[')),
    );
    const trickle = setInterval(() => {
      for (const c of heads) if (c.socket.writable) c.socket.write('X-Slow: 1\r\n');
      for (const c of bodies) if (c.socket.writable) c.socket.write(' ');
    }, 250);
    const timesHeads = await Promise.all(heads.map((c) => c.closed));
    const timesBodies = await Promise.all(bodies.map((c) => c.closed));
    clearInterval(trickle);
    const got408 = [...heads, ...bodies].filter((c) => c.text().startsWith('HTTP/1.1 408')).length;
    rows.push(['slowloris headers (20)', `closed after p50 ${ms(percentile(timesHeads, 50))}, max ${ms(Math.max(...timesHeads))}`]);
    rows.push(['trickled bodies (20)', `closed after p50 ${ms(percentile(timesBodies, 50))}, max ${ms(Math.max(...timesBodies))}; ${got408}/40 read a 408 problem`]);
    assert.equal(got408, 40);
    assert.ok(Math.max(...timesHeads, ...timesBodies) < LIMITS.request_timeout_ms + 2000);
  });

  it('answers 5 MiB bodies with a readable 413 and closes a declared 1 GiB body after a bounded read', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x5b);
    const post = async (declared: number, send: number): Promise<{ status: string; written: number; error: string | null }> => {
      const c = await openConn(service.port, `POST /api/v1/queue HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${declared}\r\n\r\n`);
      let written = 0;
      while (written < send && !c.socket.destroyed && c.error() === null) {
        written += chunk.length;
        if (!c.socket.write(chunk)) await Promise.race([new Promise((resolve) => c.socket.once('drain', resolve)), c.closed]);
      }
      await c.closed;
      return { status: c.text().split('\r\n')[0] ?? '', written, error: c.error() };
    };
    const fives = [];
    for (let i = 0; i < 5; i++) fives.push(await post(5 * MiB, 5 * MiB));
    const huge = await post(1024 * MiB, 256 * MiB);
    rows.push(['5 MiB bodies (5)', `${fives.filter((r) => r.status.includes('413') && r.error === null).length}/5 read 413 with no reset; errors: ${fives.map((r) => r.error ?? '-').join(',')}`]);
    rows.push(['declared 1 GiB', `${huge.status}; closed after ${(huge.written / MiB).toFixed(1)} MiB sent (${huge.error ?? 'clean close'})`]);
    for (const r of fives) assert.deepEqual([r.status.slice(0, 12), r.error], ['HTTP/1.1 413', null]);
    // Past the discard bound (16 MiB) the 413 goes out with Connection: close and the service ends the connection
    // while the client is still sending, so a reset may reach the client before it reads the answer (README: a
    // client sending gigabytes is not owed a graceful close; CI once saw EPIPE and nothing read). What must hold:
    // the connection ends after a bounded read, and an answer, when one was read, is the 413.
    assert.ok(huge.status === '' || huge.status.includes('413'), `declared 1 GiB answered ${huge.status}`);
    assert.ok(huge.written < 64 * MiB);
  });

  it('caps event streams and drops a stream client that stops reading', async () => {
    const streams = await Promise.all(Array.from({ length: LIMITS.max_event_streams + 4 }, () => openConn(service.port, GET('/api/v1/events/stream'))));
    await sleep(300);
    const admitted = streams.filter((c) => c.text().startsWith('HTTP/1.1 200'));
    const refused = streams.filter((c) => c.text().startsWith('HTTP/1.1 429')).length;
    rows.push(['event-stream flood', `${streams.length} asked: ${admitted.length} admitted, ${refused} got 429`]);
    assert.equal(admitted.length, LIMITS.max_event_streams);
    // One admitted stream stops reading; the others keep reading. A free slot means the server let go of it.
    const stalled = admitted[0];
    assert.ok(stalled);
    stalled.socket.pause();
    const rssBefore = await residentMiB(service.pid);
    const started = Date.now();
    let events = 0;
    let freed = false;
    const long = 'z'.repeat(400);
    while (!freed && events < 60_000) {
      const batch = Array.from({ length: 1000 }, (_, i) => ({ artist: `${long} ${events}`, album: `${long} ${i}` }));
      assert.equal((await postJson(`${service.baseUrl}/api/v1/queue`, batch)).status, 201);
      events += batch.length;
      const probe = await fetch(`${service.baseUrl}/api/v1/events/stream`);
      await probe.body?.cancel();
      freed = probe.status === 200;
    }
    const rssAfter = await residentMiB(service.pid);
    rows.push(['stream that stops reading', `dropped after ${events} events (~${Math.round(events / 1000)} MB) in ${ms(Date.now() - started)}; service RSS ${rssBefore.toFixed(0)} → ${rssAfter.toFixed(0)} MiB`]);
    assert.ok(freed, `still held after ${events} events`);
    for (const c of streams) c.socket.destroy();
  });

  it('shows no credentials or URL tokens in /health, GET /webhooks, the delivery log or the log', async () => {
    await postJson(`${service.baseUrl}/api/v1/library/sync`, {});
    let health = '';
    for (const until = Date.now() + 10_000; Date.now() < until && !health.includes('library-subsonic'); await sleep(100)) {
      health = JSON.stringify((await fetchJson(`${service.baseUrl}/health`)).body);
    }
    const webhooks = JSON.stringify((await fetchJson(`${service.baseUrl}/api/v1/webhooks`)).body);
    const deliveries = JSON.stringify((await fetchJson(`${service.baseUrl}/api/v1/webhooks/deliveries?limit=5`)).body);
    const places = { '/health': health, 'GET /webhooks': webhooks, 'delivery log': deliveries, 'service log': service.output() };
    for (const [place, text] of Object.entries(places)) {
      const leaks = [PASSWORD, PATH_TOKEN, QUERY_TOKEN].filter((secret) => text.includes(secret));
      rows.push([`secrets in ${place}`, leaks.length === 0 ? `none (${text.length} chars checked)` : `LEAKED ${leaks.join(', ')}`]);
      assert.deepEqual(leaks, [], `${place}: ${text.slice(0, 400)}`);
    }
    assert.match(health, /library-subsonic/, 'the failing library is reported');
  });
});
